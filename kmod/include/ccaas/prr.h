/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Proportional Rate Reduction (RFC 6937) for CCAs that use cong_control.
 *
 * The stack brings cwnd down to ssthresh with PRR only for CCAs without
 * cong_control (tcp_cwnd_reduction() is not exported either), so a
 * cong_control CCA that wants a smooth reduction brings its own. Cutting
 * cwnd at once to the target would stop sending until the flight drains;
 * PRR instead spreads the cut over the round trip that follows: for every
 * packet delivered, it lets out target / cwnd_at_start packets while the
 * flight is above the target, and refills up to the target as fast as
 * packets are delivered once it is below (the slow-start reduction bound).
 * After one round trip of ACKs (about cwnd_at_start packets delivered) the
 * flight, and cwnd, are at the target.
 *
 * Where this differs from the stack's PRR:
 *  - it counts from the stack's own counters, tp->delivered (acked and
 *    SACKed packets) and tp->data_segs_out (data segments sent, including
 *    retransmissions), so it needs no hook on the send path;
 *  - the target / cwnd ratio is computed once, in ccaas_prr_start(), as a
 *    fixed-point fraction: an ACK costs a multiplication, not a division;
 *  - the slow-start bound omits the stack's extra packet when snd_una
 *    advanced without new losses (FLAG_SND_UNA_ADVANCED is private to
 *    tcp_input.c).
 * Like the stack's, it lets one packet out before anything has been sent
 * in the reduction, so that a fast retransmit is never held back.
 *
 * Usage: ccaas_prr_start() when the reduction begins, then on every ACK
 * tcp_snd_cwnd_set(tp, ccaas_prr_cwnd(...)) until the CCA ends it (at
 * which point it usually sets cwnd to the target).
 */
#ifndef _CCAAS_PRR_H
#define _CCAAS_PRR_H

#include <linux/bits.h>
#include <linux/math64.h>
#include <linux/minmax.h>
#include <net/tcp.h>

/* Scale of struct ccaas_prr.ratio: 1 << 16 means "no reduction". */
#define CCAAS_PRR_SHIFT		16
#define CCAAS_PRR_ONE		BIT(CCAAS_PRR_SHIFT)

/**
 * struct ccaas_prr - one reduction in progress
 * @target: cwnd at the end of the reduction, packets
 * @ratio: @target / cwnd at the start, in 1/CCAAS_PRR_ONE
 * @delivered: tp->delivered at the start
 * @sent: tp->data_segs_out at the start
 */
struct ccaas_prr {
	u32 target;
	u32 ratio;
	u32 delivered;
	u32 sent;
};

/*
 * Begin a reduction from the current cwnd to @target packets. A target
 * above cwnd (a shallower reduction replacing a deeper one in progress) is
 * simply refilled to. One division, here and not per ACK.
 */
static inline void ccaas_prr_start(struct ccaas_prr *p,
				   const struct tcp_sock *tp, u32 target)
{
	u32 cwnd = max(tcp_snd_cwnd(tp), 1U);

	p->target = target;
	p->ratio = min_t(u64, div_u64((u64)target << CCAAS_PRR_SHIFT, cwnd),
			 U32_MAX);
	p->delivered = tp->delivered;
	p->sent = tp->data_segs_out;
}

/*
 * The cwnd the reduction started from, recovered from the ratio (exact for
 * small windows, within a few packets of 10^5): for a rare event, such as
 * a deeper reduction replacing this one, not for every ACK.
 */
static inline u32 ccaas_prr_start_cwnd(const struct ccaas_prr *p)
{
	if (!p->ratio)
		return p->target;
	return div_u64((u64)p->target << CCAAS_PRR_SHIFT, p->ratio);
}

/*
 * The cwnd this ACK allows: what is in flight plus what may be sent now.
 * @acked: packets newly acked or SACKed by this ACK (rs->acked_sacked).
 */
static inline u32 ccaas_prr_cwnd(const struct ccaas_prr *p,
				 const struct tcp_sock *tp, u32 acked)
{
	u32 in_flight = tcp_packets_in_flight(tp);
	u32 delivered = tp->delivered - p->delivered;
	u32 sent = tp->data_segs_out - p->sent;
	u32 sndcnt;

	if (in_flight > p->target) {
		/* Proportional part: send target/cwnd of what was delivered. */
		u32 allowed = ((u64)delivered * p->ratio + CCAAS_PRR_ONE - 1) >>
			      CCAAS_PRR_SHIFT;

		sndcnt = allowed > sent ? allowed - sent : 0;
	} else {
		/* Below the target: refill it, no faster than deliveries. */
		u32 owed = delivered > sent ? delivered - sent : 0;

		sndcnt = min(p->target - in_flight, max(owed, acked));
	}
	/* Nothing sent yet in this reduction: let a retransmission out. */
	if (!sent)
		sndcnt = max(sndcnt, 1U);
	return in_flight + sndcnt;
}

#endif /* _CCAAS_PRR_H */
