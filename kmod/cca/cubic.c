// SPDX-License-Identifier: GPL-2.0
/*
 * cca_cubic: the transitional CCA of ccaas. It is Linux's Cubic, step for
 * step, with one change: an ECN echo is answered in proportion to the
 * marks, not as a loss.
 *
 * Cubic (RFC 9438, as net/ipv4/tcp_cubic.c does it). After a reduction from
 * W_max the window follows W(t) = C (t - K)^3 + W_max, concave up to W_max,
 * flat around it, convex beyond, with C = 410/1024 packets/s^3. Everything that
 * decides a window is done as tcp_cubic.c does it, so that without ECN
 * cwnd and ssthresh are the same, ACK by ACK (kunit/cca_diff_test.c):
 *
 *  - the time base: t is jiffies since the epoch began, plus the least RTT
 *    sample seen (delay_min, us), in 2^-10 s ticks; the curve is evaluated
 *    at most once per jiffy, and again only once cwnd changed or HZ/32
 *    passed;
 *  - K = cbrt((W_max - cwnd) * 2^40 / (C * 1024)) by the same table and one
 *    Newton step (cca_cubic_cbrt(): same rounding, about 0.2 % off cbrt);
 *  - an epoch without a known W_max (the first, and each after a timeout)
 *    grows by at least one packet per 20 ACKed, and every epoch by at most
 *    one per two ACKed;
 *  - the Reno-friendly estimate, one packet per cwnd * scale / 8 ACKed with
 *    scale = 8 (1 + beta) / 3 / (1 - beta) (15 for beta = 0.7);
 *  - loss: ssthresh = max(cwnd * beta, 2) with beta = 717/1024, and fast
 *    convergence W_max = cwnd (1 + beta) / 2 when cwnd is below the last
 *    W_max; a timeout forgets everything (K = 0 from the window it finds);
 *    undo gives back the window before the reduction (tcp_reno_undo_cwnd());
 *  - restart after idle moves the epoch by the idle time;
 *  - HyStart (hybrid slow start): slow start ends, ssthresh = cwnd, once
 *    cwnd is at least hystart_low_window (16) and either the ACKs of a
 *    round trip keep arriving at most hystart_ack_delta_us (2 ms) apart
 *    for more than delay_min / 2 since the round began (an ACK train as
 *    long as half the path's RTT: the pipe is full; delay_min itself when
 *    the socket is paced, plus a cushion for TSO and GRO of up to 1 ms),
 *    or, from a round's ninth RTT sample on, the least of its samples
 *    exceeds delay_min by delay_min / 8, clamped to [4, 16] ms (a queue is
 *    building). Samples in the first second of an epoch are not counted
 *    (after a recovery). The same TcpExtTCPHystart* counters count its
 *    exits.
 *
 * The one difference, ECN. Like DCTCP, cca_cubic keeps alpha, the EWMA of
 * the fraction of packets marked, updated once per round trip
 * (<ccaas/ecn.h>), and on an ECN echo sets
 *
 *	ssthresh = cwnd * (1 - alpha / 2), never below Cubic's beta * cwnd
 *
 * once per CWR (a round trip); W_max and the epoch are updated as for a
 * loss. alpha starts at 1 (a connection taken over mid-transfer: at its
 * fraction of CE so far), so the first cuts are Cubic's own until the
 * estimate has converged. On a connection without ECN only the round's
 * bookkeeping runs (ccalog's report), never a cut of its own.
 *
 * How much the answer is in proportion depends on the receiver's feedback.
 * The stack counts every packet an ECE ACK acknowledges as marked. A
 * receiver that echoes each mark exactly (a DCTCP receiver: the fleet's
 * listeners on cca_dctcp or dctcp; or AccECN) gives the true fraction, and
 * a lightly marked flow barely slows. An RFC 3168 receiver (cubic's,
 * cca_cubic's own) repeats ECE until the sender's CWR, about a window: the
 * fraction reads near 1, alpha goes to 1, and the cut is Cubic's beta.
 *
 * How an ECN cut is told from a loss, with no callback cubic does not have
 * (the per-ACK cost stays cubic's). ssthresh() is always Cubic's, W_max
 * and the epoch included. The stack reacts to an ECE itself:
 * tcp_enter_cwr() calls ssthresh() and then set_state(CWR); a loss enters
 * Recovery or, after a timeout, Loss. So:
 *
 *	- set_state(CWR) on a connection with ECN, in a round trip (or right
 *	  after one) in which CE-marked packets were delivered, is an ECN
 *	  echo: ssthresh becomes the proportional cut of tp->prior_cwnd (the
 *	  window ssthresh() just cut). An ECE ACK acknowledges the marked
 *	  packets it echoes (in RFC 3168 mode the stack counts them in
 *	  tp->delivered_ce before the state machine runs; with 7.3's AccECN
 *	  it counts them after pkts_acked(), so a round's last marks count in
 *	  the next round's alpha). The other ways into CWR keep Cubic's cut:
 *	  local congestion from the qdisc (a drop or NET_XMIT_CN), unless the
 *	  path marked in the same or the last round trip (not counting one
 *	  before an idle period), and a loss found by a tail loss probe, which
 *	  enters and ends CWR on one ACK (CA_EVENT_COMPLETE_CWR with nothing
 *	  counted by PRR puts Cubic's cut back);
 *	- a loss during the CWR of an ECN cut (set_state(Recovery), or
 *	  set_state(Loss) for a timeout: the stack calls no ssthresh() then)
 *	  puts Cubic's cut of the same window back. An ACK with ECE that also
 *	  shows a loss enters Recovery at once: Cubic's cut.
 *
 * cca_cubic does not set TCP_CONG_NEEDS_ECN: it never asks for ECN at the
 * handshake itself (net.ipv4.tcp_ecn=1 still does) and sends no ECT on a
 * connection that did not negotiate it.
 * As a receiver it gives the stack's RFC 3168 feedback (the stack sends
 * CA_EVENT_ECN_IS_CE only to CCAs that need ECN, on every pinned line).
 *
 * What else differs from tcp_cubic.c, none of it on a window: the per-rule
 * knobs (beta, c, and the ECN gain) of a ccaas policy; the core's header
 * and ccalog's per-round report (its ECE flag: a round whose entry into
 * CWR was taken as an ECN echo; cca_cubic sees no ACK's flags); no
 * initial_ssthresh parameter (a rule's route metrics do that). A rule's
 * c or beta that changes on a live connection applies from the next
 * evaluation of the same epoch (cubic's C is fixed at load). Even
 * cubic's overflow is kept: past t - K = 347 s its 64-bit cube wraps, and
 * so does cca_cubic's.
 */
