/* SPDX-License-Identifier: MIT */
/*
 * qmp.c — a running QEMU guest as a live source (issue #33; docs/design.md
 * §3.2 for the dump sources it mirrors).  The path is the guest's QMP
 * socket; the guest's RAM must be a shared file backend
 *
 *     -object memory-backend-file,id=ram,mem-path=FILE,share=on,size=SIZE
 *     -machine memory-backend=ram
 *
 * which is mapped read-only MAP_SHARED in place: nothing is copied, the
 * mount's memory does not grow with guest RAM, and every read sees guest
 * memory as it is then.  From QMP (src_qmp.c): the backend (qom-get of the
 * machine's "memory-backend" and its "mem-path", "share" and "size"), the
 * guest-physical layout of its RAM (`info mtree -f`: q35 and pc put RAM
 * below 4 GiB and the rest above, hw/i386/pc.c pc_memory_init), and each
 * vCPU's CR0, CR3, CR4 and EFER (`info registers -a`) as the contexts
 * cpuN, as the ELF source makes them from QEMU's notes (src_elf.c) (an
 * aarch64 guest's from its gdbstub), and each emulated IOMMU (VT-d, AMD-Vi,
 * SMMUv3) the guest turned on as an [iommu] section from
 * its registers (HMP `xp` of its MMIO: iommus() below), and its PCI
 * functions (query-pci: pci() below).  The
 * connection stays open for the mount's life: it tells when QEMU exits and
 * stops the guest for -o pause (the hooks: qmp_live.c).
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "pt_buf.h"
#include "pt_extend.h"
#include "pt_source.h"
#include "pt_src_gdb.h"
#include "pt_src_qmp.h"
#include "pt_vec.h"
#include "qmp_live.h"

/* qom-get PATH PROPERTY: the whole message in *MSG and its value in *VAL. */
static pt_err qom_get(struct pt_qmp *q, const char *path, const char *prop, struct pt_json **msg,
		      const struct pt_json **val, char *err, size_t errlen)
{
	struct pt_buf b;
	pt_err rc;

	pt_buf_init(&b);
	pt_buf_printf(&b, "{\"execute\": \"qom-get\", \"arguments\": {\"path\": ");
	pt_json_escape(&b, path);
	pt_buf_printf(&b, ", \"property\": ");
	pt_json_escape(&b, prop);
	pt_buf_printf(&b, "}}");
	rc = b.oom ? PT_E_NOMEM : pt_qmp_cmd(q, b.data, msg, val, err, errlen);
	pt_buf_free(&b);
	return rc;
}

/* ---- the load ---- */

/* A JSON value as received, for an error line: a number's text, a string quoted, else its kind. */
static void show_json(const struct pt_json *v, char *out, size_t len)
{
	char raw[48];

	if (!v) {
		snprintf(out, len, "nothing");
		return;
	}
	switch (v->type) {
	case PT_JSON_NUM:
		pt_text_escape(out, len, v->s);
		return;
	case PT_JSON_STR:
		snprintf(raw, sizeof raw, "%.40s", v->s);
		pt_text_escape(out + 1, len - 2, raw);
		out[0] = '"';
		snprintf(out + strlen(out), len - strlen(out), "\"");
		return;
	default:
		snprintf(out, len, "%s", v->type == PT_JSON_BOOL ? (v->b ? "true" : "false") :
			 v->type == PT_JSON_NULL ? "null" : v->type == PT_JSON_ARR ? "an array" : "an object");
	}
}

/*
 * qom-get PATH PROP of the backend's set-up: a failure of the connection
 * (no answer, closed, not JSON) is said as such, not as a fact about the
 * guest (ptfs-capture(5): "QMP: ..."); *VAL NULL with Q's answered_error
 * set is QEMU's "no such property", which the caller explains.
 */
static pt_err backend_get(struct pt_loader *ld, struct pt_qmp_live *l, const char *path, const char *prop,
			  struct pt_json **msg, const struct pt_json **val)
{
	char e[512];
	pt_err rc = qom_get(&l->q, path, prop, msg, val, e, sizeof e);

	if (rc && !l->q.answered_error)
		return pt_loader_fail(ld, rc, "%s: QMP: qom-get %s %s: %s", l->label, path, prop, e);
	if (rc)
		*val = NULL;
	return PT_OK;
}

