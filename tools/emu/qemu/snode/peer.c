// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * snode-nic: direct links to other devices (decision 0039).
 *
 * The fabric manager hands this device one end of a SOCK_SEQPACKET
 * socketpair per peer device (PEER ATTACH, the fd in SCM_RIGHTS); the peer
 * holds the other end. Messages and doorbells to that peer go over the link
 * as MSG_DELIVER and come back as its reply, with the fm off the path. The
 * fm keeps the routes: a message takes the link only while the last
 * NODE_STATE for the peer says UP, and goes to the fm (MSG_SEND) otherwise,
 * which refuses it or relays it as before; a message that arrives from a
 * node this device was told is unreachable or dead is refused.
 *
 * A message to the own node turns around in the device (msg.c) unless the
 * fm said otherwise (PEER for the own node: DETACH sends it through the
 * fm, to compare the two paths; ATTACH brings it back).
 *
 * A link's packets are read only after the fm's pending ones, so a fault
 * the fm injected before the peer sent is applied to what arrives.
 *
 * A peer is another QEMU, so everything from a link is checked: exact
 * length, known type and flags, a reply only to a message sent to that
 * peer; the source node is the link's, never the packet's. A link that
 * breaks the protocol, reads EOF or fails is closed, its messages in
 * flight fail as UNREACHABLE (what the fm answers when a node dies), and
 * the next message goes through the fm.
 */

#include "qemu/osdep.h"
#include "qemu/log.h"
#include "qemu/main-loop.h"
#include "qemu/sockets.h"
#include <sys/socket.h>

#include "snode-nic-int.h"
#include "trace.h"

/* A link's packets: a message, or a reply that is a header or a message. */
#define SNODE_PEER_RX_BUDGET    64

struct SnodePeer {
    SnodeNicState *s;
    uint32_t node;
    int fd;
};

/* Close the link to p->node; its messages in flight fail with @st. */
static void snode_peer_close(SnodeNicState *s, uint32_t node, uint16_t st,
                             const char *why)
{
    SnodePeer *p = s->peer[node];
    SnodeReq *r, *tmp;

    if (!p) {
        return;
    }
    trace_snode_nic_peer_close(node, why);
    qemu_set_fd_handler(p->fd, NULL, NULL, NULL);
    close(p->fd);
    s->peer[node] = NULL;
    g_free(p);
    QTAILQ_FOREACH_SAFE(r, &s->reqs, next, tmp) {
        if (r->peer && r->idx == node) {
            snode_req_finish(s, r, st, NULL, 0);
        }
    }
}

/* Close every link; messages in flight on them fail with @st. */
void snode_peers_close(SnodeNicState *s, uint16_t st, const char *why)
{
    uint32_t n;

    for (n = 0; n < SNODE_MAX_NODES; n++) {
        snode_peer_close(s, n, st, why);
    }
}

/* A message from the peer: deliver it and answer with the status. */
static void snode_peer_msg(SnodeNicState *s, SnodePeer *p,
                           struct snode_fm_msg *m)
{
    struct snode_fm_hdr h = {
        .type = SNODE_FM_MSG_DELIVER,
        .flags = SNODE_FM_F_REPLY,
        .len = sizeof(h),
        .seq = m->hdr.seq,
    };
    uint8_t view = s->node_state[p->node];
    uint16_t st;

    /* the link says who sent it */
    m->src_node = p->node;
    if (m->dst_node != s->node_id) {
        st = SNODE_FM_EINVAL;
    } else if (view == SNODE_FM_NODE_UNREACHABLE ||
               view == SNODE_FM_NODE_DEAD) {
        /* the fm cut the path: what crosses it now is lost */
        st = SNODE_FM_EUNREACH;
    } else {
        st = snode_msg_deliver(s, m);
    }
    if (st != SNODE_FM_OK) {
        trace_snode_nic_msg_reject(m->src_node, m->dst_ep, st);
        s->stats.msgs_rejected++;
    }
    h.status = st;
    if (send(p->fd, &h, sizeof(h), MSG_DONTWAIT | MSG_NOSIGNAL) !=
        sizeof(h)) {
        /* the sender times out, as it would on a lost reply */
        trace_snode_nic_peer_send_failed(p->node, errno);
    }
}

/* A reply from the peer to one of our messages. */
static void snode_peer_reply(SnodeNicState *s, SnodePeer *p,
                             const struct snode_fm_hdr *h)
{
    /* a 32-bit status: no value above the known ones reads as success */
    uint16_t st = h->status > SNODE_ST_REVOKED ? SNODE_ST_INTERNAL : h->status;
    SnodeReq *r;

    QTAILQ_FOREACH(r, &s->reqs, next) {
        if (r->peer && r->idx == p->node && r->seq == h->seq &&
            r->type == SNODE_FM_MSG_SEND) {
            break;
        }
    }
    if (!r) {
        /* late, after the timeout or a reset */
        trace_snode_nic_peer_bad_packet(p->node, h->type, h->len,
                                        "reply to no message");
        return;
    }
    snode_req_finish(s, r, st, NULL, 0);
}

