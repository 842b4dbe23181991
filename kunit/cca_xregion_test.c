// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit tests of cca_xregion: the registered CCA's own callbacks, driven
 * through cong_control with synthetic rate samples on a bare tcp_sock, and
 * the PRR and pacing helpers it is built on.
 *
 * The synthetic path: mss 1000 bytes, srtt and min_rtt 100 ms, so one
 * packet of cwnd per srtt is 10 000 B/s and a cwnd of 100 sends 1 MB/s.
 * The default threshold C is 125 000 B/s of CE-marked traffic.
 */
#include <kunit/test.h>
#include <linux/inet_diag.h>
#include <linux/win_minmax.h>
#include <net/tcp.h>

#include <ccaas/ccaas.h>
#include <ccaas/ecn.h>
#include <ccaas/pacing.h>
#include <ccaas/prr.h>
#include <ccaas/sock.h>

#include "cca_test.h"

#define XT_MSS		1000
#define XT_RTT_US	100000
#define XT_NOW_US	5000000

/* Modes as get_info() reports them in dctcp_ce_state. */
enum { XT_SS, XT_CSS, XT_CA, XT_DEC_ECN, XT_DEC_LOSS };

struct xr_fixture {
	const struct ccaas_cca *cca;
	const struct tcp_congestion_ops *ops;
	struct tcp_sock *tp;
	struct sock *sk;
};

/* A fresh established socket; @test->priv keeps it. */
static void xr_fixture_reset(struct xr_fixture *f)
{
	memset(f->tp, 0, sizeof(*f->tp));
	cca_test_sock_init(f->tp, XT_MSS, TCP_INIT_CWND);
	f->sk->sk_max_pacing_rate = ~0UL;
	f->sk->sk_pacing_rate = ~0UL;
	f->tp->srtt_us = XT_RTT_US << 3;
	minmax_reset(&f->tp->rtt_min, 0, XT_RTT_US);
	f->tp->tcp_mstamp = XT_NOW_US;
	f->tp->is_cwnd_limited = 1;
	f->tp->ecn_flags = TCP_ECN_OK;
	inet_csk(f->sk)->icsk_ca_ops = f->ops;
}

static int xr_fixture_init(struct kunit *test)
{
	const struct ccaas_cca *cca = cca_test_lookup(test, "cca_xregion");
	struct xr_fixture *f;

	f = kunit_kzalloc(test, sizeof(*f), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, f);
	f->tp = kunit_kzalloc(test, sizeof(*f->tp), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, f->tp);
	f->cca = cca;
	f->ops = cca->ops;
	f->sk = (struct sock *)f->tp;
	xr_fixture_reset(f);
	test->priv = f;
	return 0;
}

/* Schema index of parameter @name (the per-rule override slot). */
static unsigned int param_index(struct kunit *test, struct xr_fixture *f,
				const char *name)
{
	unsigned int i;

	for (i = 0; i < f->cca->n_params; i++)
		if (!strcmp(f->cca->params[i].name, name))
			return i;
	KUNIT_FAIL(test, "no parameter %s", name);
	return 0;
}

/* What a policy rule would set, before init(). */
static void set_param(struct kunit *test, struct xr_fixture *f,
		      const char *name, u32 value)
{
	struct ccaas_sock *cs = ccaas_sock(f->sk);
	unsigned int i = param_index(test, f, name);

	KUNIT_ASSERT_LT(test, i, CCAAS_SOCK_PARAMS);
	cs->params[i] = value;
	cs->param_set |= 1U << i;
}

/*
 * Start the CCA on a connection that has already sent data (so the
 * initial window is not applied) with @cwnd packets of window.
 */
static void start(struct xr_fixture *f, u32 cwnd)
{
	f->tp->data_segs_out = 1;
	tcp_snd_cwnd_set(f->tp, cwnd);
	cca_test_init(f->sk, f->ops);
}

/* Send @pkts packets of new data. */
static void send(struct xr_fixture *f, u32 pkts)
{
	f->tp->snd_nxt += pkts * XT_MSS;
	f->tp->packets_out += pkts;
	f->tp->data_segs_out += pkts;
}

/* Keep cwnd full, as a bulk sender does after each ACK. */
static void fill(struct xr_fixture *f)
{
	u32 in_flight = tcp_packets_in_flight(f->tp);

	if (tcp_snd_cwnd(f->tp) > in_flight)
		send(f, tcp_snd_cwnd(f->tp) - in_flight);
}

/* The compat cong_control call. */
static void cong_control(struct xr_fixture *f, const struct rate_sample *rs)
{
#ifdef CCAAS_HAVE_CONG_CONTROL_ACK_FLAG
	f->ops->cong_control(f->sk, f->tp->snd_una, 0, rs);
#else
	f->ops->cong_control(f->sk, rs);
#endif
}

/*
 * One ACK for @pkts packets, @ce of them marked (the stack's counters), with
 * a rate sample of @rs_delivered packets, @rs_ce marked, over its interval.
 */
static void ack_rs(struct xr_fixture *f, u32 pkts, u32 ce, s32 rs_delivered,
		   s32 rs_ce)
{
	struct rate_sample rs = {
		.prior_delivered = f->tp->delivered + pkts - rs_delivered,
		.delivered = rs_delivered,
		.delivered_ce = rs_ce,
		.acked_sacked = pkts,
		.interval_us = XT_RTT_US,
		.rtt_us = XT_RTT_US,
		.losses = 0,
	};

	f->tp->snd_una += pkts * XT_MSS;
	f->tp->delivered += pkts;
	f->tp->delivered_ce += ce;
	f->tp->packets_out -= min(pkts, f->tp->packets_out);
	/* what was marked lost leaves the queue first (oldest first) */
	f->tp->lost_out -= min(pkts, f->tp->lost_out);
	cong_control(f, &rs);
}

/* An unmarked ACK of one packet whose RTT sample is @rtt_us. */
static void ack_rtt(struct xr_fixture *f, s32 rtt_us)
{
	struct rate_sample rs = {
		.prior_delivered = f->tp->delivered + 1 -
				   max(tcp_snd_cwnd(f->tp), 1U),
		.delivered = max(tcp_snd_cwnd(f->tp), 1U),
		.acked_sacked = 1,
		.interval_us = XT_RTT_US,
		.rtt_us = rtt_us,
	};

	f->tp->snd_una += XT_MSS;
	f->tp->delivered++;
	f->tp->packets_out -= min(1U, f->tp->packets_out);
	f->tp->lost_out -= min(1U, f->tp->lost_out);
	cong_control(f, &rs);
}

/*
 * An unmarked ACK of @pkts packets, the sample a round of them (its RTT
 * sample: the path's, XT_RTT_US).
 */
static void ack(struct xr_fixture *f, u32 pkts)
{
	ack_rs(f, pkts, 0, max(tcp_snd_cwnd(f->tp), 1U), 0);
}

static struct tcp_dctcp_info info_of(struct kunit *test, struct xr_fixture *f)
{
	const struct tcp_congestion_ops *ops = inet_csk(f->sk)->icsk_ca_ops;
	union tcp_cc_info info;
	int attr = 0;

