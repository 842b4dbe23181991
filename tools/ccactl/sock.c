// SPDX-License-Identifier: GPL-2.0-only
/*
 * ccactl: the "sock" object — the namespace's TCP connections (SYN_SENT
 * to LAST_ACK)
 * as ccaas sees them.
 *   ccactl sock show [cca NAME] [locality LOC] [dport PORT] [sport PORT]
 *                    [cgroup PATH]
 * One CCAAS_CMD_SOCK_GET dump; the filters are applied here, not in the
 * kernel. The rule a connection matched is shown by its match, read from
 * a dump of the policy in force (the same generation before and after
 * the sockets', else the dump is taken again).
 */
#include <arpa/inet.h>
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <linux/ccaas.h>
#include <linux/genetlink.h>

#include "ccactl.h"
#include "cgroup.h"
#include "family.h"
#include "json.h"
#include "objects.h"
#include "table.h"
#include "words.h"

#define HAS(si, attr)	((si)->has & (1u << (attr)))

struct sock_info {
	uint32_t has;		/* bit n: attribute n was sent */
	uint64_t cookie;
	uint8_t family, locality, ecn, ecn_mode, pinned, logged;
	uint8_t saddr[16], daddr[16];
	uint8_t saddr_len, daddr_len;	/* 4 or 16 */
	uint16_t sport, dport, server_port;
	uint32_t generation, region, dc, min_rto_us, init_cwnd, tso_segs, rule;
	uint64_t cgroup_id;
	char cca[CCAAS_CCA_NAME_MAX], policy_cca[CCAAS_CCA_NAME_MAX];
};

/* What "sock show" keeps: NULL or -1 for "any". */
struct sock_filter {
	const char *cca;
	int locality;
	int sport, dport;
	const char *cgroup;	/* canonical path: that cgroup and below */
	char cgroup_buf[CGROUP_PATH_MAX];
};

/* ---- parsing ---- */

static int get_addr(const struct nlattr *a, uint8_t *dst, uint8_t *len)
{
	uint16_t n = mnl_attr_get_payload_len(a);

	if (n != 4 && n != 16)
		return -EBADMSG;
	memcpy(dst, mnl_attr_get_payload(a), n);
	*len = (uint8_t)n;
	return 0;
}

