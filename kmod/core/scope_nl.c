// SPDX-License-Identifier: GPL-2.0
/*
 * Netlink commands of the scope table (include/uapi/linux/ccaas.yaml):
 * SCOPE_ADD, SCOPE_DEL, SCOPE_GET (do: look an address up; dump: the
 * table), SCOPE_FLUSH and SCOPE_LOAD.
 *
 * The per-command policies check attribute types and lengths; the handlers
 * check what a policy cannot express (address length 4 or 16, prefix length
 * within the address, no host bits, a known locality) and explain every
 * refusal through extack, pointing at the attribute concerned. A load
 * checks every entry before the table is touched.
 *
 * Replies: SCOPE_GET do answers with the matching entry (ADDR, PREFIXLEN,
 * LOCALITY, REGION, DC), or with LOCALITY unknown alone. A dump starts
 * with one summary message (COUNT, MAX_ENTRIES, MEMORY, no ADDR), then one
 * message per entry, IPv4 first, each family sorted by address and prefix
 * length. SCOPE_LOAD answers with the summary of the new table.
 *
 * SCOPE_LOAD with DRY_RUN checks the entries and builds the table exactly
 * as a load does (same refusals, same extack messages, same allocation),
 * then drops it: the table in force is not touched, and the reply is the
 * summary of the table the load would have made. A core that predates
 * DRY_RUN refuses it (strict validation, attribute type above maxattr):
 * a dry run can never become a load.
 *
 * A dump that spans several reads remembers the last entry it sent. If the
 * table changed in between (its generation differs), the dump goes on after
 * that entry in the new table and the parts are flagged NLM_F_DUMP_INTR:
 * every entry present throughout the dump is sent exactly once.
 */
#include <linux/module.h>
#include <net/genetlink.h>
#include <net/ipv6.h>
#include <net/netlink.h>

#include "core.h"

/* SCOPE_ADD, and each ENTRY of SCOPE_LOAD. */
const struct nla_policy ccaas_scope_add_policy[CCAAS_A_SCOPE_MAX + 1] = {
	/* any length: the handler explains a wrong one */
	[CCAAS_A_SCOPE_ADDR] = { .type = NLA_BINARY },
	[CCAAS_A_SCOPE_PREFIXLEN] = { .type = NLA_U8 },
	[CCAAS_A_SCOPE_LOCALITY] = { .type = NLA_U8 },
	[CCAAS_A_SCOPE_REGION] = { .type = NLA_U32 },
	[CCAAS_A_SCOPE_DC] = { .type = NLA_U32 },
};

const struct nla_policy ccaas_scope_del_policy[CCAAS_A_SCOPE_MAX + 1] = {
	[CCAAS_A_SCOPE_ADDR] = { .type = NLA_BINARY },
	[CCAAS_A_SCOPE_PREFIXLEN] = { .type = NLA_U8 },
};

const struct nla_policy ccaas_scope_get_policy[CCAAS_A_SCOPE_MAX + 1] = {
	[CCAAS_A_SCOPE_ADDR] = { .type = NLA_BINARY },
};

/* No attributes: strict validation refuses any. */
const struct nla_policy ccaas_scope_flush_policy[CCAAS_A_SCOPE_MAX + 1] = {
};

const struct nla_policy ccaas_scope_load_policy[CCAAS_A_SCOPE_MAX + 1] = {
	[CCAAS_A_SCOPE_ENTRY] = NLA_POLICY_NESTED(ccaas_scope_add_policy),
	[CCAAS_A_SCOPE_DRY_RUN] = { .type = NLA_FLAG },
};

static struct ccaas_net *scope_nl_net(struct genl_info *info)
{
	return ccaas_net(genl_info_net(info));
}

