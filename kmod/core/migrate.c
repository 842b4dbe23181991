// SPDX-License-Identifier: GPL-2.0
/*
 * Retroactive application of the policy to existing connections and
 * listeners, and `cca drain`.
 *
 * The walk (walk.c) hands over, with a reference, every socket that holds
 * a CCA: listeners, and connections in every state from SYN_SENT to
 * LAST_ACK, children still in an accept queue and orphans (closed by
 * their application, still sending or acknowledging a FIN) included. Each
 * is owned with its spinlock (bh_lock_sock(), as the stack's softirq paths
 * own a connection; a listener's SYNs are handled without it), never by
 * waiting for a task that holds it: such a socket is given back to the
 * walk, offered again a few times, and counted busy if a task still owns
 * it (walk.c says why). Owned, it is checked again (it may have closed or
 * changed CCA meanwhile) before it is switched. Running a migration twice
 * changes nothing the second time: a socket already on its policy's CCA
 * (or on that CCA's fallback ops) is left as it is.
 *
 * What a pass does with each state (migrate, drain, STATS_GET and SOCK_GET
 * cover the same ones, CCAAS_CONN_STATES and listeners):
 *  - a connection whose CCA the stack initialised (ESTABLISHED through
 *    LAST_ACK, a Fast Open child in SYN_RECV): a full switch (release(),
 *    a zeroed private area, init()) under the sticky-ECN rule;
 *  - SYN_SENT: the CCA is assigned, not yet initialised (the stack does
 *    that when the handshake completes), so the ops are swapped without
 *    release() or init(), under the sticky-ECN rule applied to what the
 *    SYN asked for. The selector checks the socket again when its
 *    handshake completes (selector.c), against the policy then in force;
 *  - a listener: where the selector puts a new listener: on the first CCA
 *    the policy names that needs ECN, else back on the namespace's
 *    default CCA, where the stack put it (selector.c). A listener's CCA
 *    never runs; it decides whether the listener accepts ECN from clients
 *    that ask for it (tcp_ecn_create_request()) and, for a listener whose
 *    CCA the application set, which CCA its children inherit. So it is
 *    switched without release() or init(), and the sticky-ECN rule, which
 *    protects what a handshake negotiated, does not apply.
 * Sockets the application or a route pinned are left alone by a migration
 * and moved by a drain, except those of a route with `congctl lock`, which
 * the kernel itself keeps on their CCA: only a forced drain moves them. A
 * drain without `to` sends an ECN connection that the policy's CCA cannot
 * hold where the selector sends such a passive child (the transitional
 * CCA, if loaded), rather than leave it on the drained CCA.
 *
 * Not reached: a socket in TCP_CLOSE that its application still holds
 * (reset, failed connect, never connected, after tcp_disconnect()) keeps
 * the CCA tcp_init_sock() gave it, but is in neither hash; it goes with
 * its close().
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
	/* the drained CCA's fallback ops, if it is a ccaas CCA */
	const struct tcp_congestion_ops *drain_fallback;
	bool drain_registered;
	struct ccaas_migrate_stats stats;
};

