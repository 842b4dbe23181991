// SPDX-License-Identifier: GPL-2.0
/*
 * ccaas_bench (this file and perack.c): in-kernel measurements of the ccaas
 * core and CCAs for bench/run.sh.
 * Not part of the product (not in the top-level Kbuild or dkms.conf).
 *
 * debugfs ccaas_bench/:
 *
 *   addrs    Write: the IPv4 addresses to look up, packed 32-bit words in
 *            network order (a write at offset 0 starts a new set; at most
 *            BENCH_MAX_ADDRS).
 *   lookup   Write "ROUNDS": in the writer's network namespace, run ROUNDS
 *            rounds; a round is one block per method, a block one lookup of
 *            every address with interrupts (and so preemption) off, timed
 *            with ktime_get_ns() around the whole block. Read: the report,
 *            one line per method with the minimum, median and maximum over
 *            the blocks of the time per lookup, then an untimed check that
 *            the scope table and the FIB agree on every address.
 *   select   Write "A.B.C.D ROUNDS": in the writer's network namespace, a
 *            kernel TCP socket with remote address A.B.C.D is handed ROUNDS
 *            times BENCH_SEL_CALLS times to every probe registered on the
 *            inet_sock_set_state tracepoint as CLOSE -> SYN_SENT (what
 *            tcp_v4_connect() does), owned and with interrupts off; the same
 *            loop without the calls is the baseline. Read: the report.
 *   perack   Per-ACK cost of a CCA's callbacks: see perack.c.
 *   migrate  Write 1: arm a kretprobe on ccaas_migrate() (and forget earlier
 *            calls); 2: also one on ccaas_migrate_one(), the visit of one
 *            socket (its lock_sock() to its release_sock(), and the checks
 *            before); 0: disarm. Read: one line per call since armed: time
 *            from entry to return, the call's counts and, with 2, the
 *            longest and the total time of one socket's visit.
 *
 * The methods, each a loop over the same addresses:
 *   loop        reading the address only: the loop's own cost
 *   scope       ccaas_scope_lookup4(): RCU, the namespace's scope table
 *   fib_table   fib_table_lookup() on the main table under rcu_read_lock(),
 *               the FIB's longest-prefix match alone (the local table is
 *               merged into it while there are no policy rules)
 *   fib_lookup  fib_lookup(), what route lookups call: the main table, and on
 *               a miss the default table too
 *
 * Under qemu -icount shift=0 one guest nanosecond is one instruction, so the
 * figures are instruction counts; elsewhere they are (emulated) time.
 */
#include <linux/debugfs.h>
#include <linux/inet.h>
#include <linux/kprobes.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/nsproxy.h>
#include <linux/sched.h>
#include <linux/slab.h>
#include <linux/sort.h>
#include <linux/timekeeping.h>
#include <linux/tracepoint.h>
#include <linux/uaccess.h>
#include <linux/vmalloc.h>
#include <net/ip_fib.h>
#include <net/net_namespace.h>
#include <net/sock.h>
#include <net/tcp.h>

#include "bench.h"
#include "core.h"
#include "sock.h"

#define BENCH_MAX_ADDRS		65536
#define BENCH_MAX_ROUNDS	200
#define BENCH_MIG_CALLS		32
#define BENCH_SEL_CALLS		1024

enum { M_LOOP, M_SCOPE, M_FIB_TABLE, M_FIB_LOOKUP, M_N };
static const char *const bench_method_name[M_N] = {
	"loop", "scope", "fib_table", "fib_lookup",
};

static DEFINE_MUTEX(bench_lock);	/* everything below */
static __be32 *bench_addrs;		/* BENCH_MAX_ADDRS of them */
static u32 bench_naddrs;
static u64 bench_blk[M_N][BENCH_MAX_ROUNDS];
static char *bench_report;		/* PAGE_SIZE: of the last lookup run */
static char *bench_mig_report;		/* PAGE_SIZE: made at each read */
static char *bench_sel_report;		/* PAGE_SIZE: of the last select run */
static size_t bench_sel_report_len;
static size_t bench_report_len;
static struct dentry *bench_dir;

/* Results feed this, so that no lookup can be optimised away. */
static u32 bench_sink;

/* ---- lookups ---- */

