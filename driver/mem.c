// SPDX-License-Identifier: GPL-2.0
/*
 * snode: global memory - the pool, per-file ownership, and the
 * device-level setup, reset and removal of exports and imports.
 */

#include <linux/capability.h>
#include <linux/cred.h>
#include <linux/fs.h>
#include <linux/fs_context.h>
#include <linux/io.h>
#include <linux/module.h>
#include <linux/mount.h>
#include <linux/pseudo_fs.h>
#include <linux/sched/signal.h>
#include <linux/slab.h>
#include <linux/uaccess.h>

#include "mem.h"

/**
 * DOC: Global memory
 *
 * Global memory is split over these files: mem.c (this file: the pool and
 * its allocations, the per-file bookkeeping, and the device's setup, reset
 * and removal), mem_list.c (listings and debugfs), export.c (the export
 * table), import.c (the ATT, imports and revocation) and map.c (page
 * tables).
 * Documentation/driver/global-memory.rst describes the whole.
 *
 * Ownership: an open file of /dev/snodeN owns its allocations and exports
 * (&struct snode_mem_file); an import is owned by its own file. Allocations
 * are reference counted because mappings and exports outlive a free.
 * Everything lives in &struct snode_mem, which is freed with the device
 * structure, i.e. after the last file of the device is closed.
 *
 * Locking, outermost first:
 *
 * - &snode_dev.rwsem, read while using the device for a user (creating an
 *   export or import, withdrawing an export), write for a reset, which
 *   therefore never runs in the middle of one;
 * - &snode_mem_file.ops_lock serialises one file's memory ioctls;
 * - &snode_mem.map_lock, then &snode_mem.lock, which protects the tables;
 * - &snode_import.lock, held for read by the fault path and for write
 *   while revoking.
 *
 * No admin command is ever issued with &snode_mem.lock held, and event
 * handlers never take &snode_dev.rwsem (a reset waits for the event
 * thread): what an event handler cannot do itself (ATT_CLEAR) goes to
 * &snode_mem.clear_work.
 *
 * Every mapping hangs off an address_space of the driver's own (fs.c), so
 * that it can be zapped: each open file of /dev/snodeN gets a private inode
 * for its pool mappings, and each import file an inode of its own.
 */

/* ---- the pool ---------------------------------------------------------- */

/* Zero a freshly allocated range, so no process sees another's data. */
static void snode_pool_zero(struct snode_mem *mem, u64 offset, u64 length)
{
	u64 done, chunk;

	for (done = 0; done < length; done += chunk) {
		chunk = min_t(u64, length - done, SZ_2M);
		if (mem->pool_va)
			memset(mem->pool_va + offset + done, 0, chunk);
		else
			memset_io(mem->pool_io + offset + done, 0, chunk);
		cond_resched();
	}
}

static void snode_alloc_release(struct kref *kref)
{
	struct snode_alloc *alloc = container_of(kref, struct snode_alloc,
						 kref);
	struct snode_mem *mem = alloc->mem;

	mutex_lock(&mem->lock);
	list_del(&alloc->mem_node);
	mutex_unlock(&mem->lock);

	gen_pool_free(mem->pool, mem->pool_phys + alloc->offset,
		      alloc->length);
	snode_owner_put(&alloc->owner);
	kfree(alloc);
}

/**
 * snode_alloc_put() - drop a reference to an allocation
 * @alloc: the allocation
 *
 * The last reference returns the range to the pool.
 *
 * Context: Process context; must not hold &snode_mem.lock.
 */
void snode_alloc_put(struct snode_alloc *alloc)
{
	kref_put(&alloc->kref, snode_alloc_release);
}

/* The allocation of @mfile starting at @offset, or NULL. */
static struct snode_alloc *__snode_alloc_find(struct snode_mem_file *mfile,
					      u64 offset)
{
	struct snode_alloc *alloc;

	lockdep_assert_held(&mfile->mem->lock);

	list_for_each_entry(alloc, &mfile->allocs, file_node)
		if (alloc->offset == offset)
			return alloc;
	return NULL;
}

/**
 * snode_alloc_get() - look up and reference an allocation of a file
 * @mfile: the owning file
 * @offset: the allocation's pool offset
 *
 * Context: Process context.
 * Return: the allocation with a reference, or NULL.
 */
