// SPDX-License-Identifier: GPL-2.0
/*
 * DOC: proto.c - device connections on RUNDIR/fm.sock
 *
 * One SOCK_SEQPACKET connection per snode-nic device, speaking
 * snode-fm-proto.h. Every packet is checked (length equal to hdr.len and
 * at least the size of its type's structure, a type the device may send,
 * HELLO first); a device that breaks the protocol loses its connection,
 * which the fabric treats like a death. Sends never block: what the socket
 * does not take is queued and flushed on POLLOUT; a device that lets its
 * queue grow past FM_OUTQ_MAX is cut off.
 *
 * Connections are closed lazily: conn_close() only marks and shuts the
 * socket, fm_conns_reap() (from the event loop, never inside a handler)
 * declares the node dead and frees the connection, so no handler sees its
 * state change under it.
 *
 * Direct links (decision 0039): emit_peer() makes a socketpair and hands
 * one end to each of two devices in a PEER packet (SCM_RIGHTS). An fd
 * cannot wait in a connection's queue: a device whose queue is not empty
 * gets no link this time and keeps sending through the fm.
 *
 * Packets go from the fabric to the devices through fm_proto_emit, the
 * implementation of the domain's struct fm_emit: handlers here call into
 * the domain (fabric.c, link.c, mem.c, sim.c), which never calls back in
 * but through that interface.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <sys/un.h>
#include <unistd.h>

#include "proto.h"

/* the largest packet: a host export's EXPORT_SET */
#define FM_PKT_MAX		(sizeof(struct snode_fm_export_set) + \
				 SNODE_FM_MAX_SEGS * sizeof(struct snode_fm_seg))
#define FM_OUTQ_MAX		(16u << 20)
#define FM_HELLO_TIMEOUT_MS	5000

struct fm_pkt {
	struct fm_pkt *next;
	uint32_t len;
	uint8_t data[];
};

/* A MSG_DELIVER waiting for its reply from the destination device. */
struct fm_pending {
	uint32_t dst;		/* node */
	uint32_t seq;		/* of the MSG_DELIVER */
	struct fm_conn *origin;	/* NULL: the fm itself (sim echo) */
	uint64_t deadline;
	struct snode_fm_msg msg;	/* the original MSG_SEND */
};

struct fm_conn **fm_conns;
uint32_t fm_nconns;
static struct fm_pending *pending;
static uint32_t npending;
static uint32_t deliver_seq;

struct fm_conn *fm_conn_new(int fd)
{
	struct fm_conn *c = calloc(1, sizeof(*c));
	struct fm_conn **p;
	int sz = 1 << 20;

	if (!c)
		return NULL;
	p = realloc(fm_conns, (fm_nconns + 1) * sizeof(*p));
	if (!p) {
		free(c);
		return NULL;
	}
	fm_conns = p;
	setsockopt(fd, SOL_SOCKET, SO_SNDBUF, &sz, sizeof(sz));
	c->fd = fd;
	c->last_rx = fm_now_ms();
	c->outq_tail = &c->outq;
	fm_conns[fm_nconns++] = c;
	return c;
}

static void conn_close(struct fm_conn *c, const char *why)
{
	if (c->closing)
		return;
	if (c->node)
		fm_log("node %u: closing connection: %s", c->node->id, why);
	else
		fm_log("connection %d: closing: %s", c->fd, why);
	c->closing = true;
	shutdown(c->fd, SHUT_RDWR);
}

void fm_conn_free(struct fm_conn *c)
{
	while (c->outq) {
		struct fm_pkt *p = c->outq;

		c->outq = p->next;
		free(p);
	}
	close(c->fd);
	free(c);
}

static int conn_queue(struct fm_conn *c, const void *pkt, uint32_t len)
{
	struct fm_pkt *p;

	if (c->outq_bytes + len > FM_OUTQ_MAX)
		return -ENOBUFS;
	p = malloc(sizeof(*p) + len);
	if (!p)
		return -ENOMEM;
	p->next = NULL;
	p->len = len;
	memcpy(p->data, pkt, len);
	*c->outq_tail = p;
	c->outq_tail = &p->next;
	c->outq_bytes += len;
	return 0;
}

