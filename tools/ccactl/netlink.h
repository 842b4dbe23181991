/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * ccactl: generic netlink over libmnl — socket setup with extended acks,
 * family resolution through the genl controller, and request/reply
 * transactions (single requests and multi-part dumps).
 */
#ifndef CCACTL_NETLINK_H
#define CCACTL_NETLINK_H

#include <stdbool.h>
#include <stdint.h>
#include <libmnl/libmnl.h>

/* Large enough for any kernel dump datagram (the kernel caps them at 32 KiB). */
#define NL_RECV_BUFSZ	32768
#define NL_SEND_BUFSZ	8192	/* a request under construction */
#define NL_EXT_MSG_MAX	256
#define NL_MCGRPS_MAX	8

struct nl_sock {
	struct mnl_socket *mnl;
	uint32_t portid;
	uint32_t seq;
	/* From the last transaction: */
	char ext_msg[NL_EXT_MSG_MAX];	/* extack message ("" if none) */
	int ext_miss_type;		/* missing attribute, or -1 */
	bool dump_interrupted;		/* a part had NLM_F_DUMP_INTR */
	char buf[NL_RECV_BUFSZ];
};

struct nl_genl_family {
	uint16_t id;
	uint32_t version;
	uint32_t maxattr;
	unsigned int n_mcgrps;
	struct {
		char name[32];
		uint32_t id;
	} mcgrps[NL_MCGRPS_MAX];
};

/* Handles one data message of a reply; returns 0 or a negative errno. */
typedef int (*nl_data_cb)(const struct nlmsghdr *nlh, void *data);

int nl_open(struct nl_sock *s, int bus);
void nl_close(struct nl_sock *s);

/* Start a request of @type in @buf (NL_SEND_BUFSZ bytes, zeroed first). */
struct nlmsghdr *nl_msg(struct nl_sock *s, void *buf, uint16_t type,
		       uint16_t flags);

/* Start a generic netlink request in @buf (NL_SEND_BUFSZ bytes). */
struct nlmsghdr *nl_genl_msg(struct nl_sock *s, void *buf, uint16_t family,
			     uint8_t cmd, uint8_t version, uint16_t flags);

/*
 * Send @req and read the whole reply, handing each data message to @cb.
 * A request without NLM_F_DUMP gets NLM_F_ACK and ends at the ack; a dump
 * ends at NLMSG_DONE.  Returns 0 or a negative errno (the kernel's, or the
 * first one @cb returned); the extack message is left in s->ext_msg.
 */
int nl_transact(struct nl_sock *s, struct nlmsghdr *req, nl_data_cb cb,
		void *data);

/* Resolve a generic netlink family by name; -ENOENT if it is not there. */
int nl_genl_resolve(struct nl_sock *s, const char *name,
		    struct nl_genl_family *fam);

/* Join multicast group @group (an id from nl_genl_family.mcgrps). */
int nl_join_group(struct nl_sock *s, uint32_t group);

/*
 * Read one datagram of notifications and hand each data message in it to
 * @cb; meant for a socket that only listens (poll its fd first, this
 * blocks otherwise).  Returns 0, @cb's first error, or a negative errno
 * (-ENOBUFS: the kernel dropped messages because the socket was full).
 */
int nl_recv_notifications(struct nl_sock *s, nl_data_cb cb, void *data);

/*
 * Typed reads of one attribute, validated: 0, or -EBADMSG for a wrong type
 * (or, for strings, one that does not fit @len with its NUL).
 */
int nl_attr_str(const struct nlattr *a, char *dst, size_t len);
int nl_attr_u8(const struct nlattr *a, uint8_t *v);
int nl_attr_u16(const struct nlattr *a, uint16_t *v);
int nl_attr_u32(const struct nlattr *a, uint32_t *v);
int nl_attr_u64(const struct nlattr *a, uint64_t *v);

#endif /* CCACTL_NETLINK_H */
