// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * atomic.c - fi_atomic, fi_fetch_atomic and fi_compare_atomic on one
 * integer of a peer's registration.
 *
 * The hardware's cross-node atomics are CPU atomics on the RAM alias of an
 * exporter's pool, and a registration is ordinary host memory, not pool
 * memory (decision 0034). So the target's provider executes the operation
 * during its progress with a compare-and-swap loop of the CPU's atomic
 * instructions on the registered word: atomic against every other atomic
 * access to that word on the target node, the application's own threads
 * included, and the old value travels back in the answer.
 *
 * Wire format, one snode message each:
 *   ATOMIC      u8 9, u8 kind (0 write, 1 fetch, 2 compare), u8 datatype,
 *               u8 op, u32 id, u64 mr key, u64 addr, u64 operand,
 *               u64 compare, u64 the initiator's endpoint key
 *   ATOMIC_RESP u8 10, u8 0, u16 0, s32 status, u32 id, u32 0, u64 old value
 */
#include <errno.h>
#include <string.h>

#include <rdma/fi_atomic.h>

#include "snode_fi.h"

enum { SFI_AT_WRITE, SFI_AT_FETCH, SFI_AT_COMPARE };

/* bytes of a supported datatype (the integers), else 0 */
static size_t sfi_at_size(enum fi_datatype dt)
{
	switch (dt) {
	case FI_INT8: case FI_UINT8: return 1;
	case FI_INT16: case FI_UINT16: return 2;
	case FI_INT32: case FI_UINT32: return 4;
	case FI_INT64: case FI_UINT64: return 8;
	default: return 0;
	}
}

static int sfi_at_op_ok(int kind, enum fi_op op)
{
	switch (op) {
	case FI_MIN: case FI_MAX: case FI_SUM: case FI_BOR: case FI_BAND:
	case FI_BXOR: case FI_ATOMIC_WRITE:
		return kind != SFI_AT_COMPARE;
	case FI_ATOMIC_READ:
		return kind == SFI_AT_FETCH;
	case FI_CSWAP:
		return kind == SFI_AT_COMPARE;
	default:
		return 0;
	}
}

/* 0 and *count 1 if the provider does op on dt, else -FI_EOPNOTSUPP */
static int sfi_at_valid(int kind, enum fi_datatype dt, enum fi_op op,
			size_t *count)
{
	if (!sfi_at_size(dt) || !sfi_at_op_ok(kind, op))
		return -FI_EOPNOTSUPP;
	if (count)
		*count = 1;
	return 0;
}

int sfi_query_atomic(struct fid_domain *domain, enum fi_datatype dt,
		     enum fi_op op, struct fi_atomic_attr *attr, uint64_t flags)
{
	int kind = flags & FI_COMPARE_ATOMIC ? SFI_AT_COMPARE :
		   flags & FI_FETCH_ATOMIC ? SFI_AT_FETCH : SFI_AT_WRITE;
	int ret;

	if (flags & ~(uint64_t)(FI_FETCH_ATOMIC | FI_COMPARE_ATOMIC) ||
	    (flags & FI_FETCH_ATOMIC && flags & FI_COMPARE_ATOMIC))
		return -FI_EINVAL;
	ret = sfi_at_valid(kind, dt, op, attr ? &attr->count : NULL);
	if (!ret && attr)
		attr->size = sfi_at_size(dt);
	return ret;
}

/* --- the target ------------------------------------------------------------- */
#define SFI_AT_LOOP(type)						\
	do {								\
		type *q = p, o = __atomic_load_n(q, __ATOMIC_SEQ_CST), n; \
		type v = (type)operand, c = (type)compare;		\
									\
		do {							\
			switch (op) {					\
			case FI_MIN: n = v < o ? v : o; break;		\
			case FI_MAX: n = v > o ? v : o; break;		\
			case FI_SUM: n = o + v; break;			\
			case FI_BOR: n = o | v; break;			\
			case FI_BAND: n = o & v; break;			\
			case FI_BXOR: n = o ^ v; break;			\
			case FI_ATOMIC_WRITE: n = v; break;		\
			case FI_CSWAP: n = o == c ? v : o; break;	\
			default: n = o; break;	/* FI_ATOMIC_READ */	\
			}						\
		} while (!__atomic_compare_exchange_n(q, &o, n, 0,	\
						      __ATOMIC_SEQ_CST,	\
						      __ATOMIC_SEQ_CST)); \
		memcpy(old, &o, sizeof(o));				\
	} while (0)

