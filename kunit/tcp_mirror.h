/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A TCP sender and its path, for differential tests of a CCA against an
 * in-tree one: the same events reach each CCA through the calls the 6.12
 * stack makes, in the stack's order, on a bare tcp_sock.
 *
 * Where the stack's function is callable from built-in code, it is called:
 * tcp_set_congestion_control() (the TCP_CONGESTION setsockopt), tcp_ca_event()
 * (every cwnd_event), tcp_set_ca_state(), tcp_enter_cwr(),
 * tcp_enter_recovery(), tcp_enter_loss(), tcp_cwnd_reduction() (PRR),
 * tcp_slow_start_after_idle_check() and tcp_cwnd_restart(). The static
 * ones of tcp_input.c and tcp_output.c are reproduced below, each named
 * after the function it mirrors, reduced to what a SACK connection without
 * timestamps does on the events the tests script; what is left out is said
 * there. The socket has no skbs: the retransmit queue is the per-packet
 * state of struct tm_flow, kept in the counters the stack keeps
 * (packets_out, sacked_out, lost_out, retrans_out, delivered, ...).
 *
 * The path: every transmission goes on the wire (a FIFO); the test drops or
 * reorders transmissions on it, marks arrivals CE, and lets them arrive. The
 * receiver ACKs every tm_flow.ack_every in-order packets, and at once on
 * out-of-order data, a duplicate (with a D-SACK) or a change of CE state (the
 * exact echo of a DCTCP receiver); its SACK blocks report everything it
 * holds. The sender is a bulk sender: after each ACK it fills cwnd,
 * retransmissions first, unless the test stopped its application.
 *
 * Loss detection stands in for RACK: a packet is lost once three packets
 * sent after it are SACKed (RFC 6675's DupThresh).
 *
 * The clock. Each flow has a clock of its own, in microseconds from its
 * start, that moves tcp_mstamp and jiffies together (tcp_jiffies32 is the
 * kernel's jiffies: the flows run with interrupts off, tm_run(), so that
 * the tick does not move it, and the mirror advances jiffies_64 itself).
 * Each transmission reaches the receiver after half the path's base RTT,
 * behind the one before it at the bottleneck if the path has one (a FIFO
 * sending a packet every tx_us: a queue builds once cwnd passes the
 * bandwidth-delay product); its ACK takes the other half back. An arrival
 * moves the clock to when its ACK reaches the sender, a timeout to an RTO
 * after the last transmission, an idle period by its length. The RTT
 * sample of an ACK is the stack's (6.12's ca_rtt_us) for a SACK connection
 * without timestamps: from the newest packet it newly acknowledges that was
 * never retransmitted (SACKed ones first). Not modelled: timestamps (which
 * give the stack samples on retransmitted data), the receiver's delayed-ACK
 * timer (the mirror's ACKs at once), the 3-4 SACK block limit, quick-ACK
 * mode and pacing; so HyStart exits where the mirror's path says, which is
 * not where a real path of the same RTT would.
 *
 * Every ACK and event is a step of the trace: cwnd, ssthresh and ca_state
 * after it, in the phase the test named last (tm_phase()).
 *
 * The order of tm_ack(), checked against tcp_ack() of each pinned line
 * (net/ipv4/tcp_input.c of Debian's 6.1 and 6.12 and of 7.3; the order of
 * what a CCA sees is the same on the three):
 *
 *   tm_ack()                          tcp_ack()
 *   1. snd_una advanced, retransmits  FLAG_SND_UNA_ADVANCED,
 *      cleared                        icsk_retransmits = 0
 *   2. fast path, or SACK, ECE and    header prediction; else
 *      their delivered count          tcp_sacktag_write_queue(),
 *                                     tcp_ecn_rcv_ecn_echo() -> FLAG_ECE,
 *                                     tcp_count_delivered(sack_delivered)
 *   3. no_queue: in_ack_event, undo   no_queue: tcp_in_ack_event(), then
 *      on a D-SACK                    tcp_fastretrans_alert() on a D-SACK
 *   4. cumulative ACK: delivered and  tcp_clean_rtx_queue():
 *      delivered_ce counted, then     tcp_count_delivered(ece), then
 *      pkts_acked()                   pkts_acked(); 7.3 then runs
 *                                     tcp_accecn_process() (AccECN only)
 *   5. tm_in_ack_event()              tcp_in_ack_event()
 *   6. -                              tcp_process_tlp_ack(): no TLP here
 *   7. tm_fastretrans_alert() if      tcp_fastretrans_alert() if
 *      dubious                        tcp_ack_is_dubious()
 *   8. tm_cong_control()              tcp_rate_gen() (not mirrored), then
 *                                     tcp_cong_control(): PRR in CWR and
 *                                     Recovery, else cong_avoid()
 *   9. tm_fill(): lost packets, then  tcp_xmit_recovery(), then
 *      new data                       tcp_data_snd_check() after tcp_ack()
 *
 * tm_fastretrans_alert() keeps tcp_fastretrans_alert()'s steps A (ECE
 * clears prior_ssthresh), D (state exits: CWR once snd_una passes
 * high_seq; Recovery through tcp_try_undo_recovery() and
 * tcp_end_cwnd_reduction()) and E (Recovery: D-SACK undo, loss marking,
 * a new recovery; Loss: tcp_process_loss(); Open, Disorder and CWR: undo,
 * loss marking, tcp_try_to_open() -> tcp_enter_cwr() on ECE, or
 * tcp_enter_recovery()). So on an ECE ACK, as in the stack, the CE is
 * counted (4) before ssthresh() runs (7). What is left out, on purpose:
 * SACK reneging (B), partial undo (needs timestamps), MTU probes, F-RTO
 * (the scripts run as with tcp_frto=0), TLP, pacing, and lost
 * retransmissions (FLAG_LOST_RETRANS: tm_drop() refuses to drop one). The
 * lines differ only where the mirror does not follow: 6.12 added
 * tcp_update_rto_time() in the Loss case, 7.3 removed the non-RACK
 * scoreboard (tcp_update_scoreboard()), and 7.3's tcp_count_delivered()
 * counts ECE only in RFC 3168 mode (AccECN counts CE from the ACE field).
 */
