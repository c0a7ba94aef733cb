/* SPDX-License-Identifier: GPL-2.0 */
/*
 * snode NIC hardware definitions, from Documentation/hw/snode-nic.rst
 * (contract v1.0). Register offsets are _OFFSET, bit fields are _MASK for
 * use with FIELD_GET()/FIELD_PREP().
 */
#ifndef _SNODE_HW_H_
#define _SNODE_HW_H_

#include <linux/bits.h>
#include <linux/build_bug.h>
#include <linux/stddef.h>
#include <linux/types.h>

#define PCI_VENDOR_ID_SNODE		0x1b36	/* placeholder, QEMU range */
#define PCI_DEVICE_ID_SNODE_NIC		0x0110	/* placeholder */

#define SNODE_BAR_REGS			0
#define SNODE_BAR_APERTURE		2
#define SNODE_BAR_POOL			4

/* MSI-X vectors, fixed by the device */
#define SNODE_VEC_ADMIN			0
#define SNODE_VEC_EVENT			1
#define SNODE_VEC_DMA			2
#define SNODE_NR_VECS_MIN		2	/* admin and event */
#define SNODE_NR_VECS_MAX		8

/* BAR0 registers */
#define SNODE_MAGIC_OFFSET		0x000
#define   SNODE_MAGIC			0x534e4f44	/* "SNOD" */
#define SNODE_VERSION_OFFSET		0x004
#define   SNODE_VERSION_MAJOR_MASK	GENMASK(31, 16)
#define   SNODE_VERSION_MINOR_MASK	GENMASK(15, 0)
#define   SNODE_VERSION_MAJOR_SUPPORTED	1
#define SNODE_FW_VERSION_OFFSET		0x008
#define   SNODE_FW_MAJOR_MASK		GENMASK(31, 24)
#define   SNODE_FW_MINOR_MASK		GENMASK(23, 16)
#define   SNODE_FW_PATCH_MASK		GENMASK(15, 0)
#define SNODE_CAP_OFFSET		0x00c
#define   SNODE_CAP_MASK		GENMASK(8, 0)
#define   SNODE_CAP_ATT			BIT(0)
#define   SNODE_CAP_EXPORT		BIT(1)
#define   SNODE_CAP_DMA			BIT(2)
#define   SNODE_CAP_MSG			BIT(3)
#define   SNODE_CAP_SENSORS		BIT(4)
#define   SNODE_CAP_COHERENT		BIT(5)
#define   SNODE_CAP_FLR			BIT(6)
#define   SNODE_CAP_EV_TOPO		BIT(7)
#define   SNODE_CAP_HOST_EXPORT		BIT(8)
#define SNODE_NODE_ID_OFFSET		0x010
#define SNODE_FABRIC_ID_OFFSET		0x014
#define SNODE_LIMITS0_OFFSET		0x018
#define   SNODE_LIMITS0_PORTS_MASK	GENMASK(7, 0)
#define   SNODE_LIMITS0_MAX_NODES_MASK	GENMASK(31, 16)
#define SNODE_LIMITS1_OFFSET		0x01c
#define   SNODE_LIMITS1_ATT_MASK	GENMASK(15, 0)
#define   SNODE_LIMITS1_EXPORT_MASK	GENMASK(31, 16)
#define SNODE_APERTURE_SIZE_LO_OFFSET	0x020
#define SNODE_APERTURE_SIZE_HI_OFFSET	0x024
#define SNODE_POOL_SIZE_LO_OFFSET	0x028
#define SNODE_POOL_SIZE_HI_OFFSET	0x02c
#define SNODE_SCRATCH_OFFSET		0x030
#define SNODE_LIMITS2_OFFSET		0x034
#define   SNODE_LIMITS2_ENDPOINTS_MASK	GENMASK(15, 0)
#define   SNODE_LIMITS2_MAX_DMA_KIB_MASK GENMASK(31, 16)

