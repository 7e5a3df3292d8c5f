/*
 * test_ini: the capture.ini grammar and the version 1 schema.  Every error
 * message has its own case (a loop test per table row) that checks the code
 * and the whole message, "capture.ini:LINE: " prefix included.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fmt_gart.h"
#include "fmt_ver2.h"
#include "ini.h"
#include "testutil.h"

#define NV_HEAD "[capture]\nversion = 1\nformat = nv-gmmu-ver2\n"
#define AMD_HEAD "[capture]\nversion = 1\nformat = amd-gart\n"
#define PDB "[pdb pdb0]\nspace = vidmem\naddress = 0x201000\n"
#define GART "[gart gart0]\nVM_CONTEXT0_PAGE_TABLE_BASE_ADDR = 0x3EE600000\n" \
	"VM_CONTEXT0_PAGE_TABLE_START_ADDR = 0x7FFF00000\n" \
	"VM_CONTEXT0_PAGE_TABLE_END_ADDR = 0x7FFF1FFFF\n"

static pt_err parse(const char *text, struct pt_manifest **m, char *err, size_t errlen)
{
	return pt_manifest_parse(text, strlen(text), m, err, errlen);
}

/* Parses TEXT, which must be accepted; the manifest (free it). */
static struct pt_manifest *parse_ok(const char *text)
{
	struct pt_manifest *m = NULL;
	char err[512] = "";

	ck_assert_msg(parse(text, &m, err, sizeof err) == PT_OK, "%s", err);
	ck_assert_ptr_nonnull(m);
	return m;
}

/* ---- accepted input ---- */

START_TEST(design_example)
{
	/* The example of docs/design.md §3, comments and all. */
	static const char text[] =
		"[capture]\n"
		"version = 1\n"
		"format = nv-gmmu-ver2          ; or amd-gart\n"
		"gpu = TU104                    ; optional, free text\n"
		"description = channel 3 after cuMemAlloc   ; optional\n"
		"\n"
		"[memory vram0]                 ; one section per captured blob\n"
		"space = vidmem                 ; nv: vidmem | sysmem | peer0..peer7 ; amd: vram | sysmem\n"
		"base = 0x200000                ; physical address of the blob's first byte\n"
		"file = mem/vidmem-200000.bin   ; member path; size = the member's size\n"
		"\n"
		"[pdb pdb0]                     ; nv-gmmu-ver2: one per page directory base\n"
		"space = vidmem                 ; aperture of the root table: vidmem | sysmem\n"
		"address = 0x201000             ; 4 KiB aligned\n"
		"big_page_size = 64K            ; VER2: 64K only (128K -> E_UNSUPPORTED)\n";
	struct pt_manifest *m = parse_ok(text);

	ck_assert_ptr_eq(m->fmt, &pt_format_ver2);
	ck_assert_uint_eq(m->version, 1);
	ck_assert_str_eq(m->gpu, "TU104");
	ck_assert_str_eq(m->description, "channel 3 after cuMemAlloc");
	ck_assert_uint_eq(m->nmem, 1);
	ck_assert_str_eq(m->mem[0].name, "vram0");
	ck_assert_uint_eq(m->mem[0].space, 0);
	ck_assert_uint_eq(m->mem[0].base, 0x200000);
	ck_assert_str_eq(m->mem[0].file, "mem/vidmem-200000.bin");
	ck_assert_str_eq(m->mem[0].path, "mem/vidmem-200000.bin");
	ck_assert_uint_eq(m->mem[0].line, 7);
	ck_assert_uint_eq(m->mem[0].file_line, 10);
	ck_assert_uint_eq(m->nctx, 1);
	ck_assert_str_eq(m->ctx[0].name, "pdb0");
	ck_assert_ptr_eq(m->ctx[0].fmt, &pt_format_ver2);
	ck_assert_uint_eq(((const struct pt_ver2_ctx *)m->ctx[0].priv)->address, 0x201000);
	ck_assert_uint_eq(((const struct pt_ver2_ctx *)m->ctx[0].priv)->big_page_size, 65536);
	ck_assert_uint_eq(m->ctx[0].line, 12);
	ck_assert_uint_eq(m->capture_line, 1);
	pt_manifest_free(m);
}
END_TEST

START_TEST(gart_and_annotations)
{
	static const char text[] =
		"# a comment\n"
		"; another\n"
		"[memory vram]\n"
		"space = vram\n"
		"base = 0x3EE600000\n"
		"file = ./mem//gart.bin\n"
		"x-note = kept nowhere\n"
		"[capture]\r\n"
		"x-tool = dumper 2.1\r\n"
		"version = 1\r\n"
		"format = amd-gart\r\n"
		"x-host = node7\r\n"
		GART
		"MC_VM_FB_OFFSET = 0\n"
		"x-vmid = 0\n"
		"x-who = me ; not part of the value\n"
		"\t[gart second] \n"
		"VM_CONTEXT0_PAGE_TABLE_BASE_ADDR = 0x1000\n"
		"VM_CONTEXT0_PAGE_TABLE_START_ADDR = 0\n"
		"VM_CONTEXT0_PAGE_TABLE_END_ADDR = 0xff\n";
	struct pt_manifest *m = parse_ok(text);

	ck_assert_ptr_eq(m->fmt, &pt_format_gart);
	ck_assert_ptr_null(m->gpu);
	ck_assert_ptr_null(m->description);
	ck_assert_uint_eq(m->capture_line, 8);
	/* x- keys of [capture], in file order. */
	ck_assert_uint_eq(m->nann, 2);
	ck_assert_str_eq(m->ann[0].key, "x-tool");
	ck_assert_str_eq(m->ann[0].value, "dumper 2.1");
	ck_assert_str_eq(m->ann[1].key, "x-host");
	ck_assert_str_eq(m->ann[1].value, "node7");
	ck_assert_uint_eq(m->nmem, 1);
	ck_assert_uint_eq(m->mem[0].space, (unsigned)pt_format_space(&pt_format_gart, "vram"));
	ck_assert_str_eq(m->mem[0].file, "./mem//gart.bin");
	ck_assert_str_eq(m->mem[0].path, "mem/gart.bin");
	ck_assert_uint_eq(m->nctx, 2);
	ck_assert_ptr_eq(m->ctx[0].fmt, &pt_format_gart);
	{
		const struct pt_gart_layout *l = m->ctx[0].priv;

		ck_assert(l->has[PT_GR_PT_BASE] && l->has[PT_GR_FB_OFFSET]);
		ck_assert(!l->has[PT_GR_AGP_TOP]);
		ck_assert_uint_eq(l->raw[PT_GR_PT_BASE], 0x3EE600000ull);
		ck_assert_uint_eq(l->raw[PT_GR_PT_END], 0x7FFF1FFFFull);
	}
	ck_assert_uint_eq(m->ctx[0].nann, 2);
	ck_assert_str_eq(m->ctx[0].ann[0].key, "x-vmid");
	ck_assert_str_eq(m->ctx[0].ann[1].key, "x-who");
	ck_assert_str_eq(m->ctx[0].ann[1].value, "me");
	ck_assert_str_eq(m->ctx[1].name, "second");
	ck_assert_uint_eq(m->ctx[1].line, 20);
	ck_assert_uint_eq(m->ctx[1].nann, 0);
	pt_manifest_free(m);
}
END_TEST

