/*
 * test_src_elf.c — ELF cores as capture sources (docs/design.md §3.2): the parsing
 * layer (pt_src_dump.h) on cores built from the gABI layout (elf_util.c),
 * and the capture.ini text it generates.
 */
#include <check.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "elf_util.h"
#include "pt_src_dump.h"
#include "pt_src_kdump.h"
#include "pt_capture.h"
#include "pt_mem.h"
#include "pt_render.h"
#include "pt_walk.h"
#include "archive_util.h"
#include "testutil.h"

static char err[1024];

/* VMCOREINFO of an x86-64 kernel: Linux kernel/vmcore_info.c writes SYMBOL as %lx, NUMBER as %ld. */
static const char vmci[] =
	"OSRELEASE=6.1.0-28-cloud-amd64\nPAGESIZE=4096\n"
	"SYMBOL(init_top_pgt)=ffffffff9a40a000\n"
	"NUMBER(pgtable_l5_enabled)=1\n"
	"NUMBER(phys_base)=-1610612736\n"          /* -0x60000000: the kernel loaded below its link address */
	"KERNELOFFSET=19000000\n";

static uint8_t page[3][0x2000];

static void fill(void)
{
	for (int k = 0; k < 3; k++)
		for (size_t i = 0; i < sizeof page[k]; i++)
			page[k][i] = (uint8_t)(i * 7 + k * 13 + 1);
}

/* Two vCPUs, a CORE note, VMCOREINFO, and PT_LOADs of every kind. */
static uint8_t *std_core(size_t *len, struct eu_seg *segs, size_t nsegs)
{
	static uint8_t q0[432], q1[432], prs[336];
	struct eu_note notes[] = {
		{"CORE", 1, prs, sizeof prs},
		{"QEMU", 0, q0, sizeof q0},
		{"QEMU", 0, q1, sizeof q1},
		{"VMCOREINFO", 0, vmci, sizeof vmci - 1},
	};
	struct eu_core c = {.notes = notes, .nnotes = 4, .segs = segs, .nsegs = nsegs};

	eu_qemu_state(q0, 0x1234000, 0x3006f0);          /* CR4: PAE PGE ... no LA57 */
	eu_qemu_state(q1, 0x8000000005678001ull, 0x3016f0); /* CR4.LA57 (bit 12), PCID 1 in CR3 */
	return eu_build(&c, len);
}

START_TEST(parse_x86)
{
	/* QEMU dump/dump.c: one PT_LOAD per RAM block; p_offset -1 when not stored. */
	struct eu_seg segs[] = {
		{0x100000, page[1], 0x2000, 0x3000, false},     /* memsz > filesz: 0x1000 not captured */
		{0x0, page[0], 0x2000, 0, false},
		{0x40000000, NULL, 0, 0x10000, true},           /* p_offset -1 */
	};
	struct pt_elf_core c;
	size_t len;
	uint8_t *b;

	fill();
	b = std_core(&len, segs, 3);
	ck_assert_int_eq(pt_elf_parse(b, len, "vmcore", &c, err, sizeof err), PT_OK);
	ck_assert_uint_eq(c.facts.machine, PT_EM_X86_64);
	ck_assert_uint_eq(c.phnum, 4);
	ck_assert(!c.xnum);
	ck_assert_uint_eq(c.nloads, 3);
	ck_assert_uint_eq(c.nempty, 1);
	ck_assert_uint_eq(c.uncaptured, 0x1000);    /* the p_offset -1 segment is counted in nempty */
	/* sorted by address */
	ck_assert_uint_eq(c.nseg, 2);
	ck_assert_uint_eq(c.seg[0].paddr, 0);
	ck_assert_uint_eq(c.seg[0].phdr, 2);
	ck_assert_uint_eq(c.seg[0].offset, eu_seg_offset(1));
	ck_assert_uint_eq(c.seg[1].paddr, 0x100000);
	ck_assert_uint_eq(c.seg[1].filesz, 0x2000);
	ck_assert_mem_eq(b + c.seg[1].offset, page[1], 0x2000);
	/* the QEMU notes in order, CR3 @416 and CR4 @424 */
	ck_assert_uint_eq(c.facts.ncpu, 2);
	ck_assert_uint_eq(c.facts.cpu[0].cr3, 0x1234000);
	ck_assert_uint_eq(c.facts.cpu[0].cr4, 0x3006f0);
	ck_assert_uint_eq(c.facts.cpu[1].cr3, 0x8000000005678001ull);
	ck_assert_uint_eq(c.facts.cpu[1].cr4, 0x3016f0);
	ck_assert_uint_eq(c.facts.nprstatus, 1);
	ck_assert_ptr_nonnull(c.facts.vmcoreinfo);
	ck_assert_uint_eq(c.facts.vmcoreinfo_len, sizeof vmci - 1);
	ck_assert_mem_eq(b + c.facts.vmcoreinfo_off, vmci, sizeof vmci - 1);
	pt_elf_core_free(&c);
	free(b);
}
END_TEST

