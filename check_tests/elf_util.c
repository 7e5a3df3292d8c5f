/* elf_util.c — see elf_util.h. */
#include <stdlib.h>
#include <string.h>

#include "elf_util.h"

static uint64_t *seg_off;
static size_t nseg_off;

void eu_put32(uint8_t *p, uint32_t v)
{
	for (int i = 0; i < 4; i++)
		p[i] = (uint8_t)(v >> (8 * i));
}

void eu_put64(uint8_t *p, uint64_t v)
{
	for (int i = 0; i < 8; i++)
		p[i] = (uint8_t)(v >> (8 * i));
}

static void put16(uint8_t *p, uint16_t v)
{
	p[0] = (uint8_t)v;
	p[1] = (uint8_t)(v >> 8);
}

void eu_qemu_state(uint8_t out[432], uint64_t cr3, uint64_t cr4)
{
	memset(out, 0, 432);
	eu_put32(out, 1);
	eu_put32(out + 4, 432);
	eu_put64(out + 392, 0x80050033);        /* cr0: PG PE ... (not read) */
	eu_put64(out + 416, cr3);
	eu_put64(out + 424, cr4);
}

static uint64_t up4(uint64_t n)
{
	return (n + 3) & ~3ull;
}

uint8_t *eu_build(const struct eu_core *c, size_t *len)
{
	uint64_t nph = c->nsegs + 1, notesz = 0, off, total;
	uint8_t *b;

	for (size_t i = 0; i < c->nnotes; i++)
		notesz += 12 + up4(strlen(c->notes[i].name) + 1) + up4(c->notes[i].descsz);
	off = 64 + nph * 56 + (c->xnum ? 64 : 0);
	total = (off + notesz + 4095) & ~4095ull;
	free(seg_off);
	seg_off = calloc(c->nsegs + 1, sizeof *seg_off);
	nseg_off = c->nsegs;
	for (size_t i = 0; i < c->nsegs; i++) {
		seg_off[i] = total;
		if (!c->segs[i].offset_none)
			total += (c->segs[i].filesz + 4095) & ~4095ull;
	}
	b = calloc(1, total);
	if (!b)
		abort();
	memcpy(b, "\177ELF", 4);
	b[4] = c->cls ? c->cls : 2;
	b[5] = c->data ? c->data : 1;
	b[6] = 1;                               /* EV_CURRENT */
	put16(b + 16, 4);                       /* ET_CORE */
	put16(b + 18, c->machine ? c->machine : 62);
	eu_put32(b + 20, 1);
	eu_put64(b + 32, 64);                   /* e_phoff */
	put16(b + 52, 64);
	put16(b + 54, 56);
	if (c->xnum) {
		/* QEMU write_elf_section: one section header, sh_info = the real count */
		uint8_t *sh = b + 64 + nph * 56;

		eu_put64(b + 40, 64 + nph * 56);
		put16(b + 56, 0xffff);
		put16(b + 58, 64);
		put16(b + 60, 1);
		eu_put32(sh + 44, (uint32_t)nph);
	} else {
		put16(b + 56, (uint16_t)nph);
	}
	/* PT_NOTE first (QEMU dump/dump.c order) */
	{
		uint8_t *ph = b + 64, *n = b + off;

		eu_put32(ph, 4);
		eu_put64(ph + 8, off);
		eu_put64(ph + 32, notesz);
		eu_put64(ph + 40, notesz);
		for (size_t i = 0; i < c->nnotes; i++) {
			uint32_t nsz = (uint32_t)strlen(c->notes[i].name) + 1;

			eu_put32(n, nsz);
			eu_put32(n + 4, c->notes[i].descsz);
			eu_put32(n + 8, c->notes[i].type);
			memcpy(n + 12, c->notes[i].name, nsz);
			n += 12 + up4(nsz);
			if (c->notes[i].descsz)
				memcpy(n, c->notes[i].desc, c->notes[i].descsz);
			n += up4(c->notes[i].descsz);
		}
	}
	for (size_t i = 0; i < c->nsegs; i++) {
		uint8_t *ph = b + 64 + (i + 1) * 56;
		const struct eu_seg *s = &c->segs[i];

		eu_put32(ph, 1);                /* PT_LOAD */
		eu_put32(ph + 4, 7);
		eu_put64(ph + 8, s->offset_none ? UINT64_MAX : seg_off[i]);
		eu_put64(ph + 16, s->paddr);    /* p_vaddr = p_paddr without paging */
		eu_put64(ph + 24, s->paddr);
		eu_put64(ph + 32, s->offset_none ? 0 : s->filesz);
		eu_put64(ph + 40, s->memsz ? s->memsz : s->filesz);
		if (!s->offset_none && s->data)
			memcpy(b + seg_off[i], s->data, s->filesz);
	}
	*len = total;
	return b;
}

uint64_t eu_seg_offset(size_t i)
{
	return i < nseg_off ? seg_off[i] : 0;
}

static uint64_t note_bytes(const struct eu_note *n, size_t nn, uint8_t *out)
{
	uint64_t at = 0;

	for (size_t i = 0; i < nn; i++) {
		uint32_t nsz = (uint32_t)strlen(n[i].name) + 1;

		if (out) {
			eu_put32(out + at, nsz);
			eu_put32(out + at + 4, n[i].descsz);
			eu_put32(out + at + 8, n[i].type);
			memcpy(out + at + 12, n[i].name, nsz);
			if (n[i].descsz)
				memcpy(out + at + 12 + up4(nsz), n[i].desc, n[i].descsz);
		}
		at += 12 + up4(nsz) + up4(n[i].descsz);
	}
	return at;
}

