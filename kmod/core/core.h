/* SPDX-License-Identifier: GPL-2.0 */
/* Internal interfaces between the files of ccaas_core.ko. */
#ifndef _CCAAS_CORE_H
#define _CCAAS_CORE_H

#include <linux/mutex.h>
#include <linux/netlink.h>
#include <linux/skbuff.h>
#include <net/genetlink.h>
#include <net/net_namespace.h>

#include <ccaas/ccaas.h>

#include "scope.h"
#include "policy.h"

/**
 * struct ccaas_net - the core's state in one network namespace
 * @lock: serialises every change of this namespace's tables (readers use RCU)
 * @scope: the scope table (scope.c)
 * @policy: the policy store (policy.c)
 */
struct ccaas_net {
	struct mutex lock;
	struct ccaas_scope_state scope;
	struct ccaas_policy_state policy;
};

/* pernet.c */
struct ccaas_net *ccaas_net(const struct net *net);
int ccaas_pernet_init(void);
void ccaas_pernet_exit(void);

/* registry.c */
int ccaas_registry_fill(struct sk_buff *skb, const char *name,
			int (*fill)(struct sk_buff *skb,
				    const struct ccaas_cca *cca, void *arg),
			void *arg);
int ccaas_registry_dump(struct sk_buff *skb, long *pos,
			int (*fill)(struct sk_buff *skb,
				    const struct ccaas_cca *cca, void *arg),
			void *arg);

/* netlink.c */
extern struct genl_family ccaas_family;
int ccaas_netlink_init(void);
void ccaas_netlink_exit(void);

#endif /* _CCAAS_CORE_H */
