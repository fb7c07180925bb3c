#!/usr/bin/python3
"""losslessd runs a pool under the static-threshold scheme (VM test):
`policy = "st"` with its [pool.st] table installs `scheme st` on every
port, losslessctl and Prometheus show it, `losslessctl set st.threshold`
reaches the datapath, an incast under it loses nothing, and a [pool.st]
table on a pool of another scheme is refused with its line
(docs/SCHEMES.md, docs/DAEMON.md).
"""

import json
import os
import subprocess
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
from check import Checks  # noqa: E402
from daemon_conf import losslessd_config  # noqa: E402
from incast import SW_DELAY, build, qstats, traffic  # noqa: E402
from topology import Paths, Topology  # noqa: E402

SOCK = "/run/lossless-scheme/losslessd.sock"
PIN = "/sys/fs/bpf/lossless-scheme"
CONF = "/tmp/losslessd-scheme.toml"
PROM = "127.0.0.1:9469"
MBIT = 5
THRESHOLD = 102400


def config(ports, policy="st", table='[pool.st]\nthreshold = "100kb"'):
    text = losslessd_config(SOCK, PIN, ports, {"buffer": "2mb", "lossless-prios": [3],
                                               "sw-delay": SW_DELAY},
                            f"{MBIT}mbit", table)
    text = text.replace('policy = "pfc-dt"', f'policy = "{policy}"')
    return text.replace('period = "1ms"\n', f'period = "1ms"\nprometheus = "{PROM}"\n', 1)


def ctl(sw, args, check=True):
    return sw.run(f"{Paths.ctl} --socket {SOCK} {args}", check=check)


def wait_ready(sw, timeout=20):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if ctl(sw, "daemon --json", check=False).returncode == 0:
            return True
        time.sleep(0.2)
    return False


def tc_scheme(sw, ports):
    out = {}
    for p in ports:
        o = json.loads(sw.run(f"tc -j qdisc show dev {p}"))[0]["options"]
        out[p] = (o.get("scheme"), o.get("st_threshold"))
    return out


def wait_for(pred, timeout=5.0):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if pred():
            return True
        time.sleep(0.05)
    return pred()


def metrics(sw):
    return sw.run("python3 -c 'import urllib.request; print(urllib.request.urlopen("
                  f"\"http://{PROM}/metrics\", timeout=5).read().decode())'")


def main():
    c = Checks("daemon_scheme")
    subprocess.run(f"rm -rf {PIN} /run/lossless-scheme", shell=True, check=True)
    with Topology("dsc") as t:
        sw, r, r_ip, bottleneck, senders, ports = build(t, None, 3, mbit=MBIT)
        with open(CONF, "w") as f:
            f.write(config(ports))
        chk = sw.run(f"{Paths.losslessd} --config {CONF} --check", check=False)
        c.ok(chk.returncode == 0, "losslessd --check accepts policy st with [pool.st]",
             chk.stderr.strip()[:300])
        d = sw.popen(f"{Paths.losslessd} --config {CONF}")
        c.ok(wait_ready(sw), "losslessd starts",
             "" if d.poll() is None else d.stderr.read()[:300])
        c.eq(tc_scheme(sw, ports), {p: ("st", THRESHOLD) for p in ports},
             "it installed scheme st with its threshold on every port (tc)")
        st = json.loads(ctl(sw, f"--plane {PIN}/sw0/plane status --json"))
        pools = st if isinstance(st, list) else st.get("pools", [st])
        c.eq([(p.get("scheme"), p.get("scheme_params")) for p in pools],
             [("st", {"threshold": THRESHOLD})], "losslessctl status --json shows it")
        text = ctl(sw, f"--plane {PIN}/sw0/plane status")
        # The table writes it as tc does; --json keeps the number.
        c.ok(f"scheme st  threshold {THRESHOLD // 1024}kb" in text, "and losslessctl status",
             next((line.strip() for line in text.splitlines() if "scheme" in line), "no line"))
        m = metrics(sw)
        c.ok('lossless_pool_scheme_info{pool="sw0",scheme="st"} 1' in m and
             f'lossless_pool_scheme_param{{pool="sw0",scheme="st",param="threshold"}} {THRESHOLD}'
             in m, "Prometheus: scheme info and its parameter")

        out = ctl(sw, "--pool sw0 set st.threshold 64kb", check=False)
        c.ok(out.returncode == 0 and wait_for(
            lambda: tc_scheme(sw, ports) == {p: ("st", 65536) for p in ports}),
            "losslessctl set st.threshold 64kb reaches every port", out.stdout.strip() + out.stderr.strip())
        bad = ctl(sw, "--pool sw0 set st.threshold 3mb", check=False)
        c.ok(bad.returncode != 0 and "must be 0 .. 2097152 bytes" in bad.stderr,
             "a threshold above the buffer is refused by name", bad.stderr.strip())
        c.eq(tc_scheme(sw, ports), {p: ("st", 65536) for p in ports}, "and changes nothing")

        sends, res, util = traffic(sw, r, r_ip, bottleneck, senders, 4, MBIT, None, idle_exit=1)
        sent = sum(s["sent"] for s in sends)
        got = sum(f["received"] for f in res["flows"].values())
        stats = {p: qstats(sw, p) for p in ports}
        pfc = sum(s.get("pfc_frames_tx", 0) for s in stats.values())
        print(f"  3:1 incast under st (daemon): sent {sent} received {got} PFC frames {pfc} "
              f"utilisation {util * 100:.1f}%", flush=True)
        c.eq(sent - got, 0, "a 3:1 incast under st loses nothing")
        c.eq(sum(s["pool_drops_lossless"] for s in stats.values()), 0, "MMU: no lossless drop")
        c.eq({s["ingress"][3]["threshold"] for s in stats.values()}, {65536},
             "every lossless ingress used the threshold set")

        d.terminate()
        subprocess.run("pkill -TERM -x losslessd", shell=True)
        d.wait(timeout=10)
        with open(CONF, "w") as f:
            f.write(config(ports, policy="pfc-dt"))
        chk = sw.run(f"{Paths.losslessd} --config {CONF} --check", check=False)
        c.ok(chk.returncode != 0 and '[pool.st] is for scheme "st"; this pool runs "dt"'
             in chk.stderr, "a [pool.st] table on a dt pool is refused with its line",
             chk.stderr.strip()[:300])
        sw.run(f"{Paths.losslessd} --config {CONF} --cleanup", check=False)
    c.finish()


if __name__ == "__main__":
    main()
