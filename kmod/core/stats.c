// SPDX-License-Identifier: GPL-2.0
/*
 * Metrics for operators: STATS_GET, and the counters behind it.
 *
 * Counters. Each namespace counts, per CPU, what the selector and the
 * migration passes did since the core was loaded (or the namespace was
 * created): connections and listeners placed, sockets moved by migrations
 * and by drains, moves the sticky-ECN rule refused, moves that failed, and
 * the passes. The selector counts from softirq, so the counters are per
 * CPU rather than shared atomics; STATS_GET sums them.
 *
 * Where the sockets are. STATS_GET also walks the namespace's connections
 * (every state that holds a CCA, SYN_SENT to LAST_ACK) once, the way the
 * SOCK_GET dump does (bucket lock and RCU, the socket not locked, so a
 * socket changing CCA meanwhile may be counted on either side), and
 * classifies each against the generation in force:
 * which CCA it is on, and for the rule that matches it, whether it is on
 * the rule's CCA, on that CCA's fallback ops, on a BPF CCA, pinned by the
 * application or a route, kept off by the sticky-ECN rule (on the CCA the
 * selector gives such a connection, "held", which a migration counts as
 * unchanged; or elsewhere, "refused"), or elsewhere (a migration would
 * move it). This is the compliance figure: the share of a rule's
 * connections on the CCA it names.
 *
 * Any user may ask, as any user may run `ss -ti`, so the walk must not hold
 * a CPU or a grace period for long: it takes the lock of one bucket at a
 * time, and every CCAAS_STATS_RESCHED buckets, empty or not, leaves RCU
 * and reschedules. Each time it finds the generation in force again; if a
 * commit replaced the one the walk began with, the walk starts over with
 * the new one (a rule's index means something only within one
 * generation), and after a few commits in a row it walks holding the
 * namespace's lock, which keeps commits out: only this namespace's, and
 * only while one walk of it lasts. The result, sized for the
 * generation's rules, is kept for the dump's messages (.start walks, .done
 * frees): the first message carries the counters and the per-CCA counts,
 * then one message per rule, so a thousand rules need no single huge
 * message.
 */
#include <linux/module.h>
#include <linux/slab.h>
#include <net/genetlink.h>
#include <net/inet_hashtables.h>
#include <net/tcp.h>

#include "core.h"
#include "sock.h"

/*
 * Distinct CCAs reported: a kernel registers a handful. Sockets on CCAs
 * beyond this many count only in CCAAS_A_STATS_SOCKETS.
 */
#define CCAAS_STATS_MAX_CCAS	64
/* Walks begun again because a commit replaced their generation. */
#define CCAAS_STATS_RESTARTS	3
/*
 * Buckets between two cond_resched(), with RCU dropped: one bucket holds a
 * few sockets, its lock taken with BHs off; an empty one costs a load.
 */
#define CCAAS_STATS_RESCHED	64

/* A socket's place against its rule, in the order they are tested. */
enum ccaas_rule_class {
	CCAAS_CLASS_ON_CCA,
	CCAAS_CLASS_FALLBACK,
	CCAAS_CLASS_BPF,
	CCAAS_CLASS_PINNED,
	CCAAS_CLASS_REFUSED,
	CCAAS_CLASS_OTHER,
	CCAAS_CLASS_HELD,
	__CCAAS_CLASS_MAX,
};

struct ccaas_stats_cca {
	/* compared; its name is copied under RCU when first seen */
	const struct tcp_congestion_ops *ops;
	char name[TCP_CA_NAME_MAX];
	u32 sockets;
};

struct ccaas_stats_rule {
	char cca[TCP_CA_NAME_MAX];
	u32 sockets;
	u32 class[__CCAAS_CLASS_MAX];
};

struct ccaas_stats_snap {
	u64 counters[__CCAAS_CNT_MAX];
	u32 generation;
	u32 sockets;
	u32 no_rule;
	unsigned int n_ccas;
	unsigned int n_rules;
	unsigned int max_rules;		/* room in @rules */
	struct ccaas_stats_cca ccas[CCAAS_STATS_MAX_CCAS];
	struct ccaas_stats_rule rules[];
};

/* STATS_GET takes no attributes; it reports the caller's namespace. */
const struct nla_policy ccaas_stats_nlpolicy[CCAAS_A_STATS_MAX + 1] = {
};

