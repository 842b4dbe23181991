/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the bench tools (rpc.c, transient.c) share: a fatal error, a clock
 * in nanoseconds, an IPv4 address and port from the command line. Define
 * BENCH_TOOL, the tool's name for its messages, before including this.
 */
#ifndef BENCH_UTIL_H
#define BENCH_UTIL_H

#include <arpa/inet.h>
#include <netinet/in.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static inline void die(const char *what)
{
	perror(what);
	exit(1);
}

static inline uint64_t clock_ns(clockid_t clk)
{
	struct timespec ts;

	clock_gettime(clk, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

static inline void sockaddr_of(const char *addr, const char *port,
			       struct sockaddr_in *sa)
{
	memset(sa, 0, sizeof(*sa));
	sa->sin_family = AF_INET;
	sa->sin_port = htons(atoi(port));
	if (inet_pton(AF_INET, addr, &sa->sin_addr) != 1) {
		fprintf(stderr, "%s: bad address %s\n", BENCH_TOOL, addr);
		exit(2);
	}
}

#endif /* BENCH_UTIL_H */
