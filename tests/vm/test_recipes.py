#!/usr/bin/python3
"""docs/RECIPES.md, run as a root shell runs it (VM test).

Every block of the document marked <!-- run: NAME --> runs here, read from
the document itself (tests/lib/doc_blocks.py), so the recipes and their
test cannot drift apart; the values the document says the test replaces
(SUBST: the VM cannot fill 10 Gbit/s) and only those. The switch is the
VM's root network namespace, as on a real host; its ports swp1 .. swp4 are
veths whose other ends are the hosts' eth0, each host a namespace
(10.0.0.1 .. 10.0.0.4). Each block's output is kept, and every <!-- output:
NAME --> sample is checked against it by shape (doc_blocks.missing()).

In order, each step checking the effect its recipe claims:
  uplink        on h1 .. h3 (each with a bpffs of its own, as separate
                hosts have): their uplinks get the lossless qdisc;
  bridge-tc     the 4-port bridge; a 3:1 incast on priority 3 (DSCP 24)
                into h4: the switch sends PFC, the uplinks receive it, no
                lossless drop, every datagram delivered;
  watchdog      drop on swp4, a PFC storm from h4 while h1 sends to it: a
                storm detected, packets dropped, then restored;
  spfc          the idle pool to spfc; the incast again: spfc in force, no
                lossless drop, every datagram delivered;
  dsh           at the document's own values (10 Gbit/s, 1 ms, 24 MB): the
                pool's headroom and shared sizes the kernel computes under
                dsh and dt, with two lossless priorities and with one, are
                the numbers the text quotes (one priority: equal);
  bridge-toml   the file passes --check; losslessd starts on it;
  move          a busy pool (the incast running) moved to spfc by
                losslessctl move-scheme, the file edited and reloaded; then
                a move with a 1 ms timeout fails with the drain's error and
                the scheme stays; the incast loses nothing;
  metrics       the Prometheus endpoint; every metric the Grafana dashboard
                (docs/examples/grafana-lossless.json) queries is served.
"""

import json
import os
import re
import subprocess
import sys
import time
import urllib.request

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
import doc_blocks  # noqa: E402
from check import Checks, first_line  # noqa: E402
from topology import ROOT, Paths  # noqa: E402

DOC = os.path.join(ROOT, "docs", "RECIPES.md")
DASHBOARD = os.path.join(ROOT, "docs", "examples", "grafana-lossless.json")
# What the document says the test replaces, and nothing else.
SUBST = [("10gbit", "5mbit"), ("sw-delay 1ms", "sw-delay 60ms"), ('sw_delay = "1ms"', 'sw_delay = "60ms"'),
         ("buffer 16mb", "buffer 512kb"), ("buffer 24mb", "buffer 1mb"), ('buffer = "16mb"', 'buffer = "512kb"')]
PORTS = ["swp1", "swp2", "swp3", "swp4"]
HOSTS = ["rcp-h1", "rcp-h2", "rcp-h3", "rcp-h4"]
SENDERS = HOSTS[:2]
RECEIVER = HOSTS[3]
RX_IP = "10.0.0.4"
UDP_PORT = 5000
MBIT_EACH = 3.5          # 2 x 3.5 Mbit/s into a 5 Mbit/s port
CONF = "/etc/lossless/losslessd.toml"
OUT = os.path.join(os.environ.get("LL_BUILD_DIR", os.path.join(ROOT, "build")), "recipes-out")


def sh(cmd, check=True, timeout=60):
    r = subprocess.run(cmd, shell=True, capture_output=True, text=True, timeout=timeout)
    if check and r.returncode:
        raise RuntimeError(f"{cmd}: exit {r.returncode}: {r.stderr.strip()}")
    return r


def env():
    e = dict(os.environ)
    e["PATH"] = f"{Paths.build}/daemon:{Paths.build}/tests/tools:{e.get('PATH', '/usr/sbin:/usr/bin:/sbin:/bin')}"
    e["TC_LIB_DIR"] = Paths.tc_lib
    return e


def vm_text(text):
    for a, b in SUBST:
        text = text.replace(a, b)
    return text


