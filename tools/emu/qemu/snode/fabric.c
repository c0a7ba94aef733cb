// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * snode-nic: the connection to the fabric manager (snode-fm): HELLO, requests
 * and their replies or timeouts, heartbeat and traffic reports, unsolicited
 * packets (revocations, node and port state, sensors, messages) and
 * detaching when the fm goes away.
 */

#include "qemu/osdep.h"
#include "qemu/log.h"
#include "qemu/error-report.h"
#include "qemu/main-loop.h"
#include "qemu/bswap.h"
#include "qapi/error.h"
#include <sys/socket.h>
#include <sys/un.h>
#include <poll.h>

#include "snode-nic-int.h"
#include "trace.h"

static void snode_detach(SnodeNicState *s);

/* ---------------------------------------------------------------------- */
/* Fabric manager transport                                                */

static void snode_fm_lost(SnodeNicState *s)
{
    if (s->fm_fd >= 0) {
        qemu_bh_schedule(s->fm_lost_bh);
    }
}

static bool snode_fm_send(SnodeNicState *s, void *pkt, size_t len)
{
    struct snode_fm_hdr *h = pkt;
    ssize_t n;

    if (s->fm_fd < 0) {
        return false;
    }
    h->len = len;
    trace_snode_nic_fm_send(h->type, h->seq, h->flags, h->status, len);
    n = send(s->fm_fd, pkt, len, MSG_DONTWAIT | MSG_NOSIGNAL);
    if (n != (ssize_t)len) {
        trace_snode_nic_fm_send_failed(h->type, n < 0 ? errno : 0);
        if (n < 0 && errno != EAGAIN && errno != EWOULDBLOCK &&
            errno != ENOBUFS) {
            snode_fm_lost(s);
        }
        return false;
    }
    return true;
}

/* Send a request and remember it until the reply or the timeout. */
SnodeReq *snode_fm_request(SnodeNicState *s, void *pkt, size_t len,
                           bool admin, uint16_t cid, uint32_t idx,
                           uint32_t arg)
{
    struct snode_fm_hdr *h = pkt;
    SnodeReq *r;

    if (s->nreqs >= SNODE_MAX_PENDING) {
        return NULL;
    }
    h->seq = ++s->fm_seq;
    h->flags = 0;
    h->status = 0;
    if (!snode_fm_send(s, pkt, len)) {
        return NULL;
    }
    r = g_new0(SnodeReq, 1);
    r->seq = h->seq;
    r->type = h->type;
    r->admin = admin;
    r->cid = cid;
    r->idx = idx;
    r->arg = arg;
    r->deadline = qemu_clock_get_ms(QEMU_CLOCK_REALTIME) + SNODE_FM_TIMEOUT_MS;
    QTAILQ_INSERT_TAIL(&s->reqs, r, next);
    s->nreqs++;
    return r;
}

void snode_req_free(SnodeNicState *s, SnodeReq *r)
{
    QTAILQ_REMOVE(&s->reqs, r, next);
    s->nreqs--;
    g_free(r);
}

void snode_fm_simple(SnodeNicState *s, uint16_t type, void *pkt,
                     size_t len)
{
    struct snode_fm_hdr *h = pkt;

    h->type = type;
    h->flags = 0;
    h->status = 0;
    h->seq = ++s->fm_seq;
    snode_fm_send(s, pkt, len);
}

/* ---------------------------------------------------------------------- */
/* Fabric manager: incoming traffic                                        */

static SnodeReq *snode_req_find(SnodeNicState *s, uint32_t seq, uint16_t type)
{
    SnodeReq *r;

    QTAILQ_FOREACH(r, &s->reqs, next) {
        if (r->seq == seq && r->type == type) {
            return r;
        }
    }
    return NULL;
}

/*
 * A GRANT reply of a host export carries the window's runs of the
 * exporter's RAM file: as many as the packet holds, page aligned, adding
 * up to the window. Return: false if the reply is malformed.
 */