/* An address attribute: 4 bytes for IPv4, 16 for IPv6. */
static int scope_nl_addr(const struct nlattr *a, struct ccaas_scope_key *key,
			 u8 *fam, struct netlink_ext_ack *extack)
{
	struct in6_addr in6;

	switch (nla_len(a)) {
	case sizeof(struct in_addr):
		ccaas_scope_key4(key, nla_get_in_addr(a));
		*fam = CCAAS_SCOPE_V4;
		return 0;
	case sizeof(struct in6_addr):
		in6 = nla_get_in6_addr(a);
		ccaas_scope_key6(key, &in6);
		*fam = CCAAS_SCOPE_V6;
		return 0;
	}
	NL_SET_ERR_MSG_ATTR(extack, a,
			    "scope address must be 4 (IPv4) or 16 (IPv6) bytes");
	return -EINVAL;
}

/*
 * A prefix (ADDR, PREFIXLEN) from @tb, and with @full its LOCALITY and
 * optional REGION and DC, into @e. @nest is the entry's nest, NULL for the
 * top level.
 */
static int scope_nl_entry(struct nlattr **tb, const struct nlattr *nest,
			  bool full, struct ccaas_scope_entry *e,
			  struct netlink_ext_ack *extack)
{
	static const struct ccaas_scope_key mapped = {
		.hi = 0, .lo = 0xffff00000000ULL,
	};
	struct nlattr *a;
	unsigned int bits;
	int err;

	memset(e, 0, sizeof(*e));
	if (NL_REQ_ATTR_CHECK(extack, nest, tb, CCAAS_A_SCOPE_ADDR)) {
		NL_SET_ERR_MSG(extack, "missing scope address (CCAAS_A_SCOPE_ADDR)");
		return -EINVAL;
	}
	if (NL_REQ_ATTR_CHECK(extack, nest, tb, CCAAS_A_SCOPE_PREFIXLEN)) {
		NL_SET_ERR_MSG(extack,
			       "missing scope prefix length (CCAAS_A_SCOPE_PREFIXLEN)");
		return -EINVAL;
	}
	a = tb[CCAAS_A_SCOPE_ADDR];
	err = scope_nl_addr(a, &e->key, &e->fam, extack);
	if (err)
		return err;

	bits = e->fam == CCAAS_SCOPE_V4 ? 32 : 128;
	e->prefixlen = nla_get_u8(tb[CCAAS_A_SCOPE_PREFIXLEN]);
	if (e->prefixlen > bits) {
		NL_SET_ERR_MSG_ATTR(extack, tb[CCAAS_A_SCOPE_PREFIXLEN],
				    "scope prefix length is longer than the address");
		return -EINVAL;
	}
	if (ccaas_scope_host_bits(&e->key, e->prefixlen)) {
		NL_SET_ERR_MSG_ATTR(extack, a,
				    "scope address has bits set beyond the prefix length");
		return -EINVAL;
	}
	/* Lookups of ::ffff:a.b.c.d go to the IPv4 table, never to these. */
	if (e->fam == CCAAS_SCOPE_V6 && e->prefixlen >= 96 &&
	    e->key.hi == mapped.hi && (e->key.lo >> 32) == (mapped.lo >> 32)) {
		NL_SET_ERR_MSG_ATTR(extack, a,
				    "IPv4-mapped IPv6 prefix: give it as an IPv4 prefix");
		return -EINVAL;
	}
	if (!full)
		return 0;

	if (NL_REQ_ATTR_CHECK(extack, nest, tb, CCAAS_A_SCOPE_LOCALITY)) {
		NL_SET_ERR_MSG(extack, "missing scope locality (CCAAS_A_SCOPE_LOCALITY)");
		return -EINVAL;
	}
	e->locality = nla_get_u8(tb[CCAAS_A_SCOPE_LOCALITY]);
	if (e->locality == CCAAS_LOCALITY_UNKNOWN ||
	    e->locality > CCAAS_LOCALITY_XREGION) {
		NL_SET_ERR_MSG_ATTR(extack, tb[CCAAS_A_SCOPE_LOCALITY],
				    "unknown scope locality (rack, dc, region or xregion)");
		return -EINVAL;
	}
	if (tb[CCAAS_A_SCOPE_REGION])
		e->region = nla_get_u32(tb[CCAAS_A_SCOPE_REGION]);
	if (tb[CCAAS_A_SCOPE_DC])
		e->dc = nla_get_u32(tb[CCAAS_A_SCOPE_DC]);
	return 0;
}

