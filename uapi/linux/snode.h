/* SPDX-License-Identifier: GPL-2.0 WITH Linux-syscall-note */
/*
 * snode: userspace interface of the supernode interconnect NIC driver.
 */
#ifndef _UAPI_LINUX_SNODE_H
#define _UAPI_LINUX_SNODE_H

#include <linux/ioctl.h>
#include <linux/snode_nl.h>
#include <linux/types.h>

#define SNODE_TYPE 'N'
/* The largest ``size`` an ioctl accepts (see the general ioctl format) */
#define SNODE_IOCTL_SIZE_MAX 4096

/**
 * DOC: General ioctl format
 *
 * Each NIC has one character device, /dev/snodeN. The ioctl interface follows
 * a simple convention that lets every structure grow over time:
 *
 * - Each ioctl is _IO(SNODE_TYPE, SNODE_CMD_BASE + n); the argument is a
 *   pointer to a structure whose first member is ``__u32 size``, the number
 *   of bytes userspace made available. The size is not encoded in the ioctl
 *   number.
 * - The kernel reads ``size`` bytes. Bytes the kernel does not know must be
 *   zero; a non-zero byte past the structure the kernel knows fails with
 *   E2BIG. A size smaller than the smallest structure the kernel accepts for
 *   the command fails with EINVAL; a size above SNODE_IOCTL_SIZE_MAX (4096)
 *   fails with E2BIG without being read, as bpf(2) bounds its attribute.
 * - ``flags`` follows ``size``; unknown flags fail with EOPNOTSUPP.
 *   Members named ``__reserved`` must be zero, else EOPNOTSUPP.
 * - Members prefixed ``out_`` are written by the kernel; on success the
 *   kernel writes back at most ``size`` bytes.
 * - 64-bit members are __aligned_u64 so that 32-bit and 64-bit userspace
 *   share one layout.
 *
 * Error numbers have fixed meanings for every ioctl:
 *
 * - ENOTTY: unknown ioctl number
 * - E2BIG: a non-zero byte past the structure the kernel knows, or
 *   ``size`` above SNODE_IOCTL_SIZE_MAX
 * - EOPNOTSUPP: an unknown flag is set or a reserved member is non-zero
 * - EINVAL: ``size`` too small, or a member has a value out of range
 * - EFAULT: the argument or a pointer inside it is not accessible
 * - ENODEV: the device was removed; only close() is useful
 * - EIO: the device failed and needs a reset
 * - EAGAIN: the device is being reset; retry
 *
 * The ioctls act on the caller's own objects. Listings of everything a NIC
 * holds (windows and pool allocations, endpoints, DMA queues) and the NIC's
 * counters are dumps of the generic netlink family "snode"
 * (<linux/snode_nl.h>); the listing ioctls MEM_LIST, MSG_LIST and STATS of
 * the first version are gone and their numbers fail with ENOTTY.
 */
enum {
	SNODE_CMD_BASE = 0x80,
	SNODE_CMD_INFO = SNODE_CMD_BASE,
	SNODE_CMD_MEM_ALLOC,
	SNODE_CMD_MEM_FREE,
	SNODE_CMD_MEM_EXPORT,
	SNODE_CMD_MEM_UNEXPORT,
	SNODE_CMD_MEM_IMPORT,
	SNODE_CMD_IMPORT_STATUS,
	__SNODE_CMD_REMOVED_MEM_LIST,	/* numbers of removed ioctls: never reused */
	SNODE_CMD_EP_ALLOC,
	SNODE_CMD_MSG_SEND,
	__SNODE_CMD_REMOVED_MSG_LIST,
	SNODE_CMD_DMA_OPEN,
	SNODE_CMD_DMA_SUBMIT,
	__SNODE_CMD_REMOVED_STATS,
};

/**
 * enum snode_caps - capability bits of struct snode_info.out_caps
 * @SNODE_CAP_ATT: requester address translation (remote windows)
 * @SNODE_CAP_EXPORT: responder export table (exporting local memory)
 * @SNODE_CAP_DMA: DMA copy engine
 * @SNODE_CAP_MSG: doorbells and messages
 * @SNODE_CAP_SENSORS: temperature and power sensors (hwmon)
 * @SNODE_CAP_COHERENT: the fabric is cache coherent; windows are mapped
 *                      write-back, else write-combining
 * @SNODE_CAP_FLR: the device supports function-level reset
 * @SNODE_CAP_EV_TOPO: the device's node events carry the route's topology
 * @SNODE_CAP_HOST_EXPORT: exports may name the caller's own memory
 *                         (SNODE_EXPORT_HOST)
 *
 * The values are those of the device's CAP register, which the kernel
 * reports unchanged.
 */
