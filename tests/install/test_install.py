#!/usr/bin/python3
# SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
"""make install / make uninstall into a temporary DESTDIR.

    tests/install/test_install.py SOURCE_DIR BUILD_DIR

For the default prefix (/usr/local) and for another one (/opt/lossless),
it runs `make install DESTDIR=... [PREFIX=...]` on the build tree as it is
(`make -o userspace`: no rebuild), then checks:

- exactly the expected files, with their modes and root's ownership, and
  the same list in the install's manifest; directories 0755, nothing
  world-writable;
- the binaries run; the BPF object is the build's, a BPF ELF; the docs and
  the example configuration are the source's;
- the man pages: every man/*.8 as PREFIX/share/man/man8/*.8.gz, gzip -9n
  (no name, no time stamp), the source's text, rendering without a
  warning (lint_man.py: groff -man -Tutf8 -ww);
- the tc plugin went to the directory compiled into Debian's tc, and tc
  loads it from there (TC_LIB_DIR pointed into DESTDIR) and parses with it;
- the modules-load.d file: PREFIX/lib/modules-load.d/sch_lossless.conf
  names the module kernel/Kbuild builds;
- the systemd unit: no placeholder left, ExecStart= is PREFIX/sbin/losslessd,
  Type=notify, after and wanting network-online.target,
  every Exec*= program exists (the project's in DESTDIR), the
  documentation link resolves; `systemd-analyze verify` is silent and
  `systemd-analyze security --offline` rates it OK or better (the score
  is printed), with the protections the daemon's sandbox promises;
- the installed example configuration passes the installed
  `losslessd --check` (in a private netns and bpffs with its ports);
- `make uninstall` leaves no file, and no directory of the project; a
  second `make uninstall` fails and says why.

Root only (netns, bpffs, ownership); exits 77 (skipped) otherwise.
"""
import gzip
import json
import os
import re
import shutil
import stat
import subprocess
import sys
import tempfile

import lint_man
from test_doc_configs import check_in_private_netns

SKIP = 77
LEVELS_OK = ("OK", "SAFE", "PERFECT")
# Protections docs/DAEMON.md promises; each must be rated as set.
REQUIRED_SECURITY = [
    "UMask=",
    "NoNewPrivileges=",
    "CapabilityBoundingSet=~CAP_SYS_ADMIN",
    "CapabilityBoundingSet=~CAP_SYS_MODULE",
    "CapabilityBoundingSet=~CAP_SYS_PTRACE",
    "CapabilityBoundingSet=~CAP_(DAC_*|FOWNER|IPC_OWNER)",
    "ProtectSystem=",
    "ProtectHome=",
    "PrivateTmp=",
    "PrivateDevices=",
    "ProtectKernelTunables=",
    "ProtectKernelModules=",
    "ProtectKernelLogs=",
    "ProtectControlGroups=",
    "RestrictNamespaces=~user",
    "RestrictNamespaces=~net",
    "RestrictAddressFamilies=~AF_PACKET",
    "SystemCallFilter=~@mount",
    "SystemCallFilter=~@module",
    "MemoryDenyWriteExecute=",
    "LockPersonality=",
]

failures = []


def fail(msg):
    failures.append(msg)
    print(f"FAIL: {msg}", flush=True)


def ok(msg):
    print(f"ok: {msg}", flush=True)


def run(cmd, **kw):
    kw.setdefault("stdout", subprocess.PIPE)
    kw.setdefault("stderr", subprocess.STDOUT)
    kw.setdefault("text", True)
    return subprocess.run(cmd, **kw)


def make_env():
    # Not the jobserver of a `make check` that runs ctest.
    env = {k: v for k, v in os.environ.items()
           if k not in ("MAKEFLAGS", "MFLAGS", "MAKELEVEL", "DESTDIR", "PREFIX")}
    env["LC_ALL"] = "C"
    return env


def tc_plugin_dir():
    """The plugin directory compiled into the installed tc."""
    tc = shutil.which("tc") or "/usr/sbin/tc"
    data = open(tc, "rb").read()
    dirs = sorted({m.decode().rstrip("/")
                   for m in re.findall(rb"(/usr/lib[\x21-\x7e]*/tc)/?\x00", data)})
    if len(dirs) != 1:
        raise SystemExit(f"cannot tell tc's plugin directory from {tc}: {dirs}")
    return tc, dirs[0]


