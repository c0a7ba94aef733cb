// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * ep.c - RDM endpoints: tagged and untagged sends and receives, eager,
 * cut into snode messages of SNODE_MSG_MAX_LEN (48) bytes, up to
 * rdv_threshold bytes; larger ones by rendezvous (rdv.c: an RTS message
 * in the place of the first fragment, matched the same way).
 *
 * Wire format (each line is one snode message from one endpoint):
 *   first:    u8 op=1, u8 flags (1 tagged, 2 cq data), u16 0, u32 length,
 *             u64 tag, [u64 data], then the first bytes of the message
 *   continue: u8 op=2, then 47 more bytes
 * The NIC delivers messages from one sender to one endpoint in order and
 * drops none (a full ring refuses the send), so a message is reassembled
 * per (source node, source endpoint) without sequence numbers.
 *
 * An eager send runs to its end inside the call: while the receiver's ring
 * is full the sender drains its own endpoint, so two endpoints sending to
 * each other cannot deadlock. The completion is written before the call
 * returns (the destination NIC has every byte in its ring). A rendezvous
 * send completes when the receiver answers that it took the bytes.
 */
#include <errno.h>
#include <inttypes.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>


#include "snode_fi.h"

enum { SFI_OP_FIRST = 1, SFI_OP_CONT = 2 };
#define SFI_HDR_FIRST	16
#define SFI_HDR_CONT	1

int64_t sfi_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

size_t sfi_iov_total(const struct iovec *iov, size_t n)
{
	size_t t = 0;

	while (n--)
		t += iov[n].iov_len;
	return t;
}

/*
 * The length of an outgoing iov (a send or an RMA), checked: at most
 * SFI_IOV_LIMIT entries, a sum that does not wrap, within max_msg_size and
 * within an inject's 4096 bytes. 0 or a negative fi_errno.
 */
int sfi_iov_len(const struct iovec *iov, size_t count, int inject,
		size_t *len)
{
	size_t t = 0, i;

	if (count > SFI_IOV_LIMIT || (count && !iov))
		return -FI_EINVAL;
	for (i = 0; i < count; i++)
		if (__builtin_add_overflow(t, iov[i].iov_len, &t))
			return -FI_EMSGSIZE;
	if (t > sfi_params.max_msg_size || (inject && t > 4096))
		return -FI_EMSGSIZE;
	*len = t;
	return 0;
}

/*
 * copy len bytes between buf and byte offset off of the iov, what fits;
 * into the iov when to_iov, out of it otherwise
 */
void sfi_iov_copy(const struct iovec *iov, size_t n, size_t off, void *buf,
		  size_t len, int to_iov)
{
	char *b = buf;
	size_t i;

	for (i = 0; i < n && len; i++) {
		char *p;
		size_t l;

		if (off >= iov[i].iov_len) {
			off -= iov[i].iov_len;
			continue;
		}
		l = iov[i].iov_len - off;
		if (l > len)
			l = len;
		p = (char *)iov[i].iov_base + off;
		if (to_iov)
			memcpy(p, b, l);
		else
			memcpy(b, p, l);
		b += l;
		len -= l;
		off = 0;
	}
}

static void iov_gather(void *dst, const struct iovec *iov, size_t n, size_t off,
		       size_t len)
{
	sfi_iov_copy(iov, n, off, dst, len, 0);
}

static void iov_scatter(const struct iovec *iov, size_t n, size_t off,
			const void *src, size_t len)
{
	sfi_iov_copy(iov, n, off, (void *)src, len, 1);
}

/* --- completions --------------------------------------------------------- */
void sfi_tx_done(struct sfi_ep *ep, void *context, uint64_t flags,
		 size_t len, int err, int prov_errno, int want_comp)
{
	struct fi_cq_err_entry e = {
		.op_context = context,
		.flags = flags,
		.len = len,
		.err = err,
		.prov_errno = prov_errno,
	};

	/* RMA and atomics count on their own counters, not FI_SEND's */
	struct sfi_cntr *cn = !(flags & (FI_RMA | FI_ATOMIC)) ? ep->tx_cntr :
			      (flags & FI_READ) ? ep->rd_cntr : ep->wr_cntr;

	if (err && cn)
		cn->err++;
	else if (cn)
		cn->value++;
	if (!ep->tx_cq || !want_comp)
		return;
	if (!err && (ep->tx_cq_flags & FI_SELECTIVE_COMPLETION) &&
	    !(flags & FI_COMPLETION))
		return;
	e.flags &= ~(uint64_t)FI_COMPLETION;
	sfi_cq_push(ep->tx_cq, &e, FI_ADDR_NOTAVAIL);
}

void sfi_remote_done(struct sfi_ep *ep, uint64_t which)
{
	struct sfi_cntr *cn = which == FI_REMOTE_READ ? ep->rrd_cntr :
			      ep->rwr_cntr;

	if (cn)
		cn->value++;
}

/* --- FI_MULTI_RECV (fi_msg(3)) ---------------------------------------------- */
static void sfi_multi_free(struct sfi_ep *ep, struct sfi_rx *m)
{
	struct sfi_rx **pp;

	for (pp = &ep->multis; *pp; pp = &(*pp)->multi_next)
		if (*pp == m) {
			*pp = m->multi_next;
			break;
		}
	free(m);
}

/*
 * Drop the hold sfi_recv() took while it filled buffer m from the
 * unexpected messages: if m retired and every part completed meanwhile, it
 * goes back to the application with a completion of its own.
 */
static void sfi_multi_put(struct sfi_ep *ep, struct sfi_rx *m)
{
	struct fi_cq_err_entry e = {
		.op_context = m->context,
		.flags = FI_RECV | FI_MSG | FI_MULTI_RECV,
	};

	if (--m->pending || !m->retired)
		return;
	if (ep->rx_cq)
		sfi_cq_push(ep->rx_cq, &e, FI_ADDR_NOTAVAIL);
	sfi_multi_free(ep, m);
}

/*
 * fi_cancel() of a multi-receive buffer, taken off the posted list: it
 * takes no more messages and goes back with an FI_ECANCELED entry; the
 * parts already handed out still complete.
 */
static void sfi_multi_cancel(struct sfi_ep *ep, struct sfi_rx *m)
{
	struct fi_cq_err_entry e = {
		.op_context = m->context,
		.flags = FI_RECV | FI_MSG | FI_MULTI_RECV,
		.err = FI_ECANCELED,
	};

	m->retired = 1;
	m->cancelled = 1;
	if (ep->rx_cntr)
		ep->rx_cntr->err++;
	if (ep->rx_cq)
		sfi_cq_push(ep->rx_cq, &e, FI_ADDR_NOTAVAIL);
	if (!m->pending)
		sfi_multi_free(ep, m);
}

/*
 * The part of multi-receive buffer m a message of len bytes goes to (at
 * most what is left; a longer message is truncated), or NULL without
 * memory. The buffer retires (leaves the posted list if it is on it) once
 * less than min_multi_recv bytes are left.
 */
static struct sfi_rx *sfi_multi_part(struct sfi_ep *ep, struct sfi_rx *m,
				     size_t len, int posted)
{
	struct sfi_rx *rx = calloc(1, sizeof(*rx)), **pp;
	size_t left = m->iov_len - m->used, n = len < left ? len : left;

	if (!rx)
		return NULL;
	rx->context = m->context;
	rx->src = m->src;
	rx->flags = m->flags & ~(uint64_t)FI_MULTI_RECV;
	rx->iov[0].iov_base = (char *)m->iov[0].iov_base + m->used;
	rx->iov[0].iov_len = n;
	rx->iov_count = 1;
	rx->iov_len = n;
	rx->multi = m;
	m->pending++;
	/* the next part starts 8-byte aligned, as far as the buffer goes */
	m->used += (n + 7) & ~(size_t)7;
	if (m->used > m->iov_len)
		m->used = m->iov_len;
	if ((m->iov_len - m->used < ep->min_multi_recv ||
	     m->used == m->iov_len) && !m->retired) {
		m->retired = 1;
		for (pp = &ep->posted[0]; posted && *pp; pp = &(*pp)->next)
			if (*pp == m) {
				*pp = m->next;
				ep->nposted--;
				break;
			}
	}
	return rx;
}