void ccaas_count_pass(struct ccaas_net *cn, bool drain,
		      const struct ccaas_migrate_stats *st)
{
	ccaas_count(cn, drain ? CCAAS_CNT_DRAINED : CCAAS_CNT_MIGRATED,
		    st->count[CCAAS_MOVE_MIGRATED]);
	ccaas_count(cn, CCAAS_CNT_REFUSED, st->count[CCAAS_MOVE_REFUSED]);
	ccaas_count(cn, CCAAS_CNT_ERRORS, st->count[CCAAS_MOVE_ERROR]);
	ccaas_count(cn, drain ? CCAAS_CNT_DRAINS : CCAAS_CNT_MIGRATIONS, 1);
}

/*
 * As migration decides (migrate.c): a socket the sticky-ECN rule keeps off
 * the rule's CCA is held if it is on the CCA the selector gives such a
 * connection (a migration counts it unchanged), refused anywhere else; a
 * migration moves only the others.
 */
static enum ccaas_rule_class
ccaas_stats_classify(const struct sock *sk, const struct tcp_congestion_ops *cur,
		     const struct ccaas_policy_gen *gen,
		     const struct ccaas_rule *rule)
{
	const struct tcp_congestion_ops *want = rule->cca.ops;
	const struct tcp_congestion_ops *holder;

	if (cur == want)
		return CCAAS_CLASS_ON_CCA;
	if (ccaas_ops_on_cca(cur, want))
		return CCAAS_CLASS_FALLBACK;
	if (ccaas_ops_bpf(cur))
		return CCAAS_CLASS_BPF;
	if (ccaas_sk_pinned(sk))
		return CCAAS_CLASS_PINNED;
	if (!ccaas_ecn_compatible(sk, want)) {
		holder = ccaas_ecn_child_cca(gen, sk, CCAAS_SIDE_GUESS,
					     !inet_csk(sk)->icsk_ca_initialized);
		if (holder && ccaas_ops_on_cca(cur, holder))
			return CCAAS_CLASS_HELD;
		return CCAAS_CLASS_REFUSED;
	}
	return CCAAS_CLASS_OTHER;
}

static void ccaas_stats_count_cca(struct ccaas_stats_snap *snap,
				  const struct tcp_congestion_ops *ops)
{
	unsigned int i;

	for (i = 0; i < snap->n_ccas; i++) {
		if (snap->ccas[i].ops == ops) {
			snap->ccas[i].sockets++;
			return;
		}
	}
	if (i == CCAAS_STATS_MAX_CCAS)
		return;
	snap->ccas[i].ops = ops;
	strscpy(snap->ccas[i].name, ops->name, sizeof(snap->ccas[i].name));
	snap->ccas[i].sockets = 1;
	snap->n_ccas++;
}

/*
 * Under the bucket lock and RCU; the socket is hashed, in a state that
 * holds its CCA (CCAAS_CONN_STATES).
 */
static void ccaas_stats_one(struct ccaas_stats_snap *snap, struct ccaas_net *cn,
			    const struct ccaas_policy_gen *gen, struct sock *sk)
{
	const struct tcp_congestion_ops *cur = READ_ONCE(inet_csk(sk)->icsk_ca_ops);
	struct ccaas_scope_result scope;
	const struct ccaas_rule *rule;
	struct ccaas_stats_rule *r;

	snap->sockets++;
	ccaas_stats_count_cca(snap, cur);
	ccaas_sk_scope(cn, sk, &scope);
	rule = ccaas_policy_match(gen, &scope, sk);
	if (!rule) {
		snap->no_rule++;
		return;
	}
	r = &snap->rules[rule - gen->rules];
	r->sockets++;
	r->class[ccaas_stats_classify(sk, cur, gen, rule)]++;
}

/* Bucket @bucket's connections of @net, under its lock. */
static void ccaas_stats_bucket(struct net *net, struct ccaas_net *cn,
			       const struct ccaas_policy_gen *gen,
			       unsigned long bucket, struct ccaas_stats_snap *snap)
{
	struct inet_hashinfo *hinfo = net->ipv4.tcp_death_row.hashinfo;
	spinlock_t *lock = inet_ehash_lockp(hinfo, bucket);
	struct hlist_nulls_node *node;
	struct sock *sk;

	spin_lock_bh(lock);
	sk_nulls_for_each(sk, node, &hinfo->ehash[bucket].chain) {
		if (net_eq(sock_net(sk), net) &&
		    ((1 << sk->sk_state) & CCAAS_CONN_STATES))
			ccaas_stats_one(snap, cn, gen, sk);
	}
	spin_unlock_bh(lock);
}

/* A snapshot with room for the rules of the generation now in force. */
static struct ccaas_stats_snap *ccaas_stats_alloc(struct ccaas_net *cn)
{
	struct ccaas_stats_snap *snap;
	unsigned int n;

