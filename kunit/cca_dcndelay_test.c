// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit tests of cca_dcndelay: the registered CCA's own callbacks driven by
 * synthetic ACK sequences on a bare tcp_sock, with just enough of the TCP
 * stack's behaviour around them (ECE -> CWR with the CCA's ssthresh, cwnd =
 * ssthresh when CWR ends, cong_avoid only outside CWR) to compare it with
 * cca_dctcp fed the same marks.
 */
#include <kunit/test.h>
#include <linux/inet_diag.h>
#include <net/tcp.h>

#include <ccaas/ccaas.h>
#include <ccaas/ecn.h>
#include <ccaas/rate.h>
#include <ccaas/sock.h>

#include "cca_test.h"

/* Schema indexes of cca_dcndelay's per-rule parameters. */
enum { P_TARGET_RTT_US, P_STEP_ROUNDS, P_STEP_MAX, P_DECREASE_PCT };

#define MSS		1000U
/* RTT samples below and above the 100 us default target. */
#define RTT_NO_QUEUE	80
#define RTT_QUEUED	150

struct sim {
	const struct tcp_congestion_ops *ops;	/* the registered ops */
	struct tcp_sock *tp;
	struct sock *sk;
	bool stack_cwr;		/* model the stack's reaction to ECE */
};

static struct sim *sim_new(struct kunit *test, const char *name)
{
	struct sim *s;

	s = kunit_kzalloc(test, sizeof(*s), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, s);
	s->ops = cca_test_lookup(test, name)->ops;
	s->tp = cca_test_sock(test, MSS, 100);
	s->sk = (struct sock *)s->tp;
	s->stack_cwr = true;
	s->tp->is_cwnd_limited = 1;
	/* SACK negotiated, as on any data-center connection */
	s->tp->rx_opt.sack_ok = TCP_SACK_SEEN;
	return s;
}

static int dcn_fixture_init(struct kunit *test)
{
	test->priv = sim_new(test, "cca_dcndelay");
	return 0;
}

/* A policy rule's parameter, as the core writes it before init(). */
static void set_param(struct sim *s, unsigned int i, u32 value)
{
	struct ccaas_sock *cs = ccaas_sock(s->sk);

	cs->params[i] = value;
	cs->param_set |= 1U << i;
}

/* The stack's saved rate sample: @pkts delivered over @us. */
static void set_rate(struct sim *s, u32 pkts, u32 us)
{
	s->tp->rate_delivered = pkts;
	s->tp->rate_interval_us = us;
}

static const struct tcp_congestion_ops *ops_now(struct sim *s)
{
	return inet_csk(s->sk)->icsk_ca_ops;
}

static u8 ca_state(struct sim *s)
{
	return inet_csk(s->sk)->icsk_ca_state;
}

static void set_ca_state(struct sim *s, u8 state)
{
	if (ops_now(s)->set_state)
		ops_now(s)->set_state(s->sk, state);
	inet_csk(s->sk)->icsk_ca_state = state;
}

/* Start the CCA on the socket, as the stack does after the handshake. */
static void start(struct sim *s, bool ecn)
{
	s->tp->ecn_flags = ecn ? TCP_ECN_OK : 0;
	inet_sk(s->sk)->tos = INET_ECN_ECT_0;
	inet_csk(s->sk)->icsk_ca_ops = s->ops;
	cca_test_init(s->sk, s->ops);
}

/* Send @pkts packets. */
static void send(struct sim *s, u32 pkts)
{
	s->tp->snd_nxt += pkts * MSS;
}

/*
 * The stack's own tcp_enter_cwr(): prior_ssthresh and undo_marker cleared,
 * then tcp_init_cwnd_reduction() (high_seq = snd_nxt, snd_cwnd_cnt = 0,
 * prior_cwnd, PRR counters, ssthresh()) and tcp_set_ca_state(CWR), which
 * tells set_state() first. Nothing happens if a reduction is under way.
 */
static void enter_cwr(struct sim *s)
{
	tcp_enter_cwr(s->sk);
}

/*
 * The end of CWR, as tcp_fastretrans_alert() ends it once snd_una is past
 * high_seq: tcp_end_cwnd_reduction() sets cwnd to ssthresh, then
 * tcp_set_ca_state(Open). PRR's gradual descent in between
 * (tcp_cwnd_reduction()) is left out: these cases read ssthresh, and
 * cwnd only once the reduction is over.
 */
static void end_cwr(struct sim *s)
{
	tcp_snd_cwnd_set(s->tp, s->tp->snd_ssthresh);
	set_ca_state(s, TCP_CA_Open);
}

