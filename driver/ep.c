// SPDX-License-Identifier: GPL-2.0
/*
 * snode: message endpoints - rings, vectors and endpoint files.
 */

#include <linux/anon_inodes.h>
#include <linux/bitfield.h>
#include <linux/file.h>
#include <linux/fs.h>
#include <linux/interrupt.h>
#include <linux/pagemap.h>
#include <linux/poll.h>
#include <linux/random.h>
#include <linux/rculist.h>
#include <linux/sched/signal.h>
#include <linux/slab.h>
#include <linux/uaccess.h>

#include "msg.h"
#include "trace.h"

/**
 * DOC: Endpoints
 *
 * ep.c owns the receiving half of the NIC's message engine: the endpoint
 * table (EP_SET, EP_CLEAR, EP_HEAD), the receive rings, the endpoint
 * vectors 3-7 and the endpoint files; ep_kernel.c the endpoints the
 * driver itself owns; msg.c the sending half. msg.h is their private
 * header.
 *
 * An endpoint is a ring of 64-byte slots plus a tail word in
 * coherent DMA memory; the device writes a slot, then the tail word, then
 * raises the endpoint's vector. Endpoints share the vectors, each going to
 * the least loaded one. The vector handler runs in hard interrupt context
 * and only wakes the endpoints of its vector that have something to read,
 * found on an RCU list, so a sleeping reader is one wake-up away from a
 * message. read() copies whole messages out and hands the slots back with
 * the EP_HEAD register, which needs no lock: it is a single write.
 *
 * Lifetime. An endpoint belongs to its file. Its ring is freed only once
 * the device cannot write it any more: after EP_CLEAR succeeded, after a
 * reset of the device, or on unbind after the device was reset; until then
 * a ring whose endpoint could not be cleared waits on &snode_msg_dev.stale.
 * A reset removes every endpoint from the device: the endpoints are marked
 * dead (read() drains what arrived and then fails with ECONNRESET) and
 * their ids stay taken until their files are closed, so that no EP_CLEAR
 * of a dead endpoint can hit a newer one.
 *
 * Locking: &snode_dev.rwsem (read, to use the hardware) nests outside
 * &snode_msg_dev.lock, which nests outside &snode_ep.read_lock.
 * &snode_msg_dev.send_lock nests inside &snode_dev.rwsem and outside
 * nothing.
 */

/* ---- rings ---------------------------------------------------------------- */

static struct snode_ep_ring *snode_ep_ring_alloc(struct snode_dev *sdev,
						 u32 entries)
{
	size_t slots = entries * sizeof(struct snode_msg_slot);
	struct snode_ep_ring *ring;

	ring = kzalloc(sizeof(*ring), GFP_KERNEL);
	if (!ring)
		return NULL;
	/* coherent allocations are page aligned, as EP_SET wants */
	ring->size = PAGE_ALIGN(slots + sizeof(*ring->tail));
	ring->slots = dma_alloc_coherent(&sdev->pdev->dev, ring->size,
					 &ring->dma, GFP_KERNEL);
	if (!ring->slots) {
		kfree(ring);
		return NULL;
	}
	ring->tail = (__le32 *)((u8 *)ring->slots + slots);
	INIT_LIST_HEAD(&ring->node);
	return ring;
}

static void snode_ep_ring_free(struct snode_dev *sdev, struct snode_ep_ring *ring)
{
	dma_free_coherent(&sdev->pdev->dev, ring->size, ring->slots, ring->dma);
	kfree(ring);
}

/* Free @ring now if the device is done with it, else after its reset. */
static void __snode_ep_ring_retire(struct snode_msg_dev *md,
				   struct snode_ep_ring *ring, bool device_done)
{
	lockdep_assert_held(&md->lock);

	if (device_done)
		snode_ep_ring_free(md->sdev, ring);
	else
		list_add_tail(&ring->node, &md->stale);
}

static void __snode_msg_free_stale(struct snode_msg_dev *md)
{
	struct snode_ep_ring *ring, *tmp;

	lockdep_assert_held(&md->lock);

	list_for_each_entry_safe(ring, tmp, &md->stale, node) {
		list_del(&ring->node);
		snode_ep_ring_free(md->sdev, ring);
	}
}

