/*
 * test_render: entry files, walk traces, maps, info and JSON on the
 * synthetic context of synth.h.  Expected bytes are written out in full
 * where the format is the contract (docs/design.md §4).
 */
#include <stdlib.h>
#include <string.h>

#include "pt_render.h"
#include "synth.h"
#include "testutil.h"

static struct pt_buf b;

static void setup(void)
{
	build_ver2();
	pt_buf_init(&b);
}

static void done(void)
{
	pt_buf_free(&b);
	teardown();
}

static void resolve(const int8_t *lv, const uint64_t *ix, unsigned n, struct pt_loc *loc)
{
	struct pt_node node = {.ctx = &ctx, .n = n};

	for (unsigned i = 0; i < n; i++) {
		node.s[i].level = lv[i];
		node.s[i].index = ix[i];
	}
	ck_assert_int_eq(pt_node_resolve(&node, loc), PT_OK);
}

static const int8_t LV[] = {0, 1, 2, 3, 5};

/* Checks that every key of a flat JSON object line is in strictly increasing order. */
static void assert_sorted_keys(const char *json)
{
	const char *p = json;
	char prev[64] = "", key[64];
	int depth = 0;

	for (; *p; p++) {
		if (*p == '{' || *p == '[')
			depth++;
		else if (*p == '}' || *p == ']')
			depth--;
		else if (*p == '"' && depth == 1) {
			const char *e = strchr(p + 1, '"');
			size_t n = (size_t)(e - p - 1);

			ck_assert_ptr_nonnull(e);
			if (e[1] == ':') {
				ck_assert_uint_lt(n, sizeof key);
				memcpy(key, p + 1, n);
				key[n] = 0;
				ck_assert_msg(strcmp(prev, key) < 0, "key %s after %s", key, prev);
				strcpy(prev, key);
			}
			p = e;
		}
	}
}

START_TEST(entry_text_layout)
{
	static const uint64_t ix[] = {0, 0, 0, 0, 16};
	struct pt_loc loc;
	static const char head[] =
		"level: pte_small\n"
		"depth: 4\n"
		"index: 16\n"
		"entry_space: vidmem\n"
		"entry_address: 0x105080\n"
		"va: 0x0000000010000\n"
		"span: 0x1000\n"
		"raw: 0x0600000000200045\n";

	resolve(LV, ix, 5, &loc);
	ck_assert_int_eq(pt_render_entry(&b, &loc.table, loc.index, &loc.entry, PT_OUT_TEXT), PT_OK);
	ck_assert_msg(strncmp(b.data, head, strlen(head)) == 0, "%s", b.data);
	ck_assert_ptr_nonnull(strstr(b.data, "\nread_only: 1\n"));
	ck_assert_ptr_nonnull(strstr(b.data, "\nkind_name: GENERIC_MEMORY\n"));
	ck_assert_ptr_nonnull(strstr(b.data, "\naddress: 0x2000000\n"));
	ck_assert_ptr_nonnull(strstr(b.data, "\naddress_complete: true\n"));
	/* a leaf ends with its state and where its page is, in the capture's space names */
	static const char tail[] = "\nstate: mapped\ntarget_space: sysmem\ntarget_address: 0x2000000\n";
	ck_assert_str_eq(b.data + b.len - strlen(tail), tail);
}
END_TEST

START_TEST(entry_pointer_targets)
{
	static const uint64_t ix[] = {0, 0, 0, 2};
	struct pt_loc loc;

	resolve(LV, ix, 4, &loc);
	pt_render_entry(&b, &loc.table, loc.index, &loc.entry, PT_OUT_TEXT);
	ck_assert_ptr_nonnull(strstr(b.data, "\nstate: pointer\ntarget_space_small: vidmem\n"
					     "target_captured_small: no\n"));
	ck_assert_ptr_null(strstr(b.data, "target_captured_big"));
	ck_assert_ptr_null(strstr(b.data, "target_space_big"));
	ck_assert_ptr_null(strstr(b.data, "target_address"));
	/* JSON-only compatibility alias: absent from text, present in JSON */
	ck_assert_ptr_null(strstr(b.data, "is_pde_pointer"));
	pt_buf_reset(&b);
	pt_render_entry(&b, &loc.table, loc.index, &loc.entry, PT_OUT_JSON);
	ck_assert_ptr_nonnull(strstr(b.data, "\"is_pde_pointer\": false"));
	ck_assert_ptr_nonnull(strstr(b.data, "\"target_captured_small\": false"));
	ck_assert_ptr_nonnull(strstr(b.data, "\"target_space_small\": \"vidmem\""));
	assert_sorted_keys(b.data);
}
END_TEST

