// SPDX-License-Identifier: GPL-2.0
/*
 * Bulk TCP flow with its sender's state sampled every few milliseconds, for
 * the bench part `transient` (bench/README.md, section 6).
 *
 *   transient sink ADDR PORT
 *	accept connections, read and discard everything (one thread each)
 *   transient send ADDR PORT SECONDS PERIOD_US OUT
 *	connect, write without pause for SECONDS; meanwhile a second thread
 *	reads TCP_INFO and TCP_CONGESTION of the socket every PERIOD_US
 *	(absolute deadlines on CLOCK_MONOTONIC) and at the end writes one
 *	line per sample to OUT:
 *	  t_ns bytes_acked delivery_rate_Bps cwnd srtt_us ssthresh total_retrans cca
 *	t_ns is CLOCK_REALTIME, the clock `date +%s%N` reads in the guest
 *	script, so the times of its ccactl commands line up with the samples.
 *
 * The CCA of the connection is the one ccaas's selector gives it: the
 * sender never sets TCP_CONGESTION itself (that would pin the socket, and
 * migration would leave it alone).
 */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <linux/tcp.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#define BENCH_TOOL "transient"
#include "util.h"

#define CCA_LEN 16

struct sample {
	uint64_t t_ns;
	uint64_t acked;
	uint64_t rate;
	uint32_t cwnd;
	uint32_t srtt_us;
	uint32_t ssthresh;
	uint32_t retrans;
	char cca[CCA_LEN];
};

static int fd = -1;
static volatile int stop;
static struct sample *samples;
static size_t n_samples, max_samples;
static long period_us;

static void *drain(void *arg)
{
	static char buf[1 << 16];
	int c = (int)(long)arg;

	while (read(c, buf, sizeof(buf)) > 0)
		;
	close(c);
	return NULL;
}

static __attribute__((noreturn)) void sink(const char *addr, const char *port)
{
	struct sockaddr_in sa;
	int one = 1, l, c;
	pthread_t th;

	sockaddr_of(addr, port, &sa);
	l = socket(AF_INET, SOCK_STREAM, 0);
	if (l < 0)
		die("socket");
	setsockopt(l, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	if (bind(l, (struct sockaddr *)&sa, sizeof(sa)) || listen(l, 16))
		die("bind/listen");
	for (;;) {
		c = accept(l, NULL, NULL);
		if (c < 0) {
			if (errno == EINTR)
				continue;
			die("accept");
		}
		if (pthread_create(&th, NULL, drain, (void *)(long)c))
			die("pthread_create");
		pthread_detach(th);
	}
}

static void *sampler(void *arg)
{
	struct timespec next;
	struct tcp_info ti;
	socklen_t len;

	(void)arg;
	clock_gettime(CLOCK_MONOTONIC, &next);
	while (!stop && n_samples < max_samples) {
		struct sample *s = &samples[n_samples];

		len = sizeof(ti);
		memset(&ti, 0, sizeof(ti));
		if (getsockopt(fd, IPPROTO_TCP, TCP_INFO, &ti, &len))
			break;
		s->t_ns = clock_ns(CLOCK_REALTIME);
		s->acked = ti.tcpi_bytes_acked;
		s->rate = ti.tcpi_delivery_rate;
		s->cwnd = ti.tcpi_snd_cwnd;
		s->srtt_us = ti.tcpi_rtt;
		s->ssthresh = ti.tcpi_snd_ssthresh;
		s->retrans = ti.tcpi_total_retrans;
		len = CCA_LEN;
		memset(s->cca, 0, CCA_LEN);
		if (getsockopt(fd, IPPROTO_TCP, TCP_CONGESTION, s->cca, &len))
			strcpy(s->cca, "?");
		s->cca[CCA_LEN - 1] = 0;
		n_samples++;

		next.tv_nsec += period_us * 1000;
		while (next.tv_nsec >= 1000000000L) {
			next.tv_nsec -= 1000000000L;
			next.tv_sec++;
		}
		while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &next,
				       NULL) == EINTR)
			;
	}
	return NULL;
}

static int send_bulk(const char *addr, const char *port, const char *secs,
		     const char *period, const char *out)
{
	static char buf[1 << 17];
	struct sockaddr_in sa;
	uint64_t end;
	pthread_t th;
	FILE *f;
	size_t i;

	sockaddr_of(addr, port, &sa);
	period_us = atol(period);
	if (period_us <= 0)
		period_us = 1000;
	max_samples = (size_t)(atof(secs) * 1e6 / period_us) + 1000;
	samples = calloc(max_samples, sizeof(*samples));
	if (!samples)
		die("calloc");
	fd = socket(AF_INET, SOCK_STREAM, 0);
	if (fd < 0)
		die("socket");
	if (connect(fd, (struct sockaddr *)&sa, sizeof(sa)))
		die("connect");
	memset(buf, 'x', sizeof(buf));
	if (pthread_create(&th, NULL, sampler, NULL))
		die("pthread_create");
	end = clock_ns(CLOCK_MONOTONIC) + (uint64_t)(atof(secs) * 1e9);
	while (clock_ns(CLOCK_MONOTONIC) < end) {
		if (write(fd, buf, sizeof(buf)) < 0 && errno != EINTR)
			die("write");
	}
	stop = 1;
	pthread_join(th, NULL);

	f = fopen(out, "w");
	if (!f)
		die(out);
	for (i = 0; i < n_samples; i++) {
		const struct sample *s = &samples[i];

		fprintf(f, "%llu %llu %llu %u %u %u %u %s\n",
			(unsigned long long)s->t_ns,
			(unsigned long long)s->acked,
			(unsigned long long)s->rate, s->cwnd, s->srtt_us,
			s->ssthresh, s->retrans, s->cca[0] ? s->cca : "?");
	}
	if (fclose(f))
		die(out);
	close(fd);
	return 0;
}

int main(int argc, char **argv)
{
	signal(SIGPIPE, SIG_IGN);
	if (argc == 4 && !strcmp(argv[1], "sink"))
		sink(argv[2], argv[3]);
	if (argc == 7 && !strcmp(argv[1], "send"))
		return send_bulk(argv[2], argv[3], argv[4], argv[5], argv[6]);
	fprintf(stderr,
		"usage: transient sink ADDR PORT\n"
		"       transient send ADDR PORT SECONDS PERIOD_US OUT\n");
	return 2;
}