static void bench_flow(struct flowi4 *fl4, __be32 daddr)
{
	memset(fl4, 0, sizeof(*fl4));
	fl4->flowi4_iif = LOOPBACK_IFINDEX;	/* an output route lookup */
	fl4->daddr = daddr;
}

/* One timed block of method @m over all addresses; returns nanoseconds. */
static noinline u64 bench_block(int m, struct net *net, struct ccaas_net *cn)
{
	const __be32 *a = bench_addrs;
	struct ccaas_scope_result sr;
	struct fib_result fr;
	struct fib_table *tb;
	struct flowi4 fl4;
	unsigned long flags;
	u32 i, n = bench_naddrs, acc = 0;
	u64 t0, t1;

	bench_flow(&fl4, 0);
	local_irq_save(flags);
	t0 = ktime_get_ns();
	switch (m) {
	case M_LOOP:
		for (i = 0; i < n; i++) {
			u32 v = (__force u32)a[i];

			OPTIMIZER_HIDE_VAR(v);
			acc += v;
		}
		break;
	case M_SCOPE:
		for (i = 0; i < n; i++) {
			ccaas_scope_lookup4(cn, a[i], &sr);
			acc += sr.prefixlen;
		}
		break;
	case M_FIB_TABLE:
		for (i = 0; i < n; i++) {
			fl4.daddr = a[i];
			rcu_read_lock();
			tb = rcu_dereference(net->ipv4.fib_main);
			if (!fib_table_lookup(tb, &fl4, &fr, FIB_LOOKUP_NOREF))
				acc += fr.prefixlen;
			rcu_read_unlock();
		}
		break;
	case M_FIB_LOOKUP:
		for (i = 0; i < n; i++) {
			fl4.daddr = a[i];
			if (!fib_lookup(net, &fl4, &fr, 0))
				acc += fr.prefixlen;
		}
		break;
	}
	t1 = ktime_get_ns();
	local_irq_restore(flags);
	bench_sink += acc;
	return t1 - t0;
}

static int bench_u64_cmp(const void *a, const void *b)
{
	u64 x = *(const u64 *)a, y = *(const u64 *)b;

	return x < y ? -1 : x > y;
}

/* @ns per @n lookups, as "I.FF" (hundredths) */
static void bench_per(char *buf, size_t len, u64 ns, u32 n)
{
	u64 h = div_u64(ns * 100 + n / 2, n);

	snprintf(buf, len, "%llu.%02llu", div_u64(h, 100), h % 100);
}

/* Append to @buf (PAGE_SIZE bytes), @off bytes of which are used. */
void bench_out(char *buf, size_t *off, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	*off += vscnprintf(buf + *off, PAGE_SIZE - *off, fmt, ap);
	va_end(ap);
}

/* The scope table and the FIB on each address, untimed. */
static void bench_check(struct net *net, struct ccaas_net *cn, size_t *off)
{
	u32 i, scope_hits = 0, fib_hits = 0, same = 0, differ = 0;
	struct ccaas_scope_result sr;
	struct fib_result fr;
	struct fib_table *tb;
	struct flowi4 fl4;
	bool fib_hit, scope_hit;

	for (i = 0; i < bench_naddrs; i++) {
		ccaas_scope_lookup4(cn, bench_addrs[i], &sr);
		bench_flow(&fl4, bench_addrs[i]);
		rcu_read_lock();
		tb = rcu_dereference(net->ipv4.fib_main);
		fib_hit = !fib_table_lookup(tb, &fl4, &fr, FIB_LOOKUP_NOREF);
		rcu_read_unlock();
		scope_hit = sr.locality != CCAAS_LOCALITY_UNKNOWN;
		scope_hits += scope_hit;
		fib_hits += fib_hit;
		/* both found nothing, or the same prefix length */
		if (scope_hit == fib_hit &&
		    (!fib_hit || sr.prefixlen == fr.prefixlen))
			same++;
		else
			differ++;
	}
	bench_out(bench_report, off, "check addrs=%u scope_hits=%u fib_hits=%u same=%u differ=%u\n",
		  bench_naddrs, scope_hits, fib_hits, same, differ);
}

