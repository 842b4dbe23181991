// SPDX-License-Identifier: GPL-2.0
/*
 * Netlink for existing connections: MIGRATE, CCA_DRAIN and the SOCK_GET
 * dump. Their counts are announced to the monitor group too (netlink.c).
 */
#include <linux/cgroup.h>
#include <linux/module.h>
#include <net/genetlink.h>
#include <net/inet_hashtables.h>
#include <net/tcp.h>

#include <ccaas/sock.h>

#include "core.h"
#include "sock.h"

const struct nla_policy ccaas_migrate_policy[CCAAS_A_MIGRATE_MAX + 1] = {
	[CCAAS_A_MIGRATE_FORCE] = { .type = NLA_FLAG },
	[CCAAS_A_MIGRATE_CCA] = { .type = NLA_NUL_STRING,
				  .len = CCAAS_CCA_NAME_MAX - 1 },
	[CCAAS_A_MIGRATE_TO] = { .type = NLA_NUL_STRING,
				 .len = CCAAS_CCA_NAME_MAX - 1 },
};

/* SOCK_GET takes no attributes; the dump covers the caller's namespace. */
const struct nla_policy ccaas_sock_get_policy[CCAAS_A_SOCK_MAX + 1] = {
};

/*
 * After a pass, still under the lock (so the monitor group hears the
 * passes in the order they ran): announce the counts, and fill the reply
 * allocated before the pass, so a pass that ran is always told.
 */
static int ccaas_reply_migrate(struct genl_info *info, struct sk_buff *msg,
			       void *hdr, const struct ccaas_migrate_stats *st)
{
	ccaas_notify_migrate(genl_info_net(info), st);
	if (ccaas_migrate_put(msg, st)) {
		nlmsg_free(msg);
		return -EMSGSIZE;
	}
	genlmsg_end(msg, hdr);
	return 0;
}

int ccaas_nl_migrate_doit(struct sk_buff *skb, struct genl_info *info)
{
	struct net *net = genl_info_net(info);
	struct ccaas_net *cn = ccaas_net(net);
	struct ccaas_migrate_stats st;
	struct sk_buff *msg;
	void *hdr;
	int err;

	msg = ccaas_nl_reply_new(info, &hdr);
	if (!msg)
		return -ENOMEM;
	mutex_lock(&cn->lock);
	ccaas_migrate(net, nla_get_flag(info->attrs[CCAAS_A_MIGRATE_FORCE]), &st);
	err = ccaas_reply_migrate(info, msg, hdr, &st);
	mutex_unlock(&cn->lock);
	return err ?: genlmsg_reply(msg, info);
}

/*
 * The namespace's default CCA, if it is not @avoid; with a reference. A
 * BPF CCA there cannot take the drain's sockets: the drain is refused,
 * with a hint to name a target.
 */
static int ccaas_default_ops(struct net *net,
			     const struct tcp_congestion_ops *avoid,
			     struct ccaas_cca_ref *ref,
			     struct netlink_ext_ack *extack)
{
	const struct tcp_congestion_ops *def;
	char name[TCP_CA_NAME_MAX];
	bool bpf;

	rcu_read_lock();
	def = rcu_dereference(net->ipv4.tcp_congestion_control);
	strscpy(name, def->name, sizeof(name));
	bpf = ccaas_ops_bpf(def);
	rcu_read_unlock();
	if (bpf) {
		NL_SET_ERR_MSG(extack,
			       "the namespace default is a BPF CCA: name a target with 'to'");
		return -EOPNOTSUPP;
	}
	/* The default holds a module reference; it may change meanwhile. */
	if (ccaas_nl_cca_loaded(net, name, NULL, extack) ||
	    ccaas_cca_resolve(net, name, ref, extack))
		return -ENOENT;
	if (ccaas_ops_on_cca(ref->ops, avoid)) {
		ccaas_cca_ref_put(ref);
		NL_SET_ERR_MSG(extack,
			       "the CCA drained is the namespace default: name a target with 'to'");
		return -EINVAL;
	}
	return 0;
}

