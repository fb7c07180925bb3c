#!/usr/bin/python3
"""The shipped example configuration starts, and losslessd --check sizes a
pool as the kernel does (VM test).

In a namespace with the example's ports (swp1, swp2: veths, run at the
example's 10 Gbit/s):

- docs/examples/losslessd.toml passes `losslessd --check`, and losslessd
  started on it installs both ports' qdiscs in its pool;
- the example with a buffer too small: --check refuses and names the first
  port, with a headroom per lossless priority equal to the one the kernel
  gave that port (tc -s -j headroom_size), and the buffer the pool needs;
- that buffer exactly passes --check and one byte less is refused at the
  second port; the kernel agrees on both sides of the boundary: tc adds the
  two ports' qdiscs with that buffer, and refuses the second with one
  byte less (pool too small).
"""

import json
import os
import re
import subprocess
import sys
import time
import tomllib

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
from check import Checks  # noqa: E402
from topology import ROOT, Paths  # noqa: E402

NS = "ex"
EXAMPLE = os.path.join(ROOT, "docs", "examples", "losslessd.toml")
CONF = "/tmp/losslessd-example.toml"


def sh(cmd, check=True):
    r = subprocess.run(cmd, shell=True, capture_output=True, text=True)
    if check and r.returncode:
        raise RuntimeError(f"{cmd}: exit {r.returncode}: {r.stderr.strip()}")
    return r


def in_ns(cmd, check=True):
    # nsenter --net keeps the root's /sys/fs/bpf (ip netns exec remounts /sys).
    return sh(f"nsenter --net=/run/netns/{NS} {cmd}", check)


def check(conf):
    return in_ns(f"{Paths.losslessd} --config {conf} --check", check=False)


def qdisc(dev):
    out = json.loads(in_ns(f"tc -s -j qdisc show dev {dev}").stdout)
    return out[0] if out else {}


def with_buffer(text, buffer):
    return re.sub(r'^buffer = "[^"]*"', f"buffer = {buffer}", text, count=1, flags=re.M)


def main():
    c = Checks("example_config")
    os.environ["TC_LIB_DIR"] = Paths.tc_lib
    text = open(EXAMPLE).read()
    devs = re.findall(r'^dev = "([^"]+)"', text, re.M)
    c.eq(devs, ["swp1", "swp2"], "the example names two ports")
    sh(f"ip netns add {NS}")
    try:
        in_ns("ip link set lo up")
        for d in devs:
            in_ns(f"ip link add {d} type veth peer name {d}p")
            in_ns(f"ip link set {d} up")
            in_ns(f"ip link set {d}p up")

        r = check(EXAMPLE)
        c.ok(r.returncode == 0, "the example passes losslessd --check", (r.stdout + r.stderr).strip())
        d = subprocess.Popen(f"exec nsenter --net=/run/netns/{NS} {Paths.losslessd} --config {EXAMPLE}",
                             shell=True, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
        deadline = time.monotonic() + 20
        q = {}
        while time.monotonic() < deadline and d.poll() is None:
            q = {dev: qdisc(dev) for dev in devs}
            if all(x.get("kind") == "lossless" and x["options"].get("pool") == "sw0" for x in q.values()):
                break
            time.sleep(0.2)
        c.ok(d.poll() is None and all(x.get("kind") == "lossless" for x in q.values()),
             "losslessd starts on the example and installs both ports in pool sw0",
             f"{ {k: v.get('kind') for k, v in q.items()} }"
             + ("" if d.poll() is None else f"; exited {d.returncode}: {d.stderr.read().strip()}"))
        kernel_h = None
        if q.get("swp1", {}).get("kind") == "lossless":
            iq = [x for x in q["swp1"].get("ingress", []) if x.get("prio") == 3]
            kernel_h = iq[0]["headroom_size"] if iq else None
            c.eq(q["swp1"]["options"].get("rate"), 10 ** 10 // 8,
                 "the port runs at the example's 10 Gbit/s (tc -j: bytes/s)")
        if d.poll() is None:
            d.terminate()
            d.wait(timeout=10)
        in_ns(f"{Paths.losslessd} --config {EXAMPLE} --cleanup", check=False)

        open(CONF, "w").write(with_buffer(text, '"1mb"'))
        r = check(CONF)
        m = re.search(r'port "swp1": .*headroom (\d+) B per lossless priority x 1 priority.*'
                      r'need a buffer of at least (\d+) B', r.stderr)
        c.ok(r.returncode == 1 and m is not None,
             "a buffer too small: --check refuses at the first port, with the numbers", r.stderr.strip())
        if not m:
            return c.finish()
        check_h, need = int(m.group(1)), int(m.group(2))
        c.eq(check_h, kernel_h, "--check's headroom per priority is the kernel's (tc headroom_size)")

        open(CONF, "w").write(with_buffer(text, str(need)))
        r = check(CONF)
        c.ok(r.returncode == 0, f"the buffer --check names ({need} B) passes", r.stderr.strip())
        open(CONF, "w").write(with_buffer(text, str(need - 1)))
        r = check(CONF)
        c.ok(r.returncode == 1 and 'port "swp2"' in r.stderr,
             "one byte less is refused, at the second port", r.stderr.strip())

        # The kernel on both sides of the boundary: the options the daemon
        # gives (the example's pool and ports).
        cfg = tomllib.loads(text)
        pool = cfg["pool"][0]
        prios = ",".join(str(x) for x in pool["lossless-prios"])
        pool_opts = (f"pool {pool['name']} lossless-prios {prios} reserved {pool['reserved']} "
                     f"xon-offset {pool['xon-offset']} sw-delay {pool['sw-delay']}")

        def opts(port):
            cable = f" cable-delay {port['cable-delay']}" if "cable-delay" in port else ""
            return f"lossless rate {port['rate']}{cable} {pool_opts}"
        for buffer, want in ((need - 1, "refuses"), (need, "accepts")):
            for dev in devs:
                in_ns(f"tc qdisc del dev {dev} root", check=False)
            p1, p2 = cfg["port"][0], cfg["port"][1]
            first = in_ns(f"tc qdisc add dev {p1['dev']} root {opts(p1)} buffer {buffer}b", check=False)
            second = in_ns(f"tc qdisc add dev {p2['dev']} root {opts(p2)} buffer {buffer}b", check=False)
            got = "accepts" if second.returncode == 0 else "refuses"
            c.ok(first.returncode == 0 and got == want and
                 (want == "accepts" or "pool too small" in second.stderr),
                 f"the kernel {want} the second port with buffer {buffer} B",
                 (first.stderr + second.stderr).strip())
    finally:
        sh(f"ip netns del {NS}", check=False)
        sh("rm -rf /sys/fs/bpf/lossless /run/lossless", check=False)
    c.finish()


if __name__ == "__main__":
    main()
