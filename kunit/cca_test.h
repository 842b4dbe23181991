/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the KUnit suites that drive a registered CCA share: its ops, and a
 * bare tcp_sock set up as a fresh connection after the handshake.
 */
#ifndef _CCAAS_KUNIT_CCA_TEST_H
#define _CCAAS_KUNIT_CCA_TEST_H

#include <kunit/test.h>
#include <net/net_namespace.h>
#include <net/tcp.h>

#include <ccaas/ccaas.h>

/* The registered CCA @name; the test stops if there is none. */
static inline const struct ccaas_cca *cca_test_lookup(struct kunit *test,
						      const char *name)
{
	const struct ccaas_cca *cca = ccaas_cca_lookup(name);

	KUNIT_ASSERT_NOT_NULL_MSG(test, cca, "%s is not registered", name);
	return cca;
}

/*
 * The socket lock of a test socket, initialised as sock_init_data() does,
 * with lockdep classes of the tests' own; but not through
 * sock_lock_init_class_and_name(), which on lockdep kernels pins the
 * calling module (sk_owner_set()) until sk_free(), which a test socket
 * never reaches.
 */
static inline void cca_test_sock_lock_init(struct sock *sk)
{
	static struct lock_class_key slock_key, lock_key;

	sk->sk_lock.owned = 0;
	init_waitqueue_head(&sk->sk_lock.wq);
	spin_lock_init(&sk->sk_lock.slock);
	lockdep_set_class_and_name(&sk->sk_lock.slock, &slock_key,
				   "slock-ccaas-kunit");
	lockdep_init_map(&sk->sk_lock.dep_map, "sk_lock-ccaas-kunit",
			 &lock_key, 0);
}

/*
 * Run @call on @sk with the socket held as the stack holds it when it calls
 * a CCA: bh_lock_sock() in softirq (a passive open's init(), every ACK).
 * Lockdep checks it (__sk_dst_get() in init() and tcp_cwnd_restart()),
 * and DEBUG_ATOMIC_SLEEP catches a callback that could sleep.
 */
#define cca_test_locked(sk, call)				\
	do {							\
		spinlock_t *__slock = &(sk)->sk_lock.slock;	\
								\
		spin_lock_bh(__slock);				\
		call;						\
		spin_unlock_bh(__slock);			\
	} while (0)

/* The CCA's init() on @sk, called as the stack does (cca_test_locked()). */
static inline void cca_test_init(struct sock *sk,
				 const struct tcp_congestion_ops *ops)
{
	cca_test_locked(sk, ops->init(sk));
}

/*
 * @tp as a fresh IPv4 connection in init_net (CCA init asks the
 * namespace's ccalog selection): established, MSS @mss, cwnd @cwnd, no
 * ssthresh yet, nothing sent, its lock initialised. The rest is left as
 * it is.
 */
static inline void cca_test_sock_init(struct tcp_sock *tp, u32 mss, u32 cwnd)
{
	struct sock *sk = (struct sock *)tp;

	cca_test_sock_lock_init(sk);
	sk->sk_family = AF_INET;
	sk->sk_type = SOCK_STREAM;
	sk->sk_protocol = IPPROTO_TCP;
	sk->sk_state = TCP_ESTABLISHED;
	write_pnet(&sk->sk_net, &init_net);
	tp->mss_cache = mss;
	tp->snd_ssthresh = TCP_INFINITE_SSTHRESH;
	tp->snd_cwnd_clamp = ~0U;
	tcp_snd_cwnd_set(tp, cwnd);
	tp->snd_una = 1;
	tp->snd_nxt = 1;
}

/* A zeroed tcp_sock the test owns, set up by cca_test_sock_init(). */
static inline struct tcp_sock *cca_test_sock(struct kunit *test, u32 mss,
					     u32 cwnd)
{
	struct tcp_sock *tp = kunit_kzalloc(test, sizeof(*tp), GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, tp);
	cca_test_sock_init(tp, mss, cwnd);
	return tp;
}

