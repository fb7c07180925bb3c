#!/usr/bin/python3
"""ll-traffic send's turns (--slot-ns/--slots/--slot) over loopback (host
test, no root needed).

usage: slots_selftest.py PATH/TO/ll-traffic

- Two senders given slots 0 and 1 of 2 x 40 ms for 1.2 s send only in their
  own slots: each reports active_ns near half the duration, and the kernel
  receive times of each one's packets fall in its own slots only (a packet
  up to 5 ms past its slot's end counts: the last send of a turn).
- Without --slots, active_ns is the whole sending time.
- `recv --spin-us` (busy-polling between datagrams) receives every one and
  sleeps only at the ends; without it the receiver sleeps before nearly
  every datagram: `sleeps` counts it.
- SIGINT ends a long send early, exit 0, with its JSON report.
- Bad usage is refused with exit 2: --slot-ns without --start-ns, --slot
  outside 0..N-1, --slots without --slot-ns.
Exit 0 on success, 1 on a failed check (each printed), 77 if loopback UDP is
unavailable (ctest skips).
"""
import json
import os
import socket
import struct
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from selftest import Checks, free_port, no_loopback_udp  # noqa: E402

MAGIC = 0x4C4C5446  # "LLTF", ll_traffic.cpp's header: magic, flow, seq, send time
SLOT_NS, DURATION = 40_000_000, 1.2


def main():
    tool = sys.argv[1]
    check = Checks()

    if no_loopback_udp():
        return 77
    rx = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    rx.bind(("127.0.0.1", 0))
    rx.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 8 << 20)
    port = rx.getsockname()[1]
    start = time.monotonic_ns() + 300_000_000
    base = [tool, "send", "--dst", "127.0.0.1", "--port", str(port), "--size", "64",
            "--duration", str(DURATION), "--start-ns", str(start), "--slot-ns", str(SLOT_NS), "--slots", "2"]
    # --rate-mbit keeps loopback from flooding the receiver here.
    procs = [subprocess.Popen(base + ["--slot", str(i), "--flow", str(i), "--rate-mbit", "2"],
                              stdout=subprocess.PIPE, text=True) for i in (0, 1)]
    outside, seen = {0: 0, 1: 0}, {0: 0, 1: 0}
    rx.settimeout(0.5)
    while True:
        try:
            data = rx.recv(2048)
        except socket.timeout:
            if all(p.poll() is not None for p in procs):
                break
            continue
        magic, flow, _, sent_ns = struct.unpack_from("<IIQQ", data)
        if magic != MAGIC or flow not in seen:
            continue
        seen[flow] += 1
        # The sender's own monotonic send time: in which slot it fell.
        k = (sent_ns - start) % (2 * SLOT_NS)
        own = flow * SLOT_NS
        if not (own <= k < own + SLOT_NS + 5_000_000):
            outside[flow] += 1
    reps = [json.loads(p.communicate()[0]) for p in procs]
    for i, rep in enumerate(reps):
        half = DURATION / 2 * 1e9
        check(0.8 * half <= rep["active_ns"] <= 1.05 * half, f"slot {i}: active about half the run",
              f"active_ns {rep['active_ns']}, half {half:.0f}")
        check(seen[i] > 50 and outside[i] == 0, f"slot {i}: sends only in its own slots",
              f"{seen[i]} received, {outside[i]} sent outside its slots")

    rep = json.loads(subprocess.run([tool, "send", "--dst", "127.0.0.1", "--port", str(port), "--size", "64",
                                     "--duration", "0.2", "--rate-mbit", "1"],
                                    check=True, capture_output=True, text=True).stdout)
    check(0.19e9 <= rep["active_ns"] <= 0.3e9, "no slots: active_ns is the sending time",
          f"active_ns {rep['active_ns']}")

    # recv --spin-us: busy-polls between datagrams (~0.5 ms apart at
    # 1 Mbit/s) and still gets them all, sleeping only before the first
    # and after the last; a receiver that does not spin sleeps before
    # nearly every one (its sleeps: the wake-ups its sender paid).
    for spin_us in (2000, 0):
        rport = free_port()
        recv = subprocess.Popen([tool, "recv", "--port", str(rport), "--spin-us", str(spin_us),
                                 "--idle-exit", "0.5", "--duration", "20", "--bucket-ms", "0"],
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        recv.stderr.readline()  # bound
        subprocess.run([tool, "send", "--dst", "127.0.0.1", "--port", str(rport), "--size", "64", "--count",
                        "300", "--rate-mbit", "1"], check=True, capture_output=True)
        out, _ = recv.communicate(timeout=30)
        rep = json.loads(out)
        got = rep["flows"].get("0", {}).get("received", 0)
        check(recv.returncode == 0 and got == 300, f"recv --spin-us {spin_us}: every datagram, then the idle exit",
              f"received {got} of 300, exit {recv.returncode}")
        # Without spinning: 257-293 sleeps of 300 on an idle host, 197 with a
        # kernel build beside it (the receiver descheduled finds several
        # datagrams at once); a third still tells it from spinning (<= 10).
        sleeps_ok = rep["sleeps"] <= 10 if spin_us else rep["sleeps"] >= 100
        check(sleeps_ok, f"recv --spin-us {spin_us}: sleeps counted ({'few' if spin_us else 'about one per datagram'})",
              f"sleeps {rep['sleeps']} for 300 datagrams")

    for extra, what in ((["--slot-ns", "1000000", "--slots", "2", "--slot", "0"], "--slot-ns without --start-ns"),
                        (["--slot-ns", "1000000", "--slots", "2", "--slot", "2", "--start-ns", "1"],
                         "--slot outside 0..N-1"),
                        (["--slots", "2", "--slot", "0", "--start-ns", "1"], "--slots without --slot-ns")):
        r = subprocess.run([tool, "send", "--dst", "127.0.0.1", "--port", str(port), "--count", "1"] + extra,
                           capture_output=True, text=True)
        check(r.returncode == 2 and "slot" in r.stderr, f"refused: {what}", r.stderr.strip()[:120])
    # SIGINT ends a long send early, with its report (the soak stops its
    # senders so, tests/vm/test_soak.py).
    p = subprocess.Popen([tool, "send", "--dst", "127.0.0.1", "--port", str(port), "--size", "64",
                          "--rate-mbit", "1", "--duration", "600"], stdout=subprocess.PIPE, text=True)
    time.sleep(0.5)
    p.send_signal(2)
    out, _ = p.communicate(timeout=30)
    rep = json.loads(out) if out.strip() else {}
    took_s = (rep.get("end_ns", 0) - rep.get("start_ns", 0)) / 1e9
    check(p.returncode == 0 and rep.get("sent", 0) > 0 and took_s < 30,
          "SIGINT ends a --duration 600 send early, with its report",
          f"exit {p.returncode}, sent {rep.get('sent')}, {took_s:.2f} s")
    rx.close()
    return check.result("ll-traffic turns")


if __name__ == "__main__":
    sys.exit(main())
