#!/usr/bin/python3
"""Netlink fuzzing of the lossless qdisc in the kernel (VM test; `make
netlink-fuzz` runs it long).

usage: test_netlink_fuzz.py [--messages N] [--seed S]

A 3-port switch whose ports share pool "fz" carries lossless and lossy
traffic (h0, h1 -> r) throughout. A seeded generator sends N RTM_NEWQDISC
and RTM_DELQDISC messages through raw netlink, the attributes taken from
kernel/uapi/lossless.h itself (every enum whose first member is
TCA_LOSSLESS_*_UNSPEC, with the type its comment names), built four ways:

  - mutated: the port's valid options with one attribute dropped, given a
    boundary or random value, or a random attribute added;
  - random: 1-8 attributes of any type (unknown ones too), values typed,
    boundary or random bytes of any length, nests to depth 3;
  - truncated: a valid encoding cut at a random byte (lengths left as they
    were: attributes that run past their nest);
  - oversized: an attribute of 1-8 KiB.

Each goes to a pool member as a change (whose options are dumped before and
after), to a spare port as a create-or-replace, or deletes the spare's
qdisc. It checks that:

  - every refusal carries an extack message;
  - a refused change leaves the member's options exactly as they were
    (the pool-wide ones included), and a refused create leaves the spare
    port's root qdisc as it was;
  - the kernel logs no report (run-all.sh's check, and this test's own
    for a run outside it).

An accepted change is undone with the member's valid options, so the pool
keeps running. Prints the counts by outcome and the slowest request.
"""

import argparse
import json
import os
import random
import struct
import subprocess
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
from check import Checks  # noqa: E402
from nltc import (NLA_F_NESTED, NLM_F_CREATE, NLM_F_REPLACE, NLM_F_REQUEST,  # noqa: E402
                  RTM_DELQDISC, RTM_NEWQDISC, TCA_LOSSLESS as A, Rtnl, attr, ifindex, nest,
                  netns, u8, u32, u64, uapi_enums)
from topology import Paths, Topology, announce, ensure_modules, host_pair_via  # noqa: E402

MBIT = 20
POOL = "pool fz buffer 2mb lossless-prios 3 sw-delay 60ms"
BOUNDARY = [0, 1, 2, 3, 7, 8, 15, 16, 63, 64, 255, 256, 1500, 65535, 65536, 2**31 - 1, 2**31,
            2**32 - 1, 2**32, 2**63, 2**64 - 1]
REPORTS = ("BUG:", "WARNING:", "Oops", "Call Trace", "UBSAN", "KASAN", "KFENCE",
           "circular locking", "sleeping function called")


class Gen:
    """Attributes from the uapi's enums, typed by their comments."""

    def __init__(self, rng):
        self.rng = rng
        self.enums = uapi_enums()
        self.top = self.enums["TCA_LOSSLESS_"]

    def value(self, note):
        r = self.rng
        kind = note.split(":")[0].strip()
        if r.random() < 0.1:     # any bytes, any length
            return bytes(r.getrandbits(8) for _ in range(r.choice([0, 1, 2, 3, 5, 7, 9, 16, 17, 33])))
        v = r.choice(BOUNDARY) if r.random() < 0.6 else r.getrandbits(64)
        if kind == "u8":
            return u8(v & 0xFF)
        if kind == "u32":
            return u32(v & 0xFFFFFFFF)
        if kind == "u64":
            return u64(v)
        if kind == "u8[16]":
            return bytes(r.getrandbits(8) % 20 for _ in range(r.choice([16, 16, 15, 17, 0])))
        if kind == "u32[queues]":
            return b"".join(u32(r.choice(BOUNDARY) & 0xFFFFFFFF) for _ in range(r.randint(0, 65)))
        if kind == "string":
            return r.choice([b"fz\0", b"other\0", b"\0", b"fz", b"x" * 40 + b"\0", b""])
        return u64(v)

    def one(self, entries, depth):
        """A random attribute of the enum (or an unknown type)."""
        r = self.rng
        if r.random() < 0.05:
            return attr(r.choice([len(entries), len(entries) + 1, 0x3FFF, 0]), self.value("u64"))
        t, _, note = r.choice(entries)
        if note.startswith("nested"):
            sub = note.split()[1].rstrip("*")
            if sub in self.enums and depth < 3:
                kids = [self.one(self.enums[sub], depth + 1) for _ in range(r.randint(0, 4))]
                return nest(t, *kids) if r.random() < 0.9 else attr(t, b"".join(kids))
        a = attr(t, self.value(note))
        return a if r.random() < 0.95 else struct.pack("=HH", 4 + len(a), t | NLA_F_NESTED) + a[4:]

    def random(self):
        return [self.one(self.top, 0) for _ in range(self.rng.randint(1, 8))]

    def mutate(self, valid):
        r, out = self.rng, list(valid)
        how = r.randrange(3)
        if how == 0 and out:
            out.pop(r.randrange(len(out)))
        elif how == 1 and out:
            i = r.randrange(len(out))
            t = struct.unpack_from("=H", out[i], 2)[0] & 0x3FFF
            note = next((n for v, _, n in self.top if v == t), "u64")
            out[i] = attr(t, self.value(note))
        else:
            out.insert(r.randrange(len(out) + 1), self.one(self.top, 0))
        return out

    def truncated(self, valid):
        raw = b"".join(self.mutate(valid) if self.rng.random() < 0.5 else valid)
        return [raw[:self.rng.randrange(len(raw) + 1)]]

    def oversized(self):
        t, _, _ = self.rng.choice(self.top)
        return [attr(t, bytes(self.rng.getrandbits(8) for _ in range(self.rng.randint(1024, 8192))))]


