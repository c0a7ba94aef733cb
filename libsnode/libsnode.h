/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * libsnode - the supported way into the snode driver.
 *
 * A thin library over the snode ioctls and generic-netlink family. Every
 * function that can fail returns 0 or a positive value on success and a
 * negative errno on failure; errno itself is never the result.
 *
 * ABI rules (Documentation/decisions/0016-libsnode-abi.md, libsnode(7)):
 * every call that fills a structure the caller owns takes the size the
 * caller was compiled with (pass sizeof(*ptr)); the library writes no more
 * than that and zeroes what it does not know. Lists are snapshot iterators
 * the caller owns and frees; their entries have the size given to the list
 * call. One context may be used from several threads at once (see
 * libsnode(7) for the exceptions).
 */
#ifndef LIBSNODE_H
#define LIBSNODE_H

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <linux/snode.h>

#ifdef __cplusplus
extern "C" {
#endif

struct snode_ctx;
struct snode_dev;

/*
 * The version of this header, as liburing's IO_URING_VERSION_* and
 * libfabric's FI_*_VERSION: for #if at compile time. snode_version() is
 * the version of the library a program runs with, which may be newer.
 */
#define LIBSNODE_VERSION_MAJOR 0
#define LIBSNODE_VERSION_MINOR 1
#define LIBSNODE_VERSION_MICRO 0
#define LIBSNODE_VERSION_CODE(major, minor, micro) \
	(((major) << 16) | ((minor) << 8) | (micro))
#define LIBSNODE_VERSION \
	LIBSNODE_VERSION_CODE(LIBSNODE_VERSION_MAJOR, LIBSNODE_VERSION_MINOR, \
			      LIBSNODE_VERSION_MICRO)

/* The running library's LIBSNODE_VERSION (LIBSNODE_6). */
unsigned int snode_version(void);

/* Context: owns the device list, the log hook and a user pointer. */
int snode_new(struct snode_ctx **ctx);
struct snode_ctx *snode_ref(struct snode_ctx *ctx);
struct snode_ctx *snode_unref(struct snode_ctx *ctx);
void snode_set_userdata(struct snode_ctx *ctx, void *userdata);
void *snode_get_userdata(struct snode_ctx *ctx);

typedef void (*snode_log_fn)(struct snode_ctx *ctx, void *log_data,
			     int priority, const char *file, int line,
			     const char *fn, const char *format, va_list args);
void snode_set_log_fn(struct snode_ctx *ctx, snode_log_fn log_fn,
		      void *log_data);
int snode_get_log_priority(struct snode_ctx *ctx);
void snode_set_log_priority(struct snode_ctx *ctx, int priority);

/* Devices: one per NIC, /dev/snodeN. */
struct snode_dev *snode_dev_get_first(struct snode_ctx *ctx);
struct snode_dev *snode_dev_get_next(struct snode_dev *dev);
#define snode_dev_foreach(ctx, dev) \
	for ((dev) = snode_dev_get_first(ctx); (dev); \
	     (dev) = snode_dev_get_next(dev))
struct snode_dev *snode_dev_get_by_name(struct snode_ctx *ctx,
					const char *name);
struct snode_ctx *snode_dev_get_ctx(struct snode_dev *dev);
int snode_dev_get_index(struct snode_dev *dev);
const char *snode_dev_get_name(struct snode_dev *dev);
int snode_dev_get_fd(struct snode_dev *dev);
int snode_dev_get_info(struct snode_dev *dev, struct snode_info *info,
		       size_t size);

/*
 * Netlink: the "snode" generic-netlink family (link health, fabric nodes,
 * events). Functions return a negative errno; -EPROTONOSUPPORT means the
 * family is not there (snode.ko is not loaded), -EPERM that a change needs
 * CAP_NET_ADMIN. A list call returns the number of entries and a snapshot
 * iterator the caller frees; it stays valid after later calls and after
 * snode_unref() of the context.
 */

/* Bit-error rates are integers in units of 1e-18 (SNODE_BER_ONE is 1.0). */
#define SNODE_BER_ONE 1000000000000000000ULL
double snode_ber_to_double(uint64_t ber);
uint64_t snode_ber_from_double(double ber);

/* SNODE_A_*_ROUTE_PORT and the like, when the kernel reports none */
#define SNODE_NONE 0xffffffffU

struct snode_dev_status {
	unsigned int state;		/* enum snode_dev_state */
	uint32_t node_id;		/* SNODE_NODE_ID_NONE if not attached */
	uint32_t fabric_id;
	uint32_t hw_version;
	uint32_t fw_version;
	uint32_t caps;			/* enum snode_caps */
	unsigned int nports;
	unsigned int max_nodes;
	unsigned int att_entries;
	unsigned int export_entries;
	uint64_t pool_size;
	uint64_t aperture_size;
	uint64_t ber_threshold;		/* default of the NIC's links, 0: none */
	int throttled;
	char serial[33];
	char fw_name[33];
};
int snode_dev_get_status(struct snode_dev *dev, struct snode_dev_status *st,
			 size_t size);
int snode_dev_set_ber_threshold(struct snode_dev *dev, uint64_t ber);

struct snode_link_info {
	unsigned int dev_index;
	char dev_name[32];
	unsigned int port;
	unsigned int admin_state;	/* enum snode_link_admin_state */
	unsigned int oper_state;	/* enum snode_link_oper_state */
	unsigned int lanes;
	unsigned int max_lanes;
	unsigned int speed;		/* per lane, Gb/s */
	uint32_t peer_node;		/* SNODE_NONE: a switch or nothing */
	uint32_t peer_port;		/* SNODE_NONE without peer_node */
	uint32_t peer_switch;		/* SNODE_NONE: not a switch */
	uint64_t crc_errors;
	uint64_t replays;
	uint64_t recoveries;
	uint64_t down_events;
	uint64_t tx_bytes;
	uint64_t rx_bytes;
	uint64_t tx_msgs;
	uint64_t rx_msgs;
	uint64_t ber;			/* units of 1e-18 */
	uint64_t ber_threshold;		/* in force, 0: none */
	int ber_alarm;
	/* the auto-isolate policy (0: off) and what it did; 0.2 and later */
	int auto_isolate;
	uint64_t isolate_ber;		/* units of 1e-18, 0: no BER limit */
	unsigned int isolate_flaps;	/* 0: no flap limit */
	unsigned int isolate_window;	/* seconds the flaps are counted over */
	unsigned int isolation;		/* enum snode_link_isolation */
	unsigned int isolate_reason;	/* enum snode_isolate_reason */
	/* utilisation over the driver's last period (1 s); 0.3 and later */
	unsigned int util_threshold;	/* alarm threshold, percent */
	unsigned int util_tx;		/* hundredths of a % of lanes x speed */
	unsigned int util_rx;
	int util_alarm;
	unsigned int util_hysteresis;	/* points below threshold to clear */
	/* topology (decision 0030); 0.3 and later */
	unsigned int topo;		/* SNODE_TOPO_HAS_PLANE if peer_plane is */
	uint32_t peer_plane;		/* plane of peer_switch */
	char peer_switch_name[24];	/* "" if the fabric gave none */
};

/* Which topology members of a link or node the NIC reported. */
#define SNODE_TOPO_HAS_SWITCH	0x1
#define SNODE_TOPO_HAS_PLANE	0x2
#define SNODE_TOPO_HAS_RACK	0x4

/* dev_index -1: the links of every device */
struct snode_link_iter;
int snode_link_list(struct snode_ctx *ctx, int dev_index, size_t info_size,
		    struct snode_link_iter **iter);
const struct snode_link_info *
snode_link_iter_get_first(struct snode_link_iter *iter);
const struct snode_link_info *
snode_link_iter_get_next(struct snode_link_iter *iter,
			 const struct snode_link_info *info);
#define snode_link_iter_foreach(iter, info) \
	for ((info) = snode_link_iter_get_first(iter); (info); \
	     (info) = snode_link_iter_get_next(iter, info))
void snode_link_iter_free(struct snode_link_iter *iter);
int snode_link_get(struct snode_ctx *ctx, unsigned int dev_index,
		   unsigned int port, struct snode_link_info *info,
		   size_t size);
int snode_link_set_state(struct snode_ctx *ctx, unsigned int dev_index,
			 unsigned int port, int up);
int snode_link_reset(struct snode_ctx *ctx, unsigned int dev_index,
		     unsigned int port);
int snode_link_clear(struct snode_ctx *ctx, unsigned int dev_index,
		     unsigned int port);
int snode_link_set_ber_threshold(struct snode_ctx *ctx,
				 unsigned int dev_index, unsigned int port,
				 uint64_t ber);
/* LIBSNODE_2 */
int snode_link_set_auto_isolate(struct snode_ctx *ctx, unsigned int dev_index,
				unsigned int port, int on, uint64_t ber,
				unsigned int flaps, unsigned int window);
/* LIBSNODE_3 */
int snode_link_set_util_threshold(struct snode_ctx *ctx,
				  unsigned int dev_index, unsigned int port,
				  unsigned int percent);

struct snode_node_info {
	unsigned int dev_index;		/* the NIC that sees the node so */
	uint32_t id;
	unsigned int state;		/* enum snode_node_state */
	uint32_t route_port;		/* SNODE_NONE: no route */
	/*
	 * Topology of the route (decision 0030); 0.3 and later. topo says
	 * which of switch_id, plane and rack the NIC reported.
	 */
	unsigned int topo;		/* SNODE_TOPO_HAS_* */
	unsigned int hops;		/* links of the route, 0: no route */
	uint32_t switch_id;		/* the switch delivering to the node */
	uint32_t plane;			/* plane of that switch */
	uint32_t rack;			/* the node's rack */
	char switch_name[24];		/* "" if the fabric gave none */
	char rack_name[24];
};

/* dev_index -1: as every device sees the fabric, one entry per pair */
struct snode_node_iter;
int snode_node_list(struct snode_ctx *ctx, int dev_index, size_t info_size,
		    struct snode_node_iter **iter);
const struct snode_node_info *
snode_node_iter_get_first(struct snode_node_iter *iter);
const struct snode_node_info *
snode_node_iter_get_next(struct snode_node_iter *iter,
			 const struct snode_node_info *info);
#define snode_node_iter_foreach(iter, info) \
	for ((info) = snode_node_iter_get_first(iter); (info); \
	     (info) = snode_node_iter_get_next(iter, info))
void snode_node_iter_free(struct snode_node_iter *iter);
/* LIBSNODE_3: one node as one NIC sees it (its topology included) */
int snode_node_get(struct snode_ctx *ctx, unsigned int dev_index,
		   uint32_t id, struct snode_node_info *info, size_t size);

struct snode_window_info {
	unsigned int dev_index;
	unsigned int kind;		/* enum snode_window_kind */
	uint32_t index;			/* ATT entry, or export id of an export */
	uint32_t node;			/* the exporting node */
	uint32_t export_id;		/* SNODE_NONE for an export */
	uint64_t offset;		/* aperture offset, pool offset (export) */
	uint64_t export_offset;		/* offset inside the export */
	uint64_t length;
	uint32_t perm;			/* enum snode_window_perm bits */
	uint32_t epoch;
	unsigned int state;		/* enum snode_window_state */
	unsigned int reason;		/* enum snode_revoke_reason */
	int pid;			/* owner, 0 if none */
	char comm[16];			/* owner's command name */
};

struct snode_window_iter;
int snode_window_list(struct snode_ctx *ctx, int dev_index, size_t info_size,
		      struct snode_window_iter **iter);
const struct snode_window_info *
snode_window_iter_get_first(struct snode_window_iter *iter);
const struct snode_window_info *
snode_window_iter_get_next(struct snode_window_iter *iter,
			   const struct snode_window_info *info);
#define snode_window_iter_foreach(iter, info) \
	for ((info) = snode_window_iter_get_first(iter); (info); \
	     (info) = snode_window_iter_get_next(iter, info))
void snode_window_iter_free(struct snode_window_iter *iter);

/*
 * Events of the "events" multicast group: a tagged union. The common part
 * says which event (type, a SNODE_NL_CMD_*_NTF) happened where and when; the
 * member of the union named after the type holds the rest. Fields the
 * kernel did not send are 0 (SNODE_NONE for ports and peers).
 */
struct snode_event_node {		/* SNODE_NL_CMD_NODE_STATE_NTF */
	uint32_t id;
	unsigned int state;		/* enum snode_node_state */
	uint32_t route_port;		/* SNODE_NONE: no route */
	unsigned int prev_state;
	uint32_t prev_route_port;
	/*
	 * The route's topology at the time of the event, as in struct
	 * snode_node_info, when the NIC reports it (SNODE_CAP_EV_TOPO);
	 * topo 0 and hops 0 otherwise. 0.4 and later.
	 */
	unsigned int topo;		/* SNODE_TOPO_HAS_* */
	unsigned int hops;
	uint32_t switch_id;
	uint32_t plane;
	uint32_t rack;
	char switch_name[24];
	char rack_name[24];
};

struct snode_event_window {		/* SNODE_NL_CMD_WINDOW_REVOKED_NTF */
	unsigned int att_index;
	uint32_t node;			/* the exporting node */
	uint32_t export_id;
	uint32_t epoch;
	unsigned int reason;		/* enum snode_revoke_reason */
};

struct snode_event_access {		/* SNODE_NL_CMD_ACCESS_VIOLATION_NTF */
	uint64_t offset;
	int write;
};

struct snode_event_thermal {		/* SNODE_NL_CMD_THERMAL_NTF */
	int32_t temp;			/* milli-degC */
	uint32_t power;			/* mW */
	uint32_t alarm;			/* enum snode_thermal_alarm */
};

struct snode_event {
	unsigned int type;		/* SNODE_NL_CMD_*_NTF: the union's tag */
	unsigned int dev_index;
	char dev_name[32];
	uint64_t timestamp;		/* CLOCK_REALTIME, ns */
	uint64_t hw_timestamp;		/* the NIC's, 0 if none */
	uint32_t suppressed;		/* folded in by the rate limit */
	/* anonymous (C11); __extension__ lets C99 -pedantic builds take it */
	__extension__ union {
		/* SNODE_NL_CMD_LINK_STATE_NTF, _LINK_BER_NTF,
		 * _LINK_ISOLATION_NTF, _LINK_UTIL_NTF */
		struct snode_link_info link;
		struct snode_event_node node;
		struct snode_event_window window;
		struct snode_event_access access;
		struct snode_event_thermal thermal;
		uint64_t __reserved[40];	/* room for larger parts */
	};
};

/*
 * The callback sees the event at the size given to snode_event_subscribe()
 * (sizeof(struct snode_event) as the caller was compiled).
 */
typedef int (*snode_event_fn)(struct snode_ctx *ctx,
			      const struct snode_event *ev, void *arg);
int snode_event_subscribe(struct snode_ctx *ctx, snode_event_fn fn,
			  void *arg, size_t ev_size);
int snode_event_process(struct snode_ctx *ctx);
void snode_event_unsubscribe(struct snode_ctx *ctx);

/*
 * Global memory (see Documentation/driver/global-memory.rst). A process
 * allocates from its NIC's pool, maps the allocation, and exports ranges of
 * it under a handle; another process, on any node, imports the handle and
 * maps the window. Allocations and exports belong to the device's file
 * descriptor in the context and go away with it. Functions return 0 or a
 * negative errno (see <linux/snode.h> for the meaning of each).
 */
struct snode_mem;
int snode_mem_alloc(struct snode_dev *dev, uint64_t length,
		    struct snode_mem **mem);
int snode_mem_free(struct snode_mem *mem);
int snode_mem_map(struct snode_mem *mem, void **addr);
int snode_mem_unmap(struct snode_mem *mem);
uint64_t snode_mem_get_length(struct snode_mem *mem);
uint64_t snode_mem_get_offset(struct snode_mem *mem);
struct snode_dev *snode_mem_get_dev(struct snode_mem *mem);

/* What an importer needs: printable as "snode:v1:NODE:EXPORT:KEYHEX". */
struct snode_handle {
	uint32_t node;
	uint32_t export_id;
	uint64_t key;
};
/*
 * The text form with its NUL. It fills a whole message payload
 * (SNODE_MSG_MAX_LEN): in a message, send struct snode_handle (16 bytes).
 */
#define SNODE_HANDLE_STR_MAX 48
int snode_handle_to_str(const struct snode_handle *handle, char *buf,
			size_t len);
int snode_handle_from_str(const char *str, struct snode_handle *handle);

int snode_export(struct snode_mem *mem, uint64_t offset, uint64_t length,
		 unsigned int flags, uint64_t key, const uint32_t *nodes,
		 unsigned int nr_nodes, struct snode_handle *handle);
int snode_export_mem(struct snode_dev *dev, void *addr, uint64_t length,
		     unsigned int flags, uint64_t key, const uint32_t *nodes,
		     unsigned int nr_nodes, struct snode_handle *handle);
int snode_unexport(struct snode_dev *dev, const struct snode_handle *handle);

struct snode_import;
int snode_import(struct snode_dev *dev, const struct snode_handle *handle,
		 uint64_t offset, uint64_t length, unsigned int flags,
		 struct snode_import **imp);
int snode_import_close(struct snode_import *imp);
int snode_import_map(struct snode_import *imp, void **addr);
int snode_import_unmap(struct snode_import *imp);
int snode_import_get_fd(struct snode_import *imp);
uint64_t snode_import_get_length(struct snode_import *imp);
int snode_import_status(struct snode_import *imp,
			struct snode_import_status *status, size_t size);

/*
 * Listings of global memory, endpoints and DMA queues, and the NIC's
 * counters: the kernel's netlink dumps (window-get, endpoint-get,
 * queue-get, stats-get), in the library's layout of its first version.
 */
/**
 * enum snode_mem_list_type - what snode_mem_list() lists
 * @SNODE_MEM_LIST_ALLOCS: pool allocations
 * @SNODE_MEM_LIST_EXPORTS: exports of this node
 * @SNODE_MEM_LIST_IMPORTS: imports on this node
 * @SNODE_MEM_LIST_ATT: address-translation entries in use
 */
enum snode_mem_list_type {
	SNODE_MEM_LIST_ALLOCS = 1,
	SNODE_MEM_LIST_EXPORTS = 2,
	SNODE_MEM_LIST_IMPORTS = 3,
	SNODE_MEM_LIST_ATT = 4,
};

/**
 * enum snode_mem_entry_flags - flags of struct snode_mem_entry
 * @SNODE_MEM_ENTRY_WRITE: read-write (exports, imports, ATT entries)
 * @SNODE_MEM_ENTRY_NODES: the export admits only a set of nodes
 * @SNODE_MEM_ENTRY_ZERO_PAGE: the import maps zeros once revoked
 * @SNODE_MEM_ENTRY_KEY: @key is valid; keys are shown to their owner and
 *                       to CAP_SYS_ADMIN only
 * @SNODE_MEM_ENTRY_OWN: the entry belongs to the calling process
 * @SNODE_MEM_ENTRY_HIDDEN: the entry belongs to another user: @pid,
 *                          @comm and @offset are withheld (0); they are
 *                          shown to the owning uid and to CAP_NET_ADMIN
 */
enum snode_mem_entry_flags {
	SNODE_MEM_ENTRY_WRITE = 1 << 0,
	SNODE_MEM_ENTRY_NODES = 1 << 1,
	SNODE_MEM_ENTRY_ZERO_PAGE = 1 << 2,
	SNODE_MEM_ENTRY_KEY = 1 << 3,
	SNODE_MEM_ENTRY_OWN = 1 << 4,
	SNODE_MEM_ENTRY_HIDDEN = 1 << 5,
};

/**
 * struct snode_mem_entry - one entry of snode_mem_list()
 * @type: enum snode_mem_list_type
 * @flags: enum snode_mem_entry_flags
 * @state: enum snode_window_state (<linux/snode_nl.h>)
 * @reason: an import's enum snode_revoke_reason (<linux/snode_nl.h>)
 * @node: allocations and exports: this node; imports and ATT entries: the
 *        exporter's node
 * @export_id: exports, imports, ATT entries
 * @att_index: imports and ATT entries; else 0xffffffff
 * @epoch: imports and ATT entries: epoch of the mapping
 * @key: the key, if @flags has SNODE_MEM_ENTRY_KEY; else 0
 * @offset: allocations and exports: offset in the pool; imports and ATT
 *          entries: offset inside the export
 * @length: bytes
 * @aperture_offset: imports and ATT entries: offset of the window in the
 *                   NIC's aperture
 * @pid: the owner's process id in the caller's pid namespace, 0 if none
 * @__reserved: 0
 * @comm: the owner's command name at creation, NUL terminated
 */
struct snode_mem_entry {
	__u32 type;
	__u32 flags;
	__u32 state;
	__u32 reason;
	__u32 node;
	__u32 export_id;
	__u32 att_index;
	__u32 epoch;
	__aligned_u64 key;
	__aligned_u64 offset;
	__aligned_u64 length;
	__aligned_u64 aperture_offset;
	__s32 pid;
	__u32 __reserved;
	char comm[16];
};

/**
 * enum snode_msg_list_type - what snode_msg_list() lists
 * @SNODE_MSG_LIST_ENDPOINTS: message endpoints of this node
 * @SNODE_MSG_LIST_DMA_QUEUES: DMA queues of this node
 */
enum snode_msg_list_type {
	SNODE_MSG_LIST_ENDPOINTS = 1,
	SNODE_MSG_LIST_DMA_QUEUES = 2,
};

/**
 * enum snode_msg_entry_flags - flags of struct snode_msg_entry
 * @SNODE_MSG_ENTRY_KEY: @key is valid; keys are shown to their owner and
 *                       to CAP_SYS_ADMIN only
 * @SNODE_MSG_ENTRY_OWN: the entry belongs to the calling process
 * @SNODE_MSG_ENTRY_DEAD: the NIC was reset or unbound under it
 * @SNODE_MSG_ENTRY_HIDDEN: the entry belongs to another user: @pid and
 *                          @comm are withheld (0); they are shown to the
 *                          owning uid and to CAP_NET_ADMIN
 */
enum snode_msg_entry_flags {
	SNODE_MSG_ENTRY_KEY = 1 << 0,
	SNODE_MSG_ENTRY_OWN = 1 << 1,
	SNODE_MSG_ENTRY_DEAD = 1 << 2,
	SNODE_MSG_ENTRY_HIDDEN = 1 << 3,
};

/**
 * struct snode_msg_entry - one entry of snode_msg_list()
 * @type: enum snode_msg_list_type
 * @flags: enum snode_msg_entry_flags
 * @id: endpoint id; for a DMA queue, a number unique on the NIC
 * @vector: an endpoint's interrupt vector; else 0
 * @entries: an endpoint's ring slots; a DMA queue's depth
 * @pending: messages waiting to be read; copies in flight
 * @key: an endpoint's key, if @flags has SNODE_MSG_ENTRY_KEY; else 0
 * @count: messages read from the endpoint; copies completed
 * @bytes: payload bytes read; bytes copied
 * @errors: sends from the endpoint that failed; copies that failed
 * @pid: the owner's process id in the caller's pid namespace, 0 if none
 * @__reserved: 0
 * @comm: the owner's command name at creation, NUL terminated
 */
struct snode_msg_entry {
	__u32 type;
	__u32 flags;
	__u32 id;
	__u32 vector;
	__u32 entries;
	__u32 pending;
	__aligned_u64 key;
	__aligned_u64 count;
	__aligned_u64 bytes;
	__aligned_u64 errors;
	__s32 pid;
	__u32 __reserved;
	char comm[16];
};

/**
 * struct snode_stats - snode_dev_get_stats()
 * @size: the size given to snode_dev_get_stats()
 * @flags: 0
 * @__reserved: 0
 * @out_admin_cmds: admin commands the NIC executed
 * @out_events: events it posted
 * @out_events_dropped: events it dropped (queues off, queue write failed)
 * @out_access_violations: aperture accesses no window granted
 * @out_msgs_sent: messages this NIC tried to send
 * @out_msgs_received: messages it wrote into its endpoints' rings
 * @out_msgs_rejected: sends that failed plus deliveries it refused
 * @out_dma_reqs: DMA descriptors it processed
 * @out_dma_bytes: bytes its DMA engine copied
 * @out_dma_errors: DMA descriptors that failed
 * @out_att_sets: windows it set up
 * @out_att_revokes: windows the fabric revoked
 * @out_resets: resets of the NIC
 * @out_send_retries: sends the driver repeated because the destination's
 *                    ring was full
 *
 * The NIC's own counters (the netlink family's stats-get); they count since
 * the NIC was powered on and survive resets. Per-link message and byte
 * counters are in struct snode_link_info.
 */
struct snode_stats {
	__u32 size;
	__u32 flags;
	__aligned_u64 __reserved;
	__aligned_u64 out_admin_cmds;
	__aligned_u64 out_events;
	__aligned_u64 out_events_dropped;
	__aligned_u64 out_access_violations;
	__aligned_u64 out_msgs_sent;
	__aligned_u64 out_msgs_received;
	__aligned_u64 out_msgs_rejected;
	__aligned_u64 out_dma_reqs;
	__aligned_u64 out_dma_bytes;
	__aligned_u64 out_dma_errors;
	__aligned_u64 out_att_sets;
	__aligned_u64 out_att_revokes;
	__aligned_u64 out_resets;
	__aligned_u64 out_send_retries;
};

/* A snapshot of SNODE_MEM_LIST_ALLOCS, _EXPORTS, _IMPORTS or _ATT. */
struct snode_mem_iter;
int snode_mem_list(struct snode_dev *dev, unsigned int type,
		   size_t entry_size, struct snode_mem_iter **iter);
const struct snode_mem_entry *
snode_mem_iter_get_first(struct snode_mem_iter *iter);
const struct snode_mem_entry *
snode_mem_iter_get_next(struct snode_mem_iter *iter,
			const struct snode_mem_entry *entry);
#define snode_mem_iter_foreach(iter, entry) \
	for ((entry) = snode_mem_iter_get_first(iter); (entry); \
	     (entry) = snode_mem_iter_get_next(iter, entry))
void snode_mem_iter_get_pool(struct snode_mem_iter *iter, uint64_t *size,
			     uint64_t *free_bytes);
void snode_mem_iter_free(struct snode_mem_iter *iter);

/*
 * Messages and doorbells (see Documentation/driver/messaging.rst). A
 * process receives through an endpoint and publishes its address; any
 * process on any node that knows the address sends to it. A doorbell is a
 * message of length 0. Functions return 0 (or a count) or a negative errno
 * (see <linux/snode.h> for the meaning of each).
 */
struct snode_ep_addr {
	uint32_t node;
	uint32_t id;
	uint64_t key;
};
#define SNODE_EP_ANY 0xffffffffU	/* snode_ep_new(): any free id */

struct snode_ep;
int snode_ep_new(struct snode_dev *dev, uint32_t id, unsigned int entries,
		 unsigned int flags, uint64_t key, struct snode_ep **ep);
int snode_ep_free(struct snode_ep *ep);
int snode_ep_get_fd(struct snode_ep *ep);
void snode_ep_get_addr(struct snode_ep *ep, struct snode_ep_addr *addr);
int snode_ep_recv(struct snode_ep *ep, struct snode_msg *msgs,
		  unsigned int max, int timeout_ms);
int snode_ep_send(struct snode_ep *ep, const struct snode_ep_addr *dst,
		  const void *buf, size_t len, unsigned int flags,
		  unsigned int timeout_ms);
int snode_msg_send(struct snode_dev *dev, const struct snode_ep_addr *dst,
		   const void *buf, size_t len, unsigned int flags,
		   unsigned int timeout_ms);
int snode_dev_get_stats(struct snode_dev *dev, struct snode_stats *stats,
			size_t size);

/* A snapshot of SNODE_MSG_LIST_ENDPOINTS or SNODE_MSG_LIST_DMA_QUEUES. */
struct snode_msg_iter;
int snode_msg_list(struct snode_dev *dev, unsigned int type,
		   size_t entry_size, struct snode_msg_iter **iter);
const struct snode_msg_entry *
snode_msg_iter_get_first(struct snode_msg_iter *iter);
const struct snode_msg_entry *
snode_msg_iter_get_next(struct snode_msg_iter *iter,
			const struct snode_msg_entry *entry);
#define snode_msg_iter_foreach(iter, entry) \
	for ((entry) = snode_msg_iter_get_first(iter); (entry); \
	     (entry) = snode_msg_iter_get_next(iter, entry))
void snode_msg_iter_free(struct snode_msg_iter *iter);

/*
 * DMA: copies between the process's memory and imported global memory by
 * the NIC's engine, in batches completed through the queue, or one at a
 * time with snode_dma_copy().
 */
struct snode_dma_queue;
int snode_dma_queue_new(struct snode_dev *dev, unsigned int depth,
			struct snode_dma_queue **q);
int snode_dma_queue_free(struct snode_dma_queue *q);
int snode_dma_queue_get_fd(struct snode_dma_queue *q);
int snode_dma_submit(struct snode_dma_queue *q, struct snode_dma_req *reqs,
		     unsigned int n);
int snode_dma_reap(struct snode_dma_queue *q, struct snode_dma_cpl *cpls,
		   unsigned int max, int timeout_ms);
int snode_dma_copy(struct snode_dma_queue *q, unsigned int flags,
		   struct snode_import *imp, uint64_t offset, void *buf,
		   uint64_t length);

/*
 * Collectives (LIBSNODE_4; see snode_comm_new(3) and
 * Documentation/driver/collectives.rst). A communicator joins one process
 * on each of n nodes; every member calls the same collectives in the same
 * order with matching arguments. Each member leaves data for the others in
 * its own pool memory, announced by a sequence word there, and reads
 * theirs through windows; messages carry only the setup. A
 * communicator is used by one thread at a time; different communicators
 * may be used from different threads. A collective that fails (a member
 * died, a window was revoked, a wait passed the timeout) leaves the
 * communicator broken: later calls fail with -EPIPE; free it.
 */
struct snode_comm;

/**
 * enum snode_comm_flags - flags of struct snode_comm_params
 * @SNODE_COMM_LIST_ORDER: order the ranks' exchanges by the node list
 *                         instead of by the fabric's topology
 */
enum snode_comm_flags {
	SNODE_COMM_LIST_ORDER = 1 << 0,
};

/**
 * struct snode_comm_params - optional settings of snode_comm_new()
 * @ep_id: the endpoint id every member uses for the setup exchange
 *         (0: SNODE_COMM_EP_DEFAULT), below the NIC's endpoint count;
 *         one communicator setting up per id and node at a time
 * @flags: enum snode_comm_flags
 * @key: the key of those endpoints, the same on every member
 * @timeout_ms: bound of the setup and of every wait inside a collective
 *              (0: 30000)
 * @__reserved: 0
 * @slot_size: bytes a member receives from each peer per step, a multiple
 *             of 4096 (0: the library's choice, up to 1 MiB); the same on
 *             every member
 */
struct snode_comm_params {
	uint32_t ep_id;
	uint32_t flags;
	uint64_t key;
	uint32_t timeout_ms;
	uint32_t __reserved;
	uint64_t slot_size;
};
#define SNODE_COMM_EP_DEFAULT	48U
#define SNODE_COMM_MAX_RANKS	64

/**
 * enum snode_coll_type - element types of snode_allreduce()
 */
enum snode_coll_type {
	SNODE_COLL_INT32 = 1,
	SNODE_COLL_UINT32 = 2,
	SNODE_COLL_INT64 = 3,
	SNODE_COLL_UINT64 = 4,
	SNODE_COLL_FLOAT = 5,
	SNODE_COLL_DOUBLE = 6,
};

/**
 * enum snode_coll_op - reductions of snode_allreduce()
 */
enum snode_coll_op {
	SNODE_COLL_SUM = 1,
	SNODE_COLL_PROD = 2,
	SNODE_COLL_MIN = 3,
	SNODE_COLL_MAX = 4,
};

int snode_comm_new(struct snode_dev *dev, const uint32_t *nodes,
		   unsigned int n, const struct snode_comm_params *params,
		   size_t params_size, struct snode_comm **comm);
int snode_comm_free(struct snode_comm *comm);
int snode_comm_get_rank(struct snode_comm *comm);
int snode_comm_get_size(struct snode_comm *comm);
int snode_allreduce(struct snode_comm *comm, void *buf, size_t count,
		    unsigned int type, unsigned int op);
int snode_bcast(struct snode_comm *comm, void *buf, size_t len,
		unsigned int root);
int snode_barrier(struct snode_comm *comm);
int snode_alltoall(struct snode_comm *comm, const void *sendbuf,
		   void *recvbuf, size_t len);

#ifdef __cplusplus
}
#endif

#endif /* LIBSNODE_H */
