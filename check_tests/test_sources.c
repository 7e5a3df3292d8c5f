/*
 * test_sources: capture sources as data (core/load/pt_source.h).  The
 * source table and the bids, the loader API a source uses (members copied,
 * mapped and read on demand; capture.ini text with provenance), and the
 * rule that every file a capture is read from is a regular file (or a
 * directory) refused by type, never opened blocking (issue 26 item 5).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "archive_util.h"
#include "capture_int.h"
#include "pt_capture.h"
#include "pt_source.h"
#include "testutil.h"

/* Loads PATH expecting CODE; when MSG, the error must contain it. */
static struct pt_capture *load(const char *path, pt_err code, const char *msg)
{
	struct pt_capture *cap = pt_capture_new();
	pt_err rc = pt_capture_load(cap, path);

	ck_assert_msg(rc == code, "load %s: %s (%s), want %s", path, pt_errname(rc), pt_capture_error(cap),
		      pt_errname(code));
	if (msg)
		ck_assert_msg(strstr(pt_capture_error(cap), msg), "load %s: '%s' lacks '%s'", path,
			      pt_capture_error(cap), msg);
	if (rc)
		ck_assert_ptr_null(pt_capture_mem(cap));
	return cap;
}

static void load_fails(const char *path, pt_err code, const char *msg)
{
	pt_capture_free(load(path, code, msg));
}

/* A copy of the committed gem5 checkpoint: DIR/m5out/cpt.1234 (malloc'd path of cpt.1234). */
static char *copy_gem5(const char *dir)
{
	char *cmd, *cpt;

	ck_assert_int_ge(asprintf(&cmd, "cp -r '%s' '%s/m5out'", tu_fixture("gem5-m5out"), dir), 0);
	ck_assert_int_eq(system(cmd), 0);
	free(cmd);
	ck_assert_int_ge(asprintf(&cpt, "%s/m5out/cpt.1234", dir), 0);
	return cpt;
}

/* ---- the table ---- */

START_TEST(table_bids)
{
	struct stat st = {.st_mode = S_IFREG | 0644};
	static const char umr[] = "MMIO@0x1000 = { 0x1 }\n";
	struct pt_probe p = {.path = "x", .fd = 0, .st = &st, .head = (const uint8_t *)umr,
			     .head_len = sizeof umr - 1};
	size_t n = 0;
	const char *names[] = {"m5.cpt", "x.pmem"};

	for (const struct pt_source *const *s = pt_sources; *s; s++) {
		ck_assert_ptr_nonnull((*s)->name);
		ck_assert_ptr_nonnull((*s)->bid);
		ck_assert_ptr_nonnull((*s)->load);
		n++;
	}
	ck_assert_uint_eq(n, 7);
	ck_assert_str_eq(pt_source_best(pt_sources, &p)->name, "umr");
	/* a UNIX socket: the QMP source alone bids (issue #33), whatever the head says */
	st.st_mode = S_IFSOCK | 0755;
	ck_assert_str_eq(pt_source_best(pt_sources, &p)->name, "qmp");
	p.head = NULL;
	p.head_len = 0;
	ck_assert_str_eq(pt_source_best(pt_sources, &p)->name, "qmp");
	st.st_mode = S_IFREG | 0644;
	ck_assert_str_ne(pt_source_best(pt_sources, &(struct pt_probe){.path = "x", .fd = 0, .st = &st})->name, "qmp");
	/* memory dumps by their magic: an ELF ET_CORE (gABI e_type 4), "KDUMP   ", "makedumpfile" */
	p.head = (const uint8_t *)"\177ELF\2\1\1\0\0\0\0\0\0\0\0\0\4\0";
	p.head_len = 18;
	ck_assert_str_eq(pt_source_best(pt_sources, &p)->name, "elf");
	p.head = (const uint8_t *)"KDUMP   \6\0\0\0";
	p.head_len = 12;
	ck_assert_str_eq(pt_source_best(pt_sources, &p)->name, "kdump");
	p.head = (const uint8_t *)"makedumpfile\0\0\0\0";
	p.head_len = 16;
	ck_assert_str_eq(pt_source_best(pt_sources, &p)->name, "kdump");
	p.head = (const uint8_t *)"\x1f\x8b\x08";
	p.head_len = 3;
	ck_assert_str_eq(pt_source_best(pt_sources, &p)->name, "archive");
	/* a re-bid: the archive's members */
	p = (struct pt_probe){.path = "x.tar", .fd = -1, .members = names, .nmembers = 2};
	ck_assert_str_eq(pt_source_best(pt_sources, &p)->name, "gem5");
	names[0] = "a/m5.cpt";
	ck_assert_ptr_null(pt_source_best(pt_sources, &p));
	p.only_dir = "a";
	ck_assert_str_eq(pt_source_best(pt_sources, &p)->name, "gem5");
}
END_TEST

