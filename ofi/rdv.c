// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * rdv.c - rendezvous: large sends, fi_write and fi_read move their bytes
 * through a bounce region of pool memory that the side holding the bytes
 * exports read-only; the other side imports it (cached per peer) and pulls
 * with memcpy() through the window, or from rdv_dma_min bytes on (0:
 * never) with the DMA engine, then answers DONE so that the slot is
 * reused. User buffers are ordinary host memory
 * that no peer can map, hence the one copy into the bounce region
 * (decision 0034).
 *
 * Wire format, one snode message each (offsets in bytes, host order):
 *   RTS       u8 3, u8 flags, u16 0, u32 len, u64 tag, SRC@16, u64 data@32
 *   DONE      u8 4, u8 0, u16 0, s32 status (-errno), u32 slot offset
 *   PROBE     u8 5 (ignored: the sender only wants the NIC's answer)
 *   WRITE     u8 6, u8 flags, u16 0, u32 len, u64 mr key, u64 addr,
 *             SRC@24, u64 data@40
 *   READ      u8 7, u8 0, u16 0, u32 len, u64 mr key, u64 addr, u32 id,
 *             u64 key@28
 *   READ_RESP u8 8, u8 0, u16 0, s32 status, u32 id, SRC@12
 * where SRC is u32 slot offset, u32 export id, u64 export key of the
 * sender's bounce region (its node is the message's source node); the
 * region is exported under the endpoint's own key, so SRC's key is also
 * the one that answers reach the sender with. READ carries that key in
 * u64 key@28, as the initiator may have no region. An RTS with flag
 * SFI_F_PIPE (messages above rdv_chunk) names a slot headed by a u64 ready
 * word, the bytes the sender has copied so far, with the message at +64:
 * it is sent before the copy, and the receiver pulls behind the word.
 *
 * Control messages sent while handling a message (DONE, READ_RESP) never
 * wait for room: they queue on the endpoint and go out from the next
 * progress, so the messages of one sender are always handled in order.
 * An operation waiting for its peer probes it every second; a peer whose
 * endpoint or node is gone fails the operation instead of hanging it.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "snode_fi.h"

#define SFI_SLOT_ALIGN	64
#define SFI_PROBE_MS	1000
#define SFI_MAX_IMPORTS	32
/* no bounce region is larger (FI_SNODE_RDV_POOL's bound, page-rounded) */
#define SFI_REGION_MAX	(1ULL << 31)

/* --- this endpoint's bounce region ---------------------------------------- */
static int sfi_bounce_get(struct sfi_ep *ep)
{
	struct sfi_rdv *r = &ep->rdv;
	int ret;

	if (r->mem)
		return 0;
	if (r->failed)
		return -FI_ENOSYS;
	r->size = (sfi_params.rdv_pool + 4095) & ~(size_t)4095;
	ret = snode_mem_alloc(ep->domain->dev, r->size, &r->mem);
	if (ret < 0)
		goto err;
	ret = snode_mem_map(r->mem, &r->map);
	if (ret < 0)
		goto err_free;
	/*
	 * Under the endpoint's own key: a peer then learns from one key both
	 * how to import the region and how to answer the endpoint.
	 */
	ret = snode_export(r->mem, 0, r->size, 0, ep->addr.ep.key, NULL, 0,
			   &r->h);
	if (ret < 0)
		goto err_unmap;
	return 0;
err_unmap:
	snode_mem_unmap(r->mem);
err_free:
	snode_mem_free(r->mem);
	r->mem = NULL;
err:
	FI_WARN(&sfi_prov, FI_LOG_EP_DATA,
		"no bounce region of %zu bytes (%s): large messages go eager, RMA fails\n",
		r->size, strerror(-ret));
	r->failed = 1;
	return -FI_ENOSYS;
}