#include <linux/inet_diag.h>
#include <linux/module.h>
#include <net/tcp.h>

#include <ccaas/ccaas.h>
#include <ccaas/ecn.h>
#include <ccaas/info.h>
#include <ccaas/log.h>
#include <ccaas/param.h>
#include <ccaas/round.h>
#include <ccaas/sock.h>
#include <ccaas/timeout.h>

/*
 * The benchmark (bench/) builds a second copy without the ccalog calls
 * (CCAAS_NO_CCALOG) under another name, to measure what they cost.
 */
#ifndef CCA_CUBIC_NAME
#define CCA_CUBIC_NAME		"cca_cubic"
#endif

#define CCA_CUBIC_VERSION	CCAAS_VERSION(1, 1, 0)

/* beta and C are fractions of 1024 (BICTCP_BETA_SCALE in tcp_cubic.c). */
#define CCA_CUBIC_ONE		1024U

/* The curve's clock: 2^-10 s ticks (BICTCP_HZ). */
#define CCA_CUBIC_TICK_SHIFT	10

/* Without a known W_max, at least one packet per this many ACKed (5 %). */
#define CCA_CUBIC_FIRST_CNT	20U

/* HyStart: RTT samples per round for the delay test; its margin, in us. */
#define CCA_CUBIC_HS_SAMPLES	8U
#define CCA_CUBIC_HS_DELAY_MIN	4000U
#define CCA_CUBIC_HS_DELAY_MAX	16000U

/* hystart_detect bits, as tcp_cubic.c's. */
#define CCA_CUBIC_HS_ACK_TRAIN	0x1
#define CCA_CUBIC_HS_DELAY	0x2

/*
 * beta, in 1/1024: from 0.5 (Reno's halving) to 0.95; 0.7 by default.
 * The ECN cut is never deeper than this.
 */
#define CCA_CUBIC_BETA_DEFAULT	717U
#define CCA_CUBIC_BETA_MIN	512U
#define CCA_CUBIC_BETA_MAX	972U
static unsigned int cubic_beta __read_mostly = CCA_CUBIC_BETA_DEFAULT;
CCAAS_PARAM_UINT(beta, cubic_beta, CCA_CUBIC_BETA_MIN, CCA_CUBIC_BETA_MAX, 0644);
MODULE_PARM_DESC(beta, "loss reduction: cwnd * beta / 1024 [512..972]");

/*
 * C in 1/1024 packet/s^3: 410 is tcp_cubic.c's bic_scale 41 * 10 (0.4);
 * from a tenth to ten times that.
 */
#define CCA_CUBIC_C_DEFAULT	410U
#define CCA_CUBIC_C_MIN		41U
#define CCA_CUBIC_C_MAX		4096U
static unsigned int cubic_c __read_mostly = CCA_CUBIC_C_DEFAULT;
CCAAS_PARAM_UINT(c, cubic_c, CCA_CUBIC_C_MIN, CCA_CUBIC_C_MAX, 0644);
MODULE_PARM_DESC(c, "cubic scaling constant C, in 1/1024 packet/s^3 [41..4096]");

/* Gain g = 2^-shift_g of the alpha EWMA; 1/16 as DCTCP (RFC 8257). */
static unsigned int shift_g __read_mostly = 4;
CCAAS_PARAM_UINT(shift_g, shift_g, 0, CCAAS_ALPHA_SHIFT, 0644);
MODULE_PARM_DESC(shift_g, "alpha EWMA gain is 2^-shift_g [0..10]");

