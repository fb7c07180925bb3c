#!/usr/bin/python3
# SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
"""Every losslessd configuration the documentation shows passes
`losslessd --check`.

The files: docs/examples/*.toml; every fenced ```toml block of README.md
and docs/*.md; every shell here-document that writes a *.toml file in
README.md and docs/*.md (`cat > X.toml <<'EOT'`); every block of a man page
(man/*.8) between the marker line `.\\" losslessd.toml` and the `.fi` that
ends its `.nf`. Each runs in a private network namespace with a veth for
each port it names (10 Gbit/s, the speed a port without `rate` takes), a
private bpffs at /sys/fs/bpf and a private /run, as an admin's host would
have them: --check computes each port's headroom against its pool's buffer
as the kernel does, so a documented file that the kernel would refuse fails
here.

Fails loudly when a source has no file at all (a marker or fence renamed).
Root only (netns, bpffs); exits 77 (skipped) otherwise.

usage: test_doc_configs.py SOURCE_DIR LOSSLESSD [--list]
"""

import glob
import os
import re
import subprocess
import sys
import tempfile
import tomllib

SKIP = 77
MAN_MARKER = '.\\" losslessd.toml'


def fenced_toml(text):
    """```toml blocks of a markdown file: (line, text)."""
    out = []
    for m in re.finditer(r"^```toml\n(.*?)^```", text, re.M | re.S):
        out.append((text.count("\n", 0, m.start()) + 1, m.group(1)))
    return out


def heredoc_toml(text):
    """Here-documents written to a *.toml file: (line, text), dedented."""
    out = []
    pat = r"^([ \t]*)cat > \S+\.toml <<'?(\w+)'?\n(.*?)^[ \t]*\2$"
    for m in re.finditer(pat, text, re.M | re.S):
        indent = m.group(1)
        lines = [ln[len(indent):] if ln.startswith(indent) else ln
                 for ln in m.group(3).splitlines()]
        out.append((text.count("\n", 0, m.start()) + 1, "\n".join(lines) + "\n"))
    return out


def roff_unescape(line):
    return line.replace("\\-", "-").replace("\\e", "\\").replace("\\(dq", '"')


def man_toml(text):
    """Man page blocks after MAN_MARKER, from its .nf to the .fi: (line, text)."""
    out = []
    lines = text.splitlines()
    i = 0
    while i < len(lines):
        if lines[i].strip() != MAN_MARKER:
            i += 1
            continue
        start = i + 1
        j = start
        while j < len(lines) and lines[j].strip() != ".nf":
            j += 1
        body = []
        j += 1
        while j < len(lines) and lines[j].strip() != ".fi":
            body.append(roff_unescape(lines[j]))
            j += 1
        if j >= len(lines):
            raise SystemExit(f"FAIL: a {MAN_MARKER} block at line {start} has no .nf ... .fi")
        out.append((start, "\n".join(body) + "\n"))
        i = j
    return out


def collect(src):
    """(name, text) of every documented configuration; fails if a kind has none."""
    files = []
    examples = sorted(glob.glob(f"{src}/docs/examples/*.toml"))
    for path in examples:
        files.append((os.path.relpath(path, src), open(path).read()))
    md_blocks = []
    for path in [f"{src}/README.md"] + sorted(glob.glob(f"{src}/docs/*.md")):
        text = open(path).read()
        for line, body in fenced_toml(text) + heredoc_toml(text):
            md_blocks.append((f"{os.path.relpath(path, src)}:{line}", body))
    man_blocks = []
    for path in sorted(glob.glob(f"{src}/man/*.8")):
        for line, body in man_toml(open(path).read()):
            man_blocks.append((f"{os.path.relpath(path, src)}:{line}", body))
    for kind, got in (("docs/examples/*.toml", examples),
                      ("```toml blocks or .toml here-documents in README.md and docs/*.md",
                       md_blocks),
                      (f"man page blocks marked {MAN_MARKER}", man_blocks)):
        if not got:
            raise SystemExit(f"FAIL: no {kind} found: the extraction is broken")
    return files + md_blocks + man_blocks


def devices(cfg):
    """Every device name the configuration names."""
    devs = [p["dev"] for p in cfg.get("port", [])]
    for table in ("host_cc", "portfc"):
        devs += cfg.get(table, {}).get("ports", [])
    return list(dict.fromkeys(devs))


def check_in_private_netns(losslessd, conf, devs):
    """losslessd --config conf --check in a private netns with devs as
    veths, and a private bpffs and /run (--check looks at both: the pin
    directory, the lock beside the socket); the CompletedProcess."""
    script = "\n".join([
        "set -e",
        "mount --make-rprivate /",
        "mount -t bpf bpf /sys/fs/bpf",
        "mount -t tmpfs tmpfs /run",
        "ip link set lo up",
        *[f"ip link add {d} type veth peer name llp{i}" for i, d in enumerate(devs)],
        f"exec {losslessd} --config {conf} --check",
    ])
    return subprocess.run(["unshare", "-mn", "sh", "-c", script], capture_output=True, text=True)


def check(name, text, losslessd, tmp):
    try:
        cfg = tomllib.loads(text)
    except tomllib.TOMLDecodeError as e:
        return f"{name}: not TOML: {e}"
    devs = devices(cfg)
    conf = os.path.join(tmp, "losslessd.toml")
    with open(conf, "w") as f:
        f.write(text)
    r = check_in_private_netns(losslessd, conf, devs)
    if r.returncode != 0:
        return f"{name}: losslessd --check exits {r.returncode}: {r.stderr.strip()}"
    print(f"ok: {name}: {r.stdout.strip()}")
    return None


def main():
    if len(sys.argv) < 3:
        print(__doc__)
        return 2
    src, losslessd = sys.argv[1], sys.argv[2]
    files = collect(src)
    if "--list" in sys.argv[3:]:
        for name, text in files:
            print(f"== {name}\n{text}")
        return 0
    if os.geteuid() != 0:
        print("SKIP: needs root (netns and bpffs for losslessd --check)")
        return SKIP
    failures = []
    with tempfile.TemporaryDirectory() as tmp:
        for name, text in files:
            err = check(name, text, losslessd, tmp)
            if err:
                failures.append(err)
    for f in failures:
        print(f"FAIL: {f}")
    print(f"{len(files) - len(failures)} of {len(files)} documented configurations pass --check")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
