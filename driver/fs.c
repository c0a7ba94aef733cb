// SPDX-License-Identifier: GPL-2.0
/*
 * snode: the driver's pseudo filesystem, object owners and per-file caps.
 */

#include <linux/capability.h>
#include <linux/cred.h>
#include <linux/fs.h>
#include <linux/fs_context.h>
#include <linux/module.h>
#include <linux/mount.h>
#include <linux/pseudo_fs.h>
#include <linux/sched/signal.h>
#include <linux/slab.h>

#include "snode.h"

/**
 * DOC: Files and owners
 *
 * fs.c is the part of the core that every feature creating a file or an
 * object builds on:
 *
 * - the "snode" pseudo filesystem. Every mapping the driver hands out
 *   hangs off an address_space of the driver's own, so that it can be
 *   zapped: each open file of /dev/snodeN gets a private inode for its
 *   pool mappings (mem.c), and each import file an inode of its own
 *   (import.c). anon_inode_getfile() would share one inode among all
 *   imports of the system; files that are never mapped (endpoints, DMA
 *   queues) use it.
 * - &struct snode_owner: who created an object, shown in listings to the
 *   same uid and to CAP_NET_ADMIN only, and the per-file caps the object
 *   is charged against (Documentation/decisions/0008-permission-model.md).
 */

#define SNODE_FS_MAGIC		0x736e6f64	/* "snod" */

static struct vfsmount *snode_mnt;
static int snode_mnt_count;

static int snode_fs_init_fs_context(struct fs_context *fc)
{
	return init_pseudo(fc, SNODE_FS_MAGIC) ? 0 : -ENOMEM;
}

static struct file_system_type snode_fs_type = {
	.name = "snode",
	.owner = THIS_MODULE,
	.init_fs_context = snode_fs_init_fs_context,
	.kill_sb = kill_anon_super,
};

/**
 * snode_fs_inode_get() - a new inode of the driver's pseudo filesystem
 *
 * The filesystem is mounted while any such inode exists.
 *
 * Context: Process context.
 * Return: the inode or an ERR_PTR().
 */
struct inode *snode_fs_inode_get(void)
{
	struct inode *inode;
	int ret;

	ret = simple_pin_fs(&snode_fs_type, &snode_mnt, &snode_mnt_count);
	if (ret)
		return ERR_PTR(ret);
	inode = alloc_anon_inode(snode_mnt->mnt_sb);
	if (IS_ERR(inode))
		simple_release_fs(&snode_mnt, &snode_mnt_count);
	return inode;
}

/**
 * snode_fs_inode_put() - drop an inode from snode_fs_inode_get()
 * @inode: the inode, or NULL if a file took it over
 *
 * Context: Process context.
 */
void snode_fs_inode_put(struct inode *inode)
{
	if (inode)
		iput(inode);
	simple_release_fs(&snode_mnt, &snode_mnt_count);
}

/**
 * snode_fs_file_create() - a file on a new inode of the pseudo filesystem
 * @name: dentry name, for /proc/PID/fd
 * @flags: O_RDONLY or O_RDWR
 * @fops: its file operations
 * @priv: its private_data
 *
 * The file owns the inode, the filesystem pin and a reference on the
 * module of @fops; its ->release() calls snode_fs_inode_put(NULL).
 *
 * Context: Process context.
 * Return: the file or an ERR_PTR().
 */
struct file *snode_fs_file_create(const char *name, int flags,
				  const struct file_operations *fops,
				  void *priv)
{
	struct inode *inode;
	struct file *file;

	/* the file's final fput() drops this, as for anon_inode_getfile() */
	if (!fops_get(fops))
		return ERR_PTR(-ENOENT);
	inode = snode_fs_inode_get();
	if (IS_ERR(inode)) {
		fops_put(fops);
		return ERR_CAST(inode);
	}
	file = alloc_file_pseudo(inode, snode_mnt, name, flags, fops);
	if (IS_ERR(file)) {
		snode_fs_inode_put(inode);
		fops_put(fops);
		return file;
	}
	file->private_data = priv;
	return file;
}

/**
 * snode_owner_init() - record the current process as an owner
 * @owner: where to record it
 *
 * Context: Process context.
 */
void snode_owner_init(struct snode_owner *owner)
{
	owner->pid = get_pid(task_tgid(current));
	owner->uid = current_euid();
	get_task_comm(owner->comm, current);
	owner->quota = NULL;
}

/**
 * snode_owner_init_kernel() - record the kernel as an owner
 * @owner: where to record it
 *
 * For the driver's own objects (the network interface's rings): no
 * process, root's uid, and "[snode]" as the command name.
 *
 * Context: Any context.
 */
