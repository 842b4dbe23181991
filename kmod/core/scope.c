// SPDX-License-Identifier: GPL-2.0
/*
 * The scope table: how far away a remote address is.
 *
 * An operator describes the network as prefixes, each with a locality (rack,
 * data center, region, cross-region) and optional region and DC ids. The
 * selector asks, for every new connection, which entry the remote address
 * falls in; the longest matching prefix wins, and an address no prefix
 * covers is of unknown locality. IPv4 and IPv6 prefixes are kept apart; a
 * v4-mapped IPv6 address (::ffff:a.b.c.d) is looked up as the IPv4 address.
 *
 * What is stored. The prefixes of a family nest or are disjoint, so
 * together they cut the address space into at most 2n + 1 ranges of
 * consecutive addresses, each with a single answer: the longest prefix
 * covering it, or none. At every change the table is flattened into those
 * ranges (a sweep over the prefixes sorted by address, O(n)); a lookup is
 * then a search for the range that holds the address, which takes the same
 * time whatever the prefix lengths are (a per-length hash table would probe
 * up to 33 or 129 lengths; a trie's depth depends on them too).
 *
 * The ranges are kept by their last address, in the Eytzinger (BFS) order
 * of an implicit balanced binary search tree: the root at index 1, the
 * children of k at 2k and 2k + 1. A lookup descends with one comparison
 * and no branch to mispredict per level,
 *
 *	k = 2k + (end[k] < addr)
 *
 * and the range is the one whose end was last >= addr. The first levels of
 * the tree share a few cache lines that stay hot, unlike the midpoints of a
 * plain binary search, and each level's candidates lie close together.
 *
 * Costs (100 000 prefixes, so up to 200 001 ranges): a lookup is 18
 * dependent loads of 4 (IPv4) or 16 (IPv6) bytes, plus two loads to reach
 * the entry; no locks, no atomics, only rcu_read_lock(). Memory: 32 bytes
 * per prefix, plus 8 (IPv4) or 20 (IPv6) bytes per range: about 4.8 MB for
 * 100 000 IPv4 prefixes, 7.2 MB for IPv6, in one allocation charged to the
 * caller's memory cgroup. Measured by the KUnit test scope_large_table
 * (native code in a UML kernel, random addresses, 65 536 IPv4 and 34 464
 * IPv6 prefixes, on a busy shared build host): 35-90 ns per lookup, 15-25 ms
 * to load the table.
 *
 * Updates. The whole table (both families, one allocation) is immutable
 * once published. Every change builds a new one under ccaas_net.lock,
 * publishes it with rcu_assign_pointer() and frees the old one after a
 * grace period, so readers never wait and never see a half-made table, and
 * a failed change leaves the old one in force. An add or delete therefore
 * costs O(n) (copy and re-flatten); a load of n prefixes O(n log n) for the
 * sort. Bulk changes should use a load, which also replaces the table in
 * one step. Each table carries a generation number, which lets a netlink
 * dump notice that the table changed between its parts.
 *
 * Units: addresses are handled as 128-bit numbers in host order (struct
 * ccaas_scope_key), IPv4 in the top 32 bits, so prefix arithmetic is the
 * same for both families; the IPv4 range ends are stored as u32.
 */
#include <linux/err.h>
#include <linux/kernel.h>
#include <linux/module.h>
#include <linux/overflow.h>
#include <linux/slab.h>
#include <linux/sort.h>
#include <net/ipv6.h>

#include <ccaas/param.h>

#include "core.h"

#define SCOPE_MAX_ENTRIES_LIMIT	1000000

unsigned int ccaas_scope_max_entries __read_mostly = 100000;
CCAAS_PARAM_UINT(scope_max_entries, ccaas_scope_max_entries, 0,
		 SCOPE_MAX_ENTRIES_LIMIT, 0644);
MODULE_PARM_DESC(scope_max_entries,
		 "most prefixes in one namespace's scope table [0..1000000]");
