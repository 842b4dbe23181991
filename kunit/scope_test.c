// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit tests of the scope table (kmod/core/scope.c): longest-prefix match
 * edge cases, copy-on-write changes, the size limit, a load's dry run, and
 * a cross-check of the flattened lookup against a brute-force one on random
 * tables.
 */
#include <kunit/test.h>
#include <linux/inet.h>
#include <linux/ktime.h>
#include <linux/mm.h>
#include <linux/prandom.h>
#include <linux/slab.h>
#include <linux/string.h>

#include "../kmod/core/core.h"

/* --- fixture: a namespace state of our own --------------------------- */

struct scope_fixture {
	struct ccaas_net cn;
	unsigned int saved_max;
};

static int scope_test_init(struct kunit *test)
{
	struct scope_fixture *f;

	f = kunit_kzalloc(test, sizeof(*f), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, f);
	mutex_init(&f->cn.lock);
	KUNIT_ASSERT_EQ(test, ccaas_scope_net_init(&f->cn), 0);
	f->saved_max = ccaas_scope_max_entries;
	test->priv = f;
	return 0;
}

static void scope_test_exit(struct kunit *test)
{
	struct scope_fixture *f = test->priv;

	ccaas_scope_max_entries = f->saved_max;
	ccaas_scope_net_exit(&f->cn);
	/* the table is freed after a grace period: wait for it */
	rcu_barrier();
}

static struct ccaas_net *fx_net(struct kunit *test)
{
	return &((struct scope_fixture *)test->priv)->cn;
}

/* --- helpers ------------------------------------------------------------ */

/* "a.b.c.d/len", "x::/len" or a bare address into an entry. */
static struct ccaas_scope_entry pfx(struct kunit *test, const char *s,
				    u8 locality, u32 region, u32 dc)
{
	struct ccaas_scope_entry e = {
		.locality = locality, .region = region, .dc = dc,
	};
	const char *slash = strchr(s, '/');
	int len = slash ? slash - s : strlen(s);
	unsigned int plen;
	struct in6_addr a6;
	__be32 a4;

	if (strnchr(s, len, ':')) {
		KUNIT_ASSERT_EQ_MSG(test, in6_pton(s, len, (u8 *)&a6, -1, NULL), 1,
				    "bad address %s", s);
		ccaas_scope_key6(&e.key, &a6);
		e.fam = CCAAS_SCOPE_V6;
		plen = 128;
	} else {
		KUNIT_ASSERT_EQ_MSG(test, in4_pton(s, len, (u8 *)&a4, -1, NULL), 1,
				    "bad address %s", s);
		ccaas_scope_key4(&e.key, a4);
		e.fam = CCAAS_SCOPE_V4;
		plen = 32;
	}
	if (slash)
		KUNIT_ASSERT_EQ(test, kstrtouint(slash + 1, 10, &plen), 0);
	e.prefixlen = plen;
	return e;
}

static int add(struct kunit *test, const char *s, u8 locality, u32 region,
	       u32 dc)
{
	struct ccaas_scope_entry e = pfx(test, s, locality, region, dc);

	return ccaas_scope_add(fx_net(test), &e, NULL);
}

static int del(struct kunit *test, const char *s)
{
	struct ccaas_scope_entry e = pfx(test, s, 0, 0, 0);

	return ccaas_scope_del(fx_net(test), &e, NULL);
}

static struct ccaas_scope_result look(struct kunit *test, const char *s)
{
	struct ccaas_scope_result res;
	struct in6_addr a6;
	__be32 a4;

	memset(&res, 0xa5, sizeof(res));
	if (strchr(s, ':')) {
		KUNIT_EXPECT_EQ(test, in6_pton(s, -1, (u8 *)&a6, -1, NULL), 1);
		ccaas_scope_lookup6(fx_net(test), &a6, &res);
	} else {
		KUNIT_EXPECT_EQ(test, in4_pton(s, -1, (u8 *)&a4, -1, NULL), 1);
		ccaas_scope_lookup4(fx_net(test), a4, &res);
	}
	return res;
}

/* @addr resolves to @loc through a prefix of length @plen, in @reg. */
static void expect_scope(struct kunit *test, const char *addr, u8 loc,
			 u8 plen, u32 reg)
{
	struct ccaas_scope_result r = look(test, addr);

	KUNIT_EXPECT_EQ_MSG(test, r.locality, loc, "locality of %s", addr);
	KUNIT_EXPECT_EQ_MSG(test, r.prefixlen, plen, "prefix of %s", addr);
	KUNIT_EXPECT_EQ_MSG(test, r.region, reg, "region of %s", addr);
}

static void expect_unknown(struct kunit *test, const char *addr)
{
	expect_scope(test, addr, CCAAS_LOCALITY_UNKNOWN, 0, 0);
}

static u32 table_count(struct kunit *test)
{
	u32 n;

	rcu_read_lock();
	n = ccaas_scope_table_count(ccaas_scope_table_get(fx_net(test)));
	rcu_read_unlock();
	return n;
}

static u32 table_gen(struct kunit *test)
{
	u32 gen;

	rcu_read_lock();
	gen = ccaas_scope_table_gen(ccaas_scope_table_get(fx_net(test)));
	rcu_read_unlock();
	return gen;
}

