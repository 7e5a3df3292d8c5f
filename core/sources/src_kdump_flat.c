/* SPDX-License-Identifier: MIT */
/*
 * src_kdump_flat.c — makedumpfile's flattened format read as it is
 * (docs/design.md §3.2, issue #34 item 11): what QEMU before 8.2 writes
 * for dump-guest-memory -z|-l|-s (Debian 12's QEMU 7.2), and makedumpfile
 * -F.  libkdumpfile 0.5.1 reads only the seekable layout, so the stream's
 * records are written back to their offsets in an unlinked temporary file
 * (sparse: holes cost nothing), which libkdumpfile then opens: the
 * compressed data once, on disk, never in memory — what `makedumpfile -R`
 * does, without a second tool.
 *
 * Layout (makedumpfile.h struct makedumpfile_header and
 * makedumpfile_data_header; QEMU include/sysemu/dump.h MAKEDUMPFILE_SIGNATURE,
 * MAX_SIZE_MDF_HEADER, TYPE_FLAT_HEADER, VERSION_FLAT_HEADER,
 * END_FLAG_FLAT_HEADER; dump/dump.c write_start_flat_header,
 * write_buffer): a 4096-byte header (signature "makedumpfile" in 16
 * bytes, type 1 and version 1 as big-endian 64-bit numbers), then records
 * of {offset, size} (big-endian signed 64-bit) followed by SIZE bytes to
 * be written at OFFSET, ended by a record whose offset is -1.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "pt_src_kdump.h"

#define FLAT_HEADER 4096u
#define COPY_CHUNK (1u << 20)
#define FLAT_SLACK (UINT64_C(16) << 20)   /* holes a reassembled file may have beyond twice its stream */

static uint64_t be64(const uint8_t *p)
{
	uint64_t v = 0;

	for (unsigned i = 0; i < 8; i++)
		v = v << 8 | p[i];
	return v;
}

/*
 * An unlinked file for the reassembled dump in DIR: O_TMPFILE where the
 * file system has it, else a name removed at once.  -1 with errno.
 */
static int tmp_file(const char *dir)
{
	char path[4200];
	int fd;

#ifdef O_TMPFILE
	fd = open(dir, O_TMPFILE | O_RDWR | O_CLOEXEC, 0600);
	if (fd >= 0)
		return fd;
#endif
	if (snprintf(path, sizeof path, "%s/ptfs-kdump-XXXXXX", dir) >= (int)sizeof path) {
		errno = ENAMETOOLONG;
		return -1;
	}
	fd = mkostemp(path, O_CLOEXEC);
	if (fd >= 0)
		unlink(path);
	return fd;
}

/* Copies LEN bytes of IN at FROM to OUT at TO through BUF (COPY_CHUNK bytes). */
static bool copy(int in, uint64_t from, int out, uint64_t to, uint64_t len, uint8_t *buf)
{
	while (len) {
		size_t n = len < COPY_CHUNK ? (size_t)len : COPY_CHUNK;
		ssize_t got = pread(in, buf, n, (off_t)from);

		if (got <= 0 || pwrite(out, buf, (size_t)got, (off_t)to) != got)
			return false;
		from += (uint64_t)got;
		to += (uint64_t)got;
		len -= (uint64_t)got;
	}
	return true;
}

