#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Bulk flows and the trace check of tests/vm/28-reductions.sh.

  reductions.py sink PORT...
      accept connections on each PORT (IPv4, any address) and discard
      what they carry, until killed
  reductions.py send ADDR PORT STATUS STOP
      connect and write as fast as the socket takes it until the file
      STOP appears; every 50 ms STATUS holds "ca_state delivered_ce
      total_retrans bytes_acked bytes_sent recoveries cwr_polls alpha
      time_us" (written whole, renamed): TCP_INFO's, snd_nxt's offset
      (bytes_sent, see tcp_info()), the namespace's TcpExt
      TCPSackRecovery (the sender is alone in its namespace: its entries
      into Recovery), how many polls found it in CWR, the CCA's alpha
      (TCP_CC_INFO, DCTCP layout, 1/1024; cca_hpcc shows U there) and the
      wall clock of the poll (us), so that the test waits for events, not
      times
  reductions.py wait FILE SECONDS
      return once FILE exists (at most SECONDS): the command trace-cmd
      records for
  reductions.py check REPORT PORT=CCA...
      read a trace-cmd report of tcp:tcp_probe, tcp:tcp_cong_state_set,
      ccalog:ccalog_rtt and the test's phase markers ("rd_phase NAME"),
      and print one line per CCA and reduction: NAME, OK or FAIL, and the
      figures, tab-separated

How the trace is read. tcp_probe fires at the top of tcp_rcv_established(),
before the ACK is processed, with snd_cwnd and tcp_current_ssthresh() (which
is snd_ssthresh itself in CWR and Recovery, and after a timeout, where cwnd
is 1). tcp_cong_state_set fires in tcp_set_ca_state(), after the stack's
ssthresh() call of tcp_enter_cwr(), tcp_enter_recovery() and
tcp_enter_loss(). So a reduction is an entry into CWR (2), Recovery (3) or
Loss (4) from Open or Disorder, and:

  - an ACK-driven one (ECE, fast recovery) runs ssthresh() on the cwnd the
    probe of that ACK shows, or, when the same ACK first ended a CWR or
    Recovery episode (the Open state event between the probe and the
    entry), on the snd_ssthresh of that episode: tcp_end_cwnd_reduction()
    sets cwnd to it (not for cong_control CCAs, whose cwnd the stack leaves
    alone);
  - local congestion runs it from the send path, between two ACKs, on the
    cwnd the next probe shows;
  - a timeout runs it from the timer, on the cwnd the last ACK before it
    left: at least what that ACK's probe shows, at most that plus the
    packets the ACK acknowledged (slow start's most; tcp_probe records
    before the ACK's own growth). For the cong_control CCAs one packet
    less as well: their window may also shrink on an ACK.

The value after the reduction is the next probe's ssthresh. alpha is the
last ccalog_rtt's ecn_alpha before that probe (each CCA folds a round's
marks into alpha at the round's end, before the stack's reaction to the
same ACK; cca_xregion in cong_control, after it), 1024 before any. The
first ccalog_rtt after a cca_hpcc reduction, logged in the state the
reduction entered, carries W_ref (ref_cwnd); in that state cca_hpcc's
window is not recomputed, so W_ref is still the cut's.
"""
import os
import re
import select
import socket
import struct
import sys
import time

MSS = 1448
TCP_CC_INFO = 26
PHASE_KINDS = {"ce": 2, "local": 2, "recovery": 3, "rto": 4}


# ---- traffic -----------------------------------------------------------------

def sink(ports):
    lsocks = []
    for p in ports:
        ls = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        ls.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        ls.bind(("0.0.0.0", int(p)))
        ls.listen(8)
        lsocks.append(ls)
    conns = []
    while True:
        r, _, _ = select.select(lsocks + conns, [], [])
        for s in r:
            if s in lsocks:
                c, _ = s.accept()
                conns.append(c)
            elif not s.recv(1 << 16):
                conns.remove(s)
                s.close()


def tcp_info(s, written):
    """From TCP_INFO; what was sent is snd_nxt's offset: what the
    application wrote less tcpi_notsent_bytes (write_seq - snd_nxt), not
    tcpi_bytes_sent, which also counts the transmissions the sender's own
    qdisc refused (local congestion)."""
    b = s.getsockopt(socket.IPPROTO_TCP, socket.TCP_INFO, 232)
    ca_state = b[1]
    total_retrans = struct.unpack_from("I", b, 100)[0]
    bytes_acked = struct.unpack_from("Q", b, 120)[0]
    notsent = struct.unpack_from("I", b, 144)[0]
    delivered_ce = struct.unpack_from("I", b, 196)[0]
    return ca_state, delivered_ce, total_retrans, bytes_acked, written - notsent


def sack_recoveries():
    """TcpExt TCPSackRecovery of this process's namespace."""
    with open("/proc/net/netstat") as f:
        rows = [ln.split() for ln in f if ln.startswith("TcpExt:")]
    return int(dict(zip(rows[0], rows[1])).get("TCPSackRecovery", 0))


