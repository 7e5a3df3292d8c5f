/* SPDX-License-Identifier: MIT */
/*
 * decode.c — `ptfs-tool decode`: one entry value, or every entry of a table
 * blob, decoded by the format's own decoder and printed by the renderer.
 *
 * The level an entry is decoded at is chosen from the format's level table,
 * never from a chip name: the options narrow the table's rows to a set of
 * candidates (by --level/--levels, by --role, by entry size), and with
 * --role auto bit 0 picks leaf rows (bit 0 = 1) or directory rows (bit 0 =
 * 0) where both remain.  One candidate is a known level; several are printed
 * as `level: null` plus `level_candidates`, and then the entry is decoded
 * with page size unknown (page_shift 0): a leaf alone does not say 4K vs 64K.
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

enum role {
	ROLE_AUTO = 0,   /* bit 0 picks leaf vs directory */
	ROLE_PTE,
	ROLE_PDE,
	ROLE_DUAL,
};

struct decode_opts {
	const struct pt_format *fmt;
	enum role role;
	bool role_given;
	uint32_t level_mask;     /* rows allowed by --level/--levels; 0 = every row */
	unsigned esize;          /* bytes per entry */
	bool value;              /* --value (not a blob, whose stride is fixed) */
	bool json;
};

static const char decode_help[] =
	"Usage: ptfs-tool decode --value V [--format F] [--role R] [--level L] [--base-pa A] [--json]\n"
	"       ptfs-tool decode --blob FILE --base-pa A [--format F] [--entry-size 8|16]\n"
	"                        [--kind ver2|ver2_dual|gart] [--levels L[,L...]] [--role R] [--json]\n"
	"\n"
	"Decodes one page-table entry, or every entry of a table blob (entry i at\n"
	"physical address A + i * entry size), with the named fields of DESIGN §2.\n"
	"\n"
	"  --value V         the raw entry: 0x hex (up to 32 digits: a 128-bit dual PDE,\n"
	"                    bytes 8..15 in the high 64 bits) or decimal (64-bit)\n"
	"  --blob FILE       a little-endian table dump\n"
	"  --base-pa A       physical address of the first entry\n"
	"  --format F        nv-gmmu-ver2 (default) or amd-gart\n"
	"  --role R          auto (default), pte, pde or dual; auto: bit 0 = 1 is a leaf,\n"
	"                    0 a directory; an open level is printed as null with its\n"
	"                    candidates (always with an explicit --role auto)\n"
	"  --level L, --levels L[,L...]\n"
	"                    depth (VER2 0-4, GART 0) or level name (pde3 ... pte_small);\n"
	"                    several give the candidates; depth 4 is pte_big or pte_small\n"
	"  --entry-size N    8 or 16 (default: from --kind or the level, else 8)\n"
	"  --kind K          ver2 (8-byte entries), ver2_dual (16-byte PDE0) or gart\n"
	"  --json            one JSON object (--value) or an array (--blob)\n";

static bool can_leaf(const struct pt_level *l)
{
	return l->role == PT_ROLE_PTE || l->leaf_shift != 0;
}

static bool can_dir(const struct pt_level *l)
{
	return l->role == PT_ROLE_PDE || l->role == PT_ROLE_DUAL;
}

/* Adds the rows named by one --level item to *MASK. */
static int level_item(const struct pt_format *fmt, const char *item, uint32_t *mask)
{
	unsigned n = pt_format_nlevels(fmt), maxdepth = 0;
	uint32_t m = 0;
	uint64_t depth;

	for (unsigned i = 0; i < n; i++) {
		if (fmt->levels[i].depth > maxdepth)
			maxdepth = fmt->levels[i].depth;
		if (strcmp(fmt->levels[i].name, item) == 0)
			m |= 1u << i;
	}
	if (m) {
		*mask |= m;
		return CLI_EXIT_OK;
	}
	if (item[0] == '-' && item[1] >= '0' && item[1] <= '9' && cli_parse_u64(item + 1, &depth))
		return cli_fail(PT_E_UNSUPPORTED, "level %s is outside %s (depth 0-%u)",
				item, fmt->name, maxdepth);
	if (!cli_parse_u64(item, &depth))
		return cli_fail(PT_E_VALUE, "bad level '%s': a depth or a level name of %s",
				item, fmt->name);
	for (unsigned i = 0; i < n; i++)
		if (fmt->levels[i].depth == depth)
			m |= 1u << i;
	if (!m)
		return cli_fail(PT_E_UNSUPPORTED, "level %s is outside %s (depth 0-%u)",
				item, fmt->name, maxdepth);
	*mask |= m;
	return CLI_EXIT_OK;
}

