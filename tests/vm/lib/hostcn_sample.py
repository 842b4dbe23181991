#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Samples a local limiter and the senders' RTTs while a transfer runs,
for tests/vm/73-hostcn.sh. Run in the sender's namespace:

  hostcn_sample.py NETNS DONE PORT FLOWS OMIT LIMITER MAP REPORT

Run in the initial namespace (`ip netns exec` would hide /sys/fs/bpf): it
enters network namespace NETNS itself. Waits until more than FLOWS connections to PORT are established (iperf3's
data streams and its control connection), then OMIT seconds more (slow
start), then reads the limiter's counters and, until file DONE exists (the
caller makes it when the transfer is over; DONE.ready is made first, when
this process is ready to watch),
every second the connections' smoothed RTT less their minimum RTT (the
queueing each sees), and for LIMITER "tc" ten times a second the backlog
of the pfifo leaf on eth0. At the end the counters again. LIMITER "tc" reads the pfifo's
counters (tc -s -j), anything else the BPF limiter's map MAP (bpftool).
REPORT (JSON): reached, dropped, cn (passed with CN) and vq_sum (sum of the
virtual queue over passed packets, bytes) over the sampled window, the
backlog samples (packets), the RTT excess samples (ms, one per
connection per sample) and the CCA of each data connection.
"""
import ctypes
import json
import os
import re
import struct
import subprocess
import sys
import threading
import time

FIELDS = ("rate", "mark_thresh", "drop_thresh", "cn", "last_ns", "vq",
          "pkts", "bytes", "marked", "dropped", "vq_sum", "vq_max")


def run(*cmd):
    return subprocess.run(cmd, capture_output=True, text=True).stdout


def pfifo():
    for q in json.loads(run("tc", "-s", "-j", "qdisc", "show", "dev", "eth0") or "[]"):
        if q.get("kind") == "pfifo":
            return q
    return {}


def counters(limiter, path):
    """(reached, dropped, cn, vq_sum) so far"""
    if limiter == "tc":
        q = pfifo()
        return (q.get("packets", 0) + q.get("drops", 0), q.get("drops", 0), 0, 0)
    j = json.loads(run("bpftool", "-j", "map", "lookup", "pinned", path, "key", "0", "0", "0", "0"))
    v = j["value"]
    if isinstance(v, list):
        f = dict(zip(FIELDS, struct.unpack("<12Q", bytes(int(b, 16) for b in v))))
    else:
        f = v
    return (f["pkts"] + f["dropped"], f["dropped"], f["marked"], f["vq_sum"])


def conns(port):
    out = run("ss", "-Htin", "state", "established", "( dport = :%d )" % port)
    # two lines per connection without -o's timer: join on the address lines
    return [c for c in re.split(r"\n(?=\S)", out.strip()) if c]


def enter(netns):
    libc = ctypes.CDLL(None, use_errno=True)
    fd = os.open("/run/netns/" + netns, os.O_RDONLY)
    if libc.setns(fd, 0x40000000) != 0:  # CLONE_NEWNET
        raise OSError(ctypes.get_errno(), "setns " + netns)
    os.close(fd)


def main(argv):
    enter(argv[1])
    argv = argv[1:]
    # ready: the caller starts the transfer now (this process's own start
    # can take seconds on a busy host)
    open(argv[1] + ".ready", "w").close()
    done, port, flows, omit = argv[1], int(argv[2]), int(argv[3]), float(argv[4])
    limiter, path, report = argv[5], argv[6], argv[7]
    t0 = time.monotonic()
    ccas = []
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline and not os.path.exists(done):
        cs = [c for c in conns(port) if " rtt:" in c]
        if len(cs) > flows:
            ccas = [m.group(1) for m in (re.search(r"(\S+) wscale:", c) for c in cs) if m]
            break
        time.sleep(0.1)
    print("hostcn_sample: streams up after %.1f s" % (time.monotonic() - t0), file=sys.stderr)
    time.sleep(omit)
    c0 = counters(limiter, path)
    # The pfifo's backlog ten times a second from one `tc -batch` process
    # (a process per sample would disturb the emulated CPU): a handful of
    # samples of a sawtooth queue moved its mean by a factor of two.
    tcb = None
    if limiter == "tc":
        tcb = subprocess.Popen(["tc", "-s", "-b", "-"], stdin=subprocess.PIPE,
                               stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
        # read as it comes: a full pipe would stop tc, then this writer
        tcout = []
        reader = threading.Thread(target=lambda: tcout.append(tcb.stdout.read()))
        reader.start()
    excess, samples, tick = [], 0, 0
    while not os.path.exists(done):
        if tick % 10 == 0:
            # the RTTs once a second: ss is a process of its own
            samples += 1
            streams = 0
            for c in conns(port):
                m = re.search(r" rtt:([0-9.]+)/", c)
                n = re.search(r" minrtt:([0-9.]+)", c)
                a = re.search(r" bytes_acked:([0-9]+)", c)
                # the data streams, not iperf3's control connection
                if m and n and a and int(a.group(1)) > 100000:
                    excess.append(float(m.group(1)) - float(n.group(1)))
                    streams += 1
            # the transfer is over (the caller learns it later): an
            # empty queue from now on is not the CCAs'
            if streams == 0:
                break
        if tcb:
            tcb.stdin.write("qdisc show dev eth0\n")
            tcb.stdin.flush()
        tick += 1
        time.sleep(0.1)
    backlog = []
    if tcb:
        tcb.stdin.close()
        reader.join()
        tcb.wait()
        kind = None
        for line in "".join(tcout).splitlines():
            w = line.split()
            if w and w[0] == "qdisc":
                kind = w[1]
            elif kind == "pfifo" and w and w[0] == "backlog" and w[2].endswith("p"):
                backlog.append(int(w[2][:-1]))
    c1 = counters(limiter, path)
    print("hostcn_sample: %d RTT and %d backlog samples until %.1f s"
          % (samples, len(backlog), time.monotonic() - t0), file=sys.stderr)
    # tc -batch stops at its first error, silently: too few samples must
    # fail the run, not read as an empty queue
    if limiter == "tc" and len(backlog) < 10:
        print("hostcn_sample: only %d backlog samples" % len(backlog), file=sys.stderr)
        return 1
    d = [b - a for a, b in zip(c0, c1)]
    with open(report, "w") as f:
        json.dump({"reached": d[0], "dropped": d[1], "cn": d[2], "vq_sum": d[3],
                   "samples": samples, "ccas": ccas, "backlog": backlog, "rtt_excess_ms": excess}, f)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
