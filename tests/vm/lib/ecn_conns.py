#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Hold TCP connections and report the ECN codepoint their packets carry.

  ecn_conns.py ADDR PORT N READY OUT
      open N IPv4 connections to ADDR:PORT (the CCA the kernel gives them),
      touch READY once all are established, then hold them; on SIGUSR1
      write "LOCALPORT ECN" lines to OUT (atomically), where ECN is the
      low two bits of IP_TOS: 0 Not-ECT, 1 ECT(1), 2 ECT(0)
"""
import os
import signal
import socket
import sys


def main(argv):
    addr, port, n, ready, out = argv[1], int(argv[2]), int(argv[3]), argv[4], argv[5]
    held = []
    for _ in range(n):
        s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        s.connect((addr, port))
        held.append(s)

    def report(_sig, _frame):
        with open(out + ".tmp", "w") as f:
            for s in held:
                tos = s.getsockopt(socket.IPPROTO_IP, socket.IP_TOS)
                f.write("%d %d\n" % (s.getsockname()[1], tos & 3))
        os.rename(out + ".tmp", out)

    signal.signal(signal.SIGUSR1, report)
    open(ready, "w").close()
    while True:
        signal.pause()


if __name__ == "__main__":
    main(sys.argv)
