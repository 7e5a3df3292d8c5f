/* SPDX-License-Identifier: MIT */
/*
 * src_elf.c — ELF cores as capture sources (docs/design.md §3.2), and what ELF and
 * kdump dumps share: their notes, VMCOREINFO and the capture.ini text
 * (pt_src_dump.h).
 *
 * Layouts: the System V gABI (Elf64_Ehdr, Elf64_Phdr, Elf64_Shdr,
 * Elf64_Nhdr; Linux include/uapi/linux/elf.h), QEMU dump/dump.c (notes
 * first, then PT_LOADs; PN_XNUM with the real count in section 0's
 * sh_info) and target/i386/arch_dump.c (the "QEMU" note), Linux
 * kernel/vmcore_info.c and arch/x86/kernel/vmcore_info_64.c (VMCOREINFO:
 * SYMBOL() values are %lx, NUMBER() values %ld).
 *
 * The source itself is elf.c: every PT_LOAD with file bytes is served in
 * place, an offset/length window of the one mapping of the file, so a
 * 4 GiB guest costs no RAM at mount.
 */
#include <errno.h>
#include <stdarg.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pt_format.h"
#include "pt_num.h"
#include "pt_src_dump.h"
#include "pt_vec.h"

#define EHDR_SIZE 64
#define PHDR_SIZE 56
#define SHDR_SIZE 64
#define ET_CORE 4
#define PT_LOAD 1
#define PT_NOTE 4
#define PN_XNUM 0xffff
#define NT_PRSTATUS 1
/* x86-64 __START_KERNEL_map (Linux arch/x86/include/asm/page_64_types.h): __pa_symbol(x) = x - it + phys_base */
#define START_KERNEL_MAP 0xffffffff80000000ull

static uint16_t le16(const uint8_t *p)
{
	return (uint16_t)(p[0] | p[1] << 8);
}

static uint64_t le64(const uint8_t *p)
{
	return (uint64_t)pt_le32_load(p) | (uint64_t)pt_le32_load(p + 4) << 32;
}

bool pt_elf_detect(const void *p, size_t n)
{
	const uint8_t *b = p;

	/* e_ident: magic, then EI_CLASS, EI_DATA; e_type at 16 (little-endian cores only are read). */
	return n >= 18 && !memcmp(b, "\177ELF", 4) &&
	       ((b[5] == 1 && le16(b + 16) == ET_CORE) || (b[5] == 2 && b[16] == 0 && b[17] == ET_CORE));
}

/* ---- notes ---- */

static pt_err add_cpu(struct pt_dump_facts *f, uint64_t cr3, uint64_t cr4, uint64_t off)
{
	if (!pt_vec_reserve(&f->cpu, &f->cpucap, f->ncpu + 1, sizeof *f->cpu))
		return PT_E_NOMEM;
	f->cpu[f->ncpu].cr3 = cr3;
	f->cpu[f->ncpu].cr4 = cr4;
	f->cpu[f->ncpu].note_off = off;
	f->ncpu++;
	return PT_OK;
}

/* The QEMU note at file offset OFF (DESC of DESCSZ bytes): QEMUCPUState version 1. */
static pt_err qemu_note(struct pt_dump_facts *f, const uint8_t *desc, uint64_t descsz, uint64_t off,
			const char *where, char *err, size_t errlen)
{
	uint32_t version, size;

	if (descsz < 8)
		return pt_err_fmt(err, errlen, PT_E_CAPTURE, "%s: QEMU note at 0x%" PRIx64 " of %" PRIu64
			    " bytes holds no QEMUCPUState", where, off, descsz);
	version = pt_le32_load(desc);
	size = pt_le32_load(desc + 4);
	if (version != PT_QEMU_CPUSTATE_VERSION)
		return pt_err_fmt(err, errlen, PT_E_UNSUPPORTED, "%s: QEMU note at 0x%" PRIx64 ": QEMUCPUState "
			    "version %" PRIu32 " (this ptfs reads version 1)", where, off, version);
	if (size < PT_QEMU_CPUSTATE_MIN || size > descsz)
		return pt_err_fmt(err, errlen, PT_E_CAPTURE, "%s: QEMU note at 0x%" PRIx64 ": QEMUCPUState size "
			    "%" PRIu32 " in a note of %" PRIu64 " bytes (version 1 is at least %u, CR3 at %u, "
			    "CR4 at %u)", where, off, size, descsz, PT_QEMU_CPUSTATE_MIN, PT_QEMU_CR3_OFF,
			    PT_QEMU_CR4_OFF);
	if (add_cpu(f, le64(desc + PT_QEMU_CR3_OFF), le64(desc + PT_QEMU_CR4_OFF), off))
		return pt_err_fmt(err, errlen, PT_E_NOMEM, "%s: out of memory", where);
	/* QEMUCPUState: segments from 0x98, 24 bytes each, gs (4th) base at 0x108; kernel_gs_base last */
	f->cpu[f->ncpu - 1].cs = pt_le32_load(desc + 0x98);
	f->cpu[f->ncpu - 1].gs_base = le64(desc + 0x108);
	f->cpu[f->ncpu - 1].has_kgs = size >= 0x1b8;
	f->cpu[f->ncpu - 1].kernel_gs_base = size >= 0x1b8 ? le64(desc + 0x1b0) : 0;
	return PT_OK;
}

