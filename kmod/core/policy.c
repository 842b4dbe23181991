// SPDX-License-Identifier: GPL-2.0
/*
 * The policy store: which CCA, CCA parameters and cross-layer knobs a
 * connection gets, by the scope of its remote address, optionally its
 * local address, and its service: the socket's cgroup and the server's
 * port of the connection.
 *
 * Precedence. A rule applies to a connection if every match field the rule
 * sets has the connection's value: the socket's cgroup v2 (that cgroup or
 * one below it), the service port (the server's port of the connection:
 * remote for an active open, local for a passive one), the locality of the
 * remote address, its region, its data center, and whether the local
 * address is inside the rule's local prefix. Among the rules that apply,
 * the most specific wins:
 *
 *   1. the service decides first, as a service rule is the operator's
 *      exception for one service, where the remote scope is a fleet-wide
 *      choice: a rule with a cgroup beats one without, a deeper cgroup a
 *      shallower one (a child service beats its parent slice); then a rule
 *      with a port range beats one without, a narrower range a wider one,
 *      and of two ranges as wide, the one starting lower;
 *   2. the remote scope: a rule with a DC is more specific than one with
 *      only a region, which is more specific than one with only a locality
 *      (locality < locality+region < locality+dc < locality+region+dc);
 *   3. between rules equally specific so far, one with a local prefix is
 *      more specific than one without, and a longer prefix more specific
 *      than a shorter one (the local address refines a remote scope, as it
 *      did before there were service rules);
 *   4. the default rule (no match fields) applies when no other rule does,
 *      in particular to remote addresses of unknown scope.
 *
 * Two rules that apply and are equally specific by these rules have the
 * same match (two cgroups at one depth that both hold a socket are one
 * cgroup; two ranges as wide starting at one port are one range), and two
 * rules with the same match are the same rule: setting one replaces the
 * other. Region and DC need a locality, and so does a local prefix; a
 * service match needs nothing else. The rules of a generation are kept
 * sorted by precedence: the first rule that applies is the one.
 *
 * Lookup. A walk of the sorted rules costs about 20 instructions per rule
 * passed over: some 20 000 at connect for a 1 000-rule policy whose match
 * comes last (bench/README.md, section 7). So each committed generation
 * also has an index, which lookups use above CCAAS_POLICY_WALK_RULES
 * rules (below, the walk is cheaper). For a given connection, the rules of
 * one remote-scope shape (which of locality, region, DC they set) that can
 * apply are those whose fields equal the connection's: one group of the
 * index, found by binary search among the shape's groups. A group holds
 * its rules in precedence order (local prefix longest first, none last),
 * and all rules of a more specific shape precede those of a less specific
 * one, so trying the shapes from the most specific down, and in each the
 * group's rules in order, finds the rule the walk would: at most 8 binary
 * searches (5 with the shapes the netlink interface allows), then the
 * local-prefix rules of the groups found, which are walked: many local
 * prefixes under one remote scope still cost a walk of them. The index is
 * built when a generation is committed, in space the draft allocated for
 * it, so a commit cannot fail for it. Service rules, which sort before
 * every other, are not in the index: a lookup walks them first (they are
 * few on a host: one per service), reading the socket's cgroup and port
 * only when it meets one, so a policy without them costs what it did.
 * (The choice of a listener's CCA, and
 * of an ECN child's when its rule's CCA cannot hold ECN, walks every rule:
 * selector.c; neither is on the path of a plain connect.)
 *
 * Generations. Every change builds a new generation beside the current
 * one and publishes it with rcu_assign_pointer(); a rejected change never
 * touches the generation in force. The store only stores: its callers (the
 * netlink handlers) hold ccaas_net.lock around a change and what follows
 * it, the notification and the migration of existing connections. A namespace
 * starts with generation 0, the empty policy; commits number up from 1.
 * The last policy_history generations stay in a history list, for
 * `policy history`, `policy show generation N` and `policy rollback`.
 *
 * Module references. Each rule of the generation in force holds a
 * reference on the module of its CCA, so a CCA the policy names cannot be
 * unloaded. A grace period after a generation is replaced, an RCU callback
 * drops its references ("retires" it); the generation stays readable in
 * the history (rules keep the CCA's name and parameter names), but no
 * longer pins modules: once no current policy names a CCA, its module can
 * go. A rollback therefore resolves the CCA names again (loading modules
 * as setsockopt(TCP_CONGESTION) would) and checks the parameters against
 * the schemas of the CCAs as they are then. Module exit does not wait for
 * the callbacks by itself: unregister_pernet_subsys() ends with an
 * rcu_barrier(), after every namespace's ccaas_policy_net_exit().
 */
#include <linux/cgroup.h>
#include <linux/kernel.h>
#include <linux/ktime.h>
#include <linux/module.h>
#include <linux/lockdep.h>
#include <linux/slab.h>
#include <linux/sort.h>
#include <linux/string.h>
#include <net/inet_sock.h>
#include <net/ipv6.h>
#include <net/sock.h>
#include <net/tcp_states.h>

#include <ccaas/param.h>

#include "../compat/listener.h"
#include "../compat/unaligned.h"
#include "cgroup_bind.h"
#include "core.h"
#include "sock.h"

static unsigned int ccaas_policy_history __read_mostly =
	CCAAS_POLICY_HISTORY_DEFAULT;
CCAAS_PARAM_UINT(policy_history, ccaas_policy_history,
		 CCAAS_POLICY_HISTORY_MIN, CCAAS_POLICY_HISTORY_MAX, 0644);
MODULE_PARM_DESC(policy_history,
		 "policy generations kept per network namespace [2..64]");

/* What ccaas_policy_current() returns in a namespace being dismantled. */
static struct ccaas_policy_gen ccaas_policy_none = {
	.origin = CCAAS_POLICY_ORIGIN_EMPTY,
};

/* --- module references ------------------------------------------------- */

