// SPDX-License-Identifier: GPL-2.0-only
/*
 * ccactl: control tool for ccaas (congestion control as a service).
 *
 * This file holds the global options, the table of objects and the
 * top-level dispatch:
 *   ccactl [-j [-p]] [-s] [-n NETNS] [-b FILE] [-V] OBJECT COMMAND [ARGS]
 */
#include <getopt.h>
#include <stdio.h>
#include <string.h>

#include "ccactl.h"
#include "family.h"
#include "objects.h"

struct ccactl_opts ccactl_opts;
const char *ccactl_netns;

static int help_run(int argc, char **argv);

static const struct ccactl_object help_object = {
	.name = "help",
	.summary = "this help, or an object's help",
	.args = "[OBJECT]",
	.run = help_run,
};

/*
 * Every object, in the order "ccactl help" lists them.  A new object is a
 * new source file plus one line here and one in objects.h.
 */
static const struct ccactl_object *const objects[] = {
	&cca_object,
	&scope_object,
	&policy_object,
	&migrate_object,
	&sock_object,
	&log_object,
	&monitor_object,
	&stats_object,
	&help_object,
};

#define N_OBJECTS ARRAY_SIZE(objects)

static void usage(FILE *f)
{
	unsigned int i;

	fputs("Usage: ccactl [OPTIONS] OBJECT COMMAND [ARGS]\n"
	      "       ccactl [OPTIONS] -b FILE\n"
	      "       ccactl -V\n"
	      "where  OBJECT := {", f);
	for (i = 0; i < N_OBJECTS; i++)
		fprintf(f, "%s %s", i ? " |" : "", objects[i]->name);
	fputs(" }\n"
	      "       OPTIONS := { -j[son] [-p[retty]] | -s[tats] | -n[etns] NETNS |\n"
	      "                    -b[atch] FILE | -V[ersion] | -h[elp] }\n"
	      "Objects:\n", f);
	for (i = 0; i < N_OBJECTS; i++)
		fprintf(f, "  %-8s %s\n", objects[i]->name, objects[i]->summary);
	fputs("\"ccactl OBJECT help\" describes an object's commands.\n", f);
}

/* Look @word up in the object table; NULL after a usage message. */
static const struct ccactl_object *find_object(const char *word)
{
	const char *names[N_OBJECTS];
	unsigned int i;
	int idx;

	for (i = 0; i < N_OBJECTS; i++)
		names[i] = objects[i]->name;
	idx = find_word(word, names, N_OBJECTS, "object");
	if (idx < 0) {
		fputs("Try \"ccactl help\".\n", stderr);
		return NULL;
	}
	return objects[idx];
}

static int help_run(int argc, char **argv)
{
	const struct ccactl_object *obj;

	if (argc == 0) {
		usage(stdout);
		return CCACTL_EXIT_OK;
	}
	if (argc > 1)
		return usage_error("help: unexpected argument \"%s\"", argv[1]);
	obj = find_object(argv[0]);
	if (!obj)
		return CCACTL_EXIT_USAGE;
	if (obj == &help_object)
		usage(stdout);
	else
		object_usage(obj, stdout);
	return CCACTL_EXIT_OK;
}

int ccactl_run(int argc, char **argv)
{
	const struct ccactl_object *obj;

	argc = strip_output_flags(argc, argv);
	if (argc == 0) {
		usage(stderr);
		return CCACTL_EXIT_USAGE;
	}
	if (argv[0][0] == '-' && argv[0][1])
		return usage_error("option \"%s\" is not allowed here; options go before OBJECT",
				   argv[0]);
	obj = find_object(argv[0]);
	if (!obj)
		return CCACTL_EXIT_USAGE;
	return object_dispatch(obj, argc - 1, argv + 1);
}

int main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "json",	no_argument,		NULL, 'j' },
		{ "pretty",	no_argument,		NULL, 'p' },
		{ "stats",	no_argument,		NULL, 's' },
		{ "netns",	required_argument,	NULL, 'n' },
		{ "batch",	required_argument,	NULL, 'b' },
		{ "version",	no_argument,		NULL, 'V' },
		{ "Version",	no_argument,		NULL, 'V' },
		{ "help",	no_argument,		NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const char *netns = NULL, *batch = NULL;
	bool version = false;
	int c, ret;

	/*
	 * "+": stop at the first non-option, the OBJECT.  _only: "-json" and
	 * "-netns NS" work as in iproute2, beside "--json" and "-j".
	 */
	while ((c = getopt_long_only(argc, argv, "+jpsn:b:Vh", longopts, NULL)) != -1) {
		switch (c) {
		case 'j':
			ccactl_opts.json = true;
			break;
		case 'p':
			ccactl_opts.pretty = true;
			break;
		case 's':
			ccactl_opts.stats = true;
			break;
		case 'n':
			netns = optarg;
			break;
		case 'b':
			batch = optarg;
			break;
		case 'V':
			version = true;
			break;
		case 'h':
			usage(stdout);
			return CCACTL_EXIT_OK;
		default:	/* getopt has said what was wrong */
			fputs("Try \"ccactl help\".\n", stderr);
			return CCACTL_EXIT_USAGE;
		}
	}

	if (version) {
		printf("ccactl %s\n", ccactl_version);
		return CCACTL_EXIT_OK;
	}
	if (batch && optind < argc)
		return usage_error("-b FILE takes no OBJECT (got \"%s\")", argv[optind]);
	if (!batch && optind == argc) {
		usage(stderr);
		return CCACTL_EXIT_USAGE;
	}

	if (netns) {
		ret = netns_enter(netns);
		if (ret)
			return ret;
		ccactl_netns = netns;
	}

	if (batch)
		ret = batch_run(batch);
	else
		ret = ccactl_run(argc - optind, argv + optind);

	ccaas_close();
	return ret;
}