class Doc:
    def __init__(self, c):
        self.c = c
        bs = doc_blocks.blocks(DOC)
        self.run_blocks = doc_blocks.by_name(bs, "run")
        self.samples = doc_blocks.by_name(bs, "output")
        self.outputs = {}
        self.seconds = {}
        os.makedirs(OUT, exist_ok=True)
        bad = sorted(set(self.samples) - set(self.run_blocks))
        c.ok(not bad, "every output sample belongs to a run block", f"orphans {bad}")

    def run(self, name, ns=None, subst=True, private_bpffs=False, text=None, timeout=60, tag=None):
        """Run block name (or text) with bash -e, in the root namespace or
        host ns; its output goes to a file, so that a daemon it starts in
        the background does not hold the test up. Returns (status, out)."""
        b = self.run_blocks[name]
        script = text if text is not None else (vm_text(b.text) if subst else b.text)
        prefix = ""
        if ns:
            prefix = f"nsenter --net=/run/netns/{ns} "
            if private_bpffs:
                prefix += "unshare -m --propagation private sh -c 'mount -t bpf bpf /sys/fs/bpf && exec bash -e' "
        cmd = prefix if private_bpffs else prefix + "bash -e"
        key = tag or name
        path = os.path.join(OUT, f"{key}{'.' + ns if ns else ''}.txt")
        print(f"  -- {key}{' in ' + ns if ns else ''}", flush=True)
        t0 = time.monotonic()
        with open(path, "w") as out:
            r = subprocess.run(cmd, shell=True, input=script, stdout=out, stderr=subprocess.STDOUT,
                               text=True, env=env(), cwd="/", timeout=timeout)
        self.seconds[key] = self.seconds.get(key, 0) + time.monotonic() - t0
        text_out = open(path).read()
        self.outputs[key] = text_out
        self.c.ok(r.returncode == 0, f"recipe block '{key}'{' in ' + ns if ns else ''} runs (line {b.line})",
                  f"exit {r.returncode}: {text_out.strip()[-300:]}" if r.returncode else
                  f"{time.monotonic() - t0:.1f} s")
        return r.returncode, text_out

    def sample(self, name, out=None):
        s = self.samples.get(name)
        if not self.c.ok(s is not None, f"'{name}' has a sample output in the document"):
            return
        out = self.outputs.get(name, "") if out is None else out
        bad = doc_blocks.missing(s.text, out)
        if not self.c.ok(not bad and s.text.strip() not in ("", "..."),
                         f"the sample of '{name}' (line {s.line}) has the shape of what it printed",
                         f"not printed: {bad[:3]}" if bad else ""):
            print("  printed:\n" + "".join(f"    | {x}\n" for x in out.splitlines()), flush=True)


def qjson(dev, ns=None):
    pre = f"nsenter --net=/run/netns/{ns} " if ns else ""
    out = json.loads(sh(f"{pre}tc -s -j qdisc show dev {dev}").stdout)
    return next((q for q in out if q.get("kind") == "lossless"), {})


def batch(cmds, tool="ip", ns=None):
    """Commands in one process (-batch; -force: on through errors): under
    TCG every process costs tens of ms."""
    pre = f"-n {ns} " if ns else ""
    r = subprocess.run(f"{tool} {pre}-force -batch -", shell=True, input="\n".join(cmds) + "\n",
                       capture_output=True, text=True, timeout=60)
    return r


def mac(i):
    return f"02:00:00:00:00:{i + 1:02x}"


def build_hosts():
    r = batch([f"netns add {h}" for h in HOSTS])
    r2 = batch([f"link add {p} type veth peer name eth0 address {mac(i)} netns {h}"
                for i, (h, p) in enumerate(zip(HOSTS, PORTS))])
    if r.returncode or r2.returncode:
        raise RuntimeError(f"hosts: {r.stderr.strip()} {r2.stderr.strip()}")
    for i, h in enumerate(HOSTS):
        cmds = ["link set lo up", f"addr add 10.0.0.{i + 1}/24 dev eth0", "link set eth0 up"]
        cmds += [f"neigh replace 10.0.0.{j + 1} lladdr {mac(j)} dev eth0 nud permanent"
                 for j in range(len(HOSTS)) if j != i]
        r = batch(cmds, ns=h)
        if r.returncode:
            raise RuntimeError(f"{h}: {r.stderr.strip()}")


def teardown():
    batch([f"netns del {h}" for h in HOSTS] + ["link del br0"] + [f"link del {p}" for p in PORTS])
    sh("rm -rf /sys/fs/bpf/lossless /run/lossless /etc/lossless/losslessd.toml", check=False)


def pool_stats():
    return {p: qjson(p) for p in PORTS}


