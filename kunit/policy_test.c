// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit tests of the policy store (kmod/core/policy.c, policy_nl.c): rule
 * precedence, generations and history, rollback, idempotent apply, and the
 * checks of parameters (against cca_dctcp's schema), knobs and matches.
 *
 * Each test gets a private policy state; rules are written as text in the
 * words of `ccactl policy set`, turned into the RULE nests ccactl sends and
 * parsed by the real ccaas_rule_parse(). CCAs: reno and cubic (built in)
 * and cca_dctcp (registered by the core built into this kernel).
 */
#include <kunit/test.h>
#include <linux/cgroup.h>
#include <linux/inet.h>
#include <linux/skbuff.h>
#include <linux/string.h>
#include <net/ipv6.h>
#include <net/net_namespace.h>
#include <net/netlink.h>
#include <net/sock.h>

#include "../kmod/core/cgroup_bind.h"
#include "../kmod/core/core.h"

struct pol {
	struct kunit *test;
	struct ccaas_net *cn;
	struct netlink_ext_ack extack;
	struct ccaas_policy_req req;
	struct ccaas_policy_head head;
};

static int pol_init(struct kunit *test)
{
	struct pol *p = kunit_kzalloc(test, sizeof(*p), GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, p);
	p->cn = kunit_kzalloc(test, sizeof(*p->cn), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, p->cn);
	mutex_init(&p->cn->lock);
	KUNIT_ASSERT_EQ(test, ccaas_policy_net_init(p->cn), 0);
	p->test = test;
	p->req = (struct ccaas_policy_req) {
		.net = &init_net,
		.extack = &p->extack,
	};
	test->priv = p;
	return 0;
}

static void pol_exit(struct kunit *test)
{
	struct pol *p = test->priv;

	ccaas_policy_net_exit(p->cn);
	rcu_barrier();	/* the retired generations are freed */
}

/* --- building rules from text ------------------------------------------- */

static u8 locality_of(const char *name)
{
	static const char *const names[] = {
		"unknown", "rack", "dc", "region", "xregion",
	};
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(names); i++)
		if (!strcmp(name, names[i]))
			return i;
	return 0xff;
}

/* "A.B.C.D/N" or "X::/N" into a local prefix. */
static void put_local(struct kunit *test, struct sk_buff *skb, char *arg)
{
	char *len = strchr(arg, '/');
	u8 addr[16];
	u8 plen;

	KUNIT_ASSERT_NOT_NULL(test, len);
	*len++ = '\0';
	KUNIT_ASSERT_EQ(test, kstrtou8(len, 10, &plen), 0);
	if (in4_pton(arg, -1, addr, -1, NULL))
		KUNIT_ASSERT_EQ(test, nla_put(skb, CCAAS_A_RULE_LOCAL_ADDR, 4, addr), 0);
	else if (in6_pton(arg, -1, addr, -1, NULL))
		KUNIT_ASSERT_EQ(test, nla_put(skb, CCAAS_A_RULE_LOCAL_ADDR, 16, addr), 0);
	else
		KUNIT_FAIL(test, "bad address %s", arg);
	KUNIT_ASSERT_EQ(test, nla_put_u8(skb, CCAAS_A_RULE_LOCAL_PREFIXLEN, plen), 0);
}

/*
 * A RULE nest from the words of `ccactl policy set` ("default" or
 * "locality L [region N] [dc N] [local P]", "cca C", "param K=V", knobs in
 * plain numbers), plus "local_bytes N" (an N-byte zero address alone) and
 * "local_len N" (a prefix length alone) for malformed prefixes.
 */
static struct nlattr *rule_nest(struct kunit *test, struct sk_buff *skb,
				const char *text)
{
	static const struct { const char *word; int attr; } u32s[] = {
		{ "region", CCAAS_A_RULE_REGION },
		{ "dc", CCAAS_A_RULE_DC },
		{ "min_rto", CCAAS_A_RULE_MIN_RTO_US },
		{ "init_cwnd", CCAAS_A_RULE_INIT_CWND },
		{ "tso_segs", CCAAS_A_RULE_TSO_SEGS },
	};
	char *buf = kstrdup(text, GFP_KERNEL), *s = buf, *w, *arg, *eq;
	struct nlattr *nest, *pn;
	unsigned int i;
	u8 zero[16] = {};
	u32 v;

	KUNIT_ASSERT_NOT_NULL(test, buf);
	nest = nla_nest_start(skb, CCAAS_A_POLICY_RULE);
	KUNIT_ASSERT_NOT_NULL(test, nest);
	while ((w = strsep(&s, " "))) {
		if (!*w || !strcmp(w, "default"))
			continue;
		arg = strsep(&s, " ");
		KUNIT_ASSERT_NOT_NULL_MSG(test, arg, "%s: no value", w);
		for (i = 0; i < ARRAY_SIZE(u32s); i++)
			if (!strcmp(w, u32s[i].word))
				break;
		if (i < ARRAY_SIZE(u32s)) {
			KUNIT_ASSERT_EQ(test, kstrtou32(arg, 10, &v), 0);
			KUNIT_ASSERT_EQ(test, nla_put_u32(skb, u32s[i].attr, v), 0);
		} else if (!strcmp(w, "locality")) {
			nla_put_u8(skb, CCAAS_A_RULE_LOCALITY, locality_of(arg));
		} else if (!strcmp(w, "local")) {
			put_local(test, skb, arg);
		} else if (!strcmp(w, "cgroup")) {
			nla_put_string(skb, CCAAS_A_RULE_CGROUP, arg);
		} else if (!strcmp(w, "port")) {
			eq = strchr(arg, '-');
			if (eq)
				*eq++ = '\0';
			KUNIT_ASSERT_EQ(test, kstrtou32(arg, 10, &v), 0);
			nla_put_u16(skb, CCAAS_A_RULE_PORT_MIN, v);
			if (eq) {
				KUNIT_ASSERT_EQ(test, kstrtou32(eq, 10, &v), 0);
				nla_put_u16(skb, CCAAS_A_RULE_PORT_MAX, v);
			}
		} else if (!strcmp(w, "port_max")) {
			KUNIT_ASSERT_EQ(test, kstrtou32(arg, 10, &v), 0);
			nla_put_u16(skb, CCAAS_A_RULE_PORT_MAX, v);
		} else if (!strcmp(w, "local_bytes")) {
			KUNIT_ASSERT_EQ(test, kstrtou32(arg, 10, &v), 0);
			nla_put(skb, CCAAS_A_RULE_LOCAL_ADDR, v, zero);
		} else if (!strcmp(w, "local_len")) {
			KUNIT_ASSERT_EQ(test, kstrtou32(arg, 10, &v), 0);
			nla_put_u8(skb, CCAAS_A_RULE_LOCAL_PREFIXLEN, v);
		} else if (!strcmp(w, "cca")) {
			nla_put_string(skb, CCAAS_A_RULE_CCA, arg);
		} else if (!strcmp(w, "param")) {
			eq = strchr(arg, '=');
			KUNIT_ASSERT_NOT_NULL(test, eq);
			*eq++ = '\0';
			KUNIT_ASSERT_EQ(test, kstrtou32(eq, 10, &v), 0);
			pn = nla_nest_start(skb, CCAAS_A_RULE_PARAM);
			nla_put_string(skb, CCAAS_A_PARAM_NAME, arg);
			nla_put_u32(skb, CCAAS_A_PARAM_VALUE, v);
			nla_nest_end(skb, pn);
		} else {
			KUNIT_FAIL(test, "unknown word %s", w);
		}
	}
	nla_nest_end(skb, nest);
	kfree(buf);
	return nest;
}

/* Parse one rule into @draft with the real parser. */
static int parse_into(struct pol *p, struct ccaas_policy_gen *draft,
		      const char *text, bool match_only)
{
	struct sk_buff *skb = alloc_skb(NLMSG_GOODSIZE, GFP_KERNEL);
	int err;

	KUNIT_ASSERT_NOT_NULL(p->test, skb);
	err = ccaas_rule_parse(&init_net, rule_nest(p->test, skb, text),
			       match_only, draft, &p->extack);
	kfree_skb(skb);
	return err;
}

static void reset(struct pol *p)
{
	memset(&p->extack, 0, sizeof(p->extack));
	memset(&p->head, 0, sizeof(p->head));
}