/* --- operations waiting for a peer --------------------------------------- */
/* the lowest free range of slot bytes in the bounce region */
static int sfi_slot_find(struct sfi_ep *ep, uint32_t slot, uint32_t *off)
{
	uint64_t cand = 0;
	struct sfi_op *op;
	int moved;

	do {
		moved = 0;
		for (op = ep->rdv.ops; op; op = op->next) {
			if (!op->slot || op->off >= cand + slot ||
			    op->off + op->slot <= cand)
				continue;
			cand = op->off + op->slot;
			moved = 1;
		}
	} while (moved && cand + slot <= ep->rdv.size);
	if (cand + slot > ep->rdv.size)
		return -FI_EAGAIN;
	*off = cand;
	return 0;
}

/*
 * A new operation with a bounce slot of slot bytes (0: none): -FI_EAGAIN
 * while the region is full, -FI_EMSGSIZE if it never holds slot bytes,
 * -FI_ENOSYS without a region.
 */
int sfi_op_new(struct sfi_ep *ep, enum sfi_op_kind kind,
	       const struct snode_ep_addr *peer, size_t slot, struct sfi_op **out)
{
	struct sfi_op *op;
	uint32_t off = 0;
	int ret;

	if (slot) {
		ret = sfi_bounce_get(ep);
		if (ret)
			return ret;
		slot = (slot + SFI_SLOT_ALIGN - 1) & ~(size_t)(SFI_SLOT_ALIGN - 1);
		if (slot > ep->rdv.size)
			return -FI_EMSGSIZE;
		ret = sfi_slot_find(ep, slot, &off);
		if (ret)
			return ret;
	}
	op = calloc(1, sizeof(*op));
	if (!op)
		return -FI_ENOMEM;
	op->kind = kind;
	op->peer = *peer;
	op->off = off;
	op->slot = slot;
	op->probe_ms = sfi_ms() + SFI_PROBE_MS;
	op->next = ep->rdv.ops;
	ep->rdv.ops = op;
	*out = op;
	return 0;
}

void sfi_op_free(struct sfi_ep *ep, struct sfi_op *op)
{
	struct sfi_op **pp;

	for (pp = &ep->rdv.ops; *pp; pp = &(*pp)->next)
		if (*pp == op) {
			*pp = op->next;
			break;
		}
	/*
	 * Every node that knows the endpoint's key can read the region: what
	 * a finished transfer left there must not wait for the next one.
	 */
	if (op->slot && ep->rdv.map)
		memset((char *)ep->rdv.map + op->off, 0, op->slot);
	free(op->ibuf);
	free(op);
}

/*
 * Under the domain lock, before an RMA or atomic operation: the endpoint
 * may do it (cap) and peer is in its AV (into dst); 0 or a negative FI_ code
 */
int sfi_op_check(struct sfi_ep *ep, uint64_t cap, fi_addr_t peer,
		 struct sfi_addr *dst)
{
	if (!ep->enabled)
		return -FI_EOPBADSTATE;
	if (!(ep->caps & cap))
		return -FI_EOPNOTSUPP;
	if (sfi_av_lookup_addr(ep->av, peer, dst))
		return -FI_EINVAL;
	return 0;
}

/*
 * Send op's request m: 0 (op waits for the answer), -FI_EAGAIN (the
 * target's ring is full, op is gone), or the target is not there: an error
 * entry, op is gone, and 0 (an inject gets the error code instead).
 */
ssize_t sfi_op_request(struct sfi_ep *ep, struct sfi_op *op, const void *m,
		       size_t len)
{
	int ret = sfi_frag(ep, &op->peer, m, len, 1);
	int e, comp = op->want_comp;

	if (!ret)
		return 0;
	if (ret == -EAGAIN) {
		sfi_op_free(ep, op);
		return -FI_EAGAIN;
	}
	e = sfi_errno(ret);
	sfi_tx_done(ep, op->context, op->flags, 0, -e, -ret, comp);
	sfi_op_free(ep, op);
	return comp ? 0 : e;
}

/* the operation's end: its completion (status: 0 or -errno), then gone */
void sfi_op_end(struct sfi_ep *ep, struct sfi_op *op, int status)
{
	if (op->kind != SFI_K_SERVE) {
		int e = status ? -sfi_errno(status) : 0;

		sfi_tx_done(ep, op->context, op->flags, status ? 0 : op->len,
			    e, -status, op->want_comp);
	}
	sfi_op_free(ep, op);
}

