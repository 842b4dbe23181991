// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit tests of per-socket extension state (kmod/core/ext.c) and of the
 * core's header in a ccaas CCA's private area (per-rule parameters).
 */
#include <kunit/test.h>
#include <net/tcp.h>

#include <ccaas/ccaas.h>
#include <ccaas/sock.h>

/* A CCA that exists only for this test: state bigger than the priv area. */
#define EXT_TEST_SIZE	200

struct ext_test_state {
	u8 bytes[EXT_TEST_SIZE];
};

static struct tcp_congestion_ops ext_test_ops = {
	.ssthresh	= tcp_reno_ssthresh,
	.cong_avoid	= tcp_reno_cong_avoid,
	.undo_cwnd	= tcp_reno_undo_cwnd,
	.name		= "kunit_ext",
};

static struct ccaas_cca ext_test_cca = {
	.ops		= &ext_test_ops,
	.version	= CCAAS_VERSION(0, 0, 1),
	.features	= CCAAS_CCA_F_NONECN_OK,
	.ext_size	= sizeof(struct ext_test_state),
};

static int ext_test_init(struct kunit *test)
{
	struct sock *sk;

	KUNIT_ASSERT_EQ(test, ccaas_cca_register(&ext_test_cca), 0);
	sk = kunit_kzalloc(test, sizeof(struct tcp_sock), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, sk);
	test->priv = sk;
	return 0;
}

static void ext_test_exit(struct kunit *test)
{
	ccaas_cca_unregister(&ext_test_cca);
}

static void ext_alloc_zeroed_and_kept(struct kunit *test)
{
	struct sock *sk = test->priv;
	struct ext_test_state *st;

	st = ccaas_ext_alloc(sk, &ext_test_cca);
	KUNIT_ASSERT_NOT_NULL(test, st);
	KUNIT_EXPECT_PTR_EQ(test, ccaas_sock_ext(sk), (void *)st);
	KUNIT_EXPECT_TRUE(test, !memchr_inv(st, 0, sizeof(*st)));
	/* A second init keeps the state it has. */
	st->bytes[0] = 42;
	KUNIT_EXPECT_PTR_EQ(test, ccaas_ext_alloc(sk, &ext_test_cca), (void *)st);
	KUNIT_EXPECT_EQ(test, st->bytes[0], 42);
	ccaas_ext_free(sk, &ext_test_cca);
	KUNIT_EXPECT_NULL(test, ccaas_sock_ext(sk));
}

/* release() can run without init(), and twice after tcp_disconnect(). */
static void ext_free_null_safe_and_idempotent(struct kunit *test)
{
	struct sock *sk = test->priv;

	ccaas_ext_free(sk, &ext_test_cca);
	KUNIT_EXPECT_NULL(test, ccaas_sock_ext(sk));
	KUNIT_ASSERT_NOT_NULL(test, ccaas_ext_alloc(sk, &ext_test_cca));
	ccaas_ext_free(sk, &ext_test_cca);
	ccaas_ext_free(sk, &ext_test_cca);
	KUNIT_EXPECT_NULL(test, ccaas_sock_ext(sk));
}

#ifdef CONFIG_FAILSLAB
/*
 * The allocation runs in softirq for passive children, with GFP_ATOMIC, and
 * may fail: the socket is left without state (the CCA runs on its private
 * area alone), release() is harmless, and a later init() tries again. The
 * failure is injected with fail-nth: this task's next fault-injection point.
 */
static void ext_alloc_failure_leaves_none(struct kunit *test)
{
	struct sock *sk = test->priv;

	current->fail_nth = 1;
	KUNIT_EXPECT_NULL(test, ccaas_ext_alloc(sk, &ext_test_cca));
	KUNIT_EXPECT_EQ(test, current->fail_nth, 0U);
	current->fail_nth = 0;
	KUNIT_EXPECT_NULL(test, ccaas_sock_ext(sk));
	ccaas_ext_free(sk, &ext_test_cca);
	KUNIT_EXPECT_NULL(test, ccaas_sock_ext(sk));
	KUNIT_ASSERT_NOT_NULL(test, ccaas_ext_alloc(sk, &ext_test_cca));
	ccaas_ext_free(sk, &ext_test_cca);
}
#endif