EXPORT_SYMBOL_IF_KUNIT(ccaas_scope_max_entries);

/* Address bits of each family. */
static const unsigned int scope_bits[CCAAS_SCOPE_NFAM] = { 32, 128 };

/**
 * struct scope_fam - one family's part of a table
 * @nentries: number of prefixes
 * @nranges: number of ranges (0 if there are no prefixes)
 * @entries: the prefixes, sorted by address, then prefix length
 * @ends4: IPv4: last address of each range, Eytzinger order, from index 1
 * @ends6: IPv6: the same
 * @res: per range (same index): its entry's index + 1, 0 for none;
 *	res[0] is 0, the answer when there are no ranges
 */
struct scope_fam {
	u32 nentries;
	u32 nranges;
	struct ccaas_scope_entry *entries;
	union {
		u32 *ends4;
		struct ccaas_scope_key *ends6;
	};
	u32 *res;
};

/**
 * struct ccaas_scope_table - a published, immutable scope table
 * @rcu: frees it after a grace period
 * @size: bytes allocated for it (all its arrays follow it)
 * @gen: generation (ccaas_scope_state.gen when it was published)
 * @fam: the IPv4 and IPv6 parts
 */
struct ccaas_scope_table {
	struct rcu_head rcu;
	size_t size;
	u32 gen;
	struct scope_fam fam[CCAAS_SCOPE_NFAM];
};

/* ---- keys ---- */

void ccaas_scope_key4(struct ccaas_scope_key *key, __be32 addr)
{
	key->hi = (u64)ntohl(addr) << 32;
	key->lo = 0;
}
EXPORT_SYMBOL_IF_KUNIT(ccaas_scope_key4);

void ccaas_scope_key6(struct ccaas_scope_key *key, const struct in6_addr *addr)
{
	key->hi = (u64)ntohl(addr->s6_addr32[0]) << 32 | ntohl(addr->s6_addr32[1]);
	key->lo = (u64)ntohl(addr->s6_addr32[2]) << 32 | ntohl(addr->s6_addr32[3]);
}
EXPORT_SYMBOL_IF_KUNIT(ccaas_scope_key6);

__be32 ccaas_scope_addr4(const struct ccaas_scope_key *key)
{
	return htonl(key->hi >> 32);
}

void ccaas_scope_addr6(const struct ccaas_scope_key *key, struct in6_addr *addr)
{
	addr->s6_addr32[0] = htonl(key->hi >> 32);
	addr->s6_addr32[1] = htonl((u32)key->hi);
	addr->s6_addr32[2] = htonl(key->lo >> 32);
	addr->s6_addr32[3] = htonl((u32)key->lo);
}

static bool key_eq(const struct ccaas_scope_key *a,
		   const struct ccaas_scope_key *b)
{
	return a->hi == b->hi && a->lo == b->lo;
}

static bool key_lt(const struct ccaas_scope_key *a,
		   const struct ccaas_scope_key *b)
{
	return a->hi < b->hi || (a->hi == b->hi && a->lo < b->lo);
}

/* The first @len bits set (0 <= len <= 128). */
static struct ccaas_scope_key key_mask(unsigned int len)
{
	struct ccaas_scope_key m;

	m.hi = len >= 64 ? ~0ULL : len ? ~0ULL << (64 - len) : 0;
	m.lo = len >= 128 ? ~0ULL : len > 64 ? ~0ULL << (128 - len) : 0;
	return m;
}

bool ccaas_scope_host_bits(const struct ccaas_scope_key *key,
			   unsigned int prefixlen)
{
	struct ccaas_scope_key m = key_mask(prefixlen);

	return (key->hi & ~m.hi) || (key->lo & ~m.lo);
}

/* Last address of the prefix @e. */
static struct ccaas_scope_key entry_end(const struct ccaas_scope_entry *e)
{
	struct ccaas_scope_key net = key_mask(e->prefixlen);
	struct ccaas_scope_key fam = key_mask(scope_bits[e->fam]);

