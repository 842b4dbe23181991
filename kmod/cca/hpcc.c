// SPDX-License-Identifier: GPL-2.0
/*
 * cca_hpcc: inflight-bytes control after HPCC, with the link's telemetry
 * reconstructed at the host.
 *
 * HPCC (Li et al., SIGCOMM 2019) controls the window, not the rate: every
 * ACK carries in-band telemetry of the bottleneck link (queue length qlen,
 * transmitted bytes, bandwidth B), from which the sender computes the
 * link's normalised inflight
 *
 *	u = qlen / (B * T) + txRate / B
 *
 * with T the base round trip. u = 1 means the link is exactly full with
 * no queue; the target is u = eta (95 %), which leaves a little headroom
 * so that queues stay near zero.
 *
 * Hosts have no INT. Two terms can be rebuilt from what TCP measures:
 * the standing queue, in units of T, is what the RTT exceeds T by, and the
 * link's transmit rate is at least this flow's delivery rate:
 *
 *	u = (rtt - T) / T + delivery_rate / B
 *
 * B is a parameter (the NIC speed or a known bottleneck, per policy rule)
 * and T is either a parameter or the connection's minimum RTT. With one
 * flow the equilibrium u = eta is reached at rate eta * B with no queue.
 * With N flows on one bottleneck each sees only its own rate: the flows
 * settle where the common queue makes up the rest, (eta - 1/N) * T of
 * queueing, equal for all of them and therefore fair (they all see the
 * same queue term), but not zero as with real INT.
 *
 * Per ACK (cong_control, with the stack's fresh rate sample):
 *
 *	tau = min(time since the previous sample, T / 8)
 *	U   = (1 - tau / T) * U + (tau / T) * u		EWMA over one T
 *	if U >= eta or stage >= max_stage:
 *		W = W_ref * eta / U + W_AI		(multiplicative)
 *	else:
 *		W = W_ref + W_AI			(additive)
 *
 * and once per round trip (the first ACK past the round's end), the
 * reference window follows: W_ref = W, stage = 0 after a multiplicative
 * step, stage + 1 after an additive one. So within a round every ACK
 * answers the latest U against the same reference, and the reference, and
 * with it the increase, moves once per round: the per-ACK reaction
 * without the per-ACK overreaction HPCC was designed to avoid.
 *
 * What differs from HPCC, and why:
 *  - A multiplicative step grows the window at most 2x (eta / U capped):
 *    the rebuilt u undercounts the link's load by the other flows' rate,
 *    and an uncapped eta / U would multiply the window by about N at once.
 *  - The queue term uses the standing RTT, the least sample of the
 *    current and the previous round (as Copa's standing RTT), not each
 *    sample: a host's RTT samples carry positive noise (ACK and softirq
 *    delays, interrupt moderation) whose mean would count as queue and
 *    hold the rate below eta * B. A standing queue raises the minimum too,
 *    at most a round later; a draining one lowers it at once.
 *  - A sample weighs at most T / 8 in U (tau capped at T / 8, not T): the
 *    RTT a host measures carries its own delays (a delayed ACK, a stalled
 *    CPU, interrupt moderation) that INT does not, and one late sample
 *    after a pause must not stand for a whole round trip of telemetry.
 *    About eight samples per T are enough to follow the path within one
 *    round trip.
 *  - The window never rises on an app-limited sample (the application,
 *    not the window, limited sending): it measures demand, not the path.
 *  - Losses exist (HPCC runs on lossless fabrics): entering fast recovery,
 *    or the stack's call of ssthresh() other than on an ACK with ECE
 *    (local congestion, tcp_enter_cwr() after the host's own qdisc or a
 *    cgroup program refused a packet; or a loss a tail loss probe found),
 *    cuts W and W_ref to 0.7 W and restarts the stages. In fast recovery
 *    cwnd comes down to W by packet conservation (one packet out per ACK
 *    while the flight is above W, the fast retransmit first), and W holds
 *    until recovery ends. A retransmission timeout halves W and W_ref;
 *    while the stack recovers from it, cwnd slow-starts from the stack's
 *    one packet back up to W.
 *  - CE marks (ECE from the peer) are not a signal: the queue they report
 *    is already in the RTT. ECN is neither needed nor refused. Without
 *    TCP_CONG_NEEDS_ECN the stack sends no CE events to the CCA, so as a
 *    receiver on an ECN connection this is a plain RFC 3168 receiver (ECE
 *    latched until CWR), which a DCTCP sender reads as heavy marking.
 *  - U and W are kept over idle periods; the stack's idle restart and
 *    application-limited window reductions are undone by the next ACK,
 *    and pacing at W / T spreads what follows.
 *  - With T the connection's own minimum RTT (base_rtt 0), a flow's share
 *    grows with its T; a common base_rtt (the longest base RTT of the
 *    flows that meet at the bottleneck) makes shares equal, as HPCC's
 *    network-wide T does.
 *
 * Pacing at W / T (pacing_gain 100 %), as HPCC: the window's worth per
 * base RTT, so a full window never bursts into the queue it is meant to
 * keep empty. init() asks the stack to pace in case no fq qdisc does it
 * (cong_control bypasses the stack's own pacing-rate update).
 *
 * Initial window: B * T, HPCC's line-rate start (HPCC sends at B from the
 * first packet), once T is known from the handshake and if the rule sets
 * B; the policy rule's init_cwnd knob, then a route's initcwnd, take
 * precedence. A migrated
 * connection starts from its current window as the reference.
 *
 * Fixed point: U and eta in 1/65536 (HP_ONE; U kept to 2^-48 for the
 * EWMA; get_info and ccalog show it in 1/1024), windows in 1/1024 packet.
 * Per ACK: two 64-bit divisions (the rate term, W_ref * eta / U); the
 * divisions by T are multiplications by a reciprocal computed once per
 * round, with the pacing unit and W_AI in packets.
 */
