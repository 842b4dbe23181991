/* SPDX-License-Identifier: ((GPL-2.0 WITH Linux-syscall-note) OR BSD-3-Clause) */
/*
 * ccaas: congestion control as a service — generic netlink interface.
 *
 * The YAML specification beside this file (ccaas.yaml) is the source of
 * truth for this interface; keep the two in step.
 */
#ifndef _UAPI_LINUX_CCAAS_H
#define _UAPI_LINUX_CCAAS_H

#define CCAAS_FAMILY_NAME	"ccaas"
#define CCAAS_FAMILY_VERSION	1

/* Multicast group for policy and migration events. */
#define CCAAS_MCGRP_MONITOR	"monitor"

/* Longest CCA name, including the terminating NUL (TCP_CA_NAME_MAX). */
#define CCAAS_CCA_NAME_MAX	16

/* Longest CCA parameter name in a policy rule, including the NUL. */
#define CCAAS_PARAM_NAME_MAX	32

/*
 * enum ccaas_cca_feature - what a registered CCA declares about itself
 * @CCAAS_CCA_F_NEEDS_ECN: asks for ECN at the handshake (TCP_CONG_NEEDS_ECN)
 * @CCAAS_CCA_F_ECN_OK: may take over a socket that negotiated ECN
 * @CCAAS_CCA_F_NONECN_OK: may take over a socket without ECN (has a fallback)
 * @CCAAS_CCA_F_TRANSITIONAL: safe landing place for any socket
 * @CCAAS_CCA_F_CONG_CONTROL: implements cong_control (bypasses PRR/pacing)
 */
enum ccaas_cca_feature {
	CCAAS_CCA_F_NEEDS_ECN		= 1 << 0,
	CCAAS_CCA_F_ECN_OK		= 1 << 1,
	CCAAS_CCA_F_NONECN_OK		= 1 << 2,
	CCAAS_CCA_F_TRANSITIONAL	= 1 << 3,
	CCAAS_CCA_F_CONG_CONTROL	= 1 << 4,
};

/* A CCA version packed into a u32: major.minor.patch, 8 bits each below major. */
#define CCAAS_VERSION(maj, min, pat)	(((maj) << 16) | ((min) << 8) | (pat))
#define CCAAS_VERSION_MAJOR(v)		((v) >> 16)
#define CCAAS_VERSION_MINOR(v)		(((v) >> 8) & 0xff)
#define CCAAS_VERSION_PATCH(v)		((v) & 0xff)

/*
 * enum ccaas_locality - how far away a remote address is
 * @CCAAS_LOCALITY_UNKNOWN: no scope prefix covers the address
 */
enum ccaas_locality {
	CCAAS_LOCALITY_UNKNOWN,
	CCAAS_LOCALITY_RACK,
	CCAAS_LOCALITY_DC,
	CCAAS_LOCALITY_REGION,
	CCAAS_LOCALITY_XREGION,
};

/*
 * enum ccaas_ecn_mode - the ECN feedback a TCP socket negotiated
 * @CCAAS_ECN_MODE_OFF: no ECN
 * @CCAAS_ECN_MODE_RFC3168: classic ECN (RFC 3168): ECE until CWR
 * @CCAAS_ECN_MODE_ACCECN: Accurate ECN (RFC 9768): CE counters in every ACK
 * @CCAAS_ECN_MODE_PENDING: AccECN asked for, the handshake not yet done
 */
enum ccaas_ecn_mode {
	CCAAS_ECN_MODE_OFF,
	CCAAS_ECN_MODE_RFC3168,
	CCAAS_ECN_MODE_ACCECN,
	CCAAS_ECN_MODE_PENDING,
};

/* Commit kinds of a policy generation (CCAAS_A_POLICY_ORIGIN). */
enum ccaas_policy_origin {
	CCAAS_POLICY_ORIGIN_EMPTY,	/* generation 0: no rules */
	CCAAS_POLICY_ORIGIN_SET,	/* policy set / policy del */
	CCAAS_POLICY_ORIGIN_APPLY,	/* policy apply */
	CCAAS_POLICY_ORIGIN_ROLLBACK,	/* policy rollback */
};