	return (struct ccaas_scope_key) {
		.hi = e->key.hi | (~net.hi & fam.hi),
		.lo = e->key.lo | (~net.lo & fam.lo),
	};
}

/* @k plus or minus one address of family @fam (no wrap-around asked for). */
static struct ccaas_scope_key key_step(struct ccaas_scope_key k,
				       unsigned int fam, bool up)
{
	if (fam == CCAAS_SCOPE_V4) {
		k.hi = up ? k.hi + (1ULL << 32) : k.hi - (1ULL << 32);
	} else if (up) {
		k.lo++;
		k.hi += !k.lo;
	} else {
		k.hi -= !k.lo;
		k.lo--;
	}
	return k;
}

/* Entry order: family, address, prefix length (a prefix before its subnets). */
static int entry_cmp(const struct ccaas_scope_entry *a,
		     const struct ccaas_scope_entry *b)
{
	if (a->fam != b->fam)
		return a->fam < b->fam ? -1 : 1;
	if (!key_eq(&a->key, &b->key))
		return key_lt(&a->key, &b->key) ? -1 : 1;
	if (a->prefixlen != b->prefixlen)
		return a->prefixlen < b->prefixlen ? -1 : 1;
	return 0;
}

static int entry_sort_cmp(const void *a, const void *b)
{
	return entry_cmp(a, b);
}

static bool entry_valid(const struct ccaas_scope_entry *e)
{
	return e->fam < CCAAS_SCOPE_NFAM &&
	       e->prefixlen <= scope_bits[e->fam] &&
	       e->locality > CCAAS_LOCALITY_UNKNOWN &&
	       e->locality <= CCAAS_LOCALITY_XREGION &&
	       !ccaas_scope_host_bits(&e->key, e->prefixlen);
}

/* ---- lookup ---- */

/*
 * Eytzinger descent: after the loop, k is the path taken, one bit per
 * level, 1 for "went right". Dropping the trailing 1s and the 0 before them
 * climbs back to the last node where we went left, the first end >= addr.
 */
static u32 scope_range4(const struct scope_fam *f, u32 addr)
{
	unsigned long k = 1, n = f->nranges;

	while (k <= n)
		k = 2 * k + (f->ends4[k] < addr);
	return k >> (__ffs(~k) + 1);
}

static u32 scope_range6(const struct scope_fam *f,
			const struct ccaas_scope_key *addr)
{
	unsigned long k = 1, n = f->nranges;

	while (k <= n)
		k = 2 * k + key_lt(&f->ends6[k], addr);
	return k >> (__ffs(~k) + 1);
}

const struct ccaas_scope_entry *
ccaas_scope_table_find(const struct ccaas_scope_table *t, unsigned int fam,
		       const struct ccaas_scope_key *key)
{
	const struct scope_fam *f = &t->fam[fam];
	u32 r, i;

	if (fam == CCAAS_SCOPE_V4)
		r = scope_range4(f, key->hi >> 32);
	else
		r = scope_range6(f, key);
	i = f->res[r];
	return i ? &f->entries[i - 1] : NULL;
}
EXPORT_SYMBOL_IF_KUNIT(ccaas_scope_table_find);

static void scope_result(const struct ccaas_scope_entry *e,
			 struct ccaas_scope_result *res)
{
	if (e) {
		res->locality = e->locality;
		res->prefixlen = e->prefixlen;
		res->region = e->region;
		res->dc = e->dc;
	} else {
		memset(res, 0, sizeof(*res));
		res->locality = CCAAS_LOCALITY_UNKNOWN;
	}
}

void ccaas_scope_lookup4(struct ccaas_net *cn, __be32 addr,
			 struct ccaas_scope_result *res)
{
	const struct ccaas_scope_entry *e = NULL;
	const struct ccaas_scope_table *t;
	struct ccaas_scope_key key;