static bool snode_grant_segs_ok(const struct snode_fm_grant_reply *g,
                                size_t len, uint32_t *nseg)
{
    uint64_t sum = 0;
    uint32_t i;

    *nseg = 0;
    if (len < offsetof(struct snode_fm_grant_reply, seg) || !g->nseg) {
        return true;    /* a pool window */
    }
    if (g->nseg > SNODE_FM_MAX_SEGS || g->file_offset ||
        len < offsetof(struct snode_fm_grant_reply, seg) +
              (size_t)g->nseg * sizeof(g->seg[0])) {
        return false;
    }
    for (i = 0; i < g->nseg; i++) {
        uint64_t o = g->seg[i].offset, l = g->seg[i].len;

        if (!l || (o | l) % SNODE_PAGE || o + l < o || sum + l < sum) {
            return false;
        }
        sum += l;
    }
    *nseg = g->nseg;
    return sum == g->len;
}

/* Finish a request with status; g may carry a GRANT reply. */
void snode_req_finish(SnodeNicState *s, SnodeReq *r, uint16_t st,
                      const void *pkt, size_t len)
{
    uint32_t r0 = 0, nseg = 0;

    switch (r->type) {
    case SNODE_FM_GRANT: {
        SnodeAtt *a = &s->att[r->idx];
        const struct snode_fm_grant_reply *g = pkt;
        SnodeMap *m;
        char path[SNODE_FM_PATH_MAX + 1];

        if (a->state != ATT_PENDING) {
            break;      /* reset in between */
        }
        a->state = ATT_FREE;
        if (st == SNODE_ST_SUCCESS) {
            if (!g || len < SNODE_GRANT_REPLY_LEN || g->len != a->len ||
                g->file_offset % SNODE_PAGE ||
                !snode_grant_segs_ok(g, len, &nseg)) {
                trace_snode_nic_fm_bad_packet(SNODE_FM_GRANT, len,
                                              "bad grant reply");
                st = SNODE_ST_INTERNAL;
            }
        }
        if (st == SNODE_ST_SUCCESS && nseg) {
            memcpy(path, g->path, SNODE_FM_PATH_MAX);
            path[SNODE_FM_PATH_MAX] = 0;
            if (!snode_att_map_segs(s, r->idx, path, g->seg, nseg)) {
                st = SNODE_ST_INTERNAL;
            } else {
                a->state = ATT_VALID;
                a->epoch = ++s->att_epoch_next;
                a->revoke_reason = 0;
                r0 = a->epoch;
                s->stats.att_sets++;
                trace_snode_nic_att_map(r->idx, a->ap_off, a->len, a->node,
                                        a->epoch);
            }
        } else if (st == SNODE_ST_SUCCESS) {
            memcpy(path, g->path, SNODE_FM_PATH_MAX);
            path[SNODE_FM_PATH_MAX] = 0;
            m = snode_peer_map(s, path, g->file_offset + g->len);
            if (!m || g->file_offset + g->len < g->len ||
                !snode_att_map(s, r->idx, (uint8_t *)m->ptr + g->file_offset,
                               path, g->file_offset)) {
                st = SNODE_ST_INTERNAL;
            } else {
                a->state = ATT_VALID;
                a->epoch = ++s->att_epoch_next;
                a->revoke_reason = 0;
                r0 = a->epoch;
                s->stats.att_sets++;
                trace_snode_nic_att_map(r->idx, a->ap_off, a->len, a->node,
                                        a->epoch);
            }
        }
        if (st != SNODE_ST_SUCCESS && st != SNODE_ST_TIMEOUT &&
            st != SNODE_ST_NOT_ATTACHED && g && len >= SNODE_GRANT_REPLY_LEN &&
            g->hdr.status == SNODE_FM_OK) {
            /* The fm granted but we could not map it: give it back. */
            struct snode_fm_grant_release rel = { .att_index = r->idx };

            snode_fm_simple(s, SNODE_FM_GRANT_RELEASE, &rel, sizeof(rel));
        }
        if (st == SNODE_ST_TIMEOUT) {
            /* A late grant must not leak on the fm side. */
            struct snode_fm_grant_release rel = { .att_index = r->idx };

            snode_fm_simple(s, SNODE_FM_GRANT_RELEASE, &rel, sizeof(rel));
        }
        break;
    }
    case SNODE_FM_EXPORT_SET:
        if (s->exp[r->idx].state == EXP_PENDING_SET) {
            s->exp[r->idx].state = st == SNODE_ST_SUCCESS ? EXP_VALID
                                                          : EXP_FREE;
        }
        if (st == SNODE_ST_TIMEOUT) {
            /* A late success must not leave an export we do not know. */
            struct snode_fm_export_clear ec = { .export_id = r->idx };

            snode_fm_simple(s, SNODE_FM_EXPORT_CLEAR, &ec, sizeof(ec));
        }
        break;
    case SNODE_FM_EXPORT_CLEAR:
        if (s->exp[r->idx].state == EXP_PENDING_CLEAR) {
            /*
             * On a refusal the export stays as it was; after a timeout the
             * clear is still on its way to the fm, so it is gone.
             */
            s->exp[r->idx].state = (st == SNODE_ST_SUCCESS ||
                                    st == SNODE_ST_TIMEOUT) ? EXP_FREE
                                                            : EXP_VALID;
        }
        if (st == SNODE_ST_SUCCESS && pkt &&
            len >= sizeof(struct snode_fm_export_clear)) {
            r0 = ((const struct snode_fm_export_clear *)pkt)->revoked;
        }
        break;
    case SNODE_FM_PORT_SET:
        if (st == SNODE_ST_SUCCESS && r->arg == SNODE_FM_PORT_CLEAR &&
            r->idx < SNODE_MAX_PORTS) {
            SnodePort *p = &s->port[r->idx];

            p->tx_bytes = p->rx_bytes = p->tx_msgs = p->rx_msgs = 0;
            p->rep_tx = p->rep_rx = 0;
        }
        break;
    case SNODE_FM_MSG_SEND:
        snode_msg_done(s, st);
        break;
    }
    if (r->admin) {
        if (st != SNODE_ST_SUCCESS) {
            trace_snode_nic_admin_err(0, r->cid, st);
        }
        snode_complete(s, r->cid, st, r0, 0);
    }
    snode_req_free(s, r);
}

