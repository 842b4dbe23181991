// SPDX-License-Identifier: GPL-2.0-only
/*
 * ccactl: the "scope" object — the table of remote address prefixes and
 * their locality (rack, dc, region, xregion), region and DC ids.
 *   ccactl scope add PREFIX locality LOC [region N] [dc N]
 *   ccactl scope del PREFIX
 *   ccactl scope show [ADDR]     the table, or what a lookup of ADDR returns
 *   ccactl scope flush
 *   ccactl scope load FILE|- [dry_run]
 *                                replace the table in one netlink message;
 *                                dry_run: the kernel checks it, commits
 *                                nothing, and the changes are printed
 *
 * A load file has one entry per line, "PREFIX LOC [region N] [dc N]", and
 * '#' comments.  The whole table travels in one message so the kernel can
 * swap it atomically; for large tables the socket's send buffer is raised
 * with SO_SNDBUFFORCE (which needs CAP_NET_ADMIN, as the load itself does).
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <limits.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <linux/ccaas.h>
#include <linux/genetlink.h>

#include "ccactl.h"
#include "family.h"
#include "json.h"
#include "objects.h"
#include "scope.h"
#include "table.h"
#include "words.h"

const char *scope_locality_name(unsigned int loc)
{
	return loc < ARRAY_SIZE(locality_names) ? locality_names[loc] : "?";
}

/* A locality an entry may have (not "unknown"), or 0. */
static uint8_t locality_parse(const char *s)
{
	unsigned int i;

	for (i = CCAAS_LOCALITY_RACK; i < ARRAY_SIZE(locality_names); i++)
		if (!strcmp(s, locality_names[i]))
			return i;
	return 0;
}

static size_t addr_len(int family)
{
	return family == AF_INET ? 4 : 16;
}

/* A bare IPv4 or IPv6 address.  0, or -1 if @s is not one. */
static int addr_parse(const char *s, struct scope_entry *e)
{
	if (inet_pton(AF_INET, s, e->addr) == 1) {
		e->family = AF_INET;
		return 0;
	}
	if (inet_pton(AF_INET6, s, e->addr) == 1) {
		e->family = AF_INET6;
		return 0;
	}
	return -1;
}

/*
 * "a.b.c.d/len", "x::/len", or a bare address (a host prefix).  Host bits
 * beyond the length are left for the kernel to refuse.  0, or -1.
 */
static int prefix_parse(const char *s, struct scope_entry *e)
{
	const char *slash = strchr(s, '/');
	char addr[INET6_ADDRSTRLEN + 1];
	unsigned long len;
	char *end;

	if (!slash) {
		if (addr_parse(s, e))
			return -1;
		e->prefixlen = e->family == AF_INET ? 32 : 128;
		return 0;
	}
	if ((size_t)(slash - s) >= sizeof(addr))
		return -1;
	memcpy(addr, s, slash - s);
	addr[slash - s] = '\0';
	if (addr_parse(addr, e))
		return -1;
	if (slash[1] < '0' || slash[1] > '9')
		return -1;
	errno = 0;
	len = strtoul(slash + 1, &end, 10);
	if (errno || *end || len > (e->family == AF_INET ? 32UL : 128UL))
		return -1;
	e->prefixlen = len;
	return 0;
}

/* A decimal u32.  0, or -1. */
static int u32_parse(const char *s, uint32_t *v)
{
	unsigned long long n;
	char *end;

	if (*s < '0' || *s > '9')
		return -1;
	errno = 0;
	n = strtoull(s, &end, 10);
	if (errno || *end || n > UINT32_MAX)
		return -1;
	*v = n;
	return 0;
}

/*
 * The words after a prefix: "[locality] LOC [region N] [dc N]", in any
 * order.  0, or -1 with a reason in @why.
 */