static void sfi_at_apply(void *p, enum fi_datatype dt, enum fi_op op,
			 uint64_t operand, uint64_t compare, uint64_t *old)
{
	*old = 0;
	switch (dt) {
	case FI_INT8: SFI_AT_LOOP(int8_t); break;
	case FI_UINT8: SFI_AT_LOOP(uint8_t); break;
	case FI_INT16: SFI_AT_LOOP(int16_t); break;
	case FI_UINT16: SFI_AT_LOOP(uint16_t); break;
	case FI_INT32: SFI_AT_LOOP(int32_t); break;
	case FI_UINT32: SFI_AT_LOOP(uint32_t); break;
	case FI_INT64: SFI_AT_LOOP(int64_t); break;
	default: SFI_AT_LOOP(uint64_t); break;
	}
}

void sfi_atomic_handle(struct sfi_ep *ep, const struct snode_msg *m)
{
	struct snode_ep_addr from = { .node = m->src_node, .id = m->src_ep };
	uint8_t r[24] = { SFI_OP_ATOMIC_RESP };
	uint64_t key, addr, operand, compare, old = 0;
	enum fi_datatype dt = m->payload[2];
	enum fi_op op = m->payload[3];
	size_t size = sfi_at_size(dt);
	struct sfi_mr *mr;
	int32_t status;

	if (m->len < 48) {
		FI_WARN(&sfi_prov, FI_LOG_EP_DATA,
			"short atomic request from node %u endpoint %u; dropped\n",
			m->src_node, m->src_ep);
		return;
	}
	memcpy(r + 8, m->payload + 4, 4);	/* the initiator's id */
	memcpy(&key, m->payload + 8, 8);
	memcpy(&addr, m->payload + 16, 8);
	memcpy(&operand, m->payload + 24, 8);
	memcpy(&compare, m->payload + 32, 8);
	memcpy(&from.key, m->payload + 40, 8);
	mr = sfi_mr_find(ep->domain, key);
	if (m->payload[1] > SFI_AT_COMPARE || !size ||
	    !sfi_at_op_ok(m->payload[1], op))
		status = -EOPNOTSUPP;
	else if (!mr || !(mr->access & FI_REMOTE_WRITE) ||
		 (m->payload[1] != SFI_AT_WRITE &&
		  !(mr->access & FI_REMOTE_READ)))
		status = -EKEYREJECTED;
	else if (addr > mr->len || size > mr->len - addr ||
		 (uintptr_t)(mr->base + addr) % size)
		status = -EINVAL;	/* outside, or not naturally aligned */
	else
		status = 0;
	if (!status) {
		sfi_at_apply(mr->base + addr, dt, op, operand, compare, &old);
		/* fi_cntr(3): fetch and compare count as reads */
		sfi_remote_done(ep, m->payload[1] == SFI_AT_WRITE ?
				FI_REMOTE_WRITE : FI_REMOTE_READ);
	}
	memcpy(r + 4, &status, 4);
	memcpy(r + 16, &old, 8);
	sfi_ctl_send(ep, &from, r, sizeof(r));
}

/* the initiator: the answer to one of its operations */
void sfi_atomic_resp(struct sfi_ep *ep, const struct snode_msg *m)
{
	struct sfi_op *op;
	int32_t status;
	uint32_t id;

	if (m->len < 24)
		return;
	memcpy(&status, m->payload + 4, 4);
	memcpy(&id, m->payload + 8, 4);
	op = sfi_op_find(ep, m, 1, id);
	if (!op || op->kind != SFI_K_ATOMIC)
		return;
	status = sfi_peer_status(m, status);
	if (!status && op->iov_count)	/* the fetched value, our own size */
		memcpy(op->iov[0].iov_base, m->payload + 16,
		       op->iov[0].iov_len < 8 ? op->iov[0].iov_len : 8);
	sfi_op_end(ep, op, status);
}

/* --- the initiator ----------------------------------------------------------- */
static struct sfi_ep *to_ep(struct fid_ep *f)
{
	return container_of(f, struct sfi_ep, ep_fid);
}

