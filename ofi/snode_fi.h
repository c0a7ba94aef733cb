/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * snode_fi.h - private header of the libfabric provider "snode"
 * (libsnode-fi.so), see fi_snode(7).
 *
 * The provider is written against Debian's public provider headers only
 * (rdma/providers/fi_prov.h, fi_log.h): libfabric's own util code is not
 * installed, so the little of it a provider needs is here.
 */
#ifndef SNODE_FI_H
#define SNODE_FI_H

#include <pthread.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/uio.h>
#include <rdma/fabric.h>
#include <rdma/fi_cm.h>
#include <rdma/fi_domain.h>
#include <rdma/fi_endpoint.h>
#include <rdma/fi_eq.h>
#include <rdma/fi_errno.h>
#include <rdma/fi_tagged.h>
#include <rdma/providers/fi_log.h>
#include <rdma/providers/fi_prov.h>
#include <libsnode.h>

#include "fi_ext_snode.h"

/* libfabric 1.x's <rdma/fabric.h> defines it, 2.x's (trixie) no longer */
#ifndef container_of
#define container_of(ptr, type, field) \
	((type *)((char *)(ptr) - offsetof(type, field)))
#endif

#define SFI_PROV_NAME		"snode"
#define SFI_PROV_VERSION	FI_VERSION(0, 1)
#define SFI_FI_VERSION		FI_VERSION(FI_MAJOR_VERSION, FI_MINOR_VERSION)
#define SFI_IOV_LIMIT		4
#define SFI_CQ_DATA_SIZE	8
/* FI_OPT_MIN_MULTI_RECV's default: a ring's largest eager message */
#define SFI_MIN_MULTI_RECV	16384
/* mem_tag_format: every tag bit is matched, one field of 64 bits */
#define SFI_TAG_FORMAT		UINT64_MAX
/* every address is this long, NUL-padded: "fi_snode://F:N:E:KEY" */
#define SFI_ADDRLEN		64
#define SFI_CAPS	(FI_MSG | FI_TAGGED | FI_SEND | FI_RECV | FI_SOURCE | \
			 FI_DIRECTED_RECV | FI_LOCAL_COMM | FI_REMOTE_COMM | \
			 FI_RMA | FI_ATOMIC | FI_READ | FI_WRITE | \
			 FI_REMOTE_READ | FI_REMOTE_WRITE | FI_RMA_EVENT | \
			 FI_MULTI_RECV)

extern struct fi_provider sfi_prov;

struct sfi_params {
	size_t max_msg_size;
	int rx_entries;		/* snode endpoint ring slots */
	int send_timeout_ms;	/* how long a started message may wait for room */
	size_t rdv_threshold;	/* larger sends go by rendezvous (rdv.c) */
	size_t rdv_pool;	/* bytes of an endpoint's exported bounce region */
	size_t rdv_dma_min;	/* pulls from this size on use the DMA engine */
	size_t rdv_chunk;	/* larger sends are announced, then copied */
	int idle_wait_us;	/* an empty CQ read may sleep this long (0: spin) */
	size_t unexp_max;	/* bytes of unexpected messages an endpoint buffers */
	size_t ring_size;	/* bytes of a ring to one peer (ring.c); 0: none */
	size_t ring_eager;	/* larger sends through a ring go by rendezvous */
	int mr_export;		/* registrations are exported to peers (mr.c) */
	int stats;		/* print a domain's counters when it closes */
};
extern struct sfi_params sfi_params;

struct sfi_addr {		/* what an address string names */
	uint32_t fabric;
	struct snode_ep_addr ep;
};
int sfi_addr_to_str(const struct sfi_addr *a, char *buf, size_t len);
int sfi_addr_from_str(const void *str, size_t len, struct sfi_addr *a);

int sfi_errno(int neg_errno);	/* a libsnode -errno to a negative FI_ code */
const char *sfi_strerror(int prov_errno, char *buf, size_t len);

struct sfi_fabric {
	struct fid_fabric fabric_fid;
	uint32_t fabric_id;
};

struct sfi_domain {
	struct fid_domain domain_fid;
	struct sfi_fabric *fabric;
	struct snode_ctx *ctx;
	struct snode_dev *dev;
	uint32_t node_id;
	pthread_mutex_t lock;	/* protects every object of the domain */
	int refs;		/* objects open on it */
	struct sfi_mr *mrs;	/* every registration of the domain */
	struct fi_snode_stats stats;	/* fi_ext_snode.h */
};

