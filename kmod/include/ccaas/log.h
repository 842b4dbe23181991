/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ccalog for CCAs: what a ccaas CCA calls to report its state once per
 * round trip through the core's ccalog tracepoints.
 *
 * Which connections are logged is decided outside the data path: userspace
 * (`ccactl log add`) gives the core socket cookies, or "all"; the core sets
 * the logged bit in the socket's struct ccaas_sock header, on live sockets
 * at once and on new ones when their CCA initialises (ccaas_log_init()).
 * The data path reads that one bit, once per round, at the round's end:
 *
 *	if (ccaas_round_over(&ca->round, tp)) {
 *		... the CCA's per-round work ...
 *		ccaas_log_rtt(sk, &ca->round, ca->alpha, 0, 0);
 *		ccaas_round_start(&ca->round, tp);
 *	}
 *
 * Nothing is evaluated per ACK, and a connection that is not logged costs
 * that one test per round. Building with CCAAS_NO_CCALOG defined removes
 * the calls (used by the benchmark to measure what they cost).
 */
#ifndef _CCAAS_LOG_H
#define _CCAAS_LOG_H

#include <net/tcp.h>

#include <ccaas/round.h>
#include <ccaas/sock.h>

/* ecn_alpha of a CCA that keeps none. */
#define CCAAS_LOG_NO_ALPHA	U32_MAX
/* util of a CCA that estimates no utilisation. */
#define CCAAS_LOG_NO_UTIL	U32_MAX

/*
 * Core (ccaas_core.ko). ccaas_log_init() is for every ccaas CCA's init():
 * it decides whether the connection is logged and, if so, emits
 * ccalog_init. __ccaas_log_rtt() emits ccalog_rtt; call it through
 * ccaas_log_rtt().
 */
void ccaas_log_init(struct sock *sk);
void __ccaas_log_rtt(struct sock *sk, const struct ccaas_round *r,
		     u32 alpha, u32 target_us, u32 state, u32 util,
		     u32 ref_cwnd);

/* Is @sk selected for ccalog? One load and test. */
static inline bool ccaas_logged(const struct sock *sk)
{
#ifdef CCAAS_NO_CCALOG
	return false;
#else
	return unlikely(ccaas_sock(sk)->logged);
#endif
}

/*
 * Note a round signal that only ccalog reports (the CCA itself does not
 * use it); compiled out with CCAAS_NO_CCALOG like the calls.
 */
static inline void ccaas_log_note(struct ccaas_round *r, u32 flag)
{
#ifndef CCAAS_NO_CCALOG
	ccaas_round_note(r, flag);
#endif
}

/**
 * ccaas_log_rtt - report the round @r that just ended, if @sk is logged
 * @sk: the socket, owned by the caller (the stack's ACK path)
 * @r: the round, before ccaas_round_start() resets it
 * @alpha: the CCA's ECN alpha in 1/1024, or CCAAS_LOG_NO_ALPHA
 * @target_us: the CCA's delay target in microseconds, 0 if it has none
 * @state: the CCA's own state (its documented numbering), 0 if none
 */
static inline void ccaas_log_rtt(struct sock *sk, const struct ccaas_round *r,
				 u32 alpha, u32 target_us, u32 state)
{
	if (ccaas_logged(sk))
		__ccaas_log_rtt(sk, r, alpha, target_us, state,
				CCAAS_LOG_NO_UTIL, 0);
}

/*
 * The same for a CCA that also estimates the path's utilisation: @util in
 * 1/1024 (1024 = the bottleneck exactly full), @ref_cwnd its reference
 * window in packets.
 */
static inline void ccaas_log_rtt_util(struct sock *sk,
				      const struct ccaas_round *r, u32 alpha,
				      u32 target_us, u32 state, u32 util,
				      u32 ref_cwnd)
{
	if (ccaas_logged(sk))
		__ccaas_log_rtt(sk, r, alpha, target_us, state, util, ref_cwnd);
}

#endif /* _CCAAS_LOG_H */
