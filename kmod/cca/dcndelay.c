// SPDX-License-Identifier: GPL-2.0
/*
 * cca_dcndelay: delay-based congestion control for paths inside a region.
 *
 * Inside a region the propagation delay is small and known per locality
 * (rack, data center, region), so the sender can aim for a window that keeps
 * its packets in flight on the path and hardly any in a queue:
 *
 *	target = delivery rate * target_rtt
 *
 * target_rtt is the locality's configured minimum RTT (75 us rack, 100 us DC,
 * 125 us region): a per-rule parameter, so the policy sets it per locality.
 * It is the RTT the sender is willing to run at: at equilibrium the
 * bottleneck queue holds rate * (target_rtt - base RTT). It never counts as
 * less than the path's own minimum RTT plus 1/4 (DCN_RTT_FLOOR_SHIFT): a
 * target RTT below the propagation delay would make every round look
 * congested and shrink cwnd without end, and one just above it would leave
 * no room for the RTT jitter every host adds.
 *
 * Once per round trip (<ccaas/round.h>), in congestion avoidance:
 *
 *  - cwnd above the target while a queue stands: move decrease_pct (30 %)
 *    of the way down to it, rounded up so that even a small excess shrinks.
 *    A queue stands when even the round's least RTT sample (one per ACK,
 *    on a SACK connection: dcn_ack_rtt_us()) exceeds the effective target
 *    RTT. Without that check, RTT jitter that
 *    is not queueing (host scheduling, interrupt coalescing, an emulated
 *    CPU) lowers every rate sample below cwnd / target_rtt, and each round
 *    would shrink cwnd further, down to the 2-packet floor;
 *  - otherwise grow additively by `step` packets over the next round. The
 *    step starts at 1 packet, doubles after every step_rounds consecutive
 *    clean rounds and stops at step_max packets:
 *
 *	step_rounds = 3, step_max = 8:  1 1 1 2 2 2 4 4 4 8 8 ...
 *
 *    A round is clean when it ends in congestion avoidance, cwnd-limited,
 *    without CE marks, ECE, loss, or a step down. Any of those resets the
 *    step to 1 packet. The cap bounds the overshoot a single round can add
 *    to the queue (8 packets, 12 KB at 1500 bytes) well below the marking
 *    threshold of a data center switch, so a dcndelay flow normally finds
 *    its window by delay and is rarely marked.
 *
 * The growth of a round is spread over its ACKs: one packet per
 * cwnd / step packets acknowledged, at most `step` packets in the round.
 *
 * A new connection starts in slow start, and leaves it at the end of the
 * first round whose least RTT sample exceeds the effective target RTT (a
 * queue is forming), or on a mark or loss. The delivery rate lags a doubling
 * window by one round, so the target window is only applied afterwards.
 *
 * ECN guardrail: dcndelay keeps DCTCP's alpha (the shared EWMA of the marked
 * fraction, <ccaas/ecn.h>, same gain and initial value as cca_dctcp) and is
 * never more aggressive than DCTCP under marks:
 *
 *  G1 cut: an ECE reduction is DCTCP's, ssthresh = cwnd * (1 - alpha / 2);
 *     the stack applies it (CWR, PRR) and dcndelay leaves cwnd to the stack
 *     in CWR, Recovery and Loss;
 *  G2 no growth in a marked round: from the first ECE of a round to its end,
 *     and over the whole round after it, cwnd does not grow;
 *  G3 Reno's pace while marks are recent: once the connection has been
 *     marked, the step stays at 1 packet per round (DCTCP's congestion
 *     avoidance) until alpha has decayed to 0.
 *
 * The cut is monotonic in cwnd and dcndelay's growth per round is never
 * above DCTCP's while alpha > 0, so fed the same marks from the same window
 * dcndelay's cwnd never exceeds DCTCP's after a marked round (KUnit checks
 * exactly this against cca_dctcp).
 *
 * Loss: entering Recovery, or an RTO, sets ssthresh = cwnd * 819 / 1024
 * (loss_beta); during an ECN reduction, the smaller of that and DCTCP's cut.
 *
 * TSO: min_tso_segs() returns the rule's `tso_segs` knob, else at least
 * this module's tso_segs floor. At intra-region rates the stack sizes TSO
 * bursts from the pacing rate (about 1 ms worth), so a flow sharing a link
 * with many others gets bursts of 2 segments (net.ipv4.tcp_min_tso_segs):
 * the per-packet costs of the stack, qdisc, driver and NIC doorbells then
 * limit the host before the network does, and the host's own queueing
 * shows up in the RTT samples that this CCA reads as network queueing.
 *
 * Without ECN (the handshake did not negotiate it), init() moves the socket
 * to the fallback ops "cca_dcndelay-ne": the same delay control without the
 * guardrail, whose ssthresh is always the loss response. Like cca_dctcp's
 * fallback it is registered with the core, not with TCP.
 *
 * ss -ti: get_info() uses the DCTCP layout (ce_state, alpha, and this
 * round's marked/acked bytes), shown by stock ss as dctcp:(...), and as
 * dctcp:fallback_mode on the fallback ops. Stock ss prints nothing from the
 * VEGAS layout (it only takes tcpv_rtt for its "send" rate), while the RTT,
 * minimum RTT and delivery rate are already in tcp_info.
 *
 * Timing: the target costs one 64-bit division per round; the per-ACK work
 * is the round's RTT minimum and round check in in_ack_event() and the
 * growth counter in cong_avoid(). There is no pkts_acked(): the ACK's RTT
 * sample is read in in_ack_event() from what the stack has already stored
 * (dcn_ack_rtt_us(), which says what differs, and why a connection
 * without SACK has no delay control).
 */
