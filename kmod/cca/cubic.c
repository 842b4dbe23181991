// SPDX-License-Identifier: GPL-2.0
/*
 * cca_cubic: the transitional, ECN-tolerant Cubic of ccaas.
 *
 * Window growth is Cubic's (RFC 9438, <ccaas/cubic.h>): after a reduction
 * from W_max the window follows W(t) = C (t - K)^3 + W_max, concave up to
 * W_max, flat around it, convex beyond, with C = 0.4 and the TCP-friendly
 * (Reno) region. Slow start is the stack's standard one; there is no
 * HyStart, so slow start ends at the first loss or ECN signal.
 *
 * Loss (fast recovery, or a retransmission timeout): ssthresh = beta * cwnd
 * with beta = 0.7, and fast convergence (a flow cut below its previous W_max
 * remembers a lower plateau, leaving room to newer flows). After a timeout
 * the first congestion avoidance probes from the window it starts at, K = 0
 * (RFC 9438 section 4.8), as in-tree cubic does.
 *
 * ECN: a CE mark is not treated as a loss. Like DCTCP, cca_cubic keeps alpha,
 * the EWMA of the fraction of packets marked, updated once per round trip
 * (<ccaas/round.h>, <ccaas/ecn.h>), and on an ECN echo cuts by alpha / 2:
 *
 *	ssthresh = cwnd * (1 - alpha / 2), never below beta * cwnd
 *
 * at most once per round trip; a lightly marked flow barely slows. The cap
 * at beta keeps an ECN cut no harsher than a loss (alpha starts at 1, so the
 * first cuts are Cubic's classic beta until the estimate has converged).
 *
 * Any socket is welcome. cca_cubic does not set TCP_CONG_NEEDS_ECN, so it
 * never asks for ECN at the handshake and sends no ECT on a connection that
 * did not negotiate ECN; on one that did, the stack sends ECT on new data
 * and passes ECN echoes on, and cca_cubic reacts proportionally.
 *
 * How an ECN cut is told from a loss. cca_cubic has no cong_control, so the
 * stack itself reacts to an ECE: tcp_enter_cwr() calls ssthresh() and then
 * enters CWR, whose PRR brings cwnd down to ssthresh over a round trip. A
 * loss calls the same ssthresh() (then enters Recovery, or Loss after a
 * timeout). The stack reports each ACK's ECE bit through in_ack_event()
 * (CA_ACK_ECE) before it runs the state machine for that ACK, so:
 *
 *	- in_ack_event() remembers whether the ACK being processed carries ECE;
 *	- ssthresh() on such an ACK is an ECN cut (alpha / 2); otherwise (loss,
 *	  timeout, local congestion from the qdisc) it is a beta cut;
 *	- set_state(Recovery), set_state(Loss) and CA_EVENT_LOSS turn a
 *	  preceding ECN cut into a beta cut from the same window: they cover an
 *	  ACK that carried ECE and also revealed a loss, a loss during the CWR
 *	  reduction (the stack does not call ssthresh() again then), and a
 *	  timeout after an ECE (tcp_enter_loss() in CWR calls neither
 *	  ssthresh() nor CA_EVENT_LOSS: only set_state(Loss)).
 *
 * Receiver side: the stock 6.1 and 6.12 stacks send CA_EVENT_ECN_IS_CE and
 * CA_EVENT_ECN_NO_CE only to CCAs with TCP_CONG_NEEDS_ECN. cwnd_event()
 * handles them (<ccaas/ecn.h>: exact per-packet CE echo for a DCTCP-style
 * sender) should they arrive; on these kernels a cca_cubic receiver gives
 * the stack's RFC 3168 feedback (ECE until CWR), from which a DCTCP-style
 * sender overestimates alpha, i.e. errs on the safe side.
 */
#include <linux/inet_diag.h>
#include <linux/module.h>
#include <net/tcp.h>

#include <ccaas/ccaas.h>
#include <ccaas/cubic.h>
#include <ccaas/ecn.h>
#include <ccaas/info.h>
#include <ccaas/log.h>
#include <ccaas/param.h>
#include <ccaas/rate.h>
#include <ccaas/round.h>
#include <ccaas/sock.h>

/*
 * The benchmark (bench/) builds a second copy without the ccalog calls
 * (CCAAS_NO_CCALOG) under another name, to measure what they cost.
 */
#ifndef CCA_CUBIC_NAME
#define CCA_CUBIC_NAME		"cca_cubic"
#endif

#define CCA_CUBIC_VERSION	CCAAS_VERSION(1, 0, 0)

/*
 * beta, in 1/1024: from 0.5 (Reno's halving) to 0.95; RFC 9438's 0.7 by
 * default. The ECN cut is never deeper than this.
 */
