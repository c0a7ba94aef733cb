// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * init.c - the provider's entry point (fi_prov_ini), its runtime
 * parameters, fi_getinfo with hints filtering, the address text form and
 * the errno mapping.
 */
#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "snode_fi.h"

struct sfi_params sfi_params = {
	.max_msg_size = 16 << 20,
	.rx_entries = 4096,
	.send_timeout_ms = 10000,
	.rdv_threshold = 256,
	.rdv_pool = 16 << 20,
	.rdv_dma_min = 0,	/* memcpy(): faster under TCG, decision 0034 */
	.rdv_chunk = 64 << 10,
	.idle_wait_us = 0,	/* spin, as a core of one's own allows */
	.unexp_max = 16 << 20,
	.ring_size = 128 << 10,
	.ring_eager = 16 << 10,
	.mr_export = 1,
	.stats = 0,
};

int sfi_addr_to_str(const struct sfi_addr *a, char *buf, size_t len)
{
	char tmp[SFI_ADDRLEN];
	int n;

	n = snprintf(tmp, sizeof(tmp), "fi_snode://%" PRIu32 ":%" PRIu32 ":%"
		     PRIu32 ":%016" PRIx64, a->fabric, a->ep.node, a->ep.id,
		     (uint64_t)a->ep.key);
	if (n < 0 || (size_t)n >= sizeof(tmp))
		return -FI_EINVAL;
	if (len < SFI_ADDRLEN)
		return -FI_ETOOSMALL;
	memset(buf, 0, SFI_ADDRLEN);
	memcpy(buf, tmp, n);
	return 0;
}

int sfi_addr_from_str(const void *str, size_t len, struct sfi_addr *a)
{
	char tmp[SFI_ADDRLEN + 1];
	unsigned int f, node, id;
	uint64_t key;
	char end;

	if (!str || !len)
		return -FI_EINVAL;
	if (len > SFI_ADDRLEN)
		len = SFI_ADDRLEN;
	memcpy(tmp, str, len);
	tmp[len] = 0;
	if (sscanf(tmp, "fi_snode://%u:%u:%u:%" SCNx64 "%c", &f, &node, &id,
		   &key, &end) != 4)
		return -FI_EINVAL;
	a->fabric = f;
	a->ep.node = node;
	a->ep.id = id;
	a->ep.key = key;
	return 0;
}

int sfi_errno(int e)
{
	switch (-e) {
	case 0: return 0;
	case EAGAIN: return -FI_EAGAIN;
	case ENXIO: return -FI_EADDRNOTAVAIL;	/* no such endpoint */
	case EKEYREJECTED: return -FI_EACCES;
	case EHOSTUNREACH: return -FI_EHOSTUNREACH;
	case ETIMEDOUT: return -FI_ETIMEDOUT;
	case ENOLINK: return -FI_ENETDOWN;
	case EINVAL: return -FI_EINVAL;
	case ENOMEM: return -FI_ENOMEM;
	case ENOENT: case ENODEV: return -FI_ENODEV;
	case EPERM: case EACCES: return -FI_EPERM;
	case ECONNRESET: return -FI_ECONNRESET;
	case EMFILE: case ENOSPC: return -FI_ENOSPC;
	case EMSGSIZE: return -FI_EMSGSIZE;
	case EINTR: return -FI_EINTR;
	default: return -FI_EIO;
	}
}

/*
 * FI_MR_LOCAL where the application says it can (decision 0048): it then
 * registers its buffers and passes their descriptors, and its large sends
 * take the zero copy of decision 0045 instead of the bounce. The provider
 * never needs a descriptor, so offering the bit only tells the application
 * that registering pays; one that did not set it gets mr_mode 0, as ever.
 * The v1.0 modes (FI_MR_BASIC, FI_MR_SCALABLE) exclude every other bit,
 * and before API 1.5 mr_mode was one of them, not a set of bits.
 */
static int sfi_mr_mode(uint32_t version, const struct fi_info *hints)
{
	int asked;

	if (FI_VERSION_LT(version, FI_VERSION(1, 5)) || !hints ||
	    !hints->domain_attr)
		return 0;
	asked = hints->domain_attr->mr_mode;
	if (asked & (FI_MR_BASIC | FI_MR_SCALABLE))
		return 0;
	return asked & FI_MR_LOCAL;
}

