/* SPDX-License-Identifier: GPL-2.0 */
/*
 * snode: private header of the supernode interconnect NIC driver.
 */
#ifndef _SNODE_H_
#define _SNODE_H_

#include <linux/cdev.h>
#include <linux/completion.h>
#include <linux/device.h>
#include <linux/dma-mapping.h>
#include <linux/mutex.h>
#include <linux/pci.h>
#include <linux/refcount.h>
#include <linux/rwsem.h>
#include <linux/sched.h>
#include <linux/sizes.h>
#include <linux/spinlock.h>
#include <linux/uidgid.h>
#include <linux/wait.h>
#include <linux/workqueue.h>

#include "hw.h"

struct snode_link;
struct snode_msg_dev;
struct snode_dma_dev;
struct snode_devlink;
struct snode_net;

#define SNODE_MAX_DEVS		256

/*
 * Ring sizes. The ASQ and ACQ have the same depth so that admin completions
 * can never overflow; one submission slot stays free (a full ring is
 * tail + 1 == head), which bounds the commands in flight. The event queue
 * holds a whole fabric's worth of NODE_STATE events (a plane failing in a
 * 256-node fabric posts one per node) without overflowing; an overflow is
 * survivable (the driver re-reads ports and nodes) but loses event order.
 */
#define SNODE_AQ_DEPTH		64
#define SNODE_AQ_MAX_INFLIGHT	(SNODE_AQ_DEPTH - 1)
#define SNODE_EQ_DEPTH		1024

/*
 * Fabric commands complete with TIMEOUT after 2 s on the device side, so a
 * command the device has not answered after 3 s means the device is stuck.
 */
#define SNODE_ADMIN_TIMEOUT	(3 * HZ)

/*
 * State of a device, protected by snode_dev.rwsem. Anything that talks to
 * the hardware on behalf of a user does so in LIVE, holding rwsem for read.
 */
enum snode_state {
	SNODE_STATE_LIVE,
	SNODE_STATE_RESETTING,	/* between reset_prepare and reset_done */
	SNODE_STATE_DEAD,	/* failed to come back; a reset may revive it */
	SNODE_STATE_REMOVED,	/* the PCI device is gone; only close() works */
};

/**
 * struct snode_id - decoded IDENTIFY data, the device's identity
 * @node_id: fabric node id, SNODE_NODE_ID_NONE while not attached
 * @fabric_id: fabric id
 * @hw_version: contract version, major[31:16] minor[15:0]
 * @fw_version: firmware version, major[31:24] minor[23:16] patch[15:0]
 * @caps: CAP bits
 * @attached: STATUS.ATTACHED at the time of the identify
 * @nports: ports
 * @max_nodes: node ids are below this
 * @att_entries: requester ATT entries
 * @export_entries: responder export entries
 * @endpoints: message endpoints
 * @max_dma_len: largest DMA descriptor, bytes
 * @max_host_extents: extents of one host export, 0: no host exports
 * @aperture_size: BAR2 aperture size, bytes
 * @pool_size: BAR4 pool size, bytes
 * @serial: serial number, NUL terminated
 * @fw_name: firmware name, NUL terminated
 */
struct snode_id {
	u32 node_id;
	u32 fabric_id;
	u32 hw_version;
	u32 fw_version;
	u32 caps;
	bool attached;
	u16 nports;
	u16 max_nodes;
	u16 att_entries;
	u16 export_entries;
	u16 endpoints;
	u32 max_dma_len;
	u32 max_host_extents;
	u64 aperture_size;
	u64 pool_size;
	char serial[33];
	char fw_name[33];
};

/**
 * struct snode_admin_slot - one admin command in flight
 * @done: completed by the ACQ handler
 * @busy: the command id is allocated
 * @abandoned: the submitter timed out; the ACQ handler frees @buf and the id
 * @status: device status code of the completion
 * @cqe: the completion entry, with the command's typed results
 * @buf: DMA buffer of the command, if any
 * @buf_dma: bus address of @buf
 * @buf_len: length of @buf
 */
struct snode_admin_slot {
	struct completion done;
	bool busy;
	bool abandoned;
	u16 status;
	struct snode_admin_cqe cqe;
	void *buf;
	dma_addr_t buf_dma;
	size_t buf_len;
};

