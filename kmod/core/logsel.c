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
 * closed can only be pruned: each add and del keeps only the cookies of
 * live connections. A cookie on a connection whose CCA is not a ccaas one
 * stays selected: the connection is logged if it moves to one.
 */
#include <linux/bsearch.h>
#include <linux/slab.h>
#include <linux/sort.h>
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

struct ccaas_logsel_walk {
	const struct ccaas_logsel *sel;	/* NULL: nothing selected */
	bool apply;			/* set/clear the logged bits */
	unsigned long *live;		/* bit i: sel->cookies[i] is live */
	struct ccaas_logsel_stats *st;
};

static void ccaas_logsel_one(struct sock *sk, void *arg)
{
	struct ccaas_logsel_walk *w = arg;
	struct ccaas_sock *cs;
	bool want = false;
	u64 cookie;
	long i;

	lock_sock(sk);
	/* As migrate.c: children not yet accepted are left to their init(). */
	if (sk->sk_state != TCP_ESTABLISHED || !sk->sk_socket)
		goto out;
	cookie = ccaas_sk_cookie(sk);
	if (w->sel) {
		i = ccaas_logsel_find(w->sel, cookie);
		if (i >= 0 && w->live)
			__set_bit(i, w->live);
		want = w->sel->all || i >= 0;
	}
	if (!ccaas_registry_by_ops(inet_csk(sk)->icsk_ca_ops)) {
		if (want)
			w->st->other_cca++;
		goto out;
	}
	cs = ccaas_sock(sk);
	if (w->apply && want && !cs->logged) {
		cs->logged = 1;
		ccaas_log_emit_init(sk, cookie);
	} else if (w->apply && !want && cs->logged) {
		cs->logged = 0;
		w->st->stopped++;
	}
	if (cs->logged)
		w->st->logging++;
out:
	release_sock(sk);
}

int ccaas_logsel_count(struct net *net, const struct ccaas_logsel *sel,
		       unsigned long *live, struct ccaas_logsel_stats *st)
{
	struct ccaas_logsel_walk w = {
		.sel = sel, .live = live, .st = st,
	};

	return ccaas_walk_established(net, ccaas_logsel_one, &w);
}

int ccaas_logsel_replace(struct net *net, struct ccaas_logsel *sel,
			 struct ccaas_logsel_stats *st)
{
	struct ccaas_net *cn = ccaas_net(net);
	struct ccaas_logsel_walk w = {
		.sel = sel, .apply = true, .st = st,
	};
	struct ccaas_logsel *old;

	lockdep_assert_held(&cn->lock);
	memset(st, 0, sizeof(*st));
	/* New CCA inits see @sel from here on; the walk fixes the live ones. */
	old = rcu_replace_pointer(cn->log.sel, sel, lockdep_is_held(&cn->lock));
	if (old)
		kfree_rcu(old, rcu);
	return ccaas_walk_established(net, ccaas_logsel_one, &w);
}

void ccaas_logsel_net_exit(struct ccaas_net *cn)
{
	/* No socket of the namespace is left to read it. */
	kfree(rcu_dereference_protected(cn->log.sel, true));
}