static void snode_fm_reply(SnodeNicState *s, struct snode_fm_hdr *h, size_t len)
{
    SnodeReq *r = snode_req_find(s, h->seq, h->type);
    /* compared as sent: a 32-bit status above the known ones is none */
    uint16_t st = h->status > SNODE_ST_REVOKED ? SNODE_ST_INTERNAL : h->status;

    if (!r || r->peer) {
        trace_snode_nic_fm_bad_packet(h->type, len, "reply to no request");
        return;
    }
    snode_req_finish(s, r, st, h, len);
}

static void snode_fm_port_state(SnodeNicState *s,
                                const struct snode_fm_port_state *ps)
{
    SnodePort *p;
    bool link, ber;

    if (ps->port >= s->nports) {
        trace_snode_nic_fm_bad_packet(SNODE_FM_PORT_STATE, ps->port,
                                      "port out of range");
        return;
    }
    p = &s->port[ps->port];
    link = !p->known || p->fm.oper_state != ps->oper_state ||
           p->fm.lanes != ps->lanes;
    ber = p->known && p->fm.ber != ps->ber;
    p->fm = *ps;
    p->known = true;
    if (link) {
        snode_ev_link_state(s, ps->port);
    }
    if (ber) {
        uint8_t d[16] = {};
        union { double d; uint64_t u; } b = { .d = ps->ber };

        d[0] = ps->port;
        stq_le_p(d + 8, b.u);
        snode_post_event(s, SNODE_EV_LINK_BER, d);
    }
}

