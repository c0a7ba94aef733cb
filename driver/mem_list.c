// SPDX-License-Identifier: GPL-2.0
/*
 * snode: global memory as others see it - the listings of the "snode"
 * family's window dumps, and the debugfs files.
 */

#include <linux/debugfs.h>
#include <linux/seq_file.h>

#include "mem.h"

/**
 * DOC: Global memory listings
 *
 * mem_list.c snapshots the tables of global memory (allocations, exports,
 * imports, the ATT) for the "snode" family's window dumps
 * (snode_mem_list()), each entry judged against its reader (owner
 * details, offsets and keys only for whom decision 0008 allows), and
 * renders the same tables in debugfs (mem/pool, mem/exports, mem/imports,
 * mem/att). mem.c's DOC describes the tables and their locking.
 */

/* ---- listing ----------------------------------------------------------- */

/* Fill in the owner; false if @viewer may not see it (and the offsets). */
static bool snode_entry_owner(struct snode_mem_entry *e,
			      const struct snode_owner *owner,
			      const struct snode_viewer *viewer)
{
	if (snode_owner_is_viewer(owner, viewer))
		e->flags |= SNODE_ENTRY_OWN;
	if (!snode_owner_visible(owner, viewer)) {
		e->flags |= SNODE_ENTRY_HIDDEN;
		return false;
	}
	e->pid = pid_vnr(owner->pid);
	strscpy(e->comm, owner->comm, sizeof(e->comm));
	return true;
}

static void snode_entry_key(struct snode_mem_entry *e,
			    const struct snode_owner *owner, u64 key,
			    const struct snode_viewer *viewer)
{
	if (snode_owner_key_visible(owner, viewer)) {
		e->key = key;
		e->flags |= SNODE_ENTRY_KEY;
	}
}

static void snode_entry_import(struct snode_mem_entry *e,
			       struct snode_import *imp,
			       const struct snode_viewer *viewer)
{
	e->node = imp->node_id;
	e->export_id = imp->export_id;
	e->att_index = imp->att_index;
	e->epoch = imp->epoch;
	e->length = imp->length;
	e->aperture_offset = imp->ap_offset;
	if (imp->flags & SNODE_IMPORT_WRITE)
		e->flags |= SNODE_ENTRY_WRITE;
	if (imp->flags & SNODE_IMPORT_ZERO_PAGE_ON_REVOKE)
		e->flags |= SNODE_ENTRY_ZERO_PAGE;
	if (snode_entry_owner(e, &imp->owner, viewer))
		e->offset = imp->offset;
	snode_entry_key(e, &imp->owner, imp->key, viewer);
}

/*
 * Fill up to @max entries of @type into @out (if not NULL); return how
 * many exist.
 */
static u32 __snode_mem_list(struct snode_mem *mem, u32 type, u32 node_id,
			    const struct snode_viewer *viewer,
			    struct snode_mem_entry *out, u32 max)
{
	struct snode_mem_entry *e;
	struct snode_import *imp;
	struct snode_alloc *alloc;
	u32 n = 0, i;

	lockdep_assert_held(&mem->lock);

#define SNODE_LIST_NEXT()						\
	({								\
		e = n < max ? &out[n] : NULL;				\
		n++;							\
		if (e) {						\
			memset(e, 0, sizeof(*e));			\
			e->att_index = U32_MAX;				\
		}							\
		e;							\
	})

	switch (type) {
	case SNODE_MEM_LIST_ALLOCS:
		list_for_each_entry(alloc, &mem->allocs, mem_node) {
			if (!SNODE_LIST_NEXT())
				continue;
			e->state = alloc->mfile || alloc->kernel ?
				   SNODE_WINDOW_STATE_ACTIVE :
				   SNODE_WINDOW_STATE_FREED;
			e->node = node_id;
			e->length = alloc->length;
			if (snode_entry_owner(e, &alloc->owner, viewer))
				e->offset = alloc->offset;
		}
		break;
	case SNODE_MEM_LIST_EXPORTS:
		for (i = 0; i < mem->export_entries; i++) {
			struct snode_export *exp = mem->exports[i];

			if (!exp || !SNODE_LIST_NEXT())
				continue;
			e->state = exp->state;
			e->node = node_id;
			e->export_id = exp->id;
			e->length = exp->length;
			if (exp->flags & SNODE_EXPORT_WRITE)
				e->flags |= SNODE_ENTRY_WRITE;
			if (exp->nodemask)
				e->flags |= SNODE_ENTRY_NODES;
			if (snode_entry_owner(e, &exp->owner, viewer))
				e->offset = exp->pool_offset;
			snode_entry_key(e, &exp->owner, exp->key, viewer);
		}
		break;
	case SNODE_MEM_LIST_IMPORTS:
		list_for_each_entry(imp, &mem->imports, mem_node) {
			if (!SNODE_LIST_NEXT())
				continue;
			snode_entry_import(e, imp, viewer);
			down_read(&imp->lock);
			e->state = imp->state == SNODE_WINDOW_STATE_ACTIVE ?
				   SNODE_WINDOW_STATE_ACTIVE :
				   SNODE_WINDOW_STATE_REVOKED;
			e->reason = imp->reason;
			up_read(&imp->lock);
		}
		break;
	case SNODE_MEM_LIST_ATT:
		for (i = 0; i < mem->att_entries; i++) {
			struct snode_att_slot *slot = &mem->att[i];

			if (slot->state == SNODE_ATT_FREE || !SNODE_LIST_NEXT())
				continue;
			if (slot->imp)
				snode_entry_import(e, slot->imp, viewer);
			e->att_index = i;
			e->aperture_offset = slot->ap_offset;
			switch (slot->state) {
			case SNODE_ATT_PENDING:
				e->state = SNODE_WINDOW_STATE_PENDING;
				break;
			case SNODE_ATT_ACTIVE:
				e->state = SNODE_WINDOW_STATE_ACTIVE;
				break;
			default:
				e->state = SNODE_WINDOW_STATE_STALE;
				break;
			}
		}
		break;
	}
#undef SNODE_LIST_NEXT
	return n;
}

