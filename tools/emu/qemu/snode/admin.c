// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * snode-nic: the admin queue: fetching commands, the command table that
 * decodes and checks them, their handlers, and posting completions in order.
 */

#include "qemu/osdep.h"
#include "qemu/log.h"
#include "qemu/error-report.h"
#include "qemu/main-loop.h"
#include "qemu/bswap.h"
#include "qemu/cutils.h"
#include "hw/pci/pci.h"
#include "exec/memory.h"
#include "exec/cpu-common.h"

#include "snode-nic-int.h"
#include "trace.h"

/* ---------------------------------------------------------------------- */
/* Admin completions                                                       */

static bool snode_acq_post(SnodeNicState *s, SnodeCpl *c)
{
    SnodeAdminCpl cpl = {};

    if (snode_cq_full(&s->acq) || (s->status & R_STATUS_FATAL_MASK)) {
        return false;   /* held until ACQ_HEAD moves or a reset */
    }
    cpl.cid = cpu_to_le16(c->cid);
    cpl.status = cpu_to_le16((c->status & 0x7fff) |
                             (s->acq.phase ? SNODE_PHASE : 0));
    cpl.result0 = cpu_to_le32(c->r0);
    cpl.result1 = cpu_to_le32(c->r1);
    cpl.sq_head = cpu_to_le16(s->asq.head);
    if (pci_dma_write(PCI_DEVICE(s),
                      s->acq.base + (uint64_t)s->acq.tail * sizeof(cpl),
                      &cpl, sizeof(cpl)) != MEMTX_OK) {
        trace_snode_nic_dma_error("admin completion", s->acq.base);
        snode_fatal(s, "cannot write the admin completion queue");
        return true;    /* dropped: the device is now FATAL */
    }
    trace_snode_nic_admin_cpl(c->cid, c->status, c->r0, c->r1, s->acq.tail);
    s->acq.tail = (s->acq.tail + 1) % s->acq.size;
    if (s->acq.tail == 0) {
        s->acq.phase = !s->acq.phase;
    }
    return true;
}

void snode_backlog_flush(SnodeNicState *s)
{
    SnodeCpl *c;
    bool any = false;

    while ((c = QSIMPLEQ_FIRST(&s->backlog)) &&
           (s->status & R_STATUS_ENABLED_MASK) && snode_acq_post(s, c)) {
        QSIMPLEQ_REMOVE_HEAD(&s->backlog, next);
        g_free(c);
        any = true;
    }
    if (any) {
        snode_raise(s, R_INTR_ADMIN_MASK, SNODE_VEC_ADMIN);
    }
}

void snode_complete(SnodeNicState *s, uint16_t cid, uint16_t status,
                    uint32_t r0, uint32_t r1)
{
    SnodeCpl *c;

    if (!(s->status & R_STATUS_ENABLED_MASK)) {
        return;     /* the queues went away while the command ran */
    }
    c = g_new0(SnodeCpl, 1);
    c->cid = cid;
    c->status = status;
    c->r0 = r0;
    c->r1 = r1;
    QSIMPLEQ_INSERT_TAIL(&s->backlog, c, next);
    snode_backlog_flush(s);
}

void snode_backlog_drop(SnodeNicState *s)
{
    SnodeCpl *c;

    while ((c = QSIMPLEQ_FIRST(&s->backlog))) {
        QSIMPLEQ_REMOVE_HEAD(&s->backlog, next);
        g_free(c);
    }
}

/* ---------------------------------------------------------------------- */
/* Admin commands                                                          */

/*
 * A handler gets the decoded command (host byte order) and fills the
 * result words of cpl; it returns a status, or SNODE_ASYNC when the fabric
 * manager's answer completes the command later (only commands the table
 * marks SNODE_CMD_ASYNC may do that).
 */
typedef uint16_t (*SnodeCmdHandler)(SnodeNicState *s, const SnodeAdminCmd *c,
                                    SnodeAdminCpl *cpl);

#define SNODE_CMD_ASYNC     (1u << 0)   /* may complete after the fm answers */

typedef struct SnodeAdminOp {
    const char *name;
    SnodeCmdHandler handler;
    uint8_t words;      /* cdw[0..words-1] are parameters, the rest reserved */
    uint8_t flags;      /* SNODE_CMD_* */
} SnodeAdminOp;

/* Parameter words of a command, from its parameter struct */
#define SNODE_WORDS(type)   (sizeof(type) / sizeof(uint32_t))