def send(addr, port, status, stop):
    s = socket.create_connection((addr, int(port)))
    s.settimeout(0.02)
    buf = b"\0" * (1 << 16)
    last = 0.0
    cwr = written = 0
    while not os.path.exists(stop):
        try:
            written += s.send(buf)
        except socket.timeout:
            pass
        now = time.monotonic()
        if now - last >= 0.05:
            last = now
            info = tcp_info(s, written)
            cwr += info[0] == 2
            alpha = struct.unpack_from("I", s.getsockopt(
                socket.IPPROTO_TCP, TCP_CC_INFO, 16), 4)[0]
            with open(status + ".tmp", "w") as f:
                f.write("%d %d %d %d %d %d %d %d %d\n" % (
                    info + (sack_recoveries(), cwr, alpha,
                            int(time.time() * 1e6))))
            os.replace(status + ".tmp", status)
    s.close()


def wait(path, secs):
    end = time.monotonic() + float(secs)
    while not os.path.exists(path) and time.monotonic() < end:
        time.sleep(0.1)


# ---- the trace -------------------------------------------------------------------

KV = re.compile(r"(\w+)=(\S+)")
PORT = re.compile(r":(\d+)$")


class Entry:
    """A reduction: an entry into CWR, Recovery or Loss from Open/Disorder."""

    def __init__(self, phase, to, last_p, ended, cut_in_round, timer):
        self.phase, self.to, self.last_p = phase, to, last_p
        self.ended = ended            # the same ACK ended an episode first
        self.cut_in_round = cut_in_round
        self.timer = timer            # RACK's reorder timer entered it
        self.after = []               # the probes after it (up to 2)
        self.alpha = None             # alpha when the first of them came
        self.ref = None               # cca_hpcc: W_ref of the next round end
        self.ref_state = None         # ... its ca_state and stage
        self.ref_stage = None
        self.ref_done = False
        self.round_end = False        # a round ended before the next probe


def parse(report, ports):
    """Each flow's events in order, with the phase each happened in:
    "rd_phase NAME" starts a phase for every flow, "rd_phase NAME CCA"
    for the flow of cca_CCA only (until the next marker for all)."""
    flows = {p: [] for p in ports}
    byname = {cca[4:]: p for p, cca in ports.items()}
    base, own = "start", {}
    with open(report, errors="replace") as f:
        for line in f:
            m = re.search(r"rd_phase (\w+)(?: (\w+))?", line)
            if m:
                if m.group(2):
                    own[byname.get(m.group(2))] = m.group(1)
                else:
                    base, own = m.group(1), {}
                continue
            if "tcp_probe:" in line:
                kv = dict(KV.findall(line))
                port = int(PORT.search(kv["dest"]).group(1))
                if port in flows:
                    phase = own.get(port, base)
                    flows[port].append(("P", phase, int(kv["snd_cwnd"]),
                                        int(kv["ssthresh"]),
                                        int(kv["snd_una"], 16)))
            elif "tcp_cong_state_set:" in line:
                kv = dict(KV.findall(line))
                port = int(kv["dport"])
                if port in flows:
                    flows[port].append(("S", own.get(port, base),
                                        int(kv["cong_state"])))
            elif "ccalog_rtt:" in line:
                kv = dict(KV.findall(line))
                port = int(PORT.search(kv["dst"]).group(1))
                if port in flows:
                    flows[port].append(("A", own.get(port, base),
                                        int(kv["ecn_alpha"]),
                                        int(kv["ca_state"]),
                                        int(kv["ref_cwnd"]), kv["cca"],
                                        int(kv["cca_state"])))
    return flows


