/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The policy store: rules from a connection's scope to a CCA, its parameters
 * and cross-layer knobs, kept as immutable generations (policy.c), and the
 * netlink commands that change and show them (policy_nl.c).
 *
 * Readers (the selector, the migrator) take the generation in force with
 * ccaas_policy_current() under rcu_read_lock() and look a connection up with
 * ccaas_policy_match(); writers build a new generation beside it and publish
 * it under ccaas_net.lock. See policy.c for the precedence of rules.
 */
#ifndef _CCAAS_POLICY_H
#define _CCAAS_POLICY_H

#include <linux/list.h>
#include <linux/rcupdate.h>
#include <linux/refcount.h>
#include <linux/types.h>
#include <net/genetlink.h>
#include <uapi/linux/ccaas.h>

struct ccaas_cca;
struct ccaas_cgroup;
struct ccaas_net;
struct ccaas_scope_result;
struct sock;
struct tcp_congestion_ops;

/* Rules in one generation: a host's policy is a handful to hundreds. */
#define CCAAS_POLICY_MAX_RULES		1024
/*
 * Up to this many rules, a lookup walks them rather than use the index:
 * the walk's cost is about 20 instructions per rule passed over, the
 * index's about 25 per step of its binary search plus its setup, so the
 * walk is cheaper for small policies (bench/README.md, section 7).
 */
#define CCAAS_POLICY_WALK_RULES		16
/* CCA parameters one rule may set (no CCA has more than a few). */
#define CCAAS_RULE_MAX_PARAMS		8

/*
 * Generations kept for `policy history` and `policy rollback` (module
 * parameter policy_history): at least the current one and one to go back
 * to; at most 64, which bounds the memory a namespace's history may take.
 */
#define CCAAS_POLICY_HISTORY_MIN	2
#define CCAAS_POLICY_HISTORY_MAX	64
#define CCAAS_POLICY_HISTORY_DEFAULT	16

/*
 * Bounds of the cross-layer knobs. Plain numbers, so that the extack
 * messages can name them.
 *
 * Minimum RTO, microseconds: not below 1 ms, which is already under the
 * timer granularity of a HZ=250 kernel (4 ms) and what data-center incast
 * needs; not above 200 ms, the kernel's own floor (TCP_RTO_MIN): the knob
 * lowers the floor, it is not a way to slow retransmissions down.
 */
#define CCAAS_RULE_MIN_RTO_MIN_US	1000
#define CCAAS_RULE_MIN_RTO_MAX_US	200000
/*
 * Initial congestion window, packets: at least 2, since one segment waits
 * for a receiver's delayed-ACK timer; at most 1000 (1.5 MB at a 1500-byte
 * MTU), beyond any path a first burst should be sent into.
 */
#define CCAAS_RULE_INIT_CWND_MIN	2
#define CCAAS_RULE_INIT_CWND_MAX	1000
/*
 * TSO segment floor, segments per TSO packet: the range of the kernel's
 * own net.ipv4.tcp_min_tso_segs.
 */
#define CCAAS_RULE_TSO_SEGS_MIN		1
#define CCAAS_RULE_TSO_SEGS_MAX		255

/* Which optional match fields a rule sets (ccaas_rule_match.fields). */
enum {
	CCAAS_MATCH_REGION	= BIT(0),
	CCAAS_MATCH_DC		= BIT(1),
	CCAAS_MATCH_LOCAL	= BIT(2),
	CCAAS_MATCH_CGROUP	= BIT(3),
	CCAAS_MATCH_PORT	= BIT(4),
};

/* The service fields: a rule with either is a service rule (policy.c). */
#define CCAAS_MATCH_SERVICE	(CCAAS_MATCH_CGROUP | CCAAS_MATCH_PORT)