static int entry_args_parse(int argc, char **argv, struct scope_entry *e,
			    char *why, size_t len)
{
	int i;

	for (i = 0; i < argc; i++) {
		const char *w = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;

		if (!strcmp(w, "region") || !strcmp(w, "dc")) {
			bool region = w[0] == 'r';
			bool *has = region ? &e->has_region : &e->has_dc;
			uint32_t *val = region ? &e->region : &e->dc, n;

			/*
			 * "region" and "dc" are localities too: without a
			 * number after them, and no locality yet, they are one.
			 */
			if (!e->locality && (!v || u32_parse(v, &n))) {
				e->locality = locality_parse(w);
				continue;
			}
			if (*has) {
				snprintf(why, len, "%s given twice", w);
				return -1;
			}
			if (!v || u32_parse(v, val)) {
				snprintf(why, len, "%s needs a number from 0 to %u, got \"%s\"",
					 w, UINT32_MAX, v ? v : "");
				return -1;
			}
			*has = true;
			i++;
			continue;
		}
		if (!strcmp(w, "locality")) {
			if (!v) {
				snprintf(why, len, "locality needs a value (rack, dc, region or xregion)");
				return -1;
			}
			w = argv[++i];
		}
		if (e->locality) {
			snprintf(why, len, "unexpected \"%s\"", w);
			return -1;
		}
		e->locality = locality_parse(w);
		if (!e->locality) {
			snprintf(why, len, "unknown locality \"%s\" (rack, dc, region or xregion)",
				 w);
			return -1;
		}
	}
	if (!e->locality) {
		snprintf(why, len, "missing locality (rack, dc, region or xregion)");
		return -1;
	}
	return 0;
}

static void put_prefix(struct nlmsghdr *nlh, const struct scope_entry *e)
{
	mnl_attr_put(nlh, CCAAS_A_SCOPE_ADDR, addr_len(e->family), e->addr);
	mnl_attr_put_u8(nlh, CCAAS_A_SCOPE_PREFIXLEN, e->prefixlen);
}

static void put_entry(struct nlmsghdr *nlh, const struct scope_entry *e)
{
	put_prefix(nlh, e);
	mnl_attr_put_u8(nlh, CCAAS_A_SCOPE_LOCALITY, e->locality);
	if (e->has_region)
		mnl_attr_put_u32(nlh, CCAAS_A_SCOPE_REGION, e->region);
	if (e->has_dc)
		mnl_attr_put_u32(nlh, CCAAS_A_SCOPE_DC, e->dc);
}

/* Largest size of one load entry: nest, 16-byte address, four scalars. */
#define ENTRY_MAX_BYTES	(MNL_ATTR_HDRLEN + MNL_ATTR_HDRLEN + 16 + 4 * (MNL_ATTR_HDRLEN + 4))

void scope_prefix_string(const struct scope_entry *e, char *buf, size_t len)
{
	char a[INET6_ADDRSTRLEN];

	inet_ntop(e->family, e->addr, a, sizeof(a));
	snprintf(buf, len, "%s/%u", a, e->prefixlen);
}

/* ---- replies ---- */

/*
 * One reply message: an entry (ADDR present) into @e, or a summary into
 * @sum.  Returns 1 for an entry, 0 for a summary, -EBADMSG.
 */
static int scope_parse(const struct nlmsghdr *nlh, struct scope_entry *e,
		       struct scope_summary *sum)
{
	const struct nlattr *a;
	bool has_addr = false;

