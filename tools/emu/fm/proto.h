/* SPDX-License-Identifier: GPL-2.0 */
/*
 * snode-fm: the device connections (proto.c), for the event loop in main.c.
 *
 * Only main.c includes this. The rest of the fm reaches the devices through
 * struct fm_emit (fm.h), which proto.c implements as fm_proto_emit: the
 * domain depends on that interface, proto.c on the domain, and nothing the
 * other way round (tools/emu/fm/tests/layering.sh checks it).
 */
#ifndef FM_PROTO_H
#define FM_PROTO_H

#include "fm.h"

struct fm_pkt;

struct fm_conn {
	int fd;
	struct fm_node *node;	/* after HELLO */
	uint64_t last_rx;
	bool closing;
	/* packets the socket would not take yet */
	struct fm_pkt *outq, **outq_tail;
	size_t outq_bytes;
};

extern const struct fm_emit fm_proto_emit;
extern struct fm_conn **fm_conns;
extern uint32_t fm_nconns;

struct fm_conn *fm_conn_new(int fd);
void fm_conn_input(struct fm_fabric *f, struct fm_conn *c);
void fm_conn_flush(struct fm_conn *c);
void fm_conn_free(struct fm_conn *c);
void fm_proto_timers(struct fm_fabric *f);
void fm_conns_reap(struct fm_fabric *f);
void fm_conns_close_all(struct fm_fabric *f);

#endif /* FM_PROTO_H */