/*
 * One ACK for @pkts packets, with ECE if @ce (the receiver saw CE) and ECN
 * is on, with an RTT sample of @rtt_us, in the order of tcp_ack() (the same on 6.1, 6.12
 * and 7.3):
 *  1. tcp_clean_rtx_queue(): snd_una moves, tcp_count_delivered() counts
 *     delivered and delivered_ce, tcp_rack_advance() stores each newly
 *     acknowledged packet's RTT in rack.rtt_us on a SACK connection
 *     (tcp_ack_update_rtt() feeds srtt on any), then pkts_acked() with the
 *     RTT sample if the CCA has one (cca_dcndelay has none);
 *  2. tcp_in_ack_event(): in_ack_event(CA_ACK_SLOWPATH | CA_ACK_ECE);
 *  3. tcp_fastretrans_alert() (the ACK is dubious: ECE, or not Open): CWR
 *     ends first once snd_una is past high_seq (D), then an ECE ACK goes
 *     tcp_try_to_open() -> tcp_enter_cwr() (E), which needs TCP_ECN_OK
 *     (tcp_ecn_rcv_ecn_echo());
 *  4. tcp_cong_control(): cong_avoid() unless in CWR or Recovery
 *     (tcp_in_cwnd_reduction(); PRR there, not modelled).
 */
static void ack(struct sim *s, u32 pkts, u32 ce, s32 rtt_us)
{
	struct ack_sample sample = { .pkts_acked = pkts, .rtt_us = rtt_us };
	struct tcp_sock *tp = s->tp;
	bool ece = ce && (tp->ecn_flags & TCP_ECN_OK);
	u32 flags = CA_ACK_SLOWPATH;

	/* an ECE ACK counts all it acks as CE (tcp_count_delivered()) */
	tp->snd_una += pkts * MSS;
	tp->delivered += pkts;
	if (ece) {
		tp->delivered_ce += pkts;
		flags |= CA_ACK_ECE;
	}
	if (rtt_us > 0) {
		if (tcp_is_sack(tp))
			tp->rack.rtt_us = rtt_us;
		/* tcp_rtt_estimator()'s EWMA, gain 1/8, srtt in us << 3 */
		if (tp->srtt_us)
			tp->srtt_us += rtt_us - (tp->srtt_us >> 3);
		else
			tp->srtt_us = rtt_us << 3;
	}

	if (ops_now(s)->pkts_acked)
		ops_now(s)->pkts_acked(s->sk, &sample);
	if (ops_now(s)->in_ack_event)
		ops_now(s)->in_ack_event(s->sk, flags);

	if (s->stack_cwr) {
		/* CWR is held until data above high_seq is acknowledged. */
		if (ca_state(s) == TCP_CA_CWR && after(tp->snd_una, tp->high_seq))
			end_cwr(s);
		if (ece)
			enter_cwr(s);
	}
	if (ca_state(s) != TCP_CA_CWR && ca_state(s) != TCP_CA_Recovery)
		ops_now(s)->cong_avoid(s->sk, tp->snd_una, pkts);
}

/*
 * One round trip: acknowledge the flight in flight, one ACK per packet,
 * @ce of them CE-marked, evenly spread. The next flight (cwnd at that
 * moment) leaves before the last ACK, as ACK clocking would send it, so the
 * round that ends with that ACK is followed by the next one at once.
 */
static void round_trip(struct sim *s, u32 ce, s32 rtt_us)
{
	struct tcp_sock *tp = s->tp;
	u32 n = (tp->snd_nxt - tp->snd_una) / MSS;
	u32 i;

	for (i = 0; i < n; i++) {
		u32 marked = (i + 1) * ce / n - i * ce / n;

		if (i == n - 1)
			send(s, tcp_snd_cwnd(tp));
		ack(s, 1, marked, rtt_us);
	}
}

/* Start in congestion avoidance at @cwnd with its first flight out. */
static void start_ca(struct sim *s, u32 cwnd, bool ecn)
{
	tcp_snd_cwnd_set(s->tp, cwnd);
	s->tp->snd_ssthresh = cwnd;
	send(s, cwnd);
	start(s, ecn);
}

/* What `ss -ti` sees, through get_info(). */
static struct tcp_dctcp_info info_of(struct kunit *test, struct sim *s)
{
	union tcp_cc_info info;
	int attr = 0;
	size_t len;

	len = ops_now(s)->get_info(s->sk, 1 << (INET_DIAG_VEGASINFO - 1),
				   &attr, &info);
	KUNIT_EXPECT_EQ(test, len, sizeof(info.dctcp));
	KUNIT_EXPECT_EQ(test, attr, INET_DIAG_DCTCPINFO);
	return info.dctcp;
}

/* --- target window and the step down ----------------------------------- */