/* The extack message, never NULL. */
static const char *msg(struct pol *p)
{
	return p->extack._msg ?: "(no message)";
}

/* Parse one rule on its own (no commit): 0 or the parser's error. */
static int parse_one(struct pol *p, const char *text)
{
	struct ccaas_policy_gen *draft;
	int err;

	reset(p);
	draft = ccaas_policy_draft_alloc(1, CCAAS_RULE_MAX_PARAMS);
	KUNIT_ASSERT_NOT_NULL(p->test, draft);
	err = parse_into(p, draft, text, false);
	ccaas_policy_draft_free(draft);
	return err;
}

static int pol_set(struct pol *p, const char *text)
{
	struct ccaas_policy_gen *draft;
	int err;

	reset(p);
	draft = ccaas_policy_draft_alloc(1, CCAAS_RULE_MAX_PARAMS);
	KUNIT_ASSERT_NOT_NULL(p->test, draft);
	err = parse_into(p, draft, text, false);
	if (err) {
		ccaas_policy_draft_free(draft);
		return err;
	}
	mutex_lock(&p->cn->lock);
	err = ccaas_policy_set(p->cn, &p->req, draft, &p->head);
	mutex_unlock(&p->cn->lock);
	return err;
}

static int pol_del(struct pol *p, const char *text)
{
	struct ccaas_policy_gen *draft;
	int err;

	reset(p);
	draft = ccaas_policy_draft_alloc(1, 0);
	KUNIT_ASSERT_NOT_NULL(p->test, draft);
	err = parse_into(p, draft, text, true);
	if (!err) {
		mutex_lock(&p->cn->lock);
		err = ccaas_policy_del(p->cn, &p->req, &draft->rules[0].match,
				       &p->head);
		mutex_unlock(&p->cn->lock);
	}
	ccaas_policy_draft_free(draft);
	return err;
}

/* Apply the NULL-terminated rule list @rules. */
static int pol_apply(struct pol *p, const char *const *rules)
{
	struct ccaas_policy_gen *draft;
	unsigned int n = 0;
	int err;

	reset(p);
	while (rules[n])
		n++;
	draft = ccaas_policy_draft_alloc(n, n * CCAAS_RULE_MAX_PARAMS);
	KUNIT_ASSERT_NOT_NULL(p->test, draft);
	for (n = 0; rules[n]; n++) {
		err = parse_into(p, draft, rules[n], false);
		if (err) {
			ccaas_policy_draft_free(draft);
			return err;
		}
	}
	mutex_lock(&p->cn->lock);
	err = ccaas_policy_apply(p->cn, &p->req, draft, &p->head);
	mutex_unlock(&p->cn->lock);
	return err;
}

/* As the POLICY_ROLLBACK handler does it: copy, resolve unlocked, commit. */
static int pol_rollback(struct pol *p, u32 generation)
{
	struct ccaas_policy_gen *draft;
	int err;

	reset(p);
	mutex_lock(&p->cn->lock);
	draft = ccaas_policy_rollback_copy(p->cn, &p->req, generation);
	mutex_unlock(&p->cn->lock);
	if (IS_ERR(draft))
		return PTR_ERR(draft);
	err = ccaas_policy_rollback_resolve(draft, &p->req);
	if (err) {
		ccaas_policy_draft_free(draft);
		return err;
	}
	mutex_lock(&p->cn->lock);
	err = ccaas_policy_rollback_commit(p->cn, &p->req, draft, generation,
					   &p->head);
	mutex_unlock(&p->cn->lock);
	return err;
}

/* The generation in force (the test is the only writer). */
static struct ccaas_policy_gen *cur(struct pol *p)
{
	return rcu_dereference_protected(p->cn->policy.cur, true);
}

/*
 * The tso_segs of the rule a connection gets (rules in the precedence
 * tests carry a distinct one as a tag), 0 if no rule applies.
 */
static u32 lookup(struct pol *p, u8 locality, u32 region, u32 dc,
		  const struct sock *sk)
{
	struct ccaas_scope_result scope = {
		.locality = locality, .region = region, .dc = dc,
	};
	const struct ccaas_rule *rule;
	u32 tag;

	rcu_read_lock();
	rule = ccaas_policy_match(ccaas_policy_current(p->cn), &scope, sk);
	tag = rule ? rule->tso_segs : 0;
	rcu_read_unlock();
	return tag;
}

/* A socket with only a local address, for local-prefix rules. */
static struct sock *local_sock(struct kunit *test, const char *addr)
{
	struct sock *sk = kunit_kzalloc(test, sizeof(*sk), GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, sk);
	if (in4_pton(addr, -1, (u8 *)&sk->sk_rcv_saddr, -1, NULL)) {
		sk->sk_family = AF_INET;
	} else {
		KUNIT_ASSERT_TRUE(test, in6_pton(addr, -1, sk->sk_v6_rcv_saddr.s6_addr,
						 -1, NULL));
		sk->sk_family = AF_INET6;
	}
	return sk;
}

/* --- precedence ------------------------------------------------------------ */

static const char *const precedence_rules[] = {
	"default cca cca_dctcp tso_segs 1",
	"locality dc cca cca_dctcp tso_segs 2",
	"locality dc region 1 cca cca_dctcp tso_segs 3",
	"locality dc dc 7 cca cca_dctcp tso_segs 4",
	"locality dc region 1 dc 7 cca cca_dctcp tso_segs 5",
	"locality dc local 10.1.0.0/16 cca cca_dctcp tso_segs 6",
	"locality dc local 10.1.2.0/24 cca cca_dctcp tso_segs 7",
	"locality dc region 1 local 10.1.0.0/16 cca cca_dctcp tso_segs 8",
	"locality xregion cca cca_cubic tso_segs 9",
	"locality dc local fd00::/8 cca cca_dctcp tso_segs 10",
	NULL
};

static void precedence_default_for_unknown_scope(struct kunit *test)
{
	struct pol *p = test->priv;
	const struct ccaas_rule *rule;

	KUNIT_ASSERT_EQ(test, pol_apply(p, precedence_rules), 0);
	KUNIT_EXPECT_EQ(test, lookup(p, CCAAS_LOCALITY_UNKNOWN, 0, 0, NULL), 1U);
	/* A locality without rules of its own gets the default too. */
	KUNIT_EXPECT_EQ(test, lookup(p, CCAAS_LOCALITY_RACK, 1, 7, NULL), 1U);
	/* No scope at all is unknown scope. */
	rcu_read_lock();
	rule = ccaas_policy_match(ccaas_policy_current(p->cn), NULL, NULL);
	KUNIT_EXPECT_EQ(test, rule ? rule->tso_segs : 0, 1U);
	rcu_read_unlock();
}

static void precedence_locality_region_dc(struct kunit *test)
{
	struct pol *p = test->priv;

	KUNIT_ASSERT_EQ(test, pol_apply(p, precedence_rules), 0);
	KUNIT_EXPECT_EQ(test, lookup(p, CCAAS_LOCALITY_XREGION, 3, 0, NULL), 9U);
	KUNIT_EXPECT_EQ(test, lookup(p, CCAAS_LOCALITY_DC, 0, 0, NULL), 2U);
	KUNIT_EXPECT_EQ(test, lookup(p, CCAAS_LOCALITY_DC, 2, 0, NULL), 2U);
	KUNIT_EXPECT_EQ(test, lookup(p, CCAAS_LOCALITY_DC, 1, 0, NULL), 3U);
	/* DC outranks region: locality+dc beats locality+region. */
	KUNIT_EXPECT_EQ(test, lookup(p, CCAAS_LOCALITY_DC, 2, 7, NULL), 4U);
	KUNIT_EXPECT_EQ(test, lookup(p, CCAAS_LOCALITY_DC, 1, 7, NULL), 5U);
	/* Every field a rule sets must match: rack region 1 is not dc. */
	KUNIT_EXPECT_EQ(test, lookup(p, CCAAS_LOCALITY_RACK, 1, 0, NULL), 1U);
}

