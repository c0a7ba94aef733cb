// SPDX-License-Identifier: GPL-2.0
/*
 * snode: exports - the responder export table.
 */

#include <linux/bitmap.h>
#include <linux/random.h>
#include <linux/slab.h>
#include <linux/uaccess.h>

#include "mem.h"

/**
 * DOC: Exports
 *
 * An export makes a range of a pool allocation, or of its owner's own
 * memory (a host export, hostmem.c), importable under an export
 * id (the lowest free one, so ids are predictable on a fresh device) and a
 * 64-bit key, read-only or read-write, by every node or by a set of them.
 * &snode_mem.exports mirrors the device's export table; the entry of an
 * export holds a reference on its allocation, so the pool range is not
 * reused while the device may still grant access to it.
 *
 * Withdrawing an export (EXPORT_CLEAR) makes the device and the fabric
 * revoke every import of it on every node before the command completes.
 * When that cannot be confirmed while the device is live (the command
 * timed out or failed), the entry stays as SNODE_WINDOW_STATE_STALE, owned by
 * nobody, until a reset clears the device's table or, after a timeout,
 * until the device has answered every abandoned command and
 * snode_exports_reconcile() withdraws it again (decision 0024). A device
 * that is being reset, has failed or is gone has no exports left to
 * withdraw.
 *
 * A reset drops the device's exports; __snode_exports_reset_done()
 * programs the live ones again, so handles stay valid across a reset of
 * the exporter (importers are revoked with EXPORTER_RESET and import the
 * same handle again).
 */

/**
 * snode_export_free() - free an export that is out of the table
 * @exp: the export
 *
 * Context: Process context; must not hold &snode_mem.lock.
 */
void snode_export_free(struct snode_export *exp)
{
	if (exp->alloc)
		snode_alloc_put(exp->alloc);
	snode_hostmem_free(exp->host);
	bitmap_free(exp->nodemask);
	snode_owner_put(&exp->owner);
	kfree(exp);
}

/* Program @exp into the device. Caller holds sdev->rwsem. */
static int __snode_export_set(struct snode_mem *mem, struct snode_export *exp)
{
	struct snode_dev *sdev = mem->sdev;
	struct snode_admin_req req = {
		.cmd.opcode = SNODE_OP_EXPORT_SET,
		.cmd.export_set = {
			.export_id = cpu_to_le32(exp->id),
			.pool_offset_lo = cpu_to_le32(lower_32_bits(exp->pool_offset)),
			.pool_offset_hi = cpu_to_le32(upper_32_bits(exp->pool_offset)),
			.length_lo = cpu_to_le32(lower_32_bits(exp->length)),
			.length_hi = cpu_to_le32(upper_32_bits(exp->length)),
			.key_lo = cpu_to_le32(lower_32_bits(exp->key)),
			.key_hi = cpu_to_le32(upper_32_bits(exp->key)),
		},
		.dir = DMA_TO_DEVICE,
	};
	u32 *arr, i, words = 0, flags = SNODE_PERM_READ;
	size_t ext_len = 0;
	__le32 *mask;
	void *buf;
	int ret;

	lockdep_assert_held(&sdev->rwsem);

	if (exp->flags & SNODE_EXPORT_WRITE)
		flags |= SNODE_PERM_WRITE;
	if (exp->host) {
		/* the in buffer: the extent list, then the nodemask */
		ext_len = exp->host->nr_ext * sizeof(*exp->host->ext);
		flags |= SNODE_EXPORT_SET_HOST;
		req.cmd.export_set.extents = cpu_to_le32(exp->host->nr_ext);
	}
	if (exp->nodemask)
		words = BITS_TO_U32(mem->max_nodes);
	if (!ext_len && !words)
		goto exec;
	buf = kvzalloc(ext_len + words * sizeof(*mask), GFP_KERNEL);
	if (!buf)
		return -ENOMEM;
	if (ext_len)
		memcpy(buf, exp->host->ext, ext_len);
	if (words) {
		/* the device reads a little-endian bitmap, bit n = node n */
		mask = buf + ext_len;
		arr = kcalloc(words, sizeof(*arr), GFP_KERNEL);
		if (!arr) {
			kvfree(buf);
			return -ENOMEM;
		}
		bitmap_to_arr32(arr, exp->nodemask, mem->max_nodes);
		for (i = 0; i < words; i++)
			mask[i] = cpu_to_le32(arr[i]);
		kfree(arr);
		flags |= SNODE_EXPORT_SET_NODEMASK;
	}
	req.data = buf;
	req.len = ext_len + words * sizeof(*mask);
exec:
	req.cmd.export_set.flags = cpu_to_le32(flags);
	ret = __snode_admin_exec(sdev, &req);
	if (req.len)
		kvfree(req.data);
	return ret;
}

