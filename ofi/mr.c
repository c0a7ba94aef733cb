// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * mr.c - memory registrations, their host exports, and the initiator's
 * view of its peers' registrations (decision 0045, fi_snode(7) "Memory
 * registration").
 *
 * mr_mode 0: a registration's key is the application's requested_key and
 * an RMA address is an offset into it. Nothing is pinned at fi_mr_reg():
 * a registration is exported (snode_export_mem(), the application's own
 * pages, pinned and charged to RLIMIT_MEMLOCK) the first time a peer node
 * needs it, to that node only, under a random key of its own, writable
 * only if the registration has FI_REMOTE_WRITE. Two users:
 *
 * - a rendezvous send from a registered buffer (desc) names the export in
 *   its RTS, and the receiver pulls straight from it (rdv.c);
 * - an initiator of fi_write/fi_read asks the target once per (endpoint,
 *   key) with MR_QUERY; the target answers MR_GRANT with the export, the
 *   registration's length and where it starts in its first page; the
 *   initiator imports it and from then on writes with the DMA engine and
 *   reads with memcpy() (or the engine) straight into and out of the
 *   target's buffer, then tells the target with RMA_NOTE (counters, CQ
 *   data). Until the grant arrives the operations wait; a target that
 *   cannot export (no host exports on its NIC, FI_SNODE_MR_EXPORT=0, a
 *   memlock limit) answers with an error and is served through the bounce
 *   path of rma.c as before.
 *
 * Wire format (offsets in bytes, host order):
 *   MR_QUERY  u8 16, u8 0, u16 0, u32 id, u64 mr key, u64 answer key
 *   MR_GRANT  u8 17, u8 flags (1: writable), u16 offset in the first page,
 *             s32 status (-errno), u32 id, u32 export id, u64 export key,
 *             u64 registration length
 *   RMA_NOTE  u8 18, u8 flags (1: a write, 2: with CQ data), u16 0,
 *             u32 len, u64 mr key, u64 data
 * Nothing in a GRANT is trusted beyond the import it names: the import is
 * of exactly the pages the grant describes, and the device refuses any
 * range the target did not export.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "snode_fi.h"

#define SFI_RMR_MAX	64		/* peers' registrations an endpoint keeps */
#define SFI_RMR_ASK_MS	5000		/* no grant: served instead */
#define SFI_MR_EXPORT_MAX	(1ULL << 40)	/* the ABI's largest host export */

enum { SFI_GRANT_WRITE = 1 };

/* --- registrations ------------------------------------------------------------ */
/* the registration a peer names by key: one with remote access */
struct sfi_mr *sfi_mr_find(struct sfi_domain *d, uint64_t key)
{
	const uint64_t remote = FI_REMOTE_READ | FI_REMOTE_WRITE;
	struct sfi_mr *mr;

	for (mr = d->mrs; mr; mr = mr->next)
		if ((mr->access & remote) && mr->mr_fid.key == key)
			return mr;
	return NULL;
}

/*
 * Under the domain lock: the registration desc (fi_mr_desc()) names, if
 * it is one of the domain's and holds the single buffer iov; else NULL
 * (the send then takes the bounce path, as an unregistered one).
 */
struct sfi_mr *sfi_mr_from_desc(struct sfi_domain *d, void *desc,
				const struct iovec *iov, size_t count)
{
	uintptr_t b;
	struct sfi_mr *mr;

	if (!desc || count != 1)
		return NULL;
	for (mr = d->mrs; mr; mr = mr->next)
		if (mr == desc)
			break;
	if (!mr)
		return NULL;
	b = (uintptr_t)iov[0].iov_base;
	if (b < (uintptr_t)mr->base || b - (uintptr_t)mr->base > mr->len ||
	    iov[0].iov_len > mr->len - (b - (uintptr_t)mr->base))
		return NULL;
	return mr;
}

/*
 * Under the domain lock: the registration's export to node (made on first
 * use): 0, or -errno (-EOPNOTSUPP: the NIC exports no host memory; every
 * failure is remembered, and the registration is not tried again).
 */