/* One CCAAS_CMD_SOCK_GET message into @si.  0 or -EBADMSG. */
static int sock_parse(const struct nlmsghdr *nlh, struct sock_info *si)
{
	const struct nlattr *a;
	int type, err;

	memset(si, 0, sizeof(*si));
	mnl_attr_for_each(a, nlh, sizeof(struct genlmsghdr)) {
		type = mnl_attr_get_type(a);
		switch (type) {
		case CCAAS_A_SOCK_COOKIE:
			err = nl_attr_u64(a, &si->cookie);
			break;
		case CCAAS_A_SOCK_FAMILY:
			err = nl_attr_u8(a, &si->family);
			break;
		case CCAAS_A_SOCK_SADDR:
			err = get_addr(a, si->saddr, &si->saddr_len);
			break;
		case CCAAS_A_SOCK_DADDR:
			err = get_addr(a, si->daddr, &si->daddr_len);
			break;
		case CCAAS_A_SOCK_SPORT:
			err = nl_attr_u16(a, &si->sport);
			break;
		case CCAAS_A_SOCK_DPORT:
			err = nl_attr_u16(a, &si->dport);
			break;
		case CCAAS_A_SOCK_CCA:
			err = nl_attr_str(a, si->cca, sizeof(si->cca));
			break;
		case CCAAS_A_SOCK_POLICY_CCA:
			err = nl_attr_str(a, si->policy_cca, sizeof(si->policy_cca));
			break;
		case CCAAS_A_SOCK_GENERATION:
			err = nl_attr_u32(a, &si->generation);
			break;
		case CCAAS_A_SOCK_LOCALITY:
			err = nl_attr_u8(a, &si->locality);
			break;
		case CCAAS_A_SOCK_REGION:
			err = nl_attr_u32(a, &si->region);
			break;
		case CCAAS_A_SOCK_DC:
			err = nl_attr_u32(a, &si->dc);
			break;
		case CCAAS_A_SOCK_ECN:
			err = nl_attr_u8(a, &si->ecn);
			break;
		case CCAAS_A_SOCK_ECN_MODE:
			err = nl_attr_u8(a, &si->ecn_mode);
			break;
		case CCAAS_A_SOCK_PINNED:
			err = nl_attr_u8(a, &si->pinned);
			break;
		case CCAAS_A_SOCK_MIN_RTO_US:
			err = nl_attr_u32(a, &si->min_rto_us);
			break;
		case CCAAS_A_SOCK_INIT_CWND:
			err = nl_attr_u32(a, &si->init_cwnd);
			break;
		case CCAAS_A_SOCK_TSO_SEGS:
			err = nl_attr_u32(a, &si->tso_segs);
			break;
		case CCAAS_A_SOCK_LOGGED:
			err = nl_attr_u8(a, &si->logged);
			break;
		case CCAAS_A_SOCK_CGROUP_ID:
			err = nl_attr_u64(a, &si->cgroup_id);
			break;
		case CCAAS_A_SOCK_RULE:
			err = nl_attr_u32(a, &si->rule);
			break;
		case CCAAS_A_SOCK_SERVER_PORT:
			err = nl_attr_u16(a, &si->server_port);
			break;
		default:	/* padding, or newer than us */
			continue;
		}
		if (err)
			return err;
		si->has |= 1u << type;
	}
	return 0;
}

/* ---- formatting ---- */

/* names[v], or v in decimal in @buf for a value newer than us */
static const char *enum_name(const char *const *names, size_t n,
			     unsigned int v, char *buf, size_t len)
{
	if (v < n)
		return names[v];
	snprintf(buf, len, "%u", v);
	return buf;
}

/* "@key": names[v] as a JSON string, or v as a number if we do not know it */
static void print_enum(const char *key, const char *const *names, size_t n,
		       unsigned int v)
{
	if (v < n)
		print_string(PRINT_JSON, key, "%s", names[v]);
	else
		print_uint(PRINT_JSON, key, "%llu", v);
}

/* "10.0.0.1" or "fe80::1" (@brackets: "[fe80::1]"). */
static void addr_string(const uint8_t *addr, uint8_t len, bool brackets,
			char *buf, size_t size)
{
	char tmp[INET6_ADDRSTRLEN];

	if (!inet_ntop(len == 16 ? AF_INET6 : AF_INET, addr, tmp, sizeof(tmp)))
		snprintf(tmp, sizeof(tmp), "?");
	snprintf(buf, size, len == 16 && brackets ? "[%s]" : "%s", tmp);
}

/* "addr:port" for the text table; "*" for what the kernel did not send. */
static void endpoint_string(const struct sock_info *si, bool local,
			    char *buf, size_t size)
{
	const uint8_t *addr = local ? si->saddr : si->daddr;
	uint8_t alen = local ? si->saddr_len : si->daddr_len;
	bool has_port = HAS(si, local ? CCAAS_A_SOCK_SPORT : CCAAS_A_SOCK_DPORT);
	char a[INET6_ADDRSTRLEN + 2] = "*", p[8] = "*";

	if (alen)
		addr_string(addr, alen, true, a, sizeof(a));
	if (has_port)
		snprintf(p, sizeof(p), "%u", local ? si->sport : si->dport);
	snprintf(buf, size, "%s:%s", a, p);
}