/* a completion, kept in the tagged format whatever the CQ's format */
struct sfi_cqe {
	struct fi_cq_err_entry e;	/* err == 0: a good completion */
	fi_addr_t src;
};

/* an operation waiting for its peer's answer (rdv.c) */
enum sfi_op_kind {
	SFI_K_SEND,		/* rendezvous send: bytes in our bounce */
	SFI_K_WRITE,		/* fi_write: bytes in our bounce */
	SFI_K_READ,		/* fi_read: waiting for the target's answer */
	SFI_K_SERVE,		/* a peer's fi_read: bytes in our bounce */
	SFI_K_ATOMIC,		/* an atomic: waiting for the target's answer */
	SFI_K_RMAQ,		/* fi_write/fi_read waiting for the target's grant */
};

struct sfi_op {
	struct sfi_op *next;
	enum sfi_op_kind kind;
	struct snode_ep_addr peer;
	void *context;
	uint64_t flags;			/* completion flags */
	int want_comp;			/* 0: injected, no completion */
	size_t len;
	uint32_t off, slot;		/* bounce slot, slot bytes (0: none) */
	uint32_t id;			/* READ, ATOMIC: names the answer */
	struct iovec iov[SFI_IOV_LIMIT];	/* READ, ATOMIC, RMAQ: the bytes */
	size_t iov_count;
	int64_t probe_ms;		/* when the peer is next probed */
	int zc;				/* SEND from a registration: DONE names id */
	/* RMAQ: the operation, done once its target's registration is known */
	struct sfi_rmr *rmr;
	int write, has_data;
	uint64_t addr, key, data;
	void *ibuf;			/* an inject's bytes, owned by the op */
};

/* a control message waiting for room in the peer's ring */
struct sfi_ctl {
	struct sfi_ctl *next;
	struct snode_ep_addr dst;
	int nic;		/* through the NIC even if a ring is active */
	uint8_t len;
	uint8_t m[SNODE_MSG_MAX_LEN];
};

/* an import of a peer's bounce region, kept for the next transfer */
struct sfi_imp {
	struct sfi_imp *next;
	uint32_t node, export_id;
	uint64_t key;
	uint64_t length;
	struct snode_import *imp;
	void *map;
};

struct sfi_rdv {
	struct snode_mem *mem;		/* bounce region, exported read-only */
	void *map;
	struct snode_handle h;
	size_t size;
	int failed;			/* no bounce region: eager only */
	struct snode_dma_queue *dmaq;
	struct sfi_op *ops;
	struct sfi_ctl *ctl, **ctl_tail;
	struct sfi_imp *imps;
	int nimps;
	uint32_t next_id;
	uint16_t next_zc;		/* ids of rendezvous from registrations */
};

/*
 * mr.c: a peer's registration as the initiator of RMA sees it: asked for
 * with MR_QUERY, then either imported (GRANTED: RMA goes straight into
 * it) or served by the target through the bounce path (SERVED).
 */
enum sfi_rmr_state { SFI_RMR_ASKED, SFI_RMR_GRANTED, SFI_RMR_SERVED };

struct sfi_rmr {
	struct sfi_rmr *next;
	struct snode_ep_addr peer;
	uint64_t mr_key;
	enum sfi_rmr_state state;
	uint32_t qid;			/* ASKED: the query's id */
	int64_t asked_ms;
	uint64_t len;			/* bytes of the registration */
	uint32_t page_off;		/* where it starts in the export */
	int writable;
	int gone;			/* the peer has no such key: drop */
	struct snode_import *imp;
	void *map;
};

/* ring.c: memory this endpoint exports to one peer node */
struct sfi_shared {
	void *map;
	size_t len;
	struct snode_mem *pmem;		/* pool memory, or NULL: host memory */
	struct snode_handle h;
};

/* ring.c: a peer's export, mapped read-only */
struct sfi_peer_mem {
	struct snode_import *imp;
	void *map;
};