#include <linux/inet_diag.h>
#include <linux/math64.h>
#include <linux/module.h>
#include <net/tcp.h>

#include <ccaas/ccaas.h>
#include <ccaas/ecn.h>
#include <ccaas/info.h>
#include <ccaas/log.h>
#include <ccaas/param.h>
#include <ccaas/rate.h>
#include <ccaas/round.h>
#include <ccaas/sock.h>
#include <ccaas/timeout.h>

#define CCA_DCN_VERSION		CCAAS_VERSION(1, 0, 1)

/* The fallback's name: at most TCP_CA_NAME_MAX - 1 characters. */
/*
 * The benchmark (bench/) builds a second copy without the ccalog calls
 * (CCAAS_NO_CCALOG) under other names, to measure what they cost.
 */
#ifndef CCA_DCN_NAME
#define CCA_DCN_NAME		"cca_dcndelay"
#define CCA_DCN_FALLBACK_NAME	"cca_dcndelay-ne"
#endif

/* Smallest window dcndelay steers to, packets (as the stack's cwnd floor). */
#define DCN_CWND_MIN		2U
/* Additive step at start and after congestion, packets per round (Reno's). */
#define DCN_STEP_MIN		1U
/* Upper bound of step_max, packets per round; the step is kept in a u8. */
#define DCN_STEP_LIMIT		64U
/* Upper bound of step_rounds, rounds; the count is kept in a u8. */
#define DCN_STEP_ROUNDS_LIMIT	64U
/* decrease_pct is a percentage of the distance to the target. */
#define DCN_PCT_ONE		100U
/* loss_beta is a fraction of cwnd in 1/1024 units. */
#define DCN_BETA_SHIFT		10
/* The effective target RTT is at least min RTT + min RTT >> this (1/4). */
#define DCN_RTT_FLOOR_SHIFT	2
/* No RTT sample in the round yet. */
#define DCN_RTT_NONE		U32_MAX

/*
 * Parameter bounds and defaults. target_rtt_us: 10 us is below any host's
 * RTT, 10 ms beyond any intra-region path; the default is the DC value.
 */
#define DCN_TARGET_RTT_MIN_US	10
#define DCN_TARGET_RTT_MAX_US	10000
#define DCN_TARGET_RTT_DEF_US	100
#define DCN_STEP_ROUNDS_DEF	3
#define DCN_STEP_MAX_DEF	8
#define DCN_DECREASE_PCT_DEF	30
/* Loss response between halving (Reno, 512) and a 10 % cut (921). */
#define DCN_LOSS_BETA_MIN	512
#define DCN_LOSS_BETA_MAX	921
#define DCN_LOSS_BETA_DEF	819
/* TSO floor, segments: from the stack's default of 2 up to 64. */
#define DCN_TSO_SEGS_MIN	2
#define DCN_TSO_SEGS_MAX	64
#define DCN_TSO_SEGS_DEF	4
/* alpha EWMA gain 2^-shift_g; 4 (1/16) as cca_dctcp and RFC 8257. */
#define DCN_SHIFT_G_DEF		4

