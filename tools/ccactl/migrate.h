/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * ccactl: the counts of a migration pass (CCAAS_A_MIGRATE_*), shared by
 * "migrate", "cca drain" and "monitor".
 */
#ifndef CCACTL_MIGRATE_H
#define CCACTL_MIGRATE_H

#include <stdbool.h>
#include <stdint.h>
#include <libmnl/libmnl.h>

/* The counts, in the order they are printed (generation first). */
enum {
	MC_GENERATION,
	MC_EXAMINED,
	MC_MIGRATED,
	MC_UNCHANGED,
	MC_REFUSED,
	MC_SKIPPED_BPF,
	MC_SKIPPED_PINNED,
	MC_NO_RULE,
	MC_ERRORS,
	MC_LISTENERS,
	MC_BUSY,
	MC_COUNT
};

struct migrate_counts {
	uint32_t v[MC_COUNT];
	bool has[MC_COUNT];	/* the kernel sent it */
};

/* A reply or notification with CCAAS_A_MIGRATE_* attributes: 0 or -EBADMSG. */
int migrate_parse(const struct nlmsghdr *nlh, struct migrate_counts *mc);

/*
 * Print the counts into the current JSON object (snake_case keys), or in
 * text as "generation 3: 12 examined, 5 migrated, ..." without a newline.
 * Counts the kernel did not send are left out of JSON and "-" in text.
 */
void migrate_print(const struct migrate_counts *mc);

/*
 * Run a request started with ccaas_msg() whose reply is one message of
 * counts (CCAAS_CMD_MIGRATE, CCAAS_CMD_CCA_DRAIN) and print the counts as
 * a JSON object or a text line.  Returns an exit code.
 */
int migrate_request(struct nlmsghdr *req);

#endif /* CCACTL_MIGRATE_H */
