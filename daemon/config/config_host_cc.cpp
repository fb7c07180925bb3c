// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
//
// ll_config: the [host_cc] section, the hosts' congestion control (PCN or
// DCQCN). Its parameters are lossless-cc's options, spelled the same; their
// values are parsed, derived and checked by ll_cc's parameter code
// (daemon/cc/cc_params.h), the same as lossless-cc set's.
#include <algorithm>

#include "config_parser.h"

namespace lossless::config {

namespace cc = lossless::cc;

namespace {

// The keys of [host_cc] that are not parameters of the programs.
const std::vector<std::string_view> kHostCcOwnKeys = {"algo",    "ports",   "line-rate",
                                                      "gc-idle", "pin-dir", "top-flows"};

}  // namespace

const std::vector<std::string_view> &host_cc_keys()
{
  static const std::vector<std::string> params = [] {
    std::vector<std::string> v;
    for (const cc::ParamSpec &p : cc::params())
      v.push_back(std::string(p.name));
    return v;
  }();
  static const std::vector<std::string_view> keys = [] {
    std::vector<std::string_view> k = kHostCcOwnKeys;
    k.insert(k.end(), params.begin(), params.end());
    return k;
  }();
  return keys;
}

namespace {

const char *algo_title(cc::Algo a)
{
  return a == cc::Algo::Pcn ? "PCN" : "DCQCN";
}

}  // namespace

std::string host_cc_params(const HostCc &h, std::uint64_t line_rate_kbps, cc::Config *out,
                           std::uint32_t *line)
{
  cc::Config c = cc::derive(h.algo, line_rate_kbps, h.overrides);
  std::string msg = cc::check(c);
  if (line)
    *line = 0;
  if (msg.empty()) {
    if (out)
      *out = c;
    return "";
  }
  // The keys the message names, as written ("(the default)" otherwise).
  std::string named;
  for (const std::string &opt : cc::check_names(msg)) {
    std::string key = opt;
    std::string v = " (the default)";
    if (key == "line-rate") {
      v = h.line_rate_kbps ? " " + quote(cc::rate_text(line_rate_kbps))
                           : " \"auto\" (" + cc::rate_text(line_rate_kbps) + ")";
      if (line && !*line && h.line_rate_line)
        *line = h.line_rate_line;
    }
    for (const HostCcKey &g : h.given)
      if (g.key == key) {
        v = " " + quote(g.text);
        if (line && !*line)
          *line = g.line;
      }
    named += (named.empty() ? "" : ", ") + key + v;
  }
  return (named.empty() ? "" : named + ": ") + msg;
}

// ------------------------------------------------------------ [host_cc]

void Parser::host_cc_section(const toml::node &node, std::optional<HostCc> &out)
{
  const std::string ctx = "[host_cc]";
  auto t = node.as_table();
  if (!t) {
    error(line_of(node.source()),
          "host_cc: must be a table [host_cc], not " + type_phrase(node) +
              (node.is_array_of_tables() ? " of tables [[host_cc]]" : ""));
    return;
  }
  std::size_t before = errors.size();
  check_keys(*t, host_cc_keys(), ctx);
  HostCc h;
  h.line = line_of(node.source());

  // algo: required, pcn or dcqcn.
  bool algo_ok = false;
  if (const toml::node *n = t->get("algo")) {
    auto v = n->as_string();
    std::optional<cc::Algo> a = v ? cc::parse_algo(v->get()) : std::nullopt;
    if (!v)
      bad_type(ctx, "algo", *n, "a string: \"pcn\" or \"dcqcn\"");
    else if (!a || *a == cc::Algo::Off)
      bad(ctx, "algo", *n, "must be \"pcn\" or \"dcqcn\"" +
                               suggest(v->get(), {"pcn", "dcqcn"}));
    else {
      h.algo = *a;
      algo_ok = true;
    }
  } else {
    missing(ctx, h.line, "algo", " (\"pcn\" or \"dcqcn\")");
  }

  // ports: a non-empty array of device names, each once.
  if (const toml::node *n = t->get("ports")) {
    auto arr = n->as_array();
    if (!arr || arr->empty()) {
      bad(ctx, "ports", *n,
          arr ? "must name at least one device ([\"eth0\"])"
              : "must be an array of device names ([\"eth0\"]), not " + type_phrase(*n));
    } else {
      for (const toml::node &e : *arr) {
        auto s = e.as_string();
        if (!s) {
          bad_type(ctx, "ports", e, "an array of device names (strings)");
          continue;
        }
        const std::string &dev = s->get();
        if (dev.empty() || dev.size() > kIfNameMax || dev == "." || dev == ".." ||
            dev.find_first_of("/: \t\n") != std::string::npos) {
          bad(ctx, "ports", e,
              "not a device name (1 .. " + std::to_string(kIfNameMax) +
                  " characters, no '/', ':' or white space)");
          continue;
        }
        if (std::find(h.ports.begin(), h.ports.end(), dev) != h.ports.end()) {
          bad(ctx, "ports", e, "is listed twice");
          continue;
        }
        h.ports.push_back(dev);
      }
    }
  } else {
    missing(ctx, h.line, "ports", " (the host ports to attach to: [\"eth0\"])");
  }

  // line_rate: "auto" or a rate.
  bool rate_ok = true;
  if (const toml::node *n = t->get("line-rate")) {
    h.line_rate_line = line_of(n->source());
    auto v = n->as_string();
    if (!v) {
      bad_type(ctx, "line-rate", *n, "a string: \"auto\" or a rate (\"25gbit\")");
      rate_ok = false;
    } else if (v->get() != "auto") {
      std::uint64_t kbps = 0;
      std::string why = cc::parse_rate_kbps(v->get(), kbps);
      if (!why.empty()) {
        bad(ctx, "line-rate", *n, why + ", or \"auto\"");
        rate_ok = false;
      } else {
        h.line_rate_kbps = kbps;
      }
    }
  }

  // The daemon's own keys.
  if (const toml::node *n = t->get("gc-idle")) {
    auto text = unit_text(*n);
    std::uint64_t ns = 0;
    std::string why = text ? cc::parse_time_ns(*text, true, ns) : "";
    if (!text)
      bad_type(ctx, "gc-idle", *n, "a time (a string such as \"10s\"), or 0");
    else if (!why.empty())
      bad(ctx, "gc-idle", *n, why);
    else
      h.gc_idle_ns = ns;
  }
  if (const toml::node *n = t->get("pin-dir")) {
    if (auto v = string(ctx, "pin-dir", *n)) {
      if (v->empty() || (*v)[0] != '/')
        bad(ctx, "pin-dir", *n, "must be an absolute path");
      else
        h.pin_dir = *v;
      while (h.pin_dir.size() > 1 && h.pin_dir.back() == '/')
        h.pin_dir.pop_back();
    }
  }
  if (const toml::node *n = t->get("top-flows"))
    if (auto v = integer(ctx, "top-flows", *n, 1, kHostCcTopFlowsMax))
      h.top_flows = static_cast<std::uint32_t>(*v);

  // The programs' parameters: lossless-cc's options, by ll_cc's parser.
  for (const cc::ParamSpec &p : cc::params()) {
    std::string key = std::string(p.name);
    const toml::node *n = t->get(key);
    if (!n)
      continue;
    if (algo_ok && !(p.scope & cc::kParamAny) &&
        !(p.scope & (h.algo == cc::Algo::Pcn ? cc::kParamPcn : cc::kParamDcqcn))) {
      cc::Algo other = h.algo == cc::Algo::Pcn ? cc::Algo::Dcqcn : cc::Algo::Pcn;
      bad(ctx, key, *n,
          std::string("is a key of ") + algo_title(other) + ", not of algo = \"" +
              std::string(cc::algo_name(h.algo)) + "\"");
      continue;
    }
    std::optional<std::string> text = unit_text(*n);
    if (!text && n->as_floating_point())
      text = render(*n);  // w_min = 0.0078125
    if (!text) {
      bad_type(ctx, key, *n, "a string or a number, as lossless-cc's --" + key);
      continue;
    }
    std::string why = cc::parse_param(p.name, *text, h.overrides);
    if (!why.empty()) {
      bad(ctx, key, *n, why);
      continue;
    }
    h.given.push_back({key, *text, line_of(n->source())});
  }

  // Every value together, by ll_cc's check, when the line rate is known
  // (for "auto", the daemon runs it with the link speed at start).
  if (errors.size() == before && rate_ok && h.line_rate_kbps) {
    cc::Config c;
    std::uint32_t line = 0;
    std::string msg = host_cc_params(h, *h.line_rate_kbps, &c, &line);
    if (!msg.empty())
      error(line ? line : h.line, ctx + ": " + msg);
    else
      h.params = c;
  }
  if (errors.size() == before)
    out = std::move(h);
}

}  // namespace lossless::config