def mode_of(path):
    st = os.lstat(path)
    return stat.S_IMODE(st.st_mode), st.st_uid, st.st_gid


def same_bytes(a, b):
    with open(a, "rb") as fa, open(b, "rb") as fb:
        return fa.read() == fb.read()


def expected_files(src, prefix, tcdir):
    """Installed path (without DESTDIR) -> (allowed modes, source to compare or None)."""
    rw, rx = (0o644,), (0o755,)
    doc = f"{prefix}/share/doc/lossless"
    exp = {
        f"{prefix}/sbin/losslessd": (rx, None),
        f"{prefix}/sbin/losslessctl": (rx, None),
        f"{prefix}/sbin/lossless-ingress": (rx, None),
        f"{prefix}/sbin/lossless-cc": (rx, None),
        f"{prefix}/sbin/lossless-portfc": (rx, None),
        f"{prefix}/lib/lossless/lossless_ingress.bpf.o": (rw, None),
        f"{tcdir}/q_lossless.so": ((0o755, 0o644), None),
        f"{prefix}/lib/systemd/system/losslessd.service": (rw, None),
        f"{prefix}/lib/modules-load.d/sch_lossless.conf":
            (rw, f"{src}/daemon/systemd/sch_lossless.conf"),
        f"{prefix}/share/lossless/install_manifest.txt": (rw, None),
        f"{doc}/README.md": (rw, f"{src}/README.md"),
        f"{doc}/examples/losslessd.toml": (rw, f"{src}/docs/examples/losslessd.toml"),
        f"{doc}/examples/host-cc.toml": (rw, f"{src}/docs/examples/host-cc.toml"),
        f"{doc}/examples/grafana-lossless.json": (rw, f"{src}/docs/examples/grafana-lossless.json"),
    }
    for name in sorted(os.listdir(f"{src}/docs")):
        if name.endswith(".md"):
            exp[f"{doc}/{name}"] = (rw, f"{src}/docs/{name}")
    # The plots the docs show (docs/img/*.png).
    for name in sorted(os.listdir(f"{src}/docs/img")):
        if name.endswith(".png"):
            exp[f"{doc}/img/{name}"] = (rw, f"{src}/docs/img/{name}")
    # Compressed: check_man compares the text.
    for name in man_pages(src):
        exp[f"{prefix}/share/man/man8/{name}.gz"] = (rw, None)
    return exp


def man_pages(src):
    return sorted(n for n in os.listdir(f"{src}/man") if n.endswith(".8"))


def check_tree(dest, exp):
    found = set()
    for root, dirs, files in os.walk(dest):
        for d in dirs:
            p = os.path.join(root, d)
            m, uid, _ = mode_of(p)
            if m != 0o755 or uid != 0:
                fail(f"directory {p}: mode {m:o} uid {uid}, want 755 and root")
        for f in files:
            found.add("/" + os.path.relpath(os.path.join(root, f), dest))
    missing = sorted(set(exp) - found)
    extra = sorted(found - set(exp))
    if missing:
        fail(f"not installed: {missing}")
    if extra:
        fail(f"installed but not expected: {extra}")
    for path, (modes, source) in sorted(exp.items()):
        full = dest + path
        if path not in found:
            continue
        if os.path.islink(full) or not os.path.isfile(full):
            fail(f"{path}: not a regular file")
            continue
        m, uid, gid = mode_of(full)
        if m not in modes or uid != 0 or gid != 0:
            fail(f"{path}: mode {m:o} owner {uid}:{gid}, want "
                 f"{' or '.join(f'{x:o}' for x in modes)} root:root")
        if m & stat.S_IWOTH:
            fail(f"{path}: world-writable")
        if source and not same_bytes(full, source):
            fail(f"{path}: differs from {source}")
    if not missing and not extra:
        ok(f"{len(exp)} files, modes and owners as expected")


def check_manifest(dest, prefix, exp):
    path = f"{dest}{prefix}/share/lossless/install_manifest.txt"
    try:
        lines = [l for l in open(path).read().splitlines() if l]
    except OSError as e:
        fail(f"manifest: {e}")
        return
    if sorted(lines) != sorted(exp):
        fail(f"manifest lists {sorted(set(lines) ^ set(exp))} differently from the install")
    else:
        ok("the manifest lists exactly the installed files, without DESTDIR")


