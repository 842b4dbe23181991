/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Which connections ccalog reports in a network namespace (logsel.c), and
 * the netlink commands that change and show it (log_nl.c).
 */
#ifndef _CCAAS_LOGSEL_H
#define _CCAAS_LOGSEL_H

#include <linux/rcupdate.h>
#include <linux/types.h>
#include <net/genetlink.h>

struct ccaas_net;
struct sock;
struct tcp_congestion_ops;

/* Cookies one namespace may select: logging is for a few connections. */
#define CCAAS_LOG_MAX_COOKIES	1024

/**
 * struct ccaas_logsel - an immutable selection, replaced as a whole
 * @rcu: freeing after readers are done
 * @all: every connection of the namespace
 * @n: entries in @cookies
 * @cookies: selected socket cookies, sorted ascending
 */
struct ccaas_logsel {
	struct rcu_head rcu;
	bool all;
	u32 n;
	u64 cookies[];
};

/* In struct ccaas_net; NULL when nothing is selected. */
struct ccaas_log_state {
	struct ccaas_logsel __rcu *sel;
};

/* What a change did to the namespace's live connections. */
struct ccaas_logsel_stats {
	u32 logging;	/* selected, on a ccaas CCA: reported from now on */
	u32 other_cca;	/* selected, but on a CCA without ccalog */
	u32 stopped;	/* reported before the change, no longer */
};

void ccaas_logsel_net_exit(struct ccaas_net *cn);
bool ccaas_logsel_wants(struct ccaas_net *cn, struct sock *sk, u64 *cookie);
bool ccaas_logsel_has(const struct ccaas_logsel *sel, u64 cookie);
long ccaas_logsel_find(const struct ccaas_logsel *sel, u64 cookie);
int ccaas_cookie_cmp(const void *a, const void *b);

/*
 * Under ccaas_net.lock: publish @sel (may be NULL) and apply it to live
 * sockets. Cannot fail.
 */
void ccaas_logsel_replace(struct net *net, struct ccaas_logsel *sel,
			  struct ccaas_logsel_stats *st);
/*
 * Change nothing: which of @sel's cookies are live connections of @net
 * (bit i of @live for cookies[i]; @live may be NULL when @sel has none)
 * and how many connections are logged. Locks no socket.
 */
void ccaas_logsel_count(struct net *net, const struct ccaas_logsel *sel,
			unsigned long *live, struct ccaas_logsel_stats *st);
bool ccaas_ops_logs(const struct tcp_congestion_ops *ops);

/* log_nl.c */
extern const struct nla_policy ccaas_log_nlpolicy[];
int ccaas_nl_log_add_doit(struct sk_buff *skb, struct genl_info *info);
int ccaas_nl_log_del_doit(struct sk_buff *skb, struct genl_info *info);
int ccaas_nl_log_get_doit(struct sk_buff *skb, struct genl_info *info);

/* ccalog.c */
void ccaas_log_emit_init(struct sock *sk, u64 cookie);

#endif /* _CCAAS_LOGSEL_H */