#define SNODE_CTRL_OFFSET		0x040
#define   SNODE_CTRL_ENABLE		BIT(0)
#define   SNODE_CTRL_RESET		BIT(1)
#define SNODE_STATUS_OFFSET		0x044
#define   SNODE_STATUS_READY		BIT(0)
#define   SNODE_STATUS_ATTACHED		BIT(1)
#define   SNODE_STATUS_FATAL		BIT(2)
#define   SNODE_STATUS_THROTTLED	BIT(3)
#define   SNODE_STATUS_ENABLED		BIT(4)
#define SNODE_INTR_CAUSE_OFFSET		0x048
#define SNODE_INTR_MASK_OFFSET		0x04c
#define   SNODE_INTR_ADMIN		BIT(0)
#define   SNODE_INTR_EVENT		BIT(1)
#define   SNODE_INTR_DMA		BIT(2)
#define   SNODE_INTR_MSG		BIT(3)
#define   SNODE_INTR_FATAL		BIT(4)
#define   SNODE_INTR_ALL		GENMASK(4, 0)

/* Queue registers: BASE_LO, BASE_HI, SIZE, then the doorbell/index */
#define SNODE_ASQ_OFFSET		0x080
#define SNODE_ACQ_OFFSET		0x090
#define SNODE_EQ_OFFSET			0x0a0
#define SNODE_DSQ_OFFSET		0x0b0
#define SNODE_DCQ_OFFSET		0x0c0
#define   SNODE_Q_BASE_LO		0x0
#define   SNODE_Q_BASE_HI		0x4
#define   SNODE_Q_SIZE			0x8
#define   SNODE_Q_INDEX			0xc	/* SQ tail, CQ head */
#define SNODE_Q_ALIGN			SZ_4K
#define SNODE_Q_ENTRIES_MIN		2
#define SNODE_Q_ENTRIES_MAX		4096

/* Sensors */
#define SNODE_TEMP_OFFSET		0x100
#define SNODE_TEMP_MAX_OFFSET		0x104
#define SNODE_TEMP_CRIT_OFFSET		0x108
#define SNODE_POWER_OFFSET		0x10c
#define SNODE_POWER_MAX_OFFSET		0x110
#define SNODE_SENSOR_ALARM_OFFSET	0x114
#define   SNODE_ALARM_TEMP_MAX		BIT(0)
#define   SNODE_ALARM_TEMP_CRIT		BIT(1)
#define   SNODE_ALARM_POWER_MAX		BIT(2)

#define SNODE_REGS_SIZE			0x1000

/* Message registers (section 9), one shared set per device */
#define SNODE_MSG_DST_OFFSET		0x1000
#define   SNODE_MSG_DST_EP_MASK		GENMASK(31, 16)
#define SNODE_MSG_NODE_OFFSET		0x1004
#define SNODE_MSG_KEY_LO_OFFSET		0x1008
#define SNODE_MSG_KEY_HI_OFFSET		0x100c
#define SNODE_MSG_LEN_OFFSET		0x1010
#define   SNODE_MSG_LEN_LEN_MASK	GENMASK(7, 0)
#define   SNODE_MSG_LEN_SRC_EP_MASK	GENMASK(31, 16)
#define SNODE_MSG_SEND_OFFSET		0x1014
#define   SNODE_MSG_SEND_GO		1
#define SNODE_MSG_STATUS_OFFSET		0x1018
#define   SNODE_MSG_STATUS_BUSY		BIT(0)
#define   SNODE_MSG_STATUS_STATUS_MASK	GENMASK(15, 8)
#define SNODE_EP_HEAD_OFFSET		0x101c
#define   SNODE_EP_HEAD_EP_MASK		GENMASK(31, 16)
#define   SNODE_EP_HEAD_INDEX_MASK	GENMASK(15, 0)
#define SNODE_MSG_DATA_OFFSET		0x1040
#define SNODE_MSG_DATA_LEN		48
#define SNODE_MSG_REGS_END		0x2000

/* Message endpoints: vectors, ring geometry */
#define SNODE_VEC_EP_FIRST		3
#define SNODE_VEC_EP_LAST		7
#define SNODE_EP_ENTRIES_MIN		2
#define SNODE_EP_ENTRIES_MAX		4096

