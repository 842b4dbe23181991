#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Hold TCP connections open for VM tests.

  conns.py server ADDR PORT [--cc NAME]
                                       accept and hold connections until killed
                                       (optionally setting TCP_CONGESTION on
                                       the listener)
  conns.py client ADDR PORT N READY [--cc NAME] [--hold SECONDS]
                                       open N connections (optionally setting
                                       TCP_CONGESTION before connect), touch
                                       READY once all are established, hold them
"""
import socket
import sys
import time


def server(addr, port, cc=None):
    fam = socket.AF_INET6 if ":" in addr else socket.AF_INET
    ls = socket.socket(fam, socket.SOCK_STREAM)
    ls.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    if cc:
        ls.setsockopt(socket.IPPROTO_TCP, socket.TCP_CONGESTION, cc.encode())
    ls.bind((addr, port))
    ls.listen(1024)
    held = []
    while True:
        conn, _ = ls.accept()
        held.append(conn)


def client(addr, port, n, ready, cc=None, hold=60.0):
    fam = socket.AF_INET6 if ":" in addr else socket.AF_INET
    held = []
    for _ in range(n):
        s = socket.socket(fam, socket.SOCK_STREAM)
        if cc:
            s.setsockopt(socket.IPPROTO_TCP, socket.TCP_CONGESTION, cc.encode())
        s.connect((addr, port))
        held.append(s)
    open(ready, "w").close()
    time.sleep(hold)


def main(argv):
    cc, hold, rest = None, 60.0, argv[2:]
    if "--cc" in rest:
        i = rest.index("--cc")
        cc = rest[i + 1]
        del rest[i:i + 2]
    if argv[1] == "server":
        server(rest[0], int(rest[1]), cc)
    if "--hold" in rest:
        i = rest.index("--hold")
        hold = float(rest[i + 1])
        del rest[i:i + 2]
    client(rest[0], int(rest[1]), int(rest[2]), rest[3], cc, hold)


if __name__ == "__main__":
    main(sys.argv)