enum sfi_ring_state {
	SFI_RING_ASKED,		/* RING_ASK sent, no answer yet */
	SFI_RING_STARTING,	/* granted; RING_START not yet through */
	SFI_RING_ACTIVE,	/* every message to the peer goes this way */
	SFI_RING_OFF,		/* refused or dropped: the NIC only */
};

/* ring.c: the ring this endpoint writes for one peer endpoint */
struct sfi_tring {
	struct sfi_tring *next;
	struct snode_ep_addr dst;
	enum sfi_ring_state state;
	struct sfi_shared ring;		/* head page, then size bytes */
	struct sfi_peer_mem ctl;	/* the peer's tail and sleep word */
	size_t size;
	uint64_t head, tail;		/* tail: as last read */
	int64_t full_ms;		/* full since: check the peer then */
	uint64_t wakes;
};

/* ring.c: a ring a peer endpoint writes for this one */
struct sfi_rring {
	struct sfi_rring *next;
	uint32_t node;
	uint16_t ep;
	int active;			/* RING_START seen */
	uint32_t ring_id;		/* the peer's export of it */
	struct sfi_peer_mem ring;
	struct sfi_shared ctl;		/* our tail and sleep word */
	size_t size;
	uint64_t tail, got;
};

struct sfi_ep;
struct sfi_cq {
	struct fid_cq cq_fid;
	struct sfi_domain *domain;
	enum fi_cq_format format;
	struct sfi_cqe *q;		/* ring, grows when full */
	size_t cap, head, count;
	struct sfi_ep *eps[8];		/* endpoints whose progress feeds it */
	int neps;
	int refs;
	unsigned int idle;		/* empty reads in a row (idle_wait_us) */
	int64_t idle_since;		/* the first of them, us */
};

struct sfi_cntr {
	struct fid_cntr cntr_fid;
	struct sfi_domain *domain;
	uint64_t value, err;
	struct sfi_ep *eps[8];
	int neps;
	int refs;
};

struct sfi_av {
	struct fid_av av_fid;
	struct sfi_domain *domain;
	enum fi_av_type type;
	struct sfi_addr *tab;
	char *valid;
	size_t cap, n;
	int refs;
};

struct sfi_eq_ev;
struct sfi_eq {
	struct fid_eq eq_fid;
	struct sfi_fabric *fabric;
	pthread_mutex_t lock;		/* protects the queue and fd_set */
	pthread_cond_t cond;		/* an event was written */
	struct sfi_eq_ev *head, **tail;
	enum fi_wait_obj wait_obj;
	int writable;			/* opened with FI_WRITE */
	int fd, fd_set;			/* FI_WAIT_FD: eventfd, and readable */
};

/* mr.c: the registration exported to one node */
struct sfi_mr_exp {
	uint32_t node;
	struct snode_handle h;
};

struct sfi_mr {
	struct fid_mr mr_fid;
	struct sfi_domain *domain;
	struct sfi_mr *next;
	char *base;
	size_t len;
	uint64_t access;
	/* host exports of the pages [pbase, pbase + plen), one per node */
	uintptr_t pbase;
	size_t plen;
	struct sfi_mr_exp *exps;
	int nexps;
	int exp_err;			/* an export failed: no more tries */
};

/* where a peer's bytes wait in its exported bounce region (rdv.c) */
struct sfi_rdv_src {
	uint32_t node;
	uint32_t export_id;
	uint64_t key;
	uint32_t off;
	int pipe;	/* a ready word heads the slot: pull while it is filled */
	int bad;	/* malformed (sfi_rdv_src_check()): never pulled */
	int zc;		/* off is in the sender's registration's export */
	uint16_t id;	/* zc: what DONE names */
};

/* a posted receive, or a message that arrived before one (unexpected) */
struct sfi_rx {
	struct sfi_rx *next;
	int tagged;
	void *context;
	uint64_t tag, ignore;
	fi_addr_t src;			/* FI_ADDR_UNSPEC: any */
	uint64_t flags;
	struct iovec iov[SFI_IOV_LIMIT];
	size_t iov_count, iov_len;
	/* an unexpected message: its bytes in buf */
	void *buf;
	size_t len, got, cap;		/* cap: bytes of buf */
	uint64_t data;
	int has_data;
	struct snode_ep_addr from;
	struct sfi_rx *claimed;		/* posted receive waiting for the rest */
	int rdv;			/* a rendezvous: the bytes are at rs */
	struct sfi_rdv_src rs;
	/*
	 * FI_MULTI_RECV: a posted buffer (flags has it) hands out a part
	 * per message (a receive whose multi is the buffer); the buffer is
	 * retired once less than min_multi_recv is left, and freed when its
	 * last part completed (that completion carries FI_MULTI_RECV)
	 */
	struct sfi_rx *multi;
	struct sfi_rx *multi_next;	/* the endpoint's buffers, for close */
	size_t used;
	int pending, retired, cancelled;
};