#ifndef _CCAAS_KUNIT_TCP_MIRROR_H
#define _CCAAS_KUNIT_TCP_MIRROR_H

#include <kunit/test.h>
#include <net/inet_ecn.h>
#include <net/tcp.h>

#include "cca_test.h"

#define TM_MSS		1000
#define TM_RTT_US	10000	/* the path's base RTT unless tm_path() sets one */
/*
 * The most a flow's clock may move jiffies (10 s): the advance stays for
 * good (the tick adds only the time that really passed), and must stay
 * well below RCU's stall timeout (21 s) and the workqueue watchdog's (30 s).
 */
#define TM_JIFFIES_MAX	(10 * HZ)
#define TM_RING		2048	/* packets outstanding, transmissions in flight */
#define TM_STEPS	12000
#define TM_PHASES	16

/*
 * tcp_input.c's ACK flags, private to that file (6.12 values): the mirror
 * needs them for tcp_cwnd_reduction(), which it calls, and for its own
 * copies of the state machine.
 */
#define TM_FLAG_WIN_UPDATE	0x02
#define TM_FLAG_DATA_ACKED	0x04
#define TM_FLAG_RETRANS_DATA_ACKED 0x08
#define TM_FLAG_DATA_SACKED	0x20
#define TM_FLAG_ECE		0x40
#define TM_FLAG_SLOWPATH	0x100
#define TM_FLAG_ORIG_SACK_ACKED	0x200
#define TM_FLAG_SND_UNA_ADVANCED 0x400
#define TM_FLAG_DSACKING_ACK	0x800
#define TM_FLAG_NOT_DUP		(TM_FLAG_WIN_UPDATE | TM_FLAG_DATA_ACKED)
#define TM_FLAG_CA_ALERT	(TM_FLAG_DATA_SACKED | TM_FLAG_ECE | \
				 TM_FLAG_DSACKING_ACK)
#define TM_FLAG_FORWARD_PROGRESS (TM_FLAG_DATA_ACKED | TM_FLAG_DATA_SACKED)

/* Sender's and receiver's state of one packet. */
struct tm_pkt {
	u64 sent_us;		/* its last transmission, on the flow's clock */
	u8 sacked:1;		/* TCPCB_SACKED_ACKED */
	u8 lost:1;		/* TCPCB_LOST */
	u8 retrans:1;		/* TCPCB_SACKED_RETRANS: retransmission out */
	u8 ever_retrans:1;	/* TCPCB_EVER_RETRANS */
	u8 rcvd:1;		/* the receiver holds it */
};

/* One transmission on the wire: the packet it carries. */
struct tm_tx {
	u32 pkt;
	bool retx;		/* a retransmission (see tm_drop()) */
	u64 sent_us;
};

struct tm_step {
	u32 cwnd;
	u32 ssthresh;
	u8 ca_state;
	u8 phase;
};

struct tm_phase {
	const char *name;
	u32 cwnd_tol;		/* allowed cwnd difference; 0: exact */
};

struct tm_flow {
	struct kunit *test;
	const char *cca;	/* the name the test asked for */
	struct tcp_sock *tp;
	struct sock *sk;

	u32 una;		/* packet number at snd_una */
	u32 nxt;		/* packet number at snd_nxt */
	struct tm_pkt pkt[TM_RING];

	struct tm_tx wire[TM_RING];
	u32 wire_head, wire_len;

	u32 rcv_nxt;		/* receiver: first packet it misses */
	u32 unacked;		/* receiver: in-order packets not yet ACKed */
	bool unacked_ce;	/* receiver: their CE state */
	u32 arrivals;		/* packets that reached the receiver */
	u32 ce_num, ce_den;	/* arrival i is CE if i % ce_den < ce_num */
	u32 ack_every;		/* receiver: delayed ACK of this many */

	bool app_stopped;	/* the application has nothing more to send */

	u64 now_us;		/* the flow's clock: us since it started */
	u64 mstamp0;		/* tcp_mstamp at its start */
	u32 jiffies_added;	/* jiffies the clock has advanced so far */
	u32 rtt_us;		/* the path's base RTT */
	u32 tx_us;		/* the bottleneck's time per packet; 0: none */
	u64 last_arrival_us;	/* the last arrival at the receiver */
	u64 last_tx_us;		/* the last transmission */
	const char *stuck;	/* the phase tm_arrive_until() did not finish */

	struct tm_step *trace;
	u32 steps;
	struct tm_phase phases[TM_PHASES];
	u8 n_phases;
};

/*
 * A KUNIT_ASSERT for the mirror's invariants, which run with interrupts off
 * (tm_run()): KUnit reports a failure with GFP_KERNEL allocations, so
 * interrupts come back on first; the test ends there.
 */
#define TM_ASSERT(f, cond, ...)						\
	do {								\
		if (unlikely(!(cond))) {				\
			local_irq_enable();				\
			KUNIT_FAIL_AND_ABORT((f)->test, __VA_ARGS__);	\
		}							\
	} while (0)

static inline struct tm_pkt *tm_pkt(struct tm_flow *f, u32 n)
{
	return &f->pkt[n % TM_RING];
}

static inline u32 tm_seq(u32 n)
{
	return 1 + n * TM_MSS;
}

/*
 * The flow's clock moves to @t_us (never back): tcp_mstamp with it, and
 * jiffies by as many ticks as that time holds (interrupts are off, so
 * nothing else moves them; see tm_run()).
 */