static ssize_t sfi_atomic_post(struct sfi_ep *ep, int kind, const void *buf,
			       size_t count, const void *compare, void *result,
			       fi_addr_t dest, uint64_t addr, uint64_t key,
			       enum fi_datatype dt, enum fi_op aop,
			       void *context, uint64_t flags, int inject)
{
	uint8_t m[SNODE_MSG_MAX_LEN] = { SFI_OP_ATOMIC, kind, dt, aop };
	size_t size = sfi_at_size(dt);
	struct sfi_addr dst;
	struct sfi_op *op;
	uint64_t v = 0;
	ssize_t ret;

	if (sfi_at_valid(kind, dt, aop, NULL))
		return -FI_EOPNOTSUPP;
	if (count != 1 || (!buf && aop != FI_ATOMIC_READ) ||
	    (kind != SFI_AT_WRITE && !result) ||
	    (kind == SFI_AT_COMPARE && !compare))
		return -FI_EINVAL;
	pthread_mutex_lock(&ep->domain->lock);
	ret = sfi_op_check(ep, FI_ATOMIC, dest, &dst);
	if (ret)
		goto out;
	ret = sfi_op_new(ep, SFI_K_ATOMIC, &dst.ep, 0, &op);
	if (ret)
		goto out;
	op->id = ep->rdv.next_id++;
	memcpy(m + 4, &op->id, 4);
	memcpy(m + 8, &key, 8);
	memcpy(m + 16, &addr, 8);
	if (buf)
		memcpy(&v, buf, size);
	memcpy(m + 24, &v, 8);
	if (kind == SFI_AT_COMPARE) {
		v = 0;
		memcpy(&v, compare, size);
		memcpy(m + 32, &v, 8);
	}
	memcpy(m + 40, &ep->addr.ep.key, 8);
	if (kind != SFI_AT_WRITE) {
		op->iov[0].iov_base = result;
		op->iov[0].iov_len = size;
		op->iov_count = 1;
	}
	op->context = context;
	op->flags = FI_ATOMIC | (kind == SFI_AT_WRITE ? FI_WRITE : FI_READ) |
		    (flags & FI_COMPLETION);
	op->len = size;
	op->want_comp = !inject;
	ret = sfi_op_request(ep, op, m, sizeof(m));
out:
	pthread_mutex_unlock(&ep->domain->lock);
	return ret;
}

static ssize_t sfi_atomic(struct fid_ep *ep, const void *buf, size_t count,
			  void *desc, fi_addr_t dest, uint64_t addr,
			  uint64_t key, enum fi_datatype dt, enum fi_op op,
			  void *context)
{
	return sfi_atomic_post(to_ep(ep), SFI_AT_WRITE, buf, count, NULL, NULL,
			       dest, addr, key, dt, op, context, FI_COMPLETION,
			       0);
}

static ssize_t sfi_atomicv(struct fid_ep *ep, const struct fi_ioc *iov,
			   void **desc, size_t count, fi_addr_t dest,
			   uint64_t addr, uint64_t key, enum fi_datatype dt,
			   enum fi_op op, void *context)
{
	if (count != 1 || !iov)
		return -FI_EINVAL;
	return sfi_atomic_post(to_ep(ep), SFI_AT_WRITE, iov->addr, iov->count,
			       NULL, NULL, dest, addr, key, dt, op, context,
			       FI_COMPLETION, 0);
}

static ssize_t sfi_atomicmsg(struct fid_ep *ep, const struct fi_msg_atomic *msg,
			     uint64_t flags)
{
	if (msg->iov_count != 1 || !msg->msg_iov || msg->rma_iov_count != 1 ||
	    !msg->rma_iov)
		return -FI_EINVAL;
	return sfi_atomic_post(to_ep(ep), SFI_AT_WRITE, msg->msg_iov->addr,
			       msg->msg_iov->count, NULL, NULL, msg->addr,
			       msg->rma_iov->addr, msg->rma_iov->key,
			       msg->datatype, msg->op, msg->context, flags,
			       (flags & FI_INJECT) && !(flags & FI_COMPLETION));
}

static ssize_t sfi_atomic_inject(struct fid_ep *ep, const void *buf,
				 size_t count, fi_addr_t dest, uint64_t addr,
				 uint64_t key, enum fi_datatype dt,
				 enum fi_op op)
{
	return sfi_atomic_post(to_ep(ep), SFI_AT_WRITE, buf, count, NULL, NULL,
			       dest, addr, key, dt, op, NULL, 0, 1);
}

static ssize_t sfi_fetch(struct fid_ep *ep, const void *buf, size_t count,
			 void *desc, void *result, void *result_desc,
			 fi_addr_t dest, uint64_t addr, uint64_t key,
			 enum fi_datatype dt, enum fi_op op, void *context)
{
	return sfi_atomic_post(to_ep(ep), SFI_AT_FETCH, buf, count, NULL,
			       result, dest, addr, key, dt, op, context,
			       FI_COMPLETION, 0);
}

static ssize_t sfi_fetchv(struct fid_ep *ep, const struct fi_ioc *iov,
			  void **desc, size_t count, struct fi_ioc *resultv,
			  void **result_desc, size_t result_count,
			  fi_addr_t dest, uint64_t addr, uint64_t key,
			  enum fi_datatype dt, enum fi_op op, void *context)
{
	if (count != 1 || !iov || result_count != 1 || !resultv ||
	    resultv->count != 1)
		return -FI_EINVAL;
	return sfi_atomic_post(to_ep(ep), SFI_AT_FETCH, iov->addr, iov->count,
			       NULL, resultv->addr, dest, addr, key, dt, op,
			       context, FI_COMPLETION, 0);
}

