// SPDX-License-Identifier: GPL-2.0-only
/*
 * ccactl: the "log" object — which connections the ccalog tracepoints
 * report, and recording them.
 *   ccactl log add { cookie N [cookie N]... | all | FILTER... }
 *   ccactl log del { cookie N [cookie N]... | all | FILTER... }
 *   ccactl log show
 *   ccactl log record [duration SECONDS] [file FILE] [filter EXPR]
 * FILTER is any of src PREFIX, dst PREFIX, sport PORT, dport PORT, cca NAME,
 * locality LOC.  The kernel only knows cookies: a filter is resolved here,
 * against the namespace's established connections as sock_diag lists them
 * (the locality through a scope lookup of each peer address), and the
 * matching cookies are sent.  It selects the connections open now; "all"
 * also selects those opened later.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
#include <linux/ccaas.h>
#include <linux/genetlink.h>

#include "ccactl.h"
#include "diag.h"
#include "family.h"
#include "json.h"
#include "objects.h"
#include "words.h"

/* Most cookies one request carries (the kernel keeps at most 1024). */
#define LOG_MAX_COOKIES	1024

struct prefix {
	bool set;
	int family;
	uint8_t addr[16];
	unsigned int len;
};

/* What "log add|del" was asked for. */
struct log_req {
	bool all;
	uint64_t cookies[LOG_MAX_COOKIES];
	unsigned int n;
	/* the filter; unset parts match anything */
	bool filter;
	struct prefix src, dst;
	int sport, dport, locality;
	const char *cca;
};

/* ---- arguments ---- */

static int parse_u64(const char *s, uint64_t *v)
{
	char *end;

	if (*s < '0' || *s > '9')
		return -1;
	errno = 0;
	*v = strtoull(s, &end, 10);
	return errno || *end ? -1 : 0;
}

static int parse_prefix(const char *s, struct prefix *p)
{
	char addr[INET6_ADDRSTRLEN];
	const char *slash = strchr(s, '/');
	size_t alen = slash ? (size_t)(slash - s) : strlen(s);
	uint64_t len;

	if (alen >= sizeof(addr))
		return -1;
	memcpy(addr, s, alen);
	addr[alen] = '\0';
	if (inet_pton(AF_INET, addr, p->addr) == 1)
		p->family = AF_INET;
	else if (inet_pton(AF_INET6, addr, p->addr) == 1)
		p->family = AF_INET6;
	else
		return -1;
	p->len = p->family == AF_INET ? 32 : 128;
	if (slash) {
		if (parse_u64(slash + 1, &len) || len > p->len)
			return -1;
		p->len = (unsigned int)len;
	}
	p->set = true;
	return 0;
}

