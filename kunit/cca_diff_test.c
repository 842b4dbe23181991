// SPDX-License-Identifier: GPL-2.0
/*
 * Differential tests: a ccaas CCA and its in-tree peer, on two connections
 * that see the same path events through the stack's own dispatch
 * (<tcp_mirror.h>), must follow the same cwnd, ssthresh and ca_state, step
 * by step.
 *
 * cca_dctcp against dctcp, with ECN negotiated: slow start, CE marks, fast
 * recovery, a retransmission timeout, undo after reordering and after a
 * spurious timeout, restart after idle; and without ECN, where both fall
 * back to Reno (cca_dctcp-reno, dctcp-reno).
 *
 * cca_cubic against cubic, without ECN, where they must agree exactly, in
 * every phase: slow start, HyStart's two exits (an ACK train as long as
 * half the RTT; RTT samples above the least by an eighth) and the cases
 * where it must not exit (the least RTT falling, a window below
 * hystart_low_window), an exit once the RTT rises over a least RTT that
 * followed it down, the reduction of fast recovery and of a timeout,
 * the whole curve after a loss (concave, plateau, convex),
 * slow start back to ssthresh and congestion avoidance after each (with an
 * ACK per two packets, and per packet), undo, restart after idle. The
 * flows' clock moves jiffies and tcp_mstamp (tcp_mirror.h), so the cubic
 * curve and HyStart run as on a real path. The one intended difference,
 * ECN (cca_cubic answers CE marks in proportion, cubic as to a loss), is
 * cca_cubic_test.c's.
 */
#include <kunit/test.h>
#include <net/tcp.h>

#include "tcp_mirror.h"

/* 3.5 RTOs (RTO = 1 s): tcp_cwnd_restart() halves cwnd three times. */
#define DIFF_IDLE	(7 * HZ / 2)

/* Round trips of congestion avoidance after a reduction. */
#define DIFF_CA_ROUNDS	30

typedef void (*diff_script)(struct tm_flow *f);

/*
 * Run @script on a connection on @ref and on one on @cca, and compare.
 * Returns the reference's flow, for the test to check that the script
 * did take it where it meant to.
 */
static struct tm_flow *diff(struct kunit *test, const char *ref,
			    const char *cca, bool ecn, u32 ssthresh,
			    diff_script script)
{
	struct tm_flow *a = tm_flow(test, ref, ecn, TCP_INIT_CWND, ssthresh);
	struct tm_flow *b = tm_flow(test, cca, ecn, TCP_INIT_CWND, ssthresh);

	tm_run(a, script);
	tm_run(b, script);
	tm_expect_same(test, a, b);
	return a;
}

/* A counter of init_net's TcpExt MIB (the flows' namespace). */
static unsigned long mib(int field)
{
	return snmp_fold_field(init_net.mib.net_statistics, field);
}

/* HyStart's exits while a diff ran, by test (TcpExtTCPHystart*Detect). */
struct hs_exits {
	unsigned long train;
	unsigned long delay;
};

/* diff() of cubic and cca_cubic from slow start, counting HyStart's exits */
static struct tm_flow *diff_hystart(struct kunit *test, diff_script script,
				    struct hs_exits *n)
{
	unsigned long train = mib(LINUX_MIB_TCPHYSTARTTRAINDETECT);
	unsigned long delay = mib(LINUX_MIB_TCPHYSTARTDELAYDETECT);
	struct tm_flow *f;

	f = diff(test, "cubic", "cca_cubic", false, TCP_INFINITE_SSTHRESH,
		 script);
	n->train = mib(LINUX_MIB_TCPHYSTARTTRAINDETECT) - train;
	n->delay = mib(LINUX_MIB_TCPHYSTARTDELAYDETECT) - delay;
	return f;
}

/* Did @f's trace pass through @state? */
static bool saw_state(const struct tm_flow *f, u8 state)
{
	u32 i;

	for (i = 0; i < f->steps; i++)
		if (f->trace[i].ca_state == state)
			return true;
	return false;
}

/* The largest cwnd of @f's trace. */
static u32 max_cwnd(const struct tm_flow *f)
{
	u32 i, m = 0;

	for (i = 0; i < f->steps; i++)
		m = max(m, f->trace[i].cwnd);
	return m;
}

