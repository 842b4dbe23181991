#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""A structure-aware fuzzer for the ccaas generic netlink family.

Driven by the YAML spec (include/uapi/linux/ccaas.yaml): every operation,
its attribute sets, types, nesting and multi-attributes come from there.
Messages are built as attribute trees from value pools (valid values and
boundary values, what the kernel just showed: CCAs and their parameter
schemas, generations, cookies, prefixes), then mutated at any node with a
small probability: wrong lengths, wrong types, missing or extra NUL,
NLA_F_NESTED dropped, garbage inside a nest, truncated attributes, unknown
and repeated attributes, attributes of the set the operation does not take;
headers get dump flags on do-only commands and back, reserved flags and
bytes, unknown commands; and sometimes the payload is random bytes. Dumps
are also abandoned after their first part (one read, then close).

The invariant, checked after every message in the caller's network
namespace: a request the kernel rejects leaves every dump byte-identical
(cca-get, scope-get, policy-get, policy-history, sock-get, log-get); a
change it accepts shows in them as it must (the entry added is in the
table, the one deleted was there and is gone, the table loaded is the one
sent, the reply's generation is a new one in the history, sockets a
migration moved show, the log selection holds what was added). Accepted
changes that leave every dump as it was are the documented no-ops (a
policy change answered UNCHANGED, a policy or scope dry run, a migration
or drain that moved nothing, a scope add of an entry already there, a
flush of an empty table, a load of the same table, a log add of what is
selected, a log del of nothing) and are counted; a read never changes
anything. Each commit announces itself on the monitor group with the new
generation; nothing else does. An unprivileged worker (--unpriv) has
every change refused and never changes a dump.

One process fuzzes one namespace (the one it runs in), so workers in
several namespaces run side by side without disturbing each other's
invariant. Seeded and reproducible: the same seed in the same setup sends
the same messages. On a violation it prints the message in hex and exits 1.

Usage: fuzz.py [-s SEED] [-n MESSAGES] [-t SECONDS] [--unpriv] [-v] SPEC
Prints one summary line:
  fuzz: seed S: N messages, A accepted, R rejected, O no-ops, D dumps abandoned
