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
#include <functional>
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
  const ll_param *param = nullptr;  // the row it is about (its key); nullptr: the pool
  int port = -1;   // the index in ports it is about, -1: none
  std::string msg;
};

// A pool's scheme as its configuration gives it (configure()).
struct SchemeConfig {
  // Whether key was given in the pool's [pool.<scheme>] table.
  std::function<bool(const char *key)> given;
  std::uint64_t max_rtt_ns = 0;  // the slowest port's round trip; 0: none known
  lossless_plane_scheme *block = nullptr;
  std::vector<SchemeIssue> issues;
};

struct Registration {
  std::string_view policy;       // "pfc-dt"
  std::string_view scheme;       // "dt": the datapath scheme it drives
  std::uint8_t scheme_id;        // LOSSLESS_SCHEME_*
  std::vector<const SchemeParam *> params;  // scheme_params(scheme_id)
  std::string_view summary;
  std::unique_ptr<Policy> (*make)(const Registration &self, const PoolSettings &pool);
  // The scheme's checks against the pool and its ports (check_scheme());
  // nullptr: none beyond the rows' ranges and the kernel's.
  void (*check)(const PoolSettings &pool, const std::vector<SchemePort> &ports,
                std::vector<SchemeIssue> &out);
  // While the configuration is read (config/): complete the scheme's
  // block from what was given and the ports (a default that depends on
  // them), and refuse combinations of keys; nullptr: nothing to do.
  void (*configure)(SchemeConfig &c);
  // The scheme's agent (agent.h), if part of it runs in the daemon;
  // nullptr: none.
  std::unique_ptr<SchemeAgent> (*agent)();
};

// Every registered policy, in registration order.
const std::vector<const Registration *> &registry();

const Registration *by_policy(std::string_view name);
// The policy that drives scheme name by default (the first registered).
const Registration *by_scheme(std::string_view scheme);
const Registration *by_scheme_id(std::uint8_t id);

// A time as the messages write it (ll_units_time_text()): "60ms", "2500us".
std::string time_text(std::uint64_t ns);

// A scheme block with every parameter at its default.
lossless_plane_scheme default_block(const Registration &r);

// Validate a parameter's value against its row (buffer: the pool's);
// returns an error message, empty when it is valid.
std::string check_value(const SchemeParam &p, std::uint64_t value, std::uint64_t buffer_bytes);

// "dt, ...": the names of the schemes, for messages.
std::string scheme_names();

// The checks of a scheme's parameters against the pool and its ports that
// neither a row's range nor the kernel's check can make: its
// Registration's check (scheme_<name>.cpp; docs/DSH.md, docs/SPFC.md),
// integers only. Ports of unknown round trip or headroom are left out.
std::vector<SchemeIssue> check_scheme(const PoolSettings &pool,
                                      const std::vector<SchemePort> &ports);

}  // namespace lossless::policy