enum snode_caps {
	SNODE_CAP_ATT = 1 << 0,
	SNODE_CAP_EXPORT = 1 << 1,
	SNODE_CAP_DMA = 1 << 2,
	SNODE_CAP_MSG = 1 << 3,
	SNODE_CAP_SENSORS = 1 << 4,
	SNODE_CAP_COHERENT = 1 << 5,
	SNODE_CAP_FLR = 1 << 6,
	SNODE_CAP_EV_TOPO = 1 << 7,
	SNODE_CAP_HOST_EXPORT = 1 << 8,
};

/**
 * enum snode_info_out_flags - state bits of struct snode_info.out_flags
 * @SNODE_INFO_OUT_ATTACHED: the NIC is connected to a fabric and
 *                           out_node_id is valid
 * @SNODE_INFO_OUT_THROTTLED: the NIC throttles because it is too hot
 */
enum snode_info_out_flags {
	SNODE_INFO_OUT_ATTACHED = 1 << 0,
	SNODE_INFO_OUT_THROTTLED = 1 << 1,
};

/* struct snode_info.out_node_id while the NIC is not attached */
#define SNODE_NODE_ID_NONE 0xffffffffU

/**
 * struct snode_info - ioctl(SNODE_IOCTL_INFO)
 * @size: sizeof(struct snode_info)
 * @flags: must be 0
 * @__reserved: must be 0
 * @out_index: N of /dev/snodeN
 * @out_node_id: fabric node id of this NIC, or SNODE_NODE_ID_NONE while the
 *               NIC is not attached to a fabric
 * @out_fabric_id: id of the fabric (supernode) the NIC belongs to
 * @out_hw_version: hardware contract version, major in bits 31:16, minor in
 *                  bits 15:0
 * @out_fw_version: firmware version, major in bits 31:24, minor in bits
 *                  23:16, patch in bits 15:0
 * @out_caps: capabilities, enum snode_caps
 * @out_flags: current state, enum snode_info_out_flags
 * @out_nports: number of fabric ports
 * @out_max_nodes: node ids range from 0 to out_max_nodes - 1
 * @out_att_entries: number of requester translation (window) entries
 * @out_export_entries: number of responder export entries
 * @out_endpoints: number of message endpoints
 * @out_max_dma_len: largest copy of one DMA descriptor, in bytes
 * @out_aperture_size: size in bytes of the aperture remote windows live in
 * @out_pool_size: size in bytes of the fabric memory pool this NIC
 *                 contributes
 * @out_serial: serial number, NUL terminated
 * @out_fw_name: firmware name, NUL terminated
 *
 * Describe the NIC and its place in the fabric. The values are those the
 * device reported at the last identify: at probe, after a reset and whenever
 * it attaches to a fabric.
 */
struct snode_info {
	__u32 size;
	__u32 flags;
	__u32 __reserved;
	__u32 out_index;
	__u32 out_node_id;
	__u32 out_fabric_id;
	__u32 out_hw_version;
	__u32 out_fw_version;
	__u32 out_caps;
	__u32 out_flags;
	__u32 out_nports;
	__u32 out_max_nodes;
	__u32 out_att_entries;
	__u32 out_export_entries;
	__u32 out_endpoints;
	__u32 out_max_dma_len;
	__aligned_u64 out_aperture_size;
	__aligned_u64 out_pool_size;
	char out_serial[32];
	char out_fw_name[32];
};

#define SNODE_IOCTL_INFO _IO(SNODE_TYPE, SNODE_CMD_INFO)