/* Microseconds as "4ms", "200ms", "1.5ms", "750us" or "1s". */
static void usecs_string(uint32_t us, char *buf, size_t len)
{
	size_t n;

	if (us < 1000) {
		snprintf(buf, len, "%uus", us);
	} else if (us % 1000) {
		/* milliseconds with up to three decimals, no trailing zeros */
		n = (size_t)snprintf(buf, len, "%u.%03u", us / 1000, us % 1000);
		while (n < len && buf[n - 1] == '0')
			buf[--n] = '\0';
		snprintf(buf + n, len - n, "ms");
	} else if (us % 1000000 == 0) {
		snprintf(buf, len, "%us", us / 1000000);
	} else {
		snprintf(buf, len, "%ums", us / 1000);
	}
}

/* The policy's rules as match texts, for the RULE of each connection. */
struct rule_texts {
	char **v;
	size_t n;
};

/* The match of the rule @si matched, or NULL. */
static const char *rule_text(const struct sock_info *si,
			     const struct rule_texts *rt)
{
	if (!HAS(si, CCAAS_A_SOCK_RULE) || si->rule >= rt->n)
		return NULL;
	return rt->v[si->rule];
}

/* One connection as a JSON object; what the kernel did not send is left out. */
static void sock_print_json(const struct sock_info *si,
			    const struct rule_texts *rt)
{
	const char *text;
	char buf[INET6_ADDRSTRLEN + 2];

	open_json_object(NULL);
	if (HAS(si, CCAAS_A_SOCK_COOKIE))
		print_uint(PRINT_JSON, "cookie", "%llu", si->cookie);
	if (HAS(si, CCAAS_A_SOCK_FAMILY)) {
		if (si->family == AF_INET || si->family == AF_INET6)
			print_string(PRINT_JSON, "family", "%s",
				     si->family == AF_INET ? "inet" : "inet6");
		else
			print_uint(PRINT_JSON, "family", "%llu", si->family);
	}
	if (si->saddr_len) {
		addr_string(si->saddr, si->saddr_len, false, buf, sizeof(buf));
		print_string(PRINT_JSON, "saddr", "%s", buf);
	}
	if (HAS(si, CCAAS_A_SOCK_SPORT))
		print_uint(PRINT_JSON, "sport", "%llu", si->sport);
	if (si->daddr_len) {
		addr_string(si->daddr, si->daddr_len, false, buf, sizeof(buf));
		print_string(PRINT_JSON, "daddr", "%s", buf);
	}
	if (HAS(si, CCAAS_A_SOCK_DPORT))
		print_uint(PRINT_JSON, "dport", "%llu", si->dport);
	if (HAS(si, CCAAS_A_SOCK_CCA))
		print_string(PRINT_JSON, "cca", "%s", si->cca);
	if (HAS(si, CCAAS_A_SOCK_POLICY_CCA))
		print_string(PRINT_JSON, "policy_cca", "%s", si->policy_cca);
	if (HAS(si, CCAAS_A_SOCK_GENERATION))
		print_uint(PRINT_JSON, "generation", "%llu", si->generation);
	if (HAS(si, CCAAS_A_SOCK_LOCALITY))
		print_enum("locality", locality_names, ARRAY_SIZE(locality_names),
			   si->locality);
	if (HAS(si, CCAAS_A_SOCK_REGION))
		print_uint(PRINT_JSON, "region", "%llu", si->region);
	if (HAS(si, CCAAS_A_SOCK_DC))
		print_uint(PRINT_JSON, "dc", "%llu", si->dc);
	if (HAS(si, CCAAS_A_SOCK_ECN))
		print_bool(PRINT_JSON, "ecn", "%s", si->ecn);
	if (HAS(si, CCAAS_A_SOCK_ECN_MODE))
		print_enum("ecn_mode", ecn_mode_names, ARRAY_SIZE(ecn_mode_names),
			   si->ecn_mode);
	if (HAS(si, CCAAS_A_SOCK_PINNED))
		print_bool(PRINT_JSON, "pinned", "%s", si->pinned);
	if (HAS(si, CCAAS_A_SOCK_MIN_RTO_US))
		print_uint(PRINT_JSON, "min_rto_us", "%llu", si->min_rto_us);
	if (HAS(si, CCAAS_A_SOCK_INIT_CWND))
		print_uint(PRINT_JSON, "init_cwnd", "%llu", si->init_cwnd);
	if (HAS(si, CCAAS_A_SOCK_TSO_SEGS))
		print_uint(PRINT_JSON, "tso_segs", "%llu", si->tso_segs);
	if (HAS(si, CCAAS_A_SOCK_LOGGED))
		print_bool(PRINT_JSON, "logged", "%s", si->logged);
	if (HAS(si, CCAAS_A_SOCK_CGROUP_ID)) {
		text = cgroup_name(si->cgroup_id);
		if (text)
			print_string(PRINT_JSON, "cgroup", "%s", text);
		print_uint(PRINT_JSON, "cgroup_id", "%llu", si->cgroup_id);
	}
	if (HAS(si, CCAAS_A_SOCK_SERVER_PORT))
		print_uint(PRINT_JSON, "server_port", "%llu", si->server_port);
	if (HAS(si, CCAAS_A_SOCK_RULE)) {
		print_uint(PRINT_JSON, "rule", "%llu", si->rule);
		text = rule_text(si, rt);
		if (text)
			print_string(PRINT_JSON, "rule_match", "%s", text);
	}
	close_json_object();
}