static void snode_peer_read(void *opaque)
{
    SnodePeer *p = opaque;
    SnodeNicState *s = p->s;
    uint32_t node = p->node;
    struct snode_fm_msg buf QEMU_ALIGNED(8);
    const char *bad = NULL;
    unsigned budget;
    ssize_t n;

    /*
     * The fm's packets first: a fault it injected before the peer sent is
     * then in the tables (unix sockets queue at send(), so what the fm
     * sent before is already there), whatever order the main loop
     * dispatches ready fds in. It may also end this link.
     */
    snode_fm_read(s);
    if (s->peer[node] != p) {
        return;
    }
    for (budget = SNODE_PEER_RX_BUDGET; budget; budget--) {
        const struct snode_fm_hdr *h = &buf.hdr;

        n = recv(p->fd, &buf, sizeof(buf), MSG_DONTWAIT | MSG_TRUNC);
        if (n < 0) {
            if (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR) {
                return;
            }
            snode_peer_close(s, node, SNODE_ST_UNREACHABLE, "receive error");
            return;
        }
        if (n == 0) {
            snode_peer_close(s, node, SNODE_ST_UNREACHABLE, "closed by peer");
            return;
        }
        if ((size_t)n < sizeof(*h) || h->len != n || h->type !=
            SNODE_FM_MSG_DELIVER || (h->flags & ~SNODE_FM_F_REPLY)) {
            bad = "bad length, type or flags";
        } else if (h->flags & SNODE_FM_F_REPLY) {
            if (n != sizeof(*h)) {
                bad = "reply is not a header";
            } else {
                snode_peer_reply(s, p, h);
            }
        } else if (n != sizeof(buf)) {
            bad = "message of the wrong size";
        } else {
            snode_peer_msg(s, p, &buf);
        }
        if (bad) {
            trace_snode_nic_peer_bad_packet(node, n >= (ssize_t)sizeof(*h) ?
                                            h->type : 0, n, bad);
            snode_peer_close(s, node, SNODE_ST_UNREACHABLE,
                             "protocol violation");
            return;
        }
        /* a reply may have completed a request; the link is still ours */
        if (s->peer[node] != p) {
            return;
        }
    }
}

/*
 * Send @m over the link to its destination, if there is one and the route
 * the fm gave says UP. Return: true if it is on its way (the reply or the
 * timeout completes it), false if it must go through the fm.
 */
bool snode_peer_send(SnodeNicState *s, struct snode_fm_msg *m)
{
    uint32_t node = m->dst_node;
    SnodePeer *p = node < SNODE_MAX_NODES ? s->peer[node] : NULL;
    SnodeReq *r;

    if (!p || s->node_state[node] != SNODE_FM_NODE_UP ||
        s->nreqs >= SNODE_MAX_PENDING) {
        return false;
    }
    m->hdr.type = SNODE_FM_MSG_DELIVER;
    m->hdr.flags = 0;
    m->hdr.status = 0;
    m->hdr.len = sizeof(*m);
    m->hdr.seq = ++s->fm_seq;
    if (send(p->fd, m, sizeof(*m), MSG_DONTWAIT | MSG_NOSIGNAL) !=
        sizeof(*m)) {
        trace_snode_nic_peer_send_failed(node, errno);
        if (errno != EAGAIN && errno != EWOULDBLOCK && errno != ENOBUFS) {
            snode_peer_close(s, node, SNODE_ST_UNREACHABLE, "send error");
        }
        return false;   /* a full link: the fm relays this one */
    }
    r = g_new0(SnodeReq, 1);
    r->seq = m->hdr.seq;
    r->type = SNODE_FM_MSG_SEND;
    r->peer = true;
    r->idx = node;
    r->deadline = qemu_clock_get_ms(QEMU_CLOCK_REALTIME) + SNODE_FM_TIMEOUT_MS;
    QTAILQ_INSERT_TAIL(&s->reqs, r, next);
    s->nreqs++;
    return true;
}

/* PEER from the fm: a link to @node (@fd, ours now), or its end. */
void snode_peer_packet(SnodeNicState *s, const struct snode_fm_peer *pp,
                       int fd)
{
    int type = 0, domain = 0;
    socklen_t sl = sizeof(type), dl = sizeof(domain);
    const char *bad = NULL;
    SnodePeer *p;

    if (pp->node >= s->max_nodes) {
        bad = "bad node";
    } else if (pp->node == s->node_id) {
        /* loopback: in the device (ATTACH), or through the fm */
        if (fd >= 0 || (pp->op != SNODE_FM_PEER_ATTACH &&
                        pp->op != SNODE_FM_PEER_DETACH)) {
            bad = "bad loopback PEER";
        } else {
            s->loopback = pp->op == SNODE_FM_PEER_ATTACH;
            trace_snode_nic_peer_loopback(s->loopback);
            return;
        }
    } else if (pp->op == SNODE_FM_PEER_DETACH) {
        if (fd >= 0) {
            bad = "DETACH with an fd";
        } else {
            snode_peer_close(s, pp->node, SNODE_ST_UNREACHABLE,
                             "detached by the fm");
            return;
        }
    } else if (pp->op != SNODE_FM_PEER_ATTACH) {
        bad = "bad op";
    } else if (fd < 0) {
        bad = "ATTACH without an fd";
    } else if (getsockopt(fd, SOL_SOCKET, SO_TYPE, &type, &sl) ||
               getsockopt(fd, SOL_SOCKET, SO_DOMAIN, &domain, &dl) ||
               type != SOCK_SEQPACKET || domain != AF_UNIX) {
        bad = "not a unix seqpacket socket";
    }
    if (bad) {
        trace_snode_nic_fm_bad_packet(SNODE_FM_PEER, pp->node, bad);
        if (fd >= 0) {
            close(fd);
        }
        return;
    }
    snode_peer_close(s, pp->node, SNODE_ST_UNREACHABLE, "replaced");
    p = g_new0(SnodePeer, 1);
    p->s = s;
    p->node = pp->node;
    p->fd = fd;
    qemu_socket_set_nonblock(fd);
    s->peer[pp->node] = p;
    qemu_set_fd_handler(fd, snode_peer_read, NULL, p);
    trace_snode_nic_peer_attach(pp->node);
}
