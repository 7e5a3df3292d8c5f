/* SPDX-License-Identifier: MIT */
/*
 * btf.c — the kernel's own types from the dump itself (docs/design.md §3.3).
 *
 * vmlinux BTF is the kernel image's .BTF section (include/asm-generic/
 * vmlinux.lds.h, __start_BTF..__stop_BTF), used in place by
 * kernel/bpf/btf.c btf_parse_vmlinux(): it is in RAM wherever the image
 * is, so a scan of physical memory finds it without a symbol.  Module BTF
 * (split, kvmalloc'd copies by btf_parse_module()) and stale copies of the
 * image (the decompressor's output) are found too: the largest blob that
 * libbpf parses as base BTF holding struct task_struct is the one.
 * Offsets come from this BTF only, never from a table: they move between
 * flavours and versions.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include <bpf/btf.h>
#include <bpf/libbpf.h>

#include "linux_int.h"
#include "pt_num.h"

bool pt_btf_header_ok(const uint8_t *h, uint64_t avail, uint64_t *total)
{
	uint64_t type_len, str_len, size;

	/* magic 0xeb9f little-endian, BTF_VERSION 1, flags 0 (include/uapi/linux/btf.h) */
	if (h[0] != 0x9f || h[1] != 0xeb || h[2] != 1 || h[3] != 0)
		return false;
	type_len = pt_le32_load(h + 12);
	str_len = pt_le32_load(h + 20);
	if (pt_le32_load(h + 4) != PT_BTF_HDR_LEN || pt_le32_load(h + 8) != 0 || pt_le32_load(h + 16) != type_len ||
	    !type_len || !str_len)
		return false;
	size = PT_BTF_HDR_LEN + type_len + str_len;
	if (size > PT_BTF_MAX_SIZE || size > avail)
		return false;
	*total = size;
	return true;
}

/* libbpf reports through its print callback (stderr by default): the core never prints. */
static int quiet(enum libbpf_print_level level, const char *fmt, va_list ap)
{
	(void)level;
	(void)fmt;
	(void)ap;
	return 0;
}

struct btf *pt_btf_parse(const void *p, size_t size)
{
	const uint8_t *b = p;
	struct btf *btf;
	uint64_t total;

	/* the string section starts with its empty string (btf.c btf_parse_str_sec) */
	if (size < PT_BTF_HDR_LEN || !pt_btf_header_ok(b, size, &total) || total != size ||
	    b[PT_BTF_HDR_LEN + pt_le32_load(b + 16)] != 0)
		return NULL;
	libbpf_set_print(quiet);
	btf = btf__new(p, (uint32_t)size);
	if (!btf || libbpf_get_error(btf))
		return NULL;
	if (btf__find_by_name_kind(btf, "task_struct", BTF_KIND_STRUCT) <= 0) {
		btf__free(btf);
		return NULL;
	}
	return btf;
}

void pt_btf_free(struct pt_btf *b)
{
	btf__free(b->btf);
	b->btf = NULL;
}

/* The blob whose header is at PA (BUF holds it when it fits): parsed, kept when the largest. */
static pt_err consider(const struct pt_mem *mem, unsigned space, uint64_t pa, uint64_t end,
		       struct pt_btf *out)
{
	uint8_t h[PT_BTF_HDR_LEN];
	uint64_t total;
	struct btf *btf;
	void *blob;

	if (end - pa < PT_BTF_HDR_LEN || !pt_mem_read(mem, space, pa, h, sizeof h) ||
	    !pt_btf_header_ok(h, end - pa, &total))
		return PT_OK;
	out->valid++;
	/* identical copies do no harm: the first of the largest size is kept */
	if (out->btf && total <= out->size)
		return PT_OK;
	blob = malloc(total);
	if (!blob)
		return PT_E_NOMEM;
	btf = pt_mem_read(mem, space, pa, blob, total) ? pt_btf_parse(blob, total) : NULL;
	free(blob);
	if (!btf)
		return PT_OK;
	out->base++;
	btf__free(out->btf);
	out->btf = btf;
	out->pa = pa;
	out->size = total;
	return PT_OK;
}

#define SCAN_CHUNK ((uint64_t)1 << 20)

pt_err pt_btf_scan(const struct pt_mem *mem, unsigned space, const struct pt_pa_range *r, size_t n,
		   struct pt_btf *out)
{
	static const uint8_t magic[4] = {0x9f, 0xeb, 0x01, 0x00};
	uint8_t *buf = malloc(SCAN_CHUNK + 3);
	pt_err rc = PT_OK;