static void bench_lookup(struct net *net, unsigned int rounds)
{
	struct ccaas_net *cn = ccaas_net(net);
	size_t off = 0;
	unsigned int r;
	int m;

	for (r = 0; r < rounds; r++) {
		/* methods interleaved, so that drift affects them alike */
		for (m = 0; m < M_N; m++)
			bench_blk[m][r] = bench_block(m, net, cn);
		cond_resched();
	}
	bench_out(bench_report, &off, "unit=ns_per_lookup addrs=%u blocks=%u\n",
		  bench_naddrs, rounds);
	for (m = 0; m < M_N; m++) {
		char lo[24], med[24], hi[24];
		u64 *b = bench_blk[m];

		sort(b, rounds, sizeof(*b), bench_u64_cmp, NULL);
		bench_per(lo, sizeof(lo), b[0], bench_naddrs);
		/* the lower median for an even count */
		bench_per(med, sizeof(med), b[(rounds - 1) / 2], bench_naddrs);
		bench_per(hi, sizeof(hi), b[rounds - 1], bench_naddrs);
		bench_out(bench_report, &off, "method=%s min=%s med=%s max=%s\n",
			  bench_method_name[m], lo, med, hi);
	}
	bench_check(net, cn, &off);
	bench_report_len = off;
}

static ssize_t bench_addrs_write(struct file *file, const char __user *ubuf,
				 size_t len, loff_t *ppos)
{
	size_t max = BENCH_MAX_ADDRS * sizeof(*bench_addrs);
	loff_t pos = *ppos;

	if (pos < 0 || pos > max || len > max - pos)
		return -EFBIG;
	mutex_lock(&bench_lock);
	if (!pos)
		bench_naddrs = 0;
	if (copy_from_user((char *)bench_addrs + pos, ubuf, len)) {
		mutex_unlock(&bench_lock);
		return -EFAULT;
	}
	bench_naddrs = (pos + len) / sizeof(*bench_addrs);
	mutex_unlock(&bench_lock);
	*ppos = pos + len;
	return len;
}

static ssize_t bench_lookup_write(struct file *file, const char __user *ubuf,
				  size_t len, loff_t *ppos)
{
	unsigned int rounds;
	int err;

	err = kstrtouint_from_user(ubuf, len, 0, &rounds);
	if (err)
		return err;
	if (!rounds || rounds > BENCH_MAX_ROUNDS)
		return -EINVAL;
	mutex_lock(&bench_lock);
	if (bench_naddrs)
		bench_lookup(current->nsproxy->net_ns, rounds);
	else
		err = -ENODATA;
	mutex_unlock(&bench_lock);
	return err ? err : len;
}

static ssize_t bench_report_read(struct file *file, char __user *ubuf,
				 size_t len, loff_t *ppos)
{
	ssize_t ret;

	mutex_lock(&bench_lock);
	ret = simple_read_from_buffer(ubuf, len, ppos, bench_report,
				      bench_report_len);
	mutex_unlock(&bench_lock);
	return ret;
}

static const struct file_operations bench_addrs_fops = {
	.owner = THIS_MODULE,
	.write = bench_addrs_write,
	.llseek = default_llseek,
};

static const struct file_operations bench_lookup_fops = {
	.owner = THIS_MODULE,
	.write = bench_lookup_write,
	.read = bench_report_read,
	.llseek = default_llseek,
};

/* ---- the selector at connect ---- */

static struct tracepoint *bench_set_state_tp;

static void bench_find_tp(struct tracepoint *tp, void *priv)
{
	if (!strcmp(tp->name, "inet_sock_set_state"))
		bench_set_state_tp = tp;
}

typedef void (*bench_set_state_fn)(void *data, const struct sock *sk,
				   int oldstate, int newstate);

/*
 * One timed block: BENCH_SEL_CALLS times, each probe on the tracepoint
 * (@calls) or nothing; the socket is owned, interrupts are off.
 */
