// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The device model's side of the hardware contract: what
 * tools/emu/qemu/snode/snode-nic.h defines, as rows (hc.h) under the same
 * names as drv.c, so hw-contract.py can pair them. Structures are named as
 * in the driver (admin_cqe for SnodeAdminCpl and so on). The command
 * table's rows are read from admin.c by hw-contract.py itself.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdbool.h>

#include "hw/registerfields.h"
#include "snode-nic.h"
#include "hc.h"

#define REG(name)		{ "reg", #name, A_ ## name, 0 }
#define QREG(q, r)		REG(q ## _ ## r)
#define FLD(reg, field)		{ "field", #reg "." #field, R_ ## reg ## _ ## field ## _MASK, 0 }
#define FLDI(field)		{ "field", "INTR_CAUSE." #field, R_INTR_ ## field ## _MASK, 0 }
#define ST(name)		{ "status", #name, SNODE_ST_ ## name, 0 }
#define OP(name)		{ "op", #name, SNODE_OP_ ## name, 0 }
#define EV(name)		{ "event", #name, SNODE_EV_ ## name, 0 }
#define SIZE(n, t)		HC_SIZE(n, t)
#define MEM(n, t, m)		HC_MEMBER(n, t, m)
#define CMD(op, u, m) \
	{ "cmd", #op "." #m, offsetof(SnodeAdminCmd, u.m), \
	  HC_MSIZE(SnodeAdminCmd, u.m) }
#define RES(op, u, m) \
	{ "res", #op "." #m, offsetof(SnodeAdminCpl, u.m), \
	  HC_MSIZE(SnodeAdminCpl, u.m) }
/* The parameter struct a command-table row names, by its C name */
#define WORDS(t)		{ "words", #t, sizeof(t) / 4, 0 }

