/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * ccactl: the connection to the "ccaas" generic netlink family, shared by
 * every object (and every line of a batch).  Functions return ccactl exit
 * codes and print the "Error: ..." line themselves.
 */
#ifndef CCACTL_FAMILY_H
#define CCACTL_FAMILY_H

#include <stdbool.h>
#include <stdint.h>

#include "netlink.h"

/*
 * Start a ccaas request for @cmd in @buf (NL_SEND_BUFSZ bytes), connecting
 * and resolving the family on first use.  On success *@nlhp is the message
 * to add attributes to.
 */
int ccaas_msg(void *buf, uint8_t cmd, uint16_t flags, struct nlmsghdr **nlhp);

/* Run a request started by ccaas_msg(); @cb gets each data message. */
int ccaas_request(struct nlmsghdr *req, nl_data_cb cb, void *data);

/* The same without printing anything: 0 or -errno. */
int ccaas_request_quiet(struct nlmsghdr *req, nl_data_cb cb, void *data);

/* Whether the last request's dump was flagged NLM_F_DUMP_INTR. */
bool ccaas_dump_interrupted(void);

/*
 * Open @s as a second socket that only listens, and join the family's
 * multicast group @group on it (resolving the family on first use, so a
 * missing module gives the usual error).  The caller reads it with
 * nl_recv_notifications() and closes it with nl_close().
 */
int ccaas_subscribe(struct nl_sock *s, const char *group);

/* The resolved family (valid after a successful ccaas_msg()). */
const struct nl_genl_family *ccaas_family(void);

void ccaas_close(void);

#endif /* CCACTL_FAMILY_H */