START_TEST(parse_aarch64)
{
	/* An arm64 header parses; its contexts come only from VMCOREINFO (no QEMU CR3 note). */
	static const char vi[] = "SYMBOL(swapper_pg_dir)=ffff800081a5e000\n"
		"NUMBER(kimage_voffset)=0xffff7fff40000000\nNUMBER(TCR_EL1_T1SZ)=0x10\n";
	struct eu_note notes[] = {{"VMCOREINFO", 0, vi, sizeof vi - 1}};
	struct eu_seg segs[] = {{0x40000000, page[0], 0x1000, 0, false}};
	struct eu_core ec = {.machine = PT_EM_AARCH64, .notes = notes, .nnotes = 1, .segs = segs, .nsegs = 1};
	struct pt_dump_region r = {"load1", 0x40000000, 0x1000, 0x1000};
	struct pt_buf text, warn;
	struct pt_elf_core c;
	size_t len;
	uint8_t *b;

	fill();
	b = eu_build(&ec, &len);
	ck_assert_int_eq(pt_elf_parse(b, len, "arm.core", &c, err, sizeof err), PT_OK);
	ck_assert_uint_eq(c.facts.machine, PT_EM_AARCH64);
	ck_assert_uint_eq(c.nseg, 1);
	ck_assert_uint_eq(c.facts.ncpu, 0);
	pt_buf_init(&text);
	pt_buf_init(&warn);
	/* the kernel context: TTBR1 at __pa_symbol(swapper_pg_dir), 64 - T1SZ VA bits, 4 KiB */
	ck_assert_int_eq(pt_dump_ini(&c.facts, "ELF core", "arm.core", "arm.core", &r, 1, &text, &warn,
				     err, sizeof err), PT_OK);
	ck_assert_msg(strstr(text.data, "format = arm64\n") != NULL, "%s", text.data);
	ck_assert_msg(strstr(text.data, "[arm64 kernel]\nttbr = 0x141a5e000\nhalf = upper\n"
			     "granule = 4096\nva_bits = 48\npa_bits = 48\nds = 0\ntbi = unknown\n"
			     "x-source = ttbr: VMCOREINFO SYMBOL(swapper_pg_dir)=ffff800081a5e000 - "
			     "NUMBER(kimage_voffset)=0xffff7fff40000000; va_bits: "
			     "NUMBER(TCR_EL1_T1SZ)=0x10 (64 - T1SZ); granule: no PAGESIZE: 4096; tbi: unknown, "
			     "the dump holds no TCR_EL1 (Linux sets TBI1 with CONFIG_ARM64_MTE; -o tbi=1 / --tbi 1 "
			     "says so)\n") != NULL,
		      "%s", text.data);
	ck_assert_msg(strstr(text.data, "x-root-kernel = ttbr: VMCOREINFO") != NULL, "%s", text.data);
	ck_assert_uint_eq(warn.len, 0);
	pt_buf_free(&text);
	pt_buf_free(&warn);
	/* the user's TBI1 (-o tbi=1, --tbi 1: pt_load_opts.tbi 2) */
	c.facts.tbi = 2;
	pt_buf_init(&text);
	pt_buf_init(&warn);
	ck_assert_int_eq(pt_dump_ini(&c.facts, "ELF core", "arm.core", "arm.core", &r, 1, &text, &warn,
				     err, sizeof err), PT_OK);
	ck_assert_msg(strstr(text.data, "ds = 0\ntbi = 1\n") && strstr(text.data, "; tbi: as the user set it "
		      "(-o tbi / --tbi)\n"), "%s", text.data);
	pt_buf_free(&text);
	pt_buf_free(&warn);
	pt_elf_core_free(&c);
	free(b);
}
END_TEST

START_TEST(pn_xnum)
{
	/* More than 0xfffe headers: e_phnum = PN_XNUM and the count in section 0's sh_info. */
	enum { N = 70000 };
	struct eu_seg *segs = calloc(N, sizeof *segs);
	struct eu_core ec = {.segs = segs, .nsegs = N, .xnum = true};
	struct pt_elf_core c;
	size_t len;
	uint8_t *b;

	/* every other page: no two contiguous, so none join */
	for (size_t i = 0; i < N; i++)
		segs[i] = (struct eu_seg){0x200000 + 2 * i * 0x1000, NULL, 16, 0x1000, false};
	b = eu_build(&ec, &len);
	ck_assert_int_eq(pt_elf_parse(b, len, "big", &c, err, sizeof err), PT_OK);
	ck_assert(c.xnum);
	ck_assert_uint_eq(c.phnum, N + 1);
	ck_assert_uint_eq(c.nloads, N);
	ck_assert_uint_eq(c.nseg, N);
	ck_assert_uint_eq(c.seg[N - 1].paddr, 0x200000 + 2 * (uint64_t)(N - 1) * 0x1000);
	pt_elf_core_free(&c);
	free(b);
	free(segs);
}
END_TEST

START_TEST(join_contiguous)
{
	/* Segments contiguous in address and file offset become one window. */
	struct eu_seg segs[] = {
		{0x0, page[0], 0x1000, 0, false},
		{0x1000, page[1], 0x1000, 0, false},
		{0x2000, page[2], 0x1000, 0, false},
		{0x4000, page[2], 0x1000, 0, false},
	};
	struct eu_core ec = {.segs = segs, .nsegs = 4};
	struct pt_elf_core c;
	size_t len;
	uint8_t *b;

	fill();
	b = eu_build(&ec, &len);
	ck_assert_int_eq(pt_elf_parse(b, len, "j", &c, err, sizeof err), PT_OK);
	ck_assert_uint_eq(c.nseg, 2);
	ck_assert_uint_eq(c.seg[0].filesz, 0x3000);
	ck_assert_uint_eq(c.seg[0].joined, 2);
	ck_assert_uint_eq(c.seg[1].paddr, 0x4000);
	pt_elf_core_free(&c);
	free(b);
}
END_TEST

START_TEST(overlap_merge_and_conflict)
{
	/*
	 * docs/design.md §3.2: identical overlapping ranges merge (QEMU paging dumps
	 * alias physical ranges; /proc/vmcore's text segment lies in a RAM
	 * segment), different bytes are an error naming both headers.
	 */
	static uint8_t other[0x1000];
	struct eu_seg same[] = {
		{0x10000, page[0], 0x2000, 0, false},
		{0x11000, page[0] + 0x1000, 0x1000, 0, false},  /* inside, same bytes */
		{0x10000, page[0], 0x2000, 0, false},           /* an exact alias */
		{0x11800, page[0] + 0x1800, 0x1000, 0, false},  /* partly past the end, same bytes: kept */
	};
	struct eu_seg diff[] = {
		{0x10000, page[0], 0x2000, 0, false},
		{0x11000, other, 0x1000, 0, false},
	};
	struct eu_core e1 = {.segs = same, .nsegs = 4}, e2 = {.segs = diff, .nsegs = 2};
	struct pt_elf_core c;
	size_t len;
	uint8_t *b;

	fill();
	memset(other, 0xee, sizeof other);
	b = eu_build(&e1, &len);
	ck_assert_int_eq(pt_elf_parse(b, len, "m", &c, err, sizeof err), PT_OK);
	ck_assert_uint_eq(c.nmerged, 2);
	ck_assert_uint_eq(c.nseg, 2);
	ck_assert_uint_eq(c.seg[1].paddr, 0x11800);
	pt_elf_core_free(&c);
	free(b);
	b = eu_build(&e2, &len);
	ck_assert_int_eq(pt_elf_parse(b, len, "m", &c, err, sizeof err), PT_E_CAPTURE);
	ck_assert_str_eq(err, "m: PT_LOAD 2 (0x11000-0x11fff) overlaps PT_LOAD 1 (0x10000-0x11fff) "
			 "with different bytes");
	pt_elf_core_free(&c);
	free(b);
}
END_TEST

