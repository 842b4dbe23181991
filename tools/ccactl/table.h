/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * ccactl: aligned text tables — collect rows, then print them with each
 * column as wide as its widest cell (the last column is not padded).
 */
#ifndef CCACTL_TABLE_H
#define CCACTL_TABLE_H

#include <stdio.h>

struct table;

struct table *table_new(unsigned int ncols, const char *const *headers);
/* Copies the @ncols cells; NULL cells print as "-".  0 or -ENOMEM. */
int table_add(struct table *t, const char *const *cells);
void table_print(const struct table *t, FILE *f);
void table_free(struct table *t);
/* Free @t after a failed allocation, say so; the exit code to return. */
int table_nomem(struct table *t);

#endif /* CCACTL_TABLE_H */