const struct hc_def hc_device[] = {
#include "rows.h"

	FLD(VERSION, MAJOR), FLD(VERSION, MINOR),
	FLD(FW_VERSION, MAJOR), FLD(FW_VERSION, MINOR), FLD(FW_VERSION, PATCH),
	FLD(CAP, ATT), FLD(CAP, EXPORT), FLD(CAP, DMA), FLD(CAP, MSG),
	FLD(CAP, SENSORS), FLD(CAP, COHERENT), FLD(CAP, FLR),
	FLD(CAP, EV_TOPO), FLD(CAP, HOST_EXPORT),
	FLD(LIMITS0, PORTS), FLD(LIMITS0, MAX_NODES),
	FLD(LIMITS1, ATT), FLD(LIMITS1, EXPORT),
	FLD(LIMITS2, ENDPOINTS), FLD(LIMITS2, MAX_DMA_KIB),
	FLD(CTRL, ENABLE), FLD(CTRL, RESET),
	FLD(STATUS, READY), FLD(STATUS, ATTACHED), FLD(STATUS, FATAL),
	FLD(STATUS, THROTTLED), FLD(STATUS, ENABLED),
	FLDI(ADMIN), FLDI(EVENT), FLDI(DMA), FLDI(MSG), FLDI(FATAL),
	FLD(SENSOR_ALARM, TEMP_MAX), FLD(SENSOR_ALARM, TEMP_CRIT),
	FLD(SENSOR_ALARM, POWER_MAX),
	FLD(MSG_DST, EP),
	FLD(MSG_LEN, LEN), FLD(MSG_LEN, SRC_EP),
	FLD(MSG_STATUS, BUSY), FLD(MSG_STATUS, STATUS),
	FLD(EP_HEAD, EP), FLD(EP_HEAD, INDEX),

	SIZE("admin_cmd", SnodeAdminCmd),
	MEM("admin_cmd", SnodeAdminCmd, opcode),
	MEM("admin_cmd", SnodeAdminCmd, flags),
	MEM("admin_cmd", SnodeAdminCmd, cid),
	MEM("admin_cmd", SnodeAdminCmd, reserved),
	MEM("admin_cmd", SnodeAdminCmd, addr),
	MEM("admin_cmd", SnodeAdminCmd, len),
	MEM("admin_cmd", SnodeAdminCmd, cdw),
	SIZE("admin_cqe", SnodeAdminCpl),
	MEM("admin_cqe", SnodeAdminCpl, cid),
	MEM("admin_cqe", SnodeAdminCpl, status),
	MEM("admin_cqe", SnodeAdminCpl, result0),
	MEM("admin_cqe", SnodeAdminCpl, result1),
	MEM("admin_cqe", SnodeAdminCpl, sq_head),
	MEM("admin_cqe", SnodeAdminCpl, reserved),
	SIZE("event", SnodeEvent),
	MEM("event", SnodeEvent, type), MEM("event", SnodeEvent, flags),
	MEM("event", SnodeEvent, seq), MEM("event", SnodeEvent, timestamp),
	MEM("event", SnodeEvent, data),
	SIZE("node_topo", SnodeNodeTopo),
	MEM("node_topo", SnodeNodeTopo, sw),
	MEM("node_topo", SnodeNodeTopo, rack),
	MEM("node_topo", SnodeNodeTopo, plane),
	MEM("node_topo", SnodeNodeTopo, hops),
	MEM("node_topo", SnodeNodeTopo, state),
	MEM("node_topo", SnodeNodeTopo, reserved),
	SIZE("topo_name", SnodeTopoName),
	MEM("topo_name", SnodeTopoName, name),
	MEM("topo_name", SnodeTopoName, plane),
	MEM("topo_name", SnodeTopoName, reserved),
	SIZE("identify", SnodeIdentify),
	MEM("identify", SnodeIdentify, magic),
	MEM("identify", SnodeIdentify, version),
	MEM("identify", SnodeIdentify, fw_version),
	MEM("identify", SnodeIdentify, cap),
	MEM("identify", SnodeIdentify, node_id),
	MEM("identify", SnodeIdentify, fabric_id),
	MEM("identify", SnodeIdentify, nports),
	MEM("identify", SnodeIdentify, max_nodes),
	MEM("identify", SnodeIdentify, att_entries),
	MEM("identify", SnodeIdentify, export_entries),
	MEM("identify", SnodeIdentify, aperture_size),
	MEM("identify", SnodeIdentify, pool_size),
	MEM("identify", SnodeIdentify, endpoints),
	MEM("identify", SnodeIdentify, reserved0),
	MEM("identify", SnodeIdentify, max_dma_len),
	MEM("identify", SnodeIdentify, serial),
	MEM("identify", SnodeIdentify, fw_name),
	MEM("identify", SnodeIdentify, max_host_extents),
	MEM("identify", SnodeIdentify, reserved1),
	SIZE("port_info", SnodePortInfo),
	MEM("port_info", SnodePortInfo, port),
	MEM("port_info", SnodePortInfo, admin_state),
	MEM("port_info", SnodePortInfo, oper_state),
	MEM("port_info", SnodePortInfo, lanes),
	MEM("port_info", SnodePortInfo, max_lanes),
	MEM("port_info", SnodePortInfo, reserved0),
	MEM("port_info", SnodePortInfo, speed),
	MEM("port_info", SnodePortInfo, peer_node),
	MEM("port_info", SnodePortInfo, peer_port),
	MEM("port_info", SnodePortInfo, crc_errors),
	MEM("port_info", SnodePortInfo, replays),
	MEM("port_info", SnodePortInfo, recoveries),
	MEM("port_info", SnodePortInfo, down_events),
	MEM("port_info", SnodePortInfo, tx_bytes),
	MEM("port_info", SnodePortInfo, rx_bytes),
	MEM("port_info", SnodePortInfo, ber),
	MEM("port_info", SnodePortInfo, tx_msgs),
	MEM("port_info", SnodePortInfo, rx_msgs),
	MEM("port_info", SnodePortInfo, reserved1),
	SIZE("att_info", SnodeAttInfo),
	MEM("att_info", SnodeAttInfo, valid),
	MEM("att_info", SnodeAttInfo, flags),
	MEM("att_info", SnodeAttInfo, reserved0),
	MEM("att_info", SnodeAttInfo, node),
	MEM("att_info", SnodeAttInfo, aperture_offset),
	MEM("att_info", SnodeAttInfo, length),
	MEM("att_info", SnodeAttInfo, export_id),
	MEM("att_info", SnodeAttInfo, epoch),
	MEM("att_info", SnodeAttInfo, key),
	MEM("att_info", SnodeAttInfo, export_offset),
	MEM("att_info", SnodeAttInfo, revoke_reason),
	MEM("att_info", SnodeAttInfo, reserved1),
	SIZE("export_info", SnodeExportInfo),
	MEM("export_info", SnodeExportInfo, valid),
	MEM("export_info", SnodeExportInfo, flags),
	MEM("export_info", SnodeExportInfo, reserved0),
	MEM("export_info", SnodeExportInfo, importers),
	MEM("export_info", SnodeExportInfo, pool_offset),
	MEM("export_info", SnodeExportInfo, length),
	MEM("export_info", SnodeExportInfo, key),
	MEM("export_info", SnodeExportInfo, reserved1),
	SIZE("host_extent", SnodeHostExtent),
	MEM("host_extent", SnodeHostExtent, addr),
	MEM("host_extent", SnodeHostExtent, len),
	SIZE("hw_stats", SnodeStats),
	MEM("hw_stats", SnodeStats, admin_cmds),
	MEM("hw_stats", SnodeStats, events),
	MEM("hw_stats", SnodeStats, events_dropped),
	MEM("hw_stats", SnodeStats, access_violations),
	MEM("hw_stats", SnodeStats, msgs_sent),
	MEM("hw_stats", SnodeStats, msgs_received),
	MEM("hw_stats", SnodeStats, msgs_rejected),
	MEM("hw_stats", SnodeStats, dma_reqs),
	MEM("hw_stats", SnodeStats, dma_bytes),
	MEM("hw_stats", SnodeStats, dma_errors),
	MEM("hw_stats", SnodeStats, att_sets),
	MEM("hw_stats", SnodeStats, att_revokes),
	MEM("hw_stats", SnodeStats, resets),
	MEM("hw_stats", SnodeStats, reserved),
	SIZE("msg_slot", SnodeMsgSlot),
	MEM("msg_slot", SnodeMsgSlot, src_node),
	MEM("msg_slot", SnodeMsgSlot, src_ep),
	MEM("msg_slot", SnodeMsgSlot, len),
	MEM("msg_slot", SnodeMsgSlot, seq),
	MEM("msg_slot", SnodeMsgSlot, payload),
	SIZE("dma_desc", SnodeDmaDesc),
	MEM("dma_desc", SnodeDmaDesc, src), MEM("dma_desc", SnodeDmaDesc, dst),
	MEM("dma_desc", SnodeDmaDesc, len),
	MEM("dma_desc", SnodeDmaDesc, flags),
	MEM("dma_desc", SnodeDmaDesc, reserved),
	MEM("dma_desc", SnodeDmaDesc, tag),
	SIZE("dma_cqe", SnodeDmaCpl),
	MEM("dma_cqe", SnodeDmaCpl, tag), MEM("dma_cqe", SnodeDmaCpl, status),
	MEM("dma_cqe", SnodeDmaCpl, reserved),
	MEM("dma_cqe", SnodeDmaCpl, bytes_done),

	WORDS(SnodeCmdNone), WORDS(SnodeCmdTopoNames),
	WORDS(SnodeCmdPort), WORDS(SnodeCmdPortSet),
	WORDS(SnodeCmdNode), WORDS(SnodeCmdAttSet), WORDS(SnodeCmdAtt),
	WORDS(SnodeCmdExportSet), WORDS(SnodeCmdExport), WORDS(SnodeCmdEpSet),
	WORDS(SnodeCmdEp), WORDS(SnodeCmdEpHead), WORDS(SnodeCmdEcho),
	{ NULL, NULL, 0, 0 }
};
