// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * cq.c - completion queues and counters. Progress is manual: reading a CQ
 * or a counter first drains the snode endpoints bound to it.
 */
#define _GNU_SOURCE	/* ppoll() */
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "snode_fi.h"

static void sfi_progress_all(struct sfi_ep **eps, int n)
{
	int i;

	for (i = 0; i < n; i++)
		sfi_ep_progress(eps[i]);
}

/*
 * Wait until one of the endpoints has messages, or timeout_us passes.
 * Called without the domain lock; takes it to tell the peers that write
 * rings for these endpoints that we sleep (ring.c), so that they wake us.
 */
static void sfi_wait(struct sfi_domain *d, struct sfi_ep **eps, int n,
		     long timeout_us)
{
	struct timespec ts = {
		.tv_sec = timeout_us / 1000000,
		.tv_nsec = timeout_us % 1000000 * 1000,
	};
	struct pollfd pfd[8];
	int i, k = 0, ready = 0;

	pthread_mutex_lock(&d->lock);
	for (i = 0; i < n && k < 8; i++) {
		if (!eps[i]->sep)
			continue;
		ready |= sfi_ring_sleep(eps[i], 1);
		pfd[k].fd = snode_ep_get_fd(eps[i]->sep);
		pfd[k].events = POLLIN;
		k++;
	}
	pthread_mutex_unlock(&d->lock);
	if (!ready)
		ppoll(pfd, k, &ts, NULL);
	pthread_mutex_lock(&d->lock);
	for (i = 0; i < n; i++)
		sfi_ring_sleep(eps[i], 0);
	pthread_mutex_unlock(&d->lock);
}

static int64_t sfi_now_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000 + ts.tv_nsec / 1000;
}

static int64_t sfi_now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

void sfi_cq_attach(struct sfi_cq *cq, struct sfi_ep *ep)
{
	int i;

	for (i = 0; i < cq->neps; i++)
		if (cq->eps[i] == ep)
			return;
	if (cq->neps < 8)
		cq->eps[cq->neps++] = ep;
}

void sfi_cntr_attach(struct sfi_cntr *c, struct sfi_ep *ep)
{
	int i;

	for (i = 0; i < c->neps; i++)
		if (c->eps[i] == ep)
			return;
	if (c->neps < 8)
		c->eps[c->neps++] = ep;
}

int sfi_cq_push(struct sfi_cq *cq, const struct fi_cq_err_entry *e,
		fi_addr_t src)
{
	if (cq->count == cq->cap) {
		size_t cap = cq->cap * 2, i;
		struct sfi_cqe *q = malloc(cap * sizeof(*q));

		if (!q)
			return -FI_ENOMEM;
		for (i = 0; i < cq->count; i++)
			q[i] = cq->q[(cq->head + i) % cq->cap];
		free(cq->q);
		cq->q = q;
		cq->cap = cap;
		cq->head = 0;
	}
	cq->q[(cq->head + cq->count) % cq->cap].e = *e;
	cq->q[(cq->head + cq->count) % cq->cap].src = src;
	cq->count++;
	return 0;
}

static size_t sfi_cq_entry_size(enum fi_cq_format f)
{
	switch (f) {
	case FI_CQ_FORMAT_CONTEXT: return sizeof(struct fi_cq_entry);
	case FI_CQ_FORMAT_MSG: return sizeof(struct fi_cq_msg_entry);
	case FI_CQ_FORMAT_DATA: return sizeof(struct fi_cq_data_entry);
	default: return sizeof(struct fi_cq_tagged_entry);
	}
}

static void sfi_cq_fill(enum fi_cq_format f, void *dst,
			const struct fi_cq_err_entry *e)
{
	struct fi_cq_tagged_entry t = {
		.op_context = e->op_context,
		.flags = e->flags,
		.len = e->len,
		.buf = e->buf,
		.data = e->data,
		.tag = e->tag,
	};

	memcpy(dst, &t, sfi_cq_entry_size(f));
}