static unsigned int target_rtt_us __read_mostly = DCN_TARGET_RTT_DEF_US;
CCAAS_PARAM_UINT(target_rtt_us, target_rtt_us, DCN_TARGET_RTT_MIN_US,
		 DCN_TARGET_RTT_MAX_US, 0644);
MODULE_PARM_DESC(target_rtt_us,
		 "configured minimum RTT the target window is sized for, us [10..10000]");

static unsigned int step_rounds __read_mostly = DCN_STEP_ROUNDS_DEF;
CCAAS_PARAM_UINT(step_rounds, step_rounds, 1, DCN_STEP_ROUNDS_LIMIT, 0644);
MODULE_PARM_DESC(step_rounds,
		 "clean rounds after which the additive step doubles [1..64]");

static unsigned int step_max __read_mostly = DCN_STEP_MAX_DEF;
CCAAS_PARAM_UINT(step_max, step_max, DCN_STEP_MIN, DCN_STEP_LIMIT, 0644);
MODULE_PARM_DESC(step_max, "largest additive step, packets per round [1..64]");

static unsigned int decrease_pct __read_mostly = DCN_DECREASE_PCT_DEF;
CCAAS_PARAM_UINT(decrease_pct, decrease_pct, 1, DCN_PCT_ONE, 0644);
MODULE_PARM_DESC(decrease_pct,
		 "share of the distance to the target removed per round, % [1..100]");

static unsigned int loss_beta __read_mostly = DCN_LOSS_BETA_DEF;
CCAAS_PARAM_UINT(loss_beta, loss_beta, DCN_LOSS_BETA_MIN, DCN_LOSS_BETA_MAX,
		 0644);
MODULE_PARM_DESC(loss_beta, "cwnd kept on loss, in 1/1024 [512..921]");

static unsigned int shift_g __read_mostly = DCN_SHIFT_G_DEF;
CCAAS_PARAM_UINT(shift_g, shift_g, 0, CCAAS_ALPHA_SHIFT, 0644);
MODULE_PARM_DESC(shift_g, "alpha EWMA gain is 2^-shift_g [0..10]");

static unsigned int tso_segs __read_mostly = DCN_TSO_SEGS_DEF;
CCAAS_PARAM_UINT(tso_segs, tso_segs, DCN_TSO_SEGS_MIN, DCN_TSO_SEGS_MAX, 0644);
MODULE_PARM_DESC(tso_segs,
		 "TSO segment floor when the rule sets none, segments [2..64]");

struct cca_dcndelay {
	struct ccaas_sock core;		/* the core's header: rule's knobs */
	struct ccaas_round round;	/* current round trip */
	u32 alpha;			/* marked fraction, 1/1024 units */
	u32 loss_cwnd;			/* cwnd before the last reduction */
	u32 prior_rcv_nxt;		/* receiver: rcv_nxt at last CE flip */
	u32 rtt_round_us;		/* least RTT sample of the round, us */
	u32 grow_w;			/* packets acked per +1 packet of cwnd */
	u32 ce_state;			/* receiver: last data packet had CE */
	u8 grow_left;			/* packets cwnd may still grow this round */
	u8 step;			/* additive step, packets per round */
	u8 clean_rounds;		/* clean rounds in a row at this step */
	u8 ce_seen;			/* a round of this connection was marked */
};

static struct tcp_congestion_ops cca_dcndelay_ne_ops;

/*
 * Indexes of cca_dcndelay_params[], the per-rule overrides. Only the first
 * CCAAS_SOCK_PARAMS reach a socket, so the schema has no more than that.
 */
enum {
	DCN_P_TARGET_RTT_US,
	DCN_P_STEP_ROUNDS,
	DCN_P_STEP_MAX,
	DCN_P_DECREASE_PCT,
	DCN_P_COUNT,
};

/* Parameter @i: the rule's value (checked against the schema), else @var. */
static u32 dcn_param(const struct sock *sk, unsigned int i,
		     const unsigned int *var)
{
	return ccaas_sock_param(sk, i, READ_ONCE(*var));
}

/* Back to the first step, and no growth until a clean round ends. */
static void dcn_congested(struct cca_dcndelay *ca)
{
	ca->step = DCN_STEP_MIN;
	ca->clean_rounds = 0;
	ca->grow_w = 0;
	ca->grow_left = 0;
}