static ssize_t sfi_fetchmsg(struct fid_ep *ep, const struct fi_msg_atomic *msg,
			    struct fi_ioc *resultv, void **result_desc,
			    size_t result_count, uint64_t flags)
{
	if (msg->iov_count != 1 || !msg->msg_iov || msg->rma_iov_count != 1 ||
	    !msg->rma_iov || result_count != 1 || !resultv ||
	    resultv->count != 1)
		return -FI_EINVAL;
	return sfi_atomic_post(to_ep(ep), SFI_AT_FETCH, msg->msg_iov->addr,
			       msg->msg_iov->count, NULL, resultv->addr,
			       msg->addr, msg->rma_iov->addr,
			       msg->rma_iov->key, msg->datatype, msg->op,
			       msg->context, flags, 0);
}

static ssize_t sfi_comp(struct fid_ep *ep, const void *buf, size_t count,
			void *desc, const void *compare, void *compare_desc,
			void *result, void *result_desc, fi_addr_t dest,
			uint64_t addr, uint64_t key, enum fi_datatype dt,
			enum fi_op op, void *context)
{
	return sfi_atomic_post(to_ep(ep), SFI_AT_COMPARE, buf, count, compare,
			       result, dest, addr, key, dt, op, context,
			       FI_COMPLETION, 0);
}

static ssize_t sfi_compv(struct fid_ep *ep, const struct fi_ioc *iov,
			 void **desc, size_t count,
			 const struct fi_ioc *comparev, void **compare_desc,
			 size_t compare_count, struct fi_ioc *resultv,
			 void **result_desc, size_t result_count,
			 fi_addr_t dest, uint64_t addr, uint64_t key,
			 enum fi_datatype dt, enum fi_op op, void *context)
{
	if (count != 1 || !iov || compare_count != 1 || !comparev ||
	    comparev->count != 1 || result_count != 1 || !resultv ||
	    resultv->count != 1)
		return -FI_EINVAL;
	return sfi_atomic_post(to_ep(ep), SFI_AT_COMPARE, iov->addr,
			       iov->count, comparev->addr, resultv->addr, dest,
			       addr, key, dt, op, context, FI_COMPLETION, 0);
}

static ssize_t sfi_compmsg(struct fid_ep *ep, const struct fi_msg_atomic *msg,
			   const struct fi_ioc *comparev, void **compare_desc,
			   size_t compare_count, struct fi_ioc *resultv,
			   void **result_desc, size_t result_count,
			   uint64_t flags)
{
	if (msg->iov_count != 1 || !msg->msg_iov || msg->rma_iov_count != 1 ||
	    !msg->rma_iov || compare_count != 1 || !comparev ||
	    comparev->count != 1 || result_count != 1 || !resultv ||
	    resultv->count != 1)
		return -FI_EINVAL;
	return sfi_atomic_post(to_ep(ep), SFI_AT_COMPARE, msg->msg_iov->addr,
			       msg->msg_iov->count, comparev->addr,
			       resultv->addr, msg->addr, msg->rma_iov->addr,
			       msg->rma_iov->key, msg->datatype, msg->op,
			       msg->context, flags, 0);
}

static int sfi_writevalid(struct fid_ep *ep, enum fi_datatype dt,
			  enum fi_op op, size_t *count)
{
	return sfi_at_valid(SFI_AT_WRITE, dt, op, count);
}

static int sfi_readwritevalid(struct fid_ep *ep, enum fi_datatype dt,
			      enum fi_op op, size_t *count)
{
	return sfi_at_valid(SFI_AT_FETCH, dt, op, count);
}

static int sfi_compwritevalid(struct fid_ep *ep, enum fi_datatype dt,
			      enum fi_op op, size_t *count)
{
	return sfi_at_valid(SFI_AT_COMPARE, dt, op, count);
}

struct fi_ops_atomic sfi_atomic_ops = {
	.size = sizeof(struct fi_ops_atomic),
	.write = sfi_atomic,
	.writev = sfi_atomicv,
	.writemsg = sfi_atomicmsg,
	.inject = sfi_atomic_inject,
	.readwrite = sfi_fetch,
	.readwritev = sfi_fetchv,
	.readwritemsg = sfi_fetchmsg,
	.compwrite = sfi_comp,
	.compwritev = sfi_compv,
	.compwritemsg = sfi_compmsg,
	.writevalid = sfi_writevalid,
	.readwritevalid = sfi_readwritevalid,
	.compwritevalid = sfi_compwritevalid,
};