/**
 * struct snode_aq - the admin queue pair
 * @sq: submission ring, SNODE_AQ_DEPTH entries
 * @cq: completion ring, SNODE_AQ_DEPTH entries
 * @sq_dma: bus address of @sq
 * @cq_dma: bus address of @cq
 * @lock: protects every member below, and the rings
 * @enabled: the device processes the queue; submissions are accepted
 * @sq_tail: producer index of @sq
 * @cq_head: consumer index of @cq
 * @cq_phase: phase bit expected in the next new completion
 * @inflight: allocated command ids
 * @slots: per command id state
 * @slot_wait: woken when a command id is freed
 * @submitted: commands submitted since load
 * @completed: completions received since load
 * @timeouts: commands abandoned after SNODE_ADMIN_TIMEOUT
 * @abandoned: abandoned commands the device has not answered yet
 */
struct snode_aq {
	struct snode_admin_cmd *sq;
	struct snode_admin_cqe *cq;
	dma_addr_t sq_dma;
	dma_addr_t cq_dma;

	/* protects the members below and the rings */
	spinlock_t lock;
	bool enabled;
	u16 sq_tail;
	u16 cq_head;
	bool cq_phase;
	unsigned int inflight;
	struct snode_admin_slot slots[SNODE_AQ_DEPTH];
	wait_queue_head_t slot_wait;
	u64 submitted;
	u64 completed;
	u64 timeouts;
	unsigned int abandoned;
};

/**
 * struct snode_eq - the event queue
 * @ring: SNODE_EQ_DEPTH entries
 * @dma: bus address of @ring
 * @head: consumer index; only the event IRQ thread and a quiesced reset
 *        touch @head, @phase and the counters
 * @phase: phase bit expected in the next new event
 * @last_seq: sequence number of the last event
 * @events: events received since load
 * @by_type: events received per type; index 0 counts unknown types
 */
struct snode_eq {
	struct snode_event *ring;
	dma_addr_t dma;
	u16 head;
	bool phase;
	u32 last_seq;
	u64 events;
	u64 by_type[SNODE_EV_MAX + 1];
};

/**
 * struct snode_sensors - sensor thresholds set by the administrator
 * @lock: protects this structure and the threshold and alarm registers
 * @temp_max: TEMP_MAX, if @set has SNODE_ALARM_TEMP_MAX
 * @temp_crit: TEMP_CRIT, if @set has SNODE_ALARM_TEMP_CRIT
 * @power_max: POWER_MAX, if @set has SNODE_ALARM_POWER_MAX
 * @set: thresholds to restore after a reset, SNODE_ALARM_* bits
 */
struct snode_sensors {
	/* protects the thresholds and the threshold and alarm registers */
	struct mutex lock;
	s32 temp_max;
	s32 temp_crit;
	u32 power_max;
	u32 set;
};

/**
 * enum snode_quota_kind - what a user may hold only so much of on a NIC
 * @SNODE_QUOTA_DMA_QUEUES: DMA queues
 * @SNODE_QUOTA_ENDPOINTS: message endpoints
 * @SNODE_QUOTA_IMPORTS: imports (each holds an ATT entry)
 * @SNODE_QUOTA_EXPORTS: export table entries
 * @SNODE_QUOTA_POOL: bytes of the NIC's pool
 * @SNODE_QUOTA_NR: the number of kinds
 */
enum snode_quota_kind {
	SNODE_QUOTA_DMA_QUEUES,
	SNODE_QUOTA_ENDPOINTS,
	SNODE_QUOTA_IMPORTS,
	SNODE_QUOTA_EXPORTS,
	SNODE_QUOTA_POOL,
	SNODE_QUOTA_NR,
};

/*
 * The kernel's reserve: what the driver's own users (the network
 * interface: SNODE_NET_RINGS receive rings, each exported, and as many
 * imported send windows) may need of each table, which users without
 * CAP_SYS_RESOURCE leave free (net_ring.c checks that the interface fits).
 * Its endpoint has an id of its own, SNODE_NET_EP, which users never get.
 */
#define SNODE_RESERVE_IMPORTS	8
#define SNODE_RESERVE_EXPORTS	8
#define SNODE_RESERVE_POOL	SZ_16M

/**
 * struct snode_quotas - the users of a NIC and what they hold
 * @lock: protects @list
 * @list: a &struct snode_quota per user with files or objects
 * @users: what all users' objects hold together, per kind
 */
struct snode_quotas {
	spinlock_t lock;	/* protects list */
	struct list_head list;
	atomic64_t users[SNODE_QUOTA_NR];
};

