/* SPDX-License-Identifier: ((GPL-2.0 WITH Linux-syscall-note) OR BSD-3-Clause) */
/* Do not edit directly, auto-generated from: */
/*	Documentation/netlink/specs/snode.yaml */
/* YNL-GEN uapi header */

#ifndef _UAPI_LINUX_SNODE_NL_H
#define _UAPI_LINUX_SNODE_NL_H

#define SNODE_FAMILY_NAME	"snode"
#define SNODE_FAMILY_VERSION	1

/**
 * enum snode_dev_state - State of a NIC as the driver sees it.
 * @SNODE_DEV_STATE_LIVE: Working; commands reach the device.
 * @SNODE_DEV_STATE_RESETTING: A function-level reset is in progress.
 * @SNODE_DEV_STATE_DEAD: The device failed to come back from a reset.
 * @SNODE_DEV_STATE_REMOVED: The PCI function is gone.
 */
enum snode_dev_state {
	SNODE_DEV_STATE_LIVE,
	SNODE_DEV_STATE_RESETTING,
	SNODE_DEV_STATE_DEAD,
	SNODE_DEV_STATE_REMOVED,
};

enum snode_link_admin_state {
	SNODE_LINK_ADMIN_STATE_DOWN,
	SNODE_LINK_ADMIN_STATE_UP,
};

/**
 * enum snode_link_oper_state
 * @SNODE_LINK_OPER_STATE_DEGRADED: Up with fewer active lanes than the link
 *   has.
 * @SNODE_LINK_OPER_STATE_TRAINING: Retraining after a reset; it comes back up
 *   by itself.
 */
enum snode_link_oper_state {
	SNODE_LINK_OPER_STATE_DOWN,
	SNODE_LINK_OPER_STATE_UP,
	SNODE_LINK_OPER_STATE_DEGRADED,
	SNODE_LINK_OPER_STATE_TRAINING,
};

/**
 * enum snode_node_state - What a NIC knows about another fabric node.
 * @SNODE_NODE_STATE_UNKNOWN: Never seen, or it left the fabric.
 * @SNODE_NODE_STATE_UP: Alive and reachable through route-port.
 * @SNODE_NODE_STATE_UNREACHABLE: Alive, but no fabric path from this NIC leads
 *   to it.
 * @SNODE_NODE_STATE_DEAD: It stopped answering the fabric.
 */
enum snode_node_state {
	SNODE_NODE_STATE_UNKNOWN,
	SNODE_NODE_STATE_UP,
	SNODE_NODE_STATE_UNREACHABLE,
	SNODE_NODE_STATE_DEAD,
};

/**
 * enum snode_revoke_reason - Why a window was revoked, here (window dumps and
 *   events) and in an import's IMPORT_STATUS ioctl. Reasons 1 to 4 are the
 *   NIC's own, the others the driver's.
 * @SNODE_REVOKE_REASON_NONE: Not revoked.
 * @SNODE_REVOKE_REASON_UNEXPORT: The exporter withdrew the export, freed the
 *   memory or closed its file (process exit).
 * @SNODE_REVOKE_REASON_EXPORTER_RESET: The exporting node or its NIC was
 *   reset.
 * @SNODE_REVOKE_REASON_NODE_DEAD: The exporting node died.
 * @SNODE_REVOKE_REASON_UNREACHABLE: No fabric path to the exporting node is
 *   left.
 * @SNODE_REVOKE_REASON_LOCAL_RESET: This node's NIC was reset.
 * @SNODE_REVOKE_REASON_LOCAL_REMOVE: This node's NIC was unbound from the
 *   driver.
 */
enum snode_revoke_reason {
	SNODE_REVOKE_REASON_NONE,
	SNODE_REVOKE_REASON_UNEXPORT,
	SNODE_REVOKE_REASON_EXPORTER_RESET,
	SNODE_REVOKE_REASON_NODE_DEAD,
	SNODE_REVOKE_REASON_UNREACHABLE,
	SNODE_REVOKE_REASON_LOCAL_RESET,
	SNODE_REVOKE_REASON_LOCAL_REMOVE,
};