/* The largest cwnd of @f's trace while ssthresh was still unset. */
static u32 max_cwnd_unbounded(const struct tm_flow *f)
{
	u32 i, m = 0;

	for (i = 0; i < f->steps; i++)
		if (f->trace[i].ssthresh == TCP_INFINITE_SSTHRESH)
			m = max(m, f->trace[i].cwnd);
	return m;
}

/* The least cwnd of @f's trace in phase @name. */
static u32 min_cwnd_in(const struct tm_flow *f, const char *name)
{
	u32 i, m = U32_MAX;

	for (i = 0; i < f->steps; i++)
		if (!strcmp(f->phases[f->trace[i].phase].name, name))
			m = min(m, f->trace[i].cwnd);
	return m;
}

/* --- scripts ------------------------------------------------------------ */

static void slow_start(struct tm_flow *f)
{
	tm_phase(f, "slow start", 0);
	tm_rounds(f, 4);
}

/* ssthresh 40 from the route: slow start, then CA under CE marks. */
static void ce_marks(struct tm_flow *f)
{
	tm_phase(f, "slow start", 0);
	tm_rounds(f, 2);
	tm_phase(f, "one in twenty marked", 0);
	tm_marks(f, 1, 20);
	tm_rounds(f, 30);
	tm_phase(f, "all marked", 0);
	tm_marks(f, 1, 1);
	tm_rounds(f, 4);
	tm_phase(f, "a quarter marked", 0);
	tm_marks(f, 1, 4);
	tm_rounds(f, 10);
	tm_phase(f, "no marks", 0);
	tm_marks(f, 0, 1);
	tm_rounds(f, 10);
}

/* A loss: fast recovery, and its end, exactly. */
static void recovery(struct tm_flow *f)
{
	tm_phase(f, "recovery", 0);
	tm_drop(f, 0, 1);
	tm_arrive_until(f, tm_in_recovery);
	tm_arrive_until(f, tm_is_open);
}

/* Slow start to 40, one loss, then congestion avoidance for @rounds. */
static void one_loss(struct tm_flow *f, u32 rounds)
{
	tm_phase(f, "slow start", 0);
	tm_rounds(f, 2);
	recovery(f);
	tm_phase(f, "after recovery", 0);
	tm_rounds(f, rounds);
}

static void loss_reno(struct tm_flow *f)
{
	one_loss(f, 3);
	/* Two losses in one window. */
	tm_phase(f, "two losses", 0);
	tm_drop(f, 3, 1);
	tm_drop(f, 10, 1);
	tm_rounds(f, 4);
}

static void loss_cubic(struct tm_flow *f)
{
	one_loss(f, DIFF_CA_ROUNDS);
}

/*
 * ssthresh 20 from the route, 120 unmarked rounds (alpha drains to 0),
 * then a timeout in which everything in flight was lost.
 */
static void rto_unmarked(struct tm_flow *f)
{
	tm_phase(f, "slow start", 0);
	tm_rounds(f, 1);
	tm_phase(f, "unmarked", 0);
	tm_rounds(f, 120);
	tm_phase(f, "timeout", 0);
	tm_rto(f, true);
	tm_phase(f, "after the timeout", 0);
	tm_rounds(f, 10);
}

/* Slow start for @ss rounds, a timeout, slow start back to ssthresh, CA. */
static void rto(struct tm_flow *f, u32 ss, u32 rounds)
{
	tm_phase(f, "slow start", 0);
	tm_rounds(f, ss);
	tm_phase(f, "timeout", 0);
	tm_rto(f, true);
	tm_phase(f, "slow start to ssthresh", 0);
	tm_arrive_until(f, tm_at_ssthresh);
	tm_phase(f, "after the timeout", 0);
	tm_rounds(f, rounds);
}

static void rto_reno(struct tm_flow *f)
{
	rto(f, 2, 3);
}

static void rto_cubic(struct tm_flow *f)
{
	rto(f, 2, DIFF_CA_ROUNDS);
}

/*
 * The receiver ACKs every packet: a timeout at cwnd 10 (ssthresh 7), slow
 * start back to 7, then congestion avoidance, where cubic's friendliness
 * and curve decide each ACK's growth.
 */
static void rto_ack_every_packet(struct tm_flow *f)
{
	f->ack_every = 1;
	rto(f, 0, DIFF_CA_ROUNDS);
}