/**
 * struct snode_dev - one snode NIC
 * @dev: the class device behind /dev/snodeN; its refcount owns this
 *       structure, which lives on while a file descriptor is open
 * @cdev: the character device
 * @pdev: the PCI function; do not use once @state is SNODE_STATE_REMOVED
 * @regs: BAR0 registers
 * @index: N in snodeN
 * @aperture: BAR2 resource, for later use by windows
 * @pool: BAR4 resource, for later use by exports
 * @nr_vecs: MSI-X vectors allocated
 * @rwsem: protects @state; held for read while talking to the hardware on
 *         behalf of users, for write while resetting or removing
 * @state: enum snode_state
 * @id_lock: protects @id and @identify
 * @id: decoded identity from the last IDENTIFY
 * @identify: raw IDENTIFY data, for debugfs
 * @identify_work: re-identifies after the fabric attached or detached
 * @aq: admin queue
 * @eq: event queue
 * @sensors: sensor thresholds
 * @hwmon: hwmon device, NULL without CAP.SENSORS
 * @link: link health: ports, fabric nodes, their events (link*.c); set up
 *        before the queues start, so that every event finds it
 * @debugfs: debugfs directory of this device
 * @mem: global memory: pool, exports, imports (mem.c); NULL until probe
 *       sets it up, freed with this structure
 * @msg: message endpoints and sending (msg.c); NULL without CAP.MSG,
 *       freed with this structure
 * @dma: DMA engine (dma.c); NULL without CAP.DMA, freed with this structure
 * @dl: the devlink instance (devlink.c) while it is registered; set and
 *      cleared under &snode_link.lock, which the event path holds to use it
 * @net: the network interface (net.c) while it is registered; set and
 *       cleared under &snode_link.lock (snode_link_net_attach())
 * @quotas: the users of the NIC and what they hold (fs.c)
 * @features: main.c's table of features, NULL-terminated, set at probe
 * @listeners: main.c's table of what hears the links, NULL-terminated
 */
struct snode_dev {
	struct device dev;
	struct cdev cdev;
	struct pci_dev *pdev;
	void __iomem *regs;
	int index;
	struct resource aperture;
	struct resource pool;
	int nr_vecs;

	/* protects state; readers use the hardware, writers reset or remove */
	struct rw_semaphore rwsem;
	enum snode_state state;

	/* protects id and identify */
	spinlock_t id_lock;
	struct snode_id id;
	struct snode_identify identify;
	struct work_struct identify_work;

	struct snode_aq aq;
	struct snode_eq eq;

	struct snode_sensors sensors;
	struct device *hwmon;
	struct snode_link *link;

	struct dentry *debugfs;

	struct snode_mem *mem;
	struct snode_msg_dev *msg;
	struct snode_dma_dev *dma;
	struct snode_devlink *dl;
	struct snode_net *net;

	struct snode_quotas quotas;
	const struct snode_feature_ops *const *features;
	const struct snode_listener_ops *const *listeners;
};

/**
 * struct snode_feature_ops - how the core reaches a feature or a front end
 * @name: what the probe failure message says could not be set up
 * @early_init: probe, before the queues exist: device-managed state that
 *              must outlive the event interrupt
 * @init: probe, the queues exist, the device is not enabled yet: state
 *        torn down after the device's reset on unbind
 * @add: probe, the device is enabled and identified: what users see
 * @start: the queues are running and the device not yet enabled, at probe
 *         and after every reset; caller holds rwsem for write, or probes
 * @reset_prepare: the device is RESETTING and its queues stopped: drop what
 *                 the reset wipes; caller holds rwsem for write
 * @reset_restore: the device is enabled again and not yet identified:
 *                 program what the reset cleared; rwsem held for write
 * @reset_done: the device answered IDENTIFY again and turns LIVE when
 *              every feature is done; rwsem held for write
 * @events: BIT() of the event types @event handles
 * @event: handle one event of a type in @events (event IRQ thread)
 * @event_report: every event, after the handlers: tell the operators
 * @intr: INTR_CAUSE bits of vector 0 that @irq handles
 * @irq: vector 0 raised one of @intr (its IRQ thread)
 * @admin_answered: the admin queue's thread found answers: nothing the
 *                  driver told the device before can change its tables
 *
 * The module's table of features (main.c) is the order of every phase:
 * probe runs @early_init, then @init, then @add of each feature in table
 * order, and device-managed teardown undoes it in reverse; each hook of a
 * reset, an event or an interrupt runs in table order. Every hook is
 * optional.
 */
struct snode_feature_ops {
	const char *name;
	int (*early_init)(struct snode_dev *sdev);
	int (*init)(struct snode_dev *sdev);
	int (*add)(struct snode_dev *sdev);
	void (*start)(struct snode_dev *sdev);
	void (*reset_prepare)(struct snode_dev *sdev);
	void (*reset_restore)(struct snode_dev *sdev);
	void (*reset_done)(struct snode_dev *sdev);
	u32 events;
	void (*event)(struct snode_dev *sdev, const struct snode_event *ev);
	void (*event_report)(struct snode_dev *sdev,
			     const struct snode_event *ev);
	u32 intr;
	void (*irq)(struct snode_dev *sdev);
	void (*admin_answered)(struct snode_dev *sdev);
};