/* Messages waiting in @ep's ring. Caller holds read_lock, or peeks. */
u32 snode_ep_avail(struct snode_ep *ep, struct snode_ep_ring *ring)
{
	u32 tail = le32_to_cpu(READ_ONCE(*ring->tail));

	/* a device writing a wild index: ignore it rather than read junk */
	if (unlikely(tail >= ep->entries)) {
		dev_warn_ratelimited(&ep->sdev->pdev->dev,
				     "endpoint %u: device wrote tail %u of %u\n",
				     ep->id, tail, ep->entries);
		return 0;
	}
	return (tail - READ_ONCE(ep->head)) & (ep->entries - 1);
}

/* ---- the endpoint vectors --------------------------------------------------- */

irqreturn_t snode_ep_irq(int irq, void *data)
{
	struct snode_msg_vec *vec = data;
	struct snode_ep *ep;

	rcu_read_lock();
	list_for_each_entry_rcu(ep, &vec->eps, vec_node) {
		u32 waiting;

		snode_debug_delay(SNODE_DELAY_EP_IRQ);
		/* the ring is stable while the endpoint is on the list */
		waiting = snode_ep_avail(ep, ep->ring);
		if (!waiting)
			continue;
		trace_snode_msg_arrive(ep->sdev, ep->id, waiting);
		if (ep->notify)
			ep->notify(ep->notify_priv);
		else
			wake_up_interruptible_poll(&ep->wait,
						   EPOLLIN | EPOLLRDNORM);
	}
	rcu_read_unlock();
	return IRQ_HANDLED;
}

/* The endpoint vector with the fewest endpoints. Caller holds md->lock. */
static struct snode_msg_vec *__snode_msg_pick_vec(struct snode_msg_dev *md)
{
	struct snode_msg_vec *best = &md->vecs[0];
	unsigned int i;

	lockdep_assert_held(&md->lock);

	for (i = 1; i < md->nr_vecs; i++)
		if (md->vecs[i].nr_eps < best->nr_eps)
			best = &md->vecs[i];
	return best;
}

/* Take @ep off its vector; the handler may see it until a grace period ends. */
static void __snode_ep_unlink(struct snode_ep *ep)
{
	lockdep_assert_held(&ep->md->lock);

	if (!ep->live)
		return;
	ep->live = false;
	list_del_rcu(&ep->vec_node);
}

/* counts endpoint creations and destructions on every NIC, for dumps */
static atomic_t snode_ep_table_gen = ATOMIC_INIT(0);

/* ---- the endpoint's file ---------------------------------------------------- */

void snode_ep_copy_msg(struct snode_msg *msg,
		       const struct snode_msg_slot *slot)
{
	memset(msg, 0, sizeof(*msg));
	msg->src_node = le32_to_cpu(slot->src_node);
	msg->src_ep = le16_to_cpu(slot->src_ep);
	/* clamp what a misbehaving device claims */
	msg->len = min_t(u16, le16_to_cpu(slot->len), SNODE_MSG_MAX_LEN);
	msg->seq = le64_to_cpu(slot->seq);
	memcpy(msg->payload, slot->payload, msg->len);
}

/*
 * Hand consumed slots back to the device. Caller holds read_lock, and
 * @sdev->rwsem through snode_lock_live() if @live.
 */
void snode_ep_head_write(struct snode_ep *ep, bool live)
{
	/* a dead endpoint's id may be the device's no longer */
	if (live && !ep->dead_err)
		snode_writel(ep->sdev, SNODE_EP_HEAD_OFFSET,
			     FIELD_PREP(SNODE_EP_HEAD_EP_MASK, ep->id) |
			     FIELD_PREP(SNODE_EP_HEAD_INDEX_MASK, ep->head));
}

/*
 * With read_lock held: 0 if messages are waiting, -EAGAIN if none is, or
 * why none will come.
 */
static int snode_ep_ready(struct snode_ep *ep)
{
	if (!ep->ring)
		return ep->dead_err;
	if (snode_ep_avail(ep, ep->ring))
		return 0;
	return ep->dead_err ?: -EAGAIN;
}

/*
 * Without read_lock: EPOLLIN if messages are waiting, EPOLLERR if the
 * endpoint is dead. The RCU read section keeps an unbind from freeing the
 * ring under us (it sets dead_err, waits for a grace period, then frees).
 */
