// SPDX-License-Identifier: GPL-2.0
/*
 * cca_xregion: ECN-based congestion control for cross-region paths.
 *
 * Long round trips (tens to hundreds of ms) make every mistake expensive:
 * a halving costs seconds of recovery, and flows with different RTTs see
 * the same marks very differently. cca_xregion therefore reacts to the
 * *rate* of congestion marks rather than their mere presence, and runs its
 * own state machine through cong_control.
 *
 * Congestion signal. On every ACK the stack's rate sample says how many
 * packets were delivered over the sample's interval (about the last round
 * trip) and how many of them were CE-marked. With the sending rate
 * tx_rate = cwnd * mss / srtt (bytes/s), congestion is signalled when
 *
 *	tx_rate * delivered_ce / delivered > C		(ce_thresh, bytes/s)
 *
 * i.e. when the flow's CE-marked bytes per second exceed C. Flows sharing a
 * marking bottleneck see about the same mark fraction; the fast ones cross
 * C first and yield, whatever their RTT, while slow ones keep growing: the
 * threshold moves with the flow's own rate (fairer across RTTs than
 * reacting to any mark). A sample in which every packet was marked always
 * signals, so a flow slower than C still backs off from a standing queue.
 *
 * State machine (get_info's dctcp_ce_state shows the mode number):
 *
 *	INC	0 SS	slow start, cwnd x2 per RTT
 *		1 CSS	conservative slow start, x1.05 per RTT; entered on the
 *			first CE mark or on a delay rise (the round's least RTT
 *			sample above min_rtt + min_rtt / 8, clamped 4..16 ms)
 *		2 CA	Cubic growth (<ccaas/cubic.h>), plus inc_boost packets
 *			per RTT while the last round's marks were sparse
 *			(marked rate below C / 4)
 *	DEC	3 ECN	target = cwnd * (1 - alpha / 3)
 *		4 LOSS	target = cwnd * 0.7 (a fast recovery episode began)
 *
 * alpha is the DCTCP estimate of the marked fraction (EWMA, gain 1/16, once
 * per round, <ccaas/ecn.h>), never below alpha_floor (6.25 %): even a flow
 * whose estimate has drained gives up 2 % when signalled. In DEC, cwnd
 * comes down to the target over one round trip by proportional rate
 * reduction (<ccaas/prr.h>); DEC lasts one round trip: the current round is
 * extended to end when everything sent before DEC began is acked. Then
 * cwnd is set to the target and INC resumes in CA. Marks seen during DEC
 * are what the reduction is already answering and are not acted on, nor
 * are, after DEC, rate samples that began before DEC ended: their packets
 * left while the window was still coming down. A new signal needs marks at
 * the rate C on traffic sent at the reduced window, so ECN cuts are at
 * least two round trips apart (alpha meanwhile keeps counting every mark,
 * so the next cut is as deep as the congestion has persisted).
 *
 * Losses are acted on at once: a fast recovery episode begins when the
 * stack's state turns Recovery, or when the stack, ending one episode with
 * losses still outstanding, starts the next within the same ACK (Recovery
 * -> Open -> Recovery, seen here as a call of ssthresh() while in
 * Recovery). An ECN DEC interrupted by a loss becomes a LOSS DEC towards
 * the lower of the two targets. A call of ssthresh() outside Recovery and
 * Loss, on an ACK whose rate sample has no CE marks, is a loss too (a LOSS
 * DEC): local congestion (the stack's tcp_enter_cwr() after a qdisc drop)
 * or a loss revealed by a tail loss probe; an ECE on an ACK without a valid
 * rate sample would be taken for one, the safe side. After a LOSS DEC,
 * cwnd holds until the recovery is over. A retransmission timeout (the
 * stack itself drops cwnd to one packet after ssthresh()) goes back to SS
 * up to ssthresh = 0.7 * cwnd; as after DEC, marks on rate samples that
 * began before it are not acted on.
 *
 * What cong_control changes in the stack (read in the 6.12.117 sources,
 * code that predates 6.1, whose headers differ only in the cong_control
 * arguments; the module behaves the same on the stock 6.1 and 6.12
 * kernels): on an ECE the stack still calls tcp_enter_cwr() (from
 * tcp_try_to_open(); tcp_init_cwnd_reduction()): it calls ssthresh(),
 * stores the result in snd_ssthresh, enters TCP_CA_CWR and sends CWR. But
 * it does not touch cwnd: tcp_cong_control() hands the whole ACK to
 * cong_control instead of running PRR (tcp_cwnd_reduction()), and
 * tcp_end_cwnd_reduction() returns early for cong_control CCAs. Neither
 * does it update the pacing rate (tcp_update_pacing_rate() runs only for
 * other CCAs). So snd_ssthresh is merely informative here (this CCA sets it
 * to the target of each reduction and reads it only as the end of slow
 * start after a timeout, never letting tcp_slow_start() cut cwnd down to
 * it) and the kernel's CWR-on-first-mark costs nothing: an ACK with ECE
 * has CE marks in its rate sample, which are this CCA's own signal.
 * The stack still sets cwnd itself on a retransmission timeout and on undo.
 *
 * Pacing: sk_pacing_rate = gain * cwnd * mss / srtt, capped by
 * SO_MAX_PACING_RATE, with gain pacing_ss_gain (200 %) in SS and
 * pacing_gain (120 %) otherwise, the stack's own defaults; init() asks the
 * stack to pace (SK_PACING_NEEDED) in case no fq qdisc does it. In DEC the
 * window paced at is the target's (xr_pace()). The rate is set again when
 * that window changes and at the end of every round (see cong_control()),
 * at one division each time, where the stack spends one on every ACK for
 * other CCAs.
 *
 * Initial window: 100 packets (init_cwnd), as 10 would take several
 * long round trips to open. Precedence: the policy rule's init_cwnd knob
 * (ccaas_sock_start()), then a route's initcwnd (already applied by the
 * stack), then init_cwnd; only before any data was sent (a migrated
 * connection keeps its window).
 *
 * ECN is required for marks, so the ops set TCP_CONG_NEEDS_ECN. A
 * connection that did not negotiate ECN moves in init() to the fallback ops
 * "cca_xregion-ne": the same algorithm without TCP_CONG_NEEDS_ECN (no ECT
 * on its packets), reacting to losses and delay rise only. Receiver side,
 * CE marks are echoed exactly (ccaas_ecn_rcv_ce()), as for DCTCP: the
 * sender's mark fraction is only accurate when the peer does the same.
 */
