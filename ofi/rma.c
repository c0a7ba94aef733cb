// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * rma.c - fi_write and fi_read against a peer's registered memory.
 *
 * A registration names ordinary host memory of its process, which no peer
 * can map, so RMA is carried by the rendezvous of rdv.c and served by the
 * target's provider during its progress (FI_PROGRESS_MANUAL: the target
 * must read its CQ or counters now and then): a write puts its bytes into
 * the initiator's bounce region and the target pulls them into the
 * registration; a read asks the target, which copies from the registration
 * into its own bounce region and answers where. The target checks the key,
 * the access and the range (mr_mode 0: the key is the application's
 * requested_key, the address an offset into the registration); a bad one
 * completes the initiator's operation with an error entry
 * (FI_EACCES, FI_EINVAL), never touching memory. See decision 0034.
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
	}
	sfi_rdv_done(ep, &from, rs.off, status);
	if (!status)
		sfi_remote_done(ep, FI_REMOTE_WRITE);
	if (!status && (m->payload[1] & SFI_RMA_F_DATA) && ep->rx_cq) {
		struct fi_cq_err_entry e = {
			.flags = FI_RMA | FI_REMOTE_WRITE | FI_REMOTE_CQ_DATA,
			.len = len,
			.data = data,
		};
		fi_addr_t src = FI_ADDR_NOTAVAIL;

		if (ep->av && (ep->caps & FI_SOURCE))
			src = sfi_av_reverse(ep->av, from.node, from.id);
		sfi_cq_push(ep->rx_cq, &e, src);
	}
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

static ssize_t sfi_rma(struct sfi_ep *ep, int write, const struct iovec *iov,
		       size_t count, fi_addr_t peer, uint64_t addr,
		       uint64_t key, int has_data, uint64_t data,
		       void *context, uint64_t flags, int inject)
{
	uint8_t m[SNODE_MSG_MAX_LEN] = { 0 };
	struct sfi_addr dst;
	struct sfi_op *op;
	uint32_t len32;
	size_t len;
	ssize_t ret;

	if (count > SFI_IOV_LIMIT || (count && !iov))
		return -FI_EINVAL;
	len = sfi_iov_total(iov, count);
	if (len > sfi_params.max_msg_size || (inject && len > 4096))
		return -FI_EMSGSIZE;
	len32 = len;
	pthread_mutex_lock(&ep->domain->lock);
	ret = sfi_op_check(ep, FI_RMA, peer, &dst);
	if (ret)
		goto out;
	ret = sfi_op_new(ep, write ? SFI_K_WRITE : SFI_K_READ, &dst.ep,
			 write ? (len ? len : 1) : 0, &op);
	if (ret == -FI_EAGAIN) {	/* only writes take a slot here */
		sfi_ep_progress(ep);	/* DONE answers free slots */
		ret = sfi_op_new(ep, SFI_K_WRITE, &dst.ep, len ? len : 1, &op);
	}
	if (ret)
		goto out;
	m[0] = write ? SFI_OP_WRITE : SFI_OP_READ;
	memcpy(m + 4, &len32, 4);
	memcpy(m + 8, &key, 8);
	memcpy(m + 16, &addr, 8);
	if (write) {
		sfi_iov_copy(iov, count, 0, (char *)ep->rdv.map + op->off, len,
			     0);
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
	ret = sfi_op_request(ep, op, m, write ? (has_data ? 48 : 40) : 36);
out:
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