/* One slot of an endpoint's receive ring, 64 bytes */
struct snode_msg_slot {
	__le32 src_node;
	__le16 src_ep;
	__le16 len;		/* 0 = doorbell, up to SNODE_MSG_DATA_LEN */
	__le64 seq;
	u8 payload[SNODE_MSG_DATA_LEN];
};

/* DMA engine (section 10) */
#define SNODE_DMA_SRC_APERTURE		BIT(0)
#define SNODE_DMA_DST_APERTURE		BIT(1)
#define SNODE_DMA_INTERRUPT		BIT(2)

/* DMA descriptor, 32 bytes (DSQ) */
struct snode_dma_desc {
	__le64 src;
	__le64 dst;
	__le32 len;
	__le16 flags;
	__le16 rsvd;
	__le64 tag;
};

/* DMA completion, 16 bytes (DCQ) */
struct snode_dma_cqe {
	__le64 tag;
	__le16 status;		/* bit 15 phase */
	__le16 rsvd;
	__le32 bytes_done;
};

/* STATS data, 128 bytes of counters */
struct snode_hw_stats {
	__le64 admin_cmds;
	__le64 events;
	__le64 events_dropped;
	__le64 access_violations;
	__le64 msgs_sent;
	__le64 msgs_received;
	__le64 msgs_rejected;
	__le64 dma_reqs;
	__le64 dma_bytes;
	__le64 dma_errors;
	__le64 att_sets;
	__le64 att_revokes;
	__le64 resets;
	__le64 rsvd[3];
};

/*
 * Admin command parameters (section 4), one struct per opcode that takes
 * any, overlaid on cdw[0..10] at offset 20 of the command. A command uses
 * the words its struct covers, from cdw0; the words after them are
 * reserved and must be 0. IDENTIFY, NODE_LIST, NODE_TOPO and STATS take
 * none.
 */
struct snode_cmd_port_query {
	__le32 port;
};

struct snode_cmd_port_set {
	__le32 port;
	__le32 action;		/* SNODE_PORT_SET_* */
};

struct snode_cmd_node_query {
	__le32 node;
};

struct snode_cmd_att_set {
	__le32 index;
	__le32 flags;		/* SNODE_PERM_* */
	__le32 aperture_offset_lo;
	__le32 aperture_offset_hi;
	__le32 length_lo;
	__le32 length_hi;
	__le32 node;
	__le32 export_id;
	__le32 key_lo;
	__le32 key_hi;
	__le32 export_offset;	/* 4 KiB units */
};

struct snode_cmd_att_clear {
	__le32 index;
};

struct snode_cmd_att_query {
	__le32 index;
};

struct snode_cmd_export_set {
	__le32 export_id;
	__le32 flags;		/* SNODE_PERM_*, SNODE_EXPORT_SET_NODEMASK */
	__le32 pool_offset_lo;
	__le32 pool_offset_hi;
	__le32 length_lo;
	__le32 length_hi;
	__le32 key_lo;
	__le32 key_hi;
	__le32 extents;		/* SNODE_EXPORT_SET_HOST: list entries */
};

struct snode_cmd_export_clear {
	__le32 export_id;
};

struct snode_cmd_export_query {
	__le32 export_id;
};

struct snode_cmd_ep_set {
	__le32 endpoint;
	__le32 vector;
	__le32 key_lo;
	__le32 key_hi;
	__le32 entries;
	__le32 tail_addr_lo;
	__le32 tail_addr_hi;
	__le32 head;
};

struct snode_cmd_ep_clear {
	__le32 endpoint;
};

struct snode_cmd_ep_head {
	__le32 endpoint;
	__le32 index;
};

struct snode_cmd_echo {
	__le32 value;
};

/* topology (decision 0030) */
struct snode_cmd_topo_names {
	__le32 kind;		/* SNODE_TOPO_SWITCHES, SNODE_TOPO_RACKS */
};

#define SNODE_CMD_WORDS_MAX		11