/*
 * alpha of a new connection, in 1/1024. 1 (all marked) makes the first ECN
 * cuts Cubic's beta cut until the estimate has converged.
 */
static unsigned int alpha_on_init __read_mostly = CCAAS_ALPHA_ONE;
CCAAS_PARAM_UINT(alpha_on_init, alpha_on_init, 0, CCAAS_ALPHA_ONE, 0644);
MODULE_PARM_DESC(alpha_on_init, "initial alpha, in 1/1024 [0..1024]");

/* RFC 9438 section 4.7, on by default. */
static unsigned int fast_convergence __read_mostly = 1;
CCAAS_PARAM_UINT(fast_convergence, fast_convergence, 0, 1, 0644);
MODULE_PARM_DESC(fast_convergence, "lower W_max after a reduction below it [0..1]");

/* RFC 9438 section 4.3, on by default. */
static unsigned int tcp_friendliness __read_mostly = 1;
CCAAS_PARAM_UINT(tcp_friendliness, tcp_friendliness, 0, 1, 0644);
MODULE_PARM_DESC(tcp_friendliness, "grow at least as fast as Reno [0..1]");

/* HyStart, with tcp_cubic.c's names and defaults. */
static unsigned int hystart __read_mostly = 1;
CCAAS_PARAM_UINT(hystart, hystart, 0, 1, 0644);
MODULE_PARM_DESC(hystart, "hybrid slow start [0..1]");

static unsigned int hystart_detect __read_mostly =
	CCA_CUBIC_HS_ACK_TRAIN | CCA_CUBIC_HS_DELAY;
CCAAS_PARAM_UINT(hystart_detect, hystart_detect, 0, 3, 0644);
MODULE_PARM_DESC(hystart_detect, "hybrid slow start detection: 1 ACK train, 2 delay, 3 both [0..3]");

static unsigned int hystart_low_window __read_mostly = 16;
CCAAS_PARAM_UINT(hystart_low_window, hystart_low_window, 2, 65535, 0644);
MODULE_PARM_DESC(hystart_low_window, "least cwnd for a hybrid slow start exit, packets [2..65535]");

static unsigned int hystart_ack_delta_us __read_mostly = 2000;
CCAAS_PARAM_UINT(hystart_ack_delta_us, hystart_ack_delta_us, 0, USEC_PER_SEC, 0644);
MODULE_PARM_DESC(hystart_ack_delta_us, "most spacing of ACKs in a train, us [0..1000000]");

/* What the last reduction was a response to. */
enum { CCA_CUBIC_CUT_NONE, CCA_CUBIC_CUT_LOSS, CCA_CUBIC_CUT_ECN };

/*
 * 104 bytes: the core's header, Cubic's state as tcp_cubic.c keeps it
 * (struct bictcp), HyStart's, and the round of the ECN answer and ccalog
 * (a struct ccaas_round whose flags live in @bits).
 */
struct cca_cubic {
	struct ccaas_sock core;	/* the core's header: rule's knobs */
	u32 cnt;		/* ACKed packets per +1 of cwnd */
	u32 w_last_max;		/* W_max: cwnd at the last reduction, or 0 */
	u32 last_cwnd;		/* cwnd when @cnt was computed */
	u32 last_time;		/* jiffies, when */
	u32 origin;		/* the curve's plateau, packets */
	u32 k;			/* ticks from the epoch's start to the plateau */
	u32 delay_min;		/* least RTT sample, us; 0: none yet */
	u32 epoch_start;	/* jiffies; 0: no epoch (a new one next) */
	u32 ack_cnt;		/* ACKed packets towards the Reno estimate */
	u32 tcp_cwnd;		/* the Reno-friendly estimate, packets */
	u32 hs_round_start;	/* HyStart's round began (us clock) */
	u32 hs_end_seq;		/* and ends once snd_una passes this */
	u32 hs_last_ack;	/* the last ACK of the train (us) */
	u32 hs_curr_rtt;	/* least RTT sample of the round (us) */
	u32 round_end_seq;	/* the per-RTT round: struct ccaas_round */
	u32 round_delivered;
	u32 round_delivered_ce;
	u16 alpha;		/* marked fraction, 1/1024 units */
	u16 round_flags:4;	/* CCAAS_ROUND_* of the round */
	u16 hs_samples:4;	/* RTT samples of HyStart's round, up to 8 */
	u16 hs_found:1;		/* HyStart ended slow start */
	u16 cut:2;		/* CCA_CUBIC_CUT_*: the last reduction */
	u16 prev_round_ce:1;	/* the round before this one had CE marks */
};

/* Indexes of cca_cubic_params[], the per-rule overrides. */
enum { CCA_CUBIC_BETA, CCA_CUBIC_C, CCA_CUBIC_SHIFT_G, CCA_CUBIC_ALPHA_ON_INIT };