static noinline u64 bench_sel_block(struct sock *sk, bool calls,
				    unsigned int *nprobes)
{
	struct tracepoint_func *f;
	unsigned long flags;
	unsigned int i, n = 0;
	u64 t0, t1;

	local_irq_save(flags);
	t0 = ktime_get_ns();
	for (i = 0; i < BENCH_SEL_CALLS; i++) {
		/* as the tracepoint does: its probe array, under RCU-sched */
		f = rcu_dereference_sched(bench_set_state_tp->funcs);
		if (!calls || !f) {
			OPTIMIZER_HIDE_VAR(f);
			continue;
		}
		for (n = 0; f->func; f++, n++)
			((bench_set_state_fn)f->func)(f->data, sk, TCP_CLOSE,
						      TCP_SYN_SENT);
	}
	t1 = ktime_get_ns();
	local_irq_restore(flags);
	if (calls)
		*nprobes = n;
	return t1 - t0;
}

static int bench_select(struct net *net, __be32 daddr, unsigned int rounds)
{
	u64 *b0 = bench_blk[0], *b1 = bench_blk[1];
	char lo[24], med[24], hi[24], base[24];
	const struct tcp_congestion_ops *ca;
	unsigned int r, nprobes = 0;
	struct socket *sock;
	struct sock *sk;
	size_t off = 0;
	int err;

	err = sock_create_kern(net, AF_INET, SOCK_STREAM, IPPROTO_TCP, &sock);
	if (err)
		return err;
	sk = sock->sk;
	/* what tcp_v4_connect() has set when the state changes */
	sk->sk_daddr = daddr;
	sk->sk_dport = htons(9);
	lock_sock(sk);
	for (r = 0; r < rounds; r++) {
		b0[r] = bench_sel_block(sk, false, &nprobes);
		b1[r] = bench_sel_block(sk, true, &nprobes);
	}
	ca = inet_csk(sk)->icsk_ca_ops;
	bench_out(bench_sel_report, &off,
		  "unit=ns_per_call calls=%u blocks=%u probes=%u ca=%s\n",
		  BENCH_SEL_CALLS, rounds, nprobes, ca->name);
	release_sock(sk);
	sock_release(sock);

	sort(b0, rounds, sizeof(*b0), bench_u64_cmp, NULL);
	sort(b1, rounds, sizeof(*b1), bench_u64_cmp, NULL);
	bench_per(base, sizeof(base), b0[(rounds - 1) / 2], BENCH_SEL_CALLS);
	bench_per(lo, sizeof(lo), b1[0], BENCH_SEL_CALLS);
	bench_per(med, sizeof(med), b1[(rounds - 1) / 2], BENCH_SEL_CALLS);
	bench_per(hi, sizeof(hi), b1[rounds - 1], BENCH_SEL_CALLS);
	bench_out(bench_sel_report, &off, "method=select min=%s med=%s max=%s loop_med=%s\n",
		  lo, med, hi, base);
	bench_sel_report_len = off;
	return 0;
}

static ssize_t bench_select_write(struct file *file, const char __user *ubuf,
				  size_t len, loff_t *ppos)
{
	char buf[64], *rest;
	unsigned int rounds;
	const char *end;
	__be32 daddr;
	int err;

	if (len >= sizeof(buf))
		return -EINVAL;
	if (copy_from_user(buf, ubuf, len))
		return -EFAULT;
	buf[len] = 0;
	rest = strchr(buf, ' ');
	if (!rest || !in4_pton(buf, rest - buf, (u8 *)&daddr, -1, &end) ||
	    kstrtouint(strim(rest), 0, &rounds) || !rounds ||
	    rounds > BENCH_MAX_ROUNDS)
		return -EINVAL;
	mutex_lock(&bench_lock);
	if (!bench_set_state_tp)
		for_each_kernel_tracepoint(bench_find_tp, NULL);
	if (bench_set_state_tp)
		err = bench_select(current->nsproxy->net_ns, daddr, rounds);
	else
		err = -ENOENT;
	mutex_unlock(&bench_lock);
	return err ? err : len;
}

static ssize_t bench_select_read(struct file *file, char __user *ubuf,
				 size_t len, loff_t *ppos)
{
	ssize_t ret;

	mutex_lock(&bench_lock);
	ret = simple_read_from_buffer(ubuf, len, ppos, bench_sel_report,
				      bench_sel_report_len);
	mutex_unlock(&bench_lock);
	return ret;
}

static const struct file_operations bench_select_fops = {
	.owner = THIS_MODULE,
	.write = bench_select_write,
	.read = bench_select_read,
	.llseek = default_llseek,
};

