#!/usr/bin/python3
"""A soak with chaos (VM test; `make soak DURATION=30m` is the long form).

Mixed traffic runs through a two-tier leaf-spine of bridges (the fabric
of tests/compare/run_compare.py, built by its build() from
tests/vm/soak.toml) under every scheme in turn (a phase each), while a
driver injects faults. make soak: two leaves, two spines, h0 and h2 on
leaf0, h1 and the receivers r0 and r1 on leaf1; make check's short form:
one spine, h0 and h1, the schemes dt and spfc.

  - incast, lossless (priority 3): h0, h1 (, h2) -> r0 at line rate;
  - victim, lossless: h0 -> r1, paced, behind h0's paused uplink;
  - background, lossy (priority 0): h1 -> r1 and h0 -> r0 at line rate.

losslessd runs leaf0's pool (adopting the qdiscs, its policy the phase's
scheme); the other switches are set with tc. A phase is rounds of traffic
(the senders run through the round's faults, then the fabric drains and
is checked). The faults, in rotation, while traffic runs: losslessd
killed (-9) and restarted; a pool member deleted and created again (a
spare port of leaf0, which the daemon installs); the daemon's
configuration reloaded with another alpha; a parameter changed with tc
(spine0's alpha); malformed MAC control frames; a PFC storm (r0 pauses
leaf1 for STORM_S); and, every third round only, a link flapped (leaf0's
trunk to spine0) and a port renamed away and back (leaf0's to h0).
After each round, drained first: every scheme changed in place to the
next one and back. Between phases: every qdisc deleted, the module
unloaded and loaded again, the next scheme installed.

Asserted:
  - zero lossless drops (the MMU's, per ingress port) wherever the
    headroom's premise held; a drop on a port whose headroom warning
    fired or whose slowest XOFF response passed its sw-delay is reported
    with the lateness that broke the premise;
  - zero lossless datagrams lost end to end in a round whose faults took
    no link carrying traffic down (a flap or a rename flushes a queue, as
    on any switch), unless the premise broke;
  - counters that add up once drained: every pool and queue empty, the
    pool's lossless and lossy drops the sums of its ports' per-priority
    drops, no unaccounted packet, sent >= received per flow;
  - no leak: BPF programs and maps, and the kernel's unreclaimable slab,
    the same after the last phase's unload as after the first's
    (LEAK_SLAB_BYTES of slack);
  - every fault survived (recovered within RECOVER_S);
  - no kernel report: tests/vm/run-all.sh checks the kernel log of the
    whole run (make soak runs it through run-all.sh too).

Printed: the fault table (injected, survived, recovery times), and per
phase the premise: XOFF responses, last and slowest, headroom peaks
against sizes, warnings, per switch port.

LL_SOAK_SECONDS: the traffic time of the whole soak (make soak; without
it, make check's short form of 12 s); LL_SOAK_SCHEMES the schemes (default: every scheme
the datapath offers); LL_SOAK_ROUND_S a round's length; LL_SOAK_JSON a
file for the whole report.
"""

import json
import os
import signal
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "lib"))
sys.path.insert(0, os.path.join(HERE, "..", "compare"))
from check import Checks  # noqa: E402
from daemon_conf import losslessd_config  # noqa: E402
from incast import qstats, size_backlog  # noqa: E402
from topology import Paths, Topology, wait_for  # noqa: E402
import run_compare as rc  # noqa: E402

# make check's short form: one spine and two senders (h0 on leaf0, h1 on
# leaf1): a fabric of 9 ports instead of 14, which TCG sets up in half the
# time; make soak (LL_SOAK_SECONDS given) runs the whole of soak.toml.
SHORT = "LL_SOAK_SECONDS" not in os.environ
SHORT_SETS = ("fabric.spines=1", "network.senders=2", "fabric.sender_leaf=[0, 1]", "incast.fanin=2")
# The short form runs the baseline and the scheme with the most state
# (and a daemon agent), dt and spfc; make soak every scheme.
SCHEMES = os.environ.get("LL_SOAK_SCHEMES", "dt spfc" if SHORT else "dt st dsh spfc").split()
POLICY = {"dt": "pfc-dt", "st": "st", "dsh": "dsh", "spfc": "spfc"}
TOTAL_S = float(os.environ.get("LL_SOAK_SECONDS", "12"))
ROUND_S = float(os.environ.get("LL_SOAK_ROUND_S", str(min(20.0, max(4.0, TOTAL_S / len(SCHEMES))))))
SCENARIO = os.path.join(HERE, "soak.toml")
SOCK = "/run/lossless-soak/losslessd.sock"
PIN = "/sys/fs/bpf/lossless-soak"
CONF = "/tmp/losslessd-soak.toml"
PORT = 5000
# Each sender's socket bounds what it keeps queued in the fabric, and so
# how long a round takes to drain at 10 Mbit/s.
SNDBUF = (1 if SHORT else 4) << 20
STORM_S = 1.5
# A fault not recovered from in this long fails (and the rest waits no
# longer). Measured recoveries: 2-30 s at host load 7-11 (the slowest a
# scheme change: a drain, a tc per switch, losslessd restarted), each
# losslessctl or tc costing up to a second then; twice the slowest.
RECOVER_S = 60.0
# Unreclaimable slab may move by some 100 KB between two idle moments of
# the VM (sockets, namespaces' work items); a per-packet or per-change leak
# over a soak's millions of packets and hundreds of changes is far more.
LEAK_SLAB_BYTES = 4 << 20
SPARE = "sp0"


