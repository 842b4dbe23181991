// SPDX-License-Identifier: GPL-2.0-only
/*
 * ccactl: the connection to the "ccaas" generic netlink family (family.h).
 */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <linux/ccaas.h>
#include <linux/netlink.h>

#include "ccactl.h"
#include "family.h"

static struct nl_sock sock;
static struct nl_genl_family family;
static bool connected;

static int connect_family(void)
{
	int err;

	if (connected)
		return CCACTL_EXIT_OK;

	err = nl_open(&sock, NETLINK_GENERIC);
	if (err) {
		fprintf(stderr, "Error: cannot open a generic netlink socket: %s\n",
			strerror(-err));
		return CCACTL_EXIT_KERNEL;
	}
	err = nl_genl_resolve(&sock, CCAAS_FAMILY_NAME, &family);
	if (err == -ENOENT) {
		fputs("Error: ccaas generic netlink family not found (is the ccaas_core module loaded?)\n",
		      stderr);
		nl_close(&sock);
		return CCACTL_EXIT_KERNEL;
	}
	if (err) {
		fprintf(stderr, "Error: cannot resolve generic netlink family \"%s\": %s\n",
			CCAAS_FAMILY_NAME,
			sock.ext_msg[0] ? sock.ext_msg : strerror(-err));
		nl_close(&sock);
		return CCACTL_EXIT_KERNEL;
	}
	connected = true;
	return CCACTL_EXIT_OK;
}

int ccaas_msg(void *buf, uint8_t cmd, uint16_t flags, struct nlmsghdr **nlhp)
{
	int ret = connect_family();

	if (ret)
		return ret;
	*nlhp = nl_genl_msg(&sock, buf, family.id, cmd, CCAAS_FAMILY_VERSION,
			    flags);
	return CCACTL_EXIT_OK;
}

int ccaas_request(struct nlmsghdr *req, nl_data_cb cb, void *data)
{
	int err = nl_transact(&sock, req, cb, data);

	if (err) {
		if (sock.ext_msg[0])
			fprintf(stderr, "Error: %s\n", sock.ext_msg);
		else if (sock.ext_miss_type >= 0)
			fprintf(stderr, "Error: %s (missing attribute %d)\n",
				strerror(-err), sock.ext_miss_type);
		else
			fprintf(stderr, "Error: %s\n", strerror(-err));
		return CCACTL_EXIT_KERNEL;
	}
	if (sock.ext_msg[0])
		fprintf(stderr, "Warning: %s\n", sock.ext_msg);
	if (sock.dump_interrupted)
		fputs("Warning: the dump was interrupted by a change; the output may be inconsistent\n",
		      stderr);
	return CCACTL_EXIT_OK;
}

int ccaas_request_quiet(struct nlmsghdr *req, nl_data_cb cb, void *data)
{
	return nl_transact(&sock, req, cb, data);
}

bool ccaas_dump_interrupted(void)
{
	return sock.dump_interrupted;
}

int ccaas_subscribe(struct nl_sock *s, const char *group)
{
	unsigned int i;
	int ret = connect_family(), err;

	if (ret)
		return ret;
	for (i = 0; i < family.n_mcgrps; i++)
		if (!strcmp(family.mcgrps[i].name, group))
			break;
	if (i == family.n_mcgrps) {
		fprintf(stderr, "Error: the %s family has no multicast group \"%s\"\n",
			CCAAS_FAMILY_NAME, group);
		return CCACTL_EXIT_KERNEL;
	}
	err = nl_open(s, NETLINK_GENERIC);
	if (!err) {
		err = nl_join_group(s, family.mcgrps[i].id);
		if (err)
			nl_close(s);
	}
	if (err) {
		fprintf(stderr, "Error: cannot join multicast group \"%s\": %s\n",
			group, strerror(-err));
		return CCACTL_EXIT_KERNEL;
	}
	return CCACTL_EXIT_OK;
}

const struct nl_genl_family *ccaas_family(void)
{
	return &family;
}

void ccaas_close(void)
{
	nl_close(&sock);
	connected = false;
}
