// SPDX-License-Identifier: GPL-2.0-only
/*
 * ccactl: aligned text tables (table.h).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "ccactl.h"
#include "table.h"

struct table {
	unsigned int ncols, nrows, cap;
	char **cells;		/* (nrows + 1) * ncols; row 0 is the header */
};

struct table *table_new(unsigned int ncols, const char *const *headers)
{
	struct table *t = calloc(1, sizeof(*t));

	if (!t)
		return NULL;
	t->ncols = ncols;
	if (table_add(t, headers)) {
		free(t);
		return NULL;
	}
	return t;
}

int table_add(struct table *t, const char *const *cells)
{
	unsigned int i, row = t->nrows;

	if (row == t->cap) {
		unsigned int cap = t->cap ? 2 * t->cap : 8;
		char **p = realloc(t->cells, (size_t)cap * t->ncols * sizeof(*p));

		if (!p)
			return -ENOMEM;
		t->cells = p;
		t->cap = cap;
	}
	for (i = 0; i < t->ncols; i++) {
		char *s = strdup(cells[i] ? cells[i] : "-");

		if (!s) {
			while (i--)
				free(t->cells[row * t->ncols + i]);
			return -ENOMEM;
		}
		t->cells[row * t->ncols + i] = s;
	}
	t->nrows++;
	return 0;
}

void table_print(const struct table *t, FILE *f)
{
	unsigned int r, c;
	size_t *width = calloc(t->ncols, sizeof(*width));

	if (!width)
		return;
	for (r = 0; r < t->nrows; r++)
		for (c = 0; c < t->ncols; c++) {
			size_t len = strlen(t->cells[r * t->ncols + c]);

			if (len > width[c])
				width[c] = len;
		}
	for (r = 0; r < t->nrows; r++) {
		for (c = 0; c < t->ncols; c++) {
			const char *cell = t->cells[r * t->ncols + c];

			if (c + 1 == t->ncols)
				fprintf(f, "%s\n", cell);
			else
				fprintf(f, "%-*s  ", (int)width[c], cell);
		}
	}
	free(width);
}

void table_free(struct table *t)
{
	unsigned int i;

	if (!t)
		return;
	for (i = 0; i < t->nrows * t->ncols; i++)
		free(t->cells[i]);
	free(t->cells);
	free(t);
}

int table_nomem(struct table *t)
{
	table_free(t);
	fputs("ccactl: out of memory\n", stderr);
	return CCACTL_EXIT_KERNEL;
}