#include <linux/inet_diag.h>
#include <linux/module.h>
#include <net/tcp.h>

#include <ccaas/ccaas.h>
#include <ccaas/info.h>
#include <ccaas/log.h>
#include <ccaas/pacing.h>
#include <ccaas/param.h>
#include <ccaas/round.h>
#include <ccaas/sock.h>
#include <ccaas/timeout.h>

#define CCA_HPCC_VERSION	CCAAS_VERSION(1, 0, 1)
#define CCA_HPCC_NAME		"cca_hpcc"

/* --- Parameters (per policy rule: the first CCAAS_SOCK_PARAMS) ----------- */

/* B, the bottleneck bandwidth, Mbit/s: 10 Gbit/s, a common NIC. */
#define HP_BW_MIN		1U
#define HP_BW_MAX		1000000U	/* 1 Tbit/s */
#define HP_BW_DEF		10000U
static unsigned int bw __read_mostly = HP_BW_DEF;
CCAAS_PARAM_UINT(bw, bw, HP_BW_MIN, HP_BW_MAX, 0644);
MODULE_PARM_DESC(bw, "bottleneck bandwidth B, Mbit/s [1..1000000]");

/* T, the base RTT, us; 0: the connection's minimum RTT. */
#define HP_BASE_RTT_MAX		10000000U	/* 10 s */
static unsigned int base_rtt __read_mostly;
CCAAS_PARAM_UINT(base_rtt, base_rtt, 0, HP_BASE_RTT_MAX, 0644);
MODULE_PARM_DESC(base_rtt, "base RTT T, us; 0 for the measured minimum RTT [0..10000000]");

/* eta, the target utilisation, percent (HPCC's 95 %). */
#define HP_ETA_MIN		50U
#define HP_ETA_MAX		100U
#define HP_ETA_DEF		95U
static unsigned int eta __read_mostly = HP_ETA_DEF;
CCAAS_PARAM_UINT(eta, eta, HP_ETA_MIN, HP_ETA_MAX, 0644);
MODULE_PARM_DESC(eta, "target utilisation eta, percent [50..100]");

/* W_AI, the additive increase per round, bytes (one 1448 B segment). */
#define HP_W_AI_MAX		1000000U
#define HP_W_AI_DEF		1448U
static unsigned int w_ai __read_mostly = HP_W_AI_DEF;
CCAAS_PARAM_UINT(w_ai, w_ai, 0, HP_W_AI_MAX, 0644);
MODULE_PARM_DESC(w_ai, "additive increase W_AI, bytes per round [0..1000000]");

/* --- Module-wide parameters (not per rule) ----------------------------- */