void fm_conn_flush(struct fm_conn *c)
{
	while (c->outq && !c->closing) {
		struct fm_pkt *p = c->outq;

		if (send(c->fd, p->data, p->len, MSG_DONTWAIT | MSG_NOSIGNAL) < 0) {
			if (errno == EAGAIN || errno == EWOULDBLOCK)
				return;
			conn_close(c, strerror(errno));
			return;
		}
		c->outq = p->next;
		if (!c->outq)
			c->outq_tail = &c->outq;
		c->outq_bytes -= p->len;
		free(p);
	}
}

static int conn_send(struct fm_conn *c, const void *pkt, uint32_t len)
{
	if (c->closing)
		return -EPIPE;
	if (!c->outq) {
		if (send(c->fd, pkt, len, MSG_DONTWAIT | MSG_NOSIGNAL) == (ssize_t)len)
			return 0;
		if (errno != EAGAIN && errno != EWOULDBLOCK) {
			conn_close(c, strerror(errno));
			return -EPIPE;
		}
	}
	if (conn_queue(c, pkt, len)) {
		conn_close(c, "device does not read its socket");
		return -ENOBUFS;
	}
	return 0;
}

/* fm_emit.send: a packet for n's device, if one is attached */
static void emit_send(struct fm_fabric *f, struct fm_node *n, const void *pkt,
		      uint32_t len)
{
	(void)f;
	if (n->conn)
		conn_send(n->conn, pkt, len);
}

static void reply(struct fm_conn *c, void *pkt, uint32_t len, uint32_t seq,
		  uint16_t type, uint32_t status)
{
	struct snode_fm_hdr *h = pkt;

	h->type = type;
	h->flags = SNODE_FM_F_REPLY;
	h->len = len;
	h->seq = seq;
	h->status = status;
	conn_send(c, pkt, len);
}

static void reply_status(struct fm_conn *c, const struct snode_fm_hdr *req,
			 uint32_t status)
{
	struct snode_fm_hdr h;

	reply(c, &h, sizeof(h), req->seq, req->type, status);
}

static void do_hello(struct fm_fabric *f, struct fm_conn *c,
		     const struct snode_fm_hello *m)
{
	struct snode_fm_hello_reply r;
	struct fm_node *n = fm_node_get(f, m->node);
	const char *why = NULL;

	memset(&r, 0, sizeof(r));
	r.version = SNODE_FM_PROTO_VERSION;
	r.node = m->node;
	if (c->node)
		why = "second HELLO";
	else if (m->version != SNODE_FM_PROTO_VERSION)
		why = "protocol version mismatch";
	else if (!n)
		why = "node not in the topology";
	else if (n->sim)
		why = "node is simulated by the fm";
	else if (n->conn)
		why = "node already attached";
	if (why) {
		fm_log("HELLO for node %u refused: %s", m->node, why);
		reply(c, &r, sizeof(r), m->hdr.seq, SNODE_FM_HELLO,
		      SNODE_FM_EINVAL);
		if (!c->node)
			conn_close(c, why);
		return;
	}
	r.fabric_id = f->fabric_id;
	r.nports = n->nports;
	r.max_nodes = FM_MAX_NODES;
	r.pool_size = n->pool_size;
	snprintf(r.pool_path, sizeof(r.pool_path), "%s", n->path);
	snprintf(r.serial, sizeof(r.serial), "SNODE-%u-%u", f->fabric_id, n->id);
	c->node = n;
	n->conn = c;
	n->pid = m->pid;
	n->direct = m->features & SNODE_FM_HELLO_DIRECT;
	fm_log("node %u attached (pid %u)%s%s", n->id, m->pid,
	       n->direct ? ", takes direct links" : "",
	       n->life == FM_LIFE_DEAD ? ", rejoining" : "");
	reply(c, &r, sizeof(r), m->hdr.seq, SNODE_FM_HELLO, SNODE_FM_OK);
	fm_node_attach(f, n);
	/* after the node states: a peer's first NODE_STATE comes first */
	fm_direct_pair(f, n);
}