/*
 * The retransmission timer fires on @sk, as tcp_retransmit_timer() handles
 * it: first the stack's own tcp_enter_loss() (exported by the sanitizer
 * kernel, scripts/debug-kernel/kunit-exports.c). It begins with
 * tcp_timeout_mark_lost(), which walks the retransmit queue and marks lost
 * every packet not SACKed (with RACK, all but those sent too recently to
 * have timed out: none, in these tests' flights); a test socket has no
 * skbs, so the counters it leaves are set here first. Then, in the stack's
 * order, unless a reduction of this window is under way (CWR or Recovery
 * before high_seq is acknowledged): ssthresh() and cwnd_event(CA_EVENT_LOSS);
 * always cwnd = packets in flight + 1 (one) and tcp_set_ca_state(Loss)
 * (set_state() first).
 *
 * Then the timer retransmits the head. tcp_transmit_skb() ->
 * tcp_event_data_sent() sends CA_EVENT_TX_START when nothing is in flight
 * (everything was just marked lost, so this is the usual case) and stamps
 * lsndtime, before the retransmission is counted; the last send was one
 * RTO before (the suites' sends do not stamp lsndtime, so it is set so
 * here first: the gap CA_EVENT_TX_START sees does not depend on uptime).
 * The retransmission itself is not counted (retrans_out stays 0): the
 * suites' ACK helpers do not track retransmissions, so one in flight would
 * never leave. Last, tcp_update_rto_stats() counts the timeout
 * (icsk_retransmits), so that a second call before an ACK moves snd_una
 * is a repeated timeout of the same episode, as in the stack.
 */
static inline void cca_test_enter_loss(struct sock *sk)
{
	struct inet_connection_sock *icsk = inet_csk(sk);
	struct tcp_sock *tp = tcp_sk(sk);

	tp->lost_out = tp->packets_out - tp->sacked_out;
	tp->retrans_out = 0;
	tcp_enter_loss(sk);
	tp->lsndtime = tcp_jiffies32 - icsk->icsk_rto;
	if (!tcp_packets_in_flight(tp))
		tcp_ca_event(sk, CA_EVENT_TX_START);
	tp->lsndtime = tcp_jiffies32;
	icsk->icsk_retransmits++;
}

/*
 * The other way into Loss: an ICMP "fragmentation needed" makes
 * tcp_simple_retransmit() mark lost the packets above the new MSS (@lost
 * here), then tcp_non_congestion_loss_retransmit() (static; this is its
 * body) enters Loss without a reduction: no ssthresh(), no event, cwnd
 * untouched.
 */
static inline void cca_test_mtu_loss(struct sock *sk, u32 lost)
{
	struct tcp_sock *tp = tcp_sk(sk);

	tp->lost_out += lost;
	tp->high_seq = tp->snd_nxt;
	tp->snd_ssthresh = tcp_current_ssthresh(sk);
	tp->prior_ssthresh = 0;
	tp->undo_marker = 0;
	tcp_set_ca_state(sk, TCP_CA_Loss);
}

/*
 * An ACK makes tcp_fastretrans_alert() start fast recovery on @sk: the
 * stack's own tcp_enter_recovery(). Unless a reduction is already under
 * way (CWR), it records the window (prior_cwnd, high_seq, the PRR counts)
 * and asks ssthresh() (tcp_init_cwnd_reduction()); then
 * tcp_set_ca_state(Recovery), set_state() first. @ece_ack: the ACK that
 * shows the loss also carries ECE. In tcp_ack() this comes after
 * in_ack_event() and the ACK's delivered and CE counts
 * (tcp_clean_rtx_queue()), and before cong_control(). The per-CCA suites
 * call it before the ACK helper that moves those counts and then calls
 * cong_control(): none of their ssthresh() reads the ACK's counts (the
 * ones that do, cca_hpcc's on ECN, are driven in the stack's order by
 * their own ACK helpers), and the differential suite's mirror
 * (tcp_mirror.h) keeps the exact order.
 */
static inline void cca_test_enter_recovery(struct sock *sk, bool ece_ack)
{
	tcp_enter_recovery(sk, ece_ack);
}

#endif /* _CCAAS_KUNIT_CCA_TEST_H */
