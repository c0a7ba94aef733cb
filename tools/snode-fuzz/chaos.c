// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * snode-fuzz: the chaos threads. Each runs a seeded random sequence of
 * operations: every ioctl on every fd type with valid-ish and broken
 * arguments, mmap/munmap/mremap/madvise of pool and import mappings,
 * close/dup2 of random fd numbers, fork, and netlink requests (nl.c).
 *
 * The oracle: a call whose arguments are certainly invalid (size below the
 * minimum, a non-zero byte past the structure, an unknown flag, a reserved
 * member set, an unreadable argument, a documented range violation, a write
 * operation on a read-only open, ...) must fail; every failure must carry an
 * errno the ABI documents for that call (uapi/linux/snode.h); loads and
 * stores through a pool mapping behave as memory (a store reads back, no
 * SIGBUS). fds below FZ_FD_FLOOR are "loose": another thread may close or
 * replace them at any time, so calls on them are only held to the errno
 * classes. Each thread also holds protected fds (at FZ_FD_FLOOR and above)
 * of every type on which the strict rules apply.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <poll.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "fuzz.h"

#define NTAB 8
#define FZ_DBUF (1U << 20)

enum { FT_DEV, FT_IMPORT, FT_EP, FT_DMA };

struct alloc { uint64_t off, len; bool live; };
struct exp { uint32_t id; uint64_t key; bool live; };
struct imp { int fd; uint32_t flags; uint64_t len; };
struct map {
	char *addr;
	size_t len;
	bool pool, wr, dontfork, used;
	char hist[96];		/* what was done to it, for a failure report */
};