/* Copy and check the node list of an export into a bitmap. */
static int snode_export_nodes(struct snode_mem *mem,
			      const struct snode_mem_export *cmd,
			      unsigned long **nodemask)
{
	u32 *nodes;
	u32 i;
	int ret = 0;

	*nodemask = NULL;
	if (!(cmd->flags & SNODE_EXPORT_NODES))
		return cmd->nodes || cmd->nr_nodes ? -EINVAL : 0;
	if (!cmd->nr_nodes || cmd->nr_nodes > mem->max_nodes || !cmd->nodes)
		return -EINVAL;

	nodes = memdup_user(u64_to_user_ptr(cmd->nodes),
			    array_size(cmd->nr_nodes, sizeof(*nodes)));
	if (IS_ERR(nodes))
		return PTR_ERR(nodes);
	*nodemask = bitmap_zalloc(mem->max_nodes, GFP_KERNEL_ACCOUNT);
	if (!*nodemask) {
		ret = -ENOMEM;
		goto out;
	}
	for (i = 0; i < cmd->nr_nodes; i++) {
		if (nodes[i] >= mem->max_nodes) {
			ret = -EINVAL;
			break;
		}
		__set_bit(nodes[i], *nodemask);
	}
	if (ret) {
		bitmap_free(*nodemask);
		*nodemask = NULL;
	}
out:
	kfree(nodes);
	return ret;
}

/* Reserve the lowest free export id for @exp. */
static int snode_export_reserve(struct snode_mem *mem, struct snode_export *exp)
{
	int ret = -ENOSPC;
	u32 id;

	mutex_lock(&mem->lock);
	for (id = 0; id < mem->export_entries; id++) {
		if (!mem->exports[id]) {
			exp->id = id;
			exp->state = SNODE_WINDOW_STATE_PENDING;
			mem->exports[id] = exp;
			snode_mem_changed(mem);
			ret = 0;
			break;
		}
	}
	mutex_unlock(&mem->lock);
	return ret;
}

/*
 * Settle the table entry of @exp after a failed EXPORT_SET or
 * EXPORT_CLEAR: free it if the device does not hold it (or the device's
 * table is gone anyway), else keep it stale until a reset. Returns true if
 * the caller is to free @exp. Caller holds sdev->rwsem and mem->lock.
 */
static bool __snode_export_settle(struct snode_mem *mem,
				  struct snode_export *exp, bool on_device)
{
	lockdep_assert_held(&mem->sdev->rwsem);
	lockdep_assert_held(&mem->lock);

	if (exp->mfile) {
		list_del(&exp->file_node);
		exp->mfile = NULL;
	}
	exp->kernel = false;
	snode_mem_changed(mem);
	if (on_device) {
		exp->state = SNODE_WINDOW_STATE_STALE;
		return false;
	}
	mem->exports[exp->id] = NULL;
	return true;
}

/*
 * Put @exp, its range and key filled in, into the table and the device,
 * owned by @mfile or, for NULL, by the kernel. On failure @exp is freed.
 */
static int snode_export_add(struct snode_mem *mem, struct snode_export *exp,
			    struct snode_mem_file *mfile, u32 *node_id)
{
	struct snode_dev *sdev = mem->sdev;
	struct snode_id id;
	bool free_it = true;
	int ret;

	ret = snode_lock_live(sdev);
	if (ret)
		goto err_free;
	snode_id_get(sdev, &id);
	if (id.node_id == SNODE_NODE_ID_NONE) {
		ret = -ENOLINK;
		goto err_unlock_live;
	}
	ret = snode_export_reserve(mem, exp);
	if (ret)
		goto err_unlock_live;

