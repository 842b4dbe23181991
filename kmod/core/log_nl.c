// SPDX-License-Identifier: GPL-2.0
/*
 * Netlink for the ccalog selection: LOG_ADD, LOG_DEL and LOG_GET.
 *
 * Requests name connections by socket cookie (CCAAS_A_LOG_COOKIE, repeated)
 * or all of them (CCAAS_A_LOG_ALL). Filters on addresses, ports, CCA or
 * scope are userspace's business: ccactl resolves them to cookies through
 * sock_diag. A request that cannot be carried out in full changes nothing.
 */
#include <linux/bitmap.h>
#include <linux/slab.h>
#include <linux/sort.h>
#include <net/genetlink.h>

#include "core.h"
#include "logsel.h"

const struct nla_policy ccaas_log_nlpolicy[CCAAS_A_LOG_MAX + 1] = {
	[CCAAS_A_LOG_COOKIE] = { .type = NLA_U64 },
	[CCAAS_A_LOG_ALL] = { .type = NLA_FLAG },
};

static struct ccaas_logsel *ccaas_logsel_alloc(u32 n)
{
	return kzalloc(struct_size_t(struct ccaas_logsel, cookies, n),
		       GFP_KERNEL_ACCOUNT);
}

/* Cookies in the request; the first attribute past the limit in @over. */
static u32 ccaas_log_count(struct genl_info *info, const struct nlattr **over)
{
	const struct nlattr *a;
	u32 n = 0;
	int rem;

	nla_for_each_attr(a, genlmsg_data(info->genlhdr),
			  genlmsg_len(info->genlhdr), rem) {
		if (nla_type(a) != CCAAS_A_LOG_COOKIE)
			continue;
		if (++n > CCAAS_LOG_MAX_COOKIES && !*over)
			*over = a;
	}
	return n;
}

/* Sort and drop duplicates. */
static void ccaas_logsel_normalise(struct ccaas_logsel *sel)
{
	u32 i, n = 0;

	sort(sel->cookies, sel->n, sizeof(u64), ccaas_cookie_cmp, NULL);
	for (i = 0; i < sel->n; i++)
		if (!n || sel->cookies[n - 1] != sel->cookies[i])
			sel->cookies[n++] = sel->cookies[i];
	sel->n = n;
}

/*
 * The request's cookies, checked: how many, and whether they can be taken
 * with @all. Returns the count or a negative error with extack set.
 */
static int ccaas_log_request(struct genl_info *info, bool all)
{
	const struct nlattr *over = NULL;
	u32 n = ccaas_log_count(info, &over);

	if (over) {
		NL_SET_ERR_MSG_ATTR(info->extack, over,
				    "too many cookies (at most 1024 per namespace)");
		return -E2BIG;
	}
	if (all && n) {
		NL_SET_ERR_MSG_ATTR(info->extack, info->attrs[CCAAS_A_LOG_ALL],
				    "'all' and cookies exclude each other");
		return -EINVAL;
	}
	if (!all && !n) {
		NL_SET_ERR_MSG(info->extack,
			       "name connections by cookie, or 'all'");
		return -EINVAL;
	}
	return n;
}

/*
 * The reply is allocated before the selection changes (ccaas_nl_reply_new()),
 * so that a request that fails has changed nothing; it is filled and sent
 * once it has.
 */
static int ccaas_log_reply_send(struct sk_buff *msg, void *hdr,
				struct genl_info *info,
				const struct ccaas_logsel_stats *st)
{
	if (nla_put_u32(msg, CCAAS_A_LOG_LOGGING, st->logging) ||
	    nla_put_u32(msg, CCAAS_A_LOG_OTHER_CCA, st->other_cca) ||
	    nla_put_u32(msg, CCAAS_A_LOG_STOPPED, st->stopped)) {
		nlmsg_free(msg);
		return -EMSGSIZE;
	}
	genlmsg_end(msg, hdr);
	return genlmsg_reply(msg, info);
}

/*
 * The selection after adding @n cookies of @info to @old: every requested
 * cookie must be a live connection of @net; cookies of @old whose
 * connection has closed are dropped.
 */
static struct ccaas_logsel *ccaas_log_added(struct net *net,
					    const struct ccaas_logsel *old,
					    struct genl_info *info, u32 n)
{
	u32 old_n = old ? old->n : 0, i, kept;
	struct ccaas_logsel_stats st = {};
	struct ccaas_logsel *sel;
	unsigned long *live;
	const struct nlattr *a;
	int rem, err;

