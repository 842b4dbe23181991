// SPDX-License-Identifier: GPL-2.0
/*
 * The ccalog selection of a network namespace: the socket cookies
 * `ccactl log add` chose, or "all".
 *
 * The selection is an immutable sorted array, replaced as a whole under
 * ccaas_net.lock and read under RCU. It is consulted only off the data
 * path: when a ccaas CCA initialises on a socket (ccaas_log_init()), and
 * when the selection changes, by a walk that sets or clears the logged bit
 * of every live connection on a ccaas CCA with the socket owned. The ACK
 * path reads only that bit (<ccaas/log.h>).
 *
 * Cookies are never reused, so a selected cookie whose connection has
 * closed can only be pruned: each add keeps only the cookies of live
 * connections. A cookie on a connection whose CCA is not a ccaas one
 * stays selected: the connection is logged if it moves to one.
 */
#include <linux/bsearch.h>
#include <linux/slab.h>
#include <net/sock.h>
#include <net/tcp.h>

#include <ccaas/sock.h>

#include "core.h"
#include "logsel.h"
#include "sock.h"

int ccaas_cookie_cmp(const void *a, const void *b)
{
	u64 x = *(const u64 *)a, y = *(const u64 *)b;

	return x < y ? -1 : x > y;
}

/* Index of @cookie in @sel, or -1. */
long ccaas_logsel_find(const struct ccaas_logsel *sel, u64 cookie)
{
	const u64 *hit = bsearch(&cookie, sel->cookies, sel->n,
				 sizeof(cookie), ccaas_cookie_cmp);

	return hit ? hit - sel->cookies : -1;
}

bool ccaas_logsel_has(const struct ccaas_logsel *sel, u64 cookie)
{
	return sel->all || ccaas_logsel_find(sel, cookie) >= 0;
}

/*
 * For ccaas_log_init(): is @sk selected? Any context. Makes the cookie only
 * when something is selected.
 */
bool ccaas_logsel_wants(struct ccaas_net *cn, struct sock *sk, u64 *cookie)
{
	const struct ccaas_logsel *sel;
	bool want;

	if (!rcu_access_pointer(cn->log.sel))
		return false;
	*cookie = ccaas_sk_cookie(sk);
	rcu_read_lock();
	sel = rcu_dereference(cn->log.sel);
	want = sel && ccaas_logsel_has(sel, *cookie);
	rcu_read_unlock();
	return want;
}

/*
 * The sockets a selection applies to: every state in which a CCA runs, from
 * a child not yet accepted to a connection closing.
 */
#define CCAAS_LOG_STATES	(TCPF_SYN_RECV | TCPF_ESTABLISHED |		\
				 TCPF_FIN_WAIT1 | TCPF_FIN_WAIT2 |		\
				 TCPF_CLOSE_WAIT | TCPF_CLOSING | TCPF_LAST_ACK)

/*
 * Does @ops report to ccalog? A ccaas CCA's ops with a per-ACK hook, where
 * rounds end: in_ack_event, pkts_acked (cca_cubic, which has no other, as
 * cubic) or cong_control. cca_dctcp's Reno fallback has none.
 */
bool ccaas_ops_logs(const struct tcp_congestion_ops *ops)
{
	return (ops->in_ack_event || ops->pkts_acked || ops->cong_control) &&
	       ccaas_registry_by_ops(ops);
}

/*
 * Reading a socket's CCA ops during a walk. The walk holds a reference on
 * the socket, not on its CCA's module: once the socket has reached
 * TCP_CLOSE and been destroyed, its ops are no longer referenced
 * (inet_csk_destroy_sock(), which warns unless the socket is in TCP_CLOSE,
 * calls tcp_v4_destroy_sock() -> tcp_cleanup_congestion_control() ->
 * module_put()), and a drain and rmmod of that CCA may free them. So the
 * ops are read under RCU, and not at all for a socket in TCP_CLOSE (nor in
 * any other state a selection does not cover: a socket collected while
 * established, then disconnected and connecting again, waits for its
 * CCA's init()).
 *
 * That is enough even without the socket's lock: unloading a CCA
 * unregisters it with tcp_unregister_congestion_control(), which ends
 * with synchronize_rcu() before the module can be freed (net/ipv4/
 * tcp_cong.c, on 6.1 as on 6.12). A read section that began before that
 * grace period keeps the ops alive to its end; one that began after it
 * sees the socket's TCP_CLOSE, stored before the module reference was
 * dropped; and free_module() waits for a grace period of its own, which
 * covers ops not registered with TCP (fallback ops). The stack's own
 * sock_diag reads icsk_ca_ops under RCU too (inet_sk_diag_fill()), though
 * without a state check: it fills sockets after dropping the bucket lock,
 * destroyed ones included. One window is left to a reader that does not
 * own the socket: setsockopt(TCP_CONGESTION), as bpf_setsockopt(), drops
 * the old CCA's reference just before it stores the new ops
 * (tcp_reinit_congestion_control()); ccaas_sk_switch() stores first.
 *
 * Returns the ops of @sk, or NULL for a socket in a state outside
 * CCAAS_LOG_STATES (TCP_CLOSE among them). RCU is held.
 */