/*
 * A reordered packet starts fast recovery; the original arrives, then the
 * retransmission's D-SACK undoes the reduction. Then a timeout that was
 * spurious (the flight was only late): slow start to ssthresh, and the
 * D-SACKs of the retransmissions undo it (cwnd within @tol meanwhile).
 */
static void undo(struct tm_flow *f, u32 rounds)
{
	tm_phase(f, "slow start", 0);
	tm_rounds(f, 2);
	tm_phase(f, "reordering", 0);
	tm_delay_head(f, 12);
	tm_rounds(f, 2);
	tm_phase(f, "spurious timeout", 0);
	tm_rto(f, false);
	tm_arrive_until(f, tm_at_ssthresh);
	tm_phase(f, "until undone", 0);
	tm_rounds(f, rounds);
}

static void undo_reno(struct tm_flow *f)
{
	undo(f, 3);
}

/* undone back to slow start: three round trips of it */
static void undo_cubic(struct tm_flow *f)
{
	undo(f, 3);
}

/* ssthresh 30: slow start, CA, idle 3.5 RTOs, restart. */
static void idle_reno(struct tm_flow *f)
{
	tm_phase(f, "slow start", 0);
	tm_rounds(f, 2);
	tm_phase(f, "congestion avoidance", 0);
	tm_rounds(f, 4);
	tm_phase(f, "idle", 0);
	tm_idle(f, DIFF_IDLE);
	tm_phase(f, "restart", 0);
	tm_app_write(f);
	tm_rounds(f, 6);
}

/*
 * Cubic's epoch runs (a loss, then CA) when the connection goes idle; after
 * the restart, slow start back to ssthresh, and the curve must go on where
 * it was: CA_EVENT_TX_START shifts it by the idle time.
 */
static void idle_cubic(struct tm_flow *f)
{
	one_loss(f, DIFF_CA_ROUNDS);
	tm_phase(f, "idle", 0);
	tm_idle(f, DIFF_IDLE);
	tm_phase(f, "restart", 0);
	tm_app_write(f);
	tm_arrive_until(f, tm_at_ssthresh);
	tm_phase(f, "after the restart", 0);
	tm_rounds(f, DIFF_CA_ROUNDS);
}

/*
 * HyStart's ACK train: a 10 ms path whose bottleneck sends a packet every
 * 400 us (25 packets a round trip). With an ACK per two packets they come
 * 800 us apart, within hystart_ack_delta_us (2 ms); once a round's ACKs
 * have come for more than half the least RTT (5 ms), slow start ends, the
 * window at least hystart_low_window (16). Then congestion avoidance.
 */
static void hystart_train(struct tm_flow *f)
{
	tm_path(f, 10000, 400);
	/*
	 * A pacing rate, as the stack keeps one (20 Mbit/s), and a GSO size:
	 * HyStart's cushion for TSO and GRO, min(1 ms, 4 * 64 KB / rate)
	 */
	f->sk->sk_pacing_rate = 2500000;
	f->sk->sk_gso_max_size = 65536;
	tm_phase(f, "slow start", 0);
	tm_arrive_until(f, tm_at_ssthresh);
	tm_phase(f, "after HyStart", 0);
	tm_rounds(f, DIFF_CA_ROUNDS);
}

/*
 * HyStart's delay test: a 40 ms path, a packet every 1.5 ms at the
 * bottleneck (ACKs 3 ms apart: no train). The queue grows once the window
 * passes 27 packets; when the least of a round's first eight RTT samples
 * is 5 ms (an eighth) above the least RTT, slow start ends.
 */
static void hystart_delay(struct tm_flow *f)
{
	tm_path(f, 40000, 1500);
	tm_phase(f, "slow start", 0);
	tm_arrive_until(f, tm_at_ssthresh);
	tm_phase(f, "after HyStart", 0);
	tm_rounds(f, DIFF_CA_ROUNDS);
}

/*
 * No exit while the least RTT falls: no bottleneck (each round's ACKs come
 * at once, no train), and the base RTT drops from 30 to 10 ms after two
 * rounds; every sample is at the least RTT or below it. Then it rises to
 * 15 ms: above the new least by more than 4 ms, so slow start ends there,
 * for a CCA whose least RTT followed the fall (not from 30 ms).
 */
