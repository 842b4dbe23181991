// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit tests of cca_hpcc: the registered CCA's callbacks, driven through
 * cong_control with synthetic rate samples on a bare tcp_sock.
 *
 * The synthetic path: mss 1000 bytes, base RTT T = 100 ms (the minimum
 * RTT), B = 80 Mbit/s (the rule's bw), so B * T is 1000 packets, and a
 * sample of d packets over T carries d / 1000 of B. get_info() shows the
 * state in the DCTCP layout: ce_state the stage, alpha U (1/1024), ab_ecn
 * W_ref in bytes, ab_tot T in us.
 */
#include <kunit/test.h>
#include <linux/inet_diag.h>
#include <linux/win_minmax.h>
#include <net/tcp.h>

#include <ccaas/ccaas.h>
#include <ccaas/sock.h>

#include "cca_test.h"

#define HT_MSS		1000
#define HT_T_US		100000
#define HT_BW		80		/* Mbit/s: B * T = 1000 packets */
#define HT_BDP		1000
#define HT_NOW_US	5000000
#define HT_ONE		1024		/* U = 1 */

struct hp_fixture {
	const struct ccaas_cca *cca;
	const struct tcp_congestion_ops *ops;
	struct tcp_sock *tp;
	struct sock *sk;
};

static unsigned int param_index(struct kunit *test, struct hp_fixture *f,
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
static void set_param(struct kunit *test, struct hp_fixture *f,
		      const char *name, u32 value)
{
	struct ccaas_sock *cs = ccaas_sock(f->sk);
	unsigned int i = param_index(test, f, name);

	KUNIT_ASSERT_LT(test, i, CCAAS_SOCK_PARAMS);
	cs->params[i] = value;
	cs->param_set |= 1U << i;
}

/* A fresh established socket, T known, on a rule with bw = HT_BW. */
static void hp_fixture_reset(struct kunit *test, struct hp_fixture *f)
{
	memset(f->tp, 0, sizeof(*f->tp));
	cca_test_sock_init(f->tp, HT_MSS, TCP_INIT_CWND);
	f->sk->sk_max_pacing_rate = ~0UL;
	f->sk->sk_pacing_rate = ~0UL;
	f->tp->srtt_us = HT_T_US << 3;
	minmax_reset(&f->tp->rtt_min, 0, HT_T_US);
	f->tp->tcp_mstamp = HT_NOW_US;
	f->tp->is_cwnd_limited = 1;
	inet_csk(f->sk)->icsk_ca_ops = f->ops;
	set_param(test, f, "bw", HT_BW);
}

static int hp_fixture_init(struct kunit *test)
{
	const struct ccaas_cca *cca = cca_test_lookup(test, "cca_hpcc");
	struct hp_fixture *f;

	f = kunit_kzalloc(test, sizeof(*f), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, f);
	f->tp = kunit_kzalloc(test, sizeof(*f->tp), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, f->tp);
	f->cca = cca;
	f->ops = cca->ops;
	f->sk = (struct sock *)f->tp;
	test->priv = f;
	hp_fixture_reset(test, f);
	return 0;
}

static void send(struct hp_fixture *f, u32 pkts)
{
	f->tp->snd_nxt += pkts * HT_MSS;
	f->tp->packets_out += pkts;
	f->tp->data_segs_out += pkts;
}

/*
 * Start on a connection that already sent data, a window of @cwnd packets
 * in flight: the round init() starts ends when that window is acked.
 */
static void start(struct hp_fixture *f, u32 cwnd)
{
	tcp_snd_cwnd_set(f->tp, cwnd);
	send(f, cwnd);
	cca_test_init(f->sk, f->ops);
}

static void cong_control(struct hp_fixture *f, const struct rate_sample *rs)
{
#ifdef CCAAS_HAVE_CONG_CONTROL_ACK_FLAG
	f->ops->cong_control(f->sk, f->tp->snd_una, 0, rs);
#else
	f->ops->cong_control(f->sk, rs);
#endif
}

/*
 * One ACK of @pkts packets, @tau_us after the previous one, whose sample
 * has RTT @rtt_us and @rate_pkts packets delivered over one T (so the
 * rate term is rate_pkts / 1000), @ce of them marked.
 */
static void ack_full(struct hp_fixture *f, u32 pkts, u32 tau_us, u32 rtt_us,
		     u32 rate_pkts, u32 ce, bool app_limited)
{
	struct rate_sample rs = {
		.prior_delivered = f->tp->delivered,
		.delivered = rate_pkts,
		.delivered_ce = ce,
		.acked_sacked = pkts,
		.interval_us = HT_T_US,
		.rtt_us = rtt_us,
		.is_app_limited = app_limited,
	};

	f->tp->tcp_mstamp += tau_us;
	f->tp->snd_una += pkts * HT_MSS;
	f->tp->delivered += pkts;
	f->tp->delivered_ce += ce;
	f->tp->packets_out -= min(pkts, f->tp->packets_out);
	/* what was marked lost leaves the queue first (oldest first) */
	f->tp->lost_out -= min(pkts, f->tp->lost_out);
	cong_control(f, &rs);
}

/*
 * Eight T of samples at (rtt_us, rate_pkts), one per T / 8 (the most one
 * weighs), U converging to their u; the last one acks @pkts packets.
 */
static void ack_conv(struct hp_fixture *f, u32 pkts, u32 rtt_us, u32 rate_pkts,
		     bool app_limited)
{
	int i;

	for (i = 0; i < 63; i++)
		ack_full(f, 0, HT_T_US / 8, rtt_us, rate_pkts, 0, app_limited);
	ack_full(f, pkts, HT_T_US / 8, rtt_us, rate_pkts, 0, app_limited);
}

static void ack_u(struct hp_fixture *f, u32 pkts, u32 rtt_us, u32 rate_pkts)
{
	ack_conv(f, pkts, rtt_us, rate_pkts, false);
}

/*
 * A whole round at utilisation sample (rtt_us, rate_pkts): a window sent,
 * then the window sent before it acked, the last ACK ending the round.
 */
static void round_u(struct hp_fixture *f, u32 rtt_us, u32 rate_pkts)
{
	u32 prev = f->tp->packets_out;

	send(f, tcp_snd_cwnd(f->tp));
	ack_u(f, prev, rtt_us, rate_pkts);
}

/*
 * Two rounds at (rtt_us, rate_pkts): the standing RTT (the least of this
 * round and the last) is then rtt_us, and U is their u.
 */
static void settle(struct hp_fixture *f, u32 rtt_us, u32 rate_pkts)
{
	round_u(f, rtt_us, rate_pkts);
	round_u(f, rtt_us, rate_pkts);
}

static struct tcp_dctcp_info info_of(struct kunit *test, struct hp_fixture *f)
{
	union tcp_cc_info info;
	int attr = 0;

	KUNIT_EXPECT_EQ(test, f->ops->get_info(f->sk, 1 << (INET_DIAG_VEGASINFO - 1),
					       &attr, &info), sizeof(info.dctcp));
	KUNIT_EXPECT_EQ(test, attr, INET_DIAG_DCTCPINFO);
	return info.dctcp;
}

static u32 util_of(struct kunit *test, struct hp_fixture *f)
{
	return info_of(test, f).dctcp_alpha;
}

static u32 stage_of(struct kunit *test, struct hp_fixture *f)
{
	return info_of(test, f).dctcp_ce_state;
}

static u32 w_ref_of(struct kunit *test, struct hp_fixture *f)
{
	return info_of(test, f).dctcp_ab_ecn / HT_MSS;
}

#define EXPECT_NEAR(test, a, b, tol) do {				\
	s64 __a = (a), __b = (b), __t = (tol);				\
	KUNIT_EXPECT_LE_MSG(test, abs(__a - __b), __t,			\
			    "%s = %lld, expected %lld +- %lld", #a, __a, __b, __t); \
} while (0)

/* ----------------------------------------------------------------------- */

static void hp_registers_cong_control_without_ecn(struct kunit *test)
{
	struct hp_fixture *f = test->priv;

	KUNIT_EXPECT_NOT_NULL(test, f->ops->cong_control);
	KUNIT_EXPECT_FALSE(test, f->ops->flags & TCP_CONG_NEEDS_ECN);
	KUNIT_EXPECT_TRUE(test, f->cca->features & CCAAS_CCA_F_CONG_CONTROL);
	KUNIT_EXPECT_TRUE(test, f->cca->features & CCAAS_CCA_F_ECN_OK);
	KUNIT_EXPECT_TRUE(test, f->cca->features & CCAAS_CCA_F_NONECN_OK);
	KUNIT_EXPECT_EQ(test, f->cca->n_params, 4U);
	KUNIT_EXPECT_EQ(test, param_index(test, f, "bw"), 0U);
	KUNIT_EXPECT_EQ(test, param_index(test, f, "base_rtt"), 1U);
	KUNIT_EXPECT_EQ(test, param_index(test, f, "eta"), 2U);
	KUNIT_EXPECT_EQ(test, param_index(test, f, "w_ai"), 3U);
}

static void hp_initial_window_is_b_times_t(struct kunit *test)
{
	struct hp_fixture *f = test->priv;

	/* No data sent: B * T = 80 Mbit/s * 100 ms = 1000 packets of 1000 B. */
	cca_test_init(f->sk, f->ops);
	KUNIT_EXPECT_EQ(test, tcp_snd_cwnd(f->tp), (u32)HT_BDP);
	KUNIT_EXPECT_EQ(test, w_ref_of(test, f), (u32)HT_BDP);
	KUNIT_EXPECT_EQ(test, info_of(test, f).dctcp_ab_tot, (u32)HT_T_US);

	/* A rule's base_rtt longer than the minimum RTT wins ... */
	hp_fixture_reset(test, f);
	set_param(test, f, "base_rtt", 2 * HT_T_US);
	cca_test_init(f->sk, f->ops);
	KUNIT_EXPECT_EQ(test, tcp_snd_cwnd(f->tp), (u32)HT_BDP * 2);
	/* ... a shorter one does not (it would read as a standing queue). */
	hp_fixture_reset(test, f);
	set_param(test, f, "base_rtt", HT_T_US / 2);
	cca_test_init(f->sk, f->ops);
	KUNIT_EXPECT_EQ(test, tcp_snd_cwnd(f->tp), (u32)HT_BDP);

	/* No B from the rule, or a handshake that lost packets: the stack's. */
	memset(ccaas_sock(f->sk), 0, sizeof(struct ccaas_sock));
	tcp_snd_cwnd_set(f->tp, TCP_INIT_CWND);
	cca_test_init(f->sk, f->ops);
	KUNIT_EXPECT_EQ(test, tcp_snd_cwnd(f->tp), (u32)TCP_INIT_CWND);
	hp_fixture_reset(test, f);
	f->tp->total_retrans = 1;
	tcp_snd_cwnd_set(f->tp, 1);
	cca_test_init(f->sk, f->ops);
	KUNIT_EXPECT_EQ(test, tcp_snd_cwnd(f->tp), 1U);

	/* The rule's init_cwnd knob wins over B * T. */
	hp_fixture_reset(test, f);
	ccaas_sock(f->sk)->init_cwnd = 40;
	cca_test_init(f->sk, f->ops);
	KUNIT_EXPECT_EQ(test, tcp_snd_cwnd(f->tp), 40U);

	/* A connection that already sent data keeps its window. */
	hp_fixture_reset(test, f);
	start(f, 17);
	KUNIT_EXPECT_EQ(test, tcp_snd_cwnd(f->tp), 17U);
	KUNIT_EXPECT_EQ(test, w_ref_of(test, f), 17U);

	/* Without any RTT yet, the stack's window stays. */
	hp_fixture_reset(test, f);
	minmax_reset(&f->tp->rtt_min, 0, ~0U);
	cca_test_init(f->sk, f->ops);
	KUNIT_EXPECT_EQ(test, tcp_snd_cwnd(f->tp), (u32)TCP_INIT_CWND);
}

/* u = (rtt - T) / T + rate / B, each term on its own and summed. */
static void hp_util_is_queue_plus_rate(struct kunit *test)
{
	struct hp_fixture *f = test->priv;

	set_param(test, f, "w_ai", 0);
	start(f, 100);
	/* No queue, half of B. */
	settle(f, HT_T_US, 500);
	EXPECT_NEAR(test, util_of(test, f), HT_ONE / 2, 2);
	/* Half a T of queue, nearly no rate. */
	settle(f, HT_T_US * 3 / 2, 1);
	EXPECT_NEAR(test, util_of(test, f), HT_ONE / 2 + 1, 2);
	/* One T of queue and all of B: u = 2. */
	settle(f, 2 * HT_T_US, HT_BDP);
	EXPECT_NEAR(test, util_of(test, f), 2 * HT_ONE, 2);
	/* An RTT below T is no negative queue. */
	settle(f, HT_T_US / 2, 250);
	EXPECT_NEAR(test, util_of(test, f), HT_ONE / 4, 2);
	/* u is capped at 64 (a queue of 63 T and more). */
	settle(f, 1000 * HT_T_US, HT_BDP);
	settle(f, 1000 * HT_T_US, HT_BDP);
	EXPECT_NEAR(test, util_of(test, f), 64 * HT_ONE, 2);
}

/*
 * The queue term follows the standing RTT: a late sample (a delayed ACK,
 * a stalled host) does not count as queue while the round and the last
 * had shorter ones; a queue standing for a whole round does.
 */
static void hp_queue_is_the_standing_rtt(struct kunit *test)
{
	struct hp_fixture *f = test->priv;
	int i;

	set_param(test, f, "w_ai", 0);
	start(f, 100);
	settle(f, HT_T_US, 500);			/* U = 0.5 */
	/* A few samples of 2 T among ones of T: still U = 0.5. */
	send(f, 100);
	for (i = 0; i < 16; i++)
		ack_full(f, 0, HT_T_US / 8, i % 4 ? HT_T_US : 2 * HT_T_US,
			 500, 0, false);
	EXPECT_NEAR(test, util_of(test, f), HT_ONE / 2, 2);
	/*
	 * 1.5 T from now on: the queue counts once the round of those samples
	 * and the next are over (settle), U = 1.
	 */
	round_u(f, HT_T_US * 3 / 2, 500);
	EXPECT_NEAR(test, util_of(test, f), HT_ONE / 2, 2);
	settle(f, HT_T_US * 3 / 2, 500);
	EXPECT_NEAR(test, util_of(test, f), HT_ONE, 2);
	/* It drains: the first shorter sample lowers U at once. */
	ack_u(f, 0, HT_T_US, 500);
	EXPECT_NEAR(test, util_of(test, f), HT_ONE / 2, 2);
}

/* U = (1 - tau / T) U + (tau / T) u, tau capped at T / 8. */
static void hp_util_ewma_weighs_by_tau(struct kunit *test)
{
	struct hp_fixture *f = test->priv;

	start(f, 100);
	ack_u(f, 1, HT_T_US, 1000);		/* U = 1 */
	EXPECT_NEAR(test, util_of(test, f), HT_ONE, 2);
	/* T / 16 later, u = 0.2: U = 1 - 0.8 / 16 = 0.95. */
	ack_full(f, 1, HT_T_US / 16, HT_T_US, 200, 0, false);
	EXPECT_NEAR(test, util_of(test, f), HT_ONE * 95 / 100, 2);
	/* Samples at the same instant weigh nothing. */
	ack_full(f, 1, 0, 3 * HT_T_US, 1000, 0, false);
	EXPECT_NEAR(test, util_of(test, f), HT_ONE * 95 / 100, 3);
	/* Ten T of silence weigh as T / 8: U = 0.95 - 0.65 / 8 = 0.869. */
	ack_full(f, 1, 10 * HT_T_US, HT_T_US, 300, 0, false);
	EXPECT_NEAR(test, util_of(test, f), 890, 3);
}

/* U >= eta: W = W_ref * eta / U + W_AI, per ACK, against the reference. */
static void hp_multiplicative_above_eta(struct kunit *test)
{
	struct hp_fixture *f = test->priv;
	int i;

	set_param(test, f, "w_ai", HT_MSS);	/* one packet */
	start(f, 200);
	/* u = 1.9 (0.9 T of queue, full rate): W = 200 * 0.95 / 1.9 + 1 = 101. */
	ack_u(f, 1, HT_T_US * 19 / 10, HT_BDP);
	EXPECT_NEAR(test, tcp_snd_cwnd(f->tp), 101, 1);
	/* The same U on later ACKs of the round: the same W, not compounded. */
	for (i = 0; i < 5; i++)
		ack_u(f, 1, HT_T_US * 19 / 10, HT_BDP);
	EXPECT_NEAR(test, tcp_snd_cwnd(f->tp), 101, 1);
	KUNIT_EXPECT_EQ(test, w_ref_of(test, f), 200U);
	/* U back at eta within the round: W back near the reference. */
	ack_u(f, 1, HT_T_US, HT_BDP * 95 / 100);
	EXPECT_NEAR(test, tcp_snd_cwnd(f->tp), 201, 1);
}

/*
 * U < eta: W_ref + W_AI per round for max_stage (5) rounds, stage counting
 * up, then a multiplicative step (at most x2) that resets the stage.
 */
static void hp_stages_then_multiplicative_increase(struct kunit *test)
{
	struct hp_fixture *f = test->priv;
	u32 stage;

	set_param(test, f, "w_ai", 2 * HT_MSS);	/* two packets per round */
	start(f, 100);
	/* Each round: W_ref + 2, the stage one more. */
	for (stage = 1; stage <= 5; stage++) {
		round_u(f, HT_T_US, 100);	/* u = 0.1 */
		KUNIT_EXPECT_EQ(test, stage_of(test, f), stage);
		KUNIT_EXPECT_EQ(test, w_ref_of(test, f), 100 + 2 * stage);
		KUNIT_EXPECT_EQ(test, tcp_snd_cwnd(f->tp), 100 + 2 * stage);
	}
	/* Stage 5: eta / U = 9.5, capped at 2: 2 * 110 + 2. */
	round_u(f, HT_T_US, 100);
	KUNIT_EXPECT_EQ(test, stage_of(test, f), 0U);
	KUNIT_EXPECT_EQ(test, w_ref_of(test, f), 222U);
	/* Additive again from the new reference. */
	round_u(f, HT_T_US, 500);
	KUNIT_EXPECT_EQ(test, stage_of(test, f), 1U);
	KUNIT_EXPECT_EQ(test, w_ref_of(test, f), 224U);
}

/* With U at eta (and no W_AI) the window holds, round after round. */
static void hp_holds_at_eta(struct kunit *test)
{
	struct hp_fixture *f = test->priv;
	int i;

	set_param(test, f, "w_ai", 0);
	start(f, 300);
	for (i = 0; i < 12; i++)
		round_u(f, HT_T_US, 949);	/* u = 0.9498 */
	EXPECT_NEAR(test, tcp_snd_cwnd(f->tp), 300, 2);
}

/* A standing queue brings W down towards eta * B * T and no queue. */
static void hp_converges_to_eta_bdp(struct kunit *test)
{
	struct hp_fixture *f = test->priv;
	u32 cwnd, rtt;
	int i;

	start(f, 2000);		/* twice B * T: one T of queue */
	for (i = 0; i < 30; i++) {
		cwnd = tcp_snd_cwnd(f->tp);
		/* the path: rate min(cwnd, BDP) per T, queue above BDP */
		rtt = HT_T_US + (cwnd > HT_BDP ? (cwnd - HT_BDP) * 100 : 0);
		round_u(f, rtt, min_t(u32, cwnd * HT_T_US / rtt, HT_BDP));
	}
	cwnd = tcp_snd_cwnd(f->tp);
	KUNIT_EXPECT_GE(test, cwnd, (u32)HT_BDP * 90 / 100);
	KUNIT_EXPECT_LE(test, cwnd, (u32)HT_BDP);
}

/* An app-limited sample never raises W. */
static void hp_app_limited_does_not_grow(struct kunit *test)
{
	struct hp_fixture *f = test->priv;

	start(f, 100);
	ack_conv(f, 100, HT_T_US, 100, true);
	KUNIT_EXPECT_EQ(test, tcp_snd_cwnd(f->tp), 100U);
	KUNIT_EXPECT_EQ(test, stage_of(test, f), 0U);
	/* but a high U still cuts it */
	send(f, 100);
	ack_conv(f, 100, HT_T_US, 2 * HT_BDP, true);	/* U = 2 */
	EXPECT_NEAR(test, tcp_snd_cwnd(f->tp), 48, 1);
}

/* Pacing at W / T. */
static void hp_paces_at_w_over_t(struct kunit *test)
{
	struct hp_fixture *f = test->priv;

	start(f, 100);
	/* 100 packets of 1000 B per 100 ms: 1 MB/s. */
	KUNIT_EXPECT_EQ(test, READ_ONCE(f->sk->sk_pacing_rate), 1000000UL);
	KUNIT_EXPECT_EQ(test, READ_ONCE(f->sk->sk_pacing_status),
			(u32)SK_PACING_NEEDED);
	/* srtt does not matter, T does. */
	f->tp->srtt_us = (4 * HT_T_US) << 3;
	send(f, 100);
	ack_u(f, 1, 2 * HT_T_US, 500);	/* U = 1.5: W = 100 * .95 / 1.5 + 1.4 */
	KUNIT_EXPECT_EQ(test, tcp_snd_cwnd(f->tp), 64U);
	KUNIT_EXPECT_EQ(test, READ_ONCE(f->sk->sk_pacing_rate),
			(unsigned long)tcp_snd_cwnd(f->tp) * HT_MSS * 10);
}

/* Fast recovery: W and W_ref to 0.7 W, held until recovery ends. */
static void hp_loss_cuts_and_holds(struct kunit *test)
{
	struct hp_fixture *f = test->priv;
	int i;

	start(f, 100);
	cca_test_enter_recovery(f->sk, false);
	/* The entry ACK: W to 70, cwnd one above the flight (fast retransmit). */
	ack_u(f, 1, HT_T_US, 100);
	KUNIT_EXPECT_EQ(test, w_ref_of(test, f), 70U);
	KUNIT_EXPECT_EQ(test, tcp_snd_cwnd(f->tp), tcp_packets_in_flight(f->tp) + 1);
	/* Packet conservation down to W: one packet out per ACK of two. */
	for (i = 0; i < 40; i++) {
		ack_full(f, 2, HT_T_US / 8, HT_T_US, 10, 0, false);
		if (tcp_snd_cwnd(f->tp) > tcp_packets_in_flight(f->tp))
			send(f, 1);
	}
	KUNIT_EXPECT_EQ(test, tcp_snd_cwnd(f->tp), 70U);
	KUNIT_EXPECT_EQ(test, w_ref_of(test, f), 70U);
	/* Recovery over: HPCC again (U = 0.01 < eta: additive). */
	inet_csk(f->sk)->icsk_ca_state = TCP_CA_Open;
	ack_u(f, 1, HT_T_US, 10);
	KUNIT_EXPECT_GE(test, tcp_snd_cwnd(f->tp), 70U);
	KUNIT_EXPECT_LE(test, tcp_snd_cwnd(f->tp), 71U);
}

/* The stack's tcp_enter_cwr() without CE marks (local congestion): a cut. */
static void hp_local_congestion_cuts(struct kunit *test)
{
	struct hp_fixture *f = test->priv;

	start(f, 100);
	send(f, 100);
	tcp_enter_cwr(f->sk);
	KUNIT_ASSERT_EQ(test, (u8)inet_csk(f->sk)->icsk_ca_state, TCP_CA_CWR);
	ack_u(f, 1, HT_T_US, 100);
	/* the cut, then W_ref + W_AI on the later ACKs of the round */
	EXPECT_NEAR(test, tcp_snd_cwnd(f->tp), 71, 1);
	KUNIT_EXPECT_EQ(test, w_ref_of(test, f), 70U);
}

/* tcp_in_ack_event() of a slow-path ACK with ECE */
static void in_ack_ece(struct hp_fixture *f)
{
	if (f->ops->in_ack_event)
		f->ops->in_ack_event(f->sk, CA_ACK_SLOWPATH | CA_ACK_ECE);
}

/*
 * One ACK of @pkts packets with ECE, @ce of them counted CE, in tcp_ack()'s
 * order (the same on 6.1, 6.12 and 7.3): tcp_clean_rtx_queue() counts the
 * CE (tcp_count_delivered()), tcp_in_ack_event() reports the ECE,
 * tcp_fastretrans_alert() -> tcp_try_to_open() calls tcp_enter_cwr(), and
 * tcp_cong_control() comes last.
 */
static void ack_ece(struct hp_fixture *f, u32 pkts, u32 ce)
{
	struct rate_sample rs = {
		.prior_delivered = f->tp->delivered,
		.delivered = pkts ? 100 : 0,
		.delivered_ce = ce,
		.acked_sacked = pkts,
		.interval_us = pkts ? HT_T_US : 0,
		.rtt_us = pkts ? HT_T_US : -1,
	};

	f->tp->tcp_mstamp += HT_T_US / 8;
	f->tp->snd_una += pkts * HT_MSS;
	f->tp->delivered += pkts;
	f->tp->delivered_ce += ce;
	f->tp->packets_out -= min(pkts, f->tp->packets_out);
	/* what was marked lost leaves the queue first (oldest first) */
	f->tp->lost_out -= min(pkts, f->tp->lost_out);
	in_ack_ece(f);
	tcp_enter_cwr(f->sk);
	cong_control(f, &rs);
}

/* ECE (tcp_enter_cwr() on an ACK with ECE) is not a signal: no cut. */
static void hp_ece_is_not_a_signal(struct kunit *test)
{
	struct hp_fixture *f = test->priv;

	start(f, 100);
	ack_ece(f, 1, 1);
	KUNIT_ASSERT_EQ(test, (u8)inet_csk(f->sk)->icsk_ca_state, TCP_CA_CWR);
	KUNIT_EXPECT_EQ(test, w_ref_of(test, f), 100U);
	KUNIT_EXPECT_GE(test, tcp_snd_cwnd(f->tp), 100U);

	/* A duplicate ACK with ECE: no CE counted, no sample. No cut. */
	hp_fixture_reset(test, f);
	start(f, 100);
	ack_ece(f, 0, 0);
	KUNIT_ASSERT_EQ(test, (u8)inet_csk(f->sk)->icsk_ca_state, TCP_CA_CWR);
	KUNIT_EXPECT_EQ(test, w_ref_of(test, f), 100U);
}

/*
 * Local congestion right after an ECE episode is still a signal: the ECE
 * belongs to the ACK it came on, not to a later refused send.
 */
static void hp_local_congestion_after_ece(struct kunit *test)
{
	struct hp_fixture *f = test->priv;

	start(f, 100);
	ack_ece(f, 1, 1);
	KUNIT_EXPECT_EQ(test, w_ref_of(test, f), 100U);
	/* CWR ends; then the qdisc refuses a packet (tcp_transmit_skb()). */
	tcp_set_ca_state(f->sk, TCP_CA_Open);
	tcp_enter_cwr(f->sk);
	ack_u(f, 1, HT_T_US, 100);
	/* 0.7 W, W having grown by W_AI on the ECE ACK */
	EXPECT_NEAR(test, w_ref_of(test, f), 70, 1);

	/*
	 * An ACK with ECE while nothing is in flight (a window update) takes
	 * tcp_ack()'s no_queue path: tcp_in_ack_event() and no
	 * tcp_cong_control(). The next send starts a new flight
	 * (CA_EVENT_TX_START) and is refused.
	 */
	hp_fixture_reset(test, f);
	start(f, 100);
	inet_csk(f->sk)->icsk_ca_state = TCP_CA_Open;
	in_ack_ece(f);
	tcp_ca_event(f->sk, CA_EVENT_TX_START);
	tcp_enter_cwr(f->sk);
	ack_u(f, 1, HT_T_US, 100);
	KUNIT_EXPECT_EQ(test, w_ref_of(test, f), 70U);
}

/*
 * A loss a tail loss probe found is a loss even on an ACK with ECE:
 * tcp_process_tlp_ack() runs after tcp_in_ack_event(), clears
 * tlp_high_seq and calls ssthresh() (tcp_init_cwnd_reduction()), enters
 * CWR, ends the reduction at once (tcp_end_cwnd_reduction(), nothing for a
 * CCA with cong_control()) and goes back to Open (tcp_try_keep_open(),
 * nothing SACKed, lost or retransmitted), all before cong_control(). So
 * the cut is made in Open, and holds on the ACKs after. And on 7.x AccECN
 * can count CE on a fast-path ACK, which reports no CA_ACK_ECE: that
 * tcp_enter_cwr() is ECN's, no cut.
 */
static void hp_tlp_loss_and_accecn_fast_path(struct kunit *test)
{
	struct hp_fixture *f = test->priv;
	struct rate_sample rs = {
		.delivered = 100, .acked_sacked = 1,
		.interval_us = HT_T_US, .rtt_us = HT_T_US,
	};

	start(f, 100);
	f->tp->tlp_high_seq = f->tp->snd_una + 5 * HT_MSS;
	f->tp->tlp_retrans = 1;
	f->tp->snd_una += 10 * HT_MSS;		/* the ACK goes past the probe */
	f->tp->delivered += 10;
	f->tp->delivered_ce += 10;
	in_ack_ece(f);
	f->tp->tlp_high_seq = 0;
	f->tp->snd_ssthresh = f->ops->ssthresh(f->sk);
	tcp_set_ca_state(f->sk, TCP_CA_CWR);
	tcp_set_ca_state(f->sk, TCP_CA_Open);
	rs.prior_delivered = f->tp->delivered - 10;
	cong_control(f, &rs);
	EXPECT_NEAR(test, w_ref_of(test, f), 70, 1);
	KUNIT_EXPECT_LE(test, tcp_snd_cwnd(f->tp), 71U);
	/* the next ACKs, in Open at the same U: no second cut, no return */
	send(f, 10);
	ack_u(f, 1, HT_T_US, 70);
	EXPECT_NEAR(test, w_ref_of(test, f), 70, 1);

	hp_fixture_reset(test, f);
	start(f, 100);
	f->tp->snd_una += 10 * HT_MSS;
	f->tp->delivered += 10;
	f->tp->delivered_ce += 10;		/* tcp_accecn_process() */
	if (f->ops->in_ack_event)
		f->ops->in_ack_event(f->sk, CA_ACK_WIN_UPDATE);
	tcp_enter_cwr(f->sk);
	rs.prior_delivered = f->tp->delivered - 10;
	cong_control(f, &rs);
	KUNIT_EXPECT_EQ(test, w_ref_of(test, f), 100U);
}

/* A retransmission timeout halves W; the stack's cwnd = 1 is overridden. */
static void hp_timeout_halves(struct kunit *test)
{
	struct hp_fixture *f = test->priv;
	int i;

	start(f, 100);
	/* The stack's tcp_enter_loss(): ssthresh(), the event, cwnd = 1. */
	cca_test_enter_loss(f->sk);
	KUNIT_EXPECT_EQ(test, w_ref_of(test, f), 50U);
	/* Slow start from 1, not a jump to W: +1 per packet acked. */
	ack_full(f, 1, HT_T_US / 8, HT_T_US, 10, 0, false);
	KUNIT_EXPECT_EQ(test, tcp_snd_cwnd(f->tp), 2U);
	for (i = 0; i < 60; i++)
		ack_full(f, 1, HT_T_US / 8, HT_T_US, 10, 0, false);
	/* up to W, and no further while in Loss */
	KUNIT_EXPECT_EQ(test, tcp_snd_cwnd(f->tp), 50U);
	KUNIT_EXPECT_EQ(test, w_ref_of(test, f), 50U);
}

/*
 * A timeout during a reduction: tcp_enter_loss() calls neither ssthresh()
 * nor CA_EVENT_LOSS while CWR or Recovery has not reached high_seq, only
 * set_state(Loss). A timeout still halves the window the reduction began
 * from: after an ECE, which cut nothing, and after fast recovery's 0.7.
 */
static void hp_timeout_during_reduction_halves(struct kunit *test)
{
	struct hp_fixture *f = test->priv;
	int c, i;

	for (c = 0; c < 2; c++) {
		hp_fixture_reset(test, f);
		start(f, 100);
		if (c == 0) {
			ack_ece(f, 1, 1);
			KUNIT_ASSERT_EQ(test, w_ref_of(test, f), 100U);
		} else {
			cca_test_enter_recovery(f->sk, false);
			ack_u(f, 1, HT_T_US, 100);
			KUNIT_ASSERT_EQ(test, w_ref_of(test, f), 70U);
		}
		cca_test_enter_loss(f->sk);
		KUNIT_EXPECT_EQ(test, (u8)inet_csk(f->sk)->icsk_ca_state,
				TCP_CA_Loss);
		KUNIT_EXPECT_EQ(test, w_ref_of(test, f), 50U);
		/* the timer again, nothing acked since: no second cut */
		cca_test_enter_loss(f->sk);
		KUNIT_EXPECT_EQ(test, w_ref_of(test, f), 50U);
		/* slow start from 1 up to W, and no further while in Loss */
		for (i = 0; i < 60; i++)
			ack_full(f, 1, HT_T_US / 8, HT_T_US, 10, 0, false);
		KUNIT_EXPECT_EQ(test, tcp_snd_cwnd(f->tp), 50U);
	}

	/* A path MTU change enters Loss too, and is no timeout. */
	hp_fixture_reset(test, f);
	start(f, 100);
	ack_ece(f, 1, 1);
	cca_test_mtu_loss(f->sk, 10);
	KUNIT_EXPECT_EQ(test, (u8)inet_csk(f->sk)->icsk_ca_state, TCP_CA_Loss);
	KUNIT_EXPECT_EQ(test, w_ref_of(test, f), 100U);
}

static void hp_undo_restores_window(struct kunit *test)
{
	struct hp_fixture *f = test->priv;

	start(f, 100);
	cca_test_enter_recovery(f->sk, false);
	ack_u(f, 1, HT_T_US, 100);
	KUNIT_ASSERT_EQ(test, w_ref_of(test, f), 70U);
	tcp_snd_cwnd_set(f->tp, f->ops->undo_cwnd(f->sk));
	KUNIT_EXPECT_EQ(test, tcp_snd_cwnd(f->tp), 100U);
	KUNIT_EXPECT_EQ(test, w_ref_of(test, f), 100U);
	inet_csk(f->sk)->icsk_ca_state = TCP_CA_Open;
	ack_u(f, 1, HT_T_US, 100);
	KUNIT_EXPECT_GE(test, tcp_snd_cwnd(f->tp), 100U);
}

/* eta per rule: the same U cuts further with a lower target. */
static void hp_eta_per_rule(struct kunit *test)
{
	struct hp_fixture *f = test->priv;

	set_param(test, f, "eta", 50);
	set_param(test, f, "w_ai", 0);
	start(f, 200);
	send(f, 200);
	ack_u(f, 1, HT_T_US, HT_BDP);		/* U = 1: W = 200 * 0.5 */
	EXPECT_NEAR(test, tcp_snd_cwnd(f->tp), 100, 1);
}

static struct kunit_case cca_hpcc_cases[] = {
	KUNIT_CASE(hp_registers_cong_control_without_ecn),
	KUNIT_CASE(hp_initial_window_is_b_times_t),
	KUNIT_CASE(hp_util_is_queue_plus_rate),
	KUNIT_CASE(hp_queue_is_the_standing_rtt),
	KUNIT_CASE(hp_util_ewma_weighs_by_tau),
	KUNIT_CASE(hp_multiplicative_above_eta),
	KUNIT_CASE(hp_stages_then_multiplicative_increase),
	KUNIT_CASE(hp_holds_at_eta),
	KUNIT_CASE(hp_converges_to_eta_bdp),
	KUNIT_CASE(hp_app_limited_does_not_grow),
	KUNIT_CASE(hp_paces_at_w_over_t),
	KUNIT_CASE(hp_loss_cuts_and_holds),
	KUNIT_CASE(hp_local_congestion_cuts),
	KUNIT_CASE(hp_ece_is_not_a_signal),
	KUNIT_CASE(hp_local_congestion_after_ece),
	KUNIT_CASE(hp_tlp_loss_and_accecn_fast_path),
	KUNIT_CASE(hp_timeout_halves),
	KUNIT_CASE(hp_timeout_during_reduction_halves),
	KUNIT_CASE(hp_undo_restores_window),
	KUNIT_CASE(hp_eta_per_rule),
	{}
};

static struct kunit_suite cca_hpcc_suite = {
	.name = "cca_hpcc",
	.init = hp_fixture_init,
	.test_cases = cca_hpcc_cases,
};

kunit_test_suite(cca_hpcc_suite);
