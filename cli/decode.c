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
#include "decode.h"

/* The command line as given, before it is checked. */
struct decode_args {
	const char *value, *blob, *base_s, *format, *levels, *esize_s, *kind;
	uint64_t lo, hi, base, esize;
	unsigned kind_esize;
	bool wide;               /* --value written with more than 16 hex digits */
};

/* Every --kind of every format joined by JOIN, the last pair by LAST; SIZES: with format and size. */
static void kind_list(char *buf, size_t len, const char *join, const char *last, bool sizes)
{
	const struct pt_format *f;
	size_t n = 0, total = 0, k = 0;

	for (unsigned i = 0; (f = pt_format_at(i)); i++)
		for (const struct pt_blob_kind *b = f->blob_kinds; b && b->name; b++)
			total++;
	buf[0] = 0;
	for (unsigned i = 0; (f = pt_format_at(i)) && n < len; i++)
		for (const struct pt_blob_kind *b = f->blob_kinds; b && b->name && n < len; b++, k++) {
			n += (size_t)snprintf(buf + n, len - n, "%s%s", !k ? "" : k + 1 == total ? last : join,
					      b->name);
			if (sizes && n < len)
				n += (size_t)snprintf(buf + n, len - n, " (%s, %u-byte entries)",
						      f->name, b->entry_size);
		}
}

/*
 * The help text: the format-specific parts (formats, --kind names, level
 * names and depths) come from the format table, so a new format shows up
 * here without an edit.
 */
