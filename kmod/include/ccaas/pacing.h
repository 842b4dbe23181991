/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Pacing for CCAs that use cong_control.
 *
 * For other CCAs the stack sets sk->sk_pacing_rate after every ACK to a
 * multiple of cwnd * mss / srtt (tcp_update_pacing_rate(), 200 % in slow
 * start and 120 % otherwise, net.ipv4.tcp_pacing_{ss,ca}_ratio). It skips
 * that for a CCA with cong_control, and the function is not exported: such
 * a CCA sets the rate itself, and asks the stack to pace at all, as the
 * stack only paces on its own (without the fq qdisc) when asked to.
 *
 * The rate of one packet of cwnd per smoothed RTT, mss * USEC_PER_SEC /
 * srtt, costs a 64-bit division: ccaas_pacing_unit() computes it, once per
 * round; ccaas_pacing_set() then multiplies it by cwnd and a gain on every
 * ACK. Gains are in percent, like the stack's sysctls.
 */
#ifndef _CCAAS_PACING_H
#define _CCAAS_PACING_H

#include <linux/atomic.h>
#include <linux/math64.h>
#include <linux/minmax.h>
#include <net/sock.h>
#include <net/tcp.h>

/* Pacing gains are in percent: 100 paces at exactly cwnd per srtt. */
#define CCAAS_PACING_GAIN_ONE	100U
/* Largest gain ccaas_pacing_set() takes (10x), so its product fits in 64 bits. */
#define CCAAS_PACING_GAIN_MAX	1000U
/* Above this many bytes/s (2^54, ~144 Pbit/s) the rate is "unlimited". */
#define CCAAS_PACING_RATE_BITS	54

/*
 * Ask the stack to pace the socket (from init()): with SK_PACING_NEEDED,
 * TCP paces by itself unless the fq qdisc does it (SK_PACING_FQ).
 */
static inline void ccaas_pacing_request(struct sock *sk)
{
	cmpxchg(&sk->sk_pacing_status, SK_PACING_NONE, SK_PACING_NEEDED);
}

/*
 * Bytes per second of one packet of cwnd per smoothed RTT; 0 before the
 * first RTT sample. One 64-bit division: call once per round.
 */
static inline u32 ccaas_pacing_unit(const struct tcp_sock *tp)
{
	u64 unit;

	/* srtt_us holds 8 * srtt: scale the numerator to match. */
	if (!tp->srtt_us)
		return 0;
	unit = div_u64((u64)tp->mss_cache * USEC_PER_SEC << 3, tp->srtt_us);
	return min_t(u64, unit, U32_MAX);
}

/* @cwnd packets per srtt at @unit bytes/s each, as bytes per second. */
static inline u64 ccaas_pacing_cwnd_rate(u32 unit, u32 cwnd)
{
	return (u64)unit * cwnd;
}

/*
 * Pace at @gain_pct percent of @cwnd packets per srtt (@unit from
 * ccaas_pacing_unit()), never above SO_MAX_PACING_RATE. Without an RTT
 * sample yet (@unit 0) the rate is left as it is.
 */
static inline void ccaas_pacing_set(struct sock *sk, u32 unit, u32 cwnd,
				    u32 gain_pct)
{
	u64 rate = ccaas_pacing_cwnd_rate(unit, cwnd);

	if (!unit)
		return;
	gain_pct = min(gain_pct, CCAAS_PACING_GAIN_MAX);
	if (unlikely(rate >> CCAAS_PACING_RATE_BITS))
		rate = U64_MAX;
	else
		rate = div_u64(rate * gain_pct, CCAAS_PACING_GAIN_ONE);
	/* sch_fq reads the rate without the socket lock. */
	WRITE_ONCE(sk->sk_pacing_rate,
		   min_t(u64, rate, READ_ONCE(sk->sk_max_pacing_rate)));
}

#endif /* _CCAAS_PACING_H */
