// SPDX-License-Identifier: GPL-2.0
/*
 * The "ccaas" generic netlink family (include/uapi/linux/ccaas.yaml).
 *
 * Every operation has its own attribute policy, so the core validates input
 * strictly before a handler runs (header included: resv_start_op is 0);
 * handlers explain every rejection through extack.
 *
 * Who may do what (docs/netlink.md):
 * - reads (cca/scope/policy get, history, sock-get, log-get) are open to
 *   everyone, as `ss` and `ip route show` are; they cover the caller's
 *   network namespace only;
 * - changes carry GENL_UNS_ADMIN_PERM: CAP_NET_ADMIN in the user namespace
 *   that owns the request's network namespace, so a container manages its
 *   own namespace and no other. Everything a change allocates is charged
 *   to the caller's memory cgroup (__GFP_ACCOUNT) and bounded per namespace
 *   (scope_max_entries, CCAAS_POLICY_MAX_RULES x CCAAS_RULE_MAX_PARAMS x
 *   policy_history, CCAAS_LOG_MAX_COOKIES). A CCA it names is resolved
 *   with its credentials, as its own setsockopt() would: no module
 *   autoload (ccaas_nl_cca_loaded()), restricted CCAs only for the
 *   namespace's admin;
 * - the monitor group needs no capability: its events (a generation
 *   committed, a migration's counts) say nothing a read does not, and go
 *   to listeners in the namespace concerned only.
 */
#include <linux/capability.h>
#include <linux/cred.h>
#include <linux/module.h>
#include <linux/net.h>
#include <linux/tcp.h>
#include <net/genetlink.h>
#include <net/sock.h>

#include "core.h"
#include "sock.h"

/*
 * Is @name a congestion control the TCP stack has now? Asked without
 * loading a module: genl runs every handler with its cb_lock held for
 * reading, and a module whose init registers a genl family takes it for
 * writing, so a handler waiting for modprobe would wait for ever (and every
 * genl user of the host behind the waiting writer). The kernel's own
 * ctrl_getfamily() drops the lock around request_module(); a module cannot
 * (cb_lock is private to genetlink.c). So a request never loads a module:
 * the client loads a CCA first, as ccactl does with setsockopt() on a socket
 * of its own, which autoloads tcp_<name> for a caller with CAP_NET_ADMIN.
 *
 * The probe: setsockopt(TCP_CONGESTION) on a scratch socket of @net, with
 * the caller's credentials minus CAP_NET_ADMIN, which is what the stack
 * needs to call request_module(). It then only looks the name up: 0 (found,
 * unrestricted), -EPERM (found, restricted to CAP_NET_ADMIN) or -ENOENT.
 * Handlers probe before they resolve a name (resolve.c), with the caller's
 * own credentials; only a module unloaded between the two could still be
 * loaded again by the second.
 */
int ccaas_nl_cca_loaded(struct net *net, const char *name,
			const struct nlattr *attr, struct netlink_ext_ack *extack)
{
	const struct cred *old;
	struct socket *sock;
	struct cred *cred;
	int err;

	err = sock_create_kern(net, AF_INET, SOCK_STREAM, IPPROTO_TCP, &sock);
	if (err) {
		NL_SET_ERR_MSG(extack, "cannot create a socket to look the CCA up");
		return err;
	}
	cred = prepare_creds();
	if (!cred) {
		sock_release(sock);
		return -ENOMEM;
	}
	cap_lower(cred->cap_effective, CAP_NET_ADMIN);
	old = override_creds(cred);
	err = sock->ops->setsockopt(sock, SOL_TCP, TCP_CONGESTION,
				    KERNEL_SOCKPTR((char *)name), strlen(name));
	revert_creds(old);
	put_cred(cred);
	sock_release(sock);
	if (err != -ENOENT)
		return 0;	/* found, or an error resolving will report */
	NL_SET_ERR_MSG_ATTR(extack, attr,
			    "unknown congestion control: none loaded by that name (ccaas loads no module for a request)");
	return -ENOENT;
}

