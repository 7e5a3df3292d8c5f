/* SPDX-License-Identifier: MIT */
/*
 * pci.c — the guest's PCI functions by name (docs/design.md §3.3): the
 * walk of a dump's pci_root_buses with offsets from the kernel's BTF, and
 * the names pci.ids gives them through libpci, as lspci prints them.
 *
 * The kernel's lists (drivers/pci/probe.c): pci_root_buses holds the root
 * buses through pci_bus.node; each bus holds its functions on
 * pci_bus.devices through pci_dev.bus_list and its child buses on
 * pci_bus.children through their node.  A function's driver is
 * pci_dev.dev.driver->name (include/linux/device.h, device/driver.h).
 * The domain: pci_bus.domain_nr under CONFIG_PCI_DOMAINS_GENERIC (arm64),
 * else x86's struct pci_sysdata.domain through pci_bus.sysdata
 * (arch/x86/include/asm/pci.h); a kernel with neither has domain 0 only.
 */
#include <inttypes.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <pci/pci.h>

#include "linux_int.h"
#include "pt_extend.h"
#include "pt_linux.h"
#include "pt_num.h"
#include "pt_vec.h"

static const struct {
	const char *type, *member;
	size_t at;
	bool optional;
} want[] = {
	{"pci_bus", "node", offsetof(struct pt_pci_off, bus_node), false},
	{"pci_bus", "children", offsetof(struct pt_pci_off, bus_children), false},
	{"pci_bus", "devices", offsetof(struct pt_pci_off, bus_devices), false},
	{"pci_bus", "number", offsetof(struct pt_pci_off, bus_number), false},
	{"pci_bus", "sysdata", offsetof(struct pt_pci_off, bus_sysdata), true},
	{"pci_bus", "domain_nr", offsetof(struct pt_pci_off, bus_domain_nr), true},
	{"pci_sysdata", "domain", offsetof(struct pt_pci_off, sysdata_domain), true},
	{"pci_dev", "bus_list", offsetof(struct pt_pci_off, dev_bus_list), false},
	{"pci_dev", "devfn", offsetof(struct pt_pci_off, dev_devfn), false},
	{"pci_dev", "vendor", offsetof(struct pt_pci_off, dev_vendor), false},
	{"pci_dev", "device", offsetof(struct pt_pci_off, dev_device), false},
	{"pci_dev", "class", offsetof(struct pt_pci_off, dev_class), false},
	{"pci_dev", "dev", offsetof(struct pt_pci_off, dev_dev), false},
	{"device", "driver", offsetof(struct pt_pci_off, device_driver), false},
	{"device_driver", "name", offsetof(struct pt_pci_off, driver_name), false},
};

bool pt_pci_offsets(const struct btf *btf, struct pt_pci_off *o, char *missing, size_t mlen)
{
	for (size_t i = 0; i < sizeof want / sizeof want[0]; i++) {
		int64_t v = pt_btf_member(btf, want[i].type, want[i].member);

		*(int64_t *)((char *)o + want[i].at) = v;
		if (v < 0 && !want[i].optional) {
			snprintf(missing, mlen, "%s.%s", want[i].type, want[i].member);
			return false;
		}
	}
	return true;
}

static bool rd(struct pt_kmem *k, uint64_t va, void *b, size_t n)
{
	return va >> 63 && pt_kmem_read(k, va, b, n);
}

struct walk {
	struct pt_kmem *k;
	const struct pt_pci_off *o;
	struct pt_pci_devs *out;
	uint64_t *bus;          /* the buses to visit (a stack) */
	size_t nbus, buscap, seen;
	bool oom;
};

static void problem(struct walk *w, const char *what, uint64_t va)
{
	if (!w->out->problem[0])
		snprintf(w->out->problem, sizeof w->out->problem, "%s 0x%" PRIx64, what, va);
}

/* The driver's name at NAME (a char *), printable ASCII only ("" when unreadable). */
static void driver_name(struct pt_kmem *k, uint64_t name, char *out, size_t len)
{
	size_t i = 0;

	out[0] = 0;
	for (; name >> 63 && i + 1 < len; i++) {
		uint8_t c;

		if (!pt_kmem_read(k, name + i, &c, 1) || !c)
			break;
		out[i] = c > 0x20 && c < 0x7f ? (char)c : '?';
	}
	out[i] = 0;
}

