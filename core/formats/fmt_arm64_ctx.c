/* SPDX-License-Identifier: MIT */
/*
 * fmt_arm64_ctx.c — the arm64 format's [arm64 NAME] context and the format
 * itself (docs/design.md §2.6): its keys, the geometry of stage 1 (TCR_EL1:
 * granule, TxSZ, IPS, DS, TBI) and stage 2 (VTCR_EL2: SL0, concatenated
 * roots), the context's own level table and the decoder of its
 * configuration picked from fmt_arm64.c's, and its info.  Facts as
 * fmt_arm64.c cites them (Arm ARM DDI 0487 D8.2-D8.4; Linux
 * arch/arm64/include/asm/pgtable-hwdef.h and kvm_arm.h; QEMU
 * target/arm/ptw.c).  Calls fmt_arm64.c, never called by it.
 */
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "fmt_arm64.h"
#include "pt_capture.h"
#include "pt_buf.h"

static const char *const key_names[K__COUNT] = {
	"stage", "ttbr", "tcr", "half", "granule", "va_bits", "pa_bits", "ds", "vttbr", "vtcr", "xnx",
	"tbi",
};
/* Keys of stage 1 only, of stage 2 only, and those tcr (or vtcr) replaces. */
#define S1_KEYS (BIT(K_TTBR) | BIT(K_TCR) | BIT(K_HALF) | BIT(K_GRANULE) | BIT(K_VA_BITS) | \
		 BIT(K_PA_BITS) | BIT(K_DS) | BIT(K_TBI))
#define S2_KEYS (BIT(K_VTTBR) | BIT(K_VTCR) | BIT(K_XNX))
#define TCR_KEYS (BIT(K_GRANULE) | BIT(K_VA_BITS) | BIT(K_PA_BITS) | BIT(K_DS) | BIT(K_TBI))


static const char *const lvl_names[] = {"l-1", "l0", "l1", "l2", "l3"};

