// The seam, measured: a test-only scheme ("tst") and a test-only control
// frame kind ("test") enter through the tables' extension points alone
// (test_extension.h, included ahead of every source of this binary: the
// kind is one entry of the table, its layout its codec), and
// everything that reads schemes and kinds finds them: names, the
// parameter table, checks, the frame a port sends, the ECN rule,
// telemetry, events, the control channel, and the frame codec's envelope.
#include <gtest/gtest.h>

#include <cstring>
#include <set>
#include <string>
#include <vector>

extern "C" {
#include "ctrl.h"
#include "ll_params.h"
#include "mmu.h"
#include "pause.h"
#include "scheme.h"
}

#include "mmu_fixture.h"

namespace {

// ------------------------------------------------------- the test scheme

const ll_param kTstParams[] = {
    {
        .tc = "tst-knob",
        .arg = "N",
        .key = "knob",
        .ctl = "tst.knob",
        .metric = nullptr,
        .help = "a number the scheme adds to its pause time",
        .unit = LL_PARAM_COUNT,
        .flags = LL_PARAM_SHOW_NONZERO,
        .scheme = LL_SCHEME_TEST,
        .min = 0,
        .max = 100,
        .def = 0,
        .nl_attr = 1,
        .nl_nest = 0,
        .nl_len = 8,
        .plane_set = 0,
        .word = 0,
        .names = nullptr,
        .excl = 0,
    },
};

const ll_scheme_stat_desc kTstStats[] = {{"knob", LL_STAT_GAUGE, "The knob."}};
const char *const kTstMasks[] = {"wished"};

// Its event, its own number 1 (SPFC's 1 is another event): named by its
// descriptor, with no generic table to edit. (C++ has no array
// designators: the static_assert keeps the row at its number.)
enum TstEvent { kTstEvCommand = 1, kTstEventTypes };
const ll_scheme_event_desc kTstEvents[] = {
    {nullptr, nullptr},
    {"command", "A control-channel command wished a pause."},
};
static_assert(sizeof(kTstEvents) / sizeof(kTstEvents[0]) == kTstEventTypes, "a row per type");

const char *tst_check(const ll_mmu_config *cfg)
{
  return cfg->scheme_params.raw[0] > 50 ? "tst: tst-knob above 50" : nullptr;
}

// A pause time it computes: 100 + knob quanta for every wished priority.
void tst_port_frame(const ll_mmu_pool *pool, ll_u32 port, ll_u64, ll_ctrl_msg *msg)
{
  for (ll_u32 p = 0; p < LL_CTRL_GATES; p++)
    if ((pool->ports[port].xoff.want >> p) & 1)
      msg->value[p] = static_cast<ll_u16>(100 + pool->cfg.scheme_params.raw[0]);
}

// Its own ECN rule: mark when rnd is odd and the queue holds anything.
int tst_ecn_mark(const ll_mmu_pool *pool, ll_u32 port, ll_u32 queue, ll_u32 rnd)
{
  return (rnd & 1) && pool->ports[port].eq[queue].bytes > 0;
}

void tst_port_stats(const ll_mmu_pool *pool, ll_u32 port, ll_u64, ll_scheme_port_stats *out)
{
  out->ctr[0] = pool->cfg.scheme_params.raw[0];
  out->masks = pool->ports[port].xoff.want;
}

// Its control channel: a payload naming one port by id, on which it
// wishes a pause (so a frame becomes due there).
struct TstPayload {
  ll_u32 id;
  ll_u32 prio;
};

int tst_channel(ll_mmu_pool *pool, const ll_u32 *ids, ll_u32 nr_ids, const void *payload,
                ll_u64 now_ns, ll_u64 *due)
{
  const auto *w = static_cast<const TstPayload *>(payload);
  for (ll_u32 i = 0; i < nr_ids; i++)
    if (ids[i] && ids[i] == w->id) {
      if (w->prio >= LL_MMU_PRIOS)
        return -LL_EINVAL;
      ll_mmu_want(pool, i, w->prio, 1);
      pool->ports[i].sch.tst.commands++;
      pool->ports[i].sch.tst.last_prio = w->prio;
      ll_scheme_log_event(pool, i, w->prio, kTstEvCommand, 0, now_ns);
      if (ll_mmu_ctrl_due(pool, i, now_ns))
        *due |= 1ULL << i;
      return 0;
    }
  return -LL_ENODEV;
}

}  // namespace

