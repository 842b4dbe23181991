// SPDX-License-Identifier: GPL-2.0-only
/*
 * ccactl: the "monitor" object — print the events of the family's
 * "monitor" multicast group as they happen, until SIGINT or SIGTERM.
 *   ccactl monitor
 * One line per event (with -j one JSON object per line):
 *   policy generation 7 set 3 rules
 *   policy generation 8 rollback 3 rules (from 5)
 *   migrate generation 8: 12 examined, 5 migrated, ...
 */
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <sys/signalfd.h>
#include <linux/ccaas.h>
#include <linux/genetlink.h>

#include "ccactl.h"
#include "family.h"
#include "json.h"
#include "migrate.h"
#include "objects.h"

/* The listening socket (it holds a 32 KiB receive buffer: not on the stack). */
static struct nl_sock mon;

/* enum ccaas_policy_origin */
static const char *const origin_names[] = {
	[CCAAS_POLICY_ORIGIN_EMPTY]	= "empty",
	[CCAAS_POLICY_ORIGIN_SET]	= "set",
	[CCAAS_POLICY_ORIGIN_APPLY]	= "apply",
	[CCAAS_POLICY_ORIGIN_ROLLBACK]	= "rollback",
};

struct policy_event {
	uint32_t generation, from, nrules;
	uint8_t origin;
	bool has_generation, has_from, has_nrules, has_origin;
};

/* The head of a CCAAS_CMD_POLICY_NTF (its rules are not shown). */
static int policy_event_parse(const struct nlmsghdr *nlh, struct policy_event *ev)
{
	const struct nlattr *a;

	memset(ev, 0, sizeof(*ev));
	mnl_attr_for_each(a, nlh, sizeof(struct genlmsghdr)) {
		switch (mnl_attr_get_type(a)) {
		case CCAAS_A_POLICY_GENERATION:
			if (mnl_attr_validate(a, MNL_TYPE_U32) < 0)
				return -EBADMSG;
			ev->generation = mnl_attr_get_u32(a);
			ev->has_generation = true;
			break;
		case CCAAS_A_POLICY_ORIGIN:
			if (mnl_attr_validate(a, MNL_TYPE_U8) < 0)
				return -EBADMSG;
			ev->origin = mnl_attr_get_u8(a);
			ev->has_origin = true;
			break;
		case CCAAS_A_POLICY_FROM:
			if (mnl_attr_validate(a, MNL_TYPE_U32) < 0)
				return -EBADMSG;
			ev->from = mnl_attr_get_u32(a);
			ev->has_from = true;
			break;
		case CCAAS_A_POLICY_NRULES:
			if (mnl_attr_validate(a, MNL_TYPE_U32) < 0)
				return -EBADMSG;
			ev->nrules = mnl_attr_get_u32(a);
			ev->has_nrules = true;
			break;
		}
	}
	return 0;
}

static void policy_event_print(const struct policy_event *ev)
{
	char buf[16];
	const char *origin = "-";

	if (ev->has_origin) {
		if (ev->origin < ARRAY_SIZE(origin_names)) {
			origin = origin_names[ev->origin];
		} else {
			snprintf(buf, sizeof(buf), "%u", ev->origin);
			origin = buf;
		}
	}
	print_string(PRINT_ANY, "event", "%s", "policy");
	if (ev->has_generation)
		print_uint(PRINT_ANY, "generation", " generation %llu", ev->generation);
	else
		print_text(" generation -");
	if (ev->has_origin)
		print_string(PRINT_ANY, "origin", " %s", origin);
	else
		print_text(" -");
	if (ev->has_nrules)
		print_uint(PRINT_ANY, "nrules", " %llu rules", ev->nrules);
	else
		print_text(" - rules");
	if (ev->has_from) {
		if (ev->has_origin && ev->origin == CCAAS_POLICY_ORIGIN_ROLLBACK)
			print_uint(PRINT_ANY, "from", " (from %llu)", ev->from);
		else
			print_uint(PRINT_JSON, "from", "%llu", ev->from);
	}
}