	rcu_read_lock();
	n = ccaas_policy_current(cn)->n_rules;
	rcu_read_unlock();
	snap = kvzalloc(struct_size(snap, rules, n), GFP_KERNEL_ACCOUNT);
	if (snap)
		snap->max_rules = n;
	return snap;
}

/*
 * Walk the established hash (every connection, SYN_SENT to LAST_ACK) into
 * a new snapshot: ERR_PTR(-ENOMEM), or ERR_PTR(-EAGAIN) if a commit came
 * in between. @locked: the caller holds
 * ccaas_net.lock, so no commit can.
 */
static struct ccaas_stats_snap *ccaas_stats_walk(struct net *net,
						 struct ccaas_net *cn, bool locked)
{
	struct inet_hashinfo *hinfo = net->ipv4.tcp_death_row.hashinfo;
	const struct ccaas_policy_gen *gen;
	struct ccaas_stats_snap *snap;
	unsigned long bucket;
	unsigned int i;
	u32 generation;

	snap = ccaas_stats_alloc(cn);
	if (!snap)
		return ERR_PTR(-ENOMEM);
	rcu_read_lock();
	gen = ccaas_policy_current(cn);
	if (gen->n_rules > snap->max_rules) {
		/* a commit since the allocation added rules: again */
		rcu_read_unlock();
		kvfree(snap);
		return ERR_PTR(-EAGAIN);
	}
	generation = gen->generation;
	snap->generation = generation;
	snap->n_rules = gen->n_rules;
	for (i = 0; i < gen->n_rules; i++)
		strscpy(snap->rules[i].cca, gen->rules[i].cca_name,
			sizeof(snap->rules[i].cca));
	for (bucket = 0; bucket <= hinfo->ehash_mask; bucket++) {
		/* Empty buckets count too: a long run of them is no excuse. */
		if (bucket && !(bucket % CCAAS_STATS_RESCHED)) {
			rcu_read_unlock();
			cond_resched();
			rcu_read_lock();
			gen = ccaas_policy_current(cn);
			if (gen->generation != generation) {
				WARN_ON_ONCE(locked);
				rcu_read_unlock();
				kvfree(snap);
				return ERR_PTR(-EAGAIN);
			}
		}
		if (!hlist_nulls_empty(&hinfo->ehash[bucket].chain))
			ccaas_stats_bucket(net, cn, gen, bucket, snap);
	}
	rcu_read_unlock();
	return snap;
}

int ccaas_nl_stats_start(struct netlink_callback *cb)
{
	struct net *net = sock_net(cb->skb->sk);
	struct ccaas_net *cn = ccaas_net(net);
	struct ccaas_stats_snap *snap;
	unsigned int i, tries = 0;
	int cpu;

	do {
		snap = ccaas_stats_walk(net, cn, false);
	} while (PTR_ERR_OR_ZERO(snap) == -EAGAIN && ++tries < CCAAS_STATS_RESTARTS);
	if (PTR_ERR_OR_ZERO(snap) == -EAGAIN) {
		mutex_lock(&cn->lock);
		snap = ccaas_stats_walk(net, cn, true);
		mutex_unlock(&cn->lock);
	}
	if (IS_ERR(snap))
		return PTR_ERR(snap);
	for_each_possible_cpu(cpu) {
		const struct ccaas_counters *c = per_cpu_ptr(cn->counters, cpu);

		for (i = 0; i < __CCAAS_CNT_MAX; i++)
			snap->counters[i] += READ_ONCE(c->c[i]);
	}
	cb->args[0] = (long)snap;
	cb->args[1] = 0;
	return 0;
}

int ccaas_nl_stats_done(struct netlink_callback *cb)
{
	kvfree((void *)cb->args[0]);
	return 0;
}

/* Counter i of the snapshot is attribute ccaas_counter_attr[i]. */
static const int ccaas_counter_attr[__CCAAS_CNT_MAX] = {
	[CCAAS_CNT_SELECTED] = CCAAS_A_STATS_SELECTED,
	[CCAAS_CNT_LISTENERS_SELECTED] = CCAAS_A_STATS_LISTENERS_SELECTED,
	[CCAAS_CNT_MIGRATED] = CCAAS_A_STATS_MIGRATED,
	[CCAAS_CNT_DRAINED] = CCAAS_A_STATS_DRAINED,
	[CCAAS_CNT_REFUSED] = CCAAS_A_STATS_REFUSED,
	[CCAAS_CNT_ERRORS] = CCAAS_A_STATS_ERRORS,
	[CCAAS_CNT_MIGRATIONS] = CCAAS_A_STATS_MIGRATIONS,
	[CCAAS_CNT_DRAINS] = CCAAS_A_STATS_DRAINS,
};