/**
 * snode_mem_gen() - generation of a device's window tables
 * @sdev: snode device
 *
 * Context: Any context.
 * Return: a number that changes whenever an export, import or ATT entry
 * comes, goes or changes state (0 for a device without global memory).
 */
unsigned int snode_mem_gen(struct snode_dev *sdev)
{
	struct snode_mem *mem = READ_ONCE(sdev->mem);

	return mem ? atomic_read(&mem->gen) : 0;
}

/**
 * snode_mem_pool_free() - bytes of a device's pool not allocated
 * @sdev: snode device with global memory
 *
 * Context: Any context.
 * Return: the free bytes, 0 without a pool.
 */
u64 snode_mem_pool_free(struct snode_dev *sdev)
{
	struct snode_mem *mem = READ_ONCE(sdev->mem);

	return mem && mem->pool ? gen_pool_avail(mem->pool) : 0;
}

/**
 * snode_mem_list() - snapshot one of the global-memory tables
 * @sdev: snode device
 * @type: SNODE_MEM_LIST_*
 * @out: where to write up to @max entries, or NULL to count them
 * @max: room in @out
 * @viewer: who asks; owner details and pool offsets of objects of other
 *          users are withheld (snode_owner_visible())
 *
 * For the netlink family's window dump: pids in the reader's pid
 * namespace, keys only where the reader may see them.
 *
 * Context: Process context; takes &snode_mem.lock.
 * Return: the number of entries that exist.
 */
u32 snode_mem_list(struct snode_dev *sdev, u32 type,
		   struct snode_mem_entry *out, u32 max,
		   const struct snode_viewer *viewer)
{
	struct snode_mem *mem = sdev->mem;
	struct snode_id id;
	u32 n;

	if (!mem)
		return 0;
	snode_id_get(sdev, &id);
	mutex_lock(&mem->lock);
	n = __snode_mem_list(mem, type, id.node_id, viewer, out, max);
	mutex_unlock(&mem->lock);
	return n;
}

/* ---- debugfs ----------------------------------------------------------- */

static void snode_seq_owner(struct seq_file *s, const struct snode_owner *o)
{
	seq_printf(s, " pid %d comm %s\n", pid_nr(o->pid), o->comm);
}

