"""Shared helpers of the frame cross-checks (tests/frames)."""

import json
import os
import subprocess
import sys

SKIP = 77  # ctest SKIP_RETURN_CODE
MAC_CTRL_DA = "01:80:c2:00:00:01"


class Checker:
    """Collects mismatches instead of stopping at the first one."""

    def __init__(self, what):
        self.what = what
        self.errors = []
        self.checks = 0

    def eq(self, where, got, want):
        self.checks += 1
        if got != want:
            self.errors.append(f"{where}: got {got!r}, want {want!r}")

    def true(self, where, cond, msg=""):
        self.checks += 1
        if not cond:
            self.errors.append(f"{where}: {msg or 'check failed'}")

    def finish(self):
        for e in self.errors:
            print("MISMATCH", e)
        if self.errors:
            print(f"{self.what}: {len(self.errors)} of {self.checks} checks failed")
            return 1
        print(f"{self.what}: all {self.checks} checks passed")
        return 0


def run(cmd, **kw):
    """Run a command, return stdout; fail loudly with its stderr."""
    p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                       text=True, **kw)
    if p.returncode != 0:
        sys.stderr.write(p.stderr)
        raise SystemExit(f"{cmd[0]} exited with {p.returncode}")
    return p.stdout


def generate(gen, workdir, stem="ours", flags=()):
    """Run ll_frames_gen [flags]; return (pcap path, intended frames)."""
    os.makedirs(workdir, exist_ok=True)
    pcap = os.path.join(workdir, stem + ".pcap")
    intent = os.path.join(workdir, stem + ".json")
    run([gen, *flags, pcap, intent])
    with open(intent) as f:
        frames = json.load(f)["frames"]
    if not frames:
        raise SystemExit("generator wrote no frames")
    return pcap, frames


def parse_with_ours(parser, pcap=None, hex_lines=None, port_addr=None):
    """Run ll_frames_parse on a pcap or on hex lines; list of dicts.
    port_addr: the receiving port's address (its --port-addr)."""
    cmd = [parser] + (["--port-addr", port_addr] if port_addr else [])
    if pcap is not None:
        out = run(cmd + [pcap])
    else:
        out = run(cmd + ["--hex"], input="".join(l + "\n" for l in hex_lines))
    return [json.loads(l) for l in out.splitlines() if l.strip()]


def expected_parse(intent):
    """What ll_mac_ctrl_parse must report for an intended frame."""
    if not intent["valid"]:
        return None
    if intent["kind"] == "pfc":
        return {"result": "ok", "kind": "pfc", "src": intent["src"],
                "enable_vector": intent["enable_vector"],
                "quanta": intent["times"]}
    return {"result": "ok", "kind": "pause", "src": intent["src"],
            "enable_vector": 0, "quanta": [intent["pause_time"]] + [0] * 7}


def compare_parse(chk, where, got, want):
    for key, val in want.items():
        chk.eq(f"{where} {key}", got.get(key), val)
    if want["result"] != "ok":
        chk.true(where, "kind" not in got, "rejected frame printed fields")


def tshark_fields(tshark, pcap, fields, extra=()):
    """Rows of tshark's -T fields output for fields (every occurrence,
    joined by |), one dict per frame; extra: arguments such as a Lua
    dissector's -X lua_script:PATH."""
    cmd = [tshark, "-n", *extra, "-r", pcap, "-T", "fields", "-E", "separator=\t",
           "-E", "occurrence=a", "-E", "aggregator=|"]
    for f in fields:
        cmd += ["-e", f]
    rows = []
    for line in run(cmd).splitlines():
        vals = line.split("\t")
        if len(vals) != len(fields):
            raise SystemExit(f"tshark row has {len(vals)} fields: {line!r}")
        rows.append(dict(zip(fields, vals)))
    return rows


def tshark_matching(tshark, pcap, display_filter, extra=()):
    """1-based frame numbers matching a display filter."""
    out = run([tshark, "-n", *extra, "-r", pcap, "-Y", display_filter, "-T", "fields",
               "-e", "frame.number"])
    return sorted(int(x) for x in out.split())


def hexint(text):
    """A tshark hex field as an int; None when the field is absent."""
    try:
        return int(text, 16)
    except ValueError:
        return None
