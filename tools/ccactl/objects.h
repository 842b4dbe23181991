/* SPDX-License-Identifier: GPL-2.0-only */
/* ccactl: the objects, one source file each; listed in main.c. */
#ifndef CCACTL_OBJECTS_H
#define CCACTL_OBJECTS_H

#include <stddef.h>
#include <stdint.h>

#include "ccactl.h"

extern const struct ccactl_object cca_object;	/* cca.c */
extern const struct ccactl_object scope_object;	/* scope.c */
extern const struct ccactl_object policy_object;	/* policy.c */
extern const struct ccactl_object migrate_object;	/* migrate.c */
extern const struct ccactl_object sock_object;	/* sock.c */
extern const struct ccactl_object log_object;	/* log.c */
extern const struct ccactl_object monitor_object;	/* monitor.c */
extern const struct ccactl_object stats_object;	/* stats.c */

/* policy.c, for stats.c: the rules' matches of a generation, as text */
int policy_matches(uint32_t gen, char ***texts, size_t *n);
int policy_matches_of(bool has_gen, uint32_t *gen, char ***texts, size_t *n);
void policy_matches_free(char **texts, size_t n);

#endif /* CCACTL_OBJECTS_H */