static const struct nla_policy ccaas_cca_get_policy[CCAAS_A_CCA_MAX + 1] = {
	[CCAAS_A_CCA_NAME] = { .type = NLA_NUL_STRING,
			       .len = CCAAS_CCA_NAME_MAX - 1 },
};

struct ccaas_fill_ctx {
	u32 portid;
	u32 seq;
	int flags;
};

/* The CCA's parameter schema and takeover list, as nests. */
static int ccaas_cca_fill_schema(struct sk_buff *skb,
				 const struct ccaas_cca *cca)
{
	struct nlattr *nest;
	unsigned int i;

	for (i = 0; i < cca->n_params; i++) {
		const struct ccaas_param_spec *p = &cca->params[i];

		nest = nla_nest_start(skb, CCAAS_A_CCA_PARAM);
		if (!nest ||
		    nla_put_string(skb, CCAAS_A_SPEC_NAME, p->name) ||
		    nla_put_u32(skb, CCAAS_A_SPEC_MINIMUM, p->min) ||
		    nla_put_u32(skb, CCAAS_A_SPEC_MAXIMUM, p->max) ||
		    nla_put_u32(skb, CCAAS_A_SPEC_DEFAULT, p->def) ||
		    (p->unit && nla_put_string(skb, CCAAS_A_SPEC_UNIT, p->unit)))
			return -EMSGSIZE;
		nla_nest_end(skb, nest);
	}
	for (i = 0; i < cca->n_takeover; i++) {
		const struct ccaas_takeover *t = &cca->takeover[i];

		nest = nla_nest_start(skb, CCAAS_A_CCA_TAKEOVER);
		if (!nest ||
		    nla_put_string(skb, CCAAS_A_TAKEOVER_NAME, t->name) ||
		    nla_put_u32(skb, CCAAS_A_TAKEOVER_MIN_VERSION, t->min_version))
			return -EMSGSIZE;
		nla_nest_end(skb, nest);
	}
	return 0;
}

static int ccaas_cca_fill(struct sk_buff *skb, const struct ccaas_cca *cca,
			  void *arg)
{
	const struct ccaas_fill_ctx *ctx = arg;
	const struct tcp_congestion_ops *ops = cca->ops;
	const char *owner = ops->owner ? module_name(ops->owner) : "kernel";
	void *hdr;

	hdr = genlmsg_put(skb, ctx->portid, ctx->seq, &ccaas_family,
			  ctx->flags, CCAAS_CMD_CCA_GET);
	if (!hdr)
		return -EMSGSIZE;

	if (nla_put_string(skb, CCAAS_A_CCA_NAME, ops->name) ||
	    nla_put_u32(skb, CCAAS_A_CCA_VERSION, cca->version) ||
	    nla_put_u32(skb, CCAAS_A_CCA_FEATURES, cca->features) ||
	    nla_put_string(skb, CCAAS_A_CCA_MODULE, owner) ||
	    nla_put_u32(skb, CCAAS_A_CCA_FLAGS, ops->flags) ||
	    nla_put_u32(skb, CCAAS_A_CCA_EXT_SIZE, cca->ext_size) ||
	    (cca->fallback_ops &&
	     nla_put_string(skb, CCAAS_A_CCA_FALLBACK, cca->fallback_ops->name)) ||
	    ccaas_cca_fill_schema(skb, cca)) {
		genlmsg_cancel(skb, hdr);
		return -EMSGSIZE;
	}
	genlmsg_end(skb, hdr);
	return 0;
}

static int ccaas_nl_cca_get_doit(struct sk_buff *skb, struct genl_info *info)
{
	struct ccaas_fill_ctx ctx = {
		.portid = info->snd_portid,
		.seq = info->snd_seq,
	};
	struct nlattr *attr;
	struct sk_buff *msg;
	int err;

	if (GENL_REQ_ATTR_CHECK(info, CCAAS_A_CCA_NAME))
		return -EINVAL;
	attr = info->attrs[CCAAS_A_CCA_NAME];

	msg = genlmsg_new(NLMSG_DEFAULT_SIZE, GFP_KERNEL);
	if (!msg)
		return -ENOMEM;

	err = ccaas_registry_fill(msg, nla_data(attr), ccaas_cca_fill, &ctx);
	if (err) {
		if (err == -ENOENT)
			NL_SET_ERR_MSG_ATTR(info->extack, attr,
					    "CCA not registered with ccaas");
		nlmsg_free(msg);
		return err;
	}
	return genlmsg_reply(msg, info);
}

