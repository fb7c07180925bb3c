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
           (base.replace('"1mb"\n', '"1mb"\nsw-delay = "soon"\n') + "[incast]\nfanin = 1\nsize = 1\nperiod = 1\n",
            "network.sw-delay: want a time"),
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
    # [[long_link.classes]], strict_priority and a stall of several priorities.
    ll = '[long_link]\nsenders = [0]\ndelay = "5ms"\n'
    cls = '[[long_link.classes]]\nname = "high"\nprio = 5\ncdf = "WebSearch"\nload = 0.2\n'
    inc1 = "[incast]\nfanin = 1\nsize = 1\nperiod = 1\n"
    bad += [(base.replace('"1mb"\n', '"1mb"\nstrict_priority = 1\n') + inc1, "network.strict_priority: want true"),
            (base + ll + cls + "bogus = 1\n", "[long_link.classes[0]]: unknown key 'bogus'"),
            (base + ll + '[[long_link.classes]]\nprio = 5\nsize = 1000\n', "long_link.classes[0].name: required"),
            (base + ll + cls.replace("prio = 5", "prio = 8"), "long_link.classes[0] (high).prio: want a priority 0..7"),
            (base + ll + cls + "dscp = 64\n", "(high).dscp: want an integer 0..63"),
            (base + ll + cls.replace('cdf = "WebSearch"\n', ""), "(high): cdf and load go together"),
            (base + ll + cls.replace("load = 0.2", "load = 1.5"), "(high).load: want a fraction"),
            (base + ll + '[[long_link.classes]]\nname = "x"\nprio = 5\n', "(x): no traffic"),
            (base + ll + cls.replace('"WebSearch"', '"Nope"'), "(high).cdf: no file 'Nope'"),
            (base + ll + cls + "receiver = 1\n", "(high).receiver: want 0..0"),
            (base + ll + cls + "start = 5\n", "(high).start: want seconds in [0, duration)"),
            (base + ll + cls + cls.replace('"high"', '"mid"'), "(mid).prio: priority 5 is class high's too"),
            (base + ll + cls + cls.replace("prio = 5", "prio = 4"), "(high).name: given twice"),
            (base + ll.replace("[long_link]\n", "[long_link]\nclasses = 3\n"), "long_link.classes: want"),
            (base + inc1 + "[stall]\nstart = 1\nperiod = 2\nlength = 1\nprio = [3, 3]\n",
             "stall.prio: want a priority 0..7 or a list of distinct ones"),
            (base + inc1 + "[stall]\nstart = 1\nperiod = 2\nlength = 1\nprio = [9]\n", "stall.prio: want")]
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
          bll["long_link"]["cable-delay"] == "250ms",
          "bifrost-long-link: stall windows within the run, cable-delay from the link's delay",
          f"{bll['stall']['windows']}")
    check(all(n in bll["scheme_options"] for n in bll["schemes"]) and "mode bifrost" in bll["port_options"]["bifrost"],
          "bifrost-long-link: every column's pool options given, Bifrost on the long port")
    check(bll["stall"]["prios"] == [3] and bll["long_link"]["classes"] == [] and
          not bll["network"]["strict_priority"], "bifrost-long-link: a stall of network.prio, no classes, FIFO")

    # Three priorities on the long link (bifrostx-three-prios): the classes
    # with their defaults, the stall of all three, strict priority, one
    # ll-flows process per class with its priority, DSCP and sender id.
    b3 = rc.load_scenario("bifrostx-three-prios")
    cl3 = b3["long_link"]["classes"]
    check([(c["name"], c["prio"], c["dscp"]) for c in cl3] == [("high", 5, 40), ("middle", 4, 32), ("low", 3, 24)]
          and sum(c["load"] for c in cl3) > 1 and b3["stall"]["prios"] == [3, 4, 5] and
          b3["network"]["strict_priority"] and b3["background"] is None and b3["incast"] is None,
          "bifrostx-three-prios: three classes (DSCP 8 x prio), loads above the link, a stall of all three",
          f"{[(c['name'], c['prio'], c['dscp'], c['load']) for c in cl3]}")
    same = [n for n in b3["schemes"] if n != "pfc-same-buffer"]
    check("bifrost-frame tokens" in b3["port_options"]["bifrostx"] and
          "bifrost-frame" not in b3["port_options"]["bifrost"] and b3["schemes"][0] == "pfc-lossless" and
          len({b3["scheme_options"][n] for n in same}) == 1,
          "bifrostx-three-prios: PFC, Bifrost and BifrostX columns with the same pool options")
    # PFC with the same buffer: H / 3 per priority, threshold + reserve +
    # headroom (the scenario's comment), 926,518 B for the three.
    psb = b3["port_options"].get("pfc-same-buffer", "")
    thr = int(b3["scheme_options"].get("pfc-same-buffer", "0").split()[-1])
    hr = int(psb.split()[-1]) if psb.startswith("headroom ") else 0
    check(abs(3 * (thr + 1518 + hr) - 926518) <= 3, "bifrostx-three-prios: pfc-same-buffer's three priorities hold one H",
          f"3 x ({thr} + 1518 + {hr}) = {3 * (thr + 1518 + hr)}")
    cmds = rc.sender_cmds(b3, 0, 123, [], "10.0.0.1", ["10.0.0.1"])
    want = [("1000", "5", "40", "0.18"), ("2000", "4", "32", "0.27"), ("3000", "3", "24", "0.65")]
    got = [tuple(re.search(f"--{k} (\\S+)", c).group(1) for k in ("sender", "prio", "dscp", "load")) for c in cmds]
    check(got == want and all("--dst 10.0.0.1" in c for c in cmds),
          "sender_cmds: one ll-flows per class, its sender id, priority, DSCP and load", f"{got}")
    check(rc.class_of_sender(b3, 2000)["name"] == "middle" and rc.class_of_sender(b3, 0) is None and
          rc.class_of_sender(b3, 4000) is None and rc.class_of_sender(b3, 1001) is None,
          "class_of_sender: sender ids back to classes, others none")
    cmds = rc.sender_cmds(bll, 0, 123, ["10.0.0.1"], "10.0.0.1", ["10.0.0.1"])
    check(len(cmds) == 1 and "--sender 0 " in cmds[0], "sender_cmds: no class, one process as before", f"{cmds}")
    sized = copy.deepcopy(b3)
    sized["long_link"]["classes"][0].update(cdf="", load=0, size=5000, start=0.5)
    c0 = rc.sender_cmds(sized, 0, 123, [], "10.0.0.1", ["10.0.0.1"])[0]
    check("--incast-size 5000 --incast-at 0.5 --incast-dst 10.0.0.1" in c0 and "--cdf" not in c0,
          "sender_cmds: a class's long flow (size) as one burst at its start", c0)
    cs = rc.class_stats("class lossless 1:1 parent 1: \n  mode strict quantum 1514 limit 64 gates 7\n"
                        "  paused no pause_frames_rx 3 paused_time 1ms\n"
                        "class lossless 1:3 parent 1: \n  mode strict quantum 1514 limit 64 gates 5\n"
                        "  paused no pause_frames_rx 7 paused_time 2ms\n"
                        "  credit metered left 100b frames 40 granted 90000b blocked 12\n")
    check(cs == {0: {"pause_frames_rx": 3, "credit_frames": 0, "credit_granted": 0, "credit_blocked": 0},
                 2: {"pause_frames_rx": 7, "credit_frames": 40, "credit_granted": 90000, "credit_blocked": 12}},
          "class_stats: pause frames and BifrostX credit per queue from tc -s class", f"{cs}")

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

    def port(pfc, xoff, paused_ns, peak, slowest_ms=0, warnings=0):
        iq = [{"drops": 0, "xoff_frames": 0, "xon_frames": 0, "paused_time": 0, "peak_headroom": 0,
               "headroom_size": 0} for _ in range(8)]
        iq[3] = {"lossless": True, "drops": 1, "xoff_frames": xoff, "xon_frames": xoff, "paused_time": paused_ns,
                 "peak_headroom": peak, "headroom_size": 90000}
        return {"options": {"sw_delay": 60 * MS}, "xoff_responses": xoff, "xoff_response_max_ns": slowest_ms * MS,
                "xoff_response_last_ns": slowest_ms * MS // 2, "headroom_warnings": warnings,
                "pfc_frames_tx": pfc, "drops": 1, "pool_drops_lossless": 2, "pool_drops_lossy": 0,
                "pool_total_bytes": 10 ** 6, "pool_shared_size": 700000, "pool_peak_shared": 123000,
                "pool_headroom_size": 270000, "pool_peak_headroom": 45000, "ingress": iq,
                "wake_late_max": 7 * MS, "shaper_lost": 0}
    switch = {"if0": port(0, 0, 0, 0), "if1": port(10, 5, 300 * MS, 40000, 70, 1),
              "if2": port(4, 2, 100 * MS, 5000, 12)}
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

    # The same run through a leaf-spine: ports keyed SWITCH:DEV, a pool per
    # switch (its drops counted once per pool, summed), the ports between
    # switches summed apart, each pool's peaks.
    fsw = {"leaf1:if0": port(0, 0, 0, 0), "leaf0:if1": port(10, 5, 300 * MS, 40000),
           "leaf1:if1": port(4, 2, 100 * MS, 5000), "leaf0:if2": port(6, 3, 200 * MS, 1000),
           "spine0:if0": port(2, 1, 50 * MS, 1000)}
    fsw["spine0:if0"]["pool_peak_shared"] = 456000
    fsamples = [dict(x, backlog={"leaf1:if0": x["backlog"]["if0"]}) for x in samples]
    fraw = dict(raw, switch=fsw, samples=fsamples, bottleneck_ports={"r0": "leaf1:if0"},
                ports={"leaf1:if0": "r0", "leaf0:if1": "h0", "leaf1:if1": "h1", "leaf0:if2": "spine0@leaf0",
                       "spine0:if0": "leaf0@spine0"},
                pools={"leaf0": "leaf0:if1", "leaf1": "leaf1:if0", "spine0": "spine0:if0"})
    fm = rc.metrics(scn, fraw)
    check(fm["drops_lossless_pool"] == 6 and fm["pool_peak_shared"] == 456000 and
          fm["pools"]["spine0"]["pool_peak_shared"] == 456000 and fm["pools"]["leaf0"]["pool_peak_shared"] == 123000,
          "fabric: a pool's drops once per switch, summed; the highest pool's peak and each pool's",
          f"{fm['drops_lossless_pool']}, {fm.get('pools')}")
    check(fm["fabric"] == {"pfc_tx": 8, "xoff": 4, "paused_s": 0.25, "paused_ports": 2} and fm["pfc_tx_total"] == 22,
          "fabric: PFC and pauses between switches apart from the hosts' ports", f"{fm['fabric']}")
    check(abs(fm["utilisation"]["r0"]["window"] - 0.25) < 1e-9, "fabric: the receiver's port found by its key")
    ftext = rc.table(scn, {"dt": fm})
    check("between switches: PFC frames / XOFF / paused (s)" in ftext and "spine0: peak shared" in ftext and
          "PFC sent by port to spine0@leaf0" in ftext, "fabric: the table's rows between switches and per pool")
    fl = rc.load_scenario("pcn-victim", ["fabric=leaf-spine", "fabric.spines=1", "incast.fanin=4"])
    check(fl["name"] == "pcn-victim-leaf-spine" and fl["fabric"]["spines"] == 1 and fl["incast"]["fanin"] == 4 and
          fl["fabric"]["sender_leaf"] == [0, 1, 0, 1, 0, 1] and fl["fabric"]["receiver_leaf"] == [1, 1],
          "--set and --fabric: keys for one run, [fabric]'s defaults (senders round robin, receivers on the "
          "last leaf)", f"{fl['fabric']}")
    for sets, want in ((["fabric.leaves=1"], "fabric.leaves: want 2..8"),
                       (["fabric.receiver_spine=[0, 2]"], "fabric.receiver_spine: want a list of 2 indices 0..1"),
                       (["network.senders"], "want KEY=VALUE"),
                       (["fabric=leaf-spine", "network.strict_priority=true"], "strict_priority and [fabric]"),
                       (["fabric=leaf-spine", "long_link.senders=[0]", "long_link.delay=\"1ms\""],
                        "[long_link] and [fabric] together")):
        try:
            rc.load_scenario("pcn-victim", sets)
            got = "accepted"
        except rc.ScenarioError as e:
            got = str(e)
        check(want in got, f"--set {' '.join(sets)}: refused ({want})", got)

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

    # Traffic classes on a long link: flows by sender id to their class
    # (and out of the background rows), FCT, bytes and the per-priority
    # counters of the long port and of the upstream's queue 7 - prio.
    scn_c = copy.deepcopy(scn_ll)
    scn_c["network"]["strict_priority"] = True
    scn_c["long_link"] = {"senders": [0], "delay": "5ms", "classes": [
        dict(rc.CLASS_SCHEMA, name="high", prio=5, dscp=40, cdf="x", load=0.2),
        dict(rc.CLASS_SCHEMA, name="low", prio=3, dscp=24, cdf="x", load=0.9)]}
    fl = lambda n, size, at: {"flow": n, "class": "background", "size": size, "start_ns": t0 + at * MS,  # noqa: E731
                              "dst": "10.0.0.1", "sent": size}
    sends_c = [dict(send, sender=0, datagrams=76, flows=flows0),
               dict(send, sender=1000, datagrams=8, flows=[fl(0, 2000, 0), fl(1, 4000, 10), fl(2, 1000, 20)]),
               dict(send, sender=2000, datagrams=30, flows=[fl(0, 30000, 0)])]
    rfl = [{"sender": 1000, "flow": 0, "complete": True, "fct_ns": 10 * MS, "bytes": 2000, "last_ns": t0 + 10 * MS},
           {"sender": 1000, "flow": 1, "complete": True, "fct_ns": 30 * MS, "bytes": 4000, "last_ns": t0 + 40 * MS},
           {"sender": 1000, "flow": 2, "complete": True, "fct_ns": 20 * MS, "bytes": 1000, "last_ns": t0 + 40 * MS},
           {"sender": 2000, "flow": 0, "complete": False, "fct_ns": -1, "bytes": 25000, "last_ns": t0 + 2000 * MS}]
    recv_c = dict(recv_ll, flows=rflows + rfl,
                  senders={"0": {"datagrams": 76}, "1000": {"datagrams": 8}, "2000": {"datagrams": 25}})
    sw_c = copy.deepcopy(sw_ll)
    sw_c["if1"]["ingress"][5] = dict(sw_c["if1"]["ingress"][3], drops=0, xoff_frames=4, peak_bytes=60000)
    up = {"h0": {2: {"pause_frames_rx": 9, "credit_frames": 80, "credit_granted": 10 ** 6, "credit_blocked": 5},
                 4: {"pause_frames_rx": 9, "credit_frames": 80, "credit_granted": 10 ** 5, "credit_blocked": 50}}}
    raw_c = dict(raw_ll, sends=sends_c, recvs=[recv_c], switch=sw_c, long_ports={"if1": "h0"}, upstream_classes=up)
    m_c = rc.metrics(scn_c, raw_c)
    hi, lo = m_c["classes"]["high"], m_c["classes"]["low"]
    check((hi["flows"], hi["flows_complete"], hi["fct_p50_ms"], hi["fct_p99_ms"], hi["fct_mean_ms"]) ==
          (3, 3, 20, 30, 20) and (lo["flows"], lo["flows_complete"], lo["fct_p50_ms"]) == (1, 0, None),
          "classes: each class's flows by sender id, FCT percentiles and mean", f"{hi}")
    check((hi["offered_bytes"], hi["delivered_bytes"], lo["delivered_bytes"]) == (7000, 7000, 25000) and
          abs(lo["mbit"] - 25000 * 8 / 2.0 / 1e6) < 1e-9 and abs(hi["last_s"] - 0.04) < 1e-9,
          "classes: bytes offered and delivered, Mbit/s from t0 to the class's last byte", f"{lo}")
    check(hi["long_port"]["xoff"] == 4 and hi["long_port"]["peak"] == 60000 and lo["long_port"]["drops"] == 1 and
          hi["upstream"]["credit_blocked"] == 5 and lo["upstream"]["credit_blocked"] == 50,
          "classes: the priority's counters at the long port, the upstream's queue 7 - prio", f"{hi['upstream']}")
    check(m_c["fct"]["background/large"]["n"] == 1 and m_c["fct"]["background/small"]["n"] == 1,
          "classes: their flows stay out of the background rows", f"{sorted(m_c['fct'])}")
    c_text = rc.table(scn_c, {"x": dict(m_c, raw={"switch": sw_c})})
    c_rows = {re.split(r"\s{2,}", ln.strip())[0]: re.split(r"\s{2,}", ln.strip())[1:] for ln in c_text.splitlines()[1:]}
    check(c_rows.get("class high (prio 5): flows complete / generated") == ["3/3"] and
          c_rows.get("high: FCT p50 / p99 (ms)") == ["20/30 n=3"] and
          c_rows.get("low: delivered / offered (MB)") == ["0.03/0.03"] and
          c_rows.get("high: long port drops / XOFF / peak (KB)") == ["0/4/60"] and
          c_rows.get("low: upstream pause frames / TOKENS frames / blocked") == ["9/80/50"],
          "the table: per-class rows", f"{sum(1 for k in c_rows if 'high' in k or 'low' in k)} rows")
    png_c = os.path.join(tmp, "c.png")
    rc.plot(scn_c, {"x": m_c, "y": m_c}, png_c)
    with open(png_c, "rb") as f:
        check(f.read(8) == b"\x89PNG\r\n\x1a\n", "the plot with classes: a PNG", f"{os.path.getsize(png_c)} B")

    results = {"dt": m, "st": {"scheme": "st", "scheme_options": "scheme st", "error": "tc refused it"}}
    text = rc.table(scn, results)
    rows = {}
    for line in text.splitlines()[1:]:
        cells = re.split(r"\s{2,}", line.strip())
        rows[cells[0]] = cells[1:]
    check(rows.get("PFC frames sent, total (tc -s)") == ["14", "(failed)"] and
          rows.get("PFC sent by port to h0") == ["10", "(failed)"], "the table: PFC rows, a failed scheme marked",
          f"{rows.get('PFC frames sent, total (tc -s)')}")
    pr = m["premise"]
    check((pr["xoff_responses"], pr["xoff_max_ms"], pr["xoff_last_ms"], pr["slowest_port"], pr["warnings"],
           pr["broken_ports"]) == (7, 70.0, 35.0, "h0", 1, ["h0"]) and m["ports"]["h1"]["premise"]["broken"] is False,
          "the premise: XOFF responses summed, the slowest port's last and slowest, warnings, broken ports",
          f"{pr}")
    check(rows.get("slowest XOFF response / sw-delay (ms)") == ["70.0/60", "(failed)"] and
          rows.get("headroom warnings (ports)") == ["1 (1)", "(failed)"] and
          "dt: the headroom's premise broke on h0: slowest XOFF response 70.0 ms against sw-delay 60 ms" in text,
          "the table: the premise's rows, and a note where it broke", f"{rows.get('  slowest XOFF response / sw-delay (ms)')}")
    check("st: failed: tc refused it" in text, "the table: why a scheme failed")
    check(rows.get("lossless drops, pool (tc -s)") == ["2", "(failed)"], "the table: lossless drops")
    png = os.path.join(tmp, "t.png")
    rc.plot(scn, results, png)
    with open(png, "rb") as f:
        check(f.read(8) == b"\x89PNG\r\n\x1a\n", "the plot: a PNG", f"{os.path.getsize(png)} B")

    # Columns with the hosts' congestion control (SCHEME+CC).
    pv = rc.load_scenario("pcn-victim")
    opts = rc.scheme_options(pv, ["dt", "dt+pcn", "dt+dcqcn", "spfc+pcn"], {})
    check(opts["dt"] == "scheme dt" and opts["dt+pcn"] == "scheme dt ecn off ecn-mode np-ecn np-ecn-k 10kb" and
          opts["dt+dcqcn"].startswith("scheme dt ecn ") and
          opts["spfc+pcn"] == "scheme spfc spfc-window 100ms spfc-k 3 ecn off ecn-mode np-ecn np-ecn-k 10kb",
          "scheme_options: SCHEME+CC is the scheme's options and the CC's switch marking", f"{opts}")
    c0 = rc.sender_cmds(pv, 0, 123, ["10.0.0.2"], "10.0.0.1", ["10.0.0.1", "10.0.0.2"])
    check(all("--port 4791" in c and c.endswith("--roce") for c in c0) and rc.data_classes(pv) == [4],
          "network.roce: RoCEv2 on UDP 4791 from every sender; fq goes on class 1:4", f"{c0}")
    for cols, want in ((["dt+tcp"], "'tcp' unknown"),
                       (["dt+pcn"], "acts on RoCEv2 only")):
        try:
            rc.check_columns(rc.load_scenario("spfc-victim") if want.startswith("acts") else pv, cols)
            check(False, f"column {cols[0]} refused", "accepted")
        except rc.ScenarioError as e:
            check(want in str(e), f"column {cols[0]} refused: \"{want}\"", str(e))

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