/*
 * The route topology a NODE_STATE carries (decision 0030); a shorter
 * packet, from an fm before topology, leaves the node without one. Values
 * out of range of the names the fm gave read as none.
 */
static void snode_fm_node_topo(SnodeNicState *s,
                               const struct snode_fm_node_state *ns,
                               size_t len)
{
    SnodeNodeTopo *t = &s->node_topo[ns->node];

    memset(t, 0, sizeof(*t));
    t->sw = SNODE_TOPO_NONE16;
    t->rack = SNODE_TOPO_NONE16;
    t->plane = SNODE_TOPO_NO_PLANE;
    if (len < SNODE_FM_LEN(struct snode_fm_node_state, reserved2)) {
        return;
    }
    if (ns->state == SNODE_FM_NODE_UP) {
        t->hops = ns->hops;
        if (ns->sw < s->topo_count[SNODE_TOPO_SWITCHES]) {
            t->sw = cpu_to_le16(ns->sw);
            t->plane = ns->plane;
        }
    }
    if (ns->rack < s->topo_count[SNODE_TOPO_RACKS]) {
        t->rack = cpu_to_le16(ns->rack);
    }
}

void snode_topo_clear(SnodeNicState *s)
{
    uint32_t n;

    for (n = 0; n < SNODE_MAX_NODES; n++) {
        s->node_topo[n] = (SnodeNodeTopo){ .sw = SNODE_TOPO_NONE16,
                                           .rack = SNODE_TOPO_NONE16,
                                           .plane = SNODE_TOPO_NO_PLANE };
    }
    memset(s->topo_name, 0, sizeof(s->topo_name));
    s->topo_count[0] = s->topo_count[1] = 0;
}

/* The fm's names of switches and racks; ids index them (decision 0030). */
static void snode_fm_topo_names(SnodeNicState *s,
                                const struct snode_fm_topo_names *tn,
                                size_t len)
{
    uint32_t i, k, cnt[2] = { tn->nswitches, tn->nracks };
    const struct snode_fm_topo_ent *e = tn->ent;

    if (cnt[0] > SNODE_TOPO_MAX_NAMES || cnt[1] > SNODE_TOPO_MAX_NAMES ||
        len != sizeof(*tn) + (cnt[0] + cnt[1]) * sizeof(*e)) {
        trace_snode_nic_fm_bad_packet(SNODE_FM_TOPO_NAMES, len,
                                      "bad name counts");
        return;
    }
    for (k = 0; k < 2; k++) {
        memset(s->topo_name[k], 0, sizeof(s->topo_name[k]));
        for (i = 0; i < cnt[k]; i++, e++) {
            /* NUL terminated whatever the fm sent */
            memcpy(s->topo_name[k][i].name, e->name,
                   SNODE_TOPO_NAME_LEN - 1);
            s->topo_name[k][i].plane = k == SNODE_TOPO_SWITCHES ?
                                       e->plane : SNODE_TOPO_NO_PLANE;
        }
        s->topo_count[k] = cnt[k];
    }
}

static void snode_fm_node_state(SnodeNicState *s,
                                const struct snode_fm_node_state *ns,
                                size_t len)
{
    uint8_t d[16] = {};

    if (ns->node >= s->max_nodes || ns->state > SNODE_FM_NODE_DEAD) {
        trace_snode_nic_fm_bad_packet(SNODE_FM_NODE_STATE, ns->node,
                                      "bad node or state");
        return;
    }
    snode_fm_node_topo(s, ns, len);
    if (s->node_state[ns->node] == ns->state &&
        s->node_route[ns->node] == ns->route_port) {
        return;
    }
    s->node_state[ns->node] = ns->state;
    s->node_route[ns->node] = ns->route_port;
    stl_le_p(d, ns->node);
    d[4] = ns->state;
    d[5] = ns->route_port;
    /* the route's topology, as NODE_TOPO has it (CAP.EV_TOPO) */
    memcpy(d + 6, &s->node_topo[ns->node].sw, 2);
    memcpy(d + 8, &s->node_topo[ns->node].rack, 2);
    d[10] = s->node_topo[ns->node].plane;
    d[11] = s->node_topo[ns->node].hops;
    snode_post_event(s, SNODE_EV_NODE_STATE, d);
}