static inline void tm_clock(struct tm_flow *f, u64 t_us)
{
	u32 j;

	if (t_us <= f->now_us)
		return;
	f->now_us = t_us;
	f->tp->tcp_mstamp = f->mstamp0 + t_us;
	j = div_u64(t_us * HZ, USEC_PER_SEC);
	/* jiffies jump ahead of the tick for good: keep it small */
	TM_ASSERT(f, j <= TM_JIFFIES_MAX, "%s: the clock ran %u jiffies",
		  f->cca, j);
	if (j != f->jiffies_added) {
		WARN_ON_ONCE(!irqs_disabled());
		jiffies_64 += j - f->jiffies_added;
		f->jiffies_added = j;
	}
}

/* From now on the path's base RTT is @rtt_us, its bottleneck @tx_us a packet. */
static inline void tm_path(struct tm_flow *f, u32 rtt_us, u32 tx_us)
{
	f->rtt_us = rtt_us;
	f->tx_us = tx_us;
}

/* Record the state after a step. */
static inline void tm_record(struct tm_flow *f)
{
	struct tm_step *s;

	TM_ASSERT(f, f->steps < TM_STEPS, "%s: trace full", f->cca);
	s = &f->trace[f->steps++];
	s->cwnd = tcp_snd_cwnd(f->tp);
	s->ssthresh = f->tp->snd_ssthresh;
	s->ca_state = inet_csk(f->sk)->icsk_ca_state;
	s->phase = f->n_phases - 1;
}

/* Steps from now on belong to phase @name; cwnd may differ by @cwnd_tol. */
static inline void tm_phase(struct tm_flow *f, const char *name, u32 cwnd_tol)
{
	TM_ASSERT(f, f->n_phases < TM_PHASES, "%s: too many phases", f->cca);
	f->phases[f->n_phases].name = name;
	f->phases[f->n_phases].cwnd_tol = cwnd_tol;
	f->n_phases++;
}

/* --- the send path --------------------------------------------------- */

/*
 * __tcp_transmit_skb() of a data segment: tcp_event_data_sent() (the
 * CA_EVENT_TX_START of a sender with nothing in flight), then the packet
 * goes on the wire; prr_out as tcp_write_xmit() and
 * tcp_xmit_retransmit_queue() count it.
 */
static inline void tm_transmit(struct tm_flow *f, u32 n)
{
	struct tcp_sock *tp = f->tp;
	struct tm_tx *tx;

	if (tcp_packets_in_flight(tp) == 0)
		tcp_ca_event(f->sk, CA_EVENT_TX_START);
	tp->lsndtime = tcp_jiffies32;
	tm_pkt(f, n)->sent_us = f->now_us;
	f->last_tx_us = f->now_us;
	tp->data_segs_out++;
	if (tcp_in_cwnd_reduction(f->sk))
		tp->prr_out++;

	TM_ASSERT(f, f->wire_len < TM_RING, "%s: the wire is full", f->cca);
	tx = &f->wire[(f->wire_head + f->wire_len++) % TM_RING];
	tx->pkt = n;
	tx->retx = false;
	tx->sent_us = f->now_us;
}

/* tcp_retransmit_skb() of lost packet @n (undo and retrans_stamp too). */
static inline void tm_retransmit(struct tm_flow *f, u32 n)
{
	struct tcp_sock *tp = f->tp;
	struct tm_pkt *p = tm_pkt(f, n);

	p->retrans = 1;
	p->ever_retrans = 1;
	tp->retrans_out++;
	tp->total_retrans++;
	/* Without timestamps its value is never compared, only its presence. */
	if (!tp->retrans_stamp)
		tp->retrans_stamp = 1;
	if (tp->undo_retrans < 0)
		tp->undo_retrans = 0;
	tp->undo_retrans++;
	tm_transmit(f, n);
	f->wire[(f->wire_head + f->wire_len - 1) % TM_RING].retx = true;
}

/* tcp_write_xmit() of one new packet (tcp_event_new_data_sent()). */
static inline void tm_send_new(struct tm_flow *f)
{
	struct tcp_sock *tp = f->tp;

	TM_ASSERT(f, f->nxt - f->una < TM_RING, "%s: %u packets out", f->cca,
		  f->nxt - f->una);
	memset(tm_pkt(f, f->nxt), 0, sizeof(struct tm_pkt));
	tm_transmit(f, f->nxt);
	f->nxt++;
	tp->snd_nxt = tm_seq(f->nxt);
	tp->packets_out++;
}

/*
 * What the stack sends once an ACK is processed: tcp_xmit_retransmit_queue()
 * (lost packets, oldest first, while cwnd allows), then tcp_write_xmit()
 * (new data while cwnd allows, unless the application stopped), with
 * tcp_cwnd_validate()'s record of whether cwnd was the limit. Receive
 * window, TSO and pacing never limit this sender. Not mirrored: the
 * RFC 2861 decay of an application-limited cwnd, which takes an RTO of
 * wall-clock time.
 */
static inline void tm_fill(struct tm_flow *f)
{
	struct tcp_sock *tp = f->tp;
	bool is_cwnd_limited;
	u32 n, sent = 0;

	for (n = f->una; n != f->nxt; n++) {
		struct tm_pkt *p = tm_pkt(f, n);

		if (tcp_packets_in_flight(tp) >= tcp_snd_cwnd(tp))
			break;
		if (p->lost && !p->retrans && !p->sacked)
			tm_retransmit(f, n);
	}
	while (!f->app_stopped &&
	       tcp_packets_in_flight(tp) < tcp_snd_cwnd(tp)) {
		tm_send_new(f);
		sent++;
	}

	is_cwnd_limited = tcp_packets_in_flight(tp) >= tcp_snd_cwnd(tp);
	if (sent || is_cwnd_limited) {
		if (!before(tp->snd_una, tp->cwnd_usage_seq) || is_cwnd_limited ||
		    (!tp->is_cwnd_limited && tp->packets_out > tp->max_packets_out)) {
			tp->is_cwnd_limited = is_cwnd_limited;
			tp->max_packets_out = tp->packets_out;
			tp->cwnd_usage_seq = tp->snd_nxt;
		}
	}
}

