// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * snode-nic: the DMA copy engine: descriptors from the DSQ, translation of
 * aperture addresses through the ATT, chunked copies that stop at a
 * revocation, completions to the DCQ.
 */

#include "qemu/osdep.h"
#include "qemu/units.h"
#include "qemu/log.h"
#include "qemu/main-loop.h"
#include "qemu/bswap.h"
#include "hw/pci/pci.h"

#include "snode-nic-int.h"
#include "trace.h"

/* ---------------------------------------------------------------------- */
/* DMA engine                                                              */

int snode_route_port(SnodeNicState *s, uint32_t node)
{
    if (node < SNODE_MAX_NODES && s->node_route[node] < s->nports) {
        return s->node_route[node];
    }
    return -1;
}

void snode_count_bytes(SnodeNicState *s, uint32_t node, uint64_t n,
                       bool tx)
{
    int p = snode_route_port(s, node);

    if (p >= 0) {
        if (tx) {
            s->port[p].tx_bytes += n;
        } else {
            s->port[p].rx_bytes += n;
        }
    }
}

/*
 * DMA pacing: a link carries lanes x speed Gbit/s and no more. Each chunk
 * books the line of the port it leaves or enters for its serialisation
 * time; the next chunk on that port waits until the line is free. Up to
 * SNODE_DMA_BURST_NS of idle time is credited (the pace timer and the
 * guest are late by milliseconds under TCG), no more, so that a stream
 * after a pause does not run above the line rate for long.
 */
#define SNODE_DMA_BURST_NS  (20 * 1000 * 1000)

static int snode_dma_port(SnodeNicState *s)
{
    int i = s->dma_dst_att >= 0 ? s->dma_dst_att : s->dma_src_att;

    return i >= 0 ? snode_route_port(s, s->att[i].node) : -1;
}

/* Serialisation time of @n bytes on port @p, 0 if its rate is unknown. */
static int64_t snode_line_ns(SnodeNicState *s, int p, uint64_t n)
{
    SnodePort *sp = &s->port[p];
    uint64_t gbps = (uint64_t)sp->fm.lanes * sp->fm.speed;

    if (!sp->known || !gbps) {
        return 0;
    }
    /* n * 8 bits at gbps * 1e9 bit/s, in ns */
    return n * 8 / gbps;
}

static void snode_dma_complete(SnodeNicState *s, uint16_t status)
{
    SnodeDmaCpl cpl = {};
    bool irq = s->dma_desc.flags & SNODE_DMA_INTERRUPT;

    cpl.tag = cpu_to_le64(s->dma_desc.tag);
    cpl.status = cpu_to_le16(status | (s->dcq.phase ? SNODE_PHASE : 0));
    cpl.bytes_done = cpu_to_le32(s->dma_done);
    trace_snode_nic_dma_cpl(s->dma_desc.tag, status, s->dma_done);
    if (status != SNODE_ST_SUCCESS) {
        s->stats.dma_errors++;
    }
    s->dma_busy = false;
    if (pci_dma_write(PCI_DEVICE(s),
                      s->dcq.base + (uint64_t)s->dcq.tail * sizeof(cpl),
                      &cpl, sizeof(cpl)) != MEMTX_OK) {
        trace_snode_nic_dma_error("DMA completion", s->dcq.base);
        snode_fatal(s, "cannot write the DMA completion queue");
        return;
    }
    s->dcq.tail = (s->dcq.tail + 1) % s->dcq.size;
    if (s->dcq.tail == 0) {
        s->dcq.phase = !s->dcq.phase;
    }
    if (irq) {
        snode_raise(s, R_INTR_DMA_MASK, SNODE_VEC_DMA);
    }
}

/* Translate one side of the descriptor; returns a status. */
static uint16_t snode_dma_xlate(SnodeNicState *s, uint64_t addr, uint32_t len,
                                bool write, int *att, uint32_t *epoch)
{
    int i = snode_att_lookup(s, addr, len);

    if (i < 0) {
        qemu_log_mask(LOG_GUEST_ERROR, "snode-nic: DMA aperture range 0x%"
                      PRIx64 "+0x%x is not inside one valid window\n",
                      addr, len);
        return SNODE_ST_OUT_OF_RANGE;
    }
    if (write && !(s->att[i].flags & SNODE_PERM_WRITE)) {
        qemu_log_mask(LOG_GUEST_ERROR, "snode-nic: DMA write to read-only "
                      "window %d\n", i);
        return SNODE_ST_READ_ONLY;
    }
    *att = i;
    *epoch = s->att[i].epoch;
    return SNODE_ST_SUCCESS;
}

static uint16_t snode_dma_start(SnodeNicState *s)
{
    SnodeDmaDesc *d = &s->dma_desc;
    uint16_t st;

    s->dma_done = 0;
    s->dma_src_att = s->dma_dst_att = -1;
    s->stats.dma_reqs++;
    trace_snode_nic_dma_desc(d->src, d->dst, d->len, d->flags, d->tag);
    if (!d->len || d->len > SNODE_MAX_DMA_LEN || (d->flags & ~7u) ||
        d->reserved) {
        qemu_log_mask(LOG_GUEST_ERROR, "snode-nic: DMA descriptor tag 0x%"
                      PRIx64 ": bad len %u or flags 0x%x\n", d->tag, d->len,
                      d->flags);
        return SNODE_ST_INVALID_FIELD;
    }
    if (d->flags & SNODE_DMA_SRC_APERTURE) {
        st = snode_dma_xlate(s, d->src, d->len, false, &s->dma_src_att,
                             &s->dma_src_epoch);
        if (st) {
            return st;
        }
    }
    if (d->flags & SNODE_DMA_DST_APERTURE) {
        st = snode_dma_xlate(s, d->dst, d->len, true, &s->dma_dst_att,
                             &s->dma_dst_epoch);
        if (st) {
            return st;
        }
    }
    return SNODE_ST_SUCCESS;
}

