// SPDX-License-Identifier: GPL-2.0
/*
 * Walking a network namespace's TCP sockets (the established hash: every
 * state from SYN_RECV children to LAST_ACK; not listeners, not TIME_WAIT).
 *
 * Bucket by bucket of the namespace's established hash: under the bucket
 * lock, take a reference on each socket of the namespace (those whose
 * refcount is not already zero); drop the lock; then hand each socket to
 * the callback, which may sleep and lock the socket, and drop the reference
 * with sock_gen_put(). Sockets added or removed meanwhile may or may not be
 * seen, as with any walk of a live table.
 */
#include <net/inet_hashtables.h>
#include <net/tcp.h>

#include "core.h"
#include "sock.h"

/* Sockets collected per bucket lock hold; a longer chain takes more passes. */
#define CCAAS_WALK_BATCH	64

/*
 * Collect up to CCAAS_WALK_BATCH sockets of @net from bucket @head, skipping
 * the first @skip matching ones; return how many were collected.
 */
static unsigned int ccaas_walk_bucket(struct inet_hashinfo *hinfo,
				      unsigned int bucket, struct net *net,
				      u32 states, unsigned int skip,
				      struct sock **batch)
{
	struct inet_ehash_bucket *head = &hinfo->ehash[bucket];
	spinlock_t *lock = inet_ehash_lockp(hinfo, bucket);
	struct hlist_nulls_node *node;
	unsigned int n = 0, seen = 0;
	struct sock *sk;

	if (hlist_nulls_empty(&head->chain))
		return 0;

	spin_lock_bh(lock);
	sk_nulls_for_each(sk, node, &head->chain) {
		if (!net_eq(sock_net(sk), net) ||
		    !((1 << sk->sk_state) & states))
			continue;
		if (seen++ < skip)
			continue;
		if (!refcount_inc_not_zero(&sk->sk_refcnt))
			continue;
		batch[n++] = sk;
		if (n == CCAAS_WALK_BATCH)
			break;
	}
	spin_unlock_bh(lock);
	return n;
}

void ccaas_walk_sockets(struct net *net, u32 states, ccaas_sock_fn fn,
			void *arg)
{
	struct inet_hashinfo *hinfo = net->ipv4.tcp_death_row.hashinfo;
	/* On the stack (512 bytes), so that a walk cannot fail. */
	struct sock *batch[CCAAS_WALK_BATCH];
	unsigned int bucket, n, i, skip;

	for (bucket = 0; bucket <= hinfo->ehash_mask; bucket++) {
		skip = 0;
		do {
			n = ccaas_walk_bucket(hinfo, bucket, net, states, skip,
					      batch);
			for (i = 0; i < n; i++) {
				fn(batch[i], arg);
				sock_gen_put(batch[i]);
			}
			skip += n;
			cond_resched();
		} while (n == CCAAS_WALK_BATCH);
	}
}