/**
 * struct ccaas_rule_match - which connections a rule applies to
 * @region: destination region id, with CCAAS_MATCH_REGION
 * @dc: destination data center id, with CCAAS_MATCH_DC
 * @locality: enum ccaas_locality the destination must have;
 *	CCAAS_LOCALITY_UNKNOWN (0) means none: the default rule
 * @fields: CCAAS_MATCH_* bits
 * @local_family: AF_INET or AF_INET6, with CCAAS_MATCH_LOCAL
 * @local_prefixlen: length of the local prefix
 * @local_addr: local prefix, network order (4 bytes for IPv4), no bits set
 *	past @local_prefixlen
 * @cgroup: with CCAAS_MATCH_CGROUP, the cgroup path whose cgroup's sockets,
 *	and those of the cgroups below it, the rule applies to: a socket
 *	matches if its cgroup's ancestor at the path's depth is the cgroup
 *	at the path now (cgroup_bind.c); the rule holds a reference
 * @port_min: with CCAAS_MATCH_PORT, the first service port, host order
 * @port_max: the last; @port_min <= @port_max
 *
 * Two rules with equal matches are the same rule. Unused fields are zero.
 */
struct ccaas_rule_match {
	u32 region;
	u32 dc;
	u8 locality;
	u8 fields;
	u8 local_family;
	u8 local_prefixlen;
	u8 local_addr[16];
	struct ccaas_cgroup *cgroup;
	u16 port_min;
	u16 port_max;
};

/* Which cross-layer knobs a rule sets (ccaas_rule.knobs). */
enum {
	CCAAS_KNOB_MIN_RTO	= BIT(0),
	CCAAS_KNOB_INIT_CWND	= BIT(1),
	CCAAS_KNOB_TSO_SEGS	= BIT(2),
};

/**
 * struct ccaas_rule_param - one CCA parameter a rule sets
 * @value: the value, within the CCA's schema range
 * @index: the parameter's index in the CCA's ccaas_cca.params
 * @name: its name, kept so that a rollback can check it against the
 *	schema of the CCA as it is then (the module may have been reloaded)
 */
struct ccaas_rule_param {
	u32 value;
	u16 index;
	char name[CCAAS_PARAM_NAME_MAX];
};

/**
 * struct ccaas_rule_cca - the CCA a rule names
 * @ops: its ops; the generation in force holds a reference on
 *	@ops->owner, so @ops is valid under RCU for as long as the generation
 *	is reachable through ccaas_policy_current()
 * @cca: its ccaas registration, NULL for CCAs not built on ccaas
 *
 * The layout of struct ccaas_cca_ref (core.h), which core.h defines only
 * after including this header; policy.c converts between the two.
 */
struct ccaas_rule_cca {
	const struct tcp_congestion_ops *ops;
	const struct ccaas_cca *cca;
};

/**
 * struct ccaas_rule - a policy rule
 * @match: which connections it applies to
 * @cca: what CCA they get (see struct ccaas_rule_cca)
 * @cca_name: the CCA's name (@cca.ops->name while the reference is held)
 * @min_rto_us: minimum RTO in microseconds, with CCAAS_KNOB_MIN_RTO
 * @init_cwnd: initial congestion window in packets, with CCAAS_KNOB_INIT_CWND
 * @tso_segs: TSO segment floor, with CCAAS_KNOB_TSO_SEGS
 * @knobs: CCAAS_KNOB_* bits; a knob that is not set keeps the kernel's value
 * @n_params: entries in @params
 * @params: CCA parameters, sorted by index; unset ones take the schema's
 *	default
 */
struct ccaas_rule {
	struct ccaas_rule_match match;
	struct ccaas_rule_cca cca;
	char cca_name[CCAAS_CCA_NAME_MAX];
	u32 min_rto_us;
	u32 init_cwnd;
	u32 tso_segs;
	u8 knobs;
	u8 n_params;
	struct ccaas_rule_param *params;
};

/*
 * Remote-scope shapes: which of locality, region and DC a rule's match
 * sets, as a sum of these bits; also its remote specificity (policy.c's
 * scope rank, 0..7: the larger, the more specific).
 */
#define CCAAS_SHAPE_LOCALITY		1
#define CCAAS_SHAPE_REGION		2
#define CCAAS_SHAPE_DC			4
#define CCAAS_MATCH_SHAPES		8