/* ---- the loader API, driven as a source drives it ---- */

struct rd {
	uint8_t byte;
	unsigned freed;
};

static pt_err rd_read(void *ud, uint64_t off, void *buf, size_t len)
{
	struct rd *r = ud;

	(void)off;
	memset(buf, r->byte, len);
	return PT_OK;
}

static void rd_free(void *ud)
{
	((struct rd *)ud)->freed++;
}

/* A loader over a fresh capture, as pt_capture_load() makes one. */
static struct pt_loader loader(struct pt_capture *cap)
{
	static const struct pt_load_opts opts;

	return (struct pt_loader){.cap = cap, .path = "test.src", .cur = SIZE_MAX, .opts = &opts,
				   .sources = pt_sources};
}

static const char ini_head[] =
	"[capture]\nversion = 1\nformat = amd-gart\n";

START_TEST(api_members)
{
	struct pt_capture *cap = pt_capture_new();
	struct pt_loader ld = loader(cap);
	struct rd r = {.byte = 0x5a};
	char *dir = tu_mkdtemp(), *file, ini[1024];
	uint8_t page[4096], out[16];
	int fd;

	memset(page, 0, sizeof page);
	page[8] = 0x11;
	/* copied: streamed in two pieces, then a hole to 3 pages */
	ck_assert_int_eq(pt_loader_add_copy(&ld, "copy", 0, page, 2048), PT_OK);
	ck_assert_int_eq(pt_loader_add_copy(&ld, "copy", 2048, page + 2048, 2048), PT_OK);
	ck_assert_int_eq(pt_loader_add_copy(&ld, "copy", 3 * 4096, NULL, 0), PT_OK);
	/* mapped in place */
	page[8] = 0x22;
	tu_write(dir, "blob", page, sizeof page);
	ck_assert_int_ge(asprintf(&file, "%s/blob", dir), 0);
	fd = open(file, O_RDONLY);
	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(pt_loader_add_mapped(&ld, "mapped", fd, 0, 4096), PT_OK);
	ck_assert_int_eq(pt_loader_add_mapped(&ld, "bad", fd, 4000, 200), PT_E_USAGE);
	close(fd);
	/* read on demand */
	ck_assert_int_eq(pt_loader_add_reader(&ld, "reader", 8192, rd_read, &r, rd_free), PT_OK);
	ck_assert_int_eq(pt_loader_add_absent(&ld, "link", "is a symbolic link in the test"), PT_OK);
	snprintf(ini, sizeof ini, "%s"
		 "[memory c]\nspace = vram\nbase = 0x100000\nfile = copy\n"
		 "[memory m]\nspace = vram\nbase = 0x200000\nfile = mapped\n"
		 "[memory r]\nspace = sysmem\nbase = 0\nfile = reader\n"
		 "[gart g]\nVM_CONTEXT0_PAGE_TABLE_BASE_ADDR = 0x100000\n"
		 "VM_CONTEXT0_PAGE_TABLE_START_ADDR = 0\nVM_CONTEXT0_PAGE_TABLE_END_ADDR = 0x1ff\n",
		 ini_head);
	ck_assert_int_eq(pt_loader_emit_ini(&ld, ini, strlen(ini), NULL), PT_OK);
	ck_assert_int_eq(pt_loader_emit_ini(&ld, "x", 1, "gen:1"), PT_E_USAGE);    /* one kind */
	ck_assert_int_eq(pt_loader_finish(&ld), PT_OK);
	pt_loader_free(&ld);
	ck_assert_uint_eq(pt_capture_region_count(cap), 3);
	ck_assert_uint_eq(pt_capture_region(cap, 0)->size, 3 * 4096);
	ck_assert(!pt_capture_region(cap, 0)->in_place);
	ck_assert(pt_capture_region(cap, 1)->in_place);
	ck_assert(pt_mem_read(pt_capture_mem(cap), 0, 0x100008, out, 1));
	ck_assert_uint_eq(out[0], 0x11);
	ck_assert(pt_mem_read(pt_capture_mem(cap), 0, 0x100000 + 3 * 4096 - 1, out, 1));
	ck_assert_uint_eq(out[0], 0);
	ck_assert(pt_mem_read(pt_capture_mem(cap), 0, 0x200008, out, 1));
	ck_assert_uint_eq(out[0], 0x22);
	ck_assert(pt_mem_read(pt_capture_mem(cap), 1, 8000, out, 16));
	ck_assert_uint_eq(out[15], 0x5a);
	ck_assert(!pt_mem_read(pt_capture_mem(cap), 1, 8190, out, 4));
	ck_assert_uint_eq(r.freed, 0);
	pt_capture_free(cap);
	ck_assert_uint_eq(r.freed, 1);    /* once, with the capture */
	free(file);
	tu_rmtree(dir);
	free(dir);
}
END_TEST

