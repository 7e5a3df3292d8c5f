/* SPDX-License-Identifier: MIT */
/* test_ino_io.h — test_ino's IOMMU-tree cases (test_ino_io.c), added to its "width" TCase. */
#ifndef TEST_INO_IO_H
#define TEST_INO_IO_H

#include <check.h>

void ino_io_tests(TCase *tc);

#endif
