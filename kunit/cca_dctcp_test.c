// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit tests of cca_dctcp: the shared alpha arithmetic, and the registered
 * CCA's own callbacks driven by synthetic ACK sequences on a bare tcp_sock.
 */
#include <kunit/test.h>
#include <linux/inet_diag.h>
#include <net/tcp.h>

#include <ccaas/ccaas.h>
#include <ccaas/ecn.h>

#include "cca_test.h"

/* --- the shared EWMA helper ------------------------------------------- */

static void alpha_decays_by_g_without_marks(struct kunit *test)
{
	/* g = 1/16: 1024 - 1024/16 */
	KUNIT_EXPECT_EQ(test, ccaas_alpha_update(1024, 10, 0, 4), 960U);
	KUNIT_EXPECT_EQ(test, ccaas_alpha_update(960, 10, 0, 4), 900U);
}

static void alpha_tracks_marked_fraction(struct kunit *test)
{
	/* From 0, half the round marked: g * F = 1/16 * 512 = 32. */
	KUNIT_EXPECT_EQ(test, ccaas_alpha_update(0, 100, 50, 4), 32U);
	/* Every packet marked keeps alpha at 1. */
	KUNIT_EXPECT_EQ(test, ccaas_alpha_update(1024, 10, 10, 4), 1024U);
	/* g = 1 makes alpha the last round's fraction. */
	KUNIT_EXPECT_EQ(test, ccaas_alpha_update(1000, 4, 1, 0), 256U);
}

static void alpha_small_value_drains_to_zero(struct kunit *test)
{
	/* 10 >> 4 == 0: a plain EWMA would stick at 10 forever. */
	KUNIT_EXPECT_EQ(test, ccaas_alpha_update(10, 10, 0, 4), 0U);
}

static void alpha_never_exceeds_one(struct kunit *test)
{
	/* More marks than deliveries (a counting race) is clamped. */
	KUNIT_EXPECT_EQ(test, ccaas_alpha_update(1024, 1, 5, 4), 1024U);
}

static void alpha_cut_is_half_alpha(struct kunit *test)
{
	KUNIT_EXPECT_EQ(test, ccaas_alpha_cut(100, 1024), 50U);
	KUNIT_EXPECT_EQ(test, ccaas_alpha_cut(100, 512), 75U);
	KUNIT_EXPECT_EQ(test, ccaas_alpha_cut(100, 0), 100U);
	KUNIT_EXPECT_EQ(test, ccaas_alpha_cut(3, 1024), 2U);
}

static void alpha_seed_is_the_connections_ce_fraction(struct kunit *test)
{
	struct tcp_sock *tp = cca_test_sock(test, 1000, 100);

	/* a new connection (or one of few packets) keeps the CCA's start */
	tp->delivered = CCAAS_ALPHA_SEED_MIN - 1;
	tp->delivered_ce = CCAAS_ALPHA_SEED_MIN - 1;
	KUNIT_EXPECT_EQ(test, ccaas_alpha_seed(tp, 1024), 1024U);
	KUNIT_EXPECT_EQ(test, ccaas_alpha_seed(tp, 300), 300U);
	/* one taken over: 5 % of 1000 packets marked, 51.2/1024 */
	tp->delivered = 1000;
	tp->delivered_ce = 50;
	KUNIT_EXPECT_EQ(test, ccaas_alpha_seed(tp, 1024), 51U);
	tp->delivered_ce = 0;
	KUNIT_EXPECT_EQ(test, ccaas_alpha_seed(tp, 1024), 0U);
	tp->delivered_ce = 1000;
	KUNIT_EXPECT_EQ(test, ccaas_alpha_seed(tp, 0), 1024U);
	/* the counters wrap at 2^32 apart: never above 1 */
	tp->delivered_ce = 5000;
	KUNIT_EXPECT_EQ(test, ccaas_alpha_seed(tp, 0), 1024U);
}

/* --- the registered CCA on a synthetic socket --------------------------- */

struct dctcp_fixture {
	const struct tcp_congestion_ops *ops;
	struct tcp_sock *tp;
	struct sock *sk;
};

static int dctcp_fixture_init(struct kunit *test)
{
	struct dctcp_fixture *f;

	f = kunit_kzalloc(test, sizeof(*f), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, f);
	f->ops = cca_test_lookup(test, "cca_dctcp")->ops;
	f->tp = cca_test_sock(test, 1000, 100);
	f->sk = (struct sock *)f->tp;
	test->priv = f;
	return 0;
}

/* Start the CCA on the socket, as the stack does after the handshake. */
static void start(struct dctcp_fixture *f, bool ecn)
{
	f->tp->ecn_flags = ecn ? TCP_ECN_OK : 0;
	inet_sk(f->sk)->tos = INET_ECN_ECT_0;
	inet_csk(f->sk)->icsk_ca_ops = f->ops;
	cca_test_init(f->sk, f->ops);
}

