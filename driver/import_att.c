// SPDX-License-Identifier: GPL-2.0
/*
 * snode: imports - the requester ATT (reserving, clearing, resyncing and
 * reconciling entries), revocation, and the events that cause it.
 */

#include <linux/poll.h>
#include <linux/slab.h>

#include "mem.h"
#include "trace.h"

/**
 * DOC: The requester ATT and revocation
 *
 * import_att.c keeps the ATT entries imports use (import.c creates the
 * imports, their files and mappings) and revokes imports.
 *
 * Revocation marks the import revoked and zaps every mapping of it under
 * &snode_import.lock held for write, so the fault path, which installs
 * entries under the same lock held for read, can never leave one behind.
 * The next access faults and gets SIGBUS, or the zero page for imports
 * that asked for it. poll() then reports EPOLLIN | EPOLLPRI | EPOLLERR and
 * SNODE_IOCTL_IMPORT_STATUS the reason. The causes:
 *
 * - WINDOW_REVOKED from the device: the exporter withdrew the export or
 *   closed its file, its device was reset, its node died, or no path to it
 *   is left. The device already invalidated the entry.
 * - NODE_STATE saying the exporter's node is dead or unreachable: the
 *   device revokes those windows itself, but an overflowing event queue
 *   may lose that event; the node's imports are revoked here as well and
 *   their entries cleared by &snode_mem.clear_work.
 * - This device is reset (reset_prepare) or unbound: every import.
 *
 * The events carry the entry's epoch, which is never reused, so a late
 * event for an entry that was freed and set again is recognised as stale.
 */

/* Free an entry's slot and aperture range. Caller holds mem->lock. */
void __snode_att_free(struct snode_mem *mem, u32 idx)
{
	struct snode_att_slot *slot = &mem->att[idx];

	lockdep_assert_held(&mem->lock);

	gen_pool_free(mem->aperture, mem->ap_phys + slot->ap_offset,
		      slot->ap_length);
	memset(slot, 0, sizeof(*slot));
	slot->state = SNODE_ATT_FREE;
	snode_mem_changed(mem);
}

/* Reserve the lowest free ATT entry and an aperture range for @imp. */
int snode_att_reserve(struct snode_mem *mem, struct snode_import *imp)
{
	struct genpool_data_align align = {
		.align = snode_map_window_align(imp->length),
	};
	u64 ap_length = round_up(imp->length, SNODE_APERTURE_ALIGN);
	struct snode_att_slot *slot = NULL;
	unsigned long addr;
	u32 idx;

	mutex_lock(&mem->lock);
	for (idx = 0; idx < mem->att_entries; idx++) {
		if (mem->att[idx].state == SNODE_ATT_FREE) {
			slot = &mem->att[idx];
			break;
		}
	}
	if (!slot)
		goto err_unlock;
	addr = gen_pool_alloc_algo(mem->aperture, ap_length,
				   gen_pool_first_fit_align, &align);
	if (!addr)
		goto err_unlock;

	slot->state = SNODE_ATT_PENDING;
	snode_mem_changed(mem);
	slot->imp = imp;
	slot->ap_offset = addr - mem->ap_phys;
	slot->ap_length = ap_length;
	slot->revoked_epoch = 0;
	imp->att_index = idx;
	imp->ap_offset = slot->ap_offset;
	mutex_unlock(&mem->lock);
	return 0;

err_unlock:
	mutex_unlock(&mem->lock);
	return -ENOSPC;
}

/*
 * Issue ATT_CLEAR for an entry in state CLEARING, then free it; keep it
 * stale if the device may still hold it, to be reconciled once the device
 * answers again if the command timed out.
 */
