// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * snode-nic: the PCI function: BAR0 registers and their MMIO handlers,
 * interrupts, enabling and stopping the queues, realize/exit and reset (FLR,
 * CTRL.RESET, system reset through ResettableClass).
 */

#include "qemu/osdep.h"
#include "qemu/units.h"
#include "qemu/log.h"
#include "qemu/module.h"
#include "qemu/main-loop.h"
#include "qemu/sockets.h"
#include "qapi/error.h"
#include "hw/pci/pci.h"
#include "hw/pci/pcie.h"
#include "hw/pci/msix.h"
#include "hw/qdev-properties.h"
#include "hw/resettable.h"
#include "migration/vmstate.h"
#include <sys/mman.h>

#include "snode-nic-int.h"
#include "trace.h"

/* ---------------------------------------------------------------------- */
/* Interrupts                                                              */

void snode_update_intx(SnodeNicState *s)
{
    PCIDevice *pdev = PCI_DEVICE(s);

    if (msix_enabled(pdev)) {
        pci_set_irq(pdev, 0);
        return;
    }
    pci_set_irq(pdev, !!(s->intr_cause & ~s->intr_mask & SNODE_INTR_ALL));
}

void snode_raise(SnodeNicState *s, uint32_t cause, unsigned vector)
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

void snode_fatal(SnodeNicState *s, const char *why)
{
    trace_snode_nic_fatal(why);
    qemu_log_mask(LOG_GUEST_ERROR, "snode-nic: fatal: %s\n", why);
    s->status |= R_STATUS_FATAL_MASK;
    snode_raise(s, R_INTR_FATAL_MASK, SNODE_VEC_ADMIN);
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
        val = snode_cap(s);
        break;
    case A_NODE_ID:
        val = s->attached ? s->node_id : SNODE_NODE_NONE;
        break;
    case A_FABRIC_ID:
        val = s->fabric_id;
        break;
    case A_LIMITS0:
        val = FIELD_DP32(0, LIMITS0, PORTS, s->nports);
        val = FIELD_DP32(val, LIMITS0, MAX_NODES, s->max_nodes);
        break;
    case A_LIMITS1:
        val = FIELD_DP32(0, LIMITS1, ATT, s->att_entries);
        val = FIELD_DP32(val, LIMITS1, EXPORT, s->export_entries);
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
        val = FIELD_DP32(0, LIMITS2, ENDPOINTS, s->endpoints);
        val = FIELD_DP32(val, LIMITS2, MAX_DMA_KIB, SNODE_MAX_DMA_LEN / KiB);
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
    timer_del(s->dma_pace_timer);
    for (i = 0; i < s->nports; i++) {
        s->port[i].line_free_ns = 0;
    }
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
    s->hole_viol = (SnodeViolRl){};
    s->msg_dst = s->msg_node = s->msg_key_lo = s->msg_key_hi = 0;
    s->msg_len = s->msg_status = 0;
    memset(s->msg_data, 0, sizeof(s->msg_data));
    pci_set_irq(PCI_DEVICE(s), 0);
}

