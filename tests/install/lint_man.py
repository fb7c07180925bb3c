#!/usr/bin/python3
# SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
"""Lint man pages: each renders without a warning.

    tests/install/lint_man.py PAGE|DIR...   (a page: man/*.8, or an installed
                                            *.8.gz; a directory: its *.8)

For each page: `groff -man -Tutf8 -ww -z` (every warning on, no output)
prints nothing on stderr and exits 0, and the page's .TH names it (the file
tc-lossless.8 has `.TH TC\\-LOSSLESS 8`). ctest docs.man_lint runs it on
the directory man/ (tests/install/CMakeLists.txt); test_install.py on the
installed pages, through lint().
"""
import gzip
import os
import re
import shutil
import subprocess
import sys


def lint(path):
    """The problems of one page, as a list of strings (empty: clean)."""
    with open(path, "rb") as f:
        data = f.read()
    if path.endswith(".gz"):
        data = gzip.decompress(data)
    name = os.path.basename(path)
    if name.endswith(".gz"):
        name = name[:-3]
    problems = []
    r = subprocess.run(["groff", "-man", "-Tutf8", "-ww", "-z"], input=data,
                       stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                       env=dict(os.environ, LC_ALL="C.UTF-8"))
    err = r.stderr.decode(errors="replace").strip()
    if r.returncode != 0 or err:
        problems.append(f"groff -man -Tutf8 -ww: exit {r.returncode}: {err}")
    m = re.search(rb"^\.TH\s+(\S+)\s+(\S+)", data, re.M)
    if not m:
        problems.append("no .TH line")
    else:
        title = m.group(1).decode().replace("\\-", "-").strip('"').lower()
        want = f"{title}.{m.group(2).decode()}"
        if want != name:
            problems.append(f".TH names it {want}, not {name}")
    return problems


def main():
    if len(sys.argv) < 2:
        raise SystemExit(f"usage: {sys.argv[0]} PAGE|DIR...")
    if not shutil.which("groff"):
        raise SystemExit("groff not found (Debian package groff-base; scripts/setup.sh installs it)")
    pages = []
    for arg in sys.argv[1:]:
        if os.path.isdir(arg):
            found = sorted(os.path.join(arg, n) for n in os.listdir(arg) if n.endswith(".8"))
            if not found:
                raise SystemExit(f"{arg}: no *.8 page")
            pages += found
        else:
            pages.append(arg)
    bad = 0
    for page in pages:
        problems = lint(page)
        for p in problems:
            print(f"{page}: {p}")
        if problems:
            bad += 1
        else:
            print(f"{page}: ok")
    if bad:
        print(f"{bad} of {len(pages)} pages have warnings")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
