// SPDX-License-Identifier: GPL-2.0
/*
 * Walking a network namespace's TCP sockets: listeners, in the listening
 * hash, and the established hash (every state from SYN_RECV children to
 * LAST_ACK; not TIME_WAIT). A TCP socket is in one or the other.
 *
 * Bucket by bucket, as the kernel's own TCP iterator does (tcp_ipv4.c):
 * under the bucket lock, take a reference on each socket of the namespace
 * (those whose refcount is not already zero); drop the lock; then hand
 * each socket to the callback, and drop the reference with sock_gen_put().
 * Sockets added or removed meanwhile may or may not be seen, as with any
 * walk of a live table.
 *
 * The callbacks run inside genetlink handlers, under genl's cb_lock and the
 * namespace's mutex, so they never sleep on a socket's lock: a task may
 * hold that as long as it likes (a send() from a page that faults in from
 * userfaultfd or FUSE), and every genl request and family registration on
 * the host would queue behind it. A callback owns the socket as the
 * stack's softirq paths do (bh_lock_sock()) and gives it back if a task
 * owns it. The walk keeps those, with their reference, and offers them
 * again after the table, every millisecond for up to a second: a task in
 * a send() or recv() lets go between its copies. What is still owned then
 * is counted and reported (a migration's "busy"); the next pass moves it.
 * A fatal signal to the requesting task ends the offers at once.
 *
 * A chain longer than one batch is resumed by count, as the kernel's
 * iterator resumes: every matching socket passed counts, whether its
 * reference could be taken or not, so a quiet chain is never visited
 * twice; if a socket earlier in the chain leaves between two batches, the
 * next batch starts one socket late and misses one. Hash
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
#include <linux/delay.h>
#include <linux/jiffies.h>
#include <linux/mm.h>
#include <linux/sched/signal.h>
#include <linux/slab.h>
#include <net/inet_hashtables.h>
#include <net/tcp.h>

#include "core.h"
#include "sock.h"

/* Sockets collected per bucket lock hold; a longer chain takes more passes. */
#define CCAAS_WALK_BATCH	64
/*
 * Sockets a task owned, kept for another offer: at most this many (16 KiB
 * of pointers), the rest are counted busy at once.
 */
#define CCAAS_WALK_BUSY_MAX	2048
/*
 * After the table, the kept sockets are offered again every
 * CCAAS_WALK_RETRY_US for at most CCAAS_WALK_RETRY_MS. A sender that keeps
 * its socket busy (a bulk send() copying data in, under an emulated CPU)
 * owns it most of the time but lets go between its copies; a second of
 * offers catches it. A task that holds the lock for good costs each pass
 * that second, bounded, instead of forever.
 */
#define CCAAS_WALK_RETRY_US	1000
#define CCAAS_WALK_RETRY_MS	1000

struct ccaas_walk {
	ccaas_sock_fn fn;
	void *arg;
	struct sock **busy;		/* owned by a task, with a reference */
	unsigned int n_busy;
	unsigned int lost;		/* owned, and no room to keep them */
};

/*
 * Collect up to CCAAS_WALK_BATCH sockets of @net in @states from @chain,
 * whose bucket lock the caller holds, after the first @skip matching ones;
 * return how many were collected, and in *@passed how many matching
 * sockets the batch went past (those with no reference to take included).
 */
static unsigned int ccaas_walk_chain(struct hlist_nulls_head *chain,
				     struct net *net, u32 states,
				     unsigned int skip, struct sock **batch,
				     unsigned int *passed)
{
	struct hlist_nulls_node *node;
	unsigned int n = 0, seen = 0;
	struct sock *sk;

	*passed = 0;
	sk_nulls_for_each(sk, node, chain) {
		if (!net_eq(sock_net(sk), net) ||
		    !((1 << sk->sk_state) & states))
			continue;
		if (seen++ < skip)
			continue;
		(*passed)++;
		if (!refcount_inc_not_zero(&sk->sk_refcnt))
			continue;
		batch[n++] = sk;
		if (n == CCAAS_WALK_BATCH)
			break;
	}
	return n;
}

/* Offer @sk to the callback; keep it (and its reference) if a task owns it. */
static void ccaas_walk_offer(struct ccaas_walk *w, struct sock *sk)
{
	if (w->fn(sk, w->arg)) {
		sock_gen_put(sk);
		return;
	}
	if (!w->busy && !w->lost)
		w->busy = kvmalloc_array(CCAAS_WALK_BUSY_MAX,
					 sizeof(*w->busy), GFP_KERNEL_ACCOUNT);
	if (w->busy && w->n_busy < CCAAS_WALK_BUSY_MAX) {
		w->busy[w->n_busy++] = sk;
		return;
	}
	w->lost++;
	sock_gen_put(sk);
}