START_TEST(entry_json_values)
{
	static const uint64_t ix[] = {0, 0, 0, 0, 16};
	struct pt_loc loc;

	resolve(LV, ix, 5, &loc);
	pt_render_entry(&b, &loc.table, loc.index, &loc.entry, PT_OUT_JSON);
	assert_sorted_keys(b.data);
	ck_assert_ptr_nonnull(strstr(b.data, "\"raw\": \"0x0600000000200045\""));
	ck_assert_ptr_nonnull(strstr(b.data, "\"address\": \"0x2000000\""));
	ck_assert_ptr_nonnull(strstr(b.data, "\"read_only\": true"));
	ck_assert_ptr_nonnull(strstr(b.data, "\"kind_known\": true"));
	ck_assert_ptr_nonnull(strstr(b.data, "\"va\": \"0x10000\""));
	ck_assert_ptr_nonnull(strstr(b.data, "\"target_space\": \"sysmem\""));
	ck_assert_ptr_nonnull(strstr(b.data, "\"target_address\": \"0x2000000\""));
	ck_assert_int_eq(b.data[b.len - 1], '\n');
}
END_TEST

START_TEST(walk_text)
{
	struct pt_walk w;
	static const char want[] =
		"context: pdb0\n"
		"va: 0x0000000010008\n"
		"pde3[0] vidmem:0x100000 raw=0x0000000000010102 pointer\n"
		"pde2[0] vidmem:0x101000 raw=0x0000000000010202 pointer\n"
		"pde1[0] vidmem:0x102000 raw=0x0000000000010302 pointer\n"
		"pde0[0] vidmem:0x103000 raw=0x00000000000105020000000000010402 pointer (big and small)\n"
		"pte_big[1] vidmem:0x104008 raw=0x0000000000000000 unmapped: small table decides\n"
		"pte_small[16] vidmem:0x105080 raw=0x0600000000200045 mapped\n";

	pt_walk_va(&ctx, 0x10008, &w);
	ck_assert_int_eq(pt_render_walk(&b, &ctx, &w, PT_OUT_TEXT), PT_OK);
	ck_assert_msg(strncmp(b.data, want, strlen(want)) == 0, "%s", b.data);
	ck_assert_ptr_nonnull(strstr(b.data, "\nresult: mapped pa=sysmem:0x2000008 page=4K "));
	ck_assert_ptr_nonnull(strstr(b.data, " leaf=pde3/0/pde2/0/pde1/0/pde0/0/pte_small/16\n"));
}
END_TEST

