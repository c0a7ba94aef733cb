// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * rma.c - fi_write and fi_read against a peer's registered memory.
 *
 * Direct (decision 0045): once the target granted its registration's
 * export (mr.c), the initiator writes into it with the DMA engine and
 * reads from it with memcpy() through the window (the engine from
 * rdv_dma_min bytes on), then sends RMA_NOTE so that the target counts the
 * operation and gets its CQ data. Writes use the engine whatever their
 * size: a store through a window whose export was withdrawn raises
 * SIGBUS, a copy by the engine fails with ECONNRESET, and a target that
 * closes its registration or exits must not kill the initiator.
 *
 * Served (decision 0034), when the target cannot export its registration
 * or did not answer: the target's provider serves reads and writes during
 * its progress (FI_PROGRESS_MANUAL: the target must read its CQ or
 * counters now and then): a write puts its bytes into the initiator's
 * bounce region and the target pulls them into the registration; a read
 * asks the target, which copies from the registration into its own bounce
 * region and answers where. The target checks the key, the access and the
 * range (mr_mode 0: the key is the application's requested_key, the
 * address an offset into the registration); a bad one completes the
 * initiator's operation with an error entry (FI_EACCES, FI_EINVAL), never
 * touching memory.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <rdma/fi_rma.h>

#include "snode_fi.h"

enum { SFI_RMA_F_DATA = 2 };

/* the registration the peer names: 0, or the -errno the initiator gets */
static int sfi_mr_check(struct sfi_ep *ep, uint64_t key, uint64_t addr,
			size_t len, uint64_t access, struct sfi_mr **out)
{
	struct sfi_mr *mr = sfi_mr_find(ep->domain, key);

	if (!mr || !(mr->access & access))
		return -EKEYREJECTED;
	if (addr > mr->len || len > mr->len - addr)
		return -EINVAL;
	*out = mr;
	return 0;
}

static void sfi_rma_write_in(struct sfi_ep *ep, const struct snode_msg *m)
{
	struct snode_ep_addr from = { .node = m->src_node, .id = m->src_ep };
	struct sfi_rdv_src rs;
	struct sfi_mr *mr;
	uint64_t key, addr, data = 0;
	uint32_t len;
	int status;

	memcpy(&len, m->payload + 4, 4);
	memcpy(&key, m->payload + 8, 8);
	memcpy(&addr, m->payload + 16, 8);
	sfi_rdv_parse(m, 24, &rs);
	from.key = rs.key;
	if (m->payload[1] & SFI_RMA_F_DATA)
		memcpy(&data, m->payload + 40, 8);
	status = sfi_mr_check(ep, key, addr, len, FI_REMOTE_WRITE, &mr);
	if (!status) {
		struct iovec iov = { .iov_base = mr->base + addr, .iov_len = len };

		status = sfi_rdv_pull(ep, &rs, &iov, 1, len);
		ep->domain->stats.rma_served++;
	}
	sfi_rdv_done(ep, &from, &rs, status);
	if (!status)
		sfi_remote_done(ep, FI_REMOTE_WRITE);
	if (!status && (m->payload[1] & SFI_RMA_F_DATA))
		sfi_remote_write_data(ep, len, data, from.node, from.id);
}

void sfi_remote_write_data(struct sfi_ep *ep, size_t len, uint64_t data,
			   uint32_t node, uint32_t epid)
{
	struct fi_cq_err_entry e = {
		.flags = FI_RMA | FI_REMOTE_WRITE | FI_REMOTE_CQ_DATA,
		.len = len,
		.data = data,
	};
	fi_addr_t src = FI_ADDR_NOTAVAIL;

	if (!ep->rx_cq)
		return;
	if (ep->av && (ep->caps & FI_SOURCE))
		src = sfi_av_reverse(ep->av, node, epid);
	sfi_cq_push(ep->rx_cq, &e, src);
}