static __poll_t snode_ep_peek(struct snode_ep *ep)
{
	struct snode_ep_ring *ring;
	__poll_t mask = 0;

	rcu_read_lock();
	ring = READ_ONCE(ep->ring);
	if (READ_ONCE(ep->dead_err))
		mask |= EPOLLERR;
	else if (ring && snode_ep_avail(ep, ring))
		mask |= EPOLLIN;
	rcu_read_unlock();
	return mask;
}

static ssize_t snode_ep_read(struct file *file, char __user *buf,
			     size_t count, loff_t *ppos)
{
	struct snode_ep *ep = file->private_data;
	size_t n = count / sizeof(struct snode_msg);
	struct snode_dev *sdev = ep->sdev;
	struct snode_msg msg;
	ssize_t done = 0;
	bool live;
	u32 avail, i;
	int ret;

	if (!n)
		return -EINVAL;
retry:
	for (;;) {
		/*
		 * The device lock nests outside read_lock (see Locking):
		 * taken first, it covers the EP_HEAD write. A device that is
		 * not live still lets the reader drain what arrived.
		 */
		live = !snode_lock_live(sdev);
		ret = mutex_lock_interruptible(&ep->read_lock);
		if (ret)
			goto out_live;
		ret = snode_ep_ready(ep);
		if (ret != -EAGAIN || (file->f_flags & O_NONBLOCK))
			break;
		mutex_unlock(&ep->read_lock);
		if (live)
			snode_unlock_live(sdev);
		ret = wait_event_interruptible(ep->wait, snode_ep_peek(ep));
		if (ret)
			return ret;
	}
	if (ret)
		goto out_unlock;

	avail = min_t(size_t, snode_ep_avail(ep, ep->ring), n);
	/* the slots were written before the tail word that announced them */
	dma_rmb();
	for (i = 0; i < avail; i++) {
		snode_ep_copy_msg(&msg, &ep->ring->slots[ep->head]);
		/*
		 * Never fault with read_lock held: a buffer backed by
		 * userfaultfd or FUSE could hold it, and an unbind, forever.
		 */
		if (copy_to_user_nofault(buf + done, &msg, sizeof(msg))) {
			ret = -EFAULT;
			break;
		}
		done += sizeof(msg);
		trace_snode_msg_recv(ep->sdev, ep->id, msg.src_node, msg.src_ep,
				     msg.len, msg.seq);
		ep->msgs++;
		ep->bytes += msg.len;
		WRITE_ONCE(ep->head, (ep->head + 1) & (ep->entries - 1));
	}
	if (done)
		snode_ep_head_write(ep, live);
out_unlock:
	mutex_unlock(&ep->read_lock);
out_live:
	if (live)
		snode_unlock_live(sdev);
	if (!done && ret == -EFAULT &&
	    !fault_in_writeable(buf, sizeof(msg)))
		goto retry;
	return done ?: ret;
}

static __poll_t snode_ep_poll(struct file *file, poll_table *wait)
{
	struct snode_ep *ep = file->private_data;
	__poll_t mask;

	poll_wait(file, &ep->wait, wait);
	mask = snode_ep_peek(ep);
	if (mask & EPOLLERR)
		return EPOLLIN | EPOLLRDNORM | EPOLLERR | EPOLLHUP;
	return mask;
}

/* MSG_SEND on an endpoint's file sends from that endpoint. */
static int snode_ep_send(struct snode_ucmd *ucmd)
{
	struct snode_ep *ep = ucmd->obj;
	int ret;

	ret = snode_msg_user_check(ucmd->cmd) ?:
	      snode_msg_send(ep->md, ucmd->cmd, ep->id);
	if (ret)
		atomic64_inc(&ep->send_errors);
	return ret;
}

static const struct snode_ioctl_op snode_ep_ioctl_ops[] = {
	SNODE_IOCTL_OP(SNODE_IOCTL_MSG_SEND, snode_ep_send,
		       struct snode_msg_send, payload, 0),
};

static long snode_ep_ioctl(struct file *file, unsigned int cmd,
			   unsigned long arg)
{
	struct snode_ep *ep = file->private_data;
	struct snode_ucmd ucmd = {
		.sdev = ep->sdev,
		.obj = ep,
	};

	return snode_ioctl_dispatch(file, snode_ep_ioctl_ops,
				    ARRAY_SIZE(snode_ep_ioctl_ops), &ucmd, cmd,
				    arg);
}

