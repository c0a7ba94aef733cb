// SPDX-License-Identifier: GPL-2.0
/*
 * DOC: sim.c - simulated nodes
 *
 * A sim node has a memory file and an export table like any node, but no
 * VM: the fm answers for it. It is up from the start, never heartbeats,
 * and dies or disappears only by fault injection (node kill / isolate).
 *
 * Memory pattern: when an export is created on a sim node, every 8-byte
 * little-endian word of the exported range at pool offset o is set to
 * (node << 40) | o, i.e. the word's own global address. An importer can
 * check any word it reads without knowing anything else.
 *
 * Messages: endpoint 0 of a sim node echoes. A message to (sim, 0) with any
 * key succeeds, and the sim node sends the same payload back to the
 * sender's src_ep as a MSG_DELIVER (src_ep 0, dst_ep = the original
 * src_ep, same key, msg_seq counting from 1 per destination endpoint).
 * Any other endpoint answers NO_ENDPOINT.
 */
#define _GNU_SOURCE
#include <endian.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fm.h"

void fm_sim_fill(struct fm_fabric *f, struct fm_node *n, uint64_t off,
		 uint64_t len)
{
	uint64_t buf[8192], o, i, chunk;

	(void)f;
	if (n->memfd < 0)
		return;
	for (o = off; o < off + len; o += chunk) {
		chunk = off + len - o;
		if (chunk > sizeof(buf))
			chunk = sizeof(buf);
		for (i = 0; i < chunk / 8; i++)
			buf[i] = htole64(((uint64_t)n->id << 40) | (o + i * 8));
		if (pwrite(n->memfd, buf, chunk, o) != (ssize_t)chunk) {
			fm_log("node %u: cannot fill pattern at %llu", n->id,
			       (unsigned long long)o);
			return;
		}
	}
}

int fm_sim_export(struct fm_fabric *f, struct fm_node *n, uint32_t id,
		  const struct fm_export *e)
{
	int st = fm_export_set(f, n, id, e);

	if (st == SNODE_FM_OK)
		fm_sim_fill(f, n, e->offset, e->len);
	return st;
}

uint32_t fm_sim_msg(struct fm_fabric *f, struct fm_node *sim,
		    const struct snode_fm_msg *m)
{
	(void)f;
	(void)sim;
	return m->dst_ep == 0 ? SNODE_FM_OK : SNODE_FM_ENOEP;
}

static uint64_t sim_next_seq(struct fm_node *sim, uint32_t node, uint16_t ep)
{
	struct fm_seq *s;
	uint32_t i;

	for (i = 0; i < sim->necho_seq; i++)
		if (sim->echo_seq[i].node == node && sim->echo_seq[i].ep == ep)
			return ++sim->echo_seq[i].seq;
	s = realloc(sim->echo_seq, (sim->necho_seq + 1) * sizeof(*s));
	if (!s)
		return 0;
	sim->echo_seq = s;
	s[sim->necho_seq++] = (struct fm_seq){ .node = node, .ep = ep, .seq = 1 };
	return 1;
}

void fm_sim_echo(struct fm_fabric *f, struct fm_node *sim,
		 const struct snode_fm_msg *m)
{
	struct fm_node *dst = fm_node_get(f, m->src_node);
	struct snode_fm_msg e;

	if (!dst || !dst->conn)
		return;
	e = *m;
	e.hdr.flags = 0;
	e.hdr.status = 0;
	e.src_node = sim->id;
	e.dst_node = m->src_node;
	e.src_ep = 0;
	e.dst_ep = m->src_ep;
	e.msg_seq = sim_next_seq(sim, m->src_node, m->src_ep);
	fm_emit_deliver(f, dst, &e);
}
