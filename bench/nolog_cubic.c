// SPDX-License-Identifier: GPL-2.0
/* cca_cubic without ccalog, as cca_cubic0: see nolog_dctcp.c. */
#define CCAAS_NO_CCALOG
#define CCA_CUBIC_NAME	"cca_cubic0"

#include <kmod/cca/cubic.c>