static uint16_t snode_dma_out(SnodeNicState *s, const SnodeAdminCmd *c,
                              const void *buf, uint32_t size)
{
    if (c->len < size) {
        qemu_log_mask(LOG_GUEST_ERROR, "snode-nic: opcode 0x%x: buffer of %u "
                      "bytes, need %u\n", c->opcode, c->len, size);
        return SNODE_ST_INVALID_FIELD;
    }
    if (pci_dma_write(PCI_DEVICE(s), c->addr, buf, size) != MEMTX_OK) {
        trace_snode_nic_dma_error("admin out buffer", c->addr);
        qemu_log_mask(LOG_GUEST_ERROR, "snode-nic: opcode 0x%x: DMA to 0x%"
                      PRIx64 " failed\n", c->opcode, c->addr);
        return SNODE_ST_DMA_ERROR;
    }
    return SNODE_ST_SUCCESS;
}

static uint64_t snode_lohi(uint32_t lo, uint32_t hi)
{
    return lo | (uint64_t)hi << 32;
}

static uint16_t snode_cmd_identify(SnodeNicState *s, const SnodeAdminCmd *c,
                                   SnodeAdminCpl *cpl)
{
    SnodeIdentify id = {};

    id.magic = cpu_to_le32(SNODE_MAGIC);
    id.version = cpu_to_le32(SNODE_VERSION);
    id.fw_version = cpu_to_le32(SNODE_FW_VERSION);
    id.cap = cpu_to_le32(snode_cap(s));
    id.node_id = cpu_to_le32(s->attached ? s->node_id : SNODE_NODE_NONE);
    id.fabric_id = cpu_to_le32(s->fabric_id);
    id.nports = cpu_to_le16(s->nports);
    id.max_nodes = cpu_to_le16(s->max_nodes);
    id.att_entries = cpu_to_le16(s->att_entries);
    id.export_entries = cpu_to_le16(s->export_entries);
    id.aperture_size = cpu_to_le64(s->aperture_size);
    id.pool_size = cpu_to_le64(s->pool_size);
    id.endpoints = cpu_to_le16(s->endpoints);
    id.max_dma_len = cpu_to_le32(SNODE_MAX_DMA_LEN);
    id.max_host_extents = cpu_to_le32(s->ram_path ? SNODE_MAX_HOST_EXTENTS
                                                  : 0);
    strncpy(id.serial, s->serial, sizeof(id.serial));
    strncpy(id.fw_name, SNODE_FW_NAME, sizeof(id.fw_name));
    cpl->identify.length = sizeof(id);
    return snode_dma_out(s, c, &id, sizeof(id));
}

static uint16_t snode_cmd_port_query(SnodeNicState *s, const SnodeAdminCmd *c,
                                     SnodeAdminCpl *cpl)
{
    uint32_t p = c->port_query.port;
    SnodePortInfo pi = {};
    SnodePort *sp;
    union { double d; uint64_t u; } ber;

    if (p >= s->nports) {
        qemu_log_mask(LOG_GUEST_ERROR, "snode-nic: PORT_QUERY port %u >= %u\n",
                      p, s->nports);
        return SNODE_ST_INVALID_FIELD;
    }
    sp = &s->port[p];
    pi.port = p;
    pi.admin_state = sp->known ? sp->fm.admin_state : 0;
    pi.oper_state = sp->known ? sp->fm.oper_state : 0;
    pi.lanes = sp->known ? sp->fm.lanes : 0;
    pi.max_lanes = sp->known ? sp->fm.max_lanes : 4;
    pi.speed = cpu_to_le16(sp->known ? sp->fm.speed : 100);
    pi.peer_node = cpu_to_le32(sp->known ? sp->fm.peer_node : SNODE_NODE_NONE);
    pi.peer_port = cpu_to_le32(sp->known ? sp->fm.peer_port : 0);
    pi.crc_errors = cpu_to_le64(sp->fm.crc_errors);
    pi.replays = cpu_to_le64(sp->fm.replays);
    pi.recoveries = cpu_to_le64(sp->fm.recoveries);
    pi.down_events = cpu_to_le64(sp->fm.down_events);
    pi.tx_bytes = cpu_to_le64(sp->tx_bytes);
    pi.rx_bytes = cpu_to_le64(sp->rx_bytes);
    ber.d = sp->fm.ber;
    pi.ber = cpu_to_le64(ber.u);
    pi.tx_msgs = cpu_to_le64(sp->tx_msgs);
    pi.rx_msgs = cpu_to_le64(sp->rx_msgs);
    return snode_dma_out(s, c, &pi, sizeof(pi));
}

static uint16_t snode_cmd_port_set(SnodeNicState *s, const SnodeAdminCmd *c,
                                   SnodeAdminCpl *cpl)
{
    const SnodeCmdPortSet *p = &c->port_set;
    struct snode_fm_port_set ps = {};

    if (p->port >= s->nports || p->action < SNODE_FM_PORT_ADMIN_DOWN ||
        p->action > SNODE_FM_PORT_CLEAR) {
        qemu_log_mask(LOG_GUEST_ERROR, "snode-nic: PORT_SET port %u action "
                      "%u invalid\n", p->port, p->action);
        return SNODE_ST_INVALID_FIELD;
    }
    if (!s->attached) {
        return SNODE_ST_NOT_ATTACHED;
    }
    ps.hdr.type = SNODE_FM_PORT_SET;
    ps.port = p->port;
    ps.action = p->action;
    if (!snode_fm_request(s, &ps, sizeof(ps), true, c->cid, ps.port,
                          ps.action)) {
        return SNODE_ST_UNREACHABLE;
    }
    return SNODE_ASYNC;
}