static void ccaas_rule_cca_put(struct ccaas_rule *rule)
{
	struct ccaas_cca_ref ref = {
		.ops = rule->cca.ops,
		.cca = rule->cca.cca,
	};

	BUILD_BUG_ON(sizeof(struct ccaas_rule_cca) != sizeof(struct ccaas_cca_ref));
	ccaas_cca_ref_put(&ref);
	rule->cca.ops = NULL;
	rule->cca.cca = NULL;
}

/* A second reference on a CCA some rule already holds one on. */
static void ccaas_rule_cca_get(struct ccaas_rule *dst,
			       const struct ccaas_rule *src)
{
	__module_get(src->cca.ops->owner);
	dst->cca = src->cca;
}

/* --- drafts ----------------------------------------------------------------- */

struct ccaas_policy_gen *ccaas_policy_draft_alloc(unsigned int max_rules,
						  unsigned int max_params)
{
	struct ccaas_policy_gen *gen;
	size_t size;

	if (max_rules > CCAAS_POLICY_MAX_RULES ||
	    max_params > CCAAS_POLICY_MAX_RULES * CCAAS_RULE_MAX_PARAMS)
		return NULL;
	size = size_add(struct_size(gen, rules, max_rules),
			array_size(max_params, sizeof(struct ccaas_rule_param)));
	size = size_add(size, array_size(max_rules, sizeof(struct ccaas_rule_group)));
	size = size_add(size, array_size(max_rules, sizeof(u16)));
	gen = kvzalloc(size, GFP_KERNEL_ACCOUNT);
	if (!gen)
		return NULL;
	gen->max_rules = max_rules;
	gen->max_params = max_params;
	/* struct ccaas_rule is 8-byte aligned, so the parameters are too. */
	gen->param_area = (struct ccaas_rule_param *)&gen->rules[max_rules];
	/* ... and the index after them (a parameter is a multiple of 4 bytes). */
	BUILD_BUG_ON(sizeof(struct ccaas_rule_param) %
		     __alignof__(struct ccaas_rule_group));
	gen->groups = (struct ccaas_rule_group *)&gen->param_area[max_params];
	gen->order = (u16 *)&gen->groups[max_rules];
	INIT_LIST_HEAD(&gen->node);
	return gen;
}
EXPORT_SYMBOL_IF_KUNIT(ccaas_policy_draft_alloc);

/* Drop what @gen's rules hold besides their CCAs: their cgroups. */
static void ccaas_policy_gen_free(struct ccaas_policy_gen *gen)
{
	unsigned int i;

	for (i = 0; i < gen->n_rules; i++)
		ccaas_cgroup_put(gen->rules[i].match.cgroup);
	kvfree(gen);
}

void ccaas_policy_draft_free(struct ccaas_policy_gen *draft)
{
	unsigned int i;

	if (!draft)
		return;
	for (i = 0; i < draft->n_rules; i++)
		ccaas_rule_cca_put(&draft->rules[i]);
	ccaas_policy_gen_free(draft);
}
EXPORT_SYMBOL_IF_KUNIT(ccaas_policy_draft_free);

struct ccaas_rule *ccaas_policy_draft_add(struct ccaas_policy_gen *draft,
					  unsigned int n_params)
{
	struct ccaas_rule *rule;

	if (draft->n_rules >= draft->max_rules ||
	    n_params > draft->max_params - draft->n_params)
		return NULL;
	rule = &draft->rules[draft->n_rules++];
	rule->params = draft->param_area + draft->n_params;
	draft->n_params += n_params;
	return rule;
}

/*
 * The initial window and the TSO floor reach the socket through the header
 * of a ccaas CCA's private area, which the CCA reads (<ccaas/sock.h>); any
 * other CCA would silently ignore them. The minimum RTO the core sets
 * itself, for every CCA.
 */
int ccaas_rule_knobs_check(const struct ccaas_rule *rule,
			   struct netlink_ext_ack *extack)
{
	if (rule->cca.cca ||
	    !(rule->knobs & (CCAAS_KNOB_INIT_CWND | CCAAS_KNOB_TSO_SEGS)))
		return 0;
	NL_SET_ERR_MSG(extack,
		       "init_cwnd and tso_segs need a CCA built on ccaas");
	return -EINVAL;
}

int ccaas_policy_draft_resolve(struct ccaas_policy_gen *draft,
			       struct ccaas_rule *rule, struct net *net,
			       const char *name, struct netlink_ext_ack *extack)
{
	struct ccaas_cca_ref ref;
	unsigned int i;
	int err;

	/* Rules naming the same CCA share one lookup (it creates a socket). */
	for (i = 0; i < draft->n_rules; i++) {
		const struct ccaas_rule *other = &draft->rules[i];

		if (other != rule && other->cca.ops &&
		    !strcmp(other->cca_name, name)) {
			ccaas_rule_cca_get(rule, other);
			strscpy(rule->cca_name, other->cca_name,
				sizeof(rule->cca_name));
			return ccaas_rule_knobs_check(rule, extack);
		}
	}

	err = ccaas_cca_resolve(net, name, &ref, extack);
	if (err)
		return err;
	rule->cca.ops = ref.ops;
	rule->cca.cca = ref.cca;
	strscpy(rule->cca_name, ref.ops->name, sizeof(rule->cca_name));
	return ccaas_rule_knobs_check(rule, extack);
}

enum ccaas_copy {
	CCAAS_COPY_REF,		/* take another reference on the CCA */
	CCAAS_COPY_MOVE,	/* take over the source's reference */
	CCAAS_COPY_NAME,	/* copy the CCA's name only (to resolve again) */
};

static struct ccaas_rule *ccaas_policy_draft_copy(struct ccaas_policy_gen *draft,
						  struct ccaas_rule *src,
						  enum ccaas_copy how)
{
	struct ccaas_rule *dst = ccaas_policy_draft_add(draft, src->n_params);
	struct ccaas_rule_param *params;

