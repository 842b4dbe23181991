// SPDX-License-Identifier: GPL-2.0-only
/*
 * ccactl: -n NETNS — run in a named network namespace, as "ip -n" does.
 * NAME is looked up under /var/run/netns (where "ip netns add" puts it);
 * a value containing '/' is taken as a path to a netns file instead
 * (e.g. /proc/PID/ns/net).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <sched.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "ccactl.h"

#define NETNS_RUN_DIR "/var/run/netns"

int netns_enter(const char *name)
{
	char path[PATH_MAX];
	int fd, err;

	if (!*name || !strcmp(name, ".") || !strcmp(name, ".."))
		return usage_error("invalid network namespace name \"%s\"", name);

	if (strchr(name, '/'))
		snprintf(path, sizeof(path), "%s", name);
	else if (snprintf(path, sizeof(path), "%s/%s", NETNS_RUN_DIR, name) >=
		 (int)sizeof(path))
		return usage_error("network namespace name too long");

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		fprintf(stderr, "Error: cannot open network namespace \"%s\": %s\n",
			name, strerror(errno));
		return CCACTL_EXIT_KERNEL;
	}
	if (setns(fd, CLONE_NEWNET) < 0) {
		err = errno;
		close(fd);
		fprintf(stderr, "Error: cannot enter network namespace \"%s\": %s\n",
			name, strerror(err));
		return CCACTL_EXIT_KERNEL;
	}
	close(fd);
	return CCACTL_EXIT_OK;
}