START_TEST(values_and_comments)
{
	/* '#' and ';' need whitespace before them to start a comment. */
	static const char text[] = NV_HEAD
		"gpu=a;b#c\n"
		"description = # only a comment\n"
		"x-empty =\n"
		"x-tab =\tv\t1\t\n"
		"x-utf8 = Grüße → ok\n"
		PDB
		"big_page_size = 0x10000\n"
		"[memory sys.1_A-b]\n"
		"space = peer7\n"
		"base = 4G\n"
		"file = a\n";
	struct pt_manifest *m = parse_ok(text);

	ck_assert_str_eq(m->gpu, "a;b#c");
	ck_assert_str_eq(m->description, "");
	ck_assert_uint_eq(m->nann, 3);
	ck_assert_str_eq(m->ann[0].value, "");
	ck_assert_str_eq(m->ann[1].value, "v\t1");
	ck_assert_str_eq(m->ann[2].value, "Grüße → ok");
	ck_assert_uint_eq(m->mem[0].base, 4ull << 30);
	ck_assert_uint_eq(m->mem[0].space, 9);
	pt_manifest_free(m);
}
END_TEST

START_TEST(bom_and_no_final_newline)
{
	static const char text[] = "\xef\xbb\xbf" NV_HEAD "[pdb p]\nspace = sysmem\naddress = 0";
	struct pt_manifest *m = parse_ok(text);

	ck_assert_uint_eq(((const struct pt_ver2_ctx *)m->ctx[0].priv)->space, 1);
	ck_assert_uint_eq(((const struct pt_ver2_ctx *)m->ctx[0].priv)->address, 0);
	pt_manifest_free(m);
}
END_TEST

START_TEST(integers)
{
	static const struct {
		const char *s;
		pt_err rc;
		uint64_t v;
	} t[] = {
		{"0", PT_OK, 0},
		{"1", PT_OK, 1},
		{"4096", PT_OK, 4096},
		{"0x0", PT_OK, 0},
		{"0xDEADbeef", PT_OK, 0xdeadbeef},
		{"0X10", PT_OK, 16},
		{"64K", PT_OK, 65536},
		{"64k", PT_OK, 65536},
		{"2M", PT_OK, 2u << 20},
		{"4G", PT_OK, 4ull << 30},
		{"0x10K", PT_E_VALUE, 0},                   /* suffixes on decimal numbers only */
		{"0x8000000g", PT_E_VALUE, 0},              /* a hex typo or a size: ambiguous */
		{"18446744073709551615", PT_OK, UINT64_MAX},
		{"0xffffffffffffffff", PT_OK, UINT64_MAX},
		{"0x00000000000000000001", PT_OK, 1},       /* leading hex zeros are fine */
		{"18446744073709551616", PT_E_VALUE, 0},    /* 2^64 */
		{"0x10000000000000000", PT_E_VALUE, 0},
		{"17179869184G", PT_E_VALUE, 0},            /* 2^34 G = 2^64 */
		{"17179869183G", PT_OK, 17179869183ull << 30},
		{"0x3fffffffffffffK", PT_E_VALUE, 0},
		{"0x40000000000000K", PT_E_VALUE, 0},
		{"", PT_E_VALUE, 0},
		{"K", PT_E_VALUE, 0},
		{"0x", PT_E_VALUE, 0},
		{"0xK", PT_E_VALUE, 0},
		{"010", PT_E_VALUE, 0},                     /* octal to some readers: refused */
		{"-1", PT_E_VALUE, 0},
		{"+1", PT_E_VALUE, 0},
		{"1 K", PT_E_VALUE, 0},
		{"1KB", PT_E_VALUE, 0},
		{"1T", PT_E_VALUE, 0},
		{"0x1g", PT_E_VALUE, 0},
		{"12a", PT_E_VALUE, 0},
		{"0xfg0", PT_E_VALUE, 0},
	};

	for (size_t i = 0; i < sizeof t / sizeof t[0]; i++) {
		uint64_t v = 12345;
		pt_err rc = pt_ini_uint(t[i].s, &v);

		ck_assert_msg(rc == t[i].rc, "'%s': %d", t[i].s, rc);
		if (rc == PT_OK)
			ck_assert_msg(v == t[i].v, "'%s': 0x%llx", t[i].s, (unsigned long long)v);
	}
}
END_TEST