/*
 * Additive rounds before a multiplicative step while U < eta (HPCC's
 * maxStage, 5). Module-wide: a socket's header holds four rule values,
 * the four above.
 */
#define HP_MAX_STAGE_MAX	64U
#define HP_MAX_STAGE_DEF	5U
static unsigned int max_stage __read_mostly = HP_MAX_STAGE_DEF;
CCAAS_PARAM_UINT(max_stage, max_stage, 0, HP_MAX_STAGE_MAX, 0644);
MODULE_PARM_DESC(max_stage, "additive rounds before a multiplicative step [0..64]");

/* Pacing gain, percent of W / T. */
#define HP_PACING_GAIN_MIN	100U
#define HP_PACING_GAIN_MAX	200U
#define HP_PACING_GAIN_DEF	100U
static unsigned int pacing_gain __read_mostly = HP_PACING_GAIN_DEF;
CCAAS_PARAM_UINT(pacing_gain, pacing_gain, HP_PACING_GAIN_MIN, HP_PACING_GAIN_MAX, 0644);
MODULE_PARM_DESC(pacing_gain, "pacing gain, percent of W / T [100..200]");

/* --- Constants --------------------------------------------------------- */

/*
 * U and eta: 1/65536 (HP_ONE = a link exactly full), fine enough that an
 * EWMA step of a few units still moves it; shown in 1/1024 (HP_SHOW_SHIFT).
 */
#define HP_SHIFT		16
#define HP_ONE			BIT(HP_SHIFT)
#define HP_SHOW_SHIFT		(HP_SHIFT - 10)
/* Windows: 1/1024 packet, so a W_AI below one packet still counts. */
#define HP_W_SHIFT		10
/* Largest window, packets: keeps W in u32 at its scale. */
#define HP_W_MAX_PKTS		(U32_MAX >> (HP_W_SHIFT + 1))
/* Least window, packets, as the stack's cwnd floor after a cut. */
#define HP_MIN_CWND		2U
/* u is capped at 64 (a queue of 63 T): keeps U * T in 64 bits. */
#define HP_U_MAX		(64U << HP_SHIFT)
/*
 * A sample weighs at most T >> 3 (an eighth of T) in U, however long ago
 * the previous one came: see the top.
 */
#define HP_TAU_SHIFT		3
/* A multiplicative step at most doubles W (eta / U capped at 2). */
#define HP_MI_MAX		2U
/* Loss: W * 717 / 1024 = 0.7 W, as Cubic's beta. */
#define HP_LOSS_BETA		717U
/* Bounds of T, us: 16 us keeps 2^32 / T in u32; 10 s as base_rtt. */
#define HP_T_MIN_US		16U
#define HP_T_MAX_US		HP_BASE_RTT_MAX
/* Packet counts per sample are capped so the rate term fits 64 bits. */
#define HP_COUNT_MAX		BIT(23)

/* Indexes of cca_hpcc_params[], the per-rule overrides. */
enum { HP_P_BW, HP_P_BASE_RTT, HP_P_ETA, HP_P_W_AI, HP_P_COUNT };

/* 104 bytes, the whole private area (BUILD_BUG_ON below). */
struct cca_hpcc {
	struct ccaas_sock core;		/* the core's header: rule's knobs */
	struct ccaas_round round;	/* the reference window's period */
	u64 util;			/* U << 32: HP_ONE << 32 = 1 */
	u32 w;				/* W, 1/1024 packet */
	u32 w_ref;			/* W_ref, 1/1024 packet */
	u32 last_us;			/* tcp_mstamp of the last sample */
	u32 t_us;			/* T this round; 0 before any RTT */
	u32 inv_t;			/* 2^32 / T */
	u32 unit;			/* pacing: mss per T, bytes/s */
	u32 w_ai;			/* W_AI, 1/1024 packet */
	u32 rtt_cur_us;			/* least RTT sample of this round */
	u32 rtt_prev_us;		/* and of the round before */
	u32 ce_seen;			/* tp->delivered_ce after the last ACK */
	u32 eta;			/* HP_ONE = 100 % */
	u8 stage;			/* additive rounds since a step */
	u8 prev_ca_state:3,		/* icsk_ca_state at the last ACK */
	   reduce:1,			/* the stack called ssthresh() */
	   reduce_ece:1,		/* ... on an ACK with ECE */
	   ece_ack:1,			/* the ACK being processed has ECE */
	   tlp_loss:1,			/* ... and ends a probe that found a loss */
	   rto:1;			/* CA_EVENT_LOSS, set_state(Loss) next */
};