int sfi_mr_export(struct sfi_mr *mr, uint32_t node, struct snode_handle *h)
{
	struct sfi_domain *d = mr->domain;
	unsigned int flags = SNODE_EXPORT_RANDOM_KEY;
	struct sfi_mr_exp *e;
	int i, ret;

	if (!sfi_params.mr_export)
		return -EOPNOTSUPP;
	if (mr->exp_err)
		return mr->exp_err;
	for (i = 0; i < mr->nexps; i++)
		if (mr->exps[i].node == node) {
			*h = mr->exps[i].h;
			return 0;
		}
	if (!mr->plen || mr->plen >= SFI_MR_EXPORT_MAX)
		return -EINVAL;
	e = realloc(mr->exps, (mr->nexps + 1) * sizeof(*e));
	if (!e)
		return -ENOMEM;
	mr->exps = e;
	if (mr->access & FI_REMOTE_WRITE)
		flags |= SNODE_EXPORT_WRITE;
	ret = snode_export_mem(d->dev, (void *)mr->pbase, mr->plen, flags, 0,
			       &node, 1, &e[mr->nexps].h);
	if (ret < 0) {
		FI_INFO(&sfi_prov, FI_LOG_MR,
			"registration %#llx (%zu bytes) not exported to node %u: %s; peers get the bounce path\n",
			(unsigned long long)mr->mr_fid.key, mr->len, node,
			strerror(-ret));
		mr->exp_err = ret;
		return ret;
	}
	e[mr->nexps].node = node;
	*h = e[mr->nexps].h;
	mr->nexps++;
	d->stats.mr_exports++;
	return 0;
}

static int sfi_mr_close(struct fid *fid)
{
	struct sfi_mr *mr = container_of(fid, struct sfi_mr, mr_fid.fid);
	struct sfi_domain *d = mr->domain;
	struct sfi_mr **pp;
	int i;

	pthread_mutex_lock(&d->lock);
	for (pp = &d->mrs; *pp; pp = &(*pp)->next)
		if (*pp == mr) {
			*pp = mr->next;
			break;
		}
	/* withdrawn (every importer revoked) before the pages go back */
	for (i = 0; i < mr->nexps; i++)
		snode_unexport(d->dev, &mr->exps[i].h);
	d->refs--;
	pthread_mutex_unlock(&d->lock);
	free(mr->exps);
	free(mr);
	return 0;
}

static struct fi_ops sfi_mr_fi_ops = {
	.size = sizeof(struct fi_ops),
	.close = sfi_mr_close,
	.bind = sfi_no_bind,
	.control = sfi_no_control,
	.ops_open = sfi_no_ops_open,
};

static int sfi_mr_regattr(struct fid *fid, const struct fi_mr_attr *attr,
			  uint64_t flags, struct fid_mr **mr_fid)
{
	struct sfi_domain *d = container_of(fid, struct sfi_domain,
					    domain_fid.fid);
	const uint64_t remote = FI_REMOTE_READ | FI_REMOTE_WRITE;
	struct sfi_mr *mr;
	uintptr_t end;

	if (!attr || flags || attr->iov_count > 1 ||
	    (attr->iov_count && !attr->mr_iov))
		return -FI_EINVAL;
	if (attr->access & ~(uint64_t)(FI_SEND | FI_RECV | FI_READ | FI_WRITE |
				       remote))
		return -FI_ENOSYS;
	mr = calloc(1, sizeof(*mr));
	if (!mr)
		return -FI_ENOMEM;
	mr->domain = d;
	mr->access = attr->access;
	if (attr->iov_count) {
		mr->base = attr->mr_iov[0].iov_base;
		mr->len = attr->mr_iov[0].iov_len;
	}
	/* the pages an export covers: the registration's, whole */
	if (mr->len && !__builtin_add_overflow((uintptr_t)mr->base, mr->len,
					       &end) &&
	    end <= UINTPTR_MAX - 4095) {
		mr->pbase = (uintptr_t)mr->base & ~(uintptr_t)4095;
		mr->plen = ((end + 4095) & ~(uintptr_t)4095) - mr->pbase;
	}
	mr->mr_fid.fid.fclass = FI_CLASS_MR;
	mr->mr_fid.fid.context = attr->context;
	mr->mr_fid.fid.ops = &sfi_mr_fi_ops;
	/* fi_mr_desc(): the send path finds the registration by it */
	mr->mr_fid.mem_desc = mr;
	mr->mr_fid.key = attr->requested_key;
	pthread_mutex_lock(&d->lock);
	if ((attr->access & remote) && sfi_mr_find(d, mr->mr_fid.key)) {
		/* mr_mode 0: the application's key names one registration */
		pthread_mutex_unlock(&d->lock);
		free(mr);
		return -FI_ENOKEY;
	}
	mr->next = d->mrs;
	d->mrs = mr;
	d->refs++;
	pthread_mutex_unlock(&d->lock);
	*mr_fid = &mr->mr_fid;
	return 0;
}