START_TEST(ini_text)
{
	/* The generated capture.ini: windows of the member, cpuN from the notes, kernel from VMCOREINFO. */
	struct eu_seg segs[] = {{0x0, page[0], 0x2000, 0, false}};
	struct pt_dump_region r = {"load1", 0x0, 0x1000, 0x2000};
	struct pt_buf text, warn;
	struct pt_elf_core c;
	size_t len;
	uint8_t *b;
	pt_err rc;

	fill();
	b = std_core(&len, segs, 1);
	ck_assert_int_eq(pt_elf_parse(b, len, "vmcore", &c, err, sizeof err), PT_OK);
	pt_buf_init(&text);
	pt_buf_init(&warn);
	rc = pt_dump_ini(&c.facts, "ELF core", "vmcore", "vmcore", &r, 1, &text, &warn, err, sizeof err);
	{
		char want[2048];

		ck_assert_int_eq(rc, PT_OK);
		/*
		 * kernel: 0xffffffff9a40a000 - 0xffffffff80000000 + (-0x60000000)
		 * = 0x1a40a000 - 0x60000000 mod 2^64: no physical address, refused
		 * with a warning; the kernel context is its own test.
		 */
		snprintf(want, sizeof want,
			 "[capture]\nversion = 1\nformat = x86-64\n"
			 "x-dump = ELF core, 2 QEMU CPU notes, 1 NT_PRSTATUS notes, VMCOREINFO\n"
			 "x-root-cpu0 = cr3, cr4: QEMU note of cpu0 (QEMUCPUState at file offset 0x%" PRIx64 ")\n"
			 "x-root-cpu1 = cr3, cr4: QEMU note of cpu1 (QEMUCPUState at file offset 0x%" PRIx64 ")\n"
			 "[memory load1]\nspace = sysmem\nbase = 0x0\nfile = vmcore\noffset = 0x1000\nlength = 0x2000\n"
			 "[cpu cpu0]\ncr3 = 0x1234000\ncr4 = 0x3006f0\n"
			 "x-source = cr3, cr4: QEMU note of cpu0 (QEMUCPUState at file offset 0x%" PRIx64 ")\n"
			 "[cpu cpu1]\ncr3 = 0x8000000005678001\ncr4 = 0x3016f0\n"
			 "x-source = cr3, cr4: QEMU note of cpu1 (QEMUCPUState at file offset 0x%" PRIx64 ")\n",
			 c.facts.cpu[0].note_off, c.facts.cpu[1].note_off, c.facts.cpu[0].note_off,
			 c.facts.cpu[1].note_off);
		ck_assert_str_eq(text.data, want);
		ck_assert_str_eq(warn.data, "VMCOREINFO SYMBOL(init_top_pgt)=ffffffff9a40a000 with "
				 "NUMBER(phys_base)=-1610612736 gives 0xffffffffba40a000, not a 4 KiB-aligned "
				 "physical address below 2^52: no kernel context\n");
	}
	pt_buf_free(&text);
	pt_buf_free(&warn);
	pt_elf_core_free(&c);
	free(b);
}
END_TEST

/* A dump without VMCOREINFO: the warning says what QEMU's -device vmcoreinfo needs of the guest (issue #39 item 6). */
START_TEST(no_vmcoreinfo_says_why)
{
	struct pt_dump_facts f = {.machine = PT_EM_X86_64};
	struct pt_buf text, warn;

	pt_buf_init(&text);
	pt_buf_init(&warn);
	/* no context at all: the load fails, and the warnings say why */
	(void)pt_dump_ini(&f, "ELF core", "k", "k", NULL, 0, &text, &warn, err, sizeof err);
	ck_assert_str_eq(warn.data, "no VMCOREINFO note (QEMU writes it with -device vmcoreinfo once the guest's "
			 "qemu_fw_cfg driver has given it: a module on Debian, modprobe qemu_fw_cfg; QEMU's "
			 "\"guest note is not present\" says it had not): no kernel context\n");
	pt_buf_free(&text);
	pt_buf_free(&warn);
}
END_TEST

/* pt_dump_ini's kernel context from VMCOREINFO text VI alone; the [cpu kernel] section or NULL. */
static char *kernel_ctx(const char *vi, struct pt_buf *warn)
{
	struct pt_dump_facts f = {.machine = PT_EM_X86_64, .vmcoreinfo = vi, .vmcoreinfo_len = strlen(vi)};
	struct pt_buf text;
	char *k, *out = NULL;

	pt_buf_init(&text);
	pt_buf_init(warn);
	if (pt_dump_ini(&f, "kdump file", "k", "k", NULL, 0, &text, warn, err, sizeof err) == PT_OK &&
	    (k = strstr(text.data, "[cpu kernel]")))
		out = strdup(k);
	pt_buf_free(&text);
	return out;
}

