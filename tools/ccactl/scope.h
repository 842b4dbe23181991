/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * ccactl: the scope table's entries as ccactl holds them, shared by the
 * scope object (scope.c) and the diff of a load's dry run (scope_diff.c).
 */
#ifndef CCACTL_SCOPE_H
#define CCACTL_SCOPE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* One entry: a prefix and what it maps to. */
struct scope_entry {
	int family;			/* AF_INET or AF_INET6 */
	uint8_t addr[16];		/* network order; 4 bytes for AF_INET */
	uint8_t prefixlen;
	uint8_t locality;		/* enum ccaas_locality */
	uint32_t region, dc;
	bool has_region, has_dc;
	unsigned int line;		/* load: line of the file */
};

/* The table's size, from a dump's first message or a load's reply. */
struct scope_summary {
	uint32_t count, max_entries;
	uint64_t memory;
	bool valid;
};

struct scope_vec {
	struct scope_entry *v;
	size_t n, cap;
	struct scope_summary sum;
};

const char *scope_locality_name(unsigned int loc);
/* "a.b.c.d/len" or "x::/len" */
void scope_prefix_string(const struct scope_entry *e, char *buf, size_t len);
/* qsort order of the kernel's dump: IPv4 first, address, prefix length */
int scope_entry_cmp(const void *pa, const void *pb);
/* {"prefix", "locality", "region", "dc"}, as "scope show -j" prints it */
void scope_entry_print_json(const struct scope_entry *e);
/* The table in force, sorted (scope_entry_cmp); 0 or an exit code. */
int scope_fetch(struct scope_vec *vec);
/* "size" line and keys of a summary */
void scope_summary_print(const struct scope_summary *sum);

/*
 * After the kernel accepted a dry run of @want (sorted): the differences
 * from the table in force, and a summary (@sum: the kernel's reply).
 */
int scope_dry_run_report(const struct scope_vec *want,
			 const struct scope_summary *sum);

#endif /* CCACTL_SCOPE_H */