#include <linux/inet_diag.h>
#include <linux/module.h>
#include <net/tcp.h>

#include <ccaas/ccaas.h>
#include <ccaas/cubic.h>
#include <ccaas/ecn.h>
#include <ccaas/info.h>
#include <ccaas/log.h>
#include <ccaas/pacing.h>
#include <ccaas/param.h>
#include <ccaas/prr.h>
#include <ccaas/round.h>
#include <ccaas/sock.h>
#include <ccaas/timeout.h>

#define CCA_XREGION_VERSION	CCAAS_VERSION(1, 0, 1)
/*
 * The benchmark (bench/) builds a second copy without the ccalog calls
 * (CCAAS_NO_CCALOG) under other names, to measure what they cost.
 */
#ifndef CCA_XREGION_NAME
#define CCA_XREGION_NAME		"cca_xregion"
#define CCA_XREGION_FALLBACK_NAME	"cca_xregion-ne"
#endif

/* --- Parameters (per policy rule: the first CCAAS_SOCK_PARAMS) ----------- */

/*
 * C, the CE-marked bytes per second that signal congestion. 125 000 B/s
 * (1 Mbit/s of marked traffic): a 100 Mbit/s flow reacts to 1 % of its
 * packets marked, a 10 Mbit/s one to 10 %.
 */
#define XR_CE_THRESH_MIN	1000U		/* 8 kbit/s */
#define XR_CE_THRESH_MAX	1000000000U	/* 8 Gbit/s */
#define XR_CE_THRESH_DEF	125000U
static unsigned int ce_thresh __read_mostly = XR_CE_THRESH_DEF;
CCAAS_PARAM_UINT(ce_thresh, ce_thresh, XR_CE_THRESH_MIN, XR_CE_THRESH_MAX, 0644);
MODULE_PARM_DESC(ce_thresh, "CE-marked bytes/s that signal congestion [1000..1000000000]");

/* Least alpha, in 1/1024: 64 = 6.25 %, the smallest cut is then 2 %. */
#define XR_ALPHA_FLOOR_DEF	64U
static unsigned int alpha_floor __read_mostly = XR_ALPHA_FLOOR_DEF;
CCAAS_PARAM_UINT(alpha_floor, alpha_floor, 0, CCAAS_ALPHA_ONE, 0644);
MODULE_PARM_DESC(alpha_floor, "least alpha, in 1/1024 [0..1024]");

/* Extra packets per RTT on top of Cubic while marks are sparse. */
#define XR_INC_BOOST_MAX	64U
#define XR_INC_BOOST_DEF	2U
static unsigned int inc_boost __read_mostly = XR_INC_BOOST_DEF;
CCAAS_PARAM_UINT(inc_boost, inc_boost, 0, XR_INC_BOOST_MAX, 0644);
MODULE_PARM_DESC(inc_boost, "additive boost in CA, packets per RTT [0..64]");

/* Pacing gains, percent of cwnd * mss / srtt (the stack's defaults). */
#define XR_PACING_GAIN_MIN	100U
#define XR_PACING_GAIN_MAX	400U
#define XR_PACING_GAIN_DEF	120U
#define XR_PACING_SS_GAIN_DEF	200U
static unsigned int pacing_gain __read_mostly = XR_PACING_GAIN_DEF;
CCAAS_PARAM_UINT(pacing_gain, pacing_gain, XR_PACING_GAIN_MIN, XR_PACING_GAIN_MAX, 0644);
MODULE_PARM_DESC(pacing_gain, "pacing gain outside slow start, percent [100..400]");

/* --- Module-wide parameters (not per rule) ----------------------------- */

static unsigned int pacing_ss_gain __read_mostly = XR_PACING_SS_GAIN_DEF;
CCAAS_PARAM_UINT(pacing_ss_gain, pacing_ss_gain, XR_PACING_GAIN_MIN, XR_PACING_GAIN_MAX, 0644);
MODULE_PARM_DESC(pacing_ss_gain, "pacing gain in slow start, percent [100..400]");

/* Initial window, packets; a policy rule's init_cwnd knob overrides it. */
#define XR_INIT_CWND_MAX	1000U
#define XR_INIT_CWND_DEF	100U
static unsigned int init_cwnd __read_mostly = XR_INIT_CWND_DEF;
CCAAS_PARAM_UINT(init_cwnd, init_cwnd, TCP_INIT_CWND, XR_INIT_CWND_MAX, 0644);
MODULE_PARM_DESC(init_cwnd, "initial window, packets [10..1000]");

/* --- Constants --------------------------------------------------------- */

/* alpha EWMA gain 2^-4 = 1/16, as DCTCP (RFC 8257). */
#define XR_ALPHA_G_SHIFT	4
/* ECN target: cwnd * (1 - alpha / XR_ECN_DIV), a third of alpha. */
#define XR_ECN_DIV		3
/* Loss target and post-timeout ssthresh: cwnd * 717 / 1024 = 0.7 cwnd. */
#define XR_LOSS_BETA		CCAAS_CUBIC_BETA_DEFAULT
/* Conservative slow start: +1 packet per 20 acked = x1.05 per RTT. */
#define XR_CSS_ACKED_PER_PKT	20
/* Marks are sparse when the marked rate is below C >> 2 = C / 4. */
#define XR_SPARSE_SHIFT		2
/* Delay rise: the round's least RTT above min_rtt + min_rtt >> 3 (1/8), */
#define XR_RISE_SHIFT		3
/* with the margin clamped to 4..16 ms (HyStart++'s bounds, RFC 9406), */
#define XR_RISE_MIN_US		(4 * USEC_PER_MSEC)
#define XR_RISE_MAX_US		(16 * USEC_PER_MSEC)
/* judged only on rounds with at least 8 RTT samples. */
#define XR_RISE_SAMPLES		8
/* Least cwnd a reduction leaves, packets. */
#define XR_MIN_CWND		2U
/*
 * Caps that keep the signal's products in 64 bits: tx_rate below 2^40 B/s
 * (8 Tbit/s) and packet counts below 2^23 per sample.
 */
