// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * ring.c - eager and control traffic through rings in global memory
 * (decision 0044, fi_snode(7) "Rings").
 *
 * A sender endpoint that sends to a peer endpoint asks it, once, for a
 * ring: the sender keeps the ring in its own memory (a host export, or
 * pool memory where the NIC cannot export host memory) and exports it
 * read-only to the peer's node under a random key (RING_ASK); the peer
 * imports it and answers with a control page of its own, exported the same
 * way (RING_GRANT), on which it publishes how far it has read and whether
 * it sleeps. The sender then sends RING_START through the NIC and from then
 * on writes every message for that peer into the ring: header and payload
 * with plain stores, the head with a release store. The receiver polls the
 * rings of its endpoint while it is in the provider (progress), and a NIC
 * message (RING_WAKE) is sent only when its control page says it sleeps.
 *
 * Both sides only load from the other's memory: a store into a window
 * whose export went away raises SIGBUS, a load reads zeros
 * (SNODE_IMPORT_ZERO_PAGE_ON_REVOKE), so a peer that exits or dies cannot
 * kill us. Nothing read from a peer's page is trusted: the head, every
 * entry's length and kind, and the sender's view of the tail are checked
 * before use, entries are copied out before they are parsed, and a ring
 * that breaks a rule is dropped (its peer falls back to the NIC).
 *
 * Order: the NIC delivers one sender's messages to one endpoint in order.
 * RING_START is the sender's last NIC message before its first ring
 * entry, and the receiver reads the ring only after it handled RING_START,
 * so every message sent before the switch is handled before any sent
 * after it.
 *
 * Ring page layout (sender's memory): page 0 holds the head (u64 bytes
 * ever written) at offset 0; size bytes of entries follow from offset
 * 4096. An entry is a u32 length, a u32 kind (0 message, 1 padding to the
 * ring's end) and the payload, padded to 8 bytes. Control page (receiver's
 * memory): the tail (u64 bytes ever read) at 0, the sleep word at 64.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>

#include "snode_fi.h"

#define SFI_RING_DATA	4096		/* entries start after the head page */
#define SFI_RING_CTL	4096		/* bytes of a control page */
#define SFI_RING_SLEEP	64		/* offset of the sleep word */
#define SFI_RING_MAX	(16u << 20)	/* largest ring a peer may offer */
#define SFI_RING_PEERS	64		/* rings an endpoint keeps, each way */
#define SFI_RING_BATCH	64		/* entries read per ring per round */
#define SFI_RING_ROUNDS	16		/* rounds over the rings per progress */
#define SFI_RING_CHECK_MS	1000	/* a full ring: is the peer still there? */
#define SFI_RING_VERSION	1

enum { SFI_ENT_MSG = 0, SFI_ENT_PAD = 1 };

static uint64_t align8(uint64_t n)
{
	return (n + 7) & ~(uint64_t)7;
}

/* --- memory a peer may read -------------------------------------------------- */
/*
 * len bytes of zeroed memory exported read-only to node, under a random
 * key: the caller's own pages if the NIC exports host memory, else pool
 * memory. 0 or -errno.
 */
static int sfi_shared_new(struct sfi_ep *ep, size_t len, uint32_t node,
			  struct sfi_shared *s)
{
	struct snode_dev *dev = ep->domain->dev;
	void *p;
	int ret;