static int ccaas_nl_cca_get_dumpit(struct sk_buff *skb,
				   struct netlink_callback *cb)
{
	struct ccaas_fill_ctx ctx = {
		.portid = NETLINK_CB(cb->skb).portid,
		.seq = cb->nlh->nlmsg_seq,
		.flags = NLM_F_MULTI,
	};

	return ccaas_registry_dump(skb, &cb->args[0], ccaas_cca_fill, &ctx);
}

static const struct genl_ops ccaas_ops[] = {
	{
		.cmd = CCAAS_CMD_CCA_GET,
		.doit = ccaas_nl_cca_get_doit,
		.dumpit = ccaas_nl_cca_get_dumpit,
		.policy = ccaas_cca_get_policy,
		.maxattr = CCAAS_A_CCA_MAX,
	},
	/* scope: handlers and policies in scope_nl.c */
	{
		.cmd = CCAAS_CMD_SCOPE_ADD,
		.doit = ccaas_nl_scope_add_doit,
		.policy = ccaas_scope_add_policy,
		.maxattr = CCAAS_A_SCOPE_MAX,
		.flags = GENL_UNS_ADMIN_PERM,
	},
	{
		.cmd = CCAAS_CMD_SCOPE_DEL,
		.doit = ccaas_nl_scope_del_doit,
		.policy = ccaas_scope_del_policy,
		.maxattr = CCAAS_A_SCOPE_MAX,
		.flags = GENL_UNS_ADMIN_PERM,
	},
	{
		.cmd = CCAAS_CMD_SCOPE_GET,
		.doit = ccaas_nl_scope_get_doit,
		.dumpit = ccaas_nl_scope_get_dumpit,
		.policy = ccaas_scope_get_policy,
		.maxattr = CCAAS_A_SCOPE_MAX,
	},
	{
		.cmd = CCAAS_CMD_SCOPE_FLUSH,
		.doit = ccaas_nl_scope_flush_doit,
		.policy = ccaas_scope_flush_policy,
		.maxattr = CCAAS_A_SCOPE_MAX,
		.flags = GENL_UNS_ADMIN_PERM,
	},
	{
		.cmd = CCAAS_CMD_SCOPE_LOAD,
		.doit = ccaas_nl_scope_load_doit,
		.policy = ccaas_scope_load_policy,
		.maxattr = CCAAS_A_SCOPE_MAX,
		.flags = GENL_UNS_ADMIN_PERM,
	},
	/* end scope */
	/* policy: handlers and policies in policy_nl.c */
	{
		.cmd = CCAAS_CMD_POLICY_SET,
		.doit = ccaas_nl_policy_set_doit,
		.policy = ccaas_policy_set_nlpolicy,
		.maxattr = CCAAS_A_POLICY_MAX,
		.flags = GENL_UNS_ADMIN_PERM,
	},
	{
		.cmd = CCAAS_CMD_POLICY_DEL,
		.doit = ccaas_nl_policy_del_doit,
		.policy = ccaas_policy_set_nlpolicy,
		.maxattr = CCAAS_A_POLICY_MAX,
		.flags = GENL_UNS_ADMIN_PERM,
	},
	{
		.cmd = CCAAS_CMD_POLICY_GET,
		.doit = ccaas_nl_policy_get_doit,
		.dumpit = ccaas_nl_policy_get_dumpit,
		.policy = ccaas_policy_get_nlpolicy,
		.maxattr = CCAAS_A_POLICY_MAX,
	},
	{
		.cmd = CCAAS_CMD_POLICY_HISTORY,
		.dumpit = ccaas_nl_policy_history_dumpit,
		.policy = ccaas_policy_history_nlpolicy,
		.maxattr = CCAAS_A_POLICY_MAX,
	},
	{
		.cmd = CCAAS_CMD_POLICY_ROLLBACK,
		.doit = ccaas_nl_policy_rollback_doit,
		.policy = ccaas_policy_rollback_nlpolicy,
		.maxattr = CCAAS_A_POLICY_MAX,
		.flags = GENL_UNS_ADMIN_PERM,
	},
	{
		.cmd = CCAAS_CMD_POLICY_APPLY,
		.doit = ccaas_nl_policy_apply_doit,
		.policy = ccaas_policy_apply_nlpolicy,
		.maxattr = CCAAS_A_POLICY_MAX,
		.flags = GENL_UNS_ADMIN_PERM,
	},
	/* end policy */
	{
		.cmd = CCAAS_CMD_MIGRATE,
		.doit = ccaas_nl_migrate_doit,
		.policy = ccaas_migrate_policy,
		.maxattr = CCAAS_A_MIGRATE_MAX,
		.flags = GENL_UNS_ADMIN_PERM,
	},
	{
		.cmd = CCAAS_CMD_CCA_DRAIN,
		.doit = ccaas_nl_cca_drain_doit,
		.policy = ccaas_migrate_policy,
		.maxattr = CCAAS_A_MIGRATE_MAX,
		.flags = GENL_UNS_ADMIN_PERM,
	},
	{
		.cmd = CCAAS_CMD_SOCK_GET,
		.dumpit = ccaas_nl_sock_get_dumpit,
		.policy = ccaas_sock_get_policy,
		.maxattr = CCAAS_A_SOCK_MAX,
	},
	{
		.cmd = CCAAS_CMD_LOG_ADD,
		.doit = ccaas_nl_log_add_doit,
		.policy = ccaas_log_nlpolicy,
		.maxattr = CCAAS_A_LOG_MAX,
		.flags = GENL_UNS_ADMIN_PERM,
	},
	{
		.cmd = CCAAS_CMD_LOG_DEL,
		.doit = ccaas_nl_log_del_doit,
		.policy = ccaas_log_nlpolicy,
		.maxattr = CCAAS_A_LOG_MAX,
		.flags = GENL_UNS_ADMIN_PERM,
	},
	{
		.cmd = CCAAS_CMD_LOG_GET,
		.doit = ccaas_nl_log_get_doit,
		.policy = ccaas_log_nlpolicy,
		.maxattr = CCAAS_A_LOG_MAX,
	},
	{
		.cmd = CCAAS_CMD_STATS_GET,
		.start = ccaas_nl_stats_start,
		.dumpit = ccaas_nl_stats_dumpit,
		.done = ccaas_nl_stats_done,
		.policy = ccaas_stats_nlpolicy,
		.maxattr = CCAAS_A_STATS_MAX,
	},
};

