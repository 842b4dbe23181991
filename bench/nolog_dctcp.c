// SPDX-License-Identifier: GPL-2.0
/*
 * cca_dctcp without ccalog, for the benchmark only (part "ccalog"): the
 * same source built with CCAAS_NO_CCALOG (no logged-bit test, no calls, no
 * notes only ccalog reads) and registered as cca_dctcp0, so that both load
 * and are measured side by side.
 */
#define CCAAS_NO_CCALOG
#define CCA_DCTCP_NAME	"cca_dctcp0"

#include <kmod/cca/dctcp.c>