START_TEST(kernel_from_vmcoreinfo)
{
	/*
	 * Linux arch/x86/kernel/vmcore_info_64.c: __pa_symbol(init_top_pgt) =
	 * init_top_pgt - __START_KERNEL_map (0xffffffff80000000) + phys_base;
	 * 5-level when NUMBER(pgtable_l5_enabled)=1.
	 */
	struct pt_buf warn;
	char *k;

	k = kernel_ctx("SYMBOL(init_top_pgt)=ffffffff9a40a000\nNUMBER(phys_base)=-436207616\n"
		       "NUMBER(pgtable_l5_enabled)=1\n", &warn);
	ck_assert_ptr_nonnull(k);
	/* 0x1a40a000 - 0x1a000000 = 0x40a000 */
	ck_assert_str_eq(k, "[cpu kernel]\ncr3 = 0x40a000\nla57 = 1\nx-source = cr3: VMCOREINFO "
			 "SYMBOL(init_top_pgt)=ffffffff9a40a000 - 0xffffffff80000000 + "
			 "NUMBER(phys_base)=-436207616; la57: NUMBER(pgtable_l5_enabled)=1\n");
	free(k);
	pt_buf_free(&warn);
	k = kernel_ctx("SYMBOL(init_top_pgt)=ffffffff82e0a000\nNUMBER(phys_base)=16777216\n", &warn);
	ck_assert_ptr_nonnull(k);
	ck_assert_str_eq(k, "[cpu kernel]\ncr3 = 0x3e0a000\nla57 = 0\nx-source = cr3: VMCOREINFO "
			 "SYMBOL(init_top_pgt)=ffffffff82e0a000 - 0xffffffff80000000 + NUMBER(phys_base)=16777216; "
			 "la57: no NUMBER(pgtable_l5_enabled) (a kernel before 4.14): 4-level\n");
	free(k);
	pt_buf_free(&warn);
	/* missing and malformed facts: no context, and a warning that says which */
	ck_assert_ptr_null(kernel_ctx("SYMBOL(init_top_pgt)=ffffffff82e0a000\n", &warn));
	ck_assert_str_eq(warn.data, "VMCOREINFO has SYMBOL(init_top_pgt) but no NUMBER(phys_base): "
			 "no kernel context\n");
	pt_buf_free(&warn);
	ck_assert_ptr_null(kernel_ctx("SYMBOL(init_top_pgt)=zz\nNUMBER(phys_base)=0\n", &warn));
	ck_assert_str_eq(warn.data, "VMCOREINFO SYMBOL(init_top_pgt)=zz is not an address that fits in 64 bits: "
			 "no kernel context\n");
	pt_buf_free(&warn);
	ck_assert_ptr_null(kernel_ctx("NUMBER(phys_base)=0\n", &warn));
	ck_assert_str_eq(warn.data, "VMCOREINFO has no SYMBOL(init_top_pgt): no kernel context\n");
	pt_buf_free(&warn);
	/* a NUMBER past 64 bits is said to be one, not "absent" (issue #34 item 9) */
	ck_assert_ptr_null(kernel_ctx("SYMBOL(init_top_pgt)=ffffffff82e0a000\nNUMBER(phys_base)=18446744073709551616\n",
				      &warn));
	ck_assert_str_eq(warn.data, "VMCOREINFO NUMBER(phys_base)=18446744073709551616 is not a number that fits "
			 "in 64 bits: no kernel context\n");
	pt_buf_free(&warn);
	ck_assert_ptr_null(kernel_ctx("SYMBOL(init_top_pgt)=1ffffffff82e0a000\nNUMBER(phys_base)=0\n", &warn));
	ck_assert_str_eq(warn.data, "VMCOREINFO SYMBOL(init_top_pgt)=1ffffffff82e0a000 is not an address that "
			 "fits in 64 bits: no kernel context\n");
	pt_buf_free(&warn);
	/* a key given twice with another value: warned with both, the first used */
	k = kernel_ctx("SYMBOL(init_top_pgt)=ffffffff82e0a000\nNUMBER(phys_base)=16777216\nOSRELEASE=6.1\n"
		       "NUMBER(phys_base)=0\nNUMBER(phys_base)=16777216\nOSRELEASE=6.1\n", &warn);
	ck_assert_ptr_nonnull(k);
	ck_assert(strstr(k, "cr3 = 0x3e0a000\n"));
	ck_assert_str_eq(warn.data, "VMCOREINFO gives NUMBER(phys_base) twice: 16777216, then 0 (the first is "
			 "used)\n");
	free(k);
	pt_buf_free(&warn);
	ck_assert_ptr_null(kernel_ctx("SYMBOL(init_top_pgt)=ffffffff82e0a000\nNUMBER(phys_base)=0\n"
				      "NUMBER(pgtable_l5_enabled)=2\n", &warn));
	ck_assert_str_eq(warn.data, "VMCOREINFO NUMBER(pgtable_l5_enabled)=2 is not 0 or 1: no kernel context\n");
	pt_buf_free(&warn);
}
END_TEST

/* The [arm64 kernel] text pt_dump_ini writes for an arm64 VMCOREINFO VI, or NULL (WARN says why). */
static char *arm64_ctx(const char *vi, struct pt_buf *warn)
{
	struct pt_dump_facts f = {.machine = PT_EM_AARCH64, .vmcoreinfo = vi, .vmcoreinfo_len = strlen(vi)};
	struct pt_buf text;
	char *k, *out = NULL;

	pt_buf_init(&text);
	pt_buf_init(warn);
	if (pt_dump_ini(&f, "kdump file", "k", "k", NULL, 0, &text, warn, err, sizeof err) == PT_OK &&
	    (k = strstr(text.data, "[arm64 kernel]")))
		out = strdup(k);
	pt_buf_free(&text);
	return out;
}