/**
 * enum snode_thermal_alarm - Sensor thresholds a NIC is above, as its
 *   SENSOR_ALARM register.
 */
enum snode_thermal_alarm {
	SNODE_THERMAL_ALARM_TEMP_MAX = 1,
	SNODE_THERMAL_ALARM_TEMP_CRIT = 2,
	SNODE_THERMAL_ALARM_POWER_MAX = 4,
};

/**
 * enum snode_window_kind
 * @SNODE_WINDOW_KIND_ATT: A requester translation entry: a range of this NIC's
 *   aperture that maps memory of another node.
 * @SNODE_WINDOW_KIND_EXPORT: A range of this NIC's pool that other nodes may
 *   map.
 * @SNODE_WINDOW_KIND_IMPORT: A process's window onto another node's export,
 *   through an ATT entry of this NIC.
 * @SNODE_WINDOW_KIND_ALLOC: A range of this NIC's pool that a process
 *   allocated.
 */
enum snode_window_kind {
	SNODE_WINDOW_KIND_ATT,
	SNODE_WINDOW_KIND_EXPORT,
	SNODE_WINDOW_KIND_IMPORT,
	SNODE_WINDOW_KIND_ALLOC,
};

/**
 * enum snode_window_state - As window dumps and an import's IMPORT_STATUS
 *   ioctl report it.
 * @SNODE_WINDOW_STATE_ACTIVE: In use (an import - not revoked).
 * @SNODE_WINDOW_STATE_REVOKED: An import whose window the fabric or the driver
 *   revoked.
 * @SNODE_WINDOW_STATE_FREED: An export whose owner is gone, waiting for the
 *   NIC to drop it; an allocation freed by its owner but still mapped.
 * @SNODE_WINDOW_STATE_PENDING: An ATT entry being programmed.
 * @SNODE_WINDOW_STATE_STALE: An ATT entry or export the NIC did not confirm
 *   clearing; unused until the driver clears it again once the NIC has
 *   answered every command that timed out, or until a reset.
 * @SNODE_WINDOW_STATE_LOST: An export a reset dropped and that could not be
 *   restored.
 */
enum snode_window_state {
	SNODE_WINDOW_STATE_ACTIVE = 1,
	SNODE_WINDOW_STATE_REVOKED,
	SNODE_WINDOW_STATE_FREED,
	SNODE_WINDOW_STATE_PENDING,
	SNODE_WINDOW_STATE_STALE,
	SNODE_WINDOW_STATE_LOST,
};

enum snode_window_perm {
	SNODE_WINDOW_PERM_READ = 1,
	SNODE_WINDOW_PERM_WRITE = 2,
};

/**
 * enum snode_window_flags
 * @SNODE_WINDOW_FLAGS_OWN: The window belongs to the requesting process.
 * @SNODE_WINDOW_FLAGS_NODES: An export that admits only a set of nodes.
 * @SNODE_WINDOW_FLAGS_ZERO_PAGE: An import that maps zeros once revoked.
 * @SNODE_WINDOW_FLAGS_HIDDEN: Another uid's window: its owner and pool offsets
 *   are withheld from a requester without CAP_NET_ADMIN.
 */
enum snode_window_flags {
	SNODE_WINDOW_FLAGS_OWN = 1,
	SNODE_WINDOW_FLAGS_NODES = 2,
	SNODE_WINDOW_FLAGS_ZERO_PAGE = 4,
	SNODE_WINDOW_FLAGS_HIDDEN = 8,
};

/**
 * enum snode_obj_flags - Flags of an endpoint or a DMA queue.
 * @SNODE_OBJ_FLAGS_OWN: It belongs to the requesting process.
 * @SNODE_OBJ_FLAGS_DEAD: The NIC was reset or unbound under it.
 * @SNODE_OBJ_FLAGS_HIDDEN: Another uid's: its owner is withheld from a
 *   requester without CAP_NET_ADMIN.
 */