#define CCA_CUBIC_BETA_MIN	512U
#define CCA_CUBIC_BETA_MAX	972U
static unsigned int cubic_beta __read_mostly = CCAAS_CUBIC_BETA_DEFAULT;
CCAAS_PARAM_UINT(beta, cubic_beta, CCA_CUBIC_BETA_MIN, CCA_CUBIC_BETA_MAX, 0644);
MODULE_PARM_DESC(beta, "loss reduction: cwnd * beta / 1024 [512..972]");

/* C in 1/1024 packet/s^3: a tenth to ten times RFC 9438's 0.4. */
#define CCA_CUBIC_C_MIN		41U
#define CCA_CUBIC_C_MAX		4096U
static unsigned int cubic_c __read_mostly = CCAAS_CUBIC_C_DEFAULT;
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

/* What the last reduction was a response to. */
enum { CCA_CUBIC_CUT_NONE, CCA_CUBIC_CUT_ECN, CCA_CUBIC_CUT_LOSS };

struct cca_cubic {
	struct ccaas_sock core;		/* the core's header: rule's knobs */
	struct ccaas_round round;	/* current round trip */
	struct ccaas_cubic cubic;	/* window growth */
	u32 alpha;			/* marked fraction, 1/1024 units */
	u32 loss_cwnd;			/* cwnd before the last reduction */
	u32 prior_w_max;		/* cubic W_max before the last reduction */
	u32 prior_rcv_nxt;		/* receiver: rcv_nxt at last CE flip */
	u32 ce_state;			/* receiver: last data packet had CE */
	u8 ece_ack;			/* the ACK being processed has ECE */
	u8 cut;				/* CCA_CUBIC_CUT_*: the last reduction */
	u8 cut_in_round;		/* a reduction happened this round */
};

/* Indexes of cca_cubic_params[], the per-rule overrides. */
enum { CCA_CUBIC_BETA, CCA_CUBIC_C, CCA_CUBIC_SHIFT_G, CCA_CUBIC_ALPHA_ON_INIT };

/* The socket's Cubic constants: its rule's values, else the module's. */
static void cca_cubic_cfg(const struct sock *sk, struct ccaas_cubic_cfg *cfg)
{
	cfg->c = ccaas_sock_param(sk, CCA_CUBIC_C, cubic_c);
	cfg->beta = ccaas_sock_param(sk, CCA_CUBIC_BETA, cubic_beta);
	cfg->fast_convergence = fast_convergence;
	cfg->tcp_friendly = tcp_friendliness;
}

static void cca_cubic_init(struct sock *sk)
{
	struct cca_cubic *ca = inet_csk_ca(sk);
	const struct tcp_sock *tp = tcp_sk(sk);
	u32 alpha;

	ccaas_sock_start(sk);
	ccaas_log_init(sk);

	/*
	 * A socket taken over mid-connection keeps its cwnd and ssthresh: its
	 * first epoch starts at that cwnd, convex (no W_max known yet).
	 */
	ccaas_cubic_reset(&ca->cubic);
	alpha = min(ccaas_sock_param(sk, CCA_CUBIC_ALPHA_ON_INIT, alpha_on_init),
		    CCAAS_ALPHA_ONE);
	ca->alpha = ccaas_alpha_seed(tp, alpha);
	ca->loss_cwnd = 0;
	ca->prior_w_max = 0;
	ca->ce_state = 0;
	ca->prior_rcv_nxt = tp->rcv_nxt;
	ca->ece_ack = 0;
	ca->cut = CCA_CUBIC_CUT_NONE;
	ca->cut_in_round = 0;
	ccaas_round_start(&ca->round, tp);
}

/* Record a reduction from @cwnd to @target for growth, undo and loss. */
static void cca_cubic_reduce(struct cca_cubic *ca,
			     const struct ccaas_cubic_cfg *cfg,
			     u32 cwnd, u32 target, u8 cut)
{
	ca->loss_cwnd = cwnd;
	ca->prior_w_max = ca->cubic.w_max;
	ccaas_cubic_on_reduction(&ca->cubic, cfg, cwnd, target);
	ca->cut = cut;
	ca->cut_in_round = 1;
}

