#!/usr/bin/python3
"""Benchmark: what losslessd costs on a 16-port software switch. Not a
pass/fail test: it prints numbers (targets in parentheses).

A Linux bridge with 16 veth ports (two hosts that exchange traffic, the
other 14 peers in one idle namespace, every link up). losslessd installs
a lossless qdisc and the ingress program on every port from a
configuration with one pool, 16 ports at 1gbit, lossless_prios 0..7 and a
1 ms period. It runs 10 s idle, then 10 s while h1 sends UDP to h2 through
the bridge. Printed:

- the daemon's CPU use in % of one core over each window (utime + stime
  of /proc/PID/stat; target < 5 %), and its ticks and self-measured busy
  time (losslessctl daemon --json);
- its resident memory, VmRSS and VmHWM (target < 30 MB);
- the latency of a parameter change through the daemon to the datapath:
  20 x `losslessctl --pool sw0 set alpha`, 1/4 and 1/8 alternating, as the
  "in X ms" it prints: min / median / max;
- what `losslessd --cleanup` did.

Run it in the VM: vm-images/run-vm --timeout 900 -- tests/vm/bench-daemon.py
(LL_BENCH_DAEMON_SECONDS changes the 10 s windows; LL_BENCH_DAEMON_PERF=1
adds a 5 s `perf record` of the idle daemon and prints where its time
goes; LL_BENCH_LOSSLESSD=PATH runs another losslessd binary, to compare
builds.)

Under QEMU TCG every instruction is emulated and every wakeup costs a
softmmu TLB flush, so the CPU figures are an upper bound of what the
daemon costs on real hardware. The baseline in the same run: the CPU of an
empty 1 ms Asio timer (ll_bench_daemon's BM_TimerFloor), what any daemon
with a 1 ms period pays here for waking up. The same benchmark run on the
host by `make bench` measures the daemon's period natively.
"""

import json
import os
import re
import signal
import statistics
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "lib"))
from daemon_conf import losslessd_config  # noqa: E402
from topology import ROOT, Paths, Topology, announce, host_pair_via  # noqa: E402

PORTS = 16
WINDOW = float(os.environ.get("LL_BENCH_DAEMON_SECONDS", "10"))
SETS = 20
RATE_MBIT = 100       # offered load h1 -> h2, payload Mbit/s
SOCK = "/run/lossless-bench/losslessd.sock"
PIN = "/sys/fs/bpf/lossless-bench"
CONF = "/tmp/losslessd-bench.toml"
LOG = "/tmp/losslessd-bench.log"
HZ = os.sysconf("SC_CLK_TCK")
PERF = os.environ.get("LL_BENCH_DAEMON_PERF") == "1"
BENCH = os.path.join(Paths.build, "tests", "bench", "ll_bench_daemon")
LOSSLESSD = os.environ.get("LL_BENCH_LOSSLESSD", Paths.losslessd)


def config(ports):
    return losslessd_config(SOCK, PIN, ports, {"buffer": "64mb", "lossless_prios": list(range(8))},
                            "1gbit")


def load_modules():
    """The module and what the topology needs; True if we loaded
    sch_lossless (run-all.sh does the same for the tests)."""
    for m in ("veth", "bridge", "sch_ingress", "cls_bpf"):
        subprocess.run(["modprobe", m], check=True)
    if os.path.exists("/sys/module/sch_lossless"):
        return False
    subprocess.run(["insmod", Paths.module], check=True)
    return True


def cpu_ticks(pid):
    with open(f"/proc/{pid}/stat") as f:
        # The fields after the command name (which may hold spaces).
        rest = f.read().rsplit(")", 1)[1].split()
    return int(rest[11]) + int(rest[12])  # utime, stime (fields 14, 15)


def status_kb(pid, key):
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith(key + ":"):
                return int(line.split()[1])
    return 0


def daemon_state(sw):
    r = sw.run(f"{Paths.ctl} --socket {SOCK} daemon --json", check=False)
    return json.loads(r.stdout) if r.returncode == 0 else None


def wait_ready(sw, proc, timeout=60):
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        st = daemon_state(sw)
        if st:
            return st
        if proc.poll() is not None:
            break
        time.sleep(0.2)
    return None