enum snode_obj_flags {
	SNODE_OBJ_FLAGS_OWN = 1,
	SNODE_OBJ_FLAGS_DEAD = 2,
	SNODE_OBJ_FLAGS_HIDDEN = 4,
};

/**
 * enum snode_link_isolation - What a link's auto-isolate policy made of it.
 *   Latched: it only rises (none, flapping, isolated) until link-clear sets it
 *   back to none.
 * @SNODE_LINK_ISOLATION_FLAPPING: More than half the flap limit within the
 *   window, or past a limit while the link is the NIC's last one up, which is
 *   never isolated.
 * @SNODE_LINK_ISOLATION_ISOLATED: Past a limit: the driver took the link
 *   administratively down. It stays down (link-set admin-state up is refused)
 *   until link-clear.
 */
enum snode_link_isolation {
	SNODE_LINK_ISOLATION_NONE,
	SNODE_LINK_ISOLATION_FLAPPING,
	SNODE_LINK_ISOLATION_ISOLATED,
};

/**
 * enum snode_isolate_reason - The limit of the auto-isolate policy a link went
 *   past.
 * @SNODE_ISOLATE_REASON_FLAPS: isolate-flaps down events within isolate-window
 *   seconds.
 * @SNODE_ISOLATE_REASON_BER: A bit-error rate at or above isolate-ber.
 */
enum snode_isolate_reason {
	SNODE_ISOLATE_REASON_NONE,
	SNODE_ISOLATE_REASON_FLAPS,
	SNODE_ISOLATE_REASON_BER,
};

enum {
	SNODE_A_DEV_INDEX = 1,
	SNODE_A_DEV_NAME,
	SNODE_A_DEV_STATE,
	SNODE_A_DEV_NODE_ID,
	SNODE_A_DEV_FABRIC_ID,
	SNODE_A_DEV_HW_VERSION,
	SNODE_A_DEV_FW_VERSION,
	SNODE_A_DEV_FW_NAME,
	SNODE_A_DEV_SERIAL,
	SNODE_A_DEV_CAPS,
	SNODE_A_DEV_NPORTS,
	SNODE_A_DEV_MAX_NODES,
	SNODE_A_DEV_ATT_ENTRIES,
	SNODE_A_DEV_EXPORT_ENTRIES,
	SNODE_A_DEV_POOL_SIZE,
	SNODE_A_DEV_APERTURE_SIZE,
	SNODE_A_DEV_THROTTLED,
	SNODE_A_DEV_BER_THRESHOLD,
	SNODE_A_DEV_PAD,
	SNODE_A_DEV_POOL_FREE,

	__SNODE_A_DEV_MAX,
	SNODE_A_DEV_MAX = (__SNODE_A_DEV_MAX - 1)
};

enum {
	SNODE_A_LINK_DEV_INDEX = 1,
	SNODE_A_LINK_DEV_NAME,
	SNODE_A_LINK_PORT,
	SNODE_A_LINK_ADMIN_STATE,
	SNODE_A_LINK_OPER_STATE,
	SNODE_A_LINK_LANES,
	SNODE_A_LINK_MAX_LANES,
	SNODE_A_LINK_SPEED,
	SNODE_A_LINK_PEER_NODE,
	SNODE_A_LINK_PEER_PORT,
	SNODE_A_LINK_PEER_SWITCH,
	SNODE_A_LINK_CRC_ERRORS,
	SNODE_A_LINK_REPLAYS,
	SNODE_A_LINK_RECOVERIES,
	SNODE_A_LINK_DOWN_EVENTS,
	SNODE_A_LINK_TX_BYTES,
	SNODE_A_LINK_RX_BYTES,
	SNODE_A_LINK_TX_MSGS,
	SNODE_A_LINK_RX_MSGS,
	SNODE_A_LINK_BER,
	SNODE_A_LINK_BER_THRESHOLD,
	SNODE_A_LINK_BER_ALARM,
	SNODE_A_LINK_PAD,
	SNODE_A_LINK_AUTO_ISOLATE,
	SNODE_A_LINK_ISOLATE_BER,
	SNODE_A_LINK_ISOLATE_FLAPS,
	SNODE_A_LINK_ISOLATE_WINDOW,
	SNODE_A_LINK_ISOLATION,
	SNODE_A_LINK_ISOLATE_REASON,
	SNODE_A_LINK_UTIL_THRESHOLD,
	SNODE_A_LINK_UTIL_TX,
	SNODE_A_LINK_UTIL_RX,
	SNODE_A_LINK_UTIL_ALARM,
	SNODE_A_LINK_UTIL_HYSTERESIS,
	SNODE_A_LINK_PEER_PLANE,
	SNODE_A_LINK_PEER_SWITCH_NAME,