static int ccaas_stats_put_head(struct sk_buff *skb,
				const struct ccaas_stats_snap *snap)
{
	struct nlattr *nest;
	unsigned int i;

	if (nla_put_u32(skb, CCAAS_A_STATS_GENERATION, snap->generation) ||
	    nla_put_u32(skb, CCAAS_A_STATS_SOCKETS, snap->sockets) ||
	    nla_put_u32(skb, CCAAS_A_STATS_NO_RULE, snap->no_rule))
		return -EMSGSIZE;
	for (i = 0; i < __CCAAS_CNT_MAX; i++)
		if (nla_put_u64_64bit(skb, ccaas_counter_attr[i],
				      snap->counters[i], CCAAS_A_STATS_UNSPEC))
			return -EMSGSIZE;
	for (i = 0; i < snap->n_ccas; i++) {
		nest = nla_nest_start(skb, CCAAS_A_STATS_CCA);
		if (!nest ||
		    nla_put_string(skb, CCAAS_A_STATS_CCA_NAME, snap->ccas[i].name) ||
		    nla_put_u32(skb, CCAAS_A_STATS_CCA_SOCKETS,
				snap->ccas[i].sockets))
			return -EMSGSIZE;
		nla_nest_end(skb, nest);
	}
	return 0;
}

/* Rule class i is attribute ccaas_class_attr[i]. */
static const int ccaas_class_attr[__CCAAS_CLASS_MAX] = {
	[CCAAS_CLASS_ON_CCA] = CCAAS_A_STATS_RULE_ON_CCA,
	[CCAAS_CLASS_FALLBACK] = CCAAS_A_STATS_RULE_FALLBACK,
	[CCAAS_CLASS_BPF] = CCAAS_A_STATS_RULE_BPF,
	[CCAAS_CLASS_PINNED] = CCAAS_A_STATS_RULE_PINNED,
	[CCAAS_CLASS_REFUSED] = CCAAS_A_STATS_RULE_REFUSED,
	[CCAAS_CLASS_HELD] = CCAAS_A_STATS_RULE_HELD,
	[CCAAS_CLASS_OTHER] = CCAAS_A_STATS_RULE_OTHER,
};

static int ccaas_stats_put_rule(struct sk_buff *skb,
				const struct ccaas_stats_snap *snap,
				unsigned int index)
{
	const struct ccaas_stats_rule *r = &snap->rules[index];
	struct nlattr *nest;
	unsigned int i;

	if (nla_put_u32(skb, CCAAS_A_STATS_GENERATION, snap->generation))
		return -EMSGSIZE;
	nest = nla_nest_start(skb, CCAAS_A_STATS_RULE);
	if (!nest ||
	    nla_put_u32(skb, CCAAS_A_STATS_RULE_INDEX, index) ||
	    nla_put_string(skb, CCAAS_A_STATS_RULE_CCA, r->cca) ||
	    nla_put_u32(skb, CCAAS_A_STATS_RULE_SOCKETS, r->sockets))
		return -EMSGSIZE;
	for (i = 0; i < __CCAAS_CLASS_MAX; i++)
		if (nla_put_u32(skb, ccaas_class_attr[i], r->class[i]))
			return -EMSGSIZE;
	nla_nest_end(skb, nest);
	return 0;
}

/* cb->args[1]: the next message, 0 the counters, 1 + i rule i. */
int ccaas_nl_stats_dumpit(struct sk_buff *skb, struct netlink_callback *cb)
{
	const struct ccaas_stats_snap *snap = (void *)cb->args[0];
	unsigned long next = cb->args[1];
	void *hdr;
	int err;

	for (; next <= snap->n_rules; next++) {
		hdr = genlmsg_put(skb, NETLINK_CB(cb->skb).portid,
				  cb->nlh->nlmsg_seq, &ccaas_family,
				  NLM_F_MULTI, CCAAS_CMD_STATS_GET);
		if (!hdr)
			break;
		err = next ? ccaas_stats_put_rule(skb, snap, next - 1) :
			     ccaas_stats_put_head(skb, snap);
		if (err) {
			genlmsg_cancel(skb, hdr);
			break;
		}
		genlmsg_end(skb, hdr);
	}
	cb->args[1] = next;
	/* a message that does not fit an empty buffer never will */
	if (next <= snap->n_rules && !skb->len)
		return -EMSGSIZE;
	return skb->len;
}