static void do_export_set(struct fm_fabric *f, struct fm_conn *c,
			  const struct snode_fm_export_set *m)
{
	struct fm_export *e;
	int st;

	if (m->nseg > SNODE_FM_MAX_SEGS ||
	    m->hdr.len < sizeof(*m) + (size_t)m->nseg * sizeof(m->seg[0])) {
		reply_status(c, &m->hdr, SNODE_FM_EINVAL);
		return;
	}
	e = calloc(1, sizeof(*e) + (size_t)m->nseg * sizeof(m->seg[0]));
	if (!e) {
		reply_status(c, &m->hdr, SNODE_FM_ENORES);
		return;
	}
	e->perm = m->perm;
	e->offset = m->offset;
	e->len = m->len;
	e->key = m->key;
	e->all_nodes = m->all_nodes == 1;
	memcpy(e->nodemask, m->nodemask, sizeof(e->nodemask));
	e->nseg = m->nseg;
	memcpy(e->seg, m->seg, (size_t)m->nseg * sizeof(m->seg[0]));
	memcpy(e->path, m->path, sizeof(e->path));
	e->path[sizeof(e->path) - 1] = 0;
	st = fm_export_set(f, c->node, m->export_id, e);
	fm_log("node %u: export %u %s 0x%llx len 0x%llx: %s", c->node->id,
	       m->export_id, m->nseg ? "host segments" : "offset",
	       (unsigned long long)(m->nseg ? m->nseg : m->offset),
	       (unsigned long long)m->len, fm_status_name(st));
	free(e);
	reply_status(c, &m->hdr, st);
}

static void do_export_clear(struct fm_fabric *f, struct fm_conn *c,
			    const struct snode_fm_export_clear *m)
{
	struct snode_fm_export_clear r = { .export_id = m->export_id };
	int st;

	st = fm_export_clear(f, c->node, m->export_id, SNODE_FM_REVOKE_UNEXPORT,
			     &r.revoked);
	fm_log("node %u: unexport %u: %s, %u revoked", c->node->id,
	       m->export_id, fm_status_name(st), r.revoked);
	reply(c, &r, sizeof(r), m->hdr.seq, SNODE_FM_EXPORT_CLEAR, st);
}

static void do_grant(struct fm_fabric *f, struct fm_conn *c,
		     const struct snode_fm_grant *m)
{
	size_t len = sizeof(struct snode_fm_grant_reply) +
		     SNODE_FM_MAX_SEGS * sizeof(struct snode_fm_seg);
	struct snode_fm_grant_reply *r = calloc(1, len);
	int st;

	if (!r) {
		reply_status(c, &m->hdr, SNODE_FM_ENORES);
		return;
	}
	st = fm_grant_take(f, c->node->id, m, r);
	fm_log("node %u: grant att %u onto %u export %u: %s", c->node->id,
	       m->att_index, m->node, m->export_id, fm_status_name(st));
	reply(c, r, sizeof(*r) + (size_t)r->nseg * sizeof(r->seg[0]),
	      m->hdr.seq, SNODE_FM_GRANT, st);
	free(r);
}