static void hist(struct map *m, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
static void hist(struct map *m, const char *fmt, ...)
{
	size_t n = strlen(m->hist);
	va_list ap;

	if (n > sizeof(m->hist) - 16)
		n = 0;	/* keep the tail */
	va_start(ap, fmt);
	vsnprintf(m->hist + n, sizeof(m->hist) - n, fmt, ap);
	va_end(ap);
}

struct tbl {
	int idx;
	bool child;
	int dev_rw, dev_ro, ep_p, dma_p, devnull, pipe_r;
	int extra[NTAB];
	struct alloc allocs[NTAB];
	struct exp exps[NTAB];
	struct imp imps[NTAB];
	int eps[NTAB];
	int dmas[NTAB];
	struct map maps[NTAB];
	uint32_t ep_ids[NTAB];
	uint64_t ep_keys[NTAB];
	unsigned char *abuf;	/* 2 pages + a PROT_NONE guard page */
	unsigned char *dbuf;	/* FZ_DBUF bytes: DMA and list buffer */
	unsigned char *robuf;	/* a read-only page */
	struct fz_nl *nl;
	struct snode_info info;
};

/* ---- errno classes ---------------------------------------------------------------- */

#define GEN ENOTTY, E2BIG, EOPNOTSUPP, EINVAL, EFAULT, ENODEV, EIO, EAGAIN
static const int e_gen[] = { GEN, 0 };
static const int e_mem[] = { GEN, EPERM, ENOMEM, ENOENT, ENOSPC, EKEYREJECTED,
			     EACCES, EROFS, ERANGE, EHOSTUNREACH, ETIMEDOUT,
			     ENOLINK, EMFILE, ENFILE, 0 };
static const int e_msg[] = { GEN, EPERM, EACCES, ENOSPC, EBUSY, ENXIO,
			     EKEYREJECTED, EHOSTUNREACH, ETIMEDOUT, ENOLINK,
			     EINTR, EMFILE, ENFILE, ENOMEM, 0 };
static const int e_dma[] = { GEN, EPERM, EBADF, EROFS, ECONNRESET, EBUSY, EMFILE,
			     ENFILE, ENOMEM, ETIMEDOUT, EINTR, 0 };

static bool in_set(int e, const int *set)
{
	for (; *set; set++)
		if (*set == e)
			return true;
	return false;
}

struct cmdd {
	unsigned long nr;
	const char *name;
	size_t size;
	int rsv_off;		/* offset of a __reserved member, -1: none */
	int rsv_len;
	uint32_t flags;		/* known flags */
	const int *errs;
	int fdtype;
	bool wr;		/* needs a writable open (EPERM otherwise) */
};

#define RSV(s, m) offsetof(struct s, m), (int)sizeof(((struct s *)0)->m)
static const struct cmdd cmds[] = {
	{ SNODE_IOCTL_INFO, "INFO", sizeof(struct snode_info),
	  RSV(snode_info, __reserved), 0, e_gen, FT_DEV, false },
	{ SNODE_IOCTL_MEM_ALLOC, "MEM_ALLOC", sizeof(struct snode_mem_alloc),
	  -1, 0, 0, e_mem, FT_DEV, true },
	{ SNODE_IOCTL_MEM_FREE, "MEM_FREE", sizeof(struct snode_mem_free),
	  -1, 0, 0, e_mem, FT_DEV, true },
	{ SNODE_IOCTL_MEM_EXPORT, "MEM_EXPORT", sizeof(struct snode_mem_export),
	  RSV(snode_mem_export, __reserved), 7, e_mem, FT_DEV, true },
	{ SNODE_IOCTL_MEM_UNEXPORT, "MEM_UNEXPORT",
	  sizeof(struct snode_mem_unexport), -1, 0, 0, e_mem, FT_DEV, true },
	{ SNODE_IOCTL_MEM_IMPORT, "MEM_IMPORT", sizeof(struct snode_mem_import),
	  -1, 0, 3, e_mem, FT_DEV, true },
	{ SNODE_IOCTL_IMPORT_STATUS, "IMPORT_STATUS",
	  sizeof(struct snode_import_status),
	  RSV(snode_import_status, __reserved), 0, e_gen, FT_IMPORT, false },
	{ SNODE_IOCTL_EP_ALLOC, "EP_ALLOC", sizeof(struct snode_ep_alloc),
	  -1, 0, 7, e_msg, FT_DEV, true },
	{ SNODE_IOCTL_MSG_SEND, "MSG_SEND", sizeof(struct snode_msg_send),
	  -1, 0, 1, e_msg, FT_DEV, true },
	{ SNODE_IOCTL_DMA_OPEN, "DMA_OPEN", sizeof(struct snode_dma_open),
	  -1, 0, 1, e_dma, FT_DEV, true },
	{ SNODE_IOCTL_DMA_SUBMIT, "DMA_SUBMIT", sizeof(struct snode_dma_submit),
	  RSV(snode_dma_submit, __reserved), 1, e_dma, FT_DMA, false },
};
#define NCMDS (sizeof(cmds) / sizeof(cmds[0]))

/* ---- small helpers ---------------------------------------------------------------- */

static void xclose(struct fz_ctx *c, int fd)
{
	int ret;

	if (fd < 0)
		return;
	fz_fd_lock();
	fz_begin(c, "close(%d)", fd);
	ret = close(fd);
	fz_end(c, ret, errno);
	fz_fd_unlock();
}

static int *slot_of(struct fz_ctx *c, int *arr)
{
	int i = (int)fz_below(c, NTAB);

	if (arr[i] >= 0) {
		xclose(c, arr[i]);
		arr[i] = -1;
	}
	return &arr[i];
}

static int pick_fd(struct fz_ctx *c, const int *arr)
{
	int i, start = (int)fz_below(c, NTAB);

	for (i = 0; i < NTAB; i++)
		if (arr[(start + i) % NTAB] >= 0)
			return arr[(start + i) % NTAB];
	return -1;
}

static struct imp *pick_imp(struct fz_ctx *c, struct tbl *t)
{
	int i, start = (int)fz_below(c, NTAB);

	for (i = 0; i < NTAB; i++)
		if (t->imps[(start + i) % NTAB].fd >= 0)
			return &t->imps[(start + i) % NTAB];
	return NULL;
}

static uint64_t rnd_len(struct fz_ctx *c)
{
	static const uint64_t l[] = { 4096, 8192, 65536, 2 << 20, 0, 4095,
				      4097, 1ULL << 40, ~0ULL, 12288 };

	if (fz_chance(c, 70))
		return l[fz_below(c, 4)];
	return l[fz_below(c, sizeof(l) / sizeof(l[0]))];
}

static uint64_t rnd_key(struct fz_ctx *c)
{
	return fz_rand(c) | (1ULL << 63);	/* never a data key */
}

static bool is_data_key(uint64_t key)
{
	return (key & ~0xffffULL) == FZ_DATA_KEY(0);
}

/* The node ids to aim at: this node, the peer, a sim node, garbage */
static uint32_t rnd_node(struct fz_ctx *c)
{
	switch (fz_below(c, 6)) {
	case 0: case 1: return (uint32_t)fz_node;
	case 2: case 3:
		if (fz_opt.peer >= 0)
			return (uint32_t)fz_opt.peer;
		return (uint32_t)fz_node;
	case 4:
		if (fz_opt.sim_node >= 0)
			return (uint32_t)fz_opt.sim_node;
		return 7;
	default:
		return (uint32_t)fz_below(c, 1100);
	}
}

/* ---- the ioctl engine -------------------------------------------------------------- */

struct call {
	const struct cmdd *d;
	unsigned char *arg;
	bool must_fail;
	char why[64];
};

static void invalid(struct call *k, const char *why)
{
	if (!k->must_fail)
		snprintf(k->why, sizeof(k->why), "%s", why);
	k->must_fail = true;
}

/* Fill a valid-ish structure for d at b; flag semantic invalidity. */
static void fill(struct fz_ctx *c, struct tbl *t, struct call *k)
{
	unsigned char *b = k->arg;
	int i;

	switch (k->d->nr) {
	case SNODE_IOCTL_MEM_ALLOC: {
		struct snode_mem_alloc *a = (void *)b;

		a->length = rnd_len(c);
		if (!a->length || a->length % 4096)
			invalid(k, "length not a 4K multiple");
		break;
	}
	case SNODE_IOCTL_MEM_FREE: {
		struct snode_mem_free *a = (void *)b;
		struct alloc *al = &t->allocs[fz_below(c, NTAB)];

		a->offset = al->live ? al->off : fz_rand(c) & ~4095ULL;
		if (fz_chance(c, 5))
			a->offset |= 1;
		break;
	}
	case SNODE_IOCTL_MEM_EXPORT: {
		struct snode_mem_export *a = (void *)b;
		struct alloc *al = &t->allocs[fz_below(c, NTAB)];
		uint32_t *nodes = (uint32_t *)(t->abuf + 4096 + 2048);

		a->alloc = al->live ? al->off : fz_rand(c) & ~4095ULL;
		a->length = al->live ? al->len : 4096;
		if (fz_chance(c, 20)) {
			a->offset = 4096 * fz_below(c, 4);
			a->length = 4096 * fz_below(c, 4);
			if (!a->length)
				invalid(k, "length 0");
		}
		a->flags = (uint32_t)fz_below(c, 8);
		if (a->flags & SNODE_EXPORT_RANDOM_KEY) {
			if (fz_chance(c, 10)) {
				a->key = rnd_key(c);
				invalid(k, "RANDOM_KEY with a key");
			}
		} else {
			a->key = rnd_key(c);
		}
		if (a->flags & SNODE_EXPORT_NODES) {
			a->nr_nodes = (uint32_t)fz_below(c, 4);
			if (!a->nr_nodes)
				invalid(k, "NODES with nr_nodes 0");
			for (i = 0; i < 4; i++)
				nodes[i] = rnd_node(c);
			a->nodes = (uintptr_t)nodes;
			if (fz_chance(c, 5)) {
				a->nodes = 8;
				if (a->nr_nodes)
					invalid(k, "nodes unreadable");
			}
		}
		break;
	}
	case SNODE_IOCTL_MEM_UNEXPORT: {
		struct snode_mem_unexport *a = (void *)b;
		struct exp *e = &t->exps[fz_below(c, NTAB)];

		a->export_id = e->live ? e->id : (uint32_t)fz_below(c, 300);
		break;
	}
	case SNODE_IOCTL_MEM_IMPORT: {
		struct snode_mem_import *a = (void *)b;

		a->node = rnd_node(c);
		a->flags = (uint32_t)fz_below(c, 4);
		if (a->node == (uint32_t)fz_opt.peer && fz_chance(c, 40)) {
			a->export_id = __atomic_load_n(&fz_sh->data_export_id,
						       __ATOMIC_RELAXED);
			a->key = FZ_DATA_KEY(a->node);
		} else if (a->node == (uint32_t)fz_opt.sim_node &&
			   fz_chance(c, 60)) {
			a->export_id = fz_opt.sim_id;
			a->key = fz_opt.sim_key;
		} else {
			struct exp *e = &t->exps[fz_below(c, NTAB)];

			a->export_id = e->live ? e->id :
				       (uint32_t)fz_below(c, 8);
			a->key = e->live && fz_chance(c, 80) ? e->key :
				 rnd_key(c);
		}
		/* never write into memory a data worker checks */
		if (is_data_key(a->key) || (a->node == (uint32_t)fz_opt.sim_node &&
					    a->key == fz_opt.sim_key))
			a->flags &= ~SNODE_IMPORT_WRITE;
		a->length = fz_chance(c, 80) ? 4096ULL << fz_below(c, 6) :
			    rnd_len(c);
		a->offset = fz_chance(c, 80) ? 0 : 4096 * fz_below(c, 4);
		if (fz_chance(c, 3))
			a->offset = 1ULL << 40;
		if (!a->length || a->length % 4096)
			invalid(k, "length not a 4K multiple");
		break;
	}
	case SNODE_IOCTL_IMPORT_STATUS:
	case SNODE_IOCTL_INFO:
		break;
	case SNODE_IOCTL_EP_ALLOC: {
		struct snode_ep_alloc *a = (void *)b;

		a->flags = (uint32_t)fz_below(c, 8) | SNODE_EP_NONBLOCK;
		if (a->flags & SNODE_EP_ID)
			a->id = (uint32_t)fz_below(c, t->info.out_endpoints + 2);
		a->entries = fz_chance(c, 80) ? 2U << fz_below(c, 12) :
			     (uint32_t)fz_below(c, 9000);
		if (a->entries && (a->entries < 2 || a->entries > 4096 ||
				   (a->entries & (a->entries - 1))))
			invalid(k, "entries not a power of 2 in 2..4096");
		if (!(a->flags & SNODE_EP_RANDOM_KEY))
			a->key = rnd_key(c);
		else if (fz_chance(c, 10)) {
			a->key = 1;
			invalid(k, "RANDOM_KEY with a key");
		}
		break;
	}
	case SNODE_IOCTL_MSG_SEND: {
		struct snode_msg_send *a = (void *)b;
		int j = (int)fz_below(c, NTAB);

		a->flags = fz_chance(c, 90) ? SNODE_MSG_SEND_NONBLOCK : 0;
		a->node = rnd_node(c);
		a->ep = t->eps[j] >= 0 ? t->ep_ids[j] :
			(uint32_t)fz_below(c, 70);
		a->key = t->eps[j] >= 0 && fz_chance(c, 80) ?
			 t->ep_keys[j] : rnd_key(c);
		a->len = (uint32_t)fz_below(c, 50);
		if (fz_chance(c, 3))
			a->len = (uint32_t)fz_rand(c);
		if (a->len > SNODE_MSG_MAX_LEN)
			invalid(k, "len > SNODE_MSG_MAX_LEN");
		a->timeout_ms = (uint32_t)fz_below(c, 300);
		if (fz_chance(c, 3)) {
			a->flags = 0;
			a->timeout_ms = 60001;
			invalid(k, "timeout_ms > 60000");
		}
		for (i = 0; i < SNODE_MSG_MAX_LEN; i++)
			a->payload[i] = (uint8_t)fz_rand(c);
		break;
	}
	case SNODE_IOCTL_DMA_OPEN: {
		struct snode_dma_open *a = (void *)b;
		static const uint32_t d[] = { 0, 1, 2, 64, 4096, 4097, 100000 };

		a->flags = SNODE_DMA_NONBLOCK;
		if (fz_chance(c, 10))
			a->flags = 0;
		a->depth = d[fz_below(c, 7)];
		if (a->depth > 4096)
			invalid(k, "depth > 4096");
		break;
	}
	case SNODE_IOCTL_DMA_SUBMIT: {
		struct snode_dma_submit *a = (void *)b;
		struct snode_dma_req *r = (void *)(t->abuf + 4096);
		unsigned int n = 1 + (unsigned int)fz_below(c, 4);

		a->count = n;
		a->req_size = sizeof(*r);
		a->reqs = (uintptr_t)r;
		a->flags = fz_chance(c, 30) ? SNODE_DMA_SUBMIT_WAIT : 0;
		memset(r, 0, n * sizeof(*r));
		for (i = 0; i < (int)n; i++) {
			struct imp *im = pick_imp(c, t);
			uint64_t wl = im ? im->len : 4096;

			r[i].flags = 1U << fz_below(c, 2);
			r[i].import_fd = im ? im->fd : -1;
			r[i].length = 1 + fz_below(c, wl < 8192 ? wl : 8192);
			r[i].offset = fz_below(c, wl - r[i].length + 1);
			r[i].addr = (uintptr_t)t->dbuf + fz_below(c, 4096);
			r[i].user_data = fz_rand(c);
			if (im && !(im->flags & SNODE_IMPORT_WRITE))
				r[i].flags = SNODE_DMA_FROM_GLOBAL;
		}
		switch (fz_below(c, 14)) {
		case 0: r[0].flags = 0; invalid(k, "no direction"); break;
		case 1: r[0].flags = 3; invalid(k, "both directions"); break;
		case 2: r[0].length = 0; invalid(k, "length 0"); break;
		case 3: r[0].import_fd = t->devnull;
			invalid(k, "import_fd is /dev/null"); break;
		case 4: r[0].import_fd = t->dev_rw;
			invalid(k, "import_fd is /dev/snodeN"); break;
		case 5: r[0].import_fd = 1000;
			invalid(k, "import_fd closed"); break;
		case 6: a->count = 0; invalid(k, "count 0"); break;
		case 7: a->count = 100000; invalid(k, "count > depth"); break;
		case 8: a->req_size = 8; invalid(k, "req_size too small"); break;
		case 9: a->reqs = 16; invalid(k, "reqs unreadable"); break;
		case 10: r[0].addr = 0; r[0].flags = SNODE_DMA_TO_GLOBAL;
			/* addr 0: EFAULT, unless the import is bad first */
			invalid(k, "addr 0"); break;
		case 11: r[0].__reserved = 1;
			invalid(k, "request __reserved"); break;
		case 12: r[0].length = SNODE_DMA_MAX_LEN + 1;
			invalid(k, "length > SNODE_DMA_MAX_LEN"); break;
		default: break;
		}
		break;
	}
	}
}

/* size, flags, reserved and pointer mutations common to every ioctl */
static void mutate(struct fz_ctx *c, struct tbl *t, struct call *k,
		   uint32_t *size)
{
	const struct cmdd *d = k->d;
	uint32_t *flags = (uint32_t *)(k->arg + 4);
	unsigned int r = (unsigned int)fz_below(c, 100);

	*size = (uint32_t)d->size;
	if (r < 6) {
		static const uint32_t small[] = { 0, 4, 8 };

		*size = fz_chance(c, 50) ? (uint32_t)d->size - 4 :
			small[fz_below(c, 3)];
		invalid(k, "size below the minimum");
	} else if (r < 14) {
		*size = (uint32_t)d->size + 8 * (1 + (uint32_t)fz_below(c, 16));
	} else if (r < 20) {
		uint32_t extra = 1 + (uint32_t)fz_below(c, 64);

		*size = (uint32_t)d->size + extra;
		k->arg[d->size + fz_below(c, extra)] = (uint8_t)(1 + fz_below(c, 255));
		invalid(k, "non-zero byte past the structure");
	} else if (r < 22) {
		*size = 4096 + (uint32_t)fz_below(c, 4096 - d->size);
	}
	if (fz_chance(c, 8)) {
		uint32_t bit = 1U << fz_below(c, 32);

		if (!(d->flags & bit)) {
			*flags |= bit;
			invalid(k, "unknown flag");
		}
	}
	if (d->rsv_off >= 0 && fz_chance(c, 6)) {
		k->arg[d->rsv_off + (int)fz_below(c, (uint64_t)d->rsv_len)] = 0x5a;
		invalid(k, "__reserved set");
	}
	/* the argument itself: NULL, a kernel address, across a guard page */
	r = (unsigned int)fz_below(c, 100);
	if (r < 2) {
		k->arg = NULL;
		invalid(k, "argument NULL");
	} else if (r < 3) {
		k->arg = (unsigned char *)0xffff888000000000ULL;
		invalid(k, "argument a kernel address");
	} else if (r < 6 && *size <= 8192) {
		/* the structure runs into the PROT_NONE page */
		unsigned char *dst = t->abuf + 8192 - d->size + 8;

		memmove(dst, k->arg, d->size - 8);
		k->arg = dst;
		if (*size > 8)
			invalid(k, "argument crosses into a PROT_NONE page");
	}
	if (k->arg && k->arg != (unsigned char *)0xffff888000000000ULL)
		memcpy(k->arg, size, 4);
}

/* free what a table entry held before it is reused */
static void drop_alloc(struct fz_ctx *c, struct tbl *t, struct alloc *al)
{
	struct snode_mem_free f = { .size = sizeof(f), .offset = al->off };
	long ret;

	if (!al->live)
		return;
	al->live = false;
	fz_begin(c, "ioctl(%d, MEM_FREE, 0x%llx) (table full)", t->dev_rw,
		 (unsigned long long)al->off);
	ret = ioctl(t->dev_rw, SNODE_IOCTL_MEM_FREE, &f);
	fz_end(c, ret, errno);
}

static void drop_export(struct fz_ctx *c, struct tbl *t, struct exp *e)
{
	struct snode_mem_unexport u = { .size = sizeof(u), .export_id = e->id };
	long ret;

	if (!e->live)
		return;
	e->live = false;
	fz_begin(c, "ioctl(%d, MEM_UNEXPORT, %u) (table full)", t->dev_rw,
		 e->id);
	ret = ioctl(t->dev_rw, SNODE_IOCTL_MEM_UNEXPORT, &u);
	fz_end(c, ret, errno);
}

static void harvest(struct fz_ctx *c, struct tbl *t, const struct call *k,
		    bool on_dev_rw)
{
	int i;

	switch (k->d->nr) {
	case SNODE_IOCTL_MEM_ALLOC: {
		const struct snode_mem_alloc *a = (const void *)k->arg;
		struct alloc *al = &t->allocs[fz_below(c, NTAB)];

		if (on_dev_rw) {
			uint64_t off = a->out_offset, len = a->length;

			drop_alloc(c, t, al);
			al->off = off;
			al->len = len;
			al->live = true;
		}
		break;
	}
	case SNODE_IOCTL_MEM_FREE: {
		const struct snode_mem_free *a = (const void *)k->arg;

		for (i = 0; on_dev_rw && i < NTAB; i++)
			if (t->allocs[i].live && t->allocs[i].off == a->offset)
				t->allocs[i].live = false;
		break;
	}
	case SNODE_IOCTL_MEM_UNEXPORT: {
		const struct snode_mem_unexport *a = (const void *)k->arg;

		for (i = 0; on_dev_rw && i < NTAB; i++)
			if (t->exps[i].live && t->exps[i].id == a->export_id)
				t->exps[i].live = false;
		break;
	}
	case SNODE_IOCTL_MEM_EXPORT: {
		const struct snode_mem_export *a = (const void *)k->arg;
		struct exp *e = &t->exps[fz_below(c, NTAB)];

		if (is_data_key(a->out_key))
			fz_fail(c, "MEM_EXPORT chose a key with the data prefix");
		if (on_dev_rw) {
			uint32_t id = a->out_export_id;
			uint64_t key = a->out_key;

			drop_export(c, t, e);
			e->id = id;
			e->key = key;
			e->live = true;
		}
		break;
	}
	case SNODE_IOCTL_MEM_IMPORT: {
		const struct snode_mem_import *a = (const void *)k->arg;
		struct imp *im = &t->imps[fz_below(c, NTAB)];

		if (im->fd >= 0)
			xclose(c, im->fd);
		im->fd = a->out_fd;
		im->flags = a->flags;
		im->len = a->length;
		break;
	}
	case SNODE_IOCTL_EP_ALLOC: {
		const struct snode_ep_alloc *a = (const void *)k->arg;
		int *p = slot_of(c, t->eps);

		*p = a->out_fd;
		t->ep_ids[p - t->eps] = a->out_id;
		t->ep_keys[p - t->eps] = a->out_key;
		break;
	}
	case SNODE_IOCTL_DMA_OPEN: {
		const struct snode_dma_open *a = (const void *)k->arg;

		*slot_of(c, t->dmas) = a->out_fd;
		break;
	}
	}
}

/*
 * One ioctl of command d on fd. strict: fd is known to be of type ftype
 * (a protected fd); else only the errno class is checked (plus EBADF and
 * ENOTTY, which a loose fd may give).
 */
static void do_ioctl(struct fz_ctx *c, struct tbl *t, const struct cmdd *d,
		     int fd, int ftype, bool strict, bool writable)
{
	struct call k = { .d = d, .arg = t->abuf };
	unsigned long nr = d->nr;
	uint32_t size;
	long ret;
	int err;

	memset(t->abuf, 0, 8192);
	fill(c, t, &k);
	mutate(c, t, &k, &size);
	if (d->fdtype != ftype) {
		/* MSG_SEND is also an endpoint ioctl */
		if (!(d->nr == SNODE_IOCTL_MSG_SEND && ftype == FT_EP))
			invalid(&k, "ioctl of another fd type");
	}
	if (d->wr && !writable && ftype == FT_DEV)
		invalid(&k, "write operation on a read-only open");
	if (fz_chance(c, 2)) {
		/* the same number with size or direction bits: ENOTTY */
		nr = _IOWR(SNODE_TYPE, _IOC_NR(d->nr), struct snode_info);
		invalid(&k, "ioctl number with size bits");
	}
	fz_begin(c, "ioctl(%d%s, %s%s, size %u%s%s)", fd,
		 strict ? "" : "?", d->name, nr != d->nr ? "|IOWR" : "", size,
		 k.must_fail ? ": " : "", k.must_fail ? k.why : "");
	ret = ioctl(fd, nr, k.arg);
	err = errno;
	fz_end(c, ret, err);
	if (ret < 0) {
		bool ok = in_set(err, d->errs) || err == ENOTTY ||
			  (!strict && err == EBADF);

		if (!ok)
			fz_fail(c, "ioctl %s on fd %d failed with %s, an errno %s does not document",
				d->name, fd, fz_errname(err), d->name);
		if (strict && d->fdtype != ftype && err != ENOTTY &&
		    !(d->nr == SNODE_IOCTL_MSG_SEND && ftype == FT_EP))
			fz_fail(c, "ioctl %s on a fd of another type failed with %s instead of ENOTTY",
				d->name, fz_errname(err));
		return;
	}
	if (k.must_fail && strict)
		fz_fail(c, "ioctl %s succeeded though it must fail (%s)",
			d->name, k.why);
	if (k.must_fail) {
		/* loose fd: it may be another file now; report what it was */
		fz_note(c, "note: %s succeeded on loose fd %d (%s)", d->name,
			fd, k.why);
	}
	if (k.arg == t->abuf)
		harvest(c, t, &k, fd == t->dev_rw && ftype == FT_DEV);
}

/* an unknown ioctl number must be ENOTTY on every snode fd */
static void op_bad_nr(struct fz_ctx *c, struct tbl *t)
{
	static const unsigned long nrs[] = {
		_IO(SNODE_TYPE, SNODE_CMD_BASE - 1),
		_IO(SNODE_TYPE, __SNODE_CMD_REMOVED_STATS + 1),
		_IO(SNODE_TYPE, 0xff),
		_IO('M', SNODE_CMD_BASE),
		_IOR(SNODE_TYPE, SNODE_CMD_INFO, int),
		/* the listing ioctls of the first version, now netlink */
		_IO(SNODE_TYPE, __SNODE_CMD_REMOVED_MEM_LIST),
		_IO(SNODE_TYPE, __SNODE_CMD_REMOVED_MSG_LIST),
		_IO(SNODE_TYPE, __SNODE_CMD_REMOVED_STATS),
	};
	int fds[] = { t->dev_rw, t->dev_ro, t->ep_p, t->dma_p };
	unsigned long nr = nrs[fz_below(c, 8)];
	int fd = fds[fz_below(c, 4)];
	long ret;

	if (fd < 0)
		return;
	memset(t->abuf, 0, 64);
	*(uint32_t *)t->abuf = 64;
	fz_begin(c, "ioctl(%d, 0x%lx: unknown number)", fd, nr);
	ret = ioctl(fd, nr, t->abuf);
	fz_end(c, ret, errno);
	if (ret >= 0 || errno != ENOTTY)
		fz_fail(c, "unknown ioctl 0x%lx on fd %d: %s instead of ENOTTY",
			nr, fd, ret >= 0 ? "success" : fz_errname(errno));
}

/* snode ioctls on /dev/null, a pipe and a closed fd number */
static void op_wrong_file(struct fz_ctx *c, struct tbl *t)
{
	const struct cmdd *d = &cmds[fz_below(c, NCMDS)];
	int which = (int)fz_below(c, 3);
	int fd = which == 0 ? t->devnull : which == 1 ? t->pipe_r : 1001;
	int want = which == 2 ? EBADF : ENOTTY;
	long ret;

	memset(t->abuf, 0, 4096);
	*(uint32_t *)t->abuf = (uint32_t)d->size;
	fz_begin(c, "ioctl(%d: %s, %s)", fd,
		 which == 0 ? "/dev/null" : which == 1 ? "pipe" : "closed",
		 d->name);
	ret = ioctl(fd, d->nr, t->abuf);
	fz_end(c, ret, errno);
	if (ret >= 0 || errno != want)
		fz_fail(c, "%s on a foreign fd: %s instead of %s", d->name,
			ret >= 0 ? "success" : fz_errname(errno),
			fz_errname(want));
}

static void op_ioctl(struct fz_ctx *c, struct tbl *t)
{
	const struct cmdd *d = &cmds[fz_below(c, NCMDS)];
	unsigned int r = (unsigned int)fz_below(c, 100);
	int fd;

	/* mostly on the right fd type, sometimes on another */
	if (fz_chance(c, 85)) {
		switch (d->fdtype) {
		case FT_IMPORT: {
			struct imp *im = pick_imp(c, t);

			if (!im)
				return;
			do_ioctl(c, t, d, im->fd, FT_IMPORT, false, true);
			return;
		}
		case FT_DMA:
			if (r < 60 && t->dma_p >= 0)
				do_ioctl(c, t, d, t->dma_p, FT_DMA, true, true);
			else if ((fd = pick_fd(c, t->dmas)) >= 0)
				do_ioctl(c, t, d, fd, FT_DMA, false, true);
			return;
		default:
			if (d->nr == SNODE_IOCTL_MSG_SEND && r < 20 &&
			    t->ep_p >= 0) {
				do_ioctl(c, t, d, t->ep_p, FT_EP, true, true);
				return;
			}
			if (r < 65)
				do_ioctl(c, t, d, t->dev_rw, FT_DEV, true, true);
			else if (r < 85)
				do_ioctl(c, t, d, t->dev_ro, FT_DEV, true, false);
			else if ((fd = pick_fd(c, t->extra)) >= 0)
				do_ioctl(c, t, d, fd, FT_DEV, false, true);
			return;
		}
	}
	switch (fz_below(c, 4)) {
	case 0: do_ioctl(c, t, d, t->dev_rw, FT_DEV, true, true); break;
	case 1:
		if (t->ep_p >= 0)
			do_ioctl(c, t, d, t->ep_p, FT_EP, true, true);
		break;
	case 2:
		if (t->dma_p >= 0)
			do_ioctl(c, t, d, t->dma_p, FT_DMA, true, true);
		break;
	default: {
		struct imp *im = pick_imp(c, t);

		if (im)
			do_ioctl(c, t, d, im->fd, FT_IMPORT, false, true);
	}
	}
}

/* ---- read/poll on endpoints and queues --------------------------------------------- */

static void op_read(struct fz_ctx *c, struct tbl *t)
{
	bool ep = fz_chance(c, 50);
	int fd = fz_chance(c, 50) ? (ep ? t->ep_p : t->dma_p) :
		 pick_fd(c, ep ? t->eps : t->dmas);
	bool strict = fd == t->ep_p || fd == t->dma_p;
	size_t rec = ep ? sizeof(struct snode_msg) : sizeof(struct snode_dma_cpl);
	size_t len = rec * fz_below(c, 5);
	struct pollfd p = { .fd = fd, .events = POLLIN | POLLPRI };
	ssize_t ret;

	if (fd < 0)
		return;
	/*
	 * A loose number may be closed and given to a new file (a blocking
	 * queue or endpoint) by another thread at any time: from the check to
	 * the read it must stay the file made non-blocking, so no close or
	 * dup2 (both under the fd lock) may run in between.
	 */
	if (!strict) {
		struct stat sb;

		fz_fd_lock();
		/* another thread's libsnode socket: never steal its answer */
		if (fstat(fd, &sb) || S_ISSOCK(sb.st_mode)) {
			fz_fd_unlock();
			return;
		}
	}
	if (fz_chance(c, 10))
		len = fz_below(c, rec);
	fz_begin(c, "poll(%d)", fd);
	ret = poll(&p, 1, 0);
	fz_end(c, ret, errno);
	if (!strict)
		fcntl(fd, F_SETFL, O_NONBLOCK);
	fz_begin(c, "read(%d%s, %zu)", fd, strict ? "" : "?", len);
	ret = read(fd, fz_chance(c, 3) ? NULL : t->dbuf, len);
	fz_end(c, ret, errno);
	if (!strict)
		fz_fd_unlock();
	if (ret < 0 && !in_set(errno, (const int[]){ EAGAIN, EINVAL, EFAULT,
			ECONNRESET, ENODEV, EIO, 0 }) &&
	    !(!strict && (errno == EBADF || errno == EISDIR ||
			  errno == ENOTCONN || errno == EINTR)))
		fz_fail(c, "read of %s fd %d: unexpected %s",
			ep ? "endpoint" : "DMA queue", fd, fz_errname(errno));
	if (strict && ret > 0 && (size_t)ret % rec)
		fz_fail(c, "read of %s returned %zd, not whole records",
			ep ? "endpoint" : "DMA queue", ret);
	if (strict && len && len < rec && ret >= 0)
		fz_fail(c, "read with a buffer smaller than a record succeeded");
}

/* ---- mappings --------------------------------------------------------------------- */

static struct map *free_map(struct fz_ctx *c, struct tbl *t)
{
	struct map *m = &t->maps[fz_below(c, NTAB)];

	if (m->used) {
		fz_begin(c, "munmap(%p, %zu)", m->addr, m->len);
		fz_end(c, munmap(m->addr, m->len), errno);
		m->used = false;
	}
	return m;
}

static struct map *pick_map(struct fz_ctx *c, struct tbl *t)
{
	int i, s = (int)fz_below(c, NTAB);

	for (i = 0; i < NTAB; i++)
		if (t->maps[(s + i) % NTAB].used)
			return &t->maps[(s + i) % NTAB];
	return NULL;
}

static void op_mmap(struct fz_ctx *c, struct tbl *t)
{
	bool pool = fz_chance(c, 50), wr = fz_chance(c, 60);
	bool priv = fz_chance(c, 8), ro_open = false, strict = pool;
	int prot = PROT_READ | (wr ? PROT_WRITE : 0);
	size_t len;
	off_t off;
	int fd;
	void *p;

	if (pool) {
		struct alloc *al = &t->allocs[fz_below(c, NTAB)];

		if (!al->live)
			return;
		fd = t->dev_rw;
		if (fz_chance(c, 10)) {
			fd = t->dev_ro;
			ro_open = true;
		}
		off = (off_t)al->off;
		len = al->len;
		if (fz_chance(c, 20) && len > 4096)
			len = 4096 * (1 + fz_below(c, len / 4096 - 1));
		if (len > (8U << 20))
			len = 8U << 20;
	} else {
		struct imp *im = pick_imp(c, t);

		if (!im || im->len > (64U << 20))
			return;
		fd = im->fd;
		off = 0;
		len = im->len;
		if (!(im->flags & SNODE_IMPORT_WRITE))
			wr = false, prot = PROT_READ;
		if (fz_chance(c, 10))
			off = 4096 * (off_t)fz_below(c, 2);
	}
	fz_begin(c, "mmap(%zu, %s%s, %s, %d%s, 0x%llx)", len,
		 prot & PROT_WRITE ? "RW" : "R", "", priv ? "PRIVATE" : "SHARED",
		 fd, pool ? (ro_open ? " ro" : "") : "?", (unsigned long long)off);
	p = mmap(NULL, len, prot, priv ? MAP_PRIVATE : MAP_SHARED, fd, off);
	fz_end(c, p == MAP_FAILED ? -1 : 0, errno);
	if (p == MAP_FAILED) {
		if (!in_set(errno, (const int[]){ EINVAL, EACCES, EPERM, ENOMEM,
				ENOENT, ENODEV, ENXIO, EBADF, EOVERFLOW, EIO,
				ECONNRESET, EAGAIN, 0 }))
			fz_fail(c, "mmap: unexpected %s", fz_errname(errno));
		return;
	}
	if (strict && priv && wr)
		fz_fail(c, "a private writable mapping of the pool succeeded");
	if (strict && ro_open && wr && !priv)
		fz_fail(c, "a shared writable mapping of a read-only open succeeded");
	if (priv && pool) {
		/* read-only private: fine, but do not keep it for stores */
		wr = false;
	}
	{
		struct map *m = free_map(c, t);

		m->addr = p;
		m->len = len;
		m->pool = pool;
		m->wr = wr && !priv;
		m->dontfork = false;
		m->used = true;
		m->hist[0] = 0;
		hist(m, "mmap %s%s len %zu;", pool ? "pool" : "window",
		     priv ? " private" : "", len);
	}
}

/*
 * The /proc/self/maps line of the mapping that holds @addr, without its
 * newline, or "none"; returns whether that mapping may be read.
 */
static bool maps_line(const void *addr, char *buf, size_t len)
{
	unsigned long a = (unsigned long)addr, lo, hi;
	char line[512], perms[5];
	bool readable = false;
	FILE *f;

	snprintf(buf, len, "none");
	f = fopen("/proc/self/maps", "r");
	if (!f)
		return false;
	while (fgets(line, sizeof(line), f)) {
		/* every line sets perms: only the one that holds @addr counts */
		if (sscanf(line, "%lx-%lx %4s", &lo, &hi, perms) != 3 ||
		    a < lo || a >= hi)
			continue;
		readable = perms[0] == 'r';
		line[strcspn(line, "\n")] = '\0';
		snprintf(buf, len, "%s", line);
		break;
	}
	fclose(f);
	return readable;
}

static void op_touch(struct fz_ctx *c, struct tbl *t, bool child)
{
	struct map *m = pick_map(c, t);
	volatile uint64_t *w;
	uint64_t v, sum;
	char vma[512];
	int sig;

	if (!m || (child && m->dontfork))
		return;
	w = (volatile uint64_t *)(m->addr + (fz_below(c, m->len / 8) * 8));
	if (m->wr && m->pool && !child) {
		v = fz_rand(c);
		fz_begin(c, "store %p (pool)", (void *)w);
		sig = fz_touch_write(c, w, v);
		if (!sig)
			sig = fz_touch_read(c, w, 8, &sum);
		fz_end(c, sig ? -1 : 0, sig == SIGBUS ? EFAULT : 0);
		if (sig)
			fz_fail(c, "%s on a store to a live pool mapping",
				sig == SIGBUS ? "SIGBUS" : "SIGSEGV");
		if (*w != v)
			fz_fail(c, "pool mapping: stored 0x%" PRIx64 ", read 0x%" PRIx64,
				v, *w);
		return;
	}
	if (m->wr && !m->pool && !child && fz_chance(c, 30)) {
		fz_begin(c, "store %p (window)", (void *)w);
		sig = fz_touch_write(c, w, fz_rand(c));
		fz_end(c, sig ? -1 : 0, sig ? EFAULT : 0);
		if (sig == SIGSEGV)
			fz_fail(c, "SIGSEGV on a store to a writable window");
		return;
	}
	fz_begin(c, "load %p..+4096 (%s)", (void *)w,
		 m->pool ? "pool" : "window");
	sig = fz_touch_read(c, (void *)((uintptr_t)w & ~4095ULL), 4096, &sum);
	fz_end(c, sig ? -1 : 0, sig ? EFAULT : 0);
	if (sig == SIGSEGV &&
	    !maps_line((const void *)(uintptr_t)w, vma, sizeof(vma)) && child) {
		/*
		 * No readable mapping there in the child (the driver's always
		 * are), no VMA at all or another one, such as a PROT_NONE
		 * reservation: fork() did not copy the window, which the
		 * driver has no say in (MADV_DONTFORK, also through another
		 * thread's table entry that its mapping calls made stale and
		 * that spans this mapping; the parent's other threads keep
		 * running, so its smaps cannot tell which), and the child may
		 * have mapped something of its own there since. The driver
		 * never answers a fault with SIGSEGV. mem_test's
		 * revoke_after_fork tests inheritance deterministically.
		 * Forget the entry here.
		 */
		m->used = false;
		return;
	}
	if (sig == SIGSEGV || (sig && m->pool))
		fz_fail(c, "%s on a load from a live %s mapping%s (%p+%zu: %s; msync says %s; maps: %s)",
			sig == SIGBUS ? "SIGBUS" : "SIGSEGV",
			m->pool ? "pool" : "window",
			child ? " in a forked child" : "", m->addr, m->len,
			m->hist, msync(m->addr, m->len, MS_ASYNC) ?
			fz_errname(errno) : "mapped",
			sig == SIGSEGV ? vma : "-");
}

static void op_unmap(struct fz_ctx *c, struct tbl *t)
{
	struct map *m = pick_map(c, t);
	int ret;

	if (!m)
		return;
	if (m->len > 4096 && fz_chance(c, 40)) {
		fz_begin(c, "munmap(%p, 4096) (head)", m->addr);
		ret = munmap(m->addr, 4096);
		fz_end(c, ret, errno);
		if (!ret) {
			m->addr += 4096;
			m->len -= 4096;
			hist(m, " unmap head;");
		}
		return;
	}
	fz_begin(c, "munmap(%p, %zu)", m->addr, m->len);
	fz_end(c, munmap(m->addr, m->len), errno);
	m->used = false;
}

static void op_mremap(struct fz_ctx *c, struct tbl *t)
{
	struct map *m = pick_map(c, t);
	unsigned int how = (unsigned int)fz_below(c, 3);
	void *p, *hole = NULL;

	if (!m)
		return;
	if (how == 0) {	/* grow: VM_DONTEXPAND|VM_PFNMAP refuses */
		fz_begin(c, "mremap(%p, %zu -> %zu)", m->addr, m->len,
			 m->len + 4096);
		p = mremap(m->addr, m->len, m->len + 4096, 0);
		fz_end(c, p == MAP_FAILED ? -1 : 0, errno);
		if (p != MAP_FAILED)
			fz_fail(c, "mremap grew a snode mapping");
		return;
	}
	if (how == 1) {
		if (m->len <= 4096)
			return;
		fz_begin(c, "mremap(%p, %zu -> %zu) shrink", m->addr, m->len,
			 m->len - 4096);
		p = mremap(m->addr, m->len, m->len - 4096, 0);
		fz_end(c, p == MAP_FAILED ? -1 : 0, errno);
		if (p != MAP_FAILED) {
			m->len -= 4096;
			hist(m, " shrink;");
		}
		return;
	}
	hole = mmap(NULL, m->len, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (hole == MAP_FAILED)
		return;
	fz_begin(c, "mremap(%p, %zu, MAYMOVE|FIXED -> %p)", m->addr, m->len,
		 hole);
	p = mremap(m->addr, m->len, m->len, MREMAP_MAYMOVE | MREMAP_FIXED, hole);
	fz_end(c, p == MAP_FAILED ? -1 : 0, errno);
	if (p == MAP_FAILED) {
		/*
		 * Never munmap() the hole now: a failed mremap() may have
		 * unmapped it already, and another thread may have mapped
		 * something there since. Leave the reservation (if any).
		 */
		hist(m, " move failed %d;", errno);
	} else {
		m->addr = p;
		hist(m, " moved;");
	}
}

/*
 * MADV_DONTFORK and MADV_DOFORK act on every VMA in the range, so on every
 * entry that overlaps it: an entry whose mapping another call ended may
 * span mappings made since (a fuzz-6.1 child read a window that an
 * overlapping stale entry's MADV_DONTFORK had kept from it, and found a
 * PROT_NONE reservation of its own there).
 */
static void set_dontfork(struct tbl *t, char *addr, size_t len,
			 bool dontfork)
{
	int i;

	for (i = 0; i < NTAB; i++) {
		struct map *o = &t->maps[i];

		if (o->used && o->addr < addr + len && addr < o->addr + o->len)
			o->dontfork = dontfork;
	}
}

static void op_madvise(struct fz_ctx *c, struct tbl *t)
{
	static const int adv[] = { MADV_DONTNEED, MADV_WILLNEED, MADV_NORMAL,
				   MADV_RANDOM, MADV_SEQUENTIAL, MADV_DONTFORK,
				   MADV_DOFORK, MADV_HUGEPAGE, MADV_NOHUGEPAGE,
				   20 /* COLD */, 21 /* PAGEOUT */, MADV_FREE,
				   MADV_REMOVE, MADV_DONTDUMP,
				   22 /* POPULATE_READ */,
				   23 /* POPULATE_WRITE */ };
	struct map *m = pick_map(c, t);
	int a = adv[fz_below(c, sizeof(adv) / sizeof(adv[0]))], ret;

	if (!m)
		return;
	if (a == 23 && !m->wr)
		a = 22;
	fz_begin(c, "madvise(%p, %zu, %d)", m->addr, m->len, a);
	ret = madvise(m->addr, m->len, a);
	fz_end(c, ret, errno);
	hist(m, " madv %d=%d%s;", a, ret, t->child ? " in child" : "");
	if (!ret && (a == MADV_DONTFORK || a == MADV_DOFORK))
		set_dontfork(t, m->addr, m->len, a == MADV_DONTFORK);
}

/* ---- fds: close, dup2, open --------------------------------------------------------- */

static void op_close(struct fz_ctx *c, struct tbl *t)
{
	int *arrs[] = { t->extra, t->eps, t->dmas };
	int i;

	if (fz_chance(c, 40)) {
		struct imp *im = pick_imp(c, t);

		if (im) {
			xclose(c, im->fd);
			im->fd = -1;
		}
		return;
	}
	i = (int)fz_below(c, 3);
	{
		int *p = &arrs[i][fz_below(c, NTAB)];

		if (*p >= 0) {
			xclose(c, *p);
			*p = -1;
		}
	}
}

/*
 * Close fd numbers another thread is likely to be handed right now (the
 * lowest free ones): DMA_OPEN, EP_ALLOC and MEM_IMPORT racing with close.
 */
static void op_chaos_close(struct fz_ctx *c, struct tbl *t)
{
	int i, n, low;

	if (fz_chance(c, 30)) {
		n = 3 + (int)fz_below(c, FZ_CHAOS_FD_MAX - 3);
		xclose(c, n);
		return;
	}
	/* a storm: the lowest free numbers, looked up again every 16 */
	n = 16 + (int)fz_below(c, 240);
	for (i = 0, low = -1; i < n && !fz_stopped(); i++) {
		if (i % 16 == 0) {
			low = fcntl(t->devnull, F_DUPFD, 0);
			if (low < 0)
				return;
			close(low);
		}
		xclose(c, low + (int)fz_below(c, 4));
	}
}

static void op_dup2(struct fz_ctx *c, struct tbl *t)
{
	int src = fz_chance(c, 50) ? pick_fd(c, t->dmas) : pick_fd(c, t->eps);
	int dst = 3 + (int)fz_below(c, FZ_CHAOS_FD_MAX - 3), ret;

	if (src < 0)
		return;
	fz_fd_lock();
	fz_begin(c, "dup2(%d, %d)", src, dst);
	ret = dup2(src, dst);
	fz_end(c, ret, errno);
	fz_fd_unlock();
}

static void op_open(struct fz_ctx *c, struct tbl *t)
{
	int *p = slot_of(c, t->extra);

	*p = fz_open_dev(c, fz_chance(c, 80) ? O_RDWR : O_RDONLY);
}

/* ---- fork ---------------------------------------------------------------------------- */

static void chaos_step(struct fz_ctx *c, struct tbl *t);

static void op_fork(struct fz_ctx *c, struct tbl *t)
{
	uint64_t cseed = fz_rand(c);
	int status, steps = 10 + (int)fz_below(c, 100);
	pid_t pid, w;

	fz_begin(c, "fork()");
	pid = fork();
	if (pid == 0) {
		struct fz_ctx cc;
		struct fz_slot *s = fz_slot_get("t%d.child", t->idx);
		int i;

		fz_ctx_init(&cc, s, cseed);
		fz_in_child = true;
		t->child = true;
		t->nl = NULL;
		for (i = 0; i < steps && !fz_stopped(); i++)
			chaos_step(&cc, t);
		if (s) {
			__atomic_add_fetch(&fz_sh->slots[0].calls, s->calls,
					   __ATOMIC_RELAXED);
			s->calls = 0;
			__atomic_store_n(&s->used, 0, __ATOMIC_RELEASE);
		}
		_exit(0);
	}
	fz_end(c, pid, errno);
	if (pid < 0)
		return;
	__atomic_add_fetch(&fz_sh->forks, 1, __ATOMIC_RELAXED);
	fz_begin(c, "waitpid(%d)", pid);
	w = waitpid(pid, &status, 0);
	fz_end(c, w, errno);
	if (w == pid && WIFSIGNALED(status))
		fz_fail(c, "child %d killed by signal %d", pid,
			WTERMSIG(status));
}

/*
 * A burst of valid fd-creating ioctls: with the close storms of the other
 * threads this is the "DMA_OPEN while another thread closes the fd
 * number" race and its EP_ALLOC and MEM_IMPORT siblings.
 */
static void op_burst(struct fz_ctx *c, struct tbl *t)
{
	unsigned int what = (unsigned int)fz_below(c, 3);
	int i, n = 8 + (int)fz_below(c, 25), fd;
	long ret;

	for (i = 0; i < n && !fz_stopped(); i++) {
		memset(t->abuf, 0, 4096);
		if (what == 0) {
			struct snode_dma_open *a = (void *)t->abuf;

			a->size = sizeof(*a);
			a->flags = SNODE_DMA_NONBLOCK;
			a->depth = 1 + (uint32_t)fz_below(c, 8);
			fz_begin(c, "ioctl(%d, DMA_OPEN) burst", t->dev_rw);
			ret = ioctl(t->dev_rw, SNODE_IOCTL_DMA_OPEN, a);
			fz_end(c, ret, errno);
			fd = a->out_fd;
			if (!ret)
				*slot_of(c, t->dmas) = fd;
		} else if (what == 1) {
			struct snode_ep_alloc *a = (void *)t->abuf;

			a->size = sizeof(*a);
			a->flags = SNODE_EP_NONBLOCK | SNODE_EP_RANDOM_KEY;
			a->entries = 2;
			fz_begin(c, "ioctl(%d, EP_ALLOC) burst", t->dev_rw);
			ret = ioctl(t->dev_rw, SNODE_IOCTL_EP_ALLOC, a);
			fz_end(c, ret, errno);
			if (!ret) {
				int *p = slot_of(c, t->eps);

				*p = a->out_fd;
				t->ep_ids[p - t->eps] = a->out_id;
				t->ep_keys[p - t->eps] = a->out_key;
			}
		} else {
			struct snode_mem_import *a = (void *)t->abuf;
			struct imp *im = &t->imps[fz_below(c, NTAB)];

			if (fz_opt.sim_node < 0)
				return;
			a->size = sizeof(*a);
			a->node = (uint32_t)fz_opt.sim_node;
			a->export_id = fz_opt.sim_id;
			a->key = fz_opt.sim_key;
			a->length = 4096;
			fz_begin(c, "ioctl(%d, MEM_IMPORT) burst", t->dev_rw);
			ret = ioctl(t->dev_rw, SNODE_IOCTL_MEM_IMPORT, a);
			fz_end(c, ret, errno);
			if (!ret) {
				if (im->fd >= 0)
					xclose(c, im->fd);
				im->fd = a->out_fd;
				im->flags = 0;
				im->len = 4096;
			}
		}
		if (ret && !in_set(errno, what == 0 ? e_dma : what == 1 ?
				   e_msg : e_mem))
			fz_fail(c, "a valid %s failed with %s",
				what == 0 ? "DMA_OPEN" : what == 1 ?
				"EP_ALLOC" : "MEM_IMPORT", fz_errname(errno));
	}
}

/* ---- the loop ------------------------------------------------------------------------- */

static void chaos_step(struct fz_ctx *c, struct tbl *t)
{
	unsigned int r = (unsigned int)fz_below(c, 1000);

	/* odd threads lean to closing, even ones to creating */
	if (!t->child && (t->idx & 1) && r < 120) {
		op_chaos_close(c, t);
		return;
	}
	if (!t->child && !(t->idx & 1) && r < 60) {
		op_burst(c, t);
		return;
	}
	r = (unsigned int)fz_below(c, 1000);
	if (r < 450)
		op_ioctl(c, t);
	else if (r < 470)
		op_bad_nr(c, t);
	else if (r < 490)
		op_wrong_file(c, t);
	else if (r < 560)
		op_read(c, t);
	else if (r < 620)
		op_mmap(c, t);
	else if (r < 700)
		op_touch(c, t, t->child);
	else if (r < 730)
		op_unmap(c, t);
	else if (r < 750)
		op_mremap(c, t);
	else if (r < 780)
		op_madvise(c, t);
	else if (r < 820)
		op_close(c, t);
	else if (r < 860)
		op_chaos_close(c, t);
	else if (r < 875)
		op_dup2(c, t);
	else if (r < 890)
		op_open(c, t);
	else if (r < 900 && !t->child)
		op_fork(c, t);
	else if (t->nl)
		fz_nl_op(c, t->nl);
}

static int open_protected(struct fz_ctx *c, struct tbl *t, unsigned long nr)
{
	long ret;

	memset(t->abuf, 0, 4096);
	if (nr == SNODE_IOCTL_EP_ALLOC) {
		struct snode_ep_alloc *a = (void *)t->abuf;

		a->size = sizeof(*a);
		a->flags = SNODE_EP_NONBLOCK | SNODE_EP_RANDOM_KEY;
		fz_fd_lock();
		fz_begin(c, "ioctl(%d, EP_ALLOC) protected", t->dev_rw);
		ret = ioctl(t->dev_rw, nr, a);
		fz_end(c, ret, errno);
		ret = ret ? -1 : fz_protect_fd(a->out_fd);
		fz_fd_unlock();
		return ret;
	} else {
		struct snode_dma_open *a = (void *)t->abuf;

		a->size = sizeof(*a);
		a->flags = SNODE_DMA_NONBLOCK;
		fz_fd_lock();
		fz_begin(c, "ioctl(%d, DMA_OPEN) protected", t->dev_rw);
		ret = ioctl(t->dev_rw, nr, a);
		fz_end(c, ret, errno);
		ret = ret ? -1 : fz_protect_fd(a->out_fd);
		fz_fd_unlock();
		return ret;
	}
}

void *fz_chaos_thread(void *arg)
{
	struct tbl *t = calloc(1, sizeof(*t));
	struct fz_ctx *c = calloc(1, sizeof(*c));
	int idx = (int)(intptr_t)arg, i, p[2];
	struct fz_slot *s = fz_slot_get("t%d", idx);

	fz_ctx_init(c, s, fz_mix(fz_opt.seed) ^ ((uint64_t)fz_node << 40) ^
		    ((uint64_t)idx + 1));
	t->idx = idx;
	for (i = 0; i < NTAB; i++)
		t->extra[i] = t->eps[i] = t->dmas[i] = t->imps[i].fd = -1;
	t->abuf = mmap(NULL, 3 * 4096, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	t->dbuf = mmap(NULL, FZ_DBUF, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	t->robuf = mmap(NULL, 4096, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS,
			-1, 0);
	mprotect(t->abuf + 8192, 4096, PROT_NONE);
	/* the other threads may already close loose numbers */
	fz_fd_lock();
	t->dev_rw = fz_protect_fd(fz_open_dev(c, O_RDWR));
	t->dev_ro = fz_protect_fd(fz_open_dev(c, O_RDONLY));
	t->devnull = fz_protect_fd(open("/dev/null", O_RDWR | O_CLOEXEC));
	if (pipe2(p, O_CLOEXEC | O_NONBLOCK) == 0) {
		t->pipe_r = fz_protect_fd(p[0]);
		close(p[1]);
	}
	fz_fd_unlock();
	if (t->dev_rw < 0 || t->dev_ro < 0) {
		fz_fail(c, "cannot open %s", fz_opt.dev);
	}
	t->info.size = sizeof(t->info);
	if (ioctl(t->dev_rw, SNODE_IOCTL_INFO, &t->info))
		fz_fail(c, "INFO on a fresh open failed: %s",
			fz_errname(errno));
	t->ep_p = open_protected(c, t, SNODE_IOCTL_EP_ALLOC);
	t->dma_p = open_protected(c, t, SNODE_IOCTL_DMA_OPEN);
	t->nl = fz_nl_new(c);

	while (!fz_stopped()) {
		if (t->ep_p < 0 && fz_chance(c, 5))
			t->ep_p = open_protected(c, t, SNODE_IOCTL_EP_ALLOC);
		if (t->dma_p < 0 && fz_chance(c, 5))
			t->dma_p = open_protected(c, t, SNODE_IOCTL_DMA_OPEN);
		chaos_step(c, t);
	}
	for (i = 0; i < NTAB; i++)
		if (t->maps[i].used)
			munmap(t->maps[i].addr, t->maps[i].len);
	fz_nl_free(t->nl);
	return NULL;
}
