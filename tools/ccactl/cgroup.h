/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * ccactl: cgroup v2 paths and ids. A rule's `cgroup PATH` is a path below
 * the cgroup v2 mount (as /proc/self/mountinfo has it), such as
 * "system.slice/storage.service"; the kernel keeps the path and the id of
 * the cgroup there, which is the inode number of its directory.
 */
#ifndef CCACTL_CGROUP_H
#define CCACTL_CGROUP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Longest cgroup path a rule takes, with its NUL (the kernel's bound). */
#define CGROUP_PATH_MAX		256

/*
 * @path as ccactl prints it and the kernel takes it: no leading or trailing
 * '/', names separated by single '/', no "." or "..". The root ("/", "")
 * only if @root_ok, as "/". 0, or -1 with a message in @err.
 */
int cgroup_canon(const char *path, bool root_ok, char *canon, size_t len,
		 char *err, size_t errlen);

/*
 * The id of the cgroup at @canon (a path cgroup_canon() made), and where
 * the hierarchy is mounted (for messages): false if there is no cgroup at
 * @canon, or no cgroup v2 mount.
 */
bool cgroup_lookup(const char *canon, uint64_t *id, const char **mount);

/*
 * The path of cgroup @id as ccactl prints it, or NULL when no cgroup has
 * that id (it was removed) or there is no cgroup v2 mount. The first call
 * reads the whole hierarchy once; later calls look it up.
 */
const char *cgroup_name(uint64_t id);

#endif
