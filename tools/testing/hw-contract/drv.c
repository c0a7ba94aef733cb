// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The driver's side of the hardware contract: every register, field,
 * status, opcode, event type and structure driver/hw.h defines, as rows
 * (hc.h). A definition left out here is reported by hw-contract.py as
 * missing on the driver's side when the document has it.
 */
#include <stddef.h>

#include "hw.h"
#include "hc.h"

#define REG(name)		{ "reg", #name, SNODE_ ## name ## _OFFSET, 0 }
/* The driver names a queue's registers by offset inside its block */
#define HC_Q_BASE_LO		SNODE_Q_BASE_LO
#define HC_Q_BASE_HI		SNODE_Q_BASE_HI
#define HC_Q_SIZE		SNODE_Q_SIZE
#define HC_Q_TAIL		SNODE_Q_INDEX
#define HC_Q_HEAD		SNODE_Q_INDEX
#define QREG(q, r) \
	{ "reg", #q "_" #r, SNODE_ ## q ## _OFFSET + HC_Q_ ## r, 0 }
#define FLD(reg, field, mask)	{ "field", #reg "." #field, (mask), 0 }
#define ST(name)		{ "status", #name, SNODE_SC_ ## name, 0 }
#define OP(name)		{ "op", #name, SNODE_OP_ ## name, 0 }
#define EV(name)		{ "event", #name, SNODE_EV_ ## name, 0 }
#define SIZE(t)			HC_SIZE(#t, struct snode_ ## t)
#define MEM(t, m)		HC_MEMBER(#t, struct snode_ ## t, m)
#define CMD(op, u, m) \
	{ "cmd", #op "." #m, offsetof(struct snode_admin_cmd, u.m), \
	  HC_MSIZE(struct snode_admin_cmd, u.m) }
#define RES(op, u, m) \
	{ "res", #op "." #m, offsetof(struct snode_admin_cqe, u.m), \
	  HC_MSIZE(struct snode_admin_cqe, u.m) }

const struct hc_def hc_driver[] = {
#include "rows.h"

	FLD(VERSION, MAJOR, SNODE_VERSION_MAJOR_MASK),
	FLD(VERSION, MINOR, SNODE_VERSION_MINOR_MASK),
	FLD(FW_VERSION, MAJOR, SNODE_FW_MAJOR_MASK),
	FLD(FW_VERSION, MINOR, SNODE_FW_MINOR_MASK),
	FLD(FW_VERSION, PATCH, SNODE_FW_PATCH_MASK),
	FLD(CAP, ATT, SNODE_CAP_ATT),
	FLD(CAP, EXPORT, SNODE_CAP_EXPORT),
	FLD(CAP, DMA, SNODE_CAP_DMA),
	FLD(CAP, MSG, SNODE_CAP_MSG),
	FLD(CAP, SENSORS, SNODE_CAP_SENSORS),
	FLD(CAP, COHERENT, SNODE_CAP_COHERENT),
	FLD(CAP, FLR, SNODE_CAP_FLR),
	FLD(CAP, EV_TOPO, SNODE_CAP_EV_TOPO),
	FLD(CAP, HOST_EXPORT, SNODE_CAP_HOST_EXPORT),
	FLD(LIMITS0, PORTS, SNODE_LIMITS0_PORTS_MASK),
	FLD(LIMITS0, MAX_NODES, SNODE_LIMITS0_MAX_NODES_MASK),
	FLD(LIMITS1, ATT, SNODE_LIMITS1_ATT_MASK),
	FLD(LIMITS1, EXPORT, SNODE_LIMITS1_EXPORT_MASK),
	FLD(LIMITS2, ENDPOINTS, SNODE_LIMITS2_ENDPOINTS_MASK),
	FLD(LIMITS2, MAX_DMA_KIB, SNODE_LIMITS2_MAX_DMA_KIB_MASK),
	FLD(CTRL, ENABLE, SNODE_CTRL_ENABLE),
	FLD(CTRL, RESET, SNODE_CTRL_RESET),
	FLD(STATUS, READY, SNODE_STATUS_READY),
	FLD(STATUS, ATTACHED, SNODE_STATUS_ATTACHED),
	FLD(STATUS, FATAL, SNODE_STATUS_FATAL),
	FLD(STATUS, THROTTLED, SNODE_STATUS_THROTTLED),
	FLD(STATUS, ENABLED, SNODE_STATUS_ENABLED),
	FLD(INTR_CAUSE, ADMIN, SNODE_INTR_ADMIN),
	FLD(INTR_CAUSE, EVENT, SNODE_INTR_EVENT),
	FLD(INTR_CAUSE, DMA, SNODE_INTR_DMA),
	FLD(INTR_CAUSE, MSG, SNODE_INTR_MSG),
	FLD(INTR_CAUSE, FATAL, SNODE_INTR_FATAL),
	FLD(SENSOR_ALARM, TEMP_MAX, SNODE_ALARM_TEMP_MAX),
	FLD(SENSOR_ALARM, TEMP_CRIT, SNODE_ALARM_TEMP_CRIT),
	FLD(SENSOR_ALARM, POWER_MAX, SNODE_ALARM_POWER_MAX),
	FLD(MSG_DST, EP, SNODE_MSG_DST_EP_MASK),
	FLD(MSG_LEN, LEN, SNODE_MSG_LEN_LEN_MASK),
	FLD(MSG_LEN, SRC_EP, SNODE_MSG_LEN_SRC_EP_MASK),
	FLD(MSG_STATUS, BUSY, SNODE_MSG_STATUS_BUSY),
	FLD(MSG_STATUS, STATUS, SNODE_MSG_STATUS_STATUS_MASK),
	FLD(EP_HEAD, EP, SNODE_EP_HEAD_EP_MASK),
	FLD(EP_HEAD, INDEX, SNODE_EP_HEAD_INDEX_MASK),

	SIZE(admin_cmd),
	MEM(admin_cmd, opcode), MEM(admin_cmd, flags), MEM(admin_cmd, cid),
	MEM(admin_cmd, rsvd), MEM(admin_cmd, addr), MEM(admin_cmd, len),
	MEM(admin_cmd, cdw),
	SIZE(admin_cqe),
	MEM(admin_cqe, cid), MEM(admin_cqe, status), MEM(admin_cqe, result0),
	MEM(admin_cqe, result1), MEM(admin_cqe, sq_head), MEM(admin_cqe, rsvd),
	SIZE(event),
	MEM(event, type), MEM(event, flags), MEM(event, seq),
	MEM(event, timestamp), MEM(event, data),
	SIZE(identify),
	MEM(identify, magic), MEM(identify, version), MEM(identify, fw_version),
	MEM(identify, cap), MEM(identify, node_id), MEM(identify, fabric_id),
	MEM(identify, nports), MEM(identify, max_nodes),
	MEM(identify, att_entries), MEM(identify, export_entries),
	MEM(identify, aperture_size), MEM(identify, pool_size),
	MEM(identify, endpoints), MEM(identify, rsvd0),
	MEM(identify, max_dma_len), MEM(identify, serial),
	MEM(identify, fw_name), MEM(identify, max_host_extents),
	MEM(identify, rsvd1),
	SIZE(port_info),
	MEM(port_info, port), MEM(port_info, admin_state),
	MEM(port_info, oper_state), MEM(port_info, lanes),
	MEM(port_info, max_lanes), MEM(port_info, rsvd0), MEM(port_info, speed),
	MEM(port_info, peer_node), MEM(port_info, peer_port),
	MEM(port_info, crc_errors), MEM(port_info, replays),
	MEM(port_info, recoveries), MEM(port_info, down_events),
	MEM(port_info, tx_bytes), MEM(port_info, rx_bytes), MEM(port_info, ber),
	MEM(port_info, tx_msgs), MEM(port_info, rx_msgs), MEM(port_info, rsvd1),
	SIZE(node_topo),
	MEM(node_topo, sw), MEM(node_topo, rack), MEM(node_topo, plane),
	MEM(node_topo, hops), MEM(node_topo, state),
	MEM(node_topo, rsvd),
	SIZE(topo_name),
	MEM(topo_name, name), MEM(topo_name, plane), MEM(topo_name, rsvd),
	SIZE(att_info),
	MEM(att_info, valid), MEM(att_info, flags), MEM(att_info, rsvd0),
	MEM(att_info, node), MEM(att_info, aperture_offset),
	MEM(att_info, length), MEM(att_info, export_id), MEM(att_info, epoch),
	MEM(att_info, key), MEM(att_info, export_offset),
	MEM(att_info, revoke_reason), MEM(att_info, rsvd1),
	SIZE(host_extent),
	MEM(host_extent, addr), MEM(host_extent, len),
	SIZE(hw_stats),
	MEM(hw_stats, admin_cmds), MEM(hw_stats, events),
	MEM(hw_stats, events_dropped), MEM(hw_stats, access_violations),
	MEM(hw_stats, msgs_sent), MEM(hw_stats, msgs_received),
	MEM(hw_stats, msgs_rejected), MEM(hw_stats, dma_reqs),
	MEM(hw_stats, dma_bytes), MEM(hw_stats, dma_errors),
	MEM(hw_stats, att_sets), MEM(hw_stats, att_revokes),
	MEM(hw_stats, resets), MEM(hw_stats, rsvd),
	SIZE(msg_slot),
	MEM(msg_slot, src_node), MEM(msg_slot, src_ep), MEM(msg_slot, len),
	MEM(msg_slot, seq), MEM(msg_slot, payload),
	SIZE(dma_desc),
	MEM(dma_desc, src), MEM(dma_desc, dst), MEM(dma_desc, len),
	MEM(dma_desc, flags), MEM(dma_desc, rsvd), MEM(dma_desc, tag),
	SIZE(dma_cqe),
	MEM(dma_cqe, tag), MEM(dma_cqe, status), MEM(dma_cqe, rsvd),
	MEM(dma_cqe, bytes_done),
	SIZE(event_link_state),
	MEM(event_link_state, port), MEM(event_link_state, oper_state),
	MEM(event_link_state, lanes), MEM(event_link_state, rsvd),
	MEM(event_link_state, peer_node), MEM(event_link_state, down_events),
	SIZE(event_link_ber),
	MEM(event_link_ber, port), MEM(event_link_ber, rsvd),
	MEM(event_link_ber, ber),
	SIZE(event_node_state),
	MEM(event_node_state, node), MEM(event_node_state, state),
	MEM(event_node_state, route_port), MEM(event_node_state, sw),
	MEM(event_node_state, rack), MEM(event_node_state, plane),
	MEM(event_node_state, hops), MEM(event_node_state, rsvd),
	SIZE(event_access_violation),
	MEM(event_access_violation, aperture_offset),
	MEM(event_access_violation, write), MEM(event_access_violation, rsvd),
	MEM(event_access_violation, suppressed),
	SIZE(event_window_revoked),
	MEM(event_window_revoked, att_index), MEM(event_window_revoked, reason),
	MEM(event_window_revoked, epoch), MEM(event_window_revoked, node),
	MEM(event_window_revoked, export_id),
	SIZE(event_thermal),
	MEM(event_thermal, temp), MEM(event_thermal, alarm),
	MEM(event_thermal, power), MEM(event_thermal, rsvd),
	SIZE(event_overflow),
	MEM(event_overflow, lost), MEM(event_overflow, rsvd),
	SIZE(event_fabric),
	MEM(event_fabric, attached), MEM(event_fabric, rsvd),

	{ NULL, NULL, 0, 0 }
};