struct snode_alloc *snode_alloc_get(struct snode_mem_file *mfile, u64 offset)
{
	struct snode_alloc *alloc;

	mutex_lock(&mfile->mem->lock);
	alloc = __snode_alloc_find(mfile, offset);
	if (alloc)
		kref_get(&alloc->kref);
	mutex_unlock(&mfile->mem->lock);
	return alloc;
}

/* Take @alloc away from its owning file; the file's reference is dropped. */
static void snode_alloc_disown(struct snode_mem *mem, struct snode_alloc *alloc)
{
	mutex_lock(&mem->lock);
	list_del(&alloc->file_node);
	alloc->mfile = NULL;
	mutex_unlock(&mem->lock);
	snode_alloc_put(alloc);
}

/*
 * Take @alloc->length bytes off the pool for @alloc and zero them: 0, or
 * -ENOMEM, or the errno of a device that is not live (the pool mapping
 * goes away with the device).
 */
static int snode_pool_get(struct snode_mem *mem, struct snode_alloc *alloc)
{
	struct genpool_data_align align = { .align = PAGE_SIZE };
	unsigned long addr;
	int ret;

	if (IS_ALIGNED(alloc->length, SNODE_POOL_HUGE_ALIGN))
		align.align = SNODE_POOL_HUGE_ALIGN;
	ret = snode_lock_live(mem->sdev);
	if (ret)
		return ret;
	addr = gen_pool_alloc_algo(mem->pool, alloc->length,
				   gen_pool_first_fit_align, &align);
	if (addr) {
		alloc->offset = addr - mem->pool_phys;
		snode_pool_zero(mem, alloc->offset, alloc->length);
	}
	snode_unlock_live(mem->sdev);
	return addr ? 0 : -ENOMEM;
}

/**
 * snode_ioctl_mem_alloc() - SNODE_IOCTL_MEM_ALLOC: allocate pool memory
 * @ucmd: the call; &struct snode_mem_alloc
 *
 * Context: Process context.
 * Return: 0 or a negative errno, as <linux/snode.h> documents.
 */
int snode_ioctl_mem_alloc(struct snode_ucmd *ucmd)
{
	struct snode_mem_alloc *cmd = ucmd->cmd;
	struct snode_mem_file *mfile = ucmd->sfile->mem;
	struct snode_mem *mem = mfile->mem;
	struct snode_alloc *alloc;
	int ret;

	if (cmd->flags)
		return -EOPNOTSUPP;
	if (!mem->pool)
		return -EOPNOTSUPP;
	if (!cmd->length || !PAGE_ALIGNED(cmd->length) ||
	    cmd->length > mem->pool_size)
		return -EINVAL;

	alloc = kzalloc(sizeof(*alloc), GFP_KERNEL_ACCOUNT);
	if (!alloc)
		return -ENOMEM;
	kref_init(&alloc->kref);
	alloc->mem = mem;
	alloc->length = cmd->length;
	snode_owner_init(&alloc->owner);
	ret = snode_owner_charge(&alloc->owner, ucmd->sfile, SNODE_QUOTA_POOL,
				 cmd->length);
	if (ret)
		goto err_free;

	mutex_lock(&mfile->ops_lock);
	ret = snode_pool_get(mem, alloc);
	if (ret)
		goto err_unlock_ops;

	mutex_lock(&mem->lock);
	alloc->mfile = mfile;
	list_add_tail(&alloc->file_node, &mfile->allocs);
	list_add_tail(&alloc->mem_node, &mem->allocs);
	mutex_unlock(&mem->lock);

	cmd->out_offset = alloc->offset;
	ret = snode_ucmd_respond(ucmd, sizeof(*cmd));
	if (ret)
		snode_alloc_disown(mem, alloc);
	mutex_unlock(&mfile->ops_lock);
	return ret;

err_unlock_ops:
	mutex_unlock(&mfile->ops_lock);
err_free:
	snode_owner_put(&alloc->owner);
	kfree(alloc);
	return ret;
}

/**
 * snode_ioctl_mem_free() - SNODE_IOCTL_MEM_FREE: free an allocation
 * @ucmd: the call; &struct snode_mem_free
 *
 * Context: Process context.
 * Return: 0 or a negative errno, as <linux/snode.h> documents.
 */