/* One notification: a line of text or JSON, flushed at once. */
static int monitor_cb(const struct nlmsghdr *nlh, void *data)
{
	const struct genlmsghdr *genl = mnl_nlmsg_get_payload(nlh);
	struct policy_event pev;
	struct migrate_counts mc;
	const char *what;
	int err;

	(void)data;
	if (nlh->nlmsg_type != ccaas_family()->id ||
	    mnl_nlmsg_get_payload_len(nlh) < sizeof(*genl))
		return 0;
	switch (genl->cmd) {
	case CCAAS_CMD_POLICY_NTF:
		what = "policy";
		err = policy_event_parse(nlh, &pev);
		break;
	case CCAAS_CMD_MIGRATE_NTF:
		what = "migrate";
		err = migrate_parse(nlh, &mc);
		break;
	default:	/* an event newer than us */
		return 0;
	}
	if (err) {
		fprintf(stderr, "Warning: ignored a malformed %s event\n", what);
		return 0;
	}

	print_begin(stdout, ccactl_opts.json, ccactl_opts.pretty);
	open_json_object(NULL);
	if (genl->cmd == CCAAS_CMD_POLICY_NTF) {
		policy_event_print(&pev);
	} else {
		print_string(PRINT_ANY, "event", "%s ", "migrate");
		migrate_print(&mc);
	}
	close_json_object();
	print_text("\n");
	print_end();	/* flushes: readers of a pipe see each event at once */
	return 0;
}

/*
 * Wait for events or for SIGINT/SIGTERM.  The signals are blocked and read
 * from a signalfd, so one that arrives at any moment ends the loop cleanly.
 */
static int monitor_loop(int sfd)
{
	struct pollfd pfd[2] = {
		{ .fd = mnl_socket_get_fd(mon.mnl), .events = POLLIN },
		{ .fd = sfd, .events = POLLIN },
	};
	struct signalfd_siginfo si[4];
	int err;

	for (;;) {
		if (poll(pfd, 2, -1) < 0) {
			if (errno == EINTR)
				continue;
			fprintf(stderr, "Error: poll: %s\n", strerror(errno));
			return CCACTL_EXIT_KERNEL;
		}
		if (pfd[1].revents) {
			/* Take every pending signal, so none fires after unblocking. */
			if (read(sfd, si, sizeof(si)) < 0 && errno != EAGAIN)
				fprintf(stderr, "Warning: signalfd: %s\n", strerror(errno));
			return CCACTL_EXIT_OK;
		}
		if (!pfd[0].revents)
			continue;
		err = nl_recv_notifications(&mon, monitor_cb, NULL);
		if (err == -ENOBUFS) {
			fputs("Warning: events were lost (the socket's receive buffer overflowed)\n",
			      stderr);
		} else if (err) {
			fprintf(stderr, "Error: receiving events: %s\n", strerror(-err));
			return CCACTL_EXIT_KERNEL;
		}
	}
}

static int monitor_run(int argc, char **argv)
{
	sigset_t sigs, old;
	int sfd, ret;

	if (argc > 0)
		return usage_error("monitor: unexpected argument \"%s\"", argv[0]);

	ret = ccaas_subscribe(&mon, CCAAS_MCGRP_MONITOR);
	if (ret)
		return ret;

	sigemptyset(&sigs);
	sigaddset(&sigs, SIGINT);
	sigaddset(&sigs, SIGTERM);
	sigprocmask(SIG_BLOCK, &sigs, &old);
	sfd = signalfd(-1, &sigs, SFD_CLOEXEC | SFD_NONBLOCK);
	if (sfd < 0) {
		fprintf(stderr, "Error: signalfd: %s\n", strerror(errno));
		ret = CCACTL_EXIT_KERNEL;
	} else {
		ret = monitor_loop(sfd);
		close(sfd);
	}
	sigprocmask(SIG_SETMASK, &old, NULL);
	nl_close(&mon);
	return ret;
}

const struct ccactl_object monitor_object = {
	.name = "monitor",
	.summary = "print policy and migration events as they happen",
	.args = "",
	.run = monitor_run,
};
