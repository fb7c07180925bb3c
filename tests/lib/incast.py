"""An N:1 incast through a Linux bridge switch, for the VM test and the demo.

run_incast() builds SENDERS hosts and a receiver around one bridge whose
ports all carry the given root qdisc (a lossless pool, or a FIFO for the
control), runs UDP on lossless priority 3 (DSCP 24) from every sender for
SECONDS, and returns the switch, the per-sender results, the receiver's
report and the bottleneck's steady-state utilisation (steady_util). With delay (a time
such as "2ms") every link is a long cable with that one-way delay
(topology.Topology.link), and the switch qdisc should say so with
`cable-delay`.
"""

import json
import os
import time

from topology import Paths, announce

MBIT = int(os.environ.get("LL_INCAST_MBIT", "5"))
SENDERS = int(os.environ.get("LL_INCAST_SENDERS", "8"))
SECONDS = float(os.environ.get("LL_INCAST_SECONDS", "10"))
PAYLOAD = 1000
# A UDP packet stays charged to its socket until freed, wherever it waits in
# the namespaces: with the default send buffer each sender would block after
# ~200 KB in flight and no switch could overflow. 4 MB per sender makes the
# network, not the sockets, hold the excess (PFC here, tail drop in the FIFO).
SNDBUF = 4 << 20
WIRE = PAYLOAD + 8 + 20 + 14  # UDP + IPv4 + Ethernet: what the shaper counts
# sw-delay: the software response the headroom must cover. Natively a
# Linux bridge answers in well under 1 ms; under QEMU TCG with 9 busy
# namespaces on 2 vCPUs softirqs fall to ksoftirqd and packets wait in
# veth's per-CPU backlog (the "cable" of a veth link), so it is sized for
# that (LL_INCAST_SW_DELAY overrides).
SW_DELAY = os.environ.get("LL_INCAST_SW_DELAY", "60ms")
POOL = f"pool sw0 buffer 2mb lossless-prios 3 alpha 1/8 sw-delay {SW_DELAY}"
PORT = 5000


def build(t, switch_qdisc, senders=SENDERS, delay=None, mbit=MBIT):
    sw = t.switch("sw")
    r = t.host("r")
    lr = t.link(r, sw, delay=delay)
    r_ip = lr["a_ip"]
    n_senders, senders = senders, []
    for i in range(n_senders):
        h = t.host(f"h{i}")
        lk = t.link(h, sw, delay=delay)
        # Re-address into r's subnet: one L2 domain through the bridge.
        h.run(f"ip addr flush dev {lk['a_if']}")
        h.run(f"ip addr add 10.0.0.{10 + i}/24 dev {lk['a_if']}")
        h.run(f"ip neigh replace {r_ip} lladdr {lr['a_mac']} dev {lk['a_if']} nud permanent")
        r.run(f"ip neigh replace 10.0.0.{10 + i} lladdr {lk['a_mac']} dev {lr['a_if']} nud permanent")
        # The host's uplink: line rate, honours the switch's PFC.
        # Large enough to hold all the sender's socket lets it queue.
        h.run(f"tc qdisc add dev {lk['a_if']} root lossless rate {mbit}mbit limit 20000")
        h.run(f"{Paths.ingress} attach {lk['a_if']} --pin-dir /sys/fs/bpf/ll-{h.ns}")
        senders.append((h, lk))
    announce([r] + [h for h, _ in senders])
    sw_ports = [lr["b_if"]] + [lk["b_if"] for _, lk in senders]
    for p in sw_ports if switch_qdisc is not None else ():  # None: losslessd installs
        sw.run(f"tc qdisc add dev {p} root handle 1: {switch_qdisc}")
        sw.run(f"{Paths.ingress} attach {p} --pin-dir /sys/fs/bpf/ll-{sw.ns}")
    if switch_qdisc is not None and " pool " in f" {switch_qdisc} ":
        size_backlog(sw, sw_ports)
    return sw, r, r_ip, lr["b_if"], senders, sw_ports


BACKLOG_SYSCTL = "/proc/sys/net/core/netdev_max_backlog"


def size_backlog(sw, ports):
    """Raise net.core.netdev_max_backlog to the switch pool's backlog-need
    (tc -s: the frames its ports may have in flight at once), as the qdisc's
    warning and docs/MMU.md ask: a veth delivers into that per-CPU backlog
    and drops beyond it, before the switch sees the frame. Returns (need,
    value before)."""
    need = max(qstats(sw, p)["options"].get("backlog_need", 0) for p in ports)
    with open(BACKLOG_SYSCTL) as f:
        before = int(f.read())
    if need > before:
        with open(BACKLOG_SYSCTL, "w") as f:
            f.write(str(need))
        print(f"  net.core.netdev_max_backlog {before} -> {need} (the pool's backlog-need)",
              flush=True)
    return need, before


# The steady window of an incast: from this long after the senders start
# to this long before they stop (process start-up and the first pauses
# before, the last drain after).
STEADY_SKIP_S = 1.5
STEADY_TAIL_S = 1.0
BACKLOG_SAMPLES = 4