/* Send @pkts packets: they form the next round. */
static void send(struct dctcp_fixture *f, u32 pkts)
{
	f->tp->snd_nxt += pkts * f->tp->mss_cache;
}

/*
 * One ACK for @pkts packets, with ECE if @ece, as tcp_ack() delivers it:
 * tcp_clean_rtx_queue() counts the packets delivered, all of them CE on an
 * ECE ACK (tcp_count_delivered(); a DCTCP receiver ACKs at once when the CE
 * state changes, so an ACK never covers marked and unmarked packets), then
 * tcp_in_ack_event() (header prediction fails on ECE: the slow path).
 */
static void ack(struct dctcp_fixture *f, u32 pkts, bool ece)
{
	f->tp->snd_una += pkts * f->tp->mss_cache;
	f->tp->delivered += pkts;
	if (ece)
		f->tp->delivered_ce += pkts;
	f->ops->in_ack_event(f->sk, ece ? CA_ACK_SLOWPATH | CA_ACK_ECE :
					   CA_ACK_WIN_UPDATE);
}

/* alpha as `ss -ti` sees it, through get_info(). */
static u32 alpha_of(struct kunit *test, struct dctcp_fixture *f)
{
	union tcp_cc_info info;
	int attr = 0;
	size_t len;

	len = f->ops->get_info(f->sk, 1 << (INET_DIAG_VEGASINFO - 1), &attr,
			       &info);
	KUNIT_EXPECT_EQ(test, len, sizeof(info.dctcp));
	KUNIT_EXPECT_EQ(test, attr, INET_DIAG_DCTCPINFO);
	return info.dctcp.dctcp_alpha;
}

static void dctcp_alpha_updates_once_per_round(struct kunit *test)
{
	struct dctcp_fixture *f = test->priv;
	int i;

	/* The round in flight when the CCA starts is the first one. */
	send(f, 10);
	start(f, true);
	KUNIT_EXPECT_EQ(test, alpha_of(test, f), 1024U);

	/* Round 1: 10 ACKs of 1 packet, none marked. */
	for (i = 0; i < 9; i++) {
		ack(f, 1, false);
		KUNIT_EXPECT_EQ_MSG(test, alpha_of(test, f), 1024U,
				    "alpha moved mid-round, ACK %d", i);
	}
	/* Round 2 leaves before round 1's last ACK arrives. */
	send(f, 10);
	ack(f, 1, false);
	KUNIT_EXPECT_EQ(test, alpha_of(test, f), 960U);

	/* Round 2 (delayed ACKs: 2 packets each), all marked. */
	for (i = 0; i < 4; i++) {
		ack(f, 2, true);
		KUNIT_EXPECT_EQ(test, alpha_of(test, f), 960U);
	}
	ack(f, 2, true);
	/* 960 - 960/16 + 1024/16 */
	KUNIT_EXPECT_EQ(test, alpha_of(test, f), 964U);
}

static void dctcp_cut_follows_alpha(struct kunit *test)
{
	struct dctcp_fixture *f = test->priv;
	int round;

	start(f, true);
	/*
	 * 40 unmarked rounds drain alpha; then a quarter marked for 80. Each
	 * round's last ACK comes after the next round left, as ACK clocking
	 * sends it: the round the CCA sees is the 8 packets of one flight.
	 */
	send(f, 8);
	for (round = 0; round < 120; round++) {
		ack(f, 3, false);
		ack(f, 1, round >= 40);
		ack(f, 3, false);
		send(f, 8);
		ack(f, 1, round >= 40);
	}
	/* alpha converges on F = 1/4 = 256/1024 (EWMA, within 2 %). */
	KUNIT_EXPECT_GE(test, alpha_of(test, f), 250U);
	KUNIT_EXPECT_LE(test, alpha_of(test, f), 256U);
	/* cwnd * (1 - alpha / 2) with alpha ~ 1/4: ~87.5 of 100. */
	KUNIT_EXPECT_EQ(test, f->ops->ssthresh(f->sk),
			ccaas_alpha_cut(100, alpha_of(test, f)));
	KUNIT_EXPECT_GE(test, f->ops->ssthresh(f->sk), 87U);
	KUNIT_EXPECT_LE(test, f->ops->ssthresh(f->sk), 88U);
}

static void dctcp_loss_halves_and_undo_restores(struct kunit *test)
{
	struct dctcp_fixture *f = test->priv;

	int round;

	start(f, true);
	/* Drain alpha so an ECN cut would be tiny: 1024 needs ~110 rounds. */
	for (round = 0; round < 200 && alpha_of(test, f); round++) {
		send(f, 4);
		ack(f, 4, false);
	}
	KUNIT_ASSERT_EQ(test, alpha_of(test, f), 0U);
	KUNIT_EXPECT_EQ(test, f->ops->ssthresh(f->sk), 100U);

	cca_test_enter_recovery(f->sk, false);
	KUNIT_EXPECT_EQ(test, f->tp->snd_ssthresh, 50U);

	tcp_snd_cwnd_set(f->tp, 50);
	KUNIT_EXPECT_EQ(test, f->ops->undo_cwnd(f->sk), 100U);
}