/**
 * struct ccaas_rule_group - the rules of a generation with one remote scope
 * @region: their region (0 unless their shape has one)
 * @dc: their DC (0 unless their shape has one)
 * @locality: their locality (0 for the default rule's shape)
 * @first: where their indices start in ccaas_policy_gen.order
 * @count: how many there are, in precedence order
 */
struct ccaas_rule_group {
	u32 region;
	u32 dc;
	u8 locality;
	u16 first;
	u16 count;
};

/**
 * struct ccaas_policy_gen - one generation of a namespace's policy
 * @generation: its number: 0 is the empty policy a namespace starts with,
 *	each commit takes the next
 * @origin: enum ccaas_policy_origin
 * @from: for a rollback, the generation it restored
 * @time_ns: commit time, ns since the epoch (ktime_get_real_ns())
 * @n_rules: entries in @rules
 * @n_service: how many of them are service rules: they come first
 * @rules: the rules, most specific first, so the first that matches wins
 * @shape_first: per remote-scope shape, its first entry in @groups
 * @shape_groups: per shape, how many entries of @groups it has
 * @groups: the rules by remote scope, sorted by shape (most specific
 *	first), locality, region and DC (see ccaas_policy_match())
 * @order: rule indices, each group's in precedence order
 *
 * Immutable once committed. The members below are the store's own.
 * @node: in ccaas_policy_state.history, oldest first
 * @rcu: retires the generation a grace period after it was replaced
 * @users: the history list, and the module references until retired
 * @max_rules, @max_params, @n_params: capacity and use of a draft
 * @param_area: where the rules' parameters are stored, after the rules
 */
struct ccaas_policy_gen {
	u32 generation;
	u8 origin;
	u32 from;
	u64 time_ns;
	unsigned int n_rules;
	unsigned int n_service;
	u16 shape_first[CCAAS_MATCH_SHAPES];
	u16 shape_groups[CCAAS_MATCH_SHAPES];
	struct ccaas_rule_group *groups;
	u16 *order;

	struct list_head node;
	struct rcu_head rcu;
	refcount_t users;
	unsigned int max_rules;
	unsigned int max_params;
	unsigned int n_params;
	struct ccaas_rule_param *param_area;
	struct ccaas_rule rules[];
};

/**
 * struct ccaas_policy_state - per-netns policy state, inside struct ccaas_net
 * @cur: the generation in force, never NULL (read it with
 *	ccaas_policy_current())
 * @history: the kept generations, oldest first; the last one is @cur
 * @n_history: entries in @history
 */
struct ccaas_policy_state {
	struct ccaas_policy_gen __rcu *cur;
	struct list_head history;
	unsigned int n_history;
};

int ccaas_policy_net_init(struct ccaas_net *cn);
void ccaas_policy_net_exit(struct ccaas_net *cn);

/*
 * --- read side: under rcu_read_lock(), any context (also tracepoint
 * probes, which on 7.x run preemptible under SRCU and so take it
 * themselves); no locks, no sleeping.
 */

/* The generation in force; call under rcu_read_lock(). Never NULL. */
struct ccaas_policy_gen *ccaas_policy_current(struct ccaas_net *cn);

/*
 * Which side of its connection a socket is, for the service port: the
 * server's port is the remote one of an active open and the local one of
 * a passive open (and of a listener). The selector knows; a pass over
 * existing sockets does not, and guesses (ccaas_sk_server_port()).
 */
enum ccaas_side {
	CCAAS_SIDE_GUESS,
	CCAAS_SIDE_ACTIVE,
	CCAAS_SIDE_PASSIVE,
};

/* The server's port of @sk's connection, host order. */
u16 ccaas_sk_server_port(const struct sock *sk, enum ccaas_side side);

/*
 * The most specific rule of @gen that applies to a connection whose remote
 * address has @scope (NULL: unknown scope) and whose local address, cgroup
 * and service port are those of @sk, on @side of its connection (@sk NULL:
 * rules with a local prefix or a service match do not apply), or NULL when
 * no rule applies (no default rule).
 */