static const uint32_t snode_fm_min_len[] = {
    [SNODE_FM_REVOKE] = SNODE_FM_LEN(struct snode_fm_revoke, reason),
    [SNODE_FM_NODE_STATE] = SNODE_FM_LEN(struct snode_fm_node_state,
                                         route_port),
    [SNODE_FM_PORT_STATE] = SNODE_FM_LEN(struct snode_fm_port_state, ber),
    [SNODE_FM_SENSOR] = SNODE_FM_LEN(struct snode_fm_sensor, power_mw),
    [SNODE_FM_MSG_DELIVER] = SNODE_FM_LEN(struct snode_fm_msg, data),
    [SNODE_FM_TOPO_NAMES] = sizeof(struct snode_fm_topo_names),
    [SNODE_FM_PEER] = sizeof(struct snode_fm_peer),
};

/* @fd: one that came with the packet (SCM_RIGHTS), ours; -1: none. */
static void snode_fm_packet(SnodeNicState *s, void *pkt, size_t len, int fd)
{
    struct snode_fm_hdr *h = pkt;

    if (fd >= 0 && (len < sizeof(*h) || h->type != SNODE_FM_PEER ||
                    (h->flags & SNODE_FM_F_REPLY) || h->len != len ||
                    len < sizeof(struct snode_fm_peer))) {
        /* only a PEER may carry one */
        trace_snode_nic_fm_bad_packet(len >= sizeof(*h) ? h->type : 0, len,
                                      "unexpected fd");
        close(fd);
        fd = -1;
    }

    if (len < sizeof(*h) || h->len != len) {
        trace_snode_nic_fm_bad_packet(len >= sizeof(*h) ? h->type : 0, len,
                                      "short or length mismatch");
        return;
    }
    trace_snode_nic_fm_recv(h->type, h->seq, h->flags, h->status, len);
    if (h->flags & SNODE_FM_F_REPLY) {
        snode_fm_reply(s, h, len);
        return;
    }
    if (h->type >= ARRAY_SIZE(snode_fm_min_len) ||
        !snode_fm_min_len[h->type] || len < snode_fm_min_len[h->type]) {
        trace_snode_nic_fm_bad_packet(h->type, len, "unexpected or short");
        return;
    }
    switch (h->type) {
    case SNODE_FM_REVOKE: {
        struct snode_fm_revoke *rv = pkt;

        if (rv->att_index < s->att_entries) {
            snode_att_revoke(s, rv->att_index, rv->reason);
        }
        break;
    }
    case SNODE_FM_NODE_STATE:
        snode_fm_node_state(s, pkt, len);
        break;
    case SNODE_FM_TOPO_NAMES:
        snode_fm_topo_names(s, pkt, len);
        break;
    case SNODE_FM_PEER:
        snode_peer_packet(s, pkt, fd);
        break;
    case SNODE_FM_PORT_STATE:
        snode_fm_port_state(s, pkt);
        break;
    case SNODE_FM_SENSOR: {
        struct snode_fm_sensor *se = pkt;

        s->temp = se->temp_mc;
        s->power = se->power_mw;
        snode_sensor_eval(s, true);
        break;
    }
    case SNODE_FM_MSG_DELIVER: {
        struct snode_fm_msg *m = pkt;
        uint16_t st = snode_msg_deliver(s, m);

        if (st != SNODE_FM_OK) {
            trace_snode_nic_msg_reject(m->src_node, m->dst_ep, st);
            s->stats.msgs_rejected++;
        }
        m->hdr.flags = SNODE_FM_F_REPLY;
        m->hdr.status = st;
        snode_fm_send(s, m, sizeof(*m));
        break;
    }
    }
}