	memset(e, 0, sizeof(*e));
	mnl_attr_for_each(a, nlh, sizeof(struct genlmsghdr)) {
		switch (mnl_attr_get_type(a)) {
		case CCAAS_A_SCOPE_ADDR:
			if (mnl_attr_get_payload_len(a) == 4)
				e->family = AF_INET;
			else if (mnl_attr_get_payload_len(a) == 16)
				e->family = AF_INET6;
			else
				return -EBADMSG;
			memcpy(e->addr, mnl_attr_get_payload(a), addr_len(e->family));
			has_addr = true;
			break;
		case CCAAS_A_SCOPE_PREFIXLEN:
			if (mnl_attr_validate(a, MNL_TYPE_U8) < 0)
				return -EBADMSG;
			e->prefixlen = mnl_attr_get_u8(a);
			break;
		case CCAAS_A_SCOPE_LOCALITY:
			if (mnl_attr_validate(a, MNL_TYPE_U8) < 0)
				return -EBADMSG;
			e->locality = mnl_attr_get_u8(a);
			break;
		case CCAAS_A_SCOPE_REGION:
			if (mnl_attr_validate(a, MNL_TYPE_U32) < 0)
				return -EBADMSG;
			e->region = mnl_attr_get_u32(a);
			e->has_region = true;
			break;
		case CCAAS_A_SCOPE_DC:
			if (mnl_attr_validate(a, MNL_TYPE_U32) < 0)
				return -EBADMSG;
			e->dc = mnl_attr_get_u32(a);
			e->has_dc = true;
			break;
		case CCAAS_A_SCOPE_COUNT:
			if (mnl_attr_validate(a, MNL_TYPE_U32) < 0)
				return -EBADMSG;
			sum->count = mnl_attr_get_u32(a);
			sum->valid = true;
			break;
		case CCAAS_A_SCOPE_MAX_ENTRIES:
			if (mnl_attr_validate(a, MNL_TYPE_U32) < 0)
				return -EBADMSG;
			sum->max_entries = mnl_attr_get_u32(a);
			break;
		case CCAAS_A_SCOPE_MEMORY:
			if (mnl_attr_validate(a, MNL_TYPE_U64) < 0)
				return -EBADMSG;
			sum->memory = mnl_attr_get_u64(a);
			break;
		default:	/* padding, or newer than us */
			break;
		}
	}
	return has_addr ? 1 : 0;
}

void scope_summary_print(const struct scope_summary *sum)
{
	print_uint(PRINT_JSON, "count", "%llu", sum->count);
	print_uint(PRINT_JSON, "max_entries", "%llu", sum->max_entries);
	print_uint(PRINT_JSON, "memory", "%llu", sum->memory);
	print_text("%u entries (limit %u), %llu bytes\n", sum->count,
		   sum->max_entries, (unsigned long long)sum->memory);
}

static int scope_simple(uint8_t cmd, const struct scope_entry *e, bool full)
{
	char buf[NL_SEND_BUFSZ];
	struct nlmsghdr *nlh;
	int ret;

	ret = ccaas_msg(buf, cmd, 0, &nlh);
	if (ret)
		return ret;
	if (e && full)
		put_entry(nlh, e);
	else if (e)
		put_prefix(nlh, e);
	return ccaas_request(nlh, NULL, NULL);
}

/* ---- scope add / del / flush ---- */

static int scope_add(int argc, char **argv)
{
	struct scope_entry e = { 0 };
	char why[160];

	if (argc < 1)
		return usage_error("scope add: missing PREFIX; usage: ccactl scope add PREFIX locality LOC [region N] [dc N]");
	if (prefix_parse(argv[0], &e))
		return usage_error("scope add: invalid prefix \"%s\" (a.b.c.d/len or x::/len)",
				   argv[0]);
	if (entry_args_parse(argc - 1, argv + 1, &e, why, sizeof(why)))
		return usage_error("scope add: %s", why);
	return scope_simple(CCAAS_CMD_SCOPE_ADD, &e, true);
}

static int scope_del(int argc, char **argv)
{
	struct scope_entry e = { 0 };

	if (argc < 1)
		return usage_error("scope del: missing PREFIX; usage: ccactl scope del PREFIX");
	if (argc > 1)
		return usage_error("scope del: unexpected argument \"%s\"", argv[1]);
	if (prefix_parse(argv[0], &e))
		return usage_error("scope del: invalid prefix \"%s\" (a.b.c.d/len or x::/len)",
				   argv[0]);
	return scope_simple(CCAAS_CMD_SCOPE_DEL, &e, false);
}

static int scope_flush(int argc, char **argv)
{
	if (argc > 0)
		return usage_error("scope flush: unexpected argument \"%s\"", argv[0]);
	return scope_simple(CCAAS_CMD_SCOPE_FLUSH, NULL, false);
}

/* ---- scope show ---- */

static int scope_collect_cb(const struct nlmsghdr *nlh, void *data)
{
	struct scope_vec *vec = data;
	struct scope_entry e;
	int ret;

	ret = scope_parse(nlh, &e, &vec->sum);
	if (ret <= 0)
		return ret;
	if (vec->n == vec->cap) {
		size_t cap = vec->cap ? 2 * vec->cap : 64;
		struct scope_entry *v = realloc(vec->v, cap * sizeof(*v));

		if (!v)
			return -ENOMEM;
		vec->v = v;
		vec->cap = cap;
	}
	vec->v[vec->n++] = e;
	return 0;
}

