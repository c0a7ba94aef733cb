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

#define SFI_PROV_NAME		"snode"
#define SFI_PROV_VERSION	FI_VERSION(0, 1)
#define SFI_FI_VERSION		FI_VERSION(FI_MAJOR_VERSION, FI_MINOR_VERSION)
#define SFI_IOV_LIMIT		4
#define SFI_CQ_DATA_SIZE	8
/* mem_tag_format: every tag bit is matched, one field of 64 bits */
#define SFI_TAG_FORMAT		UINT64_MAX
/* every address is this long, NUL-padded: "fi_snode://F:N:E:KEY" */
#define SFI_ADDRLEN		64
#define SFI_CAPS	(FI_MSG | FI_TAGGED | FI_SEND | FI_RECV | FI_SOURCE | \
			 FI_DIRECTED_RECV | FI_LOCAL_COMM | FI_REMOTE_COMM)

extern struct fi_provider sfi_prov;

struct sfi_params {
	size_t max_msg_size;
	int rx_entries;		/* snode endpoint ring slots */
	int send_timeout_ms;	/* how long a started message may wait for room */
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
};

/* a completion, kept in the tagged format whatever the CQ's format */
struct sfi_cqe {
	struct fi_cq_err_entry e;	/* err == 0: a good completion */
	fi_addr_t src;
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

struct sfi_eq {
	struct fid_eq eq_fid;
	struct sfi_fabric *fabric;
};

struct sfi_mr {
	struct fid_mr mr_fid;
	struct sfi_domain *domain;
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
	size_t len, got;
	uint64_t data;
	int has_data;
	struct snode_ep_addr from;
	struct sfi_rx *claimed;		/* posted receive waiting for the rest */
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
	struct snode_ep *sep;
	struct sfi_addr addr;
	uint64_t caps;
	int enabled;
	struct sfi_addr want;		/* from info->src_addr */
	int want_addr;
	struct sfi_rx *posted[2];	/* [tagged] */
	struct sfi_rx *unexp[2];
	struct sfi_asm *asms;
	size_t rx_size;
	size_t nposted;
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

/* the stubs for operations the provider does not implement */
int sfi_no_bind(struct fid *fid, struct fid *bfid, uint64_t flags);
int sfi_no_control(struct fid *fid, int command, void *arg);
int sfi_no_ops_open(struct fid *fid, const char *name, uint64_t flags,
		    void **ops, void *context);

#endif /* SNODE_FI_H */
