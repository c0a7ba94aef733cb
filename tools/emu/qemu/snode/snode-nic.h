/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * snode-nic: register map and in-memory structures of the snode supernode
 * interconnect NIC, as specified by Documentation/hw/snode-nic.rst (v1.0).
 * The section numbers in the comments refer to that document.
 */
#ifndef HW_MISC_SNODE_NIC_H
#define HW_MISC_SNODE_NIC_H

#include "hw/registerfields.h"

#define TYPE_SNODE_NIC              "snode-nic"

/* Section 1: identity (placeholders, see the doc) */
#define SNODE_VENDOR_ID             0x1b36
#define SNODE_DEVICE_ID             0x0110
#define SNODE_REVISION              0x01
#define SNODE_CLASS                 0x0280
#define SNODE_SUBSYS_VENDOR_ID      0x1af4
#define SNODE_SUBSYS_ID             0x1100

#define SNODE_MAGIC                 0x534e4f44  /* "SNOD" */
#define SNODE_VERSION               0x00010000
#define SNODE_FW_VERSION            0x01000000  /* 1.0.0 */
#define SNODE_FW_NAME               "snode-qemu"

#define SNODE_BAR0_SIZE             0x4000
#define SNODE_MSIX_TABLE            0x2000
#define SNODE_MSIX_PBA              0x3000
#define SNODE_MSIX_VECTORS          8

#define SNODE_VEC_ADMIN             0
#define SNODE_VEC_EVENT             1
#define SNODE_VEC_DMA               2
#define SNODE_VEC_EP_FIRST          3
#define SNODE_VEC_EP_LAST           7

#define SNODE_NODE_NONE             0xffffffffu
#define SNODE_MAX_NODES             1024
#define SNODE_MAX_PORTS             8
#define SNODE_QUEUE_MIN             2
#define SNODE_QUEUE_MAX             4096
#define SNODE_ATT_ALIGN             (2 * 1024 * 1024)
#define SNODE_PAGE                  4096
#define SNODE_MAX_DMA_LEN           (16 * 1024 * 1024)
#define SNODE_MSG_MAX               48
#define SNODE_MSG_SLOT              64

/* Section 2: BAR0 registers */
REG32(MAGIC, 0x000)
REG32(VERSION, 0x004)
    FIELD(VERSION, MINOR, 0, 16)
    FIELD(VERSION, MAJOR, 16, 16)
REG32(FW_VERSION, 0x008)
    FIELD(FW_VERSION, PATCH, 0, 16)
    FIELD(FW_VERSION, MINOR, 16, 8)
    FIELD(FW_VERSION, MAJOR, 24, 8)
REG32(CAP, 0x00c)
    FIELD(CAP, ATT, 0, 1)
    FIELD(CAP, EXPORT, 1, 1)
    FIELD(CAP, DMA, 2, 1)
    FIELD(CAP, MSG, 3, 1)
    FIELD(CAP, SENSORS, 4, 1)
    FIELD(CAP, COHERENT, 5, 1)
    FIELD(CAP, FLR, 6, 1)
    FIELD(CAP, EV_TOPO, 7, 1)
    FIELD(CAP, HOST_EXPORT, 8, 1)
REG32(NODE_ID, 0x010)
REG32(FABRIC_ID, 0x014)
REG32(LIMITS0, 0x018)
    FIELD(LIMITS0, PORTS, 0, 8)
    FIELD(LIMITS0, MAX_NODES, 16, 16)
REG32(LIMITS1, 0x01c)
    FIELD(LIMITS1, ATT, 0, 16)
    FIELD(LIMITS1, EXPORT, 16, 16)
REG32(APERTURE_SIZE_LO, 0x020)
REG32(APERTURE_SIZE_HI, 0x024)
REG32(POOL_SIZE_LO, 0x028)
REG32(POOL_SIZE_HI, 0x02c)
REG32(SCRATCH, 0x030)
REG32(LIMITS2, 0x034)
    FIELD(LIMITS2, ENDPOINTS, 0, 16)
    FIELD(LIMITS2, MAX_DMA_KIB, 16, 16)
