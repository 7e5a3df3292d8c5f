/* SPDX-License-Identifier: MIT */
/*
 * mountpoint.c — the mount point checked before libfuse sees it, each
 * problem one `ptfs: E_USAGE:` line: missing, not a directory (the capture
 * and the mount point swapped), a dead FUSE mount, already a mount point
 * (/proc/self/mountinfo, its octal escapes undone), or not empty (a
 * warning); and the escaping of untrusted names main.c shares.
 */
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statvfs.h>

#include "ptfs.h"

/* S escaped as the core shows untrusted names (pt_text_escape); free() it. */
char *ptfs_escaped(const char *s)
{
	size_t n = strlen(s) * 4 + 1;
	char *e = malloc(n);

	if (e)
		pt_text_escape(e, n, s);
	return e;
}

/* Undoes mountinfo's octal escapes (\040 for a blank) of field F in place. */
static void mountinfo_unescape(char *f)
{
	char *o = f;

	for (; *f; f++) {
		if (f[0] == '\\' && f[1] >= '0' && f[1] <= '3' && f[2] >= '0' && f[2] <= '7' &&
		    f[3] >= '0' && f[3] <= '7') {
			*o++ = (char)((f[1] - '0') << 6 | (f[2] - '0') << 3 | (f[3] - '0'));
			f += 3;
		} else {
			*o++ = *f;
		}
	}
	*o = 0;
}

/*
 * The mount on top of directory DIR (a canonical path) in /proc/self/mountinfo:
 * its source and type into SRC and TYPE.  False when DIR is no mount point.
 */
static bool mount_at(const char *dir, char *src, size_t srclen, char *type, size_t typelen)
{
	FILE *f = fopen("/proc/self/mountinfo", "re");
	char *line = NULL;
	size_t cap = 0;
	bool found = false;

	if (!f)
		return false;
	/* the last line for DIR is the mount on top: later mounts stack over earlier ones */
	while (getline(&line, &cap, f) > 0) {
		char *save = NULL, *fld[5], *t, *dash;
		int n = 0;

		dash = strstr(line, " - ");
		if (!dash)
			continue;
		*dash = 0;
		for (t = strtok_r(line, " ", &save); t && n < 5; t = strtok_r(NULL, " ", &save))
			fld[n++] = t;
		if (n < 5)
			continue;
		mountinfo_unescape(fld[4]);
		if (strcmp(fld[4], dir) != 0)
			continue;
		save = NULL;
		t = strtok_r(dash + 3, " \n", &save);
		snprintf(type, typelen, "%s", t ? t : "?");
		t = strtok_r(NULL, " \n", &save);
		if (t)
			mountinfo_unescape(t);
		snprintf(src, srclen, "%s", t ? t : "?");
		found = true;
	}
	free(line);
	fclose(f);
	return found;
}

/* PATH is a directory (stat() follows links). */
static bool is_dir(const char *path)
{
	struct stat st;

	return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

/* True when DIR holds anything besides . and .. (unreadable: false, libfuse decides). */
static bool dir_has_files(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *de;
	bool any = false;

	if (!d)
		return false;
	while (!any && (de = readdir(d)))
		any = strcmp(de->d_name, ".") != 0 && strcmp(de->d_name, "..") != 0;
	closedir(d);
	return any;
}

/*
 * Says what is wrong with the mount point in our one-line form, before
 * libfuse does: missing, not a directory, a dead FUSE mount (a ptfs that was
 * killed), or already a mount point (a second mount would silently hide the
 * first).  True when MNT may be mounted on.
 */
bool ptfs_mountpoint_ok(const char *mnt, const char *capture)
{
	char *shown = ptfs_escaped(mnt);
	const char *m = shown ? shown : "?";
	char real[PATH_MAX], src[PATH_MAX], type[64];
	struct stat st;
	struct statvfs sv;
	int e = stat(mnt, &st) != 0 ? errno : 0;
	bool ok = false;

	/* stat() may answer from the attribute cache of a dead mount; statfs always asks */
	if (!e && statvfs(mnt, &sv) != 0 && errno == ENOTCONN)
		e = ENOTCONN;

	if (e == ENOTCONN)
		fprintf(stderr, "ptfs: E_USAGE: mount point '%s': a dead FUSE mount (its daemon is "
			"gone); run 'fusermount3 -u %s' first\n", m, m);
	else if (e)
		fprintf(stderr, "ptfs: E_USAGE: mount point '%s': %s\n", m, strerror(e));
	else if (!S_ISDIR(st.st_mode) && S_ISREG(st.st_mode) && capture && is_dir(capture))
		/* `ptfs MNT CAPTURE`: the usual slip, said as such (issue #25 item 7) */
		fprintf(stderr, "ptfs: E_USAGE: mount point '%s' is a file and the capture a directory: "
			"the arguments are swapped? (usage: ptfs CAPTURE MOUNTPOINT)\n", m);
	else if (!S_ISDIR(st.st_mode))
		fprintf(stderr, "ptfs: E_USAGE: mount point '%s': %s\n", m, strerror(ENOTDIR));
	else if (realpath(mnt, real) && mount_at(real, src, sizeof src, type, sizeof type)) {
		char *esrc = ptfs_escaped(src), *etype = ptfs_escaped(type);

		fprintf(stderr, "ptfs: E_USAGE: mount point '%s' already has a mount (%s, type %s) on it; "
			"unmount it first\n", m, esrc ? esrc : "?", etype ? etype : "?");
		free(esrc);
		free(etype);
	} else {
		ok = true;
		/* allowed (as mount(8) allows it), but what is there is hidden until unmount */
		if (dir_has_files(mnt))
			fprintf(stderr, "ptfs: warning: mount point '%s' is not empty: its files are "
				"hidden while the capture is mounted\n", m);
	}
	free(shown);
	return ok;
}