START_TEST(api_provenance)
{
	struct pt_capture *cap = pt_capture_new();
	struct pt_loader ld = loader(cap);
	struct rd r = {.byte = 1};

	/* generated text: a message about a line names where it came from */
	ck_assert_int_eq(pt_loader_emit_ini(&ld, ini_head, strlen(ini_head), "src.log"), PT_OK);
	ck_assert_int_eq(pt_loader_emitf(&ld, "src.log:7", "[gart g]"), PT_OK);
	ck_assert_int_eq(pt_loader_emitf(&ld, "src.log:9", "VM_CONTEXT0_PAGE_TABLE_BASE_ADRR = 0x1000"), PT_OK);
	ck_assert_int_eq(pt_loader_add_reader(&ld, "unused", 4096, rd_read, &r, rd_free), PT_OK);
	ck_assert_int_ne(pt_loader_finish(&ld), PT_OK);
	ck_assert_msg(strncmp(pt_capture_error(cap), "src.log:9: ", 11) == 0, "%s", pt_capture_error(cap));
	pt_loader_free(&ld);
	ck_assert_uint_eq(r.freed, 1);    /* never bound: freed with the loader */
	pt_capture_free(cap);

	/* a section naming an absent member says why */
	cap = pt_capture_new();
	ld = loader(cap);
	ck_assert_int_eq(pt_loader_add_copy(&ld, "link", 0, "x", 1), PT_OK);
	ck_assert_int_eq(pt_loader_add_absent(&ld, "link", "is a FIFO in the test"), PT_OK);
	{
		static const char t[] = "[capture]\nversion = 1\nformat = amd-gart\n"
			"[memory a]\nspace = vram\nbase = 0\nfile = link\n"
			"[gart g]\nVM_CONTEXT0_PAGE_TABLE_BASE_ADDR = 0x100000\n"
			"VM_CONTEXT0_PAGE_TABLE_START_ADDR = 0\nVM_CONTEXT0_PAGE_TABLE_END_ADDR = 0x1ff\n";

		ck_assert_int_eq(pt_loader_emit_ini(&ld, t, sizeof t - 1, NULL), PT_OK);
	}
	ck_assert_int_ne(pt_loader_finish(&ld), PT_OK);
	ck_assert_str_eq(pt_capture_error(cap), "capture.ini:7: file 'link' of [memory a] is a FIFO in the test");
	pt_loader_free(&ld);
	pt_capture_free(cap);
}
END_TEST

/* ---- only regular files and directories (issue 26 item 5) ---- */