static int sfi_mr_regv(struct fid *fid, const struct iovec *iov, size_t count,
		       uint64_t access, uint64_t offset, uint64_t requested_key,
		       uint64_t flags, struct fid_mr **mr, void *context)
{
	struct fi_mr_attr attr = {
		.mr_iov = iov,
		.iov_count = count,
		.access = access,
		.offset = offset,
		.requested_key = requested_key,
		.context = context,
	};

	return sfi_mr_regattr(fid, &attr, flags, mr);
}

static int sfi_mr_reg(struct fid *fid, const void *buf, size_t len,
		      uint64_t access, uint64_t offset, uint64_t requested_key,
		      uint64_t flags, struct fid_mr **mr, void *context)
{
	struct iovec iov = { .iov_base = (void *)buf, .iov_len = len };

	return sfi_mr_regv(fid, &iov, 1, access, offset, requested_key, flags,
			   mr, context);
}

struct fi_ops_mr sfi_mr_ops = {
	.size = sizeof(struct fi_ops_mr),
	.reg = sfi_mr_reg,
	.regv = sfi_mr_regv,
	.regattr = sfi_mr_regattr,
};

/* --- fi_ext_snode.h ------------------------------------------------------------- */
static int sfi_stats_read(struct fid_domain *domain, struct fi_snode_stats *st,
			  size_t size)
{
	struct sfi_domain *d = container_of(domain, struct sfi_domain,
					    domain_fid);

	if (!st)
		return -FI_EINVAL;
	if (size > sizeof(*st))
		size = sizeof(*st);
	pthread_mutex_lock(&d->lock);
	memcpy(st, &d->stats, size);
	pthread_mutex_unlock(&d->lock);
	return 0;
}

/*
 * FI_SNODE_STATS=1: the counters on standard error as the domain closes,
 * so that a test can tell the paths of a program it cannot change (Debian's
 * fi_pingpong) apart; the names are fi_ext_snode.h's.
 */
void sfi_stats_print(struct sfi_domain *d)
{
	const struct fi_snode_stats *st = &d->stats;

	fprintf(stderr,
		"snode_stats: domain %s node %u: bounce_copies %llu bounce_bytes %llu zc_sends %llu zc_pulls %llu rma_direct %llu rma_served %llu mr_exports %llu\n",
		snode_dev_get_name(d->dev), d->node_id,
		(unsigned long long)st->bounce_copies,
		(unsigned long long)st->bounce_bytes,
		(unsigned long long)st->zc_sends,
		(unsigned long long)st->zc_pulls,
		(unsigned long long)st->rma_direct,
		(unsigned long long)st->rma_served,
		(unsigned long long)st->mr_exports);
}

static struct fi_snode_stats_ops sfi_stats_ops = {
	.size = sizeof(struct fi_snode_stats_ops),
	.read = sfi_stats_read,
};

int sfi_domain_ops_open(struct fid *fid, const char *name, uint64_t flags,
			void **ops, void *context)
{
	if (!name || !ops || flags)
		return -FI_EINVAL;
	if (strcmp(name, FI_SNODE_STATS_OPS))
		return -FI_ENOSYS;
	*ops = &sfi_stats_ops;
	return 0;
}

/* --- peers' registrations (the initiator) ---------------------------------------- */
static void sfi_rmr_unlink(struct sfi_ep *ep, struct sfi_rmr *r)
{
	struct sfi_rmr **pp;

	for (pp = &ep->rmrs; *pp; pp = &(*pp)->next)
		if (*pp == r) {
			*pp = r->next;
			ep->nrmrs--;
			return;
		}
}

/* forget a peer's registration (revoked, or evicted) */
void sfi_rmr_drop(struct sfi_ep *ep, struct sfi_rmr *r)
{
	struct sfi_op *op;

	for (op = ep->rdv.ops; op; op = op->next)
		if (op->rmr == r)
			op->rmr = NULL;		/* asks again when it runs */
	sfi_rmr_unlink(ep, r);
	if (r->imp) {
		if (r->map)
			snode_import_unmap(r->imp);
		snode_import_close(r->imp);
	}
	free(r);
}

