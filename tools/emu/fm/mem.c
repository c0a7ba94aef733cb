// SPDX-License-Identifier: GPL-2.0
/*
 * DOC: mem.c - memory files, export tables and grants
 *
 * Every node's pool is a sparse file /dev/shm/snode-<fabric>-<pid>-node<N>
 * of the pool size. The export tables here are authoritative: a device
 * keeps its own copy for EXPORT_QUERY, but only what the fm holds can be
 * granted. A grant records (importer, att_index) -> (exporter, export id,
 * range); it lives until the importer releases it or the fm revokes it
 * (export cleared, exporter dead or reset, no path left).
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fm.h"

#define SHM_DIR "/dev/shm"

int fm_mem_create(struct fm_fabric *f, uint32_t pid)
{
	uint32_t i;

	for (i = 0; i < FM_MAX_NODES; i++) {
		struct fm_node *n = f->node[i];
		char path[SNODE_FM_PATH_MAX];

		if (!n)
			continue;
		snprintf(path, sizeof(path), SHM_DIR "/snode-%u-%u-node%u",
			 f->fabric_id, pid, i);
		n->memfd = open(path, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
		if (n->memfd < 0) {
			int err = -errno;

			fm_log("%s: %s", path, strerror(errno));
			return err;
		}
		memcpy(n->path, path, sizeof(path));
		if (ftruncate(n->memfd, n->pool_size)) {
			int err = -errno;

			fm_log("%s: ftruncate: %s", path, strerror(errno));
			return err;
		}
	}
	f->memfiles = true;
	return 0;
}

void fm_mem_destroy(struct fm_fabric *f)
{
	uint32_t i;

	for (i = 0; i < FM_MAX_NODES; i++) {
		struct fm_node *n = f->node[i];

		if (!n)
			continue;
		if (n->memfd >= 0)
			close(n->memfd);
		n->memfd = -1;
		if (n->path[0])
			unlink(n->path);
		n->path[0] = 0;
	}
}

/* Memory files of fm processes that no longer exist (SIGKILLed). */
void fm_mem_clean_stale(void)
{
	DIR *d = opendir(SHM_DIR);
	struct dirent *de;

	if (!d)
		return;
	while ((de = readdir(d))) {
		unsigned int fabric, pid, node;
		char path[512];
		int end = 0;

		if (sscanf(de->d_name, "snode-%u-%u-node%u%n", &fabric, &pid,
			   &node, &end) != 3 || de->d_name[end])
			continue;
		if (!pid || kill(pid, 0) == 0 || errno != ESRCH)
			continue;
		snprintf(path, sizeof(path), SHM_DIR "/%s", de->d_name);
		if (!unlink(path))
			fm_log("removed stale %s", path);
	}
	closedir(d);
}

const char *fm_status_name(uint32_t st)
{
	switch (st) {
	case SNODE_FM_OK:		return "ok";
	case SNODE_FM_EINVAL:		return "invalid field";
	case SNODE_FM_ENORES:		return "no resource";
	case SNODE_FM_EBADKEY:		return "bad key";
	case SNODE_FM_ENOTALLOWED:	return "not allowed";
	case SNODE_FM_EREADONLY:	return "read only";
	case SNODE_FM_ENOEXPORT:	return "no export";
	case SNODE_FM_EUNREACH:		return "unreachable";
	case SNODE_FM_EBUSY:		return "busy";
	case SNODE_FM_EINTERNAL:	return "internal";
	case SNODE_FM_ETIMEOUT:		return "timeout";
	case SNODE_FM_ERANGE:		return "out of range";
	case SNODE_FM_EQFULL:		return "queue full";
	case SNODE_FM_ENOEP:		return "no endpoint";
	default:			return "?";
	}
}

/*
 * A host export (decision 0037): nseg runs of a RAM file the VM runner
 * created, named SNODE_FM_RAM_PREFIX* directly under /dev/shm (a device
 * must not make its peers map any other file), each page aligned and
 * inside the file, adding up to the export's length.
 */
