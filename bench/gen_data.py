#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Make the prefix tables and lookup addresses of the ccaas benchmarks.

Usage: gen_data.py OUTDIR

For each size N in SIZES (same seed every time, so every run and kernel
sees the same tables):
  scope-N.txt   N random IPv4 prefixes for `ccactl scope load`
  routes-N.txt  the same prefixes as `ip -batch` routes (dev lo)
  addrs-N.bin   ADDRS lookup addresses, packed 32-bit network order: half a
                random host inside a random prefix of the table, half
                uniform over the unicast space; shuffled
and scope-sel.txt: SEL_SIZE - 1 random prefixes plus 10.0.0.0/24 (the
selector benchmark's server, which the random prefixes never cover).

Prefix lengths are spread over /8../32 with a BGP-like weighting (half of
them /24); a length whose space runs out is drawn again. First octets 0, 10,
127 and 224..255 are never used.
"""
import os
import random
import socket
import struct
import sys

SIZES = (1000, 10000, 100000)
SEL_SIZE = 100000
ADDRS = 8192
SEED = 20250601

# length -> weight (percent of the prefixes, roughly)
WEIGHTS = {}
for _l in range(8, 16):
    WEIGHTS[_l] = 1.0 / 8          # 1 % over /8../15
for _l in range(16, 22):
    WEIGHTS[_l] = 2.0              # 12 %
WEIGHTS[22] = 8.0
WEIGHTS[23] = 10.0
WEIGHTS[24] = 50.0
for _l in range(25, 33):
    WEIGHTS[_l] = 18.0 / 8         # 18 % over /25../32

LOCALITIES = ("rack", "dc", "region", "xregion")
FIRST_OCTETS = [o for o in range(1, 224) if o not in (10, 127)]


def random_addr(rng):
    """A unicast address outside the excluded first octets, as an int."""
    return rng.choice(FIRST_OCTETS) << 24 | rng.getrandbits(24)


def prefixes(rng, n):
    """n distinct (network int, length) pairs."""
    lengths = list(WEIGHTS)
    weights = [WEIGHTS[x] for x in lengths]
    seen = set()
    out = []
    while len(out) < n:
        plen = rng.choices(lengths, weights)[0]
        mask = (0xFFFFFFFF << (32 - plen)) & 0xFFFFFFFF
        p = (random_addr(rng) & mask, plen)
        if p not in seen:
            seen.add(p)
            out.append(p)
    return out


def dotted(a):
    return socket.inet_ntoa(struct.pack("!I", a))


def write_scope(path, pfx, extra=()):
    rng = random.Random(SEED + 1)
    with open(path, "w") as f:
        for net, plen in pfx:
            f.write("%s/%d %s\n" % (dotted(net), plen, rng.choice(LOCALITIES)))
        for line in extra:
            f.write(line + "\n")


def write_routes(path, pfx):
    with open(path, "w") as f:
        for net, plen in pfx:
            f.write("route add %s/%d dev lo\n" % (dotted(net), plen))


def write_addrs(path, rng, pfx):
    addrs = []
    for i in range(ADDRS):
        if i % 2:
            net, plen = rng.choice(pfx)
            host = rng.getrandbits(32 - plen) if plen < 32 else 0
            addrs.append(net | host)
        else:
            addrs.append(random_addr(rng))
    rng.shuffle(addrs)
    with open(path, "wb") as f:
        f.write(struct.pack("!%dI" % len(addrs), *addrs))


def main(outdir):
    os.makedirs(outdir, exist_ok=True)
    for n in SIZES:
        rng = random.Random(SEED + n)
        pfx = prefixes(rng, n)
        write_scope(os.path.join(outdir, "scope-%d.txt" % n), pfx)
        write_routes(os.path.join(outdir, "routes-%d.txt" % n), pfx)
        write_addrs(os.path.join(outdir, "addrs-%d.bin" % n), rng, pfx)
    rng = random.Random(SEED)
    write_scope(os.path.join(outdir, "scope-sel.txt"),
                prefixes(rng, SEL_SIZE - 1), ["10.0.0.0/24 dc"])


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    main(sys.argv[1])