extern "C" const ll_scheme_desc ll_scheme_test = {
    .name = "tst",
    .title = "a test-only scheme",
    .doc = "tests/unit/extension_test.cpp",
    .hooks = LL_SCHEME_HOOK_ECN,
    .params = kTstParams,
    .n_params = 1,
    .nl_nest = 0,
    .nl_pad = 2,
    .stats = kTstStats,
    .n_stats = 1,
    .masks = kTstMasks,
    .n_masks = 1,
    .prio_stats = nullptr,
    .n_prio_stats = 0,
    .events = kTstEvents,
    .n_events = kTstEventTypes,
    .headroom_peak_stat = 0,
    .check = tst_check,
    .ports_check = nullptr,
    .port_carve = nullptr,
    .port_tick = nullptr,
    .reset_peaks = nullptr,
    .port_stats = tst_port_stats,
    .port_frame = tst_port_frame,
    .ecn_mark = tst_ecn_mark,
    .channel = tst_channel,
    .channel_len = sizeof(TstPayload),
    .frames_due = nullptr,
    .frames_take = nullptr,
    .frames_complete = nullptr,
    .frames_next_ns = nullptr,
    .resync = nullptr,
};

namespace {

using namespace mmu_test;

TEST(Extension, TheSchemeIsNamedAndSelectable)
{
  // Above a reserved id: a loop that stops at the first empty id misses it.
  ASSERT_EQ(ll_scheme_selectable(LL_SCHEME_RESERVED_TEST), nullptr);
  EXPECT_EQ(ll_scheme_lookup(LL_SCHEME_RESERVED_TEST), nullptr);
  EXPECT_EQ(ll_scheme_name(LL_SCHEME_RESERVED_TEST), nullptr);
  EXPECT_EQ(ll_scheme_by_name("tst"), LL_SCHEME_TEST);
  EXPECT_STREQ(ll_scheme_name(LL_SCHEME_TEST), "tst");
  ASSERT_EQ(ll_scheme_selectable(LL_SCHEME_TEST), &ll_scheme_test);
  EXPECT_EQ(ll_scheme_hooks(LL_SCHEME_TEST), LL_SCHEME_HOOK_ECN);
  EXPECT_EQ(ll_scheme_stat_index(LL_SCHEME_TEST, 0, "knob"), 0);
}

TEST(Extension, ItsParameterIsARowOfTheTable)
{
  const ll_param *r = ll_param_by_tc("tst-knob");
  ASSERT_NE(r, nullptr);
  EXPECT_EQ(r, &kTstParams[0]);
  EXPECT_EQ(ll_param_by_ctl("tst.knob"), r);
  EXPECT_EQ(ll_param_of_scheme(LL_SCHEME_TEST, 0), r);
  EXPECT_EQ(ll_param_of_scheme_key(LL_SCHEME_TEST, "knob"), r);
  EXPECT_LT(ll_param_index(r), (unsigned)LL_PARAM_ROWS_MAX);
  EXPECT_EQ(ll_param_row(ll_param_index(r)), r);
  char buf[1024];
  ll_param_synopsis(&ll_params[LL_P_SCHEME], buf, sizeof(buf));
  EXPECT_NE(std::string(buf).find("| tst [ tst-knob N ]"), std::string::npos) << buf;
  ll_param_range(&ll_params[LL_P_SCHEME], buf, sizeof(buf));
  EXPECT_EQ(std::string(buf), "one of dt, st, dsh, spfc, portfc, tst");
  EXPECT_EQ(ll_params[LL_P_SCHEME].max, (ll_u64)LL_SCHEME_TEST);
}

TEST(Extension, ItsCheckRefusesThroughTheCore)
{
  ll_mmu_config c = PaperConfig(2, ll_mmu_alpha{1, 0});
  c.scheme = LL_SCHEME_TEST;
  c.scheme_params.raw[0] = 50;
  EXPECT_EQ(ll_scheme_check(&c), LL_MMU_OK);
  c.scheme_params.raw[0] = 51;
  EXPECT_EQ(ll_scheme_check(&c), LL_MMU_ERR_SCHEME_PARAMS);
  EXPECT_STREQ(ll_scheme_check_msg(&c), "tst: tst-knob above 50");
  c.scheme_params.raw[0] = 0;
  c.scheme_params.raw[1] = 1;
  EXPECT_STREQ(ll_scheme_check_msg(&c), "parameters of another scheme given");
}

TEST(Extension, ItsFrameEcnAndTelemetryHooksRun)
{
  ll_mmu_config c = PaperConfig(2, ll_mmu_alpha{1, 0});
  c.scheme = LL_SCHEME_TEST;
  c.scheme_params.raw[0] = 7;
  Pool pool(c, kGbit, 10000);
  ll_mmu_pool *p = pool.p();

  // The frame the port sends: the baseline's PFC with the scheme's time.
  ll_mmu_want(p, 0, kLosslessPrio, 1);
  ASSERT_TRUE(ll_mmu_ctrl_due(p, 0, 1000));
  ll_ctrl_msg m{};
  ASSERT_EQ(ll_mmu_ctrl_take(p, 0, 1000, &m), 1);
  EXPECT_EQ(m.kind, LL_CTRL_PFC);
  EXPECT_EQ(m.gate_mask, 1u << kLosslessPrio);
  EXPECT_EQ(m.value[kLosslessPrio], 107u);
  ll_mmu_ctrl_complete(p, 0, 1, 1000);

  // Its ECN rule, with the pool's RED off.
  EXPECT_FALSE(p->cfg.ecn.enabled);
  EXPECT_TRUE(ll_mmu_ecn_active(p));
  ll_mmu_charge ch{};
  ASSERT_TRUE(ll_mmu_admitted(ll_mmu_admit(p, 0, 0, 1, 0, 1500, 0, &ch)));
  EXPECT_EQ(ll_mmu_ecn_mark(p, 1, 0, 2), 0);
  EXPECT_EQ(ll_mmu_ecn_mark(p, 1, 0, 3), 1);
  EXPECT_EQ(p->ports[1].eq[0].ecn_marks, 1u);
  EXPECT_EQ(ll_mmu_ecn_mark(p, 1, 1, 3), 0) << "an empty queue";

  // Its telemetry, named by its descriptor.
  ll_scheme_port_stats st{};
  EXPECT_EQ(ll_scheme_get_port_stats(p, 0, 2000, &st), 1);
  EXPECT_EQ(st.scheme, (ll_u32)LL_SCHEME_TEST);
  EXPECT_EQ(st.ctr[0], 7u);
  EXPECT_EQ(st.masks, 1u << kLosslessPrio);
  ll_mmu_release(p, &ch, 3000);
}

// A two-port pool running "tst", its ports' ids (ifindexes), and a
// channel payload naming port 1.
struct TstChannel {
  static ll_mmu_config Config()
  {
    ll_mmu_config c = PaperConfig(2, ll_mmu_alpha{1, 0});
    c.scheme = LL_SCHEME_TEST;
    return c;
  }
  Pool pool{Config(), kGbit, 10000};
  const ll_u32 ids[2] = {40, 41};
  TstPayload w{41, kLosslessPrio};
  ll_u64 due = 0;
};

TEST(Extension, ItsControlChannelRunsThroughTheCore)
{
  TstChannel t;
  auto &[pool, ids, w, due] = t;
  EXPECT_EQ(ll_scheme_channel(pool.p(), LL_SCHEME_SPFC, ids, 2, &w, sizeof(w), 10, &due),
            -LL_EOPNOTSUPP);
  EXPECT_EQ(ll_scheme_channel(pool.p(), LL_SCHEME_TEST, ids, 2, &w, sizeof(w) + 8, 10, &due),
            -LL_EMSGSIZE);
  EXPECT_EQ(ll_scheme_channel(pool.p(), LL_SCHEME_TEST, ids, 2, &w, sizeof(w), 10, &due), 0);
  EXPECT_EQ(due, 1u << 1);
  EXPECT_EQ(pool.p()->ports[1].xoff.want, 1u << kLosslessPrio);
  // Its own state, in the union through the extension point.
  EXPECT_EQ(pool.p()->ports[1].sch.tst.commands, 1u);
  EXPECT_EQ(pool.p()->ports[1].sch.tst.last_prio, static_cast<ll_u32>(kLosslessPrio));
  EXPECT_EQ(pool.p()->ports[0].sch.tst.commands, 0u);
  w.id = 99;
  EXPECT_EQ(ll_scheme_channel(pool.p(), LL_SCHEME_TEST, ids, 2, &w, sizeof(w), 20, &due),
            -LL_ENODEV);
  EXPECT_EQ(due, 0u);
  // More ids than the pool has ports: a caller's bug, refused before the
  // scheme sees it.
  ll_u32 many[LL_MMU_MAX_PORTS + 1] = {};
  EXPECT_EQ(ll_scheme_channel(pool.p(), LL_SCHEME_TEST, many, pool.p()->cfg.max_ports + 1, &w,
                              sizeof(w), 30, &due),
            -LL_EINVAL);
}

// Its event: logged under its own number, recorded with its scheme, and
// named by its descriptor alone (SPFC's event 1 is another name).
TEST(Extension, ItsEventIsNamedByItsDescriptor)
{
  TstChannel t;
  auto &[pool, ids, w, due] = t;
  ASSERT_EQ(ll_scheme_channel(pool.p(), LL_SCHEME_TEST, ids, 2, &w, sizeof(w), 10, &due), 0);
  std::vector<ll_scheme_event> ev = Events(pool.p());
  ASSERT_EQ(ev.size(), 1u);
  EXPECT_EQ(ev[0].scheme, LL_SCHEME_TEST);
  EXPECT_EQ(ev[0].type, kTstEvCommand);
  EXPECT_EQ(ev[0].port, 1);
  EXPECT_EQ(ev[0].prio, kLosslessPrio);
  EXPECT_STREQ(ll_scheme_event_name(ev[0].scheme, ev[0].type), "command");
  EXPECT_STREQ(ll_scheme_event_name(LL_SCHEME_SPFC, kTstEvCommand), "pause");
  EXPECT_EQ(ll_scheme_event_name(LL_SCHEME_TEST, kTstEventTypes), nullptr);
}

// Every scheme's event names sit at its own numbers (the enum in scheme.h
// that its code logs): a name that slipped to another value fails here.
TEST(SchemeEvents, EachNameIsAtItsSchemesNumber)
{
  const struct {
    ll_u32 scheme;
    ll_u32 type;
    const char *name;
  } want[] = {
      {LL_SCHEME_SPFC, LL_SPFC_EV_PAUSE, "pause"},
      {LL_SCHEME_SPFC, LL_SPFC_EV_RESUME, "resume"},
      {LL_SCHEME_SPFC, LL_SPFC_EV_TO_VICTIM, "to_victim"},
      {LL_SCHEME_SPFC, LL_SPFC_EV_TO_NORMAL, "to_normal"},
      {LL_SCHEME_DSH, LL_DSH_EV_QOFF, "qoff"},
      {LL_SCHEME_DSH, LL_DSH_EV_QON, "qon"},
      {LL_SCHEME_DSH, LL_DSH_EV_POFF, "poff"},
      {LL_SCHEME_DSH, LL_DSH_EV_PON, "pon"},
  };
  for (const auto &x : want)
    EXPECT_STREQ(ll_scheme_event_name(x.scheme, x.type), x.name) << x.scheme << " " << x.type;
  // The numbers in the plane did not change when the names moved.
  EXPECT_EQ(LL_SPFC_EV_PAUSE, 1);
  EXPECT_EQ(LL_SPFC_EV_TO_NORMAL, 4);
  EXPECT_EQ(LL_DSH_EV_QOFF, 5);
  EXPECT_EQ(LL_DSH_EV_PON, 8);
  // No name: an empty slot, past a scheme's table, a scheme that logs
  // none, a scheme the core does not have.
  EXPECT_EQ(ll_scheme_event_name(LL_SCHEME_SPFC, 0), nullptr);
  EXPECT_EQ(ll_scheme_event_name(LL_SCHEME_SPFC, LL_SPFC_EVENTS), nullptr);
  EXPECT_EQ(ll_scheme_event_name(LL_SCHEME_DSH, LL_SPFC_EV_PAUSE), nullptr);
  EXPECT_EQ(ll_scheme_event_name(LL_SCHEME_DSH, 255), nullptr);
  EXPECT_EQ(ll_scheme_event_name(LL_SCHEME_DT, 1), nullptr);
  EXPECT_EQ(ll_scheme_event_name(LL_SCHEME_ST, 1), nullptr);
  EXPECT_EQ(ll_scheme_event_name(200, 1), nullptr);
  // Every table: nothing at 0, a help per name, no name twice.
  for (ll_u32 id = 0; id < LL_SCHEME_CORE_COUNT; id++) {
    const ll_scheme_desc *d = ll_scheme_lookup(id);
    if (!d)
      continue;  // a reserved id
    EXPECT_LE(d->n_events, 256u) << d->name;
    std::set<std::string> seen;
    for (ll_u32 t = 0; t < d->n_events; t++) {
      const char *n = d->events[t].name;
      if (!n)
        continue;
      EXPECT_NE(t, 0u) << d->name;
      EXPECT_NE(d->events[t].help, nullptr) << d->name << " " << n;
      EXPECT_TRUE(seen.insert(n).second) << d->name << " " << n;
    }
  }
}

// The ring outlives a change of scheme: each entry keeps the scheme that
// logged it and is named by that scheme's descriptor.
TEST(SchemeEvents, AnEntryRecordsTheSchemeThatLoggedIt)
{
  ll_mmu_config c = PaperConfig(2, ll_mmu_alpha{1, 0});
  c.scheme = LL_SCHEME_SPFC;
  Pool pool(c, kGbit, 10000);
  ASSERT_EQ(ll_spfc_force(pool.p(), 0, kLosslessPrio, LL_SPFC_FORCE_VICTIM, 1000), 0);
  c.scheme = LL_SCHEME_DSH;
  ASSERT_EQ(ll_mmu_pool_reconfigure(pool.p(), &c), LL_MMU_OK);
  ll_scheme_log_event(pool.p(), 1, 0xff, LL_DSH_EV_POFF, 0, 2000);
  std::vector<ll_scheme_event> ev = Events(pool.p());
  ASSERT_EQ(ev.size(), 2u);
  EXPECT_EQ(ev[0].scheme, LL_SCHEME_SPFC);
  EXPECT_STREQ(ll_scheme_event_name(ev[0].scheme, ev[0].type), "to_victim");
  EXPECT_EQ(ev[1].scheme, LL_SCHEME_DSH);
  EXPECT_STREQ(ll_scheme_event_name(ev[1].scheme, ev[1].type), "poff");
}

TEST(Extension, TheFrameKindParsesAndBuildsThroughTheTable)
{
  ASSERT_NE(ll_ctrl_kind(LL_CTRL_TEST), nullptr);
  EXPECT_STREQ(ll_ctrl_kind(LL_CTRL_TEST)->name, "test");
  EXPECT_TRUE(ll_ctrl_ethertype(LL_TEST_ETHERTYPE));
  EXPECT_TRUE(ll_ctrl_ethertype(LL_ETH_P_MAC_CONTROL));
  EXPECT_FALSE(ll_ctrl_ethertype(0x0800));

  ll_ctrl_msg m{};
  const ll_u8 src[6] = {2, 0, 0, 0, 0, 9};
  std::memcpy(m.src, src, 6);
  m.kind = LL_CTRL_TEST;
  m.gate_mask = 0x5;
  m.value[0] = 10;
  m.value[2] = 30000;
  ll_u8 frame[64];
  ASSERT_EQ(ll_ctrl_build(frame, sizeof(frame), &m), (ll_u32)LL_MAC_CTRL_FRAME_BYTES);
  EXPECT_EQ(frame[12] << 8 | frame[13], LL_TEST_ETHERTYPE);
  EXPECT_EQ(frame[14] << 8 | frame[15], LL_TEST_OPCODE);
  EXPECT_EQ(std::memcmp(frame, ll_mac_ctrl_da, 6), 0);

  ll_ctrl_msg back{};
  ASSERT_EQ(ll_ctrl_parse(frame, LL_TEST_FRAME_BYTES, nullptr, &back), LL_PARSE_OK);
  EXPECT_EQ(back.kind, LL_CTRL_TEST);
  EXPECT_EQ(back.gate_mask, 0x5);
  EXPECT_EQ(back.value[0], 10);
  EXPECT_EQ(back.value[2], 30000);
  EXPECT_EQ(std::memcmp(back.src, src, 6), 0);

  EXPECT_EQ(ll_ctrl_parse(frame, LL_TEST_FRAME_BYTES - 1, nullptr, &back), LL_PARSE_TRUNCATED);
  frame[17] = 1;
  EXPECT_EQ(ll_ctrl_parse(frame, 60, nullptr, &back), LL_PARSE_RESERVED_SET);
  frame[15] = 0xFD;
  EXPECT_EQ(ll_ctrl_parse(frame, 60, nullptr, &back), LL_PARSE_BAD_OPCODE);

  // Its values close the gates its entry names, by id.
  ll_port_pause gates{};
  m.kind = LL_CTRL_TEST;
  m.gate_mask = 0x5;
  ll_u32 changed = ll_port_pause_rx(&gates, 1000, &m, 1000000000ull);
  EXPECT_EQ(changed, (1u << LL_TEST_GATE_BASE) | (1u << (LL_TEST_GATE_BASE + 2)));
  EXPECT_EQ(ll_port_pause_closed_mask(&gates), changed);
  EXPECT_GE(LL_TEST_GATE_BASE, LL_GATE_FREE);

  // The kinds that were there still are.
  m = {};
  m.kind = LL_CTRL_PFC;
  m.gate_mask = 0x08;
  m.value[3] = 0xffff;
  ASSERT_EQ(ll_ctrl_build(frame, sizeof(frame), &m), (ll_u32)LL_MAC_CTRL_FRAME_BYTES);
  ASSERT_EQ(ll_ctrl_parse(frame, 60, nullptr, &back), LL_PARSE_OK);
  EXPECT_EQ(back.kind, LL_CTRL_PFC);
  EXPECT_EQ(back.value[3], 0xffff);
}

}  // namespace