/**
 * DOC: Global memory
 *
 * Every node contributes its fabric memory pool to the supernode's global
 * address space. A process allocates from its own node's pool, maps the
 * allocation with mmap() of /dev/snodeN, and exports a range of it under a
 * handle: (node, export id, key). Any process on any node that knows the
 * handle imports it, which returns a new file descriptor; mmap() of that
 * descriptor maps the remote memory, read with plain loads and written with
 * plain stores. See Documentation/driver/global-memory.rst.
 *
 * Lifetime: allocations and exports belong to the open file of /dev/snodeN
 * that created them and go away when it is released (process exit
 * included): exports are withdrawn first, which revokes every import of
 * them on every node. A mapping keeps its allocation alive until munmap().
 * An import lives as long as its file descriptor and its mappings.
 *
 * Revocation: when the exporter withdraws the export, exits, its node dies,
 * resets or becomes unreachable, or this node's NIC is reset or unbound, the
 * import is revoked: the window is unmapped and the next access through an
 * existing mapping raises SIGBUS, or reads zeros if the import asked for
 * SNODE_IMPORT_ZERO_PAGE_ON_REVOKE (a store still raises SIGBUS). The
 * import's descriptor then polls EPOLLIN | EPOLLPRI | EPOLLERR, and
 * SNODE_IOCTL_IMPORT_STATUS reports the reason and the epoch of the mapping
 * that was revoked. A revoked import stays revoked; import the handle again
 * to get a new window.
 *
 * The memory ioctls fail with these error numbers besides the general ones:
 *
 * - EPERM: /dev/snodeN was not opened for writing (alloc, free, export,
 *   unexport, import)
 * - ENOMEM: the pool has no free range of that size (alloc)
 * - ENOENT: no allocation at that offset of this file (free, export), no
 *   export of this file with that id (unexport), no such export on the
 *   target node (import)
 * - ENOSPC: the export table, the ATT or the aperture is full, or the
 *   users' share of it or of the pool is taken: users without
 *   CAP_SYS_RESOURCE leave the kernel's reserve free (alloc, export,
 *   import)
 * - EMFILE: the caller's user holds as many exports, imports or pool
 *   bytes on this NIC as one user may, through all its files (the snode
 *   module's max_exports, max_imports and max_pool_mib parameters)
 * - EKEYREJECTED: the export exists but the key does not match (import)
 * - EACCES: the export does not admit this node (import)
 * - EROFS: write access asked of a read-only export (import)
 * - ERANGE: offset or length outside the export (import)
 * - EHOSTUNREACH: no fabric path to the node, or it is dead (import)
 * - ETIMEDOUT: the fabric did not answer (export, unexport, import)
 * - ENOLINK: the NIC is not attached to a fabric
 */

/**
 * struct snode_mem_alloc - ioctl(SNODE_IOCTL_MEM_ALLOC)
 * @size: sizeof(struct snode_mem_alloc)
 * @flags: must be 0
 * @length: bytes to allocate, a multiple of 4096, at most the pool size
 * @out_offset: the allocation's offset in the pool; it names the
 *              allocation in SNODE_IOCTL_MEM_FREE and SNODE_IOCTL_MEM_EXPORT,
 *              and is the offset at which to mmap() /dev/snodeN
 *
 * Allocate memory of this node's fabric pool, zeroed. Allocations of a
 * multiple of 2 MiB are 2 MiB aligned in the pool, so that they can be
 * mapped with huge pages. The allocation belongs to the file and is freed
 * when the file is released.
 */
struct snode_mem_alloc {
	__u32 size;
	__u32 flags;
	__aligned_u64 length;
	__aligned_u64 out_offset;
};

#define SNODE_IOCTL_MEM_ALLOC _IO(SNODE_TYPE, SNODE_CMD_MEM_ALLOC)

/**
 * struct snode_mem_free - ioctl(SNODE_IOCTL_MEM_FREE)
 * @size: sizeof(struct snode_mem_free)
 * @flags: must be 0
 * @offset: the allocation, as SNODE_IOCTL_MEM_ALLOC returned it
 *
 * Withdraw every export of the allocation (revoking its imports) and free
 * it. Existing mappings of it stay valid until they are unmapped; the pool
 * range is reused only then.
 */
struct snode_mem_free {
	__u32 size;
	__u32 flags;
	__aligned_u64 offset;
};

#define SNODE_IOCTL_MEM_FREE _IO(SNODE_TYPE, SNODE_CMD_MEM_FREE)

/**
 * enum snode_mem_export_flags - flags of struct snode_mem_export
 * @SNODE_EXPORT_WRITE: importers may ask for write access; without it the
 *                      export is read-only
 * @SNODE_EXPORT_RANDOM_KEY: the kernel chooses a random key (@key must be 0)
 * @SNODE_EXPORT_NODES: only the nodes listed in @nodes may import it
 * @SNODE_EXPORT_HOST: export the caller's own memory (a host export):
 *                     @alloc is 0 and @offset is the range's start address
 *                     in the caller's address space
 */
enum snode_mem_export_flags {
	SNODE_EXPORT_WRITE = 1 << 0,
	SNODE_EXPORT_RANDOM_KEY = 1 << 1,
	SNODE_EXPORT_NODES = 1 << 2,
	SNODE_EXPORT_HOST = 1 << 3,
};

