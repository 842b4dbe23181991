/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The scope table: remote address prefixes to locality, region and DC
 * (scope.c), and its netlink commands (scope_nl.c).
 */
#ifndef _CCAAS_SCOPE_H
#define _CCAAS_SCOPE_H

#include <linux/in6.h>
#include <linux/rcupdate.h>
#include <linux/types.h>
#include <net/genetlink.h>
#include <uapi/linux/ccaas.h>

struct ccaas_net;
struct ccaas_scope_table;

/* The two address families, each with its own table. */
enum {
	CCAAS_SCOPE_V4,
	CCAAS_SCOPE_V6,
	CCAAS_SCOPE_NFAM,
};

/**
 * struct ccaas_scope_state - per-netns scope state, inside struct ccaas_net
 * @table: the table in force (never NULL after ccaas_scope_net_init());
 *	replaced as a whole under ccaas_net.lock, read under RCU
 * @gen: generation of the last published table (dumps detect changes by it)
 */
struct ccaas_scope_state {
	struct ccaas_scope_table __rcu *table;
	u32 gen;
};

/**
 * struct ccaas_scope_result - what a lookup found
 * @locality: enum ccaas_locality; CCAAS_LOCALITY_UNKNOWN if nothing matched
 * @prefixlen: length of the matching prefix (IPv4 length for IPv4 and
 *	v4-mapped IPv6 addresses), 0 if nothing matched
 * @region: region id of the matching entry (0 if none)
 * @dc: data center id of the matching entry (0 if none)
 */
struct ccaas_scope_result {
	u8 locality;
	u8 prefixlen;
	u32 region;
	u32 dc;
};

/*
 * Longest-prefix match of a remote address. Any context (softirq,
 * tracepoint probes, preemptible or not): takes rcu_read_lock() itself;
 * no locks, no sleeping.
 * A v4-mapped IPv6 address (::ffff:a.b.c.d) is looked up as IPv4.
 */
void ccaas_scope_lookup4(struct ccaas_net *cn, __be32 addr,
			 struct ccaas_scope_result *res);
void ccaas_scope_lookup6(struct ccaas_net *cn, const struct in6_addr *addr,
			 struct ccaas_scope_result *res);

/**
 * struct ccaas_scope_key - an address as a 128-bit number in host order,
 *	left-aligned: IPv6 fills it, IPv4 takes the top 32 bits of @hi and
 *	leaves the rest zero, so prefix arithmetic is the same for both
 * @hi: the first 64 bits of the address
 * @lo: the last 64 bits
 */
struct ccaas_scope_key {
	u64 hi;
	u64 lo;
};

/**
 * struct ccaas_scope_entry - one prefix of the table
 * @key: the prefix's address (no bits set beyond @prefixlen)
 * @region: region id
 * @dc: data center id
 * @pos: in a load, the entry's position in the request (for error reports)
 * @fam: CCAAS_SCOPE_V4 or CCAAS_SCOPE_V6
 * @prefixlen: 0..32 or 0..128
 * @locality: enum ccaas_locality, never CCAAS_LOCALITY_UNKNOWN
 */
struct ccaas_scope_entry {
	struct ccaas_scope_key key;
	u32 region;
	u32 dc;
	u32 pos;
	u8 fam;
	u8 prefixlen;
	u8 locality;
};

/* Size limit of one namespace's table (module parameter scope_max_entries). */
extern unsigned int ccaas_scope_max_entries;

/* Address conversions between network order and struct ccaas_scope_key. */
void ccaas_scope_key4(struct ccaas_scope_key *key, __be32 addr);
void ccaas_scope_key6(struct ccaas_scope_key *key, const struct in6_addr *addr);
__be32 ccaas_scope_addr4(const struct ccaas_scope_key *key);
void ccaas_scope_addr6(const struct ccaas_scope_key *key, struct in6_addr *addr);
/* Does @key have bits set beyond the first @prefixlen? */
bool ccaas_scope_host_bits(const struct ccaas_scope_key *key,
			   unsigned int prefixlen);