#define XR_RATE_MAX		BIT_ULL(40)
#define XR_COUNT_MAX		BIT(23)
/* alpha of a new connection: 1, so the first cut is a third. */
#define XR_ALPHA_INIT		CCAAS_ALPHA_ONE

/* Modes; get_info reports them as dctcp_ce_state. */
enum {
	XR_SS,		/* INC: slow start */
	XR_CSS,		/* INC: conservative slow start */
	XR_CA,		/* INC: Cubic (+ boost) */
	XR_DEC_ECN,	/* DEC: towards (1 - alpha / 3) * cwnd */
	XR_DEC_LOSS,	/* DEC: towards 0.7 * cwnd */
};

/* Indexes of cca_xregion_params[], the per-rule overrides. */
enum { XR_P_CE_THRESH, XR_P_ALPHA_FLOOR, XR_P_INC_BOOST, XR_P_PACING_GAIN, XR_P_COUNT };

/*
 * The delay-rise state of SS, live only in SS, shares room with the PRR
 * state of DEC: it overlays prr.target and prr.ratio, which only matter in
 * DEC, and leaves prr.delivered, which at the end of DEC (or at a timeout)
 * becomes the delivered count then, for the stale-sample check after it.
 */
struct cca_xregion_ss {
	u32 rtt_min_us;			/* least RTT sample of the round */
	u32 samples;			/* RTT samples in the round */
};

/* 104 bytes exactly, the whole private area (BUILD_BUG_ON below). */
struct cca_xregion {
	struct ccaas_sock core;		/* the core's header: rule's knobs */
	struct ccaas_round round;	/* current round; DEC lasts one */
	struct ccaas_cubic cubic;	/* CA growth */
	union {
		struct ccaas_prr prr;	/* DEC: the reduction */
		struct cca_xregion_ss ss; /* SS: delay-rise detection */
	};
	u32 prior_rcv_nxt;		/* receiver: rcv_nxt at last CE flip */
	u16 alpha;			/* marked fraction, 1/1024 */
	u8 mode;			/* XR_* */
	u8 recovering:1,		/* the last ACK was in Recovery or Loss */
	   ce_state:1,			/* receiver: last data packet had CE */
	   sparse:1,			/* last round's marks were sparse */
	   stale:1,			/* samples may predate a DEC or RTO */
	   reduce:1,			/* the stack called ssthresh() */
	   repace:1;			/* cwnd set outside cong_control() */
};

static struct tcp_congestion_ops cca_xregion_ops;
static struct tcp_congestion_ops cca_xregion_ne_ops;

static bool xr_in_dec(const struct cca_xregion *ca)
{
	return ca->mode >= XR_DEC_ECN;
}

/* The same Cubic for every connection: RFC 9438's constants. */
static const struct ccaas_cubic_cfg xr_cubic_cfg = {
	.c = CCAAS_CUBIC_C_DEFAULT,
	.beta = XR_LOSS_BETA,
	.fast_convergence = 1,
	.tcp_friendly = 1,
};

/* Slow start again, with fresh delay-rise state (shared with the PRR). */
static void xr_enter_ss(struct cca_xregion *ca)
{
	ca->mode = XR_SS;
	ca->ss.rtt_min_us = U32_MAX;
	ca->ss.samples = 0;
}

/*
 * A retransmission timeout: slow start from the window the stack left, and
 * DEC, if one was under way, is over. Marks on packets sent before the
 * timeout answer a window it already gave up, as those sent during a DEC
 * answer the window the DEC gave up: rate samples that began before it
 * are stale (xr_sample_fresh()), else the first one would end slow start
 * and cut the new window again.
 */
static void xr_timeout(struct tcp_sock *tp, struct cca_xregion *ca)
{
	xr_enter_ss(ca);
	ca->reduce = 0;
	/*
	 * Nothing was delivered since the last ACK: packets sent after it
	 * carry this very count (their tx.delivered), so a sample is fresh
	 * only from one delivery after the timeout on. At the end of a DEC
	 * the ACK itself delivered, and the count then is the bound.
	 */
	ca->prr.delivered = tp->delivered + 1;
	ca->stale = 1;
}

/* Leave (conservative) slow start for @mode; ss_end is the window. */
static void xr_end_ss(struct tcp_sock *tp, struct cca_xregion *ca, u8 mode)
{
	ca->mode = mode;
	tp->snd_ssthresh = tcp_snd_cwnd(tp);
	tp->snd_cwnd_cnt = 0;
}

/*
 * @marked of @delivered packets at @rate bytes/s: is the marked rate above
 * @thresh bytes/s? Multiplications only, on capped operands.
 */
static bool xr_marked_rate_above(u64 rate, u32 delivered, u32 marked,
				 u32 thresh)
{
	delivered = min_t(u32, delivered, XR_COUNT_MAX);
	marked = min(marked, delivered);
	return min_t(u64, rate, XR_RATE_MAX) * marked > (u64)thresh * delivered;
}

/* Fold a round of @delivered packets, @marked of them CE, into alpha. */
static void xr_alpha_fold(struct sock *sk, struct cca_xregion *ca,
			  u32 delivered, u32 marked)
{
	u32 floor = min(ccaas_sock_param(sk, XR_P_ALPHA_FLOOR, alpha_floor),
			CCAAS_ALPHA_ONE);
	u32 alpha;

	alpha = ccaas_alpha_update(ca->alpha, delivered, marked,
				   XR_ALPHA_G_SHIFT);
	/* get_info() reads alpha without the socket lock; never below floor. */
	WRITE_ONCE(ca->alpha, max(alpha, floor));
}