pt_err pt_dump_notes(const uint8_t *p, uint64_t len, uint64_t file_off, const char *where,
		     struct pt_dump_facts *f, char *err, size_t errlen)
{
	uint64_t at = 0;

	while (len - at >= 12) {
		uint64_t namesz = pt_le32_load(p + at), descsz = pt_le32_load(p + at + 4);
		uint32_t type = pt_le32_load(p + at + 8);
		/* name and desc are each padded to 4 bytes (Elf64_Nhdr; QEMU ELF_NOTE_SIZE) */
		uint64_t npad = (namesz + 3) & ~3ull, dpad = (descsz + 3) & ~3ull;
		const uint8_t *name = p + at + 12, *desc = name + npad;
		uint64_t off = file_off + at;
		pt_err rc;

		if (npad > len - at - 12 || dpad > len - at - 12 - npad) {
			/* the last desc may lack its padding; its own bytes must be there */
			if (npad > len - at - 12 || descsz > len - at - 12 - npad)
				return pt_err_fmt(err, errlen, PT_E_CAPTURE, "%s: the note at 0x%" PRIx64 " (name %" PRIu64
					    " bytes, desc %" PRIu64 " bytes) runs past the end of its %" PRIu64
					    " bytes of notes", where, off, namesz, descsz, len);
			dpad = len - at - 12 - npad;
		}
		if (namesz == 5 && !memcmp(name, "QEMU", 5) && type == 0) {
			rc = qemu_note(f, desc, descsz, off, where, err, errlen);
			if (rc)
				return rc;
		} else if (namesz == 11 && !memcmp(name, "VMCOREINFO", 11) && type == 0) {
			if (f->vmcoreinfo)
				return pt_err_fmt(err, errlen, PT_E_CAPTURE, "%s: a second VMCOREINFO note at 0x%" PRIx64
					    " (the first at 0x%" PRIx64 ")", where, off, f->vmcoreinfo_off);
			f->vmcoreinfo = (const char *)desc;
			f->vmcoreinfo_len = (size_t)descsz;
			f->vmcoreinfo_off = file_off + (uint64_t)(desc - p);
		} else if (namesz == 5 && !memcmp(name, "CORE", 5) && type == NT_PRSTATUS) {
			f->nprstatus++;
		}
		at += 12 + npad + dpad;
	}
	return PT_OK;
}

bool pt_vmcoreinfo_get(const struct pt_dump_facts *f, const char *key, char *out, size_t outlen)
{
	const char *p = f->vmcoreinfo, *end = p ? p + f->vmcoreinfo_len : NULL;
	size_t kl = strlen(key);

	while (p && p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		const char *le = nl ? nl : end;

		if ((size_t)(le - p) > kl && !memcmp(p, key, kl) && p[kl] == '=') {
			size_t vl = (size_t)(le - p) - kl - 1;

			/* the text ends in NUL padding inside the note */
			while (vl && (p[kl + 1 + vl - 1] == 0 || p[kl + 1 + vl - 1] == '\r'))
				vl--;
			if (vl >= outlen || memchr(p + kl + 1, 0, vl))
				return false;
			memcpy(out, p + kl + 1, vl);
			out[vl] = 0;
			return true;
		}
		p = le + 1;
	}
	return false;
}

/* A SYMBOL() value: hex without 0x (VMCOREINFO_SYMBOL's %lx). */
static bool vi_symbol(const struct pt_dump_facts *f, const char *key, uint64_t *v, char *raw, size_t rl)
{
	char *end;

	if (!pt_vmcoreinfo_get(f, key, raw, rl) || !raw[0])
		return false;
	errno = 0;
	*v = strtoull(raw, &end, 16);
	return !errno && !*end && raw[0] != '-' && raw[0] != '+';
}

/* A NUMBER() value: %ld (decimal, maybe negative) or, on arm64, 0x%llx. */
static bool vi_number(const struct pt_dump_facts *f, const char *key, uint64_t *v, char *raw, size_t rl)
{
	char *end;
	bool neg;

	if (!pt_vmcoreinfo_get(f, key, raw, rl) || !raw[0])
		return false;
	neg = raw[0] == '-';
	errno = 0;
	if (!strncmp(raw + neg, "0x", 2))
		*v = strtoull(raw + neg + 2, &end, 16);
	else
		*v = strtoull(raw + neg, &end, 10);
	if (errno || *end || raw[neg] == '-' || raw[neg] == '+' || end == raw + neg)
		return false;
	if (neg)
		*v = 0 - *v;
	return true;
}

/*
 * Whether KEY has a line at all (its value into RAW, cut to RL): a value
 * vi_symbol() or vi_number() refused is then "does not fit", not "absent".
 */
