// SPDX-License-Identifier: GPL-2.0
/*
 * The cgroups policy rules name.
 *
 * A rule's `cgroup PATH` must keep working across what happens to cgroups
 * on a real host: systemd makes a service's cgroup anew each time the
 * service starts (a new cgroup, with a new id), and ccaas.service applies
 * the policy at boot, before the services it names have started. So a rule
 * keeps the path, and this file keeps, for each path some rule names, the
 * id of the cgroup v2 at that path: looked up when a rule first names it,
 * and set again whenever a cgroup is made there (a probe on the cgroup_mkdir
 * tracepoint, which the kernel fires for every new cgroup). A lookup
 * compares the socket's ancestor at the path's depth with that id: one
 * load and one compare.
 *
 * A cgroup removed leaves the id as it was: the sockets still in it (they
 * keep it alive) stay matched, until a cgroup is made at the path again.
 * Before any cgroup has been at the path the id is 0, which no cgroup has:
 * the rule matches nothing.
 *
 * Paths are from the root of the initial cgroup namespace, as the host's
 * /sys/fs/cgroup shows them and the tracepoint reports them; a request
 * from a task in another cgroup namespace (whose paths would be from its
 * own root) is refused (policy_nl.c).
 *
 * The entries are shared by every rule and namespace naming the path, so a
 * rule costs one reference. The list is read under RCU by the probe and
 * changed under a spinlock: references are dropped from RCU callbacks too
 * (a generation retired), in softirq. The probe runs at every mkdir of the
 * host, interrupts off, and walks them all: their number is bounded
 * (CCAAS_CGROUPS_MAX), and only the host's administrator may name paths
 * (policy_nl.c).
 *
 * The probe is registered only while some rule names a path: a probe on
 * the tracepoint has the kernel format every new cgroup's path, under a
 * lock of its own. The first entry registers it before its lookup (so no
 * mkdir between the two is missed); the last one gone unregisters it from
 * a work item (references also go in softirq, and unregistering waits for
 * the probes running). ccaas_cgroup_probe_sync() does both, from the count
 * of entries, under a mutex: whatever order gets and puts come in, the
 * last sync leaves the probe as the list needs it. Every get syncs and
 * looks up, also of an entry already listed, whose maker may not have
 * yet. A `policy del` naming a path takes a reference too, for the time
 * of its request.
 */
#include <linux/cgroup.h>
#include <linux/mutex.h>
#include <linux/slab.h>
#include <linux/spinlock.h>
#include <linux/string.h>
#include <linux/stringify.h>
#include <linux/tracepoint.h>
#include <linux/workqueue.h>
#include <net/netlink.h>

#include "cgroup_bind.h"
#include "core.h"

static LIST_HEAD(ccaas_cgroups);
static DEFINE_SPINLOCK(ccaas_cgroups_lock);
/* Entries in the list: the probe walks them all, interrupts off. */
static unsigned int ccaas_cgroups_count;
static struct tracepoint *ccaas_mkdir_tp;
/* Whether the probe is registered, under ccaas_cgroup_probe_lock. */
static bool ccaas_mkdir_probed;
static DEFINE_MUTEX(ccaas_cgroup_probe_lock);

static void ccaas_cgroup_mkdir_probe(void *data, struct cgroup *cgrp,
				     const char *path);

/*
 * Register the mkdir probe if @want, else unregister it, unless it is so
 * already. Process context. Return: 0, or the registration's error.
 */
static int ccaas_cgroup_probe_set(bool want)
{
	int err = 0;

	mutex_lock(&ccaas_cgroup_probe_lock);
	if (want && !ccaas_mkdir_probed) {
		err = tracepoint_probe_register(ccaas_mkdir_tp,
						(void *)ccaas_cgroup_mkdir_probe,
						NULL);
		ccaas_mkdir_probed = !err;
		pr_debug("ccaas: cgroup_mkdir probe registered (%d)\n", err);
	} else if (!want && ccaas_mkdir_probed) {
		ccaas_tracepoint_detach(ccaas_mkdir_tp,
					(void *)ccaas_cgroup_mkdir_probe);
		ccaas_mkdir_probed = false;
		pr_debug("ccaas: cgroup_mkdir probe unregistered\n");
	}
	mutex_unlock(&ccaas_cgroup_probe_lock);
	return err;
}

/*
 * The probe as the list needs it: registered if some entry is listed,
 * unregistered if none is (read under the mutex, after every change the
 * caller made).
 */
static int ccaas_cgroup_probe_sync(void)
{
	return ccaas_cgroup_probe_set(READ_ONCE(ccaas_cgroups_count) > 0);
}

static void ccaas_cgroup_probe_work_fn(struct work_struct *work)
{
	ccaas_cgroup_probe_sync();
}

static DECLARE_WORK(ccaas_cgroup_probe_work, ccaas_cgroup_probe_work_fn);

/* The depth of @path, or 0 if it is not a path of cgroup names. */
static unsigned int ccaas_cgroup_path_level(const char *path)
{
	const char *p = path, *end;
	unsigned int level = 0;
	size_t len;

	if (!*path)
		return 0;
	for (;;) {
		end = strchrnul(p, '/');
		len = end - p;
		if (!len || (len == 1 && p[0] == '.') ||
		    (len == 2 && p[0] == '.' && p[1] == '.'))
			return 0;
		level++;
		if (!*end)
			return level;
		p = end + 1;
	}
}

