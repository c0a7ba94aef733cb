// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * snode-fuzz: the checksummed data path between the two nodes.
 *
 * Exporter (one process per node): allocates FZ_REGION bytes of the pool,
 * exports them read-write under the fixed key FZ_DATA_KEY(node) and keeps
 * scanning the CPU half of its own mapping: a page the peer wrote must hold
 * a consistent record (seqlock header, CRC over the page).
 *
 * Data worker (one process per node): finds the peer's export (the lowest
 * id that takes the fixed key), imports it and, round after round, stores
 * checksummed pages through the window (CPU half) or through the DMA engine
 * (DMA half), reads them back by CPU and by DMA, madvises, forks readers,
 * and keeps what it wrote: any later read of a page, in this round or after
 * a re-import, must return exactly the last record written. The window may
 * be revoked at any time by the injected faults: a SIGBUS, a zero page or a
 * DMA ECONNRESET is accepted only if the import's fd then reports
 * SNODE_WINDOW_STATE_REVOKED (and polls EPOLLPRI | EPOLLERR); anything else is a
 * failure. With --sim it also checks the sim node's pattern.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include "fuzz.h"

struct page_hdr {
	uint64_t seq;		/* odd while being written */
	uint64_t magic;
	uint32_t page;
	uint32_t writer;
	uint32_t crc;		/* over the page with crc = 0 and seq = 0 */
	uint32_t pad;
	uint64_t gen;
};

/* ---- page records ------------------------------------------------------------------- */

static void make_page(unsigned char *buf, uint32_t page, uint64_t gen)
{
	struct page_hdr *h = (void *)buf;
	uint64_t x = fz_mix(fz_opt.seed ^ (gen << 20) ^ page), *w;
	size_t i;

	for (i = sizeof(*h), w = (uint64_t *)(buf + sizeof(*h)); i < 4096;
	     i += 8, w++) {
		x = fz_mix(x);
		*w = x;
	}
	h->seq = 0;
	h->magic = FZ_PAGE_MAGIC;
	h->page = page;
	h->writer = (uint32_t)fz_node;
	h->crc = 0;
	h->pad = 0;
	h->gen = gen;
	h->crc = fz_crc32(buf, 4096);
	h->seq = gen * 2 + 2;
}

/* 0 if buf holds a consistent record; its gen in *gen */
static int check_page(const unsigned char *buf, uint32_t page, uint64_t *gen)
{
	unsigned char tmp[4096];
	struct page_hdr *h = (void *)tmp;
	uint32_t crc;

	memcpy(tmp, buf, 4096);
	if (h->magic != FZ_PAGE_MAGIC || h->page != page)
		return -1;
	crc = h->crc;
	h->seq = 0;
	h->crc = 0;
	if (fz_crc32(tmp, 4096) != crc)
		return -1;
	*gen = h->gen;
	return 0;
}

/* ---- exporter -------------------------------------------------------------------------- */

