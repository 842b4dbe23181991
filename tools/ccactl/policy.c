// SPDX-License-Identifier: GPL-2.0-only
/*
 * ccactl: the "policy" object — rules from a connection's scope to a CCA,
 * its parameters and cross-layer knobs, kept by the kernel as generations.
 *
 *   ccactl policy set MATCH ACTION [no_migrate] [force]      POLICY_SET
 *   ccactl policy del MATCH [no_migrate] [force]             POLICY_DEL
 *   ccactl policy show [generation N]                        POLICY_GET dump
 *   ccactl policy history                                    POLICY_HISTORY
 *   ccactl policy rollback GEN [no_migrate] [force]          POLICY_ROLLBACK
 *   ccactl policy apply FILE|- [dry_run] [no_migrate] [force] POLICY_APPLY
 *
 *   MATCH  := default | SERVICE [SCOPE] | SCOPE
 *   SERVICE := [cgroup PATH] [port N[-M]]
 *   SCOPE  := locality LOC [region N] [dc N] [local PREFIX]
 *   ACTION := cca NAME [param NAME=VALUE]... [min_rto TIME] [init_cwnd N]
 *             [tso_segs N]
 *
 * A policy file has one rule per line in the same words (MATCH ACTION), so
 * "policy show" prints a file that "policy apply" takes back.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <linux/ccaas.h>
#include <linux/genetlink.h>

#include "ccactl.h"
#include "cgroup.h"
#include "family.h"
#include "json.h"
#include "objects.h"
#include "table.h"
#include "words.h"

/* Parameters ccactl accepts in one rule; the kernel allows fewer. */
#define RULE_PARAMS_MAX		16
/* Room for the text of one rule (param names are the longest part). */
#define RULE_TEXT_MAX		1024
/* Words on one line of a policy file. */
#define LINE_WORDS_MAX		64
/* Bound of an apply request: the kernel's netlink socket takes ~200 KiB. */
#define APPLY_MSG_MAX		(192 * 1024)

struct rule_param {
	char name[CCAAS_PARAM_NAME_MAX];
	uint32_t value;
};

struct rule {
	/* match */
	bool has_locality, has_region, has_dc, has_local;
	bool has_cgroup, has_port;
	uint8_t locality;
	uint32_t region, dc;
	int family;			/* AF_INET or AF_INET6, with has_local */
	uint8_t prefixlen;
	uint8_t addr[16];
	char cgroup[CGROUP_PATH_MAX];	/* with has_cgroup */
	uint64_t cgroup_id;		/* in dumps: the cgroup there, 0: none */
	uint16_t port_min, port_max;	/* with has_port */
	/* action */
	bool has_cca, has_min_rto, has_init_cwnd, has_tso_segs;
	char cca[CCAAS_CCA_NAME_MAX];
	uint32_t min_rto_us, init_cwnd, tso_segs;
	unsigned int n_params;
	struct rule_param params[RULE_PARAMS_MAX];
	/* where it came from, in a policy file */
	unsigned int line;
};

/* The header of a generation, as the kernel sends it. */
struct head {
	uint32_t generation, from, nrules;
	uint8_t origin;
	uint64_t time_ns;
	bool has_generation, has_time, unchanged;
};

struct rules {
	struct rule *v;
	size_t n, cap;
};

/* Options after the rule or generation of a change. */
struct change_opts {
	bool no_migrate, force, dry_run;
};

static const char *const origin_names[] = {
	[CCAAS_POLICY_ORIGIN_EMPTY]	= "empty",
	[CCAAS_POLICY_ORIGIN_SET]	= "set",
	[CCAAS_POLICY_ORIGIN_APPLY]	= "apply",
	[CCAAS_POLICY_ORIGIN_ROLLBACK]	= "rollback",
};

static const char *name_of(const char *const *names, size_t n, unsigned int v,
			   char *buf, size_t len)
{
	if (v < n && names[v])
		return names[v];
	snprintf(buf, len, "%u", v);
	return buf;
}

static int rules_push(struct rules *rs, const struct rule *r)
{
	if (rs->n == rs->cap) {
		size_t cap = rs->cap ? 2 * rs->cap : 16;
		struct rule *v = realloc(rs->v, cap * sizeof(*v));

		if (!v)
			return -ENOMEM;
		rs->v = v;
		rs->cap = cap;
	}
	rs->v[rs->n++] = *r;
	return 0;
}

/* ---- words to rules ---- */

/* Error text of a failed parse; the caller adds where it happened. */
struct perr {
	char msg[256];
};

__attribute__((format(printf, 2, 3)))
static int perr_set(struct perr *e, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(e->msg, sizeof(e->msg), fmt, ap);
	va_end(ap);
	return -1;
}

static bool parse_u32(const char *s, uint32_t *v)
{
	unsigned long long x;
	char *end;

	if (*s < '0' || *s > '9')
		return false;
	errno = 0;
	x = strtoull(s, &end, 10);
	if (errno || *end || x > UINT32_MAX)
		return false;
	*v = (uint32_t)x;
	return true;
}

/*
 * A time with a unit, to whole microseconds: "1ms", "200us", "0.5ms",
 * "1s". No unit, or a fraction of a microsecond, is an error.
 */
static bool parse_time_us(const char *s, uint32_t *us)
{
	static const struct { const char *unit; uint64_t scale; } units[] = {
		{ "us", 1 }, { "ms", 1000 }, { "s", 1000000 },
	};
	uint64_t whole = 0, frac = 0, div = 1, scale = 0, v;
	const char *p = s;
	unsigned int i;

	if (*p < '0' || *p > '9')
		return false;
	for (; *p >= '0' && *p <= '9'; p++) {
		whole = whole * 10 + (uint64_t)(*p - '0');
		if (whole > UINT32_MAX)
			return false;
	}
	if (*p == '.') {
		for (p++; *p >= '0' && *p <= '9'; p++) {
			if (div >= 1000000)
				return false;	/* finer than a microsecond */
			frac = frac * 10 + (uint64_t)(*p - '0');
			div *= 10;
		}
	}
	for (i = 0; i < ARRAY_SIZE(units); i++)
		if (!strcmp(p, units[i].unit))
			scale = units[i].scale;
	if (!scale || (frac * scale) % div)
		return false;
	v = whole * scale + frac * scale / div;
	if (v > UINT32_MAX)
		return false;
	*us = (uint32_t)v;
	return true;
}

/* "1ms", "200us", "2s": the shortest exact form. */
static void format_time_us(uint32_t us, char *buf, size_t len)
{
	if (us && us % 1000000 == 0)
		snprintf(buf, len, "%us", us / 1000000);
	else if (us && us % 1000 == 0)
		snprintf(buf, len, "%ums", us / 1000);
	else
		snprintf(buf, len, "%uus", us);
}

/* Zero the bits of @addr past @prefixlen; true if any was set. */
static bool clear_host_bits(uint8_t *addr, unsigned int len,
			    unsigned int prefixlen)
{
	bool set = false;
	unsigned int i;

	for (i = 0; i < len; i++) {
		unsigned int bits = prefixlen > 8 * i ? prefixlen - 8 * i : 0;
		uint8_t keep = bits >= 8 ? 0xff : (uint8_t)(0xff << (8 - bits));

		if (addr[i] & ~keep)
			set = true;
		addr[i] &= keep;
	}
	return set;
}

