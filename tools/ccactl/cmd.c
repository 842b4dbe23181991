// SPDX-License-Identifier: GPL-2.0-only
/*
 * ccactl: the generic part of command dispatch — word lookup with
 * abbreviations, per-object command tables, usage messages.
 */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "ccactl.h"

int usage_error(const char *fmt, ...)
{
	va_list ap;

	fputs("ccactl: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	return CCACTL_EXIT_USAGE;
}

/* Is @word one of the output flags, and which? Sets the option if so. */
static bool take_output_flag(const char *word)
{
	static const struct {
		const char *names[3];
		bool *opt;
	} flags[] = {
		{ { "-j", "-json", "--json" },		&ccactl_opts.json },
		{ { "-p", "-pretty", "--pretty" },	&ccactl_opts.pretty },
		{ { "-s", "-stats", "--stats" },	&ccactl_opts.stats },
	};
	unsigned int i, k;

	for (i = 0; i < ARRAY_SIZE(flags); i++)
		for (k = 0; k < 3; k++)
			if (!strcmp(word, flags[i].names[k])) {
				*flags[i].opt = true;
				return true;
			}
	return false;
}

/*
 * The output flags -j, -p and -s may also follow the object or command
 * ("ccactl cca list -j").  Remove them from @argv, up to a "--", and
 * return the new argument count.  Nothing else is taken out, so commands
 * keep their own options.
 */
int strip_output_flags(int argc, char **argv)
{
	int i, n = 0;

	for (i = 0; i < argc; i++) {
		if (!strcmp(argv[i], "--")) {
			while (i < argc)
				argv[n++] = argv[i++];
			break;
		}
		if (!take_output_flag(argv[i]))
			argv[n++] = argv[i];
	}
	argv[n] = NULL;
	return n;
}

/*
 * Find @word in @names: an exact match, or else a prefix of exactly one
 * name (so "cca l" is "cca list").  Returns the index, or -1 after printing
 * a usage message naming @what.
 */
int find_word(const char *word, const char *const *names, unsigned int n,
	      const char *what)
{
	size_t len = strlen(word);
	unsigned int i, hits = 0;
	int found = -1;

	for (i = 0; i < n; i++)
		if (!strcmp(word, names[i]))
			return i;
	if (len) {
		for (i = 0; i < n; i++)
			if (!strncmp(word, names[i], len)) {
				found = i;
				hits++;
			}
	}
	if (hits == 1)
		return found;

	if (hits == 0) {
		usage_error("unknown %s \"%s\"", what, word);
	} else {
		fprintf(stderr, "ccactl: ambiguous %s \"%s\": could be", what, word);
		for (i = 0; i < n; i++)
			if (!strncmp(word, names[i], len))
				fprintf(stderr, " %s", names[i]);
		fputc('\n', stderr);
	}
	return -1;
}

/* Number of commands in @obj's table. */
static unsigned int cmd_count(const struct ccactl_object *obj)
{
	unsigned int n = 0;

	while (obj->cmds && obj->cmds[n].name)
		n++;
	return n;
}

void object_usage(const struct ccactl_object *obj, FILE *f)
{
	unsigned int i, n = cmd_count(obj);
	int width = 0, w;
	const char *lead = "Usage:";

	/* Width of "ccactl OBJ CMD ARGS" so the descriptions line up. */
	for (i = 0; i < n; i++) {
		w = snprintf(NULL, 0, "ccactl %s %s %s", obj->name,
			     obj->cmds[i].name, obj->cmds[i].args);
		if (w > width)
			width = w;
	}
	if (obj->run) {
		fprintf(f, "%s ccactl %s %s\n", lead, obj->name, obj->args);
		lead = "      ";
	}
	for (i = 0; i < n; i++) {
		char line[256];

		snprintf(line, sizeof(line), "ccactl %s %s %s", obj->name,
			 obj->cmds[i].name, obj->cmds[i].args);
		fprintf(f, "%s %-*s  %s\n", lead, width, line, obj->cmds[i].help);
		lead = "      ";
	}
	fprintf(f, "%s ccactl %s help\n", lead, obj->name);
	if (obj->default_cmd)
		fprintf(f, "Without a command, \"%s\" is run.\n", obj->default_cmd);
}

int object_dispatch(const struct ccactl_object *obj, int argc, char **argv)
{
	const char *names[32];
	unsigned int i, n = cmd_count(obj);
	char what[64];
	int idx;

	if (argc > 0 && !strcmp(argv[0], "help")) {
		object_usage(obj, stdout);
		return CCACTL_EXIT_OK;
	}
	if (obj->run)
		return obj->run(argc, argv);

	if (argc == 0) {
		if (obj->default_cmd)
			for (i = 0; i < n; i++)
				if (!strcmp(obj->cmds[i].name, obj->default_cmd))
					return obj->cmds[i].run(0, argv);
		return usage_error("%s: missing command; try \"ccactl %s help\"",
				   obj->name, obj->name);
	}

	if (n + 1 > ARRAY_SIZE(names))
		n = ARRAY_SIZE(names) - 1;
	for (i = 0; i < n; i++)
		names[i] = obj->cmds[i].name;
	names[n] = "help";

	snprintf(what, sizeof(what), "%s command", obj->name);
	idx = find_word(argv[0], names, n + 1, what);
	if (idx < 0) {
		fprintf(stderr, "Try \"ccactl %s help\".\n", obj->name);
		return CCACTL_EXIT_USAGE;
	}
	if ((unsigned int)idx == n) {
		object_usage(obj, stdout);
		return CCACTL_EXIT_OK;
	}
	return obj->cmds[idx].run(argc - 1, argv + 1);
}
