/* SPDX-License-Identifier: GPL-2.0-only */
/* ccactl: the objects, one source file each; listed in main.c. */
#ifndef CCACTL_OBJECTS_H
#define CCACTL_OBJECTS_H

#include "ccactl.h"

extern const struct ccactl_object cca_object;	/* cca.c */

#endif /* CCACTL_OBJECTS_H */
