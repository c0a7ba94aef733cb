/* SPDX-License-Identifier: GPL-2.0 */
/*
 * snode-fm private header: the fabric manager's data model.
 *
 * One struct fm_fabric holds everything: the topology (nodes, switches,
 * links), the live state (links' oper state and counters, who is attached,
 * routes), the export tables and the grants. It is single threaded: the
 * event loop in main.c owns it and every handler runs to completion.
 */
#ifndef SNODE_FM_H
#define SNODE_FM_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "snode-fm-proto.h"

#define FM_MAX_NODES		SNODE_FM_MAX_NODES
#define FM_DEFAULT_TEMP_MC	45000	/* the device's reading before any injection */
#define FM_DEFAULT_POWER_MW	12000
#define FM_MAX_PORTS		SNODE_FM_MAX_PORTS
#define FM_MAX_SWITCHES		256
#define FM_MAX_RACKS		SNODE_FM_MAX_RACKS
#define FM_NAME_MAX		(SNODE_FM_NAME_LEN - 1)	/* switch and rack names */
#define FM_NO_PLANE		SNODE_FM_NO_PLANE
#define FM_NO_RACK		SNODE_FM_NO_ID
#define FM_MAX_EXPORTS		256
#define FM_MIN_POOL		4096ULL
#define FM_PAGE			4096ULL
#define FM_NO_ROUTE		0xff
#define FM_TICK_MS		100
#define FM_REFRESH_MS		200	/* PORT_STATE refresh period */
#define FM_TRAIN_MS		100	/* a link reset trains this long */
#define FM_MSG_TIMEOUT_MS	2000
#define FM_RECOVERY_ERRORS	1000000ULL	/* one retrain per this many CRC errors */
#define FM_SWITCH_BIT		0x80000000u

#define FM_DEF_POOL		(256ULL << 20)
#define FM_DEF_PORTS		2
#define FM_DEF_LANES		4
#define FM_DEF_SPEED		100