/*
 * The application writes after having stopped: tcp_skb_entail() runs
 * tcp_slow_start_after_idle_check() (the stack's inline: tcp_cwnd_restart()
 * after an idle RTO), then the data goes out.
 */
static inline void tm_app_write(struct tm_flow *f)
{
	f->app_stopped = false;
	/* the socket's lock, as cca_test_locked() but with interrupts off */
	spin_lock(&f->sk->sk_lock.slock);
	tcp_slow_start_after_idle_check(f->sk);
	spin_unlock(&f->sk->sk_lock.slock);
	tm_fill(f);
	tm_record(f);
}

/* --- the ACK path: tcp_ack() and what it calls ------------------------ */

/* tcp_count_delivered() */
static inline void tm_count_delivered(struct tcp_sock *tp, u32 n, bool ece)
{
	tp->delivered += n;
	if (ece)
		tp->delivered_ce += n;
}

/* tcp_any_retrans_done() */
static inline bool tm_any_retrans_done(struct tm_flow *f)
{
	return f->tp->retrans_out ||
	       (f->una != f->nxt && tm_pkt(f, f->una)->ever_retrans);
}

/* tcp_mark_skb_lost() */
static inline void tm_mark_lost(struct tm_flow *f, struct tm_pkt *p)
{
	if (!p->lost || p->retrans)
		f->tp->lost++;		/* tcp_sum_lost() */
	if (p->retrans) {
		p->retrans = 0;
		f->tp->retrans_out--;
	}
	if (!p->lost) {
		p->lost = 1;
		f->tp->lost_out++;
	}
}

/*
 * tcp_identify_packet_loss(), with RFC 6675's DupThresh standing in for
 * RACK: a packet not SACKed is lost once three later ones are.
 */
static inline void tm_identify_loss(struct tm_flow *f)
{
	u32 n, above = 0;

	if (f->una == f->nxt)
		return;
	for (n = f->nxt; n-- != f->una;) {
		struct tm_pkt *p = tm_pkt(f, n);

		if (p->sacked)
			above++;
		else if (above >= 3 && !p->lost)
			tm_mark_lost(f, p);
	}
}

/* tcp_undo_cwnd_reduction() */
static inline void tm_undo_cwnd_reduction(struct tm_flow *f, bool unmark_loss)
{
	struct tcp_sock *tp = f->tp;
	u32 n;

	if (unmark_loss) {
		for (n = f->una; n != f->nxt; n++)
			tm_pkt(f, n)->lost = 0;
		tp->lost_out = 0;
	}
	if (tp->prior_ssthresh) {
		tcp_snd_cwnd_set(tp, inet_csk(f->sk)->icsk_ca_ops->undo_cwnd(f->sk));
		if (tp->prior_ssthresh > tp->snd_ssthresh) {
			tp->snd_ssthresh = tp->prior_ssthresh;
			tp->ecn_flags &= ~TCP_ECN_QUEUE_CWR;
		}
	}
	tp->snd_cwnd_stamp = tcp_jiffies32;
	tp->undo_marker = 0;
}

/* tcp_may_undo(); tcp_packet_delayed() without timestamps. */
static inline bool tm_may_undo(const struct tcp_sock *tp)
{
	return tp->undo_marker && (!tp->undo_retrans || !tp->retrans_stamp);
}

/* tcp_try_undo_recovery(), for a SACK connection. */
static inline void tm_try_undo_recovery(struct tm_flow *f)
{
	if (tm_may_undo(f->tp))
		tm_undo_cwnd_reduction(f, false);
	tcp_set_ca_state(f->sk, TCP_CA_Open);
	f->tp->is_sack_reneg = 0;
}

/* tcp_try_undo_dsack() */
static inline bool tm_try_undo_dsack(struct tm_flow *f)
{
	if (f->tp->undo_marker && !f->tp->undo_retrans) {
		tm_undo_cwnd_reduction(f, false);
		return true;
	}
	return false;
}

/* tcp_try_undo_loss(), without F-RTO, for a SACK connection. */
static inline bool tm_try_undo_loss(struct tm_flow *f)
{
	if (!tm_may_undo(f->tp))
		return false;
	tm_undo_cwnd_reduction(f, true);
	inet_csk(f->sk)->icsk_retransmits = 0;
	tcp_set_ca_state(f->sk, TCP_CA_Open);
	f->tp->is_sack_reneg = 0;
	return true;
}

/* tcp_end_cwnd_reduction() */
static inline void tm_end_cwnd_reduction(struct tm_flow *f)
{
	struct tcp_sock *tp = f->tp;

	if (inet_csk(f->sk)->icsk_ca_ops->cong_control)
		return;
	if (tp->snd_ssthresh < TCP_INFINITE_SSTHRESH &&
	    (inet_csk(f->sk)->icsk_ca_state == TCP_CA_CWR || tp->undo_marker)) {
		tcp_snd_cwnd_set(tp, tp->snd_ssthresh);
		tp->snd_cwnd_stamp = tcp_jiffies32;
	}
	tcp_ca_event(f->sk, CA_EVENT_COMPLETE_CWR);
}

/* tcp_try_keep_open() */
static inline void tm_try_keep_open(struct tm_flow *f)
{
	u8 state = TCP_CA_Open;

	if (tcp_left_out(f->tp) || tm_any_retrans_done(f))
		state = TCP_CA_Disorder;
	if (inet_csk(f->sk)->icsk_ca_state != state) {
		tcp_set_ca_state(f->sk, state);
		f->tp->high_seq = f->tp->snd_nxt;
	}
}