/* --- LPM edge cases -------------------------------------------------------- */

static void scope_empty_is_unknown(struct kunit *test)
{
	expect_unknown(test, "10.0.0.1");
	expect_unknown(test, "0.0.0.0");
	expect_unknown(test, "255.255.255.255");
	expect_unknown(test, "2001:db8::1");
	expect_unknown(test, "::ffff:10.0.0.1");
	KUNIT_EXPECT_EQ(test, table_count(test), 0U);
}

static void scope_default_route(struct kunit *test)
{
	KUNIT_ASSERT_EQ(test, add(test, "0.0.0.0/0", CCAAS_LOCALITY_XREGION, 9, 0), 0);
	expect_scope(test, "0.0.0.0", CCAAS_LOCALITY_XREGION, 0, 9);
	expect_scope(test, "192.0.2.1", CCAAS_LOCALITY_XREGION, 0, 9);
	expect_scope(test, "255.255.255.255", CCAAS_LOCALITY_XREGION, 0, 9);
	/* IPv6 is a table of its own */
	expect_unknown(test, "2001:db8::1");

	KUNIT_ASSERT_EQ(test, add(test, "::/0", CCAAS_LOCALITY_REGION, 7, 0), 0);
	expect_scope(test, "::", CCAAS_LOCALITY_REGION, 0, 7);
	expect_scope(test, "ffff:ffff:ffff:ffff:ffff:ffff:ffff:ffff",
		     CCAAS_LOCALITY_REGION, 0, 7);
	expect_scope(test, "192.0.2.1", CCAAS_LOCALITY_XREGION, 0, 9);
}

static void scope_host_routes(struct kunit *test)
{
	KUNIT_ASSERT_EQ(test, add(test, "10.0.0.1/32", CCAAS_LOCALITY_RACK, 1, 2), 0);
	KUNIT_ASSERT_EQ(test, add(test, "255.255.255.255", CCAAS_LOCALITY_DC, 3, 0), 0);
	KUNIT_ASSERT_EQ(test, add(test, "0.0.0.0/32", CCAAS_LOCALITY_REGION, 4, 0), 0);
	KUNIT_ASSERT_EQ(test, add(test, "2001:db8::1/128", CCAAS_LOCALITY_RACK, 5, 0), 0);
	KUNIT_ASSERT_EQ(test, add(test, "::/128", CCAAS_LOCALITY_DC, 6, 0), 0);
	KUNIT_ASSERT_EQ(test, add(test, "ffff:ffff:ffff:ffff:ffff:ffff:ffff:ffff",
				  CCAAS_LOCALITY_REGION, 8, 0), 0);

	expect_scope(test, "10.0.0.1", CCAAS_LOCALITY_RACK, 32, 1);
	expect_unknown(test, "10.0.0.0");
	expect_unknown(test, "10.0.0.2");
	expect_scope(test, "255.255.255.255", CCAAS_LOCALITY_DC, 32, 3);
	expect_unknown(test, "255.255.255.254");
	expect_scope(test, "0.0.0.0", CCAAS_LOCALITY_REGION, 32, 4);
	expect_unknown(test, "0.0.0.1");

	expect_scope(test, "2001:db8::1", CCAAS_LOCALITY_RACK, 128, 5);
	expect_unknown(test, "2001:db8::");
	expect_unknown(test, "2001:db8::2");
	expect_scope(test, "::", CCAAS_LOCALITY_DC, 128, 6);
	expect_unknown(test, "::1");
	expect_scope(test, "ffff:ffff:ffff:ffff:ffff:ffff:ffff:ffff",
		     CCAAS_LOCALITY_REGION, 128, 8);
	expect_unknown(test, "ffff:ffff:ffff:ffff:ffff:ffff:ffff:fffe");
}

