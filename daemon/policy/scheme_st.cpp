// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
//
// st (docs/SCHEMES.md): its policy's registration. Its one parameter needs
// no check beyond its row's range and the kernel's.
#include "scheme_parts.h"

#include "pfc_policy.h"

namespace lossless::policy {

// extern: registry.cpp lists it by name, no header declares it.
extern const Registration kStRegistration = {
    "st", "st", LOSSLESS_SCHEME_ST, scheme_params(LOSSLESS_SCHEME_ST),
    "PFC + a static threshold per ingress (docs/SCHEMES.md)", make_pfc_policy, nullptr, nullptr, nullptr};

}  // namespace lossless::policy
