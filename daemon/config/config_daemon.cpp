// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
//
// ll_config: the [daemon] section (its paths, period and Prometheus
// endpoint).
#include <arpa/inet.h>

#include <algorithm>
#include <cstring>

#include "config_parser.h"

namespace lossless::config {

// ------------------------------------------------------------ [daemon]

std::optional<Endpoint> Parser::endpoint(const std::string &ctx, const toml::node &n)
{
  const char *form =
      "must be a loopback or explicit local address with a port: ADDRESS:PORT or "
      "[IPV6-ADDRESS]:PORT (127.0.0.1:9464, [::1]:9464)";
  const char *unicast =
      "a multicast or broadcast address: give a loopback or explicit local address "
      "(127.0.0.1:9464)";
  auto text = n.as_string();
  if (!text) {
    bad_type(ctx, "prometheus", n, "a string ADDRESS:PORT (\"127.0.0.1:9464\")");
    return std::nullopt;
  }
  const std::string &s = text->get();
  std::string addr, port;
  if (!s.empty() && s[0] == '[') {
    auto close = s.find(']');
    if (close == std::string::npos || close + 1 >= s.size() || s[close + 1] != ':') {
      bad(ctx, "prometheus", n, form);
      return std::nullopt;
    }
    addr = s.substr(1, close - 1);
    port = s.substr(close + 2);
  } else {
    auto colon = s.rfind(':');
    if (colon == std::string::npos || s.find(':') != colon) {
      bad(ctx, "prometheus", n, form);
      return std::nullopt;
    }
    addr = s.substr(0, colon);
    port = s.substr(colon + 1);
  }
  Endpoint e;
  unsigned long pv = 0;
  bool port_ok = !port.empty() && port.size() <= 5 &&
                 std::all_of(port.begin(), port.end(), [](char c) { return c >= '0' && c <= '9'; });
  if (port_ok) {
    pv = std::stoul(port);
    port_ok = pv >= 1 && pv <= 65535;
  }
  in_addr a4;
  in6_addr a6;
  bool bracketed = !s.empty() && s[0] == '[';
  if (!bracketed && inet_pton(AF_INET, addr.c_str(), &a4) == 1) {
    std::uint32_t h = ntohl(a4.s_addr);
    if (h == 0) {
      bad(ctx, "prometheus", n,
          "0.0.0.0 listens on every address: give a loopback or explicit local address "
          "(127.0.0.1:9464)");
      return std::nullopt;
    }
    if ((h >> 28) == 0xe || h == 0xffffffffu) {
      bad(ctx, "prometheus", n, unicast);
      return std::nullopt;
    }
    e.loopback = (h >> 24) == 127;
  } else if (bracketed && inet_pton(AF_INET6, addr.c_str(), &a6) == 1) {
    if (IN6_IS_ADDR_UNSPECIFIED(&a6)) {
      bad(ctx, "prometheus", n,
          "[::] listens on every address: give a loopback or explicit local address "
          "([::1]:9464)");
      return std::nullopt;
    }
    if (IN6_IS_ADDR_MULTICAST(&a6)) {
      bad(ctx, "prometheus", n, unicast);
      return std::nullopt;
    }
    e.ipv6 = true;
    e.loopback = IN6_IS_ADDR_LOOPBACK(&a6);
  } else {
    bad(ctx, "prometheus", n,
        "the address must be a numeric IPv4 address or an IPv6 address in brackets, not a "
        "host name (127.0.0.1:9464, [::1]:9464)");
    return std::nullopt;
  }
  if (!port_ok) {
    bad(ctx, "prometheus", n, "the port must be an integer 1 .. 65535 (127.0.0.1:9464)");
    return std::nullopt;
  }
  e.address = addr;
  e.port = static_cast<std::uint16_t>(pv);
  return e;
}

void Parser::daemon_section(const toml::node &node, Daemon &d)
{
  const std::string ctx = "[daemon]";
  auto t = node.as_table();
  if (!t) {
    error(line_of(node.source()),
          "daemon: must be a table [daemon], not " + type_phrase(node) +
              (node.is_array_of_tables() ? " of tables [[daemon]]" : ""));
    return;
  }
  check_keys(*t, kDaemonKeys, ctx);
  for (const char *key : {"pin-dir", "socket"}) {
    const toml::node *n = t->get(key);
    if (!n)
      continue;
    auto v = string(ctx, key, *n);
    if (!v)
      continue;
    bool is_socket = std::strcmp(key, "socket") == 0;
    if (v->empty() || (*v)[0] != '/') {
      bad(ctx, key, *n, "must be an absolute path");
      continue;
    }
    if (is_socket && v->size() > kSunPathMax) {
      bad(ctx, key, *n,
          "must be an absolute path of at most " + std::to_string(kSunPathMax) +
              " bytes (a UNIX socket's sun_path)");
      continue;
    }
    (is_socket ? d.socket : d.pin_dir) = *v;
  }
  if (const toml::node *n = t->get("period"))
    if (auto v = time(ctx, "period", *n, kPeriodMinNs, kPeriodMaxNs))
      d.period_ns = *v;
  if (const toml::node *n = t->get("prometheus"))
    d.prometheus = endpoint(ctx, *n);
}

}  // namespace lossless::config