static void scope_longest_prefix_wins(struct kunit *test)
{
	KUNIT_ASSERT_EQ(test, add(test, "10.0.0.0/8", CCAAS_LOCALITY_REGION, 1, 0), 0);
	KUNIT_ASSERT_EQ(test, add(test, "10.1.2.0/24", CCAAS_LOCALITY_RACK, 3, 0), 0);
	KUNIT_ASSERT_EQ(test, add(test, "10.1.0.0/16", CCAAS_LOCALITY_DC, 2, 0), 0);
	KUNIT_ASSERT_EQ(test, add(test, "10.1.2.128/25", CCAAS_LOCALITY_XREGION, 4, 0), 0);

	expect_scope(test, "10.0.0.0", CCAAS_LOCALITY_REGION, 8, 1);
	expect_scope(test, "10.0.255.255", CCAAS_LOCALITY_REGION, 8, 1);
	expect_scope(test, "10.1.0.0", CCAAS_LOCALITY_DC, 16, 2);
	expect_scope(test, "10.1.2.0", CCAAS_LOCALITY_RACK, 24, 3);
	expect_scope(test, "10.1.2.127", CCAAS_LOCALITY_RACK, 24, 3);
	expect_scope(test, "10.1.2.128", CCAAS_LOCALITY_XREGION, 25, 4);
	expect_scope(test, "10.1.2.255", CCAAS_LOCALITY_XREGION, 25, 4);
	expect_scope(test, "10.1.3.0", CCAAS_LOCALITY_DC, 16, 2);
	expect_scope(test, "10.1.255.255", CCAAS_LOCALITY_DC, 16, 2);
	expect_scope(test, "10.2.0.0", CCAAS_LOCALITY_REGION, 8, 1);
	expect_scope(test, "10.255.255.255", CCAAS_LOCALITY_REGION, 8, 1);
	expect_unknown(test, "9.255.255.255");
	expect_unknown(test, "11.0.0.0");

	/* The same in IPv6, with subnets sharing the parent's first address. */
	KUNIT_ASSERT_EQ(test, add(test, "fd00::/8", CCAAS_LOCALITY_REGION, 1, 0), 0);
	KUNIT_ASSERT_EQ(test, add(test, "fd00::/16", CCAAS_LOCALITY_DC, 2, 0), 0);
	KUNIT_ASSERT_EQ(test, add(test, "fd00::/64", CCAAS_LOCALITY_RACK, 3, 0), 0);
	expect_scope(test, "fd00::1", CCAAS_LOCALITY_RACK, 64, 3);
	expect_scope(test, "fd00:0:0:0:ffff:ffff:ffff:ffff", CCAAS_LOCALITY_RACK, 64, 3);
	expect_scope(test, "fd00:0:0:1::", CCAAS_LOCALITY_DC, 16, 2);
	expect_scope(test, "fd01::", CCAAS_LOCALITY_REGION, 8, 1);
	expect_scope(test, "fdff:ffff:ffff:ffff:ffff:ffff:ffff:ffff",
		     CCAAS_LOCALITY_REGION, 8, 1);
	expect_unknown(test, "fe00::");
	expect_unknown(test, "fcff:ffff:ffff:ffff:ffff:ffff:ffff:ffff");
	KUNIT_EXPECT_EQ(test, table_count(test), 7U);
}

static void scope_delete_covering_keeps_specific(struct kunit *test)
{
	KUNIT_ASSERT_EQ(test, add(test, "10.0.0.0/8", CCAAS_LOCALITY_REGION, 1, 0), 0);
	KUNIT_ASSERT_EQ(test, add(test, "10.1.0.0/16", CCAAS_LOCALITY_DC, 2, 0), 0);
	KUNIT_ASSERT_EQ(test, add(test, "2001:db8::/32", CCAAS_LOCALITY_REGION, 1, 0), 0);
	KUNIT_ASSERT_EQ(test, add(test, "2001:db8:1::/48", CCAAS_LOCALITY_RACK, 2, 0), 0);

	KUNIT_ASSERT_EQ(test, del(test, "10.0.0.0/8"), 0);
	expect_scope(test, "10.1.2.3", CCAAS_LOCALITY_DC, 16, 2);
	expect_unknown(test, "10.2.0.0");
	KUNIT_ASSERT_EQ(test, del(test, "2001:db8::/32"), 0);
	expect_scope(test, "2001:db8:1::5", CCAAS_LOCALITY_RACK, 48, 2);
	expect_unknown(test, "2001:db8:2::");

	/* Deleting what is not there changes nothing. */
	KUNIT_EXPECT_EQ(test, del(test, "10.0.0.0/8"), -ENOENT);
	KUNIT_EXPECT_EQ(test, del(test, "10.1.0.0/17"), -ENOENT);
	KUNIT_EXPECT_EQ(test, table_count(test), 2U);

	KUNIT_ASSERT_EQ(test, del(test, "10.1.0.0/16"), 0);
	KUNIT_ASSERT_EQ(test, del(test, "2001:db8:1::/48"), 0);
	KUNIT_EXPECT_EQ(test, table_count(test), 0U);
	expect_unknown(test, "10.1.2.3");
}

static void scope_v4_mapped(struct kunit *test)
{
	KUNIT_ASSERT_EQ(test, add(test, "10.0.0.0/8", CCAAS_LOCALITY_DC, 1, 2), 0);
	KUNIT_ASSERT_EQ(test, add(test, "::/0", CCAAS_LOCALITY_XREGION, 0, 0), 0);

	/* ::ffff:a.b.c.d is looked up in the IPv4 table... */
	expect_scope(test, "::ffff:10.9.8.7", CCAAS_LOCALITY_DC, 8, 1);
	/* ...and so never reaches an IPv6 prefix. */
	expect_unknown(test, "::ffff:192.0.2.1");
	/* Other embeddings are plain IPv6 addresses. */
	expect_scope(test, "::10.9.8.7", CCAAS_LOCALITY_XREGION, 0, 0);
	expect_scope(test, "64:ff9b::10.9.8.7", CCAAS_LOCALITY_XREGION, 0, 0);
}