static uint16_t snode_cmd_node_query(SnodeNicState *s, const SnodeAdminCmd *c,
                                     SnodeAdminCpl *cpl)
{
    uint32_t n = c->node_query.node;

    if (n >= s->max_nodes) {
        return SNODE_ST_OUT_OF_RANGE;
    }
    cpl->node_query.state = s->node_state[n];
    cpl->node_query.route_port = s->node_route[n];
    return SNODE_ST_SUCCESS;
}

static uint16_t snode_cmd_node_list(SnodeNicState *s, const SnodeAdminCmd *c,
                                    SnodeAdminCpl *cpl)
{
    uint8_t list[SNODE_MAX_NODES];
    uint32_t n, known = 0;

    for (n = 0; n < s->max_nodes; n++) {
        uint8_t route = s->node_route[n] >= s->nports ? 0xf : s->node_route[n];

        list[n] = (s->node_state[n] & 0xf) | (route << 4);
        known += s->node_state[n] != SNODE_FM_NODE_UNKNOWN;
    }
    cpl->node_list.known = known;
    return snode_dma_out(s, c, list, s->max_nodes);
}

/* The route topology of every node at once: one command for the table. */
static uint16_t snode_cmd_node_topo(SnodeNicState *s, const SnodeAdminCmd *c,
                                    SnodeAdminCpl *cpl)
{
    uint32_t n, known = 0;

    for (n = 0; n < s->max_nodes; n++) {
        uint8_t route = s->node_route[n] >= s->nports ? 0xf : s->node_route[n];

        /* the NODE_LIST byte too: one command for the whole table */
        s->node_topo[n].state = (s->node_state[n] & 0xf) | (route << 4);
        known += s->node_state[n] != SNODE_FM_NODE_UNKNOWN;
    }
    cpl->node_topo.known = known;
    return snode_dma_out(s, c, s->node_topo,
                         s->max_nodes * sizeof(s->node_topo[0]));
}

static uint16_t snode_cmd_topo_names(SnodeNicState *s, const SnodeAdminCmd *c,
                                     SnodeAdminCpl *cpl)
{
    uint32_t kind = c->topo_names.kind;

    if (kind > SNODE_TOPO_RACKS) {
        qemu_log_mask(LOG_GUEST_ERROR, "snode-nic: TOPO_NAMES kind %u "
                      "invalid\n", kind);
        return SNODE_ST_INVALID_FIELD;
    }
    cpl->topo_names.count = s->topo_count[kind];
    if (!s->topo_count[kind]) {
        return SNODE_ST_SUCCESS;
    }
    return snode_dma_out(s, c, s->topo_name[kind],
                         s->topo_count[kind] * sizeof(SnodeTopoName));
}

static uint16_t snode_cmd_att_set(SnodeNicState *s, const SnodeAdminCmd *c,
                                  SnodeAdminCpl *cpl)
{
    const SnodeCmdAttSet *p = &c->att_set;
    uint32_t idx = p->index, flags = p->flags;
    uint64_t off = snode_lohi(p->aperture_offset_lo, p->aperture_offset_hi);
    uint64_t len = snode_lohi(p->length_lo, p->length_hi);
    struct snode_fm_grant g = {};
    SnodeAtt *a;
    unsigned i;

    if (idx >= s->att_entries || (flags & ~3u) ||
        !(flags & SNODE_PERM_READ) || (off % SNODE_ATT_ALIGN) ||
        !len || (len % SNODE_PAGE) || p->node >= s->max_nodes ||
        p->export_offset >= (1u << 28)) {
        qemu_log_mask(LOG_GUEST_ERROR, "snode-nic: ATT_SET entry %u flags 0x%x "
                      "off 0x%" PRIx64 " len 0x%" PRIx64 " node %u: invalid "
                      "field\n", idx, flags, off, len, p->node);
        return SNODE_ST_INVALID_FIELD;
    }
    if (off >= s->aperture_size || len > s->aperture_size - off) {
        return SNODE_ST_OUT_OF_RANGE;
    }
    a = &s->att[idx];
    if (a->state != ATT_FREE) {
        return SNODE_ST_BUSY;
    }
    for (i = 0; i < s->att_entries; i++) {
        SnodeAtt *o = &s->att[i];

        if (o->state != ATT_FREE && off < o->ap_off + o->len &&
            o->ap_off < off + len) {
            return SNODE_ST_BUSY;
        }
    }
    if (!s->attached) {
        return SNODE_ST_NOT_ATTACHED;
    }
    a->flags = flags;
    a->ap_off = off;
    a->len = len;
    a->node = p->node;
    a->export_id = p->export_id;
    a->key = snode_lohi(p->key_lo, p->key_hi);
    a->exp_off = (uint64_t)p->export_offset * SNODE_PAGE;
    g.hdr.type = SNODE_FM_GRANT;
    g.att_index = idx;
    g.perm = flags;
    g.node = a->node;
    g.export_id = a->export_id;
    g.key = a->key;
    g.offset = a->exp_off;
    g.len = len;
    if (!snode_fm_request(s, &g, sizeof(g), true, c->cid, idx, 0)) {
        return SNODE_ST_UNREACHABLE;
    }
    a->state = ATT_PENDING;
    return SNODE_ASYNC;
}

