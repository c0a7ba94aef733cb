/* SPDX-License-Identifier: GPL-2.0 */
/*
 * snode: global memory, shared by mem.c, mem_list.c, export.c, import.c,
 * import_att.c and map.c.
 */
#ifndef _SNODE_MEM_H_
#define _SNODE_MEM_H_

#include <linux/genalloc.h>
#include <linux/kref.h>
#include <linux/list.h>
#include <linux/mm.h>
#include <linux/mutex.h>
#include <linux/pid.h>
#include <linux/rwsem.h>
#include <linux/scatterlist.h>
#include <linux/sched.h>
#include <linux/wait.h>

#include <linux/snode.h>

#include "snode.h"

/* Windows start on a 2 MiB boundary of the aperture (ATT_SET rule). */
#define SNODE_APERTURE_ALIGN	SZ_2M
/* Pool allocations of a multiple of this are aligned to it. */
#define SNODE_POOL_HUGE_ALIGN	SZ_2M
/* Global addresses carry 40 bits of offset: no export is bigger. */
#define SNODE_GA_OFFSET_MAX	BIT_ULL(40)

/**
 * struct snode_alloc - a range of the local pool
 * @kref: held by the owning file's table, each export and each VMA
 * @mem: the device's global memory
 * @mfile: the owning file; NULL once freed by its owner, or for the kernel's
 * @kernel: allocated by snode_kalloc(), until snode_kfree()
 * @file_node: entry in &snode_mem_file.allocs while @mfile is set
 * @mem_node: entry in &snode_mem.allocs until the last reference goes
 * @offset: offset in the pool
 * @length: bytes
 * @owner: creator
 *
 * @mfile and the list entries are protected by &snode_mem.lock.
 */
struct snode_alloc {
	struct kref kref;
	struct snode_mem *mem;
	struct snode_mem_file *mfile;
	bool kernel;
	struct list_head file_node;
	struct list_head mem_node;
	u64 offset;
	u64 length;
	struct snode_owner owner;
};

/**
 * struct snode_hostmem - the pinned pages of a host export (hostmem.c)
 * @dev: the device the pages are DMA-mapped for (a reference)
 * @mm: the owner's mm (mmgrab()), charged for @nr_pages
 * @pages: the pinned pages, @nr_pinned of @nr_pages
 * @nr_pages: pages of the range
 * @nr_pinned: pages pinned so far
 * @charged: @nr_pages are charged to @mm's locked_vm
 * @writable: pinned for peers' stores (unpinned dirty)
 * @mapped: @sgt is DMA-mapped
 * @dir: its direction
 * @sgt: the pages, physically contiguous runs merged
 * @ext: the extent list EXPORT_SET carries, @nr_ext entries
 * @nr_ext: extents
 * @uaddr: the range's start in the owner's address space (for listings)
 *
 * Immutable once pinned; freed with the export.
 */
struct snode_hostmem {
	struct device *dev;
	struct mm_struct *mm;
	struct page **pages;
	unsigned long nr_pages;
	unsigned long nr_pinned;
	bool charged;
	bool writable;
	bool mapped;
	enum dma_data_direction dir;
	struct sg_table sgt;
	struct snode_host_extent *ext;
	u32 nr_ext;
	u64 uaddr;
};

/**
 * struct snode_export - an entry of the device's export table
 * @alloc: the exported allocation; the export holds a reference, so the
 *         pool range is not reused while the device may still grant it;
 *         NULL for a host export
 * @host: a host export's pinned pages, NULL for a pool export; freed with
 *        the export, so never before the device dropped the entry
 * @mfile: the owning file; NULL once orphaned, or for the kernel's
 * @kernel: owned by the kernel (snode_kexport()) until orphaned
 * @file_node: entry in &snode_mem_file.exports while @mfile is set
 * @id: export id, index in &snode_mem.exports
 * @flags: enum snode_mem_export_flags (RANDOM_KEY cleared)
 * @state: SNODE_WINDOW_STATE_ACTIVE, _FREED (orphaned: the owner is gone but
 *         the device did not confirm withdrawing it), _STALE (the device
 *         failed to withdraw it; kept until reconciled or a reset) or
 *         _LOST (a reset dropped it and restoring it failed)
 * @pool_offset: start in the pool
 * @length: bytes
 * @key: the key importers present
 * @nodemask: nodes that may import, &snode_mem.max_nodes bits; NULL for
 *            every node
 * @owner: creator
 *
 * Everything but the immutable @id, @pool_offset, @length, @key and
 * @nodemask is protected by &snode_mem.lock.
 */