static pt_err a64_ctx_key(void *priv, const struct pt_ctx_key *k)
{
	struct a64_ctx *c = priv;
	pt_err rc;

	if (!strcmp(k->key, "space")) {
		/* the capture's name of the format's one space (a guest's IPAs, docs/design.md §2.8) */
		c->space_name = k->value;
		return PT_OK;
	}
	for (int i = 0; i < K__COUNT; i++) {
		uint64_t v;

		if (strcmp(k->key, key_names[i]))
			continue;
		if (i == K_HALF) {
			if (strcmp(k->value, "lower") && strcmp(k->value, "upper"))
				return pt_ctx_key_fail(k, PT_E_VALUE, "half '%s' in %s is not lower"
						       " (TTBR0) or upper (TTBR1)", k->value, k->label);
			c->upper = !strcmp(k->value, "upper");
			v = c->upper;
		} else if (i == K_TBI) {
			/* TCR_ELx.TBI of the half, which a dump does not hold: 0, 1, or unknown (2) */
			if (strcmp(k->value, "0") && strcmp(k->value, "1") && strcmp(k->value, "unknown"))
				return pt_ctx_key_fail(k, PT_E_VALUE, "tbi '%s' in %s is not 0, 1 or unknown",
						       k->value, k->label);
			v = !strcmp(k->value, "unknown") ? 2 : k->value[0] == '1';
		} else {
			rc = pt_ctx_key_uint(k, &v);
			if (rc)
				return rc;
		}
		if ((i == K_STAGE && v != 1 && v != 2) ||
		    ((i == K_DS || i == K_XNX) && v > 1) ||
		    (i == K_GRANULE && v != 4096 && v != 16384 && v != 65536) ||
		    (i == K_VA_BITS && (v < 25 || v > 52)) ||
		    (i == K_PA_BITS && v != 32 && v != 36 && v != 40 && v != 42 && v != 44 &&
		     v != 48 && v != 52))
			return pt_ctx_key_fail(k, PT_E_VALUE, "%s %s in %s is not one of %s", k->key,
					       k->value, k->label,
					       i == K_STAGE ? "1, 2" : i == K_GRANULE ? "4096, 16384, 65536"
					       : i == K_VA_BITS ? "25..52" : i == K_PA_BITS
					       ? "32, 36, 40, 42, 44, 48, 52" : "0, 1");
		if ((i == K_TCR && (c->has & TCR_KEYS)) || ((BIT(i) & TCR_KEYS) && (c->has & BIT(K_TCR))))
			return pt_ctx_key_fail(k, PT_E_VALUE, "%s in %s: tcr and granule/va_bits/pa_bits/ds/tbi"
					       " both given (tcr says them)", k->key, k->label);
		if (((BIT(i) & S1_KEYS) && (c->has & S2_KEYS)) ||
		    ((BIT(i) & S2_KEYS) && (c->has & S1_KEYS)))
			return pt_ctx_key_fail(k, PT_E_VALUE, "%s in %s: stage-1 keys (ttbr, tcr, half,"
					       " ...) and stage-2 keys (vttbr, vtcr, xnx) both given",
					       k->key, k->label);
		if (((BIT(i) & S1_KEYS) && (c->has & BIT(K_STAGE)) && c->v[K_STAGE] == 2) ||
		    ((BIT(i) & S2_KEYS) && (c->has & BIT(K_STAGE)) && c->v[K_STAGE] == 1) ||
		    (i == K_STAGE && (c->has & (v == 2 ? S1_KEYS : S2_KEYS))))
			return pt_ctx_key_fail(k, PT_E_VALUE, "%s in %s: stage = %u with stage-%u keys",
					       k->key, k->label, i == K_STAGE ? (unsigned)v
					       : (unsigned)c->v[K_STAGE], i == K_STAGE ? 3 - (unsigned)v
					       : 3 - (unsigned)c->v[K_STAGE]);
		c->v[i] = v;
		c->has |= (uint32_t)BIT(i);
		return PT_OK;
	}
	return PT_E_NOTFOUND;
}

static const char *a64_ctx_missing(const void *priv)
{
	const struct a64_ctx *c = priv;
	bool s2 = (c->has & BIT(K_STAGE)) ? c->v[K_STAGE] == 2 : (c->has & S2_KEYS) != 0;

	if (s2)
		return !(c->has & BIT(K_VTTBR)) ? "vttbr" : !(c->has & BIT(K_VTCR)) ? "vtcr" : NULL;
	return !(c->has & BIT(K_TTBR)) ? "ttbr" : !(c->has & BIT(K_HALF)) ? "half" : NULL;
}

