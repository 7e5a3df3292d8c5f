/*
 * fuzz_pci — libFuzzer target for the walk of a Linux dump's PCI
 * functions (core/linux/pci.c pt_pci_walk, issue #40 item 9).
 *
 * The guest is check_tests/linux_util.c's synthetic one: its BTF (made by
 * libbpf's writer) gives the offsets once; its direct map (PA 0..16 MiB
 * through 2 MiB pages, PML4 at 0x1000) is an x86-64 context over two
 * regions of sysmem: the page tables (0..0x4000, fixed) and the 32 KiB at
 * PCI_AT (0x700000), where linux_util.c lays out pci_root_buses, two
 * pci_bus, three pci_dev, two device_driver and their names.  The input
 * replaces that region's first bytes (the rest stays the valid guest's,
 * so an empty input walks the valid lists; the seed, mkpciseed.c, is the
 * whole valid region): list heads, bus numbers, devfns, driver pointers
 * and names are the fuzzer's.  Then pt_pci_walk from pci_root_buses, and
 * the names of each function through libpci as pci.c gives them.
 *
 * Invariants checked (abort -> libFuzzer reports a crash):
 *  - at most PT_PCI_MAX functions; a driver name NUL-terminated, printable;
 *  - the problem line NUL-terminated with no control character;
 *  - the same input walked twice gives the same functions (no state kept).
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <bpf/btf.h>

#include "linux_int.h"
#include "linux_util.h"
#include "pt_linux.h"
#include "pt_format.h"
#include "pt_mem.h"

#define PCI_AT 0x700000u
#define PCI_LEN 0x8000u
#define LOW_LEN 0x4000u

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static struct pt_pci_off off;
static uint8_t low[LOW_LEN], valid[PCI_LEN], region[PCI_LEN];
static struct pt_context ctx;

/* The offsets, the fixed memory and the kernel's context, once. */
static void init(void)
{
	static bool done;
	struct pt_ctx_key k;
	char err[256];
	size_t n;
	uint8_t *blob, *ram;
	struct btf *btf;
	const struct pt_format *f;

	if (done)
		return;
	done = true;
	blob = lu_btf(&n);
	btf = blob ? pt_btf_parse(blob, n) : NULL;
	if (!btf || !pt_pci_offsets(btf, &off, err, sizeof err))
		abort();
	btf__free(btf);
	free(blob);
	ram = lu_ram(&(struct lu_opts){.pci = LU_PCI});
	if (!ram)
		abort();
	memcpy(low, ram, LOW_LEN);
	memcpy(valid, ram + PCI_AT, PCI_LEN);
	free(ram);
	f = pt_format_find("x86-64");
	if (!f)
		abort();
	ctx.name = "kernel";
	ctx.fmt = f;
	ctx.priv = calloc(1, f->ctx_size);
	k = (struct pt_ctx_key){"cr3", "0x1000", 1, "[cpu kernel]", err, sizeof err};
	if (!ctx.priv || f->ctx_key(ctx.priv, &k) != PT_OK || f->ctx_missing(ctx.priv) ||
	    f->ctx_setup(&ctx, err, sizeof err) != PT_OK)
		abort();
}

static void check(const struct pt_pci_devs *d)
{
	if (d->n > PT_PCI_MAX || !memchr(d->problem, 0, sizeof d->problem))
		abort();
	for (const char *p = d->problem; *p; p++)
		if ((unsigned char)*p < 0x20 || *p == 0x7f)
			abort();
	for (size_t i = 0; i < d->n; i++) {
		const char *drv = d->dev[i].driver;
		char cname[128], vdname[256];

		if (!memchr(drv, 0, sizeof d->dev[i].driver))
			abort();
		for (; *drv; drv++)
			if (*drv <= 0x20 || *drv >= 0x7f)
				abort();
		/* the first few by name, as pci.c's rows give them (libpci's pci.ids) */
		if (i < 4)
			(void)pt_linux_pci_names(d->dev[i].vendor, d->dev[i].device, d->dev[i].cls, cname, sizeof cname,
						 vdname, sizeof vdname);
	}
}

static pt_err walk(struct pt_pci_devs *out)
{
	struct pt_kmem k;

	memset(out, 0, sizeof *out);
	pt_kmem_init(&k, &ctx);
	return pt_pci_walk(&k, &off, LU_PAGE_OFFSET + PCI_AT, out);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct pt_pci_devs a, b;
	struct pt_mem *mem;
	unsigned id;

	if (size > PCI_LEN)
		return 0;
	init();
	memcpy(region, valid, PCI_LEN);
	if (size)
		memcpy(region, data, size);
	mem = pt_mem_new(1);
	if (!mem || pt_mem_add_borrowed(mem, 0, 0, low, LOW_LEN, &id) != PT_OK ||
	    pt_mem_add_borrowed(mem, 0, PCI_AT, region, PCI_LEN, &id) != PT_OK || pt_mem_seal(mem, NULL, NULL) != PT_OK)
		abort();
	ctx.mem = mem;
	if (walk(&a) == PT_OK) {
		check(&a);
		/* a second walk of the same bytes: the same functions */
		if (walk(&b) == PT_OK && (b.n != a.n || (a.n && memcmp(a.dev, b.dev, a.n * sizeof *a.dev)) ||
					  strcmp(a.problem, b.problem)))
			abort();
		pt_pci_devs_free(&b);
	}
	pt_pci_devs_free(&a);
	ctx.mem = NULL;
	pt_mem_free(mem);
	return 0;
}