/**
 * struct snode_mem_export - ioctl(SNODE_IOCTL_MEM_EXPORT)
 * @size: sizeof(struct snode_mem_export)
 * @flags: enum snode_mem_export_flags
 * @alloc: the allocation to export from, as SNODE_IOCTL_MEM_ALLOC returned
 *         its offset
 * @offset: start of the exported range inside the allocation, a multiple
 *          of 4096
 * @length: bytes to export, a multiple of 4096, > 0, inside the allocation
 * @key: the 64-bit key importers must present; 0 with
 *       SNODE_EXPORT_RANDOM_KEY
 * @nodes: with SNODE_EXPORT_NODES, a pointer to @nr_nodes __u32 node ids
 *         that may import (each below struct snode_info.out_max_nodes);
 *         else 0
 * @nr_nodes: with SNODE_EXPORT_NODES, 1 to out_max_nodes; else 0
 * @out_node: this node's id, the first part of the handle
 * @out_export_id: the export id the kernel chose, the second part
 * @__reserved: must be 0
 * @out_key: the key, the third part
 *
 * Make a range of an allocation importable by other nodes. The kernel
 * picks the lowest free export id. The export belongs to the file and is
 * withdrawn when the file is released.
 *
 * With SNODE_EXPORT_HOST (struct snode_info.out_caps has
 * SNODE_CAP_HOST_EXPORT) the range is the caller's own memory, anonymous,
 * hugetlb or shared memory that can be pinned long-term: @alloc must be 0,
 * @offset is the start address and @length the bytes, both multiples of
 * 4096. The pages are pinned until the export is withdrawn and the NIC
 * confirmed it (a munmap() or exit in between frees nothing a peer can
 * still reach) and are charged to the caller's RLIMIT_MEMLOCK. Importers
 * use the handle as any other. Errors beyond the general ones: EINVAL
 * (@alloc not 0, a range that wraps or is 1 TiB or more), EFAULT (part of
 * the range is not mapped or cannot be pinned), ENOMEM (RLIMIT_MEMLOCK
 * exceeded, without CAP_IPC_LOCK), EFBIG (the range is more fragmented
 * than the NIC takes: more physically contiguous runs than its extent
 * limit; export less, or use huge pages), EOPNOTSUPP (the NIC cannot
 * export host memory). On every error nothing stays pinned or charged.
 */
struct snode_mem_export {
	__u32 size;
	__u32 flags;
	__aligned_u64 alloc;
	__aligned_u64 offset;
	__aligned_u64 length;
	__aligned_u64 key;
	__aligned_u64 nodes;
	__u32 nr_nodes;
	__u32 out_node;
	__u32 out_export_id;
	__u32 __reserved;
	__aligned_u64 out_key;
};

#define SNODE_IOCTL_MEM_EXPORT _IO(SNODE_TYPE, SNODE_CMD_MEM_EXPORT)

/**
 * struct snode_mem_unexport - ioctl(SNODE_IOCTL_MEM_UNEXPORT)
 * @size: sizeof(struct snode_mem_unexport)
 * @flags: must be 0
 * @export_id: an export of this file
 * @out_revoked: number of imports the fabric revoked
 *
 * Withdraw an export: the device and the fabric revoke every import of it
 * on every node before the call returns.
 */
struct snode_mem_unexport {
	__u32 size;
	__u32 flags;
	__u32 export_id;
	__u32 out_revoked;
};

#define SNODE_IOCTL_MEM_UNEXPORT _IO(SNODE_TYPE, SNODE_CMD_MEM_UNEXPORT)

/**
 * enum snode_mem_import_flags - flags of struct snode_mem_import
 * @SNODE_IMPORT_WRITE: map the window read-write; without it the import is
 *                      read-only and can never be mapped writable
 * @SNODE_IMPORT_ZERO_PAGE_ON_REVOKE: after a revocation, loads through an
 *                                    existing mapping read zeros instead of
 *                                    raising SIGBUS (stores still raise it)
 */
enum snode_mem_import_flags {
	SNODE_IMPORT_WRITE = 1 << 0,
	SNODE_IMPORT_ZERO_PAGE_ON_REVOKE = 1 << 1,
};

/**
 * struct snode_mem_import - ioctl(SNODE_IOCTL_MEM_IMPORT)
 * @size: sizeof(struct snode_mem_import)
 * @flags: enum snode_mem_import_flags
 * @node: the exporter's node id (first part of the handle)
 * @export_id: the export id (second part)
 * @key: the key (third part)
 * @offset: start of the window inside the export, a multiple of 4096
 * @length: bytes, a multiple of 4096, > 0
 * @out_fd: a new file descriptor (O_CLOEXEC) for the import
 * @out_epoch: the epoch of the mapping, as the NIC numbered it
 *
 * Program an address-translation entry onto the export; the exporter's
 * NIC checks the key, the node set and the permission. mmap() of @out_fd
 * (MAP_SHARED, offset inside the window) maps the window; the mapping is
 * write-back cached when the NIC reports SNODE_CAP_COHERENT, else
 * write-combining. The descriptor also takes SNODE_IOCTL_IMPORT_STATUS
 * and poll(). Closing it (and unmapping) releases the entry.
 */