/* System reset and FLR (pci_device_reset) arrive here. */
static void snode_reset_hold(Object *obj)
{
    snode_reset(SNODE_NIC(obj));
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
    s->loopback = true;         /* until the fm says otherwise (0039) */
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
    if (s->ram_path) {
        struct stat st;

        /* host exports: the RAM file is checked again per extent */
        if (stat(s->ram_path, &st) < 0 || !S_ISREG(st.st_mode) ||
            !g_str_has_prefix(s->ram_path, SNODE_FM_RAM_PREFIX) ||
            strlen(s->ram_path) >= SNODE_FM_PATH_MAX) {
            error_setg(errp, "snode-nic: ram-path=%s must be a regular file "
                       "named %s*, shorter than %u bytes", s->ram_path,
                       SNODE_FM_RAM_PREFIX, SNODE_FM_PATH_MAX);
            return;
        }
        s->ram_dev = st.st_dev;
        s->ram_ino = st.st_ino;
    }
    if (s->acct_period_us && (s->acct_period_us < 100 ||
                              s->acct_period_us > 1000000)) {
        error_setg(errp, "snode-nic: acct-period-us=%u must be 0 (windows not"
                   " accounted) or 100..1000000", s->acct_period_us);
        return;
    }
    memset(s->node_route, 0xff, sizeof(s->node_route));
    snode_topo_clear(s);
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
    if (!snode_acct_init(s, errp)) {
        goto err_msix;
    }
    pci_register_bar(pdev, 2, PCI_BASE_ADDRESS_SPACE_MEMORY |
                     PCI_BASE_ADDRESS_MEM_TYPE_64 |
                     PCI_BASE_ADDRESS_MEM_PREFETCH,
                     s->acct_period_us ? MEMORY_REGION(&s->ap_iommu) :
                     &s->aperture);
    memory_region_init_ram_ptr(&s->pool_mr, OBJECT(s), "snode-pool",
                               s->pool_size, s->pool->ptr);
    pci_register_bar(pdev, 4, PCI_BASE_ADDRESS_SPACE_MEMORY |
                     PCI_BASE_ADDRESS_MEM_TYPE_64 |
                     PCI_BASE_ADDRESS_MEM_PREFETCH, &s->pool_mr);

    s->admin_bh = qemu_bh_new(snode_admin_bh, s);
    s->dma_bh = qemu_bh_new(snode_dma_bh, s);
    s->dma_pace_timer = timer_new_ns(QEMU_CLOCK_VIRTUAL, snode_dma_bh, s);
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

err_msix:
    msix_uninit(pdev, &s->bar0, &s->bar0);
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
    timer_free(s->dma_pace_timer);
    qemu_bh_delete(s->fm_lost_bh);
    qemu_bh_delete(s->dma_bh);
    qemu_bh_delete(s->admin_bh);
    if (s->fm_fd >= 0) {
        qemu_set_fd_handler(s->fm_fd, NULL, NULL, NULL);
    }
    for (i = 0; i < s->att_entries; i++) {
        snode_att_invalidate(s, i, true);
    }
    snode_acct_exit(s);
    if (s->fm_fd >= 0) {
        close(s->fm_fd);
        s->fm_fd = -1;
    }
    QTAILQ_FOREACH_SAFE(r, &s->reqs, next, tmp) {
        snode_req_free(s, r);
    }
    snode_peers_close(s, SNODE_ST_NOT_ATTACHED, "device removed");
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
    DEFINE_PROP_UINT32("acct-period-us", SnodeNicState, acct_period_us,
                       SNODE_ACCT_PERIOD_US),
    /* the machine's memory-backend-file (share=on): host exports */
    DEFINE_PROP_STRING("ram-path", SnodeNicState, ram_path),
    DEFINE_PROP_END_OF_LIST(),
};

static const VMStateDescription snode_vmstate = {
    .name = TYPE_SNODE_NIC,
    .unmigratable = 1,
};

static void snode_class_init(ObjectClass *klass, void *data)
{
    DeviceClass *dc = DEVICE_CLASS(klass);
    ResettableClass *rc = RESETTABLE_CLASS(klass);
    PCIDeviceClass *pc = PCI_DEVICE_CLASS(klass);

    pc->realize = snode_realize;
    pc->exit = snode_exit;
    pc->config_write = snode_config_write;
    pc->vendor_id = SNODE_VENDOR_ID;
    pc->device_id = SNODE_DEVICE_ID;
    pc->revision = SNODE_REVISION;
    pc->class_id = SNODE_CLASS;
    dc->desc = "snode supernode interconnect NIC";
    /*
     * No hot-unplug: the vCPUs' TLB notifiers on the aperture's IOMMU stay
     * registered until the CPUs go (snode_acct_exit()), and a window's
     * region can outlive the unmap in old FlatViews. device_del refuses.
     */
    dc->hotpluggable = false;
    rc->phases.hold = snode_reset_hold;
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