/* One fi_info for one NIC, from the hints (NULL: everything). */
static struct fi_info *sfi_info_new(uint32_t version,
				    const struct fi_info *hints,
				    struct snode_dev *dev,
				    const struct snode_dev_status *st)
{
	struct fi_info *fi = fi_allocinfo();
	char name[64];

	if (!fi)
		return NULL;
	fi->caps = hints && hints->caps ? hints->caps : SFI_CAPS;
	fi->mode = 0;
	fi->addr_format = FI_ADDR_STR;

	fi->tx_attr->caps = fi->caps & ~(FI_RECV | FI_DIRECTED_RECV);
	fi->tx_attr->msg_order = FI_ORDER_SAS;
	fi->tx_attr->comp_order = FI_ORDER_STRICT;
	fi->tx_attr->inject_size = 4096;
	fi->tx_attr->size = 1024;
	fi->tx_attr->iov_limit = SFI_IOV_LIMIT;
	fi->tx_attr->rma_iov_limit = 1;

	fi->rx_attr->caps = fi->caps & ~FI_SEND;
	fi->rx_attr->msg_order = FI_ORDER_SAS;
	fi->rx_attr->comp_order = FI_ORDER_STRICT;
	fi->rx_attr->total_buffered_recv = 0;
	fi->rx_attr->size = 1024;
	fi->rx_attr->iov_limit = SFI_IOV_LIMIT;

	fi->ep_attr->type = FI_EP_RDM;
	fi->ep_attr->protocol = FI_PROTO_UNSPEC;
	fi->ep_attr->protocol_version = 1;
	fi->ep_attr->max_msg_size = sfi_params.max_msg_size;
	fi->ep_attr->msg_prefix_size = 0;
	fi->ep_attr->max_order_raw_size = 0;
	fi->ep_attr->max_order_war_size = 0;
	fi->ep_attr->max_order_waw_size = 0;
	/* Tags are matched on all 64 bits: a hint's format is met as asked,
	 * else one field of 64 bits. OpenMPI's mtl ofi counts the usable bits
	 * from the top; 0 would leave it none for its communicator id. */
	fi->ep_attr->mem_tag_format = hints && hints->ep_attr &&
		hints->ep_attr->mem_tag_format ?
		hints->ep_attr->mem_tag_format : SFI_TAG_FORMAT;
	fi->ep_attr->tx_ctx_cnt = 1;
	fi->ep_attr->rx_ctx_cnt = 1;

	fi->domain_attr->name = strdup(snode_dev_get_name(dev));
	fi->domain_attr->threading = FI_THREAD_SAFE;
	fi->domain_attr->control_progress = FI_PROGRESS_MANUAL;
	fi->domain_attr->data_progress = FI_PROGRESS_MANUAL;
	fi->domain_attr->resource_mgmt = FI_RM_ENABLED;
	fi->domain_attr->av_type = hints && hints->domain_attr &&
		hints->domain_attr->av_type != FI_AV_UNSPEC ?
		hints->domain_attr->av_type : FI_AV_TABLE;
	fi->domain_attr->mr_mode = sfi_mr_mode(version, hints);
	fi->domain_attr->mr_key_size = 8;
	fi->domain_attr->cq_data_size = SFI_CQ_DATA_SIZE;
	fi->domain_attr->cq_cnt = 64;
	fi->domain_attr->ep_cnt = 32;
	fi->domain_attr->tx_ctx_cnt = 32;
	fi->domain_attr->rx_ctx_cnt = 32;
	fi->domain_attr->max_ep_tx_ctx = 1;
	fi->domain_attr->max_ep_rx_ctx = 1;
	fi->domain_attr->cntr_cnt = 64;
	fi->domain_attr->mr_iov_limit = 1;
	fi->domain_attr->caps = FI_LOCAL_COMM | FI_REMOTE_COMM;
	fi->domain_attr->mr_cnt = 1024;

	snprintf(name, sizeof(name), "snode-fabric%" PRIu32, st->fabric_id);
	fi->fabric_attr->name = strdup(name);
	fi->fabric_attr->prov_version = SFI_PROV_VERSION;
	if (!fi->domain_attr->name || !fi->fabric_attr->name) {
		fi_freeinfo(fi);
		return NULL;
	}
	return fi;
}

