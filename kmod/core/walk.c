// SPDX-License-Identifier: GPL-2.0
/*
 * Walking a network namespace's TCP sockets: listeners, in the listening
 * hash, and the established hash (every state from SYN_RECV children to
 * LAST_ACK; not TIME_WAIT). A TCP socket is in one or the other.
 *
 * Bucket by bucket, as the kernel's own TCP iterator does (tcp_ipv4.c):
 * under the bucket lock, take a reference on each socket of the namespace
 * (those whose refcount is not already zero); drop the lock; then hand
 * each socket to the callback, which may sleep and lock the socket, and
 * drop the reference with sock_gen_put(). Sockets added or removed
 * meanwhile may or may not be seen, as with any walk of a live table.
 *
 * A chain longer than one batch is resumed by count, as the kernel's
 * iterator resumes: if a socket earlier in the chain leaves between two
 * batches, the next batch starts one socket late and misses one. Hash
 * chains are short, but a listening bucket holds every SO_REUSEPORT
 * listener of one address and port: with more than CCAAS_WALK_BATCH of
 * them and one closing during the pass, that pass may miss a listener.
 * The next pass (migrate, drain) sees it.
 *
 * The listening hash (lhash2) is the same on 6.1 and 6.12: buckets of
 * struct inet_listen_hashbucket, a spinlock and an hlist_nulls of
 * listeners linked by sk_nulls_node, shared by IPv4 and IPv6. Its lock is
 * taken without disabling BHs, as inet_unhash() and the kernel's iterator
 * take it.
 */
#include <net/inet_hashtables.h>
#include <net/tcp.h>

#include "core.h"
#include "sock.h"

/* Sockets collected per bucket lock hold; a longer chain takes more passes. */
#define CCAAS_WALK_BATCH	64

/*
 * Collect up to CCAAS_WALK_BATCH sockets of @net in @states from @chain,
 * whose bucket lock the caller holds, skipping the first @skip matching
 * ones; return how many were collected.
 */
static unsigned int ccaas_walk_chain(struct hlist_nulls_head *chain,
				     struct net *net, u32 states,
				     unsigned int skip, struct sock **batch)
{
	struct hlist_nulls_node *node;
	unsigned int n = 0, seen = 0;
	struct sock *sk;

	sk_nulls_for_each(sk, node, chain) {
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
	return n;
}

/* One established-hash bucket (ccaas_walk_chain()). */
static unsigned int ccaas_walk_ehash(struct inet_hashinfo *hinfo,
				     unsigned int bucket, struct net *net,
				     u32 states, unsigned int skip,
				     struct sock **batch)
{
	struct inet_ehash_bucket *head = &hinfo->ehash[bucket];
	spinlock_t *lock = inet_ehash_lockp(hinfo, bucket);
	unsigned int n;

	if (hlist_nulls_empty(&head->chain))
		return 0;
	spin_lock_bh(lock);
	n = ccaas_walk_chain(&head->chain, net, states, skip, batch);
	spin_unlock_bh(lock);
	return n;
}

/* One listening-hash bucket (ccaas_walk_chain()). */
static unsigned int ccaas_walk_lhash(struct inet_hashinfo *hinfo,
				     unsigned int bucket, struct net *net,
				     u32 states, unsigned int skip,
				     struct sock **batch)
{
	struct inet_listen_hashbucket *ilb2 = &hinfo->lhash2[bucket];
	unsigned int n;

	if (hlist_nulls_empty(&ilb2->nulls_head))
		return 0;
	spin_lock(&ilb2->lock);
	n = ccaas_walk_chain(&ilb2->nulls_head, net, states, skip, batch);
	spin_unlock(&ilb2->lock);
	return n;
}

typedef unsigned int (*ccaas_walk_bucket_fn)(struct inet_hashinfo *hinfo,
					     unsigned int bucket,
					     struct net *net, u32 states,
					     unsigned int skip,
					     struct sock **batch);

static void ccaas_walk_table(struct inet_hashinfo *hinfo,
			     unsigned int buckets, ccaas_walk_bucket_fn collect,
			     struct net *net, u32 states, ccaas_sock_fn fn,
			     void *arg)
{
	/* On the stack (512 bytes), so that a walk cannot fail. */
	struct sock *batch[CCAAS_WALK_BATCH];
	unsigned int bucket, n, i, skip;

	for (bucket = 0; bucket < buckets; bucket++) {
		skip = 0;
		do {
			n = collect(hinfo, bucket, net, states, skip, batch);
			for (i = 0; i < n; i++) {
				fn(batch[i], arg);
				sock_gen_put(batch[i]);
			}
			skip += n;
			cond_resched();
		} while (n == CCAAS_WALK_BATCH);
	}
}

void ccaas_walk_sockets(struct net *net, u32 states, ccaas_sock_fn fn,
			void *arg)
{
	struct inet_hashinfo *hinfo = net->ipv4.tcp_death_row.hashinfo;

	/* Listeners first: a drain then leaves fewer new children behind. */
	if (states & TCPF_LISTEN)
		ccaas_walk_table(hinfo, hinfo->lhash2_mask + 1,
				 ccaas_walk_lhash, net, TCPF_LISTEN, fn, arg);
	if (states & ~TCPF_LISTEN)
		ccaas_walk_table(hinfo, hinfo->ehash_mask + 1,
				 ccaas_walk_ehash, net, states & ~TCPF_LISTEN,
				 fn, arg);
}
