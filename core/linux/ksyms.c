/* SPDX-License-Identifier: MIT */
/*
 * ksyms.c — kernel virtual addresses, VMCOREINFO and kallsyms (docs/design.md
 * §3.3).
 *
 * Since Linux 6.0 VMCOREINFO names the kallsyms tables (kernel/crash_core.c
 * crash_save_vmcoreinfo_init(), SYMBOL(kallsyms_names) and the rest, under
 * CONFIG_KALLSYMS): with them a dump alone gives init_task,
 * __per_cpu_offset and __start_BTF, no System.map and no debug info.  The
 * tables' layout is scripts/kallsyms.c's: a token table of 256
 * NUL-terminated strings indexed by u16 offsets, each name a length (one
 * byte, or two when bit 7 is set: 6.1 write_src()) then that many token
 * numbers, whose expansion starts with the nm type letter; and an s32
 * offset per symbol, decoded as kernel/kallsyms.c kallsyms_sym_address()
 * of that version does.
 */
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "linux_int.h"
#include "pt_vec.h"
#include "pt_walk.h"

const char *const pt_ksym_names[PT_KS__COUNT] = {
	"init_task", "__per_cpu_offset", "__start_BTF", "__stop_BTF", "current_task", "pcpu_hot",
	"pci_root_buses",
};

/* ---- kernel VAs ---- */

void pt_kmem_init(struct pt_kmem *k, const struct pt_context *ctx)
{
	memset(k, 0, sizeof *k);
	k->ctx = ctx;
	k->page_va = UINT64_MAX;
}

/* A bound on walks: a hostile list or table cannot make the load walk forever. */
#define KMEM_MAX_WALKS (1u << 24)

bool pt_kmem_pa(struct pt_kmem *k, uint64_t va, uint64_t *pa, unsigned *space)
{
	struct pt_walk w;

	if ((va & ~0xfffull) == k->page_va) {
		*pa = k->page_pa + (va & 0xfff);
		*space = k->space;
		return true;
	}
	if (!k->ctx || k->reads >= KMEM_MAX_WALKS)
		return false;
	k->reads++;
	if (pt_walk_va(k->ctx, va, &w) || w.fault != PT_FAULT_NONE || w.translated)
		return false;
	k->page_va = va & ~0xfffull;
	k->page_pa = w.pa - (va & 0xfff);
	k->space = w.space;
	*pa = w.pa;
	*space = w.space;
	return true;
}

bool pt_kmem_read(struct pt_kmem *k, uint64_t va, void *buf, size_t len)
{
	uint8_t *o = buf;

	while (len) {
		size_t n = 4096 - (size_t)(va & 0xfff);
		uint64_t pa;
		unsigned sp;

		n = n < len ? n : len;
		if (!pt_kmem_pa(k, va, &pa, &sp) || !pt_mem_read(k->ctx->mem, sp, pa, o, n))
			return false;
		o += n;
		va += n;
		len -= n;
	}
	return true;
}

bool pt_kmem_u64(struct pt_kmem *k, uint64_t va, uint64_t *v)
{
	uint8_t b[8];

	if (!pt_kmem_read(k, va, b, 8))
		return false;
	*v = 0;
	for (int i = 7; i >= 0; i--)
		*v = *v << 8 | b[i];
	return true;
}

/* ---- where the scans look ---- */

static size_t sysmem_ranges(const struct pt_capture *cap, unsigned space, struct pt_pa_range **out)
{
	size_t n = 0, nr = pt_capture_region_count(cap);
	struct pt_pa_range *r = calloc(nr ? nr : 1, sizeof *r);

	for (size_t i = 0; r && i < nr; i++) {
		const struct pt_region_info *ri = pt_capture_region(cap, i);

		if (ri->space == space && ri->size) {
			r[n].base = ri->base;
			r[n++].size = ri->size;
		}
	}
	*out = r;
	return r ? n : 0;
}

static int cmp_range(const void *a, const void *b)
{
	const struct pt_pa_range *x = a, *y = b;

	return x->base < y->base ? -1 : x->base > y->base;
}