int fz_exporter_main(void)
{
	struct fz_ctx c;
	struct snode_mem_alloc al = { .size = sizeof(al), .length = FZ_REGION };
	struct snode_mem_export ex = { .size = sizeof(ex) };
	unsigned char *m;
	int fd, ret, p = 0;
	int64_t stop_ns = 0;

	fz_ctx_init(&c, fz_slot_get("exporter"), fz_opt.seed ^ 0xe4 ^ ((uint64_t)fz_node << 40));
	fd = fz_protect_fd(fz_open_dev(&c, O_RDWR));
	if (fd < 0)
		fz_fail(&c, "cannot open %s: %s", fz_opt.dev, strerror(errno));
	fz_begin(&c, "ioctl(%d, MEM_ALLOC, %llu)", fd, FZ_REGION);
	ret = ioctl(fd, SNODE_IOCTL_MEM_ALLOC, &al);
	fz_end(&c, ret, errno);
	if (ret)
		fz_fail(&c, "MEM_ALLOC of the data region: %s",
			fz_errname(errno));
	fz_begin(&c, "mmap(%d, 0x%llx)", fd, (unsigned long long)al.out_offset);
	m = mmap(NULL, FZ_REGION, PROT_READ | PROT_WRITE, MAP_SHARED, fd,
		 (off_t)al.out_offset);
	fz_end(&c, m == MAP_FAILED ? -1 : 0, errno);
	if (m == MAP_FAILED)
		fz_fail(&c, "mmap of the data region: %s", fz_errname(errno));
	ex.flags = SNODE_EXPORT_WRITE;
	ex.alloc = al.out_offset;
	ex.length = FZ_REGION;
	ex.key = FZ_DATA_KEY(fz_node);
	for (;;) {
		fz_begin(&c, "ioctl(%d, MEM_EXPORT, key 0x%llx)", fd,
			 (unsigned long long)ex.key);
		ret = ioctl(fd, SNODE_IOCTL_MEM_EXPORT, &ex);
		fz_end(&c, ret, errno);
		if (!ret)
			break;
		if (errno != ETIMEDOUT && errno != ENOLINK && errno != EAGAIN)
			fz_fail(&c, "MEM_EXPORT of the data region: %s",
				fz_errname(errno));
		if (fz_stopped())
			return 0;
		usleep(200000);
	}
	printf("snode-fuzz: node %d exports the data region: id %u key 0x%llx\n",
	       fz_node, ex.out_export_id, (unsigned long long)ex.key);

	/*
	 * Verify the CPU half: pages are written only by the peer. After the
	 * run keep the export up for FZ_LINGER_S more, so that the peer's
	 * data worker, which may run a little longer, does not see the end
	 * of this run as a revocation.
	 */
	for (;;) {
		if (fz_sh->failed)
			break;
		if (fz_sh->stop) {
			if (!stop_ns)
				stop_ns = fz_now_ns();
			else if (fz_now_ns() - stop_ns > FZ_LINGER_S * 1000000000LL)
				break;
		}
		unsigned char *pg = m + (size_t)p * 4096;
		volatile uint64_t *seq = (volatile uint64_t *)pg;
		uint64_t s1, s2, gen;
		unsigned char copy[4096];
		int sig;

		s1 = *seq;
		__sync_synchronize();
		/* a plain load of local memory: not counted as a call */
		sig = fz_touch_read(&c, pg, 4096, NULL);
		memcpy(copy, pg, 4096);
		if (sig)
			fz_fail(&c, "signal %d reading page %d of the exporter's own pool mapping",
				sig, p);
		__sync_synchronize();
		s2 = *seq;
		if (s1 == s2 && s1 && !(s1 & 1)) {
			if (check_page(copy, (uint32_t)p, &gen))
				fz_fail(&c, "exported page %d: a stable record (seq %" PRIu64 ") fails its checksum",
					p, s1);
			if (gen * 2 + 2 != s1)
				fz_fail(&c, "exported page %d: seq %" PRIu64 " but gen %" PRIu64,
					p, s1, gen);
			__atomic_add_fetch(&fz_sh->exp_pages, 1,
					   __ATOMIC_RELAXED);
		}
		p = (p + 1) % (int)FZ_CPU_PAGES;
		if (!p)
			usleep(20000);
	}
	return 0;
}

/* ---- data worker ------------------------------------------------------------------------ */

struct dw {
	struct fz_ctx c;
	int dev, dma;
	uint32_t export_id;
	bool found;
	uint64_t expect[FZ_PAGES];	/* last gen written, 0: unknown */
	bool written[FZ_PAGES];		/* stored to in this round */
	uint64_t gen;
	unsigned char *buf;		/* 2 pages */
	int sim_fd;
	volatile uint64_t *sim;
};

static int import(struct dw *d, uint32_t node, uint32_t id, uint64_t key,
		  uint64_t len, uint32_t flags)
{
	struct snode_mem_import im = { .size = sizeof(im), .flags = flags,
				       .node = node, .export_id = id,
				       .key = key, .length = len };
	int ret;

	fz_begin(&d->c, "ioctl(%d, MEM_IMPORT, %u:%u key 0x%llx len %llu flags %u)",
		 d->dev, node, id, (unsigned long long)key,
		 (unsigned long long)len, flags);
	ret = ioctl(d->dev, SNODE_IOCTL_MEM_IMPORT, &im);
	fz_end(&d->c, ret, errno);
	if (ret) {
		if (errno != ENOENT && errno != EKEYREJECTED &&
		    errno != EHOSTUNREACH && errno != ETIMEDOUT &&
		    errno != ENOLINK && errno != ENOSPC && errno != EAGAIN &&
		    errno != EACCES)
			fz_fail(&d->c, "MEM_IMPORT of %u:%u: unexpected %s",
				node, id, fz_errname(errno));
		return -errno;
	}
	return fz_protect_fd(im.out_fd);
}