/* tcp_try_to_open() */
static inline void tm_try_to_open(struct tm_flow *f, int flag)
{
	if (!tm_any_retrans_done(f))
		f->tp->retrans_stamp = 0;
	if (flag & TM_FLAG_ECE)
		tcp_enter_cwr(f->sk);
	if (inet_csk(f->sk)->icsk_ca_state != TCP_CA_CWR)
		tm_try_keep_open(f);
}

/* tcp_process_loss(), without F-RTO, for a SACK connection. */
static inline void tm_process_loss(struct tm_flow *f, int flag)
{
	bool recovered = !before(f->tp->snd_una, f->tp->high_seq);

	if ((flag & TM_FLAG_SND_UNA_ADVANCED) && tm_try_undo_loss(f))
		return;
	if (recovered)
		tm_try_undo_recovery(f);
}

/*
 * tcp_fastretrans_alert(), for a SACK connection with RACK: no reneging,
 * no partial undo (tcp_packet_delayed() is false once a retransmission
 * went out without timestamps), no MTU probes; tcp_process_loss() without
 * F-RTO (see tm_rto()).
 */
static inline void tm_fastretrans_alert(struct tm_flow *f, int flag)
{
	struct inet_connection_sock *icsk = inet_csk(f->sk);
	struct tcp_sock *tp = f->tp;
	bool ece_ack = flag & TM_FLAG_ECE;

	if (!tp->packets_out && tp->sacked_out)
		tp->sacked_out = 0;
	if (ece_ack)
		tp->prior_ssthresh = 0;

	/* D. State exit conditions. */
	if (icsk->icsk_ca_state == TCP_CA_Open) {
		tp->retrans_stamp = 0;
	} else if (!before(tp->snd_una, tp->high_seq)) {
		switch (icsk->icsk_ca_state) {
		case TCP_CA_CWR:
			if (tp->snd_una != tp->high_seq) {
				tm_end_cwnd_reduction(f);
				tcp_set_ca_state(f->sk, TCP_CA_Open);
			}
			break;
		case TCP_CA_Recovery:
			tm_try_undo_recovery(f);
			tm_end_cwnd_reduction(f);
			break;
		}
	}

	/* E. Process the state. */
	switch (icsk->icsk_ca_state) {
	case TCP_CA_Recovery:
		if (tm_try_undo_dsack(f))
			tm_try_to_open(f, flag);
		tm_identify_loss(f);
		if (icsk->icsk_ca_state != TCP_CA_Recovery) {
			if (!tp->lost_out)
				return;
			tcp_enter_recovery(f->sk, ece_ack);
		}
		break;
	case TCP_CA_Loss:
		tm_process_loss(f, flag);
		tm_identify_loss(f);
		if (icsk->icsk_ca_state != TCP_CA_Open)
			return;
		fallthrough;
	default:
		if (icsk->icsk_ca_state <= TCP_CA_Disorder)
			tm_try_undo_dsack(f);
		tm_identify_loss(f);
		/* tcp_time_to_recover(): with RACK, a loss is marked */
		if (!tp->lost_out) {
			tm_try_to_open(f, flag);
			return;
		}
		tcp_enter_recovery(f->sk, ece_ack);
	}
}

/*
 * tcp_cong_control() for a CCA without cong_control: PRR in CWR and
 * Recovery (tcp_cwnd_reduction()), else tcp_may_raise_cwnd() and
 * tcp_cong_avoid(). The pacing rate update is left out.
 */
static inline void tm_cong_control(struct tm_flow *f, u32 ack, u32 delivered,
				   u32 lost, int flag)
{
	const struct tcp_congestion_ops *ops = inet_csk(f->sk)->icsk_ca_ops;
	struct tcp_sock *tp = f->tp;
	bool may_raise;

	TM_ASSERT(f, !ops->cong_control,
		  "%s: cong_control CCAs are not mirrored", ops->name);
	if (tcp_in_cwnd_reduction(f->sk)) {
		tcp_cwnd_reduction(f->sk, delivered, lost, flag);
		return;
	}
	if (tp->reordering > READ_ONCE(sock_net(f->sk)->ipv4.sysctl_tcp_reordering))
		may_raise = flag & TM_FLAG_FORWARD_PROGRESS;
	else
		may_raise = flag & TM_FLAG_DATA_ACKED;
	if (may_raise) {
		ops->cong_avoid(f->sk, ack, delivered);
		tp->snd_cwnd_stamp = tcp_jiffies32;
	}
}

/* tcp_in_ack_event() */
static inline void tm_in_ack_event(struct tm_flow *f, int flag)
{
	const struct tcp_congestion_ops *ops = inet_csk(f->sk)->icsk_ca_ops;
	u32 ev = 0;

	if (!ops->in_ack_event)
		return;
	if (flag & TM_FLAG_WIN_UPDATE)
		ev |= CA_ACK_WIN_UPDATE;
	if (flag & TM_FLAG_SLOWPATH) {
		ev |= CA_ACK_SLOWPATH;
		if (flag & TM_FLAG_ECE)
			ev |= CA_ACK_ECE;
	}
	ops->in_ack_event(f->sk, ev);
}

/*
 * tcp_ack() of the receiver's ACK up to packet @cum, SACKing all it holds
 * above, with ECE if @ece, D-SACKing @dsack duplicates. The fast path is
 * an ACK that only moves snd_una; header prediction fails on ECE or SACK
 * blocks.
 */