static void sfi_rx_done(struct sfi_ep *ep, struct sfi_rx *rx, size_t len,
			uint64_t tag, uint64_t data, int has_data,
			const struct snode_ep_addr *from, int err)
{
	struct fi_cq_err_entry e = {
		.op_context = rx->context,
		.flags = FI_RECV | (rx->tagged ? FI_TAGGED : FI_MSG) |
			 (has_data ? FI_REMOTE_CQ_DATA : 0),
		.len = len,
		.buf = rx->iov_count ? rx->iov[0].iov_base : NULL,
		.data = has_data ? data : 0,
		.tag = rx->tagged ? tag : 0,
	};
	fi_addr_t src = FI_ADDR_NOTAVAIL;

	if (!err && len > rx->iov_len) {
		err = FI_ETRUNC;
		e.olen = len - rx->iov_len;
		e.len = rx->iov_len;
	}
	e.err = err;
	if (from && ep->av && (ep->caps & FI_SOURCE))
		src = sfi_av_reverse(ep->av, from->node, from->id);
	if (err && ep->rx_cntr)
		ep->rx_cntr->err++;
	else if (ep->rx_cntr)
		ep->rx_cntr->value++;
	if (rx->multi) {
		struct sfi_rx *m = rx->multi;

		/* the buffer's last part: it goes back to the application */
		if (!--m->pending && m->retired) {
			if (!m->cancelled)	/* that said so already */
				e.flags |= FI_MULTI_RECV;
			sfi_multi_free(ep, m);
		}
	}
	if (ep->rx_cq && (err || !(ep->rx_cq_flags & FI_SELECTIVE_COMPLETION) ||
			  (rx->flags & FI_COMPLETION) || (e.flags & FI_MULTI_RECV)))
		sfi_cq_push(ep->rx_cq, &e, src);
	free(rx);
}

/* --- matching ------------------------------------------------------------- */
static int sfi_src_match(struct sfi_ep *ep, fi_addr_t want,
			 const struct snode_ep_addr *from)
{
	struct sfi_addr a;

	if (want == FI_ADDR_UNSPEC || !(ep->caps & FI_DIRECTED_RECV))
		return 1;
	if (sfi_av_lookup_addr(ep->av, want, &a))
		return 0;
	return a.ep.node == from->node && a.ep.id == from->id;
}

static int sfi_tag_match(uint64_t want, uint64_t ignore, uint64_t tag)
{
	return ((want ^ tag) & ~ignore) == 0;
}

static struct sfi_rx *sfi_multi_part(struct sfi_ep *ep, struct sfi_rx *m,
				     size_t len, int posted);

/* the posted receive a message of len bytes goes to, taken off the list */
static struct sfi_rx *sfi_take_posted(struct sfi_ep *ep, int tagged,
				      uint64_t tag, size_t len,
				      const struct snode_ep_addr *from)
{
	struct sfi_rx **pp;

	for (pp = &ep->posted[tagged]; *pp; pp = &(*pp)->next) {
		struct sfi_rx *rx = *pp;

		if (!sfi_src_match(ep, rx->src, from))
			continue;
		if (tagged && !sfi_tag_match(rx->tag, rx->ignore, tag))
			continue;
		if (rx->flags & FI_MULTI_RECV)	/* a part of it */
			return sfi_multi_part(ep, rx, len, 1);
		*pp = rx->next;
		ep->nposted--;
		return rx;
	}
	return NULL;
}

static void sfi_list_append(struct sfi_rx **head, struct sfi_rx *rx)
{
	rx->next = NULL;
	while (*head)
		head = &(*head)->next;
	*head = rx;
}

/*
 * what an unexpected message costs against unexp_max: the memory it holds
 * (its buffer grows with the bytes that arrive, sfi_asm_bytes())
 */
static size_t sfi_unexp_cost(const struct sfi_rx *u)
{
	return sizeof(*u) + (u->rdv ? 0 : u->cap);
}

static void sfi_unexp_free(struct sfi_ep *ep, struct sfi_rx *u)
{
	ep->unexp_bytes -= sfi_unexp_cost(u);
	free(u->buf);
	free(u);
}

/* an unexpected message is complete: hand it to its claimer, if any */
static void sfi_unexp_deliver(struct sfi_ep *ep, struct sfi_rx *u,
			      struct sfi_rx *rx, int err)
{
	size_t n = u->len < rx->iov_len ? u->len : rx->iov_len;

	if (!err && u->rdv) {
		int r = sfi_rdv_pull(ep, &u->rs, rx->iov, rx->iov_count, n);

		sfi_rdv_done(ep, &u->from, &u->rs, r);
		err = -r;
	} else if (!err) {
		iov_scatter(rx->iov, rx->iov_count, 0, u->buf, n);
	}
	sfi_rx_done(ep, rx, u->len, u->tag, u->data, u->has_data, &u->from, err);
	sfi_unexp_free(ep, u);
}

static void sfi_asm_abort(struct sfi_ep *ep, struct sfi_asm *a)
{
	struct sfi_rx **pp;

	if (a->rx) {
		sfi_rx_done(ep, a->rx, a->len, a->tag, a->data, a->has_data,
			    NULL, FI_EIO);
	} else if (a->unexp) {
		struct sfi_rx *u = a->unexp;

		if (u->claimed) {
			sfi_unexp_deliver(ep, u, u->claimed, FI_EIO);
		} else {
			for (pp = &ep->unexp[a->tagged]; *pp; pp = &(*pp)->next)
				if (*pp == u) {
					*pp = u->next;
					break;
				}
			sfi_unexp_free(ep, u);
		}
	}
}

static void sfi_asm_remove(struct sfi_ep *ep, struct sfi_asm *a)
{
	struct sfi_asm **pp;

	for (pp = &ep->asms; *pp; pp = &(*pp)->next)
		if (*pp == a) {
			*pp = a->next;
			break;
		}
	free(a);
}

static void sfi_asm_bytes(struct sfi_ep *ep, struct sfi_asm *a,
			  const uint8_t *p, size_t n)
{
	struct snode_ep_addr from = { .node = a->node, .id = a->ep };

	if (n > a->len - a->got)
		n = a->len - a->got;	/* a confused sender: ignore the rest */
	if (a->rx) {
		iov_scatter(a->rx->iov, a->rx->iov_count, a->got, p, n);
	} else {
		struct sfi_rx *u = a->unexp;

		/*
		 * The buffer grows with the bytes that really arrive: a header
		 * that announces max_msg_size bytes costs the sender as many
		 * fragments as it costs us memory.
		 */
		if (a->got + n > u->cap) {
			size_t cap = u->cap * 2 > a->got + n ? u->cap * 2 :
				     a->got + n;
			void *b;

			if (cap > a->len)
				cap = a->len;
			b = realloc(u->buf, cap);
			if (!b) {
				FI_WARN(&sfi_prov, FI_LOG_EP_DATA,
					"no memory for an unexpected message; dropped\n");
				sfi_asm_abort(ep, a);
				sfi_asm_remove(ep, a);
				return;
			}
			ep->unexp_bytes += cap - u->cap;
			u->buf = b;
			u->cap = cap;
		}
		memcpy((char *)u->buf + a->got, p, n);
	}
	a->got += n;
	if (a->got < a->len)
		return;
	if (a->rx) {
		sfi_rx_done(ep, a->rx, a->len, a->tag, a->data, a->has_data,
			    &from, 0);
	} else {
		a->unexp->got = a->len;
		if (a->unexp->claimed)
			sfi_unexp_deliver(ep, a->unexp, a->unexp->claimed, 0);
	}
	sfi_asm_remove(ep, a);
}