struct snode_mem_import {
	__u32 size;
	__u32 flags;
	__u32 node;
	__u32 export_id;
	__aligned_u64 key;
	__aligned_u64 offset;
	__aligned_u64 length;
	__s32 out_fd;
	__u32 out_epoch;
};

#define SNODE_IOCTL_MEM_IMPORT _IO(SNODE_TYPE, SNODE_CMD_MEM_IMPORT)

/**
 * struct snode_import_status - ioctl(SNODE_IOCTL_IMPORT_STATUS) on an
 *                              import's file descriptor
 * @size: sizeof(struct snode_import_status)
 * @flags: must be 0
 * @out_state: SNODE_WINDOW_STATE_ACTIVE (the window maps the exporter's
 *             memory) or SNODE_WINDOW_STATE_REVOKED, of enum
 *             snode_window_state (<linux/snode_nl.h>)
 * @out_reason: why it was revoked, enum snode_revoke_reason
 *              (<linux/snode_nl.h>); SNODE_REVOKE_REASON_NONE if not
 * @out_epoch: epoch of the mapping (the one revoked, once revoked)
 * @out_node: the handle's node
 * @out_export_id: the handle's export id
 * @out_flags: the import's enum snode_mem_import_flags
 * @out_key: the handle's key
 * @out_offset: the window's offset inside the export
 * @out_length: the window's length
 * @out_att_index: the address-translation entry the window used
 * @__reserved: must be 0
 */
struct snode_import_status {
	__u32 size;
	__u32 flags;
	__u32 out_state;
	__u32 out_reason;
	__u32 out_epoch;
	__u32 out_node;
	__u32 out_export_id;
	__u32 out_flags;
	__aligned_u64 out_key;
	__aligned_u64 out_offset;
	__aligned_u64 out_length;
	__u32 out_att_index;
	__u32 __reserved;
};

#define SNODE_IOCTL_IMPORT_STATUS _IO(SNODE_TYPE, SNODE_CMD_IMPORT_STATUS)

/**
 * DOC: Messages and doorbells
 *
 * A process receives small messages through an endpoint: ioctl
 * SNODE_IOCTL_EP_ALLOC on /dev/snodeN sets up a receive ring on the NIC and
 * returns a file descriptor. The endpoint's address is (node, endpoint id,
 * key); the process publishes it, and any process on any node that knows it
 * can send to it with SNODE_IOCTL_MSG_SEND. A doorbell is a message of
 * length 0.
 *
 * The endpoint's descriptor polls readable (EPOLLIN) while messages are
 * waiting; read() returns whole struct snode_msg records, as many as fit
 * the buffer and are waiting (a buffer smaller than one record fails with
 * EINVAL), blocking while none is waiting unless the descriptor is
 * O_NONBLOCK (EAGAIN). Messages from one sender node to one endpoint arrive
 * in order and carry a sequence number, counted by the receiving NIC from 1
 * per sender node since the endpoint was set up.
 *
 * Nothing is dropped silently: a full ring refuses the message and the
 * sender sees EAGAIN, at once with SNODE_MSG_SEND_NONBLOCK, otherwise after
 * retrying for up to the send's timeout.
 *
 * Lifetime: an endpoint lives as long as its descriptor; closing it (process
 * exit included) removes it from the NIC, and later sends to it fail with
 * ENXIO. A reset or unbind of the NIC removes every endpoint: their
 * descriptors then poll EPOLLIN | EPOLLERR | EPOLLHUP, read() returns the
 * messages received before and then fails with ECONNRESET (ENODEV after an
 * unbind). Allocate a new endpoint, possibly with the same id and key.
 *
 * The message ioctls fail with these error numbers besides the general
 * ones:
 *
 * - EPERM: /dev/snodeN was not opened for writing
 * - EOPNOTSUPP: the NIC has no message engine (struct snode_info.out_caps
 *   lacks SNODE_CAP_MSG) or no interrupt vector for endpoints
 * - EBUSY: the endpoint id asked for is in use, or is SNODE_NET_EP (alloc)
 * - EACCES: the destination endpoint is SNODE_NET_EP and the caller lacks
 *   CAP_NET_RAW (send)
 * - ENOSPC: every endpoint id is in use (alloc)
 * - EMFILE: the caller's user holds as many endpoints on this NIC as one
 *   user may, through all its files (the snode module's max_endpoints
 *   parameter) (alloc)
 * - EAGAIN: the destination's ring is full (send)
 * - ENXIO: no endpoint with that id on the destination node (send)
 * - EKEYREJECTED: the endpoint exists but the key does not match (send)
 * - EHOSTUNREACH: no fabric path to the destination node, or it is dead
 * - ETIMEDOUT: the fabric did not answer within 2 s (send)
 * - ENOLINK: the NIC is not attached to a fabric
 * - EINTR: a signal arrived while a blocking send waited for room; the
 *   message was not sent
 */