START_TEST(normalise)
{
	static const struct {
		const char *in;
		const char *out;    /* NULL: never used */
	} t[] = {
		{"a", "a"},
		{"./a", "a"},
		{"././a/./b", "a/b"},
		{"a//b///c", "a/b/c"},
		{"dir/", "dir"},
		{".hidden/..x/x..", ".hidden/..x/x.."},
		{"/abs", NULL},
		{"//abs", NULL},
		{"..", NULL},
		{"../x", NULL},
		{"a/../b", NULL},
		{"a/..", NULL},
		{".", NULL},
		{"./", NULL},
		{"", NULL},
	};

	for (size_t i = 0; i < sizeof t / sizeof t[0]; i++) {
		char buf[64];
		bool ok;

		strcpy(buf, t[i].in);
		ok = pt_path_normalise(buf);
		if (t[i].out) {
			ck_assert_msg(ok, "'%s' refused", t[i].in);
			ck_assert_str_eq(buf, t[i].out);
		} else {
			ck_assert_msg(!ok, "'%s' accepted as '%s'", t[i].in, buf);
		}
	}
}
END_TEST

START_TEST(names)
{
	static const struct {
		const char *name;
		bool ok;
	} t[] = {
		{"pdb0", true}, {"a.b-c_D9", true}, {"...", true},
		{".", false}, {"..", false}, {"", false}, {"a/b", false}, {"a:b", false}, {"ü", false},
	};
	char longname[300];

	for (size_t i = 0; i < sizeof t / sizeof t[0]; i++)
		ck_assert_msg(pt_ini_name_ok(t[i].name) == t[i].ok, "'%s': want %s", t[i].name,
			      t[i].ok ? "accepted" : "refused");
	memset(longname, 'a', 255);
	longname[255] = 0;
	ck_assert(pt_ini_name_ok(longname));
	longname[255] = 'a';
	longname[256] = 0;
	ck_assert(!pt_ini_name_ok(longname));
}
END_TEST

START_TEST(many_sections)
{
	/* 20000 memory sections: sorting keeps the duplicate checks fast. */
	size_t cap = 1 << 21, n = 0;
	char *text = malloc(cap);
	struct pt_manifest *m;
	char err[512] = "";

	n += (size_t)snprintf(text + n, cap - n, NV_HEAD PDB);
	for (int i = 0; i < 20000; i++)
		n += (size_t)snprintf(text + n, cap - n,
				      "[memory m%d]\nspace = sysmem\nbase = %d\nfile = f%d\nx-a%d = 1\n",
				      i, i * 4096, i, i);
	ck_assert_msg(pt_manifest_parse(text, n, &m, err, sizeof err) == PT_OK, "%s", err);
	ck_assert_uint_eq(m->nmem, 20000);
	ck_assert_str_eq(m->mem[19999].name, "m19999");
	pt_manifest_free(m);
	/* The same with one repeated name at the end. */
	n += (size_t)snprintf(text + n, cap - n, "[pdb m5]\n");
	ck_assert_int_eq(pt_manifest_parse(text, n, &m, err, sizeof err), PT_E_VALUE);
	ck_assert_str_eq(err, "capture.ini:100007: duplicate section name 'm5' in [pdb m5] (first at line 32)");
	free(text);
}
END_TEST

START_TEST(huge_line)
{
	/* A 1 MiB line is refused at once, not buffered. */
	size_t n = 1 << 20;
	char *text = malloc(n + 64);
	struct pt_manifest *m;
	char err[512] = "";

	strcpy(text, NV_HEAD "x-big = ");
	memset(text + strlen(text), 'a', n);
	text[n + 20] = 0;
	ck_assert_int_eq(pt_manifest_parse(text, strlen(text), &m, err, sizeof err), PT_E_SYNTAX);
	ck_assert_str_eq(err, "capture.ini:4: line longer than 4096 bytes");
	ck_assert_ptr_null(m);
	free(text);
}
END_TEST

START_TEST(ini_layer)
{
	/* The lexical layer alone knows no schema. */
	static const char text[] = "[a]\nk = v\n[b c]\n; c\nk2=\n";
	struct pt_ini *ini;
	char err[256];

	ck_assert_int_eq(pt_ini_parse(text, strlen(text), &ini, err, sizeof err), PT_OK);
	ck_assert_uint_eq(ini->nsec, 2);
	ck_assert_str_eq(ini->sec[0].type, "a");
	ck_assert_ptr_null(ini->sec[0].name);
	ck_assert_uint_eq(ini->sec[0].nkv, 1);
	ck_assert_str_eq(ini->sec[0].kv[0].key, "k");
	ck_assert_str_eq(ini->sec[0].kv[0].value, "v");
	ck_assert_str_eq(ini->sec[1].name, "c");
	ck_assert_uint_eq(ini->sec[1].line, 3);
	ck_assert_uint_eq(ini->sec[1].kv[0].line, 5);
	ck_assert_uint_eq(ini->nlines, 5);
	pt_ini_free(ini);
}
END_TEST

/* ---- every error message ---- */