/* EP_CLEAR endpoint @id. Caller holds sdev->rwsem. */
static int __snode_ep_clear(struct snode_dev *sdev, u32 id)
{
	struct snode_admin_req req = {
		.cmd.opcode = SNODE_OP_EP_CLEAR,
		.cmd.ep_clear.endpoint = cpu_to_le32(id),
	};

	return __snode_admin_exec(sdev, &req);
}

/*
 * Take @ep out of the device: clear it there unless it is dead or was never
 * set, then free its id and retire its ring. It must be off its vector's
 * list for a grace period already.
 */
static void snode_ep_retire(struct snode_msg_dev *md, struct snode_ep *ep)
{
	struct snode_dev *sdev = md->sdev;
	bool device_done = true;
	int ret = 0;

	/* rwsem keeps a reset from killing the endpoint under EP_CLEAR */
	if (ep->hw != SNODE_EP_HW_NONE) {
		ret = snode_lock_live(sdev);
		if (!ret) {
			if (!ep->dead_err)
				ret = __snode_ep_clear(sdev, ep->id);
			snode_unlock_live(sdev);
		}
	}

	mutex_lock(&md->lock);
	if (ep->hw == SNODE_EP_HW_NONE)
		device_done = true;
	else if (ep->dead_err)	/* a reset since it died wiped it */
		device_done = md->reset_seq != ep->dead_seq;
	else
		device_done = !ret;
	if (ep->ring) {
		if (!device_done)
			dev_warn_ratelimited(&sdev->pdev->dev,
					     "endpoint %u: not cleared (%d); its ring is freed after the next reset\n",
					     ep->id, ret);
		__snode_ep_ring_retire(md, ep->ring, device_done);
		ep->ring = NULL;
	}
	md->eps[ep->id] = NULL;
	ep->vec->nr_eps--;
	atomic_inc(&snode_ep_table_gen);
	mutex_unlock(&md->lock);
}

/* Undo snode_ep_create() and whatever snode_ep_set() did. */
void snode_ep_destroy(struct snode_msg_dev *md, struct snode_ep *ep)
{
	bool was_live;

	mutex_lock(&md->lock);
	__snode_ep_unlink(ep);
	was_live = ep->was_live;
	mutex_unlock(&md->lock);
	/* the vector handler may be reading the ring's tail word */
	if (was_live)
		synchronize_rcu();
	snode_ep_retire(md, ep);
	snode_owner_put(&ep->owner);
	put_device(&ep->sdev->dev);
	kfree(ep);
}

static int snode_ep_release(struct inode *inode, struct file *file)
{
	struct snode_ep *ep = file->private_data;

	snode_ep_destroy(ep->md, ep);
	return 0;
}

static const struct file_operations snode_ep_fops = {
	.owner = THIS_MODULE,
	.read = snode_ep_read,
	.poll = snode_ep_poll,
	.unlocked_ioctl = snode_ep_ioctl,
	.compat_ioctl = compat_ptr_ioctl,
	.release = snode_ep_release,
	.llseek = noop_llseek,
};

/* ---- setting endpoints up ---------------------------------------------------- */

/* Reserve endpoint id @id, or the lowest free one if @id is U32_MAX. */
static int snode_ep_reserve(struct snode_msg_dev *md, struct snode_ep *ep,
			    u32 id)
{
	int ret = 0;

	mutex_lock(&md->lock);
	if (md->removed) {
		ret = -ENODEV;
	} else if (id != U32_MAX) {
		if (md->eps[id])
			ret = -EBUSY;
	} else {
		/* the network interface's id is never handed out */
		for (id = 0; id < md->nr_ids &&
		     (md->eps[id] || id == SNODE_NET_EP); id++)
			;
		if (id == md->nr_ids)
			ret = -ENOSPC;
	}
	if (!ret) {
		ep->id = id;
		ep->vec = __snode_msg_pick_vec(md);
		ep->vec->nr_eps++;
		md->eps[id] = ep;
		atomic_inc(&snode_ep_table_gen);
	}
	mutex_unlock(&md->lock);
	return ret;
}