/* reassembly of the message in flight from one sender endpoint */
struct sfi_asm {
	struct sfi_asm *next;
	uint32_t node;
	uint16_t ep;
	struct sfi_rx *rx;		/* the receive being filled */
	struct sfi_rx *unexp;		/* or the unexpected entry */
	size_t len, got;
	int tagged;
	uint64_t tag, data;
	int has_data;
};

struct sfi_ep {
	struct fid_ep ep_fid;
	struct sfi_domain *domain;
	struct sfi_av *av;
	struct sfi_cq *tx_cq, *rx_cq;
	uint64_t tx_cq_flags, rx_cq_flags;
	struct sfi_cntr *tx_cntr, *rx_cntr;
	/* FI_READ, FI_WRITE, FI_REMOTE_READ, FI_REMOTE_WRITE (fi_cntr(3)) */
	struct sfi_cntr *rd_cntr, *wr_cntr, *rrd_cntr, *rwr_cntr;
	struct snode_ep *sep;
	struct sfi_addr addr;
	uint64_t caps;
	int enabled;
	struct sfi_addr want;		/* from info->src_addr */
	int want_addr;
	struct sfi_rx *posted[2];	/* [tagged] */
	struct sfi_rx *unexp[2];
	struct sfi_rx *claimed;		/* FI_PEEK | FI_CLAIM: by context */
	struct sfi_rx *multis;		/* FI_MULTI_RECV buffers not yet freed */
	size_t min_multi_recv;		/* FI_OPT_MIN_MULTI_RECV */
	struct sfi_asm *asms;
	size_t rx_size;
	size_t nposted;
	size_t unexp_bytes;		/* buffered unexpected: bound unexp_max */
	struct sfi_rdv rdv;
	struct sfi_tring *trings;	/* rings to peers (ring.c) */
	struct sfi_rring *rrings;	/* rings from peers */
	struct sfi_rmr *rmrs;		/* peers' registrations (mr.c) */
	int nrmrs;
	int ntrings, nrrings;
	int ring_polling;		/* sfi_ring_progress() is running */
	int rmaq_running;		/* sfi_rmaq_run() is running */
	uint8_t *ring_buf;		/* an entry, copied out of its ring */
	size_t ring_buf_len;
};

int sfi_fabric_open(struct fi_fabric_attr *attr, struct fid_fabric **fabric,
		    void *context);
int sfi_domain_open(struct fid_fabric *fabric, struct fi_info *info,
		    struct fid_domain **dom, void *context);
int sfi_av_open(struct fid_domain *domain, struct fi_av_attr *attr,
		struct fid_av **av, void *context);
int sfi_cq_open(struct fid_domain *domain, struct fi_cq_attr *attr,
		struct fid_cq **cq, void *context);
int sfi_cntr_open(struct fid_domain *domain, struct fi_cntr_attr *attr,
		  struct fid_cntr **cntr, void *context);
int sfi_ep_open(struct fid_domain *domain, struct fi_info *info,
		struct fid_ep **ep, void *context);

int sfi_av_lookup_addr(struct sfi_av *av, fi_addr_t fa, struct sfi_addr *out);
fi_addr_t sfi_av_reverse(struct sfi_av *av, uint32_t node, uint32_t ep);
int sfi_cq_push(struct sfi_cq *cq, const struct fi_cq_err_entry *e,
		fi_addr_t src);
void sfi_ep_progress(struct sfi_ep *ep);
void sfi_cq_attach(struct sfi_cq *cq, struct sfi_ep *ep);
void sfi_cntr_attach(struct sfi_cntr *cntr, struct sfi_ep *ep);

