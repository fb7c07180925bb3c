// SPDX-License-Identifier: GPL-2.0
//
// Host-side tests of the tc plugin q_lossless.so with the installed
// /usr/sbin/tc; no lossless kernel module needed.
//
// - Parsing: `tc qdisc add dev lo root lossless ...` in a private network
//   namespace. Bad options must fail in the plugin (exit 1, a message naming
//   the option and its range, the usage) and send nothing to the kernel;
//   good options must reach the kernel (which answers "Specified qdisc kind
//   is unknown" on a host without the module) with the right attributes.
//   The LD_PRELOAD shim tc_nlshim.so records what tc sends.
// - Printing: the shim answers tc's qdisc/class dump requests with crafted
//   kernel messages, so `tc [-s] [-j] qdisc|class show` runs print_qopt and
//   print_xstats for real, text and JSON.
// - Round trip: what `tc qdisc show` prints parses back to the same
//   attributes.

#include <fcntl.h>
#include <spawn.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <linux/gen_stats.h>
#include <linux/netlink.h>
#include <linux/pkt_sched.h>
#include <linux/rtnetlink.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <fstream>
#include <iterator>
#include <map>
#include <optional>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include <gtest/gtest.h>

#include "ll_params.h"
#include "lossless.h"

extern "C" {
#include "mode.h"
}

extern char **environ;

