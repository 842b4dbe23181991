/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The ccalog tracepoints (trace system "ccalog"), defined here once for
 * the core and every ccaas CCA:
 *
 *   ccalog_init    a logged connection's metadata: when its CCA initialises,
 *                  and when `ccactl log add` selects a live connection
 *   ccalog_rtt     a logged connection's state at the end of each round trip
 *   ccalog_switch  the selector, the migrator or `cca drain` moved a socket
 *                  to another CCA (every move, logged connection or not)
 *
 * Every field but the names and the printable addresses is a number, so
 * trace-cmd filters work on them: -f 'dport==5201', -f 'cookie==4097',
 * -f 'daddr==0x0a000002' (IPv4 addresses are host-order numbers; IPv6
 * ones are only printed). docs/ccalog.md lists the fields with units.
 */
#undef TRACE_SYSTEM
#define TRACE_SYSTEM ccalog

#if !defined(_CCALOG_TRACE_H) || defined(TRACE_HEADER_MULTI_READ)
#define _CCALOG_TRACE_H

#include <linux/in6.h>
#include <linux/tracepoint.h>
#include <net/ipv6.h>
#include <net/sock.h>
#include <net/tcp.h>

#include <ccaas/rate.h>
#include <ccaas/round.h>

#include "sock.h"		/* CCALOG_SWITCH_* */

#ifndef _CCALOG_TRACE_ONCE
#define _CCALOG_TRACE_ONCE
/*
 * The addressing fields every event starts with: cookie, family, ports,
 * IPv4 addresses as numbers and both ends as sockaddrs for printing.
 */
static inline void ccalog_store_addrs(const struct sock *sk, u16 *family,
				      u16 *sport, u16 *dport, u32 *saddr,
				      u32 *daddr, void *src, void *dst)
{
	const struct inet_sock *inet = inet_sk(sk);
	struct sockaddr_in6 *s6 = src, *d6 = dst;
	struct sockaddr_in *s4 = src, *d4 = dst;

	*family = sk->sk_family;
	*sport = ntohs(inet->inet_sport);
	*dport = ntohs(sk->sk_dport);
	*saddr = ntohl(sk->sk_rcv_saddr);
	*daddr = ntohl(sk->sk_daddr);
	memset(src, 0, sizeof(struct sockaddr_in6));
	memset(dst, 0, sizeof(struct sockaddr_in6));
#if IS_ENABLED(CONFIG_IPV6)
	if (sk->sk_family == AF_INET6) {
		/* IPv4 numbers only for an IPv4 peer (v4-mapped addresses). */
		if (!ipv6_addr_v4mapped(&sk->sk_v6_daddr)) {
			*saddr = 0;
			*daddr = 0;
		}
		s6->sin6_family = AF_INET6;
		s6->sin6_port = inet->inet_sport;
		s6->sin6_addr = sk->sk_v6_rcv_saddr;
		d6->sin6_family = AF_INET6;
		d6->sin6_port = sk->sk_dport;
		d6->sin6_addr = sk->sk_v6_daddr;
		return;
	}
#endif
	s4->sin_family = AF_INET;
	s4->sin_port = inet->inet_sport;
	s4->sin_addr.s_addr = sk->sk_rcv_saddr;
	d4->sin_family = AF_INET;
	d4->sin_port = sk->sk_dport;
	d4->sin_addr.s_addr = sk->sk_daddr;
}
#endif /* _CCALOG_TRACE_ONCE */

/* For trace-cmd and perf, which read the format file, not this header. */
TRACE_DEFINE_ENUM(CCALOG_SWITCH_SELECT);
TRACE_DEFINE_ENUM(CCALOG_SWITCH_MIGRATE);
TRACE_DEFINE_ENUM(CCALOG_SWITCH_DRAIN);