/* ep.c, for rdv.c, rma.c and ring.c */
int64_t sfi_ms(void);	/* CLOCK_MONOTONIC */
void sfi_handle_bytes(struct sfi_ep *ep, uint32_t node, uint16_t src_ep,
		      const uint8_t *p, size_t len, int nic);
int sfi_wire_send(struct sfi_ep *ep, const struct snode_ep_addr *dst,
		  const void *buf, size_t len);
int sfi_frag(struct sfi_ep *ep, const struct snode_ep_addr *dst,
	     const void *buf, size_t len, int first);
void sfi_tx_done(struct sfi_ep *ep, void *context, uint64_t flags,
		 size_t len, int err, int prov_errno, int want_comp);
/* a peer's RMA or atomic on our memory was done: FI_REMOTE_READ/_WRITE */
void sfi_remote_done(struct sfi_ep *ep, uint64_t which);
size_t sfi_iov_total(const struct iovec *iov, size_t n);
int sfi_iov_len(const struct iovec *iov, size_t count, int inject,
		size_t *len);
/* a peer wrote len bytes with CQ data into our memory: the rx CQ's entry */
void sfi_remote_write_data(struct sfi_ep *ep, size_t len, uint64_t data,
			   uint32_t node, uint32_t epid);
void sfi_iov_copy(const struct iovec *iov, size_t n, size_t off, void *buf,
		  size_t len, int to_iov);
extern struct fi_ops_rma sfi_rma_ops;

/* flags of a first fragment (ep.c) and of an RTS (rdv.c) */
enum { SFI_F_TAGGED = 1, SFI_F_DATA = 2, SFI_F_PIPE = 4, SFI_F_ZC = 8 };

/* rdv.c: rendezvous through exported bounce regions, see fi_snode(7) */
enum {
	SFI_OP_RTS = 3,		/* a large send waits in the sender's bounce */
	SFI_OP_DONE = 4,	/* the peer is done with a bounce slot */
	SFI_OP_PROBE = 5,	/* is the peer still there? (ignored) */
	SFI_OP_WRITE = 6,	/* fi_write: bytes in the initiator's bounce */
	SFI_OP_READ = 7,	/* fi_read: the target should answer */
	SFI_OP_READ_RESP = 8,	/* the bytes of a read, in the target's bounce */
	SFI_OP_ATOMIC = 9,	/* an atomic on the target's registration */
	SFI_OP_ATOMIC_RESP = 10,	/* its status and the old value */
};

/* ring.c: rings in global memory, see fi_snode(7); NIC messages only */
enum {
	SFI_OP_RING_ASK = 11,	/* here is a ring of my messages for you */
	SFI_OP_RING_GRANT = 12,	/* taken: here is my control page */
	SFI_OP_RING_REFUSE = 13,
	SFI_OP_RING_START = 14,	/* my next messages are in the ring */
	SFI_OP_RING_WAKE = 15,	/* the ring has something: wake up */
};

/* mr.c: direct RMA on a peer's registration, see fi_snode(7) */
enum {
	SFI_OP_MR_QUERY = 16,	/* may I reach your registration with key K? */
	SFI_OP_MR_GRANT = 17,	/* here is its export (or why not) */
	SFI_OP_RMA_NOTE = 18,	/* I wrote or read your registration */
	SFI_OP_LAST = SFI_OP_RMA_NOTE,
};
/* RMA_NOTE's flags (byte 1): rma.c sends it, mr.c takes it */
enum { SFI_NOTE_WRITE = 1, SFI_NOTE_DATA = 2 };
size_t sfi_ring_max(struct sfi_ep *ep, const struct snode_ep_addr *dst);
int sfi_ring_send(struct sfi_ep *ep, const struct snode_ep_addr *dst,
		  const void *hdr, size_t hlen, const struct iovec *iov,
		  size_t count, size_t len);
void sfi_ring_handle(struct sfi_ep *ep, const struct snode_msg *m);
void sfi_ring_progress(struct sfi_ep *ep);
int sfi_ring_sleep(struct sfi_ep *ep, int sleeping);
void sfi_ring_close(struct sfi_ep *ep);
int sfi_rdv_send(struct sfi_ep *ep, const struct snode_ep_addr *dst,
		 const struct iovec *iov, size_t count, size_t len,
		 const uint8_t *hdr, void *context, uint64_t cflags,
		 struct sfi_mr *mr);