/*
 * Enter DEC for @mode. The current round is extended to end once all sent
 * so far is acked, so DEC lasts exactly one round trip and alpha then
 * counts the marks of the whole stretch (a round cut short would weigh a
 * few packets like a full round).
 */
static void xr_enter_dec(struct sock *sk, struct cca_xregion *ca, u8 mode)
{
	struct tcp_sock *tp = tcp_sk(sk);
	u32 cwnd = tcp_snd_cwnd(tp);
	u32 target;

	if (mode == XR_DEC_ECN) {
		target = cwnd - div_u64((u64)cwnd * ca->alpha,
					XR_ECN_DIV * CCAAS_ALPHA_ONE);
	} else {
		target = ccaas_cubic_beta_cwnd(cwnd, XR_LOSS_BETA);
		/* A loss in an ECN DEC: 0.7 of the window it started from. */
		if (ca->mode == XR_DEC_ECN)
			target = min(ca->prr.target,
				     ccaas_cubic_beta_cwnd(ccaas_prr_start_cwnd(&ca->prr),
							   XR_LOSS_BETA));
	}
	target = max(target, XR_MIN_CWND);

	/* The plateau is the window the first reduction of a DEC left. */
	if (ca->mode != XR_DEC_ECN)
		ccaas_cubic_on_reduction(&ca->cubic, &xr_cubic_cfg, cwnd, target);
	ccaas_prr_start(&ca->prr, tp, target);
	tp->snd_ssthresh = target;
	ca->mode = mode;
	ca->sparse = 0;
	ca->round.end_seq = tp->snd_nxt;
}

/*
 * Does the rate sample count for a new signal? Not while it began before
 * the last DEC ended (prr.delivered); once one sample begins after that,
 * all later ones do too, and the check is off until the next DEC ends (so
 * the counters never get far enough apart to wrap).
 */
static bool xr_sample_fresh(struct cca_xregion *ca,
			    const struct rate_sample *rs)
{
	if (ca->stale && (s32)(rs->prior_delivered - ca->prr.delivered) >= 0)
		ca->stale = 0;
	return !ca->stale;
}

/* End of a round: alpha, sparse marks, delay rise, and the end of DEC. */
static void xr_round_end(struct sock *sk, struct cca_xregion *ca, u32 unit)
{
	struct tcp_sock *tp = tcp_sk(sk);
	u32 delivered = ccaas_round_delivered(&ca->round, tp);
	u32 marked = ccaas_round_delivered_ce(&ca->round, tp);
	u32 thresh = ccaas_sock_param(sk, XR_P_CE_THRESH, ce_thresh);

	xr_alpha_fold(sk, ca, delivered, marked);
	ca->sparse = !xr_marked_rate_above(ccaas_pacing_cwnd_rate(unit, tcp_snd_cwnd(tp)),
					   delivered, marked,
					   thresh >> XR_SPARSE_SHIFT);

	if (ca->mode == XR_SS) {
		u32 min_rtt = tcp_min_rtt(tp);
		u32 margin = clamp(min_rtt >> XR_RISE_SHIFT, XR_RISE_MIN_US,
				   XR_RISE_MAX_US);

		if (ca->ss.samples >= XR_RISE_SAMPLES && min_rtt != ~0U &&
		    ca->ss.rtt_min_us >= min_rtt + margin)
			xr_end_ss(tp, ca, XR_CSS);
		else
			xr_enter_ss(ca);
	} else if (xr_in_dec(ca)) {
		/* One round trip in DEC: the target is reached, back to INC. */
		tcp_snd_cwnd_set(tp, ca->prr.target);
		ca->mode = XR_CA;
		ca->prr.delivered = tp->delivered;
		ca->stale = 1;
	}
	ccaas_round_start(&ca->round, tp);
}

/*
 * The same for a connection ccalog reports, out of line so the call does
 * not weigh on the per-ACK path: cca_state is the mode of the next round.
 */
static noinline void xr_round_end_logged(struct sock *sk,
					 struct cca_xregion *ca, u32 unit)
{
	struct ccaas_round done = ca->round;

	xr_round_end(sk, ca, unit);
	ccaas_log_rtt(sk, &done, ca->alpha, 0, ca->mode);
}

/*
 * Growth in CA from @cwnd for @acked packets, Cubic's state prepared
 * (ccaas_cubic_prepare()): Cubic, and the boost, inc_boost packets per
 * cwnd acked (i.e. per RTT) while the last round's marks were sparse.
 * Return: the new cwnd, before the clamp.
 */
static __always_inline u32 xr_ca_step(struct sock *sk, struct cca_xregion *ca,
				      u32 cwnd, u32 acked)
{
	struct tcp_sock *tp = tcp_sk(sk);
	u32 boost;

	cwnd += ccaas_cubic_count(&ca->cubic, &xr_cubic_cfg, cwnd, acked);
	if (!ca->sparse)
		return cwnd;
	boost = ccaas_sock_param(sk, XR_P_INC_BOOST, inc_boost);
	if (boost) {
		tp->snd_cwnd_cnt += acked * min(boost, XR_INC_BOOST_MAX);
		if (tp->snd_cwnd_cnt >= cwnd) {
			u32 n = tp->snd_cwnd_cnt / cwnd;

			tp->snd_cwnd_cnt -= n * cwnd;
			cwnd += n;
		}
	}
	return cwnd;
}