static void sfi_rma_read_in(struct sfi_ep *ep, const struct snode_msg *m)
{
	struct snode_ep_addr from = { .node = m->src_node, .id = m->src_ep };
	uint8_t r[28] = { SFI_OP_READ_RESP };
	struct sfi_op *op = NULL;
	struct sfi_mr *mr;
	uint64_t key, addr;
	uint32_t len;
	int32_t status;

	memcpy(&len, m->payload + 4, 4);
	memcpy(&key, m->payload + 8, 8);
	memcpy(&addr, m->payload + 16, 8);
	memcpy(r + 8, m->payload + 24, 4);	/* the initiator's id */
	memcpy(&from.key, m->payload + 28, 8);
	status = sfi_mr_check(ep, key, addr, len, FI_REMOTE_READ, &mr);
	if (!status) {
		status = sfi_op_new(ep, SFI_K_SERVE, &from, len ? len : 1, &op);
		if (status == -FI_EAGAIN || status == -FI_EMSGSIZE)
			status = -ENOSPC;	/* no room for it in the bounce */
	}
	if (!status) {
		memcpy((char *)ep->rdv.map + op->off, mr->base + addr, len);
		ep->domain->stats.rma_served++;
		ep->domain->stats.bounce_copies++;
		ep->domain->stats.bounce_bytes += len;
		op->len = len;
		memcpy(r + 12, &op->off, 4);
		memcpy(r + 16, &ep->rdv.h.export_id, 4);
		memcpy(r + 20, &ep->rdv.h.key, 8);
		sfi_remote_done(ep, FI_REMOTE_READ);
	}
	memcpy(r + 4, &status, 4);
	sfi_ctl_send(ep, &from, r, sizeof(r));
}

void sfi_rma_handle(struct sfi_ep *ep, const struct snode_msg *m)
{
	size_t need = m->payload[0] == SFI_OP_WRITE ?
		      ((m->payload[1] & SFI_RMA_F_DATA) ? 48 : 40) : 36;

	if (m->len < need) {
		FI_WARN(&sfi_prov, FI_LOG_EP_DATA,
			"short RMA request from node %u endpoint %u; dropped\n",
			m->src_node, m->src_ep);
		return;
	}
	if (m->payload[0] == SFI_OP_WRITE)
		sfi_rma_write_in(ep, m);
	else
		sfi_rma_read_in(ep, m);
}

/* --- the initiator ----------------------------------------------------------- */
static struct sfi_ep *to_ep(struct fid_ep *f)
{
	return container_of(f, struct sfi_ep, ep_fid);
}

/* the DMA engine's queue of the endpoint: 0 or -errno */
int sfi_dma_queue(struct sfi_ep *ep)
{
	int ret;

	if (ep->rdv.dmaq)
		return 0;
	ret = snode_dma_queue_new(ep->domain->dev, 4, &ep->rdv.dmaq);
	if (ret < 0)
		ep->rdv.dmaq = NULL;
	return ret < 0 ? ret : 0;
}

/*
 * Straight into or out of the target's registration r: 0, -ENOSYS (cannot
 * go this way: serve it), -ECONNRESET (the grant was withdrawn: ask
 * again), or the -errno the operation fails with.
 */
static int sfi_rma_direct(struct sfi_ep *ep, struct sfi_rmr *r, int write,
			  const struct iovec *iov, size_t count, size_t len,
			  uint64_t addr, int has_data, uint64_t data)
{
	uint8_t m[24] = { SFI_OP_RMA_NOTE };
	uint64_t off, pos = 0;
	uint32_t len32 = len;
	size_t i;
	int ret;

	if (addr > r->len || len > r->len - addr)
		return -EINVAL;
	if (write && !r->writable)
		return -EKEYREJECTED;
	off = r->page_off + addr;
	if (write || (sfi_params.rdv_dma_min && len >= sfi_params.rdv_dma_min)) {
		if (len && sfi_dma_queue(ep))
			return write ? -ENOSYS : -EAGAIN;
		for (i = 0; i < count && pos < len; i++) {
			if (!iov[i].iov_len)
				continue;
			ret = snode_dma_copy(ep->rdv.dmaq,
					     write ? SNODE_DMA_TO_GLOBAL :
						     SNODE_DMA_FROM_GLOBAL,
					     r->imp, off + pos, iov[i].iov_base,
					     iov[i].iov_len);
			if (ret < 0)
				return ret;
			pos += iov[i].iov_len;
		}
	} else {
		/* a withdrawn window reads zeros: were these? */
		sfi_iov_copy(iov, count, 0, (char *)r->map + off, len, 1);
		ret = sfi_import_active(r->imp);
		if (ret)
			return ret;
	}
	m[1] = (write ? SFI_NOTE_WRITE : 0) |
	       (write && has_data ? SFI_NOTE_DATA : 0);
	memcpy(m + 4, &len32, 4);
	memcpy(m + 8, &r->mr_key, 8);
	memcpy(m + 16, &data, 8);
	sfi_ctl_send(ep, &r->peer, m, sizeof(m));
	ep->domain->stats.rma_direct++;
	return 0;
}