struct snode_ev_meta;
struct snode_link_node;
struct snode_link_port;
struct snode_port;

/* what a link notification reports (&snode_listener_ops.link_ntf) */
enum snode_link_ntf {
	SNODE_LINK_NTF_STATE,
	SNODE_LINK_NTF_BER,
	SNODE_LINK_NTF_ISOLATION,
	SNODE_LINK_NTF_UTIL,
	SNODE_LINK_NTF_NR,
};

/**
 * struct snode_listener_ops - who hears what the links observe
 * @dev_add: a NIC's link state is registered: make it visible (process
 *           context; return 0 or a negative errno)
 * @dev_del: undo @dev_add; may wait for the listener's users of the NIC
 * @nodes_changed: a node's state or route changed (any context)
 * @link_ntf: a link changed (the rest: caller holds &snode_link.lock)
 * @node_ntf: a node changed
 * @revoked_ntf: the device revoked a window
 * @access_ntf: an aperture access no ATT entry grants
 * @thermal_ntf: a THERMAL event
 * @link_error: a link went over an error limit or down
 * @thermal_alarm: a THERMAL event with an alarm set
 * @node_changed: a node went up or down (after @nodes_changed)
 *
 * The links (link*.c) report through these; the netlink family, devlink
 * and the network interface implement them, so that the links call no front
 * end and no other feature. main.c names the listeners; every member is
 * optional.
 */
struct snode_listener_ops {
	int (*dev_add)(struct snode_dev *sdev);
	void (*dev_del)(struct snode_dev *sdev);
	void (*nodes_changed)(struct snode_dev *sdev);
	void (*link_ntf)(struct snode_dev *sdev, enum snode_link_ntf kind,
			 unsigned int port, const struct snode_link_port *lp,
			 u64 threshold, const struct snode_ev_meta *meta);
	void (*node_ntf)(struct snode_dev *sdev, u32 id,
			 const struct snode_link_node *ln,
			 const struct snode_ev_meta *meta);
	void (*revoked_ntf)(struct snode_dev *sdev, u32 att_index, u32 reason,
			    u32 epoch, u32 node, u32 export_id,
			    const struct snode_ev_meta *meta);
	void (*access_ntf)(struct snode_dev *sdev, u64 offset, bool write,
			   const struct snode_ev_meta *meta);
	void (*thermal_ntf)(struct snode_dev *sdev, s32 temp, u32 power,
			    u32 alarm, const struct snode_ev_meta *meta);
	void (*link_error)(struct snode_dev *sdev, unsigned int port,
			   const char *reason, const struct snode_port *state,
			   u64 threshold);
	void (*thermal_alarm)(struct snode_dev *sdev, s32 temp, u32 power,
			      u32 alarm);
	void (*node_changed)(struct snode_dev *sdev, u32 node, bool up);
};

/**
 * struct snode_driver - what the module hands the PCI driver
 * @dev_alloc: allocate and initialise the device structure of a NIC
 *             (its struct device, whose release frees it)
 * @features: the features, NULL-terminated, in the order of
 *            &struct snode_feature_ops
 * @listeners: who hears what the links observe, NULL-terminated
 */
struct snode_driver {
	struct snode_dev *(*dev_alloc)(struct pci_dev *pdev);
	const struct snode_feature_ops *const *features;
	const struct snode_listener_ops *const *listeners;
};

static inline struct snode_dev *to_snode_dev(struct device *dev)
{
	return container_of(dev, struct snode_dev, dev);
}

static inline u32 snode_readl(struct snode_dev *sdev, u32 offset)
{
	return readl(sdev->regs + offset);
}

static inline void snode_writel(struct snode_dev *sdev, u32 offset, u32 val)
{
	writel(val, sdev->regs + offset);
}

/**
 * struct snode_admin_req - an admin command and its result
 * @cmd: in: the command's opcode, flags and parameters, written through the
 *       typed parameter struct of the opcode (``cmd.att_set.index``, ...);
 *       the queue fills in the command id, address and length
 * @data: kernel buffer for the command's data, or NULL
 * @len: length of @data
 * @addr: with @len 0, the bus address the command's addr field carries:
 *        memory the caller owns and the device keeps using (EP_SET ring)
 * @dir: DMA_TO_DEVICE (in buffer) or DMA_FROM_DEVICE (out buffer)
 * @status: out: device status code
 * @cpl: out: the completion, read through the typed result struct of the
 *       opcode (``cpl.att_set.epoch``, ...)
 */