def ts():
    return time.monotonic()


class Fabric:
    """The leaf-spine, its hosts, losslessd on leaf0, and what the faults
    touch."""

    def __init__(self, t):
        self.t = t
        self.scn = rc.load_scenario(SCENARIO, SHORT_SETS if SHORT else ())
        self.scheme = SCHEMES[0]
        self.switches, self.rx, self.tx, self.ports = rc.build(t, self.scn, f"scheme {self.scheme}")
        self.sw = {s.name: s for s in self.switches}
        self.devs = rc.switch_devs(self.switches, self.ports, True)
        self.host = {h.name: (h, ip, lk) for h, ip, lk in self.rx + self.tx}
        need = sum(size_backlog(s, d)[0] for s, d in self.devs.items())
        if need > rc.read_backlog_sysctl():
            rc.write_backlog_sysctl(need)
        self.leaf0 = self.sw["leaf0"]
        self.leaf0.run(f"ip link add {SPARE} type veth peer name {SPARE}p")
        self.leaf0.run(f"ip link set {SPARE} master br0")
        self.leaf0.run(f"ip link set {SPARE}p up")
        self.leaf0.run(f"ip link set {SPARE} up")
        self.daemon = None
        self.alpha = self.scn["network"]["alpha"]

    def port_of(self, sw, peer):
        """The device of switch sw cabled to peer (a host, or PEER@SW)."""
        return next(k.split(":", 1)[1] for k, v in self.ports.items()
                    if k.startswith(sw + ":") and v == peer)

    def qdisc(self, scheme):
        return " ".join(rc.switch_qdisc(self.scn, f"scheme {scheme}"))

    # losslessd, on leaf0
    def write_config(self, alpha=None):
        net = self.scn["network"]
        text = losslessd_config(SOCK, PIN, self.devs[self.leaf0] + [SPARE],
                                {"buffer": net["buffer"], "lossless-prios": [3],
                                 "alpha": alpha or self.alpha, "sw-delay": net["sw-delay"]},
                                f"{net['rate_mbit']}mbit")
        with open(CONF, "w") as f:
            f.write(text.replace('policy = "pfc-dt"', f'policy = "{POLICY[self.scheme]}"'))

    def ctl(self, args, check=True):
        return self.leaf0.run(f"{Paths.ctl} --socket {SOCK} {args}", check=check)

    def start_daemon(self):
        t0 = ts()
        self.daemon = self.leaf0.popen(f"{Paths.losslessd} --config {CONF}")
        ok = wait_for(lambda: self.ctl("daemon --json", check=False).returncode == 0, RECOVER_S, 0.1)
        if not ok:
            raise RuntimeError(f"losslessd did not answer within {RECOVER_S} s: "
                               f"{self.daemon.stderr.read() if self.daemon.poll() is not None else ''}")
        return ts() - t0

    def stop_daemon(self):
        if self.daemon and self.daemon.poll() is None:
            self.daemon.send_signal(signal.SIGTERM)
            self.daemon.wait(timeout=20)
        self.daemon = None

    def port_states(self):
        """{dev: (up, state)} as losslessd has its ports (one request:
        a losslessctl costs up to a second under TCG on a loaded host)."""
        r = self.ctl("daemon --json", check=False)
        if r.returncode:
            return {}
        return {p["dev"]: (p["up"], p["state"]) for p in json.loads(r.stdout)["ports"]}

    def port_state(self, dev):
        return self.port_states().get(dev)

    def stats(self):
        return rc.switch_stats(self.switches)

    def drained(self, timeout=60.0):
        def empty():
            st = self.stats()
            return all(q.get("pool_shared_used", 0) == 0 and q.get("pool_headroom_used", 0) == 0
                       and q.get("backlog", 0) == 0 for q in st.values())
        return wait_for(empty, timeout, 0.3)

    def uplinks(self):
        return [(h, lk["a_if"]) for h, _, lk in self.tx]


