// SPDX-License-Identifier: GPL-2.0
/*
 * ccaas_core: congestion control as a service.
 *
 * The core keeps the registry of ccaas CCA modules and speaks the "ccaas"
 * generic netlink family to ccactl. CCA modules depend on its symbols, so the
 * module loader refuses to unload the core while any CCA is registered.
 */
#include <linux/module.h>
#include <linux/string.h>
#include <linux/tracepoint.h>

#include "cgroup_bind.h"
#include "core.h"
#include "sock.h"

struct ccaas_tp_search {
	const char *name;
	struct tracepoint *tp;
};

static void ccaas_tp_match(struct tracepoint *tp, void *priv)
{
	struct ccaas_tp_search *search = priv;

	if (!strcmp(tp->name, search->name))
		search->tp = tp;
}

struct tracepoint *__init ccaas_tracepoint_find(const char *name)
{
	struct ccaas_tp_search search = { .name = name };

	for_each_kernel_tracepoint(ccaas_tp_match, &search);
	if (!search.tp)
		pr_err("ccaas: no %s tracepoint\n", name);
	return search.tp;
}

int __init ccaas_tracepoint_attach(const char *name, void *probe,
				   struct tracepoint **tp)
{
	*tp = ccaas_tracepoint_find(name);
	if (!*tp)
		return -ENOENT;
	return tracepoint_probe_register(*tp, probe, NULL);
}

void ccaas_tracepoint_detach(struct tracepoint *tp, void *probe)
{
	tracepoint_probe_unregister(tp, probe, NULL);
	/* No probe may still run when the module text goes away. */
	tracepoint_synchronize_unregister();
}

static int __init ccaas_core_init(void)
{
	int err;

	err = ccaas_cgroup_bind_init();
	if (err)
		return err;
	err = ccaas_pernet_init();
	if (err)
		goto err_cgroup;
	err = ccaas_netlink_init();
	if (err)
		goto err_pernet;
	err = ccaas_selector_init();
	if (err)
		goto err_netlink;

	pr_info("ccaas: core loaded (genetlink family %s v%d)\n",
		CCAAS_FAMILY_NAME, CCAAS_FAMILY_VERSION);
	return 0;

err_netlink:
	ccaas_netlink_exit();
err_pernet:
	ccaas_pernet_exit();
err_cgroup:
	ccaas_cgroup_bind_exit();
	return err;
}

static void __exit ccaas_core_exit(void)
{
	ccaas_selector_exit();
	ccaas_netlink_exit();
	/* after the namespaces' policies, which hold the cgroup paths */
	ccaas_pernet_exit();
	ccaas_cgroup_bind_exit();
}

module_init(ccaas_core_init);
module_exit(ccaas_core_exit);

MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("ccaas: congestion control as a service (core)");
/*
 * No MODULE_ALIAS_GENL_FAMILY: with it, any process asking for the family
 * by name (any ccactl call, ccaas-metrics' every minute, of any user) has
 * the kernel load the core, between `ccaas-service upgrade-core` unloading
 * the old one and loading the new one, or after an operator took ccaas out
 * of service. No netlink client loads it; what loads a CCA module loads
 * the core with it (ccaas-service, modprobe, TCP_CONGESTION with
 * CAP_NET_ADMIN).
 */