struct snode_admin_req {
	struct snode_admin_cmd cmd;
	void *data;
	u32 len;
	dma_addr_t addr;
	enum dma_data_direction dir;
	u16 status;
	struct snode_admin_cqe cpl;
};

/**
 * struct snode_file - an open file of /dev/snodeN
 * @sdev: the device; the file holds a reference
 * @mem: the global memory the file owns (mem.c)
 * @quota: the quota of the file's opener on this NIC, which the objects
 *         created through the file are charged to
 */
struct snode_file {
	struct snode_dev *sdev;
	struct snode_mem_file *mem;
	struct snode_quota *quota;
};

/**
 * struct snode_quota - what one user's objects on one NIC hold
 * @ref: one per open file of the user, one per object charged; objects (an
 *       import's or an endpoint's file) may outlive the files
 * @sdev: the NIC; the quota holds a reference
 * @uid: the user: the effective uid of the files' openers
 * @node: in &snode_quotas.list
 * @used: objects of each kind that exist, bytes for %SNODE_QUOTA_POOL
 */
struct snode_quota {
	refcount_t ref;
	struct snode_dev *sdev;
	kuid_t uid;
	struct list_head node;
	atomic64_t used[SNODE_QUOTA_NR];
};

/**
 * struct snode_owner - who created an object, for listings
 * @pid: thread-group id of the creator
 * @uid: its effective uid at the time
 * @comm: its command name at the time
 * @quota: the quota the object is charged to, if any
 * @kind: what @quota was charged for
 * @amount: how much: 1, or bytes for %SNODE_QUOTA_POOL
 */
struct snode_owner {
	struct pid *pid;
	kuid_t uid;
	char comm[TASK_COMM_LEN];
	struct snode_quota *quota;
	enum snode_quota_kind kind;
	u64 amount;
};

/**
 * struct snode_ucmd - one ioctl call
 * @sdev: the device of the file
 * @sfile: the /dev/snodeN file, or NULL for a file of an object
 * @obj: the object of an import, endpoint or DMA queue file
 * @ubuffer: the user's structure
 * @user_size: its size as userspace gave it
 * @cmd: kernel copy of the structure
 */
struct snode_ucmd {
	struct snode_dev *sdev;
	struct snode_file *sfile;
	void *obj;
	void __user *ubuffer;
	u32 user_size;
	void *cmd;
};

/* The largest ioctl structure the kernel knows, for the dispatcher's copy */
#define SNODE_UCMD_MAX		256

/* The operation changes something: the file must be open for writing. */
#define SNODE_IOCTL_WRITE	BIT(0)

/**
 * struct snode_ioctl_op - one entry of a file's ioctl table
 * @size: size of the structure the kernel knows
 * @min_size: size of its first version
 * @flags: %SNODE_IOCTL_WRITE
 * @execute: runs the call; answers with snode_ucmd_respond() itself
 */
struct snode_ioctl_op {
	unsigned int size;
	unsigned int min_size;
	unsigned int flags;
	int (*execute)(struct snode_ucmd *ucmd);
};

/*
 * Every snode ioctl is _IO(SNODE_TYPE, nr); a table is indexed by
 * nr - SNODE_CMD_BASE. @_last is the last member of the first version.
 */
#define SNODE_IOCTL_OP(_ioctl, _fn, _struct, _last, _flags)		\
	[_IOC_NR(_ioctl) - SNODE_CMD_BASE] = {				\
		.size = sizeof(_struct) +				\
			BUILD_BUG_ON_ZERO(sizeof(_struct) > SNODE_UCMD_MAX), \
		.min_size = offsetofend(_struct, _last),		\
		.flags = _flags,					\
		.execute = _fn,						\
	}

/**
 * enum snode_mem_list_type - the global-memory tables a listing reads
 * @SNODE_MEM_LIST_ALLOCS: pool allocations
 * @SNODE_MEM_LIST_EXPORTS: exports of this node
 * @SNODE_MEM_LIST_IMPORTS: imports on this node
 * @SNODE_MEM_LIST_ATT: address-translation entries in use
 */
enum snode_mem_list_type {
	SNODE_MEM_LIST_ALLOCS = 1,
	SNODE_MEM_LIST_EXPORTS,
	SNODE_MEM_LIST_IMPORTS,
	SNODE_MEM_LIST_ATT,
};