static void scope_families_apart(struct kunit *test)
{
	/* 10.0.0.0 and ::a00:0 have the same bits, in different tables. */
	KUNIT_ASSERT_EQ(test, add(test, "10.0.0.0/8", CCAAS_LOCALITY_RACK, 1, 0), 0);
	expect_unknown(test, "::a00:1");
	expect_unknown(test, "a00::1");
	KUNIT_ASSERT_EQ(test, add(test, "a00::/8", CCAAS_LOCALITY_DC, 2, 0), 0);
	expect_scope(test, "a00::1", CCAAS_LOCALITY_DC, 8, 2);
	expect_scope(test, "10.0.0.1", CCAAS_LOCALITY_RACK, 8, 1);
	KUNIT_ASSERT_EQ(test, del(test, "10.0.0.0/8"), 0);
	expect_unknown(test, "10.0.0.1");
	expect_scope(test, "a00::1", CCAAS_LOCALITY_DC, 8, 2);
	/* Same address and length in both families: two entries. */
	KUNIT_ASSERT_EQ(test, add(test, "0.0.0.0/0", CCAAS_LOCALITY_RACK, 3, 0), 0);
	KUNIT_ASSERT_EQ(test, add(test, "::/0", CCAAS_LOCALITY_REGION, 4, 0), 0);
	KUNIT_EXPECT_EQ(test, table_count(test), 3U);
}

static void scope_replace_entry(struct kunit *test)
{
	u32 gen;

	KUNIT_ASSERT_EQ(test, add(test, "10.1.0.0/16", CCAAS_LOCALITY_DC, 1, 2), 0);
	KUNIT_ASSERT_EQ(test, add(test, "10.1.0.0/24", CCAAS_LOCALITY_RACK, 1, 2), 0);
	gen = table_gen(test);
	KUNIT_ASSERT_EQ(test, add(test, "10.1.0.0/16", CCAAS_LOCALITY_REGION, 5, 6), 0);
	KUNIT_EXPECT_EQ(test, table_count(test), 2U);
	KUNIT_EXPECT_NE(test, table_gen(test), gen);
	expect_scope(test, "10.1.1.1", CCAAS_LOCALITY_REGION, 16, 5);
	KUNIT_EXPECT_EQ(test, look(test, "10.1.1.1").dc, 6U);
	expect_scope(test, "10.1.0.1", CCAAS_LOCALITY_RACK, 24, 1);
}

static void scope_invalid_refused(struct kunit *test)
{
	u32 gen = table_gen(test);

	/* host bits beyond the prefix */
	KUNIT_EXPECT_EQ(test, add(test, "10.0.0.1/8", CCAAS_LOCALITY_DC, 0, 0), -EINVAL);
	KUNIT_EXPECT_EQ(test, add(test, "2001:db8::1/64", CCAAS_LOCALITY_DC, 0, 0), -EINVAL);
	/* prefix longer than the address */
	KUNIT_EXPECT_EQ(test, add(test, "10.0.0.0/33", CCAAS_LOCALITY_DC, 0, 0), -EINVAL);
	KUNIT_EXPECT_EQ(test, add(test, "::/129", CCAAS_LOCALITY_DC, 0, 0), -EINVAL);
	/* unknown locality */
	KUNIT_EXPECT_EQ(test, add(test, "10.0.0.0/8", CCAAS_LOCALITY_UNKNOWN, 0, 0), -EINVAL);
	KUNIT_EXPECT_EQ(test, add(test, "10.0.0.0/8", CCAAS_LOCALITY_XREGION + 1, 0, 0),
			-EINVAL);
	KUNIT_EXPECT_EQ(test, table_gen(test), gen);
	KUNIT_EXPECT_EQ(test, table_count(test), 0U);
}

static void scope_size_limit(struct kunit *test)
{
	struct ccaas_scope_entry v[3];
	u32 gen;

	ccaas_scope_max_entries = 2;
	KUNIT_ASSERT_EQ(test, add(test, "10.0.0.0/8", CCAAS_LOCALITY_DC, 1, 0), 0);
	KUNIT_ASSERT_EQ(test, add(test, "fd00::/8", CCAAS_LOCALITY_DC, 1, 0), 0);
	gen = table_gen(test);

	KUNIT_EXPECT_EQ(test, add(test, "11.0.0.0/8", CCAAS_LOCALITY_DC, 1, 0), -ENOSPC);
	KUNIT_EXPECT_EQ(test, table_gen(test), gen);
	KUNIT_EXPECT_EQ(test, table_count(test), 2U);
	expect_unknown(test, "11.0.0.1");
	expect_scope(test, "10.0.0.1", CCAAS_LOCALITY_DC, 8, 1);

	/* Replacing an entry does not grow the table: allowed at the limit. */
	KUNIT_EXPECT_EQ(test, add(test, "10.0.0.0/8", CCAAS_LOCALITY_RACK, 2, 0), 0);
	expect_scope(test, "10.0.0.1", CCAAS_LOCALITY_RACK, 8, 2);
	gen = table_gen(test);

	/* A load over the limit leaves the old table in force. */
	v[0] = pfx(test, "1.0.0.0/8", CCAAS_LOCALITY_DC, 0, 0);
	v[1] = pfx(test, "2.0.0.0/8", CCAAS_LOCALITY_DC, 0, 0);
	v[2] = pfx(test, "3.0.0.0/8", CCAAS_LOCALITY_DC, 0, 0);
	KUNIT_EXPECT_EQ(test, ccaas_scope_load(fx_net(test), v, 3, NULL, NULL), -ENOSPC);
	KUNIT_EXPECT_EQ(test, table_gen(test), gen);
	expect_unknown(test, "1.0.0.1");
	expect_scope(test, "10.0.0.1", CCAAS_LOCALITY_RACK, 8, 2);

	/* At the limit it loads. */
	KUNIT_EXPECT_EQ(test, ccaas_scope_load(fx_net(test), v, 2, NULL, NULL), 0);
	expect_scope(test, "2.0.0.1", CCAAS_LOCALITY_DC, 8, 0);
	expect_unknown(test, "10.0.0.1");
	expect_unknown(test, "fd00::1");
}

