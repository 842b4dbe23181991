#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Send ccaas requests back to back until told to stop, for race tests.

  genl_loop.py STOPFILE REQUEST...

REQUEST is CMD or CMD:ATTR, with CMD a command number and ATTR the number
of a flag attribute to send with it (LOG_ADD with CCAAS_A_LOG_ALL, say);
CMD/d sends CMD as a dump request (STATS_GET, say).
The requests are sent in turn, round after round, until STOPFILE exists.
Prints "requests N errors E" (E: requests the kernel refused, with their
errno and message) and exits 0 if there were none.
"""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from genl import Genl, attr  # noqa: E402


def main(argv):
    stop, reqs = argv[1], []
    for spec in argv[2:]:
        cmd, _, flag = spec.partition(":")
        cmd, _, dump = cmd.partition("/")
        reqs.append((int(cmd), attr(int(flag), b"") if flag else b"",
                     dump == "d"))
    g = Genl("ccaas")
    n, errors = 0, []
    while not os.path.exists(stop):
        for cmd, payload, dump in reqs:
            err, msg, _ = g.request(cmd, payload, dump=dump)
            n += 1
            if err and len(errors) < 5:
                errors.append("cmd %d: errno %d %s" % (cmd, err, msg))
            elif err:
                errors.append("")
    print("requests %d errors %d" % (n, len(errors)))
    for e in errors:
        if e:
            print("  " + e)
    return 0 if not errors else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv))