/* The backend: its QOM path into BPATH, its file opened into *FD, its size. */
static pt_err backend(struct pt_loader *ld, struct pt_qmp_live *l, char *bpath, size_t blen, int *fd,
		      uint64_t *size)
{
	const char *lab = l->label;
	struct pt_json *msg = NULL;
	const struct pt_json *v;
	char file[4096], show[64];
	struct stat st;

	if (backend_get(ld, l, "/machine", "memory-backend", &msg, &v))
		return PT_E_CAPTURE;
	if (!v || v->type != PT_JSON_STR || !v->s[0] || strlen(v->s) >= blen) {
		pt_json_free(msg);
		return pt_loader_fail(ld, PT_E_CAPTURE, "%s: the guest's RAM is not a memory backend: start QEMU "
				      "with -object memory-backend-file,id=ram,mem-path=FILE,share=on,size=SIZE "
				      "-machine memory-backend=ram", lab);
	}
	snprintf(bpath, blen, "%s", v->s);
	pt_json_free(msg);
	if (backend_get(ld, l, bpath, "share", &msg, &v))
		return PT_E_CAPTURE;
	if (!v || v->type != PT_JSON_BOOL || !v->b) {
		pt_json_free(msg);
		/* -m alone: QEMU makes a memory-backend-ram itself (hw/core/machine.c create_default_memdev) */
		if (backend_get(ld, l, bpath, "mem-path", &msg, &v))
			return PT_E_CAPTURE;
		pt_json_free(msg);
		if (!v)
			return pt_loader_fail(ld, PT_E_CAPTURE, "%s: RAM backend %s is anonymous memory, not a file "
					      "(QEMU makes it so for -m alone, and share=on cannot be added to it): start "
					      "QEMU with -object memory-backend-file,id=ram,mem-path=FILE,share=on,size=SIZE "
					      "-machine memory-backend=ram", lab, bpath);
		return pt_loader_fail(ld, PT_E_CAPTURE, "%s: RAM backend %s is not shared (share=off): its file "
				      "does not hold what the guest writes; start it with share=on", lab, bpath);
	}
	pt_json_free(msg);
	if (backend_get(ld, l, bpath, "size", &msg, &v))
		return PT_E_CAPTURE;
	if (!pt_json_u64(v, size) || !*size) {
		show_json(v, show, sizeof show);
		pt_json_free(msg);
		return pt_loader_fail(ld, PT_E_CAPTURE, "%s: RAM backend %s: its size is %s, not a number of bytes "
				      "from 1 to 2^64-1", lab, bpath, show);
	}
	pt_json_free(msg);
	if (backend_get(ld, l, bpath, "mem-path", &msg, &v))
		return PT_E_CAPTURE;
	if (!v || v->type != PT_JSON_STR || !v->s[0] || strlen(v->s) >= sizeof file) {
		pt_json_free(msg);
		return pt_loader_fail(ld, PT_E_CAPTURE, "%s: RAM backend %s has no file (not a "
				      "memory-backend-file): use -object memory-backend-file,mem-path=FILE,share=on",
				      lab, bpath);
	}
	snprintf(file, sizeof file, "%s", v->s);
	pt_json_free(msg);
	/* QEMU opened it relative to its own working directory, which is not ours */
	if (file[0] != '/')
		return pt_loader_fail(ld, PT_E_CAPTURE, "%s: RAM backend %s: mem-path '%s' is relative to QEMU's "
				      "working directory; give QEMU an absolute mem-path", lab, bpath, file);
	if (stat(file, &st) == 0 && S_ISDIR(st.st_mode))
		return pt_loader_fail(ld, PT_E_CAPTURE, "%s: RAM backend %s: mem-path %s is a directory, in which "
				      "QEMU's file is unlinked: give mem-path=FILE", lab, bpath, file);
	*fd = pt_loader_open_file(ld, AT_FDCWD, file, file, &st);
	if (*fd < 0)
		return PT_E_CAPTURE;
	if ((uint64_t)st.st_size < *size) {
		close(*fd);
		*fd = -1;
		return pt_loader_fail(ld, PT_E_CAPTURE, "%s: RAM backend %s: %s holds 0x%" PRIx64 " bytes, the "
				      "backend 0x%" PRIx64 ": not its file", lab, bpath, file, (uint64_t)st.st_size,
				      *size);
	}
	pt_loader_emitf(ld, lab, "x-live = QEMU %s over QMP; RAM backend %s: %s, 0x%" PRIx64 " bytes, shared, "
			"mapped in place", l->q.version, bpath, file, *size);
	return PT_OK;
}

