/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Bounded module parameters: a write outside [lo, hi] fails with -EINVAL
 * and leaves the old value in place. Pair each with MODULE_PARM_DESC().
 */
#ifndef _CCAAS_PARAM_H
#define _CCAAS_PARAM_H

#include <linux/moduleparam.h>

#define CCAAS_PARAM_UINT(name, var, lo, hi, perm)			\
	static int ccaas_param_set_##name(const char *val,		\
					  const struct kernel_param *kp) \
	{								\
		return param_set_uint_minmax(val, kp, lo, hi);		\
	}								\
	static const struct kernel_param_ops ccaas_param_ops_##name = {	\
		.set = ccaas_param_set_##name,				\
		.get = param_get_uint,					\
	};								\
	module_param_cb(name, &ccaas_param_ops_##name, &(var), perm)

#endif /* _CCAAS_PARAM_H */