/* Growth in INC for @acked packets. */
static void xr_grow(struct sock *sk, struct cca_xregion *ca, u32 acked)
{
	struct tcp_sock *tp = tcp_sk(sk);
	u32 cwnd;

	if (ca->mode == XR_SS) {
		/*
		 * Only below ssthresh: tcp_slow_start() would clamp a cwnd
		 * above it down in one step, and only PRR may cut cwnd.
		 */
		if (tcp_in_slow_start(tp)) {
			acked = tcp_slow_start(tp, acked);
			if (tcp_in_slow_start(tp))
				return;
		}
		/* ssthresh (after a timeout) reached: Cubic from here. */
		xr_end_ss(tp, ca, XR_CA);
		if (!acked)
			return;
	}

	cwnd = tcp_snd_cwnd(tp);
	if (ca->mode == XR_CSS) {
		tp->snd_cwnd_cnt += acked;
		if (tp->snd_cwnd_cnt >= XR_CSS_ACKED_PER_PKT) {
			u32 n = tp->snd_cwnd_cnt / XR_CSS_ACKED_PER_PKT;

			tp->snd_cwnd_cnt -= n * XR_CSS_ACKED_PER_PKT;
			cwnd += n;
		}
	} else {
		u32 min_rtt = tcp_min_rtt(tp);

		ccaas_cubic_prepare(&ca->cubic, &xr_cubic_cfg, cwnd,
				    (u32)tp->tcp_mstamp,
				    min_rtt == ~0U ? 0 : min_rtt);
		cwnd = xr_ca_step(sk, ca, cwnd, acked);
	}
	tcp_snd_cwnd_set(tp, min(cwnd, tp->snd_cwnd_clamp));
}

/*
 * The pacing rate for the current srtt, at the mode's gain: of cwnd in
 * INC, of the target window in DEC, set once for the DEC's round. PRR
 * sends about target / cwnd of what is delivered, so over the round the
 * DEC sends about a target's worth, which the target's rate with the
 * gain's margin (20 %) lets through; PRR's cwnd starts above the target,
 * so this cap is lower than the one a rate that followed it would set,
 * and a burst of PRR's (a stretch ACK) may meet it where it did not.
 */
static __always_inline void xr_pace(struct sock *sk,
				    const struct cca_xregion *ca, u32 unit)
{
	u32 gain = ca->mode == XR_SS ? pacing_ss_gain :
		   ccaas_sock_param(sk, XR_P_PACING_GAIN, pacing_gain);

	ccaas_pacing_set(sk, unit, xr_in_dec(ca) ? ca->prr.target :
				   tcp_snd_cwnd(tcp_sk(sk)), gain);
}

/*
 * Every ACK's work, in full: cong_control() hands over the ACKs its fast
 * path does not cover (see there), which also run through here
 * unchanged. Out of line, so that the fast path keeps its few registers.
 */
static noinline void xr_cong_control_full(struct sock *sk,
					  const struct rate_sample *rs)
{
	struct cca_xregion *ca = inet_csk_ca(sk);
	struct tcp_sock *tp = tcp_sk(sk);
	u8 ca_state = inet_csk(sk)->icsk_ca_state;
	u32 unit = ccaas_pacing_unit(tp);

	/*
	 * RTT samples for the delay-rise check, in slow start only. rs->rtt_us
	 * is the sample a pkts_acked() callback would get in this same ACK
	 * (tcp_ack_update_rtt() sets it for tcp_clean_rtx_queue(), which runs
	 * on every ACK that reaches cong_control()), taken here to save the
	 * stack an indirect call per ACK.
	 */
	if (ca->mode == XR_SS && rs->rtt_us > 0) {
		ca->ss.rtt_min_us = min_t(u32, ca->ss.rtt_min_us, rs->rtt_us);
		ca->ss.samples++;
	}

	if (ccaas_round_over(&ca->round, tp)) {
		if (ccaas_logged(sk))
			xr_round_end_logged(sk, ca, unit);
		else
			xr_round_end(sk, ca, unit);
	}

	/*
	 * A fast recovery episode began: the state became Recovery, or the
	 * stack started a new episode right as the last one ended (it then
	 * goes Recovery -> Open -> Recovery within one ACK, and calls
	 * ssthresh()). A loss, whatever DEC is doing.
	 */
	if (ca_state == TCP_CA_Recovery && (!ca->recovering || ca->reduce)) {
		ccaas_log_note(&ca->round, CCAAS_ROUND_LOSS);
		if (ca->mode != XR_DEC_LOSS)
			xr_enter_dec(sk, ca, XR_DEC_LOSS);
	} else if (!xr_in_dec(ca) && rs->delivered > 0 &&
		   xr_sample_fresh(ca, rs) && rs->delivered_ce > 0) {
		u64 rate = ccaas_pacing_cwnd_rate(unit, tcp_snd_cwnd(tp));

		if (ca->mode == XR_SS)
			xr_end_ss(tp, ca, XR_CSS);	/* the first mark */
		if (rs->delivered_ce >= rs->delivered ||
		    xr_marked_rate_above(rate, rs->delivered, rs->delivered_ce,
					 ccaas_sock_param(sk, XR_P_CE_THRESH, ce_thresh)))
			xr_enter_dec(sk, ca, XR_DEC_ECN);
	} else if (ca->reduce && ca_state != TCP_CA_Loss && !xr_in_dec(ca) &&
		   rs->delivered_ce <= 0) {
		/*
		 * The stack asked for a reduction without CE marks to explain
		 * it: local congestion (tcp_enter_cwr() on the send path) or
		 * a loss a tail loss probe revealed. Cut as for a loss,
		 * through PRR: cwnd is this CCA's.
		 */
		ccaas_log_note(&ca->round, CCAAS_ROUND_LOSS);
		xr_enter_dec(sk, ca, XR_DEC_LOSS);
	}
	ca->recovering = ca_state >= TCP_CA_Recovery;
	ca->reduce = 0;

	/*
	 * In DEC, PRR sets cwnd. In INC, growth (when cwnd is what limits
	 * sending), except in fast recovery that outlasted its DEC round:
	 * cwnd then holds until the losses are repaired.
	 */
	if (xr_in_dec(ca))
		tcp_snd_cwnd_set(tp, max(ccaas_prr_cwnd(&ca->prr, tp, rs->acked_sacked),
					 XR_MIN_CWND));
	else if (ca_state != TCP_CA_Recovery && rs->acked_sacked &&
		 tcp_is_cwnd_limited(sk))
		xr_grow(sk, ca, rs->acked_sacked);

	xr_pace(sk, ca, unit);
	ca->repace = 0;
}