/* a large message waits in the sender's bounce region: pull it or keep it */
static void sfi_handle_rts(struct sfi_ep *ep, const struct snode_msg *m)
{
	struct snode_ep_addr from = { .node = m->src_node, .id = m->src_ep };
	struct sfi_rx *rx, *u;
	struct sfi_rdv_src rs;
	uint64_t tag, data = 0;
	int tagged, has_data;
	uint32_t len;

	if (m->len < 40) {
		FI_WARN(&sfi_prov, FI_LOG_EP_DATA,
			"short RTS from node %u endpoint %u; dropped\n",
			m->src_node, m->src_ep);
		return;
	}
	tagged = !!(m->payload[1] & SFI_F_TAGGED);
	has_data = !!(m->payload[1] & SFI_F_DATA);
	memcpy(&len, m->payload + 4, 4);
	memcpy(&tag, m->payload + 8, 8);
	if (has_data)
		memcpy(&data, m->payload + 32, 8);
	sfi_rdv_parse(m, 16, &rs);
	rs.pipe = !!(m->payload[1] & SFI_F_PIPE);
	from.key = rs.key;	/* where DONE goes */
	if (m->payload[1] & SFI_F_ZC) {
		/* in the sender's registration: its endpoint's key follows */
		if (m->len < 48) {
			FI_WARN(&sfi_prov, FI_LOG_EP_DATA,
				"short RTS from node %u endpoint %u; dropped\n",
				m->src_node, m->src_ep);
			return;
		}
		rs.zc = 1;
		memcpy(&rs.id, m->payload + 2, 2);
		memcpy(&from.key, m->payload + 40, 8);
	}
	/*
	 * A slot no region can hold, or a message no sender may send: the
	 * receive it matches fails with FI_EIO, the sender is told, nothing
	 * is read.
	 */
	if (len > sfi_params.max_msg_size || sfi_rdv_src_check(&rs, len)) {
		FI_WARN(&sfi_prov, FI_LOG_EP_DATA,
			"RTS from node %u endpoint %u: %u bytes at slot offset %u%s: malformed; the receive it matches fails\n",
			m->src_node, m->src_ep, len, rs.off,
			rs.pipe ? " (pipelined)" : "");
		rs.bad = 1;
	}
	rx = sfi_take_posted(ep, tagged, tag, len, &from);
	if (rx) {
		int r = sfi_rdv_pull(ep, &rs, rx->iov, rx->iov_count,
				     len < rx->iov_len ? len : rx->iov_len);

		sfi_rdv_done(ep, &from, &rs, r);
		sfi_rx_done(ep, rx, len, tag, data, has_data, &from, -r);
		return;
	}
	u = calloc(1, sizeof(*u));
	if (!u) {
		/* the sender's operation fails, its slot is freed */
		sfi_rdv_done(ep, &from, &rs, -ENOMEM);
		return;
	}
	u->tagged = tagged;
	u->tag = tag;
	u->len = len;
	u->got = len;
	u->data = data;
	u->has_data = has_data;
	u->from = from;
	u->rdv = 1;
	u->rs = rs;
	sfi_list_append(&ep->unexp[tagged], u);
	ep->unexp_bytes += sfi_unexp_cost(u);
}

/*
 * One message from endpoint src_ep of node (the NIC's word, or the ring's
 * owner: never the message's), len bytes at p: through the NIC (nic, at
 * most SNODE_MSG_MAX_LEN) or a ring (ring.c, copied out of it already).
 */
void sfi_handle_bytes(struct sfi_ep *ep, uint32_t node, uint16_t src_ep,
		      const uint8_t *p, size_t len, int nic)
{
	struct snode_ep_addr from = { .node = node, .id = src_ep };
	struct snode_msg m = { .src_node = node, .src_ep = src_ep };
	struct sfi_asm *a;
	uint32_t mlen;
	size_t hdr;

	for (a = ep->asms; a; a = a->next)
		if (a->node == node && a->ep == src_ep)
			break;
	if (len < 1 || (nic && len > SNODE_MSG_MAX_LEN))
		return;
	if (p[0] >= SFI_OP_RTS && p[0] <= SFI_OP_LAST) {
		/* the operations of rdv.c, rma.c, atomic.c, ring.c, mr.c */
		if (len > SNODE_MSG_MAX_LEN ||
		    (p[0] >= SFI_OP_RING_ASK && p[0] <= SFI_OP_RING_WAKE &&
		     !nic)) {
			FI_WARN(&sfi_prov, FI_LOG_EP_DATA,
				"malformed operation %u from node %u endpoint %u; dropped\n",
				p[0], node, src_ep);
			return;
		}
		m.len = len;
		memcpy(m.payload, p, len);
		if (p[0] == SFI_OP_RTS)
			sfi_handle_rts(ep, &m);
		else if (p[0] == SFI_OP_WRITE || p[0] == SFI_OP_READ)
			sfi_rma_handle(ep, &m);
		else if (p[0] == SFI_OP_ATOMIC)
			sfi_atomic_handle(ep, &m);
		else if (p[0] >= SFI_OP_MR_QUERY)
			sfi_mr_handle(ep, &m);
		else if (p[0] >= SFI_OP_RING_ASK)
			sfi_ring_handle(ep, &m);
		else
			sfi_rdv_handle(ep, &m);
		return;
	}
	if (p[0] == SFI_OP_CONT) {
		if (!a) {
			FI_WARN(&sfi_prov, FI_LOG_EP_DATA,
				"continuation from node %u endpoint %u without a message; dropped\n",
				node, src_ep);
			return;
		}
		sfi_asm_bytes(ep, a, p + SFI_HDR_CONT, len - SFI_HDR_CONT);
		return;
	}
	if (p[0] != SFI_OP_FIRST || len < SFI_HDR_FIRST) {
		FI_WARN(&sfi_prov, FI_LOG_EP_DATA,
			"unknown message from node %u endpoint %u; dropped\n",
			node, src_ep);
		return;
	}
	if (a) {		/* the sender gave up on its previous message */
		sfi_asm_abort(ep, a);
		sfi_asm_remove(ep, a);
	}
	memcpy(&mlen, p + 4, 4);
	if (mlen > sfi_params.max_msg_size) {
		FI_WARN(&sfi_prov, FI_LOG_EP_DATA,
			"message of %u bytes from node %u beyond max_msg_size; dropped\n",
			mlen, node);
		return;
	}
	a = calloc(1, sizeof(*a));
	if (!a)
		return;
	a->node = node;
	a->ep = src_ep;
	a->len = mlen;
	a->tagged = !!(p[1] & SFI_F_TAGGED);
	memcpy(&a->tag, p + 8, 8);
	hdr = SFI_HDR_FIRST;
	if (p[1] & SFI_F_DATA) {
		if (len < SFI_HDR_FIRST + 8) {
			free(a);
			return;
		}
		a->has_data = 1;
		memcpy(&a->data, p + SFI_HDR_FIRST, 8);
		hdr += 8;
	}
	a->rx = sfi_take_posted(ep, a->tagged, a->tag, mlen, &from);
	if (!a->rx) {
		struct sfi_rx *u = calloc(1, sizeof(*u));

		if (u)
			u->cap = mlen < 4096 ? mlen : 4096;
		if (!u || !(u->buf = malloc(u->cap ? u->cap : 1))) {
			free(u);
			free(a);
			FI_WARN(&sfi_prov, FI_LOG_EP_DATA,
				"no memory for an unexpected message; dropped\n");
			return;
		}
		u->tagged = a->tagged;
		u->tag = a->tag;
		u->len = mlen;
		u->data = a->data;
		u->has_data = a->has_data;
		u->from = from;
		sfi_list_append(&ep->unexp[a->tagged], u);
		ep->unexp_bytes += sfi_unexp_cost(u);
		a->unexp = u;
	}
	a->next = ep->asms;
	ep->asms = a;
	sfi_asm_bytes(ep, a, p + hdr, len - hdr);
}