static void format_prefix(const struct rule *r, char *buf, size_t len)
{
	char a[INET6_ADDRSTRLEN];

	inet_ntop(r->family, r->addr, a, sizeof(a));
	snprintf(buf, len, "%s/%u", a, r->prefixlen);
}

/* "ADDR/LEN", or "ADDR" for a host (/32, /128). */
static int parse_prefix(const char *s, struct rule *r, struct perr *e)
{
	char a[INET6_ADDRSTRLEN + 8], fixed[INET6_ADDRSTRLEN + 8];
	char *slash;
	uint32_t plen;
	unsigned int len;

	if (strlen(s) >= sizeof(a))
		return perr_set(e, "local: \"%s\" is not a prefix (ADDR/LEN)", s);
	strcpy(a, s);
	slash = strchr(a, '/');
	if (slash)
		*slash++ = '\0';
	if (inet_pton(AF_INET, a, r->addr) == 1) {
		r->family = AF_INET;
		len = 4;
	} else if (inet_pton(AF_INET6, a, r->addr) == 1) {
		r->family = AF_INET6;
		len = 16;
	} else {
		return perr_set(e, "local: \"%s\" is not an IPv4 or IPv6 prefix", s);
	}
	plen = 8 * len;
	if (slash && (!parse_u32(slash, &plen) || plen > 8 * len))
		return perr_set(e, "local: bad prefix length in \"%s\" (0..%u)", s,
				8 * len);
	r->prefixlen = (uint8_t)plen;
	if (clear_host_bits(r->addr, len, plen)) {
		format_prefix(r, fixed, sizeof(fixed));
		return perr_set(e, "local: \"%s\" has bits set past the prefix length (did you mean %s?)",
				s, fixed);
	}
	r->has_local = true;
	return 0;
}

static int parse_locality(const char *s, struct rule *r, struct perr *e)
{
	unsigned int i;

	for (i = CCAAS_LOCALITY_RACK; i < ARRAY_SIZE(locality_names); i++) {
		if (!strcmp(s, locality_names[i])) {
			r->locality = (uint8_t)i;
			r->has_locality = true;
			return 0;
		}
	}
	if (!strcmp(s, "unknown"))
		return perr_set(e, "locality unknown is what the \"default\" rule matches");
	return perr_set(e, "unknown locality \"%s\" (rack, dc, region or xregion)", s);
}

static int parse_param(const char *s, struct rule *r, struct perr *e)
{
	const char *eq = strchr(s, '=');
	struct rule_param *p;
	size_t nlen = eq ? (size_t)(eq - s) : 0;
	unsigned int i;

	if (!eq || !nlen)
		return perr_set(e, "param: \"%s\" is not NAME=VALUE", s);
	if (nlen >= CCAAS_PARAM_NAME_MAX)
		return perr_set(e, "param: name too long in \"%s\" (at most %d characters)",
				s, CCAAS_PARAM_NAME_MAX - 1);
	if (r->n_params == RULE_PARAMS_MAX)
		return perr_set(e, "too many parameters (at most %d)", RULE_PARAMS_MAX);
	p = &r->params[r->n_params];
	memcpy(p->name, s, nlen);
	p->name[nlen] = '\0';
	for (i = 0; i < r->n_params; i++)
		if (!strcmp(r->params[i].name, p->name))
			return perr_set(e, "param %s given twice", p->name);
	if (!parse_u32(eq + 1, &p->value))
		return perr_set(e, "param %s: \"%s\" is not a number (0..4294967295)",
				p->name, eq + 1);
	r->n_params++;
	return 0;
}

/* "N" or "N-M", ports 1..65535, N <= M. */
static int parse_port_range(const char *s, struct rule *r, struct perr *e)
{
	char buf[16], *dash;
	uint32_t lo, hi;

	if (r->has_port)
		return perr_set(e, "port given twice");
	if (strlen(s) >= sizeof(buf))
		return perr_set(e, "port: \"%s\" is not a port or a range (N or N-M)", s);
	strcpy(buf, s);
	dash = strchr(buf, '-');
	if (dash)
		*dash++ = '\0';
	if (!parse_u32(buf, &lo) || (dash && !parse_u32(dash, &hi)))
		return perr_set(e, "port: \"%s\" is not a port or a range (N or N-M)", s);
	if (!dash)
		hi = lo;
	if (!lo || lo > 65535 || !hi || hi > 65535)
		return perr_set(e, "port: \"%s\" is out of range (1..65535)", s);
	if (hi < lo)
		return perr_set(e, "port: \"%s\" ends below its start", s);
	r->port_min = (uint16_t)lo;
	r->port_max = (uint16_t)hi;
	r->has_port = true;
	return 0;
}

/*
 * "cgroup PATH": the kernel keeps the path and binds it to the cgroup
 * there, now or once it is made; a path without a cgroup is said, not
 * refused (a policy applied at boot names services not started yet).
 */
static int parse_cgroup(const char *s, struct rule *r, struct perr *e)
{
	const char *mount;
	uint64_t id;

	if (r->has_cgroup)
		return perr_set(e, "cgroup given twice");
	if (cgroup_canon(s, false, r->cgroup, sizeof(r->cgroup), e->msg,
			 sizeof(e->msg)))
		return -1;
	if (!cgroup_lookup(r->cgroup, &id, &mount))
		fprintf(stderr,
			"ccactl: warning: no cgroup \"%s\" under %s yet: the rule applies to it once it is made\n",
			r->cgroup, mount);
	r->has_cgroup = true;
	return 0;
}

/* A numeric match or knob word: each may appear once. */
static int parse_number(const char *word, const char *arg, bool *has,
			uint32_t *v, struct perr *e)
{
	if (*has)
		return perr_set(e, "%s given twice", word);
	if (!parse_u32(arg, v))
		return perr_set(e, "%s: \"%s\" is not a number (0..4294967295)", word, arg);
	*has = true;
	return 0;
}

/*
 * Parse "MATCH [ACTION] [OPTIONS]" from @argc words. @match_only: a match
 * and nothing else (policy del). @opts: where to put no_migrate/force, or
 * NULL where they are not allowed (policy files). Returns 0, or -1 with a
 * message in @e.
 */
static int rule_parse(int argc, char **argv, bool match_only,
		      struct change_opts *opts, struct rule *r, struct perr *e)
{
	bool ok;
	int i;

	memset(r, 0, sizeof(*r));
	if (argc == 0)
		return perr_set(e, "missing match: \"default\", \"locality LOC ...\", \"cgroup PATH\" or \"port N\"");
	i = 0;
	if (!strcmp(argv[0], "default")) {
		i = 1;
	} else {
		/* the service words first, then the scope */
		for (; i < argc; i += 2) {
			if (strcmp(argv[i], "cgroup") && strcmp(argv[i], "port"))
				break;
			if (i + 1 == argc)
				return perr_set(e, "%s: missing value", argv[i]);
			if (!strcmp(argv[i], "cgroup"))
				ok = !parse_cgroup(argv[i + 1], r, e);
			else
				ok = !parse_port_range(argv[i + 1], r, e);
			if (!ok)
				return -1;
		}
		if (i < argc && !strcmp(argv[i], "locality")) {
			if (i + 1 == argc)
				return perr_set(e, "locality: missing LOC (rack, dc, region or xregion)");
			if (parse_locality(argv[i + 1], r, e))
				return -1;
			i += 2;
		}
		if (!i)
			return perr_set(e, "expected \"default\", \"locality LOC\", \"cgroup PATH\" or \"port N\", not \"%s\"",
					argv[0]);
	}

