// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * snode-nic: PCIe NIC of the snode supernode interconnect.
 *
 * Implements the hardware contract Documentation/hw/snode-nic.rst (v1.0).
 * The fabric is modelled by an external fabric manager (snode-fm) reached
 * over a SOCK_SEQPACKET socket (protocol: snode-fm-proto.h). Without the
 * "fm" property the device runs detached, with a private pool, so it can be
 * tested alone.
 *
 * Data path: every node's pool is a shared file; a granted ATT entry is a
 * RAM MemoryRegion over the exporter's file mapped into the BAR2 aperture,
 * so loads and stores never trap. Everything not granted in the aperture is
 * the "hole", an MMIO region that reads all-ones and reports violations.
 *
 * Threading: everything runs under the BQL (MMIO from vCPUs, bottom halves,
 * timers and the fm fd handler in the main loop). Peer files are mapped once
 * and stay mapped until the device is destroyed, so a vCPU still holding a
 * stale TLB entry for a just-removed window never touches unmapped memory.
 */

#include "qemu/osdep.h"
#include "qemu/units.h"
#include "qemu/log.h"
#include "qemu/module.h"
#include "qemu/timer.h"
#include "qemu/main-loop.h"
#include "qemu/rcu.h"
#include "qemu/queue.h"
#include "qemu/bswap.h"
#include "qemu/cutils.h"
#include "qemu/sockets.h"
#include "qapi/error.h"
#include "hw/pci/pci.h"
#include "hw/pci/pcie.h"
#include "hw/pci/msix.h"
#include "hw/qdev-properties.h"
#include "migration/vmstate.h"
#include "exec/memory.h"
#include "qom/object.h"
#include <sys/socket.h>
#include <sys/un.h>
#include <sys/mman.h>
#include <poll.h>

#include "snode-nic.h"
#include "snode-fm-proto.h"
#include "trace.h"

OBJECT_DECLARE_SIMPLE_TYPE(SnodeNicState, SNODE_NIC)

#define SNODE_HELLO_TIMEOUT_MS      5000
#define SNODE_FM_TIMEOUT_MS         2000
#define SNODE_DMA_CHUNK             (256 * KiB)
#define SNODE_MAX_PENDING           1024
#define SNODE_FM_RX_BUDGET          64
#define SNODE_DEFAULT_TEMP          45000
#define SNODE_DEFAULT_POWER         12000

/* Minimum packet length: up to the last field, tail padding not required. */
#define SNODE_FM_LEN(type, field)   (offsetof(type, field) + \
                                     sizeof(((type *)0)->field))
#define SNODE_GRANT_REPLY_LEN \
    SNODE_FM_LEN(struct snode_fm_grant_reply, path)
#define SNODE_HELLO_REPLY_LEN \
    SNODE_FM_LEN(struct snode_fm_hello_reply, serial)

enum { ATT_FREE, ATT_PENDING, ATT_VALID };
enum { EXP_FREE, EXP_PENDING_SET, EXP_VALID, EXP_PENDING_CLEAR };

/* A window MemoryRegion, freed after an RCU grace period. */
typedef struct SnodeWin {
    struct rcu_head rcu;
    MemoryRegion mr;
} SnodeWin;

/* One mapping of a memory file; kept for the device's lifetime. */
typedef struct SnodeMap {
    struct rcu_head rcu;
    void *ptr;
    uint64_t size;
} SnodeMap;

typedef struct SnodeAtt {
    uint8_t state;
    uint8_t flags;
    uint32_t node;
    uint32_t export_id;
    uint32_t epoch;
    uint32_t revoke_reason;
    uint64_t ap_off;
    uint64_t len;
    uint64_t key;
    uint64_t exp_off;
    uint8_t *host;
    SnodeWin *win;
} SnodeAtt;

typedef struct SnodeExport {
    uint8_t state;
    uint8_t flags;
    uint64_t off;
    uint64_t len;
    uint64_t key;
} SnodeExport;

typedef struct SnodeEp {
    bool valid;
    uint8_t vector;
    uint64_t key;
    uint64_t ring;
    uint32_t entries;
    uint64_t tail_addr;
    uint32_t prod;
    uint32_t cons;
    uint64_t *seq;      /* per source node */
} SnodeEp;

typedef struct SnodePort {
    struct snode_fm_port_state fm;  /* last report from the fm */
    bool known;
    uint64_t tx_bytes, rx_bytes, tx_msgs, rx_msgs;
    uint64_t rep_tx, rep_rx;        /* already reported to the fm */
} SnodePort;

/* A request to the fm waiting for its reply. */
typedef struct SnodeReq {
    QTAILQ_ENTRY(SnodeReq) next;
    uint32_t seq;
    uint16_t type;
    bool admin;         /* completes an admin command */
    uint16_t cid;
    uint32_t idx;       /* ATT index, export id, port */
    uint32_t arg;       /* PORT_SET action */
    int64_t deadline;
} SnodeReq;

typedef struct SnodeCpl {
    QSIMPLEQ_ENTRY(SnodeCpl) next;
    uint16_t cid;
    uint16_t status;
    uint32_t r0, r1;
} SnodeCpl;

typedef struct SnodeSq {
    uint64_t base;
    uint32_t size;
    uint32_t head;      /* device consumer */
    uint32_t tail;      /* doorbell */
} SnodeSq;

typedef struct SnodeCq {
    uint64_t base;
    uint32_t size;
    uint32_t tail;      /* device producer */
    uint32_t head;      /* software consumer */
    bool phase;
} SnodeCq;

struct SnodeNicState {
    PCIDevice parent_obj;

    /* properties */
    char *fm_path;
    uint32_t node_prop;
    uint64_t aperture_size;
    uint64_t pool_prop;
    uint32_t att_entries;
    uint32_t export_entries;
    uint32_t endpoints;

    MemoryRegion bar0;
    MemoryRegion aperture;
    MemoryRegion hole;
    MemoryRegion pool_mr;
    SnodeMap *pool;
    uint64_t pool_size;

    /* fabric */
    int fm_fd;
    bool attached;
    uint32_t node_id;
    uint32_t fabric_id;
    uint32_t nports;
    uint32_t max_nodes;
    char serial[32];
    uint32_t fm_seq;
    QEMUTimer *hb_timer;
    QEMUBH *fm_lost_bh;
    QTAILQ_HEAD(, SnodeReq) reqs;
    unsigned nreqs;
    GHashTable *maps;           /* path -> SnodeMap */
    GPtrArray *old_maps;        /* outgrown mappings windows may still use */
    int64_t attach_ns;

    /* registers */
    uint32_t scratch;
    uint32_t ctrl;
    uint32_t status;
    uint32_t intr_cause;
    uint32_t intr_mask;
    uint32_t qreg[(A_DCQ_HEAD - A_ASQ_BASE_LO) / 4 + 1];
    int32_t temp;
    int32_t temp_max;
    int32_t temp_crit;
    uint32_t power;
    uint32_t power_max;
    uint32_t sensor_alarm;
    uint32_t sensor_above;      /* alarm conditions currently true */

    /* queues (live while STATUS.ENABLED) */
    SnodeSq asq;
    SnodeCq acq;
    SnodeCq eq;
    SnodeSq dsq;
    SnodeCq dcq;
    QSIMPLEQ_HEAD(, SnodeCpl) backlog;
    QEMUBH *admin_bh;
    QEMUBH *dma_bh;
    uint32_t ev_seq;
    uint32_t ev_lost;

    /* DMA descriptor in progress */
    bool dma_busy;
    SnodeDmaDesc dma_desc;
    uint32_t dma_done;
    uint32_t dma_src_epoch, dma_dst_epoch;
    int dma_src_att, dma_dst_att;

    /* tables */
    SnodeAtt *att;
    uint32_t att_epoch_next;
    SnodeExport *exp;
    SnodeEp *ep;
    uint8_t node_state[SNODE_MAX_NODES];
    uint8_t node_route[SNODE_MAX_NODES];
    SnodePort port[SNODE_MAX_PORTS];
    int64_t hole_last_ms;
    uint32_t hole_suppressed;

    /* messages */
    uint32_t msg_dst, msg_node, msg_key_lo, msg_key_hi, msg_len;
    uint32_t msg_status;
    uint8_t msg_data[SNODE_MSG_MAX];

    SnodeStats stats;
    bool powered_on;
};

static void snode_detach(SnodeNicState *s);
static void snode_admin_kick(SnodeNicState *s);

/* ---------------------------------------------------------------------- */
/* Interrupts                                                              */

