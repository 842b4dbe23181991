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
 *          ACK train stays under half an RTT, so no HyStart exit); the
 *          rate sample delivers a whole window per RTT (no bottleneck).
 *   ca     cwnd 100 = ssthresh, no CE; a bottleneck of 100 packets per RTT
 *          (ACKs RTT/100 apart, rate samples of at most 100 packets per
 *          RTT); 2048 untimed ACKs first, so that the CCA is in its steady
 *          state (bbr in PROBE_BW) when timing starts.
 *   ca_ce  cwnd 100 = ssthresh, the same bottleneck, ECE on every 10th
 *          ACK, timed from the start (a fixed mark fraction would drive
 *          the window down over a longer run).
 * In ca and ca_ce the sender is also paced (sk_pacing_rate, a credit of
 * at most two packets), so that bbr's gains shape what is in flight.
 *
 * One emulated ACK acknowledges one MSS, in the order of 6.12's tcp_ack():
 *   snd_una += mss, packets_out--, delivered++ (delivered_ce++ on ECE),
 *   tcp_mstamp moves; rack.rtt_us = 1 ms and pkts_acked() (both from
 *   tcp_clean_rtx_queue, rtt = 1 ms);
 *   in_ack_event(CA_ACK_WIN_UPDATE), or CA_ACK_SLOWPATH|CA_ACK_ECE on ECE;
 *   in CWR once snd_una is past high_seq: end of the reduction (cwnd =
 *   ssthresh unless cong_control, cwnd_event(CA_EVENT_COMPLETE_CWR),
 *   set_state(Open)); on ECE in Open: tcp_enter_cwr(): high_seq = snd_nxt,
 *   the PRR counters reset, ssthresh(), set_state(CWR);
 *   tcp_cong_control(): cong_control(rs) if the CCA has it; else the
 *   stack's own per-ACK congestion work, which the CCA causes and which
 *   therefore counts as its cost: PRR (perack_stack_prr()) in CWR, or
 *   cong_avoid(ack, 1) and the snd_cwnd_stamp, then the pacing rate
 *   (perack_stack_pacing(): one 64-bit division);
 *   transmission: packets_out, data_segs_out, snd_nxt (and prr_out in CWR)
 *   grow until cwnd is full, as tcp_write_xmit() would.
 * Not emulated: the rest of the stack's work, which is the same whichever
 * the CCA (RTT estimator, rate sampling, SACK, transmit itself), the
 * receiver side (cwnd_event CE events), losses.
 *
 * Under qemu -icount shift=0 one guest nanosecond is one instruction.
 */
#include <linux/debugfs.h>
#include <linux/file.h>
#include <linux/inet_diag.h>
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

/* pacing in the capped phases: rates above 2^40 B/s count as that */
#define PERACK_RATE_MAX		BIT_ULL(40)
/* at most this many packets of unused pacing credit */
#define PERACK_BURST		2

/* what a block runs (perack_run()) */
enum { PERACK_EMPTY, PERACK_CCA, PERACK_STACK, PERACK_MODES };

/* tcp_input.c's private FLAG_* values (the same in 6.1, 6.12 and 7.3) */
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
	u32 cap;		/* packets a rate sample delivers per RTT; 0: cwnd */
	u32 warmup;		/* untimed ACKs before the block */
};

static const struct perack_phase perack_phases[] = {
	{ "ss", 10, TCP_INFINITE_SSTHRESH, 0, 1, 0, 0 },
	{ "ca", 100, 100, 0, PERACK_RTT_US / 100, 100, 2048 },
	{ "ca_ce", 100, 100, 10, PERACK_RTT_US / 100, 100, 0 },
};
#define PERACK_NPHASES ARRAY_SIZE(perack_phases)

/* What one block did, for the report (the CCA's, not the empty loop's). */
struct perack_stats {
	u32 cwnd_end;
	u32 ssthresh_end;
	u32 cwr;		/* ssthresh() calls (entries into CWR) */
	u32 ce;			/* ECE ACKs */
	u32 rounds;		/* round trips ended, by ccaas's rule */
	u32 pacing_gain;	/* bbr's gains at the end (get_info), << 8 */
	u32 cwnd_gain;
	/* the emulation's own state, kept from the warm-up to the block */
	u32 round_end;		/* snd_nxt when the current round began */
	u32 ce_cnt;		/* ACKs since the last ECE */
	u64 credit;		/* pacing: bytes x us the rate allows */
};