# ------------------------------------------------------------------ faults

class Faults:
    """Each fault injects, waits for recovery and returns (survived,
    recovery_s, detail). The table counts them."""

    def __init__(self, fab):
        self.fab = fab
        self.table = {}
        self.log = []
        self.leak_samples = []  # with the module out, at each module reload

    def record(self, name, fn):
        t0 = ts()
        try:
            ok, rec, detail = fn()
        except (RuntimeError, subprocess.TimeoutExpired, OSError, ValueError, KeyError) as e:
            ok, rec, detail = False, ts() - t0, f"raised: {str(e).strip().splitlines()[0]}"
        row = self.table.setdefault(name, {"injected": 0, "survived": 0, "recovery_s": []})
        row["injected"] += 1
        row["survived"] += int(ok)
        if rec is not None:
            row["recovery_s"].append(rec)
        self.log.append({"fault": name, "scheme": self.fab.scheme, "ok": ok, "recovery_s": rec,
                         "detail": detail})
        print(f"    fault {name}: {'survived' if ok else 'NOT survived'}"
              + (f", recovered in {rec:.2f} s" if rec is not None else "") + (f" ({detail})" if detail else ""),
              flush=True)
        return ok

    # Destructive: a link that carries flows goes down and its queue is flushed.
    DESTRUCTIVE = {"link flap", "port rename"}

    def daemon_kill(self):
        f = self.fab
        f.daemon.send_signal(signal.SIGKILL)
        f.daemon.wait(timeout=10)
        t0 = ts()
        f.start_daemon()
        st = f.port_states()
        states = [st.get(d) for d in f.devs[f.leaf0]]
        ok = all(s == (True, "adopted") for s in states)
        return ok, ts() - t0, f"restarted; ports {sorted(set(map(str, states)))}"

    def link_flap(self):
        f = self.fab
        sw = f.leaf0
        dev = f.port_of("leaf0", "spine0@leaf0")  # leaf0's senders' way to r0
        sw.run(f"ip link set {dev} down")
        time.sleep(0.3)
        t0 = ts()
        sw.run(f"ip link set {dev} up")
        up = wait_for(lambda: sw.link_info(dev)["operstate"] == "UP", RECOVER_S, 0.05)
        moving = up and moves(sw, dev)
        return up and moving, ts() - t0, f"leaf0 {dev} (to spine0) down 0.3 s; up {up}, forwarding {moving}"

    def port_rename(self):
        f = self.fab
        dev = f.port_of("leaf0", "h0")
        sw = f.leaf0
        sw.run(f"ip link set {dev} down")
        sw.run(f"ip link set {dev} name llsoak")
        gone = wait_for(lambda: f.port_state(dev) == (False, "missing"), RECOVER_S, 0.1)
        sw.run(f"ip link set llsoak name {dev}")
        t0 = ts()
        sw.run(f"ip link set {dev} up")
        back = wait_for(lambda: f.port_state(dev) == (True, "adopted"), RECOVER_S, 0.1)
        h0, _, lk = f.host["h0"]
        moving = back and moves(h0, lk["a_if"])  # h0 sends into it again
        return gone and back and moving, ts() - t0, \
            f"leaf0 {dev} (to h0): daemon saw it missing {gone}, adopted again {back}, forwarding {moving}"

    def port_delete(self):
        f = self.fab
        sw = f.leaf0
        sw.run(f"ip link del {SPARE}")
        gone = wait_for(lambda: f.port_state(SPARE) == (False, "missing"), RECOVER_S, 0.1)
        t0 = ts()
        for cmd in (f"ip link add {SPARE} type veth peer name {SPARE}p", f"ip link set {SPARE} master br0",
                    f"ip link set {SPARE}p up", f"ip link set {SPARE} up"):
            sw.run(cmd)
        back = wait_for(lambda: f.port_state(SPARE) == (True, "installed"), RECOVER_S, 0.1)
        q = json.loads(sw.run(f"tc -j qdisc show dev {SPARE}"))[0]
        ok = gone and back and q["kind"] == "lossless" and q["options"].get("pool") == "sw0"
        return ok, ts() - t0, f"leaf0's pool member {SPARE} deleted (missing {gone}) and created: " \
                              f"installed {back}, {q['kind']} in pool {q['options'].get('pool')}" + \
            ("" if ok else f"; losslessd has it {f.port_state(SPARE)}")

    def config_reload(self):
        f = self.fab
        alpha = "1/4" if f.alpha == "1/8" else "1/8"
        f.alpha = alpha
        f.write_config()
        t0 = ts()
        f.ctl("reload")
        devs = f.devs[f.leaf0]
        ok = wait_for(lambda: {json.loads(f.leaf0.run(f"tc -j qdisc show dev {d}"))[0]["options"]["alpha"]
                               for d in devs} == {alpha}, RECOVER_S, 0.1)
        detail = f"losslessd reloaded with alpha {alpha}: in leaf0's datapath {ok}"
        if not ok:  # what the datapath has, and what the daemon says of its pushes
            seen = {d: json.loads(f.leaf0.run(f"tc -j qdisc show dev {d}"))[0]["options"]["alpha"] for d in devs}
            r = f.ctl("daemon --json", check=False)
            pools = json.loads(r.stdout).get("pools") if r.returncode == 0 else r.stderr.strip()
            detail += f"; tc {seen}; losslessd's pools {json.dumps(pools)[:600]}"
        return ok, ts() - t0, detail

    def param_change(self):
        f = self.fab
        sw = f.sw["spine0"]
        devs = f.devs[sw]
        cur = json.loads(sw.run(f"tc -j qdisc show dev {devs[0]}"))[0]["options"]["alpha"]
        new = "1/4" if cur == "1/8" else "1/8"
        t0 = ts()
        sw.run(f"tc qdisc change dev {devs[0]} root lossless alpha {new}")
        ok = wait_for(lambda: {json.loads(sw.run(f"tc -j qdisc show dev {d}"))[0]["options"]["alpha"]
                               for d in devs} == {new}, RECOVER_S, 0.1)
        return ok, ts() - t0, f"spine0 alpha {cur} -> {new} (tc on {devs[0]}): on every port {ok}"

    # Frames that are not valid MAC control frames, or not for us, from h1
    # into leaf1: truncated, unknown opcode, priorities beyond 7 in the
    # vector, a PAUSE to a unicast address, an oversized one, no payload.
    MALFORMED = [
        "0180c2000001" "02aa00000001" "8808" "0101",
        "0180c2000001" "02aa00000001" "8808" "0202" + "00" * 44,
        "0180c2000001" "02aa00000001" "8808" "0101" "ff08" + "ffff" * 8 + "00" * 26,
        "02bb00000001" "02aa00000001" "8808" "0001" "ffff" + "00" * 42,
        "0180c2000001" "02aa00000001" "8808" "0101" "0008" + "ffff" * 8 + "ab" * 1400,
        "0180c2000001" "02aa00000001" "8808",
    ]

    def malformed(self):
        f = self.fab
        h, _, lk = f.host["h1"]
        sw = f.sw["leaf1"]
        dev = f.port_of("leaf1", "h1")
        before = qstats(sw, dev)
        plan = [{"at": 0.01 * k, "name": f"bad{k}", "kind": "raw", "hex": x}
                for k, x in enumerate(self.MALFORMED * 5)]
        sent = send_plan(h, lk, plan)
        t0 = ts()
        moving = moves(sw, f.port_of("leaf1", "r0"))  # r0's port still forwards
        after = qstats(sw, dev)
        d_inv = after.get("ctrl_invalid", 0) - before.get("ctrl_invalid", 0)
        d_pfc = after.get("pfc_frames_rx", 0) - before.get("pfc_frames_rx", 0)
        return sent == len(plan) and moving, ts() - t0, \
            f"{sent} frames into leaf1 {dev}: ctrl_invalid +{d_inv}, pfc_frames_rx +{d_pfc}; forwarding {moving}"

    def pfc_storm(self):
        f = self.fab
        h, _, lk = f.host["r0"]
        sw = f.sw["leaf1"]
        dev = f.port_of("leaf1", "r0")
        # XOFF priority 3 (and 0: the lossy queue too) every 20 ms, then XON.
        n = int(STORM_S / 0.02)
        plan = [{"at": 0.02 * k, "name": "xoff", "kind": "pfc", "vector": 0x09,
                 "times": [65535, 0, 0, 65535, 0, 0, 0, 0]} for k in range(n)]
        plan.append({"at": STORM_S, "name": "xon", "kind": "pfc", "vector": 0x09, "times": [0] * 8})
        before = qstats(sw, dev)["pfc_frames_rx"]
        sent = send_plan(h, lk, plan)
        t0 = ts()
        unpaused = wait_for(lambda: not qstats(sw, dev)["paused_prios"], RECOVER_S, 0.05)
        moving = unpaused and moves(sw, dev)
        got = qstats(sw, dev)["pfc_frames_rx"] - before
        return unpaused and moving and got > 0, ts() - t0, \
            f"{sent} PFC frames over {STORM_S} s from r0, {got} honoured by leaf1 {dev}; " \
            f"unpaused {unpaused}, forwarding {moving}"

    def scheme_flip(self, nxt):
        """Drained: every pool's scheme changed in place (tc) to nxt and
        back, losslessd stopped meanwhile and started again."""
        f = self.fab
        t0 = ts()
        if not f.drained():
            return False, ts() - t0, "the fabric did not drain"
        # A reload may not change a pool's policy: the daemon is stopped,
        # and started again with the scheme's policy.
        home, seen = f.scheme, []
        f.stop_daemon()
        for sch in (nxt, home):
            for sw in f.switches:
                sw.run(f"tc qdisc change dev {f.devs[sw][0]} root lossless scheme {sch}")
            ok = wait_for(lambda: {q["options"]["scheme"] for q in f.stats().values()} == {sch}, RECOVER_S, 0.1)
            seen.append(f"{sch} on every port {ok}")
            if not ok:
                return False, ts() - t0, ", ".join(seen)
        f.write_config()
        f.start_daemon()
        ok = {q["options"]["scheme"] for q in f.stats().values()} == {home}
        seen.append(f"losslessd ({POLICY[home]}) restarted, scheme kept {ok}")
        if not ok:
            return False, ts() - t0, ", ".join(seen)
        return True, ts() - t0, ", ".join(seen)

    def module_reload(self, nxt):
        """Every qdisc deleted (the daemon stopped first), the module
        unloaded and loaded, the fabric's qdiscs added again with scheme
        nxt, the daemon started with it; a leak sample (leak_sample())
        while the module is out."""
        f = self.fab
        t0 = ts()
        f.stop_daemon()
        # One tc per namespace (-force: on past a port without a qdisc).
        for sw, devs in f.devs.items():
            sw.run("tc -force -batch -", check=False,
                   input="".join(f"qdisc del dev {d} root\n" for d in devs + ([SPARE] if sw is f.leaf0 else [])))
        for h, dev in f.uplinks():
            h.run(f"tc qdisc del dev {dev} root")
        out = subprocess.run("rmmod sch_lossless", shell=True, capture_output=True, text=True)
        if out.returncode == 0:
            self.leak_samples.append(leak_sample())
        ins = subprocess.run(f"insmod {Paths.module}", shell=True, capture_output=True, text=True)
        f.scheme = nxt
        qd = f.qdisc(nxt)
        for sw, devs in f.devs.items():
            sw.run("tc -batch -", input="".join(f"qdisc add dev {d} root handle 1: {qd}\n" for d in devs))
        for h, dev in f.uplinks():
            h.run(f"tc qdisc add dev {dev} root handle 1: {rc.uplink_qdisc(f.scn, h)}")
        f.write_config()
        f.start_daemon()
        ok = out.returncode == 0 and ins.returncode == 0
        return ok, ts() - t0, f"rmmod {out.returncode} {out.stderr.strip()} insmod {ins.returncode}; " \
                              f"scheme {nxt} installed"