/* U in HP_ONE units (1/65536). */
static u32 hp_util(const struct cca_hpcc *ca)
{
	return READ_ONCE(ca->util) >> 32;
}

/*
 * T of @sk: the connection's minimum RTT, or the rule's (or module's)
 * base_rtt if that is longer: a common T, the longest base RTT of the
 * flows that share a bottleneck, is what makes them converge to equal
 * rates (with each its own T, a flow's share grows with its T). A T below
 * the path's minimum RTT would read as a queue that never drains. 0 if
 * neither is known yet.
 */
static u32 hp_base_rtt(const struct sock *sk)
{
	u32 t = ccaas_sock_param(sk, HP_P_BASE_RTT, READ_ONCE(base_rtt));
	u32 min_rtt = tcp_min_rtt(tcp_sk(sk));

	if (min_rtt != ~0U)
		t = max(t, min_rtt);
	if (!t)
		return 0;
	return clamp(t, HP_T_MIN_US, HP_T_MAX_US);
}

/* @x / T by the round's reciprocal, for @x below 2^32 * T. */
static u32 hp_div_t(const struct cca_hpcc *ca, u64 x)
{
	return (x * ca->inv_t) >> 32;
}

/*
 * What depends on T and the rule, recomputed at every round's start (the
 * divisions of the algorithm that need not run per ACK).
 */
static void hp_round_setup(struct sock *sk, struct cca_hpcc *ca)
{
	const struct tcp_sock *tp = tcp_sk(sk);
	u32 t = hp_base_rtt(sk);
	u32 mss = max(tp->mss_cache, 1U);

	ca->eta = ccaas_sock_param(sk, HP_P_ETA, eta) * HP_ONE / 100;
	ca->w_ai = div_u64((u64)ccaas_sock_param(sk, HP_P_W_AI, w_ai) << HP_W_SHIFT,
			   mss);
	WRITE_ONCE(ca->t_us, t);
	if (!t)
		return;
	ca->inv_t = div_u64(1ULL << 32, t);
	ca->unit = min_t(u64, div_u64((u64)mss * USEC_PER_SEC, t), U32_MAX);
}

/*
 * The sample's u, 1/1024: queueing over T plus the delivery rate over B.
 * rate / B = delivered * mss * 8 bit / interval_us / (B Mbit/s), as
 * bits per us are Mbit/s.
 */
static u32 hp_util_sample(const struct sock *sk, const struct cca_hpcc *ca,
			  const struct rate_sample *rs)
{
	const struct tcp_sock *tp = tcp_sk(sk);
	u32 t = ca->t_us, rtt = min(ca->rtt_cur_us, ca->rtt_prev_us), q = 0, r;
	u64 bits;

	if (rtt > t)
		q = hp_div_t(ca, (u64)min(rtt - t, HP_U_MAX / HP_ONE * t) << HP_SHIFT);
	bits = (u64)min_t(u32, rs->delivered, HP_COUNT_MAX) * tp->mss_cache * 8;
	r = min_t(u64, div64_u64(bits << HP_SHIFT,
				 (u64)rs->interval_us *
				 ccaas_sock_param(sk, HP_P_BW, READ_ONCE(bw))),
		  HP_U_MAX);
	return min(q + r, HP_U_MAX);
}

/* Fold the sample into U, weighted by the time it covers (tau / T). */
static void hp_util_update(struct sock *sk, struct cca_hpcc *ca,
			   const struct rate_sample *rs)
{
	u32 now = tcp_sk(sk)->tcp_mstamp;
	u32 tau = min(now - ca->last_us, ca->t_us >> HP_TAU_SHIFT);
	u64 util = ca->util, u;
	u32 weight;

	/* The standing RTT: the least sample of this round and the last. */
	ca->rtt_cur_us = min_t(u32, ca->rtt_cur_us, rs->rtt_us);
	u = (u64)hp_util_sample(sk, ca, rs) << 32;

	ca->last_us = now;
	/*
	 * U += (u - U) * tau / T, with tau / T as weight / 2^32 (at most
	 * 2^29) and U kept to 2^-48: no step is lost to rounding, however
	 * small tau is against T.
	 */
	weight = tau * ca->inv_t;
	if (u >= util)
		util += mul_u64_u32_shr(u - util, weight, 32);
	else
		util -= mul_u64_u32_shr(util - u, weight, 32);
	WRITE_ONCE(ca->util, util);
}