static void precedence_local_prefix(struct kunit *test)
{
	struct pol *p = test->priv;

	KUNIT_ASSERT_EQ(test, pol_apply(p, precedence_rules), 0);
	/* Longer prefixes are more specific. */
	KUNIT_EXPECT_EQ(test, lookup(p, CCAAS_LOCALITY_DC, 2, 0,
				     local_sock(test, "10.1.5.5")), 6U);
	KUNIT_EXPECT_EQ(test, lookup(p, CCAAS_LOCALITY_DC, 2, 0,
				     local_sock(test, "10.1.2.3")), 7U);
	KUNIT_EXPECT_EQ(test, lookup(p, CCAAS_LOCALITY_DC, 2, 0,
				     local_sock(test, "10.2.0.1")), 2U);
	/* The remote scope ranks first: region beats a /24 local prefix. */
	KUNIT_EXPECT_EQ(test, lookup(p, CCAAS_LOCALITY_DC, 1, 0,
				     local_sock(test, "10.1.2.3")), 8U);
	KUNIT_EXPECT_EQ(test, lookup(p, CCAAS_LOCALITY_DC, 1, 7,
				     local_sock(test, "10.1.2.3")), 5U);
	/* v4-mapped IPv6 addresses match IPv4 prefixes; IPv6 its own. */
	KUNIT_EXPECT_EQ(test, lookup(p, CCAAS_LOCALITY_DC, 2, 0,
				     local_sock(test, "::ffff:10.1.2.3")), 7U);
	KUNIT_EXPECT_EQ(test, lookup(p, CCAAS_LOCALITY_DC, 2, 0,
				     local_sock(test, "fd00::1")), 10U);
	KUNIT_EXPECT_EQ(test, lookup(p, CCAAS_LOCALITY_DC, 2, 0,
				     local_sock(test, "fe80::1")), 2U);
}

static void precedence_no_default_rule(struct kunit *test)
{
	static const char *const rules[] = { "locality dc cca cca_dctcp tso_segs 2", NULL };
	struct pol *p = test->priv;

	KUNIT_ASSERT_EQ(test, pol_apply(p, rules), 0);
	KUNIT_EXPECT_EQ(test, lookup(p, CCAAS_LOCALITY_UNKNOWN, 0, 0, NULL), 0U);
	KUNIT_EXPECT_EQ(test, lookup(p, CCAAS_LOCALITY_DC, 0, 0, NULL), 2U);
}

/* The rules are kept most specific first, whatever order they came in. */
static void precedence_rules_sorted(struct kunit *test)
{
	struct pol *p = test->priv;
	struct ccaas_policy_gen *gen;

	KUNIT_ASSERT_EQ(test, pol_apply(p, precedence_rules), 0);
	gen = cur(p);
	KUNIT_ASSERT_EQ(test, gen->n_rules, 10U);
	KUNIT_EXPECT_EQ(test, gen->rules[0].tso_segs, 5U);	/* region+dc */
	KUNIT_EXPECT_EQ(test, gen->rules[1].tso_segs, 4U);	/* dc */
	KUNIT_EXPECT_EQ(test, gen->rules[2].tso_segs, 8U);	/* region+local */
	KUNIT_EXPECT_EQ(test, gen->rules[3].tso_segs, 3U);	/* region */
	KUNIT_EXPECT_EQ(test, gen->rules[9].tso_segs, 1U);	/* default */
}

/* --- generations ---------------------------------------------------------- */

static void generations_numbered_from_one(struct kunit *test)
{
	static const char *const rules[] = {
		"default cca reno", "locality rack cca cubic", NULL
	};
	struct pol *p = test->priv;
	struct ccaas_policy_gen *gen;
	u32 want = 0;
	u64 t = 0;

	KUNIT_EXPECT_EQ(test, cur(p)->generation, 0U);
	KUNIT_EXPECT_EQ(test, cur(p)->origin, CCAAS_POLICY_ORIGIN_EMPTY);
	KUNIT_EXPECT_EQ(test, cur(p)->n_rules, 0U);

	KUNIT_ASSERT_EQ(test, pol_set(p, "default cca reno"), 0);
	KUNIT_EXPECT_EQ(test, p->head.generation, 1U);
	KUNIT_EXPECT_EQ(test, p->head.origin, CCAAS_POLICY_ORIGIN_SET);
	KUNIT_EXPECT_FALSE(test, p->head.unchanged);
	KUNIT_ASSERT_EQ(test, pol_set(p, "locality dc cca cubic"), 0);
	KUNIT_EXPECT_EQ(test, p->head.generation, 2U);
	KUNIT_EXPECT_EQ(test, p->head.n_rules, 2U);
	KUNIT_ASSERT_EQ(test, pol_del(p, "locality dc"), 0);
	KUNIT_EXPECT_EQ(test, p->head.generation, 3U);
	KUNIT_EXPECT_EQ(test, p->head.n_rules, 1U);
	KUNIT_ASSERT_EQ(test, pol_apply(p, rules), 0);
	KUNIT_EXPECT_EQ(test, p->head.generation, 4U);
	KUNIT_EXPECT_EQ(test, p->head.origin, CCAAS_POLICY_ORIGIN_APPLY);
	KUNIT_EXPECT_EQ(test, cur(p)->generation, 4U);

	/* The history holds 0..4, oldest first, with commit times. */
	KUNIT_EXPECT_EQ(test, p->cn->policy.n_history, 5U);
	list_for_each_entry(gen, &p->cn->policy.history, node) {
		KUNIT_EXPECT_EQ(test, gen->generation, want++);
		KUNIT_EXPECT_GE(test, gen->time_ns, t);
		t = gen->time_ns;
	}
	KUNIT_EXPECT_GT(test, t, 0ULL);
}

static void generations_history_trimmed(struct kunit *test)
{
	struct pol *p = test->priv;
	struct ccaas_policy_gen *first;
	char rule[48];
	u32 i;

	for (i = 1; i <= 20; i++) {
		snprintf(rule, sizeof(rule), "default cca cca_dctcp init_cwnd %u", 10 + i);
		KUNIT_ASSERT_EQ(test, pol_set(p, rule), 0);
		KUNIT_ASSERT_EQ(test, p->head.generation, i);
	}
	KUNIT_EXPECT_EQ(test, p->cn->policy.n_history, CCAAS_POLICY_HISTORY_DEFAULT);
	first = list_first_entry(&p->cn->policy.history, struct ccaas_policy_gen, node);
	KUNIT_EXPECT_EQ(test, first->generation, 21U - CCAAS_POLICY_HISTORY_DEFAULT);

	KUNIT_EXPECT_EQ(test, pol_rollback(p, 4), -ENOENT);
	KUNIT_EXPECT_STREQ(test, msg(p), "generation no longer kept (see policy history)");
	KUNIT_EXPECT_EQ(test, pol_rollback(p, 21), -ENOENT);
	KUNIT_EXPECT_STREQ(test, msg(p), "no such generation: it was never committed");
	KUNIT_EXPECT_EQ(test, cur(p)->generation, 20U);
	KUNIT_EXPECT_EQ(test, pol_rollback(p, 5), 0);
	KUNIT_EXPECT_EQ(test, p->head.generation, 21U);
	KUNIT_EXPECT_EQ(test, cur(p)->rules[0].init_cwnd, 15U);
}