static bool snode_dma_att_ok(SnodeNicState *s, int i, uint32_t epoch)
{
    return i < 0 || (s->att[i].state == ATT_VALID &&
                     s->att[i].epoch == epoch);
}

/* Copy one chunk of the current descriptor; returns a status or ASYNC. */
static uint16_t snode_dma_chunk(SnodeNicState *s)
{
    SnodeDmaDesc *d = &s->dma_desc;
    uint32_t n = MIN(SNODE_DMA_CHUNK, d->len - s->dma_done);
    uint64_t src = d->src + s->dma_done, dst = d->dst + s->dma_done;
    g_autofree uint8_t *buf = NULL;
    const uint8_t *from;
    PCIDevice *pdev = PCI_DEVICE(s);

    /* A revocation since the last chunk ends the copy here. */
    if (!snode_dma_att_ok(s, s->dma_src_att, s->dma_src_epoch) ||
        !snode_dma_att_ok(s, s->dma_dst_att, s->dma_dst_epoch)) {
        return SNODE_ST_REVOKED;
    }
    if (s->dma_src_att >= 0) {
        SnodeAtt *a = &s->att[s->dma_src_att];

        from = a->host + (src - a->ap_off);
        snode_count_bytes(s, a->node, n, false);
    } else {
        buf = g_malloc(n);
        if (pci_dma_read(pdev, src, buf, n) != MEMTX_OK) {
            trace_snode_nic_dma_error("DMA source", src);
            qemu_log_mask(LOG_GUEST_ERROR, "snode-nic: DMA read of host 0x%"
                          PRIx64 " failed\n", src);
            return SNODE_ST_DMA_ERROR;
        }
        from = buf;
    }
    if (s->dma_dst_att >= 0) {
        SnodeAtt *a = &s->att[s->dma_dst_att];

        memmove(a->host + (dst - a->ap_off), from, n);
        snode_count_bytes(s, a->node, n, true);
    } else if (pci_dma_write(pdev, dst, from, n) != MEMTX_OK) {
        trace_snode_nic_dma_error("DMA destination", dst);
        qemu_log_mask(LOG_GUEST_ERROR, "snode-nic: DMA write to host 0x%"
                      PRIx64 " failed\n", dst);
        return SNODE_ST_DMA_ERROR;
    }
    s->dma_done += n;
    s->stats.dma_bytes += n;
    return s->dma_done == d->len ? SNODE_ST_SUCCESS : SNODE_ASYNC;
}

void snode_dma_bh(void *opaque)
{
    SnodeNicState *s = opaque;
    uint16_t st;
    int p;

    if (!(s->status & R_STATUS_ENABLED_MASK) || !s->dsq.size ||
        (s->status & R_STATUS_FATAL_MASK)) {
        return;
    }
    if (!s->dma_busy) {
        if (s->dsq.head == s->dsq.tail || snode_cq_full(&s->dcq)) {
            return;
        }
        if (pci_dma_read(PCI_DEVICE(s),
                         s->dsq.base + (uint64_t)s->dsq.head * 32,
                         &s->dma_desc, sizeof(s->dma_desc)) != MEMTX_OK) {
            trace_snode_nic_dma_error("DMA submission", s->dsq.base);
            snode_fatal(s, "cannot read the DMA submission queue");
            return;
        }
        s->dsq.head = (s->dsq.head + 1) % s->dsq.size;
        s->dma_desc.src = le64_to_cpu(s->dma_desc.src);
        s->dma_desc.dst = le64_to_cpu(s->dma_desc.dst);
        s->dma_desc.len = le32_to_cpu(s->dma_desc.len);
        s->dma_desc.flags = le16_to_cpu(s->dma_desc.flags);
        s->dma_desc.reserved = le16_to_cpu(s->dma_desc.reserved);
        s->dma_desc.tag = le64_to_cpu(s->dma_desc.tag);
        s->dma_busy = true;
        st = snode_dma_start(s);
        if (st != SNODE_ST_SUCCESS) {
            snode_dma_complete(s, st);
            qemu_bh_schedule(s->dma_bh);
            return;
        }
    }
    p = snode_dma_port(s);
    if (p >= 0) {
        SnodePort *sp = &s->port[p];
        int64_t now = qemu_clock_get_ns(QEMU_CLOCK_VIRTUAL);
        uint32_t n = MIN(SNODE_DMA_CHUNK, s->dma_desc.len - s->dma_done);

        if (sp->line_free_ns > now) {
            timer_mod(s->dma_pace_timer, sp->line_free_ns);
            return;
        }
        sp->line_free_ns = MAX(sp->line_free_ns, now - SNODE_DMA_BURST_NS) +
                           snode_line_ns(s, p, n);
    }
    st = snode_dma_chunk(s);
    if (st != SNODE_ASYNC) {
        snode_dma_complete(s, st);
    }
    /* One chunk per run, so fm traffic (revocations) gets in between. */
    qemu_bh_schedule(s->dma_bh);
}