	KUNIT_EXPECT_EQ(test, ops->get_info(f->sk, 1 << (INET_DIAG_VEGASINFO - 1),
					    &attr, &info), sizeof(info.dctcp));
	KUNIT_EXPECT_EQ(test, attr, INET_DIAG_DCTCPINFO);
	return info.dctcp;
}

static u32 mode_of(struct kunit *test, struct xr_fixture *f)
{
	return info_of(test, f).dctcp_ce_state;
}

static u32 alpha_of(struct kunit *test, struct xr_fixture *f)
{
	return info_of(test, f).dctcp_alpha;
}

/* Run unmarked one-packet rounds until alpha settles (at most @rounds). */
static void drain_alpha(struct kunit *test, struct xr_fixture *f, int rounds)
{
	u32 prev = U32_MAX;

	while (rounds-- > 0 && alpha_of(test, f) != prev) {
		prev = alpha_of(test, f);
		send(f, 1);
		ack_rs(f, 1, 0, 1, 0);
	}
}

/* ----------------------------------------------------------------------- */

static void xr_initial_window_is_100(struct kunit *test)
{
	struct xr_fixture *f = test->priv;

	/* No data sent yet: 100 packets. */
	cca_test_init(f->sk, f->ops);
	KUNIT_EXPECT_EQ(test, tcp_snd_cwnd(f->tp), 100U);

	/* The rule's init_cwnd knob wins over the CCA's 100. */
	xr_fixture_reset(f);
	ccaas_sock(f->sk)->init_cwnd = 40;
	cca_test_init(f->sk, f->ops);
	KUNIT_EXPECT_EQ(test, tcp_snd_cwnd(f->tp), 40U);

	/* A connection that already sent data keeps its window. */
	xr_fixture_reset(f);
	f->tp->data_segs_out = 5;
	tcp_snd_cwnd_set(f->tp, 17);
	cca_test_init(f->sk, f->ops);
	KUNIT_EXPECT_EQ(test, tcp_snd_cwnd(f->tp), 17U);
}

/*
 * An ACK starts fast recovery: the stack's tcp_enter_recovery() (ssthresh(),
 * then the state), then the ACK's cong_control().
 */
static void enter_recovery(struct kunit *test, struct xr_fixture *f)
{
	cca_test_enter_recovery(f->sk, false);
	ack(f, 1);
	KUNIT_ASSERT_EQ(test, mode_of(test, f), XT_DEC_LOSS);
}

static void xr_slow_start_doubles_per_rtt(struct kunit *test)
{
	struct xr_fixture *f = test->priv;
	int i;

	cca_test_init(f->sk, f->ops);
	KUNIT_ASSERT_EQ(test, mode_of(test, f), XT_SS);
	send(f, 100);
	for (i = 0; i < 100; i++)
		ack(f, 1);
	KUNIT_EXPECT_EQ(test, tcp_snd_cwnd(f->tp), 200U);
	KUNIT_EXPECT_EQ(test, mode_of(test, f), XT_SS);
}

static void xr_first_mark_starts_conservative_slow_start(struct kunit *test)
{
	struct xr_fixture *f = test->priv;
	int i;

	start(f, 100);
	KUNIT_ASSERT_EQ(test, mode_of(test, f), XT_SS);
	send(f, 200);
	/* 1 % marked at 1 MB/s: 10 kB/s marked, far below C. */
	ack_rs(f, 1, 1, 100, 1);
	KUNIT_EXPECT_EQ(test, mode_of(test, f), XT_CSS);
	KUNIT_EXPECT_EQ(test, tcp_snd_cwnd(f->tp), 100U);
	/* One window of ACKs: x1.05 (101 acked in CSS: +5). */
	for (i = 0; i < 100; i++)
		ack(f, 1);
	KUNIT_EXPECT_EQ(test, tcp_snd_cwnd(f->tp), 105U);
	KUNIT_EXPECT_EQ(test, mode_of(test, f), XT_CSS);
}

static void xr_delay_rise_starts_conservative_slow_start(struct kunit *test)
{
	struct xr_fixture *f = test->priv;
	int i;

	start(f, 100);
	send(f, 10);
	/* A round whose least RTT is 20 ms above min_rtt (margin 12.5 ms). */
	for (i = 0; i < 10; i++)
		ack_rtt(f, XT_RTT_US + 20000);
	KUNIT_EXPECT_EQ(test, mode_of(test, f), XT_CSS);
}

static void xr_no_delay_rise_stays_in_slow_start(struct kunit *test)
{
	struct xr_fixture *f = test->priv;
	int i;

	start(f, 100);
	send(f, 10);
	for (i = 0; i < 10; i++)
		ack_rtt(f, XT_RTT_US + 5000);
	KUNIT_EXPECT_EQ(test, mode_of(test, f), XT_SS);
}

static void xr_strong_marks_enter_dec(struct kunit *test)
{
	struct xr_fixture *f = test->priv;

	start(f, 100);
	send(f, 100);
	/* Half marked at 1 MB/s: 500 kB/s marked > C. */
	ack_rs(f, 1, 1, 100, 50);
	KUNIT_EXPECT_EQ(test, mode_of(test, f), XT_DEC_ECN);
	/* The stack's ssthresh shows the target. */
	KUNIT_EXPECT_EQ(test, f->tp->snd_ssthresh, 67U);
}

static void xr_signal_is_rate_weighted(struct kunit *test)
{
	struct xr_fixture *f = test->priv;

	/* 10 % marked at 100 kB/s (cwnd 10): 10 kB/s marked, no signal. */
	start(f, 10);
	send(f, 10);
	ack_rs(f, 1, 1, 100, 10);
	KUNIT_EXPECT_EQ(test, mode_of(test, f), XT_CSS);

	/* The same 10 % at 10 MB/s (cwnd 1000): 1 MB/s marked, signal. */
	xr_fixture_reset(f);
	start(f, 1000);
	send(f, 1000);
	ack_rs(f, 1, 1, 100, 10);
	KUNIT_EXPECT_EQ(test, mode_of(test, f), XT_DEC_ECN);

	/* cwnd 1000 again but a 10x longer RTT: 100 kB/s marked, no signal. */
	xr_fixture_reset(f);
	f->tp->srtt_us = (10 * XT_RTT_US) << 3;
	start(f, 1000);
	send(f, 1000);
	ack_rs(f, 1, 1, 100, 10);
	KUNIT_EXPECT_EQ(test, mode_of(test, f), XT_CSS);

	/* A per-rule C of 5 kB/s makes the slow flow react too. */
	xr_fixture_reset(f);
	set_param(test, f, "ce_thresh", 5000);
	start(f, 10);
	send(f, 10);
	ack_rs(f, 1, 1, 100, 10);
	KUNIT_EXPECT_EQ(test, mode_of(test, f), XT_DEC_ECN);
}

static void xr_fully_marked_sample_always_signals(struct kunit *test)
{
	struct xr_fixture *f = test->priv;

	/* 10 packets at 100 kB/s, every one marked: 100 kB/s < C, still DEC. */
	start(f, 10);
	send(f, 10);
	ack_rs(f, 1, 1, 10, 10);
	KUNIT_EXPECT_EQ(test, mode_of(test, f), XT_DEC_ECN);
}

