/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Wire protocol between the snode-nic QEMU device and the fabric manager.
 *
 * Transport: a UNIX SOCK_SEQPACKET socket (the fm listens on RUNDIR/fm.sock),
 * one message per packet, so no framing is needed. Every packet starts with
 * struct snode_fm_hdr; len counts the whole packet. Integers are host endian
 * (both ends always run on the same host).
 *
 * Requests carry a seq chosen by the sender; the reply echoes it with
 * SNODE_FM_F_REPLY set and a status from enum snode_fm_status (the same
 * values as the device's admin status codes in Documentation/hw/snode-nic.rst
 * section 3.4, so the device can pass them through unchanged).
 *
 * Who sends what:
 *   device -> fm : HELLO, HEARTBEAT, EXPORT_SET, EXPORT_CLEAR, GRANT,
 *                  GRANT_RELEASE, PORT_SET, MSG_SEND, MSG_DELIVER reply,
 *                  RESET, STATS (traffic byte counts for the link model)
 *   fm -> device : HELLO reply, all replies, REVOKE, NODE_STATE, PORT_STATE,
 *                  SENSOR, MSG_DELIVER, MSG_SEND reply, PEER
 *   device <-> device, on a direct link (PEER): MSG_DELIVER and its reply
 *
 * Direct links (decision 0039): the fm hands each pair of attached
 * devices that said SNODE_FM_HELLO_DIRECT the two ends of a socketpair
 * (SOCK_SEQPACKET), one PEER packet with the fd in SCM_RIGHTS to each.
 * A device then sends its messages and doorbells to that peer over it,
 * as MSG_DELIVER, and the peer answers as it answers the fm; the fm is not
 * on that path. Routes and faults stay the fm's: a device uses the link
 * only while its last NODE_STATE for the peer says UP (else it asks the fm
 * with MSG_SEND, which refuses or relays), and the receiving device
 * refuses a message from a node it was told is unreachable or dead. The
 * receiver takes the source node from the link, never from the packet.
 * Either end may close the link; the other then sends through the fm.
 *
 * Memory: the fm creates one file per node under /dev/shm, named in the
 * HELLO reply and GRANT reply. The device maps the peer's file itself
 * (MAP_SHARED) for a granted window, so data never crosses this socket.
 */
#ifndef SNODE_FM_PROTO_H
#define SNODE_FM_PROTO_H

#include <stdint.h>

#define SNODE_FM_PROTO_VERSION	1
#define SNODE_FM_PATH_MAX	108
#define SNODE_FM_MAX_NODES	1024
#define SNODE_FM_MAX_PORTS	8
#define SNODE_FM_MSG_MAX	48	/* message payload bytes */
#define SNODE_FM_HEARTBEAT_MS	100	/* device sends one this often */
#define SNODE_FM_DEAD_MS	1000	/* fm declares a silent node dead */
/* topology (switch planes, racks; decision 0030) */
#define SNODE_FM_MAX_RACKS	256
#define SNODE_FM_NAME_LEN	24	/* switch and rack names, NUL included */
#define SNODE_FM_NO_ID		0xffff	/* no switch, no rack */
#define SNODE_FM_NO_PLANE	0xff
/* host exports: segments of the exporter's RAM file (decision 0037) */
#define SNODE_FM_MAX_SEGS	1024
#define SNODE_FM_RAM_PREFIX	"/dev/shm/snode-"

enum snode_fm_type {
	SNODE_FM_HELLO = 1,
	SNODE_FM_HEARTBEAT,
	SNODE_FM_EXPORT_SET,
	SNODE_FM_EXPORT_CLEAR,
	SNODE_FM_GRANT,
	SNODE_FM_GRANT_RELEASE,
	SNODE_FM_REVOKE,
	SNODE_FM_NODE_STATE,
	SNODE_FM_PORT_STATE,
	SNODE_FM_PORT_SET,
	SNODE_FM_SENSOR,
	SNODE_FM_MSG_SEND,
	SNODE_FM_MSG_DELIVER,
	SNODE_FM_RESET,
	SNODE_FM_STATS,
	SNODE_FM_TOPO_NAMES,	/* topology (scale): names of switches, racks */
	SNODE_FM_PEER,		/* a direct link to another device (0039) */
};

