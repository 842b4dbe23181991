// SPDX-License-Identifier: GPL-2.0
/*
 * bpf_reno: a BPF struct_ops congestion control for the VM tests, plain
 * Reno on the socket's cwnd and ssthresh. Its ops->owner is
 * BPF_MODULE_OWNER, which is what the tests are about.
 *
 * Build:    clang -O2 -g -target bpf -D__TARGET_ARCH_x86 \
 *             -idirafter /usr/include/$(gcc -print-multiarch) \
 *             -c bpf_reno.bpf.c -o bpf_reno.bpf.o
 * Register: bpftool struct_ops register bpf_reno.bpf.o
 * Remove:   bpftool struct_ops unregister name bpf_reno_ops
 *
 * No vmlinux.h: the few fields used are declared here, and CO-RE
 * (preserve_access_index) finds them in the running kernel's tcp_sock; the
 * verifier hands a tcp_congestion_ops program its socket as a tcp_sock.
 * No kfuncs either: bookworm's libbpf 1.1 refuses externs returning void.
 */
#include <linux/types.h>
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>

#define TCP_CONG_NON_RESTRICTED 0x1

struct sock;

struct tcp_sock {
	__u32 snd_cwnd;
	__u32 snd_cwnd_cnt;
	__u32 snd_cwnd_clamp;
	__u32 snd_ssthresh;
	__u32 prior_cwnd;
} __attribute__((preserve_access_index));

struct tcp_congestion_ops {
	__u32 (*ssthresh)(struct sock *sk);
	void (*cong_avoid)(struct sock *sk, __u32 ack, __u32 acked);
	__u32 (*undo_cwnd)(struct sock *sk);
	__u32 flags;
	char name[16];
} __attribute__((preserve_access_index));

static struct tcp_sock *tcp_sk(struct sock *sk)
{
	return (struct tcp_sock *)sk;
}

SEC("struct_ops/bpf_reno_ssthresh")
__u32 BPF_PROG(bpf_reno_ssthresh, struct sock *sk)
{
	__u32 half = tcp_sk(sk)->snd_cwnd >> 1;

	return half > 2 ? half : 2;
}

/* Slow start up to ssthresh, then one segment per window acked. */
SEC("struct_ops/bpf_reno_cong_avoid")
void BPF_PROG(bpf_reno_cong_avoid, struct sock *sk, __u32 ack, __u32 acked)
{
	struct tcp_sock *tp = tcp_sk(sk);
	__u32 cwnd = tp->snd_cwnd;

	if (cwnd < tp->snd_ssthresh) {
		cwnd += acked;
		if (cwnd > tp->snd_ssthresh)
			cwnd = tp->snd_ssthresh;
	} else {
		tp->snd_cwnd_cnt += acked;
		if (tp->snd_cwnd_cnt >= cwnd) {
			tp->snd_cwnd_cnt = 0;
			cwnd++;
		}
	}
	if (cwnd > tp->snd_cwnd_clamp)
		cwnd = tp->snd_cwnd_clamp;
	tp->snd_cwnd = cwnd;
}

SEC("struct_ops/bpf_reno_undo_cwnd")
__u32 BPF_PROG(bpf_reno_undo_cwnd, struct sock *sk)
{
	struct tcp_sock *tp = tcp_sk(sk);

	return tp->snd_cwnd > tp->prior_cwnd ? tp->snd_cwnd : tp->prior_cwnd;
}

/* Non-restricted: any namespace may make it its default. */
SEC(".struct_ops")
struct tcp_congestion_ops bpf_reno_ops = {
	.ssthresh = (void *)bpf_reno_ssthresh,
	.cong_avoid = (void *)bpf_reno_cong_avoid,
	.undo_cwnd = (void *)bpf_reno_undo_cwnd,
	.flags = TCP_CONG_NON_RESTRICTED,
	.name = "bpf_reno",
};

char _license[] SEC("license") = "GPL";