struct snode_export {
	struct snode_alloc *alloc;
	struct snode_hostmem *host;
	struct snode_mem_file *mfile;
	bool kernel;
	struct list_head file_node;
	u32 id;
	u32 flags;
	enum snode_window_state state;
	u64 pool_offset;
	u64 length;
	u64 key;
	unsigned long *nodemask;
	struct snode_owner owner;
};

/* State of an ATT entry as the driver sees it. */
enum snode_att_state {
	SNODE_ATT_FREE,
	SNODE_ATT_PENDING,	/* ATT_SET in flight */
	SNODE_ATT_ACTIVE,	/* valid, owned by an import */
	SNODE_ATT_CLEAR,	/* may be valid, needs ATT_CLEAR (clear_work) */
	SNODE_ATT_CLEARING,	/* ATT_CLEAR in flight */
	SNODE_ATT_STALE,	/* the device may hold it; unused until reconciled */
};

/**
 * struct snode_att_slot - the driver's copy of one ATT entry
 * @state: enum snode_att_state
 * @imp: the import using the entry (PENDING, ACTIVE)
 * @ap_offset: the aperture range the entry covers, reserved while the
 *             state is not FREE
 * @ap_length: its length (a multiple of 2 MiB)
 * @revoked_epoch: epoch of a WINDOW_REVOKED that arrived while PENDING
 * @revoked_reason: its reason
 *
 * Protected by &snode_mem.lock.
 */
struct snode_att_slot {
	enum snode_att_state state;
	struct snode_import *imp;
	u64 ap_offset;
	u64 ap_length;
	u32 revoked_epoch;
	u32 revoked_reason;
};

/**
 * struct snode_import - a window onto another node's export
 * @mem: the device's global memory
 * @sdev: the device; the import holds a reference
 * @file: the import's file; its inode's address_space is the import's own;
 *        NULL for the kernel's (snode_kimport())
 * @mem_node: entry in &snode_mem.imports (protected by &snode_mem.lock)
 * @node_id: the handle's node
 * @export_id: the handle's export id
 * @key: the handle's key
 * @offset: the window's offset inside the export
 * @length: the window's length
 * @flags: enum snode_mem_import_flags
 * @att_index: the ATT entry
 * @ap_offset: the window's offset in the aperture
 * @epoch: epoch of the mapping, from ATT_SET
 * @owner: creator
 * @lock: protects @state and @reason; held for read by the fault path
 *        while it installs page table entries and for write while
 *        revoking, so that no entry survives a revocation
 * @state: enum snode_window_state
 * @reason: enum snode_revoke_reason
 * @att_held: the ATT entry and aperture range are still reserved
 *            (protected by &snode_mem.lock)
 * @dma_busy: DMA copies in flight through the window (protected by
 *            &snode_mem.lock); while there are any, a revocation keeps
 *            the entry and the aperture range reserved until the file is
 *            released, so that no queued copy can reach another window;
 *            a kernel import holds one for its life, as its user may
 *            store through the window until snode_kimport_release()
 * @wait: poll() waiters, woken on revocation
 *
 * Everything above @lock is set before the import is published and never
 * changes afterwards.
 */
struct snode_import {
	struct snode_mem *mem;
	struct snode_dev *sdev;
	struct file *file;
	struct list_head mem_node;
	u32 node_id;
	u32 export_id;
	u64 key;
	u64 offset;
	u64 length;
	u32 flags;
	u32 att_index;
	u64 ap_offset;
	u32 epoch;
	struct snode_owner owner;