static void rollback_recommits_as_new_generation(struct kunit *test)
{
	struct pol *p = test->priv;
	const struct ccaas_cca *dctcp = ccaas_cca_lookup("cca_dctcp");
	struct ccaas_policy_gen *gen;

	KUNIT_ASSERT_NOT_NULL(test, dctcp);
	KUNIT_ASSERT_EQ(test, pol_set(p, "default cca reno min_rto 5000"), 0);
	KUNIT_ASSERT_EQ(test, pol_set(p, "default cca cubic"), 0);
	KUNIT_ASSERT_EQ(test, pol_set(p, "locality dc cca cca_dctcp param shift_g=6"), 0);

	KUNIT_ASSERT_EQ(test, pol_rollback(p, 1), 0);
	KUNIT_EXPECT_EQ(test, p->head.generation, 4U);
	KUNIT_EXPECT_EQ(test, p->head.origin, CCAAS_POLICY_ORIGIN_ROLLBACK);
	KUNIT_EXPECT_EQ(test, p->head.from, 1U);
	gen = cur(p);
	KUNIT_EXPECT_EQ(test, gen->origin, CCAAS_POLICY_ORIGIN_ROLLBACK);
	KUNIT_EXPECT_EQ(test, gen->from, 1U);
	KUNIT_ASSERT_EQ(test, gen->n_rules, 1U);
	KUNIT_EXPECT_STREQ(test, gen->rules[0].cca_name, "reno");
	KUNIT_EXPECT_STREQ(test, gen->rules[0].cca.ops->name, "reno");
	KUNIT_EXPECT_EQ(test, gen->rules[0].min_rto_us, 5000U);
	KUNIT_EXPECT_EQ(test, gen->rules[0].knobs, (u8)CCAAS_KNOB_MIN_RTO);

	/* Back to 3: the CCA and its parameters are resolved again. */
	KUNIT_ASSERT_EQ(test, pol_rollback(p, 3), 0);
	gen = cur(p);
	KUNIT_EXPECT_EQ(test, gen->generation, 5U);
	KUNIT_ASSERT_EQ(test, gen->n_rules, 2U);
	KUNIT_EXPECT_PTR_EQ(test, gen->rules[0].cca.ops,
			    (const struct tcp_congestion_ops *)dctcp->ops);
	KUNIT_EXPECT_PTR_EQ(test, gen->rules[0].cca.cca, dctcp);
	KUNIT_ASSERT_EQ(test, gen->rules[0].n_params, 1);
	KUNIT_EXPECT_EQ(test, gen->rules[0].params[0].value, 6U);
	KUNIT_EXPECT_STREQ(test, gen->rules[0].params[0].name, "shift_g");
	KUNIT_EXPECT_EQ(test, p->cn->policy.n_history, 6U);
}

static void apply_identical_commits_nothing(struct kunit *test)
{
	static const char *const rules[] = {
		"default cca cubic",
		"locality dc cca cca_dctcp param alpha_on_init=512 param shift_g=3 min_rto 1000",
		"locality xregion region 2 cca cca_dctcp init_cwnd 100 tso_segs 4",
		NULL
	};
	/* The same rules in another order, parameters too. */
	static const char *const again[] = {
		"locality xregion region 2 cca cca_dctcp tso_segs 4 init_cwnd 100",
		"default cca cubic",
		"locality dc cca cca_dctcp param shift_g=3 min_rto 1000 param alpha_on_init=512",
		NULL
	};
	static const char *const other[] = { "default cca reno", NULL };
	struct pol *p = test->priv;
	struct ccaas_policy_gen *gen;

	KUNIT_ASSERT_EQ(test, pol_apply(p, rules), 0);
	KUNIT_EXPECT_EQ(test, p->head.generation, 1U);
	gen = cur(p);

	KUNIT_ASSERT_EQ(test, pol_apply(p, again), 0);
	KUNIT_EXPECT_TRUE(test, p->head.unchanged);
	KUNIT_EXPECT_EQ(test, p->head.generation, 1U);
	KUNIT_EXPECT_EQ(test, p->head.origin, CCAAS_POLICY_ORIGIN_APPLY);
	KUNIT_EXPECT_PTR_EQ(test, cur(p), gen);
	KUNIT_EXPECT_EQ(test, p->cn->policy.n_history, 2U);

	/* A dry run says what would be committed, and commits nothing. */
	p->req.dry_run = true;
	KUNIT_ASSERT_EQ(test, pol_apply(p, other), 0);
	KUNIT_EXPECT_FALSE(test, p->head.unchanged);
	KUNIT_EXPECT_EQ(test, p->head.generation, 2U);
	KUNIT_EXPECT_EQ(test, p->head.n_rules, 1U);
	KUNIT_ASSERT_EQ(test, pol_apply(p, again), 0);
	KUNIT_EXPECT_TRUE(test, p->head.unchanged);
	p->req.dry_run = false;
	KUNIT_EXPECT_PTR_EQ(test, cur(p), gen);
	KUNIT_EXPECT_EQ(test, p->cn->policy.n_history, 2U);

	/* The same for one rule set again. */
	KUNIT_ASSERT_EQ(test, pol_set(p, "default cca cubic"), 0);
	KUNIT_EXPECT_TRUE(test, p->head.unchanged);
	KUNIT_EXPECT_PTR_EQ(test, cur(p), gen);
	KUNIT_ASSERT_EQ(test, pol_set(p, "default cca reno"), 0);
	KUNIT_EXPECT_FALSE(test, p->head.unchanged);
	KUNIT_EXPECT_EQ(test, p->head.generation, 2U);
}

/* --- validation ----------------------------------------------------------- */

static void params_checked_against_schema(struct kunit *test)
{
	static const char two[] =
		"locality dc cca cca_dctcp param alpha_on_init=1024 param shift_g=0";
	struct pol *p = test->priv;
	struct ccaas_policy_gen *gen;
	char many[256] = "locality dc cca cca_dctcp";
	int i;

	KUNIT_ASSERT_EQ(test, pol_set(p, two), 0);
	gen = cur(p);
	KUNIT_ASSERT_EQ(test, gen->rules[0].n_params, 2);
	/* Kept in schema order: shift_g is parameter 0. */
	KUNIT_EXPECT_EQ(test, gen->rules[0].params[0].index, 0);
	KUNIT_EXPECT_EQ(test, gen->rules[0].params[0].value, 0U);
	KUNIT_EXPECT_EQ(test, gen->rules[0].params[1].index, 1);
	KUNIT_EXPECT_EQ(test, ccaas_rule_param(&gen->rules[0], 1, 7), 1024U);

	KUNIT_EXPECT_EQ(test, pol_set(p, "default cca cca_dctcp param nosuch=1"), -EINVAL);
	KUNIT_EXPECT_STREQ(test, msg(p), "CCA has no parameter of that name");
	KUNIT_EXPECT_EQ(test, pol_set(p, "default cca cca_dctcp param shift_g=11"), -ERANGE);
	KUNIT_EXPECT_STREQ(test, msg(p), "parameter value out of the CCA's range");
	KUNIT_EXPECT_EQ(test, pol_set(p, "default cca cca_dctcp param alpha_on_init=1025"),
			-ERANGE);
	KUNIT_EXPECT_EQ(test, pol_set(p, "default cca reno param shift_g=4"), -EINVAL);
	KUNIT_EXPECT_STREQ(test, msg(p), "CCA has no parameters");
	KUNIT_EXPECT_EQ(test, pol_set(p, "default cca cca_dctcp param shift_g=4 param shift_g=5"),
			-EINVAL);
	KUNIT_EXPECT_STREQ(test, msg(p), "parameter given twice");
	for (i = 0; i <= CCAAS_RULE_MAX_PARAMS; i++)
		strlcat(many, " param shift_g=1", sizeof(many));
	KUNIT_EXPECT_EQ(test, parse_one(p, many), -E2BIG);

	/* Nothing of that reached the policy. */
	KUNIT_EXPECT_PTR_EQ(test, cur(p), gen);
	KUNIT_EXPECT_EQ(test, gen->generation, 1U);
}

static void knobs_bounded(struct kunit *test)
{
	static const struct {
		const char *knobs;
		int err;
	} cases[] = {
		{ "min_rto 999", -ERANGE },
		{ "min_rto 1000", 0 },
		{ "min_rto 200000", 0 },
		{ "min_rto 200001", -ERANGE },
		{ "init_cwnd 1", -ERANGE },
		{ "init_cwnd 2", 0 },
		{ "init_cwnd 1000", 0 },
		{ "init_cwnd 1001", -ERANGE },
		{ "tso_segs 0", -ERANGE },
		{ "tso_segs 1", 0 },
		{ "tso_segs 255", 0 },
		{ "tso_segs 256", -ERANGE },
	};
	struct pol *p = test->priv;
	struct ccaas_rule *rule;
	char text[64];
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(cases); i++) {
		snprintf(text, sizeof(text), "default cca cca_dctcp %s", cases[i].knobs);
		KUNIT_EXPECT_EQ_MSG(test, parse_one(p, text), cases[i].err, "%s", text);
	}
	KUNIT_EXPECT_EQ(test, pol_set(p, "default cca reno min_rto 200001"), -ERANGE);
	KUNIT_EXPECT_STREQ(test, msg(p), "min_rto out of range [1000..200000] us");
	/* Only a ccaas CCA reads init_cwnd and tso_segs; the core sets min_rto. */
	KUNIT_EXPECT_EQ(test, pol_set(p, "default cca reno init_cwnd 20"), -EINVAL);
	KUNIT_EXPECT_STREQ(test, msg(p), "init_cwnd and tso_segs need a CCA built on ccaas");
	KUNIT_EXPECT_EQ(test, pol_set(p, "default cca cubic tso_segs 4"), -EINVAL);
	KUNIT_EXPECT_EQ(test, cur(p)->generation, 0U);
	KUNIT_EXPECT_EQ(test, parse_one(p, "default cca reno min_rto 1000"), 0);

	/* Knobs not given stay unset. */
	KUNIT_ASSERT_EQ(test, pol_set(p, "default cca cca_dctcp init_cwnd 20"), 0);
	rule = &cur(p)->rules[0];
	KUNIT_EXPECT_EQ(test, rule->knobs, (u8)CCAAS_KNOB_INIT_CWND);
	KUNIT_EXPECT_EQ(test, rule->init_cwnd, 20U);
}