	for (; i < argc; i++) {
		const char *w = argv[i], *arg = i + 1 < argc ? argv[i + 1] : NULL;
		bool match_word = !strcmp(w, "region") || !strcmp(w, "dc") ||
				  !strcmp(w, "local");
		bool action_word = !strcmp(w, "cca") || !strcmp(w, "param") ||
				   !strcmp(w, "min_rto") || !strcmp(w, "init_cwnd") ||
				   !strcmp(w, "tso_segs");

		if (opts && (!strcmp(w, "no_migrate") || !strcmp(w, "no-migrate") ||
			     !strcmp(w, "--no-migrate"))) {
			opts->no_migrate = true;
			continue;
		}
		if (opts && (!strcmp(w, "force") || !strcmp(w, "--force"))) {
			opts->force = true;
			continue;
		}
		if (!match_word && !action_word) {
			if (!opts && (!strcmp(w, "no_migrate") || !strcmp(w, "force")))
				return perr_set(e, "%s is an option of \"policy apply\", not of a rule",
						w);
			return perr_set(e, "unknown word \"%s\"", w);
		}
		if (match_word && !r->has_locality)
			return perr_set(e, "%s needs a locality (the default rule has no match fields)",
					w);
		if (action_word && match_only)
			return perr_set(e, "deleting a rule takes its match only, not \"%s\"", w);
		if (!arg)
			return perr_set(e, "%s: missing value", w);
		i++;

		if (!strcmp(w, "region"))
			ok = !parse_number(w, arg, &r->has_region, &r->region, e);
		else if (!strcmp(w, "dc"))
			ok = !parse_number(w, arg, &r->has_dc, &r->dc, e);
		else if (!strcmp(w, "init_cwnd"))
			ok = !parse_number(w, arg, &r->has_init_cwnd, &r->init_cwnd, e);
		else if (!strcmp(w, "tso_segs"))
			ok = !parse_number(w, arg, &r->has_tso_segs, &r->tso_segs, e);
		else if (!strcmp(w, "param"))
			ok = !parse_param(arg, r, e);
		else if (!strcmp(w, "local"))
			ok = r->has_local ? !perr_set(e, "local given twice") :
			     !parse_prefix(arg, r, e);
		else if (!strcmp(w, "min_rto")) {
			ok = !r->has_min_rto && parse_time_us(arg, &r->min_rto_us);
			if (!ok && r->has_min_rto)
				perr_set(e, "min_rto given twice");
			else if (!ok)
				perr_set(e, "min_rto: \"%s\" is not a time (e.g. 1ms, 200us, 0.5ms)",
					 arg);
			r->has_min_rto = true;
		} else {	/* cca */
			ok = !r->has_cca && arg[0] && strlen(arg) < CCAAS_CCA_NAME_MAX;
			if (!ok && r->has_cca)
				perr_set(e, "cca given twice");
			else if (!ok)
				perr_set(e, "cca: invalid CCA name \"%s\" (1 to %d characters)",
					 arg, CCAAS_CCA_NAME_MAX - 1);
			snprintf(r->cca, sizeof(r->cca), "%s", arg);
			r->has_cca = true;
		}
		if (!ok)
			return -1;
	}
	if (!match_only && !r->has_cca)
		return perr_set(e, "missing \"cca NAME\"");
	return 0;
}

/* ---- rules to text ---- */

/* The rule in the words "policy set" and policy files take. */
static void rule_format(const struct rule *r, bool match_only, char *buf,
			size_t len)
{
	char tmp[64], pfx[INET6_ADDRSTRLEN + 8];
	size_t used = 0;
	unsigned int i;

#define ADD(...) do {							\
		if (used < len)						\
			used += snprintf(buf + used, len - used, __VA_ARGS__); \
	} while (0)

	buf[0] = '\0';
	if (r->has_cgroup)
		ADD("cgroup %s", r->cgroup);
	if (r->has_port) {
		ADD("%sport %u", used ? " " : "", r->port_min);
		if (r->port_max != r->port_min)
			ADD("-%u", r->port_max);
	}
	if (!r->has_locality && !used) {
		ADD("default");
	} else if (r->has_locality) {
		ADD("%slocality %s", used ? " " : "",
		    name_of(locality_names, ARRAY_SIZE(locality_names),
			    r->locality, tmp, sizeof(tmp)));
		if (r->has_region)
			ADD(" region %u", r->region);
		if (r->has_dc)
			ADD(" dc %u", r->dc);
		if (r->has_local) {
			format_prefix(r, pfx, sizeof(pfx));
			ADD(" local %s", pfx);
		}
	}
	if (match_only)
		return;
	ADD(" cca %s", r->cca);
	for (i = 0; i < r->n_params; i++)
		ADD(" param %s=%u", r->params[i].name, r->params[i].value);
	if (r->has_min_rto) {
		format_time_us(r->min_rto_us, tmp, sizeof(tmp));
		ADD(" min_rto %s", tmp);
	}
	if (r->has_init_cwnd)
		ADD(" init_cwnd %u", r->init_cwnd);
	if (r->has_tso_segs)
		ADD(" tso_segs %u", r->tso_segs);
#undef ADD
}

static void rule_print_json(const struct rule *r)
{
	char tmp[64], pfx[INET6_ADDRSTRLEN + 8];
	unsigned int i;

	open_json_object(NULL);
	print_bool(PRINT_JSON, "default", "%s",
		   !r->has_locality && !r->has_cgroup && !r->has_port);
	if (r->has_cgroup) {
		print_string(PRINT_JSON, "cgroup", "%s", r->cgroup);
		/* none until a cgroup is made at the path */
		if (r->cgroup_id)
			print_uint(PRINT_JSON, "cgroup_id", "%llu", r->cgroup_id);
	}
	if (r->has_port) {
		print_uint(PRINT_JSON, "port_min", "%llu", r->port_min);
		print_uint(PRINT_JSON, "port_max", "%llu", r->port_max);
	}
	if (r->has_locality)
		print_string(PRINT_JSON, "locality", "%s",
			     name_of(locality_names, ARRAY_SIZE(locality_names),
				     r->locality, tmp, sizeof(tmp)));
	if (r->has_region)
		print_uint(PRINT_JSON, "region", "%llu", r->region);
	if (r->has_dc)
		print_uint(PRINT_JSON, "dc", "%llu", r->dc);
	if (r->has_local) {
		format_prefix(r, pfx, sizeof(pfx));
		print_string(PRINT_JSON, "local", "%s", pfx);
	}
	print_string(PRINT_JSON, "cca", "%s", r->cca);
	if (r->n_params) {
		open_json_object("params");
		for (i = 0; i < r->n_params; i++)
			print_uint(PRINT_JSON, r->params[i].name, "%llu",
				   r->params[i].value);
		close_json_object();
	}
	if (r->has_min_rto)
		print_uint(PRINT_JSON, "min_rto_us", "%llu", r->min_rto_us);
	if (r->has_init_cwnd)
		print_uint(PRINT_JSON, "init_cwnd", "%llu", r->init_cwnd);
	if (r->has_tso_segs)
		print_uint(PRINT_JSON, "tso_segs", "%llu", r->tso_segs);
	close_json_object();
}