static void do_port_set(struct fm_fabric *f, struct fm_conn *c,
			const struct snode_fm_port_set *m)
{
	struct fm_link *l;
	int st = SNODE_FM_OK;

	if (m->port >= c->node->nports || m->action < SNODE_FM_PORT_ADMIN_DOWN ||
	    m->action > SNODE_FM_PORT_CLEAR) {
		reply_status(c, &m->hdr, SNODE_FM_EINVAL);
		return;
	}
	l = fm_port_link(f, c->node->id, m->port);
	fm_log("node %u: port %u action %u", c->node->id, m->port, m->action);
	if (l) {
		switch (m->action) {
		case SNODE_FM_PORT_ADMIN_DOWN:
			fm_link_set_admin(f, l, false);
			break;
		case SNODE_FM_PORT_ADMIN_UP:
			fm_link_set_admin(f, l, true);
			break;
		case SNODE_FM_PORT_RESET:
			fm_link_reset(f, l);
			break;
		case SNODE_FM_PORT_CLEAR:
			fm_link_advance(l, f->now);
			fm_link_clear(l);
			break;
		}
	}
	reply_status(c, &m->hdr, st);
	/* the new state follows the reply */
	if (!l)
		fm_emit_port_state(f, c->node, m->port);
}

static void pending_remove(uint32_t i)
{
	pending[i] = pending[--npending];
}

/* Relay m to dst's device; origin (NULL: the fm) gets its answer. */
static void msg_deliver(struct fm_fabric *f, struct fm_node *dst,
			const struct snode_fm_msg *m, struct fm_conn *origin,
			uint32_t origin_seq)
{
	struct snode_fm_msg d = *m;
	struct fm_pending *p;

	p = realloc(pending, (npending + 1) * sizeof(*p));
	if (!p) {
		if (origin) {
			d.hdr.seq = origin_seq;
			reply(origin, &d, sizeof(d), origin_seq,
			      SNODE_FM_MSG_SEND, SNODE_FM_EINTERNAL);
		}
		return;
	}
	pending = p;
	p = &pending[npending++];
	p->dst = dst->id;
	p->seq = ++deliver_seq;
	p->origin = origin;
	p->deadline = f->now + FM_MSG_TIMEOUT_MS;
	p->msg = *m;
	p->msg.hdr.seq = origin_seq;
	d.hdr.type = SNODE_FM_MSG_DELIVER;
	d.hdr.flags = 0;
	d.hdr.len = sizeof(d);
	d.hdr.seq = p->seq;
	d.hdr.status = 0;
	emit_send(f, dst, &d, sizeof(d));
}

static void pending_answer(uint32_t i, uint32_t status)
{
	struct fm_pending p = pending[i];

	pending_remove(i);
	if (p.origin)
		reply(p.origin, &p.msg, sizeof(p.msg), p.msg.hdr.seq,
		      SNODE_FM_MSG_SEND, status);
}

static void do_msg_send(struct fm_fabric *f, struct fm_conn *c,
			const struct snode_fm_msg *m)
{
	struct snode_fm_msg r = *m;
	struct fm_node *dst = fm_node_get(f, m->dst_node);
	uint8_t route;
	uint32_t st;

	r.src_node = c->node->id;
	c->node->msgs_relayed++;
	if (m->len > SNODE_FM_MSG_MAX) {
		st = SNODE_FM_EINVAL;
	} else if (!dst || (dst != c->node &&
			    fm_node_view(f, c->node->id, dst->id, &route) !=
			    SNODE_FM_NODE_UP)) {
		st = SNODE_FM_EUNREACH;
	} else if (dst->sim) {
		st = fm_sim_msg(f, dst, &r);
		reply(c, &r, sizeof(r), m->hdr.seq, SNODE_FM_MSG_SEND, st);
		if (st == SNODE_FM_OK)
			fm_sim_echo(f, dst, &r);
		return;
	} else if (!dst->conn) {
		st = SNODE_FM_EUNREACH;
	} else {
		msg_deliver(f, dst, &r, c, m->hdr.seq);
		return;
	}
	reply(c, &r, sizeof(r), m->hdr.seq, SNODE_FM_MSG_SEND, st);
}

static void do_msg_reply(struct fm_fabric *f, struct fm_conn *c,
			 const struct snode_fm_hdr *h)
{
	uint32_t i;

	(void)f;
	for (i = 0; i < npending; i++) {
		if (pending[i].dst == c->node->id && pending[i].seq == h->seq) {
			pending_answer(i, h->status);
			return;
		}
	}
	/* late (after the timeout) or for a sim echo: nothing to relay */
}