enum {
	CCAAS_A_CCA_UNSPEC,
	CCAAS_A_CCA_NAME,		/* string, < CCAAS_CCA_NAME_MAX */
	CCAAS_A_CCA_VERSION,		/* u32, CCAAS_VERSION() */
	CCAAS_A_CCA_FEATURES,		/* u32, enum ccaas_cca_feature */
	CCAAS_A_CCA_MODULE,		/* string: owning kernel module */
	CCAAS_A_CCA_FLAGS,		/* u32: tcp_congestion_ops flags (TCP_CONG_*) */
	CCAAS_A_CCA_EXT_SIZE,		/* u32: extension bytes per socket */
	CCAAS_A_CCA_PARAM,		/* nest (multi): CCAAS_A_SPEC_* */
	CCAAS_A_CCA_TAKEOVER,		/* nest (multi): CCAAS_A_TAKEOVER_* */
	CCAAS_A_CCA_FALLBACK,		/* string: name of the fallback ops */

	__CCAAS_A_CCA_MAX,
	CCAAS_A_CCA_MAX = (__CCAAS_A_CCA_MAX - 1)
};

/* One parameter of a CCA's schema (all parameters are u32). */
enum {
	CCAAS_A_SPEC_UNSPEC,
	CCAAS_A_SPEC_NAME,		/* string */
	CCAAS_A_SPEC_MINIMUM,		/* u32 */
	CCAAS_A_SPEC_MAXIMUM,		/* u32 */
	CCAAS_A_SPEC_DEFAULT,		/* u32 */
	CCAAS_A_SPEC_UNIT,		/* string */

	__CCAAS_A_SPEC_MAX,
	CCAAS_A_SPEC_MAX = (__CCAAS_A_SPEC_MAX - 1)
};

/* A CCA (and minimum version) a CCA may take sockets over from. */
enum {
	CCAAS_A_TAKEOVER_UNSPEC,
	CCAAS_A_TAKEOVER_NAME,		/* string */
	CCAAS_A_TAKEOVER_MIN_VERSION,	/* u32, CCAAS_VERSION() */

	__CCAAS_A_TAKEOVER_MAX,
	CCAAS_A_TAKEOVER_MAX = (__CCAAS_A_TAKEOVER_MAX - 1)
};

/* A scope table entry: prefix to locality, region and DC. */
enum {
	CCAAS_A_SCOPE_UNSPEC,
	CCAAS_A_SCOPE_ADDR,		/* binary: 4 (IPv4) or 16 (IPv6) bytes */
	CCAAS_A_SCOPE_PREFIXLEN,	/* u8: 0..32 or 0..128 */
	CCAAS_A_SCOPE_LOCALITY,		/* u8: enum ccaas_locality */
	CCAAS_A_SCOPE_REGION,		/* u32: region id */
	CCAAS_A_SCOPE_DC,		/* u32: data center id */
	CCAAS_A_SCOPE_ENTRY,		/* nest (multi): CCAAS_A_SCOPE_* entry */
	CCAAS_A_SCOPE_COUNT,		/* u32: entries in the table */
	CCAAS_A_SCOPE_MAX_ENTRIES,	/* u32: table size limit */
	CCAAS_A_SCOPE_MEMORY,		/* u64: bytes the table uses */
	CCAAS_A_SCOPE_DRY_RUN,		/* flag: load: check only, commit nothing */

	__CCAAS_A_SCOPE_MAX,
	CCAAS_A_SCOPE_MAX = (__CCAAS_A_SCOPE_MAX - 1)
};

/* A CCA parameter of a policy rule, checked against the CCA's schema. */
enum {
	CCAAS_A_PARAM_UNSPEC,
	CCAAS_A_PARAM_NAME,		/* string */
	CCAAS_A_PARAM_VALUE,		/* u32 */

	__CCAAS_A_PARAM_MAX,
	CCAAS_A_PARAM_MAX = (__CCAAS_A_PARAM_MAX - 1)
};

/*
 * A policy rule: what a connection's scope and service must be for the rule
 * to apply, and what the connection then gets. Without any match attribute
 * the rule is the default rule (for what no other rule matches).
 */