static void dcn_decrease_is_30pct_of_distance_to_target(struct kunit *test)
{
	struct sim *s = test->priv;

	/* 1000 packets per ms: 8 Gbit/s at MSS 1000; * 100 us = 100 packets. */
	set_rate(s, 1000, 1000);
	KUNIT_EXPECT_EQ(test, ccaas_delivery_rate(s->tp), 1000000000ULL);
	KUNIT_EXPECT_EQ(test, div_u64(ccaas_delivery_rate(s->tp) * 100,
				      USEC_PER_SEC * MSS), 100ULL);

	start_ca(s, 200, true);
	round_trip(s, 0, RTT_QUEUED);
	/* 200 - 30 % of (200 - 100) */
	KUNIT_EXPECT_EQ(test, tcp_snd_cwnd(s->tp), 170U);
	KUNIT_EXPECT_EQ(test, s->tp->snd_ssthresh, 170U);
	round_trip(s, 0, RTT_QUEUED);
	/* 170 - 30 % of 70 */
	KUNIT_EXPECT_EQ(test, tcp_snd_cwnd(s->tp), 149U);
	round_trip(s, 0, RTT_QUEUED);
	/* 149 - 30 % of 49 = 14.7, rounded up so small excesses shrink too */
	KUNIT_EXPECT_EQ(test, tcp_snd_cwnd(s->tp), 134U);
}

static void dcn_rule_target_rtt_sets_target(struct kunit *test)
{
	struct sim *s = test->priv;
	struct sim *region = sim_new(test, "cca_dcndelay");

	/* Rack: 75 us of 1 packet/us is 75 packets; 200 - 0.3 * 125. */
	set_param(s, P_TARGET_RTT_US, 75);
	set_rate(s, 1000, 1000);
	start_ca(s, 200, true);
	round_trip(s, 0, RTT_QUEUED);
	KUNIT_EXPECT_EQ(test, tcp_snd_cwnd(s->tp), 200U - 38U);

	/* Region: 125 packets; 200 - 0.3 * 75 = 177.5, rounded down. */
	set_param(region, P_TARGET_RTT_US, 125);
	set_rate(region, 1000, 1000);
	start_ca(region, 200, true);
	round_trip(region, 0, RTT_QUEUED);
	KUNIT_EXPECT_EQ(test, tcp_snd_cwnd(region->tp), 177U);
}

static void dcn_rule_decrease_pct(struct kunit *test)
{
	struct sim *s = test->priv;

	set_param(s, P_DECREASE_PCT, 100);
	set_rate(s, 1000, 1000);
	start_ca(s, 200, true);
	round_trip(s, 0, RTT_QUEUED);
	KUNIT_EXPECT_EQ(test, tcp_snd_cwnd(s->tp), 100U);
}

static void dcn_target_rtt_not_below_path_min_rtt(struct kunit *test)
{
	struct sim *s = test->priv;

	/* A 200 us path under a 100 us rule: 200 + 200 / 4 = 250 us. */
	minmax_reset(&s->tp->rtt_min, 0, 200);
	set_rate(s, 1000, 1000);
	start_ca(s, 300, true);
	round_trip(s, 0, 300);
	/* 300 - 0.3 * (300 - 250) */
	KUNIT_EXPECT_EQ(test, tcp_snd_cwnd(s->tp), 285U);
}

static void dcn_no_step_down_without_standing_queue(struct kunit *test)
{
	struct sim *s = test->priv;

	/*
	 * The rate sample says 100 packets, but one sample of the round saw
	 * no queue: jitter, not congestion. cwnd holds, then grows.
	 */
	set_rate(s, 1000, 1000);
	start_ca(s, 200, true);
	round_trip(s, 0, RTT_QUEUED);
	KUNIT_ASSERT_EQ(test, tcp_snd_cwnd(s->tp), 170U);
	ack(s, 1, 0, RTT_NO_QUEUE);
	round_trip(s, 0, RTT_QUEUED);
	KUNIT_EXPECT_EQ(test, tcp_snd_cwnd(s->tp), 170U);
	ack(s, 1, 0, RTT_NO_QUEUE);
	round_trip(s, 0, RTT_QUEUED);
	KUNIT_EXPECT_EQ(test, tcp_snd_cwnd(s->tp), 171U);
	/* The round's samples all queued again: step down. */
	round_trip(s, 0, RTT_QUEUED);
	KUNIT_EXPECT_LT(test, tcp_snd_cwnd(s->tp), 171U);
}

static void dcn_app_limited_rate_does_not_cap(struct kunit *test)
{
	struct sim *s = test->priv;

	set_rate(s, 10, 1000);
	s->tp->rate_app_limited = 1;
	start_ca(s, 100, true);
	round_trip(s, 0, RTT_QUEUED);
	round_trip(s, 0, RTT_QUEUED);
	KUNIT_EXPECT_GE(test, tcp_snd_cwnd(s->tp), 100U);
}

/* --- additive growth and its step --------------------------------------- */

/* cwnd growth over each of @n round trips, in @growth. */
static void grow_rounds(struct sim *s, u32 *growth, int n)
{
	int i;

	for (i = 0; i < n; i++) {
		u32 before = tcp_snd_cwnd(s->tp);

		round_trip(s, 0, RTT_NO_QUEUE);
		growth[i] = tcp_snd_cwnd(s->tp) - before;
	}
}