/* The netlink handlers' answer for a CCA no module provides (netlink.c). */
#define UNKNOWN_CCA_MSG \
	"unknown congestion control: none loaded by that name (ccaas loads no module for a request)"

static void matches_checked(struct kunit *test)
{
	static const struct {
		const char *rule;
		const char *msg;
	} cases[] = {
		{ "region 1 cca reno", "a region match needs a locality" },
		{ "dc 3 cca reno", "a DC match needs a locality" },
		{ "locality unknown cca reno",
		  "unknown scope is the default rule's: leave the locality out" },
		{ "locality dc region 0 cca reno", "region ids start at 1 (0 is no region)" },
		{ "local 10.0.0.0/8 cca reno",
		  "a local prefix needs a locality (the default rule matches nothing)" },
		{ "locality dc local 10.1.2.3/16 cca reno",
		  "bad local prefix: address bits set past the prefix length" },
		{ "locality dc local 10.0.0.0/33 cca reno",
		  "bad local prefix: longer than the address" },
		{ "locality dc local_bytes 5 local_len 8 cca reno",
		  "bad local prefix: the address is 4 (IPv4) or 16 (IPv6) bytes" },
		{ "locality dc local_len 8 cca reno",
		  "bad local prefix: it needs both an address and a length" },
		{ "locality dc", "a rule needs a CCA" },
		{ "locality dc cca no_such_cca", UNKNOWN_CCA_MSG },
	};
	struct pol *p = test->priv;
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(cases); i++) {
		KUNIT_EXPECT_LT_MSG(test, pol_set(p, cases[i].rule), 0, "%s", cases[i].rule);
		KUNIT_EXPECT_STREQ_MSG(test, msg(p), cases[i].msg, "%s", cases[i].rule);
	}
	KUNIT_EXPECT_EQ(test, parse_one(p, "locality dc local fd00:1::/32 cca reno"), 0);
	KUNIT_EXPECT_EQ(test, parse_one(p, "locality dc local 10.1.2.3/32 cca reno"), 0);
	KUNIT_EXPECT_EQ(test, cur(p)->generation, 0U);
}

static void rejections_leave_policy_in_force(struct kunit *test)
{
	static const char *const dup[] = {
		"locality dc cca reno", "default cca reno", "locality dc cca cubic", NULL
	};
	static const char *const bad[] = {
		"default cca reno", "locality dc cca cca_dctcp param shift_g=99", NULL
	};
	struct pol *p = test->priv;
	struct ccaas_policy_gen *gen;

	KUNIT_ASSERT_EQ(test, pol_set(p, "default cca cubic"), 0);
	gen = cur(p);

	KUNIT_EXPECT_EQ(test, pol_apply(p, dup), -EINVAL);
	KUNIT_EXPECT_STREQ(test, msg(p), "duplicate match: two rules have the same match");
	KUNIT_EXPECT_EQ(test, pol_apply(p, bad), -ERANGE);
	KUNIT_EXPECT_EQ(test, pol_del(p, "locality rack"), -ENOENT);
	KUNIT_EXPECT_STREQ(test, msg(p), "no rule with that match");
	KUNIT_EXPECT_EQ(test, pol_del(p, "locality rack cca reno"), -EINVAL);
	KUNIT_EXPECT_STREQ(test, msg(p), "deleting a rule takes its match only");

	KUNIT_EXPECT_PTR_EQ(test, cur(p), gen);
	KUNIT_EXPECT_EQ(test, p->cn->policy.n_history, 2U);
	KUNIT_EXPECT_STREQ(test, gen->rules[0].cca_name, "cubic");
}

/* --- the index against a walk of the sorted rules -------------------------- */

/* Are the first @len bits of @a those of @b? (bit by bit, unlike policy.c) */
static bool bits_equal(const u8 *a, const u8 *b, unsigned int len)
{
	unsigned int i;

	for (i = 0; i < len; i++)
		if ((a[i / 8] ^ b[i / 8]) & (0x80 >> (i % 8)))
			return false;
	return true;
}

/*
 * The rule a walk of @gen's rules in precedence order finds: the first
 * whose every match field is the connection's (the lookup without the index).
 * It relies on the order the store keeps, which the precedence_* cases
 * check; this reference checks the index against that order.
 */
static const struct ccaas_rule *walk_match(const struct ccaas_policy_gen *gen,
					   const struct ccaas_scope_result *s,
					   const struct sock *sk)
{
	unsigned int i, family = sk ? sk->sk_family : AF_UNSPEC;
	const u8 *addr = NULL;

	/* a v4-mapped IPv6 address is the IPv4 address it maps */
	if (family == AF_INET) {
		addr = (const u8 *)&sk->sk_rcv_saddr;
	} else if (family == AF_INET6 && ipv6_addr_v4mapped(&sk->sk_v6_rcv_saddr)) {
		family = AF_INET;
		addr = (const u8 *)&sk->sk_v6_rcv_saddr.s6_addr32[3];
	} else if (family == AF_INET6) {
		addr = sk->sk_v6_rcv_saddr.s6_addr;
	}
	for (i = 0; i < gen->n_rules; i++) {
		const struct ccaas_rule_match *m = &gen->rules[i].match;

		if (m->locality && m->locality != s->locality)
			continue;
		if (m->fields & CCAAS_MATCH_REGION && m->region != s->region)
			continue;
		if (m->fields & CCAAS_MATCH_DC && m->dc != s->dc)
			continue;
		if (m->fields & CCAAS_MATCH_LOCAL &&
		    (!addr || family != m->local_family ||
		     !bits_equal(addr, m->local_addr, m->local_prefixlen)))
			continue;
		return &gen->rules[i];
	}
	return NULL;
}

static u32 rnd_next(u32 *x)
{
	*x ^= *x << 13;
	*x ^= *x >> 17;
	*x ^= *x << 5;
	return *x;
}

/* A rule's text, freed with the test. */
static __printf(2, 3) const char *text_of(struct kunit *test, const char *fmt, ...)
{
	char *buf = kunit_kzalloc(test, 128, GFP_KERNEL);
	va_list ap;

	KUNIT_ASSERT_NOT_NULL(test, buf);
	va_start(ap, fmt);
	vsnprintf(buf, 128, fmt, ap);
	va_end(ap);
	return buf;
}

#define IDX_MAX_RULES	250	/* each tagged with its own tso_segs (<= 255) */

/* A random rule's match, in the words of `ccactl policy set`. */
static void rnd_match(u32 *x, char *buf, size_t len)
{
	static const char *const loc[] = { "rack", "dc", "region", "xregion" };
	static const char *const local[] = {
		"0.0.0.0/0", "10.0.0.0/8", "10.1.0.0/16", "10.1.2.0/24",
		"10.1.2.3/32", "fd00::/8", "fd00:1::/32", "fd00:1::/64",
		"fd00:1::5/128",
	};
	int off;

	if (rnd_next(x) % 32 == 0) {
		snprintf(buf, len, "default");
		return;
	}
	off = snprintf(buf, len, "locality %s", loc[rnd_next(x) % 4]);
	if (rnd_next(x) % 3)
		off += snprintf(buf + off, len - off, " region %u", rnd_next(x) % 3 + 1);
	if (rnd_next(x) % 3)
		off += snprintf(buf + off, len - off, " dc %u", rnd_next(x) % 3 + 1);
	if (rnd_next(x) % 3 == 0)
		snprintf(buf + off, len - off, " local %s",
			 local[rnd_next(x) % ARRAY_SIZE(local)]);
}

