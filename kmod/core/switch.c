// SPDX-License-Identifier: GPL-2.0
/*
 * Putting a socket on another CCA.
 *
 * The stack's own way (tcp_reinit_congestion_control) is not exported, and
 * setsockopt(TCP_CONGESTION) from a socket walker is unsafe (the socket can
 * be torn down before setsockopt locks it) and would mark the socket as
 * application-chosen. ccaas_sk_switch() does what the stack does, with the
 * caller owning the socket: module references, release of the old CCA,
 * a zeroed private area, init of the new one, and ECT on outgoing packets
 * by the stack's rules (ECT(1) on the handshake of a CCA that asks for it).
 *
 * Compatibility. Sticky ECN: ECN is negotiated once, at the handshake. A
 * socket that negotiated it (RFC 3168 or AccECN feedback) may only move to
 * a CCA that declares CCAAS_CCA_F_ECN_OK, one that did not only to a CCA
 * that declares CCAAS_CCA_F_NONECN_OK. A socket with RFC 3168 feedback may
 * not move to ops with TCP_CONG_NO_FALLBACK_RFC3168, which the stack would
 * not have let negotiate it. CCAs not built on ccaas declare nothing; for
 * them, asking for ECN counts as ECN_OK and not asking as NONECN_OK. A CCA
 * may also list the CCAs (and oldest versions) it can take sockets over
 * from; a move from anything else is refused like an ECN mismatch.
 */
#include <linux/bpf.h>
#include <linux/module.h>
#include <net/dst.h>
#include <net/inet_ecn.h>
#include <net/tcp.h>
#ifdef CCAAS_HAVE_ECN_XMIT_ECT_1_NEGOTIATION
#include <net/tcp_ecn.h>
#endif

#include <ccaas/sock.h>

#include "core.h"
#include "sock.h"
#include "ccalog_trace.h"

bool ccaas_ops_bpf(const struct tcp_congestion_ops *ops)
{
#ifdef BPF_MODULE_OWNER
	return ops->owner == BPF_MODULE_OWNER;
#else
	return false;
#endif
}

/*
 * The socket's route names a CCA (`ip route ... congctl NAME`, with or
 * without `lock`). The stack applies it after the selector at connect
 * (tcp_connect_init) and when it creates a passive child
 * (tcp_ca_openreq_child): the route's choice wins there, so migration
 * leaves it too. Only a connected socket has its route cached.
 */
bool ccaas_sk_route_cc(const struct sock *sk)
{
	const struct dst_entry *dst;
	bool ret;

	rcu_read_lock();
	dst = __sk_dst_get((struct sock *)sk);
	ret = dst && dst_metric(dst, RTAX_CC_ALGO) != TCP_CA_UNSPEC;
	rcu_read_unlock();
	return ret;
}

/* The application or a route chose this socket's CCA: leave it. */
bool ccaas_sk_pinned(const struct sock *sk)
{
	const struct inet_connection_sock *icsk = inet_csk(sk);

	return icsk->icsk_ca_setsockopt || icsk->icsk_ca_dst_locked ||
	       ccaas_sk_route_cc(sk);
}

/*
 * In-tree dctcp moves a socket that did not negotiate ECN to ops of its
 * own module named "<name>-reno" (dctcp_init). No other in-tree CCA has
 * fallback ops.
 */
static bool ccaas_ops_intree_fallback(const struct tcp_congestion_ops *cur,
				      const struct tcp_congestion_ops *want)
{
	size_t len = strlen(want->name);

	return cur->owner == want->owner &&
	       !strncmp(cur->name, want->name, len) &&
	       !strcmp(cur->name + len, "-reno");
}

/* A socket on @cur is on the CCA @want (counting its fallback ops). */
bool ccaas_ops_on_cca(const struct tcp_congestion_ops *cur,
		      const struct tcp_congestion_ops *want)
{
	const struct ccaas_cca *cca;

	if (cur == want)
		return true;
	cca = ccaas_registry_by_ops(want);
	if (cca)
		return cca->fallback_ops == cur;
	return ccaas_ops_intree_fallback(cur, want);
}