static void expect_growth(struct kunit *test, const u32 *got,
			  const u32 *want, int n, const char *what)
{
	int i;

	for (i = 0; i < n; i++)
		KUNIT_EXPECT_EQ_MSG(test, got[i], want[i], "%s: round %d",
				    what, i);
}

static void dcn_step_doubles_after_clean_rounds(struct kunit *test)
{
	/*
	 * step_rounds 2, step_max 4. The first round has no budget yet;
	 * then 1 packet per round, doubling every 2 clean rounds up to 4.
	 */
	static const u32 want[] = { 0, 1, 2, 2, 4, 4, 4, 4 };
	struct sim *s = test->priv;
	u32 got[ARRAY_SIZE(want)];

	set_param(s, P_STEP_ROUNDS, 2);
	set_param(s, P_STEP_MAX, 4);
	set_rate(s, 100000, 1000);		/* target far above cwnd */
	start_ca(s, 100, true);
	grow_rounds(s, got, ARRAY_SIZE(want));
	expect_growth(test, got, want, ARRAY_SIZE(want), "clean");
}

static void dcn_step_default_schedule(struct kunit *test)
{
	/* Module defaults: step_rounds 3, step_max 8. */
	static const u32 want[] = { 0, 1, 1, 2, 2, 2, 4, 4, 4, 8, 8, 8, 8 };
	struct sim *s = test->priv;
	u32 got[ARRAY_SIZE(want)];

	set_rate(s, 100000, 1000);
	start_ca(s, 100, true);
	grow_rounds(s, got, ARRAY_SIZE(want));
	expect_growth(test, got, want, ARRAY_SIZE(want), "defaults");
}

static void dcn_step_resets_on_delay(struct kunit *test)
{
	static const u32 after[] = { 0, 1, 2, 2, 4 };
	struct sim *s = test->priv;
	u32 got[5];

	set_param(s, P_STEP_ROUNDS, 2);
	set_param(s, P_STEP_MAX, 4);
	set_rate(s, 100000, 1000);
	start_ca(s, 100, true);
	grow_rounds(s, got, 5);
	KUNIT_ASSERT_EQ(test, got[4], 4U);

	/*
	 * One round above the target: it grows by its budget of 4 to 113,
	 * then steps down by 30 % of 13; then the schedule starts anew.
	 */
	set_rate(s, 1000, 1000);
	round_trip(s, 0, RTT_QUEUED);
	KUNIT_EXPECT_EQ(test, tcp_snd_cwnd(s->tp), 109U);
	set_rate(s, 100000, 1000);
	grow_rounds(s, got, ARRAY_SIZE(after));
	expect_growth(test, got, after, ARRAY_SIZE(after), "after delay");
}

static void dcn_step_resets_on_loss(struct kunit *test)
{
	static const u32 after[] = { 0, 1, 2, 2, 4 };
	struct sim *s = test->priv;
	u32 got[5];

	set_param(s, P_STEP_ROUNDS, 2);
	set_param(s, P_STEP_MAX, 4);
	set_rate(s, 100000, 1000);
	start_ca(s, 100, true);
	grow_rounds(s, got, 5);
	KUNIT_ASSERT_EQ(test, got[4], 4U);

	/* A loss and its recovery (cwnd = ssthresh after it), mid-round. */
	ack(s, 10, 0, RTT_NO_QUEUE);
	cca_test_enter_recovery(s->sk, false);
	KUNIT_EXPECT_EQ(test, s->tp->snd_ssthresh, 109U * 819 / 1024);
	tcp_snd_cwnd_set(s->tp, s->tp->snd_ssthresh);
	set_ca_state(s, TCP_CA_Open);
	round_trip(s, 0, RTT_NO_QUEUE);
	grow_rounds(s, got, ARRAY_SIZE(after));
	expect_growth(test, got, after, ARRAY_SIZE(after), "after loss");
}

static void dcn_not_cwnd_limited_does_not_grow(struct kunit *test)
{
	struct sim *s = test->priv;
	int i;

	set_rate(s, 100000, 1000);
	start_ca(s, 100, true);
	s->tp->is_cwnd_limited = 0;
	for (i = 0; i < 10; i++)
		round_trip(s, 0, RTT_NO_QUEUE);
	KUNIT_EXPECT_EQ(test, tcp_snd_cwnd(s->tp), 100U);
}

/* --- slow start ----------------------------------------------------------- */