def window(sw, pid, seconds):
    """CPU % of one core, ticks and busy time over `seconds`."""
    st0, c0, t0 = daemon_state(sw), cpu_ticks(pid), time.monotonic()
    time.sleep(seconds)
    st1, c1, t1 = daemon_state(sw), cpu_ticks(pid), time.monotonic()
    wall = t1 - t0
    return {"wall": wall,
            "cpu": 100.0 * (c1 - c0) / HZ / wall,
            "ticks": st1["ticks"] - st0["ticks"],
            "busy_ms": (st1["busy_us"] - st0["busy_us"]) / 1000}


def show_window(name, w):
    print(f"  {name:8s} {w['wall']:5.1f} s: CPU {w['cpu']:5.2f} % of one core (target < 5 % natively; TCG: see the baseline); "
          f"{w['ticks']} ticks ({w['ticks'] / w['wall']:.0f}/s for a 1 ms period), "
          f"policy busy {w['busy_ms']:.1f} ms ({100 * w['busy_ms'] / 1000 / w['wall']:.2f} %, "
          f"{1000 * w['busy_ms'] / max(w['ticks'], 1):.0f} us per tick)", flush=True)


def timer_floor():
    """CPU % of one core of an empty 1 ms Asio timer in this VM, or None."""
    if not os.path.exists(BENCH):
        return None
    r = subprocess.run([BENCH, "--benchmark_filter=BM_TimerFloor", "--benchmark_format=json",
                        "--benchmark_repetitions=1"], capture_output=True, text=True)
    runs = json.loads(r.stdout or "{}").get("benchmarks", []) if r.returncode == 0 else []
    pcts = [b["cpu_pct"] for b in runs if "cpu_pct" in b and b.get("run_type") == "iteration"]
    return statistics.median(pcts) if pcts else None


def profile(pid, seconds=5):
    """Where the daemon's time goes: perf's software clock (TCG has no PMU)."""
    data = "/tmp/losslessd-bench.perf"
    r = subprocess.run(f"perf record -q -e cpu-clock -F 2000 -g -o {data} -p {pid} -- sleep {seconds}",
                       shell=True, capture_output=True, text=True)
    if r.returncode != 0:
        print(f"  perf record failed: {r.stderr.strip()}")
        return
    rep = subprocess.run(f"perf report -q -i {data} --no-children --stdio -g none "
                         f"--percent-limit 1 --sort dso,symbol",
                         shell=True, capture_output=True, text=True).stdout
    print("  perf (idle daemon, self time, >= 1 %):")
    for line in rep.splitlines()[:40]:
        f = line.split()
        if len(f) >= 4 and f[0].endswith("%"):
            print(f"    {f[0]:>7s}  {f[1]:20s} {' '.join(x for x in f[3:] if x != '-')}")


