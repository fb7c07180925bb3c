// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
//
// The policy registry: every policy losslessd can run, the datapath scheme
// it drives (docs/SCHEMES.md) and that scheme's parameters. A scheme's
// parameters are rows of the pool's parameter table
// (daemon/common/ll_params.c, the rows whose scheme is the scheme's id):
// the configuration ([pool.<scheme>] tables), `losslessctl set`, the
// netlink encoding of the qdisc's TCA_LOSSLESS_SCHEME, the plane's scheme
// block, the metrics and the tc plugin all read those rows, so a new
// scheme parameter is one row there.
//
// Registration is one line per policy in registry.cpp's table (each
// policy's file defines its Registration): explicit, so no policy can be
// dropped by the linker the way self-registering static objects in a
// static library can.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "ll_params.h"
#include "lossless.h"
#include "policy.h"

namespace lossless::policy {

// One parameter of a scheme: a row of ll_params.h (unit, range, default,
// tc keyword, TOML key, `losslessctl set` key, netlink attribute and nest,
// the word of lossless_plane_scheme.p.raw it takes).
using SchemeParam = ll_param;

// The rows of scheme id's parameters, in the table's order.
std::vector<const SchemeParam *> scheme_params(std::uint8_t id);

struct Registration {
  std::string_view policy;       // "pfc-dt", "st"
  std::string_view scheme;       // "dt", "st": the datapath scheme it drives
  std::uint8_t scheme_id;        // LOSSLESS_SCHEME_*
  std::vector<const SchemeParam *> params;  // scheme_params(scheme_id)
  std::string_view summary;
  std::unique_ptr<Policy> (*make)(const Registration &self, const PoolSettings &pool);
};

// Every registered policy, in registration order.
const std::vector<const Registration *> &registry();

const Registration *by_policy(std::string_view name);
// The policy that drives scheme name by default (the first registered).
const Registration *by_scheme(std::string_view scheme);
const Registration *by_scheme_id(std::uint8_t id);

// A scheme block with every parameter at its default.
lossless_plane_scheme default_block(const Registration &r);

// Validate a parameter's value against its row (buffer: the pool's);
// returns an error message, empty when it is valid.
std::string check_value(const SchemeParam &p, std::uint64_t value, std::uint64_t buffer_bytes);

// "dt, st": the names of the schemes, for messages.
std::string scheme_names();

// A port of a pool as the scheme checks see it.
struct SchemePort {
  std::string dev;
  // Its round trip, 2 x (cable delay + software delay); 0: unknown.
  std::uint64_t rtt_ns = 0;
  // Its headroom per lossless priority (DSH's insurance Phi); 0: unknown.
  std::uint64_t headroom_bytes = 0;
  // Its largest accounted frame (MTU + link header + VLAN tag); 0: unknown.
  std::uint32_t frame_bytes = 0;
};

// What check_scheme() finds: an error refuses the configuration or the
// change, a warning is only said.
struct SchemeIssue {
  bool error = true;
  int param = -1;  // the ll_param_id it is about (its key), -1: the pool
  int port = -1;   // the index in ports it is about, -1: none
  std::string msg;
};

// The checks of a scheme's parameters against the pool and its ports that
// neither a row's range nor the kernel's check can make (docs/DSH.md,
// docs/SPFC.md), integers only:
//   dsh   the reserves and the ports' insurance headroom leave a shared
//         region, and every port's Phi fits in it (dsh.md 9 #3); N_q x T
//         of an empty pool within the buffer (a warning past the shared
//         region: alpha x N_q > 1);
//   spfc  spfc-irc-th and spfc-irc-th-packets not both, spfc-irc-th at
//         least one frame of the ports (the kernel's check, said earlier);
//         the window TC at least every port's round trip (a warning below
//         4 round trips, spfc.md 3.6).
// Ports of unknown round trip or headroom are left out of those checks.
std::vector<SchemeIssue> check_scheme(const PoolSettings &pool,
                                      const std::vector<SchemePort> &ports);

}  // namespace lossless::policy
