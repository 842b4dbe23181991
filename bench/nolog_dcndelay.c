// SPDX-License-Identifier: GPL-2.0
/* cca_dcndelay without ccalog, as cca_dcndelay0: see nolog_dctcp.c. */
#define CCAAS_NO_CCALOG
#define CCA_DCN_NAME		"cca_dcndelay0"
#define CCA_DCN_FALLBACK_NAME	"cca_dcndel0-ne"	/* TCP_CA_NAME_MAX */

#include <kmod/cca/dcndelay.c>
