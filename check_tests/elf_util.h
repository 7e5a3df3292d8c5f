/*
 * elf_util: ELF cores written at test time from the System V gABI layout
 * (Elf64_Ehdr, Elf64_Phdr, Elf64_Nhdr; Linux include/uapi/linux/elf.h) and
 * QEMU's dump/dump.c order (notes, then memory), for test_src_elf and
 * test_hostile_dump.  Never through the reader under test.
 */
#ifndef ELF_UTIL_H
#define ELF_UTIL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* One PT_LOAD: FILESZ bytes of DATA (NULL: zeros) at PADDR; OFFSET_NONE writes p_offset -1. */
struct eu_seg {
	uint64_t paddr;
	const void *data;
	uint64_t filesz, memsz;
	bool offset_none;
};

/* One note of the PT_NOTE segment. */
struct eu_note {
	const char *name;       /* namesz = strlen + 1 */
	uint32_t type;
	const void *desc;
	uint32_t descsz;
};

struct eu_core {
	uint8_t cls, data;      /* EI_CLASS, EI_DATA: 2, 1 unless set */
	uint16_t machine;       /* EM_X86_64 (62) unless set */
	const struct eu_note *notes;
	size_t nnotes;
	const struct eu_seg *segs;
	size_t nsegs;
	bool xnum;              /* e_phnum = PN_XNUM, the count in section 0's sh_info */
};

/* Builds the core; *LEN its size; free the result.  Segment data starts on 4 KiB boundaries. */
uint8_t *eu_build(const struct eu_core *c, size_t *len);
/* File offset of segment I's data in the last eu_build() result. */
uint64_t eu_seg_offset(size_t i);
/* A 432-byte QEMUCPUState (QEMU target/i386/arch_dump.c): version 1, size 432, CR3 @416, CR4 @424. */
void eu_qemu_state(uint8_t out[432], uint64_t cr3, uint64_t cr4);
/* Little-endian stores. */
void eu_put32(uint8_t *p, uint32_t v);
void eu_put64(uint8_t *p, uint64_t v);

/*
 * A raw kdump-compressed file (makedumpfile's diskdump layout, as QEMU
 * dump/dump.c create_kdump_vmcore writes it; include/sysemu/dump.h): block
 * 0 DiskDumpHeader64, block 1 KdumpSubHeader64 with the notes and
 * VMCOREINFO after it, two bitmaps, page descriptors, pages (stored raw,
 * flags 0).  Block size 4096.
 */
struct eu_page {
	uint64_t pfn;
	const void *data;       /* 4096 bytes */
};

struct eu_kdump {
	const char *machine;    /* utsname.machine: "x86_64" */
	const struct eu_note *notes;
	size_t nnotes;
	const char *vmcoreinfo; /* NULL: none */
	const struct eu_page *pages;   /* in PFN order */
	size_t npages;
	uint64_t max_mapnr;
	unsigned lie;           /* bitmap 2 claims this many more pages past the last, with no descriptors */
};

uint8_t *eu_kdump_build(const struct eu_kdump *k, size_t *len);

/*
 * LEN bytes of RAW as makedumpfile's flattened stream (makedumpfile.h
 * struct makedumpfile_header / makedumpfile_data_header; QEMU
 * include/sysemu/dump.h): the 4096-byte header ("makedumpfile", type 1,
 * version 1, big-endian), records of {offset, size} (big-endian) and
 * their bytes, CHUNK bytes each, written in the order a stride of STRIDE
 * chunks visits them (1: in order; a stride prime to the count shuffles
 * them, as QEMU's interleaved descriptor and data writes do), then the
 * end record {-1, -1}.  *OUTLEN its size.
 */
uint8_t *eu_flatten(const uint8_t *raw, size_t len, size_t chunk, size_t stride, size_t *outlen);
/* Big-endian store (the flattened format's numbers). */
void eu_put64be(uint8_t *p, uint64_t v);

#endif