/* An entry's attributes into a message being built. */
static int scope_nl_put_entry(struct sk_buff *skb,
			      const struct ccaas_scope_entry *e)
{
	struct in6_addr in6;
	int err;

	if (e->fam == CCAAS_SCOPE_V4) {
		err = nla_put_in_addr(skb, CCAAS_A_SCOPE_ADDR,
				      ccaas_scope_addr4(&e->key));
	} else {
		ccaas_scope_addr6(&e->key, &in6);
		err = nla_put_in6_addr(skb, CCAAS_A_SCOPE_ADDR, &in6);
	}
	if (err ||
	    nla_put_u8(skb, CCAAS_A_SCOPE_PREFIXLEN, e->prefixlen) ||
	    nla_put_u8(skb, CCAAS_A_SCOPE_LOCALITY, e->locality) ||
	    nla_put_u32(skb, CCAAS_A_SCOPE_REGION, e->region) ||
	    nla_put_u32(skb, CCAAS_A_SCOPE_DC, e->dc))
		return -EMSGSIZE;
	return 0;
}

/* A table's size: COUNT, MAX_ENTRIES and MEMORY (padded with type 0). */
static int scope_nl_put_size(struct sk_buff *skb, u32 count, size_t memory)
{
	if (nla_put_u32(skb, CCAAS_A_SCOPE_COUNT, count) ||
	    nla_put_u32(skb, CCAAS_A_SCOPE_MAX_ENTRIES,
			READ_ONCE(ccaas_scope_max_entries)) ||
	    nla_put_u64_64bit(skb, CCAAS_A_SCOPE_MEMORY, memory,
			      CCAAS_A_SCOPE_UNSPEC))
		return -EMSGSIZE;
	return 0;
}

/* The size of table @t. */
static int scope_nl_put_summary(struct sk_buff *skb,
				const struct ccaas_scope_table *t)
{
	return scope_nl_put_size(skb, ccaas_scope_table_count(t),
				 ccaas_scope_table_memory(t));
}

int ccaas_nl_scope_add_doit(struct sk_buff *skb, struct genl_info *info)
{
	struct ccaas_scope_entry e;
	int err;

	err = scope_nl_entry(info->attrs, NULL, true, &e, info->extack);
	if (err)
		return err;
	return ccaas_scope_add(scope_nl_net(info), &e, info->extack);
}

int ccaas_nl_scope_del_doit(struct sk_buff *skb, struct genl_info *info)
{
	struct ccaas_scope_entry e;
	int err;

	err = scope_nl_entry(info->attrs, NULL, false, &e, info->extack);
	if (err)
		return err;
	err = ccaas_scope_del(scope_nl_net(info), &e, info->extack);
	if (err == -ENOENT)
		NL_SET_ERR_MSG_ATTR(info->extack, info->attrs[CCAAS_A_SCOPE_ADDR],
				    "no such prefix in the scope table");
	return err;
}

int ccaas_nl_scope_flush_doit(struct sk_buff *skb, struct genl_info *info)
{
	return ccaas_scope_flush(scope_nl_net(info));
}