def entries(items):
    """The reductions of one flow, in order, and the CCA names ccalog saw."""
    state, alpha = 0, 1024
    last_p, ended, timer = None, None, False
    last_round = last_cut = -1
    out, pending, ccas = [], [], set()
    for i, it in enumerate(items):
        if it[0] == "P":
            for e in pending:
                if not e.after:
                    e.alpha = alpha
                if len(e.after) < 2:
                    e.after.append(it)
            pending = [e for e in pending if len(e.after) < 2 or not e.ref_done]
            last_p, ended, timer = it, None, False
        elif it[0] == "A":
            alpha = it[2]
            last_round = i
            ccas.add(it[5])
            for e in pending:
                if not e.after:
                    e.round_end = True
                if not e.ref_done:
                    e.ref, e.ref_state, e.ref_stage = it[4], it[3], it[6]
                    e.ref_done = True
        else:
            st = it[2]
            if st == 0 and state in (2, 3):
                ended = state
            if st in (2, 3, 4) and state in (0, 1) and last_p is not None:
                for e in pending:
                    # cca_hpcc: a later cut before the round's end hides
                    # this one's W_ref
                    e.ref_done = True
                e = Entry(it[1], st, last_p, ended, last_cut > last_round,
                          timer)
                last_cut = i
                out.append(e)
                pending.append(e)
            elif st == 1 and state != 1:
                # an ACK that sets Disorder returns: whatever enters
                # Recovery before the next probe is a timer
                timer = True
            state = st
    return out, ccas


# ---- the rules (kmod/cca/*.c; the same as kunit/cca_*_test.c check) ----------

def beta(c):            # 717/1024: cca_cubic, cca_xregion, cca_hpcc
    return max(c * 717 >> 10, 2)


def alpha_cut(c, a):    # ccaas_alpha_cut(): cwnd * (1 - alpha / 2)
    return max(c - (c * a >> 11), 2)


def half(c):            # cca_dctcp on a loss
    return max(c >> 1, 2)


def dcn_loss(c):        # cca_dcndelay's loss_beta, 819/1024
    return max(c * 819 >> 10, 2)


