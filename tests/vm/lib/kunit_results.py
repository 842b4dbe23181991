#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Read the KUnit results of ccaas_kunit.ko from debugfs.

Usage: kunit_results.py DEBUGFS_KUNIT SOURCE_DIR [GLOB]

Prints one line per test case, "PASS kunit.SUITE.CASE", "FAIL kunit.SUITE.CASE"
or "SKIP kunit.SUITE.CASE", read from DEBUGFS_KUNIT/SUITE/results (KTAP),
and a FAIL line, with a reason on the next line, for each suite declared in
SOURCE_DIR/*_test.c (and matching GLOB, "suite_glob" or
"suite_glob.case_glob") that has no results, or whose results list fewer
cases than its plan. With a case glob, KUnit drops the suites none of
whose cases match, so a matching suite without results is left out, and
only no results at all fails. Exits 1 if anything failed.
"""
import fnmatch
import os
import re
import sys

CASE = re.compile(r"^    (ok|not ok) (\d+) (\S+)(?: # (SKIP)\b.*)?$")
PLAN = re.compile(r"^    1\.\.(\d+)$")


def declared_suites(src):
    """The .name of every struct kunit_suite in the test sources."""
    names = []
    for fn in sorted(os.listdir(src)):
        if not fn.endswith("_test.c"):
            continue
        text = open(os.path.join(src, fn)).read()
        for m in re.finditer(r"struct kunit_suite\s+\w+\s*=\s*\{(.*?)\n\};",
                             text, re.S):
            n = re.search(r'\.name\s*=\s*"([^"]+)"', m.group(1))
            if n:
                names.append(n.group(1))
    return names


def main():
    debugfs, src = sys.argv[1], sys.argv[2]
    glob = sys.argv[3] if len(sys.argv) > 3 else "*"
    suite_glob = glob.split(".", 1)[0]
    case_glob = "." in glob
    failed = False
    reported = 0
    suites = [s for s in declared_suites(src)
              if fnmatch.fnmatchcase(s, suite_glob)]
    if not suites:
        print("FAIL kunit.no_suite")
        print("  no suite in %s matches '%s'" % (src, glob))
        return 1
    for suite in suites:
        path = os.path.join(debugfs, suite, "results")
        try:
            lines = open(path).read().splitlines()
        except OSError as e:
            if case_glob:
                continue
            print("FAIL kunit.%s" % suite)
            print("  no results: %s" % e)
            failed = True
            continue
        reported += 1
        plan, seen = None, 0
        for line in lines:
            m = PLAN.match(line)
            if m and plan is None:
                plan = int(m.group(1))
                continue
            m = CASE.match(line)
            if not m:
                continue
            seen += 1
            verdict = "SKIP" if m.group(4) else \
                ("PASS" if m.group(1) == "ok" else "FAIL")
            failed |= verdict == "FAIL"
            print("%s kunit.%s.%s" % (verdict, suite, m.group(3)))
        if plan is None or seen < plan:
            print("FAIL kunit.%s" % suite)
            print("  %d of %s cases reported" % (seen, plan))
            failed = True
    if not reported:
        print("FAIL kunit.no_results")
        print("  no suite matching '%s' reported" % glob)
        failed = True
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