int ccaas_nl_scope_get_doit(struct sk_buff *skb, struct genl_info *info)
{
	struct ccaas_net *cn = scope_nl_net(info);
	const struct ccaas_scope_entry *found;
	struct ccaas_scope_entry e;
	struct ccaas_scope_key key;
	struct sk_buff *msg;
	bool match = false;
	struct nlattr *a;
	struct in6_addr in6;
	void *hdr;
	u8 fam;
	int err;

	if (GENL_REQ_ATTR_CHECK(info, CCAAS_A_SCOPE_ADDR)) {
		NL_SET_ERR_MSG(info->extack,
			       "missing address to look up (CCAAS_A_SCOPE_ADDR)");
		return -EINVAL;
	}
	a = info->attrs[CCAAS_A_SCOPE_ADDR];
	err = scope_nl_addr(a, &key, &fam, info->extack);
	if (err)
		return err;
	if (fam == CCAAS_SCOPE_V6) {
		ccaas_scope_addr6(&key, &in6);
		if (ipv6_addr_v4mapped(&in6)) {
			ccaas_scope_key4(&key, in6.s6_addr32[3]);
			fam = CCAAS_SCOPE_V4;
		}
	}

	msg = genlmsg_new(NLMSG_DEFAULT_SIZE, GFP_KERNEL);
	if (!msg)
		return -ENOMEM;

	rcu_read_lock();
	found = ccaas_scope_table_find(ccaas_scope_table_get(cn), fam, &key);
	if (found) {
		e = *found;
		match = true;
	}
	rcu_read_unlock();

	hdr = genlmsg_put_reply(msg, info, &ccaas_family, 0,
				CCAAS_CMD_SCOPE_GET);
	if (!hdr)
		goto nospace;
	if (match)
		err = scope_nl_put_entry(msg, &e);
	else
		err = nla_put_u8(msg, CCAAS_A_SCOPE_LOCALITY,
				 CCAAS_LOCALITY_UNKNOWN);
	if (err)
		goto nospace;
	genlmsg_end(msg, hdr);
	return genlmsg_reply(msg, info);

nospace:
	nlmsg_free(msg);
	return -EMSGSIZE;
}

/* Where a dump is, between its parts (in cb->ctx). */
struct scope_dump_ctx {
	struct ccaas_scope_key last;	/* the last entry sent ... */
	u32 gen;			/* ... from the table of this generation */
	u32 idx;			/* next entry of @fam */
	u8 fam;				/* family being sent, NFAM when done */
	u8 last_len;
	bool have_last;			/* an entry of @fam was sent */
	bool started;			/* the summary was sent */
};

static void *scope_dump_put(struct sk_buff *skb, struct netlink_callback *cb)
{
	void *hdr;

	hdr = genlmsg_put(skb, NETLINK_CB(cb->skb).portid, cb->nlh->nlmsg_seq,
			  &ccaas_family, NLM_F_MULTI, CCAAS_CMD_SCOPE_GET);
	if (hdr)
		genl_dump_check_consistent(cb, hdr);
	return hdr;
}

int ccaas_nl_scope_get_dumpit(struct sk_buff *skb, struct netlink_callback *cb)
{
	struct scope_dump_ctx *ctx = (struct scope_dump_ctx *)cb->ctx;
	struct ccaas_net *cn = ccaas_net(sock_net(skb->sk));
	const struct ccaas_scope_entry *e;
	const struct ccaas_scope_table *t;
	void *hdr;

	BUILD_BUG_ON(sizeof(*ctx) > sizeof(cb->ctx));

	rcu_read_lock();
	t = ccaas_scope_table_get(cn);
	cb->seq = ccaas_scope_table_gen(t);
	/* The table changed since the last part: go on after the last entry. */
	if (ctx->started && ctx->gen != cb->seq && ctx->have_last &&
	    ctx->fam < CCAAS_SCOPE_NFAM)
		ctx->idx = ccaas_scope_table_seek(t, ctx->fam, &ctx->last,
						  ctx->last_len);
	ctx->gen = cb->seq;

	if (!ctx->started) {
		hdr = scope_dump_put(skb, cb);
		if (!hdr)
			goto out;
		if (scope_nl_put_summary(skb, t)) {
			genlmsg_cancel(skb, hdr);
			goto out;
		}
		genlmsg_end(skb, hdr);
		ctx->started = true;
	}

	while (ctx->fam < CCAAS_SCOPE_NFAM) {
		e = ccaas_scope_table_entry(t, ctx->fam, ctx->idx);
		if (!e) {
			ctx->fam++;
			ctx->idx = 0;
			ctx->have_last = false;
			continue;
		}
		hdr = scope_dump_put(skb, cb);
		if (!hdr)
			break;
		if (scope_nl_put_entry(skb, e)) {
			genlmsg_cancel(skb, hdr);
			break;
		}
		genlmsg_end(skb, hdr);
		ctx->last = e->key;
		ctx->last_len = e->prefixlen;
		ctx->have_last = true;
		ctx->idx++;
	}
out:
	rcu_read_unlock();
	return skb->len;
}