static bool vi_present(const struct pt_dump_facts *f, const char *key, char *raw, size_t rl)
{
	char big[256];

	if (!pt_vmcoreinfo_get(f, key, big, sizeof big)) {
		/* longer than 255 characters: present, and no number of 64 bits */
		if (!f->vmcoreinfo || !memmem(f->vmcoreinfo, f->vmcoreinfo_len, key, strlen(key)))
			return false;
		snprintf(raw, rl, "(over 255 characters)");
		return true;
	}
	{
		size_t n = strlen(big) < rl - 1 ? strlen(big) : rl - 1;

		memcpy(raw, big, n);
		raw[n] = 0;
	}
	return true;
}

/*
 * VMCOREINFO keys given twice with different values (the kernel writes
 * each once: Linux kernel/vmcore_info.c): one warning per key naming both
 * values; pt_vmcoreinfo_get() takes the first.  Lines are sorted by key
 * (then by place), so a hostile note of millions of lines costs n log n.
 */
struct vi_line {
	const char *p;          /* the line */
	size_t klen, len;       /* its key's length, its length */
};

static int cmp_line(const void *a, const void *b)
{
	const struct vi_line *x = a, *y = b;
	size_t n = x->klen < y->klen ? x->klen : y->klen;
	int c = memcmp(x->p, y->p, n);

	if (c)
		return c;
	if (x->klen != y->klen)
		return x->klen < y->klen ? -1 : 1;
	return x->p < y->p ? -1 : x->p > y->p;
}

static void vi_repeats(const struct pt_dump_facts *f, struct pt_buf *warn)
{
	const char *p = f->vmcoreinfo, *end = p ? p + f->vmcoreinfo_len : NULL;
	struct vi_line *l = NULL;
	size_t n = 0, cap = 0, said = 0;

	while (p && p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p)), *le = nl ? nl : end, *eq;
		size_t len = (size_t)(le - p);

		while (len && (p[len - 1] == 0 || p[len - 1] == '\r'))
			len--;
		eq = memchr(p, '=', len);
		if (eq && eq > p) {
			if (!pt_vec_reserve(&l, &cap, n < 256 ? 256 : n + 1, sizeof *l))
				break;
			l[n++] = (struct vi_line){p, (size_t)(eq - p), len};
		}
		p = le + 1;
	}
	if (n > 1)
		qsort(l, n, sizeof *l, cmp_line);
	for (size_t i = 1, first = 0; i < n; i++) {
		const struct vi_line *a, *b = &l[i];

		if (l[first].klen != b->klen || memcmp(l[first].p, b->p, b->klen)) {
			first = i;      /* a new key */
			continue;
		}
		/* the key's first line (the one used) against each later one that differs */
		a = &l[first];
		if (a->len == b->len && !memcmp(a->p, b->p, a->len))
			continue;
		if (said++ < 8)
			pt_buf_printf(warn, "VMCOREINFO gives %.*s twice: %.*s, then %.*s (the first is used)\n",
				      (int)a->klen, a->p, (int)(a->len - a->klen - 1), a->p + a->klen + 1,
				      (int)(b->len - b->klen - 1), b->p + b->klen + 1);
	}
	if (said > 8)
		pt_buf_printf(warn, "VMCOREINFO: %zu more keys given twice with different values\n", said - 8);
	free(l);
}

/* ---- ELF ---- */

void pt_elf_core_free(struct pt_elf_core *core)
{
	free(core->facts.cpu);
	free(core->seg);
	memset(core, 0, sizeof *core);
}

static int cmp_seg(const void *a, const void *b)
{
	const struct pt_elf_seg *x = a, *y = b;

	if (x->paddr != y->paddr)
		return x->paddr < y->paddr ? -1 : 1;
	if (x->filesz != y->filesz)
		return x->filesz > y->filesz ? -1 : 1;    /* the larger first: it covers the other */
	return x->phdr < y->phdr ? -1 : x->phdr > y->phdr;
}

/*
 * Sorted segments: one wholly inside an earlier one with the same bytes is
 * merged away (QEMU's paging dumps alias physical ranges; /proc/vmcore's
 * kernel-text segment lies inside a RAM segment); different bytes are an
 * error; a segment contiguous in both address and file offset joins the one
 * before it.  Partial overlaps stay for the memory layer, which merges
 * equal bytes and refuses different ones.
 */
