// SPDX-License-Identifier: GPL-2.0
/*
 * Application load for the bench parts `xregion-rpc` and `dcndelay-region`
 * (bench/README.md, sections 9 and 10): small RPCs with Poisson arrivals
 * over a pool of persistent connections, and bulk transfers of large
 * objects one after another, each timed.
 *
 *   rpc server ADDR PORT
 *	accept connections (one thread each); on each, answer every request
 *	(a 16-byte header: magic, request length, response length, 0; then
 *	the request's bytes) with the response's bytes once the whole
 *	request has arrived
 *   rpc rpc ADDR PORT SECONDS RATE CONNS FANIN REQ RESP OUT SEED
 *	open CONNS connections, then for SECONDS issue RPCs at Poisson
 *	arrivals of RATE per second; each RPC sends REQ bytes and waits for
 *	RESP bytes on each of FANIN idle connections (FANIN > 1: one
 *	request fanned out, done when the last answer is in; that is a
 *	many-to-one fan-in of answers, or of requests at the server).
 *	Arrivals wait in a FIFO while fewer than FANIN connections are idle.
 *	The latency of an RPC is from its scheduled arrival to its last
 *	answer (open loop: a stalled connection does not slow the arrivals,
 *	so the waiting it causes is counted, not hidden). After SECONDS, no
 *	new arrivals; the outstanding ones get up to 10 s more. OUT: one line
 *	"R arrival_ms latency_us" per finished RPC, and "U arrival_ms
 *	waited_us" per RPC unfinished at the end. stdout: one summary line.
 *   rpc bulk ADDR PORT SECONDS SIZE OUT PERIOD_US
 *	one connection; send objects of SIZE bytes one after another, each
 *	a request whose 8-byte answer says the server has it all; for
 *	SECONDS, then the connection is shut down (the object in flight is
 *	"censored": its time so far is a lower bound). A second thread reads
 *	TCP_INFO every PERIOD_US. OUT lines:
 *	  O start_ms dur_us               one object, start to answer
 *	  C start_ms elapsed_us           the object in flight at the end
 *	  S t_ms cwnd srtt_us retrans     TCP_INFO samples
 *	  E bytes_acked secs total_retrans cca min_rtt_us
 *
 * The CCA of every connection is the one ccaas's selector gives it: the
 * tool never sets TCP_CONGESTION. Times are CLOCK_MONOTONIC, relative to
 * the start of the load.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/tcp.h>
#include <math.h>
#include <netinet/in.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#define BENCH_TOOL "rpc"
#include "util.h"

#define MAGIC 0x52504331u	/* "RPC1" */
#define HDR 16
#define DRAIN_NS 10000000000ULL
#define MAX_CONNS 1024

static char zeros[1 << 16];	/* what every request and answer carries */
static char rbuf[1 << 16];	/* the RPC client's reads */

static uint64_t now_ns(void)
{
	return clock_ns(CLOCK_MONOTONIC);
}

static int connect_to(const struct sockaddr_in *sa)
{
	int one = 1, fd = socket(AF_INET, SOCK_STREAM, 0);

	if (fd < 0)
		die("socket");
	if (connect(fd, (const struct sockaddr *)sa, sizeof(*sa)))
		die("connect");
	/* a request is written whole at once: no Nagle wait on its tail */
	setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
	return fd;
}

/* read exactly n bytes (into buf if not NULL, else discarded); 0 at EOF */
static int read_full(int fd, void *buf, size_t n)
{
	static __thread char sink[1 << 16];
	size_t got = 0;
	ssize_t r;

	while (got < n) {
		size_t want = n - got;

		if (!buf && want > sizeof(sink))
			want = sizeof(sink);
		r = read(fd, buf ? (char *)buf + got : sink, want);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			return 0;
		got += r;
	}
	return 1;
}

/* write n bytes of zeros (after the first hlen bytes from hdr); 0 on error */
static int write_full(int fd, const void *hdr, size_t hlen, size_t n)
{
	size_t done = 0;
	ssize_t r;

	while (done < hlen) {
		r = write(fd, (const char *)hdr + done, hlen - done);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			return 0;
		done += r;
	}
	for (done = 0; done < n; done += r) {
		size_t want = n - done;

		if (want > sizeof(zeros))
			want = sizeof(zeros);
		r = write(fd, zeros, want);
		if (r < 0 && errno == EINTR) {
			r = 0;
			continue;
		}
		if (r <= 0)
			return 0;
	}
	return 1;
}