	memset(s, 0, sizeof(*s));
	s->len = len;
	/* its own mapping (zeroed), not the heap's: madvise() covers it only */
	p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS,
		 -1, 0);
	if (p == MAP_FAILED)
		return -ENOMEM;
	/* as rdma-core does for registered memory: a fork()ed child gets
	 * none of the pages a peer reads, so no copy-on-write can split them */
	madvise(p, len, MADV_DONTFORK);
	ret = snode_export_mem(dev, p, len, SNODE_EXPORT_RANDOM_KEY, 0, &node,
			       1, &s->h);
	if (!ret) {
		s->map = p;
		return 0;
	}
	munmap(p, len);
	if (ret != -EOPNOTSUPP)
		return ret;
	ret = snode_mem_alloc(dev, len, &s->pmem);
	if (ret < 0)
		return ret;
	ret = snode_mem_map(s->pmem, &s->map);
	if (ret < 0)
		goto err_free;
	memset(s->map, 0, len);
	ret = snode_export(s->pmem, 0, len, SNODE_EXPORT_RANDOM_KEY, 0, &node,
			   1, &s->h);
	if (ret < 0)
		goto err_unmap;
	return 0;
err_unmap:
	snode_mem_unmap(s->pmem);
err_free:
	snode_mem_free(s->pmem);
	memset(s, 0, sizeof(*s));
	return ret;
}

static void sfi_shared_free(struct sfi_ep *ep, struct sfi_shared *s)
{
	if (!s->map)
		return;
	/* withdrawn first: the pages are not freed under an importer */
	snode_unexport(ep->domain->dev, &s->h);
	if (s->pmem) {
		snode_mem_unmap(s->pmem);
		snode_mem_free(s->pmem);
	} else {
		munmap(s->map, s->len);
	}
	memset(s, 0, sizeof(*s));
}

/* a peer's export mapped read-only, reading zeros once revoked */
static int sfi_peer_map(struct sfi_ep *ep, uint32_t node, uint32_t export_id,
			uint64_t key, size_t len, struct sfi_peer_mem *pm)
{
	struct snode_handle h = {
		.node = node, .export_id = export_id, .key = key,
	};
	int ret;

	memset(pm, 0, sizeof(*pm));
	ret = snode_import(ep->domain->dev, &h, 0, len,
			   SNODE_IMPORT_ZERO_PAGE_ON_REVOKE, &pm->imp);
	if (ret < 0)
		return ret;
	ret = snode_import_map(pm->imp, &pm->map);
	if (ret < 0) {
		snode_import_close(pm->imp);
		memset(pm, 0, sizeof(*pm));
		return ret;
	}
	return 0;
}

static void sfi_peer_unmap(struct sfi_peer_mem *pm)
{
	if (!pm->imp)
		return;
	if (pm->map)
		snode_import_unmap(pm->imp);
	snode_import_close(pm->imp);
	memset(pm, 0, sizeof(*pm));
}

static uint64_t load64(const void *p)
{
	return __atomic_load_n((const uint64_t *)p, __ATOMIC_ACQUIRE);
}

static void store64(void *p, uint64_t v)
{
	__atomic_store_n((uint64_t *)p, v, __ATOMIC_RELEASE);
}

/* a ring control message through the NIC; -EAGAIN: its ring is full */
static int sfi_ring_ctl(struct sfi_ep *ep, const struct snode_ep_addr *dst,
			const void *m, size_t len)
{
	return snode_ep_send(ep->sep, dst, m, len, SNODE_MSG_SEND_NONBLOCK, 0);
}

/* --- the sender's side --------------------------------------------------------- */
static struct sfi_tring *sfi_tring_find(struct sfi_ep *ep,
					const struct snode_ep_addr *dst)
{
	struct sfi_tring *t;

	for (t = ep->trings; t; t = t->next)
		if (t->dst.node == dst->node && t->dst.id == dst->id &&
		    t->dst.key == dst->key)
			return t;
	return NULL;
}

static void sfi_tring_release(struct sfi_ep *ep, struct sfi_tring *t)
{
	sfi_peer_unmap(&t->ctl);
	sfi_shared_free(ep, &t->ring);
}

/* the ring is no longer used: messages to the peer go through the NIC */
static void sfi_tring_off(struct sfi_ep *ep, struct sfi_tring *t,
			  const char *why)
{
	if (t->state == SFI_RING_ACTIVE)
		FI_INFO(&sfi_prov, FI_LOG_EP_DATA,
			"ring to node %u endpoint %u dropped: %s\n",
			t->dst.node, t->dst.id, why);
	sfi_tring_release(ep, t);
	t->state = SFI_RING_OFF;
}