	/* protects state and reason; write held while zapping */
	struct rw_semaphore lock;
	enum snode_window_state state;
	u32 reason;
	bool att_held;
	unsigned int dma_busy;
	wait_queue_head_t wait;
};

/**
 * struct snode_mem_file - global memory owned by one open /dev/snodeN
 * @mem: the device's global memory
 * @mem_node: entry in &snode_mem.files
 * @inode: a private inode whose address_space the file's mappings of the
 *         pool hang off, so that an unbind can zap them
 * @allocs: its allocations
 * @exports: its exports
 * @ops_lock: serialises the file's alloc, free, export and unexport
 *
 * The lists are protected by &snode_mem.lock.
 */
struct snode_mem_file {
	struct snode_mem *mem;
	struct list_head mem_node;
	struct inode *inode;
	struct list_head allocs;
	struct list_head exports;
	/* serialises the file's alloc, free, export and unexport */
	struct mutex ops_lock;
};

/**
 * struct snode_mem - global memory of one NIC
 * @sdev: the device
 * @pool_phys: CPU physical address of BAR4
 * @pool_size: pool bytes (BAR4 size, clamped to IDENTIFY's pool_size)
 * @ap_phys: CPU physical address of BAR2
 * @ap_size: aperture bytes
 * @att_entries: ATT entries
 * @export_entries: export table entries
 * @max_host_extents: extents of one host export, 0: none (hostmem.c)
 * @max_nodes: node ids are below this
 * @coherent: CAP.COHERENT: map write-back, else write-combining
 * @pool_va: kernel mapping of the pool, for zeroing (write-back)
 * @pool_io: kernel mapping of the pool, for zeroing (write-combining)
 * @ap_va: kernel mapping of the aperture (write-back, coherent only), for
 *         kernel imports
 * @pool: free ranges of the pool (genalloc locks itself)
 * @aperture: free ranges of the aperture (genalloc locks itself)
 * @map_lock: protects @removed and @pool_blocked for the pool mappings'
 *            fault path; held for write while zapping them
 * @gen: generation of the export, import and ATT tables: changes with
 *       every entry's arrival, departure or state (snode_mem_changed())
 * @pool_blocked: a reset is under way or failed: pool mappings are zapped
 *                and faults on them raise SIGBUS until the device is live
 *                again; written with @map_lock held for write
 * @lock: protects everything below, @removed, and the members of the
 *        objects documented as protected by it
 * @removed: the device was unbound; written with both locks held
 * @files: open files, &struct snode_mem_file
 * @allocs: every allocation still referenced
 * @imports: every import not yet released
 * @att: ATT entries, @att_entries of them
 * @exports: export table, @export_entries pointers, NULL when free
 * @resync: events were lost; @clear_work checks every entry
 * @reconcile: an admin command timed out or was answered late; once the
 *             device answered every one, @clear_work clears the stale ATT
 *             entries and exports (decision 0024)
 * @clear_work: issues the ATT_CLEARs that event handlers cannot
 * @debugfs: the "mem" directory of the device's debugfs
 */
struct snode_mem {
	struct snode_dev *sdev;
	phys_addr_t pool_phys;
	u64 pool_size;
	phys_addr_t ap_phys;
	u64 ap_size;
	u32 att_entries;
	u32 export_entries;
	u32 max_host_extents;
	u32 max_nodes;
	bool coherent;
	void *pool_va;
	void __iomem *pool_io;
	void *ap_va;
	struct gen_pool *pool;
	struct gen_pool *aperture;
	atomic_t gen;

	/* protects removed and pool_blocked for the pool fault path */
	struct rw_semaphore map_lock;
	bool pool_blocked;

	/* protects the tables and lists below and removed */
	struct mutex lock;
	bool removed;
	struct list_head files;
	struct list_head allocs;
	struct list_head imports;
	struct snode_att_slot *att;
	struct snode_export **exports;
	bool resync;
	bool reconcile;
	struct work_struct clear_work;