def send_plan(h, lk, plan):
    p = h.popen(f"{Paths.python} {Paths.pause_sender} {lk['a_if']} {lk['a_mac']} '{json.dumps(plan)}'",
                stdin=subprocess.PIPE)
    if p.stdout.readline().strip() != "ready":
        raise RuntimeError("pause_sender failed: " + p.communicate()[1])
    p.stdin.write("go\n")
    p.stdin.flush()
    out, err = p.communicate(timeout=60)
    if p.returncode:
        raise RuntimeError(f"pause_sender: {err.strip()}")
    return len(json.loads(out))


def moves(host, dev, timeout=RECOVER_S):
    """The qdisc of host's dev sends packets again (its count grows)."""
    p0 = qstats(host, dev)["packets"]
    return wait_for(lambda: qstats(host, dev)["packets"] > p0, timeout, 0.05)


# ------------------------------------------------------------------ leaks

def leak_sample():
    """BPF programs and maps (bpftool) and unreclaimable slab, with the
    module out, once the kernel's deferred frees have run (page cache is
    reclaimable, so not in it)."""
    time.sleep(0.5)  # RCU callbacks and work items that free what a qdisc held
    progs = len(json.loads(subprocess.run("bpftool -j prog show", shell=True, capture_output=True,
                                          text=True).stdout or "[]"))
    maps = len(json.loads(subprocess.run("bpftool -j map show", shell=True, capture_output=True,
                                         text=True).stdout or "[]"))
    with open("/proc/meminfo") as f:
        mem = {ln.split(":")[0]: int(ln.split()[1]) * 1024 for ln in f}
    return {"bpf_progs": progs, "bpf_maps": maps, "slab_unreclaim": mem["SUnreclaim"]}