static void hystart_rtt_falls(struct tm_flow *f)
{
	tm_path(f, 30000, 0);
	tm_phase(f, "slow start, 30 ms", 0);
	tm_rounds(f, 2);
	tm_path(f, 10000, 0);
	tm_phase(f, "slow start, 10 ms", 0);
	tm_rounds(f, 3);
	tm_path(f, 15000, 0);
	tm_phase(f, "slow start, 15 ms", 0);
	tm_arrive_until(f, tm_at_ssthresh);
	tm_phase(f, "after HyStart", 0);
	tm_rounds(f, 3);
}

/*
 * The whole curve: a 100 ms path, slow start to 40, a loss (W_max 40, cwnd
 * 28: K = 3.1 s), then 7.5 s of congestion avoidance: concave up to the
 * plateau at W_max, flat, then convex beyond it.
 */
static void ca_whole_curve(struct tm_flow *f)
{
	tm_path(f, 100000, 0);
	one_loss(f, 75);
}

/*
 * No exit below hystart_low_window: a 4 ms path with a 1 ms bottleneck
 * (4 packets a round trip): from the first round the queue is longer than
 * the least RTT's eighth and the ACK trains longer than half of it, so
 * HyStart's tests hold from cwnd 10 on; it may end slow start only at 16.
 */
static void hystart_low(struct tm_flow *f)
{
	tm_path(f, 4000, 1000);
	tm_phase(f, "slow start", 0);
	tm_arrive_until(f, tm_at_ssthresh);
	tm_phase(f, "after HyStart", 0);
	tm_rounds(f, 5);
}

/* --- cca_dctcp against dctcp ---------------------------------------------- */

static void dctcp_slow_start(struct kunit *test)
{
	struct tm_flow *f;

	f = diff(test, "dctcp", "cca_dctcp", true, TCP_INFINITE_SSTHRESH,
		 slow_start);
	/* four round trips from 10 */
	KUNIT_EXPECT_EQ(test, max_cwnd(f), 160U);
}

static void dctcp_ce_marks(struct kunit *test)
{
	struct tm_flow *f = diff(test, "dctcp", "cca_dctcp", true, 40, ce_marks);

	KUNIT_EXPECT_TRUE(test, saw_state(f, TCP_CA_CWR));
	KUNIT_EXPECT_FALSE(test, saw_state(f, TCP_CA_Recovery));
}

static void dctcp_fast_recovery(struct kunit *test)
{
	struct tm_flow *f;

	f = diff(test, "dctcp", "cca_dctcp", true, TCP_INFINITE_SSTHRESH,
		 loss_reno);
	KUNIT_EXPECT_TRUE(test, saw_state(f, TCP_CA_Recovery));
	/* halved at the first loss (alpha does not matter) */
	KUNIT_EXPECT_EQ(test, min_cwnd_in(f, "after recovery"), 20U);
}

/* The timeout after alpha drained: dctcp halves ssthresh (CA_EVENT_LOSS). */
static void dctcp_timeout_unmarked(struct kunit *test)
{
	struct tm_flow *f = diff(test, "dctcp", "cca_dctcp", true, 20,
				 rto_unmarked);

	/* 120 round trips of Reno growth from 20, then half of that */
	KUNIT_EXPECT_EQ(test, max_cwnd(f), 140U);
	KUNIT_EXPECT_EQ(test, min_cwnd_in(f, "timeout"), 1U);
	KUNIT_EXPECT_EQ(test, f->tp->snd_ssthresh, 70U);
}

static void dctcp_timeout(struct kunit *test)
{
	struct tm_flow *f;

	f = diff(test, "dctcp", "cca_dctcp", true, TCP_INFINITE_SSTHRESH,
		 rto_reno);
	KUNIT_EXPECT_TRUE(test, saw_state(f, TCP_CA_Loss));
	KUNIT_EXPECT_EQ(test, f->tp->snd_ssthresh, 20U);
}

static void dctcp_undo(struct kunit *test)
{
	struct tm_flow *f;

	f = diff(test, "dctcp", "cca_dctcp", true, TCP_INFINITE_SSTHRESH,
		 undo_reno);
	KUNIT_EXPECT_TRUE(test, saw_state(f, TCP_CA_Recovery));
	KUNIT_EXPECT_TRUE(test, saw_state(f, TCP_CA_Loss));
	/* both reductions were undone: still in the first slow start */
	KUNIT_EXPECT_EQ(test, f->tp->snd_ssthresh, TCP_INFINITE_SSTHRESH);
}

