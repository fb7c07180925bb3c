// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
//
// The schemes' parts of the daemon, one file each (scheme_<name>.cpp):
// the Registration of the policy that drives the scheme and what the
// policy needs of it beyond its descriptor (kernel/core/scheme.h). The
// registry lists them (registry.cpp), nothing else names them.
#pragma once

#include "registry.h"

namespace lossless::policy {

// The baseline's Registration (scheme_dt.cpp): PfcPolicy's default.
extern const Registration kPfcDtRegistration;

// The policy class that runs the PFC family (pfc_policy.h).
std::unique_ptr<Policy> make_pfc_policy(const Registration &self, const PoolSettings &pool);

}  // namespace lossless::policy