/* send RING_START once nothing else for the peer waits in the NIC queue */
static void sfi_tring_start(struct sfi_ep *ep, struct sfi_tring *t)
{
	uint8_t m[8] = { SFI_OP_RING_START };
	struct sfi_ctl *c;
	int ret;

	for (c = ep->rdv.ctl; c; c = c->next)
		if (c->dst.node == t->dst.node && c->dst.id == t->dst.id)
			return;
	memcpy(m + 4, &t->ring.h.export_id, 4);
	ret = sfi_ring_ctl(ep, &t->dst, m, sizeof(m));
	if (ret == -EAGAIN)
		return;		/* the next send tries again */
	if (ret < 0) {
		sfi_tring_off(ep, t, strerror(-ret));
		return;
	}
	t->state = SFI_RING_ACTIVE;
}

/*
 * The ring to dst if one is active; a first message to dst asks for one
 * (and goes through the NIC meanwhile).
 */
static struct sfi_tring *sfi_tring_get(struct sfi_ep *ep,
				       const struct snode_ep_addr *dst)
{
	struct sfi_tring *t = sfi_tring_find(ep, dst);
	uint8_t m[32] = { SFI_OP_RING_ASK, SFI_RING_VERSION };
	uint32_t size;
	int ret;

	if (t) {
		if (t->state == SFI_RING_STARTING)
			sfi_tring_start(ep, t);
		return t->state == SFI_RING_ACTIVE ? t : NULL;
	}
	if (sfi_params.ring_size < 4096 || ep->ntrings >= SFI_RING_PEERS)
		return NULL;
	t = calloc(1, sizeof(*t));
	if (!t)
		return NULL;
	t->dst = *dst;
	t->size = sfi_params.ring_size;
	t->next = ep->trings;
	ep->trings = t;
	ep->ntrings++;
	ret = sfi_shared_new(ep, SFI_RING_DATA + t->size, dst->node, &t->ring);
	if (ret < 0) {
		FI_INFO(&sfi_prov, FI_LOG_EP_DATA,
			"no ring for node %u endpoint %u (%s): the NIC carries its messages\n",
			dst->node, dst->id, strerror(-ret));
		t->state = SFI_RING_OFF;
		return NULL;
	}
	size = t->size;
	memcpy(m + 4, &size, 4);
	memcpy(m + 8, &t->ring.h.export_id, 4);
	memcpy(m + 16, &t->ring.h.key, 8);
	memcpy(m + 24, &ep->addr.ep.key, 8);
	ret = sfi_ring_ctl(ep, dst, m, sizeof(m));
	if (ret < 0) {
		/* a full peer ring asks again with the next send */
		sfi_tring_release(ep, t);
		if (ret == -EAGAIN) {
			ep->trings = t->next;
			ep->ntrings--;
			free(t);
		} else {
			t->state = SFI_RING_OFF;
		}
		return NULL;
	}
	t->state = SFI_RING_ASKED;
	return NULL;
}

/* the peer's answer to our RING_ASK */
static void sfi_ring_granted(struct sfi_ep *ep, const struct snode_msg *m)
{
	uint32_t ring_id, ctl_id;
	struct sfi_tring *t;
	uint64_t key;
	int ret;

	if (m->len < 20)
		return;
	memcpy(&ring_id, m->payload + 4, 4);
	/* the endpoint of that id may have had other keys: by the ring too */
	for (t = ep->trings; t; t = t->next)
		if (t->dst.node == m->src_node && t->dst.id == m->src_ep &&
		    t->state == SFI_RING_ASKED &&
		    t->ring.h.export_id == ring_id)
			break;
	if (!t)
		return;		/* not what we asked for */
	if (m->payload[0] == SFI_OP_RING_REFUSE) {
		sfi_tring_off(ep, t, "refused");
		return;
	}
	memcpy(&ctl_id, m->payload + 8, 4);
	memcpy(&key, m->payload + 12, 8);
	ret = sfi_peer_map(ep, m->src_node, ctl_id, key, SFI_RING_CTL, &t->ctl);
	if (ret < 0) {
		FI_INFO(&sfi_prov, FI_LOG_EP_DATA,
			"control page of node %u endpoint %u: %s\n",
			m->src_node, m->src_ep, strerror(-ret));
		sfi_tring_off(ep, t, strerror(-ret));
		return;
	}
	t->state = SFI_RING_STARTING;
	sfi_tring_start(ep, t);
}