static void print_help(void)
{
	const struct pt_format *f;
	char kinds[512], kinds_long[1024], formats[256];

	kind_list(kinds, sizeof kinds, "|", "|", false);
	kind_list(kinds_long, sizeof kinds_long, ",\n                    ", " or\n                    ", true);
	pt_format_list(formats, sizeof formats, ", ", " or ");
	printf("Usage: ptfs-tool decode --value V [--format F] [--role R] [--level L] [--base-pa A] [--json]\n"
	       "       ptfs-tool decode --blob FILE --base-pa A [--format F] [--entry-size 8|16]\n"
	       "                        [--kind %s] [--levels L[,L...]] [--role R]\n"
	       "                        [--skip-zero] [--oneline] [--json]\n"
	       "\n"
	       "Decodes one page-table entry, or every entry of a table blob (entry i, printed\n"
	       "with its index, at physical address A + i * entry size), with the named fields\n"
	       "of the hardware's entry layout (ptfs-tool(1)).  Without --level a blob is one\n"
	       "whole table: the levels whose table size and alignment it has are printed\n"
	       "first (levels_fit), and the\n"
	       "entries are decoded at that level, or among those levels when several fit;\n"
	       "none is an error.\n"
	       "\n"
	       "  --value V         the raw entry: 0x hex (up to 32 digits: a 128-bit dual PDE,\n"
	       "                    bytes 8..15 in the high 64 bits) or decimal (64-bit)\n"
	       "  --blob FILE       a little-endian table dump\n"
	       "  --base-pa A       physical address of the first entry\n"
	       "  --format F        %s (the first is the default)\n"
	       "  --role R          auto (default), pte, pde or dual; auto: bit 0 = 1 is a leaf,\n"
	       "                    0 a directory; an open level is printed as null with its\n"
	       "                    candidates (always with an explicit --role auto)\n"
	       "  --level L, --levels L[,L...]\n"
	       "                    depth (0 = the root table) or level name; several give the\n"
	       "                    candidates (one depth may have several levels):\n",
	       kinds, formats);
	for (unsigned i = 0; (f = pt_format_at(i)); i++) {
		unsigned n = pt_format_nlevels(f);
		unsigned maxd = f->levels[n - 1].depth;

		printf("                    %s: ", f->name);
		printf(maxd ? "depths 0-%u, levels" : "depth %u, level", maxd);
		for (unsigned k = 0; k < n; k++)
			printf(" %s", f->levels[k].name);
		printf("\n");
	}
	printf("  --entry-size N    8 or 16 (default: from --kind or the level, else 8)\n"
	       "  --kind K          the format and entry size of a blob:\n"
	       "                    %s\n"
	       "  --skip-zero       leave out blob entries whose bytes are all zero\n"
	       "  --oneline         one line per blob entry: INDEX RAW STATE ADDRESS PAGE_SIZE\n"
	       "                    FLAGS KIND (\"-\" where none); with --json one object per line\n"
	       "  --json            one JSON object (--value), or for --blob an object with\n"
	       "                    \"entries\" (each with its \"index\") and \"levels_fit\"\n"
	       "                    (null with --level)\n", kinds_long);
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

static int read_blob(const char *path, uint8_t **data, size_t *len)
{
	FILE *f = fopen(path, "rb");
	uint8_t *p = NULL;
	size_t n = 0, cap = 0;

	if (!f)
		return cli_fail(PT_E_IO, "%s: %s", path, strerror(errno));
	for (;;) {
		size_t got;

		if (n == cap && !pt_vec_reserve(&p, &cap, n + 65536, 1)) {
			free(p);
			fclose(f);
			return cli_fail(PT_E_NOMEM, "%s: out of memory", path);
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

/*
 * Whether a blob of LEN bytes at BASE is one whole table of level L.  A
 * level with index bits holds 2^bits entries; its table is aligned to its
 * size up to 4 KiB, and the root to 4 KiB (directory address fields that
 * hold addr>>12 cannot point below 4 KiB; a smaller table, such as a
 * 256-byte one under an addr>>8 pointer, is aligned to its size; see
 * ptfs-formats(7) for each format's fields).  A flat level (bits 0)
 * takes its entry count from the context: any whole number of entries fits.
 */
static bool table_fits(const struct pt_level *l, uint64_t len, uint64_t base)
{
	uint64_t size, align;

	if (l->bits == 0)
		return len % l->entry_size == 0 && base % l->entry_size == 0;
	size = (uint64_t)l->entry_size << l->bits;
	align = l->depth == 0 || size > 4096 ? 4096 : size;
	return len == size && base % align == 0;
}

/* The ROWS whose whole table a blob of LEN bytes at BASE is. */
static uint32_t fitting_rows(const struct decode_opts *o, uint32_t rows, uint64_t len,
			     uint64_t base)
{
	unsigned n = pt_format_nlevels(o->fmt);
	uint32_t m = 0;

	for (unsigned i = 0; i < n; i++)
		if ((rows & (1u << i)) && table_fits(&o->fmt->levels[i], len, base))
			m |= 1u << i;
	return m;
}

/* The fitting levels, once before the entries: `levels_fit: A B` (text). */
static void put_fit_text(const struct decode_opts *o, uint32_t fit, struct pt_buf *out)
{
	unsigned n = pt_format_nlevels(o->fmt);

	pt_buf_puts(out, "levels_fit:");
	for (unsigned i = 0; i < n; i++)
		if (fit & (1u << i))
			pt_buf_printf(out, " %s", o->fmt->levels[i].name);
	pt_buf_puts(out, "\n");
}

/* JSON: `"levels_fit": [...]`, or null where --level chose the level. */
static void put_fit_json(const struct decode_opts *o, uint32_t fit, bool table,
			 struct pt_buf *out)
{
	unsigned n = pt_format_nlevels(o->fmt);
	struct pt_jarr names = {0};

	pt_buf_puts(out, "\"levels_fit\": ");
	if (!table) {
		pt_buf_puts(out, "null");
		return;
	}
	for (unsigned i = 0; i < n; i++)
		if (fit & (1u << i))
			pt_jarr_str(&names, o->fmt->levels[i].name);
	pt_buf_puts(out, "[");
	pt_buf_put(out, names.b.data ? names.b.data : "", names.b.len);
	pt_buf_puts(out, "]");
	out->oom |= names.b.oom;
	pt_buf_free(&names.b);
}


/* Output is written out whenever this much has gathered. */
#define DECODE_FLUSH (1u << 20)


/* Decodes the COUNT entries of DATA into OUT (streamed out past DECODE_FLUSH). */
static int decode_entries(const struct decode_opts *o, uint32_t rows, const uint8_t *data,
			  size_t count, uint64_t base, struct pt_buf *out)
{
	struct pt_buf one;
	size_t shown = 0;
	int st = CLI_EXIT_OK;

	pt_buf_init(&one);
	for (size_t i = 0; i < count && st == CLI_EXIT_OK; i++) {
		const uint8_t *p = data + i * o->esize;
		uint64_t lo = pt_le64_load(p), hi = o->esize == 16 ? pt_le64_load(p + 8) : 0;

		if (o->skip_zero && is_zero(p, o->esize))
			continue;
		pt_buf_reset(&one);
		st = decode_one(o, rows, lo, hi, base + (uint64_t)i * o->esize, &one);
		if (st != CLI_EXIT_OK)
			break;
		if (o->json) {
			cli_buf_chomp(&one);
			if (shown)
				pt_buf_puts(out, ",\n");
			put_json_indexed(out, one.data ? one.data : "{}", one.data ? one.len : 2, i);
		} else {
			/* Text: one block per entry, a blank line between. */
			if (shown || o->table)
				pt_buf_puts(out, "\n");
			pt_buf_printf(out, "index: %zu\n", i);
			pt_buf_put(out, one.data ? one.data : "", one.len);
		}
		shown++;
		/* Stream: a blob of any size decodes in bounded memory. */
		if (out->len >= DECODE_FLUSH) {
			if (!cli_write_buf(out))
				st = CLI_EXIT_ERROR;
			pt_buf_reset(out);
		}
	}
	pt_buf_free(&one);
	return st;
}

/*
 * Without --level the blob is one table: the levels whose table it is
 * (size and alignment) are said once, and with one of them every entry is
 * decoded at it; with several, --role auto picks among them per entry.
 */
static int blob_levels(struct decode_opts *o, const char *path, uint64_t len, uint64_t base,
		       uint32_t *rows)
{
	uint32_t fit;

	if (!o->table)
		return CLI_EXIT_OK;
	fit = fitting_rows(o, *rows, len, base);
	if (!fit)
		return cli_fail(PT_E_VALUE, "%s: %llu bytes at base-pa 0x%llx is no whole table of a "
				"%s level with %u-byte entries (give --level to decode it anyway)",
				path, (unsigned long long)len, (unsigned long long)base,
				o->fmt->name, o->esize);
	*rows = fit;
	o->fit = fit;
	if (!(fit & (fit - 1)))
		o->level_mask = fit;    /* one level: the blob's entries are of it */
	return CLI_EXIT_OK;
}

static int decode_blob(struct decode_opts *o, uint32_t rows, const char *path,
		       uint64_t base, struct pt_buf *out)
{
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
	st = blob_levels(o, path, len, base, &rows);
	if (st != CLI_EXIT_OK) {
		free(data);
		return st;
	}
	if (o->oneline) {
		/* Lines only: a stream to cut, grep or sort (levels_fit is left out). */
		st = decode_oneline(o, rows, data, count, base);
		free(data);
		return st;
	}
	if (o->json)
		pt_buf_puts(out, "{\"entries\": [");
	else if (o->table)
		put_fit_text(o, o->fit, out);
	st = decode_entries(o, rows, data, count, base, out);
	if (o->json) {
		pt_buf_puts(out, "], ");
		put_fit_json(o, o->fit, o->table, out);
		pt_buf_puts(out, "}\n");
	}
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

/* Reads the options into A and O; CLI_EXIT_OK, or the status to exit with (--help: 0 with *DONE). */
static int parse_args(int argc, char **argv, struct decode_args *a, struct decode_opts *o,
		      bool *done)
{
	enum { O_VALUE = 256, O_BLOB, O_BASE, O_FORMAT, O_ROLE, O_LEVEL, O_ESIZE, O_KIND, O_JSON,
	       O_SKIP0, O_ONELINE };
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
		{"skip-zero", no_argument, NULL, O_SKIP0},
		{"oneline", no_argument, NULL, O_ONELINE},
		{"help", no_argument, NULL, 'h'},
		{NULL, 0, NULL, 0},
	};
	int c, st;

	optind = 0;
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":h", opts, NULL)) != -1) {
		switch (c) {
		case 'h':
			print_help();
			*done = true;
			return CLI_EXIT_OK;
		case O_VALUE: a->value = optarg; break;
		case O_BLOB: a->blob = optarg; break;
		case O_BASE: a->base_s = optarg; break;
		case O_FORMAT: a->format = optarg; break;
		case O_LEVEL: a->levels = optarg; break;
		case O_ESIZE: a->esize_s = optarg; break;
		case O_KIND: a->kind = optarg; break;
		case O_JSON: o->json = true; break;
		case O_SKIP0: o->skip_zero = true; break;
		case O_ONELINE: o->oneline = true; break;
		case O_ROLE:
			if ((st = set_role(o, optarg)) != CLI_EXIT_OK)
				return st;
			break;
		default:
			return cli_opt_error("decode", argv, c);
		}
	}
	if (optind < argc)
		return cli_fail(PT_E_USAGE, "decode: unexpected argument '%s'", argv[optind]);
	if (!a->value == !a->blob)
		return cli_fail(PT_E_USAGE, "decode: give exactly one of --value and --blob");
	if (a->blob && !a->base_s)
		return cli_fail(PT_E_USAGE, "decode: --blob needs --base-pa");
	if (a->value && (a->esize_s || a->kind || o->skip_zero || o->oneline))
		return cli_fail(PT_E_USAGE, "decode: --entry-size, --kind, --skip-zero and --oneline go with --blob");
	return CLI_EXIT_OK;
}

/* --kind and --format: the format, and the entry size --kind implies. */
static int pick_format(struct decode_args *a, struct decode_opts *o)
{
	char list[512];

	if (a->kind) {
		const struct pt_format *f, *kf = NULL;
		const struct pt_blob_kind *k = NULL;

		for (unsigned i = 0; !kf && (f = pt_format_at(i)); i++)
			for (k = f->blob_kinds; k && k->name && !kf; k++)
				if (!strcmp(a->kind, k->name))
					kf = f;
		if (!kf) {
			kind_list(list, sizeof list, ", ", " or ", false);
			return cli_fail(PT_E_UNSUPPORTED, "decode: unknown --kind '%s' (%s)", a->kind, list);
		}
		k--;    /* the loop stepped past the match */
		if (a->format && strcmp(a->format, kf->name) != 0)
			return cli_fail(PT_E_USAGE, "decode: --kind %s is not format %s", a->kind, a->format);
		a->format = kf->name;
		a->kind_esize = k->entry_size;
	}
	if (a->format) {
		o->fmt = pt_format_find(a->format);
		if (!o->fmt) {
			pt_format_list(list, sizeof list, ", ", " or ");
			return cli_fail(PT_E_UNSUPPORTED, "decode: unknown format '%s' (%s)",
					a->format, list);
		}
	}
	return CLI_EXIT_OK;
}

/* --levels, --base-pa, --entry-size and --value as numbers. */
static int parse_numbers(struct decode_args *a, struct decode_opts *o)
{
	int st;

	if (a->levels && (st = parse_levels(o->fmt, a->levels, &o->level_mask)) != CLI_EXIT_OK)
		return st;
	if (a->base_s && !cli_parse_u64(a->base_s, &a->base))
		return cli_fail(PT_E_VALUE, "decode: bad --base-pa '%s'%s", a->base_s, cli_num_hint(a->base_s));
	if (a->esize_s) {
		if (!cli_parse_u64(a->esize_s, &a->esize))
			return cli_fail(PT_E_VALUE, "decode: bad --entry-size '%s'", a->esize_s);
		if (a->esize != 8 && a->esize != 16)
			return cli_fail(PT_E_UNSUPPORTED, "decode: entry size %s (8 or 16)", a->esize_s);
		if (a->kind_esize && a->esize != a->kind_esize)
			return cli_fail(PT_E_USAGE, "decode: --kind %s has %u-byte entries, not %s",
					a->kind, a->kind_esize, a->esize_s);
	}
	if (a->value) {
		if (!cli_parse_u128(a->value, &a->lo, &a->hi))
			return cli_fail(PT_E_VALUE, "decode: bad --value '%s' (0x hex, up to 32 digits, or decimal)%s",
					a->value, pt_num_bare_hex(a->value) ? cli_num_hint(a->value) : "");
		/* Written wider than 16 hex digits: the user means a 16-byte entry. */
		if (a->value[0] == '0' && (a->value[1] == 'x' || a->value[1] == 'X'))
			a->wide = strlen(a->value + 2) > 16;
	}
	return CLI_EXIT_OK;
}

/* The entry size: of the value, else --entry-size, --kind, or the chosen rows' common size. */
static void pick_esize(const struct decode_args *a, struct decode_opts *o)
{
	if (a->value) {
		o->esize = a->hi || a->wide || o->role == ROLE_DUAL ? 16 : 8;
		o->value = true;
	} else if (a->esize) {
		o->esize = (unsigned)a->esize;
	} else if (a->kind_esize) {
		o->esize = a->kind_esize;
	} else {
		/* Without a size: the common size of the chosen rows (16 for a dual level alone), else 8. */
		unsigned n = pt_format_nlevels(o->fmt), common = 0;

		for (unsigned i = 0; i < n; i++) {
			const struct pt_level *l = &o->fmt->levels[i];

			if ((o->level_mask && !(o->level_mask & (1u << i))) ||
			    (o->role == ROLE_DUAL && l->role != PT_ROLE_DUAL))
				continue;
			common = !common || common == l->entry_size ? l->entry_size : 1;
		}
		o->esize = common == 16 ? 16 : 8;
	}
}

/* No row can hold the entry: say why. */
static int no_rows(const struct decode_args *a, const struct decode_opts *o)
{
	static const char *const rn[] = {"auto", "pte", "pde", "dual"};

	if (o->level_mask && a->value && (a->hi || a->wide))
		return cli_fail(PT_E_VALUE, "decode: a 16-byte value does not fit level %s of %s",
				a->levels, o->fmt->name);
	if (o->level_mask && a->blob && !o->role_given)
		return cli_fail(PT_E_USAGE, "decode: level %s of %s has no %u-byte entries",
				a->levels, o->fmt->name, o->esize);
	return cli_fail(PT_E_UNSUPPORTED, "decode: %s has no %s%sentry%s%s (%u-byte entries)",
			o->fmt->name, o->role == ROLE_AUTO ? "" : rn[o->role],
			o->role == ROLE_AUTO ? "" : " ",
			a->levels ? " at level " : "", a->levels ? a->levels : "", o->esize);
}

int cli_decode(int argc, char **argv)
{
	struct decode_opts o = {.fmt = pt_format_at(0)};   /* the default format */
	struct decode_args a = {.base = UINT64_MAX};
	bool done = false;
	struct pt_buf out;
	uint32_t rows;
	int st;

	if ((st = parse_args(argc, argv, &a, &o, &done)) != CLI_EXIT_OK || done)
		return st;
	if ((st = pick_format(&a, &o)) != CLI_EXIT_OK ||
	    (st = parse_numbers(&a, &o)) != CLI_EXIT_OK)
		return st;
	pick_esize(&a, &o);
	/* A blob without --level is one table (blob_levels). */
	o.table = a.blob && !o.level_mask;
	rows = decode_base_rows(&o);
	if (!rows)
		return no_rows(&a, &o);

	pt_buf_init(&out);
	if (a.value) {
		st = decode_one(&o, rows, a.lo, a.hi, a.base, &out);
		if (st == CLI_EXIT_OK && o.json) {
			cli_buf_chomp(&out);
			pt_buf_puts(&out, "\n");
		}
	} else {
		st = decode_blob(&o, rows, a.blob, a.base, &out);
	}
	if (st == CLI_EXIT_OK && !cli_write_buf(&out))
		st = CLI_EXIT_ERROR;
	pt_buf_free(&out);
	return st;
}