/* through the target's provider and the bounce regions (decision 0034) */
static ssize_t sfi_rma_served(struct sfi_ep *ep, int write,
			      const struct iovec *iov, size_t count,
			      const struct snode_ep_addr *dst, uint64_t addr,
			      uint64_t key, int has_data, uint64_t data,
			      void *context, uint64_t flags, int inject,
			      int queued)
{
	uint8_t m[SNODE_MSG_MAX_LEN] = { 0 };
	size_t len = sfi_iov_total(iov, count);
	uint32_t len32 = len;
	struct sfi_op *op;
	ssize_t ret;

	ret = sfi_op_new(ep, write ? SFI_K_WRITE : SFI_K_READ, dst,
			 write ? (len ? len : 1) : 0, &op);
	if (ret == -FI_EAGAIN && !queued) {	/* only writes take a slot */
		sfi_ep_progress(ep);	/* DONE answers free slots */
		ret = sfi_op_new(ep, SFI_K_WRITE, dst, len ? len : 1, &op);
	}
	if (ret)
		return ret;
	m[0] = write ? SFI_OP_WRITE : SFI_OP_READ;
	memcpy(m + 4, &len32, 4);
	memcpy(m + 8, &key, 8);
	memcpy(m + 16, &addr, 8);
	if (write) {
		sfi_iov_copy(iov, count, 0, (char *)ep->rdv.map + op->off, len,
			     0);
		ep->domain->stats.bounce_copies++;
		ep->domain->stats.bounce_bytes += len;
		memcpy(m + 24, &op->off, 4);
		memcpy(m + 28, &ep->rdv.h.export_id, 4);
		memcpy(m + 32, &ep->rdv.h.key, 8);
		if (has_data) {
			m[1] = SFI_RMA_F_DATA;
			memcpy(m + 40, &data, 8);
		}
	} else {
		op->id = ep->rdv.next_id++;
		memcpy(op->iov, iov, count * sizeof(*iov));
		op->iov_count = count;
		memcpy(m + 24, &op->id, 4);
		memcpy(m + 28, &ep->addr.ep.key, 8);
	}
	op->context = context;
	op->flags = FI_RMA | (write ? FI_WRITE : FI_READ) |
		    (flags & FI_COMPLETION);
	op->len = len;
	op->want_comp = !inject;
	return sfi_op_request(ep, op, m, write ? (has_data ? 48 : 40) : 36);
}

/*
 * Under the domain lock: start an RMA operation, or run one that waited
 * for its target's grant (queued: it is no longer on the endpoint's list,
 * and it is freed or put back here). 0, -FI_EAGAIN, or (an inject) the
 * error.
 */
static ssize_t sfi_rma_start(struct sfi_ep *ep, int write,
			     const struct iovec *iov, size_t count,
			     const struct snode_ep_addr *dst, uint64_t addr,
			     uint64_t key, int has_data, uint64_t data,
			     void *context, uint64_t flags, int inject,
			     struct sfi_op *queued)
{
	size_t len = sfi_iov_total(iov, count);
	uint64_t cflags = FI_RMA | (write ? FI_WRITE : FI_READ) |
			  (flags & FI_COMPLETION);
	struct sfi_rmr *r = NULL;
	struct sfi_op *op;
	ssize_t ret;
	int e;

