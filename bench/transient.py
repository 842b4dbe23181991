#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""The dip of a bulk flow at each migration, from bench/transient.c's samples.

Usage: transient.py SAMPLES EVENTS [--window MS] [--before MS] [--after MS]

SAMPLES: transient.c's lines (t_ns bytes_acked delivery_rate cwnd srtt_us
ssthresh retrans cca), one every period on the sender. EVENTS: the guest
script's lines "KIND FROM TO T0_NS T1_NS" (KIND move or noop; T0, T1 the
CLOCK_REALTIME before and after `ccactl migrate`).

For each event, one line of key=value pairs on stdout:
  t_mig      a move: the last sample still on FROM (the switch happened
             before the next one, at most one period later); a noop: T0
  before     Mbit/s of bytes acked over the BEFORE ms up to t_mig
  min        least throughput over a sliding WINDOW ms whose end lies in
             (t_mig, t_mig + AFTER]; depth = min / before - 1 (percent)
  dur        ms during which that windowed throughput is below 95 % of before
  deficit    ms of transmission at the before rate the flow fell behind
             by, at most, over the AFTER ms (bytes short / before rate)
  noise      the same depth over the BEFORE span itself (windows ending in
             (t_mig - BEFORE + WINDOW, t_mig]): what the figure is without a
             migration
  rtt        srtt at t_mig, ms; cwnd at t_mig and its least value after
"""
import bisect
import sys


def load_samples(path):
    t, acked, rows = [], [], []
    with open(path) as f:
        for line in f:
            w = line.split()
            if len(w) != 8:
                continue
            t.append(int(w[0]))
            acked.append(int(w[1]))
            rows.append((int(w[3]), int(w[4]), int(w[5]), int(w[6]), w[7]))
    return t, acked, rows


def at(t, acked, when):
    """bytes acked at time @when, linear between the samples around it"""
    i = bisect.bisect_left(t, when)
    if i <= 0:
        return acked[0]
    if i >= len(t):
        return acked[-1]
    t0, t1 = t[i - 1], t[i]
    a0, a1 = acked[i - 1], acked[i]
    return a0 + (a1 - a0) * (when - t0) / (t1 - t0) if t1 > t0 else a1


def windows(t, acked, lo, hi, win):
    """[(t_end, bytes/ns)] of sliding windows of @win ns ending in (lo, hi]"""
    out = []
    i = bisect.bisect_right(t, lo)
    while i < len(t) and t[i] <= hi:
        out.append((t[i], (acked[i] - at(t, acked, t[i] - win)) / win))
        i += 1
    return out


def below_ns(ws, limit):
    """ns during which the windowed throughput is below @limit"""
    total = 0
    for (t0, r0), (t1, _) in zip(ws, ws[1:]):
        if r0 < limit:
            total += t1 - t0
    return total


def analyse(t, acked, rows, ev, win, before, after):
    kind, frm, to, t0, t1 = ev[0], ev[1], ev[2], int(ev[3]), int(ev[4])
    if kind == "move":
        i = bisect.bisect_left(t, t0)
        while i < len(t) and rows[i][4] == frm:
            i += 1
        if i >= len(t) or rows[i][4] != to:
            return {"kind": kind, "from": frm, "to": to, "error": "no_switch_seen",
                    "cca_after": rows[min(i, len(t) - 1)][4]}
        i -= 1
        tm = t[i]
    else:
        tm = t0
        i = max(bisect.bisect_left(t, tm) - 1, 0)
    if tm - before < t[0] or tm + after > t[-1]:
        return {"kind": kind, "from": frm, "to": to, "error": "out_of_samples"}
    rate = (at(t, acked, tm) - at(t, acked, tm - before)) / before  # bytes/ns
    post = windows(t, acked, tm, tm + after, win)
    pre = windows(t, acked, tm - before + win, tm, win)
    low = min(r for _, r in post)
    low_pre = min(r for _, r in pre)
    deficit = max(rate * (x - tm) - (at(t, acked, x) - at(t, acked, tm))
                  for x in t[i:bisect.bisect_right(t, tm + after)])
    j = bisect.bisect_right(t, tm + after)
    return {
        "kind": kind, "from": frm, "to": to,
        "before_mbit": "%.2f" % (rate * 8e3),
        "min_mbit": "%.2f" % (low * 8e3),
        "depth_pct": "%.1f" % (100 * (low / rate - 1)),
        "dur_ms": "%.1f" % (below_ns(post, 0.95 * rate) / 1e6),
        "deficit_ms": "%.2f" % (max(deficit, 0) / rate / 1e6),
        "noise_pct": "%.1f" % (100 * (low_pre / rate - 1)),
        "noise_dur_ms": "%.1f" % (below_ns(pre, 0.95 * rate) / 1e6),
        "rtt_ms": "%.1f" % (rows[i][1] / 1e3),
        "cwnd": rows[i][0],
        "cwnd_min": min(r[0] for r in rows[i:j]),
        "retrans": rows[j - 1][3] - rows[i][3],
        "ccactl_ms": "%.1f" % ((t1 - t0) / 1e6),
        "switch_after_ms": "%.1f" % ((tm - t0) / 1e6),
    }


def main(argv):
    args = argv[1:]
    opt = {"--window": 10.0, "--before": 1000.0, "--after": 1000.0}
    pos = []
    while args:
        a = args.pop(0)
        if a in opt:
            opt[a] = float(args.pop(0))
        else:
            pos.append(a)
    if len(pos) != 2:
        sys.exit(__doc__)
    t, acked, rows = load_samples(pos[0])
    if len(t) < 2:
        sys.exit("transient.py: no samples in " + pos[0])
    win, before, after = (int(opt[k] * 1e6) for k in ("--window", "--before", "--after"))
    period = (t[-1] - t[0]) / (len(t) - 1)
    with open(pos[1]) as f:
        for n, line in enumerate(f, 1):
            ev = line.split()
            if len(ev) != 5:
                continue
            res = analyse(t, acked, rows, ev, win, before, after)
            res.update({"event": n, "window_ms": "%g" % opt["--window"],
                        "period_us": "%.0f" % (period / 1e3)})
            print(" ".join("%s=%s" % kv for kv in res.items()))


if __name__ == "__main__":
    main(sys.argv)