static const struct bad {
	const char *text;
	pt_err rc;
	const char *msg;
} bad[] = {
	/* lexical */
	{NV_HEAD "[pdb pdb0\n", PT_E_SYNTAX, "capture.ini:4: section header without ']'"},
	{NV_HEAD "[pdb pdb0] x\n", PT_E_SYNTAX, "capture.ini:4: unexpected text after the section header"},
	{NV_HEAD "[]\n", PT_E_SYNTAX, "capture.ini:4: empty section header"},
	{NV_HEAD "[  ]\n", PT_E_SYNTAX, "capture.ini:4: empty section header"},
	{NV_HEAD "[pdb a b]\n", PT_E_SYNTAX, "capture.ini:4: a section header is [type] or [type name]"},
	{NV_HEAD "[pdb a\x01]\n", PT_E_SYNTAX, "capture.ini:4: bad character in the section header"},
	{NV_HEAD "[pdb [a]\n", PT_E_SYNTAX, "capture.ini:4: bad character in the section header"},
	{NV_HEAD "just words\n", PT_E_SYNTAX,
	 "capture.ini:4: expected '[section]', 'key = value' or a comment"},
	{NV_HEAD " = 5\n", PT_E_SYNTAX, "capture.ini:4: missing key before '='"},
	{NV_HEAD "my key = 5\n", PT_E_SYNTAX, "capture.ini:4: bad key 'my key': keys use A-Z a-z 0-9 _ . -"},
	{"version = 1\n[capture]\n", PT_E_SYNTAX, "capture.ini:1: key 'version' outside any section"},
	{NV_HEAD "gpu = a\x01" "b\n", PT_E_VALUE, "capture.ini:4: control character in the value of 'gpu'"},
	{NV_HEAD "gpu = a\rb\n", PT_E_VALUE, "capture.ini:4: control character in the value of 'gpu'"},
	{NV_HEAD "gpu = a\x7f\n", PT_E_VALUE, "capture.ini:4: control character in the value of 'gpu'"},
	{NV_HEAD "gpu = \xff\n", PT_E_SYNTAX, "capture.ini:4: invalid UTF-8"},
	{NV_HEAD "gpu = \xc0\xaf\n", PT_E_SYNTAX, "capture.ini:4: invalid UTF-8"},          /* overlong */
	{NV_HEAD "gpu = \xed\xa0\x80\n", PT_E_SYNTAX, "capture.ini:4: invalid UTF-8"},      /* surrogate */
	{NV_HEAD "gpu = \xf4\x90\x80\x80\n", PT_E_SYNTAX, "capture.ini:4: invalid UTF-8"},  /* > U+10FFFF */
	{NV_HEAD "gpu = \xe2\x82\n", PT_E_SYNTAX, "capture.ini:4: invalid UTF-8"},          /* cut short */
	{NV_HEAD "; comment \xff\n", PT_E_SYNTAX, "capture.ini:4: invalid UTF-8"},
	/* (NUL bytes and over-long lines: see nul_byte and huge_line) */

	/* sections */
	{NV_HEAD PDB "[pdbb x]\n", PT_E_VALUE,
	 "capture.ini:7: unknown section [pdbb x] (capture, memory, space, iommu, pdb, gart, vm, cpu, vtd, ept, amdvi, arm64 or smmu)"},
	{NV_HEAD PDB "[Memory x]\n", PT_E_VALUE,
	 "capture.ini:7: unknown section [Memory x] (capture, memory, space, iommu, pdb, gart, vm, cpu, vtd, ept, amdvi, arm64 or smmu)"},
	{"[capture main]\nversion = 1\nformat = nv-gmmu-ver2\n" PDB, PT_E_VALUE,
	 "capture.ini:1: section [capture] takes no name"},
	{NV_HEAD PDB "[capture]\n", PT_E_VALUE, "capture.ini:7: duplicate section [capture] (first at line 1)"},
	{NV_HEAD "[pdb]\n", PT_E_VALUE, "capture.ini:4: section [pdb] needs a name: [pdb NAME]"},
	{NV_HEAD PDB "[memory]\n", PT_E_VALUE, "capture.ini:7: section [memory] needs a name: [memory NAME]"},
	{AMD_HEAD "[gart]\n", PT_E_VALUE, "capture.ini:4: section [gart] needs a name: [gart NAME]"},
	{NV_HEAD "[pdb a/b]\n", PT_E_VALUE,
	 "capture.ini:4: bad name 'a/b' in [pdb a/b]: names are 1 to 255 of A-Z a-z 0-9 _ . - and not '.' or '..'"},
	{NV_HEAD "[pdb ..]\n", PT_E_VALUE,
	 "capture.ini:4: bad name '..' in [pdb ..]: names are 1 to 255 of A-Z a-z 0-9 _ . - and not '.' or '..'"},
	{NV_HEAD "[memory .]\n", PT_E_VALUE,
	 "capture.ini:4: bad name '.' in [memory .]: names are 1 to 255 of A-Z a-z 0-9 _ . - and not '.' or '..'"},
	{NV_HEAD "[pdb caf\xc3\xa9]\n", PT_E_VALUE,
	 "capture.ini:4: bad name 'caf\xc3\xa9' in [pdb caf\xc3\xa9]: names are 1 to 255 of A-Z a-z 0-9 _ . - and not '.' or '..'"},
	{NV_HEAD "[pdb capture]\n", PT_E_VALUE,
	 "capture.ini:4: context name 'capture' in [pdb capture] is reserved (the mounted tree's summary file)"},
	{NV_HEAD "[pdb pa]\n", PT_E_VALUE,
	 "capture.ini:4: context name 'pa' in [pdb pa] is reserved (the mounted tree's pa/ directory)"},
	{NV_HEAD PDB "[pdb pdb0]\n", PT_E_VALUE,
	 "capture.ini:7: duplicate section name 'pdb0' in [pdb pdb0] (first at line 4)"},
	{NV_HEAD PDB "[memory pdb0]\n", PT_E_VALUE,
	 "capture.ini:7: duplicate section name 'pdb0' in [memory pdb0] (first at line 4)"},
	{AMD_HEAD PDB, PT_E_VALUE, "capture.ini:4: [pdb pdb0] is not valid in an amd-gart capture (use [gart NAME])"},
	/* formats mix (their spaces meet by name): a [memory] space is one of the capture's ... */
	{NV_HEAD GART "[memory m]\nspace = hpa\nbase = 0\nfile = f\n", PT_E_VALUE,
	 "capture.ini:9: space 'hpa' in [memory m] is not a space of the capture (vidmem, sysmem, "
	 "peer0, peer1, peer2, peer3, peer4, peer5, peer6, peer7, vram)"},
	/* ... even when the context that names it comes last */
	{NV_HEAD "[memory m]\nspace = vrm\nbase = 0\nfile = f\n" PDB GART, PT_E_VALUE,
	 "capture.ini:5: space 'vrm' in [memory m] is not a space of the capture (vidmem, sysmem, "
	 "peer0, peer1, peer2, peer3, peer4, peer5, peer6, peer7, vram)"},
	{"", PT_E_CAPTURE, "capture.ini:1: no [capture] section"},
	{"# nothing\n" PDB, PT_E_CAPTURE, "capture.ini:1: no [capture] section"},
	{"\n\n" NV_HEAD, PT_E_CAPTURE,
	 "capture.ini:3: no context: an nv-gmmu-ver2 capture needs at least one [pdb NAME] section"},
	{AMD_HEAD "[memory m]\nspace = vram\nbase = 0\nfile = f\n", PT_E_CAPTURE,
	 "capture.ini:1: no context: an amd-gart capture needs at least one [gart NAME] section"},

	/* [capture] */
	{"[capture]\nformat = nv-gmmu-ver2\n" PDB, PT_E_VALUE, "capture.ini:1: missing key 'version' in [capture]"},
	/* docs/design.md §3: format is required where a [pdb] needs it (issue #34 item 10) */
	{"[capture]\nversion = 1\n" PDB, PT_E_VALUE,
	 "capture.ini:3: [pdb] takes its format from [capture]: add 'format = nv-gmmu-ver2' or "
	 "'format = nv-gmmu-ver3' there"},
	{"[capture]\nversion = 1\n" GART PDB, PT_E_VALUE,
	 "capture.ini:7: [pdb] takes its format from [capture]: add 'format = nv-gmmu-ver2' or "
	 "'format = nv-gmmu-ver3' there"},
	{"[capture]\nversion = 1\n", PT_E_VALUE, "capture.ini:1: missing key 'format' in [capture]"},
	{"[capture]\nversion = 1\n[memory m]\nspace = sysmem\nbase = 0\nfile = f\n", PT_E_VALUE,
	 "capture.ini:1: missing key 'format' in [capture]"},
	{"[capture]\nversion = 2\nformat = nv-gmmu-ver2\n", PT_E_UNSUPPORTED,
	 "capture.ini:2: capture version 2 is not supported (this ptfs reads version 1)"},
	{"[capture]\nversion = 0\nformat = nv-gmmu-ver2\n", PT_E_UNSUPPORTED,
	 "capture.ini:2: capture version 0 is not supported (this ptfs reads version 1)"},
	{"[capture]\nversion = 1.0\nformat = nv-gmmu-ver2\n", PT_E_VALUE,
	 "capture.ini:2: bad integer '1.0' for 'version' in [capture] (decimal with an optional K/M/G, or 0x hex, at most 64 bits)"},
	{"[capture]\nversion =\nformat = nv-gmmu-ver2\n", PT_E_VALUE,
	 "capture.ini:2: empty value for 'version' in [capture]"},
	{"[capture]\nversion = 1\nformat = nv-gmmu-ver9\n", PT_E_UNSUPPORTED,
	 "capture.ini:3: unknown format 'nv-gmmu-ver9' (supported: nv-gmmu-ver2, amd-gart, nv-gmmu-ver3, amd-gpuvm, x86-64, intel-vtd, intel-ept, amd-vi, arm64, arm-smmuv3)"},
	{"[capture]\nversion = 1\nformat = NV-GMMU-VER2\n", PT_E_UNSUPPORTED,
	 "capture.ini:3: unknown format 'NV-GMMU-VER2' (supported: nv-gmmu-ver2, amd-gart, nv-gmmu-ver3, amd-gpuvm, x86-64, intel-vtd, intel-ept, amd-vi, arm64, arm-smmuv3)"},
	{"[capture]\nversion = 1\nformat =  ; none\n", PT_E_VALUE,
	 "capture.ini:3: empty value for 'format' in [capture]"},
	{NV_HEAD "version = 1\n", PT_E_VALUE, "capture.ini:4: duplicate key 'version' in [capture] (first at line 2)"},
	{NV_HEAD "x-a = 1\nx-a = 2\n", PT_E_VALUE, "capture.ini:5: duplicate key 'x-a' in [capture] (first at line 4)"},
	{NV_HEAD "gpus = TU104\n", PT_E_VALUE, "capture.ini:4: unknown key 'gpus' in [capture]"},
	{NV_HEAD "x- = 1\n", PT_E_VALUE, "capture.ini:4: unknown key 'x-' in [capture]"},
	{NV_HEAD "X-a = 1\n", PT_E_VALUE, "capture.ini:4: unknown key 'X-a' in [capture]"},

	/* [memory] */
	{NV_HEAD PDB "[memory m]\nspace = vram\nbase = 0\nfile = f\n", PT_E_VALUE,
	 "capture.ini:8: space 'vram' in [memory m] is not a space of nv-gmmu-ver2 "
	 "(vidmem, sysmem, peer0, peer1, peer2, peer3, peer4, peer5, peer6, peer7)"},
	{NV_HEAD PDB "[memory m]\nspace = peer8\nbase = 0\nfile = f\n", PT_E_VALUE,
	 "capture.ini:8: space 'peer8' in [memory m] is not a space of nv-gmmu-ver2 "
	 "(vidmem, sysmem, peer0, peer1, peer2, peer3, peer4, peer5, peer6, peer7)"},
	{AMD_HEAD GART "[memory m]\nspace = vidmem\nbase = 0\nfile = f\n", PT_E_VALUE,
	 "capture.ini:9: space 'vidmem' in [memory m] is not a space of amd-gart (vram, sysmem)"},
	/* the format is known even when [capture] comes after */
	{"[memory m]\nspace = vram\nbase = 0\nfile = f\n" NV_HEAD PDB, PT_E_VALUE,
	 "capture.ini:2: space 'vram' in [memory m] is not a space of nv-gmmu-ver2 "
	 "(vidmem, sysmem, peer0, peer1, peer2, peer3, peer4, peer5, peer6, peer7)"},
	{NV_HEAD PDB "[memory m]\nspace = sysmem\nbase = 0x\nfile = f\n", PT_E_VALUE,
	 "capture.ini:9: bad integer '0x' for 'base' in [memory m] (decimal with an optional K/M/G, or 0x hex, at most 64 bits)"},
	{NV_HEAD PDB "[memory m]\nspace = sysmem\nbase = 0x1ffffffffffffffff\nfile = f\n", PT_E_VALUE,
	 "capture.ini:9: bad integer '0x1ffffffffffffffff' for 'base' in [memory m] (decimal with an optional K/M/G, or 0x hex, at most 64 bits)"},
	{NV_HEAD PDB "[memory m]\nspace = sysmem\nbase = 0\nfile =\n", PT_E_VALUE,
	 "capture.ini:10: empty value for 'file' in [memory m]"},
	{NV_HEAD PDB "[memory m]\nspace = sysmem\nbase = 0\nfile = /etc/passwd\n", PT_E_CAPTURE,
	 "capture.ini:10: file '/etc/passwd' in [memory m] is absolute: members are named from the capture root"},
	{NV_HEAD PDB "[memory m]\nspace = sysmem\nbase = 0\nfile = mem/../../x\n", PT_E_CAPTURE,
	 "capture.ini:10: file 'mem/../../x' in [memory m] contains '..': such a member is never used"},
	{NV_HEAD PDB "[memory m]\nspace = sysmem\nbase = 0\nfile = ./.\n", PT_E_CAPTURE,
	 "capture.ini:10: file './.' in [memory m] names no member"},
	{NV_HEAD PDB "[memory m]\nspace = sysmem\nbase = 0\nfile = f\nsize = 4K\n", PT_E_VALUE,
	 "capture.ini:11: unknown key 'size' in [memory m]"},
	{NV_HEAD PDB "[memory m]\nspace = sysmem\nbase = 0\nbase = 0\nfile = f\n", PT_E_VALUE,
	 "capture.ini:10: duplicate key 'base' in [memory m] (first at line 9)"},
	{NV_HEAD PDB "[memory m]\nbase = 0\nfile = f\n", PT_E_VALUE, "capture.ini:7: missing key 'space' in [memory m]"},
	{NV_HEAD PDB "[memory m]\nspace = sysmem\nfile = f\n", PT_E_VALUE, "capture.ini:7: missing key 'base' in [memory m]"},
	{NV_HEAD PDB "[memory m]\nspace = sysmem\nbase = 0\n", PT_E_VALUE, "capture.ini:7: missing key 'file' in [memory m]"},

	/* [pdb] */
	{NV_HEAD "[pdb pdb0]\nspace = vidmem\nadress = 0x1000\n", PT_E_VALUE,
	 "capture.ini:6: unknown key 'adress' in [pdb pdb0]"},
	{NV_HEAD "[pdb pdb0]\nspace = vidmem\n", PT_E_VALUE, "capture.ini:4: missing key 'address' in [pdb pdb0]"},
	{NV_HEAD "[pdb pdb0]\naddress = 0\n", PT_E_VALUE, "capture.ini:4: missing key 'space' in [pdb pdb0]"},
	{NV_HEAD "[pdb pdb0]\nspace = peer0\naddress = 0\n", PT_E_VALUE,
	 "capture.ini:5: space 'peer0' in [pdb pdb0] is not valid for a page directory base (vidmem, sysmem)"},
	{NV_HEAD "[pdb pdb0]\nspace = vram\naddress = 0\n", PT_E_VALUE,
	 "capture.ini:5: space 'vram' in [pdb pdb0] is not valid for a page directory base (vidmem, sysmem)"},
	{NV_HEAD "[pdb pdb0]\nspace = vidmem\naddress = 0x201800\n", PT_E_VALUE,
	 "capture.ini:6: address 0x201800 in [pdb pdb0] is not 4 KiB aligned"},
	{NV_HEAD "[pdb pdb0]\nspace = vidmem\naddress = zero\n", PT_E_VALUE,
	 "capture.ini:6: bad integer 'zero' for 'address' in [pdb pdb0] (decimal with an optional K/M/G, or 0x hex, at most 64 bits)"},
	{NV_HEAD PDB "big_page_size = 128K\n", PT_E_UNSUPPORTED,
	 "capture.ini:7: big_page_size 128K in [pdb pdb0] is not supported (only 64K)"},
	{NV_HEAD PDB "big_page_size = 0x20000\n", PT_E_UNSUPPORTED,
	 "capture.ini:7: big_page_size 128K in [pdb pdb0] is not supported (only 64K)"},
	{NV_HEAD PDB "big_page_size = 4K\n", PT_E_VALUE,
	 "capture.ini:7: big_page_size '4K' in [pdb pdb0] is not a VER2 big page size (64K)"},
	{NV_HEAD PDB "big_page_size = 64KiB\n", PT_E_VALUE,
	 "capture.ini:7: bad integer '64KiB' for 'big_page_size' in [pdb pdb0] (decimal with an optional K/M/G, or 0x hex, at most 64 bits)"},
	{NV_HEAD PDB "space = sysmem\n", PT_E_VALUE, "capture.ini:7: duplicate key 'space' in [pdb pdb0] (first at line 5)"},
	{NV_HEAD PDB "x-a = 1\nx-b = 2\nx-a = 3\n", PT_E_VALUE,
	 "capture.ini:9: duplicate key 'x-a' in [pdb pdb0] (first at line 7)"},
	{NV_HEAD PDB "VM_CONTEXT0_PAGE_TABLE_BASE_ADDR = 0\n", PT_E_VALUE,
	 "capture.ini:7: unknown key 'VM_CONTEXT0_PAGE_TABLE_BASE_ADDR' in [pdb pdb0]"},
	/* key errors come before a missing key: the typo is the real problem */
	{NV_HEAD "[pdb pdb0]\nspace = vidmem\nadress = 0x1000\n[pdb pdb1]\n", PT_E_VALUE,
	 "capture.ini:6: unknown key 'adress' in [pdb pdb0]"},

	/* [gart] */
	{AMD_HEAD "[gart g]\nVM_CONTEXT0_PAGE_TABLE_START_ADDR = 0\nVM_CONTEXT0_PAGE_TABLE_END_ADDR = 1\n",
	 PT_E_VALUE, "capture.ini:4: missing key 'VM_CONTEXT0_PAGE_TABLE_BASE_ADDR' in [gart g]"},
	{AMD_HEAD "[gart g]\nVM_CONTEXT0_PAGE_TABLE_BASE_ADDR = 1\nVM_CONTEXT0_PAGE_TABLE_END_ADDR = 1\n",
	 PT_E_VALUE, "capture.ini:4: missing key 'VM_CONTEXT0_PAGE_TABLE_START_ADDR' in [gart g]"},
	{AMD_HEAD "[gart g]\nVM_CONTEXT0_PAGE_TABLE_BASE_ADDR = 1\nVM_CONTEXT0_PAGE_TABLE_START_ADDR = 1\n",
	 PT_E_VALUE, "capture.ini:4: missing key 'VM_CONTEXT0_PAGE_TABLE_END_ADDR' in [gart g]"},
	{AMD_HEAD GART "vm_context0_page_table_base_addr = 0\n", PT_E_VALUE,
	 "capture.ini:8: unknown key 'vm_context0_page_table_base_addr' in [gart gart0]"},
	{AMD_HEAD GART "space = vram\n", PT_E_VALUE, "capture.ini:8: unknown key 'space' in [gart gart0]"},
	{AMD_HEAD GART "MC_VM_FB_OFFSET = 0x40\nMC_VM_FB_OFFSET = 0x40\n", PT_E_VALUE,
	 "capture.ini:9: duplicate key 'MC_VM_FB_OFFSET' in [gart gart0] (first at line 8)"},
	{AMD_HEAD GART "MC_VM_AGP_TOP = -1\n", PT_E_VALUE,
	 "capture.ini:8: bad integer '-1' for 'MC_VM_AGP_TOP' in [gart gart0] (decimal with an optional K/M/G, or 0x hex, at most 64 bits)"},

	/* the first error by line wins, whatever the section */
	{NV_HEAD "[memory m]\nspace = sysmem\nbase = 1\nfile = f\nbogus = 1\n[pdb pdb0]\nspace = vidmem\n", PT_E_VALUE,
	 "capture.ini:8: unknown key 'bogus' in [memory m]"},
};

