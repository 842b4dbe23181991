/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Moving sockets between CCAs: the primitives the selector (new
 * connections), the migrator (existing ones) and `cca drain` share.
 */
#ifndef _CCAAS_SOCK_H
#define _CCAAS_SOCK_H

#include <net/sock.h>
#include <net/tcp.h>
#include <uapi/linux/ccaas.h>

#include "policy.h"	/* enum ccaas_side */

struct ccaas_net;
struct ccaas_rule;
struct ccaas_scope_result;
struct ccaas_policy_gen;
struct genl_info;
struct netlink_callback;

/* Why a socket was not moved; also indexes struct ccaas_migrate_stats. */
enum ccaas_move {
	CCAAS_MOVE_MIGRATED,
	CCAAS_MOVE_UNCHANGED,
	CCAAS_MOVE_REFUSED,		/* sticky ECN */
	CCAAS_MOVE_SKIPPED_BPF,
	CCAAS_MOVE_SKIPPED_PINNED,	/* application or route chose the CCA */
	CCAAS_MOVE_NO_RULE,
	CCAAS_MOVE_ERROR,		/* module going away */
	CCAAS_MOVE_BUSY,		/* a task kept the socket's lock */
	__CCAAS_MOVE_MAX,
};

struct ccaas_migrate_stats {
	u32 examined;
	u32 listeners;			/* of those examined */
	u32 count[__CCAAS_MOVE_MAX];
	u32 generation;
};

/* Who moves a socket (ccalog_switch's reason field). */
enum ccaas_switch_reason {
	CCALOG_SWITCH_SELECT,		/* selector: a new connection */
	CCALOG_SWITCH_MIGRATE,		/* migration to the current policy */
	CCALOG_SWITCH_DRAIN,		/* `cca drain` */
};

/* The ECN feedback @tp negotiated, as an enum ccaas_ecn_mode. */
static inline u8 ccaas_tcp_ecn_mode(const struct tcp_sock *tp)
{
#ifdef CCAAS_HAVE_TCP_ECN_MODE
	if (tcp_ecn_mode_pending(tp))
		return CCAAS_ECN_MODE_PENDING;
	if (tcp_ecn_mode_accecn(tp))
		return CCAAS_ECN_MODE_ACCECN;
	if (tcp_ecn_mode_rfc3168(tp))
		return CCAAS_ECN_MODE_RFC3168;
	return CCAAS_ECN_MODE_OFF;
#else
	return ccaas_tcp_ecn_ok(tp) ? CCAAS_ECN_MODE_RFC3168 :
				      CCAAS_ECN_MODE_OFF;
#endif
}

/* switch.c */
bool ccaas_sk_pinned(const struct sock *sk);
bool ccaas_sk_route_cc(const struct sock *sk);
void ccaas_sk_apply_rule_rto(struct sock *sk, const struct ccaas_rule *rule);
void ccaas_sk_route_took_over(struct sock *sk);
bool ccaas_ops_on_cca(const struct tcp_congestion_ops *cur,
		      const struct tcp_congestion_ops *want);
bool ccaas_ecn_allows(const struct sock *sk,
		      const struct tcp_congestion_ops *ops);
bool ccaas_ecn_compatible(const struct sock *sk,
			  const struct tcp_congestion_ops *ops);
bool ccaas_ops_bpf(const struct tcp_congestion_ops *ops);
int ccaas_sk_switch(struct sock *sk, const struct tcp_congestion_ops *ops,
		    const struct ccaas_rule *rule, u32 generation, bool reinit,
		    u8 reason);
u32 ccaas_sk_generation(const struct sock *sk);
void ccaas_sk_apply_rule(struct sock *sk, const struct ccaas_rule *rule,
			 u32 generation);
void ccaas_sk_scope(struct ccaas_net *cn, const struct sock *sk,
		    struct ccaas_scope_result *res);

/*
 * The states of a TCP socket that holds a CCA and its module reference,
 * listeners aside: from SYN_SENT (assigned at connect, initialised at
 * ESTABLISHED) and SYN_RECV (a Fast Open child) to LAST_ACK. TIME_WAIT and
 * request sockets hold none.
 */
#define CCAAS_CONN_STATES	(TCPF_SYN_SENT | TCPF_SYN_RECV |		\
				 TCPF_ESTABLISHED | TCPF_FIN_WAIT1 |		\
				 TCPF_FIN_WAIT2 | TCPF_CLOSE_WAIT |		\
				 TCPF_CLOSING | TCPF_LAST_ACK)

/*
 * walk.c: @fn runs in process context, with a reference on the socket and
 * no spinlock held (the caller may hold mutexes: genl's cb_lock and the
 * namespace's); it may sleep, but must not wait for the socket's owner:
 * it returns false if a task owns the socket (sock_owned_by_user()), and
 * the walk offers it again a few times, briefly. @states: TCPF_* of the
 * sockets wanted (TCPF_LISTEN: listeners, which are in the listening hash).
 * Returns how many sockets stayed owned by a task through every offer.
 */
typedef bool (*ccaas_sock_fn)(struct sock *sk, void *arg);
unsigned int ccaas_walk_sockets(struct net *net, u32 states, ccaas_sock_fn fn,
				void *arg);

/* migrate.c: a pass over the connections and listeners; cannot fail. */
void ccaas_migrate(struct net *net, bool force,
		   struct ccaas_migrate_stats *stats);
void ccaas_drain(struct net *net, const struct tcp_congestion_ops *from,
		 const struct tcp_congestion_ops *to,
		 const struct tcp_congestion_ops *fallback, bool force,
		 struct ccaas_migrate_stats *stats);

/* ccalog.c: @sk's cookie (as `ss -e` shows it), made if it has none. */
u64 ccaas_sk_cookie(const struct sock *sk);

/* sock_nl.c: netlink handlers and their attribute policies */
extern const struct nla_policy ccaas_migrate_policy[];
extern const struct nla_policy ccaas_sock_get_policy[];
int ccaas_nl_migrate_doit(struct sk_buff *skb, struct genl_info *info);
int ccaas_nl_cca_drain_doit(struct sk_buff *skb, struct genl_info *info);
int ccaas_nl_sock_get_dumpit(struct sk_buff *skb, struct netlink_callback *cb);

/* selector.c */
const struct tcp_congestion_ops *
ccaas_ecn_child_cca(const struct ccaas_policy_gen *gen, const struct sock *sk,
		    enum ccaas_side side, bool fresh);
const struct tcp_congestion_ops *
ccaas_listener_ops(const struct ccaas_policy_gen *gen, const struct sock *sk);
int ccaas_selector_init(void);
void ccaas_selector_exit(void);

#endif /* _CCAAS_SOCK_H */