	ccaas_scope_key4(&key, addr);
	rcu_read_lock();
	t = rcu_dereference(cn->scope.table);
	if (t)
		e = ccaas_scope_table_find(t, CCAAS_SCOPE_V4, &key);
	scope_result(e, res);
	rcu_read_unlock();
}
EXPORT_SYMBOL_GPL(ccaas_scope_lookup4);

void ccaas_scope_lookup6(struct ccaas_net *cn, const struct in6_addr *addr,
			 struct ccaas_scope_result *res)
{
	const struct ccaas_scope_entry *e = NULL;
	const struct ccaas_scope_table *t;
	struct ccaas_scope_key key;
	unsigned int fam = CCAAS_SCOPE_V6;

	if (ipv6_addr_v4mapped(addr)) {
		ccaas_scope_key4(&key, addr->s6_addr32[3]);
		fam = CCAAS_SCOPE_V4;
	} else {
		ccaas_scope_key6(&key, addr);
	}
	rcu_read_lock();
	t = rcu_dereference(cn->scope.table);
	if (t)
		e = ccaas_scope_table_find(t, fam, &key);
	scope_result(e, res);
	rcu_read_unlock();
}
EXPORT_SYMBOL_IF_KUNIT(ccaas_scope_lookup6);

/* ---- building a table ---- */

/* Eytzinger slots of a tree of @n nodes, in sorted (in-order) order. */
static u32 eyt_first(u32 n)
{
	u32 k = 1;

	while (2 * k <= n)
		k *= 2;
	return k;
}

static u32 eyt_next(u32 k, u32 n)
{
	if (2 * k + 1 <= n) {
		k = 2 * k + 1;
		while (2 * k <= n)
			k *= 2;
		return k;
	}
	while (k & 1)
		k >>= 1;
	return k >> 1;
}

/**
 * struct scope_sweep - flattening one family's prefixes into ranges
 * @e: the prefixes, sorted (entry_cmp), none twice
 * @n: how many
 * @fam: their family
 * @f: where to write the ranges, or NULL to only count them
 * @nranges: ranges emitted so far
 * @slot: Eytzinger slot of the next range (when writing)
 * @cursor: first address not yet covered by an emitted range
 * @done: the last address of the family has been covered
 * @depth: prefixes on @stack
 * @stack: indexes of the open prefixes, each inside the one below it
 */
struct scope_sweep {
	const struct ccaas_scope_entry *e;
	u32 n;
	unsigned int fam;
	struct scope_fam *f;
	u32 nranges;
	u32 slot;
	struct ccaas_scope_key cursor;
	bool done;
	unsigned int depth;
	u32 stack[128 + 1];
};

/* The addresses from the cursor to @end answer @res (entry index + 1). */
static void sweep_emit(struct scope_sweep *s, struct ccaas_scope_key end,
		       u32 res)
{
	struct ccaas_scope_key max = key_mask(scope_bits[s->fam]);

	if (s->done || key_lt(&end, &s->cursor))
		return;		/* empty: a subnet ended where its parent does */
	if (s->f) {
		if (s->fam == CCAAS_SCOPE_V4)
			s->f->ends4[s->slot] = end.hi >> 32;
		else
			s->f->ends6[s->slot] = end;
		s->f->res[s->slot] = res;
		s->slot = eyt_next(s->slot, s->f->nranges);
	}
	s->nranges++;
	if (key_eq(&end, &max))
		s->done = true;
	else
		s->cursor = key_step(end, s->fam, true);
}

static u32 sweep_top(const struct scope_sweep *s)
{
	return s->depth ? s->stack[s->depth - 1] + 1 : 0;
}

static void sweep_init(struct scope_sweep *s, const struct ccaas_scope_entry *e,
		       u32 n, unsigned int fam, struct scope_fam *f)
{
	s->e = e;
	s->n = n;
	s->fam = fam;
	s->f = f;
}

/*
 * Walk the prefixes in address order, keeping the chain of prefixes that
 * contain the current one on a stack: each stretch of addresses belongs to
 * the innermost open prefix. Returns the number of ranges.
 */