/* the operation an answer from m's sender is for: by id, or by slot */
struct sfi_op *sfi_op_find(struct sfi_ep *ep, const struct snode_msg *m,
			   int by_id, uint32_t v)
{
	struct sfi_op *op;

	for (op = ep->rdv.ops; op; op = op->next) {
		if (op->peer.node != m->src_node || op->peer.id != m->src_ep)
			continue;
		if (by_id ? ((op->kind == SFI_K_READ ||
			      op->kind == SFI_K_ATOMIC) && op->id == v)
			  : (op->slot && op->off == v))
			return op;
	}
	return NULL;
}

/*
 * A status a peer answered with (0 or -errno): anything else is a
 * confused or hostile peer, and the operation fails with EIO rather than
 * with a number that no errno table knows (or that negating overflows).
 */
int sfi_peer_status(const struct snode_msg *m, int32_t status)
{
	if (status <= 0 && status >= -4095)
		return status;
	FI_WARN(&sfi_prov, FI_LOG_EP_DATA,
		"status %d from node %u endpoint %u is no -errno; taken as EIO\n",
		status, m->src_node, m->src_ep);
	return -EIO;
}

/* --- control messages ------------------------------------------------------- */
static int sfi_peer_gone(int ret)
{
	return ret == -ENXIO || ret == -EKEYREJECTED || ret == -EHOSTUNREACH;
}

/* one control message, without waiting: 0 or -errno (-EAGAIN: full) */
static int sfi_ctl_try(struct sfi_ep *ep, const struct snode_ep_addr *dst,
		       const void *m, size_t len, int nic)
{
	if (nic)
		return snode_ep_send(ep->sep, dst, m, len,
				     SNODE_MSG_SEND_NONBLOCK, 0);
	return sfi_wire_send(ep, dst, m, len);
}

/* sent, or queued behind the others while the peer has no room */
static void sfi_ctl_queue(struct sfi_ep *ep, const struct snode_ep_addr *dst,
			  const void *m, size_t len, int nic)
{
	struct sfi_rdv *r = &ep->rdv;
	struct sfi_ctl *c;
	int ret;

	if (!r->ctl) {
		ret = sfi_ctl_try(ep, dst, m, len, nic);
		if (ret != -EAGAIN) {
			if (ret < 0)
				FI_INFO(&sfi_prov, FI_LOG_EP_DATA,
					"control message to node %u endpoint %u: %s\n",
					dst->node, dst->id, strerror(-ret));
			return;
		}
	}
	c = calloc(1, sizeof(*c));
	if (!c) {
		FI_WARN(&sfi_prov, FI_LOG_EP_DATA,
			"no memory to queue a control message; dropped\n");
		return;
	}
	c->dst = *dst;
	c->nic = nic;
	c->len = len;
	memcpy(c->m, m, len);
	if (!r->ctl)
		r->ctl_tail = &r->ctl;
	*r->ctl_tail = c;
	r->ctl_tail = &c->next;
}

/* through the peer's ring if one is active, else the NIC */
void sfi_ctl_send(struct sfi_ep *ep, const struct snode_ep_addr *dst,
		  const void *m, size_t len)
{
	sfi_ctl_queue(ep, dst, m, len, 0);
}

/* through the NIC (ring.c's own messages) */
void sfi_ctl_send_nic(struct sfi_ep *ep, const struct snode_ep_addr *dst,
		      const void *m, size_t len)
{
	sfi_ctl_queue(ep, dst, m, len, 1);
}

static void sfi_ctl_flush(struct sfi_ep *ep)
{
	struct sfi_rdv *r = &ep->rdv;

	while (r->ctl) {
		struct sfi_ctl *c = r->ctl;
		int ret = sfi_ctl_try(ep, &c->dst, c->m, c->len, c->nic);

		if (ret == -EAGAIN)
			return;
		if (ret < 0)
			FI_INFO(&sfi_prov, FI_LOG_EP_DATA,
				"control message to node %u endpoint %u: %s\n",
				c->dst.node, c->dst.id, strerror(-ret));
		r->ctl = c->next;
		free(c);
	}
}

