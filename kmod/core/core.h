/* SPDX-License-Identifier: GPL-2.0 */
/* Internal interfaces between the files of ccaas_core.ko. */
#ifndef _CCAAS_CORE_H
#define _CCAAS_CORE_H

#include <linux/mutex.h>
#include <linux/netlink.h>
#include <linux/percpu.h>
#include <linux/skbuff.h>
#include <net/genetlink.h>
#include <net/net_namespace.h>

#include <ccaas/ccaas.h>

#include "scope.h"
#include "policy.h"
#include "logsel.h"

/* The namespace's event counters (stats.c), each a CCAAS_A_STATS_* u64. */
enum ccaas_counter {
	CCAAS_CNT_SELECTED,
	CCAAS_CNT_LISTENERS_SELECTED,
	CCAAS_CNT_MIGRATED,
	CCAAS_CNT_DRAINED,
	CCAAS_CNT_REFUSED,
	CCAAS_CNT_ERRORS,
	CCAAS_CNT_MIGRATIONS,
	CCAAS_CNT_DRAINS,
	__CCAAS_CNT_MAX,
};

struct ccaas_counters {
	u64 c[__CCAAS_CNT_MAX];
};

/**
 * struct ccaas_net - the core's state in one network namespace
 * @lock: serialises every change of this namespace's tables (readers use RCU)
 * @scope: the scope table (scope.c)
 * @policy: the policy store (policy.c)
 * @log: the ccalog selection (logsel.c)
 * @counters: per-CPU event counters, summed by STATS_GET (stats.c)
 */
struct ccaas_net {
	struct mutex lock;	/* see @lock above */
	struct ccaas_scope_state scope;
	struct ccaas_policy_state policy;
	struct ccaas_log_state log;
	struct ccaas_counters __percpu *counters;
};

/*
 * stats.c. ccaas_count() may run in any context (the selector runs in
 * softirq for passive connections): this_cpu_add() is safe against
 * interrupts, and a reader's sum is only ever a snapshot.
 */
static inline void ccaas_count(struct ccaas_net *cn, enum ccaas_counter c,
			       u64 n)
{
	this_cpu_add(cn->counters->c[c], n);
}

struct ccaas_migrate_stats;
void ccaas_count_pass(struct ccaas_net *cn, bool drain,
		      const struct ccaas_migrate_stats *st);
int ccaas_nl_stats_start(struct netlink_callback *cb);
int ccaas_nl_stats_dumpit(struct sk_buff *skb, struct netlink_callback *cb);
int ccaas_nl_stats_done(struct netlink_callback *cb);
extern const struct nla_policy ccaas_stats_nlpolicy[CCAAS_A_STATS_MAX + 1];

/* pernet.c */
struct ccaas_net *ccaas_net(const struct net *net);
int ccaas_pernet_init(void);
void ccaas_pernet_exit(void);

/*
 * A probe on a kernel tracepoint that is not exported (main.c): the
 * tracepoint found by @name among the kernel's (NULL if none, said in the
 * log); attach finds and registers, its tracepoint in *@tp; detached, no
 * probe runs any more when the call returns.
 */
struct tracepoint;
struct tracepoint *ccaas_tracepoint_find(const char *name);
int ccaas_tracepoint_attach(const char *name, void *probe,
			    struct tracepoint **tp);
void ccaas_tracepoint_detach(struct tracepoint *tp, void *probe);

/* registry.c */
int ccaas_registry_fill(struct sk_buff *skb, const char *name,
			int (*fill)(struct sk_buff *skb,
				    const struct ccaas_cca *cca, void *arg),
			void *arg);
int ccaas_registry_dump(struct sk_buff *skb, long *pos,
			int (*fill)(struct sk_buff *skb,
				    const struct ccaas_cca *cca, void *arg),
			void *arg);

/**
 * struct ccaas_cca_ref - a congestion control a policy rule names
 * @ops: its ops, with a reference on @ops->owner held by the ref
 * @cca: its ccaas registration, or NULL for a CCA not built on ccaas
 *	(in-tree cubic, dctcp, bbr, ...)
 */
struct ccaas_cca_ref {
	const struct tcp_congestion_ops *ops;
	const struct ccaas_cca *cca;
};

/* resolve.c */
int ccaas_cca_resolve(struct net *net, const char *name,
		      struct ccaas_cca_ref *ref, struct netlink_ext_ack *extack);
void ccaas_cca_ref_put(struct ccaas_cca_ref *ref);

/* ext.c */
int ccaas_ext_register(struct ccaas_cca *cca);
void ccaas_ext_unregister(struct ccaas_cca *cca);

/* registry.c */
bool ccaas_cca_can_take(const struct tcp_congestion_ops *from,
			const struct tcp_congestion_ops *to);
const struct ccaas_cca *ccaas_registry_by_ops(const struct tcp_congestion_ops *ops);
const struct tcp_congestion_ops *ccaas_registry_transitional(void);
int ccaas_cca_param_check(const struct ccaas_cca *cca, const char *name,
			  u32 value, const struct nlattr *attr,
			  struct netlink_ext_ack *extack);

/* netlink.c */
extern struct genl_family ccaas_family;
/* Index of the "monitor" group in ccaas_family.mcgrps. */
enum { CCAAS_MCGRP_MONITOR_ID };
int ccaas_netlink_init(void);
int ccaas_nl_cca_loaded(struct net *net, const char *name,
			const struct nlattr *attr, struct netlink_ext_ack *extack);
void ccaas_netlink_exit(void);
/* The monitor group: a generation committed, a pass's counts. */
struct ccaas_policy_head;
struct ccaas_migrate_stats;
void ccaas_notify_policy(struct net *net, const struct ccaas_policy_head *head);
void ccaas_notify_migrate(struct net *net,
			  const struct ccaas_migrate_stats *stats);
/* A reply to @info's command, to allocate before the change it tells. */
struct sk_buff *ccaas_nl_reply_new(struct genl_info *info, void **hdr);
/* Put a pass's counts (replies and notifications). */
int ccaas_migrate_put(struct sk_buff *skb, const struct ccaas_migrate_stats *st);

#endif /* _CCAAS_CORE_H */