/*
 * R's N ranges clipped to what the kernel context KC maps of SPACE (its
 * direct or linear map holds all RAM: Linux x86 and arm64 alike), where
 * the scans for BTF and init_task look: a kdump's region runs from 0, and
 * an arm64 guest's RAM starts at 1 GiB on QEMU's virt, a hole whose pages
 * all fail to read.  R as it was when KC maps none.  The count, or N.
 */
static size_t kernel_clip(const struct pt_context *kc, unsigned space, struct pt_pa_range **r, size_t n)
{
	struct pt_page_iter *it = malloc(sizeof *it);
	struct pt_pa_range *m = NULL, *out;
	size_t nm = 0, cap = 0, no = 0, k = 0;
	struct pt_page pg;

	if (!it)
		return n;
	pt_pages_init(it, kc, 0, NULL);
	it->flags = PT_DECODE_SUMMARY;
	while (pt_pages_next(it, &pg)) {
		if (pg.space != space)
			continue;
		if (nm && m[nm - 1].base + m[nm - 1].size == pg.pa) {
			m[nm - 1].size += pg.size;
		} else if (pt_vec_reserve(&m, &cap, nm + 1, sizeof *m)) {
			m[nm].base = pg.pa;
			m[nm++].size = pg.size;
		}
	}
	free(it);
	qsort(m, nm, sizeof *m, cmp_range);
	for (size_t i = 0; i < nm; i++) {
		if (k && m[i].base <= m[k - 1].base + m[k - 1].size) {
			uint64_t end = m[i].base + m[i].size;

			if (end > m[k - 1].base + m[k - 1].size)
				m[k - 1].size = end - m[k - 1].base;
		} else {
			m[k++] = m[i];
		}
	}
	out = k ? calloc(n * k, sizeof *out) : NULL;
	for (size_t i = 0; out && i < n; i++)
		for (size_t j = 0; j < k; j++) {
			uint64_t lo = (*r)[i].base > m[j].base ? (*r)[i].base : m[j].base;
			uint64_t a = (*r)[i].base + (*r)[i].size, b = m[j].base + m[j].size, hi = a < b ? a : b;

			if (lo < hi) {
				out[no].base = lo;
				out[no++].size = hi - lo;
			}
		}
	free(m);
	if (!out || !no) {
		free(out);
		return n;
	}
	free(*r);
	*r = out;
	return no;
}

size_t pt_kernel_ranges(const struct pt_capture *cap, const struct pt_context *kc, unsigned space,
			struct pt_pa_range **out)
{
	size_t n = sysmem_ranges(cap, space, out);

	return *out ? kernel_clip(kc, space, out, n) : 0;
}

/* ---- VMCOREINFO ---- */

bool pt_vi_get(const char *vi, size_t len, const char *key, char *out, size_t outlen)
{
	size_t kl = strlen(key);

	for (const char *p = vi, *end = vi + len; p && p < end;) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		size_t n = nl ? (size_t)(nl - p) : (size_t)(end - p);

		if (n > kl && !memcmp(p, key, kl) && p[kl] == '=') {
			size_t v = n - kl - 1;

			if (v >= outlen)
				return false;
			memcpy(out, p + kl + 1, v);
			out[v] = 0;
			return true;
		}
		p = nl ? nl + 1 : NULL;
	}
	return false;
}

bool pt_vi_symbol(const char *vi, size_t len, const char *name, uint64_t *v)
{
	char key[96], val[64], *e;

	snprintf(key, sizeof key, "SYMBOL(%s)", name);
	if (!pt_vi_get(vi, len, key, val, sizeof val) || !val[0])
		return false;
	*v = strtoull(val, &e, 16);
	return !*e;
}