static void dcn_init_state(struct sock *sk)
{
	struct cca_dcndelay *ca = inet_csk_ca(sk);
	const struct tcp_sock *tp = tcp_sk(sk);

	/*
	 * As cca_dctcp: the first ECN reaction of a new connection halves,
	 * like Reno; one taken over starts from its own CE fraction.
	 */
	ca->alpha = ccaas_alpha_seed(tp, CCAAS_ALPHA_ONE);
	ca->loss_cwnd = 0;
	ca->prior_rcv_nxt = tp->rcv_nxt;
	ca->rtt_round_us = DCN_RTT_NONE;
	ca->ce_state = 0;
	ca->ce_seen = 0;
	dcn_congested(ca);
	ccaas_round_start(&ca->round, tp);
}

static void cca_dcndelay_init(struct sock *sk)
{
	struct tcp_sock *tp = tcp_sk(sk);

	ccaas_sock_start(sk);
	ccaas_log_init(sk);
	dcn_init_state(sk);

	/*
	 * As cca_dctcp: only an established socket without ECN falls
	 * back (listeners and unconnected sockets do not know yet). Same
	 * module, so no module reference changes hands.
	 */
	if (!ccaas_tcp_ecn_ok(tp) &&
	    sk->sk_state != TCP_LISTEN && sk->sk_state != TCP_CLOSE) {
		inet_csk(sk)->icsk_ca_ops = &cca_dcndelay_ne_ops;
		INET_ECN_dontxmit(sk);
	}
}

/* The fallback's own init(), e.g. after tcp_disconnect() and a reconnect. */
static void cca_dcndelay_ne_init(struct sock *sk)
{
	ccaas_sock_start(sk);
	ccaas_log_init(sk);
	dcn_init_state(sk);
}

/* The effective target RTT: the rule's, never below the path's own. */
static u32 dcn_target_rtt(const struct sock *sk, const struct tcp_sock *tp)
{
	u32 rtt = dcn_param(sk, DCN_P_TARGET_RTT_US, &target_rtt_us);
	u32 min_rtt = ccaas_min_rtt_us(tp);

	if (min_rtt != ~0U)
		rtt = max(rtt, min_rtt + (min_rtt >> DCN_RTT_FLOOR_SHIFT));
	return rtt;
}

/*
 * The target window in packets, delivery rate * @rtt_us, or false without a
 * usable rate sample. The stack's saved sample counts packets, so this is
 * one division: delivered * rtt / interval. An application-limited sample
 * only bounds the path's rate from below and cannot cap cwnd.
 */
static bool dcn_target(const struct tcp_sock *tp, u32 rtt_us, u32 *target)
{
	u64 pkts;

	if (!tp->rate_interval_us || tp->rate_app_limited)
		return false;
	pkts = div_u64((u64)tp->rate_delivered * rtt_us, tp->rate_interval_us);
	*target = max_t(u32, min_t(u64, pkts, U32_MAX), DCN_CWND_MIN);
	return true;
}

/* Move decrease_pct of the way from cwnd down to @target (cwnd > target). */
static u32 dcn_decrease(const struct sock *sk, u32 cwnd, u32 target)
{
	u32 pct = dcn_param(sk, DCN_P_DECREASE_PCT, &decrease_pct);
	u64 cut = (u64)(cwnd - target) * pct + DCN_PCT_ONE - 1;

	return cwnd - (u32)div_u64(cut, DCN_PCT_ONE);
}

/* A clean round: count it, maybe double the step, budget the next round. */
static void dcn_clean_round(struct sock *sk, struct cca_dcndelay *ca, u32 cwnd)
{
	u32 most = dcn_param(sk, DCN_P_STEP_MAX, &step_max);
	u32 step = ca->step;

	if (ca->ce_seen && ca->alpha) {
		/* G3: marks are recent, grow at Reno's pace. */
		step = DCN_STEP_MIN;
		ca->clean_rounds = 0;
	} else if (++ca->clean_rounds >=
		   dcn_param(sk, DCN_P_STEP_ROUNDS, &step_rounds)) {
		ca->clean_rounds = 0;
		step *= 2;
	}
	step = clamp(step, DCN_STEP_MIN, min(most, DCN_STEP_LIMIT));
	ca->step = step;
	ca->grow_left = step;
	ca->grow_w = max(cwnd / step, 1U);
}

/* Once per round: alpha, then the window decision for the next round. */
static void dcn_round_end(struct sock *sk, struct cca_dcndelay *ca,
			  struct tcp_sock *tp)
{
	u32 delivered = ccaas_round_delivered(&ca->round, tp);
	u32 marked = ccaas_round_delivered_ce(&ca->round, tp);
	u32 cwnd, rtt, target;
	bool queued;
	u32 alpha;