static u32 ccaas_ops_features(const struct tcp_congestion_ops *ops)
{
	const struct ccaas_cca *cca = ccaas_registry_by_ops(ops);

	if (cca)
		return cca->features;
	if (ops->flags & TCP_CONG_NEEDS_ECN)
		return CCAAS_CCA_F_NEEDS_ECN | CCAAS_CCA_F_ECN_OK;
	return CCAAS_CCA_F_NONECN_OK;
}

/*
 * May @sk hold @ops, by the sticky-ECN rule? For a connection whose CCA
 * has not run yet (the selector's), that is the whole question.
 */
bool ccaas_ecn_allows(const struct sock *sk,
		      const struct tcp_congestion_ops *ops)
{
	u8 mode = ccaas_tcp_ecn_mode(tcp_sk(sk));
	u32 need = mode == CCAAS_ECN_MODE_OFF ? CCAAS_CCA_F_NONECN_OK :
						CCAAS_CCA_F_ECN_OK;

	/*
	 * Any ECN mode counts as ECN (the stack turns AccECN's counters into
	 * the same CE events); ops that refuse RFC 3168 feedback refuse its
	 * sockets too.
	 */
	if (mode == CCAAS_ECN_MODE_RFC3168 &&
	    (ops->flags & CCAAS_TCP_CONG_NO_FALLBACK_RFC3168))
		return false;
	return ccaas_ops_features(ops) & need;
}

/*
 * May @sk, whose CCA has run, move to @ops? The sticky-ECN rule, and @ops'
 * own list of CCAs it can take sockets over from.
 */
bool ccaas_ecn_compatible(const struct sock *sk,
			  const struct tcp_congestion_ops *ops)
{
	return ccaas_ecn_allows(sk, ops) &&
	       ccaas_cca_can_take(inet_csk(sk)->icsk_ca_ops, ops);
}

/*
 * The minimum RTO tcp_init_sock() starts a socket of @sk's namespace with:
 * net.ipv4.tcp_rto_min_us where the kernel has it (6.11+), else TCP_RTO_MIN.
 */
static u32 ccaas_sk_default_rto_min(const struct sock *sk)
{
#ifdef CCAAS_HAVE_SYSCTL_TCP_RTO_MIN_US
	return usecs_to_jiffies(READ_ONCE(sock_net(sk)->ipv4.sysctl_tcp_rto_min_us));
#else
	return TCP_RTO_MIN;
#endif
}

/*
 * The knob the core applies itself, whatever the CCA: the minimum RTO, in
 * jiffies, so rounded up to the tick (4 ms at HZ=250), and never below
 * TCP_TIMEOUT_MIN (two ticks, 8 ms at HZ=250), the least the kernel's own
 * interfaces (TCP_RTO_MIN_US, TCP_BPF_RTO_MIN) accept.
 *
 * The core writes the field only for a rule that sets min_rto, and gives
 * the namespace's floor back (the value tcp_init_sock() starts every
 * socket with: net.ipv4.tcp_rto_min_us on 6.11+, 200 ms before) only on a
 * socket where it wrote one (@was_set), moved under a rule without it. A
 * value the application (TCP_RTO_MIN_US) or a sockops program
 * (TCP_BPF_RTO_MIN, at passive-established, before the selector sees the
 * child) chose is kept, as is a listener's, which its children inherit.
 * A ccaas CCA's header remembers that the core wrote the field (struct
 * ccaas_sock.rto_set); for a socket on another CCA, a migration or drain
 * takes a value that a kept generation's rule for the socket would have
 * written as the core's (ccaas_policy_wrote_rto()). A locked route rto_min
 * still wins over all of them (tcp_rto_min()).
 *
 * Returns whether the socket now holds a value the core wrote.
 */
static bool ccaas_sk_apply_min_rto(struct sock *sk, const struct ccaas_rule *rule,
				   bool was_set)
{
	u32 rto_min;

	if (rule && rule->knobs & CCAAS_KNOB_MIN_RTO) {
		rto_min = max_t(u32, usecs_to_jiffies(rule->min_rto_us),
				TCP_TIMEOUT_MIN);
		WRITE_ONCE(inet_csk(sk)->icsk_rto_min, rto_min);
		return true;
	}
	if (was_set)
		WRITE_ONCE(inet_csk(sk)->icsk_rto_min,
			   ccaas_sk_default_rto_min(sk));
	return false;
}