/*
 * Room for need contiguous bytes at the head (after a padding entry if
 * the ring's end is too close): 0, -EAGAIN while the peer has not read
 * enough, -EPIPE if the ring is broken or its peer gone.
 */
static int sfi_tring_room(struct sfi_tring *t, uint64_t need)
{
	uint64_t pos = t->head % t->size, total = need, tail;

	if (t->size - pos < need)
		total += t->size - pos;
	if (t->head + total - t->tail <= t->size)
		return 0;
	tail = load64(t->ctl.map);
	if (tail > t->head || t->head - tail > t->size)
		return -EPIPE;	/* not a tail this ring can have */
	t->tail = tail;
	if (t->head + total - t->tail <= t->size) {
		t->full_ms = 0;
		return 0;
	}
	if (!t->full_ms) {
		t->full_ms = sfi_ms() + SFI_RING_CHECK_MS;
	} else if (sfi_ms() > t->full_ms) {
		/* a revoked control page reads a zero tail: ring full */
		if (sfi_import_active(t->ctl.imp))
			return -EPIPE;
		t->full_ms = sfi_ms() + SFI_RING_CHECK_MS;
	}
	return -EAGAIN;
}

/*
 * One entry into the ring, hlen bytes of hdr then len bytes of iov: 0,
 * -EAGAIN (full) or -EPIPE (the ring was dropped)
 */
static int sfi_tring_put(struct sfi_ep *ep, struct sfi_tring *t,
			 const void *hdr, size_t hlen, const struct iovec *iov,
			 size_t count, size_t len)
{
	char *data = (char *)t->ring.map + SFI_RING_DATA;
	uint64_t need = 8 + align8(hlen + len), pos;
	uint32_t eh[2];
	int ret;

	ret = sfi_tring_room(t, need);
	if (ret == -EPIPE)
		sfi_tring_off(ep, t, "the peer's control page went away");
	if (ret)
		return ret;
	pos = t->head % t->size;
	if (t->size - pos < need) {
		eh[0] = t->size - pos - 8;
		eh[1] = SFI_ENT_PAD;
		memcpy(data + pos, eh, 8);
		t->head += t->size - pos;
		pos = 0;
	}
	eh[0] = hlen + len;
	eh[1] = SFI_ENT_MSG;
	memcpy(data + pos, eh, 8);
	memcpy(data + pos + 8, hdr, hlen);
	sfi_iov_copy(iov, count, 0, data + pos + 8 + hlen, len, 0);
	t->head += need;
	store64(t->ring.map, t->head);
	/* the head before the sleep word: the receiver does the reverse */
	__atomic_thread_fence(__ATOMIC_SEQ_CST);
	if (__atomic_load_n((const uint32_t *)((const char *)t->ctl.map +
					       SFI_RING_SLEEP),
			    __ATOMIC_RELAXED)) {
		uint8_t w = SFI_OP_RING_WAKE;

		t->wakes++;
		sfi_ring_ctl(ep, &t->dst, &w, 1);	/* full: it is awake */
	}
	return 0;
}

/* the bytes one entry to dst may hold, 0 if no ring to it is active */
size_t sfi_ring_max(struct sfi_ep *ep, const struct snode_ep_addr *dst)
{
	struct sfi_tring *t = sfi_tring_get(ep, dst);

	/* an entry never takes more than a quarter of the ring */
	return t ? t->size / 4 - 8 : 0;
}