	alpha = ccaas_alpha_update(ca->alpha, delivered, marked,
				   min(READ_ONCE(shift_g), CCAAS_ALPHA_SHIFT));
	/* get_info() reads alpha without the socket lock. */
	WRITE_ONCE(ca->alpha, alpha);
	tp->snd_cwnd_cnt = 0;

	if (marked || (ca->round.flags & CCAAS_ROUND_ECE)) {
		/* G1 is the stack's CWR with our ssthresh(); G2 holds cwnd. */
		ca->ce_seen = 1;
		dcn_congested(ca);
		return;
	}
	if (ca->round.flags & CCAAS_ROUND_LOSS) {
		dcn_congested(ca);
		return;
	}
	/* CWR, Recovery, Loss: cwnd belongs to the stack's reduction. */
	if (inet_csk(sk)->icsk_ca_state > TCP_CA_Disorder) {
		ca->grow_w = 0;
		ca->grow_left = 0;
		return;
	}

	cwnd = tcp_snd_cwnd(tp);
	rtt = dcn_target_rtt(sk, tp);
	/*
	 * Even the round's best RTT was above the target: a queue stands. A
	 * round that delivered nothing (once all is acked, each further ACK
	 * ends one) has only the last round's sample again: no verdict.
	 */
	queued = delivered && ca->rtt_round_us != DCN_RTT_NONE &&
		 ca->rtt_round_us > rtt;
	if (tcp_in_slow_start(tp)) {
		if (queued) {
			tp->snd_ssthresh = cwnd;
			dcn_congested(ca);
		}
		return;
	}

	if (queued && dcn_target(tp, rtt, &target) && cwnd > target) {
		cwnd = dcn_decrease(sk, cwnd, target);
		tcp_snd_cwnd_set(tp, cwnd);
		tp->snd_ssthresh = cwnd;
		dcn_congested(ca);
		return;
	}
	/* A round that did not use its window says nothing about the path. */
	if (!tcp_is_cwnd_limited(sk)) {
		ca->grow_w = 0;
		ca->grow_left = 0;
		return;
	}
	dcn_clean_round(sk, ca, cwnd);
}

/* The end of a round and the start of the next. Out of line: see below. */
static noinline void dcn_next_round(struct sock *sk)
{
	struct cca_dcndelay *ca = inet_csk_ca(sk);
	struct tcp_sock *tp = tcp_sk(sk);

	dcn_round_end(sk, ca, tp);
	ca->rtt_round_us = DCN_RTT_NONE;
	ccaas_round_start(&ca->round, tp);
}

/*
 * The same for a connection ccalog reports: cca_state is the additive
 * step, target_us the effective target RTT.
 */
static noinline void dcn_next_round_logged(struct sock *sk)
{
	struct cca_dcndelay *ca = inet_csk_ca(sk);
	struct ccaas_round done = ca->round;

	dcn_next_round(sk);
	ccaas_log_rtt(sk, &done, ca->alpha, dcn_target_rtt(sk, tcp_sk(sk)),
		      ca->step);
}

/*
 * The RTT sample of this ACK, in us, 0 for none. On a SACK connection the
 * stack keeps it in rack.rtt_us: tcp_rack_advance() stores the RTT of each
 * packet newly acknowledged or SACKed (the SACK walk, then
 * tcp_clean_rtx_queue(), both before tcp_in_ack_event() on 6.1, 6.12 and
 * 7.3), so after them it holds the RTT of the last one they went through,
 * the sample pkts_acked() would get (ca_rtt_us) but for three cases: an
 * ACK that both SACKs and moves snd_una (RACK keeps the cumulatively acked
 * packet's RTT, ca_rtt_us the SACKed one's); an acknowledged
 * retransmission (Karn: no ca_rtt_us; RACK keeps it unless it is below
 * min_rtt, so after an undo a spurious retransmission may lower a round's
 * minimum); and an ACK that acknowledges nothing new (the last sample
 * again, which cannot lower the minimum of the round it came from, and
 * an empty round decides nothing, see dcn_round_end()).
 *
 * Without SACK RACK is never fed (and rack.rtt_us may hold what an earlier
 * connection of the socket left: tcp_disconnect() keeps it), and the stack
 * keeps no per-ACK sample outside pkts_acked(). The smoothed RTT is no
 * stand-in: a minimum of an average reads host jitter as a standing queue,
 * which is the collapse the round's minimum is there to prevent. So such a
 * connection has no delay control: it runs on its guardrail, DCTCP's
 * response to marks and loss_beta's to loss, with the additive step.
 */
