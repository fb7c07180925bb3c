// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
//
// The policy registry: every policy losslessd can run, the datapath scheme
// it drives (docs/SCHEMES.md) and that scheme's parameters, one row each.
// The configuration ([pool.<scheme>] tables), `losslessctl set`, the
// netlink encoding of the qdisc's TCA_LOSSLESS_SCHEME and the plane's
// scheme block all read these rows: a new scheme parameter is one row.
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

#include "lossless.h"
#include "policy.h"

namespace lossless::policy {

// A scheme parameter is a size or a time (tc's units); add a unit when a
// scheme needs one, with its parser in PfcDt::set() and config.cpp.
enum class Unit { Bytes, Nanoseconds };

// One parameter of a scheme: a u64 word of lossless_plane_scheme.p.raw,
// an attribute of the scheme's nested netlink attribute.
struct SchemeParam {
  std::string_view key;   // [pool.<scheme>] key; `losslessctl set` takes <scheme>.<key>
  std::string_view tc;    // the tc keyword (st-threshold)
  Unit unit;
  std::uint64_t min, max;
  bool max_is_buffer;     // the upper bound is the pool's buffer, not max
  std::uint64_t def;      // the default (0 often means "derived")
  std::string_view help;
  unsigned word;          // index in lossless_plane_scheme.p.raw
  std::uint16_t nl_attr;  // attribute inside the scheme's nest
};

struct Registration {
  std::string_view policy;       // "pfc-dt", "st"
  std::string_view scheme;       // "dt", "st": the datapath scheme it drives
  std::uint8_t scheme_id;        // LOSSLESS_SCHEME_*
  std::uint16_t nl_nest;         // TCA_LOSSLESS_SCHEME_<NAME>; 0: no parameters
  std::vector<SchemeParam> params;
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

}  // namespace lossless::policy
