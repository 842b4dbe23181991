#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Draw bench/run.sh's scaling curves as PNG files, with gnuplot.

Usage: plot.py RUNS_DIR

Reads the runs that bench/report.py reads and writes, into RUNS_DIR, one
PNG per curve whose runs are there (each for every kernel and mode run):

  migrate.png  per socket of a `ccactl migrate` pass (instructions under
               icount, ns otherwise) and the longest visit of one socket
               (its lock held at most that long), against the number of
               established connections
  lookup.png   the scope table's longest-prefix match against the FIB's
               (fib_table_lookup, fib_lookup), per lookup, against the
               number of prefixes
  scale.png    the selector's work at one connect (called directly) against
               the number of policy rules, the connection's rule first in
               precedence order or only the default rule matching

Both axes are logarithmic: the question each answers is how the cost grows
with the table or the socket count. The data of each plot is kept beside it
(NAME.dat, one block per series) so that the figures can be read exactly.
Prints the files it wrote; exits 1 if gnuplot is missing or fails.
"""
import os
import re
import shutil
import statistics
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import report  # noqa: E402  (the same parsing as the tables)


def unit(mode):
    return "instructions" if mode == "icount" else "ns"


def migrate_series(data):
    """{(kernel, mode): {name: [(sockets, value)]}}"""
    out = {}
    for (k, mode, part), rs in sorted(data.items()):
        if part != "migrate":
            continue
        per = {}
        for _, kv in rs:
            if "pass" in kv and "size" in kv:
                per.setdefault((int(kv["size"]), kv["pass"]), []).append(kv)
        s = out.setdefault((k, mode), {})
        for (size, p), kvs in sorted(per.items()):
            plain = [x for x in kvs if x.get("round") != "3"] or kvs
            each = statistics.median(int(x["ns"]) / int(x["examined"])
                                     for x in plain)
            s.setdefault("per socket, " + p, []).append((size, each))
            visits = [int(x["one_max_ns"]) for x in kvs
                      if int(x.get("one_n", 0)) > 0]
            if visits:
                s.setdefault("longest visit, " + p, []).append(
                    (size, max(visits)))
    return {key: v for key, v in out.items() if v}


def lookup_series(data):
    out = {}
    for (k, mode, part), rs in sorted(data.items()):
        if part != "lookup":
            continue
        s = out.setdefault((k, mode), {})
        for _, kv in rs:
            if "method" in kv and kv["method"] != "loop" and "size" in kv:
                s.setdefault(kv["method"], []).append(
                    (int(kv["size"]), float(kv["med"])))
        for v in s.values():
            v.sort()
    return {key: v for key, v in out.items() if v}


def scale_series(data):
    out = {}
    for (k, mode, part), rs in sorted(data.items()):
        if part != "scale":
            continue
        s = out.setdefault((k, mode), {})
        for p, kv in rs:
            m = re.fullmatch(r"rules_(\d+)_(first|last)",
                             kv.get("config", ""))
            if p == "select" and m and "med" in kv:
                s.setdefault("selector, match " + m.group(2), []).append(
                    (int(m.group(1)),
                     float(kv["med"]) - float(kv["loop_med"])))
        for v in s.values():
            v.sort()
    return {key: v for key, v in out.items() if v}


def draw(path, title, xlabel, ylabel, series):
    """series: {label: [(x, y)]}, one line each"""
    dat = path[:-4] + ".dat"
    with open(dat, "w") as f:
        for label, pts in series.items():
            f.write("# %s\n" % label)
            for x, y in pts:
                f.write("%d %.3f\n" % (x, y))
            f.write("\n\n")
    plots = ", ".join("'%s' index %d with linespoints lw 2 pt 7 title '%s'"
                      % (dat, i, label.replace("'", ""))
                      for i, label in enumerate(series))
    script = "\n".join([
        "set terminal png size 900,560 noenhanced",
        "set output '%s'" % path,
        "set title '%s'" % title.replace("'", ""),
        "set xlabel '%s'" % xlabel,
        "set ylabel '%s'" % ylabel,
        "set logscale xy",
        "set grid",
        "set key top left",
        "plot " + plots,
        ""])
    subprocess.run(["gnuplot"], input=script.encode(), check=True)


def main(top):
    if not shutil.which("gnuplot"):
        sys.exit("plot.py: no gnuplot (Debian: gnuplot-nox)")
    data, _ = report.runs(top)
    wrote = []
    for name, get, title, xlabel in (
            ("migrate", migrate_series, "ccactl migrate",
             "established connections"),
            ("lookup", lookup_series, "longest-prefix match per lookup",
             "prefixes"),
            ("scale", scale_series, "selector at connect, by policy size",
             "policy rules")):
        series = {}
        units = set()
        for (k, mode), s in get(data).items():
            units.add(unit(mode))
            for label, pts in s.items():
                series["%s %s: %s" % (k, mode, label)] = pts
        if not series:
            continue
        path = os.path.join(top, name + ".png")
        draw(path, title, xlabel, " or ".join(sorted(units)), series)
        wrote.append(path)
    for p in wrote:
        print(p)


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    main(sys.argv[1])
