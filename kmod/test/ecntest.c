// SPDX-License-Identifier: GPL-2.0
/*
 * cca_ecntest: a test-only CCA whose tcp_congestion_ops flags are a module
 * parameter, so the VM tests can give the core ops with AccECN's flags
 * (TCP_CONG_NEEDS_ACCECN, TCP_CONG_ECT_1_NEGOTIATION,
 * TCP_CONG_NO_FALLBACK_RFC3168), which no CCA in the kernels ccaas runs on
 * has yet, and see what the registry, the selector and migration make of
 * them. Its control law is the stack's Reno. Built only by the test builds
 * (CCAAS_TEST_MODULES=m), never installed.
 */
#include <linux/module.h>
#include <net/inet_ecn.h>
#include <net/tcp.h>

#include <ccaas/ccaas.h>

/*
 * Default: an L4S-style CCA. On kernels without AccECN the AccECN flags
 * are 0 (see compat.h) and this is a CCA that needs classic ECN.
 */
static uint ecn_flags = TCP_CONG_NEEDS_ECN | CCAAS_TCP_CONG_NEEDS_ACCECN |
			CCAAS_TCP_CONG_ECT_1_NEGOTIATION |
			CCAAS_TCP_CONG_NO_FALLBACK_RFC3168;
module_param(ecn_flags, uint, 0444);
MODULE_PARM_DESC(ecn_flags, "TCP_CONG_* ECN flags of the ops (checked by the ccaas registry)");

/* A fallback name of TCP_CA_NAME_MAX bytes without a NUL, for the registry. */
static bool unterminated_name;
module_param(unterminated_name, bool, 0444);
MODULE_PARM_DESC(unterminated_name, "give the fallback ops a name with no NUL (refused)");

/* No fallback ops, though the CCA needs ECN and holds non-ECN sockets. */
static bool no_fallback;
module_param(no_fallback, bool, 0444);
MODULE_PARM_DESC(no_fallback, "register without the Reno fallback ops (refused)");

/* A takeover list of one CCA: only its sockets may move here. */
static char *takeover_from;
module_param(takeover_from, charp, 0444);
MODULE_PARM_DESC(takeover_from, "take sockets over from this CCA only");

static struct ccaas_takeover cca_ecntest_takeover[1];

static struct tcp_congestion_ops cca_ecntest_reno_ops;

/*
 * As in-tree dctcp: an established socket without ECN goes to the Reno
 * fallback (ecntest-reno), whose packets are Not-ECT.
 */
static void cca_ecntest_init(struct sock *sk)
{
	if (!ccaas_tcp_ecn_ok(tcp_sk(sk)) &&
	    sk->sk_state != TCP_LISTEN && sk->sk_state != TCP_CLOSE) {
		inet_csk(sk)->icsk_ca_ops = &cca_ecntest_reno_ops;
		INET_ECN_dontxmit(sk);
	}
}

static struct tcp_congestion_ops cca_ecntest_ops __read_mostly = {
	.init		= cca_ecntest_init,
	.ssthresh	= tcp_reno_ssthresh,
	.cong_avoid	= tcp_reno_cong_avoid,
	.undo_cwnd	= tcp_reno_undo_cwnd,
	.owner		= THIS_MODULE,
	.name		= "cca_ecntest",
};

static struct tcp_congestion_ops cca_ecntest_reno_ops __read_mostly = {
	.ssthresh	= tcp_reno_ssthresh,
	.cong_avoid	= tcp_reno_cong_avoid,
	.undo_cwnd	= tcp_reno_undo_cwnd,
	.owner		= THIS_MODULE,
	.name		= "ecntest-reno",
};

static struct ccaas_cca cca_ecntest = {
	.ops		= &cca_ecntest_ops,
	.fallback_ops	= &cca_ecntest_reno_ops,
	.version	= CCAAS_VERSION(0, 1, 0),
	/* Reno holds any socket, with ECN or (on its fallback) without. */
	.features	= CCAAS_CCA_F_ECN_OK | CCAAS_CCA_F_NONECN_OK,
};

static int __init cca_ecntest_register(void)
{
	if (ecn_flags & ~TCP_CONG_MASK)
		return -EINVAL;
	cca_ecntest_ops.flags = ecn_flags;
	if (unterminated_name)
		memset(cca_ecntest_reno_ops.name, 'x', TCP_CA_NAME_MAX);
	if (no_fallback)
		cca_ecntest.fallback_ops = NULL;
	if (ecn_flags & TCP_CONG_NEEDS_ECN)
		cca_ecntest.features |= CCAAS_CCA_F_NEEDS_ECN;
	if (takeover_from) {
		cca_ecntest_takeover[0].name = takeover_from;
		cca_ecntest.takeover = cca_ecntest_takeover;
		cca_ecntest.n_takeover = 1;
	}
	return ccaas_cca_register(&cca_ecntest);
}

static void __exit cca_ecntest_unregister(void)
{
	ccaas_cca_unregister(&cca_ecntest);
}

module_init(cca_ecntest_register);
module_exit(cca_ecntest_unregister);

MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("ccaas: test CCA with chosen ECN flags (cca_ecntest)");