static void scope_load_replaces_all(struct kunit *test)
{
	struct ccaas_scope_entry v[4];
	u32 gen, dup = 99;

	KUNIT_ASSERT_EQ(test, add(test, "10.0.0.0/8", CCAAS_LOCALITY_DC, 1, 0), 0);
	KUNIT_ASSERT_EQ(test, add(test, "fd00::/8", CCAAS_LOCALITY_DC, 1, 0), 0);

	/* out of order on purpose, families mixed */
	v[0] = pfx(test, "fd00:1::/32", CCAAS_LOCALITY_RACK, 4, 0);
	v[1] = pfx(test, "192.168.0.0/16", CCAAS_LOCALITY_RACK, 5, 0);
	v[2] = pfx(test, "192.168.0.0/24", CCAAS_LOCALITY_REGION, 6, 0);
	v[3] = pfx(test, "10.0.0.0/8", CCAAS_LOCALITY_XREGION, 7, 0);
	KUNIT_ASSERT_EQ(test, ccaas_scope_load(fx_net(test), v, 4, &dup, NULL), 0);
	KUNIT_EXPECT_EQ(test, table_count(test), 4U);
	expect_scope(test, "10.0.0.1", CCAAS_LOCALITY_XREGION, 8, 7);
	expect_scope(test, "192.168.0.9", CCAAS_LOCALITY_REGION, 24, 6);
	expect_scope(test, "192.168.1.9", CCAAS_LOCALITY_RACK, 16, 5);
	expect_scope(test, "fd00:1::1", CCAAS_LOCALITY_RACK, 32, 4);
	expect_unknown(test, "fd00:2::1");

	/* A prefix twice: refused, the position of the second one reported. */
	gen = table_gen(test);
	v[0] = pfx(test, "1.0.0.0/8", CCAAS_LOCALITY_DC, 0, 0);
	v[1] = pfx(test, "2.0.0.0/8", CCAAS_LOCALITY_DC, 0, 0);
	v[2] = pfx(test, "3.0.0.0/8", CCAAS_LOCALITY_DC, 0, 0);
	v[3] = pfx(test, "1.0.0.0/8", CCAAS_LOCALITY_RACK, 0, 0);
	v[0].pos = 0;
	v[1].pos = 1;
	v[2].pos = 2;
	v[3].pos = 3;
	KUNIT_EXPECT_EQ(test, ccaas_scope_load(fx_net(test), v, 4, &dup, NULL), -EEXIST);
	KUNIT_EXPECT_EQ(test, dup, 3U);
	KUNIT_EXPECT_EQ(test, table_gen(test), gen);
	expect_unknown(test, "1.0.0.1");
	expect_scope(test, "10.0.0.1", CCAAS_LOCALITY_XREGION, 8, 7);

	/* An invalid entry anywhere: nothing replaced. */
	v[3] = pfx(test, "4.0.0.1/8", CCAAS_LOCALITY_RACK, 0, 0);
	KUNIT_EXPECT_EQ(test, ccaas_scope_load(fx_net(test), v, 4, &dup, NULL), -EINVAL);
	KUNIT_EXPECT_EQ(test, table_gen(test), gen);

	/* An empty load empties the table, like a flush. */
	KUNIT_EXPECT_EQ(test, ccaas_scope_load(fx_net(test), v, 0, &dup, NULL), 0);
	KUNIT_EXPECT_EQ(test, table_count(test), 0U);
	expect_unknown(test, "10.0.0.1");
	KUNIT_ASSERT_EQ(test, add(test, "10.0.0.0/8", CCAAS_LOCALITY_DC, 1, 0), 0);
	KUNIT_EXPECT_EQ(test, ccaas_scope_flush(fx_net(test)), 0);
	KUNIT_EXPECT_EQ(test, table_count(test), 0U);
	expect_unknown(test, "10.0.0.1");
}

/*
 * A dry run refuses what a load refuses, with the same errors, and never
 * touches the table; what it accepts, a load then takes, at the size the
 * dry run reported.
 */
