// SPDX-License-Identifier: GPL-2.0
/*
 * snode: imports - windows onto other nodes' exports: their mappings,
 * their files, the import ioctl and kernel imports.
 */

#include <linux/file.h>
#include <linux/fs.h>
#include <linux/poll.h>
#include <linux/slab.h>
#include <linux/uaccess.h>

#include "mem.h"
#include "trace.h"

/**
 * DOC: Imports
 *
 * An import reserves an ATT entry and a 2 MiB aligned range of the BAR2
 * aperture (1 GiB aligned for windows of 1 GiB or more where huge pfnmaps
 * exist), programs the entry with ATT_SET, which the exporter's device
 * validates, and hands out a file. Its mmap() maps the aperture range
 * (map.c); closing it clears the entry. The ATT entries and revocation
 * are import_att.c's.
 *
 * Import files pin the module (rmmod fails with EBUSY while one is open)
 * and the device structure; an unbind revokes them and their file stays
 * usable for the status ioctl and poll() until closed.
 */

/* ---- mappings of a window ---------------------------------------------- */

static vm_fault_t snode_import_huge_fault(struct vm_fault *vmf,
					  unsigned int order)
{
	struct snode_import *imp = vmf->vma->vm_private_data;
	struct snode_mem *mem = imp->mem;
	bool active;
	vm_fault_t ret;

	down_read(&imp->lock);
	active = imp->state == SNODE_WINDOW_STATE_ACTIVE;
	if (active)
		ret = snode_map_insert(mem, vmf, order,
				       PHYS_PFN(mem->ap_phys + imp->ap_offset) +
				       vmf->vma->vm_pgoff);
	else if (order)
		ret = VM_FAULT_FALLBACK;
	else if (imp->flags & SNODE_IMPORT_ZERO_PAGE_ON_REVOKE)
		ret = snode_map_insert_zero(vmf);
	else
		ret = VM_FAULT_SIGBUS;
	up_read(&imp->lock);
	trace_snode_window_fault(imp->sdev, imp->att_index, vmf->pgoff, order,
				 active, (__force unsigned int)ret);
	return ret;
}

static vm_fault_t snode_import_fault(struct vm_fault *vmf)
{
	return snode_import_huge_fault(vmf, 0);
}

/* A store to the zero page of a revoked window; or after mprotect(). */
static vm_fault_t snode_import_pfn_mkwrite(struct vm_fault *vmf)
{
	struct snode_import *imp = vmf->vma->vm_private_data;
	vm_fault_t ret;

	down_read(&imp->lock);
	ret = imp->state == SNODE_WINDOW_STATE_ACTIVE ? 0 : VM_FAULT_SIGBUS;
	up_read(&imp->lock);
	return ret;
}

static const struct vm_operations_struct snode_import_vm_ops = {
	.fault = snode_import_fault,
#ifdef CONFIG_ARCH_SUPPORTS_HUGE_PFNMAP
	.huge_fault = snode_import_huge_fault,
#endif
};

/*
 * With the zero page on revocation, stores must be caught: write-notify
 * (pfn_mkwrite) it is, at the cost of a first read-only huge entry.
 */
static const struct vm_operations_struct snode_import_zero_vm_ops = {
	.fault = snode_import_fault,
#ifdef CONFIG_ARCH_SUPPORTS_HUGE_PFNMAP
	.huge_fault = snode_import_huge_fault,
#endif
	.pfn_mkwrite = snode_import_pfn_mkwrite,
};

static int snode_import_mmap(struct file *file, struct vm_area_struct *vma)
{
	struct snode_import *imp = file->private_data;
	u64 off = (u64)vma->vm_pgoff << PAGE_SHIFT;
	u64 len = vma->vm_end - vma->vm_start;
	bool revoked;

	if (off >= imp->length || len > imp->length - off)
		return -EINVAL;
	down_read(&imp->lock);
	revoked = imp->state != SNODE_WINDOW_STATE_ACTIVE;
	up_read(&imp->lock);
	if (revoked)
		return -ECONNRESET;
	return snode_map_prepare(imp->mem, vma,
				 imp->flags & SNODE_IMPORT_ZERO_PAGE_ON_REVOKE ?
				 &snode_import_zero_vm_ops : &snode_import_vm_ops,
				 imp, imp->flags & SNODE_IMPORT_WRITE);
}