START_TEST(path_types)
{
	char *dir = tu_mkdtemp(), *path;

	ck_assert_int_ge(asprintf(&path, "%s/fifo", dir), 0);
	ck_assert_int_eq(mkfifo(path, 0600), 0);
	load_fails(path, PT_E_USAGE, ": is a FIFO; ptfs reads a capture from a regular file or a directory");
	free(path);
	load_fails("/dev/null", PT_E_USAGE, "/dev/null: is a character device;");
	/* A link named on the command line is followed; what it names is checked the same. */
	ck_assert_int_ge(asprintf(&path, "%s/link", dir), 0);
	ck_assert_int_eq(symlink(tu_fixture("turing-mixed.tar"), path), 0);
	{
		struct pt_capture *cap = pt_capture_new();

		ck_assert_msg(pt_capture_load(cap, path) == PT_OK, "%s", pt_capture_error(cap));
		pt_capture_free(cap);
	}
	free(path);
	ck_assert_int_ge(asprintf(&path, "%s/link-fifo", dir), 0);
	ck_assert_int_eq(symlink("fifo", path), 0);
	load_fails(path, PT_E_USAGE, ": is a FIFO;");
	free(path);
	tu_rmtree(dir);
	free(dir);
}
END_TEST

START_TEST(gem5_file_types)
{
	char *dir = tu_mkdtemp(), *cpt = copy_gem5(dir), *f;
	struct pt_capture *cap = load(cpt, PT_OK, NULL);

	ck_assert_str_eq(pt_capture_source_kind(cap), "gem5 checkpoint");
	pt_capture_free(cap);
	/* a store that is a directory */
	ck_assert_int_ge(asprintf(&f, "%s/system.physmem.store0.pmem", cpt), 0);
	ck_assert_int_eq(unlink(f), 0);
	ck_assert_int_eq(mkdir(f, 0700), 0);
	load_fails(cpt, PT_E_CAPTURE, "system.physmem.store0.pmem: is a directory; ptfs reads only regular files");
	ck_assert_int_eq(rmdir(f), 0);
	/* a store that is a FIFO: refused, never opened (it would block) */
	ck_assert_int_eq(mkfifo(f, 0600), 0);
	load_fails(cpt, PT_E_CAPTURE, "system.physmem.store0.pmem: is a FIFO; ptfs reads only regular files");
	free(f);
	/* m5.cpt a FIFO: said so, not "no capture.ini" */
	ck_assert_int_ge(asprintf(&f, "%s/m5.cpt", cpt), 0);
	ck_assert_int_eq(unlink(f), 0);
	ck_assert_int_eq(mkfifo(f, 0600), 0);
	load_fails(cpt, PT_E_CAPTURE, "m5.cpt: is a FIFO; ptfs reads only regular files");
	free(f);
	free(cpt);
	tu_rmtree(dir);
	free(dir);

	/* config.ini in m5out/ a FIFO */
	dir = tu_mkdtemp();
	cpt = copy_gem5(dir);
	ck_assert_int_ge(asprintf(&f, "%s/m5out/config.ini", dir), 0);
	unlink(f);
	ck_assert_int_eq(mkfifo(f, 0600), 0);
	load_fails(cpt, PT_E_CAPTURE, "config.ini: is a FIFO; ptfs reads only regular files");
	free(f);
	free(cpt);
	tu_rmtree(dir);
	free(dir);
}
END_TEST

START_TEST(dir_ini_fifo)
{
	char *dir = tu_mkdtemp(), *f;

	ck_assert_int_ge(asprintf(&f, "%s/capture.ini", dir), 0);
	ck_assert_int_eq(mkfifo(f, 0600), 0);
	load_fails(dir, PT_E_CAPTURE, ": capture.ini is a FIFO; ptfs reads only regular files");
	free(f);
	tu_rmtree(dir);
	free(dir);
}
END_TEST

/*
 * The load dispatches to the table its caller gives (issue #41 item 3:
 * the sources layer passes pt_sources down, the load layer never names
 * it): a directory capture loads with a table holding the directory
 * source, is "not a capture" with one holding only the archive source,
 * and no table is a usage error.
 */
extern const struct pt_source pt_source_archive, pt_source_dir;