START_TEST(arm64_kernel_variants)
{
	/*
	 * Linux arch/arm64/kernel/vmcore_info.c: the VA size 64 - TCR_EL1_T1SZ,
	 * else VA_BITS; PAGESIZE the granule; a 52-bit 64K kernel on a 48-bit
	 * walk has TTBR1 = swapper_pg_dir + TTBR1_BADDR_4852_OFFSET (0x1e00,
	 * pgtable-hwdef.h); a 52-bit 4K VA is LPA2 (DS) with a 52-bit output.
	 */
	static const char base[] = "SYMBOL(swapper_pg_dir)=ffff800081a5e000\n"
		"NUMBER(kimage_voffset)=0xffff7fff40000000\n";
	struct pt_buf warn;
	char vi[512], *k;

	snprintf(vi, sizeof vi, "%sPAGESIZE=65536\nNUMBER(VA_BITS)=52\nNUMBER(TCR_EL1_T1SZ)=0x10\n"
		 "NUMBER(MAX_PHYSMEM_BITS)=52\n", base);
	k = arm64_ctx(vi, &warn);
	ck_assert_ptr_nonnull(k);
	ck_assert_msg(!strncmp(k, "[arm64 kernel]\nttbr = 0x141a5fe00\nhalf = upper\ngranule = 65536\n"
			       "va_bits = 48\npa_bits = 52\nds = 0\ntbi = unknown\n", strlen("[arm64 kernel]\n"
			       "ttbr = 0x141a5fe00\nhalf = upper\ngranule = 65536\nva_bits = 48\npa_bits = 52\n"
			       "ds = 0\ntbi = unknown\n")), "%s", k);
	ck_assert_ptr_nonnull(strstr(k, "+ TTBR1_BADDR_4852_OFFSET 0x1e00"));
	free(k);
	pt_buf_free(&warn);
	/* the early lower-case key, a 52-bit 4K VA: DS */
	snprintf(vi, sizeof vi, "%sNUMBER(tcr_el1_t1sz)=0xc\n", base);
	k = arm64_ctx(vi, &warn);
	ck_assert_ptr_nonnull(k);
	ck_assert_ptr_nonnull(strstr(k, "granule = 4096\nva_bits = 52\npa_bits = 52\nds = 1\n"));
	ck_assert_ptr_nonnull(strstr(k, "va_bits: NUMBER(tcr_el1_t1sz)=0xc (64 - T1SZ)"));
	free(k);
	pt_buf_free(&warn);
	/* VA_BITS alone */
	snprintf(vi, sizeof vi, "%sNUMBER(VA_BITS)=39\n", base);
	k = arm64_ctx(vi, &warn);
	ck_assert_ptr_nonnull(k);
	ck_assert_ptr_nonnull(strstr(k, "va_bits = 39\n"));
	free(k);
	pt_buf_free(&warn);
	/* refused: a page size arm64 has not, a T1SZ out of range, no kimage_voffset */
	snprintf(vi, sizeof vi, "%sPAGESIZE=8192\n", base);
	ck_assert_ptr_null(arm64_ctx(vi, &warn));
	ck_assert_str_eq(warn.data, "VMCOREINFO PAGESIZE=8192 is not 4096, 16384 or 65536: no kernel context\n");
	pt_buf_free(&warn);
	snprintf(vi, sizeof vi, "%sNUMBER(TCR_EL1_T1SZ)=0x40\n", base);
	ck_assert_ptr_null(arm64_ctx(vi, &warn));
	ck_assert_str_eq(warn.data, "VMCOREINFO NUMBER(TCR_EL1_T1SZ)=0x40 is outside 12..39: no kernel context\n");
	pt_buf_free(&warn);
	ck_assert_ptr_null(arm64_ctx("SYMBOL(swapper_pg_dir)=ffff800081a5e000\n", &warn));
	ck_assert_str_eq(warn.data, "VMCOREINFO has no SYMBOL(swapper_pg_dir) and NUMBER(kimage_voffset): "
			 "no kernel context\n");
	pt_buf_free(&warn);
}
END_TEST

START_TEST(vmcoreinfo_lookup)
{
	/* KEY=VALUE lines; the note's text may end in NUL padding. */
	static const char vi[] = "A=1\nSYMBOL(x)=ff\nSYMBOL(xy)=2\nLAST=end\0\0\0";
	struct pt_dump_facts f = {.vmcoreinfo = vi, .vmcoreinfo_len = sizeof vi - 1};
	char v[16];

	ck_assert(pt_vmcoreinfo_get(&f, "SYMBOL(x)", v, sizeof v));
	ck_assert_str_eq(v, "ff");
	ck_assert(pt_vmcoreinfo_get(&f, "SYMBOL(xy)", v, sizeof v));
	ck_assert_str_eq(v, "2");
	ck_assert(pt_vmcoreinfo_get(&f, "LAST", v, sizeof v));
	ck_assert_str_eq(v, "end");
	ck_assert(!pt_vmcoreinfo_get(&f, "SYMBOL", v, sizeof v));
	ck_assert(!pt_vmcoreinfo_get(&f, "B", v, sizeof v));
	ck_assert(!pt_vmcoreinfo_get(&f, "SYMBOL(x)", v, 2));  /* does not fit: not cut */
}
END_TEST

START_TEST(detect)
{
	uint8_t h[64] = "\177ELF\2\1\1";

	h[16] = 4;
	ck_assert(pt_elf_detect(h, sizeof h));
	h[16] = 2;                                  /* ET_EXEC */
	ck_assert(!pt_elf_detect(h, sizeof h));
	ck_assert(!pt_elf_detect("KDUMP   ", 8));
	ck_assert(!pt_elf_detect(h, 4));
}
END_TEST

/* A raw kdump file of 3 pages (PFN 1, 2, 100) with a QEMU note and VMCOREINFO, written to a temp file. */
static int kdump_file(char **dir, unsigned lie, const char *machine)
{
	static uint8_t pg[3][4096], q[432];
	struct eu_note n[] = {{"QEMU", 0, q, sizeof q}};
	struct eu_page p[] = {{1, pg[0]}, {2, pg[1]}, {100, pg[2]}};
	struct eu_kdump k = {machine, n, 1, vmci, p, 3, 256, lie};
	size_t len;
	uint8_t *b;
	char path[4200];
	int fd;

	for (int i = 0; i < 3; i++)
		for (size_t j = 0; j < 4096; j++)
			pg[i][j] = (uint8_t)(j + 31 * i + 5);
	eu_qemu_state(q, 0x7000, 0x1000);
	b = eu_kdump_build(&k, &len);
	*dir = tu_mkdtemp();
	snprintf(path, sizeof path, "%s/vmcore.kdump", *dir);
	tu_write(*dir, "vmcore.kdump", b, len);
	free(b);
	fd = open(path, O_RDONLY);
	ck_assert_int_ge(fd, 0);
	return fd;
}

