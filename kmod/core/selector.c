// SPDX-License-Identifier: GPL-2.0
/*
 * The selector: every new TCP connection gets the CCA the policy gives its
 * remote address, before its first packet is sent.
 *
 * The hook is the inet_sock_set_state tracepoint (found by name: it is not
 * exported). Its probes must not sleep (some state changes happen in
 * softirq or under the socket's spinlock) but need not run with preemption
 * off: on 7.x the tracepoint calls them under SRCU, preemptible. So the
 * probe relies on nothing that preemption being off would give it: it takes
 * rcu_read_lock() itself for the policy, the scope tree and the route, and
 * its only per-CPU state is the namespace's counters, which this_cpu_add()
 * updates safely from any context (core.h). The transitions:
 *
 * - Active open, CLOSE -> SYN_SENT, inside tcp_v{4,6}_connect() with the
 *   socket owned by the connecting task and the remote address and port
 *   set (the server's port, for a port match), before
 *   tcp_connect(). Switching the ops here decides the SYN's ECN request
 *   (tcp_ecn_send_syn() asks for ECN when the CCA needs it). No init():
 *   the stack calls it when the handshake completes. A route's `congctl`
 *   is applied after us by tcp_connect() and so still wins; it does not
 *   clear the private area we filled for our CCA, so at SYN_SENT ->
 *   ESTABLISHED (tcp_finish_connect(), before init()) a socket whose route
 *   names a CCA gets a clean area and the kernel's minimum RTO: the
 *   route's CCA starts with its module defaults. Migration counts such
 *   sockets as pinned (ccaas_sk_pinned()).
 * - Active open completes, SYN_SENT -> ESTABLISHED, before init(), with
 *   ECN negotiated: if a commit during the handshake changed the socket's
 *   rule (another CCA, or a newer generation of the same ccaas CCA), the
 *   socket is chosen for again, under the sticky-ECN rule as a passive
 *   child is; else the choice at connect stands.
 * - Listen, CLOSE -> LISTEN: the listener's CCA decides whether the server
 *   accepts ECN from a client whose SYN is ECT-marked, as the SYNs of ECN
 *   CCAs are (tcp_ecn_create_request(): net.ipv4.tcp_ecn and a route's
 *   `features ecn` only cover non-ECT SYNs). So when a rule that may apply
 *   to the listener's children (its service fields, if any, hold for the
 *   listener's cgroup and port) names a CCA that needs ECN, a new listener
 *   is put on such a CCA (the first that asks for AccECN, else the first;
 *   never one refusing the RFC 3168 fallback, see ccaas_ecn_rule()): it
 *   then accepts ECN from clients that
 *   ask for it, and ignores it from those that do not. Otherwise the
 *   listener keeps the namespace's default CCA, which the stack gave it.
 *   Migration moves listeners opened before a policy change the same way
 *   (migrate.c). A route `congctl` with an ECN CCA also makes a server
 *   accept.
 * - Passive open, SYN_RECV -> ESTABLISHED, for the child socket before
 *   accept(): the stack has already initialised a CCA on it, so the switch
 *   releases it and initialises the new one. That CCA is the route's, or
 *   the listener's if the application set the listener's with setsockopt
 *   (both pinned: left alone), else the namespace default
 *   (tcp_ca_openreq_child()): a listener the selector moved does not pass
 *   its CCA on. ECN was decided by the handshake, by the listener's CCA.
 *   A child that negotiated ECN goes to a CCA that can hold it: its rule's,
 *   else the transitional CCA (CCAAS_CCA_F_TRANSITIONAL, cca_cubic), else
 *   the listener's, else another ECN CCA of a rule that may apply to it
 *   (ccaas_ecn_child_cca()): never one of another service's rules, nor
 *   the namespace default. A new
 *   connection's CCA has not run, so the CCAs' takeover lists, which
 *   protect a running CCA's state, are not consulted. A child that
 *   did not negotiate ECN and whose rule's CCA needs it keeps the default
 *   (sticky ECN) and migration counts it refused.
 *
 * Sockets whose CCA the application set (setsockopt TCP_CONGESTION; a
 * passive child inherits its listener's) or a route chose are left alone.
 */
#include <linux/module.h>
#include <net/sock.h>
#include <net/tcp.h>

#include "core.h"
#include "sock.h"

static struct tracepoint *ccaas_set_state_tp;

/*
 * The rule whose CCA listener @sk goes on (@side CCAAS_SIDE_PASSIVE), or
 * that an ECN connection @sk falls back to (ccaas_ecn_child_cca()), or
 * NULL: among the rules that may apply to @sk's connections, the first
 * that needs ECN and asks for AccECN, else the first that needs ECN. A
 * listener on a CCA that needs ECN accepts ECN from clients that ask; one
 * asking for AccECN accepts AccECN too, whatever net.ipv4.tcp_ecn says.
 * Never a CCA refusing the RFC 3168 fallback: a classic client would
 * believe ECN was agreed while the child has none.
 *
 * The rules that may apply are those whose service match holds for @sk (a
 * listener's children have its cgroup and its port; a child's listener,
 * the child's) or who have none; the first of them that sets no remote
 * field and no local prefix applies to every connection, and hides the
 * rest. So a child that fell back goes where its listener is.
 */