const struct ccaas_rule *
ccaas_policy_match_side(const struct ccaas_policy_gen *gen,
			const struct ccaas_scope_result *scope,
			const struct sock *sk, enum ccaas_side side);

/* The same, for a socket of an existing connection (side guessed). */
static inline const struct ccaas_rule *
ccaas_policy_match(const struct ccaas_policy_gen *gen,
		   const struct ccaas_scope_result *scope, const struct sock *sk)
{
	return ccaas_policy_match_side(gen, scope, sk, CCAAS_SIDE_GUESS);
}

/*
 * Could @rule apply to @sk's connection, on @side of it (a listener's
 * children: @sk the listener, CCAAS_SIDE_PASSIVE)? Its service fields
 * must hold for @sk; its remote fields and local prefix are left open.
 * *@all is set when the rule applies to every such connection (it sets no
 * remote field and no local prefix).
 */
bool ccaas_rule_may_apply(const struct ccaas_rule *rule, const struct sock *sk,
			  enum ccaas_side side, bool *all);

/* The value @rule sets for parameter @index of its CCA, or @def. */
static inline u32 ccaas_rule_param(const struct ccaas_rule *rule,
				   unsigned int index, u32 def)
{
	unsigned int i;

	for (i = 0; i < rule->n_params; i++)
		if (rule->params[i].index == index)
			return rule->params[i].value;
	return def;
}

/* --- write side: process context, may sleep. */

/**
 * struct ccaas_policy_req - how a change was asked for
 * @net: the namespace: CCA names resolve here
 * @extack: where refusals are explained (may be NULL)
 * @dry_run: validate and report, commit nothing
 */
struct ccaas_policy_req {
	struct net *net;
	struct netlink_ext_ack *extack;
	bool dry_run;
};

/**
 * struct ccaas_policy_head - the header of a generation, as a reply says it
 * @generation, @origin, @from, @time_ns, @n_rules: as in the generation
 * @unchanged: nothing was committed: the rules asked for were already in
 *	force, and this is the current generation
 * @committed: this is a generation the call committed (not a dry run's
 *	preview, not @unchanged): what the caller must announce and migrate to
 */
struct ccaas_policy_head {
	u32 generation;
	u8 origin;
	u32 from;
	u64 time_ns;
	u32 n_rules;
	bool unchanged;
	bool committed;
};

/*
 * Drafts: a generation under construction, room for @max_rules rules with
 * @max_params parameters between them. A draft holds a module reference for
 * each rule whose CCA is resolved; ccaas_policy_draft_free() drops them.
 */
struct ccaas_policy_gen *ccaas_policy_draft_alloc(unsigned int max_rules,
						  unsigned int max_params);
void ccaas_policy_draft_free(struct ccaas_policy_gen *draft);
/* The next free rule (zeroed), with room for @n_params; NULL when full. */
struct ccaas_rule *ccaas_policy_draft_add(struct ccaas_policy_gen *draft,
					  unsigned int n_params);
/* Resolve @name for @rule of @draft, reusing an earlier rule's reference. */
int ccaas_policy_draft_resolve(struct ccaas_policy_gen *draft,
			       struct ccaas_rule *rule, struct net *net,
			       const char *name, struct netlink_ext_ack *extack);
int ccaas_rule_knobs_check(const struct ccaas_rule *rule,
			   struct netlink_ext_ack *extack);

bool ccaas_rule_match_equal(const struct ccaas_rule_match *a,
			    const struct ccaas_rule_match *b);
/* Put @rule's parameters in index order (after filling them in). */
void ccaas_rule_sort_params(struct ccaas_rule *rule);

/*
 * Changes, called with ccaas_net.lock held. Each either commits a new
 * generation, or leaves the generation in force as it was and returns an
 * error explained in @req->extack. A draft passed in is consumed. *@head
 * describes the result: the new generation, the current one when nothing
 * changed (@head->unchanged), or for a dry run what would be committed.
 * The store only stores: announcing a commit and migrating connections to
 * it is for the caller, still under the lock (policy_nl.c). (The scope
 * store takes the lock itself: nothing follows its changes.)
 */
