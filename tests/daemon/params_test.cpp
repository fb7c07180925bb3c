// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
//
// The pool's parameter table (daemon/common/ll_params.c): every row is
// complete and consistent, and every reader takes what its row says: the
// TOML parser its key, the policies and `losslessctl set` theirs, the
// metrics its family. The tc plugin's side is tests/tc (TcPluginTable).
#include <gtest/gtest.h>

#include <algorithm>
#include <cstddef>
#include <fstream>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "config.h"
#include <functional>

#include "ll_params.h"
#include "ll_units.h"
#include "pfc_policy.h"
#include "plane.h"
#include "registry.h"

extern "C" {
#include "headroom.h"
#include "mmu.h"
#include "scheme.h"
}

namespace {

using lossless::config::ConfigError;
using lossless::config::parse_string;

std::string text(const ll_param &r, std::uint64_t v)
{
  char buf[256];
  ll_param_text(&r, v, buf, sizeof(buf));
  return buf;
}

// A value as a user writes it: a time needs a unit, so 0 (shown "0") is
// written 0ns.
std::string written(const ll_param &r, std::uint64_t v)
{
  std::string t = text(r, v);
  return r.unit == LL_PARAM_TIME && t == "0" ? "0ns" : t;
}

std::string default_text(const ll_param &r)
{
  char buf[256];
  ll_param_default_text(&r, buf, sizeof(buf));
  return buf;
}

bool value_unit(const ll_param &r)
{
  return r.unit == LL_PARAM_SIZE || r.unit == LL_PARAM_TIME || r.unit == LL_PARAM_ALPHA ||
         r.unit == LL_PARAM_PRIOS || r.unit == LL_PARAM_COUNT;
}

// Every row: the pool's table, then each scheme's descriptor's.
static std::vector<std::reference_wrapper<const ll_param>> rows()
{
  std::vector<std::reference_wrapper<const ll_param>> out;
  for (unsigned i = 0; const ll_param *r = ll_param_row(i); i++)
    out.push_back(*r);
  return out;
}

// A scheme's row by its TOML key.
static const ll_param &srow(int scheme, const char *key)
{
  const ll_param *r = ll_param_of_scheme_key(scheme, key);
  EXPECT_NE(r, nullptr) << key;
  static const ll_param none{};
  return r ? *r : none;
}

TEST(ParamTable, EveryRowHasAHelpAndANameForItsReaders)
{
  for (const ll_param &r : rows()) {
    std::string name = r.tc ? r.tc : r.ctl ? r.ctl : "?";
    ASSERT_TRUE(r.help && *r.help) << name;
    EXPECT_NE(std::string(r.help).back(), '.') << name << ": one line, no full stop";
    EXPECT_TRUE(r.tc || r.ctl || r.key) << name << ": read by nobody";
    EXPECT_TRUE(r.arg && *r.arg) << name;
    if (r.flags & LL_PARAM_POLICY) {
      EXPECT_TRUE(r.ctl) << name << ": the policies take it by its ctl key";
    }
  }
}

TEST(ParamTable, MinDefaultMaxInOrder)
{
  for (const ll_param &r : rows()) {
    std::string name = r.tc ? r.tc : r.ctl;
    EXPECT_EQ(ll_param_check(&r, r.def, 0), 0) << name << ": the default is in range";
    if (r.unit == LL_PARAM_ALPHA) {
      // Alphas order by value, not by encoding.
      EXPECT_EQ(ll_param_check(&r, r.min, 0), 0) << name;
      EXPECT_EQ(ll_param_check(&r, r.max, 0), 0) << name;
      EXPECT_LE(ll_alpha_value(r.min), ll_alpha_value(r.def)) << name;
      EXPECT_LE(ll_alpha_value(r.def), ll_alpha_value(r.max)) << name;
    } else {
      EXPECT_LE(r.min, r.def) << name;
      EXPECT_LE(r.def, r.max) << name;
    }
    if (r.nl_len) {
      ASSERT_TRUE(r.nl_len == 1 || r.nl_len == 4 || r.nl_len == 8) << name;
      if (r.nl_len < 8) {
        EXPECT_LT(r.max, 1ull << (8 * r.nl_len)) << name << ": fits its attribute";
      }
    }
  }
}

TEST(ParamTable, KeywordsAndKeysAreUnique)
{
  std::set<std::string> tc, ctl, pool_keys, port_keys, nl;
  std::set<std::pair<int, std::string>> scheme_keys;
  for (const ll_param &r : rows()) {
    std::string name = r.tc ? r.tc : r.ctl;
    if (r.tc) {
      EXPECT_TRUE(tc.insert(r.tc).second) << "tc keyword " << r.tc << " twice";
    }
    if (r.ctl) {
      EXPECT_TRUE(ctl.insert(r.ctl).second) << "losslessctl key " << r.ctl << " twice";
    }
    if (r.key && r.scheme >= 0) {
      EXPECT_TRUE(scheme_keys.insert({r.scheme, r.key}).second) << r.key;
    } else if (r.key) {
      EXPECT_TRUE(((r.flags & LL_PARAM_TOML_PORT) ? port_keys : pool_keys).insert(r.key).second)
          << "TOML key " << r.key << " twice";
    }
    if (r.nl_attr) {
      EXPECT_TRUE(nl.insert(std::to_string(r.nl_nest) + "/" + std::to_string(r.nl_attr)).second)
          << name << ": attribute twice";
    }
  }
  EXPECT_EQ(pool_keys.count("policy") + pool_keys.count("watchdog"), 0u)
      << "the daemon's own [[pool]] keys";
}

TEST(ParamTable, SchemeParametersAreTheirSchemesRows)
{
  std::set<std::pair<int, int>> words;
  for (const ll_param &r : rows()) {
    std::string name = r.tc ? r.tc : r.ctl;
    if (r.scheme < 0) {
      EXPECT_EQ(r.nl_nest, 0) << name;
      EXPECT_EQ(r.word, -1) << name;
      continue;
    }
    ASSERT_NE(ll_param_scheme_name(r.scheme), nullptr) << name;
    std::string scheme = ll_param_scheme_name(r.scheme);
    EXPECT_NE(r.nl_nest, 0) << name << ": a scheme's parameters are in its nest";
    EXPECT_EQ(r.nl_len, 8) << name << ": a word of lossless_plane_scheme";
    EXPECT_GE(r.word, 0) << name;
    EXPECT_LT(r.word, 8) << name;
    EXPECT_TRUE(words.insert({r.scheme, r.word}).second) << name << ": word twice";
    EXPECT_EQ(r.plane_set, (std::uint32_t)LOSSLESS_PLANE_SET_SCHEME) << name;
    ASSERT_TRUE(r.tc && r.key && r.ctl) << name;
    // TOML keys spell words with '_' (irc_th), tc and losslessctl with '-'.
    std::string key = r.key;
    std::replace(key.begin(), key.end(), '_', '-');
    EXPECT_EQ(std::string(r.tc), scheme + "-" + key) << "tc: <scheme>-<param>";
    EXPECT_EQ(std::string(r.ctl), scheme + "." + key) << "losslessctl: <scheme>.<param>";
    // The registry's rows are the table's.
    const auto *reg = lossless::policy::by_scheme_id(static_cast<std::uint8_t>(r.scheme));
    ASSERT_NE(reg, nullptr) << scheme;
    EXPECT_NE(std::find(reg->params.begin(), reg->params.end(), &r), reg->params.end()) << name;
  }
}

// The limits are the kernel's: the constants its netlink policies and
// pool checks use.
TEST(ParamTable, LimitsAreTheKernels)
{
  EXPECT_EQ(ll_params[LL_P_BUFFER].max, LL_MMU_MAX_TOTAL_BYTES);
  EXPECT_EQ(srow(LL_SCHEME_ST, "threshold").max, LL_MMU_MAX_TOTAL_BYTES);
  EXPECT_EQ(ll_params[LL_P_CABLE_DELAY].max, LL_HEADROOM_MAX_DELAY_NS);
  EXPECT_EQ(ll_params[LL_P_SW_DELAY].max, LL_HEADROOM_MAX_DELAY_NS);
  EXPECT_EQ(ll_params[LL_P_INTERVAL].min, LOSSLESS_PLANE_INTERVAL_MIN_US * 1000ULL);
  EXPECT_EQ(ll_params[LL_P_INTERVAL].max, LOSSLESS_PLANE_INTERVAL_MAX_US * 1000ULL);
  EXPECT_EQ(ll_params[LL_P_INTERVAL].def, LOSSLESS_PLANE_INTERVAL_DEFAULT_US * 1000ULL);
  EXPECT_EQ(ll_params[LL_P_ALPHA].min >> 8, 1u);
  EXPECT_EQ(ll_params[LL_P_ALPHA].min & 0xff, LL_MMU_ALPHA_MAX_SHIFT);
  EXPECT_EQ(ll_params[LL_P_SCHEME].max, LL_SCHEME_COUNT - 1u);
  // DSH's and SPFC's: scheme.h's constants (0 in the kernel is the
  // default; the rows' minimum is what a user may type).
  EXPECT_EQ(srow(LL_SCHEME_DSH, "window").max, LL_DSH_WINDOW_NS_MAX);
  EXPECT_EQ(srow(LL_SCHEME_DSH, "window").def, LL_DSH_WINDOW_NS_DEFAULT);
  EXPECT_EQ(srow(LL_SCHEME_DSH, "ewma-shift").max, LL_DSH_EWMA_SHIFT_MAX);
  EXPECT_EQ(srow(LL_SCHEME_DSH, "ewma-shift").def, LL_DSH_EWMA_SHIFT_DEFAULT);
  EXPECT_EQ(srow(LL_SCHEME_DSH, "gain").max, LL_DSH_GAIN_MAX);
  EXPECT_EQ(srow(LL_SCHEME_DSH, "gain").def, LL_DSH_GAIN_DEFAULT);
  EXPECT_EQ(srow(LL_SCHEME_DSH, "variant").max, LL_DSH_F_ALL);
  EXPECT_EQ(srow(LL_SCHEME_SPFC, "window").min, LL_SPFC_TC_NS_MIN);
  EXPECT_EQ(srow(LL_SCHEME_SPFC, "window").max, LL_SPFC_TC_NS_MAX);
  EXPECT_EQ(srow(LL_SCHEME_SPFC, "window").def, LL_SPFC_TC_NS_DEFAULT);
  EXPECT_EQ(srow(LL_SCHEME_SPFC, "irc-th").max, LL_SPFC_IRC_TH_MAX);
  EXPECT_EQ(srow(LL_SCHEME_SPFC, "irc-th-packets").max, LL_SPFC_IRC_TH_MAX);
  EXPECT_EQ(srow(LL_SCHEME_SPFC, "victim-threshold").max, LL_MMU_MAX_TOTAL_BYTES);
  EXPECT_EQ(srow(LL_SCHEME_SPFC, "mode").max, LL_SPFC_F_ALL);
  EXPECT_EQ(srow(LL_SCHEME_SPFC, "k").min, 1u);
  EXPECT_EQ(srow(LL_SCHEME_SPFC, "k").max, LL_SPFC_K_MAX);
  EXPECT_EQ(srow(LL_SCHEME_SPFC, "k").def, LL_SPFC_K_DEFAULT);
  // Every word of the plane's scheme block is the core's.
  EXPECT_EQ(srow(LL_SCHEME_SPFC, "k").word * 8, (int)offsetof(ll_scheme_params, spfc.k));
  EXPECT_EQ(srow(LL_SCHEME_DSH, "variant").word * 8, (int)offsetof(ll_scheme_params, dsh.flags));
  EXPECT_EQ(srow(LL_SCHEME_SPFC, "mode").word * 8, (int)offsetof(ll_scheme_params, spfc.flags));
}

// Flags by name: the value 0's name alone, or a comma list of bits, each
// once; the refused pair; the texts.
TEST(ParamTable, FlagsByName)
{
  const ll_param &v = srow(LL_SCHEME_DSH, "variant");
  const ll_param &m = srow(LL_SCHEME_SPFC, "mode");
  std::uint64_t x = 99;
  EXPECT_EQ(ll_param_parse(&v, "dsh", &x, nullptr), LL_PARAM_OK);
  EXPECT_EQ(x, 0u);
  EXPECT_EQ(ll_param_parse(&v, "no-insurance", &x, nullptr), LL_PARAM_OK);
  EXPECT_EQ(x, LL_DSH_F_NO_INSURANCE);
  EXPECT_EQ(ll_param_parse(&v, "static-tau,no-insurance", &x, nullptr), LL_PARAM_OK);
  EXPECT_EQ(x, LL_DSH_F_STATIC_TAU | LL_DSH_F_NO_INSURANCE);
  EXPECT_EQ(ll_param_parse(&v, "no-shared-headroom,no-insurance", &x, nullptr), LL_PARAM_OK);
  EXPECT_EQ(x, LL_DSH_F_NO_SHARED_HEADROOM | LL_DSH_F_NO_INSURANCE);
  EXPECT_EQ(ll_param_parse(&v, "no-shared-headroom,static-tau", &x, nullptr), LL_PARAM_ECOMBO);
  for (const char *bad : {"", "DSH", "dsh,no-insurance", "no-insurance,", ",no-insurance",
                          "no-insurance,no-insurance", "sih", "1", "no-insurance static-tau"})
    EXPECT_EQ(ll_param_parse(&v, bad, &x, nullptr), LL_PARAM_EVALUE) << bad;
  EXPECT_EQ(text(v, 0), "dsh");
  EXPECT_EQ(text(v, LL_DSH_F_NO_INSURANCE | LL_DSH_F_STATIC_TAU), "no-insurance,static-tau");
  EXPECT_EQ(text(v, 0x10), "0x10");
  EXPECT_EQ(ll_param_check(&v, LL_DSH_F_NO_SHARED_HEADROOM | LL_DSH_F_STATIC_TAU, 0), -1);
  EXPECT_EQ(ll_param_check(&v, 0x8, 0), -1);
  EXPECT_EQ(ll_param_check(&v, LL_DSH_F_NO_INSURANCE, 0), 0);
  char buf[256];
  ll_param_range(&v, buf, sizeof(buf));
  EXPECT_STREQ(buf,
               "dsh, or a comma list of no-shared-headroom, no-insurance, static-tau (not "
               "no-shared-headroom with static-tau)");
  ll_param_range(&m, buf, sizeof(buf));
  EXPECT_STREQ(buf, "irc, or a comma list of window-end, daemon");
  EXPECT_EQ(ll_param_parse(&m, "window-end,daemon", &x, nullptr), LL_PARAM_OK);
  EXPECT_EQ(x, LL_SPFC_F_WINDOW_END | LL_SPFC_F_DAEMON);
  EXPECT_EQ(ll_param_parse(&m, "irc", &x, nullptr), LL_PARAM_OK);
  EXPECT_EQ(x, 0u);
  EXPECT_EQ(default_text(v), "dsh");
  EXPECT_EQ(default_text(m), "irc");
  // Every value of a flags row parses back from its text.
  for (const ll_param *r : {&v, &m})
    for (std::uint64_t f = 0; f <= r->max; f++) {
      if (ll_param_check(r, f, 0))
        continue;
      std::uint64_t back = ~0ull;
      EXPECT_EQ(ll_param_parse(r, text(*r, f).c_str(), &back, nullptr), LL_PARAM_OK) << f;
      EXPECT_EQ(back, f);
    }
}

// K: an integer 1 .. 1000; 0, negatives, fractions, NaN and Inf refused.
TEST(ParamTable, SpfcKIsAPositiveInteger)
{
  const ll_param &k = srow(LL_SCHEME_SPFC, "k");
  std::uint64_t x = 0;
  EXPECT_EQ(ll_param_parse(&k, "1", &x, nullptr), LL_PARAM_OK);
  EXPECT_EQ(x, 1u);
  EXPECT_EQ(ll_param_parse(&k, "1000", &x, nullptr), LL_PARAM_OK);
  for (const char *bad : {"0", "-1", "2.5", "nan", "NaN", "inf", "-inf", "1e3", "", " 5", "5 ",
                          "1001", "18446744073709551616"})
    EXPECT_EQ(ll_param_parse(&k, bad, &x, nullptr), LL_PARAM_EVALUE) << bad;
}

// One encoding of alpha: text <-> num << 8 | shift <-> value.
TEST(ParamTable, AlphaEncoding)
{
  unsigned int v = 0;
  EXPECT_EQ(ll_alpha_parse("3/4", &v), 0);
  EXPECT_EQ(v, LL_ALPHA_ENCODE(3, 2));
  EXPECT_EQ(ll_alpha_value(v), 0.75);
  EXPECT_EQ(text(ll_params[LL_P_ALPHA], v), "3/4");
  EXPECT_EQ(ll_alpha_parse("65536", &v), LL_ALPHA_BAD_NUM);
  EXPECT_EQ(ll_alpha_parse("1/8589934592", &v), LL_ALPHA_BAD_DEN);
  EXPECT_FALSE(ll_alpha_valid(LL_ALPHA_ENCODE(1, 33)));
  EXPECT_FALSE(ll_alpha_valid(LL_ALPHA_ENCODE(0, 3)));
}

TEST(ParamTable, TextsAsUsersWriteThem)
{
  EXPECT_EQ(default_text(ll_params[LL_P_BUFFER]), "4mb");
  EXPECT_EQ(default_text(ll_params[LL_P_ALPHA]), "1/8");
  EXPECT_EQ(default_text(ll_params[LL_P_EGRESS_ALPHA]), "1");
  EXPECT_EQ(default_text(ll_params[LL_P_LOSSLESS_PRIOS]), "3,4");
  EXPECT_EQ(default_text(ll_params[LL_P_RESERVED]), "1 MTU");
  EXPECT_EQ(default_text(ll_params[LL_P_XON_OFFSET]), "2 MTU");
  EXPECT_EQ(default_text(ll_params[LL_P_SW_DELAY]), "1ms");
  EXPECT_EQ(default_text(ll_params[LL_P_CABLE_DELAY]), "0");
  EXPECT_EQ(text(ll_params[LL_P_LOSSLESS_PRIOS], 0), "none");
  char buf[256];
  char syn[1024];
  ll_param_synopsis(&ll_params[LL_P_SCHEME], syn, sizeof(syn));
  EXPECT_STREQ(syn,
               "[ scheme { dt | st [ st-threshold SIZE ] | dsh [ dsh-window TIME ] [ "
               "dsh-ewma-shift N ] [ dsh-gain N ] [ dsh-variant VARIANT ] | spfc [ spfc-window "
               "TIME ] [ spfc-irc-th SIZE ] [ spfc-irc-th-packets N ] [ spfc-victim-threshold "
               "SIZE ] [ spfc-mode MODE ] [ spfc-k N ] | portfc [ portfc-n N ] [ portfc-xoff-a "
               "SIZE ] [ portfc-xon-a SIZE ] [ portfc-xoff-b SIZE ] [ portfc-xon-b SIZE ] } ]");
  ll_param_synopsis(&ll_params[LL_P_BUFFER], buf, sizeof(buf));
  EXPECT_STREQ(buf, "[ buffer SIZE ]");
  ll_param_range(&ll_params[LL_P_BUFFER], buf, sizeof(buf));
  EXPECT_STREQ(buf, "1 .. 1099511627776 bytes (tc size units b, kb, mb, gb: 1500b, 64kb, 4mb)");
  ll_param_range(&ll_params[LL_P_SW_DELAY], buf, sizeof(buf));
  EXPECT_STREQ(buf, "a time 0 .. 1s with a unit ns, us, ms or s (5us, 1ms)");
  EXPECT_EQ(ll_param_default(&ll_params[LL_P_XON_OFFSET], 1518), 3036u);
}

// A value's text parses back to the value, and the range is enforced.
TEST(ParamTable, ValuesRoundTripAndRangesHold)
{
  for (const ll_param &r : rows()) {
    if (!value_unit(r))
      continue;
    std::string name = r.tc ? r.tc : r.ctl;
    for (std::uint64_t v : {r.min, r.def, r.max}) {
      std::uint64_t back = ~0ull;
      std::string t = written(r, v);
      EXPECT_EQ(ll_param_parse(&r, t.c_str(), &back, nullptr), LL_PARAM_OK) << name << " " << t;
      EXPECT_EQ(back, v) << name << " " << t;
    }
    if (r.unit != LL_PARAM_ALPHA && r.unit != LL_PARAM_PRIOS) {
      std::uint64_t back = 0;
      std::string above = std::to_string(r.max + 1) + (r.unit == LL_PARAM_TIME ? "ns" : "");
      EXPECT_EQ(ll_param_parse(&r, above.c_str(), &back, nullptr), LL_PARAM_EVALUE) << name;
      if (r.min) {
        std::string below = std::to_string(r.min - 1) + (r.unit == LL_PARAM_TIME ? "ns" : "");
        EXPECT_EQ(ll_param_parse(&r, below.c_str(), &back, nullptr), LL_PARAM_EVALUE) << name;
      }
    }
    if (r.flags & LL_PARAM_MAX_BUFFER) {
      EXPECT_NE(ll_param_check(&r, 1001, 1000), 0) << name << ": at most the buffer";
    }
  }
}

// The TOML parser takes every row with a key, at its default, where the
// row says ([[pool]], [[port]], [pool.<scheme>]), and refuses it out of
// range with the row's range.
TEST(ParamTable, TheConfigurationReadsEveryKey)
{
  for (const ll_param &r : rows()) {
    if (!r.key || !value_unit(r))
      continue;
    std::string v = r.unit == LL_PARAM_PRIOS ? "[3, 4]"
                                             : "\"" + written(r, ll_param_default(&r, 1518)) + "\"";
    std::string pool = "[[pool]]\nname = \"sw0\"\n";
    std::string port = "[[port]]\ndev = \"swp1\"\npool = \"sw0\"\n";
    std::string line = std::string(r.key) + " = " + v + "\n";
    std::string file;
    if (r.scheme >= 0) {
      std::string s = ll_param_scheme_name(r.scheme);
      // sw-delay 100us: a round trip of 200us, below SPFC's window.
      file = pool + "policy = \"" + std::string(lossless::policy::by_scheme(s)->policy) +
             "\"\nsw-delay = \"100us\"\n[pool." + s + "]\n" + line + port;
    } else if (r.flags & LL_PARAM_TOML_PORT) {
      file = pool + "policy = \"pfc-dt\"\n" + port + line;
    } else {
      file = pool + "policy = \"pfc-dt\"\n" + line + port;
    }
    EXPECT_NO_THROW(parse_string(file, "t.toml")) << file;
    if (r.unit == LL_PARAM_SIZE && r.max < ll_params[LL_P_BUFFER].max) {
      std::string above = std::string(r.key) + " = \"" + std::to_string(r.max + 1) + "\"\n";
      std::string bad = file;
      bad.replace(bad.find(line), line.size(), above);
      char range[256];
      ll_param_range(&r, range, sizeof(range));
      try {
        parse_string(bad, "t.toml");
        ADD_FAILURE() << bad;
      } catch (const ConfigError &e) {
        EXPECT_NE(std::string(e.what()).find(std::string("must be ") + range), std::string::npos)
            << e.what();
      }
    }
  }
  auto c = parse_string(
      "[[pool]]\nname = \"sw0\"\npolicy = \"pfc-dt\"\n[[port]]\ndev = "
      "\"swp1\"\npool = \"sw0\"\n",
      "t.toml");
  EXPECT_EQ(c.pools[0].buffer_bytes, ll_params[LL_P_BUFFER].def) << "defaults are the rows'";
  EXPECT_EQ(c.pools[0].alpha, ll_params[LL_P_ALPHA].def);
  EXPECT_EQ(c.pools[0].sw_delay_ns, ll_params[LL_P_SW_DELAY].def);
}

// The policies take every row that says so, at its default, by its key.
TEST(ParamTable, ThePoliciesTakeTheirRows)
{
  for (const auto *reg : lossless::policy::registry()) {
    lossless::policy::PoolSettings s;
    auto pol = reg->make(*reg, s);
    std::vector<std::string> names;
    for (const auto &pi : pol->params())
      names.push_back(pi.name);
    for (const ll_param &r : rows()) {
      if (!(r.flags & LL_PARAM_POLICY) || (r.scheme >= 0 && r.scheme != reg->scheme_id))
        continue;
      std::uint64_t def = ll_param_default(&r, 1518);
      EXPECT_EQ(pol->set(r.ctl, written(r, def)), "") << reg->policy << " " << r.ctl;
      EXPECT_NE(std::find(names.begin(), names.end(), r.ctl), names.end())
          << reg->policy << " " << r.ctl;
    }
  }
}

// `losslessctl set` writes every row with a key and a plane field.
TEST(ParamTable, LosslessctlSetsEveryPlaneRow)
{
  unsigned n = 0;
  for (const ll_param &r : rows()) {
    if (!r.ctl || !r.plane_set || r.plane_set == LOSSLESS_PLANE_SET_SCHEME)
      continue;
    n++;
    if (r.plane_set == LOSSLESS_PLANE_SET_HEADROOM) {
      EXPECT_TRUE(r.flags & LL_PARAM_PORT) << r.ctl << ": per port";
    } else
      EXPECT_NE(lossless::plane::field(r.plane_set), nullptr) << r.ctl;
  }
  EXPECT_EQ(n, 6u) << "alpha, egress-alpha, reserved, xon-offset, headroom, interval-us";
}

// man/losslessctl.8 documents every key of set.
TEST(ParamTable, LosslessctlManPageHasEveryKey)
{
  std::ifstream f(LL_MAN_DIR "/losslessctl.8");
  std::stringstream ss;
  ss << f.rdbuf();
  std::string man = ss.str();
  ASSERT_FALSE(man.empty());
  for (const ll_param &r : rows()) {
    if (!r.ctl || !r.plane_set || r.plane_set == LOSSLESS_PLANE_SET_SCHEME)
      continue;
    std::string k;
    for (const char *c = r.ctl; *c; c++)
      k += *c == '-' ? std::string("\\-") : std::string(1, *c);
    EXPECT_NE(man.find(".BI " + k + " \""), std::string::npos) << r.ctl;
  }
}

}  // namespace