static const struct ccaas_rule *ccaas_ecn_rule(const struct ccaas_policy_gen *gen,
					       const struct sock *sk,
					       enum ccaas_side side)
{
	const struct ccaas_rule *classic = NULL;
	unsigned int i;
	bool all = false;

	for (i = 0; i < gen->n_rules && !all; i++) {
		u32 flags = gen->rules[i].cca.ops->flags;

		if (!ccaas_rule_may_apply(&gen->rules[i], sk, side, &all))
			continue;
		if (!(flags & TCP_CONG_NEEDS_ECN) ||
		    (flags & CCAAS_TCP_CONG_NO_FALLBACK_RFC3168))
			continue;
		if (flags & CCAAS_TCP_CONG_NEEDS_ACCECN)
			return &gen->rules[i];
		if (!classic)
			classic = &gen->rules[i];
	}
	return classic;
}

/* @sk may hold @ops; @fresh: its CCA has not run (no takeover check). */
static bool ccaas_can_hold(const struct sock *sk,
			   const struct tcp_congestion_ops *ops, bool fresh)
{
	return fresh ? ccaas_ecn_allows(sk, ops) : ccaas_ecn_compatible(sk, ops);
}

/*
 * For a connection that negotiated ECN and whose rule's CCA cannot hold
 * it: the transitional CCA, else the listener CCA of its service (that of
 * ccaas_ecn_rule(): where an accepted child's listener is), else the first
 * other CCA that needs ECN and can hold it (one refusing the RFC 3168
 * fallback, for an AccECN child) among the rules that may apply to it
 * (@side of its connection), or NULL: a service never borrows another's
 * CCA. @fresh: a new connection, whose CCA has not run, so the CCAs'
 * takeover lists (which protect a running CCA's state) do not apply. RCU
 * is held; ccaas_sk_switch() takes the module reference. Migration counts
 * a socket already there as unchanged rather than refused.
 */
const struct tcp_congestion_ops *
ccaas_ecn_child_cca(const struct ccaas_policy_gen *gen, const struct sock *sk,
		    enum ccaas_side side, bool fresh)
{
	const struct tcp_congestion_ops *ops;
	const struct ccaas_rule *rule;
	unsigned int i;
	bool all;

	if (!ccaas_tcp_ecn_ok(tcp_sk(sk)))
		return NULL;
	ops = ccaas_registry_transitional();
	if (ops && ccaas_can_hold(sk, ops, fresh))
		return ops;
	rule = ccaas_ecn_rule(gen, sk, side);
	if (rule && ccaas_can_hold(sk, rule->cca.ops, fresh))
		return rule->cca.ops;
	for (i = 0; i < gen->n_rules; i++) {
		if (!ccaas_rule_may_apply(&gen->rules[i], sk, side, &all))
			continue;
		ops = gen->rules[i].cca.ops;
		if ((ops->flags & TCP_CONG_NEEDS_ECN) &&
		    ccaas_can_hold(sk, ops, fresh))
			return ops;
		/* it applies to every connection: none after it does */
		if (all)
			break;
	}
	return NULL;
}

/* The selector's three moments (see the top of this file). */
enum ccaas_select_at {
	CCAAS_AT_CONNECT,	/* CLOSE -> SYN_SENT: before the SYN */
	CCAAS_AT_CONNECTED,	/* SYN_SENT -> ESTABLISHED: before init() */
	CCAAS_AT_CHILD,		/* SYN_RECV -> ESTABLISHED: after init() */
};