static bool match_equal(const struct rule *a, const struct rule *b)
{
	if (a->has_locality != b->has_locality ||
	    (a->has_locality && a->locality != b->locality) ||
	    a->has_region != b->has_region ||
	    (a->has_region && a->region != b->region) ||
	    a->has_dc != b->has_dc || (a->has_dc && a->dc != b->dc) ||
	    a->has_local != b->has_local ||
	    a->has_cgroup != b->has_cgroup ||
	    (a->has_cgroup && strcmp(a->cgroup, b->cgroup)) ||
	    a->has_port != b->has_port ||
	    (a->has_port && (a->port_min != b->port_min ||
			     a->port_max != b->port_max)))
		return false;
	return !a->has_local ||
	       (a->family == b->family && a->prefixlen == b->prefixlen &&
		!memcmp(a->addr, b->addr, sizeof(a->addr)));
}

static const struct rule_param *param_find(const struct rule *r,
					   const char *name)
{
	unsigned int i;

	for (i = 0; i < r->n_params; i++)
		if (!strcmp(r->params[i].name, name))
			return &r->params[i];
	return NULL;
}

/* Same match and same action (parameters in any order)? */
static bool rule_equal(const struct rule *a, const struct rule *b)
{
	unsigned int i;

	if (!match_equal(a, b) || strcmp(a->cca, b->cca) ||
	    a->n_params != b->n_params ||
	    a->has_min_rto != b->has_min_rto ||
	    (a->has_min_rto && a->min_rto_us != b->min_rto_us) ||
	    a->has_init_cwnd != b->has_init_cwnd ||
	    (a->has_init_cwnd && a->init_cwnd != b->init_cwnd) ||
	    a->has_tso_segs != b->has_tso_segs ||
	    (a->has_tso_segs && a->tso_segs != b->tso_segs))
		return false;
	for (i = 0; i < a->n_params; i++) {
		const struct rule_param *p = param_find(b, a->params[i].name);

		if (!p || p->value != a->params[i].value)
			return false;
	}
	return true;
}

/* ---- netlink: rules and headers ---- */

/* Put @r as a CCAAS_A_POLICY_RULE nest; -EMSGSIZE if @buflen is too small. */
static int rule_put(struct nlmsghdr *nlh, size_t buflen, const struct rule *r,
		    bool match_only)
{
	struct nlattr *nest, *pn;
	unsigned int i;
	bool ok = true;

	nest = mnl_attr_nest_start_check(nlh, buflen, CCAAS_A_POLICY_RULE);
	if (!nest)
		return -EMSGSIZE;
	if (r->has_locality)
		ok &= mnl_attr_put_u8_check(nlh, buflen, CCAAS_A_RULE_LOCALITY, r->locality);
	if (r->has_region)
		ok &= mnl_attr_put_u32_check(nlh, buflen, CCAAS_A_RULE_REGION, r->region);
	if (r->has_dc)
		ok &= mnl_attr_put_u32_check(nlh, buflen, CCAAS_A_RULE_DC, r->dc);
	if (r->has_local) {
		ok &= mnl_attr_put_check(nlh, buflen, CCAAS_A_RULE_LOCAL_ADDR,
					 r->family == AF_INET ? 4 : 16, r->addr);
		ok &= mnl_attr_put_u8_check(nlh, buflen, CCAAS_A_RULE_LOCAL_PREFIXLEN,
					    r->prefixlen);
	}
	if (r->has_cgroup)
		ok &= mnl_attr_put_strz_check(nlh, buflen, CCAAS_A_RULE_CGROUP,
					      r->cgroup);
	if (r->has_port) {
		ok &= mnl_attr_put_u16_check(nlh, buflen, CCAAS_A_RULE_PORT_MIN,
					     r->port_min);
		ok &= mnl_attr_put_u16_check(nlh, buflen, CCAAS_A_RULE_PORT_MAX,
					     r->port_max);
	}
	if (!match_only) {
		cca_preload(r->cca);
		ok &= mnl_attr_put_strz_check(nlh, buflen, CCAAS_A_RULE_CCA, r->cca);
		for (i = 0; ok && i < r->n_params; i++) {
			pn = mnl_attr_nest_start_check(nlh, buflen, CCAAS_A_RULE_PARAM);
			ok = pn &&
			     mnl_attr_put_strz_check(nlh, buflen, CCAAS_A_PARAM_NAME,
						     r->params[i].name) &&
			     mnl_attr_put_u32_check(nlh, buflen, CCAAS_A_PARAM_VALUE,
						    r->params[i].value);
			if (ok)
				mnl_attr_nest_end(nlh, pn);
		}
		if (r->has_min_rto)
			ok &= mnl_attr_put_u32_check(nlh, buflen, CCAAS_A_RULE_MIN_RTO_US,
						     r->min_rto_us);
		if (r->has_init_cwnd)
			ok &= mnl_attr_put_u32_check(nlh, buflen, CCAAS_A_RULE_INIT_CWND,
						     r->init_cwnd);
		if (r->has_tso_segs)
			ok &= mnl_attr_put_u32_check(nlh, buflen, CCAAS_A_RULE_TSO_SEGS,
						     r->tso_segs);
	}
	if (!ok) {
		mnl_attr_nest_cancel(nlh, nest);
		return -EMSGSIZE;
	}
	mnl_attr_nest_end(nlh, nest);
	return 0;
}

static void opts_put(struct nlmsghdr *nlh, const struct change_opts *o)
{
	if (o->dry_run)
		mnl_attr_put(nlh, CCAAS_A_POLICY_DRY_RUN, 0, NULL);
	if (o->no_migrate)
		mnl_attr_put(nlh, CCAAS_A_POLICY_NO_MIGRATE, 0, NULL);
	if (o->force)
		mnl_attr_put(nlh, CCAAS_A_POLICY_FORCE, 0, NULL);
}

static int param_from_attr(const struct nlattr *nest, struct rule_param *p)
{
	const struct nlattr *a;
	bool name = false, value = false;

	mnl_attr_for_each_nested(a, nest) {
		switch (mnl_attr_get_type(a)) {
		case CCAAS_A_PARAM_NAME:
			if (mnl_attr_validate(a, MNL_TYPE_NUL_STRING) < 0)
				return -EBADMSG;
			snprintf(p->name, sizeof(p->name), "%s", mnl_attr_get_str(a));
			name = true;
			break;
		case CCAAS_A_PARAM_VALUE:
			if (mnl_attr_validate(a, MNL_TYPE_U32) < 0)
				return -EBADMSG;
			p->value = mnl_attr_get_u32(a);
			value = true;
			break;
		}
	}
	return name && value ? 0 : -EBADMSG;
}