static void xr_dec_target_ecn_vs_loss(struct kunit *test)
{
	struct xr_fixture *f = test->priv;
	struct tcp_dctcp_info info;
	u32 alpha;

	/* ECN, alpha 1 (a new connection): (1 - 1/3) * 300 = 200. */
	start(f, 300);
	send(f, 300);
	ack_rs(f, 1, 1, 100, 50);
	info = info_of(test, f);
	KUNIT_EXPECT_EQ(test, info.dctcp_ce_state, XT_DEC_ECN);
	KUNIT_EXPECT_EQ(test, info.dctcp_alpha, CCAAS_ALPHA_ONE);
	KUNIT_EXPECT_EQ(test, info.dctcp_ab_ecn, 200U * XT_MSS);

	/* ECN with alpha ~ 1/4: target = cwnd * (1 - alpha / 3). */
	xr_fixture_reset(f);
	start(f, 3000);
	drain_alpha(test, f, 300);
	/*
	 * Marked rounds (F = 1) raise alpha by 1/16 of the gap each; their
	 * rate samples are weakly marked, so no signal yet.
	 */
	while (alpha_of(test, f) < 256) {
		send(f, 4);
		ack_rs(f, 4, 4, 1000000, 1);
	}
	KUNIT_EXPECT_EQ(test, mode_of(test, f), XT_CSS);
	tcp_snd_cwnd_set(f->tp, 3000);
	send(f, 100);
	ack_rs(f, 1, 0, 100, 50);
	KUNIT_EXPECT_EQ(test, mode_of(test, f), XT_DEC_ECN);
	alpha = alpha_of(test, f);
	KUNIT_EXPECT_GE(test, alpha, 200U);
	KUNIT_EXPECT_LE(test, alpha, 300U);
	KUNIT_EXPECT_EQ(test, f->tp->snd_ssthresh, 3000 - 3000 * alpha / 3072);

	/* Loss (fast recovery begins): 0.7 * 300 = 210, whatever alpha. */
	xr_fixture_reset(f);
	start(f, 300);
	send(f, 300);
	cca_test_enter_recovery(f->sk, false);
	ack(f, 1);
	info = info_of(test, f);
	KUNIT_EXPECT_EQ(test, info.dctcp_ce_state, XT_DEC_LOSS);
	KUNIT_EXPECT_EQ(test, info.dctcp_ab_ecn, 210U * XT_MSS);
	/* ssthresh(), which the stack calls on a loss, agrees. */
	tcp_snd_cwnd_set(f->tp, 300);
	KUNIT_EXPECT_EQ(test, f->ops->ssthresh(f->sk), 210U);
}

static void xr_alpha_has_a_floor(struct kunit *test)
{
	struct xr_fixture *f = test->priv;

	start(f, 3072);
	drain_alpha(test, f, 500);
	/* 6.25 %, not 0. */
	KUNIT_EXPECT_EQ(test, alpha_of(test, f), 64U);
	/* The smallest ECN cut: 3072 * (1 - 64 / 1024 / 3) = 3008. */
	tcp_snd_cwnd_set(f->tp, 3072);
	send(f, 100);
	ack_rs(f, 1, 0, 100, 50);
	KUNIT_EXPECT_EQ(test, mode_of(test, f), XT_DEC_ECN);
	KUNIT_EXPECT_EQ(test, f->tp->snd_ssthresh, 3008U);

	/* A rule may lower the floor: then alpha drains further. */
	xr_fixture_reset(f);
	set_param(test, f, "alpha_floor", 16);
	start(f, 100);
	drain_alpha(test, f, 500);
	KUNIT_EXPECT_EQ(test, alpha_of(test, f), 16U);
}

static void xr_prr_reaches_target_within_one_rtt(struct kunit *test)
{
	struct xr_fixture *f = test->priv;
	u32 cwnd_mid = 0;
	int i;

	start(f, 100);
	send(f, 100);			/* the round in flight: 100 packets */
	ack_rs(f, 1, 1, 100, 50);	/* its first ACK signals */
	KUNIT_ASSERT_EQ(test, mode_of(test, f), XT_DEC_ECN);
	KUNIT_ASSERT_EQ(test, f->tp->snd_ssthresh, 67U);
	/* No cut at once: PRR lets a packet out. */
	KUNIT_EXPECT_GT(test, tcp_snd_cwnd(f->tp), 67U);
	fill(f);

	/* The other 99 packets of the round are acked; sender keeps cwnd full. */
	for (i = 0; i < 98; i++) {
		ack_rs(f, 1, 1, 100, 50);
		fill(f);
		KUNIT_EXPECT_EQ(test, mode_of(test, f), XT_DEC_ECN);
		if (i == 49)
			cwnd_mid = tcp_snd_cwnd(f->tp);
	}
	/* Gradual: half-way, about half of the cut. */
	KUNIT_EXPECT_GE(test, cwnd_mid, 80U);
	KUNIT_EXPECT_LE(test, cwnd_mid, 87U);
	/* Before the round ends, in flight and cwnd are at the target. */
	KUNIT_EXPECT_GE(test, tcp_snd_cwnd(f->tp), 67U);
	KUNIT_EXPECT_LE(test, tcp_snd_cwnd(f->tp), 68U);
	KUNIT_EXPECT_LE(test, tcp_packets_in_flight(f->tp), 68U);

	/* The round's last ACK ends DEC at exactly the target. */
	ack_rs(f, 1, 1, 100, 50);
	KUNIT_EXPECT_EQ(test, mode_of(test, f), XT_CA);
	KUNIT_EXPECT_GE(test, tcp_snd_cwnd(f->tp), 67U);
	KUNIT_EXPECT_LE(test, tcp_snd_cwnd(f->tp), 68U);
}

static void xr_dec_ends_on_timer_not_next_ack(struct kunit *test)
{
	struct xr_fixture *f = test->priv;
	int i;

	start(f, 100);
	send(f, 10);
	ack_rs(f, 1, 1, 100, 50);
	KUNIT_ASSERT_EQ(test, mode_of(test, f), XT_DEC_ECN);
	send(f, 50);		/* sent during DEC: not part of its round */

	/* Unmarked ACKs right after: still DEC. */
	ack(f, 1);
	KUNIT_EXPECT_EQ(test, mode_of(test, f), XT_DEC_ECN);
	/* Everything sent before DEC but the last packet: still DEC. */
	for (i = 0; i < 7; i++)
		ack(f, 1);
	KUNIT_EXPECT_EQ(test, mode_of(test, f), XT_DEC_ECN);
	/* One round trip after DEC began: INC (Cubic) at the target. */
	ack(f, 1);
	KUNIT_EXPECT_EQ(test, mode_of(test, f), XT_CA);
	KUNIT_EXPECT_EQ(test, tcp_snd_cwnd(f->tp), 67U);
}

