// SPDX-License-Identifier: GPL-2.0
/*
 * Retroactive application of the policy to existing connections and
 * listeners, and `cca drain`.
 *
 * The walk (walk.c) hands over each established socket and listener with
 * a reference. Each is then locked and checked again (it may have closed
 * or changed CCA meanwhile) before it is switched. Children still in an
 * accept queue (no struct socket yet) are skipped before anything locks
 * them: closing a listener tears them down without taking their lock.
 * Running a migration twice changes nothing the second time: a socket
 * already on its policy's CCA (or on that CCA's fallback ops) is left as it
 * is.
 *
 * Connections are switched with a full re-init, under the sticky-ECN rule.
 * Listeners go where the selector puts a new listener: on the first CCA
 * the policy names that needs ECN, else back on the namespace's default
 * CCA, where the stack put them (selector.c). A listener's CCA never runs
 * (the stack initialises a CCA when a connection is established); it
 * decides whether the listener accepts ECN from clients that ask for it
 * (tcp_ecn_create_request()) and, for a listener whose CCA the application
 * set, which CCA its children inherit. So a listener is switched without
 * release() or init(), and the sticky-ECN rule, which protects what a
 * handshake negotiated, does not apply. Listeners the application pinned
 * are left alone by a migration and moved by a drain, like connections.
 */
#include <linux/module.h>
#include <net/sock.h>
#include <net/tcp.h>

#include "core.h"
#include "sock.h"

struct ccaas_migrate_ctx {
	struct net *net;
	struct ccaas_net *cn;
	bool force;
	/* cca drain: only sockets on @drain_from; to @drain_to or the policy */
	const struct tcp_congestion_ops *drain_from;
	const struct tcp_congestion_ops *drain_to;
	const struct tcp_congestion_ops *drain_default;
	struct ccaas_migrate_stats stats;
};

/* The socket is locked; RCU is held. */
static enum ccaas_move ccaas_migrate_locked(struct sock *sk,
					    struct ccaas_migrate_ctx *ctx)
{
	const struct tcp_congestion_ops *cur = inet_csk(sk)->icsk_ca_ops;
	const struct ccaas_policy_gen *gen = ccaas_policy_current(ctx->cn);
	const struct tcp_congestion_ops *target = ctx->drain_to;
	const struct ccaas_rule *rule = NULL;
	struct ccaas_scope_result scope;

	/*
	 * A socket on a BPF CCA cannot be moved from a module at all (its
	 * reference is not a module's), whoever chose the CCA and whatever
	 * its ECN: it is counted as that, before pinned or refused.
	 */
	if (ccaas_ops_bpf(cur))
		return CCAAS_MOVE_SKIPPED_BPF;
	if (!ctx->drain_from && ccaas_sk_pinned(sk))
		return CCAAS_MOVE_SKIPPED_PINNED;

	if (!target) {
		ccaas_sk_scope(ctx->cn, sk, &scope);
		rule = ccaas_policy_match(gen, &scope, sk);
		if (rule)
			target = rule->cca.ops;
		/* A drain must not leave the socket where it is. */
		if (ctx->drain_from &&
		    (!target || ccaas_ops_on_cca(target, ctx->drain_from))) {
			target = ctx->drain_default;
			rule = NULL;
		}
		if (!target)
			return CCAAS_MOVE_NO_RULE;
	}

	if (ccaas_ops_on_cca(cur, target)) {
		if (rule)
			ccaas_sk_apply_rule(sk, rule, ctx->stats.generation);
		return CCAAS_MOVE_UNCHANGED;
	}
	if (!ctx->force && !ccaas_ecn_compatible(sk, target)) {
		const struct tcp_congestion_ops *holder = NULL;

		/* Where the selector puts an ECN child its rule cannot hold. */
		if (rule)
			holder = ccaas_ecn_child_cca(gen, sk);
		if (holder && ccaas_ops_on_cca(cur, holder)) {
			ccaas_sk_apply_min_rto(sk, rule);
			return CCAAS_MOVE_UNCHANGED;
		}
		return CCAAS_MOVE_REFUSED;
	}

	switch (ccaas_sk_switch(sk, target, rule, ctx->stats.generation, true,
				ctx->drain_from ? CCALOG_SWITCH_DRAIN :
				CCALOG_SWITCH_MIGRATE)) {
	case 0:
		break;
	case -EOPNOTSUPP:
		return CCAAS_MOVE_SKIPPED_BPF;
	default:
		return CCAAS_MOVE_ERROR;
	}
	return CCAAS_MOVE_MIGRATED;
}

