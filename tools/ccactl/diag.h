/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * ccactl: the namespace's TCP connections through sock_diag (NETLINK_SOCK_DIAG,
 * inet_diag), for resolving "log" filters to socket cookies in userspace.
 */
#ifndef CCACTL_DIAG_H
#define CCACTL_DIAG_H

#include <stddef.h>
#include <stdint.h>

struct diag_conn {
	uint64_t cookie;
	uint8_t family;			/* AF_INET or AF_INET6 */
	uint8_t saddr[16], daddr[16];	/* 4 bytes used for AF_INET */
	uint16_t sport, dport;		/* host order */
	char cca[16];			/* "" if the kernel did not say */
};

struct diag_list {
	struct diag_conn *v;
	size_t n, cap;
};

/*
 * Every established TCP connection (IPv4 and IPv6) of the current
 * namespace, with its CCA.  0 or a negative errno; free with diag_free().
 */
int diag_established(struct diag_list *list);
void diag_free(struct diag_list *list);

/* The connection with @cookie in @list, or NULL. */
const struct diag_conn *diag_find(const struct diag_list *list, uint64_t cookie);

#endif /* CCACTL_DIAG_H */
