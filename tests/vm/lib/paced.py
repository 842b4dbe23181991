#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""An application-limited TCP transfer with a start signal, for VM tests.

  paced.py sink ADDR PORT
      accept connections and read each to its end, until killed
  paced.py send ADDR PORT RATE_BPS SECONDS READY GO [CHUNK]
      connect, touch READY, wait for the file GO to appear, then write
      CHUNK bytes (default 5000) at RATE_BPS bits/s for SECONDS, close
      the write side and wait for the peer to close
  paced.py bursts ADDR PORT CCA COUNT BYTES
      connect on congestion control CCA, then COUNT times: write BYTES,
      wait until all of it is acknowledged, and stay idle 0.2 s more; so
      every burst starts with nothing in flight (CA_EVENT_TX_START)

The pause between connect and GO lets a test select the live connection
(ccactl log add cookie N) before any data is sent.
"""
import fcntl
import os
import socket
import struct
import sys
import termios
import threading
import time


def family(addr):
    return socket.AF_INET6 if ":" in addr else socket.AF_INET


def drain(conn):
    with conn:
        while conn.recv(65536):
            pass


def sink(addr, port):
    ls = socket.socket(family(addr), socket.SOCK_STREAM)
    ls.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    ls.bind((addr, port))
    ls.listen(16)
    while True:
        conn, _ = ls.accept()
        threading.Thread(target=drain, args=(conn,), daemon=True).start()


def send(addr, port, rate_bps, secs, ready, go, chunk=5000):
    s = socket.create_connection((addr, port))
    open(ready, "w").close()
    while not os.path.exists(go):
        time.sleep(0.05)
    data = b"x" * chunk
    interval = chunk * 8 / rate_bps
    start = time.monotonic()
    n = 0
    while time.monotonic() - start < secs:
        s.sendall(data)
        n += 1
        delay = start + n * interval - time.monotonic()
        if delay > 0:
            time.sleep(delay)
    s.shutdown(socket.SHUT_WR)
    while s.recv(4096):
        pass
    s.close()


def unacked(s):
    # SIOCOUTQ (TIOCOUTQ): bytes written and not yet acknowledged
    return struct.unpack("i", fcntl.ioctl(s.fileno(), termios.TIOCOUTQ,
                                          b"\0" * 4))[0]


def bursts(addr, port, cca, count, nbytes):
    s = socket.socket(family(addr), socket.SOCK_STREAM)
    s.setsockopt(socket.IPPROTO_TCP, socket.TCP_CONGESTION, cca.encode())
    s.connect((addr, port))
    data = b"x" * nbytes
    for _ in range(count):
        s.sendall(data)
        while unacked(s):
            time.sleep(0.01)
        time.sleep(0.2)
    s.close()


def main(argv):
    if len(argv) == 4 and argv[1] == "sink":
        sink(argv[2], int(argv[3]))
    elif len(argv) in (8, 9) and argv[1] == "send":
        send(argv[2], int(argv[3]), float(argv[4]), float(argv[5]), argv[6],
             argv[7], *(int(a) for a in argv[8:]))
    elif len(argv) == 7 and argv[1] == "bursts":
        bursts(argv[2], int(argv[3]), argv[4], int(argv[5]), int(argv[6]))
    else:
        sys.exit(__doc__)


if __name__ == "__main__":
    main(sys.argv)
