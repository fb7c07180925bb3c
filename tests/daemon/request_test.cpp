// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
//
// The control socket's request parser (daemon/losslessd/request.cpp): the
// requests of docs/DAEMON.md, and malformed lines, which get an error reply
// instead of an exception (each of these used to escape
// Daemon::handle_request() and stop losslessd). tests/fuzz/request_fuzz.cpp
// fuzzes the same function.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include <string>

#include "request.h"

namespace {

using lossless::daemon::parse_request;
using lossless::daemon::Request;
using nlohmann::json;

// The "error" text of a refused line (the reply must be valid JSON).
std::string refusal(const std::string &line)
{
  std::string reply;
  auto r = parse_request(line, reply);
  EXPECT_FALSE(r.has_value()) << line;
  json j = json::parse(reply);  // throws if not JSON
  EXPECT_EQ(j.size(), 1u);
  return j.at("error").get<std::string>();
}

TEST(Request, Commands)
{
  std::string reply;
  for (const char *cmd : {"status", "config", "reload", "anything"}) {
    auto r = parse_request(std::string("{\"cmd\":\"") + cmd + "\"}\n", reply);
    ASSERT_TRUE(r.has_value()) << cmd;
    EXPECT_EQ(r->cmd, cmd);
    EXPECT_EQ(r->pool, "");
  }
  auto r = parse_request(R"({"cmd":"set","pool":"sw0","key":"alpha","value":"1/4","x":[1]})",
                         reply);
  ASSERT_TRUE(r.has_value());
  EXPECT_EQ(r->cmd, "set");
  EXPECT_EQ(r->pool, "sw0");
  EXPECT_EQ(r->key, "alpha");
  EXPECT_EQ(r->value, "1/4");
}

// losslessctl clear peaks: "what", and "pool" (absent: every pool).
TEST(Request, Clear)
{
  std::string reply;
  auto r = parse_request(R"({"cmd":"clear","what":"peaks","pool":"sw0"})", reply);
  ASSERT_TRUE(r.has_value());
  EXPECT_EQ(r->cmd, "clear");
  EXPECT_EQ(r->what, "peaks");
  EXPECT_EQ(r->pool, "sw0");
  r = parse_request(R"({"cmd":"clear","what":"peaks"})", reply);
  ASSERT_TRUE(r.has_value());
  EXPECT_EQ(r->pool, "");
  EXPECT_EQ(refusal(R"({"cmd":"clear","what":["peaks"]})"),
            "malformed request: \"what\" must be a string, not array");
  EXPECT_EQ(refusal(R"({"cmd":"clear","what":"peaks","pool":1})"),
            "malformed request: \"pool\" must be a string, not number");
}

// losslessctl move-scheme: "pool", "scheme" and "timeout" (absent: the
// daemon's default).
TEST(Request, MoveScheme)
{
  std::string reply;
  auto r = parse_request(R"({"cmd":"move-scheme","pool":"sw0","scheme":"spfc","timeout":"2s"})",
                         reply);
  ASSERT_TRUE(r.has_value());
  EXPECT_EQ(r->cmd, "move-scheme");
  EXPECT_EQ(r->pool, "sw0");
  EXPECT_EQ(r->scheme, "spfc");
  EXPECT_EQ(r->timeout, "2s");
  r = parse_request(R"({"cmd":"move-scheme","pool":"sw0","scheme":"dt"})", reply);
  ASSERT_TRUE(r.has_value());
  EXPECT_EQ(r->timeout, "");
  EXPECT_EQ(refusal(R"({"cmd":"move-scheme","pool":"sw0","scheme":"dt","timeout":5})"),
            "malformed request: \"timeout\" must be a string, not number");
}

TEST(Request, AbsentMembersAreEmpty)
{
  std::string reply;
  auto r = parse_request("{}", reply);
  ASSERT_TRUE(r.has_value());
  EXPECT_EQ(r->cmd, "");
  r = parse_request(R"({"cmd":"set"})", reply);
  ASSERT_TRUE(r.has_value());
  EXPECT_EQ(r->pool, "");
  EXPECT_EQ(r->key, "");
  EXPECT_EQ(r->value, "");
}

TEST(Request, MembersACommandDoesNotReadAreIgnored)
{
  std::string reply;
  auto r = parse_request(R"({"cmd":"status","pool":5,"value":null})", reply);
  ASSERT_TRUE(r.has_value());
  EXPECT_EQ(r->cmd, "status");
}

TEST(Request, NotJson)
{
  EXPECT_EQ(refusal("{\"cmd\":\"sta").rfind("malformed request: ", 0), 0u);
  EXPECT_EQ(refusal("").rfind("malformed request: ", 0), 0u);
}

TEST(Request, NotAnObject)
{
  EXPECT_EQ(refusal("[]"), "malformed request: a request is a JSON object, not array");
  EXPECT_EQ(refusal("5"), "malformed request: a request is a JSON object, not number");
  EXPECT_EQ(refusal("\"status\""), "malformed request: a request is a JSON object, not string");
}

TEST(Request, MemberNotAString)
{
  EXPECT_EQ(refusal(R"({"cmd":1})"), "malformed request: \"cmd\" must be a string, not number");
  EXPECT_EQ(refusal(R"({"cmd":"set","pool":null})"),
            "malformed request: \"pool\" must be a string, not null");
  EXPECT_EQ(refusal(R"({"cmd":"set","pool":"a","key":["k"]})"),
            "malformed request: \"key\" must be a string, not array");
  EXPECT_EQ(refusal(R"({"cmd":"set","pool":"a","key":"k","value":1.5})"),
            "malformed request: \"value\" must be a string, not number");
}

// losslessctl scheme COMMAND ARG... (agent.h): "args" is an array of
// strings, checked by the scheme's agent (SPFC's: spfc_slow_test.cpp).
TEST(Request, SchemeCommand)
{
  std::string reply;
  auto r = parse_request(
      R"({"cmd":"scheme","pool":"sw0","args":["force","swp1","3","victim"],"key":5})", reply);
  ASSERT_TRUE(r.has_value());
  EXPECT_EQ(r->cmd, "scheme");
  EXPECT_EQ(r->pool, "sw0");
  EXPECT_EQ(r->args, (std::vector<std::string>{"force", "swp1", "3", "victim"}));
  EXPECT_EQ(r->key, "");  // not scheme's: ignored
  r = parse_request(R"({"cmd":"scheme"})", reply);
  ASSERT_TRUE(r.has_value());
  EXPECT_TRUE(r->args.empty());
  EXPECT_EQ(refusal(R"({"cmd":"scheme","pool":3,"args":[]})"),
            "malformed request: \"pool\" must be a string, not number");
  EXPECT_EQ(refusal(R"({"cmd":"scheme","pool":"sw0","args":"force"})"),
            "malformed request: \"args\" must be an array of strings, not string");
  EXPECT_EQ(refusal(R"({"cmd":"scheme","pool":"sw0","args":["force",3]})"),
            "malformed request: \"args\" must hold strings, not number");
  // set does not read scheme's members.
  r = parse_request(R"({"cmd":"set","args":3})", reply);
  ASSERT_TRUE(r.has_value());
}

TEST(Request, InvalidUtf8GetsAValidReply)
{
  // The parse error quotes the bytes; the reply replaces what is not UTF-8.
  std::string e = refusal("\"\xff\xfe");
  EXPECT_EQ(e.rfind("malformed request: ", 0), 0u);
  refusal("{\"cmd\":\"\xc3\"}");
  refusal("\xc0\x80");
}

}  // namespace