/* The function at D (a pci_dev) on bus number NR of DOMAIN. */
static bool one_dev(struct walk *w, uint64_t d, unsigned nr, unsigned domain)
{
	const struct pt_pci_off *o = w->o;
	struct pt_pci_dev *p;
	uint8_t b[8];
	uint64_t drv, name;

	if (!pt_vec_reserve(&w->out->dev, &w->out->cap, w->out->n + 1, sizeof *w->out->dev)) {
		w->oom = true;
		return false;
	}
	p = &w->out->dev[w->out->n];
	memset(p, 0, sizeof *p);
	p->segment = (uint16_t)domain;
	p->bus = (uint8_t)nr;
	if (!rd(w->k, d + (uint64_t)o->dev_devfn, b, 1) || !rd(w->k, d + (uint64_t)o->dev_vendor, b + 2, 2) ||
	    !rd(w->k, d + (uint64_t)o->dev_device, b + 4, 2)) {
		problem(w, "a pci_dev outside captured RAM:", d);
		return false;
	}
	p->devfn = b[0];
	p->vendor = (uint16_t)pt_le_load(b + 2, 2);
	p->device = (uint16_t)pt_le_load(b + 4, 2);
	if (!rd(w->k, d + (uint64_t)o->dev_class, b, 4)) {
		problem(w, "a pci_dev outside captured RAM:", d);
		return false;
	}
	/* pci_dev.class: class << 8 | prog-if (include/linux/pci.h) */
	p->cls = (uint16_t)(pt_le_load(b, 4) >> 8);
	p->prog_if = b[0];
	p->has_prog_if = true;
	if (rd(w->k, d + (uint64_t)(o->dev_dev + o->device_driver), b, 8) && (drv = pt_le_load(b, 8)) &&
	    rd(w->k, drv + (uint64_t)o->driver_name, b, 8) && (name = pt_le_load(b, 8)))
		driver_name(w->k, name, p->driver, sizeof p->driver);
	w->out->n++;
	return true;
}

/* Next of the list_head at VA into *NEXT; false (one problem) when unreadable. */
static bool next_of(struct walk *w, uint64_t va, uint64_t *next)
{
	uint8_t b[8];

	if (!rd(w->k, va, b, 8)) {
		problem(w, "a PCI list pointer outside captured RAM:", va);
		return false;
	}
	*next = pt_le_load(b, 8);
	return true;
}

/* The domain of bus BUS: domain_nr, else its pci_sysdata's, else 0. */
static unsigned bus_domain(struct walk *w, uint64_t bus)
{
	const struct pt_pci_off *o = w->o;
	uint8_t b[8];

	if (o->bus_domain_nr >= 0 && rd(w->k, bus + (uint64_t)o->bus_domain_nr, b, 4))
		return (unsigned)pt_le_load(b, 4) & 0xffff;
	if (o->bus_sysdata >= 0 && o->sysdata_domain >= 0 && rd(w->k, bus + (uint64_t)o->bus_sysdata, b, 8) &&
	    pt_le_load(b, 8) >> 63 && rd(w->k, pt_le_load(b, 8) + (uint64_t)o->sysdata_domain, b, 4))
		return (unsigned)pt_le_load(b, 4) & 0xffff;
	return 0;
}

static bool push_bus(struct walk *w, uint64_t bus)
{
	if (++w->seen > PT_PCI_MAX) {
		problem(w, "more than 65536 PCI buses from", bus);
		return false;
	}
	if (!pt_vec_reserve(&w->bus, &w->buscap, w->nbus + 1, sizeof *w->bus)) {
		w->oom = true;
		return false;
	}
	w->bus[w->nbus++] = bus;
	return true;
}

/*
 * Walks the list_head at HEAD whose entries sit LINK bytes into theirs:
 * a bus list (BUSES) pushes each bus, a device list reads each function.
 */
static bool walk_list(struct walk *w, uint64_t head, int64_t link, bool buses, unsigned nr, unsigned domain)
{
	uint64_t p, mark;
	size_t steps = 0, lap = 1;

	if (!next_of(w, head, &p))
		return false;
	mark = p;
	while (p != head) {
		if (w->out->n >= PT_PCI_MAX) {
			problem(w, "more than 65536 PCI functions (a list that loops?) at", p);
			return false;
		}
		if (buses ? !push_bus(w, p - (uint64_t)link) : !one_dev(w, p - (uint64_t)link, nr, domain))
			return false;
		if (!next_of(w, p, &p))
			return false;
		/*
		 * a list that never comes back to its head: found within twice
		 * its length (Brent's cycle finding: the mark moves at powers of
		 * two), not after 65536 functions read
		 */
		if (p == mark && p != head) {
			problem(w, "a PCI list that loops without its head at", p);
			return false;
		}
		if (++steps == lap) {
			mark = p;
			lap <<= 1;
			steps = 0;
		}
	}
	return true;
}

