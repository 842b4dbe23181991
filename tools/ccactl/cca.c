// SPDX-License-Identifier: GPL-2.0-only
/*
 * ccactl: the "cca" object — congestion control algorithms registered
 * with ccaas.
 *   ccactl cca list          every registered CCA (CCAAS_CMD_CCA_GET dump)
 *   ccactl cca show NAME     one CCA (CCAAS_CMD_CCA_GET do)
 *   ccactl cca drain NAME [to NAME] [force]
 *                            move its sockets away (CCAAS_CMD_CCA_DRAIN)
 */
#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>
#include <linux/ccaas.h>
#include <linux/genetlink.h>

#include "ccactl.h"
#include "family.h"
#include "json.h"
#include "migrate.h"
#include "objects.h"
#include "table.h"

#define CCA_MODULE_MAX	64	/* > the kernel's MODULE_NAME_LEN */

#define CCA_SCHEMA_MAX	16	/* parameters / takeover entries kept */
#define CCA_UNIT_MAX	32

struct cca_param {
	char name[CCAAS_PARAM_NAME_MAX];
	char unit[CCA_UNIT_MAX];
	uint32_t min, max, def;
};

struct cca_takeover {
	char name[CCAAS_CCA_NAME_MAX];
	uint32_t min_version;
};

struct cca_info {
	char name[CCAAS_CCA_NAME_MAX];
	char module[CCA_MODULE_MAX];
	char fallback[CCAAS_CCA_NAME_MAX];
	uint32_t version, features, flags, ext_size;
	bool has_version, has_features, has_module, has_flags, has_ext_size;
	unsigned int n_params, n_takeover;
	struct cca_param params[CCA_SCHEMA_MAX];
	struct cca_takeover takeover[CCA_SCHEMA_MAX];
};

/* One CCAAS_A_CCA_PARAM nest. */
static int cca_parse_param(const struct nlattr *nest, struct cca_param *p)
{
	const struct nlattr *a;
	int err = 0;

	memset(p, 0, sizeof(*p));
	mnl_attr_for_each_nested(a, nest) {
		switch (mnl_attr_get_type(a)) {
		case CCAAS_A_SPEC_NAME:
			err = nl_attr_str(a, p->name, sizeof(p->name));
			break;
		case CCAAS_A_SPEC_MINIMUM:
			err = nl_attr_u32(a, &p->min);
			break;
		case CCAAS_A_SPEC_MAXIMUM:
			err = nl_attr_u32(a, &p->max);
			break;
		case CCAAS_A_SPEC_DEFAULT:
			err = nl_attr_u32(a, &p->def);
			break;
		case CCAAS_A_SPEC_UNIT:
			err = nl_attr_str(a, p->unit, sizeof(p->unit));
			break;
		}
		if (err)
			return err;
	}
	return p->name[0] ? 0 : -EBADMSG;
}

/* One CCAAS_A_CCA_TAKEOVER nest. */
static int cca_parse_takeover(const struct nlattr *nest, struct cca_takeover *t)
{
	const struct nlattr *a;
	int err = 0;

	memset(t, 0, sizeof(*t));
	mnl_attr_for_each_nested(a, nest) {
		if (mnl_attr_get_type(a) == CCAAS_A_TAKEOVER_NAME)
			err = nl_attr_str(a, t->name, sizeof(t->name));
		else if (mnl_attr_get_type(a) == CCAAS_A_TAKEOVER_MIN_VERSION)
			err = nl_attr_u32(a, &t->min_version);
		if (err)
			return err;
	}
	return t->name[0] ? 0 : -EBADMSG;
}

struct bit_name {
	uint32_t bit;
	const char *name;
};

/* enum ccaas_cca_feature, in JSON and text. */
static const struct bit_name cca_features[] = {
	{ CCAAS_CCA_F_NEEDS_ECN,	"needs_ecn" },
	{ CCAAS_CCA_F_ECN_OK,		"ecn_ok" },
	{ CCAAS_CCA_F_NONECN_OK,	"nonecn_ok" },
	{ CCAAS_CCA_F_TRANSITIONAL,	"transitional" },
	{ CCAAS_CCA_F_CONG_CONTROL,	"cong_control" },
	{ 0, NULL },
};