/*
 * hdr and the len bytes of iov as one message through the ring to dst:
 * 0, -ENOENT (no active ring: use the NIC), -EMSGSIZE (beyond
 * sfi_ring_max()), -EAGAIN (the ring is full) or -EPIPE (it was dropped
 * just now: use the NIC)
 */
int sfi_ring_send(struct sfi_ep *ep, const struct snode_ep_addr *dst,
		  const void *hdr, size_t hlen, const struct iovec *iov,
		  size_t count, size_t len)
{
	struct sfi_tring *t = sfi_tring_get(ep, dst);

	if (!t)
		return -ENOENT;
	if (hlen + len > t->size / 4 - 8)
		return -EMSGSIZE;
	return sfi_tring_put(ep, t, hdr, hlen, iov, count, len);
}

/* --- the receiver's side ------------------------------------------------------- */
static void sfi_rring_free(struct sfi_ep *ep, struct sfi_rring *r)
{
	struct sfi_rring **pp;

	for (pp = &ep->rrings; *pp; pp = &(*pp)->next)
		if (*pp == r) {
			*pp = r->next;
			ep->nrrings--;
			break;
		}
	sfi_peer_unmap(&r->ring);
	sfi_shared_free(ep, &r->ctl);
	free(r);
}

static void sfi_ring_answer(struct sfi_ep *ep, const struct snode_ep_addr *to,
			    uint32_t ring_id, const struct sfi_rring *r)
{
	uint8_t m[20] = { r ? SFI_OP_RING_GRANT : SFI_OP_RING_REFUSE };

	memcpy(m + 4, &ring_id, 4);
	if (r) {
		memcpy(m + 8, &r->ctl.h.export_id, 4);
		memcpy(m + 12, &r->ctl.h.key, 8);
	}
	sfi_ctl_send_nic(ep, to, m, sizeof(m));
}

/* a peer offers a ring of its messages to us */
static void sfi_ring_asked(struct sfi_ep *ep, const struct snode_msg *m)
{
	struct snode_ep_addr from = { .node = m->src_node, .id = m->src_ep };
	uint32_t size, ring_id;
	struct sfi_rring *r;
	uint64_t key;
	int ret;

	if (m->len < 32)
		return;
	memcpy(&size, m->payload + 4, 4);
	memcpy(&ring_id, m->payload + 8, 4);
	memcpy(&key, m->payload + 16, 8);
	memcpy(&from.key, m->payload + 24, 8);	/* where answers go */
	for (r = ep->rrings; r; r = r->next)
		if (r->node == m->src_node && r->ep == m->src_ep)
			break;
	if (r && ep->ring_polling) {
		sfi_ring_answer(ep, &from, ring_id, NULL);
		return;
	}
	if (r)		/* the peer's endpoint was made anew: its old ring goes */
		sfi_rring_free(ep, r);
	if (m->payload[1] != SFI_RING_VERSION || size < 4096 ||
	    size > SFI_RING_MAX || (size & (size - 1)) ||
	    sfi_params.ring_size < 4096 || ep->nrrings >= SFI_RING_PEERS) {
		sfi_ring_answer(ep, &from, ring_id, NULL);
		return;
	}
	r = calloc(1, sizeof(*r));
	if (!r) {
		sfi_ring_answer(ep, &from, ring_id, NULL);
		return;
	}
	r->node = m->src_node;
	r->ep = m->src_ep;
	r->size = size;
	ret = sfi_peer_map(ep, m->src_node, ring_id, key, SFI_RING_DATA + size,
			   &r->ring);
	if (!ret)
		ret = sfi_shared_new(ep, SFI_RING_CTL, m->src_node, &r->ctl);
	if (ret < 0) {
		FI_INFO(&sfi_prov, FI_LOG_EP_DATA,
			"ring of node %u endpoint %u refused: %s\n",
			m->src_node, m->src_ep, strerror(-ret));
		sfi_peer_unmap(&r->ring);
		free(r);
		sfi_ring_answer(ep, &from, ring_id, NULL);
		return;
	}
	if (ep->ring_buf_len < size / 4) {	/* an entry, copied out */
		uint8_t *b = realloc(ep->ring_buf, size / 4);

		if (!b) {
			sfi_peer_unmap(&r->ring);
			sfi_shared_free(ep, &r->ctl);
			free(r);
			sfi_ring_answer(ep, &from, ring_id, NULL);
			return;
		}
		ep->ring_buf = b;
		ep->ring_buf_len = size / 4;
	}
	r->ring_id = ring_id;
	r->next = ep->rrings;
	ep->rrings = r;
	ep->nrrings++;
	sfi_ring_answer(ep, &from, ring_id, r);
}

