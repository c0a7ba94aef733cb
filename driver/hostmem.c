// SPDX-License-Identifier: GPL-2.0
/*
 * snode: host memory exports - pinning a process's own pages and
 * describing them to the device as an extent list.
 */

#include <linux/mm.h>
#include <linux/sched/mm.h>
#include <linux/scatterlist.h>
#include <linux/slab.h>
#include <linux/uaccess.h>

#include "mem.h"

/**
 * DOC: Host memory exports
 *
 * SNODE_IOCTL_MEM_EXPORT with SNODE_EXPORT_HOST exports a range of the
 * caller's address space instead of a pool allocation
 * (Documentation/decisions/0037-host-memory-exports.md). The pages are
 * pinned long-term (FOLL_LONGTERM, so that they are migrated out of
 * ZONE_MOVABLE and CMA first, and FOLL_WRITE, so that a copy-on-write page
 * is broken before the device is given it), charged to the owner's
 * RLIMIT_MEMLOCK with account_locked_vm() as vfio and the DMA engine do,
 * DMA-mapped as one scatterlist whose physically contiguous runs (THP,
 * hugetlb, or just neighbouring pages) are single entries, and handed to
 * the device as an extent list in EXPORT_SET's in buffer (the admin queue
 * copies it into coherent DMA memory for the command).
 *
 * The pins belong to the export (&snode_export.host) and go with
 * snode_export_free(), which runs only once the device confirmed the entry
 * cleared (EXPORT_CLEAR succeeded, or a reset or removal dropped the
 * device's table): an export left stale keeps its pages pinned, so munmap()
 * or exit never frees a page a peer can still reach. The mm is held with
 * mmgrab() for the uncharge, which may run after the owner exited.
 */

/* The device reports its limit; clamp it if the device misbehaves. */
#define SNODE_HOST_EXTENTS_MAX	65536u

/**
 * snode_hostmem_max_extents() - extents one host export may have
 * @id: the device's identity
 *
 * Return: 0 if the device cannot export host memory.
 */
u32 snode_hostmem_max_extents(const struct snode_id *id)
{
	if (!(id->caps & SNODE_CAP_HOST_EXPORT))
		return 0;
	return min(id->max_host_extents, SNODE_HOST_EXTENTS_MAX);
}

static void snode_hostmem_unpin(struct snode_hostmem *hm)
{
	unpin_user_pages_dirty_lock(hm->pages, hm->nr_pinned, hm->writable);
	hm->nr_pinned = 0;
}

/**
 * snode_hostmem_free() - unmap, unpin and uncharge
 * @hm: from snode_hostmem_pin(), or NULL
 *
 * Context: Process context; the device no longer holds an export of @hm.
 */
void snode_hostmem_free(struct snode_hostmem *hm)
{
	if (!hm)
		return;
	if (hm->mapped)
		dma_unmap_sgtable(hm->dev, &hm->sgt, hm->dir, 0);
	if (hm->sgt.orig_nents)
		sg_free_table(&hm->sgt);
	if (hm->nr_pinned)
		snode_hostmem_unpin(hm);
	if (hm->charged)
		account_locked_vm(hm->mm, hm->nr_pages, false);
	if (hm->mm)
		mmdrop(hm->mm);
	if (hm->dev)
		put_device(hm->dev);
	kvfree(hm->pages);
	kvfree(hm->ext);
	kfree(hm);
}

