#!/usr/bin/python3
"""The comparison bench: one scenario, several switch schemes, one table.

Runs INSIDE the VM (`make compare`, or vm-images/run-vm -- this file):

    tests/compare/run_compare.py --scenario incast-websearch [--schemes "dt NAME"] \\
        --out build/compare

For each scheme it builds the scenario's network afresh (namespaces: one
bridge switch whose ports all carry `lossless ... pool sw0 ...` plus the
scheme's options, senders, receivers), runs the same flows (ll-flows, same
seeds) and reads the switch's counters with `tc -s`. It prints one table
(schemes as columns) and writes NAME.json (every number, every flow) and
NAME.png (FCT CDFs per scheme, the shared buffer over time) to --out.
docs/COMPARE.md describes the scenario files, the scaling to the VM and
every row of the table.

Exit status: 0 when every scheme ran, 1 when one could not (its tc command
was refused, say), 2 on bad usage or a bad scenario file.
"""

import argparse
import json
import math
import os
import re
import shlex
import signal
import subprocess
import sys
import tempfile
import threading
import time
import tomllib

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "lib"))
from incast import BACKLOG_SYSCTL, size_backlog  # noqa: E402
from topology import Paths, Topology, announce, ensure_modules, ping, wait_for  # noqa: E402

FLOWS = Paths.flows
SCENARIOS = os.path.join(HERE, "scenarios")
WORKLOADS = os.path.join(HERE, "workloads")
WIRE_OVERHEAD = 42  # UDP + IPv4 + Ethernet, as ll-flows counts
PORT = 5000
ROCE_PORT = 4791    # RoCEv2's UDP port: the only one the hosts' CC acts on
HOST_CC = ("pcn", "dcqcn")

# Every key a scenario file may hold, with its default (None: required;
# AUTO: computed from other keys).
AUTO = "(auto)"
SCHEMA = {
    "description": "",
    "schemes": ["dt"],         # compared when --schemes is not given
    "duration": None,          # s: flows start in [t0, t0 + duration)
    "seed": 1,
    "network": {
        "senders": None,
        "receivers": 1,
        "rate_mbit": None,     # every link
        "buffer": None,        # the pool's buffer, as tc takes it ("4mb", bytes)
        "sw-delay": "60ms",
        "alpha": "1/8",
        "lossless-prios": "3",
        "pool_options": "",    # more pool options for every switch port
        "prio": 3,             # SO_PRIORITY of all traffic (host queue, PFC prio)
        "dscp": 24,            # DSCP of all traffic (the switch's priority)
        "host_limit": 64,      # packets per queue on the senders' uplinks
        "host_catchup": AUTO,  # their shaper's catch-up (default rate x sw-delay)
        "sndbuf": 4194304,     # each sender's socket buffer (bytes)
        "payload": 1000,       # UDP payload bytes per datagram
        # Strict priority, priority 7 first, on every sender's uplink and
        # on the switch's ports to the receivers (STRICT_PRIO below):
        # several priorities that share a link, BifrostX's upstream.
        "strict_priority": False,
        # RoCEv2 datagrams (ll-flows --roce: UDP 4791, BTH, ECT(0)), what
        # the hosts' congestion control acts on; required by a column with
        # host CC ("dt+pcn"), so that its baseline sends the same packets.
        "roce": False,
    },
    # The hosts' congestion control of a column "SCHEME+CC" (CC pcn or
    # dcqcn, lossless-cc(8), docs/PCN.md): the lossless-cc set options of
    # each, and the switch's marking it needs (added to the pool options).
    "host_cc": {
        "pcn": "--period 10ms",
        # NP-ECN with K = 10 KB (4 ms of a 20 Mbit/s line): the hosts' shapers
        # send bursts after late timers, which K = 0 reads as congestion
        # (docs/PCN.md, "The threshold K").
        "pcn_marking": "ecn off ecn-mode np-ecn np-ecn-k 10kb",
        "dcqcn": ("--cnp-interval 10ms --rate-timer 10ms --alpha-timer 10ms "
                  "--byte-counter 1mb --rai 500kbit --rhai 2mbit"),
        "dcqcn_marking": "ecn 5kb 50kb 0.2",
        "cnp-prio": 6,         # skb->priority of the CNPs the receivers send
        "cnp-dscp": 48,        # and their DSCP
    },
    "background": {
        "cdf": None,           # a file in tests/compare/workloads, or a path
        "load": None,          # per sender: fraction of its line rate
        "size_scale": 1,
        "senders": "all",      # "all" or a number: the first N senders
        "receivers": "all",    # "all" or a list of receiver indices they send to
        "prio": AUTO,          # SO_PRIORITY / PFC priority (default network.prio)
        "dscp": AUTO,          # DSCP (default network.dscp)
    },
    "incast": {
        "fanin": None,         # the first FANIN senders take part
        "size": None,          # bytes per incast flow
        "flows_per_sender": 1,
        "period": None,        # s between bursts ...
        "start": AUTO,         # ... the first at t0 + start (default: period)
        "poisson": False,      # exponential gaps of mean period instead
        "receiver": 0,         # which receiver the incast goes to
        "prio": AUTO,          # SO_PRIORITY / PFC priority (default network.prio)
        "dscp": AUTO,          # DSCP (default network.dscp)
    },
    "report": {
        "small_max": 10000,    # flows of at most this many bytes are "small"
        "sample_ms": 100,      # buffer sampling period
        "max_drain": 120,      # s after the flows' window before giving up
    },
    "scheme_options": {},      # NAME = "tc options"; default "scheme NAME"
    # Senders behind a long link (Bifrost's setting, docs/BIFROST.md):
    # optional. Their switch ports take port_options[NAME] under column NAME.
    "long_link": {
        "senders": None,       # sender indices cabled through it
        "delay": None,         # one way (netem), as "250ms"
        "cable-delay": AUTO,   # the long ports' tc cable-delay (default: delay)
        "pace": "burst 1514 catchup 1514",  # the long senders' uplink shaper
        # Traffic classes of the long senders, one ll-flows process each
        # ([[long_link.classes]], CLASS_SCHEMA): a priority, its DSCP and a
        # workload; the table gets FCT, bytes and the long port's and the
        # upstream's counters per class.
        "classes": [],
    },
    # A receiver that pauses the switch's port to it (PFC, its priority)
    # for length s every period s from start: a drain that stalls (S2).
    "stall": {
        "receiver": 0,
        "start": None,
        "period": None,
        "length": None,
        "prio": AUTO,          # default network.prio; or a list: [3, 4, 5]
    },
    "port_options": {},        # NAME = "tc options" for the long ports
    # A leaf-spine of bridges instead of the one switch (optional; also
    # --fabric leaf-spine): every leaf cabled to every spine at rate_mbit,
    # each switch its own pool (network.buffer, the same pool options), and
    # static paths: a leaf reaches a host on another leaf through the
    # host's spine, the same for every source (one path per destination,
    # as ECMP hashing on the destination would pick it).
    "fabric": {
        "leaves": 2,
        "spines": 2,
        "sender_leaf": AUTO,     # leaf of each sender (default: sender i on leaf i % leaves)
        "receiver_leaf": AUTO,   # leaf of each receiver (default: the last leaf)
        "sender_spine": AUTO,    # the spine that carries traffic to each sender (default i % spines)
        "receiver_spine": AUTO,  # ... to each receiver (default: receiver j on spine j % spines)
    },
}


# One [[long_link.classes]] entry: a priority's traffic from every long
# sender (sender id CLASS_SENDER_BASE x (k + 1) + i for class k on sender i).
CLASS_SCHEMA = {
    "name": None,              # a label for the table ("high")
    "prio": None,              # SO_PRIORITY = PFC priority, 0..7
    "dscp": AUTO,              # DSCP (default 8 x prio, what the switch classifies)
    "cdf": "",                 # workload: flow sizes (a file in tests/compare/workloads) ...
    "load": 0,                 # ... at this fraction of the line rate per sender
    "size_scale": 1,
    "size": 0,                 # and/or one flow of this many bytes ...
    "start": 0.01,             # ... from t0 + start
    "receiver": 0,             # where the class's flows go
}
CLASS_SENDER_BASE = 1000
# The upstream's and the bottleneck's queues under strict_priority: queue
# 7 - p holds priority p, queue 0 first (docs/CONFIGURATION.md, queues).
STRICT_PRIO = "queues 8 strict 8 priomap 7 6 5 4 3 2 1 0"


class ScenarioError(Exception):
    pass


def merge(schema, given, where):
    out = {}
    for k, v in given.items():
        if k not in schema:
            raise ScenarioError(f"{'[' + where + ']' if where else 'top level'}: unknown key {k!r} "
                                f"(known: {', '.join(schema)})")
    for k, default in schema.items():
        path = f"{where}.{k}" if where else k
        if isinstance(default, dict) and k not in ("scheme_options", "port_options"):
            sub = given.get(k)
            if sub is None:
                if k in ("background", "incast", "long_link", "stall", "fabric"):
                    out[k] = None  # the section is optional
                    continue
                sub = {}
            if not isinstance(sub, dict):
                raise ScenarioError(f"{path}: want a table")
            out[k] = merge(default, sub, path)
        elif k in given:
            out[k] = given[k]
        elif default is None:
            raise ScenarioError(f"{path}: required")
        else:
            out[k] = default
    return out


def seconds(t, where, key="network.sw-delay"):
    """A tc time ("60ms", "500us", "1s") in seconds."""
    for unit, mult in (("ns", 1e-9), ("us", 1e-6), ("ms", 1e-3), ("s", 1.0)):
        if str(t).endswith(unit):
            try:
                return float(str(t)[:-len(unit)]) * mult
            except ValueError:
                break
    raise ScenarioError(f"{where}: {key}: want a time such as 60ms, got {t!r}")


def apply_sets(raw, sets):
    """--set KEY=VALUE: a TOML value (a bare word is taken as a string) at
    a dotted key of the scenario, replacing the file's; fabric=leaf-spine
    adds [fabric] (its defaults, or the file's), fabric=one-switch drops it."""
    for item in sets:
        key, eq, value = item.partition("=")
        key = key.strip()
        if not eq or not re.fullmatch(r"[A-Za-z_]+(\.[A-Za-z_]+)*", key):
            raise ScenarioError(f"--set {item!r}: want KEY=VALUE, such as network.roce=true")
        try:
            v = tomllib.loads(f"v = {value.strip()}")["v"]
        except tomllib.TOMLDecodeError:
            v = value.strip()
        if key == "fabric" and v in ("leaf-spine", "one-switch"):  # --fabric
            if v == "one-switch":
                raw.pop("fabric", None)
            elif not isinstance(raw.get("fabric"), dict):
                raw["fabric"] = {}  # [fabric]'s defaults
            continue
        *parents, last = key.split(".")
        d = raw
        for k in parents:
            d = d.setdefault(k, {})
            if not isinstance(d, dict):
                raise ScenarioError(f"--set {item!r}: {k} is not a table")
        d[last] = v