static pt_err dedupe(const uint8_t *p, const char *label, struct pt_elf_core *c, char *err, size_t errlen)
{
	size_t out = 0, cover = 0;

	qsort(c->seg, c->nseg, sizeof *c->seg, cmp_seg);
	for (size_t i = 0; i < c->nseg; i++) {
		struct pt_elf_seg s = c->seg[i];

		if (out) {
			const struct pt_elf_seg *cv = &c->seg[cover];
			uint64_t cend = cv->paddr + cv->filesz;

			if (s.paddr < cend) {
				uint64_t n = (s.paddr + s.filesz < cend ? s.paddr + s.filesz : cend) - s.paddr;

				if (memcmp(p + cv->offset + (s.paddr - cv->paddr), p + s.offset, (size_t)n))
					return pt_err_fmt(err, errlen, PT_E_CAPTURE, "%s: PT_LOAD %" PRIu32 " (0x%" PRIx64
						    "-0x%" PRIx64 ") overlaps PT_LOAD %" PRIu32 " (0x%" PRIx64 "-0x%"
						    PRIx64 ") with different bytes", label, s.phdr, s.paddr,
						    s.paddr + s.filesz - 1, cv->phdr, cv->paddr, cend - 1);
				if (s.paddr + s.filesz <= cend) {
					c->nmerged++;
					continue;
				}
			}
			if (c->seg[out - 1].paddr + c->seg[out - 1].filesz == s.paddr &&
			    c->seg[out - 1].offset + c->seg[out - 1].filesz == s.offset) {
				c->seg[out - 1].filesz += s.filesz;
				c->seg[out - 1].joined++;
				if (c->seg[out - 1].paddr + c->seg[out - 1].filesz >
				    c->seg[cover].paddr + c->seg[cover].filesz)
					cover = out - 1;
				continue;
			}
		}
		c->seg[out] = s;
		if (!out || s.paddr + s.filesz > c->seg[cover].paddr + c->seg[cover].filesz)
			cover = out;
		out++;
	}
	c->nseg = out;
	if (out > PT_ELF_MAX_SEGS)
		return pt_err_fmt(err, errlen, PT_E_UNSUPPORTED, "%s: %zu separate PT_LOAD segments with file bytes "
			    "(this ptfs reads at most %u)", label, out, PT_ELF_MAX_SEGS);
	return PT_OK;
}

/* The program header count: e_phnum, or section 0's sh_info under PN_XNUM. */
static pt_err ph_count(const uint8_t *p, uint64_t size, const char *label, struct pt_elf_core *c,
		       char *err, size_t errlen)
{
	uint64_t shoff = le64(p + 40);
	uint16_t shentsize = le16(p + 58);

	c->phnum = le16(p + 56);
	if (c->phnum != PN_XNUM)
		return PT_OK;
	c->xnum = true;
	if (!shoff || shentsize < SHDR_SIZE || shoff > size || size - shoff < SHDR_SIZE)
		return pt_err_fmt(err, errlen, PT_E_CAPTURE, "%s: e_phnum is PN_XNUM but section header 0 "
			    "(e_shoff 0x%" PRIx64 ", e_shentsize %u) is not in the file (0x%" PRIx64 " bytes)",
			    label, shoff, shentsize, size);
	c->phnum = pt_le32_load(p + shoff + 44);
	return PT_OK;
}

/* One PT_LOAD at P+PH (index I): a segment, or skipped when it has no file bytes. */
static pt_err load_seg(const uint8_t *ph, uint64_t size, uint64_t i, const char *label,
		       struct pt_elf_core *c, char *err, size_t errlen)
{
	uint64_t off = le64(ph + 8), paddr = le64(ph + 24), filesz = le64(ph + 32), memsz = le64(ph + 40);

	c->nloads++;
	/* "When the memory is not stored into vmcore, offset will be -1" (QEMU dump/dump.c) */
	if (off == UINT64_MAX || filesz == 0) {
		c->nempty++;
		return PT_OK;
	}
	if (filesz > memsz)
		return pt_err_fmt(err, errlen, PT_E_CAPTURE, "%s: PT_LOAD %" PRIu64 " has p_filesz 0x%" PRIx64
			    " above its p_memsz 0x%" PRIx64, label, i, filesz, memsz);
	if (off > size || filesz > size - off)
		return pt_err_fmt(err, errlen, PT_E_CAPTURE, "%s: PT_LOAD %" PRIu64 " (0x%" PRIx64 " bytes at file "
			    "offset 0x%" PRIx64 ") runs past the end of the file (0x%" PRIx64 " bytes)",
			    label, i, filesz, off, size);
	if (filesz - 1 > UINT64_MAX - paddr)
		return pt_err_fmt(err, errlen, PT_E_CAPTURE, "%s: PT_LOAD %" PRIu64 " (0x%" PRIx64 " bytes at "
			    "0x%" PRIx64 ") ends past 2^64", label, i, filesz, paddr);
	/* the memory it describes must be addressable as well as its file bytes: p_memsz too */
	if (memsz - 1 > UINT64_MAX - paddr)
		return pt_err_fmt(err, errlen, PT_E_CAPTURE, "%s: PT_LOAD %" PRIu64 " (p_memsz 0x%" PRIx64 " at "
			    "0x%" PRIx64 ") ends past 2^64", label, i, memsz, paddr);
	/* saturating: the warning's count, never a wrapped one */
	c->uncaptured = memsz - filesz > UINT64_MAX - c->uncaptured ? UINT64_MAX
			: c->uncaptured + (memsz - filesz);
	c->seg[c->nseg].paddr = paddr;
	c->seg[c->nseg].offset = off;
	c->seg[c->nseg].filesz = filesz;
	c->seg[c->nseg].phdr = (uint32_t)i;
	c->seg[c->nseg].joined = 0;
	c->nseg++;
	return PT_OK;
}

