#!/usr/bin/python3
# SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
"""The user-facing docs cite nothing a user does not have.

    tests/install/check_doc_citations.py SOURCE_DIR
    tests/install/check_doc_citations.py --files FILE...
    tests/install/check_doc_citations.py --every-line-hits FILE

The last form is the checker's own test: it passes only if every
non-blank line of FILE is a hit (tests/install/doc_citations_bad.md,
the kinds of text this check was written against).

The engineering specs (spfc.md, dsh.md, pcn.md, bifrost.md, portfc.md,
dcqcn.md) and the ../shared directory are not shipped: README.md,
docs/*.md and man/*.8 cite the papers (title, section, figure,
algorithm) or the project's own docs instead, and state a rule or a
number themselves rather than point at "the spec". Three kinds of hit:

- a spec by its file name, by "(spec 4.10)", "spec X1" or a bare
  "(3.8)", or the shared directory or its DESIGN.md and ANCHORS.md;
- "the spec", "spec's", "specs" (the engineering spec as a noun;
  "specific", "TC_ACT_UNSPEC" are not hits);
- a spec-style identifier (INV-8, S-04, SU5, X1, P4, C20, Q8, HQ, ...)
  that the same file does not define. A file defines an identifier (or
  a range such as U1-U8, `SU1`..`SU18`) in bold (**INV-2**), at the
  start of a list item (- P1: ...), in a table row's first cell, in a
  heading, or as a parenthesised name with its meaning (queue 0 (HQ,
  the high-priority queue)).

Prints each hit as FILE:LINE: TEXT and exits 1 if there is any; ctest
docs.citations (tests/install/CMakeLists.txt).
"""
import glob
import os
import re
import sys

PATTERNS = [
    # a spec by its file name, with or without a section or an equation
    re.compile(r"\b(spfc|dsh|pcn|bifrost|portfc|dcqcn)\.md"
               r"( (section |§)?[0-9A-Z][0-9.]*| Eq\. ?[0-9]+)?"),
    # the shared directory the specs live in, and its other files
    re.compile(r"\.\./shared|\b(ANCHORS|DESIGN)\.md"),
    # "(spec 4.10)", "spec X1's", "spec S-07": a spec by a number
    re.compile(r"\(spec\b|\bspec (section |§)?[A-Z]?-?[0-9]"),
    # "(3.8)", "(4.10 below)": a spec's section by its bare number (the papers'
    # sections are roman, "Section IV-E")
    re.compile(r"\([2-9]\.[0-9]{1,2}(\)| below| above|'s)"),
    # "the spec", "the spec's", "our spec", "specs": the spec as a noun
    re.compile(r"(?i)\b(the|our|this|its|a|engineering) spec\b"
               r"|\bspec's\b|\bspecs\b"),
]

# Identifiers in the specs' style: invariants, scenario and test IDs,
# claim and resolution numbers, the spec's queue names. Not: MAC
# addresses (01-80-C2-...), names with an underscore (S0_0), Q-format.
IDENT = re.compile(r"(?<![-\w.])(INV-\d+|[SB]-U?\d+|SU\d+|[ABCEPQRSUX]\d{1,2}|HQ)"
                   r"(?![-\w]|\.\d)")
NOT_IDENT = re.compile(r"(fixed point|-bit) Q\d+")
RANGE = re.compile(r"`?([A-Z]+-?)(\d+)`?\s*(?:-|\.\.|to)\s*`?(?:\1)?(\d+)`?")

# Text quoted verbatim from the programs' output that may name a spec
# (none today: the daemon's PortFC refusal cites docs/PORTFC.md).
ALLOWED = []


def defined_ids(lines):
    """The identifiers a file defines, with ranges expanded."""
    sites = []
    for line in lines:
        s = line.rstrip("\n")
        if s.startswith("#"):
            sites.append(s)
        elif s.startswith("|"):
            sites.append(s.split("|")[1])
        else:
            m = re.match(r"\s*[-*]\s+(\**`?[A-Z][-\w`.]*\**)", s)
            if m:
                sites.append(m.group(1))
            sites += re.findall(r"\*\*([^*]+)\*\*", s)
            sites += re.findall(r"\(([A-Z][-\w]*), ", s)
    ids = set()
    for site in sites:
        for m in RANGE.finditer(site):
            lo, hi = int(m.group(2)), int(m.group(3))
            if lo < hi <= lo + 40:
                ids.update(f"{m.group(1)}{i}" for i in range(lo, hi + 1))
        ids.update(IDENT.findall(site))
    return ids


def check(path, rel):
    with open(path, encoding="utf-8", errors="replace") as f:
        return check_lines(f.readlines(), rel)


def check_lines(lines, rel):
    defined = defined_ids(lines)
    hits = 0
    for n, line in enumerate(lines, 1):
        text = line
        for a in ALLOWED:
            text = text.replace(a, "")
        what = None
        for p in PATTERNS:
            m = p.search(text)
            if m:
                what = m.group(0)
                break
        if what is None:
            undefined = [i for i in IDENT.findall(NOT_IDENT.sub("", text))
                         if i not in defined]
            if undefined:
                what = "undefined " + ", ".join(dict.fromkeys(undefined))
        if what is not None:
            print(f"{rel}:{n}: {what!r}: {line.strip()}")
            hits += 1
    return hits


def every_line_hits(path):
    """0 if every non-blank line of PATH is a hit, else 1."""
    with open(path, encoding="utf-8") as f:
        lines = [ln for ln in f if ln.strip()]
    missed = 0
    for line in lines:
        # each line alone: a sample line defines nothing for another
        if check_lines([line], path) == 0:
            print(f"not caught: {line.strip()}", file=sys.stderr)
            missed += 1
    print(f"{len(lines) - missed} of {len(lines)} sample lines caught")
    return 1 if missed or not lines else 0


def main():
    if len(sys.argv) > 2 and sys.argv[1] == "--every-line-hits":
        return every_line_hits(sys.argv[2])
    if len(sys.argv) > 1 and sys.argv[1] == "--files":
        files = [(p, p) for p in sys.argv[2:]]
    else:
        src = sys.argv[1] if len(sys.argv) > 1 else "."
        paths = sorted(glob.glob(os.path.join(src, "docs", "*.md")))
        paths += [os.path.join(src, "README.md")]
        paths += sorted(glob.glob(os.path.join(src, "man", "*.8")))
        files = [(p, os.path.relpath(p, src)) for p in paths
                 if os.path.exists(p)]
    hits = sum(check(p, rel) for p, rel in files)
    if hits:
        print(f"{hits} line(s) cite an unshipped spec: cite the paper "
              "(title, its own section) or the project's doc, state the "
              "rule or number itself, or define the identifier in the "
              "file", file=sys.stderr)
        return 1
    print(f"{len(files)} files: no citation of an unshipped spec")
    return 0


if __name__ == "__main__":
    sys.exit(main())