static u32 dcn_ack_rtt_us(const struct tcp_sock *tp)
{
	return likely(tcp_is_sack(tp)) ? tp->rack.rtt_us : 0;
}

/*
 * Every ACK: keep the round's least RTT sample, note ECE, and end the round
 * when it is over. Reading the sample here rather than in pkts_acked()
 * saves the stack an indirect call per ACK. The per-round work is out of
 * line so that this stays a leaf function; the ccalog test happens only at
 * a round's end.
 */
static void cca_dcndelay_in_ack_event(struct sock *sk, u32 flags)
{
	struct cca_dcndelay *ca = inet_csk_ca(sk);
	struct tcp_sock *tp = tcp_sk(sk);
	u32 rtt = dcn_ack_rtt_us(tp);

	if (rtt && rtt < ca->rtt_round_us)
		ca->rtt_round_us = rtt;
	if (flags & CA_ACK_ECE) {
		/* G2: no more growth in a round once it has been marked. */
		ccaas_round_note(&ca->round, CCAAS_ROUND_ECE);
		ca->grow_left = 0;
	}
	if (!ccaas_round_over(&ca->round, tp))
		return;
	if (ccaas_logged(sk))
		dcn_next_round_logged(sk);
	else
		dcn_next_round(sk);
}

/*
 * Slow start as Reno; in congestion avoidance, +1 packet per grow_w packets
 * acknowledged until the round's budget of `step` packets is spent.
 */
static void cca_dcndelay_cong_avoid(struct sock *sk, u32 ack, u32 acked)
{
	struct cca_dcndelay *ca = inet_csk_ca(sk);
	struct tcp_sock *tp = tcp_sk(sk);
	u32 inc;

	if (!tcp_is_cwnd_limited(sk))
		return;
	if (tcp_in_slow_start(tp)) {
		acked = tcp_slow_start(tp, acked);
		if (!acked)
			return;
	}
	if (!ca->grow_left || !ca->grow_w)
		return;

	tp->snd_cwnd_cnt += acked;
	if (tp->snd_cwnd_cnt < ca->grow_w)
		return;
	/* A division only every grow_w packets, at most `step` per round. */
	inc = min_t(u32, tp->snd_cwnd_cnt / ca->grow_w, ca->grow_left);
	tp->snd_cwnd_cnt -= inc * ca->grow_w;
	ca->grow_left -= inc;
	tcp_snd_cwnd_set(tp, min(tcp_snd_cwnd(tp) + inc, tp->snd_cwnd_clamp));
}

/* ssthresh after a loss: loss_beta of cwnd (819/1024 by default). */
static u32 dcn_loss_ssthresh(u32 cwnd)
{
	u64 kept = ((u64)cwnd * READ_ONCE(loss_beta)) >> DCN_BETA_SHIFT;

	return max_t(u32, kept, DCN_CWND_MIN);
}

/*
 * Entering Recovery or an RTO. The stack has just asked ssthresh() (or, from
 * CWR, did so when the ECN reduction began); the loss response replaces that
 * value, but an ECN reduction under way is never made smaller.
 */
static void dcn_react_to_loss(struct sock *sk)
{
	struct cca_dcndelay *ca = inet_csk_ca(sk);
	struct tcp_sock *tp = tcp_sk(sk);
	u32 ssthresh = dcn_loss_ssthresh(tcp_snd_cwnd(tp));

	if (inet_csk(sk)->icsk_ca_state == TCP_CA_CWR)
		ssthresh = min(ssthresh, tp->snd_ssthresh);
	ca->loss_cwnd = tcp_snd_cwnd(tp);
	tp->snd_ssthresh = ssthresh;
	ccaas_round_note(&ca->round, CCAAS_ROUND_LOSS);
	dcn_congested(ca);
}

/* The stack's reductions: on ECE (CWR) this is DCTCP's cut (G1). */
static u32 cca_dcndelay_ssthresh(struct sock *sk)
{
	struct cca_dcndelay *ca = inet_csk_ca(sk);
	u32 cwnd = tcp_snd_cwnd(tcp_sk(sk));

	ca->loss_cwnd = cwnd;
	ccaas_log_note(&ca->round, CCAAS_ROUND_SSTHRESH);
	return ccaas_alpha_cut(cwnd, ca->alpha);
}