/* [memory ramN] per range of the backend in the flat view of system memory (MTREE: `info mtree -f`). */
static pt_err ram_ranges(struct pt_loader *ld, struct pt_qmp_live *l, const char *mtree, const char *bpath,
			 uint64_t size)
{
	struct pt_qmp_range *r = NULL;
	size_t n = 0;
	char e[512], prov[160];
	pt_err rc;

	rc = pt_qmp_mtree(mtree, pt_path_base(bpath), &r, &n, e, sizeof e);
	if (rc)
		return pt_loader_fail(ld, rc, "%s: %s", l->label, e);
	for (size_t i = 0; i < n && !rc; i++) {
		char name[32];

		if (r[i].off > size || r[i].len > size - r[i].off) {
			rc = pt_loader_fail(ld, PT_E_CAPTURE, "%s: info mtree -f:%u: RAM 0x%" PRIx64 "-0x%" PRIx64
					    " @0x%" PRIx64 " lies past the backend's 0x%" PRIx64 " bytes", l->label,
					    r[i].line, r[i].base, r[i].base + (r[i].len - 1), r[i].off, size);
			break;
		}
		snprintf(name, sizeof name, "ram%zu", i);
		snprintf(prov, sizeof prov, "%s:info mtree -f:%u", l->label, r[i].line);
		if (pt_loader_add_window(ld, prov, name, "sysmem", r[i].base, "ram", r[i].off, r[i].len))
			rc = pt_loader_fail(ld, PT_E_NOMEM, "%s: out of memory", l->label);
	}
	free(r);
	return rc;
}

/*
 * The IOMMUs QEMU emulates (issue #33 item 3): each names its MMIO
 * window in `info mtree -f`, and HMP `xp` reads a register through it as
 * the guest's CPU would.  An IOMMU that translates becomes an [iommu]
 * section (core/load/iommu.c): its devices are read from its tables at
 * mount, and their walks read live memory like every other.
 */
static const struct live_iommu {
	const char *window, *name;
	enum pt_iommu_kind kind;      /* its [iommu] type: pt_iommu_kind_name() */
	uint64_t en_off, en_bit;
	char en_fmt;            /* xp unit: w 32-bit, g 64-bit */
	const char *en_what;
	struct {
		uint64_t off;
		char fmt;
		const char *key;        /* NULL: none */
	} reg[2];
} live_iommus[] = {
	/*
	 * QEMU hw/i386/intel_iommu.c: window "intel_iommu" (q35 maps it at
	 * 0xfed90000); GSTS_REG 0x1c, TES bit 31; RTADDR_REG 0x20 (VT-d spec
	 * §11.4.4, §11.4.5; Linux drivers/iommu/intel/iommu.h DMAR_GSTS_REG,
	 * DMA_GSTS_TES, DMAR_RTADDR_REG).
	 */
	{"intel_iommu", "vtd0", PT_IOMMU_KIND_VTD, 0x1c, 1ull << 31, 'w', "GSTS.TES (bit 31)", {{0x20, 'g', "rtaddr"}}},
	/*
	 * QEMU hw/i386/amd_iommu.c: window "amdvi-mmio" (at 0xfed80000);
	 * Control 0x18, IommuEn bit 0; Device Table Base 0x00 (AMD IOMMU spec
	 * §3.4; Linux drivers/iommu/amd/amd_iommu_types.h MMIO_CONTROL_OFFSET,
	 * CONTROL_IOMMU_EN, MMIO_DEV_TABLE_OFFSET).
	 */
	{"amdvi-mmio", "amdvi0", PT_IOMMU_KIND_AMDVI, 0x18, 1, 'g', "Control.IommuEn (bit 0)", {{0x00, 'g', "dev_table_base"}}},
	/*
	 * QEMU hw/arm/smmuv3.c: window "arm-smmuv3" (virt,iommu=smmuv3 maps it
	 * at 0x09050000, hw/arm/virt.c VIRT_SMMU); SMMU_CR0 0x20, SMMUEN bit 0;
	 * SMMU_STRTAB_BASE 0x80, SMMU_STRTAB_BASE_CFG 0x88 (Arm IHI 0070
	 * §6.3.9, §6.3.23, §6.3.24; Linux drivers/iommu/arm/arm-smmu-v3/
	 * arm-smmu-v3.h ARM_SMMU_CR0, CR0_SMMUEN, ARM_SMMU_STRTAB_BASE(_CFG)).
	 */
	{"arm-smmuv3", "smmu0", PT_IOMMU_KIND_SMMUV3, 0x20, 1, 'w', "CR0.SMMUEN (bit 0)",
	 {{0x80, 'g', "strtab_base"}, {0x88, 'w', "strtab_base_cfg"}}},
};

