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

#endif /* _CCAAS_TIMEOUT_H_ */
