// SPDX-License-Identifier: GPL-2.0
/*
 * Netlink commands of the policy store (policy.c):
 *
 *   POLICY_SET       one RULE nest: add it, or replace the rule with its match
 *   POLICY_DEL       one RULE nest with a match only: delete that rule
 *   POLICY_GET       do: a generation's header (GENERATION, default the
 *                    current one); dump: the header and the rules, as many
 *                    RULE nests per message as fit (a policy of 1024 rules
 *                    does not fit one message), each message repeating the
 *                    header
 *   POLICY_HISTORY   dump: the headers of the kept generations, oldest first
 *   POLICY_ROLLBACK  re-commit GENERATION as a new generation
 *   POLICY_APPLY     every RULE nest: the whole new rule set (DRY_RUN: only
 *                    check it and say what would be committed)
 *
 * Changes reply with the header of the resulting generation, with the
 * UNCHANGED flag when the rules asked for were already in force (nothing is
 * committed then). A handler runs a change from start to end under the
 * namespace's lock: the store commits (policy.c), the monitor group hears of
 * the generation, the existing connections move to it unless NO_MIGRATE
 * (migrate.c), and the monitor group hears the counts; the next change
 * starts after that. Attributes are checked by the per-command policies below,
 * nests included; everything else is checked here or in policy.c, and every
 * refusal says why through extack, pointing at the attribute where there is
 * one. A refused change leaves the generation in force as it was.
 */
#include <linux/in.h>
#include <linux/in6.h>
#include <linux/nsproxy.h>
#include <linux/slab.h>
#include <linux/socket.h>
#include <linux/stringify.h>
#include <net/genetlink.h>
#include <net/sock.h>

#include "../compat/cgroup_namespace.h"
#include "cgroup_bind.h"
#include "core.h"
#include "sock.h"

static const struct nla_policy ccaas_param_nlpolicy[CCAAS_A_PARAM_MAX + 1] = {
	[CCAAS_A_PARAM_NAME] = { .type = NLA_NUL_STRING,
				 .len = CCAAS_PARAM_NAME_MAX - 1 },
	[CCAAS_A_PARAM_VALUE] = { .type = NLA_U32 },
};

static const struct nla_policy ccaas_rule_nlpolicy[CCAAS_A_RULE_MAX + 1] = {
	[CCAAS_A_RULE_LOCALITY] = NLA_POLICY_MAX(NLA_U8, CCAAS_LOCALITY_XREGION),
	[CCAAS_A_RULE_REGION] = { .type = NLA_U32 },
	[CCAAS_A_RULE_DC] = { .type = NLA_U32 },
	[CCAAS_A_RULE_LOCAL_ADDR] = { .type = NLA_BINARY,
				      .len = sizeof(struct in6_addr) },
	[CCAAS_A_RULE_LOCAL_PREFIXLEN] = NLA_POLICY_MAX(NLA_U8, 128),
	[CCAAS_A_RULE_CCA] = { .type = NLA_NUL_STRING,
			       .len = CCAAS_CCA_NAME_MAX - 1 },
	[CCAAS_A_RULE_PARAM] = NLA_POLICY_NESTED(ccaas_param_nlpolicy),
	[CCAAS_A_RULE_MIN_RTO_US] = { .type = NLA_U32 },
	[CCAAS_A_RULE_INIT_CWND] = { .type = NLA_U32 },
	[CCAAS_A_RULE_TSO_SEGS] = { .type = NLA_U32 },
	[CCAAS_A_RULE_CGROUP] = { .type = NLA_NUL_STRING,
				   .len = CCAAS_CGROUP_PATH_MAX - 1 },
	[CCAAS_A_RULE_PORT_MIN] = NLA_POLICY_MIN(NLA_U16, 1),
	[CCAAS_A_RULE_PORT_MAX] = NLA_POLICY_MIN(NLA_U16, 1),
	/* what the cgroup path is bound to: dumps say it, requests cannot */
	[CCAAS_A_RULE_CGROUP_ID] = {
		.type = NLA_REJECT,
		.reject_message = "the cgroup id is the kernel's to say: give the path",
	},
};

/* POLICY_SET and POLICY_DEL */
const struct nla_policy ccaas_policy_set_nlpolicy[CCAAS_A_POLICY_MAX + 1] = {
	[CCAAS_A_POLICY_RULE] = NLA_POLICY_NESTED(ccaas_rule_nlpolicy),
	[CCAAS_A_POLICY_NO_MIGRATE] = { .type = NLA_FLAG },
	[CCAAS_A_POLICY_FORCE] = { .type = NLA_FLAG },
};

const struct nla_policy ccaas_policy_get_nlpolicy[CCAAS_A_POLICY_MAX + 1] = {
	[CCAAS_A_POLICY_GENERATION] = { .type = NLA_U32 },
};

/* No attributes at all. */
const struct nla_policy ccaas_policy_history_nlpolicy[CCAAS_A_POLICY_MAX + 1] = {
};

const struct nla_policy ccaas_policy_rollback_nlpolicy[CCAAS_A_POLICY_MAX + 1] = {
	[CCAAS_A_POLICY_GENERATION] = { .type = NLA_U32 },
	[CCAAS_A_POLICY_NO_MIGRATE] = { .type = NLA_FLAG },
	[CCAAS_A_POLICY_FORCE] = { .type = NLA_FLAG },
};