/*
 * The window from U against the reference; at a round's end (@update)
 * the reference follows. Unless @may_grow (the window, not the
 * application, limits sending), it does not rise.
 */
static void hp_window(struct sock *sk, struct cca_hpcc *ca, bool may_grow,
		      bool update)
{
	const struct tcp_sock *tp = tcp_sk(sk);
	u32 util = hp_util(ca), max_w;
	bool mi = util >= ca->eta || ca->stage >= max_stage;
	u64 w;

	if (!mi)
		w = ca->w_ref;
	else if ((u64)util * HP_MI_MAX <= ca->eta)
		w = (u64)ca->w_ref * HP_MI_MAX;
	else
		w = div_u64((u64)ca->w_ref * ca->eta, util);
	w += ca->w_ai;

	max_w = min(tp->snd_cwnd_clamp, HP_W_MAX_PKTS) << HP_W_SHIFT;
	w = clamp_t(u64, w, HP_MIN_CWND << HP_W_SHIFT, max_w);
	if (!may_grow && w > ca->w_ref) {
		ca->w = max(ca->w_ref, HP_MIN_CWND << HP_W_SHIFT);
		return;
	}
	ca->w = w;
	if (update) {
		WRITE_ONCE(ca->stage, mi ? 0 : min_t(u32, ca->stage + 1, U8_MAX));
		WRITE_ONCE(ca->w_ref, w);
	}
}

/* A reduction: W and W_ref to @w (1/1024 packet), a new stage. */
static void hp_set_w(struct cca_hpcc *ca, u32 w)
{
	ccaas_log_note(&ca->round, CCAAS_ROUND_LOSS);
	ca->w = w;
	WRITE_ONCE(ca->w_ref, w);
	WRITE_ONCE(ca->stage, 0);
}

/* A loss or local congestion: W and W_ref to @num / 1024 of W. */
static void hp_cut(struct cca_hpcc *ca, u32 num)
{
	hp_set_w(ca, max_t(u32, ((u64)ca->w * num) >> 10,
			   HP_MIN_CWND << HP_W_SHIFT));
}

static void hp_round_end(struct sock *sk, struct cca_hpcc *ca)
{
	ccaas_log_rtt_util(sk, &ca->round, CCAAS_LOG_NO_ALPHA, ca->t_us,
			   ca->stage, hp_util(ca) >> HP_SHOW_SHIFT,
			   ca->w_ref >> HP_W_SHIFT);
	ccaas_round_start(&ca->round, tcp_sk(sk));
	hp_round_setup(sk, ca);
	ca->rtt_prev_us = ca->rtt_cur_us;
	ca->rtt_cur_us = U32_MAX;
}

