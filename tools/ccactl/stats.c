// SPDX-License-Identifier: GPL-2.0-only
/*
 * ccactl: the "stats" object — what ccaas did in the namespace and where
 * its connections are.
 *   ccactl stats [show]        counters, sockets per CCA, per rule
 *   ccactl stats prometheus    the same in Prometheus' text format, for
 *                              node_exporter's textfile collector
 * One CCAAS_CMD_STATS_GET dump (the kernel walks the sockets once), then
 * the policy dump of the same generation for the rules' matches.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/ccaas.h>
#include <linux/genetlink.h>

#include "ccactl.h"
#include "family.h"
#include "json.h"
#include "objects.h"
#include "table.h"

/* The namespace counters, in the order they are printed. */
static const struct {
	int attr;
	const char *key;	/* JSON and text */
	const char *help;	/* Prometheus */
} counters[] = {
	{ CCAAS_A_STATS_SELECTED, "selected",
	  "New connections the selector placed on a policy's CCA." },
	{ CCAAS_A_STATS_LISTENERS_SELECTED, "listeners_selected",
	  "Listeners the selector placed." },
	{ CCAAS_A_STATS_MIGRATED, "migrated",
	  "Sockets migration passes moved to their policy's CCA." },
	{ CCAAS_A_STATS_DRAINED, "drained",
	  "Sockets cca drain passes moved." },
	{ CCAAS_A_STATS_REFUSED, "refused",
	  "Moves the sticky-ECN rule refused." },
	{ CCAAS_A_STATS_ERRORS, "errors",
	  "Moves that failed because the target CCA was going away." },
	{ CCAAS_A_STATS_MIGRATIONS, "migrations", "Migration passes." },
	{ CCAAS_A_STATS_DRAINS, "drains", "Drain passes." },
};
#define N_COUNTERS ARRAY_SIZE(counters)

/* Where a rule's sockets are, CCAAS_A_STATS_RULE_ON_CCA onwards. */
static const char *const states[] = {
	"on_cca", "fallback", "bpf", "pinned", "refused", "other", "held",
};
#define N_STATES ARRAY_SIZE(states)

struct stats_cca {
	char name[CCAAS_CCA_NAME_MAX];
	uint32_t sockets;
};

struct stats_rule {
	uint32_t index, sockets;
	uint32_t state[N_STATES];
	char cca[CCAAS_CCA_NAME_MAX];
	const char *match;	/* from the policy dump, or NULL */
};

struct stats {
	bool has_head;
	uint32_t generation, sockets, no_rule;
	uint64_t counter[N_COUNTERS];
	struct stats_cca *ccas;
	size_t n_ccas;
	struct stats_rule *rules;
	size_t n_rules;
};

/* ---- parsing ---- */

/* Room for element @n of *@v (at most CCAAS_POLICY_MAX_RULES of them). */
static int grow(void **v, size_t n, size_t size)
{
	void *p = realloc(*v, (n + 1) * size);

	if (!p)
		return -ENOMEM;
	*v = p;
	return 0;
}

static int parse_cca(const struct nlattr *nest, struct stats *st)
{
	struct stats_cca c = { .name = "" };
	const struct nlattr *a;
	int err = 0;

	mnl_attr_for_each_nested(a, nest) {
		switch (mnl_attr_get_type(a)) {
		case CCAAS_A_STATS_CCA_NAME:
			err = nl_attr_str(a, c.name, sizeof(c.name));
			break;
		case CCAAS_A_STATS_CCA_SOCKETS:
			err = nl_attr_u32(a, &c.sockets);
			break;
		}
		if (err)
			return err;
	}
	if (grow((void **)&st->ccas, st->n_ccas, sizeof(*st->ccas)))
		return -ENOMEM;
	st->ccas[st->n_ccas++] = c;
	return 0;
}

static int parse_rule(const struct nlattr *nest, struct stats *st)
{
	struct stats_rule r = { .index = 0 };
	const struct nlattr *a;
	int type, err = 0;

	mnl_attr_for_each_nested(a, nest) {
		type = mnl_attr_get_type(a);
		if (type >= CCAAS_A_STATS_RULE_ON_CCA &&
		    type < CCAAS_A_STATS_RULE_ON_CCA + (int)N_STATES)
			err = nl_attr_u32(a, &r.state[type - CCAAS_A_STATS_RULE_ON_CCA]);
		else if (type == CCAAS_A_STATS_RULE_INDEX)
			err = nl_attr_u32(a, &r.index);
		else if (type == CCAAS_A_STATS_RULE_SOCKETS)
			err = nl_attr_u32(a, &r.sockets);
		else if (type == CCAAS_A_STATS_RULE_CCA)
			err = nl_attr_str(a, r.cca, sizeof(r.cca));
		if (err)
			return err;
	}
	if (grow((void **)&st->rules, st->n_rules, sizeof(*st->rules)))
		return -ENOMEM;
	st->rules[st->n_rules++] = r;
	return 0;
}