pt_err pt_elf_parse(const uint8_t *p, uint64_t size, const char *label,
		    struct pt_elf_core *c, char *err, size_t errlen)
{
	uint64_t phoff;
	pt_err rc;

	memset(c, 0, sizeof *c);
	if (size < EHDR_SIZE || !pt_elf_detect(p, (size_t)size))
		return pt_err_fmt(err, errlen, PT_E_CAPTURE, "%s: not an ELF core file", label);
	if (p[4] != 2 || p[5] != 1)
		return pt_err_fmt(err, errlen, PT_E_UNSUPPORTED, "%s: %s ELF core: this ptfs reads 64-bit "
			    "little-endian (ELFCLASS64, ELFDATA2LSB) cores", label,
			    p[4] == 1 ? "a 32-bit" : p[5] != 1 ? "a big-endian" : "an unknown-class");
	c->facts.machine = le16(p + 18);
	phoff = le64(p + 32);
	if ((rc = ph_count(p, size, label, c, err, errlen)))
		return rc;
	if (c->phnum && le16(p + 54) != PHDR_SIZE)
		return pt_err_fmt(err, errlen, PT_E_CAPTURE, "%s: e_phentsize %u (an Elf64_Phdr is %u bytes)",
			    label, le16(p + 54), PHDR_SIZE);
	if (phoff > size || c->phnum > (size - phoff) / PHDR_SIZE)
		return pt_err_fmt(err, errlen, PT_E_CAPTURE, "%s: %" PRIu64 " program headers at 0x%" PRIx64
			    " run past the end of the file (0x%" PRIx64 " bytes)", label, c->phnum, phoff, size);
	c->seg = malloc((c->phnum ? c->phnum : 1) * sizeof *c->seg);
	if (!c->seg)
		return pt_err_fmt(err, errlen, PT_E_NOMEM, "%s: out of memory", label);
	for (uint64_t i = 0; i < c->phnum; i++) {
		const uint8_t *ph = p + phoff + i * PHDR_SIZE;
		uint32_t type = pt_le32_load(ph);

		if (type == PT_LOAD) {
			rc = load_seg(ph, size, i, label, c, err, errlen);
		} else if (type == PT_NOTE) {
			uint64_t off = le64(ph + 8), fsz = le64(ph + 32);
			char where[600];

			if (off > size || fsz > size - off)
				return pt_err_fmt(err, errlen, PT_E_CAPTURE, "%s: PT_NOTE %" PRIu64 " (0x%" PRIx64 " bytes "
					    "at file offset 0x%" PRIx64 ") runs past the end of the file (0x%"
					    PRIx64 " bytes)", label, i, fsz, off, size);
			snprintf(where, sizeof where, "%s: PT_NOTE %" PRIu64, label, i);
			rc = pt_dump_notes(p + off, fsz, off, where, &c->facts, err, errlen);
		} else {
			rc = PT_OK;
		}
		if (rc)
			return rc;
	}
	return dedupe(p, label, c, err, errlen);
}

/* ---- the capture.ini text ---- */

/* [cpu cpuN] per QEMU note (x86-64 guests: the note's CR3 and CR4, raw). */
static unsigned cpu_contexts(const struct pt_dump_facts *f, struct pt_buf *out, struct pt_buf *warn)
{
	uint64_t sme = 0;
	char raw[64];

	if (f->ncpu && f->machine != PT_EM_X86_64) {
		/* EM_386: a guest not in long mode (QEMU cpu_get_dump_info), whose tables are not x86-64's */
		pt_buf_printf(warn, "%zu QEMU CPU notes of a guest that is not in 64-bit mode (e_machine %u): "
			      "no cpuN context (this ptfs reads x86-64 paging)\n", f->ncpu, f->machine);
		return 0;
	}
	/* The SME C-bit is no address bit (Linux arch/x86/kernel/vmcore_info_64.c: sme_mask). */
	if (!vi_number(f, "NUMBER(sme_mask)", &sme, raw, sizeof raw))
		sme = 0;
	for (size_t i = 0; i < f->ncpu; i++) {
		const struct pt_dump_cpu *c = &f->cpu[i];

		pt_buf_printf(out, "[cpu cpu%zu]\ncr3 = 0x%" PRIx64 "\ncr4 = 0x%" PRIx64 "\n", i,
			      c->cr3 & ~sme, c->cr4);
		pt_buf_printf(out, "x-source = cr3, cr4: QEMU note of cpu%zu (QEMUCPUState at file offset "
			      "0x%" PRIx64 ")%s\n", i, c->note_off, sme && (c->cr3 & sme)
			      ? "; the SME C-bit of NUMBER(sme_mask) cleared from cr3" : "");
	}
	return (unsigned)f->ncpu;
}