static int parse_levels(const struct pt_format *fmt, const char *list, uint32_t *mask)
{
	char *copy = strdup(list), *save = NULL, *item;
	int st = CLI_EXIT_OK;

	if (!copy)
		return cli_fail(PT_E_NOMEM, "out of memory");
	if (!*list || list[strlen(list) - 1] == ',' || list[0] == ',' || strstr(list, ",,"))
		st = cli_fail(PT_E_VALUE, "bad level list '%s'", list);
	for (item = strtok_r(copy, ",", &save); item && st == CLI_EXIT_OK;
	     item = strtok_r(NULL, ",", &save))
		st = level_item(fmt, item, mask);
	free(copy);
	return st;
}

/*
 * Whether row L may hold an entry of ESIZE bytes in role R.  A 16-byte row
 * takes an 8-byte --value (high half 0) only as a leaf (a 2 MiB PTE lives in
 * the low half of a PDE0 slot) unless the level was named explicitly
 * (PINNED); a blob's stride must always be the row's.
 */
static bool row_fits(const struct pt_level *l, enum role r, unsigned esize, bool pinned,
		     bool value)
{
	if (l->entry_size != esize) {
		if (!(value && esize == 8 && l->entry_size == 16))
			return false;
		if (!pinned && !can_leaf(l))
			return false;
	}
	switch (r) {
	case ROLE_PTE:
		return can_leaf(l);
	case ROLE_PDE:
		return can_dir(l);
	case ROLE_DUAL:
		return l->role == PT_ROLE_DUAL;
	case ROLE_AUTO:
		break;
	}
	return true;
}

/* The rows that may hold the entry before bit 0 is looked at. */
static uint32_t base_rows(const struct decode_opts *o)
{
	unsigned n = pt_format_nlevels(o->fmt);
	uint32_t m = 0;

	for (unsigned i = 0; i < n; i++) {
		if (o->level_mask && !(o->level_mask & (1u << i)))
			continue;
		if (row_fits(&o->fmt->levels[i], o->role, o->esize, o->level_mask != 0, o->value))
			m |= 1u << i;
	}
	return m;
}

/* --role auto: bit 0 picks the leaf rows or the directory rows, where both remain. */
static uint32_t auto_rows(const struct decode_opts *o, uint32_t rows, uint64_t lo)
{
	unsigned n = pt_format_nlevels(o->fmt);
	uint32_t m = 0;

	for (unsigned i = 0; i < n; i++) {
		const struct pt_level *l = &o->fmt->levels[i];

		if (!(rows & (1u << i)))
			continue;
		/* An 8-byte value in a 16-byte row is only ever its 2 MiB leaf half. */
		if ((lo & 1) ? can_leaf(l) : (can_dir(l) && (l->entry_size == o->esize ||
							     o->level_mask)))
			m |= 1u << i;
	}
	return m ? m : rows;
}

