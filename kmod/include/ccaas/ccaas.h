/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ccaas core API for CCA modules.
 *
 * A CCA module fills a struct ccaas_cca and calls ccaas_cca_register(): the
 * core registers the tcp_congestion_ops with the TCP stack and lists the CCA
 * (version, features) to userspace through the "ccaas" genetlink family.
 * Because the CCA module then uses a symbol of ccaas_core, the core cannot be
 * unloaded while any CCA is registered.
 */
#ifndef _CCAAS_CCAAS_H
#define _CCAAS_CCAAS_H

#include <linux/list.h>
#include <linux/types.h>
#include <net/tcp.h>
#include <uapi/linux/ccaas.h>

/**
 * struct ccaas_param_spec - one tunable of a CCA, settable per policy rule
 * @name: parameter name, as in `ccactl policy set ... param NAME=VALUE`
 * @min: smallest accepted value
 * @max: largest accepted value
 * @def: value when a rule does not set it (usually the module parameter)
 * @unit: unit of the value, for `ccactl cca show`
 */
struct ccaas_param_spec {
	const char *name;
	u32 min;
	u32 max;
	u32 def;
	const char *unit;
};

/**
 * struct ccaas_takeover - a CCA this one may take sockets over from
 * @name: that CCA's name
 * @min_version: its oldest version whose sockets this CCA can continue
 */
struct ccaas_takeover {
	const char *name;
	u32 min_version;
};

/**
 * struct ccaas_cca - a CCA as the core knows it
 * @ops: the congestion control operations; @ops->name is the CCA's name
 * @fallback_ops: optional ops the CCA moves a socket to by itself (from the
 *	same module, e.g. Reno when ECN was not negotiated); a socket on them
 *	still counts as being on this CCA
 * @version: CCAAS_VERSION(major, minor, patch)
 * @features: enum ccaas_cca_feature bits
 * @params: the CCA's parameter schema, @n_params entries
 * @takeover: CCAs it may take sockets over from, @n_takeover entries; none
 *	means any (subject to the ECN rules)
 * @ext_size: bytes of per-socket extension state (see ccaas_ext_alloc()),
 *	0 if the private area is enough
 * @ext_cache: the core's slab cache for the extension state
 * @node: core-private list linkage
 */
struct ccaas_cca {
	struct tcp_congestion_ops *ops;
	struct tcp_congestion_ops *fallback_ops;
	u32 version;
	u32 features;
	const struct ccaas_param_spec *params;
	unsigned int n_params;
	const struct ccaas_takeover *takeover;
	unsigned int n_takeover;
	unsigned int ext_size;
	struct kmem_cache *ext_cache;
	struct list_head node;
};

int ccaas_cca_register(struct ccaas_cca *cca);
void ccaas_cca_unregister(struct ccaas_cca *cca);

/*
 * Per-socket extension state, for CCAs whose state does not fit the
 * private area: allocate in init() (any context: passive opens run it in
 * softirq, so GFP_ATOMIC), free in release(). The pointer lives in the
 * core's header (struct ccaas_sock). Freeing is NULL-safe and idempotent:
 * release() can run without init() and twice after tcp_disconnect().
 */
void *ccaas_ext_alloc(struct sock *sk, const struct ccaas_cca *cca);
void ccaas_ext_free(struct sock *sk, const struct ccaas_cca *cca);

/* For in-kernel tests: the registered CCA called @name, or NULL. */
const struct ccaas_cca *ccaas_cca_lookup(const char *name);

#endif /* _CCAAS_CCAAS_H */