/* [cpu kernel] from an x86-64 kernel's VMCOREINFO: __pa_symbol(init_top_pgt). */
static unsigned kernel_x86(const struct pt_dump_facts *f, struct pt_buf *out, struct pt_buf *warn)
{
	const char *sym = "SYMBOL(init_top_pgt)";
	char sraw[64], praw[64], lraw[64];
	uint64_t top, phys_base, l5 = 0, pgd;
	bool has_l5;

	if (!vi_symbol(f, sym, &top, sraw, sizeof sraw)) {
		if (vi_present(f, sym, sraw, sizeof sraw)) {
			pt_buf_printf(warn, "VMCOREINFO %s=%s is not an address that fits in 64 bits: no kernel "
				      "context\n", sym, sraw);
			return 0;
		}
		/* before Linux 4.13 the top table was init_level4_pgt (arch/x86/kernel/machine_kexec_64.c) */
		sym = "SYMBOL(init_level4_pgt)";
		if (!vi_symbol(f, sym, &top, sraw, sizeof sraw)) {
			pt_buf_printf(warn, "VMCOREINFO has no SYMBOL(init_top_pgt): no kernel context\n");
			return 0;
		}
	}
	if (!vi_number(f, "NUMBER(phys_base)", &phys_base, praw, sizeof praw)) {
		if (vi_present(f, "NUMBER(phys_base)", praw, sizeof praw))
			pt_buf_printf(warn, "VMCOREINFO NUMBER(phys_base)=%s is not a number that fits in 64 bits: "
				      "no kernel context\n", praw);
		else
			pt_buf_printf(warn, "VMCOREINFO has %s but no NUMBER(phys_base): no kernel context\n", sym);
		return 0;
	}
	has_l5 = vi_number(f, "NUMBER(pgtable_l5_enabled)", &l5, lraw, sizeof lraw);
	if (has_l5 && l5 > 1) {
		pt_buf_printf(warn, "VMCOREINFO NUMBER(pgtable_l5_enabled)=%s is not 0 or 1: no kernel context\n",
			      lraw);
		return 0;
	}
	pgd = top - START_KERNEL_MAP + phys_base;
	if (top < START_KERNEL_MAP || pgd & 0xfff || pgd >> 52) {
		pt_buf_printf(warn, "VMCOREINFO %s=%s with NUMBER(phys_base)=%s gives 0x%" PRIx64 ", not a "
			      "4 KiB-aligned physical address below 2^52: no kernel context\n", sym, sraw, praw, pgd);
		return 0;
	}
	pt_buf_printf(out, "[cpu kernel]\ncr3 = 0x%" PRIx64 "\nla57 = %u\n", pgd, (unsigned)l5);
	pt_buf_printf(out, "x-source = cr3: VMCOREINFO %s=%s - 0x%llx + NUMBER(phys_base)=%s; la57: %s\n",
		      sym, sraw, START_KERNEL_MAP, praw,
		      has_l5 ? (l5 ? "NUMBER(pgtable_l5_enabled)=1" : "NUMBER(pgtable_l5_enabled)=0")
		      : "no NUMBER(pgtable_l5_enabled) (a kernel before 4.14): 4-level");
	return 1;
}

/* A NUMBER() under either spelling (the merged kernel's, or an early patch's lower case). */
static bool vi_number2(const struct pt_dump_facts *f, const char *k1, const char *k2, uint64_t *v,
		       char *raw, size_t rl, const char **key)
{
	*key = k1;
	if (vi_number(f, k1, v, raw, rl))
		return true;
	*key = k2;
	return k2 && vi_number(f, k2, v, raw, rl);
}

/*
 * [arm64 kernel] from an arm64 kernel's VMCOREINFO (Linux
 * arch/arm64/kernel/vmcore_info.c): the TTBR1 table is
 * __pa_symbol(swapper_pg_dir) = SYMBOL(swapper_pg_dir) -
 * NUMBER(kimage_voffset) (arch/arm64/include/asm/memory.h); the VA size
 * 64 - NUMBER(TCR_EL1_T1SZ) (the running TCR, Linux 5.9+), else
 * NUMBER(VA_BITS); the granule PAGESIZE (4 KiB when absent).  A 52-bit
 * VA uses DS (LPA2) with 4K/16K and so a 52-bit output; with 64K the
 * output is 52 bits when NUMBER(MAX_PHYSMEM_BITS)=52 (FEAT_LPA).  A
 * 52-bit 64K kernel on 48-bit hardware loads TTBR1 with
 * TTBR1_BADDR_4852_OFFSET added (pgtable-hwdef.h, asm/mmu_context.h
 * offset_ttbr1): the root is then that far into swapper_pg_dir.
 */
