// SPDX-License-Identifier: GPL-2.0
/*
 * Per-socket extension state: room for CCAs whose state does not fit the
 * 104-byte private area. Each such CCA gets a slab cache of its own,
 * created when it registers and destroyed when it unregisters (which the
 * module loader allows only once no socket uses the CCA, so no object is
 * left). The object's pointer is kept in the core's header at the start of
 * the private area (struct ccaas_sock), next to the policy's knobs.
 */
#include <linux/module.h>
#include <linux/slab.h>

#include <ccaas/sock.h>

#include "core.h"

/* Extension state beyond this would mean a design problem, not a CCA. */
#define CCAAS_EXT_MAX_SIZE	1024

int ccaas_ext_register(struct ccaas_cca *cca)
{
	BUILD_BUG_ON(offsetof(struct ccaas_sock, ext) + sizeof(void *) !=
		     sizeof(struct ccaas_sock));

	if (!cca->ext_size)
		return 0;
	if (cca->ext_size > CCAAS_EXT_MAX_SIZE)
		return -EINVAL;
	cca->ext_cache = kmem_cache_create(cca->ops->name, cca->ext_size, 0,
					   SLAB_ACCOUNT, NULL);
	return cca->ext_cache ? 0 : -ENOMEM;
}

void ccaas_ext_unregister(struct ccaas_cca *cca)
{
	kmem_cache_destroy(cca->ext_cache);
	cca->ext_cache = NULL;
}

/**
 * ccaas_ext_alloc - give @sk zeroed extension state of @cca
 * @sk: a socket on @cca, from the CCA's init()
 * @cca: the CCA, registered with an ext_size
 *
 * Runs where init() runs, softirq included: GFP_ATOMIC. A socket that
 * already has state keeps it (init() after a re-init reuses nothing: the
 * core frees through release() first).
 *
 * Return: the state, or NULL when memory is short; the CCA must then work
 * without it (e.g. behave like its fallback).
 */
void *ccaas_ext_alloc(struct sock *sk, const struct ccaas_cca *cca)
{
	struct ccaas_sock *cs = ccaas_sock(sk);

	if (!cs->ext && cca->ext_cache)
		cs->ext = kmem_cache_zalloc(cca->ext_cache, GFP_ATOMIC);
	return cs->ext;
}
EXPORT_SYMBOL_GPL(ccaas_ext_alloc);

/* NULL-safe and idempotent: release() may run without init(), or twice. */
void ccaas_ext_free(struct sock *sk, const struct ccaas_cca *cca)
{
	struct ccaas_sock *cs = ccaas_sock(sk);

	if (!cs->ext)
		return;
	kmem_cache_free(cca->ext_cache, cs->ext);
	cs->ext = NULL;
}
EXPORT_SYMBOL_GPL(ccaas_ext_free);
