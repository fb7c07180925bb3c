// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
//
// The schemes' parts of the daemon, one file each (scheme_<name>.cpp):
// the Registration of the policy that drives the scheme and what the
// policy needs of it beyond its descriptor (kernel/core/scheme.h). The
// registry lists them (registry.cpp), nothing else names them.
#pragma once

#include "registry.h"

namespace lossless::policy {

extern const Registration kPfcDtRegistration;  // "pfc-dt", scheme dt
extern const Registration kStRegistration;     // "st", scheme st
extern const Registration kDshRegistration;    // "dsh", scheme dsh
extern const Registration kSpfcRegistration;   // "spfc", scheme spfc

// The policy class that runs the PFC family (pfc_policy.h).
std::unique_ptr<Policy> make_pfc_policy(const Registration &self, const PoolSettings &pool);

}  // namespace lossless::policy