/* ---- the import's file --------------------------------------------------- */

static __poll_t snode_import_poll(struct file *file, poll_table *wait)
{
	struct snode_import *imp = file->private_data;

	poll_wait(file, &imp->wait, wait);
	/* a lockless peek; revocation sets the state before waking */
	if (READ_ONCE(imp->state) == SNODE_WINDOW_STATE_REVOKED)
		return EPOLLIN | EPOLLRDNORM | EPOLLPRI | EPOLLERR;
	return 0;
}

static int snode_import_status(struct snode_ucmd *ucmd)
{
	struct snode_import_status *st = ucmd->cmd;
	struct snode_import *imp = ucmd->obj;

	if (st->flags || st->__reserved)
		return -EOPNOTSUPP;

	down_read(&imp->lock);
	st->out_state = imp->state;
	st->out_reason = imp->reason;
	up_read(&imp->lock);
	st->out_epoch = imp->epoch;
	st->out_node = imp->node_id;
	st->out_export_id = imp->export_id;
	st->out_flags = imp->flags;
	st->out_key = imp->key;
	st->out_offset = imp->offset;
	st->out_length = imp->length;
	st->out_att_index = imp->att_index;
	return snode_ucmd_respond(ucmd, sizeof(*st));
}

static const struct snode_ioctl_op snode_import_ioctl_ops[] = {
	SNODE_IOCTL_OP(SNODE_IOCTL_IMPORT_STATUS, snode_import_status,
		       struct snode_import_status, __reserved, 0),
};

static long snode_import_ioctl(struct file *file, unsigned int cmd,
			       unsigned long arg)
{
	struct snode_import *imp = file->private_data;
	struct snode_ucmd ucmd = {
		.sdev = imp->sdev,
		.obj = imp,
	};

	return snode_ioctl_dispatch(file, snode_import_ioctl_ops,
				    ARRAY_SIZE(snode_import_ioctl_ops), &ucmd,
				    cmd, arg);
}

/* Clear the entry of @imp, if it still holds one, and free @imp. */
static void snode_import_free(struct snode_import *imp)
{
	struct snode_mem *mem = imp->mem;
	bool clear = false;

	mutex_lock(&mem->lock);
	list_del_init(&imp->mem_node);
	snode_mem_changed(mem);
	if (imp->att_held) {
		imp->att_held = false;
		mem->att[imp->att_index].imp = NULL;
		mem->att[imp->att_index].state = SNODE_ATT_CLEARING;
		snode_mem_changed(mem);
		clear = true;
	}
	mutex_unlock(&mem->lock);
	if (clear)
		snode_att_clear(mem, imp->att_index);

	snode_owner_put(&imp->owner);
	put_device(&imp->sdev->dev);
	kfree(imp);
}

static int snode_import_release(struct inode *inode, struct file *file)
{
	snode_import_free(file->private_data);
	/* the file owns the inode; drop the filesystem pin it came with */
	snode_fs_inode_put(NULL);
	return 0;
}

static const struct file_operations snode_import_fops;

/**
 * snode_import_dma_get() - hold an import for a DMA copy through its window
 * @sdev: the device the import must belong to
 * @fd: the import's file descriptor
 * @offset: where the copy starts in the window
 * @length: bytes the copy moves
 * @write: the copy writes to the window
 * @ap_start: out: the aperture offset of @offset
 *
 * Takes a reference on the import's file and counts the copy in
 * &snode_import.dma_busy, so that the window's aperture range is not
 * handed to another import while the copy may use it, even if the import
 * is revoked meanwhile.
 *
 * Context: Process context.
 * Return: the import, or an ERR_PTR(): -EBADF, -EINVAL (not an import of
 * @sdev, or the range is outside the window), -ECONNRESET (revoked),
 * -EROFS (@write to a read-only import: it never becomes writable, not
 * even by DMA).
 */
