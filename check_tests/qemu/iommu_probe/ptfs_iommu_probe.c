// SPDX-License-Identifier: GPL-2.0
/*
 * ptfs_iommu_probe: the guest's own answer for the QEMU IOMMU agreement
 * test (check_tests/qemu/README.md).  For every PCI device whose IOMMU
 * domain is a DMA-API domain (include/linux/iommu.h
 * iommu_is_dma_domain), it allocates and maps known buffers through the
 * DMA API -- coherent ones (dma_alloc_coherent: 4 KiB, 64 KiB and 2 MiB)
 * and streaming ones (dma_map_page of single pages and of one 2 MiB
 * compound page) -- keeps them mapped while the module is loaded, and
 * prints each as runs of pages whose IOVAs and physical addresses are both
 * contiguous:
 *
 *   ptfs-dma BDF sid=SID kind=KIND iova=IOVA phys=PHYS len=LEN iommu=PA bad=N
 *
 * PHYS is the CPU's view of the buffer (virt_to_phys, or vmalloc_to_pfn for
 * a coherent buffer the DMA layer remapped: kernel/dma/ and
 * drivers/iommu/dma-iommu.c iommu_dma_alloc_remap), IOMMU is
 * iommu_iova_to_phys() of the device's domain for the run's first byte and
 * bad counts the run's pages whose iommu_iova_to_phys() is not PHYS's page.
 * SID is the first ID of the device's IOMMU fwspec (its SMMUv3 StreamID;
 * -1 where the IOMMU driver keeps none, as intel-iommu and amd-iommu do).
 * A line "ptfs-dma done N" ends the report.
 */
#include <linux/module.h>
#include <linux/pci.h>
#include <linux/iommu.h>
#include <linux/dma-mapping.h>
#include <linux/mm.h>
#include <linux/slab.h>
#include <linux/vmalloc.h>

#define PROBE_MAX 2048
#define HUGE_ORDER 9	/* 2 MiB of 4 KiB pages */

struct probe_buf {
	struct device *dev;
	void *cpu;		/* coherent: the CPU address */
	struct page *page;	/* streaming: the mapped pages */
	unsigned int order;
	dma_addr_t iova;
	size_t len;
};

static struct probe_buf *bufs;
static unsigned int nbufs;
static unsigned int nlines;

static phys_addr_t probe_cpu_phys(void *cpu, size_t off)
{
	void *p = (char *)cpu + off;

	if (is_vmalloc_addr(p))
		return PFN_PHYS(vmalloc_to_pfn(p)) + offset_in_page(p);
	return virt_to_phys(p);
}

static phys_addr_t probe_buf_phys(const struct probe_buf *b, size_t off)
{
	if (b->cpu)
		return probe_cpu_phys(b->cpu, off);
	return page_to_phys(b->page) + off;
}

/* One line per run of pages contiguous in both IOVA and physical address. */
static void probe_report(struct pci_dev *pdev, int sid, const char *kind,
			 const struct probe_buf *b)
{
	struct iommu_domain *dom = iommu_get_domain_for_dev(b->dev);
	size_t start = 0, off;
	unsigned int bad = 0;

	for (off = 0; off < b->len; off += PAGE_SIZE) {
		phys_addr_t cpu = probe_buf_phys(b, off);

		if (iommu_iova_to_phys(dom, b->iova + off) != cpu)
			bad++;
		if (off + PAGE_SIZE < b->len &&
		    probe_buf_phys(b, off + PAGE_SIZE) == cpu + PAGE_SIZE)
			continue;
		pr_info("ptfs-dma %s sid=%d kind=%s iova=%#llx phys=%#llx len=%#zx iommu=%#llx bad=%u\n",
			pci_name(pdev), sid, kind,
			(unsigned long long)(b->iova + start),
			(unsigned long long)probe_buf_phys(b, start),
			off + PAGE_SIZE - start,
			(unsigned long long)iommu_iova_to_phys(dom, b->iova + start),
			bad);
		nlines++;
		start = off + PAGE_SIZE;
		bad = 0;
	}
}

static struct probe_buf *probe_next(struct device *dev)
{
	if (nbufs >= PROBE_MAX)
		return NULL;
	bufs[nbufs].dev = dev;
	return &bufs[nbufs];
}

static void probe_coherent(struct pci_dev *pdev, int sid, size_t len, unsigned int n)
{
	struct probe_buf *b;

	while (n-- && (b = probe_next(&pdev->dev))) {
		b->len = len;
		b->cpu = dma_alloc_coherent(b->dev, len, &b->iova, GFP_KERNEL);
		if (!b->cpu) {
			pr_info("ptfs-dma %s: dma_alloc_coherent %#zx failed\n", pci_name(pdev), len);
			return;
		}
		memset(b->cpu, 0x5a, len);
		nbufs++;
		probe_report(pdev, sid, "coherent", b);
	}
}

static void probe_stream(struct pci_dev *pdev, int sid, unsigned int order, unsigned int n)
{
	struct probe_buf *b;

	while (n-- && (b = probe_next(&pdev->dev))) {
		b->order = order;
		b->len = PAGE_SIZE << order;
		b->page = alloc_pages(GFP_KERNEL | (order ? __GFP_COMP | __GFP_NOWARN : 0), order);
		if (!b->page) {
			pr_info("ptfs-dma %s: alloc_pages order %u failed\n", pci_name(pdev), order);
			return;
		}
		b->iova = dma_map_page(b->dev, b->page, 0, b->len, DMA_BIDIRECTIONAL);
		if (dma_mapping_error(b->dev, b->iova)) {
			pr_info("ptfs-dma %s: dma_map_page %#zx failed\n", pci_name(pdev), b->len);
			__free_pages(b->page, order);
			return;
		}
		nbufs++;
		probe_report(pdev, sid, "stream", b);
	}
}

static int __init probe_init(void)
{
	struct pci_dev *pdev = NULL;

	bufs = kcalloc(PROBE_MAX, sizeof(*bufs), GFP_KERNEL);
	if (!bufs)
		return -ENOMEM;
	for_each_pci_dev(pdev) {
		struct iommu_domain *dom = iommu_get_domain_for_dev(&pdev->dev);
		struct iommu_fwspec *fw = dev_iommu_fwspec_get(&pdev->dev);
		int sid = fw && fw->num_ids ? (int)fw->ids[0] : -1;

		if (!dom || !(dom->type & __IOMMU_DOMAIN_DMA_API)) {
			pr_info("ptfs-dma %s: no DMA-API domain (type %#x)\n",
				pci_name(pdev), dom ? dom->type : 0);
			continue;
		}
		probe_coherent(pdev, sid, PAGE_SIZE, 16);
		probe_coherent(pdev, sid, 16 * PAGE_SIZE, 4);
		probe_coherent(pdev, sid, PAGE_SIZE << HUGE_ORDER, 1);
		probe_stream(pdev, sid, 0, 64);
		probe_stream(pdev, sid, HUGE_ORDER, 1);
	}
	pr_info("ptfs-dma done %u\n", nlines);
	return 0;
}

static void __exit probe_exit(void)
{
	while (nbufs--) {
		struct probe_buf *b = &bufs[nbufs];

		if (b->cpu) {
			dma_free_coherent(b->dev, b->len, b->cpu, b->iova);
		} else {
			dma_unmap_page(b->dev, b->iova, b->len, DMA_BIDIRECTIONAL);
			__free_pages(b->page, b->order);
		}
	}
	kfree(bufs);
}

module_init(probe_init);
module_exit(probe_exit);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("ptfs QEMU IOMMU test: maps known DMA buffers and prints their IOVAs");
