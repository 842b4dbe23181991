/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The core's part of a ccaas CCA's private area.
 *
 * Every ccaas CCA puts a struct ccaas_sock first in its private struct.
 * When the core puts a socket on the CCA (selector or migration), it zeroes
 * the private area and fills this header from the policy rule before the
 * CCA's init() runs: the rule's generation, the cross-layer knobs that need
 * the CCA's cooperation (initial cwnd, TSO floor) and per-rule parameter
 * values. When an application chose the CCA itself the header stays zero,
 * which means "module defaults".
 */
#ifndef _CCAAS_SOCK_H_
#define _CCAAS_SOCK_H_

#include <net/inet_connection_sock.h>
#include <net/tcp.h>

/* Parameters a rule can set per socket (a CCA's schema may be longer). */
#define CCAAS_SOCK_PARAMS	4

/**
 * struct ccaas_sock - core-owned head of a ccaas CCA's private area
 * @generation: policy generation whose rule put the socket here, 0 if none
 * @init_cwnd: initial cwnd in packets, 0 for the kernel's
 * @tso_segs: TSO segment floor, 0 for net.ipv4.tcp_min_tso_segs
 * @param_set: bit i set when @params[i] holds a rule's value
 * @logged: ccalog reports this connection (<ccaas/log.h>); the core sets
 *	and clears it with the socket owned, the CCA reads it once per round
 * @rto_set: the core wrote the socket's minimum RTO (a rule's min_rto); a
 *	move to a rule without one gives the kernel's floor back
 * @params: values of the CCA's first CCAAS_SOCK_PARAMS schema parameters
 * @ext: the CCA's extension state (ccaas_ext_alloc()), or NULL
 */
struct ccaas_sock {
	u32 generation;
	u16 init_cwnd;
	u8 tso_segs;
	u8 param_set:CCAAS_SOCK_PARAMS;
	u8 logged:1;
	u8 rto_set:1;
	u32 params[CCAAS_SOCK_PARAMS];
	void *ext;
};

static inline struct ccaas_sock *ccaas_sock(const struct sock *sk)
{
	return inet_csk_ca(sk);
}

/* The CCA's extension state; the CCA allocated it in init(). */
static inline void *ccaas_sock_ext(const struct sock *sk)
{
	return ccaas_sock(sk)->ext;
}

/* Parameter @i of the CCA's schema: the rule's value, else @def. */
static inline u32 ccaas_sock_param(const struct sock *sk, unsigned int i,
				   u32 def)
{
	const struct ccaas_sock *cs = ccaas_sock(sk);

	if (i < CCAAS_SOCK_PARAMS && (cs->param_set & (1U << i)))
		return cs->params[i];
	return def;
}

/*
 * For the CCA's init(): start a connection that has not sent data yet with
 * the rule's initial window. A socket migrated mid-connection keeps its cwnd.
 */
static inline void ccaas_sock_start(struct sock *sk)
{
	const struct ccaas_sock *cs = ccaas_sock(sk);
	struct tcp_sock *tp = tcp_sk(sk);

	if (cs->init_cwnd && !tp->data_segs_out)
		tcp_snd_cwnd_set(tp, cs->init_cwnd);
}

/* For the CCA's min_tso_segs(): the rule's floor, else the sysctl. */
static inline u32 ccaas_sock_min_tso_segs(struct sock *sk)
{
	const struct ccaas_sock *cs = ccaas_sock(sk);

	return cs->tso_segs ?:
	       READ_ONCE(sock_net(sk)->ipv4.sysctl_tcp_min_tso_segs);
}

#endif /* _CCAAS_SOCK_H_ */