static DEFINE_MUTEX(perack_lock);
static u64 perack_blk[PERACK_NPHASES][PERACK_MODES][PERACK_MAX_ROUNDS];
static char *perack_report;	/* PAGE_SIZE */
static size_t perack_report_len;

/*
 * The stack's proportional rate reduction in CWR for a CCA without
 * cong_control (RFC 6937, as tcp_cwnd_reduction() does it for one newly
 * acked packet and no losses): below ssthresh send no more than was
 * delivered (plus one for an advancing ACK), above it send ssthresh /
 * prior_cwnd of what was delivered, one 64-bit division.
 */
static __always_inline void perack_stack_prr(struct tcp_sock *tp, int acked)
{
	int in_flight = tcp_packets_in_flight(tp);
	int delta = tp->snd_ssthresh - in_flight;
	int sndcnt;

	if (!tp->prior_cwnd)
		return;
	tp->prr_delivered += acked;
	if (delta < 0) {
		u64 quota = (u64)tp->snd_ssthresh * tp->prr_delivered +
			    tp->prior_cwnd - 1;

		sndcnt = div_u64(quota, tp->prior_cwnd) - tp->prr_out;
	} else {
		sndcnt = max_t(int, tp->prr_delivered - tp->prr_out, acked) + 1;
		sndcnt = min(delta, sndcnt);
	}
	sndcnt = max(sndcnt, tp->prr_out ? 0 : 1);
	tcp_snd_cwnd_set(tp, in_flight + sndcnt);
}

/*
 * The stack's pacing rate for a CCA without cong_control, set on every ACK
 * (tcp_update_pacing_rate()): the sysctl's ratio (200 % in slow start, 120 %
 * after) of max(cwnd, packets_out) * mss / srtt, one 64-bit division.
 */
static __always_inline void perack_stack_pacing(struct sock *sk)
{
	const struct net *net = sock_net(sk);
	struct tcp_sock *tp = tcp_sk(sk);
	u64 rate = (u64)tp->mss_cache * ((USEC_PER_SEC / 100) << 3);

	if (tcp_snd_cwnd(tp) < tp->snd_ssthresh / 2)
		rate *= READ_ONCE(net->ipv4.sysctl_tcp_pacing_ss_ratio);
	else
		rate *= READ_ONCE(net->ipv4.sysctl_tcp_pacing_ca_ratio);
	rate *= max(tcp_snd_cwnd(tp), tp->packets_out);
	if (likely(tp->srtt_us))
		rate = div_u64(rate, tp->srtt_us);
	WRITE_ONCE(sk->sk_pacing_rate,
		   min_t(u64, rate, READ_ONCE(sk->sk_max_pacing_rate)));
}

/*
 * @acks ACKs on @sk. @mode, a constant at each call site: PERACK_EMPTY, no
 * CCA callback and none of the stack's congestion work (the empty loop,
 * subtracted); PERACK_CCA, the callbacks only; PERACK_STACK, the callbacks
 * and the stack's work for a CCA without cong_control (PRR, pacing rate).
 */
