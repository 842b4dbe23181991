/* SPDX-License-Identifier: GPL-2.0 */
/* Internal interfaces between the files of ccaas_core.ko. */
#ifndef _CCAAS_CORE_H
#define _CCAAS_CORE_H

#include <linux/netlink.h>
#include <linux/skbuff.h>
#include <net/genetlink.h>

#include <ccaas/ccaas.h>

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
int ccaas_netlink_init(void);
void ccaas_netlink_exit(void);

#endif /* _CCAAS_CORE_H */