/* The records of FD (SIZE bytes) written to OUT; *END the reassembled size. */
static pt_err records(int fd, uint64_t size, int out, const char *label, uint64_t *end, char *err,
		      size_t errlen)
{
	uint8_t *buf = malloc(COPY_CHUNK), h[16];
	uint64_t at = FLAT_HEADER, n = 0, limit = 2 * size + FLAT_SLACK;
	pt_err rc = PT_OK;

	if (!buf)
		return pt_err_fmt(err, errlen, PT_E_NOMEM, "%s: out of memory", label);
	*end = 0;
	for (;; n++) {
		uint64_t off, len;

		if (size - at < sizeof h || pread(fd, h, sizeof h, (off_t)at) != (ssize_t)sizeof h) {
			rc = pt_err_fmt(err, errlen, PT_E_CAPTURE, "%s: the flattened kdump stream stops at 0x%" PRIx64
				  " after %" PRIu64 " records, without its end record (a dump cut short?)",
				  label, at, n);
			break;
		}
		off = be64(h);
		len = be64(h + 8);
		if (off == UINT64_MAX)   /* END_FLAG_FLAT_HEADER: the offset decides, as in makedumpfile -R */
			break;
		/* offsets and sizes are signed (int64_t): each must be >= 0 */
		if (off >> 63 || len >> 63 || len > size - at - sizeof h) {
			rc = pt_err_fmt(err, errlen, PT_E_CAPTURE, "%s: flattened kdump record %" PRIu64 " at 0x%"
				  PRIx64 " (0x%" PRIx64 " bytes for offset 0x%" PRIx64 ") runs past the end of the "
				  "file (0x%" PRIx64 " bytes)", label, n, at, len, off, size);
			break;
		}
		/*
		 * makedumpfile and QEMU write the seekable file's bytes once, with
		 * holes only in the unused tail of a header block (QEMU writes an
		 * arm64 guest in 64 KiB blocks: its -R file is larger than the
		 * stream): a record past twice the stream and 16 MiB is a lie that
		 * would only make a sparse file of any size.
		 */
		if (off > limit || len > limit - off) {
			rc = pt_err_fmt(err, errlen, PT_E_CAPTURE, "%s: flattened kdump record %" PRIu64 " at 0x%"
				  PRIx64 " writes 0x%" PRIx64 " bytes at 0x%" PRIx64 ", past the 0x%" PRIx64
				  " bytes a stream of 0x%" PRIx64 " bytes can fill", label, n, at, len, off, limit,
				  size);
			break;
		}
		if (len && !copy(fd, at + sizeof h, out, off, len, buf)) {
			rc = pt_err_fmt(err, errlen, PT_E_IO, "%s: cannot reassemble the flattened kdump file "
				  "(record %" PRIu64 "): %s", label, n, strerror(errno ? errno : EIO));
			break;
		}
		if (off + len > *end)
			*end = off + len;
		at += sizeof h + len;
	}
	free(buf);
	return rc;
}

pt_err pt_kdump_unflatten(int fd, const char *label, const char *dir, int *out, uint64_t *size,
			  char *err, size_t errlen)
{
	uint8_t h[32], sig[16];
	struct stat st;
	uint64_t end = 0;
	pt_err rc;
	int t;

	*out = -1;
	*size = 0;
	if (fstat(fd, &st) || pread(fd, h, sizeof h, 0) != (ssize_t)sizeof h ||
	    pt_kdump_detect(h, sizeof h) != PT_KDUMP_FLAT || (uint64_t)st.st_size < FLAT_HEADER)
		return pt_err_fmt(err, errlen, PT_E_CAPTURE, "%s: not a flattened kdump file (a %u-byte "
			    "makedumpfile header)", label, FLAT_HEADER);
	if (be64(h + 16) != 1 || be64(h + 24) != 1)
		return pt_err_fmt(err, errlen, PT_E_UNSUPPORTED, "%s: a flattened kdump file of type %" PRIu64
			    ", version %" PRIu64 " (this ptfs reads type 1, version 1)", label, be64(h + 16),
			    be64(h + 24));
	t = tmp_file(dir);
	if (t < 0)
		return pt_err_fmt(err, errlen, PT_E_IO, "%s: a flattened kdump file, and no temporary file in %s to "
			    "reassemble it: %s ('makedumpfile -R %s.raw < %s' rewrites it as a plain kdump "
			    "file)", label, dir, strerror(errno), label, label);
	rc = records(fd, (uint64_t)st.st_size, t, label, &end, err, errlen);
	if (rc == PT_OK && (pread(t, sig, sizeof sig, 0) != (ssize_t)sizeof sig ||
			    pt_kdump_detect(sig, sizeof sig) != PT_KDUMP_RAW))
		rc = pt_err_fmt(err, errlen, PT_E_CAPTURE, "%s: the flattened kdump file reassembles into no kdump "
			  "file (it must start with \"KDUMP   \" at offset 0)", label);
	if (rc) {
		close(t);
		return rc;
	}
	*out = t;
	*size = end;
	return PT_OK;
}