	ret = __snode_export_set(mem, exp);
	mutex_lock(&mem->lock);
	if (ret) {
		/* a timed-out EXPORT_SET may still be applied: keep the id */
		free_it = __snode_export_settle(mem, exp,
						ret == -ETIMEDOUT);
		if (ret == -ETIMEDOUT)
			__snode_mem_reconcile_kick(mem);
	} else {
		exp->state = SNODE_WINDOW_STATE_ACTIVE;
		snode_mem_changed(mem);
		exp->mfile = mfile;
		exp->kernel = !mfile;
		if (mfile)
			list_add_tail(&exp->file_node, &mfile->exports);
	}
	mutex_unlock(&mem->lock);
	snode_unlock_live(sdev);
	if (ret)
		goto err_free;
	*node_id = id.node_id;
	return 0;

err_unlock_live:
	snode_unlock_live(sdev);
err_free:
	if (free_it)
		snode_export_free(exp);
	return ret;
}

/*
 * SNODE_EXPORT_HOST: pin [@cmd->offset, +@cmd->length) of the caller's
 * memory for @exp. Context: no lock held (takes mmap_lock).
 */
static int snode_export_host_pin(struct snode_mem *mem,
				 const struct snode_mem_export *cmd,
				 struct snode_export *exp)
{
	struct snode_hostmem *hm;

	if (cmd->alloc || cmd->offset + cmd->length < cmd->offset ||
	    cmd->length >= SNODE_GA_OFFSET_MAX)
		return -EINVAL;
	hm = snode_hostmem_pin(mem, cmd->offset, cmd->length,
			       cmd->flags & SNODE_EXPORT_WRITE);
	if (IS_ERR(hm))
		return PTR_ERR(hm);
	hm->uaddr = cmd->offset;
	exp->host = hm;
	return 0;
}

/**
 * snode_ioctl_mem_export() - SNODE_IOCTL_MEM_EXPORT: export a range
 * @ucmd: the call; &struct snode_mem_export
 *
 * A range of a pool allocation, or with SNODE_EXPORT_HOST a range of the
 * caller's own memory (hostmem.c).
 *
 * Context: Process context, sleeps while the fabric answers.
 * Return: 0 or a negative errno, as <linux/snode.h> documents.
 */
int snode_ioctl_mem_export(struct snode_ucmd *ucmd)
{
	struct snode_mem_export *cmd = ucmd->cmd;
	struct snode_mem_file *mfile = ucmd->sfile->mem;
	struct snode_mem *mem = mfile->mem;
	bool host = cmd->flags & SNODE_EXPORT_HOST;
	struct snode_export *exp;
	struct snode_alloc *alloc;
	u32 node_id;
	int ret;

	if (cmd->flags & ~(SNODE_EXPORT_WRITE | SNODE_EXPORT_RANDOM_KEY |
			   SNODE_EXPORT_NODES | SNODE_EXPORT_HOST) ||
	    cmd->__reserved)
		return -EOPNOTSUPP;
	if (!mem->export_entries || (host && !mem->max_host_extents))
		return -EOPNOTSUPP;
	if (!cmd->length || !PAGE_ALIGNED(cmd->length) ||
	    !PAGE_ALIGNED(cmd->offset) ||
	    ((cmd->flags & SNODE_EXPORT_RANDOM_KEY) && cmd->key))
		return -EINVAL;

	exp = kzalloc(sizeof(*exp), GFP_KERNEL_ACCOUNT);
	if (!exp)
		return -ENOMEM;
	exp->flags = cmd->flags & ~SNODE_EXPORT_RANDOM_KEY;
	exp->length = cmd->length;
	exp->key = cmd->flags & SNODE_EXPORT_RANDOM_KEY ? get_random_u64() :
							  cmd->key;
	snode_owner_init(&exp->owner);
	ret = snode_owner_charge(&exp->owner, ucmd->sfile, SNODE_QUOTA_EXPORTS,
				 1);
	if (ret)
		goto err_free;
	ret = snode_export_nodes(mem, cmd, &exp->nodemask);
	if (ret)
		goto err_free;
	if (host) {
		ret = snode_export_host_pin(mem, cmd, exp);
		if (ret)
			goto err_free;
	}

	mutex_lock(&mfile->ops_lock);
	if (!host) {
		alloc = snode_alloc_get(mfile, cmd->alloc);
		if (!alloc) {
			ret = -ENOENT;
			goto err_unlock_ops;
		}
		exp->alloc = alloc;
		if (cmd->offset >= alloc->length ||
		    cmd->length > alloc->length - cmd->offset) {
			ret = -EINVAL;
			goto err_unlock_ops;
		}
		exp->pool_offset = alloc->offset + cmd->offset;
	}

	ret = snode_export_add(mem, exp, mfile, &node_id);
	if (ret) {
		mutex_unlock(&mfile->ops_lock);
		return ret;
	}

	cmd->out_node = node_id;
	cmd->out_export_id = exp->id;
	cmd->out_key = exp->key;
	ret = snode_ucmd_respond(ucmd, sizeof(*cmd));
	if (ret && !__snode_unexport(mem, exp, NULL, false))
		snode_export_free(exp);
	mutex_unlock(&mfile->ops_lock);
	return ret;

err_unlock_ops:
	mutex_unlock(&mfile->ops_lock);
err_free:
	snode_export_free(exp);
	return ret;
}

