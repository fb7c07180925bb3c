#!/usr/bin/python3
"""README.md's first session, run verbatim as a new user pastes it (VM
test).

The blocks README marks <!-- run: NAME --> (tests/lib/doc_blocks.py) run in
document order in one bash, from the repository's directory, as the VM's
shell starts there: what one block exports or starts in the background, the
next has. Nothing is replaced. The module is unloaded first, since the
first block loads it (run-all.sh loaded it; every test before leaves no
qdisc). Each block's output is kept apart, and every <!-- output: NAME -->
sample must have the shape of what that block printed (numbers aside:
doc_blocks.missing()). Then the effects the text claims:
  - the PFC frame from B was counted by A's ingress program, and A's port
    saw its gate for priority 3 closed (pfc_frames_rx, paused time);
  - A's qdisc dropped nothing while priority 3 was paused (B's receiver
    may drop from its socket on a busy VM: not counted);
  - the switch: losslessctl set alpha applied, losslessd adopted swp1 and
    installed swp2 in pool sw0.
"""

import json
import os
import subprocess
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
import doc_blocks  # noqa: E402
from check import Checks  # noqa: E402
from topology import ROOT, Paths  # noqa: E402

README = os.path.join(ROOT, "README.md")
MARK = "@@ll-readme-block "


def sh(cmd, check=False, timeout=60):
    return subprocess.run(cmd, shell=True, capture_output=True, text=True, timeout=timeout)


def cleanup():
    for ns in ("a", "b", "sw"):
        sh(f"ip netns del {ns}")
    sh("rm -rf /sys/fs/bpf/ns-a /sys/fs/bpf/lossless /run/lossless /tmp/sw.toml /tmp/recv.json /tmp/send.json")


def main():
    c = Checks("readme")
    t0 = time.monotonic()
    bs = doc_blocks.blocks(README)
    runs = [b for b in bs if b.kind == "run"]
    samples = doc_blocks.by_name(bs, "output")
    c.ok(len(runs) >= 8, "README marks its walkthrough's blocks", f"{[b.name for b in runs]}")
    c.ok(set(samples) <= {b.name for b in runs}, "every sample belongs to a block")
    script = "".join(f"echo '{MARK}{b.name}'\n{b.text}" for b in runs)
    r = sh("rmmod sch_lossless")
    c.ok(r.returncode == 0, "the module unloads, for README's insmod", r.stderr.strip())
    cleanup()
    daemon_pid = None
    try:
        out_path = os.path.join(Paths.build, "readme-out.txt")
        with open(out_path, "w") as out:
            # -e: a block's failing command fails the walkthrough.
            r = subprocess.run("bash -e", shell=True, input=script, stdout=out, stderr=subprocess.STDOUT,
                               text=True, cwd=ROOT, timeout=120)
        text = open(out_path).read()
        parts, name = {}, None
        for line in text.splitlines(keepends=True):
            if line.startswith(MARK):
                name = line[len(MARK):].strip()
                parts[name] = ""
            elif name:
                parts[name] += line
        c.ok(r.returncode == 0 and list(parts) == [b.name for b in runs],
             "README's walkthrough runs verbatim, every block",
             f"exit {r.returncode} in block {name}: {parts.get(name, text)[-400:].strip()}" if r.returncode else
             f"{time.monotonic() - t0:.1f} s")
        for n, s in samples.items():
            bad = doc_blocks.missing(s.text, parts.get(n, ""))
            if not c.ok(not bad and s.text.strip() != "...",
                        f"README's sample of '{n}' (line {s.line}) has the shape of what it printed",
                        f"not printed: {bad[:3]}" if bad else ""):
                print("  printed:\n" + "".join(f"    | {x}\n" for x in parts.get(n, "").splitlines()),
                      flush=True)
        # The effects the text claims.
        look = parts.get("look", "")
        q = json.loads(sh("ip netns exec a tc -s -j qdisc show dev a0").stdout or "[{}]")[0]
        c.ok(q.get("pfc_frames_rx", 0) >= 1, "A's port counted B's PFC frame",
             f"pfc_frames_rx {q.get('pfc_frames_rx')}")
        c.ok("paused" in look, "tc shows the paused gate", look[:200].strip())
        c.eq(q.get("drops", 0), 0, "A's port dropped nothing while priority 3 was paused")
        try:
            sent = json.load(open("/tmp/send.json"))["sent"]
        except (OSError, ValueError, KeyError):
            sent = 0
        c.ok(sent > 0, "A sent on priority 3 (ll-traffic's report)", f"sent {sent}")
        c.ok("alpha" in parts.get("switch-look", ""), "losslessctl set alpha answered",
             parts.get("switch-look", "").strip()[-200:])
        st = sh(f"{Paths.ctl} daemon --json")
        try:
            d = json.loads(st.stdout)
            daemon_pid = d["pid"]
            states = {p["dev"]: p["state"] for p in d["ports"]}
        except (ValueError, KeyError):
            states = {}
        c.eq(states, {"swp1": "adopted", "swp2": "installed"},
             "losslessd adopted swp1's qdisc and installed swp2's")
    finally:
        if daemon_pid:
            os.kill(daemon_pid, 15)
            for _ in range(100):
                if not os.path.exists(f"/proc/{daemon_pid}"):
                    break
                time.sleep(0.1)
        cleanup()
    print(f"  readme: {time.monotonic() - t0:.1f} s in all", flush=True)
    c.finish()


if __name__ == "__main__":
    main()