static void dctcp_idle_restart(struct kunit *test)
{
	struct tm_flow *f = diff(test, "dctcp", "cca_dctcp", true, 30,
				 idle_reno);

	/* the restart window, then slow start to ssthresh 30 */
	KUNIT_EXPECT_EQ(test, min_cwnd_in(f, "restart"), TCP_INIT_CWND);
}

/* Without ECN both move to their Reno fallback. */
static void dctcp_fallback(struct kunit *test)
{
	struct tm_flow *f;

	f = diff(test, "dctcp", "cca_dctcp", false, TCP_INFINITE_SSTHRESH,
		 loss_reno);
	KUNIT_EXPECT_STREQ(test, inet_csk(f->sk)->icsk_ca_ops->name, "dctcp-reno");
	KUNIT_EXPECT_TRUE(test, saw_state(f, TCP_CA_Recovery));
	f = diff(test, "dctcp", "cca_dctcp", false, TCP_INFINITE_SSTHRESH,
		 rto_reno);
	KUNIT_EXPECT_TRUE(test, saw_state(f, TCP_CA_Loss));
}

/* --- cca_cubic against cubic ------------------------------------------------ */

static void cubic_slow_start(struct kunit *test)
{
	struct tm_flow *f;

	f = diff(test, "cubic", "cca_cubic", false, TCP_INFINITE_SSTHRESH,
		 slow_start);
	KUNIT_EXPECT_EQ(test, max_cwnd(f), 160U);
}

static void cubic_fast_recovery(struct kunit *test)
{
	struct tm_flow *f;

	f = diff(test, "cubic", "cca_cubic", false, TCP_INFINITE_SSTHRESH,
		 loss_cubic);
	KUNIT_EXPECT_TRUE(test, saw_state(f, TCP_CA_Recovery));
	/* beta = 0.7 of 40 */
	KUNIT_EXPECT_EQ(test, f->tp->snd_ssthresh, 28U);
}

static void cubic_timeout(struct kunit *test)
{
	struct tm_flow *f;

	f = diff(test, "cubic", "cca_cubic", false, TCP_INFINITE_SSTHRESH,
		 rto_cubic);
	KUNIT_EXPECT_TRUE(test, saw_state(f, TCP_CA_Loss));
	KUNIT_EXPECT_EQ(test, f->tp->snd_ssthresh, 28U);
}

static void cubic_undo(struct kunit *test)
{
	struct tm_flow *f;

	f = diff(test, "cubic", "cca_cubic", false, TCP_INFINITE_SSTHRESH,
		 undo_cubic);
	KUNIT_EXPECT_TRUE(test, saw_state(f, TCP_CA_Recovery));
	KUNIT_EXPECT_TRUE(test, saw_state(f, TCP_CA_Loss));
	KUNIT_EXPECT_EQ(test, f->tp->snd_ssthresh, TCP_INFINITE_SSTHRESH);
}

static void cubic_idle_restart(struct kunit *test)
{
	struct tm_flow *f;

	f = diff(test, "cubic", "cca_cubic", false, TCP_INFINITE_SSTHRESH,
		 idle_cubic);
	KUNIT_EXPECT_EQ(test, min_cwnd_in(f, "restart"), TCP_INIT_CWND);
}

/* A timeout at cwnd 10 (ssthresh 7), then CA with an ACK per packet. */
static void cubic_timeout_ack_every_packet(struct kunit *test)
{
	struct tm_flow *f;

	f = diff(test, "cubic", "cca_cubic", false, TCP_INFINITE_SSTHRESH,
		 rto_ack_every_packet);
	KUNIT_EXPECT_TRUE(test, saw_state(f, TCP_CA_Loss));
	KUNIT_EXPECT_EQ(test, f->tp->snd_ssthresh, 7U);
	/* congestion avoidance grew the window */
	KUNIT_EXPECT_GT(test, tcp_snd_cwnd(f->tp), 8U);
}

