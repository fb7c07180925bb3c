// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
//
// losslessctl clear peaks: the pools' peak watermarks (pool shared and
// headroom, every ingress (port, priority) and egress queue, the scheme's)
// restart from what is in use now, as SONiC's `watermark clear`. The
// plane's control entry carries the action alone
// (LOSSLESS_PLANE_SET_RESET_PEAKS): no parameter changes. With losslessd
// running it goes through the daemon, which writes the entry between its
// policy's; --plane (or no daemon) writes the map directly.
#include <chrono>
#include <cstdio>

#include "ctl.h"
#include "ll_plane_map.h"

namespace lossless::ctl {

int cmd_clear(const std::string &sock, bool via_daemon, const std::string &pool,
              const std::string &plane_path, const std::vector<std::string> &args)
{
  if (args.size() != 1 || args[0] != "peaks")
    throw UsageError{"clear takes one word: peaks"};
  if (via_daemon) {
    json req = {{"cmd", "clear"}, {"what", "peaks"}};
    if (!pool.empty())
      req["pool"] = pool;
    json r = daemon_request(sock, req);
    if (int rc = print_reply(r, false); rc >= 0)
      return rc;
    for (const auto &p : r["pools"])
      std::printf("pool %s: peaks cleared (gen %llu) in %.1f ms\n",
                  p["pool"].get<std::string>().c_str(), p["gen"].get<unsigned long long>(),
                  p["latency_us"].get<double>() / 1000);
    return kExitOk;
  }
  std::vector<std::string> planes;
  if (!plane_path.empty())
    planes.push_back(plane_path);
  else
    planes = lp::find_pinned();
  if (planes.empty()) {
    std::fprintf(stderr, "losslessctl: no pool planes under %s\n", LL_PLANE_PIN_ROOT);
    return kExitError;
  }
  int rc = kExitOk;
  for (const auto &path : planes) {
    auto plane = lp::Plane::open(path);
    lp::Params p;
    p.reset_peaks = true;
    std::uint64_t gen = plane.submit(p);
    if (report_applied(path, path + ": clear peaks", "gen", gen,
                       plane.wait_applied(gen, std::chrono::milliseconds(1000))) != kExitOk)
      rc = kExitError;
  }
  return rc;
}

}  // namespace lossless::ctl