/*
 * Every lookup over scopes (locality 0..4, region and DC 0..4) and local
 * addresses (none, inside and outside the prefixes, IPv4 and IPv6) finds
 * the rule a walk finds. Returns the lookups; counts those that found a
 * rule with a local prefix and with a DC in @local_hits and @dc_hits.
 */
static unsigned int check_against_walk(struct pol *p, unsigned int *local_hits,
				       unsigned int *dc_hits)
{
	static const char *const addrs[] = {
		"10.1.2.3", "10.1.2.9", "10.1.9.9", "10.200.0.1", "192.0.2.1",
		"fd00:1::5", "fd00:1::6", "fd00:1:0:1::1", "fd00:2::1", "fe80::1",
		"::ffff:10.1.2.3",
	};
	const struct sock *socks[ARRAY_SIZE(addrs) + 1] = { NULL };
	struct ccaas_scope_result scope = {};
	const struct ccaas_rule *got, *want;
	const struct ccaas_policy_gen *gen;
	unsigned int i, n;

	for (i = 0; i < ARRAY_SIZE(addrs); i++)
		socks[i + 1] = local_sock(p->test, addrs[i]);
	/* the test is the only writer: the generation stays while it reads */
	gen = cur(p);
	for (n = 0; n < 5 * 5 * 5 * ARRAY_SIZE(socks); n++) {
		i = n % ARRAY_SIZE(socks);
		scope.dc = n / ARRAY_SIZE(socks) % 5;
		scope.region = n / ARRAY_SIZE(socks) / 5 % 5;
		scope.locality = n / ARRAY_SIZE(socks) / 25;
		rcu_read_lock();
		got = ccaas_policy_match(gen, &scope, socks[i]);
		rcu_read_unlock();
		want = walk_match(gen, &scope, socks[i]);
		if (got != want) {
			KUNIT_FAIL(p->test, "%u rules, scope %u/%u/%u addr %s: %u, walk %u",
				   gen->n_rules, scope.locality, scope.region, scope.dc,
				   i ? addrs[i - 1] : "none", got ? got->tso_segs : 0,
				   want ? want->tso_segs : 0);
			break;
		}
		if (got && got->match.fields & CCAAS_MATCH_LOCAL)
			(*local_hits)++;
		if (got && got->match.fields & CCAAS_MATCH_DC)
			(*dc_hits)++;
	}
	return n;
}

/*
 * Random policies of 1 to 250 rules, committed by apply, set, del and
 * rollback (each builds its own index): the lookup, through the index
 * above CCAAS_POLICY_WALK_RULES rules, finds what the walk does.
 */
static void index_finds_what_walk_finds(struct kunit *test)
{
	struct pol *p = test->priv;
	const char **rules = kunit_kcalloc(test, IDX_MAX_RULES + 1, sizeof(*rules),
					   GFP_KERNEL);
	char (*match)[64] = kunit_kcalloc(test, IDX_MAX_RULES, sizeof(*match),
					  GFP_KERNEL);
	unsigned int round, i, j, n, lookups = 0, local_hits = 0, dc_hits = 0;
	u32 x = 0x9e3779b9;
	char text[128];

	KUNIT_ASSERT_NOT_NULL(test, rules);
	KUNIT_ASSERT_NOT_NULL(test, match);
	for (round = 0; round < 12; round++) {
		/* both sides of the walk's bound, then any size */
		if (round < 3)
			n = round == 0 ? 1 : CCAAS_POLICY_WALK_RULES + round - 1;
		else
			n = rnd_next(&x) % IDX_MAX_RULES + 1;
		for (i = 0; i < n; i++) {
			/* distinct matches: a policy refuses two alike */
			do {
				rnd_match(&x, match[i], sizeof(match[i]));
				for (j = 0; j < i && strcmp(match[j], match[i]); j++)
					;
			} while (j < i);
			rules[i] = text_of(test, "%s cca cca_dctcp tso_segs %u", match[i], i + 1);
		}
		rules[n] = NULL;
		KUNIT_ASSERT_EQ_MSG(test, pol_apply(p, rules), 0, "%s", msg(p));
		KUNIT_ASSERT_EQ(test, cur(p)->n_rules, n);
		lookups += check_against_walk(p, &local_hits, &dc_hits);
		/* a rule replaced, one deleted, then back to the apply */
		snprintf(text, sizeof(text), "%s cca cca_dctcp tso_segs 255", match[n / 2]);
		KUNIT_ASSERT_EQ(test, pol_set(p, text), 0);
		lookups += check_against_walk(p, &local_hits, &dc_hits);
		KUNIT_ASSERT_EQ(test, pol_del(p, match[0]), 0);
		lookups += check_against_walk(p, &local_hits, &dc_hits);
		/* the apply is two generations back: the history keeps it */
		KUNIT_ASSERT_GE(test, p->cn->policy.n_history, 3U);
		KUNIT_ASSERT_EQ(test, pol_rollback(p, cur(p)->generation - 2), 0);
		KUNIT_ASSERT_EQ(test, cur(p)->n_rules, n);
		lookups += check_against_walk(p, &local_hits, &dc_hits);
	}
	kunit_info(test, "%u lookups, %u found a local-prefix rule, %u a DC rule",
		   lookups, local_hits, dc_hits);
	/* the policies were varied enough for the comparison to mean something */
	KUNIT_EXPECT_GT(test, local_hits, lookups / 50);
	KUNIT_EXPECT_GT(test, dc_hits, lookups / 10);
}

/* At the limit: 1023 DC rules and the default, every DC found, others not. */
static void index_at_rule_limit(struct kunit *test)
{
	struct pol *p = test->priv;
	const char **rules = kunit_kcalloc(test, CCAAS_POLICY_MAX_RULES + 1,
					   sizeof(*rules), GFP_KERNEL);
	struct ccaas_scope_result scope = {
		.locality = CCAAS_LOCALITY_DC, .region = 1,
	};
	const struct ccaas_rule *rule;
	unsigned int i;

	KUNIT_ASSERT_NOT_NULL(test, rules);
	for (i = 0; i + 1 < CCAAS_POLICY_MAX_RULES; i++)
		rules[i] = text_of(test, "locality dc region 1 dc %u cca reno", 1023 - i);
	rules[i++] = "default cca cubic";
	rules[i] = NULL;
	KUNIT_ASSERT_EQ_MSG(test, pol_apply(p, rules), 0, "%s", msg(p));
	rcu_read_lock();
	for (scope.dc = 0; scope.dc <= 1100; scope.dc++) {
		rule = ccaas_policy_match(ccaas_policy_current(p->cn), &scope, NULL);
		if (!rule || rule != walk_match(ccaas_policy_current(p->cn), &scope, NULL) ||
		    (scope.dc >= 1 && scope.dc <= 1023) !=
		    !!(rule->match.fields & CCAAS_MATCH_DC))
			break;
	}
	rcu_read_unlock();
	KUNIT_EXPECT_EQ_MSG(test, scope.dc, 1101U, "wrong rule for dc %u", scope.dc);
}

/*
 * At the limit, in one group: 1023 rules `locality dc local 10.A.B.0/24`
 * and the default. Each /24 finds its rule, whose prefix holds the address,
 * anything else the default; the whole group is one entry of the index.
 */