/* Without ECN every reduction (loss, local congestion) is the loss one. */
static u32 cca_dcndelay_ne_ssthresh(struct sock *sk)
{
	struct cca_dcndelay *ca = inet_csk_ca(sk);
	u32 cwnd = tcp_snd_cwnd(tcp_sk(sk));

	ca->loss_cwnd = cwnd;
	ccaas_log_note(&ca->round, CCAAS_ROUND_SSTHRESH);
	return dcn_loss_ssthresh(cwnd);
}

/*
 * A retransmission timeout during a reduction (CWR or Recovery before
 * high_seq is acknowledged): tcp_enter_loss() then calls neither
 * ssthresh() nor CA_EVENT_LOSS, only set_state(Loss), with cwnd already
 * at the flight + 1. The loss response of the window the reduction began
 * from (tp->prior_cwnd) still bounds ssthresh, so a timeout during an ECN
 * cut of a few percent is not a cut of a few percent. After
 * CA_EVENT_LOSS (prior_cwnd is then the cwnd it saw) this changes nothing,
 * and a Loss entry of a path MTU change is no timeout
 * (ccaas_timeout_entry()).
 */
static void dcn_timeout_in_reduction(struct sock *sk)
{
	struct cca_dcndelay *ca = inet_csk_ca(sk);
	struct tcp_sock *tp = tcp_sk(sk);
	u32 ssthresh = dcn_loss_ssthresh(tp->prior_cwnd);

	if (ssthresh >= tp->snd_ssthresh)
		return;
	WRITE_ONCE(tp->snd_ssthresh, ssthresh);
	ccaas_round_note(&ca->round, CCAAS_ROUND_LOSS);
	dcn_congested(ca);
}

/*
 * Recovery: the loss response. A timeout: in cwnd_event(CA_EVENT_LOSS),
 * before cwnd drops to 1, or here if it came during a reduction.
 */
static void cca_dcndelay_set_state(struct sock *sk, u8 new_state)
{
	u8 old = inet_csk(sk)->icsk_ca_state;

	if (new_state == TCP_CA_Recovery && old != TCP_CA_Recovery)
		dcn_react_to_loss(sk);
	else if (ccaas_timeout_in_reduction(sk, new_state))
		dcn_timeout_in_reduction(sk);
}

static void cca_dcndelay_cwnd_event(struct sock *sk, enum tcp_ca_event ev)
{
	struct cca_dcndelay *ca = inet_csk_ca(sk);

	switch (ev) {
	case CA_EVENT_ECN_IS_CE:
	case CA_EVENT_ECN_NO_CE:
		ccaas_ecn_rcv_ce(sk, ev, &ca->prior_rcv_nxt, &ca->ce_state);
		break;
	case CA_EVENT_TX_START:
		/* After idle the clean-round history is stale. */
		ccaas_log_note(&ca->round, CCAAS_ROUND_TX_START);
		ca->step = DCN_STEP_MIN;
		ca->clean_rounds = 0;
		break;
	case CA_EVENT_LOSS:
		dcn_react_to_loss(sk);
		break;
	default:
		break;
	}
}

static u32 cca_dcndelay_undo_cwnd(struct sock *sk)
{
	const struct cca_dcndelay *ca = inet_csk_ca(sk);

	return max(tcp_snd_cwnd(tcp_sk(sk)), ca->loss_cwnd);
}

/* The rule's TSO knob, else the larger of our floor and the sysctl. */
static u32 cca_dcndelay_min_tso_segs(struct sock *sk)
{
	u32 segs = ccaas_sock_min_tso_segs(sk);

	if (ccaas_sock(sk)->tso_segs)
		return segs;
	return max(segs, READ_ONCE(tso_segs));
}

/*
 * Shown by `ss -ti` as dctcp:(ce_state:..,alpha:..,ab_ecn:..,ab_tot:..), the
 * bytes marked and acknowledged so far in this round; as
 * dctcp:fallback_mode on the fallback ops (delay control, no ECN).
 */
static size_t cca_dcndelay_get_info(struct sock *sk, u32 ext, int *attr,
				    union tcp_cc_info *info)
{
	const struct cca_dcndelay *ca = inet_csk_ca(sk);

	if (!ccaas_info_wanted(ext))
		return 0;
	return ccaas_info_dctcp_round(sk, info, attr,
				      inet_csk(sk)->icsk_ca_ops != &cca_dcndelay_ne_ops,
				      ca->ce_state, READ_ONCE(ca->alpha),
				      &ca->round);
}