START_TEST(kdump_raw)
{
	/* libkdumpfile reads the pages on demand; the notes come through the ELF note walker. */
	struct pt_kdump *k;
	char *dir;
	int fd = kdump_file(&dir, 0, "x86_64");
	const struct pt_dump_facts *f;
	uint8_t buf[0x2000];

	ck_assert_int_eq(pt_kdump_open(fd, "vmcore.kdump", &k, err, sizeof err), PT_OK);
	ck_assert_str_eq(pt_kdump_format(k), "diskdump");
	ck_assert_uint_eq(pt_kdump_page_size(k), 4096);
	ck_assert_uint_eq(pt_kdump_size(k), 256 * 4096);
	f = pt_kdump_facts(k);
	ck_assert_uint_eq(f->machine, PT_EM_X86_64);
	ck_assert_uint_eq(f->ncpu, 1);
	ck_assert_uint_eq(f->cpu[0].cr3, 0x7000);
	ck_assert_uint_eq(f->cpu[0].cr4, 0x1000);
	ck_assert_uint_eq(f->vmcoreinfo_len, sizeof vmci - 1);
	ck_assert_mem_eq(f->vmcoreinfo, vmci, sizeof vmci - 1);
	/* pages 1 and 2 in one read across the page boundary */
	ck_assert(pt_kdump_read(k, 0x1800, buf, 0x1000));
	ck_assert_uint_eq(buf[0], (uint8_t)(0x800 + 5));
	ck_assert_uint_eq(buf[0x800], (uint8_t)(0 + 31 + 5));
	ck_assert(pt_kdump_read(k, 100 * 4096 + 8, buf, 8));
	ck_assert_uint_eq(buf[0], (uint8_t)(8 + 62 + 5));
	/* a page the dump does not hold is not captured; so is a read running into one */
	ck_assert(!pt_kdump_read(k, 0, buf, 8));
	ck_assert(!pt_kdump_read(k, 0x2ff8, buf, 16));
	ck_assert(!pt_kdump_read(k, 300 * 4096, buf, 8));
	ck_assert(!pt_kdump_read(k, UINT64_MAX - 3, buf, 8));
	pt_kdump_close(k);
	close(fd);
	tu_rmtree(dir);
	free(dir);
}
END_TEST

START_TEST(kdump_bitmap_lies)
{
	/* Bitmap 2 claims pages past the last with no descriptor for them: those reads fail, nothing else. */
	struct pt_kdump *k;
	char *dir;
	int fd = kdump_file(&dir, 3, "x86_64");
	uint8_t buf[8];

	ck_assert_int_eq(pt_kdump_open(fd, "vmcore.kdump", &k, err, sizeof err), PT_OK);
	ck_assert(pt_kdump_read(k, 100 * 4096, buf, 8));
	for (uint64_t pfn = 101; pfn < 104; pfn++)
		ck_assert(!pt_kdump_read(k, pfn * 4096, buf, 8));
	pt_kdump_close(k);
	close(fd);
	tu_rmtree(dir);
	free(dir);
}
END_TEST

START_TEST(kdump_flattened)
{
	/*
	 * makedumpfile's flattened stream (makedumpfile.h: a 4096-byte header
	 * "makedumpfile", type 1, version 1, big-endian; then {offset, size,
	 * data} records): libkdumpfile 0.5.1 does not read it, and ptfs says so.
	 */
	uint8_t h[4096] = "makedumpfile";
	struct pt_kdump *k;
	char *dir = tu_mkdtemp(), path[4200];
	int fd;

	h[23] = 1;
	h[31] = 1;
	tu_write(dir, "flat", h, sizeof h);
	snprintf(path, sizeof path, "%s/flat", dir);
	fd = open(path, O_RDONLY);
	ck_assert_int_eq(pt_kdump_detect(h, sizeof h), PT_KDUMP_FLAT);
	ck_assert_int_eq(pt_kdump_open(fd, "flat", &k, err, sizeof err), PT_E_UNSUPPORTED);
	ck_assert_ptr_null(k);
	ck_assert_str_eq(err, "flat: a flattened kdump file (makedumpfile's stream format, QEMU's "
			 "kdump-zlib|lzo|snappy before 8.2): libkdumpfile 0.5.1 does not read it; "
			 "'makedumpfile -R flat.raw < flat' rewrites it as a plain kdump file");
	ck_assert_int_eq(pt_kdump_detect("KDUMP   ", 8), PT_KDUMP_RAW);
	ck_assert_int_eq(pt_kdump_detect("DISKDUMP", 8), PT_KDUMP_RAW);
	ck_assert_int_eq(pt_kdump_detect("\177ELF\2\1\1\0", 8), PT_KDUMP_NONE);
	close(fd);
	tu_rmtree(dir);
	free(dir);
}
END_TEST

START_TEST(kdump_garbage)
{
	/* A "KDUMP   " signature over garbage: libkdumpfile's words, one line, nothing opened. */
	uint8_t h[8192];
	struct pt_kdump *k;
	char *dir = tu_mkdtemp(), path[4200];
	int fd;

	memset(h, 0xff, sizeof h);
	memcpy(h, "KDUMP   ", 8);
	tu_write(dir, "bad", h, sizeof h);
	snprintf(path, sizeof path, "%s/bad", dir);
	fd = open(path, O_RDONLY);
	ck_assert_int_ne(pt_kdump_open(fd, "bad", &k, err, sizeof err), PT_OK);
	ck_assert_ptr_null(k);
	ck_assert_msg(!strncmp(err, "bad: ", 5) && !strchr(err, '\n'), "%s", err);
	close(fd);
	tu_rmtree(dir);
	free(dir);
}
END_TEST

static bool starts(const char *s, const char *prefix)
{
	return !strncmp(s, prefix, strlen(prefix));
}