START_TEST(walk_fault_lines)
{
	struct pt_walk w;

	pt_walk_va(&ctx, 0x400000, &w);
	pt_render_walk(&b, &ctx, &w, PT_OUT_TEXT);
	ck_assert_ptr_nonnull(strstr(b.data, "\npte_small[0] vidmem:0x900000 not_captured\n"
					     "result: fault=not_captured level=pte_small index=0 entry=pde3/0/"));
	/* the fault names the entry's path in the tree (issue #25 item 7) */
	ck_assert_ptr_nonnull(strstr(b.data, "/pte_small/0\n"));
	pt_buf_reset(&b);
	pt_walk_va(&ctx, 0x20000, &w);
	pt_render_walk(&b, &ctx, &w, PT_OUT_TEXT);
	ck_assert_ptr_nonnull(strstr(b.data, "raw=0x0000000000000020 no_valid_4k\n"
					     "result: fault=unmapped level=pte_big index=2 entry=pde3/0/"));
	pt_buf_reset(&b);
	pt_walk_va(&ctx, 1ull << 49, &w);
	pt_render_walk(&b, &ctx, &w, PT_OUT_TEXT);
	ck_assert_str_eq(b.data, "context: pdb0\nva: 0x2000000000000\nresult: fault=out_of_range\n");
	pt_buf_reset(&b);
	pt_walk_va(&ctx, 0x400000, &w);
	pt_render_walk(&b, &ctx, &w, PT_OUT_JSON);
	assert_sorted_keys(b.data);
	ck_assert_ptr_nonnull(strstr(b.data, "\"result\": {\"fault\": \"not_captured\", \"index\": 0, "
					     "\"level\": \"pte_small\", \"path\": \"pde3/0/"));
}
END_TEST

START_TEST(maps_runs)
{
	ck_assert_int_eq(pt_render_maps(&b, &ctx, PT_OUT_TEXT, NULL), PT_OK);
	/* three runs: the 64K page, the 4K page, the 2M page; one line each */
	int lines = 0;
	for (size_t i = 0; i < b.len; i++)
		lines += b.data[i] == '\n';
	ck_assert_int_eq(lines, 3);
	ck_assert_ptr_nonnull(strstr(b.data, "0x0000000000000-0x0000000010000    64K  64K vidmem  0x0000000040000000 "));
	ck_assert_ptr_nonnull(strstr(b.data, "\n0x0000000010000-0x0000000011000     4K   4K sysmem  0x0000000002000000 "));
	ck_assert_ptr_nonnull(strstr(b.data, "\n0x0000000200000-0x0000000400000     2M   2M sysmem  0x0000000080000000 "));
}
END_TEST

START_TEST(maps_merge)
{
	/* four contiguous small pages with contiguous PAs merge into one run */
	synth_clear();
	put64(PD3, pde_vid(PD2));
	put64(PD2, pde_vid(PD1));
	put64(PD1, pde_vid(PD0));
	put64(PD0 + 8, dual_small_vid(PTS));
	for (int i = 0; i < 4; i++)
		put64(PTS + 8 * i, pte(2, 0x5000000ull + 0x1000ull * i, 0));
	put64(PTS + 8 * 4, pte(2, 0x9000000ull, 0));    /* PA jump: new run */
	put64(PTS + 8 * 5, pte(2, 0x9001000ull, PTE_RO)); /* attribute change: new run */
	synth_reload();
	pt_render_maps(&b, &ctx, PT_OUT_TEXT, NULL);
	static const char first[] = "0x0000000000000-0x0000000004000    16K   4K sysmem  0x0000000005000000 ";
	ck_assert_msg(strncmp(b.data, first, strlen(first)) == 0, "%s", b.data);
	int lines = 0;
	for (size_t i = 0; i < b.len; i++)
		lines += b.data[i] == '\n';
	ck_assert_int_eq(lines, 3);
}
END_TEST

START_TEST(info_counts)
{
	ck_assert_int_eq(pt_render_info(&b, &ctx, PT_OUT_TEXT, NULL), PT_OK);
	ck_assert_ptr_nonnull(strstr(b.data, "context: pdb0\nformat: nv-gmmu-ver2\nroot: vidmem:0x100000\n"));
	ck_assert_ptr_nonnull(strstr(b.data, "\npages: 3\n"));
	ck_assert_ptr_nonnull(strstr(b.data, "\nmapped_bytes.2M: 2M\n"));
	ck_assert_ptr_nonnull(strstr(b.data, "\nanomalies: 3\n"));
	ck_assert_ptr_nonnull(strstr(b.data, "\nanomaly: pdb0 pde3/0/pde2/0/pde1/1 reserved_bits reserved_mask: 0x1000000000000000\n"));
	pt_buf_reset(&b);
	ck_assert_int_eq(pt_render_info(&b, &ctx, PT_OUT_JSON, NULL), PT_OK);
	assert_sorted_keys(b.data);
	ck_assert_ptr_nonnull(strstr(b.data, "\"anomaly_count\": 3"));
}
END_TEST