/* TCP_CONG_* from the kernel's include/net/tcp.h (not part of the uapi). */
static const struct bit_name tcp_cong_flags[] = {
	{ 0x1, "non_restricted" },
	{ 0x2, "needs_ecn" },
	{ 0x4, "needs_accecn" },
	{ 0x8, "ect_1_negotiation" },
	{ 0x10, "no_fallback_rfc3168" },
	{ 0, NULL },
};

/* Name of bit @bit, or its hex value in @buf for bits we do not know. */
static const char *bit_name(const struct bit_name *names, uint32_t bit,
			    char *buf, size_t len)
{
	for (; names->name; names++)
		if (names->bit == bit)
			return names->name;
	snprintf(buf, len, "0x%x", bit);
	return buf;
}

/* "a,b,c" for the set bits of @v, or "-" for none. */
static void join_bits(const struct bit_name *names, uint32_t v, char *out,
		      size_t len)
{
	char hex[16];
	size_t used = 0;
	uint32_t bit;

	snprintf(out, len, "-");
	for (bit = 1; bit; bit <<= 1) {
		if (!(v & bit))
			continue;
		if (used >= len)
			break;
		used += snprintf(out + used, len - used, "%s%s",
				 used ? "," : "", bit_name(names, bit, hex, sizeof(hex)));
	}
}

static void version_string(uint32_t v, char *buf, size_t len)
{
	snprintf(buf, len, "%u.%u.%u", CCAAS_VERSION_MAJOR(v),
		 CCAAS_VERSION_MINOR(v), CCAAS_VERSION_PATCH(v));
}

/* One CCAAS_CMD_CCA_GET reply message into @ci.  0 or -EBADMSG. */
static int cca_parse(const struct nlmsghdr *nlh, struct cca_info *ci)
{
	const struct nlattr *a;

	memset(ci, 0, sizeof(*ci));
	mnl_attr_for_each(a, nlh, sizeof(struct genlmsghdr)) {
		switch (mnl_attr_get_type(a)) {
		case CCAAS_A_CCA_NAME:
			if (mnl_attr_validate(a, MNL_TYPE_NUL_STRING) < 0 ||
			    strlen(mnl_attr_get_str(a)) >= sizeof(ci->name))
				return -EBADMSG;
			snprintf(ci->name, sizeof(ci->name), "%s",
				 mnl_attr_get_str(a));
			break;
		case CCAAS_A_CCA_VERSION:
			if (mnl_attr_validate(a, MNL_TYPE_U32) < 0)
				return -EBADMSG;
			ci->version = mnl_attr_get_u32(a);
			ci->has_version = true;
			break;
		case CCAAS_A_CCA_FEATURES:
			if (mnl_attr_validate(a, MNL_TYPE_U32) < 0)
				return -EBADMSG;
			ci->features = mnl_attr_get_u32(a);
			ci->has_features = true;
			break;
		case CCAAS_A_CCA_MODULE:
			if (mnl_attr_validate(a, MNL_TYPE_NUL_STRING) < 0)
				return -EBADMSG;
			snprintf(ci->module, sizeof(ci->module), "%s",
				 mnl_attr_get_str(a));
			ci->has_module = true;
			break;
		case CCAAS_A_CCA_FLAGS:
			if (mnl_attr_validate(a, MNL_TYPE_U32) < 0)
				return -EBADMSG;
			ci->flags = mnl_attr_get_u32(a);
			ci->has_flags = true;
			break;
		case CCAAS_A_CCA_EXT_SIZE:
			if (nl_attr_u32(a, &ci->ext_size))
				return -EBADMSG;
			ci->has_ext_size = true;
			break;
		case CCAAS_A_CCA_FALLBACK:
			if (nl_attr_str(a, ci->fallback, sizeof(ci->fallback)))
				return -EBADMSG;
			break;
		case CCAAS_A_CCA_PARAM:
			if (ci->n_params == CCA_SCHEMA_MAX)
				break;
			if (cca_parse_param(a, &ci->params[ci->n_params++]))
				return -EBADMSG;
			break;
		case CCAAS_A_CCA_TAKEOVER:
			if (ci->n_takeover == CCA_SCHEMA_MAX)
				break;
			if (cca_parse_takeover(a, &ci->takeover[ci->n_takeover++]))
				return -EBADMSG;
			break;
		default:	/* newer kernel: ignore what we do not know */
			break;
		}
	}
	return ci->name[0] ? 0 : -EBADMSG;
}