const struct nla_policy ccaas_policy_apply_nlpolicy[CCAAS_A_POLICY_MAX + 1] = {
	[CCAAS_A_POLICY_RULE] = NLA_POLICY_NESTED(ccaas_rule_nlpolicy),
	[CCAAS_A_POLICY_DRY_RUN] = { .type = NLA_FLAG },
	[CCAAS_A_POLICY_NO_MIGRATE] = { .type = NLA_FLAG },
	[CCAAS_A_POLICY_FORCE] = { .type = NLA_FLAG },
};

/* --- parsing a rule ------------------------------------------------------ */

/* The PARAM nests of a RULE nest: how many, or an error past the limit. */
static int ccaas_rule_count_params(const struct nlattr *nest,
				   struct netlink_ext_ack *extack)
{
	const struct nlattr *a;
	int rem, n = 0;

	nla_for_each_nested(a, nest, rem)
		if (nla_type(a) == CCAAS_A_RULE_PARAM)
			n++;
	if (n > CCAAS_RULE_MAX_PARAMS) {
		NL_SET_ERR_MSG_ATTR(extack, nest,
				    "too many parameters in one rule (at most "
				    __stringify(CCAAS_RULE_MAX_PARAMS) ")");
		return -E2BIG;
	}
	return n;
}

/* Are any bits of @addr (@len bytes) set past the first @prefixlen? */
static bool ccaas_host_bits(const u8 *addr, unsigned int len,
			    unsigned int prefixlen)
{
	unsigned int i = prefixlen / 8;

	if (prefixlen % 8 && addr[i++] & (0xff >> (prefixlen % 8)))
		return true;
	for (; i < len; i++)
		if (addr[i])
			return true;
	return false;
}

static int ccaas_rule_parse_local(struct nlattr **tb, struct ccaas_rule_match *m,
				  struct netlink_ext_ack *extack)
{
	const struct nlattr *addr = tb[CCAAS_A_RULE_LOCAL_ADDR];
	const struct nlattr *plen = tb[CCAAS_A_RULE_LOCAL_PREFIXLEN];
	unsigned int max;

	if (!addr || !plen) {
		NL_SET_ERR_MSG_ATTR(extack, addr ?: plen,
				    "bad local prefix: it needs both an address and a length");
		return -EINVAL;
	}
	if (!m->locality) {
		NL_SET_ERR_MSG_ATTR(extack, addr,
				    "a local prefix needs a locality (the default rule matches nothing)");
		return -EINVAL;
	}
	switch (nla_len(addr)) {
	case 4:
		m->local_family = AF_INET;
		max = 32;
		break;
	case 16:
		m->local_family = AF_INET6;
		max = 128;
		break;
	default:
		NL_SET_ERR_MSG_ATTR(extack, addr,
				    "bad local prefix: the address is 4 (IPv4) or 16 (IPv6) bytes");
		return -EINVAL;
	}
	m->local_prefixlen = nla_get_u8(plen);
	if (m->local_prefixlen > max) {
		NL_SET_ERR_MSG_ATTR(extack, plen,
				    "bad local prefix: longer than the address");
		return -EINVAL;
	}
	memcpy(m->local_addr, nla_data(addr), nla_len(addr));
	if (ccaas_host_bits(m->local_addr, nla_len(addr), m->local_prefixlen)) {
		NL_SET_ERR_MSG_ATTR(extack, addr,
				    "bad local prefix: address bits set past the prefix length");
		return -EINVAL;
	}
	m->fields |= CCAAS_MATCH_LOCAL;
	return 0;
}

/*
 * A cgroup match: a path from the root of the initial cgroup namespace,
 * which need not have a cgroup yet (cgroup_bind.c). A task in another
 * cgroup namespace sees paths from its own root: refused, rather than
 * bound to the wrong cgroup.
 */
static int ccaas_rule_parse_cgroup(const struct nlattr *a,
				   struct ccaas_rule_match *m,
				   struct netlink_ext_ack *extack)
{
	struct ccaas_cgroup *cg;

	if (!IS_ENABLED(CONFIG_SOCK_CGROUP_DATA)) {
		NL_SET_ERR_MSG_ATTR(extack, a,
				    "this kernel keeps no cgroup on sockets (CONFIG_SOCK_CGROUP_DATA)");
		return -EOPNOTSUPP;
	}
	/*
	 * Cgroup paths are the host's: shared by all namespaces, and every
	 * cgroup made on the host is compared with them (cgroup_bind.c).
	 */
	if (!capable(CAP_NET_ADMIN)) {
		NL_SET_ERR_MSG_ATTR(extack, a,
				    "cgroup rules need CAP_NET_ADMIN in the initial user namespace");
		return -EPERM;
	}
	if (current->nsproxy->cgroup_ns->root_cset->dfl_cgrp !=
	    &cgrp_dfl_root.cgrp) {
		NL_SET_ERR_MSG_ATTR(extack, a,
				    "cgroup rules are set from the initial cgroup namespace");
		return -EPERM;
	}
	cg = ccaas_cgroup_get(nla_data(a), extack);
	if (IS_ERR(cg)) {
		NL_SET_BAD_ATTR(extack, a);
		return PTR_ERR(cg);
	}
	m->cgroup = cg;
	m->fields |= CCAAS_MATCH_CGROUP;
	return 0;
}

