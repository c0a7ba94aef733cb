/* SPDX-License-Identifier: GPL-2.0 */
/*
 * snode: private header of the DMA engine (dma.c runs the rings,
 * dma_queue.c the queues processes submit through).
 */
#ifndef _SNODE_DMA_H_
#define _SNODE_DMA_H_

#include <linux/atomic.h>
#include <linux/completion.h>
#include <linux/dma-mapping.h>
#include <linux/kref.h>
#include <linux/list.h>
#include <linux/mm_types.h>
#include <linux/mutex.h>
#include <linux/refcount.h>
#include <linux/scatterlist.h>
#include <linux/spinlock.h>
#include <linux/types.h>
#include <linux/wait.h>

#include <linux/snode.h>

#include "snode.h"

#define SNODE_DSQ_DEPTH		256
#define SNODE_DCQ_DEPTH		SNODE_DSQ_DEPTH
/* A descriptor asks for an interrupt at least this often. */
#define SNODE_DMA_IRQ_EVERY	(SNODE_DSQ_DEPTH / 4)
#define SNODE_DMA_DEPTH_DEFAULT	64
#define SNODE_DMA_DEPTH_MAX	4096
/* How long a disabled device may take to stop its engine. */
#define SNODE_DMA_STOP_US	(1000 * USEC_PER_MSEC)

struct snode_dma_queue;

/**
 * struct snode_dma_batch - the waiter of a synchronous submission
 * @refs: held by the waiter and by every copy of the batch; the last
 *        holder frees it, so a waiter that gave up (timeout, fatal signal)
 *        leaves it to the copies still in flight
 * @left: copies not yet finished
 * @done: completed when the last copy finished
 * @res: result per copy: status, bytes
 */
struct snode_dma_batch {
	refcount_t refs;
	atomic_t left;
	struct completion done;
	struct {
		int status;
		u64 bytes;
	} res[];
};

/**
 * struct snode_dma_copy - one copy being done
 * @node: entry in &snode_dma_dev.pending while descriptors remain to queue
 * @q: the queue it was submitted to; the copy holds a reference
 * @imp: the import; held with snode_import_dma_get()
 * @batch: the synchronous waiter, or NULL
 * @batch_idx: the copy's index in @batch
 * @user_data: for the completion
 * @to_global: the device reads the buffer and writes the window
 * @ap_start: aperture offset of the copy's first byte
 * @length: bytes
 * @pages: the pinned pages
 * @nr_pages: how many
 * @mm: the submitter's mm, grabbed while @locked pages are charged to it
 * @locked: pages charged with account_locked_vm()
 * @sgt: their DMA mapping
 * @sg: next DMA segment to cut descriptors from
 * @sg_off: bytes of @sg already cut
 * @queued: bytes put into descriptors
 * @descs: descriptors in the DSQ
 * @done: bytes the device copied
 * @status: 0 or the errno of the first failed descriptor
 */
struct snode_dma_copy {
	struct list_head node;
	struct snode_dma_queue *q;
	struct snode_import *imp;
	struct snode_dma_batch *batch;
	u32 batch_idx;
	u64 user_data;
	bool to_global;
	u64 ap_start;
	u64 length;
	struct page **pages;
	unsigned int nr_pages;
	struct mm_struct *mm;
	unsigned long locked;
	struct sg_table sgt;
	struct scatterlist *sg;
	u32 sg_off;
	u64 queued;
	u32 descs;
	u64 done;
	int status;
};

/**
 * struct snode_dma_slot - a DSQ entry in flight
 * @copy: the copy the descriptor belongs to
 * @len: its length
 */
struct snode_dma_slot {
	struct snode_dma_copy *copy;
	u32 len;
};

/**
 * struct snode_dma_dev - the DMA engine of one NIC
 * @sdev: the device
 * @max_len: longest descriptor, bytes (LIMITS2)
 * @sq: DSQ ring
 * @cq: DCQ ring
 * @sq_dma: bus address of @sq
 * @cq_dma: bus address of @cq
 * @lock: protects the members below it down to @pending
 * @enabled: descriptors may be queued: the device is live
 * @sq_tail: producer index of @sq
 * @cq_head: consumer index of @cq
 * @cq_phase: phase bit of the next new completion
 * @sq_head: the oldest descriptor in flight (completions come in order)
 * @inflight: descriptors in the DSQ
 * @slots: per DSQ index, the descriptor in flight there
 * @pending: copies with descriptors still to queue, in submission order
 * @stuck: copies whose descriptors an engine that did not stop may still
 *         hold; released once a later stop succeeds
 * @descs: descriptors completed since load
 * @queues_lock: protects @queues and @next_id
 * @queues: the open DMA queues
 * @next_id: id of the next queue
 * @gen: changes with every queue opened or closed, for dumps
 */
struct snode_dma_dev {
	struct snode_dev *sdev;
	u32 max_len;
	struct snode_dma_desc *sq;
	struct snode_dma_cqe *cq;
	dma_addr_t sq_dma;
	dma_addr_t cq_dma;

	/* protects the rings, the slots and the pending copies */
	spinlock_t lock;
	bool enabled;
	u16 sq_tail;
	u16 cq_head;
	bool cq_phase;
	u16 sq_head;
	u32 inflight;
	struct snode_dma_slot slots[SNODE_DSQ_DEPTH];
	struct list_head pending;
	struct list_head stuck;
	u64 descs;

	/* protects the list of queues */
	struct mutex queues_lock;
	struct list_head queues;
	u32 next_id;
	atomic_t gen;
};

/**
 * struct snode_dma_queue - a DMA queue: the file processes submit to
 * @kref: held by the file and by every copy submitted to it
 * @dd: the device's DMA engine
 * @sdev: the device; the queue holds a reference
 * @node: entry in &snode_dma_dev.queues while the file is open
 * @id: unique on the device, for listings
 * @depth: copies in flight plus completions unread, at most
 * @owner: the creator
 * @read_lock: serialises readers
 * @lock: protects the members below
 * @busy: copies in flight plus completions unread
 * @inflight: copies in flight
 * @closed: the file was released: completions go nowhere
 * @cpls: completion ring of @depth entries
 * @cpl_head: oldest completion
 * @cpl_count: completions unread
 * @completed: copies completed
 * @bytes: bytes copied
 * @errors: copies that failed
 * @wait: readers and pollers
 */
struct snode_dma_queue {
	struct kref kref;
	struct snode_dma_dev *dd;
	struct snode_dev *sdev;
	struct list_head node;
	u32 id;
	u32 depth;
	struct snode_owner owner;
	/* serialises readers */
	struct mutex read_lock;

	/* protects the completion ring and the counters */
	spinlock_t lock;
	u32 busy;
	u32 inflight;
	bool closed;
	struct snode_dma_cpl *cpls;
	u32 cpl_head;
	u32 cpl_count;
	u64 completed;
	u64 bytes;
	u64 errors;
	wait_queue_head_t wait;
};

/* dma.c: what the queues use of the engine */
void snode_dma_queue_put(struct snode_dma_queue *q);
void snode_dma_batch_put(struct snode_dma_batch *b);
enum dma_data_direction snode_dma_dir(const struct snode_dma_copy *c);
void snode_dma_copy_release(struct snode_dma_copy *c);
void __snode_dma_kick(struct snode_dma_dev *dd);
void snode_dma_cancel(struct snode_dma_queue *q);

#endif /* _SNODE_DMA_H_ */
