/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Cubic window growth shared by ccaas CCAs (RFC 9438).
 *
 * After a reduction from W_max, the window follows a cubic function of the
 * time t since the reduction (the "epoch"):
 *
 *	W(t) = C * (t - K)^3 + W_max		K = cbrt((W_max - cwnd_epoch) / C)
 *
 * cwnd_epoch is the window when growth resumes, so K fits any reduction: a
 * loss cut by beta or a proportional ECN cut. Below W_max the curve is
 * concave (fast, then slower while approaching W_max), it stays flat around
 * W_max, and beyond it turns convex (probing for more). On each ACK the
 * window moves towards W(t + RTT), never by more than half of cwnd per RTT.
 *
 * The TCP-friendly region: W_est estimates what Reno with the same beta
 * would have, growing by 3 (1 - beta) / (1 + beta) packets per window
 * acknowledged; while W_est is above the cubic window, cwnd follows W_est, so
 * the flow never does worse than Reno on short-RTT, small-window paths.
 *
 * Usage by a CCA (struct ccaas_cubic in its private area, zeroed by the core
 * or by ccaas_cubic_reset()):
 *
 *	- congestion avoidance: cwnd += ccaas_cubic_grow(cc, cfg, cwnd, acked,
 *	  now_us, min_rtt_us) (slow start is the caller's, e.g. tcp_slow_start);
 *	- every reduction: target = ccaas_cubic_beta_cwnd(cwnd, beta) (loss) or
 *	  the CCA's own target (ECN), then ccaas_cubic_on_reduction(cc, cfg,
 *	  cwnd, target); the next ccaas_cubic_grow() starts a new epoch;
 *	- optional: ccaas_cubic_idle() when sending restarts after idle,
 *	  ccaas_cubic_undo() when a reduction is undone.
 *
 * Units: windows in packets; times in microseconds of any free-running u32
 * clock (e.g. (u32)tp->tcp_mstamp), compared wrap-safely; C and beta in
 * 1/1024. The cubic is evaluated in fixed point (1/1024 packet, time in
 * 2^-10 s ticks) with multiplications only; divisions happen when the
 * per-ACK increment is recomputed (after cwnd changed, or every
 * CCAAS_CUBIC_RECALC_US), the cube root once per epoch.
 *
 * Fast path cost per ACK: a few compares and additions on this struct.
 */
#ifndef _CCAAS_CUBIC_H
#define _CCAAS_CUBIC_H

#include <linux/bits.h>
#include <linux/compiler.h>
#include <linux/limits.h>
#include <linux/math.h>
#include <linux/math64.h>
#include <linux/minmax.h>
#include <linux/string.h>
#include <linux/time64.h>
#include <linux/types.h>

/* C and beta are fixed-point fractions of CCAAS_CUBIC_ONE. */
#define CCAAS_CUBIC_SHIFT	10
#define CCAAS_CUBIC_ONE		1024U	/* 1 << CCAAS_CUBIC_SHIFT */

/* RFC 9438 defaults: C = 0.4 packets/s^3 (410/1024), beta = 0.7 (717/1024). */
#define CCAAS_CUBIC_C_DEFAULT		410U
#define CCAAS_CUBIC_BETA_DEFAULT	717U

/*
 * Largest C accepted, 8 packets/s^3: keeps c * t^2 of the cube below 2^49.
 * Largest beta, 1023/1024: 1 - beta must stay positive.
 */
#define CCAAS_CUBIC_C_MAX	(8U << CCAAS_CUBIC_SHIFT)
#define CCAAS_CUBIC_BETA_MAX	(CCAAS_CUBIC_ONE - 1)

/* Windows in the cubic are computed in 1/1024 packet. */
#define CCAAS_CUBIC_FRAC_SHIFT	10

/*
 * The cubic's time unit is a tick of 2^-10 s (~1 ms): fine enough, as the
 * curve moves by well under a packet per ms. Microseconds convert to ticks
 * by multiplying by CCAAS_CUBIC_TICK_MULT ~= 2^32 / 10^6 and shifting by
 * 32 - 10 bits.
 */
#define CCAAS_CUBIC_TICK_SHIFT		10
#define CCAAS_CUBIC_TICK_MULT		4295ULL
#define CCAAS_CUBIC_TICK_MULT_SHIFT	(32 - CCAAS_CUBIC_TICK_SHIFT)

/*
 * |t - K| is capped at 250 s (256 000 ticks < 2^18): the cube then fits in
 * 64 bits and s32 microsecond differences never wrap. C * 250^3 is far
 * above any real window, so the cap never limits growth in practice.
 */
#define CCAAS_CUBIC_OFFS_MAX_US		(250U * USEC_PER_SEC)

/* W_max - cwnd larger than 2^23 packets is treated as 2^23 for K (u64). */
#define CCAAS_CUBIC_DIST_MAX	BIT(23)

