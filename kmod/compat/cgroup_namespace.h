/* SPDX-License-Identifier: GPL-2.0 */
/*
 * struct cgroup_namespace, from where the target kernel defines it: its
 * own <linux/cgroup_namespace.h> on newer kernels, <linux/cgroup.h> before.
 */
#ifndef _CCAAS_COMPAT_CGROUP_NAMESPACE_H
#define _CCAAS_COMPAT_CGROUP_NAMESPACE_H

#include <linux/cgroup.h>
#ifdef CCAAS_HAVE_LINUX_CGROUP_NAMESPACE_H
#include <linux/cgroup_namespace.h>
#endif

#endif /* _CCAAS_COMPAT_CGROUP_NAMESPACE_H */