/*
 * One packet from the fm and the fd that came with it: only a PEER carries
 * one (decision 0039); more than one, or a truncated control message, and
 * every fd is closed, as a device keeps nothing it was not meant to get.
 */
static ssize_t snode_fm_recv(SnodeNicState *s, void *buf, size_t size,
                             int *fd)
{
    union {
        struct cmsghdr h;
        char buf[CMSG_SPACE(4 * sizeof(int))];
    } u;
    struct iovec iov = { .iov_base = buf, .iov_len = size };
    struct msghdr mh = {
        .msg_iov = &iov,
        .msg_iovlen = 1,
        .msg_control = u.buf,
        .msg_controllen = sizeof(u.buf),
    };
    struct cmsghdr *cm;
    int nfd = 0;
    ssize_t n;

    *fd = -1;
    n = recvmsg(s->fm_fd, &mh, MSG_DONTWAIT | MSG_TRUNC | MSG_CMSG_CLOEXEC);
    if (n < 0) {
        return n;
    }
    for (cm = CMSG_FIRSTHDR(&mh); cm; cm = CMSG_NXTHDR(&mh, cm)) {
        int fds[4], k, cnt;

        if (cm->cmsg_level != SOL_SOCKET || cm->cmsg_type != SCM_RIGHTS ||
            cm->cmsg_len < CMSG_LEN(0)) {
            continue;
        }
        cnt = MIN((cm->cmsg_len - CMSG_LEN(0)) / sizeof(int), 4);
        memcpy(fds, CMSG_DATA(cm), cnt * sizeof(int));
        for (k = 0; k < cnt; k++, nfd++) {
            if (*fd < 0) {
                *fd = fds[k];
            } else {
                close(fds[k]);
            }
        }
    }
    if (*fd >= 0 && (nfd > 1 || (mh.msg_flags & MSG_CTRUNC))) {
        trace_snode_nic_fm_bad_packet(SNODE_FM_PEER, nfd, "fds refused");
        close(*fd);
        *fd = -1;
    }
    return n;
}

void snode_fm_read(void *opaque)
{
    SnodeNicState *s = opaque;
    uint8_t buf[SNODE_FM_PKT_MAX] QEMU_ALIGNED(8);
    unsigned budget;
    ssize_t n;
    int fd;

    for (budget = SNODE_FM_RX_BUDGET; budget && s->fm_fd >= 0; budget--) {
        n = snode_fm_recv(s, buf, sizeof(buf), &fd);
        if (n < 0) {
            if (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR) {
                return;
            }
            trace_snode_nic_fm_lost(errno);
            snode_detach(s);
            return;
        }
        if (n == 0) {
            trace_snode_nic_fm_lost(0);
            if (fd >= 0) {
                close(fd);
            }
            snode_detach(s);
            return;
        }
        if ((size_t)n > sizeof(buf)) {
            trace_snode_nic_fm_bad_packet(0, n, "packet too large");
            if (fd >= 0) {
                close(fd);
            }
            continue;
        }
        /* Short (unpadded) packets must not see stale bytes. */
        memset(buf + n, 0, sizeof(buf) - n);
        snode_fm_packet(s, buf, n, fd);
    }
}