static const struct genl_multicast_group ccaas_mcgrps[] = {
	{ .name = CCAAS_MCGRP_MONITOR, },
};

struct genl_family ccaas_family __ro_after_init = {
	.name = CCAAS_FAMILY_NAME,
	.version = CCAAS_FAMILY_VERSION,
	.netnsok = true,
	.parallel_ops = true,
	.module = THIS_MODULE,
	.ops = ccaas_ops,
	.n_ops = ARRAY_SIZE(ccaas_ops),
	.mcgrps = ccaas_mcgrps,
	.n_mcgrps = ARRAY_SIZE(ccaas_mcgrps),
};

/* --- the monitor group: what changed ---------------------------------------- */

static const int ccaas_move_attr[__CCAAS_MOVE_MAX] = {
	[CCAAS_MOVE_MIGRATED] = CCAAS_A_MIGRATE_MIGRATED,
	[CCAAS_MOVE_UNCHANGED] = CCAAS_A_MIGRATE_UNCHANGED,
	[CCAAS_MOVE_REFUSED] = CCAAS_A_MIGRATE_REFUSED,
	[CCAAS_MOVE_SKIPPED_BPF] = CCAAS_A_MIGRATE_SKIPPED_BPF,
	[CCAAS_MOVE_SKIPPED_PINNED] = CCAAS_A_MIGRATE_SKIPPED_PINNED,
	[CCAAS_MOVE_NO_RULE] = CCAAS_A_MIGRATE_NO_RULE,
	[CCAAS_MOVE_ERROR] = CCAAS_A_MIGRATE_ERRORS,
	[CCAAS_MOVE_BUSY] = CCAAS_A_MIGRATE_BUSY,
};

