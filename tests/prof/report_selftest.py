#!/usr/bin/python3
"""tcg-prof report on made-up snapshots (host test): the per-packet counts
by symbol between each name's two snapshots, module symbols summed, block
offsets with --detail, blocks with --blocks, and a usage error."""
import os
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tools"))
from selftest import Checks  # noqa: E402

TOOL = os.path.join(os.path.dirname(os.path.abspath(__file__)), "tcg-prof")
KALLSYMS = """ffffffff81000000 T _stext
ffffffff81000100 T ktime_get
ffffffff81000200 t psi_group_change
ffffffffc0000000 t ll_enqueue\t[sch_lossless]
ffffffffc0000400 t uncharge\t[sch_lossless]
"""


def main():
    check = Checks()

    with tempfile.TemporaryDirectory() as d:
        with open(os.path.join(d, "kallsyms"), "w") as f:
            f.write(KALLSYMS)
        with open(os.path.join(d, "counts.json"), "w") as f:
            f.write('{"pfifo": 100, "dt": 50}')
        snaps = {
            "pfifo-begin": "ffffffff81000110 1000 100\n",
            "pfifo-end": "ffffffff81000110 5000 500\nffffffff81000200 2000 200\n4000 700 7\n",
            "dt-begin": "ffffffff81000110 5000 500\n",
            "dt-end": "ffffffff81000110 9000 900\nffffffffc0000010 1000 100\n"
                      "ffffffffc0000420 500 50\nffffffffc0000440 250 25\n",
        }
        for name, text in snaps.items():
            with open(os.path.join(d, f"prof-{name}.txt"), "w") as f:
                f.write(text)
        out = subprocess.run([TOOL, "report", d, "pfifo,dt"], capture_output=True, text=True).stdout
        lines = {ln.split()[0]: ln.split()[1:] for ln in out.splitlines() if ln.strip()}
        check(out.startswith("pfifo: 67 instructions per packet"), "pfifo's total per packet",
              out.splitlines()[0] if out else "no output")
        check("dt: 115 instructions per packet (50 packets), sch_lossless 35" in out,
              "dt's total and the module's share", out.splitlines()[1] if out.count("\n") > 1 else out)
        check(lines.get("ktime_get") == ["40", "80"], "a symbol per packet for each name",
              str(lines.get("ktime_get")))
        check(lines.get("uncharge[sch_lossless]") == ["0", "15"], "a module symbol", str(lines.get("uncharge[sch_lossless]")))
        check(lines.get("[user]") == ["7", "0"], "user space as one row", str(lines.get("[user]")))
        out = subprocess.run([TOOL, "report", d, "pfifo,dt", "--detail", "uncharge"],
                             capture_output=True, text=True).stdout
        check("uncharge[sch_lossless]+0x20" in out and "uncharge[sch_lossless]+0x40" in out,
              "--detail splits a symbol by block", "" if "+0x20" in out else out[-300:])
        out = subprocess.run([TOOL, "report", d, "pfifo,dt", "--blocks"], capture_output=True, text=True).stdout
        check(out.startswith("pfifo: 6 blocks per packet"), "--blocks counts blocks", out.splitlines()[0])
        r = subprocess.run([TOOL, "report", d, "pfifo,dt", "--bogus"], capture_output=True, text=True)
        check(r.returncode != 0 and "unknown option" in r.stderr, "an unknown option is refused",
              r.stderr.strip()[:80])
    return check.result("tcg-prof report")


if __name__ == "__main__":
    sys.exit(main())