/* A port range: PORT_MIN, and PORT_MAX (default PORT_MIN) not below it. */
static int ccaas_rule_parse_port(struct nlattr **tb, struct ccaas_rule_match *m,
				 struct netlink_ext_ack *extack)
{
	const struct nlattr *lo = tb[CCAAS_A_RULE_PORT_MIN];
	const struct nlattr *hi = tb[CCAAS_A_RULE_PORT_MAX];

	if (!lo) {
		NL_SET_ERR_MSG_ATTR(extack, hi, "a port range needs its first port");
		return -EINVAL;
	}
	m->port_min = nla_get_u16(lo);
	m->port_max = hi ? nla_get_u16(hi) : m->port_min;
	if (m->port_max < m->port_min) {
		NL_SET_ERR_MSG_ATTR(extack, hi,
				    "bad port range: the last port is below the first");
		return -EINVAL;
	}
	m->fields |= CCAAS_MATCH_PORT;
	return 0;
}

static int ccaas_rule_parse_match(struct nlattr **tb, struct ccaas_rule_match *m,
				  struct netlink_ext_ack *extack)
{
	const struct nlattr *a;
	int err;

	a = tb[CCAAS_A_RULE_CGROUP];
	if (a) {
		err = ccaas_rule_parse_cgroup(a, m, extack);
		if (err)
			return err;
	}
	if (tb[CCAAS_A_RULE_PORT_MIN] || tb[CCAAS_A_RULE_PORT_MAX]) {
		err = ccaas_rule_parse_port(tb, m, extack);
		if (err)
			return err;
	}

	a = tb[CCAAS_A_RULE_LOCALITY];
	if (a) {
		m->locality = nla_get_u8(a);
		if (m->locality == CCAAS_LOCALITY_UNKNOWN) {
			NL_SET_ERR_MSG_ATTR(extack, a,
					    "unknown scope is the default rule's: leave the locality out");
			return -EINVAL;
		}
	}
	a = tb[CCAAS_A_RULE_REGION];
	if (a) {
		if (!m->locality) {
			NL_SET_ERR_MSG_ATTR(extack, a, "a region match needs a locality");
			return -EINVAL;
		}
		m->region = nla_get_u32(a);
		if (!m->region) {
			NL_SET_ERR_MSG_ATTR(extack, a, "region ids start at 1 (0 is no region)");
			return -EINVAL;
		}
		m->fields |= CCAAS_MATCH_REGION;
	}
	a = tb[CCAAS_A_RULE_DC];
	if (a) {
		if (!m->locality) {
			NL_SET_ERR_MSG_ATTR(extack, a, "a DC match needs a locality");
			return -EINVAL;
		}
		m->dc = nla_get_u32(a);
		if (!m->dc) {
			NL_SET_ERR_MSG_ATTR(extack, a, "DC ids start at 1 (0 is no DC)");
			return -EINVAL;
		}
		m->fields |= CCAAS_MATCH_DC;
	}
	if (tb[CCAAS_A_RULE_LOCAL_ADDR] || tb[CCAAS_A_RULE_LOCAL_PREFIXLEN])
		return ccaas_rule_parse_local(tb, m, extack);
	return 0;
}

static int ccaas_rule_parse_param(struct ccaas_rule *rule, unsigned int room,
				  const struct nlattr *nest,
				  struct netlink_ext_ack *extack)
{
	struct nlattr *tb[CCAAS_A_PARAM_MAX + 1];
	struct ccaas_rule_param *p;
	const char *name;
	unsigned int i;
	u32 value;
	int err;

	err = nla_parse_nested(tb, CCAAS_A_PARAM_MAX, nest, ccaas_param_nlpolicy,
			       extack);
	if (err)
		return err;
	if (!tb[CCAAS_A_PARAM_NAME] || !tb[CCAAS_A_PARAM_VALUE]) {
		NL_SET_ERR_ATTR_MISS(extack, nest, tb[CCAAS_A_PARAM_NAME] ?
				     CCAAS_A_PARAM_VALUE : CCAAS_A_PARAM_NAME);
		NL_SET_ERR_MSG(extack, "a parameter needs a name and a value");
		return -EINVAL;
	}
	name = nla_data(tb[CCAAS_A_PARAM_NAME]);
	value = nla_get_u32(tb[CCAAS_A_PARAM_VALUE]);

	err = ccaas_cca_param_check(rule->cca.cca, name, value, nest, extack);
	if (err < 0)
		return err;
	for (i = 0; i < rule->n_params; i++) {
		if (rule->params[i].index == err) {
			NL_SET_ERR_MSG_ATTR(extack, nest, "parameter given twice");
			return -EINVAL;
		}
	}
	if (WARN_ON_ONCE(rule->n_params >= room))
		return -E2BIG;
	p = &rule->params[rule->n_params++];
	p->index = err;
	p->value = value;
	strscpy(p->name, name, sizeof(p->name));
	return 0;
}

/* Parse a knob into @val, setting @bit in @rule->knobs: false if out of range. */
static bool ccaas_rule_knob(struct ccaas_rule *rule, const struct nlattr *a,
			    u8 bit, u32 *val, u32 lo, u32 hi)
{
	if (!a)
		return true;
	*val = nla_get_u32(a);
	rule->knobs |= bit;
	return *val >= lo && *val <= hi;
}