static void make_hdr(uint32_t *h, uint32_t req, uint32_t resp)
{
	h[0] = htonl(MAGIC);
	h[1] = htonl(req);
	h[2] = htonl(resp);
	h[3] = 0;
}

/* ---- server ------------------------------------------------------------ */

static void *serve(void *arg)
{
	int c = (int)(long)arg, one = 1;
	uint32_t h[4];

	setsockopt(c, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
	while (read_full(c, h, HDR)) {
		if (ntohl(h[0]) != MAGIC) {
			fprintf(stderr, "rpc server: bad magic\n");
			break;
		}
		if (!read_full(c, NULL, ntohl(h[1])) ||
		    !write_full(c, NULL, 0, ntohl(h[2])))
			break;
	}
	close(c);
	return NULL;
}

static __attribute__((noreturn)) void server(const char *addr,
					      const char *port)
{
	struct sockaddr_in sa;
	int one = 1, l, c;
	pthread_t th;

	sockaddr_of(addr, port, &sa);
	l = socket(AF_INET, SOCK_STREAM, 0);
	if (l < 0)
		die("socket");
	setsockopt(l, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	if (bind(l, (struct sockaddr *)&sa, sizeof(sa)) || listen(l, 128))
		die("bind/listen");
	for (;;) {
		c = accept(l, NULL, NULL);
		if (c < 0) {
			if (errno == EINTR || errno == ECONNABORTED)
				continue;
			die("accept");
		}
		if (pthread_create(&th, NULL, serve, (void *)(long)c))
			die("pthread_create");
		pthread_detach(th);
	}
}

/* ---- RPC client -------------------------------------------------------- */

struct rpc {
	uint64_t arrival;	/* scheduled arrival, ns since start */
	int left;		/* answers still to come */
};

struct conn {
	int fd;
	long rpc;		/* index in rpcs[] or -1 when idle */
	size_t to_write;	/* request bytes (header included) not yet written */
	size_t to_read;		/* answer bytes not yet read */
};

/* exponential inter-arrival time with mean 1/rate seconds, in ns */
static uint64_t exp_gap(double rate, unsigned short *xs)
{
	double u = erand48(xs);

	if (u < 1e-12)
		u = 1e-12;
	return (uint64_t)(-log(u) / rate * 1e9);
}

/* write what the connection still owes its request; 0 on error */
static int conn_write(struct conn *c, uint32_t req, uint32_t resp)
{
	size_t total = HDR + req;
	uint32_t h[4];
	ssize_t r;

	make_hdr(h, req, resp);
	while (c->to_write) {
		size_t off = total - c->to_write;

		if (off < HDR)
			r = write(c->fd, (char *)h + off, HDR - off);
		else
			r = write(c->fd, zeros, c->to_write > sizeof(zeros) ?
				  sizeof(zeros) : c->to_write);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0 && errno == EAGAIN)
			return 1;
		if (r <= 0)
			return 0;
		c->to_write -= r;
	}
	return 1;
}

static int rpc_client(char **a)
{
	const char *addr = a[0], *port = a[1], *out = a[8];
	double secs = atof(a[2]), rate = atof(a[3]);
	int nconn = atoi(a[4]), fanin = atoi(a[5]);
	uint32_t req = atoi(a[6]), resp = atoi(a[7]);
	unsigned short xs[3] = { 0x330e, 0, 0 };
	long nrpc, issued = 0, head = 0, done = 0, unfinished = 0, i;
	uint64_t t0, end, next, now, *lat;
	struct pollfd *pfd;
	struct sockaddr_in sa;
	struct conn *conns;
	struct rpc *rpcs;
	int idle, j;
	FILE *f;

	xs[1] = (unsigned short)atoi(a[9]);
	xs[2] = (unsigned short)(atoi(a[9]) >> 16);
	if (nconn < 1 || nconn > MAX_CONNS || fanin < 1 || fanin > nconn ||
	    rate <= 0 || secs <= 0 || resp < 1) {
		fprintf(stderr, "rpc: bad arguments\n");
		return 2;
	}
	/* room for 4x the expected arrivals; past that arrivals are dropped
	 * and counted (the load would be absurd anyway) */
	nrpc = (long)(secs * rate * 4) + 1000;
	rpcs = calloc(nrpc, sizeof(*rpcs));
	lat = calloc(nrpc, sizeof(*lat));
	conns = calloc(nconn, sizeof(*conns));
	pfd = calloc(nconn, sizeof(*pfd));
	if (!rpcs || !lat || !conns || !pfd)
		die("calloc");
	sockaddr_of(addr, port, &sa);
	for (j = 0; j < nconn; j++) {
		conns[j].fd = connect_to(&sa);
		conns[j].rpc = -1;
		if (fcntl(conns[j].fd, F_SETFL, O_NONBLOCK))
			die("fcntl");
	}
	idle = nconn;
	t0 = now_ns();
	end = (uint64_t)(secs * 1e9);
	next = exp_gap(rate, xs);
	for (;;) {
		int timeout_ms, n;

		now = now_ns() - t0;
		while (next <= now && next < end) {
			if (issued < nrpc) {
				rpcs[issued].arrival = next;
				rpcs[issued].left = fanin;
				issued++;
			} else {
				unfinished++;
			}
			next += exp_gap(rate, xs);
		}
		/* the oldest waiting arrivals to idle connections */
		while (head < issued && idle >= fanin) {
			int k = 0;

			for (j = 0; j < nconn && k < fanin; j++) {
				struct conn *c = &conns[j];

				if (c->rpc >= 0)
					continue;
				c->rpc = head;
				c->to_write = HDR + req;
				c->to_read = resp;
				if (!conn_write(c, req, resp))
					die("write");
				idle--;
				k++;
			}
			head++;
		}
		if (now >= end && head == issued && idle == nconn)
			break;
		if (now >= end + DRAIN_NS)
			break;
		if (next < end)
			timeout_ms = (int)((next - now) / 1000000);
		else
			timeout_ms = 100;
		for (j = 0; j < nconn; j++) {
			pfd[j].fd = conns[j].fd;
			pfd[j].events = 0;
			if (conns[j].rpc >= 0)
				pfd[j].events = conns[j].to_write ? POLLOUT : POLLIN;
			pfd[j].revents = 0;
		}
		n = poll(pfd, nconn, timeout_ms);
		if (n < 0 && errno != EINTR)
			die("poll");
		for (j = 0; n > 0 && j < nconn; j++) {
			struct conn *c = &conns[j];
			ssize_t r;

			if (!pfd[j].revents)
				continue;
			if (c->to_write) {
				if (!conn_write(c, req, resp))
					die("write");
				continue;
			}
			r = read(c->fd, rbuf, c->to_read > sizeof(rbuf) ?
				 sizeof(rbuf) : c->to_read);
			if (r < 0 && (errno == EAGAIN || errno == EINTR))
				continue;
			if (r <= 0) {
				fprintf(stderr, "rpc: connection %d closed\n", j);
				return 1;
			}
			c->to_read -= r;
			if (c->to_read)
				continue;
			if (--rpcs[c->rpc].left == 0) {
				lat[c->rpc] = now_ns() - t0 - rpcs[c->rpc].arrival;
				done++;
			}
			c->rpc = -1;
			idle++;
		}
	}
	f = fopen(out, "w");
	if (!f)
		die(out);
	now = now_ns() - t0;
	for (i = 0; i < issued; i++) {
		if (rpcs[i].left == 0) {
			fprintf(f, "R %.3f %.1f\n", rpcs[i].arrival / 1e6,
				lat[i] / 1e3);
		} else {
			fprintf(f, "U %.3f %.1f\n", rpcs[i].arrival / 1e6,
				(now - rpcs[i].arrival) / 1e3);
			unfinished++;
		}
	}
	if (fclose(f))
		die(out);
	printf("rpc issued=%ld done=%ld unfinished=%ld conns=%d fanin=%d secs=%.3f\n",
	       issued, done, unfinished, nconn, fanin, now / 1e9);
	return done ? 0 : 1;
}

/* ---- bulk sender ------------------------------------------------------- */

struct sample {
	uint64_t t;
	uint32_t cwnd, srtt, retrans;
};

static int bulk_fd = -1;
static volatile int bulk_stop;
static uint64_t bulk_t0, bulk_end;
static long period_us;
static struct sample *samples;
static size_t n_samples, max_samples;

static void *bulk_sampler(void *arg)
{
	struct timespec next;
	struct tcp_info ti;
	socklen_t len;

	(void)arg;
	clock_gettime(CLOCK_MONOTONIC, &next);
	for (;;) {
		uint64_t now = now_ns();

		if (now >= bulk_end) {
			/* unblocks the writer: the end of the run */
			bulk_stop = 1;
			shutdown(bulk_fd, SHUT_RDWR);
			return NULL;
		}
		len = sizeof(ti);
		memset(&ti, 0, sizeof(ti));
		if (n_samples < max_samples &&
		    !getsockopt(bulk_fd, IPPROTO_TCP, TCP_INFO, &ti, &len)) {
			struct sample *s = &samples[n_samples++];

			s->t = now - bulk_t0;
			s->cwnd = ti.tcpi_snd_cwnd;
			s->srtt = ti.tcpi_rtt;
			s->retrans = ti.tcpi_total_retrans;
		}
		next.tv_nsec += period_us * 1000;
		while (next.tv_nsec >= 1000000000L) {
			next.tv_nsec -= 1000000000L;
			next.tv_sec++;
		}
		while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &next,
				       NULL) == EINTR)
			;
	}
}