#define SNODE_FM_F_REPLY	0x1

/* Same numbering as the device admin status codes. */
enum snode_fm_status {
	SNODE_FM_OK = 0,
	SNODE_FM_EINVAL = 2,
	SNODE_FM_ENORES = 3,
	SNODE_FM_EBADKEY = 4,
	SNODE_FM_ENOTALLOWED = 5,
	SNODE_FM_EREADONLY = 6,
	SNODE_FM_ENOEXPORT = 7,
	SNODE_FM_EUNREACH = 8,
	SNODE_FM_EBUSY = 9,
	SNODE_FM_EINTERNAL = 10,
	SNODE_FM_ETIMEOUT = 12,		/* the destination did not answer */
	SNODE_FM_ERANGE = 13,
	SNODE_FM_EQFULL = 15,
	SNODE_FM_ENOEP = 16,
};

/* Permission bits, as the device's ATT/EXPORT flags. */
#define SNODE_FM_PERM_READ	0x1
#define SNODE_FM_PERM_WRITE	0x2

/* Revocation reasons, as the device's WINDOW_REVOKED reasons. */
enum snode_fm_revoke_reason {
	SNODE_FM_REVOKE_UNEXPORT = 1,
	SNODE_FM_REVOKE_EXPORTER_RESET = 2,
	SNODE_FM_REVOKE_NODE_DEAD = 3,
	SNODE_FM_REVOKE_UNREACHABLE = 4,
};

/* Node states, as the device's NODE_QUERY states. */
enum snode_fm_node_st {
	SNODE_FM_NODE_UNKNOWN = 0,
	SNODE_FM_NODE_UP = 1,
	SNODE_FM_NODE_UNREACHABLE = 2,
	SNODE_FM_NODE_DEAD = 3,
};

/* Port operational states, as the device's PORT_QUERY oper_state. */
enum snode_fm_port_st {
	SNODE_FM_PORT_DOWN = 0,
	SNODE_FM_PORT_UP = 1,
	SNODE_FM_PORT_DEGRADED = 2,
	SNODE_FM_PORT_TRAINING = 3,
};

/* PORT_SET actions, as the device's PORT_SET cdw1. */
enum snode_fm_port_action {
	SNODE_FM_PORT_ADMIN_DOWN = 1,
	SNODE_FM_PORT_ADMIN_UP = 2,
	SNODE_FM_PORT_RESET = 3,
	SNODE_FM_PORT_CLEAR = 4,
};

struct snode_fm_hdr {
	uint16_t type;		/* enum snode_fm_type */
	uint16_t flags;		/* SNODE_FM_F_* */
	uint32_t len;		/* whole packet, header included */
	uint32_t seq;
	uint32_t status;	/* replies: enum snode_fm_status */
};

/* device -> fm; the reply is struct snode_fm_hello_reply. */
struct snode_fm_hello {
	struct snode_fm_hdr hdr;
	uint32_t version;	/* SNODE_FM_PROTO_VERSION */
	uint32_t node;		/* fabric node id the device was given */
	uint32_t pid;		/* QEMU's pid, for kill fault injection */
	uint32_t features;	/* SNODE_FM_HELLO_*; an fm ignores unknown bits */
};

/* HELLO features */
#define SNODE_FM_HELLO_DIRECT	0x1	/* takes PEER direct links */