static u32 cca_cubic_beta(const struct sock *sk)
{
	return ccaas_sock_param(sk, CCA_CUBIC_BETA, cubic_beta);
}

/* Cubic's cut: cwnd * beta, at least 2 packets. */
static u32 cca_cubic_beta_cwnd(u32 cwnd, u32 beta)
{
	return max((cwnd * beta) / CCA_CUBIC_ONE, 2U);
}

/*
 * The Reno-friendly estimate's scale for @beta, 8 (1 + beta) / 3 / (1 - beta)
 * (tcp_cubic.c's beta_scale): two divisions, so the last one is kept, beta
 * and scale in one 32-bit word (a policy rule may give a socket its own
 * beta).
 */
static u32 cca_cubic_scale_cache;

static u32 cca_cubic_reno_scale(u32 beta)
{
	u32 cached = READ_ONCE(cca_cubic_scale_cache);
	u32 scale;

	/* beta < 2^10 and scale < 2^16 (102 at most): one word, no tearing */
	if (likely(cached >> 16 == beta))
		return cached & 0xffff;
	scale = 8 * (CCA_CUBIC_ONE + beta) / 3 / (CCA_CUBIC_ONE - beta);
	WRITE_ONCE(cca_cubic_scale_cache, beta << 16 | scale);
	return scale;
}

/*
 * cbrt(@a), as tcp_cubic.c's cubic_root() computes it: a first estimate
 * from a table indexed by the top six bits of @a (three bits of @a per bit
 * of the root), then one Newton-Raphson step, x' = (2 x + a / x^2) / 3,
 * with x^2 taken as x (x - 1) and the division by 3 as * 341 / 1024. The
 * table and the rounding are that function's, on purpose: K, and so every
 * window of an epoch, must be cubic's.
 */
static u32 cca_cubic_cbrt(u64 a)
{
	/* ((est[i] + 10) << s) >> 6 estimates the root of i << 3s */
	static const u8 est[64] = {
		  0,  54,  54,  54, 118, 118, 118, 118,
		123, 129, 134, 138, 143, 147, 151, 156,
		157, 161, 164, 168, 170, 173, 176, 179,
		181, 185, 187, 190, 192, 194, 197, 199,
		200, 202, 204, 206, 209, 211, 213, 215,
		217, 219, 221, 222, 224, 225, 227, 229,
		231, 232, 234, 236, 237, 239, 240, 242,
		244, 245, 246, 248, 250, 251, 252, 254,
	};
	u32 bits = fls64(a), s, x;

	if (bits < 7)
		return ((u32)est[(u32)a] + 35) >> 6;

	s = ((bits * 84) >> 8) - 1;	/* about bits / 3, rounded down */
	x = ((u32)(((u32)est[(u32)(a >> (s * 3))] + 10) << s)) >> 6;
	x = 2 * x + (u32)div64_u64(a, (u64)x * (u64)(x - 1));
	return (x * 341) >> 10;
}

/* Cubic forgets its curve: a new epoch from the next window it sees. */
static void cca_cubic_reset(struct cca_cubic *ca)
{
	ca->cnt = 0;
	ca->w_last_max = 0;
	ca->last_cwnd = 0;
	ca->last_time = 0;
	ca->origin = 0;
	ca->k = 0;
	ca->delay_min = 0;
	ca->epoch_start = 0;
	ca->ack_cnt = 0;
	ca->tcp_cwnd = 0;
	ca->hs_found = 0;
}

/* A new HyStart round: from now until what was sent is acknowledged. */
static void cca_cubic_hs_reset(struct sock *sk, struct cca_cubic *ca)
{
	const struct tcp_sock *tp = tcp_sk(sk);

	ca->hs_round_start = (u32)tp->tcp_mstamp;
	ca->hs_last_ack = ca->hs_round_start;
	ca->hs_end_seq = tp->snd_nxt;
	ca->hs_curr_rtt = ~0U;
	ca->hs_samples = 0;
}

/* The per-RTT round (ECN alpha, ccalog), as <ccaas/round.h> keeps one. */
static void cca_cubic_round_start(struct cca_cubic *ca,
				  const struct tcp_sock *tp)
{
	ca->prev_round_ce = tp->delivered_ce != ca->round_delivered_ce;
	ca->round_end_seq = tp->snd_nxt;
	/* get_info() reads these without the socket lock */
	WRITE_ONCE(ca->round_delivered, tp->delivered);
	WRITE_ONCE(ca->round_delivered_ce, tp->delivered_ce);
	ca->round_flags = 0;
}

/* A round signal for ccalog (compiled out with CCAAS_NO_CCALOG). */
static void cca_cubic_note(struct cca_cubic *ca, u32 flag)
{
#ifndef CCAAS_NO_CCALOG
	ca->round_flags |= flag;
#endif
}

