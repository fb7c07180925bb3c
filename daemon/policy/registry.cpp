// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
#include "registry.h"

#include <algorithm>

#include "ll_units.h"
#include "pfc_policy.h"
#include "scheme_parts.h"

namespace lossless::policy {

// Each in its scheme_<name>.cpp; a scheme's two lines are this and its
// entry below.
extern const Registration kStRegistration;
extern const Registration kDshRegistration;
extern const Registration kSpfcRegistration;
extern const Registration kPortfcRegistration;

const std::vector<const Registration *> &registry()
{
  // One line per policy; the first policy of a scheme is its default.
  static const std::vector<const Registration *> all = {&kPfcDtRegistration, &kStRegistration,
                                                        &kDshRegistration, &kSpfcRegistration,
                                                        &kPortfcRegistration};
  return all;
}

const Registration *by_policy(std::string_view name)
{
  for (const auto *r : registry())
    if (r->policy == name)
      return r;
  return nullptr;
}

const Registration *by_scheme(std::string_view scheme)
{
  for (const auto *r : registry())
    if (r->scheme == scheme)
      return r;
  return nullptr;
}

const Registration *by_scheme_id(std::uint8_t id)
{
  for (const auto *r : registry())
    if (r->scheme_id == id)
      return r;
  return nullptr;
}

std::string time_text(std::uint64_t ns)
{
  char buf[64];
  ll_units_time_text(ns, buf, sizeof(buf));
  return buf;
}

std::vector<const SchemeParam *> scheme_params(std::uint8_t id)
{
  std::vector<const SchemeParam *> out;
  for (unsigned i = 0; const SchemeParam *p = ll_param_of_scheme(id, i); i++)
    out.push_back(p);
  return out;
}

lossless_plane_scheme default_block(const Registration &r)
{
  lossless_plane_scheme b{};
  b.id = r.scheme_id;
  for (const SchemeParam *p : r.params)
    b.p.raw[p->word] = p->def;
  return b;
}

std::string check_value(const SchemeParam &p, std::uint64_t value, std::uint64_t buffer_bytes)
{
  bool to_buffer = p.flags & LL_PARAM_MAX_BUFFER;
  std::uint64_t max = to_buffer ? buffer_bytes : p.max;
  if (value >= p.min && value <= max)
    return {};
  std::string unit = p.unit == LL_PARAM_TIME ? " ns" : p.unit == LL_PARAM_SIZE ? " bytes" : "";
  return "must be " + std::to_string(p.min) + " .. " + std::to_string(max) + unit +
         (to_buffer ? " (the pool's buffer)" : "");
}

std::string scheme_names()
{
  std::string out;
  for (const auto *r : registry())
    if (by_scheme(r->scheme) == r)
      out += (out.empty() ? "" : ", ") + std::string(r->scheme);
  return out;
}

std::vector<SchemeIssue> check_scheme(const PoolSettings &pool,
                                      const std::vector<SchemePort> &ports)
{
  std::vector<SchemeIssue> out;
  if (const Registration *r = by_scheme_id(static_cast<std::uint8_t>(pool.scheme.id));
      r && r->check)
    r->check(pool, ports, out);
  return out;
}

std::vector<std::string> names()
{
  std::vector<std::string> out;
  for (const auto *r : registry())
    out.emplace_back(r->policy);
  return out;
}

std::unique_ptr<Policy> make(std::string_view name, const PoolSettings &pool)
{
  const Registration *r = by_policy(name);
  return r ? r->make(*r, pool) : nullptr;
}

}  // namespace lossless::policy
