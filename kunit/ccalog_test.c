// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit tests of the ccalog gate: a logged connection on a ccaas CCA emits
 * exactly one ccalog_rtt per round trip, whatever the ACK pattern, and an
 * unselected one none. Each CCA that ends its rounds in in_ack_event() or
 * pkts_acked() is driven with synthetic ACK sequences on a bare tcp_sock, with a probe on
 * the real tracepoint counting what it emits.
 */
#include <kunit/test.h>
#include <linux/sock_diag.h>
#include <net/tcp.h>

#include <ccaas/ccaas.h>
#include <ccaas/log.h>

#include "../kmod/core/ccalog_trace.h"
#include "cca_test.h"

struct gate_fixture {
	const struct tcp_congestion_ops *ops;
	struct tcp_sock *tp;
	struct sock *sk;
	/* what the probe saw */
	unsigned int events;
	u64 cookie;
	u32 flags;		/* CCAAS_ROUND_* of the last event */
	u32 delivered;		/* packets delivered in the last event's round */
	bool ece;		/* is_ece_ack of the last event */
};

static void gate_probe(void *data, const struct sock *sk, u64 cookie,
		       const struct ccaas_round *r, u32 alpha, u32 target_us,
		       u32 state, u32 util, u32 ref_cwnd)
{
	struct gate_fixture *f = data;

	if (sk != f->sk)
		return;
	f->events++;
	f->cookie = cookie;
	f->flags = r->flags;
	f->delivered = ccaas_round_delivered(r, tcp_sk(sk));
	/* as the tracepoint reports it */
	f->ece = (r->flags & CCAAS_ROUND_ECE) ||
		 ccaas_round_delivered_ce(r, tcp_sk(sk));
}

static const char *const gate_ccas[] = { "cca_dctcp", "cca_cubic", "cca_dcndelay" };