/* hints the provider cannot meet; a warning says which */
static int sfi_hints_ok(const struct fi_info *h, struct snode_dev *dev,
			uint32_t fabric_id)
{
	char name[64];

#define SFI_NO(why) do { \
		FI_WARN(&sfi_prov, FI_LOG_CORE, \
			"%s: hints ask for %s: not offered (fi_snode(7))\n", \
			snode_dev_get_name(dev), why); \
		return 0; \
	} while (0)
	if (!h)
		return 1;
	if (h->caps & ~(uint64_t)SFI_CAPS)
		SFI_NO("capabilities the provider does not have");
	if (h->addr_format != FI_FORMAT_UNSPEC && h->addr_format != FI_ADDR_STR)
		SFI_NO("address format other than FI_ADDR_STR");
	if (h->ep_attr) {
		if (h->ep_attr->type != FI_EP_UNSPEC &&
		    h->ep_attr->type != FI_EP_RDM)
			SFI_NO("endpoint type other than FI_EP_RDM");
		if (h->ep_attr->max_msg_size > sfi_params.max_msg_size)
			SFI_NO("max_msg_size");
		if (h->ep_attr->msg_prefix_size)
			SFI_NO("message prefix");
		if (h->ep_attr->tx_ctx_cnt > 1 || h->ep_attr->rx_ctx_cnt > 1)
			SFI_NO("more than one context per endpoint");
		if (h->ep_attr->auth_key_size)
			SFI_NO("authorization keys");
	}
	if (h->tx_attr) {
		if (h->tx_attr->iov_limit > SFI_IOV_LIMIT)
			SFI_NO("tx iov_limit");
		if (h->tx_attr->inject_size > 4096)
			SFI_NO("inject_size");
		if (h->tx_attr->msg_order & ~(uint64_t)FI_ORDER_SAS)
			SFI_NO("tx msg_order beyond FI_ORDER_SAS");
		if (h->tx_attr->rma_iov_limit > 1)
			SFI_NO("rma_iov_limit");
	}
	if (h->rx_attr) {
		if (h->rx_attr->iov_limit > SFI_IOV_LIMIT)
			SFI_NO("rx iov_limit");
		if (h->rx_attr->msg_order & ~(uint64_t)FI_ORDER_SAS)
			SFI_NO("rx msg_order beyond FI_ORDER_SAS");
		if (h->rx_attr->total_buffered_recv > 0 &&
		    h->rx_attr->total_buffered_recv > sfi_params.max_msg_size)
			SFI_NO("total_buffered_recv");
	}
	if (h->domain_attr) {
		const struct fi_domain_attr *d = h->domain_attr;

		if (d->name && strcmp(d->name, snode_dev_get_name(dev)))
			SFI_NO("another domain name");
		if (d->data_progress == FI_PROGRESS_AUTO)
			SFI_NO("automatic data progress");
		if (d->av_type != FI_AV_UNSPEC && d->av_type != FI_AV_TABLE &&
		    d->av_type != FI_AV_MAP)
			SFI_NO("av_type");
		if (d->cq_data_size > SFI_CQ_DATA_SIZE)
			SFI_NO("cq_data_size");
		if (d->max_ep_tx_ctx > 1 || d->max_ep_rx_ctx > 1)
			SFI_NO("several contexts per endpoint");
	}
	if (h->fabric_attr) {
		snprintf(name, sizeof(name), "snode-fabric%" PRIu32, fabric_id);
		if (h->fabric_attr->name && strcmp(h->fabric_attr->name, name))
			SFI_NO("another fabric name");
		if (h->fabric_attr->prov_name &&
		    !strstr(h->fabric_attr->prov_name, SFI_PROV_NAME))
			SFI_NO("another provider");
	}
	if (h->nic)
		SFI_NO("fid_nic");
	return 1;
#undef SFI_NO
}

static int sfi_copy_addr(void **dst, size_t *dlen, const struct sfi_addr *a)
{
	*dst = calloc(1, SFI_ADDRLEN);
	if (!*dst)
		return -FI_ENOMEM;
	*dlen = SFI_ADDRLEN;
	return sfi_addr_to_str(a, *dst, SFI_ADDRLEN);
}

static int sfi_getinfo(uint32_t version, const char *node, const char *service,
		       uint64_t flags, const struct fi_info *hints,
		       struct fi_info **info)
{
	struct fi_info *head = NULL, **tail = &head, *fi;
	struct snode_ctx *ctx;
	struct snode_dev *dev;
	struct sfi_addr src, dst;
	int have_src = 0, have_dst = 0, ret;