static u32 cca_cubic_ssthresh(struct sock *sk)
{
	struct cca_cubic *ca = inet_csk_ca(sk);
	const struct tcp_sock *tp = tcp_sk(sk);
	u32 cwnd = tcp_snd_cwnd(tp);
	struct ccaas_cubic_cfg cfg;
	u32 target;

	ccaas_log_note(&ca->round, CCAAS_ROUND_SSTHRESH);
	cca_cubic_cfg(sk, &cfg);
	target = ccaas_cubic_beta_cwnd(cwnd, cfg.beta);

	if (!ca->ece_ack || !ccaas_tcp_ecn_ok(tp)) {
		cca_cubic_reduce(ca, &cfg, cwnd, target, CCA_CUBIC_CUT_LOSS);
		return target;
	}

	/* An ECN echo: the stack is entering CWR. */
	ca->ece_ack = 0;
	if (ca->cut_in_round) {
		/*
		 * Already reduced this round: keep cwnd. Still remembered as
		 * an ECN response, so that a loss on this ACK cuts by beta.
		 */
		ca->loss_cwnd = cwnd;
		ca->prior_w_max = ca->cubic.w_max;
		ca->cut = CCA_CUBIC_CUT_ECN;
		return cwnd;
	}
	target = max(ccaas_alpha_cut(cwnd, ca->alpha), target);
	cca_cubic_reduce(ca, &cfg, cwnd, target, CCA_CUBIC_CUT_ECN);
	return target;
}

/*
 * A loss: if the last reduction was an ECN response (same ACK, the CWR in
 * progress, or an ECE just before a timeout), make it a beta cut from the
 * window the ECN cut started from.
 */
static void cca_cubic_loss(struct sock *sk)
{
	struct cca_cubic *ca = inet_csk_ca(sk);
	struct tcp_sock *tp = tcp_sk(sk);
	struct ccaas_cubic_cfg cfg;
	u32 target;

	ccaas_log_note(&ca->round, CCAAS_ROUND_LOSS);
	if (ca->cut != CCA_CUBIC_CUT_ECN)
		return;

	cca_cubic_cfg(sk, &cfg);
	target = ccaas_cubic_beta_cwnd(ca->loss_cwnd, cfg.beta);
	ccaas_cubic_undo(&ca->cubic, ca->prior_w_max);
	ccaas_cubic_on_reduction(&ca->cubic, &cfg, ca->loss_cwnd, target);
	ca->cut = CCA_CUBIC_CUT_LOSS;
	ca->cut_in_round = 1;
	tp->snd_ssthresh = target;
}

static void cca_cubic_set_state(struct sock *sk, u8 new_state)
{
	struct cca_cubic *ca = inet_csk_ca(sk);
	u8 old = inet_csk(sk)->icsk_ca_state;

	if (new_state == TCP_CA_Recovery && old != TCP_CA_Recovery)
		cca_cubic_loss(sk);
	/*
	 * A timeout while a reduction of this window is under way (CWR or
	 * Recovery): tcp_enter_loss() then calls neither ssthresh() nor
	 * CA_EVENT_LOSS, and this is the only call. The same as that event.
	 */
	if (new_state == TCP_CA_Loss && old != TCP_CA_Loss) {
		cca_cubic_loss(sk);
		ccaas_cubic_reset(&ca->cubic);
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
				   ccaas_round_delivered(&ca->round, tp),
				   ccaas_round_delivered_ce(&ca->round, tp),
				   min(ccaas_sock_param(sk, CCA_CUBIC_SHIFT_G, shift_g),
				       CCAAS_ALPHA_SHIFT));
	/* get_info() reads alpha without the socket lock. */
	WRITE_ONCE(ca->alpha, alpha);
	ccaas_round_start(&ca->round, tp);
	ca->cut_in_round = 0;
}

/* The same for a connection ccalog reports: then the round goes to ccalog. */
static noinline void cca_cubic_round_end_logged(struct sock *sk)
{
	struct cca_cubic *ca = inet_csk_ca(sk);
	struct ccaas_round done = ca->round;

	cca_cubic_round_end(sk);
	ccaas_log_rtt(sk, &done, ccaas_tcp_ecn_ok(tcp_sk(sk)) ?
		      ca->alpha : CCAAS_LOG_NO_ALPHA, 0, 0);
}

/* Every ACK: whether it carried ECE (ssthresh() needs it); a round's end. */
static void cca_cubic_in_ack_event(struct sock *sk, u32 flags)
{
	struct cca_cubic *ca = inet_csk_ca(sk);

	ca->ece_ack = !!(flags & CA_ACK_ECE);

	if (!ccaas_round_over(&ca->round, tcp_sk(sk)))
		return;
	if (ccaas_logged(sk))
		cca_cubic_round_end_logged(sk);
	else
		cca_cubic_round_end(sk);
}

static void cca_cubic_cong_avoid(struct sock *sk, u32 ack, u32 acked)
{
	struct cca_cubic *ca = inet_csk_ca(sk);
	struct tcp_sock *tp = tcp_sk(sk);
	struct ccaas_cubic_cfg cfg;
	u32 rtt_us, grow;

	if (!tcp_is_cwnd_limited(sk))
		return;

	if (tcp_in_slow_start(tp)) {
		acked = tcp_slow_start(tp, acked);
		if (!acked)
			return;
	}

	cca_cubic_cfg(sk, &cfg);
	rtt_us = ccaas_min_rtt_us(tp);
	if (rtt_us == ~0U)
		rtt_us = 0;
	grow = ccaas_cubic_grow(&ca->cubic, &cfg, tcp_snd_cwnd(tp), acked,
				(u32)tp->tcp_mstamp, rtt_us);
	if (grow)
		tcp_snd_cwnd_set(tp, min(tcp_snd_cwnd(tp) + grow,
					 tp->snd_cwnd_clamp));
}

