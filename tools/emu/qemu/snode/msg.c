// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * snode-nic: doorbells and messages: the send registers, delivery into an
 * endpoint's receive ring, and the endpoint table helpers.
 */

#include "qemu/osdep.h"
#include "qemu/log.h"
#include "qemu/bswap.h"
#include "hw/pci/pci.h"
#include "hw/pci/msix.h"

#include "snode-nic-int.h"
#include "trace.h"

/* ---------------------------------------------------------------------- */
/* Messages                                                                */

void snode_msg_done(SnodeNicState *s, uint16_t status)
{
    trace_snode_nic_msg_done(status);
    s->msg_status = (status & 0xff) << R_MSG_STATUS_STATUS_SHIFT;
    if (status != SNODE_ST_SUCCESS) {
        s->stats.msgs_rejected++;
    }
    snode_raise(s, R_INTR_MSG_MASK, SNODE_VEC_ADMIN);
}

void snode_msg_send(SnodeNicState *s)
{
    struct snode_fm_msg m = {};
    uint32_t len = FIELD_EX32(s->msg_len, MSG_LEN, LEN);
    int p;

    if (s->msg_status & R_MSG_STATUS_BUSY_MASK) {
        qemu_log_mask(LOG_GUEST_ERROR, "snode-nic: MSG_SEND while busy\n");
        return;
    }
    s->stats.msgs_sent++;
    trace_snode_nic_msg_send(s->msg_node, FIELD_EX32(s->msg_dst, MSG_DST, EP),
                             len);
    if (len > SNODE_MSG_MAX || s->msg_node >= s->max_nodes) {
        qemu_log_mask(LOG_GUEST_ERROR, "snode-nic: MSG_SEND length %u node "
                      "%u invalid\n", len, s->msg_node);
        snode_msg_done(s, SNODE_ST_INVALID_FIELD);
        return;
    }
    if (!s->attached) {
        snode_msg_done(s, SNODE_ST_NOT_ATTACHED);
        return;
    }
    m.hdr.type = SNODE_FM_MSG_SEND;
    m.src_node = s->node_id;
    m.dst_node = s->msg_node;
    m.src_ep = FIELD_EX32(s->msg_len, MSG_LEN, SRC_EP);
    m.dst_ep = FIELD_EX32(s->msg_dst, MSG_DST, EP);
    m.len = len;
    m.key = s->msg_key_lo | (uint64_t)s->msg_key_hi << 32;
    memcpy(m.data, s->msg_data, len);
    if (m.dst_node == s->node_id && s->loopback) {
        /*
         * Loopback: the NIC turns the message around itself, as a switch
         * port never sees it (decision 0039); the counters are those of a
         * message that went out and came back.
         */
        uint16_t st = snode_msg_deliver(s, &m);

        if (st != SNODE_FM_OK) {
            trace_snode_nic_msg_reject(m.src_node, m.dst_ep, st);
            s->stats.msgs_rejected++;
        }
        snode_msg_done(s, st);
        return;
    }
    /* the direct link while the route is up, else the fm (decision 0039) */
    if (!snode_peer_send(s, &m) &&
        !snode_fm_request(s, &m, sizeof(m), false, 0, 0, 0)) {
        snode_msg_done(s, SNODE_ST_UNREACHABLE);
        return;
    }
    s->msg_status = R_MSG_STATUS_BUSY_MASK;
    p = snode_route_port(s, m.dst_node);
    if (p >= 0) {
        s->port[p].tx_msgs++;
        s->port[p].tx_bytes += len;
    }
}

uint16_t snode_msg_deliver(SnodeNicState *s, struct snode_fm_msg *m)
{
    PCIDevice *pdev = PCI_DEVICE(s);
    SnodeMsgSlot slot = {};
    uint32_t tail;
    SnodeEp *ep;
    int p;

    if (m->dst_ep >= s->endpoints || !s->ep[m->dst_ep].valid) {
        return SNODE_FM_ENOEP;
    }
    ep = &s->ep[m->dst_ep];
    if (ep->key != m->key) {
        return SNODE_FM_EBADKEY;
    }
    if (m->len > SNODE_MSG_MAX || m->src_node >= SNODE_MAX_NODES) {
        return SNODE_FM_EINVAL;
    }
    if ((ep->prod + 1) % ep->entries == ep->cons) {
        return SNODE_FM_EQFULL;
    }
    slot.src_node = cpu_to_le32(m->src_node);
    slot.src_ep = cpu_to_le16(m->src_ep);
    slot.len = cpu_to_le16(m->len);
    slot.seq = cpu_to_le64(ep->seq[m->src_node] + 1);
    memcpy(slot.payload, m->data, m->len);
    tail = cpu_to_le32((ep->prod + 1) % ep->entries);
    if (pci_dma_write(pdev, ep->ring + (uint64_t)ep->prod * SNODE_MSG_SLOT,
                      &slot, sizeof(slot)) != MEMTX_OK ||
        pci_dma_write(pdev, ep->tail_addr, &tail, 4) != MEMTX_OK) {
        trace_snode_nic_dma_error("message ring", ep->ring);
        qemu_log_mask(LOG_GUEST_ERROR, "snode-nic: endpoint %u: cannot write "
                      "ring or tail word\n", m->dst_ep);
        return SNODE_FM_EINTERNAL;
    }
    ep->seq[m->src_node]++;
    ep->prod = le32_to_cpu(tail);
    s->stats.msgs_received++;
    p = snode_route_port(s, m->src_node);
    if (p >= 0) {
        s->port[p].rx_msgs++;
        s->port[p].rx_bytes += m->len;
    }
    trace_snode_nic_msg_deliver(m->src_node, m->dst_ep, m->len, ep->prod);
    if (msix_enabled(pdev)) {
        msix_notify(pdev, ep->vector);
    } else {
        snode_raise(s, R_INTR_MSG_MASK, ep->vector);
    }
    return SNODE_FM_OK;
}

/* Endpoints, used by the admin commands, the EP_HEAD register and reset */

void snode_ep_clear(SnodeEp *ep)
{
    ep->valid = false;
    g_free(ep->seq);
    ep->seq = NULL;
}

uint16_t snode_ep_head(SnodeNicState *s, uint32_t id, uint32_t idx)
{
    if (id >= s->endpoints || !s->ep[id].valid ||
        idx >= s->ep[id].entries) {
        qemu_log_mask(LOG_GUEST_ERROR, "snode-nic: EP_HEAD ep %u index %u "
                      "invalid\n", id, idx);
        return SNODE_ST_INVALID_FIELD;
    }
    s->ep[id].cons = idx;
    return SNODE_ST_SUCCESS;
}