/* HMP xp /1FMTx ADDR into *V. */
static pt_err xp(struct pt_qmp_live *l, char fmt, uint64_t addr, uint64_t *v, char *e, size_t elen)
{
	char cmd[64], *text = NULL;
	pt_err rc;

	snprintf(cmd, sizeof cmd, "xp /1%cx 0x%" PRIx64, fmt, addr);
	rc = pt_qmp_hmp(&l->q, cmd, &text, e, elen);
	if (!rc)
		rc = pt_qmp_xp(text, addr, v, e, elen);
	free(text);
	return rc;
}

/* [iommu NAME] per IOMMU of live_iommus[] that the guest has turned on. */
static pt_err iommus(struct pt_loader *ld, struct pt_qmp_live *l, const char *mtree)
{
	char e[512], prov[192];

	for (size_t i = 0; i < sizeof live_iommus / sizeof live_iommus[0]; i++) {
		const struct live_iommu *u = &live_iommus[i];
		struct pt_qmp_range at;
		uint64_t en = 0, reg[2] = {0, 0};
		bool found;
		pt_err rc = pt_qmp_mmio(mtree, u->window, &found, &at, e, sizeof e);

		if (!rc && found)
			rc = xp(l, u->en_fmt, at.base + u->en_off, &en, e, sizeof e);
		for (unsigned r = 0; r < 2 && u->reg[r].key && !rc && found && (en & u->en_bit); r++)
			rc = xp(l, u->reg[r].fmt, at.base + u->reg[r].off, &reg[r], e, sizeof e);
		if (rc)
			return pt_loader_fail(ld, rc, "%s: %s: %s", l->label, pt_iommu_kind_name(u->kind), e);
		if (!found)
			continue;
		snprintf(prov, sizeof prov, "%s:info mtree -f:%u (%s)", l->label, at.line, u->window);
		if (!(en & u->en_bit)) {
			pt_loader_warn(ld, "info mtree -f:%u (%s): the guest has not turned the %s on (%s clear): "
				       "no context %s", at.line, u->window, pt_iommu_kind_name(u->kind), u->en_what, u->name);
			continue;
		}
		pt_loader_emitf(ld, prov, "[iommu %s]", u->name);
		pt_loader_emitf(ld, prov, "type = %s", pt_iommu_kind_name(u->kind));
		for (unsigned r = 0; r < 2 && u->reg[r].key; r++)
			pt_loader_emitf(ld, prov, "%s = 0x%" PRIx64, u->reg[r].key, reg[r]);
		pt_loader_emitf(ld, prov, "x-source = registers: HMP xp of %s at 0x%" PRIx64 ", read at mount (its "
				"devices are those its tables held then: remount for new ones)", u->window, at.base);
	}
	return PT_OK;
}

/* Appends vCPU INDEX's state WHAT to the summary B (the first four; the count of the rest at the end). */
static void said(struct pt_buf *b, size_t *n, const char *what, unsigned index)
{
	if (++*n <= 4)
		pt_buf_printf(b, "%sCPU#%u %s", *n > 1 ? ", " : "", index, what);
}

static void said_end(struct pt_buf *b, size_t n)
{
	if (n > 4)
		pt_buf_printf(b, " and %zu more", n - 4);
	if (!n || b->oom) {
		pt_buf_free(b);
		pt_buf_init(b);
		pt_buf_puts(b, n ? "out of memory" : "no vCPU");
	}
}

/* The mode a vCPU without 64-bit paging is in (Intel SDM vol. 3A 2.5, 9.8.5: CR0.PE, CR0.PG, EFER.LMA). */
static const char *x86_mode(const struct pt_qmp_cpu *c)
{
	if (c->seen != PT_QMP_R_ALL)
		return "shows no CR0, CR3, CR4 or EFER";
	if (!(c->cr0 & 1))
		return "is in real mode (CR0.PE clear)";
	if (!(c->cr0 & CR0_PG))
		return "is in protected mode without paging (CR0.PG clear)";
	return "uses 32-bit paging (EFER.LMA clear)";
}

