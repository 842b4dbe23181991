/* SPDX-License-Identifier: GPL-2.0-only */
/* ccactl: the objects, one source file each; listed in main.c. */
#ifndef CCACTL_OBJECTS_H
#define CCACTL_OBJECTS_H

#include "ccactl.h"

extern const struct ccactl_object cca_object;	/* cca.c */
extern const struct ccactl_object scope_object;	/* scope.c */
extern const struct ccactl_object policy_object;	/* policy.c */
extern const struct ccactl_object migrate_object;	/* migrate.c */
extern const struct ccactl_object sock_object;	/* sock.c */
extern const struct ccactl_object log_object;	/* log.c */
extern const struct ccactl_object monitor_object;	/* monitor.c */

#endif /* CCACTL_OBJECTS_H */
