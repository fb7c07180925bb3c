// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
#include "rtnl.h"

#include <linux/if.h>
#include <linux/netlink.h>
#include <linux/gen_stats.h>
#include <linux/pkt_sched.h>
#include <linux/rtnetlink.h>
#include <netlink/attr.h>
#include <netlink/msg.h>
#include <netlink/netlink.h>
#include <netlink/socket.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

#include "ll_params.h"
#include "lossless.h"
#include "registry.h"

namespace lossless::daemon {
namespace {

constexpr std::uint32_t kHandle = 0x10000;  // 1:

struct Reply {
  int err = 0;
  std::string msg;
  std::vector<Link> *links = nullptr;
  std::vector<RootQdisc> *qdiscs = nullptr;
  std::vector<ClassStats> *classes = nullptr;
  int ifindex = 0;  // classes: of this port only
};

// The extack message of an error reply (NLMSGERR_ATTR_MSG).
std::string extack_msg(const nlmsghdr *nlh, const nlmsgerr *e)
{
  if (!(nlh->nlmsg_flags & NLM_F_ACK_TLVS))
    return {};
  std::size_t off = sizeof(*e);
  if (!(nlh->nlmsg_flags & NLM_F_CAPPED))
    off += e->msg.nlmsg_len - sizeof(e->msg);
  const char *base = reinterpret_cast<const char *>(e);
  std::size_t total = nlh->nlmsg_len - NLMSG_HDRLEN;
  while (off + sizeof(nlattr) <= total) {
    const auto *a = reinterpret_cast<const nlattr *>(base + off);
    if (a->nla_len < sizeof(nlattr) || off + a->nla_len > total)
      break;
    if ((a->nla_type & NLA_TYPE_MASK) == NLMSGERR_ATTR_MSG)
      return std::string(reinterpret_cast<const char *>(a) + NLA_HDRLEN,
                         strnlen(reinterpret_cast<const char *>(a) + NLA_HDRLEN,
                                 a->nla_len - NLA_HDRLEN));
    off += NLA_ALIGN(a->nla_len);
  }
  return {};
}

int on_error(sockaddr_nl *, nlmsgerr *e, void *arg)
{
  auto *r = static_cast<Reply *>(arg);
  const auto *nlh = reinterpret_cast<const nlmsghdr *>(reinterpret_cast<const char *>(e) -
                                                       NLMSG_HDRLEN);
  r->err = -e->error;
  r->msg = extack_msg(nlh, e);
  return NL_STOP;
}

int on_ack(nl_msg *, void *) { return NL_STOP; }

void parse_link(nlmsghdr *nlh, Reply *r)
{
  auto *ifi = static_cast<ifinfomsg *>(nlmsg_data(nlh));
  nlattr *tb[IFLA_MAX + 1];
  if (nlmsg_parse(nlh, sizeof(*ifi), tb, IFLA_MAX, nullptr) < 0)
    return;
  Link l;
  l.ifindex = ifi->ifi_index;
  l.up = (ifi->ifi_flags & IFF_UP) && (ifi->ifi_flags & IFF_RUNNING);
  if (tb[IFLA_IFNAME])
    l.name = nla_get_string(tb[IFLA_IFNAME]);
  if (tb[IFLA_MTU])
    l.mtu = nla_get_u32(tb[IFLA_MTU]);
  r->links->push_back(l);
}

// The watchdog nest as the kernel dumps it; a field it lacks keeps its
// default.
WatchdogSpec parse_watchdog(nlattr *nest)
{
  WatchdogSpec w;
  nlattr *a[TCA_LOSSLESS_WD_MAX + 1];
  if (nla_parse_nested(a, TCA_LOSSLESS_WD_MAX, nest, nullptr) < 0)
    return w;
  auto u64 = [&](int type, std::uint64_t &out) {
    if (a[type] && nla_len(a[type]) >= 8)
      out = nla_get_u64(a[type]);
  };
  if (a[TCA_LOSSLESS_WD_ACTION] && nla_len(a[TCA_LOSSLESS_WD_ACTION]) >= 1)
    w.action = nla_get_u8(a[TCA_LOSSLESS_WD_ACTION]);
  u64(TCA_LOSSLESS_WD_DETECT_NS, w.detect_ns);
  u64(TCA_LOSSLESS_WD_RESTORE_NS, w.restore_ns);
  u64(TCA_LOSSLESS_WD_POLL_NS, w.poll_ns);
  u64(TCA_LOSSLESS_WD_XOFF_ALARM_NS, w.xoff_alarm_ns);
  return w;
}

void parse_qdisc(nlmsghdr *nlh, Reply *r)
{
  auto *tcm = static_cast<tcmsg *>(nlmsg_data(nlh));
  nlattr *tb[TCA_MAX + 1];
  if (tcm->tcm_parent != TC_H_ROOT || nlmsg_parse(nlh, sizeof(*tcm), tb, TCA_MAX, nullptr) < 0)
    return;
  RootQdisc q;
  q.ifindex = tcm->tcm_ifindex;
  q.handle = tcm->tcm_handle;
  if (tb[TCA_KIND])
    q.kind = nla_get_string(tb[TCA_KIND]);
  if (q.kind == "lossless" && tb[TCA_OPTIONS]) {
    nlattr *o[TCA_LOSSLESS_MAX + 1];
    if (nla_parse_nested(o, TCA_LOSSLESS_MAX, tb[TCA_OPTIONS], nullptr) == 0) {
      if (o[TCA_LOSSLESS_POOL])
        q.pool = nla_get_string(o[TCA_LOSSLESS_POOL]);
      if (o[TCA_LOSSLESS_PLANE_ID])
        q.plane_id = nla_get_u32(o[TCA_LOSSLESS_PLANE_ID]);
      if (o[TCA_LOSSLESS_RATE_BPS])
        q.rate_bps = nla_get_u64(o[TCA_LOSSLESS_RATE_BPS]);
      if (o[TCA_LOSSLESS_WATCHDOG])
        q.watchdog = parse_watchdog(o[TCA_LOSSLESS_WATCHDOG]);
    }
  }
  r->qdiscs->push_back(q);
}

// A class of a lossless qdisc: its xstats (TCA_STATS2's TCA_STATS_APP,
// as long as the kernel's struct or ours, whichever is shorter).
void parse_class(nlmsghdr *nlh, Reply *r)
{
  auto *tcm = static_cast<tcmsg *>(nlmsg_data(nlh));
  nlattr *tb[TCA_MAX + 1];
  if (tcm->tcm_ifindex != r->ifindex || nlmsg_parse(nlh, sizeof(*tcm), tb, TCA_MAX, nullptr) < 0)
    return;
  if (!tb[TCA_KIND] || std::string(nla_get_string(tb[TCA_KIND])) != "lossless" || !tb[TCA_STATS2])
    return;
  nlattr *st[TCA_STATS_MAX + 1];
  if (nla_parse_nested(st, TCA_STATS_MAX, tb[TCA_STATS2], nullptr) < 0 || !st[TCA_STATS_APP])
    return;
  tc_lossless_class_xstats x{};
  std::size_t len = std::min<std::size_t>(static_cast<std::size_t>(nla_len(st[TCA_STATS_APP])),
                                          sizeof(x));
  std::memcpy(&x, nla_data(st[TCA_STATS_APP]), len);
  std::uint32_t minor = TC_H_MIN(tcm->tcm_handle);
  if (x.type != TC_LOSSLESS_XSTATS_CLASS || !minor)
    return;
  ClassStats c;
  c.queue = minor - 1;
  c.paused = x.paused != 0;
  c.gate_mask = x.gate_mask;
  c.pause_frames_rx = x.pause_frames_rx;
  c.paused_ns = x.paused_ns;
  r->classes->push_back(c);
}

int on_valid(nl_msg *msg, void *arg)
{
  auto *r = static_cast<Reply *>(arg);
  nlmsghdr *nlh = nlmsg_hdr(msg);
  if (nlh->nlmsg_type == RTM_NEWLINK && r->links)
    parse_link(nlh, r);
  else if (nlh->nlmsg_type == RTM_NEWQDISC && r->qdiscs)
    parse_qdisc(nlh, r);
  else if (nlh->nlmsg_type == RTM_NEWTCLASS && r->classes)
    parse_class(nlh, r);
  return NL_OK;
}

struct MsgDeleter {
  void operator()(nl_msg *m) const { nlmsg_free(m); }
};
using Msg = std::unique_ptr<nl_msg, MsgDeleter>;

// The scheme's nest: its id, and its parameters as their rows say (the
// nest they go in, their attribute).
void put_scheme(nl_msg *m, const lossless_plane_scheme &b)
{
  nlattr *nest = nla_nest_start(m, TCA_LOSSLESS_SCHEME | NLA_F_NESTED);
  nla_put_u8(m, TCA_LOSSLESS_SCHEME_ID, static_cast<std::uint8_t>(b.id));
  if (const auto *r = policy::by_scheme_id(static_cast<std::uint8_t>(b.id));
      r && !r->params.empty()) {
    nlattr *params = nla_nest_start(m, r->params.front()->nl_nest | NLA_F_NESTED);
    for (const auto *p : r->params)
      nla_put_u64(m, p->nl_attr, b.p.raw[p->word]);
    nla_nest_end(m, params);
  }
  nla_nest_end(m, nest);
}

// A pool option given: the attribute and the length its row says.
template <class T>
void put_param(nl_msg *m, ll_param_id id, const std::optional<T> &v)
{
  const ll_param &r = ll_params[id];
  if (!v)
    return;
  if (r.nl_len == 1)
    nla_put_u8(m, r.nl_attr, static_cast<std::uint8_t>(*v));
  else if (r.nl_len == 4)
    nla_put_u32(m, r.nl_attr, static_cast<std::uint32_t>(*v));
  else
    nla_put_u64(m, r.nl_attr, static_cast<std::uint64_t>(*v));
}

void put_options(nl_msg *m, const LosslessSpec &s)
{
  nlattr *opts = nla_nest_start(m, TCA_OPTIONS | NLA_F_NESTED);
  if (s.rate_bps)
    nla_put_u64(m, TCA_LOSSLESS_RATE_BPS, *s.rate_bps);
  if (s.queues)
    nla_put_u8(m, TCA_LOSSLESS_QUEUES, *s.queues);
  if (s.burst_bytes)
    nla_put_u32(m, TCA_LOSSLESS_BURST_BYTES, *s.burst_bytes);
  if (s.catchup_bytes)
    nla_put_u32(m, TCA_LOSSLESS_CATCHUP_BYTES, *s.catchup_bytes);
  if (s.limit_packets)
    nla_put_u32(m, TCA_LOSSLESS_LIMIT_PKTS, *s.limit_packets);
  if (!s.priomap.empty()) {
    // The kernel takes the whole map; priorities not listed: queue 0.
    std::uint8_t map[LOSSLESS_PRIOMAP_LEN] = {};
    std::copy_n(s.priomap.begin(), std::min<std::size_t>(s.priomap.size(), sizeof(map)), map);
    nla_put(m, TCA_LOSSLESS_PRIOMAP, sizeof(map), map);
  }
  if (!s.quanta_bytes.empty())
    nla_put(m, TCA_LOSSLESS_QUANTA,
            static_cast<int>(s.quanta_bytes.size() * sizeof(std::uint32_t)),
            s.quanta_bytes.data());
  if (!s.pool.empty())
    nla_put_string(m, ll_params[LL_P_POOL].nl_attr, s.pool.c_str());
  put_param(m, LL_P_BUFFER, s.pool_bytes);
  put_param(m, LL_P_ALPHA, s.alpha);
  put_param(m, LL_P_EGRESS_ALPHA, s.egress_alpha);
  put_param(m, LL_P_LOSSLESS_PRIOS, s.lossless_mask);
  put_param(m, LL_P_RESERVED, s.reserved_bytes);
  put_param(m, LL_P_XON_OFFSET, s.xon_offset_bytes);
  put_param(m, LL_P_CABLE_DELAY, s.cable_delay_ns);
  put_param(m, LL_P_SW_DELAY, s.sw_delay_ns);
  put_param(m, LL_P_HEADROOM, s.headroom_bytes);
  if (s.strict)
    nla_put_u8(m, TCA_LOSSLESS_STRICT, *s.strict);
  if (!s.gates.empty())
    nla_put(m, TCA_LOSSLESS_GATES, static_cast<int>(s.gates.size() * sizeof(std::uint32_t)),
            s.gates.data());
  if (s.scheme_port)
    nla_put_u8(m, TCA_LOSSLESS_SCHEME_PORT, *s.scheme_port);
  if (s.scheme)
    put_scheme(m, *s.scheme);
  if (s.ecn_kmin_bytes && s.ecn_kmax_bytes && s.ecn_pmax) {
    nla_put_u32(m, TCA_LOSSLESS_ECN_KMIN_BYTES, *s.ecn_kmin_bytes);
    nla_put_u32(m, TCA_LOSSLESS_ECN_KMAX_BYTES, *s.ecn_kmax_bytes);
    nla_put_u32(m, TCA_LOSSLESS_ECN_PMAX, *s.ecn_pmax);
  } else if (s.ecn_mode == LOSSLESS_ECN_MODE_NP_ECN) {
    // NP-ECN needs RED off: thresholds that tc left on would refuse it.
    nla_put_u32(m, TCA_LOSSLESS_ECN_KMIN_BYTES, 0);
    nla_put_u32(m, TCA_LOSSLESS_ECN_KMAX_BYTES, 0);
    nla_put_u32(m, TCA_LOSSLESS_ECN_PMAX, 0);
  }
  put_param(m, LL_P_ECN_MODE, s.ecn_mode);
  put_param(m, LL_P_NP_ECN_K, s.np_ecn_k_bytes);
  if (s.plane_fd)
    nla_put_u32(m, TCA_LOSSLESS_PLANE_FD, static_cast<std::uint32_t>(*s.plane_fd));
  if (s.watchdog) {
    // The kernel parses the nest strictly: NLA_F_NESTED is required.
    nlattr *wd = nla_nest_start(m, TCA_LOSSLESS_WATCHDOG | NLA_F_NESTED);
    nla_put_u8(m, TCA_LOSSLESS_WD_ACTION, s.watchdog->action);
    nla_put_u64(m, TCA_LOSSLESS_WD_DETECT_NS, s.watchdog->detect_ns);
    nla_put_u64(m, TCA_LOSSLESS_WD_RESTORE_NS, s.watchdog->restore_ns);
    nla_put_u64(m, TCA_LOSSLESS_WD_POLL_NS, s.watchdog->poll_ns);
    nla_put_u64(m, TCA_LOSSLESS_WD_XOFF_ALARM_NS, s.watchdog->xoff_alarm_ns);
    nla_nest_end(m, wd);
  }
  nla_nest_end(m, opts);
}

}  // namespace

Rtnl::Rtnl()
{
  sk_ = nl_socket_alloc();
  if (!sk_)
    throw NetlinkError(ENOMEM, "netlink: cannot allocate a socket");
  if (int e = nl_connect(sk_, NETLINK_ROUTE); e < 0) {
    nl_socket_free(sk_);
    throw NetlinkError(EIO, std::string("netlink: cannot connect: ") + nl_geterror(e));
  }
  int one = 1;
  setsockopt(nl_socket_get_fd(sk_), SOL_NETLINK, NETLINK_EXT_ACK, &one, sizeof(one));
}

Rtnl::~Rtnl()
{
  if (sk_)
    nl_socket_free(sk_);
}

namespace {

void exchange(nl_sock *sk, nl_msg *m, Reply &r, const std::string &what)
{
  nl_cb *cb = nl_cb_alloc(NL_CB_CUSTOM);
  nl_cb_set(cb, NL_CB_VALID, NL_CB_CUSTOM, on_valid, &r);
  nl_cb_set(cb, NL_CB_ACK, NL_CB_CUSTOM, on_ack, &r);
  nl_cb_err(cb, NL_CB_CUSTOM, on_error, &r);
  int e = nl_send_auto(sk, m);
  if (e >= 0)
    e = nl_recvmsgs(sk, cb);
  nl_cb_put(cb);
  if (r.err)
    throw NetlinkError(r.err, what + ": " + (r.msg.empty() ? std::strerror(r.err) : r.msg));
  if (e < 0)
    throw NetlinkError(EIO, what + ": " + nl_geterror(e));
}

}  // namespace

std::vector<Link> Rtnl::links()
{
  std::vector<Link> out;
  Reply r;
  r.links = &out;
  ifinfomsg ifi{};
  Msg m(nlmsg_alloc_simple(RTM_GETLINK, NLM_F_REQUEST | NLM_F_DUMP));
  nlmsg_append(m.get(), &ifi, sizeof(ifi), NLMSG_ALIGNTO);
  exchange(sk_, m.get(), r, "netlink: listing links");
  return out;
}

std::optional<RootQdisc> Rtnl::root_qdisc(int ifindex)
{
  std::vector<RootQdisc> all;
  Reply r;
  r.qdiscs = &all;
  tcmsg tcm{};
  tcm.tcm_family = AF_UNSPEC;
  tcm.tcm_ifindex = ifindex;
  Msg m(nlmsg_alloc_simple(RTM_GETQDISC, NLM_F_REQUEST | NLM_F_DUMP));
  nlmsg_append(m.get(), &tcm, sizeof(tcm), NLMSG_ALIGNTO);
  exchange(sk_, m.get(), r, "netlink: listing qdiscs");
  for (const auto &q : all)
    if (q.ifindex == ifindex)
      return q;
  return std::nullopt;
}

void Rtnl::send_qdisc(int type, int flags, int ifindex, const LosslessSpec *spec)
{
  tcmsg tcm{};
  tcm.tcm_family = AF_UNSPEC;
  tcm.tcm_ifindex = ifindex;
  // A new qdisc gets 1:. A change (or a delete) names no handle, so it
  // addresses the root qdisc whatever its handle: one that was adopted
  // may have another, and handle 1: would then ask for a replace.
  tcm.tcm_handle = type == RTM_NEWQDISC && (flags & NLM_F_CREATE) ? kHandle : 0;
  tcm.tcm_parent = TC_H_ROOT;
  Msg m(nlmsg_alloc_simple(type, NLM_F_REQUEST | NLM_F_ACK | flags));
  nlmsg_append(m.get(), &tcm, sizeof(tcm), NLMSG_ALIGNTO);
  if (spec) {
    nla_put_string(m.get(), TCA_KIND, "lossless");
    put_options(m.get(), *spec);
  }
  Reply r;
  exchange(sk_, m.get(), r,
           std::string(type == RTM_DELQDISC ? "deleting" : "setting") +
               " the root qdisc of ifindex " + std::to_string(ifindex));
}

void Rtnl::add_lossless(int ifindex, const LosslessSpec &spec)
{
  send_qdisc(RTM_NEWQDISC, NLM_F_CREATE | NLM_F_REPLACE, ifindex, &spec);
}

void Rtnl::change_lossless(int ifindex, const LosslessSpec &spec)
{
  send_qdisc(RTM_NEWQDISC, 0, ifindex, &spec);
}

void Rtnl::delete_root(int ifindex) { send_qdisc(RTM_DELQDISC, 0, ifindex, nullptr); }

std::vector<ClassStats> Rtnl::classes(int ifindex)
{
  std::vector<ClassStats> out;
  Reply r;
  r.classes = &out;
  r.ifindex = ifindex;
  tcmsg tcm{};
  tcm.tcm_family = AF_UNSPEC;
  tcm.tcm_ifindex = ifindex;
  Msg m(nlmsg_alloc_simple(RTM_GETTCLASS, NLM_F_REQUEST | NLM_F_DUMP));
  nlmsg_append(m.get(), &tcm, sizeof(tcm), NLMSG_ALIGNTO);
  exchange(sk_, m.get(), r, "netlink: listing the classes of ifindex " + std::to_string(ifindex));
  return out;
}

}  // namespace lossless::daemon