def valid_options(mbit):
    """A pool member's options, as tc would send them."""
    return [attr(A["rate"], u64(mbit * 1_000_000)), attr(A["pool"], b"fz\0"),
            attr(A["buffer"], u64(2 << 20)), attr(A["lossless_prios"], u8(1 << 3)),
            attr(A["sw_delay"], u64(60_000_000))]


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--messages", type=int, default=int(os.environ.get("LL_NLFUZZ_MESSAGES", "4000")))
    ap.add_argument("--seed", type=int, default=int(os.environ.get("LL_NLFUZZ_SEED", "1")))
    a = ap.parse_args()
    c = Checks("netlink_fuzz")
    ensure_modules()    # for make netlink-fuzz, outside run-all.sh
    rng = random.Random(a.seed)
    gen = Gen(rng)
    kmsg_mark = f"test_netlink_fuzz: seed {a.seed} {time.monotonic_ns()}"
    with open("/dev/kmsg", "w") as f:
        f.write(kmsg_mark + "\n")
    with Topology("nf") as t:
        sw, h0, h1, r = t.switch("sw"), t.host("h0"), t.host("h1"), t.host("r")
        _, r_ip, l0, lr = host_pair_via(t, sw, h0, r)
        l1 = t.link(h1, sw)
        h1.run(f"ip addr flush dev {l1['a_if']}")
        h1.run(f"ip addr add {r_ip.rsplit('.', 1)[0]}.4/24 dev {l1['a_if']}")
        h1.run(f"ip neigh replace {r_ip} lladdr {lr['a_mac']} dev {l1['a_if']} nud permanent")
        members = [l0["b_if"], l1["b_if"], lr["b_if"]]
        for dev in members:
            sw.run(f"tc qdisc add dev {dev} root handle 1: lossless rate {MBIT}mbit {POOL}")
        spare = t.link(t.host("sp"), sw)["b_if"]
        announce([h0, h1, r])
        rx = r.popen(f"{Paths.traffic} recv --port 5000 --idle-exit 30 --duration 3600")
        r.wait_udp(5000)
        send_s = 3600
        tx = [h0.popen(f"{Paths.traffic} send --dst {r_ip} --port 5000 --flow 1 --prio 3 --dscp 24 "
                       f"--size 1000 --rate-mbit 8 --duration {send_s}"),
              h1.popen(f"{Paths.traffic} send --dst {r_ip} --port 5000 --flow 2 --prio 0 --dscp 0 "
                       f"--size 1000 --rate-mbit 8 --duration {send_s}")]
        count = {"accepted": 0, "refused": 0, "deleted": 0}
        silent, changed, undo, slow = [], [], [], (0.0, None)
        ways = {"mutated": 0, "random": 0, "truncated": 0, "oversized": 0}
        start = time.monotonic()
        with netns(sw.ns):
            nl = Rtnl()
            idx = {d: ifindex(d) for d in members + [spare]}
            for i in range(a.messages):
                way = rng.choices(list(ways), [45, 35, 15, 5])[0]
                ways[way] += 1
                valid = valid_options(MBIT)
                opts = {"mutated": lambda: gen.mutate(valid), "random": gen.random,
                        "truncated": lambda: gen.truncated(valid), "oversized": gen.oversized}[way]()
                target = rng.choices(["member", "spare", "delete"], [70, 25, 5])[0]
                dev = rng.choice(members) if target == "member" else spare
                before = nl.qdisc(idx[dev])
                t0 = time.monotonic()
                if target == "delete":
                    err, msg = nl.request(RTM_DELQDISC, NLM_F_REQUEST, idx[dev])
                elif target == "member":
                    err, msg = nl.request(RTM_NEWQDISC, NLM_F_REQUEST, idx[dev], kind="lossless", options=opts)
                else:
                    flags = NLM_F_REQUEST | rng.choice([NLM_F_CREATE, NLM_F_CREATE | NLM_F_REPLACE])
                    err, msg = nl.request(RTM_NEWQDISC, flags, idx[dev], kind="lossless", options=opts)
                dt = time.monotonic() - t0
                if (i + 1) % 5000 == 0:
                    print(f"  {i + 1} messages, {time.monotonic() - start:.0f} s: {count}", flush=True)
                if dt > slow[0]:
                    slow = (dt, f"{way} {target}")
                if target == "delete":
                    count["deleted" if not err else "refused"] += 1
                    continue
                after = nl.qdisc(idx[dev])
                if err:
                    count["refused"] += 1
                    if not msg:
                        silent.append((i, way, target, err, b"".join(opts)[:48].hex()))
                    key = (lambda d: (d or {}).get("kind"), lambda d: (d or {}).get("options"))
                    if any(k(before) != k(after) for k in key):
                        changed.append((i, way, target, err, msg))
                else:
                    count["accepted"] += 1
                    if target == "member":
                        e2, m2 = nl.request(RTM_NEWQDISC, NLM_F_REQUEST, idx[dev], kind="lossless",
                                            options=valid)
                        if e2:
                            # A pool-wide value the port cannot take back
                            # alone (bytes in use): printed, not a failure.
                            undo.append((i, way, e2, m2))
            nl.close()
        took = time.monotonic() - start
        for p in tx:
            p.kill()
            p.communicate()
        rx.kill()
        rx.communicate()
        st = json.loads(sw.run(f"tc -s -j qdisc show dev {members[0]}"))[0]
    n = sum(count.values())
    print(f"  {n} messages in {took:.1f} s ({n / max(took, 1e-9):.0f}/s), seed {a.seed}: {count}; "
          f"ways {ways}; slowest {slow[0] * 1e3:.1f} ms ({slow[1]})", flush=True)
    print(f"  the pool after: lossless drops {st.get('pool_drops_lossless')}, "
          f"lossy drops {st.get('pool_drops_lossy')}", flush=True)
    for s in silent[:10]:
        print(f"    refused without a message: #{s[0]} {s[1]} {s[2]} errno {s[3]} options {s[4]}")
    for s in undo[:5]:
        print(f"    an accepted change not undone: #{s[0]} {s[1]} errno {s[2]} '{s[3]}'")
    for s in changed[:10]:
        print(f"    state changed on refusal: #{s[0]} {s[1]} {s[2]} errno {s[3]} '{s[4]}'")
    c.eq(n, a.messages, "every message answered")
    c.ok(count["refused"] > n // 4 and count["accepted"] > 0, "the generator reaches both outcomes",
         f"{count['refused']} refused, {count['accepted']} accepted")
    c.eq(len(silent), 0, "every refusal carries an extack message")
    c.eq(len(changed), 0, "a refusal leaves the options as they were")
    log = subprocess.run(["dmesg"], text=True, capture_output=True).stdout.splitlines()
    mark = max((i for i, x in enumerate(log) if kmsg_mark in x), default=-1)
    bad = [x for x in log[mark + 1:] if any(k in x for k in REPORTS)]
    print("\n".join(f"    kernel: {x}" for x in bad[:10]))
    c.eq(len(bad), 0, "the kernel logged no report")
    c.finish()


if __name__ == "__main__":
    main()