namespace {

using Args = std::vector<std::string>;

struct Result {
	int rc = -1;
	std::string out, err;
};

std::string ReadFile(const std::string &path)
{
	std::ifstream f(path, std::ios::binary);
	std::stringstream ss;
	ss << f.rdbuf();
	return ss.str();
}

void WriteFile(const std::string &path, const std::string &data)
{
	std::ofstream f(path, std::ios::binary | std::ios::trunc);
	f << data;
}

class TempDir {
public:
	TempDir()
	{
		char tmpl[] = "/tmp/ll-tc-test.XXXXXX";
		const char *d = mkdtemp(tmpl);
		if (!d)
			abort();
		path_ = d;
	}
	~TempDir()
	{
		std::string cmd = "rm -rf '" + path_ + "'";
		if (system(cmd.c_str()) != 0) {
		}
	}
	std::string File(const std::string &name) const { return path_ + "/" + name; }

private:
	std::string path_;
};

// Run argv with extra environment variables; stdout and stderr captured.
Result RunCmd(const Args &argv, const std::map<std::string, std::string> &env)
{
	TempDir tmp;
	std::string out = tmp.File("out"), err = tmp.File("err");
	std::vector<std::string> envs;
	for (char **e = environ; *e; e++) {
		std::string kv = *e;
		std::string k = kv.substr(0, kv.find('='));
		if (!env.count(k))
			envs.push_back(kv);
	}
	for (const auto &[k, v] : env)
		envs.push_back(k + "=" + v);
	std::vector<char *> cargv, cenv;
	for (const auto &a : argv)
		cargv.push_back(const_cast<char *>(a.c_str()));
	cargv.push_back(nullptr);
	for (const auto &e : envs)
		cenv.push_back(const_cast<char *>(e.c_str()));
	cenv.push_back(nullptr);

	posix_spawn_file_actions_t fa;
	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
	posix_spawn_file_actions_addopen(&fa, 1, out.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
	posix_spawn_file_actions_addopen(&fa, 2, err.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
	pid_t pid;
	Result r;
	if (posix_spawnp(&pid, cargv[0], &fa, nullptr, cargv.data(), cenv.data()) != 0) {
		posix_spawn_file_actions_destroy(&fa);
		r.err = "cannot spawn " + argv[0];
		return r;
	}
	posix_spawn_file_actions_destroy(&fa);
	int status = 0;
	waitpid(pid, &status, 0);
	r.rc = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
	r.out = ReadFile(out);
	r.err = ReadFile(err);
	return r;
}

// tc runs in a private network namespace when possible (root or user
// namespaces): nothing on the host's lo is touched even if a kernel with
// the module runs these tests.
const Args &NetnsPrefix()
{
	static const Args prefix = [] {
		for (Args p : {Args{"unshare", "-n", "--"}, Args{"unshare", "-rn", "--"}}) {
			Args a = p;
			a.push_back("true");
			if (RunCmd(a, {}).rc == 0)
				return p;
		}
		return Args{};
	}();
	return prefix;
}

struct TcOpts {
	std::string capture;	// LL_TC_CAPTURE
	std::string dump;	// LL_TC_DUMP
};

TcOpts Capture(const std::string &path)
{
	TcOpts o;
	o.capture = path;
	return o;
}

TcOpts Dump(const std::string &path)
{
	TcOpts o;
	o.dump = path;
	return o;
}

Result Tc(const Args &args, const TcOpts &o = {})
{
	Args argv = NetnsPrefix();
	argv.push_back(TC_BIN);
	argv.insert(argv.end(), args.begin(), args.end());
	std::map<std::string, std::string> env = {
		{"TC_LIB_DIR", TC_PLUGIN_DIR},
		{"LD_PRELOAD", TC_NLSHIM},
	};
	if (!o.capture.empty())
		env["LL_TC_CAPTURE"] = o.capture;
	if (!o.dump.empty())
		env["LL_TC_DUMP"] = o.dump;
	return RunCmd(argv, env);
}

Args Split(const std::string &s)
{
	Args v;
	std::istringstream is(s);
	for (std::string w; is >> w;)
		v.push_back(w == "<empty>" ? "" : w);
	return v;
}

// ---- netlink message building and decoding -------------------------------

class Msg {
public:
	Msg(uint16_t type, uint16_t flags, const tcmsg &t)
	{
		nlmsghdr h{};
		h.nlmsg_type = type;
		h.nlmsg_flags = flags;
		Append(&h, sizeof(h));
		Append(&t, sizeof(t));
	}
	void Put(uint16_t type, const void *data, size_t len)
	{
		rtattr a{};
		a.rta_type = type;
		a.rta_len = RTA_LENGTH(len);
		Append(&a, sizeof(a));
		Append(data, len);
		Align();
	}
	template <typename T> void PutT(uint16_t type, T v) { Put(type, &v, sizeof(v)); }
	void PutStr(uint16_t type, const std::string &s) { Put(type, s.c_str(), s.size() + 1); }
	size_t Nest(uint16_t type)
	{
		size_t off = buf_.size();
		Put(type, nullptr, 0);
		return off;
	}
	void End(size_t off)
	{
		auto *a = reinterpret_cast<rtattr *>(&buf_[off]);
		a->rta_len = buf_.size() - off;
	}
	std::string Bytes()
	{
		auto *h = reinterpret_cast<nlmsghdr *>(buf_.data());
		h->nlmsg_len = buf_.size();
		return std::string(buf_.begin(), buf_.end());
	}

private:
	void Append(const void *p, size_t n)
	{
		const auto *c = static_cast<const char *>(p);
		buf_.insert(buf_.end(), c, c + n);
	}
	void Align() { buf_.resize(NLMSG_ALIGN(buf_.size()), 0); }
	std::vector<char> buf_;
};

// The qdisc's options as the kernel dumps them (ll_dump).
struct QdiscOpts {
	uint64_t rate_bps = 10000000000ULL;
	uint32_t burst = 125000;
	// Dumped by kernels with the catch-up shaper (always, then); the
	// tests that do not set it stand for older kernels.
	std::optional<uint32_t> catchup;
	uint8_t queues = 8;
	uint8_t strict = 2;
	std::vector<uint8_t> priomap = {0, 1, 2, 3, 4, 5, 6, 7, 0, 0, 0, 0, 0, 0, 0, 0};
	std::vector<uint32_t> quanta = {1514, 1514, 1514, 1514, 1514, 1514, 1514, 9000};
	uint32_t limit = 1000;
	std::vector<uint32_t> gates;	// TCA_LOSSLESS_GATES, dumped when set
	struct Pool {
		std::string name = "sw0";
		uint64_t bytes = 4 << 20;
		uint32_t alpha = 1 << 8 | 3;		// 1/8
		uint32_t egress_alpha = 1 << 8 | 0;	// 1
		uint8_t lossless_prios = 0x18;		// 3,4
		uint32_t reserved = 1514;
		uint32_t xon_offset = 3028;
		uint64_t cable_delay_ns = 1000;
		uint64_t sw_delay_ns = 2300000;
		uint32_t headroom = 0;
		uint32_t ecn_kmin = 30 << 10, ecn_kmax = 100 << 10, ecn_pmax = 13107;
	};
	std::optional<Pool> pool;	// dumped when the qdisc is in a pool
	// The PFC watchdog nest, dumped while the watchdog is on (no
	// NLA_F_NESTED, as the kernel's nla_nest_start_noflag).
	struct Watchdog {
		uint8_t action = LOSSLESS_WD_DROP;
		uint64_t detect_ns = 200000000, restore_ns = 200000000;
		uint64_t poll_ns = 100000000, xoff_alarm_ns = 0;
	};
	std::optional<Watchdog> wd;
	// The scheme nest (id, and ST's threshold when set; DSH's and SPFC's
	// attributes when given), as dumped.
	struct Scheme {
		uint8_t id = LOSSLESS_SCHEME_ST;
		std::optional<uint64_t> st_threshold;
		std::vector<std::pair<uint16_t, uint64_t>> dsh, spfc;
		std::optional<uint32_t> backlog_need;
	};
	std::optional<Scheme> scheme;
	// The port's mode nest (id, its parameters' nest when any), as dumped.
	struct Mode {
		uint8_t id = LOSSLESS_MODE_BIFROST;
		std::vector<std::pair<uint16_t, uint64_t>> params;
	};
	std::optional<Mode> mode;
};

void PutOptions(Msg &m, const QdiscOpts &o)
{
	size_t nest = m.Nest(TCA_OPTIONS);
	m.PutT<uint64_t>(TCA_LOSSLESS_RATE_BPS, o.rate_bps);
	m.PutT<uint32_t>(TCA_LOSSLESS_BURST_BYTES, o.burst);
	if (o.catchup)
		m.PutT<uint32_t>(TCA_LOSSLESS_CATCHUP_BYTES, *o.catchup);
	m.PutT<uint8_t>(TCA_LOSSLESS_QUEUES, o.queues);
	m.PutT<uint8_t>(TCA_LOSSLESS_STRICT, o.strict);
	m.Put(TCA_LOSSLESS_PRIOMAP, o.priomap.data(), o.priomap.size());
	m.Put(TCA_LOSSLESS_QUANTA, o.quanta.data(), o.quanta.size() * 4);
	m.PutT<uint32_t>(TCA_LOSSLESS_LIMIT_PKTS, o.limit);
	if (!o.gates.empty())
		m.Put(TCA_LOSSLESS_GATES, o.gates.data(), o.gates.size() * 4);
	if (o.pool) {
		const QdiscOpts::Pool &p = *o.pool;
		m.PutStr(TCA_LOSSLESS_POOL, p.name);
		m.PutT<uint64_t>(TCA_LOSSLESS_POOL_BYTES, p.bytes);
		m.PutT<uint32_t>(TCA_LOSSLESS_ALPHA, p.alpha);
		m.PutT<uint32_t>(TCA_LOSSLESS_EGRESS_ALPHA, p.egress_alpha);
		m.PutT<uint8_t>(TCA_LOSSLESS_LOSSLESS_PRIOS, p.lossless_prios);
		m.PutT<uint32_t>(TCA_LOSSLESS_RESERVED_BYTES, p.reserved);
		m.PutT<uint32_t>(TCA_LOSSLESS_XON_OFFSET_BYTES, p.xon_offset);
		m.PutT<uint64_t>(TCA_LOSSLESS_CABLE_DELAY_NS, p.cable_delay_ns);
		m.PutT<uint64_t>(TCA_LOSSLESS_SW_DELAY_NS, p.sw_delay_ns);
		m.PutT<uint32_t>(TCA_LOSSLESS_HEADROOM_BYTES, p.headroom);
		m.PutT<uint32_t>(TCA_LOSSLESS_ECN_KMIN_BYTES, p.ecn_kmin);
		m.PutT<uint32_t>(TCA_LOSSLESS_ECN_KMAX_BYTES, p.ecn_kmax);
		m.PutT<uint32_t>(TCA_LOSSLESS_ECN_PMAX, p.ecn_pmax);
	}
	if (o.scheme) {
		size_t sn = m.Nest(TCA_LOSSLESS_SCHEME);
		m.PutT<uint8_t>(TCA_LOSSLESS_SCHEME_ID, o.scheme->id);
		if (o.scheme->st_threshold) {
			size_t st = m.Nest(TCA_LOSSLESS_SCHEME_ST);
			m.PutT<uint64_t>(TCA_LOSSLESS_ST_THRESHOLD_BYTES, *o.scheme->st_threshold);
			m.End(st);
		}
		for (const auto &[nest, attrs] :
		     {std::pair{TCA_LOSSLESS_SCHEME_DSH, &o.scheme->dsh},
		      std::pair{TCA_LOSSLESS_SCHEME_SPFC, &o.scheme->spfc}}) {
			if (attrs->empty())
				continue;
			size_t n = m.Nest(nest);
			for (const auto &[a, v] : *attrs)
				m.PutT<uint64_t>(a, v);
			m.End(n);
		}
		m.End(sn);
		if (o.scheme->backlog_need)
			m.PutT<uint32_t>(TCA_LOSSLESS_BACKLOG_NEED, *o.scheme->backlog_need);
	}
	if (o.mode) {
		size_t mn = m.Nest(TCA_LOSSLESS_MODE);
		m.PutT<uint8_t>(TCA_LOSSLESS_MODE_ID, o.mode->id);
		if (!o.mode->params.empty()) {
			size_t n = m.Nest(TCA_LOSSLESS_MODE_BIFROST);
			for (const auto &[a, v] : o.mode->params)
				m.PutT<uint64_t>(a, v);
			m.End(n);
		}
		m.End(mn);
	}
	if (o.wd) {
		size_t wd = m.Nest(TCA_LOSSLESS_WATCHDOG);
		m.PutT<uint8_t>(TCA_LOSSLESS_WD_ACTION, o.wd->action);
		m.PutT<uint64_t>(TCA_LOSSLESS_WD_DETECT_NS, o.wd->detect_ns);
		m.PutT<uint64_t>(TCA_LOSSLESS_WD_RESTORE_NS, o.wd->restore_ns);
		m.PutT<uint64_t>(TCA_LOSSLESS_WD_POLL_NS, o.wd->poll_ns);
		m.PutT<uint64_t>(TCA_LOSSLESS_WD_XOFF_ALARM_NS, o.wd->xoff_alarm_ns);
		m.End(wd);
	}
	m.End(nest);
}

void PutStats(Msg &m, const void *app, size_t app_len)
{
	size_t nest = m.Nest(TCA_STATS2);
	gnet_stats_basic b{};
	b.bytes = 123456;
	b.packets = 789;
	m.PutT(TCA_STATS_BASIC, b);
	gnet_stats_queue q{};
	q.qlen = 3;
	q.backlog = 4542;
	q.drops = 0;
	m.PutT(TCA_STATS_QUEUE, q);
	if (app)
		m.Put(TCA_STATS_APP, app, app_len);
	m.End(nest);
}

tcmsg QdiscTcm()
{
	tcmsg t{};
	t.tcm_family = AF_UNSPEC;
	t.tcm_ifindex = 1;	// lo
	t.tcm_handle = 0x10000;
	t.tcm_parent = TC_H_ROOT;
	t.tcm_info = 2;	// refcnt
	return t;
}

std::string QdiscDump(const QdiscOpts &o, const void *xstats = nullptr, size_t xlen = 0)
{
	Msg m(RTM_NEWQDISC, NLM_F_MULTI, QdiscTcm());
	m.PutStr(TCA_KIND, "lossless");
	PutOptions(m, o);
	PutStats(m, xstats, xlen);
	return m.Bytes();
}

std::string ClassDump(uint32_t minor, const void *xstats, size_t xlen)
{
	tcmsg t = QdiscTcm();
	t.tcm_handle = 0x10000 | minor;
	t.tcm_info = 0;
	Msg m(RTM_NEWTCLASS, NLM_F_MULTI, t);
	m.PutStr(TCA_KIND, "lossless");
	PutStats(m, xstats, xlen);
	return m.Bytes();
}

tc_lossless_xstats SampleQdiscXstats()
{
	tc_lossless_xstats st{};
	st.type = TC_LOSSLESS_XSTATS_QDISC;
	st.paused_mask = (1u << 3) | (1u << 5);
	st.pfc_frames_rx = 12;
	st.pause_frames_rx = 1;
	st.ctrl_invalid = 2;
	st.throttled = 345;
	st.pause_blocked = 6;
	st.rate_bps = 10000000000ULL;
	st.gates[3] = {10, 9, 1234567};	// 1.23ms
	st.gates[5] = {1, 0, 2500};		// 2.5us
	st.gates[8] = {1, 1, 3360000000ULL};	// 3.36s
	// Shaper and timer (appended with the catch-up shaper).
	st.catchup_bytes = 1250000;		// 1ms at 10gbit
	st.shaper_lost_ns = 3500000;		// 3.5ms
	st.wake_late_max_ns = 300000000;	// 300ms
	st.wake_late[0] = 1000;			// < 1024 ns
	st.wake_late[5] = 20;			// [16384, 32768) ns
	st.wake_late[10] = 3;			// [2^19, 2^20) ns
	st.wake_late[LOSSLESS_LATENESS_BUCKETS - 1] = 1;	// >= 2^28 ns
	return st;
}

tc_lossless_class_xstats SampleClassXstats()
{
	tc_lossless_class_xstats st{};
	st.type = TC_LOSSLESS_XSTATS_CLASS;
	st.paused = 1;
	st.gate_mask = (1u << 3) | (1u << 8);
	st.strict = 1;
	st.quantum_bytes = 1514;
	st.limit_pkts = 1000;
	st.pause_frames_rx = 11;
	st.paused_ns = 42000;	// 42us
	return st;
}

// A pool member's qdisc xstats (the new, longer struct).
tc_lossless_xstats SamplePoolXstats()
{
	tc_lossless_xstats st = SampleQdiscXstats();
	st.pool_port = 1;
	st.pool_ports = 3;
	st.pool_total_bytes = 1 << 20;
	st.pool_shared_size = 512 << 10;
	st.pool_shared_used = 10 << 10;
	st.pool_headroom_size = 96 << 10;
	st.pool_headroom_used = 0;
	st.pool_peak_shared = 300 << 10;
	st.pool_peak_headroom = 20 << 10;
	st.pool_drops_lossless = 0;
	st.pool_drops_lossy = 12;
	st.pfc_frames_tx = 34;
	st.ecn_marks = 0;
	st.unaccounted = 5;
	for (auto &iq : st.iq)
		iq.threshold = 512 << 10;	// lossy: egress DT applies, T_in shown
	// prio 0: lossy, dropped.
	st.iq[0].peak_bytes = 9000;
	st.iq[0].drops = 12;
	// prio 3: lossless, paused now.
	st.iq[3] = {1500, 0, 12 << 10, 3000, 0, 60 << 10, 3, 3, 12000000, 0, 1, 1};
	// prio 4: lossless, idle (shown: lossless).
	st.iq[4] = {0, 0, 12 << 10, 0, 0, 60 << 10, 0, 0, 0, 0, 0, 1};
	// prio 6: lossy, one byte queued: shown.
	st.iq[6].bytes = 1;
	return st;
}

// The watchdog nest as "wd{action=3 detect=... xoff_alarm=0}", its
// attributes in order (NLA_F_NESTED or not: the kernel dumps it without).
std::string DecodeWatchdog(const rtattr *nest)
{
	static const std::map<int, const char *> names = {
		{TCA_LOSSLESS_WD_DETECT_NS, "detect"},
		{TCA_LOSSLESS_WD_RESTORE_NS, "restore"},
		{TCA_LOSSLESS_WD_POLL_NS, "poll"},
		{TCA_LOSSLESS_WD_XOFF_ALARM_NS, "xoff_alarm"},
	};
	std::ostringstream os;
	int len = RTA_PAYLOAD(nest);
	const char *sep = "";
	os << "wd{";
	for (const rtattr *a = static_cast<const rtattr *>(RTA_DATA(nest)); RTA_OK(a, len);
	     a = RTA_NEXT(a, len), sep = " ") {
		const auto *p = static_cast<const uint8_t *>(RTA_DATA(a));
		size_t n = RTA_PAYLOAD(a);
		os << sep;
		if (a->rta_type == TCA_LOSSLESS_WD_ACTION) {
			os << "action=" << unsigned(n ? p[0] : 0) << (n == 1 ? "" : "(bad len)");
		} else if (names.count(a->rta_type)) {
			uint64_t v = 0;
			memcpy(&v, p, n == 8 ? 8 : 0);
			os << names.at(a->rta_type) << "=" << v << (n == 8 ? "" : "(bad len)");
		} else {
			os << "attr" << a->rta_type << "(len " << n << ")";
		}
	}
	os << "}";
	return os.str();
}

// A scheme's parameters' nest as "dsh{window=5000000}", by the names.
std::string DecodeSchemeParams(const rtattr *a, const char *scheme,
			       const std::map<unsigned, const char *> &names)
{
	std::ostringstream os;
	int slen = RTA_PAYLOAD(a);
	const char *sep = "";
	os << scheme << "{" << ((a->rta_type & NLA_F_NESTED) ? "" : "(no NLA_F_NESTED)");
	for (const rtattr *s = static_cast<const rtattr *>(RTA_DATA(a)); RTA_OK(s, slen);
	     s = RTA_NEXT(s, slen), sep = " ") {
		uint64_t v = 0;
		memcpy(&v, RTA_DATA(s), RTA_PAYLOAD(s) == 8 ? 8 : 0);
		auto it = names.find(s->rta_type);
		os << sep << (it == names.end() ? "attr" + std::to_string(s->rta_type) : it->second)
		   << "=" << v << (RTA_PAYLOAD(s) == 8 ? "" : "(bad len)");
	}
	os << "}";
	return os.str();
}

// The scheme nest as "scheme{id=1 st{threshold=102400}}".
std::string DecodeScheme(const rtattr *nest)
{
	std::ostringstream os;
	int len = RTA_PAYLOAD(nest);
	const char *sep = "";
	os << "scheme{";
	for (const rtattr *a = static_cast<const rtattr *>(RTA_DATA(nest)); RTA_OK(a, len);
	     a = RTA_NEXT(a, len), sep = " ") {
		const auto *p = static_cast<const uint8_t *>(RTA_DATA(a));
		size_t n = RTA_PAYLOAD(a);
		os << sep;
		if ((a->rta_type & NLA_TYPE_MASK) == TCA_LOSSLESS_SCHEME_ID) {
			os << "id=" << unsigned(n ? p[0] : 0) << (n == 1 ? "" : "(bad len)");
		} else if ((a->rta_type & NLA_TYPE_MASK) == TCA_LOSSLESS_SCHEME_ST) {
			int slen = RTA_PAYLOAD(a);
			os << "st{" << ((a->rta_type & NLA_F_NESTED) ? "" : "(no NLA_F_NESTED)");
			for (const rtattr *s = static_cast<const rtattr *>(RTA_DATA(a)); RTA_OK(s, slen);
			     s = RTA_NEXT(s, slen)) {
				uint64_t v = 0;
				memcpy(&v, RTA_DATA(s), RTA_PAYLOAD(s) == 8 ? 8 : 0);
				if (s->rta_type == TCA_LOSSLESS_ST_THRESHOLD_BYTES)
					os << "threshold=" << v;
				else
					os << "attr" << s->rta_type;
			}
			os << "}";
		} else if ((a->rta_type & NLA_TYPE_MASK) == TCA_LOSSLESS_SCHEME_DSH) {
			os << DecodeSchemeParams(a, "dsh",
						 {{TCA_LOSSLESS_DSH_WINDOW_NS, "window"},
						  {TCA_LOSSLESS_DSH_EWMA_SHIFT, "ewma_shift"},
						  {TCA_LOSSLESS_DSH_DEVIATION_GAIN, "gain"},
						  {TCA_LOSSLESS_DSH_FLAGS, "flags"}});
		} else if ((a->rta_type & NLA_TYPE_MASK) == TCA_LOSSLESS_SCHEME_SPFC) {
			os << DecodeSchemeParams(a, "spfc",
						 {{TCA_LOSSLESS_SPFC_TC_NS, "tc"},
						  {TCA_LOSSLESS_SPFC_IRC_TH_BYTES, "irc_th"},
						  {TCA_LOSSLESS_SPFC_IRC_TH_PACKETS, "irc_th_packets"},
						  {TCA_LOSSLESS_SPFC_VICTIM_THRESHOLD_BYTES, "victim"},
						  {TCA_LOSSLESS_SPFC_FLAGS, "flags"},
						  {TCA_LOSSLESS_SPFC_K, "k"}});
		} else {
			os << "attr" << a->rta_type << "(len " << n << ")";
		}
	}
	os << "}" << ((nest->rta_type & NLA_F_NESTED) ? "" : "(no NLA_F_NESTED)");
	return os.str();
}

// The mode nest as "mode{id=1 bifrost{rtt=40000000}}".
std::string DecodeMode(const rtattr *nest)
{
	std::ostringstream os;
	int len = RTA_PAYLOAD(nest);
	const char *sep = "";
	os << "mode{";
	for (const rtattr *a = static_cast<const rtattr *>(RTA_DATA(nest)); RTA_OK(a, len);
	     a = RTA_NEXT(a, len), sep = " ") {
		const auto *p = static_cast<const uint8_t *>(RTA_DATA(a));
		size_t n = RTA_PAYLOAD(a);
		os << sep;
		if ((a->rta_type & NLA_TYPE_MASK) == TCA_LOSSLESS_MODE_ID)
			os << "id=" << unsigned(n ? p[0] : 0) << (n == 1 ? "" : "(bad len)");
		else if ((a->rta_type & NLA_TYPE_MASK) == TCA_LOSSLESS_MODE_BIFROST)
			os << DecodeSchemeParams(a, "bifrost",
						 {{TCA_LOSSLESS_BIFROST_RTT_NS, "rtt"},
						  {TCA_LOSSLESS_BIFROST_SLOT_NS, "slot"},
						  {TCA_LOSSLESS_BIFROST_JITTER_NS, "jitter"},
						  {TCA_LOSSLESS_BIFROST_BUFFER_BYTES, "buffer"},
						  {TCA_LOSSLESS_BIFROST_LEAK_PERIOD, "k"}});
		else
			os << "attr" << a->rta_type << "(len " << n << ")";
	}
	os << "}" << ((nest->rta_type & NLA_F_NESTED) ? "" : "(no NLA_F_NESTED)");
	return os.str();
}

// Decode the captured RTM_NEWQDISC requests' options as one line each:
// "rate=... burst=... queues=... strict=... priomap=a,b,.. quanta=a,b,.. limit=...".
std::vector<std::string> DecodeCapture(const std::string &data, std::string *kinds = nullptr)
{
	std::vector<std::string> res;
	size_t off = 0;
	while (off + sizeof(nlmsghdr) <= data.size()) {
		const auto *h = reinterpret_cast<const nlmsghdr *>(data.data() + off);
		if (h->nlmsg_len < sizeof(nlmsghdr) || off + h->nlmsg_len > data.size())
			break;
		off += NLMSG_ALIGN(h->nlmsg_len);
		if (kinds)
			*kinds += std::to_string(h->nlmsg_type) + " ";
		if (h->nlmsg_type != RTM_NEWQDISC)
			continue;
		int len = h->nlmsg_len - NLMSG_LENGTH(sizeof(tcmsg));
		const auto *t = static_cast<const tcmsg *>(NLMSG_DATA(h));
		std::ostringstream os;
		std::string kind;
		for (const rtattr *a = TCA_RTA(t); RTA_OK(a, len); a = RTA_NEXT(a, len)) {
			int type = a->rta_type & NLA_TYPE_MASK;
			if (type == TCA_KIND)
				kind = static_cast<const char *>(RTA_DATA(a));
			if (type != TCA_OPTIONS)
				continue;
			int olen = RTA_PAYLOAD(a);
			for (const rtattr *o = static_cast<const rtattr *>(RTA_DATA(a)); RTA_OK(o, olen);
			     o = RTA_NEXT(o, olen)) {
				const auto *p = static_cast<const uint8_t *>(RTA_DATA(o));
				size_t n = RTA_PAYLOAD(o);
				auto u32 = [&](size_t i) {
					uint32_t v;
					memcpy(&v, p + 4 * i, 4);
					return v;
				};
				switch (o->rta_type & NLA_TYPE_MASK) {
				case TCA_LOSSLESS_WATCHDOG:
					os << " " << DecodeWatchdog(o);
					break;
				case TCA_LOSSLESS_SCHEME:
					os << " " << DecodeScheme(o);
					break;
				case TCA_LOSSLESS_MODE:
					os << " " << DecodeMode(o);
					break;
				case TCA_LOSSLESS_RATE_BPS: {
					uint64_t v = 0;
					memcpy(&v, p, n == 8 ? 8 : 0);
					os << " rate=" << v << (n == 8 ? "" : "(bad len)");
					break;
				}
				case TCA_LOSSLESS_BURST_BYTES:
					os << " burst=" << u32(0) << (n == 4 ? "" : "(bad len)");
					break;
				case TCA_LOSSLESS_CATCHUP_BYTES:
					os << " catchup=" << u32(0) << (n == 4 ? "" : "(bad len)");
					break;
				case TCA_LOSSLESS_QUEUES:
					os << " queues=" << unsigned(p[0]) << (n == 1 ? "" : "(bad len)");
					break;
				case TCA_LOSSLESS_STRICT:
					os << " strict=" << unsigned(p[0]) << (n == 1 ? "" : "(bad len)");
					break;
				case TCA_LOSSLESS_PRIOMAP:
					os << " priomap=";
					for (size_t i = 0; i < n; i++)
						os << (i ? "," : "") << unsigned(p[i]);
					if (n != LOSSLESS_PRIOMAP_LEN)
						os << "(bad len)";
					break;
				case TCA_LOSSLESS_QUANTA:
					os << " quanta=";
					for (size_t i = 0; i < n / 4; i++)
						os << (i ? "," : "") << u32(i);
					if (n % 4)
						os << "(bad len)";
					break;
				case TCA_LOSSLESS_LIMIT_PKTS:
					os << " limit=" << u32(0) << (n == 4 ? "" : "(bad len)");
					break;
				case TCA_LOSSLESS_GATES: {
					char hex[16];
					os << " gates=";
					for (size_t i = 0; i < n / 4; i++) {
						snprintf(hex, sizeof(hex), "0x%x", u32(i));
						os << (i ? "," : "") << hex;
					}
					if (n % 4)
						os << "(bad len)";
					break;
				}
				case TCA_LOSSLESS_POOL: {
					std::string name(reinterpret_cast<const char *>(p), n);
					bool nul = n && name.back() == '\0';
					if (nul)
						name.pop_back();
					os << " pool=" << name << (nul && name.find('\0') == std::string::npos ? "" : "(bad string)");
					break;
				}
				case TCA_LOSSLESS_ALPHA:
				case TCA_LOSSLESS_EGRESS_ALPHA: {
					uint32_t v = u32(0);
					os << (o->rta_type == TCA_LOSSLESS_ALPHA ? " alpha=" : " egress_alpha=")
					   << (v >> 8 & 0xffff) << "/2^" << (v & 0xff)
					   << (n == 4 && !(v >> 24) ? "" : "(bad)");
					break;
				}
				case TCA_LOSSLESS_LOSSLESS_PRIOS: {
					char hex[8];
					snprintf(hex, sizeof(hex), "0x%02x", p[0]);
					os << " lossless_prios=" << hex << (n == 1 ? "" : "(bad len)");
					break;
				}
				case TCA_LOSSLESS_POOL_BYTES:
				case TCA_LOSSLESS_CABLE_DELAY_NS:
				case TCA_LOSSLESS_SW_DELAY_NS: {
					static const std::map<int, const char *> names = {
						{TCA_LOSSLESS_POOL_BYTES, "buffer"},
						{TCA_LOSSLESS_CABLE_DELAY_NS, "cable_delay"},
						{TCA_LOSSLESS_SW_DELAY_NS, "sw_delay"},
					};
					uint64_t v = 0;
					memcpy(&v, p, n == 8 ? 8 : 0);
					os << " " << names.at(o->rta_type) << "=" << v << (n == 8 ? "" : "(bad len)");
					break;
				}
				case TCA_LOSSLESS_RESERVED_BYTES:
				case TCA_LOSSLESS_XON_OFFSET_BYTES:
				case TCA_LOSSLESS_HEADROOM_BYTES:
				case TCA_LOSSLESS_ECN_KMIN_BYTES:
				case TCA_LOSSLESS_ECN_KMAX_BYTES:
				case TCA_LOSSLESS_ECN_PMAX: {
					static const std::map<int, const char *> names = {
						{TCA_LOSSLESS_RESERVED_BYTES, "reserved"},
						{TCA_LOSSLESS_XON_OFFSET_BYTES, "xon_offset"},
						{TCA_LOSSLESS_HEADROOM_BYTES, "headroom"},
						{TCA_LOSSLESS_ECN_KMIN_BYTES, "ecn_kmin"},
						{TCA_LOSSLESS_ECN_KMAX_BYTES, "ecn_kmax"},
						{TCA_LOSSLESS_ECN_PMAX, "ecn_pmax"},
					};
					os << " " << names.at(o->rta_type) << "=" << (n >= 4 ? u32(0) : 0)
					   << (n == 4 ? "" : "(bad len)");
					break;
				}
				default:
					os << " attr" << o->rta_type << "(len " << n << ")";
				}
			}
		}
		std::string s = os.str();
		res.push_back(kind + ":" + s);
	}
	return res;
}

bool KernelLacksLossless()
{
	static const bool lacks = [] {
		Result r = Tc({"qdisc", "add", "dev", "lo", "root", "lossless"});
		return r.err.find("Specified qdisc kind is unknown") != std::string::npos;
	}();
	return lacks;
}

constexpr const char *kUsage = "Usage: ... lossless [ rate RATE ]";

// The accept/reject harness: `tc qdisc VERB dev lo root lossless ARGS`
// with what tc sent to the kernel recorded by the shim.
struct Sent {
	Result r;				// tc's exit code and output
	std::vector<std::string> requests;	// DecodeCapture() of what it sent
	std::string kinds;			// the types of every message it sent
};

Sent TcQdisc(const std::string &args, const char *verb = "add")
{
	TempDir tmp;
	Args argv = {"qdisc", verb, "dev", "lo", "root", "lossless"};
	for (auto &a : Split(args))
		argv.push_back(a);
	Sent s;
	s.r = Tc(argv, Capture(tmp.File("cap")));
	s.requests = DecodeCapture(ReadFile(tmp.File("cap")), &s.kinds);
	return s;
}

// ---- parse: rejected in the plugin ---------------------------------------

struct RejectCase {
	const char *name;
	const char *args;
	const char *message;	// expected on stderr after "lossless: "
	const char *verb = "add";	// tc qdisc VERB dev lo root lossless ARGS
};

void PrintTo(const RejectCase &c, std::ostream *os) { *os << "\"" << c.args << "\""; }

class ParseReject : public ::testing::TestWithParam<RejectCase> {};

TEST_P(ParseReject, FailsInPluginWithMessageAndUsage)
{
	const RejectCase &c = GetParam();
	Sent s = TcQdisc(c.args, c.verb);
	const Result &r = s.r;
	EXPECT_EQ(r.rc, 1) << r.err;
	EXPECT_NE(r.err.find(std::string("lossless: ") + c.message), std::string::npos)
		<< "stderr was:\n" << r.err;
	EXPECT_NE(r.err.find(kUsage), std::string::npos) << r.err;
	EXPECT_EQ(r.err.find("Specified qdisc kind is unknown"), std::string::npos) << r.err;
	// Nothing went to the kernel.
	EXPECT_TRUE(s.requests.empty()) << s.kinds;
	EXPECT_EQ(s.kinds, "");
}

const RejectCase kRejects[] = {
	{"RateZero", "rate 0", "invalid rate \"0\": must be 8kbit .. 1.6tbit (8000 .. 1600000000000 bit/s)"},
	{"RateZeroUnit", "rate 0mbit", "invalid rate \"0mbit\": must be 8kbit .. 1.6tbit"},
	{"RateBelowMin", "rate 7999bit", "invalid rate \"7999bit\": must be 8kbit .. 1.6tbit"},
	{"RateAboveMax", "rate 1601gbit", "invalid rate \"1601gbit\": must be 8kbit .. 1.6tbit"},
	{"RateHuge", "rate 1e40tbit", "invalid rate \"1e40tbit\": must be 8kbit .. 1.6tbit"},
	{"RateU64Overflow", "rate 18446744073709551616bit", "invalid rate \"18446744073709551616bit\": must be"},
	{"RateNegative", "rate -10mbit", "invalid rate \"-10mbit\": must be 8kbit .. 1.6tbit"},
	{"RateNotANumber", "rate fast", "invalid rate \"fast\": must be 8kbit .. 1.6tbit"},
	{"RateInf", "rate inf", "invalid rate \"inf\": must be"},
	{"RateUnknownUnit", "rate 10furlongs", "invalid rate \"10furlongs\": unknown unit \"furlongs\""},
	// tc's units are case-insensitive: "gbps" would be gigaBYTES per second.
	{"RateAmbiguousBps", "rate 10gbps", "invalid rate \"10gbps\": \"gbps\" is ambiguous: write gbit for bits/s or gBps for bytes/s"},
	{"RateAmbiguousBpsPlain", "rate 10000bps", "invalid rate \"10000bps\": \"bps\" is ambiguous: write bit for bits/s or Bps for bytes/s"},
	{"RateMissing", "rate", "option \"rate\" needs a value"},
	{"RateDuplicate", "rate 1gbit rate 2gbit", "duplicate \"rate\""},
	{"BurstTooSmall", "burst 63", "invalid burst \"63\": must be 64 .. 1073741824 bytes"},
	{"BurstTooLarge", "burst 1073741825", "invalid burst \"1073741825\": must be 64 .. 1073741824 bytes"},
	{"BurstU32Overflow", "burst 5gb", "invalid burst \"5gb\": must be 64 .. 1073741824 bytes"},
	{"BurstNegative", "burst -100", "invalid burst \"-100\": must be 64 .. 1073741824 bytes"},
	{"BurstBadUnit", "burst 10parsecs", "invalid burst \"10parsecs\""},
	{"BurstMissing", "burst", "option \"burst\" needs a value"},
	{"BurstDuplicate", "burst 64kb burst 64kb", "duplicate \"burst\""},
	// catchup: burst's units and range, not below a burst on the same line.
	{"CatchupTooSmall", "catchup 63", "invalid catchup \"63\": must be 64 .. 1073741824 bytes (tc size units b, kb, mb, gb: 64b .. 1gb)"},
	{"CatchupZero", "catchup 0", "invalid catchup \"0\": must be 64 .. 1073741824 bytes"},
	{"CatchupTooLarge", "catchup 1073741825", "invalid catchup \"1073741825\": must be 64 .. 1073741824 bytes"},
	{"CatchupAboveMaxUnit", "catchup 1025mb", "invalid catchup \"1025mb\": must be 64 .. 1073741824 bytes"},
	{"CatchupU32Overflow", "catchup 5gb", "invalid catchup \"5gb\": must be 64 .. 1073741824 bytes"},
	{"CatchupNegative", "catchup -100", "invalid catchup \"-100\": must be 64 .. 1073741824 bytes"},
	{"CatchupBadUnit", "catchup 10parsecs", "invalid catchup \"10parsecs\": must be 64 .. 1073741824 bytes"},
	{"CatchupTime", "catchup 4ms", "invalid catchup \"4ms\": must be 64 .. 1073741824 bytes"},
	{"CatchupEmpty", "catchup <empty>", "invalid catchup \"\": must be 64 .. 1073741824 bytes"},
	{"CatchupMissing", "catchup", "option \"catchup\" needs a value"},
	{"CatchupMissingBeforeKeyword", "rate 10gbit catchup", "option \"catchup\" needs a value"},
	{"CatchupDuplicate", "catchup 1mb catchup 2mb", "duplicate \"catchup\""},
	{"CatchupDuplicateSame", "catchup 1mb burst 64kb catchup 1mb", "duplicate \"catchup\""},
	{"CatchupBelowBurst", "burst 64kb catchup 65535", "invalid catchup 65535: must be 65536 .. 1073741824 bytes (at least burst 65536)"},
	{"CatchupBelowBurstBefore", "catchup 1514 burst 3028", "invalid catchup 1514: must be 3028 .. 1073741824 bytes (at least burst 3028)"},
	{"CatchupBelowBurstUnits", "rate 10gbit catchup 1kb burst 1mb", "invalid catchup 1024: must be 1048576 .. 1073741824 bytes (at least burst 1048576)"},
	{"CatchupBelowMaxBurst", "burst 1gb catchup 1023mb", "invalid catchup 1072693248: must be 1073741824 .. 1073741824 bytes (at least burst 1073741824)"},
	{"CatchupKeywordIsCaseSensitive", "Catchup 1mb", "unknown option \"Catchup\""},
	{"CatchUpSpelledApart", "catch-up 1mb", "unknown option \"catch-up\""},
	{"QueuesZero", "queues 0", "invalid queues \"0\": must be an integer 1 .. 64"},
	{"QueuesTooMany", "queues 65", "invalid queues \"65\": must be an integer 1 .. 64"},
	{"QueuesU8Wrap", "queues 264", "invalid queues \"264\": must be an integer 1 .. 64"},
	{"QueuesNotInteger", "queues 4.5", "invalid queues \"4.5\": must be an integer 1 .. 64"},
	{"QueuesHex", "queues 0x8", "invalid queues \"0x8\": must be an integer 1 .. 64"},
	{"QueuesMissing", "queues", "option \"queues\" needs a value"},
	{"QueuesDuplicate", "queues 4 queues 4", "duplicate \"queues\""},
	{"StrictAboveMax", "strict 65", "invalid strict \"65\": must be an integer 0 .. 64"},
	{"StrictAboveQueues", "queues 4 strict 5", "invalid strict 5: must be 0 .. 4 (at most queues 4)"},
	{"StrictAboveQueuesAfter", "strict 5 queues 4", "invalid strict 5: must be 0 .. 4 (at most queues 4)"},
	{"StrictNegative", "strict -1", "invalid strict \"-1\": must be an integer 0 .. 64"},
	{"StrictMissing", "strict", "option \"strict\" needs a value"},
	{"LimitZero", "limit 0", "invalid limit \"0\": must be an integer 1 .. 1048576 packets per queue"},
	{"LimitAboveMax", "limit 1048577", "invalid limit \"1048577\": must be an integer 1 .. 1048576"},
	{"LimitU32Overflow", "limit 4294967296", "invalid limit \"4294967296\": must be an integer 1 .. 1048576"},
	{"LimitHugeOverflow", "limit 99999999999", "invalid limit \"99999999999\": must be an integer 1 .. 1048576"},
	{"LimitU64Overflow", "limit 99999999999999999999999", "invalid limit \"99999999999999999999999\": must be"},
	{"LimitWithUnit", "limit 100p", "invalid limit \"100p\": must be an integer 1 .. 1048576"},
	{"LimitMissing", "limit", "option \"limit\" needs a value"},
	{"LimitDuplicate", "limit 5 limit 6", "duplicate \"limit\""},
	{"QuantaZero", "quanta 1514 0", "invalid quanta entry \"0\" for queue 1: must be an integer 1 .. 16777216 bytes"},
	{"QuantumTooLarge", "quanta 16777217", "invalid quanta entry \"16777217\" for queue 0: must be an integer 1 .. 16777216"},
	{"QuantumNegative", "quanta -1", "invalid quanta entry \"-1\" for queue 0"},
	{"QuantaMoreThanQueues", "queues 2 quanta 1514 1514 1514", "too many quanta: 3 given, at most one per queue (queues 2)"},
	{"QuantaMoreThanQueuesAfter", "quanta 1514 1514 1514 queues 2", "too many quanta: 3 given, at most one per queue (queues 2)"},
	{"QuantaMoreThan64",
	 "quanta 1 1 1 1 1 1 1 1 1 1 1 1 1 1 1 1 1 1 1 1 1 1 1 1 1 1 1 1 1 1 1 1 "
	 "1 1 1 1 1 1 1 1 1 1 1 1 1 1 1 1 1 1 1 1 1 1 1 1 1 1 1 1 1 1 1 1 1",
	 "too many quanta: at most 64 values (one per queue)"},
	{"QuantaMissing", "quanta", "option \"quanta\" needs a value"},
	{"QuantaMissingBeforeKeyword", "quanta limit 5", "option \"quanta\" needs a value"},
	{"QuantaDuplicate", "quanta 1 quanta 2", "duplicate \"quanta\""},
	{"PriomapEntryAboveQueues", "queues 4 priomap 0 1 2 4", "invalid priomap entry 4 for priority 3: must be a queue index 0 .. 3 (queues 4)"},
	{"PriomapEntryAboveQueuesAfter", "priomap 7 queues 4", "invalid priomap entry 7 for priority 0: must be a queue index 0 .. 3 (queues 4)"},
	{"PriomapEntryAbove63", "priomap 0 64", "invalid priomap entry \"64\" for priority 1: must be a queue index 0 .. 63"},
	{"PriomapEntryU8Wrap", "priomap 256", "invalid priomap entry \"256\" for priority 0"},
	{"PriomapTooMany", "priomap 0 1 2 3 4 5 6 7 0 1 2 3 4 5 6 7 0", "too many priomap entries: at most 16 (skb->priority 0 .. 15)"},
	{"PriomapMissing", "priomap", "option \"priomap\" needs a value"},
	{"GatesMissing", "gates", "option \"gates\" needs a value"},
	{"GatesNotAnEntry", "gates 4", "invalid gates entry \"4\": must be QUEUE:GATE[,GATE...] (e.g. 4:3,port) or \"default\""},
	{"GatesQueueAbove63", "gates 64:3", "invalid gates entry \"64:3\": the queue must be an index 0 .. 63"},
	{"GatesQueueNotANumber", "gates q:3", "invalid gates entry \"q:3\": the queue must be an index 0 .. 63"},
	{"GatesGateAbove23", "gates 1:24", "invalid gate \"24\" for queue 1: must be a gate id 0 .. 23 (0 .. 7 the PFC priorities, port or 8 the port, 9 .. 23 free)"},
	{"GatesGateNotANumber", "gates 1:3,x", "invalid gate \"x\" for queue 1"},
	{"GatesNoGate", "gates 1:", "invalid gates entry \"1:\": name at least one gate"},
	{"GatesQueueTwice", "gates 1:3 1:4", "invalid gates entry \"1:4\": queue 1 listed twice"},
	{"GatesQueueAboveQueues", "queues 4 gates 4:3", "invalid gates entry for queue 4: must be a queue index 0 .. 3 (queues 4)"},
	{"GatesDuplicate", "gates 1:3 gates 2:3", "duplicate \"gates\""},
	{"PriomapDuplicate", "priomap 0 priomap 0", "duplicate \"priomap\""},
	{"UnknownKeyword", "foo", "unknown option \"foo\""},
	{"UnknownKeywordAfterList", "quanta 1514 1514 limt 5", "unknown option \"limt\""},
	{"TbfStyleKeyword", "rate 1gbit latency 50ms", "unknown option \"latency\""},
	{"KeywordsAreCaseSensitive", "RATE 1gbit", "unknown option \"RATE\""},
	{"EmptyValue", "limit <empty>", "invalid limit \"\": must be an integer 1 .. 1048576"},
	{"EmptyRate", "rate <empty>", "invalid rate \"\": must be 8kbit .. 1.6tbit"},
	// Shared-buffer pool options.
	{"PoolEmpty", "pool <empty>", "invalid pool \"\": the name must be 1 .. 15 characters of A-Z a-z 0-9 _ . -"},
	{"PoolTooLong", "pool abcdefghijklmnop", "invalid pool \"abcdefghijklmnop\": the name must be 1 .. 15 characters"},
	{"PoolBadChar", "pool sw/0", "invalid pool \"sw/0\": character 3 ('/') is not allowed: the name must be 1 .. 15 characters of A-Z a-z 0-9 _ . -"},
	{"PoolNonAscii", "pool sw\xc3\xa9", "invalid pool \"sw\xc3\xa9\": character 3 ('?') is not allowed"},
	{"PoolMissing", "pool", "option \"pool\" needs a value"},
	{"PoolDuplicate", "pool a pool b", "duplicate \"pool\""},
	{"BufferZero", "buffer 0", "invalid buffer \"0\": must be 1 .. 1099511627776 bytes (tc size units b, kb, mb, gb"},
	{"BufferZeroUnit", "buffer 0mb", "invalid buffer \"0mb\": must be 1 .. 1099511627776 bytes"},
	{"BufferAboveMax", "buffer 1025gb", "invalid buffer \"1025gb\": must be 1 .. 1099511627776 bytes"},
	{"BufferAboveMaxByOne", "buffer 1099511627777", "invalid buffer \"1099511627777\": must be 1 .. 1099511627776"},
	{"BufferHuge", "buffer 1e300", "invalid buffer \"1e300\": must be 1 .. 1099511627776"},
	{"BufferFractionalBytes", "buffer 1.5", "invalid buffer \"1.5\": must be"},
	{"BufferNegative", "buffer -1mb", "invalid buffer \"-1mb\": must be"},
	{"BufferHex", "buffer 0x100000", "invalid buffer \"0x100000\": must be"},
	{"BufferBadUnit", "buffer 4tb", "invalid buffer \"4tb\": must be"},
	{"AlphaDenominatorNotPowerOfTwo", "alpha 1/6", "invalid alpha \"1/6\": the denominator must be a power of two 1 .. 4294967296 = 2^32 (NUM or NUM/DEN: 1/8, 3/4, 2)"},
	{"AlphaDenominatorZero", "alpha 1/0", "invalid alpha \"1/0\": the denominator must be a power of two 1 .. 4294967296"},
	{"AlphaDenominatorAbove2To32", "alpha 1/8589934592", "invalid alpha \"1/8589934592\": the denominator must be a power of two 1 .. 4294967296"},
	{"AlphaDenominatorMissing", "alpha 1/", "invalid alpha \"1/\": the denominator must be"},
	{"AlphaNumeratorZero", "alpha 0/8", "invalid alpha \"0/8\": the numerator must be an integer 1 .. 65535 (NUM or NUM/DEN: 1/8, 3/4, 2)"},
	{"AlphaNumeratorAboveMax", "alpha 65536", "invalid alpha \"65536\": the numerator must be an integer 1 .. 65535"},
	{"AlphaNumeratorMissing", "alpha /8", "invalid alpha \"/8\": the numerator must be"},
	{"AlphaDecimal", "alpha 0.125", "invalid alpha \"0.125\": the numerator must be"},
	{"AlphaNegative", "alpha -1/8", "invalid alpha \"-1/8\": the numerator must be"},
	{"AlphaWord", "alpha half", "invalid alpha \"half\": the numerator must be"},
	{"AlphaDuplicate", "alpha 1/8 alpha 1/4", "duplicate \"alpha\""},
	{"EgressAlphaBad", "egress-alpha 3/5", "invalid egress-alpha \"3/5\": the denominator must be a power of two"},
	{"EgressAlphaZero", "egress-alpha 0", "invalid egress-alpha \"0\": the numerator must be an integer 1 .. 65535"},
	{"EgressAlphaMissing", "egress-alpha", "option \"egress-alpha\" needs a value"},
	{"LosslessPriosAbove7", "lossless-prios 3,8", "invalid lossless-prios \"3,8\": must be a comma list of priorities 0 .. 7 (e.g. 3,4) or none"},
	{"LosslessPriosEmptyEntry", "lossless-prios 3,,4", "invalid lossless-prios \"3,,4\": must be a comma list"},
	{"LosslessPriosTrailingComma", "lossless-prios 3,", "invalid lossless-prios \"3,\": must be a comma list"},
	{"LosslessPriosNegative", "lossless-prios -1", "invalid lossless-prios \"-1\": must be a comma list"},
	{"LosslessPriosSpaces", "lossless-prios 3 4", "unknown option \"4\""},
	{"LosslessPriosMultiDigit", "lossless-prios 03", "invalid lossless-prios \"03\": must be a comma list"},
	{"LosslessPriosEmpty", "lossless-prios <empty>", "invalid lossless-prios \"\": must be a comma list"},
	{"ReservedAboveU32", "reserved 4gb", "invalid reserved \"4gb\": must be 0 .. 4294967295 bytes"},
	{"ReservedBadUnit", "reserved 1514p", "invalid reserved \"1514p\": must be 0 .. 4294967295 bytes"},
	{"XonOffsetNegative", "xon-offset -3kb", "invalid xon-offset \"-3kb\": must be 0 .. 4294967295 bytes"},
	{"XonOffsetDuplicate", "xon-offset 3kb xon-offset 3kb", "duplicate \"xon-offset\""},
	{"HeadroomAboveU32", "headroom 5gb", "invalid headroom \"5gb\": must be 0 .. 4294967295 bytes"},
	{"CableDelayNoUnit", "cable-delay 5", "invalid cable-delay \"5\": must be a time 0 .. 1s with a unit ns, us, ms or s (5us, 1ms)"},
	{"CableDelayAboveMax", "cable-delay 1001ms", "invalid cable-delay \"1001ms\": must be a time 0 .. 1s"},
	{"CableDelayBadUnit", "cable-delay 5parsecs", "invalid cable-delay \"5parsecs\": must be a time"},
	{"CableDelayNegative", "cable-delay -1us", "invalid cable-delay \"-1us\": must be a time"},
	{"CableDelayHuge", "cable-delay 1e300s", "invalid cable-delay \"1e300s\": must be a time"},
	{"SwDelayAboveMax", "sw-delay 2s", "invalid sw-delay \"2s\": must be a time 0 .. 1s"},
	{"SwDelayMissing", "sw-delay", "option \"sw-delay\" needs a value"},
	{"EcnKminNotBelowKmax", "ecn 100kb 30kb 0.2", "invalid ecn \"100kb 30kb\": KMIN (102400 bytes) must be below KMAX (30720 bytes)"},
	{"EcnKminEqualsKmax", "ecn 30kb 30720 0.2", "invalid ecn \"30kb 30720\": KMIN (30720 bytes) must be below KMAX (30720 bytes)"},
	{"EcnKminAboveU32", "ecn 4gb 5gb 0.2", "invalid ecn KMIN \"4gb\": must be 0 .. 4294967295 bytes (tc size units b, kb, mb, gb)"},
	{"EcnKmaxZero", "ecn 0 0 0.2", "invalid ecn KMAX \"0\": must be 1 .. 4294967295 bytes"},
	{"EcnKmaxAboveU32", "ecn 1kb 4gb 0.2", "invalid ecn KMAX \"4gb\": must be 1 .. 4294967295 bytes"},
	{"EcnKminBad", "ecn 1x 2kb 0.2", "invalid ecn KMIN \"1x\": must be 0 .. 4294967295 bytes"},
	{"EcnPmaxAboveOne", "ecn 10kb 20kb 1.5", "invalid ecn PMAX \"1.5\": must be a probability 0 .. 1 written as a decimal (0.2)"},
	{"EcnPmaxJustAboveOne", "ecn 10kb 20kb 1.00001", "invalid ecn PMAX \"1.00001\": must be a probability 0 .. 1"},
	{"EcnPmaxPercent", "ecn 10kb 20kb 20%", "invalid ecn PMAX \"20%\": must be a probability 0 .. 1"},
	{"EcnPmaxNegative", "ecn 10kb 20kb -0.1", "invalid ecn PMAX \"-0.1\": must be a probability"},
	{"EcnPmaxExponent", "ecn 10kb 20kb 2e-1", "invalid ecn PMAX \"2e-1\": must be a probability"},
	{"EcnPmaxDot", "ecn 10kb 20kb .", "invalid ecn PMAX \".\": must be a probability"},
	{"EcnTooFewValues", "ecn 10kb 20kb", "option \"ecn\" needs KMIN KMAX PMAX (or \"off\")"},
	{"EcnMissing", "ecn", "option \"ecn\" needs a value"},
	{"EcnOffIsOneValue", "ecn off 0.2", "unknown option \"0.2\""},
	{"EcnDuplicate", "ecn off ecn 1kb 2kb 1", "duplicate \"ecn\""},
	{"PoolKeywordsAreCaseSensitive", "Pool sw0", "unknown option \"Pool\""},
	// A change or replace may address a pool member: there only "plane
	// auto" needs the pool's name.
	{"PlaneAutoNeedsPool", "plane auto", "\"plane auto\" needs \"pool NAME\" to name the path", "replace"},
	{"PlaneAutoNeedsPoolOnAdd", "plane auto", "option \"plane\" needs \"pool NAME\""},
	// "add" makes a new qdisc, in a pool only with "pool": every option
	// that needs one is refused without it, by name, before anything is
	// pinned or sent.
	{"BufferNeedsPool", "rate 1gbit buffer 4mb", "option \"buffer\" needs \"pool NAME\""},
	{"AlphaNeedsPool", "alpha 1/8", "option \"alpha\" needs \"pool NAME\""},
	{"EgressAlphaNeedsPool", "egress-alpha 1", "option \"egress-alpha\" needs \"pool NAME\""},
	{"LosslessPriosNeedsPool", "lossless-prios 3", "option \"lossless-prios\" needs \"pool NAME\""},
	{"ReservedNeedsPool", "reserved 1514", "option \"reserved\" needs \"pool NAME\""},
	{"XonOffsetNeedsPool", "xon-offset 3kb", "option \"xon-offset\" needs \"pool NAME\""},
	{"CableDelayNeedsPool", "cable-delay 1us", "option \"cable-delay\" needs \"pool NAME\""},
	{"SwDelayNeedsPool", "sw-delay 1ms", "option \"sw-delay\" needs \"pool NAME\""},
	{"HeadroomNeedsPool", "headroom 96kb", "option \"headroom\" needs \"pool NAME\""},
	{"EcnNeedsPool", "ecn 30kb 100kb 0.2", "option \"ecn\" needs \"pool NAME\""},
	{"EcnOffNeedsPool", "ecn off", "option \"ecn\" needs \"pool NAME\""},
	{"PlanePathNeedsPool", "plane /sys/fs/bpf/ll-tc-test/plane", "option \"plane\" needs \"pool NAME\""},
	{"NeedsPoolNamesTheFirst", "limit 5 sw-delay 1ms buffer 4mb", "option \"sw-delay\" needs \"pool NAME\""},
	// One rule with losslessd's lossless_prios: each priority once.
	{"LosslessPriosRepeated", "pool p lossless-prios 3,3", "invalid lossless-prios \"3,3\": priority 3 is listed twice"},
	{"LosslessPriosRepeatedApart", "pool p lossless-prios 3,4,3", "invalid lossless-prios \"3,4,3\": priority 3 is listed twice"},
	{"LosslessPriosRepeatedOnChange", "lossless-prios 0,0", "invalid lossless-prios \"0,0\": priority 0 is listed twice", "change"},
	{"PlaneRelativePath", "pool p plane x/y", "invalid plane \"x/y\": must be auto or an absolute path on bpffs"},
	{"PlaneMissing", "pool p plane", "option \"plane\" needs a value"},
	{"PlaneDuplicate", "pool p plane /a plane /b", "duplicate \"plane\""},
	{"SchemeUnknown", "pool p scheme bogus", "invalid scheme \"bogus\": one of dt, st, dsh, spfc"},
	{"SchemeIsCaseSensitive", "pool p scheme ST", "invalid scheme \"ST\": one of dt, st, dsh, spfc"},
	// DSH's and SPFC's parameters: ranges, names, another scheme's.
	{"DshWindowWithoutScheme", "pool p dsh-window 5ms",
	 "option \"dsh-window\" needs \"scheme dsh\" in the same command"},
	{"DshWindowOfAnotherScheme", "pool p scheme spfc dsh-window 5ms",
	 "option \"dsh-window\" is a parameter of scheme dsh, not spfc"},
	{"SpfcWindowOfAnotherScheme", "pool p scheme dsh spfc-window 5ms",
	 "option \"spfc-window\" is a parameter of scheme spfc, not dsh"},
	{"StThresholdOfDsh", "pool p scheme dsh st-threshold 1kb",
	 "option \"st-threshold\" is a parameter of scheme st, not dsh"},
	{"DshWindowZero", "pool p scheme dsh dsh-window 0ns",
	 "invalid dsh-window \"0ns\": must be a time 1ns .. 10s"},
	{"DshWindowAboveMax", "pool p scheme dsh dsh-window 11s",
	 "invalid dsh-window \"11s\": must be a time 1ns .. 10s"},
	{"DshWindowNoUnit", "pool p scheme dsh dsh-window 5", "invalid dsh-window \"5\""},
	{"DshEwmaShiftZero", "pool p scheme dsh dsh-ewma-shift 0",
	 "invalid dsh-ewma-shift \"0\": must be an integer 1 .. 8"},
	{"DshEwmaShiftAboveMax", "pool p scheme dsh dsh-ewma-shift 9",
	 "invalid dsh-ewma-shift \"9\": must be an integer 1 .. 8"},
	{"DshGainAboveMax", "pool p scheme dsh dsh-gain 17",
	 "invalid dsh-gain \"17\": must be an integer 1 .. 16"},
	{"DshGainNegative", "pool p scheme dsh dsh-gain -1", "invalid dsh-gain \"-1\""},
	{"DshGainFraction", "pool p scheme dsh dsh-gain 2.5", "invalid dsh-gain \"2.5\""},
	{"DshVariantUnknown", "pool p scheme dsh dsh-variant sih",
	 "invalid dsh-variant \"sih\": must be dsh, or a comma list of no-shared-headroom, "
	 "no-insurance, static-tau (not no-shared-headroom with static-tau)"},
	{"DshVariantRefusedPair", "pool p scheme dsh dsh-variant no-shared-headroom,static-tau",
	 "invalid dsh-variant \"no-shared-headroom,static-tau\": no-shared-headroom,static-tau do "
	 "not go together"},
	{"DshVariantTwice", "pool p scheme dsh dsh-variant no-insurance,no-insurance",
	 "invalid dsh-variant \"no-insurance,no-insurance\""},
	{"DshVariantDshInAList", "pool p scheme dsh dsh-variant dsh,no-insurance",
	 "invalid dsh-variant \"dsh,no-insurance\""},
	{"DshWindowDuplicate", "pool p scheme dsh dsh-window 1ms dsh-window 2ms",
	 "duplicate \"dsh-window\""},
	{"SpfcWindowBelowMin", "pool p scheme spfc spfc-window 9us",
	 "invalid spfc-window \"9us\": must be a time 10us .. 1s"},
	{"SpfcWindowAboveMax", "pool p scheme spfc spfc-window 2s",
	 "invalid spfc-window \"2s\": must be a time 10us .. 1s"},
	{"SpfcKZero", "pool p scheme spfc spfc-k 0",
	 "invalid spfc-k \"0\": must be an integer 1 .. 1000"},
	{"SpfcKNegative", "pool p scheme spfc spfc-k -5",
	 "invalid spfc-k \"-5\": must be an integer 1 .. 1000"},
	{"SpfcKFraction", "pool p scheme spfc spfc-k 0.5",
	 "invalid spfc-k \"0.5\": must be an integer 1 .. 1000"},
	{"SpfcKNan", "pool p scheme spfc spfc-k nan",
	 "invalid spfc-k \"nan\": must be an integer 1 .. 1000"},
	{"SpfcKInf", "pool p scheme spfc spfc-k inf",
	 "invalid spfc-k \"inf\": must be an integer 1 .. 1000"},
	{"SpfcKAboveMax", "pool p scheme spfc spfc-k 1001",
	 "invalid spfc-k \"1001\": must be an integer 1 .. 1000"},
	{"SpfcIrcThAboveMax", "pool p scheme spfc spfc-irc-th 4gb", "invalid spfc-irc-th \"4gb\""},
	{"SpfcIrcThPacketsAboveMax", "pool p scheme spfc spfc-irc-th-packets 4294967296",
	 "invalid spfc-irc-th-packets \"4294967296\": must be an integer 0 .. 4294967295"},
	{"SpfcVictimAboveMax", "pool p scheme spfc spfc-victim-threshold 2048gb",
	 "invalid spfc-victim-threshold \"2048gb\""},
	{"SpfcModeUnknown", "pool p scheme spfc spfc-mode fast",
	 "invalid spfc-mode \"fast\": must be irc, or a comma list of window-end, daemon"},
	{"SchemeMissing", "pool p scheme", "option \"scheme\" needs a value"},
	{"SchemeDuplicate", "pool p scheme st scheme dt", "duplicate \"scheme\""},
	{"SchemeNeedsPool", "scheme st", "option \"scheme\" needs \"pool NAME\""},
	{"StThresholdWithoutScheme", "pool p st-threshold 1kb",
	 "option \"st-threshold\" needs \"scheme st\" in the same command"},
	{"StThresholdOfAnotherScheme", "pool p scheme dt st-threshold 1kb",
	 "option \"st-threshold\" is a parameter of scheme st, not dt"},
	{"StThresholdAboveMax", "pool p scheme st st-threshold 2048gb", "invalid st-threshold \"2048gb\""},
	{"PlaneNotOnBpffs", "pool p plane /proc/ll-no-such-dir/plane", "plane: cannot pin the plane map at /proc/ll-no-such-dir/plane"},
};

INSTANTIATE_TEST_SUITE_P(Tc, ParseReject, ::testing::ValuesIn(kRejects),
			 [](const auto &info) { return std::string(info.param.name); });

// ---- parse: accepted and sent to the kernel ------------------------------

struct AcceptCase {
	const char *name;
	const char *args;
	const char *attrs;	// DecodeCapture() of the request, after "lossless:"
	// tc qdisc VERB: options that need a pool, given without "pool", are
	// for a pool member (change or replace); "add" refuses them.
	const char *verb = "add";
};

void PrintTo(const AcceptCase &c, std::ostream *os) { *os << "\"" << c.args << "\""; }

class ParseAccept : public ::testing::TestWithParam<AcceptCase> {};

TEST_P(ParseAccept, ReachesKernelWithAttributes)
{
	const AcceptCase &c = GetParam();
	Sent s = TcQdisc(c.args, c.verb);
	const Result &r = s.r;
	EXPECT_EQ(r.err.find("lossless: "), std::string::npos) << r.err;
	EXPECT_EQ(r.err.find("Usage:"), std::string::npos) << r.err;
	if (KernelLacksLossless()) {
		EXPECT_EQ(r.rc, 2) << r.err;
		EXPECT_NE(r.err.find("Error: Specified qdisc kind is unknown."), std::string::npos)
			<< r.err;
	}
	const std::vector<std::string> &sent = s.requests;
	ASSERT_EQ(sent.size(), 1u) << r.err;
	EXPECT_EQ(sent[0], std::string("lossless:") + (*c.attrs ? " " : "") + c.attrs);
}

const AcceptCase kAccepts[] = {
	{"NoOptions", "", ""},
	{"Rate10gbit", "rate 10gbit", "rate=10000000000"},
	{"Rate100mbit", "rate 100mbit", "rate=100000000"},
	{"Rate25Gbit", "rate 25Gbit", "rate=25000000000"},
	{"RateMin", "rate 8kbit", "rate=8000"},
	{"RateMax", "rate 1.6tbit", "rate=1600000000000"},
	{"RateMaxInBits", "rate 1600000000000", "rate=1600000000000"},
	{"RateBytesPerSecond", "rate 1GBps", "rate=8000000000"},
	{"RateBytesPerSecondPlain", "rate 125000Bps", "rate=1000000"},
	{"RateIec", "rate 1Gibit", "rate=1073741824"},
	{"RateFraction", "rate 2.5gbit", "rate=2500000000"},
	{"RateRoundedToBytes", "rate 8001bit", "rate=8000"},
	{"BurstBytes", "burst 1514", "burst=1514"},
	{"BurstMin", "burst 64", "burst=64"},
	{"BurstKb", "burst 64kb", "burst=65536"},
	{"BurstMax", "burst 1gb", "burst=1073741824"},
	{"BurstSuffixB", "burst 30000b", "burst=30000"},
	{"CatchupBytes", "catchup 1250000", "catchup=1250000"},
	{"CatchupMin", "catchup 64", "catchup=64"},
	{"CatchupSuffixB", "catchup 30000b", "catchup=30000"},
	{"CatchupKb", "catchup 512kb", "catchup=524288"},
	{"CatchupMb", "catchup 4mb", "catchup=4194304"},
	{"CatchupMbit", "catchup 8mbit", "catchup=1048576"},
	{"CatchupFraction", "catchup 1.5mb", "catchup=1572864"},
	{"CatchupMax", "catchup 1gb", "catchup=1073741824"},
	{"CatchupMaxBytes", "catchup 1073741824", "catchup=1073741824"},
	{"CatchupEqualsBurst", "burst 64kb catchup 65536", "burst=65536 catchup=65536"},
	{"CatchupAboveBurst", "catchup 4mb burst 64kb", "burst=65536 catchup=4194304"},
	{"CatchupMaxWithMaxBurst", "burst 1gb catchup 1gb", "burst=1073741824 catchup=1073741824"},
	// Without "burst" the qdisc's burst is unknown here: the kernel raises
	// a smaller catch-up to it.
	{"CatchupWithoutBurstLeftToKernel", "rate 10gbit catchup 64", "rate=10000000000 catchup=64"},
	{"Queues1", "queues 1", "queues=1"},
	{"Queues64Strict64", "queues 64 strict 64", "queues=64 strict=64"},
	{"StrictZero", "strict 0", "strict=0"},
	{"GatesOneQueue", "gates 4:3,port", "gates=0x0,0x0,0x0,0x0,0x108"},
	{"GatesSeveralQueuesAnyOrder", "gates 2:12 0:0,1 limit 5", "limit=5 gates=0x3,0x0,0x1000"},
	{"GatesHighestIds", "queues 64 gates 63:23,9",
	 "queues=64 gates=0x0,0x0,0x0,0x0,0x0,0x0,0x0,0x0,0x0,0x0,0x0,0x0,0x0,0x0,0x0,0x0,0x0,0x0,0x0,0x0,0x0,0x0,0x0,0x0,0x0,0x0,0x0,0x0,0x0,0x0,0x0,0x0,0x0,0x0,0x0,0x0,0x0,0x0,0x0,0x0,0x0,0x0,0x0,0x0,0x0,0x0,0x0,0x0,0x0,0x0,0x0,0x0,0x0,0x0,0x0,0x0,0x0,0x0,0x0,0x0,0x0,0x0,0x0,0x800200"},
	{"GatesDefaultClearsTheMap", "gates default", "gates="},
	{"Limit", "limit 1", "limit=1"},
	{"LimitMax", "limit 1048576", "limit=1048576"},
	{"Quanta", "quanta 1514 9000", "quanta=1514,9000"},
	{"QuantaMax", "quanta 16777216", "quanta=16777216"},
	{"QuantaOnePerQueue", "queues 4 quanta 1 2 3 4", "queues=4 quanta=1,2,3,4"},
	{"PriomapPartialRestToQueue0", "priomap 3 2 1", "priomap=3,2,1,0,0,0,0,0,0,0,0,0,0,0,0,0"},
	{"PriomapFull", "queues 8 priomap 7 6 5 4 3 2 1 0 7 6 5 4 3 2 1 0",
	 "queues=8 priomap=7,6,5,4,3,2,1,0,7,6,5,4,3,2,1,0"},
	// Without "queues" the kernel checks entries against the current count
	// ("change" keeps it); the plugin only bounds them by 64.
	{"PriomapWithoutQueuesCheckedByKernel", "priomap 63", "priomap=63,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0"},
	{"ListsEndAtKeyword", "quanta 1514 priomap 1 0 limit 7", "priomap=1,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0 quanta=1514 limit=7"},
	{"All", "rate 25gbit burst 64kb queues 8 strict 2 quanta 1514 1514 9000 priomap 0 0 1 2 limit 100",
	 "rate=25000000000 burst=65536 queues=8 strict=2 priomap=0,0,1,2,0,0,0,0,0,0,0,0,0,0,0,0 quanta=1514,1514,9000 limit=100"},
	{"AllReordered", "limit 100 priomap 0 0 1 2 quanta 1514 1514 9000 strict 2 queues 8 burst 64kb rate 25gbit",
	 "rate=25000000000 burst=65536 queues=8 strict=2 priomap=0,0,1,2,0,0,0,0,0,0,0,0,0,0,0,0 quanta=1514,1514,9000 limit=100"},
	{"AllWithCatchup",
	 "limit 100 catchup 3mb priomap 0 0 1 2 quanta 1514 strict 2 queues 8 burst 64kb rate 25gbit pool sw0 sw-delay 1ms",
	 "rate=25000000000 burst=65536 catchup=3145728 queues=8 strict=2 priomap=0,0,1,2,0,0,0,0,0,0,0,0,0,0,0,0 "
	 "quanta=1514 limit=100 pool=sw0 sw_delay=1000000"},
	// Shared-buffer pool options.
	{"Pool", "pool sw0", "pool=sw0"},
	// The scheme: its nest, with its parameters' nest (docs/SCHEMES.md).
	{"SchemeDt", "pool sw0 scheme dt", "pool=sw0 scheme{id=0}"},
	{"SchemeSt", "pool sw0 scheme st", "pool=sw0 scheme{id=1}"},
	{"SchemeStThreshold", "pool sw0 scheme st st-threshold 100kb",
	 "pool=sw0 scheme{id=1 st{threshold=102400}}"},
	{"SchemeStThresholdFirst", "pool sw0 st-threshold 0 scheme st",
	 "pool=sw0 scheme{id=1 st{threshold=0}}"},
	{"SchemeOfAMember", "scheme st st-threshold 1mb", "scheme{id=1 st{threshold=1048576}}",
	 "replace"},
	{"SchemeDsh", "pool sw0 scheme dsh", "pool=sw0 scheme{id=2}"},
	{"SchemeDshWindow", "pool sw0 scheme dsh dsh-window 5ms",
	 "pool=sw0 scheme{id=2 dsh{window=5000000}}"},
	{"SchemeDshAll",
	 "pool sw0 dsh-variant no-insurance dsh-gain 16 scheme dsh dsh-ewma-shift 3 dsh-window 10s",
	 "pool=sw0 scheme{id=2 dsh{window=10000000000 ewma_shift=3 gain=16 flags=2}}"},
	{"SchemeDshVariantDsh", "pool sw0 scheme dsh dsh-variant dsh",
	 "pool=sw0 scheme{id=2 dsh{flags=0}}"},
	{"SchemeDshVariantList", "pool sw0 scheme dsh dsh-variant static-tau,no-insurance",
	 "pool=sw0 scheme{id=2 dsh{flags=6}}"},
	{"SchemeDshNoSharedHeadroom", "pool sw0 scheme dsh dsh-variant no-shared-headroom",
	 "pool=sw0 scheme{id=2 dsh{flags=1}}"},
	{"SchemeSpfc", "pool sw0 scheme spfc", "pool=sw0 scheme{id=3}"},
	{"SchemeSpfcWindow", "pool sw0 scheme spfc spfc-window 500us",
	 "pool=sw0 scheme{id=3 spfc{tc=500000}}"},
	{"SchemeSpfcK", "pool sw0 scheme spfc spfc-window 2ms spfc-k 10",
	 "pool=sw0 scheme{id=3 spfc{tc=2000000 k=10}}"},
	{"SchemeSpfcAll",
	 "pool sw0 scheme spfc spfc-mode window-end spfc-k 1000 spfc-victim-threshold 1mb "
	 "spfc-irc-th-packets 200 spfc-irc-th 64kb spfc-window 1s",
	 "pool=sw0 scheme{id=3 spfc{tc=1000000000 irc_th=65536 irc_th_packets=200 "
	 "victim=1048576 flags=1 k=1000}}"},
	{"SchemeSpfcModeDaemon", "pool sw0 scheme spfc spfc-mode daemon",
	 "pool=sw0 scheme{id=3 spfc{flags=2}}"},
	{"SchemeSpfcModeIrc", "pool sw0 scheme spfc spfc-mode irc",
	 "pool=sw0 scheme{id=3 spfc{flags=0}}"},
	{"SchemeSpfcOfAMember", "scheme spfc spfc-k 1", "scheme{id=3 spfc{k=1}}", "replace"},
	{"PoolNameMax", "pool Ab-9_.xxxxxxxxx", "pool=Ab-9_.xxxxxxxxx"},
	{"PoolNameOneChar", "pool -", "pool=-"},
	{"Buffer", "buffer 4mb", "buffer=4194304", "replace"},
	{"BufferMin", "buffer 1", "buffer=1", "replace"},
	{"BufferMax", "buffer 1024gb", "buffer=1099511627776", "replace"},
	{"BufferMaxBytes", "buffer 1099511627776b", "buffer=1099511627776", "replace"},
	{"BufferAbove4G", "buffer 5G", "buffer=5368709120", "replace"},
	{"BufferKbit", "buffer 8kbit", "buffer=1024", "replace"},
	{"BufferFraction", "buffer 1.5mb", "buffer=1572864", "replace"},
	{"AlphaEighth", "alpha 1/8", "alpha=1/2^3", "replace"},
	{"AlphaSixteenth", "alpha 1/16", "alpha=1/2^4", "replace"},
	{"AlphaTwo", "alpha 2", "alpha=2/2^0", "replace"},
	{"AlphaThreeQuarters", "alpha 3/4", "alpha=3/2^2", "replace"},
	{"AlphaOne", "alpha 1", "alpha=1/2^0", "replace"},
	{"AlphaOneOverOne", "alpha 1/1", "alpha=1/2^0", "replace"},
	{"AlphaNotReduced", "alpha 2/4", "alpha=2/2^2", "replace"},
	{"AlphaExtremes", "alpha 65535/4294967296", "alpha=65535/2^32", "replace"},
	{"EgressAlpha", "egress-alpha 1/2", "egress_alpha=1/2^1", "replace"},
	{"LosslessPrios", "lossless-prios 3,4", "lossless_prios=0x18", "replace"},
	{"LosslessPriosOne", "lossless-prios 0", "lossless_prios=0x01", "replace"},
	{"LosslessPriosAll", "lossless-prios 7,6,5,4,3,2,1,0", "lossless_prios=0xff", "replace"},
	{"LosslessPriosNone", "lossless-prios none", "lossless_prios=0x00", "replace"},
	{"Reserved", "reserved 1514", "reserved=1514", "replace"},
	{"ReservedZero", "reserved 0", "reserved=0", "replace"},
	{"ReservedMax", "reserved 4294967295", "reserved=4294967295", "replace"},
	{"XonOffset", "xon-offset 3kb", "xon_offset=3072", "replace"},
	{"CableDelay", "cable-delay 5us", "cable_delay=5000", "replace"},
	{"CableDelayMax", "cable-delay 1s", "cable_delay=1000000000", "replace"},
	{"CableDelayZero", "cable-delay 0ns", "cable_delay=0", "replace"},
	{"CableDelayLongUnits", "cable-delay 2usecs", "cable_delay=2000", "replace"},
	// Rounded to the nearest ns (get_time64 would truncate to 2299999).
	{"SwDelayFractionRounded", "sw-delay 2.3ms", "sw_delay=2300000", "replace"},
	{"SwDelayMs", "sw-delay 1ms", "sw_delay=1000000", "replace"},
	{"SwDelaySeconds", "sw-delay 0.5sec", "sw_delay=500000000", "replace"},
	{"Headroom", "headroom 96kb", "headroom=98304", "replace"},
	{"HeadroomZeroIsComputed", "headroom 0", "headroom=0", "replace"},
	{"Ecn", "ecn 30kb 100kb 0.2", "ecn_kmin=30720 ecn_kmax=102400 ecn_pmax=13107", "replace"},
	{"EcnPmaxOne", "ecn 1 2 1", "ecn_kmin=1 ecn_kmax=2 ecn_pmax=65536", "replace"},
	{"EcnPmaxOnePointZero", "ecn 1 2 1.000", "ecn_kmin=1 ecn_kmax=2 ecn_pmax=65536", "replace"},
	{"EcnPmaxZero", "ecn 1kb 2kb 0", "ecn_kmin=1024 ecn_kmax=2048 ecn_pmax=0", "replace"},
	// KMIN 0: marks every non-empty queue with a probability (the kernel
	// enables marking when KMAX or PMAX is non-zero).
	{"EcnKminZero", "ecn 0 30kb 0.2", "ecn_kmin=0 ecn_kmax=30720 ecn_pmax=13107", "replace"},
	{"EcnPmaxHalf", "ecn 1kb 2kb .5", "ecn_kmin=1024 ecn_kmax=2048 ecn_pmax=32768", "replace"},
	{"EcnPmaxRounded", "ecn 1kb 2kb 0.00001", "ecn_kmin=1024 ecn_kmax=2048 ecn_pmax=1", "replace"},
	{"EcnKmaxMax", "ecn 4294967294 4294967295 0.1", "ecn_kmin=4294967294 ecn_kmax=4294967295 ecn_pmax=6554", "replace"},
	{"EcnOff", "ecn off", "ecn_kmin=0 ecn_kmax=0 ecn_pmax=0", "replace"},
	{"EcnOffThenKeyword", "ecn off limit 5", "limit=5 ecn_kmin=0 ecn_kmax=0 ecn_pmax=0", "replace"},
	{"AllPool",
	 "rate 10gbit pool sw0 buffer 4mb alpha 1/8 egress-alpha 2 lossless-prios 3,4 reserved 1514 "
	 "xon-offset 3028 cable-delay 1us sw-delay 200us headroom 96kb ecn 30kb 100kb 0.2",
	 "rate=10000000000 pool=sw0 buffer=4194304 alpha=1/2^3 egress_alpha=2/2^0 lossless_prios=0x18 "
	 "reserved=1514 xon_offset=3028 cable_delay=1000 sw_delay=200000 headroom=98304 "
	 "ecn_kmin=30720 ecn_kmax=102400 ecn_pmax=13107"},
	{"AllPoolReorderedWithLists",
	 "ecn 30kb 100kb 0.2 headroom 96kb quanta 1514 9000 sw-delay 200us cable-delay 1us priomap 1 0 "
	 "xon-offset 3028 reserved 1514 lossless-prios 3,4 egress-alpha 2 alpha 1/8 buffer 4mb pool sw0 limit 9",
	 "priomap=1,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0 quanta=1514,9000 limit=9 pool=sw0 buffer=4194304 "
	 "alpha=1/2^3 egress_alpha=2/2^0 lossless_prios=0x18 reserved=1514 xon_offset=3028 "
	 "cable_delay=1000 sw_delay=200000 headroom=98304 ecn_kmin=30720 ecn_kmax=102400 ecn_pmax=13107"},
	// "change" of an existing pool member: pool options without "pool".
	{"PoolOptionsWithoutPool", "alpha 1/4 ecn off", "alpha=1/2^2 ecn_kmin=0 ecn_kmax=0 ecn_pmax=0", "replace"},
};

INSTANTIATE_TEST_SUITE_P(Tc, ParseAccept, ::testing::ValuesIn(kAccepts),
			 [](const auto &info) { return std::string(info.param.name); });

// `tc ... lossless help` is a synopsis, like q_fq.c's; the reference is
// the man page.
TEST(TcPlugin, HelpIsASynopsisPointingToTheManPage)
{
	Result r = Tc({"qdisc", "add", "dev", "lo", "root", "lossless", "help"});
	EXPECT_EQ(r.rc, 1);
	for (const char *s : {
		     "Usage: ... lossless [ rate RATE ] [ burst BYTES ] [ catchup BYTES ]",
		     "[ queues NUMBER ]",
		     "[ strict NUMBER ] [ quanta BYTES0 BYTES1 ... ]",
		     "[ priomap QUEUE0 QUEUE1 ... QUEUE15 ] [ limit PACKETS ]",
		     "[ pool NAME ] [ buffer SIZE ] [ alpha ALPHA ]",
		     "[ egress-alpha ALPHA ] [ lossless-prios PRIOS ]",
		     "[ reserved SIZE ] [ xon-offset SIZE ] [ cable-delay TIME ]",
		     "[ sw-delay TIME ] [ headroom SIZE ] [ scheme-port N ]",
		     "[ ecn { KMIN KMAX PMAX | off } ] [ ecn-mode red|np-ecn ]",
		     "[ np-ecn-k SIZE ] [ plane { auto | PATH } ]\n",
		     "[ scheme { dt | st [ st-threshold SIZE ]\n",
		     "| dsh [ dsh-window TIME ] [ dsh-ewma-shift N ]\n",
		     "[ dsh-gain N ] [ dsh-variant VARIANT ]\n",
		     "| spfc [ spfc-window TIME ] [ spfc-irc-th SIZE ]\n",
		     "[ spfc-irc-th-packets N ] [ spfc-victim-threshold SIZE ]\n",
		     "[ spfc-mode MODE ] [ spfc-k N ]\n",
		     "| portfc [ portfc-n N ] [ portfc-xoff-a SIZE ]\n",
		     "[ portfc-xon-a SIZE ] [ portfc-xoff-b SIZE ]\n",
		     "[ portfc-xon-b SIZE ] } ]\n",
		     "[ pfcwd { off | alert | forward | drop } ]",
		     "[ pfcwd-detect TIME ] [ pfcwd-restore TIME ]",
		     "[ pfcwd-poll TIME ] [ xoff-alarm { TIME | off } ]",
		     "See tc-lossless(8).",
	     })
		EXPECT_NE(r.err.find(s), std::string::npos) << "missing \"" << s << "\" in:\n" << r.err;
	std::istringstream usage(r.err);
	for (std::string line; std::getline(usage, line);)
		EXPECT_LE(line.size(), 80u) << line;
}

// The man page, rendered one paragraph per line, whitespace collapsed.
std::string ManPageText()
{
	Result r = RunCmd({"groff", "-man", "-Tascii", "-rLL=4000n", "-P-cbou", LL_TC_MAN_PAGE}, {});
	EXPECT_EQ(r.rc, 0) << r.err;
	std::string out;
	bool space = false;
	for (char ch : r.out) {
		if (ch == ' ' || ch == '\t' || ch == '\n') {
			space = true;
			continue;
		}
		if (space && !out.empty())
			out += ' ';
		space = false;
		out += ch;
	}
	return out;
}

// Every option of the help's synopsis, with its range and default, is in
// tc-lossless(8) (the facts the help carried before it became a synopsis).
TEST(TcPlugin, ManPageDocumentsEveryOptionWithRangeAndDefault)
{
	std::string man = ManPageText();
	ASSERT_FALSE(man.empty());
	for (const char *s : {
		     "rate RATE", "8kbit .. 1.6tbit", "burst BYTES", "64 .. 1073741824 bytes",
		     "catchup BYTES", "queues NUMBER", "Default 8", "strict NUMBER", "quanta BYTES",
		     "1 .. 16777216", "priomap QUEUE", "gates QUEUE:GATE", "gates default", "limit PACKETS", "1 .. 1048576", "Default 1000",
		     "pool NAME", "buffer SIZE", "1 .. 1099511627776 bytes", "Default 4mb",
		     "alpha ALPHA", "Default 1/8", "egress-alpha ALPHA", "lossless-prios PRIOS",
		     "Default 3,4", "reserved SIZE", "xon-offset SIZE", "cable-delay TIME",
		     "sw-delay TIME", "Default 1ms", "headroom SIZE", "ecn KMIN KMAX PMAX",
		     "plane", "scheme NAME", "st-threshold SIZE", "dsh-window TIME", "dsh-ewma-shift N",
		     "dsh-gain N", "dsh-variant VARIANT", "spfc-window TIME", "spfc-irc-th SIZE",
		     "spfc-irc-th-packets N", "spfc-victim-threshold SIZE", "spfc-mode MODE",
		     "spfc-k N", "pfcwd ACTION", "pfcwd-detect TIME",
		     "Default 200ms", "pfcwd-restore TIME", "pfcwd-poll TIME", "Default 100ms",
		     "xoff-alarm { TIME | off }", "backlog-need",
	     })
		EXPECT_NE(man.find(s), std::string::npos) << "tc-lossless(8) lacks \"" << s << "\"";
}

// ---- the parameter table (daemon/common/ll_params.c) ----------------------

// The scope the man page gives a row: "(pool)", "(port)", "(pool, scheme st)".
std::string ManScope(const ll_param &p)
{
	if (p.scheme >= 0)
		return std::string("pool, scheme ") + ll_param_scheme_name(p.scheme);
	return p.flags & LL_PARAM_PORT ? "port" : "pool";
}

// Every pool option of the table, which the plugin parses, prints and
// lists from: its synopsis entry is in the help and in tc-lossless(8), and
// the man page has an entry for it with its scope and its default.
TEST(TcPluginTable, HelpAndManPageHaveEveryRow)
{
	Result help = Tc({"qdisc", "add", "dev", "lo", "root", "lossless", "help"});
	std::string man = ManPageText();
	ASSERT_FALSE(man.empty());
	// The help wraps the scheme's synopsis over lines: compare it with
	// white space collapsed, as the man page's.
	auto collapse = [](const std::string &in) {
		std::string out;
		for (char ch : in) {
			bool ws = ch == ' ' || ch == '\n' || ch == '\t';
			if (ws && (out.empty() || out.back() == ' '))
				continue;
			out += ws ? ' ' : ch;
		}
		return out;
	};
	std::string help_text = collapse(help.err);
	for (const ll_param &p : ll_params) {
		char syn[1024], def[64];

		if (!p.tc)
			continue;
		ll_param_synopsis(&p, syn, sizeof(syn));
		if (p.scheme >= 0)	/* inside its scheme's entry */
			ll_param_synopsis(&ll_params[LL_P_SCHEME], syn, sizeof(syn));
		ASSERT_LT(strlen(syn), sizeof(syn) - 1) << "the synopsis fits";
		EXPECT_NE(help_text.find(syn), std::string::npos) << "help lacks " << syn;
		EXPECT_NE(man.find(syn), std::string::npos) << "tc-lossless(8) lacks " << syn;
		if (p.unit == LL_PARAM_ECN || p.unit == LL_PARAM_SCHEME)
			continue;	/* their entries spell the syntax out */
		std::string heading = std::string(" ") + p.tc + " " + p.arg + " (" + ManScope(p);
		size_t at = man.find(heading);
		ASSERT_NE(at, std::string::npos) << "tc-lossless(8) has no entry \"" << heading << "\"";
		if (p.unit == LL_PARAM_NAME || p.unit == LL_PARAM_PLANE)
			continue;	/* no default */
		// The entry ends where the next one's scope starts.
		size_t end = man.size();
		for (const char *next : {"(pool)", "(port)", "(pool, scheme"})
			end = std::min(end, man.find(next, at + heading.size()));
		ll_param_default_text(&p, def, sizeof(def));
		EXPECT_NE(man.substr(at, end - at).find(std::string("Default ") + def), std::string::npos)
			<< "tc-lossless(8): " << p.tc << " lacks \"Default " << def << "\"";
	}
}

TEST(TcPlugin, ClassesHaveNoOptions)
{
	TempDir tmp;
	Result r = Tc({"class", "add", "dev", "lo", "parent", "1:", "classid", "1:1", "lossless"},
		      Capture(tmp.File("cap")));
	EXPECT_EQ(r.rc, 1);
	EXPECT_NE(r.err.find("lossless: classes are the qdisc's queues"), std::string::npos) << r.err;
	EXPECT_NE(r.err.find("tc qdisc change dev DEV root lossless"), std::string::npos) << r.err;
	r = Tc({"class", "change", "dev", "lo", "classid", "1:1", "lossless", "quantum", "3000"},
	       Capture(tmp.File("cap")));
	EXPECT_EQ(r.rc, 1);
	EXPECT_NE(r.err.find("lossless: classes have no options (\"quantum\")"), std::string::npos) << r.err;
	EXPECT_EQ(ReadFile(tmp.File("cap")), "");
}

// ---- printing, through crafted kernel dumps ------------------------------

Result Show(const Args &args, const std::string &dump)
{
	TempDir tmp;
	WriteFile(tmp.File("dump"), dump);
	return Tc(args, Dump(tmp.File("dump")));
}

const char *kDefaultOptsText =
	"rate 10Gbit burst 125000b queues 8 strict 2 "
	"quanta 1514 1514 1514 1514 1514 1514 1514 9000 "
	"priomap 0 1 2 3 4 5 6 7 0 0 0 0 0 0 0 0 limit 1000 ";

TEST(TcPluginPrint, QdiscOptionsText)
{
	Result r = Show({"qdisc", "show", "dev", "lo"}, QdiscDump({}));
	EXPECT_EQ(r.rc, 0) << r.err;
	EXPECT_EQ(r.err, "");
	EXPECT_EQ(r.out, std::string("qdisc lossless 1: root refcnt 2 ") + kDefaultOptsText + "\n");
}

TEST(TcPluginPrint, QdiscOptionsJson)
{
	Result r = Show({"-j", "qdisc", "show", "dev", "lo"}, QdiscDump({}));
	EXPECT_EQ(r.rc, 0) << r.err;
	EXPECT_EQ(r.out,
		  "[{\"kind\":\"lossless\",\"handle\":\"1:\",\"root\":true,\"refcnt\":2,"
		  "\"options\":{\"rate\":1250000000,\"burst\":125000,\"queues\":8,\"strict\":2,"
		  "\"quanta\":[1514,1514,1514,1514,1514,1514,1514,9000],"
		  "\"priomap\":[0,1,2,3,4,5,6,7,0,0,0,0,0,0,0,0],\"limit\":1000}}]\n");
}

TEST(TcPluginPrint, GatesAsTheyAreGiven)
{
	QdiscOpts o;
	o.gates = {0, 0x108, 0, 0x1003};
	Result r = Show({"qdisc", "show", "dev", "lo"}, QdiscDump(o));
	EXPECT_EQ(r.rc, 0) << r.err;
	EXPECT_NE(r.out.find("limit 1000 gates 1:3,port 3:0,1,12 \n"), std::string::npos) << r.out;
	r = Show({"-j", "qdisc", "show", "dev", "lo"}, QdiscDump(o));
	EXPECT_EQ(r.rc, 0) << r.err;
	EXPECT_NE(r.out.find("\"limit\":1000,\"gates\":[{\"queue\":1,\"gates\":[3,8]},"
			     "{\"queue\":3,\"gates\":[0,1,12]}]}"),
		  std::string::npos)
		<< r.out;
	// An all-zero map (every queue its default) prints nothing.
	o.gates = {0, 0};
	r = Show({"qdisc", "show", "dev", "lo"}, QdiscDump(o));
	EXPECT_EQ(r.out, std::string("qdisc lossless 1: root refcnt 2 ") + kDefaultOptsText + "\n");
}

TEST(TcPluginPrint, RateAndBurstUnits)
{
	struct {
		uint64_t bps;
		uint32_t burst;
		const char *text;
	} cases[] = {
		{100000000, 1048576, "rate 100Mbit burst 1Mb "},
		{1600000000000ULL, 65536, "rate 1600Gbit burst 64Kb "},
		{2500000000ULL, 3028, "rate 2500Mbit burst 3028b "},
		{8000, 64, "rate 8Kbit burst 64b "},
		{8001, 1073741824, "rate 8001bit burst 1024Mb "},
		{1073741824, 1025, "rate 1073741824bit burst 1025b "},
	};
	for (const auto &c : cases) {
		QdiscOpts o;
		o.rate_bps = c.bps;
		o.burst = c.burst;
		Result r = Show({"qdisc", "show", "dev", "lo"}, QdiscDump(o));
		EXPECT_NE(r.out.find(std::string("refcnt 2 ") + c.text), std::string::npos)
			<< c.bps << " " << c.burst << ": " << r.out;
	}
	// -iec: tc's own IEC formatter.
	QdiscOpts o;
	o.rate_bps = 1073741824;
	Result r = Show({"-iec", "qdisc", "show", "dev", "lo"}, QdiscDump(o));
	EXPECT_NE(r.out.find("rate 1Gibit "), std::string::npos) << r.out;
}

// Older kernels may lack attributes; the rest still prints.
TEST(TcPluginPrint, PartialOptions)
{
	Msg m(RTM_NEWQDISC, NLM_F_MULTI, QdiscTcm());
	m.PutStr(TCA_KIND, "lossless");
	size_t nest = m.Nest(TCA_OPTIONS);
	m.PutT<uint8_t>(TCA_LOSSLESS_QUEUES, 3);
	m.PutT<uint16_t>(TCA_LOSSLESS_LIMIT_PKTS, 7);	// too short: skipped
	m.PutT<uint32_t>(TCA_LOSSLESS_MAX + 5, 1);	// unknown: ignored
	m.End(nest);
	Result r = Show({"qdisc", "show", "dev", "lo"}, m.Bytes());
	EXPECT_EQ(r.rc, 0) << r.err;
	EXPECT_EQ(r.out, "qdisc lossless 1: root refcnt 2 queues 3 \n");
}

TEST(TcPluginPrint, QdiscXstatsText)
{
	tc_lossless_xstats st = SampleQdiscXstats();
	Result r = Show({"-s", "qdisc", "show", "dev", "lo"}, QdiscDump({}, &st, sizeof(st)));
	EXPECT_EQ(r.rc, 0) << r.err;
	EXPECT_EQ(r.out,
		  std::string("qdisc lossless 1: root refcnt 2 ") + kDefaultOptsText + "\n"
		  " Sent 123456 bytes 789 pkt (dropped 0, overlimits 0 requeues 0) \n"
		  " backlog 4542b 3p requeues 0\n"
		  "  pfc_frames_rx 12 pause_frames_rx 1 ctrl_invalid 2 throttled 345 pause_blocked 6 line_rate 10Gbit\n"
		  "  catchup 1250000b shaper_lost 3.5ms wake_late_max 300ms wake_late <1.02us:1000 <32.8us:20 <1.05ms:3 >=268ms:1\n"
		  "  paused prio 3 5\n"
		  "  gate prio3 xoff 10 xon 9 paused_time 1.23ms (paused)\n"
		  "  gate prio5 xoff 1 xon 0 paused_time 2.5us (paused)\n"
		  "  gate port xoff 1 xon 1 paused_time 3.36s\n");
}

TEST(TcPluginPrint, QdiscXstatsAllGatesWithDetails)
{
	tc_lossless_xstats st{};
	st.type = TC_LOSSLESS_XSTATS_QDISC;
	st.paused_mask = 1u << 8;
	Result r = Show({"-s", "-d", "qdisc", "show", "dev", "lo"}, QdiscDump({}, &st, sizeof(st)));
	EXPECT_EQ(r.rc, 0) << r.err;
	EXPECT_NE(r.out.find("  pfc_frames_rx 0 pause_frames_rx 0 ctrl_invalid 0 throttled 0 pause_blocked 0\n"
			     "  catchup 0b shaper_lost 0ns wake_late_max 0ns wake_late none\n"
			     "  paused port\n"
			     "  gate prio0 xoff 0 xon 0 paused_time 0ns\n"),
		  std::string::npos)
		<< r.out;
	EXPECT_NE(r.out.find("  gate prio7 xoff 0 xon 0 paused_time 0ns\n"
			     "  gate port xoff 0 xon 0 paused_time 0ns (paused)\n"),
		  std::string::npos)
		<< r.out;
	// Without -d only active gates.
	r = Show({"-s", "qdisc", "show", "dev", "lo"}, QdiscDump({}, &st, sizeof(st)));
	EXPECT_NE(r.out.find("  paused port\n  gate port xoff 0 xon 0 paused_time 0ns (paused)\n"),
		  std::string::npos)
		<< r.out;
	EXPECT_EQ(r.out.find("gate prio"), std::string::npos) << r.out;
}

TEST(TcPluginPrint, QdiscXstatsJson)
{
	tc_lossless_xstats st = SampleQdiscXstats();
	Result r = Show({"-s", "-j", "qdisc", "show", "dev", "lo"}, QdiscDump({}, &st, sizeof(st)));
	EXPECT_EQ(r.rc, 0) << r.err;
	EXPECT_NE(r.out.find("\"pfc_frames_rx\":12,\"pause_frames_rx\":1,\"ctrl_invalid\":2,"
			     "\"throttled\":345,\"pause_blocked\":6,\"line_rate\":1250000000,"
			     "\"catchup\":1250000,\"shaper_lost\":3500000,\"wake_late_max\":300000000,"
			     "\"wake_late\":[{\"lt_ns\":1024,\"count\":1000},{\"lt_ns\":2048,\"count\":0},"),
		  std::string::npos)
		<< r.out;
	EXPECT_NE(r.out.find("{\"lt_ns\":32768,\"count\":20},{\"lt_ns\":65536,\"count\":0},"),
		  std::string::npos)
		<< r.out;
	EXPECT_NE(r.out.find("{\"lt_ns\":134217728,\"count\":0},{\"lt_ns\":268435456,\"count\":0},"
			     "{\"lt_ns\":0,\"count\":1}],"
			     "\"paused_mask\":40,\"paused_prios\":[3,5],\"paused_port\":false,\"paused_free\":[],\"gates\":["),
		  std::string::npos)
		<< r.out;
	EXPECT_NE(r.out.find("{\"gate\":0,\"name\":\"prio0\",\"xoff_frames\":0,\"xon_frames\":0,"
			     "\"paused_time\":0,\"paused\":false}"),
		  std::string::npos)
		<< r.out;
	EXPECT_NE(r.out.find("{\"gate\":3,\"name\":\"prio3\",\"xoff_frames\":10,\"xon_frames\":9,"
			     "\"paused_time\":1234567,\"paused\":true}"),
		  std::string::npos)
		<< r.out;
	EXPECT_NE(r.out.find("{\"gate\":8,\"name\":\"port\",\"xoff_frames\":1,\"xon_frames\":1,"
			     "\"paused_time\":3360000000,\"paused\":false}]"),
		  std::string::npos)
		<< r.out;
	// All nine gates, and the whole output is valid JSON.
	size_t n = 0;
	for (size_t p = 0; (p = r.out.find("{\"gate\":", p)) != std::string::npos; p++)
		n++;
	EXPECT_EQ(n, 9u);
	TempDir tmp;
	WriteFile(tmp.File("j"), r.out);
	Result py = RunCmd({"python3", "-c", "import json,sys; json.load(open(sys.argv[1]))", tmp.File("j")}, {});
	if (py.rc != -1) {	// python3 present
		EXPECT_EQ(py.rc, 0) << py.err << r.out;
	}
}

// An older kernel sends a shorter struct: the missing tail prints as 0.
TEST(TcPluginPrint, QdiscXstatsFromOlderKernel)
{
	tc_lossless_xstats st = SampleQdiscXstats();
	size_t len = offsetof(tc_lossless_xstats, ctrl_invalid);
	Result r = Show({"-s", "qdisc", "show", "dev", "lo"}, QdiscDump({}, &st, len));
	EXPECT_EQ(r.rc, 0) << r.err;
	EXPECT_NE(r.out.find("  pfc_frames_rx 12 pause_frames_rx 1 ctrl_invalid 0 throttled 0 pause_blocked 0\n"
			     "  paused prio 3 5\n"
			     "  gate prio3 xoff 0 xon 0 paused_time 0ns (paused)\n"),
		  std::string::npos)
		<< r.out;
	// Fields it never had print as 0, but the shaper line (all appended
	// fields) is left out rather than shown as "never late".
	EXPECT_EQ(r.out.find("catchup"), std::string::npos) << r.out;
	EXPECT_EQ(r.out.find("wake_late"), std::string::npos) << r.out;
	r = Show({"-s", "-j", "qdisc", "show", "dev", "lo"}, QdiscDump({}, &st, len));
	EXPECT_EQ(r.rc, 0) << r.err;
	EXPECT_NE(r.out.find("\"pfc_frames_rx\":12,"), std::string::npos) << r.out;
	EXPECT_EQ(r.out.find("catchup"), std::string::npos) << r.out;
	EXPECT_EQ(r.out.find("shaper_lost"), std::string::npos) << r.out;
	EXPECT_EQ(r.out.find("wake_late"), std::string::npos) << r.out;
}

// A newer kernel appends fields: they are ignored.
TEST(TcPluginPrint, QdiscXstatsFromNewerKernel)
{
	std::string big(sizeof(tc_lossless_xstats) + 24, '\x7f');
	tc_lossless_xstats st = SampleQdiscXstats();
	memcpy(big.data(), &st, sizeof(st));
	Result r = Show({"-s", "qdisc", "show", "dev", "lo"}, QdiscDump({}, big.data(), big.size()));
	EXPECT_EQ(r.rc, 0) << r.err;
	EXPECT_NE(r.out.find("  pfc_frames_rx 12 pause_frames_rx 1 ctrl_invalid 2 throttled 345 pause_blocked 6 line_rate 10Gbit\n"),
		  std::string::npos)
		<< r.out;
}

TEST(TcPluginPrint, XstatsUnknownTypeOrTooShort)
{
	uint32_t odd[4] = {99, 0, 0, 0};
	Result r = Show({"-s", "qdisc", "show", "dev", "lo"}, QdiscDump({}, odd, sizeof(odd)));
	EXPECT_EQ(r.rc, 0) << r.err;
	EXPECT_NE(r.out.find("  unknown xstats type 99"), std::string::npos) << r.out;
	uint16_t tiny = 1;
	r = Show({"-s", "qdisc", "show", "dev", "lo"}, QdiscDump({}, &tiny, sizeof(tiny)));
	EXPECT_EQ(r.rc, 0) << r.err;
	EXPECT_NE(r.out.find("  (xstats too short)"), std::string::npos) << r.out;
}

// iproute2 6.1 prints classes as text only (tc_class.c has no JSON).
TEST(TcPluginPrint, ClassXstatsText)
{
	tc_lossless_class_xstats st = SampleClassXstats();
	tc_lossless_class_xstats st2{};
	st2.type = TC_LOSSLESS_XSTATS_CLASS;
	st2.gate_mask = (1u << 0) | (1u << 1) | (1u << 8);
	st2.quantum_bytes = 9000;
	st2.limit_pkts = 1000;
	Result r = Show({"-s", "class", "show", "dev", "lo"},
			ClassDump(1, &st, sizeof(st)) + ClassDump(2, &st2, sizeof(st2)));
	EXPECT_EQ(r.rc, 0) << r.err;
	EXPECT_EQ(r.out,
		  "class lossless 1:1 root \n"
		  " Sent 123456 bytes 789 pkt (dropped 0, overlimits 0 requeues 0) \n"
		  " backlog 4542b 3p requeues 0\n"
		  "  mode strict quantum 1514 limit 1000 gates prio 3 port\n"
		  "  paused yes pause_frames_rx 11 paused_time 42us\n"
		  "class lossless 1:2 root \n"
		  " Sent 123456 bytes 789 pkt (dropped 0, overlimits 0 requeues 0) \n"
		  " backlog 4542b 3p requeues 0\n"
		  "  mode dwrr quantum 9000 limit 1000 gates prio 0 1 port\n"
		  "  paused no pause_frames_rx 0 paused_time 0ns\n");
}

// A queue metered by a downstream's TOKENS frames (BifrostX) shows its
// credit; one that never got any (above) does not.
TEST(TcPluginPrint, ClassXstatsCredit)
{
	tc_lossless_class_xstats st = SampleClassXstats();
	st.credit_metered = 1u << 3;
	st.credit_bytes = 3000;
	st.credit_frames = 250;
	st.credit_granted_bytes = 1234567;
	st.credit_blocked = 17;
	Result r = Show({"-s", "class", "show", "dev", "lo"}, ClassDump(1, &st, sizeof(st)));
	EXPECT_EQ(r.rc, 0) << r.err;
	EXPECT_NE(r.out.find("  paused yes pause_frames_rx 11 paused_time 42us\n"
			     "  credit metered left 3000b frames 250 granted 1234567b blocked 17\n"),
		  std::string::npos)
		<< r.out;
	st.credit_metered = 0;
	r = Show({"-s", "class", "show", "dev", "lo"}, ClassDump(1, &st, sizeof(st)));
	EXPECT_NE(r.out.find("  credit off left 3000b"), std::string::npos) << r.out;
}

// A queue of an ecn-mode np-ecn pool shows what NP-ECN decided, once it
// decided anything.
TEST(TcPluginPrint, ClassXstatsNpEcn)
{
	tc_lossless_class_xstats st = SampleClassXstats();
	Result r = Show({"-s", "class", "show", "dev", "lo"}, ClassDump(1, &st, sizeof(st)));
	EXPECT_EQ(r.out.find("np-ecn"), std::string::npos) << r.out;
	st.np_ecn_marked = 900;
	st.np_ecn_exempt = 12;
	st.np_ecn_not_ect = 3;
	r = Show({"-s", "class", "show", "dev", "lo"}, ClassDump(1, &st, sizeof(st)));
	EXPECT_NE(r.out.find("  paused yes pause_frames_rx 11 paused_time 42us\n"
			     "  np-ecn marked 900 exempt 12 not-ect 3\n"),
		  std::string::npos)
		<< r.out;
}

TEST(TcPluginPrint, ClassXstatsFromOlderKernel)
{
	tc_lossless_class_xstats st = SampleClassXstats();
	Result r = Show({"-s", "class", "show", "dev", "lo"},
			ClassDump(1, &st, offsetof(tc_lossless_class_xstats, limit_pkts)));
	EXPECT_EQ(r.rc, 0) << r.err;
	EXPECT_NE(r.out.find("  mode strict quantum 1514 limit 0 gates prio 3 port\n"
			     "  paused yes pause_frames_rx 0 paused_time 0ns\n"),
		  std::string::npos)
		<< r.out;
}

// ---- printing: shared-buffer pool options and stats -----------------------

const char *kPoolOptsText =
	"pool sw0 buffer 4Mb alpha 1/8 egress-alpha 1 lossless-prios 3,4 reserved 1514b "
	"xon-offset 3028b cable-delay 1us sw-delay 2300us headroom 0b ecn 30Kb 100Kb 0.2 ";

TEST(TcPluginPrint, PoolOptionsText)
{
	QdiscOpts o;
	o.pool.emplace();
	Result r = Show({"qdisc", "show", "dev", "lo"}, QdiscDump(o));
	EXPECT_EQ(r.rc, 0) << r.err;
	EXPECT_EQ(r.err, "");
	EXPECT_EQ(r.out, std::string("qdisc lossless 1: root refcnt 2 ") + kDefaultOptsText + kPoolOptsText + "\n");
}

TEST(TcPluginPrint, PoolOptionsJson)
{
	QdiscOpts o;
	o.pool.emplace();
	Result r = Show({"-j", "qdisc", "show", "dev", "lo"}, QdiscDump(o));
	EXPECT_EQ(r.rc, 0) << r.err;
	EXPECT_NE(r.out.find("\"limit\":1000,\"pool\":\"sw0\",\"buffer\":4194304,\"alpha\":\"1/8\","
			     "\"egress_alpha\":\"1\",\"lossless_prios\":[3,4],\"reserved\":1514,"
			     "\"xon_offset\":3028,\"cable_delay\":1000,\"sw_delay\":2300000,\"headroom\":0,"
			     "\"ecn_kmin\":30720,\"ecn_kmax\":102400,\"ecn_pmax\":0.2}}]\n"),
		  std::string::npos)
		<< r.out;
	TempDir tmp;
	WriteFile(tmp.File("j"), r.out);
	Result py = RunCmd({"python3", "-c", "import json,sys; json.load(open(sys.argv[1]))", tmp.File("j")}, {});
	if (py.rc != -1) {
		EXPECT_EQ(py.rc, 0) << py.err << r.out;
	}
}

TEST(TcPluginPrint, SchemeText)
{
	QdiscOpts o;
	o.pool.emplace();
	o.scheme.emplace();
	o.scheme->st_threshold = 100 << 10;
	o.scheme->backlog_need = 7813;
	Result r = Show({"qdisc", "show", "dev", "lo"}, QdiscDump(o));
	EXPECT_EQ(r.rc, 0) << r.err;
	EXPECT_NE(r.out.find("scheme st st-threshold 100Kb "), std::string::npos) << r.out;
	EXPECT_EQ(r.out.find("backlog-need"), std::string::npos) << "not an option: -s only";
	r = Show({"-s", "qdisc", "show", "dev", "lo"}, QdiscDump(o));
	EXPECT_NE(r.out.find("backlog-need 7813 "), std::string::npos) << r.out;
	o.scheme->st_threshold = 0;	// the default: not printed
	o.scheme->id = LOSSLESS_SCHEME_DT;
	r = Show({"qdisc", "show", "dev", "lo"}, QdiscDump(o));
	EXPECT_NE(r.out.find("scheme dt "), std::string::npos) << r.out;
	EXPECT_EQ(r.out.find("st-threshold"), std::string::npos) << r.out;
}

TEST(TcPluginPrint, SchemeJson)
{
	QdiscOpts o;
	o.pool.emplace();
	o.scheme.emplace();
	o.scheme->st_threshold = 65536;
	o.scheme->backlog_need = 42;
	Result r = Show({"-s", "-j", "qdisc", "show", "dev", "lo"}, QdiscDump(o));
	EXPECT_EQ(r.rc, 0) << r.err;
	EXPECT_NE(r.out.find("\"scheme\":\"st\",\"st_threshold\":65536,\"backlog_need\":42"),
		  std::string::npos)
		<< r.out;
}

// DSH's and SPFC's parameters print as typed (flags by name), only when
// not 0 (the default the kernel stands for); JSON: ns, counts, names.
TEST(TcPluginPrint, DshAndSpfcSchemes)
{
	QdiscOpts o;
	o.pool.emplace();
	o.scheme.emplace();
	o.scheme->id = LOSSLESS_SCHEME_DSH;
	o.scheme->dsh = {{TCA_LOSSLESS_DSH_WINDOW_NS, 5000000},
			 {TCA_LOSSLESS_DSH_EWMA_SHIFT, 0},
			 {TCA_LOSSLESS_DSH_DEVIATION_GAIN, 8},
			 {TCA_LOSSLESS_DSH_FLAGS, LOSSLESS_DSH_F_NO_INSURANCE | LOSSLESS_DSH_F_STATIC_TAU}};
	Result r = Show({"qdisc", "show", "dev", "lo"}, QdiscDump(o));
	EXPECT_EQ(r.rc, 0) << r.err;
	EXPECT_NE(r.out.find("scheme dsh dsh-window 5ms dsh-gain 8 dsh-variant no-insurance,static-tau "),
		  std::string::npos)
		<< r.out;
	EXPECT_EQ(r.out.find("dsh-ewma-shift"), std::string::npos) << r.out;
	r = Show({"-j", "qdisc", "show", "dev", "lo"}, QdiscDump(o));
	EXPECT_NE(r.out.find("\"scheme\":\"dsh\",\"dsh_window\":5000000,\"dsh_gain\":8,"
			     "\"dsh_variant\":\"no-insurance,static-tau\""),
		  std::string::npos)
		<< r.out;
	o.scheme->dsh = {{TCA_LOSSLESS_DSH_WINDOW_NS, 0}, {TCA_LOSSLESS_DSH_FLAGS, 0}};
	r = Show({"qdisc", "show", "dev", "lo"}, QdiscDump(o));
	EXPECT_NE(r.out.find("scheme dsh "), std::string::npos) << r.out;
	EXPECT_EQ(r.out.find("dsh-"), std::string::npos) << r.out;

	o.scheme->id = LOSSLESS_SCHEME_SPFC;
	o.scheme->dsh.clear();
	o.scheme->spfc = {{TCA_LOSSLESS_SPFC_TC_NS, 2000000},
			  {TCA_LOSSLESS_SPFC_IRC_TH_BYTES, 0},
			  {TCA_LOSSLESS_SPFC_IRC_TH_PACKETS, 200},
			  {TCA_LOSSLESS_SPFC_VICTIM_THRESHOLD_BYTES, 1 << 20},
			  {TCA_LOSSLESS_SPFC_FLAGS, LOSSLESS_SPFC_F_WINDOW_END},
			  {TCA_LOSSLESS_SPFC_K, 8}};
	r = Show({"qdisc", "show", "dev", "lo"}, QdiscDump(o));
	EXPECT_NE(r.out.find("scheme spfc spfc-window 2ms spfc-irc-th-packets 200 "
			     "spfc-victim-threshold 1Mb spfc-mode window-end spfc-k 8 "),
		  std::string::npos)
		<< r.out;
	EXPECT_EQ(r.out.find("spfc-irc-th "), std::string::npos) << r.out;
	r = Show({"-j", "qdisc", "show", "dev", "lo"}, QdiscDump(o));
	EXPECT_NE(r.out.find("\"scheme\":\"spfc\",\"spfc_window\":2000000,"
			     "\"spfc_irc_th_packets\":200,\"spfc_victim_threshold\":1048576,"
			     "\"spfc_mode\":\"window-end\",\"spfc_k\":8"),
		  std::string::npos)
		<< r.out;
	TempDir tmp;
	WriteFile(tmp.File("j"), r.out);
	Result py = RunCmd({"python3", "-c", "import json,sys; json.load(open(sys.argv[1]))", tmp.File("j")}, {});
	if (py.rc != -1) {
		EXPECT_EQ(py.rc, 0) << py.err << r.out;
	}
	// Another scheme's nest next to the id is not printed as this one's.
	o.scheme->id = LOSSLESS_SCHEME_DSH;
	r = Show({"qdisc", "show", "dev", "lo"}, QdiscDump(o));
	EXPECT_EQ(r.out.find("spfc-"), std::string::npos) << r.out;
}

TEST(TcPluginPrint, PoolOptionForms)
{
	struct {
		uint32_t alpha;
		uint8_t prios;
		uint64_t bytes;
		uint64_t cable_ns;
		uint32_t kmin, kmax, pmax;
		const char *text;
	} cases[] = {
		{1 << 8 | 4, 0x00, 1ULL << 40, 1000000000, 0, 0, 0,
		 "buffer 1024Gb alpha 1/16 egress-alpha 1 lossless-prios none reserved 1514b xon-offset 3028b "
		 "cable-delay 1s sw-delay 2300us headroom 0b ecn off "},
		{65535u << 8 | 32, 0xff, 1, 1500, 1, 4294967295u, 65536,
		 "buffer 1b alpha 65535/4294967296 egress-alpha 1 lossless-prios 0,1,2,3,4,5,6,7 "
		 "reserved 1514b xon-offset 3028b cable-delay 1500ns sw-delay 2300us headroom 0b "
		 "ecn 1b 4294967295b 1 "},
		{3 << 8 | 2, 0x01, 3ULL << 30, 0, 1024, 2048, 32768,
		 "buffer 3Gb alpha 3/4 egress-alpha 1 lossless-prios 0 reserved 1514b xon-offset 3028b "
		 "cable-delay 0ns sw-delay 2300us headroom 0b ecn 1Kb 2Kb 0.5 "},
		{2 << 8, 0x80, 1536, 20000000, 1, 2, 1,
		 "buffer 1536b alpha 2 egress-alpha 1 lossless-prios 7 reserved 1514b xon-offset 3028b "
		 "cable-delay 20ms sw-delay 2300us headroom 0b ecn 1b 2b 0.00002 "},
	};
	for (const auto &c : cases) {
		QdiscOpts o;
		o.pool.emplace();
		o.pool->alpha = c.alpha;
		o.pool->lossless_prios = c.prios;
		o.pool->bytes = c.bytes;
		o.pool->cable_delay_ns = c.cable_ns;
		o.pool->ecn_kmin = c.kmin;
		o.pool->ecn_kmax = c.kmax;
		o.pool->ecn_pmax = c.pmax;
		Result r = Show({"qdisc", "show", "dev", "lo"}, QdiscDump(o));
		EXPECT_EQ(r.rc, 0) << r.err;
		EXPECT_NE(r.out.find(std::string("pool sw0 ") + c.text + "\n"), std::string::npos) << r.out;
	}
	// JSON: "ecn off" is three zeros, "none" an empty list.
	QdiscOpts o;
	o.pool.emplace();
	o.pool->lossless_prios = 0;
	o.pool->ecn_kmin = o.pool->ecn_kmax = o.pool->ecn_pmax = 0;
	Result r = Show({"-j", "qdisc", "show", "dev", "lo"}, QdiscDump(o));
	EXPECT_NE(r.out.find("\"lossless_prios\":[],"), std::string::npos) << r.out;
	EXPECT_NE(r.out.find("\"ecn_kmin\":0,\"ecn_kmax\":0,\"ecn_pmax\":0}"), std::string::npos) << r.out;
}

// A kernel may dump only some of them (or a short one): each prints alone.
TEST(TcPluginPrint, PartialPoolOptions)
{
	Msg m(RTM_NEWQDISC, NLM_F_MULTI, QdiscTcm());
	m.PutStr(TCA_KIND, "lossless");
	size_t nest = m.Nest(TCA_OPTIONS);
	m.PutStr(TCA_LOSSLESS_POOL, "p1");
	m.PutT<uint16_t>(TCA_LOSSLESS_ALPHA, 7);		// too short: skipped
	m.PutT<uint32_t>(TCA_LOSSLESS_ECN_KMIN_BYTES, 1);	// without KMAX, PMAX: skipped
	m.PutT<uint64_t>(TCA_LOSSLESS_SW_DELAY_NS, 5000);
	m.End(nest);
	Result r = Show({"qdisc", "show", "dev", "lo"}, m.Bytes());
	EXPECT_EQ(r.rc, 0) << r.err;
	EXPECT_EQ(r.out, "qdisc lossless 1: root refcnt 2 pool p1 sw-delay 5us \n");
}

const char *kStatsCounters =
	" Sent 123456 bytes 789 pkt (dropped 0, overlimits 0 requeues 0) \n"
	" backlog 4542b 3p requeues 0\n"
	"  pfc_frames_rx 12 pause_frames_rx 1 ctrl_invalid 2 throttled 345 pause_blocked 6 line_rate 10Gbit\n";

// SampleQdiscXstats()'s shaper line: the non-empty lateness buckets.
const char *kShaperText =
	"  catchup 1250000b shaper_lost 3.5ms wake_late_max 300ms wake_late <1.02us:1000 <32.8us:20 <1.05ms:3 >=268ms:1\n";

const char *kStatsGates =
	"  paused prio 3 5\n"
	"  gate prio3 xoff 10 xon 9 paused_time 1.23ms (paused)\n"
	"  gate prio5 xoff 1 xon 0 paused_time 2.5us (paused)\n"
	"  gate port xoff 1 xon 1 paused_time 3.36s\n";

// The whole struct, and one from a kernel before the shaper line.
const std::string kStatsHead = std::string(kStatsCounters) + kShaperText + kStatsGates;
const std::string kStatsHeadBeforeShaper = std::string(kStatsCounters) + kStatsGates;

const char *kPoolStatsText =
	"  pool port 1 of 3  buffer 1Mb  shared 512Kb used 10Kb peak 300Kb  headroom 96Kb used 0b peak 20Kb\n"
	"  drops lossless 0 lossy 12  pfc_tx 34  ecn_marks 0  unaccounted 5\n";

TEST(TcPluginPrint, PoolXstatsText)
{
	QdiscOpts o;
	o.pool.emplace();
	tc_lossless_xstats st = SamplePoolXstats();
	Result r = Show({"-s", "qdisc", "show", "dev", "lo"}, QdiscDump(o, &st, sizeof(st)));
	EXPECT_EQ(r.rc, 0) << r.err;
	EXPECT_EQ(r.out,
		  std::string("qdisc lossless 1: root refcnt 2 ") + kDefaultOptsText + kPoolOptsText + "\n" +
			  kStatsHead + kPoolStatsText +
			  "  ingress prio 0 lossy bytes 0b peak 9000b headroom 0b/0b peak 0b threshold 512Kb"
			  " xoff 0 xon 0 paused_time 0ns drops 12\n"
			  "  ingress prio 3 lossless bytes 1500b peak 3000b headroom 0b/12Kb peak 0b threshold 60Kb"
			  " xoff 3 xon 3 paused_time 12ms drops 0 (paused)\n"
			  "  ingress prio 4 lossless bytes 0b peak 0b headroom 0b/12Kb peak 0b threshold 60Kb"
			  " xoff 0 xon 0 paused_time 0ns drops 0\n"
			  "  ingress prio 6 lossy bytes 1b peak 0b headroom 0b/0b peak 0b threshold 512Kb"
			  " xoff 0 xon 0 paused_time 0ns drops 0\n");
}

TEST(TcPluginPrint, PoolXstatsAllPrioritiesWithDetails)
{
	tc_lossless_xstats st = SamplePoolXstats();
	Result r = Show({"-s", "-d", "qdisc", "show", "dev", "lo"}, QdiscDump({}, &st, sizeof(st)));
	EXPECT_EQ(r.rc, 0) << r.err;
	EXPECT_NE(r.out.find(std::string("  gate port xoff 1 xon 1 paused_time 3.36s\n") + kPoolStatsText +
			     "  ingress prio 0 lossy "),
		  std::string::npos)
		<< r.out;
	for (int p = 0; p < 8; p++)
		EXPECT_NE(r.out.find("  ingress prio " + std::to_string(p) + " "), std::string::npos) << r.out;
	EXPECT_NE(r.out.find("  ingress prio 7 lossy bytes 0b peak 0b headroom 0b/0b peak 0b threshold 512Kb"
			     " xoff 0 xon 0 paused_time 0ns drops 0\n"),
		  std::string::npos)
		<< r.out;
}

TEST(TcPluginPrint, PoolXstatsJson)
{
	tc_lossless_xstats st = SamplePoolXstats();
	Result r = Show({"-s", "-j", "qdisc", "show", "dev", "lo"}, QdiscDump({}, &st, sizeof(st)));
	EXPECT_EQ(r.rc, 0) << r.err;
	EXPECT_NE(r.out.find("\"paused_time\":3360000000,\"paused\":false}],"
			     "\"pool_port\":1,\"pool_ports\":3,\"pool_total_bytes\":1048576,"
			     "\"pool_shared_size\":524288,\"pool_shared_used\":10240,\"pool_peak_shared\":307200,"
			     "\"pool_headroom_size\":98304,\"pool_headroom_used\":0,\"pool_peak_headroom\":20480,"
			     "\"pool_drops_lossless\":0,\"pool_drops_lossy\":12,\"pfc_frames_tx\":34,"
			     "\"ecn_marks\":0,\"unaccounted\":5,\"ingress\":["
			     "{\"prio\":0,\"lossless\":false,\"bytes\":0,\"headroom_used\":0,\"headroom_size\":0,"
			     "\"peak_bytes\":9000,\"peak_headroom\":0,\"threshold\":524288,\"xoff_frames\":0,"
			     "\"xon_frames\":0,\"paused_time\":0,\"drops\":12,\"paused\":false},"),
		  std::string::npos)
		<< r.out;
	EXPECT_NE(r.out.find("{\"prio\":3,\"lossless\":true,\"bytes\":1500,\"headroom_used\":0,"
			     "\"headroom_size\":12288,\"peak_bytes\":3000,\"peak_headroom\":0,\"threshold\":61440,"
			     "\"xoff_frames\":3,\"xon_frames\":3,\"paused_time\":12000000,\"drops\":0,\"paused\":true}"),
		  std::string::npos)
		<< r.out;
	EXPECT_NE(r.out.find("{\"prio\":7,\"lossless\":false,"), std::string::npos) << r.out;
	size_t n = 0;	// the ingress objects (pfcwd's have a "prio" too)
	for (size_t p = 0; (p = r.out.find(",\"lossless\":", p)) != std::string::npos; p++)
		n++;
	EXPECT_EQ(n, 8u);
	TempDir tmp;
	WriteFile(tmp.File("j"), r.out);
	Result py = RunCmd({"python3", "-c",
			    "import json,sys; q=json.load(open(sys.argv[1]))[0];"
			    " assert len(q['ingress']) == 8, q; assert q['pool_ports'] == 3, q",
			    tmp.File("j")},
			   {});
	if (py.rc != -1) {
		EXPECT_EQ(py.rc, 0) << py.err << r.out;
	}
}

// Not in a pool (pool_ports 0): no pool section, text or JSON.
TEST(TcPluginPrint, XstatsNotInPoolHasNoPoolSection)
{
	tc_lossless_xstats st = SamplePoolXstats();
	st.pool_ports = 0;
	Result r = Show({"-s", "qdisc", "show", "dev", "lo"}, QdiscDump({}, &st, sizeof(st)));
	EXPECT_EQ(r.rc, 0) << r.err;
	EXPECT_EQ(r.out, std::string("qdisc lossless 1: root refcnt 2 ") + kDefaultOptsText + "\n" + kStatsHead);
	r = Show({"-s", "-j", "qdisc", "show", "dev", "lo"}, QdiscDump({}, &st, sizeof(st)));
	EXPECT_EQ(r.out.find("pool"), std::string::npos) << r.out;
	EXPECT_EQ(r.out.find("ingress"), std::string::npos) << r.out;
}

// A kernel from before the pool sends the old struct: no pool section, even
// if the bytes after it (here: garbage) would say otherwise.
TEST(TcPluginPrint, OldSizeXstatsHaveNoPoolSection)
{
	tc_lossless_xstats st = SamplePoolXstats();
	size_t old_len = offsetof(tc_lossless_xstats, pool_port);
	Result r = Show({"-s", "qdisc", "show", "dev", "lo"}, QdiscDump({}, &st, old_len));
	EXPECT_EQ(r.rc, 0) << r.err;
	EXPECT_EQ(r.out, std::string("qdisc lossless 1: root refcnt 2 ") + kDefaultOptsText + "\n" +
				 kStatsHeadBeforeShaper);
	r = Show({"-s", "-j", "qdisc", "show", "dev", "lo"}, QdiscDump({}, &st, old_len));
	EXPECT_EQ(r.rc, 0) << r.err;
	EXPECT_NE(r.out.find("\"paused_time\":3360000000,\"paused\":false}]}"), std::string::npos) << r.out;
	EXPECT_EQ(r.out.find("pool_"), std::string::npos) << r.out;
	// Cut inside the pool counters or the ingress array: what is complete
	// prints, nothing is made up.
	r = Show({"-s", "qdisc", "show", "dev", "lo"},
		 QdiscDump({}, &st, offsetof(tc_lossless_xstats, pool_total_bytes)));
	EXPECT_EQ(r.out.find("pool port"), std::string::npos) << r.out;
	r = Show({"-s", "qdisc", "show", "dev", "lo"},
		 QdiscDump({}, &st, offsetof(tc_lossless_xstats, iq[7])));
	EXPECT_NE(r.out.find(kPoolStatsText), std::string::npos) << r.out;
	EXPECT_EQ(r.out.find("ingress"), std::string::npos) << r.out;
}

// A newer kernel appends more: the pool section still prints.
TEST(TcPluginPrint, PoolXstatsFromNewerKernel)
{
	tc_lossless_xstats st = SamplePoolXstats();
	std::string big(sizeof(st) + 40, '\x7f');
	memcpy(big.data(), &st, sizeof(st));
	Result r = Show({"-s", "qdisc", "show", "dev", "lo"}, QdiscDump({}, big.data(), big.size()));
	EXPECT_EQ(r.rc, 0) << r.err;
	EXPECT_NE(r.out.find(std::string(kPoolStatsText) + "  ingress prio 0 lossy"), std::string::npos) << r.out;
}

// ---- printing: the shaper's catch-up and the timer's lateness -------------

// The shaper line of a qdisc's text xstats, "" if none.
std::string ShaperLine(const tc_lossless_xstats &st)
{
	Result r = Show({"-s", "qdisc", "show", "dev", "lo"}, QdiscDump({}, &st, sizeof(st)));
	EXPECT_EQ(r.rc, 0) << r.err;
	size_t p = r.out.find("\n  catchup ");
	if (p == std::string::npos)
		return "";
	return r.out.substr(p + 1, r.out.find('\n', p + 1) - p);
}

TEST(TcPluginPrint, ShaperXstatsText)
{
	tc_lossless_xstats st = SampleQdiscXstats();
	EXPECT_EQ(ShaperLine(st), kShaperText);

	// Never late (or never woken): no bucket to show.
	std::fill(std::begin(st.wake_late), std::end(st.wake_late), 0);
	st.wake_late_max_ns = 0;
	st.shaper_lost_ns = 0;
	st.catchup_bytes = 1 << 20;
	EXPECT_EQ(ShaperLine(st), "  catchup 1Mb shaper_lost 0ns wake_late_max 0ns wake_late none\n");

	// Only the open last bucket: from 2^28 ns on.
	st.wake_late[LOSSLESS_LATENESS_BUCKETS - 1] = 2;
	st.wake_late_max_ns = 1000000000;
	st.shaper_lost_ns = 999;
	st.catchup_bytes = 64;
	EXPECT_EQ(ShaperLine(st), "  catchup 64b shaper_lost 999ns wake_late_max 1s wake_late >=268ms:2\n");

	// Every bucket, in order: upper bounds 2^10 .. 2^28 ns, then the open one.
	for (unsigned b = 0; b < LOSSLESS_LATENESS_BUCKETS; b++)
		st.wake_late[b] = b + 1;
	st.wake_late[0] = UINT64_MAX;
	st.catchup_bytes = 1ULL << 30;
	st.shaper_lost_ns = UINT64_MAX / 2;
	st.wake_late_max_ns = 268435456;
	EXPECT_EQ(ShaperLine(st),
		  "  catchup 1Gb shaper_lost 9.22e+09s wake_late_max 268ms wake_late <1.02us:18446744073709551615"
		  " <2.05us:2 <4.1us:3 <8.19us:4 <16.4us:5 <32.8us:6 <65.5us:7 <131us:8 <262us:9 <524us:10"
		  " <1.05ms:11 <2.1ms:12 <4.19ms:13 <8.39ms:14 <16.8ms:15 <33.6ms:16 <67.1ms:17 <134ms:18"
		  " <268ms:19 >=268ms:20\n");

	// A bucket in the middle alone.
	std::fill(std::begin(st.wake_late), std::end(st.wake_late), 0);
	st.wake_late[13] = 7;
	st.wake_late_max_ns = 5000000;
	st.shaper_lost_ns = 1250000;
	st.catchup_bytes = 3 << 10;
	EXPECT_EQ(ShaperLine(st), "  catchup 3Kb shaper_lost 1.25ms wake_late_max 5ms wake_late <8.39ms:7\n");
}

TEST(TcPluginPrint, ShaperXstatsJson)
{
	tc_lossless_xstats st = SampleQdiscXstats();
	st.wake_late[LOSSLESS_LATENESS_BUCKETS - 2] = 5;
	Result r = Show({"-s", "-j", "qdisc", "show", "dev", "lo"}, QdiscDump({}, &st, sizeof(st)));
	EXPECT_EQ(r.rc, 0) << r.err;
	std::string want = "\"catchup\":1250000,\"shaper_lost\":3500000,\"wake_late_max\":300000000,\"wake_late\":[";
	for (unsigned b = 0; b < LOSSLESS_LATENESS_BUCKETS; b++) {
		uint64_t lt = b + 1 < LOSSLESS_LATENESS_BUCKETS ? 1ULL << (10 + b) : 0;
		want += std::string(b ? "," : "") + "{\"lt_ns\":" + std::to_string(lt) +
			",\"count\":" + std::to_string(st.wake_late[b]) + "}";
	}
	want += "],\"paused_mask\":40,";
	EXPECT_NE(r.out.find(want), std::string::npos) << want << "\n" << r.out;
	EXPECT_NE(r.out.find("{\"lt_ns\":268435456,\"count\":5},{\"lt_ns\":0,\"count\":1}]"), std::string::npos)
		<< r.out;
	TempDir tmp;
	WriteFile(tmp.File("j"), r.out);
	Result py = RunCmd({"python3", "-c",
			    "import json,sys; q=json.load(open(sys.argv[1]))[0]; w=q['wake_late'];"
			    " assert len(w) == 20, w;"
			    " assert [e['lt_ns'] for e in w] == [2**(10+i) for i in range(19)] + [0], w;"
			    " assert [e['count'] for e in w] == [1000,0,0,0,0,20,0,0,0,0,3,0,0,0,0,0,0,0,5,1], w;"
			    " assert all(sorted(e) == ['count', 'lt_ns'] for e in w), w;"
			    " assert (q['catchup'], q['shaper_lost'], q['wake_late_max']) == (1250000, 3500000, 300000000), q",
			    tmp.File("j")},
			   {});
	if (py.rc != -1) {
		EXPECT_EQ(py.rc, 0) << py.err << r.out;
	}
	// All zero: still 20 entries, all counts 0.
	tc_lossless_xstats zero{};
	zero.type = TC_LOSSLESS_XSTATS_QDISC;
	r = Show({"-s", "-j", "qdisc", "show", "dev", "lo"}, QdiscDump({}, &zero, sizeof(zero)));
	EXPECT_NE(r.out.find("\"catchup\":0,\"shaper_lost\":0,\"wake_late_max\":0,\"wake_late\":[{\"lt_ns\":1024,\"count\":0},"),
		  std::string::npos)
		<< r.out;
	size_t n = 0;
	for (size_t p = 0; (p = r.out.find("{\"lt_ns\":", p)) != std::string::npos; p++)
		n++;
	EXPECT_EQ(n, 20u) << r.out;
}

// The shaper line needs all the appended fields: a kernel with the pool but
// before the shaper (or a cut inside the histogram) prints none, text or
// JSON; the pool section still prints.
TEST(TcPluginPrint, ShaperXstatsNeedTheWholeBlock)
{
	QdiscOpts o;
	o.pool.emplace();
	tc_lossless_xstats st = SamplePoolXstats();
	for (size_t len : {offsetof(tc_lossless_xstats, catchup_bytes),
			   offsetof(tc_lossless_xstats, wake_late),
			   offsetof(tc_lossless_xstats, wake_late[LOSSLESS_LATENESS_BUCKETS - 1]),
			   offsetof(tc_lossless_xstats, wake_late) + sizeof(st.wake_late) - 1}) {
		Result r = Show({"-s", "qdisc", "show", "dev", "lo"}, QdiscDump(o, &st, len));
		EXPECT_EQ(r.rc, 0) << r.err;
		EXPECT_EQ(r.out.find("  catchup "), std::string::npos) << len << ": " << r.out;
		EXPECT_NE(r.out.find(std::string(kStatsCounters) + kStatsGates + kPoolStatsText +
				     "  ingress prio 0 lossy"),
			  std::string::npos)
			<< len << ": " << r.out;
		r = Show({"-s", "-j", "qdisc", "show", "dev", "lo"}, QdiscDump(o, &st, len));
		EXPECT_EQ(r.rc, 0) << r.err;
		EXPECT_EQ(r.out.find("\"catchup\""), std::string::npos) << len << ": " << r.out;
		EXPECT_EQ(r.out.find("wake_late"), std::string::npos) << len << ": " << r.out;
		EXPECT_NE(r.out.find("\"pool_port\":1,"), std::string::npos) << len << ": " << r.out;
	}
	Result r = Show({"-s", "qdisc", "show", "dev", "lo"}, QdiscDump(o, &st, sizeof(st)));
	EXPECT_NE(r.out.find(std::string(kStatsCounters) + kShaperText + kStatsGates + kPoolStatsText),
		  std::string::npos)
		<< r.out;
}

// catchup in the options (kernels with the catch-up shaper dump it).
TEST(TcPluginPrint, CatchupOption)
{
	struct {
		uint32_t burst, catchup;
		const char *text;
	} cases[] = {
		{125000, 1250000, "burst 125000b catchup 1250000b queues 8 "},
		{64, 64, "burst 64b catchup 64b queues 8 "},
		{65536, 4 << 20, "burst 64Kb catchup 4Mb queues 8 "},
		{3028, 3 << 10, "burst 3028b catchup 3Kb queues 8 "},
		{1u << 30, 1u << 30, "burst 1024Mb catchup 1024Mb queues 8 "},
	};
	for (const auto &c : cases) {
		QdiscOpts o;
		o.burst = c.burst;
		o.catchup = c.catchup;
		Result r = Show({"qdisc", "show", "dev", "lo"}, QdiscDump(o));
		EXPECT_EQ(r.rc, 0) << r.err;
		EXPECT_EQ(r.err, "");
		EXPECT_NE(r.out.find(std::string("rate 10Gbit ") + c.text), std::string::npos)
			<< c.catchup << ": " << r.out;
	}
	QdiscOpts o;
	o.catchup = 1250000;
	o.pool.emplace();
	Result r = Show({"qdisc", "show", "dev", "lo"}, QdiscDump(o));
	EXPECT_EQ(r.out, std::string("qdisc lossless 1: root refcnt 2 rate 10Gbit burst 125000b catchup 1250000b "
				     "queues 8 strict 2 quanta 1514 1514 1514 1514 1514 1514 1514 9000 "
				     "priomap 0 1 2 3 4 5 6 7 0 0 0 0 0 0 0 0 limit 1000 ") +
				 kPoolOptsText + "\n");
	r = Show({"-j", "qdisc", "show", "dev", "lo"}, QdiscDump(o));
	EXPECT_EQ(r.rc, 0) << r.err;
	EXPECT_NE(r.out.find("\"options\":{\"rate\":1250000000,\"burst\":125000,\"catchup\":1250000,\"queues\":8,"),
		  std::string::npos)
		<< r.out;
	TempDir tmp;
	WriteFile(tmp.File("j"), r.out);
	Result py = RunCmd({"python3", "-c",
			    "import json,sys; o=json.load(open(sys.argv[1]))[0]['options'];"
			    " assert o['catchup'] == 1250000 and o['burst'] == 125000, o",
			    tmp.File("j")},
			   {});
	if (py.rc != -1) {
		EXPECT_EQ(py.rc, 0) << py.err << r.out;
	}
	// A kernel without it: no catchup, text or JSON (QdiscOptionsText).
	r = Show({"-j", "qdisc", "show", "dev", "lo"}, QdiscDump({}));
	EXPECT_EQ(r.out.find("catchup"), std::string::npos) << r.out;
	// Too short an attribute is skipped.
	Msg m(RTM_NEWQDISC, NLM_F_MULTI, QdiscTcm());
	m.PutStr(TCA_KIND, "lossless");
	size_t nest = m.Nest(TCA_OPTIONS);
	m.PutT<uint32_t>(TCA_LOSSLESS_BURST_BYTES, 1514);
	m.PutT<uint16_t>(TCA_LOSSLESS_CATCHUP_BYTES, 7);
	m.End(nest);
	r = Show({"qdisc", "show", "dev", "lo"}, m.Bytes());
	EXPECT_EQ(r.rc, 0) << r.err;
	EXPECT_EQ(r.out, "qdisc lossless 1: root refcnt 2 burst 1514b \n");
}

// ---- round trip: printed options parse back to the same attributes --------

std::string OptionsOf(const std::string &show_line)
{
	const std::string anchor = "refcnt 2 ";
	size_t p = show_line.find(anchor);
	if (p == std::string::npos)
		return "";
	std::string s = show_line.substr(p + anchor.size());
	while (!s.empty() && (s.back() == '\n' || s.back() == ' '))
		s.pop_back();
	return s;
}

// The dump of o, printed by `tc qdisc show`, parses back with `tc qdisc
// add` to the same request; what is printed contains must_print.
void ExpectPrintedOptionsParseBack(const QdiscOpts &o, const std::string &must_print = "")
{
	std::string dump = QdiscDump(o);
	Result shown = Show({"qdisc", "show", "dev", "lo"}, dump);
	ASSERT_EQ(shown.rc, 0) << shown.err;
	std::string opts = OptionsOf(shown.out);
	ASSERT_FALSE(opts.empty()) << shown.out;
	ASSERT_NE(opts.find(must_print), std::string::npos) << shown.out;

	Sent added = TcQdisc(opts);
	EXPECT_EQ(added.r.err.find("lossless: "), std::string::npos) << opts << "\n" << added.r.err;
	const std::vector<std::string> &sent = added.requests;
	std::vector<std::string> want = DecodeCapture(dump);
	ASSERT_EQ(sent.size(), 1u) << added.r.err;
	ASSERT_EQ(want.size(), 1u);
	EXPECT_EQ(sent[0], want[0]) << "printed: " << opts;
}

TEST(TcPluginRoundTrip, PrintedOptionsParseBackIdentically)
{
	std::vector<QdiscOpts> variants(4);
	variants[1].rate_bps = 1600000000000ULL;
	variants[1].burst = 1073741824;
	variants[1].queues = 64;
	variants[1].strict = 64;
	variants[1].quanta.assign(64, 16777216);
	variants[1].limit = 1048576;
	variants[2].rate_bps = 8000;
	variants[2].burst = 64;
	variants[2].queues = 1;
	variants[2].strict = 0;
	variants[2].priomap.assign(16, 0);
	variants[2].quanta = {1};
	variants[2].limit = 1;
	variants[3].rate_bps = 2500000000ULL;
	variants[3].burst = 30001;
	variants[3].queues = 4;
	variants[3].priomap = {3, 3, 2, 1, 0, 3, 3, 3, 0, 1, 2, 3, 0, 1, 2, 3};
	variants[3].quanta = {1514, 3028, 4542, 9000};
	variants[3].gates = {0, 0x108, 0, 0x1003};
	// Pool options: defaults, extremes, "none" and "ecn off", odd values.
	for (int i = 0; i < 4; i++)
		variants.push_back(variants[i]);
	variants[4].pool.emplace();
	variants[5].pool.emplace();
	*variants[5].pool = {"Ab-9_.xxxxxxxxx", 1ULL << 40, 65535u << 8 | 32, 1u << 8, 0x00,
			     4294967295u, 4294967295u, 1000000000, 1000000000, 4294967295u,
			     4294967294u, 4294967295u, 65536};
	variants[6].pool.emplace();
	*variants[6].pool = {"-", 1, 3u << 8 | 2, 2u << 8 | 1, 0xff, 0, 0, 0, 1, 1, 0, 0, 0};
	variants[7].pool.emplace();
	*variants[7].pool = {"p.1", 1536 + (5ULL << 30), 7u << 8 | 31, 1u << 8 | 5, 0x81, 1023, 1025,
			     1234567, 999999999, 12345, 1, 2, 1};
	// catchup as the kernel dumps it (at least burst), with and without a pool.
	const std::pair<int, uint32_t> catchups[] = {
		{0, 1250000},		// burst 125000
		{1, 1073741824},	// burst 1gb too: "1024Mb"
		{2, 64},		// burst 64
		{3, 90003},		// burst 30001
		{6, 64 << 10},		// in a pool, burst 64
	};
	for (const auto &[from, catchup] : catchups) {
		variants.push_back(variants[from]);
		variants.back().catchup = catchup;
	}
	for (const QdiscOpts &o : variants)
		ASSERT_NO_FATAL_FAILURE(ExpectPrintedOptionsParseBack(o));
}

// ---- PFC watchdog: options, printing, xstats ------------------------------

const RejectCase kWdRejects[] = {
	{"PfcwdBadAction", "pfcwd drp", "invalid pfcwd \"drp\": must be off, alert, forward or drop"},
	{"PfcwdActionIsCaseSensitive", "pfcwd DROP", "invalid pfcwd \"DROP\": must be off, alert, forward or drop"},
	{"PfcwdActionNumber", "pfcwd 3", "invalid pfcwd \"3\": must be off, alert, forward or drop"},
	{"PfcwdMissing", "pfcwd", "option \"pfcwd\" needs a value"},
	{"PfcwdDuplicate", "pfcwd drop pfcwd alert", "duplicate \"pfcwd\""},
	{"PfcwdKeywordIsCaseSensitive", "PFCWD drop", "unknown option \"PFCWD\""},
	{"PfcwdDetectSpelledOut", "pfcwd-detection 200ms", "unknown option \"pfcwd-detection\""},
	{"DetectBelowMin", "pfcwd-detect 999us",
	 "invalid pfcwd-detect \"999us\": must be a time 1ms .. 60s with a unit ns, us, ms or s (5us, 1ms)"},
	{"DetectZero", "pfcwd-detect 0ms", "invalid pfcwd-detect \"0ms\": must be a time 1ms .. 60s"},
	{"DetectOff", "pfcwd-detect off", "invalid pfcwd-detect \"off\": must be a time 1ms .. 60s"},
	{"DetectAboveMax", "pfcwd-detect 61s", "invalid pfcwd-detect \"61s\": must be a time 1ms .. 60s"},
	{"DetectAboveMaxByOneNs", "pfcwd-detect 60000000001ns", "invalid pfcwd-detect \"60000000001ns\": must be a time 1ms .. 60s"},
	{"DetectNoUnit", "pfcwd-detect 200", "invalid pfcwd-detect \"200\": must be a time 1ms .. 60s with a unit ns, us, ms or s (5us, 1ms)"},
	{"DetectNegative", "pfcwd-detect -200ms", "invalid pfcwd-detect \"-200ms\": must be a time"},
	{"DetectMissing", "pfcwd-detect", "option \"pfcwd-detect\" needs a value"},
	{"DetectDuplicate", "pfcwd-detect 1s pfcwd-detect 1s", "duplicate \"pfcwd-detect\""},
	{"RestoreAboveMax", "pfcwd-restore 60001ms", "invalid pfcwd-restore \"60001ms\": must be a time 1ms .. 60s"},
	{"RestoreBelowMin", "pfcwd-restore 500us", "invalid pfcwd-restore \"500us\": must be a time 1ms .. 60s"},
	{"RestoreDuplicate", "pfcwd-restore 1s pfcwd-restore 2s", "duplicate \"pfcwd-restore\""},
	{"PollBelowMin", "pfcwd-poll 100us", "invalid pfcwd-poll \"100us\": must be a time 1ms .. 60s"},
	{"PollZero", "pfcwd-poll 0", "invalid pfcwd-poll \"0\": must be a time 1ms .. 60s"},
	{"PollDuplicate", "pfcwd-poll 1ms pfcwd-poll 1ms", "duplicate \"pfcwd-poll\""},
	// The cross-checks, between values on the same line.
	{"PollAboveDetect", "pfcwd-detect 200ms pfcwd-poll 300ms",
	 "invalid pfcwd-poll 300ms: must be 1ms .. 200ms (at most pfcwd-detect 200ms)"},
	{"PollAboveRestoreBefore", "pfcwd-poll 150ms pfcwd-restore 100ms",
	 "invalid pfcwd-poll 150ms: must be 1ms .. 100ms (at most pfcwd-restore 100ms)"},
	{"PollAboveBothNamesTheSmaller", "pfcwd-poll 1s pfcwd-detect 500ms pfcwd-restore 300ms",
	 "invalid pfcwd-poll 1s: must be 1ms .. 300ms (at most pfcwd-restore 300ms)"},
	{"PollAboveBothEqual", "pfcwd-poll 2s pfcwd-detect 1500ms pfcwd-restore 1500ms",
	 "invalid pfcwd-poll 2s: must be 1ms .. 1500ms (at most pfcwd-detect 1500ms)"},
	{"PollAboveDetectOnly", "pfcwd-poll 250ms pfcwd-detect 200ms pfcwd-restore 300ms",
	 "invalid pfcwd-poll 250ms: must be 1ms .. 200ms (at most pfcwd-detect 200ms)"},
	{"XoffAlarmBelowPoll", "pfcwd-poll 100ms xoff-alarm 50ms",
	 "invalid xoff-alarm 50ms: must be off or 100ms .. 3600s (at least pfcwd-poll 100ms)"},
	{"XoffAlarmBelowPollBefore", "xoff-alarm 1500us pfcwd-poll 2ms",
	 "invalid xoff-alarm 1500us: must be off or 2ms .. 3600s (at least pfcwd-poll 2ms)"},
	{"XoffAlarmBelowMin", "xoff-alarm 500us",
	 "invalid xoff-alarm \"500us\": must be off (or 0) or a time 1ms .. 3600s with a unit ns, us, ms or s (5us, 1ms)"},
	{"XoffAlarmAboveMax", "xoff-alarm 3601s", "invalid xoff-alarm \"3601s\": must be off (or 0) or a time 1ms .. 3600s"},
	{"XoffAlarmOn", "xoff-alarm on", "invalid xoff-alarm \"on\": must be off (or 0) or a time"},
	{"XoffAlarmNoUnit", "xoff-alarm 5", "invalid xoff-alarm \"5\": must be off (or 0) or a time"},
	{"XoffAlarmNegative", "xoff-alarm -1ms", "invalid xoff-alarm \"-1ms\": must be off (or 0) or a time"},
	{"XoffAlarmMissing", "pfcwd drop xoff-alarm", "option \"xoff-alarm\" needs a value"},
	{"XoffAlarmDuplicate", "xoff-alarm off xoff-alarm 1s", "duplicate \"xoff-alarm\""},
	// On a change too (the plugin cannot know the qdisc's other values).
	{"PollAboveDetectOnChange", "pfcwd-detect 1ms pfcwd-poll 2ms",
	 "invalid pfcwd-poll 2ms: must be 1ms .. 1ms (at most pfcwd-detect 1ms)", "change"},
};

INSTANTIATE_TEST_SUITE_P(Watchdog, ParseReject, ::testing::ValuesIn(kWdRejects),
			 [](const auto &info) { return std::string(info.param.name); });

const AcceptCase kWdAccepts[] = {
	{"PfcwdOff", "pfcwd off", "wd{action=0}"},
	{"PfcwdAlert", "pfcwd alert", "wd{action=1}"},
	{"PfcwdForward", "pfcwd forward", "wd{action=2}"},
	{"PfcwdDrop", "pfcwd drop", "wd{action=3}"},
	// Only the fields given: the kernel keeps the others.
	{"DetectOnly", "pfcwd-detect 400ms", "wd{detect=400000000}"},
	{"RestoreOnly", "pfcwd-restore 1s", "wd{restore=1000000000}"},
	{"PollOnly", "pfcwd-poll 50ms", "wd{poll=50000000}"},
	// Against the qdisc's detect time (200ms on a new one) the kernel checks.
	{"PollWithoutDetectLeftToKernel", "pfcwd-poll 300ms", "wd{poll=300000000}"},
	{"TimesMin", "pfcwd-detect 1ms pfcwd-restore 1000us pfcwd-poll 1000000ns",
	 "wd{detect=1000000 restore=1000000 poll=1000000}"},
	{"TimesMax", "pfcwd-detect 60s pfcwd-restore 60000ms pfcwd-poll 60sec",
	 "wd{detect=60000000000 restore=60000000000 poll=60000000000}"},
	{"TimesRoundedToNs", "pfcwd-detect 1.0000004ms", "wd{detect=1000000}"},
	{"PollEqualsDetectAndRestore", "pfcwd-detect 100ms pfcwd-poll 100ms pfcwd-restore 100ms",
	 "wd{detect=100000000 restore=100000000 poll=100000000}"},
	{"XoffAlarm", "xoff-alarm 2s", "wd{xoff_alarm=2000000000}"},
	{"XoffAlarmOff", "xoff-alarm off", "wd{xoff_alarm=0}"},
	{"XoffAlarmZero", "xoff-alarm 0", "wd{xoff_alarm=0}"},
	{"XoffAlarmZeroWithUnit", "xoff-alarm 0ms", "wd{xoff_alarm=0}"},
	{"XoffAlarmMin", "xoff-alarm 1ms", "wd{xoff_alarm=1000000}"},
	{"XoffAlarmMax", "xoff-alarm 3600s", "wd{xoff_alarm=3600000000000}"},
	{"XoffAlarmEqualsPoll", "xoff-alarm 100ms pfcwd-poll 100ms", "wd{poll=100000000 xoff_alarm=100000000}"},
	{"XoffAlarmOffWithLongPoll", "pfcwd-poll 1s xoff-alarm off", "wd{poll=1000000000 xoff_alarm=0}"},
	{"All", "pfcwd forward pfcwd-detect 400ms pfcwd-restore 1s pfcwd-poll 50ms xoff-alarm 2s",
	 "wd{action=2 detect=400000000 restore=1000000000 poll=50000000 xoff_alarm=2000000000}"},
	{"AllReordered", "xoff-alarm 2s pfcwd-poll 50ms pfcwd-restore 1s pfcwd-detect 400ms pfcwd forward",
	 "wd{action=2 detect=400000000 restore=1000000000 poll=50000000 xoff_alarm=2000000000}"},
	// Not a pool option: "add" takes it without "pool".
	{"WithOtherOptions", "pfcwd drop rate 10gbit quanta 1514 limit 5 pool sw0 sw-delay 1ms",
	 "rate=10000000000 quanta=1514 limit=5 pool=sw0 sw_delay=1000000 wd{action=3}"},
	{"OnReplace", "pfcwd off xoff-alarm off", "wd{action=0 xoff_alarm=0}", "replace"},
};

INSTANTIATE_TEST_SUITE_P(Watchdog, ParseAccept, ::testing::ValuesIn(kWdAccepts),
			 [](const auto &info) { return std::string(info.param.name); });

// The kernel parses TCA_OPTIONS strictly: the nest must carry NLA_F_NESTED.
TEST(TcPluginWatchdog, NestCarriesNlaFNested)
{
	TempDir tmp;
	Tc({"qdisc", "add", "dev", "lo", "root", "lossless", "pfcwd", "alert"}, Capture(tmp.File("cap")));
	std::string data = ReadFile(tmp.File("cap"));
	ASSERT_GE(data.size(), NLMSG_LENGTH(sizeof(tcmsg)));
	const auto *h = reinterpret_cast<const nlmsghdr *>(data.data());
	ASSERT_EQ(h->nlmsg_type, RTM_NEWQDISC);
	int len = h->nlmsg_len - NLMSG_LENGTH(sizeof(tcmsg));
	const auto *t = static_cast<const tcmsg *>(NLMSG_DATA(h));
	int found = 0;
	for (const rtattr *a = TCA_RTA(t); RTA_OK(a, len); a = RTA_NEXT(a, len)) {
		if ((a->rta_type & NLA_TYPE_MASK) != TCA_OPTIONS)
			continue;
		int olen = RTA_PAYLOAD(a);
		for (const rtattr *o = static_cast<const rtattr *>(RTA_DATA(a)); RTA_OK(o, olen);
		     o = RTA_NEXT(o, olen)) {
			if ((o->rta_type & NLA_TYPE_MASK) != TCA_LOSSLESS_WATCHDOG)
				continue;
			found++;
			EXPECT_TRUE(o->rta_type & NLA_F_NESTED);
			EXPECT_EQ(DecodeWatchdog(o), "wd{action=1}");
		}
	}
	EXPECT_EQ(found, 1);
}

const char *kWdOptsText = "pfcwd drop pfcwd-detect 200ms pfcwd-restore 200ms pfcwd-poll 100ms xoff-alarm off ";

TEST(TcPluginWatchdog, OptionsText)
{
	QdiscOpts o;
	o.wd.emplace();
	Result r = Show({"qdisc", "show", "dev", "lo"}, QdiscDump(o));
	EXPECT_EQ(r.rc, 0) << r.err;
	EXPECT_EQ(r.err, "");
	EXPECT_EQ(r.out, std::string("qdisc lossless 1: root refcnt 2 ") + kDefaultOptsText + kWdOptsText + "\n");
	// After the pool's options.
	o.pool.emplace();
	r = Show({"qdisc", "show", "dev", "lo"}, QdiscDump(o));
	EXPECT_EQ(r.out, std::string("qdisc lossless 1: root refcnt 2 ") + kDefaultOptsText + kPoolOptsText +
				 kWdOptsText + "\n");
	// Without the nest (the watchdog is off): nothing.
	r = Show({"qdisc", "show", "dev", "lo"}, QdiscDump({}));
	EXPECT_EQ(r.out.find("pfcwd"), std::string::npos) << r.out;
	EXPECT_EQ(r.out.find("xoff-alarm"), std::string::npos) << r.out;
}

TEST(TcPluginWatchdog, OptionForms)
{
	struct {
		QdiscOpts::Watchdog wd;
		const char *text;
	} cases[] = {
		{{LOSSLESS_WD_OFF, 200000000, 200000000, 100000000, 2000000000},
		 "pfcwd off pfcwd-detect 200ms pfcwd-restore 200ms pfcwd-poll 100ms xoff-alarm 2s "},
		{{LOSSLESS_WD_ALERT, 1000000, 60000000000ULL, 1000000, 3600000000000ULL},
		 "pfcwd alert pfcwd-detect 1ms pfcwd-restore 60s pfcwd-poll 1ms xoff-alarm 3600s "},
		{{LOSSLESS_WD_FORWARD, 1500000, 2500000000ULL, 1250000, 2000001},
		 "pfcwd forward pfcwd-detect 1500us pfcwd-restore 2500ms pfcwd-poll 1250us xoff-alarm 2000001ns "},
		{{9, 200000000, 200000000, 100000000, 0},
		 "pfcwd 9 pfcwd-detect 200ms pfcwd-restore 200ms pfcwd-poll 100ms xoff-alarm off "},
	};
	for (const auto &c : cases) {
		QdiscOpts o;
		o.wd = c.wd;
		Result r = Show({"qdisc", "show", "dev", "lo"}, QdiscDump(o));
		EXPECT_EQ(r.rc, 0) << r.err;
		EXPECT_NE(r.out.find(std::string("limit 1000 ") + c.text + "\n"), std::string::npos) << r.out;
	}
}

TEST(TcPluginWatchdog, OptionsJson)
{
	QdiscOpts o;
	o.wd.emplace();
	o.wd->xoff_alarm_ns = 5000000000ULL;
	Result r = Show({"-j", "qdisc", "show", "dev", "lo"}, QdiscDump(o));
	EXPECT_EQ(r.rc, 0) << r.err;
	EXPECT_NE(r.out.find("\"limit\":1000,\"pfcwd\":\"drop\",\"pfcwd_detect\":200000000,"
			     "\"pfcwd_restore\":200000000,\"pfcwd_poll\":100000000,\"xoff_alarm\":5000000000}}]\n"),
		  std::string::npos)
		<< r.out;
	o.wd->xoff_alarm_ns = 0;
	r = Show({"-j", "qdisc", "show", "dev", "lo"}, QdiscDump(o));
	EXPECT_NE(r.out.find("\"pfcwd_poll\":100000000,\"xoff_alarm\":0}}]\n"), std::string::npos) << r.out;
	TempDir tmp;
	WriteFile(tmp.File("j"), r.out);
	Result py = RunCmd({"python3", "-c",
			    "import json,sys; o=json.load(open(sys.argv[1]))[0]['options'];"
			    " assert (o['pfcwd'], o['pfcwd_detect'], o['xoff_alarm']) == ('drop', 200000000, 0), o",
			    tmp.File("j")},
			   {});
	if (py.rc != -1) {
		EXPECT_EQ(py.rc, 0) << py.err << r.out;
	}
}

// Attributes that are missing or too short are left out, the rest prints.
TEST(TcPluginWatchdog, PartialNest)
{
	Msg m(RTM_NEWQDISC, NLM_F_MULTI, QdiscTcm());
	m.PutStr(TCA_KIND, "lossless");
	size_t nest = m.Nest(TCA_OPTIONS);
	m.PutT<uint8_t>(TCA_LOSSLESS_QUEUES, 3);
	size_t wd = m.Nest(TCA_LOSSLESS_WATCHDOG);
	m.PutT<uint8_t>(TCA_LOSSLESS_WD_ACTION, LOSSLESS_WD_ALERT);
	m.PutT<uint32_t>(TCA_LOSSLESS_WD_DETECT_NS, 7);		// too short: skipped
	m.PutT<uint64_t>(TCA_LOSSLESS_WD_POLL_NS, 5000000);
	m.PutT<uint64_t>(TCA_LOSSLESS_WD_MAX + 3, 1);		// unknown: ignored
	m.End(wd);
	m.End(nest);
	Result r = Show({"qdisc", "show", "dev", "lo"}, m.Bytes());
	EXPECT_EQ(r.rc, 0) << r.err;
	EXPECT_EQ(r.out, "qdisc lossless 1: root refcnt 2 queues 3 pfcwd alert pfcwd-poll 5ms \n");
}

TEST(TcPluginWatchdog, PrintedOptionsParseBackIdentically)
{
	std::vector<QdiscOpts> variants(6);
	variants[0].wd.emplace();
	variants[1].wd = QdiscOpts::Watchdog{LOSSLESS_WD_OFF, 1000000, 60000000000ULL, 1000000, 3600000000000ULL};
	variants[2].wd = QdiscOpts::Watchdog{LOSSLESS_WD_ALERT, 1500000, 2500000000ULL, 1250000, 2000001};
	variants[3].wd = QdiscOpts::Watchdog{LOSSLESS_WD_FORWARD, 333333333, 444444444, 3000000, 0};
	variants[4].pool.emplace();
	variants[4].wd = QdiscOpts::Watchdog{LOSSLESS_WD_DROP, 200000000, 200000000, 100000000, 1000000000};
	variants[5].catchup = 1250000;
	variants[5].pool.emplace();
	variants[5].wd.emplace();
	for (const QdiscOpts &o : variants)
		ASSERT_NO_FATAL_FAILURE(ExpectPrintedOptionsParseBack(o, "pfcwd"));
}

// Storms on 3 (now, dropping) and 5 (over), the XOFF alarm raised on 4.
tc_lossless_xstats SampleWdXstats()
{
	tc_lossless_xstats st = SampleQdiscXstats();
	st.wd_action = LOSSLESS_WD_DROP;
	st.wd_storm_mask = 1u << 3;
	st.wd_alarm_mask = 1u << 4;
	st.wd[3] = {.storm = 1, .xoff_alarm = 0, .pad = 0, .storms = 2, .restores = 1, .xoff_alarms = 0, .dropped = 120, .storm_ns = 1500000000, .xoff_ns = 0};
	st.wd[4] = {.storm = 0, .xoff_alarm = 1, .pad = 0, .storms = 0, .restores = 0, .xoff_alarms = 1, .dropped = 0, .storm_ns = 0, .xoff_ns = 2500000000ULL};
	st.wd[5] = {.storm = 0, .xoff_alarm = 0, .pad = 0, .storms = 1, .restores = 1, .xoff_alarms = 0, .dropped = 0, .storm_ns = 200000000, .xoff_ns = 0};
	return st;
}

const char *kWdStatsText =
	"  pfcwd drop storm prio 3 xoff_alarm prio 4\n"
	"  pfcwd prio 3 storm yes storms 2 restores 1 dropped 120 storm_time 1.5s xoff_alarm no xoff_alarms 0 xoff_time 0ns\n"
	"  pfcwd prio 4 storm no storms 0 restores 0 dropped 0 storm_time 0ns xoff_alarm yes xoff_alarms 1 xoff_time 2.5s\n"
	"  pfcwd prio 5 storm no storms 1 restores 1 dropped 0 storm_time 200ms xoff_alarm no xoff_alarms 0 xoff_time 0ns\n";

TEST(TcPluginWatchdog, XstatsText)
{
	tc_lossless_xstats st = SampleWdXstats();
	Result r = Show({"-s", "qdisc", "show", "dev", "lo"}, QdiscDump({}, &st, sizeof(st)));
	EXPECT_EQ(r.rc, 0) << r.err;
	EXPECT_EQ(r.out, std::string("qdisc lossless 1: root refcnt 2 ") + kDefaultOptsText + "\n" + kStatsHead +
				 kWdStatsText);
	// In a pool: after the ingress priorities.
	QdiscOpts o;
	o.pool.emplace();
	tc_lossless_xstats ps = SamplePoolXstats();
	std::memcpy(&ps.wd_action, &st.wd_action,
		    sizeof(st) - offsetof(tc_lossless_xstats, wd_action));
	r = Show({"-s", "qdisc", "show", "dev", "lo"}, QdiscDump(o, &ps, sizeof(ps)));
	EXPECT_EQ(r.rc, 0) << r.err;
	EXPECT_NE(r.out.find("  ingress prio 6 lossy bytes 1b peak 0b headroom 0b/0b peak 0b threshold 512Kb "
			     "xoff 0 xon 0 paused_time 0ns drops 0\n" +
			     std::string(kWdStatsText)),
		  std::string::npos)
		<< r.out;
	EXPECT_EQ(r.out.substr(r.out.size() - std::strlen(kWdStatsText)), kWdStatsText);
}

TEST(TcPluginWatchdog, XstatsTextNoneInStorm)
{
	tc_lossless_xstats st = SampleQdiscXstats();
	st.wd_action = LOSSLESS_WD_ALERT;
	Result r = Show({"-s", "qdisc", "show", "dev", "lo"}, QdiscDump({}, &st, sizeof(st)));
	EXPECT_EQ(r.out, std::string("qdisc lossless 1: root refcnt 2 ") + kDefaultOptsText + "\n" + kStatsHead +
				 "  pfcwd alert storm none xoff_alarm none\n");
	// Turned off with counters left: still shown, with its action.
	st.wd_action = LOSSLESS_WD_OFF;
	st.wd[7].storms = 1;
	st.wd[7].restores = 1;
	st.wd[7].storm_ns = 1000;
	r = Show({"-s", "qdisc", "show", "dev", "lo"}, QdiscDump({}, &st, sizeof(st)));
	EXPECT_EQ(r.out, std::string("qdisc lossless 1: root refcnt 2 ") + kDefaultOptsText + "\n" + kStatsHead +
				 "  pfcwd off storm none xoff_alarm none\n"
				 "  pfcwd prio 7 storm no storms 1 restores 1 dropped 0 storm_time 1us xoff_alarm no "
				 "xoff_alarms 0 xoff_time 0ns\n");
	// Several priorities in storm, an unknown action.
	st.wd_action = 7;
	st.wd_storm_mask = 0x81;
	st.wd_alarm_mask = 0x06;
	r = Show({"-s", "qdisc", "show", "dev", "lo"}, QdiscDump({}, &st, sizeof(st)));
	EXPECT_NE(r.out.find("\n  pfcwd 7 storm prio 0 7 xoff_alarm prio 1 2\n"), std::string::npos) << r.out;
}

// Off and never counted (or turned off, counters zero): no text at all.
TEST(TcPluginWatchdog, XstatsTextNothingWhileOff)
{
	tc_lossless_xstats st = SampleQdiscXstats();
	Result r = Show({"-s", "qdisc", "show", "dev", "lo"}, QdiscDump({}, &st, sizeof(st)));
	EXPECT_EQ(r.out, std::string("qdisc lossless 1: root refcnt 2 ") + kDefaultOptsText + "\n" + kStatsHead);
}

TEST(TcPluginWatchdog, XstatsAllPrioritiesWithDetails)
{
	tc_lossless_xstats st = SampleWdXstats();
	Result r = Show({"-s", "-d", "qdisc", "show", "dev", "lo"}, QdiscDump({}, &st, sizeof(st)));
	EXPECT_EQ(r.rc, 0) << r.err;
	for (unsigned p = 0; p < 8; p++)
		EXPECT_NE(r.out.find("\n  pfcwd prio " + std::to_string(p) + " storm "), std::string::npos)
			<< p << ": " << r.out;
	EXPECT_NE(r.out.find("\n  pfcwd prio 0 storm no storms 0 restores 0 dropped 0 storm_time 0ns "
			     "xoff_alarm no xoff_alarms 0 xoff_time 0ns\n"),
		  std::string::npos)
		<< r.out;
}

TEST(TcPluginWatchdog, XstatsJson)
{
	tc_lossless_xstats st = SampleWdXstats();
	Result r = Show({"-s", "-j", "qdisc", "show", "dev", "lo"}, QdiscDump({}, &st, sizeof(st)));
	EXPECT_EQ(r.rc, 0) << r.err;
	EXPECT_NE(r.out.find("\"paused_time\":3360000000,\"paused\":false}],"
			     "\"pfcwd\":{\"action\":\"drop\",\"storm_mask\":8,\"alarm_mask\":16,\"prios\":["
			     "{\"prio\":0,\"storm\":false,\"storms\":0,\"restores\":0,\"dropped\":0,\"storm_time\":0,"
			     "\"xoff_alarm\":false,\"xoff_alarms\":0,\"xoff_time\":0},"),
		  std::string::npos)
		<< r.out;
	EXPECT_NE(r.out.find("{\"prio\":3,\"storm\":true,\"storms\":2,\"restores\":1,\"dropped\":120,"
			     "\"storm_time\":1500000000,\"xoff_alarm\":false,\"xoff_alarms\":0,\"xoff_time\":0},"
			     "{\"prio\":4,\"storm\":false,\"storms\":0,\"restores\":0,\"dropped\":0,\"storm_time\":0,"
			     "\"xoff_alarm\":true,\"xoff_alarms\":1,\"xoff_time\":2500000000},"),
		  std::string::npos)
		<< r.out;
	TempDir tmp;
	WriteFile(tmp.File("j"), r.out);
	Result py = RunCmd({"python3", "-c",
			    "import json,sys; q=json.load(open(sys.argv[1]))[0]; w=q['pfcwd'];"
			    " assert w['action'] == 'drop' and w['storm_mask'] == 8 and w['alarm_mask'] == 16, w;"
			    " assert [p['prio'] for p in w['prios']] == list(range(8)), w;"
			    " assert all(len(p) == 9 for p in w['prios']), w;"
			    " assert w['prios'][5]['storm_time'] == 200000000, w",
			    tmp.File("j")},
			   {});
	if (py.rc != -1) {
		EXPECT_EQ(py.rc, 0) << py.err << r.out;
	}
	// Off and zero: in JSON all the same, all eight priorities.
	tc_lossless_xstats off = SampleQdiscXstats();
	r = Show({"-s", "-j", "qdisc", "show", "dev", "lo"}, QdiscDump({}, &off, sizeof(off)));
	EXPECT_NE(r.out.find("\"pfcwd\":{\"action\":\"off\",\"storm_mask\":0,\"alarm_mask\":0,\"prios\":[{\"prio\":0,"),
		  std::string::npos)
		<< r.out;
	size_t n = 0;
	for (size_t p = 0; (p = r.out.find("\"xoff_alarms\":", p)) != std::string::npos; p++)
		n++;
	EXPECT_EQ(n, 8u) << r.out;
}

// A kernel before the watchdog (or a cut inside it): nothing, text or JSON.
TEST(TcPluginWatchdog, XstatsNeedTheWholeBlock)
{
	tc_lossless_xstats st = SampleWdXstats();
	for (size_t len : {offsetof(tc_lossless_xstats, wd_action), offsetof(tc_lossless_xstats, wd),
			   offsetof(tc_lossless_xstats, wd[7]),
			   offsetof(tc_lossless_xstats, wd) + sizeof(st.wd) - 1}) {
		Result r = Show({"-s", "qdisc", "show", "dev", "lo"}, QdiscDump({}, &st, len));
		EXPECT_EQ(r.rc, 0) << r.err;
		EXPECT_EQ(r.out, std::string("qdisc lossless 1: root refcnt 2 ") + kDefaultOptsText + "\n" + kStatsHead)
			<< len;
		r = Show({"-s", "-j", "qdisc", "show", "dev", "lo"}, QdiscDump({}, &st, len));
		EXPECT_EQ(r.rc, 0) << r.err;
		EXPECT_EQ(r.out.find("pfcwd"), std::string::npos) << len << ": " << r.out;
		EXPECT_NE(r.out.find("\"wake_late\":["), std::string::npos) << len << ": " << r.out;
	}
	// A newer kernel's longer blob: printed as usual.
	std::string big(sizeof(st) + 32, '\x7f');
	memcpy(big.data(), &st, sizeof(st));
	Result r = Show({"-s", "qdisc", "show", "dev", "lo"}, QdiscDump({}, big.data(), big.size()));
	EXPECT_EQ(r.out, std::string("qdisc lossless 1: root refcnt 2 ") + kDefaultOptsText + "\n" + kStatsHead +
				 kWdStatsText);
}

}  // namespace

namespace {

// The pool's scheme on the port (DSH, SPFC): printed from the names of
// its descriptor's names (scheme.h), only when the kernel sent it for such a scheme.
tc_lossless_xstats SampleDshXstats()
{
	tc_lossless_xstats st = SamplePoolXstats();
	st.sch.scheme = LOSSLESS_SCHEME_DSH;
	st.sch.masks = (1u << 3) | ((1u << 3 | 1u << 4) << 8);	// QOFF 3, POFF
	st.sch.ctr[0] = 12;		// qoff_pauses
	st.sch.ctr[1] = 1;		// poff_pauses
	st.sch.ctr[2] = 0;		// insurance_used
	st.sch.ctr[3] = 9 << 10;	// insurance_peak
	st.sch.ctr[4] = 0;		// shared_headroom_used
	st.sch.ctr[5] = 3000;		// shared_headroom_peak
	st.sch.ctr[6] = 12 << 10;	// port_shared
	st.sch.prio[3] = 1500;		// tau
	return st;
}

TEST(TcPluginPrint, SchemeXstatsDshText)
{
	QdiscOpts o;
	o.pool.emplace();
	tc_lossless_xstats st = SampleDshXstats();
	Result r = Show({"-s", "qdisc", "show", "dev", "lo"}, QdiscDump(o, &st, sizeof(st)));
	EXPECT_EQ(r.rc, 0) << r.err;
	EXPECT_NE(r.out.find(" drops 0\n"
			     "  scheme dsh qoff prio 3 poff prio 3 4 single_queue none\n"
			     "  qoff_pauses 12 poff_pauses 1 insurance_used 0b insurance_peak 9Kb"
			     " shared_headroom_used 0b shared_headroom_peak 3000b port_shared 12Kb\n"
			     "  tau prio3 1500b prio4 0b\n"),
		  std::string::npos)
		<< r.out;
	// Only the watchdog's part before it: not printed, all zero.
	EXPECT_EQ(r.out.find("pfcwd"), std::string::npos) << r.out;
}

TEST(TcPluginPrint, SchemeXstatsSpfcJson)
{
	tc_lossless_xstats st = SamplePoolXstats();
	st.sch.scheme = LOSSLESS_SCHEME_SPFC;
	st.sch.masks = (1u << 4) | (1u << 4 << 8) | (1u << 3 << 24);
	st.sch.ctr[0] = 5;		// to_victim
	st.sch.ctr[1] = 4;		// to_normal
	st.sch.ctr[2] = 2500000;	// victim_time, ns
	st.sch.ctr[3] = 7;		// pauses_normal
	st.sch.ctr[4] = 1;		// pauses_victim
	st.sch.ctr[5] = 200000;		// trigger_peak
	st.sch.ctr[6] = 250000;		// irc_threshold
	st.sch.prio[4] = 260000;	// last_window
	Result r = Show({"-s", "-j", "qdisc", "show", "dev", "lo"}, QdiscDump({}, &st, sizeof(st)));
	EXPECT_EQ(r.rc, 0) << r.err;
	EXPECT_NE(r.out.find("\"scheme_stats\":{\"scheme\":\"spfc\",\"victim\":[4],\"sh\":[4],"
			     "\"forced_victim\":[],\"forced_normal\":[3],\"to_victim\":5,\"to_normal\":4,"
			     "\"victim_time\":2500000,\"pauses_normal\":7,\"pauses_victim\":1,"
			     "\"trigger_peak\":200000,\"irc_threshold\":250000,"
			     "\"last_window\":[0,0,0,0,260000,0,0,0]}"),
		  std::string::npos)
		<< r.out;
	r = Show({"-s", "qdisc", "show", "dev", "lo"}, QdiscDump({}, &st, sizeof(st)));
	EXPECT_NE(r.out.find("  scheme spfc victim prio 4 sh prio 4 forced_victim none forced_normal prio 3\n"
			     "  to_victim 5 to_normal 4 victim_time 2.5ms pauses_normal 7 pauses_victim 1"
			     " trigger_peak 200000b irc_threshold 250000\n"
			     "  last_window prio3 0 prio4 260000\n"),
		  std::string::npos)
		<< r.out;
}

// DT and ST have no scheme telemetry (scheme 0), and a kernel that did not
// send the block (shorter struct) prints none either.
TEST(TcPluginPrint, SchemeXstatsOnlyWhenSent)
{
	tc_lossless_xstats st = SampleDshXstats();
	Result r = Show({"-s", "qdisc", "show", "dev", "lo"},
			QdiscDump({}, &st, offsetof(tc_lossless_xstats, sch)));
	EXPECT_EQ(r.rc, 0) << r.err;
	EXPECT_EQ(r.out.find("scheme"), std::string::npos) << r.out;
	st.sch.scheme = 0;
	r = Show({"-s", "-j", "qdisc", "show", "dev", "lo"}, QdiscDump({}, &st, sizeof(st)));
	EXPECT_EQ(r.out.find("scheme_stats"), std::string::npos) << r.out;
}

}  // namespace

// ---- port modes: options, printing, xstats ---------------------------------

const RejectCase kModeRejects[] = {
	{"ModeUnknown", "pool p mode bifrostx", "invalid mode \"bifrostx\": must be one of none, bifrost"},
	{"ModeMissing", "pool p mode", "option \"mode\" needs a value"},
	{"ModeDuplicate", "pool p mode bifrost mode none", "duplicate \"mode\""},
	{"ModeNeedsPool", "mode bifrost bifrost-rtt 40ms", "option \"mode\" needs \"pool NAME\""},
	{"ModeParamWithoutMode", "pool p bifrost-rtt 40ms",
	 "option \"bifrost-rtt\" needs \"mode bifrost\" in the same command"},
	{"ModeParamOfAnotherMode", "pool p mode none bifrost-rtt 40ms",
	 "option \"bifrost-rtt\" is a parameter of mode bifrost, not none"},
	{"BifrostRttNoUnit", "pool p mode bifrost bifrost-rtt 40", "invalid bifrost-rtt \"40\": must be"},
	{"BifrostRttAboveMax", "pool p mode bifrost bifrost-rtt 3s", "invalid bifrost-rtt \"3s\": must be"},
	{"BifrostKZero", "pool p mode bifrost bifrost-rtt 40ms bifrost-k 0", "invalid bifrost-k \"0\": must be"},
	{"BifrostKAboveMax", "pool p mode bifrost bifrost-rtt 40ms bifrost-k 1025",
	 "invalid bifrost-k \"1025\": must be"},
	{"BifrostParamDuplicate", "pool p mode bifrost bifrost-rtt 40ms bifrost-rtt 1ms",
	 "duplicate \"bifrost-rtt\""},
};

INSTANTIATE_TEST_SUITE_P(Mode, ParseReject, ::testing::ValuesIn(kModeRejects),
			 [](const auto &info) { return std::string(info.param.name); });

const AcceptCase kModeAccepts[] = {
	{"ModeBifrostRtt", "pool p mode bifrost bifrost-rtt 40ms",
	 "pool=p mode{id=1 bifrost{rtt=40000000}}"},
	{"ModeBifrostAll",
	 "pool p mode bifrost bifrost-rtt 40ms bifrost-slot 2500us bifrost-jitter 3ms bifrost-buffer 1mb bifrost-k 4",
	 "pool=p mode{id=1 bifrost{rtt=40000000 slot=2500000 jitter=3000000 buffer=1048576 k=4}}"},
	{"ModeNone", "pool p mode none", "pool=p mode{id=0}"},
	// A pool member's mode changes without "pool".
	{"ModeOfAMember", "mode bifrost bifrost-rtt 2s", "mode{id=1 bifrost{rtt=2000000000}}", "replace"},
};

INSTANTIATE_TEST_SUITE_P(Mode, ParseAccept, ::testing::ValuesIn(kModeAccepts),
			 [](const auto &info) { return std::string(info.param.name); });

TEST(TcPluginMode, HelpListsModesAndTheirParameters)
{
	Sent s = TcQdisc("help");
	EXPECT_NE(s.r.err.find("[ mode { none | bifrost [ bifrost-rtt TIME ]"), std::string::npos)
		<< s.r.err;
	EXPECT_NE(s.r.err.find("[ bifrost-frame pfc|tokens ] } ]"),
		  std::string::npos)
		<< s.r.err;
}

TEST(TcPluginMode, OptionsTextAndRoundTrip)
{
	QdiscOpts o;
	o.pool.emplace();
	o.mode.emplace();
	o.mode->params = {{TCA_LOSSLESS_BIFROST_RTT_NS, 40000000},
			  {TCA_LOSSLESS_BIFROST_SLOT_NS, 2500000},
			  {TCA_LOSSLESS_BIFROST_JITTER_NS, 0},	// the default: not printed
			  {TCA_LOSSLESS_BIFROST_BUFFER_BYTES, 1 << 20},
			  {TCA_LOSSLESS_BIFROST_LEAK_PERIOD, 4}};
	Result r = Show({"qdisc", "show", "dev", "lo"}, QdiscDump(o));
	EXPECT_EQ(r.rc, 0) << r.err;
	EXPECT_NE(r.out.find("mode bifrost bifrost-rtt 40ms bifrost-slot 2500us bifrost-buffer 1Mb bifrost-k 4 "),
		  std::string::npos)
		<< r.out;
	EXPECT_EQ(r.out.find("bifrost-jitter"), std::string::npos) << r.out;
	r = Show({"-j", "qdisc", "show", "dev", "lo"}, QdiscDump(o));
	EXPECT_NE(r.out.find("\"mode\":\"bifrost\",\"bifrost_rtt\":40000000,\"bifrost_slot\":2500000,"
			     "\"bifrost_buffer\":1048576,\"bifrost_k\":4"),
		  std::string::npos)
		<< r.out;
	// What is printed parses back to the dumped mode (0s are left out;
	// tc's nests carry NLA_F_NESTED, the kernel's dump does not).
	o.mode->params.erase(o.mode->params.begin() + 2);
	Result shown = Show({"qdisc", "show", "dev", "lo"}, QdiscDump(o));
	Sent added = TcQdisc(OptionsOf(shown.out));
	ASSERT_EQ(added.requests.size(), 1u) << added.r.err;
	std::vector<std::string> want = DecodeCapture(QdiscDump(o));
	ASSERT_EQ(want.size(), 1u);
	for (std::string flag = "(no NLA_F_NESTED)"; want[0].find(flag) != std::string::npos;)
		want[0].erase(want[0].find(flag), flag.size());
	EXPECT_EQ(added.requests[0], want[0]);
}

tc_lossless_xstats SampleModeXstats()
{
	tc_lossless_xstats st = SamplePoolXstats();
	st.mode.mode = LOSSLESS_MODE_BIFROST;
	for (unsigned i = 0; i < LOSSLESS_MODE_STATS; i++)
		st.mode.ctr[i] = i + 1;
	st.mode.ctr[3] = 2500000;	// pause: ns
	st.mode.ctr[11] = 1;		// restarts
	st.mode.ctr[12] = 40000000;	// max_late: ns
	st.mode.late_hist[0] = 10;
	st.mode.late_hist[5] = 3;	// [16, 32) us
	st.mode.late_hist[LOSSLESS_MODE_HIST - 1] = 1;	// >= 65.5 ms
	for (unsigned p = 0; p < LOSSLESS_PFC_PRIOS; p++) {
		st.mode.prio[0][p] = 1000 * (p + 1);	// tokens: bytes
		st.mode.prio[1][p] = p;			// cut_slots
	}
	return st;
}

TEST(TcPluginMode, XstatsTextAndJson)
{
	QdiscOpts o;
	o.pool.emplace();
	tc_lossless_xstats st = SampleModeXstats();
	Result r = Show({"-s", "qdisc", "show", "dev", "lo"}, QdiscDump(o, &st, sizeof(st)));
	EXPECT_EQ(r.rc, 0) << r.err;
	EXPECT_NE(r.out.find("  mode bifrost slots 1 frames 2 full_pauses 3 pause 2.5ms missed_slots 5"
			     " late_grant 6b leak 7b breaches 8 max_queue 9b max_lf 10b min_margin 11b"
			     " restarts 1 max_late 40ms wakes 14 max_rtt 15ns\n"),
		  std::string::npos)
		<< r.out;
	EXPECT_EQ(r.out.find("slot lateness"), std::string::npos) << "-d only: " << r.out;
	// Per priority, the lossless ones (all eight with -d, in JSON).
	EXPECT_NE(r.out.find("\n  tokens prio3 4000b prio4 5000b\n  cut_slots prio3 3 prio4 4\n"), std::string::npos)
		<< r.out;
	r = Show({"-s", "-d", "qdisc", "show", "dev", "lo"}, QdiscDump(o, &st, sizeof(st)));
	EXPECT_NE(r.out.find("  slot lateness (us, slots): <1 10 16-32 3 >=65536 1"), std::string::npos)
		<< r.out;
	r = Show({"-s", "-j", "qdisc", "show", "dev", "lo"}, QdiscDump(o, &st, sizeof(st)));
	EXPECT_NE(r.out.find("\"mode_stats\":{\"mode\":\"bifrost\",\"slots\":1,"), std::string::npos)
		<< r.out;
	EXPECT_NE(r.out.find("\"late_hist\":[10,0,0,0,0,3,0"), std::string::npos) << r.out;
	EXPECT_NE(r.out.find("\"tokens\":[1000,2000,3000,4000,5000,6000,7000,8000],"
			     "\"cut_slots\":[0,1,2,3,4,5,6,7]"), std::string::npos) << r.out;
	// A kernel from before the per-priority values: the rest, without them.
	Result old = Show({"-s", "qdisc", "show", "dev", "lo"},
			  QdiscDump(o, &st, offsetof(tc_lossless_xstats, mode) +
					    offsetof(tc_lossless_mode_stats, prio)));
	EXPECT_NE(old.out.find("mode bifrost slots 1"), std::string::npos) << old.out;
	EXPECT_EQ(old.out.find("tokens"), std::string::npos) << old.out;
	// A kernel that sent no mode part, or a port without a mode: nothing.
	Result none = Show({"-s", "qdisc", "show", "dev", "lo"},
			   QdiscDump(o, &st, offsetof(tc_lossless_xstats, mode)));
	EXPECT_EQ(none.out.find("mode bifrost"), std::string::npos) << none.out;
	st.mode.mode = 0;
	none = Show({"-s", "qdisc", "show", "dev", "lo"}, QdiscDump(o, &st, sizeof(st)));
	EXPECT_EQ(none.out.find("slots "), std::string::npos) << none.out;
}

// Every mode and every row of it is in tc-lossless(8): the synopsis, and
// an entry of its own with the mode as its scope.
TEST(TcPluginMode, ManPageHasEveryModeAndRow)
{
	std::string man = ManPageText();
	ASSERT_FALSE(man.empty());
	EXPECT_NE(man.find("[ mode { none | bifrost"), std::string::npos);
	for (unsigned id = 1; id < LL_MODE_COUNT; id++) {
		const ll_mode_desc *d = ll_mode_lookup(id);
		if (!d)
			continue;
		EXPECT_NE(man.find(std::string("| ") + d->name), std::string::npos) << d->name;
		for (unsigned i = 0; i < d->n_params; i++) {
			const ll_param &p = d->params[i];
			EXPECT_NE(man.find(std::string("[ ") + p.tc + " " + p.arg + " ]"), std::string::npos)
				<< "the synopsis lacks " << p.tc;
			EXPECT_NE(man.find(std::string(" ") + p.tc + " " + p.arg + " (port, mode " + d->name),
				  std::string::npos)
				<< "tc-lossless(8) has no entry for " << p.tc;
		}
	}
}