int ccaas_nl_cca_drain_doit(struct sk_buff *skb, struct genl_info *info)
{
	struct net *net = genl_info_net(info);
	struct ccaas_net *cn = ccaas_net(net);
	struct ccaas_cca_ref from = {}, to = {}, def = {};
	struct ccaas_migrate_stats st;
	struct nlattr **tb = info->attrs;
	struct sk_buff *msg;
	void *hdr;
	int err;

	if (GENL_REQ_ATTR_CHECK(info, CCAAS_A_MIGRATE_CCA))
		return -EINVAL;
	/* A request loads no module (ccaas_nl_cca_loaded()). */
	err = ccaas_nl_cca_loaded(net, nla_data(tb[CCAAS_A_MIGRATE_CCA]),
				  tb[CCAAS_A_MIGRATE_CCA], info->extack);
	if (!err && tb[CCAAS_A_MIGRATE_TO])
		err = ccaas_nl_cca_loaded(net, nla_data(tb[CCAAS_A_MIGRATE_TO]),
					  tb[CCAAS_A_MIGRATE_TO], info->extack);
	if (err)
		return err;
	err = ccaas_cca_resolve(net, nla_data(tb[CCAAS_A_MIGRATE_CCA]), &from,
				info->extack);
	if (err) {
		NL_SET_BAD_ATTR(info->extack, tb[CCAAS_A_MIGRATE_CCA]);
		return err;
	}
	if (tb[CCAAS_A_MIGRATE_TO]) {
		err = ccaas_cca_resolve(net, nla_data(tb[CCAAS_A_MIGRATE_TO]),
					&to, info->extack);
		if (err) {
			NL_SET_BAD_ATTR(info->extack, tb[CCAAS_A_MIGRATE_TO]);
			goto out;
		}
		if (ccaas_ops_on_cca(to.ops, from.ops)) {
			NL_SET_ERR_MSG_ATTR(info->extack, tb[CCAAS_A_MIGRATE_TO],
					    "cannot drain a CCA into itself");
			err = -EINVAL;
			goto out;
		}
	} else {
		err = ccaas_default_ops(net, from.ops, &def, info->extack);
		if (err)
			goto out;
	}

	msg = ccaas_nl_reply_new(info, &hdr);
	if (!msg) {
		err = -ENOMEM;
		goto out;
	}
	mutex_lock(&cn->lock);
	ccaas_drain(net, from.ops, to.ops, def.ops,
		    nla_get_flag(tb[CCAAS_A_MIGRATE_FORCE]), &st);
	err = ccaas_reply_migrate(info, msg, hdr, &st);
	mutex_unlock(&cn->lock);
	if (!err)
		err = genlmsg_reply(msg, info);
out:
	ccaas_cca_ref_put(&def);
	ccaas_cca_ref_put(&to);
	ccaas_cca_ref_put(&from);
	return err;
}

/* --- SOCK_GET: a snapshot of the namespace's established sockets --------- */

static int ccaas_put_addr(struct sk_buff *skb, int type, const struct sock *sk,
			  bool remote)
{
#if IS_ENABLED(CONFIG_IPV6)
	if (sk->sk_family == AF_INET6)
		return nla_put_in6_addr(skb, type, remote ? &sk->sk_v6_daddr :
					&sk->sk_v6_rcv_saddr);
#endif
	return nla_put_in_addr(skb, type, remote ? sk->sk_daddr :
			       sk->sk_rcv_saddr);
}

/* The id of @sk's cgroup v2, which a cgroup match compares. */
static int ccaas_put_cgroup(struct sk_buff *skb, struct sock *sk)
{
#ifdef CONFIG_SOCK_CGROUP_DATA
	struct cgroup *cg = sock_cgroup_ptr(&sk->sk_cgrp_data);

	if (cg)
		return nla_put_u64_64bit(skb, CCAAS_A_SOCK_CGROUP_ID,
					 cgroup_id(cg), CCAAS_A_SOCK_UNSPEC);
#endif
	return 0;
}

/* Called under the bucket lock and RCU: no sleeping, socket not locked. */
static int ccaas_sock_fill(struct sk_buff *skb, struct netlink_callback *cb,
			   struct sock *sk, struct ccaas_net *cn)
{
	const struct tcp_congestion_ops *ops = READ_ONCE(inet_csk(sk)->icsk_ca_ops);
	struct ccaas_policy_gen *gen = ccaas_policy_current(cn);
	u32 generation = ccaas_sk_generation(sk);
	struct ccaas_scope_result scope;
	const struct ccaas_rule *rule;
	bool logged;
	void *hdr;

	ccaas_sk_scope(cn, sk, &scope);
	rule = ccaas_policy_match(gen, &scope, sk);
	logged = ccaas_ops_logs(ops) &&
		 /* unlocked like the rest: a racing change may or may not show */
		 data_race(ccaas_sock(sk)->logged != 0);