/*
 * tell the peer that we are done with the bytes rs named (its slot is free
 * again, or its registered buffer); status 0 or -errno
 */
void sfi_rdv_done(struct sfi_ep *ep, const struct snode_ep_addr *dst,
		  const struct sfi_rdv_src *rs, int status)
{
	uint8_t m[12] = { SFI_OP_DONE };
	uint32_t v = rs->zc ? rs->id : rs->off;
	int32_t s = status;

	if (rs->zc)
		m[1] = SFI_F_ZC;
	memcpy(m + 4, &s, 4);
	memcpy(m + 8, &v, 4);
	sfi_ctl_send(ep, dst, m, sizeof(m));
}

static void sfi_src_put(struct sfi_ep *ep, uint8_t *p, uint32_t off)
{
	memcpy(p, &off, 4);
	memcpy(p + 4, &ep->rdv.h.export_id, 4);
	memcpy(p + 8, &ep->rdv.h.key, 8);
}

void sfi_rdv_parse(const struct snode_msg *m, size_t pos,
		   struct sfi_rdv_src *rs)
{
	rs->node = m->src_node;
	rs->pipe = 0;
	rs->bad = 0;
	rs->zc = 0;
	rs->id = 0;
	memcpy(&rs->off, m->payload + pos, 4);
	memcpy(&rs->export_id, m->payload + pos + 4, 4);
	memcpy(&rs->key, m->payload + pos + 8, 8);
}

/*
 * 0 if len bytes at the slot rs names (behind its ready word if pipelined)
 * can lie inside a bounce region, else -EPROTO: computed in 64 bits, as
 * a slot offset near 4 GiB plus the word's 64 bytes wraps 32, and no
 * region is larger than FI_SNODE_RDV_POOL's bound. The import then checks
 * the rest against the region the peer really exported.
 */
int sfi_rdv_src_check(const struct sfi_rdv_src *rs, uint64_t len)
{
	uint64_t end;

	/*
	 * In a registration's export: no ready word, and the import checks
	 * the range against the export (whose length we cannot know here).
	 */
	if (rs->zc)
		return rs->pipe || __builtin_add_overflow((uint64_t)rs->off,
							  len, &end) ?
		       -EPROTO : 0;
	if (rs->pipe && rs->off % sizeof(uint64_t))
		return -EPROTO;		/* the ready word is read atomically */
	if (__builtin_add_overflow((uint64_t)rs->off,
				   rs->pipe ? SFI_SLOT_ALIGN : 0, &end) ||
	    __builtin_add_overflow(end, len, &end) || end > SFI_REGION_MAX)
		return -EPROTO;
	return 0;
}

/* --- imports of peers' bounce regions --------------------------------------- */
static void sfi_imp_drop(struct sfi_ep *ep, struct sfi_imp *imp)
{
	struct sfi_imp **pp;

	for (pp = &ep->rdv.imps; *pp; pp = &(*pp)->next)
		if (*pp == imp) {
			*pp = imp->next;
			ep->rdv.nimps--;
			break;
		}
	if (imp->map)
		snode_import_unmap(imp->imp);
	snode_import_close(imp->imp);
	free(imp);
}