void snode_att_clear(struct snode_mem *mem, u32 idx)
{
	struct snode_admin_req req = {
		.cmd.opcode = SNODE_OP_ATT_CLEAR,
		.cmd.att_clear.index = cpu_to_le32(idx),
	};
	int ret;

	ret = snode_admin_exec(mem->sdev, &req);
	mutex_lock(&mem->lock);
	/* a device being reset or gone holds no entries afterwards */
	if (!ret || ret == -EAGAIN || ret == -ENODEV) {
		__snode_att_free(mem, idx);
	} else {
		mem->att[idx].state = SNODE_ATT_STALE;
		snode_mem_changed(mem);
		if (ret == -ETIMEDOUT)
			__snode_mem_reconcile_kick(mem);
		dev_warn_ratelimited(&mem->sdev->pdev->dev,
				     "ATT entry %u: ATT_CLEAR failed (%d); unused until reconciled or a reset\n",
				     idx, ret);
	}
	mutex_unlock(&mem->lock);
}

/*
 * Ask the device whether the active entry @idx still holds the mapping the
 * driver set; revoke the import if not (its WINDOW_REVOKED was lost).
 */
static void snode_att_resync(struct snode_mem *mem, u32 idx,
			     struct snode_att_info *info)
{
	struct snode_admin_req req = {
		.cmd.opcode = SNODE_OP_ATT_QUERY,
		.cmd.att_query.index = cpu_to_le32(idx),
		.data = info,
		.len = sizeof(*info),
		.dir = DMA_FROM_DEVICE,
	};
	struct snode_att_slot *slot = &mem->att[idx];
	u32 epoch, reason;

	mutex_lock(&mem->lock);
	if (slot->state != SNODE_ATT_ACTIVE) {
		mutex_unlock(&mem->lock);
		return;
	}
	epoch = slot->imp->epoch;
	mutex_unlock(&mem->lock);

	if (snode_admin_exec(mem->sdev, &req))
		return;
	if (info->valid && le32_to_cpu(info->epoch) == epoch)
		return;
	reason = le32_to_cpu(info->revoke_reason);
	if (reason < SNODE_REVOKE_REASON_UNEXPORT ||
	    reason > SNODE_REVOKE_REASON_UNREACHABLE)
		reason = SNODE_REVOKE_REASON_UNREACHABLE;

	mutex_lock(&mem->lock);
	if (slot->state == SNODE_ATT_ACTIVE && slot->imp->epoch == epoch)
		__snode_import_revoke(slot->imp, reason, true);
	mutex_unlock(&mem->lock);
}

/* Clear on the device every ATT entry in @state, one at a time. */
static void snode_att_clear_all(struct snode_mem *mem,
				enum snode_att_state state)
{
	u32 idx;

	for (idx = 0; idx < mem->att_entries; idx++) {
		mutex_lock(&mem->lock);
		if (mem->att[idx].state != state) {
			mutex_unlock(&mem->lock);
			continue;
		}
		mem->att[idx].state = SNODE_ATT_CLEARING;
		snode_mem_changed(mem);
		mutex_unlock(&mem->lock);
		snode_att_clear(mem, idx);
	}
}

/*
 * Clear every stale ATT entry and export. Only once no abandoned command is
 * outstanding: a late ATT_SET or EXPORT_SET could otherwise set an entry
 * again after its clear. A clear that times out again leaves the entry
 * stale for the next round, which its late answer starts.
 */
static void snode_mem_reconcile_stale(struct snode_mem *mem)
{
	if (!snode_admin_answered(mem->sdev))
		return;
	snode_att_clear_all(mem, SNODE_ATT_STALE);
	snode_exports_reconcile(mem);
}

/**
 * snode_att_clear_work() - clear the ATT entries event handlers revoked,
 *                          reconcile stale entries, and check every entry
 *                          after lost events
 * @work: &snode_mem.clear_work
 *
 * Context: Workqueue.
 */