static int rule_from_attr(const struct nlattr *nest, struct rule *r)
{
	const struct nlattr *a;
	int len;

	memset(r, 0, sizeof(*r));
	mnl_attr_for_each_nested(a, nest) {
		switch (mnl_attr_get_type(a)) {
		case CCAAS_A_RULE_LOCALITY:
			if (mnl_attr_validate(a, MNL_TYPE_U8) < 0)
				return -EBADMSG;
			r->locality = mnl_attr_get_u8(a);
			r->has_locality = true;
			break;
		case CCAAS_A_RULE_REGION:
			if (mnl_attr_validate(a, MNL_TYPE_U32) < 0)
				return -EBADMSG;
			r->region = mnl_attr_get_u32(a);
			r->has_region = true;
			break;
		case CCAAS_A_RULE_DC:
			if (mnl_attr_validate(a, MNL_TYPE_U32) < 0)
				return -EBADMSG;
			r->dc = mnl_attr_get_u32(a);
			r->has_dc = true;
			break;
		case CCAAS_A_RULE_LOCAL_ADDR:
			len = mnl_attr_get_payload_len(a);
			if (len != 4 && len != 16)
				return -EBADMSG;
			r->family = len == 4 ? AF_INET : AF_INET6;
			memcpy(r->addr, mnl_attr_get_payload(a), len);
			r->has_local = true;
			break;
		case CCAAS_A_RULE_LOCAL_PREFIXLEN:
			if (mnl_attr_validate(a, MNL_TYPE_U8) < 0)
				return -EBADMSG;
			r->prefixlen = mnl_attr_get_u8(a);
			break;
		case CCAAS_A_RULE_CCA:
			if (mnl_attr_validate(a, MNL_TYPE_NUL_STRING) < 0)
				return -EBADMSG;
			snprintf(r->cca, sizeof(r->cca), "%s", mnl_attr_get_str(a));
			r->has_cca = true;
			break;
		case CCAAS_A_RULE_PARAM:
			if (r->n_params == RULE_PARAMS_MAX ||
			    param_from_attr(a, &r->params[r->n_params]) < 0)
				return -EBADMSG;
			r->n_params++;
			break;
		case CCAAS_A_RULE_MIN_RTO_US:
			if (mnl_attr_validate(a, MNL_TYPE_U32) < 0)
				return -EBADMSG;
			r->min_rto_us = mnl_attr_get_u32(a);
			r->has_min_rto = true;
			break;
		case CCAAS_A_RULE_INIT_CWND:
			if (mnl_attr_validate(a, MNL_TYPE_U32) < 0)
				return -EBADMSG;
			r->init_cwnd = mnl_attr_get_u32(a);
			r->has_init_cwnd = true;
			break;
		case CCAAS_A_RULE_TSO_SEGS:
			if (mnl_attr_validate(a, MNL_TYPE_U32) < 0)
				return -EBADMSG;
			r->tso_segs = mnl_attr_get_u32(a);
			r->has_tso_segs = true;
			break;
		case CCAAS_A_RULE_CGROUP:
			if (mnl_attr_validate(a, MNL_TYPE_NUL_STRING) < 0)
				return -EBADMSG;
			snprintf(r->cgroup, sizeof(r->cgroup), "%s", mnl_attr_get_str(a));
			r->has_cgroup = true;
			break;
		case CCAAS_A_RULE_CGROUP_ID:
			if (mnl_attr_validate(a, MNL_TYPE_U64) < 0)
				return -EBADMSG;
			r->cgroup_id = mnl_attr_get_u64(a);
			break;
		case CCAAS_A_RULE_PORT_MIN:
			if (mnl_attr_validate(a, MNL_TYPE_U16) < 0)
				return -EBADMSG;
			r->port_min = mnl_attr_get_u16(a);
			r->has_port = true;
			break;
		case CCAAS_A_RULE_PORT_MAX:
			if (mnl_attr_validate(a, MNL_TYPE_U16) < 0)
				return -EBADMSG;
			r->port_max = mnl_attr_get_u16(a);
			break;
		default:	/* newer kernel: ignore what we do not know */
			break;
		}
	}
	return r->has_cca ? 0 : -EBADMSG;
}

/* The header attributes of a reply (other attributes are skipped). */
static int head_parse(const struct nlmsghdr *nlh, struct head *h)
{
	const struct nlattr *a;

	memset(h, 0, sizeof(*h));
	mnl_attr_for_each(a, nlh, sizeof(struct genlmsghdr)) {
		switch (mnl_attr_get_type(a)) {
		case CCAAS_A_POLICY_GENERATION:
			if (mnl_attr_validate(a, MNL_TYPE_U32) < 0)
				return -EBADMSG;
			h->generation = mnl_attr_get_u32(a);
			h->has_generation = true;
			break;
		case CCAAS_A_POLICY_ORIGIN:
			if (mnl_attr_validate(a, MNL_TYPE_U8) < 0)
				return -EBADMSG;
			h->origin = mnl_attr_get_u8(a);
			break;
		case CCAAS_A_POLICY_FROM:
			if (mnl_attr_validate(a, MNL_TYPE_U32) < 0)
				return -EBADMSG;
			h->from = mnl_attr_get_u32(a);
			break;
		case CCAAS_A_POLICY_TIME:
			if (mnl_attr_validate(a, MNL_TYPE_U64) < 0)
				return -EBADMSG;
			h->time_ns = mnl_attr_get_u64(a);
			h->has_time = true;
			break;
		case CCAAS_A_POLICY_NRULES:
			if (mnl_attr_validate(a, MNL_TYPE_U32) < 0)
				return -EBADMSG;
			h->nrules = mnl_attr_get_u32(a);
			break;
		case CCAAS_A_POLICY_UNCHANGED:
			h->unchanged = true;
			break;
		}
	}
	return h->has_generation ? 0 : -EBADMSG;
}

static void format_time_ns(uint64_t ns, char *buf, size_t len)
{
	time_t t = (time_t)(ns / 1000000000ULL);
	struct tm tm;

	if (!gmtime_r(&t, &tm) || !strftime(buf, len, "%Y-%m-%d %H:%M:%S UTC", &tm))
		snprintf(buf, len, "%llu", (unsigned long long)ns);
}

/* The header's JSON members (inside an open object). */
static void head_print_json(const struct head *h, bool with_unchanged)
{
	char tmp[16];

	print_uint(PRINT_JSON, "generation", "%llu", h->generation);
	print_string(PRINT_JSON, "origin", "%s",
		     name_of(origin_names, ARRAY_SIZE(origin_names), h->origin,
			     tmp, sizeof(tmp)));
	if (h->origin == CCAAS_POLICY_ORIGIN_ROLLBACK)
		print_uint(PRINT_JSON, "from", "%llu", h->from);
	if (h->has_time)
		print_uint(PRINT_JSON, "time_ns", "%llu", h->time_ns);
	print_uint(PRINT_JSON, "nrules", "%llu", h->nrules);
	if (with_unchanged)
		print_bool(PRINT_JSON, "unchanged", "%s", h->unchanged);
}

/* ---- requests ---- */

static int head_cb(const struct nlmsghdr *nlh, void *data)
{
	struct head *h = data;

	if (h->has_generation)
		return -EBADMSG;	/* one answer expected */
	return head_parse(nlh, h);
}

/* What a change prints: "generation N" or "unchanged (generation N)". */
static int change_report(const struct head *h)
{
	print_begin(stdout, ccactl_opts.json, ccactl_opts.pretty);
	if (print_is_json()) {
		open_json_object(NULL);
		head_print_json(h, true);
		close_json_object();
	} else if (h->unchanged) {
		print_text("unchanged (generation %u)\n", h->generation);
	} else if (h->origin == CCAAS_POLICY_ORIGIN_ROLLBACK) {
		print_text("generation %u (rollback to %u)\n", h->generation, h->from);
	} else {
		print_text("generation %u\n", h->generation);
	}
	print_end();
	return CCACTL_EXIT_OK;
}

/* Send a change built in @nlh and read the header it replies. */
static int change_request(struct nlmsghdr *nlh, struct head *h)
{
	int ret;

	memset(h, 0, sizeof(*h));
	ret = ccaas_request(nlh, head_cb, h);
	if (ret)
		return ret;
	if (!h->has_generation) {
		fputs("Error: the kernel answered without a generation\n", stderr);
		return CCACTL_EXIT_KERNEL;
	}
	return CCACTL_EXIT_OK;
}