static void xr_marks_during_dec_do_not_cut_again(struct kunit *test)
{
	struct xr_fixture *f = test->priv;
	int i;

	start(f, 100);
	send(f, 10);
	ack_rs(f, 1, 1, 100, 50);
	KUNIT_ASSERT_EQ(test, f->tp->snd_ssthresh, 67U);
	for (i = 0; i < 8; i++)
		ack_rs(f, 1, 1, 100, 100);
	KUNIT_EXPECT_EQ(test, f->tp->snd_ssthresh, 67U);

	/* But a loss deepens it to 0.7 of the window DEC started from. */
	cca_test_enter_recovery(f->sk, false);
	ack(f, 0);
	KUNIT_EXPECT_EQ(test, mode_of(test, f), XT_DEC_LOSS);
	KUNIT_EXPECT_EQ(test, f->tp->snd_ssthresh, 67U);
}

static void xr_after_dec_only_fresh_marks_signal(struct kunit *test)
{
	struct xr_fixture *f = test->priv;
	int i;

	start(f, 100);
	send(f, 100);
	ack_rs(f, 1, 1, 100, 50);
	KUNIT_ASSERT_EQ(test, mode_of(test, f), XT_DEC_ECN);
	fill(f);
	for (i = 0; i < 99; i++) {
		ack_rs(f, 1, 1, 100, 50);
		fill(f);
	}
	/* DEC is over after 100 packets delivered ... */
	KUNIT_ASSERT_EQ(test, mode_of(test, f), XT_CA);
	KUNIT_ASSERT_EQ(test, f->tp->delivered, 100U);
	/* ... but samples that began before that are the old congestion. */
	for (i = 0; i < 10; i++)
		ack_rs(f, 1, 1, 50, 25);
	KUNIT_EXPECT_EQ(test, mode_of(test, f), XT_CA);
	/* A sample of packets sent since DEC ended, as heavily marked. */
	ack_rs(f, 1, 1, 11, 6);
	KUNIT_EXPECT_EQ(test, mode_of(test, f), XT_DEC_ECN);
}

static void xr_back_to_back_recovery_cuts_again(struct kunit *test)
{
	struct xr_fixture *f = test->priv;
	int i;

	start(f, 100);
	send(f, 100);
	enter_recovery(test, f);
	fill(f);
	for (i = 0; i < 99; i++) {
		ack(f, 1);
		fill(f);
	}
	/* One round later DEC is over; recovery goes on: cwnd holds. */
	KUNIT_ASSERT_EQ(test, mode_of(test, f), XT_CA);
	KUNIT_EXPECT_EQ(test, tcp_snd_cwnd(f->tp), 70U);
	ack(f, 1);
	KUNIT_EXPECT_EQ(test, tcp_snd_cwnd(f->tp), 70U);
	KUNIT_EXPECT_EQ(test, mode_of(test, f), XT_CA);
	/*
	 * The episode ends with losses outstanding: the stack starts the
	 * next one in the same ACK (Recovery -> Open -> Recovery), calling
	 * ssthresh() again. A new loss, a new cut: 0.7 * 70 = 49.
	 */
	tcp_set_ca_state(f->sk, TCP_CA_Open);
	cca_test_enter_recovery(f->sk, false);
	ack(f, 1);
	KUNIT_EXPECT_EQ(test, mode_of(test, f), XT_DEC_LOSS);
	KUNIT_EXPECT_EQ(test, f->tp->snd_ssthresh, 49U);
}

static void xr_loss_in_ecn_dec_takes_lower_target(struct kunit *test)
{
	struct xr_fixture *f = test->priv;

	/* alpha at the floor: the ECN target 1000 - 20 = 980 ... */
	start(f, 1000);
	drain_alpha(test, f, 500);
	tcp_snd_cwnd_set(f->tp, 1000);
	send(f, 1000);
	ack_rs(f, 1, 0, 100, 50);
	KUNIT_ASSERT_EQ(test, f->tp->snd_ssthresh, 980U);
	/* ... and a loss within that DEC: 0.7 * 1000. */
	cca_test_enter_recovery(f->sk, false);
	ack(f, 1);
	KUNIT_EXPECT_EQ(test, mode_of(test, f), XT_DEC_LOSS);
	KUNIT_EXPECT_EQ(test, f->tp->snd_ssthresh, 700U);
}

static void xr_paces_from_cwnd_and_srtt(struct kunit *test)
{
	struct xr_fixture *f = test->priv;
	int i;

	/* Slow start, cwnd 100: 2 x 100 x 1000 B / 100 ms = 2 MB/s. */
	cca_test_init(f->sk, f->ops);
	KUNIT_EXPECT_EQ(test, f->sk->sk_pacing_status, SK_PACING_NEEDED);
	KUNIT_EXPECT_EQ(test, f->sk->sk_pacing_rate, 2000000UL);

	/* Each ACK updates it: cwnd 101 after one ACK. */
	send(f, 100);
	ack(f, 1);
	KUNIT_EXPECT_EQ(test, f->sk->sk_pacing_rate, 2020000UL);

	/* After slow start: 120 %. Let DEC end at 67 packets. */
	ack_rs(f, 1, 1, 100, 100);
	KUNIT_ASSERT_EQ(test, mode_of(test, f), XT_DEC_ECN);
	for (i = 0; i < 98; i++)
		ack(f, 1);
	KUNIT_ASSERT_EQ(test, mode_of(test, f), XT_CA);
	KUNIT_EXPECT_EQ(test, f->sk->sk_pacing_rate,
			(unsigned long)tcp_snd_cwnd(f->tp) * 10000 * 120 / 100);

	/* SO_MAX_PACING_RATE caps it. */
	f->sk->sk_max_pacing_rate = 300000;
	ack(f, 1);
	KUNIT_EXPECT_EQ(test, f->sk->sk_pacing_rate, 300000UL);

	/* A rule's pacing_gain. */
	xr_fixture_reset(f);
	set_param(test, f, "pacing_gain", 200);
	f->tp->snd_ssthresh = 50;	/* taken over past slow start: CA */
	start(f, 100);
	KUNIT_EXPECT_EQ(test, mode_of(test, f), XT_CA);
	KUNIT_EXPECT_EQ(test, f->sk->sk_pacing_rate, 2000000UL);
}

/*
 * Within a round the rate is set again only when the window it follows
 * changes, and at every round's end; in DEC it follows the target.
 */
static void xr_pacing_follows_window_and_rounds(struct kunit *test)
{
	struct xr_fixture *f = test->priv;
	unsigned long rate;
	u32 target;
	int i;

	/* CA at cwnd 100, not cwnd-limited (no growth): 1.2 MB/s. */
	f->tp->snd_ssthresh = 50;
	start(f, 100);
	f->tp->is_cwnd_limited = 0;
	send(f, 100);
	ack(f, 1);			/* ends the round init() began */
	KUNIT_ASSERT_EQ(test, tcp_snd_cwnd(f->tp), 100U);
	KUNIT_EXPECT_EQ(test, f->sk->sk_pacing_rate, 1200000UL);

	/* srtt doubles: the rate follows at the round's end, not before. */
	f->tp->srtt_us = (2 * XT_RTT_US) << 3;
	for (i = 0; i < 98; i++)
		ack(f, 1);
	KUNIT_EXPECT_EQ(test, f->sk->sk_pacing_rate, 1200000UL);
	ack(f, 1);
	KUNIT_EXPECT_EQ(test, f->sk->sk_pacing_rate, 600000UL);

	/* DEC: the target's rate at once, kept while PRR brings cwnd down. */
	send(f, 100);
	ack_rs(f, 1, 1, 100, 100);
	KUNIT_ASSERT_EQ(test, mode_of(test, f), XT_DEC_ECN);
	target = info_of(test, f).dctcp_ab_ecn / XT_MSS;
	KUNIT_EXPECT_LT(test, target, 100U);
	rate = (unsigned long)target * 5000 * 120 / 100;
	KUNIT_EXPECT_EQ(test, f->sk->sk_pacing_rate, rate);
	for (i = 0; i < 10; i++)
		ack(f, 1);
	KUNIT_EXPECT_LT(test, tcp_snd_cwnd(f->tp), 99U);
	KUNIT_EXPECT_EQ(test, f->sk->sk_pacing_rate, rate);
}

