#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Connection churn for the race soak (tests/vm/95-soak.sh).

  soak_conns.py server PORTS STATS [options]
      PORTS: comma-separated SPEC, each 4:PORT (IPv4 listener), 6:PORT
      (IPv6-only listener) or d:PORT (dual-stack listener on ::). Serves
      what the clients send (short requests, held and bulk connections);
      until the deadline it also closes and reopens listeners, and leaves
      some of them unaccepted for a while (children pile up in the accept
      queue) before closing them with their queue.
  soak_conns.py client TARGETS STATS [options]
      TARGETS: comma-separated ADDR:PORT (an IPv6 address in brackets).
      Until the deadline or --max connections: short connections
      (connect, send, maybe read the reply, close or abort) and a pool of
      --long held connections, --bulk of them sending all the time, some
      replaced now and then; --cc-prob of the connections set
      TCP_CONGESTION first (pinned) to one of --cc.

  soak_conns.py queue-server PORT BACKLOG
      listen on PORT (dual-stack) and never accept: children stay in the
      accept queue until the process is killed (at most 60 s)
  soak_conns.py queue-client ADDR:PORT N READY SECONDS
      for SECONDS: open up to N connections to it, touch READY, hold them
      until the listener's end resets them, remove READY, and again

The server and the client write their counts to STATS (JSON) every
second, stop churning after --seconds (or at the epoch time --until),
write the counts again (the client adds "held", the number of connections
it keeps), then hold what they have open until SIGTERM or --hold more
seconds, and exit. Every random choice comes from --seed.
"""
import argparse
import errno
import json
import os
import random
import selectors
import signal
import socket
import struct
import sys
import time

SHORT, LONG, BULK = b"S", b"L", b"B"
REPLY = b"r" * 512
CHUNK = 16384


class Stop(Exception):
    pass


def on_term(*_):
    raise Stop()


def family_of(addr):
    """'v4' or 'v6' for a peer address (IPv4-mapped counts as v4)."""
    if ":" not in addr or addr.startswith("::ffff:"):
        return "v4"
    return "v6"


def write_stats(path, stats):
    tmp = path + ".tmp"
    with open(tmp, "w") as f:
        json.dump(stats, f, sort_keys=True)
    os.replace(tmp, path)


def churn_deadline(args):
    """--until (the wall clock's epoch seconds, shared with the other
    workers) or --seconds from now, on the monotonic clock."""
    if args.until:
        return time.monotonic() + args.until - time.time()
    return time.monotonic() + args.seconds


# ---- server ----------------------------------------------------------------


class Listener:
    """One listening socket, closed and reopened on the same port."""

    def __init__(self, spec, sel):
        kind, port = spec.split(":")
        self.kind, self.port, self.sel = kind, int(port), sel
        self.sock = None
        self.accepting = False
        self.lazy_until = 0.0
        self.close_after_lazy = False

    def open(self):
        if self.kind == "4":
            s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
            addr = ("0.0.0.0", self.port)
        else:
            s = socket.socket(socket.AF_INET6, socket.SOCK_STREAM)
            s.setsockopt(socket.IPPROTO_IPV6, socket.IPV6_V6ONLY,
                         1 if self.kind == "6" else 0)
            addr = ("::", self.port)
        s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            s.bind(addr)
            s.listen(64)
        except OSError:
            s.close()
            raise
        s.setblocking(False)
        self.sock = s
        self.accept(True)

    def accept(self, on):
        """Start or stop taking connections out of the accept queue."""
        if on and not self.accepting:
            self.sel.register(self.sock, selectors.EVENT_READ, self)
        elif not on and self.accepting:
            self.sel.unregister(self.sock)
        self.accepting = on

    def close(self):
        self.accept(False)
        self.sock.close()
        self.sock = None


def server(args):
    rnd = random.Random(args.seed)
    sel = selectors.DefaultSelector()
    listeners = [Listener(spec, sel) for spec in args.ports.split(",")]
    st = {"accepted_v4": 0, "accepted_v6": 0, "listener_cycles": 0,
          "lazy_periods": 0, "closed_lazy": 0, "short_served": 0,
          "bytes_in": 0, "reopen_failed": 0, "loops": 0}
    conns = {}  # socket -> [request kind or None, header bytes, bytes due]
    for ls in listeners:
        ls.open()
    deadline = churn_deadline(args)
    hold_end = None
    next_cycle = time.monotonic() + rnd.uniform(0.3, 1.0)
    next_stats = 0.0

    def drop(c):
        sel.unregister(c)
        conns.pop(c, None)
        c.close()

    def serve(c):
        req = conns[c]
        try:
            data = c.recv(65536)
        except OSError:
            data = b""
        if not data:
            drop(c)
            return
        st["bytes_in"] += len(data)
        if req[0] is None:
            req[1] += data
            if len(req[1]) < 5 and req[1][:1] == SHORT:
                return
            req[0] = req[1][:1]
            if req[0] == SHORT:
                req[2] = struct.unpack("!I", req[1][1:5])[0]
                data = req[1][5:]
            req[1] = b""
        if req[0] != SHORT:
            return
        req[2] -= len(data)
        if req[2] <= 0:
            try:
                c.send(REPLY)
            except OSError:
                pass
            st["short_served"] += 1
            drop(c)

    def reopen(ls):
        try:
            ls.open()
        except OSError:
            st["reopen_failed"] += 1
            return False
        return True

    try:
        while True:
            now = time.monotonic()
            st["loops"] += 1
            if now >= deadline and hold_end is None:
                # Churn over: every listener open and accepting.
                for ls in listeners:
                    ls.lazy_until = 0.0
                    for _ in range(50):
                        if ls.sock is not None or reopen(ls):
                            break
                        time.sleep(0.2)
                    if ls.sock is not None:
                        ls.accept(True)
                write_stats(args.stats, st)
                hold_end = now + args.hold
            if hold_end is not None and now >= hold_end:
                break
            churning = hold_end is None
            if churning and now >= next_stats:
                write_stats(args.stats, st)
                next_stats = now + 1
            for ls in listeners:
                if not ls.lazy_until or now < ls.lazy_until:
                    continue
                ls.lazy_until = 0.0
                if ls.sock is None:
                    if not reopen(ls):
                        ls.lazy_until = now + 0.2
                elif ls.close_after_lazy:
                    # Closed with unaccepted children in its queue.
                    ls.close()
                    st["closed_lazy"] += 1
                    ls.lazy_until = now + rnd.uniform(0, 0.3)
                else:
                    ls.accept(True)
            if churning and now >= next_cycle:
                next_cycle = now + rnd.uniform(0.3, 1.5)
                ls = rnd.choice(listeners)
                if not ls.lazy_until:
                    if rnd.random() < 0.5:
                        # Stop accepting for a while.
                        ls.accept(False)
                        ls.close_after_lazy = rnd.random() < 0.6
                        st["lazy_periods"] += 1
                    else:
                        ls.close()
                        ls.close_after_lazy = False
                        st["listener_cycles"] += 1
                    ls.lazy_until = now + rnd.uniform(0.3, 1.5)
            for key, _ in sel.select(timeout=0.05):
                obj = key.data
                if isinstance(obj, Listener):
                    try:
                        c, peer = obj.sock.accept()
                    except OSError:
                        continue
                    c.setblocking(False)
                    st["accepted_" + family_of(peer[0])] += 1
                    conns[c] = [None, b"", 0]
                    sel.register(c, selectors.EVENT_READ, None)
                else:
                    serve(key.fileobj)
    except Stop:
        pass
    if hold_end is None:
        write_stats(args.stats, st)


# ---- client ----------------------------------------------------------------


def parse_target(t):
    host, port = t.rsplit(":", 1)
    if host.startswith("["):
        return socket.AF_INET6, host[1:-1], int(port)
    return socket.AF_INET, host, int(port)


def client(args):
    rnd = random.Random(args.seed)
    targets = [parse_target(t) for t in args.targets.split(",")]
    ccs = [c for c in args.cc.split(",") if c]
    st = {"short_v4": 0, "short_v6": 0, "long_v4": 0, "long_v6": 0,
          "failed": 0, "refused": 0, "aborted": 0, "pinned": 0,
          "cc_failed": 0, "replaced": 0, "bytes_out": 0}
    pool = []  # [socket, bulk]
    deadline = churn_deadline(args)

    def connect(kind):
        fam, host, port = rnd.choice(targets)
        s = socket.socket(fam, socket.SOCK_STREAM)
        if ccs and rnd.random() < args.cc_prob:
            try:
                s.setsockopt(socket.IPPROTO_TCP, socket.TCP_CONGESTION,
                             rnd.choice(ccs).encode())
                st["pinned"] += 1
            except OSError:
                # e.g. its module is being unloaded
                st["cc_failed"] += 1
        s.settimeout(5)
        try:
            s.connect((host, port))
            if kind == SHORT:
                n = rnd.randint(1, 8192)
                s.sendall(kind + struct.pack("!I", n) + b"x" * n)
            else:
                s.sendall(kind)
        except OSError as e:
            st["refused" if e.errno == errno.ECONNREFUSED else "failed"] += 1
            s.close()
            return None
        fam_name = "v6" if fam == socket.AF_INET6 else "v4"
        st[("short_" if kind == SHORT else "long_") + fam_name] += 1
        return s

    def close(s, abort):
        if abort:
            s.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER,
                         struct.pack("ii", 1, 0))
            st["aborted"] += 1
        s.close()

    def opened():
        return sum(st[k] for k in ("short_v4", "short_v6", "long_v4", "long_v6"))

    next_stats = 0.0
    try:
        while time.monotonic() < deadline and opened() < args.max:
            if time.monotonic() >= next_stats:
                # now and then: a killed client still leaves its counts
                write_stats(args.stats, st)
                next_stats = time.monotonic() + 1
            r = rnd.random()
            if len(pool) < args.long or r < 0.05:
                if len(pool) >= args.long:
                    old = pool.pop(rnd.randrange(len(pool)))
                    close(old[0], rnd.random() < 0.3)
                    st["replaced"] += 1
                bulk = sum(1 for p in pool if p[1]) < args.bulk
                s = connect(BULK if bulk else LONG)
                if s:
                    s.setblocking(False)
                    pool.append([s, bulk])
            else:
                s = connect(SHORT)
                if s:
                    if rnd.random() < 0.6:
                        try:
                            while s.recv(65536):
                                pass
                        except OSError:
                            pass
                    close(s, rnd.random() < 0.2)
            for p in pool:
                if p[1]:
                    try:
                        st["bytes_out"] += p[0].send(b"b" * CHUNK)
                    except (BlockingIOError, InterruptedError):
                        pass
                    except OSError:
                        p[1] = False
            time.sleep(rnd.uniform(0, args.pause))
        st["held"] = len(pool)
        write_stats(args.stats, st)
        time.sleep(args.hold)
    except Stop:
        if "held" not in st:
            st["held"] = len(pool)
            write_stats(args.stats, st)


def queue_server(port, backlog):
    s = socket.socket(socket.AF_INET6, socket.SOCK_STREAM)
    s.setsockopt(socket.IPPROTO_IPV6, socket.IPV6_V6ONLY, 0)
    s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    s.bind(("::", port))
    s.listen(backlog)
    time.sleep(60)


def queue_client(target, n, ready, seconds):
    fam, host, port = parse_target(target)
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        held = []
        for _ in range(n):
            c = socket.socket(fam, socket.SOCK_STREAM)
            c.settimeout(3)
            try:
                c.connect((host, port))
            except OSError:
                c.close()
                break
            held.append(c)
        if not held:
            time.sleep(0.2)
            continue
        open(ready, "w").close()
        try:
            held[0].settimeout(max(0.1, deadline - time.monotonic()))
            held[0].recv(1)
        except OSError:
            pass
        os.unlink(ready)
        for c in held:
            c.close()


def main():
    if sys.argv[1] == "queue-server":
        queue_server(int(sys.argv[2]), int(sys.argv[3]))
        return
    if sys.argv[1] == "queue-client":
        queue_client(sys.argv[2], int(sys.argv[3]), sys.argv[4],
                     float(sys.argv[5]))
        return
    p = argparse.ArgumentParser()
    p.add_argument("mode", choices=["server", "client"])
    p.add_argument("spec")
    p.add_argument("stats")
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--seconds", type=float, default=60)
    p.add_argument("--until", type=float, default=0)
    p.add_argument("--hold", type=float, default=120)
    p.add_argument("--max", type=int, default=100000)
    p.add_argument("--long", type=int, default=8)
    p.add_argument("--bulk", type=int, default=2)
    p.add_argument("--cc", default="")
    p.add_argument("--cc-prob", type=float, default=0.1)
    p.add_argument("--pause", type=float, default=0.05)
    args = p.parse_args()
    signal.signal(signal.SIGTERM, on_term)
    if args.mode == "server":
        args.ports = args.spec
        server(args)
    else:
        args.targets = args.spec
        client(args)


if __name__ == "__main__":
    main()