pt_err pt_pci_walk(struct pt_kmem *k, const struct pt_pci_off *o, uint64_t roots, struct pt_pci_devs *out)
{
	struct walk w = {.k = k, .o = o, .out = out};
	bool ok;

	memset(out, 0, sizeof *out);
	ok = walk_list(&w, roots, o->bus_node, true, 0, 0);
	while (ok && w.nbus) {
		uint64_t bus = w.bus[--w.nbus];
		uint8_t nr;
		unsigned domain = bus_domain(&w, bus);

		if (!rd(k, bus + (uint64_t)o->bus_number, &nr, 1)) {
			problem(&w, "a pci_bus outside captured RAM:", bus);
			break;
		}
		ok = walk_list(&w, bus + (uint64_t)o->bus_devices, o->dev_bus_list, false, nr, domain) &&
		     walk_list(&w, bus + (uint64_t)o->bus_children, o->bus_node, true, 0, 0);
	}
	free(w.bus);
	if (w.oom) {
		pt_pci_devs_free(out);
		return PT_E_NOMEM;
	}
	return PT_OK;
}

void pt_pci_devs_free(struct pt_pci_devs *d)
{
	free(d->dev);
	d->dev = NULL;
	d->n = d->cap = 0;
}

pt_err pt_pci_expand(struct pt_capture *cap, struct pt_kmem *k, const struct btf *btf, uint64_t roots)
{
	struct pt_pci_off o;
	struct pt_pci_devs d;
	char missing[64];
	pt_err rc;

	if (!pt_pci_offsets(btf, &o, missing, sizeof missing)) {
		pt_capture_add_warning(cap, "linux: the kernel's BTF has no %s: PCI functions not named", missing);
		return PT_OK;
	}
	/* no address: linux.c says so once the task list is read (else its one line names what is missing) */
	if (!roots)
		return PT_OK;
	rc = pt_pci_walk(k, &o, roots, &d);
	if (rc)
		return rc;
	if (d.problem[0])
		pt_capture_add_warning(cap, "linux: %s: the PCI walk stopped there (%zu functions kept)", d.problem,
				       d.n);
	if (d.n)
		rc = pt_capture_set_pci(cap, d.dev, d.n, "the kernel's pci_root_buses", true);
	pt_pci_devs_free(&d);
	return rc;
}

/* ---- names (libpci and pci.ids) ---- */

static pthread_mutex_t names_lock = PTHREAD_MUTEX_INITIALIZER;
static struct pci_access *names_pacc;

/* libpci's hooks: core/ never prints. */
static void PCI_PRINTF(1, 2) quiet(char *msg, ...)
{
	(void)msg;
}

/* libpci calls its error hook only when its malloc fails (lib/access.c pci_malloc), and it must not return. */
static void PCI_PRINTF(1, 2) PCI_NONRET out_of_memory(char *msg, ...)
{
	(void)msg;
	abort();
}

/*
 * libpci's name lookup alone, without pci_init(): that one probes the
 * host's buses and exits when none answers (lib/init.c), which a tool
 * reading a dump must not do.  Its hooks are set here instead (a lookup
 * without them crashes).  udev's hwdb is skipped: the names come from
 * pci.ids alone, so they do not depend on the host's udev.
 */
static struct pci_access *names(void)
{
	if (!names_pacc && (names_pacc = pci_alloc())) {
		names_pacc->error = out_of_memory;
		names_pacc->warning = quiet;
		names_pacc->debug = quiet;
		names_pacc->numeric_ids = 0;
	}
	return names_pacc;
}

bool pt_linux_pci_names(uint16_t vendor, uint16_t device, uint16_t cls, char *cname, size_t clen,
			char *vdname, size_t vdlen)
{
	struct pci_access *a;
	char buf[256];
	bool ok = false;

	cname[0] = vdname[0] = 0;
	pthread_mutex_lock(&names_lock);
	a = names();
	if (a) {
		const char *c = pci_lookup_name(a, buf, sizeof buf, PCI_LOOKUP_CLASS | PCI_LOOKUP_NO_HWDB,
						(int)cls);

		snprintf(cname, clen, "%s", c ? c : "");
		c = pci_lookup_name(a, buf, sizeof buf, PCI_LOOKUP_VENDOR | PCI_LOOKUP_DEVICE |
				    PCI_LOOKUP_NO_HWDB, (int)vendor, (int)device);
		snprintf(vdname, vdlen, "%s", c ? c : "");
		ok = cname[0] && vdname[0];
	}
	pthread_mutex_unlock(&names_lock);
	return ok;
}