/* Decodes one entry (LO/HI) at address PA and renders it into B. */
static int decode_one(const struct decode_opts *o, uint32_t rows, uint64_t lo, uint64_t hi,
		      uint64_t pa, struct pt_buf *b)
{
	const struct pt_format *fmt = o->fmt;
	const char *cands[PT_MAX_LEVELS + 1];
	unsigned n = pt_format_nlevels(fmt), nc = 0;
	int level = -1, pick = -1;
	unsigned page_shift = 0;
	uint8_t raw[16];
	struct pt_entry e;
	pt_err err;

	if (o->role == ROLE_AUTO)
		rows = auto_rows(o, rows, lo);
	for (unsigned i = 0; i < n; i++) {
		if (!(rows & (1u << i)))
			continue;
		cands[nc++] = fmt->levels[i].name;
		/* Among several, a pure PTE row: decoded with page size unknown. */
		if (pick < 0 || fmt->levels[i].role == PT_ROLE_PTE)
			pick = (int)i;
	}
	cands[nc] = NULL;
	/*
	 * An explicit --role auto never claims a level: it only knows leaf vs
	 * directory.  Otherwise one candidate is the level (amd-gart has one).
	 */
	if (nc == 1 && (o->role != ROLE_AUTO || o->level_mask || !o->role_given)) {
		const struct pt_level *l = &fmt->levels[pick];

		level = pick;
		/* A flat level (GART) takes its page size from registers we do not have. */
		page_shift = l->bits ? l->va_shift : 0;
	}
	for (int i = 0; i < 8; i++) {
		raw[i] = (uint8_t)(lo >> (8 * i));
		raw[8 + i] = (uint8_t)(hi >> (8 * i));
	}
	if (hi && fmt->levels[pick].entry_size < 16)
		return cli_fail(PT_E_VALUE, "value 0x%016llx%016llx is wider than the %u-byte %s entry",
				(unsigned long long)hi, (unsigned long long)lo,
				fmt->levels[pick].entry_size, fmt->levels[pick].name);
	err = fmt->decode((unsigned)pick, page_shift, raw, &e);
	if (err != PT_OK)
		return cli_fail(err, "cannot decode at level %s", fmt->levels[pick].name);
	err = pt_render_decoded(b, fmt, level, level < 0 ? cands : NULL, pa, &e,
				o->json ? PT_OUT_JSON : PT_OUT_TEXT);
	if (err != PT_OK)
		return cli_fail(err, "cannot render the entry");
	return CLI_EXIT_OK;
}

static int read_blob(const char *path, uint8_t **data, size_t *len)
{
	FILE *f = fopen(path, "rb");
	uint8_t *p = NULL;
	size_t n = 0, cap = 0;

	if (!f)
		return cli_fail(PT_E_IO, "%s: %s", path, strerror(errno));
	for (;;) {
		size_t got;

		if (n == cap) {
			uint8_t *q;

			cap = cap ? cap * 2 : 65536;
			q = realloc(p, cap);
			if (!q) {
				free(p);
				fclose(f);
				return cli_fail(PT_E_NOMEM, "%s: out of memory", path);
			}
			p = q;
		}
		got = fread(p + n, 1, cap - n, f);
		n += got;
		if (got == 0)
			break;
	}
	if (ferror(f)) {
		int e = errno;

		free(p);
		fclose(f);
		return cli_fail(PT_E_IO, "%s: %s", path, strerror(e));
	}
	fclose(f);
	*data = p;
	*len = n;
	return CLI_EXIT_OK;
}

static uint64_t load_le64(const uint8_t *p)
{
	uint64_t v = 0;

	for (int i = 7; i >= 0; i--)
		v = v << 8 | p[i];
	return v;
}

/* Output is written out whenever this much has gathered. */
#define DECODE_FLUSH (1u << 20)

static int decode_blob(const struct decode_opts *o, uint32_t rows, const char *path,
		       uint64_t base, struct pt_buf *out)
{
	struct pt_buf one;
	uint8_t *data = NULL;
	size_t len = 0, count;
	int st;

	st = read_blob(path, &data, &len);
	if (st != CLI_EXIT_OK)
		return st;
	if (len % o->esize) {
		free(data);
		return cli_fail(PT_E_TRUNCATED, "%s: %zu bytes is not a multiple of the %u-byte entry size",
				path, len, o->esize);
	}
	count = len / o->esize;
	if (count && (UINT64_MAX - base) / o->esize < count - 1) {
		free(data);
		return cli_fail(PT_E_VALUE, "%s: entry addresses from base-pa 0x%llx wrap around",
				path, (unsigned long long)base);
	}
	pt_buf_init(&one);
	if (o->json)
		pt_buf_puts(out, "[");
	for (size_t i = 0; i < count && st == CLI_EXIT_OK; i++) {
		const uint8_t *p = data + i * o->esize;
		uint64_t lo = load_le64(p), hi = o->esize == 16 ? load_le64(p + 8) : 0;

		pt_buf_reset(&one);
		st = decode_one(o, rows, lo, hi, base + (uint64_t)i * o->esize, &one);
		if (st != CLI_EXIT_OK)
			break;
		if (o->json) {
			cli_buf_chomp(&one);
			if (i)
				pt_buf_puts(out, ",\n");
		} else if (i) {
			/* Text: one block per entry, a blank line between. */
			pt_buf_puts(out, "\n");
		}
		pt_buf_put(out, one.data ? one.data : "", one.len);
		/* Stream: a blob of any size decodes in bounded memory. */
		if (out->len >= DECODE_FLUSH) {
			if (!cli_write_buf(out))
				st = CLI_EXIT_ERROR;
			pt_buf_reset(out);
		}
	}
	if (o->json)
		pt_buf_puts(out, "]\n");
	pt_buf_free(&one);
	free(data);
	return st;
}