def main():
    loaded = load_modules()
    subprocess.run(f"rm -rf {PIN} {os.path.dirname(SOCK)}", shell=True, check=True)
    with Topology("bd") as t:
        sw, h1, h2 = t.switch("sw"), t.host("h1"), t.host("h2")
        idle = t.host("idle")
        _, ip2, _, _ = host_pair_via(t, sw, h1, h2)
        for _ in range(PORTS - 2):
            t.link(idle, sw)
        announce([h1, h2])
        ports = list(sw.ifaces)
        assert len(ports) == PORTS, ports
        with open(CONF, "w") as f:
            f.write(config(ports))

        d = sw.popen(f"{LOSSLESSD} --config {CONF} 2>{LOG}")
        st = wait_ready(sw, d)
        if not st:
            print("losslessd did not come up; its log:")
            print(open(LOG).read())
            sys.exit(1)
        pid = st["pid"]
        states = sorted({p["state"] for p in st["ports"]})
        print(f"losslessd pid {pid} on a {PORTS}-port bridge: 1 pool, lossless_prios 0..7, "
              f"1gbit ports, period {st['period_us']} us; ports {', '.join(states)}", flush=True)

        time.sleep(1)  # the first pushes (headroom of 16 ports) settle
        idle_w = window(sw, pid, WINDOW)
        show_window("idle", idle_w)
        rss_idle = status_kb(pid, "VmRSS")
        floor = timer_floor()
        if floor is None:
            print(f"  baseline: {BENCH} not built (Google Benchmark missing?)", flush=True)
        else:
            print(f"  baseline, same VM: an empty 1 ms Asio timer costs {floor:.2f} % of one core; "
                  f"losslessd idle is {idle_w['cpu'] - floor:+.2f} points above it", flush=True)
        if PERF:
            profile(pid)

        recv = h2.popen(f"{Paths.traffic} recv --port 6000 --idle-exit 2 --duration {WINDOW + 15}")
        time.sleep(0.3)
        send = h1.popen(f"{Paths.traffic} send --dst {ip2} --port 6000 --prio 3 --dscp 24 "
                        f"--size 1000 --rate-mbit {RATE_MBIT} --duration {WINDOW + 1}")
        time.sleep(0.5)
        busy_w = window(sw, pid, WINDOW)
        show_window("traffic", busy_w)
        s = json.loads(send.communicate(timeout=60)[0] or "{}")
        r = json.loads(recv.communicate(timeout=60)[0] or "{}")
        got = sum(f.get("received", 0) for f in r.get("flows", {}).values())
        secs = (s.get("end_ns", 1) - s.get("start_ns", 0)) / 1e9
        print(f"           traffic h1 -> h2 through the bridge: {s.get('sent', 0)} packets sent, "
              f"{got} received ({got * 1000 * 8 / secs / 1e6:.0f} Mbit/s of payload, "
              f"{RATE_MBIT} offered)", flush=True)
        rss, hwm = status_kb(pid, "VmRSS"), status_kb(pid, "VmHWM")
        print(f"  memory: VmRSS {rss / 1024:.1f} MB (idle {rss_idle / 1024:.1f} MB), "
              f"VmHWM {hwm / 1024:.1f} MB (target < 30 MB)", flush=True)

        lat, errors = [], []
        for i in range(SETS):
            alpha = "1/4" if i % 2 == 0 else "1/8"
            r = sw.run(f"{Paths.ctl} --socket {SOCK} --pool sw0 set alpha {alpha}", check=False)
            m = re.search(r"in ([0-9.]+) ms", r.stdout)
            if r.returncode == 0 and m:
                lat.append(float(m.group(1)))
            else:
                errors.append((r.stdout + r.stderr).strip())
        tc_alpha = json.loads(sw.run(f"tc -j qdisc show dev {ports[0]}"))[0]["options"].get("alpha")
        if lat:
            print(f"  set alpha through losslessd ({len(lat)} of {SETS} applied, 1/4 and 1/8 "
                  f"alternating): min {min(lat):.1f} ms, median {statistics.median(lat):.1f} ms, "
                  f"max {max(lat):.1f} ms; tc shows alpha {tc_alpha} (last set 1/8)", flush=True)
        for e in errors:
            print(f"  set alpha failed: {e}")

        d_alive = d.poll() is None
        subprocess.run(["kill", "-TERM", str(pid)], check=False)
        try:
            d.wait(timeout=10)
        except subprocess.TimeoutExpired:
            os.kill(pid, signal.SIGKILL)
        log = open(LOG).read().strip().splitlines()
        print(f"  losslessd ran to the end: {'yes' if d_alive else 'NO'}; its log: {len(log)} lines")
        # The startup lines (one per port) are expected; show the rest.
        rest = [x for x in log if not re.match(r"losslessd: port \S+ \(ifindex", x)]
        for x in rest[:20]:
            print(f"    {x}")
        if len(rest) > 20:
            print(f"    ... {len(rest) - 20} more")
        c = sw.run(f"{Paths.losslessd} --config {CONF} --cleanup", check=False)
        kinds = {json.loads(sw.run(f"tc -j qdisc show dev {p}"))[0]["kind"] for p in ports}
        print(f"  losslessd --cleanup: exit {c.returncode}, "
              f"{(c.stderr.strip().splitlines() or ['-'])[-1]}; qdiscs now {sorted(kinds)}; "
              f"pin dir {'gone' if not os.path.exists(PIN) else 'still there'}")
    if loaded:
        subprocess.run(["rmmod", "sch_lossless"], check=False)


if __name__ == "__main__":
    main()