/* A CCA without ext_size gets no state, and freeing is harmless. */
static void ext_none_without_size(struct kunit *test)
{
	const struct ccaas_cca *dctcp = ccaas_cca_lookup("cca_dctcp");
	struct sock *sk = test->priv;

	KUNIT_ASSERT_NOT_NULL(test, dctcp);
	KUNIT_EXPECT_NULL(test, ccaas_ext_alloc(sk, dctcp));
	ccaas_ext_free(sk, dctcp);
}

/* The header's parameter slots override the module default, per socket. */
static void header_params_override_default(struct kunit *test)
{
	struct sock *sk = test->priv;
	struct ccaas_sock *cs = ccaas_sock(sk);

	KUNIT_EXPECT_EQ(test, ccaas_sock_param(sk, 1, 7), 7U);
	cs->params[1] = 3;
	KUNIT_EXPECT_EQ(test, ccaas_sock_param(sk, 1, 7), 7U);
	cs->param_set = 1U << 1;
	KUNIT_EXPECT_EQ(test, ccaas_sock_param(sk, 1, 7), 3U);
	/* Out of the header's range: always the default. */
	KUNIT_EXPECT_EQ(test, ccaas_sock_param(sk, CCAAS_SOCK_PARAMS, 9), 9U);
}

/*
 * Every schema parameter must fit a socket's header: a longer schema is
 * refused at registration, so no rule can set a value no socket sees.
 */
static void header_schema_longer_than_header_refused(struct kunit *test)
{
	static const struct ccaas_param_spec five[CCAAS_SOCK_PARAMS + 1] = {
		{ .name = "a", .max = 1 }, { .name = "b", .max = 1 },
		{ .name = "c", .max = 1 }, { .name = "d", .max = 1 },
		{ .name = "e", .max = 1 },
	};
	static struct tcp_congestion_ops ops = {
		.ssthresh	= tcp_reno_ssthresh,
		.cong_avoid	= tcp_reno_cong_avoid,
		.undo_cwnd	= tcp_reno_undo_cwnd,
		.name		= "kunit_params",
	};
	struct ccaas_cca cca = {
		.ops = &ops, .version = CCAAS_VERSION(0, 0, 1),
		.features = CCAAS_CCA_F_NONECN_OK,
		.params = five, .n_params = ARRAY_SIZE(five),
	};

	KUNIT_EXPECT_EQ(test, ccaas_cca_register(&cca), -EINVAL);
	KUNIT_EXPECT_NULL(test, ccaas_cca_lookup("kunit_params"));
	cca.n_params = CCAAS_SOCK_PARAMS;
	KUNIT_ASSERT_EQ(test, ccaas_cca_register(&cca), 0);
	ccaas_cca_unregister(&cca);
}

/* A socket that has sent nothing starts with the rule's window; others keep theirs. */
static void header_init_cwnd_only_before_data(struct kunit *test)
{
	struct sock *sk = test->priv;
	struct tcp_sock *tp = tcp_sk(sk);

	ccaas_sock(sk)->init_cwnd = 40;
	tcp_snd_cwnd_set(tp, 10);
	ccaas_sock_start(sk);
	KUNIT_EXPECT_EQ(test, tcp_snd_cwnd(tp), 40U);
	tcp_snd_cwnd_set(tp, 10);
	tp->data_segs_out = 5;
	ccaas_sock_start(sk);
	KUNIT_EXPECT_EQ(test, tcp_snd_cwnd(tp), 10U);
}

static struct kunit_case ccaas_ext_cases[] = {
	KUNIT_CASE(ext_alloc_zeroed_and_kept),
	KUNIT_CASE(ext_free_null_safe_and_idempotent),
#ifdef CONFIG_FAILSLAB
	KUNIT_CASE(ext_alloc_failure_leaves_none),
#endif
	KUNIT_CASE(ext_none_without_size),
	KUNIT_CASE(header_params_override_default),
	KUNIT_CASE(header_schema_longer_than_header_refused),
	KUNIT_CASE(header_init_cwnd_only_before_data),
	{}
};

static struct kunit_suite ccaas_ext_suite = {
	.name = "ccaas_ext",
	.init = ext_test_init,
	.exit = ext_test_exit,
	.test_cases = ccaas_ext_cases,
};

kunit_test_suites(&ccaas_ext_suite);

MODULE_LICENSE("GPL");