/* IPv4 first, then by address, then by prefix length. */
int scope_entry_cmp(const void *pa, const void *pb)
{
	const struct scope_entry *a = pa, *b = pb;
	int c;

	if (a->family != b->family)
		return a->family == AF_INET ? -1 : 1;
	c = memcmp(a->addr, b->addr, addr_len(a->family));
	if (c)
		return c;
	return (int)a->prefixlen - (int)b->prefixlen;
}

void scope_entry_print_json(const struct scope_entry *e)
{
	char p[INET6_ADDRSTRLEN + 8];

	scope_prefix_string(e, p, sizeof(p));
	open_json_object(NULL);
	print_string(PRINT_JSON, "prefix", "%s", p);
	print_string(PRINT_JSON, "locality", "%s", scope_locality_name(e->locality));
	print_uint(PRINT_JSON, "region", "%llu", e->region);
	print_uint(PRINT_JSON, "dc", "%llu", e->dc);
	close_json_object();
}

static int scope_list_text(const struct scope_vec *vec)
{
	static const char *const headers[] = { "PREFIX", "LOCALITY", "REGION", "DC" };
	struct table *t;
	size_t i;

	if (!vec->n)
		return CCACTL_EXIT_OK;
	t = table_new(4, headers);
	if (!t)
		goto nomem;
	for (i = 0; i < vec->n; i++) {
		const struct scope_entry *e = &vec->v[i];
		char p[INET6_ADDRSTRLEN + 8], region[16], dc[16];
		const char *cells[4] = { p, scope_locality_name(e->locality), region, dc };

		scope_prefix_string(e, p, sizeof(p));
		snprintf(region, sizeof(region), "%u", e->region);
		snprintf(dc, sizeof(dc), "%u", e->dc);
		if (table_add(t, cells))
			goto nomem;
	}
	table_print(t, stdout);
	table_free(t);
	return CCACTL_EXIT_OK;
nomem:
	return table_nomem(t);
}

/*
 * A dump the kernel flagged NLM_F_DUMP_INTR (the table was replaced while
 * it ran) may mix two tables: a load's dry-run diff or an Ansible run
 * deciding from it would be wrong, so it is taken again, a few times.
 */
#define SCOPE_FETCH_TRIES	3

int scope_fetch(struct scope_vec *vec)
{
	char buf[NL_SEND_BUFSZ];
	struct nlmsghdr *nlh;
	int tries, ret;

	for (tries = 0; tries < SCOPE_FETCH_TRIES; tries++) {
		free(vec->v);
		memset(vec, 0, sizeof(*vec));
		ret = ccaas_msg(buf, CCAAS_CMD_SCOPE_GET, NLM_F_DUMP, &nlh);
		if (ret)
			return ret;
		ret = ccaas_request(nlh, scope_collect_cb, vec);
		if (ret)
			return ret;
		if (!ccaas_dump_interrupted()) {
			qsort(vec->v, vec->n, sizeof(*vec->v), scope_entry_cmp);
			return CCACTL_EXIT_OK;
		}
	}
	fprintf(stderr, "Error: the scope table changed during each of %d dumps\n",
		SCOPE_FETCH_TRIES);
	return CCACTL_EXIT_KERNEL;
}

static int scope_list(void)
{
	struct scope_vec vec = { 0 };
	size_t i;
	int ret;

	ret = scope_fetch(&vec);
	if (ret)
		goto out;

	print_begin(stdout, ccactl_opts.json, ccactl_opts.pretty);
	if (print_is_json()) {
		if (ccactl_opts.stats) {
			open_json_object(NULL);
			scope_summary_print(&vec.sum);
			open_json_array("entries");
		} else {
			open_json_array(NULL);
		}
		for (i = 0; i < vec.n; i++)
			scope_entry_print_json(&vec.v[i]);
		close_json_array();
		if (ccactl_opts.stats)
			close_json_object();
	} else {
		ret = scope_list_text(&vec);
		if (ccactl_opts.stats && vec.sum.valid)
			scope_summary_print(&vec.sum);
	}
	print_end();
out:
	free(vec.v);
	return ret;
}