static uint16_t snode_cmd_att_clear(SnodeNicState *s, const SnodeAdminCmd *c,
                                    SnodeAdminCpl *cpl)
{
    uint32_t idx = c->att_clear.index;

    if (idx >= s->att_entries) {
        qemu_log_mask(LOG_GUEST_ERROR, "snode-nic: ATT_CLEAR entry %u\n", idx);
        return SNODE_ST_INVALID_FIELD;
    }
    if (s->att[idx].state == ATT_PENDING) {
        return SNODE_ST_BUSY;
    }
    snode_att_invalidate(s, idx, true);
    return SNODE_ST_SUCCESS;
}

static uint16_t snode_cmd_att_query(SnodeNicState *s, const SnodeAdminCmd *c,
                                    SnodeAdminCpl *cpl)
{
    uint32_t idx = c->att_query.index;
    SnodeAttInfo ai = {};
    SnodeAtt *a;

    if (idx >= s->att_entries) {
        qemu_log_mask(LOG_GUEST_ERROR, "snode-nic: ATT_QUERY entry %u\n", idx);
        return SNODE_ST_INVALID_FIELD;
    }
    a = &s->att[idx];
    ai.valid = a->state == ATT_VALID;
    if (ai.valid) {
        ai.flags = a->flags;
        ai.node = cpu_to_le32(a->node);
        ai.aperture_offset = cpu_to_le64(a->ap_off);
        ai.length = cpu_to_le64(a->len);
        ai.export_id = cpu_to_le32(a->export_id);
        ai.key = cpu_to_le64(a->key);
        ai.export_offset = cpu_to_le64(a->exp_off);
    }
    ai.epoch = cpu_to_le32(a->epoch);
    ai.revoke_reason = cpu_to_le32(a->revoke_reason);
    return snode_dma_out(s, c, &ai, sizeof(ai));
}

/*
 * A host export's extents, bus addresses as the device reads them, into
 * runs of the RAM file (Documentation/decisions/0037-*): each extent must
 * be guest RAM backed by s->ram_path; adjacent runs are coalesced so that
 * the importer maps as few pieces as possible. Return: a status; on
 * success *seg (g_free) holds *nseg runs.
 */
static uint16_t snode_host_segs(SnodeNicState *s, const SnodeHostExtent *ext,
                                uint32_t n, struct snode_fm_seg **seg,
                                uint32_t *nseg)
{
    AddressSpace *as = pci_get_address_space(PCI_DEVICE(s));
    g_autofree struct snode_fm_seg *out = g_new(struct snode_fm_seg,
                                                SNODE_FM_MAX_SEGS);
    uint32_t i, cnt = 0;

    RCU_READ_LOCK_GUARD();
    for (i = 0; i < n; i++) {
        uint64_t addr = le64_to_cpu(ext[i].addr);
        uint64_t left = le64_to_cpu(ext[i].len);

        while (left) {
            hwaddr xlat, plen = left;
            MemoryRegion *mr;
            uint64_t foff;
            struct stat st;
            int fd;

            mr = address_space_translate(as, addr, &xlat, &plen, true,
                                         MEMTXATTRS_UNSPECIFIED);
            if (!memory_region_is_ram(mr) || memory_region_is_rom(mr) ||
                !mr->ram_block || !plen) {
                return SNODE_ST_OUT_OF_RANGE;
            }
            fd = memory_region_get_fd(mr);
            if (fd < 0 || fstat(fd, &st) < 0 || st.st_dev != s->ram_dev ||
                st.st_ino != s->ram_ino) {
                return SNODE_ST_OUT_OF_RANGE;
            }
            plen = MIN(plen, left);
            foff = (uint8_t *)memory_region_get_ram_ptr(mr) + xlat -
                   (uint8_t *)qemu_ram_get_host_addr(mr->ram_block);
            if ((foff | plen) % SNODE_PAGE || foff + plen > (uint64_t)st.st_size) {
                return SNODE_ST_OUT_OF_RANGE;
            }
            if (cnt && out[cnt - 1].offset + out[cnt - 1].len == foff) {
                out[cnt - 1].len += plen;
            } else if (cnt == SNODE_FM_MAX_SEGS) {
                return SNODE_ST_INVALID_FIELD;
            } else {
                out[cnt].offset = foff;
                out[cnt].len = plen;
                cnt++;
            }
            addr += plen;
            left -= plen;
        }
    }
    *seg = g_steal_pointer(&out);
    *nseg = cnt;
    return SNODE_ST_SUCCESS;
}