static pt_err setup_fail(char *err, size_t errlen, pt_err rc, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
static pt_err setup_fail(char *err, size_t errlen, pt_err rc, const char *fmt, ...)
{
	va_list ap;

	if (err && errlen) {
		va_start(ap, fmt);
		vsnprintf(err, errlen, fmt, ap);
		va_end(ap);
	}
	return rc;
}

static unsigned pa_index(unsigned pa)
{
	for (unsigned i = 0; i < NPA; i++)
		if (pa_sizes[i] == pa)
			return i;
	return 5;
}

/*
 * Stage 1 geometry from TCR_EL1 (pgtable-hwdef.h TCR_T0SZ 5:0, TCR_EPD0 7,
 * TCR_TG0 15:14 (0 4K, 1 64K, 2 16K), TCR_T1SZ 21:16, TCR_EPD1 23,
 * TCR_TG1 31:30 (1 16K, 2 4K, 3 64K), TCR_IPS 34:32, TCR_HPD0 41,
 * TCR_HPD1 42, TCR_DS 59), or from the explicit keys.
 */
static pt_err s1_geometry(struct a64_ctx *c, char *err, size_t errlen)
{
	static const unsigned tg0[4] = {12, 16, 14, 0}, tg1[4] = {0, 14, 12, 16};
	uint64_t tcr = c->v[K_TCR];

	if (c->has & BIT(K_TCR)) {
		unsigned tg = c->upper ? tg1[bits(tcr, 31, 30)] : tg0[bits(tcr, 15, 14)];
		unsigned ips = (unsigned)bits(tcr, 34, 32);

		if (!tg)
			return setup_fail(err, errlen, PT_E_VALUE, "tcr 0x%" PRIx64 ": TG%d %u is reserved",
					  tcr, c->upper, (unsigned)(c->upper ? bits(tcr, 31, 30)
								   : bits(tcr, 15, 14)));
		if (tcr & (c->upper ? BIT(23) : BIT(7)))
			return setup_fail(err, errlen, PT_E_UNSUPPORTED, "tcr 0x%" PRIx64 ": EPD%d is set:"
					  " walks from TTBR%d are disabled", tcr, c->upper, c->upper);
		if (ips >= NPA)
			return setup_fail(err, errlen, PT_E_VALUE, "tcr 0x%" PRIx64 ": IPS 7 is reserved",
					  tcr);
		c->grain = tg;
		c->va = 64 - (unsigned)(c->upper ? bits(tcr, 21, 16) : bits(tcr, 5, 0));
		c->pa = pa_sizes[ips];
		c->ds = tg != 16 && (tcr & BIT(59));
		c->hpd = (tcr & (c->upper ? BIT(42) : BIT(41))) != 0;
		/* TBI0 37, TBI1 38 (Linux pgtable-hwdef.h TCR_TBI0/TCR_TBI1) */
		c->tbi = (tcr & (c->upper ? BIT(38) : BIT(37))) != 0;
	} else {
		c->grain = (c->has & BIT(K_GRANULE)) ? (c->v[K_GRANULE] == 4096 ? 12 :
			   c->v[K_GRANULE] == 16384 ? 14 : 16) : 12;
		c->va = (c->has & BIT(K_VA_BITS)) ? (unsigned)c->v[K_VA_BITS] : 48;
		c->ds = c->grain != 16 && c->v[K_DS];
		c->pa = (c->has & BIT(K_PA_BITS)) ? (unsigned)c->v[K_PA_BITS] : c->ds ? 52 : 48;
		c->tbi = (c->has & BIT(K_TBI)) && c->v[K_TBI] == 1;
		c->tbi_unknown = (c->has & BIT(K_TBI)) && c->v[K_TBI] == 2;
	}
	/* without DS a 4K/16K walk outputs at most 48 bits (QEMU ptw.c) */
	if (c->grain != 16 && !c->ds && c->pa > 48)
		c->pa = 48;
	/* TxSZ 16..39, down to 12 with 64K (FEAT_LVA) or DS (QEMU helper.c aa64_va_parameters) */
	if (c->va < 25 || c->va > 52 || (c->va > 48 && c->grain != 16 && !c->ds))
		return setup_fail(err, errlen, PT_E_VALUE, "a %u-bit VA range is outside 25..%u for"
				  " the %u KiB granule%s", c->va, c->grain != 16 && !c->ds ? 48 : 52,
				  1u << (c->grain - 10), c->grain != 16 && !c->ds ? " without DS" : "");
	/* start level = 4 - (inputsize - 4) / stride (Arm ARM D8.3; QEMU ptw.c) */
	c->start_lvl = (unsigned)(4 - (int)((c->va - 4) / (c->grain - 3)) + 1);
	return PT_OK;
}

/*
 * Stage 2 geometry from VTCR_EL2 (kvm_arm.h VTCR_EL2_T0SZ 5:0, SL0 7:6,
 * TG0 15:14, PS 18:16, DS 32, SL2 33) and the start level its SL0 gives
 * (QEMU ptw.c check_s2_mmu_setup; Arm ARM D8.3 "concatenated translation
 * tables": up to 16 tables at the start level).
 */
static pt_err s2_geometry(struct a64_ctx *c, char *err, size_t errlen)
{
	static const unsigned tg0[4] = {12, 16, 14, 0};
	uint64_t vtcr = c->v[K_VTCR];
	unsigned sl0 = (unsigned)bits(vtcr, 7, 6), ps = (unsigned)bits(vtcr, 18, 16);
	int start = -2;

	c->grain = tg0[bits(vtcr, 15, 14)];
	if (!c->grain || ps >= NPA)
		return setup_fail(err, errlen, PT_E_VALUE, "vtcr 0x%" PRIx64 ": %s is reserved", vtcr,
				  !c->grain ? "TG0 3" : "PS 7");
	c->va = 64 - (unsigned)bits(vtcr, 5, 0);
	c->pa = pa_sizes[ps];
	c->ds = c->grain != 16 && (vtcr & BIT(32));
	if (c->grain != 16 && !c->ds && c->pa > 48)
		c->pa = 48;
	c->xnx = (unsigned)c->v[K_XNX];
	if (c->grain == 12)
		start = c->ds && (vtcr & BIT(33)) && sl0 == 0 ? -1 : (int[]){2, 1, 0, 3}[sl0];
	else if (c->grain == 14)
		start = sl0 == 3 && !c->ds ? -2 : 3 - (int)sl0;
	else
		start = sl0 == 3 ? -2 : 3 - (int)sl0;
	if (start < -1)
		return setup_fail(err, errlen, PT_E_UNSUPPORTED, "vtcr 0x%" PRIx64 ": SL0 %u is"
				  " reserved for the %u KiB granule", vtcr, sl0, 1u << (c->grain - 10));
	c->start_lvl = (unsigned)(start + 1);
	{
		unsigned stride = c->grain - 3, shift = c->grain + stride * (unsigned)(3 - start);

		if (c->va <= shift || c->va - shift > stride + 4)
			return setup_fail(err, errlen, PT_E_VALUE, "vtcr 0x%" PRIx64 ": a %u-bit IPA"
					  " does not start at level %d (SL0 %u): the start table"
					  " would index %d bits (1..%u)", vtcr, c->va, start, sl0,
					  (int)c->va - (int)shift, stride + 4);
	}
	return PT_OK;
}

/* The per-context level table: start level to 3, blocks where the granule has them. */
static void make_levels(struct a64_ctx *c, const struct a64_cfg *cfg)
{
	unsigned stride = c->grain - 3, n = 0;

	for (unsigned li = c->start_lvl; li <= 4; li++, n++) {
		int lvl = (int)li - 1;
		unsigned shift = c->grain + stride * (unsigned)(3 - lvl);
		struct pt_level *l = &c->levels[n];

		l->name = lvl_names[li];
		l->depth = (uint8_t)n;
		l->va_shift = (uint8_t)shift;
		l->bits = (uint8_t)(n == 0 ? c->va - shift : stride);
		l->entry_size = 8;
		l->role = lvl == 3 ? PT_ROLE_LEAF : PT_ROLE_DIR;
		l->leaf_shift = lvl < 3 && pt_a64_block_ok(cfg, lvl) ? (uint8_t)shift : 0;
		l->child[0] = (int8_t)(lvl == 3 ? -1 : (int)n + 1);
		l->child[1] = -1;
	}
	c->root_bits = c->levels[0].bits;
	memset(&c->levels[n], 0, sizeof c->levels[n]);
	c->levels[n].child[0] = c->levels[n].child[1] = -1;
}

/* Audit reasons: the descriptor fields whose value denies. */
static const struct pt_perm_name a64_perm_names[] = {
	{PT_PERM_NO_WRITE, "ap_rdonly=1"},
	{PT_PERM_PRIVILEGE, "ap_user=0"},
	{PT_PERM_PXN, "pxn=1"},
	{PT_PERM_UXN, "uxn=1"},
	{PT_PERM_NS, "ns=1"},
	{0, NULL},
};
/* Stage 2: PXN and UXN come from XN[1:0] together (s2_perm()): no one field each. */
static const struct pt_perm_name a64_s2_perm_names[] = {
	{PT_PERM_NO_READ, "s2ap_read=0"},
	{PT_PERM_NO_WRITE, "s2ap_write=0"},
	{0, NULL},
};

extern const struct pt_format pt_format_arm64;

pt_err pt_a64_setup(struct a64_ctx *c, struct pt_context *ctx, char *err, size_t errlen)
{
	bool s2 = (c->has & BIT(K_STAGE)) ? c->v[K_STAGE] == 2 : (c->has & S2_KEYS) != 0;
	uint64_t ttbr = s2 ? c->v[K_VTTBR] : c->v[K_TTBR], base;
	struct a64_cfg cfg;
	unsigned x;
	pt_err rc;

	if (s2 && (c->has & S1_KEYS))
		return setup_fail(err, errlen, PT_E_VALUE, "stage = 2 with stage-1 keys (ttbr, tcr, half)");
	if (!s2 && (c->has & S2_KEYS))
		return setup_fail(err, errlen, PT_E_VALUE, "stage = 1 with stage-2 keys (vttbr, vtcr, xnx)");
	rc = s2 ? s2_geometry(c, err, errlen) : s1_geometry(c, err, errlen);
	if (rc)
		return rc;
	cfg = (struct a64_cfg){(c->grain - 12) / 2, c->ds, pa_index(c->pa), s2, c->xnx};
	make_levels(c, &cfg);
	/*
	 * BADDR (Arm ARM D19 TTBRn_EL1/VTTBR_EL2): bits 47:x, x the log2 of the
	 * root table's bytes (at least 6 with a 52-bit output, whose BADDR[51:48]
	 * sit in bits 5:2: Linux phys_to_ttbr); ASID or VMID 63:48; CnP bit 0.
	 * The bits below x are not the base: masked and shown (QEMU ptw.c).
	 */
	x = c->root_bits + 3;
	base = ttbr & span(47, 1);
	if (c->pa == 52 && (c->grain == 16 || c->ds)) {
		x = x < 6 ? 6 : x;
		base = (ttbr & span(47, 6)) | (bits(ttbr, 5, 2) << 48);
	}
	c->root = base & ~(BIT(x) - 1);
	c->ttbr_ignored = ttbr & span(x - 1, 1) & ~(c->pa == 52 && (c->grain == 16 || c->ds)
						    ? span(5, 2) : 0);
	if (c->root >> c->pa)
		return setup_fail(err, errlen, PT_E_VALUE, "%s 0x%" PRIx64 ": the table base 0x%" PRIx64
				  " is above the %u-bit output size", s2 ? "vttbr" : "ttbr", ttbr,
				  c->root, c->pa);
	c->fmt = pt_format_arm64;
	c->fmt.levels = c->levels;
	c->fmt.decode = pt_a64_decoders[cfg.g][cfg.ds][cfg.pa][cfg.s2][cfg.xnx];
	c->fmt.encode = pt_a64_encoders[cfg.g][cfg.ds][cfg.pa][cfg.s2][cfg.xnx];
	if (s2) {
		/* an IPA space: not canonical, no hierarchical controls */
		c->fmt.va_canonical = false;
		c->fmt.va_bits = c->va;
		c->fmt.va_digits = (c->va + 3) / 4;
		c->fmt.perm_or_down = 0;
		c->fmt.flags = pt_a64_s2_flags;
		c->fmt.kind_field = "mem_attr";
		c->fmt.perm_names = a64_s2_perm_names;
	} else {
		c->fmt.va_bits = c->va + 1;
		c->fmt.va_tbi = c->tbi;
		c->fmt.va_tbi_unknown = c->tbi_unknown;
		/* TCR.HPDn: no APTable/PXNTable/UXNTable, NSTable still (Arm ARM D8.4.2) */
		if (c->hpd)
			c->fmt.perm_or_down = PT_PERM_NS;
	}
	ctx->fmt = &c->fmt;
	ctx->root_space = 0;
	ctx->space_names[0] = c->space_name;
	ctx->space_used = 0;
	ctx->root_addr = c->root;
	ctx->root_entries = 1ull << c->root_bits;
	ctx->root_page_shift = 0;
	ctx->va_base = !s2 && c->upper ? BIT(c->va) : 0;
	ctx->va_last = 0;
	for (unsigned i = 0; i < PT_CONTEXT_SPACES; i++)
		ctx->space_bias[i] = 0;
	return PT_OK;
}

static pt_err a64_ctx_setup(struct pt_context *ctx, char *err, size_t errlen)
{
	return pt_a64_setup(ctx->priv, ctx, err, errlen);
}

static bool ctx_s2(const struct a64_ctx *c)
{
	return c->fmt.perm_or_down == 0 && !c->fmt.va_canonical;
}

/*
 * ptfs-tool roots: CTX's keys as given (stage, tcr or its parts, half,
 * vtcr, xnx, space) with TTBR (VTTBR) at ROOT; a 52-bit root's bits 51:48
 * in BADDR 5:2 (Arm ARM D8.2.3 "TTBR0_EL1").
 */
static void a64_geom_keys(const struct pt_context *ctx, unsigned space, uint64_t root,
			  struct pt_buf *ini)
{
	const struct a64_ctx *c = ctx->priv;
	bool s2 = (c->has & (BIT(K_VTTBR) | BIT(K_VTCR) | BIT(K_XNX))) ||
		  ((c->has & BIT(K_STAGE)) && c->v[K_STAGE] == 2);
	uint64_t r = root >> 48 ? (root & span(47, 0)) | (root >> 48 & 0xf) << 2 : root;

	for (int i = 0; i < K__COUNT; i++) {
		if (!(c->has & BIT(i)) || i == K_TTBR || i == K_VTTBR)
			continue;
		if (i == K_HALF)
			pt_buf_printf(ini, "half = %s\n", c->upper ? "upper" : "lower");
		else
			pt_buf_printf(ini, "%s = 0x%" PRIx64 "\n", key_names[i], c->v[i]);
	}
	pt_buf_printf(ini, "%s = 0x%" PRIx64 "\n", s2 ? "vttbr" : "ttbr", r);
	if (!s2 && !(c->has & BIT(K_HALF)) && c->upper)
		pt_buf_puts(ini, "half = upper\n");
	if (c->space_name)
		pt_buf_printf(ini, "space = %s\n", c->space_name);
}

static void a64_info_text(const struct pt_context *ctx, struct pt_buf *b)
{
	const struct a64_ctx *c = ctx->priv;
	bool s2;

	if (!c || !c->fmt.name)
		return;
	s2 = ctx_s2(c);
	pt_buf_printf(b, "stage: %d\n", s2 ? 2 : 1);
	if (!s2)
		pt_buf_printf(b, "half: %s (TTBR%d)\n", c->upper ? "upper" : "lower", c->upper);
	pt_buf_printf(b, "granule: %u\n", 1u << c->grain);
	pt_buf_printf(b, "%s: %u\n", s2 ? "ipa_bits" : "va_bits", c->va);
	pt_buf_printf(b, "pa_bits: %u\n", c->pa);
	pt_buf_printf(b, "ds: %u\n", c->ds);
	pt_buf_printf(b, "start_level: %s (%u index bits%s)\n", c->levels[0].name, c->root_bits,
		      c->root_bits > c->grain - 3 ? ", concatenated tables" : "");
	if (s2) {
		pt_buf_printf(b, "vttbr: 0x%" PRIx64 " (vmid 0x%" PRIx64 ", cnp %u)\n", c->v[K_VTTBR],
			      bits(c->v[K_VTTBR], 63, 48), (unsigned)(c->v[K_VTTBR] & 1));
		pt_buf_printf(b, "vtcr: 0x%" PRIx64 "\n", c->v[K_VTCR]);
		pt_buf_printf(b, "xnx: %u\n", c->xnx);
	} else {
		pt_buf_printf(b, "ttbr: 0x%" PRIx64 " (asid 0x%" PRIx64 ", cnp %u)\n", c->v[K_TTBR],
			      bits(c->v[K_TTBR], 63, 48), (unsigned)(c->v[K_TTBR] & 1));
		if (c->has & BIT(K_TCR))
			pt_buf_printf(b, "tcr: 0x%" PRIx64 " (hpd%d %u)\n", c->v[K_TCR], c->upper, c->hpd);
		else
			pt_buf_puts(b, "tcr: not given (granule, va_bits, pa_bits, ds as keyed)\n");
		if (c->tbi)
			pt_buf_printf(b, "tbi: 1 (TBI%d: bits 63:56 of a VA are ignored)\n", c->upper);
		else if (c->tbi_unknown)
			pt_buf_printf(b, "tbi: unknown (no TCR_EL1 says TBI%d: walked as 0, so a tagged VA "
				      "faults noncanonical and says what it walks as with TBI%d set; tbi = 0|1 "
				      "sets it)\n", c->upper, c->upper);
		else if (c->has & BIT(K_TBI))
			pt_buf_printf(b, "tbi: 0 (TBI%d: bits 63:56 are part of a VA)\n", c->upper);
	}
	if (c->ttbr_ignored)
		pt_buf_printf(b, "ttbr_ignored: 0x%" PRIx64 "\n", c->ttbr_ignored);
}

static void a64_info_json(const struct pt_context *ctx, struct pt_jobj *o)
{
	const struct a64_ctx *c = ctx->priv;
	bool s2;

	if (!c || !c->fmt.name)
		return;
	s2 = ctx_s2(c);
	pt_jobj_u(o, "stage", s2 ? 2 : 1);
	pt_jobj_str(o, "half", s2 ? NULL : c->upper ? "upper" : "lower");
	pt_jobj_u(o, "granule", 1u << c->grain);
	pt_jobj_u(o, "va_bits", c->va);
	pt_jobj_u(o, "pa_bits", c->pa);
	pt_jobj_bool(o, "ds", c->ds);
	pt_jobj_str(o, "start_level", c->levels[0].name);
	pt_jobj_u(o, "root_index_bits", c->root_bits);
	if (c->tbi)
		pt_jobj_bool(o, "tbi", true);
	else if (c->tbi_unknown)
		pt_jobj_str(o, "tbi", "unknown");
	else if (c->has & BIT(K_TBI))
		pt_jobj_bool(o, "tbi", false);
	pt_jobj_hex(o, s2 ? "vttbr" : "ttbr", s2 ? c->v[K_VTTBR] : c->v[K_TTBR]);
	if (s2)
		pt_jobj_hex(o, "vtcr", c->v[K_VTCR]);
	else if (c->has & BIT(K_TCR))
		pt_jobj_hex(o, "tcr", c->v[K_TCR]);
	else
		pt_jobj_raw(o, "tcr", "null");
	pt_jobj_bool(o, "hpd", c->hpd);
	pt_jobj_hex(o, "ttbr_ignored", c->ttbr_ignored);
}

/*
 * A Linux process's context (pt_format.user_keys): at EL0 the CPU walks
 * user VAs from TTBR0_EL1, which holds mm->pgd's physical address
 * (arch/arm64/include/asm/mmu_context.h cpu_switch_mm(): phys_to_ttbr(),
 * 52-bit addresses' bits 51:48 in BADDR 5:2), with TCR_EL1's T0SZ, TG0 and
 * TBI0: the kernel context's TCR when it has one (a live vCPU's), else its
 * granule, VA and output sizes (Linux sets one VA size for both halves,
 * TCR_T0SZ and TCR_T1SZ of vabits_actual, and always TBI0: arch/arm64/mm/
 * proc.S __cpu_setup).  The kernel half stays CTX's (TTBR1): an arm64
 * context is one half (docs/design.md §2.6).  The PGD is PGD_SIZE-aligned
 * (arch/arm64/mm/pgd.c): the root table's bytes.
 */
static bool a64_user_keys(const struct pt_context *ctx, uint64_t pgd, const struct pt_ctx_reader *rd,
			  uint64_t *root, struct pt_buf *ini)
{
	const struct a64_ctx *c = ctx->priv;
	uint64_t r = pgd >> 48 ? (pgd & span(47, 0)) | (pgd >> 48 & 0xf) << 2 : pgd;

	(void)rd;
	if (!c || !c->fmt.name || ctx_s2(c) || !c->upper || pgd & ((8ull << c->root_bits) - 1) ||
	    pgd >> c->pa)
		return false;
	*root = pgd;
	if (!ini)
		return true;
	pt_buf_printf(ini, "ttbr = 0x%" PRIx64 "\nhalf = lower\n", r);
	if (c->has & BIT(K_TCR))
		pt_buf_printf(ini, "tcr = 0x%" PRIx64 "\n", c->v[K_TCR]);
	else
		pt_buf_printf(ini, "granule = %u\nva_bits = %u\npa_bits = %u\nds = %u\ntbi = 1\n", 1u << c->grain,
			      c->va, c->pa, c->ds);
	if (c->space_name)
		pt_buf_printf(ini, "space = %s\n", c->space_name);
	return true;
}

static const struct pt_blob_kind a64_blob_kinds[] = {
	{"arm64", 8},
	{NULL, 0},
};


/* Levels without a context (ptfs-tool decode): 4 KiB granule, 48-bit VA, l0..l3. */
const struct pt_level pt_a64_levels[] = {
	/* name depth va_shift bits size role         leaf_shift child */
	{"l0",   0,    39,      9,   8,   PT_ROLE_DIR,  0,  {1, -1}},
	{"l1",   1,    30,      9,   8,   PT_ROLE_DIR,  30, {2, -1}},
	{"l2",   2,    21,      9,   8,   PT_ROLE_DIR,  21, {3, -1}},
	{"l3",   3,    12,      9,   8,   PT_ROLE_LEAF, 0,  {-1, -1}},
	{NULL,   0,    0,       0,   0,   0,            0,  {-1, -1}},
};

/*
 * Without a context (ptfs-tool decode): stage 1, 4 KiB granule, 48-bit VA
 * and output, DS 0 — Linux's default arm64 configuration.
 */
const struct pt_format pt_format_arm64 = {
	.name = "arm64",
	.levels = pt_a64_levels,
	.va_bits = 49,
	.va_digits = 16,
	.va_canonical = true,
	.perm_or_down = PT_PERM_NO_WRITE | PT_PERM_PRIVILEGE | PT_PERM_PXN | PT_PERM_UXN | PT_PERM_NS,
	.spaces = pt_a64_spaces,
	.decode = pt_a64_decode_4k,
	.flags = pt_a64_flags,
	.kind_name = pt_a64_kind,
	.kind_field = "attr_index",
	.blob_kinds = a64_blob_kinds,
	.ctx_section = "arm64",
	.ctx_size = sizeof(struct a64_ctx),
	.ctx_key = a64_ctx_key,
	.ctx_missing = a64_ctx_missing,
	.ctx_setup = a64_ctx_setup,
	.info_text = a64_info_text,
	.info_json = a64_info_json,
	.perm_names = a64_perm_names,
	.encode = pt_a64_encode_4k,
	.build_keys = pt_a64_build_keys,
	.geom_keys = a64_geom_keys,
	.user_keys = a64_user_keys,
};