/* an import covering [0, need) of the peer's region, from the cache */
static int sfi_imp_get(struct sfi_ep *ep, const struct sfi_rdv_src *rs,
		       uint64_t need, struct sfi_imp **out)
{
	struct snode_handle h = {
		.node = rs->node, .export_id = rs->export_id, .key = rs->key,
	};
	uint64_t want = (need + 4095) & ~(uint64_t)4095;
	struct sfi_imp *imp, **pp;
	int ret;

	for (pp = &ep->rdv.imps; (imp = *pp); pp = &imp->next) {
		if (imp->node != rs->node || imp->export_id != rs->export_id ||
		    imp->key != rs->key)
			continue;
		if (imp->length >= need) {	/* to the front: most recent */
			*pp = imp->next;
			imp->next = ep->rdv.imps;
			ep->rdv.imps = imp;
			*out = imp;
			return 0;
		}
		if (want < imp->length * 2)	/* grow by doubling */
			want = imp->length * 2;
		sfi_imp_drop(ep, imp);
		break;
	}
	if (want < (1 << 20))
		want = 1 << 20;
	imp = calloc(1, sizeof(*imp));
	if (!imp)
		return -FI_ENOMEM;
	ret = snode_import(ep->domain->dev, &h, 0, want,
			   SNODE_IMPORT_ZERO_PAGE_ON_REVOKE, &imp->imp);
	if ((ret == -EINVAL || ret == -ERANGE) &&
	    want > ((need + 4095) & ~(uint64_t)4095)) {
		/* beyond the end of the peer's export: exactly what is needed */
		want = (need + 4095) & ~(uint64_t)4095;
		ret = snode_import(ep->domain->dev, &h, 0, want,
				   SNODE_IMPORT_ZERO_PAGE_ON_REVOKE, &imp->imp);
	}
	if (ret < 0) {
		FI_INFO(&sfi_prov, FI_LOG_EP_DATA,
			"import of node %u export %u: %s\n", rs->node,
			rs->export_id, strerror(-ret));
		free(imp);
		return ret == -ENOENT || ret == -EKEYREJECTED ?
		       -FI_ECONNRESET : sfi_errno(ret);
	}
	imp->node = rs->node;
	imp->export_id = rs->export_id;
	imp->key = rs->key;
	imp->length = want;
	if (ep->rdv.nimps >= SFI_MAX_IMPORTS) {
		struct sfi_imp *last = ep->rdv.imps;

		while (last->next)
			last = last->next;
		sfi_imp_drop(ep, last);
	}
	imp->next = ep->rdv.imps;
	ep->rdv.imps = imp;
	ep->rdv.nimps++;
	*out = imp;
	return 0;
}

/* the import mapped into this process: 0 or -errno */
static int sfi_imp_map(struct sfi_imp *imp)
{
	int ret;

	if (imp->map)
		return 0;
	ret = snode_import_map(imp->imp, &imp->map);
	if (ret < 0)
		imp->map = NULL;
	return ret < 0 ? ret : 0;
}

/* the import still maps the peer's region: 0, or -ECONNRESET or -errno */
int sfi_import_active(struct snode_import *imp)
{
	struct snode_import_status st = { 0 };
	int ret = snode_import_status(imp, &st, sizeof(st));

	if (ret < 0)
		return ret;
	return st.out_state == SNODE_WINDOW_STATE_ACTIVE ? 0 : -ECONNRESET;
}

/*
 * A pipelined slot (SFI_F_PIPE): the sender stores how many bytes it has
 * copied into the ready word at the slot's start as it goes. Wait until
 * it is past pos and return it (at most len), or a negative errno: the
 * region went away (it then reads zeros), or the deadline give_up (set
 * once per pull, so that a sender trickling a byte at a time cannot keep
 * the receiver waiting chunk after chunk) passed.
 */
#define SFI_READY_MS	10000
static int64_t sfi_ready_wait(struct sfi_imp *imp, uint64_t off, size_t pos,
			      size_t len, int64_t give_up)
{
	const uint64_t *word = (const uint64_t *)((char *)imp->map + off);
	unsigned int spins = 0;
	uint64_t ready;
	int ret;

	for (;;) {
		ready = __atomic_load_n(word, __ATOMIC_ACQUIRE);
		if (ready > pos)
			return ready < len ? (int64_t)ready : (int64_t)len;
		if (++spins % 4096)
			continue;
		ret = sfi_import_active(imp->imp);
		if (ret)
			return ret;
		if (sfi_ms() > give_up)
			return -ETIMEDOUT;
	}
}

/*
 * Copy len bytes from the peer's bounce slot into iov: 0 or a negative
 * FI_ code (-FI_ECONNRESET: the peer's region went away)
 */