static void dctcp_falls_back_to_reno_without_ecn(struct kunit *test)
{
	struct dctcp_fixture *f = test->priv;
	union tcp_cc_info info;
	int attr;

	const struct tcp_congestion_ops *now;

	start(f, false);
	now = inet_csk(f->sk)->icsk_ca_ops;
	/* The socket moved to the registered fallback ops ... */
	KUNIT_EXPECT_PTR_EQ(test, now, ccaas_cca_lookup("cca_dctcp")->fallback_ops);
	KUNIT_ASSERT_PTR_NE(test, now, f->ops);
	/*
	 * ... which do not ask for ECN: the stack sets ECT on every packet
	 * after init() when the socket's ops carry TCP_CONG_NEEDS_ECN.
	 */
	KUNIT_EXPECT_FALSE(test, now->flags & TCP_CONG_NEEDS_ECN);
	KUNIT_EXPECT_EQ(test, inet_sk(f->sk)->tos & INET_ECN_MASK, 0);
	/* A reduction halves like Reno. */
	KUNIT_EXPECT_EQ(test, now->ssthresh(f->sk), 50U);
	/* ss shows the fallback. */
	now->get_info(f->sk, 1 << (INET_DIAG_VEGASINFO - 1), &attr, &info);
	KUNIT_EXPECT_EQ(test, info.dctcp.dctcp_enabled, 0);
}

static void dctcp_keeps_ect_with_ecn(struct kunit *test)
{
	struct dctcp_fixture *f = test->priv;

	start(f, true);
	KUNIT_EXPECT_PTR_EQ(test, inet_csk(f->sk)->icsk_ca_ops, f->ops);
	KUNIT_EXPECT_EQ(test, inet_sk(f->sk)->tos & INET_ECN_MASK,
			INET_ECN_ECT_0);
}

static void dctcp_grows_like_reno(struct kunit *test)
{
	struct dctcp_fixture *f = test->priv;

	start(f, true);
	f->tp->snd_ssthresh = 200;
	f->tp->is_cwnd_limited = 1;
	f->tp->max_packets_out = 100;
	/* Slow start: one packet of cwnd per packet acked. */
	f->ops->cong_avoid(f->sk, 0, 10);
	KUNIT_EXPECT_EQ(test, tcp_snd_cwnd(f->tp), 110U);
	/* Congestion avoidance: one packet per cwnd acked. */
	f->tp->snd_ssthresh = 110;
	f->ops->cong_avoid(f->sk, 0, 110);
	KUNIT_EXPECT_EQ(test, tcp_snd_cwnd(f->tp), 111U);
}

/*
 * A connection moved to cca_dctcp mid-transfer starts from its own CE
 * fraction: 10 % marked cuts 5 %, not half.
 */
static void dctcp_takeover_starts_from_ce_fraction(struct kunit *test)
{
	struct dctcp_fixture *f = test->priv;

	f->tp->delivered = 2000;
	f->tp->delivered_ce = 200;
	start(f, true);
	KUNIT_EXPECT_EQ(test, alpha_of(test, f), 102U);
	KUNIT_EXPECT_EQ(test, f->ops->ssthresh(f->sk), 96U);
}

static struct kunit_case ccaas_alpha_cases[] = {
	KUNIT_CASE(alpha_seed_is_the_connections_ce_fraction),
	KUNIT_CASE(alpha_decays_by_g_without_marks),
	KUNIT_CASE(alpha_tracks_marked_fraction),
	KUNIT_CASE(alpha_small_value_drains_to_zero),
	KUNIT_CASE(alpha_never_exceeds_one),
	KUNIT_CASE(alpha_cut_is_half_alpha),
	{}
};

static struct kunit_suite ccaas_alpha_suite = {
	.name = "ccaas_alpha",
	.test_cases = ccaas_alpha_cases,
};

static struct kunit_case cca_dctcp_cases[] = {
	KUNIT_CASE(dctcp_takeover_starts_from_ce_fraction),
	KUNIT_CASE(dctcp_alpha_updates_once_per_round),
	KUNIT_CASE(dctcp_cut_follows_alpha),
	KUNIT_CASE(dctcp_loss_halves_and_undo_restores),
	KUNIT_CASE(dctcp_falls_back_to_reno_without_ecn),
	KUNIT_CASE(dctcp_keeps_ect_with_ecn),
	KUNIT_CASE(dctcp_grows_like_reno),
	{}
};

static struct kunit_suite cca_dctcp_suite = {
	.name = "cca_dctcp",
	.init = dctcp_fixture_init,
	.test_cases = cca_dctcp_cases,
};

kunit_test_suites(&ccaas_alpha_suite, &cca_dctcp_suite);

MODULE_LICENSE("GPL");