/* [cpu cpuN] per vCPU in long mode with paging. */
static pt_err cpus(struct pt_loader *ld, struct pt_qmp_live *l)
{
	struct pt_qmp_cpu *c = NULL;
	size_t n = 0, made = 0, nsaid = 0;
	char *text = NULL, e[512], prov[160];
	struct pt_buf why;
	pt_err rc;

	rc = pt_qmp_hmp(&l->q, "info registers -a", &text, e, sizeof e);
	if (!rc)
		rc = pt_qmp_regs(text, &c, &n, e, sizeof e);
	free(text);
	if (!rc && !(l->cpu = calloc(n, sizeof *l->cpu))) {
		free(c);
		rc = pt_err_fmt(e, sizeof e, PT_E_NOMEM, "out of memory");
	}
	if (rc)
		return pt_loader_fail(ld, rc, "%s: %s", l->label, e);
	pt_buf_init(&why);
	for (size_t i = 0; i < n; i++) {
		snprintf(prov, sizeof prov, "%s:info registers -a CPU#%u", l->label, c[i].index);
		if (c[i].seen != PT_QMP_R_ALL) {
			/* warnings need no label: the program names the capture before them */
			pt_loader_warn(ld, "info registers -a CPU#%u: CR0, CR3, CR4 or EFER not shown: no context cpu%u",
				       c[i].index, c[i].index);
			said(&why, &nsaid, x86_mode(&c[i]), c[i].index);
			continue;
		}
		if (!(c[i].cr0 & CR0_PG) || !(c[i].efer & EFER_LMA)) {
			pt_loader_warn(ld, "info registers -a CPU#%u: not in 64-bit mode with paging (CR0=0x%" PRIx64
				       ", EFER=0x%" PRIx64 "): no context cpu%u", c[i].index, c[i].cr0, c[i].efer,
				       c[i].index);
			said(&why, &nsaid, x86_mode(&c[i]), c[i].index);
			continue;
		}
		pt_loader_emitf(ld, prov, "[cpu cpu%u]", c[i].index);
		pt_loader_emitf(ld, prov, "cr3 = 0x%" PRIx64, c[i].cr3);
		pt_loader_emitf(ld, prov, "cr4 = 0x%" PRIx64, c[i].cr4);
		pt_loader_emitf(ld, prov, "efer = 0x%" PRIx64, c[i].efer);
		pt_loader_emitf(ld, prov, "x-source = cr3, cr4, efer: QMP info registers -a, CPU#%u, read at "
				"mount; cr3 read again at each -o refresh (it changes with every task switch)",
				c[i].index);
		l->cpu[made].index = c[i].index;
		l->cpu[made].cr3 = c[i].cr3;
		made++;
	}
	free(c);
	l->ncpu = made;
	said_end(&why, nsaid);
	/* the warnings are not shown when the load fails: the line says what each vCPU is doing */
	if (!made)
		rc = pt_loader_fail(ld, PT_E_CAPTURE, "%s: no vCPU is in 64-bit mode with paging: %s; a guest held "
				    "at reset (-S) or still in its firmware has no page tables yet: mount it once it "
				    "has booted", l->label, why.data);
	pt_buf_free(&why);
	return rc;
}

/*
 * The gdbstub's socket: the character device QEMU labels "gdb" for
 * `-gdb unix:PATH,server=on,wait=off` (gdbstub.c gdbserver_start), its
 * filename "unix:PATH,server=on" ("disconnected:" before while no debugger
 * is attached), PATH absolute: QEMU's working directory is not ours.
 */
static pt_err gdb_socket(struct pt_loader *ld, struct pt_qmp_live *l, char *path, size_t len)
{
	struct pt_json *msg = NULL;
	const struct pt_json *ret;
	char e[512];
	pt_err rc = pt_qmp_cmd(&l->q, "{\"execute\": \"query-chardev\"}", &msg, &ret, e, sizeof e);
	const char *f = NULL;

	if (rc)
		return pt_loader_fail(ld, rc, "%s: query-chardev: %s", l->label, e);
	for (size_t i = 0; ret->type == PT_JSON_ARR && i < ret->n; i++) {
		const struct pt_json *lab = pt_json_get(&ret->kid[i], "label");
		const struct pt_json *fn = pt_json_get(&ret->kid[i], "filename");

		if (lab && lab->type == PT_JSON_STR && !strcmp(lab->s, "gdb") && fn && fn->type == PT_JSON_STR)
			f = fn->s;
	}
	if (f && !strncmp(f, "disconnected:", 13))
		f += 13;
	if (!f || strncmp(f, "unix:", 5) || f[5] != '/' || strcspn(f + 5, ",") >= len) {
		char show[96];

		pt_text_escape(show, sizeof show, f ? f : "none");
		pt_json_free(msg);
		/* target/arm/cpu.c arm_cpu_dump_state prints PC, X0-X30, PSTATE and FP/SIMD, never TTBRn/TCR */
		return pt_loader_fail(ld, PT_E_UNSUPPORTED, "%s: an aarch64 guest's TTBR0_EL1, TTBR1_EL1 and TCR_EL1 "
				      "come from QEMU's gdbstub (QEMU 7.2's HMP does not show them): start QEMU with "
				      "-gdb unix:/ABSOLUTE/PATH,server=on,wait=off (its gdb socket: %s)", l->label,
				      show);
	}
	snprintf(path, len, "%.*s", (int)strcspn(f + 5, ","), f + 5);
	pt_json_free(msg);
	return PT_OK;
}