/* Admin command, 64 bytes */
struct snode_admin_cmd {
	u8 opcode;
	u8 flags;
	__le16 cid;
	__le32 rsvd;
	__le64 addr;
	__le32 len;
	union {
		__le32 cdw[SNODE_CMD_WORDS_MAX];
		struct snode_cmd_port_query port_query;
		struct snode_cmd_port_set port_set;
		struct snode_cmd_node_query node_query;
		struct snode_cmd_att_set att_set;
		struct snode_cmd_att_clear att_clear;
		struct snode_cmd_att_query att_query;
		struct snode_cmd_export_set export_set;
		struct snode_cmd_export_clear export_clear;
		struct snode_cmd_export_query export_query;
		struct snode_cmd_ep_set ep_set;
		struct snode_cmd_ep_clear ep_clear;
		struct snode_cmd_ep_head ep_head;
		struct snode_cmd_echo echo;
		struct snode_cmd_topo_names topo_names;
	};
};

/* Admin command results (section 4), overlaid on result0/result1 */
struct snode_res_identify {
	__le32 length;
};

struct snode_res_node_query {
	__le32 state;		/* SNODE_NODE_* */
	__le32 route_port;	/* SNODE_NODE_ROUTE_NONE: none */
};

struct snode_res_node_list {
	__le32 known;
};

struct snode_res_node_topo {
	__le32 known;
};

struct snode_res_topo_names {
	__le32 count;
};

struct snode_res_att_set {
	__le32 epoch;
};

struct snode_res_export_clear {
	__le32 revoked;
};

struct snode_res_echo {
	__le32 value;
	__le32 inverse;
};

/* Admin completion, 16 bytes */
struct snode_admin_cqe {
	__le16 cid;
	__le16 status;		/* bit 15 phase */
	union {
		struct {
			__le32 result0;
			__le32 result1;
		};
		struct snode_res_identify identify;
		struct snode_res_node_query node_query;
		struct snode_res_node_list node_list;
		struct snode_res_att_set att_set;
		struct snode_res_export_clear export_clear;
		struct snode_res_echo echo;
		struct snode_res_node_topo node_topo;
		struct snode_res_topo_names topo_names;
	};
	__le16 sq_head;
	__le16 rsvd;
};

/* Parameter words of a command: the size of its parameter struct */
#define SNODE_CMD_WORDS(type)		(sizeof(struct type) / sizeof(__le32))

static_assert(sizeof(struct snode_admin_cmd) == 64);
static_assert(offsetof(struct snode_admin_cmd, cdw) == 20);
static_assert(sizeof(struct snode_admin_cqe) == 16);
static_assert(offsetof(struct snode_admin_cqe, result0) == 4);
static_assert(offsetof(struct snode_admin_cqe, result1) == 8);
static_assert(offsetof(struct snode_admin_cqe, sq_head) == 12);
static_assert(SNODE_CMD_WORDS(snode_cmd_port_query) == 1);
static_assert(SNODE_CMD_WORDS(snode_cmd_port_set) == 2);
static_assert(SNODE_CMD_WORDS(snode_cmd_node_query) == 1);
static_assert(SNODE_CMD_WORDS(snode_cmd_att_set) == 11);
static_assert(offsetof(struct snode_admin_cmd, att_set.aperture_offset_lo) == 28);
static_assert(offsetof(struct snode_admin_cmd, att_set.node) == 44);
static_assert(offsetof(struct snode_admin_cmd, att_set.key_lo) == 52);
static_assert(offsetof(struct snode_admin_cmd, att_set.export_offset) == 60);
static_assert(SNODE_CMD_WORDS(snode_cmd_att_clear) == 1);
static_assert(SNODE_CMD_WORDS(snode_cmd_att_query) == 1);
static_assert(SNODE_CMD_WORDS(snode_cmd_export_set) == 9);
static_assert(offsetof(struct snode_admin_cmd, export_set.extents) == 52);
static_assert(offsetof(struct snode_admin_cmd, export_set.pool_offset_lo) == 28);
static_assert(offsetof(struct snode_admin_cmd, export_set.key_lo) == 44);
static_assert(SNODE_CMD_WORDS(snode_cmd_export_clear) == 1);
static_assert(SNODE_CMD_WORDS(snode_cmd_export_query) == 1);
static_assert(SNODE_CMD_WORDS(snode_cmd_ep_set) == 8);
static_assert(offsetof(struct snode_admin_cmd, ep_set.entries) == 36);
static_assert(offsetof(struct snode_admin_cmd, ep_set.tail_addr_lo) == 40);
static_assert(offsetof(struct snode_admin_cmd, ep_set.head) == 48);
static_assert(SNODE_CMD_WORDS(snode_cmd_ep_clear) == 1);
static_assert(SNODE_CMD_WORDS(snode_cmd_ep_head) == 2);
static_assert(SNODE_CMD_WORDS(snode_cmd_echo) == 1);
static_assert(offsetof(struct snode_admin_cqe, node_query.route_port) == 8);
static_assert(offsetof(struct snode_admin_cqe, echo.inverse) == 8);