enum {
	CCAAS_A_RULE_UNSPEC,
	CCAAS_A_RULE_LOCALITY,		/* u8: enum ccaas_locality */
	CCAAS_A_RULE_REGION,		/* u32: destination region */
	CCAAS_A_RULE_DC,		/* u32: destination DC */
	CCAAS_A_RULE_LOCAL_ADDR,	/* binary: local prefix, 4 or 16 bytes */
	CCAAS_A_RULE_LOCAL_PREFIXLEN,	/* u8 */
	CCAAS_A_RULE_CCA,		/* string: CCA name */
	CCAAS_A_RULE_PARAM,		/* nest (multi): CCAAS_A_PARAM_* */
	CCAAS_A_RULE_MIN_RTO_US,	/* u32: minimum RTO, microseconds */
	CCAAS_A_RULE_INIT_CWND,		/* u32: initial cwnd, packets */
	CCAAS_A_RULE_TSO_SEGS,		/* u32: minimum TSO segments */
	CCAAS_A_RULE_CGROUP,		/* string: cgroup v2 path; it and those below */
	CCAAS_A_RULE_PORT_MIN,		/* u16: service port range, first */
	CCAAS_A_RULE_PORT_MAX,		/* u16: and last (default: the first) */
	CCAAS_A_RULE_CGROUP_ID,		/* u64: dumps: the id of the cgroup at the path */

	__CCAAS_A_RULE_MAX,
	CCAAS_A_RULE_MAX = (__CCAAS_A_RULE_MAX - 1)
};

/* A policy generation and the options of a policy change. */
enum {
	CCAAS_A_POLICY_UNSPEC,
	CCAAS_A_POLICY_GENERATION,	/* u32 */
	CCAAS_A_POLICY_ORIGIN,		/* u8: enum ccaas_policy_origin */
	CCAAS_A_POLICY_FROM,		/* u32: generation a rollback restored */
	CCAAS_A_POLICY_TIME,		/* u64: commit time, ns since the epoch */
	CCAAS_A_POLICY_NRULES,		/* u32 */
	CCAAS_A_POLICY_RULE,		/* nest (multi): CCAAS_A_RULE_* */
	CCAAS_A_POLICY_DRY_RUN,		/* flag: validate only, commit nothing */
	CCAAS_A_POLICY_NO_MIGRATE,	/* flag: leave existing connections */
	CCAAS_A_POLICY_FORCE,		/* flag: migrate despite sticky ECN */
	CCAAS_A_POLICY_UNCHANGED,	/* flag (reply): rules already in force */

	__CCAAS_A_POLICY_MAX,
	CCAAS_A_POLICY_MAX = (__CCAAS_A_POLICY_MAX - 1)
};

/* Counts of one migration pass, and what it was asked to do. */
enum {
	CCAAS_A_MIGRATE_UNSPEC,
	CCAAS_A_MIGRATE_FORCE,		/* flag: ignore the sticky-ECN rule */
	CCAAS_A_MIGRATE_CCA,		/* string: drain: the CCA to empty */
	CCAAS_A_MIGRATE_TO,		/* string: drain: where its sockets go */
	CCAAS_A_MIGRATE_EXAMINED,	/* u32: connections (SYN_SENT to LAST_ACK), listeners */
	CCAAS_A_MIGRATE_MIGRATED,	/* u32: moved to another CCA */
	CCAAS_A_MIGRATE_UNCHANGED,	/* u32: already on the right CCA */
	CCAAS_A_MIGRATE_REFUSED,	/* u32: refused by the sticky-ECN rule */
	CCAAS_A_MIGRATE_SKIPPED_BPF,	/* u32: owned by a BPF CCA */
	CCAAS_A_MIGRATE_SKIPPED_PINNED,	/* u32: CCA set by the app or route lock */
	CCAAS_A_MIGRATE_NO_RULE,	/* u32: no rule applies, left alone */
	CCAAS_A_MIGRATE_GENERATION,	/* u32: policy generation applied */
	CCAAS_A_MIGRATE_ERRORS,		/* u32: not moved, target CCA going away */
	CCAAS_A_MIGRATE_LISTENERS,	/* u32: of those examined, listeners */
	CCAAS_A_MIGRATE_BUSY,		/* u32: not moved, a task kept it locked */

	__CCAAS_A_MIGRATE_MAX,
	CCAAS_A_MIGRATE_MAX = (__CCAAS_A_MIGRATE_MAX - 1)
};