TRACE_EVENT(ccalog_init,
	    TP_PROTO(const struct sock *sk, u64 cookie, const char *cca, u32 version, u8 locality,
		     u32 region, u32 dc, u32 generation),
	    TP_ARGS(sk, cookie, cca, version, locality, region, dc, generation),
	    TP_STRUCT__entry(__field(u64, cookie)
			     __field(u16, family)
			     __field(u16, sport)
			     __field(u16, dport)
			     __field(u32, saddr)
			     __field(u32, daddr)
			     __array(u8, src, sizeof(struct sockaddr_in6))
			     __array(u8, dst, sizeof(struct sockaddr_in6))
			     __array(char, cca, 16)
			     __field(u32, version)
			     __field(u32, region)
			     __field(u32, dc)
			     __field(u32, generation)
			     __field(u8, locality)
	    ),
	    TP_fast_assign(__entry->cookie = cookie;
			   ccalog_store_addrs(sk, &__entry->family, &__entry->sport,
					      &__entry->dport, &__entry->saddr, &__entry->daddr,
					      __entry->src, __entry->dst);
			   strscpy(__entry->cca, cca, sizeof(__entry->cca));
			   __entry->version = version;
			   __entry->locality = locality;
			   __entry->region = region;
			   __entry->dc = dc;
			   __entry->generation = generation;
	    ),
	    TP_printk("cookie=%llu src=%pISpc dst=%pISpc cca=%s version=%u.%u.%u locality=%s region=%u dc=%u generation=%u",
		      __entry->cookie, __entry->src, __entry->dst, __entry->cca,
		      __entry->version >> 16, (__entry->version >> 8) & 0xff,
		      __entry->version & 0xff,
		      __print_symbolic(__entry->locality, { 0, "unknown" }, { 1, "rack" },
				       { 2, "dc" }, { 3, "region" }, { 4, "xregion" }),
		      __entry->region, __entry->dc, __entry->generation)
);

TRACE_EVENT(ccalog_rtt,
	    TP_PROTO(const struct sock *sk, u64 cookie, const struct ccaas_round *r, u32 alpha,
		     u32 target_us, u32 state, u32 util, u32 ref_cwnd),
	    TP_ARGS(sk, cookie, r, alpha, target_us, state, util, ref_cwnd),
	    TP_STRUCT__entry(__field(u64, cookie)
			     __field(u16, family)
			     __field(u16, sport)
			     __field(u16, dport)
			     __field(u32, saddr)
			     __field(u32, daddr)
			     __array(u8, src, sizeof(struct sockaddr_in6))
			     __array(u8, dst, sizeof(struct sockaddr_in6))
			     __array(char, cca, 16)
			     __field(u64, delivery_rate)
			     __field(u32, snd_cwnd)
			     __field(u32, ssthresh)
			     __field(u32, srtt_us)
			     __field(u32, min_rtt_us)
			     __field(u32, delivered)
			     __field(u32, delivered_ce)
			     __field(u32, ecn_alpha)
			     __field(u32, cca_state)
			     __field(u32, target_us)
			     __field(u8, ca_state)
			     __field(u8, is_loss)
			     __field(u8, is_ece_ack)
			     __field(u8, is_tx_start)
			     __field(u8, is_ssthresh_invoked)
			     __field(u32, util)
			     __field(u32, ref_cwnd)
	    ),
	    TP_fast_assign(__entry->cookie = cookie;
			   ccalog_store_addrs(sk, &__entry->family, &__entry->sport,
					      &__entry->dport, &__entry->saddr, &__entry->daddr,
					      __entry->src, __entry->dst);
			   strscpy(__entry->cca, inet_csk(sk)->icsk_ca_ops->name,
				   sizeof(__entry->cca));
			   __entry->delivery_rate = ccaas_delivery_rate(tcp_sk(sk));
			   __entry->snd_cwnd = tcp_snd_cwnd(tcp_sk(sk));
			   __entry->ssthresh = tcp_sk(sk)->snd_ssthresh;
			   __entry->srtt_us = ccaas_srtt_us(tcp_sk(sk));
			   __entry->min_rtt_us = ccaas_min_rtt_us(tcp_sk(sk));
			   __entry->delivered = ccaas_round_delivered(r, tcp_sk(sk));
			   __entry->delivered_ce = ccaas_round_delivered_ce(r, tcp_sk(sk));
			   __entry->ecn_alpha = alpha;
			   __entry->cca_state = state;
			   __entry->target_us = target_us;
			   __entry->util = util;
			   __entry->ref_cwnd = ref_cwnd;
			   __entry->ca_state = inet_csk(sk)->icsk_ca_state;
			   __entry->is_loss = !!(r->flags & CCAAS_ROUND_LOSS);
			   __entry->is_ece_ack = (r->flags & CCAAS_ROUND_ECE) ||
						__entry->delivered_ce;
			   __entry->is_tx_start = !!(r->flags & CCAAS_ROUND_TX_START);
			   __entry->is_ssthresh_invoked = !!(r->flags & CCAAS_ROUND_SSTHRESH);
	    ),
	    TP_printk("cookie=%llu src=%pISpc dst=%pISpc cca=%s snd_cwnd=%u ssthresh=%u srtt_us=%u min_rtt_us=%u delivery_rate=%llu delivered=%u delivered_ce=%u ecn_alpha=%u ca_state=%u is_loss=%u is_ece_ack=%u is_tx_start=%u is_ssthresh_invoked=%u cca_state=%u target_us=%u util=%u ref_cwnd=%u",
		      __entry->cookie, __entry->src, __entry->dst, __entry->cca, __entry->snd_cwnd,
		      __entry->ssthresh, __entry->srtt_us, __entry->min_rtt_us,
		      __entry->delivery_rate, __entry->delivered, __entry->delivered_ce,
		      __entry->ecn_alpha, __entry->ca_state, __entry->is_loss, __entry->is_ece_ack,
		      __entry->is_tx_start, __entry->is_ssthresh_invoked, __entry->cca_state,
		      __entry->target_us, __entry->util, __entry->ref_cwnd)
);