static int ccaas_rule_parse_knobs(struct ccaas_rule *rule, struct nlattr **tb,
				  struct netlink_ext_ack *extack)
{
	if (!ccaas_rule_knob(rule, tb[CCAAS_A_RULE_MIN_RTO_US], CCAAS_KNOB_MIN_RTO,
			     &rule->min_rto_us, CCAAS_RULE_MIN_RTO_MIN_US,
			     CCAAS_RULE_MIN_RTO_MAX_US)) {
		NL_SET_ERR_MSG_ATTR(extack, tb[CCAAS_A_RULE_MIN_RTO_US],
				    "min_rto out of range ["
				    __stringify(CCAAS_RULE_MIN_RTO_MIN_US) ".."
				    __stringify(CCAAS_RULE_MIN_RTO_MAX_US) "] us");
		return -ERANGE;
	}
	if (!ccaas_rule_knob(rule, tb[CCAAS_A_RULE_INIT_CWND], CCAAS_KNOB_INIT_CWND,
			     &rule->init_cwnd, CCAAS_RULE_INIT_CWND_MIN,
			     CCAAS_RULE_INIT_CWND_MAX)) {
		NL_SET_ERR_MSG_ATTR(extack, tb[CCAAS_A_RULE_INIT_CWND],
				    "init_cwnd out of range ["
				    __stringify(CCAAS_RULE_INIT_CWND_MIN) ".."
				    __stringify(CCAAS_RULE_INIT_CWND_MAX) "] packets");
		return -ERANGE;
	}
	if (!ccaas_rule_knob(rule, tb[CCAAS_A_RULE_TSO_SEGS], CCAAS_KNOB_TSO_SEGS,
			     &rule->tso_segs, CCAAS_RULE_TSO_SEGS_MIN,
			     CCAAS_RULE_TSO_SEGS_MAX)) {
		NL_SET_ERR_MSG_ATTR(extack, tb[CCAAS_A_RULE_TSO_SEGS],
				    "tso_segs out of range ["
				    __stringify(CCAAS_RULE_TSO_SEGS_MIN) ".."
				    __stringify(CCAAS_RULE_TSO_SEGS_MAX) "] segments");
		return -ERANGE;
	}
	return 0;
}

/*
 * Is the rule's CCA loaded (ccaas_nl_cca_loaded(): a request loads no
 * module)? Rules of a draft naming a CCA an earlier one resolved share its
 * lookup, so they need no probe either.
 */
static int ccaas_rule_cca_loaded(struct net *net,
				 const struct ccaas_policy_gen *draft,
				 const struct ccaas_rule *rule,
				 const struct nlattr *attr,
				 struct netlink_ext_ack *extack)
{
	unsigned int i;

	for (i = 0; i < draft->n_rules; i++)
		if (&draft->rules[i] != rule && draft->rules[i].cca.ops &&
		    !strcmp(draft->rules[i].cca_name, nla_data(attr)))
			return 0;
	return ccaas_nl_cca_loaded(net, nla_data(attr), attr, extack);
}

/* Attributes a match-only rule (POLICY_DEL) must not have. */
static const int ccaas_rule_action_attrs[] = {
	CCAAS_A_RULE_CCA, CCAAS_A_RULE_PARAM, CCAAS_A_RULE_MIN_RTO_US,
	CCAAS_A_RULE_INIT_CWND, CCAAS_A_RULE_TSO_SEGS,
};

int ccaas_rule_parse(struct net *net, const struct nlattr *nest,
		     bool match_only, struct ccaas_policy_gen *draft,
		     struct netlink_ext_ack *extack)
{
	struct nlattr *tb[CCAAS_A_RULE_MAX + 1];
	const struct nlattr *a;
	struct ccaas_rule *rule;
	int n_params, err, rem;
	unsigned int i;

	err = nla_parse_nested(tb, CCAAS_A_RULE_MAX, nest, ccaas_rule_nlpolicy,
			       extack);
	if (err)
		return err;
	n_params = ccaas_rule_count_params(nest, extack);
	if (n_params < 0)
		return n_params;
	if (match_only) {
		for (i = 0; i < ARRAY_SIZE(ccaas_rule_action_attrs); i++) {
			a = tb[ccaas_rule_action_attrs[i]];
			if (a) {
				NL_SET_ERR_MSG_ATTR(extack, a,
						    "deleting a rule takes its match only");
				return -EINVAL;
			}
		}
	}

	rule = ccaas_policy_draft_add(draft, n_params);
	if (!rule) {
		NL_SET_ERR_MSG_ATTR(extack, nest, "too many rules");
		return -E2BIG;
	}
	err = ccaas_rule_parse_match(tb, &rule->match, extack);
	if (err || match_only)
		return err;

	if (!tb[CCAAS_A_RULE_CCA]) {
		NL_SET_ERR_ATTR_MISS(extack, nest, CCAAS_A_RULE_CCA);
		NL_SET_ERR_MSG(extack, "a rule needs a CCA");
		return -EINVAL;
	}
	err = ccaas_rule_cca_loaded(net, draft, rule, tb[CCAAS_A_RULE_CCA],
				    extack);
	if (err)
		return err;
	err = ccaas_policy_draft_resolve(draft, rule, net,
					 nla_data(tb[CCAAS_A_RULE_CCA]), extack);
	if (err) {
		NL_SET_BAD_ATTR(extack, tb[CCAAS_A_RULE_CCA]);
		return err;
	}

	nla_for_each_nested(a, nest, rem) {
		if (nla_type(a) != CCAAS_A_RULE_PARAM)
			continue;
		err = ccaas_rule_parse_param(rule, n_params, a, extack);
		if (err)
			return err;
	}
	ccaas_rule_sort_params(rule);
	err = ccaas_rule_parse_knobs(rule, tb, extack);
	return err ?: ccaas_rule_knobs_check(rule, extack);
}
EXPORT_SYMBOL_IF_KUNIT(ccaas_rule_parse);