REG32(CTRL, 0x040)
    FIELD(CTRL, ENABLE, 0, 1)
    FIELD(CTRL, RESET, 1, 1)
REG32(STATUS, 0x044)
    FIELD(STATUS, READY, 0, 1)
    FIELD(STATUS, ATTACHED, 1, 1)
    FIELD(STATUS, FATAL, 2, 1)
    FIELD(STATUS, THROTTLED, 3, 1)
    FIELD(STATUS, ENABLED, 4, 1)
REG32(INTR_CAUSE, 0x048)
    FIELD(INTR, ADMIN, 0, 1)
    FIELD(INTR, EVENT, 1, 1)
    FIELD(INTR, DMA, 2, 1)
    FIELD(INTR, MSG, 3, 1)
    FIELD(INTR, FATAL, 4, 1)
REG32(INTR_MASK, 0x04c)
REG32(ASQ_BASE_LO, 0x080)
REG32(ASQ_BASE_HI, 0x084)
REG32(ASQ_SIZE, 0x088)
REG32(ASQ_TAIL, 0x08c)
REG32(ACQ_BASE_LO, 0x090)
REG32(ACQ_BASE_HI, 0x094)
REG32(ACQ_SIZE, 0x098)
REG32(ACQ_HEAD, 0x09c)
REG32(EQ_BASE_LO, 0x0a0)
REG32(EQ_BASE_HI, 0x0a4)
REG32(EQ_SIZE, 0x0a8)
REG32(EQ_HEAD, 0x0ac)
REG32(DSQ_BASE_LO, 0x0b0)
REG32(DSQ_BASE_HI, 0x0b4)
REG32(DSQ_SIZE, 0x0b8)
REG32(DSQ_TAIL, 0x0bc)
REG32(DCQ_BASE_LO, 0x0c0)
REG32(DCQ_BASE_HI, 0x0c4)
REG32(DCQ_SIZE, 0x0c8)
REG32(DCQ_HEAD, 0x0cc)
REG32(TEMP, 0x100)
REG32(TEMP_MAX, 0x104)
REG32(TEMP_CRIT, 0x108)
REG32(POWER, 0x10c)
REG32(POWER_MAX, 0x110)
REG32(SENSOR_ALARM, 0x114)
    FIELD(SENSOR_ALARM, TEMP_MAX, 0, 1)
    FIELD(SENSOR_ALARM, TEMP_CRIT, 1, 1)
    FIELD(SENSOR_ALARM, POWER_MAX, 2, 1)

#define SNODE_INTR_ALL              0x1f

/* Section 9: message registers */
REG32(MSG_DST, 0x1000)
    FIELD(MSG_DST, EP, 16, 16)
REG32(MSG_NODE, 0x1004)
REG32(MSG_KEY_LO, 0x1008)
REG32(MSG_KEY_HI, 0x100c)
REG32(MSG_LEN, 0x1010)
    FIELD(MSG_LEN, LEN, 0, 8)
    FIELD(MSG_LEN, SRC_EP, 16, 16)
REG32(MSG_SEND, 0x1014)
REG32(MSG_STATUS, 0x1018)
    FIELD(MSG_STATUS, BUSY, 0, 1)
    FIELD(MSG_STATUS, STATUS, 8, 8)
REG32(EP_HEAD, 0x101c)
    FIELD(EP_HEAD, INDEX, 0, 16)
    FIELD(EP_HEAD, EP, 16, 16)
REG32(MSG_DATA, 0x1040)
#define SNODE_MSG_DATA_END          (A_MSG_DATA + SNODE_MSG_MAX)

/* Section 3.4: status codes */
enum snode_status {
    SNODE_ST_SUCCESS = 0,
    SNODE_ST_INVALID_OPCODE = 1,
    SNODE_ST_INVALID_FIELD = 2,
    SNODE_ST_NO_RESOURCE = 3,
    SNODE_ST_BAD_KEY = 4,
    SNODE_ST_NOT_ALLOWED = 5,
    SNODE_ST_READ_ONLY = 6,
    SNODE_ST_NO_EXPORT = 7,
    SNODE_ST_UNREACHABLE = 8,
    SNODE_ST_BUSY = 9,
    SNODE_ST_INTERNAL = 10,
    SNODE_ST_DMA_ERROR = 11,
    SNODE_ST_TIMEOUT = 12,
    SNODE_ST_OUT_OF_RANGE = 13,
    SNODE_ST_NOT_ATTACHED = 14,
    SNODE_ST_QUEUE_FULL = 15,
    SNODE_ST_NO_ENDPOINT = 16,
    SNODE_ST_REVOKED = 17,
};