def load_scenario(name, sets=()):
    path = name if os.sep in name or name.endswith(".toml") else os.path.join(SCENARIOS, name + ".toml")
    if not os.path.exists(path):
        known = sorted(f[:-5] for f in os.listdir(SCENARIOS) if f.endswith(".toml"))
        raise ScenarioError(f"no scenario {name!r} ({path}); known: {', '.join(known)}")
    with open(path, "rb") as f:
        try:
            raw = tomllib.load(f)
        except tomllib.TOMLDecodeError as e:
            raise ScenarioError(f"{path}: {e}") from None
    apply_sets(raw, sets)
    try:
        s = merge(SCHEMA, raw, "")
    except ScenarioError as e:
        raise ScenarioError(f"{path}: {e}") from None
    s["name"] = os.path.basename(path)[:-5]
    s["sets"] = list(sets)
    if any(x.startswith("fabric") for x in sets):  # its own output files
        s["name"] += "-leaf-spine" if s["fabric"] else "-one-switch"
    s["file"] = os.path.abspath(path)
    net, bg, inc = s["network"], s["background"], s["incast"]
    if not bg and not inc and not (s["long_link"] and s["long_link"]["classes"]):
        raise ScenarioError(f"{path}: no traffic: give [background], [incast] or [[long_link.classes]]")
    for k in ("senders", "receivers", "rate_mbit", "host_limit", "sndbuf", "payload"):
        if not isinstance(net[k], (int, float)) or net[k] <= 0:
            raise ScenarioError(f"{path}: network.{k}: want a positive number")
    for k in ("strict_priority", "roce"):
        if not isinstance(net[k], bool):
            raise ScenarioError(f"{path}: network.{k}: want true or false")
    if not isinstance(s["duration"], (int, float)) or s["duration"] <= 0:
        raise ScenarioError(f"{path}: duration: want seconds > 0")
    if not isinstance(s["schemes"], list) or not s["schemes"] or \
            not all(isinstance(n, str) and n for n in s["schemes"]):
        raise ScenarioError(f"{path}: schemes: want a list of scheme names, [\"dt\", ...]")
    if bg:
        cdf = bg["cdf"]
        bg["cdf_path"] = cdf if os.sep in cdf else os.path.join(WORKLOADS, cdf)
        if not os.path.exists(bg["cdf_path"]):
            bg["cdf_path"] += "_distribution.txt"  # "WebSearch" for WebSearch_distribution.txt
        if not os.path.exists(bg["cdf_path"]):
            raise ScenarioError(f"{path}: background.cdf: no file {cdf!r} in {WORKLOADS}")
        n = net["senders"] if bg["senders"] == "all" else bg["senders"]
        if not isinstance(n, int) or not 0 < n <= net["senders"]:
            raise ScenarioError(f"{path}: background.senders: want \"all\" or 1..{net['senders']}")
        bg["n"] = n
        if bg["receivers"] == "all":
            bg["receivers"] = list(range(net["receivers"]))
        if not isinstance(bg["receivers"], list) or not bg["receivers"] or \
                not all(isinstance(j, int) and 0 <= j < net["receivers"] for j in bg["receivers"]):
            raise ScenarioError(f"{path}: background.receivers: want \"all\" or a list of 0..{net['receivers'] - 1}")
    if inc:
        if not isinstance(inc["fanin"], int) or not 0 < inc["fanin"] <= net["senders"]:
            raise ScenarioError(f"{path}: incast.fanin: want 1..{net['senders']} (senders taking part)")
        if not 0 <= inc["receiver"] < net["receivers"]:
            raise ScenarioError(f"{path}: incast.receiver: want 0..{net['receivers'] - 1}")
        if inc["start"] == AUTO:
            inc["start"] = inc["period"]
    for sec in (bg, inc):
        for k in ("prio", "dscp") if sec else ():
            if sec[k] == AUTO:
                sec[k] = net[k]
            if not isinstance(sec[k], int) or not 0 <= sec[k] <= (15 if k == "prio" else 63):
                raise ScenarioError(f"{path}: {'background' if sec is bg else 'incast'}.{k}: want an integer "
                                    f"0..{15 if k == 'prio' else 63}")
    if net["host_catchup"] == AUTO:
        net["host_catchup"] = max(3028, int(net["rate_mbit"] * 1e6 * seconds(net["sw-delay"], path) / 8))
    if not isinstance(s["scheme_options"], dict) or \
            not all(isinstance(v, str) for v in s["scheme_options"].values()):
        raise ScenarioError(f"{path}: scheme_options: want NAME = \"tc options\" strings")
    if not isinstance(s["port_options"], dict) or \
            not all(isinstance(v, str) for v in s["port_options"].values()):
        raise ScenarioError(f"{path}: port_options: want NAME = \"tc options\" strings")
    ll, st = s["long_link"], s["stall"]
    if ll:
        if not isinstance(ll["senders"], list) or not ll["senders"] or \
                not all(isinstance(i, int) and 0 <= i < net["senders"] for i in ll["senders"]):
            raise ScenarioError(f"{path}: long_link.senders: want a list of 0..{net['senders'] - 1}")
        seconds(ll["delay"], path, "long_link.delay")
        if ll["cable-delay"] == AUTO:
            ll["cable-delay"] = ll["delay"]
        ll["classes"] = load_classes(ll["classes"], net, s["duration"], path)
    elif s["port_options"]:
        raise ScenarioError(f"{path}: port_options without [long_link]: no port to give them to")
    if st:
        if not 0 <= st["receiver"] < net["receivers"]:
            raise ScenarioError(f"{path}: stall.receiver: want 0..{net['receivers'] - 1}")
        for k in ("start", "period", "length"):
            if not isinstance(st[k], (int, float)) or st[k] <= 0:
                raise ScenarioError(f"{path}: stall.{k}: want seconds > 0")
        if st["length"] >= st["period"]:
            raise ScenarioError(f"{path}: stall.length: want less than stall.period")
        if st["prio"] == AUTO:
            st["prio"] = net["prio"]
        prios = st["prio"] if isinstance(st["prio"], list) else [st["prio"]]
        if not prios or not all(isinstance(p, int) and not isinstance(p, bool) and 0 <= p <= 7 for p in prios) \
                or len(set(prios)) != len(prios):
            raise ScenarioError(f"{path}: stall.prio: want a priority 0..7 or a list of distinct ones, "
                                f"got {st['prio']!r}")
        st["prios"] = sorted(prios)
        st["windows"] = [(t, t + st["length"]) for t in
                         (st["start"] + k * st["period"] for k in range(int(s["duration"] // st["period"]) + 1))
                         if t + st["length"] <= s["duration"]]
    if s["fabric"]:
        check_fabric(s, path)
    return s


def check_fabric(s, path):
    """[fabric]: checked, the hosts' leaves and spines filled in."""
    net, fab = s["network"], s["fabric"]
    for k, lo in (("leaves", 2), ("spines", 1)):
        if not isinstance(fab[k], int) or isinstance(fab[k], bool) or not lo <= fab[k] <= 8:
            raise ScenarioError(f"{path}: fabric.{k}: want {lo}..8")
    if s["long_link"]:
        raise ScenarioError(f"{path}: [long_link] and [fabric] together: the long link is cabled to the "
                            f"one switch; give one of them")
    if net["strict_priority"]:
        raise ScenarioError(f"{path}: network.strict_priority and [fabric] together: strict priority is "
                            f"set on the one switch's ports to the receivers only; give one of them")
    defaults = {"sender_leaf": [i % fab["leaves"] for i in range(net["senders"])],
                "receiver_leaf": [fab["leaves"] - 1] * net["receivers"],
                "sender_spine": [i % fab["spines"] for i in range(net["senders"])],
                "receiver_spine": [j % fab["spines"] for j in range(net["receivers"])]}
    for k, d in defaults.items():
        n, top = len(d), fab["leaves"] if k.endswith("leaf") else fab["spines"]
        if fab[k] == AUTO:
            fab[k] = d
        if not isinstance(fab[k], list) or len(fab[k]) != n or \
                not all(isinstance(x, int) and not isinstance(x, bool) and 0 <= x < top for x in fab[k]):
            raise ScenarioError(f"{path}: fabric.{k}: want a list of {n} indices 0..{top - 1} "
                                f"(one per {k.split('_')[0]}), got {fab[k]!r}")


def load_classes(given, net, duration, path):
    """[[long_link.classes]]: checked, defaults filled in."""
    if not isinstance(given, list) or not all(isinstance(c, dict) for c in given):
        raise ScenarioError(f"{path}: long_link.classes: want [[long_link.classes]] tables")
    if len(given) > 64:
        raise ScenarioError(f"{path}: long_link.classes: at most 64 classes")
    out = []
    for k, c in enumerate(given):
        where = f"long_link.classes[{k}]"
        try:
            c = merge(CLASS_SCHEMA, c, where)
        except ScenarioError as e:
            raise ScenarioError(f"{path}: {e}") from None
        if not isinstance(c["name"], str) or not c["name"].strip() or " " in c["name"]:
            raise ScenarioError(f"{path}: {where}.name: want a word such as \"high\"")
        where = f"long_link.classes[{k}] ({c['name']})"
        if not isinstance(c["prio"], int) or isinstance(c["prio"], bool) or not 0 <= c["prio"] <= 7:
            raise ScenarioError(f"{path}: {where}.prio: want a priority 0..7")
        if c["dscp"] == AUTO:
            c["dscp"] = 8 * c["prio"]
        if not isinstance(c["dscp"], int) or isinstance(c["dscp"], bool) or not 0 <= c["dscp"] <= 63:
            raise ScenarioError(f"{path}: {where}.dscp: want an integer 0..63")
        if bool(c["cdf"]) != bool(c["load"]):
            raise ScenarioError(f"{path}: {where}: cdf and load go together")
        if c["load"] and (not isinstance(c["load"], (int, float)) or not 0 < c["load"] <= 1):
            raise ScenarioError(f"{path}: {where}.load: want a fraction of the line rate, 0 < load <= 1")
        if not isinstance(c["size_scale"], (int, float)) or c["size_scale"] < 1:
            raise ScenarioError(f"{path}: {where}.size_scale: want a number >= 1")
        if not isinstance(c["size"], int) or isinstance(c["size"], bool) or c["size"] < 0:
            raise ScenarioError(f"{path}: {where}.size: want bytes >= 0 (0: no long flow)")
        if not c["cdf"] and not c["size"]:
            raise ScenarioError(f"{path}: {where}: no traffic: give cdf and load, size, or both")
        if not isinstance(c["start"], (int, float)) or not 0 <= c["start"] < duration:
            raise ScenarioError(f"{path}: {where}.start: want seconds in [0, duration)")
        if not isinstance(c["receiver"], int) or not 0 <= c["receiver"] < net["receivers"]:
            raise ScenarioError(f"{path}: {where}.receiver: want 0..{net['receivers'] - 1}")
        if c["cdf"]:
            c["cdf_path"] = c["cdf"] if os.sep in c["cdf"] else os.path.join(WORKLOADS, c["cdf"])
            if not os.path.exists(c["cdf_path"]):
                c["cdf_path"] += "_distribution.txt"
            if not os.path.exists(c["cdf_path"]):
                raise ScenarioError(f"{path}: {where}.cdf: no file {c['cdf']!r} in {WORKLOADS}")
        for o in out:
            if o["name"] == c["name"]:
                raise ScenarioError(f"{path}: {where}.name: given twice")
            if o["prio"] == c["prio"]:
                raise ScenarioError(f"{path}: {where}.prio: priority {c['prio']} is class {o['name']}'s too "
                                    f"(one class per priority: the rows are per priority)")
        out.append(c)
    return out


def class_of_sender(scn, sid):
    """The [[long_link.classes]] entry whose ll-flows sent as sid, or None."""
    ll = scn["long_link"]
    k = sid // CLASS_SENDER_BASE - 1
    if not ll or k < 0 or k >= len(ll["classes"]) or sid % CLASS_SENDER_BASE not in ll["senders"]:
        return None
    return ll["classes"][k]


# ---------------------------------------------------------------- topology

def popen(host, cmd):
    """Like Host.popen, but the tool replaces the shell and nsenter (exec),
    so that a signal sent to the process reaches it."""
    p = subprocess.Popen(f"exec nsenter --net=/run/netns/{host.ns} {cmd}", shell=True, text=True,
                         env=dict(os.environ, TC_LIB_DIR=Paths.tc_lib),
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    host.topo.procs.append(p)
    return p


def split_column(name):
    """A column "SCHEME" or "SCHEME+CC": (scheme, cc or None)."""
    scheme, _, cc = name.partition("+")
    if cc and cc not in HOST_CC:
        raise ScenarioError(f"column {name!r}: host congestion control {cc!r} unknown "
                            f"(known: {', '.join(HOST_CC)})")
    return scheme, cc or None


def check_columns(scn, names):
    """Every column parses; one with host CC needs network.roce."""
    for n in names:
        _, cc = split_column(n)
        if cc and not scn["network"]["roce"]:
            raise ScenarioError(f"column {n!r}: host congestion control acts on RoCEv2 only: "
                                f"set network.roce = true in {scn['file']}")


def port(scn):
    return ROCE_PORT if scn["network"]["roce"] else PORT


def cc_args(host, args):
    return f"{Paths.cc} --pin-dir /sys/fs/bpf/llcc-{host.ns} {args}"


def data_classes(scn):
    """The sender uplinks' classes (MAJOR 1:) that carry data: where the
    pacing fq goes."""
    net, prios = scn["network"], {scn["network"]["prio"]}
    for sec in (scn["background"], scn["incast"]):
        if sec:
            prios.add(sec["prio"])
    for c in scn["long_link"]["classes"] if scn["long_link"] else []:
        prios.add(c["prio"])
    # queue p holds priority p, or 7 - p under strict_priority; class = queue + 1
    return sorted({(7 - p if net["strict_priority"] else p) + 1 for p in prios})


def start_host_cc(scn, cc, receivers, senders):
    """lossless-cc on every host: the NP at the receivers, the RP and its
    pacing (fq under each data class of the uplink) at the senders."""
    net, hc = scn["network"], scn["host_cc"]
    for h, _, lk in senders:
        for cl in data_classes(scn):
            h.run(f"tc qdisc add dev {lk['a_if']} parent 1:{cl} fq flow_limit {net['host_limit']} "
                  f"limit {net['host_limit'] * 64}")
    for h, _, lk in receivers + senders:
        h.run(cc_args(h, f"attach {lk['a_if']}"))
        h.run(cc_args(h, f"set --algo {cc} --line-rate {net['rate_mbit']}mbit --cnp-prio {hc['cnp-prio']} "
                         f"--cnp-dscp {hc['cnp-dscp']} {hc[cc]}"))
    # Every column starts from nothing: no flow and no count left from an
    # earlier column's pinned maps (Topology.cleanup removes them).
    for name, st in host_cc_stats([h for h, _, _ in receivers + senders]).items():
        used = {k: v for k, v in st["counters"].items() if isinstance(v, int) and v}
        if used or st["rp_flows"]["top"] or st["np_flows"]["top"]:
            raise RuntimeError(f"{name}: lossless-cc state left from an earlier run: {used}")


def host_cc_stats(hosts):
    """lossless-cc show --json of every host, by name."""
    return {h.name: json.loads(h.run(cc_args(h, "show --json --flows 16"))) for h in hosts}


def switch_qdisc(scn, scheme_opts):
    net = scn["network"]
    return (f"lossless rate {net['rate_mbit']}mbit pool sw0 buffer {net['buffer']} "
            f"lossless-prios {net['lossless-prios']} alpha {net['alpha']} sw-delay {net['sw-delay']} "
            f"{net['pool_options']} {scheme_opts}").split()


def uplink_qdisc(scn, h, long_senders=()):
    """A sender's uplink qdisc: line rate, honours the switch's PFC; a
    short queue so that flows interleave as on a NIC (ll-flows resends on
    ENOBUFS); the switch ports' catch-up, so that timer lateness under TCG
    does not cost the senders their rate (docs/CONFIGURATION.md, Shaper)."""
    net, ll = scn["network"], scn["long_link"]
    shaper = ll["pace"] if h.name in {f"h{i}" for i in long_senders} else f"catchup {net['host_catchup']}"
    strict = f" {STRICT_PRIO}" if net["strict_priority"] else ""
    return f"lossless rate {net['rate_mbit']}mbit limit {net['host_limit']} {shaper}{strict}"


def setup_hosts(scn, receivers, senders, long_senders=()):
    """Addresses on one /24 (10.0.0.0), static neighbours between every
    sender and receiver, and each sender's uplink qdisc and ingress."""
    for h, ip, lk in receivers + senders:
        h.run(f"ip addr flush dev {lk['a_if']}")
        h.run(f"ip addr add {ip}/24 dev {lk['a_if']}")
    for h, ip, lk in senders:
        for r, rip, rlk in receivers:
            h.run(f"ip neigh replace {rip} lladdr {rlk['a_mac']} dev {lk['a_if']} nud permanent")
            r.run(f"ip neigh replace {ip} lladdr {lk['a_mac']} dev {rlk['a_if']} nud permanent")
        h.run(f"tc qdisc add dev {lk['a_if']} root handle 1: {uplink_qdisc(scn, h, long_senders)}")
        h.run(f"{Paths.ingress} attach {lk['a_if']} --pin-dir /sys/fs/bpf/ll-{h.ns}")


def add_switch_port(sw, dev, qd):
    """The pool's qdisc and the PFC ingress program on a switch port."""
    r = sw.run(f"tc qdisc add dev {dev} root handle 1: {qd}", check=False)
    if r.returncode:
        raise RuntimeError(f"the switch {sw.name} refused the scheme's qdisc: tc qdisc add dev {dev} "
                           f"root handle 1: {qd}\n{r.stderr.strip()}")
    sw.run(f"{Paths.ingress} attach {dev} --pin-dir /sys/fs/bpf/ll-{sw.ns}")


def port_key(sw, dev, keyed):
    """A switch port's name in the results: its device, or SWITCH:DEV when
    there are several switches (their devices share names)."""
    return f"{sw.name}:{dev}" if keyed else dev


def switch_devs(switches, ports, keyed):
    """{switch: [its ports' devices]}, from the results' port keys."""
    out = {sw: [] for sw in switches}
    by_name = {sw.name: sw for sw in switches}
    for k in ports:
        if keyed:
            name, dev = k.split(":", 1)
            out[by_name[name]].append(dev)
        else:
            out[switches[0]].append(k)
    return out


def build(t, scn, scheme_opts, port_opts=""):
    """The scenario's network: receivers r0.. (10.0.0.1..) and senders h0..
    (10.0.0.10..) on one /24 through switch sw, or through a leaf-spine
    ([fabric]). Returns (switches, receivers, senders, ports): receivers
    and senders are lists of (host, ip, link); ports maps each switch port
    (port_key) to what it is cabled to: a host's name, or PEER@SWITCH
    between switches (spine0@leaf1: leaf1's port to spine0)."""
    if scn["fabric"]:
        return build_fabric(t, scn, scheme_opts)
    net = scn["network"]
    sw = t.switch("sw")
    receivers, senders = [], []
    for j in range(net["receivers"]):
        h = t.host(f"r{j}")
        receivers.append((h, f"10.0.0.{1 + j}", t.link(h, sw)))
    ll = scn["long_link"]
    long_senders = set(ll["senders"]) if ll else set()
    for i in range(net["senders"]):
        h = t.host(f"h{i}")
        senders.append((h, f"10.0.0.{10 + i}", t.link(h, sw, delay=ll["delay"] if i in long_senders else None)))
    setup_hosts(scn, receivers, senders, long_senders)
    announce([h for h, _, _ in receivers + senders])  # one L2 domain through the bridge
    ports = {}
    qd = " ".join(switch_qdisc(scn, scheme_opts))
    for h, _, lk in receivers + senders:
        extra = f" cable-delay {ll['cable-delay']} {port_opts}" if h.name in {f"h{i}" for i in long_senders} else ""
        if net["strict_priority"] and h.name.startswith("r"):
            extra += f" {STRICT_PRIO}"
        add_switch_port(sw, lk["b_if"], qd + extra)
        ports[lk["b_if"]] = h.name
    return [sw], receivers, senders, ports


def build_fabric(t, scn, scheme_opts):
    """[fabric]: hosts on leaves, every leaf cabled to every spine, each
    switch its own pool of network.buffer with the scheme's options on
    every port. Forwarding is static: no learning and no flooding on any
    port (the two spines make a loop that flooding would circle), a
    permanent FDB entry for every host on every switch, each host reached
    through its spine from the other leaves."""
    net, fab = scn["network"], scn["fabric"]
    leaves = [t.switch(f"leaf{k}") for k in range(fab["leaves"])]
    spines = [t.switch(f"spine{k}") for k in range(fab["spines"])]
    receivers, senders, place = [], [], []  # place: (host, link, leaf, spine)
    for j in range(net["receivers"]):
        h = t.host(f"r{j}")
        receivers.append((h, f"10.0.0.{1 + j}", t.link(h, leaves[fab["receiver_leaf"][j]])))
        place.append((h, receivers[-1][2], fab["receiver_leaf"][j], fab["receiver_spine"][j]))
    for i in range(net["senders"]):
        h = t.host(f"h{i}")
        senders.append((h, f"10.0.0.{10 + i}", t.link(h, leaves[fab["sender_leaf"][i]])))
        place.append((h, senders[-1][2], fab["sender_leaf"][i], fab["sender_spine"][i]))
    up = {(k, s): t.link(lf, sp) for k, lf in enumerate(leaves) for s, sp in enumerate(spines)}
    setup_hosts(scn, receivers, senders)
    qd = " ".join(switch_qdisc(scn, scheme_opts))
    ports, fdb = {}, {sw: [] for sw in leaves + spines}
    for h, lk, k, _ in place:
        ports[port_key(leaves[k], lk["b_if"], True)] = h.name
    for (k, s), lk in up.items():
        ports[port_key(leaves[k], lk["a_if"], True)] = f"spine{s}@leaf{k}"
        ports[port_key(spines[s], lk["b_if"], True)] = f"leaf{k}@spine{s}"
    for sw, devs in switch_devs(leaves + spines, ports, True).items():
        for dev in devs:
            add_switch_port(sw, dev, qd)
            fdb[sw].append(f"link set dev {dev} learning off flood off mcast_flood off bcast_flood off")
    for h, lk, k, s in place:
        mac = lk["a_mac"]
        for k2, lf in enumerate(leaves):
            fdb[lf].append(f"fdb replace {mac} dev {lk['b_if'] if k2 == k else up[(k2, s)]['a_if']} "
                           f"master static")
        for s2, sp in enumerate(spines):
            fdb[sp].append(f"fdb replace {mac} dev {up[(k, s2)]['b_if']} master static")
    for sw, cmds in fdb.items():
        sw.run("bridge -batch -", input="\n".join(cmds) + "\n")
    return leaves + spines, receivers, senders, ports


def read_backlog_sysctl():
    with open(BACKLOG_SYSCTL) as f:
        return int(f.read())


def write_backlog_sysctl(value):
    with open(BACKLOG_SYSCTL, "w") as f:
        f.write(str(value))


def switch_stats(switches):
    """tc -s of every lossless qdisc of the switches, by port_key."""
    keyed = len(switches) > 1
    return {port_key(sw, q["dev"], keyed): q for sw in switches
            for q in json.loads(sw.run("tc -s -j qdisc show")) if q.get("kind") == "lossless"}


def backlog_drops():
    """Packets the kernel dropped at a full CPU input backlog (where veth
    delivers), all CPUs: a loss no qdisc sees (docs/MMU.md)."""
    with open("/proc/net/softnet_stat") as f:
        return sum(int(line.split()[1], 16) for line in f)


class TcBatch:
    """One `tc -s -j -batch -` in a host's namespace, kept running: a `tc
    -s qdisc show` costs a line on its stdin instead of three processes
    (under TCG a new process takes a large part of a 100 ms period)."""

    def __init__(self, host):
        self.p = subprocess.Popen(f"exec nsenter --net=/run/netns/{host.ns} tc -s -j -batch -", shell=True,
                                  text=True, env=dict(os.environ, TC_LIB_DIR=Paths.tc_lib),
                                  stdin=subprocess.PIPE, stdout=subprocess.PIPE, bufsize=1)
        host.topo.procs.append(self.p)

    def lossless(self, devs):
        """tc -s of the lossless qdiscs of devs, by device."""
        out = {}
        for dev in devs:
            self.p.stdin.write(f"qdisc show dev {dev}\n")
            self.p.stdin.flush()
            text = ""
            while True:  # one JSON array per command, normally on one line
                line = self.p.stdout.readline()
                if not line:
                    raise RuntimeError("tc -batch ended")
                text += line
                try:
                    qs = json.loads(text)
                    break
                except json.JSONDecodeError:
                    continue
            # (with "dev X", tc's JSON leaves the device out)
            out.update({dev: q for q in qs if q.get("kind") == "lossless"})
        return out

    def close(self):
        self.p.stdin.close()
        self.p.wait(timeout=30)


class Sampler(threading.Thread):
    """Each switch's pool (its totals are on every port) and the backlog of
    the ports given every period_s, until stopped: groups is a list of
    (switch, devices), one or more devices per switch. Only those ports: a
    dump of every qdisc costs the VM's CPUs noticeably at 10 per second.
    A sample's shared and headroom are the sums over the switches."""

    def __init__(self, groups, period_s):
        super().__init__(daemon=True)
        self.keyed = len(groups) > 1
        self.groups = [(sw, TcBatch(sw), devs) for sw, devs in groups]
        self.period, self.samples = period_s, []
        self.stop = threading.Event()

    def run(self):
        nxt = time.monotonic()
        while not self.stop.is_set():
            t_a = time.monotonic_ns()
            shared = headroom = 0
            backlog = {}
            try:
                for sw, tc, devs in self.groups:
                    st = tc.lossless(devs)
                    if not st:  # no lossless qdisc on them (yet): nothing of this switch
                        continue
                    any_port = next(iter(st.values()))
                    shared += any_port.get("pool_shared_used", 0)
                    headroom += any_port.get("pool_headroom_used", 0)
                    backlog.update({port_key(sw, d, self.keyed): q.get("backlog", 0) for d, q in st.items()})
            except (RuntimeError, OSError, ValueError):  # tc gone: the teardown
                break
            t_b = time.monotonic_ns()
            self.samples.append({"t_ns": (t_a + t_b) // 2, "read_ns": t_b - t_a,
                                 "shared": shared, "headroom": headroom, "backlog": backlog})
            nxt = max(nxt + self.period, time.monotonic())
            self.stop.wait(max(0.0, nxt - time.monotonic()))
        for _, tc, _ in self.groups:
            tc.close()


class CcSampler(threading.Thread):
    """The paced rate of every flow the hosts send, every period_s, until
    stopped (lossless-cc show --json on each host: a process per host and
    sample, so the period is long)."""

    def __init__(self, hosts, period_s):
        super().__init__(daemon=True)
        self.hosts, self.period, self.samples = hosts, period_s, []
        self.stop = threading.Event()

    def run(self):
        while not self.stop.wait(self.period):
            row = {"t_ns": time.monotonic_ns(), "flows": {}}
            for h in self.hosts:
                try:
                    j = json.loads(h.run(cc_args(h, "show --json --flows 8")))
                except (RuntimeError, OSError, ValueError):  # the teardown
                    return
                for f in j["rp_flows"]["top"]:
                    row["flows"][f"{h.name}>{f['daddr']}"] = f["rate_mbps"]
            self.samples.append(row)


# ---------------------------------------------------------------- one run

def retry_us(net):
    """How long a sender waits after ENOBUFS (its uplink queue full): a
    quarter of the time that queue takes to drain, 0.2 to 5 ms, so that
    the queue does not run dry while the sender sleeps."""
    drain_us = net["host_limit"] * (net["payload"] + WIRE_OVERHEAD) * 8 / net["rate_mbit"]
    return int(min(5000, max(200, drain_us / 4)))


def sender_cmds(scn, i, t0, bg_dsts, incast_dst, rx_ips=()):
    """The ll-flows commands of sender i: one, or two when its background and
    its incast flows have different priorities (one process per priority;
    the incast one reports as sender 100 + i); a long sender adds one per
    [[long_link.classes]] entry k (sender CLASS_SENDER_BASE x (k + 1) + i)."""
    net, bg, inc = scn["network"], scn["background"], scn["incast"]
    has_bg, has_inc = bool(bg and i < bg["n"]), bool(inc and i < inc["fanin"])
    split = has_bg and has_inc and (bg["prio"], bg["dscp"]) != (inc["prio"], inc["dscp"])
    parts = [(i, has_bg, has_inc and not split)] + ([(100 + i, False, True)] if split else [])
    parts = [pt for pt in parts if pt[1] or pt[2]]
    cmds = []
    for sid, with_bg, with_inc in parts:
        cls = bg if with_bg else inc
        cmd = [FLOWS, "send", "--dst", ",".join(bg_dsts) if with_bg else incast_dst, "--port", str(port(scn)),
               "--rate-mbit", str(net["rate_mbit"]), "--duration", str(scn["duration"]), "--t0-ns", str(t0),
               "--sender", str(sid), "--seed", str(scn["seed"] * 1000 + i), "--prio", str(cls["prio"]),
               "--dscp", str(cls["dscp"]), "--sndbuf", str(net["sndbuf"]), "--payload", str(net["payload"]),
               "--max-drain", str(scn["report"]["max_drain"]), "--retry-us", str(retry_us(net))]
        if with_bg:
            cmd += ["--cdf", bg["cdf_path"], "--load", str(bg["load"]), "--size-scale", str(bg["size_scale"])]
        if with_inc:
            cmd += ["--incast-size", str(inc["size"]), "--incast-flows", str(inc["flows_per_sender"]),
                    "--incast-period", str(inc["period"]), "--incast-start", str(inc["start"]),
                    "--incast-seed", str(scn["seed"]), "--incast-dst", incast_dst]
            if inc["poisson"]:
                cmd.append("--incast-poisson")
        if net["roce"]:
            cmd.append("--roce")
        cmds.append(" ".join(shlex.quote(c) for c in cmd))
    ll = scn["long_link"]
    for k, c in enumerate(ll["classes"] if ll and i in ll["senders"] else []):
        dst = rx_ips[c["receiver"]]
        cmd = [FLOWS, "send", "--dst", dst, "--port", str(port(scn)), "--rate-mbit", str(net["rate_mbit"]),
               "--duration", str(scn["duration"]), "--t0-ns", str(t0),
               "--sender", str(CLASS_SENDER_BASE * (k + 1) + i), "--seed", str(scn["seed"] * 1000 + i + 100 * (k + 1)),
               "--prio", str(c["prio"]), "--dscp", str(c["dscp"]), "--sndbuf", str(net["sndbuf"]),
               "--payload", str(net["payload"]), "--max-drain", str(scn["report"]["max_drain"]),
               "--retry-us", str(retry_us(net))]
        if c["cdf"]:
            cmd += ["--cdf", c["cdf_path"], "--load", str(c["load"]), "--size-scale", str(c["size_scale"])]
        if c["size"]:
            cmd += ["--incast-size", str(c["size"]), "--incast-at", str(c["start"]), "--incast-dst", dst]
        if net["roce"]:
            cmd.append("--roce")
        cmds.append(" ".join(shlex.quote(x) for x in cmd))
    return cmds


def start_stalls(scn, receivers, t0):
    """The receiver's pause plan (pause_sender.py): an XOFF of its priority
    at each stall window's start, an XON at its end (a stall longer than
    one frame's 65535 quanta is refreshed). Started now, sent from t0."""
    st, net = scn["stall"], scn["network"]
    host, _, lk = receivers[st["receiver"]]
    quanta_s = 512 / (net["rate_mbit"] * 1e6)
    bit = sum(1 << p for p in st["prios"])
    plan = []
    for a, b in st["windows"]:
        t = a
        while t < b:
            q = min(65535, math.ceil((b - t) / quanta_s) + 1)
            plan.append({"at": t, "name": "xoff", "kind": "pfc", "vector": bit,
                         "times": [q if k in st["prios"] else 0 for k in range(8)]})
            t += 65535 * quanta_s / 2
        plan.append({"at": b, "name": "xon", "kind": "pfc", "vector": bit, "times": [0] * 8})
    p = host.popen(f"{Paths.python} {Paths.pause_sender} {lk['a_if']} {lk['a_mac']} '{json.dumps(plan)}'",
                   stdin=subprocess.PIPE)
    if p.stdout.readline().strip() != "ready":
        raise RuntimeError("the stall's pause sender failed: " + p.communicate()[1])

    def go():
        p.stdin.write("go\n")
        p.stdin.flush()
    timer = threading.Timer(max(0.0, (t0 - time.monotonic_ns()) / 1e9), go)
    timer.daemon = True
    timer.start()
    return p


def run_scheme(scn, scheme, scheme_opts, hook=None, port_opts=""):
    """One scheme: build, measure the base RTT, run the flows, drain, read
    the counters. Returns the raw results (summarised by metrics()). hook,
    if given, is called as hook(switches, ports) before the network is torn
    down (ports: {port_key: what it is cabled to})."""
    started = time.monotonic()
    backlog_before = read_backlog_sysctl()
    try:
        return run_built(scn, scheme, scheme_opts, hook, started, port_opts)
    finally:
        write_backlog_sysctl(backlog_before)


def run_built(scn, scheme, scheme_opts, hook, started, port_opts=""):
    bg, inc = scn["background"], scn["incast"]
    with Topology("cmp") as t:
        switches, receivers, senders, ports = build(t, scn, scheme_opts, port_opts)
        keyed = len(switches) > 1
        devs = switch_devs(switches, ports, keyed)
        cc = split_column(scheme)[1]
        if cc:
            start_host_cc(scn, cc, receivers, senders)
        # A veth delivers into the CPU's input backlog, which drops beyond
        # net.core.netdev_max_backlog before any qdisc sees the frame: raise
        # it to what the pool says its ports may burst (docs/MMU.md).
        # One backlog per CPU for every switch: the needs of their pools add up.
        backlog_need = sum(size_backlog(sw, d)[0] for sw, d in devs.items())
        if backlog_need > read_backlog_sysctl():
            write_backlog_sysctl(backlog_need)
        backlog_max = read_backlog_sysctl()
        built = time.monotonic()
        rtt = ping(senders[0][0], receivers[0][1], count=20, interval=0.02)
        base_rtt_ns = int(min(rtt["rtt_ms"]) * 1e6) if rtt["rtt_ms"] else 0
        # t0: when the flows' window starts, late enough for every sender to
        # be running (a process start takes a good part of a second under
        # TCG); the receivers' buckets count from it too.
        # A class's ll-flows is one more process on its sender, each started
        # in turn (1.5 s), and a stall's pause sender (scapy) is started and
        # ready before them (3 s): three classes and a stall began up to 3.1
        # s after a t0 without these terms, under TCG.
        n_class = len(scn["long_link"]["classes"]) * len(scn["long_link"]["senders"]) if scn["long_link"] else 0
        t0 = time.monotonic_ns() + int((2.0 + 0.5 * (len(senders) + len(receivers)) + 1.5 * n_class +
                                        (3.0 if scn["stall"] else 0)) * 1e9)
        roce = " --roce" if scn["network"]["roce"] else ""
        recv = [popen(r, f"{FLOWS} recv --port {port(scn)}{roce} --duration 100000 --bucket-ms 100 --t0-ns {t0}")
                for r, _, _ in receivers]
        staller = start_stalls(scn, receivers, t0) if scn["stall"] else None
        bg_dsts = [receivers[j][1] for j in bg["receivers"]] if bg else []
        incast_dst = receivers[inc["receiver"] if inc else 0][1]
        drops0 = backlog_drops()
        procs = [(h.name, popen(h, cmd)) for i, (h, _, _) in enumerate(senders)
                 for cmd in sender_cmds(scn, i, t0, bg_dsts, incast_dst, [ip for _, ip, _ in receivers])]
        for (r, _, _), p in zip(receivers, recv):
            line = p.stderr.readline()  # "ll-flows: receiving on port N" once bound
            if "receiving" not in line:
                raise RuntimeError(f"receiver {r.name} did not start: {line.strip()}")
            if time.monotonic_ns() > t0:
                print(f"    receiver {r.name} was bound {(time.monotonic_ns() - t0) / 1e9:.2f} s after t0: "
                      f"its first datagrams may have been lost", flush=True)
        # The ports to the receivers, and one port of every other switch for its pool.
        to_receivers = {k for k, v in ports.items() if v in {r.name for r, _, _ in receivers}}
        sampler = Sampler([(sw, [d for d in ds if port_key(sw, d, keyed) in to_receivers] or ds[:1])
                           for sw, ds in devs.items()],
                          scn["report"]["sample_ms"] / 1000)
        sampler.start()
        cc_sampler = CcSampler([h for h, _, _ in senders], 1.0) if cc else None
        if cc_sampler:
            cc_sampler.start()
        limit = scn["duration"] + scn["report"]["max_drain"] + 60 + (t0 - time.monotonic_ns()) / 1e9
        sends = []
        for hname, p in procs:
            out, err = p.communicate(timeout=max(10, limit - (time.monotonic() - built)))
            if p.returncode:
                raise RuntimeError(f"sender {hname} failed ({p.returncode}): {err.strip()}")
            for line in err.splitlines():
                print(f"    {hname}: {line}", flush=True)
            sends.append(json.loads(out))
        sent_done = time.monotonic_ns()

        # Wait until the switch holds nothing (its pool and every queue) in
        # two samples in a row: the senders have exited, and what their
        # uplinks still queue reaches the switch within a few ms unless
        # paused, which the switch's own queues would show.
        # A long link still carries a one-way delay of datagrams the switch
        # has not seen: the wait starts after it (and its netem's slack).
        settle_ns = int((2 * seconds(scn["long_link"]["delay"], "", "long_link.delay") + 1) * 1e9) \
            if scn["long_link"] else 0

        def drained():
            if not sampler.is_alive():
                raise RuntimeError("the buffer sampler stopped (tc -batch failed)")
            recent = sampler.samples[-2:]
            return len(recent) == 2 and recent[0]["t_ns"] > sent_done + settle_ns and all(
                s["shared"] == 0 and s["headroom"] == 0 and not any(s["backlog"].values()) for s in recent)
        is_drained = wait_for(drained, timeout=scn["report"]["max_drain"], step=0.1)
        sampler.stop.set()
        sampler.join()
        if cc_sampler:
            cc_sampler.stop.set()
            cc_sampler.join()
        stalls_sent = json.loads(staller.communicate(timeout=60)[0] or "[]") if staller else []
        for p in recv:
            p.send_signal(signal.SIGINT)
        recvs = []
        for j, p in enumerate(recv):
            out, err = p.communicate(timeout=60)
            if p.returncode:
                raise RuntimeError(f"receiver r{j} failed ({p.returncode}): {err.strip()}")
            recvs.append(json.loads(out))
        final = switch_stats(switches)
        hosts = {h.name: json.loads(h.run(f"tc -s -j qdisc show dev {lk['a_if']}"))[0]
                 for h, _, lk in senders}
        # The long senders' queues: pause frames and BifrostX credit per
        # queue (tc -s class; iproute2 6.1 has no JSON for classes).
        upstream = {h.name: class_stats(h.run(f"tc -s class show dev {lk['a_if']}")) for h, _, lk in senders
                    if scn["long_link"] and int(h.name[1:]) in scn["long_link"]["senders"]}
        cpu_drops = backlog_drops() - drops0
        cc_stats = host_cc_stats([h for h, _, _ in receivers + senders]) if cc else {}
        if hook:
            hook(switches, ports)
    return {"scheme": scheme, "scheme_options": scheme_opts, "port_options": port_opts,
            "long_ports": {lk["b_if"]: h.name for h, _, lk in senders
                           if scn["long_link"] and int(h.name[1:]) in scn["long_link"]["senders"]},
            "stalls_sent": stalls_sent, "upstream_classes": upstream, "host_cc": cc, "cc": cc_stats,
            "cc_samples": cc_sampler.samples if cc_sampler else [],
            "qdisc": " ".join(switch_qdisc(scn, scheme_opts)),
            "t0_ns": t0, "base_rtt_ns": base_rtt_ns, "rtt_ms": rtt["rtt_ms"], "sends": sends, "recvs": recvs,
            "switch": final, "hosts": hosts, "ports": ports, "samples": sampler.samples,
            "receivers": [(r.name, ip) for r, ip, _ in receivers],
            "bottleneck_ports": {r.name: next(k for k, v in ports.items() if v == r.name) for r, _, _ in receivers},
            "pools": {sw.name: port_key(sw, ds[0], keyed) for sw, ds in devs.items()},
            "cpu_backlog_drops": cpu_drops, "drained": is_drained, "backlog_need": backlog_need,
            "netdev_max_backlog": backlog_max,
            "sent_done_ns": sent_done, "build_s": built - started, "elapsed_s": time.monotonic() - started}


# ---------------------------------------------------------------- metrics

def class_stats(text):
    """`tc -s class show` of a lossless qdisc: {queue: counters} (queue =
    the class's minor - 1): pause frames received and, once a TOKENS frame
    reached it (BifrostX), its credit's frames, granted bytes and blocked
    dequeues."""
    out = {}
    for block in text.split("class lossless ")[1:]:
        h = re.match(r"[0-9a-f]+:([0-9a-f]+)", block)
        if not h:
            continue
        q = {"pause_frames_rx": 0, "credit_frames": 0, "credit_granted": 0, "credit_blocked": 0}
        m = re.search(r"pause_frames_rx (\d+)", block)
        if m:
            q["pause_frames_rx"] = int(m.group(1))
        m = re.search(r"credit (?:metered|off) left \d+b frames (\d+) granted (\d+)b blocked (\d+)", block)
        if m:
            q["credit_frames"], q["credit_granted"], q["credit_blocked"] = (int(x) for x in m.groups())
        out[int(h.group(1), 16) - 1] = q
    return out


def pct(values, p):
    """Nearest-rank percentile (None when empty)."""
    if not values:
        return None
    v = sorted(values)
    return v[max(0, min(len(v) - 1, math.ceil(p / 100 * len(v)) - 1))]


def wire_bytes(size, payload, header):
    data = payload - header
    return size + math.ceil(size / data) * (header + WIRE_OVERHEAD)


def backlogged_buckets(res, samples, dev, t0, width, rate):
    """Indices of the receiver's buckets during which the switch port to it
    was backlogged throughout: every sample from the last one before the
    bucket to the first one after it held at least what the line rate
    drains until the next sample, so the port cannot have run empty in
    between."""
    ts = [(s["t_ns"], s["backlog"].get(dev, 0)) for s in samples]
    busy = [b * 8e9 / rate >= t1 - t for (t, b), (t1, _) in zip(ts, ts[1:])]  # sample i to i + 1
    out = []
    for k in range(len(res["bucket_wire_bytes"])):
        lo, hi = t0 + k * width, t0 + (k + 1) * width
        first = max((i for i, (t, _) in enumerate(ts) if t < lo), default=None)
        last = min((i for i, (t, _) in enumerate(ts) if t >= hi), default=None)
        if first is not None and last is not None and all(busy[first:last]):
            out.append(k)
    return out


def port_premise(q):
    """The headroom's premise on one switch port, from its tc -s JSON
    (docs/RELIABILITY.md): XOFF responses the kernel timed, the last and
    the slowest against the port's sw-delay, the lossless priorities'
    headroom peak and size, the headroom warnings, and whether the premise
    broke (a warning, or a response slower than sw-delay)."""
    iq = [x for x in q.get("ingress", []) if x.get("lossless")]
    sw_delay = q.get("options", {}).get("sw_delay", 0)
    slowest = q.get("xoff_response_max_ns", 0)
    return {"xoff_responses": q.get("xoff_responses", 0),
            "xoff_last_ms": q.get("xoff_response_last_ns", 0) / 1e6, "xoff_max_ms": slowest / 1e6,
            "sw_delay_ms": sw_delay / 1e6, "warnings": q.get("headroom_warnings", 0),
            "peak_headroom": max((x["peak_headroom"] for x in iq), default=0),
            "headroom_size": max((x["headroom_size"] for x in iq), default=0),
            "lossless_drops": sum(x["drops"] for x in iq),
            "broken": q.get("headroom_warnings", 0) > 0 or slowest > sw_delay}


def metrics(scn, raw):
    """The table's numbers (and the per-flow list) from one run's raw data."""
    net = scn["network"]
    rate = net["rate_mbit"] * 1e6
    small_max = scn["report"]["small_max"]
    header = raw["sends"][0]["header_bytes"]
    lossless = [int(p) for p in str(net["lossless-prios"]).replace(",", " ").split() if p.isdigit()]
    sw = raw["switch"]
    m = {"scheme": raw["scheme"], "scheme_options": raw["scheme_options"], "qdisc": raw["qdisc"],
         "base_rtt_ms": raw["base_rtt_ns"] / 1e6, "elapsed_s": round(raw["elapsed_s"], 1),
         "drained": raw["drained"], "backlog_need": raw["backlog_need"],
         "netdev_max_backlog": raw["netdev_max_backlog"]}

    # Flows: what the senders generated, matched with what arrived.
    got = {}
    for res in raw["recvs"]:
        for f in res["flows"]:
            got[(f["sender"], f["flow"])] = f
    flows = []
    for s in raw["sends"]:
        for f in s["flows"]:
            r = got.get((s["sender"], f["flow"]))
            done = bool(r and r["complete"])
            fct = r["fct_ns"] if done else None
            ideal = wire_bytes(f["size"], net["payload"], header) * 8 / rate * 1e9 + raw["base_rtt_ns"]
            tc = class_of_sender(scn, s["sender"])
            flows.append({"sender": s["sender"], "flow": f["flow"], "class": f["class"], "size": f["size"],
                          "start_ns": f["start_ns"], "dst": f["dst"], "complete": done, "fct_ns": fct,
                          "ideal_ns": round(ideal), "slowdown": fct / ideal if done else None,
                          "bucket": "small" if f["size"] <= small_max else "large",
                          "tclass": tc["name"] if tc else None,
                          "received": r.get("bytes", 0) if r else 0, "last_ns": r.get("last_ns", 0) if r else 0})
    m["flows"] = len(flows)
    m["flows_complete"] = sum(1 for f in flows if f["complete"])
    m["flows_abandoned_by_sender"] = sum(1 for s in raw["sends"] if s["abandoned"])
    m["fct"] = {}
    for cls in ("incast", "background"):
        for b in ("small", "large", "all"):
            sel = [f for f in flows if f["class"] == cls and (b == "all" or f["bucket"] == b) and f["complete"]
                   and not f["tclass"]]
            if not sel or (b == "all" and not (f"{cls}/small" in m["fct"] and f"{cls}/large" in m["fct"])):
                continue  # "all" only when both sizes are there
            fc = [f["fct_ns"] / 1e6 for f in sel]
            sd = [f["slowdown"] for f in sel]
            m["fct"][f"{cls}/{b}"] = {
                "n": len(sel), "fct_p50_ms": pct(fc, 50), "fct_p99_ms": pct(fc, 99),
                "fct_mean_ms": sum(fc) / len(fc) if fc else None,
                "slowdown_p50": pct(sd, 50), "slowdown_p99": pct(sd, 99),
                "slowdown_min": min(sd) if sd else None}

    # Loss: the MMU's count, the switch qdiscs' drops, and datagrams that
    # the senders sent and the receivers never got.
    # A pool's counters are on each of its ports: one port per switch
    # (raw["pools"]; older results: the one switch).
    pools = [sw[k] for k in raw["pools"].values()] if "pools" in raw else [next(iter(sw.values()))]
    m["drops_lossless_pool"] = sum(q.get("pool_drops_lossless", 0) for q in pools)
    m["drops_lossless_ingress"] = sum(q["ingress"][p]["drops"] for q in sw.values() for p in lossless)
    m["drops_lossy_pool"] = sum(q.get("pool_drops_lossy", 0) for q in pools)
    m["switch_qdisc_drops"] = sum(q.get("drops", 0) for q in sw.values())
    sent_dg = sum(s["datagrams"] for s in raw["sends"])
    recv_dg = sum(v["datagrams"] for res in raw["recvs"] for v in res["senders"].values())
    m["datagrams_sent"] = sent_dg
    m["datagrams_lost"] = sent_dg - recv_dg
    m["datagrams_missing_seq"] = sum(res["missing"] for res in raw["recvs"])
    m["receiver_socket_drops"] = sum(res["socket_drops"] for res in raw["recvs"])
    m["cpu_backlog_drops"] = raw["cpu_backlog_drops"]
    m["host_enobufs_resent"] = sum(s["enobufs"] for s in raw["sends"])
    m["late_start_max_ms"] = max(s["late_ns"] for s in raw["sends"]) / 1e6

    # PFC and pauses, per switch port (named by the host it is cabled to).
    m["ports"] = {}
    for dev, q in sorted(sw.items(), key=lambda kv: raw["ports"][kv[0]]):
        iq = [q["ingress"][p] for p in lossless]
        m["ports"][raw["ports"][dev]] = {
            "dev": dev, "pfc_tx": q.get("pfc_frames_tx", 0),
            "xoff": sum(x["xoff_frames"] for x in iq), "xon": sum(x["xon_frames"] for x in iq),
            "paused_s": sum(x["paused_time"] for x in iq) / 1e9,
            "peak_headroom": max(x["peak_headroom"] for x in iq) if iq else 0,
            "headroom_size": max(x["headroom_size"] for x in iq) if iq else 0}
        m["ports"][raw["ports"][dev]]["premise"] = port_premise(q)
        if "scheme_stats" in q:
            m["ports"][raw["ports"][dev]]["scheme_stats"] = q["scheme_stats"]
    # Victim ports (senders that carry background flows and take part in
    # the incast) against incast-only ports, when a scenario has both
    # (spfc-victim): the paper's "non-bursty" ports.
    bg, inc = scn["background"], scn["incast"]
    if bg and inc and inc["fanin"] > bg["n"]:
        groups = {"victim": [f"h{i}" for i in range(bg["n"])],
                  "incast_only": [f"h{i}" for i in range(bg["n"], inc["fanin"])]}
        m["groups"] = {g: {"hosts": hs,
                           **{k: sum(m["ports"][h][k] for h in hs if h in m["ports"])
                              for k in ("pfc_tx", "xoff", "paused_s")}}
                       for g, hs in groups.items()}
    dsh = [p["scheme_stats"] for p in m["ports"].values() if p.get("scheme_stats", {}).get("scheme") == "dsh"]
    if dsh:
        m["dsh"] = {"poff_pauses": sum(x.get("poff_pauses", 0) for x in dsh),
                    "qoff_pauses": sum(x.get("qoff_pauses", 0) for x in dsh),
                    "insurance_peak_max": max(x.get("insurance_peak", 0) for x in dsh)}
    spfc = {n: p["scheme_stats"] for n, p in m["ports"].items()
            if p.get("scheme_stats", {}).get("scheme") == "spfc"}
    if spfc:
        m["spfc"] = {k: sum(x.get(k, 0) for x in spfc.values())
                     for k in ("to_victim", "to_normal", "pauses_normal", "pauses_victim")}
        m["spfc"]["victim_time_s"] = sum(x.get("victim_time", 0) for x in spfc.values()) / 1e9
        if "groups" in m:
            vic = [spfc[h] for h in m["groups"]["victim"]["hosts"] if h in spfc]
            m["spfc"]["victim_ports"] = {k: sum(x.get(k, 0) for x in vic)
                                         for k in ("to_victim", "to_normal", "pauses_normal", "pauses_victim")}
            m["spfc"]["victim_ports"]["victim_time_s"] = sum(x.get("victim_time", 0) for x in vic) / 1e9
    # The headroom's premise over the switch ports: the slowest XOFF
    # response and where, against sw-delay, and the warnings.
    prem = {n: p["premise"] for n, p in m["ports"].items()}
    slow = max(prem, key=lambda n: prem[n]["xoff_max_ms"], default=None)
    m["premise"] = {"xoff_responses": sum(x["xoff_responses"] for x in prem.values()),
                    "xoff_max_ms": prem[slow]["xoff_max_ms"] if slow else 0.0,
                    "xoff_last_ms": prem[slow]["xoff_last_ms"] if slow else 0.0, "slowest_port": slow,
                    "sw_delay_ms": seconds(net["sw-delay"], "network") * 1e3,
                    "warnings": sum(x["warnings"] for x in prem.values()),
                    "warned_ports": sorted(n for n, x in prem.items() if x["warnings"]),
                    "broken_ports": sorted(n for n, x in prem.items() if x["broken"])}
    m["pfc_tx_total"] = sum(p["pfc_tx"] for p in m["ports"].values())
    m["xoff_total"] = sum(p["xoff"] for p in m["ports"].values())
    m["paused_s_total"] = sum(p["paused_s"] for p in m["ports"].values())
    m["pfc_rx_hosts"] = sum(h.get("pfc_frames_rx", 0) for h in raw["hosts"].values())

    # Buffer: the pool's peaks per region (tc -s); in a fabric, the
    # switch whose pool peaked highest, and each switch's.
    keys = ("pool_total_bytes", "pool_shared_size", "pool_peak_shared", "pool_headroom_size", "pool_peak_headroom")
    for k in keys:
        m[k] = max(q.get(k, 0) for q in pools)
    if len(pools) > 1:
        m["pools"] = {name: {k: sw[key].get(k, 0) for k in keys} for name, key in raw["pools"].items()}
        # Between switches: the congestion tree's hops beyond the hosts.
        fab = [p for n, p in m["ports"].items() if "@" in n]
        m["fabric"] = {"pfc_tx": sum(p["pfc_tx"] for p in fab), "xoff": sum(p["xoff"] for p in fab),
                       "paused_s": sum(p["paused_s"] for p in fab),
                       "paused_ports": sum(1 for p in fab if p["paused_s"] > 0)}

    # Utilisation of each receiver's link, from its 100 ms buckets: while
    # the switch port to it was backlogged, and over the flows' window.
    m["utilisation"] = {}
    for (name, _), res in zip(raw["receivers"], raw["recvs"]):
        width = res["bucket_ns"]
        cap = rate * width / 8e9
        b = res["bucket_wire_bytes"]
        dev = raw["bottleneck_ports"][name]
        idx = backlogged_buckets(res, raw["samples"], dev, raw["t0_ns"], width, rate)
        n_window = int(scn["duration"] * 1e9 // width)
        m["utilisation"][name] = {
            "backlogged": sum(b[k] for k in idx) / cap / len(idx) if idx else None,
            "backlogged_buckets": len(idx),
            "window": sum(b[:n_window]) / cap / max(1, n_window)}

    # A stalled receiver: its link's use outside the stall windows, from
    # the first bucket that carried data (a long link's first bytes come a
    # one-way delay late). The senders offer it more than its line rate
    # throughout, so a bucket below capacity there is the scheme idling it.
    st = scn["stall"]
    if st:
        name = raw["receivers"][st["receiver"]][0]
        res = raw["recvs"][st["receiver"]]
        width = res["bucket_ns"]
        cap = rate * width / 8e9
        b = res["bucket_wire_bytes"]
        n_window = min(len(b), int(scn["duration"] * 1e9 // width))
        stalled = {k for a, e in st["windows"] for k in range(int(a * 1e9 // width), math.ceil(e * 1e9 / width))}
        first = next((k for k in range(n_window) if b[k]), n_window)
        free = [k for k in range(first, n_window) if k not in stalled]
        m["stall"] = {"receiver": name, "windows": st["windows"], "sent": raw["stalls_sent"],
                      "utilisation": sum(b[k] for k in free) / cap / len(free) if free else None,
                      "buckets": len(free), "idle_buckets": sum(1 for k in free if b[k] < cap / 2),
                      "link_mbit": [x * 8 / (width / 1e9) / 1e6 for x in b[:n_window]],
                      "bucket_s": width / 1e9}
    # The long link's switch ports: the buffer their lossless bytes may
    # take (a mode's H; PFC's reserve + threshold + headroom), its peak,
    # and the mode's own counters.
    m["long_ports"] = {}
    for dev, hname in raw.get("long_ports", {}).items():
        q = sw[dev]
        iq = [q["ingress"][p] for p in lossless]
        ms = q.get("mode_stats")
        o = q.get("options", {})
        if ms:
            buf, peak = iq[0]["headroom_size"], ms.get("max_queue", 0)
        else:
            thr = o.get("st_threshold") if o.get("scheme") == "st" else None
            buf = o.get("reserved", 0) + thr + iq[0]["headroom_size"] if thr is not None else None
            peak = max(x.get("peak_bytes", 0) for x in iq)
        m["long_ports"][hname] = {"dev": dev, "buffer": buf, "peak": peak, "drops": sum(x["drops"] for x in iq),
                                  "pfc_tx": q.get("pfc_frames_tx", 0), "mode_stats": ms or {}}

    # Per traffic class of the long senders ([[long_link.classes]]): its
    # flows' FCT, the bytes it offered and got through, its priority's
    # counters at the long ports (ingress) and at the upstreams (the queue
    # that strict_priority's priomap gives it).
    ll = scn["long_link"]
    if ll and ll["classes"]:
        m["classes"] = {}
        for c in ll["classes"]:
            sel = [f for f in flows if f["tclass"] == c["name"]]
            done = [f for f in sel if f["complete"]]
            fc = [f["fct_ns"] / 1e6 for f in done]
            small = [f["fct_ns"] / 1e6 for f in done if f["bucket"] == "small"]
            sd = [f["slowdown"] for f in done]
            last = max((f["last_ns"] for f in sel), default=0)
            span = (last - raw["t0_ns"]) / 1e9 if last > raw["t0_ns"] else None
            got = sum(f["received"] for f in sel)
            iq = [sw[dev]["ingress"][c["prio"]] for dev in raw.get("long_ports", {})]
            queue = 7 - c["prio"] if net["strict_priority"] else None
            up = [u[queue] for u in raw.get("upstream_classes", {}).values() if queue in u]
            m["classes"][c["name"]] = {
                "prio": c["prio"], "dscp": c["dscp"], "load": c["load"], "size": c["size"],
                "flows": len(sel), "flows_complete": len(done),
                "fct_p50_ms": pct(fc, 50), "fct_p99_ms": pct(fc, 99),
                "fct_mean_ms": sum(fc) / len(fc) if fc else None,
                "small_n": len(small), "small_fct_p50_ms": pct(small, 50), "small_fct_p99_ms": pct(small, 99),
                "slowdown_p50": pct(sd, 50), "slowdown_p99": pct(sd, 99),
                "offered_bytes": sum(f["size"] for f in sel), "delivered_bytes": got,
                "last_s": span, "mbit": got * 8 / span / 1e6 if span else None,
                "long_port": {"drops": sum(x["drops"] for x in iq), "xoff": sum(x["xoff_frames"] for x in iq),
                              "paused_s": sum(x["paused_time"] for x in iq) / 1e9,
                              "peak": max((x.get("peak_bytes", 0) for x in iq), default=0)},
                "upstream": {k: sum(u[k] for u in up) for k in
                             ("pause_frames_rx", "credit_frames", "credit_granted", "credit_blocked")}
                if up else None}

    # The buffer over time (for the plot), in s since t0.
    m["samples"] = [[(s["t_ns"] - raw["t0_ns"]) / 1e9, s["shared"], s["headroom"]] for s in raw["samples"]]
    m["backlog_samples"] = {name: [s["backlog"].get(dev, 0) for s in raw["samples"]]
                            for name, dev in raw["bottleneck_ports"].items()}
    m["sample_period_s"] = (m["samples"][-1][0] - m["samples"][0][0]) / max(1, len(m["samples"]) - 1) \
        if len(m["samples"]) > 1 else None
    m["sample_read_ms_max"] = max((s["read_ns"] for s in raw["samples"]), default=0) / 1e6
    # How late the shapers' timers ran: the VM's load (docs/MMU.md, Sizing).
    # The switch's ports to the receivers carry the data, and in a fabric
    # the ports between switches; the ports to the senders send PFC frames
    # only.
    data_ports = [sw[d] for d in raw["bottleneck_ports"].values()] + \
        [sw[p["dev"]] for n, p in m["ports"].items() if "@" in n]
    m["wake_late_max_ms"] = {"switch": max(q.get("wake_late_max", 0) for q in data_ports) / 1e6,
                             "hosts": max(q.get("wake_late_max", 0) for q in raw["hosts"].values()) / 1e6}
    m["shaper_lost_ms"] = {"switch": sum(q.get("shaper_lost", 0) for q in data_ports) / 1e6,
                           "hosts": sum(q.get("shaper_lost", 0) for q in raw["hosts"].values()) / 1e6}
    m["flow_list"] = flows
    if raw.get("host_cc"):
        m["host_cc"] = host_cc_metrics(raw)
    return m


def host_cc_metrics(raw):
    """The hosts' congestion control, summed over hosts (lossless-cc show
    --json): CNPs the receivers sent, the senders applied, refused, and the
    senders' paced rates at the end."""
    cnt = [h["counters"] for h in raw["cc"].values()]
    rates = [f["rate_mbps"] for h in raw["cc"].values() for f in h["rp_flows"]["top"]]
    return {"algo": raw["host_cc"],
            "cnps_sent": sum(c["cnps_sent"] for c in cnt),
            "cnps_applied": sum(c["cnps_received"] for c in cnt),
            "cnps_bad": sum(c["cnp_unknown_flow"] + sum(c["cnp_parse_error"].values()) for c in cnt),
            "ce_pkts": sum(c["np_ce_pkts"] for c in cnt), "np_pkts": sum(c["np_pkts"] for c in cnt),
            "rp_delayed": sum(c["rp_delayed_pkts"] for c in cnt),
            "rp_refused": sum(c["rp_refused_pkts"] for c in cnt),
            "rp_pkts": sum(c["rp_pkts"] for c in cnt),
            "rates_end_mbps": sorted(rates),
            # Each sender flow's paced rate (Mbit/s) per second since t0.
            "rate_samples": [[(x["t_ns"] - raw["t0_ns"]) / 1e9, x["flows"]] for x in raw["cc_samples"]]}


# ---------------------------------------------------------------- output

def fmt(v, spec="{:.1f}"):
    return "-" if v is None else spec.format(v)


def table(scn, results):
    """The comparison table as text: one row per metric, one column per scheme."""
    names = list(results)
    rows = []

    def row(label, f):
        rows.append((label, [f(results[n]) if "error" not in results[n] else "(failed)" for n in names]))

    row("flows complete / generated", lambda m: f"{m['flows_complete']}/{m['flows']}")
    row("lossless drops, pool (tc -s)", lambda m: str(m["drops_lossless_pool"]))
    row("lossless drops, ingress sum (tc -s)", lambda m: str(m["drops_lossless_ingress"]))
    row("switch qdisc drops (tc -s)", lambda m: str(m["switch_qdisc_drops"]))
    row("datagrams lost (sent - received)", lambda m: f"{m['datagrams_lost']}/{m['datagrams_sent']}")
    row("kernel input-backlog drops", lambda m: str(m["cpu_backlog_drops"]))
    row("  netdev_max_backlog / pool backlog-need", lambda m: f"{m['netdev_max_backlog']}/{m['backlog_need']}")
    row("PFC frames sent, total (tc -s)", lambda m: str(m["pfc_tx_total"]))
    row("  XOFF transitions, total", lambda m: str(m["xoff_total"]))
    ports = sorted({p for n in names if "error" not in results[n] for p in results[n]["ports"]})
    for p in ports:
        row(f"  PFC sent by port to {p}", lambda m, p=p: str(m["ports"][p]["pfc_tx"]) if p in m["ports"] else "-")
    row("time paused, total (s)", lambda m: f"{m['paused_s_total']:.2f}")
    for p in ports:
        row(f"  paused by port to {p} (s)", lambda m, p=p: f"{m['ports'][p]['paused_s']:.2f}" if p in m["ports"] else "-")
    if any("groups" in results[n] for n in names if "error" not in results[n]):
        for g, label in (("victim", "victim ports (background + incast)"), ("incast_only", "incast-only ports")):
            row(f"PFC frames / XOFF / paused (s), {label}",
                lambda m, g=g: (f"{m['groups'][g]['pfc_tx']}/{m['groups'][g]['xoff']}/"
                                f"{m['groups'][g]['paused_s']:.2f}") if "groups" in m else "-")
    if any("dsh" in results[n] for n in names if "error" not in results[n]):
        row("dsh: queue / port-level pauses, total",
            lambda m: f"{m['dsh']['qoff_pauses']}/{m['dsh']['poff_pauses']}" if "dsh" in m else "-")
        row("dsh: insurance peak, worst port (KB)",
            lambda m: f"{m['dsh']['insurance_peak_max'] / 1e3:.0f}" if "dsh" in m else "-")
    if any("spfc" in results[n] for n in names if "error" not in results[n]):
        row("spfc: to Victim / to Normal, all ports",
            lambda m: f"{m['spfc']['to_victim']}/{m['spfc']['to_normal']}" if "spfc" in m else "-")
        row("spfc: pauses while Normal / Victim, all ports",
            lambda m: f"{m['spfc']['pauses_normal']}/{m['spfc']['pauses_victim']}" if "spfc" in m else "-")
        row("spfc: time as Victim, all ports (s)",
            lambda m: f"{m['spfc']['victim_time_s']:.2f}" if "spfc" in m else "-")
        if any("victim_ports" in results[n].get("spfc", {}) for n in names if "error" not in results[n]):
            row("spfc: victim ports: to Victim / pauses Normal / Victim",
                lambda m: (f"{m['spfc']['victim_ports']['to_victim']}/{m['spfc']['victim_ports']['pauses_normal']}/"
                           f"{m['spfc']['victim_ports']['pauses_victim']}") if "victim_ports" in m.get("spfc", {})
                else "-")
            row("spfc: victim ports: time as Victim (s)",
                lambda m: f"{m['spfc']['victim_ports']['victim_time_s']:.2f}" if "victim_ports" in m.get("spfc", {})
                else "-")
    if any("host_cc" in results[n] for n in names if "error" not in results[n]):
        def cc_row(label, f):
            row(label, lambda m: f(m["host_cc"]) if "host_cc" in m else "-")
        cc_row("host CC: CNPs sent / applied / unknown or bad",
               lambda h: f"{h['cnps_sent']}/{h['cnps_applied']}/{h['cnps_bad']}")
        cc_row("host CC: CE-marked packets at the receivers (%)",
               lambda h: f"{100 * h['ce_pkts'] / h['np_pkts']:.1f}" if h["np_pkts"] else "-")
        cc_row("host CC: packets paced later / refused (horizon)",
               lambda h: f"{h['rp_delayed']}/{h['rp_refused']}")
    if any("fabric" in results[n] for n in names if "error" not in results[n]):
        row("between switches: PFC frames / XOFF / paused (s)",
            lambda m: (f"{m['fabric']['pfc_tx']}/{m['fabric']['xoff']}/{m['fabric']['paused_s']:.2f}")
            if "fabric" in m else "-")
        row("  switch ports that paused their peer switch",
            lambda m: str(m["fabric"]["paused_ports"]) if "fabric" in m else "-")
        for sw in sorted({w for n in names if "error" not in results[n] for w in results[n].get("pools", {})}):
            row(f"  {sw}: peak shared / peak headroom (KB)",
                lambda m, sw=sw: (f"{m['pools'][sw]['pool_peak_shared'] / 1e3:.0f}/"
                                  f"{m['pools'][sw]['pool_peak_headroom'] / 1e3:.0f}") if sw in m.get("pools", {})
                else "-")
    row("peak shared / shared size (KB)", lambda m: f"{m['pool_peak_shared'] / 1e3:.0f}/{m['pool_shared_size'] / 1e3:.0f}")
    row("peak headroom / headroom size (KB)",
        lambda m: f"{m['pool_peak_headroom'] / 1e3:.0f}/{m['pool_headroom_size'] / 1e3:.0f}")
    row("peak headroom of one port / its size (KB)",
        lambda m: f"{max(p['peak_headroom'] for p in m['ports'].values()) / 1e3:.0f}/"
                  f"{max(p['headroom_size'] for p in m['ports'].values()) / 1e3:.0f}")
    rnames = sorted({r for n in names if "error" not in results[n] for r in results[n]["utilisation"]})
    for r in rnames:
        row(f"utilisation to {r} while backlogged",
            lambda m, r=r: f"{fmt(m['utilisation'][r]['backlogged'] and m['utilisation'][r]['backlogged'] * 100)}% "
                           f"n={m['utilisation'][r]['backlogged_buckets']}")
        row(f"utilisation to {r} over the window", lambda m, r=r: f"{m['utilisation'][r]['window'] * 100:.1f}%")
    keys = []
    for n in names:
        for k in results[n].get("fct", {}):
            if k not in keys:
                keys.append(k)
    order = {"incast/small": 0, "incast/large": 1, "incast/all": 2, "background/small": 3,
             "background/large": 4, "background/all": 5}
    keys.sort(key=lambda k: order.get(k, 9))
    for k in keys:
        row(f"FCT p50 / p99 (ms) {k}",
            lambda m, k=k: (f"{fmt(m['fct'][k]['fct_p50_ms'])}/{fmt(m['fct'][k]['fct_p99_ms'])} "
                            f"n={m['fct'][k]['n']}") if k in m["fct"] else "-")
    for k in keys:
        row(f"slowdown p50 / p99 {k}",
            lambda m, k=k: f"{fmt(m['fct'][k]['slowdown_p50'], '{:.2f}')}/"
                           f"{fmt(m['fct'][k]['slowdown_p99'], '{:.2f}')}" if k in m["fct"] else "-")
    if any(results[n].get("stall") for n in names if "error" not in results[n]):
        row("utilisation to the stalled receiver outside stalls",
            lambda m: (f"{fmt(m['stall']['utilisation'] and m['stall']['utilisation'] * 100)}% "
                       f"n={m['stall']['buckets']}") if m.get("stall") else "-")
        row("  100 ms buckets below half the link there",
            lambda m: str(m["stall"]["idle_buckets"]) if m.get("stall") else "-")
    longs = sorted({p for n in names if "error" not in results[n] for p in results[n].get("long_ports", {})})
    for p in longs:
        def lp(m, p=p):
            return m.get("long_ports", {}).get(p)
        row(f"long port {p}: lossless buffer / peak held (KB)",
            lambda m, lp=lp: (f"{fmt(lp(m)['buffer'] and lp(m)['buffer'] / 1e3, '{:.0f}')}/"
                              f"{lp(m)['peak'] / 1e3:.0f}") if lp(m) else "-")
        row(f"long port {p}: lossless drops / frames upstream",
            lambda m, lp=lp: f"{lp(m)['drops']}/{lp(m)['pfc_tx']}" if lp(m) else "-")
        row(f"long port {p}: mode slots / full pauses / breaches",
            lambda m, lp=lp: (f"{lp(m)['mode_stats'].get('slots', 0)}/{lp(m)['mode_stats'].get('full_pauses', 0)}/"
                              f"{lp(m)['mode_stats'].get('breaches', 0)}") if lp(m) and lp(m)["mode_stats"] else "-")
        row(f"long port {p}: mode max L+F (KB) / slot lateness max (ms)",
            lambda m, lp=lp: (f"{lp(m)['mode_stats'].get('max_lf', 0) / 1e3:.0f}/"
                              f"{lp(m)['mode_stats'].get('max_late', 0) / 1e6:.0f}")
            if lp(m) and lp(m)["mode_stats"] else "-")
    cnames = []
    for n in names:
        for k in results[n].get("classes", {}):
            if k not in cnames:
                cnames.append(k)
    for k in cnames:
        def cl(m, k=k):
            return m.get("classes", {}).get(k)
        c0 = next(results[n]["classes"][k] for n in names if k in results[n].get("classes", {}))
        row(f"class {k} (prio {c0['prio']}): flows complete / generated",
            lambda m, cl=cl: f"{cl(m)['flows_complete']}/{cl(m)['flows']}" if cl(m) else "-")
        row(f"  {k}: FCT p50 / p99 (ms)",
            lambda m, cl=cl: (f"{fmt(cl(m)['fct_p50_ms'], '{:.0f}')}/{fmt(cl(m)['fct_p99_ms'], '{:.0f}')} "
                              f"n={cl(m)['flows_complete']}") if cl(m) else "-")
        row(f"  {k}: FCT mean (ms)", lambda m, cl=cl: fmt(cl(m)["fct_mean_ms"], "{:.0f}") if cl(m) else "-")
        row(f"  {k}: small flows' FCT p50 / p99 (ms)",
            lambda m, cl=cl: (f"{fmt(cl(m)['small_fct_p50_ms'], '{:.0f}')}/{fmt(cl(m)['small_fct_p99_ms'], '{:.0f}')} "
                              f"n={cl(m)['small_n']}") if cl(m) else "-")
        row(f"  {k}: delivered / offered (MB)",
            lambda m, cl=cl: f"{cl(m)['delivered_bytes'] / 1e6:.2f}/{cl(m)['offered_bytes'] / 1e6:.2f}"
            if cl(m) else "-")
        row(f"  {k}: Mbit/s from t0 to its last byte (s)",
            lambda m, cl=cl: f"{fmt(cl(m)['mbit'], '{:.2f}')} ({fmt(cl(m)['last_s'], '{:.1f}')})" if cl(m) else "-")
        row(f"  {k}: long port drops / XOFF / peak (KB)",
            lambda m, cl=cl: (f"{cl(m)['long_port']['drops']}/{cl(m)['long_port']['xoff']}/"
                              f"{cl(m)['long_port']['peak'] / 1e3:.0f}") if cl(m) else "-")
        row(f"  {k}: upstream pause frames / TOKENS frames / blocked",
            lambda m, cl=cl: (f"{cl(m)['upstream']['pause_frames_rx']}/{cl(m)['upstream']['credit_frames']}/"
                              f"{cl(m)['upstream']['credit_blocked']}") if cl(m) and cl(m)["upstream"] else "-")
    row("premise: XOFF responses timed (tc -s)", lambda m: str(m["premise"]["xoff_responses"]))
    row("  slowest XOFF response / sw-delay (ms)",
        lambda m: f"{m['premise']['xoff_max_ms']:.1f}/{m['premise']['sw_delay_ms']:.0f}")
    row("  last XOFF response at the slowest port (ms)",
        lambda m: (f"{m['premise']['xoff_last_ms']:.1f} ({m['premise']['slowest_port']})"
                   if m["premise"]["slowest_port"] else "-"))
    row("  headroom warnings (ports)",
        lambda m: f"{m['premise']['warnings']} ({len(m['premise']['warned_ports'])})")
    row("base RTT (ms, ping, idle)", lambda m: f"{m['base_rtt_ms']:.3f}")
    row("latest timer wake-up, to receivers / hosts (ms)",
        lambda m: f"{m['wake_late_max_ms']['switch']:.0f}/{m['wake_late_max_ms']['hosts']:.0f}")
    row("shaper time lost, to receivers / hosts (ms)",
        lambda m: f"{m['shaper_lost_ms']['switch']:.0f}/{m['shaper_lost_ms']['hosts']:.0f}")
    row("buffer sample period (ms)", lambda m: fmt(m["sample_period_s"] and m["sample_period_s"] * 1e3, "{:.0f}"))
    row("latest sender start after t0 (ms)", lambda m: f"{m['late_start_max_ms']:.0f}")
    row("run time (s)", lambda m: f"{m['elapsed_s']:.0f}")

    w0 = max(len(r[0]) for r in rows)
    ws = [max(len(n), *(len(r[1][i]) for r in rows)) for i, n in enumerate(names)]
    lines = [" " * w0 + "  " + "  ".join(n.rjust(w) for n, w in zip(names, ws))]
    for label, vals in rows:
        lines.append(label.ljust(w0) + "  " + "  ".join(v.rjust(w) for v, w in zip(vals, ws)))
    lines += [f"{n}: failed: {results[n]['error']}" for n in names if "error" in results[n]]
    lines += premise_notes(scn, results)
    return "\n".join(lines)


def premise_notes(scn, results):
    """The headroom covers sw-delay of software response: a run in which a
    port's timer woke up later than that (a host too busy for the VM) did
    not meet the premise, and a lossless drop in it is the machine's, not
    the scheme's. Said per scheme, next to its drops."""
    budget_ms = seconds(scn["network"]["sw-delay"], "network") * 1e3
    out = []
    for n, m in results.items():
        if "error" in m:
            continue
        late = max(m["wake_late_max_ms"].values())
        drops = max(m["drops_lossless_pool"], m["drops_lossless_ingress"])
        pr = m.get("premise")
        if pr and pr["broken_ports"]:
            out.append(f"{n}: the headroom's premise broke on {', '.join(pr['broken_ports'])}: slowest XOFF "
                       f"response {pr['xoff_max_ms']:.1f} ms against sw-delay {pr['sw_delay_ms']:.0f} ms, "
                       f"{pr['warnings']} headroom warnings ({drops} lossless drops)")
        if late > budget_ms:
            out.append(f"{n}: a timer woke {late:.0f} ms late, beyond the sw-delay of {budget_ms:.0f} ms that "
                       f"sizes the headroom: this run did not meet its premise ({drops} lossless drops); "
                       f"run it on a quieter machine or give the scenario more sw-delay")
        # A mode's slot loop sizes its buffer with its own lateness bound
        # (Bifrost's J): a run whose loop ran later did not meet it.
        for p, lp in m.get("long_ports", {}).items():
            ms, o = lp["mode_stats"], m["raw"]["switch"][lp["dev"]].get("options", {}) if "raw" in m else {}
            j = o.get("bifrost_jitter")
            if ms and j and ms.get("max_late", 0) > j:
                out.append(f"{n}: the long port {p}'s slot loop ran {ms['max_late'] / 1e6:.0f} ms late, beyond "
                           f"bifrost-jitter {j / 1e6:.0f} ms that sizes its buffer: this run did not meet "
                           f"its premise ({lp['drops']} lossless drops there)")
    return out


def gp_str(s):
    return "'" + str(s).replace("'", "''") + "'"


def plot(scn, results, png):
    """FCT CDFs per scheme (background and incast flows) and the shared
    buffer over time, with gnuplot (as losslessctl plot draws)."""
    ok = [n for n in results if "error" not in results[n]]
    gp = "set terminal pngcairo size 1200,1200 noenhanced font ',9'\n"
    gp += f"set output {gp_str(png)}\n"
    blocks = {}
    for i, n in enumerate(ok):
        m = results[n]
        for cls in ("background", "incast"):
            fc = sorted(f["fct_ns"] / 1e6 for f in m["flow_list"] if f["class"] == cls and f["complete"])
            if fc:
                b = f"$fct_{cls}_{i}"
                gp += f"{b} << EOD\n" + "".join(f"{x:.4f} {(k + 1) / len(fc):.5f}\n" for k, x in enumerate(fc))
                gp += "EOD\n"
                blocks[(n, cls)] = b
        for k, c in enumerate(m.get("classes", {})):
            fc = sorted(f["fct_ns"] / 1e6 for f in m["flow_list"] if f.get("tclass") == c and f["complete"])
            if fc:
                b = f"$fct_tc{k}_{i}"
                gp += f"{b} << EOD\n" + "".join(f"{x:.4f} {(j + 1) / len(fc):.5f}\n" for j, x in enumerate(fc))
                gp += "EOD\n"
                blocks[(n, "tclass", c)] = b
        if m["samples"]:
            b = f"$buf_{i}"
            gp += f"{b} << EOD\n" + "".join(f"{t:.3f} {s} {h}\n" for t, s, h in m["samples"]) + "EOD\n"
            blocks[(n, "buf")] = b
    net = scn["network"]
    title = (f"compare: {scn['name']} ({net['senders']} senders, {net['receivers']} "
             f"receiver{'s' if net['receivers'] > 1 else ''}, "
             f"{net['rate_mbit']} Mbit/s; schemes {' '.join(ok)})")
    color = {n: k + 1 for k, n in enumerate(ok)}  # one colour per scheme in every panel
    stalled = [n for n in ok if results[n].get("stall")]
    for n in stalled:
        st = results[n]["stall"]
        b = f"$link_{ok.index(n)}"
        gp += f"{b} << EOD\n" + "".join(f"{(k + 0.5) * st['bucket_s']:.3f} {v:.3f}\n"
                                        for k, v in enumerate(st["link_mbit"])) + "EOD\n"
        blocks[(n, "link")] = b
    gp += f"set multiplot layout 3,1 title {gp_str(title)}\nset grid\nset key bottom right\n"
    tclasses = []
    for n in ok:
        for c in results[n].get("classes", {}):
            if c not in tclasses:
                tclasses.append(c)
    for cls in ("background", "incast"):
        if cls == "background" and tclasses:
            # Traffic classes ([[long_link.classes]]): their FCT CDFs, a
            # colour per scheme, a dash type per class.
            series = [(n, c, blocks[(n, "tclass", c)]) for c in tclasses for n in ok if (n, "tclass", c) in blocks]
            gp += ("set title 'FCT CDF per traffic class (colour: scheme; solid, dashed, dotted: classes in order)'\n"
                   "set logscale x\nset xlabel 'FCT (ms)'\nset ylabel 'fraction of flows'\nset yrange [0:1]\n"
                   "set xrange [*:*]\n")
            gp += "plot " + ", \\\n     ".join(
                f"{b} using 1:2 with steps lw 2 dt {tclasses.index(c) + 1} lc {color[n]} "
                f"title {gp_str(n + ' ' + c)}" for n, c, b in series) + "\n" if series else \
                "set label 1 'no flows' at graph 0.5,0.5 center\nplot [1:10] 2 notitle\nunset label 1\n"
            continue
        if cls == "incast" and stalled:
            # A stall scenario's second panel: the stalled receiver's link
            # over time, where an idle spell after a stall shows.
            st = results[stalled[0]]["stall"]
            gp += (f"set title {gp_str('link to ' + st['receiver'] + ', Mbit/s per 100 ms (stalls shaded)')}\n"
                   "unset logscale x\nset xlabel 'time since t0 (s)'\nset ylabel 'Mbit/s'\n"
                   f"set yrange [0:{net['rate_mbit'] * 1.15}]\nset xrange [0:{scn['duration']}]\n")
            for k, (a, e) in enumerate(st["windows"]):
                gp += (f"set object {k + 1} rect from {a},graph 0 to {e},graph 1 "
                       "fc rgb '#e8e8e8' fs solid noborder behind\n")
            gp += "plot " + ", \\\n     ".join(f"{blocks[(n, 'link')]} using 1:2 with lines lw 2 lc {color[n]} "
                                               f"title {gp_str(n)}" for n in stalled) + "\n"
            gp += "unset object\nset xrange [*:*]\n"
            continue
        series = [(n, blocks[(n, cls)]) for n in ok if (n, cls) in blocks]
        gp += (f"set title {gp_str(f'FCT CDF, {cls} flows')}\nset logscale x\nset xlabel 'FCT (ms)'\n"
               "set ylabel 'fraction of flows'\nset yrange [0:1]\nset xrange [*:*]\n")
        if series:
            gp += "plot " + ", \\\n     ".join(f"{b} using 1:2 with steps lw 2 lc {color[n]} title {gp_str(n)}"
                                               for n, b in series) + "\n"
        else:
            gp += (f"set label 1 'no {cls} flows' at graph 0.5,0.5 center\n"
                   "plot [1:10] 2 notitle\nunset label 1\n")  # a line above the y range: an empty frame
    gp += ("unset logscale x\nset title 'Pool buffer used, sampled every "
           f"{scn['report']['sample_ms']} ms (solid: shared, dashed: headroom)'\n"
           "set xlabel 'time since t0 (s)'\nset ylabel 'KiB'\nset yrange [0:*]\nset key top right\n")
    series = [(n, blocks[(n, "buf")]) for n in ok if (n, "buf") in blocks]
    if series:
        parts = []
        for n, b in series:
            parts.append(f"{b} using 1:($2/1024) with lines lw 2 lc {color[n]} title {gp_str(n + ' shared')}")
            parts.append(f"{b} using 1:($3/1024) with lines lw 1 dt 2 lc {color[n]} "
                         f"title {gp_str(n + ' headroom')}")
        gp += "plot " + ", \\\n     ".join(parts) + "\n"
    else:
        gp += "set label 1 'no samples' at graph 0.5,0.5 center\nset yrange [0:1]\nplot [0:1] 2 notitle\n"
    gp += "unset multiplot\n"
    with tempfile.NamedTemporaryFile("w", suffix=".gp", delete=False) as f:
        f.write(gp)
        script = f.name
    if os.path.exists(png):
        os.unlink(png)
    r = subprocess.run(["gnuplot", script], capture_output=True, text=True)
    if r.returncode:
        raise RuntimeError(f"gnuplot failed ({r.returncode}) on {script}, kept: {r.stderr.strip()}")
    os.unlink(script)
    with open(png, "rb") as f:
        if f.read(8) != b"\x89PNG\r\n\x1a\n":
            raise RuntimeError(f"gnuplot wrote no PNG at {png}")


def fabric_text(fab):
    if not fab:
        return "one switch"
    where = lambda xs, c: ", ".join(f"{c}{i}: leaf{k}" for i, k in enumerate(xs))  # noqa: E731
    return (f"a leaf-spine of {fab['leaves']} leaves and {fab['spines']} spines ({where(fab['sender_leaf'], 'h')}; "
            f"{where(fab['receiver_leaf'], 'r')}; to r0.. through spines {fab['receiver_spine']}, to h0.. "
            f"through {fab['sender_spine']})")


def describe(scn):
    net, bg, inc = scn["network"], scn["background"], scn["incast"]
    out = [f"scenario {scn['name']}: {scn['description']}".rstrip(": "),
           f"  {net['senders']} senders -> {net['receivers']} receiver{'s' if net['receivers'] > 1 else ''} "
           f"through {fabric_text(scn['fabric'])}, every link "
           f"{net['rate_mbit']} Mbit/s; switch: {' '.join(switch_qdisc(scn, '<scheme>'))}",
           f"  flows start during {scn['duration']} s, seed {scn['seed']}"]
    if bg:
        per_rx = bg["n"] * bg["load"] / len(bg["receivers"])
        out.append(f"  background: {os.path.basename(bg['cdf_path'])} / {bg['size_scale']}, load {bg['load']} "
                   f"per sender on {bg['n']} senders (~{per_rx:.2f} of the link of each receiver "
                   f"{'r' + ', r'.join(str(j) for j in bg['receivers'])})")
    if inc:
        burst = inc["fanin"] * inc["flows_per_sender"] * inc["size"]
        out.append(f"  incast: {inc['fanin']} senders x {inc['flows_per_sender']} x {inc['size']} B to "
                   f"r{inc['receiver']} every {inc['period']} s{' (Poisson)' if inc['poisson'] else ''} "
                   f"from {inc['start']} s (~{burst * 8 / (net['rate_mbit'] * 1e6) / inc['period']:.2f} "
                   f"of its link)")
    ll, st = scn["long_link"], scn["stall"]
    if ll:
        out.append(f"  long link: senders {', '.join('h' + str(i) for i in ll['senders'])} through {ll['delay']} "
                   f"one way (netem); their uplinks '{ll['pace']}', their switch ports cable-delay "
                   f"{ll['cable-delay']} and each column's port options")
        for c in ll["classes"]:
            what = []
            if c["cdf"]:
                what.append(f"{os.path.basename(c['cdf_path'])} / {c['size_scale']} at load {c['load']}")
            if c["size"]:
                what.append(f"one {c['size']} B flow from {c['start']} s")
            out.append(f"  class {c['name']}: prio {c['prio']}, DSCP {c['dscp']}, from each long sender to "
                       f"r{c['receiver']}: {' and '.join(what)}")
        loads = sum(c["load"] for c in ll["classes"])
        if loads:
            out.append(f"  classes' load per long sender: {loads:.2f} of the link")
    if net["strict_priority"]:
        out.append(f"  strict priority on the senders' uplinks and the switch's ports to the receivers: {STRICT_PRIO}")
    if st:
        out.append(f"  stall: r{st['receiver']} pauses the switch's port to it "
                   f"(prio {','.join(str(p) for p in st['prios'])}) for "
                   f"{st['length']} s every {st['period']} s from {st['start']} s ({len(st['windows'])} stalls)")
    out.append(f"  small flows: <= {scn['report']['small_max']} B")
    if scn.get("sets"):
        out.append(f"  --set {' '.join(scn['sets'])}")
    return "\n".join(out)


def scheme_options(scn, names, overrides):
    """The pool options of each column: given (--scheme-options, the
    scenario's [scheme_options]) or "scheme SCHEME", plus the switch marking
    its host CC needs."""
    opts = {}
    for n in names:
        scheme, cc = split_column(n)
        if n in overrides:
            opts[n] = overrides[n]
        elif n in scn["scheme_options"]:
            opts[n] = scn["scheme_options"][n]
        else:
            opts[n] = scn["scheme_options"].get(scheme, f"scheme {scheme}")
            if cc:
                opts[n] += " " + scn["host_cc"][f"{cc}_marking"]
    return opts


def parse_overrides(items):
    out = {}
    for it in items:
        if "=" not in it:
            raise ScenarioError(f"--scheme-options {it!r}: want NAME=OPTIONS (OPTIONS may be empty)")
        k, v = it.split("=", 1)
        out[k.strip()] = v.strip()
    return out


def run(scenario, schemes, out_dir, overrides=None, hook=None, quiet=False, sets=()):
    """Runs every scheme; writes the JSON and PNG; returns (results, table)."""
    scn = load_scenario(scenario, sets)
    check_columns(scn, schemes)
    opts = scheme_options(scn, schemes, overrides or {})
    print(describe(scn), flush=True)
    results = {}
    for n in schemes:
        popts = scn["port_options"].get(n, "")
        print(f"=== scheme {n}: pool options \"{opts[n]}\"" + (f", long ports \"{popts}\"" if popts else ""),
              flush=True)
        try:
            raw = run_scheme(scn, n, opts[n], hook, popts)
            results[n] = metrics(scn, raw)
            results[n]["raw"] = {k: raw[k] for k in ("sends", "recvs", "switch", "hosts", "rtt_ms")}
            print(f"    {results[n]['flows_complete']}/{results[n]['flows']} flows complete, "
                  f"{results[n]['pfc_tx_total']} PFC frames, built in {raw['build_s']:.0f} s, "
                  f"run {raw['elapsed_s']:.0f} s", flush=True)
        except (RuntimeError, subprocess.TimeoutExpired, OSError, ValueError, KeyError) as e:
            print(f"    scheme {n} failed: {e}", flush=True)
            results[n] = {"scheme": n, "scheme_options": opts[n], "error": str(e)}
    text = table(scn, results)
    print(text, flush=True)
    os.makedirs(out_dir, exist_ok=True)
    base = os.path.join(out_dir, scn["name"])
    with open(base + ".json", "w") as f:
        json.dump({"scenario": scn, "schemes": results, "table": text}, f, indent=1)
    if any("error" not in m for m in results.values()):
        plot(scn, results, base + ".png")
        print(f"wrote {base}.json and {base}.png", flush=True)
    else:
        print(f"wrote {base}.json (no scheme ran: no plot)", flush=True)
    return results, text


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter,
                                 epilog="docs/COMPARE.md has the scenario format and every row.")
    ap.add_argument("--scenario", default="incast-websearch",
                    help="a name in tests/compare/scenarios (without .toml) or a path")
    ap.add_argument("--schemes", default=os.environ.get("SCHEMES", ""),
                    help="schemes to compare, separated by spaces or commas (default: the "
                         "scenario's 'schemes')")
    ap.add_argument("--out", default=os.path.join(Paths.build, "compare"),
                    help="directory for NAME.json and NAME.png (default build/compare)")
    ap.add_argument("--scheme-options", action="append", default=[], metavar="NAME=OPTS",
                    help="pool options for scheme NAME instead of the scenario's (default \"scheme NAME\"); "
                         "also from LL_COMPARE_SCHEME_OPTIONS=\"NAME=OPTS;NAME=OPTS\"")
    ap.add_argument("--set", action="append", default=[], metavar="KEY=VALUE", dest="sets",
                    help="a scenario key for this run, dotted, with a TOML value: network.roce=true, "
                         "incast.fanin=4, fabric.spines=1 (repeatable; also LL_COMPARE_SET=\"K=V;K=V\")")
    ap.add_argument("--fabric", choices=("one-switch", "leaf-spine"), default=os.environ.get("FABRIC") or None,
                    help="run the scenario through a leaf-spine of bridges (two leaves, two spines, the "
                         "[fabric] defaults) instead of one switch, or force one switch; also FABRIC=")
    a = ap.parse_args()
    if a.fabric not in (None, "one-switch", "leaf-spine"):  # from FABRIC=, which argparse does not check
        print(f"run_compare: FABRIC={a.fabric}: want leaf-spine or one-switch", file=sys.stderr)
        return 2
    schemes = [s for s in a.schemes.replace(",", " ").split() if s]
    try:
        env = [x for x in os.environ.get("LL_COMPARE_SCHEME_OPTIONS", "").split(";") if x.strip()]
        overrides = parse_overrides(env + a.scheme_options)
        sets = ([f"fabric={a.fabric}"] if a.fabric else []) + \
            [x for x in os.environ.get("LL_COMPARE_SET", "").split(";") if x.strip()] + a.sets
        scn = load_scenario(a.scenario, sets)
        if not schemes:
            schemes = scn["schemes"]
        if len(set(schemes)) != len(schemes):
            raise ScenarioError(f"--schemes: a scheme given twice: {' '.join(schemes)}")
        check_columns(scn, schemes)
    except ScenarioError as e:
        print(f"run_compare: {e}", file=sys.stderr)
        return 2
    if not os.path.exists("/proc/modules"):
        print("run_compare: this kernel has no module support; run me in the VM (make compare)", file=sys.stderr)
        return 2
    if not os.path.exists(FLOWS):
        print(f"run_compare: {FLOWS} is missing: build first (make)", file=sys.stderr)
        return 2
    ensure_modules()
    results, _ = run(a.scenario, schemes, a.out, overrides, sets=sets)
    return 1 if any("error" in m for m in results.values()) else 0


if __name__ == "__main__":
    sys.exit(main())
