#!/usr/bin/python3
"""losslessd end to end (VM test), on the incast topology of the switch
tests (tests/lib/incast.py): the switch's ports get no qdisc from the test;
the daemon installs everything from a configuration file.

- losslessd installs a lossless qdisc of the pool, the ingress program and
  the pool's plane on every port;
- `losslessctl set alpha` through the daemon reaches the datapath within
  SET_BOUND_MS (measured by losslessctl, checked in tc);
- `kill -9` of the daemon in the middle of the incast: zero lossless drops;
- restarted, it adopts the running state: same qdiscs (handles, plane),
  counters not reset;
- bad input: a second instance, a malformed configuration, an unknown
  port, an out-of-range parameter and a stale pin directory each get a
  clear error and install nothing;
- a [[port]] with `mode = "bifrost"`: the daemon sets the mode through the
  plane (tc shows it, losslessctl status shows its counters); a reload
  without the key clears it (the daemon's own), and `kill -9` of the
  daemon leaves it running;
- readiness (systemd's Type=notify, under a NOTIFY_SOCKET of the test's):
  READY=1 comes once every port has its qdisc; a reload is RELOADING=1
  then READY=1; SIGTERM is STOPPING=1;
- `losslessctl clear peaks`: after the incast the pool's and the lossless
  priority's peaks are above 0; cleared through the daemon they are 0
  (nothing queued then), and again through the plane without the daemon
  after the port-mode phase's traffic;
- the headroom's premise (the incast's XOFF responses) reaches the plane
  and the daemon's status as tc's xstats count it;
- ownership: a `tc qdisc change` of alpha and of a port's headroom behind
  the running daemon: alpha (passed through from the file) adopted, the
  headroom (computed) reverted, each counted by source in `losslessctl
  daemon` and logged with the old and new value;
- `losslessd --cleanup` removes what it installed.
"""

import json
import os
import re
import shlex
import signal
import socket
import subprocess
import sys
import threading
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
from check import Checks  # noqa: E402
from daemon_conf import losslessd_config  # noqa: E402
from incast import MBIT, SW_DELAY, qstats, run_incast  # noqa: E402
from topology import Paths, Topology  # noqa: E402

SENDERS = 4
SECONDS = 8
SOCK = "/run/lossless-test/losslessd.sock"
PIN = "/sys/fs/bpf/lossless-test"
CONF = "/tmp/losslessd-test.toml"


# The daemon pushes a set at once: its period (1 ms) and the plane's two
# ticks (1 ms each) when nothing is late. Measured under TCG: 4.3, 5.9 and
# 14.1 ms (2026-11-28), the guest's timer wake-ups running up to tens of
# ms late on a busy host. 50 ms is still 20 times the nominal 2-3 ms: a
# push that waited for anything but the next ticks would show.
SET_BOUND_MS = 50


def config(ports, extra_pool="", extra_port=None):
    return losslessd_config(SOCK, PIN, ports + ([extra_port] if extra_port else []),
                            {"buffer": "2mb", "lossless-prios": [3], "alpha": "1/8",
                             "sw-delay": SW_DELAY},
                            f"{MBIT}mbit", extra_pool)


def write(path, text):
    with open(path, "w") as f:
        f.write(text)


def ctl(sw, args, check=True):
    return sw.run(f"{Paths.ctl} --socket {SOCK} {args}", check=check)


def wait_ready(sw, timeout=20):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        r = ctl(sw, "daemon --json", check=False)
        if r.returncode == 0:
            return json.loads(r.stdout)
        time.sleep(0.2)
    return None


def start_daemon(sw, conf=CONF, notify=None):
    env = {"NOTIFY_SOCKET": notify.path} if notify else None
    return sw.popen(f"{Paths.losslessd} --config {conf}", env=env)


class NotifySocket:
    """systemd's side of sd_notify(3): a datagram socket the daemon gets as
    NOTIFY_SOCKET; next() is the next state it sent."""
    def __init__(self, path="/run/lossless-test-notify.sock"):
        self.path = path
        if os.path.exists(path):
            os.unlink(path)
        self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
        self.sock.bind(path)

    def next(self, timeout=20):
        self.sock.settimeout(timeout)
        try:
            return self.sock.recv(4096).decode().strip()
        except socket.timeout:
            return None

    def close(self):
        self.sock.close()
        os.unlink(self.path)