/*
 * One CCA as a JSON object, or as "key value" lines in text mode.
 * Attributes the kernel did not send are left out of JSON, "-" in text.
 */
/* `cca show` only: extension size, fallback, parameter schema, takeover. */
static void cca_print_detail(const struct cca_info *ci)
{
	char ver[32];
	unsigned int i;

	if (ci->has_ext_size)
		print_uint(PRINT_ANY, "ext_size", "ext_size  %llu bytes per socket\n",
			   ci->ext_size);
	print_string(PRINT_ANY, "fallback", "fallback  %s\n",
		     ci->fallback[0] ? ci->fallback : "-");

	if (!print_is_json())
		print_text(ci->n_params ? "params    NAME MIN MAX DEFAULT UNIT\n" :
			   "params    -\n");
	open_json_array("params");
	for (i = 0; i < ci->n_params; i++) {
		const struct cca_param *p = &ci->params[i];

		open_json_object(NULL);
		print_string(PRINT_ANY, "name", "          %s", p->name);
		print_uint(PRINT_ANY, "min", " %llu", p->min);
		print_uint(PRINT_ANY, "max", " %llu", p->max);
		print_uint(PRINT_ANY, "default", " %llu", p->def);
		print_string(PRINT_ANY, "unit", " %s\n", p->unit[0] ? p->unit : "-");
		close_json_object();
	}
	close_json_array();

	if (!print_is_json())
		print_text("takeover  %s", ci->n_takeover ? "" : "any\n");
	open_json_array("takeover");
	for (i = 0; i < ci->n_takeover; i++) {
		const struct cca_takeover *t = &ci->takeover[i];

		version_string(t->min_version, ver, sizeof(ver));
		open_json_object(NULL);
		print_string(PRINT_ANY, "name", "%s", t->name);
		print_string(PRINT_ANY, "min_version", " >= %s", ver);
		print_text(i + 1 < ci->n_takeover ? ", " : "\n");
		close_json_object();
	}
	close_json_array();
}

static void cca_print(const struct cca_info *ci, bool detail)
{
	char buf[160], hex[16];
	uint32_t bit;

	open_json_object(NULL);
	print_string(PRINT_ANY, "name", "name      %s\n", ci->name);

	if (ci->has_version) {
		version_string(ci->version, buf, sizeof(buf));
		print_string(PRINT_ANY, "version", "version   %s\n", buf);
	} else {
		print_text("version   -\n");
	}

	if (print_is_json()) {
		if (ci->has_features) {
			open_json_array("features");
			for (bit = 1; bit; bit <<= 1)
				if (ci->features & bit)
					print_string(PRINT_JSON, NULL, "%s",
						     bit_name(cca_features, bit,
							      hex, sizeof(hex)));
			close_json_array();
		}
	} else {
		join_bits(cca_features, ci->features, buf, sizeof(buf));
		print_text("features  %s\n", ci->has_features ? buf : "-");
	}

	print_string(PRINT_ANY, "module", "module    %s\n",
		     ci->has_module ? ci->module : "-");

	if (ci->has_flags) {
		print_uint(PRINT_ANY, "flags", "flags     0x%llx", ci->flags);
		join_bits(tcp_cong_flags, ci->flags, buf, sizeof(buf));
		if (ci->flags)
			print_text(" (%s)", buf);
		print_text("\n");
	} else {
		print_text("flags     -\n");
	}
	if (detail)
		cca_print_detail(ci);
	close_json_object();
}

