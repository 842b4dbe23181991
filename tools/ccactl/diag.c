// SPDX-License-Identifier: GPL-2.0-only
/*
 * ccactl: an inet_diag dump of established TCP connections.
 *
 * One SOCK_DIAG_BY_FAMILY dump per address family, states ESTABLISHED only,
 * asking for INET_DIAG_CONG so each answer names its CCA.  The cookie is
 * inet_diag's id.idiag_cookie, the same number `ss -e`, `ccactl sock show`
 * and the ccalog tracepoints print.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <linux/inet_diag.h>
#include <linux/netlink.h>
#include <linux/sock_diag.h>

#include "diag.h"
#include "netlink.h"

#ifndef TCP_ESTABLISHED
#define TCP_ESTABLISHED	1
#endif

static int diag_cb(const struct nlmsghdr *nlh, void *data)
{
	const struct inet_diag_msg *m = mnl_nlmsg_get_payload(nlh);
	struct diag_list *list = data;
	struct diag_conn *c;
	const struct nlattr *a;

	if (nlh->nlmsg_len < NLMSG_LENGTH(sizeof(*m)))
		return -EBADMSG;
	if (m->idiag_family != AF_INET && m->idiag_family != AF_INET6)
		return 0;
	if (list->n == list->cap) {
		size_t cap = list->cap ? 2 * list->cap : 64;
		struct diag_conn *v = realloc(list->v, cap * sizeof(*v));

		if (!v)
			return -ENOMEM;
		list->v = v;
		list->cap = cap;
	}
	c = &list->v[list->n];
	memset(c, 0, sizeof(*c));
	c->cookie = (uint64_t)m->id.idiag_cookie[1] << 32 | m->id.idiag_cookie[0];
	c->family = m->idiag_family;
	memcpy(c->saddr, m->id.idiag_src, c->family == AF_INET ? 4 : 16);
	memcpy(c->daddr, m->id.idiag_dst, c->family == AF_INET ? 4 : 16);
	c->sport = ntohs(m->id.idiag_sport);
	c->dport = ntohs(m->id.idiag_dport);
	mnl_attr_for_each(a, nlh, sizeof(*m)) {
		if (mnl_attr_get_type(a) == INET_DIAG_CONG &&
		    nl_attr_str(a, c->cca, sizeof(c->cca)))
			return -EBADMSG;
	}
	list->n++;
	return 0;
}

static int diag_dump(struct nl_sock *s, uint8_t family, struct diag_list *list)
{
	char buf[NL_SEND_BUFSZ];
	struct inet_diag_req_v2 *req;
	struct nlmsghdr *nlh;

	nlh = nl_msg(s, buf, SOCK_DIAG_BY_FAMILY, NLM_F_DUMP);
	req = mnl_nlmsg_put_extra_header(nlh, sizeof(*req));
	req->sdiag_family = family;
	req->sdiag_protocol = IPPROTO_TCP;
	req->idiag_states = 1u << TCP_ESTABLISHED;
	req->idiag_ext = 1u << (INET_DIAG_CONG - 1);
	return nl_transact(s, nlh, diag_cb, list);
}

int diag_established(struct diag_list *list)
{
	struct nl_sock s;
	int err;

	memset(list, 0, sizeof(*list));
	err = nl_open(&s, NETLINK_SOCK_DIAG);
	if (err)
		return err;
	err = diag_dump(&s, AF_INET, list);
	if (!err)
		err = diag_dump(&s, AF_INET6, list);
	nl_close(&s);
	if (err)
		diag_free(list);
	return err;
}

void diag_free(struct diag_list *list)
{
	free(list->v);
	memset(list, 0, sizeof(*list));
}

const struct diag_conn *diag_find(const struct diag_list *list, uint64_t cookie)
{
	size_t i;

	for (i = 0; i < list->n; i++)
		if (list->v[i].cookie == cookie)
			return &list->v[i];
	return NULL;
}