/*
 * The per-ACK fast path: an ACK within a round (no round end), in Open,
 * Disorder or CWR (neither Recovery nor Loss now or at the last ACK), with
 * no reduction asked for that is not already under way or explained by
 * marks, and either in DEC, or in SS or CA with no new signal in the rate
 * sample, slow start staying below ssthresh and Cubic's increments valid.
 * It does what xr_cong_control_full() would do for such an ACK, in a
 * straight line, without calls; every other ACK goes there.
 *
 * One difference: the pacing rate is set only when the window it follows
 * changed (xr_pace()), and at the end of every round (in
 * xr_cong_control_full()), where the full path sets it on every ACK.
 * With that window unchanged, only srtt can move the rate: its EWMA takes
 * 1/8 of each sample, so a change of the path's RTT shows in it within a
 * round, and the rate follows at the next change of the window or at the
 * round's end, a round trip late at most. An undo (undo_cwnd()), which
 * sets cwnd outside this function, asks for the full path (repace). A lower
 * SO_MAX_PACING_RATE applies at once (the stack caps sk_pacing_rate when
 * the option is set), a higher one from the next update. This saves a
 * 64-bit division and a write the pacing qdisc reads on most ACKs.
 */
static void cca_xregion_cong_control(CCAAS_CONG_CONTROL_ARGS)
{
	struct cca_xregion *ca = inet_csk_ca(sk);
	struct tcp_sock *tp = tcp_sk(sk);
	u32 cwnd = tcp_snd_cwnd(tp), acked = rs->acked_sacked;
	bool grow;

	if (unlikely(ccaas_round_over(&ca->round, tp) ||
		     inet_csk(sk)->icsk_ca_state >= TCP_CA_Recovery ||
		     ca->recovering || ca->repace))
		goto full;
	if (unlikely(ca->reduce)) {
		/*
		 * ssthresh() was called (an ECE's CWR) in DEC, or on an ACK
		 * whose sample has marks: the full path only clears the flag,
		 * or takes the marks for a signal, which it checks below.
		 */
		if (!xr_in_dec(ca) && rs->delivered_ce <= 0)
			goto full;
		ca->reduce = 0;
	}

	if (xr_in_dec(ca)) {
		/* the rate follows the target: nothing else changes */
		tcp_snd_cwnd_set(tp, max(ccaas_prr_cwnd(&ca->prr, tp, acked),
					 XR_MIN_CWND));
		return;
	}

	if (rs->delivered > 0 && xr_sample_fresh(ca, rs) &&
	    rs->delivered_ce > 0)
		goto full;	/* a signal */
	grow = acked && tcp_is_cwnd_limited(sk);
	if (ca->mode == XR_CA) {
		if (grow) {
			u32 next;

			if (!ccaas_cubic_prepared(&ca->cubic, (u32)tp->tcp_mstamp))
				goto full;
			/* most ACKs only count towards the next packet */
			next = xr_ca_step(sk, ca, cwnd, acked);
			if (next == cwnd && cwnd <= tp->snd_cwnd_clamp)
				return;
			tcp_snd_cwnd_set(tp, min(next, tp->snd_cwnd_clamp));
		}
	} else if (ca->mode == XR_SS) {
		/* slow start that ends here: the full path */
		if (grow && (!tcp_in_slow_start(tp) ||
			     cwnd + acked >= tp->snd_ssthresh))
			goto full;
		if (rs->rtt_us > 0) {
			ca->ss.rtt_min_us = min_t(u32, ca->ss.rtt_min_us,
						  rs->rtt_us);
			ca->ss.samples++;
		}
		/* what tcp_slow_start() does below ssthresh */
		if (grow)
			tcp_snd_cwnd_set(tp, min(cwnd + acked,
						 tp->snd_cwnd_clamp));
	} else {
		goto full;
	}
	if (tcp_snd_cwnd(tp) != cwnd)
		xr_pace(sk, ca, ccaas_pacing_unit(tp));
	return;
full:
	xr_cong_control_full(sk, rs);
}

/*
 * The stack calls this when it starts a reduction episode: fast recovery,
 * a timeout, and also the first ECE (tcp_enter_cwr(), see the top). The
 * value is the loss reaction, and only lands in snd_ssthresh; cwnd is
 * this CCA's own. cong_control() learns of the episode from the flag.
 */
static u32 cca_xregion_ssthresh(struct sock *sk)
{
	struct cca_xregion *ca = inet_csk_ca(sk);

	ccaas_log_note(&ca->round, CCAAS_ROUND_SSTHRESH);
	ca->reduce = 1;
	return ccaas_cubic_beta_cwnd(tcp_snd_cwnd(tcp_sk(sk)), XR_LOSS_BETA);
}

static void cca_xregion_cwnd_event(struct sock *sk, enum tcp_ca_event ev)
{
	struct cca_xregion *ca = inet_csk_ca(sk);
	struct tcp_sock *tp = tcp_sk(sk);
	u32 ce;

	switch (ev) {
	case CA_EVENT_ECN_IS_CE:
	case CA_EVENT_ECN_NO_CE:
		if (!ccaas_tcp_ecn_ok(tp))
			break;
		ce = ca->ce_state;
		ccaas_ecn_rcv_ce(sk, ev, &ca->prior_rcv_nxt, &ce);
		ca->ce_state = ce;
		break;
	case CA_EVENT_LOSS:
		/*
		 * A retransmission timeout, right after ssthresh(): the stack
		 * now drops cwnd to what is in flight + 1. Slow start back to
		 * ssthresh, Cubic's plateau at the window before.
		 */
		ccaas_log_note(&ca->round, CCAAS_ROUND_LOSS);
		ccaas_cubic_on_reduction(&ca->cubic, &xr_cubic_cfg,
					 tcp_snd_cwnd(tp), tp->snd_ssthresh);
		xr_timeout(tp, ca);	/* the timeout's ssthresh(): handled */
		break;
	case CA_EVENT_TX_START:
		ccaas_log_note(&ca->round, CCAAS_ROUND_TX_START);
		ccaas_cubic_idle(&ca->cubic,
				 jiffies_to_usecs(tcp_jiffies32 - tp->lsndtime));
		break;
	default:
		break;
	}
}

