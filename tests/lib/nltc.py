"""Raw rtnetlink for qdisc requests, so tests reach the kernel's own policy
and extack messages without tc's option parser in between."""

import contextlib
import ctypes
import os
import re
import socket
import struct

CLONE_NEWNET = 0x40000000

RTM_NEWQDISC, RTM_DELQDISC, RTM_GETQDISC = 36, 37, 38
NLM_F_REQUEST, NLM_F_ACK, NLM_F_ECHO, NLM_F_REPLACE, NLM_F_CREATE = 0x1, 0x4, 0x8, 0x100, 0x400
NLM_F_DUMP = 0x300
NLMSG_ERROR, NLMSG_DONE = 2, 3
TCA_XSTATS, TCA_STATS2 = 4, 7
TCA_STATS_APP = 4
NLMSGERR_ATTR_MSG = 1
NETLINK_EXT_ACK = 11
SOL_NETLINK = 270
TCA_KIND, TCA_OPTIONS = 1, 2
NLA_F_NESTED = 0x8000
TC_H_ROOT = 0xFFFFFFFF

# kernel/uapi/lossless.h
TCA_LOSSLESS = {
    "rate": 1, "burst": 2, "queues": 3, "strict": 4, "priomap": 5,
    "quanta": 6, "limit": 7, "pool": 9, "buffer": 10, "alpha": 11,
    "egress_alpha": 12, "lossless_prios": 13, "reserved": 14, "xon_offset": 15,
    "cable_delay": 16, "sw_delay": 17, "headroom": 18, "ecn_kmin": 19,
    "ecn_kmax": 20, "ecn_pmax": 21, "plane_fd": 22, "plane_id": 23,
    "catchup": 24, "watchdog": 25, "scheme": 26, "backlog_need": 27, "gates": 28,
}
# Nested in TCA_LOSSLESS_SCHEME, and its TCA_LOSSLESS_SCHEME_<NAME> nests
# (every parameter a u64).
TCA_LOSSLESS_SCHEME = {"id": 1, "st": 2, "dsh": 3, "spfc": 4}
TCA_LOSSLESS_ST = {"threshold": 1}
TCA_LOSSLESS_DSH = {"window": 1, "ewma_shift": 2, "deviation_gain": 3, "flags": 4}
TCA_LOSSLESS_SPFC = {
    "tc": 1, "irc_th": 2, "irc_th_packets": 3, "victim_threshold": 4,
    "flags": 5, "k": 6,
}
LOSSLESS_SCHEME = {"dt": 0, "st": 1, "dsh": 2, "spfc": 3}
LOSSLESS_DSH_F = {"no_shared_headroom": 0x1, "no_insurance": 0x2, "static_tau": 0x4}
LOSSLESS_SPFC_F = {"window_end": 0x1, "daemon": 0x2}


def _align(n):
    return (n + 3) & ~3


def attr(kind, payload):
    hdr = struct.pack("=HH", 4 + len(payload), kind)
    return hdr + payload + b"\0" * (_align(len(payload)) - len(payload))


def nest(kind, *attrs):
    """A nested attribute of the given ones."""
    return attr(kind | NLA_F_NESTED, b"".join(attrs))


def u8(v):
    return struct.pack("=B", v)


def u32(v):
    return struct.pack("=I", v)


def u64(v):
    return struct.pack("=Q", v)


@contextlib.contextmanager
def netns(name):
    """Run the body in network namespace /run/netns/NAME (None: stay)."""
    if name is None:
        yield
        return
    libc = ctypes.CDLL(None, use_errno=True)
    home = os.open("/proc/self/ns/net", os.O_RDONLY)
    target = os.open(f"/run/netns/{name}", os.O_RDONLY)
    try:
        if libc.setns(target, CLONE_NEWNET):
            raise OSError(ctypes.get_errno(), f"setns {name}")
        yield
    finally:
        libc.setns(home, CLONE_NEWNET)
        os.close(home)
        os.close(target)


def qdisc_request(ifindex, kind, options, handle=0x10000, change=False, ns=None, flags=None):
    """Send RTM_NEWQDISC (create, or change with change=True; flags, if
    given, instead of either) in network namespace ns; returns (errno,
    extack message)."""
    if flags is None:
        flags = NLM_F_REQUEST | NLM_F_ACK | (0 if change else NLM_F_CREATE | NLM_F_REPLACE)
    return _request(RTM_NEWQDISC, flags, ifindex, handle, kind, options, ns)