struct snode_import *snode_import_dma_get(struct snode_dev *sdev, int fd,
					  u64 offset, u64 length, bool write,
					  u64 *ap_start)
{
	struct snode_import *imp;
	struct file *file;
	int ret = 0;

	file = fget(fd);
	if (!file)
		return ERR_PTR(-EBADF);
	imp = file->private_data;
	if (file->f_op != &snode_import_fops || imp->sdev != sdev) {
		fput(file);
		return ERR_PTR(-EINVAL);
	}
	mutex_lock(&imp->mem->lock);
	if (READ_ONCE(imp->state) != SNODE_WINDOW_STATE_ACTIVE || !imp->att_held)
		ret = -ECONNRESET;
	else
		imp->dma_busy++;
	mutex_unlock(&imp->mem->lock);
	if (ret) {
		fput(file);
		return ERR_PTR(ret);
	}
	if (offset >= imp->length || length > imp->length - offset)
		ret = -EINVAL;
	else if (write && !(imp->flags & SNODE_IMPORT_WRITE))
		ret = -EROFS;
	if (ret) {
		snode_import_dma_put(imp);
		return ERR_PTR(ret);
	}
	*ap_start = imp->ap_offset + offset;
	return imp;
}

/**
 * snode_import_dma_put() - a copy through the window is done
 * @imp: from snode_import_dma_get()
 *
 * Context: Process context (the file reference may be the last one).
 */
void snode_import_dma_put(struct snode_import *imp)
{
	mutex_lock(&imp->mem->lock);
	imp->dma_busy--;
	mutex_unlock(&imp->mem->lock);
	fput(imp->file);
}

static const struct file_operations snode_import_fops = {
	.owner = THIS_MODULE,
	.release = snode_import_release,
	.unlocked_ioctl = snode_import_ioctl,
	.compat_ioctl = compat_ptr_ioctl,
	.mmap = snode_import_mmap,
	.get_unmapped_area = snode_map_get_unmapped_area,
	.poll = snode_import_poll,
	.llseek = noop_llseek,
};

/* ---- the import ioctl ---------------------------------------------------- */

/* Program the reserved entry of @imp. Caller holds sdev->rwsem. */
static int __snode_att_set(struct snode_mem *mem, struct snode_import *imp,
			   struct snode_admin_req *req)
{
	u32 perm = SNODE_PERM_READ;
	u64 len = imp->length;

	if (imp->flags & SNODE_IMPORT_WRITE)
		perm |= SNODE_PERM_WRITE;
	*req = (struct snode_admin_req) {
		.cmd.opcode = SNODE_OP_ATT_SET,
		.cmd.att_set = {
			.index = cpu_to_le32(imp->att_index),
			.flags = cpu_to_le32(perm),
			.aperture_offset_lo = cpu_to_le32(lower_32_bits(imp->ap_offset)),
			.aperture_offset_hi = cpu_to_le32(upper_32_bits(imp->ap_offset)),
			.length_lo = cpu_to_le32(lower_32_bits(len)),
			.length_hi = cpu_to_le32(upper_32_bits(len)),
			.node = cpu_to_le32(imp->node_id),
			.export_id = cpu_to_le32(imp->export_id),
			.key_lo = cpu_to_le32(lower_32_bits(imp->key)),
			.key_hi = cpu_to_le32(upper_32_bits(imp->key)),
			.export_offset = cpu_to_le32(imp->offset >>
						     SNODE_ATT_EXPORT_OFFSET_SHIFT),
		},
		/* set by a completion: tells a device refusal from a timeout */
		.status = U16_MAX,
	};
	return __snode_admin_exec(mem->sdev, req);
}

/*
 * Publish @imp after ATT_SET, or settle its entry after a failure. An
 * entry the device refused is invalid (contract); one whose command timed
 * out on the driver's side may turn valid later and stays stale until it
 * is reconciled.
 */