/*
 * A retransmission timeout during a reduction (CWR or Recovery before
 * high_seq is acknowledged): tcp_enter_loss() then calls neither
 * ssthresh() nor CA_EVENT_LOSS, only set_state(Loss), with cwnd already at
 * the flight + 1. As after CA_EVENT_LOSS: slow start back to the loss
 * reaction of the window the reduction began from (tp->prior_cwnd), or to
 * the DEC's target if that is lower, and DEC is over (its PRR would hold
 * cwnd near 1). The cubic plateau is the one the DEC set. After
 * CA_EVENT_LOSS (prior_cwnd is then the cwnd it saw) it only does again
 * what that did (the same ssthresh, slow start's state reset). A Loss
 * entry of a path MTU change is no timeout (ccaas_timeout_entry()).
 */
static void cca_xregion_set_state(struct sock *sk, u8 new_state)
{
	struct cca_xregion *ca = inet_csk_ca(sk);
	struct tcp_sock *tp = tcp_sk(sk);
	u32 loss;

	if (!ccaas_timeout_in_reduction(sk, new_state))
		return;
	loss = max(ccaas_cubic_beta_cwnd(tp->prior_cwnd, XR_LOSS_BETA),
		   XR_MIN_CWND);
	ccaas_log_note(&ca->round, CCAAS_ROUND_LOSS);
	WRITE_ONCE(tp->snd_ssthresh, min(tp->snd_ssthresh, loss));
	xr_timeout(tp, ca);
}

/*
 * The socket leaves for another CCA (a migration, or the application's own
 * TCP_CONGESTION) in the stack's CWR or Recovery. This CCA does its own
 * reduction (its DEC) and leaves the stack's PRR unused: after a sparse ECE
 * snd_ssthresh still holds ssthresh()'s loss reaction, 0.7 of a cwnd this
 * CCA keeps, and prr_delivered stays 0 while prr_out counts what was sent
 * since the episode began. A CCA without cong_control() continues the
 * episode with the stack's PRR and ends it at snd_ssthresh: it would make a
 * cut this CCA never made (measured on 7.3: cwnd 184 -> 128 at a move to
 * cca_cubic, and 23 % of the rate lost for seconds), or, with prr_out far
 * ahead of prr_delivered, stop sending. So the episode restarts from the
 * current cwnd (what tcp_init_cwnd_reduction() sets) towards the window
 * meant: the DEC's target, else cwnd. Not when a reduction is still to be
 * applied (ssthresh() called, cong_control() not yet: local congestion on
 * the send path), whose snd_ssthresh and fresh PRR state stand; nor for a
 * socket that is not an established TCP one (tcp_disconnect() calls this
 * after resetting the window, and an MPTCP socket is no tcp_sock).
 */
static void cca_xregion_release(struct sock *sk)
{
	struct cca_xregion *ca = inet_csk_ca(sk);
	u8 state = inet_csk(sk)->icsk_ca_state;
	struct tcp_sock *tp;

	if (!sk_is_tcp(sk) || sk->sk_state == TCP_CLOSE ||
	    sk->sk_state == TCP_LISTEN || ca->reduce ||
	    (state != TCP_CA_CWR && state != TCP_CA_Recovery))
		return;
	tp = tcp_sk(sk);
	tp->snd_ssthresh = xr_in_dec(ca) ? ca->prr.target : tcp_snd_cwnd(tp);
	tp->prior_cwnd = tcp_snd_cwnd(tp);
	tp->prr_delivered = 0;
	tp->prr_out = 0;
}

/*
 * A loss reduction proved spurious (the stack calls this only for episodes
 * that began from an undoable state, where it recorded tp->prior_cwnd).
 */
static u32 cca_xregion_undo_cwnd(struct sock *sk)
{
	struct cca_xregion *ca = inet_csk_ca(sk);
	const struct tcp_sock *tp = tcp_sk(sk);

	if (ca->mode == XR_DEC_LOSS) {
		ca->mode = XR_CA;
	} else if (ca->mode == XR_SS && tp->prior_ssthresh < TCP_INFINITE_SSTHRESH) {
		/* a spurious timeout after slow start had ended */
		ca->mode = XR_CA;
	}
	ccaas_cubic_undo(&ca->cubic, max(ca->cubic.w_max, tp->prior_cwnd));
	/* the window restored is the one those marks answered */
	ca->stale = 0;
	ca->repace = 1;		/* the stack sets cwnd after this returns */
	return max(tcp_snd_cwnd(tp), tp->prior_cwnd);
}

static void cca_xregion_init(struct sock *sk)
{
	struct cca_xregion *ca = inet_csk_ca(sk);
	struct tcp_sock *tp = tcp_sk(sk);
	const struct dst_entry *dst = __sk_dst_get(sk);

	/* Initial window: rule knob > route initcwnd > init_cwnd. */
	if (!tp->data_segs_out && !(dst && dst_metric(dst, RTAX_INITCWND)))
		tcp_snd_cwnd_set(tp, min(init_cwnd, tp->snd_cwnd_clamp));
	ccaas_sock_start(sk);
	ccaas_log_init(sk);

	/*
	 * Without ECN (an established socket whose handshake did not
	 * negotiate it), the fallback ops: no ECT on packets. Listeners and
	 * unconnected sockets do not know yet. Same module and same private
	 * area, so the state set up below serves both.
	 */
	if (!ccaas_tcp_ecn_ok(tp) &&
	    sk->sk_state != TCP_LISTEN && sk->sk_state != TCP_CLOSE) {
		inet_csk(sk)->icsk_ca_ops = &cca_xregion_ne_ops;
		INET_ECN_dontxmit(sk);
	}

	ccaas_round_start(&ca->round, tp);
	ccaas_cubic_reset(&ca->cubic);
	/* one taken over mid-transfer: its own CE fraction, not below floor */
	ca->alpha = max(ccaas_alpha_seed(tp, XR_ALPHA_INIT),
			min(ccaas_sock_param(sk, XR_P_ALPHA_FLOOR, alpha_floor),
			    CCAAS_ALPHA_ONE));
	ca->prior_rcv_nxt = tp->rcv_nxt;
	ca->ce_state = 0;
	ca->sparse = 0;
	ca->stale = 0;
	ca->reduce = 0;
	ca->repace = 0;
	ca->recovering = inet_csk(sk)->icsk_ca_state >= TCP_CA_Recovery;
	/* A connection taken over past slow start continues in CA. */
	if (tcp_in_slow_start(tp))
		xr_enter_ss(ca);
	else
		ca->mode = XR_CA;

	ccaas_pacing_request(sk);
	ccaas_pacing_set(sk, ccaas_pacing_unit(tp), tcp_snd_cwnd(tp),
			 ca->mode == XR_SS ? pacing_ss_gain :
			 ccaas_sock_param(sk, XR_P_PACING_GAIN, pacing_gain));
}