START_TEST(errors)
{
	const struct bad *b = &bad[_i];
	struct pt_manifest *m = (void *)1;
	char err[1024] = "";
	pt_err rc = parse(b->text, &m, err, sizeof err);

	ck_assert_msg(rc == b->rc, "row %d: got %s (%s), want %s", _i, pt_errname(rc), err,
		      pt_errname(b->rc));
	ck_assert_str_eq(err, b->msg);
	ck_assert_ptr_null(m);
}
END_TEST

START_TEST(nul_byte)
{
	static const char text[] = NV_HEAD "gpu = a\0b\n" PDB;
	struct pt_manifest *m;
	char err[256] = "";

	ck_assert_int_eq(pt_manifest_parse(text, sizeof text - 1, &m, err, sizeof err), PT_E_SYNTAX);
	ck_assert_str_eq(err, "capture.ini:4: NUL byte");
}
END_TEST

START_TEST(long_line_limit)
{
	/* Exactly 4096 bytes is fine, 4097 is not; the line end (LF or CRLF) is not counted. */
	char *text = malloc(8192);
	struct pt_manifest *m;
	char err[256] = "";
	size_t n;

	strcpy(text, NV_HEAD PDB "x-a = ");
	n = strlen(text);
	memset(text + n, 'v', 4096 - 6);
	text[n + 4090] = '\n';
	text[n + 4091] = 0;
	m = parse_ok(text);
	ck_assert_uint_eq(strlen(m->ctx[0].ann[0].value), 4090);
	pt_manifest_free(m);
	text[n + 4090] = 'v';
	text[n + 4091] = '\n';
	text[n + 4092] = 0;
	ck_assert_int_eq(parse(text, &m, err, sizeof err), PT_E_SYNTAX);
	ck_assert_str_eq(err, "capture.ini:7: line longer than 4096 bytes");
	/* the same two lines with CRLF: 4096 bytes of text accepted, 4097 refused */
	text[n + 4090] = '\r';
	text[n + 4091] = '\n';
	text[n + 4092] = 0;
	m = parse_ok(text);
	ck_assert_uint_eq(strlen(m->ctx[0].ann[0].value), 4090);
	pt_manifest_free(m);
	text[n + 4090] = 'v';
	text[n + 4091] = '\r';
	text[n + 4092] = '\n';
	text[n + 4093] = 0;
	ck_assert_int_eq(parse(text, &m, err, sizeof err), PT_E_SYNTAX);
	ck_assert_str_eq(err, "capture.ini:7: line longer than 4096 bytes");
	/* a CRLF file whose last line has no LF: the CR is still the line end */
	text[n + 4091] = '\r';
	text[n + 4092] = 0;
	ck_assert_int_eq(parse(text, &m, err, sizeof err), PT_E_SYNTAX);
	ck_assert_str_eq(err, "capture.ini:7: line longer than 4096 bytes");
	text[n + 4090] = '\r';
	text[n + 4091] = 0;
	m = parse_ok(text);
	ck_assert_uint_eq(strlen(m->ctx[0].ann[0].value), 4090);
	pt_manifest_free(m);
	free(text);
}
END_TEST