/*
 * Did the core write @sk's minimum RTO (see above)? A ccaas CCA's header
 * says; for another CCA, a pass that holds the namespace's lock (@passes)
 * asks the kept generations (ccaas_policy_wrote_rto()).
 */
static bool ccaas_sk_rto_set(struct sock *sk, bool passes)
{
	u32 rto_min = READ_ONCE(inet_csk(sk)->icsk_rto_min);

	if (ccaas_registry_by_ops(inet_csk(sk)->icsk_ca_ops))
		return ccaas_sock(sk)->rto_set;
	return passes && rto_min != ccaas_sk_default_rto_min(sk) &&
	       ccaas_policy_wrote_rto(ccaas_net(sock_net(sk)), sk, rto_min);
}

/* The core's mark on a ccaas CCA's header, after a switch or a refresh. */
static void ccaas_sk_mark_rto(struct sock *sk, bool set)
{
	if (ccaas_registry_by_ops(inet_csk(sk)->icsk_ca_ops))
		ccaas_sock(sk)->rto_set = set;
}

/* A socket's rule (or none) changed without a switch: its minimum RTO. */
void ccaas_sk_apply_rule_rto(struct sock *sk, const struct ccaas_rule *rule)
{
	ccaas_sk_mark_rto(sk, ccaas_sk_apply_min_rto(sk, rule,
						     ccaas_sk_rto_set(sk, true)));
}

/*
 * The selector's route check: the route's CCA replaced the one chosen at
 * connect, before init(); give back a minimum RTO the core wrote there.
 * The private area still holds the header filled at connect (zeros for a
 * CCA without one).
 */
void ccaas_sk_route_took_over(struct sock *sk)
{
	struct inet_connection_sock *icsk = inet_csk(sk);

	ccaas_sk_apply_min_rto(sk, NULL, ccaas_sock(sk)->rto_set);
	memset(icsk->icsk_ca_priv, 0, sizeof(icsk->icsk_ca_priv));
}

/*
 * Fill the core's header of a ccaas CCA's freshly zeroed private area from
 * @rule (see <ccaas/sock.h>).
 */
static void ccaas_sk_fill_header(struct sock *sk, const struct ccaas_rule *rule,
				 u32 generation)
{
	struct ccaas_sock *cs = ccaas_sock(sk);
	bool logged = cs->logged;
	unsigned int i;

	BUILD_BUG_ON(sizeof(struct ccaas_sock) > ICSK_CA_PRIV_SIZE);
	/*
	 * Everything but the extension pointer, which the CCA owns, and the
	 * ccalog bit (zero in a freshly cleared area; kept on a refresh).
	 */
	memset(cs, 0, offsetof(struct ccaas_sock, ext));
	cs->logged = logged;
	cs->generation = generation;
	if (rule->knobs & CCAAS_KNOB_INIT_CWND)
		cs->init_cwnd = rule->init_cwnd;
	if (rule->knobs & CCAAS_KNOB_TSO_SEGS)
		cs->tso_segs = rule->tso_segs;
	for (i = 0; i < rule->n_params; i++) {
		const struct ccaas_rule_param *p = &rule->params[i];

		if (p->index >= CCAAS_SOCK_PARAMS)
			continue;
		cs->params[p->index] = p->value;
		cs->param_set |= 1U << p->index;
	}
}

/**
 * ccaas_sk_switch - put @sk on @ops
 * @sk: a TCP socket the caller owns (socket lock, or the connect path)
 * @ops: the new CCA; the caller keeps it alive (RCU or a reference)
 * @rule: the policy rule that chose @ops, or NULL (cca drain ... to NAME)
 * @generation: the generation @rule belongs to
 * @reinit: the old CCA was initialised: release it, and init the new one
 * @reason: who moves it, for ccalog_switch (CCALOG_SWITCH_*)
 *
 * With a @rule, its knobs are applied too; without one, a minimum RTO the
 * core wrote goes back to the kernel's (ccaas_sk_apply_min_rto()). Does
 * not sleep.
 *
 * Return: 0, -EOPNOTSUPP for a socket on a BPF CCA or a BPF @ops (their
 * references cannot be handled from a module), -EBUSY if @ops' module is
 * going away.
 */