int snode_ioctl_mem_free(struct snode_ucmd *ucmd)
{
	struct snode_mem_free *cmd = ucmd->cmd;
	struct snode_mem_file *mfile = ucmd->sfile->mem;
	struct snode_mem *mem = mfile->mem;
	struct snode_alloc *alloc;

	if (cmd->flags)
		return -EOPNOTSUPP;

	mutex_lock(&mfile->ops_lock);
	mutex_lock(&mem->lock);
	alloc = __snode_alloc_find(mfile, cmd->offset);
	mutex_unlock(&mem->lock);
	if (!alloc) {
		mutex_unlock(&mfile->ops_lock);
		return -ENOENT;
	}
	/* withdraw its exports first, so nobody reaches a freed range */
	snode_exports_release(mem, mfile, alloc);
	snode_alloc_disown(mem, alloc);
	mutex_unlock(&mfile->ops_lock);
	return 0;
}

/**
 * snode_kalloc() - allocate pool memory for the kernel
 * @sdev: snode device
 * @length: bytes, a multiple of 4 KiB
 *
 * For the driver's own shared memory (the network interface's receive
 * rings): zeroed, listed like a file's allocation, mapped write-back at
 * snode_kalloc_va(). Only coherent devices (CAP.COHERENT) have such a
 * mapping.
 *
 * Context: Process context.
 * Return: the allocation, or an ERR_PTR(): -EOPNOTSUPP (no pool, or not
 * coherent), -EINVAL, -ENOMEM, or the errno of a device that is not live.
 */
struct snode_alloc *snode_kalloc(struct snode_dev *sdev, u64 length)
{
	struct snode_mem *mem = sdev->mem;
	struct snode_alloc *alloc;
	int ret;

	if (!mem || !mem->pool || !mem->pool_va)
		return ERR_PTR(-EOPNOTSUPP);
	if (!length || !PAGE_ALIGNED(length) || length > mem->pool_size)
		return ERR_PTR(-EINVAL);
	alloc = kzalloc(sizeof(*alloc), GFP_KERNEL);
	if (!alloc)
		return ERR_PTR(-ENOMEM);
	kref_init(&alloc->kref);
	alloc->mem = mem;
	alloc->length = length;
	snode_owner_init_kernel(&alloc->owner);
	ret = snode_pool_get(mem, alloc);
	if (ret) {
		kfree(alloc);
		return ERR_PTR(ret);
	}
	mutex_lock(&mem->lock);
	alloc->kernel = true;
	list_add_tail(&alloc->mem_node, &mem->allocs);
	mutex_unlock(&mem->lock);
	return alloc;
}

/**
 * snode_kalloc_va() - the kernel's mapping of an allocation
 * @alloc: from snode_kalloc()
 *
 * Context: Any context.
 * Return: its address, write-back.
 */
void *snode_kalloc_va(struct snode_alloc *alloc)
{
	return alloc->mem->pool_va + alloc->offset;
}

/**
 * snode_kfree() - free an allocation of snode_kalloc()
 * @alloc: the allocation; its range returns to the pool once its exports
 *         are gone too
 *
 * Context: Process context; must not hold &snode_mem.lock.
 */
void snode_kfree(struct snode_alloc *alloc)
{
	mutex_lock(&alloc->mem->lock);
	alloc->kernel = false;
	mutex_unlock(&alloc->mem->lock);
	snode_alloc_put(alloc);
}

/* ---- mappings of the pool ---------------------------------------------- */

static void snode_pool_vm_open(struct vm_area_struct *vma)
{
	struct snode_alloc *alloc = vma->vm_private_data;

	kref_get(&alloc->kref);
}

static void snode_pool_vm_close(struct vm_area_struct *vma)
{
	snode_alloc_put(vma->vm_private_data);
}

static vm_fault_t snode_pool_huge_fault(struct vm_fault *vmf,
					unsigned int order)
{
	struct snode_alloc *alloc = vmf->vma->vm_private_data;
	struct snode_mem *mem = alloc->mem;
	vm_fault_t ret;

	down_read(&mem->map_lock);
	if (mem->removed || mem->pool_blocked)
		ret = VM_FAULT_SIGBUS;
	else
		ret = snode_map_insert(mem, vmf, order,
				       PHYS_PFN(mem->pool_phys) +
				       vmf->vma->vm_pgoff);
	up_read(&mem->map_lock);
	return ret;
}