/* under the lock; -FI_EAGAIN when empty, -FI_EAVAIL at an error */
static ssize_t __sfi_cq_read(struct sfi_cq *cq, void *buf, size_t count,
			     fi_addr_t *src)
{
	size_t sz = sfi_cq_entry_size(cq->format), n = 0;

	sfi_progress_all(cq->eps, cq->neps);
	while (n < count && cq->count) {
		struct sfi_cqe *c = &cq->q[cq->head];

		if (c->e.err)
			break;
		sfi_cq_fill(cq->format, (char *)buf + n * sz, &c->e);
		if (src)
			src[n] = c->src;
		cq->head = (cq->head + 1) % cq->cap;
		cq->count--;
		n++;
	}
	if (n)
		return n;
	return cq->count ? -FI_EAVAIL : -FI_EAGAIN;
}

/*
 * With idle_wait_us, a CQ that has found nothing for idle_wait_us (and
 * SFI_IDLE_SPINS reads) sleeps on its endpoints at each read that finds
 * nothing (sfi_wait(), without the lock) until a message arrives or
 * idle_wait_us pass, until a read finds something: a process that polls
 * for a long time gives its CPU to others (on an emulated node, to the
 * threads that deliver its messages). Spinning as long as one sleep first
 * (spin, then block) keeps a reply that comes soon from costing a
 * wake-up: a ring's empty read costs no system call, so 64 of them pass
 * in microseconds. Time-driven work (probes, queued control messages)
 * waits at most idle_wait_us longer.
 */
#define SFI_IDLE_SPINS	64

static ssize_t sfi_cq_readfrom(struct fid_cq *cq_fid, void *buf, size_t count,
			       fi_addr_t *src)
{
	struct sfi_cq *cq = container_of(cq_fid, struct sfi_cq, cq_fid);
	ssize_t ret;

	pthread_mutex_lock(&cq->domain->lock);
	ret = __sfi_cq_read(cq, buf, count, src);
	if (ret != -FI_EAGAIN) {
		cq->idle = 0;
	} else if (sfi_params.idle_wait_us) {
		int64_t now = sfi_now_us();

		if (!cq->idle++)
			cq->idle_since = now;
		if (cq->idle >= SFI_IDLE_SPINS &&
		    now - cq->idle_since >= sfi_params.idle_wait_us) {
			pthread_mutex_unlock(&cq->domain->lock);
			sfi_wait(cq->domain, cq->eps, cq->neps,
				 sfi_params.idle_wait_us);
			pthread_mutex_lock(&cq->domain->lock);
		}
	}
	pthread_mutex_unlock(&cq->domain->lock);
	return ret;
}

static ssize_t sfi_cq_read(struct fid_cq *cq, void *buf, size_t count)
{
	return sfi_cq_readfrom(cq, buf, count, NULL);
}

static ssize_t sfi_cq_readerr(struct fid_cq *cq_fid, struct fi_cq_err_entry *buf,
			      uint64_t flags)
{
	struct sfi_cq *cq = container_of(cq_fid, struct sfi_cq, cq_fid);
	ssize_t ret = -FI_EAGAIN;

	pthread_mutex_lock(&cq->domain->lock);
	if (cq->count && cq->q[cq->head].e.err) {
		struct fi_cq_err_entry *e = &cq->q[cq->head].e;
		/* no provider error data: the caller's buffer is left alone */
		void *err_data = buf->err_data;

		*buf = *e;
		buf->err_data = err_data;
		buf->err_data_size = 0;
		cq->head = (cq->head + 1) % cq->cap;
		cq->count--;
		ret = 1;
	}
	pthread_mutex_unlock(&cq->domain->lock);
	return ret;
}

static ssize_t sfi_cq_sreadfrom(struct fid_cq *cq_fid, void *buf, size_t count,
				fi_addr_t *src, const void *cond, int timeout)
{
	struct sfi_cq *cq = container_of(cq_fid, struct sfi_cq, cq_fid);
	int64_t end = timeout < 0 ? -1 : sfi_now_ms() + timeout;
	ssize_t ret;

	for (;;) {
		pthread_mutex_lock(&cq->domain->lock);
		ret = __sfi_cq_read(cq, buf, count, src);
		pthread_mutex_unlock(&cq->domain->lock);
		if (ret != -FI_EAGAIN)
			return ret;
		if (end >= 0 && sfi_now_ms() >= end)
			return -FI_EAGAIN;
		/* the endpoints' descriptors poll readable on arrival */
		sfi_wait(cq->domain, cq->eps, cq->neps, 1000L * (end < 0 ? 100 :
			 (end - sfi_now_ms() < 100 ? end - sfi_now_ms() : 100)));
	}
}

