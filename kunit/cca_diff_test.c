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
 * cca_cubic against cubic, without ECN, where they must agree exactly: slow
 * start, the reduction of fast recovery and of a timeout, slow start back
 * to ssthresh, undo, restart after idle. Left out, as intended differences:
 *  - window growth in congestion avoidance: both follow RFC 9438's curve
 *    and Reno-friendly region, but cubic in jiffies, its own fixed point
 *    and a heuristic of its own (see DIFF_CA_TOL), cca_cubic in
 *    microseconds, so they agree within a few packets, not exactly. Those
 *    phases allow DIFF_CA_TOL packets of cwnd difference; after an idle
 *    period that still catches a CCA that misses CA_EVENT_TX_START (its
 *    curve would leap by the idle time);
 *  - HyStart, which cca_cubic does not have: the mirror's clock stands
 *    still and its RTT samples are constant, so HyStart never fires;
 *  - ECN: cca_cubic answers CE marks in proportion to them, cubic as to a
 *    loss.
 */
#include <kunit/test.h>
#include <net/tcp.h>

#include "tcp_mirror.h"

/* 3.5 RTOs (RTO = 1 s): tcp_cwnd_restart() halves cwnd three times. */
#define DIFF_IDLE	(7 * HZ / 2)

/*
 * cwnd difference allowed between cubic and cca_cubic in congestion
 * avoidance, over the three round trips the scripts let it run: cubic's
 * first epoch without a known W_max adds a packet per 20 acked at least
 * (a Linux heuristic), cca_cubic follows RFC 9438's curve and Reno-friendly
 * region, about half a packet per round trip at these windows. A CCA that
 * missed CA_EVENT_TX_START after the idle period would take its curve as
 * seconds into the epoch and add a packet per two acked (5 packets ahead
 * of cubic within 5 ACKs, and more after).
 */
#define DIFF_CA_TOL	4

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

	script(a);
	script(b);
	tm_expect_same(test, a, b);
	return a;
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

/* Slow start to 40, one loss, then congestion avoidance (cwnd within @tol). */
static void one_loss(struct tm_flow *f, u32 tol)
{
	tm_phase(f, "slow start", 0);
	tm_rounds(f, 2);
	recovery(f);
	tm_phase(f, "after recovery", tol);
	tm_rounds(f, 3);
}

static void loss_reno(struct tm_flow *f)
{
	one_loss(f, 0);
	/* Two losses in one window. */
	tm_phase(f, "two losses", 0);
	tm_drop(f, 3, 1);
	tm_drop(f, 10, 1);
	tm_rounds(f, 4);
}

static void loss_cubic(struct tm_flow *f)
{
	one_loss(f, DIFF_CA_TOL);
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

/* Slow start to 40, a timeout, slow start back to ssthresh (then CA, @tol). */
static void rto(struct tm_flow *f, u32 tol)
{
	tm_phase(f, "slow start", 0);
	tm_rounds(f, 2);
	tm_phase(f, "timeout", 0);
	tm_rto(f, true);
	tm_phase(f, "slow start to ssthresh", 0);
	tm_arrive_until(f, tm_at_ssthresh);
	tm_phase(f, "after the timeout", tol);
	tm_rounds(f, 3);
}

static void rto_reno(struct tm_flow *f)
{
	rto(f, 0);
}

static void rto_cubic(struct tm_flow *f)
{
	rto(f, DIFF_CA_TOL);
}

/*
 * A reordered packet starts fast recovery; the original arrives, then the
 * retransmission's D-SACK undoes the reduction. Then a timeout that was
 * spurious (the flight was only late): slow start to ssthresh, and the
 * D-SACKs of the retransmissions undo it (cwnd within @tol meanwhile).
 */
static void undo(struct tm_flow *f, u32 tol)
{
	tm_phase(f, "slow start", 0);
	tm_rounds(f, 2);
	tm_phase(f, "reordering", 0);
	tm_delay_head(f, 12);
	tm_rounds(f, 2);
	tm_phase(f, "spurious timeout", 0);
	tm_rto(f, false);
	tm_arrive_until(f, tm_at_ssthresh);
	tm_phase(f, "until undone", tol);
	tm_rounds(f, 3);
}

static void undo_reno(struct tm_flow *f)
{
	undo(f, 0);
}

static void undo_cubic(struct tm_flow *f)
{
	undo(f, DIFF_CA_TOL);
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
	one_loss(f, DIFF_CA_TOL);
	tm_phase(f, "idle", DIFF_CA_TOL);
	tm_idle(f, DIFF_IDLE);
	tm_phase(f, "restart", 0);
	tm_app_write(f);
	tm_arrive_until(f, tm_at_ssthresh);
	tm_phase(f, "after the restart", DIFF_CA_TOL);
	tm_rounds(f, 3);
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
	{}
};

static struct kunit_suite cca_diff_suite = {
	.name = "cca_diff",
	.test_cases = cca_diff_cases,
};

kunit_test_suites(&cca_diff_suite);

MODULE_LICENSE("GPL");