/*
 * C1 controls (U+0080-U+009F, UTF-8 C2 80-C2 9F) are refused where C0 ones
 * are, and quoted as \xNN in messages: U+009B is CSI, U+009D OSC.
 */
START_TEST(c1_controls)
{
	static const struct {
		const char *text;
		pt_err rc;
		const char *msg;
	} rows[] = {
		{NV_HEAD "gpu = a\xc2\x9b" "31m\n" PDB, PT_E_VALUE,
		 "capture.ini:4: control character in the value of 'gpu'"},
		{NV_HEAD "description = a\xc2\x85" "b\n" PDB, PT_E_VALUE,
		 "capture.ini:4: control character in the value of 'description'"},
		{NV_HEAD PDB "x-note = \xc2\x9d" "0;title\n", PT_E_VALUE,
		 "capture.ini:7: control character in the value of 'x-note'"},
		{NV_HEAD "[pdb p\xc2\x85]\nspace = vidmem\naddress = 0\n", PT_E_SYNTAX,
		 "capture.ini:4: bad character in the section header"},
		{NV_HEAD "k\xc2\x9b" "2J = 1\n", PT_E_SYNTAX,
		 "capture.ini:4: bad key 'k\\xc2\\x9b2J': keys use A-Z a-z 0-9 _ . -"},
	};
	struct pt_manifest *m;
	char err[256];

	for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
		err[0] = 0;
		ck_assert_msg(parse(rows[i].text, &m, err, sizeof err) == rows[i].rc, "row %zu: %s",
			      i, err);
		ck_assert_str_eq(err, rows[i].msg);
		ck_assert_ptr_null(m);
	}
	/* U+00A0 (C2 A0), the first character after C1, is text */
	m = parse_ok(NV_HEAD "gpu = a\xc2\xa0" "b\n" PDB);
	pt_manifest_free(m);
}
END_TEST