def peaks(sw, ports, bottleneck):
    """The pool's peaks (from the bottleneck's qdisc) and every port's
    lossless priority 3 peaks, in bytes."""
    st = {p: qstats(sw, p) for p in ports}
    out = {"pool_peak_shared": st[bottleneck].get("pool_peak_shared", -1),
           "pool_peak_headroom": st[bottleneck].get("pool_peak_headroom", -1)}
    for p in ports:
        iq = next((q for q in st[p].get("ingress", []) if q.get("prio") == 3), {})
        out[f"{p}.prio3_peak_bytes"] = iq.get("peak_bytes", 0)
    return out


def qdisc_view(sw, ports):
    out = {}
    for p in ports:
        q = json.loads(sw.run(f"tc -s -j qdisc show dev {p}"))[0]
        out[p] = (q["kind"], q["handle"], q["options"].get("pool"), q["options"].get("plane_id"))
    return out


def bad_inputs(c, sw, ports):
    """With a daemon running: a second instance; without: malformed files."""
    r = sw.run(f"{Paths.losslessd} --config {CONF}", check=False)
    c.ok(r.returncode == 1 and "another losslessd is running" in r.stderr,
         "a second instance is refused", r.stderr.strip())
    # A request line longer than 64 KiB: refused with a message, the
    # daemon's memory not grown by it, and the daemon answers the next.
    script = ("import socket, sys\n"
              "s = socket.socket(socket.AF_UNIX); s.connect(sys.argv[1])\n"
              "try:\n"
              "    s.sendall(b'{' * (1 << 20))\n"
              "except OSError:\n"
              "    pass\n"
              "print(s.makefile().readline().strip())\n")
    r = sw.run(f"{Paths.python} -c {shlex.quote(script)} {SOCK}", check=False)
    c.ok("request refused: a request is one line of at most 65536 bytes" in r.stdout,
         "a request line of 1 MiB is refused with the limit", (r.stdout + r.stderr).strip()[:200])
    st = ctl(sw, "daemon --json", check=False)
    c.ok(st.returncode == 0, "and the daemon answers the next request", st.stderr.strip()[:200])


def bad_configs(c, sw, ports, spare):
    """No daemon running; spare is a switch port with no qdisc."""
    cases = [
        ("malformed file", config(ports) + "\n[[port]\n", r":\d+"),
        ("unknown port", config(ports, extra_port="nosuchdev0"), 'port "nosuchdev0": no such network device'),
        ("out-of-range parameter", config(ports, extra_pool='xon-offset = "9tb"'), "xon-offset"),
        ("unknown key", config(ports, extra_pool='alhpa = "1/4"'), 'did you mean "alpha"'),
    ]
    for what, text, pattern in cases:
        write("/tmp/losslessd-bad.toml", text.replace(f'dev = "{ports[0]}"', f'dev = "{spare}"', 1))
        r = sw.run(f"{Paths.losslessd} --config /tmp/losslessd-bad.toml", check=False)
        q = json.loads(sw.run(f"tc -j qdisc show dev {spare}"))[0]["kind"]
        c.ok(r.returncode == 1 and re.search(pattern, r.stderr) and q != "lossless",
             f"{what}: a clear error, nothing installed",
             (r.stderr.strip().splitlines() or ["no message"])[0] + f"; {spare} has {q}")
    # A stale pin directory: something else pinned where a plane belongs.
    stale_pin = "/sys/fs/bpf/lossless-stale"
    subprocess.run(f"mkdir -p {stale_pin}/sw0 && bpftool map create {stale_pin}/sw0/plane "
                   f"type hash key 4 value 8 entries 4 name stale", shell=True, check=True)
    write("/tmp/losslessd-bad.toml",
          config([spare]).replace(f'pin-dir = "{PIN}"', f'pin-dir = "{stale_pin}"'))
    r = sw.run(f"{Paths.losslessd} --config /tmp/losslessd-bad.toml", check=False)
    q = json.loads(sw.run(f"tc -j qdisc show dev {spare}"))[0]["kind"]
    c.ok(r.returncode == 1 and "stale pin directory" in r.stderr and q != "lossless",
         "a stale pin directory: a clear error, nothing installed",
         (r.stderr.strip().splitlines() or ["no message"])[0])
    subprocess.run(f"rm -rf {stale_pin}", shell=True, check=True)