static vm_fault_t snode_pool_fault(struct vm_fault *vmf)
{
	return snode_pool_huge_fault(vmf, 0);
}

static const struct vm_operations_struct snode_pool_vm_ops = {
	.open = snode_pool_vm_open,
	.close = snode_pool_vm_close,
	.fault = snode_pool_fault,
#ifdef CONFIG_ARCH_SUPPORTS_HUGE_PFNMAP
	.huge_fault = snode_pool_huge_fault,
#endif
};

/**
 * snode_mem_mmap() - mmap() of /dev/snodeN: map one of the file's
 *                    allocations
 * @filp: the file
 * @vma: the new mapping; its offset lies inside one allocation, and so
 *       does its end
 *
 * Context: mmap_lock held for write.
 * Return: 0, -EINVAL if no allocation of the file holds the range or the
 * mapping is private, -ENODEV once the device was unbound.
 */
int snode_mem_mmap(struct file *filp, struct vm_area_struct *vma)
{
	struct snode_file *sfile = filp->private_data;
	struct snode_mem_file *mfile = sfile->mem;
	struct snode_mem *mem = mfile->mem;
	u64 start = (u64)vma->vm_pgoff << PAGE_SHIFT;
	u64 len = vma->vm_end - vma->vm_start;
	struct snode_alloc *alloc, *found = NULL;
	int ret;

	mutex_lock(&mem->lock);
	if (mem->removed) {
		mutex_unlock(&mem->lock);
		return -ENODEV;
	}
	list_for_each_entry(alloc, &mfile->allocs, file_node) {
		if (start >= alloc->offset &&
		    start - alloc->offset < alloc->length &&
		    len <= alloc->length - (start - alloc->offset)) {
			found = alloc;
			kref_get(&found->kref);
			break;
		}
	}
	mutex_unlock(&mem->lock);
	if (!found)
		return -EINVAL;

	ret = snode_map_prepare(mem, vma, &snode_pool_vm_ops, found, true);
	if (ret)
		snode_alloc_put(found);
	return ret;
}

/**
 * snode_mem_get_unmapped_area() - place a mapping of /dev/snodeN
 * @filp: the file
 * @addr: hint
 * @len: length
 * @pgoff: offset
 * @flags: MAP_* flags
 *
 * Context: mmap_lock held for write.
 * Return: as snode_map_get_unmapped_area().
 */
unsigned long snode_mem_get_unmapped_area(struct file *filp,
					  unsigned long addr,
					  unsigned long len,
					  unsigned long pgoff,
					  unsigned long flags)
{
	return snode_map_get_unmapped_area(filp, addr, len, pgoff, flags);
}

/* ---- per open file of /dev/snodeN ------------------------------------- */

/**
 * snode_mem_open() - set up the global memory state of an open file
 * @sfile: the new file's state
 * @filp: the file; its mappings are moved to a private address_space
 *
 * Context: ->open().
 * Return: 0, -ENODEV if the device has no global memory, or -ENOMEM.
 */
int snode_mem_open(struct snode_file *sfile, struct file *filp)
{
	struct snode_mem *mem = sfile->sdev->mem;
	struct snode_mem_file *mfile;
	struct inode *inode;

	if (!mem)
		return -ENODEV;
	mfile = kzalloc(sizeof(*mfile), GFP_KERNEL_ACCOUNT);
	if (!mfile)
		return -ENOMEM;
	inode = snode_fs_inode_get();
	if (IS_ERR(inode)) {
		kfree(mfile);
		return PTR_ERR(inode);
	}
	mfile->mem = mem;
	mfile->inode = inode;
	mutex_init(&mfile->ops_lock);
	INIT_LIST_HEAD(&mfile->allocs);
	INIT_LIST_HEAD(&mfile->exports);
	filp->f_mapping = inode->i_mapping;

	mutex_lock(&mem->lock);
	list_add_tail(&mfile->mem_node, &mem->files);
	mutex_unlock(&mem->lock);
	sfile->mem = mfile;
	return 0;
}

/**
 * snode_mem_release() - release everything an open file owned
 * @sfile: the file's state
 *
 * Exports are withdrawn first (every import of them, on every node, is
 * revoked), then the allocations are freed. No mapping of the file exists
 * any more: each one held the file open.
 *
 * Context: ->release().
 */