static ssize_t sfi_cq_sread(struct fid_cq *cq, void *buf, size_t count,
			    const void *cond, int timeout)
{
	return sfi_cq_sreadfrom(cq, buf, count, NULL, cond, timeout);
}

static int sfi_cq_signal(struct fid_cq *cq)
{
	return -FI_ENOSYS;
}

static const char *sfi_cq_strerror(struct fid_cq *cq, int prov_errno,
				   const void *err_data, char *buf, size_t len)
{
	return sfi_strerror(prov_errno, buf, len);
}

static struct fi_ops_cq sfi_cq_ops = {
	.size = sizeof(struct fi_ops_cq),
	.read = sfi_cq_read,
	.readfrom = sfi_cq_readfrom,
	.readerr = sfi_cq_readerr,
	.sread = sfi_cq_sread,
	.sreadfrom = sfi_cq_sreadfrom,
	.signal = sfi_cq_signal,
	.strerror = sfi_cq_strerror,
};

static int sfi_cq_close(struct fid *fid)
{
	struct sfi_cq *cq = container_of(fid, struct sfi_cq, cq_fid.fid);

	pthread_mutex_lock(&cq->domain->lock);
	if (cq->refs) {
		pthread_mutex_unlock(&cq->domain->lock);
		return -FI_EBUSY;
	}
	cq->domain->refs--;
	pthread_mutex_unlock(&cq->domain->lock);
	free(cq->q);
	free(cq);
	return 0;
}

static struct fi_ops sfi_cq_fi_ops = {
	.size = sizeof(struct fi_ops),
	.close = sfi_cq_close,
	.bind = sfi_no_bind,
	.control = sfi_no_control,
	.ops_open = sfi_no_ops_open,
};

int sfi_cq_open(struct fid_domain *domain, struct fi_cq_attr *attr,
		struct fid_cq **cq_fid, void *context)
{
	struct sfi_domain *d = container_of(domain, struct sfi_domain,
					    domain_fid);
	struct sfi_cq *cq;

	if (!attr || attr->flags & ~(uint64_t)FI_AFFINITY)
		return -FI_EINVAL;
	switch (attr->format) {
	case FI_CQ_FORMAT_UNSPEC:
	case FI_CQ_FORMAT_CONTEXT:
	case FI_CQ_FORMAT_MSG:
	case FI_CQ_FORMAT_DATA:
	case FI_CQ_FORMAT_TAGGED:
		break;
	default:
		return -FI_ENOSYS;
	}
	switch (attr->wait_obj) {
	case FI_WAIT_NONE:
	case FI_WAIT_UNSPEC:
	case FI_WAIT_FD:
		break;
	default:
		return -FI_ENOSYS;
	}
	if (attr->wait_cond != FI_CQ_COND_NONE)
		return -FI_ENOSYS;
	cq = calloc(1, sizeof(*cq));
	if (!cq)
		return -FI_ENOMEM;
	cq->cap = attr->size ? attr->size : 1024;
	cq->q = calloc(cq->cap, sizeof(*cq->q));
	if (!cq->q) {
		free(cq);
		return -FI_ENOMEM;
	}
	cq->domain = d;
	cq->format = attr->format == FI_CQ_FORMAT_UNSPEC ?
		     FI_CQ_FORMAT_CONTEXT : attr->format;
	cq->cq_fid.fid.fclass = FI_CLASS_CQ;
	cq->cq_fid.fid.context = context;
	cq->cq_fid.fid.ops = &sfi_cq_fi_ops;
	cq->cq_fid.ops = &sfi_cq_ops;
	pthread_mutex_lock(&d->lock);
	d->refs++;
	pthread_mutex_unlock(&d->lock);
	*cq_fid = &cq->cq_fid;
	return 0;
}

/* --- counters ------------------------------------------------------------ */
static uint64_t sfi_cntr_read(struct fid_cntr *f)
{
	struct sfi_cntr *c = container_of(f, struct sfi_cntr, cntr_fid);
	uint64_t v;

	pthread_mutex_lock(&c->domain->lock);
	sfi_progress_all(c->eps, c->neps);
	v = c->value;
	pthread_mutex_unlock(&c->domain->lock);
	return v;
}