# The daemon's Bifrost port: the VM's 5 Mbit/s links, a 160 ms RTT bound
# (slot 10 ms, J "auto": one slot until the telemetry says otherwise).
MODE_RTT_NS = 160_000_000
MODE_CONF = "/tmp/losslessd-mode.toml"


def with_mode(text, dev):
    """text with `mode = "bifrost"` in dev's [[port]]."""
    head = f'dev = "{dev}"\npool = "sw0"\n'
    assert head in text
    return text.replace(head, head + 'mode = "bifrost"\nbifrost-rtt = "160ms"\n', 1)


def tc_mode(sw, dev):
    o = json.loads(sw.run(f"tc -j qdisc show dev {dev}"))[0]["options"]
    return o.get("mode"), o.get("bifrost_rtt")


def wait_tc_mode(sw, dev, want, timeout=5):
    deadline = time.monotonic() + timeout
    got = tc_mode(sw, dev)
    while got != want and time.monotonic() < deadline:
        time.sleep(0.1)
        got = tc_mode(sw, dev)
    return got


def mode_stats(sw, dev):
    r = sw.run(f"{Paths.ctl} --plane {PIN}/sw0/plane status --json", check=False)
    if r.returncode:
        return {}
    port = next((p for p in json.loads(r.stdout)["pools"][0]["ports"] if p["dev"] == dev), {})
    return port.get("mode_stats", {})


def daemon_mode(c, sw, ports, dev, senders, r_ip):
    """No daemon running; the qdiscs are the daemon's. Bifrost on port dev
    (a sender's) through the configuration, its telemetry, ownership on
    reload, and the datapath keeping it after the daemon dies."""
    write(MODE_CONF, with_mode(config(ports), dev))
    t0 = time.monotonic()
    d = start_daemon(sw, MODE_CONF)
    st = wait_ready(sw)
    got = wait_tc_mode(sw, dev, ("bifrost", MODE_RTT_NS))
    c.ok(got == ("bifrost", MODE_RTT_NS),
         f'mode = "bifrost" in {dev}\'s [[port]]: tc shows the mode the daemon set',
         f"{got}, {time.monotonic() - t0:.1f} s after start" if st else "the daemon did not answer")
    others = {p: tc_mode(sw, p)[0] for p in ports if p != dev}
    c.ok(not any(others.values()), "the other ports keep the pool's scheme", str(others))
    # Lossless (DSCP 24: priority 3) arrivals on the port start its loop.
    sent = "no sender on the port"
    for h, lk in senders:
        if lk["b_if"] == dev:
            r = h.run(f"{Paths.traffic} send --dst {r_ip} --port 5001 --flow 0 --prio 3 --dscp 24 "
                      f"--size 1000 --rate-mbit 2 --duration 0.5", check=False)
            sent = f"send rc {r.returncode}"
    deadline = time.monotonic() + 3
    ms = mode_stats(sw, dev)
    while ms.get("slots", 0) == 0 and time.monotonic() < deadline:
        time.sleep(0.2)
        ms = mode_stats(sw, dev)
    c.ok(ms.get("mode") == "bifrost" and ms.get("slots", 0) > 0 and "max_late" in ms,
         "losslessctl status --json: the port's mode counters, counting its slots",
         ", ".join(f"{k} {ms[k]}" for k in ("slots", "frames", "restarts", "max_late") if k in ms)
         + f"; {sent}")
    text = sw.run(f"{Paths.ctl} --plane {PIN}/sw0/plane status", check=False).stdout
    c.ok(f"{dev} mode bifrost: slots " in text, "losslessctl status: a line with the mode and its counters",
         next((ln.strip() for ln in text.splitlines() if " mode bifrost:" in ln), "none"))
    # A reload without the key: the daemon clears the mode it set.
    write(MODE_CONF, config(ports))
    ctl(sw, "reload")
    c.eq(wait_tc_mode(sw, dev, (None, None)), (None, None),
         "reloaded without the key: the daemon clears the mode it set")
    write(MODE_CONF, with_mode(config(ports), dev))
    ctl(sw, "reload")
    wait_tc_mode(sw, dev, ("bifrost", MODE_RTT_NS))
    d.send_signal(signal.SIGKILL)
    subprocess.run("pkill -9 -x losslessd", shell=True)
    d.wait(timeout=10)
    time.sleep(0.5)
    c.eq(tc_mode(sw, dev), ("bifrost", MODE_RTT_NS), "kill -9 of the daemon: the port keeps its mode")


