/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Differences between the kernels ccaas builds for, decided by what
 * kmod/compat/probe.sh found in the target's headers. Included first in every
 * ccaas object (see Kbuild), so code elsewhere uses only the names below.
 */
#ifndef _CCAAS_COMPAT_H
#define _CCAAS_COMPAT_H

#include "compat-generated.h"

/*
 * cong_control gained (u32 ack, int flag) in 6.10. CCAs declare their
 * callback as `static void f(CCAAS_CONG_CONTROL_ARGS)`; ack and flag are
 * only usable where CCAAS_HAVE_CONG_CONTROL_ACK_FLAG is defined.
 */
#ifdef CCAAS_HAVE_CONG_CONTROL_ACK_FLAG
#define CCAAS_CONG_CONTROL_ARGS \
	struct sock *sk, u32 ack, int flag, const struct rate_sample *rs
#else
#define CCAAS_CONG_CONTROL_ARGS \
	struct sock *sk, const struct rate_sample *rs
#endif

/* Send an ACK for @rcv_nxt now, with no extra TCP flags. */
#ifdef CCAAS_HAVE_TCP_SEND_ACK_FLAGS
#define ccaas_send_ack(sk, rcv_nxt)	__tcp_send_ack(sk, rcv_nxt, 0)
#else
#define ccaas_send_ack(sk, rcv_nxt)	__tcp_send_ack(sk, rcv_nxt)
#endif

/*
 * True if @tp negotiated ECN. Where the kernel has ECN modes (AccECN), any
 * mode counts: RFC 3168, AccECN, or both bits while an AccECN handshake is
 * pending, as in-tree dctcp does with tcp_ecn_mode_any(). Testing only the
 * RFC 3168 mode would hand AccECN connections to the non-ECN fallback.
 */
#ifdef CCAAS_HAVE_TCP_ECN_MODE
#define ccaas_tcp_ecn_ok(tp)	tcp_ecn_mode_any(tp)
#else
#define ccaas_tcp_ecn_ok(tp)	(!!((tp)->ecn_flags & TCP_ECN_OK))
#endif

/*
 * AccECN's tcp_congestion_ops flags under our own names, 0 where the
 * kernel lacks one, so that code testing them compiles everywhere and finds
 * them never set.
 */
#ifdef CCAAS_HAVE_TCP_CONG_NEEDS_ACCECN
#define CCAAS_TCP_CONG_NEEDS_ACCECN		TCP_CONG_NEEDS_ACCECN
#else
#define CCAAS_TCP_CONG_NEEDS_ACCECN		0
#endif
#ifdef CCAAS_HAVE_TCP_CONG_ECT_1_NEGOTIATION
#define CCAAS_TCP_CONG_ECT_1_NEGOTIATION	TCP_CONG_ECT_1_NEGOTIATION
#else
#define CCAAS_TCP_CONG_ECT_1_NEGOTIATION	0
#endif
#ifdef CCAAS_HAVE_TCP_CONG_NO_FALLBACK_RFC3168
#define CCAAS_TCP_CONG_NO_FALLBACK_RFC3168	TCP_CONG_NO_FALLBACK_RFC3168
#else
#define CCAAS_TCP_CONG_NO_FALLBACK_RFC3168	0
#endif
/* Every flag that says something of the CCA's use of ECN. */
#define CCAAS_TCP_CONG_ECN_FLAGS (TCP_CONG_NEEDS_ECN |			\
				  CCAAS_TCP_CONG_NEEDS_ACCECN |		\
				  CCAAS_TCP_CONG_ECT_1_NEGOTIATION |	\
				  CCAAS_TCP_CONG_NO_FALLBACK_RFC3168)

/*
 * Mark the socket's packets ECN-capable as the stack does for a CCA that
 * needs ECN: ECT(1) if its ops ask for it (TCP_CONG_ECT_1_NEGOTIATION),
 * else ECT(0).
 */
#ifdef CCAAS_HAVE_ECN_XMIT_ECT_1_NEGOTIATION
#define ccaas_ecn_xmit(sk)	INET_ECN_xmit_ect_1_negotiation(sk)
#else
#define ccaas_ecn_xmit(sk)	INET_ECN_xmit(sk)
#endif

/*
 * What kunit/ tests of the core's internals is exported, in the namespace
 * EXPORTED_FOR_KUNIT_TESTING, by a kernel built with KUnit only: the
 * sanitizer kernel, where the suites are a module of their own
 * (ccaas_kunit.ko). Elsewhere EXPORT_SYMBOL_IF_KUNIT() exports nothing.
 * The header came with 6.2, and Debian's 6.1 has it too.
 */
#include <kunit/visibility.h>

#endif /* _CCAAS_COMPAT_H */
