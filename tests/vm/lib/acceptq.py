#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Close listeners with full accept queues while migration passes run.

  acceptq.py [-v] [-c NETNS] ADDR PORT N ROUNDS [LISTENERS]

In the caller's network namespace, ROUNDS times: listen on ADDR:PORT (and
the next ports, LISTENERS in all, default 1), open N client connections to
them that are never accepted (their handshakes complete, so N established
children wait in the accept queues), then close the listeners one by one,
each after a random pause of up to 20 ms; closing a listener tears its
children down. Meanwhile a second process sends CCAAS_CMD_MIGRATE requests
back to back, so that the closes land while a pass walks the children. It
is stopped while the clients connect, so that rounds are quick.

-c NETNS opens the clients in the named namespace (/run/netns/NETNS), so
that the passes walk only the children. -v prints a line as each round
ends. At the end, prints "rounds R children C migrations M" and exits 0;
exits 1 if a round could not be set up or a migration request failed.
"""
import ctypes
import os
import random
import select
import signal
import socket
import struct
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from genl import Genl  # noqa: E402

CCAAS_CMD_MIGRATE = 13
CLONE_NEWNET = 0x40000000
libc = ctypes.CDLL(None, use_errno=True)


def setns(fd):
    if libc.setns(fd, CLONE_NEWNET):
        err = ctypes.get_errno()
        raise OSError(err, os.strerror(err))


def migrator(wfd):
    """Send MIGRATE until SIGTERM; write the count (or -errno) to wfd."""
    stop = []
    signal.signal(signal.SIGTERM, lambda *_: stop.append(1))
    g = Genl("ccaas")
    n = 0
    while not stop:
        err, _, _ = g.request(CCAAS_CMD_MIGRATE)
        if err:
            n = -err
            break
        n += 1
    os.write(wfd, struct.pack("=i", n))
    os._exit(0)


def connect_all(addr, port, n, k):
    """n non-blocking connects spread over k ports; those that succeeded."""
    fam = socket.AF_INET6 if ":" in addr else socket.AF_INET
    clients = []
    poller = select.poll()
    for i in range(n):
        c = socket.socket(fam, socket.SOCK_STREAM)
        c.setblocking(False)
        c.connect_ex((addr, port + i % k))
        poller.register(c, select.POLLOUT)
        clients.append(c)
    pending = {c.fileno() for c in clients}
    deadline = time.monotonic() + 60
    while pending and time.monotonic() < deadline:
        for fd, _ in poller.poll(1000):
            pending.discard(fd)
            poller.unregister(fd)
    made = [c for c in clients
            if c.fileno() not in pending and
            not c.getsockopt(socket.SOL_SOCKET, socket.SO_ERROR)]
    return clients, len(made)


def one_round(args, mig):
    """Fill the accept queues, let the passes run, close; children made."""
    addr, port, n, k, client_ns, own_ns = args
    fam = socket.AF_INET6 if ":" in addr else socket.AF_INET
    listeners = []
    for i in range(k):
        ls = socket.socket(fam, socket.SOCK_STREAM)
        ls.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        ls.bind((addr, port + i))
        ls.listen(n)
        listeners.append(ls)
    if client_ns is not None:
        setns(client_ns)
    try:
        clients, made = connect_all(addr, port, n, k)
    finally:
        if client_ns is not None:
            setns(own_ns)
    os.kill(mig, signal.SIGCONT)
    for ls in listeners:
        time.sleep(random.uniform(0, 0.02))
        ls.close()
    os.kill(mig, signal.SIGSTOP)
    for c in clients:
        c.close()
    return made


def main(argv):
    verbose, client_ns = False, None
    argv = argv[1:]
    while argv and argv[0].startswith("-"):
        if argv[0] == "-v":
            verbose, argv = True, argv[1:]
        elif argv[0] == "-c" and len(argv) > 1:
            client_ns = os.open("/run/netns/" + argv[1], os.O_RDONLY)
            argv = argv[2:]
        else:
            break
    addr, port, n, rounds = argv[0], int(argv[1]), int(argv[2]), int(argv[3])
    k = int(argv[4]) if len(argv) > 4 else 1
    own_ns = os.open("/proc/self/ns/net", os.O_RDONLY)
    rfd, wfd = os.pipe()
    pid = os.fork()
    if pid == 0:
        os.close(rfd)
        migrator(wfd)
    os.close(wfd)
    os.kill(pid, signal.SIGSTOP)
    children, ok = 0, True
    for i in range(rounds):
        made = one_round((addr, port, n, k, client_ns, own_ns), pid)
        if verbose:
            print("round %d: %d children" % (i + 1, made), flush=True)
        if made != n:
            print("a round made %d of %d connections" % (made, n))
            ok = False
            break
        children += made
    os.kill(pid, signal.SIGCONT)
    os.kill(pid, signal.SIGTERM)
    migrations = struct.unpack("=i", os.read(rfd, 4))[0]
    os.waitpid(pid, 0)
    print("rounds %d children %d migrations %d" % (rounds, children,
                                                    migrations))
    return 0 if ok and migrations > 0 else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv))