/* --- replies -------------------------------------------------------------- */

int ccaas_policy_fill_head(struct sk_buff *skb,
			   const struct ccaas_policy_head *head)
{
	if (nla_put_u32(skb, CCAAS_A_POLICY_GENERATION, head->generation) ||
	    nla_put_u8(skb, CCAAS_A_POLICY_ORIGIN, head->origin) ||
	    (head->origin == CCAAS_POLICY_ORIGIN_ROLLBACK &&
	     nla_put_u32(skb, CCAAS_A_POLICY_FROM, head->from)) ||
	    (head->time_ns &&
	     nla_put_u64_64bit(skb, CCAAS_A_POLICY_TIME, head->time_ns,
			       CCAAS_A_POLICY_UNSPEC)) ||
	    nla_put_u32(skb, CCAAS_A_POLICY_NRULES, head->n_rules) ||
	    (head->unchanged && nla_put_flag(skb, CCAAS_A_POLICY_UNCHANGED)))
		return -EMSGSIZE;
	return 0;
}

static int ccaas_nl_fill_rule(struct sk_buff *skb, const struct ccaas_rule *rule)
{
	const struct ccaas_rule_match *m = &rule->match;
	struct nlattr *nest, *pn;
	unsigned int i;

	nest = nla_nest_start(skb, CCAAS_A_POLICY_RULE);
	if (!nest)
		return -EMSGSIZE;
	if ((m->locality && nla_put_u8(skb, CCAAS_A_RULE_LOCALITY, m->locality)) ||
	    (m->fields & CCAAS_MATCH_REGION &&
	     nla_put_u32(skb, CCAAS_A_RULE_REGION, m->region)) ||
	    (m->fields & CCAAS_MATCH_DC &&
	     nla_put_u32(skb, CCAAS_A_RULE_DC, m->dc)) ||
	    (m->fields & CCAAS_MATCH_LOCAL &&
	     (nla_put(skb, CCAAS_A_RULE_LOCAL_ADDR,
		      m->local_family == AF_INET ? 4 : 16, m->local_addr) ||
	      nla_put_u8(skb, CCAAS_A_RULE_LOCAL_PREFIXLEN, m->local_prefixlen))) ||
	    (m->fields & CCAAS_MATCH_CGROUP &&
	     (nla_put_string(skb, CCAAS_A_RULE_CGROUP, m->cgroup->path) ||
	      (ccaas_cgroup_id(m->cgroup) &&
	       nla_put_u64_64bit(skb, CCAAS_A_RULE_CGROUP_ID,
				 ccaas_cgroup_id(m->cgroup),
				 CCAAS_A_RULE_UNSPEC)))) ||
	    (m->fields & CCAAS_MATCH_PORT &&
	     (nla_put_u16(skb, CCAAS_A_RULE_PORT_MIN, m->port_min) ||
	      nla_put_u16(skb, CCAAS_A_RULE_PORT_MAX, m->port_max))) ||
	    nla_put_string(skb, CCAAS_A_RULE_CCA, rule->cca_name))
		goto cancel;
	for (i = 0; i < rule->n_params; i++) {
		pn = nla_nest_start(skb, CCAAS_A_RULE_PARAM);
		if (!pn ||
		    nla_put_string(skb, CCAAS_A_PARAM_NAME, rule->params[i].name) ||
		    nla_put_u32(skb, CCAAS_A_PARAM_VALUE, rule->params[i].value))
			goto cancel;
		nla_nest_end(skb, pn);
	}
	if ((rule->knobs & CCAAS_KNOB_MIN_RTO &&
	     nla_put_u32(skb, CCAAS_A_RULE_MIN_RTO_US, rule->min_rto_us)) ||
	    (rule->knobs & CCAAS_KNOB_INIT_CWND &&
	     nla_put_u32(skb, CCAAS_A_RULE_INIT_CWND, rule->init_cwnd)) ||
	    (rule->knobs & CCAAS_KNOB_TSO_SEGS &&
	     nla_put_u32(skb, CCAAS_A_RULE_TSO_SEGS, rule->tso_segs)))
		goto cancel;
	nla_nest_end(skb, nest);
	return 0;

cancel:
	nla_nest_cancel(skb, nest);
	return -EMSGSIZE;
}

/*
 * A rule's min_rto below two jiffies, the kernel's least (TCP_TIMEOUT_MIN)
 * is rounded up where it applies (switch.c): said once the change is in,
 * as a warning, never instead of an error.
 */
static bool ccaas_draft_low_rto(const struct ccaas_policy_gen *draft)
{
	unsigned int i;

	for (i = 0; i < draft->n_rules; i++)
		if ((draft->rules[i].knobs & CCAAS_KNOB_MIN_RTO) &&
		    usecs_to_jiffies(draft->rules[i].min_rto_us) < TCP_TIMEOUT_MIN)
			return true;
	return false;
}

static void ccaas_nl_warn_low_rto(struct genl_info *info, bool low)
{
	if (low)
		NL_SET_ERR_MSG(info->extack,
			       "min_rto below two jiffies, the kernel's least (TCP_TIMEOUT_MIN): sockets get two jiffies");
}