static void dcn_slow_start_until_rtt_exceeds_target(struct kunit *test)
{
	struct sim *s = test->priv;

	tcp_snd_cwnd_set(s->tp, 10);
	send(s, 10);
	start(s, true);
	round_trip(s, 0, RTT_NO_QUEUE);
	/* Doubled; the round's best RTT (80 us) is under the 100 us target. */
	KUNIT_EXPECT_EQ(test, tcp_snd_cwnd(s->tp), 20U);
	KUNIT_EXPECT_EQ(test, s->tp->snd_ssthresh, TCP_INFINITE_SSTHRESH);

	/*
	 * Every sample of the round queued: at its last ACK (19 packets, 18
	 * of them grew cwnd to 38) slow start ends at that cwnd.
	 */
	round_trip(s, 0, 150);
	KUNIT_EXPECT_EQ(test, s->tp->snd_ssthresh, 38U);
	KUNIT_EXPECT_EQ(test, tcp_snd_cwnd(s->tp), 38U);
	/* The next round has no growth budget. */
	round_trip(s, 0, RTT_NO_QUEUE);
	KUNIT_EXPECT_EQ(test, tcp_snd_cwnd(s->tp), 38U);
}

/*
 * Without SACK the stack keeps no per-ACK sample outside pkts_acked(), and
 * rack.rtt_us may hold an earlier connection's (tcp_disconnect() keeps it):
 * no delay control, slow start ends on marks or loss only.
 */
static void dcn_without_sack_no_delay_control(struct kunit *test)
{
	struct sim *s = test->priv;
	int i;

	s->tp->rx_opt.sack_ok = 0;
	s->tp->rack.rtt_us = RTT_QUEUED;	/* left by an earlier connection */
	tcp_snd_cwnd_set(s->tp, 10);
	send(s, 10);
	start(s, true);
	for (i = 0; i < 3; i++)
		round_trip(s, 0, RTT_QUEUED);
	/* three rounds of slow start (with SACK it stops in the first, 38) */
	KUNIT_EXPECT_GT(test, tcp_snd_cwnd(s->tp), 70U);
	KUNIT_EXPECT_EQ(test, s->tp->snd_ssthresh, TCP_INFINITE_SSTHRESH);
	/* a mark still ends it */
	round_trip(s, 1, RTT_QUEUED);
	KUNIT_EXPECT_LT(test, s->tp->snd_ssthresh, TCP_INFINITE_SSTHRESH);
}

/*
 * Once all is acknowledged, each further ACK (a window update, a duplicate)
 * ends a round that delivered nothing and whose only sample is the last
 * one again: no verdict, however queued that sample was.
 */
static void dcn_empty_rounds_decide_nothing(struct kunit *test)
{
	struct sim *s = test->priv;
	u32 cwnd, ssthresh;
	int i;

	start_ca(s, 100, true);
	set_rate(s, 50, 100);		/* target 50 packets at 100 us */
	for (i = 0; i < 100; i++)
		ack(s, 1, 0, RTT_QUEUED);
	/* the queued round: 30 % of the way down to the target */
	KUNIT_EXPECT_EQ(test, tcp_snd_cwnd(s->tp), 85U);
	KUNIT_ASSERT_EQ(test, s->tp->snd_una, s->tp->snd_nxt);
	cwnd = tcp_snd_cwnd(s->tp);
	ssthresh = s->tp->snd_ssthresh;
	for (i = 0; i < 5; i++)
		ops_now(s)->in_ack_event(s->sk, CA_ACK_WIN_UPDATE);
	KUNIT_EXPECT_EQ(test, tcp_snd_cwnd(s->tp), cwnd);
	KUNIT_EXPECT_EQ(test, s->tp->snd_ssthresh, ssthresh);
}

/* --- loss ----------------------------------------------------------------- */

static void dcn_loss_keeps_819_of_1024(struct kunit *test)
{
	struct sim *s = test->priv;
	const struct tcp_congestion_ops *ops;

	start_ca(s, 100, true);
	ops = ops_now(s);
	/* Recovery: the stack asks ssthresh(), then set_state(). */
	cca_test_enter_recovery(s->sk, false);
	KUNIT_EXPECT_EQ(test, s->tp->snd_ssthresh, 79U);	/* 81900 / 1024 */
	/* Still in Recovery: no second reduction. */
	set_ca_state(s, TCP_CA_Recovery);
	KUNIT_EXPECT_EQ(test, s->tp->snd_ssthresh, 79U);

	/* An undo restores the window before the loss. */
	tcp_snd_cwnd_set(s->tp, 79);
	KUNIT_EXPECT_EQ(test, ops->undo_cwnd(s->sk), 100U);
}

static void dcn_rto_keeps_819_of_1024(struct kunit *test)
{
	struct sim *s = test->priv;

	start_ca(s, 1000, true);
	/* tcp_enter_loss(): ssthresh(), CA_EVENT_LOSS, then cwnd = 1. */
	cca_test_enter_loss(s->sk);
	KUNIT_EXPECT_EQ(test, s->tp->snd_ssthresh, 799U);	/* 819000 / 1024 */
}