#define SNODE_CQE_STATUS_MASK		GENMASK(14, 0)
#define SNODE_CQE_PHASE_MASK		BIT(15)

/* Event, 32 bytes */
struct snode_event {
	__le16 type;
	__le16 flags;		/* bit 15 phase */
	__le32 seq;
	__le64 timestamp;
	u8 data[16];
};

#define SNODE_EVENT_PHASE_MASK		BIT(15)

enum snode_status {
	SNODE_SC_SUCCESS = 0,
	SNODE_SC_INVALID_OPCODE = 1,
	SNODE_SC_INVALID_FIELD = 2,
	SNODE_SC_NO_RESOURCE = 3,
	SNODE_SC_BAD_KEY = 4,
	SNODE_SC_NOT_ALLOWED = 5,
	SNODE_SC_READ_ONLY = 6,
	SNODE_SC_NO_EXPORT = 7,
	SNODE_SC_UNREACHABLE = 8,
	SNODE_SC_BUSY = 9,
	SNODE_SC_INTERNAL = 10,
	SNODE_SC_DMA_ERROR = 11,
	SNODE_SC_TIMEOUT = 12,
	SNODE_SC_OUT_OF_RANGE = 13,
	SNODE_SC_NOT_ATTACHED = 14,
	SNODE_SC_QUEUE_FULL = 15,
	SNODE_SC_NO_ENDPOINT = 16,
	SNODE_SC_REVOKED = 17,
};

enum snode_opcode {
	SNODE_OP_IDENTIFY = 0x01,
	SNODE_OP_PORT_QUERY = 0x02,
	SNODE_OP_PORT_SET = 0x03,
	SNODE_OP_NODE_QUERY = 0x04,
	SNODE_OP_NODE_LIST = 0x05,
	SNODE_OP_NODE_TOPO = 0x06,
	SNODE_OP_TOPO_NAMES = 0x07,
	SNODE_OP_ATT_SET = 0x10,
	SNODE_OP_ATT_CLEAR = 0x11,
	SNODE_OP_ATT_QUERY = 0x12,
	SNODE_OP_EXPORT_SET = 0x20,
	SNODE_OP_EXPORT_CLEAR = 0x21,
	SNODE_OP_EXPORT_QUERY = 0x22,
	SNODE_OP_EP_SET = 0x30,
	SNODE_OP_EP_CLEAR = 0x31,
	SNODE_OP_EP_HEAD = 0x32,
	SNODE_OP_STATS = 0x40,
	SNODE_OP_ECHO = 0x41,
};

/* IDENTIFY data, 256 bytes */
struct snode_identify {
	__le32 magic;
	__le32 version;
	__le32 fw_version;
	__le32 cap;
	__le32 node_id;
	__le32 fabric_id;
	__le16 nports;
	__le16 max_nodes;
	__le16 att_entries;
	__le16 export_entries;
	__le64 aperture_size;
	__le64 pool_size;
	__le16 endpoints;
	__le16 rsvd0;
	__le32 max_dma_len;
	char serial[32];
	char fw_name[32];
	__le32 max_host_extents;
	u8 rsvd1[132];
};

enum snode_event_type {
	SNODE_EV_LINK_STATE = 1,
	SNODE_EV_LINK_BER = 2,
	SNODE_EV_NODE_STATE = 3,
	SNODE_EV_ACCESS_VIOLATION = 4,
	SNODE_EV_WINDOW_REVOKED = 5,
	SNODE_EV_THERMAL = 6,
	SNODE_EV_EQ_OVERFLOW = 7,
	SNODE_EV_FABRIC = 8,
	SNODE_EV_MSG_NOTIFY = 9,
	SNODE_EV_ADMIN_ASYNC = 10,
	SNODE_EV_MAX = SNODE_EV_ADMIN_ASYNC,
};