static int ccaas_nl_reply_send(struct sk_buff *msg, void *hdr,
			       struct genl_info *info,
			       const struct ccaas_policy_head *head)
{
	if (ccaas_policy_fill_head(msg, head)) {
		nlmsg_free(msg);
		return -EMSGSIZE;
	}
	genlmsg_end(msg, hdr);
	return genlmsg_reply(msg, info);
}

static struct ccaas_policy_req ccaas_nl_req(struct genl_info *info)
{
	return (struct ccaas_policy_req) {
		.net = genl_info_net(info),
		.extack = info->extack,
		.dry_run = nla_get_flag(info->attrs[CCAAS_A_POLICY_DRY_RUN]),
	};
}

/*
 * What follows a change, still under the lock: if it committed, announce
 * the generation, then move the existing connections to it (FORCE: despite
 * sticky ECN) and announce the counts.
 */
static void ccaas_nl_policy_changed(struct genl_info *info,
				    const struct ccaas_policy_head *head)
{
	struct net *net = genl_info_net(info);
	struct ccaas_migrate_stats st;

	lockdep_assert_held(&ccaas_net(net)->lock);
	if (!head->committed)
		return;
	ccaas_notify_policy(net, head);
	if (nla_get_flag(info->attrs[CCAAS_A_POLICY_NO_MIGRATE]))
		return;
	ccaas_migrate(net, nla_get_flag(info->attrs[CCAAS_A_POLICY_FORCE]), &st);
	ccaas_notify_migrate(net, &st);
}

/* --- set, del -------------------------------------------------------------- */

static int ccaas_nl_policy_change(struct genl_info *info, bool del)
{
	struct ccaas_policy_req req = ccaas_nl_req(info);
	struct ccaas_net *cn = ccaas_net(req.net);
	const struct nlattr *nest = NULL, *a;
	struct ccaas_policy_gen *draft;
	struct ccaas_policy_head head;
	struct sk_buff *msg;
	int err, rem, n_params;
	bool low_rto;
	void *hdr;

	nlmsg_for_each_attr(a, info->nlhdr, GENL_HDRLEN, rem) {
		if (nla_type(a) != CCAAS_A_POLICY_RULE)
			continue;
		if (nest) {
			NL_SET_ERR_MSG_ATTR(info->extack, a,
					    "one rule at a time (policy apply takes many)");
			return -EINVAL;
		}
		nest = a;
	}
	if (!nest) {
		NL_SET_ERR_ATTR_MISS(info->extack, NULL, CCAAS_A_POLICY_RULE);
		NL_SET_ERR_MSG(info->extack, "a rule is required");
		return -EINVAL;
	}
	n_params = ccaas_rule_count_params(nest, info->extack);
	if (n_params < 0)
		return n_params;

	draft = ccaas_policy_draft_alloc(1, del ? 0 : n_params);
	if (!draft)
		return -ENOMEM;
	err = ccaas_rule_parse(req.net, nest, del, draft, info->extack);
	if (err) {
		ccaas_policy_draft_free(draft);
		return err;
	}
	msg = ccaas_nl_reply_new(info, &hdr);
	if (!msg) {
		ccaas_policy_draft_free(draft);
		return -ENOMEM;
	}
	low_rto = !del && ccaas_draft_low_rto(draft);

	mutex_lock(&cn->lock);
	if (del) {
		err = ccaas_policy_del(cn, &req, &draft->rules[0].match, &head);
		ccaas_policy_draft_free(draft);
	} else {
		err = ccaas_policy_set(cn, &req, draft, &head);
	}
	if (!err)
		ccaas_nl_policy_changed(info, &head);
	mutex_unlock(&cn->lock);
	if (err) {
		nlmsg_free(msg);
		return err;
	}
	ccaas_nl_warn_low_rto(info, low_rto);
	return ccaas_nl_reply_send(msg, hdr, info, &head);
}

int ccaas_nl_policy_set_doit(struct sk_buff *skb, struct genl_info *info)
{
	return ccaas_nl_policy_change(info, false);
}

int ccaas_nl_policy_del_doit(struct sk_buff *skb, struct genl_info *info)
{
	return ccaas_nl_policy_change(info, true);
}

/* --- apply ------------------------------------------------------------------ */

