// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
//
// dsh (docs/DSH.md): its policy's registration and the checks of its
// parameters against the pool and its ports that neither a row's range
// nor the kernel's check can make (dsh.md 9 #3).
#include "scheme_parts.h"

#include "pfc_policy.h"

namespace lossless::policy {
namespace {

void checks(const PoolSettings &pool, const std::vector<SchemePort> &ports,
                std::vector<SchemeIssue> &out)
{
  unsigned nq = static_cast<unsigned>(__builtin_popcount(pool.lossless_mask));
  if (!nq || ports.empty())
    return;
  // The MMU reserves for the 8 priorities of every port; DSH carves each
  // port's Phi once (LL_DSH_F_NO_INSURANCE: nothing).
  unsigned __int128 reserves = (unsigned __int128)pool.reserved_bytes * 8 * ports.size();
  unsigned __int128 insurance = 0;
  bool carve = !(pool.scheme.p.dsh.flags & LOSSLESS_DSH_F_NO_INSURANCE);
  if (carve)
    for (const auto &p : ports)
      insurance += p.headroom_bytes;
  const std::string used = "the reserves (" + std::to_string((std::uint64_t)reserves) +
                           " bytes) and the ports' insurance headroom (" +
                           std::to_string((std::uint64_t)insurance) + " bytes)";
  if (reserves + insurance >= pool.buffer_bytes) {
    out.push_back({true, &ll_params[LL_P_BUFFER], -1,
                   "dsh: " + used + " leave no shared region in buffer (" +
                       std::to_string(pool.buffer_bytes) + " bytes)"});
    return;
  }
  std::uint64_t shared = pool.buffer_bytes - static_cast<std::uint64_t>(reserves + insurance);
  if (carve)
    for (std::size_t i = 0; i < ports.size(); i++)
      if (ports[i].headroom_bytes > shared)
        out.push_back({true, nullptr, static_cast<int>(i),
                       "dsh: port " + ports[i].dev + "'s insurance headroom Phi (" +
                           std::to_string(ports[i].headroom_bytes) +
                           " bytes) is larger than the shared region (" + std::to_string(shared) +
                           " bytes: the buffer less " + used + ")"});
  // T of an empty pool = alpha x shared; the port pauses at N_q x T.
  unsigned __int128 t = ((unsigned __int128)shared * (pool.alpha >> 8)) >> (pool.alpha & 0xff);
  unsigned __int128 nqt = t * nq;
  auto big = [](unsigned __int128 v) {
    return v > UINT64_MAX ? std::string("more than 2^64") : std::to_string((std::uint64_t)v);
  };
  std::string what = "dsh: N_q x T (" + std::to_string(nq) + " lossless priorities x T " + big(t) +
                     " bytes of an empty pool = " + big(nqt) + " bytes)";
  if (nqt > pool.buffer_bytes)
    out.push_back({true, &ll_params[LL_P_ALPHA], -1,
                   what + " beyond the buffer (" + std::to_string(pool.buffer_bytes) +
                       " bytes): lower alpha or the lossless priorities"});
  else if (nqt > shared)
    out.push_back({false, &ll_params[LL_P_ALPHA], -1,
                   what + " beyond the shared region (" + std::to_string(shared) +
                       " bytes, alpha x N_q > 1): the pool's guard, not the port-level "
                       "pause, stops a port first"});
}

}  // namespace

// extern: registry.cpp lists it by name, no header declares it.
extern const Registration kDshRegistration = {
    "dsh", "dsh", LOSSLESS_SCHEME_DSH, scheme_params(LOSSLESS_SCHEME_DSH),
    "Dynamic and Shared Headroom: insurance headroom per port, port-level pause (docs/DSH.md)",
    make_pfc_policy, checks, nullptr, nullptr};

}  // namespace lossless::policy