/* Growth over one round in CA, from cwnd 100, with a given boost. */
/* Growth over one window of ACKs in CA, from cwnd 1000, with a boost. */
static u32 ca_round_growth(struct kunit *test, struct xr_fixture *f, u32 boost)
{
	int i;

	xr_fixture_reset(f);
	set_param(test, f, "inc_boost", boost);
	f->tp->snd_ssthresh = 500;
	start(f, 1000);
	KUNIT_EXPECT_EQ(test, mode_of(test, f), XT_CA);
	send(f, 1000);
	for (i = 0; i < 1000; i++)
		ack(f, 1);
	return tcp_snd_cwnd(f->tp) - 1000;
}

static void xr_boost_adds_while_marks_sparse(struct kunit *test)
{
	struct xr_fixture *f = test->priv;
	u32 plain = ca_round_growth(test, f, 0);
	u32 boosted = ca_round_growth(test, f, 10);

	/*
	 * 10 packets per window acked on top of Cubic; the window grows by
	 * 1 % meanwhile, so 1000 ACKs give 9.9 of them.
	 */
	KUNIT_EXPECT_GE(test, boosted, plain + 9);
	KUNIT_EXPECT_LE(test, boosted, plain + 10);
}

static void xr_no_boost_when_marks_not_sparse(struct kunit *test)
{
	struct xr_fixture *f = test->priv;
	int i;

	set_param(test, f, "inc_boost", 10);
	f->tp->snd_ssthresh = 500;
	start(f, 1000);
	send(f, 2000);
	/* A round with 1 % marked at 10 MB/s: 100 kB/s marked, above C / 4. */
	for (i = 0; i < 100; i++)
		ack_rs(f, 1, i == 0, 1000000, 1);
	KUNIT_ASSERT_EQ(test, mode_of(test, f), XT_CA);
	/* From the next round on: Cubic alone (nearly flat at the plateau). */
	tcp_snd_cwnd_set(f->tp, 1000);
	for (i = 0; i < 1000; i++)
		ack(f, 1);
	KUNIT_EXPECT_LE(test, tcp_snd_cwnd(f->tp), 1001U);
}

/*
 * Local congestion (a qdisc drop returned to __tcp_transmit_skb()) makes
 * the stack call tcp_enter_cwr(): ssthresh() lands in snd_ssthresh, the
 * state turns CWR, and with cong_control the stack runs no PRR. In slow
 * start, tcp_slow_start() would then clamp cwnd to that ssthresh in one
 * step. The cut must instead come through xregion's own PRR, over a round.
 */
static void xr_local_congestion_reduces_through_prr(struct kunit *test)
{
	struct xr_fixture *f = test->priv;
	u32 prev;
	int i;

	start(f, 100);
	KUNIT_ASSERT_EQ(test, mode_of(test, f), XT_SS);
	send(f, 100);
	tcp_enter_cwr(f->sk);
	KUNIT_ASSERT_EQ(test, (u8)inet_csk(f->sk)->icsk_ca_state, TCP_CA_CWR);
	KUNIT_ASSERT_EQ(test, f->tp->snd_ssthresh, 70U);

	/* The first ACK: PRR lets a packet out instead of stopping at 70. */
	ack(f, 1);
	KUNIT_EXPECT_EQ(test, mode_of(test, f), XT_DEC_LOSS);
	KUNIT_EXPECT_GT(test, tcp_snd_cwnd(f->tp), tcp_packets_in_flight(f->tp));
	fill(f);
	/* The rest of the round: one packet of cwnd per ACK at most. */
	for (i = 0; i < 98; i++) {
		prev = tcp_snd_cwnd(f->tp);
		ack(f, 1);
		fill(f);
		KUNIT_EXPECT_LE(test, prev - min(prev, tcp_snd_cwnd(f->tp)), 1U);
	}
	KUNIT_EXPECT_GE(test, tcp_snd_cwnd(f->tp), 70U);
	KUNIT_EXPECT_LE(test, tcp_snd_cwnd(f->tp), 71U);
	/* The round's last ACK ends the reduction at the target. */
	ack(f, 1);
	KUNIT_EXPECT_EQ(test, mode_of(test, f), XT_CA);
	KUNIT_EXPECT_EQ(test, tcp_snd_cwnd(f->tp), 70U);
}

/*
 * An ECE also makes the stack call tcp_enter_cwr(); the marks on that ACK
 * are xregion's own signal, and sparse ones (here 1 %) cut nothing.
 */
static void xr_ece_cwr_is_not_a_loss(struct kunit *test)
{
	struct xr_fixture *f = test->priv;

	f->tp->snd_ssthresh = 50;
	start(f, 100);
	KUNIT_ASSERT_EQ(test, mode_of(test, f), XT_CA);
	send(f, 100);
	/* tcp_ack(): the ACK's deliveries are counted, then tcp_enter_cwr() */
	tcp_enter_cwr(f->sk);
	ack_rs(f, 1, 1, 100, 1);
	KUNIT_EXPECT_EQ(test, mode_of(test, f), XT_CA);
	KUNIT_EXPECT_GE(test, tcp_snd_cwnd(f->tp), 100U);
}

/* PRR state as the stack leaves it for a cong_control() CCA in CWR */
static void stale_prr(struct xr_fixture *f)
{
	f->tp->prior_cwnd = 400;
	f->tp->prr_delivered = 0;
	f->tp->prr_out = 90;
}

static void expect_fresh_prr(struct kunit *test, struct xr_fixture *f)
{
	KUNIT_EXPECT_EQ(test, f->tp->prior_cwnd, tcp_snd_cwnd(f->tp));
	KUNIT_EXPECT_EQ(test, f->tp->prr_delivered, 0U);
	KUNIT_EXPECT_EQ(test, f->tp->prr_out, 0U);
}

/*
 * Leaving for another CCA mid-episode: the next one (without
 * cong_control()) continues CWR or Recovery with the stack's PRR and ends
 * it at snd_ssthresh, so release() restarts the episode from the current
 * cwnd towards the window xregion meant: its cwnd after sparse marks, the
 * DEC's target in a DEC.
 */