	*info = NULL;
	if (node || service) {
		struct sfi_addr *a = flags & FI_SOURCE ? &src : &dst;

		/* only our own address form names an endpoint */
		if (!node || sfi_addr_from_str(node, strlen(node) + 1, a)) {
			FI_WARN(&sfi_prov, FI_LOG_CORE,
				"node \"%s\", service \"%s\": not an fi_snode:// address\n",
				node ? node : "", service ? service : "");
			return -FI_ENODATA;
		}
		if (flags & FI_SOURCE)
			have_src = 1;
		else
			have_dst = 1;
	}
	if (hints && hints->src_addr) {
		if (hints->addr_format != FI_ADDR_STR ||
		    sfi_addr_from_str(hints->src_addr, hints->src_addrlen, &src)) {
			FI_WARN(&sfi_prov, FI_LOG_CORE,
				"hints: src_addr is not an FI_ADDR_STR fi_snode:// address\n");
			return -FI_ENODATA;
		}
		have_src = 1;
	}
	if (hints && hints->dest_addr) {
		if (hints->addr_format != FI_ADDR_STR ||
		    sfi_addr_from_str(hints->dest_addr, hints->dest_addrlen, &dst)) {
			FI_WARN(&sfi_prov, FI_LOG_CORE,
				"hints: dest_addr is not an FI_ADDR_STR fi_snode:// address\n");
			return -FI_ENODATA;
		}
		have_dst = 1;
	}

	ret = snode_new(&ctx);
	if (ret < 0)
		return -FI_ENODATA;
	snode_dev_foreach(ctx, dev) {
		struct snode_dev_status st;

		if (snode_dev_get_status(dev, &st, sizeof(st)) < 0)
			continue;
		if (st.node_id == SNODE_NODE_ID_NONE) {
			FI_WARN(&sfi_prov, FI_LOG_CORE,
				"%s: not attached to a fabric: not offered\n",
				snode_dev_get_name(dev));
			continue;	/* nothing to reach */
		}
		if (!sfi_hints_ok(hints, dev, st.fabric_id))
			continue;
		if (have_src && (src.fabric != st.fabric_id ||
				 src.ep.node != st.node_id)) {
			FI_WARN(&sfi_prov, FI_LOG_CORE,
				"%s: the source address names fabric %u node %u, not this NIC's\n",
				snode_dev_get_name(dev), src.fabric, src.ep.node);
			continue;
		}
		fi = sfi_info_new(version, hints, dev, &st);
		if (!fi) {
			ret = -FI_ENOMEM;
			goto err;
		}
		if ((have_src &&
		     sfi_copy_addr(&fi->src_addr, &fi->src_addrlen, &src)) ||
		    (have_dst &&
		     sfi_copy_addr(&fi->dest_addr, &fi->dest_addrlen, &dst))) {
			fi_freeinfo(fi);
			ret = -FI_ENOMEM;
			goto err;
		}
		*tail = fi;
		tail = &fi->next;
	}
	snode_unref(ctx);
	if (!head)
		return -FI_ENODATA;
	*info = head;
	return 0;
err:
	snode_unref(ctx);
	fi_freeinfo(head);
	return ret;
}

static void sfi_cleanup(void)
{
}

struct fi_provider sfi_prov = {
	.name = SFI_PROV_NAME,
	.version = SFI_PROV_VERSION,
	.fi_version = SFI_FI_VERSION,
	.getinfo = sfi_getinfo,
	.fabric = sfi_fabric_open,
	.cleanup = sfi_cleanup,
};

/*
 * The runtime parameters (FI_SNODE_<NAME>), each with its accepted range. A
 * value outside it is refused with a warning and the default kept.
 */