/* Text columns; the "stats" ones only with -s. */
enum {
	COL_LOCAL, COL_PEER, COL_CCA, COL_POLICY, COL_GEN, COL_LOCALITY,
	COL_REGION_DC, COL_ECN, COL_PINNED, COL_MIN_RTO, COL_INIT_CWND,
	COL_TSO_SEGS, COL_LOGGED, COL_CGROUP, COL_RULE, COL_COOKIE, N_COLS
};

static const struct {
	const char *header;
	bool stats;
} columns[N_COLS] = {
	[COL_LOCAL]	= { "LOCAL", false },
	[COL_PEER]	= { "PEER", false },
	[COL_CCA]	= { "CCA", false },
	[COL_POLICY]	= { "POLICY", false },
	[COL_GEN]	= { "GEN", true },
	[COL_LOCALITY]	= { "LOCALITY", false },
	[COL_REGION_DC]	= { "REGION/DC", false },
	[COL_ECN]	= { "ECN", false },
	[COL_PINNED]	= { "PINNED", false },
	[COL_MIN_RTO]	= { "MIN_RTO", false },
	[COL_INIT_CWND]	= { "INIT_CWND", true },
	[COL_TSO_SEGS]	= { "TSO_SEGS", true },
	[COL_LOGGED]	= { "CCALOG", true },
	[COL_CGROUP]	= { "CGROUP", false },
	[COL_RULE]	= { "RULE", true },
	[COL_COOKIE]	= { "COOKIE", false },
};

/* Cell texts of one connection; NULL cells print as "-". */
struct sock_row {
	char local[INET6_ADDRSTRLEN + 8], peer[INET6_ADDRSTRLEN + 8];
	char gen[12], locality[12], ecn_mode[12], region_dc[24], min_rto[16];
	char init_cwnd[12], tso_segs[12], cookie[24], cgroup[24];
	const char *cells[N_COLS];
};

static const char *yes_no(const struct sock_info *si, int attr, uint8_t v)
{
	return HAS(si, attr) ? (v ? "yes" : "no") : NULL;
}

static void sock_row(const struct sock_info *si, const struct rule_texts *rt,
		     struct sock_row *r)
{
	const char **c = r->cells;