static uint32_t import_state(struct dw *d, int fd, struct snode_import_status *st)
{
	int ret;

	fz_begin(&d->c, "ioctl(%d, IMPORT_STATUS)", fd);
	ret = ioctl(fd, SNODE_IOCTL_IMPORT_STATUS, st);
	fz_end(&d->c, ret, errno);
	if (ret)
		fz_fail(&d->c, "IMPORT_STATUS on a live import fd: %s",
			fz_errname(errno));
	return st->out_state;
}

/*
 * The device revokes first and tells the driver with an event
 * (Documentation/hw/snode-nic.rst): a window that reads all-ones, or a DMA
 * copy the device ended as REVOKED, may come before the driver has handled
 * that event. Does the import say revoked within FZ_REVOKE_LAG_MS? A
 * revoked import polls POLLPRI, so the wait ends as soon as it does.
 */
static bool revocation_arrives(struct dw *d, int fd,
			       struct snode_import_status *st)
{
	struct pollfd p = { .fd = fd, .events = POLLPRI };
	int ret;

	fz_begin(&d->c, "poll(%d, POLLPRI, %d ms) for the driver to hear of the revocation",
		 fd, FZ_REVOKE_LAG_MS);
	ret = poll(&p, 1, FZ_REVOKE_LAG_MS);
	fz_end(&d->c, ret, errno);
	return import_state(d, fd, st) == SNODE_WINDOW_STATE_REVOKED;
}

/*
 * Is the import revoked? @need: the window just failed (SIGBUS, zeros, a DMA
 * copy with ECONNRESET), so it must be, once the driver has heard.
 */
static bool revoked(struct dw *d, int fd, bool need)
{
	struct snode_import_status st = { .size = sizeof(st) };
	struct pollfd p = { .fd = fd, .events = POLLPRI };
	int ret;

	if (import_state(d, fd, &st) != SNODE_WINDOW_STATE_REVOKED) {
		if (!need)
			return false;
		if (!revocation_arrives(d, fd, &st))
			fz_fail(&d->c, "the window failed (SIGBUS, zeros or ECONNRESET) but IMPORT_STATUS says it is active %d ms later",
				FZ_REVOKE_LAG_MS);
		__atomic_add_fetch(&fz_sh->revoke_lag, 1, __ATOMIC_RELAXED);
	}
	fz_begin(&d->c, "poll(%d, POLLPRI)", fd);
	ret = poll(&p, 1, 1000);
	fz_end(&d->c, ret, errno);
	if (ret != 1 || (p.revents & (POLLPRI | POLLERR)) !=
	    (POLLPRI | POLLERR))
		fz_fail(&d->c, "revoked import (reason %u) polls 0x%x, not POLLPRI|POLLERR",
			st.out_reason, p.revents);
	__atomic_add_fetch(&fz_sh->revocations, 1, __ATOMIC_RELAXED);
	fz_note(&d->c, "revoked, reason %u", st.out_reason);
	return true;
}

static void find_export(struct dw *d)
{
	uint32_t id;
	int fd;

	for (id = 0; id < 16 && !fz_stopped(); id++) {
		fd = import(d, (uint32_t)fz_opt.peer, id,
			    FZ_DATA_KEY(fz_opt.peer), 4096, 0);
		if (fd >= 0) {
			close(fd);
			d->export_id = id;
			d->found = true;
			__atomic_store_n(&fz_sh->data_export_id, id,
					 __ATOMIC_RELAXED);
			printf("snode-fuzz: node %d found node %d's data export: id %u\n",
			       fz_node, fz_opt.peer, id);
			return;
		}
		if (fd != -EKEYREJECTED && fd != -ENOENT)
			break;	/* the fabric is in trouble: try later */
	}
}

/* verify a page image against what we last wrote there */
static int verify(struct dw *d, const unsigned char *img, uint32_t page,
		  const char *how)
{
	uint64_t gen;

	if (!d->expect[page])
		return 0;
	if (check_page(img, page, &gen) || gen != d->expect[page]) {
		fz_note(&d->c, "page %u via %s: want gen %" PRIu64 ", got %s",
			page, how, d->expect[page],
			check_page(img, page, &gen) ? "a bad record" : "an old gen");
		return -1;
	}
	__atomic_add_fetch(&fz_sh->data_pages, 1, __ATOMIC_RELAXED);
	return 0;
}