void snode_owner_init_kernel(struct snode_owner *owner)
{
	owner->pid = NULL;
	owner->uid = GLOBAL_ROOT_UID;
	strscpy(owner->comm, "[snode]", sizeof(owner->comm));
	owner->quota = NULL;
}

/**
 * snode_owner_visible() - may a reader see who owns an object?
 * @owner: the object's owner
 * @viewer: the reader
 *
 * Owner details (pid, command name, pool offsets) of an object are shown
 * to the uid that created it and to CAP_NET_ADMIN, as ss(8) shows other
 * users' sockets without their processes.
 *
 * Context: Any context.
 * Return: true if @viewer may see them.
 */
bool snode_owner_visible(const struct snode_owner *owner,
			 const struct snode_viewer *viewer)
{
	return viewer->admin || uid_eq(owner->uid, viewer->uid);
}

/*
 * Per-user caps on each NIC: what one user's objects on one NIC may hold
 * together, through however many files, so that one member of group snode
 * cannot take every queue, endpoint, ATT entry, export entry or the pool
 * from the others. 0 lifts a cap.
 * Documentation/decisions/0008-permission-model.md.
 */
static unsigned int snode_quota_max[SNODE_QUOTA_NR] = {
	[SNODE_QUOTA_DMA_QUEUES] = 64,
	[SNODE_QUOTA_ENDPOINTS] = 32,
	[SNODE_QUOTA_IMPORTS] = 128,
	[SNODE_QUOTA_EXPORTS] = 128,
	[SNODE_QUOTA_POOL] = 0,
};
module_param_named(max_dma_queues, snode_quota_max[SNODE_QUOTA_DMA_QUEUES],
		   uint, 0644);
MODULE_PARM_DESC(max_dma_queues,
		 "DMA queues one user may hold on a NIC (0: no cap, default 64)");
module_param_named(max_endpoints, snode_quota_max[SNODE_QUOTA_ENDPOINTS],
		   uint, 0644);
MODULE_PARM_DESC(max_endpoints,
		 "endpoints one user may hold on a NIC (0: no cap, default 32)");
module_param_named(max_imports, snode_quota_max[SNODE_QUOTA_IMPORTS],
		   uint, 0644);
MODULE_PARM_DESC(max_imports,
		 "imports (ATT entries) one user may hold on a NIC (0: no cap, default 128)");
module_param_named(max_exports, snode_quota_max[SNODE_QUOTA_EXPORTS],
		   uint, 0644);
MODULE_PARM_DESC(max_exports,
		 "exports one user may hold on a NIC (0: no cap, default 128)");
module_param_named(max_pool_mib, snode_quota_max[SNODE_QUOTA_POOL],
		   uint, 0644);
MODULE_PARM_DESC(max_pool_mib,
		 "MiB of a NIC's pool one user may hold (0: no cap beyond the kernel's reserve, default 0)");

/* The cap of @kind for one user, in the unit of &snode_quota.used. */
static u64 snode_quota_cap(enum snode_quota_kind kind)
{
	u64 max = READ_ONCE(snode_quota_max[kind]);

	return kind == SNODE_QUOTA_POOL ? max << 20 : max;
}

/*
 * What all users together may hold of @kind: the NIC's table (or pool) less
 * the kernel's reserve. DMA queues have no table; the kernel's endpoint has
 * an id users never get (ep.c).
 */
static u64 snode_quota_room(struct snode_dev *sdev, enum snode_quota_kind kind)
{
	struct snode_id id;
	u64 size, reserve;

	snode_id_get(sdev, &id);
	switch (kind) {
	case SNODE_QUOTA_IMPORTS:
		size = id.att_entries;
		reserve = SNODE_RESERVE_IMPORTS;
		break;
	case SNODE_QUOTA_EXPORTS:
		size = id.export_entries;
		reserve = SNODE_RESERVE_EXPORTS;
		break;
	case SNODE_QUOTA_POOL:
		size = id.pool_size;
		reserve = SNODE_RESERVE_POOL;
		break;
	default:
		return U64_MAX;
	}
	return size > reserve ? size - reserve : 0;
}

/**
 * snode_quotas_init() - a NIC without users
 * @sdev: snode device
 *
 * Context: Process context (probe).
 */
void snode_quotas_init(struct snode_dev *sdev)
{
	spin_lock_init(&sdev->quotas.lock);
	INIT_LIST_HEAD(&sdev->quotas.list);
}

/**
 * snode_quota_get() - the quota of a user on a NIC
 * @sdev: snode device
 * @uid: the user
 *
 * Context: Process context.
 * Return: the quota with a reference taken, or NULL if out of memory.
 */
struct snode_quota *snode_quota_get(struct snode_dev *sdev, kuid_t uid)
{
	struct snode_quotas *qs = &sdev->quotas;
	struct snode_quota *quota, *new;
	unsigned long flags;

