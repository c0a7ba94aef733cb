// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * fabric.c - fabric, event queue, domain and memory registration objects,
 * and the stubs for operations the provider does not implement.
 *
 * The event queue exists because programs (fi_pingpong) open one on every
 * fabric; an RDM endpoint over snode has no connection events, so it never
 * holds one.
 */
#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "snode_fi.h"

int sfi_no_bind(struct fid *fid, struct fid *bfid, uint64_t flags)
{
	return -FI_ENOSYS;
}

int sfi_no_control(struct fid *fid, int command, void *arg)
{
	return -FI_ENOSYS;
}

int sfi_no_ops_open(struct fid *fid, const char *name, uint64_t flags,
		    void **ops, void *context)
{
	return -FI_ENOSYS;
}

/* --- event queue -------------------------------------------------------- */
static ssize_t sfi_eq_read(struct fid_eq *eq, uint32_t *event, void *buf,
			   size_t len, uint64_t flags)
{
	return -FI_EAGAIN;
}

static ssize_t sfi_eq_readerr(struct fid_eq *eq, struct fi_eq_err_entry *buf,
			      uint64_t flags)
{
	return -FI_EAGAIN;
}

static ssize_t sfi_eq_write(struct fid_eq *eq, uint32_t event, const void *buf,
			    size_t len, uint64_t flags)
{
	return -FI_ENOSYS;
}

static ssize_t sfi_eq_sread(struct fid_eq *eq, uint32_t *event, void *buf,
			    size_t len, int timeout, uint64_t flags)
{
	if (timeout > 0)
		poll(NULL, 0, timeout);
	return -FI_EAGAIN;
}

/* prov_errno is the errno of the failed snode operation */
const char *sfi_strerror(int prov_errno, char *buf, size_t len)
{
	const char *s = strerror(prov_errno);

	if (buf && len) {
		snprintf(buf, len, "%s", s);
		return buf;
	}
	return s;
}

static const char *sfi_eq_strerror(struct fid_eq *eq, int prov_errno,
				   const void *err_data, char *buf, size_t len)
{
	return sfi_strerror(prov_errno, buf, len);
}

static struct fi_ops_eq sfi_eq_ops = {
	.size = sizeof(struct fi_ops_eq),
	.read = sfi_eq_read,
	.readerr = sfi_eq_readerr,
	.write = sfi_eq_write,
	.sread = sfi_eq_sread,
	.strerror = sfi_eq_strerror,
};

static int sfi_eq_close(struct fid *fid)
{
	free(container_of(fid, struct sfi_eq, eq_fid.fid));
	return 0;
}

static struct fi_ops sfi_eq_fi_ops = {
	.size = sizeof(struct fi_ops),
	.close = sfi_eq_close,
	.bind = sfi_no_bind,
	.control = sfi_no_control,
	.ops_open = sfi_no_ops_open,
};

static int sfi_eq_open(struct fid_fabric *fabric, struct fi_eq_attr *attr,
		       struct fid_eq **eq, void *context)
{
	struct sfi_eq *e;

	if (!attr || attr->flags)
		return -FI_EINVAL;
	if (attr->wait_obj != FI_WAIT_NONE && attr->wait_obj != FI_WAIT_UNSPEC)
		return -FI_ENOSYS;
	e = calloc(1, sizeof(*e));
	if (!e)
		return -FI_ENOMEM;
	e->fabric = container_of(fabric, struct sfi_fabric, fabric_fid);
	e->eq_fid.fid.fclass = FI_CLASS_EQ;
	e->eq_fid.fid.context = context;
	e->eq_fid.fid.ops = &sfi_eq_fi_ops;
	e->eq_fid.ops = &sfi_eq_ops;
	*eq = &e->eq_fid;
	return 0;
}

/*
 * --- memory registration: nothing to pin (messages and rendezvous copy);
 * a registration with remote access is what a peer's fi_read and fi_write
 * name by its key (rma.c), checked by this process under the domain lock.
 */
struct sfi_mr *sfi_mr_find(struct sfi_domain *d, uint64_t key)
{
	struct sfi_mr *mr;

	for (mr = d->mrs; mr; mr = mr->next)
		if (mr->mr_fid.key == key)
			return mr;
	return NULL;
}

static int sfi_mr_close(struct fid *fid)
{
	struct sfi_mr *mr = container_of(fid, struct sfi_mr, mr_fid.fid);
	struct sfi_mr **pp;

	pthread_mutex_lock(&mr->domain->lock);
	for (pp = &mr->domain->mrs; *pp; pp = &(*pp)->next)
		if (*pp == mr) {
			*pp = mr->next;
			break;
		}
	mr->domain->refs--;
	pthread_mutex_unlock(&mr->domain->lock);
	free(mr);
	return 0;
}