/* ---- migration ---- */

struct bench_mig_call {
	u64 ns;
	u64 one_max_ns;		/* longest ccaas_migrate_one() of the call */
	u64 one_sum_ns;
	u32 one_n;
	struct ccaas_migrate_stats stats;
};

/* the ccaas_migrate() call in flight: its visits so far (one at a time) */
static u64 bench_one_max, bench_one_sum;
static u32 bench_one_n;

/* per call in flight: when it started, where it leaves its counts */
struct bench_mig_inst {
	u64 t0;
	struct ccaas_migrate_stats *stats;
};

static struct bench_mig_call bench_mig[BENCH_MIG_CALLS];
static atomic_t bench_mig_n;
static bool bench_mig_armed;

static int bench_mig_entry(struct kretprobe_instance *ri, struct pt_regs *regs)
{
	struct bench_mig_inst *d = (struct bench_mig_inst *)ri->data;

	/* ccaas_migrate(net, force, stats) */
	d->stats = (struct ccaas_migrate_stats *)regs_get_kernel_argument(regs, 2);
	WRITE_ONCE(bench_one_max, 0);
	WRITE_ONCE(bench_one_sum, 0);
	WRITE_ONCE(bench_one_n, 0);
	d->t0 = ktime_get_ns();
	return 0;
}

static int bench_mig_return(struct kretprobe_instance *ri,
			    struct pt_regs *regs)
{
	u64 t1 = ktime_get_ns();
	struct bench_mig_inst *d = (struct bench_mig_inst *)ri->data;
	int i = atomic_inc_return(&bench_mig_n) - 1;

	if (i < BENCH_MIG_CALLS) {
		bench_mig[i].ns = t1 - d->t0;
		bench_mig[i].stats = *d->stats;	/* the caller's, still live */
		bench_mig[i].one_max_ns = READ_ONCE(bench_one_max);
		bench_mig[i].one_sum_ns = READ_ONCE(bench_one_sum);
		bench_mig[i].one_n = READ_ONCE(bench_one_n);
	}
	return 0;
}

static int bench_one_entry(struct kretprobe_instance *ri, struct pt_regs *regs)
{
	*(u64 *)ri->data = ktime_get_ns();
	return 0;
}

/* ccaas_migrate() visits one socket at a time: plain updates suffice */
static int bench_one_return(struct kretprobe_instance *ri,
			    struct pt_regs *regs)
{
	u64 ns = ktime_get_ns() - *(u64 *)ri->data;

	WRITE_ONCE(bench_one_max, max(READ_ONCE(bench_one_max), ns));
	WRITE_ONCE(bench_one_sum, READ_ONCE(bench_one_sum) + ns);
	WRITE_ONCE(bench_one_n, READ_ONCE(bench_one_n) + 1);
	return 0;
}

static struct kretprobe bench_one_probe = {
	.kp.symbol_name = "ccaas_migrate_one",
	.entry_handler = bench_one_entry,
	.handler = bench_one_return,
	.data_size = sizeof(u64),
	.maxactive = 4,
};

static bool bench_one_armed;

static struct kretprobe bench_mig_probe = {
	.kp.symbol_name = "ccaas_migrate",
	.entry_handler = bench_mig_entry,
	.handler = bench_mig_return,
	.data_size = sizeof(struct bench_mig_inst),
	.maxactive = 4,
};

static ssize_t bench_migrate_write(struct file *file, const char __user *ubuf,
				   size_t len, loff_t *ppos)
{
	unsigned int arm;
	int err;

	err = kstrtouint_from_user(ubuf, len, 0, &arm);
	if (err)
		return err;
	if (arm > 2)
		return -EINVAL;
	mutex_lock(&bench_lock);
	if (bench_one_armed && arm != 2) {
		unregister_kretprobe(&bench_one_probe);
		bench_one_armed = false;
	}
	if (arm && !bench_mig_armed) {
		atomic_set(&bench_mig_n, 0);
		/* a kretprobe cannot be registered twice without a reset */
		memset(&bench_mig_probe.kp, 0, sizeof(bench_mig_probe.kp));
		bench_mig_probe.kp.symbol_name = "ccaas_migrate";
		err = register_kretprobe(&bench_mig_probe);
		bench_mig_armed = !err;
	} else if (!arm && bench_mig_armed) {
		unregister_kretprobe(&bench_mig_probe);
		bench_mig_armed = false;
	}
	if (!err && arm == 2 && !bench_one_armed) {
		memset(&bench_one_probe.kp, 0, sizeof(bench_one_probe.kp));
		bench_one_probe.kp.symbol_name = "ccaas_migrate_one";
		err = register_kretprobe(&bench_one_probe);
		bench_one_armed = !err;
	}
	mutex_unlock(&bench_lock);
	return err ? err : len;
}