/**
 * enum snode_entry_flags - what a listing entry says beyond its values
 * @SNODE_ENTRY_WRITE: read-write (exports, imports, ATT entries)
 * @SNODE_ENTRY_NODES: an export that admits only a set of nodes
 * @SNODE_ENTRY_ZERO_PAGE: an import that maps zeros once revoked
 * @SNODE_ENTRY_KEY: the key may be shown to the reader
 * @SNODE_ENTRY_OWN: the object belongs to the reading process
 * @SNODE_ENTRY_HIDDEN: another user's object: owner details and pool
 *                      offsets are withheld
 * @SNODE_ENTRY_DEAD: an endpoint the NIC lost in a reset or unbind
 */
enum snode_entry_flags {
	SNODE_ENTRY_WRITE = BIT(0),
	SNODE_ENTRY_NODES = BIT(1),
	SNODE_ENTRY_ZERO_PAGE = BIT(2),
	SNODE_ENTRY_KEY = BIT(3),
	SNODE_ENTRY_OWN = BIT(4),
	SNODE_ENTRY_HIDDEN = BIT(5),
	SNODE_ENTRY_DEAD = BIT(6),
};

/**
 * struct snode_mem_entry - a snapshot of one global-memory object, for
 *                          the netlink family's window dumps
 * @flags: enum snode_entry_flags
 * @state: enum snode_window_state
 * @reason: an import's enum snode_revoke_reason
 * @node: allocations and exports: this node; imports and ATT entries: the
 *        exporter's node
 * @export_id: exports, imports, ATT entries
 * @att_index: imports and ATT entries; else U32_MAX
 * @epoch: imports and ATT entries: epoch of the mapping
 * @key: the key, if @flags has SNODE_ENTRY_KEY
 * @offset: allocations and exports: offset in the pool; imports and ATT
 *          entries: offset inside the export (0 if hidden)
 * @length: bytes
 * @aperture_offset: imports and ATT entries: offset in the aperture
 * @pid: the owner's process id in the reader's pid namespace, 0 if none
 *       or hidden
 * @comm: the owner's command name at creation
 */
struct snode_mem_entry {
	u32 flags;
	u32 state;
	u32 reason;
	u32 node;
	u32 export_id;
	u32 att_index;
	u32 epoch;
	u64 key;
	u64 offset;
	u64 length;
	u64 aperture_offset;
	pid_t pid;
	char comm[TASK_COMM_LEN];
};

/**
 * struct snode_obj_entry - a snapshot of one endpoint or DMA queue, for
 *                          the netlink family's dumps
 * @flags: enum snode_entry_flags
 * @id: endpoint id; a DMA queue's number
 * @vector: an endpoint's interrupt vector
 * @entries: an endpoint's ring slots; a DMA queue's depth
 * @pending: messages waiting to be read; copies in flight
 * @key: an endpoint's key, if @flags has SNODE_ENTRY_KEY
 * @count: messages read; copies completed
 * @bytes: payload bytes read; bytes copied
 * @errors: sends from the endpoint that failed; copies that failed
 * @pid: the owner's process id in the reader's pid namespace, 0 if hidden
 * @comm: the owner's command name at creation
 */
struct snode_obj_entry {
	u32 flags;
	u32 id;
	u32 vector;
	u32 entries;
	u32 pending;
	u64 key;
	u64 count;
	u64 bytes;
	u64 errors;
	pid_t pid;
	char comm[TASK_COMM_LEN];
};

/**
 * struct snode_dev_stats - the NIC's counters and the driver's own
 * @hw: the STATS command's answer
 * @send_retries: sends the driver repeated because the destination's ring
 *                was full
 */
struct snode_dev_stats {
	struct snode_hw_stats hw;
	u64 send_retries;
};

/*
 * The features and front ends the core reaches through their ops, in the
 * order of main.c's table.
 */
extern const struct snode_feature_ops snode_link_feature;
extern const struct snode_feature_ops snode_mem_feature;
extern const struct snode_feature_ops snode_msg_feature;
extern const struct snode_feature_ops snode_dma_feature;
extern const struct snode_feature_ops snode_hwmon_feature;
extern const struct snode_feature_ops snode_cdev_feature;
extern const struct snode_feature_ops snode_debugfs_feature;
extern const struct snode_feature_ops snode_net_feature;
extern const struct snode_feature_ops snode_devlink_feature;
extern const struct snode_listener_ops snode_nl_listener;
extern const struct snode_listener_ops snode_devlink_listener;
extern const struct snode_listener_ops snode_net_listener;

/* cdev.c */
int snode_cdev_init(void);
void snode_cdev_exit(void);
struct snode_dev *snode_dev_alloc(struct pci_dev *pdev);

