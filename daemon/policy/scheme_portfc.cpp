// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
//
// portfc (docs/PORTFC.md): its policy's registration. A BCube switch's
// pool runs PortFC with the pool policy every scheme has (headroom from
// the measured software delay, peaks, telemetry); the BCube plan and the
// classifier are lossless-portfc's (daemon/portfc). Its parameters need no
// check beyond their rows' ranges and the core's (portfc_check).
#include "scheme_parts.h"

#include "pfc_policy.h"

namespace lossless::policy {

// extern: registry.cpp lists it by name, no header declares it.
extern const Registration kPortfcRegistration = {
    "portfc", "portfc", LOSSLESS_SCHEME_PORTFC, scheme_params(LOSSLESS_SCHEME_PORTFC),
    "PortFC: per-port Pause/Resume for BCube switches (docs/PORTFC.md)", make_pfc_policy,
    nullptr, nullptr, nullptr};

}  // namespace lossless::policy