int sfi_rdv_pull(struct sfi_ep *ep, const struct sfi_rdv_src *rs,
		 const struct iovec *iov, size_t count, size_t len);
void sfi_rdv_parse(const struct snode_msg *m, size_t pos,
		   struct sfi_rdv_src *rs);
int sfi_rdv_src_check(const struct sfi_rdv_src *rs, uint64_t len);
/* the import still maps the peer's export: 0, or -ECONNRESET or -errno */
int sfi_import_active(struct snode_import *imp);
int sfi_peer_status(const struct snode_msg *m, int32_t status);
void sfi_rdv_done(struct sfi_ep *ep, const struct snode_ep_addr *dst,
		  const struct sfi_rdv_src *rs, int status);
void sfi_rdv_handle(struct sfi_ep *ep, const struct snode_msg *m);
void sfi_rdv_progress(struct sfi_ep *ep);
void sfi_rdv_close(struct sfi_ep *ep);
int sfi_op_new(struct sfi_ep *ep, enum sfi_op_kind kind,
	       const struct snode_ep_addr *peer, size_t slot, struct sfi_op **out);
void sfi_op_free(struct sfi_ep *ep, struct sfi_op *op);
void sfi_op_end(struct sfi_ep *ep, struct sfi_op *op, int status);
struct sfi_op *sfi_op_find(struct sfi_ep *ep, const struct snode_msg *m,
			   int by_id, uint32_t v);
int sfi_op_check(struct sfi_ep *ep, uint64_t cap, fi_addr_t peer,
		 struct sfi_addr *dst);
ssize_t sfi_op_request(struct sfi_ep *ep, struct sfi_op *op, const void *m,
		       size_t len);
void sfi_ctl_send(struct sfi_ep *ep, const struct snode_ep_addr *dst,
		  const void *m, size_t len);
void sfi_ctl_send_nic(struct sfi_ep *ep, const struct snode_ep_addr *dst,
		      const void *m, size_t len);

/* rma.c: the target's side of fi_write and fi_read */
void sfi_rma_handle(struct sfi_ep *ep, const struct snode_msg *m);
int sfi_dma_queue(struct sfi_ep *ep);
void sfi_rmaq_run(struct sfi_ep *ep);

/* mr.c: registrations, their exports, and peers' registrations */
extern struct fi_ops_mr sfi_mr_ops;
struct sfi_mr *sfi_mr_find(struct sfi_domain *d, uint64_t key);
struct sfi_mr *sfi_mr_from_desc(struct sfi_domain *d, void *desc,
				const struct iovec *iov, size_t count);
int sfi_mr_export(struct sfi_mr *mr, uint32_t node, struct snode_handle *h);
struct sfi_rmr *sfi_rmr_get(struct sfi_ep *ep, const struct snode_ep_addr *peer,
			    uint64_t key);
void sfi_rmr_drop(struct sfi_ep *ep, struct sfi_rmr *r);
void sfi_mr_handle(struct sfi_ep *ep, const struct snode_msg *m);
void sfi_rmr_progress(struct sfi_ep *ep);
void sfi_rmr_close(struct sfi_ep *ep);
int sfi_domain_ops_open(struct fid *fid, const char *name, uint64_t flags,
			void **ops, void *context);
void sfi_stats_print(struct sfi_domain *d);

/* atomic.c: atomics executed by the target's provider */
extern struct fi_ops_atomic sfi_atomic_ops;
void sfi_atomic_handle(struct sfi_ep *ep, const struct snode_msg *m);
void sfi_atomic_resp(struct sfi_ep *ep, const struct snode_msg *m);
struct fi_atomic_attr;
int sfi_query_atomic(struct fid_domain *domain, enum fi_datatype dt,
		     enum fi_op op, struct fi_atomic_attr *attr, uint64_t flags);

/* the stubs for operations the provider does not implement */
int sfi_no_bind(struct fid *fid, struct fid *bfid, uint64_t flags);
int sfi_no_control(struct fid *fid, int command, void *arg);
int sfi_no_ops_open(struct fid *fid, const char *name, uint64_t flags,
		    void **ops, void *context);

#endif /* SNODE_FI_H */