/*
 * Each vCPU's running task for core/linux (route b of docs/design.md
 * §3.4): at EL1 Linux keeps `current` in SP_EL0 (arch/arm64/include/asm/
 * current.h get_current(); entry.S loads it on every entry from EL0); at
 * EL0 SP_EL0 is the user's stack pointer, not known then.  Read at mount,
 * as the TTBRs are.  PT_E_NOMEM only.
 */
static pt_err arm64_current(struct pt_loader *ld, const struct pt_gdb_cpu *c, size_t n)
{
	struct pt_kernel_cpu *k;
	size_t ncpu = 0;
	pt_err rc;

	for (size_t i = 0; i < n; i++)
		if (c[i].has_sp_el0 && c[i].index < PT_GDB_MAX_THREADS && c[i].index + 1 > ncpu)
			ncpu = c[i].index + 1;
	if (!ncpu)
		return PT_OK;
	if (!(k = calloc(ncpu, sizeof *k)))
		return PT_E_NOMEM;
	for (size_t i = 0; i < n; i++)
		if (c[i].has_sp_el0 && c[i].index < ncpu && ((c[i].cpsr >> 2) & 3) == 1 && c[i].sp_el0 >> 63) {
			k[c[i].index].current = c[i].sp_el0;
			k[c[i].index].current_from = "SP_EL0 at EL1 from the gdbstub";
		}
	rc = pt_loader_kernel_facts(ld, NULL, 0, k, ncpu);
	free(k);
	return rc;
}

/*
 * [arm64 cpuN.ttbr0] and [arm64 cpuN.ttbr1] per vCPU at EL0/EL1 with its
 * MMU on (SCTLR_EL1.M), registers from the gdbstub.  QEMU stops the guest
 * while a debugger is connected: a guest that ran is continued after.
 */