static void snode_import_publish(struct snode_mem *mem, struct snode_import *imp,
				 int ret, const struct snode_admin_req *req)
{
	struct snode_att_slot *slot = &mem->att[imp->att_index];

	mutex_lock(&mem->lock);
	if (!ret) {
		imp->epoch = le32_to_cpu(req->cpl.att_set.epoch);
		imp->att_held = true;
		slot->state = SNODE_ATT_ACTIVE;
		list_add_tail(&imp->mem_node, &mem->imports);
		snode_mem_changed(mem);
		/* revoked between the fabric's grant and our completion */
		if (slot->revoked_epoch == imp->epoch)
			__snode_import_revoke(imp, slot->revoked_reason, true);
	} else if (ret == -ETIMEDOUT && req->status == U16_MAX) {
		slot->imp = NULL;
		slot->state = SNODE_ATT_STALE;
		snode_mem_changed(mem);
		__snode_mem_reconcile_kick(mem);
	} else {
		__snode_att_free(mem, imp->att_index);
	}
	mutex_unlock(&mem->lock);
}

/* A new import of @length bytes of export @export_id of @node, unowned. */
static struct snode_import *snode_import_new(struct snode_dev *sdev, u32 node,
					     u32 export_id, u64 key,
					     u64 length, gfp_t gfp)
{
	struct snode_import *imp;

	imp = kzalloc(sizeof(*imp), gfp);
	if (!imp)
		return NULL;
	imp->mem = sdev->mem;
	imp->sdev = sdev;
	get_device(&sdev->dev);
	INIT_LIST_HEAD(&imp->mem_node);
	imp->node_id = node;
	imp->export_id = export_id;
	imp->key = key;
	imp->length = length;
	imp->att_index = U32_MAX;
	init_rwsem(&imp->lock);
	imp->state = SNODE_WINDOW_STATE_ACTIVE;
	init_waitqueue_head(&imp->wait);
	return imp;
}

/* Reserve an entry for @imp and program it: 0 or a negative errno. */
static int snode_import_map(struct snode_mem *mem, struct snode_import *imp)
{
	struct snode_admin_req req;
	int ret;

	/* a reset must not wipe the entry between ATT_SET and publishing */
	ret = snode_lock_live(mem->sdev);
	if (ret)
		return ret;
	ret = snode_att_reserve(mem, imp);
	if (!ret) {
		ret = __snode_att_set(mem, imp, &req);
		snode_import_publish(mem, imp, ret, &req);
	}
	snode_unlock_live(mem->sdev);
	return ret;
}

/**
 * snode_ioctl_mem_import() - SNODE_IOCTL_MEM_IMPORT: map another node's export
 * @ucmd: the call; &struct snode_mem_import
 *
 * Context: Process context, sleeps while the fabric validates the grant.
 * Return: 0 and a new file descriptor in out_fd, or a negative errno, as
 * <linux/snode.h> documents.
 */
int snode_ioctl_mem_import(struct snode_ucmd *ucmd)
{
	struct snode_mem_import *cmd = ucmd->cmd;
	struct snode_dev *sdev = ucmd->sdev;
	struct snode_mem *mem = sdev->mem;
	struct snode_import *imp;
	struct file *file;
	int fd, ret;

	if (cmd->flags & ~(SNODE_IMPORT_WRITE |
			   SNODE_IMPORT_ZERO_PAGE_ON_REVOKE))
		return -EOPNOTSUPP;
	if (!mem->att_entries)
		return -EOPNOTSUPP;
	if (cmd->node >= mem->max_nodes || !cmd->length ||
	    !PAGE_ALIGNED(cmd->length) || !PAGE_ALIGNED(cmd->offset) ||
	    cmd->offset >= SNODE_ATT_EXPORT_OFFSET_MAX ||
	    cmd->length > mem->ap_size)
		return -EINVAL;

	imp = snode_import_new(sdev, cmd->node, cmd->export_id, cmd->key,
			       cmd->length, GFP_KERNEL_ACCOUNT);
	if (!imp)
		return -ENOMEM;
	imp->offset = cmd->offset;
	imp->flags = cmd->flags;
	snode_owner_init(&imp->owner);
	ret = snode_owner_charge(&imp->owner, ucmd->sfile, SNODE_QUOTA_IMPORTS,
				 1);
	if (ret) {
		snode_owner_put(&imp->owner);
		put_device(&sdev->dev);
		kfree(imp);
		return ret;
	}

	file = snode_fs_file_create("[snode-import]",
				    cmd->flags & SNODE_IMPORT_WRITE ?
				    O_RDWR : O_RDONLY,
				    &snode_import_fops, imp);
	if (IS_ERR(file)) {
		snode_owner_put(&imp->owner);
		put_device(&sdev->dev);
		kfree(imp);
		return PTR_ERR(file);
	}
	/* from here on, the file's release frees imp */
	imp->file = file;

	fd = get_unused_fd_flags(O_CLOEXEC);
	if (fd < 0)
		return snode_ucmd_install_fd(ucmd, sizeof(*cmd), file, fd, 0);

	ret = snode_import_map(mem, imp);
	cmd->out_fd = fd;
	cmd->out_epoch = imp->epoch;
	return snode_ucmd_install_fd(ucmd, sizeof(*cmd), file, fd, ret);
}