/* A listener, locked and listening; RCU is held. */
static enum ccaas_move ccaas_migrate_listener(struct sock *sk,
					      struct ccaas_migrate_ctx *ctx)
{
	const struct tcp_congestion_ops *cur = inet_csk(sk)->icsk_ca_ops;
	const struct tcp_congestion_ops *target = ctx->drain_to;

	if (!ctx->drain_from && ccaas_sk_pinned(sk))
		return CCAAS_MOVE_SKIPPED_PINNED;
	if (!target) {
		target = ccaas_listener_ops(ccaas_policy_current(ctx->cn)) ?:
			 rcu_dereference(ctx->net->ipv4.tcp_congestion_control);
		/* A drain must not leave the listener where it is. */
		if (ctx->drain_from && ccaas_ops_on_cca(target, ctx->drain_from))
			target = ctx->drain_default;
	}
	if (ccaas_ops_on_cca(cur, target))
		return CCAAS_MOVE_UNCHANGED;
	if (ccaas_ops_bpf(cur))
		return CCAAS_MOVE_SKIPPED_BPF;
	/*
	 * A namespace default on a BPF CCA: no module reference can be taken
	 * on it from here, so the listener stays where it is.
	 */
	if (ccaas_ops_bpf(target))
		return CCAAS_MOVE_NO_RULE;

	switch (ccaas_sk_switch(sk, target, NULL, ctx->stats.generation, false,
				ctx->drain_from ? CCALOG_SWITCH_DRAIN :
				CCALOG_SWITCH_MIGRATE)) {
	case 0:
		return CCAAS_MOVE_MIGRATED;
	case -EOPNOTSUPP:
		return CCAAS_MOVE_SKIPPED_BPF;
	default:
		return CCAAS_MOVE_ERROR;
	}
}

static void ccaas_migrate_one(struct sock *sk, void *arg)
{
	struct ccaas_migrate_ctx *ctx = arg;
	enum ccaas_move res;
	bool listener;

	/*
	 * Before lock_sock(): a child still in its listener's accept queue has
	 * no struct socket, and closing the listener tears it down without
	 * taking its lock, warning if a task owns it (inet_csk_listen_stop()).
	 * A child gets its struct socket when accept() has taken it off the
	 * queue (sock_graft()), and keeps it until it is closed.
	 */
	if (!READ_ONCE(sk->sk_socket))
		return;
	lock_sock(sk);
	listener = sk->sk_state == TCP_LISTEN;
	if ((sk->sk_state != TCP_ESTABLISHED && !listener) ||
	    (ctx->drain_from &&
	     !ccaas_ops_on_cca(inet_csk(sk)->icsk_ca_ops, ctx->drain_from))) {
		release_sock(sk);
		return;
	}
	rcu_read_lock();
	if (listener)
		res = ccaas_migrate_listener(sk, ctx);
	else
		res = ccaas_migrate_locked(sk, ctx);
	rcu_read_unlock();
	release_sock(sk);

	ctx->stats.examined++;
	ctx->stats.listeners += listener;
	ctx->stats.count[res]++;
}

static void ccaas_migrate_run(struct net *net, struct ccaas_migrate_ctx *ctx,
			      struct ccaas_migrate_stats *stats)
{
	ctx->net = net;
	ctx->cn = ccaas_net(net);
	/* No commit during a pass: its counts are for one generation. */
	lockdep_assert_held(&ctx->cn->lock);
	rcu_read_lock();
	ctx->stats.generation = ccaas_policy_current(ctx->cn)->generation;
	rcu_read_unlock();
	ccaas_walk_sockets(net, TCPF_ESTABLISHED | TCPF_LISTEN,
			   ccaas_migrate_one, ctx);
	ccaas_count_pass(ctx->cn, ctx->drain_from, &ctx->stats);
	*stats = ctx->stats;
}

void ccaas_migrate(struct net *net, bool force,
		   struct ccaas_migrate_stats *stats)
{
	struct ccaas_migrate_ctx ctx = { .force = force };

	ccaas_migrate_run(net, &ctx, stats);
}

void ccaas_drain(struct net *net, const struct tcp_congestion_ops *from,
		 const struct tcp_congestion_ops *to,
		 const struct tcp_congestion_ops *fallback, bool force,
		 struct ccaas_migrate_stats *stats)
{
	struct ccaas_migrate_ctx ctx = {
		.force = force,
		.drain_from = from,
		.drain_to = to,
		.drain_default = fallback,
	};

	ccaas_migrate_run(net, &ctx, stats);
}