/*
 * Is every 8-byte word of @img either the last record written (gen @gen) or
 * all-ones, and at least one all-ones? That is a copy the device's
 * revocation cut: the loads after it read the hole's all-ones, the ones
 * before it the record, in whatever order memcpy() made them.
 */
static bool ones_or_record(const unsigned char *img, uint32_t page,
			   uint64_t gen)
{
	uint64_t want[512], got[512];
	size_t i, ones = 0;

	make_page((unsigned char *)want, page, gen);
	memcpy(got, img, sizeof(got));
	for (i = 0; i < 512; i++) {
		if (got[i] == ~0ULL)
			ones++;
		else if (got[i] != want[i])
			return false;
	}
	return ones > 0;
}

/*
 * A page differs from the last record written. Fine if the window was
 * revoked (zero page, or the exporter's memory went away with it); else a
 * failure, described with what was read and how the import's state looks
 * now and a little later.
 */
static void mismatch(struct dw *d, int imp, const unsigned char *img,
		     uint32_t page, const char *how)
{
	const struct page_hdr *h = (const void *)img;
	struct snode_import_status st = { .size = sizeof(st) };
	uint32_t state2 = 0, reason2 = 0;

	size_t i;

	if (revoked(d, imp, false))
		return;
	/*
	 * All-ones: the device already treats the window as a hole (it
	 * revoked the ATT entry, Documentation/hw/snode-nic.rst) but the
	 * driver has not handled WINDOW_REVOKED yet; or only some words,
	 * the rest the record, if the revocation came during the copy.
	 * Accepted, and counted, if the import reports the revocation
	 * within FZ_REVOKE_LAG_MS.
	 */
	for (i = 0; i < 4096 && img[i] == 0xff; i++)
		;
	if ((i == 4096 || ones_or_record(img, page, d->expect[page])) &&
	    revocation_arrives(d, imp, &st) && revoked(d, imp, false)) {
		__atomic_add_fetch(&fz_sh->ones, 1, __ATOMIC_RELAXED);
		return;
	}
	usleep(300000);
	fz_begin(&d->c, "ioctl(%d, IMPORT_STATUS) 300 ms later", imp);
	if (!ioctl(imp, SNODE_IOCTL_IMPORT_STATUS, &st)) {
		state2 = st.out_state;
		reason2 = st.out_reason;
	}
	fz_end(&d->c, 0, 0);
	fz_fail(&d->c, "page %u: %s read differs from the last record written (gen %" PRIu64 ") while the import is active: read magic 0x%" PRIx64 " page %u gen %" PRIu64 " seq %" PRIu64 "; 300 ms later the import is %s (reason %u)",
		page, how, d->expect[page], h->magic, h->page, h->gen, h->seq,
		state2 == SNODE_WINDOW_STATE_REVOKED ? "revoked" :
		state2 == SNODE_WINDOW_STATE_ACTIVE ? "still active" : "unknown",
		reason2);
}

static int cpu_read(struct dw *d, unsigned char *w, uint32_t page,
		    unsigned char *out)
{
	int sig;

	fz_begin(&d->c, "load window page %u", page);
	sig = fz_touch_read(&d->c, w + (size_t)page * 4096, 4096, NULL);
	if (!sig) {
		/* a revocation may zap the page between the touch and the copy */
		sig = sigsetjmp(d->c.jb, 1);
		if (!sig) {
			d->c.jb_armed = 1;
			__sync_synchronize();
			memcpy(out, w + (size_t)page * 4096, 4096);
			d->c.jb_armed = 0;
		} else {
			__atomic_add_fetch(&fz_sh->sigbus, 1, __ATOMIC_RELAXED);
		}
	}
	fz_end(&d->c, sig ? -1 : 0, sig ? EFAULT : 0);
	return sig;
}

static int cpu_write(struct dw *d, unsigned char *w, uint32_t page)
{
	volatile uint64_t *seq = (volatile uint64_t *)(w + (size_t)page * 4096);
	uint64_t gen = ++d->gen;
	int sig;

	make_page(d->buf, page, gen);
	d->expect[page] = 0;	/* unknown until the store completes */
	fz_begin(&d->c, "store window page %u gen %" PRIu64, page, gen);
	sig = fz_touch_write(&d->c, seq, gen * 2 + 1);
	if (!sig) {
		d->c.jb_armed = 0;
		sig = sigsetjmp(d->c.jb, 1);
		if (!sig) {
			d->c.jb_armed = 1;
			__sync_synchronize();
			memcpy(w + (size_t)page * 4096 + 8, d->buf + 8, 4088);
			__sync_synchronize();
			*seq = gen * 2 + 2;
			d->c.jb_armed = 0;
		}
	}
	fz_end(&d->c, sig ? -1 : 0, sig ? EFAULT : 0);
	if (!sig) {
		d->expect[page] = gen;
		d->written[page] = true;
	}
	return sig;
}