/* The DMA-mapped scatterlist as extents, adjacent ones merged. */
static int snode_hostmem_extents(struct snode_hostmem *hm, u32 max)
{
	struct scatterlist *sg;
	u32 n = 0;
	int i;

	hm->ext = kvmalloc_array(min_t(u32, hm->sgt.nents, max),
				 sizeof(*hm->ext), GFP_KERNEL_ACCOUNT);
	if (!hm->ext)
		return -ENOMEM;
	for_each_sgtable_dma_sg(&hm->sgt, sg, i) {
		u64 addr = sg_dma_address(sg), len = sg_dma_len(sg);

		/* whole pages in, whole pages out, unless an IOMMU misbehaves */
		if (!IS_ALIGNED(addr | len, SZ_4K) || !len)
			return -EIO;
		if (n && le64_to_cpu(hm->ext[n - 1].addr) +
			 le64_to_cpu(hm->ext[n - 1].len) == addr) {
			le64_add_cpu(&hm->ext[n - 1].len, len);
			continue;
		}
		if (n == max)
			return -EFBIG;
		hm->ext[n].addr = cpu_to_le64(addr);
		hm->ext[n].len = cpu_to_le64(len);
		n++;
	}
	hm->nr_ext = n;
	return 0;
}

/**
 * snode_hostmem_pin() - pin and map a range of the caller's memory
 * @mem: the device's global memory
 * @uaddr: start, page aligned
 * @length: bytes, page aligned, > 0
 * @writable: peers may write (pages mapped for DMA both ways)
 *
 * Context: Process context; takes mmap_lock.
 * Return: the pinned range or an ERR_PTR(): -EFAULT (not mapped, or a
 * mapping that cannot be pinned long-term, such as a file on a filesystem
 * without stable pages), -ENOMEM (RLIMIT_MEMLOCK or no memory), -EFBIG
 * (more extents than the device takes), -EOPNOTSUPP (no host exports).
 */
struct snode_hostmem *snode_hostmem_pin(struct snode_mem *mem, u64 uaddr,
					u64 length, bool writable)
{
	struct device *dev = &mem->sdev->pdev->dev;
	unsigned long nr = length >> PAGE_SHIFT;
	struct snode_hostmem *hm;
	int ret, pinned;

	if (!mem->max_host_extents)
		return ERR_PTR(-EOPNOTSUPP);
	/* pin_user_pages_fast() says EOVERFLOW past the top on 6.12 */
	if (!access_ok(u64_to_user_ptr(uaddr), length))
		return ERR_PTR(-EFAULT);
	if (nr > INT_MAX)
		return ERR_PTR(-ENOMEM);

	hm = kzalloc(sizeof(*hm), GFP_KERNEL_ACCOUNT);
	if (!hm)
		return ERR_PTR(-ENOMEM);
	hm->nr_pages = nr;
	hm->writable = writable;
	hm->dir = writable ? DMA_BIDIRECTIONAL : DMA_TO_DEVICE;
	hm->dev = get_device(dev);
	mmgrab(current->mm);
	hm->mm = current->mm;

	/* charge first: a refused charge leaves nothing pinned */
	ret = account_locked_vm(hm->mm, nr, true);
	if (ret)
		goto err;
	hm->charged = true;

	hm->pages = kvmalloc_array(nr, sizeof(*hm->pages), GFP_KERNEL_ACCOUNT);
	if (!hm->pages) {
		ret = -ENOMEM;
		goto err;
	}
	while (hm->nr_pinned < nr) {
		pinned = pin_user_pages_fast(uaddr + hm->nr_pinned * PAGE_SIZE,
					     nr - hm->nr_pinned,
					     FOLL_WRITE | FOLL_LONGTERM,
					     hm->pages + hm->nr_pinned);
		if (pinned <= 0) {
			ret = pinned ?: -EFAULT;
			/* a hole or a VM_IO/VM_PFNMAP range: not memory */
			if (ret != -ENOMEM)
				ret = -EFAULT;
			goto err;
		}
		hm->nr_pinned += pinned;
	}
	ret = sg_alloc_table_from_pages_segment(&hm->sgt, hm->pages, nr, 0,
						length, SZ_1G, GFP_KERNEL_ACCOUNT);
	if (ret)
		goto err;
	ret = dma_map_sgtable(dev, &hm->sgt, hm->dir, 0);
	if (ret)
		goto err;
	hm->mapped = true;
	ret = snode_hostmem_extents(hm, mem->max_host_extents);
	if (ret)
		goto err;
	return hm;

err:
	snode_hostmem_free(hm);
	return ERR_PTR(ret);
}