/* core.c */
const char *snode_state_name(enum snode_state state);
int snode_lock_live(struct snode_dev *sdev);
void snode_unlock_live(struct snode_dev *sdev);
long snode_ioctl_dispatch(struct file *filp, const struct snode_ioctl_op *ops,
			  size_t nr_ops, struct snode_ucmd *ucmd,
			  unsigned int cmd, unsigned long arg);
int snode_ucmd_respond(struct snode_ucmd *ucmd, size_t cmd_len);
int snode_ucmd_install_fd(struct snode_ucmd *ucmd, size_t cmd_len,
			  struct file *file, int fd, int ret);

/* pci.c */
int snode_pci_init(const struct snode_driver *drv);
void snode_pci_exit(void);
int __snode_identify(struct snode_dev *sdev);
void snode_id_get(struct snode_dev *sdev, struct snode_id *id);

/* queue.c */
int snode_queues_init(struct snode_dev *sdev);
void __snode_queues_start(struct snode_dev *sdev);
void __snode_queues_stop(struct snode_dev *sdev);
int __snode_admin_exec(struct snode_dev *sdev, struct snode_admin_req *req);
int snode_admin_exec(struct snode_dev *sdev, struct snode_admin_req *req);
bool snode_admin_answered(struct snode_dev *sdev);
int snode_status_to_errno(u16 status);
int snode_dev_stats(struct snode_dev *sdev, struct snode_dev_stats *st);

/* net.c: the network interface */

/* sysfs.c */
extern const struct attribute_group *snode_dev_groups[];

/* mem.c, mem_list.c, export.c, import.c, import_att.c: global memory */
void snode_mem_free(struct snode_dev *sdev);
void snode_mem_debugfs_add(struct snode_dev *sdev);
int snode_mem_open(struct snode_file *sfile, struct file *filp);
void snode_mem_release(struct snode_file *sfile);
int snode_mem_mmap(struct file *filp, struct vm_area_struct *vma);
unsigned long snode_mem_get_unmapped_area(struct file *filp,
					  unsigned long addr,
					  unsigned long len,
					  unsigned long pgoff,
					  unsigned long flags);
int snode_ioctl_mem_alloc(struct snode_ucmd *ucmd);
int snode_ioctl_mem_free(struct snode_ucmd *ucmd);
int snode_ioctl_mem_export(struct snode_ucmd *ucmd);
int snode_ioctl_mem_unexport(struct snode_ucmd *ucmd);
int snode_ioctl_mem_import(struct snode_ucmd *ucmd);
unsigned int snode_mem_gen(struct snode_dev *sdev);
u64 snode_mem_pool_free(struct snode_dev *sdev);
/**
 * struct snode_viewer - who reads a listing
 * @uid: the reader's effective uid, or INVALID_UID if the socket it reads
 *       from was opened by another uid
 * @pid: the reader's process (its objects are its own), NULL if @uid is
 *       invalid
 * @admin: the reader and the socket's opener have CAP_NET_ADMIN
 * @keys: the reader and the socket's opener have CAP_SYS_ADMIN
 */
struct snode_viewer {
	kuid_t uid;
	struct pid *pid;
	bool admin;
	bool keys;
};

/* fs.c */
struct inode *snode_fs_inode_get(void);
void snode_fs_inode_put(struct inode *inode);
struct file *snode_fs_file_create(const char *name, int flags,
				  const struct file_operations *fops,
				  void *priv);
void snode_quotas_init(struct snode_dev *sdev);
struct snode_quota *snode_quota_get(struct snode_dev *sdev, kuid_t uid);
void snode_quota_put(struct snode_quota *quota);
void snode_owner_init(struct snode_owner *owner);
void snode_owner_init_kernel(struct snode_owner *owner);
void snode_owner_put(struct snode_owner *owner);
int snode_owner_charge(struct snode_owner *owner, struct snode_file *sfile,
		       enum snode_quota_kind kind, u64 amount);
bool snode_owner_visible(const struct snode_owner *owner,
			 const struct snode_viewer *viewer);
bool snode_owner_is_viewer(const struct snode_owner *owner,
			   const struct snode_viewer *viewer);
bool snode_owner_key_visible(const struct snode_owner *owner,
			     const struct snode_viewer *viewer);

u32 snode_mem_list(struct snode_dev *sdev, u32 type,
		   struct snode_mem_entry *out, u32 max,
		   const struct snode_viewer *viewer);