/**
 * __snode_unexport() - withdraw an export from the device and the table
 * @mem: the device's global memory
 * @exp: an export in the table, owned by a file whose ops_lock the caller
 *       holds, or orphaned
 * @revoked: if not NULL, the number of importers the fabric revoked
 * @keep_unsent: if EXPORT_CLEAR never reached the device (no command slot,
 *               queue stopped, no memory, an injected fault), leave @exp
 *               as it was, active and owned, so that the caller may retry
 *
 * On success or when the device holds no table any more, @exp leaves the
 * table and the caller frees it with snode_export_free(). Otherwise it
 * stays, owned by nobody, as SNODE_WINDOW_STATE_STALE: the device may still
 * grant it.
 *
 * Context: Process context, sleeps; takes @mem->sdev->rwsem for read.
 * Return: 0 if the caller is to free @exp, else the errno of EXPORT_CLEAR.
 */
int __snode_unexport(struct snode_mem *mem, struct snode_export *exp,
		     u32 *revoked, bool keep_unsent)
{
	struct snode_dev *sdev = mem->sdev;
	struct snode_admin_req req = {
		.cmd.opcode = SNODE_OP_EXPORT_CLEAR,
		.cmd.export_clear.export_id = cpu_to_le32(exp->id),
		.status = U16_MAX,
	};
	bool free_it;
	int ret = 0;

	/*
	 * Not snode_lock_live(): whatever the state, the reset or removal
	 * that changed it either already dropped the device's table or waits
	 * for us, so the table and the device agree when we let go.
	 */
	down_read(&sdev->rwsem);
	if (sdev->state == SNODE_STATE_LIVE && exp->state != SNODE_WINDOW_STATE_LOST)
		ret = __snode_admin_exec(sdev, &req);
	if (ret && keep_unsent && ret != -ETIMEDOUT && req.status == U16_MAX) {
		/* the device never saw the command: nothing changed */
		up_read(&sdev->rwsem);
		return ret;
	}
	mutex_lock(&mem->lock);
	/* whatever else failed, the device may still grant it */
	free_it = __snode_export_settle(mem, exp, ret != 0);
	if (ret == -ETIMEDOUT)
		__snode_mem_reconcile_kick(mem);
	mutex_unlock(&mem->lock);
	up_read(&sdev->rwsem);

	if (ret)
		dev_warn_ratelimited(&sdev->pdev->dev,
				     "export %u: EXPORT_CLEAR failed (%d); its pool range stays reserved until reconciled or a reset\n",
				     exp->id, ret);
	if (revoked)
		*revoked = ret ? 0 : le32_to_cpu(req.cpl.export_clear.revoked);
	return free_it ? 0 : ret;
}

/**
 * snode_ioctl_mem_unexport() - SNODE_IOCTL_MEM_UNEXPORT: withdraw an export
 * @ucmd: the call; &struct snode_mem_unexport
 *
 * Context: Process context, sleeps while the fabric revokes the imports.
 * Return: 0 or a negative errno, as <linux/snode.h> documents.
 */
int snode_ioctl_mem_unexport(struct snode_ucmd *ucmd)
{
	struct snode_mem_unexport *cmd = ucmd->cmd;
	struct snode_mem_file *mfile = ucmd->sfile->mem;
	struct snode_mem *mem = mfile->mem;
	struct snode_export *exp = NULL;
	int ret;

	if (cmd->flags)
		return -EOPNOTSUPP;

	mutex_lock(&mfile->ops_lock);
	mutex_lock(&mem->lock);
	if (cmd->export_id < mem->export_entries &&
	    mem->exports[cmd->export_id] &&
	    mem->exports[cmd->export_id]->mfile == mfile)
		exp = mem->exports[cmd->export_id];
	mutex_unlock(&mem->lock);
	if (!exp) {
		mutex_unlock(&mfile->ops_lock);
		return -ENOENT;
	}
	ret = __snode_unexport(mem, exp, &cmd->out_revoked, true);
	mutex_unlock(&mfile->ops_lock);
	if (ret)
		return ret;
	snode_export_free(exp);
	return snode_ucmd_respond(ucmd, sizeof(*cmd));
}