	memset(c, 0, sizeof(r->cells));
	endpoint_string(si, true, r->local, sizeof(r->local));
	c[COL_LOCAL] = r->local;
	endpoint_string(si, false, r->peer, sizeof(r->peer));
	c[COL_PEER] = r->peer;
	if (HAS(si, CCAAS_A_SOCK_CCA))
		c[COL_CCA] = si->cca;
	if (HAS(si, CCAAS_A_SOCK_POLICY_CCA))
		c[COL_POLICY] = si->policy_cca;
	if (HAS(si, CCAAS_A_SOCK_GENERATION)) {
		snprintf(r->gen, sizeof(r->gen), "%u", si->generation);
		c[COL_GEN] = r->gen;
	}
	if (HAS(si, CCAAS_A_SOCK_LOCALITY))
		c[COL_LOCALITY] = enum_name(locality_names, ARRAY_SIZE(locality_names),
					    si->locality, r->locality,
					    sizeof(r->locality));
	/* Region and DC mean nothing for an address no scope entry covers. */
	if (HAS(si, CCAAS_A_SOCK_REGION) && HAS(si, CCAAS_A_SOCK_DC) &&
	    (si->locality != CCAAS_LOCALITY_UNKNOWN || si->region || si->dc)) {
		snprintf(r->region_dc, sizeof(r->region_dc), "%u/%u",
			 si->region, si->dc);
		c[COL_REGION_DC] = r->region_dc;
	}
	/* The mode where the kernel tells it, else whether ECN is on. */
	if (HAS(si, CCAAS_A_SOCK_ECN_MODE))
		c[COL_ECN] = enum_name(ecn_mode_names, ARRAY_SIZE(ecn_mode_names),
				       si->ecn_mode, r->ecn_mode,
				       sizeof(r->ecn_mode));
	else
		c[COL_ECN] = yes_no(si, CCAAS_A_SOCK_ECN, si->ecn);
	c[COL_PINNED] = yes_no(si, CCAAS_A_SOCK_PINNED, si->pinned);
	if (HAS(si, CCAAS_A_SOCK_MIN_RTO_US)) {
		usecs_string(si->min_rto_us, r->min_rto, sizeof(r->min_rto));
		c[COL_MIN_RTO] = r->min_rto;
	}
	if (HAS(si, CCAAS_A_SOCK_INIT_CWND)) {
		snprintf(r->init_cwnd, sizeof(r->init_cwnd), "%u", si->init_cwnd);
		c[COL_INIT_CWND] = r->init_cwnd;
	}
	if (HAS(si, CCAAS_A_SOCK_TSO_SEGS)) {
		snprintf(r->tso_segs, sizeof(r->tso_segs), "%u", si->tso_segs);
		c[COL_TSO_SEGS] = r->tso_segs;
	}
	c[COL_LOGGED] = yes_no(si, CCAAS_A_SOCK_LOGGED, si->logged);
	if (HAS(si, CCAAS_A_SOCK_CGROUP_ID)) {
		c[COL_CGROUP] = cgroup_name(si->cgroup_id);
		if (!c[COL_CGROUP]) {
			snprintf(r->cgroup, sizeof(r->cgroup), "id:%llu",
				 (unsigned long long)si->cgroup_id);
			c[COL_CGROUP] = r->cgroup;
		}
	}
	c[COL_RULE] = rule_text(si, rt);
	if (HAS(si, CCAAS_A_SOCK_COOKIE)) {
		snprintf(r->cookie, sizeof(r->cookie), "%llu",
			 (unsigned long long)si->cookie);
		c[COL_COOKIE] = r->cookie;
	}
}

/* ---- sock show ---- */

struct sock_vec {
	struct sock_info *v;
	size_t n, cap;
	const struct sock_filter *filter;
};

static bool sock_wanted(const struct sock_info *si, const struct sock_filter *f)
{
	if (f->cca && (!HAS(si, CCAAS_A_SOCK_CCA) || strcmp(si->cca, f->cca)))
		return false;
	if (f->locality >= 0 && (!HAS(si, CCAAS_A_SOCK_LOCALITY) ||
				 si->locality != f->locality))
		return false;
	if (f->sport >= 0 && (!HAS(si, CCAAS_A_SOCK_SPORT) || si->sport != f->sport))
		return false;
	if (f->dport >= 0 && (!HAS(si, CCAAS_A_SOCK_DPORT) || si->dport != f->dport))
		return false;
	if (f->cgroup) {
		const char *name = HAS(si, CCAAS_A_SOCK_CGROUP_ID) ?
				   cgroup_name(si->cgroup_id) : NULL;
		size_t len = strlen(f->cgroup);

		if (!name || (strcmp(f->cgroup, "/") &&
			      (strncmp(name, f->cgroup, len) ||
			       (name[len] && name[len] != '/'))))
			return false;
	}
	return true;
}

