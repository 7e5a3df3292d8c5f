/* SPDX-License-Identifier: MIT */
/*
 * iommu.c — the IOMMU family's list (pt_iommu_format.h): one line per
 * IOMMU, as fmt.c lists the page-table formats.  A new IOMMU is its file
 * and one line here (HACKING.md "Adding an IOMMU").
 */
#include <string.h>

#include "pt_iommu_format.h"

const struct pt_iommu_format *const pt_iommu_format_list[] = {
	&pt_iommu_vtd_format,
	&pt_iommu_amdvi_format,
	&pt_iommu_smmuv3_format,
	NULL,
};

/* Every IOMMU's device and guest formats, each once (the spaces a capture with [iommu] has). */
const char *const pt_iommu_device_formats[] = {"intel-vtd", "amd-vi", "arm-smmuv3", "x86-64", NULL};

const char *const pt_iommu_key_names[PT_IK__COUNT] = {
	"rtaddr", "dev_table_base", "segment", "strtab_base", "strtab_base_cfg", "max_contexts",
};

const struct pt_iommu_format *pt_iommu_format_find(const char *name)
{
	for (unsigned i = 0; name && pt_iommu_format_list[i]; i++)
		if (!strcmp(pt_iommu_format_list[i]->name, name))
			return pt_iommu_format_list[i];
	return NULL;
}

const struct pt_iommu_format *pt_iommu_format_of(enum pt_iommu_kind kind)
{
	for (unsigned i = 0; pt_iommu_format_list[i]; i++)
		if (pt_iommu_format_list[i]->kind == kind)
			return pt_iommu_format_list[i];
	return NULL;
}

const char *pt_iommu_kind_name(unsigned kind)
{
	const struct pt_iommu_format *f = pt_iommu_format_of((enum pt_iommu_kind)kind);

	return f ? f->name : "?";
}