static int stats_cb(const struct nlmsghdr *nlh, void *data)
{
	struct stats *st = data;
	const struct nlattr *a;
	unsigned int i;
	uint32_t gen;
	int type, err;

	mnl_attr_for_each(a, nlh, sizeof(struct genlmsghdr)) {
		type = mnl_attr_get_type(a);
		err = 0;
		switch (type) {
		case CCAAS_A_STATS_GENERATION:
			err = nl_attr_u32(a, &gen);
			/* every message of the dump is of one walk */
			if (!err && st->has_head && gen != st->generation)
				err = -EBADMSG;
			st->generation = gen;
			break;
		case CCAAS_A_STATS_SOCKETS:
			st->has_head = true;
			err = nl_attr_u32(a, &st->sockets);
			break;
		case CCAAS_A_STATS_NO_RULE:
			err = nl_attr_u32(a, &st->no_rule);
			break;
		case CCAAS_A_STATS_CCA:
			err = parse_cca(a, st);
			break;
		case CCAAS_A_STATS_RULE:
			err = parse_rule(a, st);
			break;
		default:
			for (i = 0; i < N_COUNTERS; i++)
				if (type == counters[i].attr)
					err = nl_attr_u64(a, &st->counter[i]);
			break;
		}
		if (err)
			return err;
	}
	return 0;
}

static void stats_free(struct stats *st, char **matches, size_t n_matches)
{
	policy_matches_free(matches, n_matches);
	free(st->ccas);
	free(st->rules);
}

/* The dump, then the rules' matches from the policy of its generation. */
static int stats_fetch(struct stats *st, char ***matches, size_t *n_matches)
{
	char buf[NL_SEND_BUFSZ];
	struct nlmsghdr *nlh;
	size_t i;
	int ret;

	memset(st, 0, sizeof(*st));
	*matches = NULL;
	*n_matches = 0;
	ret = ccaas_msg(buf, CCAAS_CMD_STATS_GET, NLM_F_DUMP, &nlh);
	if (ret)
		return ret;
	ret = ccaas_request(nlh, stats_cb, st);
	if (ret)
		return ret;
	if (!st->has_head) {
		fputs("Error: the kernel answered without counters\n", stderr);
		return CCACTL_EXIT_KERNEL;
	}
	/*
	 * A commit since the walk leaves the rules unnamed; their index and
	 * CCA still say which they were.
	 */
	if (policy_matches(st->generation, matches, n_matches))
		return CCACTL_EXIT_OK;
	for (i = 0; i < st->n_rules; i++)
		if (st->rules[i].index < *n_matches)
			st->rules[i].match = (*matches)[st->rules[i].index];
	return CCACTL_EXIT_OK;
}

/* ---- show ---- */

static void show_json(const struct stats *st)
{
	size_t i, k;

	open_json_object(NULL);
	print_uint(PRINT_JSON, "generation", "%llu", st->generation);
	print_uint(PRINT_JSON, "sockets", "%llu", st->sockets);
	print_uint(PRINT_JSON, "no_rule", "%llu", st->no_rule);
	open_json_object("counters");
	for (i = 0; i < N_COUNTERS; i++)
		print_uint(PRINT_JSON, counters[i].key, "%llu", st->counter[i]);
	close_json_object();
	open_json_array("ccas");
	for (i = 0; i < st->n_ccas; i++) {
		open_json_object(NULL);
		print_string(PRINT_JSON, "cca", "%s", st->ccas[i].name);
		print_uint(PRINT_JSON, "sockets", "%llu", st->ccas[i].sockets);
		close_json_object();
	}
	close_json_array();
	open_json_array("rules");
	for (i = 0; i < st->n_rules; i++) {
		const struct stats_rule *r = &st->rules[i];

		open_json_object(NULL);
		print_uint(PRINT_JSON, "index", "%llu", r->index);
		if (r->match)
			print_string(PRINT_JSON, "match", "%s", r->match);
		print_string(PRINT_JSON, "cca", "%s", r->cca);
		print_uint(PRINT_JSON, "sockets", "%llu", r->sockets);
		for (k = 0; k < N_STATES; k++)
			print_uint(PRINT_JSON, states[k], "%llu", r->state[k]);
		close_json_object();
	}
	close_json_array();
	close_json_object();
}

