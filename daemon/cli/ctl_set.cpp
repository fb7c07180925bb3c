// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
//
// losslessctl set KEY VALUE ...: pool parameters at run time, through
// the plane or through losslessd.
#include <net/if.h>

#include <chrono>
#include <cstdio>

#include "ctl.h"
#include "ll_params.h"

namespace lossless::ctl {

// The rows of the pool's parameter table (ll_params.h) that `set` writes
// into the plane itself: a key, and a field of the control entry other
// than the scheme's (a scheme's parameters go with its id, through the
// daemon's policy).
bool plane_key(const ll_param &r)
{
  return r.ctl && r.plane_set && r.plane_set != LOSSLESS_PLANE_SET_SCHEME;
}

namespace {

// A value of row r (key k) as tc takes it: the row's unit and range.
std::uint64_t parse_value(const ll_param &r, const std::string &k, const std::string &v)
{
  std::uint64_t x = 0;
  if (ll_param_parse(&r, v.c_str(), &x, nullptr) == LL_PARAM_OK)
    return x;
  if (r.unit == LL_PARAM_ALPHA)
    throw UsageError{"invalid " + k + " \"" + v + "\": " + LL_ALPHA_FORM};
  char range[256];
  ll_param_range(&r, range, sizeof(range));
  throw UsageError{"invalid " + k + " \"" + v + "\": must be " + range};
}

}  // namespace

int cmd_set(const std::string &path, const std::vector<std::string> &args)
{
  lp::Params p;
  if (args.empty())
    throw UsageError{"set needs KEY VALUE pairs"};
  for (std::size_t i = 0; i < args.size(); i++) {
    const std::string &k = args[i];
    auto value = [&]() -> const std::string & {
      if (i + 1 >= args.size())
        throw UsageError{"\"" + k + "\" needs a value"};
      return args[++i];
    };
    const ll_param *r = ll_param_by_ctl(k.c_str());
    if (const char *now = ll_param_ctl_renamed(k.c_str()))
      throw UsageError{k + ": renamed; write " + now + " " + value() + "us"};
    if (!r || !plane_key(*r)) {
      std::string keys;
      for (const ll_param &row : ll_params)
        if (plane_key(row))
          keys += (keys.empty() ? "" : ", ") + std::string(row.ctl);
      throw UsageError{"unknown parameter \"" + k + "\" (" + keys + ")"};
    }
    if (r->plane_set == LOSSLESS_PLANE_SET_HEADROOM) {  // per port: DEV VALUE
      std::string dev = value();
      auto bytes = static_cast<std::uint32_t>(parse_value(*r, k, value()));
      unsigned idx = if_nametoindex(dev.c_str());
      if (!idx)
        throw UsageError{k + ": no device \"" + dev + "\" in this network namespace"};
      p.headroom.push_back({idx, bytes});
    } else if (auto field = lp::field(r->plane_set)) {
      std::uint64_t v = parse_value(*r, k, value());
      // The plane's period is in microseconds (interval_us).
      p.*field = static_cast<std::uint32_t>(r->unit == LL_PARAM_TIME ? v / 1000 : v);
    }
  }
  auto plane = lp::Plane::open(path);
  std::uint64_t gen = plane.submit(p);
  return report_applied(path, "the change", "gen", gen,
                        plane.wait_applied(gen, std::chrono::milliseconds(1000)));
}

int cmd_set_daemon(const std::string &sock, const std::string &pool,
                   const std::vector<std::string> &args)
{
  if (args.empty() || args.size() % 2)
    throw UsageError{"set needs KEY VALUE pairs"};
  for (std::size_t i = 0; i < args.size(); i += 2) {
    json r = daemon_request(sock, {{"cmd", "set"}, {"pool", pool}, {"key", args[i]},
                                   {"value", args[i + 1]}});
    if (int rc = print_reply(r, false); rc >= 0)
      return rc;
    std::printf("%s %s: applied by the datapath in %.1f ms\n", args[i].c_str(),
                args[i + 1].c_str(), r["latency_us"].get<double>() / 1000);
  }
  return kExitOk;
}


}  // namespace lossless::ctl