int ccaas_sk_switch(struct sock *sk, const struct tcp_congestion_ops *ops,
		    const struct ccaas_rule *rule, u32 generation, bool reinit,
		    u8 reason)
{
	struct inet_connection_sock *icsk = inet_csk(sk);
	const struct tcp_congestion_ops *old = icsk->icsk_ca_ops;
	bool was_set;

	if (ccaas_ops_bpf(old) || ccaas_ops_bpf(ops))
		return -EOPNOTSUPP;
	if (!try_module_get(ops->owner))
		return -EBUSY;
	if (old != ops)
		trace_ccalog_switch(sk, old->name, ops->name, reason, generation);

	was_set = ccaas_sk_rto_set(sk, reason != CCALOG_SWITCH_SELECT);
	if (reinit && old->release)
		old->release(sk);
	/*
	 * Publish the new ops before the old module may go: module_put() is
	 * a fully ordered atomic, and unloading waits for a grace period
	 * after the last reference, so the old ops are never freed under a
	 * reader under RCU (the ccalog walks) that found them.
	 */
	WRITE_ONCE(icsk->icsk_ca_ops, ops);
	module_put(old->owner);
	memset(icsk->icsk_ca_priv, 0, sizeof(icsk->icsk_ca_priv));
	was_set = ccaas_sk_apply_min_rto(sk, rule, was_set);
	/*
	 * The header carries the rule's parameters for the rule's CCA only: a
	 * caller that chose another CCA for the rule's connection (a passive
	 * ECN child on the transitional CCA, say) leaves it at the defaults.
	 */
	if (rule && rule->cca.cca && rule->cca.ops == ops)
		ccaas_sk_fill_header(sk, rule, generation);
	ccaas_sk_mark_rto(sk, was_set);
	if (reinit) {
		tcp_sk(sk)->prior_ssthresh = 0;
		if (ops->init)
			ops->init(sk);
		icsk->icsk_ca_initialized = 1;
	}

	/*
	 * ECT as the stack sets it, by the ops the socket ends up on (init()
	 * may have moved it to fallback ops): none unless they need ECN; for
	 * an initialised CCA ECT(0), as tcp_init_congestion_control() sets
	 * it; before, the handshake's codepoint, ECT(1) for ops with
	 * TCP_CONG_ECT_1_NEGOTIATION, as tcp_assign_congestion_control().
	 */
	if (!tcp_ca_needs_ecn(sk))
		INET_ECN_dontxmit(sk);
	else if (reinit)
		INET_ECN_xmit(sk);
	else
		ccaas_ecn_xmit(sk);
	return 0;
}

/*
 * Apply @rule to an owned socket already on the rule's CCA: the minimum
 * RTO and, for a ccaas CCA, a refreshed header, whose TSO floor and
 * parameters the CCA reads as it runs.
 */
void ccaas_sk_apply_rule(struct sock *sk, const struct ccaas_rule *rule,
			 u32 generation)
{
	const struct tcp_congestion_ops *cur = inet_csk(sk)->icsk_ca_ops;
	bool set = ccaas_sk_apply_min_rto(sk, rule, ccaas_sk_rto_set(sk, true));

	if (rule->cca.cca && ccaas_ops_on_cca(cur, rule->cca.ops))
		ccaas_sk_fill_header(sk, rule, generation);
	ccaas_sk_mark_rto(sk, set);
}

/* The generation that put a socket on its ccaas CCA, or 0. */
u32 ccaas_sk_generation(const struct sock *sk)
{
	if (!ccaas_registry_by_ops(READ_ONCE(inet_csk(sk)->icsk_ca_ops)))
		return 0;
	return READ_ONCE(ccaas_sock(sk)->generation);
}

/* The scope of @sk's remote address. */
void ccaas_sk_scope(struct ccaas_net *cn, const struct sock *sk,
		    struct ccaas_scope_result *res)
{
#if IS_ENABLED(CONFIG_IPV6)
	if (sk->sk_family == AF_INET6) {
		ccaas_scope_lookup6(cn, &sk->sk_v6_daddr, res);
		return;
	}
#endif
	ccaas_scope_lookup4(cn, sk->sk_daddr, res);
}