static void sfi_ring_started(struct sfi_ep *ep, const struct snode_msg *m)
{
	struct sfi_rring *r;
	uint32_t ring_id;

	if (m->len < 8)
		return;
	memcpy(&ring_id, m->payload + 4, 4);
	for (r = ep->rrings; r; r = r->next)
		if (r->node == m->src_node && r->ep == m->src_ep &&
		    r->ring_id == ring_id)
			r->active = 1;
}

/* the ring control messages (through the NIC only) */
void sfi_ring_handle(struct sfi_ep *ep, const struct snode_msg *m)
{
	switch (m->payload[0]) {
	case SFI_OP_RING_ASK:
		sfi_ring_asked(ep, m);
		break;
	case SFI_OP_RING_GRANT:
	case SFI_OP_RING_REFUSE:
		sfi_ring_granted(ep, m);
		break;
	case SFI_OP_RING_START:
		sfi_ring_started(ep, m);
		break;
	default:	/* RING_WAKE: the wake-up was the point */
		break;
	}
}

static void sfi_rring_bad(struct sfi_ep *ep, struct sfi_rring *r,
			  const char *why)
{
	/* a peer that exited or died: its ring reads zeros, no attack */
	if (sfi_import_active(r->ring.imp))
		FI_INFO(&sfi_prov, FI_LOG_EP_DATA,
			"ring of node %u endpoint %u went away; dropped\n",
			r->node, r->ep);
	else
		FI_WARN(&sfi_prov, FI_LOG_EP_DATA,
			"ring of node %u endpoint %u: %s; dropped\n", r->node,
			r->ep, why);
	sfi_rring_free(ep, r);
}

/*
 * Read what the ring holds (at most SFI_RING_BATCH entries): 1 if it held
 * something, 0 if not; -1 if it was dropped.
 */
static int sfi_rring_poll(struct sfi_ep *ep, struct sfi_rring *r)
{
	const char *data = (const char *)r->ring.map + SFI_RING_DATA;
	uint64_t head = load64(r->ring.map);
	int n;

	for (n = 0; n < SFI_RING_BATCH && r->tail != head; n++) {
		uint64_t avail = head - r->tail, pos = r->tail % r->size, need;
		uint32_t hdr[2];

		if (avail > r->size) {
			sfi_rring_bad(ep, r, "head beyond the ring");
			return -1;
		}
		if (avail < 8) {
			sfi_rring_bad(ep, r, "head inside an entry");
			return -1;
		}
		memcpy(hdr, data + pos, 8);
		if (hdr[1] == SFI_ENT_PAD) {
			if (hdr[0] != r->size - pos - 8 ||
			    r->size - pos > avail) {
				sfi_rring_bad(ep, r, "bad padding entry");
				return -1;
			}
			r->tail += r->size - pos;
			continue;
		}
		need = 8 + align8(hdr[0]);
		if (hdr[1] != SFI_ENT_MSG || hdr[0] == 0 ||
		    hdr[0] > r->size / 4 - 8 || need > avail ||
		    need > r->size - pos) {
			sfi_rring_bad(ep, r, "bad entry");
			return -1;
		}
		/* copied out first: the peer may change it while we parse */
		memcpy(ep->ring_buf, data + pos + 8, hdr[0]);
		r->tail += need;
		r->got++;
		sfi_handle_bytes(ep, r->node, r->ep, ep->ring_buf, hdr[0], 0);
	}
	if (n)
		store64(r->ctl.map, r->tail);
	return n > 0;
}

