// SPDX-License-Identifier: GPL-2.0
/*
 * bpf_reno: a BPF struct_ops congestion control for the VM tests, Reno
 * through the kfuncs the stack offers BPF CCAs (6.1 and 6.12 alike). Its
 * ops->owner is BPF_MODULE_OWNER, which is what the tests are about.
 *
 * Build:    clang -O2 -g -target bpf -D__TARGET_ARCH_x86 \
 *             -idirafter /usr/include/$(gcc -print-multiarch) \
 *             -c bpf_reno.bpf.c -o bpf_reno.bpf.o
 * Register: bpftool struct_ops register bpf_reno.bpf.o
 * Remove:   bpftool struct_ops unregister name bpf_reno_ops
 *
 * No vmlinux.h: the programs only pass the socket on, so struct sock stays
 * opaque, and libbpf matches struct tcp_congestion_ops' members to the
 * kernel's by name.
 */
#include <linux/types.h>
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>

#define TCP_CONG_NON_RESTRICTED 0x1

struct sock;

struct tcp_congestion_ops {
	__u32 (*ssthresh)(struct sock *sk);
	void (*cong_avoid)(struct sock *sk, __u32 ack, __u32 acked);
	__u32 (*undo_cwnd)(struct sock *sk);
	__u32 flags;
	char name[16];
} __attribute__((preserve_access_index));

extern __u32 tcp_reno_ssthresh(struct sock *sk) __ksym;
extern void tcp_reno_cong_avoid(struct sock *sk, __u32 ack, __u32 acked) __ksym;
extern __u32 tcp_reno_undo_cwnd(struct sock *sk) __ksym;

SEC("struct_ops/bpf_reno_ssthresh")
__u32 BPF_PROG(bpf_reno_ssthresh, struct sock *sk)
{
	return tcp_reno_ssthresh(sk);
}

SEC("struct_ops/bpf_reno_cong_avoid")
void BPF_PROG(bpf_reno_cong_avoid, struct sock *sk, __u32 ack, __u32 acked)
{
	tcp_reno_cong_avoid(sk, ack, acked);
}

SEC("struct_ops/bpf_reno_undo_cwnd")
__u32 BPF_PROG(bpf_reno_undo_cwnd, struct sock *sk)
{
	return tcp_reno_undo_cwnd(sk);
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