	if (WARN_ON_ONCE(!dst))
		return NULL;
	params = dst->params;
	*dst = *src;
	dst->params = params;
	memcpy(params, src->params, src->n_params * sizeof(*params));
	dst->cca.ops = NULL;
	dst->cca.cca = NULL;
	/* each rule holds its own reference on its cgroup path */
	if (dst->match.cgroup)
		ccaas_cgroup_hold(dst->match.cgroup);

	switch (how) {
	case CCAAS_COPY_REF:
		ccaas_rule_cca_get(dst, src);
		break;
	case CCAAS_COPY_MOVE:
		dst->cca = src->cca;
		src->cca.ops = NULL;
		src->cca.cca = NULL;
		break;
	case CCAAS_COPY_NAME:
		break;
	}
	return dst;
}

/* --- rules -------------------------------------------------------------------- */

bool ccaas_rule_match_equal(const struct ccaas_rule_match *a,
			    const struct ccaas_rule_match *b)
{
	return a->locality == b->locality && a->fields == b->fields &&
	       a->region == b->region && a->dc == b->dc &&
	       a->local_family == b->local_family &&
	       a->local_prefixlen == b->local_prefixlen &&
	       !memcmp(a->local_addr, b->local_addr, sizeof(a->local_addr)) &&
	       a->cgroup == b->cgroup &&
	       a->port_min == b->port_min && a->port_max == b->port_max;
}

/* Do @a and @b give connections the same CCA, parameters and knobs? */
static bool ccaas_rule_equal(const struct ccaas_rule *a,
			     const struct ccaas_rule *b)
{
	unsigned int i;

	if (!ccaas_rule_match_equal(&a->match, &b->match) ||
	    a->cca.ops != b->cca.ops || a->knobs != b->knobs ||
	    a->n_params != b->n_params)
		return false;
	if ((a->knobs & CCAAS_KNOB_MIN_RTO && a->min_rto_us != b->min_rto_us) ||
	    (a->knobs & CCAAS_KNOB_INIT_CWND && a->init_cwnd != b->init_cwnd) ||
	    (a->knobs & CCAAS_KNOB_TSO_SEGS && a->tso_segs != b->tso_segs))
		return false;
	for (i = 0; i < a->n_params; i++)
		if (a->params[i].index != b->params[i].index ||
		    a->params[i].value != b->params[i].value)
			return false;
	return true;
}

/* Remote-scope specificity: locality < +region < +dc (see the top). */
static unsigned int ccaas_match_scope_rank(const struct ccaas_rule_match *m)
{
	return (m->locality ? CCAAS_SHAPE_LOCALITY : 0) |
	       (m->fields & CCAAS_MATCH_REGION ? CCAAS_SHAPE_REGION : 0) |
	       (m->fields & CCAAS_MATCH_DC ? CCAAS_SHAPE_DC : 0);
}

/* Local specificity: none < /0 < /1 < ... < /128. */
static unsigned int ccaas_match_local_rank(const struct ccaas_rule_match *m)
{
	return m->fields & CCAAS_MATCH_LOCAL ? 1 + m->local_prefixlen : 0;
}

/* Cgroup specificity: none < depth 1 < depth 2 < ... (no rule has the root) */
static unsigned int ccaas_match_cgroup_rank(const struct ccaas_rule_match *m)
{
	return m->fields & CCAAS_MATCH_CGROUP ? 1 + m->cgroup->level : 0;
}

/* Port specificity: none < all 65536 ports < ... < a single port. */
static unsigned int ccaas_match_port_rank(const struct ccaas_rule_match *m)
{
	return m->fields & CCAAS_MATCH_PORT ?
	       U16_MAX + 1 - (m->port_max - m->port_min) : 0;
}

static int ccaas_cmp_u32(u32 a, u32 b)
{
	return a < b ? -1 : a > b;
}

/* Cgroup paths in a fixed order (entries are shared: one per path). */
static int ccaas_cmp_cgroup(const struct ccaas_rule_match *a,
			    const struct ccaas_rule_match *b)
{
	if (a->cgroup == b->cgroup)
		return 0;
	if (!a->cgroup || !b->cgroup)
		return a->cgroup ? -1 : 1;
	return strcmp(a->cgroup->path, b->cgroup->path);
}

/*
 * sort() order: most specific first (see the top), then a fixed order
 * among rules that cannot both apply.
 */
static int ccaas_rule_cmp(const void *pa, const void *pb)
{
	const struct ccaas_rule_match *a = &((const struct ccaas_rule *)pa)->match;
	const struct ccaas_rule_match *b = &((const struct ccaas_rule *)pb)->match;

	return ccaas_cmp_u32(ccaas_match_cgroup_rank(b),
			     ccaas_match_cgroup_rank(a)) ?:
	       ccaas_cmp_u32(ccaas_match_port_rank(b),
			     ccaas_match_port_rank(a)) ?:
	       ccaas_cmp_u32(a->port_min, b->port_min) ?:
	       ccaas_cmp_u32(ccaas_match_scope_rank(b),
			     ccaas_match_scope_rank(a)) ?:
	       ccaas_cmp_u32(ccaas_match_local_rank(b),
			     ccaas_match_local_rank(a)) ?:
	       ccaas_cmp_u32(a->locality, b->locality) ?:
	       ccaas_cmp_u32(a->region, b->region) ?:
	       ccaas_cmp_u32(a->dc, b->dc) ?:
	       ccaas_cmp_u32(a->local_family, b->local_family) ?:
	       memcmp(a->local_addr, b->local_addr, sizeof(a->local_addr)) ?:
	       ccaas_cmp_cgroup(a, b);
}

/* A rule's parameters in index order, so equal rules compare equal. */
void ccaas_rule_sort_params(struct ccaas_rule *rule)
{
	unsigned int i, j;

	for (i = 1; i < rule->n_params; i++)
		for (j = i; j > 0 && rule->params[j - 1].index >
				     rule->params[j].index; j--)
			swap(rule->params[j - 1], rule->params[j]);
}