void snode_mem_release(struct snode_file *sfile)
{
	struct snode_mem_file *mfile = sfile->mem;
	struct snode_mem *mem = mfile->mem;
	struct snode_alloc *alloc, *tmp;
	LIST_HEAD(allocs);

	snode_exports_release(mem, mfile, NULL);

	mutex_lock(&mem->lock);
	list_for_each_entry_safe(alloc, tmp, &mfile->allocs, file_node) {
		alloc->mfile = NULL;
		list_move_tail(&alloc->file_node, &allocs);
	}
	list_del(&mfile->mem_node);
	mutex_unlock(&mem->lock);

	list_for_each_entry_safe(alloc, tmp, &allocs, file_node)
		snode_alloc_put(alloc);

	snode_fs_inode_put(mfile->inode);
	mutex_destroy(&mfile->ops_lock);
	kfree(mfile);
}

/* ---- the device -------------------------------------------------------- */

/*
 * Zap every pool mapping and set *@flag, which makes the fault path refuse
 * to map them again. No CPU access to BAR4 may reach a device being reset
 * or gone (vfio blocks BAR access during a reset the same way).
 */
static void snode_pool_zap(struct snode_mem *mem, bool *flag)
{
	struct snode_mem_file *mfile;

	down_write(&mem->map_lock);
	mutex_lock(&mem->lock);
	*flag = true;
	list_for_each_entry(mfile, &mem->files, mem_node)
		unmap_mapping_range(mfile->inode->i_mapping, 0, 0, 1);
	mutex_unlock(&mem->lock);
	up_write(&mem->map_lock);
}

/**
 * __snode_mem_reset_prepare() - the device is about to be reset
 * @sdev: snode device, queues stopped
 *
 * A reset invalidates every ATT entry: revoke every import now, with
 * reason SNODE_REVOKE_REASON_LOCAL_RESET. Exports are restored afterwards.
 * Pool mappings are zapped; faults on them raise SIGBUS until the device
 * is live again, and map the pool again after that.
 *
 * Context: Process context; caller holds @sdev->rwsem for write.
 */
static void __snode_mem_reset_prepare(struct snode_dev *sdev)
{
	struct snode_mem *mem = sdev->mem;

	lockdep_assert_held_write(&sdev->rwsem);

	if (!mem)
		return;
	snode_pool_zap(mem, &mem->pool_blocked);
	snode_imports_revoke_all(mem, SNODE_REVOKE_REASON_LOCAL_RESET);
	mutex_lock(&mem->lock);
	__snode_att_reset(mem);
	mutex_unlock(&mem->lock);
}

/**
 * __snode_mem_reset_done() - the device is back after a reset
 * @sdev: snode device, queues running, state not yet live
 *
 * Program the exports again under their ids and keys, so that handles
 * stay valid; importers re-import after their EXPORTER_RESET revocation.
 *
 * Context: Process context; caller holds @sdev->rwsem for write.
 */
static void __snode_mem_reset_done(struct snode_dev *sdev)
{
	lockdep_assert_held_write(&sdev->rwsem);

	if (!sdev->mem)
		return;
	__snode_exports_reset_done(sdev->mem);
	down_write(&sdev->mem->map_lock);
	sdev->mem->pool_blocked = false;
	up_write(&sdev->mem->map_lock);
}

static void snode_mem_remove(void *data)
{
	struct snode_mem *mem = data;

	snode_pool_zap(mem, &mem->removed);

	snode_imports_revoke_all(mem, SNODE_REVOKE_REASON_LOCAL_REMOVE);
	cancel_work_sync(&mem->clear_work);
	mutex_lock(&mem->lock);
	__snode_att_reset(mem);
	mutex_unlock(&mem->lock);
	snode_exports_remove(mem);
}

static void snode_mem_free_memtype(void *data)
{
	struct snode_mem *mem = data;

	arch_io_free_memtype_wc(mem->ap_phys, mem->ap_size);
}