/* Bytes of payload a message carries at most */
#define SNODE_MSG_MAX_LEN 48

/* struct snode_msg.src_ep of a message sent from /dev/snodeN */
#define SNODE_EP_NONE 0xffff

/*
 * The endpoint id the network interface (IP over the fabric) receives
 * frames on, on every node; SNODE_IOCTL_EP_ALLOC never hands it out (EBUSY
 * when asked for), and SNODE_IOCTL_MSG_SEND to it needs CAP_NET_RAW
 * (EACCES otherwise). Documentation/driver/net.rst has the frame format.
 */
#define SNODE_NET_EP 63
#define SNODE_NET_KEY 0x74656e65646f6e73ULL	/* "snodenet" */

/**
 * enum snode_ep_alloc_flags - flags of struct snode_ep_alloc
 * @SNODE_EP_ID: use endpoint id @id; without it the kernel picks the
 *               lowest free id
 * @SNODE_EP_RANDOM_KEY: the kernel chooses a random key (@key must be 0)
 * @SNODE_EP_NONBLOCK: the new descriptor is O_NONBLOCK
 */
enum snode_ep_alloc_flags {
	SNODE_EP_ID = 1 << 0,
	SNODE_EP_RANDOM_KEY = 1 << 1,
	SNODE_EP_NONBLOCK = 1 << 2,
};

/**
 * struct snode_ep_alloc - ioctl(SNODE_IOCTL_EP_ALLOC)
 * @size: sizeof(struct snode_ep_alloc)
 * @flags: enum snode_ep_alloc_flags
 * @id: with SNODE_EP_ID, the endpoint id, below
 *      struct snode_info.out_endpoints; else 0
 * @entries: slots of the receive ring, a power of 2 from 2 to 4096, or 0
 *           for 256; the ring holds @entries - 1 messages
 * @key: the key senders must present; 0 with SNODE_EP_RANDOM_KEY
 * @out_fd: a new file descriptor (O_CLOEXEC) for the endpoint
 * @out_node: this node's id, the first part of the address
 * @out_id: the endpoint id, the second part
 * @out_key: the key, the third part
 * @out_vector: the NIC's interrupt vector the endpoint signals (3 to 7),
 *              shared with other endpoints
 *
 * Set up a receive endpoint on this node. It belongs to the new descriptor
 * and is removed when the descriptor is closed.
 */
struct snode_ep_alloc {
	__u32 size;
	__u32 flags;
	__u32 id;
	__u32 entries;
	__aligned_u64 key;
	__s32 out_fd;
	__u32 out_node;
	__u32 out_id;
	__u32 out_vector;
	__aligned_u64 out_key;
};

#define SNODE_IOCTL_EP_ALLOC _IO(SNODE_TYPE, SNODE_CMD_EP_ALLOC)

/**
 * struct snode_msg - one message as read() returns it from an endpoint
 * @src_node: the sender's node id
 * @src_ep: the endpoint the sender sent from, or SNODE_EP_NONE; the
 *          sender's word, not checked by the fabric
 * @len: bytes of @payload, 0 for a doorbell
 * @seq: sequence number of the message from @src_node to this endpoint,
 *       from 1
 * @payload: the message; bytes past @len are zero
 */
struct snode_msg {
	__u32 src_node;
	__u16 src_ep;
	__u16 len;
	__aligned_u64 seq;
	__u8 payload[SNODE_MSG_MAX_LEN];
};

/**
 * enum snode_msg_send_flags - flags of struct snode_msg_send
 * @SNODE_MSG_SEND_NONBLOCK: fail with EAGAIN at once if the destination's
 *                           ring is full, instead of retrying
 */
enum snode_msg_send_flags {
	SNODE_MSG_SEND_NONBLOCK = 1 << 0,
};

