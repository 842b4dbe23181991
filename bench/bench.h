/* SPDX-License-Identifier: GPL-2.0 */
/* Shared between the files of ccaas_bench.ko. */
#ifndef _CCAAS_BENCH_H
#define _CCAAS_BENCH_H

#include <linux/compiler.h>
#include <linux/types.h>

struct dentry;

/* Append to @buf (PAGE_SIZE bytes), @off bytes of which are used. */
__printf(3, 4)
void bench_out(char *buf, size_t *off, const char *fmt, ...);

/* perack.c: the debugfs file "perack" in @dir */
int bench_perack_init(struct dentry *dir);
void bench_perack_exit(void);

#endif /* _CCAAS_BENCH_H */
