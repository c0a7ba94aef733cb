// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * snode-nic: memory files, the requester ATT (windows as RAM regions over the
 * exporter's file inside the BAR2 aperture) and the aperture hole, which
 * reads all-ones and reports access violations. A read-only window is a
 * ROM device over the exporter's file: loads run at memory speed, stores
 * come to snode_win_ro_write() and are violations
 * (Documentation/decisions/0022-read-only-window-stores.md).
 *
 * Window accounting (Documentation/decisions/0035-window-accounting.md):
 * loads and stores through windows run at memory speed and never reach the
 * device, so the device learns of them at TLB fills. BAR2 is an IOMMU
 * region whose translate() maps each aperture page 1:1 onto the aperture
 * container and marks the page touched; a tick one period after the first
 * touch counts every touched page of a window as 4 KiB on the port routing
 * to the window's node (tx if the page was written in the period, which
 * dirty logging of the window's RAM tells, else rx; see snode_acct_window()
 * for why a clean page waits one period), then has every vCPU
 * flush its TLB so that the next period sees the pages again. Mapped RAM
 * stays mapped: loads, stores and atomics go straight to the file.
 */

#include "qemu/osdep.h"
#include "qemu/rcu.h"
#include "qemu/bitmap.h"
#include "qemu/host-utils.h"
#include "qapi/error.h"
#include "exec/address-spaces.h"
#include <sys/mman.h>

#include "snode-nic-int.h"
#include "trace.h"

/* ---------------------------------------------------------------------- */
/* Memory files                                                            */

static void snode_map_free_rcu(SnodeMap *m)
{
    munmap(m->ptr, m->size);
    g_free(m);
}

void snode_map_drop(gpointer p)
{
    SnodeMap *m = p;

    call_rcu(m, snode_map_free_rcu, rcu);
}