/*
 * Bind @ent, still unbound, to the cgroup at its path now, if there is one.
 * Only if the probe has not bound it meanwhile: the cgroup found may be one
 * being removed, which the probe has already replaced by its successor.
 */
static void ccaas_cgroup_lookup(struct ccaas_cgroup *ent)
{
	struct cgroup *cg = cgroup_get_from_path(ent->path);

	if (IS_ERR(cg))
		return;
	if (cg->level == ent->level)
		cmpxchg(&ent->id, 0, cgroup_id(cg));
	cgroup_put(cg);
}

/*
 * @ent, listed, with the caller's reference: the probe registered, then
 * @ent bound to the cgroup at its path now. In that order, so that a
 * cgroup made meanwhile is not missed. Return: @ent, or an ERR_PTR (the
 * reference put) if the probe could not be registered.
 */
static struct ccaas_cgroup *ccaas_cgroup_follow(struct ccaas_cgroup *ent,
						struct netlink_ext_ack *extack)
{
	int err = ccaas_cgroup_probe_sync();

	if (err) {
		ccaas_cgroup_put(ent);
		NL_SET_ERR_MSG(extack, "cannot follow the cgroups made: no probe on cgroup_mkdir");
		return ERR_PTR(err);
	}
	ccaas_cgroup_lookup(ent);
	return ent;
}

struct ccaas_cgroup *ccaas_cgroup_get(const char *path,
				      struct netlink_ext_ack *extack)
{
	struct ccaas_cgroup *ent, *new;
	unsigned int level = ccaas_cgroup_path_level(path);
	size_t len = strlen(path);

	if (!level || level > U16_MAX) {
		NL_SET_ERR_MSG(extack,
			       "bad cgroup path: cgroup names separated by single '/', from the root (which is not one)");
		return ERR_PTR(-EINVAL);
	}
	new = kzalloc(struct_size(new, path, len + 1), GFP_KERNEL_ACCOUNT);
	if (!new)
		return ERR_PTR(-ENOMEM);
	refcount_set(&new->users, 1);
	new->level = level;
	memcpy(new->path, path, len + 1);

	spin_lock_irq(&ccaas_cgroups_lock);
	list_for_each_entry(ent, &ccaas_cgroups, node) {
		if (!strcmp(ent->path, path)) {
			refcount_inc(&ent->users);
			spin_unlock_irq(&ccaas_cgroups_lock);
			kfree(new);
			/*
			 * Its maker may not be through the two steps below
			 * yet (or failed the first): this caller's rule
			 * must not go in force before them.
			 */
			return ccaas_cgroup_follow(ent, extack);
		}
	}
	if (ccaas_cgroups_count >= CCAAS_CGROUPS_MAX) {
		spin_unlock_irq(&ccaas_cgroups_lock);
		kfree(new);
		NL_SET_ERR_MSG(extack, "too many cgroup paths in the rules of the host (at most "
			       __stringify(CCAAS_CGROUPS_MAX) ")");
		return ERR_PTR(-ENOSPC);
	}
	list_add_rcu(&new->node, &ccaas_cgroups);
	WRITE_ONCE(ccaas_cgroups_count, ccaas_cgroups_count + 1);
	spin_unlock_irq(&ccaas_cgroups_lock);
	return ccaas_cgroup_follow(new, extack);
}

void ccaas_cgroup_hold(struct ccaas_cgroup *cg)
{
	refcount_inc(&cg->users);
}

void ccaas_cgroup_put(struct ccaas_cgroup *cg)
{
	unsigned long flags;

	if (!cg)
		return;
	/* _irqsave: also from an RCU callback, whatever context runs those */
	if (!refcount_dec_and_lock_irqsave(&cg->users, &ccaas_cgroups_lock,
					   &flags))
		return;
	list_del_rcu(&cg->node);
	WRITE_ONCE(ccaas_cgroups_count, ccaas_cgroups_count - 1);
	if (!ccaas_cgroups_count)
		schedule_work(&ccaas_cgroup_probe_work);
	spin_unlock_irqrestore(&ccaas_cgroups_lock, flags);
	kfree_rcu(cg, rcu);
}

/*
 * A cgroup was made (any hierarchy): for a v2 one at a path some rule
 * names, that path's cgroup is this one now. Called with the kernel's
 * trace path lock held, interrupts off: no sleeping, no locks of ours.
 */
static void ccaas_cgroup_mkdir_probe(void *data, struct cgroup *cgrp,
				     const char *path)
{
	struct ccaas_cgroup *ent;

	if (cgrp->root != &cgrp_dfl_root)
		return;
	while (*path == '/')
		path++;
	rcu_read_lock();
	list_for_each_entry_rcu(ent, &ccaas_cgroups, node)
		if (ent->level == cgrp->level && !strcmp(ent->path, path))
			WRITE_ONCE(ent->id, cgroup_id(cgrp));
	rcu_read_unlock();
}

int __init ccaas_cgroup_bind_init(void)
{
	ccaas_mkdir_tp = ccaas_tracepoint_find("cgroup_mkdir");
	return ccaas_mkdir_tp ? 0 : -ENOENT;
}

void ccaas_cgroup_bind_exit(void)
{
	/* every rule is gone (the namespaces' exit freed them) */
	WARN_ON(!list_empty(&ccaas_cgroups));
	/*
	 * the last put's work, if still to run; then the probe goes whatever
	 * the count says (a reference leaked must not leave it to run code
	 * unloaded)
	 */
	flush_work(&ccaas_cgroup_probe_work);
	ccaas_cgroup_probe_set(false);
}
