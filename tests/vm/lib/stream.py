#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Bulk TCP streams that report their longest pause, for upgrade tests.

  stream.py sink ADDR PORT N REPORT [--cc NAME]
      accept N connections (on a listener with TCP_CONGESTION NAME) and read each until its peer closes; then
      write REPORT (JSON): per stream the bytes read and the longest time
      between two reads (ms), and exit
  stream.py send ADDR PORT N SECONDS [--cc NAME] [--until FILE]
      open N connections (TCP_CONGESTION set first, if given) and write
      to all of them as fast as they take it for SECONDS (or, with
      --until, until FILE exists, SECONDS at most), then close; exit 1 if
      any send failed (a reset)
"""
import json
import os
import select
import socket
import sys
import time


def family(addr):
    return socket.AF_INET6 if ":" in addr else socket.AF_INET


def sink(addr, port, n, report, cc=None):
    ls = socket.socket(family(addr), socket.SOCK_STREAM)
    ls.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    if cc:
        ls.setsockopt(socket.IPPROTO_TCP, socket.TCP_CONGESTION, cc.encode())
    ls.bind((addr, port))
    ls.listen(n)
    conns = [ls.accept()[0] for _ in range(n)]
    st = {c.fileno(): {"bytes": 0, "last": time.monotonic(), "max_gap_ms": 0.0,
                       "error": None} for c in conns}
    live = list(conns)
    while live:
        r, _, _ = select.select(live, [], [])
        now = time.monotonic()
        for c in r:
            s = st[c.fileno()]
            try:
                data = c.recv(1 << 16)
            except OSError as e:
                s["error"] = str(e)
                data = b""
            if not data:
                live.remove(c)
                continue
            s["bytes"] += len(data)
            s["max_gap_ms"] = max(s["max_gap_ms"], (now - s["last"]) * 1000)
            s["last"] = now
    with open(report, "w") as f:
        json.dump([{k: v for k, v in s.items() if k != "last"}
                   for s in st.values()], f)


def send(addr, port, n, seconds, cc=None, until=None):
    conns = []
    for _ in range(n):
        c = socket.socket(family(addr), socket.SOCK_STREAM)
        if cc:
            c.setsockopt(socket.IPPROTO_TCP, socket.TCP_CONGESTION, cc.encode())
        c.connect((addr, port))
        c.setblocking(False)
        conns.append(c)
    buf = b"x" * (1 << 16)
    end = time.monotonic() + seconds
    ok = True
    while time.monotonic() < end and not (until and os.path.exists(until)):
        _, w, _ = select.select([], conns, [], 0.5)
        for c in w:
            try:
                c.send(buf)
            except BlockingIOError:
                pass
            except OSError as e:
                print("send failed: %s" % e, file=sys.stderr)
                ok = False
                conns.remove(c)
    for c in conns:
        c.setblocking(True)
        c.shutdown(socket.SHUT_WR)
        c.close()
    return 0 if ok else 1


def main(argv):
    cc = argv[argv.index("--cc") + 1] if "--cc" in argv else None
    if argv[1] == "sink":
        sink(argv[2], int(argv[3]), int(argv[4]), argv[5], cc)
        return 0
    if argv[1] == "send":
        until = argv[argv.index("--until") + 1] if "--until" in argv else None
        return send(argv[2], int(argv[3]), int(argv[4]), float(argv[5]), cc, until)
    print(__doc__, file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv))
