// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * av.c - address vectors. FI_AV_TABLE and FI_AV_MAP both hand out the
 * slot index as fi_addr_t (a map may use any value; an index keeps one
 * code path). An address is SFI_ADDRLEN bytes of NUL-padded text, so an
 * array of addresses has that stride.
 */
#include <stdlib.h>
#include <string.h>

#include "snode_fi.h"

int sfi_av_lookup_addr(struct sfi_av *av, fi_addr_t fa, struct sfi_addr *out)
{
	if (!av || fa >= av->n || !av->valid[fa])
		return -FI_EINVAL;
	*out = av->tab[fa];
	return 0;
}

fi_addr_t sfi_av_reverse(struct sfi_av *av, uint32_t node, uint32_t ep)
{
	size_t i;

	if (!av)
		return FI_ADDR_NOTAVAIL;
	for (i = 0; i < av->n; i++)
		if (av->valid[i] && av->tab[i].ep.node == node &&
		    av->tab[i].ep.id == ep)
			return i;
	return FI_ADDR_NOTAVAIL;
}

static int sfi_av_insert(struct fid_av *av_fid, const void *addr, size_t count,
			 fi_addr_t *fi_addr, uint64_t flags, void *context)
{
	struct sfi_av *av = container_of(av_fid, struct sfi_av, av_fid);
	const char *p = addr;
	size_t i;
	int ok = 0;

	if (flags || (count && !addr))
		return -FI_EINVAL;
	pthread_mutex_lock(&av->domain->lock);
	for (i = 0; i < count; i++, p += SFI_ADDRLEN) {
		struct sfi_addr a;

		if (sfi_addr_from_str(p, SFI_ADDRLEN, &a) ||
		    a.fabric != av->domain->fabric->fabric_id) {
			if (fi_addr)
				fi_addr[i] = FI_ADDR_NOTAVAIL;
			continue;
		}
		if (av->n == av->cap) {
			size_t cap = av->cap ? 2 * av->cap : 64;
			struct sfi_addr *t = realloc(av->tab, cap * sizeof(*t));
			char *v;

			if (!t)
				break;
			av->tab = t;
			v = realloc(av->valid, cap);
			if (!v)
				break;
			av->valid = v;
			av->cap = cap;
		}
		av->tab[av->n] = a;
		av->valid[av->n] = 1;
		if (fi_addr)
			fi_addr[i] = av->n;
		av->n++;
		ok++;
	}
	for (; i < count; i++)
		if (fi_addr)
			fi_addr[i] = FI_ADDR_NOTAVAIL;
	pthread_mutex_unlock(&av->domain->lock);
	return ok;
}

static int sfi_av_insertsvc(struct fid_av *av, const char *node,
			    const char *service, fi_addr_t *fi_addr,
			    uint64_t flags, void *context)
{
	char buf[SFI_ADDRLEN] = { 0 };

	if (!node || service || strlen(node) >= SFI_ADDRLEN)
		return -FI_EINVAL;
	memcpy(buf, node, strlen(node));
	return sfi_av_insert(av, buf, 1, fi_addr, flags, context);
}

static int sfi_av_insertsym(struct fid_av *av, const char *node, size_t nodecnt,
			    const char *service, size_t svccnt,
			    fi_addr_t *fi_addr, uint64_t flags, void *context)
{
	return -FI_ENOSYS;
}

static int sfi_av_remove(struct fid_av *av_fid, fi_addr_t *fi_addr,
			 size_t count, uint64_t flags)
{
	struct sfi_av *av = container_of(av_fid, struct sfi_av, av_fid);
	size_t i;
	int ret = 0;

	pthread_mutex_lock(&av->domain->lock);
	for (i = 0; i < count; i++) {
		if (fi_addr[i] >= av->n || !av->valid[fi_addr[i]])
			ret = -FI_EINVAL;
		else
			av->valid[fi_addr[i]] = 0;
	}
	pthread_mutex_unlock(&av->domain->lock);
	return ret;
}