/* under the domain lock: read every waiting message */
void sfi_ep_progress(struct sfi_ep *ep)
{
	struct snode_msg msgs[32];
	int n, i;

	if (!ep->sep)
		return;
	/*
	 * Beyond unexp_max bytes of unexpected messages, the rest waits in
	 * the NIC's ring and senders find it full: backpressure, not memory.
	 * Only a posted receive makes it read on, as what it waits for may be
	 * in the ring.
	 */
	while (ep->unexp_bytes < sfi_params.unexp_max || ep->nposted) {
		n = snode_ep_recv(ep->sep, msgs, 32, 0);
		if (n <= 0) {
			if (n < 0 && n != -EAGAIN && n != -EINTR)
				FI_WARN_ONCE(&sfi_prov, FI_LOG_EP_DATA,
					     "snode_ep_recv: %s\n", strerror(-n));
			break;
		}
		for (i = 0; i < n; i++)
			sfi_handle_bytes(ep, msgs[i].src_node, msgs[i].src_ep,
					 msgs[i].payload, msgs[i].len, 1);
	}
	sfi_ring_progress(ep);
	sfi_rdv_progress(ep);
}

/* --- the hardware endpoint --------------------------------------------------- */
static int sfi_ep_hw(struct sfi_ep *ep)
{
	struct snode_ep_addr a;
	int ret;

	if (ep->sep)
		return 0;
	if (ep->want_addr)
		ret = snode_ep_new(ep->domain->dev, ep->want.ep.id,
				   sfi_params.rx_entries, 0, ep->want.ep.key,
				   &ep->sep);
	else
		ret = snode_ep_new(ep->domain->dev, SNODE_EP_ANY,
				   sfi_params.rx_entries, SNODE_EP_RANDOM_KEY, 0,
				   &ep->sep);
	if (ret < 0) {
		FI_WARN(&sfi_prov, FI_LOG_EP_CTRL, "snode_ep_new: %s\n",
			strerror(-ret));
		return sfi_errno(ret);
	}
	snode_ep_get_addr(ep->sep, &a);
	ep->addr.fabric = ep->domain->fabric->fabric_id;
	ep->addr.ep = a;
	return 0;
}

/* --- sending ----------------------------------------------------------------- */
/* a long message drains the sender's own ring every this many fragments */
#define SFI_DRAIN_EVERY		64

/*
 * One message of at most SNODE_MSG_MAX_LEN bytes to dst, without waiting:
 * through the ring to dst if one is active (ring.c), else the NIC; 0 or
 * -errno, -EAGAIN while the peer's ring is full.
 */
int sfi_wire_send(struct sfi_ep *ep, const struct snode_ep_addr *dst,
		  const void *buf, size_t len)
{
	int ret = sfi_ring_send(ep, dst, buf, len, NULL, 0, 0);

	if (ret != -ENOENT && ret != -EPIPE)
		return ret;
	return snode_ep_send(ep->sep, dst, buf, len, SNODE_MSG_SEND_NONBLOCK,
			     0);
}

int sfi_frag(struct sfi_ep *ep, const struct snode_ep_addr *dst,
	     const void *buf, size_t len, int first)
{
	int64_t end = 0;
	unsigned int backoff = 20;
	int ret;

	for (;;) {
		ret = sfi_wire_send(ep, dst, buf, len);
		if (ret != -EAGAIN)
			return ret;
		/* room may only come once we drain our own ring */
		sfi_ep_progress(ep);
		if (first)
			return -EAGAIN;
		if (!end)
			end = sfi_ms() + sfi_params.send_timeout_ms;
		else if (sfi_ms() > end)
			return -ETIMEDOUT;
		pthread_mutex_unlock(&ep->domain->lock);
		poll(NULL, 0, 0);
		{
			struct timespec ts = { 0, backoff * 1000L };

			nanosleep(&ts, NULL);
		}
		if (backoff < 1000)
			backoff *= 2;
		pthread_mutex_lock(&ep->domain->lock);
	}
}

static ssize_t sfi_send(struct sfi_ep *ep, const struct iovec *iov, size_t count,
			fi_addr_t dest, int tagged, uint64_t tag, int has_data,
			uint64_t data, void *context, uint64_t flags, int inject,
			void *desc)
{
	uint8_t m[SNODE_MSG_MAX_LEN];
	struct sfi_addr dst;
	size_t len, off, hdr, n, k;
	uint32_t len32;
	ssize_t ret = 0;
	uint64_t cflags = FI_SEND | (tagged ? FI_TAGGED : FI_MSG) |
			  (flags & FI_COMPLETION);
	size_t ring;
	int rdv = 0;

	ret = sfi_iov_len(iov, count, inject, &len);
	if (ret)
		return ret;
	pthread_mutex_lock(&ep->domain->lock);
	if (!ep->enabled) {
		ret = -FI_EOPBADSTATE;
		goto out;
	}
	if (sfi_av_lookup_addr(ep->av, dest, &dst)) {
		ret = -FI_EINVAL;	/* not an address of the AV */
		goto out;
	}
	len32 = len;
	memset(m, 0, sizeof(m));
	m[0] = SFI_OP_FIRST;
	m[1] = (tagged ? SFI_F_TAGGED : 0) | (has_data ? SFI_F_DATA : 0);
	memcpy(m + 4, &len32, 4);
	memcpy(m + 8, &tag, 8);
	hdr = SFI_HDR_FIRST;
	if (has_data) {
		memcpy(m + hdr, &data, 8);
		hdr += 8;
	}
	/*
	 * Through an active ring, a message up to ring_eager bytes is one
	 * entry: stored into our ring, no fabric round trip.
	 */
	ring = sfi_ring_max(ep, &dst.ep);
	if (ring && len <= sfi_params.ring_eager && hdr + len <= ring) {
		ret = sfi_ring_send(ep, &dst.ep, m, hdr, iov, count, len);
		if (ret == -EAGAIN) {
			sfi_ep_progress(ep);	/* a peer may wait for us */
			ret = -FI_EAGAIN;
			goto out;
		}
		if (ret != -EPIPE)
			goto sent;
	}
	if (len > sfi_params.rdv_threshold && !inject) {
		uint8_t h[24];

		memcpy(h, m, 16);
		memcpy(h + 16, &data, 8);
		ret = sfi_rdv_send(ep, &dst.ep, iov, count, len, h, context,
				   cflags, sfi_mr_from_desc(ep->domain, desc,
							    iov, count));
		if (ret == -EAGAIN) {
			ret = -FI_EAGAIN;
			goto out;
		}
		if (ret <= 0) {	/* completes when the receiver answers */
			rdv = 1;
			goto sent;
		}
	}
	n = len < sizeof(m) - hdr ? len : sizeof(m) - hdr;
	iov_gather(m + hdr, iov, count, 0, n);
	ret = sfi_frag(ep, &dst.ep, m, hdr + n, 1);
	if (ret == -EAGAIN) {
		ret = -FI_EAGAIN;	/* nothing sent: the caller retries */
		goto out;
	}
	off = n;
	for (k = 1; !ret && off < len; k++) {
		/* A peer sending to us meanwhile waits for room in our
		 * ring; while our own sends go through we would not drain
		 * it, and the peer's send would time out. */
		if (k % SFI_DRAIN_EVERY == 0)
			sfi_ep_progress(ep);
		n = len - off < sizeof(m) - SFI_HDR_CONT ?
		    len - off : sizeof(m) - SFI_HDR_CONT;
		m[0] = SFI_OP_CONT;
		iov_gather(m + SFI_HDR_CONT, iov, count, off, n);
		ret = sfi_frag(ep, &dst.ep, m, SFI_HDR_CONT + n, 0);
		off += n;
	}
sent:
	if (ret) {
		int e = sfi_errno(ret);

		FI_INFO(&sfi_prov, FI_LOG_EP_DATA,
			"send to node %u endpoint %u: %s\n", dst.ep.node,
			dst.ep.id, strerror(-ret));
		if (inject) {
			ret = e;
			goto out;
		}
		sfi_tx_done(ep, context, cflags, 0, -e, -ret, 1);
		ret = 0;
		goto out;
	}
	if (!rdv)
		sfi_tx_done(ep, context, cflags, len, 0, 0, !inject);
out:
	pthread_mutex_unlock(&ep->domain->lock);
	return ret;
}

/* --- FI_PEEK, FI_CLAIM, FI_DISCARD (fi_tagged(3)) -------------------------- */
/* drop an unexpected message unread: a rendezvous sender is told it is done */
static void sfi_unexp_discard(struct sfi_ep *ep, struct sfi_rx *u)
{
	if (u->rdv)
		sfi_rdv_done(ep, &u->from, &u->rs, 0);
	sfi_unexp_free(ep, u);
}