static void xr_release_restarts_episode_at_meant_window(struct kunit *test)
{
	struct xr_fixture *f = test->priv;

	KUNIT_ASSERT_NOT_NULL(test, f->ops->release);
	/* in congestion avoidance (slow start's end would set it itself) */
	f->tp->snd_ssthresh = 50;
	start(f, 100);
	send(f, 100);
	tcp_enter_cwr(f->sk);
	ack_rs(f, 1, 1, 100, 1);
	KUNIT_ASSERT_TRUE(test, inet_csk(f->sk)->icsk_ca_state == TCP_CA_CWR);
	KUNIT_ASSERT_EQ(test, f->tp->snd_ssthresh, 70U);
	stale_prr(f);
	f->ops->release(f->sk);
	KUNIT_EXPECT_EQ(test, f->tp->snd_ssthresh, tcp_snd_cwnd(f->tp));
	expect_fresh_prr(test, f);

	/* strong marks: a DEC to 2/3 of 300 (alpha 1), part way down */
	xr_fixture_reset(f);
	f->tp->snd_ssthresh = 50;
	start(f, 300);
	send(f, 300);
	tcp_enter_cwr(f->sk);
	ack_rs(f, 1, 1, 100, 50);
	KUNIT_ASSERT_EQ(test, mode_of(test, f), XT_DEC_ECN);
	ack(f, 30);
	KUNIT_ASSERT_GT(test, tcp_snd_cwnd(f->tp), 200U);
	stale_prr(f);
	f->ops->release(f->sk);
	KUNIT_EXPECT_EQ(test, f->tp->snd_ssthresh, 200U);
	expect_fresh_prr(test, f);

	/* fast recovery: the loss DEC's target, 0.7 of 100 */
	xr_fixture_reset(f);
	f->tp->snd_ssthresh = 50;
	start(f, 100);
	send(f, 100);
	enter_recovery(test, f);
	stale_prr(f);
	f->ops->release(f->sk);
	KUNIT_EXPECT_EQ(test, f->tp->snd_ssthresh, 70U);
	expect_fresh_prr(test, f);
}

/*
 * release() leaves alone: a reduction not yet applied (ssthresh() called
 * on the send path, no ACK since), an Open socket, a closed one.
 */
static void xr_release_leaves_other_states(struct kunit *test)
{
	struct xr_fixture *f = test->priv;

	f->tp->snd_ssthresh = 50;
	start(f, 100);
	send(f, 100);
	tcp_enter_cwr(f->sk);
	KUNIT_ASSERT_EQ(test, f->tp->snd_ssthresh, 70U);
	stale_prr(f);
	f->ops->release(f->sk);
	KUNIT_EXPECT_EQ(test, f->tp->snd_ssthresh, 70U);
	KUNIT_EXPECT_EQ(test, f->tp->prr_out, 90U);

	xr_fixture_reset(f);
	f->tp->snd_ssthresh = 77;
	start(f, 100);
	f->ops->release(f->sk);
	KUNIT_EXPECT_EQ(test, f->tp->snd_ssthresh, 77U);

	xr_fixture_reset(f);
	f->tp->snd_ssthresh = 50;
	start(f, 100);
	send(f, 100);
	tcp_enter_cwr(f->sk);
	ack_rs(f, 1, 1, 100, 1);
	f->sk->sk_state = TCP_CLOSE;
	f->tp->snd_ssthresh = 10;
	f->ops->release(f->sk);
	KUNIT_EXPECT_EQ(test, f->tp->snd_ssthresh, 10U);
}

static void xr_timeout_returns_to_slow_start(struct kunit *test)
{
	struct xr_fixture *f = test->priv;
	int i;

	f->tp->snd_ssthresh = 50;
	start(f, 100);
	KUNIT_ASSERT_EQ(test, mode_of(test, f), XT_CA);
	/* The stack's tcp_enter_loss(): ssthresh(), event, cwnd = 1. */
	cca_test_enter_loss(f->sk);
	KUNIT_EXPECT_EQ(test, f->tp->snd_ssthresh, 70U);
	KUNIT_EXPECT_EQ(test, tcp_snd_cwnd(f->tp), 1U);
	KUNIT_EXPECT_EQ(test, mode_of(test, f), XT_SS);
	/* Slow start up to ssthresh, then Cubic. */
	send(f, 200);
	for (i = 0; i < 69; i++)
		ack(f, 1);
	KUNIT_EXPECT_EQ(test, tcp_snd_cwnd(f->tp), 70U);
	KUNIT_EXPECT_EQ(test, mode_of(test, f), XT_CA);
}

/*
 * A timeout during a reduction: tcp_enter_loss() calls neither ssthresh()
 * nor CA_EVENT_LOSS while CWR or Recovery has not reached high_seq, only
 * set_state(Loss), with cwnd already 1. xregion still slow starts back to
 * the loss reaction of the window the reduction began from (0.7 of 100),
 * then Cubic: after an ECN DEC whose target was above that (alpha at its
 * floor, 1/16: 96), and after fast recovery.
 */
static void xr_timeout_during_reduction(struct kunit *test)
{
	struct xr_fixture *f = test->priv;
	int i, c;

	for (c = 0; c < 2; c++) {
		xr_fixture_reset(f);
		f->tp->snd_ssthresh = 50;
		f->tp->delivered = 1000;	/* taken over, no CE: alpha 1/16 */
		start(f, 100);
		send(f, 100);
		if (c == 0) {
			/* the ECE ACK: the stack's tcp_enter_cwr(), then DEC */
			tcp_enter_cwr(f->sk);
			ack_rs(f, 1, 1, 100, 30);
			KUNIT_ASSERT_EQ(test, mode_of(test, f), XT_DEC_ECN);
			KUNIT_ASSERT_GT(test, f->tp->snd_ssthresh, 90U);
		} else {
			enter_recovery(test, f);
		}
		ack(f, 10);
		cca_test_enter_loss(f->sk);
		KUNIT_EXPECT_EQ(test, (u8)inet_csk(f->sk)->icsk_ca_state,
				TCP_CA_Loss);
		KUNIT_EXPECT_EQ(test, tcp_snd_cwnd(f->tp), 1U);
		KUNIT_EXPECT_EQ(test, f->tp->snd_ssthresh, 70U);
		KUNIT_EXPECT_EQ(test, mode_of(test, f), XT_SS);
		/* one packet acked a packet: slow start, not one per round */
		send(f, 1);
		ack(f, 1);
		KUNIT_EXPECT_EQ(test, tcp_snd_cwnd(f->tp), 2U);
		send(f, 200);
		for (i = 0; i < 68; i++)
			ack(f, 1);
		KUNIT_EXPECT_EQ(test, tcp_snd_cwnd(f->tp), 70U);
		KUNIT_EXPECT_EQ(test, mode_of(test, f), XT_CA);
	}

	/* A path MTU change in a DEC enters Loss too: no timeout, DEC goes on. */
	xr_fixture_reset(f);
	f->tp->snd_ssthresh = 50;
	start(f, 100);
	send(f, 100);
	enter_recovery(test, f);
	cca_test_mtu_loss(f->sk, 10);
	KUNIT_EXPECT_EQ(test, (u8)inet_csk(f->sk)->icsk_ca_state, TCP_CA_Loss);
	KUNIT_EXPECT_EQ(test, mode_of(test, f), XT_DEC_LOSS);
	KUNIT_EXPECT_EQ(test, f->tp->snd_ssthresh, 70U);
}

/*
 * A timeout found spurious, undone as tcp_undo_cwnd_reduction() does: cwnd
 * from undo_cwnd(), ssthresh back if it was larger, then Open.
 */
