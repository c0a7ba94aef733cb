/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * snode-nic: private header of the device model, shared by its files:
 *
 *   pci.c     PCI function, BAR0 registers, interrupts, queues on/off,
 *             realize/exit and reset
 *   admin.c   admin queue and the admin command table
 *   event.c   event queue and sensors
 *   att.c     memory files, ATT windows and the aperture hole, access
 *             violations, accounting of CPU loads and stores through windows
 *   dma.c     DMA copy engine
 *   msg.c     message send and delivery, endpoints
 *   fabric.c  the fabric manager connection
 *   peer.c    direct links to other devices (decision 0039)
 *
 * The hardware contract (register map, in-memory structures) is in
 * snode-nic.h; this header holds the device state and what the files call
 * in each other.
 *
 * Threading: everything runs under the BQL (MMIO from vCPUs, bottom halves,
 * timers and the fm fd handler in the main loop). Peer files are mapped once
 * and stay mapped until the device is destroyed, so a vCPU still holding a
 * stale TLB entry for a just-removed read-write window never touches
 * unmapped memory. A read-only window's own mapping belongs to its RAMBlock,
 * which QEMU unmaps only after an RCU grace period, as for any unplugged RAM.
 */
#ifndef HW_MISC_SNODE_NIC_INT_H
#define HW_MISC_SNODE_NIC_INT_H

#include "qemu/queue.h"
#include "qemu/timer.h"
#include "hw/pci/pci.h"
#include "exec/memory.h"
#include "qom/object.h"

#include "snode-nic.h"
#include "snode-fm-proto.h"

OBJECT_DECLARE_SIMPLE_TYPE(SnodeNicState, SNODE_NIC)

#define TYPE_SNODE_APERTURE_IOMMU "snode-aperture-iommu"

#define SNODE_HELLO_TIMEOUT_MS      5000
#define SNODE_FM_TIMEOUT_MS         2000
#define SNODE_DMA_CHUNK             (256 * KiB)
#define SNODE_MAX_PENDING           1024
#define SNODE_FM_RX_BUDGET          64
/* the largest packet from the fm: TOPO_NAMES or a host export's GRANT */
#define SNODE_FM_PKT_MAX \
    MAX_CONST(sizeof(struct snode_fm_topo_names) + \
              2 * SNODE_TOPO_MAX_NAMES * sizeof(struct snode_fm_topo_ent), \
              sizeof(struct snode_fm_grant_reply) + \
              SNODE_FM_MAX_SEGS * sizeof(struct snode_fm_seg))
/* extents of one host export (IDENTIFY max_host_extents) */
#define SNODE_MAX_HOST_EXTENTS      SNODE_FM_MAX_SEGS
#define SNODE_DEFAULT_TEMP          45000
#define SNODE_DEFAULT_POWER         12000
/* window accounting (decision 0035): a guest page, the TLB's granule */
#define SNODE_ACCT_PAGE             4096
#define SNODE_ACCT_PERIOD_US        10000

/* Minimum packet length: up to the last field, tail padding not required. */
#define SNODE_FM_LEN(type, field)   (offsetof(type, field) + \
                                     sizeof(((type *)0)->field))
#define SNODE_GRANT_REPLY_LEN \
    SNODE_FM_LEN(struct snode_fm_grant_reply, path)
#define SNODE_HELLO_REPLY_LEN \
    SNODE_FM_LEN(struct snode_fm_hello_reply, serial)

enum { ATT_FREE, ATT_PENDING, ATT_VALID };
enum { EXP_FREE, EXP_PENDING_SET, EXP_VALID, EXP_PENDING_CLEAR };

/*
 * A window: an object of its own that owns its MemoryRegion. A FlatView
 * that still holds the region references its owner, and an old FlatView
 * can outlive the window by far: virtio's address-space caches keep the
 * view they were built from until their next rebuild. With the device as
 * the owner, the window's memory was freed one RCU grace period after the
 * unmap, and such a view's destruction later read it (a crash in
 * object_unref() from flatview_destroy(), as soon as a guest had a virtio
 * device). Now the last reference, ours or a view's, frees it.
 */
