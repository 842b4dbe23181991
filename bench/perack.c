// SPDX-License-Identifier: GPL-2.0
/*
 * perack: instructions per ACK of a CCA's callbacks (bench/README.md, part
 * "perack"). Part of ccaas_bench.ko.
 *
 * debugfs ccaas_bench/perack:
 *   Write "FD ROUNDS": FD is a connected TCP socket of the writing process,
 *   its CCA already chosen with setsockopt(TCP_CONGESTION). The socket is
 *   copied once (under its lock, read only) into a private buffer of the
 *   socket's object size; every block then starts from a fresh copy of that
 *   snapshot (untimed: set up the phase, zero the private area, the CCA's
 *   init()) and emulates PERACK_ACKS ACKs with interrupts off, timed with
 *   ktime_get_ns() around the block. Each round runs, per phase, the empty
 *   loop (the same emulation without any CCA call) and the CCA. The copies
 *   are freed with kfree(): they are not sockets, nothing is released.
 *   Read: the report of the last run.
 *
 * Phases (RTT 1 ms, MSS of the socket):
 *   ss     cwnd 10, ssthresh infinite, no CE; ACKs 1 us apart (a window's
 *          ACK train stays under half an RTT, so no HyStart exit).
 *   ca_ce  cwnd 100 = ssthresh, every 10th ACK carries ECE; ACKs RTT/cwnd
 *          apart.
 *
 * One emulated ACK acknowledges one MSS, in the order of 6.12's tcp_ack():
 *   snd_una += mss, delivered++ (delivered_ce++ on ECE), tcp_mstamp moves;
 *   pkts_acked() (from tcp_clean_rtx_queue, rtt = 1 ms, in_flight = cwnd);
 *   in_ack_event(CA_ACK_WIN_UPDATE), or CA_ACK_SLOWPATH|CA_ACK_ECE on ECE;
 *   in CWR once snd_una is past high_seq: end of the reduction (cwnd =
 *   ssthresh unless cong_control, cwnd_event(CA_EVENT_COMPLETE_CWR),
 *   set_state(Open)); on ECE in Open: tcp_enter_cwr(): high_seq = snd_nxt,
 *   ssthresh(), set_state(CWR);
 *   cong_control(rs) if the CCA has it, else cong_avoid(ack, 1) in Open
 *   (in CWR the stack's PRR would shrink cwnd: not emulated, cwnd is kept);
 *   snd_nxt = snd_una + cwnd * mss (the sender keeps the window full).
 * Not emulated: the stack's own work (RTT estimator, rate sampling, PRR,
 * pacing rate, transmit), the receiver side (cwnd_event CE events), losses.
 *
 * Under qemu -icount shift=0 one guest nanosecond is one instruction.
 */
#include <linux/debugfs.h>
#include <linux/file.h>
#include <linux/irqflags.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/net.h>
#include <linux/slab.h>
#include <linux/sort.h>
#include <linux/timekeeping.h>
#include <linux/win_minmax.h>
#include <net/sock.h>
#include <net/tcp.h>

#include "bench.h"

#define PERACK_ACKS		256	/* emulated ACKs per block */
#define PERACK_MAX_ROUNDS	64
#define PERACK_RTT_US		1000

/* tcp_input.c's private FLAG_* values (the same in 6.1 and 6.12) */
#define PERACK_FLAG_WIN_UPDATE		0x02
#define PERACK_FLAG_DATA_ACKED		0x04
#define PERACK_FLAG_ECE			0x40
#define PERACK_FLAG_SLOWPATH		0x100
#define PERACK_FLAG_SND_UNA_ADVANCED	0x400

struct perack_phase {
	const char *name;
	u32 cwnd;
	u32 ssthresh;
	u32 ce_every;		/* one ACK in ce_every has ECE; 0: none */
	u32 spacing_us;		/* between ACKs */
};

static const struct perack_phase perack_phases[] = {
	{ "ss", 10, TCP_INFINITE_SSTHRESH, 0, 1 },
	{ "ca_ce", 100, 100, 10, PERACK_RTT_US / 100 },
};
#define PERACK_NPHASES ARRAY_SIZE(perack_phases)

