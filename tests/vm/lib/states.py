#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Hold server sockets in the TCP states past ESTABLISHED that keep a CCA.

  states.py -c NETNS ADDR PORT READY

In the caller's network namespace (the server side), with clients opened in
the namespace NETNS (/run/netns/NETNS):

  close_wait  a client connects to ADDR:PORT and closes; the accepted
              socket is never closed (CLOSE_WAIT for as long as this runs)
  accept_q    a client connects to ADDR:PORT+1, whose listener never
              accepts: an ESTABLISHED child with no struct socket yet
  fin_wait2   an accepted socket is shut down for writing (its application
              half-closed it), its client never closes: FIN_WAIT2. (Closed,
              it would become a TIME_WAIT socket, which holds no CCA.)
  fin_wait1   an accepted socket fills its client's receive window (the
              client never reads), then is closed with data unsent: an
              orphan in FIN_WAIT1, probing the zero window

then writes the server-side local ports "PORT PORT+1" to READY and holds
everything until SIGTERM. Exits 1 if a state could not be reached.
"""
import ctypes
import os
import signal
import socket
import sys
import time

CLONE_NEWNET = 0x40000000
libc = ctypes.CDLL(None, use_errno=True)


def setns(fd):
    if libc.setns(fd, CLONE_NEWNET):
        raise OSError(ctypes.get_errno(), "setns")


def state_of(port, state):
    """Does the server namespace have a socket in STATE (ss name) on PORT?"""
    out = os.popen("ss -tanH state %s '( sport = :%d )'" % (state, port)).read()
    return bool(out.strip())


def wait_state(port, state, what):
    for _ in range(100):
        if state_of(port, state):
            return
        time.sleep(0.1)
    sys.exit("%s: no socket in %s on port %d" % (what, state, port))


def main():
    if sys.argv[1] != "-c":
        sys.exit(__doc__)
    client_ns, addr, port, ready = sys.argv[2], sys.argv[3], int(sys.argv[4]), sys.argv[5]
    fam = socket.AF_INET6 if ":" in addr else socket.AF_INET
    here = os.open("/proc/self/ns/net", os.O_RDONLY)
    there = os.open("/run/netns/" + client_ns, os.O_RDONLY)
    held = []

    listeners = []
    for p in (port, port + 1):
        ls = socket.socket(fam, socket.SOCK_STREAM)
        ls.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        ls.bind((addr, p))
        ls.listen(16)
        listeners.append(ls)
    accepting, never = listeners

    def connect(p, rcvbuf=None):
        setns(there)
        try:
            c = socket.socket(fam, socket.SOCK_STREAM)
            if rcvbuf:
                c.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, rcvbuf)
            c.connect((addr, p))
        finally:
            setns(here)
        held.append(c)
        return c

    # close_wait
    c = connect(port)
    s, _ = accepting.accept()
    held.append(s)
    c.close()
    held.remove(c)
    wait_state(port, "close-wait", "close_wait")

    # accept_q
    connect(port + 1)
    wait_state(port + 1, "established", "accept_q")

    # fin_wait2
    connect(port)
    s, _ = accepting.accept()
    held.append(s)
    s.shutdown(socket.SHUT_WR)
    wait_state(port, "fin-wait-2", "fin_wait2")

    # fin_wait1
    connect(port, rcvbuf=4096)
    s, _ = accepting.accept()
    s.setblocking(False)
    chunk = b"x" * 65536
    stalled = 0
    while stalled < 20:
        try:
            s.send(chunk)
            stalled = 0
        except BlockingIOError:
            stalled += 1
            time.sleep(0.05)
    s.close()
    wait_state(port, "fin-wait-1", "fin_wait1")

    with open(ready + ".tmp", "w") as f:
        f.write("%d %d\n" % (port, port + 1))
    os.rename(ready + ".tmp", ready)
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(0))
    while True:
        signal.pause()


if __name__ == "__main__":
    main()
