"""Network topologies in namespaces for the VM tests and the demo.

A Topology declares hosts (network namespaces) and links (veth pairs), builds
them, and tears everything down on exit, also when a test fails:

    with Topology("pfc") as t:
        a, b = t.host("a"), t.host("b")
        t.link(a, b)                      # a.if0 10.0.0.1 <-> b.if0 10.0.0.2
        a.run("tc qdisc add dev if0 root lossless rate 100mbit")
        proc = b.popen("ll-traffic recv --port 5000")

Paths to the project's binaries come from Paths (build dir from LL_BUILD_DIR).
"""

import json
import os
import shlex
import subprocess
import time

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


class Paths:
    build = os.environ.get("LL_BUILD_DIR", os.path.join(ROOT, "build"))
    module = os.path.join(ROOT, "kernel", "sch_lossless.ko")
    tc_lib = os.path.join(build, "tc-plugins")
    traffic = os.path.join(build, "tests", "tools", "ll-traffic")
    ingress = os.path.join(build, "daemon", "lossless-ingress")
    python = "/usr/bin/python3"  # Debian's, which has scapy
    pause_sender = os.path.join(ROOT, "tests", "lib", "pause_sender.py")


def sh(cmd, check=True, capture=True, env=None, timeout=120):
    """Run a shell command on the VM's root namespace; return stdout."""
    full_env = dict(os.environ, TC_LIB_DIR=Paths.tc_lib)
    if env:
        full_env.update(env)
    r = subprocess.run(cmd, shell=True, text=True, env=full_env, timeout=timeout,
                       stdout=subprocess.PIPE if capture else None,
                       stderr=subprocess.PIPE if capture else None)
    if check and r.returncode != 0:
        raise RuntimeError(f"command failed ({r.returncode}): {cmd}\n{r.stdout}{r.stderr}")
    return r if not check else r.stdout


class Host:
    def __init__(self, topo, name):
        self.topo = topo
        self.name = name
        self.ns = f"{topo.prefix}{name}"
        self.ifaces = []

    def _wrap(self, cmd):
        # nsenter keeps the mount namespace (and so /sys/fs/bpf); ip netns
        # exec would remount /sys and hide the pinned maps.
        return f"nsenter --net=/run/netns/{self.ns} {cmd}"

    def run(self, cmd, check=True, **kw):
        return sh(self._wrap(cmd), check=check, **kw)

    def json(self, cmd):
        return json.loads(self.run(cmd))

    def link_info(self, dev):
        """`ip -j link show` of dev in this host (/sys would show the root
        namespace's devices under nsenter)."""
        return self.json(f"ip -j link show dev {dev}")[0]

    def popen(self, cmd, **kw):
        env = dict(os.environ, TC_LIB_DIR=Paths.tc_lib)
        p = subprocess.Popen(self._wrap(cmd), shell=True, text=True, env=env,
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE, **kw)
        self.topo.procs.append(p)
        return p

    def __repr__(self):
        return f"Host({self.name})"


class Topology:
    def __init__(self, name):
        self.prefix = f"ll{name}-"
        self.hosts = {}
        self.links = []
        self.procs = []
        self.subnet = 0

    def __enter__(self):
        self.cleanup()  # leftovers of an earlier, killed run
        return self

    def __exit__(self, *exc):
        for p in self.procs:
            if p.poll() is None:
                p.kill()
                p.wait()
        self.cleanup()
        return False

    def cleanup(self):
        out = sh("ip netns list", check=False).stdout
        for line in out.splitlines():
            ns = line.split()[0] if line.split() else ""
            if ns.startswith(self.prefix):
                sh(f"ip netns del {shlex.quote(ns)}", check=False)

    def host(self, name):
        h = Host(self, name)
        sh(f"ip netns add {h.ns}")
        h.run("ip link set lo up")
        self.hosts[name] = h
        return h

    def switch(self, name):
        """A Linux bridge in its own namespace; link() adds ports to it."""
        h = self.host(name)
        h.run("ip link add br0 type bridge")
        h.run("ip link set br0 up")
        h.is_switch = True
        return h

    def link(self, a, b, mtu=1500):
        """veth between a and b on their own /24; returns (a_if, b_if, a_ip, b_ip)."""
        ai, bi = f"if{len(a.ifaces)}", f"if{len(b.ifaces)}"
        net = self.subnet
        self.subnet += 1
        a_ip, b_ip = f"10.{net}.0.1", f"10.{net}.0.2"
        tmp_a, tmp_b = f"{self.prefix}{net}a"[:15], f"{self.prefix}{net}b"[:15]
        sh(f"ip link add {tmp_a} type veth peer name {tmp_b}")
        sh(f"ip link set {tmp_a} netns {a.ns} name {ai} mtu {mtu}")
        sh(f"ip link set {tmp_b} netns {b.ns} name {bi} mtu {mtu}")
        for h, i, ip in ((a, ai, a_ip), (b, bi, b_ip)):
            # No IPv6: its neighbour discovery would add packets to counts.
            h.run(f"sysctl -qw net.ipv6.conf.{i}.disable_ipv6=1")
            if getattr(h, "is_switch", False):
                h.run(f"ip link set {i} master br0")
            else:
                h.run(f"ip addr add {ip}/24 dev {i}")
            h.run(f"ip link set {i} up")
            h.ifaces.append(i)
        a_mac, b_mac = a.link_info(ai)["address"], b.link_info(bi)["address"]
        if not getattr(a, "is_switch", False) and not getattr(b, "is_switch", False):
            # Static neighbours: ARP must not depend on a queue a test pauses.
            a.run(f"ip neigh replace {b_ip} lladdr {b_mac} dev {ai} nud permanent")
            b.run(f"ip neigh replace {a_ip} lladdr {a_mac} dev {bi} nud permanent")
        link = {"a": a, "b": b, "a_if": ai, "b_if": bi, "a_ip": a_ip, "b_ip": b_ip,
                "a_mac": a_mac, "b_mac": b_mac}
        self.links.append(link)
        return link


def host_pair_via(t, sw, h1, h2):
    """Put h1 and h2 on one subnet through switch sw (one link each) with
    static neighbours; returns (h1_ip, h2_ip, h1_link, h2_link)."""
    l1, l2 = t.link(h1, sw), t.link(h2, sw)
    # Both host ends on one /24: re-address the second host into the first's.
    h2_if = l2["a_if"]
    h2.run(f"ip addr flush dev {h2_if}")
    ip1 = l1["a_ip"]
    ip2 = ip1.rsplit(".", 1)[0] + ".3"
    h2.run(f"ip addr add {ip2}/24 dev {h2_if}")
    h1.run(f"ip neigh replace {ip2} lladdr {l2['a_mac']} dev {l1['a_if']} nud permanent")
    h2.run(f"ip neigh replace {ip1} lladdr {l1['a_mac']} dev {h2_if} nud permanent")
    return ip1, ip2, l1, l2


def announce(hosts, broadcast="10.0.0.255"):
    """Each host sends one broadcast so every bridge learns where it is.
    Without it a host that only receives is unknown to the bridges, which
    then flood its traffic to every port (and into unrelated queues)."""
    for h in hosts:
        h.run(f"{Paths.traffic} send --dst {broadcast} --port 9 --count 1 --size 64")


def wait_for(pred, timeout=5.0, step=0.05):
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        if pred():
            return True
        time.sleep(step)
    return False