	struct dentry *debugfs;
};

/* A window table changed: a netlink dump spanning it is inconsistent. */
static inline void snode_mem_changed(struct snode_mem *mem)
{
	atomic_inc(&mem->gen);
}

/* Clear the stale entries once the device answered every command. */
static inline void __snode_mem_reconcile_kick(struct snode_mem *mem)
{
	lockdep_assert_held(&mem->lock);
	mem->reconcile = true;
	schedule_work(&mem->clear_work);
}

/* mem.c */
struct snode_alloc *snode_alloc_get(struct snode_mem_file *mfile, u64 offset);
void snode_alloc_put(struct snode_alloc *alloc);
struct snode_alloc *snode_kalloc(struct snode_dev *sdev, u64 length);
void *snode_kalloc_va(struct snode_alloc *alloc);
void snode_kfree(struct snode_alloc *alloc);

/* export.c */
int __snode_unexport(struct snode_mem *mem, struct snode_export *exp,
		     u32 *revoked, bool keep_unsent);
void snode_exports_release(struct snode_mem *mem, struct snode_mem_file *mfile,
			   struct snode_alloc *alloc);
void __snode_exports_reset_done(struct snode_mem *mem);
void snode_exports_remove(struct snode_mem *mem);
void snode_exports_reconcile(struct snode_mem *mem);
void snode_export_free(struct snode_export *exp);
struct snode_export *snode_kexport(struct snode_alloc *alloc, u64 offset,
				   u64 length, u32 node);
void snode_kunexport(struct snode_export *exp);

/* hostmem.c */
u32 snode_hostmem_max_extents(const struct snode_id *id);
struct snode_hostmem *snode_hostmem_pin(struct snode_mem *mem, u64 uaddr,
					u64 length, bool writable);
void snode_hostmem_free(struct snode_hostmem *hm);

/* import_att.c */
void snode_imports_revoke_all(struct snode_mem *mem, u32 reason);
void snode_mem_window_event(struct snode_dev *sdev,
			    const struct snode_event *ev);
void snode_mem_node_event(struct snode_dev *sdev, const struct snode_event *ev);
void snode_mem_events_lost(struct snode_dev *sdev);
void snode_mem_reconcile(struct snode_dev *sdev);
void snode_imports_revoke_node(struct snode_mem *mem, u32 node, u32 reason);
void snode_att_clear_work(struct work_struct *work);
void __snode_att_reset(struct snode_mem *mem);
/* import_att.c: for import.c */
void __snode_att_free(struct snode_mem *mem, u32 idx);
int snode_att_reserve(struct snode_mem *mem, struct snode_import *imp);
void snode_att_clear(struct snode_mem *mem, u32 idx);
void __snode_import_revoke(struct snode_import *imp, u32 reason,
			   bool att_invalid);

/* import.c */
struct snode_import *snode_kimport(struct snode_dev *sdev, u32 node,
				   u32 export_id, u64 key, u64 length);
void *snode_kimport_va(struct snode_import *imp);
bool snode_kimport_live(struct snode_import *imp);
void snode_kimport_release(struct snode_import *imp);

/* map.c */
pgprot_t snode_map_prot(struct snode_mem *mem, pgprot_t prot);
int snode_map_prepare(struct snode_mem *mem, struct vm_area_struct *vma,
		      const struct vm_operations_struct *ops, void *priv,
		      bool writable);
u64 snode_map_window_align(u64 length);
vm_fault_t snode_map_insert(struct snode_mem *mem, struct vm_fault *vmf,
			    unsigned int order, unsigned long pfn0);
vm_fault_t snode_map_insert_zero(struct vm_fault *vmf);
unsigned long snode_map_get_unmapped_area(struct file *filp,
					  unsigned long addr,
					  unsigned long len,
					  unsigned long pgoff,
					  unsigned long flags);

#endif /* _SNODE_MEM_H_ */