	sel = ccaas_logsel_alloc(old_n + n);
	if (!sel)
		return ERR_PTR(-ENOMEM);
	if (old_n)
		memcpy(sel->cookies, old->cookies, old_n * sizeof(u64));
	sel->n = old_n;
	nla_for_each_attr(a, genlmsg_data(info->genlhdr),
			  genlmsg_len(info->genlhdr), rem)
		if (nla_type(a) == CCAAS_A_LOG_COOKIE)
			sel->cookies[sel->n++] = nla_get_u64(a);
	ccaas_logsel_normalise(sel);

	live = bitmap_zalloc(sel->n, GFP_KERNEL_ACCOUNT);
	if (!live) {
		err = -ENOMEM;
		goto err_sel;
	}
	ccaas_logsel_count(net, sel, live, &st);
	nla_for_each_attr(a, genlmsg_data(info->genlhdr),
			  genlmsg_len(info->genlhdr), rem) {
		long idx;

		if (nla_type(a) != CCAAS_A_LOG_COOKIE)
			continue;
		idx = ccaas_logsel_find(sel, nla_get_u64(a));
		if (idx < 0 || !test_bit(idx, live)) {
			NL_SET_ERR_MSG_ATTR(info->extack, a,
					    "no open TCP connection has this cookie in this namespace");
			err = -ENOENT;
			goto err_live;
		}
	}
	for (i = 0, kept = 0; i < sel->n; i++)
		if (test_bit(i, live))
			sel->cookies[kept++] = sel->cookies[i];
	sel->n = kept;
	bitmap_free(live);
	if (sel->n > CCAAS_LOG_MAX_COOKIES) {
		NL_SET_ERR_MSG(info->extack,
			       "too many cookies (at most 1024 per namespace)");
		kfree(sel);
		return ERR_PTR(-E2BIG);
	}
	return sel;

err_live:
	bitmap_free(live);
err_sel:
	kfree(sel);
	return ERR_PTR(err);
}

int ccaas_nl_log_add_doit(struct sk_buff *skb, struct genl_info *info)
{
	bool all = nla_get_flag(info->attrs[CCAAS_A_LOG_ALL]);
	struct net *net = genl_info_net(info);
	struct ccaas_net *cn = ccaas_net(net);
	const struct ccaas_logsel *old;
	struct ccaas_logsel_stats st;
	struct ccaas_logsel *sel;
	struct sk_buff *msg;
	void *hdr;
	int n, err;

	n = ccaas_log_request(info, all);
	if (n < 0)
		return n;
	msg = ccaas_nl_reply_new(info, &hdr);
	if (!msg)
		return -ENOMEM;

	mutex_lock(&cn->lock);
	old = rcu_dereference_protected(cn->log.sel, lockdep_is_held(&cn->lock));
	if (old && old->all) {
		NL_SET_ERR_MSG(info->extack,
			       "every connection is selected already");
		err = -EEXIST;
		goto out;
	}
	if (all) {
		sel = ccaas_logsel_alloc(0);
		if (sel)
			sel->all = true;
		else
			sel = ERR_PTR(-ENOMEM);
	} else {
		sel = ccaas_log_added(net, old, info, n);
	}
	if (IS_ERR(sel)) {
		err = PTR_ERR(sel);
		goto out;
	}
	ccaas_logsel_replace(net, sel, &st);
	err = 0;
out:
	mutex_unlock(&cn->lock);
	if (err) {
		nlmsg_free(msg);
		return err;
	}
	return ccaas_log_reply_send(msg, hdr, info, &st);
}

/* @old without the cookies of @info; each must be selected. */
static struct ccaas_logsel *ccaas_log_removed(const struct ccaas_logsel *old,
					      struct genl_info *info)
{
	struct ccaas_logsel *sel;
	const struct nlattr *a;
	u32 i, kept;
	int rem;

	sel = ccaas_logsel_alloc(old->n);
	if (!sel)
		return ERR_PTR(-ENOMEM);
	memcpy(sel->cookies, old->cookies, old->n * sizeof(u64));
	sel->n = old->n;
	nla_for_each_attr(a, genlmsg_data(info->genlhdr),
			  genlmsg_len(info->genlhdr), rem) {
		long idx;

		if (nla_type(a) != CCAAS_A_LOG_COOKIE)
			continue;
		idx = ccaas_logsel_find(old, nla_get_u64(a));
		if (idx < 0) {
			NL_SET_ERR_MSG_ATTR(info->extack, a,
					    "this cookie is not selected");
			kfree(sel);
			return ERR_PTR(-ENOENT);
		}
		sel->cookies[idx] = 0;	/* cookies are never 0 */
	}
	for (i = 0, kept = 0; i < sel->n; i++)
		if (sel->cookies[i])
			sel->cookies[kept++] = sel->cookies[i];
	sel->n = kept;
	return sel;
}

