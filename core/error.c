/* SPDX-License-Identifier: MIT */
#include "pt_error.h"

/* Indexed by pt_err; keep in the enum's order (a test checks every code). */
static const struct {
	const char *name;
	const char *text;
} errs[PT_E__COUNT] = {
	[PT_OK] = {"OK", "success"},
	[PT_E_USAGE] = {"E_USAGE", "bad usage"},
	[PT_E_NOMEM] = {"E_NOMEM", "out of memory"},
	[PT_E_IO] = {"E_IO", "input/output error"},
	[PT_E_ARCHIVE] = {"E_ARCHIVE", "unreadable archive"},
	[PT_E_CAPTURE] = {"E_CAPTURE", "unusable capture"},
	[PT_E_SYNTAX] = {"E_SYNTAX", "syntax error"},
	[PT_E_VALUE] = {"E_VALUE", "bad value"},
	[PT_E_UNSUPPORTED] = {"E_UNSUPPORTED", "unsupported"},
	[PT_E_TRUNCATED] = {"E_TRUNCATED", "truncated data"},
	[PT_E_NOTFOUND] = {"E_NOTFOUND", "not found"},
};

const char *pt_strerror(pt_err err)
{
	if ((unsigned)err >= PT_E__COUNT)
		return "unknown error";
	return errs[err].text;
}

const char *pt_errname(pt_err err)
{
	if ((unsigned)err >= PT_E__COUNT)
		return "E_UNKNOWN";
	return errs[err].name;
}