	hdr = genlmsg_put(skb, NETLINK_CB(cb->skb).portid, cb->nlh->nlmsg_seq,
			  &ccaas_family, NLM_F_MULTI, CCAAS_CMD_SOCK_GET);
	if (!hdr)
		return -EMSGSIZE;
	if (nla_put_u64_64bit(skb, CCAAS_A_SOCK_COOKIE, ccaas_sk_cookie(sk),
			      CCAAS_A_SOCK_UNSPEC) ||
	    nla_put_u8(skb, CCAAS_A_SOCK_FAMILY, sk->sk_family) ||
	    ccaas_put_addr(skb, CCAAS_A_SOCK_SADDR, sk, false) ||
	    ccaas_put_addr(skb, CCAAS_A_SOCK_DADDR, sk, true) ||
	    nla_put_u16(skb, CCAAS_A_SOCK_SPORT, ntohs(inet_sk(sk)->inet_sport)) ||
	    nla_put_u16(skb, CCAAS_A_SOCK_DPORT, ntohs(sk->sk_dport)) ||
	    nla_put_string(skb, CCAAS_A_SOCK_CCA, ops->name) ||
	    (rule && nla_put_string(skb, CCAAS_A_SOCK_POLICY_CCA,
				    rule->cca.ops->name)) ||
	    (generation && nla_put_u32(skb, CCAAS_A_SOCK_GENERATION, generation)) ||
	    nla_put_u8(skb, CCAAS_A_SOCK_LOCALITY, scope.locality) ||
	    nla_put_u32(skb, CCAAS_A_SOCK_REGION, scope.region) ||
	    nla_put_u32(skb, CCAAS_A_SOCK_DC, scope.dc) ||
	    nla_put_u8(skb, CCAAS_A_SOCK_ECN,
		       ccaas_tcp_ecn_ok(tcp_sk(sk))) ||
	    nla_put_u8(skb, CCAAS_A_SOCK_ECN_MODE,
		       ccaas_tcp_ecn_mode(tcp_sk(sk))) ||
	    nla_put_u8(skb, CCAAS_A_SOCK_PINNED, ccaas_sk_pinned(sk)) ||
	    nla_put_u32(skb, CCAAS_A_SOCK_MIN_RTO_US,
			jiffies_to_usecs(READ_ONCE(inet_csk(sk)->icsk_rto_min))) ||
	    nla_put_u8(skb, CCAAS_A_SOCK_LOGGED, logged) ||
	    (rule && nla_put_u32(skb, CCAAS_A_SOCK_RULE, rule - gen->rules)) ||
	    nla_put_u16(skb, CCAAS_A_SOCK_SERVER_PORT,
			ccaas_sk_server_port(sk, CCAAS_SIDE_GUESS)) ||
	    ccaas_put_cgroup(skb, sk)) {
		genlmsg_cancel(skb, hdr);
		return -EMSGSIZE;
	}
	genlmsg_end(skb, hdr);
	return 0;
}

/* cb->args[0]: bucket, cb->args[1]: sockets of that bucket already sent. */
int ccaas_nl_sock_get_dumpit(struct sk_buff *skb, struct netlink_callback *cb)
{
	struct net *net = sock_net(skb->sk);
	struct inet_hashinfo *hinfo = net->ipv4.tcp_death_row.hashinfo;
	struct ccaas_net *cn = ccaas_net(net);
	struct hlist_nulls_node *node;
	unsigned long bucket;
	int err = 0;

	for (bucket = cb->args[0]; bucket <= hinfo->ehash_mask; bucket++) {
		struct inet_ehash_bucket *head = &hinfo->ehash[bucket];
		spinlock_t *lock = inet_ehash_lockp(hinfo, bucket);
		long n = 0;
		struct sock *sk;

		if (hlist_nulls_empty(&head->chain))
			continue;
		spin_lock_bh(lock);
		rcu_read_lock();
		sk_nulls_for_each(sk, node, &head->chain) {
			if (!net_eq(sock_net(sk), net) ||
			    !((1 << sk->sk_state) & CCAAS_CONN_STATES))
				continue;
			if (n++ < cb->args[1])
				continue;
			err = ccaas_sock_fill(skb, cb, sk, cn);
			if (err)
				break;
			cb->args[1] = n;
		}
		rcu_read_unlock();
		spin_unlock_bh(lock);
		if (err)
			break;
		cb->args[1] = 0;
	}
	cb->args[0] = bucket;
	if (err == -EMSGSIZE && skb->len)
		err = 0;
	return err ?: skb->len;
}
