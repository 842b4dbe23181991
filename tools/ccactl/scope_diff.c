// SPDX-License-Identifier: GPL-2.0-only
/*
 * ccactl: what "scope load FILE dry_run" would change, once the kernel has
 * checked FILE's table and committed nothing.
 *
 * The table in force is dumped and compared with the file's, entry by
 * entry in the order "scope show" lists them (IPv4 first, then address,
 * then prefix length). One line per difference, in the words of a load
 * file, every field given:
 *
 *   - PREFIX locality L region R dc D    in force, not in the file
 *   ~ PREFIX locality L region R dc D    in both, other values (the file's)
 *   + PREFIX locality L region R dc D    in the file only
 *
 * then "dry run: A added, R removed, C changed, U unchanged, N entries".
 * With -j one object:
 *   {"dry_run": true, "added": [E...], "removed": [E...], "changed": [E...],
 *    "unchanged": U, "count": N}
 * each E as "scope show -j" prints an entry ("changed": the new values);
 * with -s also "max_entries" and "memory" (the size the table would have).
 *
 * The dump is a second request: a change made by someone else between the
 * two shows up in the diff as if it had been there before.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ccactl.h"
#include "json.h"
#include "scope.h"

enum diff_op { DIFF_REMOVED, DIFF_CHANGED, DIFF_ADDED, DIFF_NOPS };

static const char diff_sign[DIFF_NOPS] = { '-', '~', '+' };
static const char *const diff_key[DIFF_NOPS] = { "removed", "changed", "added" };

/* Same prefix: do they map it to the same place? */
static bool same_values(const struct scope_entry *a, const struct scope_entry *b)
{
	return a->locality == b->locality && a->region == b->region &&
	       a->dc == b->dc;
}

/*
 * Walk both sorted tables together; each difference of kind @op goes to
 * @show (entry, op, data). Returns the number of unchanged entries.
 */
static size_t diff_walk(const struct scope_vec *cur, const struct scope_vec *want,
			void (*show)(const struct scope_entry *, enum diff_op, void *),
			void *data)
{
	size_t i = 0, j = 0, same = 0;
	int c;

	while (i < cur->n || j < want->n) {
		if (i == cur->n)
			c = 1;
		else if (j == want->n)
			c = -1;
		else
			c = scope_entry_cmp(&cur->v[i], &want->v[j]);
		if (c < 0) {
			show(&cur->v[i++], DIFF_REMOVED, data);
		} else if (c > 0) {
			show(&want->v[j++], DIFF_ADDED, data);
		} else {
			if (same_values(&cur->v[i], &want->v[j]))
				same++;
			else
				show(&want->v[j], DIFF_CHANGED, data);
			i++;
			j++;
		}
	}
	return same;
}

struct diff_count {
	size_t n[DIFF_NOPS];
	enum diff_op only;	/* JSON: the array being printed */
};

static void diff_count_one(const struct scope_entry *e, enum diff_op op, void *data)
{
	struct diff_count *dc = data;

	(void)e;
	dc->n[op]++;
}

static void diff_text_one(const struct scope_entry *e, enum diff_op op, void *data)
{
	char p[INET6_ADDRSTRLEN + 8];

	(void)data;
	scope_prefix_string(e, p, sizeof(p));
	printf("%c %s locality %s region %u dc %u\n", diff_sign[op], p,
	       scope_locality_name(e->locality), e->region, e->dc);
}

static void diff_json_one(const struct scope_entry *e, enum diff_op op, void *data)
{
	const struct diff_count *dc = data;

	if (op == dc->only)
		scope_entry_print_json(e);
}

int scope_dry_run_report(const struct scope_vec *want,
			 const struct scope_summary *sum)
{
	struct scope_vec cur = { 0 };
	struct diff_count dc = { .only = DIFF_ADDED };
	static const enum diff_op json_order[] = {
		DIFF_ADDED, DIFF_REMOVED, DIFF_CHANGED,
	};
	unsigned long long count;
	size_t same, k;
	int ret;

	ret = scope_fetch(&cur);
	if (ret)
		goto out;
	count = sum->valid ? sum->count : want->n;
	same = diff_walk(&cur, want, diff_count_one, &dc);

	print_begin(stdout, ccactl_opts.json, ccactl_opts.pretty);
	if (print_is_json()) {
		open_json_object(NULL);
		print_bool(PRINT_JSON, "dry_run", "%s", true);
		for (k = 0; k < ARRAY_SIZE(json_order); k++) {
			dc.only = json_order[k];
			open_json_array(diff_key[dc.only]);
			diff_walk(&cur, want, diff_json_one, &dc);
			close_json_array();
		}
		print_uint(PRINT_JSON, "unchanged", "%llu", same);
		print_uint(PRINT_JSON, "count", "%llu", count);
		if (ccactl_opts.stats && sum->valid) {
			print_uint(PRINT_JSON, "max_entries", "%llu", sum->max_entries);
			print_uint(PRINT_JSON, "memory", "%llu", sum->memory);
		}
		close_json_object();
	} else {
		diff_walk(&cur, want, diff_text_one, NULL);
		printf("dry run: %zu added, %zu removed, %zu changed, %zu unchanged, %llu entries\n",
		       dc.n[DIFF_ADDED], dc.n[DIFF_REMOVED], dc.n[DIFF_CHANGED], same, count);
		if (ccactl_opts.stats && sum->valid)
			scope_summary_print(sum);
	}
	print_end();
out:
	free(cur.v);
	return ret;
}
