#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Count a TCP sender's round trips from the kernel's tcp:tcp_probe events.

  probe_rounds.py REPORT COOKIE [SINCE]

REPORT is `trace-cmd report` text holding tcp:tcp_probe events; COOKIE the
connection's socket cookie (decimal). tcp_probe fires as the connection
starts processing each incoming segment, with snd_una and snd_nxt as they
are at that moment, so consecutive events give, for every segment, the
snd_nxt seen while it was processed and the snd_una it left behind. On
those the rule of kmod/include/ccaas/round.h is replayed: the first round
runs to the snd_una of the first event (the CCA started right after the
handshake, with nothing in flight); a round ends at the first segment after
which snd_una has reached its end, and the next one runs to the snd_nxt of
that moment; as ccalog does, a round that delivered nothing (snd_una did
not move: ACKs while nothing was in flight) is not counted. tcp_probe
fires only in ESTABLISHED, and the last event's
outcome is unknown, so the replay covers the segments up to the last
event but one: prints the number of rounds that ended then (after time
SINCE, when the connection was selected; default 0), the number of
tcp_probe events, and the number of ccalog_rtt events of the connection
in the same span (from its first tcp_probe to its last).
"""
import re
import sys

LINE = re.compile(r"\s(\d+\.\d+):\s+tcp_probe:.*?snd_nxt=(0x[0-9a-f]+|0)"
                  r"\s+snd_una=(0x[0-9a-f]+|0)\b.*sock_cookie=([0-9a-f]+)")


def probes(path, cookie):
    want = "%x" % cookie
    with open(path, errors="replace") as f:
        for line in f:
            m = LINE.search(line)
            if m and m.group(4) == want:
                yield float(m.group(1)), int(m.group(2), 16), int(m.group(3), 16)


RTT = re.compile(r"\s(\d+\.\d+):\s+ccalog_rtt:\s+cookie=(\d+)\s")


def rtt_events(path, cookie, start, end):
    n = 0
    with open(path, errors="replace") as f:
        for line in f:
            m = RTT.search(line)
            if m and int(m.group(2)) == cookie and start <= float(m.group(1)) < end:
                n += 1
    return n


def count(path, cookie, since=0.0):
    ev = list(probes(path, cookie))
    if not ev:
        return 0, 0, 0
    base = ev[0][2]

    def rel(seq):
        return (seq - base) % 2**32

    end_seq = start_una = rel(ev[0][2])
    rounds = 0
    for (t, nxt, _), (_, _, una_after) in zip(ev, ev[1:]):
        if rel(una_after) >= end_seq:
            # ccalog leaves out rounds that delivered nothing (ACKs while
            # nothing is in flight): without SACK, snd_una did not move.
            if t >= since and rel(una_after) > start_una:
                rounds += 1
            end_seq = rel(nxt)
            start_una = rel(una_after)
    return rounds, len(ev), rtt_events(path, cookie, ev[0][0], ev[-1][0])


if __name__ == "__main__":
    if len(sys.argv) not in (3, 4):
        sys.exit(__doc__)
    print(*count(sys.argv[1], int(sys.argv[2]),
                 float(sys.argv[3]) if len(sys.argv) == 4 else 0.0))
