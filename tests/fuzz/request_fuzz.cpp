// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
//
// libFuzzer harness of the control socket's request parser
// (daemon/losslessd/request.cpp, lossless::daemon::parse_request): the
// input is one line as losslessctl (or anyone root) sends it.
//
// Checks:
//   - the parser never throws (an escaping exception used to stop the
//     daemon: it left Daemon::handle_request() through the event loop);
//   - a refused line gets a reply that is valid JSON: an object whose only
//     member "error" is a string starting "malformed request: ";
//   - an accepted line is a JSON object, and its fields are the object's
//     string members; a request rebuilt from them (as losslessctl builds
//     one) parses to the same request, and every field can be put in a
//     JSON reply (what handle_request does with them).
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "request.h"

namespace {

using nlohmann::json;
using lossless::daemon::parse_request;
using lossless::daemon::Request;

#define CHECK(cond, ...)                                                  \
  do {                                                                    \
    if (!(cond)) {                                                        \
      std::fprintf(stderr, "fuzz_request: check failed: %s\n  ", #cond); \
      std::fprintf(stderr, __VA_ARGS__);                                  \
      std::fputc('\n', stderr);                                           \
      std::abort();                                                       \
    }                                                                     \
  } while (0)

bool same(const Request &a, const Request &b)
{
  return a.cmd == b.cmd && a.pool == b.pool && a.key == b.key && a.value == b.value &&
         a.args == b.args;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t *data, std::size_t size)
{
  std::string line(reinterpret_cast<const char *>(data), size);
  std::string reply;
  std::optional<Request> r = parse_request(line, reply);

  if (!r) {
    json j = json::parse(reply, nullptr, false);
    CHECK(!j.is_discarded(), "the error reply is not JSON: %s", reply.c_str());
    CHECK(j.is_object() && j.size() == 1 && j.contains("error") && j["error"].is_string(),
          "the error reply is not {\"error\": text}: %s", reply.c_str());
    CHECK(j["error"].get<std::string>().rfind("malformed request: ", 0) == 0,
          "the error reply: %s", reply.c_str());
    return 0;
  }

  json j = json::parse(line, nullptr, false);
  CHECK(!j.is_discarded() && j.is_object(), "accepted a line that is no JSON object");
  auto member = [&](const char *name) {
    auto it = j.find(name);
    return it == j.end() ? std::string() : it->get<std::string>();
  };
  CHECK(r->cmd == member("cmd"), "cmd \"%s\"", r->cmd.c_str());
  auto args = [&] {
    std::vector<std::string> out;
    if (auto it = j.find("args"); it != j.end())
      for (const auto &a : *it)
        out.push_back(a.get<std::string>());
    return out;
  };
  if (r->cmd == "set")
    CHECK(r->pool == member("pool") && r->key == member("key") && r->value == member("value") &&
              r->args.empty(),
          "set's members differ");
  else if (r->cmd == "scheme")
    CHECK(r->pool == member("pool") && r->args == args() && r->key.empty() && r->value.empty(),
          "scheme's members differ");
  else
    CHECK(r->pool.empty() && r->key.empty() && r->value.empty() && r->args.empty(),
          "members read for cmd \"%s\"", r->cmd.c_str());

  // Rebuilt as losslessctl builds requests, one line.
  json req = {{"cmd", r->cmd}};
  if (r->cmd == "set") {
    req["pool"] = r->pool;
    req["key"] = r->key;
    req["value"] = r->value;
  }
  if (r->cmd == "scheme") {
    req["pool"] = r->pool;
    req["args"] = r->args;
  }
  std::string again_reply;
  std::optional<Request> again = parse_request(req.dump() + "\n", again_reply);
  CHECK(again && same(*r, *again), "a rebuilt request parses differently: %s",
        again_reply.c_str());
  // Fields go into replies ("unknown command \"...\"", "no pool \"...\"").
  std::string out = json{{"error", "unknown command \"" + r->cmd + "\" in pool \"" + r->pool +
                                       "\" for " + r->key + " " + r->value}}
                        .dump();
  CHECK(!out.empty(), "an empty reply");
  return 0;
}