START_TEST(load_fixture)
{
	/*
	 * fixtures/qemu-x86.elf (fixtures/mkf_elf.c) through pt_capture_load:
	 * each PT_LOAD with file bytes a region served in place, contexts from
	 * the QEMU notes and VMCOREINFO, each saying where its root came from.
	 */
	struct pt_capture *cap = pt_capture_new();
	const struct pt_mem *mem;
	const struct pt_context *c;
	uint8_t buf[16];

	ck_assert_int_eq(pt_capture_load(cap, tu_fixture("qemu-x86.elf")), PT_OK);
	ck_assert_str_eq(pt_capture_source_kind(cap), "ELF core");
	ck_assert_str_eq(pt_capture_format(cap)->name, "x86-64");
	ck_assert_uint_eq(pt_capture_region_count(cap), 3);
	ck_assert_str_eq(pt_capture_region(cap, 0)->name, "load1");
	ck_assert_uint_eq(pt_capture_region(cap, 0)->size, 0x10000);
	ck_assert_str_eq(pt_capture_region(cap, 1)->name, "load4");
	ck_assert_uint_eq(pt_capture_region(cap, 1)->base, 0x10000);
	ck_assert_uint_eq(pt_capture_region(cap, 1)->size, 0x1000);   /* p_filesz, not p_memsz */
	ck_assert_str_eq(pt_capture_region(cap, 2)->name, "load2");
	ck_assert_uint_eq(pt_capture_region(cap, 2)->base, 0x100000000ull);
	for (size_t i = 0; i < 3; i++)
		ck_assert(pt_capture_region(cap, i)->in_place);
	mem = pt_capture_mem(cap);
	ck_assert(pt_mem_read(mem, 0, 0x10ff8, buf, 8));
	ck_assert_uint_eq(buf[0], 0x5a);
	ck_assert(!pt_mem_read(mem, 0, 0x11000, buf, 8));     /* past p_filesz */
	ck_assert(!pt_mem_read(mem, 0, 0x200000, buf, 8));    /* p_offset -1 */
	ck_assert(au_warned(cap, "1 PT_LOAD segments without file bytes"));
	ck_assert(au_warned(cap, "0x1000 bytes of PT_LOAD segments past their p_filesz"));
	ck_assert_uint_eq(pt_capture_context_count(cap), 3);
	c = pt_capture_context_find(cap, "cpu0");
	ck_assert_uint_eq(c->root_addr, 0x1000);
	ck_assert_uint_eq(c->nannotations, 1);
	ck_assert_str_eq(c->annotations[0].key, "x-source");
	ck_assert(starts(c->annotations[0].value, "cr3, cr4: QEMU note of cpu0 (QEMUCPUState at file offset 0x"));
	c = pt_capture_context_find(cap, "cpu1");
	ck_assert_uint_eq(c->root_addr, 0x7000);             /* the PCID masked out of CR3 0x7001 */
	c = pt_capture_context_find(cap, "kernel");
	ck_assert_uint_eq(c->root_addr, 0x1000);
	ck_assert(starts(c->annotations[0].value, "cr3: VMCOREINFO SYMBOL(init_top_pgt)=ffffffff82001000 "));
	pt_capture_free(cap);
}
END_TEST

START_TEST(load_kdump)
{
	/* A kdump file through pt_capture_load: one region read on demand, contexts from its notes. */
	struct pt_capture *cap = pt_capture_new();
	const struct pt_region_info *r;
	const struct pt_mem *mem;
	char *dir, path[4200];
	uint8_t buf[16];
	int fd = kdump_file(&dir, 0, "x86_64");

	close(fd);
	snprintf(path, sizeof path, "%s/vmcore.kdump", dir);
	ck_assert_msg(pt_capture_load(cap, path) == PT_OK, "%s", pt_capture_error(cap));
	ck_assert_str_eq(pt_capture_source_kind(cap), "kdump file");
	ck_assert_uint_eq(pt_capture_region_count(cap), 1);
	r = pt_capture_region(cap, 0);
	ck_assert_str_eq(r->name, "ram");
	ck_assert_uint_eq(r->size, 256 * 4096);
	ck_assert(!r->in_place);
	mem = pt_capture_mem(cap);
	ck_assert(pt_mem_read(mem, 0, 0x1000, buf, 8));
	ck_assert_uint_eq(buf[0], 5);
	ck_assert(pt_mem_read(mem, 0, 100 * 4096, buf, 8));
	ck_assert(!pt_mem_read(mem, 0, 0, buf, 8));          /* not in the dump: not captured */
	ck_assert(!pt_mem_read(mem, 0, 3 * 4096, buf, 8));
	ck_assert_uint_eq(pt_capture_context_count(cap), 1);  /* vmci's kernel root is no address: warned */
	ck_assert_uint_eq(pt_capture_context_find(cap, "cpu0")->root_addr, 0x7000);
	ck_assert(au_warned(cap, "no kernel context"));
	pt_capture_free(cap);
	tu_rmtree(dir);
	free(dir);
}
END_TEST

START_TEST(load_kdump_flattened)
{
	/*
	 * QEMU 7.2's dump-guest-memory -z writes the flattened stream: read as
	 * it is, through an unlinked temporary file in $TMPDIR (none left
	 * behind), giving what the seekable file gives; the load says so with
	 * the size.
	 */
	struct pt_capture *cap = pt_capture_new(), *raw = pt_capture_new();
	char *dir, *tmp = tu_mkdtemp(), path[4200], *old = getenv("TMPDIR") ? strdup(getenv("TMPDIR")) : NULL;
	uint8_t a[4096], b[4096], *bytes, *flat;
	size_t len, flen;
	int fd = kdump_file(&dir, 0, "x86_64");
	struct stat st;

	ck_assert_int_eq(fstat(fd, &st), 0);
	len = (size_t)st.st_size;
	bytes = malloc(len);
	ck_assert_int_eq(pread(fd, bytes, len, 0), (ssize_t)len);
	close(fd);
	/* 1000-byte records in a shuffled order (7 is prime to the count) */
	flat = eu_flatten(bytes, len, 1000, 7, &flen);
	tu_write(dir, "vmcore.flat", flat, flen);
	setenv("TMPDIR", tmp, 1);
	snprintf(path, sizeof path, "%s/vmcore.flat", dir);
	ck_assert_msg(pt_capture_load(cap, path) == PT_OK, "%s", pt_capture_error(cap));
	if (old)
		setenv("TMPDIR", old, 1);
	else
		unsetenv("TMPDIR");
	ck_assert_str_eq(pt_capture_source_kind(cap), "kdump file");
	snprintf(path, sizeof path, "a flattened kdump file (makedumpfile's stream format): reassembled into "
		 "an unlinked temporary file of %zuK (0x%zx bytes) in %s, freed when the capture is closed",
		 len >> 10, len, tmp);
	ck_assert_msg(au_warned(cap, path), "no warning '%s'", path);
	ck_assert_int_eq(rmdir(tmp), 0);                /* empty: the file was never linked there */
	snprintf(path, sizeof path, "%s/vmcore.kdump", dir);
	ck_assert_int_eq(pt_capture_load(raw, path), PT_OK);
	for (uint64_t pa = 0; pa < 256 * 4096; pa += 4096) {
		bool ga = pt_mem_read(pt_capture_mem(cap), 0, pa, a, sizeof a);

		ck_assert_int_eq(ga, pt_mem_read(pt_capture_mem(raw), 0, pa, b, sizeof b));
		ck_assert(!ga || !memcmp(a, b, sizeof a));
	}
	ck_assert(pt_mem_read(pt_capture_mem(cap), 0, 100 * 4096, a, 8));
	ck_assert_uint_eq(pt_capture_context_find(cap, "cpu0")->root_addr, 0x7000);
	pt_capture_free(cap);
	pt_capture_free(raw);
	free(bytes);
	free(flat);
	free(old);
	free(tmp);
	tu_rmtree(dir);
	free(dir);
}
END_TEST