static void undo_timeout(struct xr_fixture *f)
{
	tcp_snd_cwnd_set(f->tp, f->ops->undo_cwnd(f->sk));
	if (f->tp->prior_ssthresh > f->tp->snd_ssthresh)
		f->tp->snd_ssthresh = f->tp->prior_ssthresh;
	inet_csk(f->sk)->icsk_ca_state = TCP_CA_Open;
}

/*
 * After a timeout, marks on packets sent before it answer the window the
 * timeout already gave up: slow start goes on. A timeout in a DEC (only
 * set_state(Loss)) and one in INC (ssthresh() and CA_EVENT_LOSS) alike.
 * A sample that began after the timeout is a signal again.
 */
static void xr_timeout_marks_samples_stale(struct kunit *test)
{
	struct xr_fixture *f = test->priv;
	int c;

	for (c = 0; c < 2; c++) {
		xr_fixture_reset(f);
		f->tp->snd_ssthresh = 50;
		f->tp->delivered = 1000;
		start(f, 100);
		send(f, 100);
		if (c == 0) {
			tcp_enter_cwr(f->sk);
			ack_rs(f, 1, 1, 100, 30);
			KUNIT_ASSERT_EQ(test, mode_of(test, f), XT_DEC_ECN);
		}
		ack(f, 10);
		cca_test_enter_loss(f->sk);
		KUNIT_ASSERT_EQ(test, mode_of(test, f), XT_SS);
		KUNIT_ASSERT_EQ(test, tcp_snd_cwnd(f->tp), 1U);

		/*
		 * The newest packet sent before the timeout, marked: its
		 * sample began at the timeout's delivered count. Stale.
		 */
		send(f, 1);
		ack_rs(f, 1, 1, 1, 1);
		KUNIT_EXPECT_EQ(test, mode_of(test, f), XT_SS);
		KUNIT_EXPECT_EQ(test, tcp_snd_cwnd(f->tp), 2U);

		/* a third of the old window's packets marked: stale */
		send(f, 1);
		ack_rs(f, 1, 1, 60, 20);
		KUNIT_EXPECT_EQ(test, mode_of(test, f), XT_SS);
		KUNIT_EXPECT_EQ(test, tcp_snd_cwnd(f->tp), 3U);

		/* every packet of a sample sent after the timeout marked */
		send(f, 2);
		ack_rs(f, 2, 2, 2, 2);
		KUNIT_EXPECT_NE(test, mode_of(test, f), XT_SS);
	}

	/*
	 * A timeout found spurious and undone (the stack's
	 * tcp_undo_cwnd_reduction() takes undo_cwnd()): the window is back,
	 * and the marks on what it sent are a signal again.
	 */
	xr_fixture_reset(f);
	f->tp->snd_ssthresh = 50;
	f->tp->delivered = 1000;
	start(f, 100);
	send(f, 100);
	ack(f, 10);
	cca_test_enter_loss(f->sk);
	KUNIT_ASSERT_EQ(test, mode_of(test, f), XT_SS);
	undo_timeout(f);
	KUNIT_ASSERT_EQ(test, tcp_snd_cwnd(f->tp), 100U);
	ack_rs(f, 1, 1, 60, 60);
	KUNIT_EXPECT_EQ(test, mode_of(test, f), XT_DEC_ECN);
}

/*
 * cwnd set outside cong_control() reaches the next ACK's work: after an
 * undo the pacing rate is the restored window's, and a clamp lowered below
 * cwnd (BPF's TCP_BPF_SNDCWND_CLAMP) holds on an ACK that grows nothing.
 */
static void xr_window_set_outside_is_followed(struct kunit *test)
{
	struct xr_fixture *f = test->priv;

	f->tp->snd_ssthresh = 50;
	start(f, 100);
	send(f, 100);
	ack(f, 10);
	cca_test_enter_loss(f->sk);
	send(f, 1);
	ack(f, 1);
	KUNIT_ASSERT_LT(test, f->sk->sk_pacing_rate, 100000UL);
	undo_timeout(f);
	KUNIT_ASSERT_GE(test, tcp_snd_cwnd(f->tp), 100U);
	ack(f, 1);
	/* 10 000 B/s a packet of cwnd, at 120 % */
	KUNIT_EXPECT_EQ(test, f->sk->sk_pacing_rate,
			12000UL * tcp_snd_cwnd(f->tp));

	xr_fixture_reset(f);
	f->tp->snd_ssthresh = 50;
	start(f, 100);
	send(f, 100);
	ack(f, 1);
	ack(f, 1);
	f->tp->snd_cwnd_clamp = 60;
	ack(f, 1);
	KUNIT_EXPECT_LE(test, tcp_snd_cwnd(f->tp), 60U);
}

static void xr_undo_restores_window(struct kunit *test)
{
	struct xr_fixture *f = test->priv;

	start(f, 100);
	send(f, 100);
	/* The stack enters recovery: records prior_cwnd, calls ssthresh(). */
	enter_recovery(test, f);
	ack(f, 1);
	KUNIT_EXPECT_LT(test, tcp_snd_cwnd(f->tp), 100U);
	/* Spurious: back to 100, and out of DEC. */
	KUNIT_EXPECT_EQ(test, f->ops->undo_cwnd(f->sk), 100U);
	KUNIT_EXPECT_EQ(test, mode_of(test, f), XT_CA);
}

static void xr_falls_back_without_ecn(struct kunit *test)
{
	struct xr_fixture *f = test->priv;
	const struct tcp_congestion_ops *now;

	f->tp->ecn_flags = 0;
	inet_sk(f->sk)->tos = INET_ECN_ECT_0;
	start(f, 100);
	now = inet_csk(f->sk)->icsk_ca_ops;
	KUNIT_EXPECT_PTR_EQ(test, now, f->cca->fallback_ops);
	KUNIT_ASSERT_PTR_NE(test, now, f->ops);
	/* No ECT on a connection that did not negotiate ECN. */
	KUNIT_EXPECT_FALSE(test, now->flags & TCP_CONG_NEEDS_ECN);
	KUNIT_EXPECT_EQ(test, inet_sk(f->sk)->tos & INET_ECN_MASK, 0);
	/* Same algorithm: a loss still leads to DEC. */
	send(f, 100);
	cca_test_enter_recovery(f->sk, false);
	ack(f, 1);
	KUNIT_EXPECT_EQ(test, mode_of(test, f), XT_DEC_LOSS);
}

static void xr_registers_cong_control_and_ecn(struct kunit *test)
{
	struct xr_fixture *f = test->priv;

	KUNIT_EXPECT_NOT_NULL(test, f->ops->cong_control);
	KUNIT_EXPECT_TRUE(test, f->ops->flags & TCP_CONG_NEEDS_ECN);
	KUNIT_EXPECT_TRUE(test, f->cca->features & CCAAS_CCA_F_CONG_CONTROL);
	KUNIT_EXPECT_TRUE(test, f->cca->features & CCAAS_CCA_F_NEEDS_ECN);
	KUNIT_EXPECT_TRUE(test, f->cca->features & CCAAS_CCA_F_NONECN_OK);
	KUNIT_EXPECT_EQ(test, f->cca->version, CCAAS_VERSION(1, 0, 1));
}