/*
 * How long a computed per-ACK increment stays valid while cwnd does not
 * change (it is recomputed at once after any change of cwnd): the curve
 * moves by a negligible amount within 1 ms.
 */
#define CCAAS_CUBIC_RECALC_US	USEC_PER_MSEC

/* cnt meaning "the cubic does not grow cwnd now". */
#define CCAAS_CUBIC_NO_GROWTH	U32_MAX

/**
 * struct ccaas_cubic_cfg - constants of one socket's Cubic, built by the CCA
 * @c: C, in 1/1024 packet/s^3, [1, CCAAS_CUBIC_C_MAX]
 * @beta: multiplicative decrease, in 1/1024, [1, CCAAS_CUBIC_BETA_MAX];
 *	sets the slope of the TCP-friendly estimate
 * @fast_convergence: on a reduction below the previous W_max, remember the
 *	midpoint between cwnd and the new target as W_max (release bandwidth
 *	to newer flows sooner)
 * @tcp_friendly: grow at least as fast as Reno would (W_est)
 */
struct ccaas_cubic_cfg {
	u32 c;
	u32 beta;
	u8 fast_convergence;
	u8 tcp_friendly;
};

/**
 * struct ccaas_cubic - per-socket Cubic state, 32 bytes; all zero is valid
 * @t_k: time (us) at which the curve reaches @w_max: epoch start + K
 * @w_max: plateau of the curve, packets (the window before the last
 *	reduction, after fast convergence)
 * @w_est: TCP-friendly (Reno) window estimate, packets; 0 = no epoch yet,
 *	the next ccaas_cubic_grow() starts one
 * @est_cnt: ACKed packets per +1 of @w_est at the current cwnd
 * @est_acked: ACKed packets counted towards the next +1 of @w_est
 * @cnt: ACKed packets per +1 of cwnd on the cubic; 0 = recompute
 * @acked: ACKed packets counted towards the next +1 of cwnd
 * @stamp_us: when @cnt was computed
 */
struct ccaas_cubic {
	u32 t_k;
	u32 w_max;
	u32 w_est;
	u32 est_cnt;
	u32 est_acked;
	u32 cnt;
	u32 acked;
	u32 stamp_us;
};

/* Forget everything: the next ccaas_cubic_grow() starts from its cwnd. */
static inline void ccaas_cubic_reset(struct ccaas_cubic *cc)
{
	memset(cc, 0, sizeof(*cc));
}

/* Integer cube root, rounded down (three bits of @x per result bit). */
static inline u32 ccaas_cubic_cbrt(u64 x)
{
	u64 root = 0;
	int shift;

	for (shift = 63; shift >= 0; shift -= 3) {
		u64 step;

		root <<= 1;
		/* (root + 1)^3 - root^3, the cost of setting this bit */
		step = 3 * root * (root + 1) + 1;
		if ((x >> shift) >= step) {
			x -= step << shift;
			root++;
		}
	}
	return root;
}

/*
 * K in microseconds: how long the curve with constant @c takes to climb from
 * @cwnd back to @w_max. 0 when @cwnd is already at or above @w_max.
 */
static inline u32 ccaas_cubic_k_us(u32 c, u32 w_max, u32 cwnd)
{
	u64 dist, ticks;

	if (cwnd >= w_max)
		return 0;
	dist = min_t(u32, w_max - cwnd, CCAAS_CUBIC_DIST_MAX);
	/* K^3 = dist / C seconds^3 = dist * 2^40 / c ticks^3 */
	ticks = ccaas_cubic_cbrt(div_u64(dist << (3 * CCAAS_CUBIC_TICK_SHIFT +
						  CCAAS_CUBIC_SHIFT),
					 clamp(c, 1U, CCAAS_CUBIC_C_MAX)));
	/* round up, so that converting back to ticks gives the same K */
	return min_t(u64, DIV_ROUND_UP_ULL(ticks * USEC_PER_SEC,
					   1U << CCAAS_CUBIC_TICK_SHIFT),
		     CCAAS_CUBIC_OFFS_MAX_US);
}

/*
 * The curve at @offs_us from the plateau (negative: before reaching W_max),
 * in 1/1024 packet: (w_max << 10) +/- c * t^3, t in ticks, never below 0.
 */
