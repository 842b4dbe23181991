// SPDX-License-Identifier: GPL-2.0
/*
 * Built into the sanitizer kernel only (scripts/debug-kernel.sh adds it to
 * the kernel tree as net/ipv4/ccaas_kunit_exports.c).
 *
 * The differential KUnit suite (kunit/cca_diff_test.c, through
 * kunit/tcp_mirror.h) calls the stack's own congestion-state functions
 * rather than copies of them. Those are global but not exported, and the
 * suites are a module (ccaas_kunit.ko), so this test kernel exports them.
 * Debian's kernels are not changed: the module is built for this kernel
 * alone.
 */
#include <linux/export.h>
#include <net/tcp.h>

EXPORT_SYMBOL_GPL(tcp_cwnd_reduction);
EXPORT_SYMBOL_GPL(tcp_cwnd_restart);
EXPORT_SYMBOL_GPL(tcp_enter_loss);
EXPORT_SYMBOL_GPL(tcp_enter_recovery);
EXPORT_SYMBOL_GPL(tcp_reno);
EXPORT_SYMBOL_GPL(tcp_set_ca_state);
EXPORT_SYMBOL_GPL(tcp_set_congestion_control);
