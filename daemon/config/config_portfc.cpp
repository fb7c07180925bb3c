// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
//
// ll_config: the [portfc] section, this node's part in PortFC
// (docs/PORTFC.md "The daemon's portfc policy"). Its BCube and position
// are checked against the core's plan (kernel/core/portfc.h), its ports
// against the [[port]] tables and their pools (spec 10.4 B-11): every
// refusal names the key. The switch's sizing needs the links: the daemon
// runs it (portfc_policy.h).
#include <arpa/inet.h>

#include <algorithm>

#include "config_parser.h"
#include "portfc_policy.h"

namespace lossless::config {

namespace {

const std::vector<std::string_view> kPortfcKeys = {"n",      "k",           "role",   "server",
                                                   "switch", "level",       "ports",  "base",
                                                   "stuck",  "relay-queue", "pin-dir"};

constexpr std::uint64_t kStuckMaxNs = 3600ULL * 1000000000ULL;  // 1 h

std::string bcube_text(std::uint32_t n, std::uint32_t k)
{
  return "BCube(" + std::to_string(n) + "," + std::to_string(k) + ")";
}

}  // namespace

const std::vector<std::string_view> &portfc_keys()
{
  return kPortfcKeys;
}

std::string_view portfc_role_name(PortfcRole r)
{
  return r == PortfcRole::Server ? "server" : "switch";
}

void portfc_section(Parser &ps, const toml::node &node, Config &cfg,
                    const std::vector<const toml::table *> &port_tables)
{
  const std::string ctx = "[portfc]";
  auto t = node.as_table();
  if (!t) {
    ps.error(Parser::line_of(node.source()),
             "portfc: must be a table [portfc], not " + type_phrase(node));
    return;
  }
  std::size_t before = ps.errors.size();
  ps.check_keys(*t, kPortfcKeys, ctx);
  Portfc p;
  p.line = Parser::line_of(node.source());

  // n, k: the BCube. k = 1 only: the classifier and the spec's deadlock
  // argument (5.5) are for k = 1.
  bool bcube_ok = true;
  if (const toml::node *x = t->get("n")) {
    auto v = ps.integer(ctx, "n", *x, LL_PORTFC_MIN_N, LL_PORTFC_MAX_N);
    if (v)
      p.n = static_cast<std::uint32_t>(*v);
    else
      bcube_ok = false;
  } else {
    ps.missing(ctx, p.line, "n", " (the BCube radix, 2 .. 8)");
    bcube_ok = false;
  }
  if (const toml::node *x = t->get("k")) {
    auto v = ps.integer(ctx, "k", *x, 0, LL_PORTFC_MAX_K);
    if (!v) {
      bcube_ok = false;
    } else if (*v != 1) {
      ps.bad(ctx, "k", *x,
             "PortFC's flow control is built for k = 1 only (with k >= 2 a relay may forward "
             "into another A queue and the deadlock argument no longer holds; docs/PORTFC.md, "
             "Limits)");
      bcube_ok = false;
    }
  }
  ll_bcube b{p.n, p.k};
  if (bcube_ok) {
    if (const char *why = ll_bcube_check(&b)) {
      ps.error(p.line, ctx + ": " + bcube_text(p.n, p.k) + ": " + why);
      bcube_ok = false;
    }
  }

  // role, and the position of that role.
  bool role_ok = false;
  if (const toml::node *x = t->get("role")) {
    if (auto v = ps.string(ctx, "role", *x)) {
      if (*v == "server" || *v == "switch") {
        p.role = *v == "server" ? PortfcRole::Server : PortfcRole::Switch;
        role_ok = true;
      } else {
        ps.bad(ctx, "role", *x,
               "must be \"server\" or \"switch\"" + suggest(*v, {"server", "switch"}));
      }
    }
  } else {
    ps.missing(ctx, p.line, "role", " (\"server\" or \"switch\")");
  }
  bool server = p.role == PortfcRole::Server;
  if (role_ok) {
    // The other role's keys are mistakes, not ignored.
    for (const char *key : server ? std::vector<const char *>{"switch", "level", "relay-queue"}
                                  : std::vector<const char *>{"server"})
      if (const toml::node *x = t->get(key))
        ps.bad(ctx, key, *x,
               std::string("is a key of role = \"") + (server ? "switch" : "server") +
                   "\", not of role = \"" + std::string(portfc_role_name(p.role)) + "\"");
    const char *id_key = server ? "server" : "switch";
    if (const toml::node *x = t->get(id_key)) {
      std::uint32_t count =
          bcube_ok ? (server ? ll_bcube_servers(&b) : ll_bcube_switches(&b) / (b.k + 1)) : 0;
      auto v = ps.integer(ctx, id_key, *x, 0, kU32Max);
      if (v && bcube_ok && *v >= count) {
        // Its digits: one would be n or more.
        ps.bad(ctx, id_key, *x,
               std::string(server ? "a server id" : "a switch index (its fixed digit)") + " of " +
                   bcube_text(p.n, p.k) + " is 0 .. " + std::to_string(count - 1) + " (" +
                   std::to_string(server ? b.k + 1 : b.k) + " base-" + std::to_string(p.n) +
                   " digits, each below n = " + std::to_string(p.n) + ")");
      } else if (v) {
        p.node = static_cast<std::uint32_t>(*v);
      }
    } else {
      ps.missing(ctx, p.line, id_key,
                 server ? " (this server's id, 0 .. n^(k+1) - 1)"
                        : " (this switch's index W, 0 .. n^k - 1: its fixed digit)");
    }
    if (!server) {
      if (const toml::node *x = t->get("level")) {
        if (auto v = ps.integer(ctx, "level", *x, 0, bcube_ok ? b.k : LL_PORTFC_MAX_K))
          p.level = static_cast<std::uint32_t>(*v);
      } else {
        ps.missing(ctx, p.line, "level", " (this switch's level, 0 .. k)");
      }
    }
  }

  // ports: k + 1 (a server, level order) or n (a switch, BCube port
  // order), each once, and within the qdisc's queue limit.
  const toml::node *ports_node = t->get("ports");
  if (ports_node) {
    auto arr = ports_node->as_array();
    if (!arr || arr->empty()) {
      ps.bad(ctx, "ports", *ports_node,
             arr ? "must name this node's BCube ports"
                 : "must be an array of device names, not " + type_phrase(*ports_node));
    } else {
      for (const toml::node &e : *arr) {
        auto s = e.as_string();
        if (!s) {
          ps.bad_type(ctx, "ports", e, "an array of device names (strings)");
          continue;
        }
        if (std::find(p.ports.begin(), p.ports.end(), s->get()) != p.ports.end()) {
          ps.bad(ctx, "ports", e, "is listed twice");
          continue;
        }
        p.ports.push_back(s->get());
      }
      if (bcube_ok && role_ok && p.ports.size() == arr->size()) {
        std::size_t want = server ? b.k + 1 : b.n;
        if (p.ports.size() != want)
          ps.bad(ctx, "ports", *ports_node,
                 "a " + std::string(portfc_role_name(p.role)) + " of " + bcube_text(p.n, p.k) +
                     " has " + (server ? "k + 1 = " : "n = ") + std::to_string(want) +
                     " ports, not " + std::to_string(p.ports.size()) +
                     (server ? " (one per level, level 0 first)"
                             : " (its BCube ports 0 .. n-1, in order)"));
        std::uint32_t queues = server ? ll_portfc_server_queues(&b) : ll_portfc_switch_queues(&b);
        if (queues > lossless::portfc::kQdiscQueuesMax)
          ps.bad(ctx, "ports", *ports_node,
                 "a " + std::string(portfc_role_name(p.role)) + " port of " + bcube_text(p.n, p.k) +
                     " needs " + std::to_string(queues) + " queues, more than the qdisc's " +
                     std::to_string(lossless::portfc::kQdiscQueuesMax));
      }
    }
  } else {
    ps.missing(ctx, p.line, "ports", " (this node's BCube ports)");
  }

  if (const toml::node *x = t->get("base")) {
    if (auto v = ps.string(ctx, "base", *x)) {
      in_addr a{};
      if (inet_pton(AF_INET, v->c_str(), &a) != 1)
        ps.bad(ctx, "base", *x, "must be an IPv4 address (server 0's; server i has base + i)");
      else
        p.base = ntohl(a.s_addr);
      if (bcube_ok && inet_pton(AF_INET, v->c_str(), &a) == 1 &&
          std::uint64_t(p.base) + ll_bcube_servers(&b) - 1 > 0xFFFFFFFFULL)
        ps.bad(ctx, "base", *x, "the servers' addresses run past 255.255.255.255");
    }
  }
  if (const toml::node *x = t->get("stuck")) {
    auto s = x->as_string();
    if (s && s->get() == "off")
      p.stuck_ns = 0;
    else if (auto v = ps.time(ctx, "stuck", *x, 0, kStuckMaxNs))
      p.stuck_ns = *v;
  }
  if (const toml::node *x = t->get("relay-queue"))
    if (auto v = ps.size(ctx, "relay-queue", *x, 0, kBufferMaxBytes))
      p.relay_queue_bytes = *v;
  if (const toml::node *x = t->get("pin-dir")) {
    if (auto v = ps.string(ctx, "pin-dir", *x)) {
      if (v->empty() || (*v)[0] != '/')
        ps.bad(ctx, "pin-dir", *x, "must be an absolute path");
      else
        p.pin_dir = *v;
      while (p.pin_dir.size() > 1 && p.pin_dir.back() == '/')
        p.pin_dir.pop_back();
    }
  }
  if (ps.errors.size() != before)
    return;

  // Every port is a [[port]]: the daemon gives its lossless qdisc
  // PortFC's queues and gates. A switch's share one pool of scheme
  // "portfc" with this n; a server's are in pools of another scheme
  // (servers never detect).
  auto port_line = [&](const std::string &dev) -> std::uint32_t {
    for (std::size_t i = 0; i < cfg.ports.size() && i < port_tables.size(); i++)
      if (cfg.ports[i].dev == dev)
        return cfg.ports[i].line;
    return 0;
  };
  const toml::array &arr = *ports_node->as_array();
  std::string switch_pool;
  std::uint32_t queues = server ? ll_portfc_server_queues(&b) : ll_portfc_switch_queues(&b);
  for (std::size_t i = 0; i < p.ports.size(); i++) {
    const std::string &dev = p.ports[i];
    auto it = std::find_if(cfg.ports.begin(), cfg.ports.end(),
                           [&](const Port &x) { return x.dev == dev; });
    if (it == cfg.ports.end()) {
      ps.bad(ctx, "ports", arr[i],
             "no [[port]] has dev = " + quote(dev) +
                 " (losslessd gives PortFC's queues to the lossless qdisc of a [[port]])");
      continue;
    }
    std::size_t at = static_cast<std::size_t>(it - cfg.ports.begin());
    if (at < port_tables.size())
      if (const toml::node *q = port_tables[at]->get("queues"); q && it->queues != queues)
        ps.bad("port " + quote(dev), "queues", *q,
               "a PortFC " + std::string(portfc_role_name(p.role)) + " port of " +
                   bcube_text(p.n, p.k) + " has " + std::to_string(queues) +
                   " queues, which [portfc] gives it (leave queues out)");
    const Pool *pool = cfg.find_pool(it->pool);
    if (!pool)
      continue;  // its own error
    bool is_portfc = pool->scheme == "portfc";
    if (server && is_portfc) {
      ps.error(port_line(dev), "port " + quote(dev) + ": pool " + quote(pool->name) +
                                   " runs scheme \"portfc\", a switch's: a PortFC server's ports "
                                   "never detect congestion (give their pool another scheme)");
    } else if (!server && !is_portfc) {
      ps.error(port_line(dev),
               "port " + quote(dev) + ": pool " + quote(pool->name) + " runs scheme " +
                   quote(pool->scheme) +
                   ": a PortFC switch's ports share a pool with scheme = \"portfc\"");
    } else if (!server) {
      if (!switch_pool.empty() && switch_pool != pool->name)
        ps.error(port_line(dev),
                 "port " + quote(dev) + ": pool " + quote(pool->name) +
                     ": a PortFC switch's ports share one pool (the others are in " +
                     quote(switch_pool) + ")");
      if (!switch_pool.empty())
        continue;  // the pool's own checks once
      switch_pool = pool->name;
      std::uint64_t pn = pool->scheme_block.p.portfc.n;
      if (pn && pn != p.n)
        ps.error(pool->line, "pool " + quote(pool->name) + ": portfc: n " + std::to_string(pn) +
                                 " disagrees with [portfc] n = " + std::to_string(p.n) +
                                 " (leave it out: [portfc] gives it)");
      const auto &pf = pool->scheme_block.p.portfc;
      for (int cls = 0; cls < 2; cls++) {
        std::uint64_t xoff = cls ? pf.xoff_b_bytes : pf.xoff_a_bytes;
        std::uint64_t xon = cls ? pf.xon_b_bytes : pf.xon_a_bytes;
        if (xoff && xon && xon >= xoff)
          ps.error(pool->line,
                   "pool " + quote(pool->name) + ": portfc: " + (cls ? "xon-b " : "xon-a ") +
                       std::to_string(xon) + " must be below " + (cls ? "xoff-b " : "xoff-a ") +
                       std::to_string(xoff) + " (0 < X_on < X_off)");
      }
    }
  }
  p.pool = switch_pool;
  if (ps.errors.size() != before)
    return;
  // The switch's pool takes n from [portfc] when its table leaves it out.
  for (Pool &pool : cfg.pools)
    if (pool.name == switch_pool && !pool.scheme_block.p.portfc.n)
      pool.scheme_block.p.portfc.n = p.n;
  cfg.portfc = std::move(p);
}

}  // namespace lossless::config