/*
 * Under the domain lock: what this endpoint knows of peer's registration
 * key, asking the peer if nothing (the answer comes through progress).
 * NULL: no memory, or the endpoint keeps too many being asked: served.
 */
struct sfi_rmr *sfi_rmr_get(struct sfi_ep *ep, const struct snode_ep_addr *peer,
			    uint64_t key)
{
	uint8_t m[24] = { SFI_OP_MR_QUERY };
	struct sfi_rmr *r, **pp, *victim = NULL;

	for (pp = &ep->rmrs; (r = *pp); pp = &r->next)
		if (r->peer.node == peer->node && r->peer.id == peer->id &&
		    r->peer.key == peer->key && r->mr_key == key) {
			*pp = r->next;		/* to the front: most recent */
			r->next = ep->rmrs;
			ep->rmrs = r;
			return r;
		}
	if (ep->nrmrs >= SFI_RMR_MAX) {
		for (r = ep->rmrs; r; r = r->next)
			if (r->state != SFI_RMR_ASKED)
				victim = r;	/* the least recent */
		if (!victim)
			return NULL;
		sfi_rmr_drop(ep, victim);
	}
	r = calloc(1, sizeof(*r));
	if (!r)
		return NULL;
	r->peer = *peer;
	r->mr_key = key;
	r->state = SFI_RMR_ASKED;
	r->qid = ep->rdv.next_id++;
	r->asked_ms = sfi_ms();
	r->next = ep->rmrs;
	ep->rmrs = r;
	ep->nrmrs++;
	memcpy(m + 4, &r->qid, 4);
	memcpy(m + 8, &key, 8);
	memcpy(m + 16, &ep->addr.ep.key, 8);
	sfi_ctl_send(ep, peer, m, sizeof(m));
	return r;
}

/* the target's answer: import what it granted, or be served */
static void sfi_mr_grant(struct sfi_ep *ep, const struct snode_msg *m)
{
	struct snode_handle h = { .node = m->src_node };
	uint64_t len, end;
	uint16_t page_off;
	uint32_t qid;
	int32_t status;
	struct sfi_rmr *r;
	unsigned int iflags = SNODE_IMPORT_ZERO_PAGE_ON_REVOKE;
	int ret;

	if (m->len < 32)
		return;
	memcpy(&page_off, m->payload + 2, 2);
	memcpy(&status, m->payload + 4, 4);
	memcpy(&qid, m->payload + 8, 4);
	memcpy(&h.export_id, m->payload + 12, 4);
	memcpy(&h.key, m->payload + 16, 8);
	memcpy(&len, m->payload + 24, 8);
	for (r = ep->rmrs; r; r = r->next)
		if (r->state == SFI_RMR_ASKED && r->qid == qid &&
		    r->peer.node == m->src_node && r->peer.id == m->src_ep)
			break;
	if (!r)
		return;		/* late (served meanwhile) or never asked */
	status = sfi_peer_status(m, status);
	/* the operations waiting for it run from progress (sfi_rmaq_run()) */
	r->state = SFI_RMR_SERVED;
	if (status == -EKEYREJECTED) {
		/* no such registration: the bounce path says so, and the
		 * next operation asks again (it may be registered by then) */
		r->gone = 1;
		return;
	}
	if (status) {
		FI_INFO(&sfi_prov, FI_LOG_EP_DATA,
			"node %u endpoint %u serves registration %#llx itself: %s\n",
			m->src_node, m->src_ep, (unsigned long long)r->mr_key,
			strerror(-status));
		return;
	}
	/* the pages of [page_off, page_off + len), nothing the peer did not say */
	if (page_off >= 4096 || !len || len >= SFI_MR_EXPORT_MAX) {
		FI_WARN(&sfi_prov, FI_LOG_EP_DATA,
			"node %u endpoint %u grants a registration of %llu bytes at %u: malformed; served instead\n",
			m->src_node, m->src_ep, (unsigned long long)len,
			page_off);
		return;
	}
	end = (page_off + len + 4095) & ~(uint64_t)4095;
	if (m->payload[1] & SFI_GRANT_WRITE)
		iflags |= SNODE_IMPORT_WRITE;
	ret = snode_import(ep->domain->dev, &h, 0, end, iflags, &r->imp);
	if (!ret) {
		ret = snode_import_map(r->imp, &r->map);
		if (ret < 0) {
			snode_import_close(r->imp);
			r->imp = NULL;
			r->map = NULL;
		}
	}
	if (ret < 0) {
		r->imp = NULL;
		FI_INFO(&sfi_prov, FI_LOG_EP_DATA,
			"import of node %u's registration %#llx: %s; served instead\n",
			m->src_node, (unsigned long long)r->mr_key,
			strerror(-ret));
	} else {
		r->state = SFI_RMR_GRANTED;
		r->len = len;
		r->page_off = page_off;
		r->writable = !!(m->payload[1] & SFI_GRANT_WRITE);
	}
}

