#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Guest side of the perack part (bench/guest.sh): one connected loopback
TCP socket per CCA, its CCA set with setsockopt(TCP_CONGESTION), handed to
ccaas_bench's debugfs file "perack" by file descriptor.

Usage: perack.py [--tag TAG] DEBUGFS_FILE ROUNDS CCA...
Run it in a network namespace with net.ipv4.tcp_ecn=1 (ECN negotiated).
Prints the module's report lines (each prefixed "tag=TAG " with --tag).
"""
import socket
import sys


def measure(dbg, rounds, cca):
    srv = socket.socket()
    srv.bind(("127.0.0.1", 0))
    srv.listen(1)
    cli = socket.create_connection(srv.getsockname())
    peer, _ = srv.accept()
    cli.setsockopt(socket.IPPROTO_TCP, socket.TCP_CONGESTION, cca.encode())
    got = cli.getsockopt(socket.IPPROTO_TCP, socket.TCP_CONGESTION, 16)
    assert got.rstrip(b"\0").decode().startswith(cca), got
    with open(dbg, "w") as f:
        f.write("%d %d" % (cli.fileno(), rounds))
    with open(dbg) as f:
        out = f.read()
    for s in (cli, peer, srv):
        s.close()
    return out


def main():
    args = sys.argv[1:]
    prefix = ""
    if args[:1] == ["--tag"]:
        prefix = "tag=%s " % args[1]
        args = args[2:]
    dbg, rounds, ccas = args[0], int(args[1]), args[2:]
    for cca in ccas:
        for line in measure(dbg, rounds, cca).splitlines():
            print(prefix + line)


if __name__ == "__main__":
    main()