int ccaas_nl_log_del_doit(struct sk_buff *skb, struct genl_info *info)
{
	bool all = nla_get_flag(info->attrs[CCAAS_A_LOG_ALL]);
	struct net *net = genl_info_net(info);
	struct ccaas_net *cn = ccaas_net(net);
	const struct ccaas_logsel *old;
	struct ccaas_logsel_stats st;
	struct ccaas_logsel *sel = NULL;
	struct sk_buff *msg;
	void *hdr;
	int n, err;

	n = ccaas_log_request(info, all);
	if (n < 0)
		return n;
	msg = ccaas_nl_reply_new(info, &hdr);
	if (!msg)
		return -ENOMEM;

	mutex_lock(&cn->lock);
	old = rcu_dereference_protected(cn->log.sel, lockdep_is_held(&cn->lock));
	if (!all) {
		if (old && old->all) {
			NL_SET_ERR_MSG(info->extack,
				       "every connection is selected: 'log del all' ends that");
			err = -EINVAL;
			goto out;
		}
		if (!old) {
			NL_SET_ERR_MSG(info->extack, "no connection is selected");
			err = -ENOENT;
			goto out;
		}
		sel = ccaas_log_removed(old, info);
		if (IS_ERR(sel)) {
			err = PTR_ERR(sel);
			goto out;
		}
		if (!sel->n) {
			kfree(sel);
			sel = NULL;
		}
	}
	ccaas_logsel_replace(net, sel, &st);
	err = 0;
out:
	mutex_unlock(&cn->lock);
	if (err) {
		nlmsg_free(msg);
		return err;
	}
	return ccaas_log_reply_send(msg, hdr, info, &st);
}

static int ccaas_log_get_fill(struct sk_buff *msg,
			      const struct ccaas_logsel *sel,
			      const unsigned long *live,
			      const struct ccaas_logsel_stats *st)
{
	struct nlattr *nest;
	u32 i;

	if ((sel && sel->all && nla_put_flag(msg, CCAAS_A_LOG_ALL)) ||
	    nla_put_u32(msg, CCAAS_A_LOG_LOGGING, st->logging) ||
	    nla_put_u32(msg, CCAAS_A_LOG_OTHER_CCA, st->other_cca) ||
	    nla_put_u32(msg, CCAAS_A_LOG_MAX_COOKIES, CCAAS_LOG_MAX_COOKIES))
		return -EMSGSIZE;
	for (i = 0; sel && i < sel->n; i++) {
		nest = nla_nest_start(msg, CCAAS_A_LOG_ENTRY);
		if (!nest ||
		    nla_put_u64_64bit(msg, CCAAS_A_LOG_COOKIE, sel->cookies[i],
				      CCAAS_A_LOG_UNSPEC) ||
		    nla_put_u8(msg, CCAAS_A_LOG_LIVE, test_bit(i, live)))
			return -EMSGSIZE;
		nla_nest_end(msg, nest);
	}
	return 0;
}

int ccaas_nl_log_get_doit(struct sk_buff *skb, struct genl_info *info)
{
	struct net *net = genl_info_net(info);
	struct ccaas_net *cn = ccaas_net(net);
	struct ccaas_logsel_stats st = {};
	const struct ccaas_logsel *cur;
	struct ccaas_logsel *sel = NULL;
	unsigned long *live = NULL;
	struct sk_buff *msg;
	void *hdr;
	int err = -ENOMEM;

	/*
	 * A copy, so that the walk (any user may ask) holds neither the
	 * namespace's lock nor any socket's.
	 */
	mutex_lock(&cn->lock);
	cur = rcu_dereference_protected(cn->log.sel, lockdep_is_held(&cn->lock));
	if (cur)
		sel = kmemdup(cur, struct_size(cur, cookies, cur->n), GFP_KERNEL_ACCOUNT);
	mutex_unlock(&cn->lock);
	if (cur && !sel)
		return -ENOMEM;
	if (sel && sel->n) {
		live = bitmap_zalloc(sel->n, GFP_KERNEL_ACCOUNT);
		if (!live)
			goto out;
	}
	ccaas_logsel_count(net, sel, live, &st);
	/* An entry: nest, u64 cookie with padding, u8 live. */
	msg = genlmsg_new(NLMSG_DEFAULT_SIZE + (sel ? sel->n : 0) * 32,
			  GFP_KERNEL);
	if (!msg)
		goto out;
	hdr = genlmsg_put_reply(msg, info, &ccaas_family, 0, CCAAS_CMD_LOG_GET);
	if (!hdr || ccaas_log_get_fill(msg, sel, live, &st)) {
		nlmsg_free(msg);
		err = -EMSGSIZE;
		goto out;
	}
	genlmsg_end(msg, hdr);
	err = genlmsg_reply(msg, info);
out:
	bitmap_free(live);
	kfree(sel);
	return err;
}
