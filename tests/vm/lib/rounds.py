#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Count a TCP sender's round trips in a packet capture, as ccaas CCAs do.

  rounds.py PCAP PORT

PCAP is a capture (tcpdump -w, Ethernet, IPv4) taken on the sender's own
interface of one connection to server port PORT. The rule is the one of
kmod/include/ccaas/round.h: a round starts at the CCA's init (after the
handshake) by recording snd_nxt, and ends at the first ACK processed once
snd_una has reached that value; the next round records snd_nxt at that
moment. Every incoming segment carrying an ACK that is not older than
snd_una is processed (the stack calls in_ack_event() for each). Prints
the number of rounds that ended. Sequence numbers are taken relative to
the ISN, so wrap-around does not matter for short tests.
"""
import struct
import sys


def packets(path):
    with open(path, "rb") as f:
        head = f.read(24)
        magic = struct.unpack("<I", head[:4])[0]
        if magic in (0xA1B2C3D4, 0xA1B23C4D):
            endian = "<"
        elif magic in (0xD4C3B2A1, 0x4D3CB2A1):
            endian = ">"
        else:
            sys.exit("rounds.py: %s is not a pcap file" % path)
        linktype = struct.unpack(endian + "I", head[20:24])[0]
        if linktype != 1:
            sys.exit("rounds.py: link type %d, expected Ethernet" % linktype)
        while True:
            rec = f.read(16)
            if len(rec) < 16:
                return
            incl = struct.unpack(endian + "IIII", rec)[2]
            yield f.read(incl)


def tcp_segments(path, port):
    """(from_client, seq, ack, flags, payload_len) of the connection."""
    for frame in packets(path):
        if len(frame) < 14 + 20 or frame[12:14] != b"\x08\x00":
            continue
        ip = frame[14:]
        ihl = (ip[0] & 0x0F) * 4
        total = struct.unpack("!H", ip[2:4])[0]
        if ip[9] != 6:
            continue
        tcp = ip[ihl:]
        sport, dport, seq, ack = struct.unpack("!HHII", tcp[:12])
        doff = (tcp[12] >> 4) * 4
        flags = tcp[13]
        if port not in (sport, dport):
            continue
        yield dport == port, seq, ack, flags, total - ihl - doff


SYN, FIN, ACK = 0x02, 0x01, 0x10


def count_rounds(path, port):
    isn = snd_nxt = snd_una = end_seq = None
    rounds = 0
    for from_client, seq, ack, flags, plen in tcp_segments(path, port):
        if from_client:
            if flags & SYN:
                isn = seq
                snd_nxt = 1
                continue
            if isn is None:
                continue
            end = (seq - isn) % 2**32 + plen + (1 if flags & FIN else 0)
            snd_nxt = max(snd_nxt, end)
            continue
        if isn is None or not flags & ACK:
            continue
        rel = (ack - isn) % 2**32
        if flags & SYN:
            # SYN-ACK: the handshake ends, the CCA starts its first round.
            snd_una = rel
            end_seq = snd_nxt
            continue
        if end_seq is None or rel < snd_una:
            continue
        snd_una = rel
        if snd_una >= end_seq:
            rounds += 1
            end_seq = snd_nxt
    return rounds


if __name__ == "__main__":
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    print(count_rounds(sys.argv[1], int(sys.argv[2])))