static int snode_mem_map_bars(struct snode_mem *mem)
{
	struct device *dev = &mem->sdev->pdev->dev;
	void *va;
	int ret;

	if (mem->pool_size) {
		if (!devm_request_mem_region(dev, mem->pool_phys,
					     mem->pool_size, "snode pool"))
			return -EBUSY;
		if (mem->coherent) {
			mem->pool_va = devm_memremap(dev, mem->pool_phys,
						     mem->pool_size,
						     MEMREMAP_WB);
			if (IS_ERR(mem->pool_va))
				return PTR_ERR(mem->pool_va);
		} else {
			mem->pool_io = devm_ioremap_wc(dev, mem->pool_phys,
						       mem->pool_size);
			if (!mem->pool_io)
				return -ENOMEM;
		}
	}

	if (mem->ap_size) {
		if (!devm_request_mem_region(dev, mem->ap_phys, mem->ap_size,
					     "snode aperture"))
			return -EBUSY;
		/*
		 * The fault path inserts pfns with the VMA's caching, but x86
		 * PAT looks each pfn up in its memtype tree and falls back to
		 * UC- for a range nobody reserved. Reserve the aperture as
		 * what it is mapped as; the write-back reservation comes
		 * with a kernel mapping, which kernel imports use.
		 */
		if (mem->coherent) {
			va = devm_memremap(dev, mem->ap_phys, mem->ap_size,
					   MEMREMAP_WB);
			if (IS_ERR(va))
				return PTR_ERR(va);
			/* and kernel imports store through it */
			mem->ap_va = va;
		} else {
			ret = arch_io_reserve_memtype_wc(mem->ap_phys,
							 mem->ap_size);
			if (ret)
				return ret;
			ret = devm_add_action_or_reset(dev,
						       snode_mem_free_memtype,
						       mem);
			if (ret)
				return ret;
		}
	}
	return 0;
}

/* A BAR's usable size: what IDENTIFY says, if the BAR is that big. */
static u64 snode_mem_bar_size(struct snode_dev *sdev, const struct resource *res,
			      u64 id_size, u64 align, const char *what)
{
	u64 size = 0;

	if ((res->flags & IORESOURCE_MEM) && !(res->flags & IORESOURCE_UNSET))
		size = resource_size(res);
	/* if the device misbehaves, use what both agree on */
	if (id_size > size)
		dev_warn(&sdev->pdev->dev, "%s: IDENTIFY says %llu bytes, BAR has %llu\n",
			 what, id_size, size);
	size = round_down(min(size, id_size), align);
	return size;
}

static int snode_mem_pools_init(struct snode_mem *mem)
{
	int nid = dev_to_node(&mem->sdev->pdev->dev);

	if (mem->pool_size) {
		mem->pool = gen_pool_create(PAGE_SHIFT, nid);
		if (!mem->pool ||
		    gen_pool_add(mem->pool, mem->pool_phys, mem->pool_size, nid))
			return -ENOMEM;
	}
	if (mem->ap_size) {
		mem->aperture = gen_pool_create(ilog2(SNODE_APERTURE_ALIGN), nid);
		if (!mem->aperture ||
		    gen_pool_add(mem->aperture, mem->ap_phys, mem->ap_size, nid))
			return -ENOMEM;
	}
	return 0;
}

/**
 * snode_mem_init() - set up the global memory of a device
 * @sdev: snode device, identified
 *
 * Claims BAR4 (the pool) and BAR2 (the aperture). A device without
 * CAP.EXPORT or CAP.ATT gets no pool or no aperture, and the ioctls that
 * need them fail with EOPNOTSUPP. On unbind every import is revoked and
 * every mapping zapped; the state itself lives until the device structure
 * is freed (snode_mem_free()).
 *
 * Context: Process context (probe).
 * Return: 0 or a negative errno.
 */