/* One TCP connection as `ccactl sock show` lists it. */
enum {
	CCAAS_A_SOCK_UNSPEC,
	CCAAS_A_SOCK_COOKIE,		/* u64: socket cookie (as ss -e shows) */
	CCAAS_A_SOCK_FAMILY,		/* u8: AF_INET or AF_INET6 */
	CCAAS_A_SOCK_SADDR,		/* binary: 4 or 16 bytes */
	CCAAS_A_SOCK_DADDR,		/* binary: 4 or 16 bytes */
	CCAAS_A_SOCK_SPORT,		/* u16, host order */
	CCAAS_A_SOCK_DPORT,		/* u16, host order */
	CCAAS_A_SOCK_CCA,		/* string: current CCA */
	CCAAS_A_SOCK_POLICY_CCA,	/* string: CCA the policy gives it */
	CCAAS_A_SOCK_GENERATION,	/* u32: policy generation that chose it */
	CCAAS_A_SOCK_LOCALITY,		/* u8: enum ccaas_locality */
	CCAAS_A_SOCK_REGION,		/* u32 */
	CCAAS_A_SOCK_DC,		/* u32 */
	CCAAS_A_SOCK_ECN,		/* u8: 1 if ECN was negotiated */
	CCAAS_A_SOCK_PINNED,		/* u8: 1 if the app or a route lock chose the CCA */
	CCAAS_A_SOCK_MIN_RTO_US,	/* u32: the socket's minimum RTO */
	CCAAS_A_SOCK_INIT_CWND,		/* u32: initial cwnd the policy set, if any */
	CCAAS_A_SOCK_TSO_SEGS,		/* u32: TSO segment floor, if any */
	CCAAS_A_SOCK_LOGGED,		/* u8: 1 if ccalog reports the connection */
	CCAAS_A_SOCK_ECN_MODE,		/* u8: enum ccaas_ecn_mode */
	CCAAS_A_SOCK_CGROUP_ID,		/* u64: the socket's cgroup v2 id */
	CCAAS_A_SOCK_RULE,		/* u32: the rule's position in the generation */
	CCAAS_A_SOCK_SERVER_PORT,	/* u16: the port a port match compares */

	__CCAAS_A_SOCK_MAX,
	CCAAS_A_SOCK_MAX = (__CCAAS_A_SOCK_MAX - 1)
};

/*
 * The ccalog selection: which connections the ccalog tracepoints report.
 * Requests carry CCAAS_A_LOG_COOKIE (repeated) or CCAAS_A_LOG_ALL.
 */
enum {
	CCAAS_A_LOG_UNSPEC,
	CCAAS_A_LOG_COOKIE,		/* u64 (multi): a socket cookie */
	CCAAS_A_LOG_ALL,		/* flag: every connection of the namespace */
	CCAAS_A_LOG_ENTRY,		/* nest (multi, reply): COOKIE, LIVE */
	CCAAS_A_LOG_LIVE,		/* u8 (reply): the cookie's connection is open */
	CCAAS_A_LOG_LOGGING,		/* u32 (reply): connections reported now */
	CCAAS_A_LOG_OTHER_CCA,		/* u32 (reply): selected, on a CCA without ccalog */
	CCAAS_A_LOG_STOPPED,		/* u32 (reply): no longer reported */
	CCAAS_A_LOG_MAX_COOKIES,	/* u32 (reply): cookies a namespace may select */

	__CCAAS_A_LOG_MAX,
	CCAAS_A_LOG_MAX = (__CCAAS_A_LOG_MAX - 1)
};

/*
 * STATS_GET, a dump: the first message has the namespace's counters (since
 * the core was loaded or the namespace created) and its established
 * sockets per CCA; then one message per rule of the generation in force,
 * each with GENERATION and a RULE nest.
 */
enum {
	CCAAS_A_STATS_UNSPEC,
	CCAAS_A_STATS_GENERATION,	/* u32: the generation the walk used */
	CCAAS_A_STATS_SOCKETS,		/* u32: established sockets */
	CCAAS_A_STATS_NO_RULE,		/* u32: of those, matched by no rule */
	CCAAS_A_STATS_SELECTED,		/* u64: connections the selector placed */
	CCAAS_A_STATS_LISTENERS_SELECTED, /* u64: listeners it placed */
	CCAAS_A_STATS_MIGRATED,		/* u64: sockets migrations moved */
	CCAAS_A_STATS_DRAINED,		/* u64: sockets drains moved */
	CCAAS_A_STATS_REFUSED,		/* u64: moves the sticky-ECN rule refused */
	CCAAS_A_STATS_ERRORS,		/* u64: moves that failed */
	CCAAS_A_STATS_MIGRATIONS,	/* u64: migration passes */
	CCAAS_A_STATS_DRAINS,		/* u64: drain passes */
	CCAAS_A_STATS_CCA,		/* nest (multi): CCAAS_A_STATS_CCA_* */
	CCAAS_A_STATS_RULE,		/* nest: CCAAS_A_STATS_RULE_* */