static void dcn_loss_during_ecn_cut_keeps_the_cut(struct kunit *test)
{
	struct sim *s = test->priv;

	start_ca(s, 100, true);
	/* alpha = 1 at start: the ECN cut halves, below 819/1024. */
	enter_cwr(s);
	KUNIT_EXPECT_EQ(test, s->tp->snd_ssthresh, 50U);
	cca_test_enter_recovery(s->sk, false);
	KUNIT_EXPECT_EQ(test, s->tp->snd_ssthresh, 50U);
	/* and a timeout after it: still the cut, the deeper of the two */
	cca_test_enter_loss(s->sk);
	KUNIT_EXPECT_EQ(test, s->tp->snd_ssthresh, 50U);
}

/*
 * In congestion avoidance at 100 packets, taken over at a tenth CE (alpha
 * 0.1), then the stack's tcp_enter_cwr() for an ECE: an ECN cut that keeps
 * about 96 % of the window.
 */
static void start_small_ecn_cut(struct kunit *test, struct sim *s)
{
	s->tp->delivered = 1000;
	s->tp->delivered_ce = 100;
	start_ca(s, 100, true);
	enter_cwr(s);
	KUNIT_ASSERT_GT(test, s->tp->snd_ssthresh, 90U);
}

/*
 * A timeout during an ECN cut: tcp_enter_loss() calls no ssthresh() then,
 * only set_state(Loss). With alpha at a tenth the ECN cut keeps about 96 %;
 * the timeout still brings ssthresh to the loss response of the window
 * the cut began from, 819/1024 of 100.
 */
static void dcn_timeout_during_ecn_cut(struct kunit *test)
{
	struct sim *s = test->priv;

	start_small_ecn_cut(test, s);
	ack(s, 10, 0, RTT_NO_QUEUE);
	KUNIT_ASSERT_EQ(test, ca_state(s), TCP_CA_CWR);
	cca_test_enter_loss(s->sk);
	KUNIT_EXPECT_EQ(test, ca_state(s), TCP_CA_Loss);
	KUNIT_EXPECT_EQ(test, tcp_snd_cwnd(s->tp), 1U);
	KUNIT_EXPECT_EQ(test, s->tp->snd_ssthresh, 79U);
}

/* A path MTU change during an ECN cut enters Loss too, and cuts nothing. */
static void dcn_mtu_loss_during_ecn_cut(struct kunit *test)
{
	struct sim *s = test->priv;
	u32 ssthresh;

	s->tp->packets_out = 100;
	start_small_ecn_cut(test, s);
	ssthresh = s->tp->snd_ssthresh;
	cca_test_mtu_loss(s->sk, 10);
	KUNIT_EXPECT_EQ(test, ca_state(s), TCP_CA_Loss);
	KUNIT_EXPECT_EQ(test, s->tp->snd_ssthresh, ssthresh);
	KUNIT_EXPECT_EQ(test, tcp_snd_cwnd(s->tp), 100U);
}

/* --- the ECN guardrail ------------------------------------------------- */

/* A round of @n packets, @ce marked, whatever cwnd is (next flight @n too). */
static void fixed_round(struct sim *s, u32 n, u32 ce)
{
	u32 i;

	for (i = 0; i < n; i++) {
		if (i == n - 1)
			send(s, n);
		ack(s, 1, (i + 1) * ce / n - i * ce / n, RTT_NO_QUEUE);
	}
}

static void dcn_ecn_cut_is_dctcps(struct kunit *test)
{
	struct sim *s = test->priv;
	struct sim *d = sim_new(test, "cca_dctcp");
	int i;

	/* Identical ACK streams: identical alpha ... */
	send(s, 40);
	send(d, 40);
	start(s, true);
	start(d, true);
	for (i = 0; i < 30; i++) {
		fixed_round(s, 40, i % 3 ? 0 : 10);
		fixed_round(d, 40, i % 3 ? 0 : 10);
	}
	KUNIT_EXPECT_EQ(test, info_of(test, s).dctcp_alpha,
			info_of(test, d).dctcp_alpha);
	KUNIT_EXPECT_GT(test, info_of(test, s).dctcp_alpha, 0U);
	/* ... and the same ECN cut from the same window. */
	tcp_snd_cwnd_set(s->tp, 100);
	tcp_snd_cwnd_set(d->tp, 100);
	KUNIT_EXPECT_EQ(test, s->ops->ssthresh(s->sk), d->ops->ssthresh(d->sk));
	KUNIT_EXPECT_LT(test, s->ops->ssthresh(s->sk), 100U);
}