static __always_inline void perack_run(struct sock *sk,
				       const struct perack_phase *ph,
				       struct perack_stats *st, u32 acks,
				       const int mode)
{
	const bool call = mode != PERACK_EMPTY;
	struct inet_connection_sock *icsk = inet_csk(sk);
	const struct tcp_congestion_ops *ops = icsk->icsk_ca_ops;
	struct tcp_sock *tp = tcp_sk(sk);
	u32 mss = tp->mss_cache, i;
	struct rate_sample rs = {};
	struct ack_sample as = {};
	u64 now = tp->tcp_mstamp;

	for (i = 0; i < acks; i++) {
		int flag = PERACK_FLAG_DATA_ACKED | PERACK_FLAG_SND_UNA_ADVANCED;
		u32 cwnd = tcp_snd_cwnd(tp), in_flight, sent;
		bool ece = false;

		if (ph->ce_every && ++st->ce_cnt == ph->ce_every) {
			st->ce_cnt = 0;
			ece = true;
			st->ce++;
		}
		/* nothing in flight (pacing held it back): send one first */
		if (unlikely(!tp->packets_out)) {
			tp->packets_out = 1;
			tp->data_segs_out++;
			tp->snd_nxt += mss;
		}
		now += ph->spacing_us;
		tp->tcp_mstamp = now;
		tp->snd_una += mss;
		tp->packets_out--;
		tp->delivered++;
		tp->delivered_mstamp = now;
		if (ece) {
			tp->delivered_ce++;
			flag |= PERACK_FLAG_SLOWPATH | PERACK_FLAG_ECE;
		} else {
			flag |= PERACK_FLAG_WIN_UPDATE;
		}

		/*
		 * tcp_clean_rtx_queue(): tcp_rack_advance() stores the RTT
		 * of the packet acked (SACK is on), then pkts_acked()
		 */
		tp->rack.rtt_us = PERACK_RTT_US;
		as.pkts_acked = 1;
		as.rtt_us = PERACK_RTT_US;
		as.in_flight = tp->packets_out + 1;
		if (call && ops->pkts_acked)
			ops->pkts_acked(sk, &as);

		/* tcp_in_ack_event() */
		if (call && ops->in_ack_event)
			ops->in_ack_event(sk, ece ? CA_ACK_SLOWPATH | CA_ACK_ECE :
					  CA_ACK_WIN_UPDATE);

		/* round trips as <ccaas/round.h> counts them (ccalog's rate) */
		if (!before(tp->snd_una, st->round_end)) {
			st->rounds++;
			st->round_end = tp->snd_nxt;
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
			tp->prr_delivered = 0;
			tp->prr_out = 0;
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
			u32 got = ph->cap ? min(cwnd, ph->cap) : cwnd;

			rs.prior_delivered = tp->delivered - got;
			rs.prior_mstamp = now - PERACK_RTT_US;
			rs.delivered = got;
			rs.delivered_ce = ph->ce_every ? got / ph->ce_every : 0;
			rs.interval_us = PERACK_RTT_US;
			rs.snd_interval_us = PERACK_RTT_US;
			rs.rcv_interval_us = PERACK_RTT_US;
			rs.rtt_us = PERACK_RTT_US;
			rs.acked_sacked = 1;
			rs.prior_in_flight = tp->packets_out + 1;
			if (call) {
#ifdef CCAAS_HAVE_CONG_CONTROL_ACK_FLAG
				ops->cong_control(sk, tp->snd_una, flag, &rs);
#else
				ops->cong_control(sk, &rs);
#endif
			}
		} else if (mode == PERACK_STACK) {
			if (icsk->icsk_ca_state == TCP_CA_CWR) {
				perack_stack_prr(tp, 1);
			} else if (flag & PERACK_FLAG_DATA_ACKED) {
				ops->cong_avoid(sk, tp->snd_una, 1);
				tp->snd_cwnd_stamp = tcp_jiffies32;
			}
			perack_stack_pacing(sk);
		} else if (call && icsk->icsk_ca_state == TCP_CA_Open) {
			/* the callback alone; in CWR cwnd is kept */
			ops->cong_avoid(sk, tp->snd_una, 1);
		}
		OPTIMIZER_HIDE_VAR(flag);

		/* tcp_write_xmit(): fill the window, at the pacing rate */
		in_flight = tcp_packets_in_flight(tp);
		sent = tcp_snd_cwnd(tp) > in_flight ?
		       tcp_snd_cwnd(tp) - in_flight : 0;
		if (ph->cap) {
			u64 pkt = (u64)mss * USEC_PER_SEC;

			st->credit += min_t(u64, READ_ONCE(sk->sk_pacing_rate),
					    PERACK_RATE_MAX) * ph->spacing_us;
			sent = min_t(u64, sent, div64_u64(st->credit, pkt));
			st->credit -= sent * pkt;
			st->credit = min(st->credit, PERACK_BURST * pkt);
		}
		tp->packets_out += sent;
		tp->data_segs_out += sent;
		tp->snd_nxt += sent * mss;
		if (icsk->icsk_ca_state == TCP_CA_CWR)
			tp->prr_out += sent;
	}
	st->cwnd_end = tcp_snd_cwnd(tp);
	st->ssthresh_end = tp->snd_ssthresh;
}