static int show_text(const struct stats *st)
{
	static const char *const rule_hdr[] = {
		"RULE", "MATCH", "CCA", "SOCKETS", "ON_CCA", "FALLBACK", "BPF",
		"PINNED", "REFUSED", "OTHER", "COMPLIANT",
	};
	static const char *const cca_hdr[] = { "CCA", "SOCKETS" };
	char cell[ARRAY_SIZE(rule_hdr)][48];
	const char *cells[ARRAY_SIZE(rule_hdr)];
	struct table *t;
	size_t i, k;

	print_text("generation %u: %u sockets, %u matched by no rule\n",
		   st->generation, st->sockets, st->no_rule);
	for (i = 0; i < N_COUNTERS; i++)
		print_text("%s%s %llu", i ? ", " : "", counters[i].key,
			   (unsigned long long)st->counter[i]);
	print_text("\n");

	t = table_new(ARRAY_SIZE(cca_hdr), cca_hdr);
	if (!t)
		goto nomem;
	for (i = 0; i < st->n_ccas; i++) {
		snprintf(cell[1], sizeof(cell[1]), "%u", st->ccas[i].sockets);
		cells[0] = st->ccas[i].name;
		cells[1] = cell[1];
		if (table_add(t, cells))
			goto nomem;
	}
	if (st->n_ccas) {
		print_text("\n");
		table_print(t, stdout);
	}
	table_free(t);

	t = table_new(ARRAY_SIZE(rule_hdr), rule_hdr);
	if (!t)
		goto nomem;
	for (i = 0; i < st->n_rules; i++) {
		const struct stats_rule *r = &st->rules[i];

		snprintf(cell[0], sizeof(cell[0]), "%u", r->index);
		cells[0] = cell[0];
		cells[1] = r->match;
		cells[2] = r->cca;
		snprintf(cell[3], sizeof(cell[3]), "%u", r->sockets);
		cells[3] = cell[3];
		for (k = 0; k < N_STATES; k++) {
			snprintf(cell[4 + k], sizeof(cell[4 + k]), "%u", r->state[k]);
			cells[4 + k] = cell[4 + k];
		}
		/* the compliance figure: on the rule's CCA or its fallback */
		if (r->sockets)
			snprintf(cell[10], sizeof(cell[10]), "%.1f%%",
				 100.0 * (r->state[0] + r->state[1]) / r->sockets);
		cells[10] = r->sockets ? cell[10] : NULL;
		if (table_add(t, cells))
			goto nomem;
	}
	if (st->n_rules) {
		print_text("\n");
		table_print(t, stdout);
	}
	table_free(t);
	return CCACTL_EXIT_OK;
nomem:
	return table_nomem(t);
}

static int stats_show(int argc, char **argv)
{
	char **matches;
	struct stats st;
	size_t n;
	int ret;

	if (argc > 0)
		return usage_error("stats show: unexpected argument \"%s\"", argv[0]);
	ret = stats_fetch(&st, &matches, &n);
	if (!ret) {
		print_begin(stdout, ccactl_opts.json, ccactl_opts.pretty);
		if (print_is_json())
			show_json(&st);
		else
			ret = show_text(&st);
		print_end();
	}
	stats_free(&st, matches, n);
	return ret;
}

/* ---- prometheus ---- */

/* A label value in the exposition format's escaping. */
static void prom_value(FILE *f, const char *s)
{
	for (; *s; s++) {
		if (*s == '\\' || *s == '"')
			fprintf(f, "\\%c", *s);
		else if (*s == '\n')
			fputs("\\n", f);
		else
			fputc(*s, f);
	}
}

/*
 * One sample: @name, the netns label (with -n) and @n label pairs
 * (key, value, key, value, ...), then @v.
 */