def _qdisc_msg(mtype, flags, seq, ifindex, handle, kind, options):
    """A qdisc message for the root of ifindex: tcmsg, TCA_KIND, and the
    options (byte strings, joined as given) nested in TCA_OPTIONS."""
    body = struct.pack("=BxxxiIII", socket.AF_UNSPEC, ifindex, handle, TC_H_ROOT, 0)
    if kind is not None:
        body += attr(TCA_KIND, kind.encode() + b"\0")
    if options is not None:
        body += attr(TCA_OPTIONS | NLA_F_NESTED, b"".join(options))
    return struct.pack("=IHHII", 16 + len(body), mtype, flags, seq, 0) + body


def _request(mtype, flags, ifindex, handle, kind, options, ns):
    with netns(ns):
        s = socket.socket(socket.AF_NETLINK, socket.SOCK_RAW, socket.NETLINK_ROUTE)
    try:
        s.setsockopt(SOL_NETLINK, NETLINK_EXT_ACK, 1)
        s.bind((0, 0))
        s.send(_qdisc_msg(mtype, flags, 1, ifindex, handle, kind, options))
        data = s.recv(65536)
    finally:
        s.close()
    return _ack(data)


def _ack(data):
    """(errno, extack message) of an NLMSG_ERROR reply."""
    length, mtype, mflags, _, _ = struct.unpack_from("=IHHII", data, 0)
    if mtype != NLMSG_ERROR:
        raise RuntimeError(f"unexpected netlink reply type {mtype}")
    (err,) = struct.unpack_from("=i", data, 16)
    # With NLM_F_ACK_TLVS (0x200) the original header follows (payload
    # capped, 0x100), then TLVs.
    off = 20
    orig_len = struct.unpack_from("=I", data, off)[0]
    off += 16 if mflags & 0x100 else _align(orig_len)
    msg_text = ""
    while off + 4 <= length:
        alen, atype = struct.unpack_from("=HH", data, off)
        if alen < 4:
            break
        if atype == NLMSGERR_ATTR_MSG:
            msg_text = data[off + 4:off + alen].split(b"\0")[0].decode()
        off += _align(alen)
    return -err, msg_text


def _attrs(data, off, end):
    """{type: payload} of the attributes in data[off:end] (flags masked)."""
    out = {}
    while off + 4 <= end:
        alen, atype = struct.unpack_from("=HH", data, off)
        if alen < 4:
            break
        out[atype & 0x3FFF] = data[off + 4:off + alen]
        off += _align(alen)
    return out


def qdisc_dump(ifindex, ns=None):
    """RTM_GETQDISC dump on a fresh socket, whose first dump skb is the
    kernel's smallest (NLMSG_GOODSIZE): the root qdisc of ifindex as
    {"message_bytes", "app" (TCA_STATS_APP payload), "xstats" (TCA_XSTATS
    payload or None)}, or None when the dump did not carry it."""
    with netns(ns):
        s = socket.socket(socket.AF_NETLINK, socket.SOCK_RAW, socket.NETLINK_ROUTE)
    found = None
    try:
        s.bind((0, 0))
        tcm = struct.pack("=BxxxiIII", socket.AF_UNSPEC, 0, 0, 0, 0)
        s.send(struct.pack("=IHHII", 16 + len(tcm), RTM_GETQDISC,
                           NLM_F_REQUEST | NLM_F_DUMP, 1, 0) + tcm)
        done = False
        while not done:
            data = s.recv(65536)
            off = 0
            while off + 16 <= len(data):
                length, mtype = struct.unpack_from("=IH", data, off)
                if mtype in (NLMSG_DONE, NLMSG_ERROR) or length < 16:
                    done = True
                    break
                _, idx, _, parent, _ = struct.unpack_from("=BxxxiIII", data, off + 16)
                if mtype == RTM_NEWQDISC and idx == ifindex and parent == TC_H_ROOT:
                    top = _attrs(data, off + 36, off + length)
                    st2 = top.get(TCA_STATS2, b"")
                    found = {"message_bytes": length,
                             "app": _attrs(st2, 0, len(st2)).get(TCA_STATS_APP),
                             "xstats": top.get(TCA_XSTATS),
                             "kind": top.get(TCA_KIND, b"").split(b"\0")[0].decode(),
                             "options": top.get(TCA_OPTIONS)}
                off += _align(length)
    finally:
        s.close()
    return found