# ------------------------------------------------------------------ traffic

FLOWS = [  # (flow id, sender, receiver, prio, dscp, rate Mbit/s (0: line), kind)
    (1, "h0", "r0", 3, 24, 0, "incast"),
    (2, "h1", "r0", 3, 24, 0, "incast"),
    (3, "h2", "r0", 3, 24, 0, "incast"),  # not in the short form's fabric
    (4, "h0", "r1", 3, 24, 2, "victim"),
    (10, "h1", "r1", 0, 0, 0, "background"),
    (11, "h0", "r0", 0, 0, 0, "background"),
]


def round_traffic(fab, seconds, faults, schedule):
    """One round: receivers, senders, the faults of schedule (names) spread
    across seconds; the senders stop (SIGINT) once both the time and the
    faults are over, so that every fault's recovery sees traffic. Returns
    ({flow: (sent, received)}, drained, seconds the traffic ran)."""
    recv = {}
    for r in ("r0", "r1"):
        h = fab.host[r][0]
        recv[r] = h.popen(f"{Paths.traffic} recv --port {PORT} --idle-exit 2 --duration 100000")
        h.wait_udp(PORT)
    procs = []
    for fid, s, r, prio, dscp, rate, _ in FLOWS:
        if s not in fab.host:
            continue
        pace = f" --rate-mbit {rate}" if rate else ""
        procs.append((fid, fab.host[s][0].popen(
            f"{Paths.traffic} send --dst {fab.host[r][1]} --port {PORT} --flow {fid} --prio {prio} "
            f"--dscp {dscp} --size 1000 --duration 100000 --sndbuf {SNDBUF}{pace}")))
    t0 = ts()
    for k, name in enumerate(schedule):
        time.sleep(max(0.0, t0 + seconds * (k + 0.5) / len(schedule) - ts()))
        faults.record(name, getattr(faults, FAULTS[name]))
    time.sleep(max(0.0, t0 + seconds - ts()))
    ran = ts() - t0
    for _, p in procs:
        p.send_signal(signal.SIGINT)
    sends = {}
    for fid, p in procs:
        out, err = p.communicate(timeout=120)
        if p.returncode:
            raise RuntimeError(f"sender of flow {fid} failed ({p.returncode}): {err.strip()}")
        sends[fid] = json.loads(out)
    drained = fab.drained()
    got = {}
    for r, p in recv.items():
        out, _ = p.communicate(timeout=180)
        for fid, v in json.loads(out)["flows"].items():
            got[int(fid)] = v["received"]
    # A datagram the sender's own qdisc refused (ENOBUFS) never left it.
    return ({fid: (s["sent"] - s["send_errors"], got.get(fid, 0)) for fid, s in sends.items()},
            drained, ran)