def plane_pool(sw):
    """Pool sw0's telemetry (losslessctl --plane status --json), its ports by dev."""
    r = sw.run(f"{Paths.ctl} --plane {PIN}/sw0/plane status --json", check=False)
    if r.returncode:
        return {}, {}
    pool = json.loads(r.stdout)["pools"][0]
    return pool, {p["dev"]: p for p in pool["ports"]}


def daemon_pool(sw):
    """Pool sw0 in losslessctl daemon --json."""
    return json.loads(ctl(sw, "daemon --json"))["pools"][0]


def premise_carried(c, sw, ports):
    """The headroom's premise (plane version 10) as tc's xstats count it,
    in the plane (losslessctl status) and the daemon's status, per port:
    the incast's XOFF responses (no traffic now: the numbers hold still)."""
    keys = ("xoff_responses", "xoff_response_max_ns", "headroom_warnings")
    qd = {q["dev"]: q for q in json.loads(sw.run("tc -s -j qdisc show"))
          if q.get("kind") == "lossless" and q.get("root")}
    tc = {p: tuple(qd.get(p, {}).get(k) for k in keys) for p in ports}
    _, pp = plane_pool(sw)
    plane = {p: tuple(pp.get(p, {}).get("premise", {}).get(k) for k in keys) for p in ports}
    st = daemon_pool(sw).get("premise", [])
    dmn = {q["dev"]: tuple(q.get(k) for k in keys) for q in st}
    sw_ns = {q["dev"]: q.get("sw_delay_ns", 0) for q in st}
    c.ok(tc == plane == dmn and sum(v[0] or 0 for v in tc.values()) > 0,
         "the premise reaches the plane and the daemon's status as tc counts it",
         "; ".join(f"{p} {tc[p][0]} responses, max {(tc[p][1] or 0) / 1e6:.1f} ms, "
                   f"{tc[p][2]} warnings" for p in ports if tc[p][0])
         + ("" if tc == plane == dmn else f"; tc {tc}; plane {plane}; daemon {dmn}"))
    m = re.fullmatch(r"(\d+)(ns|us|ms|s)", SW_DELAY)
    least = int(m.group(1)) * {"ns": 1, "us": 10**3, "ms": 10**6, "s": 10**9}[m.group(2)]
    c.ok(set(sw_ns) == set(ports) and min(sw_ns.values(), default=0) >= least,
         "the daemon's status: each port's software delay in force, at least sw_delay",
         ", ".join(f"{p} {v / 1e6:g} ms" for p, v in sorted(sw_ns.items())))


def ownership(c, sw, dev):
    """A tc qdisc change behind the running daemon (docs/DAEMON.md,
    "Ownership"): alpha, which the policy passes through from the file,
    adopted; dev's headroom, which it computes, reverted. Each counted
    (losslessctl daemon) with its source; the log lines are checked when
    the daemon has stopped (logged_ownership)."""
    pool, pp = plane_pool(sw)
    hr0, alpha0 = pp.get(dev, {}).get("headroom_bytes"), pool.get("alpha")
    t0 = time.monotonic()
    r = sw.run(f"tc qdisc change dev {dev} root lossless alpha 1/2 headroom 20000", check=False)
    tc_ms = (time.monotonic() - t0) * 1000
    t0 = time.monotonic()
    dp = daemon_pool(sw)
    while dp.get("foreign_changes", {}).get("total", 0) < 2 and time.monotonic() - t0 < 5:
        time.sleep(0.05)
        dp = daemon_pool(sw)
    took_ms = (time.monotonic() - t0) * 1000
    f = dp.get("foreign_changes", {"counts": []})
    counts = sorted((x["setting"], x["source"], x["action"], x["count"]) for x in f["counts"])
    c.ok(counts == [("alpha", "tc", "adopted", 1), ("headroom", "tc", "reverted", 1)],
         "tc qdisc change alpha 1/2 headroom 20000 behind the daemon: both counted, by tc",
         f"{counts}; tc rc {r.returncode} in {tc_ms:.0f} ms; seen {took_ms:.0f} ms after",
         measured=took_ms)
    deadline = time.monotonic() + 5
    pool, pp = plane_pool(sw)
    while pp.get(dev, {}).get("headroom_bytes") != hr0 and time.monotonic() < deadline:
        time.sleep(0.05)
        pool, pp = plane_pool(sw)
    hr, alpha = pp.get(dev, {}).get("headroom_bytes"), pool.get("alpha")
    c.ok(hr == hr0 and hr0 and alpha == "1/2",
         "the computed headroom is reverted, the passed-through alpha stays adopted",
         f"headroom {hr0} -> 20000 -> {hr} B; alpha {alpha0} -> {alpha}")
    text = ctl(sw, "daemon")
    c.ok(dp["params"].get("alpha") == "1/2" and "changes behind losslessd: 2" in text,
         "losslessctl daemon: the adopted alpha is the policy's, and the count",
         next((ln.strip() for ln in text.splitlines() if "behind losslessd" in ln), "no line"))


