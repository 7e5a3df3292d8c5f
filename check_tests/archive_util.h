/*
 * archive_util: captures written at test time, shared by test_capture and
 * test_hostile.  Archives go through libarchive's write API; a directory
 * capture is plain files.  Every helper asserts its own success (Check),
 * so a test that cannot even build its input fails where it says why.
 */
#ifndef ARCHIVE_UTIL_H
#define ARCHIVE_UTIL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct pt_capture;

/* One member of a capture. */
struct mspec {
	const char *name;
	char type;            /* f file, d dir, l symlink, h hard link, c/b device, p FIFO */
	const void *data;     /* f: LEN bytes; NULL: ZEROS zero bytes */
	size_t len;
	uint64_t zeros;
	const char *target;   /* l, h */
};

/* capture.ini with the text of the string literal S; a file NAME holding the array D. */
#define INI(s) {"capture.ini", 'f', (s), sizeof(s) - 1, 0, NULL}
#define BLOB(n, d) {(n), 'f', (d), sizeof(d), 0, NULL}

enum au_format { AU_PAX, AU_USTAR, AU_ZIP };   /* ustar stores name bytes as they are */
enum au_filter { AU_NONE, AU_GZ, AU_XZ, AU_ZST };
extern const char *const au_filter_ext[];      /* "tar", "tar.gz", "tar.xz", "tar.zst" */

/* Writes the N members of M as an archive at PATH (a zip takes no filter). */
void au_write(const char *path, enum au_format fmt, enum au_filter f, const struct mspec *m, size_t n);
/* Writes the N members of M as files under the existing directory DIR. */
void au_write_dir(const char *dir, const struct mspec *m, size_t n);
/* LEN bytes compressed with F and no archive around them (libarchive's raw format). */
void au_compress_raw(const char *path, enum au_filter f, const void *data, size_t len);

/* The whole file at PATH (free it); its size in *LEN. */
void *au_slurp(const char *path, size_t *len);
/* Writes PATH with exactly LEN bytes of DATA. */
void au_spit(const char *path, const void *data, size_t len);
/* The peak resident size of this process so far, in KiB. */
long au_maxrss_kib(void);
/*
 * What a sanitizer adds to a peak RSS measured around a load, in KiB, on top
 * of what the code holds: ASan's shadow (one byte per eight touched), the
 * redzones round every block, and its quarantine, which keeps freed blocks
 * resident (256 MiB by default).  0 in a plain build.  A memory budget test
 * allows this much more so that it checks the code, not the sanitizer
 * (CI's ASan run measured +102 MiB where the plain build holds +70).
 */
#if defined(__SANITIZE_ADDRESS__)
#define AU_SANITIZER_RSS_KIB (64L * 1024)
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define AU_SANITIZER_RSS_KIB (64L * 1024)
#endif
#endif
#ifndef AU_SANITIZER_RSS_KIB
#define AU_SANITIZER_RSS_KIB 0L
#endif
/* Does CAP have a warning containing NEEDLE? */
bool au_warned(const struct pt_capture *cap, const char *needle);

#endif