/* ---- small growable text buffer (buf.c) ---- */
struct fm_buf {
	char *s;
	size_t len, cap;
};
void fm_buf_printf(struct fm_buf *b, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
void fm_buf_free(struct fm_buf *b);

/* ---- logging (log.c) ---- */
int fm_log_open(const char *path);
void fm_log_close(void);
void fm_log_stderr(bool on);
void fm_log(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
uint64_t fm_now_ms(void);

/* ---- topology ---- */
enum fm_end_kind { FM_END_NODE, FM_END_SWITCH };

struct fm_end {
	enum fm_end_kind kind;
	uint32_t id;		/* node id or switch index */
	uint32_t port;		/* node port; unused for switches */
};

/*
 * An export: a pool range (nseg 0) or a host export, nseg runs of the
 * exporter's RAM file @path (decision 0037), allocated with the struct.
 */
struct fm_export {
	uint32_t perm;
	uint64_t offset, len, key;
	bool all_nodes;
	uint8_t nodemask[FM_MAX_NODES / 8];
	char path[SNODE_FM_PATH_MAX];
	uint32_t nseg;
	struct snode_fm_seg seg[];
};

struct fm_link {
	struct fm_end a, b;
	int line;
	/* configuration */
	uint8_t max_lanes;
	uint16_t speed;		/* Gb/s per lane */
	/* state */
	bool admin_up;
	bool flap_down;		/* held down by a flap in progress */
	uint8_t lanes;		/* active */
	double ber;
	uint64_t train_until;	/* ms; 0: not training */
	int flap_left;		/* down/up cycles left */
	uint32_t flap_period;
	uint64_t flap_next;	/* ms of the next flap transition */
	/* counters, shared by both ends */
	long double err_base;	/* expected CRC errors of past epochs */
	uint64_t epoch_ms;	/* up time at the current BER and rate */
	uint64_t last;		/* ms of the last fm_link_advance() */
	uint64_t crc_errors, replays, recoveries, down_events;
	uint64_t tx_bytes, rx_bytes;	/* from device STATS */
	bool was_down;		/* last oper state was down, for down_events */
	bool dirty;		/* push PORT_STATE at the next sync */
};

/*
 * Where the route from one node to another goes (fm_route_topo()): @hops
 * links crossed (1: a direct cable, 2: one switch, ...), and the switch
 * @sw (SNODE_FM_NO_ID: none, a direct cable) that delivers to the
 * destination, with its plane @plane.
 */
struct fm_topo {
	uint8_t hops;		/* 0: no route */
	uint8_t plane;		/* FM_NO_PLANE: none */
	uint16_t sw;		/* SNODE_FM_NO_ID: none */
};

/* a device's connection: proto.c's, opaque to the rest */
struct fm_conn;

struct fm_seq {
	uint32_t node;
	uint16_t ep;
	uint64_t seq;
};

enum fm_node_life {
	FM_LIFE_UNKNOWN = 0,	/* VM node that never attached */
	FM_LIFE_UP,
	FM_LIFE_DEAD,
};

struct fm_node {
	uint32_t id;
	uint32_t host;
	bool sim;
	int line;
	uint64_t pool_size;
	uint32_t nports;
	uint16_t rack;		/* rack index, FM_NO_RACK: none */
	int port_link[FM_MAX_PORTS];	/* link index or -1 */
	struct fm_export *exports[FM_MAX_EXPORTS];
	/* live */
	enum fm_node_life life;
	struct fm_conn *conn;	/* NULL: no device attached */
	uint32_t pid;
	char path[SNODE_FM_PATH_MAX];
	int memfd;
	uint8_t *route;		/* [FM_MAX_NODES]: port toward each node */
	/* last NODE_STATE sent about each node (attached nodes only) */
	uint8_t *seen_state, *seen_route;
	/* topology of the route to each node: fm_route_topo(), when sent */
	struct fm_topo *topo;
	uint32_t *seen_topo;
	uint32_t topo_gen;	/* f->route_gen it was computed at */
	struct fm_seq *echo_seq;	/* sim: per (receiver, endpoint) */
	uint32_t necho_seq;
	bool direct;		/* its device takes direct links (HELLO) */
	uint64_t msgs_relayed;	/* MSG_SENDs of its device the fm handled */
	int32_t temp_mc;	/* last injected, or FM_DEFAULT_TEMP_MC */
	uint32_t power_mw;	/* last injected, or FM_DEFAULT_POWER_MW */
};

struct fm_grant {
	uint32_t importer, att_index;
	uint32_t exporter, export_id;
	uint32_t perm;
	uint64_t offset, len;
};

struct fm_fabric {
	uint32_t fabric_id;
	struct fm_node *node[FM_MAX_NODES];
	uint32_t nnodes;
	char *sw_name[FM_MAX_SWITCHES];
	uint8_t sw_plane[FM_MAX_SWITCHES];	/* FM_NO_PLANE: none given */
	uint32_t nswitches;
	char *rack_name[FM_MAX_RACKS];
	uint32_t nracks;
	struct fm_link *links;
	uint32_t nlinks;
	struct fm_grant *grants;
	uint32_t ngrants, grants_cap;
	bool routes_dirty;
	uint32_t route_gen;	/* fm_routes_compute() runs */
	/* run-time */
	bool memfiles;		/* create /dev/shm files */
	uint64_t now;		/* ms, the event loop's clock */
	uint64_t next_refresh;
	uint32_t dead_ms;	/* a node silent this long is dead; 0: default */
	bool relay_only;	/* "ctl direct off": no direct links (0039) */
	const struct fm_emit *emit;	/* to the devices; NULL: none attached */
};

/*
 * The domain (fabric.c, link.c, mem.c, sim.c, and ctl.c's fault injection)
 * changes the model and tells the devices through this interface; it never
 * calls the code that speaks to them. proto.c implements it over the device
 * sockets (fm_proto_emit, installed by "snode-fm run"); a fabric without
 * one (the unit tests, "snode-fm check") has no devices to tell.
 */
struct fm_emit {
	/* send a packet to n's device; nothing if n has none attached */
	void (*send)(struct fm_fabric *f, struct fm_node *n, const void *pkt,
		     uint32_t len);
	/* n is dead: drop its device's connection, fail messages it holds */
	void (*node_gone)(struct fm_fabric *f, struct fm_node *n,
			  const char *why);
	/* a message from the fm itself (a sim node's echo) to dst's device */
	void (*deliver)(struct fm_fabric *f, struct fm_node *dst,
			const struct snode_fm_msg *m);
	/*
	 * a direct link between a's and b's devices (attach), or the end of
	 * the one they have (decision 0039); nothing unless both are attached.
	 * a == b: a's loopback, in the device (attach) or through the fm.
	 */
	void (*peer)(struct fm_fabric *f, struct fm_node *a, struct fm_node *b,
		     bool attach);
};

/* bounds of snode-fm run --dead-ms and $SNODE_FM_DEAD_MS */
#define FM_DEAD_MS_MIN	200
#define FM_DEAD_MS_MAX	60000
unsigned int fm_dead_ms(unsigned int opt);

/* topo.c */
int fm_topo_parse_file(struct fm_fabric *f, const char *path,
		       char *err, size_t errlen);
int fm_topo_parse_string(struct fm_fabric *f, const char *name,
			 const char *text, char *err, size_t errlen);
int fm_topo_builtin(struct fm_fabric *f, unsigned int nodes,
		    char *err, size_t errlen);
void fm_topo_summary(const struct fm_fabric *f, struct fm_buf *b);
void fm_topo_hosts(const struct fm_fabric *f, struct fm_buf *b);
int fm_parse_size(const char *s, uint64_t *out);
int fm_parse_u64(const char *s, uint64_t *out);
/* Set nodes @lo to @hi (both included) in the node bitmap @mask. */
void fm_nodemask_set(uint8_t *mask, uint64_t lo, uint64_t hi);
int fm_line_err(char *err, size_t errlen, const char *name, int line,
		const char *fmt, va_list ap);

/* fabric.c: lifetime, routing, node states */
void fm_fabric_init(struct fm_fabric *f);
void fm_fabric_free(struct fm_fabric *f);
struct fm_node *fm_node_get(const struct fm_fabric *f, uint32_t id);
int fm_node_add(struct fm_fabric *f, uint32_t id);
int fm_switch_find(const struct fm_fabric *f, const char *name);
int fm_rack_find(const struct fm_fabric *f, const char *name);
void fm_route_topo(const struct fm_fabric *f, const struct fm_node *a,
		   struct fm_topo *topo);
void fm_emit_topo_names(struct fm_fabric *f, struct fm_node *n);
void fm_routes_compute(struct fm_fabric *f);
bool fm_reachable(const struct fm_fabric *f, uint32_t from, uint32_t to);
uint8_t fm_route_port(const struct fm_fabric *f, uint32_t from, uint32_t to);
int fm_route_path(const struct fm_fabric *f, uint32_t from, uint32_t to,
		  uint32_t *path, uint32_t max);
uint8_t fm_node_view(const struct fm_fabric *f, uint32_t from, uint32_t to,
		     uint8_t *route);
void fm_sync(struct fm_fabric *f);
void fm_node_attach(struct fm_fabric *f, struct fm_node *n);
void fm_node_dead(struct fm_fabric *f, struct fm_node *n, const char *why);
void fm_direct_pair(struct fm_fabric *f, struct fm_node *n);
void fm_direct_set(struct fm_fabric *f, bool on);
const char *fm_life_name(enum fm_node_life l);
const char *fm_view_name(uint8_t st);
void fm_emit_send(struct fm_fabric *f, struct fm_node *n, const void *pkt,
		  uint32_t len);
void fm_emit_port_state(struct fm_fabric *f, struct fm_node *n, uint32_t port);
void fm_emit_revoke(struct fm_fabric *f, uint32_t importer,
		    uint32_t att_index, uint32_t reason);
void fm_emit_deliver(struct fm_fabric *f, struct fm_node *dst,
		     const struct snode_fm_msg *m);

/* link.c: the link model */
void fm_link_init(struct fm_link *l, uint8_t lanes, uint16_t speed, double ber);
uint8_t fm_link_oper(const struct fm_link *l, uint64_t now);
bool fm_link_routable(const struct fm_link *l, uint64_t now);
void fm_link_advance(struct fm_link *l, uint64_t now);
void fm_link_set_ber(struct fm_fabric *f, struct fm_link *l, double ber);
void fm_link_set_lanes(struct fm_fabric *f, struct fm_link *l, uint8_t lanes);
void fm_link_set_speed(struct fm_fabric *f, struct fm_link *l, uint16_t speed);
void fm_link_set_admin(struct fm_fabric *f, struct fm_link *l, bool up);
void fm_link_reset(struct fm_fabric *f, struct fm_link *l);
void fm_link_clear(struct fm_link *l);
void fm_link_flap(struct fm_fabric *f, struct fm_link *l, int count,
		  uint32_t period_ms);
void fm_links_tick(struct fm_fabric *f);
void fm_links_timers(struct fm_fabric *f);
uint64_t fm_links_next_timer(const struct fm_fabric *f);
void fm_link_note_state(struct fm_fabric *f, struct fm_link *l);
void fm_port_state_fill(const struct fm_fabric *f, const struct fm_node *n,
			uint32_t port, struct snode_fm_port_state *ps);
const char *fm_oper_name(uint8_t st);
void fm_end_name(const struct fm_fabric *f, const struct fm_end *e,
		 char *s, size_t len);

/* mem.c: memory files, exports, grants */
int fm_mem_create(struct fm_fabric *f, uint32_t pid);
void fm_mem_destroy(struct fm_fabric *f);
void fm_mem_clean_stale(void);
int fm_export_set(struct fm_fabric *f, struct fm_node *n, uint32_t id,
		  const struct fm_export *e);
int fm_export_clear(struct fm_fabric *f, struct fm_node *n, uint32_t id,
		    uint32_t reason, uint32_t *revoked);
uint32_t fm_export_revoke(struct fm_fabric *f, uint32_t node, uint32_t id,
			  uint32_t reason);
void fm_exports_drop(struct fm_fabric *f, struct fm_node *n, uint8_t reason);
int fm_grant_check(const struct fm_fabric *f, uint32_t importer,
		   uint32_t exporter, uint32_t export_id, uint64_t key,
		   uint32_t perm, uint64_t offset, uint64_t len);
int fm_grant_take(struct fm_fabric *f, uint32_t importer,
		  const struct snode_fm_grant *g,
		  struct snode_fm_grant_reply *r);
void fm_grant_release(struct fm_fabric *f, uint32_t importer,
		      uint32_t att_index);
void fm_grants_drop_importer(struct fm_fabric *f, uint32_t importer);
void fm_grants_revoke_unreachable(struct fm_fabric *f);
uint32_t fm_export_importers(const struct fm_fabric *f, uint32_t node,
			     uint32_t id);
const char *fm_status_name(uint32_t st);

/* sim.c: nodes hosted by the fm */
int fm_sim_export(struct fm_fabric *f, struct fm_node *n, uint32_t id,
		  const struct fm_export *e);
void fm_sim_fill(struct fm_fabric *f, struct fm_node *n, uint64_t off,
		 uint64_t len);
uint32_t fm_sim_msg(struct fm_fabric *f, struct fm_node *sim,
		    const struct snode_fm_msg *m);
void fm_sim_echo(struct fm_fabric *f, struct fm_node *sim,
		 const struct snode_fm_msg *m);

/* ctl.c: control socket (server and client) */
int fm_ctl_exec(struct fm_fabric *f, int argc, char **argv, struct fm_buf *out,
		struct fm_buf *err, int *wait_node, uint64_t *wait_ms);
int fm_ctl_client(const char *dir, int argc, char **argv);
void fm_ctl_show(const struct fm_fabric *f, const char *what, bool json,
		 int from, struct fm_buf *out);
int fm_ctl_listen(const char *path);
void fm_ctl_accept(int lfd);
uint32_t fm_ctl_count(void);
int fm_ctl_fd(uint32_t i);
void fm_ctl_ready(struct fm_fabric *f, uint32_t i);
void fm_ctl_timers(struct fm_fabric *f);
void fm_ctl_close_all(void);
int fm_parse_nodelist(const char *s, uint8_t *mask);

/* plan.c: redundancy check and deployment sizing */
#define FM_PLAN_DEF_UTIL	0.75
#define FM_PLAN_DEF_HEADROOM	0.25

enum fm_pattern { FM_PAT_ALL_TO_ALL, FM_PAT_RING, FM_PAT_MATRIX };

struct fm_flow {
	uint32_t src, dst;
	double bytes;		/* per sync */
	int line;
};

struct fm_workload {
	double jobs_per_day, units_per_job, seconds_per_unit, utilisation;
	double model_bytes, sync_bytes, sync_interval, headroom;
	enum fm_pattern pattern;
	bool has_nodes;
	uint8_t nodemask[FM_MAX_NODES / 8];
	int key_line[10];	/* line of each key, 0: not given */
	int nodes_line;
	char matrix[4096];	/* path of the matrix file */
	struct fm_flow *flows;	/* pattern = matrix */
	uint32_t nflows;
};

struct fm_plan_spof {
	bool lost;
	uint32_t a, b;		/* a pair it disconnects */
};

struct fm_plan {
	const char *topo;
	uint32_t npattern;	/* nodes in the traffic pattern */
	double nodes_raw;
	uint32_t nodes_needed;	/* with headroom */
	double mem_lo, mem_hi;	/* bytes per node */
	double sync_bytes;	/* per node per sync (matrix: the largest) */
	double node_bps;	/* bits per second per node */
	double (*load)[2];	/* per link, bytes/s a->b and b->a */
	uint32_t nover;
	struct fm_plan_spof *spof;	/* per switch */
	uint32_t nspof;
};

int fm_redundancy_check(const struct fm_fabric *f, const char *name,
			struct fm_buf *out, struct fm_buf *err);
int fm_workload_parse_string(struct fm_workload *w, const char *name,
			     const char *text, char *err, size_t errlen);
int fm_workload_parse_file(struct fm_workload *w, const char *path,
			   char *err, size_t errlen);
int fm_matrix_parse_string(struct fm_workload *w, const char *name,
			   const char *text, char *err, size_t errlen);
void fm_workload_free(struct fm_workload *w);
const char *fm_pattern_name(enum fm_pattern p);
int fm_plan_compute(struct fm_fabric *f, const char *topo,
		    const struct fm_workload *w, struct fm_plan *p,
		    char *err, size_t errlen);
void fm_plan_print(const struct fm_fabric *f, const struct fm_workload *w,
		   const struct fm_plan *p, bool json, bool pretty,
		   struct fm_buf *out);
void fm_plan_free(struct fm_plan *p);

/* misc helpers */
int fm_listen_seqpacket(const char *path);
void fm_size_str(uint64_t v, char *s, size_t len);
int fm_parse_nodeport(const char *s, uint32_t *node, uint32_t *port);
struct fm_link *fm_port_link(const struct fm_fabric *f, uint32_t node,
			     uint32_t port);

#endif /* SNODE_FM_H */