SnodeMap *snode_map_file(const char *path, uint64_t min_size,
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
SnodeMap *snode_peer_map(SnodeNicState *s, const char *path,
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
/* Access violations                                                       */

/* Count a violating access; post an event unless rl posted one this ms. */
static void snode_violation(SnodeNicState *s, SnodeViolRl *rl, uint64_t off,
                            bool write)
{
    int64_t now = qemu_clock_get_ms(QEMU_CLOCK_REALTIME);
    uint8_t d[16] = {};

    s->stats.access_violations++;
    if (now == rl->last_ms) {
        rl->suppressed++;
        return;
    }
    trace_snode_nic_access_violation(off, write, rl->suppressed);
    rl->last_ms = now;
    stq_le_p(d, off);
    d[8] = write;
    stl_le_p(d + 12, rl->suppressed);
    rl->suppressed = 0;
    snode_post_event(s, SNODE_EV_ACCESS_VIOLATION, d);
}

/* ---------------------------------------------------------------------- */
/* ATT windows                                                             */

/* Only for callers other than the TLB, which reads ROMD memory directly. */
static uint64_t snode_win_ro_read(void *opaque, hwaddr addr, unsigned size)
{
    SnodeWin *w = opaque;

    return ldn_le_p((uint8_t *)memory_region_get_ram_ptr(&w->mr) + addr,
                    size);
}

/* A store into a read-only window: dropped, and a violation. */
static void snode_win_ro_write(void *opaque, hwaddr addr, uint64_t val,
                               unsigned size)
{
    SnodeWin *w = opaque;
    SnodeNicState *s = w->s;
    SnodeAtt *a = &s->att[w->idx];

    /* a vCPU with a stale TLB entry of a removed window: a hole access */
    snode_violation(s, a->win == w ? &a->viol : &s->hole_viol,
                    w->ap_off + addr, true);
}

static const MemoryRegionOps snode_win_ro_ops = {
    .read = snode_win_ro_read,
    .write = snode_win_ro_write,
    .endianness = DEVICE_LITTLE_ENDIAN,
    /* a misaligned store is a violation too, not an invalid access */
    .valid = { .min_access_size = 1, .max_access_size = 8,
               .unaligned = true },
    .impl = { .min_access_size = 1, .max_access_size = 8 },
};

/*
 * Map the runs @seg of the file @path back to back over @ram, which QEMU
 * allocated for a RAMBlock: QEMU's munmap() of the block later unmaps them.
 * A run past the end of the file would raise SIGBUS in a vCPU: refused.
 */
static bool snode_map_segs(void *ram, const char *path,
                           const struct snode_fm_seg *seg, uint32_t nseg)
{
    uint64_t pos = 0;
    struct stat st;
    uint32_t i;
    int fd;

    fd = open(path, O_RDWR);
    if (fd < 0 || fstat(fd, &st) < 0) {
        trace_snode_nic_map_failed(path, strerror(errno));
        goto err;
    }
    for (i = 0; i < nseg; i++) {
        if (seg[i].offset > (uint64_t)st.st_size ||
            seg[i].len > (uint64_t)st.st_size - seg[i].offset) {
            trace_snode_nic_map_failed(path, "run beyond the end of the file");
            goto err;
        }
        if (mmap((uint8_t *)ram + pos, seg[i].len, PROT_READ | PROT_WRITE,
                 MAP_SHARED | MAP_FIXED, fd, seg[i].offset) == MAP_FAILED) {
            trace_snode_nic_map_failed(path, strerror(errno));
            goto err;
        }
        pos += seg[i].len;
    }
    close(fd);
    return true;

err:
    if (fd >= 0) {
        close(fd);
    }
    return false;
}

/*
 * A read-only window: a ROM device (reads from its RAM, writes to the ops)
 * whose RAM is the exporter's file. QEMU allocates a ROM device's RAM
 * itself; the file's runs are mapped over that allocation before the
 * region is visible, and QEMU's munmap() of the RAMBlock later unmaps them.
 * A read-write window over several runs (a host export) is plain RAM
 * mapped the same way, so that the window stays one region and one
 * RAMBlock however many runs it has (decision 0037).
 */
static bool snode_win_init_file(SnodeNicState *s, SnodeWin *w,
                                const char *name, uint64_t len, bool ro,
                                const char *path,
                                const struct snode_fm_seg *seg, uint32_t nseg)
{
    Error *err = NULL;

    if (ro) {
        memory_region_init_rom_device_nomigrate(&w->mr, OBJECT(w),
                                                &snode_win_ro_ops, w, name,
                                                len, &err);
    } else {
        memory_region_init_ram_nomigrate(&w->mr, OBJECT(w), name, len, &err);
    }
    if (err) {
        trace_snode_nic_map_failed(path, error_get_pretty(err));
        error_free(err);
        return false;
    }
    if (!snode_map_segs(memory_region_get_ram_ptr(&w->mr), path, seg, nseg)) {
        object_unparent(OBJECT(&w->mr));
        return false;
    }
    return true;
}

/* Make window @w of ATT entry idx (ap_off, len, flags set) visible. */
static void snode_att_publish(SnodeNicState *s, unsigned idx, SnodeWin *w,
                              uint8_t *host)
{
    SnodeAtt *a = &s->att[idx];

    if (s->acct_touched) {
        /* pages a TLB filled while this range was hole are not its traffic */
        bitmap_clear(s->acct_touched, a->ap_off / SNODE_ACCT_PAGE,
                     DIV_ROUND_UP(a->len, SNODE_ACCT_PAGE));
        bitmap_clear(s->acct_pending, a->ap_off / SNODE_ACCT_PAGE,
                     DIV_ROUND_UP(a->len, SNODE_ACCT_PAGE));
        if (a->flags & SNODE_PERM_WRITE) {
            /* a new RAMBlock is all dirty */
            memory_region_set_log(&w->mr, true, DIRTY_MEMORY_VGA);
            memory_region_reset_dirty(&w->mr, 0, a->len, DIRTY_MEMORY_VGA);
            w->logged = true;
        }
    }
    a->host = host;
    a->win = w;
    a->viol = (SnodeViolRl){};
    memory_region_add_subregion_overlap(&s->aperture, a->ap_off, &w->mr, 1);
}

static SnodeWin *snode_win_new(SnodeNicState *s, unsigned idx)
{
    SnodeWin *w = SNODE_WIN(object_new(TYPE_SNODE_WIN));

    w->s = s;
    w->idx = idx;
    w->ap_off = s->att[idx].ap_off;
    return w;
}

/*
 * Map ATT entry idx (ap_off, len and flags set) onto host, which is
 * file_off into the exporter's file path. Return: false if it cannot be.
 */
bool snode_att_map(SnodeNicState *s, unsigned idx, uint8_t *host,
                   const char *path, uint64_t file_off)
{
    g_autofree char *name = g_strdup_printf("snode-att%u", idx);
    SnodeAtt *a = &s->att[idx];
    SnodeWin *w = snode_win_new(s, idx);
    struct snode_fm_seg seg = { .offset = file_off, .len = a->len };

    if (a->flags & SNODE_PERM_WRITE) {
        memory_region_init_ram_ptr(&w->mr, OBJECT(w), name, a->len, host);
    } else if (!snode_win_init_file(s, w, name, a->len, true, path,
                                    &seg, 1)) {
        object_unref(OBJECT(w));
        return false;
    }
    snode_att_publish(s, idx, w, host);
    return true;
}

/*
 * Map ATT entry idx onto a host export's window: @nseg runs of the
 * exporter's RAM file @path, checked to add up to the entry's length.
 * Return: false if it cannot be.
 */
bool snode_att_map_segs(SnodeNicState *s, unsigned idx, const char *path,
                        const struct snode_fm_seg *seg, uint32_t nseg)
{
    g_autofree char *name = g_strdup_printf("snode-att%u", idx);
    SnodeAtt *a = &s->att[idx];
    SnodeWin *w = snode_win_new(s, idx);

    if (!snode_win_init_file(s, w, name, a->len,
                             !(a->flags & SNODE_PERM_WRITE), path, seg,
                             nseg)) {
        object_unref(OBJECT(w));
        return false;
    }
    snode_att_publish(s, idx, w, memory_region_get_ram_ptr(&w->mr));
    return true;
}

static bool snode_acct_window(SnodeNicState *s, unsigned idx,
                              bool *pending);

static void snode_att_unmap(SnodeNicState *s, unsigned idx)
{
    SnodeAtt *a = &s->att[idx];

    if (a->win) {
        bool pending = false;

        /* the window's last period; what is still pending counts as rx */
        snode_acct_window(s, idx, &pending);
        snode_acct_window(s, idx, &pending);
        memory_region_del_subregion(&s->aperture, &a->win->mr);
        object_unparent(OBJECT(&a->win->mr));
        /* FlatViews that still hold the region hold the window too */
        object_unref(OBJECT(a->win));
        a->win = NULL;
    }
    a->host = NULL;
    a->state = ATT_FREE;
}

/* Invalidate a valid entry. release: tell the fm we dropped the grant. */
void snode_att_invalidate(SnodeNicState *s, unsigned idx, bool release)
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

void snode_att_revoke(SnodeNicState *s, unsigned idx, uint32_t reason)
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
int snode_att_lookup(SnodeNicState *s, uint64_t off, uint64_t len)
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

static uint64_t snode_hole_read(void *opaque, hwaddr addr, unsigned size)
{
    SnodeNicState *s = opaque;

    snode_violation(s, &s->hole_viol, addr, false);
    return size == 8 ? ~0ULL : (1ULL << (size * 8)) - 1;
}

static void snode_hole_write(void *opaque, hwaddr addr, uint64_t val,
                             unsigned size)
{
    SnodeNicState *s = opaque;

    snode_violation(s, &s->hole_viol, addr, true);
}

const MemoryRegionOps snode_hole_ops = {
    .read = snode_hole_read,
    .write = snode_hole_write,
    .endianness = DEVICE_LITTLE_ENDIAN,
    .valid = { .min_access_size = 1, .max_access_size = 8 },
    .impl = { .min_access_size = 1, .max_access_size = 8 },
};

/* ---------------------------------------------------------------------- */
/* Window accounting                                                       */

/*
 * Where the aperture container sits in system memory: above the 40 (TCG)
 * to 52 bits of guest-physical address a CPU can form, one TiB (the
 * largest aperture) per device. The IOMMU translates into system memory
 * rather than into an address space of our own because QEMU 7.2's TLB
 * keeps an I/O page as a section index of the target's flat view and
 * looks it up in the CPU's (iotlb_to_section()): with a private address
 * space, hole accesses and stores into read-only windows would reach
 * whichever region of system memory has that index.
 */
#define SNODE_AP_HIDDEN_BASE    (1ULL << 56)
#define SNODE_AP_HIDDEN_STRIDE  (1ULL << 40)
#define SNODE_AP_HIDDEN_MAX     256

/*
 * Count window @idx's pages touched in the period just over, and those of
 * the period before whose kind is now known. Dirty logging and the touched
 * bits are two bitmaps that cannot be read at once: a page a vCPU fills
 * into its TLB just before the tick and stores to just after the dirty
 * snapshot is touched and clean. So a touched clean page is pending for
 * one period: stored (tx) if the next snapshot finds it dirty, else loaded
 * (rx). Read-only windows take no stores: their pages are rx at once.
 * Return: pages touched (and a TLB flush due), or pages still pending.
 */
static bool snode_acct_window(SnodeNicState *s, unsigned idx, bool *pending)
{
    SnodeAtt *a = &s->att[idx];
    SnodeWin *w = a->win;
    DirtyBitmapSnapshot *snap = NULL;
    uint64_t first, end, pg, tx = 0, rx = 0;
    bool touched = false;

    if (!s->acct_touched || !w) {
        return false;
    }
    first = a->ap_off / SNODE_ACCT_PAGE;
    end = first + DIV_ROUND_UP(a->len, SNODE_ACCT_PAGE);
    for (pg = first; pg < end; ) {
        unsigned long *word = &s->acct_touched[BIT_WORD(pg)];
        unsigned long *pend = &s->acct_pending[BIT_WORD(pg)];
        unsigned bit = pg % BITS_PER_LONG;
        unsigned nb = MIN(BITS_PER_LONG - bit, end - pg);
        unsigned long mask = (nb == BITS_PER_LONG ? ~0UL : (1UL << nb) - 1)
                             << bit;
        unsigned long got = 0, old = *pend & mask, now = 0, both;

        if (qatomic_read(word) & mask) {
            got = qatomic_fetch_and(word, ~mask) & mask;
            touched = true;
        }
        if (!w->logged) {
            rx += ctpopl(got);
            pg += nb;
            continue;
        }
        both = got | old;
        while (both) {
            unsigned long b = both & -both;
            uint64_t off = (pg - bit + ctzl(both) - first) * SNODE_ACCT_PAGE;
            bool dirty;

            both &= both - 1;
            if (!snap) {
                snap = memory_region_snapshot_and_clear_dirty(
                    &w->mr, 0, a->len, DIRTY_MEMORY_VGA);
            }
            dirty = memory_region_snapshot_get_dirty(&w->mr, snap, off,
                        MIN(SNODE_ACCT_PAGE, a->len - off));
            if (old & b) {
                if (dirty) {
                    tx++;
                } else {
                    rx++;
                }
            }
            if (got & b) {
                if (dirty) {
                    tx++;
                } else {
                    now |= b;
                }
            }
        }
        *pend = (*pend & ~mask) | now;
        if (now) {
            *pending = true;
        }
        pg += nb;
    }
    g_free(snap);
    if (tx || rx) {
        snode_count_bytes(s, a->node, tx * SNODE_ACCT_PAGE, true);
        snode_count_bytes(s, a->node, rx * SNODE_ACCT_PAGE, false);
        trace_snode_nic_acct(idx, tx, rx);
    }
    return touched;
}

/* One period after the first touch: count, then flush every vCPU's TLB. */
static void snode_acct_tick(void *opaque)
{
    SnodeNicState *s = opaque;
    bool any = false, pending = false;
    unsigned i;

    /* a page a vCPU touches from here on arms the next tick */
    qatomic_set(&s->acct_armed, 0);
    smp_mb();
    for (i = 0; i < s->att_entries; i++) {
        if (s->att[i].state == ATT_VALID) {
            any |= snode_acct_window(s, i, &pending);
        }
    }
    /* pages still pending are told apart at the next tick */
    if (pending && !qatomic_xchg(&s->acct_armed, 1)) {
        timer_mod(s->acct_timer, qemu_clock_get_us(QEMU_CLOCK_VIRTUAL) +
                  s->acct_period_us);
    }
    if (any) {
        IOMMUTLBEvent ev = {
            .type = IOMMU_NOTIFIER_UNMAP,
            .entry = {
                .target_as = &address_space_memory,
                .iova = 0,
                .addr_mask = s->aperture_size - 1,
                .perm = IOMMU_NONE,
            },
        };

        memory_region_notify_iommu(&s->ap_iommu, 0, ev);
    }
}

/* A TLB fill of an aperture page (vCPU thread, no BQL); or a DMA by peers. */
static IOMMUTLBEntry snode_ap_translate(IOMMUMemoryRegion *iommu,
                                        hwaddr addr, IOMMUAccessFlags flags,
                                        int iommu_idx)
{
    SnodeNicState *s = container_of(iommu, SnodeNicState, ap_iommu);
    hwaddr page = addr & ~(hwaddr)(SNODE_ACCT_PAGE - 1);
    unsigned long *word = &s->acct_touched[BIT_WORD(page / SNODE_ACCT_PAGE)];
    unsigned long bit = BIT_MASK(page / SNODE_ACCT_PAGE);

    if (!(qatomic_read(word) & bit)) {
        qatomic_or(word, bit);
    }
    if (!qatomic_read(&s->acct_armed) && !qatomic_xchg(&s->acct_armed, 1)) {
        timer_mod(s->acct_timer, qemu_clock_get_us(QEMU_CLOCK_VIRTUAL) +
                  s->acct_period_us);
    }
    return (IOMMUTLBEntry) {
        .target_as = &address_space_memory,
        .iova = page,
        .translated_addr = s->ap_hidden + page,
        .addr_mask = SNODE_ACCT_PAGE - 1,
        .perm = IOMMU_RW,
    };
}

static int snode_ap_attrs_to_index(IOMMUMemoryRegion *iommu,
                                   MemTxAttrs attrs)
{
    return 0;
}

/*
 * Set up window accounting unless the period is 0: then BAR2 is the
 * aperture container itself, as before decision 0035.
 */
bool snode_acct_init(SnodeNicState *s, Error **errp)
{
    static unsigned hidden_next;

    if (!s->acct_period_us) {
        return true;
    }
    if (hidden_next == SNODE_AP_HIDDEN_MAX) {
        error_setg(errp, "snode-nic: more than %u devices account windows",
                   SNODE_AP_HIDDEN_MAX);
        return false;
    }
    s->ap_hidden = SNODE_AP_HIDDEN_BASE +
                   hidden_next++ * SNODE_AP_HIDDEN_STRIDE;
    s->acct_touched = bitmap_new(s->aperture_size / SNODE_ACCT_PAGE);
    s->acct_pending = bitmap_new(s->aperture_size / SNODE_ACCT_PAGE);
    memory_region_init_iommu(&s->ap_iommu, sizeof(s->ap_iommu),
                             TYPE_SNODE_APERTURE_IOMMU, OBJECT(s),
                             "snode-aperture-acct", s->aperture_size);
    memory_region_add_subregion(get_system_memory(), s->ap_hidden,
                                &s->aperture);
    s->acct_timer = timer_new_us(QEMU_CLOCK_VIRTUAL, snode_acct_tick, s);
    return true;
}

/*
 * After the windows are gone. The vCPUs' TLB notifiers stay registered on
 * ap_iommu (QEMU drops them only with the CPU), which is why the device
 * class is not hotpluggable.
 */
void snode_acct_exit(SnodeNicState *s)
{
    if (!s->acct_timer) {
        return;
    }
    timer_free(s->acct_timer);
    s->acct_timer = NULL;
    memory_region_del_subregion(get_system_memory(), &s->aperture);
    g_free(s->acct_touched);
    s->acct_touched = NULL;
    g_free(s->acct_pending);
    s->acct_pending = NULL;
}

static void snode_ap_iommu_class_init(ObjectClass *klass, void *data)
{
    IOMMUMemoryRegionClass *imrc = IOMMU_MEMORY_REGION_CLASS(klass);

    imrc->translate = snode_ap_translate;
    imrc->attrs_to_index = snode_ap_attrs_to_index;
}

static const TypeInfo snode_ap_iommu_info = {
    .name = TYPE_SNODE_APERTURE_IOMMU,
    .parent = TYPE_IOMMU_MEMORY_REGION,
    .class_init = snode_ap_iommu_class_init,
};

static void snode_acct_register_types(void)
{
    type_register_static(&snode_ap_iommu_info);
}

type_init(snode_acct_register_types)

static const TypeInfo snode_win_info = {
    .name = TYPE_SNODE_WIN,
    .parent = TYPE_OBJECT,
    .instance_size = sizeof(SnodeWin),
};

static void snode_win_register_types(void)
{
    type_register_static(&snode_win_info);
}

type_init(snode_win_register_types)