/* --- the target ------------------------------------------------------------------- */
static void sfi_mr_query(struct sfi_ep *ep, const struct snode_msg *m)
{
	struct snode_ep_addr from = { .node = m->src_node, .id = m->src_ep };
	uint8_t r[32] = { SFI_OP_MR_GRANT };
	struct snode_handle h = { 0 };
	struct sfi_mr *mr;
	int32_t status;
	uint64_t key, len = 0;
	uint16_t page_off = 0;

	if (m->len < 24)
		return;
	memcpy(r + 8, m->payload + 4, 4);	/* the query's id */
	memcpy(&key, m->payload + 8, 8);
	memcpy(&from.key, m->payload + 16, 8);
	mr = sfi_mr_find(ep->domain, key);
	if (!mr)
		status = -EKEYREJECTED;
	else
		status = sfi_mr_export(mr, m->src_node, &h);
	if (!status) {
		page_off = (uintptr_t)mr->base - mr->pbase;
		len = mr->len;
		if (mr->access & FI_REMOTE_WRITE)
			r[1] = SFI_GRANT_WRITE;
	}
	memcpy(r + 2, &page_off, 2);
	memcpy(r + 4, &status, 4);
	memcpy(r + 12, &h.export_id, 4);
	memcpy(r + 16, &h.key, 8);
	memcpy(r + 24, &len, 8);
	sfi_ctl_send(ep, &from, r, sizeof(r));
}

/*
 * A peer wrote or read our registration directly: count it, and hand its
 * CQ data to the application. The bytes are already there; a note for a
 * key or a range we never granted is a confused or hostile peer.
 */
static void sfi_rma_note(struct sfi_ep *ep, const struct snode_msg *m)
{
	int write = !!(m->payload[1] & SFI_NOTE_WRITE);
	struct sfi_mr *mr;
	uint64_t key, data;
	uint32_t len;

	if (m->len < 24)
		return;
	memcpy(&len, m->payload + 4, 4);
	memcpy(&key, m->payload + 8, 8);
	memcpy(&data, m->payload + 16, 8);
	mr = sfi_mr_find(ep->domain, key);
	if (!mr || !(mr->access & (write ? FI_REMOTE_WRITE : FI_REMOTE_READ)) ||
	    len > mr->len) {
		FI_WARN(&sfi_prov, FI_LOG_EP_DATA,
			"RMA note from node %u endpoint %u for %u bytes of key %#llx: no such grant; dropped\n",
			m->src_node, m->src_ep, len, (unsigned long long)key);
		return;
	}
	sfi_remote_done(ep, write ? FI_REMOTE_WRITE : FI_REMOTE_READ);
	if (write && (m->payload[1] & SFI_NOTE_DATA))
		sfi_remote_write_data(ep, len, data, m->src_node, m->src_ep);
}

void sfi_mr_handle(struct sfi_ep *ep, const struct snode_msg *m)
{
	switch (m->payload[0]) {
	case SFI_OP_MR_QUERY:
		sfi_mr_query(ep, m);
		return;
	case SFI_OP_MR_GRANT:
		sfi_mr_grant(ep, m);
		return;
	case SFI_OP_RMA_NOTE:
		sfi_rma_note(ep, m);
		return;
	}
}

/*
 * A query nobody answers (a peer of an older provider): be served. And
 * registrations the peer does not have, once their operations ran.
 */
void sfi_rmr_progress(struct sfi_ep *ep)
{
	int64_t now = sfi_ms();
	struct sfi_rmr *r, *next;

	for (r = ep->rmrs; r; r = next) {
		next = r->next;
		if (r->gone)
			sfi_rmr_drop(ep, r);
		else if (r->state == SFI_RMR_ASKED &&
			 now - r->asked_ms > SFI_RMR_ASK_MS)
			r->state = SFI_RMR_SERVED;
	}
}

void sfi_rmr_close(struct sfi_ep *ep)
{
	while (ep->rmrs)
		sfi_rmr_drop(ep, ep->rmrs);
}