	new = kzalloc(sizeof(*new), GFP_KERNEL_ACCOUNT);
	if (!new)
		return NULL;
	spin_lock_irqsave(&qs->lock, flags);
	list_for_each_entry(quota, &qs->list, node) {
		/* one whose last reference went is unlisted soon: skip it */
		if (uid_eq(quota->uid, uid) && refcount_inc_not_zero(&quota->ref)) {
			spin_unlock_irqrestore(&qs->lock, flags);
			kfree(new);
			return quota;
		}
	}
	refcount_set(&new->ref, 1);
	new->sdev = sdev;
	new->uid = uid;
	get_device(&sdev->dev);
	list_add(&new->node, &qs->list);
	spin_unlock_irqrestore(&qs->lock, flags);
	return new;
}

/**
 * snode_quota_put() - drop a reference to a quota
 * @quota: the quota
 *
 * Context: Any context.
 */
void snode_quota_put(struct snode_quota *quota)
{
	struct snode_dev *sdev = quota->sdev;
	unsigned long flags;

	if (!refcount_dec_and_test(&quota->ref))
		return;
	spin_lock_irqsave(&sdev->quotas.lock, flags);
	list_del(&quota->node);
	spin_unlock_irqrestore(&sdev->quotas.lock, flags);
	kfree(quota);
	put_device(&sdev->dev);
}

/**
 * snode_owner_charge() - count an object against its user's quota
 * @owner: the object's owner, recorded by snode_owner_init()
 * @sfile: the file it is created through; its opener's quota is charged
 * @kind: what it is
 * @amount: 1, or its bytes for %SNODE_QUOTA_POOL
 *
 * snode_owner_put() uncharges it. Besides the user's cap, all users
 * together leave the kernel's reserve of the NIC's tables free, unless the
 * caller has CAP_SYS_RESOURCE (as the blocks ext4 reserves for root).
 *
 * Context: Process context.
 * Return: 0, -EMFILE if the user holds its cap of @kind already, or
 * -ENOSPC if the users' share of the NIC's table is taken.
 */
int snode_owner_charge(struct snode_owner *owner, struct snode_file *sfile,
		       enum snode_quota_kind kind, u64 amount)
{
	struct snode_quota *quota = sfile->quota;
	struct snode_quotas *qs = &quota->sdev->quotas;
	u64 max = snode_quota_cap(kind);

	if ((u64)atomic64_add_return(amount, &quota->used[kind]) > max && max) {
		atomic64_sub(amount, &quota->used[kind]);
		return -EMFILE;
	}
	if ((u64)atomic64_add_return(amount, &qs->users[kind]) >
	    snode_quota_room(quota->sdev, kind) &&
	    !capable(CAP_SYS_RESOURCE)) {
		atomic64_sub(amount, &qs->users[kind]);
		atomic64_sub(amount, &quota->used[kind]);
		return -ENOSPC;
	}
	refcount_inc(&quota->ref);
	owner->quota = quota;
	owner->kind = kind;
	owner->amount = amount;
	return 0;
}

/**
 * snode_owner_put() - forget an owner
 * @owner: recorded by snode_owner_init()
 *
 * Uncharges the object if snode_owner_charge() charged it.
 *
 * Context: Any context.
 */
void snode_owner_put(struct snode_owner *owner)
{
	put_pid(owner->pid);
	owner->pid = NULL;
	if (owner->quota) {
		struct snode_quota *quota = owner->quota;

		atomic64_sub(owner->amount, &quota->sdev->quotas.users[owner->kind]);
		atomic64_sub(owner->amount, &quota->used[owner->kind]);
		owner->quota = NULL;
		snode_quota_put(quota);
	}
}

/**
 * snode_owner_is_viewer() - is the reader of a listing the object's owner?
 * @owner: the object's owner
 * @viewer: the reader
 *
 * The reader's process created the object, and reads it on a socket its
 * own uid opened (a socket handed over by another uid shows nothing as
 * the reader's own).
 *
 * Context: Any context.
 * Return: true if the object is the reader's own.
 */
bool snode_owner_is_viewer(const struct snode_owner *owner,
			   const struct snode_viewer *viewer)
{
	return viewer->pid && owner->pid == viewer->pid;
}

/**
 * snode_owner_key_visible() - may the reader of a listing see a key?
 * @owner: the object's owner
 * @viewer: the reader
 *
 * Keys go to the owning process and to CAP_SYS_ADMIN (reader and socket).
 *
 * Context: Any context.
 * Return: true if @viewer may see the key.
 */
bool snode_owner_key_visible(const struct snode_owner *owner,
			     const struct snode_viewer *viewer)
{
	return viewer->keys || snode_owner_is_viewer(owner, viewer);
}