/* --- the shared helpers ------------------------------------------------ */

static void prr_spreads_cut_over_a_round(struct kunit *test)
{
	struct tcp_sock *tp = kunit_kzalloc(test, sizeof(*tp), GFP_KERNEL);
	struct ccaas_prr prr;
	int i;

	KUNIT_ASSERT_NOT_NULL(test, tp);
	tp->snd_cwnd_clamp = ~0U;
	tcp_snd_cwnd_set(tp, 10);
	tp->packets_out = 10;
	ccaas_prr_start(&prr, tp, 5);
	KUNIT_EXPECT_EQ(test, ccaas_prr_start_cwnd(&prr), 10U);
	/* Half of each delivery may be resent; the first ACK sends one. */
	for (i = 0; i < 10; i++) {
		u32 cwnd;

		tp->packets_out--;
		tp->delivered++;
		cwnd = ccaas_prr_cwnd(&prr, tp, 1);
		if (cwnd > tcp_packets_in_flight(tp)) {
			tp->data_segs_out += cwnd - tcp_packets_in_flight(tp);
			tp->packets_out = cwnd;
		}
	}
	KUNIT_EXPECT_EQ(test, tp->packets_out, 5U);
	KUNIT_EXPECT_EQ(test, tp->data_segs_out, 5U);
	/* Below the target, it refills as fast as packets are delivered, */
	tp->packets_out = 2;
	tp->delivered++;
	KUNIT_EXPECT_EQ(test, ccaas_prr_cwnd(&prr, tp, 1), 5U);
	/* but no faster: nothing owed, one packet acked, one sent. */
	tp->data_segs_out += 6;
	KUNIT_EXPECT_EQ(test, ccaas_prr_cwnd(&prr, tp, 1), 3U);
}

static void pacing_unit_and_gain(struct kunit *test)
{
	struct tcp_sock *tp = kunit_kzalloc(test, sizeof(*tp), GFP_KERNEL);
	struct sock *sk = (struct sock *)tp;

	KUNIT_ASSERT_NOT_NULL(test, tp);
	tp->mss_cache = 1448;
	KUNIT_EXPECT_EQ(test, ccaas_pacing_unit(tp), 0U);	/* no RTT yet */
	tp->srtt_us = 10000 << 3;				/* 10 ms */
	KUNIT_EXPECT_EQ(test, ccaas_pacing_unit(tp), 144800U);
	sk->sk_max_pacing_rate = ~0UL;
	sk->sk_pacing_rate = 7;
	ccaas_pacing_set(sk, 0, 10, 200);			/* no RTT: kept */
	KUNIT_EXPECT_EQ(test, sk->sk_pacing_rate, 7UL);
	ccaas_pacing_set(sk, 144800, 10, 150);
	KUNIT_EXPECT_EQ(test, sk->sk_pacing_rate, 2172000UL);
	/* Absurd products saturate, then the cap applies. */
	ccaas_pacing_set(sk, U32_MAX, U32_MAX, 1000);
	KUNIT_EXPECT_EQ(test, sk->sk_pacing_rate, ~0UL);
	ccaas_pacing_request(sk);
	KUNIT_EXPECT_EQ(test, sk->sk_pacing_status, SK_PACING_NEEDED);
	sk->sk_pacing_status = SK_PACING_FQ;
	ccaas_pacing_request(sk);				/* fq stays */
	KUNIT_EXPECT_EQ(test, sk->sk_pacing_status, SK_PACING_FQ);
}

/*
 * Moved to cca_xregion mid-transfer: alpha is the connection's CE fraction,
 * never below the floor.
 */
static void xr_takeover_starts_from_ce_fraction(struct kunit *test)
{
	struct xr_fixture *f = test->priv;

	f->tp->delivered = 1000;
	f->tp->delivered_ce = 250;
	start(f, 100);
	KUNIT_EXPECT_EQ(test, alpha_of(test, f), 256U);
	f->tp->delivered_ce = 0;
	start(f, 100);
	KUNIT_EXPECT_EQ(test, alpha_of(test, f), 64U);
}

static struct kunit_case cca_xregion_cases[] = {
	KUNIT_CASE(xr_takeover_starts_from_ce_fraction),
	KUNIT_CASE(xr_registers_cong_control_and_ecn),
	KUNIT_CASE(xr_initial_window_is_100),
	KUNIT_CASE(xr_slow_start_doubles_per_rtt),
	KUNIT_CASE(xr_first_mark_starts_conservative_slow_start),
	KUNIT_CASE(xr_delay_rise_starts_conservative_slow_start),
	KUNIT_CASE(xr_no_delay_rise_stays_in_slow_start),
	KUNIT_CASE(xr_strong_marks_enter_dec),
	KUNIT_CASE(xr_signal_is_rate_weighted),
	KUNIT_CASE(xr_fully_marked_sample_always_signals),
	KUNIT_CASE(xr_dec_target_ecn_vs_loss),
	KUNIT_CASE(xr_alpha_has_a_floor),
	KUNIT_CASE(xr_prr_reaches_target_within_one_rtt),
	KUNIT_CASE(xr_dec_ends_on_timer_not_next_ack),
	KUNIT_CASE(xr_marks_during_dec_do_not_cut_again),
	KUNIT_CASE(xr_after_dec_only_fresh_marks_signal),
	KUNIT_CASE(xr_back_to_back_recovery_cuts_again),
	KUNIT_CASE(xr_loss_in_ecn_dec_takes_lower_target),
	KUNIT_CASE(xr_paces_from_cwnd_and_srtt),
	KUNIT_CASE(xr_pacing_follows_window_and_rounds),
	KUNIT_CASE(xr_boost_adds_while_marks_sparse),
	KUNIT_CASE(xr_no_boost_when_marks_not_sparse),
	KUNIT_CASE(xr_local_congestion_reduces_through_prr),
	KUNIT_CASE(xr_ece_cwr_is_not_a_loss),
	KUNIT_CASE(xr_release_restarts_episode_at_meant_window),
	KUNIT_CASE(xr_release_leaves_other_states),
	KUNIT_CASE(xr_timeout_returns_to_slow_start),
	KUNIT_CASE(xr_timeout_during_reduction),
	KUNIT_CASE(xr_timeout_marks_samples_stale),
	KUNIT_CASE(xr_window_set_outside_is_followed),
	KUNIT_CASE(xr_undo_restores_window),
	KUNIT_CASE(xr_falls_back_without_ecn),
	{}
};

static struct kunit_suite cca_xregion_suite = {
	.name = "cca_xregion",
	.init = xr_fixture_init,
	.test_cases = cca_xregion_cases,
};

static struct kunit_case cca_xregion_helper_cases[] = {
	KUNIT_CASE(prr_spreads_cut_over_a_round),
	KUNIT_CASE(pacing_unit_and_gain),
	{}
};

static struct kunit_suite cca_xregion_helper_suite = {
	.name = "cca_xregion_helpers",
	.test_cases = cca_xregion_helper_cases,
};

kunit_test_suites(&cca_xregion_suite, &cca_xregion_helper_suite);

MODULE_LICENSE("GPL");