/* A source's manifest may mix formats only where they share the spaces (one memory). */
START_TEST(mixed_formats)
{
	static const char amd_nv[] = AMD_HEAD GART PDB;
	struct pt_manifest *m = NULL;
	char err[512];

	ck_assert_int_eq(pt_manifest_parse_mixed(AMD_HEAD GART, strlen(AMD_HEAD GART), &m, err, sizeof err), PT_OK);
	ck_assert_ptr_eq(m->ctx[0].fmt, m->fmt);
	pt_manifest_free(m);
	/* nv-gmmu-ver2's vidmem is not amd-gart's vram: refused, as in a capture.ini. */
	ck_assert_int_eq(pt_manifest_parse_mixed(amd_nv, strlen(amd_nv), &m, err, sizeof err), PT_E_VALUE);
	ck_assert_str_eq(err, "capture.ini:8: [pdb pdb0] is not valid in an amd-gart capture (use [gart NAME])");
	ck_assert_ptr_null(m);
}
END_TEST

/*
 * Without [capture] format, every context section names its own format
 * (issue #34 item 10, docs/design.md §3); the capture's is the first one's.
 */
START_TEST(format_from_sections)
{
	static const char cpu_gart[] = "[capture]\nversion = 1\n[cpu c0]\ncr3 = 0x1000\n" GART
		"[vtd d0]\nslptptr = 0x2000\naw = 48\n";
	static const char gart_only[] = "[capture]\nversion = 1\n" GART;
	struct pt_manifest *m = NULL;
	char err[512] = "";

	ck_assert_msg(parse(cpu_gart, &m, err, sizeof err) == PT_OK, "%s", err);
	ck_assert_str_eq(m->fmt->name, "x86-64");
	ck_assert_uint_eq(m->nctx, 3);
	ck_assert_str_eq(m->ctx[0].fmt->name, "x86-64");
	ck_assert_str_eq(m->ctx[1].fmt->name, "amd-gart");
	ck_assert_str_eq(m->ctx[2].fmt->name, "intel-vtd");
	pt_manifest_free(m);
	m = parse_ok(gart_only);
	ck_assert_str_eq(m->fmt->name, "amd-gart");
	pt_manifest_free(m);
}
END_TEST

static Suite *suite(void)
{
	Suite *s = suite_create("ini");
	TCase *tc;

	tc = tcase_create("accept");
	tcase_add_test(tc, design_example);
	tcase_add_test(tc, gart_and_annotations);
	tcase_add_test(tc, values_and_comments);
	tcase_add_test(tc, bom_and_no_final_newline);
	tcase_add_test(tc, ini_layer);
	tcase_add_test(tc, many_sections);
	tcase_add_test(tc, format_from_sections);
	suite_add_tcase(s, tc);

	tc = tcase_create("values");
	tcase_add_test(tc, integers);
	tcase_add_test(tc, normalise);
	tcase_add_test(tc, names);
	suite_add_tcase(s, tc);

	tc = tcase_create("errors");
	tcase_add_loop_test(tc, errors, 0, (int)(sizeof bad / sizeof bad[0]));
	tcase_add_test(tc, nul_byte);
	tcase_add_test(tc, huge_line);
	tcase_add_test(tc, long_line_limit);
	tcase_add_test(tc, c1_controls);
	tcase_add_test(tc, mixed_formats);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return tu_run(suite());
}
