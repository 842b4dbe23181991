/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * ccactl: shared declarations — global options, exit codes and the
 * object/command tables that the dispatcher walks.
 *
 * Adding an object: write OBJECT.c defining a `const struct ccactl_object`,
 * declare it in objects.h and list it in the table in main.c.
 */
#ifndef CCACTL_H
#define CCACTL_H

#include <stdbool.h>
#include <stdio.h>

#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))

/* Exit codes (the contract in ccactl(8)). */
enum {
	CCACTL_EXIT_OK		= 0,	/* success */
	CCACTL_EXIT_USAGE	= 1,	/* bad command line */
	CCACTL_EXIT_KERNEL	= 2,	/* kernel refused or is unavailable */
};

/* Options that change how a command prints; reset for every batch line. */
struct ccactl_opts {
	bool json;	/* -j: JSON output */
	bool pretty;	/* -p: indent JSON */
	bool stats;	/* -s: more detail */
};

extern struct ccactl_opts ccactl_opts;
/* -n NETNS: the namespace entered, or NULL */
extern const char *ccactl_netns;
extern const char ccactl_version[];

/*
 * A command of an object.  @run gets the arguments after the command word
 * (argv[0] is the first argument, not the command) and returns an exit code.
 */
struct ccactl_cmd {
	const char *name;
	const char *args;	/* synopsis of the arguments, "" if none */
	const char *help;	/* one line */
	int (*run)(int argc, char **argv);
};

/*
 * An object.  Either @cmds (terminated by an entry with a NULL name) and
 * optionally @default_cmd (run when no command is given), or @run for an
 * object that takes no command word (e.g. "monitor"); @run gets the
 * arguments after the object word.
 */
struct ccactl_object {
	const char *name;
	const char *summary;	/* one line, for "ccactl help" */
	const struct ccactl_cmd *cmds;
	const char *default_cmd;
	const char *args;	/* synopsis when @run is used */
	int (*run)(int argc, char **argv);
};

/* main.c */
int ccactl_run(int argc, char **argv);	/* one OBJECT COMMAND [ARGS] line */

/* cmd.c */
int usage_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
int strip_output_flags(int argc, char **argv);
int find_word(const char *word, const char *const *names, unsigned int n,
	      const char *what);
int object_dispatch(const struct ccactl_object *obj, int argc, char **argv);
void object_usage(const struct ccactl_object *obj, FILE *f);

/* cca.c */
void cca_preload(const char *name);

/* batch.c */
int batch_run(const char *path);

/* netns.c */
int netns_enter(const char *name);

#endif /* CCACTL_H */