static inline void tm_ack(struct tm_flow *f, u32 cum, bool ece, u32 dsack)
{
	const struct tcp_congestion_ops *ops = inet_csk(f->sk)->icsk_ca_ops;
	struct tcp_sock *tp = f->tp;
	u32 prior_packets = tp->packets_out;
	u32 prior_delivered = tp->delivered;
	u32 prior_lost = tp->lost;
	u32 sack_delivered = 0, acked = 0, n;
	bool sack_rtt = false, seq_rtt = false, sack_info = false;
	u64 last_ackt = 0, last_sackt = 0;
	int flag = 0;

	ece = ece && (tp->ecn_flags & TCP_ECN_OK);	/* tcp_ecn_rcv_ecn_echo() */
	for (n = cum; n != f->nxt; n++)
		sack_info |= tm_pkt(f, n)->rcvd;

	if (cum != f->una) {
		flag |= TM_FLAG_SND_UNA_ADVANCED;
		inet_csk(f->sk)->icsk_retransmits = 0;
	}
	if (flag == TM_FLAG_SND_UNA_ADVANCED && !ece && !sack_info && !dsack) {
		flag |= TM_FLAG_WIN_UPDATE;		/* the fast path */
	} else {
		flag |= TM_FLAG_SLOWPATH;
		/* tcp_sacktag_write_queue(): tcp_check_dsack(), tcp_sacktag_one() */
		if (dsack) {
			flag |= TM_FLAG_DSACKING_ACK;
			if (tp->undo_marker && tp->undo_retrans > 0)
				tp->undo_retrans = max_t(int, 0,
							 tp->undo_retrans - dsack);
		}
		for (n = cum; n != f->nxt; n++) {
			struct tm_pkt *p = tm_pkt(f, n);

			if (!p->rcvd || p->sacked)
				continue;
			if (p->retrans) {
				p->retrans = 0;
				tp->retrans_out--;
			} else if (!p->ever_retrans) {
				flag |= TM_FLAG_ORIG_SACK_ACKED;
				sack_rtt = true;
				last_sackt = p->sent_us;
			}
			if (p->lost) {
				p->lost = 0;
				tp->lost_out--;
			}
			p->sacked = 1;
			tp->sacked_out++;
			sack_delivered++;
			flag |= TM_FLAG_DATA_SACKED;
		}
		if (ece)
			flag |= TM_FLAG_ECE;
		if (sack_delivered)
			tm_count_delivered(tp, sack_delivered, ece);
	}

	if (!prior_packets) {
		/* no_queue: only a D-SACK can undo something */
		tm_in_ack_event(f, flag);
		if (flag & TM_FLAG_DSACKING_ACK)
			tm_fastretrans_alert(f, flag);
		goto sent;
	}

	/* tcp_clean_rtx_queue() */
	for (n = f->una; n != cum; n++) {
		struct tm_pkt *p = tm_pkt(f, n);

		if (p->ever_retrans) {
			if (p->retrans)
				tp->retrans_out--;
			flag |= TM_FLAG_RETRANS_DATA_ACKED;
		} else if (!p->sacked) {
			seq_rtt = true;
			last_ackt = p->sent_us;
			if (!after(tm_seq(n + 1), tp->high_seq))
				flag |= TM_FLAG_ORIG_SACK_ACKED;
		}
		if (p->sacked)
			tp->sacked_out--;
		else
			tm_count_delivered(tp, 1, ece);
		if (p->lost)
			tp->lost_out--;
		tp->packets_out--;
		acked++;
	}
	if (acked)
		flag |= TM_FLAG_DATA_ACKED;
	f->una = cum;
	tp->snd_una = tm_seq(cum);
	/* The RTT of never retransmitted data (Karn), as tcp_ack_update_rtt(). */
	if (seq_rtt && (flag & TM_FLAG_RETRANS_DATA_ACKED))
		seq_rtt = false;
	if (ops->pkts_acked) {
		/* ca_rtt_us of tcp_clean_rtx_queue(): the SACKed, else the cumulative */
		struct ack_sample sample = {
			.pkts_acked = acked,
			.rtt_us = sack_rtt ? (s32)(f->now_us - last_sackt) :
				  seq_rtt ? (s32)(f->now_us - last_ackt) : -1,
		};

		ops->pkts_acked(f->sk, &sample);
	}

	tm_in_ack_event(f, flag);

	/* tcp_ack_is_dubious() */
	if (!(flag & TM_FLAG_NOT_DUP) || (flag & TM_FLAG_CA_ALERT) ||
	    inet_csk(f->sk)->icsk_ca_state != TCP_CA_Open)
		tm_fastretrans_alert(f, flag);

	tm_cong_control(f, tp->snd_una, tp->delivered - prior_delivered,
			tp->lost - prior_lost, flag);
sent:
	tm_fill(f);
	tm_record(f);
}

/* --- the path and the receiver ------------------------------------------ */

/* The receiver ACKs what it holds; @dsack duplicates came in. */
static inline void tm_rcv_ack(struct tm_flow *f, u32 dsack)
{
	bool ece = f->unacked_ce;

	f->unacked = 0;
	tm_ack(f, f->rcv_nxt, ece, dsack);
}

/* Does the receiver hold data above a hole? */
static inline bool tm_rcv_ooo(struct tm_flow *f)
{
	u32 n;

	for (n = f->rcv_nxt; n != f->nxt; n++)
		if (tm_pkt(f, n)->rcvd)
			return true;
	return false;
}

/*
 * Transmission @tx arrives at the receiver. It ACKs every ack_every
 * in-order packets; at once a duplicate (with a D-SACK), data while it holds
 * data above a hole (before or after this packet) and a change of CE state.
 */
static inline void tm_rcv(struct tm_flow *f, const struct tm_tx *tx)
{
	bool ce = f->ce_den && (f->arrivals % f->ce_den) < f->ce_num;
	struct tm_pkt *p = tm_pkt(f, tx->pkt);
	bool ooo = tm_rcv_ooo(f);

	f->arrivals++;
	if (before(tm_seq(tx->pkt), tm_seq(f->rcv_nxt)) || p->rcvd) {
		if (f->unacked)
			tm_rcv_ack(f, 0);
		f->unacked_ce = ce;
		tm_rcv_ack(f, 1);
		return;
	}
	if (f->unacked && ce != f->unacked_ce)
		tm_rcv_ack(f, 0);
	f->unacked_ce = ce;

	p->rcvd = 1;
	while (f->rcv_nxt != f->nxt && tm_pkt(f, f->rcv_nxt)->rcvd)
		f->rcv_nxt++;
	if (!ooo && !tm_rcv_ooo(f) && ++f->unacked < f->ack_every)
		return;
	tm_rcv_ack(f, 0);
}