static void cca_cubic_init(struct sock *sk)
{
	struct cca_cubic *ca = inet_csk_ca(sk);
	const struct tcp_sock *tp = tcp_sk(sk);
	u32 alpha;

	ccaas_sock_start(sk);
	ccaas_log_init(sk);

	/*
	 * A socket taken over mid-connection keeps its cwnd and ssthresh, as
	 * with a switch to cubic: a new epoch from that cwnd, and HyStart if
	 * it is still in slow start.
	 */
	cca_cubic_reset(ca);
	if (hystart)
		cca_cubic_hs_reset(sk, ca);
	alpha = min(ccaas_sock_param(sk, CCA_CUBIC_ALPHA_ON_INIT, alpha_on_init),
		    CCAAS_ALPHA_ONE);
	WRITE_ONCE(ca->alpha, ccaas_alpha_seed(tp, alpha));
	ca->cut = CCA_CUBIC_CUT_NONE;
	ca->round_delivered_ce = tp->delivered_ce;
	cca_cubic_round_start(ca, tp);
}

/*
 * The curve's per-ACK increment for @cwnd: cnt ACKed packets add one
 * packet (tcp_cong_avoid_ai()). tcp_cubic.c's bictcp_update().
 */
static void cca_cubic_update(struct sock *sk, struct cca_cubic *ca, u32 cwnd,
			     u32 acked)
{
	u32 now = tcp_jiffies32;
	u32 delta, target, c;
	u64 offs, t;

	ca->ack_cnt += acked;

	if (ca->last_cwnd == cwnd && (s32)(now - ca->last_time) <= HZ / 32)
		return;
	/* the curve moves once per jiffy at most; a new epoch has no time */
	if (ca->epoch_start && now == ca->last_time)
		goto reno;

	ca->last_cwnd = cwnd;
	ca->last_time = now;
	c = ccaas_sock_param(sk, CCA_CUBIC_C, cubic_c);

	if (!ca->epoch_start) {
		ca->epoch_start = now;
		ca->ack_cnt = acked;
		ca->tcp_cwnd = cwnd;
		if (ca->w_last_max <= cwnd) {
			ca->k = 0;
			ca->origin = cwnd;
		} else {
			/* K^3 = (W_max - cwnd) / C s^3, in ticks^3 */
			ca->k = cca_cubic_cbrt(div_u64(1ULL << (CCA_CUBIC_TICK_SHIFT * 3 + 10), c) *
					       (ca->w_last_max - cwnd));
			ca->origin = ca->w_last_max;
		}
	}

	/* t, one least RTT ahead, in ticks */
	t = (s32)(now - ca->epoch_start);
	t += usecs_to_jiffies(ca->delay_min);
	t <<= CCA_CUBIC_TICK_SHIFT;
	do_div(t, HZ);

	offs = t < ca->k ? ca->k - t : t - ca->k;
	/*
	 * C * (t - K)^3 packets: c / 2^10 and ticks of 2^-10 s. As cubic's,
	 * the cube wraps past 2^64 (t - K beyond 347 s with c = 410).
	 */
	delta = (c * offs * offs * offs) >> (10 + 3 * CCA_CUBIC_TICK_SHIFT);
	if (t < ca->k)
		target = ca->origin - delta;
	else
		target = ca->origin + delta;

	if (target > cwnd)
		ca->cnt = cwnd / (target - cwnd);
	else
		ca->cnt = 100 * cwnd;	/* the plateau: almost no growth */

	if (!ca->w_last_max && ca->cnt > CCA_CUBIC_FIRST_CNT)
		ca->cnt = CCA_CUBIC_FIRST_CNT;

reno:
	if (tcp_friendliness) {
		/* Reno's window: +1 per cwnd * scale / 8 ACKed (>= 1) */
		delta = (cwnd * cca_cubic_reno_scale(cca_cubic_beta(sk))) >> 3;
		if (ca->ack_cnt > delta) {
			u32 n = (ca->ack_cnt - 1) / delta;

			ca->ack_cnt -= n * delta;
			ca->tcp_cwnd += n;
		}
		if (ca->tcp_cwnd > cwnd) {
			u32 max_cnt = cwnd / (ca->tcp_cwnd - cwnd);

			if (ca->cnt > max_cnt)
				ca->cnt = max_cnt;
		}
	}

	/* at most one packet per two ACKed: 1.5 cwnd per round trip */
	ca->cnt = max(ca->cnt, 2U);
}

static void cca_cubic_cong_avoid(struct sock *sk, u32 ack, u32 acked)
{
	struct cca_cubic *ca = inet_csk_ca(sk);
	struct tcp_sock *tp = tcp_sk(sk);

	if (!tcp_is_cwnd_limited(sk))
		return;

	if (tcp_in_slow_start(tp)) {
		acked = tcp_slow_start(tp, acked);
		if (!acked)
			return;
	}
	cca_cubic_update(sk, ca, tcp_snd_cwnd(tp), acked);
	tcp_cong_avoid_ai(tp, ca->cnt, acked);
}

/* A reduction from @cwnd: the epoch ends, W_max is set (fast convergence). */
static void cca_cubic_reduce(struct cca_cubic *ca, u32 cwnd, u32 beta)
{
	ca->epoch_start = 0;
	if (cwnd < ca->w_last_max && fast_convergence)
		ca->w_last_max = (cwnd * (CCA_CUBIC_ONE + beta)) /
				 (2 * CCA_CUBIC_ONE);
	else
		ca->w_last_max = cwnd;
}

