"""What the tools' host selftests share: printed checks that count their
failures, a free loopback UDP port, and whether loopback UDP works at all
(exit 77, ctest's skip, when it does not)."""
import socket


class Checks:
    """check(cond, what, detail): prints [ok  ] or [FAIL] and remembers a
    failure; result(name) prints the verdict and gives the exit status."""

    def __init__(self):
        self.failed = []

    def __call__(self, cond, what, detail=""):
        print(f"  [{'ok  ' if cond else 'FAIL'}] {what}" + (f"  ({detail})" if detail != "" else ""),
              flush=True)
        if not cond:
            self.failed.append(what)

    def result(self, name):
        print(f"{name}: " + ("FAIL (" + ", ".join(self.failed) + ")" if self.failed else "PASS"))
        return 1 if self.failed else 0


def free_port():
    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    return port


def no_loopback_udp():
    """True, after saying why, if a UDP socket cannot bind on loopback (the
    caller then exits 77: skipped)."""
    try:
        socket.socket(socket.AF_INET, socket.SOCK_DGRAM).bind(("127.0.0.1", 0))
    except OSError as e:
        print(f"skip: no loopback UDP ({e})")
        return True
    return False