static void dcn_no_growth_in_a_marked_round(struct kunit *test)
{
	struct sim *s = test->priv;
	u32 cwnd;
	int i;

	set_rate(s, 100000, 1000);
	start_ca(s, 100, true);
	round_trip(s, 0, RTT_NO_QUEUE);	/* budget for the next round */
	/* Without the stack's CWR, only the CCA itself can hold cwnd. */
	s->stack_cwr = false;
	cwnd = tcp_snd_cwnd(s->tp);
	ack(s, 10, 1, RTT_NO_QUEUE);
	for (i = 0; i < 89; i++)
		ack(s, 1, 0, RTT_NO_QUEUE);
	KUNIT_EXPECT_EQ(test, tcp_snd_cwnd(s->tp), cwnd);
	send(s, tcp_snd_cwnd(s->tp));
	ack(s, 1, 0, RTT_NO_QUEUE);		/* closes the marked round */
	/* ... nor in the round after it. */
	round_trip(s, 0, RTT_NO_QUEUE);
	KUNIT_EXPECT_EQ(test, tcp_snd_cwnd(s->tp), cwnd);
	/* Then Reno's pace while alpha is above 0. */
	round_trip(s, 0, RTT_NO_QUEUE);
	round_trip(s, 0, RTT_NO_QUEUE);
	round_trip(s, 0, RTT_NO_QUEUE);
	round_trip(s, 0, RTT_NO_QUEUE);
	KUNIT_EXPECT_EQ(test, tcp_snd_cwnd(s->tp), cwnd + 4);
}

/* CE packets in round @r of the sequence fed to both CCAs. */
static u32 marks_in_round(int r)
{
	if (r < 4)
		return 0;		/* slow start, as one flight doubles */
	if (r < 10)
		return r % 2 ? 6 : 0;	/* every other round */
	if (r < 14)
		return 15;		/* a congested stretch */
	if (r < 34)
		return r == 24 ? 2 : 0;	/* sparse */
	return r % 5 ? 0 : 4;
}

static void dcn_never_above_dctcp_under_marks(struct kunit *test)
{
	struct sim *s = test->priv;
	struct sim *d = sim_new(test, "cca_dctcp");
	int r, marked_rounds = 0;

	/* Both from IW10 in slow start; the delay target never binds. */
	set_rate(s, 100000, 1000);
	tcp_snd_cwnd_set(s->tp, 10);
	tcp_snd_cwnd_set(d->tp, 10);
	send(s, 10);
	send(d, 10);
	start(s, true);
	start(d, true);
	for (r = 0; r < 60; r++) {
		u32 ce = marks_in_round(r);

		round_trip(s, ce, RTT_NO_QUEUE);
		round_trip(d, ce, RTT_NO_QUEUE);
		if (!ce && r < 4)
			KUNIT_EXPECT_EQ_MSG(test, tcp_snd_cwnd(s->tp),
					    tcp_snd_cwnd(d->tp),
					    "slow start, round %d", r);
		if (ce)
			marked_rounds++;
		KUNIT_EXPECT_LE_MSG(test, tcp_snd_cwnd(s->tp),
				    tcp_snd_cwnd(d->tp),
				    "round %d (%u CE)", r, ce);
	}
	kunit_info(test, "after %d rounds: cwnd %u (cca_dcndelay), %u (cca_dctcp)\n",
		   r, tcp_snd_cwnd(s->tp), tcp_snd_cwnd(d->tp));
	/* The sequence did reduce both. */
	KUNIT_EXPECT_GT(test, marked_rounds, 10);
	KUNIT_EXPECT_LT(test, d->tp->snd_ssthresh, TCP_INFINITE_SSTHRESH);
}

/* --- TSO floor --------------------------------------------------------- */

static void dcn_min_tso_segs_knob_and_floor(struct kunit *test)
{
	struct sim *s = test->priv;

	start_ca(s, 100, true);
	/* No knob: the module's floor (4) over the sysctl (2). */
	KUNIT_EXPECT_EQ(test, s->ops->min_tso_segs(s->sk),
			max(4U, (u32)READ_ONCE(init_net.ipv4.sysctl_tcp_min_tso_segs)));
	/* The rule's knob wins, above or below the floor. */
	ccaas_sock(s->sk)->tso_segs = 16;
	KUNIT_EXPECT_EQ(test, s->ops->min_tso_segs(s->sk), 16U);
	ccaas_sock(s->sk)->tso_segs = 3;
	KUNIT_EXPECT_EQ(test, s->ops->min_tso_segs(s->sk), 3U);
}

/* --- without ECN -------------------------------------------------------- */