static pt_err arm64_cpus(struct pt_loader *ld, struct pt_qmp_live *l)
{
	struct pt_gdb_cpu *c = NULL;
	size_t n = 0, made = 0, nsaid = 0;
	char path[256], e[512], prov[448], what[64];
	struct pt_buf why;
	bool ran = false;
	pt_err rc = gdb_socket(ld, l, path, sizeof path);

	if (rc)
		return rc;
	if ((rc = pt_qmp_live_running(l, &ran, e, sizeof e)))
		return pt_loader_fail(ld, rc, "%s: query-status: %s", l->label, e);
	rc = pt_gdb_arm64_cpus(path, PT_QMP_TIMEOUT_MS, &c, &n, e, sizeof e);
	if (ran) {
		char e2[256];
		pt_err rc2 = pt_qmp_live_resume(l, e2, sizeof e2);   /* the same cont as -o pause's */

		if (rc2 && !rc)
			rc = pt_err_fmt(e, sizeof e, rc2, "after the gdbstub stopped the guest: %s", e2);
	}
	if (rc) {
		free(c);
		return pt_loader_fail(ld, rc, "%s: %s: %s", l->label, path, e);
	}
	pt_buf_init(&why);
	for (size_t i = 0; i < n; i++) {
		size_t before = made;

		unsigned el = (unsigned)(c[i].cpsr >> 2) & 3;

		snprintf(prov, sizeof prov, "%s:gdbstub %s CPU#%u", l->label, path, c[i].index);
		/* the EL1 regime's registers (Arm ARM D13.2: PSTATE.EL in CPSR 3:2; SCTLR_EL1.M bit 0) */
		if (el > 1) {
			pt_loader_warn(ld, "gdbstub CPU#%u: at EL%u, whose tables TTBRn_EL1 do not hold: no context "
				       "cpu%u", c[i].index, el, c[i].index);
			snprintf(what, sizeof what, "is at EL%u", el);
			said(&why, &nsaid, what, c[i].index);
			continue;
		}
		if (!(c[i].sctlr & 1)) {
			pt_loader_warn(ld, "gdbstub CPU#%u: the MMU is off (SCTLR_EL1.M clear): no context cpu%u",
				       c[i].index, c[i].index);
			said(&why, &nsaid, "has its MMU off (SCTLR_EL1.M clear)", c[i].index);
			continue;
		}
		for (unsigned h = 0; h < 2; h++) {
			/* TCR_EL1.EPD0 (bit 7), EPD1 (bit 23): that half walks nothing */
			if (c[i].tcr & (1ull << (h ? 23 : 7)))
				continue;
			pt_loader_emitf(ld, prov, "[arm64 cpu%u.ttbr%u]", c[i].index, h);
			pt_loader_emitf(ld, prov, "ttbr = 0x%" PRIx64, h ? c[i].ttbr1 : c[i].ttbr0);
			pt_loader_emitf(ld, prov, "half = %s", h ? "upper" : "lower");
			pt_loader_emitf(ld, prov, "tcr = 0x%" PRIx64, c[i].tcr);
			pt_loader_emitf(ld, prov, "x-source = ttbr, tcr: TTBR%u_EL1 and TCR_EL1 of CPU#%u from QEMU's "
					"gdbstub (%s), read at mount (TTBR0 changes with every task switch: remount for "
					"a new one)", h, c[i].index, path);
			made++;
		}
		if (made == before)
			said(&why, &nsaid, "walks neither half (TCR_EL1.EPD0 and EPD1 set)", c[i].index);
	}
	if (!rc)
		rc = arm64_current(ld, c, n);
	free(c);
	said_end(&why, nsaid);
	/* the warnings are not shown when the load fails: the line says what each vCPU is doing */
	if (!made)
		rc = pt_loader_fail(ld, PT_E_CAPTURE, "%s: no vCPU runs at EL1 or EL0 with its MMU on: %s; a guest "
				    "held at reset (-S) or still in its firmware has no page tables yet: mount it once "
				    "it has booted", l->label, why.data);
	pt_buf_free(&why);
	return rc;
}

/* QEMU's target: x86-64 vCPUs from HMP, aarch64 ones from the gdbstub. */
static pt_err target(struct pt_loader *ld, struct pt_qmp_live *l)
{
	struct pt_json *msg = NULL;
	const struct pt_json *ret, *a;
	char e[512];
	pt_err rc = pt_qmp_cmd(&l->q, "{\"execute\": \"query-target\"}", &msg, &ret, e, sizeof e);

	if (rc)
		return pt_loader_fail(ld, rc, "%s: query-target: %s", l->label, e);
	a = pt_json_get(ret, "arch");
	l->arm64 = a && a->type == PT_JSON_STR && !strcmp(a->s, "aarch64");
	if (!a || a->type != PT_JSON_STR || (strcmp(a->s, "x86_64") && !l->arm64)) {
		char show[32];

		pt_text_escape(show, sizeof show, a && a->type == PT_JSON_STR ? a->s : "?");
		pt_json_free(msg);
		return pt_loader_fail(ld, PT_E_UNSUPPORTED, "%s: QEMU target '%s': this ptfs reads x86_64 and "
				      "aarch64 guests live", l->label, show);
	}
	pt_json_free(msg);
	return PT_OK;
}

/* The functions of query-pci's DEVS (a PciDeviceInfo array), those behind its bridges too (qapi/pci.json). */
static bool pci_devs(const struct pt_json *devs, struct pt_pci_dev **v, size_t *n, size_t *cap)
{
	for (size_t i = 0; devs && devs->type == PT_JSON_ARR && i < devs->n; i++) {
		const struct pt_json *d = &devs->kid[i], *id = pt_json_get(d, "id");
		const struct pt_json *br = pt_json_get(pt_json_get(d, "pci_bridge"), "devices");
		uint64_t bus, slot, fn, cls, ven, dev;

		if (!pt_json_u64(pt_json_get(d, "bus"), &bus) || !pt_json_u64(pt_json_get(d, "slot"), &slot) ||
		    !pt_json_u64(pt_json_get(d, "function"), &fn) || bus > 255 || slot > 31 || fn > 7 ||
		    !pt_json_u64(pt_json_get(pt_json_get(d, "class_info"), "class"), &cls) || cls > 0xffff ||
		    !pt_json_u64(pt_json_get(id, "vendor"), &ven) || !pt_json_u64(pt_json_get(id, "device"), &dev) ||
		    ven > 0xffff || dev > 0xffff || *n >= 65536 || !pt_vec_reserve(v, cap, *n + 1, sizeof **v))
			return false;
		/* no domain in PciInfo: QEMU's machines have one, segment 0 */
		(*v)[(*n)++] = (struct pt_pci_dev){.bus = (uint8_t)bus, .devfn = (uint8_t)(slot << 3 | fn),
			.vendor = (uint16_t)ven, .device = (uint16_t)dev, .cls = (uint16_t)cls};
		if (br && !pci_devs(br, v, n, cap))
			return false;
	}
	return true;
}