int sfi_rdv_pull(struct sfi_ep *ep, const struct sfi_rdv_src *rs,
		 const struct iovec *iov, size_t count, size_t len)
{
	int dma = sfi_params.rdv_dma_min && len >= sfi_params.rdv_dma_min;
	uint64_t data = (uint64_t)rs->off + (rs->pipe ? SFI_SLOT_ALIGN : 0);
	int64_t give_up = sfi_ms() + SFI_READY_MS;
	struct sfi_imp *imp = NULL;
	size_t i, pos = 0;
	int64_t ready;
	int ret;

	if (!len)
		return 0;
	if (rs->bad || sfi_rdv_src_check(rs, len)) {
		FI_WARN(&sfi_prov, FI_LOG_EP_DATA,
			"node %u names %zu bytes at slot offset %u%s of its region: beyond any region; dropped\n",
			rs->node, len, rs->off, rs->pipe ? " (pipelined)" : "");
		return -FI_EIO;
	}
	ret = sfi_imp_get(ep, rs, data + len, &imp);
	if (ret)
		return ret;
	if (imp->length < data + len) {	/* sfi_imp_get() imports that much */
		ret = -EPROTO;
		goto err;
	}
	if (rs->pipe && dma) {	/* the engine copies the whole message */
		ret = sfi_imp_map(imp);
		if (ret)
			goto err;
		ready = sfi_ready_wait(imp, rs->off, len - 1, len, give_up);
		if (ready < 0) {
			ret = ready;
			goto err;
		}
	}
	if (dma)
		sfi_dma_queue(ep);	/* none: memcpy() then */
	if (dma && ep->rdv.dmaq) {
		for (i = 0; i < count && pos < len; i++) {
			size_t l = iov[i].iov_len < len - pos ?
				   iov[i].iov_len : len - pos;

			if (!l)
				continue;
			ret = snode_dma_copy(ep->rdv.dmaq, SNODE_DMA_FROM_GLOBAL,
					     imp->imp, data + pos,
					     iov[i].iov_base, l);
			if (ret < 0)
				goto err;
			pos += l;
		}
		if (rs->zc)
			ep->domain->stats.zc_pulls++;
		return 0;
	}
	ret = sfi_imp_map(imp);
	if (ret)
		goto err;
	while (pos < len) {	/* what the sender has copied so far */
		ready = rs->pipe ?
			sfi_ready_wait(imp, rs->off, pos, len, give_up) :
			(int64_t)len;
		if (ready < 0) {
			ret = ready;
			goto err;
		}
		sfi_iov_copy(iov, count, pos, (char *)imp->map + data + pos,
			     ready - pos, 1);
		pos = ready;
	}
	/* a revoked window reads zeros (ZERO_PAGE_ON_REVOKE): were these? */
	ret = sfi_import_active(imp->imp);
	if (ret)
		goto err;
	if (rs->zc)
		ep->domain->stats.zc_pulls++;
	return 0;
err:
	FI_INFO(&sfi_prov, FI_LOG_EP_DATA, "pull from node %u: %s\n", rs->node,
		strerror(-ret));
	sfi_imp_drop(ep, imp);
	return sfi_errno(ret);
}

/* --- the sender's side of a large message ------------------------------------ */
/*
 * From a registered buffer (decision 0045): the RTS names the
 * registration's export to the receiver's node, which pulls straight from
 * it; nothing is copied here. 0, -EAGAIN, 1 (not this way: the bounce), or
 * the -errno of the RTS.
 *
 * RTS with SFI_F_ZC: u16 id@2 (what DONE names), SRC@16 is the offset in
 * the export, its id and key, and u64@40 the endpoint's key (where DONE
 * goes; the export's key is the registration's own).
 */
static int sfi_rdv_send_zc(struct sfi_ep *ep, const struct snode_ep_addr *dst,
			   const struct iovec *iov, size_t len,
			   const uint8_t *hdr, void *context, uint64_t cflags,
			   struct sfi_mr *mr)
{
	uint64_t off = (uintptr_t)iov[0].iov_base - mr->pbase;
	struct snode_handle h;
	uint8_t m[48];
	struct sfi_op *op, *o;
	uint32_t off32 = off, tries = 0;
	uint16_t id;
	int ret;