#define TYPE_SNODE_WIN "snode-win"
OBJECT_DECLARE_SIMPLE_TYPE(SnodeWin, SNODE_WIN)

struct SnodeWin {
    Object parent_obj;
    MemoryRegion mr;
    struct SnodeNicState *s;    /* read-only windows: for the write callback */
    unsigned idx;
    uint64_t ap_off;
    bool logged;                /* dirty logging on: stores are told apart */
};

/* ACCESS_VIOLATION rate limit: one event per source per millisecond. */
typedef struct SnodeViolRl {
    int64_t last_ms;
    uint32_t suppressed;        /* since the last event of this source */
} SnodeViolRl;

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
    SnodeViolRl viol;           /* stores into a read-only window */
} SnodeAtt;

typedef struct SnodeExport {
    uint8_t state;
    uint8_t flags;              /* HOST: off is 0, len the extents' sum */
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
    int64_t line_free_ns;           /* QEMU_CLOCK_VIRTUAL: DMA pacing */
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
    bool peer;          /* a message on the direct link to node idx */
    int64_t deadline;
} SnodeReq;

typedef struct SnodePeer SnodePeer;

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

    uint32_t acct_period_us;    /* window accounting period, 0: off */
    /*
     * Host exports (decision 0037): the file backing the machine's RAM
     * (memory-backend-file, share=on); NULL: CAP.HOST_EXPORT is 0.
     * ram_dev/ram_ino identify it, so that an extent is accepted only
     * where guest-physical memory is that file.
     */
    char *ram_path;
    dev_t ram_dev;
    ino_t ram_ino;

    MemoryRegion bar0;
    MemoryRegion aperture;      /* windows over the hole */
    MemoryRegion hole;
    /*
     * Window accounting (decision 0035, att.c): BAR2 is ap_iommu, which
     * maps each page 1:1 onto the aperture container, itself placed in
     * system memory at ap_hidden, above any guest-physical address, so that
     * the CPU TLB sees every first access of a page in a period.
     * acct_touched: one bit per aperture page filled into a TLB since the
     * last tick, set by vCPU threads without the BQL (atomic), read and
     * cleared by the tick; acct_pending: pages touched and clean at the
     * last tick (BQL); acct_armed: the tick is pending (atomic).
     */
    IOMMUMemoryRegion ap_iommu;
    uint64_t ap_hidden;
    unsigned long *acct_touched;
    unsigned long *acct_pending;
    int acct_armed;
    QEMUTimer *acct_timer;
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
    /* direct links to other devices by node (peer.c); NULL: none */
    SnodePeer *peer[SNODE_MAX_NODES];
    bool loopback;              /* turn messages to node_id around here */
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
    QEMUTimer *dma_pace_timer;  /* the DMA engine waits for a busy link */
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
    /* topology (decision 0030): per node, and the fm's names */
    SnodeNodeTopo node_topo[SNODE_MAX_NODES];
    SnodeTopoName topo_name[2][SNODE_TOPO_MAX_NAMES];
    uint32_t topo_count[2];
    SnodePort port[SNODE_MAX_PORTS];
    SnodeViolRl hole_viol;

    /* messages */
    uint32_t msg_dst, msg_node, msg_key_lo, msg_key_hi, msg_len;
    uint32_t msg_status;
    uint8_t msg_data[SNODE_MSG_MAX];

    SnodeStats stats;
    bool powered_on;
};

/* A handler's status when the command completes later (from the fm). */
#define SNODE_ASYNC     0xffff

/* CAP: everything section 2 defines; HOST_EXPORT with a RAM file */
static inline uint32_t snode_cap(SnodeNicState *s)
{
    uint32_t cap = 0;

    cap = FIELD_DP32(cap, CAP, ATT, 1);
    cap = FIELD_DP32(cap, CAP, EXPORT, 1);
    cap = FIELD_DP32(cap, CAP, DMA, 1);
    cap = FIELD_DP32(cap, CAP, MSG, 1);
    cap = FIELD_DP32(cap, CAP, SENSORS, 1);
    cap = FIELD_DP32(cap, CAP, COHERENT, 1);
    cap = FIELD_DP32(cap, CAP, FLR, 1);
    cap = FIELD_DP32(cap, CAP, EV_TOPO, 1);
    cap = FIELD_DP32(cap, CAP, HOST_EXPORT, s->ram_path != NULL);
    return cap;
}