/* Put a draft's rules in precedence order; refuse two with one match. */
static int ccaas_policy_draft_finish(struct ccaas_policy_gen *draft,
				     struct netlink_ext_ack *extack)
{
	unsigned int i;

	sort(draft->rules, draft->n_rules, sizeof(draft->rules[0]),
	     ccaas_rule_cmp, NULL);
	for (i = 1; i < draft->n_rules; i++) {
		if (ccaas_rule_match_equal(&draft->rules[i - 1].match,
					   &draft->rules[i].match)) {
			NL_SET_ERR_MSG(extack, "duplicate match: two rules have the same match");
			return -EINVAL;
		}
	}
	return 0;
}

static bool ccaas_policy_same_rules(const struct ccaas_policy_gen *a,
				    const struct ccaas_policy_gen *b)
{
	unsigned int i;

	if (a->n_rules != b->n_rules)
		return false;
	for (i = 0; i < a->n_rules; i++)
		if (!ccaas_rule_equal(&a->rules[i], &b->rules[i]))
			return false;
	return true;
}

static struct ccaas_rule *ccaas_policy_find_match(struct ccaas_policy_gen *gen,
						  const struct ccaas_rule_match *m)
{
	unsigned int i;

	for (i = 0; i < gen->n_rules; i++)
		if (ccaas_rule_match_equal(&gen->rules[i].match, m))
			return &gen->rules[i];
	return NULL;
}

/* --- the index ------------------------------------------------------------------ */

/* A match's region and DC as its group has them: 0 where it sets none. */
static u32 ccaas_match_region(const struct ccaas_rule_match *m)
{
	return m->fields & CCAAS_MATCH_REGION ? m->region : 0;
}

static u32 ccaas_match_dc(const struct ccaas_rule_match *m)
{
	return m->fields & CCAAS_MATCH_DC ? m->dc : 0;
}

/* Order of groups: shape (most specific first), locality, region, DC. */
static int ccaas_group_key_cmp(unsigned int sa, const struct ccaas_rule_match *a,
			       unsigned int sb, const struct ccaas_rule_match *b)
{
	return ccaas_cmp_u32(sb, sa) ?:
	       ccaas_cmp_u32(a->locality, b->locality) ?:
	       ccaas_cmp_u32(ccaas_match_region(a), ccaas_match_region(b)) ?:
	       ccaas_cmp_u32(ccaas_match_dc(a), ccaas_match_dc(b));
}

/* sort_r() order of rule indices: by group, then precedence (the index). */
static int ccaas_order_cmp(const void *pa, const void *pb, const void *priv)
{
	const struct ccaas_policy_gen *gen = priv;
	u16 ia = *(const u16 *)pa, ib = *(const u16 *)pb;
	const struct ccaas_rule_match *a = &gen->rules[ia].match;
	const struct ccaas_rule_match *b = &gen->rules[ib].match;

	return ccaas_group_key_cmp(ccaas_match_scope_rank(a), a,
				   ccaas_match_scope_rank(b), b) ?:
	       ccaas_cmp_u32(ia, ib);
}

/*
 * Build @gen's index (see the top) over its sorted rules, but for the
 * service rules, which come first and which lookups walk.
 */
static void ccaas_policy_index(struct ccaas_policy_gen *gen)
{
	struct ccaas_rule_group *g = NULL;
	unsigned int i, n, n_groups = 0, shape, prev = 0;

	BUILD_BUG_ON(CCAAS_POLICY_MAX_RULES > U16_MAX);
	/* the rules are in precedence order: the service rules first */
	gen->n_service = 0;
	while (gen->n_service < gen->n_rules &&
	       gen->rules[gen->n_service].match.fields & CCAAS_MATCH_SERVICE)
		gen->n_service++;
	n = gen->n_rules - gen->n_service;
	memset(gen->shape_first, 0, sizeof(gen->shape_first));
	memset(gen->shape_groups, 0, sizeof(gen->shape_groups));
	for (i = 0; i < n; i++)
		gen->order[i] = gen->n_service + i;
	sort_r(gen->order, n, sizeof(gen->order[0]), ccaas_order_cmp, NULL, gen);
	for (i = 0; i < n; i++) {
		const struct ccaas_rule_match *m = &gen->rules[gen->order[i]].match;

		shape = ccaas_match_scope_rank(m);
		if (!g || ccaas_group_key_cmp(prev, &gen->rules[gen->order[g->first]].match,
					      shape, m)) {
			g = &gen->groups[n_groups];
			*g = (struct ccaas_rule_group) {
				.region = ccaas_match_region(m),
				.dc = ccaas_match_dc(m),
				.locality = m->locality,
				.first = i,
			};
			if (!gen->shape_groups[shape])
				gen->shape_first[shape] = n_groups;
			gen->shape_groups[shape]++;
			n_groups++;
			prev = shape;
		}
		g->count++;
	}
}

