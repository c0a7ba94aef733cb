// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * snode-nic: the event queue (posting, overflow accounting) and the sensors
 * (threshold crossings, THERMAL events, throttling).
 */

#include "qemu/osdep.h"
#include "qemu/log.h"
#include "qemu/bswap.h"
#include "hw/pci/pci.h"

#include "snode-nic-int.h"
#include "trace.h"

/* ---------------------------------------------------------------------- */
/* Events                                                                  */

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

void snode_eq_flush_overflow(SnodeNicState *s)
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

void snode_post_event(SnodeNicState *s, uint16_t type,
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

void snode_ev_window_revoked(SnodeNicState *s, unsigned idx)
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

void snode_ev_fabric(SnodeNicState *s, bool attached)
{
    uint8_t d[16] = {};

    d[0] = attached;
    snode_post_event(s, SNODE_EV_FABRIC, d);
}

void snode_ev_link_state(SnodeNicState *s, unsigned p)
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

void snode_sensor_eval(SnodeNicState *s, bool post)
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