/* ---- policy set, policy del ---- */

static int policy_change(int argc, char **argv, bool del)
{
	const char *cmd = del ? "policy del" : "policy set";
	char buf[NL_SEND_BUFSZ];
	struct change_opts o = { 0 };
	struct nlmsghdr *nlh;
	struct perr e;
	struct rule r;
	struct head h;
	int ret;

	if (rule_parse(argc, argv, del, &o, &r, &e))
		return usage_error("%s: %s", cmd, e.msg);
	ret = ccaas_msg(buf, del ? CCAAS_CMD_POLICY_DEL : CCAAS_CMD_POLICY_SET, 0, &nlh);
	if (ret)
		return ret;
	if (rule_put(nlh, sizeof(buf), &r, del))
		return usage_error("%s: rule too long", cmd);
	opts_put(nlh, &o);
	ret = change_request(nlh, &h);
	return ret ? ret : change_report(&h);
}

static int policy_set(int argc, char **argv)
{
	return policy_change(argc, argv, false);
}

static int policy_del(int argc, char **argv)
{
	return policy_change(argc, argv, true);
}

/* ---- policy show ---- */

struct show_ctx {
	struct head head;
	struct rules rules;
	bool started;
};

static int show_cb(const struct nlmsghdr *nlh, void *data)
{
	struct show_ctx *ctx = data;
	const struct nlattr *a;
	struct head h;
	struct rule r;
	int err;

	err = head_parse(nlh, &h);
	if (err)
		return err;
	/* Every part repeats the header of the one generation shown. */
	if (ctx->started && h.generation != ctx->head.generation)
		return -EBADMSG;
	ctx->head = h;
	ctx->started = true;
	mnl_attr_for_each(a, nlh, sizeof(struct genlmsghdr)) {
		if (mnl_attr_get_type(a) != CCAAS_A_POLICY_RULE)
			continue;
		if (rule_from_attr(a, &r) < 0)
			return -EBADMSG;
		if (rules_push(&ctx->rules, &r))
			return -ENOMEM;
	}
	return 0;
}

/*
 * Fetch a generation (@gen, or the current one if @has_gen is false);
 * @quiet: print nothing on failure.
 */
static int policy_fetch(bool has_gen, uint32_t gen, bool quiet,
			struct show_ctx *ctx)
{
	char buf[NL_SEND_BUFSZ];
	struct nlmsghdr *nlh;
	int ret;

	memset(ctx, 0, sizeof(*ctx));
	ret = ccaas_msg(buf, CCAAS_CMD_POLICY_GET, NLM_F_DUMP, &nlh);
	if (ret)
		return ret;
	if (has_gen)
		mnl_attr_put_u32(nlh, CCAAS_A_POLICY_GENERATION, gen);
	ret = quiet ? ccaas_request_quiet(nlh, show_cb, ctx) :
		      ccaas_request(nlh, show_cb, ctx);
	if (ret)
		return quiet ? CCACTL_EXIT_KERNEL : ret;
	if (!ctx->started) {
		if (!quiet)
			fputs("Error: the kernel answered without a generation\n", stderr);
		return CCACTL_EXIT_KERNEL;
	}
	return CCACTL_EXIT_OK;
}

static int policy_show(int argc, char **argv)
{
	char text[RULE_TEXT_MAX], when[64], origin[32], tmp[16];
	struct show_ctx ctx;
	uint32_t gen = 0;
	bool has_gen = false;
	size_t i;
	int ret;

	if (argc >= 1 && !strcmp(argv[0], "generation")) {
		if (argc < 2 || !parse_u32(argv[1], &gen))
			return usage_error("policy show: generation needs a number");
		has_gen = true;
		argc -= 2;
		argv += 2;
	}
	if (argc > 0)
		return usage_error("policy show: unexpected argument \"%s\"", argv[0]);

	ret = policy_fetch(has_gen, gen, false, &ctx);
	if (ret)
		goto out;

	print_begin(stdout, ccactl_opts.json, ccactl_opts.pretty);
	if (print_is_json()) {
		open_json_object(NULL);
		head_print_json(&ctx.head, false);
		open_json_array("rules");
		for (i = 0; i < ctx.rules.n; i++)
			rule_print_json(&ctx.rules.v[i]);
		close_json_array();
		close_json_object();
	} else {
		/* A comment, so that the output is a policy file. */
		snprintf(origin, sizeof(origin), "%s",
			 name_of(origin_names, ARRAY_SIZE(origin_names),
				 ctx.head.origin, tmp, sizeof(tmp)));
		if (ctx.head.origin == CCAAS_POLICY_ORIGIN_ROLLBACK)
			snprintf(origin, sizeof(origin), "rollback to %u", ctx.head.from);
		format_time_ns(ctx.head.time_ns, when, sizeof(when));
		print_text("# generation %u (%s), %s, %u rule%s\n",
			   ctx.head.generation, origin,
			   ctx.head.has_time ? when : "no time",
			   ctx.head.nrules, ctx.head.nrules == 1 ? "" : "s");
		for (i = 0; i < ctx.rules.n; i++) {
			const struct rule *r = &ctx.rules.v[i];

			rule_format(r, false, text, sizeof(text));
			/* the cgroup the kernel bound the path to */
			if (r->has_cgroup && r->cgroup_id)
				print_text("%s  # cgroup id %llu%s\n", text,
					   (unsigned long long)r->cgroup_id,
					   cgroup_name(r->cgroup_id) ? "" : ", removed");
			else if (r->has_cgroup)
				print_text("%s  # no cgroup made at the path yet\n", text);
			else
				print_text("%s\n", text);
		}
	}
	print_end();
out:
	free(ctx.rules.v);
	return ret;
}

/*
 * For "stats": the match of each rule of generation @gen, in the kernel's
 * order, as malloc'd strings in *@texts (free with policy_matches_free()).
 * Quiet: a generation already gone is -ENOENT, left to the caller.
 */
int policy_matches(uint32_t gen, char ***texts, size_t *n)
{
	return policy_matches_of(true, &gen, texts, n);
}

/*
 * The same for generation *@gen if @has_gen, else for the generation in
 * force, whose number goes to *@gen.
 */
int policy_matches_of(bool has_gen, uint32_t *gen, char ***texts, size_t *n)
{
	char text[RULE_TEXT_MAX];
	struct show_ctx ctx;
	char **v = NULL;
	size_t i;
	int ret = 0;

	if (policy_fetch(has_gen, *gen, true, &ctx) ||
	    (has_gen && ctx.head.generation != *gen)) {
		free(ctx.rules.v);
		return -ENOENT;
	}
	*gen = ctx.head.generation;
	if (!texts) {
		free(ctx.rules.v);
		return 0;
	}
	if (ctx.rules.n) {
		v = calloc(ctx.rules.n, sizeof(*v));
		if (!v)
			ret = -ENOMEM;
	}
	for (i = 0; !ret && i < ctx.rules.n; i++) {
		rule_format(&ctx.rules.v[i], true, text, sizeof(text));
		v[i] = strdup(text);
		if (!v[i])
			ret = -ENOMEM;
	}
	free(ctx.rules.v);
	if (ret) {
		policy_matches_free(v, ctx.rules.n);
		return ret;
	}
	*texts = v;
	*n = ctx.rules.n;
	return 0;
}

void policy_matches_free(char **texts, size_t n)
{
	size_t i;

	for (i = 0; texts && i < n; i++)
		free(texts[i]);
	free(texts);
}