"""
import argparse
import os
import random
import socket
import struct
import sys
import time

import yaml

NETLINK_GENERIC = 16
SOL_NETLINK = 270
NETLINK_ADD_MEMBERSHIP, NETLINK_CAP_ACK, NETLINK_EXT_ACK = 1, 10, 11
NLM_F_REQUEST, NLM_F_MULTI, NLM_F_ACK, NLM_F_ECHO = 0x1, 0x2, 0x4, 0x8
NLM_F_DUMP, NLM_F_ACK_TLVS = 0x300, 0x200
NLMSG_ERROR, NLMSG_DONE = 2, 3
NLA_F_NESTED = 0x8000
GENL_ID_CTRL, CTRL_CMD_GETFAMILY = 0x10, 3
CTRL_ATTR_FAMILY_ID, CTRL_ATTR_FAMILY_NAME, CTRL_ATTR_MCAST_GROUPS = 1, 2, 7
TIMEOUT = 60  # seconds without an answer: a hang


class Violation(Exception):
    pass


def align(n):
    return (n + 3) & ~3


def nla(atype, data):
    return struct.pack("=HH", 4 + len(data), atype) + data + \
        b"\0" * (align(len(data)) - len(data))


def parse_attrs(data):
    """[(type, payload)] of a run of attributes."""
    out = []
    while len(data) >= 4:
        alen, atype = struct.unpack_from("=HH", data)
        if alen < 4:
            break
        out.append((atype & 0x3FFF, data[4:alen]))
        data = data[align(alen):]
    return out


# ---- the spec ----------------------------------------------------------------

class Attr:
    def __init__(self, aset, num, y):
        self.set, self.num, self.name = aset, num, y["name"]
        self.type = y["type"]
        self.nested = y.get("nested-attributes")
        self.multi = y.get("multi-attr", False)
        self.max_len = y.get("checks", {}).get("max-len")


class Op:
    def __init__(self, num, y):
        self.num, self.name = num, y["name"]
        self.set = y.get("attribute-set")
        # CAP_NET_ADMIN, in the initial user namespace or the netns owner's
        self.admin = bool({"admin-perm", "uns-admin-perm"} &
                          set(y.get("flags", [])))
        self.notify = "notify" in y or "event" in y
        self.do = "do" in y
        self.dump = "dump" in y
        req = lambda m: (y.get(m) or {}).get("request", {}).get("attributes", [])
        self.request = list(dict.fromkeys(req("do") + req("dump")))


class Spec:
    def __init__(self, path):
        with open(path) as f:
            y = yaml.safe_load(f)
        self.family = y["name"]
        self.sets = {}
        for s in y["attribute-sets"]:
            attrs = {}
            for i, a in enumerate(s["attributes"], start=1):
                attrs[a["name"]] = Attr(s["name"], a.get("value", i), a)
            self.sets[s["name"]] = attrs
        self.ops = {}
        for i, o in enumerate(y["operations"]["list"], start=1):
            op = Op(o.get("value", i), o)
            self.ops[op.name] = op
        self.max_cmd = max(op.num for op in self.ops.values())

    def attr(self, aset, name):
        return self.sets[aset][name]


# ---- netlink -----------------------------------------------------------------

class Genl:
    """A generic netlink socket that resolves a family and runs requests."""

    def __init__(self, family, seq):
        self.sock = self._open()
        self.seq = seq
        err, _, replies = self.run(GENL_ID_CTRL, struct.pack(
            "=BBH", CTRL_CMD_GETFAMILY, 1, 0) + nla(
            CTRL_ATTR_FAMILY_NAME, family.encode() + b"\0"))
        if err:
            raise OSError(err, "cannot resolve family %s" % family)
        attrs = dict(parse_attrs(replies[0][4:]))
        self.id = struct.unpack("=H", attrs[CTRL_ATTR_FAMILY_ID])[0]
        self.groups = {}
        for _, grp in parse_attrs(attrs.get(CTRL_ATTR_MCAST_GROUPS, b"")):
            g = dict(parse_attrs(grp))
            self.groups[g[1].rstrip(b"\0").decode()] = struct.unpack(
                "=I", g[2])[0]

    @staticmethod
    def _open():
        s = socket.socket(socket.AF_NETLINK, socket.SOCK_RAW, NETLINK_GENERIC)
        s.bind((0, 0))
        s.setsockopt(SOL_NETLINK, NETLINK_EXT_ACK, 1)
        s.setsockopt(SOL_NETLINK, NETLINK_CAP_ACK, 1)
        s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 1 << 20)
        s.settimeout(TIMEOUT)
        return s

    def send(self, ftype, body, flags, sock=None):
        self.seq = (self.seq + 1) & 0xFFFFFFFF
        msg = struct.pack("=IHHII", 16 + len(body), ftype, flags, self.seq,
                          0) + body
        (sock or self.sock).send(msg)
        return msg

    def answer(self, sock=None, once=False):
        """(errno, extack, [payloads], flags) of the request just sent."""
        replies, sock = [], sock or self.sock
        while True:
            try:
                buf = sock.recv(1 << 20)
            except socket.timeout:
                raise Violation("no answer within %d s" % TIMEOUT)
            while len(buf) >= 16:
                mlen, mtype, mflags, seq, _ = struct.unpack_from("=IHHII", buf)
                msg, buf = buf[16:mlen], buf[align(mlen):]
                if seq != self.seq:
                    continue
                if mtype in (NLMSG_ERROR, NLMSG_DONE):
                    err = -struct.unpack_from("=i", msg)[0] if msg else 0
                    text = ""
                    if mflags & NLM_F_ACK_TLVS:
                        tlvs = msg[4 + 16:] if mtype == NLMSG_ERROR else msg[4:]
                        ext = dict(parse_attrs(tlvs))
                        text = ext.get(1, b"").rstrip(b"\0").decode(
                            errors="replace")
                    return err, text, replies
                replies.append(msg)
            if once:
                return None, "", replies

    def run(self, ftype, body, flags=NLM_F_REQUEST | NLM_F_ACK):
        self.send(ftype, body, flags)
        return self.answer()

    def request(self, cmd, payload=b"", dump=False):
        flags = NLM_F_REQUEST | (NLM_F_DUMP if dump else NLM_F_ACK)
        return self.run(self.id, struct.pack("=BBH", cmd, 1, 0) + payload,
                        flags)


# ---- the state of a namespace, as its dumps show it ----------------------------

class State:
    """What every read of the namespace returns, raw, plus decoded bits."""

    def __init__(self, g, spec):
        op = spec.ops
        self.parts = {}
        for name, cmd, dump in (("cca", op["cca-get"].num, True),
                                ("scope", op["scope-get"].num, True),
                                ("policy", op["policy-get"].num, True),
                                ("history", op["policy-history"].num, True),
                                ("sock", op["sock-get"].num, True),
                                ("log", op["log-get"].num, False)):
            err, text, replies = g.request(cmd, dump=dump)
            if err:
                raise Violation("%s read failed: errno %d %s" %
                                (name, err, text))
            self.parts[name] = [r[4:] for r in replies]  # without genl header
        self.spec = spec

    def __eq__(self, other):
        return self.parts == other.parts

    def differs(self, other):
        return [k for k in self.parts if self.parts[k] != other.parts[k]]

    def _msgs(self, part, aset):
        nums = {a.num: a for a in self.spec.sets[aset].values()}
        for m in self.parts[part]:
            yield [(nums.get(t), v) for t, v in parse_attrs(m)]

    def scope_entries(self):
        out = set()
        for attrs in self._msgs("scope", "scope"):
            d = {a.name: v for a, v in attrs if a}
            if "addr" in d:
                out.add((d["addr"], d["prefixlen"], d["locality"],
                         d.get("region", b"\0" * 4), d.get("dc", b"\0" * 4)))
        return out

    def generations(self):
        out = []
        for attrs in self._msgs("history", "policy"):
            for a, v in attrs:
                if a and a.name == "generation":
                    out.append(struct.unpack("=I", v)[0])
        return out

    def rules(self):
        """Raw RULE nests of the current generation."""
        return [v for attrs in self._msgs("policy", "policy")
                for a, v in attrs if a and a.name == "rule"]

    def log(self):
        all_, cookies = False, set()
        for attrs in self._msgs("log", "log"):
            for a, v in attrs:
                if a and a.name == "all":
                    all_ = True
                elif a and a.name == "entry":
                    for t, c in parse_attrs(v):
                        if t == self.spec.attr("log", "cookie").num:
                            cookies.add(struct.unpack("=Q", c)[0])
        return all_, cookies

    def cookies(self):
        out = []
        for attrs in self._msgs("sock", "sock"):
            for a, v in attrs:
                if a and a.name == "cookie":
                    out.append(struct.unpack("=Q", v)[0])
        return out

    def ccas(self):
        """{name: [(param, min, max)]} of the registered CCAs."""
        out = {}
        spec = self.spec.sets["spec"]
        for attrs in self._msgs("cca", "cca"):
            d = {a.name: v for a, v in attrs if a and a.name == "name"}
            params = []
            for a, v in attrs:
                if a and a.name == "param":
                    p = {t: x for t, x in parse_attrs(v)}
                    params.append((p[spec["name"].num].rstrip(b"\0").decode(),
                                   struct.unpack("=I", p[spec["minimum"].num])[0],
                                   struct.unpack("=I", p[spec["maximum"].num])[0]))
            out[d["name"].rstrip(b"\0").decode()] = params
        return out


# ---- messages ----------------------------------------------------------------

class Node:
    """One attribute to send: spec attribute (or None), type number, value
    (int, bytes, True for a flag, or a list of Nodes for a nest)."""

    def __init__(self, attr, value, num=None):
        self.attr, self.value = attr, value
        self.num = attr.num if attr else num


V4 = [("0a000000", 8), ("0a010000", 16), ("0a010200", 24), ("0a010203", 32),
      ("c0a80000", 16), ("00000000", 0), ("0a000001", 8), ("7f000000", 8),
      ("0a020000", 15), ("ac100000", 12)]
V6 = [("20010db8" + "00" * 12, 32), ("fd" + "00" * 15, 8), ("00" * 16, 0),
      ("00" * 10 + "ffff0a000000", 104), ("20010db8" + "00" * 11 + "01", 32),
      ("00" * 15 + "01", 128), ("fd000000000000010000000000000000", 64)]
INTREE = ["reno", "cubic", "dctcp", "bbr", "cca_dctcp-reno", "dctcp-reno"]


class Fuzzer:
    def __init__(self, spec, seed, unpriv, verbose):
        self.spec, self.rng, self.unpriv = spec, random.Random(seed), unpriv
        self.verbose = verbose
        self.g = Genl(spec.family, seq=seed & 0xFFFF)
        self.mon = Genl._open()
        self.mon.setsockopt(SOL_NETLINK, NETLINK_ADD_MEMBERSHIP,
                            self.g.groups["monitor"])
        self.mon.setblocking(False)
        self.count = dict(messages=0, accepted=0, rejected=0, noops=0,
                          abandoned=0)
        self.errnos = {}
        self.state = State(self.g, spec)
        self.ccas = self.state.ccas()

    # -- value pools --

    def pick(self, *xs):
        return self.rng.choice(xs)

    def chance(self, p):
        return self.rng.random() < p

    def u(self, fmt, *pool):
        return struct.pack(fmt, self.rng.choice(pool))

    def cca_name(self):
        r = self.rng.random()
        if r < 0.7:
            return self.rng.choice(sorted(self.ccas) + INTREE[:2])
        if r < 0.9:
            return self.rng.choice(INTREE)
        return self.pick("", "nosuch", "x" * 15, "cca_" + "y" * 11)

    def prefix(self):
        addr, plen = self.rng.choice(V4 if self.chance(0.7) else V6)
        if self.chance(0.1):
            plen = self.rng.choice([plen - 1, plen + 1, 33, 129, 255]) & 0xFF
        return bytes.fromhex(addr), plen

    def generation(self):
        gens = self.state.generations() or [0]
        return self.rng.choice(gens + [0, max(gens) + 1, max(gens) + 2,
                                       0xFFFFFFFF])

    def cookie(self):
        live = self.state.cookies()
        if live and self.chance(0.8):
            return self.rng.choice(live)
        return self.rng.choice([0, 1, 0xFFFFFFFFFFFFFFFF,
                                self.rng.getrandbits(64)])

    # -- trees: op-aware where it pays, otherwise by type --

    def a(self, aset, name, value):
        return Node(self.spec.attr(aset, name), value)

    def by_type(self, attr, depth=0):
        t = attr.type
        if t == "flag":
            return True
        if t in ("u8", "u16", "u32", "u64"):
            bits = int(t[1:])
            return self.rng.choice([0, 1, 2, 3, 4, 5, 7, 16, 255,
                                    (1 << bits) - 1, self.rng.getrandbits(bits)])
        if t == "string":
            if attr.name in ("cca", "to", "name", "fallback"):
                return self.cca_name()
            return self.pick("", "a", "shift_g", "x" * 40)
        if t == "binary":
            return bytes(self.rng.getrandbits(8)
                         for _ in range(self.pick(0, 1, 4, 4, 16, 16, 17)))
        if t == "nest":
            if depth > 3:
                return []
            sub = list(self.spec.sets[attr.nested].values())
            return [Node(x, self.by_type(x, depth + 1))
                    for x in self.rng.sample(sub, self.rng.randint(0, len(sub)))]
        raise ValueError(t)

    def rule(self, match_only=False):
        s, kids = "rule", []
        loc = self.rng.choice([None, None, 1, 2, 3, 4, 0, 5])
        if loc is not None:
            kids.append(self.a(s, "locality", loc))
            if self.chance(0.4):
                kids.append(self.a(s, "region", self.pick(1, 2, 3, 0)))
            if self.chance(0.3):
                kids.append(self.a(s, "dc", self.pick(1, 7, 0)))
            if self.chance(0.15):
                addr, plen = self.rng.choice([("7f000000", 8), ("0a000000", 8),
                                              ("00" * 15 + "01", 128),
                                              ("7f000001", 33)])
                kids += [self.a(s, "local-addr", bytes.fromhex(addr)),
                         self.a(s, "local-prefixlen", plen)]
        if match_only:
            return kids
        name = self.cca_name()
        kids.append(self.a(s, "cca", name))
        params = self.ccas.get(name, [])
        for p, lo, hi in self.rng.sample(params, self.rng.randint(0, len(params))):
            v = self.rng.choice([lo, hi, (lo + hi) // 2, hi + 1]) & 0xFFFFFFFF
            kids.append(self.a(s, "param", [self.a("param", "name", p),
                                            self.a("param", "value", v)]))
        if self.chance(0.2):
            kids.append(self.a(s, "min-rto-us",
                               self.pick(999, 1000, 4000, 200000, 200001)))
        if self.chance(0.15):
            kids.append(self.a(s, "init-cwnd", self.pick(1, 2, 10, 1000, 1001)))
        if self.chance(0.15):
            kids.append(self.a(s, "tso-segs", self.pick(0, 1, 2, 255, 256)))
        return kids

    def scope_entry(self, full=True):
        addr, plen = self.prefix()
        kids = [self.a("scope", "addr", addr), self.a("scope", "prefixlen", plen)]
        if full:
            kids.append(self.a("scope", "locality",
                               self.rng.choice([1, 2, 3, 4, 1, 2, 0, 5])))
            if self.chance(0.6):
                kids.append(self.a("scope", "region", self.pick(0, 1, 2, 9)))
            if self.chance(0.5):
                kids.append(self.a("scope", "dc", self.pick(0, 1, 7)))
        return kids

    def flags(self, aset, *names):
        return [self.a(aset, n, True) for n in names if self.chance(0.3)]

    def tree(self, op):
        """Attributes for @op: what a client would send, mostly."""
        n = op.name
        if n == "cca-get":
            return [self.a("cca", "name", self.cca_name())] if self.chance(0.8) else []
        if n in ("scope-add", "scope-del"):
            return self.scope_entry(n == "scope-add")
        if n == "scope-get":
            return [self.a("scope", "addr", self.prefix()[0])]
        if n == "scope-flush":
            return []
        if n == "scope-load":
            k = self.rng.choice([0, 1, 2, 5, 10, 20]) if not self.chance(0.02) \
                else self.rng.choice([300, 1500])
            if k > 50:
                return [self.a("scope", "entry", [
                    self.a("scope", "addr", struct.pack(">I", 0x0A000000 + (i << 8))),
                    self.a("scope", "prefixlen", 24), self.a("scope", "locality", 2)])
                    for i in range(k)] + self.flags("scope", "dry-run")
            return [self.a("scope", "entry", self.scope_entry()) for _ in range(k)] + \
                self.flags("scope", "dry-run")
        if n in ("policy-set", "policy-del"):
            return [self.a("policy", "rule", self.rule(n == "policy-del"))] + \
                self.flags("policy", "no-migrate", "force")
        if n == "policy-apply":
            k = self.rng.choice([0, 1, 2, 3, 5, 10]) if not self.chance(0.02) else 200
            rules = [self.a("policy", "rule", self.rule()) for _ in range(k)]
            if k == 200:   # distinct matches, so the apply can succeed
                rules = [self.a("policy", "rule", [
                    self.a("rule", "locality", 1 + i % 4),
                    self.a("rule", "region", 1 + i // 4),
                    self.a("rule", "cca", "reno")]) for i in range(k)]
            return rules + self.flags("policy", "dry-run", "no-migrate", "force")
        if n in ("policy-get", "policy-rollback"):
            kids = [self.a("policy", "generation", self.generation())] \
                if n == "policy-rollback" or self.chance(0.4) else []
            return kids + (self.flags("policy", "no-migrate", "force")
                           if n == "policy-rollback" else [])
        if n == "migrate":
            return self.flags("migrate", "force")
        if n == "cca-drain":
            kids = [self.a("migrate", "cca", self.cca_name())]
            if self.chance(0.5):
                kids.append(self.a("migrate", "to", self.cca_name()))
            return kids + self.flags("migrate", "force")
        if n in ("log-add", "log-del"):
            kids = [self.a("log", "cookie", self.cookie())
                    for _ in range(self.rng.choice([0, 1, 1, 2, 3]))]
            if self.chance(0.3):
                kids.append(self.a("log", "all", True))
            return kids
        # anything else (sock-get, policy-history, log-get): the spec's list
        return [Node(self.spec.attr(op.set, x), None) for x in op.request]

    # -- encoding, with mutations --

    def encode_value(self, node):
        attr, v = node.attr, node.value
        if attr is None:
            return v if isinstance(v, bytes) else b""
        if v is None:
            v = self.by_type(attr)
        t = attr.type
        if t == "flag":
            return b""
        if t in ("u8", "u16", "u32", "u64"):
            bits = int(t[1:])
            return struct.pack({8: "=B", 16: "=H", 32: "=I", 64: "=Q"}[bits],
                               v & ((1 << bits) - 1))
        if t == "string":
            return v.encode() + b"\0"
        if t == "binary":
            return v
        if t == "nest":
            return b"".join(self.encode(k) for k in v)
        raise ValueError(t)

    def encode(self, node, p=0.03):
        data = self.encode_value(node)
        atype = node.num
        nested = node.attr is not None and node.attr.type == "nest"
        if nested:
            atype |= NLA_F_NESTED
        if self.chance(p):
            m = self.rng.randrange(9)
            if m == 0 and data:                      # shorter
                data = data[:self.rng.randrange(len(data))]
            elif m == 1:                             # longer
                data += bytes(self.rng.randrange(1, 9))
            elif m == 2 and data.endswith(b"\0"):    # no NUL
                data = data[:-1] + b"A"
            elif m == 3:                             # a u32 for anything
                data = struct.pack("=I", self.rng.getrandbits(32))
            elif m == 4 and nested:                  # old-style nest
                atype &= ~NLA_F_NESTED
            elif m == 5 and nested:                  # garbage inside
                data += bytes(self.rng.getrandbits(8)
                              for _ in range(self.rng.randrange(1, 12)))
            elif m == 6:                             # header lies
                hdr_len = 4 + len(data) + self.rng.choice([-3, -1, 1, 4, 200])
                return struct.pack("=HH", max(0, hdr_len) & 0xFFFF, atype) + \
                    data + b"\0" * (align(len(data)) - len(data))
            elif m == 7:                             # another type number
                atype = self.rng.choice([0, atype + 1, 0x3FFF, 0x7FFF])
            elif m == 8:                             # repeated
                return nla(atype, data) * 2
        return nla(atype, data)

    def message(self):
        """(description, op, command, genl body bytes, nlmsg flags)."""
        ops = [op for op in self.spec.ops.values() if not op.notify]
        op = self.rng.choice(ops)
        kids = self.tree(op)
        aset = self.spec.sets.get(op.set, {})
        if aset and self.chance(0.06):           # one the op does not take
            x = self.rng.choice(list(aset.values()))
            kids.append(Node(x, self.by_type(x)))
        if self.chance(0.04):                    # unknown type numbers
            kids.append(Node(None, bytes(self.rng.randrange(0, 9)),
                             num=self.rng.choice([len(aset) + 1, len(aset) + 7,
                                                  200, 0x3FFF])))
        if self.chance(0.05):
            self.rng.shuffle(kids)
        payload = b"".join(self.encode(k) for k in kids)
        if self.chance(0.02):
            payload = bytes(self.rng.getrandbits(8)
                            for _ in range(self.rng.randrange(0, 64)))
        elif self.chance(0.02) and payload:      # truncated at the end
            payload = payload[:-self.rng.randrange(1, min(len(payload), 8) + 1)]
        cmd, version, reserved = op.num, 1, 0
        dump = op.dump and (not op.do or self.chance(0.5))
        if self.chance(0.04):
            dump = not dump                      # the mode the op lacks
        flags = NLM_F_REQUEST | (NLM_F_DUMP if dump else NLM_F_ACK)
        if self.chance(0.02):
            flags |= self.pick(NLM_F_ECHO, 0x400, 0x800, 0x100, 0x200)
        if self.chance(0.02):
            reserved = self.pick(1, 0x8000)
        if self.chance(0.02):
            version = self.pick(0, 2, 255)
        if self.chance(0.02):
            cmd = self.rng.choice([0, self.spec.max_cmd + 1, 200, 255] +
                                  [o.num for o in self.spec.ops.values()
                                   if o.notify])
        body = struct.pack("=BBH", cmd, version, reserved) + payload
        if self.chance(0.01):
            body = body[:self.rng.randrange(0, 4)]   # no full genl header
        name = op.name if cmd == op.num else "cmd %d" % cmd
        return name + (" dump" if flags & NLM_F_DUMP == NLM_F_DUMP else " do"), \
            op, cmd, body, flags

    # -- one step --

    def notifications(self):
        gens = []
        while True:
            try:
                buf = self.mon.recv(1 << 16)
            except BlockingIOError:
                return gens
            except OSError:         # ENOBUFS: a burst overran the queue
                raise Violation("monitor socket overrun")
            while len(buf) >= 20:
                mlen = struct.unpack_from("=I", buf)[0]
                cmd = buf[16]
                if cmd == self.spec.ops["policy-ntf"].num:
                    for t, v in parse_attrs(buf[20:mlen]):
                        if t == self.spec.attr("policy", "generation").num:
                            gens.append(struct.unpack("=I", v)[0])
                buf = buf[align(mlen):]

    def abandon_dump(self):
        """A dump request on a socket of its own, one read, then close."""
        name = self.pick("scope-get", "policy-get", "sock-get", "cca-get",
                         "policy-history", "stats-get")
        s = Genl._open()
        try:
            self.g.send(self.g.id, struct.pack("=BBH", self.spec.ops[name].num,
                                               1, 0), NLM_F_REQUEST | NLM_F_DUMP,
                        sock=s)
            self.g.answer(sock=s, once=True)
        finally:
            s.close()
        self.count["abandoned"] += 1

    def effect(self, op, before, after, changed, body, replies):
        """Why the accepted change @op does not show in @after as it must
        (None if it does). Unchanged dumps are allowed only for the
        documented no-ops."""
        n = op.name
        num = lambda aset, x: self.spec.attr(aset, x).num
        u32 = lambda b: struct.unpack("=I", b)[0]
        req = dict(parse_attrs(body[4:]))
        reply = dict(parse_attrs(replies[0][4:])) if replies else {}
        zero = b"\0" * 4

        def entry(d):
            return (d.get(num("scope", "addr")), d.get(num("scope", "prefixlen")),
                    d.get(num("scope", "locality")), d.get(num("scope", "region"), zero),
                    d.get(num("scope", "dc"), zero))

        if n.startswith("policy-"):
            if num("policy", "unchanged") in reply or \
                    (n == "policy-apply" and num("policy", "dry-run") in req):
                return "a dry run or an unchanged policy changed %s" % changed \
                    if changed else None
            gen = u32(reply.get(num("policy", "generation"), zero))
            if gen in before.generations() or gen not in after.generations():
                return "reply's generation %d is not a new one in the history" % gen
            return None
        if n in ("migrate", "cca-drain"):
            moved = u32(reply.get(num("migrate", "migrated"), zero))
            # listeners move too, and sock-get does not show them
            moved -= min(moved, u32(reply.get(num("migrate", "listeners"), zero)))
            if moved and "sock" not in changed:
                return "%d sockets moved, sock-get shows none" % moved
            return None
        if n == "scope-add":
            return None if entry(req) in after.scope_entries() else \
                "the entry is not in the table"
        if n == "scope-del":
            key = (req.get(num("scope", "addr")), req.get(num("scope", "prefixlen")))
            was = {e[:2] for e in before.scope_entries()}
            now = {e[:2] for e in after.scope_entries()}
            return None if key in was and key not in now else \
                "deleted an entry that was not there, or it is still there"
        if n == "scope-flush":
            return "entries left" if after.scope_entries() else None
        if n == "scope-load" and num("scope", "dry-run") in req:
            return "a dry run changed %s" % changed if changed else None
        if n == "scope-load":
            want = {entry(dict(parse_attrs(v)))
                    for t, v in parse_attrs(body[4:]) if t == num("scope", "entry")}
            return None if after.scope_entries() == want else \
                "the table is not the one loaded"
        if n in ("log-add", "log-del"):
            cookies = {struct.unpack("=Q", v)[0] for t, v in parse_attrs(body[4:])
                       if t == num("log", "cookie")}
            all_, sel = after.log()
            if n == "log-add":
                ok = (all_ if num("log", "all") in req else True) and cookies <= sel
            else:
                ok = (not all_ and not sel) if num("log", "all") in req else \
                    not cookies & sel
            return None if ok else "the selection is not what was asked"
        return "unexpected accepted change"

    def step(self):
        if self.chance(0.03):
            self.abandon_dump()
            after = State(self.g, self.spec)
            if after != self.state:
                raise Violation("an abandoned dump changed %s" %
                                after.differs(self.state))
            return
        desc, op, cmd, body, flags = self.message()
        self.g.send(self.g.id, body, flags)
        err, text, replies = self.g.answer()
        self.count["messages"] += 1
        before, after = self.state, State(self.g, self.spec)
        changed = after.differs(before)
        ntf = self.notifications()
        new_gens = sorted(set(after.generations()) - set(before.generations()))
        if self.verbose:
            print("%s: errno %d %s %s" % (desc, err, text, changed))
        try:
            if err:
                self.count["rejected"] += 1
                self.errnos[err] = self.errnos.get(err, 0) + 1
                if changed:
                    raise Violation("rejected (errno %d: %s) but changed %s" %
                                    (err, text, changed))
                if err >= 512:
                    raise Violation("kernel-internal errno %d leaked" % err)
            else:
                self.count["accepted"] += 1
                if cmd != op.num:
                    raise Violation("command %d accepted" % cmd)
                if self.unpriv and op.admin:
                    raise Violation("unprivileged change accepted")
                if not op.admin:
                    if changed:
                        raise Violation("a read changed %s" % changed)
                else:
                    why = self.effect(op, before, after, changed, body, replies)
                    if why:
                        raise Violation("accepted, but %s" % why)
                    if not changed:
                        self.count["noops"] += 1
            if ntf != new_gens:
                raise Violation("monitor announced generations %s, history "
                                "gained %s" % (ntf, new_gens))
        except Violation as v:
            raise Violation("%s: %s\n  message: %s" % (desc, v, body.hex()))
        self.state = after
        if op.name.startswith("cca") or self.chance(0.05):
            self.ccas = after.ccas()


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("-s", "--seed", type=int,
                    default=int.from_bytes(os.urandom(4), "little"))
    ap.add_argument("-n", "--messages", type=int, default=1000)
    ap.add_argument("-t", "--seconds", type=float, default=0)
    ap.add_argument("--unpriv", action="store_true")
    ap.add_argument("-v", "--verbose", action="store_true")
    ap.add_argument("spec")
    args = ap.parse_args()
    print("fuzz: seed %d (%s)" % (args.seed, "unprivileged" if args.unpriv
                                  else "privileged"), flush=True)
    f = Fuzzer(Spec(args.spec), args.seed, args.unpriv, args.verbose)
    end = time.monotonic() + args.seconds if args.seconds else None
    status = 0
    try:
        while f.count["messages"] < args.messages and \
                (end is None or time.monotonic() < end):
            f.step()
    except Violation as v:
        print("FAIL: fuzz seed %d, message %d: %s" %
              (args.seed, f.count["messages"], v), flush=True)
        status = 1
    c = f.count
    print("fuzz: seed %d: %d messages, %d accepted, %d rejected, %d no-ops, "
          "%d dumps abandoned; errnos %s" %
          (args.seed, c["messages"], c["accepted"], c["rejected"], c["noops"],
           c["abandoned"], dict(sorted(f.errnos.items()))), flush=True)
    return status


if __name__ == "__main__":
    sys.exit(main())
