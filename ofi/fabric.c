// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * fabric.c - fabric, event queue, domain and memory registration objects,
 * and the stubs for operations the provider does not implement.
 *
 * The event queue exists because programs (fi_pingpong, fabtests) open
 * one on every fabric; an RDM endpoint over snode has no connection events,
 * so it holds only what the application writes into it.
 */
#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/eventfd.h>

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
/*
 * An RDM endpoint over snode has no connection events, so the queue holds
 * only what the application writes into it (attr->flags FI_WRITE,
 * fi_eq_write) and the waits of fi_eq_sread; with FI_WAIT_FD its
 * descriptor (fi_control FI_GETWAIT) is an eventfd, readable while an
 * event waits.
 */
struct sfi_eq_ev {
	struct sfi_eq_ev *next;
	uint32_t event;
	int err;		/* an error event: none so far */
	size_t len;
	unsigned char data[];
};

static struct sfi_eq *to_eq(struct fid_eq *f)
{
	return container_of(f, struct sfi_eq, eq_fid);
}

/* under eq->lock: the descriptor's readiness follows the queue */
static void sfi_eq_fd_sync(struct sfi_eq *eq)
{
	uint64_t v = 1;

	if (eq->fd < 0)
		return;
	if (eq->head && !eq->fd_set) {
		if (write(eq->fd, &v, sizeof(v)) == sizeof(v))
			eq->fd_set = 1;
	} else if (!eq->head && eq->fd_set) {
		if (read(eq->fd, &v, sizeof(v)) == sizeof(v))
			eq->fd_set = 0;
	}
}

/* the next event if it is (not) an error one: copied to buf, maybe popped */
static ssize_t __sfi_eq_take(struct sfi_eq *eq, int err, uint32_t *event,
			     void *buf, size_t len, uint64_t flags)
{
	struct sfi_eq_ev *ev = eq->head;
	size_t n;

	if (!ev)
		return -FI_EAGAIN;
	if (ev->err != err)
		return err ? -FI_EAGAIN : -FI_EAVAIL;
	n = ev->len < len ? ev->len : len;
	if (event)
		*event = ev->event;
	if (buf && n)
		memcpy(buf, ev->data, n);
	if (!(flags & FI_PEEK)) {
		eq->head = ev->next;
		if (!eq->head)
			eq->tail = &eq->head;
		free(ev);
		sfi_eq_fd_sync(eq);
	}
	return n;
}

static ssize_t sfi_eq_read(struct fid_eq *f, uint32_t *event, void *buf,
			   size_t len, uint64_t flags)
{
	struct sfi_eq *eq = to_eq(f);
	ssize_t ret;

	if (flags & ~(uint64_t)FI_PEEK)
		return -FI_EINVAL;
	pthread_mutex_lock(&eq->lock);
	ret = __sfi_eq_take(eq, 0, event, buf, len, flags);
	pthread_mutex_unlock(&eq->lock);
	return ret;
}

static ssize_t sfi_eq_readerr(struct fid_eq *f, struct fi_eq_err_entry *buf,
			      uint64_t flags)
{
	struct sfi_eq *eq = to_eq(f);
	struct fi_eq_err_entry e;
	ssize_t ret;

	if (!buf)
		return -FI_EINVAL;
	pthread_mutex_lock(&eq->lock);
	ret = __sfi_eq_take(eq, 1, NULL, &e, sizeof(e), flags);
	pthread_mutex_unlock(&eq->lock);
	if (ret < 0)
		return ret;
	/* the caller's err_data buffer is its own: no provider data */
	e.err_data = buf->err_data;
	e.err_data_size = 0;
	*buf = e;
	return sizeof(*buf);
}

static ssize_t sfi_eq_write(struct fid_eq *f, uint32_t event, const void *buf,
			    size_t len, uint64_t flags)
{
	struct sfi_eq *eq = to_eq(f);
	struct sfi_eq_ev *ev;

	if (!eq->writable)
		return -FI_EOPNOTSUPP;	/* opened without FI_WRITE */
	if ((len && !buf) || len > 65536 || flags)
		return -FI_EINVAL;
	ev = malloc(sizeof(*ev) + len);
	if (!ev)
		return -FI_ENOMEM;
	ev->next = NULL;
	ev->event = event;
	ev->err = 0;	/* the provider itself raises none */
	ev->len = len;
	if (len)
		memcpy(ev->data, buf, len);
	pthread_mutex_lock(&eq->lock);
	*eq->tail = ev;
	eq->tail = &ev->next;
	sfi_eq_fd_sync(eq);
	pthread_cond_broadcast(&eq->cond);
	pthread_mutex_unlock(&eq->lock);
	return len;
}