START_TEST(deterministic)
{
	struct pt_buf c;
	struct pt_walk w;

	pt_buf_init(&c);
	for (int round = 0; round < 2; round++) {
		struct pt_buf *x = round ? &c : &b;

		pt_render_maps(x, &ctx, PT_OUT_TEXT, NULL);
		pt_render_info(x, &ctx, PT_OUT_JSON, NULL);
		pt_walk_va(&ctx, 0x1234, &w);
		pt_render_walk(x, &ctx, &w, PT_OUT_JSON);
	}
	ck_assert_uint_eq(b.len, c.len);
	ck_assert(memcmp(b.data, c.data, b.len) == 0);
	pt_buf_free(&c);
}
END_TEST

START_TEST(sizes_and_escapes)
{
	char s[32];

	pt_size_str(4096, s, sizeof s);
	ck_assert_str_eq(s, "4K");
	pt_size_str(2097152, s, sizeof s);
	ck_assert_str_eq(s, "2M");
	pt_size_str(4097, s, sizeof s);
	ck_assert_str_eq(s, "4097");
	pt_size_str(3ull << 30, s, sizeof s);
	ck_assert_str_eq(s, "3G");
	pt_size_str(0, s, sizeof s);
	ck_assert_str_eq(s, "0");
	pt_size_str(1536, s, sizeof s);
	ck_assert_str_eq(s, "1536");
	pt_buf_printf(&b, "%s-%d", "x", 7);
	ck_assert_str_eq(b.data, "x-7");
	ck_assert_uint_eq(b.len, 3);
}
END_TEST

/* info: totals as people write them; page sizes (the keys) stay exact */
START_TEST(info_sizes_readable)
{
	synth_clear();
	put64(PD3, pde_vid(PD2));
	put64(PD2, pde_vid(PD1));
	put64(PD1, pde_vid(PD0));
	put64(PD0 + 8, dual_small_vid(PTS));
	/* 384 pages of 4K, not contiguous in PA: 1536K = 1.5M */
	for (int i = 0; i < 384; i++)
		put64(PTS + 8 * i, pte(2, 0x5000000ull + 0x2000ull * i, 0));
	synth_reload();
	ck_assert_int_eq(pt_render_info(&b, &ctx, PT_OUT_TEXT, NULL), PT_OK);
	ck_assert_msg(strstr(b.data, "\nmapped_bytes.4K: 1.5M\n") != NULL, "%s", b.data);
	/* 256 pages: exactly 1M */
	synth_clear();
	put64(PD3, pde_vid(PD2));
	put64(PD2, pde_vid(PD1));
	put64(PD1, pde_vid(PD0));
	put64(PD0 + 8, dual_small_vid(PTS));
	for (int i = 0; i < 256; i++)
		put64(PTS + 8 * i, pte(2, 0x5000000ull + 0x2000ull * i, 0));
	synth_reload();
	pt_buf_reset(&b);
	pt_render_info(&b, &ctx, PT_OUT_TEXT, NULL);
	ck_assert_msg(strstr(b.data, "\nmapped_bytes.4K: 1M\n") != NULL, "%s", b.data);
	/* 3 pages: 12K, exact in K */
	synth_clear();
	put64(PD3, pde_vid(PD2));
	put64(PD2, pde_vid(PD1));
	put64(PD1, pde_vid(PD0));
	put64(PD0 + 8, dual_small_vid(PTS));
	for (int i = 0; i < 3; i++)
		put64(PTS + 8 * i, pte(2, 0x5000000ull + 0x2000ull * i, 0));
	synth_reload();
	pt_buf_reset(&b);
	pt_render_info(&b, &ctx, PT_OUT_TEXT, NULL);
	ck_assert_msg(strstr(b.data, "\nmapped_bytes.4K: 12K\n") != NULL, "%s", b.data);
}
END_TEST