/* Every 100 ms: heartbeat, traffic report, request timeouts. */
void snode_hb_tick(void *opaque)
{
    SnodeNicState *s = opaque;
    int64_t now = qemu_clock_get_ms(QEMU_CLOCK_REALTIME);
    struct snode_fm_heartbeat hb = {};
    SnodeReq *r, *tmp;
    unsigned p;

    if (s->fm_fd < 0) {
        return;
    }
    snode_fm_simple(s, SNODE_FM_HEARTBEAT, &hb, sizeof(hb));
    for (p = 0; p < s->nports; p++) {
        SnodePort *sp = &s->port[p];
        struct snode_fm_stats st = {};

        if (sp->tx_bytes == sp->rep_tx && sp->rx_bytes == sp->rep_rx) {
            continue;
        }
        st.port = p;
        st.tx_bytes = sp->tx_bytes - sp->rep_tx;
        st.rx_bytes = sp->rx_bytes - sp->rep_rx;
        sp->rep_tx = sp->tx_bytes;
        sp->rep_rx = sp->rx_bytes;
        snode_fm_simple(s, SNODE_FM_STATS, &st, sizeof(st));
    }
    QTAILQ_FOREACH_SAFE(r, &s->reqs, next, tmp) {
        if (now >= r->deadline) {
            trace_snode_nic_fm_timeout(r->type, r->seq);
            snode_req_finish(s, r, SNODE_ST_TIMEOUT, NULL, 0);
        }
    }
    if (s->fm_fd >= 0) {
        timer_mod(s->hb_timer, now + SNODE_FM_HEARTBEAT_MS);
    }
}

/* The fm went away: we are alone now. Never called from a request path. */
static void snode_detach(SnodeNicState *s)
{
    SnodeReq *r, *tmp;
    unsigned i;

    if (s->fm_fd < 0) {
        return;
    }
    warn_report("snode-nic: lost the fabric manager; node %u detached",
                s->node_id);
    qemu_set_fd_handler(s->fm_fd, NULL, NULL, NULL);
    close(s->fm_fd);
    s->fm_fd = -1;
    s->attached = false;
    s->status &= ~R_STATUS_ATTACHED_MASK;
    timer_del(s->hb_timer);
    /*
     * No fm, no routes: the direct links go too (decision 0010). A message
     * in flight on one completes as one waiting for the fm does,
     * NOT_ATTACHED: it may have been delivered.
     */
    snode_peers_close(s, SNODE_ST_NOT_ATTACHED, "fabric manager lost");
    QTAILQ_FOREACH_SAFE(r, &s->reqs, next, tmp) {
        snode_req_finish(s, r, SNODE_ST_NOT_ATTACHED, NULL, 0);
    }
    for (i = 0; i < s->att_entries; i++) {
        snode_att_revoke(s, i, SNODE_FM_REVOKE_UNREACHABLE);
    }
    for (i = 0; i < s->export_entries; i++) {
        s->exp[i].state = EXP_FREE;
    }
    for (i = 0; i < s->nports; i++) {
        if (s->port[i].known && s->port[i].fm.oper_state != 0) {
            s->port[i].fm.oper_state = SNODE_FM_PORT_DOWN;
            s->port[i].fm.lanes = 0;
            snode_ev_link_state(s, i);
        }
    }
    memset(s->node_state, 0, sizeof(s->node_state));
    memset(s->node_route, 0xff, sizeof(s->node_route));
    snode_topo_clear(s);
    snode_ev_fabric(s, false);
}

void snode_fm_lost_bh(void *opaque)
{
    snode_detach(opaque);
}

