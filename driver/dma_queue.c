// SPDX-License-Identifier: GPL-2.0
/*
 * snode: DMA queues - the files through which processes submit copies:
 * submission (charge, pin, map, queue), waits, completions, listing.
 */

#include <linux/anon_inodes.h>
#include <linux/file.h>
#include <linux/fs.h>
#include <linux/mm.h>
#include <linux/sched/mm.h>
#include <linux/poll.h>
#include <linux/scatterlist.h>
#include <linux/sched/signal.h>
#include <linux/slab.h>
#include <linux/uaccess.h>

#include <linux/snode.h>

#include "dma.h"
#include "snode.h"
#include "trace.h"

/**
 * DOC: DMA queues
 *
 * dma_queue.c is the side of the DMA engine (dma.c) that processes see:
 * opening a queue, submitting copies to it (the buffer charged to
 * RLIMIT_MEMLOCK, pinned and mapped, the import held, the copy queued to
 * the engine), waiting for a synchronous submission, reading completions,
 * and listing the queues for the "snode" family. The DOC of dma.c tells
 * the whole life of a copy.
 */

/* ---- submitting -------------------------------------------------------- */

/* Pin and map the buffer of @c. */
static int snode_dma_copy_map(struct snode_dma_copy *c, u64 addr)
{
	struct device *dev = &c->q->sdev->pdev->dev;
	unsigned long first = addr & PAGE_MASK;
	unsigned int nr, off = offset_in_page(addr);
	int pinned, ret;

	/* pin_user_pages_fast() says EOVERFLOW past the top on 6.12 */
	if (!access_ok(u64_to_user_ptr(addr), c->length))
		return -EFAULT;
	nr = DIV_ROUND_UP(off + c->length, PAGE_SIZE);
	/* charge first: a copy beyond RLIMIT_MEMLOCK pins nothing */
	ret = account_locked_vm(current->mm, nr, true);
	if (ret)
		return ret;
	c->mm = current->mm;
	mmgrab(c->mm);
	c->locked = nr;
	c->pages = kvmalloc_array(nr, sizeof(*c->pages), GFP_KERNEL_ACCOUNT);
	if (!c->pages)
		return -ENOMEM;
	while (c->nr_pages < nr) {
		pinned = pin_user_pages_fast(first + c->nr_pages * PAGE_SIZE,
					     nr - c->nr_pages,
					     c->to_global ? 0 : FOLL_WRITE,
					     c->pages + c->nr_pages);
		if (pinned <= 0)
			return pinned ?: -EFAULT;
		c->nr_pages += pinned;
	}
	ret = sg_alloc_table_from_pages(&c->sgt, c->pages, nr, off, c->length,
					GFP_KERNEL_ACCOUNT);
	if (ret)
		return ret;
	/*
	 * Two copies in flight may name the same user pages (a process that
	 * reads two ranges into one buffer). The syncs, not the mapping,
	 * carry the cache maintenance, so dma-debug allows such overlapping
	 * mappings (DMA_ATTR_SKIP_CPU_SYNC); which copy's data the overlap
	 * holds afterwards is undefined, as for two concurrent read()s into
	 * one buffer.
	 */
	ret = dma_map_sgtable(dev, &c->sgt, snode_dma_dir(c),
			      DMA_ATTR_SKIP_CPU_SYNC);
	if (ret) {
		sg_free_table(&c->sgt);
		c->sgt.orig_nents = 0;
		return ret;
	}
	dma_sync_sgtable_for_device(dev, &c->sgt, snode_dma_dir(c));
	c->sg = c->sgt.sgl;
	return 0;
}