START_TEST(load_from_table)
{
	static const struct pt_source *const archive_only[] = {&pt_source_archive, NULL};
	static const struct pt_source *const dir_only[] = {&pt_source_dir, NULL};
	char *dir = tu_mkdtemp();
	struct pt_capture *cap;

	static const char ini[] = "[capture]\nversion = 1\nformat = amd-gart\n"
		"[memory v]\nspace = vram\nbase = 0x100000\nfile = vram.bin\n"
		"[gart g]\nVM_CONTEXT0_PAGE_TABLE_BASE_ADDR = 0x100000\n"
		"VM_CONTEXT0_PAGE_TABLE_START_ADDR = 0\nVM_CONTEXT0_PAGE_TABLE_END_ADDR = 0x1ff\n";
	uint8_t page[4096] = {0};

	tu_write(dir, "capture.ini", ini, sizeof ini - 1);
	tu_write(dir, "vram.bin", page, sizeof page);
	cap = pt_capture_new();
	ck_assert_msg(pt_capture_load_from(cap, dir, NULL, dir_only) == PT_OK, "%s", pt_capture_error(cap));
	pt_capture_free(cap);
	cap = pt_capture_new();
	ck_assert_int_eq(pt_capture_load_from(cap, dir, NULL, archive_only), PT_E_ARCHIVE);
	ck_assert_msg(strstr(pt_capture_error(cap), ": not a capture ptfs reads"), "%s", pt_capture_error(cap));
	pt_capture_free(cap);
	cap = pt_capture_new();
	ck_assert_int_eq(pt_capture_load_from(cap, dir, NULL, NULL), PT_E_USAGE);
	pt_capture_free(cap);
	/* the public load is the sources layer's table passed down */
	cap = pt_capture_new();
	ck_assert_int_eq(pt_capture_load(cap, dir), PT_OK);
	ck_assert_uint_eq(pt_capture_context_count(cap), 1);
	pt_capture_free(cap);
	tu_rmtree(dir);
	free(dir);
}
END_TEST

START_TEST(umr_nul)
{
	static const char log[] = "MMIO@0x1000 = { 0x1 }\nMMIO@0x1004 = { 0x2\0 }\n";
	char *dir = tu_mkdtemp(), *path;

	tu_write(dir, "run.log", log, sizeof log - 1);
	ck_assert_int_ge(asprintf(&path, "%s/run.log", dir), 0);
	load_fails(path, PT_E_SYNTAX, "run.log:2: NUL byte: not a umr log");
	free(path);
	tu_rmtree(dir);
	free(dir);
}
END_TEST

START_TEST(archive_of_umr)
{
	char *dir = tu_mkdtemp(), *path, *cmd;
	struct pt_capture *cap;

	/* an archive holding one umr log: the archive source re-bids its member */
	ck_assert_int_ge(asprintf(&cmd, "cp '%s' '%s/run.envdef' && tar -C '%s' -czf '%s/log.tar.gz' run.envdef",
				  tu_fixture("umr-gfx9-gart.envdef"), dir, dir, dir), 0);
	ck_assert_int_eq(system(cmd), 0);
	free(cmd);
	ck_assert_int_ge(asprintf(&path, "%s/log.tar.gz", dir), 0);
	cap = load(path, PT_OK, NULL);
	ck_assert_str_eq(pt_capture_source_kind(cap), "umr log");
	ck_assert_uint_ge(pt_capture_context_count(cap), 1);
	pt_capture_free(cap);
	free(path);
	tu_rmtree(dir);
	free(dir);
}
END_TEST

static Suite *suite(void)
{
	Suite *s = suite_create("sources");
	TCase *tc;

	tc = tcase_create("table");
	tcase_add_test(tc, table_bids);
	suite_add_tcase(s, tc);

	tc = tcase_create("api");
	tcase_add_test(tc, api_members);
	tcase_add_test(tc, api_provenance);
	suite_add_tcase(s, tc);

	tc = tcase_create("types");
	tcase_add_test(tc, path_types);
	tcase_add_test(tc, gem5_file_types);
	tcase_add_test(tc, dir_ini_fifo);
	tcase_add_test(tc, umr_nul);
	tcase_add_test(tc, load_from_table);
	tcase_add_test(tc, archive_of_umr);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return tu_run(suite());
}