static void index_one_large_group(struct kunit *test)
{
	struct pol *p = test->priv;
	const char **rules = kunit_kcalloc(test, CCAAS_POLICY_MAX_RULES + 1,
					   sizeof(*rules), GFP_KERNEL);
	struct ccaas_scope_result scope = { .locality = CCAAS_LOCALITY_DC };
	struct sock *sk = local_sock(test, "10.0.0.1");
	const struct ccaas_policy_gen *gen;
	const struct ccaas_rule *rule;
	unsigned int i, bad = 0;
	u32 host;

	KUNIT_ASSERT_NOT_NULL(test, rules);
	for (i = 0; i + 1 < CCAAS_POLICY_MAX_RULES; i++)
		rules[i] = text_of(test, "locality dc local 10.%u.%u.0/24 cca reno",
				   i / 256, i % 256);
	rules[i++] = "default cca cubic";
	rules[i] = NULL;
	KUNIT_ASSERT_EQ_MSG(test, pol_apply(p, rules), 0, "%s", msg(p));
	gen = cur(p);
	KUNIT_EXPECT_EQ(test, gen->shape_groups[CCAAS_SHAPE_LOCALITY], 1U);
	KUNIT_EXPECT_EQ(test, gen->groups[gen->shape_first[CCAAS_SHAPE_LOCALITY]].count,
			CCAAS_POLICY_MAX_RULES - 1);
	/* 10.0.0.1, 10.0.1.1, ... 10.4.75.1: the first 1023 /24s have a rule */
	rcu_read_lock();
	for (i = 0; i < 1100; i++) {
		host = (10 << 24) | (i << 8) | 1;
		sk->sk_rcv_saddr = htonl(host);
		rule = ccaas_policy_match(gen, &scope, sk);
		if (!rule || rule != walk_match(gen, &scope, sk) ||
		    (i < CCAAS_POLICY_MAX_RULES - 1) !=
		    !!(rule->match.fields & CCAAS_MATCH_LOCAL) ||
		    (rule->match.fields & CCAAS_MATCH_LOCAL &&
		     !bits_equal((const u8 *)&sk->sk_rcv_saddr,
				 rule->match.local_addr, 24))) {
			KUNIT_FAIL(test, "wrong rule for 10.%u.%u.1", i / 256, i % 256);
			if (++bad > 3)
				break;
		}
	}
	rcu_read_unlock();
}

/* --- service rules --------------------------------------------------------- */

/*
 * Cgroups the VM file makes before it loads the suites (tests/vm/05-kunit.sh):
 * /ccaas-kunit/svc, /ccaas-kunit/svc/child and /ccaas-kunit/other.
 */
struct svc_cgroups {
	struct cgroup *svc, *child, *other;
};

static void svc_cgroups_put(void *data)
{
	struct svc_cgroups *cg = data;

	if (!IS_ERR_OR_NULL(cg->svc))
		cgroup_put(cg->svc);
	if (!IS_ERR_OR_NULL(cg->child))
		cgroup_put(cg->child);
	if (!IS_ERR_OR_NULL(cg->other))
		cgroup_put(cg->other);
}

static struct svc_cgroups *svc_cgroups(struct kunit *test)
{
	struct svc_cgroups *cg = kunit_kzalloc(test, sizeof(*cg), GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, cg);
	cg->svc = cgroup_get_from_path("/ccaas-kunit/svc");
	cg->child = cgroup_get_from_path("/ccaas-kunit/svc/child");
	cg->other = cgroup_get_from_path("/ccaas-kunit/other");
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test, svc_cgroups_put, cg), 0);
	if (IS_ERR(cg->svc) || IS_ERR(cg->child) || IS_ERR(cg->other))
		kunit_skip(test, "no cgroups /ccaas-kunit/{svc,svc/child,other}");
	return cg;
}

/*
 * A socket of the initial namespace in cgroup @cg, local port @lport,
 * remote port @rport (and no listener on @lport: a pass guesses it is the
 * client's side; tests/vm/63-service.sh has the servers).
 */
static struct sock *svc_sock(struct kunit *test, struct cgroup *cg, u16 lport,
			     u16 rport)
{
	struct sock *sk = local_sock(test, "10.1.2.3");

	sock_net_set(sk, &init_net);
	sk->sk_state = TCP_ESTABLISHED;
	sk->sk_num = lport;
	sk->sk_dport = htons(rport);
#ifdef CONFIG_SOCK_CGROUP_DATA
	sk->sk_cgrp_data.cgroup = cg;
#endif
	return sk;
}

/* The tag of the rule @sk gets on @side with remote scope locality dc. */
static u32 svc_lookup(struct pol *p, const struct sock *sk, enum ccaas_side side)
{
	struct ccaas_scope_result scope = { .locality = CCAAS_LOCALITY_DC };
	const struct ccaas_rule *rule;
	u32 tag;

	rcu_read_lock();
	rule = ccaas_policy_match_side(ccaas_policy_current(p->cn), &scope, sk, side);
	tag = rule ? rule->tso_segs : 0;
	rcu_read_unlock();
	return tag;
}

/*
 * The precedence of service rules (policy.c, docs/policy-format.md): the
 * service first (deeper cgroup, then narrower port range), then the remote
 * scope, then the local prefix. @pad: add rules enough for the index.
 */
static void service_precedence(struct kunit *test, bool pad)
{
	struct pol *p = test->priv;
	struct svc_cgroups *cg = svc_cgroups(test);
	const char *rules[64];
	unsigned int n = 0, i;
	struct sock *sk;

	rules[n++] = "default cca cca_dctcp tso_segs 1";
	rules[n++] = "locality dc cca cca_dctcp tso_segs 2";
	rules[n++] = "locality dc local 10.1.0.0/16 cca cca_dctcp tso_segs 3";
	rules[n++] = "port 443 cca cca_dctcp tso_segs 4";
	rules[n++] = "port 400-500 cca cca_dctcp tso_segs 5";
	rules[n++] = "port 1-1000 cca cca_dctcp tso_segs 6";
	rules[n++] = "cgroup ccaas-kunit/svc cca cca_dctcp tso_segs 7";
	rules[n++] = "cgroup ccaas-kunit/svc/child cca cca_dctcp tso_segs 8";
	rules[n++] = "cgroup ccaas-kunit/svc port 443 cca cca_dctcp tso_segs 9";
	rules[n++] = "cgroup ccaas-kunit/svc locality dc cca cca_dctcp tso_segs 10";
	/* a path no cgroup has: the rule matches nothing */
	rules[n++] = "cgroup ccaas-kunit/svc/none cca cca_dctcp tso_segs 12";
	rules[n++] = "port 8000-8009 locality xregion cca cca_dctcp tso_segs 11";
	for (i = 0; pad && i < 20; i++)
		rules[n++] = text_of(test, "locality rack dc %u cca cca_dctcp tso_segs %u",
				     i + 1, 100 + i);
	rules[n] = NULL;
	KUNIT_ASSERT_EQ_MSG(test, pol_apply(p, rules), 0, "%s", msg(p));
	KUNIT_EXPECT_EQ(test, cur(p)->n_service, 9U);

	/* No service rule holds: the destination decides, as before. */
	sk = svc_sock(test, cg->other, 40000, 5000);
	KUNIT_EXPECT_EQ(test, svc_lookup(p, sk, CCAAS_SIDE_ACTIVE), 3U);
	/* Port ranges: the narrowest that holds wins. */
	sk = svc_sock(test, cg->other, 40000, 443);
	KUNIT_EXPECT_EQ(test, svc_lookup(p, sk, CCAAS_SIDE_ACTIVE), 4U);
	sk = svc_sock(test, cg->other, 40000, 444);
	KUNIT_EXPECT_EQ(test, svc_lookup(p, sk, CCAAS_SIDE_ACTIVE), 5U);
	sk = svc_sock(test, cg->other, 40000, 999);
	KUNIT_EXPECT_EQ(test, svc_lookup(p, sk, CCAAS_SIDE_ACTIVE), 6U);
	/* A service rule beats the remote scope; its own scope must hold. */
	sk = svc_sock(test, cg->other, 40000, 8005);
	KUNIT_EXPECT_EQ(test, svc_lookup(p, sk, CCAAS_SIDE_ACTIVE), 3U);
	/* Cgroups: a rule covers the cgroups below; the deepest wins. */
	sk = svc_sock(test, cg->svc, 40000, 5000);
	KUNIT_EXPECT_EQ(test, svc_lookup(p, sk, CCAAS_SIDE_ACTIVE), 10U);
	sk = svc_sock(test, cg->child, 40000, 5000);
	KUNIT_EXPECT_EQ(test, svc_lookup(p, sk, CCAAS_SIDE_ACTIVE), 8U);
	/* A cgroup beats a port; cgroup and port beat cgroup alone. */
	sk = svc_sock(test, cg->svc, 40000, 443);
	KUNIT_EXPECT_EQ(test, svc_lookup(p, sk, CCAAS_SIDE_ACTIVE), 9U);
	sk = svc_sock(test, cg->svc, 40000, 600);
	KUNIT_EXPECT_EQ(test, svc_lookup(p, sk, CCAAS_SIDE_ACTIVE), 10U);
	/* The cgroup rule's own remote scope must hold: else cgroup alone. */
	sk = svc_sock(test, cg->svc, 40000, 600);
	rcu_read_lock();
	KUNIT_EXPECT_EQ(test, ccaas_policy_match_side(ccaas_policy_current(p->cn),
						      NULL, sk,
						      CCAAS_SIDE_ACTIVE)->tso_segs, 7U);
	rcu_read_unlock();
	/* Without a socket no service rule applies. */
	KUNIT_EXPECT_EQ(test, svc_lookup(p, NULL, CCAAS_SIDE_ACTIVE), 2U);
}