static void cubic_hystart_train(struct kunit *test)
{
	struct hs_exits n;
	struct tm_flow *f = diff_hystart(test, hystart_train, &n);

	/* both left slow start by the train test, once each */
	KUNIT_EXPECT_EQ(test, n.train, 2UL);
	KUNIT_EXPECT_EQ(test, n.delay, 0UL);
	KUNIT_EXPECT_GE(test, f->tp->snd_ssthresh, 16U);
	KUNIT_EXPECT_LT(test, f->tp->snd_ssthresh, 50U);
	KUNIT_EXPECT_FALSE(test, saw_state(f, TCP_CA_Recovery));
}

static void cubic_hystart_delay(struct kunit *test)
{
	struct hs_exits n;
	struct tm_flow *f = diff_hystart(test, hystart_delay, &n);

	KUNIT_EXPECT_EQ(test, n.delay, 2UL);
	KUNIT_EXPECT_EQ(test, n.train, 0UL);
	/* above the 27-packet pipe, before a loss */
	KUNIT_EXPECT_GE(test, f->tp->snd_ssthresh, 27U);
	KUNIT_EXPECT_FALSE(test, saw_state(f, TCP_CA_Recovery));
}

static void cubic_hystart_rtt_falls(struct kunit *test)
{
	struct hs_exits n;
	struct tm_flow *f = diff_hystart(test, hystart_rtt_falls, &n);

	/* five round trips of slow start from 10, then the delay exit */
	KUNIT_EXPECT_GE(test, max_cwnd_unbounded(f), 320U);
	KUNIT_EXPECT_EQ(test, n.train, 0UL);
	KUNIT_EXPECT_EQ(test, n.delay, 2UL);
	KUNIT_EXPECT_GT(test, f->tp->snd_ssthresh, 320U);
	KUNIT_EXPECT_LT(test, f->tp->snd_ssthresh, 400U);
}

static void cubic_whole_curve(struct kunit *test)
{
	struct tm_flow *f;

	f = diff(test, "cubic", "cca_cubic", false, TCP_INFINITE_SSTHRESH,
		 ca_whole_curve);
	KUNIT_EXPECT_EQ(test, f->tp->snd_ssthresh, 28U);
	/* past the plateau of 40: the convex part */
	KUNIT_EXPECT_GT(test, tcp_snd_cwnd(f->tp), 45U);
}

static void cubic_hystart_low_window(struct kunit *test)
{
	struct hs_exits n;
	struct tm_flow *f = diff_hystart(test, hystart_low, &n);

	/*
	 * The queue and the trains were there from cwnd 10 (4 packets fill
	 * the path); slow start went on to 16 at least, then HyStart, not a
	 * loss, ended it.
	 */
	KUNIT_EXPECT_GE(test, max_cwnd_unbounded(f), 16U);
	KUNIT_EXPECT_GE(test, f->tp->snd_ssthresh, 16U);
	KUNIT_EXPECT_LT(test, f->tp->snd_ssthresh, 32U);
	KUNIT_EXPECT_EQ(test, n.train + n.delay, 2UL);
	KUNIT_EXPECT_FALSE(test, saw_state(f, TCP_CA_Recovery));
}

static struct kunit_case cca_diff_cases[] = {
	KUNIT_CASE(dctcp_slow_start),
	KUNIT_CASE(dctcp_ce_marks),
	KUNIT_CASE(dctcp_fast_recovery),
	KUNIT_CASE(dctcp_timeout_unmarked),
	KUNIT_CASE(dctcp_timeout),
	KUNIT_CASE(dctcp_undo),
	KUNIT_CASE(dctcp_idle_restart),
	KUNIT_CASE(dctcp_fallback),
	KUNIT_CASE(cubic_slow_start),
	KUNIT_CASE(cubic_fast_recovery),
	KUNIT_CASE(cubic_timeout),
	KUNIT_CASE(cubic_undo),
	KUNIT_CASE(cubic_idle_restart),
	KUNIT_CASE(cubic_timeout_ack_every_packet),
	KUNIT_CASE(cubic_hystart_train),
	KUNIT_CASE(cubic_hystart_delay),
	KUNIT_CASE(cubic_hystart_rtt_falls),
	KUNIT_CASE(cubic_hystart_low_window),
	KUNIT_CASE(cubic_whole_curve),
	{}
};

static struct kunit_suite cca_diff_suite = {
	.name = "cca_diff",
	.test_cases = cca_diff_cases,
};

kunit_test_suites(&cca_diff_suite);

MODULE_LICENSE("GPL");
