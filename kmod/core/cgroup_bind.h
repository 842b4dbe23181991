/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The cgroups policy rules name (cgroup_bind.c): a rule's `cgroup PATH`
 * keeps the path, and the id of the cgroup v2 that has that path now.
 */
#ifndef _CCAAS_CGROUP_BIND_H
#define _CCAAS_CGROUP_BIND_H

#include <linux/compiler.h>
#include <linux/list.h>
#include <linux/rcupdate.h>
#include <linux/refcount.h>
#include <linux/types.h>

struct netlink_ext_ack;

/* Longest cgroup path a rule takes, with its NUL (below the v2 root). */
#define CCAAS_CGROUP_PATH_MAX	256
/*
 * Distinct cgroup paths the rules of all namespaces may name: a host has
 * one per service it treats apart; the mkdir probe compares them all.
 */
#define CCAAS_CGROUPS_MAX	4096

/**
 * struct ccaas_cgroup - a cgroup path some rule names, shared by all rules
 *	and namespaces that name it
 * @node: in the list of them all (RCU, for the cgroup_mkdir probe)
 * @rcu: frees it a grace period after the last rule let go
 * @users: the rules (of drafts and generations, kept ones included)
 * @id: the id of the cgroup v2 at @path: of the cgroup made last there,
 *	or 0 while there has been none (no socket matches); set when a rule
 *	first names the path and whenever a cgroup is made at it, read with
 *	READ_ONCE()
 * @level: the depth of @path (1 for a cgroup of the root)
 * @path: below the v2 root of the initial cgroup namespace, no leading or
 *	trailing '/' ("system.slice/storage.service")
 */
struct ccaas_cgroup {
	struct list_head node;
	struct rcu_head rcu;
	refcount_t users;
	u64 id;
	u16 level;
	char path[];
};

/* The cgroup id @cg is bound to now, 0 for none (any context). */
static inline u64 ccaas_cgroup_id(const struct ccaas_cgroup *cg)
{
	return READ_ONCE(cg->id);
}

/*
 * The entry of @path (a reference the caller puts), made if no rule had it
 * and bound to the cgroup at @path if there is one; an ERR_PTR for a path
 * that is not one, explained in @extack. Process context.
 */
struct ccaas_cgroup *ccaas_cgroup_get(const char *path,
				      struct netlink_ext_ack *extack);
/* Another reference on @cg. */
void ccaas_cgroup_hold(struct ccaas_cgroup *cg);
/* Drop a reference (NULL is none); any context. */
void ccaas_cgroup_put(struct ccaas_cgroup *cg);

int ccaas_cgroup_bind_init(void);
void ccaas_cgroup_bind_exit(void);

#endif /* _CCAAS_CGROUP_BIND_H */