static void snode_update_intx(SnodeNicState *s)
{
    PCIDevice *pdev = PCI_DEVICE(s);

    if (msix_enabled(pdev)) {
        pci_set_irq(pdev, 0);
        return;
    }
    pci_set_irq(pdev, !!(s->intr_cause & ~s->intr_mask & SNODE_INTR_ALL));
}

static void snode_raise(SnodeNicState *s, uint32_t cause, unsigned vector)
{
    PCIDevice *pdev = PCI_DEVICE(s);

    s->intr_cause |= cause;
    trace_snode_nic_irq(cause, vector, msix_enabled(pdev));
    if (msix_enabled(pdev)) {
        msix_notify(pdev, vector);
    } else {
        snode_update_intx(s);
    }
}

static void snode_fatal(SnodeNicState *s, const char *why)
{
    trace_snode_nic_fatal(why);
    qemu_log_mask(LOG_GUEST_ERROR, "snode-nic: fatal: %s\n", why);
    s->status |= R_STATUS_FATAL_MASK;
    snode_raise(s, R_INTR_FATAL_MASK, SNODE_VEC_ADMIN);
}

/* ---------------------------------------------------------------------- */
/* Events                                                                  */

static bool snode_cq_full(SnodeCq *q)
{
    return (q->tail + 1) % q->size == q->head;
}

static uint64_t snode_now_ns(SnodeNicState *s)
{
    return qemu_clock_get_ns(QEMU_CLOCK_REALTIME) - s->attach_ns;
}

static bool snode_eq_write(SnodeNicState *s, uint16_t type, const uint8_t *data)
{
    SnodeEvent ev = {};
    PCIDevice *pdev = PCI_DEVICE(s);

    ev.type = cpu_to_le16(type);
    ev.flags = cpu_to_le16(s->eq.phase ? SNODE_PHASE : 0);
    ev.seq = cpu_to_le32(++s->ev_seq);
    ev.timestamp = cpu_to_le64(snode_now_ns(s));
    memcpy(ev.data, data, sizeof(ev.data));
    if (pci_dma_write(pdev, s->eq.base + (uint64_t)s->eq.tail * sizeof(ev),
                      &ev, sizeof(ev)) != MEMTX_OK) {
        trace_snode_nic_dma_error("event", s->eq.base);
        qemu_log_mask(LOG_GUEST_ERROR, "snode-nic: EQ write failed\n");
        s->ev_seq--;
        return false;
    }
    trace_snode_nic_event(type, s->ev_seq, s->eq.tail);
    s->eq.tail = (s->eq.tail + 1) % s->eq.size;
    if (s->eq.tail == 0) {
        s->eq.phase = !s->eq.phase;
    }
    s->stats.events++;
    return true;
}

static void snode_eq_flush_overflow(SnodeNicState *s)
{
    uint8_t data[16] = {};

    if (!s->ev_lost || !(s->status & R_STATUS_ENABLED_MASK) ||
        snode_cq_full(&s->eq)) {
        return;
    }
    stl_le_p(data, s->ev_lost);
    if (snode_eq_write(s, SNODE_EV_EQ_OVERFLOW, data)) {
        trace_snode_nic_eq_overflow(s->ev_lost);
        s->ev_lost = 0;
        snode_raise(s, R_INTR_EVENT_MASK, SNODE_VEC_EVENT);
    }
}

static void snode_post_event(SnodeNicState *s, uint16_t type,
                             const uint8_t *data)
{
    if (!(s->status & R_STATUS_ENABLED_MASK)) {
        trace_snode_nic_event_dropped(type, "queues not enabled");
        s->stats.events_dropped++;
        return;
    }
    snode_eq_flush_overflow(s);
    /* The overflow event itself needs the slot before this one. */
    if (s->ev_lost || snode_cq_full(&s->eq)) {
        trace_snode_nic_event_dropped(type, "event queue full");
        s->ev_lost++;
        s->stats.events_dropped++;
        return;
    }
    if (snode_eq_write(s, type, data)) {
        snode_raise(s, R_INTR_EVENT_MASK, SNODE_VEC_EVENT);
    } else {
        s->stats.events_dropped++;
    }
}

static void snode_ev_window_revoked(SnodeNicState *s, unsigned idx)
{
    SnodeAtt *a = &s->att[idx];
    uint8_t d[16] = {};

    stw_le_p(d, idx);
    stw_le_p(d + 2, a->revoke_reason);
    stl_le_p(d + 4, a->epoch);
    stl_le_p(d + 8, a->node);
    stl_le_p(d + 12, a->export_id);
    snode_post_event(s, SNODE_EV_WINDOW_REVOKED, d);
}

static void snode_ev_fabric(SnodeNicState *s, bool attached)
{
    uint8_t d[16] = {};

    d[0] = attached;
    snode_post_event(s, SNODE_EV_FABRIC, d);
}

static void snode_ev_link_state(SnodeNicState *s, unsigned p)
{
    uint8_t d[16] = {};

    d[0] = p;
    d[1] = s->port[p].fm.oper_state;
    d[2] = s->port[p].fm.lanes;
    stl_le_p(d + 4, s->port[p].fm.peer_node);
    stq_le_p(d + 8, s->port[p].fm.down_events);
    snode_post_event(s, SNODE_EV_LINK_STATE, d);
}

/* ---------------------------------------------------------------------- */
/* Sensors                                                                 */

