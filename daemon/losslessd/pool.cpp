// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
#include "pool.h"

#include <cstring>
#include <utility>

namespace lossless::daemon {

std::string Pool::run_policy()
{
  std::string refused;
  // One attempt into the scratch buffer: when the datapath is writing the
  // snapshot right now (its timer and ours share the period), keep the
  // last good one rather than spin against it.
  switch (plane->try_read_telemetry(*scratch)) {
  case plane::Plane::Read::Ok:
    std::swap(tel, scratch);
    have_tel = true;
    break;
  case plane::Plane::Read::Busy:
    busy_reads++;
    break;
  case plane::Plane::Read::NoTelemetry:
    break;
  }
  if (pending) {
    if (!have_tel || tel->applied_gen < pending_gen)
      return refused;  // still waiting for the datapath
    last_latency = Clock::now() - pending_since;
    last_error = -tel->apply_error;
    if (tel->applied_gen == pending_gen && tel->apply_error) {
      refusals++;
      refused = "pool " + cfg.settings.name + ": the datapath refused gen " +
                std::to_string(pending_gen) + ": " + std::strerror(last_error);
      policy->refused(*pending, last_error);
    } else {
      pushes++;
      policy->pushed(*pending);
    }
    pending.reset();
  }
  inputs.pool = &cfg.settings;
  inputs.telemetry = have_tel ? tel.get() : nullptr;
  auto d = policy->decide(inputs);
  if (!d)
    return refused;
  pending_gen = plane->submit(*d);
  pending = std::move(d);
  pending_since = Clock::now();
  return refused;
}

}  // namespace lossless::daemon