static void scope_load_dry_run(struct kunit *test)
{
	struct ccaas_scope_entry v[4];
	size_t mem = 0, real;
	u32 gen, dup = 99;

	KUNIT_ASSERT_EQ(test, add(test, "10.0.0.0/8", CCAAS_LOCALITY_DC, 1, 0), 0);
	gen = table_gen(test);

	v[0] = pfx(test, "fd00:1::/32", CCAAS_LOCALITY_RACK, 4, 0);
	v[1] = pfx(test, "192.168.0.0/16", CCAAS_LOCALITY_RACK, 5, 0);
	v[2] = pfx(test, "10.0.0.0/8", CCAAS_LOCALITY_XREGION, 7, 0);
	KUNIT_EXPECT_EQ(test, ccaas_scope_load_check(v, 3, &dup, &mem, NULL), 0);
	KUNIT_EXPECT_GT(test, mem, sizeof(v));
	KUNIT_EXPECT_EQ(test, table_gen(test), gen);
	KUNIT_EXPECT_EQ(test, table_count(test), 1U);
	expect_scope(test, "10.0.0.1", CCAAS_LOCALITY_DC, 8, 1);
	expect_unknown(test, "192.168.0.1");

	/* The same entries loaded for real: the size the dry run gave. */
	KUNIT_ASSERT_EQ(test, ccaas_scope_load(fx_net(test), v, 3, &dup, NULL), 0);
	rcu_read_lock();
	real = ccaas_scope_table_memory(ccaas_scope_table_get(fx_net(test)));
	rcu_read_unlock();
	KUNIT_EXPECT_EQ(test, mem, real);
	gen = table_gen(test);

	/* A prefix twice, an invalid entry, over the limit: refused alike. */
	v[0] = pfx(test, "1.0.0.0/8", CCAAS_LOCALITY_DC, 0, 0);
	v[1] = pfx(test, "2.0.0.0/8", CCAAS_LOCALITY_DC, 0, 0);
	v[2] = pfx(test, "1.0.0.0/8", CCAAS_LOCALITY_RACK, 0, 0);
	v[0].pos = 0;
	v[1].pos = 1;
	v[2].pos = 2;
	KUNIT_EXPECT_EQ(test, ccaas_scope_load_check(v, 3, &dup, &mem, NULL), -EEXIST);
	KUNIT_EXPECT_EQ(test, dup, 2U);
	v[2] = pfx(test, "3.0.0.1/8", CCAAS_LOCALITY_RACK, 0, 0);
	KUNIT_EXPECT_EQ(test, ccaas_scope_load_check(v, 3, &dup, &mem, NULL), -EINVAL);
	v[2] = pfx(test, "3.0.0.0/8", CCAAS_LOCALITY_RACK, 0, 0);
	ccaas_scope_max_entries = 2;
	KUNIT_EXPECT_EQ(test, ccaas_scope_load_check(v, 3, &dup, &mem, NULL), -ENOSPC);
	KUNIT_EXPECT_EQ(test, table_gen(test), gen);
	expect_scope(test, "10.0.0.1", CCAAS_LOCALITY_XREGION, 8, 7);
	expect_unknown(test, "1.0.0.1");

	/* An empty table is valid too, and still changes nothing. */
	KUNIT_EXPECT_EQ(test, ccaas_scope_load_check(v, 0, &dup, &mem, NULL), 0);
	KUNIT_EXPECT_EQ(test, table_count(test), 3U);
	KUNIT_EXPECT_EQ(test, table_gen(test), gen);
}

/* The dump's resume point: the first entry after a given one. */
static void scope_seek_after(struct kunit *test)
{
	struct ccaas_scope_entry e;
	const struct ccaas_scope_table *t;

	KUNIT_ASSERT_EQ(test, add(test, "10.0.0.0/8", CCAAS_LOCALITY_DC, 1, 0), 0);
	KUNIT_ASSERT_EQ(test, add(test, "10.0.0.0/16", CCAAS_LOCALITY_DC, 1, 0), 0);
	KUNIT_ASSERT_EQ(test, add(test, "11.0.0.0/8", CCAAS_LOCALITY_DC, 1, 0), 0);

	rcu_read_lock();
	t = ccaas_scope_table_get(fx_net(test));
	e = pfx(test, "10.0.0.0/8", 0, 0, 0);
	KUNIT_EXPECT_EQ(test, ccaas_scope_table_seek(t, 0, &e.key, 8), 1U);
	/* an entry deleted meanwhile: the next one that is there */
	e = pfx(test, "10.0.0.0/12", 0, 0, 0);
	KUNIT_EXPECT_EQ(test, ccaas_scope_table_seek(t, 0, &e.key, 12), 1U);
	e = pfx(test, "10.0.0.0/16", 0, 0, 0);
	KUNIT_EXPECT_EQ(test, ccaas_scope_table_seek(t, 0, &e.key, 16), 2U);
	e = pfx(test, "11.0.0.0/8", 0, 0, 0);
	KUNIT_EXPECT_EQ(test, ccaas_scope_table_seek(t, 0, &e.key, 8), 3U);
	KUNIT_EXPECT_NULL(test, ccaas_scope_table_entry(t, 0, 3));
	KUNIT_EXPECT_EQ(test, ccaas_scope_table_entry(t, 0, 2)->prefixlen, 8);
	rcu_read_unlock();
}

/* --- random tables against a brute-force lookup ------------------------- */

static struct ccaas_scope_key key_and_mask(const struct ccaas_scope_key *k,
					   unsigned int len)
{
	struct ccaas_scope_key m = {
		.hi = len >= 64 ? ~0ULL : len ? ~0ULL << (64 - len) : 0,
		.lo = len >= 128 ? ~0ULL : len > 64 ? ~0ULL << (128 - len) : 0,
	};

	return (struct ccaas_scope_key) { k->hi & m.hi, k->lo & m.lo };
}