/* ---- kernel imports ------------------------------------------------------ */

/**
 * snode_kimport() - a read-write window for the kernel onto another node's
 *                   export
 * @sdev: snode device, coherent (CAP.COHERENT)
 * @node: the exporter's node
 * @export_id: the export
 * @key: its key
 * @length: bytes from the export's start, a multiple of 4 KiB
 *
 * The window is mapped write-back at snode_kimport_va(). Revocation works
 * as for a file's import, but the entry and its aperture range stay
 * reserved until snode_kimport_release(), so that a store racing with the
 * revocation lands in a hole (dropped by the device) and never in another
 * window. The user checks snode_kimport_live() before each use.
 *
 * Context: Process context, sleeps while the fabric validates the grant.
 * Return: the import, or an ERR_PTR(): -EOPNOTSUPP (no ATT, or not
 * coherent), -EINVAL, -ENOMEM, -ENOSPC (no free entry), or the errno of
 * ATT_SET.
 */
struct snode_import *snode_kimport(struct snode_dev *sdev, u32 node,
				   u32 export_id, u64 key, u64 length)
{
	struct snode_mem *mem = sdev->mem;
	struct snode_import *imp;
	int ret;

	if (!mem || !mem->att_entries || !mem->ap_va)
		return ERR_PTR(-EOPNOTSUPP);
	if (node >= mem->max_nodes || !length || !PAGE_ALIGNED(length) ||
	    length > mem->ap_size)
		return ERR_PTR(-EINVAL);
	imp = snode_import_new(sdev, node, export_id, key, length, GFP_KERNEL);
	if (!imp)
		return ERR_PTR(-ENOMEM);
	imp->flags = SNODE_IMPORT_WRITE;
	snode_owner_init_kernel(&imp->owner);
	/* held for the user's stores until snode_kimport_release() */
	imp->dma_busy = 1;
	ret = snode_import_map(mem, imp);
	if (ret) {
		snode_import_free(imp);
		return ERR_PTR(ret);
	}
	return imp;
}

/**
 * snode_kimport_va() - the kernel's mapping of a kernel import
 * @imp: from snode_kimport()
 *
 * Context: Any context.
 * Return: the window's address, write-back.
 */
void *snode_kimport_va(struct snode_import *imp)
{
	return imp->mem->ap_va + imp->ap_offset;
}

/**
 * snode_kimport_live() - is a kernel import still granted?
 * @imp: from snode_kimport()
 *
 * Context: Any context.
 * Return: false once it was revoked; stores through it are dropped then.
 */
bool snode_kimport_live(struct snode_import *imp)
{
	return READ_ONCE(imp->state) == SNODE_WINDOW_STATE_ACTIVE;
}

/**
 * snode_kimport_release() - clear and free a kernel import
 * @imp: from snode_kimport(); nobody stores through it any more
 *
 * Context: Process context, sleeps for ATT_CLEAR.
 */
void snode_kimport_release(struct snode_import *imp)
{
	mutex_lock(&imp->mem->lock);
	imp->dma_busy--;
	mutex_unlock(&imp->mem->lock);
	snode_import_free(imp);
}