/* Cubic's, always: tcp_cubic.c's recalc_ssthresh(). */
static u32 cca_cubic_ssthresh(struct sock *sk)
{
	struct cca_cubic *ca = inet_csk_ca(sk);
	u32 cwnd = tcp_snd_cwnd(tcp_sk(sk));
	u32 beta = cca_cubic_beta(sk);

	cca_cubic_note(ca, CCAAS_ROUND_SSTHRESH);
	cca_cubic_reduce(ca, cwnd, beta);
	ca->cut = CCA_CUBIC_CUT_LOSS;
	return cca_cubic_beta_cwnd(cwnd, beta);
}

/*
 * The stack enters CWR, ssthresh() done. An ECN echo (marks this round
 * trip or the last) gets the proportional cut of the same window; the
 * stack holds CWR for a window, so that is once a round trip.
 */
static void cca_cubic_cwr(struct sock *sk, struct cca_cubic *ca)
{
	struct tcp_sock *tp = tcp_sk(sk);

	if (!ccaas_tcp_ecn_ok(tp) ||
	    (tp->delivered_ce == ca->round_delivered_ce && !ca->prev_round_ce))
		return;
	cca_cubic_note(ca, CCAAS_ROUND_ECE);
	ca->cut = CCA_CUBIC_CUT_ECN;
	WRITE_ONCE(tp->snd_ssthresh,
		   max(ccaas_alpha_cut(tp->prior_cwnd, ca->alpha),
		       tp->snd_ssthresh));
}

/* A loss during the CWR of an ECN cut: Cubic's cut of the same window. */
static void cca_cubic_loss(struct sock *sk, struct cca_cubic *ca)
{
	struct tcp_sock *tp = tcp_sk(sk);

	cca_cubic_note(ca, CCAAS_ROUND_LOSS);
	if (ca->cut != CCA_CUBIC_CUT_ECN)
		return;
	ca->cut = CCA_CUBIC_CUT_LOSS;
	WRITE_ONCE(tp->snd_ssthresh,
		   cca_cubic_beta_cwnd(tp->prior_cwnd, cca_cubic_beta(sk)));
}

static void cca_cubic_set_state(struct sock *sk, u8 new_state)
{
	struct cca_cubic *ca = inet_csk_ca(sk);
	u8 old = inet_csk(sk)->icsk_ca_state;

	switch (new_state) {
	case TCP_CA_CWR:
		cca_cubic_cwr(sk, ca);
		break;
	case TCP_CA_Recovery:
		if (old != TCP_CA_Recovery)
			cca_cubic_loss(sk, ca);
		break;
	case TCP_CA_Loss:
		/* a timeout's, not a path MTU change's (<ccaas/timeout.h>) */
		if (old != TCP_CA_Loss && ccaas_timeout_entry(sk))
			cca_cubic_loss(sk, ca);
		cca_cubic_reset(ca);
		cca_cubic_hs_reset(sk, ca);
		break;
	default:
		break;
	}
}

/*
 * Once per round trip: fold the marks into alpha. Out of line, and a leaf:
 * the per-ACK part below has nothing to save.
 */
static noinline void cca_cubic_round_end(struct sock *sk)
{
	struct cca_cubic *ca = inet_csk_ca(sk);
	const struct tcp_sock *tp = tcp_sk(sk);
	u32 alpha;

	alpha = ccaas_alpha_update(ca->alpha,
				   tp->delivered - ca->round_delivered,
				   tp->delivered_ce - ca->round_delivered_ce,
				   min(ccaas_sock_param(sk, CCA_CUBIC_SHIFT_G, shift_g),
				       CCAAS_ALPHA_SHIFT));
	/* get_info() reads alpha without the socket lock. */
	WRITE_ONCE(ca->alpha, alpha);
	cca_cubic_round_start(ca, tp);
}

/* The same for a connection ccalog reports: then the round goes to ccalog. */
static noinline void cca_cubic_round_end_logged(struct sock *sk)
{
	struct cca_cubic *ca = inet_csk_ca(sk);
	struct ccaas_round done = {
		.end_seq = ca->round_end_seq,
		.delivered = ca->round_delivered,
		.delivered_ce = ca->round_delivered_ce,
		.flags = ca->round_flags,
	};

	cca_cubic_round_end(sk);
	ccaas_log_rtt(sk, &done, ccaas_tcp_ecn_ok(tcp_sk(sk)) ?
		      ca->alpha : CCAAS_LOG_NO_ALPHA, 0, 0);
}