static void cca_hpcc_cong_control(CCAAS_CONG_CONTROL_ARGS)
{
	struct cca_hpcc *ca = inet_csk_ca(sk);
	struct tcp_sock *tp = tcp_sk(sk);
	u8 ca_state = inet_csk(sk)->icsk_ca_state;
	bool round_end = ccaas_round_over(&ca->round, tp);
	u32 cwnd;

	if (ca_state == TCP_CA_Recovery &&
	    (ca->prev_ca_state < TCP_CA_Recovery || ca->reduce)) {
		/* A fast recovery episode began. */
		hp_cut(ca, HP_LOSS_BETA);
	} else if (ca->reduce && !ca->reduce_ece &&
		   ca_state < TCP_CA_Recovery) {
		/*
		 * ssthresh() outside fast recovery on no ECE: local
		 * congestion, or a loss a tail loss probe found.
		 */
		hp_cut(ca, HP_LOSS_BETA);
	} else if (ca_state < TCP_CA_Recovery && ca->t_us) {
		if (rs->rtt_us > 0 && rs->delivered > 0 && rs->interval_us > 0)
			hp_util_update(sk, ca, rs);
		hp_window(sk, ca, !rs->is_app_limited, round_end);
	}
	ca->prev_ca_state = ca_state;
	ca->reduce = 0;
	ca->ece_ack = 0;
	ca->tlp_loss = 0;
	ca->ce_seen = tp->delivered_ce;
	if (round_end)
		hp_round_end(sk, ca);

	cwnd = max(ca->w >> HP_W_SHIFT, HP_MIN_CWND);
	if (ca_state == TCP_CA_Recovery) {
		/*
		 * Down to W by packet conservation: one packet out per ACK
		 * (the fast retransmit first) while the flight is above W.
		 */
		cwnd = max(cwnd, tcp_packets_in_flight(tp) + 1);
	} else if (ca_state == TCP_CA_Loss) {
		/* After a timeout, slow start from the stack's window to W. */
		cwnd = min(cwnd, tcp_snd_cwnd(tp) + rs->acked_sacked);
	}
	tcp_snd_cwnd_set(tp, min(max(cwnd, 1U), tp->snd_cwnd_clamp));
	ccaas_pacing_set(sk, ca->unit, tcp_snd_cwnd(tp), pacing_gain);
}

/*
 * The stack starts a reduction episode: fast recovery, a timeout, local
 * congestion, a loss a tail loss probe found, or the first ECE. The value
 * only lands in snd_ssthresh; cong_control() tells the episodes apart from
 * the flags and the state.
 *
 * An ECE is told from local congestion by the ACK being processed:
 * tcp_ack() counts the ACK's CE (tcp_clean_rtx_queue(), and on 7.x
 * tcp_accecn_process(), which may find CE on a fast-path ACK too) and
 * reports its ECE (tcp_in_ack_event(), slow path only) before
 * tcp_fastretrans_alert() calls tcp_enter_cwr(), on 6.1, 6.12 and 7.3
 * alike. So ssthresh() on an ACK that carries ECE or moved delivered_ce
 * since the last ACK ended is ECN's; a duplicate ACK with ECE counts no
 * CE, but carries the flag. A loss a tail loss probe found
 * (tcp_process_tlp_ack(), after tcp_in_ack_event()) is a loss even on an
 * ACK with ECE. Local congestion calls ssthresh() from the send path,
 * between ACKs, after cong_control() (or CA_EVENT_TX_START, for a flight
 * an ACK emptied) cleared the flags and took delivered_ce.
 */
static u32 cca_hpcc_ssthresh(struct sock *sk)
{
	struct cca_hpcc *ca = inet_csk_ca(sk);
	bool ecn = ca->ece_ack || tcp_sk(sk)->delivered_ce != ca->ce_seen;

	ccaas_log_note(&ca->round, CCAAS_ROUND_SSTHRESH);
	ca->reduce = 1;
	ca->reduce_ece = ecn && !ca->tlp_loss;
	return max(((u64)tcp_snd_cwnd(tcp_sk(sk)) * HP_LOSS_BETA) >> 10,
		   (u64)HP_MIN_CWND);
}

/*
 * Every ACK but an old one, before the stack's state machine runs, and
 * before tcp_process_tlp_ack(): tlp_high_seq still says whether this ACK
 * ends a probe that found a loss (the ACK goes past the probe, which was
 * a retransmission).
 */
static void cca_hpcc_in_ack_event(struct sock *sk, u32 flags)
{
	struct cca_hpcc *ca = inet_csk_ca(sk);
	const struct tcp_sock *tp = tcp_sk(sk);

	ca->ece_ack = !!(flags & CA_ACK_ECE);
	ca->tlp_loss = tp->tlp_high_seq && tp->tlp_retrans &&
		       after(tp->snd_una, tp->tlp_high_seq);
}

static void cca_hpcc_cwnd_event(struct sock *sk, enum tcp_ca_event ev)
{
	struct cca_hpcc *ca = inet_csk_ca(sk);

	switch (ev) {
	case CA_EVENT_LOSS:
		/* A retransmission timeout, right after ssthresh(). */
		hp_cut(ca, 512);
		ca->reduce = 0;
		ca->rto = 1;
		break;
	case CA_EVENT_TX_START:
		/*
		 * U and W are kept over idle periods (see the top). An ACK
		 * that went the no_queue way in tcp_ack() (nothing was in
		 * flight: a window update, say) ends without cong_control():
		 * its ECE must not excuse a send refused now.
		 */
		ca->ece_ack = 0;
		ca->tlp_loss = 0;
		ca->ce_seen = tcp_sk(sk)->delivered_ce;
		ccaas_log_note(&ca->round, CCAAS_ROUND_TX_START);
		break;
	default:
		break;
	}
}