	__SNODE_A_LINK_MAX,
	SNODE_A_LINK_MAX = (__SNODE_A_LINK_MAX - 1)
};

enum {
	SNODE_A_NODE_DEV_INDEX = 1,
	SNODE_A_NODE_ID,
	SNODE_A_NODE_STATE,
	SNODE_A_NODE_ROUTE_PORT,
	SNODE_A_NODE_PREV_STATE,
	SNODE_A_NODE_PREV_ROUTE_PORT,
	SNODE_A_NODE_HOPS,
	SNODE_A_NODE_SWITCH,
	SNODE_A_NODE_SWITCH_NAME,
	SNODE_A_NODE_PLANE,
	SNODE_A_NODE_RACK,
	SNODE_A_NODE_RACK_NAME,

	__SNODE_A_NODE_MAX,
	SNODE_A_NODE_MAX = (__SNODE_A_NODE_MAX - 1)
};

enum {
	SNODE_A_WINDOW_DEV_INDEX = 1,
	SNODE_A_WINDOW_KIND,
	SNODE_A_WINDOW_INDEX,
	SNODE_A_WINDOW_NODE,
	SNODE_A_WINDOW_EXPORT_ID,
	SNODE_A_WINDOW_OFFSET,
	SNODE_A_WINDOW_EXPORT_OFFSET,
	SNODE_A_WINDOW_LENGTH,
	SNODE_A_WINDOW_PERM,
	SNODE_A_WINDOW_EPOCH,
	SNODE_A_WINDOW_REVOKE_REASON,
	SNODE_A_WINDOW_PID,
	SNODE_A_WINDOW_COMM,
	SNODE_A_WINDOW_STATE,
	SNODE_A_WINDOW_PAD,
	SNODE_A_WINDOW_KEY,
	SNODE_A_WINDOW_FLAGS,

	__SNODE_A_WINDOW_MAX,
	SNODE_A_WINDOW_MAX = (__SNODE_A_WINDOW_MAX - 1)
};

enum {
	SNODE_A_ENDPOINT_DEV_INDEX = 1,
	SNODE_A_ENDPOINT_ID,
	SNODE_A_ENDPOINT_VECTOR,
	SNODE_A_ENDPOINT_ENTRIES,
	SNODE_A_ENDPOINT_PENDING,
	SNODE_A_ENDPOINT_KEY,
	SNODE_A_ENDPOINT_MSGS,
	SNODE_A_ENDPOINT_BYTES,
	SNODE_A_ENDPOINT_ERRORS,
	SNODE_A_ENDPOINT_PID,
	SNODE_A_ENDPOINT_COMM,
	SNODE_A_ENDPOINT_FLAGS,
	SNODE_A_ENDPOINT_PAD,

	__SNODE_A_ENDPOINT_MAX,
	SNODE_A_ENDPOINT_MAX = (__SNODE_A_ENDPOINT_MAX - 1)
};