	if (off > UINT32_MAX || sfi_mr_export(mr, dst->node, &h))
		return 1;
	ret = sfi_op_new(ep, SFI_K_SEND, dst, 0, &op);
	if (ret)
		return ret == -FI_EAGAIN ? -EAGAIN : 1;
	/* an id no other send from a registration has now */
	do {
		id = ep->rdv.next_zc++;
		for (o = ep->rdv.ops; o; o = o->next)
			if (o != op && o->zc && o->id == id)
				break;
	} while (o && ++tries <= UINT16_MAX);
	if (o) {		/* 65536 in flight: wait for one */
		sfi_op_free(ep, op);
		return -EAGAIN;
	}
	op->zc = 1;
	op->id = id;
	memcpy(m, hdr, 16);	/* op, flags, len, tag as a first fragment */
	m[0] = SFI_OP_RTS;
	m[1] |= SFI_F_ZC;
	memcpy(m + 2, &id, 2);
	memcpy(m + 16, &off32, 4);
	memcpy(m + 20, &h.export_id, 4);
	memcpy(m + 24, &h.key, 8);
	memcpy(m + 32, hdr + 16, 8);	/* the CQ data, if any */
	memcpy(m + 40, &ep->addr.ep.key, 8);
	ret = sfi_frag(ep, dst, m, sizeof(m), 1);
	if (ret) {
		sfi_op_free(ep, op);
		return ret;
	}
	op->context = context;
	op->flags = cflags;
	op->len = len;
	op->want_comp = 1;
	ep->domain->stats.zc_sends++;
	return 0;
}

/*
 * Queue a rendezvous send: 0 (completes once the receiver answers), -EAGAIN
 * (the bounce region is full or the receiver's ring: try again), 1 (it
 * cannot go this way: send it eager), or the -errno of the RTS message.
 * mr: the registration the buffer is in (a desc), or NULL.
 */
int sfi_rdv_send(struct sfi_ep *ep, const struct snode_ep_addr *dst,
		 const struct iovec *iov, size_t count, size_t len,
		 const uint8_t *hdr, void *context, uint64_t cflags,
		 struct sfi_mr *mr)
{
	size_t chunk = sfi_params.rdv_chunk, pos, n;
	int pipe = chunk && len > chunk;
	size_t head = pipe ? SFI_SLOT_ALIGN : 0;
	uint8_t m[40];
	struct sfi_op *op;
	uint64_t *word;
	char *slot;
	int ret;

	if (mr && count == 1) {
		ret = sfi_rdv_send_zc(ep, dst, iov, len, hdr, context, cflags,
				      mr);
		if (ret <= 0)
			return ret;
	}
	ret = sfi_op_new(ep, SFI_K_SEND, dst, head + len, &op);
	if (ret == -FI_EAGAIN) {
		sfi_ep_progress(ep);	/* DONE answers free slots */
		ret = sfi_op_new(ep, SFI_K_SEND, dst, head + len, &op);
	}
	if (ret == -FI_EAGAIN)
		return -EAGAIN;
	if (ret)
		return 1;
	ep->domain->stats.bounce_copies++;
	ep->domain->stats.bounce_bytes += len;
	slot = (char *)ep->rdv.map + op->off;
	word = (uint64_t *)slot;
	if (pipe)
		__atomic_store_n(word, 0, __ATOMIC_RELEASE);
	else
		sfi_iov_copy(iov, count, 0, slot, len, 0);
	memcpy(m, hdr, 16);	/* op, flags, len, tag as a first fragment */
	m[0] = SFI_OP_RTS;
	if (pipe)
		m[1] |= SFI_F_PIPE;
	sfi_src_put(ep, m + 16, op->off);
	memcpy(m + 32, hdr + 16, 8);	/* the CQ data, if any */
	ret = sfi_frag(ep, dst, m, sizeof(m), 1);
	if (ret) {
		sfi_op_free(ep, op);
		return ret;
	}
	/*
	 * Announced before copied: the receiver pulls each chunk once the
	 * ready word says it is there, while the next one is copied.
	 */
	for (pos = 0; pipe && pos < len; pos += n) {
		n = len - pos < chunk ? len - pos : chunk;
		sfi_iov_copy(iov, count, pos, slot + head + pos, n, 0);
		__atomic_store_n(word, pos + n, __ATOMIC_RELEASE);
	}
	op->context = context;
	op->flags = cflags;
	op->len = len;
	op->want_comp = 1;
	return 0;
}