static void dcn_falls_back_without_ecn(struct kunit *test)
{
	struct sim *s = test->priv;
	const struct tcp_congestion_ops *now;

	set_rate(s, 1000, 1000);
	start_ca(s, 200, false);
	now = ops_now(s);
	KUNIT_EXPECT_PTR_EQ(test, now,
			    ccaas_cca_lookup("cca_dcndelay")->fallback_ops);
	KUNIT_ASSERT_PTR_NE(test, now, s->ops);
	KUNIT_EXPECT_STREQ(test, now->name, "cca_dcndelay-ne");
	/* No ECT from now on. */
	KUNIT_EXPECT_FALSE(test, now->flags & TCP_CONG_NEEDS_ECN);
	KUNIT_EXPECT_EQ(test, inet_sk(s->sk)->tos & INET_ECN_MASK, 0);
	/* ss shows the fallback. */
	KUNIT_EXPECT_EQ(test, info_of(test, s).dctcp_enabled, 0);

	/* Delay control goes on: 200 -> 170 towards a 100-packet target. */
	round_trip(s, 0, RTT_QUEUED);
	KUNIT_EXPECT_EQ(test, tcp_snd_cwnd(s->tp), 170U);
	/* Any reduction is the loss response (alpha plays no part). */
	tcp_snd_cwnd_set(s->tp, 100);
	KUNIT_EXPECT_EQ(test, now->ssthresh(s->sk), 79U);
	cca_test_enter_recovery(s->sk, false);
	KUNIT_EXPECT_EQ(test, s->tp->snd_ssthresh, 79U);
}

static void dcn_keeps_ect_with_ecn(struct kunit *test)
{
	struct sim *s = test->priv;
	struct tcp_dctcp_info info;

	start(s, true);
	KUNIT_EXPECT_PTR_EQ(test, ops_now(s), s->ops);
	KUNIT_EXPECT_TRUE(test, s->ops->flags & TCP_CONG_NEEDS_ECN);
	KUNIT_EXPECT_EQ(test, inet_sk(s->sk)->tos & INET_ECN_MASK,
			INET_ECN_ECT_0);
	info = info_of(test, s);
	KUNIT_EXPECT_EQ(test, info.dctcp_enabled, 1);
	KUNIT_EXPECT_EQ(test, info.dctcp_alpha, CCAAS_ALPHA_ONE);
}

/* Moved to cca_dcndelay mid-transfer: alpha is the connection's CE fraction. */
static void dcn_takeover_starts_from_ce_fraction(struct kunit *test)
{
	struct sim *s = test->priv;

	s->tp->delivered = 1000;
	s->tp->delivered_ce = 250;
	start(s, true);
	KUNIT_EXPECT_EQ(test, info_of(test, s).dctcp_alpha, 256U);
}

static struct kunit_case cca_dcndelay_cases[] = {
	KUNIT_CASE(dcn_takeover_starts_from_ce_fraction),
	KUNIT_CASE(dcn_timeout_during_ecn_cut),
	KUNIT_CASE(dcn_mtu_loss_during_ecn_cut),
	KUNIT_CASE(dcn_decrease_is_30pct_of_distance_to_target),
	KUNIT_CASE(dcn_rule_target_rtt_sets_target),
	KUNIT_CASE(dcn_rule_decrease_pct),
	KUNIT_CASE(dcn_target_rtt_not_below_path_min_rtt),
	KUNIT_CASE(dcn_no_step_down_without_standing_queue),
	KUNIT_CASE(dcn_app_limited_rate_does_not_cap),
	KUNIT_CASE(dcn_step_doubles_after_clean_rounds),
	KUNIT_CASE(dcn_step_default_schedule),
	KUNIT_CASE(dcn_step_resets_on_delay),
	KUNIT_CASE(dcn_step_resets_on_loss),
	KUNIT_CASE(dcn_not_cwnd_limited_does_not_grow),
	KUNIT_CASE(dcn_slow_start_until_rtt_exceeds_target),
	KUNIT_CASE(dcn_without_sack_no_delay_control),
	KUNIT_CASE(dcn_empty_rounds_decide_nothing),
	KUNIT_CASE(dcn_loss_keeps_819_of_1024),
	KUNIT_CASE(dcn_rto_keeps_819_of_1024),
	KUNIT_CASE(dcn_loss_during_ecn_cut_keeps_the_cut),
	KUNIT_CASE(dcn_min_tso_segs_knob_and_floor),
	KUNIT_CASE(dcn_falls_back_without_ecn),
	KUNIT_CASE(dcn_keeps_ect_with_ecn),
	{}
};

static struct kunit_suite cca_dcndelay_suite = {
	.name = "cca_dcndelay",
	.init = dcn_fixture_init,
	.test_cases = cca_dcndelay_cases,
};

static struct kunit_case cca_dcndelay_guard_cases[] = {
	KUNIT_CASE(dcn_ecn_cut_is_dctcps),
	KUNIT_CASE(dcn_no_growth_in_a_marked_round),
	KUNIT_CASE(dcn_never_above_dctcp_under_marks),
	{}
};

static struct kunit_suite cca_dcndelay_guard_suite = {
	.name = "cca_dcndelay_guard",
	.init = dcn_fixture_init,
	.test_cases = cca_dcndelay_guard_cases,
};

kunit_test_suites(&cca_dcndelay_suite, &cca_dcndelay_guard_suite);

MODULE_LICENSE("GPL");