def run_incast(t, switch_qdisc, senders=SENDERS, seconds=SECONDS, delay=None, before=None,
               mbit=MBIT, info=None):
    """The incast; before(sw, r, r_ip, senders), if given, runs once the
    network is built, before the traffic starts. util is the bottleneck's
    utilisation in the steady window as the receiver measured it
    (steady_util); info, a dict if given, gets the details: per-bucket
    utilisation ("buckets"), the bottleneck's backlog sampled in the window
    ("backlog_samples", bytes) and its qdisc's own count ("util_qdisc")."""
    sw, r, r_ip, bottleneck, senders, sw_ports = build(t, switch_qdisc, senders, delay, mbit)
    if before:
        before(sw, r, r_ip, senders)
    sends, res, util = traffic(sw, r, r_ip, bottleneck, senders, seconds, mbit, info)
    return sw, senders, sw_ports, bottleneck, sends, res, util


def traffic(sw, r, r_ip, bottleneck, senders, seconds=SECONDS, mbit=MBIT, info=None,
            sndbuf=SNDBUF, idle_exit=5):
    """One incast over a built network (build()): every sender at line rate
    to r for seconds. Returns (sends, res, util) as run_incast does. The
    receiver stops idle_exit s after the last packet."""
    recv = r.popen(f"{Paths.traffic} recv --port {PORT} --idle-exit {idle_exit} "
                   f"--duration {seconds * 4 + 60} --bucket-ms 100")
    r.wait_udp(PORT)
    start_ns = time.monotonic_ns()
    procs = [h.popen(f"{Paths.traffic} send --dst {r_ip} --port {PORT} --flow {i} --prio 3 --dscp 24 "
                     f"--size {PAYLOAD} --duration {seconds} --sndbuf {sndbuf}")
             for i, (h, _) in enumerate(senders)]
    # The bottleneck's backlog and sent bytes, sampled across the window.
    window = max(1.0, seconds - STEADY_SKIP_S - STEADY_TAIL_S)
    time.sleep(STEADY_SKIP_S)
    samples = []
    for k in range(BACKLOG_SAMPLES):
        t0 = time.monotonic()
        st = qstats(sw, bottleneck)
        samples.append(((t0 + time.monotonic()) / 2, st["bytes"], st["backlog"]))
        if k + 1 < BACKLOG_SAMPLES:
            time.sleep(max(0.0, t0 + window / (BACKLOG_SAMPLES - 1) - time.monotonic()))
    sends = [json.loads(p.communicate(timeout=seconds * 4 + 60)[0]) for p in procs]
    res = json.loads(recv.communicate(timeout=seconds * 4 + 120)[0])
    lo = start_ns + int(STEADY_SKIP_S * 1e9)
    hi = start_ns + int((STEADY_SKIP_S + window) * 1e9)
    util, buckets = steady_util(res, lo, hi, mbit)
    if info is not None:
        info["buckets"] = buckets
        info["backlog_samples"] = [b for _, _, b in samples]
        info["util_qdisc"] = ((samples[-1][1] - samples[0][1]) * 8 /
                              (mbit * 1e6 * (samples[-1][0] - samples[0][0])))
    return sends, res, util


# A busy host (TCG on 2 cores) may fail to make the senders overload the
# bottleneck at all; such a run measures nothing, so it is run again, up
# to this many times, and reported. The checks run on the last attempt.
ATTEMPTS = 3


def overloaded(info, what):
    """True if the bottleneck held a backlog at every sample of the steady
    window (what utilisation under overload needs); else says why."""
    if min(info["backlog_samples"]) > 0:
        return True
    print(f"  {what}: the bottleneck ran empty (backlog samples {info['backlog_samples']} B): "
          f"the senders did not overload it, the host is too busy; this run measures nothing",
          flush=True)
    return False


def within_catchup(bottleneck_stats, what):
    """True if no wake-up of the bottleneck came later than its shaper's
    catch-up covers (no credit cut). A longer stall of the whole VM (seen
    up to 130 ms under TCG) loses rate by design, and the qdisc reports it
    (shaper_lost); such a run says nothing about the shaper."""
    lost = bottleneck_stats.get("shaper_lost", 0)
    if not lost:
        return True
    print(f"  {what}: a wake-up {bottleneck_stats['wake_late_max'] / 1e6:.1f} ms late, beyond the "
          f"catch-up of {bottleneck_stats['catchup']} B: {lost / 1e6:.1f} ms of link time cut "
          f"(the VM stalled); this run measures nothing about the shaper", flush=True)
    return False


def steady_util(res, lo_ns, hi_ns, mbit=MBIT):
    """Utilisation of the receiver's link over [lo_ns, hi_ns): wire bytes
    the receiver counted in its 100 ms buckets that lie wholly inside the
    window, over what the line rate carries in them. Returns (mean, the
    list of per-bucket utilisations)."""
    start, width = res["bucket_start_ns"], res["bucket_ns"]
    per_bucket = mbit * 1e6 * width / 8e9
    buckets = [b / per_bucket for i, b in enumerate(res["bucket_wire_bytes"])
               if start + i * width >= lo_ns and start + (i + 1) * width <= hi_ns]
    if not buckets:
        return 0.0, []
    return sum(buckets) / len(buckets), buckets


def qstats(host, dev):
    return json.loads(host.run(f"tc -s -j qdisc show dev {dev}"))[0]


def summary(name, sends, res, pauses, util):
    sent = sum(s["sent"] for s in sends)
    got = sum(f["received"] for f in res["flows"].values())
    print(f"  {name:9s} sent {sent:8d}  received {got:8d}  lost {sent - got:7d}  "
          f"pauses {pauses:6d}  bottleneck {util * 100:5.1f}%")
    return sent, got