static int log_args(const char *cmd, int argc, char **argv, struct log_req *r)
{
	static const char *const words[] = {
		"cookie", "all", "src", "dst", "sport", "dport", "cca", "locality",
	};
	int i, w;

	r->sport = r->dport = r->locality = -1;
	if (!argc)
		return usage_error("log %s: name connections: cookie N, all, or a filter",
				   cmd);
	for (i = 0; i < argc; i++) {
		w = find_word(argv[i], words, ARRAY_SIZE(words), "log argument");
		if (w < 0) {
			fputs("Try \"ccactl log help\".\n", stderr);
			return CCACTL_EXIT_USAGE;
		}
		if (w == 1) {
			r->all = true;
			continue;
		}
		if (i + 1 == argc)
			return usage_error("log %s: \"%s\" needs a value", cmd, words[w]);
		i++;
		switch (w) {
		case 0:
			if (r->n == LOG_MAX_COOKIES)
				return usage_error("log %s: at most %d cookies", cmd,
						   LOG_MAX_COOKIES);
			if (parse_u64(argv[i], &r->cookies[r->n]) || !r->cookies[r->n])
				return usage_error("log %s: invalid cookie \"%s\"", cmd,
						   argv[i]);
			r->n++;
			break;
		case 2:
		case 3: {
			struct prefix *p = w == 2 ? &r->src : &r->dst;

			if (p->set)
				return usage_error("log %s: \"%s\" given twice", cmd,
						   words[w]);
			if (parse_prefix(argv[i], p))
				return usage_error("log %s: invalid prefix \"%s\"", cmd,
						   argv[i]);
			break;
		}
		case 4:
		case 5: {
			int *port = w == 4 ? &r->sport : &r->dport;

			if (*port >= 0)
				return usage_error("log %s: \"%s\" given twice", cmd,
						   words[w]);
			*port = parse_port(argv[i]);
			if (*port < 0)
				return usage_error("log %s: invalid port \"%s\" (1 to 65535)",
						   cmd, argv[i]);
			break;
		}
		case 6:
			if (r->cca)
				return usage_error("log %s: \"cca\" given twice", cmd);
			if (!argv[i][0] || strlen(argv[i]) >= CCAAS_CCA_NAME_MAX)
				return usage_error("log %s: invalid CCA name \"%s\"", cmd,
						   argv[i]);
			r->cca = argv[i];
			break;
		default:
			if (r->locality >= 0)
				return usage_error("log %s: \"locality\" given twice", cmd);
			r->locality = find_word(argv[i], locality_names,
						ARRAY_SIZE(locality_names), "locality");
			if (r->locality < 0)
				return CCACTL_EXIT_USAGE;
			break;
		}
		if (w >= 2)
			r->filter = true;
	}
	if (r->all + !!r->n + r->filter > 1)
		return usage_error("log %s: cookies, \"all\" and a filter exclude each other",
				   cmd);
	return CCACTL_EXIT_OK;
}

/* ---- resolving a filter ---- */

static bool prefix_match(const struct prefix *p, uint8_t family,
			 const uint8_t *addr)
{
	unsigned int full = p->len / 8, rest = p->len % 8;

	if (!p->set)
		return true;
	if (p->family != family || memcmp(p->addr, addr, full))
		return false;
	return !rest || !((p->addr[full] ^ addr[full]) & (0xff00 >> rest));
}

struct scope_reply {
	uint8_t locality;
	unsigned int n;
};

static int scope_reply_cb(const struct nlmsghdr *nlh, void *data)
{
	struct scope_reply *r = data;
	const struct nlattr *a;

	r->n++;
	mnl_attr_for_each(a, nlh, sizeof(struct genlmsghdr))
		if (mnl_attr_get_type(a) == CCAAS_A_SCOPE_LOCALITY &&
		    nl_attr_u8(a, &r->locality))
			return -EBADMSG;
	return 0;
}

/* The locality the kernel's scope table gives @c's peer; -1 on error. */
static int peer_locality(const struct diag_conn *c)
{
	struct scope_reply r = { .locality = CCAAS_LOCALITY_UNKNOWN };
	char buf[NL_SEND_BUFSZ];
	struct nlmsghdr *nlh;

	if (ccaas_msg(buf, CCAAS_CMD_SCOPE_GET, 0, &nlh))
		return -1;
	mnl_attr_put(nlh, CCAAS_A_SCOPE_ADDR, c->family == AF_INET ? 4 : 16,
		     c->daddr);
	if (ccaas_request(nlh, scope_reply_cb, &r) || r.n != 1)
		return -1;
	return r.locality;
}

/* 1 if @c passes the filter, 0 if not, negative if the lookup failed. */
static int filter_match(const struct log_req *r, const struct diag_conn *c)
{
	int loc;

	if (!prefix_match(&r->src, c->family, c->saddr) ||
	    !prefix_match(&r->dst, c->family, c->daddr))
		return 0;
	if ((r->sport >= 0 && c->sport != r->sport) ||
	    (r->dport >= 0 && c->dport != r->dport))
		return 0;
	if (r->cca && strcmp(r->cca, c->cca))
		return 0;
	if (r->locality >= 0) {
		loc = peer_locality(c);
		if (loc < 0)
			return -1;
		if (loc != r->locality)
			return 0;
	}
	return 1;
}