	if (sfi_params.mr_export)
		r = queued && queued->rmr ? queued->rmr :
		    sfi_rmr_get(ep, dst, key);
	if (r && r->state == SFI_RMR_GRANTED) {
		ret = sfi_rma_direct(ep, r, write, iov, count, len, addr,
				     has_data, data);
		if (ret == -ECONNRESET) {
			/* withdrawn: ask once more (re-registered?), then
			 * let the target say what became of it */
			sfi_rmr_drop(ep, r);
			r = queued ? NULL : sfi_rmr_get(ep, dst, key);
		} else if (ret == -EAGAIN) {
			r = NULL;	/* no DMA queue for a read: served */
		} else if (ret != -ENOSYS) {
			e = ret ? -sfi_errno(ret) : 0;
			sfi_tx_done(ep, context, cflags, ret ? 0 : len, e,
				    -ret, !inject);
			if (queued)
				sfi_op_free(ep, queued);
			return ret && inject ? -e : 0;
		} else {
			r = NULL;
		}
	}
	if (r && r->state == SFI_RMR_ASKED) {
		/* wait for the grant, in the order posted */
		if (queued) {
			op = queued;
		} else {
			ret = sfi_op_new(ep, SFI_K_RMAQ, dst, 0, &op);
			if (ret)
				return ret;
			ep->rdv.ops = op->next;	/* sfi_op_new() put it first */
		}
		op->next = NULL;
		{
			struct sfi_op **pp = &ep->rdv.ops;

			while (*pp)
				pp = &(*pp)->next;
			*pp = op;
		}
		if (!queued) {
			op->write = write;
			op->addr = addr;
			op->key = key;
			op->has_data = has_data;
			op->data = data;
			op->context = context;
			op->flags = cflags;
			op->len = len;
			op->want_comp = !inject;
			if (inject && len) {	/* the caller's buffer is its own again */
				op->ibuf = malloc(len);
				if (!op->ibuf) {
					sfi_op_free(ep, op);
					return -FI_ENOMEM;
				}
				sfi_iov_copy(iov, count, 0, op->ibuf, len, 0);
				op->iov[0].iov_base = op->ibuf;
				op->iov[0].iov_len = len;
				op->iov_count = 1;
			} else {
				memcpy(op->iov, iov, count * sizeof(*iov));
				op->iov_count = count;
			}
		}
		op->rmr = r;
		return 0;
	}
	/* a queued operation runs inside progress: no progress again */
	ret = sfi_rma_served(ep, write, iov, count, dst, addr, key, has_data,
			     data, context, flags, inject, !!queued);
	if (queued && ret == -FI_EAGAIN)
		return ret;	/* the caller puts it back */
	if (queued)
		sfi_op_free(ep, queued);
	return ret;
}

/*
 * Under the domain lock, from progress: the operations whose target's
 * registration is now known (granted, or to be served) run, in the order
 * posted. Not again from inside itself: a served operation may progress
 * the endpoint (its request waits for room), which comes back here.
 */
void sfi_rmaq_run(struct sfi_ep *ep)
{
	struct sfi_op *op, **pp;
	ssize_t ret;

	if (ep->rmaq_running)
		return;
	ep->rmaq_running = 1;
again:
	for (pp = &ep->rdv.ops; (op = *pp); pp = &op->next) {
		struct iovec iov[SFI_IOV_LIMIT];
		size_t count = op->iov_count;

		if (op->kind != SFI_K_RMAQ ||
		    (op->rmr && op->rmr->state == SFI_RMR_ASKED))
			continue;
		*pp = op->next;
		memcpy(iov, op->iov, sizeof(iov));
		ret = sfi_rma_start(ep, op->write, iov, count, &op->peer,
				    op->addr, op->key, op->has_data, op->data,
				    op->context, op->flags, !op->want_comp, op);
		if (ret == -FI_EAGAIN) {
			/* the bounce is full: first in line next time (the
			 * list may have changed under sfi_rma_start()) */
			op->rmr = NULL;
			op->next = ep->rdv.ops;
			ep->rdv.ops = op;
			break;
		}
		goto again;
	}
	ep->rmaq_running = 0;
}

static ssize_t sfi_rma(struct sfi_ep *ep, int write, const struct iovec *iov,
		       size_t count, fi_addr_t peer, uint64_t addr,
		       uint64_t key, int has_data, uint64_t data,
		       void *context, uint64_t flags, int inject)
{
	struct sfi_addr dst;
	size_t len;
	ssize_t ret;

	ret = sfi_iov_len(iov, count, inject, &len);
	if (ret)
		return ret;
	pthread_mutex_lock(&ep->domain->lock);
	ret = sfi_op_check(ep, FI_RMA, peer, &dst);
	if (!ret)
		ret = sfi_rma_start(ep, write, iov, count, &dst.ep, addr, key,
				    has_data, data, context, flags, inject,
				    NULL);
	pthread_mutex_unlock(&ep->domain->lock);
	return ret;
}