bool pt_vi_find_ram(const struct pt_mem *mem, unsigned space, const struct pt_pa_range *r, size_t n,
		    char **out, size_t *outlen, uint64_t *pa)
{
	for (size_t i = 0; i < n; i++) {
		uint64_t at = (r[i].base + 4095) & ~4095ull, end = r[i].base + r[i].size;

		while (at < end && end - at >= 4096) {
			char head[10], *text;
			uint64_t next;
			size_t len;

			if (!pt_mem_next_nonzero(mem, space, at, &next) || next >= end)
				break;
			if (next > at) {
				at = (next + 4095) & ~4095ull;
				if (next & 4095)
					at -= 4096;
				continue;
			}
			if (!pt_mem_read(mem, space, at, head, sizeof head) || memcmp(head, "OSRELEASE=", 10)) {
				at += 4096;
				continue;
			}
			/* vmcoreinfo_data is one page (VMCOREINFO_BYTES, include/linux/crash_core.h) */
			text = malloc(4097);
			if (!text || !pt_mem_read(mem, space, at, text, 4096)) {
				free(text);
				at += 4096;
				continue;
			}
			text[4096] = 0;
			len = strlen(text);
			*out = text;
			*outlen = len;
			*pa = at;
			return true;
		}
	}
	return false;
}

/* ---- kallsyms ---- */

/* A window of kernel memory read ahead (the names table is read once, front to back). */
struct stream {
	struct pt_kmem *k;
	uint64_t va;            /* next byte */
	uint64_t lo;            /* VA of buf[0] */
	size_t have;
	uint8_t buf[16384];
};

static bool next_byte(struct stream *s, uint8_t *b)
{
	if (s->va < s->lo || s->va >= s->lo + s->have) {
		/* to the end of the page at most, so that one unmapped page fails only there */
		size_t n = sizeof s->buf;

		s->lo = s->va;
		s->have = 0;
		while (s->have < n) {
			size_t take = 4096 - (size_t)((s->lo + s->have) & 0xfff);

			take = take < n - s->have ? take : n - s->have;
			if (!pt_kmem_read(s->k, s->lo + s->have, s->buf + s->have, take))
				break;
			s->have += take;
		}
		if (!s->have)
			return false;
	}
	*b = s->buf[s->va - s->lo];
	s->va++;
	return true;
}

static bool vi_version(const char *vi, size_t len, unsigned *maj, unsigned *min)
{
	char rel[128];

	return pt_vi_get(vi, len, "OSRELEASE", rel, sizeof rel) && sscanf(rel, "%u.%u", maj, min) == 2;
}

/*
 * kallsyms_sym_address(): with CONFIG_KALLSYMS_ABSOLUTE_PERCPU (x86-64
 * SMP before 6.15) >= 0 absolute (the per-CPU symbols), < 0
 * relative_base - 1 - off; without it (arm64, every kernel since 6.15)
 * relative_base + the u32 offset.  ABS: the table is the former's.
 */
static uint64_t sym_address(bool abs, int32_t off, uint64_t base)
{
	if (!abs)
		return base + (uint32_t)off;
	return off >= 0 ? (uint64_t)off : base - 1 - (uint64_t)(int64_t)off;
}

/*
 * Whether the table of NUM offsets at OFFS is ABSOLUTE_PERCPU's: none
 * since 6.15 (scripts/kallsyms.c dropped it); before, a kernel
 * symbol's offset there is negative (scripts/kallsyms.c write_src():
 * relative_base - addr - 1, "offset >= 0" an overflow), and the last
 * symbol (the highest address, the table sorted) is one, while without it
 * every offset is addr - relative_base, a u32 below 2^31 for any kernel
 * image.  The kernel config is not in the dump: its table says it.
 */
static bool abs_percpu(struct pt_kmem *k, unsigned version, uint64_t offs, uint32_t num)
{
	uint8_t ob[4];

	return version < 615 && pt_kmem_read(k, offs + 4ull * (num - 1), ob, 4) && (ob[3] & 0x80);
}

#define KS_MAX_SYMS (1u << 22)

