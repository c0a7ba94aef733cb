// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * snode-nic: memory files, the requester ATT (windows as RAM regions over the
 * exporter's file inside the BAR2 aperture) and the aperture hole, which
 * reads all-ones and reports access violations. A read-only window is a
 * ROM device over the exporter's file: loads run at memory speed, stores
 * come to snode_win_ro_write() and are violations
 * (Documentation/decisions/0022-read-only-window-stores.md).
 */

#include "qemu/osdep.h"
#include "qemu/rcu.h"
#include "qapi/error.h"
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
 * A read-only window: a ROM device (reads from its RAM, writes to the ops)
 * whose RAM is the exporter's file. QEMU allocates a ROM device's RAM
 * itself; the file is mapped over that allocation before the region is
 * visible, and QEMU's munmap() of the RAMBlock later unmaps the file.
 */
static bool snode_win_init_ro(SnodeNicState *s, SnodeWin *w, const char *name,
                              uint64_t len, const char *path,
                              uint64_t file_off)
{
    Error *err = NULL;
    void *ram;
    int fd;

    memory_region_init_rom_device_nomigrate(&w->mr, OBJECT(w),
                                            &snode_win_ro_ops, w, name, len,
                                            &err);
    if (err) {
        trace_snode_nic_map_failed(path, error_get_pretty(err));
        error_free(err);
        return false;
    }
    ram = memory_region_get_ram_ptr(&w->mr);
    fd = open(path, O_RDWR);
    if (fd < 0 || mmap(ram, len, PROT_READ | PROT_WRITE,
                       MAP_SHARED | MAP_FIXED, fd, file_off) == MAP_FAILED) {
        trace_snode_nic_map_failed(path, strerror(errno));
        if (fd >= 0) {
            close(fd);
        }
        object_unparent(OBJECT(&w->mr));
        return false;
    }
    close(fd);
    return true;
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
    SnodeWin *w = SNODE_WIN(object_new(TYPE_SNODE_WIN));

    w->s = s;
    w->idx = idx;
    w->ap_off = a->ap_off;
    if (a->flags & SNODE_PERM_WRITE) {
        memory_region_init_ram_ptr(&w->mr, OBJECT(w), name, a->len, host);
    } else if (!snode_win_init_ro(s, w, name, a->len, path, file_off)) {
        object_unref(OBJECT(w));
        return false;
    }
    a->host = host;
    a->win = w;
    a->viol = (SnodeViolRl){};
    memory_region_add_subregion_overlap(&s->aperture, a->ap_off, &w->mr, 1);
    return true;
}

static void snode_att_unmap(SnodeNicState *s, unsigned idx)
{
    SnodeAtt *a = &s->att[idx];

    if (a->win) {
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