def drained(timeout=15.0):
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        st = pool_stats()
        if all(q.get("pool_shared_used", 0) == 0 and q.get("pool_headroom_used", 0) == 0 and
               q.get("backlog", 0) == 0 for q in st.values()):
            return True
        time.sleep(0.2)
    return False


class Incast:
    """h1 .. h3 to h4 on priority 3 (DSCP 24), each paced at MBIT_EACH."""

    def __init__(self, seconds, senders=SENDERS):
        self.recv = subprocess.Popen(
            f"exec nsenter --net=/run/netns/{RECEIVER} {Paths.traffic} recv --port {UDP_PORT} "
            f"--idle-exit 1 --duration {seconds + 30} --bucket-ms 0",
            shell=True, stdout=subprocess.PIPE, text=True)
        end = time.monotonic() + 10
        while time.monotonic() < end and not sh(
                f"ip netns exec {RECEIVER} ss -Hun state all sport = :{UDP_PORT}", check=False).stdout.strip():
            time.sleep(0.05)
        self.sends = [subprocess.Popen(
            f"exec nsenter --net=/run/netns/{h} {Paths.traffic} send --dst {RX_IP} --port {UDP_PORT} "
            f"--flow {i} --prio 3 --dscp 24 --rate-mbit {MBIT_EACH} --duration {seconds}",
            shell=True, stdout=subprocess.PIPE, text=True) for i, h in enumerate(senders)]
        self.seconds = seconds

    def result(self):
        sent = {i: json.loads(p.communicate(timeout=self.seconds + 60)[0])["sent"]
                for i, p in enumerate(self.sends)}
        res = json.loads(self.recv.communicate(timeout=self.seconds + 60)[0])
        got = {int(k): v["received"] for k, v in res["flows"].items()}
        return sent, got


def lossless_checks(c, what, sent, got, before=None):
    st = pool_stats()
    drops = sum(q.get("pool_drops_lossless", 0) for q in list(st.values())[:1])
    pfc_tx = sum(q.get("pfc_frames_tx", 0) for q in st.values()) - (before or 0)
    c.eq(drops, 0, f"{what}: no lossless drop in the pool")
    c.ok(pfc_tx > 0, f"{what}: the switch sent PFC to its upstreams", f"{pfc_tx} frames")
    c.ok(sum(sent.values()) > 0 and sent == {i: got.get(i, 0) for i in sent},
         f"{what}: every datagram on priority 3 delivered", f"sent {sent}, received {got}")
    return sum(q.get("pfc_frames_tx", 0) for q in st.values())


def storm(seconds, quanta):
    """h4 pauses swp4's priority 3 every 20 ms for seconds."""
    sys.path.insert(0, os.path.join(ROOT, "tests", "lib"))
    times = [0] * 8
    times[3] = quanta
    plan = [{"at": 0.02 * i, "name": f"x{i}", "kind": "pfc", "vector": 1 << 3, "times": times}
            for i in range(int(seconds / 0.02) + 1)]
    mac = json.loads(sh(f"ip -n {RECEIVER} -j link show eth0").stdout)[0]["address"]
    p = subprocess.Popen(f"exec nsenter --net=/run/netns/{RECEIVER} {Paths.python} {Paths.pause_sender} "
                         f"eth0 {mac} '{json.dumps(plan)}'", shell=True, stdin=subprocess.PIPE,
                         stdout=subprocess.PIPE, text=True)
    if p.stdout.readline().strip() != "ready":
        raise RuntimeError("pause_sender did not start")
    return p