static int snode_mem_pool_show(struct seq_file *s, void *unused)
{
	struct snode_mem *mem = s->private;
	struct snode_alloc *alloc;

	seq_printf(s, "size %llu free %zu coherent %d\n", mem->pool_size,
		   mem->pool ? gen_pool_avail(mem->pool) : 0, mem->coherent);
	mutex_lock(&mem->lock);
	list_for_each_entry(alloc, &mem->allocs, mem_node) {
		seq_printf(s, "alloc offset 0x%llx length 0x%llx refs %u %s",
			   alloc->offset, alloc->length,
			   kref_read(&alloc->kref),
			   alloc->mfile ? "owned" :
			   alloc->kernel ? "kernel" : "freed");
		snode_seq_owner(s, &alloc->owner);
	}
	mutex_unlock(&mem->lock);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(snode_mem_pool);

static int snode_mem_exports_show(struct seq_file *s, void *unused)
{
	struct snode_mem *mem = s->private;
	u32 i;

	mutex_lock(&mem->lock);
	for (i = 0; i < mem->export_entries; i++) {
		struct snode_export *exp = mem->exports[i];

		if (!exp)
			continue;
		if (exp->host)
			seq_printf(s, "export %u state %u %s host extents %u pinned %llu length 0x%llx key 0x%016llx nodes %s",
				   exp->id, exp->state,
				   exp->flags & SNODE_EXPORT_WRITE ? "rw" : "r",
				   exp->host->nr_ext,
				   (u64)exp->host->nr_pages << PAGE_SHIFT,
				   exp->length, exp->key,
				   exp->nodemask ? "some" : "all");
		else
			seq_printf(s, "export %u state %u %s pool 0x%llx length 0x%llx key 0x%016llx nodes %s",
				   exp->id, exp->state,
				   exp->flags & SNODE_EXPORT_WRITE ? "rw" : "r",
				   exp->pool_offset, exp->length, exp->key,
				   exp->nodemask ? "some" : "all");
		snode_seq_owner(s, &exp->owner);
	}
	mutex_unlock(&mem->lock);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(snode_mem_exports);

static int snode_mem_imports_show(struct seq_file *s, void *unused)
{
	struct snode_mem *mem = s->private;
	struct snode_import *imp;

	mutex_lock(&mem->lock);
	list_for_each_entry(imp, &mem->imports, mem_node) {
		down_read(&imp->lock);
		seq_printf(s, "import node %u export %u key 0x%016llx offset 0x%llx length 0x%llx %s att %u aperture 0x%llx epoch %u state %u reason %u",
			   imp->node_id, imp->export_id, imp->key, imp->offset,
			   imp->length,
			   imp->flags & SNODE_IMPORT_WRITE ? "rw" : "r",
			   imp->att_index, imp->ap_offset, imp->epoch,
			   imp->state, imp->reason);
		up_read(&imp->lock);
		snode_seq_owner(s, &imp->owner);
	}
	mutex_unlock(&mem->lock);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(snode_mem_imports);

static const char *const snode_att_state_names[] = {
	[SNODE_ATT_FREE] = "free",
	[SNODE_ATT_PENDING] = "pending",
	[SNODE_ATT_ACTIVE] = "active",
	[SNODE_ATT_CLEAR] = "clear",
	[SNODE_ATT_CLEARING] = "clearing",
	[SNODE_ATT_STALE] = "stale",
};

/* The driver's ATT next to the device's own (ATT_QUERY). */
static int snode_mem_att_show(struct seq_file *s, void *unused)
{
	struct snode_mem *mem = s->private;
	struct snode_dev *sdev = mem->sdev;
	struct snode_att_info *info;
	u32 i;

	info = kzalloc(sizeof(*info), GFP_KERNEL);
	if (!info)
		return -ENOMEM;
	for (i = 0; i < mem->att_entries; i++) {
		struct snode_admin_req req = {
			.cmd.opcode = SNODE_OP_ATT_QUERY,
			.cmd.att_query.index = cpu_to_le32(i),
			.data = info,
			.len = sizeof(*info),
			.dir = DMA_FROM_DEVICE,
		};
		enum snode_att_state state;
		struct snode_owner owner = {};
		u32 node = 0, export_id = 0;
		bool dev_ok;

		mutex_lock(&mem->lock);
		state = mem->att[i].state;
		if (mem->att[i].imp) {
			node = mem->att[i].imp->node_id;
			export_id = mem->att[i].imp->export_id;
			owner = mem->att[i].imp->owner;
			owner.pid = get_pid(owner.pid);
		}
		mutex_unlock(&mem->lock);

		dev_ok = !snode_admin_exec(sdev, &req);
		if (state == SNODE_ATT_FREE && (!dev_ok || !info->valid)) {
			put_pid(owner.pid);
			continue;
		}
		seq_printf(s, "att %u driver %s", i, snode_att_state_names[state]);
		if (owner.pid)
			seq_printf(s, " node %u export %u", node, export_id);
		if (dev_ok)
			seq_printf(s, " device %s node %u export %u aperture 0x%llx length 0x%llx epoch %u reason %u",
				   info->valid ? "valid" : "invalid",
				   le32_to_cpu(info->node),
				   le32_to_cpu(info->export_id),
				   le64_to_cpu(info->aperture_offset),
				   le64_to_cpu(info->length),
				   le32_to_cpu(info->epoch),
				   le32_to_cpu(info->revoke_reason));
		else
			seq_puts(s, " device unknown");
		if (owner.pid)
			snode_seq_owner(s, &owner);
		else
			seq_putc(s, '\n');
		put_pid(owner.pid);
	}
	kfree(info);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(snode_mem_att);

/**
 * snode_mem_debugfs_add() - debugfs files of global memory
 * @sdev: snode device, its debugfs directory created
 *
 * mem/pool, mem/exports, mem/imports and mem/att under the device's
 * directory; they go with it on unbind.
 *
 * Context: Process context (probe).
 */
void snode_mem_debugfs_add(struct snode_dev *sdev)
{
	struct snode_mem *mem = sdev->mem;
	struct dentry *dir;

	if (!mem || IS_ERR_OR_NULL(sdev->debugfs))
		return;
	dir = debugfs_create_dir("mem", sdev->debugfs);
	debugfs_create_file("pool", 0400, dir, mem, &snode_mem_pool_fops);
	debugfs_create_file("exports", 0400, dir, mem,
			    &snode_mem_exports_fops);
	debugfs_create_file("imports", 0400, dir, mem,
			    &snode_mem_imports_fops);
	debugfs_create_file("att", 0400, dir, mem, &snode_mem_att_fops);
}