static struct fi_ops sfi_mr_fi_ops = {
	.size = sizeof(struct fi_ops),
	.close = sfi_mr_close,
	.bind = sfi_no_bind,
	.control = sfi_no_control,
	.ops_open = sfi_no_ops_open,
};

static int sfi_mr_regattr(struct fid *fid, const struct fi_mr_attr *attr,
			  uint64_t flags, struct fid_mr **mr_fid)
{
	struct sfi_domain *d = container_of(fid, struct sfi_domain,
					    domain_fid.fid);
	const uint64_t remote = FI_REMOTE_READ | FI_REMOTE_WRITE;
	struct sfi_mr *mr;

	if (!attr || flags || attr->iov_count > 1 ||
	    (attr->iov_count && !attr->mr_iov))
		return -FI_EINVAL;
	if (attr->access & ~(uint64_t)(FI_SEND | FI_RECV | FI_READ | FI_WRITE |
				       remote))
		return -FI_ENOSYS;
	mr = calloc(1, sizeof(*mr));
	if (!mr)
		return -FI_ENOMEM;
	mr->domain = d;
	mr->access = attr->access;
	if (attr->iov_count) {
		mr->base = attr->mr_iov[0].iov_base;
		mr->len = attr->mr_iov[0].iov_len;
	}
	mr->mr_fid.fid.fclass = FI_CLASS_MR;
	mr->mr_fid.fid.context = attr->context;
	mr->mr_fid.fid.ops = &sfi_mr_fi_ops;
	mr->mr_fid.mem_desc = NULL;
	mr->mr_fid.key = attr->requested_key;
	pthread_mutex_lock(&d->lock);
	if ((attr->access & remote) && sfi_mr_find(d, mr->mr_fid.key)) {
		/* mr_mode 0: the application's key names one registration */
		pthread_mutex_unlock(&d->lock);
		free(mr);
		return -FI_ENOKEY;
	}
	if (attr->access & remote) {
		mr->next = d->mrs;
		d->mrs = mr;
	}
	d->refs++;
	pthread_mutex_unlock(&d->lock);
	*mr_fid = &mr->mr_fid;
	return 0;
}

static int sfi_mr_regv(struct fid *fid, const struct iovec *iov, size_t count,
		       uint64_t access, uint64_t offset, uint64_t requested_key,
		       uint64_t flags, struct fid_mr **mr, void *context)
{
	struct fi_mr_attr attr = {
		.mr_iov = iov,
		.iov_count = count,
		.access = access,
		.offset = offset,
		.requested_key = requested_key,
		.context = context,
	};

	return sfi_mr_regattr(fid, &attr, flags, mr);
}

static int sfi_mr_reg(struct fid *fid, const void *buf, size_t len,
		      uint64_t access, uint64_t offset, uint64_t requested_key,
		      uint64_t flags, struct fid_mr **mr, void *context)
{
	struct iovec iov = { .iov_base = (void *)buf, .iov_len = len };

	return sfi_mr_regv(fid, &iov, 1, access, offset, requested_key, flags,
			   mr, context);
}

static struct fi_ops_mr sfi_mr_ops = {
	.size = sizeof(struct fi_ops_mr),
	.reg = sfi_mr_reg,
	.regv = sfi_mr_regv,
	.regattr = sfi_mr_regattr,
};

/* --- domain --------------------------------------------------------------- */
static int sfi_domain_close(struct fid *fid)
{
	struct sfi_domain *d = container_of(fid, struct sfi_domain,
					    domain_fid.fid);

	pthread_mutex_lock(&d->lock);
	if (d->refs) {
		pthread_mutex_unlock(&d->lock);
		return -FI_EBUSY;
	}
	pthread_mutex_unlock(&d->lock);
	snode_unref(d->ctx);
	pthread_mutex_destroy(&d->lock);
	free(d);
	return 0;
}

static struct fi_ops sfi_domain_fi_ops = {
	.size = sizeof(struct fi_ops),
	.close = sfi_domain_close,
	.bind = sfi_no_bind,
	.control = sfi_no_control,
	.ops_open = sfi_no_ops_open,
};

static int sfi_no_sep(struct fid_domain *domain, struct fi_info *info,
		      struct fid_ep **sep, void *context)
{
	return -FI_ENOSYS;
}

static int sfi_no_poll(struct fid_domain *domain, struct fi_poll_attr *attr,
		       struct fid_poll **pollset)
{
	return -FI_ENOSYS;
}

static int sfi_no_stx(struct fid_domain *domain, struct fi_tx_attr *attr,
		      struct fid_stx **stx, void *context)
{
	return -FI_ENOSYS;
}

static int sfi_no_srx(struct fid_domain *domain, struct fi_rx_attr *attr,
		      struct fid_ep **rx_ep, void *context)
{
	return -FI_ENOSYS;
}

static int sfi_no_query_coll(struct fid_domain *domain,
			     enum fi_collective_op coll,
			     struct fi_collective_attr *attr, uint64_t flags)
{
	return -FI_ENOSYS;
}