/* Check a request and make a copy of it, ready to queue. */
static struct snode_dma_copy *snode_dma_prepare(struct snode_dma_queue *q,
						const struct snode_dma_req *r)
{
	u32 dir = r->flags & (SNODE_DMA_TO_GLOBAL | SNODE_DMA_FROM_GLOBAL);
	struct snode_dma_copy *c;
	struct snode_import *imp;
	int ret;

	if (r->flags & ~(SNODE_DMA_TO_GLOBAL | SNODE_DMA_FROM_GLOBAL) ||
	    r->__reserved)
		return ERR_PTR(-EOPNOTSUPP);
	if (dir != SNODE_DMA_TO_GLOBAL && dir != SNODE_DMA_FROM_GLOBAL)
		return ERR_PTR(-EINVAL);
	if (!r->length || r->length > SNODE_DMA_MAX_LEN ||
	    r->addr + r->length < r->addr)
		return ERR_PTR(-EINVAL);

	c = kzalloc(sizeof(*c), GFP_KERNEL_ACCOUNT);
	if (!c)
		return ERR_PTR(-ENOMEM);
	INIT_LIST_HEAD(&c->node);
	c->q = q;
	kref_get(&q->kref);
	c->user_data = r->user_data;
	c->to_global = dir == SNODE_DMA_TO_GLOBAL;
	c->length = r->length;

	imp = snode_import_dma_get(q->sdev, r->import_fd, r->offset, r->length,
				   c->to_global, &c->ap_start);
	if (IS_ERR(imp)) {
		ret = PTR_ERR(imp);
		goto err_release;
	}
	c->imp = imp;
	ret = snode_dma_copy_map(c, r->addr);
	if (ret)
		goto err_release;
	return c;

err_release:
	snode_dma_copy_release(c);
	return ERR_PTR(ret);
}

/* Take a slot of the queue's depth for one copy; false if it is full. */
static bool snode_dma_queue_reserve(struct snode_dma_queue *q)
{
	bool ok;

	spin_lock(&q->lock);
	ok = q->busy < q->depth;
	if (ok) {
		q->busy++;
		q->inflight++;
	}
	spin_unlock(&q->lock);
	return ok;
}

static void snode_dma_queue_unreserve(struct snode_dma_queue *q)
{
	spin_lock(&q->lock);
	q->busy--;
	q->inflight--;
	spin_unlock(&q->lock);
}

/* Put prepared copies on the engine, all or none. */
static int snode_dma_queue_copies(struct snode_dma_dev *dd,
				  struct list_head *copies)
{
	struct snode_dma_copy *c;
	int ret = 0;

	spin_lock(&dd->lock);
	if (dd->enabled) {
		list_for_each_entry(c, copies, node)
			trace_snode_dma_submit(dd->sdev, c->q->id, c->user_data,
					       c->ap_start, c->length,
					       c->to_global);
		list_splice_tail_init(copies, &dd->pending);
		__snode_dma_kick(dd);
	} else {
		ret = -EIO;
	}
	spin_unlock(&dd->lock);
	return ret;
}

/* A synchronous submission gives up waiting after 60 s (debugfs may lower it). */
static int snode_dma_wait(struct snode_dma_batch *b)
{
	long left;

	left = wait_for_completion_killable_timeout(&b->done,
						    snode_debug_dma_wait());
	if (left > 0)
		return 0;
	return left ?: -ETIMEDOUT;
}

/* Copy the results of a synchronous batch to the requests. */
static int snode_dma_batch_report(struct snode_dma_batch *b,
				  const struct snode_dma_submit *cmd, u32 n)
{
	u32 i;

	if (cmd->req_size < offsetofend(struct snode_dma_req, out_bytes))
		return 0;
	for (i = 0; i < n; i++) {
		struct snode_dma_req __user *ureq =
			u64_to_user_ptr(cmd->reqs) + (u64)i * cmd->req_size;

		if (put_user(b->res[i].status, &ureq->out_status) ||
		    put_user(b->res[i].bytes, &ureq->out_bytes))
			return -EFAULT;
	}
	return 0;
}

/*
 * Prepare up to cmd->count copies onto @copies; returns how many, with
 * *err the error of the first request that could not be prepared.
 */
