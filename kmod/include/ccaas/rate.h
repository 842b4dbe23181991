/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the stack measures, read the same way by every ccaas CCA: delivery
 * rate and minimum RTT.
 *
 * The stack's rate sampler (tcp_rate.c) leaves, after each ACK, the packets
 * delivered over the sampling interval in tp->rate_delivered and the
 * interval in tp->rate_interval_us. The rate costs a 64-bit division: call
 * it once per round, not per ACK.
 */
#ifndef _CCAAS_RATE_H
#define _CCAAS_RATE_H

#include <linux/math64.h>
#include <net/tcp.h>

/* Delivery rate of the latest sample, bytes per second; 0 if none yet. */
static inline u64 ccaas_delivery_rate(const struct tcp_sock *tp)
{
	u32 interval_us = tp->rate_interval_us;

	if (!interval_us)
		return 0;
	return div_u64((u64)tp->rate_delivered * tp->mss_cache * USEC_PER_SEC,
		       interval_us);
}

/* Minimum RTT seen over the stack's windowed filter, us; ~0U if none. */
static inline u32 ccaas_min_rtt_us(const struct tcp_sock *tp)
{
	return tcp_min_rtt(tp);
}

/* Smoothed RTT, us (the stack keeps it scaled by 8). */
static inline u32 ccaas_srtt_us(const struct tcp_sock *tp)
{
	return tp->srtt_us >> 3;
}

#endif /* _CCAAS_RATE_H */