uint8_t *eu_kdump_build(const struct eu_kdump *k, size_t *len)
{
	const uint64_t bs = 4096;
	uint64_t nsz = note_bytes(k->notes, k->nnotes, NULL);
	uint64_t vsz = k->vmcoreinfo ? strlen(k->vmcoreinfo) : 0;
	uint64_t sub_bytes = 104 + nsz + 24 + vsz + 4;
	uint64_t sub_blocks = (sub_bytes + bs - 1) / bs;
	uint64_t bmp_bytes = (k->max_mapnr + 7) / 8;
	uint64_t bmp_blocks = (bmp_bytes + bs - 1) / bs;
	uint64_t bmp_at = (1 + sub_blocks) * bs;
	uint64_t pd_at = bmp_at + 2 * bmp_blocks * bs;
	uint64_t data_at = pd_at + ((k->npages * 24 + bs - 1) / bs) * bs;
	uint64_t total = data_at + k->npages * bs;
	uint8_t *b = calloc(1, total), *h = b, *sh = b + bs;

	if (!b)
		abort();
	memcpy(h, "KDUMP   ", 8);
	eu_put32(h + 8, 6);                             /* header_version (QEMU: 6) */
	/* utsname: sysname, nodename, release, version, machine, domainname (65 bytes each) */
	memcpy(h + 12, "Linux", 5);
	memcpy(h + 12 + 65, "guest", 5);
	memcpy(h + 12 + 2 * 65, "6.1.0", 5);
	memcpy(h + 12 + 3 * 65, "#1 SMP", 6);
	memcpy(h + 12 + 4 * 65, k->machine, strlen(k->machine));
	memcpy(h + 12 + 5 * 65, "(none)", 6);
	eu_put32(h + 424, 0);                           /* status: no compression flags needed */
	eu_put32(h + 428, (uint32_t)bs);                /* block_size */
	eu_put32(h + 432, (uint32_t)sub_blocks);        /* sub_hdr_size */
	eu_put32(h + 436, (uint32_t)(2 * bmp_blocks));  /* bitmap_blocks */
	eu_put32(h + 440, (uint32_t)k->max_mapnr);
	eu_put32(h + 460, 1);                           /* nr_cpus */
	/* KdumpSubHeader64 */
	eu_put64(sh + 0, 0);                            /* phys_base */
	eu_put32(sh + 8, 1);                            /* dump_level */
	eu_put64(sh + 48, bs + 104);                    /* offset_note */
	note_bytes(k->notes, k->nnotes, sh + 104);
	if (vsz) {
		/* QEMU: the guest's VMCOREINFO note last among the notes, offset_vmcoreinfo at its text */
		uint8_t *n = sh + 104 + nsz;

		eu_put32(n, 11);
		eu_put32(n + 4, (uint32_t)vsz);
		memcpy(n + 12, "VMCOREINFO", 11);
		memcpy(n + 24, k->vmcoreinfo, vsz);
		eu_put64(sh + 32, bs + 104 + nsz + 24); /* offset_vmcoreinfo */
		eu_put64(sh + 40, vsz);
		nsz += 24 + up4(vsz);
	}
	eu_put64(sh + 56, nsz);                         /* note_size */
	eu_put64(sh + 96, k->max_mapnr);                /* max_mapnr_64 */
	/* bitmap 1 (valid) and bitmap 2 (dumped): one bit per PFN, LSB first */
	for (size_t i = 0; i < k->npages + k->lie; i++) {
		uint64_t pfn = i < k->npages ? k->pages[i].pfn : k->pages[k->npages - 1].pfn + 1 + (i - k->npages);

		b[bmp_at + pfn / 8] |= (uint8_t)(1u << (pfn % 8));
		b[bmp_at + bmp_blocks * bs + pfn / 8] |= (uint8_t)(1u << (pfn % 8));
	}
	for (size_t i = 0; i < k->npages; i++) {
		uint8_t *pd = b + pd_at + i * 24;

		eu_put64(pd, data_at + i * bs);         /* offset */
		eu_put32(pd + 8, (uint32_t)bs);         /* size */
		eu_put32(pd + 12, 0);                   /* flags: raw */
		memcpy(b + data_at + i * bs, k->pages[i].data, bs);
	}
	*len = total;
	return b;
}

void eu_put64be(uint8_t *p, uint64_t v)
{
	for (int i = 0; i < 8; i++)
		p[i] = (uint8_t)(v >> (56 - 8 * i));
}

uint8_t *eu_flatten(const uint8_t *raw, size_t len, size_t chunk, size_t stride, size_t *outlen)
{
	size_t n = (len + chunk - 1) / chunk, at = 4096;
	uint8_t *b = calloc(1, 4096 + n * 16 + len + 16);

	if (!b)
		abort();
	memcpy(b, "makedumpfile", 12);
	eu_put64be(b + 16, 1);                          /* TYPE_FLAT_HEADER */
	eu_put64be(b + 24, 1);                          /* VERSION_FLAT_HEADER */
	for (size_t i = 0; i < n; i++) {
		size_t c = (i * stride) % n, off = c * chunk, sz = len - off < chunk ? len - off : chunk;

		eu_put64be(b + at, off);
		eu_put64be(b + at + 8, sz);
		memcpy(b + at + 16, raw + off, sz);
		at += 16 + sz;
	}
	eu_put64be(b + at, UINT64_MAX);                 /* END_FLAG_FLAT_HEADER */
	eu_put64be(b + at + 8, UINT64_MAX);
	*outlen = at + 16;
	return b;
}