/* a completion for a peek or a discard, about message u (NULL: none) */
static void sfi_peek_done(struct sfi_ep *ep, void *context,
			  const struct sfi_rx *u, size_t len, int err)
{
	struct fi_cq_err_entry e = {
		.op_context = context,
		.flags = FI_RECV | FI_TAGGED,
		.err = err,
	};
	fi_addr_t src = FI_ADDR_NOTAVAIL;

	if (u) {
		e.flags |= u->has_data ? FI_REMOTE_CQ_DATA : 0;
		e.len = len;
		e.tag = u->tag;
		e.data = u->has_data ? u->data : 0;
		if (ep->av && (ep->caps & FI_SOURCE))
			src = sfi_av_reverse(ep->av, u->from.node, u->from.id);
	}
	if (ep->rx_cq)
		sfi_cq_push(ep->rx_cq, &e, src);
}

/*
 * FI_PEEK: the oldest unexpected message that a receive with these
 * arguments would take. Found, its length, tag, data and source complete
 * the peek (and FI_CLAIM sets it aside for the FI_CLAIM receive with the
 * same context, FI_DISCARD drops it); else an error entry FI_ENOMSG. A
 * message still arriving counts as not there yet: the next peek finds it,
 * and none behind it is reported out of order.
 */
static ssize_t sfi_peek(struct sfi_ep *ep, fi_addr_t src, uint64_t tag,
			uint64_t ignore, void *context, uint64_t flags)
{
	struct sfi_rx **pp, *u = NULL;
	ssize_t ret = 0;

	pthread_mutex_lock(&ep->domain->lock);
	if (!ep->enabled) {
		ret = -FI_EOPBADSTATE;
		goto out;
	}
	if (src != FI_ADDR_UNSPEC && (ep->caps & FI_DIRECTED_RECV)) {
		struct sfi_addr a;

		if (sfi_av_lookup_addr(ep->av, src, &a)) {
			ret = -FI_EINVAL;
			goto out;
		}
	}
	sfi_ep_progress(ep);
	for (pp = &ep->unexp[1]; *pp; pp = &(*pp)->next)
		if (sfi_src_match(ep, src, &(*pp)->from) &&
		    sfi_tag_match(tag, ignore, (*pp)->tag)) {
			u = *pp;
			break;
		}
	if (!u || u->got < u->len) {
		sfi_peek_done(ep, context, NULL, 0, FI_ENOMSG);
		goto out;
	}
	sfi_peek_done(ep, context, u, u->len, 0);
	if (!(flags & (FI_CLAIM | FI_DISCARD)))
		goto out;
	*pp = u->next;
	if (flags & FI_DISCARD) {
		sfi_unexp_discard(ep, u);
		goto out;
	}
	/* fi_context's words are the provider's while the operation lasts */
	u->context = context;
	((struct fi_context *)context)->internal[0] = u;
	u->next = ep->claimed;
	ep->claimed = u;
out:
	pthread_mutex_unlock(&ep->domain->lock);
	return ret;
}

/*
 * FI_CLAIM without FI_PEEK: receive (or with FI_DISCARD drop) the message
 * an earlier FI_PEEK | FI_CLAIM with this context set aside; its tag and
 * source arguments are ignored. -FI_EINVAL if the context claimed none.
 */
static ssize_t sfi_claimed_recv(struct sfi_ep *ep, const struct iovec *iov,
				size_t count, void *context, uint64_t flags)
{
	struct sfi_rx **pp, *u = NULL, *rx;
	ssize_t ret = 0;

	rx = calloc(1, sizeof(*rx));
	if (!rx)
		return -FI_ENOMEM;
	pthread_mutex_lock(&ep->domain->lock);
	for (pp = &ep->claimed; *pp; pp = &(*pp)->next)
		if ((*pp)->context == context &&
		    ((struct fi_context *)context)->internal[0] == *pp) {
			u = *pp;
			break;
		}
	if (!u) {
		free(rx);
		ret = -FI_EINVAL;
		goto out;
	}
	*pp = u->next;
	((struct fi_context *)context)->internal[0] = NULL;
	if (flags & FI_DISCARD) {
		free(rx);
		sfi_peek_done(ep, context, u, 0, 0);
		sfi_unexp_discard(ep, u);
		goto out;
	}
	rx->tagged = 1;
	rx->context = context;
	rx->tag = u->tag;
	rx->src = FI_ADDR_UNSPEC;
	rx->flags = flags;
	if (count)
		memcpy(rx->iov, iov, count * sizeof(*iov));
	rx->iov_count = count;
	rx->iov_len = sfi_iov_total(iov, count);
	sfi_unexp_deliver(ep, u, rx, 0);
out:
	pthread_mutex_unlock(&ep->domain->lock);
	return ret;
}

/* --- receiving ---------------------------------------------------------------- */
static ssize_t sfi_recv(struct sfi_ep *ep, const struct iovec *iov, size_t count,
			fi_addr_t src, int tagged, uint64_t tag, uint64_t ignore,
			void *context, uint64_t flags)
{
	struct sfi_rx *rx, **pp;
	ssize_t ret = 0;

	if (count > SFI_IOV_LIMIT || (count && !iov))
		return -FI_EINVAL;
	/* fi_msg(3): one buffer, untagged, of an endpoint that asked */
	if ((flags & FI_MULTI_RECV) &&
	    (tagged || !(ep->caps & FI_MULTI_RECV) ||
	     (flags & (FI_PEEK | FI_CLAIM | FI_DISCARD))))
		return -FI_EBADFLAGS;
	if ((flags & FI_MULTI_RECV) && count != 1)
		return -FI_EINVAL;
	if (flags & (FI_PEEK | FI_CLAIM | FI_DISCARD)) {
		/* fi_tagged(3) only; a claim names its message by context */
		if (!tagged || !(flags & (FI_PEEK | FI_CLAIM)))
			return -FI_EBADFLAGS;
		if ((flags & FI_CLAIM) && !context)
			return -FI_EINVAL;
		if (flags & FI_PEEK)
			return sfi_peek(ep, src, tag, ignore, context, flags);
		return sfi_claimed_recv(ep, iov, count, context, flags);
	}
	rx = calloc(1, sizeof(*rx));
	if (!rx)
		return -FI_ENOMEM;
	rx->tagged = tagged;
	rx->context = context;
	rx->tag = tag;
	rx->ignore = ignore;
	rx->src = src;
	rx->flags = flags;
	if (count)
		memcpy(rx->iov, iov, count * sizeof(*iov));
	rx->iov_count = count;
	rx->iov_len = sfi_iov_total(iov, count);

	pthread_mutex_lock(&ep->domain->lock);
	if (!ep->enabled) {
		free(rx);
		ret = -FI_EOPBADSTATE;
		goto out;
	}
	if (src != FI_ADDR_UNSPEC && (ep->caps & FI_DIRECTED_RECV)) {
		struct sfi_addr a;

		if (sfi_av_lookup_addr(ep->av, src, &a)) {
			free(rx);
			ret = -FI_EINVAL;
			goto out;
		}
	}
	sfi_ep_progress(ep);
	if ((flags & FI_MULTI_RECV) && ep->nposted >= ep->rx_size) {
		free(rx);
		ret = -FI_EAGAIN;
		goto out;
	}
	if (flags & FI_MULTI_RECV) {	/* freed with its last part */
		rx->multi_next = ep->multis;
		ep->multis = rx;
		rx->pending++;		/* not while it is filled here */
	}
	/*
	 * The oldest unexpected message that matches, complete or not; a
	 * multi-receive buffer takes them as long as it has room.
	 */
	for (pp = &ep->unexp[tagged]; *pp && !rx->retired;) {
		struct sfi_rx *u = *pp, *to = rx;

		if (!sfi_src_match(ep, src, &u->from) ||
		    (tagged && !sfi_tag_match(tag, ignore, u->tag))) {
			pp = &u->next;
			continue;
		}
		if (flags & FI_MULTI_RECV) {
			to = sfi_multi_part(ep, rx, u->len, 0);
			if (!to)
				break;	/* the rest waits for memory */
		}
		*pp = u->next;
		if (u->got == u->len)
			sfi_unexp_deliver(ep, u, to, 0);
		else
			u->claimed = to;
		if (!(flags & FI_MULTI_RECV))
			goto out;
	}
	if (flags & FI_MULTI_RECV) {
		if (!rx->retired) {
			sfi_list_append(&ep->posted[0], rx);
			ep->nposted++;
		}
		sfi_multi_put(ep, rx);
		goto out;
	}
	if (ep->nposted >= ep->rx_size) {
		free(rx);
		ret = -FI_EAGAIN;
		goto out;
	}
	sfi_list_append(&ep->posted[tagged], rx);
	ep->nposted++;
out:
	pthread_mutex_unlock(&ep->domain->lock);
	return ret;
}