def logged_ownership(c, log):
    """The daemon's log (its stderr) has a line per change of ownership()."""
    lines = [ln for ln in log.splitlines() if "changed behind losslessd" in ln]
    c.ok(any("alpha changed behind losslessd by tc" in ln and "1/8 -> 1/2; adopted" in ln
             for ln in lines)
         and any(re.search(r"headroom of port \S+ changed behind losslessd by tc.*-> 20000; "
                           r"reverted to \d+", ln) for ln in lines),
         "the daemon logged both changes: what, by whom, old and new, adopted or reverted",
         " | ".join(ln.split("losslessd: ", 1)[-1] for ln in lines) or "no line")


def port_state(sw, dev):
    st = json.loads(ctl(sw, "daemon --json"))
    return next(((p["up"], p["state"]) for p in st["ports"] if p["dev"] == dev), None)


def wait_state(sw, dev, want, timeout=5):
    deadline = time.monotonic() + timeout
    got = None
    while time.monotonic() < deadline:
        got = port_state(sw, dev)
        if got == want:
            break
        time.sleep(0.1)
    return got


def link_events(c, sw, dev):
    """The daemon follows a port going down and up, renamed away and back,
    and deleted then created again."""
    sw.run(f"ip link set {dev} down")
    c.eq(wait_state(sw, dev, (False, "adopted")), (False, "adopted"), f"{dev} down: seen as down")
    sw.run(f"ip link set {dev} name llrenamed")  # a name changes only while down
    c.eq(wait_state(sw, dev, (False, "missing")), (False, "missing"), f"{dev} renamed away: missing")
    sw.run(f"ip link set llrenamed name {dev}")
    c.eq(wait_state(sw, dev, (False, "adopted")), (False, "adopted"),
         "renamed back: adopted again (its qdisc went with it)")
    sw.run(f"ip link set {dev} up")
    c.eq(wait_state(sw, dev, (True, "adopted")), (True, "adopted"), f"{dev} up: seen as up")
    sw.run(f"ip link del {dev}")
    c.eq(wait_state(sw, dev, (False, "missing")), (False, "missing"), f"{dev} deleted: missing")
    for cmd in (f"ip link add {dev} type veth peer name {dev}p", f"ip link set {dev} master br0",
                f"ip link set {dev}p up", f"ip link set {dev} up"):
        sw.run(cmd)
    st = wait_state(sw, dev, (True, "installed"))
    kind = json.loads(sw.run(f"tc -j qdisc show dev {dev}"))[0]
    c.ok(st == (True, "installed") and kind["kind"] == "lossless" and kind["options"].get("plane_id"),
         f"a new {dev} appears: the daemon installs its qdisc with the plane",
         f"{st}, {kind['kind']} plane {kind['options'].get('plane_id')}")