enum {
	SNODE_A_QUEUE_DEV_INDEX = 1,
	SNODE_A_QUEUE_ID,
	SNODE_A_QUEUE_DEPTH,
	SNODE_A_QUEUE_INFLIGHT,
	SNODE_A_QUEUE_COMPLETED,
	SNODE_A_QUEUE_BYTES,
	SNODE_A_QUEUE_ERRORS,
	SNODE_A_QUEUE_PID,
	SNODE_A_QUEUE_COMM,
	SNODE_A_QUEUE_FLAGS,
	SNODE_A_QUEUE_PAD,

	__SNODE_A_QUEUE_MAX,
	SNODE_A_QUEUE_MAX = (__SNODE_A_QUEUE_MAX - 1)
};

enum {
	SNODE_A_STATS_DEV_INDEX = 1,
	SNODE_A_STATS_ADMIN_CMDS,
	SNODE_A_STATS_EVENTS,
	SNODE_A_STATS_EVENTS_DROPPED,
	SNODE_A_STATS_ACCESS_VIOLATIONS,
	SNODE_A_STATS_MSGS_SENT,
	SNODE_A_STATS_MSGS_RECEIVED,
	SNODE_A_STATS_MSGS_REJECTED,
	SNODE_A_STATS_DMA_REQS,
	SNODE_A_STATS_DMA_BYTES,
	SNODE_A_STATS_DMA_ERRORS,
	SNODE_A_STATS_ATT_SETS,
	SNODE_A_STATS_ATT_REVOKES,
	SNODE_A_STATS_RESETS,
	SNODE_A_STATS_SEND_RETRIES,
	SNODE_A_STATS_PAD,

	__SNODE_A_STATS_MAX,
	SNODE_A_STATS_MAX = (__SNODE_A_STATS_MAX - 1)
};

enum {
	SNODE_A_EVENT_DEV_INDEX = 1,
	SNODE_A_EVENT_DEV_NAME,
	SNODE_A_EVENT_TIMESTAMP,
	SNODE_A_EVENT_HW_TIMESTAMP,
	SNODE_A_EVENT_SUPPRESSED,
	SNODE_A_EVENT_LINK,
	SNODE_A_EVENT_NODE,
	SNODE_A_EVENT_WINDOW,
	SNODE_A_EVENT_ACCESS_OFFSET,
	SNODE_A_EVENT_ACCESS_WRITE,
	SNODE_A_EVENT_TEMP,
	SNODE_A_EVENT_POWER,
	SNODE_A_EVENT_THERMAL_ALARM,
	SNODE_A_EVENT_PAD,

	__SNODE_A_EVENT_MAX,
	SNODE_A_EVENT_MAX = (__SNODE_A_EVENT_MAX - 1)
};

enum {
	SNODE_NL_CMD_DEV_GET = 1,
	SNODE_NL_CMD_DEV_SET,
	SNODE_NL_CMD_LINK_GET,
	SNODE_NL_CMD_LINK_SET,
	SNODE_NL_CMD_LINK_RESET,
	SNODE_NL_CMD_LINK_CLEAR,
	SNODE_NL_CMD_NODE_GET,
	SNODE_NL_CMD_WINDOW_GET,
	SNODE_NL_CMD_LINK_STATE_NTF,
	SNODE_NL_CMD_LINK_BER_NTF,
	SNODE_NL_CMD_NODE_STATE_NTF,
	SNODE_NL_CMD_WINDOW_REVOKED_NTF,
	SNODE_NL_CMD_ACCESS_VIOLATION_NTF,
	SNODE_NL_CMD_THERMAL_NTF,
	SNODE_NL_CMD_LINK_ISOLATION_NTF,
	SNODE_NL_CMD_ENDPOINT_GET,
	SNODE_NL_CMD_QUEUE_GET,
	SNODE_NL_CMD_STATS_GET,
	SNODE_NL_CMD_LINK_UTIL_NTF,

	__SNODE_NL_CMD_MAX,
	SNODE_NL_CMD_MAX = (__SNODE_NL_CMD_MAX - 1)
};

#define SNODE_MCGRP_EVENTS	"events"

#endif /* _UAPI_LINUX_SNODE_NL_H */