static unsigned kernel_arm64(const struct pt_dump_facts *f, struct pt_buf *out, struct pt_buf *warn)
{
	char sraw[64], kraw[64], traw[64], praw[64], mraw[64];
	uint64_t swapper, voff, t1sz = 0, vabits = 48, page = 4096, maxpa = 48, root;
	const char *tkey, *vsrc = "no NUMBER(TCR_EL1_T1SZ) or NUMBER(VA_BITS): 48";
	char vbuf[128], gbuf[96], obuf[96] = "";
	bool has_t, has_va, ds;
	unsigned grain;

	if (!vi_symbol(f, "SYMBOL(swapper_pg_dir)", &swapper, sraw, sizeof sraw) &&
	    vi_present(f, "SYMBOL(swapper_pg_dir)", sraw, sizeof sraw)) {
		pt_buf_printf(warn, "VMCOREINFO SYMBOL(swapper_pg_dir)=%s is not an address that fits in 64 bits: "
			      "no kernel context\n", sraw);
		return 0;
	}
	if (!vi_number(f, "NUMBER(kimage_voffset)", &voff, kraw, sizeof kraw) &&
	    vi_present(f, "NUMBER(kimage_voffset)", kraw, sizeof kraw)) {
		pt_buf_printf(warn, "VMCOREINFO NUMBER(kimage_voffset)=%s is not a number that fits in 64 bits: "
			      "no kernel context\n", kraw);
		return 0;
	}
	if (!vi_symbol(f, "SYMBOL(swapper_pg_dir)", &swapper, sraw, sizeof sraw) ||
	    !vi_number(f, "NUMBER(kimage_voffset)", &voff, kraw, sizeof kraw)) {
		pt_buf_printf(warn, "VMCOREINFO has no SYMBOL(swapper_pg_dir) and NUMBER(kimage_voffset): "
			      "no kernel context\n");
		return 0;
	}
	has_t = vi_number2(f, "NUMBER(TCR_EL1_T1SZ)", "NUMBER(tcr_el1_t1sz)", &t1sz, traw, sizeof traw,
			   &tkey);
	has_va = vi_number(f, "NUMBER(VA_BITS)", &vabits, mraw, sizeof mraw);
	if (has_t) {
		snprintf(vbuf, sizeof vbuf, "%s=%s (64 - T1SZ)", tkey, traw);
		vsrc = vbuf;
	} else if (has_va) {
		snprintf(vbuf, sizeof vbuf, "NUMBER(VA_BITS)=%s", mraw);
		vsrc = vbuf;
	}
	if (has_t && (t1sz < 12 || t1sz > 39)) {
		pt_buf_printf(warn, "VMCOREINFO %s=%s is outside 12..39: no kernel context\n", tkey, traw);
		return 0;
	}
	if (pt_vmcoreinfo_get(f, "PAGESIZE", praw, sizeof praw)) {
		char *end;

		page = strtoull(praw, &end, 10);
		if (*end || (page != 4096 && page != 16384 && page != 65536)) {
			pt_buf_printf(warn, "VMCOREINFO PAGESIZE=%s is not 4096, 16384 or 65536: no kernel "
				      "context\n", praw);
			return 0;
		}
		snprintf(gbuf, sizeof gbuf, "PAGESIZE=%s", praw);
	} else {
		snprintf(gbuf, sizeof gbuf, "no PAGESIZE: 4096");
	}
	grain = page == 4096 ? 12 : page == 16384 ? 14 : 16;
	{
		uint64_t running = has_t ? 64 - t1sz : vabits;

		if (running < 25 || running > 52) {
			pt_buf_printf(warn, "VMCOREINFO %s gives a %" PRIu64 "-bit VA: no kernel context\n",
				      vsrc, running);
			return 0;
		}
		root = swapper - voff;
		/* offset_ttbr1: a 52-bit 64K kernel walking 48 bits */
		if (grain == 16 && has_va && vabits == 52 && running == 48) {
			root += 0x1e00;
			snprintf(obuf, sizeof obuf, " + TTBR1_BADDR_4852_OFFSET 0x1e00 (NUMBER(VA_BITS)=52 on "
				 "a 48-bit walk)");
		}
		vabits = running;
	}
	ds = grain != 16 && vabits == 52;
	if (grain == 16 && vi_number(f, "NUMBER(MAX_PHYSMEM_BITS)", &maxpa, mraw, sizeof mraw) &&
	    maxpa != 52)
		maxpa = 48;
	if (grain != 16)
		maxpa = ds ? 52 : 48;
	if (root & 7 || root >> maxpa) {
		pt_buf_printf(warn, "VMCOREINFO SYMBOL(swapper_pg_dir)=%s - NUMBER(kimage_voffset)=%s gives "
			      "0x%" PRIx64 ", not an 8-byte-aligned physical address below 2^%" PRIu64
			      ": no kernel context\n", sraw, kraw, root, maxpa);
		return 0;
	}
	pt_buf_printf(out, "[arm64 kernel]\nttbr = 0x%" PRIx64 "\nhalf = upper\ngranule = %" PRIu64
		      "\nva_bits = %" PRIu64 "\npa_bits = %" PRIu64 "\nds = %d\ntbi = %s\n", root, page, vabits,
		      maxpa, ds, f->tbi == 2 ? "1" : f->tbi == 1 ? "0" : "unknown");
	/*
	 * TBI1: a dump holds no TCR_EL1, and VMCOREINFO does not say it.  Linux
	 * sets TCR_EL1.TBI1 when built with CONFIG_ARM64_MTE (arch/arm64/mm/proc.S
	 * TCR_MTE_FLAGS) or the tag-based KASAN modes: unknown unless the user says.
	 */
	pt_buf_printf(out, "x-source = ttbr: VMCOREINFO SYMBOL(swapper_pg_dir)=%s - "
		      "NUMBER(kimage_voffset)=%s%s; va_bits: %s; granule: %s; tbi: %s\n", sraw, kraw, obuf, vsrc,
		      gbuf, f->tbi ? "as the user set it (-o tbi / --tbi)" : "unknown, the dump holds no TCR_EL1 "
		      "(Linux sets TBI1 with CONFIG_ARM64_MTE; -o tbi=1 / --tbi 1 says so)");
	return 1;
}