struct scope_lookup {
	struct scope_entry e;
	struct scope_summary sum;
	unsigned int count;
	bool matched;
};

static int scope_lookup_cb(const struct nlmsghdr *nlh, void *data)
{
	struct scope_lookup *l = data;
	int ret;

	if (l->count++)
		return -EBADMSG;	/* one lookup, several answers */
	ret = scope_parse(nlh, &l->e, &l->sum);
	if (ret < 0)
		return ret;
	l->matched = ret == 1;
	return 0;
}

static int scope_lookup(const char *arg)
{
	char buf[NL_SEND_BUFSZ], a[INET6_ADDRSTRLEN], p[INET6_ADDRSTRLEN + 8];
	struct scope_lookup l = { .count = 0 };
	struct scope_entry q = { 0 };
	struct nlmsghdr *nlh;
	int ret;

	if (addr_parse(arg, &q))
		return usage_error("scope show: invalid address \"%s\"", arg);

	ret = ccaas_msg(buf, CCAAS_CMD_SCOPE_GET, 0, &nlh);
	if (ret)
		return ret;
	mnl_attr_put(nlh, CCAAS_A_SCOPE_ADDR, addr_len(q.family), q.addr);
	ret = ccaas_request(nlh, scope_lookup_cb, &l);
	if (ret)
		return ret;
	if (!l.count) {
		fputs("Error: the kernel answered without a result\n", stderr);
		return CCACTL_EXIT_KERNEL;
	}

	inet_ntop(q.family, q.addr, a, sizeof(a));
	print_begin(stdout, ccactl_opts.json, ccactl_opts.pretty);
	open_json_object(NULL);
	print_string(PRINT_ANY, "address", "address   %s\n", a);
	if (l.matched) {
		scope_prefix_string(&l.e, p, sizeof(p));
		print_string(PRINT_ANY, "prefix", "prefix    %s\n", p);
		print_string(PRINT_ANY, "locality", "locality  %s\n",
			     scope_locality_name(l.e.locality));
		print_uint(PRINT_ANY, "region", "region    %llu\n", l.e.region);
		print_uint(PRINT_ANY, "dc", "dc        %llu\n", l.e.dc);
	} else {
		print_text("prefix    -\n");
		print_string(PRINT_ANY, "locality", "locality  %s\n",
			     scope_locality_name(CCAAS_LOCALITY_UNKNOWN));
		print_text("region    -\ndc        -\n");
	}
	close_json_object();
	print_end();
	return CCACTL_EXIT_OK;
}

static int scope_show(int argc, char **argv)
{
	if (argc > 1)
		return usage_error("scope show: unexpected argument \"%s\"", argv[1]);
	return argc ? scope_lookup(argv[0]) : scope_list();
}

/* ---- scope load ---- */

/*
 * Read a load file into @vec.  Returns 0, or an exit code after a
 * "FILE:LINE: ..." message.
 */
static int load_read(FILE *f, const char *shown, struct scope_vec *vec)
{
	enum { MAX_WORDS = 16 };
	char *line = NULL, *argv[MAX_WORDS], *save, *w, why[160];
	unsigned int lineno = 0;
	size_t cap = 0;
	int argc, ret = CCACTL_EXIT_OK;

	while (getline(&line, &cap, f) != -1) {
		struct scope_entry e = { 0 };
		char *hash = strchr(line, '#');

		lineno++;
		if (hash)
			*hash = '\0';
		argc = 0;
		for (w = strtok_r(line, " \t\r\n", &save); w;
		     w = strtok_r(NULL, " \t\r\n", &save)) {
			if (argc == MAX_WORDS) {
				ret = usage_error("%s:%u: too many words", shown, lineno);
				goto out;
			}
			argv[argc++] = w;
		}
		if (!argc)
			continue;
		if (prefix_parse(argv[0], &e)) {
			ret = usage_error("%s:%u: invalid prefix \"%s\" (a.b.c.d/len or x::/len)",
					  shown, lineno, argv[0]);
			goto out;
		}
		if (entry_args_parse(argc - 1, argv + 1, &e, why, sizeof(why))) {
			ret = usage_error("%s:%u: %s", shown, lineno, why);
			goto out;
		}
		e.line = lineno;
		if (vec->n == vec->cap) {
			size_t ncap = vec->cap ? 2 * vec->cap : 1024;
			struct scope_entry *v = realloc(vec->v, ncap * sizeof(*v));

			if (!v) {
				fputs("ccactl: out of memory\n", stderr);
				ret = CCACTL_EXIT_KERNEL;
				goto out;
			}
			vec->v = v;
			vec->cap = ncap;
		}
		vec->v[vec->n++] = e;
	}
	if (ferror(f))
		ret = usage_error("%s: read error", shown);
out:
	free(line);
	return ret;
}