/* one DMA copy with SUBMIT_WAIT; 0, or the per-copy status */
static int dma_copy(struct dw *d, int imp, uint32_t page, bool to)
{
	struct snode_dma_req r = {
		.flags = to ? SNODE_DMA_TO_GLOBAL : SNODE_DMA_FROM_GLOBAL,
		.import_fd = imp, .offset = (uint64_t)page * 4096,
		.addr = (uintptr_t)d->buf, .length = 4096,
	};
	struct snode_dma_submit s = { .size = sizeof(s),
				      .flags = SNODE_DMA_SUBMIT_WAIT, .count = 1,
				      .req_size = sizeof(r),
				      .reqs = (uintptr_t)&r };
	int ret;

	fz_begin(&d->c, "ioctl(%d, DMA_SUBMIT WAIT, %s page %u)", d->dma,
		 to ? "to" : "from", page);
	ret = ioctl(d->dma, SNODE_IOCTL_DMA_SUBMIT, &s);
	fz_end(&d->c, ret ? -1 : r.out_status, ret ? errno : -r.out_status);
	if (ret) {
		if (errno == ECONNRESET)
			return -ECONNRESET;
		fz_fail(&d->c, "DMA_SUBMIT of a valid copy failed: %s",
			fz_errname(errno));
	}
	if (r.out_status == 0 && r.out_bytes != 4096)
		fz_fail(&d->c, "DMA copy succeeded with %llu bytes of 4096",
			(unsigned long long)r.out_bytes);
	if (r.out_status && r.out_status != -ECONNRESET)
		fz_fail(&d->c, "DMA copy status %s", fz_errname(-r.out_status));
	return r.out_status;
}

static void sim_check(struct dw *d)
{
	uint64_t words, o, v = 0;
	int sig, i;

	if (fz_opt.sim_node < 0)
		return;
	if (d->sim_fd < 0) {
		d->sim_fd = import(d, (uint32_t)fz_opt.sim_node, fz_opt.sim_id,
				   fz_opt.sim_key, fz_opt.sim_len, 0);
		if (d->sim_fd < 0)
			return;
		d->sim = mmap(NULL, fz_opt.sim_len, PROT_READ, MAP_SHARED,
			      d->sim_fd, 0);
		if (d->sim == MAP_FAILED)
			fz_fail(&d->c, "mmap of the sim import: %s",
				fz_errname(errno));
	}
	words = fz_opt.sim_len / 8;
	for (i = 0; i < 16; i++) {
		o = fz_below(&d->c, words);
		fz_begin(&d->c, "load sim window word %" PRIu64, o);
		sig = fz_touch_read(&d->c, &d->sim[o], 8, NULL);
		if (!sig)
			v = d->sim[o];
		fz_end(&d->c, sig ? -1 : 0, sig ? EFAULT : 0);
		if (sig || v != ((uint64_t)fz_opt.sim_node << 40 | o * 8)) {
			struct snode_import_status st = { .size = sizeof(st) };

			/* all-ones: revoked by the device, not yet the driver */
			if (!sig && v == ~0ULL &&
			    revocation_arrives(d, d->sim_fd, &st))
				__atomic_add_fetch(&fz_sh->ones, 1,
						   __ATOMIC_RELAXED);
			if (!sig && v != ~0ULL && v && !revoked(d, d->sim_fd, false))
				fz_fail(&d->c, "sim window word %" PRIu64 ": 0x%" PRIx64 " while the import is active",
					o, v);
			if (!revoked(d, d->sim_fd, true))
				return;
			/*
			 * The load above may predate the revocation (all-ones
			 * from the device): load again, now that the driver
			 * says revoked; that must fault or read zero.
			 */
			fz_begin(&d->c, "load sim window word %" PRIu64 " after revocation", o);
			sig = fz_touch_read(&d->c, &d->sim[o], 8, NULL);
			v = sig ? 0 : d->sim[o];
			fz_end(&d->c, sig ? -1 : 0, sig ? EFAULT : 0);
			if (!sig && v)
				fz_fail(&d->c, "sim window word %" PRIu64 ": 0x%" PRIx64 " after revocation",
					o, v);
			munmap((void *)d->sim, fz_opt.sim_len);
			close(d->sim_fd);
			d->sim_fd = -1;
			return;
		}
		__atomic_add_fetch(&fz_sh->sim_checks, 1, __ATOMIC_RELAXED);
	}
}