void snode_att_clear_work(struct work_struct *work)
{
	struct snode_mem *mem = container_of(work, struct snode_mem,
					     clear_work);
	struct snode_att_info *info;
	bool resync, reconcile;
	u32 idx;

	snode_att_clear_all(mem, SNODE_ATT_CLEAR);
	mutex_lock(&mem->lock);
	resync = mem->resync;
	mem->resync = false;
	reconcile = mem->reconcile;
	mem->reconcile = false;
	mutex_unlock(&mem->lock);
	if (reconcile)
		snode_mem_reconcile_stale(mem);
	if (!resync)
		return;
	info = kzalloc(sizeof(*info), GFP_KERNEL);
	if (!info)
		return;
	for (idx = 0; idx < mem->att_entries; idx++)
		snode_att_resync(mem, idx, info);
	kfree(info);
}

/**
 * snode_mem_events_lost() - the event queue overflowed
 * @sdev: snode device
 *
 * WINDOW_REVOKED events may be among the lost ones: check every active
 * entry against the device (ATT_QUERY) from &snode_mem.clear_work.
 *
 * Context: Event IRQ thread.
 */
void snode_mem_events_lost(struct snode_dev *sdev)
{
	struct snode_mem *mem = READ_ONCE(sdev->mem);

	if (!mem)
		return;
	mutex_lock(&mem->lock);
	mem->resync = true;
	mutex_unlock(&mem->lock);
	schedule_work(&mem->clear_work);
}

/**
 * snode_mem_reconcile() - the device answered every abandoned command
 * @sdev: snode device
 *
 * The ATT entries and exports that timed-out commands left stale can be
 * cleared now (decision 0024); &snode_mem.clear_work does it.
 *
 * Context: Admin IRQ thread.
 */
void snode_mem_reconcile(struct snode_dev *sdev)
{
	struct snode_mem *mem = READ_ONCE(sdev->mem);

	if (!mem)
		return;
	mutex_lock(&mem->lock);
	__snode_mem_reconcile_kick(mem);
	mutex_unlock(&mem->lock);
}

/**
 * __snode_att_reset() - the device's ATT was wiped by a reset or removal
 * @mem: the device's global memory; no import holds an entry any more
 *
 * Entries waiting for ATT_CLEAR, and stale ones, are free now. Entries
 * being cleared are freed by their clearer.
 *
 * Context: Process context; caller holds @mem->lock.
 */
void __snode_att_reset(struct snode_mem *mem)
{
	u32 idx;

	lockdep_assert_held(&mem->lock);

	for (idx = 0; idx < mem->att_entries; idx++) {
		switch (mem->att[idx].state) {
		case SNODE_ATT_CLEAR:
		case SNODE_ATT_STALE:
			__snode_att_free(mem, idx);
			break;
		default:
			break;
		}
	}
}

/*
 * Revoke @imp: no mapping of it survives, and later faults see the new
 * state. @att_invalid: the device's entry is known to be invalid already,
 * else it is queued for ATT_CLEAR. Caller holds mem->lock.
 */
void __snode_import_revoke(struct snode_import *imp, u32 reason,
			   bool att_invalid)
{
	struct snode_mem *mem = imp->mem;
	struct snode_att_slot *slot;
	bool revoked = false;

	lockdep_assert_held(&mem->lock);

	down_write(&imp->lock);
	if (imp->state == SNODE_WINDOW_STATE_ACTIVE) {
		imp->state = SNODE_WINDOW_STATE_REVOKED;
		imp->reason = reason;
		trace_snode_window_revoke(imp->sdev, imp->att_index, reason,
					  imp->epoch);
		snode_mem_changed(mem);
		if (imp->file)
			unmap_mapping_range(imp->file->f_mapping, 0, 0, 1);
		revoked = true;
	}
	up_write(&imp->lock);

	/* copies still queued name the range: it goes with the file (dma.c) */
	if (imp->att_held && !imp->dma_busy) {
		imp->att_held = false;
		slot = &mem->att[imp->att_index];
		slot->imp = NULL;
		if (att_invalid) {
			__snode_att_free(mem, imp->att_index);
		} else {
			slot->state = SNODE_ATT_CLEAR;
			snode_mem_changed(mem);
			schedule_work(&mem->clear_work);
		}
	}
	if (revoked)
		wake_up_poll(&imp->wait, EPOLLIN | EPOLLRDNORM | EPOLLPRI |
			     EPOLLERR);
}

