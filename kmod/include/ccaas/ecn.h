/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ECN helpers shared by ccaas CCAs: the DCTCP-style estimate of the fraction
 * of CE-marked packets, and the receiver side of accurate CE feedback.
 *
 * alpha is a fixed-point fraction with CCAAS_ALPHA_ONE (1024) meaning "every
 * packet of the round was marked". Once per round it moves towards the
 * round's marked fraction F with gain g = 2^-shift:
 *
 *	alpha <- (1 - g) * alpha + g * F
 *
 * A sender reacting to marks cuts cwnd by alpha / 2 (see ccaas_alpha_cut()).
 */
#ifndef _CCAAS_ECN_H
#define _CCAAS_ECN_H

#include <linux/math64.h>
#include <linux/minmax.h>
#include <net/inet_connection_sock.h>
#include <net/tcp.h>

#define CCAAS_ALPHA_SHIFT	10
#define CCAAS_ALPHA_ONE		1024U	/* 1 << CCAAS_ALPHA_SHIFT */

/*
 * One EWMA step. @delivered and @marked are the round's packet counts;
 * @shift is in [0, CCAAS_ALPHA_SHIFT]. The decay term is rounded so that a
 * small alpha drains to zero instead of sticking at alpha >> shift == 0.
 * @marked << (10 - shift) stays below 2^32 for rounds of under 4 M packets.
 */
static inline u32 ccaas_alpha_update(u32 alpha, u32 delivered, u32 marked,
				     unsigned int shift)
{
	u32 decay = alpha >> shift;

	alpha -= decay ? decay : alpha;
	if (marked) {
		u32 gain = (marked << (CCAAS_ALPHA_SHIFT - shift)) /
			   max(delivered, 1U);

		alpha = min(alpha + gain, CCAAS_ALPHA_ONE);
	}
	return alpha;
}

/*
 * Least packets a connection must have delivered before its own CE fraction
 * seeds alpha (ccaas_alpha_seed()): 100 packets give the fraction a step of
 * 1 %, finer than one EWMA step of a 1/16 gain.
 */
#define CCAAS_ALPHA_SEED_MIN	100U

/*
 * alpha for a CCA's init(). A new connection starts at @init (by default 1,
 * the worst case: the first reaction halves cwnd, as Reno). A connection
 * taken over mid-transfer (a migration, or an application switching its
 * CCA) has a history: the fraction of its delivered packets that were
 * CE-marked, tp->delivered_ce / tp->delivered, which then replaces @init
 * (also one a rule's alpha_on_init set). Starting from 1 instead would cut
 * it by half at the first mark, however few the marks, and it would then
 * take tens of rounds to drain alpha back: a move between ECN CCAs measured
 * a 50 % goodput dip lasting 0.7 s at 50 Mbit/s.
 *
 * The fraction is the connection's whole life's, not its last rounds': a
 * flow unmarked for long and marked now starts low and climbs at the EWMA's
 * gain, as it would have under the CCA it left. With a peer echoing ECE
 * until CWR (RFC 3168), delivered_ce counts every packet an ECE ACK covers,
 * so the seed errs high, towards @init. The counters are u32: past 2^32
 * delivered packets the fraction may be wrong; then either delivered is
 * below the threshold or delivered_ce above delivered, and the result is
 * @init or 1, the behaviour without a seed.
 */
static inline u32 ccaas_alpha_seed(const struct tcp_sock *tp, u32 init)
{
	u32 delivered = tp->delivered;
	u64 ce;

	if (delivered < CCAAS_ALPHA_SEED_MIN)
		return init;
	ce = (u64)min(tp->delivered_ce, delivered) << CCAAS_ALPHA_SHIFT;
	return (u32)div_u64(ce, delivered);
}

/* cwnd after an ECN reduction by alpha / 2, never below 2 packets. */
static inline u32 ccaas_alpha_cut(u32 cwnd, u32 alpha)
{
	return max(cwnd - ((cwnd * alpha) >> (CCAAS_ALPHA_SHIFT + 1)), 2U);
}

/*
 * Receiver side of per-packet CE feedback. With delayed ACKs, the stack
 * would echo ECE for a whole stretch of packets whatever each one carried;
 * a DCTCP receiver instead ACKs at once whenever the CE state of incoming
 * data flips, so the sender can count marked packets exactly.
 *
 * @ce_state and @prior_rcv_nxt live in the CCA's private area; call from
 * cwnd_event() on CA_EVENT_ECN_IS_CE and CA_EVENT_ECN_NO_CE.
 */
static inline void ccaas_ecn_set_demand_cwr(struct tcp_sock *tp, bool ce)
{
	if (ce)
		tp->ecn_flags |= TCP_ECN_DEMAND_CWR;
	else
		tp->ecn_flags &= ~TCP_ECN_DEMAND_CWR;
}

static inline void ccaas_ecn_rcv_ce(struct sock *sk, enum tcp_ca_event ev,
				    u32 *prior_rcv_nxt, u32 *ce_state)
{
	struct inet_connection_sock *icsk = inet_csk(sk);
	struct tcp_sock *tp = tcp_sk(sk);
	u32 ce = ev == CA_EVENT_ECN_IS_CE;

	if (*ce_state != ce) {
		/*
		 * A delayed ACK still covers data of the old state: send it
		 * now with the old echo, then ACK the new state at once.
		 */
		if (icsk->icsk_ack.pending & ICSK_ACK_TIMER) {
			ccaas_ecn_set_demand_cwr(tp, *ce_state);
			ccaas_send_ack(sk, *prior_rcv_nxt);
		}
		icsk->icsk_ack.pending |= ICSK_ACK_NOW;
	}
	*prior_rcv_nxt = tp->rcv_nxt;
	*ce_state = ce;
	ccaas_ecn_set_demand_cwr(tp, ce);
}

#endif /* _CCAAS_ECN_H */