/* An unknown kind: kind_name is "unknown" in text, null in JSON, never empty. */
START_TEST(entry_kind_unknown)
{
	static const uint64_t ix[] = {0, 0, 0, 0, 16};
	struct pt_loc loc;

	put64(PTS + 16 * 8, (pte(2, 0x2000000ull, PTE_RO) & ~(0xffull << 56)) | 0x6dull << 56);
	synth_reload();
	resolve(LV, ix, 5, &loc);
	pt_render_entry(&b, &loc.table, loc.index, &loc.entry, PT_OUT_TEXT);
	ck_assert_msg(strstr(b.data, "\nkind_name: unknown\nkind_known: false\n") != NULL, "%s", b.data);
	pt_buf_reset(&b);
	pt_render_entry(&b, &loc.table, loc.index, &loc.entry, PT_OUT_JSON);
	ck_assert_ptr_nonnull(strstr(b.data, "\"kind_name\": null"));
}
END_TEST

/* A shadowed small PTE says so in text and JSON, and still says where its page is. */
START_TEST(entry_shadowed)
{
	static const uint64_t ix[] = {0, 0, 0, 0, 0};
	struct pt_loc loc;

	resolve(LV, ix, 5, &loc);
	pt_render_entry(&b, &loc.table, loc.index, &loc.entry, PT_OUT_TEXT);
	ck_assert_msg(strstr(b.data, "\nstate: shadowed\ntarget_space: sysmem\ntarget_address: 0x1000000\n") != NULL,
		      "%s", b.data);
	pt_buf_reset(&b);
	pt_render_entry(&b, &loc.table, loc.index, &loc.entry, PT_OUT_JSON);
	ck_assert_ptr_nonnull(strstr(b.data, "\"state\": \"shadowed\""));
}
END_TEST

/* Flag words in maps and walk are field names of the entry files. */
START_TEST(flag_words_are_fields)
{
	struct pt_walk w;

	pt_render_maps(&b, &ctx, PT_OUT_TEXT, NULL);
	ck_assert_ptr_nonnull(strstr(b.data, " sysmem  0x0000000002000000 read_only GENERIC_MEMORY\n"));
	ck_assert_ptr_nonnull(strstr(b.data, " vidmem  0x0000000040000000 - GENERIC_MEMORY\n"));
	pt_buf_reset(&b);
	pt_walk_va(&ctx, 0x10008, &w);
	pt_render_walk(&b, &ctx, &w, PT_OUT_TEXT);
	ck_assert_ptr_nonnull(strstr(b.data, " flags=read_only kind=GENERIC_MEMORY "));
}
END_TEST

static Suite *suite(void)
{
	Suite *s = suite_create("render");
	TCase *te = tcase_create("entry");
	TCase *tw = tcase_create("walk");
	TCase *tm = tcase_create("maps_info");

	tcase_add_checked_fixture(te, setup, done);
	tcase_add_checked_fixture(tw, setup, done);
	tcase_add_checked_fixture(tm, setup, done);
	tcase_add_test(te, entry_text_layout);
	tcase_add_test(te, entry_pointer_targets);
	tcase_add_test(te, entry_json_values);
	tcase_add_test(te, sizes_and_escapes);
	tcase_add_test(tw, walk_text);
	tcase_add_test(tw, walk_fault_lines);
	tcase_add_test(tm, maps_runs);
	tcase_add_test(tm, maps_merge);
	tcase_add_test(tm, info_counts);
	tcase_add_test(tm, deterministic);
	tcase_add_test(tm, info_sizes_readable);
	tcase_add_test(te, entry_kind_unknown);
	tcase_add_test(te, entry_shadowed);
	tcase_add_test(tm, flag_words_are_fields);
	suite_add_tcase(s, te);
	suite_add_tcase(s, tw);
	suite_add_tcase(s, tm);
	return s;
}

int main(void)
{
	return tu_run(suite());
}
