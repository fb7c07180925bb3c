// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
//
// dt, the baseline (docs/MMU.md): its policy's registration. The policy
// is the PFC family's (pfc_policy.h), which needs nothing more of it.
#include "scheme_parts.h"

namespace lossless::policy {

const Registration kPfcDtRegistration = {
    "pfc-dt", "dt", LOSSLESS_SCHEME_DT, scheme_params(LOSSLESS_SCHEME_DT),
    "PFC + Dynamic Threshold + static headroom (docs/MMU.md)", make_pfc_policy, nullptr, nullptr,
    nullptr};

}  // namespace lossless::policy
