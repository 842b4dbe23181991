// SPDX-License-Identifier: GPL-2.0-only
/*
 * ccactl: generic netlink over libmnl (see netlink.h).
 */
#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <linux/genetlink.h>
#include <linux/netlink.h>

#include "netlink.h"

int nl_open(struct nl_sock *s, int bus)
{
	int one = 1, err;

	memset(s, 0, offsetof(struct nl_sock, buf));
	s->ext_miss_type = -1;
	s->mnl = mnl_socket_open(bus);
	if (!s->mnl)
		return -errno;
	if (mnl_socket_bind(s->mnl, 0, MNL_SOCKET_AUTOPID) < 0) {
		err = -errno;
		nl_close(s);
		return err;
	}
	/*
	 * Ask for error messages (extack) and for errors without a copy of
	 * our request.  Kernels too old for either still work, with plainer
	 * errors, so failures here are not fatal.
	 */
	mnl_socket_setsockopt(s->mnl, NETLINK_EXT_ACK, &one, sizeof(one));
	mnl_socket_setsockopt(s->mnl, NETLINK_CAP_ACK, &one, sizeof(one));
	s->portid = mnl_socket_get_portid(s->mnl);
	s->seq = (uint32_t)time(NULL);
	return 0;
}

void nl_close(struct nl_sock *s)
{
	if (s->mnl)
		mnl_socket_close(s->mnl);
	s->mnl = NULL;
}

struct nlmsghdr *nl_msg(struct nl_sock *s, void *buf, uint16_t type,
		       uint16_t flags)
{
	struct nlmsghdr *nlh;

	/* libmnl before 1.0.5 leaves attribute padding uninitialised. */
	memset(buf, 0, NL_SEND_BUFSZ);
	nlh = mnl_nlmsg_put_header(buf);
	nlh->nlmsg_type = type;
	nlh->nlmsg_flags = NLM_F_REQUEST | flags;
	nlh->nlmsg_seq = ++s->seq;
	return nlh;
}

struct nlmsghdr *nl_genl_msg(struct nl_sock *s, void *buf, uint16_t family,
			     uint8_t cmd, uint8_t version, uint16_t flags)
{
	struct nlmsghdr *nlh = nl_msg(s, buf, family, flags);
	struct genlmsghdr *genl;

	genl = mnl_nlmsg_put_extra_header(nlh, sizeof(*genl));
	genl->cmd = cmd;
	genl->version = version;
	return nlh;
}

/* Pick the extack attributes that start @off bytes into @nlh's payload. */
static void parse_ext_ack(struct nl_sock *s, const struct nlmsghdr *nlh,
			  size_t off)
{
	const struct nlattr *attr;

	if (!(nlh->nlmsg_flags & NLM_F_ACK_TLVS))
		return;
	if (MNL_ALIGN(off) > mnl_nlmsg_get_payload_len(nlh))
		return;
	mnl_attr_for_each(attr, nlh, off) {
		switch (mnl_attr_get_type(attr)) {
		case NLMSGERR_ATTR_MSG:
			if (mnl_attr_validate(attr, MNL_TYPE_NUL_STRING) == 0)
				snprintf(s->ext_msg, sizeof(s->ext_msg), "%s",
					 mnl_attr_get_str(attr));
			break;
		case NLMSGERR_ATTR_MISS_TYPE:
			if (mnl_attr_validate(attr, MNL_TYPE_U32) == 0)
				s->ext_miss_type = mnl_attr_get_u32(attr);
			break;
		}
	}
}

/* NLMSG_ERROR: an ack (error 0) or a failure.  Returns 0 or -errno. */
static int handle_error_msg(struct nl_sock *s, const struct nlmsghdr *nlh)
{
	const struct nlmsgerr *e = mnl_nlmsg_get_payload(nlh);
	size_t off = sizeof(*e);

	if (mnl_nlmsg_get_payload_len(nlh) < sizeof(*e))
		return -EBADMSG;
	/* Without NETLINK_CAP_ACK our request's payload is echoed first. */
	if (!(nlh->nlmsg_flags & NLM_F_CAPPED) &&
	    e->msg.nlmsg_len >= sizeof(struct nlmsghdr))
		off += e->msg.nlmsg_len - sizeof(struct nlmsghdr);
	parse_ext_ack(s, nlh, off);
	return e->error > 0 ? -e->error : e->error;
}