/* fm_emit.node_gone */
static void emit_node_gone(struct fm_fabric *f, struct fm_node *n,
			   const char *why)
{
	struct fm_conn *c = n->conn;
	uint32_t i;

	(void)f;
	if (c) {
		n->conn = NULL;
		c->node = NULL;
		conn_close(c, why);
	}
	for (i = npending; i-- > 0;)
		if (pending[i].dst == n->id)
			pending_answer(i, SNODE_FM_EUNREACH);
}

/* fm_emit.deliver: a message from the fm itself, nobody to answer */
static void emit_deliver(struct fm_fabric *f, struct fm_node *dst,
			 const struct snode_fm_msg *m)
{
	msg_deliver(f, dst, m, NULL, 0);
}

/* A PEER packet to c's device; fd >= 0 rides along (SCM_RIGHTS). */
static int peer_send(struct fm_conn *c, uint32_t node, uint32_t op, int fd)
{
	struct snode_fm_peer p = {
		.hdr = { .type = SNODE_FM_PEER, .len = sizeof(p) },
		.node = node,
		.op = op,
	};
	union {
		struct cmsghdr h;
		char buf[CMSG_SPACE(sizeof(int))];
	} u;
	struct iovec iov = { .iov_base = &p, .iov_len = sizeof(p) };
	struct msghdr mh = {
		.msg_iov = &iov,
		.msg_iovlen = 1,
		.msg_control = u.buf,
		.msg_controllen = sizeof(u.buf),
	};
	struct cmsghdr *cm;

	if (c->closing)
		return -EPIPE;
	if (fd < 0)
		return conn_send(c, &p, sizeof(p));
	if (c->outq)
		return -EAGAIN;
	memset(&u, 0, sizeof(u));
	cm = CMSG_FIRSTHDR(&mh);
	cm->cmsg_level = SOL_SOCKET;
	cm->cmsg_type = SCM_RIGHTS;
	cm->cmsg_len = CMSG_LEN(sizeof(int));
	memcpy(CMSG_DATA(cm), &fd, sizeof(fd));
	if (sendmsg(c->fd, &mh, MSG_DONTWAIT | MSG_NOSIGNAL) == (ssize_t)sizeof(p))
		return 0;
	if (errno == EAGAIN || errno == EWOULDBLOCK)
		return -EAGAIN;
	conn_close(c, strerror(errno));
	return -EPIPE;
}

/* fm_emit.peer */
static void emit_peer(struct fm_fabric *f, struct fm_node *a, struct fm_node *b,
		      bool attach)
{
	int sv[2], sz = 256 << 10;

	(void)f;
	if (!a->conn || !b->conn)
		return;
	if (a == b) {	/* loopback: in the device, or through the fm */
		peer_send(a->conn, a->id, attach ? SNODE_FM_PEER_ATTACH :
			  SNODE_FM_PEER_DETACH, -1);
		return;
	}
	if (!attach) {
		peer_send(a->conn, b->id, SNODE_FM_PEER_DETACH, -1);
		peer_send(b->conn, a->id, SNODE_FM_PEER_DETACH, -1);
		fm_log("nodes %u and %u: direct link ended", a->id, b->id);
		return;
	}
	if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv)) {
		fm_log("nodes %u and %u: no direct link: socketpair: %s", a->id,
		       b->id, strerror(errno));
		return;
	}
	setsockopt(sv[0], SOL_SOCKET, SO_SNDBUF, &sz, sizeof(sz));
	setsockopt(sv[1], SOL_SOCKET, SO_SNDBUF, &sz, sizeof(sz));
	/* the fm keeps no end: a link closes when either device lets go */
	if (peer_send(a->conn, b->id, SNODE_FM_PEER_ATTACH, sv[0]) ||
	    peer_send(b->conn, a->id, SNODE_FM_PEER_ATTACH, sv[1]))
		fm_log("nodes %u and %u: no direct link: a device's queue is "
		       "full", a->id, b->id);
	else
		fm_log("nodes %u and %u: direct link", a->id, b->id);
	close(sv[0]);
	close(sv[1]);
}