/*
 * EP_SET the reserved @ep; on success, optionally let its vector signal it.
 * A device refusal leaves it unset; after a timeout the device may still
 * set it, which snode_ep_retire() takes care of.
 */
int snode_ep_set(struct snode_msg_dev *md, struct snode_ep *ep, bool signal)
{
	dma_addr_t tail = ep->ring->dma +
			  ep->entries * sizeof(struct snode_msg_slot);
	struct snode_admin_req req = {
		.cmd.opcode = SNODE_OP_EP_SET,
		.cmd.ep_set = {
			.endpoint = cpu_to_le32(ep->id),
			.vector = cpu_to_le32(ep->vec->vector),
			.key_lo = cpu_to_le32(lower_32_bits(ep->key)),
			.key_hi = cpu_to_le32(upper_32_bits(ep->key)),
			.entries = cpu_to_le32(ep->entries),
			.tail_addr_lo = cpu_to_le32(lower_32_bits(tail)),
			.tail_addr_hi = cpu_to_le32(upper_32_bits(tail)),
			.head = 0,
		},
		.addr = ep->ring->dma,
		/* set by a completion: tells a device refusal from a timeout */
		.status = U16_MAX,
	};
	struct snode_dev *sdev = md->sdev;
	int ret;

	/* a reset must not wipe the endpoint between EP_SET and publishing */
	ret = snode_lock_live(sdev);
	if (ret)
		return ret;
	/* the device was reset since the id was reserved */
	if (ep->dead_err) {
		ret = -EAGAIN;
		goto out_unlock;
	}
	ret = __snode_admin_exec(sdev, &req);
	mutex_lock(&md->lock);
	if (!ret) {
		ep->hw = SNODE_EP_HW_SET;
		if (signal) {
			ep->live = true;
			ep->was_live = true;
			list_add_tail_rcu(&ep->vec_node, &ep->vec->eps);
		}
	} else if (ret == -ETIMEDOUT && req.status == U16_MAX) {
		ep->hw = SNODE_EP_HW_UNKNOWN;
	}
	mutex_unlock(&md->lock);
out_unlock:
	snode_unlock_live(sdev);
	return ret;
}

/*
 * Allocate an endpoint with its ring and reserve an id for it; the driver
 * owns it if @kernel, else the current process.
 */
struct snode_ep *__snode_ep_create(struct snode_msg_dev *md, u32 id,
				   u32 entries, u64 key, bool kernel)
{
	struct snode_dev *sdev = md->sdev;
	struct snode_ep *ep;
	int ret;

	/* a user's endpoint is charged to its memory cgroup */
	ep = kzalloc(sizeof(*ep), kernel ? GFP_KERNEL : GFP_KERNEL_ACCOUNT);
	if (!ep)
		return ERR_PTR(-ENOMEM);
	ep->md = md;
	ep->sdev = sdev;
	get_device(&sdev->dev);
	ep->entries = entries;
	ep->key = key;
	/* before the id is published: listings read the owner */
	if (kernel)
		snode_owner_init_kernel(&ep->owner);
	else
		snode_owner_init(&ep->owner);
	init_waitqueue_head(&ep->wait);
	mutex_init(&ep->read_lock);
	INIT_LIST_HEAD(&ep->vec_node);
	ep->ring = snode_ep_ring_alloc(sdev, entries);
	if (!ep->ring) {
		ret = -ENOMEM;
		goto err_free;
	}
	ret = snode_ep_reserve(md, ep, id);
	if (ret)
		goto err_free_ring;
	return ep;

err_free_ring:
	snode_ep_ring_free(sdev, ep->ring);
err_free:
	snode_owner_put(&ep->owner);
	put_device(&sdev->dev);
	kfree(ep);
	return ERR_PTR(ret);
}

/* Allocate an endpoint of the current process and reserve an id for it. */
struct snode_ep *snode_ep_create(struct snode_msg_dev *md, u32 id,
				 u32 entries, u64 key)
{
	return __snode_ep_create(md, id, entries, key, false);
}

