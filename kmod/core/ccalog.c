// SPDX-License-Identifier: GPL-2.0
/*
 * ccalog: the tracepoints, and the two entry points ccaas CCAs call.
 *
 * ccaas_log_init() runs in every ccaas CCA's init(): it decides, once per
 * CCA initialisation, whether the connection is logged (the namespace's
 * selection, logsel.c) and records the answer in the socket's header bit.
 * __ccaas_log_rtt() runs only for logged sockets, once per round, behind
 * that bit (<ccaas/log.h>); it costs a static-key test while no one traces.
 */
#include <linux/module.h>
#include <linux/sock_diag.h>
#include <net/tcp.h>

#include <ccaas/log.h>

#include "core.h"
#include "sock.h"

#define CREATE_TRACE_POINTS
#include "ccalog_trace.h"

/* kunit/ccalog_test.c attaches a probe of its own (a KUnit kernel only). */
#if IS_ENABLED(CONFIG_KUNIT)
EXPORT_TRACEPOINT_SYMBOL_GPL(ccalog_rtt);
#endif

u64 ccaas_sk_cookie(const struct sock *sk)
{
	u32 cookie[2];

	/* Makes the cookie if the socket has none yet, as sock_diag does. */
	sock_diag_save_cookie((struct sock *)sk, cookie);
	return (u64)cookie[1] << 32 | cookie[0];
}
EXPORT_SYMBOL_IF_KUNIT(ccaas_sk_cookie);

/* ccalog_init for @sk, a logged socket on a ccaas CCA. */
void ccaas_log_emit_init(struct sock *sk, u64 cookie)
{
	const struct tcp_congestion_ops *ops = inet_csk(sk)->icsk_ca_ops;
	struct ccaas_net *cn = ccaas_net(sock_net(sk));
	const struct ccaas_cca *cca;
	struct ccaas_scope_result scope;

	if (!trace_ccalog_init_enabled())
		return;
	cca = ccaas_registry_by_ops(ops);
	ccaas_sk_scope(cn, sk, &scope);
	trace_ccalog_init(sk, cookie, ops->name, cca ? cca->version : 0,
			  scope.locality, scope.region, scope.dc,
			  ccaas_sock(sk)->generation);
}

void ccaas_log_init(struct sock *sk)
{
	struct ccaas_sock *cs = ccaas_sock(sk);
	u64 cookie;

	cs->logged = 0;
	/*
	 * Listeners and sockets not yet connected have no one to log; a
	 * fallback without per-ACK hooks would never report.
	 */
	if (sk->sk_state == TCP_LISTEN || sk->sk_state == TCP_CLOSE ||
	    !ccaas_ops_logs(inet_csk(sk)->icsk_ca_ops))
		return;
	if (!ccaas_logsel_wants(ccaas_net(sock_net(sk)), sk, &cookie))
		return;
	cs->logged = 1;
	ccaas_log_emit_init(sk, cookie);
}
EXPORT_SYMBOL_GPL(ccaas_log_init);

void __ccaas_log_rtt(struct sock *sk, const struct ccaas_round *r,
		     u32 alpha, u32 target_us, u32 state, u32 util,
		     u32 ref_cwnd)
{
	if (!trace_ccalog_rtt_enabled())
		return;
	/*
	 * With nothing in flight every ACK ends a round (a window update, a
	 * receiver's data segment): such a round delivered nothing and saw
	 * nothing, and is not reported, so that a connection reports at most
	 * once per round trip of its data.
	 */
	if (tcp_sk(sk)->delivered == r->delivered && !r->flags)
		return;
	trace_ccalog_rtt(sk, ccaas_sk_cookie(sk), r, alpha, target_us, state,
			 util, ref_cwnd);
}
EXPORT_SYMBOL_GPL(__ccaas_log_rtt);