/* Section 4: admin opcodes */
enum snode_opcode {
    SNODE_OP_IDENTIFY = 0x01,
    SNODE_OP_PORT_QUERY = 0x02,
    SNODE_OP_PORT_SET = 0x03,
    SNODE_OP_NODE_QUERY = 0x04,
    SNODE_OP_NODE_LIST = 0x05,
    SNODE_OP_NODE_TOPO = 0x06,      /* topology (decision 0030) */
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

#define SNODE_PERM_READ             0x1
#define SNODE_PERM_WRITE            0x2
#define SNODE_EXPORT_NODEMASK       0x4
#define SNODE_EXPORT_HOST           0x8

/* Section 6, EXPORT_SET with HOST: one entry of the extent list */
typedef struct QEMU_PACKED SnodeHostExtent {
    uint64_t addr;      /* bus address, 4 KiB aligned */
    uint64_t len;       /* bytes, a multiple of 4 KiB, > 0 */
} SnodeHostExtent;

/* Section 8: event types */
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
};

/* Section 10: DMA descriptor flags */
#define SNODE_DMA_SRC_APERTURE      0x1
#define SNODE_DMA_DST_APERTURE      0x2
#define SNODE_DMA_INTERRUPT         0x4

#define SNODE_PHASE                 0x8000

/*
 * Section 4: the parameters of each admin command, overlaid on cdw[0..10]
 * (command offset 20). A command uses the words its struct covers, from
 * cdw0; the words after them are reserved. Names follow the document.
 */
typedef struct SnodeCmdPort {           /* PORT_QUERY */
    uint32_t port;
} SnodeCmdPort;

typedef struct SnodeCmdPortSet {
    uint32_t port;
    uint32_t action;
} SnodeCmdPortSet;

typedef struct SnodeCmdNode {           /* NODE_QUERY */
    uint32_t node;
} SnodeCmdNode;

typedef struct SnodeCmdAttSet {
    uint32_t index;
    uint32_t flags;
    uint32_t aperture_offset_lo;
    uint32_t aperture_offset_hi;
    uint32_t length_lo;
    uint32_t length_hi;
    uint32_t node;
    uint32_t export_id;
    uint32_t key_lo;
    uint32_t key_hi;
    uint32_t export_offset;             /* 4 KiB units */
} SnodeCmdAttSet;

typedef struct SnodeCmdAtt {            /* ATT_CLEAR, ATT_QUERY */
    uint32_t index;
} SnodeCmdAtt;

typedef struct SnodeCmdExportSet {
    uint32_t export_id;
    uint32_t flags;
    uint32_t pool_offset_lo;
    uint32_t pool_offset_hi;
    uint32_t length_lo;
    uint32_t length_hi;
    uint32_t key_lo;
    uint32_t key_hi;
    uint32_t extents;   /* HOST: entries of the extent list */
} SnodeCmdExportSet;

typedef struct SnodeCmdExport {         /* EXPORT_CLEAR, EXPORT_QUERY */
    uint32_t export_id;
} SnodeCmdExport;

typedef struct SnodeCmdEpSet {
    uint32_t endpoint;
    uint32_t vector;
    uint32_t key_lo;
    uint32_t key_hi;
    uint32_t entries;
    uint32_t tail_addr_lo;
    uint32_t tail_addr_hi;
    uint32_t head;
} SnodeCmdEpSet;

typedef struct SnodeCmdEp {             /* EP_CLEAR */
    uint32_t endpoint;
} SnodeCmdEp;

typedef struct SnodeCmdEpHead {
    uint32_t endpoint;
    uint32_t index;
} SnodeCmdEpHead;