/* HyStart on one RTT sample of slow start: tcp_cubic.c's hystart_update(). */
static void cca_cubic_hystart(struct sock *sk, struct cca_cubic *ca, u32 delay)
{
	struct tcp_sock *tp = tcp_sk(sk);
	u32 cwnd = tcp_snd_cwnd(tp);

	if (after(tp->snd_una, ca->hs_end_seq))
		cca_cubic_hs_reset(sk, ca);

	if (cwnd < hystart_low_window)
		return;

	if (hystart_detect & CCA_CUBIC_HS_ACK_TRAIN) {
		u32 now = (u32)tp->tcp_mstamp;

		if ((s32)(now - ca->hs_last_ack) <= (s32)hystart_ack_delta_us) {
			unsigned long rate = READ_ONCE(sk->sk_pacing_rate);
			u32 threshold = ca->delay_min;

			ca->hs_last_ack = now;
			/*
			 * TSO and GRO hold ACKs back: a cushion of two
			 * 64 KB bursts at the pacing rate (doubled in slow
			 * start), at most 1 ms.
			 */
			if (rate)
				threshold += min_t(u64, USEC_PER_MSEC,
						   div64_ul((u64)sk->sk_gso_max_size *
							    4 * USEC_PER_SEC, rate));
			/* paced packets may spread over half an RTT */
			if (sk->sk_pacing_status == SK_PACING_NONE)
				threshold >>= 1;
			/* tcp_cubic.c's (s32) difference against a u32 */
			if (now - ca->hs_round_start > threshold) {
				ca->hs_found = 1;
				NET_INC_STATS(sock_net(sk),
					      LINUX_MIB_TCPHYSTARTTRAINDETECT);
				NET_ADD_STATS(sock_net(sk),
					      LINUX_MIB_TCPHYSTARTTRAINCWND, cwnd);
				WRITE_ONCE(tp->snd_ssthresh, cwnd);
			}
		}
	}

	if (hystart_detect & CCA_CUBIC_HS_DELAY) {
		if (ca->hs_curr_rtt > delay)
			ca->hs_curr_rtt = delay;
		if (ca->hs_samples < CCA_CUBIC_HS_SAMPLES) {
			ca->hs_samples++;
		} else if (ca->hs_curr_rtt > ca->delay_min +
			   clamp(ca->delay_min >> 3, CCA_CUBIC_HS_DELAY_MIN,
				 CCA_CUBIC_HS_DELAY_MAX)) {
			ca->hs_found = 1;
			NET_INC_STATS(sock_net(sk),
				      LINUX_MIB_TCPHYSTARTDELAYDETECT);
			NET_ADD_STATS(sock_net(sk),
				      LINUX_MIB_TCPHYSTARTDELAYCWND, cwnd);
			WRITE_ONCE(tp->snd_ssthresh, cwnd);
		}
	}
}

/* Every ACK with newly acknowledged data: the RTT sample. */
static void cca_cubic_pkts_acked(struct sock *sk,
				 const struct ack_sample *sample)
{
	struct cca_cubic *ca = inet_csk_ca(sk);
	const struct tcp_sock *tp = tcp_sk(sk);
	u32 delay;

	/*
	 * The round trip's end (alpha, ccalog's report): snd_una reached its
	 * end, or the end is past snd_nxt (set before the connection had
	 * one: an init() in SYN_SENT), in one unsigned compare.
	 */
	if (unlikely(ca->round_end_seq - tp->snd_una - 1 >=
		     tp->snd_nxt - tp->snd_una)) {
		if (ccaas_logged(sk))
			cca_cubic_round_end_logged(sk);
		else
			cca_cubic_round_end(sk);
	}

	if (sample->rtt_us < 0)
		return;
	/* the first second of an epoch: samples of a recovery, not counted */
	if (ca->epoch_start && (s32)(tcp_jiffies32 - ca->epoch_start) < HZ)
		return;

	delay = sample->rtt_us ? sample->rtt_us : 1;
	if (!ca->delay_min || ca->delay_min > delay)
		ca->delay_min = delay;

	if (!ca->hs_found && tcp_in_slow_start(tp) && hystart)
		cca_cubic_hystart(sk, ca, delay);
}

static void cca_cubic_cwnd_event(struct sock *sk, enum tcp_ca_event ev)
{
	struct cca_cubic *ca = inet_csk_ca(sk);
	struct tcp_sock *tp = tcp_sk(sk);
	u32 now = tcp_jiffies32;
	s32 idle;

	if (ev == CA_EVENT_COMPLETE_CWR) {
		/*
		 * A loss found by a tail loss probe: tcp_process_tlp_ack()
		 * enters CWR and ends it on the same ACK, before PRR has
		 * counted anything (an ECE's CWR ends a window later, having
		 * counted). If that CWR took the ECN cut, Cubic's cut instead.
		 */
		if (ca->cut == CCA_CUBIC_CUT_ECN && !tp->prr_delivered) {
			cca_cubic_loss(sk, ca);
			tcp_snd_cwnd_set(tp, min(tcp_snd_cwnd(tp), tp->snd_ssthresh));
		}
		return;
	}
	if (ev != CA_EVENT_TX_START)
		return;
	/* sending resumes after idle: the curve does not count it */
	idle = now - tp->lsndtime;
	cca_cubic_note(ca, CCAAS_ROUND_TX_START);
	/* nor do marks from before it make a local drop an ECN echo */
	ca->prev_round_ce = 0;
	if (ca->epoch_start && idle > 0) {
		ca->epoch_start += idle;
		if (after(ca->epoch_start, now))
			ca->epoch_start = now;
	}
}