/* Replace the filter of @r by the cookies of the connections it matches. */
static int log_resolve(struct log_req *r)
{
	struct diag_list list;
	size_t i;
	int err, m;

	err = diag_established(&list);
	if (err) {
		fprintf(stderr, "Error: listing connections through sock_diag: %s\n",
			strerror(-err));
		return CCACTL_EXIT_KERNEL;
	}
	for (i = 0; i < list.n; i++) {
		m = filter_match(r, &list.v[i]);
		if (m < 0) {
			diag_free(&list);
			return CCACTL_EXIT_KERNEL;	/* ccaas_request said why */
		}
		if (!m)
			continue;
		if (r->n == LOG_MAX_COOKIES) {
			diag_free(&list);
			fprintf(stderr, "Error: more than %d connections match\n",
				LOG_MAX_COOKIES);
			return CCACTL_EXIT_KERNEL;
		}
		r->cookies[r->n++] = list.v[i].cookie;
	}
	diag_free(&list);
	return CCACTL_EXIT_OK;
}

/* ---- the selection as the kernel has it ---- */

struct log_entry {
	uint64_t cookie;
	bool live;
};

struct log_state {
	bool all;
	uint32_t logging, other_cca, stopped, max_cookies;
	bool has_counts;
	struct log_entry *v;
	size_t n;
};

static int log_entry_parse(const struct nlattr *nest, struct log_state *st)
{
	struct log_entry e = { 0 };
	const struct nlattr *a;
	uint8_t live = 0;
	bool has_cookie = false;
	struct log_entry *v;

	mnl_attr_for_each_nested(a, nest) {
		switch (mnl_attr_get_type(a)) {
		case CCAAS_A_LOG_COOKIE:
			if (nl_attr_u64(a, &e.cookie))
				return -EBADMSG;
			has_cookie = true;
			break;
		case CCAAS_A_LOG_LIVE:
			if (nl_attr_u8(a, &live))
				return -EBADMSG;
			break;
		}
	}
	if (!has_cookie)
		return -EBADMSG;
	e.live = live;
	v = realloc(st->v, (st->n + 1) * sizeof(*v));
	if (!v)
		return -ENOMEM;
	st->v = v;
	st->v[st->n++] = e;
	return 0;
}

static int log_state_cb(const struct nlmsghdr *nlh, void *data)
{
	struct log_state *st = data;
	const struct nlattr *a;
	int err = 0;

	mnl_attr_for_each(a, nlh, sizeof(struct genlmsghdr)) {
		switch (mnl_attr_get_type(a)) {
		case CCAAS_A_LOG_ALL:
			st->all = true;
			break;
		case CCAAS_A_LOG_LOGGING:
			err = nl_attr_u32(a, &st->logging);
			st->has_counts = true;
			break;
		case CCAAS_A_LOG_OTHER_CCA:
			err = nl_attr_u32(a, &st->other_cca);
			break;
		case CCAAS_A_LOG_STOPPED:
			err = nl_attr_u32(a, &st->stopped);
			break;
		case CCAAS_A_LOG_MAX_COOKIES:
			err = nl_attr_u32(a, &st->max_cookies);
			break;
		case CCAAS_A_LOG_ENTRY:
			err = log_entry_parse(a, st);
			break;
		}
		if (err)
			return err;
	}
	return 0;
}

static int log_get(struct log_state *st)
{
	char buf[NL_SEND_BUFSZ];
	struct nlmsghdr *nlh;
	int ret;

	memset(st, 0, sizeof(*st));
	ret = ccaas_msg(buf, CCAAS_CMD_LOG_GET, 0, &nlh);
	if (ret)
		return ret;
	return ccaas_request(nlh, log_state_cb, st);
}

/* ---- log add / log del ---- */

