// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
//
// losslessctl move-scheme SCHEME [--timeout TIME]: move a pool, busy or
// not, to another scheme. A scheme changes only while its pool holds no
// packets, so the pool is drained first (its lossless queues tell their
// upstreams XOFF, lossy arrivals are dropped), the scheme changes once it
// is empty, and the drain ends in the same control entry
// (plane::move_scheme()). At the timeout the drain ends and the scheme
// stays. With losslessd running it goes through the daemon, whose policy
// becomes the new scheme's; --plane (or no daemon) writes the map.
#include <chrono>
#include <cstdio>

#include "ctl.h"
#include "ll_units.h"
#include "registry.h"

namespace lossless::ctl {

int cmd_move_scheme(const std::string &sock, bool via_daemon, const std::string &pool,
                    const std::string &plane_path, const std::vector<std::string> &args)
{
  std::string scheme, timeout;
  for (std::size_t i = 0; i < args.size(); i++) {
    if (args[i] == "--timeout") {
      if (i + 1 >= args.size())
        throw UsageError{"--timeout needs a time (5s)"};
      timeout = args[++i];
    } else if (scheme.empty() && args[i][0] != '-') {
      scheme = args[i];
    } else {
      throw UsageError{"move-scheme: unexpected \"" + args[i] + "\" (move-scheme SCHEME [--timeout TIME])"};
    }
  }
  if (scheme.empty())
    throw UsageError{"move-scheme needs a SCHEME (" + policy::scheme_names() + ")"};
  std::uint64_t timeout_ns = 5000000000ULL;
  if (!timeout.empty() &&
      (ll_units_time(timeout.c_str(), 600000000000ULL, &timeout_ns) || timeout_ns < 1000000))
    throw UsageError{"invalid --timeout \"" + timeout + "\": must be a time 1ms .. 600s"};
  if (via_daemon) {
    if (pool.empty())
      throw UsageError{"move-scheme needs --pool NAME"};
    json req = {{"cmd", "move-scheme"}, {"pool", pool}, {"scheme", scheme}};
    if (!timeout.empty())
      req["timeout"] = timeout;
    json r = daemon_request(sock, req);
    if (int rc = print_reply(r, false); rc >= 0)
      return rc;
    std::printf("pool %s: moved from scheme %s to %s (policy %s): drained in %.1f ms, %.1f ms in all\n",
                r["pool"].get<std::string>().c_str(), r["from"].get<std::string>().c_str(),
                r["to"].get<std::string>().c_str(), r["policy"].get<std::string>().c_str(),
                r["drain_ms"].get<double>(), r["latency_us"].get<double>() / 1000);
    return kExitOk;
  }
  if (plane_path.empty())
    throw UsageError{"move-scheme needs --pool NAME or --plane PATH"};
  const policy::Registration *to = policy::by_scheme(scheme);
  if (!to)
    throw UsageError{"move-scheme: unknown scheme \"" + scheme + "\" (" + policy::scheme_names() + ")"};
  auto plane = lp::Plane::open(plane_path);
  auto t = plane.telemetry();
  if (!t) {
    std::fprintf(stderr, "losslessctl: %s: no telemetry: no pool ticks this plane\n",
                 plane_path.c_str());
    return kExitError;
  }
  const policy::Registration *from = policy::by_scheme_id(static_cast<std::uint8_t>(t->scheme.id));
  std::string from_name = from ? std::string(from->scheme) : std::to_string(t->scheme.id);
  if (from == to) {
    std::fprintf(stderr, "losslessctl: %s: the pool runs scheme %s already\n", plane_path.c_str(),
                 scheme.c_str());
    return kExitError;
  }
  auto t0 = std::chrono::steady_clock::now();
  lp::MoveResult r = lp::move_scheme(plane, policy::default_block(*to), from_name, to->scheme,
                                     std::chrono::milliseconds(timeout_ns / 1000000));
  if (!r.error.empty()) {
    std::fprintf(stderr, "losslessctl: %s: %s\n", plane_path.c_str(), r.error.c_str());
    return kExitError;
  }
  std::printf("%s: moved from scheme %s to %s (gen %llu): drained in %.1f ms, %.1f ms in all\n",
              plane_path.c_str(), from_name.c_str(), scheme.c_str(),
              static_cast<unsigned long long>(r.gen), r.drain_time.count() / 1e6,
              std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0)
                  .count());
  return kExitOk;
}

}  // namespace lossless::ctl