def dsh_numbers(c, doc):
    """The sizes recipe 3's text quotes, from the kernel at the document's
    own values: recipe 1's pool, then recipe 3's change, then the same
    with dt and with one lossless priority."""
    add = " ".join(doc.run_blocks["bridge-tc"].text.replace("\\\n", " ").split())
    add = re.search(r"(tc qdisc add dev \"\$p\" root .*?plane auto)", add)
    change = re.search(r"^(tc qdisc change dev swp1 root lossless .*scheme dsh)$",
                       doc.run_blocks["dsh"].text, re.M)
    if not c.ok(add is not None and change is not None,
                "recipes 1 and 3 have their tc qdisc add and change lines"):
        return
    r = batch([add.group(1).replace('tc ', '', 1).replace('"$p"', p) for p in PORTS], tool="tc")
    if not c.ok(r.returncode == 0, "recipe 1's pool at the document's values", r.stderr.strip()):
        return
    # The four changes and a show after each, in one tc process.
    line = change.group(1).replace("tc ", "", 1)
    keys = ["dsh 3,4", "dt 3,4", "dt 3", "dsh 3"]
    cmds = [line, line.replace("scheme dsh", "scheme dt"), line.replace("3,4 scheme dsh", "3 scheme dt"),
            line.replace("3,4 scheme dsh", "3 scheme dsh")]
    r = subprocess.run("tc -s -j -batch -", shell=True, capture_output=True, text=True, timeout=60,
                       input="".join(f"{cmd}\nqdisc show dev swp3\n" for cmd in cmds))
    shows, dec, at = [], json.JSONDecoder(), 0
    text = r.stdout.strip()
    try:
        while at < len(text):
            v, end = dec.raw_decode(text, at)
            shows.append(next((q for q in v if q.get("kind") == "lossless"), {}))
            at = end
            while at < len(text) and text[at].isspace():
                at += 1
    except (ValueError, AttributeError):
        shows = []
    if not c.ok(r.returncode == 0 and len(shows) == 4, "recipe 3's change and its variants at the document's values",
                f"{r.stderr.strip()} {text[:300]!r}"):
        return
    out = {k: (q.get("pool_headroom_size"), q.get("pool_shared_size")) for k, q in zip(keys, shows)}
    batch([f"qdisc del dev {p} root" for p in PORTS], tool="tc")
    sh("rm -rf /sys/fs/bpf/lossless/sw0", check=False)
    print(f"  the kernel at the recipes' values, (headroom, shared) by scheme and lossless priorities: {out}",
          flush=True)
    two_dsh, two_dt, one_dt, one_dsh = out["dsh 3,4"], out["dt 3,4"], out["dt 3"], out["dsh 3"]
    c.eq(one_dsh, one_dt, "one lossless priority: DSH carves the same headroom and shared as DT")
    c.eq(two_dt[0], 2 * two_dsh[0], "two lossless priorities: DT carves twice DSH's headroom")
    text = " ".join(open(DOC).read().split())
    h_port = two_dsh[0] // 4 if two_dsh[0] else 0
    freed = two_dt[0] - two_dsh[0] if two_dt[0] and two_dsh[0] else 0
    for want in (f"4 x {h_port} = {one_dt[0]} bytes under either scheme",
                 f"DSH's shared region is no larger than DT's ({one_dt[1]} bytes",
                 f"8 x {h_port} = {two_dt[0]} bytes, leaving {two_dt[1]} shared",
                 f"DSH gives {freed} bytes",
                 f"back to the shared region ({two_dsh[1]} bytes)"):
        c.ok(want in text, f"docs/RECIPES.md says \"{want}\" (the kernel's numbers)")