static int sfi_endpoint2(struct fid_domain *domain, struct fi_info *info,
			 struct fid_ep **ep, uint64_t flags, void *context)
{
	if (flags)
		return -FI_EINVAL;
	return sfi_ep_open(domain, info, ep, context);
}

static struct fi_ops_domain sfi_domain_ops = {
	.size = sizeof(struct fi_ops_domain),
	.av_open = sfi_av_open,
	.cq_open = sfi_cq_open,
	.endpoint = sfi_ep_open,
	.scalable_ep = sfi_no_sep,
	.cntr_open = sfi_cntr_open,
	.poll_open = sfi_no_poll,
	.stx_ctx = sfi_no_stx,
	.srx_ctx = sfi_no_srx,
	.query_atomic = sfi_query_atomic,
	.query_collective = sfi_no_query_coll,
	.endpoint2 = sfi_endpoint2,
};

int sfi_domain_open(struct fid_fabric *fabric, struct fi_info *info,
		    struct fid_domain **dom, void *context)
{
	struct sfi_fabric *f = container_of(fabric, struct sfi_fabric,
					    fabric_fid);
	struct snode_dev_status st;
	struct sfi_domain *d;
	int ret;

	if (!info || !info->domain_attr || !info->domain_attr->name)
		return -FI_EINVAL;
	d = calloc(1, sizeof(*d));
	if (!d)
		return -FI_ENOMEM;
	ret = snode_new(&d->ctx);
	if (ret < 0) {
		free(d);
		return sfi_errno(ret);
	}
	d->dev = snode_dev_get_by_name(d->ctx, info->domain_attr->name);
	if (!d->dev || snode_dev_get_status(d->dev, &st, sizeof(st)) < 0 ||
	    st.fabric_id != f->fabric_id || st.node_id == SNODE_NODE_ID_NONE) {
		snode_unref(d->ctx);
		free(d);
		return -FI_ENODEV;
	}
	d->node_id = st.node_id;
	d->fabric = f;
	pthread_mutex_init(&d->lock, NULL);
	d->domain_fid.fid.fclass = FI_CLASS_DOMAIN;
	d->domain_fid.fid.context = context;
	d->domain_fid.fid.ops = &sfi_domain_fi_ops;
	d->domain_fid.ops = &sfi_domain_ops;
	d->domain_fid.mr = &sfi_mr_ops;
	*dom = &d->domain_fid;
	return 0;
}

/* --- fabric ----------------------------------------------------------------- */
static int sfi_fabric_close(struct fid *fid)
{
	free(container_of(fid, struct sfi_fabric, fabric_fid.fid));
	return 0;
}

static struct fi_ops sfi_fabric_fi_ops = {
	.size = sizeof(struct fi_ops),
	.close = sfi_fabric_close,
	.bind = sfi_no_bind,
	.control = sfi_no_control,
	.ops_open = sfi_no_ops_open,
};

static int sfi_no_pep(struct fid_fabric *fabric, struct fi_info *info,
		      struct fid_pep **pep, void *context)
{
	return -FI_ENOSYS;
}

static int sfi_no_wait(struct fid_fabric *fabric, struct fi_wait_attr *attr,
		       struct fid_wait **waitset)
{
	return -FI_ENOSYS;
}

static int sfi_trywait(struct fid_fabric *fabric, struct fid **fids, int count)
{
	return -FI_ENOSYS;
}

static int sfi_domain2(struct fid_fabric *fabric, struct fi_info *info,
		       struct fid_domain **dom, uint64_t flags, void *context)
{
	if (flags)
		return -FI_EINVAL;
	return sfi_domain_open(fabric, info, dom, context);
}

static struct fi_ops_fabric sfi_fabric_ops = {
	.size = sizeof(struct fi_ops_fabric),
	.domain = sfi_domain_open,
	.passive_ep = sfi_no_pep,
	.eq_open = sfi_eq_open,
	.wait_open = sfi_no_wait,
	.trywait = sfi_trywait,
	.domain2 = sfi_domain2,
};

int sfi_fabric_open(struct fi_fabric_attr *attr, struct fid_fabric **fabric,
		    void *context)
{
	struct sfi_fabric *f;
	unsigned int id;
	char end;

	if (!attr || !attr->name ||
	    sscanf(attr->name, "snode-fabric%u%c", &id, &end) != 1)
		return -FI_EINVAL;
	f = calloc(1, sizeof(*f));
	if (!f)
		return -FI_ENOMEM;
	f->fabric_id = id;
	f->fabric_fid.fid.fclass = FI_CLASS_FABRIC;
	f->fabric_fid.fid.context = context;
	f->fabric_fid.fid.ops = &sfi_fabric_fi_ops;
	f->fabric_fid.ops = &sfi_fabric_ops;
	*fabric = &f->fabric_fid;
	return 0;
}