int ccaas_nl_policy_apply_doit(struct sk_buff *skb, struct genl_info *info)
{
	struct ccaas_policy_req req = ccaas_nl_req(info);
	struct ccaas_net *cn = ccaas_net(req.net);
	unsigned int n_rules = 0, n_params = 0, i;
	struct ccaas_policy_gen *draft;
	struct ccaas_policy_head head;
	const struct nlattr *a;
	struct sk_buff *msg;
	int err, rem;
	bool low_rto;
	void *hdr;

	nlmsg_for_each_attr(a, info->nlhdr, GENL_HDRLEN, rem) {
		if (nla_type(a) != CCAAS_A_POLICY_RULE)
			continue;
		if (++n_rules > CCAAS_POLICY_MAX_RULES) {
			NL_SET_ERR_MSG_ATTR(info->extack, a,
					    "too many rules (at most "
					    __stringify(CCAAS_POLICY_MAX_RULES) ")");
			return -E2BIG;
		}
		err = ccaas_rule_count_params(a, info->extack);
		if (err < 0)
			return err;
		n_params += err;
	}

	draft = ccaas_policy_draft_alloc(n_rules, n_params);
	if (!draft)
		return -ENOMEM;
	nlmsg_for_each_attr(a, info->nlhdr, GENL_HDRLEN, rem) {
		if (nla_type(a) != CCAAS_A_POLICY_RULE)
			continue;
		err = ccaas_rule_parse(req.net, a, false, draft, info->extack);
		if (err)
			goto out_free;
		/* Point at the second of two rules with the same match. */
		for (i = 0; i + 1 < draft->n_rules; i++) {
			if (ccaas_rule_match_equal(&draft->rules[i].match,
						   &draft->rules[draft->n_rules - 1].match)) {
				NL_SET_ERR_MSG_ATTR(info->extack, a,
						    "duplicate match: an earlier rule has the same match");
				err = -EINVAL;
				goto out_free;
			}
		}
	}

	msg = ccaas_nl_reply_new(info, &hdr);
	if (!msg) {
		err = -ENOMEM;
		goto out_free;
	}
	low_rto = ccaas_draft_low_rto(draft);
	mutex_lock(&cn->lock);
	err = ccaas_policy_apply(cn, &req, draft, &head);
	if (!err)
		ccaas_nl_policy_changed(info, &head);
	mutex_unlock(&cn->lock);
	if (err) {
		nlmsg_free(msg);
		return err;
	}
	ccaas_nl_warn_low_rto(info, low_rto);
	return ccaas_nl_reply_send(msg, hdr, info, &head);

out_free:
	ccaas_policy_draft_free(draft);
	return err;
}

/* --- rollback ------------------------------------------------------------------ */

/*
 * Are the CCAs of generation @generation loaded? A rollback resolves them
 * again, and a request loads no module (ccaas_nl_cca_loaded()). A
 * generation not kept is left for ccaas_policy_rollback_copy() to refuse.
 */
static int ccaas_nl_rollback_loaded(const struct ccaas_policy_req *req,
				    u32 generation)
{
	struct ccaas_net *cn = ccaas_net(req->net);
	char (*names)[CCAAS_CCA_NAME_MAX] = NULL;
	struct ccaas_policy_gen *gen;
	unsigned int i, j, n = 0;
	int err = 0;

	mutex_lock(&cn->lock);
	gen = ccaas_policy_find(cn, generation);
	if (gen && gen->n_rules) {
		names = kvmalloc_array(gen->n_rules, sizeof(*names),
				       GFP_KERNEL_ACCOUNT);
		if (names)
			for (i = 0; i < gen->n_rules; i++)
				strscpy(names[n++], gen->rules[i].cca_name,
					sizeof(names[0]));
		else
			err = -ENOMEM;
	}
	mutex_unlock(&cn->lock);

	for (i = 0; !err && i < n; i++) {
		for (j = 0; j < i && strcmp(names[j], names[i]); j++)
			;
		if (j == i)
			err = ccaas_nl_cca_loaded(req->net, names[i], NULL,
						  req->extack);
	}
	kvfree(names);
	return err;
}

int ccaas_nl_policy_rollback_doit(struct sk_buff *skb, struct genl_info *info)
{
	struct ccaas_policy_req req = ccaas_nl_req(info);
	struct ccaas_net *cn = ccaas_net(req.net);
	struct ccaas_policy_gen *draft;
	struct ccaas_policy_head head;
	struct sk_buff *msg;
	u32 generation;
	void *hdr;
	int err;

	if (GENL_REQ_ATTR_CHECK(info, CCAAS_A_POLICY_GENERATION)) {
		NL_SET_ERR_MSG(info->extack, "which generation to roll back to?");
		return -EINVAL;
	}
	generation = nla_get_u32(info->attrs[CCAAS_A_POLICY_GENERATION]);
	err = ccaas_nl_rollback_loaded(&req, generation);
	if (err)
		return err;
	msg = ccaas_nl_reply_new(info, &hdr);
	if (!msg)
		return -ENOMEM;

	mutex_lock(&cn->lock);
	draft = ccaas_policy_rollback_copy(cn, &req, generation);
	mutex_unlock(&cn->lock);
	if (IS_ERR(draft)) {
		err = PTR_ERR(draft);
		if (err == -ENOENT)
			NL_SET_BAD_ATTR(info->extack,
					info->attrs[CCAAS_A_POLICY_GENERATION]);
		goto out_msg;
	}
	err = ccaas_policy_rollback_resolve(draft, &req);
	if (err) {
		ccaas_policy_draft_free(draft);
		goto out_msg;
	}

	mutex_lock(&cn->lock);
	err = ccaas_policy_rollback_commit(cn, &req, draft, generation, &head);
	if (!err)
		ccaas_nl_policy_changed(info, &head);
	mutex_unlock(&cn->lock);
	if (err)
		goto out_msg;
	return ccaas_nl_reply_send(msg, hdr, info, &head);

out_msg:
	nlmsg_free(msg);
	return err;
}

/* --- get, history ----------------------------------------------------------------- */

/* The generation a request names (or the current one). Lock held. */
static struct ccaas_policy_gen *ccaas_nl_policy_lookup(struct ccaas_net *cn,
						       const struct nlattr *attr,
						       struct netlink_ext_ack *extack)
{
	struct ccaas_policy_gen *gen;

	if (!attr)
		return ccaas_policy_current_locked(cn);
	gen = ccaas_policy_find(cn, nla_get_u32(attr));
	if (!gen) {
		if (nla_get_u32(attr) > ccaas_policy_current_locked(cn)->generation)
			NL_SET_ERR_MSG_ATTR(extack, attr,
					    "no such generation: it was never committed");
		else
			NL_SET_ERR_MSG_ATTR(extack, attr,
					    "generation no longer kept (see policy history)");
	}
	return gen;
}