FAULTS = {"daemon kill": "daemon_kill", "port delete": "port_delete", "config reload": "config_reload",
          "param change": "param_change", "malformed frames": "malformed", "PFC storm": "pfc_storm",
          "link flap": "link_flap", "port rename": "port_rename"}


class Schedule:
    """The faults of each round, in rotation. Every third round (the
    second, fifth, ...) takes the destructive ones (a link that carries
    flows goes down), the others none: their lossless flows must lose
    nothing end to end."""

    def __init__(self, per_round):
        self.gentle = [f for f in FAULTS if f not in Faults.DESTRUCTIVE]
        self.per_round, self.rounds, self.next = min(per_round, len(self.gentle)), 0, 0

    def take(self):
        destructive = self.rounds % 3 == 1
        self.rounds += 1
        out = sorted(Faults.DESTRUCTIVE) if destructive else []
        for _ in range(self.per_round - len(out)):
            out.append(self.gentle[self.next % len(self.gentle)])
            self.next += 1
        return out, destructive


# ------------------------------------------------------------------ checks

def premise(st):
    """Per switch port: the premise's numbers and its lossless drops."""
    return {key: rc.port_premise(q) for key, q in st.items()}


def print_premise(scheme, pr):
    print(f"  premise, scheme {scheme} (per switch port: XOFF responses, last / slowest ms against "
          f"sw-delay; headroom peak / size B; warnings; lossless drops):")
    for k, p in sorted(pr.items()):
        print(f"    {k:14s} {p['xoff_responses']:6d}  {p['xoff_last_ms']:7.1f} / {p['xoff_max_ms']:7.1f} "
              f"of {p['sw_delay_ms']:.0f}  {p['peak_headroom']:8d} / {p['headroom_size']:8d}  "
              f"{p['warnings']:3d}  {p['lossless_drops']:5d}" + ("  PREMISE BROKEN" if p["broken"] else ""))