/*
 * EXPORT_SET with HOST: the in buffer holds @n extents, then the nodemask.
 * Return: a status; on success *es is the fm request.
 */
static uint16_t snode_export_host(SnodeNicState *s, const SnodeAdminCmd *c,
                                  uint32_t n, uint64_t len,
                                  struct snode_fm_export_set **es,
                                  size_t *es_len)
{
    g_autofree SnodeHostExtent *ext = NULL;
    g_autofree struct snode_fm_seg *seg = NULL;
    uint64_t sum = 0;
    uint32_t i, nseg = 0;
    uint16_t st;

    ext = g_new(SnodeHostExtent, n);
    if (pci_dma_read(PCI_DEVICE(s), c->addr, ext, n * sizeof(*ext)) !=
        MEMTX_OK) {
        trace_snode_nic_dma_error("export extents", c->addr);
        return SNODE_ST_DMA_ERROR;
    }
    for (i = 0; i < n; i++) {
        uint64_t a = le64_to_cpu(ext[i].addr), l = le64_to_cpu(ext[i].len);

        if (!l || (a | l) % SNODE_PAGE || a + l < a || sum + l < sum) {
            qemu_log_mask(LOG_GUEST_ERROR, "snode-nic: EXPORT_SET extent %u"
                          " addr 0x%" PRIx64 " len 0x%" PRIx64 ": invalid\n",
                          i, a, l);
            return SNODE_ST_INVALID_FIELD;
        }
        sum += l;
    }
    if (sum != len) {
        qemu_log_mask(LOG_GUEST_ERROR, "snode-nic: EXPORT_SET extents add up"
                      " to 0x%" PRIx64 ", length 0x%" PRIx64 "\n", sum, len);
        return SNODE_ST_INVALID_FIELD;
    }
    st = snode_host_segs(s, ext, n, &seg, &nseg);
    if (st) {
        return st;
    }
    *es_len = sizeof(**es) + nseg * sizeof(*seg);
    *es = g_malloc0(*es_len);
    (*es)->nseg = nseg;
    memcpy((*es)->seg, seg, nseg * sizeof(*seg));
    pstrcpy((*es)->path, sizeof((*es)->path), s->ram_path);
    return SNODE_ST_SUCCESS;
}

static uint16_t snode_cmd_export_set(SnodeNicState *s, const SnodeAdminCmd *c,
                                     SnodeAdminCpl *cpl)
{
    const SnodeCmdExportSet *p = &c->export_set;
    uint32_t id = p->export_id, flags = p->flags, n = p->extents;
    uint64_t off = snode_lohi(p->pool_offset_lo, p->pool_offset_hi);
    uint64_t len = snode_lohi(p->length_lo, p->length_hi);
    g_autofree struct snode_fm_export_set *es = NULL;
    bool host = flags & SNODE_EXPORT_HOST;
    uint64_t mask_at = host ? (uint64_t)n * sizeof(SnodeHostExtent) : 0;
    size_t es_len = sizeof(*es);
    SnodeExport *e;
    uint16_t st;

    if (id >= s->export_entries || (flags & ~0xfu) ||
        (flags & 3) == 0 || (flags & 3) == SNODE_PERM_WRITE ||
        (off % SNODE_PAGE) || !len || (len % SNODE_PAGE) ||
        (host && (!s->ram_path || off || !n ||
                  n > SNODE_MAX_HOST_EXTENTS || c->len < mask_at)) ||
        (!host && n)) {
        qemu_log_mask(LOG_GUEST_ERROR, "snode-nic: EXPORT_SET id %u flags 0x%x"
                      " off 0x%" PRIx64 " len 0x%" PRIx64 " extents %u: "
                      "invalid field\n", id, flags, off, len, n);
        return SNODE_ST_INVALID_FIELD;
    }
    if ((flags & SNODE_EXPORT_NODEMASK) &&
        c->len - mask_at < s->max_nodes / 8) {
        qemu_log_mask(LOG_GUEST_ERROR, "snode-nic: EXPORT_SET nodemask buffer "
                      "%u bytes, need %u\n", c->len, s->max_nodes / 8);
        return SNODE_ST_INVALID_FIELD;
    }
    if (!host && (off >= s->pool_size || len > s->pool_size - off)) {
        return SNODE_ST_OUT_OF_RANGE;
    }
    if (host) {
        /* the list's INVALID_FIELD and OUT_OF_RANGE come before BUSY */
        st = snode_export_host(s, c, n, len, &es, &es_len);
        if (st) {
            return st;
        }
    }
    e = &s->exp[id];
    if (e->state != EXP_FREE) {
        return SNODE_ST_BUSY;
    }
    if (!s->attached) {
        return SNODE_ST_NOT_ATTACHED;
    }
    if (!es) {
        es = g_new0(struct snode_fm_export_set, 1);
    }
    es->hdr.type = SNODE_FM_EXPORT_SET;
    es->export_id = id;
    es->perm = flags & 3;
    es->offset = off;
    es->len = len;
    es->key = snode_lohi(p->key_lo, p->key_hi);
    es->all_nodes = !(flags & SNODE_EXPORT_NODEMASK);
    if (!es->all_nodes &&
        pci_dma_read(PCI_DEVICE(s), c->addr + mask_at, es->nodemask,
                     s->max_nodes / 8) != MEMTX_OK) {
        trace_snode_nic_dma_error("export nodemask", c->addr);
        return SNODE_ST_DMA_ERROR;
    }
    e->flags = flags;
    e->off = off;
    e->len = len;
    e->key = es->key;
    if (!snode_fm_request(s, es, es_len, true, c->cid, id, 0)) {
        return SNODE_ST_UNREACHABLE;
    }
    e->state = EXP_PENDING_SET;
    return SNODE_ASYNC;
}