def check_binaries(dest, prefix, build):
    sbin = f"{dest}{prefix}/sbin"
    for cmd in (["losslessd", "--version"], ["lossless-ingress", "--version"],
                ["lossless-cc", "--version"], ["lossless-portfc", "--version"],
                ["losslessctl", "--help"]):
        r = run([f"{sbin}/{cmd[0]}"] + cmd[1:])
        if r.returncode != 0:
            fail(f"{cmd}: exit {r.returncode}: {r.stdout[-300:]}")
    obj = f"{dest}{prefix}/lib/lossless/lossless_ingress.bpf.o"
    with open(obj, "rb") as f:
        head = f.read(20)
    # ELF, 64-bit, e_machine EM_BPF (247), little endian on x86.
    if head[:4] != b"\x7fELF" or int.from_bytes(head[18:20], "little") != 247:
        fail(f"{obj}: not a BPF ELF object")
    if not same_bytes(obj, f"{build}/bpf/lossless_ingress.bpf.o"):
        fail(f"{obj}: not the build's bpf/lossless_ingress.bpf.o")
    ok("binaries run; the BPF object is the build's EM_BPF ELF")


def check_man(src, dest, prefix):
    pages = man_pages(src)
    if not pages:
        fail(f"{src}/man has no page")
        return
    bad = False
    for name in pages:
        path = f"{dest}{prefix}/share/man/man8/{name}.gz"
        try:
            raw = open(path, "rb").read()
        except OSError as e:
            fail(f"man page: {e}")
            bad = True
            continue
        # gzip -n: FLG without FNAME (bit 3), MTIME 0; -9: XFL 2.
        if raw[:2] != b"\x1f\x8b" or raw[3] & 0x08 or raw[4:8] != bytes(4) or raw[8] != 2:
            fail(f"{path}: not gzip -9n (a name, a time stamp or another level)")
            bad = True
        if gzip.decompress(raw) != open(f"{src}/man/{name}", "rb").read():
            fail(f"{path}: not man/{name}")
            bad = True
        for p in lint_man.lint(path):
            fail(f"{path}: {p}")
            bad = True
    if not bad:
        ok(f"{len(pages)} man pages in share/man/man8, gzip -9n, the source's, "
           "rendering without a warning")


def check_tc_plugin(dest, tc, tcdir):
    plugdir = dest + tcdir
    cmd = ["unshare", "-n", tc, "qdisc", "add", "dev", "lo", "root", "lossless", "help"]
    r = run(cmd, env=dict(os.environ, TC_LIB_DIR=plugdir))
    if "Usage: ... lossless" not in r.stdout:
        fail(f"tc did not load {plugdir}/q_lossless.so: {r.stdout[-300:]}")
        return
    # And without it, the same command does not know the qdisc.
    r = run(cmd, env=dict(os.environ, TC_LIB_DIR=f"{dest}/nonexistent"))
    if "Usage: ... lossless" in r.stdout:
        fail("tc parses lossless without the plugin: the check above proves nothing")
        return
    ok(f"q_lossless.so is in tc's plugin directory {tcdir}, and tc loads it")


EXEC_RE = re.compile(r"^(ExecStartPre|ExecStart|ExecStartPost|ExecReload|ExecStop|ExecStopPost)=(\S+)")


