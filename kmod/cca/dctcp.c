// SPDX-License-Identifier: GPL-2.0
/*
 * cca_dctcp: Data Center TCP on the ccaas core.
 *
 * DCTCP (Alizadeh et al., SIGCOMM 2010; RFC 8257) reacts to the *extent* of
 * congestion rather than its mere presence. Switches mark CE once their queue
 * passes a shallow threshold; the receiver echoes each packet's CE state
 * exactly (ccaas_ecn_rcv_ce()); the sender keeps alpha, an estimate of the
 * fraction of its packets that were marked, updated once per round trip:
 *
 *	alpha <- (1 - g) * alpha + g * F	F = marked / delivered in the round
 *
 * and on congestion cuts cwnd by alpha / 2 instead of half:
 *
 *	cwnd <- cwnd * (1 - alpha / 2)
 *
 * so a lightly marked flow barely slows while a fully marked one halves like
 * Reno. Window growth is Reno's. A loss (entering Recovery, or a
 * retransmission timeout) halves cwnd as in Reno whatever alpha says.
 *
 * ECN must be negotiated for any of this. When the handshake did not
 * negotiate it, init() moves the socket to cca_dctcp's fallback ops,
 * "cca_dctcp-reno": Reno, without TCP_CONG_NEEDS_ECN so that the stack stops
 * sending ECT (it sets ECT after init() from the ops' flags). The fallback
 * is registered with the core as part of cca_dctcp, not with TCP: sockets
 * cannot ask for it by name.
 *
 * The alpha arithmetic and round detection are the shared helpers of
 * <ccaas/ecn.h> and <ccaas/round.h>; they are inline so that a ccaas CCA
 * costs no more per ACK than a hand-written one.
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

#define CCA_DCTCP_VERSION	CCAAS_VERSION(1, 0, 0)

/*
 * The benchmark (bench/) builds a second copy without the ccalog calls
 * (CCAAS_NO_CCALOG) under another name, to measure what they cost.
 */
#ifndef CCA_DCTCP_NAME
#define CCA_DCTCP_NAME		"cca_dctcp"
#endif

/* Gain g = 2^-shift_g of the alpha EWMA; RFC 8257 suggests 1/16. */
static unsigned int shift_g __read_mostly = 4;
CCAAS_PARAM_UINT(shift_g, shift_g, 0, CCAAS_ALPHA_SHIFT, 0644);
MODULE_PARM_DESC(shift_g, "alpha EWMA gain is 2^-shift_g [0..10]");

/*
 * alpha of a new connection, in 1/1024. Starting at 1 (all marked) makes the
 * first reactions Reno-like until the estimate has converged.
 */
static unsigned int alpha_on_init __read_mostly = CCAAS_ALPHA_ONE;
CCAAS_PARAM_UINT(alpha_on_init, alpha_on_init, 0, CCAAS_ALPHA_ONE, 0644);
MODULE_PARM_DESC(alpha_on_init, "initial alpha, in 1/1024 [0..1024]");

struct cca_dctcp {
	struct ccaas_sock core;		/* the core's header: rule's knobs */
	struct ccaas_round round;	/* current round trip */
	u32 alpha;			/* marked fraction, 1/1024 units */
	u32 loss_cwnd;			/* cwnd before the last reduction */
	u32 prior_rcv_nxt;		/* receiver: rcv_nxt at last CE flip */
	u32 ce_state;			/* receiver: last data packet had CE */
};

static struct tcp_congestion_ops cca_dctcp_reno_ops;

/* Indexes of cca_dctcp_params[], the per-rule overrides. */
enum { CCA_DCTCP_SHIFT_G, CCA_DCTCP_ALPHA_ON_INIT };

static void cca_dctcp_init(struct sock *sk)
{
	struct cca_dctcp *ca = inet_csk_ca(sk);
	struct tcp_sock *tp = tcp_sk(sk);

	ccaas_sock_start(sk);

	/*
	 * init() also runs for listeners and for sockets that are not yet
	 * connected; their ECN outcome is unknown, so only an established
	 * socket without ECN (any mode) falls back. Same module, so no module
	 * reference changes hands.
	 */
	if (!ccaas_tcp_ecn_ok(tp) &&
	    sk->sk_state != TCP_LISTEN && sk->sk_state != TCP_CLOSE) {
		inet_csk(sk)->icsk_ca_ops = &cca_dctcp_reno_ops;
		INET_ECN_dontxmit(sk);
	} else {
		u32 alpha = min(ccaas_sock_param(sk, CCA_DCTCP_ALPHA_ON_INIT,
						 alpha_on_init), CCAAS_ALPHA_ONE);

		ca->alpha = ccaas_alpha_seed(tp, alpha);
		ca->loss_cwnd = 0;
		ca->ce_state = 0;
		ca->prior_rcv_nxt = tp->rcv_nxt;
		ccaas_round_start(&ca->round, tp);
	}
	/* After the choice of ops: the Reno fallback has no rounds to log. */
	ccaas_log_init(sk);
}