static int snode_mem_init(struct snode_dev *sdev)
{
	struct device *dev = &sdev->pdev->dev;
	struct snode_mem *mem;
	struct snode_id id;
	int ret;

	mem = kzalloc(sizeof(*mem), GFP_KERNEL);
	if (!mem)
		return -ENOMEM;
	mem->sdev = sdev;
	init_rwsem(&mem->map_lock);
	mutex_init(&mem->lock);
	INIT_LIST_HEAD(&mem->files);
	INIT_LIST_HEAD(&mem->allocs);
	INIT_LIST_HEAD(&mem->imports);
	INIT_WORK(&mem->clear_work, snode_att_clear_work);

	snode_id_get(sdev, &id);
	mem->coherent = id.caps & SNODE_CAP_COHERENT;
	mem->max_nodes = id.max_nodes;
	if ((id.caps & SNODE_CAP_EXPORT) && id.export_entries) {
		mem->pool_phys = sdev->pool.start;
		mem->pool_size = snode_mem_bar_size(sdev, &sdev->pool,
						    id.pool_size, PAGE_SIZE,
						    "pool");
		mem->export_entries = id.export_entries;
		mem->max_host_extents = snode_hostmem_max_extents(&id);
	}
	if ((id.caps & SNODE_CAP_ATT) && id.att_entries) {
		mem->ap_phys = sdev->aperture.start;
		mem->ap_size = snode_mem_bar_size(sdev, &sdev->aperture,
						  id.aperture_size,
						  SNODE_APERTURE_ALIGN,
						  "aperture");
		mem->att_entries = id.att_entries;
	}
	if (!mem->pool_size) {
		mem->export_entries = 0;
		mem->max_host_extents = 0;
	}
	if (!mem->ap_size)
		mem->att_entries = 0;

	mem->att = kcalloc(mem->att_entries, sizeof(*mem->att), GFP_KERNEL);
	mem->exports = kcalloc(mem->export_entries, sizeof(*mem->exports),
			       GFP_KERNEL);
	if ((mem->att_entries && !mem->att) ||
	    (mem->export_entries && !mem->exports)) {
		kfree(mem->att);
		kfree(mem->exports);
		mutex_destroy(&mem->lock);
		kfree(mem);
		return -ENOMEM;
	}
	/*
	 * The queues run already: events and admin completions look at
	 * sdev->mem (READ_ONCE), so it is published only once initialised.
	 * From here snode_mem_free() frees it.
	 */
	smp_store_release(&sdev->mem, mem);

	ret = snode_mem_pools_init(mem);
	if (ret)
		return ret;
	ret = snode_mem_map_bars(mem);
	if (ret)
		return ret;
	return devm_add_action_or_reset(dev, snode_mem_remove, mem);
}

static void snode_mem_pool_destroy(struct snode_dev *sdev, struct gen_pool *pool,
				   const char *what)
{
	if (!pool)
		return;
	/* gen_pool_destroy() BUG()s on a leak; leak the pool instead */
	if (WARN(gen_pool_avail(pool) != gen_pool_size(pool),
		 "%s: %s: %zu bytes still allocated\n", dev_name(&sdev->dev),
		 what, gen_pool_size(pool) - gen_pool_avail(pool)))
		return;
	gen_pool_destroy(pool);
}

/**
 * snode_mem_free() - free the global memory state of a device
 * @sdev: snode device, being freed: no file and no import is left
 *
 * Context: Process context, may sleep.
 */
void snode_mem_free(struct snode_dev *sdev)
{
	struct snode_mem *mem = sdev->mem;

	if (!mem)
		return;
	/* an event may have queued it after the unbind cancelled it */
	cancel_work_sync(&mem->clear_work);
	snode_mem_pool_destroy(sdev, mem->pool, "pool");
	snode_mem_pool_destroy(sdev, mem->aperture, "aperture");
	kfree(mem->att);
	kfree(mem->exports);
	mutex_destroy(&mem->lock);
	kfree(mem);
	sdev->mem = NULL;
}

/* Context: event IRQ thread. */
static void snode_mem_event(struct snode_dev *sdev, const struct snode_event *ev)
{
	switch (le16_to_cpu(ev->type)) {
	case SNODE_EV_NODE_STATE:
		snode_mem_node_event(sdev, ev);
		break;
	case SNODE_EV_WINDOW_REVOKED:
		snode_mem_window_event(sdev, ev);
		break;
	case SNODE_EV_EQ_OVERFLOW:
		snode_mem_events_lost(sdev);
		break;
	}
}

const struct snode_feature_ops snode_mem_feature = {
	.name = "global memory",
	.add = snode_mem_init,
	.reset_prepare = __snode_mem_reset_prepare,
	.reset_done = __snode_mem_reset_done,
	.events = BIT(SNODE_EV_NODE_STATE) | BIT(SNODE_EV_WINDOW_REVOKED) |
		  BIT(SNODE_EV_EQ_OVERFLOW),
	.event = snode_mem_event,
	.admin_answered = snode_mem_reconcile,
};
