// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
#include "notify.h"

#include <systemd/sd-daemon.h>

#include <cstdio>
#include <cstring>

namespace lossless::daemon {

int notify(const char *state)
{
  // unset_environment 0: a reload sends again to the same socket.
  int r = sd_notify(0, state);
  if (r < 0)
    std::fprintf(stderr, "losslessd: sd_notify(%s): %s\n", state, std::strerror(-r));
  return r;
}

}  // namespace lossless::daemon