static void gate_cca_desc(const char *const *name, char *desc)
{
	strscpy(desc, *name, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(gate_cca, gate_ccas, gate_cca_desc);

static int gate_init(struct kunit *test)
{
	const char *const *name = test->param_value;
	struct gate_fixture *f;

	f = kunit_kzalloc(test, sizeof(*f), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, f);
	f->ops = cca_test_lookup(test, *name)->ops;
	f->tp = cca_test_sock(test, 1000, 100);
	f->sk = (struct sock *)f->tp;
	f->tp->ecn_flags = TCP_ECN_OK;
	test->priv = f;
	KUNIT_ASSERT_EQ(test, register_trace_ccalog_rtt(gate_probe, f), 0);
	return 0;
}

static void gate_exit(struct kunit *test)
{
	struct gate_fixture *f = test->priv;

	if (!f)
		return;
	unregister_trace_ccalog_rtt(gate_probe, f);
	tracepoint_synchronize_unregister();
}

/* Start the CCA after the handshake; @logged as ccactl log add would set it. */
static void start(struct gate_fixture *f, bool logged)
{
	inet_csk(f->sk)->icsk_ca_ops = f->ops;
	cca_test_init(f->sk, f->ops);
	/* Nothing is selected in init_net: init() left the bit clear. */
	ccaas_sock(f->sk)->logged = logged;
}

static void send(struct gate_fixture *f, u32 pkts)
{
	f->tp->snd_nxt += pkts * f->tp->mss_cache;
}

/*
 * An ACK moving snd_una by @pkts (0: a duplicate) and delivering
 * @delivered packets: those newly acknowledged that were not SACKed
 * before, plus those it newly SACKs.
 */
static void ack_delivered(struct gate_fixture *f, u32 pkts, u32 delivered,
			  u32 flags)
{
	f->tp->snd_una += pkts * f->tp->mss_cache;
	f->tp->delivered += delivered;
	/* The stack counts what an ECE ACK delivers as CE-marked. */
	if (flags & CA_ACK_ECE)
		f->tp->delivered_ce += delivered;
	/*
	 * tcp_clean_rtx_queue()'s pkts_acked() (no RTT sample), then
	 * tcp_in_ack_event(): a CCA ends its rounds in either (cca_cubic,
	 * as cubic, has only the first)
	 */
	if (f->ops->pkts_acked) {
		struct ack_sample sample = { .pkts_acked = pkts, .rtt_us = -1 };

		f->ops->pkts_acked(f->sk, &sample);
	}
	if (f->ops->in_ack_event)
		f->ops->in_ack_event(f->sk, flags);
}

/* An ACK for @pkts packets in sequence, and @sacked more beyond a hole. */
static void ack(struct gate_fixture *f, u32 pkts, u32 sacked, u32 flags)
{
	ack_delivered(f, pkts, pkts + sacked, flags);
}

static void gate_several_acks_per_round(struct kunit *test)
{
	struct gate_fixture *f = test->priv;
	int round, i;

	send(f, 10);
	start(f, true);
	for (round = 1; round <= 3; round++) {
		for (i = 0; i < 9; i++) {
			ack(f, 1, 0, 0);
			KUNIT_EXPECT_EQ_MSG(test, f->events, round - 1U,
					    "event in the middle of round %d", round);
		}
		/* The next round is in flight before this one's last ACK. */
		send(f, 10);
		ack(f, 1, 0, 0);
		KUNIT_EXPECT_EQ(test, f->events, (unsigned int)round);
		KUNIT_EXPECT_EQ(test, f->delivered, 10U);
	}
	KUNIT_EXPECT_EQ(test, f->cookie, ccaas_sk_cookie(f->sk));
}

static void gate_delayed_and_stretch_acks(struct kunit *test)
{
	struct gate_fixture *f = test->priv;
	int round, i;

	send(f, 10);
	start(f, true);
	/* Delayed ACKs: one per two packets. */
	for (round = 1; round <= 4; round++) {
		for (i = 0; i < 4; i++)
			ack(f, 2, 0, 0);
		send(f, 10);
		ack(f, 2, 0, 0);
		KUNIT_EXPECT_EQ(test, f->events, (unsigned int)round);
	}
	/*
	 * Round 5 holds 10 packets and 10 more leave before any ACK: one
	 * stretch ACK for all 20 ends round 5 only; round 6 starts there and
	 * ends at the next ACK.
	 */
	send(f, 10);
	ack(f, 20, 0, 0);
	KUNIT_EXPECT_EQ(test, f->events, 5U);
	KUNIT_EXPECT_EQ(test, f->delivered, 20U);
	send(f, 4);
	ack(f, 4, 0, 0);
	KUNIT_EXPECT_EQ(test, f->events, 6U);
}

static void gate_retransmissions(struct kunit *test)
{
	struct gate_fixture *f = test->priv;
	int i;

	send(f, 10);
	start(f, true);
	/* Packet 4 is lost: three duplicate ACKs SACK 5, 6 and 7. */
	ack(f, 3, 0, 0);
	for (i = 0; i < 3; i++)
		ack(f, 0, 1, CA_ACK_ECE);
	KUNIT_EXPECT_EQ(test, f->events, 0U);
	/* Fast retransmit: Recovery, no new data (snd_nxt stays). */
	f->ops->ssthresh(f->sk);
	f->ops->set_state(f->sk, TCP_CA_Recovery);
	inet_csk(f->sk)->icsk_ca_state = TCP_CA_Recovery;
	/*
	 * The retransmission and packet 8 are ACKed (4 to 8, of which 5 to 7
	 * were delivered already): still round 1.
	 */
	ack_delivered(f, 5, 2, 0);
	KUNIT_EXPECT_EQ(test, f->events, 0U);
	send(f, 10);
	ack(f, 2, 0, 0);
	KUNIT_EXPECT_EQ(test, f->events, 1U);
	KUNIT_EXPECT_EQ(test, f->delivered, 10U);
	KUNIT_EXPECT_TRUE(test, f->flags & CCAAS_ROUND_LOSS);
	KUNIT_EXPECT_TRUE(test, f->ece);
	KUNIT_EXPECT_TRUE(test, f->flags & CCAAS_ROUND_SSTHRESH);

	/* A clean round after it reports no signal. */
	inet_csk(f->sk)->icsk_ca_state = TCP_CA_Open;
	f->ops->set_state(f->sk, TCP_CA_Open);
	ack(f, 10, 0, 0);
	KUNIT_EXPECT_EQ(test, f->events, 2U);
	KUNIT_EXPECT_EQ(test, f->flags, 0U);
	KUNIT_EXPECT_FALSE(test, f->ece);
}

static void gate_idle_acks_are_not_rounds(struct kunit *test)
{
	struct gate_fixture *f = test->priv;
	int i;

	send(f, 10);
	start(f, true);
	ack(f, 10, 0, 0);
	KUNIT_EXPECT_EQ(test, f->events, 1U);
	/*
	 * Nothing in flight: each ACK (window updates, the peer's data)
	 * closes an empty round, which is not reported.
	 */
	for (i = 0; i < 20; i++)
		ack(f, 0, 0, 0);
	KUNIT_EXPECT_EQ(test, f->events, 1U);
	/*
	 * Data again: the first ACK ends the round that started while idle
	 * (it delivered 2), the next one the round of the rest.
	 */
	send(f, 5);
	ack(f, 2, 0, 0);
	KUNIT_EXPECT_EQ(test, f->events, 2U);
	KUNIT_EXPECT_EQ(test, f->delivered, 2U);
	ack(f, 3, 0, 0);
	KUNIT_EXPECT_EQ(test, f->events, 3U);
	KUNIT_EXPECT_EQ(test, f->delivered, 3U);
}

static void gate_unselected_connection_is_silent(struct kunit *test)
{
	struct gate_fixture *f = test->priv;
	int round;

	send(f, 10);
	start(f, false);
	for (round = 0; round < 5; round++) {
		send(f, 10);
		ack(f, 5, 0, 0);
		ack(f, 5, 0, CA_ACK_ECE);
	}
	KUNIT_EXPECT_EQ(test, f->events, 0U);
	/* Selecting it live takes effect at the next round's end. */
	ccaas_sock(f->sk)->logged = 1;
	send(f, 10);
	ack(f, 10, 0, 0);
	KUNIT_EXPECT_EQ(test, f->events, 1U);
}

static struct kunit_case ccalog_gate_cases[] = {
	KUNIT_CASE_PARAM(gate_several_acks_per_round, gate_cca_gen_params),
	KUNIT_CASE_PARAM(gate_delayed_and_stretch_acks, gate_cca_gen_params),
	KUNIT_CASE_PARAM(gate_retransmissions, gate_cca_gen_params),
	KUNIT_CASE_PARAM(gate_idle_acks_are_not_rounds, gate_cca_gen_params),
	KUNIT_CASE_PARAM(gate_unselected_connection_is_silent, gate_cca_gen_params),
	{}
};

static struct kunit_suite ccalog_gate_suite = {
	.name = "ccalog_gate",
	.init = gate_init,
	.exit = gate_exit,
	.test_cases = ccalog_gate_cases,
};

kunit_test_suite(ccalog_gate_suite);