/*
 * A retransmission timeout during a reduction (CWR or Recovery before
 * high_seq is acknowledged): tcp_enter_loss() then calls neither
 * ssthresh() nor CA_EVENT_LOSS, only set_state(Loss). A timeout halves W
 * all the same: half the window the reduction began from (tp->prior_cwnd),
 * after an ECE that cut nothing as after fast recovery's 0.7 W. Repeated
 * timeouts of one episode (Loss to Loss) cut once, as the stack does; and
 * a Loss entry of a path MTU change is no timeout (ccaas_timeout_entry()).
 */
static void cca_hpcc_set_state(struct sock *sk, u8 new_state)
{
	struct cca_hpcc *ca = inet_csk_ca(sk);
	u32 w;

	if (new_state != TCP_CA_Loss)
		return;
	if (ca->rto) {			/* CA_EVENT_LOSS cut already */
		ca->rto = 0;
		return;
	}
	if (!ccaas_timeout_in_reduction(sk, new_state))
		return;
	w = max(min(tcp_sk(sk)->prior_cwnd, HP_W_MAX_PKTS) << (HP_W_SHIFT - 1),
		HP_MIN_CWND << HP_W_SHIFT);
	if (w < ca->w)
		hp_set_w(ca, w);
	ca->reduce = 0;
}

/* A loss reduction proved spurious: back to the window before it. */
static u32 cca_hpcc_undo_cwnd(struct sock *sk)
{
	struct cca_hpcc *ca = inet_csk_ca(sk);
	const struct tcp_sock *tp = tcp_sk(sk);
	u32 prior = min(tp->prior_cwnd, HP_W_MAX_PKTS);

	if (prior << HP_W_SHIFT > ca->w) {
		ca->w = prior << HP_W_SHIFT;
		WRITE_ONCE(ca->w_ref, ca->w);
	}
	return max(tcp_snd_cwnd(tp), tp->prior_cwnd);
}

static void cca_hpcc_init(struct sock *sk)
{
	struct cca_hpcc *ca = inet_csk_ca(sk);
	struct tcp_sock *tp = tcp_sk(sk);
	const struct dst_entry *dst = __sk_dst_get(sk);
	u32 cwnd;

	ccaas_round_start(&ca->round, tp);
	hp_round_setup(sk, ca);

	/*
	 * Initial window: rule knob > route initcwnd > B * T, the last only
	 * when the rule gives B (a module default is no path's bandwidth)
	 * and the handshake lost nothing (the stack then starts from 1).
	 */
	if (!tp->data_segs_out && !(dst && dst_metric(dst, RTAX_INITCWND)) &&
	    ca->t_us && (ca->core.param_set & BIT(HP_P_BW)) && !tp->total_retrans) {
		/* B * T bytes = bw Mbit/s * T us / 8 */
		cwnd = div_u64((u64)ccaas_sock_param(sk, HP_P_BW, 0) * ca->t_us,
			       8 * max(tp->mss_cache, 1U));
		cwnd = clamp(cwnd, HP_MIN_CWND, min(HP_W_MAX_PKTS, tp->snd_cwnd_clamp));
		tcp_snd_cwnd_set(tp, cwnd);
	}
	ccaas_sock_start(sk);
	ccaas_log_init(sk);

	cwnd = min(tcp_snd_cwnd(tp), HP_W_MAX_PKTS);
	ca->w = max(cwnd, HP_MIN_CWND) << HP_W_SHIFT;
	WRITE_ONCE(ca->w_ref, ca->w);
	WRITE_ONCE(ca->util, 0);
	WRITE_ONCE(ca->stage, 0);
	ca->last_us = tp->tcp_mstamp;
	ca->rtt_cur_us = U32_MAX;
	ca->rtt_prev_us = U32_MAX;
	ca->reduce = 0;
	ca->reduce_ece = 0;
	ca->ece_ack = 0;
	ca->tlp_loss = 0;
	ca->rto = 0;
	ca->ce_seen = tp->delivered_ce;
	ca->prev_ca_state = inet_csk(sk)->icsk_ca_state;

	ccaas_pacing_request(sk);
	ccaas_pacing_set(sk, ca->unit, tcp_snd_cwnd(tp), pacing_gain);
}