/* What one block did, for the report (the CCA's, not the empty loop's). */
struct perack_stats {
	u32 cwnd_end;
	u32 ssthresh_end;
	u32 cwr;		/* ssthresh() calls (entries into CWR) */
	u32 ce;			/* ECE ACKs */
	u32 rounds;		/* round trips ended, by ccaas's rule */
};

static DEFINE_MUTEX(perack_lock);
static u64 perack_blk[PERACK_NPHASES][2][PERACK_MAX_ROUNDS];
static char *perack_report;	/* PAGE_SIZE */
static size_t perack_report_len;

/*
 * The block: PERACK_ACKS ACKs on @sk. With @call false (a constant at each
 * call site) no CCA callback runs: the empty loop, subtracted.
 */
static __always_inline void perack_run(struct sock *sk,
				       const struct perack_phase *ph,
				       struct perack_stats *st, const bool call)
{
	struct inet_connection_sock *icsk = inet_csk(sk);
	const struct tcp_congestion_ops *ops = icsk->icsk_ca_ops;
	struct tcp_sock *tp = tcp_sk(sk);
	u32 mss = tp->mss_cache, ce_cnt = 0, i, round_end = tp->snd_nxt;
	struct rate_sample rs = {};
	struct ack_sample as = {};
	u64 now = tp->tcp_mstamp;

	for (i = 0; i < PERACK_ACKS; i++) {
		int flag = PERACK_FLAG_DATA_ACKED | PERACK_FLAG_SND_UNA_ADVANCED;
		u32 cwnd = tcp_snd_cwnd(tp);
		bool ece = false;

		if (ph->ce_every && ++ce_cnt == ph->ce_every) {
			ce_cnt = 0;
			ece = true;
			st->ce++;
		}
		now += ph->spacing_us;
		tp->tcp_mstamp = now;
		tp->snd_una += mss;
		tp->delivered++;
		if (ece) {
			tp->delivered_ce++;
			flag |= PERACK_FLAG_SLOWPATH | PERACK_FLAG_ECE;
		} else {
			flag |= PERACK_FLAG_WIN_UPDATE;
		}

		/* tcp_clean_rtx_queue() */
		as.pkts_acked = 1;
		as.rtt_us = PERACK_RTT_US;
		as.in_flight = cwnd;
		if (call && ops->pkts_acked)
			ops->pkts_acked(sk, &as);

		/* tcp_in_ack_event() */
		if (call && ops->in_ack_event)
			ops->in_ack_event(sk, ece ? CA_ACK_SLOWPATH | CA_ACK_ECE :
					  CA_ACK_WIN_UPDATE);

		/* round trips as <ccaas/round.h> counts them (ccalog's rate) */
		if (!before(tp->snd_una, round_end)) {
			st->rounds++;
			round_end = tp->snd_nxt;
		}

		/* tcp_fastretrans_alert(): leave CWR, enter it on ECE */
		if (icsk->icsk_ca_state == TCP_CA_CWR &&
		    !before(tp->snd_una, tp->high_seq) &&
		    tp->snd_una != tp->high_seq) {
			if (!ops->cong_control)
				tcp_snd_cwnd_set(tp, tp->snd_ssthresh);
			if (call && ops->cwnd_event)
				ops->cwnd_event(sk, CA_EVENT_COMPLETE_CWR);
			if (call && ops->set_state)
				ops->set_state(sk, TCP_CA_Open);
			icsk->icsk_ca_state = TCP_CA_Open;
		}
		if (ece && icsk->icsk_ca_state < TCP_CA_CWR) {
			tp->high_seq = tp->snd_nxt;
			tp->prior_cwnd = tcp_snd_cwnd(tp);
			tp->snd_cwnd_cnt = 0;
			if (call)
				tp->snd_ssthresh = ops->ssthresh(sk);
			st->cwr++;
			if (call && ops->set_state)
				ops->set_state(sk, TCP_CA_CWR);
			icsk->icsk_ca_state = TCP_CA_CWR;
		}

		/* tcp_cong_control() */
		if (ops->cong_control) {
			rs.prior_delivered = tp->delivered - cwnd;
			rs.prior_mstamp = now - PERACK_RTT_US;
			rs.delivered = cwnd;
			rs.delivered_ce = ph->ce_every ? cwnd / ph->ce_every : 0;
			rs.interval_us = PERACK_RTT_US;
			rs.snd_interval_us = PERACK_RTT_US;
			rs.rcv_interval_us = PERACK_RTT_US;
			rs.rtt_us = PERACK_RTT_US;
			rs.acked_sacked = 1;
			rs.prior_in_flight = cwnd;
			if (call) {
#ifdef CCAAS_HAVE_CONG_CONTROL_ACK_FLAG
				ops->cong_control(sk, tp->snd_una, flag, &rs);
#else
				ops->cong_control(sk, &rs);
#endif
			}
		} else if (icsk->icsk_ca_state == TCP_CA_Open) {
			if (call)
				ops->cong_avoid(sk, tp->snd_una, 1);
		}
		OPTIMIZER_HIDE_VAR(flag);
		tp->snd_nxt = tp->snd_una + tcp_snd_cwnd(tp) * mss;
	}
	st->cwnd_end = tcp_snd_cwnd(tp);
	st->ssthresh_end = tp->snd_ssthresh;
}