/* THERMAL event data */
struct snode_event_thermal {
	__le32 temp;
	__le32 alarm;
	__le32 power;
	__le32 rsvd;
};

/* EQ_OVERFLOW event data */
struct snode_event_overflow {
	__le32 lost;
	u8 rsvd[12];
};

/* FABRIC event data */
struct snode_event_fabric {
	u8 attached;
	u8 rsvd[15];
};

/* NODE_STATE event data; state as NODE_QUERY result0 */
#define SNODE_NODE_UNKNOWN		0
#define SNODE_NODE_UP			1
#define SNODE_NODE_UNREACHABLE		2
#define SNODE_NODE_DEAD			3

/* NODE_STATE event data; the topology only with SNODE_CAP_EV_TOPO */
struct snode_event_node_state {
	__le32 node;
	u8 state;
	u8 route_port;
	__le16 sw;
	__le16 rack;
	u8 plane;
	u8 hops;
	u8 rsvd[4];
};

/* WINDOW_REVOKED event data; reason as enum snode_revoke_reason 1-4 */
struct snode_event_window_revoked {
	__le16 att_index;
	__le16 reason;
	__le32 epoch;
	__le32 node;
	__le32 export_id;
};

/* ATT_SET and EXPORT_SET flags (cdw1) */
#define SNODE_PERM_READ			BIT(0)
#define SNODE_PERM_WRITE		BIT(1)
#define SNODE_EXPORT_SET_NODEMASK	BIT(2)
#define SNODE_EXPORT_SET_HOST		BIT(3)

/*
 * EXPORT_SET with HOST: the in buffer holds the extent list (cdw8
 * entries), then the nodemask if NODEMASK is set.
 */
struct snode_host_extent {
	__le64 addr;		/* bus address, 4 KiB aligned */
	__le64 len;		/* bytes, a multiple of 4 KiB, > 0 */
};

static_assert(sizeof(struct snode_host_extent) == 16);

/* ATT_SET: cdw10 is the offset inside the export in 4 KiB units */
#define SNODE_ATT_EXPORT_OFFSET_SHIFT	12
#define SNODE_ATT_EXPORT_OFFSET_MAX	(1ULL << (28 + 12))

/* ATT_QUERY data, 64 bytes */
struct snode_att_info {
	u8 valid;
	u8 flags;
	u8 rsvd0[2];
	__le32 node;
	__le64 aperture_offset;
	__le64 length;
	__le32 export_id;
	__le32 epoch;
	__le64 key;
	__le64 export_offset;
	__le32 revoke_reason;
	u8 rsvd1[12];
};

/* PORT_QUERY data, 128 bytes */
struct snode_port_info {
	u8 port;
	u8 admin_state;		/* SNODE_PORT_ADMIN_* */
	u8 oper_state;		/* SNODE_PORT_OPER_* */
	u8 lanes;
	u8 max_lanes;
	u8 rsvd0;
	__le16 speed;		/* per lane, Gb/s */
	__le32 peer_node;	/* SNODE_NODE_ID_NONE: a switch or nothing */
	__le32 peer_port;	/* SNODE_PORT_PEER_SWITCH: a switch id */
	__le64 crc_errors;
	__le64 replays;
	__le64 recoveries;
	__le64 down_events;
	__le64 tx_bytes;
	__le64 rx_bytes;
	__le64 ber;		/* IEEE-754 binary64 */
	__le64 tx_msgs;
	__le64 rx_msgs;
	u8 rsvd1[40];
};

#define SNODE_PORT_ADMIN_DOWN		0
#define SNODE_PORT_ADMIN_UP		1
#define SNODE_PORT_OPER_DOWN		0
#define SNODE_PORT_OPER_UP		1
#define SNODE_PORT_OPER_DEGRADED	2
#define SNODE_PORT_OPER_TRAINING	3
#define SNODE_PORT_PEER_SWITCH		BIT(31)