typedef struct SnodeCmdEcho {
    uint32_t value;
} SnodeCmdEcho;

/* TOPO_NAMES: which table (decision 0030) */
typedef struct SnodeCmdTopoNames {
    uint32_t kind;
} SnodeCmdTopoNames;

#define SNODE_TOPO_SWITCHES         0
#define SNODE_TOPO_RACKS            1
#define SNODE_TOPO_MAX_NAMES        256     /* per kind */
#define SNODE_TOPO_NAME_LEN         24
#define SNODE_TOPO_NONE16           0xffff  /* no switch, no rack */
#define SNODE_TOPO_NO_PLANE         0xff

/* NODE_TOPO out buffer: one per node id */
typedef struct SnodeNodeTopo {
    uint16_t sw;
    uint16_t rack;
    uint8_t plane;
    uint8_t hops;
    uint8_t state;      /* as a NODE_LIST byte */
    uint8_t reserved;
} SnodeNodeTopo;
_Static_assert(sizeof(SnodeNodeTopo) == 8, "NODE_TOPO entry is 8 bytes");

/* TOPO_NAMES out buffer: one per switch or rack */
typedef struct SnodeTopoName {
    char name[SNODE_TOPO_NAME_LEN];
    uint8_t plane;
    uint8_t reserved[7];
} SnodeTopoName;
_Static_assert(sizeof(SnodeTopoName) == 32, "TOPO_NAMES entry is 32 bytes");

/* IDENTIFY, NODE_LIST, NODE_TOPO and STATS take no parameters. */
typedef struct SnodeCmdNone {
} SnodeCmdNone;

#define SNODE_CMD_WORDS_MAX         11

/* Section 3.1; naturally aligned, so not packed: handlers take &c->att_set */
typedef struct SnodeAdminCmd {
    uint8_t opcode;
    uint8_t flags;
    uint16_t cid;
    uint32_t reserved;
    uint64_t addr;
    uint32_t len;
    union {
        uint32_t cdw[SNODE_CMD_WORDS_MAX];
        SnodeCmdPort port_query;
        SnodeCmdPortSet port_set;
        SnodeCmdNode node_query;
        SnodeCmdAttSet att_set;
        SnodeCmdAtt att_clear;
        SnodeCmdAtt att_query;
        SnodeCmdExportSet export_set;
        SnodeCmdExport export_clear;
        SnodeCmdExport export_query;
        SnodeCmdEpSet ep_set;
        SnodeCmdEp ep_clear;
        SnodeCmdEpHead ep_head;
        SnodeCmdEcho echo;
        SnodeCmdTopoNames topo_names;
    };
} SnodeAdminCmd;
_Static_assert(sizeof(SnodeAdminCmd) == 64, "admin command is 64 bytes");

/* Section 4: the results of each admin command, in result0/result1 */
typedef struct SnodeResIdentify {
    uint32_t length;
} SnodeResIdentify;

typedef struct SnodeResNodeQuery {
    uint32_t state;
    uint32_t route_port;
} SnodeResNodeQuery;

typedef struct SnodeResNodeList {
    uint32_t known;
} SnodeResNodeList;

typedef struct SnodeResNodeTopo {
    uint32_t known;
} SnodeResNodeTopo;

typedef struct SnodeResTopoNames {
    uint32_t count;
} SnodeResTopoNames;

typedef struct SnodeResAttSet {
    uint32_t epoch;
} SnodeResAttSet;

typedef struct SnodeResExportClear {
    uint32_t revoked;
} SnodeResExportClear;

typedef struct SnodeResEcho {
    uint32_t value;
    uint32_t inverse;
} SnodeResEcho;

/* Section 3.2; naturally aligned */
typedef struct SnodeAdminCpl {
    uint16_t cid;
    uint16_t status;
    union {
        struct {
            uint32_t result0;
            uint32_t result1;
        };
        SnodeResIdentify identify;
        SnodeResNodeQuery node_query;
        SnodeResNodeList node_list;
        SnodeResAttSet att_set;
        SnodeResExportClear export_clear;
        SnodeResEcho echo;
        SnodeResNodeTopo node_topo;
        SnodeResTopoNames topo_names;
    };
    uint16_t sq_head;
    uint16_t reserved;
} SnodeAdminCpl;
_Static_assert(sizeof(SnodeAdminCpl) == 16, "admin completion is 16 bytes");