static uint16_t snode_cmd_export_clear(SnodeNicState *s, const SnodeAdminCmd *c,
                                       SnodeAdminCpl *cpl)
{
    uint32_t id = c->export_clear.export_id;
    struct snode_fm_export_clear ec = {};
    SnodeExport *e;

    if (id >= s->export_entries) {
        qemu_log_mask(LOG_GUEST_ERROR, "snode-nic: EXPORT_CLEAR id %u\n", id);
        return SNODE_ST_INVALID_FIELD;
    }
    e = &s->exp[id];
    if (e->state == EXP_FREE) {
        return SNODE_ST_SUCCESS;    /* nothing revoked: revoked = 0 */
    }
    if (e->state != EXP_VALID) {
        return SNODE_ST_BUSY;
    }
    if (!s->attached) {
        return SNODE_ST_NOT_ATTACHED;
    }
    ec.hdr.type = SNODE_FM_EXPORT_CLEAR;
    ec.export_id = id;
    if (!snode_fm_request(s, &ec, sizeof(ec), true, c->cid, id, 0)) {
        return SNODE_ST_UNREACHABLE;
    }
    e->state = EXP_PENDING_CLEAR;
    return SNODE_ASYNC;
}

static uint16_t snode_cmd_export_query(SnodeNicState *s, const SnodeAdminCmd *c,
                                       SnodeAdminCpl *cpl)
{
    uint32_t id = c->export_query.export_id;
    SnodeExportInfo ei = {};
    SnodeExport *e;

    if (id >= s->export_entries) {
        qemu_log_mask(LOG_GUEST_ERROR, "snode-nic: EXPORT_QUERY id %u\n", id);
        return SNODE_ST_INVALID_FIELD;
    }
    e = &s->exp[id];
    ei.valid = e->state == EXP_VALID || e->state == EXP_PENDING_CLEAR;
    if (ei.valid) {
        ei.flags = e->flags;
        /* The fm, not the device, knows the importers. */
        ei.importers = cpu_to_le32(0xffffffff);
        ei.pool_offset = cpu_to_le64(e->off);
        ei.length = cpu_to_le64(e->len);
        ei.key = cpu_to_le64(e->key);
    }
    return snode_dma_out(s, c, &ei, sizeof(ei));
}

static uint16_t snode_cmd_ep_set(SnodeNicState *s, const SnodeAdminCmd *c,
                                 SnodeAdminCpl *cpl)
{
    const SnodeCmdEpSet *p = &c->ep_set;
    uint32_t id = p->endpoint, vec = p->vector, n = p->entries;
    uint64_t tail = snode_lohi(p->tail_addr_lo, p->tail_addr_hi);
    SnodeEp *ep;

    if (id >= s->endpoints || vec < SNODE_VEC_EP_FIRST ||
        vec > SNODE_VEC_EP_LAST || !c->addr || (c->addr % SNODE_PAGE) ||
        n < SNODE_QUEUE_MIN || n > SNODE_QUEUE_MAX || !is_power_of_2(n) ||
        !tail || (tail % 4) || p->head >= n) {
        qemu_log_mask(LOG_GUEST_ERROR, "snode-nic: EP_SET ep %u vector %u ring "
                      "0x%" PRIx64 " entries %u tail 0x%" PRIx64 " head %u: "
                      "invalid field\n", id, vec, c->addr, n, tail, p->head);
        return SNODE_ST_INVALID_FIELD;
    }
    ep = &s->ep[id];
    if (ep->valid) {
        return SNODE_ST_BUSY;
    }
    ep->valid = true;
    ep->vector = vec;
    ep->key = snode_lohi(p->key_lo, p->key_hi);
    ep->ring = c->addr;
    ep->entries = n;
    ep->tail_addr = tail;
    ep->prod = ep->cons = p->head;
    g_free(ep->seq);
    ep->seq = g_new0(uint64_t, SNODE_MAX_NODES);
    return SNODE_ST_SUCCESS;
}

