#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Synchronized short transfers (incast / partition-aggregate) for VM tests.

  burst.py recv ADDR PORT N ROUNDS BYTES [GAP_S [WARM]]
      listen, accept N connections, then ROUNDS times: send one request
      byte on every connection at once, read BYTES from each, sleep GAP_S
      (default 0.05).  Prints JSON: {"fct_ms": [[per connection] per round],
      "round_ms": [per round], "ports": [per connection]}, times from the
      request to the last byte, ports the senders' (the connections' order).
      With WARM, a warm-up round comes first (not reported); then the file
      WARM.done is created and the rounds wait for a file WARM.go, so that
      the caller can read counters in between.
  burst.py send ADDR PORT N BYTES [READY [RETRANS]]
      open N connections to ADDR:PORT (the namespace's policy chooses their
      CCA), touch READY once all are up, answer every request byte with
      BYTES, until the receiver closes. With RETRANS, write there as JSON
      {port: [retransmissions of each answer, in order]}: the socket's
      tcpi_total_retrans when each request arrives and at the close, as
      differences. A round's answer is complete at the receiver before
      the next request leaves, so what is retransmitted between two
      requests belongs to the first one's answer.
"""
import json
import os
import selectors
import socket
import struct
import sys
import time

# struct tcp_info: 8 bytes of u8 fields, then u32s; tcpi_total_retrans is
# the 24th u32 (include/uapi/linux/tcp.h).
TCPI_TOTAL_RETRANS = 8 + 23 * 4


def total_retrans(s):
    info = s.getsockopt(socket.IPPROTO_TCP, socket.TCP_INFO, 104)
    return struct.unpack_from("I", info, TCPI_TOTAL_RETRANS)[0]


def family(addr):
    return socket.AF_INET6 if ":" in addr else socket.AF_INET


def wait_go(warm):
    open(warm + ".done", "w").close()
    while not os.path.exists(warm + ".go"):
        time.sleep(0.01)


def recv(addr, port, n, rounds, nbytes, gap, warm):
    ls = socket.socket(family(addr), socket.SOCK_STREAM)
    ls.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    ls.bind((addr, port))
    ls.listen(n)
    conns = [ls.accept()[0] for _ in range(n)]
    for c in conns:
        c.setblocking(False)
    sel = selectors.DefaultSelector()
    fct, round_ms = [], []
    buf = bytearray(nbytes)
    for r in range(rounds + (1 if warm else 0)):
        left = {c.fileno(): nbytes for c in conns}
        done = {}
        for c in conns:
            # wake up once the whole answer is there, not for every segment:
            # an emulated CPU would otherwise be slower than the network
            c.setsockopt(socket.SOL_SOCKET, socket.SO_RCVLOWAT, nbytes)
            sel.register(c, selectors.EVENT_READ)
        # the requests in a tight loop, so that the answers meet in the
        # bottleneck's queue: under TCG, anything else between two sends
        # spreads them over more than a packet's time on the link
        start = time.monotonic()
        for c in conns:
            c.send(b"r")
        while left:
            for key, _ in sel.select():
                c = key.fileobj
                n = c.recv_into(buf, left[c.fileno()])
                if not n:
                    raise SystemExit("burst.py: sender closed early")
                left[c.fileno()] -= n
                if left[c.fileno()] == 0:
                    del left[c.fileno()]
                    done[c.fileno()] = time.monotonic() - start
                    sel.unregister(c)
                else:
                    c.setsockopt(socket.SOL_SOCKET, socket.SO_RCVLOWAT,
                                 left[c.fileno()])
        if warm and r == 0:
            wait_go(warm)
            continue
        fct.append([round(done[c.fileno()] * 1000, 3) for c in conns])
        round_ms.append(round((time.monotonic() - start) * 1000, 3))
        time.sleep(gap)
    ports = [c.getpeername()[1] for c in conns]
    for c in conns:
        c.close()
    json.dump({"fct_ms": fct, "round_ms": round_ms, "ports": ports},
              sys.stdout)
    print()


def send(addr, port, n, nbytes, ready, retrans_out):
    socks = []
    for _ in range(n):
        s = socket.socket(family(addr), socket.SOCK_STREAM)
        s.connect((addr, port))
        s.setblocking(False)
        socks.append(s)
    if ready:
        open(ready, "w").close()
    # One thread for all connections: every answer is written as soon as
    # the loop sees its request, without a thread switch in between.
    payload = bytes(nbytes)
    sel = selectors.DefaultSelector()
    pending = {}
    # per socket: tcpi_total_retrans at each request, then at the close
    marks = {s: [] for s in socks}
    port = {s: s.getsockname()[1] for s in socks}
    for s in socks:
        sel.register(s, selectors.EVENT_READ)
    while socks:
        for key, ev in sel.select():
            s = key.fileobj
            if ev & selectors.EVENT_READ:
                try:
                    got = s.recv(64)
                except ConnectionError:
                    got = b""
                marks[s].append(total_retrans(s))
                if not got:
                    sel.unregister(s)
                    s.close()
                    socks.remove(s)
                    pending.pop(s, None)
                    continue
                pending[s] = pending.get(s, b"") + payload * len(got)
            if pending.get(s):
                try:
                    sent = s.send(pending[s])
                except BlockingIOError:
                    sent = 0
                pending[s] = pending[s][sent:]
                sel.modify(s, selectors.EVENT_READ |
                           (selectors.EVENT_WRITE if pending[s] else 0))
    if retrans_out:
        with open(retrans_out, "w") as f:
            json.dump({port[s]: [b - a for a, b in zip(m, m[1:])]
                       for s, m in marks.items()}, f)


def main(argv):
    if len(argv) >= 7 and argv[1] == "recv":
        gap = float(argv[7]) if len(argv) > 7 else 0.05
        warm = argv[8] if len(argv) > 8 else None
        recv(argv[2], int(argv[3]), int(argv[4]), int(argv[5]), int(argv[6]),
             gap, warm)
    elif len(argv) >= 6 and argv[1] == "send":
        send(argv[2], int(argv[3]), int(argv[4]), int(argv[5]),
             argv[6] if len(argv) > 6 else None,
             argv[7] if len(argv) > 7 else None)
    else:
        sys.exit(__doc__)


if __name__ == "__main__":
    main(sys.argv)