static struct sfi_ep *to_ep(struct fid_ep *f)
{
	return container_of(f, struct sfi_ep, ep_fid);
}

#define IOV1(buf, len) (&(struct iovec){ .iov_base = (void *)(buf), .iov_len = (len) })

static ssize_t sfi_msg_recv(struct fid_ep *ep, void *buf, size_t len, void *desc,
			    fi_addr_t src, void *context)
{
	return sfi_recv(to_ep(ep), IOV1(buf, len), 1, src, 0, 0, 0, context,
			FI_COMPLETION);
}

static ssize_t sfi_msg_recvv(struct fid_ep *ep, const struct iovec *iov,
			     void **desc, size_t count, fi_addr_t src,
			     void *context)
{
	return sfi_recv(to_ep(ep), iov, count, src, 0, 0, 0, context,
			FI_COMPLETION);
}

static ssize_t sfi_msg_recvmsg(struct fid_ep *ep, const struct fi_msg *msg,
			       uint64_t flags)
{
	return sfi_recv(to_ep(ep), msg->msg_iov, msg->iov_count, msg->addr, 0,
			0, 0, msg->context, flags);
}

static ssize_t sfi_msg_send(struct fid_ep *ep, const void *buf, size_t len,
			    void *desc, fi_addr_t dest, void *context)
{
	return sfi_send(to_ep(ep), IOV1(buf, len), 1, dest, 0, 0, 0, 0,
			context, FI_COMPLETION, 0, desc);
}

static ssize_t sfi_msg_sendv(struct fid_ep *ep, const struct iovec *iov,
			     void **desc, size_t count, fi_addr_t dest,
			     void *context)
{
	return sfi_send(to_ep(ep), iov, count, dest, 0, 0, 0, 0, context,
			FI_COMPLETION, 0, desc && count == 1 ? desc[0] : NULL);
}

static ssize_t sfi_msg_sendmsg(struct fid_ep *ep, const struct fi_msg *msg,
			       uint64_t flags)
{
	return sfi_send(to_ep(ep), msg->msg_iov, msg->iov_count, msg->addr, 0,
			0, !!(flags & FI_REMOTE_CQ_DATA), msg->data,
			msg->context, flags, !!(flags & FI_INJECT) &&
			!(flags & FI_COMPLETION), msg->desc && msg->iov_count == 1 ? msg->desc[0] : NULL);
}

static ssize_t sfi_msg_inject(struct fid_ep *ep, const void *buf, size_t len,
			      fi_addr_t dest)
{
	return sfi_send(to_ep(ep), IOV1(buf, len), 1, dest, 0, 0, 0, 0, NULL,
			0, 1, NULL);
}

static ssize_t sfi_msg_senddata(struct fid_ep *ep, const void *buf, size_t len,
				void *desc, uint64_t data, fi_addr_t dest,
				void *context)
{
	return sfi_send(to_ep(ep), IOV1(buf, len), 1, dest, 0, 0, 1, data,
			context, FI_COMPLETION, 0, desc);
}

static ssize_t sfi_msg_injectdata(struct fid_ep *ep, const void *buf,
				  size_t len, uint64_t data, fi_addr_t dest)
{
	return sfi_send(to_ep(ep), IOV1(buf, len), 1, dest, 0, 0, 1, data, NULL,
			0, 1, NULL);
}

static struct fi_ops_msg sfi_msg_ops = {
	.size = sizeof(struct fi_ops_msg),
	.recv = sfi_msg_recv,
	.recvv = sfi_msg_recvv,
	.recvmsg = sfi_msg_recvmsg,
	.send = sfi_msg_send,
	.sendv = sfi_msg_sendv,
	.sendmsg = sfi_msg_sendmsg,
	.inject = sfi_msg_inject,
	.senddata = sfi_msg_senddata,
	.injectdata = sfi_msg_injectdata,
};

static ssize_t sfi_t_recv(struct fid_ep *ep, void *buf, size_t len, void *desc,
			  fi_addr_t src, uint64_t tag, uint64_t ignore,
			  void *context)
{
	return sfi_recv(to_ep(ep), IOV1(buf, len), 1, src, 1, tag, ignore,
			context, FI_COMPLETION);
}

static ssize_t sfi_t_recvv(struct fid_ep *ep, const struct iovec *iov,
			   void **desc, size_t count, fi_addr_t src,
			   uint64_t tag, uint64_t ignore, void *context)
{
	return sfi_recv(to_ep(ep), iov, count, src, 1, tag, ignore, context,
			FI_COMPLETION);
}

static ssize_t sfi_t_recvmsg(struct fid_ep *ep, const struct fi_msg_tagged *msg,
			     uint64_t flags)
{
	return sfi_recv(to_ep(ep), msg->msg_iov, msg->iov_count, msg->addr, 1,
			msg->tag, msg->ignore, msg->context, flags);
}

static ssize_t sfi_t_send(struct fid_ep *ep, const void *buf, size_t len,
			  void *desc, fi_addr_t dest, uint64_t tag,
			  void *context)
{
	return sfi_send(to_ep(ep), IOV1(buf, len), 1, dest, 1, tag, 0, 0,
			context, FI_COMPLETION, 0, desc);
}

static ssize_t sfi_t_sendv(struct fid_ep *ep, const struct iovec *iov,
			   void **desc, size_t count, fi_addr_t dest,
			   uint64_t tag, void *context)
{
	return sfi_send(to_ep(ep), iov, count, dest, 1, tag, 0, 0, context,
			FI_COMPLETION, 0, desc && count == 1 ? desc[0] : NULL);
}

static ssize_t sfi_t_sendmsg(struct fid_ep *ep, const struct fi_msg_tagged *msg,
			     uint64_t flags)
{
	return sfi_send(to_ep(ep), msg->msg_iov, msg->iov_count, msg->addr, 1,
			msg->tag, !!(flags & FI_REMOTE_CQ_DATA), msg->data,
			msg->context, flags, !!(flags & FI_INJECT) &&
			!(flags & FI_COMPLETION), msg->desc && msg->iov_count == 1 ? msg->desc[0] : NULL);
}

static ssize_t sfi_t_inject(struct fid_ep *ep, const void *buf, size_t len,
			    fi_addr_t dest, uint64_t tag)
{
	return sfi_send(to_ep(ep), IOV1(buf, len), 1, dest, 1, tag, 0, 0, NULL,
			0, 1, NULL);
}

static ssize_t sfi_t_senddata(struct fid_ep *ep, const void *buf, size_t len,
			      void *desc, uint64_t data, fi_addr_t dest,
			      uint64_t tag, void *context)
{
	return sfi_send(to_ep(ep), IOV1(buf, len), 1, dest, 1, tag, 1, data,
			context, FI_COMPLETION, 0, desc);
}

static ssize_t sfi_t_injectdata(struct fid_ep *ep, const void *buf, size_t len,
				uint64_t data, fi_addr_t dest, uint64_t tag)
{
	return sfi_send(to_ep(ep), IOV1(buf, len), 1, dest, 1, tag, 1, data,
			NULL, 0, 1, NULL);
}

