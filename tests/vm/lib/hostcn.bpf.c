// SPDX-License-Identifier: GPL-2.0
/*
 * hostcn: a host rate limiter as a cgroup-skb egress program, for
 * tests/vm/73-hostcn.sh. Every packet a socket of the cgroup sends passes
 * it (ip_finish_output(), before the qdisc); it keeps a virtual queue: the
 * bytes it let through, drained at `rate` bytes/s. Nothing is actually
 * queued (a policer, not a shaper), so the virtual queue stands for the
 * delay a shaper of that rate would have added.
 *
 *	virtual queue + len > drop_thresh: drop; with `cn`, return 2 (drop +
 *	    congestion notification: TCP sees NET_XMIT_DROP, calls
 *	    tcp_enter_cwr() and sends the segment later), else 0 (drop only:
 *	    TCP sees -EPERM, keeps the segment for later, no cwnd reduction)
 *	virtual queue > mark_thresh after this packet: pass; with `cn`,
 *	    return 3 (pass + CN: NET_XMIT_CN, tcp_enter_cwr(), the segment is
 *	    sent), else 1
 *	otherwise pass (1)
 *
 * Return values 2 and 3 need the egress attach type, which libbpf sets
 * from the section name. One state per map (the test attaches the program
 * to one cgroup): configuration and counters, written and read with
 * bpftool as raw bytes (struct hc_state, 8-byte fields, little endian).
 * The guest has one vCPU; a softirq transmit that interrupts a process
 * transmit between the read and the write of `vq` can misplace one
 * packet's bytes, which a test reading averages over thousands of packets
 * does not notice. Counters are atomic.
 *
 * Build:  clang -O2 -g -target bpf -idirafter /usr/include/$(gcc -print-multiarch) \
 *           -c hostcn.bpf.c -o hostcn.bpf.o
 * Load:   bpftool prog load hostcn.bpf.o /sys/fs/bpf/hostcn pinmaps /sys/fs/bpf/hostcn_maps
 * Attach: bpftool cgroup attach CGROUP egress pinned /sys/fs/bpf/hostcn
 */
#include <linux/bpf.h>
#include <linux/types.h>
#include <bpf/bpf_helpers.h>

struct hc_state {
	/* configuration */
	__u64 rate;		/* bytes per second; 0 = pass everything */
	__u64 mark_thresh;	/* bytes */
	__u64 drop_thresh;	/* bytes */
	__u64 cn;		/* 1: return CN with marks and drops */
	/* state */
	__u64 last_ns;
	__u64 vq;		/* bytes */
	/* counters */
	__u64 pkts;		/* packets passed */
	__u64 bytes;		/* bytes passed */
	__u64 marked;		/* passed above mark_thresh */
	__u64 dropped;
	__u64 vq_sum;		/* sum of vq over passed packets */
	__u64 vq_max;
};

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct hc_state);
} hostcn_state SEC(".maps");

SEC("cgroup_skb/egress")
int hostcn_egress(struct __sk_buff *skb)
{
	__u32 key = 0, len = skb->len;
	struct hc_state *s;
	__u64 now, drained, vq;

	s = bpf_map_lookup_elem(&hostcn_state, &key);
	if (!s || !s->rate)
		return 1;
	now = bpf_ktime_get_ns();
	if (!s->last_ns)
		s->last_ns = now;
	drained = (now - s->last_ns) * s->rate / 1000000000ULL;
	s->last_ns = now;
	vq = s->vq > drained ? s->vq - drained : 0;
	if (vq + len > s->drop_thresh) {
		s->vq = vq;
		__sync_fetch_and_add(&s->dropped, 1);
		return s->cn ? 2 : 0;
	}
	vq += len;
	s->vq = vq;
	__sync_fetch_and_add(&s->pkts, 1);
	__sync_fetch_and_add(&s->bytes, len);
	__sync_fetch_and_add(&s->vq_sum, vq);
	if (vq > s->vq_max)
		s->vq_max = vq;
	if (vq > s->mark_thresh) {
		__sync_fetch_and_add(&s->marked, 1);
		return s->cn ? 3 : 1;
	}
	return 1;
}

char _license[] SEC("license") = "GPL";