/*
 * `ss -ti` shows the DCTCP layout, mapped as:
 * dctcp:(ce_state:STAGE,alpha:U,ab_ecn:W_REF,ab_tot:T) with STAGE the
 * additive rounds since the last multiplicative step, U in 1/1024,
 * W_REF the reference window in bytes and T the base RTT in us.
 */
static size_t cca_hpcc_get_info(struct sock *sk, u32 ext, int *attr,
				union tcp_cc_info *info)
{
	const struct cca_hpcc *ca = inet_csk_ca(sk);
	const struct tcp_sock *tp = tcp_sk(sk);

	if (!ccaas_info_wanted(ext))
		return 0;
	return ccaas_info_dctcp(info, attr, true, READ_ONCE(ca->stage),
				hp_util(ca) >> HP_SHOW_SHIFT,
				min_t(u64, (u64)(READ_ONCE(ca->w_ref) >> HP_W_SHIFT) *
				      tp->mss_cache, U32_MAX),
				READ_ONCE(ca->t_us));
}

static struct tcp_congestion_ops cca_hpcc_ops __read_mostly = {
	.init		= cca_hpcc_init,
	.ssthresh	= cca_hpcc_ssthresh,
	.cong_control	= cca_hpcc_cong_control,
	.undo_cwnd	= cca_hpcc_undo_cwnd,
	.cwnd_event	= cca_hpcc_cwnd_event,
	.set_state	= cca_hpcc_set_state,
	.in_ack_event	= cca_hpcc_in_ack_event,
	.get_info	= cca_hpcc_get_info,
	.min_tso_segs	= ccaas_sock_min_tso_segs,
	.owner		= THIS_MODULE,
	.name		= CCA_HPCC_NAME,
};

/* Per policy rule overrides of the module parameters (`ccactl cca show`). */
static const struct ccaas_param_spec cca_hpcc_params[] = {
	[HP_P_BW] = { .name = "bw", .min = HP_BW_MIN, .max = HP_BW_MAX,
	  .def = HP_BW_DEF, .unit = "Mbit/s" },
	[HP_P_BASE_RTT] = { .name = "base_rtt", .min = 0, .max = HP_BASE_RTT_MAX,
	  .def = 0, .unit = "us, 0 min RTT" },
	[HP_P_ETA] = { .name = "eta", .min = HP_ETA_MIN, .max = HP_ETA_MAX,
	  .def = HP_ETA_DEF, .unit = "percent" },
	[HP_P_W_AI] = { .name = "w_ai", .min = 0, .max = HP_W_AI_MAX,
	  .def = HP_W_AI_DEF, .unit = "B/round" },
};

static struct ccaas_cca cca_hpcc = {
	.ops		= &cca_hpcc_ops,
	.params		= cca_hpcc_params,
	.n_params	= ARRAY_SIZE(cca_hpcc_params),
	.version	= CCA_HPCC_VERSION,
	.features	= CCAAS_CCA_F_ECN_OK | CCAAS_CCA_F_NONECN_OK |
			  CCAAS_CCA_F_CONG_CONTROL,
};

static int __init cca_hpcc_register(void)
{
	BUILD_BUG_ON(sizeof(struct cca_hpcc) > ICSK_CA_PRIV_SIZE);
	BUILD_BUG_ON(ARRAY_SIZE(cca_hpcc_params) != HP_P_COUNT);
	BUILD_BUG_ON(HP_P_COUNT > CCAAS_SOCK_PARAMS);
	return ccaas_cca_register(&cca_hpcc);
}

static void __exit cca_hpcc_unregister(void)
{
	ccaas_cca_unregister(&cca_hpcc);
}

module_init(cca_hpcc_register);
module_exit(cca_hpcc_unregister);

MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("ccaas: HPCC-style inflight control from host signals (cca_hpcc)");
MODULE_ALIAS("tcp_cca_hpcc");