static u32 snode_dma_prepare_all(struct snode_dma_queue *q,
				 const struct snode_dma_submit *cmd,
				 struct snode_dma_batch *b,
				 struct list_head *copies, int *err)
{
	struct snode_dma_copy *c;
	struct snode_dma_req r;
	u32 n;

	*err = 0;
	for (n = 0; n < cmd->count; n++) {
		void __user *ureq = u64_to_user_ptr(cmd->reqs) +
				    (u64)n * cmd->req_size;

		*err = copy_struct_from_user(&r, sizeof(r), ureq, cmd->req_size);
		if (*err)
			break;
		if (!snode_dma_queue_reserve(q)) {
			*err = -EBUSY;
			break;
		}
		c = snode_dma_prepare(q, &r);
		if (IS_ERR(c)) {
			snode_dma_queue_unreserve(q);
			*err = PTR_ERR(c);
			break;
		}
		if (b) {
			c->batch = b;
			c->batch_idx = n;
			refcount_inc(&b->refs);
			atomic_inc(&b->left);
		}
		list_add_tail(&c->node, copies);
	}
	return n;
}

static int snode_dma_submit(struct snode_ucmd *ucmd)
{
	struct snode_dma_batch *b = NULL;
	struct snode_dma_copy *c, *tmp;
	struct snode_dma_submit *cmd = ucmd->cmd;
	struct snode_dma_queue *q = ucmd->obj;
	LIST_HEAD(copies);
	u32 n;
	int ret, err;

	if (cmd->flags & ~SNODE_DMA_SUBMIT_WAIT || cmd->__reserved)
		return -EOPNOTSUPP;
	if (!cmd->count || cmd->count > q->depth ||
	    cmd->req_size < offsetofend(struct snode_dma_req, user_data) ||
	    cmd->req_size > PAGE_SIZE)
		return -EINVAL;

	if (cmd->flags & SNODE_DMA_SUBMIT_WAIT) {
		b = kzalloc(struct_size(b, res, cmd->count), GFP_KERNEL_ACCOUNT);
		if (!b)
			return -ENOMEM;
		refcount_set(&b->refs, 1);
		init_completion(&b->done);
	}

	/* mapping for a device being reset or gone is pointless */
	ret = snode_lock_live(q->sdev);
	if (ret)
		goto out;
	snode_unlock_live(q->sdev);
	/*
	 * Read the requests and pin their buffers before taking rwsem: a
	 * buffer backed by userfaultfd or FUSE may stall, and must not stall
	 * a reset or an unbind with it.
	 */
	n = snode_dma_prepare_all(q, cmd, b, &copies, &err);
	ret = err;
	if (n) {
		ret = snode_lock_live(q->sdev);
		if (!ret) {
			ret = snode_dma_queue_copies(q->dd, &copies);
			snode_unlock_live(q->sdev);
		}
	}
	if (n && ret) {
		/* nothing reached the engine: no completion is posted */
		list_for_each_entry_safe(c, tmp, &copies, node) {
			list_del_init(&c->node);
			snode_dma_queue_unreserve(q);
			if (c->batch) {
				atomic_dec(&b->left);
				refcount_dec(&b->refs);
			}
			snode_dma_copy_release(c);
		}
	}
	if (ret)
		goto out;

	/* queued: whatever happens next, tell how many */
	if (b) {
		ret = snode_dma_wait(b);
		if (!ret)
			ret = snode_dma_batch_report(b, cmd, n);
	}
	cmd->out_submitted = n;
	if (snode_ucmd_respond(ucmd, sizeof(*cmd)))
		ret = -EFAULT;
out:
	snode_dma_batch_put(b);
	return ret;
}

/* ---- the queue's file ---------------------------------------------------- */