static noinline u64 perack_block(struct sock *sk, const struct perack_phase *ph,
				 struct perack_stats *st, bool call)
{
	unsigned long flags;
	u64 t0, t1;

	local_irq_save(flags);
	t0 = ktime_get_ns();
	if (call)
		perack_run(sk, ph, st, true);
	else
		perack_run(sk, ph, st, false);
	t1 = ktime_get_ns();
	local_irq_restore(flags);
	return t1 - t0;
}

/* A fresh copy of @tmpl in @sk, set up for phase @ph, the CCA initialised. */
static void perack_setup(struct sock *sk, const struct sock *tmpl, size_t size,
			 const struct perack_phase *ph)
{
	struct inet_connection_sock *icsk = inet_csk(sk);
	struct tcp_sock *tp = tcp_sk(sk);

	memcpy(sk, tmpl, size);
	tcp_snd_cwnd_set(tp, ph->cwnd);
	tp->snd_ssthresh = ph->ssthresh;
	tp->snd_cwnd_cnt = 0;
	tp->snd_cwnd_clamp = ~0U;
	tp->is_cwnd_limited = 1;
	tp->max_packets_out = ph->cwnd;
	tp->data_segs_out = 1000;	/* a connection under way */
	tp->srtt_us = PERACK_RTT_US << 3;
	minmax_reset(&tp->rtt_min, tcp_jiffies32, PERACK_RTT_US);
	tp->rate_delivered = ph->cwnd;
	tp->rate_interval_us = PERACK_RTT_US;
	tp->rate_app_limited = 0;
	tp->app_limited = 0;
	tp->snd_nxt = tp->snd_una + ph->cwnd * tp->mss_cache;
	tp->high_seq = tp->snd_una;
	icsk->icsk_ca_state = TCP_CA_Open;
	/* as tcp_reinit_congestion_control() */
	memset(icsk->icsk_ca_priv, 0, sizeof(icsk->icsk_ca_priv));
	rcu_read_lock();
	if (icsk->icsk_ca_ops->init)
		icsk->icsk_ca_ops->init(sk);	/* may switch to a fallback */
	rcu_read_unlock();
}

static int perack_u64_cmp(const void *a, const void *b)
{
	u64 x = *(const u64 *)a, y = *(const u64 *)b;

	return x < y ? -1 : x > y;
}

/* @ns over PERACK_ACKS ACKs, "I.FF" */
static void perack_per(char *buf, size_t len, s64 ns)
{
	s64 h = div_s64(ns * 100, PERACK_ACKS);

	snprintf(buf, len, "%s%lld.%02lld", h < 0 ? "-" : "",
		 div_s64(abs(h), 100), abs(h) % 100);
}

