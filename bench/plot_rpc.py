#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Draw the RPC latency CDFs of the application parts, with gnuplot.

Usage: plot_rpc.py DIR

For every DIR/rpc-<kernel>-<part>-<case>.dat that bench/rpc.py wrote (one
block per CCA: latency ms, cumulative fraction), writes
DIR/rpc-<kernel>-<part>-<case>.png: on the left the CDF (logarithmic
latency axis: the CCAs differ by factors, not by milliseconds), on the
right the same data as the fraction of RPCs slower than x on a logarithmic
axis, where the p99 and p99.9 sit at 1e-2 and 1e-3 and a tail of
retransmission timeouts shows as a shelf. Prints the files it wrote; exits
1 if gnuplot is missing or fails.
"""
import glob
import os
import shutil
import subprocess
import sys


def blocks(dat):
    """the CCA names of the file's blocks, in order"""
    return [line[2:].strip() for line in open(dat) if line.startswith("# ")]


def draw(dat, png, title):
    names = blocks(dat)
    if not names:
        return False

    def plots(using):
        return ", ".join("'%s' index %d using %s with lines lw 2 title '%s'"
                         % (dat, i, using, n.replace("'", ""))
                         for i, n in enumerate(names))
    script = "\n".join([
        "set terminal png size 1200,520 noenhanced",
        "set output '%s'" % png,
        "set multiplot layout 1,2 title '%s'" % title.replace("'", ""),
        "set xlabel 'RPC latency, ms'",
        "set logscale x",
        "set grid",
        "set key bottom right",
        "set ylabel 'fraction of RPCs at or below'",
        "set yrange [0:1]",
        "plot " + plots("1:2"),
        "set ylabel 'fraction of RPCs above (tail)'",
        "set logscale y",
        "set yrange [1e-4:1]",
        "set key top right",
        # 1 - F, with the last point (F = 1) left out of a log axis
        "plot " + plots("1:($2 < 1 ? 1 - $2 : NaN)"),
        "unset multiplot",
        ""])
    subprocess.run(["gnuplot"], input=script.encode(), check=True)
    return True


def main(top):
    if not shutil.which("gnuplot"):
        sys.exit("plot_rpc.py: no gnuplot (Debian: gnuplot-nox)")
    for dat in sorted(glob.glob(os.path.join(top, "rpc-*.dat"))):
        png = dat[:-4] + ".png"
        title = os.path.basename(dat)[4:-4].replace("-wan", "")
        if draw(dat, png, "RPC latency: " + title):
            print(png)


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    main(sys.argv[1])