/* perack_run() with @mode a constant in each copy */
static __always_inline void perack_run_as(struct sock *sk,
					  const struct perack_phase *ph,
					  struct perack_stats *st, u32 acks,
					  int mode)
{
	if (mode == PERACK_STACK)
		perack_run(sk, ph, st, acks, PERACK_STACK);
	else if (mode == PERACK_CCA)
		perack_run(sk, ph, st, acks, PERACK_CCA);
	else
		perack_run(sk, ph, st, acks, PERACK_EMPTY);
}

static noinline u64 perack_block(struct sock *sk, const struct perack_phase *ph,
				 struct perack_stats *st, int mode)
{
	unsigned long flags;
	u64 t0, t1;

	/* untimed: into the phase's steady state, as the block will run */
	st->round_end = tcp_sk(sk)->snd_nxt;
	if (ph->warmup)
		perack_run_as(sk, ph, st, ph->warmup, mode);
	memset(st, 0, offsetof(struct perack_stats, round_end));	/* counts */
	st->round_end = tcp_sk(sk)->snd_nxt;

	local_irq_save(flags);
	t0 = ktime_get_ns();
	perack_run_as(sk, ph, st, PERACK_ACKS, mode);
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
	tp->packets_out = ph->cwnd;	/* a full window in flight */
	tp->sacked_out = 0;
	tp->lost_out = 0;
	tp->retrans_out = 0;
	tp->prior_cwnd = ph->cwnd;
	tp->prr_delivered = 0;
	tp->prr_out = 0;
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

/* bbr's phase at the end of a block, from the gains its get_info() shows */
static void perack_gains(struct sock *sk, struct perack_stats *st)
{
	const struct tcp_congestion_ops *ops = inet_csk(sk)->icsk_ca_ops;
	union tcp_cc_info info;
	int attr = 0;

	if (ops->get_info && ops->get_info(sk, ~0U, &attr, &info) &&
	    attr == INET_DIAG_BBRINFO) {
		st->pacing_gain = info.bbr.bbr_pacing_gain;
		st->cwnd_gain = info.bbr.bbr_cwnd_gain;
	}
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
		char lo[24], med[24], hi[24], loop[24], net[24], cca[24];
		u64 (*blk)[PERACK_MAX_ROUNDS] = perack_blk[p];
		unsigned int mid = (rounds - 1) / 2, m;

		for (r = 0; r < rounds; r++) {
			/* the CCA+stack block last: its stats are reported */
			for (m = 0; m < PERACK_MODES; m++) {
				memset(&st, 0, sizeof(st));
				perack_setup(sk, tmpl, size, ph);
				blk[m][r] = perack_block(sk, ph, &st, m);
			}
			perack_gains(sk, &st);
			cond_resched();
		}
		name = inet_csk(sk)->icsk_ca_ops->name;
		for (m = 0; m < PERACK_MODES; m++)
			sort(blk[m], rounds, sizeof(u64), perack_u64_cmp, NULL);
		perack_per(lo, sizeof(lo), blk[PERACK_STACK][0]);
		perack_per(med, sizeof(med), blk[PERACK_STACK][mid]);
		perack_per(hi, sizeof(hi), blk[PERACK_STACK][rounds - 1]);
		perack_per(loop, sizeof(loop), blk[PERACK_EMPTY][mid]);
		/* net: the CCA and the stack work it causes; cca: callbacks */
		perack_per(net, sizeof(net), (s64)blk[PERACK_STACK][mid] -
			   (s64)blk[PERACK_EMPTY][mid]);
		perack_per(cca, sizeof(cca), (s64)blk[PERACK_CCA][mid] -
			   (s64)blk[PERACK_EMPTY][mid]);
		bench_out(perack_report, &off,
			  "phase=%s ca=%s ops=%s ecn=%d acks=%u blocks=%u min=%s med=%s max=%s loop_med=%s net=%s cca=%s cwnd_end=%u ssthresh_end=%u cwr=%u ce=%u rounds=%u pacing_gain=%u cwnd_gain=%u\n",
			  ph->name, name0, name,
			  ccaas_tcp_ecn_ok(tcp_sk(tmpl)), PERACK_ACKS,
			  rounds, lo, med, hi, loop, net, cca, st.cwnd_end,
			  st.ssthresh_end, st.cwr, st.ce, st.rounds,
			  st.pacing_gain, st.cwnd_gain);
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
