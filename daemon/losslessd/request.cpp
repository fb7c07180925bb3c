// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
#include "request.h"

#include <nlohmann/json.hpp>

namespace lossless::daemon {

using nlohmann::json;

std::optional<Request> parse_request(const std::string &line, std::string &error_reply)
{
  auto malformed = [&](const std::string &why) {
    // A parse error quotes the bytes it stopped at, which need not be
    // UTF-8: replace what is not, or dump() would throw.
    error_reply = json{{"error", "malformed request: " + why}}.dump(
        -1, ' ', false, json::error_handler_t::replace);
    return std::nullopt;
  };
  json req;
  try {
    req = json::parse(line);
  } catch (const std::exception &e) {
    return malformed(e.what());
  }
  if (!req.is_object())
    return malformed(std::string("a request is a JSON object, not ") + req.type_name());
  Request r;
  // "cmd", then the members that command reads (set, clear, move-scheme and scheme).
  auto member = [&](const char *name, std::string &to) {
    auto it = req.find(name);
    if (it == req.end())
      return true;
    if (!it->is_string())
      return false;
    to = it->get<std::string>();
    return true;
  };
  auto not_string = [&](const char *name) {
    return malformed(std::string("\"") + name + "\" must be a string, not " +
                     req[name].type_name());
  };
  if (!member("cmd", r.cmd))
    return not_string("cmd");
  if (r.cmd == "set")
    for (auto [name, to] : {std::pair{"pool", &r.pool}, {"key", &r.key}, {"value", &r.value}})
      if (!member(name, *to))
        return not_string(name);
  if (r.cmd == "clear")
    for (auto [name, to] : {std::pair{"pool", &r.pool}, {"what", &r.what}})
      if (!member(name, *to))
        return not_string(name);
  if (r.cmd == "move-scheme")
    for (auto [name, to] :
         {std::pair{"pool", &r.pool}, {"scheme", &r.scheme}, {"timeout", &r.timeout}})
      if (!member(name, *to))
        return not_string(name);
  if (r.cmd == "scheme") {
    if (!member("pool", r.pool))
      return not_string("pool");
    if (auto it = req.find("args"); it != req.end()) {
      if (!it->is_array())
        return malformed(std::string("\"args\" must be an array of strings, not ") +
                         it->type_name());
      for (const auto &a : *it) {
        if (!a.is_string())
          return malformed(std::string("\"args\" must hold strings, not ") + a.type_name());
        r.args.push_back(a.get<std::string>());
      }
    }
  }
  return r;
}

}  // namespace lossless::daemon