/* NLMSG_DONE: may carry the dump's error and extack.  Returns 0 or -errno. */
static int handle_done_msg(struct nl_sock *s, const struct nlmsghdr *nlh)
{
	int err;

	if (mnl_nlmsg_get_payload_len(nlh) < sizeof(int))
		return 0;
	memcpy(&err, mnl_nlmsg_get_payload(nlh), sizeof(err));
	parse_ext_ack(s, nlh, sizeof(int));
	return err > 0 ? -err : err;
}

int nl_transact(struct nl_sock *s, struct nlmsghdr *req, nl_data_cb cb,
		void *data)
{
	const bool dump = req->nlmsg_flags & NLM_F_DUMP;
	const uint32_t seq = req->nlmsg_seq;
	int cb_err = 0;

	if (!dump)
		req->nlmsg_flags |= NLM_F_ACK;
	s->ext_msg[0] = '\0';
	s->ext_miss_type = -1;
	s->dump_interrupted = false;

	if (mnl_socket_sendto(s->mnl, req, req->nlmsg_len) < 0)
		return -errno;

	for (;;) {
		struct nlmsghdr *nlh;
		ssize_t got;
		int len;

		got = mnl_socket_recvfrom(s->mnl, s->buf, sizeof(s->buf));
		if (got < 0) {
			if (errno == EINTR)
				continue;
			return -errno;	/* ENOSPC: datagram was truncated */
		}
		len = (int)got;
		for (nlh = (struct nlmsghdr *)s->buf; mnl_nlmsg_ok(nlh, len);
		     nlh = mnl_nlmsg_next(nlh, &len)) {
			int err;

			/*
			 * Not a reply to this request (e.g. the tail of one
			 * abandoned earlier): skip it.
			 */
			if (!mnl_nlmsg_portid_ok(nlh, s->portid) ||
			    !mnl_nlmsg_seq_ok(nlh, seq))
				continue;

			switch (nlh->nlmsg_type) {
			case NLMSG_NOOP:
				continue;
			case NLMSG_ERROR:
				err = handle_error_msg(s, nlh);
				return err ? err : cb_err;
			case NLMSG_DONE:
				err = handle_done_msg(s, nlh);
				return err ? err : cb_err;
			case NLMSG_OVERRUN:
				return -EOVERFLOW;
			}
			if (nlh->nlmsg_flags & NLM_F_DUMP_INTR)
				s->dump_interrupted = true;
			/*
			 * After a callback error, read on to the end but hand
			 * nothing more to it.
			 */
			if (cb && !cb_err)
				cb_err = cb(nlh, data);
		}
		if (len > 0)
			return -EBADMSG;	/* a partial message */
	}
}

/* Multicast groups: a nest of nests of (CTRL_ATTR_MCAST_GRP_NAME, _ID). */
static void parse_mcgrps(const struct nlattr *nest, struct nl_genl_family *fam)
{
	const struct nlattr *grp, *a;

	mnl_attr_for_each_nested(grp, nest) {
		const char *name = NULL;
		uint32_t id = 0;

		if (fam->n_mcgrps == NL_MCGRPS_MAX)
			return;
		mnl_attr_for_each_nested(a, grp) {
			if (mnl_attr_get_type(a) == CTRL_ATTR_MCAST_GRP_NAME &&
			    mnl_attr_validate(a, MNL_TYPE_NUL_STRING) == 0)
				name = mnl_attr_get_str(a);
			else if (mnl_attr_get_type(a) == CTRL_ATTR_MCAST_GRP_ID &&
				 mnl_attr_validate(a, MNL_TYPE_U32) == 0)
				id = mnl_attr_get_u32(a);
		}
		if (!name)
			continue;
		snprintf(fam->mcgrps[fam->n_mcgrps].name,
			 sizeof(fam->mcgrps[0].name), "%s", name);
		fam->mcgrps[fam->n_mcgrps].id = id;
		fam->n_mcgrps++;
	}
}

