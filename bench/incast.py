#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""The incast figure of bench/run.sh's incast part.

Usage: incast.py DIR

DIR/incast-<kernel>/run-<i>/ holds one run of tests/vm/72-incast.sh each
(its artifacts: */results/incast-<cca>-<min_rto>.sum, "p99 retransmits
RTOs"). Prints, per kernel, the p99 flow completion of each configuration
over the runs (median, then the lowest and highest), and the ratio of
cubic without the knob to each CCA with the policy's min_rto 1ms, computed
per run, with the same spread.
"""
import glob
import os
import re
import statistics
import sys

CONFIGS = ["cubic-default", "cca_dctcp-default", "cca_dcndelay-default",
           "cubic-1ms", "cca_dctcp-1ms", "cca_dcndelay-1ms"]


def p99s(run):
    """{config: p99 ms} of one run, {} if it left no summary"""
    out = {}
    for c in CONFIGS:
        f = glob.glob(os.path.join(run, "*", "results", "incast-%s.sum" % c))
        if f:
            out[c] = float(open(f[0]).read().split()[0])
    return out


def spread(v):
    return "%7.1f (%.1f-%.1f)" % (statistics.median(v), min(v), max(v))


def main(top):
    for kdir in sorted(glob.glob(os.path.join(top, "incast-*"))):
        kernel = os.path.basename(kdir)[len("incast-"):]
        runs = [p99s(r) for r in sorted(glob.glob(os.path.join(kdir, "run-*")))]
        runs = [r for r in runs if len(r) == len(CONFIGS)]
        print("incast, %s: %d runs of tests/vm/72-incast.sh (40 senders, "
              "20 Mbit/s, 4-packet buffer); p99 completion, ms: median "
              "(lowest-highest)" % (kernel, len(runs)))
        if not runs:
            print("  no complete run")
            continue
        for c in CONFIGS:
            print("  %-22s %s" % (c, spread([r[c] for r in runs])))
        for c in ("cca_dctcp-1ms", "cca_dcndelay-1ms", "cubic-1ms"):
            ratio = [r["cubic-default"] / r[c] for r in runs if r[c] > 0]
            print("  cubic-default / %-16s %sx" % (c, spread(ratio)))


if __name__ == "__main__":
    if len(sys.argv) != 2 or not re.match(r".", sys.argv[1]):
        sys.exit(__doc__)
    main(sys.argv[1])
