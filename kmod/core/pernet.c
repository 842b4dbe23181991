// SPDX-License-Identifier: GPL-2.0
/*
 * Per network namespace state of the core: each netns has its own scope
 * table and policy, so containers and test namespaces do not see each
 * other's configuration.
 */
#include <linux/module.h>
#include <net/net_namespace.h>
#include <net/netns/generic.h>

#include "core.h"

static unsigned int ccaas_net_id __read_mostly;

struct ccaas_net *ccaas_net(const struct net *net)
{
	return net_generic(net, ccaas_net_id);
}
EXPORT_SYMBOL_GPL(ccaas_net);

static int __net_init ccaas_net_init(struct net *net)
{
	struct ccaas_net *cn = ccaas_net(net);
	int err;

	mutex_init(&cn->lock);
	/* Charged to the creator's memory cgroup, as the namespace is. */
	cn->counters = alloc_percpu_gfp(struct ccaas_counters, GFP_KERNEL_ACCOUNT);
	if (!cn->counters)
		return -ENOMEM;
	err = ccaas_scope_net_init(cn);
	if (err)
		goto err_counters;
	err = ccaas_policy_net_init(cn);
	if (err)
		goto err_scope;
	return 0;

err_scope:
	ccaas_scope_net_exit(cn);
err_counters:
	free_percpu(cn->counters);
	return err;
}

static void __net_exit ccaas_net_exit(struct net *net)
{
	struct ccaas_net *cn = ccaas_net(net);

	ccaas_logsel_net_exit(cn);
	ccaas_policy_net_exit(cn);
	ccaas_scope_net_exit(cn);
	free_percpu(cn->counters);
}

static struct pernet_operations ccaas_net_ops = {
	.init = ccaas_net_init,
	.exit = ccaas_net_exit,
	.id = &ccaas_net_id,
	.size = sizeof(struct ccaas_net),
};

int __init ccaas_pernet_init(void)
{
	return register_pernet_subsys(&ccaas_net_ops);
}

void ccaas_pernet_exit(void)
{
	unregister_pernet_subsys(&ccaas_net_ops);
}