static void service_precedence_walk(struct kunit *test)
{
	service_precedence(test, false);
}

static void service_precedence_index(struct kunit *test)
{
	struct pol *p = test->priv;
	struct svc_cgroups *cg = svc_cgroups(test);
	struct sock *sk = svc_sock(test, cg->other, 40000, 5000);

	service_precedence(test, true);
	KUNIT_EXPECT_GT(test, cur(p)->n_rules, (unsigned int)CCAAS_POLICY_WALK_RULES);
	/* a deletion commits a generation too: the service rules stay apart */
	KUNIT_ASSERT_EQ(test, pol_del(p, "locality rack dc 1"), 0);
	KUNIT_EXPECT_EQ(test, cur(p)->n_service, 9U);
	KUNIT_EXPECT_EQ(test, svc_lookup(p, sk, CCAAS_SIDE_ACTIVE), 3U);
	sk = svc_sock(test, cg->other, 40000, 443);
	KUNIT_EXPECT_EQ(test, svc_lookup(p, sk, CCAAS_SIDE_ACTIVE), 4U);
}

/*
 * The service port is the server's: remote for an active open, local for
 * a passive one and a listener. A pass over existing sockets takes a
 * socket without a listener on its local port for the client's side.
 */
static void service_port_sides(struct kunit *test)
{
	static const char *const rules[] = {
		"default cca cca_dctcp tso_segs 1",
		"port 443 cca cca_dctcp tso_segs 4",
		NULL
	};
	struct pol *p = test->priv;
	struct sock *client, *child;

	KUNIT_ASSERT_EQ_MSG(test, pol_apply(p, rules), 0, "%s", msg(p));
	client = svc_sock(test, NULL, 43000, 443);
	child = svc_sock(test, NULL, 443, 43000);
	KUNIT_EXPECT_EQ(test, svc_lookup(p, client, CCAAS_SIDE_ACTIVE), 4U);
	KUNIT_EXPECT_EQ(test, svc_lookup(p, client, CCAAS_SIDE_PASSIVE), 1U);
	KUNIT_EXPECT_EQ(test, svc_lookup(p, child, CCAAS_SIDE_PASSIVE), 4U);
	KUNIT_EXPECT_EQ(test, svc_lookup(p, child, CCAAS_SIDE_ACTIVE), 1U);
	KUNIT_EXPECT_EQ(test, svc_lookup(p, client, CCAAS_SIDE_GUESS), 4U);
	/* nothing listens on 443 here: taken for a client to port 43000 */
	KUNIT_EXPECT_EQ(test, svc_lookup(p, child, CCAAS_SIDE_GUESS), 1U);
	/* a listener's port is its own; a connecting socket's the remote */
	child->sk_state = TCP_LISTEN;
	KUNIT_EXPECT_EQ(test, svc_lookup(p, child, CCAAS_SIDE_GUESS), 4U);
	client->sk_state = TCP_SYN_SENT;
	KUNIT_EXPECT_EQ(test, svc_lookup(p, client, CCAAS_SIDE_GUESS), 4U);
}

/* Bad service matches are refused with a reason; equal ones are one rule. */
static void service_matches_checked(struct kunit *test)
{
	static const char *const bad_paths[] = {
		"/", "/ccaas-kunit", "ccaas-kunit/", "ccaas-kunit//svc", "./svc",
		"ccaas-kunit/../svc", "ccaas-kunit/.",
	};
	struct pol *p = test->priv;
	struct svc_cgroups *cg = svc_cgroups(test);
	const struct ccaas_rule_match *m;
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(bad_paths); i++) {
		const char *rule = text_of(test, "cgroup %s cca reno", bad_paths[i]);

		KUNIT_EXPECT_EQ_MSG(test, parse_one(p, rule), -EINVAL, "%s", rule);
		KUNIT_EXPECT_STREQ(test, msg(p),
				   "bad cgroup path: cgroup names separated by single '/', from the root (which is not one)");
	}
	KUNIT_EXPECT_EQ(test, parse_one(p, "port 500-400 cca reno"), -EINVAL);
	KUNIT_EXPECT_STREQ(test, msg(p),
			   "bad port range: the last port is below the first");
	KUNIT_EXPECT_EQ(test, parse_one(p, "port_max 400 cca reno"), -EINVAL);
	KUNIT_EXPECT_STREQ(test, msg(p), "a port range needs its first port");
	KUNIT_EXPECT_EQ(test, parse_one(p, "port 0 cca reno"), -ERANGE);
	/* a service rule needs no locality; set twice, it is replaced */
	KUNIT_ASSERT_EQ(test, pol_set(p, "cgroup ccaas-kunit/svc port 443 cca reno"), 0);
	KUNIT_ASSERT_EQ(test, pol_set(p, "cgroup ccaas-kunit/svc port 443 cca cubic"), 0);
	KUNIT_EXPECT_EQ(test, cur(p)->n_rules, 1U);
	KUNIT_EXPECT_STREQ(test, cur(p)->rules[0].cca_name, "cubic");
	/* the path's depth, and the id of the cgroup there */
	m = &cur(p)->rules[0].match;
	KUNIT_EXPECT_EQ(test, m->cgroup->level, (u16)cg->svc->level);
	KUNIT_EXPECT_EQ(test, ccaas_cgroup_id(m->cgroup), cgroup_id(cg->svc));
	/* a path without a cgroup is taken, bound to none */
	KUNIT_ASSERT_EQ(test, pol_set(p, "cgroup ccaas-kunit/later cca reno"), 0);
	/* after the rule of the same depth with a port */
	m = &cur(p)->rules[1].match;
	KUNIT_EXPECT_STREQ(test, m->cgroup->path, "ccaas-kunit/later");
	KUNIT_EXPECT_EQ(test, ccaas_cgroup_id(m->cgroup), 0ULL);
	/* port 443 and port 443-443 are one match */
	KUNIT_ASSERT_EQ(test, pol_set(p, "port 443 cca reno"), 0);
	KUNIT_ASSERT_EQ(test, pol_set(p, "port 443-443 cca cubic"), 0);
	KUNIT_EXPECT_EQ(test, cur(p)->n_rules, 3U);
}

static struct kunit_case ccaas_policy_cases[] = {
	KUNIT_CASE(precedence_default_for_unknown_scope),
	KUNIT_CASE(precedence_locality_region_dc),
	KUNIT_CASE(precedence_local_prefix),
	KUNIT_CASE(precedence_no_default_rule),
	KUNIT_CASE(precedence_rules_sorted),
	KUNIT_CASE(generations_numbered_from_one),
	KUNIT_CASE(generations_history_trimmed),
	KUNIT_CASE(rollback_recommits_as_new_generation),
	KUNIT_CASE(apply_identical_commits_nothing),
	KUNIT_CASE(params_checked_against_schema),
	KUNIT_CASE(knobs_bounded),
	KUNIT_CASE(matches_checked),
	KUNIT_CASE(rejections_leave_policy_in_force),
	KUNIT_CASE(index_finds_what_walk_finds),
	KUNIT_CASE(index_at_rule_limit),
	KUNIT_CASE(index_one_large_group),
	KUNIT_CASE(service_precedence_walk),
	KUNIT_CASE(service_precedence_index),
	KUNIT_CASE(service_port_sides),
	KUNIT_CASE(service_matches_checked),
	{}
};

static struct kunit_suite ccaas_policy_suite = {
	.name = "ccaas_policy",
	.init = pol_init,
	.exit = pol_exit,
	.test_cases = ccaas_policy_cases,
};

kunit_test_suites(&ccaas_policy_suite);

MODULE_LICENSE("GPL");