/* The longest of the @n entries @v of family @fam covering @key, or NULL. */
static const struct ccaas_scope_entry *
brute_lpm(const struct ccaas_scope_entry *v, u32 n, u8 fam,
	  const struct ccaas_scope_key *key)
{
	const struct ccaas_scope_entry *best = NULL;
	u32 i;

	for (i = 0; i < n; i++) {
		struct ccaas_scope_key k = key_and_mask(key, v[i].prefixlen);

		if (v[i].fam != fam || k.hi != v[i].key.hi || k.lo != v[i].key.lo)
			continue;
		if (!best || v[i].prefixlen > best->prefixlen)
			best = &v[i];
	}
	return best;
}

/* A random address near one of a few seeds, so prefixes nest and touch. */
static struct ccaas_scope_key rnd_key(struct rnd_state *rs, u8 fam)
{
	static const u64 seeds[] = {
		0, 0x0a00000000000000ULL, 0x0a01000000000000ULL,
		0xc0a8000000000000ULL, 0xfd00000000000000ULL, ~0ULL,
	};
	u32 r = prandom_u32_state(rs);
	struct ccaas_scope_key k;
	unsigned int spread = r % 48;

	k.hi = seeds[(r >> 8) % ARRAY_SIZE(seeds)] ^
	       ((((u64)prandom_u32_state(rs) << 32) | prandom_u32_state(rs)) >>
		(16 + spread));
	k.lo = fam == CCAAS_SCOPE_V6 ?
	       ((u64)prandom_u32_state(rs) << 32) | prandom_u32_state(rs) : 0;
	if (fam == CCAAS_SCOPE_V4)
		k.hi &= 0xffffffff00000000ULL;
	return k;
}

static void check_lookups(struct kunit *test, const struct ccaas_scope_entry *v,
			  u32 n, struct rnd_state *rs)
{
	const struct ccaas_scope_table *t;
	unsigned int i, bad = 0;

	rcu_read_lock();
	t = ccaas_scope_table_get(fx_net(test));
	for (i = 0; i < 20000 && bad < 5; i++) {
		u8 fam = i & 1;
		struct ccaas_scope_key k = rnd_key(rs, fam);
		const struct ccaas_scope_entry *want, *got;

		/* every other: exactly at an entry's first address */
		if (n && !(i & 2)) {
			const struct ccaas_scope_entry *e;

			e = &v[prandom_u32_state(rs) % n];
			if (e->fam >= CCAAS_SCOPE_NFAM)
				continue;	/* deleted */
			k = e->key;
			fam = e->fam;
		}
		want = brute_lpm(v, n, fam, &k);
		got = ccaas_scope_table_find(t, fam, &k);
		if (want != got && (!want || !got || want->prefixlen != got->prefixlen ||
				    want->key.hi != got->key.hi ||
				    want->key.lo != got->key.lo)) {
			bad++;
			KUNIT_FAIL(test, "fam %u key %016llx%016llx: want /%d got /%d",
				   fam, k.hi, k.lo, want ? want->prefixlen : -1,
				   got ? got->prefixlen : -1);
		}
	}
	rcu_read_unlock();
}

static void scope_random_vs_brute_force(struct kunit *test)
{
	const unsigned int n = 2000;
	struct ccaas_scope_entry *v;
	struct rnd_state rs;
	unsigned int i, kept;
	u32 dup;

	v = kunit_kcalloc(test, n, sizeof(*v), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, v);
	prandom_seed_state(&rs, 42);

	/* IPv4 and IPv6 tables built by load, lengths biased to nest. */
	for (i = 0; i < n; i++) {
		u8 fam = i % 3 == 0 ? CCAAS_SCOPE_V6 : CCAAS_SCOPE_V4;
		unsigned int bits = fam == CCAAS_SCOPE_V4 ? 32 : 128;
		struct ccaas_scope_key k = rnd_key(&rs, fam);

		v[i].fam = fam;
		v[i].prefixlen = prandom_u32_state(&rs) % (bits + 1);
		v[i].key = key_and_mask(&k, v[i].prefixlen);
		v[i].locality = 1 + prandom_u32_state(&rs) % 4;
		v[i].region = i;
	}
	/* drop duplicates (a load refuses them) */
	for (i = 0, kept = 0; i < n; i++) {
		unsigned int j;

		for (j = 0; j < kept; j++)
			if (v[j].fam == v[i].fam && v[j].prefixlen == v[i].prefixlen &&
			    v[j].key.hi == v[i].key.hi && v[j].key.lo == v[i].key.lo)
				break;
		if (j == kept)
			v[kept++] = v[i];
	}
	kunit_info(test, "%u distinct random prefixes", kept);

	KUNIT_ASSERT_EQ(test, ccaas_scope_load(fx_net(test), v, kept, &dup, NULL), 0);
	KUNIT_EXPECT_EQ(test, table_count(test), kept);
	/* the load sorted v: compare against it as the reference */
	check_lookups(test, v, kept, &rs);

	/* Delete a third one by one, the rest must still answer right. */
	for (i = 0; i < kept; i += 3) {
		KUNIT_ASSERT_EQ(test, ccaas_scope_del(fx_net(test), &v[i], NULL), 0);
		v[i].fam = 0xff;	/* gone from the reference too */
	}
	check_lookups(test, v, kept, &rs);
}