static ssize_t snode_dma_read(struct file *file, char __user *buf,
			      size_t count, loff_t *ppos)
{
	struct snode_dma_queue *q = file->private_data;
	size_t n = count / sizeof(struct snode_dma_cpl);
	struct snode_dma_cpl cpl;
	ssize_t done = 0;
	int ret;

	if (!n)
		return -EINVAL;
	for (;;) {
		ret = mutex_lock_interruptible(&q->read_lock);
		if (ret)
			return ret;
		if (READ_ONCE(q->cpl_count) || (file->f_flags & O_NONBLOCK))
			break;
		mutex_unlock(&q->read_lock);
		ret = wait_event_interruptible(q->wait, READ_ONCE(q->cpl_count));
		if (ret)
			return ret;
	}
	/* producers only append, so the oldest entry is ours to copy */
	while (n--) {
		spin_lock(&q->lock);
		if (!q->cpl_count) {
			spin_unlock(&q->lock);
			break;
		}
		cpl = q->cpls[q->cpl_head];
		spin_unlock(&q->lock);
		if (copy_to_user(buf + done, &cpl, sizeof(cpl))) {
			ret = -EFAULT;
			break;
		}
		spin_lock(&q->lock);
		q->cpl_head = (q->cpl_head + 1) % q->depth;
		q->cpl_count--;
		q->busy--;
		spin_unlock(&q->lock);
		done += sizeof(cpl);
	}
	mutex_unlock(&q->read_lock);
	return done ?: ret ?: -EAGAIN;
}

static __poll_t snode_dma_poll(struct file *file, poll_table *wait)
{
	struct snode_dma_queue *q = file->private_data;

	poll_wait(file, &q->wait, wait);
	return READ_ONCE(q->cpl_count) ? EPOLLIN | EPOLLRDNORM : 0;
}

static const struct snode_ioctl_op snode_dma_ioctl_ops[] = {
	SNODE_IOCTL_OP(SNODE_IOCTL_DMA_SUBMIT, snode_dma_submit,
		       struct snode_dma_submit, __reserved, 0),
};

static long snode_dma_ioctl(struct file *file, unsigned int cmd,
			    unsigned long arg)
{
	struct snode_dma_queue *q = file->private_data;
	struct snode_ucmd ucmd = {
		.sdev = q->sdev,
		.obj = q,
	};

	return snode_ioctl_dispatch(file, snode_dma_ioctl_ops,
				    ARRAY_SIZE(snode_dma_ioctl_ops), &ucmd, cmd,
				    arg);
}

static int snode_dma_release(struct inode *inode, struct file *file)
{
	struct snode_dma_queue *q = file->private_data;
	struct snode_dma_dev *dd = q->dd;

	mutex_lock(&dd->queues_lock);
	list_del(&q->node);
	atomic_inc(&dd->gen);
	mutex_unlock(&dd->queues_lock);
	spin_lock(&q->lock);
	q->closed = true;
	q->busy -= q->cpl_count;
	q->cpl_count = 0;
	spin_unlock(&q->lock);
	/*
	 * Copies on the device finish on their own and drop their
	 * references; the others go now, with their pins and charges.
	 */
	snode_dma_cancel(q);
	snode_dma_queue_put(q);
	return 0;
}

static const struct file_operations snode_dma_fops = {
	.owner = THIS_MODULE,
	.read = snode_dma_read,
	.poll = snode_dma_poll,
	.unlocked_ioctl = snode_dma_ioctl,
	.compat_ioctl = compat_ptr_ioctl,
	.release = snode_dma_release,
	.llseek = noop_llseek,
};