static int perack_measure(struct sock *orig, unsigned int rounds)
{
	size_t size = orig->sk_prot->obj_size, off = 0;
	const char *name0, *name;
	struct perack_stats st;
	struct sock *tmpl, *sk;
	unsigned int r, p;
	int err = 0;

	if (orig->sk_protocol != IPPROTO_TCP || orig->sk_type != SOCK_STREAM ||
	    orig->sk_state != TCP_ESTABLISHED)
		return -EINVAL;
	tmpl = kmalloc(size, GFP_KERNEL);
	sk = kmalloc(size, GFP_KERNEL);
	if (!tmpl || !sk) {
		err = -ENOMEM;
		goto out;
	}
	lock_sock(orig);
	memcpy(tmpl, orig, size);
	release_sock(orig);
	name0 = inet_csk(tmpl)->icsk_ca_ops->name;

	for (p = 0; p < PERACK_NPHASES; p++) {
		const struct perack_phase *ph = &perack_phases[p];
		char lo[24], med[24], hi[24], loop[24], net[24];
		u64 *b0 = perack_blk[p][0], *b1 = perack_blk[p][1];

		for (r = 0; r < rounds; r++) {
			memset(&st, 0, sizeof(st));
			perack_setup(sk, tmpl, size, ph);
			b0[r] = perack_block(sk, ph, &st, false);
			memset(&st, 0, sizeof(st));
			perack_setup(sk, tmpl, size, ph);
			b1[r] = perack_block(sk, ph, &st, true);
			cond_resched();
		}
		name = inet_csk(sk)->icsk_ca_ops->name;
		sort(b0, rounds, sizeof(*b0), perack_u64_cmp, NULL);
		sort(b1, rounds, sizeof(*b1), perack_u64_cmp, NULL);
		perack_per(lo, sizeof(lo), b1[0]);
		perack_per(med, sizeof(med), b1[(rounds - 1) / 2]);
		perack_per(hi, sizeof(hi), b1[rounds - 1]);
		perack_per(loop, sizeof(loop), b0[(rounds - 1) / 2]);
		perack_per(net, sizeof(net),
			   (s64)b1[(rounds - 1) / 2] - (s64)b0[(rounds - 1) / 2]);
		bench_out(perack_report, &off,
			  "phase=%s ca=%s ops=%s ecn=%d acks=%u blocks=%u min=%s med=%s max=%s loop_med=%s net=%s cwnd_end=%u ssthresh_end=%u cwr=%u ce=%u rounds=%u\n",
			  ph->name, name0, name,
			  ccaas_tcp_ecn_ok(tcp_sk(tmpl)), PERACK_ACKS,
			  rounds, lo, med, hi, loop, net, st.cwnd_end,
			  st.ssthresh_end, st.cwr, st.ce, st.rounds);
	}
	perack_report_len = off;
out:
	kfree(sk);	/* copies, not sockets: nothing to release */
	kfree(tmpl);
	return err;
}

static ssize_t perack_write(struct file *file, const char __user *ubuf,
			    size_t len, loff_t *ppos)
{
	unsigned int fd, rounds;
	struct socket *sock;
	char buf[32];
	int err;

	if (len >= sizeof(buf))
		return -EINVAL;
	if (copy_from_user(buf, ubuf, len))
		return -EFAULT;
	buf[len] = 0;
	if (sscanf(buf, "%u %u", &fd, &rounds) != 2 || !rounds ||
	    rounds > PERACK_MAX_ROUNDS)
		return -EINVAL;
	sock = sockfd_lookup(fd, &err);
	if (!sock)
		return err;
	mutex_lock(&perack_lock);
	perack_report_len = 0;
	err = perack_measure(sock->sk, rounds);
	mutex_unlock(&perack_lock);
	sockfd_put(sock);
	return err ? err : len;
}

static ssize_t perack_read(struct file *file, char __user *ubuf, size_t len,
			   loff_t *ppos)
{
	ssize_t ret;

	mutex_lock(&perack_lock);
	ret = simple_read_from_buffer(ubuf, len, ppos, perack_report,
				      perack_report_len);
	mutex_unlock(&perack_lock);
	return ret;
}

static const struct file_operations perack_fops = {
	.owner = THIS_MODULE,
	.write = perack_write,
	.read = perack_read,
	.llseek = default_llseek,
};

int bench_perack_init(struct dentry *dir)
{
	perack_report = kzalloc(PAGE_SIZE, GFP_KERNEL);
	if (!perack_report)
		return -ENOMEM;
	debugfs_create_file("perack", 0600, dir, NULL, &perack_fops);
	return 0;
}

void bench_perack_exit(void)
{
	kfree(perack_report);
}