static void prom_sample(FILE *f, const char *name, const char *const *labels,
			size_t n, unsigned long long v)
{
	const char *sep = "";
	size_t i;

	fputs(name, f);
	if (ccactl_netns || n) {
		fputc('{', f);
		if (ccactl_netns) {
			fputs("netns=\"", f);
			prom_value(f, ccactl_netns);
			fputc('"', f);
			sep = ",";
		}
		for (i = 0; i < n; i++, sep = ",") {
			fprintf(f, "%s%s=\"", sep, labels[2 * i]);
			prom_value(f, labels[2 * i + 1]);
			fputc('"', f);
		}
		fputc('}', f);
	}
	fprintf(f, " %llu\n", v);
}

static void prom_family(FILE *f, const char *name, const char *type,
			const char *help)
{
	fprintf(f, "# HELP %s %s\n# TYPE %s %s\n", name, help, name, type);
}

static void prom_print(FILE *f, const struct stats *st)
{
	const char *labels[6];
	char name[64];
	size_t i, k;

	prom_family(f, "ccaas_policy_generation", "gauge",
		    "The policy generation in force.");
	prom_sample(f, "ccaas_policy_generation", NULL, 0, st->generation);
	prom_family(f, "ccaas_sockets", "gauge",
		    "Established TCP connections of the namespace.");
	prom_sample(f, "ccaas_sockets", NULL, 0, st->sockets);
	prom_family(f, "ccaas_sockets_no_rule", "gauge",
		    "Established TCP connections no policy rule matches.");
	prom_sample(f, "ccaas_sockets_no_rule", NULL, 0, st->no_rule);

	prom_family(f, "ccaas_cca_sockets", "gauge",
		    "Established TCP connections on each CCA.");
	for (i = 0; i < st->n_ccas; i++) {
		labels[0] = "cca";
		labels[1] = st->ccas[i].name;
		prom_sample(f, "ccaas_cca_sockets", labels, 1, st->ccas[i].sockets);
	}

	prom_family(f, "ccaas_rule_sockets", "gauge",
		    "Established TCP connections each policy rule matches, by where they are.");
	/*
	 * A rule is its match, which a policy holds once: its position would
	 * start new series for every rule below one inserted. A rule without
	 * its match (a commit since the walk) is left out.
	 */
	for (i = 0; i < st->n_rules; i++) {
		const struct stats_rule *r = &st->rules[i];

		if (!r->match)
			continue;
		labels[0] = "match";
		labels[1] = r->match;
		labels[2] = "cca";
		labels[3] = r->cca;
		labels[4] = "state";
		for (k = 0; k < N_STATES; k++) {
			labels[5] = states[k];
			prom_sample(f, "ccaas_rule_sockets", labels, 3, r->state[k]);
		}
	}

	for (i = 0; i < N_COUNTERS; i++) {
		snprintf(name, sizeof(name), "ccaas_%s_total", counters[i].key);
		prom_family(f, name, "counter", counters[i].help);
		prom_sample(f, name, NULL, 0, st->counter[i]);
	}
}

/* Walks before the rules are left out of the metrics for want of names. */
#define PROM_TRIES 3

static int stats_prometheus(int argc, char **argv)
{
	int ret, tries = PROM_TRIES;
	char **matches;
	struct stats st;
	size_t n;

	if (argc > 0)
		return usage_error("stats prometheus: unexpected argument \"%s\"",
				   argv[0]);
	/* a commit between the walk and the policy dump: walk again */
	for (;;) {
		ret = stats_fetch(&st, &matches, &n);
		if (ret || !st.n_rules || matches || !--tries)
			break;
		stats_free(&st, matches, n);
	}
	if (!ret && st.n_rules && !matches)
		fprintf(stderr, "Warning: the policy changed during each of %d walks; its rules are left out\n",
			PROM_TRIES);
	if (!ret)
		prom_print(stdout, &st);
	stats_free(&st, matches, n);
	if (!ret && (fflush(stdout) || ferror(stdout))) {
		perror("ccactl: stdout");
		ret = CCACTL_EXIT_KERNEL;
	}
	return ret;
}

static const struct ccactl_cmd stats_cmds[] = {
	{ "show", "", "counters and where the connections are, per CCA and rule",
	  stats_show },
	{ "prometheus", "", "the same in Prometheus' text format",
	  stats_prometheus },
	{ NULL, NULL, NULL, NULL },
};

const struct ccactl_object stats_object = {
	.name = "stats",
	.summary = "counters, and how many connections follow each rule",
	.cmds = stats_cmds,
	.default_cmd = "show",
};