static int sock_collect_cb(const struct nlmsghdr *nlh, void *data)
{
	struct sock_vec *vec = data;
	int err;

	if (vec->n == vec->cap) {
		size_t cap = vec->cap ? 2 * vec->cap : 64;
		struct sock_info *v = realloc(vec->v, cap * sizeof(*v));

		if (!v)
			return -ENOMEM;
		vec->v = v;
		vec->cap = cap;
	}
	err = sock_parse(nlh, &vec->v[vec->n]);
	if (err)
		return err;
	if (sock_wanted(&vec->v[vec->n], vec->filter))
		vec->n++;
	return 0;
}

/* Order: IPv4 before IPv6, then local address and port, then the peer's. */
static int sock_cmp(const void *pa, const void *pb)
{
	const struct sock_info *a = pa, *b = pb;
	int d;

	if (a->saddr_len != b->saddr_len)
		return a->saddr_len - b->saddr_len;
	d = memcmp(a->saddr, b->saddr, a->saddr_len);
	if (d)
		return d;
	if (a->sport != b->sport)
		return a->sport - b->sport;
	if (a->daddr_len != b->daddr_len)
		return a->daddr_len - b->daddr_len;
	d = memcmp(a->daddr, b->daddr, a->daddr_len);
	if (d)
		return d;
	if (a->dport != b->dport)
		return a->dport - b->dport;
	return a->cookie < b->cookie ? -1 : a->cookie > b->cookie;
}

static int sock_show_text(const struct sock_vec *vec,
			  const struct rule_texts *rt)
{
	const char *headers[N_COLS];
	unsigned int c, ncols = 0;
	struct table *t;
	size_t i;

	if (!vec->n)
		return CCACTL_EXIT_OK;
	for (c = 0; c < N_COLS; c++)
		if (ccactl_opts.stats || !columns[c].stats)
			headers[ncols++] = columns[c].header;
	t = table_new(ncols, headers);
	if (!t)
		goto nomem;
	for (i = 0; i < vec->n; i++) {
		struct sock_row r;
		const char *cells[N_COLS];
		unsigned int k = 0;

		sock_row(&vec->v[i], rt, &r);
		for (c = 0; c < N_COLS; c++)
			if (ccactl_opts.stats || !columns[c].stats)
				cells[k++] = r.cells[c];
		if (table_add(t, cells))
			goto nomem;
	}
	table_print(t, stdout);
	table_free(t);
	return CCACTL_EXIT_OK;
nomem:
	return table_nomem(t);
}