/* A connection, owned; RCU is held. */
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
	/*
	 * A route that says `congctl lock` makes the kernel refuse any other
	 * CCA for the socket (tcp_set_congestion_control(): -EPERM); a drain
	 * respects that unless forced, and reports the socket as pinned.
	 */
	if (ctx->drain_from && !ctx->force && inet_csk(sk)->icsk_ca_dst_locked)
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
		if (rule || ctx->drain_from)
			holder = ccaas_ecn_child_cca(gen, sk, CCAAS_SIDE_GUESS,
						     !inet_csk(sk)->icsk_ca_initialized);
		if (holder && ccaas_ops_on_cca(cur, holder)) {
			ccaas_sk_apply_rule_rto(sk, rule);
			return CCAAS_MOVE_UNCHANGED;
		}
		/*
		 * A drain must empty its CCA: an ECN connection the policy's
		 * CCA cannot hold goes there too (the transitional CCA,
		 * cca_cubic, if it is loaded). A target the operator named
		 * (`to NAME`) is kept to: the connection is refused.
		 */
		if (!ctx->drain_from || ctx->drain_to || !holder ||
		    ccaas_ops_on_cca(holder, ctx->drain_from) ||
		    !ccaas_ecn_compatible(sk, holder))
			return CCAAS_MOVE_REFUSED;
		target = holder;
	}

	switch (ccaas_sk_switch(sk, target, rule, ctx->stats.generation,
				inet_csk(sk)->icsk_ca_initialized,
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

/* A listener, owned and listening; RCU is held. */
static enum ccaas_move ccaas_migrate_listener(struct sock *sk,
					      struct ccaas_migrate_ctx *ctx)
{
	const struct tcp_congestion_ops *cur = inet_csk(sk)->icsk_ca_ops;
	const struct tcp_congestion_ops *target = ctx->drain_to;

	if (!ctx->drain_from && ccaas_sk_pinned(sk))
		return CCAAS_MOVE_SKIPPED_PINNED;
	if (!target) {
		target = ccaas_listener_ops(ccaas_policy_current(ctx->cn), sk) ?:
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

/*
 * May @sk, not owned, be on the drained CCA? Pointers only: the socket's
 * ops may be a module's going away (setsockopt() drops the old reference
 * before it stores the new ops), so they are not dereferenced. The drained
 * CCA's own ops and fallback ops are known (looked up once a pass); an
 * in-tree CCA's fallback ("<name>-reno") is only found under the lock.
 */
static bool ccaas_migrate_maybe_on(const struct sock *sk,
				   const struct ccaas_migrate_ctx *ctx)
{
	const struct tcp_congestion_ops *cur = READ_ONCE(inet_csk(sk)->icsk_ca_ops);

	return cur == ctx->drain_from || !ctx->drain_registered ||
	       cur == ctx->drain_fallback;
}

/* Returns false if a task owns @sk: the walk offers it again later. */
static bool ccaas_migrate_one(struct sock *sk, void *arg)
{
	struct ccaas_migrate_ctx *ctx = arg;
	enum ccaas_move res;
	bool listener;

	/*
	 * A drain looks only at its CCA's sockets, and a busy socket on
	 * another is none of its business: compare the ops first.
	 */
	if (ctx->drain_from && !ccaas_migrate_maybe_on(sk, ctx))
		return true;

	local_bh_disable();
	bh_lock_sock(sk);
	if (sock_owned_by_user(sk)) {
		bh_unlock_sock(sk);
		local_bh_enable();
		return false;
	}
	listener = sk->sk_state == TCP_LISTEN;
	if (!((1 << sk->sk_state) & (CCAAS_CONN_STATES | TCPF_LISTEN)) ||
	    (ctx->drain_from &&
	     !ccaas_ops_on_cca(inet_csk(sk)->icsk_ca_ops, ctx->drain_from))) {
		bh_unlock_sock(sk);
		local_bh_enable();
		return true;
	}
	rcu_read_lock();
	if (listener)
		res = ccaas_migrate_listener(sk, ctx);
	else
		res = ccaas_migrate_locked(sk, ctx);
	rcu_read_unlock();
	bh_unlock_sock(sk);
	local_bh_enable();

	ctx->stats.examined++;
	ctx->stats.listeners += listener;
	ctx->stats.count[res]++;
	return true;
}

static void ccaas_migrate_run(struct net *net, struct ccaas_migrate_ctx *ctx,
			      struct ccaas_migrate_stats *stats)
{
	unsigned int busy;

	ctx->net = net;
	ctx->cn = ccaas_net(net);
	/* No commit during a pass: its counts are for one generation. */
	lockdep_assert_held(&ctx->cn->lock);
	rcu_read_lock();
	ctx->stats.generation = ccaas_policy_current(ctx->cn)->generation;
	rcu_read_unlock();
	busy = ccaas_walk_sockets(net, CCAAS_CONN_STATES | TCPF_LISTEN,
				  ccaas_migrate_one, ctx);
	ctx->stats.examined += busy;
	ctx->stats.count[CCAAS_MOVE_BUSY] += busy;
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
	const struct ccaas_cca *reg;

	/* @from's module is held by the caller: its registration stays. */
	rcu_read_lock();
	reg = ccaas_registry_by_ops(from);
	ctx.drain_registered = reg;
	ctx.drain_fallback = reg ? reg->fallback_ops : NULL;
	rcu_read_unlock();
	ccaas_migrate_run(net, &ctx, stats);
}
