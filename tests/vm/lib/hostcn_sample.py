#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Samples a local limiter and the senders' RTTs while a transfer runs,
for tests/vm/73-hostcn.sh. Run in the sender's namespace:

  hostcn_sample.py PID PORT FLOWS OMIT LIMITER MAP REPORT

Waits until more than FLOWS connections to PORT are established (iperf3's
data streams and its control connection), then OMIT seconds more (slow
start), then reads the limiter's counters and, until process PID exits,
every 0.25 s: the connections' smoothed RTT less their minimum RTT (the
queueing each sees), and for LIMITER "tc" the backlog of the pfifo leaf
on eth0. At the end the counters again. LIMITER "tc" reads the pfifo's
counters (tc -s -j), anything else the BPF limiter's map MAP (bpftool).
REPORT (JSON): reached, dropped, cn (passed with CN) and vq_sum (sum of the
virtual queue over passed packets, bytes) over the sampled window, the
backlog samples (packets) and the RTT excess samples (ms, one per
connection per sample).
"""
import json
import os
import re
import struct
import subprocess
import sys
import time

FIELDS = ("rate", "mark_thresh", "drop_thresh", "cn", "last_ns", "vq",
          "pkts", "bytes", "marked", "dropped", "vq_sum", "vq_max")


def run(*cmd):
    return subprocess.run(cmd, capture_output=True, text=True).stdout


def alive(pid):
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    # a zombie (the shell has not reaped it yet) is over too
    try:
        with open("/proc/%d/stat" % pid) as f:
            return f.read().split(") ")[-1][0] != "Z"
    except OSError:
        return False


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


def main(argv):
    pid, port, flows, omit = int(argv[1]), int(argv[2]), int(argv[3]), float(argv[4])
    limiter, path, report = argv[5], argv[6], argv[7]
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline and alive(pid):
        if len([c for c in conns(port) if " rtt:" in c]) > flows:
            break
        time.sleep(0.1)
    time.sleep(omit)
    c0 = counters(limiter, path)
    backlog, excess, samples = [], [], 0
    while alive(pid):
        samples += 1
        for c in conns(port):
            m = re.search(r" rtt:([0-9.]+)/", c)
            n = re.search(r" minrtt:([0-9.]+)", c)
            a = re.search(r" bytes_acked:([0-9]+)", c)
            # the data streams, not iperf3's control connection
            if m and n and a and int(a.group(1)) > 100000:
                excess.append(float(m.group(1)) - float(n.group(1)))
        if limiter == "tc":
            backlog.append(pfifo().get("qlen", 0))
        time.sleep(0.25)
    c1 = counters(limiter, path)
    d = [b - a for a, b in zip(c0, c1)]
    with open(report, "w") as f:
        json.dump({"reached": d[0], "dropped": d[1], "cn": d[2], "vq_sum": d[3],
                   "samples": samples, "backlog": backlog, "rtt_excess_ms": excess}, f)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
