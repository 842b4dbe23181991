#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""One connection of tests/vm/26-cubic-twin.sh, from its client's TCP_INFO.

  cubic_twin.py sink PORT
      accept connections on PORT and discard what they send
  cubic_twin.py run ADDR PORT CCA STEP HOLE RESTORE
      connect on CCA; send 10 small packets one at a time (the path's RTT
      is learned, cwnd stays 10); run the shell command STEP (the path's delay steps
      up); send in bulk until slow start ends (ssthresh set); go on for
      1.5 s; run HOLE (every packet lost); at the timeout (ca_state Loss)
      note ssthresh and the cwnd the last ACKs left; run RESTORE;
      note cwnd when slow start reaches ssthresh and 2 s after.
      Prints one line: "exit_cwnd=N exit_ssthresh=N hole_cwnd=N
      rto_ssthresh=N ca_start=N ca_2s=N".

The bulk sender is non-blocking and polls TCP_INFO every millisecond or
so, between writes.
"""
import os
import select
import socket
import struct
import subprocess
import sys
import time

INFINITE = 0x7FFFFFFF	# tcpi_snd_ssthresh before any reduction
TCP_CA_LOSS = 4


def info(s):
    """(ca_state, ssthresh, cwnd, total_retrans) from TCP_INFO."""
    b = s.getsockopt(socket.IPPROTO_TCP, socket.TCP_INFO, 104)
    ssthresh, cwnd = struct.unpack_from("II", b, 76)
    return b[1], ssthresh, cwnd, struct.unpack_from("I", b, 100)[0]


def sink(port):
    ls = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    ls.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    ls.bind(("0.0.0.0", port))
    ls.listen(8)
    while True:
        c, _ = ls.accept()
        if os.fork() == 0:
            ls.close()
            while c.recv(1 << 16):
                pass
            os._exit(0)
        c.close()


class Bulk:
    """A non-blocking writer that keeps the socket's buffer full."""

    def __init__(self, s):
        self.s = s
        self.buf = b"x" * 65536
        self.open_cwnd = 0
        s.setblocking(False)

    def pump(self, seconds, until=None):
        """Write and poll for @seconds, or until until(info) is true;
        self.open_cwnd is the last cwnd seen outside the Loss state."""
        end = time.monotonic() + seconds
        while time.monotonic() < end:
            select.select([], [self.s], [], 0.001)
            try:
                self.s.send(self.buf)
            except BlockingIOError:
                pass
            i = info(self.s)
            if i[0] != TCP_CA_LOSS:
                self.open_cwnd = i[2]
            if until and until(i):
                return i
        return None


def run(addr, port, cca, step, hole, restore):
    s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    s.setsockopt(socket.IPPROTO_TCP, socket.TCP_CONGESTION, cca.encode())
    s.setsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF, 4 << 20)
    s.connect((addr, port))
    # ten small packets, one at a time: the least RTT sample is the base
    # delay's even if the emulated CPU stalls some of them; one packet in
    # flight does not make cwnd the limit, so it stays 10
    s.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    for _ in range(10):
        s.sendall(b"y" * 100)
        time.sleep(0.06)
    time.sleep(0.3)
    subprocess.run(step, shell=True, check=True)
    time.sleep(0.1)

    out = {}
    bulk = Bulk(s)
    i = bulk.pump(10, lambda i: i[1] < INFINITE)
    if i is None:
        sys.exit("slow start never ended")
    out["exit_ssthresh"], out["exit_cwnd"] = i[1], i[2]
    bulk.pump(1.5)

    subprocess.run(hole, shell=True, check=True)
    # the timeout; cwnd as the last ACKs left it, before it
    i = bulk.pump(10, lambda i: i[0] == TCP_CA_LOSS)
    if i is None:
        sys.exit("no timeout")
    out["hole_cwnd"] = bulk.open_cwnd
    out["rto_ssthresh"] = i[1]
    subprocess.run(restore, shell=True, check=True)

    i = bulk.pump(20, lambda i: i[0] != TCP_CA_LOSS and i[2] >= i[1])
    if i is None:
        sys.exit("slow start after the timeout never reached ssthresh")
    out["ca_start"] = i[2]
    bulk.pump(2)
    out["ca_2s"] = info(s)[2]
    s.close()
    print(" ".join("%s=%d" % (k, out[k]) for k in
                   ("exit_cwnd", "exit_ssthresh", "hole_cwnd", "rto_ssthresh",
                    "ca_start", "ca_2s")))


def main():
    if sys.argv[1] == "sink":
        sink(int(sys.argv[2]))
    elif sys.argv[1] == "run":
        run(sys.argv[2], int(sys.argv[3]), *sys.argv[4:8])
    else:
        sys.exit(__doc__)


if __name__ == "__main__":
    main()