bool snode_fm_connect(SnodeNicState *s, Error **errp)
{
    struct sockaddr_un sa = { .sun_family = AF_UNIX };
    struct snode_fm_hello hello = {};
    struct snode_fm_hello_reply rep;
    int64_t deadline = qemu_clock_get_ms(QEMU_CLOCK_REALTIME) +
                       SNODE_HELLO_TIMEOUT_MS;
    uint8_t buf[1024] QEMU_ALIGNED(8);
    ssize_t n;
    int fd;

    if (strlen(s->fm_path) >= sizeof(sa.sun_path)) {
        error_setg(errp, "snode-nic: fm socket path too long: %s", s->fm_path);
        return false;
    }
    if (s->node_prop >= SNODE_MAX_NODES) {
        error_setg(errp, "snode-nic: property node=%u must be set (< %u) "
                   "with fm", s->node_prop, SNODE_MAX_NODES);
        return false;
    }
    strcpy(sa.sun_path, s->fm_path);
    fd = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0);
    if (fd < 0) {
        error_setg_errno(errp, errno, "snode-nic: socket");
        return false;
    }
    if (connect(fd, (struct sockaddr *)&sa, sizeof(sa)) < 0) {
        error_setg_errno(errp, errno, "snode-nic: cannot reach the fabric "
                         "manager at %s", s->fm_path);
        goto err;
    }
    s->fm_fd = fd;
    hello.hdr.type = SNODE_FM_HELLO;
    hello.version = SNODE_FM_PROTO_VERSION;
    hello.node = s->node_prop;
    hello.pid = getpid();
    hello.features = SNODE_FM_HELLO_DIRECT;
    hello.hdr.seq = ++s->fm_seq;
    if (!snode_fm_send(s, &hello, sizeof(hello))) {
        error_setg(errp, "snode-nic: cannot send HELLO to %s", s->fm_path);
        goto err;
    }
    for (;;) {
        struct pollfd pfd = { .fd = fd, .events = POLLIN };
        int64_t left = deadline - qemu_clock_get_ms(QEMU_CLOCK_REALTIME);

        if (left <= 0 || poll(&pfd, 1, left) == 0) {
            error_setg(errp, "snode-nic: the fabric manager at %s did not "
                       "answer HELLO within %d ms", s->fm_path,
                       SNODE_HELLO_TIMEOUT_MS);
            goto err;
        }
        n = recv(fd, buf, sizeof(buf), MSG_TRUNC);
        if (n <= 0) {
            error_setg(errp, "snode-nic: the fabric manager at %s closed the "
                       "connection during HELLO", s->fm_path);
            goto err;
        }
        memcpy(&rep, buf, MIN((size_t)n, sizeof(rep)));
        if ((size_t)n >= sizeof(rep.hdr) && rep.hdr.type == SNODE_FM_HELLO &&
            (rep.hdr.flags & SNODE_FM_F_REPLY)) {
            break;
        }
        trace_snode_nic_fm_bad_packet(rep.hdr.type, n, "before HELLO reply");
    }
    trace_snode_nic_fm_recv(rep.hdr.type, rep.hdr.seq, rep.hdr.flags,
                            rep.hdr.status, n);
    if (rep.hdr.status != SNODE_FM_OK) {
        error_setg(errp, "snode-nic: the fabric manager refused node %u "
                   "(status %u: unknown or already taken node?)",
                   s->node_prop, rep.hdr.status);
        goto err;
    }
    if ((size_t)n < SNODE_HELLO_REPLY_LEN ||
        rep.version != SNODE_FM_PROTO_VERSION) {
        error_setg(errp, "snode-nic: bad HELLO reply (%zd bytes, version %u)",
                   n, rep.version);
        goto err;
    }
    if (rep.pool_size < SNODE_PAGE || !is_power_of_2(rep.pool_size)) {
        error_setg(errp, "snode-nic: pool size %" PRIu64 " from the fabric "
                   "manager is not a power of 2 >= 4 KiB", rep.pool_size);
        goto err;
    }
    rep.pool_path[SNODE_FM_PATH_MAX - 1] = 0;
    s->pool = snode_map_file(rep.pool_path, rep.pool_size, errp);
    if (!s->pool) {
        goto err;
    }
    s->pool_size = rep.pool_size;
    s->node_id = rep.node;
    s->fabric_id = rep.fabric_id;
    s->nports = MAX(1, MIN(rep.nports, SNODE_MAX_PORTS));
    s->max_nodes = MAX(1, MIN(rep.max_nodes, SNODE_MAX_NODES));
    s->max_nodes = ROUND_UP(s->max_nodes, 8);
    memcpy(s->serial, rep.serial, sizeof(s->serial));
    s->serial[sizeof(s->serial) - 1] = 0;
    s->attached = true;
    return true;
err:
    s->fm_fd = -1;
    close(fd);
    return false;
}