TRACE_EVENT(ccalog_switch,
	    TP_PROTO(const struct sock *sk, const char *from, const char *to, u8 reason,
		     u32 generation),
	    TP_ARGS(sk, from, to, reason, generation),
	    TP_STRUCT__entry(__field(u64, cookie)
			     __field(u16, family)
			     __field(u16, sport)
			     __field(u16, dport)
			     __field(u32, saddr)
			     __field(u32, daddr)
			     __array(u8, src, sizeof(struct sockaddr_in6))
			     __array(u8, dst, sizeof(struct sockaddr_in6))
			     __array(char, from, 16)
			     __array(char, to, 16)
			     __field(u32, generation)
			     __field(u8, reason)
	    ),
	    TP_fast_assign(__entry->cookie = ccaas_sk_cookie(sk);
			   ccalog_store_addrs(sk, &__entry->family, &__entry->sport,
					      &__entry->dport, &__entry->saddr, &__entry->daddr,
					      __entry->src, __entry->dst);
			   strscpy(__entry->from, from, sizeof(__entry->from));
			   strscpy(__entry->to, to, sizeof(__entry->to));
			   __entry->reason = reason;
			   __entry->generation = generation;
	    ),
	    TP_printk("cookie=%llu src=%pISpc dst=%pISpc from=%s to=%s reason=%s generation=%u",
		      __entry->cookie, __entry->src, __entry->dst, __entry->from, __entry->to,
		      __print_symbolic(__entry->reason, { CCALOG_SWITCH_SELECT, "select" },
				       { CCALOG_SWITCH_MIGRATE, "migrate" },
				       { CCALOG_SWITCH_DRAIN, "drain" }),
		      __entry->generation)
);

#endif /* _CCALOG_TRACE_H */

#undef TRACE_INCLUDE_PATH
#define TRACE_INCLUDE_PATH .
#undef TRACE_INCLUDE_FILE
#define TRACE_INCLUDE_FILE ccalog_trace
#include <trace/define_trace.h>