/* a child reads pages through the inherited mapping */
static void fork_reader(struct dw *d, unsigned char *w, int imp)
{
	uint32_t page = (uint32_t)fz_below(&d->c, FZ_CPU_PAGES);
	int status;
	pid_t pid, r;

	fz_begin(&d->c, "fork() reader of page %u", page);
	pid = fork();
	if (pid == 0) {
		unsigned char img[4096];

		fz_in_child = true;
		fz_ctx_init(&d->c, fz_slot_get("data.child"), fz_rand(&d->c));
		if (cpu_read(d, w, page, img)) {
			revoked(d, imp, true);
			_exit(0);
		}
		if (verify(d, img, page, "a forked child"))
			mismatch(d, imp, img, page, "a forked child's CPU");
		__atomic_store_n(&d->c.slot->used, 0, __ATOMIC_RELEASE);
		_exit(0);
	}
	fz_end(&d->c, pid, errno);
	if (pid < 0)
		return;
	__atomic_add_fetch(&fz_sh->forks, 1, __ATOMIC_RELAXED);
	fz_begin(&d->c, "waitpid(%d)", pid);
	r = waitpid(pid, &status, 0);
	fz_end(&d->c, r, errno);
	if (r == pid && WIFSIGNALED(status))
		fz_fail(&d->c, "data reader child killed by signal %d",
			WTERMSIG(status));
}

