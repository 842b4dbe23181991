// SPDX-License-Identifier: GPL-2.0-only
/*
 * A fake "ccaas" generic netlink family for host tests of ccactl.
 *
 * Built as a shared object and loaded with LD_PRELOAD, it replaces libmnl's
 * mnl_socket_sendto()/mnl_socket_recvfrom(): requests never reach the
 * kernel; answers are built here the way the kernel builds them (genl
 * controller lookup, CCAAS_CMD_CCA_GET do and dump, acks, errors with
 * extack, NLMSG_DONE) so the tool's netlink handling can be tested on a
 * host without the module.  The real socket is still opened and bound.
 *
 * Knobs (environment):
 *   FAKE_GENL_NO_FAMILY=1   the controller does not know "ccaas"
 *   FAKE_GENL_EMPTY=1       no CCA is registered
 *   FAKE_GENL_DONE_ERR=1    the dump ends with -EBUSY and an extack message
 *   FAKE_GENL_NO_CAP=1      ignore NETLINK_CAP_ACK (errors echo the request)
 *   FAKE_GENL_LOG=FILE      append one line per socket option and request
 *
 * The dump comes in several datagrams, out of name order, led by two
 * messages that are not replies to the request (wrong sequence number,
 * wrong port id) which ccactl must skip.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/ccaas.h>
#include <linux/genetlink.h>
#include <linux/netlink.h>
#include <libmnl/libmnl.h>

#define FAKE_FAMILY_ID	0x2a
#define FAKE_MCGRP_ID	0x11
#define DGRAM_MAX	8192
#define QUEUE_MAX	16

struct fake_cca {
	const char *name, *module;
	unsigned int version, features, flags;
};

/* Deliberately not sorted by name. */
static const struct fake_cca fake_ccas[] = {
	{ "cca_xregion", "tcp_cca_xregion", CCAAS_VERSION(0, 9, 1),
	  CCAAS_CCA_F_ECN_OK | CCAAS_CCA_F_CONG_CONTROL | 0x80, 0x2 },
	{ "cca_dctcp", "tcp_cca_dctcp", CCAAS_VERSION(1, 2, 3),
	  CCAAS_CCA_F_NEEDS_ECN | CCAAS_CCA_F_ECN_OK | CCAAS_CCA_F_NONECN_OK, 0x2 },
	{ "cca_odd", "odd\"mod\\", CCAAS_VERSION(2, 0, 0), 0, 0 },
	{ "cca_cubic", "tcp_cca_cubic", CCAAS_VERSION(1, 0, 0),
	  CCAAS_CCA_F_ECN_OK | CCAAS_CCA_F_NONECN_OK | CCAAS_CCA_F_TRANSITIONAL, 0 },
};
#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))
#define N_FAKE		ARRAY_SIZE(fake_ccas)

static struct {
	bool ext_ack, cap_ack;
	char dgram[QUEUE_MAX][DGRAM_MAX];
	size_t len[QUEUE_MAX];
	unsigned int head, tail;
	uint32_t portid;
} fake;

static bool knob(const char *name)
{
	const char *v = getenv(name);

	return v && *v && strcmp(v, "0");
}

