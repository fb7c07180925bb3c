#!/usr/bin/python3
# SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
"""The user-facing docs cite nothing a user does not have.

    tests/install/check_doc_citations.py SOURCE_DIR

The engineering specs (spfc.md, dsh.md, pcn.md, bifrost.md, portfc.md,
dcqcn.md) and the ../shared directory are not shipped: README.md,
docs/*.md and man/*.8 cite the papers (title, section, equation) or the
project's own docs instead. Prints each hit as FILE:LINE: TEXT and exits
1 if there is any; ctest docs.citations (tests/install/CMakeLists.txt).
"""
import glob
import os
import re
import sys

PATTERNS = [
    # a spec by its file name, with or without a section or an equation
    re.compile(r"\b(spfc|dsh|pcn|bifrost|portfc|dcqcn)\.md"
               r"( (section |§)?[0-9A-Z][0-9.]*| Eq\. ?[0-9]+)?"),
    # the shared directory the specs live in
    re.compile(r"\.\./shared"),
    # "(spec 4.10)", "spec X1's", "spec S-07": a spec by a number
    re.compile(r"\(spec\b|\bspec (section |§)?[A-Z]?-?[0-9]"),
]

# Text quoted verbatim from the programs' output that may name a spec
# (none today: the daemon's PortFC refusal cites docs/PORTFC.md).
ALLOWED = []


def main():
    src = sys.argv[1] if len(sys.argv) > 1 else "."
    files = sorted(glob.glob(os.path.join(src, "docs", "*.md")))
    files += [os.path.join(src, "README.md")]
    files += sorted(glob.glob(os.path.join(src, "man", "*.8")))
    hits = 0
    for path in files:
        if not os.path.exists(path):
            continue
        with open(path, encoding="utf-8", errors="replace") as f:
            for n, line in enumerate(f, 1):
                text = line
                for a in ALLOWED:
                    text = text.replace(a, "")
                for p in PATTERNS:
                    m = p.search(text)
                    if m:
                        rel = os.path.relpath(path, src)
                        print(f"{rel}:{n}: {m.group(0)!r}: {line.strip()}")
                        hits += 1
                        break
    if hits:
        print(f"{hits} line(s) cite an unshipped spec: cite the paper "
              "(title, its own section) or the project's doc instead",
              file=sys.stderr)
        return 1
    print(f"{len(files)} files: no citation of an unshipped spec")
    return 0


if __name__ == "__main__":
    sys.exit(main())
