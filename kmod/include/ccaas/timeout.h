/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Telling a retransmission timeout from the other way into TCP_CA_Loss,
 * in a CCA's set_state().
 */
#ifndef _CCAAS_TIMEOUT_H_
#define _CCAAS_TIMEOUT_H_

#include <net/tcp.h>

/**
 * ccaas_timeout_entry - is this set_state(TCP_CA_Loss) a timeout's?
 * @sk: the socket, in set_state(TCP_CA_Loss)
 *
 * tcp_enter_loss() (the retransmission timer) sets cwnd to the packets in
 * flight + 1 right before tcp_set_ca_state(TCP_CA_Loss), on every pinned
 * line. The other way into Loss, tcp_non_congestion_loss_retransmit() on
 * an ICMP "fragmentation needed" (tcp_simple_retransmit()), leaves cwnd as
 * it was ("don't muck with the congestion window"), and marks packets lost
 * first; cwnd equals the flight + 1 there only by chance, and then this
 * errs towards a timeout: one reduction too many, on a path MTU change
 * during a reduction.
 *
 * Return: true if cwnd is what tcp_enter_loss() has just set.
 */
static inline bool ccaas_timeout_entry(const struct sock *sk)
{
	const struct tcp_sock *tp = tcp_sk(sk);

	return tcp_snd_cwnd(tp) == tcp_packets_in_flight(tp) + 1;
}

/**
 * ccaas_timeout_in_reduction - a timeout the stack took no cut for?
 * @sk: the socket, in set_state()
 * @new_state: the state set_state() was given
 *
 * tcp_enter_loss() in CWR or Recovery, before high_seq is acknowledged,
 * calls neither ssthresh() nor CA_EVENT_LOSS, only set_state(Loss) (the
 * old state is still icsk_ca_state there): a CCA whose reduction of that
 * episode was smaller than its timeout's takes the latter here.
 *
 * Return: true for a timeout's set_state(Loss) from CWR or Recovery.
 */
static inline bool ccaas_timeout_in_reduction(const struct sock *sk,
					      u8 new_state)
{
	u8 old = inet_csk(sk)->icsk_ca_state;

	return new_state == TCP_CA_Loss &&
	       (old == TCP_CA_CWR || old == TCP_CA_Recovery) &&
	       ccaas_timeout_entry(sk);
}

#endif /* _CCAAS_TIMEOUT_H_ */
