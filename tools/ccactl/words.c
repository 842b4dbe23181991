// SPDX-License-Identifier: GPL-2.0-only
/* ccactl: words and values several objects share. */
#include <errno.h>
#include <stdlib.h>

#include "words.h"

const char *const locality_names[CCAAS_LOCALITY_XREGION + 1] = {
	[CCAAS_LOCALITY_UNKNOWN]	= "unknown",
	[CCAAS_LOCALITY_RACK]		= "rack",
	[CCAAS_LOCALITY_DC]		= "dc",
	[CCAAS_LOCALITY_REGION]		= "region",
	[CCAAS_LOCALITY_XREGION]	= "xregion",
};

const char *const ecn_mode_names[CCAAS_ECN_MODE_PENDING + 1] = {
	[CCAAS_ECN_MODE_OFF]		= "off",
	[CCAAS_ECN_MODE_RFC3168]	= "rfc3168",
	[CCAAS_ECN_MODE_ACCECN]		= "accecn",
	[CCAAS_ECN_MODE_PENDING]	= "pending",
};

int parse_port(const char *s)
{
	unsigned long v;
	char *end;

	if (*s < '0' || *s > '9')
		return -1;
	errno = 0;
	v = strtoul(s, &end, 10);
	if (errno || *end || v < 1 || v > 65535)
		return -1;
	return (int)v;
}