static inline bool snode_cq_full(SnodeCq *q)
{
    return (q->tail + 1) % q->size == q->head;
}

/* pci.c */
void snode_update_intx(SnodeNicState *s);
void snode_raise(SnodeNicState *s, uint32_t cause, unsigned vector);
void snode_fatal(SnodeNicState *s, const char *why);

/* admin.c */
void snode_admin_bh(void *opaque);
void snode_admin_kick(SnodeNicState *s);
void snode_complete(SnodeNicState *s, uint16_t cid, uint16_t status,
                    uint32_t r0, uint32_t r1);
void snode_backlog_flush(SnodeNicState *s);
void snode_backlog_drop(SnodeNicState *s);

/* event.c */
void snode_post_event(SnodeNicState *s, uint16_t type, const uint8_t *data);
void snode_eq_flush_overflow(SnodeNicState *s);
void snode_ev_window_revoked(SnodeNicState *s, unsigned idx);
void snode_ev_fabric(SnodeNicState *s, bool attached);
void snode_ev_link_state(SnodeNicState *s, unsigned p);
void snode_sensor_eval(SnodeNicState *s, bool post);

/* att.c */
extern const MemoryRegionOps snode_hole_ops;
SnodeMap *snode_map_file(const char *path, uint64_t min_size, Error **errp);
SnodeMap *snode_peer_map(SnodeNicState *s, const char *path, uint64_t need);
void snode_map_drop(gpointer p);
void snode_att_invalidate(SnodeNicState *s, unsigned idx, bool release);
void snode_att_revoke(SnodeNicState *s, unsigned idx, uint32_t reason);
int snode_att_lookup(SnodeNicState *s, uint64_t off, uint64_t len);
bool snode_acct_init(SnodeNicState *s, Error **errp);
void snode_acct_exit(SnodeNicState *s);
bool snode_att_map(SnodeNicState *s, unsigned idx, uint8_t *host,
                   const char *path, uint64_t file_off);
bool snode_att_map_segs(SnodeNicState *s, unsigned idx, const char *path,
                        const struct snode_fm_seg *seg, uint32_t nseg);

/* dma.c */
void snode_dma_bh(void *opaque);
int snode_route_port(SnodeNicState *s, uint32_t node);
void snode_topo_clear(SnodeNicState *s);
void snode_count_bytes(SnodeNicState *s, uint32_t node, uint64_t n, bool tx);

/* msg.c */
void snode_msg_send(SnodeNicState *s);
void snode_msg_done(SnodeNicState *s, uint16_t status);
uint16_t snode_msg_deliver(SnodeNicState *s, struct snode_fm_msg *m);
void snode_ep_clear(SnodeEp *ep);
uint16_t snode_ep_head(SnodeNicState *s, uint32_t id, uint32_t idx);

/* fabric.c */
bool snode_fm_connect(SnodeNicState *s, Error **errp);
void snode_fm_read(void *opaque);
void snode_fm_lost_bh(void *opaque);
void snode_hb_tick(void *opaque);
SnodeReq *snode_fm_request(SnodeNicState *s, void *pkt, size_t len,
                           bool admin, uint16_t cid, uint32_t idx,
                           uint32_t arg);
void snode_fm_simple(SnodeNicState *s, uint16_t type, void *pkt, size_t len);
void snode_req_free(SnodeNicState *s, SnodeReq *r);
void snode_req_finish(SnodeNicState *s, SnodeReq *r, uint16_t st,
                      const void *pkt, size_t len);

/* peer.c */
bool snode_peer_send(SnodeNicState *s, struct snode_fm_msg *m);
void snode_peer_packet(SnodeNicState *s, const struct snode_fm_peer *pp,
                       int fd);
void snode_peers_close(SnodeNicState *s, uint16_t st, const char *why);

#endif /* HW_MISC_SNODE_NIC_INT_H */
