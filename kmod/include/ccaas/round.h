/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Per-RTT round detection shared by ccaas CCAs.
 *
 * A round starts when a CCA samples the stack's counters and ends once every
 * byte sent before that moment has been acknowledged (snd_una passes the
 * snd_nxt recorded at the start). Over a round the CCA learns how many
 * packets were delivered and how many of those carried a CE mark, from the
 * stack's own tp->delivered and tp->delivered_ce counters.
 *
 * Static inline: the check runs on every ACK and must cost a compare.
 */
#ifndef _CCAAS_ROUND_H
#define _CCAAS_ROUND_H

#include <net/tcp.h>

/*
 * Signals a CCA notes as they happen and reads once per round (also what
 * ccalog reports per round trip).
 */
enum {
	CCAAS_ROUND_LOSS	= 1 << 0,	/* entered Recovery or Loss */
	CCAAS_ROUND_ECE		= 1 << 1,	/* an ACK carried ECE */
	CCAAS_ROUND_TX_START	= 1 << 2,	/* sending restarted after idle */
	CCAAS_ROUND_SSTHRESH	= 1 << 3,	/* the stack asked for ssthresh */
};

struct ccaas_round {
	u32 end_seq;		/* the round ends when snd_una reaches this */
	u32 delivered;		/* tp->delivered at the start of the round */
	u32 delivered_ce;	/* tp->delivered_ce at the start of the round */
	u32 flags;		/* CCAAS_ROUND_* seen during the round */
};

/* Start a round: everything sent so far must be acknowledged to end it. */
static inline void ccaas_round_start(struct ccaas_round *r,
				     const struct tcp_sock *tp)
{
	r->end_seq = tp->snd_nxt;
	r->delivered = tp->delivered;
	r->delivered_ce = tp->delivered_ce;
	r->flags = 0;
}

/* Record a CCAAS_ROUND_* signal for the current round. */
static inline void ccaas_round_note(struct ccaas_round *r, u32 flag)
{
	r->flags |= flag;
}

/* True once the ACK that moved snd_una has closed the round. */
static inline bool ccaas_round_over(const struct ccaas_round *r,
				    const struct tcp_sock *tp)
{
	return !before(tp->snd_una, r->end_seq);
}

/* Packets delivered, and CE-marked packets delivered, so far in the round. */
static inline u32 ccaas_round_delivered(const struct ccaas_round *r,
					const struct tcp_sock *tp)
{
	return tp->delivered - r->delivered;
}

static inline u32 ccaas_round_delivered_ce(const struct ccaas_round *r,
					   const struct tcp_sock *tp)
{
	return tp->delivered_ce - r->delivered_ce;
}

#endif /* _CCAAS_ROUND_H */