static int family_cb(const struct nlmsghdr *nlh, void *data)
{
	struct nl_genl_family *fam = data;
	const struct nlattr *a;
	bool have_id = false;

	mnl_attr_for_each(a, nlh, sizeof(struct genlmsghdr)) {
		switch (mnl_attr_get_type(a)) {
		case CTRL_ATTR_FAMILY_ID:
			if (mnl_attr_validate(a, MNL_TYPE_U16) < 0)
				return -EBADMSG;
			fam->id = mnl_attr_get_u16(a);
			have_id = true;
			break;
		case CTRL_ATTR_VERSION:
			if (mnl_attr_validate(a, MNL_TYPE_U32) == 0)
				fam->version = mnl_attr_get_u32(a);
			break;
		case CTRL_ATTR_MAXATTR:
			if (mnl_attr_validate(a, MNL_TYPE_U32) == 0)
				fam->maxattr = mnl_attr_get_u32(a);
			break;
		case CTRL_ATTR_MCAST_GROUPS:
			parse_mcgrps(a, fam);
			break;
		}
	}
	return have_id ? 0 : -EBADMSG;
}

int nl_genl_resolve(struct nl_sock *s, const char *name,
		    struct nl_genl_family *fam)
{
	char buf[NL_SEND_BUFSZ];
	struct nlmsghdr *nlh;

	memset(fam, 0, sizeof(*fam));
	nlh = nl_genl_msg(s, buf, GENL_ID_CTRL, CTRL_CMD_GETFAMILY, 1, 0);
	mnl_attr_put_strz(nlh, CTRL_ATTR_FAMILY_NAME, name);
	return nl_transact(s, nlh, family_cb, fam);
}

int nl_join_group(struct nl_sock *s, uint32_t group)
{
	int id = (int)group;

	if (mnl_socket_setsockopt(s->mnl, NETLINK_ADD_MEMBERSHIP, &id,
				  sizeof(id)) < 0)
		return -errno;
	return 0;
}

int nl_recv_notifications(struct nl_sock *s, nl_data_cb cb, void *data)
{
	struct nlmsghdr *nlh;
	ssize_t got;
	int len, err;

	got = mnl_socket_recvfrom(s->mnl, s->buf, sizeof(s->buf));
	if (got < 0)
		return errno == EINTR || errno == EAGAIN ? 0 : -errno;
	len = (int)got;
	for (nlh = (struct nlmsghdr *)s->buf; mnl_nlmsg_ok(nlh, len);
	     nlh = mnl_nlmsg_next(nlh, &len)) {
		if (nlh->nlmsg_type < NLMSG_MIN_TYPE)
			continue;	/* no acks or errors on a listening socket */
		err = cb(nlh, data);
		if (err)
			return err;
	}
	return 0;
}

int nl_attr_str(const struct nlattr *a, char *dst, size_t len)
{
	if (mnl_attr_validate(a, MNL_TYPE_NUL_STRING) < 0 ||
	    strlen(mnl_attr_get_str(a)) >= len)
		return -EBADMSG;
	snprintf(dst, len, "%s", mnl_attr_get_str(a));
	return 0;
}

int nl_attr_u8(const struct nlattr *a, uint8_t *v)
{
	if (mnl_attr_validate(a, MNL_TYPE_U8) < 0)
		return -EBADMSG;
	*v = mnl_attr_get_u8(a);
	return 0;
}

int nl_attr_u16(const struct nlattr *a, uint16_t *v)
{
	if (mnl_attr_validate(a, MNL_TYPE_U16) < 0)
		return -EBADMSG;
	*v = mnl_attr_get_u16(a);
	return 0;
}

int nl_attr_u32(const struct nlattr *a, uint32_t *v)
{
	if (mnl_attr_validate(a, MNL_TYPE_U32) < 0)
		return -EBADMSG;
	*v = mnl_attr_get_u32(a);
	return 0;
}

int nl_attr_u64(const struct nlattr *a, uint64_t *v)
{
	if (mnl_attr_validate(a, MNL_TYPE_U64) < 0)
		return -EBADMSG;
	*v = mnl_attr_get_u64(a);
	return 0;
}