/*
 * One "x-root-NAME = SOURCE" line in [capture] per context of CTX (its
 * "[cpu NAME]" and "x-source = SOURCE" lines): the capture summary says
 * where each root came from, as each context's info does.
 */
static void root_lines(const struct pt_buf *ctx, struct pt_buf *out)
{
	const char *p = ctx->data, *name = NULL;
	size_t nl = 0;

	while (p && *p) {
		const char *e = strchr(p, '\n');
		size_t n = e ? (size_t)(e - p) : strlen(p);

		if (n > 6 && !strncmp(p, "[cpu ", 5)) {
			name = p + 5;
			nl = n - 6;
		} else if (n > 8 && !strncmp(p, "[arm64 ", 7)) {
			name = p + 7;
			nl = n - 8;
		} else if (name && n > 11 && !strncmp(p, "x-source = ", 11)) {
			pt_buf_printf(out, "x-root-%.*s = %.*s\n", (int)nl, name, (int)(n - 11), p + 11);
		}
		p = e ? e + 1 : NULL;
	}
}

pt_err pt_dump_ini(const struct pt_dump_facts *f, const char *kind, const char *label,
		   const char *member, const struct pt_dump_region *r, size_t nr,
		   struct pt_buf *out, struct pt_buf *warn, char *err, size_t errlen)
{
	struct pt_buf ctx;
	unsigned nctx = 0;
	/* the capture's format: the guest's CPU (an arm64 dump has no x86-64 note) */
	const char *fmt = f->machine == PT_EM_AARCH64 ? "arm64" : "x86-64";

	pt_buf_init(&ctx);
	nctx += cpu_contexts(f, &ctx, warn);
	vi_repeats(f, warn);
	if (!f->vmcoreinfo)
		/*
		 * QEMU's -device vmcoreinfo holds nothing until the guest's
		 * qemu_fw_cfg driver writes etc/vmcoreinfo (Linux
		 * drivers/firmware/qemu_fw_cfg.c fw_cfg_write_vmcoreinfo); until
		 * then dump-guest-memory warns "guest note is not present"
		 * (QEMU dump/dump.c)
		 */
		pt_buf_printf(warn, "no VMCOREINFO note (QEMU writes it with -device vmcoreinfo once the guest's "
			      "qemu_fw_cfg driver has given it: a module on Debian, modprobe qemu_fw_cfg; QEMU's "
			      "\"guest note is not present\" says it had not): no kernel context\n");
	else if (f->machine == PT_EM_AARCH64)
		nctx += kernel_arm64(f, &ctx, warn);
	else if (f->machine == PT_EM_X86_64)
		nctx += kernel_x86(f, &ctx, warn);
	else
		pt_buf_printf(warn, "VMCOREINFO of a machine this ptfs has no CPU format for (e_machine %u): "
			      "no kernel context\n", f->machine);
	pt_buf_printf(out, "[capture]\nversion = 1\nformat = %s\n", fmt);
	pt_buf_printf(out, "x-dump = %s, %zu QEMU CPU notes, %zu NT_PRSTATUS notes, %s\n", kind, f->ncpu,
		      f->nprstatus, f->vmcoreinfo ? "VMCOREINFO" : "no VMCOREINFO");
	root_lines(&ctx, out);
	for (size_t i = 0; i < nr; i++)
		pt_buf_printf(out, "[memory %s]\nspace = sysmem\nbase = 0x%" PRIx64 "\nfile = %s\n"
			      "offset = 0x%" PRIx64 "\nlength = 0x%" PRIx64 "\n", r[i].name, r[i].base,
			      member, r[i].offset, r[i].length);
	if (ctx.len)
		pt_buf_put(out, ctx.data, ctx.len);
	if (out->oom || warn->oom || ctx.oom) {
		pt_buf_free(&ctx);
		return pt_err_fmt(err, errlen, PT_E_NOMEM, "%s: out of memory", label);
	}
	pt_buf_free(&ctx);
	if (!nctx && f->ctx_optional)
		pt_buf_printf(warn, "%s: no page-table root in the %s: its memory only (capture.ini's contexts)\n",
			      label, kind);
	else if (!nctx)
		return pt_err_fmt(err, errlen, PT_E_CAPTURE, "%s: %s with no page-table root: no QEMU CPU note "
			    "of an x86-64 guest and no usable VMCOREINFO (%s)", label, kind,
			    warn->len ? "see the warnings" : "nothing to say where the tables are");
	if (!pt_format_find(fmt))
		return pt_err_fmt(err, errlen, PT_E_UNSUPPORTED, "%s: %s of an %s guest: this build has no "
			    "%s format for its contexts", label, kind, fmt, fmt);
	return PT_OK;
}