/*
 * The guest's PCI functions as QEMU sees them (query-pci); QEMU does not
 * know which guest driver binds each, so none is named.  An answer that is
 * not PciInfo: one warning, nothing named.
 */
static pt_err pci(struct pt_loader *ld, struct pt_qmp_live *l)
{
	struct pt_json *msg = NULL;
	const struct pt_json *ret;
	struct pt_pci_dev *v = NULL;
	size_t n = 0, cap = 0;
	char e[256];
	bool ok;
	pt_err rc = pt_qmp_cmd(&l->q, "{\"execute\": \"query-pci\"}", &msg, &ret, e, sizeof e);

	/* QEMU's "error" (a machine without PCI): nothing to name, the capture as before */
	if (rc)
		return l->q.answered_error ? PT_OK : pt_loader_fail(ld, rc, "%s: QMP query-pci: %s", l->label, e);
	ok = ret->type == PT_JSON_ARR;
	for (size_t i = 0; ok && i < ret->n; i++)
		ok = pci_devs(pt_json_get(&ret->kid[i], "devices"), &v, &n, &cap);
	pt_json_free(msg);
	if (!ok)
		pt_loader_warn(ld, "%s: QMP query-pci: an answer that is not PciInfo: PCI functions not named",
			       l->label);
	else if (n)
		rc = pt_loader_pci(ld, v, n, "QMP query-pci", false);
	free(v);
	return rc;
}

static pt_err qmp_load(struct pt_loader *ld, const struct pt_probe *p)
{
	struct pt_qmp_live *l = calloc(1, sizeof *l);
	char e[512], bpath[256], *mtree = NULL;
	uint64_t size = 0;
	int fd = -1;
	pt_err rc;

	if (!l)
		return pt_loader_fail(ld, PT_E_NOMEM, "%s: out of memory", p->path);
	pthread_mutex_init(&l->lock, NULL);
	l->q.fd = -1;
	pt_text_escape(l->label, sizeof l->label, p->path);
	pt_loader_set_live(ld, &pt_qmp_live_ops, l);   /* owned by the capture from here */
	rc = pt_qmp_open(&l->q, p->path, PT_QMP_TIMEOUT_MS, e, sizeof e);
	if (rc)
		return pt_loader_fail(ld, rc, "%s: QMP: %s", l->label, e);
	rc = target(ld, l);
	if (!rc) {
		pt_loader_emitf(ld, l->label, "[capture]");
		pt_loader_emitf(ld, l->label, "version = 1");
		pt_loader_emitf(ld, l->label, "format = %s", l->arm64 ? "arm64" : "x86-64");
		rc = backend(ld, l, bpath, sizeof bpath, &fd, &size);
	}
	if (!rc && pt_loader_add_live(ld, "ram", fd, size))
		rc = pt_loader_fail(ld, PT_E_IO, "%s: RAM backend %s: cannot map its file: %s", l->label, bpath,
				    strerror(errno));
	if (fd >= 0)
		close(fd);
	if (!rc && (rc = pt_qmp_hmp(&l->q, "info mtree -f", &mtree, e, sizeof e)))
		rc = pt_loader_fail(ld, rc, "%s: %s", l->label, e);
	if (!rc)
		rc = ram_ranges(ld, l, mtree, bpath, size);
	if (!rc)
		rc = l->arm64 ? arm64_cpus(ld, l) : cpus(ld, l);
	if (!rc)
		rc = iommus(ld, l, mtree);
	if (!rc)
		rc = pci(ld, l);
	free(mtree);
	return rc;
}

static int qmp_bid(const struct pt_probe *p)
{
	/* a socket: the load connects and reads the greeting, and says so when it is not QMP */
	return p->fd >= 0 && p->st && S_ISSOCK(p->st->st_mode) ? 20 : 0;
}

const struct pt_source pt_source_qmp = {
	.name = "qmp",
	.kind = "live QEMU guest",
	.bid = qmp_bid,
	.load = qmp_load,
};