def check_counters(c, fab, st, what):
    """Once drained: empty, and the pools' drops the sums of their ports'."""
    held = {k: (q.get("pool_shared_used", 0), q.get("pool_headroom_used", 0), q.get("backlog", 0),
                sum(x["bytes"] for x in q["ingress"])) for k, q in st.items()}
    c.ok(all(v == (0, 0, 0, 0) for v in held.values()), f"{what}: drained, every pool, queue and "
         f"ingress counter empty", str({k: v for k, v in held.items() if v != (0, 0, 0, 0)} or "all 0"))
    bad = []
    for sw in fab.switches:
        qs = [q for k, q in st.items() if k.startswith(sw.name + ":")]
        ll = sum(x["drops"] for q in qs for x in q["ingress"] if x["lossless"])
        lossy = sum(x["drops"] for q in qs for x in q["ingress"] if not x["lossless"])
        pool = (qs[0].get("pool_drops_lossless", 0), qs[0].get("pool_drops_lossy", 0))
        unacc = sum(q.get("unaccounted", 0) for q in qs)
        if pool != (ll, lossy) or unacc:
            bad.append(f"{sw.name}: pool {pool} vs ports {(ll, lossy)}, unaccounted {unacc}")
    c.ok(not bad, f"{what}: each pool's lossless / lossy drops are its ports' sums, nothing unaccounted",
         "; ".join(bad) or "all equal")


def kernel_premise_lines(marker):
    """The headroom warnings the kernel logged since marker (reports fail
    the run in tests/vm/run-all.sh's check of the whole log)."""
    log = subprocess.run("dmesg", shell=True, capture_output=True, text=True).stdout
    tail = log[log.rfind(marker):] if marker in log else log
    return [ln for ln in tail.splitlines() if "raise sw-delay" in ln]