static int host_export_check(const struct fm_export *e)
{
	const char *name = e->path + strlen("/dev/shm/");
	uint64_t sum = 0;
	struct stat st;
	uint32_t i;
	int fd;

	if (e->offset || e->nseg > SNODE_FM_MAX_SEGS ||
	    strncmp(e->path, SNODE_FM_RAM_PREFIX, strlen(SNODE_FM_RAM_PREFIX)) ||
	    strchr(name, '/'))
		return SNODE_FM_EINVAL;
	fd = open(e->path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
		return SNODE_FM_EINVAL;
	if (fstat(fd, &st) || !S_ISREG(st.st_mode)) {
		close(fd);
		return SNODE_FM_EINVAL;
	}
	close(fd);
	for (i = 0; i < e->nseg; i++) {
		uint64_t o = e->seg[i].offset, l = e->seg[i].len;

		if (!l || ((o | l) & (FM_PAGE - 1)) || sum + l < sum)
			return SNODE_FM_EINVAL;
		if (o >= (uint64_t)st.st_size || l > (uint64_t)st.st_size - o)
			return SNODE_FM_ERANGE;
		sum += l;
	}
	return sum == e->len ? SNODE_FM_OK : SNODE_FM_EINVAL;
}

/* Validate an export for node n; the SNODE_FM_* status. */
int fm_export_set(struct fm_fabric *f, struct fm_node *n, uint32_t id,
		  const struct fm_export *e)
{
	size_t size = sizeof(*e) + (size_t)e->nseg * sizeof(e->seg[0]);
	int st;

	(void)f;
	if (id >= FM_MAX_EXPORTS)
		return SNODE_FM_EINVAL;
	if (!(e->perm & SNODE_FM_PERM_READ) ||
	    (e->perm & ~(SNODE_FM_PERM_READ | SNODE_FM_PERM_WRITE)))
		return SNODE_FM_EINVAL;
	if (!e->len || ((e->offset | e->len) & (FM_PAGE - 1)))
		return SNODE_FM_EINVAL;
	if (e->nseg) {
		st = host_export_check(e);
		if (st)
			return st;
	}
	if (n->exports[id])
		return SNODE_FM_EBUSY;
	if (!e->nseg &&
	    (e->offset >= n->pool_size || e->len > n->pool_size - e->offset))
		return SNODE_FM_ERANGE;
	n->exports[id] = malloc(size);
	if (!n->exports[id])
		return SNODE_FM_ENORES;
	memcpy(n->exports[id], e, size);
	return SNODE_FM_OK;
}

/*
 * The runs of host export @e that [offset, offset + len) covers, into
 * r->seg (room for SNODE_FM_MAX_SEGS; the range lies inside @e).
 */
static void host_grant_segs(const struct fm_export *e, uint64_t offset,
			    uint64_t len, struct snode_fm_grant_reply *r)
{
	uint32_t i;

	r->nseg = 0;
	for (i = 0; i < e->nseg && len; i++) {
		uint64_t l = e->seg[i].len, take;

		if (offset >= l) {
			offset -= l;
			continue;
		}
		take = l - offset < len ? l - offset : len;
		r->seg[r->nseg].offset = e->seg[i].offset + offset;
		r->seg[r->nseg].len = take;
		r->nseg++;
		len -= take;
		offset = 0;
	}
}

static void grant_remove(struct fm_fabric *f, uint32_t i)
{
	f->grants[i] = f->grants[--f->ngrants];
}

/* Revoke every grant onto export (node, id); the number revoked. */
uint32_t fm_export_revoke(struct fm_fabric *f, uint32_t node, uint32_t id,
			  uint32_t reason)
{
	uint32_t i, cnt = 0;

	for (i = f->ngrants; i-- > 0;) {
		struct fm_grant g = f->grants[i];

		if (g.exporter != node || g.export_id != id)
			continue;
		grant_remove(f, i);
		fm_emit_revoke(f, g.importer, g.att_index, reason);
		cnt++;
	}
	return cnt;
}

int fm_export_clear(struct fm_fabric *f, struct fm_node *n, uint32_t id,
		    uint32_t reason, uint32_t *revoked)
{
	*revoked = 0;
	if (id >= FM_MAX_EXPORTS)
		return SNODE_FM_EINVAL;
	if (!n->exports[id])
		return SNODE_FM_ENOEXPORT;
	*revoked = fm_export_revoke(f, n->id, id, reason);
	free(n->exports[id]);
	n->exports[id] = NULL;
	return SNODE_FM_OK;
}

void fm_exports_drop(struct fm_fabric *f, struct fm_node *n, uint8_t reason)
{
	uint32_t id, r;

	for (id = 0; id < FM_MAX_EXPORTS; id++)
		if (n->exports[id])
			fm_export_clear(f, n, id, reason, &r);
}

uint32_t fm_export_importers(const struct fm_fabric *f, uint32_t node,
			     uint32_t id)
{
	uint32_t i, cnt = 0;

	for (i = 0; i < f->ngrants; i++)
		cnt += f->grants[i].exporter == node && f->grants[i].export_id == id;
	return cnt;
}

/*
 * The contract's order (Documentation/hw/snode-nic.rst section 6):
 * NO_EXPORT, BAD_KEY, NOT_ALLOWED, READ_ONLY, OUT_OF_RANGE; then
 * UNREACHABLE, which only the fabric can know.
 */
int fm_grant_check(const struct fm_fabric *f, uint32_t importer,
		   uint32_t exporter, uint32_t export_id, uint64_t key,
		   uint32_t perm, uint64_t offset, uint64_t len)
{
	const struct fm_node *x = fm_node_get(f, exporter);
	const struct fm_export *e;

	if (!x || export_id >= FM_MAX_EXPORTS || !x->exports[export_id] ||
	    x->life != FM_LIFE_UP)
		return SNODE_FM_ENOEXPORT;
	e = x->exports[export_id];
	if (e->key != key)
		return SNODE_FM_EBADKEY;
	if (!e->all_nodes && (importer >= FM_MAX_NODES ||
			      !(e->nodemask[importer / 8] & (1 << (importer % 8)))))
		return SNODE_FM_ENOTALLOWED;
	if ((perm & SNODE_FM_PERM_WRITE) && !(e->perm & SNODE_FM_PERM_WRITE))
		return SNODE_FM_EREADONLY;
	if (!len || offset >= e->len || len > e->len - offset)
		return SNODE_FM_ERANGE;
	if (!fm_reachable(f, importer, exporter))
		return SNODE_FM_EUNREACH;
	return SNODE_FM_OK;
}

static int grant_find(const struct fm_fabric *f, uint32_t importer,
		      uint32_t att_index)
{
	uint32_t i;

	for (i = 0; i < f->ngrants; i++)
		if (f->grants[i].importer == importer &&
		    f->grants[i].att_index == att_index)
			return i;
	return -1;
}

/*
 * GRANT from importer: check, record, fill the reply (room for
 * SNODE_FM_MAX_SEGS runs after it); the status.
 */
int fm_grant_take(struct fm_fabric *f, uint32_t importer,
		  const struct snode_fm_grant *g, struct snode_fm_grant_reply *r)
{
	const struct fm_node *x;
	const struct fm_export *e;
	struct fm_grant *ng;
	int st, old;

	r->att_index = g->att_index;
	st = fm_grant_check(f, importer, g->node, g->export_id, g->key,
			    g->perm, g->offset, g->len);
	if (st)
		return st;
	x = fm_node_get(f, g->node);
	e = x->exports[g->export_id];
	/* a device re-using an ATT index without GRANT_RELEASE replaces it */
	old = grant_find(f, importer, g->att_index);
	if (old >= 0) {
		ng = &f->grants[old];
	} else {
		if (f->ngrants == f->grants_cap) {
			uint32_t cap = f->grants_cap ? f->grants_cap * 2 : 64;
			void *p = realloc(f->grants, cap * sizeof(*f->grants));

			if (!p)
				return SNODE_FM_ENORES;
			f->grants = p;
			f->grants_cap = cap;
		}
		ng = &f->grants[f->ngrants++];
	}
	ng->importer = importer;
	ng->att_index = g->att_index;
	ng->exporter = g->node;
	ng->export_id = g->export_id;
	ng->perm = g->perm;
	ng->offset = g->offset;
	ng->len = g->len;
	r->len = g->len;
	if (e->nseg) {
		r->file_offset = 0;
		host_grant_segs(e, g->offset, g->len, r);
		snprintf(r->path, sizeof(r->path), "%s", e->path);
	} else {
		r->file_offset = e->offset + g->offset;
		snprintf(r->path, sizeof(r->path), "%s", x->path);
	}
	return SNODE_FM_OK;
}

void fm_grant_release(struct fm_fabric *f, uint32_t importer,
		      uint32_t att_index)
{
	int i = grant_find(f, importer, att_index);

	if (i >= 0)
		grant_remove(f, i);
}

/* The importer went away: its grants just disappear, nobody to tell. */
void fm_grants_drop_importer(struct fm_fabric *f, uint32_t importer)
{
	uint32_t i;

	for (i = f->ngrants; i-- > 0;)
		if (f->grants[i].importer == importer)
			grant_remove(f, i);
}

void fm_grants_revoke_unreachable(struct fm_fabric *f)
{
	uint32_t i;

	for (i = f->ngrants; i-- > 0;) {
		struct fm_grant g = f->grants[i];

		if (fm_reachable(f, g.importer, g.exporter))
			continue;
		grant_remove(f, i);
		fm_log("grant %u/%u onto %u export %u revoked: no path",
		       g.importer, g.att_index, g.exporter, g.export_id);
		fm_emit_revoke(f, g.importer, g.att_index,
			       SNODE_FM_REVOKE_UNREACHABLE);
	}
}