/*
 * The transmission at the wire's head arrives: half the base RTT after it
 * was sent, or behind the one before it at the bottleneck; the clock moves
 * to when an ACK sent then reaches the sender.
 */
static inline void tm_arrive_one(struct tm_flow *f)
{
	struct tm_tx tx = f->wire[f->wire_head];
	u64 at = max(tx.sent_us + f->rtt_us / 2,
		     f->last_arrival_us + f->tx_us);

	f->last_arrival_us = at;
	tm_clock(f, at + f->rtt_us - f->rtt_us / 2);
	f->wire_head = (f->wire_head + 1) % TM_RING;
	f->wire_len--;
	tm_rcv(f, &tx);
}

/* The next @n transmissions on the wire arrive. */
static inline void tm_arrive(struct tm_flow *f, u32 n)
{
	while (n-- && f->wire_len)
		tm_arrive_one(f);
	/* The receiver's delayed-ACK timer. */
	if (f->unacked)
		tm_rcv_ack(f, 0);
}

/* Transmissions arrive until @done(@f) (at most 10 000). */
static inline void tm_arrive_until(struct tm_flow *f,
				   bool (*done)(const struct tm_flow *f))
{
	u32 i;

	for (i = 0; i < 10000 && !done(f); i++) {
		if (f->wire_len)
			tm_arrive_one(f);
		else if (f->unacked)
			tm_rcv_ack(f, 0);	/* the delayed-ACK timer */
		else
			break;
	}
	/* reported after the script (tm_run()): interrupts are off here */
	if (!done(f) && !f->stuck)
		f->stuck = f->phases[f->n_phases - 1].name;
	if (f->unacked)
		tm_rcv_ack(f, 0);
}

static inline bool tm_is_open(const struct tm_flow *f)
{
	return inet_csk(f->sk)->icsk_ca_state == TCP_CA_Open;
}

static inline bool tm_in_recovery(const struct tm_flow *f)
{
	return inet_csk(f->sk)->icsk_ca_state == TCP_CA_Recovery;
}

static inline bool tm_at_ssthresh(const struct tm_flow *f)
{
	return tcp_snd_cwnd(f->tp) >= f->tp->snd_ssthresh;
}

/* Everything on the wire arrives, and what that sends too, @rounds times. */
static inline void tm_rounds(struct tm_flow *f, u32 rounds)
{
	while (rounds--)
		tm_arrive(f, f->wire_len);
}

/*
 * The @n transmissions at position @pos on the wire are lost. Never a
 * retransmission: the stack's RACK finds a lost retransmission
 * (FLAG_LOST_RETRANS), which moves tcp_fastretrans_alert() from Loss to
 * Recovery, and the mirror's loss detection does not model that.
 */
static inline void tm_drop(struct tm_flow *f, u32 pos, u32 n)
{
	u32 i;

	TM_ASSERT(f, pos + n <= f->wire_len, "%s: nothing to drop", f->cca);
	for (i = pos; i < pos + n; i++)
		TM_ASSERT(f, !f->wire[(f->wire_head + i) % TM_RING].retx,
			  "%s: a retransmission dropped", f->cca);
	for (i = pos; i + n < f->wire_len; i++)
		f->wire[(f->wire_head + i) % TM_RING] =
			f->wire[(f->wire_head + i + n) % TM_RING];
	f->wire_len -= n;
}

/* The transmission at the wire's head is overtaken by the @by next ones. */
static inline void tm_delay_head(struct tm_flow *f, u32 by)
{
	struct tm_tx head = f->wire[f->wire_head];
	u32 i;

	TM_ASSERT(f, by < f->wire_len, "%s: nothing to overtake", f->cca);
	for (i = 0; i < by; i++)
		f->wire[(f->wire_head + i) % TM_RING] =
			f->wire[(f->wire_head + i + 1) % TM_RING];
	f->wire[(f->wire_head + by) % TM_RING] = head;
}

/* From the next arrival on, @num of every @den packets carry CE. */
static inline void tm_marks(struct tm_flow *f, u32 num, u32 den)
{
	f->ce_num = num;
	f->ce_den = den;
	f->arrivals = 0;
}

/*
 * The retransmission timer fires (tcp_retransmit_timer()). With @black_hole
 * everything in flight was lost, else it is only late. tcp_enter_loss()
 * marks every packet not SACKed lost (tcp_timeout_mark_lost(), done here on
 * the mirror's packets: the real walk finds no skbs), and the scripts run
 * without F-RTO (net.ipv4.tcp_frto=0): the mirror of tcp_process_loss()
 * leaves its steps out. Then the head is retransmitted.
 */
static inline void tm_rto(struct tm_flow *f, bool black_hole)
{
	u32 n;

	tm_clock(f, f->last_tx_us +
		 jiffies_to_usecs(inet_csk(f->sk)->icsk_rto));
	if (black_hole)
		f->wire_len = 0;
	for (n = f->una; n != f->nxt; n++)
		if (!tm_pkt(f, n)->sacked)
			tm_mark_lost(f, tm_pkt(f, n));
	tcp_enter_loss(f->sk);
	f->tp->frto = 0;
	inet_csk(f->sk)->icsk_retransmits++;	/* tcp_update_rto_stats() */
	tm_fill(f);
	tm_record(f);
}

/*
 * The application stops writing; everything sent is acked; then nothing is
 * sent for @idle_jiffies.
 */
static inline void tm_idle(struct tm_flow *f, u32 idle_jiffies)
{
	u32 i;

	f->app_stopped = true;
	for (i = 0; i < 64 && f->tp->packets_out; i++)
		tm_rounds(f, 1);
	TM_ASSERT(f, !f->tp->packets_out, "%s: the flight did not drain",
		  f->cca);
	tm_clock(f, f->now_us + jiffies_to_usecs(idle_jiffies));
	tm_record(f);
}