struct snode_fm_hello_reply {
	struct snode_fm_hdr hdr;	/* status EINVAL: unknown or taken node */
	uint32_t version;
	uint32_t node;
	uint32_t fabric_id;
	uint32_t nports;
	uint32_t max_nodes;
	uint32_t reserved;
	uint64_t pool_size;
	char pool_path[SNODE_FM_PATH_MAX];	/* this node's memory file */
	char serial[32];
};

/* device -> fm, every SNODE_FM_HEARTBEAT_MS; no reply. */
struct snode_fm_heartbeat {
	struct snode_fm_hdr hdr;
};

/* A run of a memory file: bytes [offset, offset + len), 4 KiB aligned. */
struct snode_fm_seg {
	uint64_t offset;
	uint64_t len;
};

/*
 * device -> fm; reply is a bare header with a status. A pool export has
 * nseg 0 and names offset/len of the pool; a host export (nseg > 0,
 * offset 0) names nseg segments of the exporter's RAM file @path, in
 * export order, adding up to len; they follow the struct.
 */
struct snode_fm_export_set {
	struct snode_fm_hdr hdr;
	uint32_t export_id;
	uint32_t perm;		/* SNODE_FM_PERM_* */
	uint64_t offset;	/* in the exporter's pool */
	uint64_t len;
	uint64_t key;
	uint32_t all_nodes;	/* 1: every node may import; else nodemask */
	uint32_t reserved;
	uint8_t nodemask[SNODE_FM_MAX_NODES / 8];
	uint32_t nseg;		/* host exports: segments that follow */
	uint32_t reserved2;
	char path[SNODE_FM_PATH_MAX];	/* host exports: the RAM file */
	struct snode_fm_seg seg[];
};

/* device -> fm; reply header's status, plus revoked count. */
struct snode_fm_export_clear {
	struct snode_fm_hdr hdr;
	uint32_t export_id;
	uint32_t revoked;	/* reply: importers revoked */
};

/* device -> fm: validate and take a grant for ATT entry att_index. */
struct snode_fm_grant {
	struct snode_fm_hdr hdr;
	uint32_t att_index;
	uint32_t perm;
	uint32_t node;		/* exporter */
	uint32_t export_id;
	uint64_t key;
	uint64_t offset;	/* inside the export, bytes */
	uint64_t len;
};

struct snode_fm_grant_reply {
	struct snode_fm_hdr hdr;	/* status: OK or the refusal */
	uint32_t att_index;
	uint32_t reserved;
	uint64_t file_offset;		/* offset in the exporter's file */
	uint64_t len;
	char path[SNODE_FM_PATH_MAX];	/* exporter's memory file */
	/*
	 * A host export: the window is nseg segments of @path, in order,
	 * adding up to len (file_offset is then 0); 0: one run at
	 * file_offset.
	 */
	uint32_t nseg;
	uint32_t reserved2;
	struct snode_fm_seg seg[];
};

/* device -> fm: the ATT entry no longer uses its grant; no reply. */
struct snode_fm_grant_release {
	struct snode_fm_hdr hdr;
	uint32_t att_index;
	uint32_t reserved;
};

/* fm -> device: the grant behind att_index is gone; no reply. */
struct snode_fm_revoke {
	struct snode_fm_hdr hdr;
	uint32_t att_index;
	uint32_t reason;	/* enum snode_fm_revoke_reason */
};

/* fm -> device: a node's state, route or topology changed; no reply. */
struct snode_fm_node_state {
	struct snode_fm_hdr hdr;
	uint32_t node;
	uint8_t state;		/* enum snode_fm_node_st */
	uint8_t route_port;	/* 0xff: none */
	uint16_t reserved;
	/* topology of the route (decision 0030) */
	uint8_t hops;		/* links crossed, 0: no route */
	uint8_t plane;		/* of @sw; SNODE_FM_NO_PLANE: none */
	uint16_t sw;		/* switch delivering to the node, or NO_ID */
	uint16_t rack;		/* the node's rack, or SNODE_FM_NO_ID */
	uint16_t reserved2;
};

