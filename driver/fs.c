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
 * Per-file caps, so that one member of group snode cannot take every
 * queue, endpoint, ATT entry or export entry of the NIC from the others.
 * 0 lifts a cap. Documentation/decisions/0008-permission-model.md.
 */
static unsigned int snode_quota_max[SNODE_QUOTA_NR] = {
	[SNODE_QUOTA_DMA_QUEUES] = 64,
	[SNODE_QUOTA_ENDPOINTS] = 32,
	[SNODE_QUOTA_IMPORTS] = 128,
	[SNODE_QUOTA_EXPORTS] = 128,
};
module_param_named(max_dma_queues, snode_quota_max[SNODE_QUOTA_DMA_QUEUES],
		   uint, 0644);
MODULE_PARM_DESC(max_dma_queues,
		 "DMA queues one open file may create (0: no cap, default 64)");
module_param_named(max_endpoints, snode_quota_max[SNODE_QUOTA_ENDPOINTS],
		   uint, 0644);
MODULE_PARM_DESC(max_endpoints,
		 "endpoints one open file may create (0: no cap, default 32)");
module_param_named(max_imports, snode_quota_max[SNODE_QUOTA_IMPORTS],
		   uint, 0644);
MODULE_PARM_DESC(max_imports,
		 "imports (ATT entries) one open file may create (0: no cap, default 128)");
module_param_named(max_exports, snode_quota_max[SNODE_QUOTA_EXPORTS],
		   uint, 0644);
MODULE_PARM_DESC(max_exports,
		 "exports one open file may create (0: no cap, default 128)");

/**
 * snode_quota_alloc() - the quota of a newly opened file
 *
 * Context: Process context.
 * Return: the quota with one reference, or NULL.
 */
struct snode_quota *snode_quota_alloc(void)
{
	struct snode_quota *quota;

	quota = kzalloc(sizeof(*quota), GFP_KERNEL_ACCOUNT);
	if (quota)
		refcount_set(&quota->ref, 1);
	return quota;
}

/**
 * snode_quota_put() - drop a reference to a quota
 * @quota: the quota
 *
 * Context: Any context.
 */
void snode_quota_put(struct snode_quota *quota)
{
	if (refcount_dec_and_test(&quota->ref))
		kfree(quota);
}

/**
 * snode_owner_charge() - count an object against its file's cap
 * @owner: the object's owner, recorded by snode_owner_init()
 * @sfile: the file it is created through
 * @kind: what it is
 *
 * snode_owner_put() uncharges it.
 *
 * Context: Process context.
 * Return: 0, or -EMFILE if the file holds its cap of @kind already.
 */
int snode_owner_charge(struct snode_owner *owner, struct snode_file *sfile,
		       enum snode_quota_kind kind)
{
	struct snode_quota *quota = sfile->quota;
	unsigned int max = READ_ONCE(snode_quota_max[kind]);

	if (atomic_inc_return(&quota->used[kind]) > max && max) {
		atomic_dec(&quota->used[kind]);
		return -EMFILE;
	}
	refcount_inc(&quota->ref);
	owner->quota = quota;
	owner->kind = kind;
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
		atomic_dec(&owner->quota->used[owner->kind]);
		snode_quota_put(owner->quota);
		owner->quota = NULL;
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