static u32 scope_sweep(struct scope_sweep *s)
{
	u32 i;

	s->nranges = 0;
	s->cursor = (struct ccaas_scope_key) { 0, 0 };
	s->done = false;
	s->depth = 0;
	if (s->f && s->f->nranges)
		s->slot = eyt_first(s->f->nranges);
	if (!s->n)
		return 0;

	for (i = 0; i < s->n; i++) {
		const struct ccaas_scope_entry *e = &s->e[i];

		/* Close the open prefixes that end before this one. */
		while (s->depth) {
			u32 top = s->stack[s->depth - 1];
			struct ccaas_scope_key end = entry_end(&s->e[top]);

			if (!key_lt(&end, &e->key))
				break;
			sweep_emit(s, end, top + 1);
			s->depth--;
		}
		/* Up to its start, the addresses are the enclosing prefix's. */
		if (key_lt(&s->cursor, &e->key))
			sweep_emit(s, key_step(e->key, s->fam, false),
				   sweep_top(s));
		if (WARN_ON_ONCE(s->depth >= ARRAY_SIZE(s->stack)))
			return 0;
		s->stack[s->depth++] = i;
	}
	while (s->depth) {
		u32 top = s->stack[--s->depth];

		sweep_emit(s, entry_end(&s->e[top]), top + 1);
	}
	sweep_emit(s, key_mask(scope_bits[s->fam]), 0);
	return s->nranges;
}

/*
 * A new table from each family's sorted, duplicate-free prefixes @src[fam]
 * (@n[fam] of them). The sources are copied; NULL on allocation failure.
 */
static struct ccaas_scope_table *
scope_build(const struct ccaas_scope_entry *const src[CCAAS_SCOPE_NFAM],
	    const u32 n[CCAAS_SCOPE_NFAM])
{
	u32 nranges[CCAAS_SCOPE_NFAM];
	struct ccaas_scope_table *t;
	struct scope_sweep *s;
	size_t off[5], size;
	unsigned int fam;
	char *base;

	s = kmalloc(sizeof(*s), GFP_KERNEL_ACCOUNT);
	if (!s)
		return NULL;
	for (fam = 0; fam < CCAAS_SCOPE_NFAM; fam++) {
		sweep_init(s, src[fam], n[fam], fam, NULL);
		nranges[fam] = scope_sweep(s);
	}

	/*
	 * Layout: the header, the entries of both families, the IPv6 ends,
	 * then the 4-byte arrays; each range array has a slot 0.
	 */
	size = sizeof(*t);
	off[0] = size;
	size += array_size(n[0] + n[1], sizeof(struct ccaas_scope_entry));
	off[1] = size;
	size += array_size(nranges[1] + 1, sizeof(struct ccaas_scope_key));
	off[2] = size;
	size += array_size(nranges[0] + 1, sizeof(u32));
	off[3] = size;
	size += array_size(nranges[0] + 1, sizeof(u32));
	off[4] = size;
	size += array_size(nranges[1] + 1, sizeof(u32));

	t = kvmalloc(size, GFP_KERNEL_ACCOUNT);
	if (!t) {
		kfree(s);
		return NULL;
	}
	base = (char *)t;
	memset(t, 0, sizeof(*t));
	t->size = size;
	t->fam[0].entries = (struct ccaas_scope_entry *)(base + off[0]);
	t->fam[1].entries = t->fam[0].entries + n[0];
	t->fam[1].ends6 = (struct ccaas_scope_key *)(base + off[1]);
	t->fam[0].ends4 = (u32 *)(base + off[2]);
	t->fam[0].res = (u32 *)(base + off[3]);
	t->fam[1].res = (u32 *)(base + off[4]);

	for (fam = 0; fam < CCAAS_SCOPE_NFAM; fam++) {
		struct scope_fam *f = &t->fam[fam];

		f->nentries = n[fam];
		f->nranges = nranges[fam];
		if (n[fam])
			memcpy(f->entries, src[fam], n[fam] * sizeof(*src[fam]));
		f->res[0] = 0;
		sweep_init(s, f->entries, n[fam], fam, f);
		scope_sweep(s);
	}
	kfree(s);
	return t;
}