static int log_change(const char *cmd, uint8_t nlcmd, int argc, char **argv)
{
	struct log_state st = { 0 }, sel = { 0 };
	struct log_req *r;
	char buf[NL_SEND_BUFSZ + LOG_MAX_COOKIES * 12];
	struct nlmsghdr *nlh;
	unsigned int i, k;
	size_t j;
	int ret;

	r = calloc(1, sizeof(*r));
	if (!r) {
		fputs("ccactl: out of memory\n", stderr);
		return CCACTL_EXIT_KERNEL;
	}
	ret = log_args(cmd, argc, argv, r);
	if (ret)
		goto out;
	if (r->filter) {
		ret = log_resolve(r);
		if (ret)
			goto out;
		/* del: only what is selected; the kernel refuses the rest. */
		if (nlcmd == CCAAS_CMD_LOG_DEL) {
			ret = log_get(&sel);
			if (ret)
				goto out;
			for (i = 0, k = 0; i < r->n; i++)
				for (j = 0; j < sel.n; j++)
					if (sel.v[j].cookie == r->cookies[i]) {
						r->cookies[k++] = r->cookies[i];
						break;
					}
			r->n = k;
		}
		if (!r->n) {
			fprintf(stderr, "Error: no %sconnection matches\n",
				nlcmd == CCAAS_CMD_LOG_DEL ? "selected " : "established ");
			ret = CCACTL_EXIT_KERNEL;
			goto out;
		}
	}

	ret = ccaas_msg(buf, nlcmd, 0, &nlh);
	if (ret)
		goto out;
	if (r->all)
		mnl_attr_put(nlh, CCAAS_A_LOG_ALL, 0, NULL);
	for (i = 0; i < r->n; i++)
		mnl_attr_put_u64(nlh, CCAAS_A_LOG_COOKIE, r->cookies[i]);
	ret = ccaas_request(nlh, log_state_cb, &st);
	if (ret)
		goto out;

	print_begin(stdout, ccactl_opts.json, ccactl_opts.pretty);
	open_json_object(NULL);
	if (!r->all)
		print_uint(PRINT_ANY, "requested", "%llu connection(s) named: ", r->n);
	print_uint(PRINT_ANY, "logging", "%llu logged", st.logging);
	print_uint(PRINT_ANY, "other_cca", ", %llu on a CCA without ccalog",
		   st.other_cca);
	print_uint(PRINT_ANY, "stopped", ", %llu stopped\n", st.stopped);
	close_json_object();
	print_end();
out:
	free(sel.v);
	free(st.v);
	free(r);
	return ret;
}

static int log_add(int argc, char **argv)
{
	return log_change("add", CCAAS_CMD_LOG_ADD, argc, argv);
}

static int log_del(int argc, char **argv)
{
	return log_change("del", CCAAS_CMD_LOG_DEL, argc, argv);
}

/* ---- log show ---- */

static void endpoint(const uint8_t *addr, uint8_t family, uint16_t port,
		     char *buf, size_t len)
{
	char a[INET6_ADDRSTRLEN];

	inet_ntop(family, addr, a, sizeof(a));
	snprintf(buf, len, family == AF_INET6 ? "[%s]:%u" : "%s:%u", a, port);
}

static int log_show(int argc, char **argv)
{
	struct diag_list list = { 0 };
	struct log_state st;
	char l[INET6_ADDRSTRLEN + 8], p[INET6_ADDRSTRLEN + 8];
	size_t i;
	int ret;

	(void)argv;
	if (argc)
		return usage_error("log show takes no arguments");
	ret = log_get(&st);
	if (ret)
		return ret;
	/* Endpoints of the selected cookies, for people; best effort. */
	if (st.n && diag_established(&list))
		memset(&list, 0, sizeof(list));

	print_begin(stdout, ccactl_opts.json, ccactl_opts.pretty);
	open_json_object(NULL);
	print_bool(PRINT_JSON, "all", "%s", st.all);
	if (st.all)
		print_text("selected: all connections\n");
	else
		print_text("selected: %zu cookie(s) of at most %u\n", st.n,
			   st.max_cookies);
	print_uint(PRINT_ANY, "logging", "logging:  %llu connection(s)", st.logging);
	print_uint(PRINT_ANY, "other_cca", ", %llu selected on a CCA without ccalog\n",
		   st.other_cca);
	print_uint(PRINT_JSON, "max_cookies", "%llu", st.max_cookies);
	open_json_array("cookies");
	for (i = 0; i < st.n; i++) {
		const struct diag_conn *c = diag_find(&list, st.v[i].cookie);

		open_json_object(NULL);
		print_uint(PRINT_ANY, "cookie", "cookie %llu", st.v[i].cookie);
		print_bool(PRINT_JSON, "live", "%s", st.v[i].live);
		if (!st.v[i].live) {
			print_text(" closed\n");
		} else if (c) {
			endpoint(c->saddr, c->family, c->sport, l, sizeof(l));
			endpoint(c->daddr, c->family, c->dport, p, sizeof(p));
			print_string(PRINT_ANY, "local", " %s", l);
			print_string(PRINT_ANY, "peer", " -> %s", p);
			print_string(PRINT_ANY, "cca", " %s\n", c->cca);
		} else {
			print_text(" open\n");
		}
		close_json_object();
	}
	close_json_array();
	close_json_object();
	print_end();
	diag_free(&list);
	free(st.v);
	return CCACTL_EXIT_OK;
}

