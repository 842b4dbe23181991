// SPDX-License-Identifier: GPL-2.0-only
/*
 * ccactl: -b FILE — run one "OBJECT COMMAND [ARGS]" per line ("-" reads
 * standard input).  Words are split on blanks; '...' and "..." group words
 * and a backslash escapes the next character (not inside '...').  A '#'
 * that starts a word starts a comment.  Processing stops at the first line
 * that fails, whose exit code becomes ccactl's.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ccactl.h"

static bool is_blank(char c)
{
	return c == ' ' || c == '\t' || c == '\n' || c == '\r';
}

/*
 * Split @line in place into words, stored in @argv (room for @max words
 * plus a NULL).  Returns the word count, or -1 after a message.
 */
static int split_line(char *line, char **argv, int max)
{
	char *in = line, *out = line;
	int argc = 0;

	for (;;) {
		char quote = 0;

		while (is_blank(*in))
			in++;
		if (!*in || *in == '#')
			break;
		if (argc == max) {
			usage_error("too many words (at most %d)", max);
			return -1;
		}
		argv[argc++] = out;
		/* Copy one word, removing quotes and escapes, up to a blank. */
		for (; *in; in++) {
			if (quote) {
				if (*in == quote)
					quote = 0;
				else if (*in == '\\' && quote == '"' && in[1])
					*out++ = *++in;
				else
					*out++ = *in;
			} else if (*in == '\'' || *in == '"') {
				quote = *in;
			} else if (*in == '\\' && in[1] && in[1] != '\n') {
				*out++ = *++in;
			} else if (is_blank(*in)) {
				break;
			} else {
				*out++ = *in;
			}
		}
		if (quote) {
			usage_error("unterminated %c quote", quote);
			return -1;
		}
		/* The terminator may overwrite the blank that ended the word. */
		if (*in)
			in++;
		*out++ = '\0';
	}
	argv[argc] = NULL;
	return argc;
}

int batch_run(const char *path)
{
	enum { MAX_WORDS = 256 };
	const char *shown = strcmp(path, "-") ? path : "<stdin>";
	FILE *f = strcmp(path, "-") ? fopen(path, "r") : stdin;
	struct ccactl_opts saved = ccactl_opts;
	char *argv[MAX_WORDS + 1];
	char *line = NULL;
	size_t cap = 0;
	unsigned int lineno = 0;
	int argc, ret = CCACTL_EXIT_OK;

	if (!f)
		return usage_error("cannot open batch file \"%s\": %s", path,
				   strerror(errno));

	while (getline(&line, &cap, f) != -1) {
		lineno++;
		argc = split_line(line, argv, MAX_WORDS);
		if (argc == 0)
			continue;
		if (argc < 0)
			ret = CCACTL_EXIT_USAGE;
		else
			ret = ccactl_run(argc, argv);
		ccactl_opts = saved;	/* flags after a command are per line */
		fflush(stdout);
		if (ret) {
			fprintf(stderr, "ccactl: %s:%u: command failed (exit %d)\n",
				shown, lineno, ret);
			break;
		}
	}
	if (!ret && ferror(f))
		ret = usage_error("error reading batch file \"%s\"", shown);

	free(line);
	if (f != stdin)
		fclose(f);
	return ret;
}