/**
 * snode_imports_revoke_all() - revoke every import of a device
 * @mem: the device's global memory
 * @reason: enum snode_revoke_reason
 *
 * For a reset or an unbind, which invalidate the device's ATT.
 *
 * Context: Process context.
 */
void snode_imports_revoke_all(struct snode_mem *mem, u32 reason)
{
	struct snode_import *imp;

	mutex_lock(&mem->lock);
	list_for_each_entry(imp, &mem->imports, mem_node)
		__snode_import_revoke(imp, reason, true);
	mutex_unlock(&mem->lock);
}

/**
 * snode_imports_revoke_node() - revoke the imports from one node
 * @mem: the device's global memory
 * @node: the exporter's node id
 * @reason: enum snode_revoke_reason
 *
 * Context: Process context (event thread).
 */
void snode_imports_revoke_node(struct snode_mem *mem, u32 node, u32 reason)
{
	struct snode_import *imp;

	mutex_lock(&mem->lock);
	list_for_each_entry(imp, &mem->imports, mem_node)
		if (imp->node_id == node)
			__snode_import_revoke(imp, reason, false);
	mutex_unlock(&mem->lock);
}

/**
 * snode_mem_window_event() - WINDOW_REVOKED: the device revoked a window
 * @sdev: snode device
 * @ev: the event
 *
 * Context: Event IRQ thread.
 */
void snode_mem_window_event(struct snode_dev *sdev, const struct snode_event *ev)
{
	const struct snode_event_window_revoked *data = (const void *)ev->data;
	u32 idx = le16_to_cpu(data->att_index);
	u32 reason = le16_to_cpu(data->reason);
	u32 epoch = le32_to_cpu(data->epoch);
	struct snode_mem *mem = READ_ONCE(sdev->mem);
	struct snode_att_slot *slot;

	if (!mem)
		return;
	/* reasons beyond the contract's are reported as the nearest one */
	if (reason < SNODE_REVOKE_REASON_UNEXPORT || reason > SNODE_REVOKE_REASON_UNREACHABLE)
		reason = SNODE_REVOKE_REASON_UNREACHABLE;

	mutex_lock(&mem->lock);
	if (idx >= mem->att_entries) {
		mutex_unlock(&mem->lock);
		dev_warn_ratelimited(&sdev->pdev->dev,
				     "WINDOW_REVOKED for ATT entry %u of %u\n",
				     idx, mem->att_entries);
		return;
	}
	slot = &mem->att[idx];
	if (slot->state == SNODE_ATT_PENDING) {
		/* the import compares epochs once ATT_SET completes */
		slot->revoked_epoch = epoch;
		slot->revoked_reason = reason;
	} else if (slot->state == SNODE_ATT_ACTIVE && slot->imp->epoch == epoch) {
		__snode_import_revoke(slot->imp, reason, true);
	}
	mutex_unlock(&mem->lock);
}

/**
 * snode_mem_node_event() - NODE_STATE: a node's state changed
 * @sdev: snode device
 * @ev: the event
 *
 * Context: Event IRQ thread.
 */
void snode_mem_node_event(struct snode_dev *sdev, const struct snode_event *ev)
{
	const struct snode_event_node_state *data = (const void *)ev->data;
	struct snode_mem *mem = READ_ONCE(sdev->mem);

	if (!mem || data->state == SNODE_NODE_UP)
		return;
	snode_imports_revoke_node(mem, le32_to_cpu(data->node),
				  data->state == SNODE_NODE_UNREACHABLE ?
				  SNODE_REVOKE_REASON_UNREACHABLE :
				  SNODE_REVOKE_REASON_NODE_DEAD);
}