int ccaas_migrate_put(struct sk_buff *skb, const struct ccaas_migrate_stats *st)
{
	int i;

	if (nla_put_u32(skb, CCAAS_A_MIGRATE_EXAMINED, st->examined) ||
	    nla_put_u32(skb, CCAAS_A_MIGRATE_LISTENERS, st->listeners) ||
	    nla_put_u32(skb, CCAAS_A_MIGRATE_GENERATION, st->generation))
		return -EMSGSIZE;
	for (i = 0; i < __CCAAS_MOVE_MAX; i++)
		if (ccaas_move_attr[i] &&
		    nla_put_u32(skb, ccaas_move_attr[i], st->count[i]))
			return -EMSGSIZE;
	return 0;
}

/*
 * A reply to @info's command, allocated before a change, so that a change
 * made is always told; *@hdr for genlmsg_end().
 */
struct sk_buff *ccaas_nl_reply_new(struct genl_info *info, void **hdr)
{
	struct sk_buff *msg = genlmsg_new(NLMSG_DEFAULT_SIZE, GFP_KERNEL);

	if (!msg)
		return NULL;
	*hdr = genlmsg_put_reply(msg, info, &ccaas_family, 0,
				 info->genlhdr->cmd);
	if (!*hdr) {
		nlmsg_free(msg);
		return NULL;
	}
	return msg;
}

/* A notification of @cmd for @net's monitor group, or NULL if none listens. */
static struct sk_buff *ccaas_notify_new(struct net *net, u8 cmd, void **hdr)
{
	struct sk_buff *msg;

	if (!genl_has_listeners(&ccaas_family, net, CCAAS_MCGRP_MONITOR_ID))
		return NULL;
	msg = genlmsg_new(NLMSG_DEFAULT_SIZE, GFP_KERNEL);
	if (!msg)
		return NULL;
	*hdr = genlmsg_put(msg, 0, 0, &ccaas_family, 0, cmd);
	if (!*hdr) {
		nlmsg_free(msg);
		return NULL;
	}
	return msg;
}

/* Send a filled notification (@err: filling it failed: drop it). */
static void ccaas_notify_send(struct net *net, struct sk_buff *msg, void *hdr,
			      int err)
{
	if (err) {
		nlmsg_free(msg);
		return;
	}
	genlmsg_end(msg, hdr);
	genlmsg_multicast_netns(&ccaas_family, net, msg, 0,
				CCAAS_MCGRP_MONITOR_ID, GFP_KERNEL);
}

void ccaas_notify_migrate(struct net *net, const struct ccaas_migrate_stats *st)
{
	struct sk_buff *msg;
	void *hdr;

	msg = ccaas_notify_new(net, CCAAS_CMD_MIGRATE_NTF, &hdr);
	if (msg)
		ccaas_notify_send(net, msg, hdr, ccaas_migrate_put(msg, st));
}

void ccaas_notify_policy(struct net *net, const struct ccaas_policy_head *head)
{
	struct sk_buff *msg;
	void *hdr;

	msg = ccaas_notify_new(net, CCAAS_CMD_POLICY_NTF, &hdr);
	if (msg)
		ccaas_notify_send(net, msg, hdr, ccaas_policy_fill_head(msg, head));
}

int __init ccaas_netlink_init(void)
{
	return genl_register_family(&ccaas_family);
}

void ccaas_netlink_exit(void)
{
	genl_unregister_family(&ccaas_family);
}