static ssize_t bench_migrate_read(struct file *file, char __user *ubuf,
				  size_t len, loff_t *ppos)
{
	int i, n = min(atomic_read(&bench_mig_n), BENCH_MIG_CALLS);
	size_t off = 0;
	ssize_t ret;

	mutex_lock(&bench_lock);
	for (i = 0; i < n; i++) {
		const struct ccaas_migrate_stats *s = &bench_mig[i].stats;

		bench_out(bench_mig_report, &off,
			  "call=%d ns=%llu examined=%u migrated=%u unchanged=%u refused=%u other=%u one_n=%u one_max_ns=%llu one_sum_ns=%llu\n",
			  i + 1, bench_mig[i].ns, s->examined,
			  s->count[CCAAS_MOVE_MIGRATED],
			  s->count[CCAAS_MOVE_UNCHANGED],
			  s->count[CCAAS_MOVE_REFUSED],
			  s->examined - s->count[CCAAS_MOVE_MIGRATED] -
			  s->count[CCAAS_MOVE_UNCHANGED] -
			  s->count[CCAAS_MOVE_REFUSED],
			  bench_mig[i].one_n, bench_mig[i].one_max_ns,
			  bench_mig[i].one_sum_ns);
	}
	ret = simple_read_from_buffer(ubuf, len, ppos, bench_mig_report, off);
	mutex_unlock(&bench_lock);
	return ret;
}

static const struct file_operations bench_migrate_fops = {
	.owner = THIS_MODULE,
	.write = bench_migrate_write,
	.read = bench_migrate_read,
	.llseek = default_llseek,
};

/* ---- module ---- */

static int __init bench_init(void)
{
	bench_addrs = vmalloc(BENCH_MAX_ADDRS * sizeof(*bench_addrs));
	bench_report = kzalloc(PAGE_SIZE, GFP_KERNEL);
	bench_mig_report = kzalloc(PAGE_SIZE, GFP_KERNEL);
	bench_sel_report = kzalloc(PAGE_SIZE, GFP_KERNEL);
	if (!bench_addrs || !bench_report || !bench_mig_report ||
	    !bench_sel_report)
		goto nomem;
	bench_dir = debugfs_create_dir("ccaas_bench", NULL);
	debugfs_create_file("addrs", 0200, bench_dir, NULL, &bench_addrs_fops);
	debugfs_create_file("lookup", 0600, bench_dir, NULL, &bench_lookup_fops);
	debugfs_create_file("select", 0600, bench_dir, NULL, &bench_select_fops);
	debugfs_create_file("migrate", 0600, bench_dir, NULL,
			    &bench_migrate_fops);
	if (bench_perack_init(bench_dir)) {
		debugfs_remove_recursive(bench_dir);
		goto nomem;
	}
	return 0;
nomem:
	vfree(bench_addrs);
	kfree(bench_report);
	kfree(bench_mig_report);
	kfree(bench_sel_report);
	return -ENOMEM;
}

static void __exit bench_exit(void)
{
	debugfs_remove_recursive(bench_dir);
	bench_perack_exit();
	if (bench_one_armed)
		unregister_kretprobe(&bench_one_probe);
	if (bench_mig_armed)
		unregister_kretprobe(&bench_mig_probe);
	vfree(bench_addrs);
	kfree(bench_report);
	kfree(bench_mig_report);
	kfree(bench_sel_report);
}

module_init(bench_init);
module_exit(bench_exit);
MODULE_DESCRIPTION("ccaas benchmarks: scope vs FIB lookups, migration timing, per-ACK cost");
MODULE_LICENSE("GPL");