/* The group of @shape whose fields are those of @scope, or NULL. */
static const struct ccaas_rule_group *
ccaas_policy_group(const struct ccaas_policy_gen *gen, unsigned int shape,
		   const struct ccaas_scope_result *scope)
{
	const struct ccaas_rule_group *v = &gen->groups[gen->shape_first[shape]];
	u32 locality = shape & CCAAS_SHAPE_LOCALITY ? scope->locality : 0;
	u32 region = shape & CCAAS_SHAPE_REGION ? scope->region : 0;
	u32 dc = shape & CCAAS_SHAPE_DC ? scope->dc : 0;
	unsigned int lo = 0, hi = gen->shape_groups[shape];

	while (lo < hi) {
		unsigned int mid = lo + (hi - lo) / 2;
		int c = ccaas_cmp_u32(v[mid].locality, locality) ?:
			ccaas_cmp_u32(v[mid].region, region) ?:
			ccaas_cmp_u32(v[mid].dc, dc);

		if (!c)
			return &v[mid];
		if (c < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return NULL;
}

/* --- read side ---------------------------------------------------------------- */

struct ccaas_policy_gen *ccaas_policy_current(struct ccaas_net *cn)
{
	return rcu_dereference_check(cn->policy.cur, rcu_read_lock_any_held() ||
				     lockdep_is_held(&cn->lock));
}
EXPORT_SYMBOL_IF_KUNIT(ccaas_policy_current);

/* A connection's local address, IPv4 for v4-mapped IPv6 addresses. */
struct ccaas_local_addr {
	u8 family;
	u8 addr[16];
};

static bool ccaas_sk_local_addr(const struct sock *sk,
				struct ccaas_local_addr *local)
{
	if (!sk)
		return false;
	switch (sk->sk_family) {
	case AF_INET:
		local->family = AF_INET;
		memcpy(local->addr, &sk->sk_rcv_saddr, 4);
		return true;
#if IS_ENABLED(CONFIG_IPV6)
	case AF_INET6:
		if (ipv6_addr_v4mapped(&sk->sk_v6_rcv_saddr)) {
			local->family = AF_INET;
			memcpy(local->addr, &sk->sk_v6_rcv_saddr.s6_addr32[3], 4);
		} else {
			local->family = AF_INET6;
			memcpy(local->addr, &sk->sk_v6_rcv_saddr, 16);
		}
		return true;
#endif
	}
	return false;
}

/*
 * Are the first @prefixlen bits of @addr those of @prefix? Compared a word
 * at a time, reading no byte past the prefix's word (an IPv4 address has
 * only 4), as it runs once per local-prefix rule tried.
 */
static __always_inline bool
ccaas_prefix_match(const u8 *addr, const u8 *prefix, unsigned int prefixlen)
{
	u64 x;

	if (prefixlen <= 32)
		return !prefixlen ||
		       !((get_unaligned_be32(addr) ^ get_unaligned_be32(prefix)) >>
			 (32 - prefixlen));
	x = get_unaligned_be64(addr) ^ get_unaligned_be64(prefix);
	if (prefixlen <= 64)
		return !(x >> (64 - prefixlen));
	return !x && !((get_unaligned_be64(addr + 8) ^
			get_unaligned_be64(prefix + 8)) >> (128 - prefixlen));
}

/*
 * Does @m's local prefix, if it has one, hold @sk's local address? @local
 * and @have cache that address over the calls of one lookup: @have starts
 * at -1 (not read yet), then 1 (in @local) or 0 (none).
 */
static __always_inline bool
ccaas_local_applies(const struct ccaas_rule_match *m, const struct sock *sk,
		    struct ccaas_local_addr *local, int *have)
{
	if (!(m->fields & CCAAS_MATCH_LOCAL))
		return true;
	if (*have < 0)
		*have = ccaas_sk_local_addr(sk, local);
	return *have && local->family == m->local_family &&
	       ccaas_prefix_match(local->addr, m->local_addr, m->local_prefixlen);
}

u16 ccaas_sk_server_port(const struct sock *sk, enum ccaas_side side)
{
	/*
	 * A socket of an existing connection does not say which side opened
	 * it (a child does not even keep its listener's SOCK_BINDPORT_LOCK:
	 * sk_clone_lock() clears it). A connection this host accepted has a
	 * listener on its local address and port, as long as its server
	 * listens; one it opened has not, unless the application bound a
	 * listener's port for it (SO_REUSEADDR): then, and for the children
	 * of a listener gone, this guesses wrong. Only passes over existing
	 * sockets guess, and only for rules with a port, under RCU.
	 */
	if (side == CCAAS_SIDE_GUESS)
		side = sk->sk_state == TCP_LISTEN ||
		       (sk->sk_state != TCP_SYN_SENT && ccaas_listener_on(sk)) ?
		       CCAAS_SIDE_PASSIVE : CCAAS_SIDE_ACTIVE;
	return side == CCAAS_SIDE_PASSIVE ? inet_sk(sk)->inet_num :
	       ntohs(inet_sk(sk)->inet_dport);
}

/*
 * What a lookup knows of a socket's service, read when a service rule is
 * first met: @port (with @have_port) and @cgroup (with @have_cgroup; NULL
 * when the socket has none).
 */
struct ccaas_svc {
	const struct sock *sk;
	enum ccaas_side side;
	bool have_port;
	bool have_cgroup;
	u16 port;
	struct cgroup *cgroup;
};

/*
 * Is @svc's socket in the cgroup at @cgp now, or below it? The socket
 * holds a reference on its cgroup for its whole life, and a cgroup on its
 * ancestors. No cgroup has id 0, what a path no cgroup was at has.
 */
static bool ccaas_svc_in_cgroup(struct ccaas_svc *svc,
				const struct ccaas_cgroup *cgp)
{
#ifdef CONFIG_SOCK_CGROUP_DATA
	struct cgroup *cg;

	if (!svc->have_cgroup) {
		svc->cgroup = sock_cgroup_ptr((struct sock_cgroup_data *)
					      &svc->sk->sk_cgrp_data);
		svc->have_cgroup = true;
	}
	cg = svc->cgroup ? cgroup_ancestor(svc->cgroup, cgp->level) : NULL;
	return cg && cgroup_id(cg) == ccaas_cgroup_id(cgp);
#else
	return false;
#endif
}

/* Do @m's service fields, if it has any, hold for @svc's socket? */
static __always_inline bool ccaas_service_applies(const struct ccaas_rule_match *m,
						  struct ccaas_svc *svc)
{
	if (!(m->fields & CCAAS_MATCH_SERVICE))
		return true;
	if (!svc->sk)
		return false;
	if (m->fields & CCAAS_MATCH_PORT) {
		if (!svc->have_port) {
			svc->port = ccaas_sk_server_port(svc->sk, svc->side);
			svc->have_port = true;
		}
		if (svc->port < m->port_min || svc->port > m->port_max)
			return false;
	}
	return !(m->fields & CCAAS_MATCH_CGROUP) ||
	       ccaas_svc_in_cgroup(svc, m->cgroup);
}

/* Does @m's remote scope hold for @scope? */
static __always_inline bool ccaas_scope_applies(const struct ccaas_rule_match *m,
						const struct ccaas_scope_result *scope)
{
	return (!m->locality || m->locality == scope->locality) &&
	       (!(m->fields & CCAAS_MATCH_REGION) || m->region == scope->region) &&
	       (!(m->fields & CCAAS_MATCH_DC) || m->dc == scope->dc);
}

/*
 * The lookup without the index: the first rule from @first on (past the
 * service rules) that applies by remote scope and local prefix.
 */
static const struct ccaas_rule *
ccaas_policy_walk(const struct ccaas_policy_gen *gen, unsigned int first,
		  const struct ccaas_scope_result *scope, const struct sock *sk)
{
	struct ccaas_local_addr local;
	int have = -1;
	unsigned int i;

	for (i = first; i < gen->n_rules; i++) {
		const struct ccaas_rule_match *m = &gen->rules[i].match;

		if (!ccaas_scope_applies(m, scope) ||
		    !ccaas_local_applies(m, sk, &local, &have))
			continue;
		return &gen->rules[i];
	}
	return NULL;
}

/*
 * The first service rule that applies, or NULL. Out of line: a policy
 * without service rules never comes here, and its lookups stay as they
 * were before there were any.
 */
static noinline const struct ccaas_rule *
ccaas_policy_walk_service(const struct ccaas_policy_gen *gen,
			  const struct ccaas_scope_result *scope,
			  const struct sock *sk, enum ccaas_side side)
{
	struct ccaas_svc svc = { .sk = sk, .side = side };
	struct ccaas_local_addr local;
	int have = -1;
	unsigned int i;

	for (i = 0; i < gen->n_service; i++) {
		const struct ccaas_rule_match *m = &gen->rules[i].match;

		if (!ccaas_scope_applies(m, scope) ||
		    !ccaas_service_applies(m, &svc) ||
		    !ccaas_local_applies(m, sk, &local, &have))
			continue;
		return &gen->rules[i];
	}
	return NULL;
}

const struct ccaas_rule *
ccaas_policy_match_side(const struct ccaas_policy_gen *gen,
			const struct ccaas_scope_result *scope,
			const struct sock *sk, enum ccaas_side side)
{
	static const struct ccaas_scope_result unknown = {
		.locality = CCAAS_LOCALITY_UNKNOWN,
	};
	const struct ccaas_rule_group *g;
	const struct ccaas_rule *rule;
	struct ccaas_local_addr local;
	unsigned int i;
	int shape, have = -1;

	if (!scope)
		scope = &unknown;
	if (unlikely(gen->n_service)) {
		rule = ccaas_policy_walk_service(gen, scope, sk, side);
		if (rule)
			return rule;
	}
	if (gen->n_rules <= CCAAS_POLICY_WALK_RULES)
		return ccaas_policy_walk(gen, gen->n_service, scope, sk);
	for (shape = CCAAS_MATCH_SHAPES - 1; shape >= 0; shape--) {
		if (!gen->shape_groups[shape])
			continue;
		g = ccaas_policy_group(gen, shape, scope);
		if (!g)
			continue;
		/* in precedence order: local prefixes, then the one without */
		for (i = g->first; i < g->first + g->count; i++) {
			rule = &gen->rules[gen->order[i]];
			if (ccaas_local_applies(&rule->match, sk, &local, &have))
				return rule;
		}
	}
	return NULL;
}
EXPORT_SYMBOL_IF_KUNIT(ccaas_policy_match_side);

bool ccaas_rule_may_apply(const struct ccaas_rule *rule, const struct sock *sk,
			  enum ccaas_side side, bool *all)
{
	const struct ccaas_rule_match *m = &rule->match;
	struct ccaas_svc svc = { .sk = sk, .side = side };

	if (!ccaas_service_applies(m, &svc))
		return false;
	*all = !m->locality && !(m->fields & CCAAS_MATCH_LOCAL);
	return true;
}

/* --- the store: history, commits, retirement ----------------------------- */

struct ccaas_policy_gen *ccaas_policy_current_locked(struct ccaas_net *cn)
{
	return rcu_dereference_protected(cn->policy.cur,
					 lockdep_is_held(&cn->lock));
}

struct ccaas_policy_gen *ccaas_policy_find(struct ccaas_net *cn, u32 generation)
{
	struct ccaas_policy_gen *gen;

	lockdep_assert_held(&cn->lock);
	list_for_each_entry(gen, &cn->policy.history, node)
		if (gen->generation == generation)
			return gen;
	return NULL;
}

/**
 * ccaas_policy_wrote_rto - could a kept generation have set @sk's min RTO?
 * @cn: the namespace, its lock held (a migration or drain pass)
 * @sk: a socket, owned
 * @rto_min: its icsk_rto_min, jiffies
 *
 * For a socket whose CCA has no ccaas header to remember it: true if the
 * rule that matches @sk in one of the generations kept for rollback sets a
 * min_rto that comes to @rto_min (ccaas_sk_apply_min_rto()'s rounding). A
 * value the application or a sockops program chose is kept unless it
 * happens to equal such a rule's.
 */
bool ccaas_policy_wrote_rto(struct ccaas_net *cn, const struct sock *sk,
			    u32 rto_min)
{
	struct ccaas_scope_result scope;
	const struct ccaas_policy_gen *gen;
	const struct ccaas_rule *rule;
	bool wrote = false;

	lockdep_assert_held(&cn->lock);
	rcu_read_lock();
	ccaas_sk_scope(cn, sk, &scope);
	list_for_each_entry(gen, &cn->policy.history, node) {
		rule = ccaas_policy_match(gen, &scope, sk);
		if (rule && (rule->knobs & CCAAS_KNOB_MIN_RTO) &&
		    max_t(u32, usecs_to_jiffies(rule->min_rto_us),
			  TCP_TIMEOUT_MIN) == rto_min) {
			wrote = true;
			break;
		}
	}
	rcu_read_unlock();
	return wrote;
}

void ccaas_policy_head_of(const struct ccaas_policy_gen *gen,
			  struct ccaas_policy_head *head)
{
	*head = (struct ccaas_policy_head) {
		.generation = gen->generation,
		.origin = gen->origin,
		.from = gen->from,
		.time_ns = gen->time_ns,
		.n_rules = gen->n_rules,
	};
}

static void ccaas_policy_gen_release(struct ccaas_policy_gen *gen)
{
	if (refcount_dec_and_test(&gen->users))
		ccaas_policy_gen_free(gen);
}

/* A grace period after @gen was replaced: no reader can still see it. */
static void ccaas_policy_retire_rcu(struct rcu_head *head)
{
	struct ccaas_policy_gen *gen = container_of(head, struct ccaas_policy_gen,
						    rcu);
	unsigned int i;

	for (i = 0; i < gen->n_rules; i++)
		ccaas_rule_cca_put(&gen->rules[i]);
	ccaas_policy_gen_release(gen);
}

/* Drop the oldest generations beyond policy_history; never the current. */
static void ccaas_policy_trim(struct ccaas_policy_state *st)
{
	unsigned int keep = clamp_t(unsigned int, READ_ONCE(ccaas_policy_history),
				    CCAAS_POLICY_HISTORY_MIN,
				    CCAAS_POLICY_HISTORY_MAX);
	struct ccaas_policy_gen *gen;

	while (st->n_history > keep) {
		gen = list_first_entry(&st->history, struct ccaas_policy_gen, node);
		list_del(&gen->node);
		st->n_history--;
		ccaas_policy_gen_release(gen);
	}
}

/* Publish @gen (a finished draft) as the next generation. Lock held. */
static int ccaas_policy_commit(struct ccaas_net *cn,
			       const struct ccaas_policy_req *req,
			       struct ccaas_policy_gen *gen, u8 origin, u32 from,
			       struct ccaas_policy_head *head)
{
	struct ccaas_policy_state *st = &cn->policy;
	struct ccaas_policy_gen *old = ccaas_policy_current_locked(cn);

	if (old->generation == U32_MAX) {
		NL_SET_ERR_MSG(req->extack, "policy generation numbers are used up");
		ccaas_policy_draft_free(gen);
		return -EOVERFLOW;
	}
	gen->generation = old->generation + 1;
	gen->origin = origin;
	gen->from = from;
	gen->time_ns = ktime_get_real_ns();
	/* One for the history list, one until the module refs are dropped. */
	refcount_set(&gen->users, 2);
	ccaas_policy_index(gen);
	list_add_tail(&gen->node, &st->history);
	st->n_history++;
	rcu_assign_pointer(st->cur, gen);
	call_rcu(&old->rcu, ccaas_policy_retire_rcu);
	ccaas_policy_trim(st);

	ccaas_policy_head_of(gen, head);
	head->committed = true;
	return 0;
}

int ccaas_policy_set(struct ccaas_net *cn, const struct ccaas_policy_req *req,
		     struct ccaas_policy_gen *draft,
		     struct ccaas_policy_head *head)
{
	struct ccaas_policy_gen *cur, *gen = NULL;
	struct ccaas_rule *want, *old;
	unsigned int i;
	int err;

	if (WARN_ON_ONCE(draft->n_rules != 1)) {
		ccaas_policy_draft_free(draft);
		return -EINVAL;
	}
	want = &draft->rules[0];

	lockdep_assert_held(&cn->lock);
	WARN_ON_ONCE(req->dry_run);	/* only apply previews */
	cur = ccaas_policy_current_locked(cn);
	old = ccaas_policy_find_match(cur, &want->match);
	if (old && ccaas_rule_equal(old, want)) {
		ccaas_policy_head_of(cur, head);
		head->unchanged = true;
		err = 0;
		goto out;
	}
	if (!old && cur->n_rules >= CCAAS_POLICY_MAX_RULES) {
		NL_SET_ERR_MSG(req->extack, "too many rules (at most 1024)");
		err = -ENOSPC;
		goto out;
	}

	err = -ENOMEM;
	gen = ccaas_policy_draft_alloc(cur->n_rules + !old,
				       cur->n_params + want->n_params);
	if (!gen)
		goto out;
	for (i = 0; i < cur->n_rules; i++)
		if (&cur->rules[i] != old)
			ccaas_policy_draft_copy(gen, &cur->rules[i], CCAAS_COPY_REF);
	ccaas_policy_draft_copy(gen, want, CCAAS_COPY_MOVE);
	err = ccaas_policy_draft_finish(gen, req->extack);
	if (!err)
		err = ccaas_policy_commit(cn, req, gen, CCAAS_POLICY_ORIGIN_SET,
					  0, head);
	else
		ccaas_policy_draft_free(gen);
out:
	ccaas_policy_draft_free(draft);
	return err;
}
EXPORT_SYMBOL_IF_KUNIT(ccaas_policy_set);

int ccaas_policy_del(struct ccaas_net *cn, const struct ccaas_policy_req *req,
		     const struct ccaas_rule_match *match,
		     struct ccaas_policy_head *head)
{
	struct ccaas_policy_gen *cur, *gen;
	struct ccaas_rule *old;
	unsigned int i;
	int err;

	lockdep_assert_held(&cn->lock);
	cur = ccaas_policy_current_locked(cn);
	old = ccaas_policy_find_match(cur, match);
	if (!old) {
		NL_SET_ERR_MSG(req->extack, "no rule with that match");
		err = -ENOENT;
		goto out;
	}
	err = -ENOMEM;
	gen = ccaas_policy_draft_alloc(cur->n_rules - 1, cur->n_params);
	if (!gen)
		goto out;
	for (i = 0; i < cur->n_rules; i++)
		if (&cur->rules[i] != old)
			ccaas_policy_draft_copy(gen, &cur->rules[i], CCAAS_COPY_REF);
	err = ccaas_policy_commit(cn, req, gen, CCAAS_POLICY_ORIGIN_SET, 0, head);
out:
	return err;
}
EXPORT_SYMBOL_IF_KUNIT(ccaas_policy_del);

int ccaas_policy_apply(struct ccaas_net *cn, const struct ccaas_policy_req *req,
		       struct ccaas_policy_gen *draft,
		       struct ccaas_policy_head *head)
{
	struct ccaas_policy_gen *cur;
	int err;

	lockdep_assert_held(&cn->lock);
	err = ccaas_policy_draft_finish(draft, req->extack);
	if (err)
		goto out_free;

	cur = ccaas_policy_current_locked(cn);
	if (ccaas_policy_same_rules(cur, draft)) {
		/* Idempotent: the same rule set again commits nothing. */
		ccaas_policy_head_of(cur, head);
		head->unchanged = true;
	} else if (req->dry_run) {
		*head = (struct ccaas_policy_head) {
			.generation = cur->generation + 1,
			.origin = CCAAS_POLICY_ORIGIN_APPLY,
			.n_rules = draft->n_rules,
		};
	} else {
		err = ccaas_policy_commit(cn, req, draft,
					  CCAAS_POLICY_ORIGIN_APPLY, 0, head);
		draft = NULL;	/* committed, or freed on failure */
	}
out_free:
	ccaas_policy_draft_free(draft);
	return err;
}
EXPORT_SYMBOL_IF_KUNIT(ccaas_policy_apply);

/*
 * Resolve a copied rule's CCA again and find its parameters in the CCA's
 * schema as it is now (a reloaded module may have another one).
 */
static int ccaas_policy_reresolve(struct ccaas_policy_gen *draft,
				  struct ccaas_rule *rule, struct net *net,
				  struct netlink_ext_ack *extack)
{
	char name[CCAAS_CCA_NAME_MAX];
	unsigned int i;
	int err;

	strscpy(name, rule->cca_name, sizeof(name));
	err = ccaas_policy_draft_resolve(draft, rule, net, name, extack);
	if (err)
		return err;
	for (i = 0; i < rule->n_params; i++) {
		struct ccaas_rule_param *p = &rule->params[i];

		err = ccaas_cca_param_check(rule->cca.cca, p->name, p->value,
					    NULL, extack);
		if (err < 0)
			return err;
		p->index = err;
	}
	ccaas_rule_sort_params(rule);
	return 0;
}

struct ccaas_policy_gen *
ccaas_policy_rollback_copy(struct ccaas_net *cn,
			   const struct ccaas_policy_req *req, u32 generation)
{
	struct ccaas_policy_gen *src, *draft;
	unsigned int i;

	lockdep_assert_held(&cn->lock);
	src = ccaas_policy_find(cn, generation);
	if (!src) {
		if (generation > ccaas_policy_current_locked(cn)->generation)
			NL_SET_ERR_MSG(req->extack,
				       "no such generation: it was never committed");
		else
			NL_SET_ERR_MSG(req->extack,
				       "generation no longer kept (see policy history)");
		return ERR_PTR(-ENOENT);
	}
	draft = ccaas_policy_draft_alloc(src->n_rules, src->n_params);
	if (!draft)
		return ERR_PTR(-ENOMEM);
	for (i = 0; i < src->n_rules; i++)
		ccaas_policy_draft_copy(draft, &src->rules[i], CCAAS_COPY_NAME);
	return draft;
}
EXPORT_SYMBOL_IF_KUNIT(ccaas_policy_rollback_copy);

int ccaas_policy_rollback_resolve(struct ccaas_policy_gen *draft,
				  const struct ccaas_policy_req *req)
{
	unsigned int i;
	int err;

	for (i = 0; i < draft->n_rules; i++) {
		err = ccaas_policy_reresolve(draft, &draft->rules[i], req->net,
					     req->extack);
		if (err)
			return err;
	}
	return ccaas_policy_draft_finish(draft, req->extack);
}
EXPORT_SYMBOL_IF_KUNIT(ccaas_policy_rollback_resolve);

int ccaas_policy_rollback_commit(struct ccaas_net *cn,
				 const struct ccaas_policy_req *req,
				 struct ccaas_policy_gen *draft, u32 generation,
				 struct ccaas_policy_head *head)
{
	lockdep_assert_held(&cn->lock);
	return ccaas_policy_commit(cn, req, draft, CCAAS_POLICY_ORIGIN_ROLLBACK,
				   generation, head);
}
EXPORT_SYMBOL_IF_KUNIT(ccaas_policy_rollback_commit);

/* --- per namespace ------------------------------------------------------------ */

int ccaas_policy_net_init(struct ccaas_net *cn)
{
	struct ccaas_policy_state *st = &cn->policy;
	struct ccaas_policy_gen *gen;

	gen = ccaas_policy_draft_alloc(0, 0);
	if (!gen)
		return -ENOMEM;
	gen->generation = 0;
	gen->origin = CCAAS_POLICY_ORIGIN_EMPTY;
	gen->time_ns = ktime_get_real_ns();
	refcount_set(&gen->users, 2);
	INIT_LIST_HEAD(&st->history);
	list_add_tail(&gen->node, &st->history);
	st->n_history = 1;
	RCU_INIT_POINTER(st->cur, gen);
	return 0;
}
EXPORT_SYMBOL_IF_KUNIT(ccaas_policy_net_init);

void ccaas_policy_net_exit(struct ccaas_net *cn)
{
	struct ccaas_policy_state *st = &cn->policy;
	struct ccaas_policy_gen *gen, *tmp;

	/* No commit can run: the namespace has no sockets left to ask. */
	gen = rcu_dereference_protected(st->cur, true);
	rcu_assign_pointer(st->cur, &ccaas_policy_none);
	call_rcu(&gen->rcu, ccaas_policy_retire_rcu);

	list_for_each_entry_safe(gen, tmp, &st->history, node) {
		list_del(&gen->node);
		ccaas_policy_gen_release(gen);
	}
	st->n_history = 0;
}
EXPORT_SYMBOL_IF_KUNIT(ccaas_policy_net_exit);