static int sock_show_args(int argc, char **argv, struct sock_filter *f)
{
	static const char *const words[] = {
		"cca", "locality", "dport", "sport", "cgroup",
	};
	char err[256];
	int i, w, loc;

	for (i = 0; i < argc; i++) {
		w = find_word(argv[i], words, ARRAY_SIZE(words), "sock show filter");
		if (w < 0) {
			fputs("Try \"ccactl sock help\".\n", stderr);
			return CCACTL_EXIT_USAGE;
		}
		if (i + 1 == argc)
			return usage_error("sock show: \"%s\" needs a value", words[w]);
		i++;
		switch (w) {
		case 0:
			if (f->cca)
				return usage_error("sock show: \"cca\" given twice");
			if (!argv[i][0] || strlen(argv[i]) >= CCAAS_CCA_NAME_MAX)
				return usage_error("sock show: invalid CCA name \"%s\" (1 to %d characters)",
						   argv[i], CCAAS_CCA_NAME_MAX - 1);
			f->cca = argv[i];
			break;
		case 1:
			if (f->locality >= 0)
				return usage_error("sock show: \"locality\" given twice");
			loc = find_word(argv[i], locality_names,
					ARRAY_SIZE(locality_names), "locality");
			if (loc < 0) {
				fputs("Localities: unknown, rack, dc, region, xregion.\n",
				      stderr);
				return CCACTL_EXIT_USAGE;
			}
			f->locality = loc;
			break;
		case 4:
			if (f->cgroup)
				return usage_error("sock show: \"cgroup\" given twice");
			if (cgroup_canon(argv[i], true, f->cgroup_buf,
					 sizeof(f->cgroup_buf), err, sizeof(err)))
				return usage_error("sock show: %s", err);
			f->cgroup = f->cgroup_buf;
			break;
		default: {
			int *port = w == 2 ? &f->dport : &f->sport;

			if (*port >= 0)
				return usage_error("sock show: \"%s\" given twice", words[w]);
			*port = parse_port(argv[i]);
			if (*port < 0)
				return usage_error("sock show: invalid port \"%s\" (1 to 65535)",
						   argv[i]);
			break;
		}
		}
	}
	return CCACTL_EXIT_OK;
}

static int sock_show(int argc, char **argv)
{
	struct sock_filter filter = { .cca = NULL, .locality = -1,
				      .sport = -1, .dport = -1 };
	struct sock_vec vec = { .filter = &filter };
	struct rule_texts rt = { NULL, 0 };
	uint32_t gen = 0, gen_after;
	char buf[NL_SEND_BUFSZ];
	struct nlmsghdr *nlh;
	int ret, tries = 0;
	size_t i;

	ret = sock_show_args(argc, argv, &filter);
	if (ret)
		return ret;

	/* the rules in force, unchanged across the dump of the sockets */
	do {
		policy_matches_free(rt.v, rt.n);
		rt.v = NULL;
		rt.n = 0;
		vec.n = 0;
		/* (first: a missing family is said once, by this request) */
		ret = ccaas_msg(buf, CCAAS_CMD_SOCK_GET, NLM_F_DUMP, &nlh);
		if (ret)
			goto out;
		if (policy_matches_of(false, &gen, &rt.v, &rt.n))
			rt.n = 0;	/* an older kernel: no RULE column */
		ret = ccaas_request(nlh, sock_collect_cb, &vec);
		if (ret)
			goto out;
		gen_after = gen;
		if (rt.n && policy_matches_of(false, &gen_after, NULL, NULL))
			break;
	} while (gen_after != gen && ++tries < 3);
	if (gen_after != gen) {
		/* the policy kept changing: no rule is named rather than a wrong one */
		policy_matches_free(rt.v, rt.n);
		rt.v = NULL;
		rt.n = 0;
	}

	qsort(vec.v, vec.n, sizeof(*vec.v), sock_cmp);
	print_begin(stdout, ccactl_opts.json, ccactl_opts.pretty);
	if (print_is_json()) {
		open_json_array(NULL);
		for (i = 0; i < vec.n; i++)
			sock_print_json(&vec.v[i], &rt);
		close_json_array();
	} else {
		ret = sock_show_text(&vec, &rt);
	}
	print_end();
out:
	policy_matches_free(rt.v, rt.n);
	free(vec.v);
	return ret;
}

static const struct ccactl_cmd sock_cmds[] = {
	{ "show", "[cca NAME] [locality LOC] [dport PORT] [sport PORT] [cgroup PATH]",
	  "list TCP connections", sock_show },
	{ NULL, NULL, NULL, NULL },
};

const struct ccactl_object sock_object = {
	.name = "sock",
	.summary = "TCP connections with their CCA, scope and policy",
	.cmds = sock_cmds,
	.default_cmd = "show",
};