/* Offer the kept sockets again; return how many a task still owns. */
static unsigned int ccaas_walk_retry(struct ccaas_walk *w)
{
	unsigned long end = jiffies + msecs_to_jiffies(CCAAS_WALK_RETRY_MS);
	unsigned int i, left;

	while (w->n_busy && time_before(jiffies, end) &&
	       !fatal_signal_pending(current)) {
		usleep_range(CCAAS_WALK_RETRY_US, 2 * CCAAS_WALK_RETRY_US);
		for (i = 0, left = 0; i < w->n_busy; i++) {
			struct sock *sk = w->busy[i];

			if (w->fn(sk, w->arg))
				sock_gen_put(sk);
			else
				w->busy[left++] = sk;
		}
		w->n_busy = left;
	}
	for (i = 0; i < w->n_busy; i++)
		sock_gen_put(w->busy[i]);
	kvfree(w->busy);
	return w->n_busy + w->lost;
}

/* One established-hash bucket (ccaas_walk_chain()). */
static unsigned int ccaas_walk_ehash(struct inet_hashinfo *hinfo,
				     unsigned int bucket, struct net *net,
				     u32 states, unsigned int skip,
				     struct sock **batch, unsigned int *passed)
{
	struct inet_ehash_bucket *head = &hinfo->ehash[bucket];
	spinlock_t *lock = inet_ehash_lockp(hinfo, bucket);
	unsigned int n;

	*passed = 0;
	if (hlist_nulls_empty(&head->chain))
		return 0;
	spin_lock_bh(lock);
	n = ccaas_walk_chain(&head->chain, net, states, skip, batch, passed);
	spin_unlock_bh(lock);
	return n;
}

/* One listening-hash bucket (ccaas_walk_chain()). */
static unsigned int ccaas_walk_lhash(struct inet_hashinfo *hinfo,
				     unsigned int bucket, struct net *net,
				     u32 states, unsigned int skip,
				     struct sock **batch, unsigned int *passed)
{
	struct inet_listen_hashbucket *ilb2 = &hinfo->lhash2[bucket];
	unsigned int n;

	*passed = 0;
	if (hlist_nulls_empty(&ilb2->nulls_head))
		return 0;
	spin_lock(&ilb2->lock);
	n = ccaas_walk_chain(&ilb2->nulls_head, net, states, skip, batch,
			     passed);
	spin_unlock(&ilb2->lock);
	return n;
}

typedef unsigned int (*ccaas_walk_bucket_fn)(struct inet_hashinfo *hinfo,
					     unsigned int bucket,
					     struct net *net, u32 states,
					     unsigned int skip,
					     struct sock **batch,
					     unsigned int *passed);

static void ccaas_walk_table(struct inet_hashinfo *hinfo,
			     unsigned int buckets, ccaas_walk_bucket_fn collect,
			     struct net *net, u32 states, struct ccaas_walk *w)
{
	/* On the stack (512 bytes), so that a walk cannot fail. */
	struct sock *batch[CCAAS_WALK_BATCH];
	unsigned int bucket, n, i, skip, passed;

	for (bucket = 0; bucket < buckets; bucket++) {
		skip = 0;
		do {
			n = collect(hinfo, bucket, net, states, skip, batch,
				    &passed);
			for (i = 0; i < n; i++)
				ccaas_walk_offer(w, batch[i]);
			skip += passed;
			cond_resched();
		} while (n == CCAAS_WALK_BATCH);
	}
}

unsigned int ccaas_walk_sockets(struct net *net, u32 states, ccaas_sock_fn fn,
				void *arg)
{
	struct inet_hashinfo *hinfo = net->ipv4.tcp_death_row.hashinfo;
	struct ccaas_walk w = { .fn = fn, .arg = arg };

	/* Listeners first: a drain then leaves fewer new children behind. */
	if (states & TCPF_LISTEN)
		ccaas_walk_table(hinfo, hinfo->lhash2_mask + 1,
				 ccaas_walk_lhash, net, TCPF_LISTEN, &w);
	if (states & ~TCPF_LISTEN)
		ccaas_walk_table(hinfo, hinfo->ehash_mask + 1,
				 ccaas_walk_ehash, net, states & ~TCPF_LISTEN,
				 &w);
	return ccaas_walk_retry(&w);
}