int snode_ioctl_dma_open(struct snode_ucmd *ucmd)
{
	struct snode_dma_open *cmd = ucmd->cmd;
	struct snode_dev *sdev = ucmd->sdev;
	struct snode_dma_dev *dd = sdev->dma;
	struct snode_dma_queue *q;
	struct file *file;
	int fd, ret;

	if (cmd->flags & ~SNODE_DMA_NONBLOCK)
		return -EOPNOTSUPP;
	if (!dd)
		return -EOPNOTSUPP;
	if (!cmd->depth)
		cmd->depth = SNODE_DMA_DEPTH_DEFAULT;
	if (cmd->depth > SNODE_DMA_DEPTH_MAX)
		return -EINVAL;

	q = kzalloc(sizeof(*q), GFP_KERNEL_ACCOUNT);
	if (!q)
		return -ENOMEM;
	kref_init(&q->kref);
	q->dd = dd;
	q->sdev = sdev;
	get_device(&sdev->dev);
	q->depth = cmd->depth;
	snode_owner_init(&q->owner);
	spin_lock_init(&q->lock);
	mutex_init(&q->read_lock);
	init_waitqueue_head(&q->wait);
	INIT_LIST_HEAD(&q->node);
	ret = snode_owner_charge(&q->owner, ucmd->sfile,
				 SNODE_QUOTA_DMA_QUEUES, 1);
	if (ret) {
		snode_dma_queue_put(q);
		return ret;
	}
	q->cpls = kvcalloc(q->depth, sizeof(*q->cpls), GFP_KERNEL_ACCOUNT);
	if (!q->cpls) {
		snode_dma_queue_put(q);
		return -ENOMEM;
	}

	file = anon_inode_getfile("[snode-dma]", &snode_dma_fops, q,
				  O_RDWR |
				  (cmd->flags & SNODE_DMA_NONBLOCK ? O_NONBLOCK : 0));
	if (IS_ERR(file)) {
		snode_dma_queue_put(q);
		return PTR_ERR(file);
	}
	/* from here on, the file's release unlists and puts q */
	fd = get_unused_fd_flags(O_CLOEXEC);
	if (fd >= 0) {
		mutex_lock(&dd->queues_lock);
		q->id = dd->next_id++;
		list_add_tail(&q->node, &dd->queues);
		atomic_inc(&dd->gen);
		mutex_unlock(&dd->queues_lock);
		snode_debug_delay(SNODE_DELAY_DMA_OPEN);
		cmd->out_fd = fd;
	}
	/* nothing may touch q once the descriptor is installed */
	return snode_ucmd_install_fd(ucmd, sizeof(*cmd), file, fd, 0);
}

/**
 * snode_dma_gen() - the generation of a device's DMA queue table
 * @sdev: snode device
 *
 * It changes whenever a queue is opened or closed, so a queue dump
 * spanning the change is flagged NLM_F_DUMP_INTR.
 *
 * Context: Any context.
 * Return: the generation.
 */
unsigned int snode_dma_gen(struct snode_dev *sdev)
{
	return sdev->dma ? atomic_read(&sdev->dma->gen) : 0;
}

/**
 * snode_dma_list_queues() - describe the DMA queues of a device
 * @sdev: snode device
 * @entries: array of @max zeroed entries to fill, or NULL to count
 * @max: room in @entries
 * @viewer: who asks; owner details of other users' queues are withheld
 *
 * Context: Process context.
 * Return: the number of queues (possibly more than @max).
 */
u32 snode_dma_list_queues(struct snode_dev *sdev,
			  struct snode_obj_entry *entries, u32 max,
			  const struct snode_viewer *viewer)
{
	struct snode_dma_dev *dd = sdev->dma;
	struct snode_dma_queue *q;
	u32 n = 0;

	if (!dd)
		return 0;
	mutex_lock(&dd->queues_lock);
	list_for_each_entry(q, &dd->queues, node) {
		struct snode_obj_entry *e = &entries[n];

		if (n++ >= max)
			continue;
		e->id = q->id;
		e->entries = q->depth;
		if (snode_owner_is_viewer(&q->owner, viewer))
			e->flags |= SNODE_ENTRY_OWN;
		spin_lock(&q->lock);
		e->pending = q->inflight;
		e->count = q->completed;
		e->bytes = q->bytes;
		e->errors = q->errors;
		spin_unlock(&q->lock);
		if (!snode_owner_visible(&q->owner, viewer)) {
			e->flags |= SNODE_ENTRY_HIDDEN;
			continue;
		}
		e->pid = pid_vnr(q->owner.pid);
		strscpy(e->comm, q->owner.comm, sizeof(e->comm));
	}
	mutex_unlock(&dd->queues_lock);
	return n;
}