static const struct tcp_congestion_ops *
ccaas_logsel_sk_ops(const struct sock *sk)
{
	RCU_LOCKDEP_WARN(!rcu_read_lock_held(), "socket ops read without RCU");
	if (!((1 << READ_ONCE(sk->sk_state)) & CCAAS_LOG_STATES))
		return NULL;
	return READ_ONCE(inet_csk(sk)->icsk_ca_ops);
}

struct ccaas_logsel_walk {
	const struct ccaas_logsel *sel;	/* NULL: nothing selected */
	unsigned long *live;		/* bit i: sel->cookies[i] is live */
	struct ccaas_logsel_stats *st;
};

/*
 * Is @sk still a connection a selection covers (not closed meanwhile)? If
 * so, *@logs says whether its CCA is one that logs.
 */
static bool ccaas_logsel_sk_live(const struct sock *sk, bool *logs)
{
	const struct tcp_congestion_ops *ops;

	rcu_read_lock();
	ops = ccaas_logsel_sk_ops(sk);
	*logs = ops && ccaas_ops_logs(ops);
	rcu_read_unlock();
	return !!ops;
}

/* Is @sk selected? Marks its cookie live. */
static bool ccaas_logsel_walk_wants(struct ccaas_logsel_walk *w,
				    struct sock *sk, u64 cookie)
{
	long i;

	if (!w->sel)
		return false;
	i = ccaas_logsel_find(w->sel, cookie);
	if (i >= 0 && w->live)
		__set_bit(i, w->live);
	return w->sel->all || i >= 0;
}

/*
 * Set or clear @sk's logged bit; the socket is owned by the caller, so its
 * state and CCA cannot change meanwhile.
 */
static void ccaas_logsel_apply(struct sock *sk, struct ccaas_logsel_walk *w)
{
	struct ccaas_sock *cs = ccaas_sock(sk);
	bool want, logs;
	u64 cookie;

	if (!ccaas_logsel_sk_live(sk, &logs))
		return;
	cookie = ccaas_sk_cookie(sk);
	want = ccaas_logsel_walk_wants(w, sk, cookie);
	if (!logs) {
		if (want)
			w->st->other_cca++;
		return;
	}
	if (want && !cs->logged) {
		cs->logged = 1;
		ccaas_log_emit_init(sk, cookie);
	} else if (!want && cs->logged) {
		cs->logged = 0;
		w->st->stopped++;
	}
	if (cs->logged)
		w->st->logging++;
}

/*
 * Owned as the ACK path owns it, never by waiting for a task (walk.c): a
 * child in its listener's accept queue or an orphan has no task, and a
 * listener closing tears its children down under this same lock. Returns
 * false if a task owns @sk; if it still does after the walk's offers, its
 * bit changes at the next selection change or its CCA's next init().
 */
static bool ccaas_logsel_apply_one(struct sock *sk, void *arg)
{
	bool owned;

	local_bh_disable();
	bh_lock_sock(sk);
	owned = sock_owned_by_user(sk);
	if (!owned)
		ccaas_logsel_apply(sk, arg);
	bh_unlock_sock(sk);
	local_bh_enable();
	return !owned;
}

/*
 * Count only: the socket is not locked, and nothing is written to it. Any
 * user may ask for the count (LOG_GET).
 */
static bool ccaas_logsel_count_one(struct sock *sk, void *arg)
{
	struct ccaas_logsel_walk *w = arg;
	bool want, logs;

	if (!ccaas_logsel_sk_live(sk, &logs))
		return true;
	want = ccaas_logsel_walk_wants(w, sk, ccaas_sk_cookie(sk));
	if (!logs) {
		if (want)
			w->st->other_cca++;
	} else {
		/* A report: a change racing with it may or may not show. */
		if (data_race(ccaas_sock(sk)->logged != 0))
			w->st->logging++;
	}
	return true;
}

void ccaas_logsel_count(struct net *net, const struct ccaas_logsel *sel,
			unsigned long *live, struct ccaas_logsel_stats *st)
{
	struct ccaas_logsel_walk w = {
		.sel = sel, .live = live, .st = st,
	};

	ccaas_walk_sockets(net, CCAAS_LOG_STATES, ccaas_logsel_count_one, &w);
}

void ccaas_logsel_replace(struct net *net, struct ccaas_logsel *sel,
			  struct ccaas_logsel_stats *st)
{
	struct ccaas_net *cn = ccaas_net(net);
	struct ccaas_logsel_walk w = {
		.sel = sel, .st = st,
	};
	struct ccaas_logsel *old;

	lockdep_assert_held(&cn->lock);
	memset(st, 0, sizeof(*st));
	/* New CCA inits see @sel from here on; the walk fixes the live ones. */
	old = rcu_replace_pointer(cn->log.sel, sel, lockdep_is_held(&cn->lock));
	if (old)
		kfree_rcu(old, rcu);
	ccaas_walk_sockets(net, CCAAS_LOG_STATES, ccaas_logsel_apply_one, &w);
}

void ccaas_logsel_net_exit(struct ccaas_net *cn)
{
	struct ccaas_logsel *sel;

	/*
	 * The namespace is going away and nothing changes its selection any
	 * more; a CCA's init() on one of its last sockets may still read it.
	 */
	sel = rcu_replace_pointer(cn->log.sel, NULL, true);
	if (sel)
		kfree_rcu(sel, rcu);
}