def main():
    c = Checks("recipes")
    t_start = time.monotonic()
    last = [t_start]

    def phase(name):
        now = time.monotonic()
        print(f"  == {name}: {now - last[0]:.1f} s", flush=True)
        last[0] = now

    doc = Doc(c)
    teardown()
    try:
        build_hosts()
        phase("hosts")
        # 3's numbers, at the document's own values
        dsh_numbers(c, doc)
        phase("dsh numbers")
        # 5. the senders' uplinks (each host its own bpffs, as separate machines)
        for h in SENDERS:
            doc.run("uplink", ns=h, private_bpffs=True, tag="uplink")
        # 1. the bridge with tc, and the incast through it
        doc.run("bridge-tc")
        inc = Incast(2.0)
        time.sleep(1.2)
        doc.run("bridge-tc-look")
        doc.run("uplink-look", ns=SENDERS[0])
        sent, got = inc.result()
        pfc = lossless_checks(c, "tc bridge, 2:1 incast", sent, got)
        doc.sample("bridge-tc-look")
        up = qjson("eth0", SENDERS[0])
        c.ok(up.get("pfc_frames_rx", 0) > 0, "the host's uplink received the switch's PFC",
             f"pfc_frames_rx {up.get('pfc_frames_rx')}")
        doc.sample("uplink-look")
        phase("bridge-tc")
        # 6. the watchdog, and a storm from h4 while h1 sends to it
        doc.run("watchdog")
        pauser = storm(0.8, 390)   # about 40 ms of pause at 5 Mbit/s, every 20 ms
        one = Incast(1.2, senders=SENDERS[:1])
        time.sleep(0.2)
        pauser.stdin.write("go\n")
        pauser.stdin.flush()
        pauser.communicate(timeout=30)
        one.result()
        time.sleep(0.5)            # restoration 200 ms after the last XOFF, polled every 100 ms
        doc.run("watchdog-look")
        wd = json.loads(sh(f"{Paths.ctl} watchdog --json", timeout=30).stdout)
        ports = [p for pool in wd.get("pools", []) for p in pool.get("ports", []) if p.get("dev") == "swp4"]
        w3 = ports[0]["prios"][3] if ports else {}
        c.ok(w3.get("storms", 0) >= 1 and w3.get("dropped", 0) > 0 and not w3.get("storm", True),
             "watchdog: the storm from h4 was detected, its packets dropped, then restored",
             f"{ {k: w3.get(k) for k in ('storms', 'dropped', 'restores', 'storm')} }")
        doc.sample("watchdog-look")
        sh("tc qdisc change dev swp4 root lossless pfcwd off", check=False)
        phase("watchdog")
        # 4. SPFC on the idle pool, and the incast again
        c.ok(drained(), "the pool is idle before the scheme changes")
        doc.run("spfc")
        c.ok("scheme spfc" in doc.outputs["spfc"], "tc shows the pool's scheme spfc on another port",
             doc.outputs["spfc"].strip())
        inc = Incast(1.5)
        sent, got = inc.result()
        lossless_checks(c, "spfc bridge, 2:1 incast", sent, got, before=pfc)
        doc.run("spfc-look")
        doc.sample("spfc-look")
        phase("spfc")
        # 3. DSH on the idle pool
        c.ok(drained(), "the pool is idle before DSH")
        doc.run("dsh")
        doc.sample("dsh")
        q = qjson("swp3")
        c.ok(q.get("options", {}).get("scheme") == "dsh" and q.get("pool_total_bytes") == 1 << 20,
             "recipe 3's change on one port is the pool's: scheme dsh, buffer 1mb on swp3",
             f"scheme {q.get('options', {}).get('scheme')}, buffer {q.get('pool_total_bytes')}")
        doc.run("bridge-tc-down")
        phase("dsh")
        # 2. the same bridge from a file, and 7. the move under load
        doc.run("bridge-toml")
        doc.sample("bridge-toml")
        doc.run("bridge-toml-start", timeout=60)
        doc.sample("bridge-toml-start")
        inc = Incast(3.0)
        time.sleep(0.8)
        doc.run("move-timeout")
        doc.run("move")
        sent, got = inc.result()
        doc.sample("move-timeout")
        doc.sample("move")
        lossless_checks(c, "daemon's bridge, moved under load", sent, got)
        q = qjson("swp2")
        c.eq(q.get("options", {}).get("scheme"), "spfc", "the pool runs spfc after the move")
        c.ok("scheme stays dt" in doc.outputs["move-timeout"] and "exit status 1" in doc.outputs["move-timeout"],
             "a drain that times out: an error, exit status 1, the scheme stays",
             first_line(doc.outputs["move-timeout"]))
        phase("daemon, move")
        # 8. metrics and the dashboard
        doc.run("metrics")
        doc.sample("metrics")
        served = urllib.request.urlopen("http://127.0.0.1:9464/metrics", timeout=10).read().decode()
        names = set(re.findall(r"^(lossless_[a-z0-9_]+)", served, re.M))
        want = set(re.findall(r"lossless_[a-z0-9_]+", open(DASHBOARD).read()))
        json.load(open(DASHBOARD))
        c.ok(want and want <= names, "every metric the Grafana dashboard queries is served",
             f"not served: {sorted(want - names)}" if want - names else f"{len(want)} metrics")
        phase("metrics")
    finally:
        st = sh(f"{Paths.ctl} daemon --json", check=False, timeout=30)
        try:
            pid = json.loads(st.stdout)["pid"]
            os.kill(pid, 15)
            for _ in range(100):
                if not os.path.exists(f"/proc/{pid}"):
                    break
                time.sleep(0.1)
        except (ValueError, KeyError, ProcessLookupError):
            pass
        teardown()
    print("  seconds per block: " + ", ".join(f"{k} {v:.1f}" for k, v in doc.seconds.items()), flush=True)
    print(f"  recipes: {time.monotonic() - t_start:.1f} s in all", flush=True)
    c.finish()


if __name__ == "__main__":
    main()