/* under the domain lock: read the endpoint's active rings */
void sfi_ring_progress(struct sfi_ep *ep)
{
	struct sfi_rring *r, *next;
	int more = 1, rounds;

	if (!ep->rrings || ep->ring_polling)
		return;
	ep->ring_polling = 1;
	/* bounded: a peer that writes as fast as we read cannot keep us */
	for (rounds = 0; more && rounds < SFI_RING_ROUNDS &&
	     (ep->unexp_bytes < sfi_params.unexp_max || ep->nposted);
	     rounds++) {
		more = 0;
		for (r = ep->rrings; r; r = next) {
			next = r->next;
			if (r->active && sfi_rring_poll(ep, r) > 0)
				more = 1;
		}
	}
	ep->ring_polling = 0;
}

/*
 * Before a sleep: say so in every control page, then look once more;
 * 1 if a ring holds something (do not sleep). sleeping 0 after the sleep.
 */
int sfi_ring_sleep(struct sfi_ep *ep, int sleeping)
{
	struct sfi_rring *r;
	int ready = 0;

	for (r = ep->rrings; r; r = r->next)
		if (r->active)
			__atomic_store_n((uint32_t *)((char *)r->ctl.map +
						      SFI_RING_SLEEP),
					 sleeping, __ATOMIC_RELAXED);
	if (!sleeping)
		return 0;
	__atomic_thread_fence(__ATOMIC_SEQ_CST);
	for (r = ep->rrings; r; r = r->next)
		if (r->active && load64(r->ring.map) != r->tail)
			ready = 1;
	return ready;
}

/*
 * Our messages wait in our own memory until the peer reads them: before
 * the rings go, wait (at most send_timeout_ms in all) until every peer
 * read its ring, or its control page went away.
 */
static void sfi_ring_linger(struct sfi_ep *ep)
{
	int64_t end = sfi_ms() + sfi_params.send_timeout_ms;
	struct sfi_tring *t;
	unsigned int spins = 0;

	for (t = ep->trings; t; t = t->next) {
		while (t->state == SFI_RING_ACTIVE &&
		       load64(t->ctl.map) != t->head) {
			if (++spins % 256)
				continue;
			if (sfi_ms() > end) {
				FI_WARN(&sfi_prov, FI_LOG_EP_CTRL,
					"node %u endpoint %u did not read %" PRIu64 " bytes of its ring in %d ms; they are lost\n",
					t->dst.node, t->dst.id,
					t->head - load64(t->ctl.map),
					sfi_params.send_timeout_ms);
				return;
			}
			if (sfi_import_active(t->ctl.imp))
				break;
			sfi_ep_progress(ep);	/* it may wait for us */
			pthread_mutex_unlock(&ep->domain->lock);
			{
				struct timespec ts = { 0, 100000 };

				nanosleep(&ts, NULL);
			}
			pthread_mutex_lock(&ep->domain->lock);
		}
	}
}

void sfi_ring_close(struct sfi_ep *ep)
{
	sfi_ring_linger(ep);
	while (ep->trings) {
		struct sfi_tring *t = ep->trings;

		ep->trings = t->next;
		sfi_tring_release(ep, t);
		free(t);
	}
	while (ep->rrings)
		sfi_rring_free(ep, ep->rrings);
	free(ep->ring_buf);
	ep->ring_buf = NULL;
	ep->ring_buf_len = 0;
	ep->ntrings = 0;
}