static int snode_ep_check(struct snode_msg_dev *md, struct snode_ep_alloc *cmd)
{
	if (cmd->flags & ~(SNODE_EP_ID | SNODE_EP_RANDOM_KEY | SNODE_EP_NONBLOCK))
		return -EOPNOTSUPP;
	if (!md || !md->nr_vecs)
		return -EOPNOTSUPP;
	if (!cmd->entries)
		cmd->entries = SNODE_EP_ENTRIES_DEFAULT;
	if (cmd->entries < SNODE_EP_ENTRIES_MIN ||
	    cmd->entries > SNODE_EP_ENTRIES_MAX ||
	    !is_power_of_2(cmd->entries))
		return -EINVAL;
	if ((cmd->flags & SNODE_EP_ID) ? cmd->id >= md->nr_ids : cmd->id)
		return -EINVAL;
	/* reserved for the network interface, up or down */
	if ((cmd->flags & SNODE_EP_ID) && cmd->id == SNODE_NET_EP)
		return -EBUSY;
	if ((cmd->flags & SNODE_EP_RANDOM_KEY) && cmd->key)
		return -EINVAL;
	return 0;
}

int snode_ioctl_ep_alloc(struct snode_ucmd *ucmd)
{
	struct snode_ep_alloc *cmd = ucmd->cmd;
	struct snode_dev *sdev = ucmd->sdev;
	struct snode_msg_dev *md = sdev->msg;
	struct snode_id id;
	struct snode_ep *ep;
	struct file *file;
	int fd, ret;

	ret = snode_ep_check(md, cmd);
	if (ret)
		return ret;

	ep = snode_ep_create(md, cmd->flags & SNODE_EP_ID ? cmd->id : U32_MAX,
			     cmd->entries,
			     cmd->flags & SNODE_EP_RANDOM_KEY ? get_random_u64() :
								cmd->key);
	if (IS_ERR(ep))
		return PTR_ERR(ep);
	ret = snode_owner_charge(&ep->owner, ucmd->sfile, SNODE_QUOTA_ENDPOINTS,
				 1);
	if (ret) {
		snode_ep_destroy(md, ep);
		return ret;
	}

	file = anon_inode_getfile("[snode-ep]", &snode_ep_fops, ep,
				  O_RDWR | (cmd->flags & SNODE_EP_NONBLOCK ?
					    O_NONBLOCK : 0));
	if (IS_ERR(file)) {
		snode_ep_destroy(md, ep);
		return PTR_ERR(file);
	}
	/* from here on, the file's release undoes everything */

	fd = get_unused_fd_flags(O_CLOEXEC);
	ret = fd < 0 ? fd : snode_ep_set(md, ep, true);
	if (!ret) {
		snode_id_get(sdev, &id);
		cmd->out_fd = fd;
		cmd->out_node = id.node_id;
		cmd->out_id = ep->id;
		cmd->out_key = ep->key;
		cmd->out_vector = ep->vec->vector;
	}
	return snode_ucmd_install_fd(ucmd, sizeof(*cmd), file, fd, ret);
}

int snode_ioctl_msg_send(struct snode_ucmd *ucmd)
{
	struct snode_msg_dev *md = ucmd->sdev->msg;

	if (!md)
		return -EOPNOTSUPP;
	return snode_msg_user_check(ucmd->cmd) ?:
	       snode_msg_send(md, ucmd->cmd, SNODE_EP_NONE);
}

/* ---- listing and counters ------------------------------------------------- */

/**
 * snode_ep_gen() - the generation of the endpoint tables
 * @sdev: snode device
 *
 * It changes whenever an endpoint of any NIC is created or destroyed, so
 * an endpoint dump spanning the change is flagged NLM_F_DUMP_INTR.
 *
 * Context: Any context.
 * Return: the generation.
 */
unsigned int snode_ep_gen(struct snode_dev *sdev)
{
	return atomic_read(&snode_ep_table_gen);
}

/**
 * snode_ep_list() - describe the endpoints of a device
 * @sdev: snode device
 * @entries: array of @max zeroed entries to fill, or NULL to count
 * @max: room in @entries
 * @viewer: who asks; owner details of other users' endpoints are withheld
 *
 * Context: Process context; takes &snode_msg_dev.lock.
 * Return: the number of endpoints, possibly more than @max.
 */