static void do_reset(struct fm_fabric *f, struct fm_conn *c,
		     const struct snode_fm_hdr *h)
{
	struct fm_node *n = c->node;

	fm_log("node %u: device reset", n->id);
	fm_exports_drop(f, n, SNODE_FM_REVOKE_EXPORTER_RESET);
	fm_grants_drop_importer(f, n->id);
	reply_status(c, h, SNODE_FM_OK);
	/* the device forgot everything: tell it again */
	fm_node_attach(f, n);
}

static void do_stats(struct fm_fabric *f, struct fm_conn *c,
		     const struct snode_fm_stats *m)
{
	struct fm_link *l = fm_port_link(f, c->node->id, m->port);

	if (!l)
		return;
	l->tx_bytes += m->tx_bytes;
	l->rx_bytes += m->rx_bytes;
}

/* Minimum length per type a device may send; 0: not from a device. */
static uint32_t min_len(uint16_t type, bool reply)
{
	if (reply)
		return type == SNODE_FM_MSG_DELIVER ? sizeof(struct snode_fm_hdr) : 0;
	switch (type) {
	case SNODE_FM_HELLO:		return sizeof(struct snode_fm_hello);
	case SNODE_FM_HEARTBEAT:	return sizeof(struct snode_fm_heartbeat);
	case SNODE_FM_EXPORT_SET:	return sizeof(struct snode_fm_export_set);
	case SNODE_FM_EXPORT_CLEAR:	return sizeof(struct snode_fm_export_clear);
	case SNODE_FM_GRANT:		return sizeof(struct snode_fm_grant);
	case SNODE_FM_GRANT_RELEASE:	return sizeof(struct snode_fm_grant_release);
	case SNODE_FM_PORT_SET:		return sizeof(struct snode_fm_port_set);
	case SNODE_FM_MSG_SEND:		return sizeof(struct snode_fm_msg);
	case SNODE_FM_RESET:		return sizeof(struct snode_fm_reset);
	case SNODE_FM_STATS:		return sizeof(struct snode_fm_stats);
	default:			return 0;
	}
}

static void conn_packet(struct fm_fabric *f, struct fm_conn *c,
			const void *buf, ssize_t n)
{
	const struct snode_fm_hdr *h = buf;
	bool is_reply;
	uint32_t need;
	char why[96];

	if ((size_t)n < sizeof(*h) || h->len != (uint32_t)n) {
		snprintf(why, sizeof(why), "bad packet length %zd (hdr.len %u)",
			 n, (size_t)n >= sizeof(*h) ? h->len : 0);
		conn_close(c, why);
		return;
	}
	is_reply = h->flags & SNODE_FM_F_REPLY;
	need = min_len(h->type, is_reply);
	if (!need || (h->flags & ~SNODE_FM_F_REPLY)) {
		snprintf(why, sizeof(why), "bad packet type %u flags 0x%x",
			 h->type, h->flags);
		conn_close(c, why);
		return;
	}
	if ((uint32_t)n < need) {
		snprintf(why, sizeof(why), "packet type %u too short (%zd < %u)",
			 h->type, n, need);
		conn_close(c, why);
		return;
	}
	if (!c->node && h->type != SNODE_FM_HELLO) {
		conn_close(c, "packet before HELLO");
		return;
	}
	c->last_rx = f->now;
	if (is_reply) {
		do_msg_reply(f, c, h);
		return;
	}
	switch (h->type) {
	case SNODE_FM_HELLO:
		do_hello(f, c, buf);
		break;
	case SNODE_FM_HEARTBEAT:
		break;
	case SNODE_FM_EXPORT_SET:
		do_export_set(f, c, buf);
		break;
	case SNODE_FM_EXPORT_CLEAR:
		do_export_clear(f, c, buf);
		break;
	case SNODE_FM_GRANT:
		do_grant(f, c, buf);
		break;
	case SNODE_FM_GRANT_RELEASE:
		fm_grant_release(f, c->node->id,
				 ((const struct snode_fm_grant_release *)buf)->att_index);
		break;
	case SNODE_FM_PORT_SET:
		do_port_set(f, c, buf);
		break;
	case SNODE_FM_MSG_SEND:
		do_msg_send(f, c, buf);
		break;
	case SNODE_FM_RESET:
		do_reset(f, c, h);
		break;
	case SNODE_FM_STATS:
		do_stats(f, c, buf);
		break;
	}
}

