/*
 * fuzz_btf — libFuzzer target for the kernel's BTF found in memory
 * (core/linux/btf.c, issue #40 item 9).
 *
 * The input is a piece of guest RAM at physical address 0x1000.  The scan
 * looks for BTF headers in it and parses every valid one with libbpf; the
 * input is also parsed whole as a blob.  Whatever it finds, the offsets
 * the task walk asks for are looked up.
 *
 * Invariants checked (abort -> libFuzzer reports a crash):
 *  - a chosen blob lies inside the input and passes the header test;
 *  - the scan counts no more valid headers than hits, nor more base blobs
 *    than valid ones.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <bpf/btf.h>

#include "linux_int.h"
#include "pt_mem.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void offsets(const struct btf *btf)
{
	static const char *const m[][2] = {
		{"task_struct", "tasks"}, {"task_struct", "comm"}, {"mm_struct", "pgd"},
		{"signal_struct", "thread_head"}, {"pcpu_hot", "current_task"},
	};

	for (size_t i = 0; i < sizeof m / sizeof m[0]; i++)
		(void)pt_btf_member(btf, m[i][0], m[i][1]);
	(void)pt_btf_percpu(btf, "current_task");
	(void)pt_btf_struct_size(btf, "task_struct");
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct pt_mem *mem;
	struct pt_pa_range r = {0x1000, size};
	struct pt_btf out;
	struct btf *whole;
	uint8_t *copy;
	unsigned id, a, b;
	uint64_t total;

	if (!size || size > (8u << 20))
		return 0;
	whole = pt_btf_parse(data, size);
	if (whole) {
		offsets(whole);
		btf__free(whole);
	}
	copy = malloc(size);
	mem = pt_mem_new(1);
	if (!copy || !mem) {
		free(copy);
		pt_mem_free(mem);
		return 0;
	}
	memcpy(copy, data, size);
	if (pt_mem_add_borrowed(mem, 0, 0x1000, copy, size, &id) == PT_OK && pt_mem_seal(mem, &a, &b) == PT_OK &&
	    pt_btf_scan(mem, 0, &r, 1, &out) == PT_OK) {
		if (out.valid > out.hits || out.base > out.valid)
			abort();
		if (out.btf) {
			if (out.pa < 0x1000 || out.pa - 0x1000 > size || out.size > size - (out.pa - 0x1000) ||
			    !pt_btf_header_ok(copy + (out.pa - 0x1000), out.size, &total) || total != out.size)
				abort();
			offsets(out.btf);
		}
		pt_btf_free(&out);
	}
	pt_mem_free(mem);
	free(copy);
	return 0;
}