START_TEST(arm64_tagged_va)
{
	/*
	 * An arm64 dump holds no TCR_EL1: its kernel context says tbi is
	 * unknown (info), walks a tagged VA as TBI clear and says in the
	 * fault what it walks as with TBI set; -o tbi=1 / --tbi 1 (load
	 * option tbi 2) walks it as Debian's MTE kernel does (Linux
	 * arch/arm64/mm/proc.S TCR_MTE_FLAGS: QEMU's gva2gpa 0xfeff000000000000
	 * gives 0x40000000).  Tables: L0 at 0x40001000, L0[0] -> L1 at
	 * 0x40002000, L1[0] a 1 GiB block at 0x40000000 (Arm ARM D8.3).
	 */
	static const char vi[] = "SYMBOL(swapper_pg_dir)=ffff800081001000\n"
		"NUMBER(kimage_voffset)=0xffff800041000000\nNUMBER(TCR_EL1_T1SZ)=0x10\n";
	static uint8_t mem[0x3000];
	struct eu_note notes[] = {{"VMCOREINFO", 0, vi, sizeof vi - 1}};
	struct eu_seg segs[] = {{0x40000000, mem, sizeof mem, sizeof mem, false}};
	struct eu_core ec = {.machine = PT_EM_AARCH64, .notes = notes, .nnotes = 1, .segs = segs, .nsegs = 1};
	char *dir = tu_mkdtemp(), path[4200];
	struct pt_buf out;
	size_t len;
	uint8_t *b;

	memset(mem, 0, sizeof mem);
	eu_put64(mem + 0x1000, 0x40002003);             /* L0[0]: table */
	eu_put64(mem + 0x2000, 0x40000401);             /* L1[0]: block, AF */
	b = eu_build(&ec, &len);
	tu_write(dir, "arm.core", b, len);
	free(b);
	snprintf(path, sizeof path, "%s/arm.core", dir);
	for (unsigned tbi = 0; tbi <= 2; tbi++) {
		struct pt_capture *cap = pt_capture_new();
		const struct pt_context *k;
		struct pt_walk w;

		ck_assert_int_eq(pt_capture_load_opts(cap, path, &(struct pt_load_opts){.tbi = tbi}), PT_OK);
		k = pt_capture_context_find(cap, "kernel");
		ck_assert_ptr_nonnull(k);
		ck_assert_int_eq(pt_walk_va(k, 0xffff000000000000ull, &w), PT_OK);
		ck_assert_int_eq(w.fault, PT_FAULT_NONE);
		ck_assert_uint_eq(w.pa, 0x40000000);
		ck_assert_int_eq(pt_walk_va(k, 0xfeff000000000000ull, &w), PT_OK);
		ck_assert_int_eq(w.fault, tbi == 2 ? PT_FAULT_NONE : PT_FAULT_NONCANONICAL);
		if (tbi == 2)
			ck_assert_uint_eq(w.pa, 0x40000000);
		pt_buf_init(&out);
		ck_assert_int_eq(pt_render_walk(&out, k, &w, PT_OUT_TEXT), PT_OK);
		/* the fault says what the answer depends on only while TBI is unknown */
		ck_assert_msg(!!strstr(out.data, "tbi=unknown: with TBI set the top byte is a tag and this VA "
				      "walks as 0xffff000000000000") == (tbi == 0), "%s", out.data);
		pt_buf_free(&out);
		pt_buf_init(&out);
		ck_assert_int_eq(pt_render_info(&out, k, PT_OUT_TEXT, NULL), PT_OK);
		ck_assert_msg(strstr(out.data, tbi == 0 ? "tbi: unknown (no TCR_EL1 says TBI1" :
				     tbi == 1 ? "tbi: 0 (TBI1" : "tbi: 1 (TBI1"), "%s", out.data);
		ck_assert_msg(strstr(out.data, tbi ? "tbi: as the user set it" : "tbi: unknown, the dump holds no "
				     "TCR_EL1"), "%s", out.data);
		pt_buf_free(&out);
		pt_capture_free(cap);
	}
	tu_rmtree(dir);
	free(dir);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("src_elf");
	TCase *tc = tcase_create("parse");

	tcase_add_test(tc, no_vmcoreinfo_says_why);
	tcase_add_test(tc, parse_x86);
	tcase_add_test(tc, parse_aarch64);
	tcase_add_test(tc, pn_xnum);
	tcase_add_test(tc, join_contiguous);
	tcase_add_test(tc, overlap_merge_and_conflict);
	tcase_add_test(tc, vmcoreinfo_lookup);
	tcase_add_test(tc, detect);
	suite_add_tcase(s, tc);
	tc = tcase_create("kdump");
	tcase_add_test(tc, kdump_raw);
	tcase_add_test(tc, kdump_bitmap_lies);
	tcase_add_test(tc, kdump_flattened);
	tcase_add_test(tc, kdump_garbage);
	suite_add_tcase(s, tc);
	tc = tcase_create("load");
	tcase_add_test(tc, load_fixture);
	tcase_add_test(tc, load_kdump);
	tcase_add_test(tc, load_kdump_flattened);
	tcase_add_test(tc, arm64_tagged_va);
	suite_add_tcase(s, tc);
	tc = tcase_create("ini");
	tcase_add_test(tc, ini_text);
	tcase_add_test(tc, kernel_from_vmcoreinfo);
	tcase_add_test(tc, arm64_kernel_variants);
	suite_add_tcase(s, tc);
	return tu_run(s);
}