int ccaas_nl_policy_get_doit(struct sk_buff *skb, struct genl_info *info)
{
	struct ccaas_net *cn = ccaas_net(genl_info_net(info));
	struct ccaas_policy_gen *gen;
	struct ccaas_policy_head head;
	struct sk_buff *msg;
	void *hdr;

	mutex_lock(&cn->lock);
	gen = ccaas_nl_policy_lookup(cn, info->attrs[CCAAS_A_POLICY_GENERATION],
				     info->extack);
	if (gen)
		ccaas_policy_head_of(gen, &head);
	mutex_unlock(&cn->lock);
	if (!gen)
		return -ENOENT;

	msg = ccaas_nl_reply_new(info, &hdr);
	if (!msg)
		return -ENOMEM;
	return ccaas_nl_reply_send(msg, hdr, info, &head);
}

/* Dump state of POLICY_GET in cb->args[]. */
enum {
	CCAAS_DUMP_STARTED,	/* the generation has been chosen */
	CCAAS_DUMP_GENERATION,	/* which one */
	CCAAS_DUMP_NEXT_RULE,	/* the first rule not sent yet */
	CCAAS_DUMP_DONE,	/* every rule has been sent */
};

/* One message: the header, and as many of the rules left as fit. */
static int ccaas_nl_policy_get_fill(struct sk_buff *skb,
				    struct netlink_callback *cb,
				    const struct ccaas_policy_gen *gen)
{
	unsigned int i = cb->args[CCAAS_DUMP_NEXT_RULE];
	struct ccaas_policy_head head;
	void *hdr;

	hdr = genlmsg_put(skb, NETLINK_CB(cb->skb).portid, cb->nlh->nlmsg_seq,
			  &ccaas_family, NLM_F_MULTI, CCAAS_CMD_POLICY_GET);
	if (!hdr)
		return -EMSGSIZE;
	ccaas_policy_head_of(gen, &head);
	if (ccaas_policy_fill_head(skb, &head))
		goto cancel;
	for (; i < gen->n_rules; i++)
		if (ccaas_nl_fill_rule(skb, &gen->rules[i]))
			break;
	/* Not a single rule fitted into an empty message: cannot happen. */
	if (i == cb->args[CCAAS_DUMP_NEXT_RULE] && i < gen->n_rules)
		goto cancel;
	genlmsg_end(skb, hdr);
	cb->args[CCAAS_DUMP_NEXT_RULE] = i;
	if (i == gen->n_rules)
		cb->args[CCAAS_DUMP_DONE] = 1;
	return skb->len;

cancel:
	genlmsg_cancel(skb, hdr);
	return -EMSGSIZE;
}

int ccaas_nl_policy_get_dumpit(struct sk_buff *skb, struct netlink_callback *cb)
{
	struct ccaas_net *cn = ccaas_net(sock_net(skb->sk));
	struct ccaas_policy_gen *gen;
	int err;

	if (cb->args[CCAAS_DUMP_DONE])
		return 0;

	mutex_lock(&cn->lock);
	if (!cb->args[CCAAS_DUMP_STARTED]) {
		/* Checked against ccaas_policy_get_nlpolicy already. */
		gen = ccaas_nl_policy_lookup(cn,
					     nlmsg_find_attr(cb->nlh, GENL_HDRLEN,
							     CCAAS_A_POLICY_GENERATION),
					     cb->extack);
		if (gen) {
			cb->args[CCAAS_DUMP_STARTED] = 1;
			cb->args[CCAAS_DUMP_GENERATION] = gen->generation;
		}
	} else {
		gen = ccaas_policy_find(cn, cb->args[CCAAS_DUMP_GENERATION]);
		if (!gen)
			NL_SET_ERR_MSG(cb->extack,
				       "generation dropped from the history during the dump");
	}
	err = gen ? ccaas_nl_policy_get_fill(skb, cb, gen) : -ENOENT;
	mutex_unlock(&cn->lock);
	return err;
}

int ccaas_nl_policy_history_dumpit(struct sk_buff *skb,
				   struct netlink_callback *cb)
{
	struct ccaas_net *cn = ccaas_net(sock_net(skb->sk));
	struct ccaas_policy_gen *gen;
	struct ccaas_policy_head head;
	void *hdr;

	/* cb->args[0]: the first generation not sent yet. */
	mutex_lock(&cn->lock);
	/* A commit between two parts of the dump marks it interrupted. */
	cb->seq = ccaas_policy_current_locked(cn)->generation + 1;
	list_for_each_entry(gen, &cn->policy.history, node) {
		if (gen->generation < cb->args[0])
			continue;
		hdr = genlmsg_put(skb, NETLINK_CB(cb->skb).portid,
				  cb->nlh->nlmsg_seq, &ccaas_family, NLM_F_MULTI,
				  CCAAS_CMD_POLICY_HISTORY);
		if (!hdr)
			break;
		genl_dump_check_consistent(cb, hdr);
		ccaas_policy_head_of(gen, &head);
		if (ccaas_policy_fill_head(skb, &head)) {
			genlmsg_cancel(skb, hdr);
			break;
		}
		genlmsg_end(skb, hdr);
		cb->args[0] = (long)gen->generation + 1;
	}
	mutex_unlock(&cn->lock);
	return skb->len;
}