/* --- answers ----------------------------------------------------------------- */
static void sfi_read_resp(struct sfi_ep *ep, const struct snode_msg *m)
{
	struct snode_ep_addr from = { .node = m->src_node, .id = m->src_ep };
	struct sfi_rdv_src rs;
	struct sfi_op *op;
	int32_t status;
	uint32_t id;

	if (m->len < 28)
		return;
	memcpy(&status, m->payload + 4, 4);
	status = sfi_peer_status(m, status);
	memcpy(&id, m->payload + 8, 4);
	sfi_rdv_parse(m, 12, &rs);
	from.key = rs.key;
	op = sfi_op_find(ep, m, 1, id);
	if (op && op->kind != SFI_K_READ)
		op = NULL;
	if (!status) {
		if (op)
			status = sfi_rdv_pull(ep, &rs, op->iov, op->iov_count,
					      op->len);
		sfi_rdv_done(ep, &from, &rs, status);
	}
	if (op)
		sfi_op_end(ep, op, status);
}

/* RTS, WRITE and READ are handled by ep.c and rma.c, ATOMIC by atomic.c */
void sfi_rdv_handle(struct sfi_ep *ep, const struct snode_msg *m)
{
	struct sfi_op *op;
	int32_t status;
	uint32_t off;

	switch (m->payload[0]) {
	case SFI_OP_DONE:
		if (m->len < 12)
			return;
		memcpy(&status, m->payload + 4, 4);
		memcpy(&off, m->payload + 8, 4);
		if (m->payload[1] & SFI_F_ZC) {	/* off is the send's id */
			for (op = ep->rdv.ops; op; op = op->next)
				if (op->zc && op->id == off &&
				    op->peer.node == m->src_node &&
				    op->peer.id == m->src_ep)
					break;
		} else {
			op = sfi_op_find(ep, m, 0, off);
		}
		if (op)
			sfi_op_end(ep, op, sfi_peer_status(m, status));
		return;
	case SFI_OP_READ_RESP:
		sfi_read_resp(ep, m);
		return;
	case SFI_OP_ATOMIC_RESP:
		sfi_atomic_resp(ep, m);
		return;
	case SFI_OP_PROBE:
		return;
	}
}

/* under the domain lock, after the endpoint's messages were read */
void sfi_rdv_progress(struct sfi_ep *ep)
{
	int64_t now = sfi_ms();
	struct sfi_op *op, *next;
	uint8_t probe = SFI_OP_PROBE;

	sfi_ctl_flush(ep);
	sfi_rmaq_run(ep);	/* before the drops: their operations are served */
	sfi_rmr_progress(ep);
	for (op = ep->rdv.ops; op; op = next) {
		int ret;

		next = op->next;
		if (now < op->probe_ms)
			continue;
		op->probe_ms = now + SFI_PROBE_MS;
		ret = snode_ep_send(ep->sep, &op->peer, &probe, 1,
				    SNODE_MSG_SEND_NONBLOCK, 0);
		if (!sfi_peer_gone(ret))
			continue;
		FI_INFO(&sfi_prov, FI_LOG_EP_DATA,
			"node %u endpoint %u is gone (%s): its operation fails\n",
			op->peer.node, op->peer.id, strerror(-ret));
		sfi_op_end(ep, op, ret);
	}
}

void sfi_rdv_close(struct sfi_ep *ep)
{
	struct sfi_rdv *r = &ep->rdv;

	while (r->ops)
		sfi_op_free(ep, r->ops);
	while (r->ctl) {
		struct sfi_ctl *c = r->ctl;

		r->ctl = c->next;
		free(c);
	}
	while (r->imps)
		sfi_imp_drop(ep, r->imps);
	if (r->dmaq)
		snode_dma_queue_free(r->dmaq);
	if (r->mem) {
		snode_unexport(ep->domain->dev, &r->h);
		snode_mem_unmap(r->mem);
		snode_mem_free(r->mem);
	}
	memset(r, 0, sizeof(*r));
}
