/* SPDX-License-Identifier: GPL-2.0 */
/*
 * get_unaligned_be32() and friends, from where the target kernel keeps
 * them: <linux/unaligned.h> since 6.12, <asm/unaligned.h> before.
 */
#ifndef _CCAAS_COMPAT_UNALIGNED_H
#define _CCAAS_COMPAT_UNALIGNED_H

#ifdef CCAAS_HAVE_LINUX_UNALIGNED_H
#include <linux/unaligned.h>
#else
#include <asm/unaligned.h>
#endif

#endif /* _CCAAS_COMPAT_UNALIGNED_H */