static inline u64 ccaas_cubic_window_fp(u32 c, u32 w_max, s32 offs_us)
{
	u64 t = offs_us < 0 ? -(s64)offs_us : offs_us;
	u64 plateau = (u64)w_max << CCAAS_CUBIC_FRAC_SHIFT;
	u64 delta;

	t = min_t(u64, t, CCAAS_CUBIC_OFFS_MAX_US);
	t = (t * CCAAS_CUBIC_TICK_MULT) >> CCAAS_CUBIC_TICK_MULT_SHIFT;
	c = clamp(c, 1U, CCAAS_CUBIC_C_MAX);
	/*
	 * C * t^3 packets with C = c / 2^10 and t in 2^-10 s is
	 * c * t^3 / 2^40 packets, i.e. c * t^3 >> 30 in 1/1024 packet;
	 * shifted in two steps so that no product exceeds 2^57.
	 */
	delta = (((c * t * t) >> CCAAS_CUBIC_SHIFT) * t) >>
		(3 * CCAAS_CUBIC_TICK_SHIFT - CCAAS_CUBIC_FRAC_SHIFT);
	if (offs_us >= 0)
		return plateau + delta;
	return plateau > delta ? plateau - delta : 0;
}

/* The curve at @offs_us from the plateau, in whole packets. */
static inline u32 ccaas_cubic_window(u32 c, u32 w_max, s32 offs_us)
{
	return min_t(u64, ccaas_cubic_window_fp(c, w_max, offs_us) >>
		     CCAAS_CUBIC_FRAC_SHIFT, U32_MAX);
}

/* cwnd after a loss: @cwnd * @beta / 1024, at least 2 packets. */
static inline u32 ccaas_cubic_beta_cwnd(u32 cwnd, u32 beta)
{
	return max_t(u32, ((u64)cwnd * beta) >> CCAAS_CUBIC_SHIFT, 2U);
}

/*
 * A reduction from @cwnd to @target (any cause): record the plateau and end
 * the epoch. The next ccaas_cubic_grow() starts a new one from the window
 * it sees then, with K fitting the distance to W_max.
 */
static inline void ccaas_cubic_on_reduction(struct ccaas_cubic *cc,
					    const struct ccaas_cubic_cfg *cfg,
					    u32 cwnd, u32 target)
{
	if (cfg->fast_convergence && cwnd < cc->w_max && target < cwnd)
		cc->w_max = cwnd - (cwnd - target) / 2;
	else
		cc->w_max = cwnd;
	cc->w_est = 0;
}

/* A reduction was undone: back to the plateau it replaced, new epoch. */
static inline void ccaas_cubic_undo(struct ccaas_cubic *cc, u32 w_max)
{
	cc->w_max = w_max;
	cc->w_est = 0;
}

/*
 * Sending restarts after @idle_us without data in flight: shift the curve
 * by the idle time, so the window does not leap for time spent not sending.
 */
static inline void ccaas_cubic_idle(struct ccaas_cubic *cc, u32 idle_us)
{
	if (!cc->w_est)
		return;
	if (idle_us >= CCAAS_CUBIC_OFFS_MAX_US) {
		cc->w_est = 0;	/* idle for minutes: start afresh */
		return;
	}
	cc->t_k += idle_us;
	cc->cnt = 0;
}

/* Start an epoch at @now_us with @cwnd as the window after the reduction. */
static inline void ccaas_cubic_epoch_start(struct ccaas_cubic *cc,
					   const struct ccaas_cubic_cfg *cfg,
					   u32 cwnd, u32 now_us)
{
	if (cwnd >= cc->w_max) {
		/* above the old plateau (or none): convex from here */
		cc->w_max = cwnd;
		cc->t_k = now_us;
	} else {
		cc->t_k = now_us + ccaas_cubic_k_us(cfg->c, cc->w_max, cwnd);
	}
	cc->w_est = max(cwnd, 1U);
	cc->est_acked = 0;
	cc->acked = 0;
	cc->cnt = 0;
}

/*
 * Recompute the per-ACK increments for @cwnd. The cubic's target is the
 * curve one RTT ahead, capped at 1.5 * cwnd; cnt ACKed packets then add one
 * packet to cwnd. In the TCP-friendly region cwnd instead closes the gap to
 * W_est, at the same pace limit.
 */
static inline void ccaas_cubic_update(struct ccaas_cubic *cc,
				      const struct ccaas_cubic_cfg *cfg,
				      u32 cwnd, u32 now_us, u32 rtt_us)
{
	u64 cwnd_fp = (u64)cwnd << CCAAS_CUBIC_FRAC_SHIFT;
	s32 offs = (s32)(now_us + rtt_us - cc->t_k);
	u32 beta = clamp(cfg->beta, 1U, CCAAS_CUBIC_BETA_MAX);
	u64 target;
	u32 cnt;

	if (offs > (s32)CCAAS_CUBIC_OFFS_MAX_US) {
		/* a very long epoch: keep t - K within the s32 range */
		cc->t_k = now_us + rtt_us - CCAAS_CUBIC_OFFS_MAX_US;
		offs = CCAAS_CUBIC_OFFS_MAX_US;
	}
	cc->stamp_us = now_us;

	target = ccaas_cubic_window_fp(cfg->c, cc->w_max, offs);
	target = min(target, cwnd_fp + (cwnd_fp >> 1));
	if (target > cwnd_fp)
		cnt = clamp_t(u64, div64_u64(cwnd_fp, target - cwnd_fp),
			      2, CCAAS_CUBIC_NO_GROWTH - 1);
	else
		cnt = CCAAS_CUBIC_NO_GROWTH;

	/*
	 * ACKed packets per +1 of W_est: cwnd / alpha_aimd, with alpha_aimd =
	 * 3 (1 - beta) / (1 + beta). Kept even while TCP friendliness is off,
	 * so that turning it on at run time finds a valid value.
	 */
	cc->est_cnt = clamp_t(u64, div_u64((u64)cwnd * (CCAAS_CUBIC_ONE + beta),
					   3 * (CCAAS_CUBIC_ONE - beta)),
			      1, U32_MAX);
	if (cfg->tcp_friendly && cc->w_est > cwnd)
		cnt = min(cnt, max(cwnd / (cc->w_est - cwnd), 2U));
	cc->cnt = cnt;
}