/* fm -> device: the state and counters of one of its ports; no reply.
 * Sent on every change and periodically (at least every 200 ms). */
struct snode_fm_port_state {
	struct snode_fm_hdr hdr;
	uint8_t port;
	uint8_t admin_state;
	uint8_t oper_state;	/* enum snode_fm_port_st */
	uint8_t lanes;
	uint8_t max_lanes;
	uint8_t reserved;
	uint16_t speed;		/* Gb/s per lane */
	uint32_t peer_node;	/* 0xffffffff: switch */
	uint32_t peer_port;	/* bit 31: switch id */
	uint64_t crc_errors;
	uint64_t replays;
	uint64_t recoveries;
	uint64_t down_events;
	double ber;
};

/* device -> fm: port action; reply header's status. */
struct snode_fm_port_set {
	struct snode_fm_hdr hdr;
	uint32_t port;
	uint32_t action;	/* enum snode_fm_port_action */
};

/* fm -> device: injected sensor values; no reply. */
struct snode_fm_sensor {
	struct snode_fm_hdr hdr;
	int32_t temp_mc;	/* milli-degC */
	uint32_t power_mw;
};

/*
 * device -> fm: send a message; fm routes it to the destination device as
 * MSG_DELIVER and forwards that reply's status back as this one's reply.
 */
struct snode_fm_msg {
	struct snode_fm_hdr hdr;
	uint32_t src_node;	/* filled in by the fm on delivery */
	uint32_t dst_node;
	uint16_t src_ep;
	uint16_t dst_ep;
	uint16_t len;		/* payload bytes, 0 = doorbell */
	uint16_t reserved;
	uint64_t key;
	uint64_t msg_seq;	/* per (src node, dst endpoint), from 1 */
	uint8_t data[SNODE_FM_MSG_MAX];
};

/* device -> fm: the device was reset (FLR): drop its exports and grants. */
struct snode_fm_reset {
	struct snode_fm_hdr hdr;
};

/* device -> fm: traffic the device moved since the last report; no reply. */
struct snode_fm_stats {
	struct snode_fm_hdr hdr;
	uint32_t port;
	uint32_t reserved;
	uint64_t tx_bytes;
	uint64_t rx_bytes;
};

/*
 * fm -> device, after the HELLO reply: the names of the fabric's switches
 * (with their planes) and racks, the ids NODE_STATE and PORT_STATE use
 * being indexes into them (decision 0030); no reply. @nswitches entries
 * then @nracks; len says how many follow the header.
 */
struct snode_fm_topo_ent {
	char name[SNODE_FM_NAME_LEN];	/* NUL terminated */
	uint8_t plane;			/* switches; SNODE_FM_NO_PLANE: none */
	uint8_t reserved[7];
};

struct snode_fm_topo_names {
	struct snode_fm_hdr hdr;
	uint16_t nswitches;
	uint16_t nracks;
	uint32_t reserved;
	struct snode_fm_topo_ent ent[];
};

/*
 * fm -> device: a direct link to @node (decision 0039); no reply.
 * SNODE_FM_PEER_ATTACH carries exactly one fd (SCM_RIGHTS), an AF_UNIX
 * SOCK_SEQPACKET socket whose other end @node's device holds; it replaces
 * any link to @node the device had. SNODE_FM_PEER_DETACH carries none: stop
 * using the link to @node and close it (every message goes through the fm).
 * @node the device's own: loopback, no fd either way; ATTACH (the default
 * at HELLO) turns a message to the own node around in the device, DETACH
 * sends it through the fm like any other.
 */
enum snode_fm_peer_op {
	SNODE_FM_PEER_ATTACH = 1,
	SNODE_FM_PEER_DETACH = 2,
};

struct snode_fm_peer {
	struct snode_fm_hdr hdr;
	uint32_t node;
	uint32_t op;		/* enum snode_fm_peer_op */
};

#endif /* SNODE_FM_PROTO_H */