/* import.c: the target of a DMA copy */
struct snode_import;
struct snode_import *snode_import_dma_get(struct snode_dev *sdev, int fd,
					  u64 offset, u64 length, bool write,
					  u64 *ap_start);
void snode_import_dma_put(struct snode_import *imp);

/* netlink.c */
int snode_nl_init(void);
void snode_nl_exit(void);

/* msg.c: message endpoints and sending */
void snode_msg_free(struct snode_dev *sdev);
int snode_ioctl_ep_alloc(struct snode_ucmd *ucmd);
int snode_ioctl_msg_send(struct snode_ucmd *ucmd);
unsigned int snode_ep_gen(struct snode_dev *sdev);
u32 snode_ep_list(struct snode_dev *sdev, struct snode_obj_entry *entries,
		  u32 max, const struct snode_viewer *viewer);
u64 snode_msg_send_retries(struct snode_dev *sdev);

/* dma.c: the DMA engine */
void snode_dma_free(struct snode_dev *sdev);

/* dma_queue.c: the DMA queues processes submit through */
unsigned int snode_dma_gen(struct snode_dev *sdev);
u32 snode_dma_list_queues(struct snode_dev *sdev,
			  struct snode_obj_entry *entries, u32 max,
			  const struct snode_viewer *viewer);
int snode_ioctl_dma_open(struct snode_ucmd *ucmd);

/* debugfs.c */
void snode_debugfs_init(void);
void snode_debugfs_exit(void);

/**
 * enum snode_delay_point - where a test may widen a race window
 * @SNODE_DELAY_DMA_OPEN: DMA_OPEN, after the queue was published and
 *                        before its descriptor is installed
 * @SNODE_DELAY_DMA_BATCH_DONE: the last copy of a synchronous batch
 *                              finished, before its waiter is woken
 * @SNODE_DELAY_EP_IRQ: the message interrupt found an endpoint, before
 *                      it signals it (hard-IRQ context: busy-waits)
 * @SNODE_DELAY_NL_DEVCMD: a netlink request is about to ask the device
 * @SNODE_DELAY_ADMIN_SLOT: an admin command holds its command slot, before
 *                          it is written to the ring
 * @SNODE_DELAY_FABRIC_EVENT: the event thread got a FABRIC event, before it
 *                            queues the re-identify work
 * @SNODE_DELAY_IDENTIFY_WORK: the re-identify work starts, before it looks
 *                             at the device
 * @SNODE_DELAY_REMOVE_END: the last teardown step of an unbind: every ring
 *                          and buffer of the device is freed, the PCI core
 *                          has not disabled the function yet
 * @SNODE_DELAY_NET_GRANT: the network interface is about to answer a
 *                         node's ASK for a window ring
 * @SNODE_DELAY_NET_RING_PUT: the network interface is about to store a
 *                            frame into a peer's ring through its window
 * @SNODE_DELAY_NR: number of points
 */
enum snode_delay_point {
	SNODE_DELAY_DMA_OPEN,
	SNODE_DELAY_DMA_BATCH_DONE,
	SNODE_DELAY_EP_IRQ,
	SNODE_DELAY_NL_DEVCMD,
	SNODE_DELAY_ADMIN_SLOT,
	SNODE_DELAY_FABRIC_EVENT,
	SNODE_DELAY_IDENTIFY_WORK,
	SNODE_DELAY_REMOVE_END,
	SNODE_DELAY_NET_GRANT,
	SNODE_DELAY_NET_RING_PUT,
	SNODE_DELAY_NR,
};

/**
 * struct snode_delay_point_info - a delay point's debugfs file
 * @name: the file's name under /sys/kernel/debug/snode/delay/
 * @atomic: the point may not sleep
 */
struct snode_delay_point_info {
	const char *name;
	bool atomic;
};

/* core.c: test hooks; debugfs.c creates their files */
extern u32 snode_delays[SNODE_DELAY_NR];
extern const struct snode_delay_point_info snode_delay_points[SNODE_DELAY_NR];
extern u32 snode_dma_wait_ms;
extern u32 snode_skip_reset;
extern u32 snode_dma_stop_stuck;
extern u32 snode_net_rx_stall;
#ifdef CONFIG_FAULT_INJECTION_DEBUG_FS
extern struct fault_attr snode_fail_admin;
extern bool snode_fail_admin_timeout;
#endif
bool snode_should_fail_admin(bool *time_out);
void snode_debug_delay(enum snode_delay_point point);
unsigned long snode_debug_dma_wait(void);
bool snode_debug_skip_reset(void);
bool snode_debug_dma_stop_stuck(void);
bool snode_debug_net_rx_stall(void);

#endif /* _SNODE_H_ */
