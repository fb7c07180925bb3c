#!/usr/bin/python3
"""The comparison runner's host-side parts (ctest label tools; no VM).

usage: offline_selftest.py

- every scenario in tests/compare/scenarios loads, with its defaults
  filled in; bad files fail with a message that names the key;
- metrics() on a made-up run: flows matched to the senders' schedules,
  FCT percentiles and slowdowns per class, drops, PFC and pause time per
  port from the tc -s JSON, utilisation only over buckets whose port was
  provably busy;
- the table carries those numbers and marks a failed scheme; the PNG is
  written (gnuplot);
- run_compare.py exits 2 with a message on a bad scenario or option.
Exit 0 on success, 1 on a failed check (each printed).
"""
import copy
import os
import re
import shutil
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import run_compare as rc  # noqa: E402

MS = 1_000_000


def main():
    failed = []

    def check(cond, what, detail=""):
        print(f"  [{'ok  ' if cond else 'FAIL'}] {what}" + (f"  ({detail})" if detail else ""), flush=True)
        if not cond:
            failed.append(what)

    names = sorted(f[:-5] for f in os.listdir(rc.SCENARIOS) if f.endswith(".toml"))
    for n in names:
        try:
            s = rc.load_scenario(n)
            rc.describe(s)
            ok = os.path.exists(s["background"]["cdf_path"]) if s["background"] else True
            check(ok and s["incast"] is None or s["incast"]["start"] != rc.AUTO,
                  f"scenario {n} loads", f"{s['network']['senders']} senders, {s['duration']} s")
        except rc.ScenarioError as e:
            check(False, f"scenario {n} loads", str(e))
    check("incast-websearch" in names and "smoke" in names, "incast-websearch and smoke exist", " ".join(names))

    tmp = tempfile.mkdtemp(prefix="ll-compare-test-")
    base = 'duration = 5\n[network]\nsenders = 2\nrate_mbit = 20\nbuffer = "1mb"\n'
    bad = [("x = 1\n" + base, "top level: unknown key 'x'"),
           (base + "foo = 1\n", "[network]: unknown key 'foo'"),
           ('duration = 5\n[network]\nsenders = 2\nrate_mbit = 20\n', "network.buffer: required"),
           (base, "no traffic"),
           (base + '[background]\ncdf = "Nope"\nload = 0.1\n', "background.cdf: no file"),
           (base + "[incast]\nfanin = 3\nsize = 1000\nperiod = 1\n", "incast.fanin: want 1..2"),
           (base.replace('"1mb"\n', '"1mb"\nsw_delay = "soon"\n') + "[incast]\nfanin = 1\nsize = 1\nperiod = 1\n",
            "network.sw_delay: want a time"),
           (base + '[background]\ncdf = "WebSearch"\nload = 0.1\nreceivers = [1]\n', "background.receivers: want"),
           (base + "[incast]\nfanin = 1\nsize = 1\nperiod = 1\nprio = 16\n", "incast.prio: want an integer 0..15"),
           ('schemes = "dt"\n' + base + "[incast]\nfanin = 1\nsize = 1\nperiod = 1\n",
            "schemes: want a list of scheme names"),
           ("duration = [\n", "Invalid value"),
           (base + "[incast]\nfanin = 1\nsize = 1\nperiod = 1\n[long_link]\nsenders = [2]\ndelay = \"5ms\"\n",
            "long_link.senders: want a list of 0..1"),
           (base + "[incast]\nfanin = 1\nsize = 1\nperiod = 1\n[long_link]\nsenders = [0]\ndelay = \"far\"\n",
            "long_link.delay: want a time"),
           (base + "[incast]\nfanin = 1\nsize = 1\nperiod = 1\n[port_options]\nx = \"mode bifrost\"\n",
            "port_options without [long_link]"),
           (base + "[incast]\nfanin = 1\nsize = 1\nperiod = 1\n[stall]\nstart = 1\nperiod = 1\nlength = 1\n",
            "stall.length: want less than stall.period"),
           (base + "[incast]\nfanin = 1\nsize = 1\nperiod = 1\n[stall]\nperiod = 2\nlength = 1\n",
            "stall.start: required")]
    for i, (text, want) in enumerate(bad):
        path = os.path.join(tmp, f"bad{i}.toml")
        with open(path, "w") as f:
            f.write(text)
        try:
            rc.load_scenario(path)
            check(False, f"bad scenario {i} refused", "accepted")
        except rc.ScenarioError as e:
            check(want in str(e) and path in str(e), f"bad scenario {i} refused: \"{want}\"", str(e))
    good = os.path.join(tmp, "good.toml")
    with open(good, "w") as f:
        f.write(base + "[incast]\nfanin = 1\nsize = 1\nperiod = 1\n")
    check(rc.load_scenario(good)["schemes"] == ["dt"], "a scenario without 'schemes' compares dt alone",
          str(rc.load_scenario(good)["schemes"]))
    # The baseline first: dt, or on a long link PFC (scheme st, so that its
    # threshold and headroom split the same buffer a mode gets).
    listed = {n: rc.load_scenario(n)["schemes"] for n in names}
    check(all(s[0] == "dt" or (rc.load_scenario(n)["long_link"] and s[0].startswith("pfc"))
              for n, s in listed.items()), "every shipped scenario compares against its baseline first",
          str(listed))
    bll = rc.load_scenario("bifrost-long-link")
    check(bll["stall"]["windows"][:2] == [(2.0, 3.0), (6.0, 7.0)] and len(bll["stall"]["windows"]) == 7 and
          bll["long_link"]["cable_delay"] == "250ms",
          "bifrost-long-link: stall windows within the run, cable-delay from the link's delay",
          f"{bll['stall']['windows']}")
    check(all(n in bll["scheme_options"] for n in bll["schemes"]) and "mode bifrost" in bll["port_options"]["bifrost"],
          "bifrost-long-link: every column's pool options given, Bifrost on the long port")

    # A made-up run: 2 senders, 1 receiver r0 on switch port if0.
    scn = rc.load_scenario("smoke")
    scn = copy.deepcopy(scn)
    scn["network"].update(senders=2, receivers=1, rate_mbit=8)  # 1 MB/s: 100 KB per 100 ms bucket
    scn["duration"] = 1
    t0 = 10_000 * MS
    flows0 = [{"flow": 0, "class": "background", "size": 1000, "start_ns": t0, "dst": "10.0.0.1", "sent": 1000},
              {"flow": 1, "class": "background", "size": 50000, "start_ns": t0 + 100 * MS, "dst": "10.0.0.1",
               "sent": 50000},
              {"flow": 2, "class": "incast", "size": 20000, "start_ns": t0 + 200 * MS, "dst": "10.0.0.1",
               "sent": 20000}]
    flows1 = [{"flow": 0, "class": "incast", "size": 20000, "start_ns": t0 + 200 * MS, "dst": "10.0.0.1",
               "sent": 20000},
              {"flow": 1, "class": "background", "size": 3000, "start_ns": t0 + 300 * MS, "dst": "10.0.0.1",
               "sent": 3000}]
    send = {"header_bytes": 56, "abandoned": False, "late_ns": 0, "enobufs": 3}
    sends = [dict(send, sender=0, datagrams=76, flows=flows0), dict(send, sender=1, datagrams=26, flows=flows1)]
    fct = {(0, 0): 2, (0, 1): 80, (0, 2): 60, (1, 0): 70}  # ms; (1, 1) never completes
    rflows = [{"sender": s, "flow": f, "complete": True, "fct_ns": v * MS} for (s, f), v in fct.items()]
    rflows.append({"sender": 1, "flow": 1, "complete": False, "fct_ns": -1})
    recv = {"flows": rflows, "senders": {"0": {"datagrams": 76}, "1": {"datagrams": 24}}, "missing": 2,
            "socket_drops": 0, "bucket_ns": 100 * MS, "bucket_wire_bytes": [100000, 50000, 100000, 0]}

    def port(pfc, xoff, paused_ns, peak):
        iq = [{"drops": 0, "xoff_frames": 0, "xon_frames": 0, "paused_time": 0, "peak_headroom": 0,
               "headroom_size": 0} for _ in range(8)]
        iq[3] = {"drops": 1, "xoff_frames": xoff, "xon_frames": xoff, "paused_time": paused_ns,
                 "peak_headroom": peak, "headroom_size": 90000}
        return {"pfc_frames_tx": pfc, "drops": 1, "pool_drops_lossless": 2, "pool_drops_lossy": 0,
                "pool_total_bytes": 10 ** 6, "pool_shared_size": 700000, "pool_peak_shared": 123000,
                "pool_headroom_size": 270000, "pool_peak_headroom": 45000, "ingress": iq,
                "wake_late_max": 7 * MS, "shaper_lost": 0}
    switch = {"if0": port(0, 0, 0, 0), "if1": port(10, 5, 300 * MS, 40000), "if2": port(4, 2, 100 * MS, 5000)}
    hosts = {"h0": {"wake_late_max": 9 * MS, "shaper_lost": MS}, "h1": {"wake_late_max": 3 * MS, "shaper_lost": 0}}
    # Samples every 100 ms from t0 - 50 ms. The port to r0 holds 120 KB,
    # more than the 100 KB it drains in a period, at the samples around
    # bucket 0 only: 50 KB at t0 + 150 ms may have drained before t0 + 250.
    backlog = [120000, 120000, 50000, 120000, 0, 0]
    samples = [{"t_ns": t0 - 50 * MS + k * 100 * MS, "read_ns": 2 * MS, "shared": 1000 * k, "headroom": 0,
                "backlog": {"if0": b}} for k, b in enumerate(backlog)]
    raw = {"scheme": "dt", "scheme_options": "scheme dt", "qdisc": "lossless ...", "t0_ns": t0,
           "base_rtt_ns": MS, "sends": sends, "recvs": [recv], "switch": switch, "hosts": hosts,
           "ports": {"if0": "r0", "if1": "h0", "if2": "h1"}, "samples": samples,
           "receivers": [("r0", "10.0.0.1")], "bottleneck_ports": {"r0": "if0"}, "cpu_backlog_drops": 0,
           "drained": True, "backlog_need": 5000, "netdev_max_backlog": 5000, "elapsed_s": 12.3}
    m = rc.metrics(scn, raw)
    check((m["flows"], m["flows_complete"]) == (5, 4), "flows: 5 generated, 4 complete",
          f"{m['flows_complete']}/{m['flows']}")
    check(m["datagrams_lost"] == 2 and m["datagrams_missing_seq"] == 2, "datagrams lost: sent - received",
          f"{m['datagrams_lost']}")
    check((m["drops_lossless_pool"], m["drops_lossless_ingress"], m["switch_qdisc_drops"]) == (2, 3, 3),
          "drops: the pool's count once, ingress and qdisc drops summed over ports")
    check((m["pfc_tx_total"], m["xoff_total"]) == (14, 7) and m["ports"]["h0"]["pfc_tx"] == 10 and
          abs(m["paused_s_total"] - 0.4) < 1e-9 and abs(m["ports"]["h1"]["paused_s"] - 0.1) < 1e-9,
          "PFC frames and pause time per port and in total", f"{m['pfc_tx_total']}, {m['paused_s_total']} s")
    # Ideal of the 50000 B flow: 50000 + 53 datagrams x 98 B = 55194 B at
    # 1 MB/s = 55.194 ms, + 1 ms RTT.
    bl = m["fct"]["background/large"]
    check(bl["n"] == 1 and abs(bl["slowdown_p50"] - 80 / 56.194) < 1e-6, "slowdown = FCT / (wire bytes at line rate "
          "+ base RTT)", f"{bl['slowdown_p50']:.4f}")
    check(sorted(m["fct"]) == ["background/all", "background/large", "background/small", "incast/large"],
          "classes: incast/background x small/large, \"all\" only where both sizes are",
          " ".join(sorted(m["fct"])))
    il = m["fct"]["incast/large"]
    check((il["n"], il["fct_p50_ms"], il["fct_p99_ms"]) == (2, 60, 70), "nearest-rank percentiles",
          f"{il}")
    u = m["utilisation"]["r0"]
    check(u["backlogged_buckets"] == 1 and abs(u["backlogged"] - 1.0) < 1e-9,
          "utilisation while backlogged: only the bucket whose port could not run empty",
          f"n {u['backlogged_buckets']}, {u['backlogged']}")
    check(abs(u["window"] - 0.25) < 1e-9, "utilisation over the window: 250 KB in 10 buckets of 100 KB",
          f"{u['window']}")
    check(m["wake_late_max_ms"] == {"switch": 7, "hosts": 9} and m["shaper_lost_ms"]["hosts"] == 1,
          "timer lateness: the ports to the receivers and the uplinks")

    # A long link and a stall: the stalled receiver's use outside the
    # stall buckets, from the first that carried data; the long port's
    # buffer (a mode's H, or reserve + st threshold + headroom) and peak.
    scn_ll = copy.deepcopy(scn)
    scn_ll["stall"] = {"receiver": 0, "windows": [(0.2, 0.3)]}
    recv_ll = dict(recv, bucket_wire_bytes=[0, 100000, 0, 40000, 100000, 100000, 100000, 100000, 100000, 100000])
    sw_ll = copy.deepcopy(switch)
    sw_ll["if1"]["options"] = {"scheme": "st", "st_threshold": 100000, "reserved": 1500}
    sw_ll["if1"]["ingress"][3]["peak_bytes"] = 150000
    sw_ll["if2"]["mode_stats"] = {"mode": "bifrost", "slots": 10, "max_queue": 7000, "max_late": 9 * MS}
    sw_ll["if2"]["options"] = {"bifrost_jitter": 5 * MS}
    raw_ll = dict(raw, recvs=[recv_ll], switch=sw_ll, long_ports={"if1": "h0", "if2": "h1"}, stalls_sent=[])
    m_ll = rc.metrics(scn_ll, raw_ll)
    st = m_ll["stall"]
    check(st["buckets"] == 8 and st["idle_buckets"] == 1 and abs(st["utilisation"] - 0.925) < 1e-9,
          "stall: utilisation outside the stall buckets from the first with data (740 KB in 8 x 100 KB)",
          f"{st}")
    lp = m_ll["long_ports"]
    check(lp["h0"]["buffer"] == 1500 + 100000 + 90000 and lp["h0"]["peak"] == 150000 and
          lp["h1"]["buffer"] == 90000 and lp["h1"]["peak"] == 7000 and lp["h1"]["mode_stats"]["slots"] == 10,
          "long ports: PFC's reserve + threshold + headroom, a mode's H and max L", f"{lp}")
    ll_text = rc.table(scn_ll, {"x": dict(m_ll, raw={"switch": sw_ll})})
    check("utilisation to the stalled receiver outside stalls" in ll_text and "92.5% n=8" in ll_text and
          "long port h1: mode slots / full pauses / breaches" in ll_text and
          "slot loop ran 9 ms late, beyond bifrost-jitter 5 ms" in ll_text,
          "the table: stall, long-port and mode rows, and the lateness premise", ll_text[-400:])

    results = {"dt": m, "st": {"scheme": "st", "scheme_options": "scheme st", "error": "tc refused it"}}
    text = rc.table(scn, results)
    rows = {}
    for line in text.splitlines()[1:]:
        cells = re.split(r"\s{2,}", line.strip())
        rows[cells[0]] = cells[1:]
    check(rows.get("PFC frames sent, total (tc -s)") == ["14", "(failed)"] and
          rows.get("PFC sent by port to h0") == ["10", "(failed)"], "the table: PFC rows, a failed scheme marked",
          f"{rows.get('PFC frames sent, total (tc -s)')}")
    check(text.rstrip().endswith("st: failed: tc refused it"), "the table: why a scheme failed")
    check(rows.get("lossless drops, pool (tc -s)") == ["2", "(failed)"], "the table: lossless drops")
    png = os.path.join(tmp, "t.png")
    rc.plot(scn, results, png)
    with open(png, "rb") as f:
        check(f.read(8) == b"\x89PNG\r\n\x1a\n", "the plot: a PNG", f"{os.path.getsize(png)} B")

    script = os.path.join(HERE, "run_compare.py")
    for args, want in ((["--scenario", "nope"], "no scenario 'nope'"),
                       (["--scheme-options", "x"], "want NAME=OPTIONS"),
                       (["--schemes", "dt dt"], "given twice")):
        r = subprocess.run([sys.executable, script] + args, capture_output=True, text=True, timeout=60)
        check(r.returncode == 2 and want in r.stderr, f"run_compare.py {' '.join(args)}: exit 2, \"{want}\"",
              f"exit {r.returncode}: {r.stderr.strip()}")
    shutil.rmtree(tmp, ignore_errors=True)
    print("compare runner: " + ("FAIL" if failed else "PASS"))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
