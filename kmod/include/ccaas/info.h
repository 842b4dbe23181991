/* SPDX-License-Identifier: GPL-2.0 */
/*
 * get_info() for ccaas CCAs, in the DCTCP info layout.
 *
 * Stock `ss -ti` asks for INET_DIAG_VEGASINFO only and prints a DCTCP
 * answer as dctcp:(ce_state:..,alpha:..,ab_ecn:..,ab_tot:..), or as
 * dctcp:fallback_mode when the CCA says it is not enabled; answering the
 * VEGAS request with the DCTCP layout is what the in-tree dctcp does too.
 * Each CCA documents what it puts in the four fields.
 */
#ifndef _CCAAS_INFO_H
#define _CCAAS_INFO_H

#include <linux/inet_diag.h>
#include <net/tcp.h>

#include <ccaas/round.h>

/* Did the caller ask for an answer we give? */
static inline bool ccaas_info_wanted(u32 ext)
{
	return ext & ((1 << (INET_DIAG_DCTCPINFO - 1)) |
		      (1 << (INET_DIAG_VEGASINFO - 1)));
}

static inline size_t ccaas_info_dctcp(union tcp_cc_info *info, int *attr,
				      bool enabled, u32 ce_state, u32 alpha,
				      u32 ab_ecn, u32 ab_tot)
{
	memset(&info->dctcp, 0, sizeof(info->dctcp));
	if (enabled) {
		info->dctcp.dctcp_enabled = 1;
		info->dctcp.dctcp_ce_state = ce_state;
		info->dctcp.dctcp_alpha = alpha;
		info->dctcp.dctcp_ab_ecn = ab_ecn;
		info->dctcp.dctcp_ab_tot = ab_tot;
	}
	*attr = INET_DIAG_DCTCPINFO;
	return sizeof(info->dctcp);
}

/* The common case: ab_ecn and ab_tot are the round in progress, in bytes. */
static inline size_t ccaas_info_dctcp_round(const struct sock *sk,
					    union tcp_cc_info *info, int *attr,
					    bool enabled, u32 ce_state,
					    u32 alpha,
					    const struct ccaas_round *round)
{
	const struct tcp_sock *tp = tcp_sk(sk);

	return ccaas_info_dctcp(info, attr, enabled, ce_state, alpha,
				tp->mss_cache * ccaas_round_delivered_ce(round, tp),
				tp->mss_cache * ccaas_round_delivered(round, tp));
}

#endif /* _CCAAS_INFO_H */
