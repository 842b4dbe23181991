/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the KUnit suites that drive a registered CCA share: its ops, and a
 * bare tcp_sock set up as a fresh connection after the handshake.
 */
#ifndef _CCAAS_KUNIT_CCA_TEST_H
#define _CCAAS_KUNIT_CCA_TEST_H

#include <kunit/test.h>
#include <net/net_namespace.h>
#include <net/tcp.h>

#include <ccaas/ccaas.h>

/* The registered CCA @name; the test stops if there is none. */
static inline const struct ccaas_cca *cca_test_lookup(struct kunit *test,
						      const char *name)
{
	const struct ccaas_cca *cca = ccaas_cca_lookup(name);

	KUNIT_ASSERT_NOT_NULL_MSG(test, cca, "%s is not registered", name);
	return cca;
}

/*
 * @tp as a fresh IPv4 connection in init_net (CCA init asks the
 * namespace's ccalog selection): established, MSS @mss, cwnd @cwnd, no
 * ssthresh yet, nothing sent. The rest is left as it is.
 */
static inline void cca_test_sock_init(struct tcp_sock *tp, u32 mss, u32 cwnd)
{
	struct sock *sk = (struct sock *)tp;

	sk->sk_family = AF_INET;
	sk->sk_type = SOCK_STREAM;
	sk->sk_protocol = IPPROTO_TCP;
	sk->sk_state = TCP_ESTABLISHED;
	write_pnet(&sk->sk_net, &init_net);
	tp->mss_cache = mss;
	tp->snd_ssthresh = TCP_INFINITE_SSTHRESH;
	tp->snd_cwnd_clamp = ~0U;
	tcp_snd_cwnd_set(tp, cwnd);
	tp->snd_una = 1;
	tp->snd_nxt = 1;
}

/* A zeroed tcp_sock the test owns, set up by cca_test_sock_init(). */
static inline struct tcp_sock *cca_test_sock(struct kunit *test, u32 mss,
					     u32 cwnd)
{
	struct tcp_sock *tp = kunit_kzalloc(test, sizeof(*tp), GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, tp);
	cca_test_sock_init(tp, mss, cwnd);
	return tp;
}

#endif /* _CCAAS_KUNIT_CCA_TEST_H */