/* The @i-th ENTRY attribute of a load request. */
static const struct nlattr *scope_nl_nth_entry(struct genl_info *info, u32 i)
{
	const struct nlattr *a;
	int rem;

	nlmsg_for_each_attr(a, info->nlhdr, GENL_HDRLEN, rem) {
		if (nla_type(a) != CCAAS_A_SCOPE_ENTRY)
			continue;
		if (!i--)
			return a;
	}
	return NULL;
}

int ccaas_nl_scope_load_doit(struct sk_buff *skb, struct genl_info *info)
{
	struct nlattr *tb[CCAAS_A_SCOPE_MAX + 1];
	struct ccaas_net *cn = scope_nl_net(info);
	bool dry = nla_get_flag(info->attrs[CCAAS_A_SCOPE_DRY_RUN]);
	struct ccaas_scope_entry *v = NULL;
	struct sk_buff *msg;
	size_t memory = 0;
	struct nlattr *a;
	u32 n = 0, i = 0, dup = 0;
	void *hdr;
	int rem, err;

	nlmsg_for_each_attr(a, info->nlhdr, GENL_HDRLEN, rem)
		n += nla_type(a) == CCAAS_A_SCOPE_ENTRY;
	if (n > READ_ONCE(ccaas_scope_max_entries)) {
		NL_SET_ERR_MSG(info->extack,
			       "scope table full: more entries than the module parameter scope_max_entries");
		return -ENOSPC;
	}

	/* The reply is allocated first: once the table is replaced, we answer. */
	msg = genlmsg_new(NLMSG_DEFAULT_SIZE, GFP_KERNEL);
	if (!msg)
		return -ENOMEM;
	v = kvmalloc_array(max(n, 1U), sizeof(*v), GFP_KERNEL_ACCOUNT);
	if (!v) {
		err = -ENOMEM;
		goto out;
	}

	nlmsg_for_each_attr(a, info->nlhdr, GENL_HDRLEN, rem) {
		if (nla_type(a) != CCAAS_A_SCOPE_ENTRY)
			continue;
		err = nla_parse_nested(tb, CCAAS_A_SCOPE_MAX, a,
				       ccaas_scope_add_policy, info->extack);
		if (err)
			goto out;
		err = scope_nl_entry(tb, a, true, &v[i], info->extack);
		if (err)
			goto out;
		v[i].pos = i;
		i++;
	}

	if (dry)
		err = ccaas_scope_load_check(v, n, &dup, &memory, info->extack);
	else
		err = ccaas_scope_load(cn, v, n, &dup, info->extack);
	if (err == -EEXIST) {
		NL_SET_ERR_MSG_ATTR(info->extack, scope_nl_nth_entry(info, dup),
				    "prefix given twice in one scope load");
	}
	if (err)
		goto out;

	hdr = genlmsg_put_reply(msg, info, &ccaas_family, 0,
				CCAAS_CMD_SCOPE_LOAD);
	if (hdr && dry) {
		err = scope_nl_put_size(msg, n, memory);
	} else if (hdr) {
		rcu_read_lock();
		err = scope_nl_put_summary(msg, ccaas_scope_table_get(cn));
		rcu_read_unlock();
	}
	if (hdr && !err) {
		genlmsg_end(msg, hdr);
		kvfree(v);
		return genlmsg_reply(msg, info);
	}
	/* Replaced (or checked), but the answer did not fit: still a success. */
	err = 0;
out:
	kvfree(v);
	nlmsg_free(msg);
	return err;
}