	memset(out, 0, sizeof *out);
	if (!buf)
		return PT_E_NOMEM;
	for (size_t i = 0; i < n && !rc && !out->truncated; i++) {
		uint64_t end = r[i].base + r[i].size, pa = r[i].base;

		while (pa < end && !rc && !out->truncated) {
			uint64_t len = end - pa < SCAN_CHUNK + 3 ? end - pa : SCAN_CHUNK + 3, next;
			const uint8_t *p, *q;

			/* jump over what is known zero (a kdump's absent pages, zero chunks) */
			if (!pt_mem_next_nonzero(mem, space, pa, &next) || next >= end)
				break;
			if (next > pa) {
				pa = next & ~3ull;
				continue;
			}
			if (!pt_mem_read(mem, space, pa, buf, (size_t)len)) {
				pa += 4096 - (pa & 4095);
				continue;
			}
			/* BTF starts 4-byte aligned (the section's alignment in vmlinux.lds.h, BTF's own) */
			for (p = buf; (q = memmem(p, (size_t)(len - (uint64_t)(p - buf)), magic, 4)); p = q + 1) {
				uint64_t at = pa + (uint64_t)(q - buf);

				if (at & 3)
					continue;
				if (++out->hits > PT_BTF_MAX_HITS) {
					out->truncated = true;
					break;
				}
				rc = consider(mem, space, at, end, out);
				if (rc)
					break;
			}
			pa += len > 3 ? len - 3 : len;
		}
	}
	free(buf);
	if (rc)
		pt_btf_free(out);
	return rc;
}

/* T's type with typedefs and modifiers skipped. */
static const struct btf_type *resolved(const struct btf *btf, uint32_t id)
{
	int r = btf__resolve_type(btf, id);

	return r < 0 ? NULL : btf__type_by_id(btf, (uint32_t)r);
}

static int64_t member_in(const struct btf *btf, const struct btf_type *t, const char *member, unsigned depth)
{
	const struct btf_member *m;

	if (!t || !btf_is_composite(t) || depth > 8)
		return -1;
	m = btf_members(t);
	for (unsigned i = 0; i < btf_vlen(t); i++, m++) {
		const char *name = btf__name_by_offset(btf, m->name_off);
		uint32_t bit = btf_member_bit_offset(t, i);
		int64_t sub;

		if (name && name[0]) {
			if (strcmp(name, member))
				continue;
			if (btf_member_bitfield_size(t, i) || bit % 8)
				return -1;
			return bit / 8;
		}
		/* an anonymous struct or union: its members are the outer one's */
		sub = member_in(btf, resolved(btf, m->type), member, depth + 1);
		if (sub >= 0 && bit % 8 == 0)
			return bit / 8 + sub;
	}
	return -1;
}

static const struct btf_type *find_composite(const struct btf *btf, const char *name)
{
	int id = btf__find_by_name_kind(btf, name, BTF_KIND_STRUCT);

	if (id <= 0)
		id = btf__find_by_name_kind(btf, name, BTF_KIND_UNION);
	return id > 0 ? btf__type_by_id(btf, (uint32_t)id) : NULL;
}

int64_t pt_btf_member(const struct btf *btf, const char *name, const char *member)
{
	return btf ? member_in(btf, find_composite(btf, name), member, 0) : -1;
}

int64_t pt_btf_struct_size(const struct btf *btf, const char *name)
{
	const struct btf_type *t = btf ? find_composite(btf, name) : NULL;

	return t ? (int64_t)t->size : -1;
}

int64_t pt_btf_percpu(const struct btf *btf, const char *var)
{
	/* pahole encodes the per-CPU variables only, in this one DATASEC (scripts/pahole-flags.sh) */
	int id = btf ? btf__find_by_name_kind(btf, ".data..percpu", BTF_KIND_DATASEC) : -1;
	const struct btf_type *t;
	const struct btf_var_secinfo *v;

	if (id <= 0)
		return -1;
	t = btf__type_by_id(btf, (uint32_t)id);
	v = btf_var_secinfos(t);
	for (unsigned i = 0; i < btf_vlen(t); i++, v++) {
		const struct btf_type *vt = btf__type_by_id(btf, v->type);
		const char *n = vt ? btf__name_by_offset(btf, vt->name_off) : NULL;

		if (n && !strcmp(n, var))
			return v->offset;
	}
	return -1;
}
