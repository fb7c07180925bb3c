// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
//
// The configuration file (daemon/config, docs/DAEMON.md) as the daemon's
// runtime model (daemon.h).
#pragma once

#include <string>

#include "daemon.h"

namespace lossless::daemon {

// Throws with every error of the file, one per line.
Config load_config(const std::string &path);

}  // namespace lossless::daemon