/* A prefix twice in the file: the kernel would refuse it, say where. */
static int load_check_dups(struct scope_vec *vec, const char *shown)
{
	char p[INET6_ADDRSTRLEN + 8];
	size_t i;

	qsort(vec->v, vec->n, sizeof(*vec->v), scope_entry_cmp);
	for (i = 1; i < vec->n; i++) {
		const struct scope_entry *a = &vec->v[i - 1], *b = &vec->v[i];

		if (scope_entry_cmp(a, b))
			continue;
		scope_prefix_string(b, p, sizeof(p));
		return usage_error("%s:%u: prefix %s given twice (also on line %u)",
				   shown, a->line > b->line ? a->line : b->line, p,
				   a->line > b->line ? b->line : a->line);
	}
	return CCACTL_EXIT_OK;
}

static int load_reply_cb(const struct nlmsghdr *nlh, void *data)
{
	struct scope_entry e;

	return scope_parse(nlh, &e, data) < 0 ? -EBADMSG : 0;
}

/*
 * Send the table in one message, on a socket of its own whose send buffer
 * fits it (the shared one keeps the kernel's default).
 */
static int load_send(const struct scope_vec *vec, bool dry_run,
		     struct scope_summary *sum)
{
	char scratch[NL_SEND_BUFSZ];
	struct nl_sock *s = NULL;
	struct nlmsghdr *nlh;
	size_t size, i;
	char *buf = NULL;
	int ret, err, sndbuf, fd;

	/* Connect and resolve the family the usual way (and its errors). */
	ret = ccaas_msg(scratch, CCAAS_CMD_SCOPE_LOAD, 0, &nlh);
	if (ret)
		return ret;

	size = MNL_NLMSG_HDRLEN + MNL_ALIGN(sizeof(struct genlmsghdr)) +
	       MNL_ATTR_HDRLEN + vec->n * ENTRY_MAX_BYTES;
	if (size > INT_MAX / 2 - 65536) {
		fprintf(stderr, "Error: %zu entries do not fit in one netlink message\n",
			vec->n);
		return CCACTL_EXIT_KERNEL;
	}
	buf = calloc(1, size < NL_SEND_BUFSZ ? NL_SEND_BUFSZ : size);
	s = calloc(1, sizeof(*s));
	if (!buf || !s) {
		fputs("ccactl: out of memory\n", stderr);
		ret = CCACTL_EXIT_KERNEL;
		goto out;
	}
	err = nl_open(s, NETLINK_GENERIC);
	if (err) {
		fprintf(stderr, "Error: cannot open a generic netlink socket: %s\n",
			strerror(-err));
		ret = CCACTL_EXIT_KERNEL;
		goto out;
	}

	nlh = nl_genl_msg(s, buf, ccaas_family()->id, CCAAS_CMD_SCOPE_LOAD,
			  CCAAS_FAMILY_VERSION, 0);
	for (i = 0; i < vec->n; i++) {
		struct nlattr *nest = mnl_attr_nest_start(nlh, CCAAS_A_SCOPE_ENTRY);

		put_entry(nlh, &vec->v[i]);
		mnl_attr_nest_end(nlh, nest);
	}
	if (dry_run)
		mnl_attr_put(nlh, CCAAS_A_SCOPE_DRY_RUN, 0, NULL);