static struct tcp_congestion_ops cca_dcndelay_ops __read_mostly = {
	.init		= cca_dcndelay_init,
	.in_ack_event	= cca_dcndelay_in_ack_event,
	.cwnd_event	= cca_dcndelay_cwnd_event,
	.ssthresh	= cca_dcndelay_ssthresh,
	.cong_avoid	= cca_dcndelay_cong_avoid,
	.undo_cwnd	= cca_dcndelay_undo_cwnd,
	.set_state	= cca_dcndelay_set_state,
	.get_info	= cca_dcndelay_get_info,
	.min_tso_segs	= cca_dcndelay_min_tso_segs,
	.flags		= TCP_CONG_NEEDS_ECN,
	.owner		= THIS_MODULE,
	.name		= CCA_DCN_NAME,
};

/* Delay control without the ECN guardrail; see init(). */
static struct tcp_congestion_ops cca_dcndelay_ne_ops __read_mostly = {
	.init		= cca_dcndelay_ne_init,
	.in_ack_event	= cca_dcndelay_in_ack_event,
	.cwnd_event	= cca_dcndelay_cwnd_event,
	.ssthresh	= cca_dcndelay_ne_ssthresh,
	.cong_avoid	= cca_dcndelay_cong_avoid,
	.undo_cwnd	= cca_dcndelay_undo_cwnd,
	.set_state	= cca_dcndelay_set_state,
	.get_info	= cca_dcndelay_get_info,
	.min_tso_segs	= cca_dcndelay_min_tso_segs,
	.owner		= THIS_MODULE,
	.name		= CCA_DCN_FALLBACK_NAME,
};

/* Per policy rule overrides of the module parameters (`ccactl cca show`). */
static const struct ccaas_param_spec cca_dcndelay_params[] = {
	[DCN_P_TARGET_RTT_US] = { .name = "target_rtt_us",
	  .min = DCN_TARGET_RTT_MIN_US, .max = DCN_TARGET_RTT_MAX_US,
	  .def = DCN_TARGET_RTT_DEF_US, .unit = "us" },
	[DCN_P_STEP_ROUNDS] = { .name = "step_rounds",
	  .min = 1, .max = DCN_STEP_ROUNDS_LIMIT, .def = DCN_STEP_ROUNDS_DEF,
	  .unit = "rounds" },
	[DCN_P_STEP_MAX] = { .name = "step_max",
	  .min = DCN_STEP_MIN, .max = DCN_STEP_LIMIT, .def = DCN_STEP_MAX_DEF,
	  .unit = "packets" },
	[DCN_P_DECREASE_PCT] = { .name = "decrease_pct",
	  .min = 1, .max = DCN_PCT_ONE, .def = DCN_DECREASE_PCT_DEF,
	  .unit = "%" },
};

static struct ccaas_cca cca_dcndelay = {
	.ops		= &cca_dcndelay_ops,
	.fallback_ops	= &cca_dcndelay_ne_ops,
	.params		= cca_dcndelay_params,
	.n_params	= ARRAY_SIZE(cca_dcndelay_params),
	.version	= CCA_DCN_VERSION,
	.features	= CCAAS_CCA_F_NEEDS_ECN | CCAAS_CCA_F_ECN_OK |
			  CCAAS_CCA_F_NONECN_OK,
};

static int __init cca_dcndelay_register(void)
{
	BUILD_BUG_ON(sizeof(struct cca_dcndelay) > ICSK_CA_PRIV_SIZE);
	BUILD_BUG_ON(sizeof(CCA_DCN_FALLBACK_NAME) > TCP_CA_NAME_MAX);
	BUILD_BUG_ON(ARRAY_SIZE(cca_dcndelay_params) != DCN_P_COUNT);
	BUILD_BUG_ON(DCN_P_COUNT > CCAAS_SOCK_PARAMS);
	BUILD_BUG_ON(DCN_STEP_LIMIT > U8_MAX || DCN_STEP_ROUNDS_LIMIT > U8_MAX);
	return ccaas_cca_register(&cca_dcndelay);
}

static void __exit cca_dcndelay_unregister(void)
{
	ccaas_cca_unregister(&cca_dcndelay);
}

module_init(cca_dcndelay_register);
module_exit(cca_dcndelay_unregister);

MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("ccaas: intra-region delay-based congestion control (cca_dcndelay)");
MODULE_ALIAS("tcp_cca_dcndelay");