def check_unit(dest, prefix):
    unit = f"{dest}{prefix}/lib/systemd/system/losslessd.service"
    text = open(unit).read()
    left = re.findall(r"@[A-Z_]+@", text)
    if left:
        fail(f"unit: placeholders left: {left}")
    start = None
    for line in text.splitlines():
        m = EXEC_RE.match(line)
        if m:
            key, prog = m.group(1), m.group(2).lstrip("-+@!:")
            if key == "ExecStart":
                start = prog
            if prog.startswith(prefix + "/"):
                full = dest + prog
                if not (os.path.isfile(full) and os.access(full, os.X_OK)):
                    fail(f"unit: {key}={prog}: not in DESTDIR")
            elif not (os.path.isfile(prog) and os.access(prog, os.X_OK)):
                fail(f"unit: {key}={prog}: neither the project's nor on this system")
        m = re.match(r"^Documentation=(.*)", line)
        if m:
            for url in m.group(1).split():
                if not url.startswith("file://"):
                    fail(f"unit: Documentation={url}: only file:// links are installed")
                elif not os.path.isfile(dest + url[len("file://"):]):
                    fail(f"unit: Documentation={url}: not installed")
    if start != f"{prefix}/sbin/losslessd":
        fail(f"unit: ExecStart runs {start}, want {prefix}/sbin/losslessd")
    if "--config /etc/lossless/losslessd.toml" not in text:
        fail("unit: losslessd does not get --config /etc/lossless/losslessd.toml")
    # Readiness and ordering (issue 29): losslessd sends READY=1 (notify.h),
    # and starts once the network configuration made the ports.
    for line in ("Type=notify", "After=network-online.target", "Wants=network-online.target"):
        if not re.search(rf"^{re.escape(line)}$", text, re.M):
            fail(f"unit: no {line}")

    # systemd-analyze reads the unit inside --root; SYSTEMD_UNIT_PATH names
    # its directory there (with ':' the default ones follow). DESTDIR holds
    # no systemd, hence no sysinit.target: --recursive-errors=no.
    env = dict(make_env(), SYSTEMD_UNIT_PATH=f"{prefix}/lib/systemd/system:")
    sa = ["systemd-analyze"]
    r = run(sa + ["verify", "--recursive-errors=no", f"--root={dest}", "losslessd.service"],
            env=env, cwd="/")
    print(f"systemd-analyze verify: exit {r.returncode}, output {r.stdout.strip()!r}")
    if r.returncode != 0 or r.stdout.strip():
        fail("systemd-analyze verify is not clean")
    r = run(sa + ["security", "--offline=yes", f"--root={dest}", "--threshold=49",
                  "losslessd.service"], env=env, cwd="/")
    m = re.search(r"Overall exposure level for losslessd\.service: ([0-9.]+) (\w+)", r.stdout)
    if not m:
        fail(f"systemd-analyze security: no overall level: {r.stdout[-500:]}")
    else:
        print(f"systemd-analyze security: {m.group(1)} {m.group(2)} (exit {r.returncode})")
        if m.group(2) not in LEVELS_OK or r.returncode != 0:
            print(r.stdout)
            fail(f"systemd-analyze security: {m.group(1)} {m.group(2)}, want OK or better")
    r = run(sa + ["security", "--offline=yes", f"--root={dest}", "--json=short",
                  "losslessd.service"], env=env, cwd="/", stderr=subprocess.PIPE)
    try:
        items = {i["name"]: i for i in json.loads(r.stdout)}
    except (ValueError, KeyError) as e:
        fail(f"systemd-analyze security --json: {e}: {r.stdout[:300]}")
        return
    for name in REQUIRED_SECURITY:
        if name not in items:
            fail(f"systemd-analyze security rates no {name}")
        elif items[name]["set"] is not True:
            fail(f"{name}: {items[name]['description']}")
    ok("unit: paths of this prefix, verify clean, security OK or better")


def check_modules_load(src, dest, prefix):
    """modules-load.d(5) file: systemd-modules-load reads PREFIX/lib/
    modules-load.d for /usr and /usr/local; it names exactly the module
    kernel/Kbuild builds."""
    path = f"{dest}{prefix}/lib/modules-load.d/sch_lossless.conf"
    try:
        names = [ln.strip() for ln in open(path).read().splitlines()
                 if ln.strip() and not ln.lstrip().startswith(("#", ";"))]
    except OSError as e:
        fail(f"modules-load.d: {e}")
        return
    built = re.findall(r"^obj-m\s*:=\s*(\S+)\.o", open(f"{src}/kernel/Kbuild").read(), re.M)
    if names != built or not built:
        fail(f"{path} loads {names}, kernel/Kbuild builds {built}")
    else:
        ok(f"modules-load.d/sch_lossless.conf loads {names[0]}, the module kernel/Kbuild builds")


def check_example_config(dest, prefix):
    conf = f"{dest}{prefix}/share/doc/lossless/examples/losslessd.toml"
    devs = re.findall(r'^dev = "([^"]+)"', open(conf).read(), re.M)
    if not devs:
        fail(f"{conf}: names no port")
        return
    r = check_in_private_netns(f"{dest}{prefix}/sbin/losslessd", conf, devs)
    if r.returncode != 0:
        fail(f"losslessd --check on the installed example: exit {r.returncode}: {r.stdout}{r.stderr}")
    else:
        ok(f"the example configuration passes losslessd --check: {r.stdout.strip()}")