	__CCAAS_A_STATS_MAX,
	CCAAS_A_STATS_MAX = (__CCAAS_A_STATS_MAX - 1)
};

/* Established sockets on one CCA. */
enum {
	CCAAS_A_STATS_CCA_UNSPEC,
	CCAAS_A_STATS_CCA_NAME,		/* string */
	CCAAS_A_STATS_CCA_SOCKETS,	/* u32 */

	__CCAAS_A_STATS_CCA_MAX,
	CCAAS_A_STATS_CCA_MAX = (__CCAAS_A_STATS_CCA_MAX - 1)
};

/*
 * The established sockets one rule matches, by where they are: the first
 * of these that holds counts.
 */
enum {
	CCAAS_A_STATS_RULE_UNSPEC,
	CCAAS_A_STATS_RULE_INDEX,	/* u32: position in the generation */
	CCAAS_A_STATS_RULE_CCA,		/* string: the rule's CCA */
	CCAAS_A_STATS_RULE_SOCKETS,	/* u32: sockets the rule matches */
	CCAAS_A_STATS_RULE_ON_CCA,	/* u32: on the rule's CCA */
	CCAAS_A_STATS_RULE_FALLBACK,	/* u32: on that CCA's fallback ops */
	CCAAS_A_STATS_RULE_BPF,		/* u32: on a BPF CCA */
	CCAAS_A_STATS_RULE_PINNED,	/* u32: the app or a route lock chose */
	CCAAS_A_STATS_RULE_REFUSED,	/* u32: kept off it by sticky ECN, elsewhere */
	CCAAS_A_STATS_RULE_OTHER,	/* u32: elsewhere; a migration moves them */
	CCAAS_A_STATS_RULE_HELD,	/* u32: kept off it, on the ECN holder */

	__CCAAS_A_STATS_RULE_MAX,
	CCAAS_A_STATS_RULE_MAX = (__CCAAS_A_STATS_RULE_MAX - 1)
};

enum {
	CCAAS_CMD_UNSPEC,
	CCAAS_CMD_CCA_GET,		/* do: one CCA by CCAAS_A_CCA_NAME; dump: all */
	CCAAS_CMD_SCOPE_ADD,		/* add or replace one entry */
	CCAAS_CMD_SCOPE_DEL,		/* delete one entry (ADDR, PREFIXLEN) */
	CCAAS_CMD_SCOPE_GET,		/* do: look ADDR up; dump: the table */
	CCAAS_CMD_SCOPE_FLUSH,		/* empty the table */
	CCAAS_CMD_SCOPE_LOAD,		/* replace the table with the ENTRY nests */
	CCAAS_CMD_POLICY_SET,		/* add or replace one rule */
	CCAAS_CMD_POLICY_DEL,		/* delete the rule with the same match */
	CCAAS_CMD_POLICY_GET,		/* do: a generation's header; dump: with its rules */
	CCAAS_CMD_POLICY_HISTORY,	/* dump: the kept generations */
	CCAAS_CMD_POLICY_ROLLBACK,	/* re-commit GENERATION as a new one */
	CCAAS_CMD_POLICY_APPLY,		/* replace every rule with the RULE nests */
	CCAAS_CMD_MIGRATE,		/* re-apply the policy to existing sockets */
	CCAAS_CMD_CCA_DRAIN,		/* move every socket off a CCA */
	CCAAS_CMD_SOCK_GET,		/* dump: established TCP sockets */
	CCAAS_CMD_POLICY_NTF,		/* notification: a policy commit */
	CCAAS_CMD_MIGRATE_NTF,		/* notification: a migration pass */
	CCAAS_CMD_LOG_ADD,		/* select connections for ccalog */
	CCAAS_CMD_LOG_DEL,		/* deselect them */
	CCAAS_CMD_LOG_GET,		/* the selection */
	CCAAS_CMD_STATS_GET,		/* dump: counters, sockets per CCA and rule */

	__CCAAS_CMD_MAX,
	CCAAS_CMD_MAX = (__CCAAS_CMD_MAX - 1)
};

#endif /* _UAPI_LINUX_CCAAS_H */