/**
 * snode_exports_release() - withdraw the exports of a file
 * @mem: the device's global memory
 * @mfile: the owning file (being released, or its ops_lock held)
 * @alloc: only the exports of this allocation, or NULL for all
 *
 * Context: Process context, sleeps.
 */
void snode_exports_release(struct snode_mem *mem, struct snode_mem_file *mfile,
			   struct snode_alloc *alloc)
{
	struct snode_export *exp;

	for (;;) {
		bool found = false;

		mutex_lock(&mem->lock);
		list_for_each_entry(exp, &mfile->exports, file_node) {
			if (!alloc || exp->alloc == alloc) {
				found = true;
				break;
			}
		}
		mutex_unlock(&mem->lock);
		if (!found)
			return;
		/* leaves mfile->exports either way */
		if (!__snode_unexport(mem, exp, NULL, false))
			snode_export_free(exp);
	}
}

/*
 * Take export @exp, entry @id, out of the table if nothing owns it (no
 * file, not the kernel's); the caller frees it then.
 * Context: &snode_mem.lock held.
 * Return: true if it was taken out.
 */
static bool __snode_export_take_unowned(struct snode_mem *mem,
					struct snode_export *exp, u32 id)
{
	lockdep_assert_held(&mem->lock);
	if (!exp || exp->mfile || exp->kernel)
		return false;
	mem->exports[id] = NULL;
	snode_mem_changed(mem);
	return true;
}

/**
 * __snode_exports_reset_done() - restore the export table after a reset
 * @mem: the device's global memory
 *
 * Entries nobody owns are gone with the reset; owned ones are programmed
 * again, and those that fail become SNODE_WINDOW_STATE_LOST (retried at the
 * next reset; unexport just drops them).
 *
 * Context: Process context; caller holds @mem->sdev->rwsem for write.
 */
void __snode_exports_reset_done(struct snode_mem *mem)
{
	struct snode_export *exp;
	LIST_HEAD(gone);
	u32 id;
	int ret;

	lockdep_assert_held_write(&mem->sdev->rwsem);

	for (id = 0; id < mem->export_entries; id++) {
		mutex_lock(&mem->lock);
		exp = mem->exports[id];
		if (__snode_export_take_unowned(mem, exp, id)) {
			mutex_unlock(&mem->lock);
			snode_export_free(exp);
			continue;
		}
		mutex_unlock(&mem->lock);
		if (!exp)
			continue;

		/* only this function changes the state of owned entries now */
		ret = __snode_export_set(mem, exp);
		mutex_lock(&mem->lock);
		exp->state = ret ? SNODE_WINDOW_STATE_LOST : SNODE_WINDOW_STATE_ACTIVE;
		snode_mem_changed(mem);
		mutex_unlock(&mem->lock);
		if (ret)
			dev_warn(&mem->sdev->pdev->dev,
				 "export %u not restored after reset: %d\n",
				 id, ret);
	}
}

/**
 * snode_exports_reconcile() - withdraw the stale exports again
 * @mem: the device's global memory
 *
 * For exports left stale by a timed-out EXPORT_SET or EXPORT_CLEAR, once
 * the device answered every abandoned command: EXPORT_CLEAR of an id the
 * device does not hold succeeds as well, so each such export either leaves
 * the table, releasing its pool range, or stays stale for the next round
 * or reset. Holds @mem->sdev->rwsem for read throughout, so that no reset
 * frees an export under it.
 *
 * Context: Process context (&snode_mem.clear_work).
 */