static struct ccaas_scope_table *scope_build_empty(void)
{
	static const struct ccaas_scope_entry *const none[CCAAS_SCOPE_NFAM];
	static const u32 zero[CCAAS_SCOPE_NFAM];

	return scope_build(none, zero);
}

static u32 table_count(const struct ccaas_scope_table *t)
{
	return t->fam[0].nentries + t->fam[1].nentries;
}

/* Install @t as @cn's table and retire the old one (cn->lock held). */
static void scope_publish(struct ccaas_net *cn, struct ccaas_scope_table *t)
{
	struct ccaas_scope_table *old;

	old = rcu_dereference_protected(cn->scope.table,
					lockdep_is_held(&cn->lock));
	/* 0 would mean "no generation yet" to a dump's consistency check. */
	if (!++cn->scope.gen)
		cn->scope.gen = 1;
	t->gen = cn->scope.gen;
	rcu_assign_pointer(cn->scope.table, t);
	if (old)
		kvfree_rcu(old, rcu);
}

/* ---- changes ---- */

/* Index of the first entry of @f not before @e (entry_cmp order). */
static u32 fam_lower_bound(const struct scope_fam *f,
			   const struct ccaas_scope_entry *e)
{
	u32 lo = 0, hi = f->nentries;

	while (lo < hi) {
		u32 mid = lo + (hi - lo) / 2;

		if (entry_cmp(&f->entries[mid], e) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/*
 * Build and publish a table equal to the current one except that family
 * @e->fam has entries [0, @keep) of the current list, then @e (if not
 * NULL), then the current entries from @skip on.
 */
static int scope_splice(struct ccaas_net *cn, const struct ccaas_scope_entry *e,
			unsigned int fam, u32 keep, u32 skip)
{
	const struct ccaas_scope_entry *src[CCAAS_SCOPE_NFAM];
	struct ccaas_scope_table *old, *t;
	struct ccaas_scope_entry *v;
	u32 n[CCAAS_SCOPE_NFAM], tail;
	const struct scope_fam *f;

	old = rcu_dereference_protected(cn->scope.table,
					lockdep_is_held(&cn->lock));
	f = &old->fam[fam];
	tail = f->nentries - skip;
	v = kvmalloc_array(keep + !!e + tail, sizeof(*v), GFP_KERNEL_ACCOUNT);
	if (!v)
		return -ENOMEM;
	memcpy(v, f->entries, keep * sizeof(*v));
	if (e)
		v[keep] = *e;
	memcpy(v + keep + !!e, f->entries + skip, tail * sizeof(*v));

	src[fam] = v;
	n[fam] = keep + !!e + tail;
	src[!fam] = old->fam[!fam].entries;
	n[!fam] = old->fam[!fam].nentries;
	t = scope_build(src, n);
	kvfree(v);
	if (!t)
		return -ENOMEM;
	scope_publish(cn, t);
	return 0;
}

int ccaas_scope_add(struct ccaas_net *cn, const struct ccaas_scope_entry *e,
		    struct netlink_ext_ack *extack)
{
	const struct ccaas_scope_table *old;
	struct ccaas_scope_entry ne = *e;
	const struct scope_fam *f;
	bool replace;
	u32 pos;
	int err;

	if (!entry_valid(e)) {
		NL_SET_ERR_MSG(extack, "invalid scope entry");
		return -EINVAL;
	}
	ne.pos = 0;

	mutex_lock(&cn->lock);
	old = rcu_dereference_protected(cn->scope.table,
					lockdep_is_held(&cn->lock));
	f = &old->fam[e->fam];
	pos = fam_lower_bound(f, e);
	replace = pos < f->nentries && !entry_cmp(&f->entries[pos], e);
	if (!replace && table_count(old) >= READ_ONCE(ccaas_scope_max_entries)) {
		NL_SET_ERR_MSG(extack,
			       "scope table full (module parameter scope_max_entries)");
		err = -ENOSPC;
	} else {
		err = scope_splice(cn, &ne, e->fam, pos, pos + replace);
	}
	mutex_unlock(&cn->lock);
	return err;
}
EXPORT_SYMBOL_IF_KUNIT(ccaas_scope_add);

int ccaas_scope_del(struct ccaas_net *cn, const struct ccaas_scope_entry *e,
		    struct netlink_ext_ack *extack)
{
	const struct ccaas_scope_table *old;
	const struct scope_fam *f;
	u32 pos;
	int err;

	if (e->fam >= CCAAS_SCOPE_NFAM || e->prefixlen > scope_bits[e->fam]) {
		NL_SET_ERR_MSG(extack, "invalid scope prefix");
		return -EINVAL;
	}

	mutex_lock(&cn->lock);
	old = rcu_dereference_protected(cn->scope.table,
					lockdep_is_held(&cn->lock));
	f = &old->fam[e->fam];
	pos = fam_lower_bound(f, e);
	if (pos < f->nentries && !entry_cmp(&f->entries[pos], e)) {
		err = scope_splice(cn, NULL, e->fam, pos, pos + 1);
	} else {
		NL_SET_ERR_MSG(extack, "no such prefix in the scope table");
		err = -ENOENT;
	}
	mutex_unlock(&cn->lock);
	return err;
}
EXPORT_SYMBOL_IF_KUNIT(ccaas_scope_del);

int ccaas_scope_flush(struct ccaas_net *cn)
{
	struct ccaas_scope_table *t;

	t = scope_build_empty();
	if (!t)
		return -ENOMEM;
	mutex_lock(&cn->lock);
	scope_publish(cn, t);
	mutex_unlock(&cn->lock);
	return 0;
}
EXPORT_SYMBOL_IF_KUNIT(ccaas_scope_flush);

/*
 * Everything a load of @v does but the swap: the checks, the sort and the
 * new table, or an ERR_PTR. A load and its dry run share it, so a dry run
 * refuses exactly what a load would.
 */
static struct ccaas_scope_table *
scope_load_build(struct ccaas_scope_entry *v, u32 n, u32 *dup,
		 struct netlink_ext_ack *extack)
{
	const struct ccaas_scope_entry *src[CCAAS_SCOPE_NFAM];
	struct ccaas_scope_table *t;
	u32 nfam[CCAAS_SCOPE_NFAM];
	u32 i;

	if (n > READ_ONCE(ccaas_scope_max_entries)) {
		NL_SET_ERR_MSG(extack,
			       "scope table full: more entries than the module parameter scope_max_entries");
		return ERR_PTR(-ENOSPC);
	}
	for (i = 0; i < n; i++) {
		if (!entry_valid(&v[i])) {
			NL_SET_ERR_MSG(extack, "invalid scope entry");
			return ERR_PTR(-EINVAL);
		}
	}

	sort(v, n, sizeof(*v), entry_sort_cmp, NULL);
	for (i = 1; i < n; i++) {
		if (!entry_cmp(&v[i - 1], &v[i])) {
			if (dup)
				*dup = max(v[i - 1].pos, v[i].pos);
			NL_SET_ERR_MSG(extack, "prefix given twice in one scope load");
			return ERR_PTR(-EEXIST);
		}
	}
	nfam[0] = 0;
	for (i = 0; i < n; i++) {
		v[i].pos = 0;
		nfam[0] += v[i].fam == CCAAS_SCOPE_V4;
	}
	nfam[1] = n - nfam[0];
	src[0] = v;
	src[1] = v + nfam[0];

	t = scope_build(src, nfam);
	if (!t) {
		NL_SET_ERR_MSG(extack, "no memory for the new scope table");
		return ERR_PTR(-ENOMEM);
	}
	return t;
}

int ccaas_scope_load(struct ccaas_net *cn, struct ccaas_scope_entry *v,
		     u32 n, u32 *dup, struct netlink_ext_ack *extack)
{
	struct ccaas_scope_table *t;

	/* The table is built from nothing: no lock needed until the swap. */
	t = scope_load_build(v, n, dup, extack);
	if (IS_ERR(t))
		return PTR_ERR(t);
	mutex_lock(&cn->lock);
	scope_publish(cn, t);
	mutex_unlock(&cn->lock);
	return 0;
}
EXPORT_SYMBOL_IF_KUNIT(ccaas_scope_load);

int ccaas_scope_load_check(struct ccaas_scope_entry *v, u32 n, u32 *dup,
			   size_t *memory, struct netlink_ext_ack *extack)
{
	struct ccaas_scope_table *t;

	t = scope_load_build(v, n, dup, extack);
	if (IS_ERR(t))
		return PTR_ERR(t);
	if (memory)
		*memory = t->size;
	/* Never published: no reader can hold it. */
	kvfree(t);
	return 0;
}
EXPORT_SYMBOL_IF_KUNIT(ccaas_scope_load_check);

/* ---- reading the whole table ---- */

struct ccaas_scope_table *ccaas_scope_table_get(struct ccaas_net *cn)
{
	return rcu_dereference(cn->scope.table);
}
EXPORT_SYMBOL_IF_KUNIT(ccaas_scope_table_get);

u32 ccaas_scope_table_gen(const struct ccaas_scope_table *t)
{
	return t->gen;
}
EXPORT_SYMBOL_IF_KUNIT(ccaas_scope_table_gen);

u32 ccaas_scope_table_count(const struct ccaas_scope_table *t)
{
	return table_count(t);
}
EXPORT_SYMBOL_IF_KUNIT(ccaas_scope_table_count);

size_t ccaas_scope_table_memory(const struct ccaas_scope_table *t)
{
	return t->size;
}
EXPORT_SYMBOL_IF_KUNIT(ccaas_scope_table_memory);

const struct ccaas_scope_entry *
ccaas_scope_table_entry(const struct ccaas_scope_table *t, unsigned int fam,
			u32 i)
{
	const struct scope_fam *f = &t->fam[fam];

	return i < f->nentries ? &f->entries[i] : NULL;
}
EXPORT_SYMBOL_IF_KUNIT(ccaas_scope_table_entry);

u32 ccaas_scope_table_seek(const struct ccaas_scope_table *t, unsigned int fam,
			   const struct ccaas_scope_key *key, u8 prefixlen)
{
	const struct scope_fam *f = &t->fam[fam];
	struct ccaas_scope_entry e = {
		.key = *key, .fam = fam, .prefixlen = prefixlen,
	};
	u32 pos = fam_lower_bound(f, &e);

	if (pos < f->nentries && !entry_cmp(&f->entries[pos], &e))
		pos++;
	return pos;
}
EXPORT_SYMBOL_IF_KUNIT(ccaas_scope_table_seek);

/* ---- per namespace ---- */

int ccaas_scope_net_init(struct ccaas_net *cn)
{
	struct ccaas_scope_table *t;

	t = scope_build_empty();
	if (!t)
		return -ENOMEM;
	cn->scope.gen = 1;
	t->gen = 1;
	RCU_INIT_POINTER(cn->scope.table, t);
	return 0;
}
EXPORT_SYMBOL_IF_KUNIT(ccaas_scope_net_init);

void ccaas_scope_net_exit(struct ccaas_net *cn)
{
	struct ccaas_scope_table *t;

	t = rcu_dereference_protected(cn->scope.table, true);
	RCU_INIT_POINTER(cn->scope.table, NULL);
	if (t)
		kvfree_rcu(t, rcu);
}
EXPORT_SYMBOL_IF_KUNIT(ccaas_scope_net_exit);