/* PORT_SET actions (cdw1) */
#define SNODE_PORT_SET_DOWN		1
#define SNODE_PORT_SET_UP		2
#define SNODE_PORT_SET_RESET		3
#define SNODE_PORT_SET_CLEAR		4

/* NODE_LIST data: one byte per node id */
#define SNODE_NODE_LIST_STATE_MASK	GENMASK(3, 0)
#define SNODE_NODE_LIST_ROUTE_MASK	GENMASK(7, 4)
#define SNODE_NODE_LIST_ROUTE_NONE	0xf
/* NODE_TOPO data: one entry per node id (decision 0030) */
struct snode_node_topo {
	__le16 sw;		/* switch delivering to the node, or NONE16 */
	__le16 rack;		/* the node's rack, or NONE16 */
	u8 plane;		/* of @sw, or SNODE_TOPO_NO_PLANE */
	u8 hops;		/* links of the route, 0: no route */
	u8 state;		/* as a NODE_LIST byte */
	u8 rsvd;
};

/* TOPO_NAMES data: one entry per switch or rack */
#define SNODE_TOPO_NAME_LEN		24
struct snode_topo_name {
	char name[SNODE_TOPO_NAME_LEN];	/* NUL padded */
	u8 plane;		/* switches; SNODE_TOPO_NO_PLANE: none */
	u8 rsvd[7];
};

static_assert(sizeof(struct snode_node_topo) == 8);
static_assert(sizeof(struct snode_topo_name) == 32);

#define SNODE_TOPO_SWITCHES		0
#define SNODE_TOPO_RACKS		1
#define SNODE_TOPO_MAX_NAMES		256	/* per kind */
#define SNODE_TOPO_NONE16		0xffff
#define SNODE_TOPO_NO_PLANE		0xff

/* NODE_STATE event and NODE_QUERY: route port when there is none */
#define SNODE_NODE_ROUTE_NONE		0xff

/* LINK_STATE event data */
struct snode_event_link_state {
	u8 port;
	u8 oper_state;
	u8 lanes;
	u8 rsvd;
	__le32 peer_node;
	__le64 down_events;
};

/* LINK_BER event data */
struct snode_event_link_ber {
	u8 port;
	u8 rsvd[7];
	__le64 ber;		/* IEEE-754 binary64 */
};

/* ACCESS_VIOLATION event data */
struct snode_event_access_violation {
	__le64 aperture_offset;
	u8 write;
	u8 rsvd[3];
	__le32 suppressed;
};

static inline void snode_hw_static_checks(void)
{
	BUILD_BUG_ON(sizeof(struct snode_admin_cmd) != 64);
	BUILD_BUG_ON(sizeof(struct snode_admin_cqe) != 16);
	BUILD_BUG_ON(sizeof(struct snode_event) != 32);
	BUILD_BUG_ON(sizeof(struct snode_identify) != 256);
	BUILD_BUG_ON(sizeof(struct snode_event_thermal) != 16);
	BUILD_BUG_ON(sizeof(struct snode_event_overflow) != 16);
	BUILD_BUG_ON(sizeof(struct snode_event_fabric) != 16);
	BUILD_BUG_ON(sizeof(struct snode_event_node_state) != 16);
	BUILD_BUG_ON(sizeof(struct snode_event_window_revoked) != 16);
	BUILD_BUG_ON(sizeof(struct snode_att_info) != 64);
	BUILD_BUG_ON(sizeof(struct snode_port_info) != 128);
	BUILD_BUG_ON(sizeof(struct snode_event_link_state) != 16);
	BUILD_BUG_ON(sizeof(struct snode_event_link_ber) != 16);
	BUILD_BUG_ON(sizeof(struct snode_event_access_violation) != 16);
	BUILD_BUG_ON(sizeof(struct snode_msg_slot) != 64);
	BUILD_BUG_ON(sizeof(struct snode_dma_desc) != 32);
	BUILD_BUG_ON(sizeof(struct snode_dma_cqe) != 16);
	BUILD_BUG_ON(sizeof(struct snode_hw_stats) != 128);
}

#endif /* _SNODE_HW_H_ */