	/*
	 * The kernel refuses a message larger than the send buffer. It
	 * doubles the value it is given; leave room for its overhead.
	 */
	if (nlh->nlmsg_len > 65536) {
		fd = mnl_socket_get_fd(s->mnl);
		sndbuf = nlh->nlmsg_len + 65536;
		if (setsockopt(fd, SOL_SOCKET, SO_SNDBUFFORCE, &sndbuf, sizeof(sndbuf)))
			setsockopt(fd, SOL_SOCKET, SO_SNDBUF, &sndbuf, sizeof(sndbuf));
	}

	err = nl_transact(s, nlh, load_reply_cb, sum);
	if (err) {
		/* A ccaas_core older than the flag refuses it, and loads nothing. */
		if (dry_run && err == -EINVAL &&
		    !strcmp(s->ext_msg, "Unknown attribute type"))
			fprintf(stderr, "Error: %s (this ccaas_core has no scope load dry run; nothing was loaded)\n",
				s->ext_msg);
		else if (s->ext_msg[0])
			fprintf(stderr, "Error: %s\n", s->ext_msg);
		else if (err == -EMSGSIZE)
			fprintf(stderr, "Error: the table (%u bytes) is larger than the socket send buffer; raising it needs CAP_NET_ADMIN\n",
				nlh->nlmsg_len);
		else
			fprintf(stderr, "Error: %s\n", strerror(-err));
		ret = CCACTL_EXIT_KERNEL;
	}
out:
	if (s)
		nl_close(s);
	free(s);
	free(buf);
	return ret;
}

/* "dry_run" (or "dry-run", "--dry-run") after FILE. */
static int load_opts(int argc, char **argv, bool *dry_run)
{
	int i;

	for (i = 0; i < argc; i++) {
		const char *w = argv[i];

		if (strcmp(w, "dry_run") && strcmp(w, "dry-run") && strcmp(w, "--dry-run"))
			return usage_error("scope load: unexpected argument \"%s\"", w);
		if (*dry_run)
			return usage_error("scope load: \"%s\" given twice", w);
		*dry_run = true;
	}
	return CCACTL_EXIT_OK;
}

static int scope_load(int argc, char **argv)
{
	struct scope_summary sum = { .valid = false };
	struct scope_vec vec = { 0 };
	bool dry_run = false;
	const char *shown;
	FILE *f;
	int ret;

	if (argc < 1)
		return usage_error("scope load: missing FILE; usage: ccactl scope load FILE|- [dry_run]");
	ret = load_opts(argc - 1, argv + 1, &dry_run);
	if (ret)
		return ret;

	shown = strcmp(argv[0], "-") ? argv[0] : "<stdin>";
	f = strcmp(argv[0], "-") ? fopen(argv[0], "r") : stdin;
	if (!f)
		return usage_error("scope load: cannot open \"%s\": %s", argv[0],
				   strerror(errno));
	ret = load_read(f, shown, &vec);
	if (f != stdin)
		fclose(f);
	if (!ret)
		ret = load_check_dups(&vec, shown);
	if (!ret)
		ret = load_send(&vec, dry_run, &sum);
	if (!ret && dry_run) {
		/* Checked by the kernel: show what a load would change. */
		ret = scope_dry_run_report(&vec, &sum);
	} else if (!ret && ccactl_opts.stats && sum.valid) {
		print_begin(stdout, ccactl_opts.json, ccactl_opts.pretty);
		open_json_object(NULL);
		scope_summary_print(&sum);
		close_json_object();
		print_end();
	}
	free(vec.v);
	return ret;
}

static const struct ccactl_cmd scope_cmds[] = {
	{ "add",   "PREFIX locality LOC [region N] [dc N]",
	  "add or replace a prefix",				scope_add },
	{ "del",   "PREFIX",	"delete a prefix",			scope_del },
	{ "show",  "[ADDR]",	"the table, or the scope of ADDR",	scope_show },
	{ "flush", "",		"delete every prefix",			scope_flush },
	{ "load",  "FILE|- [dry_run]",
	  "replace the whole table from FILE (dry_run: check it, show the changes)",
	  scope_load },
	{ NULL, NULL, NULL, NULL },
};

const struct ccactl_object scope_object = {
	.name = "scope",
	.summary = "remote address prefixes and their locality",
	.cmds = scope_cmds,
	.default_cmd = "show",
};