static int sfi_av_lookup(struct fid_av *av_fid, fi_addr_t fa, void *addr,
			 size_t *addrlen)
{
	struct sfi_av *av = container_of(av_fid, struct sfi_av, av_fid);
	char buf[SFI_ADDRLEN];
	struct sfi_addr a;
	int ret;

	pthread_mutex_lock(&av->domain->lock);
	ret = sfi_av_lookup_addr(av, fa, &a);
	pthread_mutex_unlock(&av->domain->lock);
	if (ret)
		return ret;
	sfi_addr_to_str(&a, buf, sizeof(buf));
	memcpy(addr, buf, *addrlen < SFI_ADDRLEN ? *addrlen : SFI_ADDRLEN);
	*addrlen = SFI_ADDRLEN;
	return 0;
}

static const char *sfi_av_straddr(struct fid_av *av, const void *addr,
				  char *buf, size_t *len)
{
	size_t n = strnlen(addr, SFI_ADDRLEN);

	if (*len) {
		size_t c = n < *len - 1 ? n : *len - 1;

		memcpy(buf, addr, c);
		buf[c] = 0;
	}
	*len = n + 1;
	return buf;
}

static int sfi_av_set(struct fid_av *av, struct fi_av_set_attr *attr,
		      struct fid_av_set **av_set, void *context)
{
	return -FI_ENOSYS;
}

static struct fi_ops_av sfi_av_ops = {
	.size = sizeof(struct fi_ops_av),
	.insert = sfi_av_insert,
	.insertsvc = sfi_av_insertsvc,
	.insertsym = sfi_av_insertsym,
	.remove = sfi_av_remove,
	.lookup = sfi_av_lookup,
	.straddr = sfi_av_straddr,
	.av_set = sfi_av_set,
};

static int sfi_av_close(struct fid *fid)
{
	struct sfi_av *av = container_of(fid, struct sfi_av, av_fid.fid);

	pthread_mutex_lock(&av->domain->lock);
	if (av->refs) {
		pthread_mutex_unlock(&av->domain->lock);
		return -FI_EBUSY;
	}
	av->domain->refs--;
	pthread_mutex_unlock(&av->domain->lock);
	free(av->tab);
	free(av->valid);
	free(av);
	return 0;
}

static struct fi_ops sfi_av_fi_ops = {
	.size = sizeof(struct fi_ops),
	.close = sfi_av_close,
	.bind = sfi_no_bind,
	.control = sfi_no_control,
	.ops_open = sfi_no_ops_open,
};

int sfi_av_open(struct fid_domain *domain, struct fi_av_attr *attr,
		struct fid_av **av_fid, void *context)
{
	struct sfi_domain *d = container_of(domain, struct sfi_domain,
					    domain_fid);
	struct sfi_av *av;

	if (!attr || (attr->flags & ~(uint64_t)FI_SYMMETRIC) || attr->name ||
	    attr->rx_ctx_bits)
		return -FI_EINVAL;
	if (attr->type != FI_AV_UNSPEC && attr->type != FI_AV_TABLE &&
	    attr->type != FI_AV_MAP)
		return -FI_EINVAL;
	av = calloc(1, sizeof(*av));
	if (!av)
		return -FI_ENOMEM;
	av->domain = d;
	av->type = attr->type == FI_AV_UNSPEC ? FI_AV_TABLE : attr->type;
	av->av_fid.fid.fclass = FI_CLASS_AV;
	av->av_fid.fid.context = context;
	av->av_fid.fid.ops = &sfi_av_fi_ops;
	av->av_fid.ops = &sfi_av_ops;
	pthread_mutex_lock(&d->lock);
	d->refs++;
	pthread_mutex_unlock(&d->lock);
	*av_fid = &av->av_fid;
	return 0;
}