static void cca_cubic_cwnd_event(struct sock *sk, enum tcp_ca_event ev)
{
	struct cca_cubic *ca = inet_csk_ca(sk);
	const struct tcp_sock *tp = tcp_sk(sk);

	switch (ev) {
	case CA_EVENT_ECN_IS_CE:
	case CA_EVENT_ECN_NO_CE:
		if (ccaas_tcp_ecn_ok(tp))
			ccaas_ecn_rcv_ce(sk, ev, &ca->prior_rcv_nxt,
					 &ca->ce_state);
		break;
	case CA_EVENT_LOSS:
		/*
		 * A retransmission timeout, right after ssthresh(). The first
		 * congestion avoidance after it starts a convex curve from
		 * the window it finds (RFC 9438 section 4.8: K = 0, W_max and
		 * W_est that window), not the plateau from before.
		 */
		cca_cubic_loss(sk);
		ccaas_cubic_reset(&ca->cubic);
		break;
	case CA_EVENT_TX_START:
		/* sending resumes after idle: do not count the idle time */
		ccaas_log_note(&ca->round, CCAAS_ROUND_TX_START);
		ccaas_cubic_idle(&ca->cubic,
				 jiffies_to_usecs(tcp_jiffies32 - tp->lsndtime));
		break;
	default:
		break;
	}
}

/* A reduction proved spurious: back to the window and plateau before it. */
static u32 cca_cubic_undo_cwnd(struct sock *sk)
{
	struct cca_cubic *ca = inet_csk_ca(sk);

	ccaas_cubic_undo(&ca->cubic, ca->prior_w_max);
	return max(tcp_snd_cwnd(tcp_sk(sk)), ca->loss_cwnd);
}

/*
 * `ss -ti` shows, for a connection that negotiated ECN, the DCTCP layout:
 * dctcp:(ce_state:..,alpha:..,ab_ecn:..,ab_tot:..) with cca_cubic's alpha
 * (1/1024) and the current round's marked and delivered bytes. Without ECN
 * there is no alpha to show, and nothing is reported (as for Cubic).
 */
static size_t cca_cubic_get_info(struct sock *sk, u32 ext, int *attr,
				 union tcp_cc_info *info)
{
	const struct cca_cubic *ca = inet_csk_ca(sk);

	if (!ccaas_tcp_ecn_ok(tcp_sk(sk)) || !ccaas_info_wanted(ext))
		return 0;
	return ccaas_info_dctcp_round(sk, info, attr, true, ca->ce_state,
				      READ_ONCE(ca->alpha), &ca->round);
}

static struct tcp_congestion_ops cca_cubic_ops __read_mostly = {
	.init		= cca_cubic_init,
	.ssthresh	= cca_cubic_ssthresh,
	.cong_avoid	= cca_cubic_cong_avoid,
	.set_state	= cca_cubic_set_state,
	.undo_cwnd	= cca_cubic_undo_cwnd,
	.cwnd_event	= cca_cubic_cwnd_event,
	.in_ack_event	= cca_cubic_in_ack_event,
	.get_info	= cca_cubic_get_info,
	.min_tso_segs	= ccaas_sock_min_tso_segs,
	/* no TCP_CONG_NEEDS_ECN: never asks for ECN, see the top */
	.owner		= THIS_MODULE,
	.name		= CCA_CUBIC_NAME,
};

/* Per policy rule overrides of the module parameters (`ccactl cca show`). */
static const struct ccaas_param_spec cca_cubic_params[] = {
	[CCA_CUBIC_BETA] = { .name = "beta", .min = CCA_CUBIC_BETA_MIN,
	  .max = CCA_CUBIC_BETA_MAX, .def = CCAAS_CUBIC_BETA_DEFAULT,
	  .unit = "1/1024" },
	[CCA_CUBIC_C] = { .name = "c", .min = CCA_CUBIC_C_MIN,
	  .max = CCA_CUBIC_C_MAX, .def = CCAAS_CUBIC_C_DEFAULT,
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
	return ccaas_cca_register(&cca_cubic);
}

static void __exit cca_cubic_unregister(void)
{
	ccaas_cca_unregister(&cca_cubic);
}

module_init(cca_cubic_register);
module_exit(cca_cubic_unregister);

MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("ccaas: transitional ECN-tolerant Cubic (cca_cubic)");
MODULE_ALIAS("tcp_cca_cubic");
