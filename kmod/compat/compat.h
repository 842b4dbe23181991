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

#endif /* _CCAAS_COMPAT_H */