/* --- setting up, comparing ---------------------------------------------- */

/*
 * What tcp_cleanup_congestion_control() does when the socket goes: the CCA
 * releases its state and its module reference is dropped, so that the CCA
 * modules unload after the suites, and kmemleak sees no state left behind.
 */
static inline void tm_flow_release(void *data)
{
	struct sock *sk = data;
	struct inet_connection_sock *icsk = inet_csk(sk);

	if (icsk->icsk_ca_ops->release)
		icsk->icsk_ca_ops->release(sk);
	module_put(icsk->icsk_ca_ops->owner);
	icsk->icsk_ca_ops = &tcp_reno;
}

/*
 * A flow on CCA @name, set with the TCP_CONGESTION setsockopt's
 * tcp_set_congestion_control() on an established SACK connection (ECN
 * negotiated if @ecn) with @cwnd and @ssthresh (as from a route's
 * metrics); RTO 1 s. The first window is sent.
 */
static inline struct tm_flow *tm_flow(struct kunit *test, const char *name,
				      bool ecn, u32 cwnd, u32 ssthresh)
{
	struct tm_flow *f = kunit_kzalloc(test, sizeof(*f), GFP_KERNEL);
	int err;

	KUNIT_ASSERT_NOT_NULL(test, f);
	f->trace = kunit_kcalloc(test, TM_STEPS, sizeof(*f->trace), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, f->trace);
	f->test = test;
	f->cca = name;
	f->tp = cca_test_sock(test, TM_MSS, cwnd);
	f->sk = (struct sock *)f->tp;
	f->ack_every = 2;

	f->tp->snd_ssthresh = ssthresh;
	f->tp->rx_opt.sack_ok = TCP_SACK_SEEN;
	f->tp->reordering = READ_ONCE(init_net.ipv4.sysctl_tcp_reordering);
	f->tp->tcp_mstamp = 5 * USEC_PER_SEC;
	f->mstamp0 = f->tp->tcp_mstamp;
	f->rtt_us = TM_RTT_US;
	f->tp->ecn_flags = ecn ? TCP_ECN_OK : 0;
	inet_csk(f->sk)->icsk_rto = HZ;
	inet_csk(f->sk)->icsk_ca_ops = &tcp_reno;

	/* the setsockopt runs with the socket owned: locked here */
	cca_test_locked(f->sk,
			err = tcp_set_congestion_control(f->sk, name, false, true));
	KUNIT_ASSERT_EQ_MSG(test, err, 0, "cannot set %s", name);
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test, tm_flow_release,
							f->sk), 0);

	tm_phase(f, "start", 0);
	return f;
}

/*
 * Send the first window of @f and run @script on it, with interrupts off:
 * the flow's clock is then the only thing that moves jiffies (tm_clock()),
 * so that two flows that follow one script see the same times. That holds
 * on one CPU only (with more, another CPU's tick moves jiffies too): the
 * sanitizer kernel's VM has one. Each script moves jiffies ahead of the
 * kernel's time for good, by TM_JIFFIES_MAX at most.
 */
static inline void tm_run(struct tm_flow *f, void (*script)(struct tm_flow *f))
{
	unsigned long flags;

	if (num_online_cpus() != 1)
		kunit_skip(f->test, "the mirror's clock needs one CPU");
	local_irq_save(flags);
	tm_fill(f);
	tm_record(f);
	script(f);
	local_irq_restore(flags);
	cond_resched();
	KUNIT_EXPECT_NULL_MSG(f->test, f->stuck, "%s: never got to the end of %s",
			      f->cca, f->stuck);
}

static inline const char *tm_state_name(u8 state)
{
	static const char *const names[] = {
		"Open", "Disorder", "CWR", "Recovery", "Loss",
	};

	return state < ARRAY_SIZE(names) ? names[state] : "?";
}

/*
 * @a and @b went through the same script: same phases; in each, the same
 * number of steps with equal cwnd, ssthresh and ca_state, except where the
 * phase allows a cwnd difference (then only the steps both have count). The
 * first difference fails the test and ends the comparison.
 */
static inline void tm_expect_same(struct kunit *test, const struct tm_flow *a,
				  const struct tm_flow *b)
{
	u32 i = 0, j = 0;
	u8 ph;

	KUNIT_ASSERT_EQ(test, a->n_phases, b->n_phases);
	for (ph = 0; ph < a->n_phases; ph++) {
		const struct tm_phase *p = &a->phases[ph];
		u32 i0 = i, j0 = j, k;

		while (i < a->steps && a->trace[i].phase == ph)
			i++;
		while (j < b->steps && b->trace[j].phase == ph)
			j++;
		for (k = 0; i0 + k < i && j0 + k < j; k++) {
			const struct tm_step *x = &a->trace[i0 + k];
			const struct tm_step *y = &b->trace[j0 + k];
			u32 d = max(x->cwnd, y->cwnd) - min(x->cwnd, y->cwnd);

			if (d <= p->cwnd_tol && x->ssthresh == y->ssthresh &&
			    x->ca_state == y->ca_state)
				continue;
			KUNIT_FAIL(test,
				   "phase %s, step %u: %s cwnd %u ssthresh %u %s; %s cwnd %u ssthresh %u %s",
				   p->name, k, a->cca, x->cwnd, x->ssthresh,
				   tm_state_name(x->ca_state), b->cca, y->cwnd,
				   y->ssthresh, tm_state_name(y->ca_state));
			return;
		}
		if (!p->cwnd_tol && i - i0 != j - j0) {
			KUNIT_FAIL(test, "phase %s: %s took %u steps, %s %u",
				   p->name, a->cca, i - i0, b->cca, j - j0);
			return;
		}
	}
}

#endif /* _CCAAS_KUNIT_TCP_MIRROR_H */