/*
 * Changes, in process context; each takes ccaas_net.lock and publishes a
 * new table, or leaves the old one in force and returns an error:
 * -ENOSPC over ccaas_scope_max_entries, -ENOENT deleting what is not there,
 * -EEXIST for a prefix given twice in one load (*@dup is then the
 * position of the second one), -EINVAL for an invalid entry, -ENOMEM.
 */
int ccaas_scope_add(struct ccaas_net *cn, const struct ccaas_scope_entry *e,
		    struct netlink_ext_ack *extack);
int ccaas_scope_del(struct ccaas_net *cn, const struct ccaas_scope_entry *e,
		    struct netlink_ext_ack *extack);
int ccaas_scope_flush(struct ccaas_net *cn);
/* Replaces the table by @n entries @v (sorted in place). */
int ccaas_scope_load(struct ccaas_net *cn, struct ccaas_scope_entry *v,
		     u32 n, u32 *dup, struct netlink_ext_ack *extack);
/*
 * A load's dry run: the same checks and the same new table, which is then
 * freed, not published (the table in force is not even read). On success
 * *@memory is the size the table would have.
 */
int ccaas_scope_load_check(struct ccaas_scope_entry *v, u32 n, u32 *dup,
			   size_t *memory, struct netlink_ext_ack *extack);

/*
 * Reading the table as a whole, under rcu_read_lock(): the table in force,
 * its generation, entry count and size, and its entries in order (IPv4
 * first, each family sorted by address, then prefix length).
 */
struct ccaas_scope_table *ccaas_scope_table_get(struct ccaas_net *cn);
u32 ccaas_scope_table_gen(const struct ccaas_scope_table *t);
u32 ccaas_scope_table_count(const struct ccaas_scope_table *t);
size_t ccaas_scope_table_memory(const struct ccaas_scope_table *t);
/* Entry @i of family @fam, or NULL past the end. */
const struct ccaas_scope_entry *
ccaas_scope_table_entry(const struct ccaas_scope_table *t, unsigned int fam,
			u32 i);
/* Index of the first entry of @fam after (@key, @prefixlen) in order. */
u32 ccaas_scope_table_seek(const struct ccaas_scope_table *t, unsigned int fam,
			   const struct ccaas_scope_key *key, u8 prefixlen);
/* The longest prefix of @fam covering @key, or NULL. */
const struct ccaas_scope_entry *
ccaas_scope_table_find(const struct ccaas_scope_table *t, unsigned int fam,
		       const struct ccaas_scope_key *key);

int ccaas_scope_net_init(struct ccaas_net *cn);
void ccaas_scope_net_exit(struct ccaas_net *cn);

/* scope_nl.c: the handlers and policies ccaas_ops[] (netlink.c) names. */
extern const struct nla_policy ccaas_scope_add_policy[CCAAS_A_SCOPE_MAX + 1];
extern const struct nla_policy ccaas_scope_del_policy[CCAAS_A_SCOPE_MAX + 1];
extern const struct nla_policy ccaas_scope_get_policy[CCAAS_A_SCOPE_MAX + 1];
extern const struct nla_policy ccaas_scope_flush_policy[CCAAS_A_SCOPE_MAX + 1];
extern const struct nla_policy ccaas_scope_load_policy[CCAAS_A_SCOPE_MAX + 1];
int ccaas_nl_scope_add_doit(struct sk_buff *skb, struct genl_info *info);
int ccaas_nl_scope_del_doit(struct sk_buff *skb, struct genl_info *info);
int ccaas_nl_scope_get_doit(struct sk_buff *skb, struct genl_info *info);
int ccaas_nl_scope_get_dumpit(struct sk_buff *skb, struct netlink_callback *cb);
int ccaas_nl_scope_flush_doit(struct sk_buff *skb, struct genl_info *info);
int ccaas_nl_scope_load_doit(struct sk_buff *skb, struct genl_info *info);

#endif /* _CCAAS_SCOPE_H */