static uint16_t snode_cmd_ep_clear(SnodeNicState *s, const SnodeAdminCmd *c,
                                   SnodeAdminCpl *cpl)
{
    if (c->ep_clear.endpoint >= s->endpoints) {
        qemu_log_mask(LOG_GUEST_ERROR, "snode-nic: EP_CLEAR ep %u\n",
                      c->ep_clear.endpoint);
        return SNODE_ST_INVALID_FIELD;
    }
    snode_ep_clear(&s->ep[c->ep_clear.endpoint]);
    return SNODE_ST_SUCCESS;
}

static uint16_t snode_cmd_ep_head(SnodeNicState *s, const SnodeAdminCmd *c,
                                  SnodeAdminCpl *cpl)
{
    return snode_ep_head(s, c->ep_head.endpoint, c->ep_head.index);
}

static uint16_t snode_cmd_stats(SnodeNicState *s, const SnodeAdminCmd *c,
                                SnodeAdminCpl *cpl)
{
    uint8_t st[sizeof(SnodeStats)];
    size_t i;

    for (i = 0; i < sizeof(st); i += 8) {
        stq_le_p(st + i, ldq_he_p((uint8_t *)&s->stats + i));
    }
    return snode_dma_out(s, c, st, sizeof(st));
}

static uint16_t snode_cmd_echo(SnodeNicState *s, const SnodeAdminCmd *c,
                               SnodeAdminCpl *cpl)
{
    cpl->echo.value = c->echo.value;
    cpl->echo.inverse = ~c->echo.value;
    return SNODE_ST_SUCCESS;
}

/*
 * The admin command set (section 4), as cxl_type3's mailbox: one row per
 * opcode with its handler, the parameter words it uses (the others must be
 * zero) and whether it waits for the fabric manager. tests/hw-contract
 * reads these rows and checks them against the document.
 */
static const SnodeAdminOp snode_admin_ops[256] = {
    [SNODE_OP_IDENTIFY] = { "IDENTIFY", snode_cmd_identify,
                            SNODE_WORDS(SnodeCmdNone), 0 },
    [SNODE_OP_PORT_QUERY] = { "PORT_QUERY", snode_cmd_port_query,
                              SNODE_WORDS(SnodeCmdPort), 0 },
    [SNODE_OP_PORT_SET] = { "PORT_SET", snode_cmd_port_set,
                            SNODE_WORDS(SnodeCmdPortSet), SNODE_CMD_ASYNC },
    [SNODE_OP_NODE_QUERY] = { "NODE_QUERY", snode_cmd_node_query,
                              SNODE_WORDS(SnodeCmdNode), 0 },
    [SNODE_OP_NODE_LIST] = { "NODE_LIST", snode_cmd_node_list,
                             SNODE_WORDS(SnodeCmdNone), 0 },
    [SNODE_OP_NODE_TOPO] = { "NODE_TOPO", snode_cmd_node_topo,
                             SNODE_WORDS(SnodeCmdNone), 0 },
    [SNODE_OP_TOPO_NAMES] = { "TOPO_NAMES", snode_cmd_topo_names,
                              SNODE_WORDS(SnodeCmdTopoNames), 0 },
    [SNODE_OP_ATT_SET] = { "ATT_SET", snode_cmd_att_set,
                           SNODE_WORDS(SnodeCmdAttSet), SNODE_CMD_ASYNC },
    [SNODE_OP_ATT_CLEAR] = { "ATT_CLEAR", snode_cmd_att_clear,
                             SNODE_WORDS(SnodeCmdAtt), 0 },
    [SNODE_OP_ATT_QUERY] = { "ATT_QUERY", snode_cmd_att_query,
                             SNODE_WORDS(SnodeCmdAtt), 0 },
    [SNODE_OP_EXPORT_SET] = { "EXPORT_SET", snode_cmd_export_set,
                              SNODE_WORDS(SnodeCmdExportSet), SNODE_CMD_ASYNC },
    [SNODE_OP_EXPORT_CLEAR] = { "EXPORT_CLEAR", snode_cmd_export_clear,
                                SNODE_WORDS(SnodeCmdExport), SNODE_CMD_ASYNC },
    [SNODE_OP_EXPORT_QUERY] = { "EXPORT_QUERY", snode_cmd_export_query,
                                SNODE_WORDS(SnodeCmdExport), 0 },
    [SNODE_OP_EP_SET] = { "EP_SET", snode_cmd_ep_set,
                          SNODE_WORDS(SnodeCmdEpSet), 0 },
    [SNODE_OP_EP_CLEAR] = { "EP_CLEAR", snode_cmd_ep_clear,
                            SNODE_WORDS(SnodeCmdEp), 0 },
    [SNODE_OP_EP_HEAD] = { "EP_HEAD", snode_cmd_ep_head,
                           SNODE_WORDS(SnodeCmdEpHead), 0 },
    [SNODE_OP_STATS] = { "STATS", snode_cmd_stats,
                         SNODE_WORDS(SnodeCmdNone), 0 },
    [SNODE_OP_ECHO] = { "ECHO", snode_cmd_echo,
                        SNODE_WORDS(SnodeCmdEcho), 0 },
};