def main():
    c = Checks("soak")
    marker = f"test_soak: start {time.monotonic_ns()}"
    with open("/dev/kmsg", "w") as f:
        f.write(marker + "\n")
    subprocess.run(f"rm -rf {PIN} /run/lossless-soak", shell=True, check=True)
    os.makedirs("/run/lossless-soak", exist_ok=True)
    per_phase = TOTAL_S / len(SCHEMES)
    rounds = max(1, round(per_phase / ROUND_S))
    order = list(FAULTS)
    print(f"soak: {TOTAL_S:.0f} s of traffic, schemes {' '.join(SCHEMES)}: {per_phase:.0f} s per scheme in "
          f"rounds of {per_phase / rounds:.1f} s or more; faults {', '.join(order)}", flush=True)
    report = {"phases": [], "faults": None, "leaks": []}
    traffic_s = 0.0
    started = ts()
    with Topology("soak") as t:
        fab = Fabric(t)
        fab.write_config()
        fab.start_daemon()
        faults = Faults(fab)
        sched = Schedule(max(2, min(len(order), int(per_phase / rounds / 1.5))))
        for k, scheme in enumerate(SCHEMES):
            if k:
                faults.record("module reload", lambda scheme=scheme: faults.module_reload(scheme))
            print(f"=== phase {k + 1}: scheme {scheme}", flush=True)
            phase = {"scheme": scheme, "rounds": [], "unexplained_e2e": 0}
            destructive_any = False
            # Rounds until the phase's traffic time is reached: a round's
            # senders run through its faults, however long they take.
            phase_s, rnd = 0.0, -1
            while rnd < 0 or phase_s < per_phase:
                rnd += 1
                schedule, destructive = sched.take()
                flows, drained, ran = round_traffic(fab, per_phase / rounds, faults, schedule)
                destructive_any |= destructive
                ll_lost = sum(s - g for fid, (s, g) in flows.items() if fid < 10)
                lossy_lost = sum(s - g for fid, (s, g) in flows.items() if fid >= 10)
                traffic_s += ran
                phase_s += ran
                print(f"  round {rnd + 1} ({ran:.1f} s): faults {', '.join(schedule)}; lossless sent "
                      f"{sum(s for f, (s, _) in flows.items() if f < 10)} lost {ll_lost}, lossy sent "
                      f"{sum(s for f, (s, _) in flows.items() if f >= 10)} lost {lossy_lost}; drained {drained}",
                      flush=True)
                c.ok(all(g <= s for s, g in flows.values()), f"{scheme} round {rnd + 1}: received <= sent per flow")
                c.ok(drained, f"{scheme} round {rnd + 1}: the fabric drained")
                phase["rounds"].append({"faults": schedule, "flows": flows, "lossless_lost": ll_lost,
                                        "lossy_lost": lossy_lost, "destructive": destructive})
                if not destructive and ll_lost:
                    phase["unexplained_e2e"] += ll_lost
                # (The short form changes schemes once, in its first phase.)
                if not SHORT or k == 0:
                    nxt = SCHEMES[(k + 1) % len(SCHEMES)]
                    faults.record("scheme change (drained)", lambda nxt=nxt: faults.scheme_flip(nxt))
            st = fab.stats()
            check_counters(c, fab, st, f"{scheme}")
            pr = premise(st)
            print_premise(scheme, pr)
            broken = {k2: p for k2, p in pr.items() if p["broken"]}
            held_drops = {k2: p["lossless_drops"] for k2, p in pr.items() if not p["broken"] and p["lossless_drops"]}
            late_drops = {k2: (p["lossless_drops"], round(p["xoff_max_ms"], 1), p["sw_delay_ms"], p["warnings"],
                               "XOFF late" if p["xoff_max_ms"] > p["sw_delay_ms"] else
                               "XOFF in time: the upstream kept sending")
                          for k2, p in broken.items() if p["lossless_drops"]}
            if late_drops:
                # A response within sw-delay with the headroom still full:
                # the other half of the loop (the frame's delivery, the
                # upstream's wake-up) ran late.
                print(f"  {scheme}: lossless drops where the premise broke (port: drops, slowest XOFF "
                      f"response ms, sw-delay ms, headroom warnings, which half): {late_drops}", flush=True)
            c.eq(held_drops, {}, f"{scheme}: zero lossless drops wherever the premise held")
            e2e_ok = phase["unexplained_e2e"] == 0 or bool(broken)
            c.ok(e2e_ok, f"{scheme}: no lossless datagram lost end to end in rounds without a link down",
                 f"{phase['unexplained_e2e']} lost" + (" (premise broke)" if broken else ""))
            phase.update({"premise": pr, "late_drops": late_drops, "destructive_any": destructive_any})
            report["phases"].append(phase)
        # The last phase's unload: the same state as the first sample.
        faults.record("module reload", lambda: faults.module_reload(SCHEMES[0]))
        fab.stop_daemon()
        report["leaks"] = faults.leak_samples
        report["faults"] = faults.table
        report["fault_log"] = faults.log

    print_faults(faults.table)
    warn = kernel_premise_lines(marker)
    report["kernel_premise_lines"] = warn
    print(f"  kernel log: {len(warn)} headroom warning line(s) (the premise broke there)"
          + "".join(f"\n    {ln}" for ln in warn[:10]))
    for name, row in faults.table.items():
        c.eq(row["survived"], row["injected"], f"fault {name}: every injection survived")
    c.ok(all(faults.table.get(n, {}).get("injected", 0) > 0 for n in order),
         "every in-traffic fault was injected at least once", str({n: faults.table.get(n, {}).get("injected", 0)
                                                                  for n in order}))
    lk = report["leaks"]
    c.ok(len(lk) >= 2, "leak samples with the module unloaded, after the first and the last phase",
         f"{len(lk)} samples")
    if len(lk) >= 2:
        a, b = lk[0], lk[-1]
        print(f"  leak samples (module out): {lk}")
        c.eq((b["bpf_progs"], b["bpf_maps"]), (a["bpf_progs"], a["bpf_maps"]),
             "no BPF program or map leaked (bpftool, first vs last unload)")
        c.le(b["slab_unreclaim"] - a["slab_unreclaim"], LEAK_SLAB_BYTES,
             "unreclaimable slab did not grow (first vs last unload)", " B")
    print(f"  soak: {ts() - started:.0f} s in all, {traffic_s:.0f} s of it with traffic")
    report["elapsed_s"], report["traffic_s"] = ts() - started, traffic_s
    path = os.environ.get("LL_SOAK_JSON")
    if path:
        with open(path, "w") as f:
            json.dump(report, f, indent=1, default=str)
        print(f"  wrote {path}")
    c.finish()


def print_faults(table):
    print("  faults injected and survived (recovery: from the fault's end to the network back, s):")
    print(f"    {'fault':26s} {'injected':>8s} {'survived':>8s} {'recovery p50':>12s} {'max':>7s}")
    for name, row in table.items():
        rec = sorted(row["recovery_s"])
        p50 = rec[len(rec) // 2] if rec else None
        print(f"    {name:26s} {row['injected']:8d} {row['survived']:8d} "
              f"{(f'{p50:.2f}' if p50 is not None else '-'):>12s} {(f'{rec[-1]:.2f}' if rec else '-'):>7s}")


if __name__ == "__main__":
    main()