/* ---- log record ---- */

/*
 * trace-cmd record -e ccalog [-f EXPR] -o FILE sleep SECONDS: the events of
 * the selected connections, for trace-cmd report or ccalog-plot.
 */
static int log_record(int argc, char **argv)
{
	static const char *const words[] = { "duration", "file", "filter" };
	const char *file = "ccalog.dat", *filter = NULL, *secs = "10";
	char *args[12];
	uint64_t v;
	int i, w, n = 0, status;
	pid_t pid;

	for (i = 0; i < argc; i++) {
		w = find_word(argv[i], words, ARRAY_SIZE(words), "log record argument");
		if (w < 0) {
			fputs("Try \"ccactl log help\".\n", stderr);
			return CCACTL_EXIT_USAGE;
		}
		if (i + 1 == argc)
			return usage_error("log record: \"%s\" needs a value", words[w]);
		i++;
		if (w == 0) {
			if (parse_u64(argv[i], &v) || !v || v > 86400)
				return usage_error("log record: invalid duration \"%s\" (1 to 86400 seconds)",
						   argv[i]);
			secs = argv[i];
		} else if (w == 1) {
			file = argv[i];
		} else {
			filter = argv[i];
		}
	}
	args[n++] = "trace-cmd";
	args[n++] = "record";
	args[n++] = "-q";
	args[n++] = "-e";
	args[n++] = "ccalog";
	if (filter) {
		args[n++] = "-f";
		args[n++] = (char *)filter;
	}
	args[n++] = "-o";
	args[n++] = (char *)file;
	args[n++] = "sleep";
	args[n++] = (char *)secs;
	args[n] = NULL;

	fflush(stdout);
	pid = fork();
	if (pid < 0) {
		perror("ccactl: fork");
		return CCACTL_EXIT_KERNEL;
	}
	if (!pid) {
		execvp(args[0], args);
		fprintf(stderr, "Error: cannot run trace-cmd: %s\n", strerror(errno));
		_exit(127);
	}
	if (waitpid(pid, &status, 0) < 0) {
		perror("ccactl: waitpid");
		return CCACTL_EXIT_KERNEL;
	}
	if (!WIFEXITED(status) || WEXITSTATUS(status)) {
		if (!WIFEXITED(status) || WEXITSTATUS(status) != 127)
			fputs("Error: trace-cmd record failed\n", stderr);
		return CCACTL_EXIT_KERNEL;
	}
	printf("%s: ccalog events of %s s\n", file, secs);
	return CCACTL_EXIT_OK;
}

static const struct ccactl_cmd log_cmds[] = {
	{ "add", "{ cookie N [cookie N]... | all | FILTER }",
	  "select connections for ccalog", log_add },
	{ "del", "{ cookie N [cookie N]... | all | FILTER }",
	  "deselect connections", log_del },
	{ "show", "", "the selection and what is being logged", log_show },
	{ "record", "[duration SECONDS] [file FILE] [filter EXPR]",
	  "record ccalog events with trace-cmd", log_record },
	{ NULL, NULL, NULL, NULL },
};

const struct ccactl_object log_object = {
	.name = "log",
	.summary = "choose connections for the ccalog tracepoints, record them",
	.cmds = log_cmds,
	.default_cmd = "show",
};