static u32 cca_dctcp_ssthresh(struct sock *sk)
{
	struct cca_dctcp *ca = inet_csk_ca(sk);
	u32 cwnd = tcp_snd_cwnd(tcp_sk(sk));

	ca->loss_cwnd = cwnd;
	ccaas_log_note(&ca->round, CCAAS_ROUND_SSTHRESH);
	return ccaas_alpha_cut(cwnd, ca->alpha);
}

/*
 * Once per round trip: fold the round's marked fraction into alpha. Out of
 * line, and a leaf: the per-ACK test below has nothing to save.
 */
static noinline void cca_dctcp_round_end(struct sock *sk)
{
	struct cca_dctcp *ca = inet_csk_ca(sk);
	const struct tcp_sock *tp = tcp_sk(sk);
	u32 alpha;

	alpha = ccaas_alpha_update(ca->alpha,
				   ccaas_round_delivered(&ca->round, tp),
				   ccaas_round_delivered_ce(&ca->round, tp),
				   min(ccaas_sock_param(sk, CCA_DCTCP_SHIFT_G, shift_g),
				       CCAAS_ALPHA_SHIFT));
	/* get_info() reads alpha without the socket lock. */
	WRITE_ONCE(ca->alpha, alpha);
	ccaas_round_start(&ca->round, tp);
}

/* The same for a connection ccalog reports: then the round goes to ccalog. */
static noinline void cca_dctcp_round_end_logged(struct sock *sk)
{
	struct cca_dctcp *ca = inet_csk_ca(sk);
	struct ccaas_round done = ca->round;

	cca_dctcp_round_end(sk);
	ccaas_log_rtt(sk, &done, ca->alpha, 0, 0);
}

/*
 * Every ACK: has the round ended? The ccalog test happens only then.
 * (ECE needs no note for ccalog: the round's CE-marked deliveries, which
 * ECE ACKs count, are reported.)
 */
static void cca_dctcp_in_ack_event(struct sock *sk, u32 flags)
{
	struct cca_dctcp *ca = inet_csk_ca(sk);

	if (!ccaas_round_over(&ca->round, tcp_sk(sk)))
		return;
	if (ccaas_logged(sk))
		cca_dctcp_round_end_logged(sk);
	else
		cca_dctcp_round_end(sk);
}

/* A loss halves cwnd whatever alpha is, as in Reno. */
static void cca_dctcp_react_to_loss(struct sock *sk)
{
	struct tcp_sock *tp = tcp_sk(sk);
	struct cca_dctcp *ca = inet_csk_ca(sk);

	ccaas_log_note(&ca->round, CCAAS_ROUND_LOSS);
	ca->loss_cwnd = tcp_snd_cwnd(tp);
	tp->snd_ssthresh = max(tcp_snd_cwnd(tp) >> 1, 2U);
}

/*
 * Fast recovery begins. A timeout is handled in cwnd_event() instead
 * (CA_EVENT_LOSS), as in-tree dctcp does: one reaction per episode.
 */
static void cca_dctcp_set_state(struct sock *sk, u8 new_state)
{
	if (new_state == TCP_CA_Recovery &&
	    inet_csk(sk)->icsk_ca_state != TCP_CA_Recovery)
		cca_dctcp_react_to_loss(sk);
}

static void cca_dctcp_cwnd_event(struct sock *sk, enum tcp_ca_event ev)
{
	struct cca_dctcp *ca = inet_csk_ca(sk);

	switch (ev) {
	case CA_EVENT_ECN_IS_CE:
	case CA_EVENT_ECN_NO_CE:
		ccaas_ecn_rcv_ce(sk, ev, &ca->prior_rcv_nxt, &ca->ce_state);
		break;
	case CA_EVENT_LOSS:
		/*
		 * A retransmission timeout, right after ssthresh() gave the
		 * alpha cut: a loss, so halve whatever alpha says (a drained
		 * alpha would otherwise slow-start straight back to cwnd).
		 */
		cca_dctcp_react_to_loss(sk);
		break;
	case CA_EVENT_TX_START:
		/* sending resumes after idle */
		ccaas_log_note(&ca->round, CCAAS_ROUND_TX_START);
		break;
	default:
		break;
	}
}

