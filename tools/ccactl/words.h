/* SPDX-License-Identifier: GPL-2.0-only */
/* ccactl: words and values several objects share (words.c). */
#ifndef CCACTL_WORDS_H
#define CCACTL_WORDS_H

#include <linux/ccaas.h>

/* enum ccaas_locality, by value: "unknown", "rack", "dc", ... */
extern const char *const locality_names[CCAAS_LOCALITY_XREGION + 1];

/* enum ccaas_ecn_mode, by value: "off", "rfc3168", "accecn", "pending" */
extern const char *const ecn_mode_names[CCAAS_ECN_MODE_PENDING + 1];

/* A port number, 1 to 65535; -1 if @s is not one. */
int parse_port(const char *s);

#endif /* CCACTL_WORDS_H */