/* Read everything the device sent (called on POLLIN). */
void fm_conn_input(struct fm_fabric *f, struct fm_conn *c)
{
	uint64_t buf[FM_PKT_MAX / 8];
	int budget = 256;	/* let other devices have a turn */

	while (!c->closing && budget--) {
		ssize_t n = recv(c->fd, buf, sizeof(buf), MSG_DONTWAIT | MSG_TRUNC);

		if (n < 0) {
			if (errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR)
				conn_close(c, strerror(errno));
			return;
		}
		if (n == 0) {
			conn_close(c, "connection closed by the device");
			return;
		}
		if (n > (ssize_t)sizeof(buf)) {
			conn_close(c, "oversized packet");
			return;
		}
		conn_packet(f, c, buf, n);
	}
}

/* Heartbeats, HELLO timeouts and message timeouts. */
void fm_proto_timers(struct fm_fabric *f)
{
	uint32_t i;

	for (i = 0; i < fm_nconns; i++) {
		struct fm_conn *c = fm_conns[i];

		if (c->closing)
			continue;
		/*
		 * A connection accepted in this pass of the loop has a
		 * last_rx read after f->now: compare without subtracting,
		 * or it would wrap and look ages old.
		 */
		if (c->node && f->now > c->last_rx +
		    (f->dead_ms ? f->dead_ms : SNODE_FM_DEAD_MS))
			conn_close(c, "heartbeat lost");
		else if (!c->node && f->now > c->last_rx + FM_HELLO_TIMEOUT_MS)
			conn_close(c, "no HELLO");
	}
	for (i = npending; i-- > 0;)
		if (f->now >= pending[i].deadline)
			pending_answer(i, SNODE_FM_ETIMEOUT);
}

/* Free closed connections; the nodes behind them are dead. */
void fm_conns_reap(struct fm_fabric *f)
{
	uint32_t i, j;

	for (i = 0; i < fm_nconns;) {
		struct fm_conn *c = fm_conns[i];
		struct fm_node *n = c->node;

		if (!c->closing) {
			i++;
			continue;
		}
		if (n) {
			c->node = NULL;
			n->conn = NULL;
			fm_node_dead(f, n, "connection closed");
		}
		for (j = npending; j-- > 0;)
			if (pending[j].origin == c)
				pending[j].origin = NULL;
		fm_conns[i] = fm_conns[--fm_nconns];
		fm_conn_free(c);
	}
}

void fm_conns_close_all(struct fm_fabric *f)
{
	uint32_t i;

	for (i = 0; i < fm_nconns; i++)
		if (fm_conns[i]->node)
			fm_conns[i]->node->conn = NULL;
	for (i = 0; i < fm_nconns; i++)
		fm_conn_free(fm_conns[i]);
	free(fm_conns);
	fm_conns = NULL;
	fm_nconns = 0;
	free(pending);
	pending = NULL;
	npending = 0;
	(void)f;
}

const struct fm_emit fm_proto_emit = {
	.send = emit_send,
	.node_gone = emit_node_gone,
	.deliver = emit_deliver,
	.peer = emit_peer,
};