/*
 * `ss -ti` shows, for a connection that negotiated ECN, the DCTCP layout:
 * dctcp:(ce_state:0,alpha:..,ab_ecn:..,ab_tot:..) with cca_cubic's alpha
 * (1/1024) and the current round's marked and delivered bytes. Without ECN
 * there is no alpha to show, and nothing is reported (as for cubic).
 */
static size_t cca_cubic_get_info(struct sock *sk, u32 ext, int *attr,
				 union tcp_cc_info *info)
{
	const struct cca_cubic *ca = inet_csk_ca(sk);
	const struct tcp_sock *tp = tcp_sk(sk);
	u32 ce0, all0, ce, all;

	if (!ccaas_tcp_ecn_ok(tp) || !ccaas_info_wanted(ext))
		return 0;
	/*
	 * Without the socket lock: the round's start first, then the
	 * counters, so that a round restarting in between reads as the two
	 * rounds together, never as a negative count.
	 */
	ce0 = READ_ONCE(ca->round_delivered_ce);
	all0 = READ_ONCE(ca->round_delivered);
	ce = READ_ONCE(tp->delivered_ce) - ce0;
	all = READ_ONCE(tp->delivered) - all0;
	if ((s32)ce < 0 || (s32)all < 0)
		ce = 0, all = 0;
	ce = min(ce, all);
	return ccaas_info_dctcp(info, attr, true, 0, READ_ONCE(ca->alpha),
				tp->mss_cache * ce, tp->mss_cache * all);
}

static struct tcp_congestion_ops cca_cubic_ops __read_mostly = {
	.init		= cca_cubic_init,
	.ssthresh	= cca_cubic_ssthresh,
	.cong_avoid	= cca_cubic_cong_avoid,
	.set_state	= cca_cubic_set_state,
	.undo_cwnd	= tcp_reno_undo_cwnd,
	.cwnd_event	= cca_cubic_cwnd_event,
	.pkts_acked	= cca_cubic_pkts_acked,
	.get_info	= cca_cubic_get_info,
	.min_tso_segs	= ccaas_sock_min_tso_segs,
	/* no TCP_CONG_NEEDS_ECN: never asks for ECN, see the top */
	.owner		= THIS_MODULE,
	.name		= CCA_CUBIC_NAME,
};

/* Per policy rule overrides of the module parameters (`ccactl cca show`). */
static const struct ccaas_param_spec cca_cubic_params[] = {
	[CCA_CUBIC_BETA] = { .name = "beta", .min = CCA_CUBIC_BETA_MIN,
	  .max = CCA_CUBIC_BETA_MAX, .def = CCA_CUBIC_BETA_DEFAULT,
	  .unit = "1/1024" },
	[CCA_CUBIC_C] = { .name = "c", .min = CCA_CUBIC_C_MIN,
	  .max = CCA_CUBIC_C_MAX, .def = CCA_CUBIC_C_DEFAULT,
	  .unit = "1/1024 pkt/s^3" },
	[CCA_CUBIC_SHIFT_G] = { .name = "shift_g", .min = 0,
	  .max = CCAAS_ALPHA_SHIFT, .def = 4, .unit = "log2(1/g)" },
	[CCA_CUBIC_ALPHA_ON_INIT] = { .name = "alpha_on_init", .min = 0,
	  .max = CCAAS_ALPHA_ONE, .def = CCAAS_ALPHA_ONE, .unit = "1/1024" },
};

static struct ccaas_cca cca_cubic = {
	.ops		= &cca_cubic_ops,
	.params		= cca_cubic_params,
	.n_params	= ARRAY_SIZE(cca_cubic_params),
	.version	= CCA_CUBIC_VERSION,
	.features	= CCAAS_CCA_F_ECN_OK | CCAAS_CCA_F_NONECN_OK |
			  CCAAS_CCA_F_TRANSITIONAL,
};

static int __init cca_cubic_register(void)
{
	BUILD_BUG_ON(sizeof(struct cca_cubic) > ICSK_CA_PRIV_SIZE);
	/* the round's flags fit its 4 bits, alpha its u16 */
	BUILD_BUG_ON(CCAAS_ROUND_SSTHRESH >= 1 << 4);
	BUILD_BUG_ON(CCAAS_ALPHA_ONE > U16_MAX);
	BUILD_BUG_ON(CCA_CUBIC_HS_SAMPLES >= 1 << 4);
	return ccaas_cca_register(&cca_cubic);
}

static void __exit cca_cubic_unregister(void)
{
	ccaas_cca_unregister(&cca_cubic);
}

module_init(cca_cubic_register);
module_exit(cca_cubic_unregister);

MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("ccaas: Cubic with a proportional answer to ECN (cca_cubic)");
MODULE_ALIAS("tcp_cca_cubic");