static int bulk(char **a)
{
	const char *out = a[4];
	double secs = atof(a[2]);
	uint32_t size = atoi(a[3]), h[4];
	uint64_t start, acked = 0;
	unsigned long objects = 0;
	struct sockaddr_in sa;
	struct tcp_info ti;
	char cca[16] = "?";
	socklen_t len;
	pthread_t th;
	FILE *f;
	size_t i;

	period_us = atol(a[5]);
	if (period_us <= 0 || secs <= 0 || size < 1) {
		fprintf(stderr, "rpc: bad arguments\n");
		return 2;
	}
	max_samples = (size_t)(secs * 1e6 / period_us) + 100;
	samples = calloc(max_samples, sizeof(*samples));
	if (!samples)
		die("calloc");
	f = fopen(out, "w");
	if (!f)
		die(out);
	sockaddr_of(a[0], a[1], &sa);
	bulk_fd = connect_to(&sa);
	bulk_t0 = now_ns();
	bulk_end = bulk_t0 + (uint64_t)(secs * 1e9);
	if (pthread_create(&th, NULL, bulk_sampler, NULL))
		die("pthread_create");
	make_hdr(h, size, 8);
	for (;;) {
		start = now_ns();
		if (!write_full(bulk_fd, h, HDR, size) ||
		    !read_full(bulk_fd, NULL, 8))
			break;
		fprintf(f, "O %.3f %.1f\n", (start - bulk_t0) / 1e6,
			(now_ns() - start) / 1e3);
		objects++;
	}
	if (!bulk_stop) {
		fprintf(stderr, "rpc bulk: connection failed before the end\n");
		return 1;
	}
	pthread_join(th, NULL);
	if (start < bulk_end)	/* else the last object ended after the end */
		fprintf(f, "C %.3f %.1f\n", (start - bulk_t0) / 1e6,
			(bulk_end - start) / 1e3);
	len = sizeof(ti);
	memset(&ti, 0, sizeof(ti));
	getsockopt(bulk_fd, IPPROTO_TCP, TCP_INFO, &ti, &len);
	acked = ti.tcpi_bytes_acked;
	len = sizeof(cca);
	if (getsockopt(bulk_fd, IPPROTO_TCP, TCP_CONGESTION, cca, &len))
		strcpy(cca, "?");
	cca[sizeof(cca) - 1] = 0;
	for (i = 0; i < n_samples; i++)
		fprintf(f, "S %.3f %u %u %u\n", samples[i].t / 1e6,
			samples[i].cwnd, samples[i].srtt, samples[i].retrans);
	fprintf(f, "E %llu %.3f %u %s %u\n", (unsigned long long)acked, secs,
		ti.tcpi_total_retrans, cca, ti.tcpi_min_rtt);
	if (fclose(f))
		die(out);
	printf("bulk objects=%lu bytes_acked=%llu retrans=%u cca=%s\n", objects,
	       (unsigned long long)acked, ti.tcpi_total_retrans, cca);
	return 0;
}

int main(int argc, char **argv)
{
	signal(SIGPIPE, SIG_IGN);
	setvbuf(stdout, NULL, _IOLBF, 0);
	if (argc == 4 && !strcmp(argv[1], "server"))
		server(argv[2], argv[3]);
	if (argc == 12 && !strcmp(argv[1], "rpc"))
		return rpc_client(argv + 2);
	if (argc == 8 && !strcmp(argv[1], "bulk"))
		return bulk(argv + 2);
	fprintf(stderr,
		"usage: rpc server ADDR PORT\n"
		"       rpc rpc ADDR PORT SECONDS RATE CONNS FANIN REQ RESP OUT SEED\n"
		"       rpc bulk ADDR PORT SECONDS SIZE OUT PERIOD_US\n");
	return 2;
}