/* ---- policy history ---- */

struct heads {
	struct head *v;
	size_t n, cap;
};

static int history_cb(const struct nlmsghdr *nlh, void *data)
{
	struct heads *hs = data;

	if (hs->n == hs->cap) {
		size_t cap = hs->cap ? 2 * hs->cap : 16;
		struct head *v = realloc(hs->v, cap * sizeof(*v));

		if (!v)
			return -ENOMEM;
		hs->v = v;
		hs->cap = cap;
	}
	if (head_parse(nlh, &hs->v[hs->n]) < 0)
		return -EBADMSG;
	hs->n++;
	return 0;
}

static int history_text(const struct heads *hs)
{
	static const char *const headers[] = {
		"GENERATION", "ORIGIN", "FROM", "RULES", "COMMITTED",
	};
	struct table *t = table_new(5, headers);
	size_t i;

	if (!t)
		goto nomem;
	for (i = 0; i < hs->n; i++) {
		const struct head *h = &hs->v[i];
		char gen[16], from[16], nrules[16], when[64], tmp[16];
		const char *cells[5] = { gen, NULL, NULL, nrules, NULL };

		snprintf(gen, sizeof(gen), "%u", h->generation);
		cells[1] = name_of(origin_names, ARRAY_SIZE(origin_names),
				   h->origin, tmp, sizeof(tmp));
		if (h->origin == CCAAS_POLICY_ORIGIN_ROLLBACK) {
			snprintf(from, sizeof(from), "%u", h->from);
			cells[2] = from;
		}
		snprintf(nrules, sizeof(nrules), "%u", h->nrules);
		if (h->has_time) {
			format_time_ns(h->time_ns, when, sizeof(when));
			cells[4] = when;
		}
		if (table_add(t, cells))
			goto nomem;
	}
	table_print(t, stdout);
	table_free(t);
	return CCACTL_EXIT_OK;
nomem:
	return table_nomem(t);
}

static int policy_history(int argc, char **argv)
{
	char buf[NL_SEND_BUFSZ];
	struct heads hs = { 0 };
	struct nlmsghdr *nlh;
	size_t i;
	int ret;

	if (argc > 0)
		return usage_error("policy history: unexpected argument \"%s\"", argv[0]);
	ret = ccaas_msg(buf, CCAAS_CMD_POLICY_HISTORY, NLM_F_DUMP, &nlh);
	if (ret)
		return ret;
	ret = ccaas_request(nlh, history_cb, &hs);
	if (ret)
		goto out;

	print_begin(stdout, ccactl_opts.json, ccactl_opts.pretty);
	if (print_is_json()) {
		open_json_array(NULL);
		for (i = 0; i < hs.n; i++) {
			open_json_object(NULL);
			head_print_json(&hs.v[i], false);
			/* Oldest first: the last one is in force. */
			print_bool(PRINT_JSON, "current", "%s", i + 1 == hs.n);
			close_json_object();
		}
		close_json_array();
	} else {
		ret = history_text(&hs);
	}
	print_end();
out:
	free(hs.v);
	return ret;
}

/* ---- policy rollback ---- */

/* no_migrate, force and (with @dry_run) dry_run, from the command line. */
static int parse_opts(int argc, char **argv, const char *cmd, bool dry_run,
		      struct change_opts *o)
{
	int i;

	for (i = 0; i < argc; i++) {
		const char *w = argv[i];

		if (!strcmp(w, "no_migrate") || !strcmp(w, "no-migrate") ||
		    !strcmp(w, "--no-migrate"))
			o->no_migrate = true;
		else if (!strcmp(w, "force") || !strcmp(w, "--force"))
			o->force = true;
		else if (dry_run && (!strcmp(w, "dry_run") || !strcmp(w, "dry-run") ||
				     !strcmp(w, "--dry-run")))
			o->dry_run = true;
		else
			return usage_error("%s: unexpected argument \"%s\"", cmd, w);
	}
	return CCACTL_EXIT_OK;
}

/*
 * Load the CCAs generation @gen names (cca_preload()): a rollback resolves
 * them again. A generation the kernel does not show is left to the
 * rollback request to refuse.
 */
static int preload_generation(uint32_t gen)
{
	char buf[NL_SEND_BUFSZ];
	struct show_ctx ctx = { 0 };
	struct nlmsghdr *nlh;
	size_t i;
	int ret;

	ret = ccaas_msg(buf, CCAAS_CMD_POLICY_GET, NLM_F_DUMP, &nlh);
	if (ret)
		return ret;
	mnl_attr_put_u32(nlh, CCAAS_A_POLICY_GENERATION, gen);
	if (ccaas_request_quiet(nlh, show_cb, &ctx) == 0)
		for (i = 0; i < ctx.rules.n; i++)
			cca_preload(ctx.rules.v[i].cca);
	free(ctx.rules.v);
	return CCACTL_EXIT_OK;
}

static int policy_rollback(int argc, char **argv)
{
	char buf[NL_SEND_BUFSZ];
	struct change_opts o = { 0 };
	struct nlmsghdr *nlh;
	struct head h;
	uint32_t gen;
	int ret;

	if (argc < 1)
		return usage_error("policy rollback: missing generation; usage: ccactl policy rollback GEN");
	if (!parse_u32(argv[0], &gen))
		return usage_error("policy rollback: \"%s\" is not a generation number", argv[0]);
	ret = parse_opts(argc - 1, argv + 1, "policy rollback", false, &o);
	if (ret)
		return ret;
	ret = preload_generation(gen);
	if (ret)
		return ret;
	ret = ccaas_msg(buf, CCAAS_CMD_POLICY_ROLLBACK, 0, &nlh);
	if (ret)
		return ret;
	mnl_attr_put_u32(nlh, CCAAS_A_POLICY_GENERATION, gen);
	opts_put(nlh, &o);
	ret = change_request(nlh, &h);
	return ret ? ret : change_report(&h);
}

/* ---- policy apply ---- */

/* Split @line in place into blank-separated words; '#' starts a comment. */
static int split_words(char *line, char **words, int max)
{
	char *hash = strchr(line, '#'), *save = NULL, *w;
	int n = 0;

	if (hash)
		*hash = '\0';
	for (w = strtok_r(line, " \t\r\n", &save); w;
	     w = strtok_r(NULL, " \t\r\n", &save)) {
		if (n == max)
			return -1;
		words[n++] = w;
	}
	return n;
}

/* Read the rules of a policy file; a bad line is a usage error. */
static int read_policy_file(const char *path, const char *shown,
			    struct rules *rs)
{
	FILE *f = strcmp(path, "-") ? fopen(path, "r") : stdin;
	char *line = NULL, *words[LINE_WORDS_MAX];
	unsigned int lineno = 0;
	size_t cap = 0, i;
	int n, ret = CCACTL_EXIT_OK;
	struct perr e;
	struct rule r;

