/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ccaas_listener_on(): is there a listener on a connection's local address
 * and port, in its namespace? The listener lookups took the hash table as
 * an argument until 7.x, which takes the namespace's own.
 */
#ifndef _CCAAS_COMPAT_LISTENER_H
#define _CCAAS_COMPAT_LISTENER_H

#include <linux/err.h>
#include <net/inet_hashtables.h>
#include <net/inet6_hashtables.h>
#include <net/ipv6.h>
#include <net/sock.h>

static inline struct sock *ccaas_lookup_listener4(struct net *net,
						  const struct sock *sk)
{
	return __inet_lookup_listener(net,
#ifdef CCAAS_HAVE_LOOKUP_LISTENER_HASHINFO
				      net->ipv4.tcp_death_row.hashinfo,
#endif
				      NULL, 0, sk->sk_daddr, sk->sk_dport,
				      sk->sk_rcv_saddr, inet_sk(sk)->inet_num,
				      sk->sk_bound_dev_if, 0);
}

#if IS_ENABLED(CONFIG_IPV6)
static inline struct sock *ccaas_lookup_listener6(struct net *net,
						  const struct sock *sk)
{
	return inet6_lookup_listener(net,
#ifdef CCAAS_HAVE_LOOKUP_LISTENER_HASHINFO
				     net->ipv4.tcp_death_row.hashinfo,
#endif
				     NULL, 0, &sk->sk_v6_daddr, sk->sk_dport,
				     &sk->sk_v6_rcv_saddr, inet_sk(sk)->inet_num,
				     sk->sk_bound_dev_if, 0);
}
#endif

/*
 * Under RCU (a listener is looked up without a reference, as the stack
 * does); no skb: a reuseport group answers by hash, as for any lookup
 * without one.
 */
static inline bool ccaas_listener_on(const struct sock *sk)
{
	struct net *net = sock_net(sk);
	struct sock *l;

#if IS_ENABLED(CONFIG_IPV6)
	if (sk->sk_family == AF_INET6 &&
	    !ipv6_addr_v4mapped(&sk->sk_v6_rcv_saddr))
		l = ccaas_lookup_listener6(net, sk);
	else
#endif
		l = ccaas_lookup_listener4(net, sk);
	return !IS_ERR_OR_NULL(l);
}

#endif /* _CCAAS_COMPAT_LISTENER_H */