void snode_exports_reconcile(struct snode_mem *mem)
{
	struct snode_dev *sdev = mem->sdev;
	struct snode_export *exp;
	u32 id;
	int ret;

	for (id = 0; id < mem->export_entries; id++) {
		struct snode_admin_req req = {
			.cmd.opcode = SNODE_OP_EXPORT_CLEAR,
			.cmd.export_clear.export_id = cpu_to_le32(id),
		};

		if (snode_lock_live(sdev))
			return;
		mutex_lock(&mem->lock);
		exp = mem->exports[id];
		if (exp && (exp->mfile || exp->kernel ||
			    exp->state != SNODE_WINDOW_STATE_STALE))
			exp = NULL;
		mutex_unlock(&mem->lock);
		if (!exp) {
			snode_unlock_live(sdev);
			continue;
		}
		ret = __snode_admin_exec(sdev, &req);
		mutex_lock(&mem->lock);
		if (!ret) {
			mem->exports[id] = NULL;
			snode_mem_changed(mem);
		} else if (ret == -ETIMEDOUT) {
			__snode_mem_reconcile_kick(mem);
		}
		mutex_unlock(&mem->lock);
		snode_unlock_live(sdev);
		if (!ret)
			snode_export_free(exp);
		else
			dev_warn_ratelimited(&sdev->pdev->dev,
					     "export %u: EXPORT_CLEAR failed again (%d)\n",
					     id, ret);
	}
}

/**
 * snode_exports_remove() - the device is gone: drop the unowned exports
 * @mem: the device's global memory, marked removed
 *
 * Owned exports leave the table when their file is released.
 *
 * Context: Process context (unbind).
 */
void snode_exports_remove(struct snode_mem *mem)
{
	struct snode_export *exp;
	u32 id;

	for (id = 0; id < mem->export_entries; id++) {
		mutex_lock(&mem->lock);
		exp = mem->exports[id];
		if (!__snode_export_take_unowned(mem, exp, id))
			exp = NULL;
		mutex_unlock(&mem->lock);
		if (exp)
			snode_export_free(exp);
	}
}

/**
 * snode_kexport() - export a range of a kernel allocation to one node
 * @alloc: from snode_kalloc()
 * @offset: start in @alloc, 4 KiB aligned
 * @length: bytes, a multiple of 4 KiB
 * @node: the only node that may import it
 *
 * The export is read-write, under a random key (&snode_export.key), owned
 * by the kernel: a reset restores it like a file's, and only
 * snode_kunexport() withdraws it.
 *
 * Context: Process context, sleeps while the fabric answers.
 * Return: the export, or an ERR_PTR(): -EOPNOTSUPP (no export table),
 * -EINVAL, -ENOSPC (table full), -ENOMEM, or the errno of EXPORT_SET.
 */
struct snode_export *snode_kexport(struct snode_alloc *alloc, u64 offset,
				   u64 length, u32 node)
{
	struct snode_mem *mem = alloc->mem;
	struct snode_export *exp;
	u32 node_id;
	int ret;

	if (!mem->export_entries)
		return ERR_PTR(-EOPNOTSUPP);
	if (!length || !PAGE_ALIGNED(length) || !PAGE_ALIGNED(offset) ||
	    offset >= alloc->length || length > alloc->length - offset ||
	    node >= mem->max_nodes)
		return ERR_PTR(-EINVAL);

	exp = kzalloc(sizeof(*exp), GFP_KERNEL);
	if (!exp)
		return ERR_PTR(-ENOMEM);
	exp->flags = SNODE_EXPORT_WRITE | SNODE_EXPORT_NODES;
	exp->length = length;
	exp->key = get_random_u64();
	snode_owner_init_kernel(&exp->owner);
	exp->nodemask = bitmap_zalloc(mem->max_nodes, GFP_KERNEL);
	if (!exp->nodemask) {
		snode_export_free(exp);
		return ERR_PTR(-ENOMEM);
	}
	__set_bit(node, exp->nodemask);
	kref_get(&alloc->kref);
	exp->alloc = alloc;
	exp->pool_offset = alloc->offset + offset;

	ret = snode_export_add(mem, exp, NULL, &node_id);
	return ret ? ERR_PTR(ret) : exp;
}

/**
 * snode_kunexport() - withdraw an export of snode_kexport()
 * @exp: the export; gone after the call
 *
 * Every import of it is revoked before this returns, unless the device
 * does not answer: then the entry stays stale, its pool range reserved,
 * until reconciled or a reset (__snode_unexport()).
 *
 * Context: Process context, sleeps.
 */
void snode_kunexport(struct snode_export *exp)
{
	if (!__snode_unexport(exp->alloc->mem, exp, NULL, false))
		snode_export_free(exp);
}