class Rtnl:
    """One rtnetlink socket for many requests in the current network
    namespace (the module functions above open one per request): the
    netlink fuzzer sends 10^5 of them."""

    def __init__(self):
        self.s = socket.socket(socket.AF_NETLINK, socket.SOCK_RAW, socket.NETLINK_ROUTE)
        self.s.setsockopt(SOL_NETLINK, NETLINK_EXT_ACK, 1)
        self.s.bind((0, 0))
        self.s.settimeout(30)   # a request the kernel never answers fails
        self.seq = 0

    def close(self):
        self.s.close()

    def _send(self, mtype, flags, ifindex, handle, kind=None, options=None):
        self.seq += 1
        self.s.send(_qdisc_msg(mtype, flags, self.seq, ifindex, handle, kind, options))
        while True:
            data = self.s.recv(1 << 17)
            if struct.unpack_from("=I", data, 8)[0] == self.seq:
                return data

    def request(self, mtype, flags, ifindex, handle=0x10000, kind=None, options=None):
        """(errno, extack message) of RTM_NEWQDISC or RTM_DELQDISC."""
        return _ack(self._send(mtype, flags | NLM_F_ACK, ifindex, handle, kind, options))

    def qdisc(self, ifindex):
        """The root qdisc of ifindex: {"kind", "options"} (RTM_GETQDISC, no
        dump), or None."""
        # The kernel answers a GET by notifying RTNLGRP_TC, and the
        # requester only with NLM_F_ECHO.
        data = self._send(RTM_GETQDISC, NLM_F_REQUEST | NLM_F_ECHO, ifindex, 0)
        length, mtype = struct.unpack_from("=IH", data, 0)
        if mtype != RTM_NEWQDISC:
            return None
        top = _attrs(data, 36, length)
        return {"kind": top.get(TCA_KIND, b"").split(b"\0")[0].decode(),
                "options": top.get(TCA_OPTIONS)}


def qdisc_delete(ifindex, handle=0x10000, ns=None):
    """RTM_DELQDISC of the root qdisc of ifindex; returns (errno, extack)."""
    return _request(RTM_DELQDISC, NLM_F_REQUEST | NLM_F_ACK, ifindex, handle, None, None, ns)


def uapi_enums():
    """The attribute enums of kernel/uapi/lossless.h: {prefix: [(value,
    name, comment)]} for every enum whose first member is PREFIX_UNSPEC
    (TCA_LOSSLESS_, TCA_LOSSLESS_SCHEME_, TCA_LOSSLESS_WD_, ...), the
    comment being the member's type note ("u64: ...", "nested
    TCA_LOSSLESS_WD_*: ...")."""
    path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..",
                        "kernel", "uapi", "lossless.h")
    with open(path) as f:
        text = f.read()
    out = {}
    for body in re.findall(r"enum\s*\{(.*?)\};", text, re.S):
        members = re.findall(r"^[ \t]*(\w+)[ \t]*(?:=[ \t]*(\w+))?[ \t]*,?[ \t]*(?:/\*[ \t]*(.*?)(?:\*/|$))?",
                             body, re.M)
        if not members or not members[0][0].endswith("_UNSPEC"):
            continue
        prefix = members[0][0][:-len("UNSPEC")]
        value, entries = -1, []
        for name, explicit, comment in members:
            value = int(explicit, 0) if explicit else value + 1
            if name.startswith("__"):
                break
            entries.append((value, name, comment.strip()))
        out[prefix] = entries
    return out


def uapi_defines():
    """The numeric #defines of kernel/uapi/lossless.h, by name."""
    path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..",
                        "kernel", "uapi", "lossless.h")
    out = {}
    with open(path) as f:
        for line in f:
            m = re.match(r"#define\s+(\w+)\s+(0x[0-9a-fA-F]+|\d+)[uUlL]*\b", line)
            if m:
                out[m.group(1)] = int(m.group(2), 0)
    return out


def ifindex(name):
    return socket.if_nametoindex(name)


def errno_name(e):
    return os.strerror(e) if e else "ok"
