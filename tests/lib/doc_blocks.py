"""The command blocks and sample outputs of a markdown document, for the
VM tests that run a document as a user pastes it (test_readme.py,
test_recipes.py).

A block is marked by an HTML comment on the line before it (blank lines
between are allowed), which a reader of the rendered page does not see:

    <!-- run: NAME -->        the shell commands of step NAME
    <!-- output: NAME -->     what step NAME prints (a sample)

and is either a fenced block (```sh ... ```) or an indented one (four
spaces). blocks() returns them in document order; a marker not followed
by a block, or a name used twice for one kind, is an error, so a doc edit
that breaks a marker fails the test instead of skipping the step.

A sample is checked against what the step printed by its shape, not its
numbers: shape() turns every number, with its unit if any (12, 0.5ms,
79682b, 1.2K, 10Gbit, 3/8) and a state mark after it (losslessctl's "3*":
XOFF now), into '#', and collapses white space; every
line of the sample must then be the shape of a line of the output, in
order (missing() returns those that are not). A sample line "..." stands
for any lines. So a field renamed, added or dropped, or a line the tool no
longer prints, fails; a volatile value does not.
"""

import re

MARKER = re.compile(r"^<!--\s*(run|output):\s*(\S+)\s*-->\s*$")
NUMBER = re.compile(r"(?<![A-Za-z_])[-+]?\d+(?:[.,/:]\d+)*[A-Za-z%*]*")


class Block:
    def __init__(self, kind, name, text, line):
        self.kind, self.name, self.text, self.line = kind, name, text, line

    def __repr__(self):
        return f"<{self.kind} {self.name} at line {self.line}>"


def blocks(path):
    """The marked blocks of the markdown file at path, in order."""
    lines = open(path).read().split("\n")
    out, seen = [], set()
    i = 0
    while i < len(lines):
        m = MARKER.match(lines[i])
        if not m:
            i += 1
            continue
        kind, name, at = m.group(1), m.group(2), i + 1
        if (kind, name) in seen:
            raise ValueError(f"{path}:{at}: a second '{kind}: {name}' block")
        seen.add((kind, name))
        i += 1
        while i < len(lines) and not lines[i].strip():
            i += 1
        body = []
        if i < len(lines) and lines[i].startswith("```"):
            i += 1
            while i < len(lines) and not lines[i].startswith("```"):
                body.append(lines[i])
                i += 1
            i += 1
        else:
            while i < len(lines) and (lines[i].startswith("    ") or
                                      (not lines[i].strip() and i + 1 < len(lines) and
                                       lines[i + 1].startswith("    "))):
                body.append(lines[i][4:])
                i += 1
        if not body:
            raise ValueError(f"{path}:{at}: '{kind}: {name}' is followed by no code block")
        out.append(Block(kind, name, "\n".join(body) + "\n", at))
    return out


def by_name(bs, kind):
    return {b.name: b for b in bs if b.kind == kind}


# A pause state is the moment's, not the shape's: a sample taken while a
# pause ran and a run looking between two pauses print the same lines but
# for "(paused)" at a line's end and what "paused" lists.
PAUSE_MARK = re.compile(r"\s*\(paused\)\s*$")
PAUSED_LIST = re.compile(r"^(\s*paused) (none|prio .*)$")


def shape(line):
    line = PAUSED_LIST.sub(r"\1 LIST", PAUSE_MARK.sub("", line))
    return " ".join(NUMBER.sub("#", line).split())


def missing(sample, output):
    """The lines of sample whose shape no line of output has, in order
    (empty: the sample matches)."""
    out_shapes = [shape(x) for x in output.splitlines() if x.strip()]
    pos, bad = 0, []
    for line in sample.splitlines():
        if not line.strip() or line.strip() == "...":
            continue
        want = shape(line)
        for j in range(pos, len(out_shapes)):
            if out_shapes[j] == want:
                pos = j + 1
                break
        else:
            bad.append(line)
    return bad