/* --- 100 000 prefixes: correct, and how fast ----------------------------- */

static void scope_large_table(struct kunit *test)
{
	const u32 n4 = 65536, n6 = 34464, n = n4 + n6;
	struct ccaas_scope_result res;
	struct ccaas_scope_entry *v;
	struct rnd_state rs;
	struct in6_addr a6;
	u64 t0, t1;
	u32 i, sum = 0;
	size_t mem;

	v = kvcalloc(n, sizeof(*v), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, v);
	/* 10.0.0.0/8 in /24s, fd00::/16 in /48s, region = index */
	for (i = 0; i < n4; i++) {
		ccaas_scope_key4(&v[i].key, htonl(0x0a000000 | i << 8));
		v[i].prefixlen = 24;
		v[i].locality = CCAAS_LOCALITY_DC;
		v[i].region = i;
	}
	for (i = 0; i < n6; i++) {
		v[n4 + i].fam = CCAAS_SCOPE_V6;
		v[n4 + i].key.hi = 0xfd00000000000000ULL | (u64)i << 16;
		v[n4 + i].prefixlen = 48;
		v[n4 + i].locality = CCAAS_LOCALITY_RACK;
		v[n4 + i].region = i;
	}
	ccaas_scope_max_entries = n;
	t0 = ktime_get_ns();
	KUNIT_ASSERT_EQ(test, ccaas_scope_load(fx_net(test), v, n, NULL, NULL), 0);
	t1 = ktime_get_ns();
	kvfree(v);
	rcu_read_lock();
	mem = ccaas_scope_table_memory(ccaas_scope_table_get(fx_net(test)));
	rcu_read_unlock();
	kunit_info(test, "load of %u prefixes: %llu us, %zu bytes", n,
		   (t1 - t0) / 1000, mem);
	KUNIT_EXPECT_EQ(test, table_count(test), n);

	expect_scope(test, "10.0.0.1", CCAAS_LOCALITY_DC, 24, 0);
	expect_scope(test, "10.1.2.3", CCAAS_LOCALITY_DC, 24, 0x102);
	expect_scope(test, "10.255.255.255", CCAAS_LOCALITY_DC, 24, 0xffff);
	expect_unknown(test, "11.0.0.0");
	expect_scope(test, "fd00:0:1234::1", CCAAS_LOCALITY_RACK, 48, 0x1234);
	expect_scope(test, "fd00:0:869f:ffff::", CCAAS_LOCALITY_RACK, 48, n6 - 1);
	expect_unknown(test, "fd00:0:86a0::");

	/*
	 * Timing of random lookups: informational only (under TCG and KASAN
	 * it says little of real hardware).
	 */
	prandom_seed_state(&rs, 7);
	t0 = ktime_get_ns();
	for (i = 0; i < 1000000; i++) {
		ccaas_scope_lookup4(fx_net(test),
				    htonl(0x0a000000 | (prandom_u32_state(&rs) >> 8)),
				    &res);
		sum += res.region;
	}
	t1 = ktime_get_ns();
	kunit_info(test, "IPv4 lookup: %llu ns each (incl. ~5 ns of prandom), sum %u",
		   (t1 - t0) / 1000000, sum);
	memset(&a6, 0, sizeof(a6));
	a6.s6_addr16[0] = htons(0xfd00);
	t0 = ktime_get_ns();
	for (i = 0; i < 1000000; i++) {
		a6.s6_addr32[1] = htonl(prandom_u32_state(&rs));
		ccaas_scope_lookup6(fx_net(test), &a6, &res);
		sum += res.region;
	}
	t1 = ktime_get_ns();
	kunit_info(test, "IPv6 lookup: %llu ns each (incl. ~5 ns of prandom), sum %u",
		   (t1 - t0) / 1000000, sum);
}

static struct kunit_case ccaas_scope_cases[] = {
	KUNIT_CASE(scope_empty_is_unknown),
	KUNIT_CASE(scope_default_route),
	KUNIT_CASE(scope_host_routes),
	KUNIT_CASE(scope_longest_prefix_wins),
	KUNIT_CASE(scope_delete_covering_keeps_specific),
	KUNIT_CASE(scope_v4_mapped),
	KUNIT_CASE(scope_families_apart),
	KUNIT_CASE(scope_replace_entry),
	KUNIT_CASE(scope_invalid_refused),
	KUNIT_CASE(scope_size_limit),
	KUNIT_CASE(scope_load_replaces_all),
	KUNIT_CASE(scope_load_dry_run),
	KUNIT_CASE(scope_seek_after),
	KUNIT_CASE(scope_random_vs_brute_force),
	KUNIT_CASE_SLOW(scope_large_table),
	{}
};

static struct kunit_suite ccaas_scope_suite = {
	.name = "ccaas_scope",
	.init = scope_test_init,
	.exit = scope_test_exit,
	.test_cases = ccaas_scope_cases,
};

kunit_test_suites(&ccaas_scope_suite);

MODULE_LICENSE("GPL");
