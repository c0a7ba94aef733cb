/* SPDX-License-Identifier: GPL-2.0 WITH Linux-syscall-note */
/*
 * snode: userspace interface of the supernode interconnect NIC driver.
 */
#ifndef _UAPI_LINUX_SNODE_H
#define _UAPI_LINUX_SNODE_H

#include <linux/ioctl.h>
#include <linux/types.h>

#define SNODE_TYPE 'N'

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
 *   the command fails with EINVAL.
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
 * - E2BIG: a non-zero byte past the structure the kernel knows
 * - EOPNOTSUPP: an unknown flag is set or a reserved member is non-zero
 * - EINVAL: ``size`` too small, or a member has a value out of range
 * - EFAULT: the argument or a pointer inside it is not accessible
 * - ENODEV: the device was removed; only close() is useful
 * - EIO: the device failed and needs a reset
 * - EAGAIN: the device is being reset; retry
 */
enum {
	SNODE_CMD_BASE = 0x80,
	SNODE_CMD_INFO = SNODE_CMD_BASE,
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

#endif /* _UAPI_LINUX_SNODE_H */
