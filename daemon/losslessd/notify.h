// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
//
// Readiness for systemd's Type=notify (daemon/systemd/losslessd.service.in):
// losslessd sends READY=1 once its ports are installed or adopted and its
// pools' planes are in the datapath, RELOADING=1 then READY=1 around a
// reload (losslessctl reload, the unit's ExecReload=), STOPPING=1 at
// SIGTERM/SIGINT. libsystemd's sd_notify(3): a datagram to
// $NOTIFY_SOCKET; without that variable (not started by systemd) nothing
// is sent.
#pragma once

namespace lossless::daemon {

// Sends state ("READY=1", ...) with the daemon's pid as the sender.
// Returns sd_notify's result: > 0 sent, 0 no $NOTIFY_SOCKET, < 0 -errno
// (logged; the daemon runs on: systemd then times the start out).
int notify(const char *state);

}  // namespace lossless::daemon