	if (!f)
		return usage_error("policy apply: cannot open \"%s\": %s", path,
				   strerror(errno));
	while (getline(&line, &cap, f) != -1) {
		lineno++;
		n = split_words(line, words, LINE_WORDS_MAX);
		if (n == 0)
			continue;
		if (n < 0) {
			ret = usage_error("%s:%u: too many words (at most %d)", shown,
					  lineno, LINE_WORDS_MAX);
			break;
		}
		if (rule_parse(n, words, false, NULL, &r, &e)) {
			ret = usage_error("%s:%u: %s", shown, lineno, e.msg);
			break;
		}
		r.line = lineno;
		for (i = 0; i < rs->n; i++)
			if (match_equal(&rs->v[i], &r))
				break;
		if (i < rs->n) {
			ret = usage_error("%s:%u: duplicate match (also on line %u)", shown,
					  lineno, rs->v[i].line);
			break;
		}
		if (rules_push(rs, &r)) {
			ret = usage_error("%s: out of memory", shown);
			break;
		}
	}
	if (!ret && ferror(f))
		ret = usage_error("policy apply: error reading \"%s\"", shown);
	free(line);
	if (f != stdin)
		fclose(f);
	return ret;
}

/* An APPLY request with @n rules from @v into @buf of @len bytes. */
static int apply_msg(char *buf, size_t len, const struct rule *v, size_t n,
		     const struct change_opts *o, struct nlmsghdr **nlhp)
{
	size_t i;
	int ret;

	memset(buf, 0, len);
	ret = ccaas_msg(buf, CCAAS_CMD_POLICY_APPLY, 0, nlhp);
	if (ret)
		return ret;
	for (i = 0; i < n; i++)
		if (rule_put(*nlhp, len, &v[i], false))
			return usage_error("policy apply: too many rules for one request");
	opts_put(*nlhp, o);
	return CCACTL_EXIT_OK;
}

/*
 * The kernel refused a rule set: find the first rule it refuses on its own
 * (a dry run of each, their errors not shown again) and name its line.
 */
static void apply_blame(const char *shown, const struct rules *rs, char *buf,
			size_t len)
{
	struct change_opts dry = { .dry_run = true };
	char text[RULE_TEXT_MAX];
	struct nlmsghdr *nlh;
	struct head h;
	int saved, null, ret = 0;
	size_t i;

	fflush(stderr);
	saved = dup(STDERR_FILENO);
	null = open("/dev/null", O_WRONLY);
	if (saved < 0 || null < 0)
		goto out;
	dup2(null, STDERR_FILENO);
	for (i = 0; i < rs->n; i++) {
		/* No request at all (no family): nothing to blame a rule for. */
		if (apply_msg(buf, len, &rs->v[i], 1, &dry, &nlh))
			break;
		ret = change_request(nlh, &h);
		if (ret)
			break;
	}
	fflush(stderr);
	dup2(saved, STDERR_FILENO);
	if (ret && i < rs->n) {
		rule_format(&rs->v[i], false, text, sizeof(text));
		fprintf(stderr, "ccactl: %s:%u: refused: %s\n", shown, rs->v[i].line, text);
	}
out:
	if (saved >= 0)
		close(saved);
	if (null >= 0)
		close(null);
}

/* The diff of a dry run: "- rule", "~ rule" (changed), "+ rule". */
static void apply_diff(const struct rules *cur, const struct rules *want,
		       const struct head *h)
{
	char text[RULE_TEXT_MAX];
	unsigned int changes = 0;
	size_t i, j;

	print_begin(stdout, ccactl_opts.json, ccactl_opts.pretty);
	open_json_object(NULL);
	print_uint(PRINT_JSON, "generation", "%llu", h->generation);
	print_bool(PRINT_JSON, "unchanged", "%s", h->unchanged);
	open_json_array("changes");
	for (i = 0; i < cur->n; i++) {
		const char *op = "-";
		const struct rule *show = &cur->v[i];

		for (j = 0; j < want->n; j++)
			if (match_equal(&cur->v[i], &want->v[j]))
				break;
		if (j < want->n && rule_equal(&cur->v[i], &want->v[j]))
			continue;
		if (j < want->n) {
			op = "~";
			show = &want->v[j];
		}
		rule_format(show, false, text, sizeof(text));
		open_json_object(NULL);
		print_string(PRINT_ANY, "op", "%s ", op);
		print_string(PRINT_ANY, "rule", "%s\n", text);
		close_json_object();
		changes++;
	}
	for (j = 0; j < want->n; j++) {
		for (i = 0; i < cur->n; i++)
			if (match_equal(&cur->v[i], &want->v[j]))
				break;
		if (i < cur->n)
			continue;
		rule_format(&want->v[j], false, text, sizeof(text));
		open_json_object(NULL);
		print_string(PRINT_ANY, "op", "%s ", "+");
		print_string(PRINT_ANY, "rule", "%s\n", text);
		close_json_object();
		changes++;
	}
	close_json_array();
	close_json_object();
	if (!changes)
		print_text("no changes (generation %u)\n", h->generation);
	print_end();
}

static int policy_apply(int argc, char **argv)
{
	struct change_opts o = { 0 };
	struct rules rs = { 0 };
	struct show_ctx cur = { 0 };
	struct nlmsghdr *nlh;
	const char *shown;
	struct head h;
	size_t len;
	char *buf = NULL;
	int ret;

	if (argc < 1)
		return usage_error("policy apply: missing file; usage: ccactl policy apply FILE|- [dry_run]");
	shown = strcmp(argv[0], "-") ? argv[0] : "<stdin>";
	ret = parse_opts(argc - 1, argv + 1, "policy apply", true, &o);
	if (!ret)
		ret = read_policy_file(argv[0], shown, &rs);
	if (ret)
		goto out;

	/* Room for every rule at its largest, within what the kernel takes. */
	len = NL_SEND_BUFSZ + rs.n * (64 + RULE_PARAMS_MAX * (CCAAS_PARAM_NAME_MAX + 16));
	if (len > APPLY_MSG_MAX)
		len = APPLY_MSG_MAX;
	buf = malloc(len);
	if (!buf) {
		ret = usage_error("policy apply: out of memory");
		goto out;
	}
	ret = apply_msg(buf, len, rs.v, rs.n, &o, &nlh);
	if (!ret)
		ret = change_request(nlh, &h);
	if (ret == CCACTL_EXIT_KERNEL && rs.n)
		apply_blame(shown, &rs, buf, len);
	if (ret)
		goto out;

	if (!o.dry_run) {
		ret = change_report(&h);
		goto out;
	}
	/* Validated by the kernel: show what would change. */
	ret = policy_fetch(false, 0, false, &cur);
	if (!ret)
		apply_diff(&cur.rules, &rs, &h);
out:
	free(cur.rules.v);
	free(rs.v);
	free(buf);
	return ret;
}

static const struct ccactl_cmd policy_cmds[] = {
	{ "set", "MATCH ACTION [no_migrate] [force]",
	  "add or replace a rule; MATCH := default | [cgroup PATH] [port N[-M]] [locality LOC [region N] [dc N] [local PREFIX]]",
	  policy_set },
	{ "del", "MATCH [no_migrate] [force]",
	  "delete a rule; ACTION := cca NAME [param K=V]... [min_rto TIME] [init_cwnd N] [tso_segs N]",
	  policy_del },
	{ "show", "[generation N]",
	  "the rules of the current (or a kept) generation", policy_show },
	{ "history", "",
	  "the kept generations, oldest first", policy_history },
	{ "rollback", "GEN [no_migrate] [force]",
	  "commit generation GEN again as a new generation", policy_rollback },
	{ "apply", "FILE|- [dry_run] [no_migrate] [force]",
	  "replace every rule with those of FILE", policy_apply },
	{ NULL, NULL, NULL, NULL },
};

const struct ccactl_object policy_object = {
	.name = "policy",
	.summary = "rules: scope to CCA, parameters and knobs; generations",
	.cmds = policy_cmds,
	.default_cmd = "show",
};