/*
 * `ss -ti` shows the DCTCP layout, mapped as:
 * dctcp:(ce_state:MODE,alpha:ALPHA,ab_ecn:TARGET,ab_tot:C) with MODE the
 * XR_* number (0 SS, 1 CSS, 2 CA, 3 DEC on ECN, 4 DEC on loss), ALPHA in
 * 1/1024, TARGET the current reduction's target window in bytes (0 outside
 * DEC) and C the socket's ce_thresh in bytes/s. Also on the fallback ops,
 * whose name tells them apart.
 */
static size_t cca_xregion_get_info(struct sock *sk, u32 ext, int *attr,
				   union tcp_cc_info *info)
{
	const struct cca_xregion *ca = inet_csk_ca(sk);
	const struct tcp_sock *tp = tcp_sk(sk);
	u8 mode = READ_ONCE(ca->mode);

	if (!ccaas_info_wanted(ext))
		return 0;
	return ccaas_info_dctcp(info, attr, true, mode, READ_ONCE(ca->alpha),
				mode >= XR_DEC_ECN ?
				READ_ONCE(ca->prr.target) * tp->mss_cache : 0,
				ccaas_sock_param(sk, XR_P_CE_THRESH, ce_thresh));
}

static struct tcp_congestion_ops cca_xregion_ops __read_mostly = {
	.init		= cca_xregion_init,
	.ssthresh	= cca_xregion_ssthresh,
	.cong_control	= cca_xregion_cong_control,
	.undo_cwnd	= cca_xregion_undo_cwnd,
	.cwnd_event	= cca_xregion_cwnd_event,
	.set_state	= cca_xregion_set_state,
	.release	= cca_xregion_release,
	.get_info	= cca_xregion_get_info,
	.min_tso_segs	= ccaas_sock_min_tso_segs,
	.flags		= TCP_CONG_NEEDS_ECN,
	.owner		= THIS_MODULE,
	.name		= CCA_XREGION_NAME,
};

/* The same algorithm for connections without ECN; see init(). */
static struct tcp_congestion_ops cca_xregion_ne_ops __read_mostly = {
	.init		= cca_xregion_init,
	.ssthresh	= cca_xregion_ssthresh,
	.cong_control	= cca_xregion_cong_control,
	.undo_cwnd	= cca_xregion_undo_cwnd,
	.cwnd_event	= cca_xregion_cwnd_event,
	.set_state	= cca_xregion_set_state,
	.release	= cca_xregion_release,
	.get_info	= cca_xregion_get_info,
	.min_tso_segs	= ccaas_sock_min_tso_segs,
	.owner		= THIS_MODULE,
	.name		= CCA_XREGION_FALLBACK_NAME,
};

/* Per policy rule overrides of the module parameters (`ccactl cca show`). */
static const struct ccaas_param_spec cca_xregion_params[] = {
	[XR_P_CE_THRESH] = { .name = "ce_thresh", .min = XR_CE_THRESH_MIN,
	  .max = XR_CE_THRESH_MAX, .def = XR_CE_THRESH_DEF, .unit = "B/s marked" },
	[XR_P_ALPHA_FLOOR] = { .name = "alpha_floor", .min = 0,
	  .max = CCAAS_ALPHA_ONE, .def = XR_ALPHA_FLOOR_DEF, .unit = "1/1024" },
	[XR_P_INC_BOOST] = { .name = "inc_boost", .min = 0,
	  .max = XR_INC_BOOST_MAX, .def = XR_INC_BOOST_DEF, .unit = "pkt/RTT" },
	[XR_P_PACING_GAIN] = { .name = "pacing_gain", .min = XR_PACING_GAIN_MIN,
	  .max = XR_PACING_GAIN_MAX, .def = XR_PACING_GAIN_DEF, .unit = "percent" },
};

static struct ccaas_cca cca_xregion = {
	.ops		= &cca_xregion_ops,
	.fallback_ops	= &cca_xregion_ne_ops,
	.params		= cca_xregion_params,
	.n_params	= ARRAY_SIZE(cca_xregion_params),
	.version	= CCA_XREGION_VERSION,
	.features	= CCAAS_CCA_F_NEEDS_ECN | CCAAS_CCA_F_ECN_OK |
			  CCAAS_CCA_F_NONECN_OK | CCAAS_CCA_F_CONG_CONTROL,
};

static int __init cca_xregion_register(void)
{
	BUILD_BUG_ON(sizeof(struct cca_xregion) > ICSK_CA_PRIV_SIZE);
	BUILD_BUG_ON(sizeof(struct cca_xregion_ss) >
		     offsetof(struct ccaas_prr, delivered));
	BUILD_BUG_ON(sizeof(CCA_XREGION_FALLBACK_NAME) > TCP_CA_NAME_MAX);
	BUILD_BUG_ON(ARRAY_SIZE(cca_xregion_params) != XR_P_COUNT);
	BUILD_BUG_ON(XR_P_COUNT > CCAAS_SOCK_PARAMS);
	return ccaas_cca_register(&cca_xregion);
}

static void __exit cca_xregion_unregister(void)
{
	ccaas_cca_unregister(&cca_xregion);
}

module_init(cca_xregion_register);
module_exit(cca_xregion_unregister);

MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("ccaas: cross-region ECN congestion control (cca_xregion)");
MODULE_ALIAS("tcp_cca_xregion");