/**
 * struct snode_msg_send - ioctl(SNODE_IOCTL_MSG_SEND)
 * @size: sizeof(struct snode_msg_send)
 * @flags: enum snode_msg_send_flags
 * @node: the destination node
 * @ep: the destination endpoint id
 * @key: the destination endpoint's key
 * @len: bytes of @payload to send, 0 (a doorbell) to SNODE_MSG_MAX_LEN
 * @timeout_ms: without SNODE_MSG_SEND_NONBLOCK, how long to retry while the
 *              destination's ring is full, in milliseconds; 0 for 1000, at
 *              most 60000
 * @payload: the message
 *
 * Send a message, and return once the destination NIC has written it into
 * the endpoint's ring or refused it. Issued on /dev/snodeN the message
 * carries SNODE_EP_NONE as source endpoint; issued on an endpoint's
 * descriptor, that endpoint's id, so that the receiver can answer.
 */
struct snode_msg_send {
	__u32 size;
	__u32 flags;
	__u32 node;
	__u32 ep;
	__aligned_u64 key;
	__u32 len;
	__u32 timeout_ms;
	__u8 payload[SNODE_MSG_MAX_LEN];
};

#define SNODE_IOCTL_MSG_SEND _IO(SNODE_TYPE, SNODE_CMD_MSG_SEND)

/**
 * DOC: DMA
 *
 * The NIC's copy engine moves data between a process's own memory and
 * global memory it imported (SNODE_IOCTL_MEM_IMPORT), without the CPU.
 * SNODE_IOCTL_DMA_OPEN on /dev/snodeN returns a DMA queue descriptor;
 * SNODE_IOCTL_DMA_SUBMIT on it submits a batch of copies, each naming a
 * buffer of the process and a range of an import's window. The import's
 * permission applies: a copy into a read-only import is refused. The
 * process's pages stay pinned until the copy completes and count against
 * its RLIMIT_MEMLOCK meanwhile (unless it has CAP_IPC_LOCK), as vfio's
 * pins do. Closing the queue (or exiting) cancels the copies that have not
 * reached the NIC yet: they complete with ECANCELED, release their pages
 * at once and report nowhere; those on the NIC finish first.
 *
 * Each copy completes with one struct snode_dma_cpl, read() from the queue
 * descriptor in whole records; the descriptor polls readable (EPOLLIN)
 * while completions are waiting. With SNODE_DMA_SUBMIT_WAIT the call
 * instead waits for the batch and writes each copy's status back into its
 * request. Copies of one queue complete in submission order.
 *
 * A copy whose window is revoked while it runs stops there and completes
 * with ECONNRESET; the bytes before that point were copied, nothing outside
 * the window was written. A reset of the NIC fails the copies in flight
 * with ECONNRESET, an unbind with ENODEV; the queue stays usable after a
 * reset. One user holds at most max_dma_queues queues on a NIC, through
 * all its files (a parameter of the snode module); SNODE_IOCTL_DMA_OPEN
 * fails with EMFILE beyond.
 *
 * Per-copy status (struct snode_dma_cpl.status, struct
 * snode_dma_req.out_status), besides 0:
 *
 * - ECONNRESET: the window was revoked before or during the copy, or the
 *   NIC was reset
 * - EROFS: the window is read-only (the NIC's own check)
 * - EIO: the NIC failed to access the process's memory
 *
 * SNODE_IOCTL_DMA_OPEN fails with EPERM if /dev/snodeN was not opened for
 * writing.
 *
 * SNODE_IOCTL_DMA_SUBMIT fails, for the first request of a batch that
 * cannot be queued, with:
 *
 * - EBADF: @import_fd is not a file descriptor
 * - EINVAL: @import_fd is not an import of this NIC, the flags name no or
 *   both directions, @length is 0 or above SNODE_DMA_MAX_LEN, @addr +
 *   @length wraps around, or the range is not inside the window
 * - EROFS: a copy into an import without SNODE_IMPORT_WRITE
 * - ECONNRESET: the import was revoked
 * - EFAULT: the buffer is not mapped, or not writable for a copy into it
 * - EBUSY: the queue holds as many copies and unread completions as its
 *   depth; read completions first
 * - ENOMEM: the copy's pages would take the caller's locked memory (VmLck)
 *   beyond RLIMIT_MEMLOCK; nothing was pinned
 */

/* Bytes one copy moves at most; the kernel splits it to the NIC's limit */
#define SNODE_DMA_MAX_LEN (256ULL << 20)

/**
 * enum snode_dma_open_flags - flags of struct snode_dma_open
 * @SNODE_DMA_NONBLOCK: the new descriptor is O_NONBLOCK
 */
