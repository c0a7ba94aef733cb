/* SPDX-License-Identifier: GPL-2.0 */
/*
 * snode: tracepoints, named after the hardware's objects as the device
 * model's trace-events are (tools/emu/qemu/trace-events), so a guest trace
 * and the emulator's trace of the same run read side by side.
 */
#undef TRACE_SYSTEM
#define TRACE_SYSTEM snode

#if !defined(_SNODE_TRACE_H_) || defined(TRACE_HEADER_MULTI_READ)
#define _SNODE_TRACE_H_

#include <linux/tracepoint.h>

#include "snode.h"

/*
 * Every event starts with the NIC it happened on, printed "snodeN ..."
 * (as drivers/cxl/core/trace.h shares its memdev header between events).
 */
#define SNODE_TP_DEV_ENTRY	__field(int, dev)
#define SNODE_TP_DEV_ASSIGN(sdev)	(__entry->dev = (sdev)->index)
#define SNODE_TP_printk(fmt, ...) \
	TP_printk("snode%d " fmt, __entry->dev, ##__VA_ARGS__)

/* admin queue: snode_nic_admin_cmd / snode_nic_admin_cpl in the model */
TRACE_EVENT(snode_admin_cmd,
	TP_PROTO(const struct snode_dev *sdev, u8 opcode, u16 cid, u32 cdw0,
		 u32 cdw1, u32 len),
	TP_ARGS(sdev, opcode, cid, cdw0, cdw1, len),
	TP_STRUCT__entry(
		SNODE_TP_DEV_ENTRY
		__field(u8, opcode)
		__field(u16, cid)
		__field(u32, cdw0)
		__field(u32, cdw1)
		__field(u32, len)
	),
	TP_fast_assign(
		SNODE_TP_DEV_ASSIGN(sdev);
		__entry->opcode = opcode;
		__entry->cid = cid;
		__entry->cdw0 = cdw0;
		__entry->cdw1 = cdw1;
		__entry->len = len;
	),
	SNODE_TP_printk("opcode 0x%02x cid %u cdw0 0x%x cdw1 0x%x len %u",
			__entry->opcode, __entry->cid, __entry->cdw0,
			__entry->cdw1, __entry->len)
);

TRACE_EVENT(snode_admin_cpl,
	TP_PROTO(const struct snode_dev *sdev, u8 opcode, u16 cid, u16 status,
		 u32 result0, u32 result1, int err),
	TP_ARGS(sdev, opcode, cid, status, result0, result1, err),
	TP_STRUCT__entry(
		SNODE_TP_DEV_ENTRY
		__field(u8, opcode)
		__field(u16, cid)
		__field(u16, status)
		__field(u32, result0)
		__field(u32, result1)
		__field(int, err)
	),
	TP_fast_assign(
		SNODE_TP_DEV_ASSIGN(sdev);
		__entry->opcode = opcode;
		__entry->cid = cid;
		__entry->status = status;
		__entry->result0 = result0;
		__entry->result1 = result1;
		__entry->err = err;
	),
	SNODE_TP_printk("opcode 0x%02x cid %u status %u result0 0x%x result1 0x%x err %d",
			__entry->opcode, __entry->cid, __entry->status,
			__entry->result0, __entry->result1, __entry->err)
);

/* event queue: snode_nic_event */
TRACE_EVENT(snode_event,
	TP_PROTO(const struct snode_dev *sdev, u16 type, u32 seq),
	TP_ARGS(sdev, type, seq),
	TP_STRUCT__entry(
		SNODE_TP_DEV_ENTRY
		__field(u16, type)
		__field(u32, seq)
	),
	TP_fast_assign(
		SNODE_TP_DEV_ASSIGN(sdev);
		__entry->type = type;
		__entry->seq = seq;
	),
	SNODE_TP_printk("type %u seq %u", __entry->type, __entry->seq)
);

/* a window's life: ATT_SET is an admin command, then faults, revocation */
TRACE_EVENT(snode_window_fault,
	TP_PROTO(const struct snode_dev *sdev, u32 att, unsigned long pgoff,
		 unsigned int order, bool active, unsigned int ret),
	TP_ARGS(sdev, att, pgoff, order, active, ret),
	TP_STRUCT__entry(
		SNODE_TP_DEV_ENTRY
		__field(u32, att)
		__field(unsigned long, pgoff)
		__field(unsigned int, order)
		__field(bool, active)
		__field(unsigned int, ret)
	),
	TP_fast_assign(
		SNODE_TP_DEV_ASSIGN(sdev);
		__entry->att = att;
		__entry->pgoff = pgoff;
		__entry->order = order;
		__entry->active = active;
		__entry->ret = ret;
	),
	SNODE_TP_printk("att %u pgoff 0x%lx order %u active %d vm_fault 0x%x",
			__entry->att, __entry->pgoff, __entry->order,
			__entry->active, __entry->ret)
);

/* snode_nic_att_revoke */
TRACE_EVENT(snode_window_revoke,
	TP_PROTO(const struct snode_dev *sdev, u32 att, u32 reason, u32 epoch),
	TP_ARGS(sdev, att, reason, epoch),
	TP_STRUCT__entry(
		SNODE_TP_DEV_ENTRY
		__field(u32, att)
		__field(u32, reason)
		__field(u32, epoch)
	),
	TP_fast_assign(
		SNODE_TP_DEV_ASSIGN(sdev);
		__entry->att = att;
		__entry->reason = reason;
		__entry->epoch = epoch;
	),
	SNODE_TP_printk("att %u reason %u epoch %u",
			__entry->att, __entry->reason, __entry->epoch)
);

/* DMA engine: one copy, however many descriptors it takes */
TRACE_EVENT(snode_dma_submit,
	TP_PROTO(const struct snode_dev *sdev, u32 queue, u64 user_data,
		 u64 aperture, u64 length, bool to_global),
	TP_ARGS(sdev, queue, user_data, aperture, length, to_global),
	TP_STRUCT__entry(
		SNODE_TP_DEV_ENTRY
		__field(u32, queue)
		__field(u64, user_data)
		__field(u64, aperture)
		__field(u64, length)
		__field(bool, to_global)
	),
	TP_fast_assign(
		SNODE_TP_DEV_ASSIGN(sdev);
		__entry->queue = queue;
		__entry->user_data = user_data;
		__entry->aperture = aperture;
		__entry->length = length;
		__entry->to_global = to_global;
	),
	SNODE_TP_printk("queue %u user_data 0x%llx aperture 0x%llx len %llu %s",
			__entry->queue, __entry->user_data,
			__entry->aperture, __entry->length,
			__entry->to_global ? "to global" : "from global")
);

TRACE_EVENT(snode_dma_complete,
	TP_PROTO(const struct snode_dev *sdev, u32 queue, u64 user_data,
		 int status, u64 bytes),
	TP_ARGS(sdev, queue, user_data, status, bytes),
	TP_STRUCT__entry(
		SNODE_TP_DEV_ENTRY
		__field(u32, queue)
		__field(u64, user_data)
		__field(int, status)
		__field(u64, bytes)
	),
	TP_fast_assign(
		SNODE_TP_DEV_ASSIGN(sdev);
		__entry->queue = queue;
		__entry->user_data = user_data;
		__entry->status = status;
		__entry->bytes = bytes;
	),
	SNODE_TP_printk("queue %u user_data 0x%llx status %d bytes %llu",
			__entry->queue, __entry->user_data,
			__entry->status, __entry->bytes)
);

/*
 * messages: snode_nic_msg_send / snode_nic_msg_done / snode_nic_msg_deliver.
 * A send is snode_msg_submit (MSG_SEND written) then snode_msg_send (the
 * device answered); a message in a ring is snode_msg_arrive (the endpoint
 * vector's interrupt found it), then snode_msg_recv (read off the ring).
 */
DECLARE_EVENT_CLASS(snode_msg_xfer,
	TP_PROTO(const struct snode_dev *sdev, u32 node, u32 ep, u32 src_ep,
		 u32 len, int err),
	TP_ARGS(sdev, node, ep, src_ep, len, err),
	TP_STRUCT__entry(
		SNODE_TP_DEV_ENTRY
		__field(u32, node)
		__field(u32, ep)
		__field(u32, src_ep)
		__field(u32, len)
		__field(int, err)
	),
	TP_fast_assign(
		SNODE_TP_DEV_ASSIGN(sdev);
		__entry->node = node;
		__entry->ep = ep;
		__entry->src_ep = src_ep;
		__entry->len = len;
		__entry->err = err;
	),
	SNODE_TP_printk("to node %u ep %u from ep %u len %u err %d",
			__entry->node, __entry->ep, __entry->src_ep,
			__entry->len, __entry->err)
);

/* MSG_SEND is written: nothing has failed yet (err 0), so it is not printed */
DEFINE_EVENT_PRINT(snode_msg_xfer, snode_msg_submit,
	TP_PROTO(const struct snode_dev *sdev, u32 node, u32 ep, u32 src_ep,
		 u32 len, int err),
	TP_ARGS(sdev, node, ep, src_ep, len, err),
	SNODE_TP_printk("to node %u ep %u from ep %u len %u",
			__entry->node, __entry->ep, __entry->src_ep,
			__entry->len)
);

DEFINE_EVENT(snode_msg_xfer, snode_msg_send,
	TP_PROTO(const struct snode_dev *sdev, u32 node, u32 ep, u32 src_ep,
		 u32 len, int err),
	TP_ARGS(sdev, node, ep, src_ep, len, err)
);

TRACE_EVENT(snode_msg_arrive,
	TP_PROTO(const struct snode_dev *sdev, u32 ep, u32 waiting),
	TP_ARGS(sdev, ep, waiting),
	TP_STRUCT__entry(
		SNODE_TP_DEV_ENTRY
		__field(u32, ep)
		__field(u32, waiting)
	),
	TP_fast_assign(
		SNODE_TP_DEV_ASSIGN(sdev);
		__entry->ep = ep;
		__entry->waiting = waiting;
	),
	SNODE_TP_printk("ep %u waiting %u", __entry->ep, __entry->waiting)
);

TRACE_EVENT(snode_msg_recv,
	TP_PROTO(const struct snode_dev *sdev, u32 ep, u32 src_node,
		 u32 src_ep, u32 len, u64 seq),
	TP_ARGS(sdev, ep, src_node, src_ep, len, seq),
	TP_STRUCT__entry(
		SNODE_TP_DEV_ENTRY
		__field(u32, ep)
		__field(u32, src_node)
		__field(u32, src_ep)
		__field(u32, len)
		__field(u64, seq)
	),
	TP_fast_assign(
		SNODE_TP_DEV_ASSIGN(sdev);
		__entry->ep = ep;
		__entry->src_node = src_node;
		__entry->src_ep = src_ep;
		__entry->len = len;
		__entry->seq = seq;
	),
	SNODE_TP_printk("ep %u from node %u ep %u len %u seq %llu",
			__entry->ep, __entry->src_node, __entry->src_ep,
			__entry->len, __entry->seq)
);

#endif /* _SNODE_TRACE_H_ */

/* out of tree: the trace header is found next to this file */
#undef TRACE_INCLUDE_PATH
#define TRACE_INCLUDE_PATH .
#undef TRACE_INCLUDE_FILE
#define TRACE_INCLUDE_FILE trace
#include <trace/define_trace.h>