/* Flags, the reserved dword and the words the command does not use: zero. */
static bool snode_admin_reserved_ok(const SnodeAdminOp *op,
                                    const SnodeAdminCmd *c)
{
    unsigned i;

    if (c->flags || c->reserved) {
        return false;
    }
    for (i = op->words; i < SNODE_CMD_WORDS_MAX; i++) {
        if (c->cdw[i]) {
            return false;
        }
    }
    return true;
}

static void snode_admin_exec(SnodeNicState *s, SnodeAdminCmd *c)
{
    const SnodeAdminOp *op = &snode_admin_ops[c->opcode];
    SnodeAdminCpl cpl = {};
    uint16_t st;

    s->stats.admin_cmds++;
    trace_snode_nic_admin_cmd(c->opcode, c->cid, c->cdw[0], c->cdw[1], c->addr,
                              c->len);
    if (!op->handler) {
        /* As v1.0 devices do: an unknown opcode may carry cdw0. */
        static const SnodeAdminOp unknown = { .words = 1 };

        if (!snode_admin_reserved_ok(&unknown, c)) {
            goto reserved;
        }
        qemu_log_mask(LOG_GUEST_ERROR, "snode-nic: unknown admin opcode 0x%x\n",
                      c->opcode);
        st = SNODE_ST_INVALID_OPCODE;
        goto done;
    }
    if (!snode_admin_reserved_ok(op, c)) {
        goto reserved;
    }
    st = op->handler(s, c, &cpl);
    if (st == SNODE_ASYNC) {
        if (op->flags & SNODE_CMD_ASYNC) {
            return;
        }
        error_report("snode-nic: %s completed asynchronously, which the "
                     "command table does not allow", op->name);
        st = SNODE_ST_INTERNAL;
    }
    goto done;
reserved:
    qemu_log_mask(LOG_GUEST_ERROR, "snode-nic: opcode 0x%x cid %u: non-zero"
                  " flags/reserved field\n", c->opcode, c->cid);
    st = SNODE_ST_INVALID_FIELD;
done:
    if (st != SNODE_ST_SUCCESS) {
        trace_snode_nic_admin_err(c->opcode, c->cid, st);
    }
    snode_complete(s, c->cid, st, cpl.result0, cpl.result1);
}

void snode_admin_bh(void *opaque)
{
    SnodeNicState *s = opaque;
    SnodeAdminCmd c;
    unsigned budget;

    for (budget = s->asq.size; budget; budget--) {
        if (!(s->status & R_STATUS_ENABLED_MASK) ||
            (s->status & R_STATUS_FATAL_MASK) ||
            s->asq.head == s->asq.tail || !QSIMPLEQ_EMPTY(&s->backlog) ||
            snode_cq_full(&s->acq)) {
            return;
        }
        if (pci_dma_read(PCI_DEVICE(s),
                         s->asq.base + (uint64_t)s->asq.head * sizeof(c),
                         &c, sizeof(c)) != MEMTX_OK) {
            trace_snode_nic_dma_error("admin submission", s->asq.base);
            snode_fatal(s, "cannot read the admin submission queue");
            return;
        }
        s->asq.head = (s->asq.head + 1) % s->asq.size;
        c.cid = le16_to_cpu(c.cid);
        c.reserved = le32_to_cpu(c.reserved);
        c.addr = le64_to_cpu(c.addr);
        c.len = le32_to_cpu(c.len);
        for (unsigned i = 0; i < SNODE_CMD_WORDS_MAX; i++) {
            c.cdw[i] = le32_to_cpu(c.cdw[i]);
        }
        snode_admin_exec(s, &c);
    }
    /* More left than one ring's worth: let the main loop breathe. */
    qemu_bh_schedule(s->admin_bh);
}

void snode_admin_kick(SnodeNicState *s)
{
    if (s->status & R_STATUS_ENABLED_MASK) {
        qemu_bh_schedule(s->admin_bh);
    }
}