static uint64_t sfi_cntr_readerr(struct fid_cntr *f)
{
	struct sfi_cntr *c = container_of(f, struct sfi_cntr, cntr_fid);
	uint64_t v;

	pthread_mutex_lock(&c->domain->lock);
	sfi_progress_all(c->eps, c->neps);
	v = c->err;
	pthread_mutex_unlock(&c->domain->lock);
	return v;
}

static int sfi_cntr_op(struct fid_cntr *f, uint64_t v, int err, int set)
{
	struct sfi_cntr *c = container_of(f, struct sfi_cntr, cntr_fid);
	uint64_t *p = err ? &c->err : &c->value;

	pthread_mutex_lock(&c->domain->lock);
	*p = set ? v : *p + v;
	pthread_mutex_unlock(&c->domain->lock);
	return 0;
}

static int sfi_cntr_add(struct fid_cntr *f, uint64_t v)
{
	return sfi_cntr_op(f, v, 0, 0);
}

static int sfi_cntr_set(struct fid_cntr *f, uint64_t v)
{
	return sfi_cntr_op(f, v, 0, 1);
}

static int sfi_cntr_adderr(struct fid_cntr *f, uint64_t v)
{
	return sfi_cntr_op(f, v, 1, 0);
}

static int sfi_cntr_seterr(struct fid_cntr *f, uint64_t v)
{
	return sfi_cntr_op(f, v, 1, 1);
}

static int sfi_cntr_wait(struct fid_cntr *f, uint64_t threshold, int timeout)
{
	struct sfi_cntr *c = container_of(f, struct sfi_cntr, cntr_fid);
	int64_t end = timeout < 0 ? -1 : sfi_now_ms() + timeout;
	uint64_t err0 = c->err;

	for (;;) {
		int done, failed;

		pthread_mutex_lock(&c->domain->lock);
		sfi_progress_all(c->eps, c->neps);
		done = c->value >= threshold;
		failed = c->err != err0;
		pthread_mutex_unlock(&c->domain->lock);
		if (done)
			return 0;
		if (failed)
			return -FI_EAVAIL;
		if (end >= 0 && sfi_now_ms() >= end)
			return -FI_ETIMEDOUT;
		sfi_wait(c->domain, c->eps, c->neps, 10000);
	}
}

static struct fi_ops_cntr sfi_cntr_ops = {
	.size = sizeof(struct fi_ops_cntr),
	.read = sfi_cntr_read,
	.readerr = sfi_cntr_readerr,
	.add = sfi_cntr_add,
	.set = sfi_cntr_set,
	.wait = sfi_cntr_wait,
	.adderr = sfi_cntr_adderr,
	.seterr = sfi_cntr_seterr,
};

static int sfi_cntr_close(struct fid *fid)
{
	struct sfi_cntr *c = container_of(fid, struct sfi_cntr, cntr_fid.fid);

	pthread_mutex_lock(&c->domain->lock);
	if (c->refs) {
		pthread_mutex_unlock(&c->domain->lock);
		return -FI_EBUSY;
	}
	c->domain->refs--;
	pthread_mutex_unlock(&c->domain->lock);
	free(c);
	return 0;
}

static struct fi_ops sfi_cntr_fi_ops = {
	.size = sizeof(struct fi_ops),
	.close = sfi_cntr_close,
	.bind = sfi_no_bind,
	.control = sfi_no_control,
	.ops_open = sfi_no_ops_open,
};

int sfi_cntr_open(struct fid_domain *domain, struct fi_cntr_attr *attr,
		  struct fid_cntr **cntr, void *context)
{
	struct sfi_domain *d = container_of(domain, struct sfi_domain,
					    domain_fid);
	struct sfi_cntr *c;

	if (attr && (attr->flags || (attr->events != FI_CNTR_EVENTS_COMP) ||
		     (attr->wait_obj != FI_WAIT_NONE &&
		      attr->wait_obj != FI_WAIT_UNSPEC)))
		return -FI_ENOSYS;
	c = calloc(1, sizeof(*c));
	if (!c)
		return -FI_ENOMEM;
	c->domain = d;
	c->cntr_fid.fid.fclass = FI_CLASS_CNTR;
	c->cntr_fid.fid.context = context;
	c->cntr_fid.fid.ops = &sfi_cntr_fi_ops;
	c->cntr_fid.ops = &sfi_cntr_ops;
	pthread_mutex_lock(&d->lock);
	d->refs++;
	pthread_mutex_unlock(&d->lock);
	*cntr = &c->cntr_fid;
	return 0;
}