#define IOV1(buf, len) (&(struct iovec){ .iov_base = (void *)(buf), .iov_len = (len) })

static ssize_t sfi_read(struct fid_ep *ep, void *buf, size_t len, void *desc,
			fi_addr_t src, uint64_t addr, uint64_t key,
			void *context)
{
	return sfi_rma(to_ep(ep), 0, IOV1(buf, len), 1, src, addr, key, 0, 0,
		       context, FI_COMPLETION, 0);
}

static ssize_t sfi_readv(struct fid_ep *ep, const struct iovec *iov,
			 void **desc, size_t count, fi_addr_t src,
			 uint64_t addr, uint64_t key, void *context)
{
	return sfi_rma(to_ep(ep), 0, iov, count, src, addr, key, 0, 0,
		       context, FI_COMPLETION, 0);
}

static ssize_t sfi_rmamsg(struct fid_ep *ep, const struct fi_msg_rma *msg,
			  uint64_t flags, int write)
{
	if (msg->rma_iov_count != 1 || !msg->rma_iov ||
	    msg->rma_iov[0].len != sfi_iov_total(msg->msg_iov, msg->iov_count))
		return -FI_EINVAL;
	return sfi_rma(to_ep(ep), write, msg->msg_iov, msg->iov_count,
		       msg->addr, msg->rma_iov[0].addr, msg->rma_iov[0].key,
		       write && (flags & FI_REMOTE_CQ_DATA), msg->data,
		       msg->context, flags,
		       write && (flags & FI_INJECT) && !(flags & FI_COMPLETION));
}

static ssize_t sfi_readmsg(struct fid_ep *ep, const struct fi_msg_rma *msg,
			   uint64_t flags)
{
	return sfi_rmamsg(ep, msg, flags, 0);
}

static ssize_t sfi_write(struct fid_ep *ep, const void *buf, size_t len,
			 void *desc, fi_addr_t dest, uint64_t addr,
			 uint64_t key, void *context)
{
	return sfi_rma(to_ep(ep), 1, IOV1(buf, len), 1, dest, addr, key, 0, 0,
		       context, FI_COMPLETION, 0);
}

static ssize_t sfi_writev(struct fid_ep *ep, const struct iovec *iov,
			  void **desc, size_t count, fi_addr_t dest,
			  uint64_t addr, uint64_t key, void *context)
{
	return sfi_rma(to_ep(ep), 1, iov, count, dest, addr, key, 0, 0,
		       context, FI_COMPLETION, 0);
}

static ssize_t sfi_writemsg(struct fid_ep *ep, const struct fi_msg_rma *msg,
			    uint64_t flags)
{
	return sfi_rmamsg(ep, msg, flags, 1);
}

static ssize_t sfi_inject_write(struct fid_ep *ep, const void *buf,
				size_t len, fi_addr_t dest, uint64_t addr,
				uint64_t key)
{
	return sfi_rma(to_ep(ep), 1, IOV1(buf, len), 1, dest, addr, key, 0, 0,
		       NULL, 0, 1);
}

static ssize_t sfi_writedata(struct fid_ep *ep, const void *buf, size_t len,
			     void *desc, uint64_t data, fi_addr_t dest,
			     uint64_t addr, uint64_t key, void *context)
{
	return sfi_rma(to_ep(ep), 1, IOV1(buf, len), 1, dest, addr, key, 1,
		       data, context, FI_COMPLETION, 0);
}

static ssize_t sfi_inject_writedata(struct fid_ep *ep, const void *buf,
				    size_t len, uint64_t data, fi_addr_t dest,
				    uint64_t addr, uint64_t key)
{
	return sfi_rma(to_ep(ep), 1, IOV1(buf, len), 1, dest, addr, key, 1,
		       data, NULL, 0, 1);
}

struct fi_ops_rma sfi_rma_ops = {
	.size = sizeof(struct fi_ops_rma),
	.read = sfi_read,
	.readv = sfi_readv,
	.readmsg = sfi_readmsg,
	.write = sfi_write,
	.writev = sfi_writev,
	.writemsg = sfi_writemsg,
	.inject = sfi_inject_write,
	.writedata = sfi_writedata,
	.injectdata = sfi_inject_writedata,
};