def xr_ecn(c, a):       # cca_xregion's ECN target: cwnd * (1 - alpha / 3)
    return max(c - c * a // 3072, 2)


def c_ack(e, cong_control):
    """cwnd when an ACK-driven reduction called ssthresh()."""
    if e.ended and not cong_control:
        return e.last_p[3]
    return e.last_p[2]


def dcn_step(c):
    """The most cca_dcndelay's delay control takes from cwnd @c in one
    round end: decrease_pct (1 %, the test's rule) of the distance to its
    target, rounded up."""
    return max(1, -(-c // 100))


def timer_range(e, cong_control, cca):
    """cwnd when a timer's reduction called ssthresh(): after the last
    ACK's own growth, which its probe (taken before) does not show; for
    cca_dcndelay, or after a delay step that ACK's round end made."""
    p, n = e.last_p, e.after[0]
    c = c_ack(e, cong_control)
    # what the ACK acknowledged: snd_una's move, and at least two packets
    # for a duplicate ACK, whose SACKed packets (one or two, with delayed
    # ACKs and one MSS a packet) count as delivered too, by which PRR or
    # cca_xregion's DEC may raise cwnd
    acked = max(-(-((n[4] - p[4]) & 0xffffffff) // MSS), 2)
    lo = c - (1 if cong_control else 0)
    if cca == "cca_dcndelay":
        lo = c - dcn_step(c)
    return lo, c + acked


def hpcc_cwnds(s):
    """The cwnds cca_hpcc's ssthresh() maps to @s (max(cwnd*717/1024, 2)):
    one or two."""
    return [c for c in range(2, 2 * s + 4) if beta(c) == s]


def hpcc_ref(e):
    """cca_hpcc: W_ref its cut left (1/1024 packet, floored), or None.
    The first round end after the entry logs W_ref: the cut itself if the
    round ended in Recovery (W holds there); if it ended after the episode,
    in Open or Disorder with stage 1 (hp_window()'s additive step from the
    cut's stage 0, which sets W = W_ref + W_AI, one MSS), the cut plus one
    packet. A multiplicative step (stage 0), an application-limited ACK
    (no update, stage 0) or another cut before it: not usable."""
    if not e.ref_done or e.ref is None:
        return None
    if e.ref_state == e.to:
        return e.ref
    if e.to == 3 and e.ref_state in (0, 1) and e.ref_stage == 1:
        return e.ref - 1
    return None


def judge(cca, kind, e):
    """(ok, figures) for one reduction. A Recovery entry is an ACK's
    (tcp_fastretrans_alert()) or, between ACKs, RACK's reorder timer's
    (tcp_rack_reo_timeout()), which the trace does not tell apart: one that
    is not an ACK's is judged as the timer's, on the cwnd the last ACK
    left."""
    r = judge_one(cca, kind, e, e.timer)
    if kind == "recovery" and r is not None and not r[0] and not e.timer:
        t = judge_one(cca, kind, e, True)
        if t is not None and t[0]:
            return t
    return r


def judge_one(cca, kind, e, timer):
    """(ok, figures) for one reduction, @timer saying whether it came
    from a timer."""
    cc = cca in ("cca_xregion", "cca_hpcc")
    a, n0 = e.alpha, e.after[0]
    if cca == "cca_hpcc" and kind in ("recovery", "rto"):
        return judge_hpcc_loss(kind, e, timer)
    if kind == "rto":
        lo, hi = timer_range(e, cc, cca)
        one = n0[2] == 1
        f = {"cca_dctcp": half, "cca_dcndelay": dcn_loss}.get(cca, beta)
        want, got = (f(lo), f(hi)), n0[3]
        ok = one and want[0] <= got <= want[1]
        return ok, "cwnd before %d..%d, ssthresh after %d, expected %d..%d; cwnd after %d (1 expected)" % (
            lo, hi, got, want[0], want[1], n0[2])
    if kind == "recovery" and timer:
        # tcp_rack_reo_timeout() -> tcp_enter_recovery(): from the timer,
        # on the cwnd the last ACK left (see the top)
        lo, hi = timer_range(e, cc, cca)
        f = {"cca_dctcp": half, "cca_dcndelay": dcn_loss}.get(cca, beta)
        want, got = (f(lo), f(hi)), n0[3]
        return want[0] <= got <= want[1], "not as an ACK's, so RACK's reorder timer: cwnd before %d..%d, ssthresh after %d, expected %d..%d" % (
            lo, hi, got, want[0], want[1])
    if kind == "local":
        c = n0[2]
    else:
        c = c_ack(e, cc)
    if cca in ("cca_dctcp", "cca_dcndelay"):
        if kind == "ce" and cca == "cca_dcndelay":
            # Its delay control may step cwnd down in in_ack_event() of
            # the same ACK, before ssthresh(): at most decrease_pct (1 %,
            # the test's rule) of the distance to its target, so at most
            # 1 % of cwnd, rounded up.
            lo = c - dcn_step(c)
            wants = sorted({alpha_cut(x, a) for x in range(lo, c + 1)})
            return n0[3] in wants, "cwnd before %d (%d..%d after a delay step), ssthresh after %d, expected %d..%d (cwnd*(1-alpha/2), alpha %d)" % (
                c, lo, c, n0[3], wants[0], wants[-1], a), wants[-1] < c
        if kind in ("ce", "local"):
            want, rule = alpha_cut(c, a), "cwnd*(1-alpha/2), alpha %d" % a
        elif cca == "cca_dctcp":
            want, rule = half(c), "max(cwnd/2, 2)"
        else:
            want, rule = dcn_loss(c), "cwnd*819/1024"
        # the third item: this one tells a cut from none (see check()).
        # cca_dcndelay's local phase runs at windows of 4-6 packets (its
        # delay control against the one-packet queue), where alpha, which
        # has decayed since the ce phase, cuts nothing in some runs: there
        # it must at least tell alpha's rule from its loss response
        tells = want < c
        if cca == "cca_dcndelay" and kind == "local":
            tells = want != dcn_loss(c)
        return n0[3] == want, "cwnd before %d, ssthresh after %d, expected %d (%s)" % (
            c, n0[3], want, rule), tells
    if cca == "cca_cubic":
        if kind == "ce" and e.cut_in_round:
            want, rule = c, "no second cut in a round"
        elif kind == "ce":
            want, rule = max(alpha_cut(c, a), beta(c)), "cwnd*max(1-alpha/2, 0.7), alpha %d" % a
        else:
            want, rule = beta(c), "cwnd*717/1024"
        return n0[3] == want, "cwnd before %d, ssthresh after %d, expected %d (%s)" % (
            c, n0[3], want, rule)
    if cca == "cca_xregion":
        if kind == "ce":
            dec, stack = xr_ecn(c, a), beta(c)
            # A DEC (cwnd*(1-alpha/3)), or, while one is under way or its
            # samples are stale, only the stack's ssthresh() value.
            ok = n0[3] in (dec, stack)
            return ok, "cwnd before %d, ssthresh after %d, expected %d (cwnd*(1-alpha/3), alpha %d)%s" % (
                c, n0[3], dec, a, "" if n0[3] == dec else " or %d (no new DEC)" % stack)
        note = ""
        if kind == "recovery" and e.round_end and n0[3] != beta(c):
            # The same ACK ended the round of the DEC before, which sets
            # cwnd to that DEC's target (snd_ssthresh) before the new cut.
            c, note = e.last_p[3], ", cwnd the last DEC's target"
        return n0[3] == beta(c), "cwnd before %d%s, ssthresh after %d, expected %d (cwnd*717/1024)" % (
            c, note, n0[3], beta(c))
    # cca_hpcc: the window is its own; ssthresh() is only informative.
    if kind == "ce":
        got = n0[2]
        return got > beta(c + 1), "cwnd before %d, cwnd after the ECE %d, a cut would leave %d at most: no cut expected" % (
            c, got, beta(c + 1))
    if kind == "local":
        if len(e.after) < 2:
            return None
        got = e.after[1][2]
        return beta(c) <= got <= beta(c + 1), "cwnd before %d, cwnd after the next ACK %d, expected %d..%d (W*717/1024)" % (
            c, got, beta(c), beta(c + 1))
    return None


def judge_hpcc_loss(kind, e, timer):
    """cca_hpcc's recovery and rto: W_ref after the cut against W at it.
    W at an ACK-driven entry is what the entry's probe shows (cwnd is W's
    integer part, set by the previous ACK). From a timer (RTO, RACK's
    reorder timer) it is what the last ACK left, which no probe shows and
    which cca_hpcc may have moved either way (W_ref * eta / U + W_AI
    follows U on every ACK, and doubles at a multiplicative step): it is
    read back from the stack's ssthresh() call at the entry, which
    cca_hpcc answers with max(cwnd*717/1024, 2) on that same cwnd (the
    next probe's ssthresh), so one or two cwnds."""
    n0 = e.after[0]
    if e.ended:
        return None           # cwnd was Recovery's, not W (see hpcc.c)
    ref = hpcc_ref(e)
    if ref is None:
        return None
    if kind == "rto" or timer:
        cs = hpcc_cwnds(n0[3])
        src = "cwnd at the %s %s (ssthresh() %d)" % (
            "timeout" if kind == "rto" else "RACK reorder timer",
            "..".join(str(c) for c in cs[::max(len(cs) - 1, 1)]) or "none",
            n0[3])
    else:
        cs = [e.last_p[2]]
        src = "cwnd before %d" % cs[0]
    if not cs:
        return False, "%s: no cwnd gives it" % src
    if kind == "rto":
        # W/2 of W in [c, c + 1): c/2, as W_ref is shown in packets
        want = (max(cs[0] >> 1, 2), max(cs[-1] >> 1, 2))
        ok = n0[2] == 1 and want[0] <= ref <= want[1]
        return ok, "%s, W_ref after %d, expected %d..%d (W/2); cwnd after %d (1 expected)" % (
            src, ref, want[0], want[1], n0[2])
    want = (beta(cs[0]), beta(cs[-1] + 1))
    return want[0] <= ref <= want[1], "%s, W_ref of the cut %d%s, expected %d..%d (W*717/1024)" % (
        src, ref, "" if e.ref_state == e.to else " (logged after the episode: +1 W_AI)",
        want[0], want[1])


def check(report, pairs):
    want = {int(p): cca for p, cca in (x.split("=") for x in pairs)}
    flows = parse(report, want)
    fails = 0
    for port, cca in want.items():
        ents, ccas = entries(flows[port])
        short = cca[4:]
        for kind, to in PHASE_KINDS.items():
            name = "reduction_%s_%s" % (short, kind)
            sel = [e for e in ents if e.phase == kind and e.to == to and e.after]
            res = [(e, judge(cca, kind, e)) for e in sel]
            res = [(e, r) for e, r in res if r is not None]
            if ccas != {cca}:
                ok, text = False, "the connection ran on %s, not %s" % (
                    ",".join(sorted(ccas)) or "nothing ccalog saw", cca)
            elif not res:
                ok, text = False, "no %s reduction in its phase (%d state entries seen)" % (
                    kind, len(sel))
            else:
                bad = [r for _, r in res if not r[0]]
                nbad = len(bad)
                extra = ""
                cuts = [r[2] for _, r in res if len(r) > 2]
                if cuts and not any(cuts):
                    # alpha so small that no reduction's rule cuts: the
                    # phase could not tell a cut from none
                    bad.append((False, "no reduction whose rule cuts cwnd%s" % (
                        " or differs from the loss response"
                        if (cca, kind) == ("cca_dcndelay", "local") else "")))
                if cca == "cca_xregion" and kind == "ce":
                    # The first mark after a clean phase must start a DEC.
                    first = res[0][1]
                    if "no new DEC" in first[1]:
                        bad.insert(0, first)
                ok = not bad
                show = bad[0] if bad else res[0][1]
                text = "%s%s; %d of %d reductions as expected%s" % (
                    "first mismatch: " if bad else "first: ", show[1],
                    len(res) - nbad, len(res), extra)
            fails += not ok
            print("%s\t%s\t%s" % (name, "OK" if ok else "FAIL", text))
    return fails


def main(argv):
    cmd = argv[1]
    if cmd == "sink":
        sink(argv[2:])
    elif cmd == "send":
        send(*argv[2:6])
    elif cmd == "wait":
        wait(argv[2], argv[3])
    elif cmd == "check":
        check(argv[2], argv[3:])
    else:
        sys.exit("usage: see the docstring")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