static u32 cca_dctcp_undo_cwnd(struct sock *sk)
{
	const struct cca_dctcp *ca = inet_csk_ca(sk);

	return max(tcp_snd_cwnd(tcp_sk(sk)), ca->loss_cwnd);
}

/*
 * Shown by `ss -ti` as dctcp:(ce_state:..,alpha:..,ab_ecn:..,ab_tot:..), or
 * as dctcp:fallback_mode for a socket on the Reno fallback.
 */
static size_t cca_dctcp_get_info(struct sock *sk, u32 ext, int *attr,
				 union tcp_cc_info *info)
{
	const struct cca_dctcp *ca = inet_csk_ca(sk);

	if (!ccaas_info_wanted(ext))
		return 0;
	return ccaas_info_dctcp_round(sk, info, attr,
				      inet_csk(sk)->icsk_ca_ops != &cca_dctcp_reno_ops,
				      ca->ce_state, READ_ONCE(ca->alpha),
				      &ca->round);
}

static struct tcp_congestion_ops cca_dctcp_ops __read_mostly = {
	.init		= cca_dctcp_init,
	.in_ack_event	= cca_dctcp_in_ack_event,
	.cwnd_event	= cca_dctcp_cwnd_event,
	.ssthresh	= cca_dctcp_ssthresh,
	.cong_avoid	= tcp_reno_cong_avoid,
	.undo_cwnd	= cca_dctcp_undo_cwnd,
	.set_state	= cca_dctcp_set_state,
	.get_info	= cca_dctcp_get_info,
	.min_tso_segs	= ccaas_sock_min_tso_segs,
	.flags		= TCP_CONG_NEEDS_ECN,
	.owner		= THIS_MODULE,
	.name		= CCA_DCTCP_NAME,
};

/* Per policy rule overrides of the module parameters (`ccactl cca show`). */
static const struct ccaas_param_spec cca_dctcp_params[] = {
	[CCA_DCTCP_SHIFT_G] = { .name = "shift_g", .min = 0, .max = CCAAS_ALPHA_SHIFT, .def = 4,
	  .unit = "log2(1/g)" },
	[CCA_DCTCP_ALPHA_ON_INIT] = { .name = "alpha_on_init", .min = 0, .max = CCAAS_ALPHA_ONE,
	  .def = CCAAS_ALPHA_ONE, .unit = "1/1024" },
};

/* Reno for sockets that did not negotiate ECN; see init(). */
static struct tcp_congestion_ops cca_dctcp_reno_ops __read_mostly = {
	.ssthresh	= tcp_reno_ssthresh,
	.cong_avoid	= tcp_reno_cong_avoid,
	.undo_cwnd	= tcp_reno_undo_cwnd,
	.get_info	= cca_dctcp_get_info,
	.min_tso_segs	= ccaas_sock_min_tso_segs,
	.owner		= THIS_MODULE,
	.name		= CCA_DCTCP_NAME "-reno",
};

static struct ccaas_cca cca_dctcp = {
	.ops		= &cca_dctcp_ops,
	.fallback_ops	= &cca_dctcp_reno_ops,
	.params		= cca_dctcp_params,
	.n_params	= ARRAY_SIZE(cca_dctcp_params),
	.version	= CCA_DCTCP_VERSION,
	.features	= CCAAS_CCA_F_NEEDS_ECN | CCAAS_CCA_F_ECN_OK |
			  CCAAS_CCA_F_NONECN_OK,
};

static int __init cca_dctcp_register(void)
{
	BUILD_BUG_ON(sizeof(struct cca_dctcp) > ICSK_CA_PRIV_SIZE);
	return ccaas_cca_register(&cca_dctcp);
}

static void __exit cca_dctcp_unregister(void)
{
	ccaas_cca_unregister(&cca_dctcp);
}

module_init(cca_dctcp_register);
module_exit(cca_dctcp_unregister);

MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("ccaas: DCTCP (cca_dctcp)");
MODULE_ALIAS("tcp_cca_dctcp");
