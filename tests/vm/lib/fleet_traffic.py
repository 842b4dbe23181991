#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Live traffic of one emulated fleet host (tests/vm/75-fleet.sh).

  fleet_traffic.py ADDR PORT READY PEER... [--pin PEER:CCA]...

Listens on ADDR:PORT and keeps every accepted connection drained; opens one
connection to PEER:PORT for each PEER, and one more per --pin with
TCP_CONGESTION set to CCA by the application before connect (pinned: no
policy moves it). Touches READY once all are established, then writes a
1000-byte chunk on each of its connections every 200 ms until killed
(every connection carries data all along; more often would only load the
guest's one emulated CPU, on which the controller's tasks run too).
"""
import selectors
import socket
import sys
import time

CHUNK = b"x" * 1000
PERIOD = 0.2


def main(argv):
    pins = []
    args = []
    i = 1
    while i < len(argv):
        if argv[i] == "--pin":
            peer, cca = argv[i + 1].split(":")
            pins.append((peer, cca))
            i += 2
        else:
            args.append(argv[i])
            i += 1
    addr, port, ready, peers = args[0], int(args[1]), args[2], args[3:]

    sel = selectors.DefaultSelector()
    ls = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    ls.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    ls.bind((addr, port))
    ls.listen(64)
    ls.setblocking(False)
    sel.register(ls, selectors.EVENT_READ)

    out = []
    wanted = [(p, None) for p in peers] + pins
    deadline = time.monotonic() + 60
    while wanted:
        peer, cca = wanted[0]
        s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        if cca:
            s.setsockopt(socket.IPPROTO_TCP, socket.TCP_CONGESTION, cca.encode())
        s.bind((addr, 0))
        try:
            s.connect((peer, port))
        except OSError:
            # the peer's listener is not up yet
            s.close()
            if time.monotonic() > deadline:
                sys.exit("no listener at %s:%d" % (peer, port))
            accept_some(sel, ls, 0.1)
            continue
        s.setblocking(False)
        out.append(s)
        sel.register(s, selectors.EVENT_READ)
        wanted.pop(0)
    open(ready, "w").close()

    next_write = time.monotonic()
    while True:
        now = time.monotonic()
        if now >= next_write:
            for s in out:
                try:
                    s.send(CHUNK)
                except BlockingIOError:
                    pass
            next_write = now + PERIOD
        accept_some(sel, ls, max(0.0, next_write - time.monotonic()))


def accept_some(sel, ls, timeout):
    for key, _ in sel.select(timeout):
        s = key.fileobj
        if s is ls:
            c, _ = ls.accept()
            c.setblocking(False)
            sel.register(c, selectors.EVENT_READ)
            continue
        try:
            if not s.recv(65536):
                sel.unregister(s)
                s.close()
        except (BlockingIOError, ConnectionError):
            pass


if __name__ == "__main__":
    main(sys.argv)
