// SPDX-License-Identifier: GPL-2.0-only
/*
 * ccactl: the "migrate" object — re-apply the current policy to the
 * namespace's established connections.
 *   ccactl migrate [force]     CCAAS_CMD_MIGRATE, force sets CCAAS_A_MIGRATE_FORCE
 * Also the counts of a migration pass (migrate.h), which "cca drain" and
 * "monitor" print the same way.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <linux/ccaas.h>
#include <linux/genetlink.h>

#include "ccactl.h"
#include "family.h"
#include "json.h"
#include "migrate.h"
#include "objects.h"

static const struct {
	int attr;
	const char *key;	/* JSON */
	const char *label;	/* text, after the number */
} counts[MC_COUNT] = {
	[MC_GENERATION]		= { CCAAS_A_MIGRATE_GENERATION,	"generation", NULL },
	[MC_EXAMINED]		= { CCAAS_A_MIGRATE_EXAMINED,	"examined", "examined" },
	[MC_MIGRATED]		= { CCAAS_A_MIGRATE_MIGRATED,	"migrated", "migrated" },
	[MC_UNCHANGED]		= { CCAAS_A_MIGRATE_UNCHANGED,	"unchanged", "unchanged" },
	[MC_REFUSED]		= { CCAAS_A_MIGRATE_REFUSED,	"refused", "refused (ECN)" },
	[MC_SKIPPED_BPF]	= { CCAAS_A_MIGRATE_SKIPPED_BPF, "skipped_bpf", "bpf" },
	[MC_SKIPPED_PINNED]	= { CCAAS_A_MIGRATE_SKIPPED_PINNED, "skipped_pinned", "pinned" },
	[MC_NO_RULE]		= { CCAAS_A_MIGRATE_NO_RULE,	"no_rule", "no rule" },
	[MC_ERRORS]		= { CCAAS_A_MIGRATE_ERRORS,	"errors", "errors" },
	[MC_LISTENERS]		= { CCAAS_A_MIGRATE_LISTENERS,	"listeners", "listening" },
	[MC_BUSY]		= { CCAAS_A_MIGRATE_BUSY,	"busy", "busy (locked by a task)" },
};

int migrate_parse(const struct nlmsghdr *nlh, struct migrate_counts *mc)
{
	const struct nlattr *a;
	unsigned int i;

	*mc = (struct migrate_counts){ .has = { false } };
	mnl_attr_for_each(a, nlh, sizeof(struct genlmsghdr)) {
		for (i = 0; i < MC_COUNT; i++)
			if (mnl_attr_get_type(a) == counts[i].attr)
				break;
		if (i == MC_COUNT)
			continue;	/* request attributes, or newer ones */
		if (mnl_attr_validate(a, MNL_TYPE_U32) < 0)
			return -EBADMSG;
		mc->v[i] = mnl_attr_get_u32(a);
		mc->has[i] = true;
	}
	return 0;
}

void migrate_print(const struct migrate_counts *mc)
{
	unsigned int i;

	if (mc->has[MC_GENERATION])
		print_uint(PRINT_ANY, counts[MC_GENERATION].key, "generation %llu:",
			   mc->v[MC_GENERATION]);
	else
		print_text("generation -:");
	for (i = MC_GENERATION + 1; i < MC_COUNT; i++) {
		print_text("%s", i == MC_GENERATION + 1 ? " " : ", ");
		if (mc->has[i])
			print_uint(PRINT_ANY, counts[i].key, "%llu", mc->v[i]);
		else
			print_text("-");
		print_text(" %s", counts[i].label);
	}
}

struct migrate_reply {
	struct migrate_counts mc;
	unsigned int n;
};

static int migrate_reply_cb(const struct nlmsghdr *nlh, void *data)
{
	struct migrate_reply *r = data;

	if (r->n++)
		return -EBADMSG;	/* one request, several answers */
	return migrate_parse(nlh, &r->mc);
}

int migrate_request(struct nlmsghdr *req)
{
	struct migrate_reply r = { .n = 0 };
	int ret;

	ret = ccaas_request(req, migrate_reply_cb, &r);
	if (ret)
		return ret;
	if (!r.n) {
		fputs("Error: the kernel answered without counts\n", stderr);
		return CCACTL_EXIT_KERNEL;
	}
	print_begin(stdout, ccactl_opts.json, ccactl_opts.pretty);
	open_json_object(NULL);
	migrate_print(&r.mc);
	close_json_object();
	print_text("\n");
	print_end();
	return CCACTL_EXIT_OK;
}

static int migrate_run(int argc, char **argv)
{
	static const char *const words[] = { "force" };
	char buf[NL_SEND_BUFSZ];
	struct nlmsghdr *nlh;
	bool force = false;
	int i, ret;

	for (i = 0; i < argc; i++) {
		if (find_word(argv[i], words, ARRAY_SIZE(words), "migrate argument") < 0) {
			fputs("Try \"ccactl migrate help\".\n", stderr);
			return CCACTL_EXIT_USAGE;
		}
		if (force)
			return usage_error("migrate: \"force\" given twice");
		force = true;
	}

	ret = ccaas_msg(buf, CCAAS_CMD_MIGRATE, 0, &nlh);
	if (ret)
		return ret;
	if (force)
		mnl_attr_put(nlh, CCAAS_A_MIGRATE_FORCE, 0, NULL);
	return migrate_request(nlh);
}

const struct ccactl_object migrate_object = {
	.name = "migrate",
	.summary = "re-apply the policy to existing connections",
	.args = "[force]",
	.run = migrate_run,
};
