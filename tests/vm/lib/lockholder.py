#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Hold a TCP socket's lock from userspace for as long as asked.

  lockholder.py ADDR PORT READY

Connects to ADDR:PORT, then a thread send()s 8 KiB from pages registered
with userfaultfd and never filled: tcp_sendmsg() takes the socket's lock,
faults as it copies the first page in, and waits for the page with the lock
held. Once the fault has reached the userfaultfd (the thread is blocked
inside tcp_sendmsg(), owning the socket), writes the connection's local port
to READY. (Nothing else may touch the socket meanwhile: even getsockname()
would wait for its lock.) On SIGTERM it fills the pages with zeros (UFFDIO_ZEROPAGE): the
send() completes and releases the lock; prints "released" and keeps the
connection open until a second SIGTERM (or 120 s).

Needs CAP_SYS_PTRACE (root) to catch a fault the kernel takes, or
vm.unprivileged_userfaultfd=1.
"""
import ctypes
import mmap
import os
import select
import signal
import socket
import struct
import sys
import threading
import fcntl

SYS_USERFAULTFD = 323		# x86_64
UFFD_API = 0xAA
# _IOWR(0xAA, nr, size): struct uffdio_api (24 bytes), uffdio_register and
# uffdio_zeropage (32 bytes each)
UFFDIO_API = 0xC018AA3F
UFFDIO_REGISTER = 0xC020AA00
UFFDIO_ZEROPAGE = 0xC020AA04
UFFDIO_REGISTER_MODE_MISSING = 1
UFFD_EVENT_PAGEFAULT = 0x12
PAGES = 2


def main():
    addr, port, ready = sys.argv[1], int(sys.argv[2]), sys.argv[3]
    libc = ctypes.CDLL(None, use_errno=True)
    libc.syscall.restype = ctypes.c_long
    uffd = libc.syscall(SYS_USERFAULTFD, os.O_CLOEXEC)
    if uffd < 0:
        sys.exit("userfaultfd: %s" % os.strerror(ctypes.get_errno()))
    fcntl.ioctl(uffd, UFFDIO_API, bytearray(struct.pack("QQQ", UFFD_API, 0, 0)))

    size = PAGES * mmap.PAGESIZE
    region = mmap.mmap(-1, size, flags=mmap.MAP_PRIVATE | mmap.MAP_ANONYMOUS)
    base = ctypes.addressof(ctypes.c_char.from_buffer(region))
    fcntl.ioctl(uffd, UFFDIO_REGISTER,
                bytearray(struct.pack("QQQQ", base, size,
                                      UFFDIO_REGISTER_MODE_MISSING, 0)))

    s = socket.create_connection((addr, port))
    # Before the sender owns the socket: getsockname() takes its lock too.
    local_port = s.getsockname()[1]
    view = memoryview(region)
    sent = []
    sender = threading.Thread(target=lambda: sent.append(s.send(view)))
    sender.start()

    # The fault arrives as a message on the userfaultfd.
    r, _, _ = select.select([uffd], [], [], 30)
    if not r:
        sys.exit("no fault within 30 s")
    msg = os.read(uffd, 32)
    if msg[0] != UFFD_EVENT_PAGEFAULT:
        sys.exit("unexpected userfaultfd event %#x" % msg[0])

    done = threading.Event()
    signal.signal(signal.SIGTERM, lambda *_: done.set())
    with open(ready + ".tmp", "w") as f:
        f.write("%d\n" % local_port)
    os.rename(ready + ".tmp", ready)
    while not done.wait(1):
        pass

    fcntl.ioctl(uffd, UFFDIO_ZEROPAGE,
                bytearray(struct.pack("QQQq", base, size, 0, 0)))
    sender.join(30)
    if sender.is_alive():
        sys.exit("send() still blocked after the pages were filled")
    print("released", sent[0] if sent else "?", flush=True)
    # The connection stays open, for the pass that moves it next.
    done.clear()
    done.wait(120)
    s.close()


if __name__ == "__main__":
    main()
