/* SPDX-License-Identifier: MIT */
/*
 * pcilist.c — the guest's PCI functions as people read them (docs/design.md
 * §3.3): the fields an IOMMU device line and a device context's info gain,
 * and the table of every function with the IOMMU context that translates
 * it (ptfs-tool pci, mnt/pci).
 *
 * A device context matches a function by segment and BDF (VT-d, AMD-Vi), or
 * an SMMUv3 StreamID equal to the requester ID on segment 0: QEMU's virt
 * board maps RIDs to StreamIDs one to one (hw/arm/virt.c, "iommu-map"
 * <0x0 &smmu 0x0 0x10000>); another board's iommu-map may not.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pt_buf.h"
#include "pt_linux.h"

static uint32_t key_of(unsigned segment, unsigned bus, unsigned devfn)
{
	return (uint32_t)segment << 16 | (uint32_t)bus << 8 | devfn;
}

const struct pt_pci_dev *pt_linux_pci_of(const struct pt_capture *cap, const struct pt_ctx_iommu *io)
{
	struct pt_pci_list l;
	uint32_t k;
	size_t lo = 0, hi;

	pt_capture_pci(cap, &l);
	if (!io || !l.n || (!io->has_bdf && !io->has_sid) || (io->has_sid && io->sid > 0xffff))
		return NULL;
	k = io->has_bdf ? key_of(io->segment, io->bdf >> 8, io->bdf & 0xff) : (uint32_t)io->sid;
	hi = l.n;
	while (lo < hi) {
		size_t m = lo + (hi - lo) / 2;
		uint32_t km = key_of(l.dev[m].segment, l.dev[m].bus, l.dev[m].devfn);

		if (km == k)
			return &l.dev[m];
		if (km < k)
			lo = m + 1;
		else
			hi = m;
	}
	return NULL;
}

/* "class: vendor device" as lspci prints a function ("" when pci.ids is not there). */
static void desc(const struct pt_pci_dev *d, char *out, size_t len)
{
	char c[128], vd[256];

	if (pt_linux_pci_names(d->vendor, d->device, d->cls, c, sizeof c, vd, sizeof vd))
		snprintf(out, len, "%s: %s", c, vd);
	else
		out[0] = 0;
}

static const char *driver(const struct pt_pci_list *l, const struct pt_pci_dev *d)
{
	return d->driver[0] ? d->driver : l->drivers_known ? "-" : "?";
}

void pt_linux_pci_fields(const struct pt_capture *cap, const struct pt_pci_dev *d, enum pt_linux_pci_out how,
			 struct pt_buf *b, struct pt_jobj *j)
{
	struct pt_pci_list l;
	char s[400], v[8], dv[8], c[8], p[8];

	pt_capture_pci(cap, &l);
	desc(d, s, sizeof s);
	if (j) {
		snprintf(v, sizeof v, "0x%04x", d->vendor);
		snprintf(dv, sizeof dv, "0x%04x", d->device);
		snprintf(c, sizeof c, "0x%04x", d->cls);
		snprintf(p, sizeof p, "0x%02x", d->prog_if);
		const char *pre = how == PT_LINUX_PCI_INFO ? "pci_" : "";
		char k[16];

#define KEY(x) (snprintf(k, sizeof k, "%s%s", pre, x), k)
		pt_jobj_str(j, KEY("vendor"), v);
		pt_jobj_str(j, KEY("device"), dv);
		pt_jobj_str(j, KEY("class"), c);
		if (d->has_prog_if)
			pt_jobj_str(j, KEY("prog_if"), p);
		if (d->driver[0] || l.drivers_known)
			pt_jobj_str(j, KEY("driver"), d->driver);
		pt_jobj_str(j, KEY("name"), s[0] ? s : NULL);
		if (how == PT_LINUX_PCI_INFO)
			pt_jobj_str(j, "pci_source", l.where);
#undef KEY
		return;
	}
	if (how == PT_LINUX_PCI_LINE) {
		pt_buf_printf(b, " vendor=0x%04x device=0x%04x class=0x%04x driver=%s", d->vendor, d->device, d->cls,
			      driver(&l, d));
		if (s[0])
			pt_buf_printf(b, " name=\"%s\"", s);
		return;
	}
	pt_buf_printf(b, "pci_vendor: 0x%04x\npci_device: 0x%04x\npci_class: 0x%04x\n", d->vendor, d->device,
		      d->cls);
	if (d->has_prog_if)
		pt_buf_printf(b, "pci_prog_if: 0x%02x\n", d->prog_if);
	pt_buf_printf(b, "pci_driver: %s\n", d->driver[0] ? d->driver : l.drivers_known ? "none" :
		      "not known (QMP query-pci names none)");
	if (s[0])
		pt_buf_printf(b, "pci_name: %s\n", s);
	pt_buf_printf(b, "pci_source: %s\n", l.where);
}

bool pt_linux_has_pci(const struct pt_capture *cap)
{
	struct pt_pci_list l;

	pt_capture_pci(cap, &l);
	return l.n > 0;
}

/* The names of the IOMMU contexts that translate D, comma-separated, in capture order ("-": none). */
static void contexts_of(const struct pt_capture *cap, const struct pt_pci_dev *d, struct pt_buf *b)
{
	size_t before = b->len;

	for (size_t i = 0; i < pt_capture_context_count(cap); i++) {
		const struct pt_context *c = pt_capture_context(cap, i);

		if (c->iommu && pt_linux_pci_of(cap, c->iommu) == d)
			pt_buf_printf(b, "%s%s", b->len > before ? "," : "", c->name);
	}
	if (b->len == before)
		pt_buf_puts(b, "-");
}

bool pt_linux_pci(const struct pt_capture *cap, bool json, struct pt_buf *out)
{
	struct pt_pci_list l;
	struct pt_jarr arr = {0};

	pt_capture_pci(cap, &l);
	if (!json && l.n)
		pt_buf_printf(out, "# %zu PCI functions from %s\n%-12s %-6s %-9s %-16s %-24s %s\n", l.n, l.where,
			      "BDF", "CLASS", "ID", "DRIVER", "IOMMU", "NAME");
	for (size_t i = 0; i < l.n; i++) {
		const struct pt_pci_dev *d = &l.dev[i];
		struct pt_buf ctx;
		char bdf[16], s[400];

		pt_buf_init(&ctx);
		contexts_of(cap, d, &ctx);
		pt_buf_put(&ctx, "", 1);
		snprintf(bdf, sizeof bdf, "%04x:%02x:%02x.%x", d->segment, d->bus, d->devfn >> 3, d->devfn & 7);
		if (json) {
			struct pt_jobj o = {0};

			pt_jobj_str(&o, "bdf", bdf);
			pt_linux_pci_fields(cap, d, PT_LINUX_PCI_LINE, NULL, &o);
			pt_jobj_str(&o, "iommu_context", strcmp(ctx.data, "-") ? ctx.data : NULL);
			pt_jarr_obj(&arr, &o);
		} else {
			desc(d, s, sizeof s);
			pt_buf_printf(out, "%-12s 0x%04x %04x:%04x %-16s %-24s %s\n", bdf, d->cls, d->vendor, d->device,
				      driver(&l, d), ctx.data ? ctx.data : "-", s[0] ? s : "-");
		}
		pt_buf_free(&ctx);
	}
	if (json) {
		pt_buf_put(out, "[", 1);
		if (arr.b.len)
			pt_buf_put(out, arr.b.data, arr.b.len);
		pt_buf_put(out, "]\n", 2);
		pt_buf_free(&arr.b);
	}
	return l.n > 0;
}