u32 snode_ep_list(struct snode_dev *sdev, struct snode_obj_entry *entries,
		  u32 max, const struct snode_viewer *viewer)
{
	struct snode_msg_dev *md = sdev->msg;
	u32 id, n = 0;

	if (!md)
		return 0;
	mutex_lock(&md->lock);
	for (id = 0; id < md->nr_ids; id++) {
		struct snode_ep *ep = md->eps[id];
		struct snode_obj_entry *e;

		if (!ep)
			continue;
		if (n++ >= max || !entries)
			continue;
		e = &entries[n - 1];
		e->id = ep->id;
		e->vector = ep->vec->vector;
		e->entries = ep->entries;
		if (snode_owner_is_viewer(&ep->owner, viewer))
			e->flags |= SNODE_ENTRY_OWN;
		if (snode_owner_key_visible(&ep->owner, viewer)) {
			e->flags |= SNODE_ENTRY_KEY;
			e->key = ep->key;
		}
		if (ep->dead_err)
			e->flags |= SNODE_ENTRY_DEAD;
		/* counters are a snapshot; read_lock would nest badly here */
		if (ep->ring)
			e->pending = snode_ep_avail(ep, ep->ring);
		e->count = READ_ONCE(ep->msgs);
		e->bytes = READ_ONCE(ep->bytes);
		e->errors = atomic64_read(&ep->send_errors);
		if (!snode_owner_visible(&ep->owner, viewer)) {
			e->flags |= SNODE_ENTRY_HIDDEN;
			continue;
		}
		e->pid = pid_vnr(ep->owner.pid);
		strscpy(e->comm, ep->owner.comm, sizeof(e->comm));
	}
	mutex_unlock(&md->lock);
	return n;
}

/* ---- reset, setup, teardown --------------------------------------------------- */

/* Kill every endpoint: the device lost them (reset) or is gone (unbind). */
static void __snode_msg_kill(struct snode_msg_dev *md, int err)
{
	u32 id;

	lockdep_assert_held(&md->lock);

	for (id = 0; id < md->nr_ids; id++) {
		struct snode_ep *ep = md->eps[id];

		if (!ep || ep->dead_err)
			continue;
		__snode_ep_unlink(ep);
		WRITE_ONCE(ep->dead_err, err);
		ep->dead_seq = md->reset_seq;
		wake_up_interruptible_poll(&ep->wait, EPOLLIN | EPOLLERR | EPOLLHUP);
	}
}

/**
 * __snode_msg_reset_prepare() - a reset is about to wipe the endpoints
 * @sdev: snode device
 *
 * Context: Process context; caller holds @sdev->rwsem for write.
 */
void __snode_msg_reset_prepare(struct snode_dev *sdev)
{
	struct snode_msg_dev *md = sdev->msg;

	lockdep_assert_held_write(&sdev->rwsem);

	if (!md)
		return;
	mutex_lock(&md->lock);
	__snode_msg_kill(md, -ECONNRESET);
	mutex_unlock(&md->lock);
}

/**
 * __snode_msg_reset_done() - the device came back from a reset
 * @sdev: snode device
 *
 * The reset ended every DMA of the old endpoints: their rings may go.
 *
 * Context: Process context; caller holds @sdev->rwsem for write.
 */
void __snode_msg_reset_done(struct snode_dev *sdev)
{
	struct snode_msg_dev *md = sdev->msg;

	lockdep_assert_held_write(&sdev->rwsem);

	if (!md)
		return;
	mutex_lock(&md->lock);
	md->reset_seq++;
	__snode_msg_free_stale(md);
	mutex_unlock(&md->lock);
}

/* Unbind, after the device was reset: free every ring. */
void snode_ep_remove_all(void *data)
{
	struct snode_msg_dev *md = data;
	u32 id;

	mutex_lock(&md->lock);
	md->removed = true;
	__snode_msg_kill(md, -ENODEV);
	mutex_unlock(&md->lock);
	/* no vector handler looks at a ring any more */
	synchronize_rcu();

	mutex_lock(&md->lock);
	for (id = 0; id < md->nr_ids; id++) {
		struct snode_ep *ep = md->eps[id];

		if (!ep || !ep->ring)
			continue;
		mutex_lock(&ep->read_lock);
		snode_ep_ring_free(md->sdev, ep->ring);
		WRITE_ONCE(ep->ring, NULL);
		mutex_unlock(&ep->read_lock);
	}
	__snode_msg_free_stale(md);
	mutex_unlock(&md->lock);
}