static void logf_(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void logf_(const char *fmt, ...)
{
	const char *path = getenv("FAKE_GENL_LOG");
	va_list ap;
	FILE *f;

	if (!path)
		return;
	f = fopen(path, "a");
	if (!f)
		return;
	va_start(ap, fmt);
	vfprintf(f, fmt, ap);
	va_end(ap);
	fputc('\n', f);
	fclose(f);
}

/* ---- building answers ---- */

/* Start a new datagram; messages are appended with msg_begin(). */
static void dgram_new(void)
{
	if (fake.tail - fake.head < QUEUE_MAX)
		fake.len[fake.tail++ % QUEUE_MAX] = 0;
}

static struct nlmsghdr *msg_begin(uint16_t type, uint16_t flags, uint32_t seq)
{
	unsigned int i = (fake.tail - 1) % QUEUE_MAX;
	struct nlmsghdr *nlh = mnl_nlmsg_put_header(fake.dgram[i] + fake.len[i]);

	nlh->nlmsg_type = type;
	nlh->nlmsg_flags = flags;
	nlh->nlmsg_seq = seq;
	nlh->nlmsg_pid = fake.portid;
	return nlh;
}

static void msg_end(struct nlmsghdr *nlh)
{
	unsigned int i = (fake.tail - 1) % QUEUE_MAX;

	fake.len[i] += MNL_ALIGN(nlh->nlmsg_len);
}

static struct nlmsghdr *genl_begin(uint16_t type, uint16_t flags, uint32_t seq,
				   uint8_t cmd)
{
	struct nlmsghdr *nlh = msg_begin(type, flags, seq);
	struct genlmsghdr *g = mnl_nlmsg_put_extra_header(nlh, sizeof(*g));

	g->cmd = cmd;
	g->version = 1;
	return nlh;
}

/* NLMSG_ERROR as the kernel's netlink_ack() builds it. */
static void put_error(const struct nlmsghdr *req, int err, const char *msg)
{
	bool capped = !err || (fake.cap_ack && !knob("FAKE_GENL_NO_CAP"));
	bool tlvs = fake.ext_ack && msg;
	struct nlmsghdr *nlh;
	struct nlmsgerr *e;
	size_t size = sizeof(*e);

	if (!capped)
		size += req->nlmsg_len - sizeof(*req);
	nlh = msg_begin(NLMSG_ERROR, (capped ? NLM_F_CAPPED : 0) |
			(tlvs ? NLM_F_ACK_TLVS : 0), req->nlmsg_seq);
	e = mnl_nlmsg_put_extra_header(nlh, size);
	e->error = err;
	memcpy(&e->msg, req, capped ? sizeof(*req) : req->nlmsg_len);
	if (tlvs)
		mnl_attr_put_strz(nlh, NLMSGERR_ATTR_MSG, msg);
	msg_end(nlh);
}

static void put_cca(const struct nlmsghdr *req, uint16_t flags, uint32_t seq,
		    const struct fake_cca *c)
{
	struct nlmsghdr *nlh = genl_begin(FAKE_FAMILY_ID, flags, seq,
					  CCAAS_CMD_CCA_GET);

	(void)req;
	mnl_attr_put_strz(nlh, CCAAS_A_CCA_NAME, c->name);
	mnl_attr_put_u32(nlh, CCAAS_A_CCA_VERSION, c->version);
	mnl_attr_put_u32(nlh, CCAAS_A_CCA_FEATURES, c->features);
	mnl_attr_put_strz(nlh, CCAAS_A_CCA_MODULE, c->module);
	mnl_attr_put_u32(nlh, CCAAS_A_CCA_FLAGS, c->flags);
	mnl_attr_put_u32(nlh, 200, 7);	/* an attribute from the future */
	msg_end(nlh);
}

/* ---- the fake families ---- */

static const char *get_str_attr(const struct nlmsghdr *nlh, uint16_t type)
{
	const struct nlattr *a;

	mnl_attr_for_each(a, nlh, sizeof(struct genlmsghdr))
		if (mnl_attr_get_type(a) == type &&
		    mnl_attr_validate(a, MNL_TYPE_NUL_STRING) == 0)
			return mnl_attr_get_str(a);
	return NULL;
}

static void answer_ctrl(const struct nlmsghdr *req)
{
	const char *name = get_str_attr(req, CTRL_ATTR_FAMILY_NAME);
	struct nlattr *grps, *grp;
	struct nlmsghdr *nlh;

	dgram_new();
	if (!name || strcmp(name, CCAAS_FAMILY_NAME) || knob("FAKE_GENL_NO_FAMILY")) {
		put_error(req, -ENOENT, NULL);
		return;
	}
	nlh = genl_begin(GENL_ID_CTRL, 0, req->nlmsg_seq, CTRL_CMD_NEWFAMILY);
	mnl_attr_put_strz(nlh, CTRL_ATTR_FAMILY_NAME, CCAAS_FAMILY_NAME);
	mnl_attr_put_u16(nlh, CTRL_ATTR_FAMILY_ID, FAKE_FAMILY_ID);
	mnl_attr_put_u32(nlh, CTRL_ATTR_VERSION, CCAAS_FAMILY_VERSION);
	mnl_attr_put_u32(nlh, CTRL_ATTR_HDRSIZE, 0);
	mnl_attr_put_u32(nlh, CTRL_ATTR_MAXATTR, CCAAS_A_CCA_MAX);
	grps = mnl_attr_nest_start(nlh, CTRL_ATTR_MCAST_GROUPS);
	grp = mnl_attr_nest_start(nlh, 1);
	mnl_attr_put_strz(nlh, CTRL_ATTR_MCAST_GRP_NAME, CCAAS_MCGRP_MONITOR);
	mnl_attr_put_u32(nlh, CTRL_ATTR_MCAST_GRP_ID, FAKE_MCGRP_ID);
	mnl_attr_nest_end(nlh, grp);
	mnl_attr_nest_end(nlh, grps);
	msg_end(nlh);
	if (req->nlmsg_flags & NLM_F_ACK)
		put_error(req, 0, NULL);
}

static void answer_cca_dump(const struct nlmsghdr *req)
{
	struct nlmsghdr *nlh;
	unsigned int i, n = knob("FAKE_GENL_EMPTY") ? 0 : N_FAKE;
	bool fail = knob("FAKE_GENL_DONE_ERR");
	int err = -EBUSY;

	/* Not ours: an old sequence number, and another port id. */
	dgram_new();
	put_cca(req, NLM_F_MULTI, req->nlmsg_seq - 1, &fake_ccas[0]);
	nlh = msg_begin(NLMSG_DONE, NLM_F_MULTI, req->nlmsg_seq);
	nlh->nlmsg_pid = fake.portid + 1;
	mnl_nlmsg_put_extra_header(nlh, sizeof(int));
	msg_end(nlh);

	/* Two CCAs per datagram. */
	for (i = 0; i < n; i++) {
		if (i % 2 == 0)
			dgram_new();
		put_cca(req, NLM_F_MULTI, req->nlmsg_seq, &fake_ccas[i]);
	}

	dgram_new();
	nlh = msg_begin(NLMSG_DONE, NLM_F_MULTI, req->nlmsg_seq);
	memcpy(mnl_nlmsg_put_extra_header(nlh, sizeof(int)),
	       fail ? &err : &(int){ 0 }, sizeof(int));
	if (fail && fake.ext_ack) {
		nlh->nlmsg_flags |= NLM_F_ACK_TLVS;
		mnl_attr_put_strz(nlh, NLMSGERR_ATTR_MSG, "fake dump failure");
	}
	msg_end(nlh);
}

static void answer_cca_do(const struct nlmsghdr *req)
{
	const char *name = get_str_attr(req, CCAAS_A_CCA_NAME);
	unsigned int i;

	dgram_new();
	if (!name) {
		put_error(req, -EINVAL, "missing CCA name");
		return;
	}
	for (i = 0; i < N_FAKE; i++) {
		if (!strcmp(fake_ccas[i].name, name)) {
			put_cca(req, 0, req->nlmsg_seq, &fake_ccas[i]);
			if (req->nlmsg_flags & NLM_F_ACK)
				put_error(req, 0, NULL);
			return;
		}
	}
	put_error(req, -ENOENT, "CCA not registered");
}

static void answer(const struct nlmsghdr *req)
{
	const struct genlmsghdr *g = mnl_nlmsg_get_payload(req);

	logf_("request type=%s cmd=%u version=%u flags=0x%x",
	      req->nlmsg_type == GENL_ID_CTRL ? "ctrl" :
	      req->nlmsg_type == FAKE_FAMILY_ID ? "ccaas" : "other",
	      g->cmd, g->version, req->nlmsg_flags);

	if (req->nlmsg_type == GENL_ID_CTRL && g->cmd == CTRL_CMD_GETFAMILY)
		answer_ctrl(req);
	else if (req->nlmsg_type == FAKE_FAMILY_ID &&
		 g->cmd == CCAAS_CMD_CCA_GET && g->version == CCAAS_FAMILY_VERSION)
		(req->nlmsg_flags & NLM_F_DUMP ? answer_cca_dump : answer_cca_do)(req);
	else {
		dgram_new();
		put_error(req, -EOPNOTSUPP, NULL);
	}
}

/* ---- the libmnl functions we stand in for ---- */

int mnl_socket_setsockopt(const struct mnl_socket *nl, int type, void *buf,
			  socklen_t len)
{
	typedef int (*setsockopt_fn)(const struct mnl_socket *nl, int type,
				     void *buf, socklen_t len);
	setsockopt_fn real = (setsockopt_fn)dlsym(RTLD_NEXT, "mnl_socket_setsockopt");
	int on = len >= sizeof(int) && *(int *)buf;

	if (type == NETLINK_EXT_ACK)
		fake.ext_ack = on;
	if (type == NETLINK_CAP_ACK)
		fake.cap_ack = on;
	logf_("setsockopt %s=%d", type == NETLINK_EXT_ACK ? "ext_ack" :
	      type == NETLINK_CAP_ACK ? "cap_ack" : "other", on);
	return real(nl, type, buf, len);
}

ssize_t mnl_socket_sendto(const struct mnl_socket *nl, const void *buf,
			  size_t len)
{
	const struct nlmsghdr *req = buf;

	fake.portid = mnl_socket_get_portid(nl);
	if (len < sizeof(*req) + sizeof(struct genlmsghdr) || req->nlmsg_len != len) {
		errno = EINVAL;
		return -1;
	}
	answer(req);
	return len;
}

ssize_t mnl_socket_recvfrom(const struct mnl_socket *nl, void *buf,
			    size_t bufsiz)
{
	unsigned int i;
	size_t n;

	(void)nl;
	if (fake.head == fake.tail) {
		errno = EAGAIN;	/* the real socket would block forever */
		return -1;
	}
	i = fake.head++ % QUEUE_MAX;
	n = fake.len[i] < bufsiz ? fake.len[i] : bufsiz;
	memcpy(buf, fake.dgram[i], n);
	if (fake.len[i] > bufsiz) {
		errno = ENOSPC;
		return -1;
	}
	return n;
}