/* Section 3.3 */
typedef struct QEMU_PACKED SnodeEvent {
    uint16_t type;
    uint16_t flags;
    uint32_t seq;
    uint64_t timestamp;
    uint8_t data[16];
} SnodeEvent;

/* Section 4, IDENTIFY */
typedef struct QEMU_PACKED SnodeIdentify {
    uint32_t magic;
    uint32_t version;
    uint32_t fw_version;
    uint32_t cap;
    uint32_t node_id;
    uint32_t fabric_id;
    uint16_t nports;
    uint16_t max_nodes;
    uint16_t att_entries;
    uint16_t export_entries;
    uint64_t aperture_size;
    uint64_t pool_size;
    uint16_t endpoints;
    uint16_t reserved0;
    uint32_t max_dma_len;
    char serial[32];
    char fw_name[32];
    uint32_t max_host_extents;
    uint8_t reserved1[132];
} SnodeIdentify;

/* Section 4, PORT_QUERY */
typedef struct QEMU_PACKED SnodePortInfo {
    uint8_t port;
    uint8_t admin_state;
    uint8_t oper_state;
    uint8_t lanes;
    uint8_t max_lanes;
    uint8_t reserved0;
    uint16_t speed;
    uint32_t peer_node;
    uint32_t peer_port;
    uint64_t crc_errors;
    uint64_t replays;
    uint64_t recoveries;
    uint64_t down_events;
    uint64_t tx_bytes;
    uint64_t rx_bytes;
    uint64_t ber;           /* IEEE-754 double bits */
    uint64_t tx_msgs;
    uint64_t rx_msgs;
    uint8_t reserved1[40];
} SnodePortInfo;

/* Section 4, ATT_QUERY */
typedef struct QEMU_PACKED SnodeAttInfo {
    uint8_t valid;
    uint8_t flags;
    uint16_t reserved0;
    uint32_t node;
    uint64_t aperture_offset;
    uint64_t length;
    uint32_t export_id;
    uint32_t epoch;
    uint64_t key;
    uint64_t export_offset;
    uint32_t revoke_reason;
    uint8_t reserved1[12];
} SnodeAttInfo;

/* Section 4, EXPORT_QUERY */
typedef struct QEMU_PACKED SnodeExportInfo {
    uint8_t valid;
    uint8_t flags;
    uint16_t reserved0;
    uint32_t importers;
    uint64_t pool_offset;
    uint64_t length;
    uint64_t key;
    uint8_t reserved1[32];
} SnodeExportInfo;

/* Section 4, STATS */
typedef struct QEMU_PACKED SnodeStats {
    uint64_t admin_cmds;
    uint64_t events;
    uint64_t events_dropped;
    uint64_t access_violations;
    uint64_t msgs_sent;
    uint64_t msgs_received;
    uint64_t msgs_rejected;
    uint64_t dma_reqs;
    uint64_t dma_bytes;
    uint64_t dma_errors;
    uint64_t att_sets;
    uint64_t att_revokes;
    uint64_t resets;
    uint64_t reserved[3];
} SnodeStats;

/* Section 9, receive ring slot */
typedef struct QEMU_PACKED SnodeMsgSlot {
    uint32_t src_node;
    uint16_t src_ep;
    uint16_t len;
    uint64_t seq;
    uint8_t payload[SNODE_MSG_MAX];
} SnodeMsgSlot;

/* Section 10 */
typedef struct QEMU_PACKED SnodeDmaDesc {
    uint64_t src;
    uint64_t dst;
    uint32_t len;
    uint16_t flags;
    uint16_t reserved;
    uint64_t tag;
} SnodeDmaDesc;

typedef struct QEMU_PACKED SnodeDmaCpl {
    uint64_t tag;
    uint16_t status;
    uint16_t reserved;
    uint32_t bytes_done;
} SnodeDmaCpl;

#endif /* HW_MISC_SNODE_NIC_H */