def check_uninstall(src, build, dest, prefix, make_args):
    r = run(["make", "--no-print-directory", "-C", src, f"BUILD_DIR={build}",
             "uninstall", f"DESTDIR={dest}"] + make_args, env=make_env())
    if r.returncode != 0:
        fail(f"make uninstall: exit {r.returncode}: {r.stdout[-1000:]}")
    left = []
    dirs = []
    for root, ds, files in os.walk(dest):
        left += [os.path.join(root, f) for f in files]
        dirs += [os.path.join(root, d) for d in ds]
    if left:
        fail(f"make uninstall left files: {left}")
    ours = [d for d in dirs if "/lossless" in d[len(dest):]]
    if ours:
        fail(f"make uninstall left the project's directories: {ours}")
    if not left and not ours:
        ok(f"make uninstall removed every file; empty shared directories left: "
           f"{sorted(d[len(dest):] for d in dirs)}")
    r = run(["make", "--no-print-directory", "-C", src, f"BUILD_DIR={build}",
             "uninstall", f"DESTDIR={dest}"] + make_args, env=make_env())
    if r.returncode == 0 or "install_manifest.txt not found" not in r.stdout:
        fail(f"a second make uninstall: exit {r.returncode}, {r.stdout.strip()!r}; "
             "want a failure naming the missing manifest")


def one_prefix(src, build, tmp, tc, tcdir, prefix, make_args):
    print(f"=== make install DESTDIR=... {' '.join(make_args) or '(default PREFIX)'}",
          flush=True)
    dest = tempfile.mkdtemp(prefix="root-", dir=tmp)
    os.chmod(dest, 0o755)
    r = run(["make", "--no-print-directory", "-C", src, "-o", "userspace",
             f"BUILD_DIR={build}", "install", f"DESTDIR={dest}"] + make_args,
            env=make_env())
    if r.returncode != 0:
        fail(f"make install: exit {r.returncode}:\n{r.stdout[-3000:]}")
        return
    exp = expected_files(src, prefix, tcdir)
    check_tree(dest, exp)
    check_manifest(dest, prefix, exp)
    check_binaries(dest, prefix, build)
    check_man(src, dest, prefix)
    check_tc_plugin(dest, tc, tcdir)
    check_unit(dest, prefix)
    check_modules_load(src, dest, prefix)
    check_example_config(dest, prefix)
    check_uninstall(src, build, dest, prefix, make_args)


def main():
    if len(sys.argv) != 3:
        raise SystemExit(f"usage: {sys.argv[0]} SOURCE_DIR BUILD_DIR")
    src, build = (os.path.abspath(a) for a in sys.argv[1:])
    if os.geteuid() != 0:
        print("SKIP: needs root (netns and bpffs for losslessd --check, root-owned files)")
        return SKIP
    for tool in ("make", "cmake", "systemd-analyze", "unshare", "ip", "groff"):
        if not shutil.which(tool):
            raise SystemExit(f"{tool} not found")
    for f in ("daemon/losslessd", "daemon/losslessctl", "daemon/lossless-ingress",
              "daemon/lossless-cc", "daemon/lossless-portfc",
              "tc-plugins/q_lossless.so", "bpf/lossless_ingress.bpf.o",
              *(f"man/{name}.gz" for name in man_pages(src))):
        if not os.path.exists(f"{build}/{f}"):
            raise SystemExit(f"{build}/{f} missing: build first (make userspace)")
    tc, tcdir = tc_plugin_dir()
    print(f"{tc} loads plugins from {tcdir}")
    # A strict umask (root's on hardened hosts): modes must not depend on it.
    old_umask = os.umask(0o077)
    tmp = tempfile.mkdtemp(prefix="ll-install-test.")
    try:
        one_prefix(src, build, tmp, tc, tcdir, "/usr/local", [])
        one_prefix(src, build, tmp, tc, tcdir, "/opt/lossless", ["PREFIX=/opt/lossless"])
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
        os.umask(old_umask)
    if failures:
        print(f"\n{len(failures)} failure(s):")
        for f in failures:
            print(f"  - {f}")
        return 1
    print("\nall install checks passed")
    return 0


if __name__ == "__main__":
    sys.exit(main())