static bool fail(char *why, size_t wlen, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static bool fail(char *why, size_t wlen, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(why, wlen, fmt, ap);
	va_end(ap);
	return false;
}

bool pt_ksyms_decode(struct pt_kmem *k, const char *vi, size_t len, uint64_t out[PT_KS__COUNT],
		     unsigned *nsyms, char *why, size_t wlen)
{
	static const char *const tabs[] = {"kallsyms_names", "kallsyms_num_syms", "kallsyms_token_table",
					   "kallsyms_token_index", "kallsyms_offsets", "kallsyms_relative_base"};
	uint64_t a[6], base;
	uint16_t tidx[256];
	uint8_t tok[8192], nb[4];
	unsigned maj = 0, min = 0, version, found = 0;
	uint32_t num;
	struct stream *s;
	bool ok = true, abs;

	memset(out, 0, PT_KS__COUNT * sizeof *out);
	*nsyms = 0;
	for (size_t i = 0; i < 6; i++)
		if (!pt_vi_symbol(vi, len, tabs[i], &a[i]))
			return fail(why, wlen, "VMCOREINFO has no SYMBOL(%s) (kallsyms are in VMCOREINFO "
				    "since Linux 6.0)", tabs[i]);
	if (!vi_version(vi, len, &maj, &min))
		return fail(why, wlen, "VMCOREINFO has no OSRELEASE=%s", "MAJOR.MINOR");
	version = maj * 100 + (min > 99 ? 99 : min);
	if (version >= 700)
		return fail(why, wlen, "kallsyms of Linux %s (place-relative offsets) are not read by "
			    "this ptfs", maj >= 7 ? "7.0 or later" : "?");
	if (!pt_kmem_read(k, a[1], nb, 4) || !pt_kmem_u64(k, a[5], &base) ||
	    !pt_kmem_read(k, a[3], tidx, sizeof tidx))
		return fail(why, wlen, "the kallsyms tables VMCOREINFO names are not %s", "mapped and captured");
	num = (uint32_t)nb[0] | (uint32_t)nb[1] << 8 | (uint32_t)nb[2] << 16 | (uint32_t)nb[3] << 24;
	if (!num || num > KS_MAX_SYMS)
		return fail(why, wlen, "kallsyms_num_syms %s is 0 or past 2^22", "");
	/* the token table: 256 NUL-terminated strings, each short (scripts/kallsyms.c) */
	memset(tok, 0, sizeof tok);
	for (unsigned i = 0; i < 256; i++) {
		size_t t = tidx[i];

		if (t >= sizeof tok - 64)
			return fail(why, wlen, "kallsyms_token_index holds an offset past %s", "8 KiB");
	}
	for (size_t off = 0; off < sizeof tok; off += 256)
		if (!pt_kmem_read(k, a[2] + off, tok + off, 256))
			break;
	tok[sizeof tok - 1] = 0;
	abs = abs_percpu(k, version, a[4], num);
	s = malloc(sizeof *s);
	if (!s)
		return fail(why, wlen, "%s", "out of memory");
	s->k = k;
	s->va = a[0];
	s->lo = 0;
	s->have = 0;
	for (uint32_t i = 0; i < num && ok && found < PT_KS__COUNT; i++) {
		char name[520];
		size_t nl = 0;
		uint8_t b, b2;
		unsigned n;

		if (!next_byte(s, &b)) {
			ok = false;
			break;
		}
		n = b;
		if (b & 0x80) {
			if (!next_byte(s, &b2)) {
				ok = false;
				break;
			}
			n = (b & 0x7f) | (unsigned)b2 << 7;
		}
		for (unsigned j = 0; j < n; j++) {
			const char *t;

			if (!next_byte(s, &b)) {
				ok = false;
				break;
			}
			for (t = (const char *)tok + tidx[b]; *t && nl < sizeof name - 1; t++)
				name[nl++] = *t;
		}
		name[nl] = 0;
		if (!ok || nl < 2)
			continue;
		for (unsigned w = 0; w < PT_KS__COUNT; w++) {
			int32_t off;
			uint8_t ob[4];

			if (out[w] || strcmp(name + 1, pt_ksym_names[w]))
				continue;
			if (!pt_kmem_read(k, a[4] + 4ull * i, ob, 4))
				continue;
			off = (int32_t)((uint32_t)ob[0] | (uint32_t)ob[1] << 8 | (uint32_t)ob[2] << 16 |
					(uint32_t)ob[3] << 24);
			out[w] = sym_address(abs, off, base);
			found++;
		}
		*nsyms = i + 1;
	}
	free(s);
	if (!ok && !found)
		return fail(why, wlen, "the kallsyms_names table runs into memory that is not %s",
			    "mapped or captured");
	if (!out[PT_KS_INIT_TASK])
		return fail(why, wlen, "kallsyms has no %s (a kernel without CONFIG_KALLSYMS_ALL)", "init_task");
	return true;
}