static struct fi_ops_tagged sfi_tagged_ops = {
	.size = sizeof(struct fi_ops_tagged),
	.recv = sfi_t_recv,
	.recvv = sfi_t_recvv,
	.recvmsg = sfi_t_recvmsg,
	.send = sfi_t_send,
	.sendv = sfi_t_sendv,
	.sendmsg = sfi_t_sendmsg,
	.inject = sfi_t_inject,
	.senddata = sfi_t_senddata,
	.injectdata = sfi_t_injectdata,
};

/* --- endpoint control ------------------------------------------------------- */
static ssize_t sfi_ep_cancel(fid_t fid, void *context)
{
	struct sfi_ep *ep = container_of(fid, struct sfi_ep, ep_fid.fid);
	int t;

	pthread_mutex_lock(&ep->domain->lock);
	for (t = 0; t < 2; t++) {
		struct sfi_rx **pp;

		for (pp = &ep->posted[t]; *pp; pp = &(*pp)->next) {
			struct sfi_rx *rx = *pp;

			if (rx->context != context)
				continue;
			*pp = rx->next;
			ep->nposted--;
			if (rx->flags & FI_MULTI_RECV) {
				sfi_multi_cancel(ep, rx);
				pthread_mutex_unlock(&ep->domain->lock);
				return 0;
			}
			sfi_rx_done(ep, rx, 0, rx->tag, 0, 0, NULL,
				    FI_ECANCELED);
			pthread_mutex_unlock(&ep->domain->lock);
			return 0;
		}
	}
	pthread_mutex_unlock(&ep->domain->lock);
	return -FI_ENOENT;
}

/* fi_endpoint(3): FI_OPT_MIN_MULTI_RECV, the only option */
static int sfi_ep_getopt(fid_t fid, int level, int optname, void *optval,
			 size_t *optlen)
{
	struct sfi_ep *ep = container_of(fid, struct sfi_ep, ep_fid.fid);

	if (level != FI_OPT_ENDPOINT || optname != FI_OPT_MIN_MULTI_RECV)
		return -FI_ENOPROTOOPT;
	if (!optval || !optlen || *optlen < sizeof(size_t))
		return -FI_ETOOSMALL;
	pthread_mutex_lock(&ep->domain->lock);
	*(size_t *)optval = ep->min_multi_recv;
	pthread_mutex_unlock(&ep->domain->lock);
	*optlen = sizeof(size_t);
	return 0;
}

static int sfi_ep_setopt(fid_t fid, int level, int optname, const void *optval,
			 size_t optlen)
{
	struct sfi_ep *ep = container_of(fid, struct sfi_ep, ep_fid.fid);

	if (level != FI_OPT_ENDPOINT || optname != FI_OPT_MIN_MULTI_RECV)
		return -FI_ENOPROTOOPT;
	if (!optval || optlen != sizeof(size_t))
		return -FI_EINVAL;
	pthread_mutex_lock(&ep->domain->lock);
	ep->min_multi_recv = *(const size_t *)optval;
	pthread_mutex_unlock(&ep->domain->lock);
	return 0;
}

static int sfi_no_ctx(struct fid_ep *sep, int index, struct fi_tx_attr *attr,
		      struct fid_ep **tx_ep, void *context)
{
	return -FI_ENOSYS;
}

static int sfi_no_rx_ctx(struct fid_ep *sep, int index, struct fi_rx_attr *attr,
			 struct fid_ep **rx_ep, void *context)
{
	return -FI_ENOSYS;
}

static ssize_t sfi_rx_size_left(struct fid_ep *f)
{
	struct sfi_ep *ep = to_ep(f);

	return ep->rx_size - ep->nposted;
}

static ssize_t sfi_tx_size_left(struct fid_ep *f)
{
	return 1024;	/* sends complete inside the call */
}

static struct fi_ops_ep sfi_ep_ops = {
	.size = sizeof(struct fi_ops_ep),
	.cancel = sfi_ep_cancel,
	.getopt = sfi_ep_getopt,
	.setopt = sfi_ep_setopt,
	.tx_ctx = sfi_no_ctx,
	.rx_ctx = sfi_no_rx_ctx,
	.rx_size_left = sfi_rx_size_left,
	.tx_size_left = sfi_tx_size_left,
};

static int sfi_getname(fid_t fid, void *addr, size_t *addrlen)
{
	struct sfi_ep *ep = container_of(fid, struct sfi_ep, ep_fid.fid);
	char buf[SFI_ADDRLEN];
	size_t have = *addrlen;
	int ret;

	pthread_mutex_lock(&ep->domain->lock);
	ret = sfi_ep_hw(ep);
	pthread_mutex_unlock(&ep->domain->lock);
	if (ret)
		return ret;
	*addrlen = SFI_ADDRLEN;
	if (have < SFI_ADDRLEN)
		return -FI_ETOOSMALL;
	sfi_addr_to_str(&ep->addr, buf, sizeof(buf));
	memcpy(addr, buf, SFI_ADDRLEN);
	return 0;
}

static int sfi_setname(fid_t fid, void *addr, size_t addrlen)
{
	struct sfi_ep *ep = container_of(fid, struct sfi_ep, ep_fid.fid);
	struct sfi_addr a;

	if (sfi_addr_from_str(addr, addrlen, &a))
		return -FI_EINVAL;
	if (ep->sep)
		return -FI_EOPBADSTATE;
	ep->want = a;
	ep->want_addr = 1;
	return 0;
}

static int sfi_no_getpeer(struct fid_ep *ep, void *addr, size_t *addrlen)
{
	return -FI_ENOSYS;
}

static int sfi_no_connect(struct fid_ep *ep, const void *addr,
			  const void *param, size_t paramlen)
{
	return -FI_ENOSYS;
}

static int sfi_no_listen(struct fid_pep *pep)
{
	return -FI_ENOSYS;
}

static int sfi_no_accept(struct fid_ep *ep, const void *param, size_t paramlen)
{
	return -FI_ENOSYS;
}

static int sfi_no_reject(struct fid_pep *pep, fid_t handle, const void *param,
			 size_t paramlen)
{
	return -FI_ENOSYS;
}

static int sfi_no_shutdown(struct fid_ep *ep, uint64_t flags)
{
	return -FI_ENOSYS;
}

static int sfi_no_join(struct fid_ep *ep, const void *addr, uint64_t flags,
		       struct fid_mc **mc, void *context)
{
	return -FI_ENOSYS;
}

static struct fi_ops_cm sfi_cm_ops = {
	.size = sizeof(struct fi_ops_cm),
	.setname = sfi_setname,
	.getname = sfi_getname,
	.getpeer = sfi_no_getpeer,
	.connect = sfi_no_connect,
	.listen = sfi_no_listen,
	.accept = sfi_no_accept,
	.reject = sfi_no_reject,
	.shutdown = sfi_no_shutdown,
	.join = sfi_no_join,
};

static void sfi_detach(struct sfi_ep **eps, int *n, struct sfi_ep *ep)
{
	int i;

	for (i = 0; i < *n; i++)
		if (eps[i] == ep) {
			eps[i] = eps[--*n];
			return;
		}
}

static void sfi_free_list(struct sfi_rx *rx)
{
	while (rx) {
		struct sfi_rx *next = rx->next;

		if (rx->claimed)
			free(rx->claimed);
		free(rx->buf);
		free(rx);
		rx = next;
	}
}

