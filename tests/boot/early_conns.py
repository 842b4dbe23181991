#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""A service that connects as soon as it starts: a listener on
127.0.0.1:5400 and 4 clients to it, held until killed. Writes
/run/ccaas-early.ready when they are established."""
import socket
import time

ls = socket.create_server(("127.0.0.1", 5400), backlog=16)
clients = [socket.create_connection(("127.0.0.1", 5400)) for _ in range(4)]
held = [ls.accept()[0] for _ in clients]
with open("/run/ccaas-early.ready", "w") as f:
    f.write("%.3f\n" % time.monotonic())
while True:
    time.sleep(3600)