enum snode_dma_open_flags {
	SNODE_DMA_NONBLOCK = 1 << 0,
};

/**
 * struct snode_dma_open - ioctl(SNODE_IOCTL_DMA_OPEN)
 * @size: sizeof(struct snode_dma_open)
 * @flags: enum snode_dma_open_flags
 * @depth: copies in flight plus completions not yet read, at most; 1 to
 *         4096, or 0 for 64
 * @out_fd: a new file descriptor (O_CLOEXEC) for the queue
 */
struct snode_dma_open {
	__u32 size;
	__u32 flags;
	__u32 depth;
	__s32 out_fd;
};

#define SNODE_IOCTL_DMA_OPEN _IO(SNODE_TYPE, SNODE_CMD_DMA_OPEN)

/**
 * enum snode_dma_req_flags - flags of struct snode_dma_req
 * @SNODE_DMA_TO_GLOBAL: copy from the buffer into the window
 * @SNODE_DMA_FROM_GLOBAL: copy from the window into the buffer
 *
 * Exactly one of them.
 */
enum snode_dma_req_flags {
	SNODE_DMA_TO_GLOBAL = 1 << 0,
	SNODE_DMA_FROM_GLOBAL = 1 << 1,
};

/**
 * struct snode_dma_req - one copy of SNODE_IOCTL_DMA_SUBMIT
 * @flags: enum snode_dma_req_flags
 * @import_fd: a file descriptor of an import of this NIC
 * @offset: start of the range inside the import's window
 * @addr: the process's buffer, any alignment
 * @length: bytes, 1 to SNODE_DMA_MAX_LEN
 * @user_data: returned in the completion
 * @out_status: with SNODE_DMA_SUBMIT_WAIT: 0 or a negative errno
 * @__reserved: must be 0
 * @out_bytes: with SNODE_DMA_SUBMIT_WAIT: bytes copied (before an error)
 */
struct snode_dma_req {
	__u32 flags;
	__s32 import_fd;
	__aligned_u64 offset;
	__aligned_u64 addr;
	__aligned_u64 length;
	__aligned_u64 user_data;
	__s32 out_status;
	__u32 __reserved;
	__aligned_u64 out_bytes;
};

/**
 * enum snode_dma_submit_flags - flags of struct snode_dma_submit
 * @SNODE_DMA_SUBMIT_WAIT: wait until the batch completed, and report each
 *                         copy in its request instead of a completion
 *                         record; a fatal signal ends the wait early (the
 *                         copies still complete). If the wait ends early
 *                         (ETIMEDOUT after 60 s, a fatal signal) the call
 *                         fails, but @out_submitted of struct
 *                         snode_dma_submit still tells how many copies
 *                         were queued: they complete on their own.
 */
enum snode_dma_submit_flags {
	SNODE_DMA_SUBMIT_WAIT = 1 << 0,
};

/**
 * struct snode_dma_submit - ioctl(SNODE_IOCTL_DMA_SUBMIT) on a DMA queue
 * @size: sizeof(struct snode_dma_submit)
 * @flags: enum snode_dma_submit_flags
 * @count: requests in @reqs, 1 to the queue's depth
 * @req_size: sizeof(struct snode_dma_req) as the caller knows it, from 40
 *            (the first version, up to @user_data) to the page size; bytes
 *            past the structure the kernel knows must be zero (E2BIG)
 * @reqs: pointer to @count struct snode_dma_req
 * @out_submitted: requests queued, a prefix of @reqs
 * @__reserved: must be 0
 *
 * Queue a batch of copies. If the first request cannot be queued the call
 * fails with its error; if a later one cannot, the call succeeds with
 * @out_submitted telling how many were, and submitting the rest again
 * reports the error.
 */
struct snode_dma_submit {
	__u32 size;
	__u32 flags;
	__u32 count;
	__u32 req_size;
	__aligned_u64 reqs;
	__u32 out_submitted;
	__u32 __reserved;
};

#define SNODE_IOCTL_DMA_SUBMIT _IO(SNODE_TYPE, SNODE_CMD_DMA_SUBMIT)

/**
 * struct snode_dma_cpl - one completion as read() returns it from a DMA
 *                        queue
 * @user_data: the request's user_data
 * @status: 0 or a negative errno
 * @__reserved: 0
 * @bytes: bytes copied (before an error)
 */
struct snode_dma_cpl {
	__aligned_u64 user_data;
	__s32 status;
	__u32 __reserved;
	__aligned_u64 bytes;
};

#endif /* _UAPI_LINUX_SNODE_H */