int ccaas_policy_set(struct ccaas_net *cn, const struct ccaas_policy_req *req,
		     struct ccaas_policy_gen *draft,
		     struct ccaas_policy_head *head);
int ccaas_policy_del(struct ccaas_net *cn, const struct ccaas_policy_req *req,
		     const struct ccaas_rule_match *match,
		     struct ccaas_policy_head *head);
int ccaas_policy_apply(struct ccaas_net *cn, const struct ccaas_policy_req *req,
		       struct ccaas_policy_gen *draft,
		       struct ccaas_policy_head *head);
/*
 * A rollback to @generation in three steps, as resolving CCA names may
 * sleep for long (it creates a socket) and is done without the lock:
 * copy the generation's rules by name (lock held; an ERR_PTR when it is
 * not kept), resolve them again in @req->net (no lock; the draft stays the
 * caller's on failure), commit (lock held; consumes the draft).
 */
struct ccaas_policy_gen *
ccaas_policy_rollback_copy(struct ccaas_net *cn,
			   const struct ccaas_policy_req *req, u32 generation);
int ccaas_policy_rollback_resolve(struct ccaas_policy_gen *draft,
				  const struct ccaas_policy_req *req);
int ccaas_policy_rollback_commit(struct ccaas_net *cn,
				 const struct ccaas_policy_req *req,
				 struct ccaas_policy_gen *draft, u32 generation,
				 struct ccaas_policy_head *head);

/* Under ccaas_net.lock: the kept generation @generation, or NULL. */
struct ccaas_policy_gen *ccaas_policy_find(struct ccaas_net *cn, u32 generation);
bool ccaas_policy_wrote_rto(struct ccaas_net *cn, const struct sock *sk,
			    u32 rto_min);
/* Under ccaas_net.lock: the generation in force. */
struct ccaas_policy_gen *ccaas_policy_current_locked(struct ccaas_net *cn);
void ccaas_policy_head_of(const struct ccaas_policy_gen *gen,
			  struct ccaas_policy_head *head);

/* --- policy_nl.c */

/*
 * Parse one CCAAS_A_POLICY_RULE nest into a new rule of @draft: the match,
 * and unless @match_only the CCA (resolved in @net), its parameters
 * (checked against its schema) and the knobs.
 */
int ccaas_rule_parse(struct net *net, const struct nlattr *nest,
		     bool match_only, struct ccaas_policy_gen *draft,
		     struct netlink_ext_ack *extack);
/* Put a generation's header attributes (notifications use it too). */
int ccaas_policy_fill_head(struct sk_buff *skb,
			   const struct ccaas_policy_head *head);

extern const struct nla_policy ccaas_policy_set_nlpolicy[CCAAS_A_POLICY_MAX + 1];
extern const struct nla_policy ccaas_policy_get_nlpolicy[CCAAS_A_POLICY_MAX + 1];
extern const struct nla_policy ccaas_policy_history_nlpolicy[CCAAS_A_POLICY_MAX + 1];
extern const struct nla_policy ccaas_policy_rollback_nlpolicy[CCAAS_A_POLICY_MAX + 1];
extern const struct nla_policy ccaas_policy_apply_nlpolicy[CCAAS_A_POLICY_MAX + 1];
int ccaas_nl_policy_set_doit(struct sk_buff *skb, struct genl_info *info);
int ccaas_nl_policy_del_doit(struct sk_buff *skb, struct genl_info *info);
int ccaas_nl_policy_get_doit(struct sk_buff *skb, struct genl_info *info);
int ccaas_nl_policy_get_dumpit(struct sk_buff *skb, struct netlink_callback *cb);
int ccaas_nl_policy_history_dumpit(struct sk_buff *skb,
				   struct netlink_callback *cb);
int ccaas_nl_policy_rollback_doit(struct sk_buff *skb, struct genl_info *info);
int ccaas_nl_policy_apply_doit(struct sk_buff *skb, struct genl_info *info);

#endif /* _CCAAS_POLICY_H */