static void snode_sensor_eval(SnodeNicState *s, bool post)
{
    uint32_t above = 0, rising;

    if (s->temp > s->temp_max) {
        above |= R_SENSOR_ALARM_TEMP_MAX_MASK;
    }
    if (s->temp > s->temp_crit) {
        above |= R_SENSOR_ALARM_TEMP_CRIT_MASK;
    }
    if (s->power > s->power_max) {
        above |= R_SENSOR_ALARM_POWER_MAX_MASK;
    }
    rising = above & ~s->sensor_above;
    s->sensor_above = above;
    if (above & R_SENSOR_ALARM_TEMP_CRIT_MASK) {
        s->status |= R_STATUS_THROTTLED_MASK;
    } else {
        s->status &= ~R_STATUS_THROTTLED_MASK;
    }
    if (rising && post) {
        uint8_t d[16] = {};

        s->sensor_alarm |= rising;
        trace_snode_nic_thermal(s->temp, s->power, rising);
        stl_le_p(d, s->temp);
        stl_le_p(d + 4, s->sensor_alarm);
        stl_le_p(d + 8, s->power);
        snode_post_event(s, SNODE_EV_THERMAL, d);
    }
}

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
static SnodeReq *snode_fm_request(SnodeNicState *s, void *pkt, size_t len,
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

static void snode_req_free(SnodeNicState *s, SnodeReq *r)
{
    QTAILQ_REMOVE(&s->reqs, r, next);
    s->nreqs--;
    g_free(r);
}

static void snode_fm_simple(SnodeNicState *s, uint16_t type, void *pkt,
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
/* Memory files                                                            */

static void snode_map_free_rcu(SnodeMap *m)
{
    munmap(m->ptr, m->size);
    g_free(m);
}

static void snode_map_drop(gpointer p)
{
    SnodeMap *m = p;

    call_rcu(m, snode_map_free_rcu, rcu);
}

static SnodeMap *snode_map_file(const char *path, uint64_t min_size,
                                Error **errp)
{
    struct stat st;
    SnodeMap *m;
    void *ptr;
    int fd;

    fd = open(path, O_RDWR);
    if (fd < 0) {
        error_setg_errno(errp, errno, "snode-nic: cannot open memory file %s",
                         path);
        return NULL;
    }
    if (fstat(fd, &st) < 0 || (uint64_t)st.st_size < min_size ||
        st.st_size == 0) {
        error_setg(errp, "snode-nic: memory file %s is smaller than %" PRIu64
                   " bytes", path, min_size);
        close(fd);
        return NULL;
    }
    ptr = mmap(NULL, st.st_size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    close(fd);
    if (ptr == MAP_FAILED) {
        error_setg_errno(errp, errno, "snode-nic: cannot map %s", path);
        return NULL;
    }
    m = g_new0(SnodeMap, 1);
    m->ptr = ptr;
    m->size = st.st_size;
    return m;
}

/* Peer files are mapped once and cached; a file may grow, never shrink. */
static SnodeMap *snode_peer_map(SnodeNicState *s, const char *path,
                                uint64_t need)
{
    SnodeMap *m = g_hash_table_lookup(s->maps, path);
    Error *err = NULL;

    if (m && m->size >= need) {
        return m;
    }
    m = snode_map_file(path, need, &err);
    if (!m) {
        trace_snode_nic_map_failed(path, error_get_pretty(err));
        error_free(err);
        return NULL;
    }
    /* A window may still point into an outgrown mapping: keep it. */
    {
        gpointer old_key, old_map;

        if (g_hash_table_lookup_extended(s->maps, path, &old_key, &old_map)) {
            g_hash_table_steal(s->maps, path);
            g_free(old_key);
            g_ptr_array_add(s->old_maps, old_map);
        }
    }
    g_hash_table_insert(s->maps, g_strdup(path), m);
    return m;
}

/* ---------------------------------------------------------------------- */
/* ATT windows                                                             */

static void snode_win_free_rcu(SnodeWin *w)
{
    g_free(w);
}

static void snode_att_unmap(SnodeNicState *s, unsigned idx)
{
    SnodeAtt *a = &s->att[idx];

    if (a->win) {
        memory_region_del_subregion(&s->aperture, &a->win->mr);
        object_unparent(OBJECT(&a->win->mr));
        call_rcu(a->win, snode_win_free_rcu, rcu);
        a->win = NULL;
    }
    a->host = NULL;
    a->state = ATT_FREE;
}

/* Invalidate a valid entry. release: tell the fm we dropped the grant. */
static void snode_att_invalidate(SnodeNicState *s, unsigned idx, bool release)
{
    if (s->att[idx].state != ATT_VALID) {
        return;
    }
    snode_att_unmap(s, idx);
    if (release && s->fm_fd >= 0) {
        struct snode_fm_grant_release rel = { .att_index = idx };

        snode_fm_simple(s, SNODE_FM_GRANT_RELEASE, &rel, sizeof(rel));
    }
}

static void snode_att_revoke(SnodeNicState *s, unsigned idx, uint32_t reason)
{
    SnodeAtt *a = &s->att[idx];

    if (a->state != ATT_VALID) {
        return;
    }
    trace_snode_nic_att_revoke(idx, reason, a->epoch);
    snode_att_invalidate(s, idx, false);
    a->revoke_reason = reason;
    s->stats.att_revokes++;
    snode_ev_window_revoked(s, idx);
}

/* Find the valid entry holding [off, off + len) of the aperture. */
static int snode_att_lookup(SnodeNicState *s, uint64_t off, uint64_t len)
{
    unsigned i;

    for (i = 0; i < s->att_entries; i++) {
        SnodeAtt *a = &s->att[i];

        if (a->state == ATT_VALID && off >= a->ap_off &&
            off - a->ap_off < a->len) {
            return (len <= a->len - (off - a->ap_off)) ? (int)i : -2;
        }
    }
    return -1;
}

/* ---------------------------------------------------------------------- */
/* The aperture hole                                                       */

static void snode_violation(SnodeNicState *s, uint64_t off, bool write)
{
    int64_t now = qemu_clock_get_ms(QEMU_CLOCK_REALTIME);
    uint8_t d[16] = {};

    s->stats.access_violations++;
    if (now == s->hole_last_ms) {
        s->hole_suppressed++;
        return;
    }
    trace_snode_nic_access_violation(off, write, s->hole_suppressed);
    s->hole_last_ms = now;
    stq_le_p(d, off);
    d[8] = write;
    stl_le_p(d + 12, s->hole_suppressed);
    s->hole_suppressed = 0;
    snode_post_event(s, SNODE_EV_ACCESS_VIOLATION, d);
}

static uint64_t snode_hole_read(void *opaque, hwaddr addr, unsigned size)
{
    snode_violation(opaque, addr, false);
    return size == 8 ? ~0ULL : (1ULL << (size * 8)) - 1;
}

static void snode_hole_write(void *opaque, hwaddr addr, uint64_t val,
                             unsigned size)
{
    snode_violation(opaque, addr, true);
}

static const MemoryRegionOps snode_hole_ops = {
    .read = snode_hole_read,
    .write = snode_hole_write,
    .endianness = DEVICE_LITTLE_ENDIAN,
    .valid = { .min_access_size = 1, .max_access_size = 8 },
    .impl = { .min_access_size = 1, .max_access_size = 8 },
};

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

static void snode_backlog_flush(SnodeNicState *s)
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

static void snode_complete(SnodeNicState *s, uint16_t cid, uint16_t status,
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

static void snode_backlog_drop(SnodeNicState *s)
{
    SnodeCpl *c;

    while ((c = QSIMPLEQ_FIRST(&s->backlog))) {
        QSIMPLEQ_REMOVE_HEAD(&s->backlog, next);
        g_free(c);
    }
}

/* ---------------------------------------------------------------------- */
/* Admin commands                                                          */

#define CDW_MASK(n)     ((1u << (n)) - 1)  /* cdw[0..n-1] used */

/* Status, or SUCCESS; *r0/r1 results. ASYNC means "completes later". */
#define SNODE_ASYNC     0xffff

static uint16_t snode_dma_out(SnodeNicState *s, SnodeAdminCmd *c,
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

static uint16_t snode_cmd_identify(SnodeNicState *s, SnodeAdminCmd *c,
                                   uint32_t *r0)
{
    SnodeIdentify id = {};

    id.magic = cpu_to_le32(SNODE_MAGIC);
    id.version = cpu_to_le32(SNODE_VERSION);
    id.fw_version = cpu_to_le32(SNODE_FW_VERSION);
    id.cap = cpu_to_le32(0x7f);
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
    strncpy(id.serial, s->serial, sizeof(id.serial));
    strncpy(id.fw_name, SNODE_FW_NAME, sizeof(id.fw_name));
    *r0 = sizeof(id);
    return snode_dma_out(s, c, &id, sizeof(id));
}

static uint16_t snode_cmd_port_query(SnodeNicState *s, SnodeAdminCmd *c)
{
    uint32_t p = c->cdw[0];
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

static uint16_t snode_cmd_port_set(SnodeNicState *s, SnodeAdminCmd *c)
{
    struct snode_fm_port_set ps = {};

    if (c->cdw[0] >= s->nports || c->cdw[1] < SNODE_FM_PORT_ADMIN_DOWN ||
        c->cdw[1] > SNODE_FM_PORT_CLEAR) {
        qemu_log_mask(LOG_GUEST_ERROR, "snode-nic: PORT_SET port %u action "
                      "%u invalid\n", c->cdw[0], c->cdw[1]);
        return SNODE_ST_INVALID_FIELD;
    }
    if (!s->attached) {
        return SNODE_ST_NOT_ATTACHED;
    }
    ps.hdr.type = SNODE_FM_PORT_SET;
    ps.port = c->cdw[0];
    ps.action = c->cdw[1];
    if (!snode_fm_request(s, &ps, sizeof(ps), true, c->cid, ps.port,
                          ps.action)) {
        return SNODE_ST_UNREACHABLE;
    }
    return SNODE_ASYNC;
}

static uint16_t snode_cmd_node_query(SnodeNicState *s, SnodeAdminCmd *c,
                                     uint32_t *r0, uint32_t *r1)
{
    uint32_t n = c->cdw[0];

    if (n >= s->max_nodes) {
        return SNODE_ST_OUT_OF_RANGE;
    }
    *r0 = s->node_state[n];
    *r1 = s->node_route[n];
    return SNODE_ST_SUCCESS;
}

static uint16_t snode_cmd_node_list(SnodeNicState *s, SnodeAdminCmd *c,
                                    uint32_t *r0)
{
    uint8_t list[SNODE_MAX_NODES];
    uint32_t n, known = 0;

    for (n = 0; n < s->max_nodes; n++) {
        uint8_t route = s->node_route[n] >= s->nports ? 0xf : s->node_route[n];

        list[n] = (s->node_state[n] & 0xf) | (route << 4);
        known += s->node_state[n] != SNODE_FM_NODE_UNKNOWN;
    }
    *r0 = known;
    return snode_dma_out(s, c, list, s->max_nodes);
}

static uint16_t snode_cmd_att_set(SnodeNicState *s, SnodeAdminCmd *c)
{
    uint32_t idx = c->cdw[0], flags = c->cdw[1];
    uint64_t off = c->cdw[2] | (uint64_t)c->cdw[3] << 32;
    uint64_t len = c->cdw[4] | (uint64_t)c->cdw[5] << 32;
    struct snode_fm_grant g = {};
    SnodeAtt *a;
    unsigned i;

    if (idx >= s->att_entries || (flags & ~3u) ||
        !(flags & SNODE_PERM_READ) || (off % SNODE_ATT_ALIGN) ||
        !len || (len % SNODE_PAGE) || c->cdw[6] >= s->max_nodes ||
        c->cdw[10] >= (1u << 28)) {
        qemu_log_mask(LOG_GUEST_ERROR, "snode-nic: ATT_SET entry %u flags 0x%x "
                      "off 0x%" PRIx64 " len 0x%" PRIx64 " node %u: invalid "
                      "field\n", idx, flags, off, len, c->cdw[6]);
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
    a->node = c->cdw[6];
    a->export_id = c->cdw[7];
    a->key = c->cdw[8] | (uint64_t)c->cdw[9] << 32;
    a->exp_off = (uint64_t)c->cdw[10] * SNODE_PAGE;
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

static uint16_t snode_cmd_att_clear(SnodeNicState *s, SnodeAdminCmd *c)
{
    uint32_t idx = c->cdw[0];

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

static uint16_t snode_cmd_att_query(SnodeNicState *s, SnodeAdminCmd *c)
{
    uint32_t idx = c->cdw[0];
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

static uint16_t snode_cmd_export_set(SnodeNicState *s, SnodeAdminCmd *c)
{
    uint32_t id = c->cdw[0], flags = c->cdw[1];
    uint64_t off = c->cdw[2] | (uint64_t)c->cdw[3] << 32;
    uint64_t len = c->cdw[4] | (uint64_t)c->cdw[5] << 32;
    g_autofree struct snode_fm_export_set *es = NULL;
    SnodeExport *e;

    if (id >= s->export_entries || (flags & ~7u) ||
        (flags & 3) == 0 || (flags & 3) == SNODE_PERM_WRITE ||
        (off % SNODE_PAGE) || !len || (len % SNODE_PAGE)) {
        qemu_log_mask(LOG_GUEST_ERROR, "snode-nic: EXPORT_SET id %u flags 0x%x"
                      " off 0x%" PRIx64 " len 0x%" PRIx64 ": invalid field\n",
                      id, flags, off, len);
        return SNODE_ST_INVALID_FIELD;
    }
    if ((flags & SNODE_EXPORT_NODEMASK) && c->len < s->max_nodes / 8) {
        qemu_log_mask(LOG_GUEST_ERROR, "snode-nic: EXPORT_SET nodemask buffer "
                      "%u bytes, need %u\n", c->len, s->max_nodes / 8);
        return SNODE_ST_INVALID_FIELD;
    }
    if (off >= s->pool_size || len > s->pool_size - off) {
        return SNODE_ST_OUT_OF_RANGE;
    }
    e = &s->exp[id];
    if (e->state != EXP_FREE) {
        return SNODE_ST_BUSY;
    }
    if (!s->attached) {
        return SNODE_ST_NOT_ATTACHED;
    }
    es = g_new0(struct snode_fm_export_set, 1);
    es->hdr.type = SNODE_FM_EXPORT_SET;
    es->export_id = id;
    es->perm = flags & 3;
    es->offset = off;
    es->len = len;
    es->key = c->cdw[6] | (uint64_t)c->cdw[7] << 32;
    es->all_nodes = !(flags & SNODE_EXPORT_NODEMASK);
    if (!es->all_nodes &&
        pci_dma_read(PCI_DEVICE(s), c->addr, es->nodemask,
                     s->max_nodes / 8) != MEMTX_OK) {
        trace_snode_nic_dma_error("export nodemask", c->addr);
        return SNODE_ST_DMA_ERROR;
    }
    e->flags = flags;
    e->off = off;
    e->len = len;
    e->key = es->key;
    if (!snode_fm_request(s, es, sizeof(*es), true, c->cid, id, 0)) {
        return SNODE_ST_UNREACHABLE;
    }
    e->state = EXP_PENDING_SET;
    return SNODE_ASYNC;
}

static uint16_t snode_cmd_export_clear(SnodeNicState *s, SnodeAdminCmd *c)
{
    uint32_t id = c->cdw[0];
    struct snode_fm_export_clear ec = {};
    SnodeExport *e;

    if (id >= s->export_entries) {
        qemu_log_mask(LOG_GUEST_ERROR, "snode-nic: EXPORT_CLEAR id %u\n", id);
        return SNODE_ST_INVALID_FIELD;
    }
    e = &s->exp[id];
    if (e->state == EXP_FREE) {
        return SNODE_ST_SUCCESS;
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

static uint16_t snode_cmd_export_query(SnodeNicState *s, SnodeAdminCmd *c)
{
    uint32_t id = c->cdw[0];
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

static uint16_t snode_cmd_ep_set(SnodeNicState *s, SnodeAdminCmd *c)
{
    uint32_t id = c->cdw[0], vec = c->cdw[1], n = c->cdw[4];
    uint64_t tail = c->cdw[5] | (uint64_t)c->cdw[6] << 32;
    SnodeEp *ep;

    if (id >= s->endpoints || vec < SNODE_VEC_EP_FIRST ||
        vec > SNODE_VEC_EP_LAST || !c->addr || (c->addr % SNODE_PAGE) ||
        n < SNODE_QUEUE_MIN || n > SNODE_QUEUE_MAX || !is_power_of_2(n) ||
        !tail || (tail % 4) || c->cdw[7] >= n) {
        qemu_log_mask(LOG_GUEST_ERROR, "snode-nic: EP_SET ep %u vector %u ring "
                      "0x%" PRIx64 " entries %u tail 0x%" PRIx64 " head %u: "
                      "invalid field\n", id, vec, c->addr, n, tail, c->cdw[7]);
        return SNODE_ST_INVALID_FIELD;
    }
    ep = &s->ep[id];
    if (ep->valid) {
        return SNODE_ST_BUSY;
    }
    ep->valid = true;
    ep->vector = vec;
    ep->key = c->cdw[2] | (uint64_t)c->cdw[3] << 32;
    ep->ring = c->addr;
    ep->entries = n;
    ep->tail_addr = tail;
    ep->prod = ep->cons = c->cdw[7];
    g_free(ep->seq);
    ep->seq = g_new0(uint64_t, SNODE_MAX_NODES);
    return SNODE_ST_SUCCESS;
}

static void snode_ep_clear(SnodeEp *ep)
{
    ep->valid = false;
    g_free(ep->seq);
    ep->seq = NULL;
}

static uint16_t snode_ep_head(SnodeNicState *s, uint32_t id, uint32_t idx)
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

static uint16_t snode_cmd_stats(SnodeNicState *s, SnodeAdminCmd *c)
{
    uint8_t st[sizeof(SnodeStats)];
    size_t i;

    for (i = 0; i < sizeof(st); i += 8) {
        stq_le_p(st + i, ldq_he_p((uint8_t *)&s->stats + i));
    }
    return snode_dma_out(s, c, st, sizeof(st));
}

/* Which cdw words each opcode uses; the others are reserved. */
static uint32_t snode_cdw_used(uint8_t op)
{
    switch (op) {
    case SNODE_OP_IDENTIFY:
    case SNODE_OP_NODE_LIST:
    case SNODE_OP_STATS:
        return 0;
    case SNODE_OP_PORT_SET:
    case SNODE_OP_EP_HEAD:
        return CDW_MASK(2);
    case SNODE_OP_ATT_SET:
        return CDW_MASK(11);
    case SNODE_OP_EXPORT_SET:
    case SNODE_OP_EP_SET:
        return CDW_MASK(8);
    default:
        return CDW_MASK(1);
    }
}

static void snode_admin_exec(SnodeNicState *s, SnodeAdminCmd *c)
{
    uint32_t r0 = 0, r1 = 0, used;
    uint16_t st;
    unsigned i;

    s->stats.admin_cmds++;
    trace_snode_nic_admin_cmd(c->opcode, c->cid, c->cdw[0], c->cdw[1], c->addr,
                              c->len);
    used = snode_cdw_used(c->opcode);
    for (i = 0; i < 11; i++) {
        if (!(used & (1u << i)) && c->cdw[i]) {
            break;
        }
    }
    if (c->flags || c->reserved || i < 11) {
        qemu_log_mask(LOG_GUEST_ERROR, "snode-nic: opcode 0x%x cid %u: non-zero"
                      " flags/reserved field\n", c->opcode, c->cid);
        st = SNODE_ST_INVALID_FIELD;
        goto done;
    }
    switch (c->opcode) {
    case SNODE_OP_IDENTIFY:
        st = snode_cmd_identify(s, c, &r0);
        break;
    case SNODE_OP_PORT_QUERY:
        st = snode_cmd_port_query(s, c);
        break;
    case SNODE_OP_PORT_SET:
        st = snode_cmd_port_set(s, c);
        break;
    case SNODE_OP_NODE_QUERY:
        st = snode_cmd_node_query(s, c, &r0, &r1);
        break;
    case SNODE_OP_NODE_LIST:
        st = snode_cmd_node_list(s, c, &r0);
        break;
    case SNODE_OP_ATT_SET:
        st = snode_cmd_att_set(s, c);
        break;
    case SNODE_OP_ATT_CLEAR:
        st = snode_cmd_att_clear(s, c);
        break;
    case SNODE_OP_ATT_QUERY:
        st = snode_cmd_att_query(s, c);
        break;
    case SNODE_OP_EXPORT_SET:
        st = snode_cmd_export_set(s, c);
        break;
    case SNODE_OP_EXPORT_CLEAR:
        st = snode_cmd_export_clear(s, c);
        break;
    case SNODE_OP_EXPORT_QUERY:
        st = snode_cmd_export_query(s, c);
        break;
    case SNODE_OP_EP_SET:
        st = snode_cmd_ep_set(s, c);
        break;
    case SNODE_OP_EP_CLEAR:
        if (c->cdw[0] >= s->endpoints) {
            qemu_log_mask(LOG_GUEST_ERROR, "snode-nic: EP_CLEAR ep %u\n",
                          c->cdw[0]);
            st = SNODE_ST_INVALID_FIELD;
            break;
        }
        snode_ep_clear(&s->ep[c->cdw[0]]);
        st = SNODE_ST_SUCCESS;
        break;
    case SNODE_OP_EP_HEAD:
        st = snode_ep_head(s, c->cdw[0], c->cdw[1]);
        break;
    case SNODE_OP_STATS:
        st = snode_cmd_stats(s, c);
        break;
    case SNODE_OP_ECHO:
        r0 = c->cdw[0];
        r1 = ~c->cdw[0];
        st = SNODE_ST_SUCCESS;
        break;
    default:
        qemu_log_mask(LOG_GUEST_ERROR, "snode-nic: unknown admin opcode 0x%x\n",
                      c->opcode);
        st = SNODE_ST_INVALID_OPCODE;
        break;
    }
done:
    if (st == SNODE_ASYNC) {
        return;
    }
    if (st != SNODE_ST_SUCCESS) {
        trace_snode_nic_admin_err(c->opcode, c->cid, st);
    }
    snode_complete(s, c->cid, st, r0, r1);
}

static void snode_admin_bh(void *opaque)
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
        for (unsigned i = 0; i < 11; i++) {
            c.cdw[i] = le32_to_cpu(c.cdw[i]);
        }
        snode_admin_exec(s, &c);
    }
    /* More left than one ring's worth: let the main loop breathe. */
    qemu_bh_schedule(s->admin_bh);
}

static void snode_admin_kick(SnodeNicState *s)
{
    if (s->status & R_STATUS_ENABLED_MASK) {
        qemu_bh_schedule(s->admin_bh);
    }
}

/* ---------------------------------------------------------------------- */
/* DMA engine                                                              */

static int snode_route_port(SnodeNicState *s, uint32_t node)
{
    if (node < SNODE_MAX_NODES && s->node_route[node] < s->nports) {
        return s->node_route[node];
    }
    return -1;
}

static void snode_count_bytes(SnodeNicState *s, uint32_t node, uint64_t n,
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

static void snode_dma_bh(void *opaque)
{
    SnodeNicState *s = opaque;
    uint16_t st;

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
    st = snode_dma_chunk(s);
    if (st != SNODE_ASYNC) {
        snode_dma_complete(s, st);
    }
    /* One chunk per run, so fm traffic (revocations) gets in between. */
    qemu_bh_schedule(s->dma_bh);
}

/* ---------------------------------------------------------------------- */
/* Messages                                                                */

static void snode_msg_done(SnodeNicState *s, uint16_t status)
{
    trace_snode_nic_msg_done(status);
    s->msg_status = (status & 0xff) << R_MSG_STATUS_STATUS_SHIFT;
    if (status != SNODE_ST_SUCCESS) {
        s->stats.msgs_rejected++;
    }
    snode_raise(s, R_INTR_MSG_MASK, SNODE_VEC_ADMIN);
}

static void snode_msg_send(SnodeNicState *s)
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
    if (!snode_fm_request(s, &m, sizeof(m), false, 0, 0, 0)) {
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

static uint16_t snode_msg_deliver(SnodeNicState *s, struct snode_fm_msg *m)
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

/* Finish a request with status; g may carry a GRANT reply. */
static void snode_req_finish(SnodeNicState *s, SnodeReq *r, uint16_t st,
                             const void *pkt, size_t len)
{
    uint32_t r0 = 0;

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
                g->file_offset % SNODE_PAGE) {
                trace_snode_nic_fm_bad_packet(SNODE_FM_GRANT, len,
                                              "bad grant reply");
                st = SNODE_ST_INTERNAL;
            }
        }
        if (st == SNODE_ST_SUCCESS) {
            memcpy(path, g->path, SNODE_FM_PATH_MAX);
            path[SNODE_FM_PATH_MAX] = 0;
            m = snode_peer_map(s, path, g->file_offset + g->len);
            if (!m || g->file_offset + g->len < g->len) {
                st = SNODE_ST_INTERNAL;
            } else {
                g_autofree char *name = g_strdup_printf("snode-att%u",
                                                        r->idx);

                a->host = (uint8_t *)m->ptr + g->file_offset;
                a->win = g_new0(SnodeWin, 1);
                memory_region_init_ram_ptr(&a->win->mr, OBJECT(s), name,
                                           a->len, a->host);
                if (!(a->flags & SNODE_PERM_WRITE)) {
                    memory_region_set_readonly(&a->win->mr, true);
                }
                memory_region_add_subregion_overlap(&s->aperture, a->ap_off,
                                                    &a->win->mr, 1);
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
    uint16_t st = h->status;

    if (!r) {
        trace_snode_nic_fm_bad_packet(h->type, len, "reply to no request");
        return;
    }
    if (st > SNODE_ST_REVOKED) {
        st = SNODE_ST_INTERNAL;
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

static void snode_fm_node_state(SnodeNicState *s,
                                const struct snode_fm_node_state *ns)
{
    uint8_t d[16] = {};

    if (ns->node >= s->max_nodes || ns->state > SNODE_FM_NODE_DEAD) {
        trace_snode_nic_fm_bad_packet(SNODE_FM_NODE_STATE, ns->node,
                                      "bad node or state");
        return;
    }
    if (s->node_state[ns->node] == ns->state &&
        s->node_route[ns->node] == ns->route_port) {
        return;
    }
    s->node_state[ns->node] = ns->state;
    s->node_route[ns->node] = ns->route_port;
    stl_le_p(d, ns->node);
    d[4] = ns->state;
    d[5] = ns->route_port;
    snode_post_event(s, SNODE_EV_NODE_STATE, d);
}

static const uint32_t snode_fm_min_len[] = {
    [SNODE_FM_REVOKE] = SNODE_FM_LEN(struct snode_fm_revoke, reason),
    [SNODE_FM_NODE_STATE] = SNODE_FM_LEN(struct snode_fm_node_state,
                                         route_port),
    [SNODE_FM_PORT_STATE] = SNODE_FM_LEN(struct snode_fm_port_state, ber),
    [SNODE_FM_SENSOR] = SNODE_FM_LEN(struct snode_fm_sensor, power_mw),
    [SNODE_FM_MSG_DELIVER] = SNODE_FM_LEN(struct snode_fm_msg, data),
};

static void snode_fm_packet(SnodeNicState *s, void *pkt, size_t len)
{
    struct snode_fm_hdr *h = pkt;

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
        snode_fm_node_state(s, pkt);
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

static void snode_fm_read(void *opaque)
{
    SnodeNicState *s = opaque;
    uint8_t buf[1024] QEMU_ALIGNED(8);
    unsigned budget;
    ssize_t n;

    for (budget = SNODE_FM_RX_BUDGET; budget && s->fm_fd >= 0; budget--) {
        n = recv(s->fm_fd, buf, sizeof(buf), MSG_DONTWAIT | MSG_TRUNC);
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
            snode_detach(s);
            return;
        }
        if ((size_t)n > sizeof(buf)) {
            trace_snode_nic_fm_bad_packet(0, n, "packet too large");
            continue;
        }
        /* Short (unpadded) packets must not see stale bytes. */
        memset(buf + n, 0, sizeof(buf) - n);
        snode_fm_packet(s, buf, n);
    }
}

/* Every 100 ms: heartbeat, traffic report, request timeouts. */
static void snode_hb_tick(void *opaque)
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
    snode_ev_fabric(s, false);
}

static void snode_fm_lost_bh(void *opaque)
{
    snode_detach(opaque);
}

static bool snode_fm_connect(SnodeNicState *s, Error **errp)
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

/* ---------------------------------------------------------------------- */
/* Registers                                                               */

static bool snode_q_valid(uint64_t base, uint32_t size)
{
    return base && !(base % SNODE_PAGE) && size >= SNODE_QUEUE_MIN &&
           size <= SNODE_QUEUE_MAX && is_power_of_2(size);
}

#define QREG(a)         (s->qreg[((a) - A_ASQ_BASE_LO) / 4])
#define QBASE(lo)       (QREG(lo) | (uint64_t)QREG((lo) + 4) << 32)

static void snode_queues_stop(SnodeNicState *s)
{
    s->status &= ~R_STATUS_ENABLED_MASK;
    s->dma_busy = false;
    QREG(A_ASQ_TAIL) = QREG(A_ACQ_HEAD) = QREG(A_EQ_HEAD) = 0;
    QREG(A_DSQ_TAIL) = QREG(A_DCQ_HEAD) = 0;
    memset(&s->asq, 0, sizeof(s->asq));
    memset(&s->acq, 0, sizeof(s->acq));
    memset(&s->eq, 0, sizeof(s->eq));
    memset(&s->dsq, 0, sizeof(s->dsq));
    memset(&s->dcq, 0, sizeof(s->dcq));
    s->ev_lost = 0;
    snode_backlog_drop(s);
}

static void snode_enable(SnodeNicState *s)
{
    uint64_t asq = QBASE(A_ASQ_BASE_LO), acq = QBASE(A_ACQ_BASE_LO);
    uint64_t eq = QBASE(A_EQ_BASE_LO), dsq = QBASE(A_DSQ_BASE_LO);
    uint64_t dcq = QBASE(A_DCQ_BASE_LO);
    uint32_t asz = QREG(A_ASQ_SIZE), csz = QREG(A_ACQ_SIZE);
    uint32_t esz = QREG(A_EQ_SIZE), dsz = QREG(A_DSQ_SIZE);
    uint32_t dcsz = QREG(A_DCQ_SIZE);

    if (!snode_q_valid(asq, asz) || !snode_q_valid(acq, csz) || csz < asz ||
        !snode_q_valid(eq, esz) ||
        (dsz && (!snode_q_valid(dsq, dsz) || !snode_q_valid(dcq, dcsz)))) {
        trace_snode_nic_bad_queue_config(asz, csz, esz, dsz, dcsz);
        snode_fatal(s, "invalid queue configuration at CTRL.ENABLE");
        return;
    }
    s->asq = (SnodeSq) { .base = asq, .size = asz };
    s->acq = (SnodeCq) { .base = acq, .size = csz, .phase = true };
    s->eq = (SnodeCq) { .base = eq, .size = esz, .phase = true };
    if (dsz) {
        s->dsq = (SnodeSq) { .base = dsq, .size = dsz };
        s->dcq = (SnodeCq) { .base = dcq, .size = dcsz, .phase = true };
    }
    s->ctrl |= R_CTRL_ENABLE_MASK;
    s->status |= R_STATUS_ENABLED_MASK;
}

static void snode_reset(SnodeNicState *s);

/* Write to an index register: ring index, must be < size. */
static bool snode_idx_ok(SnodeNicState *s, hwaddr addr, uint32_t val,
                         uint32_t size)
{
    /* Zeroing the index registers before enabling is harmless: no log. */
    if (!(s->status & R_STATUS_ENABLED_MASK) && val == 0) {
        return false;
    }
    if (!(s->status & R_STATUS_ENABLED_MASK) || val >= size) {
        qemu_log_mask(LOG_GUEST_ERROR, "snode-nic: index register 0x%"
                      HWADDR_PRIx " = %u (queue size %u, %s)\n", addr, val,
                      size,
                      (s->status & R_STATUS_ENABLED_MASK) ? "enabled"
                                                          : "disabled");
        return false;
    }
    return true;
}

static void snode_qreg_write(SnodeNicState *s, hwaddr addr, uint32_t val)
{
    switch (addr) {
    case A_ASQ_TAIL:
        if (snode_idx_ok(s, addr, val, s->asq.size)) {
            QREG(addr) = s->asq.tail = val;
            snode_admin_kick(s);
        }
        break;
    case A_ACQ_HEAD:
        if (snode_idx_ok(s, addr, val, s->acq.size)) {
            QREG(addr) = s->acq.head = val;
            snode_backlog_flush(s);
            snode_admin_kick(s);
        }
        break;
    case A_EQ_HEAD:
        if (snode_idx_ok(s, addr, val, s->eq.size)) {
            QREG(addr) = s->eq.head = val;
            snode_eq_flush_overflow(s);
        }
        break;
    case A_DSQ_TAIL:
        if (snode_idx_ok(s, addr, val, s->dsq.size)) {
            QREG(addr) = s->dsq.tail = val;
            qemu_bh_schedule(s->dma_bh);
        }
        break;
    case A_DCQ_HEAD:
        if (snode_idx_ok(s, addr, val, s->dcq.size)) {
            QREG(addr) = s->dcq.head = val;
            qemu_bh_schedule(s->dma_bh);
        }
        break;
    default:
        if (s->ctrl & R_CTRL_ENABLE_MASK) {
            qemu_log_mask(LOG_GUEST_ERROR, "snode-nic: queue register 0x%"
                          HWADDR_PRIx " written while enabled: ignored\n",
                          addr);
            trace_snode_nic_bad_queue_write(addr, val);
            break;
        }
        QREG(addr) = val;
        break;
    }
}

static uint64_t snode_mmio_read(void *opaque, hwaddr addr, unsigned size)
{
    SnodeNicState *s = opaque;
    uint64_t val = 0;

    switch (addr) {
    case A_MAGIC:
        val = SNODE_MAGIC;
        break;
    case A_VERSION:
        val = SNODE_VERSION;
        break;
    case A_FW_VERSION:
        val = SNODE_FW_VERSION;
        break;
    case A_CAP:
        val = 0x7f;
        break;
    case A_NODE_ID:
        val = s->attached ? s->node_id : SNODE_NODE_NONE;
        break;
    case A_FABRIC_ID:
        val = s->fabric_id;
        break;
    case A_LIMITS0:
        val = s->nports | s->max_nodes << 16;
        break;
    case A_LIMITS1:
        val = s->att_entries | s->export_entries << 16;
        break;
    case A_APERTURE_SIZE_LO:
        val = (uint32_t)s->aperture_size;
        break;
    case A_APERTURE_SIZE_HI:
        val = s->aperture_size >> 32;
        break;
    case A_POOL_SIZE_LO:
        val = (uint32_t)s->pool_size;
        break;
    case A_POOL_SIZE_HI:
        val = s->pool_size >> 32;
        break;
    case A_SCRATCH:
        val = s->scratch;
        break;
    case A_LIMITS2:
        val = s->endpoints | (SNODE_MAX_DMA_LEN / KiB) << 16;
        break;
    case A_CTRL:
        val = s->ctrl;
        break;
    case A_STATUS:
        val = s->status;
        break;
    case A_INTR_CAUSE:
        val = s->intr_cause;
        break;
    case A_INTR_MASK:
        val = s->intr_mask;
        break;
    case A_ASQ_BASE_LO ... A_DCQ_HEAD:
        val = QREG(addr);
        break;
    case A_TEMP:
        val = (uint32_t)s->temp;
        break;
    case A_TEMP_MAX:
        val = (uint32_t)s->temp_max;
        break;
    case A_TEMP_CRIT:
        val = (uint32_t)s->temp_crit;
        break;
    case A_POWER:
        val = s->power;
        break;
    case A_POWER_MAX:
        val = s->power_max;
        break;
    case A_SENSOR_ALARM:
        val = s->sensor_alarm;
        break;
    case A_MSG_DST:
        val = s->msg_dst;
        break;
    case A_MSG_NODE:
        val = s->msg_node;
        break;
    case A_MSG_KEY_LO:
        val = s->msg_key_lo;
        break;
    case A_MSG_KEY_HI:
        val = s->msg_key_hi;
        break;
    case A_MSG_LEN:
        val = s->msg_len;
        break;
    case A_MSG_SEND:
    case A_EP_HEAD:
        break;
    case A_MSG_STATUS:
        val = s->msg_status;
        break;
    case A_MSG_DATA ... SNODE_MSG_DATA_END - 4:
        val = ldl_le_p(s->msg_data + (addr - A_MSG_DATA));
        break;
    default:
        qemu_log_mask(LOG_GUEST_ERROR, "snode-nic: read of unknown register "
                      "0x%" HWADDR_PRIx "\n", addr);
        break;
    }
    trace_snode_nic_mmio_read(addr, val, size);
    return val;
}

static void snode_mmio_write(void *opaque, hwaddr addr, uint64_t val64,
                             unsigned size)
{
    SnodeNicState *s = opaque;
    uint32_t val = val64;

    trace_snode_nic_mmio_write(addr, val64, size);
    switch (addr) {
    case A_SCRATCH:
        s->scratch = val;
        break;
    case A_CTRL:
        if (val & ~(R_CTRL_ENABLE_MASK | R_CTRL_RESET_MASK)) {
            qemu_log_mask(LOG_GUEST_ERROR, "snode-nic: CTRL reserved bits 0x%x"
                          "\n", val);
        }
        if (val & R_CTRL_RESET_MASK) {
            snode_reset(s);
            break;
        }
        if ((val & R_CTRL_ENABLE_MASK) && !(s->ctrl & R_CTRL_ENABLE_MASK)) {
            if (s->status & R_STATUS_FATAL_MASK) {
                qemu_log_mask(LOG_GUEST_ERROR, "snode-nic: CTRL.ENABLE while "
                              "FATAL: reset first\n");
                break;
            }
            snode_enable(s);
            snode_admin_kick(s);
        } else if (!(val & R_CTRL_ENABLE_MASK) &&
                   (s->ctrl & R_CTRL_ENABLE_MASK)) {
            s->ctrl &= ~R_CTRL_ENABLE_MASK;
            snode_queues_stop(s);
        }
        break;
    case A_INTR_CAUSE:
        s->intr_cause &= ~(val & SNODE_INTR_ALL);
        snode_update_intx(s);
        break;
    case A_INTR_MASK:
        s->intr_mask = val & SNODE_INTR_ALL;
        snode_update_intx(s);
        break;
    case A_ASQ_BASE_LO ... A_DCQ_HEAD:
        snode_qreg_write(s, addr, val);
        break;
    case A_TEMP_MAX:
        s->temp_max = val;
        snode_sensor_eval(s, true);
        break;
    case A_TEMP_CRIT:
        s->temp_crit = val;
        snode_sensor_eval(s, true);
        break;
    case A_POWER_MAX:
        s->power_max = val;
        snode_sensor_eval(s, true);
        break;
    case A_SENSOR_ALARM:
        s->sensor_alarm &= ~val;
        break;
    case A_MSG_DST:
        s->msg_dst = val & R_MSG_DST_EP_MASK;
        break;
    case A_MSG_NODE:
        s->msg_node = val;
        break;
    case A_MSG_KEY_LO:
        s->msg_key_lo = val;
        break;
    case A_MSG_KEY_HI:
        s->msg_key_hi = val;
        break;
    case A_MSG_LEN:
        s->msg_len = val & (R_MSG_LEN_LEN_MASK | R_MSG_LEN_SRC_EP_MASK);
        break;
    case A_MSG_SEND:
        if (val == 1) {
            snode_msg_send(s);
        } else {
            qemu_log_mask(LOG_GUEST_ERROR, "snode-nic: MSG_SEND = 0x%x\n", val);
        }
        break;
    case A_EP_HEAD:
        snode_ep_head(s, FIELD_EX32(val, EP_HEAD, EP),
                      FIELD_EX32(val, EP_HEAD, INDEX));
        break;
    case A_MSG_DATA ... SNODE_MSG_DATA_END - 4:
        stl_le_p(s->msg_data + (addr - A_MSG_DATA), val);
        break;
    default:
        qemu_log_mask(LOG_GUEST_ERROR, "snode-nic: write 0x%x to %s register "
                      "0x%" HWADDR_PRIx "\n", val,
                      addr < SNODE_MSIX_TABLE ? "read-only or unknown" :
                      "unknown", addr);
        break;
    }
}

static const MemoryRegionOps snode_mmio_ops = {
    .read = snode_mmio_read,
    .write = snode_mmio_write,
    .endianness = DEVICE_LITTLE_ENDIAN,
    .valid = { .min_access_size = 4, .max_access_size = 8 },
    .impl = { .min_access_size = 4, .max_access_size = 4 },
};

/* ---------------------------------------------------------------------- */
/* Reset, realize, exit                                                    */

static void snode_reset(SnodeNicState *s)
{
    SnodeReq *r, *tmp;
    unsigned i;

    trace_snode_nic_reset(s->powered_on);
    /* Windows first: no access may reach a peer after the reset. */
    for (i = 0; i < s->att_entries; i++) {
        snode_att_invalidate(s, i, true);
        s->att[i].state = ATT_FREE;
        s->att[i].revoke_reason = 0;
    }
    QTAILQ_FOREACH_SAFE(r, &s->reqs, next, tmp) {
        snode_req_free(s, r);   /* late replies are ignored */
    }
    memset(s->exp, 0, sizeof(*s->exp) * s->export_entries);
    for (i = 0; i < s->endpoints; i++) {
        snode_ep_clear(&s->ep[i]);
    }
    if (s->powered_on && s->fm_fd >= 0) {
        struct snode_fm_reset rst = {};

        snode_fm_simple(s, SNODE_FM_RESET, &rst, sizeof(rst));
    }
    if (s->powered_on) {
        s->stats.resets++;
    }
    s->powered_on = true;

    snode_queues_stop(s);
    memset(s->qreg, 0, sizeof(s->qreg));
    s->scratch = 0;
    s->ctrl = 0;
    s->status = R_STATUS_READY_MASK |
                (s->attached ? R_STATUS_ATTACHED_MASK : 0);
    s->intr_cause = 0;
    s->intr_mask = SNODE_INTR_ALL;
    s->temp_max = 85000;
    s->temp_crit = 100000;
    s->power_max = 25000;
    s->sensor_alarm = 0;
    s->sensor_above = 0;
    snode_sensor_eval(s, false);
    s->ev_seq = 0;
    s->hole_last_ms = 0;
    s->hole_suppressed = 0;
    s->msg_dst = s->msg_node = s->msg_key_lo = s->msg_key_hi = 0;
    s->msg_len = s->msg_status = 0;
    memset(s->msg_data, 0, sizeof(s->msg_data));
    pci_set_irq(PCI_DEVICE(s), 0);
}

static void snode_qdev_reset(DeviceState *dev)
{
    snode_reset(SNODE_NIC(dev));
}

static void snode_config_write(PCIDevice *pdev, uint32_t addr, uint32_t val,
                               int len)
{
    pci_default_write_config(pdev, addr, val, len);
    pcie_cap_flr_write_config(pdev, addr, val, len);
    /* MSI-X may have been switched on or off: recompute INTx. */
    snode_update_intx(SNODE_NIC(pdev));
}

static void snode_realize(PCIDevice *pdev, Error **errp)
{
    SnodeNicState *s = SNODE_NIC(pdev);
    uint8_t *conf = pdev->config;
    unsigned i;

    s->fm_fd = -1;
    QTAILQ_INIT(&s->reqs);
    QSIMPLEQ_INIT(&s->backlog);
    if (!is_power_of_2(s->aperture_size) ||
        s->aperture_size < SNODE_ATT_ALIGN || s->aperture_size > 1ULL << 40) {
        error_setg(errp, "snode-nic: aperture=%" PRIu64 " must be a power of 2"
                   " between 2 MiB and 1 TiB", s->aperture_size);
        return;
    }
    if (!s->att_entries || s->att_entries > 0xffff || !s->export_entries ||
        s->export_entries > 0xffff || !s->endpoints ||
        s->endpoints > 0xffff) {
        error_setg(errp, "snode-nic: att-entries, export-entries and endpoints"
                   " must be 1..65535");
        return;
    }
    memset(s->node_route, 0xff, sizeof(s->node_route));
    s->maps = g_hash_table_new_full(g_str_hash, g_str_equal, g_free,
                                    snode_map_drop);
    s->old_maps = g_ptr_array_new_with_free_func(snode_map_drop);
    s->attach_ns = qemu_clock_get_ns(QEMU_CLOCK_REALTIME);
    s->temp = SNODE_DEFAULT_TEMP;
    s->power = SNODE_DEFAULT_POWER;

    if (s->fm_path) {
        if (!snode_fm_connect(s, errp)) {
            goto err_maps;
        }
    } else {
        s->node_id = SNODE_NODE_NONE;
        s->nports = 2;
        s->max_nodes = SNODE_MAX_NODES;
        snprintf(s->serial, sizeof(s->serial), "SNODE-DETACHED");
        if (s->pool_prop < SNODE_PAGE || !is_power_of_2(s->pool_prop)) {
            error_setg(errp, "snode-nic: pool-size=%" PRIu64 " must be a power"
                       " of 2 >= 4 KiB", s->pool_prop);
            goto err_maps;
        }
        s->pool = g_new0(SnodeMap, 1);
        s->pool->size = s->pool_size = s->pool_prop;
        s->pool->ptr = mmap(NULL, s->pool_size, PROT_READ | PROT_WRITE,
                            MAP_SHARED | MAP_ANONYMOUS, -1, 0);
        if (s->pool->ptr == MAP_FAILED) {
            error_setg_errno(errp, errno, "snode-nic: cannot allocate the "
                             "pool");
            g_free(s->pool);
            s->pool = NULL;
            goto err_maps;
        }
    }

    s->att = g_new0(SnodeAtt, s->att_entries);
    s->exp = g_new0(SnodeExport, s->export_entries);
    s->ep = g_new0(SnodeEp, s->endpoints);

    pci_set_word(conf + PCI_SUBSYSTEM_VENDOR_ID, SNODE_SUBSYS_VENDOR_ID);
    pci_set_word(conf + PCI_SUBSYSTEM_ID, SNODE_SUBSYS_ID);
    conf[PCI_INTERRUPT_PIN] = 1;
    if (pci_add_capability(pdev, PCI_CAP_ID_PM, 0x60, PCI_PM_SIZEOF,
                           errp) < 0) {
        goto err_tables;
    }
    pci_set_word(conf + 0x60 + PCI_PM_PMC, PCI_PM_CAP_VER_1_2);
    pci_set_word(conf + 0x60 + PCI_PM_CTRL, PCI_PM_CTRL_NO_SOFT_RESET);
    pci_set_word(pdev->wmask + 0x60 + PCI_PM_CTRL, PCI_PM_CTRL_STATE_MASK);
    if (pcie_endpoint_cap_init(pdev, 0x80) < 0) {
        error_setg(errp, "snode-nic: cannot add the PCIe capability");
        goto err_tables;
    }
    pcie_cap_flr_init(pdev);

    memory_region_init_io(&s->bar0, OBJECT(s), &snode_mmio_ops, s,
                          "snode-regs", SNODE_BAR0_SIZE);
    pci_register_bar(pdev, 0, PCI_BASE_ADDRESS_SPACE_MEMORY, &s->bar0);
    if (msix_init(pdev, SNODE_MSIX_VECTORS, &s->bar0, 0, SNODE_MSIX_TABLE,
                  &s->bar0, 0, SNODE_MSIX_PBA, 0, errp) < 0) {
        goto err_pcie;
    }
    for (i = 0; i < SNODE_MSIX_VECTORS; i++) {
        msix_vector_use(pdev, i);
    }

    memory_region_init(&s->aperture, OBJECT(s), "snode-aperture",
                       s->aperture_size);
    memory_region_init_io(&s->hole, OBJECT(s), &snode_hole_ops, s,
                          "snode-hole", s->aperture_size);
    memory_region_add_subregion_overlap(&s->aperture, 0, &s->hole, 0);
    pci_register_bar(pdev, 2, PCI_BASE_ADDRESS_SPACE_MEMORY |
                     PCI_BASE_ADDRESS_MEM_TYPE_64 |
                     PCI_BASE_ADDRESS_MEM_PREFETCH, &s->aperture);
    memory_region_init_ram_ptr(&s->pool_mr, OBJECT(s), "snode-pool",
                               s->pool_size, s->pool->ptr);
    pci_register_bar(pdev, 4, PCI_BASE_ADDRESS_SPACE_MEMORY |
                     PCI_BASE_ADDRESS_MEM_TYPE_64 |
                     PCI_BASE_ADDRESS_MEM_PREFETCH, &s->pool_mr);

    s->admin_bh = qemu_bh_new(snode_admin_bh, s);
    s->dma_bh = qemu_bh_new(snode_dma_bh, s);
    s->fm_lost_bh = qemu_bh_new(snode_fm_lost_bh, s);
    s->hb_timer = timer_new_ms(QEMU_CLOCK_REALTIME, snode_hb_tick, s);
    if (s->fm_fd >= 0) {
        qemu_socket_set_nonblock(s->fm_fd);
        qemu_set_fd_handler(s->fm_fd, snode_fm_read, NULL, s);
        timer_mod(s->hb_timer, qemu_clock_get_ms(QEMU_CLOCK_REALTIME) +
                  SNODE_FM_HEARTBEAT_MS);
    }
    trace_snode_nic_realize(s->node_id, s->pool_size, s->aperture_size,
                            s->attached);
    return;

err_pcie:
    pcie_cap_exit(pdev);
err_tables:
    g_free(s->ep);
    g_free(s->exp);
    g_free(s->att);
    if (s->pool) {
        snode_map_drop(s->pool);
        s->pool = NULL;
    }
    if (s->fm_fd >= 0) {
        close(s->fm_fd);
        s->fm_fd = -1;
    }
err_maps:
    g_hash_table_destroy(s->maps);
    g_ptr_array_free(s->old_maps, true);
}

static void snode_exit(PCIDevice *pdev)
{
    SnodeNicState *s = SNODE_NIC(pdev);
    SnodeReq *r, *tmp;
    unsigned i;

    timer_free(s->hb_timer);
    qemu_bh_delete(s->fm_lost_bh);
    qemu_bh_delete(s->dma_bh);
    qemu_bh_delete(s->admin_bh);
    if (s->fm_fd >= 0) {
        qemu_set_fd_handler(s->fm_fd, NULL, NULL, NULL);
    }
    for (i = 0; i < s->att_entries; i++) {
        snode_att_invalidate(s, i, true);
    }
    if (s->fm_fd >= 0) {
        close(s->fm_fd);
        s->fm_fd = -1;
    }
    QTAILQ_FOREACH_SAFE(r, &s->reqs, next, tmp) {
        snode_req_free(s, r);
    }
    snode_backlog_drop(s);
    for (i = 0; i < s->endpoints; i++) {
        snode_ep_clear(&s->ep[i]);
    }
    g_free(s->ep);
    g_free(s->exp);
    g_free(s->att);
    msix_uninit(pdev, &s->bar0, &s->bar0);
    pcie_cap_exit(pdev);
    /* BARs are already unmapped; the pool MR dies with the device. */
    snode_map_drop(s->pool);
    s->pool = NULL;
    g_hash_table_destroy(s->maps);
    g_ptr_array_free(s->old_maps, true);
}

static Property snode_props[] = {
    DEFINE_PROP_STRING("fm", SnodeNicState, fm_path),
    DEFINE_PROP_UINT32("node", SnodeNicState, node_prop, SNODE_NODE_NONE),
    DEFINE_PROP_SIZE("aperture", SnodeNicState, aperture_size, 4 * GiB),
    DEFINE_PROP_SIZE("pool-size", SnodeNicState, pool_prop, 64 * MiB),
    DEFINE_PROP_UINT32("att-entries", SnodeNicState, att_entries, 256),
    DEFINE_PROP_UINT32("export-entries", SnodeNicState, export_entries, 256),
    DEFINE_PROP_UINT32("endpoints", SnodeNicState, endpoints, 64),
    DEFINE_PROP_END_OF_LIST(),
};

static const VMStateDescription snode_vmstate = {
    .name = TYPE_SNODE_NIC,
    .unmigratable = 1,
};

static void snode_class_init(ObjectClass *klass, void *data)
{
    DeviceClass *dc = DEVICE_CLASS(klass);
    PCIDeviceClass *pc = PCI_DEVICE_CLASS(klass);

    pc->realize = snode_realize;
    pc->exit = snode_exit;
    pc->config_write = snode_config_write;
    pc->vendor_id = SNODE_VENDOR_ID;
    pc->device_id = SNODE_DEVICE_ID;
    pc->revision = SNODE_REVISION;
    pc->class_id = SNODE_CLASS;
    dc->desc = "snode supernode interconnect NIC";
    dc->reset = snode_qdev_reset;
    dc->vmsd = &snode_vmstate;
    device_class_set_props(dc, snode_props);
    set_bit(DEVICE_CATEGORY_NETWORK, dc->categories);
}

static const TypeInfo snode_info = {
    .name = TYPE_SNODE_NIC,
    .parent = TYPE_PCI_DEVICE,
    .instance_size = sizeof(SnodeNicState),
    .class_init = snode_class_init,
    .interfaces = (InterfaceInfo[]) {
        { INTERFACE_PCIE_DEVICE },
        { }
    },
};

static void snode_register_types(void)
{
    type_register_static(&snode_info);
}

type_init(snode_register_types)