static int set_role(struct decode_opts *o, const char *s)
{
	static const char *const names[] = {"auto", "pte", "pde", "dual"};

	for (unsigned i = 0; i < 4; i++)
		if (strcmp(s, names[i]) == 0) {
			o->role = (enum role)i;
			o->role_given = true;
			return CLI_EXIT_OK;
		}
	return cli_fail(PT_E_USAGE, "decode: bad --role '%s' (auto, pte, pde or dual)", s);
}

int cli_decode(int argc, char **argv)
{
	enum { O_VALUE = 256, O_BLOB, O_BASE, O_FORMAT, O_ROLE, O_LEVEL, O_ESIZE, O_KIND, O_JSON };
	static const struct option opts[] = {
		{"value", required_argument, NULL, O_VALUE},
		{"blob", required_argument, NULL, O_BLOB},
		{"base-pa", required_argument, NULL, O_BASE},
		{"format", required_argument, NULL, O_FORMAT},
		{"role", required_argument, NULL, O_ROLE},
		{"level", required_argument, NULL, O_LEVEL},
		{"levels", required_argument, NULL, O_LEVEL},
		{"entry-size", required_argument, NULL, O_ESIZE},
		{"kind", required_argument, NULL, O_KIND},
		{"json", no_argument, NULL, O_JSON},
		{"help", no_argument, NULL, 'h'},
		{NULL, 0, NULL, 0},
	};
	struct decode_opts o = {.fmt = &pt_format_ver2};
	const char *value = NULL, *blob = NULL, *base_s = NULL, *format = NULL;
	const char *levels = NULL, *esize_s = NULL, *kind = NULL;
	uint64_t lo = 0, hi = 0, base = UINT64_MAX, esize = 0;
	unsigned kind_esize = 0;
	bool wide = false;
	struct pt_buf out;
	uint32_t rows;
	int c, st;

	optind = 0;
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":h", opts, NULL)) != -1) {
		switch (c) {
		case 'h':
			fputs(decode_help, stdout);
			return CLI_EXIT_OK;
		case O_VALUE:
			value = optarg;
			break;
		case O_BLOB:
			blob = optarg;
			break;
		case O_BASE:
			base_s = optarg;
			break;
		case O_FORMAT:
			format = optarg;
			break;
		case O_ROLE:
			if ((st = set_role(&o, optarg)) != CLI_EXIT_OK)
				return st;
			break;
		case O_LEVEL:
			levels = optarg;
			break;
		case O_ESIZE:
			esize_s = optarg;
			break;
		case O_KIND:
			kind = optarg;
			break;
		case O_JSON:
			o.json = true;
			break;
		default:
			return cli_opt_error("decode", argv, c);
		}
	}
	if (optind < argc)
		return cli_fail(PT_E_USAGE, "decode: unexpected argument '%s'", argv[optind]);
	if (!value == !blob)
		return cli_fail(PT_E_USAGE, "decode: give exactly one of --value and --blob");
	if (blob && !base_s)
		return cli_fail(PT_E_USAGE, "decode: --blob needs --base-pa");
	if (value && (esize_s || kind))
		return cli_fail(PT_E_USAGE, "decode: --entry-size and --kind go with --blob");

	if (kind) {
		const char *kfmt;

		if (strcmp(kind, "ver2") == 0) {
			kfmt = "nv-gmmu-ver2";
			kind_esize = 8;
		} else if (strcmp(kind, "ver2_dual") == 0) {
			kfmt = "nv-gmmu-ver2";
			kind_esize = 16;
		} else if (strcmp(kind, "gart") == 0) {
			kfmt = "amd-gart";
			kind_esize = 8;
		} else {
			return cli_fail(PT_E_UNSUPPORTED, "decode: unknown --kind '%s' (ver2, ver2_dual or gart)",
					kind);
		}
		if (format && strcmp(format, kfmt) != 0)
			return cli_fail(PT_E_USAGE, "decode: --kind %s is not format %s", kind, format);
		format = kfmt;
	}
	if (format) {
		o.fmt = pt_format_find(format);
		if (!o.fmt)
			return cli_fail(PT_E_UNSUPPORTED, "decode: unknown format '%s' (nv-gmmu-ver2 or amd-gart)",
					format);
	}
	if (levels && (st = parse_levels(o.fmt, levels, &o.level_mask)) != CLI_EXIT_OK)
		return st;
	if (base_s && !cli_parse_u64(base_s, &base))
		return cli_fail(PT_E_VALUE, "decode: bad --base-pa '%s'", base_s);
	if (esize_s) {
		if (!cli_parse_u64(esize_s, &esize))
			return cli_fail(PT_E_VALUE, "decode: bad --entry-size '%s'", esize_s);
		if (esize != 8 && esize != 16)
			return cli_fail(PT_E_UNSUPPORTED, "decode: entry size %s (8 or 16)", esize_s);
		if (kind_esize && esize != kind_esize)
			return cli_fail(PT_E_USAGE, "decode: --kind %s has %u-byte entries, not %s",
					kind, kind_esize, esize_s);
	}

	if (value) {
		const char *digits = value + 2;

		if (!cli_parse_u128(value, &lo, &hi))
			return cli_fail(PT_E_VALUE, "decode: bad --value '%s' (0x hex, up to 32 digits, or decimal)",
					value);
		/* Written wider than 16 hex digits: the user means a 16-byte entry. */
		if (value[0] == '0' && (value[1] == 'x' || value[1] == 'X'))
			wide = strlen(digits) > 16;
		o.esize = hi || wide || o.role == ROLE_DUAL ? 16 : 8;
		o.value = true;
	} else if (esize) {
		o.esize = (unsigned)esize;
	} else if (kind_esize) {
		o.esize = kind_esize;
	} else {
		/* Without a size: the common size of the chosen rows (16 for pde0 alone), else 8. */
		unsigned n = pt_format_nlevels(o.fmt), common = 0;

		for (unsigned i = 0; i < n; i++) {
			const struct pt_level *l = &o.fmt->levels[i];

			if ((o.level_mask && !(o.level_mask & (1u << i))) ||
			    (o.role == ROLE_DUAL && l->role != PT_ROLE_DUAL))
				continue;
			common = !common || common == l->entry_size ? l->entry_size : 1;
		}
		o.esize = common == 16 ? 16 : 8;
	}

	rows = base_rows(&o);
	if (!rows) {
		static const char *const rn[] = {"auto", "pte", "pde", "dual"};

		if (o.level_mask && value && (hi || wide))
			return cli_fail(PT_E_VALUE, "decode: a 16-byte value does not fit level %s of %s",
					levels, o.fmt->name);
		if (o.level_mask && blob && !o.role_given)
			return cli_fail(PT_E_USAGE, "decode: level %s of %s has no %u-byte entries",
					levels, o.fmt->name, o.esize);
		return cli_fail(PT_E_UNSUPPORTED, "decode: %s has no %s%sentry%s%s (%u-byte entries)",
				o.fmt->name, o.role == ROLE_AUTO ? "" : rn[o.role],
				o.role == ROLE_AUTO ? "" : " ",
				levels ? " at level " : "", levels ? levels : "", o.esize);
	}

	pt_buf_init(&out);
	if (value) {
		st = decode_one(&o, rows, lo, hi, base, &out);
		if (st == CLI_EXIT_OK && o.json) {
			cli_buf_chomp(&out);
			pt_buf_puts(&out, "\n");
		}
	} else {
		st = decode_blob(&o, rows, blob, base, &out);
	}
	if (st == CLI_EXIT_OK && !cli_write_buf(&out))
		st = CLI_EXIT_ERROR;
	pt_buf_free(&out);
	return st;
}