static ssize_t sfi_eq_sread(struct fid_eq *f, uint32_t *event, void *buf,
			    size_t len, int timeout, uint64_t flags)
{
	struct sfi_eq *eq = to_eq(f);
	struct timespec end;
	ssize_t ret;

	if (flags & ~(uint64_t)FI_PEEK)
		return -FI_EINVAL;
	if (eq->wait_obj == FI_WAIT_NONE)
		return -FI_EINVAL;	/* fi_eq(3): no wait object, no sread */
	clock_gettime(CLOCK_MONOTONIC, &end);
	if (timeout > 0) {
		end.tv_sec += timeout / 1000;
		end.tv_nsec += (long)(timeout % 1000) * 1000000L;
		if (end.tv_nsec >= 1000000000L) {
			end.tv_sec++;
			end.tv_nsec -= 1000000000L;
		}
	}
	pthread_mutex_lock(&eq->lock);
	for (;;) {
		ret = __sfi_eq_take(eq, 0, event, buf, len, flags);
		if (ret != -FI_EAGAIN || !timeout)
			break;
		if (timeout < 0)
			pthread_cond_wait(&eq->cond, &eq->lock);
		else if (pthread_cond_timedwait(&eq->cond, &eq->lock, &end) ==
			 ETIMEDOUT) {
			ret = __sfi_eq_take(eq, 0, event, buf, len, flags);
			break;
		}
	}
	pthread_mutex_unlock(&eq->lock);
	return ret;
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
	struct sfi_eq *eq = container_of(fid, struct sfi_eq, eq_fid.fid);

	while (eq->head) {
		struct sfi_eq_ev *ev = eq->head;

		eq->head = ev->next;
		free(ev);
	}
	if (eq->fd >= 0)
		close(eq->fd);
	pthread_cond_destroy(&eq->cond);
	pthread_mutex_destroy(&eq->lock);
	free(eq);
	return 0;
}

static int sfi_eq_control(struct fid *fid, int command, void *arg)
{
	struct sfi_eq *eq = container_of(fid, struct sfi_eq, eq_fid.fid);

	if (command != FI_GETWAIT)
		return -FI_ENOSYS;
	if (eq->fd < 0 || !arg)
		return -FI_ENODATA;	/* no descriptor to wait on */
	*(int *)arg = eq->fd;
	return 0;
}

static struct fi_ops sfi_eq_fi_ops = {
	.size = sizeof(struct fi_ops),
	.close = sfi_eq_close,
	.bind = sfi_no_bind,
	.control = sfi_eq_control,
	.ops_open = sfi_no_ops_open,
};

static int sfi_eq_open(struct fid_fabric *fabric, struct fi_eq_attr *attr,
		       struct fid_eq **eq_fid, void *context)
{
	struct sfi_eq *eq;
	pthread_condattr_t ca;

	if (!attr || (attr->flags & ~(uint64_t)FI_WRITE))
		return -FI_EINVAL;
	switch (attr->wait_obj) {
	case FI_WAIT_NONE:
	case FI_WAIT_UNSPEC:
	case FI_WAIT_FD:
		break;
	default:
		FI_WARN(&sfi_prov, FI_LOG_EQ,
			"fi_eq_open: wait object %d: only FI_WAIT_NONE, FI_WAIT_UNSPEC and FI_WAIT_FD\n",
			attr->wait_obj);
		return -FI_ENOSYS;
	}
	eq = calloc(1, sizeof(*eq));
	if (!eq)
		return -FI_ENOMEM;
	eq->fd = -1;
	if (attr->wait_obj == FI_WAIT_FD) {
		eq->fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
		if (eq->fd < 0) {
			free(eq);
			return -FI_ENOMEM;
		}
	}
	eq->wait_obj = attr->wait_obj;
	eq->writable = !!(attr->flags & FI_WRITE);
	eq->tail = &eq->head;
	pthread_mutex_init(&eq->lock, NULL);
	pthread_condattr_init(&ca);
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	pthread_cond_init(&eq->cond, &ca);
	pthread_condattr_destroy(&ca);
	eq->fabric = container_of(fabric, struct sfi_fabric, fabric_fid);
	eq->eq_fid.fid.fclass = FI_CLASS_EQ;
	eq->eq_fid.fid.context = context;
	eq->eq_fid.fid.ops = &sfi_eq_fi_ops;
	eq->eq_fid.ops = &sfi_eq_ops;
	*eq_fid = &eq->eq_fid;
	return 0;
}

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
	if (sfi_params.stats)
		sfi_stats_print(d);
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
	.ops_open = sfi_domain_ops_open,
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
