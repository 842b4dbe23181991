// SPDX-License-Identifier: GPL-2.0
/* cca_xregion without ccalog, as cca_xregion0: see nolog_dctcp.c. */
#define CCAAS_NO_CCALOG
#define CCA_XREGION_NAME		"cca_xregion0"
#define CCA_XREGION_FALLBACK_NAME	"cca_xregion0-ne"

#include <kmod/cca/xregion.c>
