/* SPDX-License-Identifier: MIT */
/*
 * ctxalias.c — the other names users paste for an IOMMU's device contexts
 * (issue #39 item 5; docs/design.md §2.7 names them `IOMMU.BB:DD.F`,
 * `IOMMU.SSSS:BB:DD.F` off segment 0, `IOMMU.sidN`):
 *
 *   IOMMU.0000:00:03.0   lspci -D's form: the segment given where it is 0
 *   IOMMU.00:03.00       QEMU's trace form (hw/i386/trace-events print the
 *                        function as %02x), upper-case hex too
 *   IOMMU.sid=0x10       a StreamID as a number (decimal, or hex with 0x)
 *
 * each followed by whatever suffix the canonical name has (`.pasid5`,
 * `.ssid3`, `.s2`).  An alias only ever resolves to a context that exists
 * under its canonical name; the canonical name is never shadowed (it is
 * looked up first, by pt_capture_context_find()).
 */
#include <ctype.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "capture_int.h"
#include "pt_num.h"

/* N hex digits at *P (any case), advanced past them; false if fewer. */
static bool hexn(const char **p, unsigned n, unsigned *v)
{
	*v = 0;
	for (unsigned i = 0; i < n; i++) {
		int c = (unsigned char)(*p)[i];

		if (!isxdigit(c))
			return false;
		*v = *v << 4 | (unsigned)(isdigit(c) ? c - '0' : tolower(c) - 'a' + 10);
	}
	*p += n;
	return true;
}

/* "[SSSS:]BB:DD.F" with F one or two hex digits at S: its parts and where it ends. */
static bool parse_bdf(const char *s, int *seg, unsigned *bus, unsigned *dev, unsigned *fn,
		      const char **end)
{
	const char *p = s;
	unsigned v;

	*seg = -1;
	if (strlen(s) > 4 && s[4] == ':') {
		if (!hexn(&p, 4, &v) || *p++ != ':')
			return false;
		*seg = (int)v;
	}
	if (!hexn(&p, 2, bus) || *p++ != ':' || !hexn(&p, 2, dev) || *p++ != '.' || !hexn(&p, 1, fn))
		return false;
	if (isxdigit((unsigned char)*p)) {   /* QEMU's %02x function */
		if (!hexn(&p, 1, &v))
			return false;
		*fn = *fn << 4 | v;
	}
	if (*dev > 31 || *fn > 7)
		return false;
	*end = p;
	return true;
}

/* The canonical name of NAME's device part REST under [iommu IO] into OUT; false if none. */
static bool canonical(const struct pt_manifest_iommu *io, const char *rest, char *out, size_t len)
{
	unsigned bus, dev, fn, segment = (unsigned)io->v[PT_IK_SEGMENT];
	const char *end;
	int seg;

	if (!strncmp(rest, "sid=", 4)) {
		char num[32];
		uint64_t sid;
		size_t n = strcspn(rest + 4, ".");

		if (n == 0 || n >= sizeof num)
			return false;
		memcpy(num, rest + 4, n);
		num[n] = 0;
		if (!pt_num_parse(num, PT_NUM_RULE, &sid))
			return false;
		return snprintf(out, len, "%s.sid%" PRIu64 "%s", io->name, sid, rest + 4 + n) <
		       (int)len;
	}
	if (!parse_bdf(rest, &seg, &bus, &dev, &fn, &end) || (*end && *end != '.'))
		return false;
	if (seg >= 0 && (unsigned)seg != segment)
		return false;
	if (segment)
		return snprintf(out, len, "%s.%04x:%02x:%02x.%x%s", io->name, segment, bus, dev, fn,
				end) < (int)len;
	return snprintf(out, len, "%s.%02x:%02x.%x%s", io->name, bus, dev, fn, end) < (int)len;
}

const struct pt_context *pt_capture_context_alias(const struct pt_capture *cap, const char *name)
{
	char canon[PT_INI_MAX_NAME + 64];

	if (!cap || !cap->man || !name)
		return NULL;
	for (size_t i = 0; i < cap->man->niommu; i++) {
		const struct pt_manifest_iommu *io = &cap->man->iommu[i];
		size_t n = strlen(io->name);
		const struct pt_context *ctx;

		if (strncmp(name, io->name, n) || name[n] != '.' ||
		    !canonical(io, name + n + 1, canon, sizeof canon) || !strcmp(canon, name))
			continue;
		if ((ctx = pt_capture_context_find(cap, canon)))
			return ctx;
	}
	return NULL;
}