static int sfi_ep_close(struct fid *fid)
{
	struct sfi_ep *ep = container_of(fid, struct sfi_ep, ep_fid.fid);
	struct sfi_domain *d = ep->domain;

	pthread_mutex_lock(&d->lock);
	/* first: it waits for the peers to read our rings, progressing */
	sfi_ring_close(ep);
	while (ep->asms) {
		struct sfi_asm *a = ep->asms;

		ep->asms = a->next;
		if (a->rx)
			free(a->rx);
		if (a->unexp && a->unexp->claimed) {
			/* taken off the unexpected list when claimed */
			free(a->unexp->claimed);
			free(a->unexp->buf);
			free(a->unexp);
		}
		free(a);
	}
	while (ep->multis) {	/* retired ones: the posted list has the rest */
		struct sfi_rx *m = ep->multis;

		ep->multis = m->multi_next;
		if (m->retired)
			free(m);
	}
	sfi_free_list(ep->posted[0]);
	sfi_free_list(ep->posted[1]);
	sfi_free_list(ep->unexp[0]);
	sfi_free_list(ep->unexp[1]);
	sfi_free_list(ep->claimed);
	sfi_rdv_close(ep);
	sfi_rmr_close(ep);
	if (ep->tx_cq) {
		sfi_detach(ep->tx_cq->eps, &ep->tx_cq->neps, ep);
		ep->tx_cq->refs--;
	}
	if (ep->rx_cq) {
		sfi_detach(ep->rx_cq->eps, &ep->rx_cq->neps, ep);
		ep->rx_cq->refs--;
	}
	{
		struct sfi_cntr *cs[] = { ep->tx_cntr, ep->rx_cntr, ep->rd_cntr,
					  ep->wr_cntr, ep->rrd_cntr,
					  ep->rwr_cntr };
		size_t i, j;

		for (i = 0; i < sizeof(cs) / sizeof(cs[0]); i++) {
			if (!cs[i])
				continue;
			cs[i]->refs--;
			for (j = 0; j < i; j++)	/* detached once */
				if (cs[j] == cs[i])
					break;
			if (j == i)
				sfi_detach(cs[i]->eps, &cs[i]->neps, ep);
		}
	}
	if (ep->av)
		ep->av->refs--;
	d->refs--;
	pthread_mutex_unlock(&d->lock);
	if (ep->sep)
		snode_ep_free(ep->sep);
	free(ep);
	return 0;
}

static int sfi_ep_bind(struct fid *fid, struct fid *bfid, uint64_t flags)
{
	struct sfi_ep *ep = container_of(fid, struct sfi_ep, ep_fid.fid);
	int ret = 0;

	pthread_mutex_lock(&ep->domain->lock);
	if (ep->enabled) {
		ret = -FI_EOPBADSTATE;
		goto out;
	}
	switch (bfid->fclass) {
	case FI_CLASS_AV: {
		struct sfi_av *av = container_of(bfid, struct sfi_av, av_fid.fid);

		if (ep->av || av->domain != ep->domain) {
			ret = -FI_EINVAL;
			break;
		}
		ep->av = av;
		av->refs++;
		break;
	}
	case FI_CLASS_CQ: {
		struct sfi_cq *cq = container_of(bfid, struct sfi_cq, cq_fid.fid);

		if (cq->domain != ep->domain ||
		    flags & ~(uint64_t)(FI_TRANSMIT | FI_RECV |
					FI_SELECTIVE_COMPLETION) ||
		    !(flags & (FI_TRANSMIT | FI_RECV)) ||
		    ((flags & FI_TRANSMIT) && ep->tx_cq) ||
		    ((flags & FI_RECV) && ep->rx_cq) || cq->neps == 8) {
			ret = -FI_EINVAL;
			break;
		}
		if (flags & FI_TRANSMIT) {
			ep->tx_cq = cq;
			ep->tx_cq_flags = flags;
			cq->refs++;
		}
		if (flags & FI_RECV) {
			ep->rx_cq = cq;
			ep->rx_cq_flags = flags;
			cq->refs++;
		}
		sfi_cq_attach(cq, ep);
		break;
	}
	case FI_CLASS_CNTR: {
		struct sfi_cntr *c = container_of(bfid, struct sfi_cntr,
						  cntr_fid.fid);

		const uint64_t all = FI_SEND | FI_RECV | FI_READ | FI_WRITE |
				     FI_REMOTE_READ | FI_REMOTE_WRITE;
		struct { uint64_t flag; struct sfi_cntr **slot; } b[] = {
			{ FI_SEND, &ep->tx_cntr }, { FI_RECV, &ep->rx_cntr },
			{ FI_READ, &ep->rd_cntr }, { FI_WRITE, &ep->wr_cntr },
			{ FI_REMOTE_READ, &ep->rrd_cntr },
			{ FI_REMOTE_WRITE, &ep->rwr_cntr },
		};
		size_t k;

		if (c->domain != ep->domain || !(flags & all) ||
		    c->neps == 8) {
			ret = -FI_EINVAL;
			break;
		}
		if (flags & ~all) {
			ret = -FI_ENOSYS;
			break;
		}
		/* a peer's RMA is counted only if the endpoint asked */
		if ((flags & (FI_REMOTE_READ | FI_REMOTE_WRITE)) &&
		    !(ep->caps & FI_RMA_EVENT)) {
			ret = -FI_EINVAL;
			break;
		}
		for (k = 0; k < sizeof(b) / sizeof(b[0]); k++) {
			struct sfi_cntr *old = *b[k].slot;
			size_t j;

			if (!(flags & b[k].flag))
				continue;
			*b[k].slot = c;
			c->refs++;
			if (!old)
				continue;
			old->refs--;
			for (j = 0; j < sizeof(b) / sizeof(b[0]); j++)
				if (*b[j].slot == old)
					break;
			if (j == sizeof(b) / sizeof(b[0]))	/* unbound */
				sfi_detach(old->eps, &old->neps, ep);
		}
		sfi_cntr_attach(c, ep);
		break;
	}
	case FI_CLASS_EQ:
		break;	/* no connection events on RDM */
	default:
		ret = -FI_EINVAL;
	}
out:
	pthread_mutex_unlock(&ep->domain->lock);
	return ret;
}

static int sfi_ep_control(struct fid *fid, int command, void *arg)
{
	struct sfi_ep *ep = container_of(fid, struct sfi_ep, ep_fid.fid);
	int ret;

	if (command != FI_ENABLE)
		return -FI_ENOSYS;
	pthread_mutex_lock(&ep->domain->lock);
	if (!ep->av || (!ep->tx_cq && !ep->tx_cntr) ||
	    (!ep->rx_cq && !ep->rx_cntr)) {
		pthread_mutex_unlock(&ep->domain->lock);
		return -FI_ENOCQ;
	}
	ret = sfi_ep_hw(ep);
	if (!ret)
		ep->enabled = 1;
	pthread_mutex_unlock(&ep->domain->lock);
	return ret;
}

static struct fi_ops sfi_ep_fi_ops = {
	.size = sizeof(struct fi_ops),
	.close = sfi_ep_close,
	.bind = sfi_ep_bind,
	.control = sfi_ep_control,
	.ops_open = sfi_no_ops_open,
};

int sfi_ep_open(struct fid_domain *domain, struct fi_info *info,
		struct fid_ep **ep_fid, void *context)
{
	struct sfi_domain *d = container_of(domain, struct sfi_domain,
					    domain_fid);
	struct sfi_ep *ep;

	if (!info || !info->ep_attr || info->ep_attr->type != FI_EP_RDM ||
	    (info->caps & ~(uint64_t)SFI_CAPS))
		return -FI_EINVAL;
	ep = calloc(1, sizeof(*ep));
	if (!ep)
		return -FI_ENOMEM;
	if (info->src_addr) {
		if (sfi_addr_from_str(info->src_addr, info->src_addrlen,
				      &ep->want)) {
			free(ep);
			return -FI_EINVAL;
		}
		ep->want_addr = 1;
	}
	ep->domain = d;
	ep->caps = info->caps ? info->caps : SFI_CAPS;
	ep->rx_size = info->rx_attr && info->rx_attr->size ?
		      info->rx_attr->size : 1024;
	ep->min_multi_recv = SFI_MIN_MULTI_RECV;
	ep->ep_fid.fid.fclass = FI_CLASS_EP;
	ep->ep_fid.fid.context = context;
	ep->ep_fid.fid.ops = &sfi_ep_fi_ops;
	ep->ep_fid.ops = &sfi_ep_ops;
	ep->ep_fid.cm = &sfi_cm_ops;
	ep->ep_fid.msg = &sfi_msg_ops;
	ep->ep_fid.tagged = &sfi_tagged_ops;
	ep->ep_fid.rma = &sfi_rma_ops;
	ep->ep_fid.atomic = &sfi_atomic_ops;
	pthread_mutex_lock(&d->lock);
	d->refs++;
	pthread_mutex_unlock(&d->lock);
	*ep_fid = &ep->ep_fid;
	return 0;
}
