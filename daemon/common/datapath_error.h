// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
//
// What a refusal by the datapath says to a person. The qdisc refuses a
// control block of the plane (kernel/uapi/lossless.h: the telemetry's
// apply_error) with an errno; losslessctl (status, set), losslessd's set
// request and its log all word it with this one helper.
#pragma once

#include <cerrno>
#include <cstring>
#include <string>

namespace lossless {

// err: the errno, positive or negative (apply_error is a -errno). The
// errors a user can act on in words (as the qdisc's extack says them to
// tc), the others as strerror() says them.
inline std::string datapath_error_text(int err)
{
  if (err < 0)
    err = -err;
  switch (err) {
  case EBUSY:
    return "the pool holds more than the new sizes allow; retry when idle";
  case ENODEV:
    return "a device is not a port of this pool";
  default:
    return std::strerror(err);
  }
}

}  // namespace lossless