static void ccaas_select(struct sock *sk, enum ccaas_select_at at)
{
	struct ccaas_net *cn = ccaas_net(sock_net(sk));
	const struct tcp_congestion_ops *cur = inet_csk(sk)->icsk_ca_ops;
	const struct tcp_congestion_ops *ops;
	const struct ccaas_policy_gen *gen;
	struct ccaas_scope_result scope;
	const struct ccaas_rule *rule;
	enum ccaas_side side = at == CCAAS_AT_CHILD ? CCAAS_SIDE_PASSIVE :
						      CCAAS_SIDE_ACTIVE;
	int err;

	if (ccaas_sk_pinned(sk))
		return;

	rcu_read_lock();
	gen = ccaas_policy_current(cn);
	/*
	 * A ccaas CCA's header says which generation chose it: if that is
	 * still the one in force, the choice at connect stands, and no
	 * lookup is needed (other CCAs carry no header: looked up again).
	 */
	if (at == CCAAS_AT_CONNECTED && ccaas_registry_by_ops(cur) &&
	    ccaas_sk_generation(sk) == gen->generation)
		goto out;
	ccaas_sk_scope(cn, sk, &scope);
	rule = ccaas_policy_match_side(gen, &scope, sk, side);
	if (!rule)
		goto out;
	ops = rule->cca.ops;
	/*
	 * At the end of an active open, the CLOSE -> SYN_SENT choice stands
	 * unless the policy changed under the handshake: the rule now names
	 * another CCA, or the same ccaas CCA under a newer generation (its
	 * parameters may differ).
	 */
	if (at == CCAAS_AT_CONNECTED && ops == cur &&
	    (!ccaas_registry_by_ops(cur) ||
	     ccaas_sk_generation(sk) == gen->generation))
		goto out;
	if (at != CCAAS_AT_CONNECT && !ccaas_ecn_allows(sk, ops)) {
		ops = ccaas_ecn_child_cca(gen, sk, side, true);
		if (!ops) {
			ccaas_count(cn, CCAAS_CNT_REFUSED, 1);
			goto out;
		}
	}
	/*
	 * Even a socket already on the rule's CCA is switched: that applies the
	 * rule's knobs and fills a ccaas CCA's header before its init() runs.
	 */
	err = ccaas_sk_switch(sk, ops, rule, gen->generation,
			      at == CCAAS_AT_CHILD, CCALOG_SWITCH_SELECT);
	/* A connection is counted once, at connect or as a passive child. */
	if (!err && at != CCAAS_AT_CONNECTED)
		ccaas_count(cn, CCAAS_CNT_SELECTED, 1);
	else if (err && err != -EOPNOTSUPP)
		ccaas_count(cn, CCAAS_CNT_ERRORS, 1);
out:
	rcu_read_unlock();
}

/*
 * SYN_SENT -> ESTABLISHED, before init(): undo what the selector did for a
 * CCA that the route then replaced (see the top of this file); otherwise
 * choose again if the policy changed during the handshake, now that ECN
 * is negotiated.
 */
static void ccaas_select_connected(struct sock *sk)
{
	struct inet_connection_sock *icsk = inet_csk(sk);

	if (icsk->icsk_ca_setsockopt || icsk->icsk_ca_initialized)
		return;
	if (!ccaas_sk_route_cc(sk)) {
		ccaas_select(sk, CCAAS_AT_CONNECTED);
		return;
	}
	ccaas_sk_route_took_over(sk);
}

/**
 * ccaas_listener_ops - the CCA the policy gives a listener
 * @gen: the policy generation (RCU or ccaas_net.lock held)
 * @sk: the listener, bound: its cgroup and port decide which service rules
 *	may apply to its children
 *
 * Return: the CCA of ccaas_ecn_rule(), or NULL: a listener then belongs
 * on the namespace's default CCA, where the stack put it.
 */
const struct tcp_congestion_ops *
ccaas_listener_ops(const struct ccaas_policy_gen *gen, const struct sock *sk)
{
	const struct ccaas_rule *rule = ccaas_ecn_rule(gen, sk,
						       CCAAS_SIDE_PASSIVE);

	return rule ? rule->cca.ops : NULL;
}

static void ccaas_select_listener(struct sock *sk)
{
	struct ccaas_net *cn = ccaas_net(sock_net(sk));
	const struct tcp_congestion_ops *ops;
	const struct ccaas_policy_gen *gen;

	if (ccaas_sk_pinned(sk))
		return;
	rcu_read_lock();
	gen = ccaas_policy_current(cn);
	ops = ccaas_listener_ops(gen, sk);
	if (ops && !ccaas_ops_on_cca(inet_csk(sk)->icsk_ca_ops, ops) &&
	    !ccaas_sk_switch(sk, ops, NULL, gen->generation, false,
			     CCALOG_SWITCH_SELECT))
		ccaas_count(cn, CCAAS_CNT_LISTENERS_SELECTED, 1);
	rcu_read_unlock();
}

static void ccaas_probe_set_state(void *data, const struct sock *csk,
				  const int oldstate, const int newstate)
{
	/* The tracepoint hands out a const socket; we own it here. */
	struct sock *sk = (struct sock *)csk;

	if (sk->sk_protocol != IPPROTO_TCP)
		return;
	if (oldstate == TCP_CLOSE && newstate == TCP_SYN_SENT)
		ccaas_select(sk, CCAAS_AT_CONNECT);
	else if (oldstate == TCP_SYN_SENT && newstate == TCP_ESTABLISHED)
		ccaas_select_connected(sk);
	else if (oldstate == TCP_CLOSE && newstate == TCP_LISTEN)
		ccaas_select_listener(sk);
	else if (oldstate == TCP_SYN_RECV && newstate == TCP_ESTABLISHED)
		ccaas_select(sk, CCAAS_AT_CHILD);
}

int __init ccaas_selector_init(void)
{
	return ccaas_tracepoint_attach("inet_sock_set_state",
				       (void *)ccaas_probe_set_state,
				       &ccaas_set_state_tp);
}

void ccaas_selector_exit(void)
{
	ccaas_tracepoint_detach(ccaas_set_state_tp,
				(void *)ccaas_probe_set_state);
}