static const struct sfi_param_def {
	const char *name, *help;
	size_t *sz;		/* an FI_PARAM_SIZE_T parameter, or */
	int *i;			/* an FI_PARAM_INT one */
	unsigned long long min, max;
	bool pow2;
} sfi_param_defs[] = {
	{ "max_msg_size", "Largest message, bytes",
	  &sfi_params.max_msg_size, NULL, 1, SIZE_MAX, false },
	{ "rx_entries", "Message slots of each endpoint's receive ring, a power of two from 2 to 4096",
	  NULL, &sfi_params.rx_entries, 2, 4096, true },
	{ "send_timeout_ms", "How long a message being sent waits for room at the receiver, ms",
	  NULL, &sfi_params.send_timeout_ms, 1, INT_MAX, false },
	{ "rdv_threshold", "Sends larger than this go by rendezvous through the sender's exported bounce region, bytes",
	  &sfi_params.rdv_threshold, NULL, 0, SIZE_MAX, false },
	/* slot offsets travel as 32 bits */
	{ "rdv_pool", "Pool memory an endpoint exports as its bounce region for rendezvous and RMA, bytes, at most 2 GiB",
	  &sfi_params.rdv_pool, NULL, 1, 1ULL << 31, false },
	{ "rdv_dma_min", "Rendezvous copies from this size on use the NIC's DMA engine, smaller ones memcpy() through the window, bytes; 0: never",
	  &sfi_params.rdv_dma_min, NULL, 0, SIZE_MAX, false },
	{ "rdv_chunk", "Rendezvous sends larger than this announce themselves first and copy into the bounce region in chunks of this many bytes, which the receiver pulls as they are filled, bytes; 0: copy the whole message first",
	  &sfi_params.rdv_chunk, NULL, 0, SIZE_MAX, false },
	{ "idle_wait_us", "Once a completion queue has found nothing for this many microseconds (and 64 reads), each read that finds nothing sleeps until a message arrives or this long passes, freeing the CPU; 0 (default): never sleep",
	  NULL, &sfi_params.idle_wait_us, 0, 1000000, false },
	{ "unexp_max", "Bytes of unexpected messages an endpoint buffers before it leaves the rest in the NIC's ring",
	  &sfi_params.unexp_max, NULL, 1, SIZE_MAX, false },
	{ "ring_size", "Bytes of the ring in its own memory an endpoint offers each peer it sends to, a power of two up to 16 MiB; 0 (or less than 4096): no rings, every message through the NIC",
	  &sfi_params.ring_size, NULL, 0, 16 << 20, true },
	{ "ring_eager", "Sends through a ring up to this many bytes (at most a quarter of ring_size) are one entry in it, larger ones go by rendezvous, bytes",
	  &sfi_params.ring_eager, NULL, 0, 4 << 20, false },
	{ "mr_export", "1 (default): registrations are exported (host memory, pinned) to the nodes of peers that send from them or read and write them, which then move the bytes without a bounce copy; 0: every rendezvous and RMA byte goes through the bounce regions",
	  NULL, &sfi_params.mr_export, 0, 1, false },
	{ "stats", "1: each domain prints its counters (fi_ext_snode.h's snode_stats) as one line on standard error when it is closed, for programs that cannot read them with fi_open_ops(); 0 (default): silent",
	  NULL, &sfi_params.stats, 0, 1, false },
};

static void sfi_param_get(const struct sfi_param_def *d)
{
	unsigned long long v;
	char env[32];
	size_t sz, k;
	int i;

	/* the variable's name, for the warnings */
	for (k = 0; d->name[k] && k < sizeof(env) - 1; k++)
		env[k] = toupper((unsigned char)d->name[k]);
	env[k] = 0;

	if (d->sz) {
		if (fi_param_get_size_t(&sfi_prov, d->name, &sz))
			return;
		v = sz;
	} else {
		if (fi_param_get_int(&sfi_prov, d->name, &i))
			return;
		if (i < 0) {
			FI_WARN(&sfi_prov, FI_LOG_CORE,
				"FI_SNODE_%s: %d is not in %llu..%llu; %d kept\n",
				env, i, d->min, d->max, *d->i);
			return;
		}
		v = i;
	}
	if (v < d->min || v > d->max || (d->pow2 && (v & (v - 1)))) {
		FI_WARN(&sfi_prov, FI_LOG_CORE,
			"FI_SNODE_%s: %llu is not %s %llu..%llu; %llu kept\n",
			env, v, d->pow2 ? "a power of two in" : "in",
			d->min, d->max,
			d->sz ? (unsigned long long)*d->sz : (unsigned long long)*d->i);
		return;
	}
	if (d->sz)
		*d->sz = v;
	else
		*d->i = v;
}

FI_EXT_INI
{
	const struct sfi_param_def *d;

	for (d = sfi_param_defs;
	     d < sfi_param_defs + sizeof(sfi_param_defs) / sizeof(*d); d++) {
		if (d->sz)
			fi_param_define(&sfi_prov, d->name, FI_PARAM_SIZE_T,
					"%s (default %zu)", d->help, *d->sz);
		else
			fi_param_define(&sfi_prov, d->name, FI_PARAM_INT,
					"%s (default %d)", d->help, *d->i);
		sfi_param_get(d);
	}
	return &sfi_prov;
}
