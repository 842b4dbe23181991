// SPDX-License-Identifier: GPL-2.0
/*
 * conntool: TCP connections for the ccaas benchmarks (IPv4).
 *
 *   conntool server ADDR PORT rst|hold
 *	Accept forever. rst: close each connection at once with a reset
 *	(SO_LINGER 0), so that no TIME_WAIT state builds up. hold: send one
 *	byte on it and keep it open.
 *   conntool loop ADDR PORT N
 *	N times: connect, wait for the server's reset, close. Prints
 *	"N NANOSECONDS" (CLOCK_MONOTONIC over the whole loop).
 *   conntool hold ADDR PORT N READY
 *	Open N connections, each after the server's byte for the one before
 *	(so the accept queue never overflows), create the file READY and
 *	sleep until killed.
 *
 * Waiting for the server on every connection keeps client and server in
 * step on a single CPU: no SYN is dropped and retransmitted a second later.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

static void die(const char *what)
{
	perror(what);
	exit(1);
}

static struct sockaddr_in parse_addr(const char *addr, const char *port)
{
	struct sockaddr_in sa = { .sin_family = AF_INET };

	if (inet_pton(AF_INET, addr, &sa.sin_addr) != 1) {
		fprintf(stderr, "conntool: not an IPv4 address: %s\n", addr);
		exit(2);
	}
	sa.sin_port = htons(atoi(port));
	return sa;
}

static void server(struct sockaddr_in sa, int hold)
{
	struct linger lg = { .l_onoff = 1, .l_linger = 0 };
	int one = 1, ls, c;

	ls = socket(AF_INET, SOCK_STREAM, 0);
	if (ls < 0)
		die("socket");
	setsockopt(ls, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	if (bind(ls, (struct sockaddr *)&sa, sizeof(sa)) < 0)
		die("bind");
	if (listen(ls, 4096) < 0)
		die("listen");
	for (;;) {
		c = accept(ls, NULL, NULL);
		if (c < 0) {
			if (errno == EINTR || errno == ECONNABORTED)
				continue;
			die("accept");
		}
		if (hold) {
			if (write(c, "x", 1) != 1)
				die("write");
			continue;
		}
		setsockopt(c, SOL_SOCKET, SO_LINGER, &lg, sizeof(lg));
		close(c);
	}
}

/* A connected socket; the server's byte (hold) or reset (rst) awaited. */
static int connect_one(const struct sockaddr_in *sa)
{
	char b;
	int s;

	s = socket(AF_INET, SOCK_STREAM, 0);
	if (s < 0)
		die("socket");
	if (connect(s, (const struct sockaddr *)sa, sizeof(*sa)) < 0) {
		/* established, then the server's reset came before we ran */
		if (errno == ECONNRESET)
			return s;
		die("connect");
	}
	/* 1 byte (hold), or 0 / ECONNRESET (rst): the server is done with it */
	if (read(s, &b, 1) < 0 && errno != ECONNRESET)
		die("read");
	return s;
}

static long long now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

int main(int argc, char **argv)
{
	struct sockaddr_in sa;
	long long t0, t1;
	long i, n;

	if (argc < 5)
		goto usage;
	sa = parse_addr(argv[2], argv[3]);
	if (!strcmp(argv[1], "server")) {
		server(sa, !strcmp(argv[4], "hold"));
	} else if (!strcmp(argv[1], "loop")) {
		n = atol(argv[4]);
		t0 = now_ns();
		for (i = 0; i < n; i++)
			close(connect_one(&sa));
		t1 = now_ns();
		printf("%ld %lld\n", n, t1 - t0);
		return 0;
	} else if (!strcmp(argv[1], "hold") && argc == 6) {
		n = atol(argv[4]);
		for (i = 0; i < n; i++)
			connect_one(&sa);
		close(open(argv[5], O_WRONLY | O_CREAT, 0644));
		for (;;)
			pause();
	}
usage:
	fprintf(stderr, "usage: conntool server ADDR PORT rst|hold\n"
		"       conntool loop ADDR PORT N\n"
		"       conntool hold ADDR PORT N READY\n");
	return 2;
}