/* one import of the peer's region; returns when it was revoked or done */
static void round_trip(struct dw *d)
{
	uint32_t flags = SNODE_IMPORT_WRITE |
			 (fz_chance(&d->c, 30) ? SNODE_IMPORT_ZERO_PAGE_ON_REVOKE : 0);
	int imp, steps = 16 + (int)fz_below(&d->c, 64), i;
	unsigned char img[4096];
	unsigned char *w;

	imp = import(d, (uint32_t)fz_opt.peer, d->export_id,
		     FZ_DATA_KEY(fz_opt.peer), FZ_REGION, flags);
	if (imp < 0) {
		if (imp == -ENOENT || imp == -EKEYREJECTED)
			d->found = false;	/* re-exported elsewhere? */
		usleep(100000);
		return;
	}
	/* a read-only mapping must never become writable */
	if (fz_chance(&d->c, 5)) {
		int ro = import(d, (uint32_t)fz_opt.peer, d->export_id,
				FZ_DATA_KEY(fz_opt.peer), 4096, 0);

		if (ro >= 0) {
			void *p;

			fz_begin(&d->c, "mmap(RW, SHARED, read-only import %d)", ro);
			p = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED,
				 ro, 0);
			fz_end(&d->c, p == MAP_FAILED ? -1 : 0, errno);
			if (p != MAP_FAILED)
				fz_fail(&d->c, "a read-only import was mapped writable");
			close(ro);
		}
	}
	fz_begin(&d->c, "mmap(RW, SHARED, import %d, %llu)", imp, FZ_REGION);
	w = mmap(NULL, FZ_REGION, PROT_READ | PROT_WRITE, MAP_SHARED, imp, 0);
	fz_end(&d->c, w == MAP_FAILED ? -1 : 0, errno);
	if (w == MAP_FAILED) {
		if (!revoked(d, imp, false))
			fz_fail(&d->c, "mmap of an active import: %s",
				fz_errname(errno));
		close(imp);
		return;
	}
	__atomic_add_fetch(&fz_sh->data_rounds, 1, __ATOMIC_RELAXED);
	for (i = 0; i < steps && !fz_stopped(); i++) {
		unsigned int op = (unsigned int)fz_below(&d->c, 10);
		uint32_t cpu_pg = (uint32_t)fz_below(&d->c, FZ_CPU_PAGES);
		uint32_t dma_pg = (uint32_t)(FZ_CPU_PAGES +
					     fz_below(&d->c, FZ_PAGES - FZ_CPU_PAGES));
		int sig, st;

		switch (op) {
		case 0: case 1: case 2:
			sig = cpu_write(d, w, cpu_pg);
			if (!sig)
				sig = cpu_read(d, w, cpu_pg, img);
			if (sig) {
				d->expect[cpu_pg] = 0;
				revoked(d, imp, true);
				goto out;
			}
			if (verify(d, img, cpu_pg, "CPU after a CPU store")) {
				mismatch(d, imp, img, cpu_pg, "CPU (after a store)");
				goto out;
			}
			break;
		case 3: case 4:
			sig = cpu_read(d, w, op == 3 ? cpu_pg : dma_pg, img);
			if (sig) {
				revoked(d, imp, true);
				goto out;
			}
			if (verify(d, img, op == 3 ? cpu_pg : dma_pg, "CPU")) {
				mismatch(d, imp, img, op == 3 ? cpu_pg : dma_pg,
					 "CPU");
				goto out;
			}
			break;
		case 5: case 6:
			if (d->dma < 0)
				break;
			make_page(d->buf, dma_pg, ++d->gen);
			d->expect[dma_pg] = 0;
			st = dma_copy(d, imp, dma_pg, true);
			if (st) {
				revoked(d, imp, true);
				goto out;
			}
			d->expect[dma_pg] = d->gen;
			d->written[dma_pg] = true;
			break;
		case 7: {
			uint32_t pg = fz_chance(&d->c, 50) ? cpu_pg : dma_pg;

			if (d->dma < 0)
				break;
			memset(d->buf, 0, 4096);
			st = dma_copy(d, imp, pg, false);
			if (st) {
				revoked(d, imp, true);
				goto out;
			}
			if (verify(d, d->buf, pg, "DMA")) {
				mismatch(d, imp, d->buf, pg, "DMA");
				goto out;
			}
			break;
		}
		case 8:
			fz_begin(&d->c, "madvise(window, DONTNEED)");
			fz_end(&d->c, madvise(w, FZ_REGION, MADV_DONTNEED), errno);
			sim_check(d);
			break;
		default:
			if (fz_chance(&d->c, 30))
				fork_reader(d, w, imp);
			break;
		}
	}
	/*
	 * Stores into a window the device revoked are dropped without a
	 * signal until the driver zaps the mapping: before trusting what
	 * this round wrote, read it back through the (still active) window.
	 */
	for (i = 0; i < (int)FZ_PAGES && !fz_stopped(); i++) {
		if (!d->written[i] || !d->expect[i])
			continue;
		if (cpu_read(d, w, (uint32_t)i, img)) {
			revoked(d, imp, true);
			goto out;
		}
		if (verify(d, img, (uint32_t)i, "CPU, end of round")) {
			mismatch(d, imp, img, (uint32_t)i, "CPU (end of round)");
			goto out;
		}
		d->written[i] = false;
	}
out:
	/* whatever this round wrote and did not read back is unknown */
	for (i = 0; i < (int)FZ_PAGES; i++) {
		if (d->written[i])
			d->expect[i] = 0;
		d->written[i] = false;
	}
	fz_begin(&d->c, "munmap(window)");
	fz_end(&d->c, munmap(w, FZ_REGION), errno);
	fz_begin(&d->c, "close(import %d)", imp);
	fz_end(&d->c, close(imp), errno);
}

int fz_data_main(void)
{
	struct dw *d = calloc(1, sizeof(*d));
	struct snode_dma_open q = { .size = sizeof(q), .depth = 4 };

	fz_ctx_init(&d->c, fz_slot_get("data"), fz_opt.seed ^ 0xda7a ^ ((uint64_t)fz_node << 40));
	d->sim_fd = -1;
	d->buf = mmap(NULL, 8192, PROT_READ | PROT_WRITE,
		      MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	d->dev = fz_protect_fd(fz_open_dev(&d->c, O_RDWR));
	if (d->dev < 0)
		fz_fail(&d->c, "cannot open %s", fz_opt.dev);
	fz_begin(&d->c, "ioctl(%d, DMA_OPEN)", d->dev);
	d->dma = ioctl(d->dev, SNODE_IOCTL_DMA_OPEN, &q) ? -1 :
		 fz_protect_fd(q.out_fd);
	fz_end(&d->c, d->dma, errno);
	while (!fz_stopped()) {
		if (!d->found) {
			find_export(d);
			if (!d->found) {
				usleep(200000);
				continue;
			}
		}
		round_trip(d);
		sim_check(d);
	}
	return 0;
}