/* ---- cca list ---- */

struct cca_vec {
	struct cca_info *v;
	size_t n, cap;
};

static int cca_collect_cb(const struct nlmsghdr *nlh, void *data)
{
	struct cca_vec *vec = data;

	if (vec->n == vec->cap) {
		size_t cap = vec->cap ? 2 * vec->cap : 16;
		struct cca_info *v = realloc(vec->v, cap * sizeof(*v));

		if (!v)
			return -ENOMEM;
		vec->v = v;
		vec->cap = cap;
	}
	if (cca_parse(nlh, &vec->v[vec->n]) < 0)
		return -EBADMSG;
	vec->n++;
	return 0;
}

static int cca_name_cmp(const void *a, const void *b)
{
	return strcmp(((const struct cca_info *)a)->name,
		      ((const struct cca_info *)b)->name);
}

static int cca_list_text(const struct cca_vec *vec)
{
	static const char *const headers[] = {
		"NAME", "VERSION", "MODULE", "FLAGS", "FEATURES",
	};
	struct table *t;
	size_t i;

	if (!vec->n)
		return CCACTL_EXIT_OK;
	t = table_new(5, headers);
	if (!t)
		goto nomem;
	for (i = 0; i < vec->n; i++) {
		const struct cca_info *ci = &vec->v[i];
		char version[16], flags[16], features[160];
		const char *cells[5] = { ci->name, NULL, NULL, NULL, NULL };

		if (ci->has_version) {
			version_string(ci->version, version, sizeof(version));
			cells[1] = version;
		}
		if (ci->has_module)
			cells[2] = ci->module;
		if (ci->has_flags) {
			snprintf(flags, sizeof(flags), "0x%x", ci->flags);
			cells[3] = flags;
		}
		if (ci->has_features) {
			join_bits(cca_features, ci->features, features,
				  sizeof(features));
			cells[4] = features;
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

static int cca_list(int argc, char **argv)
{
	char buf[NL_SEND_BUFSZ];
	struct cca_vec vec = { 0 };
	struct nlmsghdr *nlh;
	size_t i;
	int ret;

	if (argc > 0)
		return usage_error("cca list: unexpected argument \"%s\"", argv[0]);

	ret = ccaas_msg(buf, CCAAS_CMD_CCA_GET, NLM_F_DUMP, &nlh);
	if (ret)
		return ret;
	ret = ccaas_request(nlh, cca_collect_cb, &vec);
	if (ret)
		goto out;

	qsort(vec.v, vec.n, sizeof(*vec.v), cca_name_cmp);
	print_begin(stdout, ccactl_opts.json, ccactl_opts.pretty);
	if (print_is_json()) {
		open_json_array(NULL);
		for (i = 0; i < vec.n; i++)
			cca_print(&vec.v[i], false);
		close_json_array();
	} else {
		ret = cca_list_text(&vec);
	}
	print_end();
out:
	free(vec.v);
	return ret;
}

/* ---- cca show NAME ---- */

struct cca_one {
	struct cca_info info;
	unsigned int count;
};

static int cca_one_cb(const struct nlmsghdr *nlh, void *data)
{
	struct cca_one *one = data;

	if (one->count++)
		return -EBADMSG;	/* a single-CCA request, several answers */
	return cca_parse(nlh, &one->info);
}

static int cca_show(int argc, char **argv)
{
	char buf[NL_SEND_BUFSZ];
	struct cca_one one = { .count = 0 };
	struct nlmsghdr *nlh;
	int ret;

	if (argc < 1)
		return usage_error("cca show: missing CCA name; usage: ccactl cca show NAME");
	if (argc > 1)
		return usage_error("cca show: unexpected argument \"%s\"", argv[1]);
	if (!argv[0][0] || strlen(argv[0]) >= CCAAS_CCA_NAME_MAX)
		return usage_error("cca show: invalid CCA name \"%s\" (1 to %d characters)",
				   argv[0], CCAAS_CCA_NAME_MAX - 1);

	ret = ccaas_msg(buf, CCAAS_CMD_CCA_GET, 0, &nlh);
	if (ret)
		return ret;
	mnl_attr_put_strz(nlh, CCAAS_A_CCA_NAME, argv[0]);
	ret = ccaas_request(nlh, cca_one_cb, &one);
	if (ret)
		return ret;
	if (!one.count) {
		fputs("Error: the kernel answered without a CCA\n", stderr);
		return CCACTL_EXIT_KERNEL;
	}

	print_begin(stdout, ccactl_opts.json, ccactl_opts.pretty);
	cca_print(&one.info, true);
	print_end();
	return CCACTL_EXIT_OK;
}

/* ---- cca drain NAME [to NAME] [force] ---- */

static int cca_drain(int argc, char **argv)
{
	static const char *const words[] = { "to", "force" };
	const char *from, *to = NULL;
	char buf[NL_SEND_BUFSZ];
	struct nlmsghdr *nlh;
	bool force = false;
	int i, w, ret;

	if (argc < 1)
		return usage_error("cca drain: missing CCA name; usage: ccactl cca drain NAME [to NAME] [force]");
	from = argv[0];
	for (i = 1; i < argc; i++) {
		w = find_word(argv[i], words, ARRAY_SIZE(words), "cca drain argument");
		if (w < 0) {
			fputs("Try \"ccactl cca help\".\n", stderr);
			return CCACTL_EXIT_USAGE;
		}
		if (w == 0) {
			if (to)
				return usage_error("cca drain: \"to\" given twice");
			if (++i == argc)
				return usage_error("cca drain: \"to\" needs a CCA name");
			to = argv[i];
		} else {
			if (force)
				return usage_error("cca drain: \"force\" given twice");
			force = true;
		}
	}
	for (i = 0; i < 2; i++) {
		const char *name = i ? to : from;

		if (name && (!name[0] || strlen(name) >= CCAAS_CCA_NAME_MAX))
			return usage_error("cca drain: invalid CCA name \"%s\" (1 to %d characters)",
					   name, CCAAS_CCA_NAME_MAX - 1);
	}

	cca_preload(from);
	if (to)
		cca_preload(to);
	ret = ccaas_msg(buf, CCAAS_CMD_CCA_DRAIN, 0, &nlh);
	if (ret)
		return ret;
	mnl_attr_put_strz(nlh, CCAAS_A_MIGRATE_CCA, from);
	if (to)
		mnl_attr_put_strz(nlh, CCAAS_A_MIGRATE_TO, to);
	if (force)
		mnl_attr_put(nlh, CCAAS_A_MIGRATE_FORCE, 0, NULL);
	return migrate_request(nlh);
}

/*
 * Have the kernel know CCA @name before a request names it. The core loads
 * no module from inside a netlink request (it would wait for modprobe with
 * the genl lock held), so ccactl asks as an application does:
 * setsockopt(TCP_CONGESTION) on a socket of its own, in the namespace it
 * works in, loads tcp_<name> if the caller has CAP_NET_ADMIN. Errors are
 * left to the kernel's answer to the request.
 */
void cca_preload(const char *name)
{
	int fd;

	fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, IPPROTO_TCP);
	if (fd < 0)
		return;
	(void)setsockopt(fd, IPPROTO_TCP, TCP_CONGESTION, name, strlen(name));
	close(fd);
}

static const struct ccactl_cmd cca_cmds[] = {
	{ "list", "",     "list the registered CCAs",		cca_list },
	{ "show", "NAME", "show one registered CCA",		cca_show },
	{ "drain", "NAME [to NAME] [force]",
	  "move every socket off a CCA",			cca_drain },
	{ NULL, NULL, NULL, NULL },
};

const struct ccactl_object cca_object = {
	.name = "cca",
	.summary = "registered congestion control algorithms",
	.cmds = cca_cmds,
	.default_cmd = "list",
};
