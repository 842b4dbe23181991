// SPDX-License-Identifier: GPL-2.0-only
/*
 * ccactl: cgroup v2 paths to ids and back (cgroup.h).
 *
 * The mount is the first cgroup2 line of /proc/self/mountinfo, so a tool
 * in a container sees its own cgroup namespace's paths. Ids back to paths:
 * one walk of the hierarchy, directories only, not crossing into other
 * mounts, remembered for the rest of the run (a dump of many rules or
 * sockets asks many times).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <ftw.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cgroup.h"

struct cgroup_entry {
	uint64_t id;
	char *path;
};

static struct {
	bool loaded;
	char mount[256];
	size_t mount_len;
	struct cgroup_entry *v;
	size_t n, cap;
} names;

/* The cgroup v2 mount point into names.mount; false if there is none. */
static bool cgroup_mount(void)
{
	char mnt[256], root[8], fstype[64];
	char *line = NULL;
	const char *sep;
	size_t cap = 0;
	FILE *f;

	if (names.mount[0])
		return true;
	f = fopen("/proc/self/mountinfo", "re");
	if (!f)
		return false;
	while (getline(&line, &cap, f) > 0) {
		/*
		 * ID PARENT MAJ:MIN ROOT MOUNTPOINT OPTS... - FSTYPE SOURCE ...
		 * The hierarchy's own root mounted (ROOT "/"), at a mount
		 * point without blanks (mountinfo writes them as \040).
		 */
		sep = strstr(line, " - ");
		if (!sep || sscanf(sep + 3, "%63s", fstype) != 1 ||
		    strcmp(fstype, "cgroup2") ||
		    sscanf(line, "%*s %*s %*s %7s %255s", root, mnt) != 2 ||
		    strcmp(root, "/") || strchr(mnt, '\\'))
			continue;
		snprintf(names.mount, sizeof(names.mount), "%s", mnt);
		names.mount_len = strlen(names.mount);
		break;
	}
	free(line);
	fclose(f);
	return names.mount[0] != '\0';
}

int cgroup_canon(const char *path, bool root_ok, char *canon, size_t len,
		 char *err, size_t errlen)
{
	const char *p = path, *c, *end;
	size_t n;

	while (*p == '/')
		p++;
	n = strlen(p);
	while (n && p[n - 1] == '/')
		n--;
	if (!n) {
		if (!root_ok) {
			snprintf(err, errlen,
				 "cgroup: the root is every socket's: leave the cgroup out");
			return -1;
		}
		snprintf(canon, len, "/");
		return 0;
	}
	if (n >= CGROUP_PATH_MAX || n >= len) {
		snprintf(err, errlen, "cgroup: path too long (at most %d characters)",
			 CGROUP_PATH_MAX - 1);
		return -1;
	}
	/* no "." or ".." components, no empty ones: one name per cgroup */
	for (c = p; c < p + n; c = end + 1) {
		end = memchr(c, '/', (size_t)(p + n - c));
		if (!end)
			end = p + n;
		if (end == c || (end - c == 1 && c[0] == '.') ||
		    (end - c == 2 && c[0] == '.' && c[1] == '.')) {
			snprintf(err, errlen,
				 "cgroup: \"%s\" is not a cgroup path (names separated by one '/')",
				 path);
			return -1;
		}
	}
	snprintf(canon, len, "%.*s", (int)n, p);
	return 0;
}

bool cgroup_lookup(const char *canon, uint64_t *id, const char **mount)
{
	char full[sizeof(names.mount) + CGROUP_PATH_MAX + 2];
	struct stat st;

	*mount = "/sys/fs/cgroup";
	if (!cgroup_mount())
		return false;
	*mount = names.mount;
	snprintf(full, sizeof(full), "%s/%s", names.mount,
		 strcmp(canon, "/") ? canon : "");
	if (stat(full, &st) || !S_ISDIR(st.st_mode))
		return false;
	*id = (uint64_t)st.st_ino;
	return true;
}

static int cgroup_walk_cb(const char *fpath, const struct stat *st, int type,
			  struct FTW *ftw)
{
	struct cgroup_entry *v;
	const char *rel;

	(void)ftw;
	if (type != FTW_D)
		return 0;
	if (names.n == names.cap) {
		size_t cap = names.cap ? 2 * names.cap : 256;

		v = realloc(names.v, cap * sizeof(*v));
		if (!v)
			return -1;
		names.v = v;
		names.cap = cap;
	}
	rel = fpath + names.mount_len;
	while (*rel == '/')
		rel++;
	names.v[names.n].id = (uint64_t)st->st_ino;
	names.v[names.n].path = strdup(*rel ? rel : "/");
	if (!names.v[names.n].path)
		return -1;
	names.n++;
	return 0;
}

const char *cgroup_name(uint64_t id)
{
	size_t i;

	if (!names.loaded) {
		names.loaded = true;
		if (cgroup_mount())
			nftw(names.mount, cgroup_walk_cb, 32, FTW_PHYS | FTW_MOUNT);
	}
	for (i = 0; i < names.n; i++)
		if (names.v[i].id == id)
			return names.v[i].path;
	return NULL;
}