def main():
    c = Checks("daemon")
    subprocess.run(f"rm -rf {PIN} /run/lossless-test", shell=True, check=True)
    state = {}

    def before(sw, r, r_ip, senders):
        ports = list(sw.ifaces)
        state["ports"] = ports
        state["r_ip"] = r_ip
        write(CONF, config(ports))
        t0 = time.monotonic()
        notify = NotifySocket()
        d = start_daemon(sw, notify=notify)
        first = notify.next()
        # READY=1 only once the ports are set up: their qdiscs are there now.
        view = qdisc_view(sw, ports)
        c.ok(first == "READY=1" and all(v[0] == "lossless" and v[3] for v in view.values()),
             "Type=notify: its first message is READY=1, and every port had its qdisc by then",
             f"{first!r} after {time.monotonic() - t0:.1f} s; qdiscs {sorted(set(v[0] for v in view.values()))}")
        notify.close()
        st = wait_ready(sw)
        c.ok(st is not None, "losslessd starts and answers on its socket",
             f"{time.monotonic() - t0:.1f} s" if st else d.stderr.read() if d.poll() is not None else "")
        c.ok(all(v[0] == "lossless" and v[2] == "sw0" and v[3] for v in view.values()),
             "it installed a lossless qdisc of pool sw0 with a plane on every port",
             str(sorted(set(view.values()))))
        prog = [sw.run(f"tc filter show dev {p} ingress") for p in ports]
        c.ok(all("lossless_ingress" in x or "direct-action" in x for x in prog),
             "and the ingress program on every port")
        c.eq(sorted(x["state"] for x in st["ports"]), ["installed"] * len(ports),
             "losslessctl daemon: every port installed")
        out = ctl(sw, "--pool sw0 set alpha 1/4")
        m = re.search(r"in ([0-9.]+) ms", out)
        ms = float(m.group(1)) if m else 1e9
        alphas = {json.loads(sw.run(f"tc -j qdisc show dev {p}"))[0]["options"]["alpha"] for p in ports}
        c.ok(ms <= SET_BOUND_MS and alphas == {"1/4"},
             f"losslessctl set alpha 1/4 through the daemon: in the datapath within {SET_BOUND_MS} ms",
             f"{out.strip()}; tc: {alphas}", measured=ms)
        r2 = ctl(sw, "--pool sw0 set reserved 4000000000", check=False)
        alphas = {json.loads(sw.run(f"tc -j qdisc show dev {p}"))[0]["options"]["reserved"] for p in ports}
        c.ok(r2.returncode == 1 and "refused" in r2.stderr and len(alphas) == 1
             and alphas != {4000000000},
             "a value the datapath refuses leaves the old one", r2.stderr.strip())
        bad_inputs(c, sw, ports)
        state["before"] = {p: qstats(sw, p) for p in ports}

        def killer():
            time.sleep(3.0)
            os.kill(d.pid, signal.SIGKILL)  # sh -c exec's? kill the whole group below
            subprocess.run("pkill -9 -x losslessd", shell=True)
            state["killed_at"] = time.monotonic()
        threading.Thread(target=killer, daemon=True).start()
        state["sw"] = sw

    with Topology("dmn") as t:
        sw, senders, sw_ports, bottleneck, sends, res, util = run_incast(
            t, None, senders=SENDERS, seconds=SECONDS, before=before)
        c.ok("killed_at" in state, "losslessd was killed with SIGKILL during the incast")
        lost = sum(s["sent"] for s in sends) - sum(f["received"] for f in res["flows"].values())
        after = {p: qstats(sw, p) for p in sw_ports}
        c.eq(lost, 0, f"{SENDERS}:1 incast across kill -9: zero lost end to end")
        c.eq(after[bottleneck]["pool_drops_lossless"], 0, "datapath: zero lossless drops")
        c.ok(sum(s["pfc_frames_tx"] for s in after.values()) > 0, "PFC kept working without the daemon",
             f"{sum(s['pfc_frames_tx'] for s in after.values())} frames")
        view0 = qdisc_view(sw, sw_ports)
        pkts0 = {p: after[p]["packets"] for p in sw_ports}

        pk0 = peaks(sw, sw_ports, bottleneck)
        notify = NotifySocket()
        d = start_daemon(sw, notify=notify)
        ready = notify.next()
        st = wait_ready(sw)
        c.ok(st is not None and ready == "READY=1", "restarted, it is ready (READY=1) and answers again",
             f"{ready!r}")
        view1 = qdisc_view(sw, sw_ports)
        c.eq(view1, view0, "restarted: the same qdiscs (kind, handle, pool, plane id)")
        c.eq(sorted(x["state"] for x in (st or {"ports": []})["ports"]), ["adopted"] * len(sw_ports),
             "losslessctl daemon: every port adopted")
        pkts1 = {p: qstats(sw, p)["packets"] for p in sw_ports}
        c.ok(all(pkts1[p] >= pkts0[p] > 0 for p in sw_ports), "counters were not reset",
             f"bottleneck {pkts0[bottleneck]} -> {pkts1[bottleneck]} packets")
        alpha = json.loads(sw.run(f"tc -j qdisc show dev {bottleneck}"))[0]["options"]["alpha"]
        c.eq(alpha, "1/8", "its policy pushes its configured alpha again (1/8)")
        t_own = time.monotonic()
        premise_carried(c, sw, sw_ports)
        print(f"  premise phase: {time.monotonic() - t_own:.1f} s")
        # clear peaks through the daemon: the incast's peaks, then none.
        t_clear = time.monotonic()
        r = ctl(sw, "clear peaks", check=False)
        pk1 = peaks(sw, sw_ports, bottleneck)
        # The senders' ports hold the bytes that entered on them (ingress).
        ingress_peak = max(v for k, v in pk0.items() if k.endswith(".prio3_peak_bytes"))
        c.ok(pk0["pool_peak_shared"] > 0 and ingress_peak > 0,
             "after the incast the peaks are above 0 (what clear must reset)",
             f"pool shared {pk0['pool_peak_shared']} B, headroom {pk0['pool_peak_headroom']} B, "
             f"largest ingress prio 3 peak {ingress_peak} B")
        c.ok(r.returncode == 0 and "pool sw0: peaks cleared" in r.stdout and not any(pk1.values()),
             "losslessctl clear peaks (through the daemon): every peak is 0",
             f"{r.stdout.strip() or r.stderr.strip()}; {pk1}",
             measured=(time.monotonic() - t_clear) * 1000)
        c.eq(qstats(sw, bottleneck)["packets"] >= pkts1[bottleneck], True,
             "clear peaks leaves the counters alone")
        t_own = time.monotonic()
        ownership(c, sw, bottleneck)
        print(f"  ownership phase: {time.monotonic() - t_own:.1f} s")
        link_events(c, sw, sw_ports[-1])
        # A reload: RELOADING=1, then READY=1 once applied.
        ctl(sw, "reload")
        msgs = [notify.next(5), notify.next(5)]
        c.eq(msgs, ["RELOADING=1", "READY=1"], "Type=notify: a reload is RELOADING=1, then READY=1")
        d.send_signal(signal.SIGTERM)
        subprocess.run("pkill -TERM -x losslessd", shell=True)
        d.wait(timeout=10)
        c.eq(notify.next(5), "STOPPING=1", "Type=notify: SIGTERM is STOPPING=1")
        logged_ownership(c, d.stderr.read())
        notify.close()
        c.eq(json.loads(sw.run(f"tc -j qdisc show dev {bottleneck}"))[0]["kind"], "lossless",
             "stopped (SIGTERM), it leaves the datapath running")

        spare = t.host("spare")
        lk = t.link(spare, sw)
        bad_configs(c, sw, sw_ports, lk["b_if"])
        t_mode = time.monotonic()
        mode_dev = next(p for p in sw_ports[:-1] if p != bottleneck)
        daemon_mode(c, sw, sw_ports, mode_dev, senders, state["r_ip"])
        print(f"  port mode phase: {time.monotonic() - t_mode:.1f} s")
        # clear peaks without the daemon (killed at the end of that phase),
        # through the plane: the phase's lossless traffic left a peak.
        pk2 = peaks(sw, sw_ports, bottleneck)
        r = sw.run(f"{Paths.ctl} --plane {PIN}/sw0/plane clear peaks", check=False)
        pk3 = peaks(sw, sw_ports, bottleneck)
        c.ok(pk2[f"{mode_dev}.prio3_peak_bytes"] > 0 and r.returncode == 0
             and "clear peaks: applied" in r.stdout and not any(pk3.values()),
             "losslessctl --plane clear peaks (no daemon): the mode phase's peak, then 0",
             f"{mode_dev} prio 3 {pk2[f'{mode_dev}.prio3_peak_bytes']} B -> {pk3}; "
             f"{r.stdout.strip() or r.stderr.strip()}")

        r = sw.run(f"{Paths.losslessd} --config {CONF} --cleanup", check=False)
        kinds = {json.loads(sw.run(f"tc -j qdisc show dev {p}"))[0]["kind"] for p in sw_ports}
        left = subprocess.run(f"ls {PIN}", shell=True, capture_output=True, text=True)
        c.ok(r.returncode == 0 and "lossless" not in kinds and left.returncode != 0,
             "losslessd --cleanup removes qdiscs, filters and pins",
             f"qdiscs now {kinds}; pin dir {'gone' if left.returncode else left.stdout.split()}")
    c.finish()


if __name__ == "__main__":
    main()
