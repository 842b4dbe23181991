// SPDX-License-Identifier: GPL-2.0-only
/* ccactl: the version string, set by the Makefile's VERSION variable. */
#include "ccactl.h"

#ifndef CCACTL_VERSION
#define CCACTL_VERSION "0.1.0"
#endif

const char ccactl_version[] = CCACTL_VERSION;
