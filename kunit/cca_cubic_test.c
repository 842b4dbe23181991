// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit tests of the shared Cubic growth helpers of <ccaas/cubic.h>
 * (cca_xregion's), and of what cca_cubic does that cubic does not: its
 * answer to ECN, driven by synthetic ACK sequences on a bare tcp_sock.
 * That cca_cubic is cubic everywhere else, window for window, HyStart
 * included, is kunit/cca_diff_test.c's: it runs both through the stack's
 * own calls, with a clock.
 */
#include <kunit/test.h>
#include <linux/inet_diag.h>
#include <linux/win_minmax.h>
#include <net/tcp.h>

#include <ccaas/ccaas.h>
#include <ccaas/cubic.h>
#include <ccaas/ecn.h>

#include "cca_test.h"

#define C_RFC		CCAAS_CUBIC_C_DEFAULT
#define BETA_RFC	CCAAS_CUBIC_BETA_DEFAULT

/* --- the shared helpers of <ccaas/cubic.h> -------------------------------- */

static const struct ccaas_cubic_cfg cfg_plain = {
	.c = C_RFC, .beta = BETA_RFC,
};

static const struct ccaas_cubic_cfg cfg_friendly = {
	.c = C_RFC, .beta = BETA_RFC, .fast_convergence = 1, .tcp_friendly = 1,
};

static void helper_cbrt_exact(struct kunit *test)
{
	KUNIT_EXPECT_EQ(test, ccaas_cubic_cbrt(0), 0U);
	KUNIT_EXPECT_EQ(test, ccaas_cubic_cbrt(1), 1U);
	KUNIT_EXPECT_EQ(test, ccaas_cubic_cbrt(7), 1U);
	KUNIT_EXPECT_EQ(test, ccaas_cubic_cbrt(8), 2U);
	KUNIT_EXPECT_EQ(test, ccaas_cubic_cbrt(26), 2U);
	KUNIT_EXPECT_EQ(test, ccaas_cubic_cbrt(27), 3U);
	KUNIT_EXPECT_EQ(test, ccaas_cubic_cbrt(1000000000000000000ULL), 1000000U);
	KUNIT_EXPECT_EQ(test, ccaas_cubic_cbrt(999999999999999999ULL), 999999U);
	/* floor(cbrt(2^64 - 1)) = 2642245 */
	KUNIT_EXPECT_EQ(test, ccaas_cubic_cbrt(U64_MAX), 2642245U);
}

static void helper_k_for_known_w_max(struct kunit *test)
{
	/* K = cbrt((1000 - 700) / 0.4004) s = 9.0825 s, to a tick (~1 ms) */
	u32 k = ccaas_cubic_k_us(C_RFC, 1000, 700);

	KUNIT_EXPECT_GE(test, k, 9081000U);
	KUNIT_EXPECT_LE(test, k, 9084000U);
	/* a beta cut from 100: cbrt(30 / 0.4004) = 4.2155 s */
	k = ccaas_cubic_k_us(C_RFC, 100, 70);
	KUNIT_EXPECT_GE(test, k, 4214000U);
	KUNIT_EXPECT_LE(test, k, 4217000U);
	/* an ECN cut by 12 % has a shorter way back: cbrt(12 / C) = 3.1055 s */
	k = ccaas_cubic_k_us(C_RFC, 100, 88);
	KUNIT_EXPECT_GE(test, k, 3104000U);
	KUNIT_EXPECT_LE(test, k, 3107000U);
	/* at or above the plateau: no way back */
	KUNIT_EXPECT_EQ(test, ccaas_cubic_k_us(C_RFC, 100, 100), 0U);
	KUNIT_EXPECT_EQ(test, ccaas_cubic_k_us(C_RFC, 100, 120), 0U);
}

static void helper_curve_shape(struct kunit *test)
{
	s32 k = ccaas_cubic_k_us(C_RFC, 1000, 700);
	u32 w[9];
	int i;

	/* W at -K, -3K/4, ..., +K */
	for (i = 0; i < 9; i++)
		w[i] = ccaas_cubic_window(C_RFC, 1000, (i - 4) * (k / 4));
	KUNIT_EXPECT_EQ(test, w[0], 700U);
	KUNIT_EXPECT_EQ(test, w[4], 1000U);
	KUNIT_EXPECT_GE(test, w[8], 1299U);
	KUNIT_EXPECT_LE(test, w[8], 1300U);
	for (i = 1; i < 4; i++) {
		/* concave below W_max: each step climbs less */
		KUNIT_EXPECT_LT(test, w[i + 1] - w[i], w[i] - w[i - 1]);
		/* convex above: each step climbs more (mirror image) */
		KUNIT_EXPECT_GT(test, w[i + 5] - w[i + 4], w[i + 4] - w[i + 3]);
	}
	/* flat around W_max: 1 s either side moves it by C = 0.4 packet */
	KUNIT_EXPECT_EQ(test, ccaas_cubic_window(C_RFC, 1000, -1000000), 999U);
	KUNIT_EXPECT_EQ(test, ccaas_cubic_window(C_RFC, 1000, 1000000), 1000U);
	/* never negative */
	KUNIT_EXPECT_EQ(test, ccaas_cubic_window(C_RFC, 10, S32_MIN), 0U);
}

static void helper_beta_and_fast_convergence(struct kunit *test)
{
	struct ccaas_cubic cc = {};

	KUNIT_EXPECT_EQ(test, ccaas_cubic_beta_cwnd(100, BETA_RFC), 70U);
	KUNIT_EXPECT_EQ(test, ccaas_cubic_beta_cwnd(1000, BETA_RFC), 700U);
	KUNIT_EXPECT_EQ(test, ccaas_cubic_beta_cwnd(2, BETA_RFC), 2U);

	/* first reduction: W_max is the window it started from */
	ccaas_cubic_on_reduction(&cc, &cfg_friendly, 1000, 700);
	KUNIT_EXPECT_EQ(test, cc.w_max, 1000U);
	KUNIT_EXPECT_EQ(test, cc.w_est, 0U);
	/* below the old W_max: the midpoint between cwnd and target */
	ccaas_cubic_on_reduction(&cc, &cfg_friendly, 900, 630);
	KUNIT_EXPECT_EQ(test, cc.w_max, 765U);
	/* without fast convergence: cwnd */
	cc.w_max = 1000;
	ccaas_cubic_on_reduction(&cc, &cfg_plain, 900, 630);
	KUNIT_EXPECT_EQ(test, cc.w_max, 900U);
	/* undo restores the plateau and restarts the epoch */
	ccaas_cubic_undo(&cc, 1000);
	KUNIT_EXPECT_EQ(test, cc.w_max, 1000U);
	KUNIT_EXPECT_EQ(test, cc.w_est, 0U);
}

/*
 * Run @rounds round trips of @rtt_us on @cc from @cwnd, one ACK per packet;
 * returns the final cwnd.
 */
static u32 helper_run(struct ccaas_cubic *cc, const struct ccaas_cubic_cfg *cfg,
		      u32 cwnd, u32 *now, u32 rtt_us, int rounds)
{
	while (rounds--) {
		u32 n = cwnd, grow = 0, i;

		for (i = 0; i < n; i++) {
			*now += rtt_us / n;
			grow += ccaas_cubic_grow(cc, cfg, cwnd + grow, 1, *now,
						 rtt_us);
		}
		cwnd += grow;
	}
	return cwnd;
}

static void helper_tcp_friendly_small_window(struct kunit *test)
{
	struct ccaas_cubic cc = {};
	u32 now = 1, cwnd;

	/* 14 -> 9 on a 1 ms path: Cubic alone needs K = 2.3 s to recover */
	ccaas_cubic_on_reduction(&cc, &cfg_plain, 14, 9);
	cwnd = helper_run(&cc, &cfg_plain, 9, &now, 1000, 20);
	KUNIT_EXPECT_LE(test, cwnd, 10U);

	/* Reno grows 3 * 0.3 / 1.7 = 0.53 packet per RTT: ~+10 in 20 RTTs */
	ccaas_cubic_reset(&cc);
	ccaas_cubic_on_reduction(&cc, &cfg_friendly, 14, 9);
	cwnd = helper_run(&cc, &cfg_friendly, 9, &now, 1000, 20);
	KUNIT_EXPECT_GE(test, cwnd, 17U);
	KUNIT_EXPECT_LE(test, cwnd, 21U);
}

static void helper_growth_bounded(struct kunit *test)
{
	struct ccaas_cubic cc = {};
	u32 now = 1, cwnd;

	/* far beyond the plateau the target is huge: +50 % per RTT at most */
	cc.w_max = 10;
	cwnd = helper_run(&cc, &cfg_plain, 10, &now, 1000, 1);
	now += 200 * USEC_PER_SEC;
	cwnd = helper_run(&cc, &cfg_plain, 100, &now, 1000, 1);
	KUNIT_EXPECT_EQ(test, cwnd, 150U);
	/* never more than one per two packets ACKed (one may be left over) */
	KUNIT_EXPECT_LE(test, ccaas_cubic_grow(&cc, &cfg_plain, cwnd, 9, now,
					       1000), 5U);
}

static void helper_idle_shifts_the_curve(struct kunit *test)
{
	struct ccaas_cubic cc = {};
	u32 now = 1000, t_k;

	ccaas_cubic_on_reduction(&cc, &cfg_plain, 100, 70);
	ccaas_cubic_grow(&cc, &cfg_plain, 70, 1, now, 0);
	t_k = cc.t_k;
	KUNIT_EXPECT_EQ(test, t_k - now, ccaas_cubic_k_us(C_RFC, 100, 70));
	ccaas_cubic_idle(&cc, 5000000);
	KUNIT_EXPECT_EQ(test, cc.t_k, t_k + 5000000);
	/* idle for minutes: a fresh epoch instead */
	ccaas_cubic_idle(&cc, 300 * USEC_PER_SEC);
	KUNIT_EXPECT_EQ(test, cc.w_est, 0U);
}

/* --- the registered CCA on a synthetic socket --------------------------- */

#define MSS	1000

struct cubic_fixture {
	const struct tcp_congestion_ops *ops;
	struct tcp_sock *tp;
	struct sock *sk;
};

static int cubic_fixture_init(struct kunit *test)
{
	struct cubic_fixture *f;

	f = kunit_kzalloc(test, sizeof(*f), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, f);
	f->ops = cca_test_lookup(test, "cca_cubic")->ops;
	f->tp = cca_test_sock(test, MSS, 100);
	f->sk = (struct sock *)f->tp;
	f->tp->is_cwnd_limited = 1;
	f->tp->max_packets_out = ~0U;
	f->tp->tcp_mstamp = USEC_PER_SEC;
	test->priv = f;
	return 0;
}

/* Start the CCA on the socket, as the stack does after the handshake. */
static void start(struct cubic_fixture *f, bool ecn, u32 min_rtt_us)
{
	f->tp->ecn_flags = ecn ? TCP_ECN_OK : 0;
	minmax_reset(&f->tp->rtt_min, 0, min_rtt_us);
	inet_csk(f->sk)->icsk_ca_ops = f->ops;
	inet_csk(f->sk)->icsk_ca_state = TCP_CA_Open;
	cca_test_init(f->sk, f->ops);
}

static u8 ca_state(struct cubic_fixture *f)
{
	return inet_csk(f->sk)->icsk_ca_state;
}

/* The stack's tcp_set_ca_state(): the CCA hears of it first. */
static void set_state(struct cubic_fixture *f, u8 state)
{
	f->ops->set_state(f->sk, state);
	inet_csk(f->sk)->icsk_ca_state = state;
}

/* Send @pkts packets: they form the next round. */
static void send(struct cubic_fixture *f, u32 pkts)
{
	f->tp->snd_nxt += pkts * MSS;
}

/*
 * One ACK for @pkts packets, with ECE if @ece (then all of them count as
 * CE-marked, as the stack counts them), @us
 * after the previous one. Runs what tcp_ack() runs for a CCA without
 * cong_control, in its order (the same on 6.1, 6.12 and 7.3):
 * tcp_clean_rtx_queue() counts
 * delivered and delivered_ce, then pkts_acked() (no RTT sample here); on
 * ECE, tcp_fastretrans_alert() -> tcp_try_to_open()
 * -> the stack's own tcp_enter_cwr() (ssthresh() and CWR, unless already
 * reducing); then tcp_cong_control(): if @grow and the state is Open,
 * cong_avoid() (PRR in CWR and Recovery is not modelled: end_reduction()
 * lands cwnd on ssthresh as tcp_end_cwnd_reduction() does). ECE needs ECN
 * on (tcp_ecn_rcv_ecn_echo()).
 */
static void ack(struct cubic_fixture *f, u32 pkts, bool ece, bool grow,
		u32 us)
{
	struct ack_sample sample = { .pkts_acked = pkts, .rtt_us = -1 };

	ece = ece && (f->tp->ecn_flags & TCP_ECN_OK);
	f->tp->tcp_mstamp += us;
	f->tp->snd_una += pkts * MSS;
	f->tp->delivered += pkts;
	/* tcp_count_delivered(): every packet of an ECE ACK is marked */
	if (ece)
		f->tp->delivered_ce += pkts;
	f->ops->pkts_acked(f->sk, &sample);
	if (f->ops->in_ack_event)
		f->ops->in_ack_event(f->sk, CA_ACK_SLOWPATH | (ece ? CA_ACK_ECE : 0));
	if (ece)
		tcp_enter_cwr(f->sk);
	if (grow && ca_state(f) == TCP_CA_Open)
		f->ops->cong_avoid(f->sk, f->tp->snd_una, pkts);
}

/* The reduction in progress completes: cwnd lands on ssthresh. */
static void end_reduction(struct cubic_fixture *f)
{
	tcp_snd_cwnd_set(f->tp, f->tp->snd_ssthresh);
	set_state(f, TCP_CA_Open);
}

/* alpha as `ss -ti` sees it, through get_info(). */
static u32 alpha_of(struct kunit *test, struct cubic_fixture *f)
{
	union tcp_cc_info info;
	int attr = 0;
	size_t len;

	len = f->ops->get_info(f->sk, 1 << (INET_DIAG_VEGASINFO - 1), &attr,
			       &info);
	KUNIT_EXPECT_EQ(test, len, sizeof(info.dctcp));
	KUNIT_EXPECT_EQ(test, attr, INET_DIAG_DCTCPINFO);
	KUNIT_EXPECT_EQ(test, info.dctcp.dctcp_enabled, 1);
	return info.dctcp.dctcp_alpha;
}

/*
 * Rounds of 8 packets, a quarter marked, as a DCTCP receiver echoes them
 * (the stack counts every packet of an ECE ACK as marked, and a DCTCP
 * receiver ACKs at each change of CE state): three unmarked packets, then
 * one marked with ECE, twice. alpha goes to ~1/4. The ECE ACKs enter CWR
 * as the stack does; afterwards the connection is back in Open at cwnd
 * 100 with no reduction of its own this round.
 */
static void converge_alpha_quarter(struct kunit *test, struct cubic_fixture *f)
{
	bool mark;
	int round;

	send(f, 8);
	for (round = 0; round < 120; round++) {
		mark = round >= 40;
		ack(f, 3, false, false, 100);
		ack(f, 1, mark, false, 100);
		ack(f, 3, false, false, 100);
		/* the next flight leaves before the round's last ACK */
		send(f, 8);
		ack(f, 1, mark, false, 100);
		if (ca_state(f) == TCP_CA_CWR)
			end_reduction(f);
		tcp_snd_cwnd_set(f->tp, 100);
	}
	KUNIT_ASSERT_GE(test, alpha_of(test, f), 250U);
	KUNIT_ASSERT_LE(test, alpha_of(test, f), 256U);
	/*
	 * A round without marks, so that the next ECE is a new round's (alpha
	 * decays by a sixteenth: 240)
	 */
	ack(f, 8, false, false, 100);
}

static void cubic_registration(struct kunit *test)
{
	const struct ccaas_cca *cca = ccaas_cca_lookup("cca_cubic");

	KUNIT_EXPECT_EQ(test, cca->features,
			(u32)(CCAAS_CCA_F_ECN_OK | CCAAS_CCA_F_NONECN_OK |
			      CCAAS_CCA_F_TRANSITIONAL));
	KUNIT_EXPECT_NULL(test, cca->fallback_ops);
	KUNIT_EXPECT_EQ(test, cca->version, (u32)CCAAS_VERSION(1, 1, 0));
	/* never asks for ECN at the handshake, nor ECT without ECN */
	KUNIT_EXPECT_FALSE(test, cca->ops->flags & TCP_CONG_NEEDS_ECN);
}

static void cubic_loss_cuts_to_beta(struct kunit *test)
{
	struct cubic_fixture *f = test->priv;

	start(f, true, 1000);
	/* fast recovery: ssthresh = 0.7 * cwnd, ECN or not */
	KUNIT_EXPECT_EQ(test, f->ops->ssthresh(f->sk), 70U);
	tcp_snd_cwnd_set(f->tp, 1000);
	KUNIT_EXPECT_EQ(test, f->ops->ssthresh(f->sk), 700U);

	/* a timeout: ssthresh(), then CA_EVENT_LOSS, then the Loss state */
	tcp_snd_cwnd_set(f->tp, 200);
	cca_test_enter_loss(f->sk);
	KUNIT_EXPECT_EQ(test, f->tp->snd_ssthresh, 140U);
}

/* Moved to cca_cubic mid-transfer: alpha is the connection's CE fraction. */
static void cubic_takeover_starts_from_ce_fraction(struct kunit *test)
{
	struct cubic_fixture *f = test->priv;

	f->tp->delivered = 1000;
	f->tp->delivered_ce = 250;
	start(f, true, 1000);
	KUNIT_EXPECT_EQ(test, alpha_of(test, f), 256U);
}

static void cubic_ecn_cut_follows_alpha(struct kunit *test)
{
	struct cubic_fixture *f = test->priv;
	u32 expect;

	start(f, true, 1000);
	KUNIT_EXPECT_EQ(test, alpha_of(test, f), 1024U);
	converge_alpha_quarter(test, f);

	/*
	 * an ECE: CWR with cwnd * (1 - alpha / 2), ~14 % off (the ACK ends a
	 * round of its own four marked packets: alpha 289), not 30 %
	 */
	send(f, 8);
	ack(f, 4, true, false, 100);
	expect = ccaas_alpha_cut(100, alpha_of(test, f));
	KUNIT_EXPECT_EQ(test, ca_state(f), TCP_CA_CWR);
	KUNIT_EXPECT_EQ(test, f->tp->snd_ssthresh, expect);
	KUNIT_EXPECT_GE(test, f->tp->snd_ssthresh, 85U);
	KUNIT_EXPECT_LE(test, f->tp->snd_ssthresh, 88U);
}

static void cubic_ecn_first_cut_is_beta(struct kunit *test)
{
	struct cubic_fixture *f = test->priv;

	/* alpha starts at 1: a cut by 1/2 is capped at a loss's 0.7 */
	start(f, true, 1000);
	send(f, 8);
	ack(f, 4, true, false, 100);
	KUNIT_EXPECT_EQ(test, f->tp->snd_ssthresh, 70U);
}

/*
 * One ECN cut per CWR: while the stack holds CWR (a window), further ECE
 * ACKs cut nothing (tcp_enter_cwr() returns); the next CWR cuts again,
 * from the window the first left.
 */
static void cubic_ecn_cut_per_cwr(struct kunit *test)
{
	struct cubic_fixture *f = test->priv;
	u32 first, second;

	start(f, true, 1000);
	converge_alpha_quarter(test, f);

	send(f, 40);
	ack(f, 4, true, false, 100);
	first = f->tp->snd_ssthresh;
	KUNIT_EXPECT_LT(test, first, 100U);
	ack(f, 4, true, false, 100);
	ack(f, 4, true, false, 100);
	KUNIT_EXPECT_EQ(test, ca_state(f), TCP_CA_CWR);
	KUNIT_EXPECT_EQ(test, f->tp->snd_ssthresh, first);
	end_reduction(f);
	KUNIT_EXPECT_EQ(test, tcp_snd_cwnd(f->tp), first);

	ack(f, 28, false, false, 100);	/* ends the round */
	send(f, 40);
	ack(f, 4, true, false, 100);
	second = f->tp->snd_ssthresh;
	KUNIT_EXPECT_EQ(test, second,
			ccaas_alpha_cut(first, alpha_of(test, f)));
	KUNIT_EXPECT_LT(test, second, first);
}

/*
 * CWR without marks: local congestion from the qdisc (through
 * tcp_enter_cwr(), as an ECE). No CE delivered in this round trip or the
 * last: Cubic's cut, not alpha's. With marks: alpha's, unless it was a
 * tail loss probe's loss.
 */
static void cubic_cwr_without_marks_is_cubic(struct kunit *test)
{
	struct cubic_fixture *f = test->priv;

	start(f, true, 1000);
	converge_alpha_quarter(test, f);
	/* two round trips without marks */
	send(f, 8);
	ack(f, 8, false, false, 100);
	send(f, 8);
	ack(f, 4, false, false, 100);
	tcp_enter_cwr(f->sk);
	KUNIT_EXPECT_EQ(test, ca_state(f), TCP_CA_CWR);
	KUNIT_EXPECT_EQ(test, f->tp->snd_ssthresh, 70U);

	/*
	 * Local congestion while the path marks (a mark in this round trip,
	 * its ECE's CWR over): the proportional cut, as an ECE's
	 */
	end_reduction(f);
	tcp_snd_cwnd_set(f->tp, 100);
	ack(f, 4, false, false, 100);	/* ends the round */
	send(f, 8);
	ack(f, 1, true, false, 100);
	end_reduction(f);
	tcp_snd_cwnd_set(f->tp, 100);
	tcp_enter_cwr(f->sk);
	KUNIT_EXPECT_GE(test, f->tp->snd_ssthresh, 85U);
	end_reduction(f);

	/*
	 * A loss found by a tail loss probe in the same round: the stack
	 * (tcp_process_tlp_ack()) sets up the reduction, enters CWR, ends it
	 * at once and sends CA_EVENT_COMPLETE_CWR, PRR having counted nothing.
	 * Cubic's cut, and cwnd on it.
	 */
	tcp_snd_cwnd_set(f->tp, 100);
	f->tp->prior_cwnd = 100;
	f->tp->prr_delivered = 0;
	f->tp->snd_ssthresh = f->ops->ssthresh(f->sk);
	set_state(f, TCP_CA_CWR);
	KUNIT_EXPECT_GE(test, f->tp->snd_ssthresh, 85U);
	tcp_snd_cwnd_set(f->tp, f->tp->snd_ssthresh);
	f->ops->cwnd_event(f->sk, CA_EVENT_COMPLETE_CWR);
	KUNIT_EXPECT_EQ(test, f->tp->snd_ssthresh, 70U);
	KUNIT_EXPECT_EQ(test, tcp_snd_cwnd(f->tp), 70U);
}

static void cubic_loss_overrides_ecn_cut(struct kunit *test)
{
	struct cubic_fixture *f = test->priv;

	start(f, true, 1000);
	converge_alpha_quarter(test, f);

	/* a loss during the CWR of an ECN cut: beta from the window before */
	send(f, 8);
	ack(f, 4, true, false, 100);
	KUNIT_EXPECT_GE(test, f->tp->snd_ssthresh, 85U);
	cca_test_enter_recovery(f->sk, false);
	KUNIT_EXPECT_EQ(test, f->tp->snd_ssthresh, 70U);
	end_reduction(f);

	/* an ACK with ECE that also shows a loss: beta, not alpha / 2 */
	tcp_snd_cwnd_set(f->tp, 100);
	ack(f, 4, false, false, 100);	/* ends the round */
	send(f, 8);
	cca_test_enter_recovery(f->sk, true);
	KUNIT_EXPECT_EQ(test, f->tp->snd_ssthresh, 70U);
	end_reduction(f);

	/*
	 * A timeout after an ECE, before CWR ends: the ECE ACK enters CWR
	 * with the ECN cut; tcp_enter_loss() in CWR, the window not yet
	 * acknowledged, calls neither ssthresh() nor CA_EVENT_LOSS, only
	 * set_state(Loss). Beta too, and cwnd 1.
	 */
	tcp_snd_cwnd_set(f->tp, 100);
	ack(f, 8, false, false, 100);	/* ends the round */
	send(f, 8);
	ack(f, 4, true, false, 100);
	KUNIT_ASSERT_EQ(test, ca_state(f), TCP_CA_CWR);
	KUNIT_EXPECT_GE(test, f->tp->snd_ssthresh, 85U);
	cca_test_enter_loss(f->sk);
	KUNIT_EXPECT_EQ(test, ca_state(f), TCP_CA_Loss);
	KUNIT_EXPECT_EQ(test, tcp_snd_cwnd(f->tp), 1U);
	KUNIT_EXPECT_EQ(test, f->tp->snd_ssthresh, 70U);
}

/* A path MTU change during the CWR of an ECN cut is no loss: the cut stays. */
static void cubic_mtu_loss_keeps_ecn_cut(struct kunit *test)
{
	struct cubic_fixture *f = test->priv;
	u32 ssthresh;

	start(f, true, 1000);
	converge_alpha_quarter(test, f);
	tcp_snd_cwnd_set(f->tp, 100);
	ack(f, 8, false, false, 100);	/* ends the round */
	send(f, 8);
	ack(f, 4, true, false, 100);
	KUNIT_ASSERT_EQ(test, ca_state(f), TCP_CA_CWR);
	ssthresh = f->tp->snd_ssthresh;
	KUNIT_ASSERT_GE(test, ssthresh, 85U);
	f->tp->packets_out = tcp_snd_cwnd(f->tp);
	cca_test_mtu_loss(f->sk, 2);
	KUNIT_EXPECT_EQ(test, ca_state(f), TCP_CA_Loss);
	KUNIT_EXPECT_EQ(test, f->tp->snd_ssthresh, ssthresh);
}

static void cubic_without_ecn(struct kunit *test)
{
	struct cubic_fixture *f = test->priv;
	union tcp_cc_info info;
	int attr = 0;

	inet_sk(f->sk)->tos = 0;
	start(f, false, 1000);
	/* stays on cca_cubic itself, no ECT, and ss shows no ECN state */
	KUNIT_EXPECT_PTR_EQ(test, inet_csk(f->sk)->icsk_ca_ops, f->ops);
	KUNIT_EXPECT_FALSE(test, f->ops->flags & TCP_CONG_NEEDS_ECN);
	KUNIT_EXPECT_EQ(test, inet_sk(f->sk)->tos & INET_ECN_MASK, 0);
	KUNIT_EXPECT_EQ(test, f->ops->get_info(f->sk,
					       1 << (INET_DIAG_VEGASINFO - 1),
					       &attr, &info), (size_t)0);

	/* slow start, then a loss */
	send(f, 10);
	ack(f, 10, false, true, 1000);
	KUNIT_EXPECT_EQ(test, tcp_snd_cwnd(f->tp), 110U);
	cca_test_enter_recovery(f->sk, false);
	KUNIT_EXPECT_EQ(test, f->tp->snd_ssthresh, 77U);
	end_reduction(f);
	KUNIT_EXPECT_EQ(test, tcp_snd_cwnd(f->tp), 77U);

	/* no CE feedback of its own: the stack's RFC 3168 one */
	f->ops->cwnd_event(f->sk, CA_EVENT_ECN_IS_CE);
	KUNIT_EXPECT_FALSE(test, f->tp->ecn_flags & TCP_ECN_DEMAND_CWR);
}

static void cubic_undo_restores(struct kunit *test)
{
	struct cubic_fixture *f = test->priv;

	start(f, false, 1000);
	cca_test_enter_recovery(f->sk, false);
	end_reduction(f);
	KUNIT_EXPECT_EQ(test, tcp_snd_cwnd(f->tp), 70U);
	KUNIT_EXPECT_EQ(test, f->ops->undo_cwnd(f->sk), 100U);
}

static struct kunit_case cca_cubic_helper_cases[] = {
	KUNIT_CASE(helper_cbrt_exact),
	KUNIT_CASE(helper_k_for_known_w_max),
	KUNIT_CASE(helper_curve_shape),
	KUNIT_CASE(helper_beta_and_fast_convergence),
	KUNIT_CASE(helper_tcp_friendly_small_window),
	KUNIT_CASE(helper_growth_bounded),
	KUNIT_CASE(helper_idle_shifts_the_curve),
	{}
};

static struct kunit_suite cca_cubic_helper_suite = {
	.name = "cca_cubic_helper",
	.test_cases = cca_cubic_helper_cases,
};

static struct kunit_case cca_cubic_cases[] = {
	KUNIT_CASE(cubic_takeover_starts_from_ce_fraction),
	KUNIT_CASE(cubic_registration),
	KUNIT_CASE(cubic_loss_cuts_to_beta),
	KUNIT_CASE(cubic_ecn_cut_follows_alpha),
	KUNIT_CASE(cubic_ecn_first_cut_is_beta),
	KUNIT_CASE(cubic_ecn_cut_per_cwr),
	KUNIT_CASE(cubic_cwr_without_marks_is_cubic),
	KUNIT_CASE(cubic_loss_overrides_ecn_cut),
	KUNIT_CASE(cubic_mtu_loss_keeps_ecn_cut),
	KUNIT_CASE(cubic_without_ecn),
	KUNIT_CASE(cubic_undo_restores),
	{}
};

static struct kunit_suite cca_cubic_suite = {
	.name = "cca_cubic",
	.init = cubic_fixture_init,
	.test_cases = cca_cubic_cases,
};

kunit_test_suites(&cca_cubic_helper_suite, &cca_cubic_suite);

MODULE_LICENSE("GPL");