/*
 * Ready @cc for this ACK's ccaas_cubic_count(): start an epoch if none is
 * under way, and recompute the per-ACK increments when cwnd changed or
 * they are CCAAS_CUBIC_RECALC_US old. Arguments as for ccaas_cubic_grow().
 */
static inline void ccaas_cubic_prepare(struct ccaas_cubic *cc,
				       const struct ccaas_cubic_cfg *cfg,
				       u32 cwnd, u32 now_us, u32 rtt_us)
{
	if (unlikely(!cc->w_est))
		ccaas_cubic_epoch_start(cc, cfg, cwnd, now_us);
	if (!cc->cnt || now_us - cc->stamp_us >= CCAAS_CUBIC_RECALC_US)
		ccaas_cubic_update(cc, cfg, cwnd, now_us, rtt_us);
}

/*
 * Would ccaas_cubic_prepare() at @now_us leave @cc as it is? Then a CCA's
 * per-ACK fast path can go straight to ccaas_cubic_count(), and keep the
 * evaluation of the curve (divisions, the cube root) out of line.
 */
static inline bool ccaas_cubic_prepared(const struct ccaas_cubic *cc,
					u32 now_us)
{
	return cc->w_est && cc->cnt &&
	       now_us - cc->stamp_us < CCAAS_CUBIC_RECALC_US;
}

/*
 * The per-ACK part of ccaas_cubic_grow(), on a state ccaas_cubic_prepare()
 * readied: count @acked packets towards the next increments of cwnd and of
 * W_est. Return: packets to add to cwnd.
 */
static inline u32 ccaas_cubic_count(struct ccaas_cubic *cc,
				    const struct ccaas_cubic_cfg *cfg,
				    u32 cwnd, u32 acked)
{
	u32 grow = 0;

	/* ACKs while the window should not grow earn no credit for later */
	if (cc->cnt != CCAAS_CUBIC_NO_GROWTH) {
		cc->acked += acked;
		if (cc->acked >= cc->cnt) {
			grow = cc->acked / cc->cnt;
			cc->acked -= grow * cc->cnt;
			cc->cnt = 0;	/* cwnd changes: recompute next ACK */
		}
	}

	/* Reno's window grows by alpha_aimd per window of ACKed packets. */
	cc->est_acked += acked;
	if (cc->est_acked >= cc->est_cnt) {
		u32 n = cc->est_acked / cc->est_cnt;

		cc->w_est += n;
		cc->est_acked -= n * cc->est_cnt;
		if (cfg->tcp_friendly && cc->w_est > cwnd)
			cc->cnt = 0;	/* the Reno pace may now be faster */
	}
	return grow;
}

/**
 * ccaas_cubic_grow() - congestion-avoidance growth for one ACK
 * @cc: the socket's state
 * @cfg: the socket's constants
 * @cwnd: current cwnd, packets (at or above ssthresh)
 * @acked: packets newly acknowledged by this ACK (>= 1)
 * @now_us: current time, us (e.g. (u32)tp->tcp_mstamp)
 * @rtt_us: minimum RTT, us (0 if unknown): the curve is followed one RTT
 *	ahead, as growth takes effect a round trip later
 *
 * Return: packets to add to cwnd; 0 on most ACKs. At most one packet per
 * two ACKed (counting those left over from earlier ACKs), so cwnd grows by
 * at most 50 % per RTT. The caller applies it and any clamp.
 */
static inline u32 ccaas_cubic_grow(struct ccaas_cubic *cc,
				   const struct ccaas_cubic_cfg *cfg,
				   u32 cwnd, u32 acked, u32 now_us, u32 rtt_us)
{
	ccaas_cubic_prepare(cc, cfg, cwnd, now_us, rtt_us);
	return ccaas_cubic_count(cc, cfg, cwnd, acked);
}

#endif /* _CCAAS_CUBIC_H */
