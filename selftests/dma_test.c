// SPDX-License-Identifier: GPL-2.0
/*
 * snode DMA selftests: copies between user memory and imported global
 * memory in both directions and every size class, permissions, the ioctl
 * ABI, asynchronous completion, revocation mid-copy, exit with copies in
 * flight.
 *
 * Runs as root in a guest with snode.ko loaded, on selftests/vm/msg.topo:
 * simulated node 2 exports 0 (32M read-write), 1 (4M read-only) and 2 (4M
 * read-write, right behind export 0). Revocation uses an export of this
 * node's own pool, imported by this node.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <pthread.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <linux/capability.h>
#include <linux/snode.h>

#include "kselftest_harness.h"
#include "snode_test.h"
#include "snode_nl.h"

#define SNODE_DEV	"/dev/snode0"
#define SIM_NODE	2
#define SIM_RW		0
#define SIM_RW_KEY	0x5100
#define SIM_RW_LEN	(32UL << 20)
#define SIM_RO		1
#define SIM_RO_KEY	0x5101
#define SIM_RO_LEN	(4UL << 20)
#define SIM_NEXT	2	/* right behind SIM_RW in the sim node's pool */
#define SIM_NEXT_KEY	0x5102
#define SIM_NEXT_LEN	(4UL << 20)
#define MB		(1UL << 20)


static struct snode_dma_req req(__u32 flags, int ifd, __u64 off, void *buf,
				__u64 len, __u64 user_data)
{
	return (struct snode_dma_req){
		.flags = flags,
		.import_fd = ifd,
		.offset = off,
		.addr = (uintptr_t)buf,
		.length = len,
		.user_data = user_data,
	};
}

/* Submit @n requests; returns how many were queued, or -1 with errno. */
static int _dma_submit(int q, struct snode_dma_req *r, __u32 n, __u32 flags)
{
	struct snode_dma_submit cmd = {
		.size = sizeof(cmd),
		.flags = flags,
		.count = n,
		.req_size = sizeof(*r),
		.reqs = (uintptr_t)r,
	};

	if (ioctl(q, SNODE_IOCTL_DMA_SUBMIT, &cmd))
		return -1;
	return cmd.out_submitted;
}

#define test_dma_copy(flags, ifd, off, buf, len) \
	ASSERT_EQ(0, sn_dma_copy(self->q, flags, ifd, off, buf, len, NULL))
#define test_err_dma_copy(_errno, flags, ifd, off, buf, len) \
	EXPECT_EQ(-(_errno), sn_dma_copy(self->q, flags, ifd, off, buf, len, NULL))

static void fill_random(void *p, size_t len, unsigned int seed)
{
	uint32_t x = seed * 2654435761u + 1;
	uint8_t *b = p;
	size_t i;

	for (i = 0; i < len; i++) {
		x ^= x << 13;
		x ^= x >> 17;
		x ^= x << 5;
		b[i] = x;
	}
}

/* A buffer whose head is misaligned by @skew, with room to spare. */
static void *buffer(size_t len)
{
	void *p = mmap(NULL, len + 2 * 4096, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	return p == MAP_FAILED ? NULL : p;
}

/* Pages pinned and not yet unpinned, or LONG_MIN if unknown. */
static long foll_pins_outstanding(void)
{
	long acquired = -1, released = -1, v;
	char name[64];
	FILE *f;
	int fd;

	/* fold the per-CPU deltas, which would make the difference drift */
	fd = open("/proc/sys/vm/stat_refresh", O_WRONLY);
	if (fd >= 0) {
		if (write(fd, "1", 1) != 1)
			perror("stat_refresh");
		close(fd);
	}
	f = fopen("/proc/vmstat", "r");
	if (!f)
		return LONG_MIN;
	while (fscanf(f, "%63s %ld", name, &v) == 2) {
		if (!strcmp(name, "nr_foll_pin_acquired"))
			acquired = v;
		else if (!strcmp(name, "nr_foll_pin_released"))
			released = v;
	}
	fclose(f);
	return acquired < 0 || released < 0 ? LONG_MIN : acquired - released;
}

/*
 * The pins outstanding once they are back to @before, or after 10 s: the
 * last copies' pages are unpinned when their completions are retired.
 */
static long foll_pins_settle(long before)
{
	long now = -1;
	int i;

	for (i = 0; i < 100; i++) {
		now = foll_pins_outstanding();
		if (now <= before)
			break;
		usleep(100000);
	}
	return now;
}


/*
 * Fault in @len bytes at @p with the byte @v, even pages first, then odd
 * ones, so that no two neighbouring pages are physically adjacent: the
 * DMA mapping then has a segment, and the copy a descriptor, per page,
 * and a few MiB of copies are more than the ring's 255 descriptors.
 */
static void fill_scattered(uint8_t *p, size_t len, int v)
{
	size_t i;

	madvise(p, len, MADV_NOHUGEPAGE);
	for (i = 0; i < len; i += 2 * 4096)
		memset(p + i, v, 4096);
	for (i = 4096; i < len; i += 2 * 4096)
		memset(p + i, v, 4096);
}

/* Sizes that cross every boundary the driver and the device cut at. */
static const size_t sizes[] = {
	1, 3, 64, 4095, 4096, 4097, 65536 + 13, (256 << 10) + 1,
	MB + 5, 4 * MB + 4093, 16 * MB, 16 * MB + 7, 24 * MB + 3,
};

FIXTURE(dma) {
	int fd;
	int q;
	int rw;		/* import of the sim node's read-write export */
	uint8_t *win;	/* its mapping */
	struct snode_info info;
};

FIXTURE_SETUP(dma)
{
	self->fd = sn_open_info(SNODE_DEV, &self->info);
	ASSERT_LE(0, self->fd);
	ASSERT_TRUE(self->info.out_caps & SNODE_CAP_DMA);
	self->q = sn_dma_open(self->fd, 0, 0);
	ASSERT_LE(0, self->q);
	self->rw = sn_import(self->fd, SNODE_IMPORT_WRITE, SIM_NODE, SIM_RW,
			     SIM_RW_KEY, 0, SIM_RW_LEN);
	ASSERT_LE(0, self->rw);
	self->win = mmap(NULL, SIM_RW_LEN, PROT_READ | PROT_WRITE, MAP_SHARED,
			 self->rw, 0);
	ASSERT_NE(MAP_FAILED, self->win);
}

FIXTURE_TEARDOWN(dma)
{
	munmap(self->win, SIM_RW_LEN);
	close(self->rw);
	close(self->q);
	close(self->fd);
}

/* As the member user: 0 if it can open a DMA queue, else the step. */
static int member_dma_open(void *arg)
{
	int fd = open(SNODE_DEV, O_RDWR);

	(void)arg;
	if (fd < 0)
		return 1;
	return sn_dma_open(fd, 0, 0) < 0 ? 2 : 0;
}

/*
 * A user opens at most max_dma_queues queues on a NIC (EMFILE beyond; the
 * fixture's queue counts), through however many files; another user is
 * not affected.
 */
TEST_F(dma, per_user_cap)
{
	int q, other;
	long cap;

	cap = set_param("max_dma_queues", 2);
	ASSERT_LE(0, cap);
	q = sn_dma_open(self->fd, 0, 0);
	EXPECT_LE(0, q);
	EXPECT_ERRNO(EMFILE, sn_dma_open(self->fd, 0, 0));
	other = open(SNODE_DEV, O_RDWR);
	ASSERT_LE(0, other);
	EXPECT_ERRNO(EMFILE, sn_dma_open(other, 0, 0));
	EXPECT_EQ(0, sn_run_member(SNODE_DEV, member_dma_open, NULL));
	close(other);
	close(q);
	q = sn_dma_open(self->fd, 0, 0);
	EXPECT_LE(0, q);
	close(q);
	EXPECT_LE(0, set_param("max_dma_queues", cap));
}

TEST_F(dma, open_abi)
{
	struct snode_dma_open o = { .size = offsetofend(struct snode_dma_open, out_fd) - 1 };
	int ro, q;

	EXPECT_ERRNO(EINVAL, ioctl(self->fd, SNODE_IOCTL_DMA_OPEN, &o));
	o = (struct snode_dma_open){ .size = sizeof(o), .flags = 1 << 9 };
	EXPECT_ERRNO(EOPNOTSUPP, ioctl(self->fd, SNODE_IOCTL_DMA_OPEN, &o));
	o = (struct snode_dma_open){ .size = sizeof(o), .depth = 4097 };
	EXPECT_ERRNO(EINVAL, ioctl(self->fd, SNODE_IOCTL_DMA_OPEN, &o));

	q = sn_dma_open(self->fd, 0, SNODE_DMA_NONBLOCK);
	ASSERT_LE(0, q);
	EXPECT_EQ(FD_CLOEXEC, fcntl(q, F_GETFD) & FD_CLOEXEC);
	EXPECT_EQ(O_NONBLOCK, fcntl(q, F_GETFL) & O_NONBLOCK);
	close(q);

	ro = open(SNODE_DEV, O_RDONLY);
	ASSERT_LE(0, ro);
	EXPECT_ERRNO(EPERM, sn_dma_open(ro, 0, 0));
	close(ro);
	/* the queue's descriptor takes only the submit ioctl */
	EXPECT_ERRNO(ENOTTY, ioctl(self->q, SNODE_IOCTL_INFO, &self->info));
	EXPECT_ERRNO(ENOTTY, ioctl(self->fd, SNODE_IOCTL_DMA_SUBMIT, &o));
}

/* The lowest free descriptor number: where the next new fd would go. */
static int lowest_free_fd(void)
{
	int fd = open("/dev/null", O_RDONLY);

	if (fd >= 0)
		close(fd);
	return fd;
}

/* A page holding a copy of @len bytes of @src, read-only. */
static void *ro_copy(const void *src, size_t len)
{
	void *p = mmap(NULL, 4096, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (p == MAP_FAILED)
		return NULL;
	memcpy(p, src, len);
	if (mprotect(p, 4096, PROT_READ)) {
		munmap(p, 4096);
		return NULL;
	}
	return p;
}

/*
 * An ioctl that hands out a descriptor and cannot copy its answer out (the
 * structure is in a read-only page) fails with EFAULT and leaves nothing:
 * no descriptor installed, its object released (review finding, issue 9:
 * DMA_OPEN's fd was live before the copy-out and leaked on EFAULT). The
 * same for MEM_IMPORT and EP_ALLOC, which share the install path.
 */
TEST_F(dma, fd_ioctls_efault_leak_nothing)
{
	struct snode_dma_open o = { .size = sizeof(o) };
	struct snode_mem_import im = {
		.size = sizeof(im), .node = SIM_NODE, .export_id = SIM_RW,
		.key = SIM_RW_KEY, .length = 4096,
	};
	struct snode_ep_alloc ep = {
		.size = sizeof(ep), .flags = SNODE_EP_ID, .id = 33,
		.entries = 16, .key = 0xefa17,
	};
	void *ro_o, *ro_im, *ro_ep;
	int next, q, e;
	long cap;

	ro_o = ro_copy(&o, sizeof(o));
	ro_im = ro_copy(&im, sizeof(im));
	ro_ep = ro_copy(&ep, sizeof(ep));
	ASSERT_NE(NULL, ro_o);
	ASSERT_NE(NULL, ro_im);
	ASSERT_NE(NULL, ro_ep);
	next = lowest_free_fd();
	ASSERT_LE(0, next);

	/* the fixture's queue and one more: a leaked queue would fill it */
	cap = set_param("max_dma_queues", 2);
	ASSERT_LE(0, cap);
	EXPECT_ERRNO(EFAULT, ioctl(self->fd, SNODE_IOCTL_DMA_OPEN, ro_o));
	EXPECT_EQ(next, lowest_free_fd());
	q = sn_dma_open(self->fd, 0, 0);
	EXPECT_LE(0, q);
	if (q >= 0)
		close(q);
	EXPECT_LE(0, set_param("max_dma_queues", cap));

	EXPECT_ERRNO(EFAULT, ioctl(self->fd, SNODE_IOCTL_MEM_IMPORT, ro_im));
	EXPECT_EQ(next, lowest_free_fd());

	/* a leaked endpoint would still hold its id */
	EXPECT_ERRNO(EFAULT, ioctl(self->fd, SNODE_IOCTL_EP_ALLOC, ro_ep));
	EXPECT_EQ(next, lowest_free_fd());
	EXPECT_EQ(0, sn_ep_alloc(self->fd, &ep));
	e = ep.out_fd;
	EXPECT_EQ(33, ep.out_id);
	if (e >= 0)
		close(e);

	munmap(ro_o, 4096);
	munmap(ro_im, 4096);
	munmap(ro_ep, 4096);
}

TEST_F(dma, submit_abi)
{
	uint8_t buf[64];
	struct snode_dma_req r = req(SNODE_DMA_FROM_GLOBAL, self->rw, 0, buf,
				     sizeof(buf), 0);
	struct snode_dma_submit s = {
		.size = sizeof(s),
		.count = 1,
		.req_size = sizeof(r),
		.reqs = (uintptr_t)&r,
	};

	s.size = offsetofend(struct snode_dma_submit, __reserved) - 1;
	EXPECT_ERRNO(EINVAL, ioctl(self->q, SNODE_IOCTL_DMA_SUBMIT, &s));
	s.size = sizeof(s);
	s.flags = 2;
	EXPECT_ERRNO(EOPNOTSUPP, ioctl(self->q, SNODE_IOCTL_DMA_SUBMIT, &s));
	s.flags = 0;
	s.count = 0;
	EXPECT_ERRNO(EINVAL, ioctl(self->q, SNODE_IOCTL_DMA_SUBMIT, &s));
	s.count = 65;	/* above the queue's depth */
	EXPECT_ERRNO(EINVAL, ioctl(self->q, SNODE_IOCTL_DMA_SUBMIT, &s));
	s.count = 1;
	s.req_size = offsetofend(struct snode_dma_req, user_data) - 1;
	EXPECT_ERRNO(EINVAL, ioctl(self->q, SNODE_IOCTL_DMA_SUBMIT, &s));
	s.req_size = sizeof(r);
	s.reqs = 8;
	EXPECT_ERRNO(EFAULT, ioctl(self->q, SNODE_IOCTL_DMA_SUBMIT, &s));
	s.reqs = (uintptr_t)&r;

	r.flags = 0;
	EXPECT_ERRNO(EINVAL, _dma_submit(self->q, &r, 1, 0));
	r.flags = SNODE_DMA_TO_GLOBAL | SNODE_DMA_FROM_GLOBAL;
	EXPECT_ERRNO(EINVAL, _dma_submit(self->q, &r, 1, 0));
	r.flags = SNODE_DMA_FROM_GLOBAL | 1 << 5;
	EXPECT_ERRNO(EOPNOTSUPP, _dma_submit(self->q, &r, 1, 0));
	r.flags = SNODE_DMA_FROM_GLOBAL;
	r.__reserved = 1;
	EXPECT_ERRNO(EOPNOTSUPP, _dma_submit(self->q, &r, 1, 0));
	r.__reserved = 0;
	r.length = 0;
	EXPECT_ERRNO(EINVAL, _dma_submit(self->q, &r, 1, 0));
	r.length = SNODE_DMA_MAX_LEN + 1;
	EXPECT_ERRNO(EINVAL, _dma_submit(self->q, &r, 1, 0));
	r.length = sizeof(buf);

	/* nothing was queued by the failed calls */
	EXPECT_EQ(0, poll(&(struct pollfd){ .fd = self->q, .events = POLLIN }, 1, 100));
}

/*
 * The requests of a batch follow the general rules too, with req_size as
 * their size: a non-zero byte past the request the kernel knows is E2BIG,
 * a req_size above the page size EINVAL; and a buffer whose end wraps
 * around the address space is EINVAL before any page is pinned.
 */
TEST_F(dma, submit_req_abi)
{
	long page = sysconf(_SC_PAGESIZE);
	uint8_t buf[64], *reqs;
	struct snode_dma_req *r;
	struct snode_dma_submit s = {
		.size = sizeof(s),
		.flags = SNODE_DMA_SUBMIT_WAIT,
		.count = 1,
	};

	reqs = calloc(2, page);
	ASSERT_NE(NULL, reqs);
	r = (struct snode_dma_req *)reqs;
	*r = req(SNODE_DMA_FROM_GLOBAL, self->rw, 0, buf, sizeof(buf), 7);
	s.reqs = (uintptr_t)reqs;

	/* a longer request with a zero tail is accepted */
	s.req_size = sizeof(*r) + 8;
	ASSERT_EQ(0, ioctl(self->q, SNODE_IOCTL_DMA_SUBMIT, &s));
	EXPECT_EQ(1, s.out_submitted);
	EXPECT_EQ(0, r->out_status);
	EXPECT_EQ(sizeof(buf), r->out_bytes);
	/* a non-zero byte in the tail is not */
	reqs[sizeof(*r) + 3] = 1;
	EXPECT_ERRNO(E2BIG, ioctl(self->q, SNODE_IOCTL_DMA_SUBMIT, &s));
	reqs[sizeof(*r) + 3] = 0;
	s.req_size = page;
	reqs[page - 1] = 0x80;
	EXPECT_ERRNO(E2BIG, ioctl(self->q, SNODE_IOCTL_DMA_SUBMIT, &s));
	reqs[page - 1] = 0;
	/* the second request's tail, at a stride of req_size: one queued */
	s.req_size = sizeof(*r) + 8;
	s.count = 2;
	s.out_submitted = 0;
	memcpy(reqs + s.req_size, r, sizeof(*r));
	reqs[2 * s.req_size - 1] = 1;
	ASSERT_EQ(0, ioctl(self->q, SNODE_IOCTL_DMA_SUBMIT, &s));
	EXPECT_EQ(1, s.out_submitted);
	reqs[2 * s.req_size - 1] = 0;
	s.count = 1;

	/* a request may not be larger than a page */
	s.req_size = page + 1;
	EXPECT_ERRNO(EINVAL, ioctl(self->q, SNODE_IOCTL_DMA_SUBMIT, &s));
	s.req_size = page + 8;
	EXPECT_ERRNO(EINVAL, ioctl(self->q, SNODE_IOCTL_DMA_SUBMIT, &s));
	s.req_size = UINT32_MAX;
	EXPECT_ERRNO(EINVAL, ioctl(self->q, SNODE_IOCTL_DMA_SUBMIT, &s));
	s.req_size = sizeof(*r);

	/* addr + length past the end of the address space */
	r->addr = UINT64_MAX - 4095;
	r->length = 4096;
	EXPECT_ERRNO(EINVAL, ioctl(self->q, SNODE_IOCTL_DMA_SUBMIT, &s));
	r->addr = UINT64_MAX;
	r->length = 2;
	EXPECT_ERRNO(EINVAL, ioctl(self->q, SNODE_IOCTL_DMA_SUBMIT, &s));
	r->addr = UINT64_MAX - 63;
	r->length = SNODE_DMA_MAX_LEN;
	EXPECT_ERRNO(EINVAL, ioctl(self->q, SNODE_IOCTL_DMA_SUBMIT, &s));
	/*
	 * Just below the end it does not wrap: a bad address, not a bad range.
	 * (6.12's pin_user_pages_fast() says EOVERFLOW here, as the range's
	 * last page ends at 2^64; the ABI's answer is EFAULT.)
	 */
	r->addr = UINT64_MAX - 4095;
	r->length = 4095;
	EXPECT_ERRNO(EFAULT, ioctl(self->q, SNODE_IOCTL_DMA_SUBMIT, &s));
	/* and the window's offset + length wraps too */
	r->addr = (uintptr_t)buf;
	r->length = 64;
	r->offset = UINT64_MAX - 31;
	EXPECT_ERRNO(EINVAL, ioctl(self->q, SNODE_IOCTL_DMA_SUBMIT, &s));

	/* nothing was queued by the failed calls */
	EXPECT_EQ(0, poll(&(struct pollfd){ .fd = self->q, .events = POLLIN }, 1, 100));
	free(reqs);
}

TEST_F(dma, import_checks)
{
	uint8_t *buf = buffer(MB);
	int ro, devnull;

	ASSERT_NE(NULL, buf);
	/* not a descriptor, not an import, outside the window */
	test_err_dma_copy(EBADF, SNODE_DMA_FROM_GLOBAL, 999, 0, buf, 64);
	devnull = open("/dev/null", O_RDWR);
	test_err_dma_copy(EINVAL, SNODE_DMA_FROM_GLOBAL, devnull, 0, buf, 64);
	close(devnull);
	test_err_dma_copy(EINVAL, SNODE_DMA_FROM_GLOBAL, self->rw, SIM_RW_LEN,
			  buf, 1);
	test_err_dma_copy(EINVAL, SNODE_DMA_FROM_GLOBAL, self->rw,
			  SIM_RW_LEN - 64, buf, 65);
	test_err_dma_copy(EINVAL, SNODE_DMA_TO_GLOBAL, self->rw, ~0ULL - 8,
			  buf, 64);

	/* a read-only import: reads work, writes are refused */
	ro = sn_import(self->fd, 0, SIM_NODE, SIM_RO, SIM_RO_KEY, 0, SIM_RO_LEN);
	ASSERT_LE(0, ro);
	test_dma_copy(SNODE_DMA_FROM_GLOBAL, ro, 0, buf, MB);
	EXPECT_EQ((2ULL << 40) | (36 * MB), *(uint64_t *)buf);
	test_err_dma_copy(EROFS, SNODE_DMA_TO_GLOBAL, ro, 0, buf, 4096);
	close(ro);
	munmap(buf, MB + 2 * 4096);
}

TEST_F(dma, user_buffer_checks)
{
	uint8_t *ro = mmap(NULL, 4096, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS,
			   -1, 0);

	ASSERT_NE(MAP_FAILED, ro);
	/* unmapped memory */
	test_err_dma_copy(EFAULT, SNODE_DMA_FROM_GLOBAL, self->rw, 0,
			  (void *)4096, 64);
	test_err_dma_copy(EFAULT, SNODE_DMA_TO_GLOBAL, self->rw, 0,
			  (void *)4096, 64);
	/* the device may not write where the process may not */
	test_err_dma_copy(EFAULT, SNODE_DMA_FROM_GLOBAL, self->rw, 0, ro, 64);
	munmap(ro, 4096);
}

/*
 * Global to local, every size class, unaligned on both sides: the buffer
 * gets what the window holds, and not one byte more.
 */
TEST_F(dma, from_global_sizes)
{
	size_t max = 24 * MB + 3, i;
	uint8_t *buf = buffer(max + 64);

	ASSERT_NE(NULL, buf);
	fill_random(self->win, SIM_RW_LEN, 1);
	for (i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
		size_t len = sizes[i], off = (i * 4099) % 4096, skew = i % 61;
		uint8_t *dst = buf + skew + 8;

		memset(buf, 0x5a, max + 64);
		test_dma_copy(SNODE_DMA_FROM_GLOBAL, self->rw, off, dst, len);
		ASSERT_EQ(0, memcmp(dst, self->win + off, len)) {
			TH_LOG("size %zu offset %zu", len, off);
		}
		/* guard bytes on either side */
		ASSERT_EQ(0x5a, dst[-1]);
		ASSERT_EQ(0x5a, dst[len]);
	}
	munmap(buf, max + 64 + 2 * 4096);
}

/*
 * Local to global: the window gets the buffer's bytes, the window's bytes
 * around the range stay.
 */
TEST_F(dma, to_global_sizes)
{
	size_t max = 24 * MB + 3, i;
	uint8_t *buf = buffer(max + 64);

	ASSERT_NE(NULL, buf);
	for (i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
		size_t len = sizes[i], off = 4096 + (i * 4099) % 4096, skew = i % 61;
		uint8_t *src = buf + skew;

		memset(self->win + off - 64, 0xc3, len + 128);
		fill_random(src, len, i + 2);
		test_dma_copy(SNODE_DMA_TO_GLOBAL, self->rw, off, src, len);
		ASSERT_EQ(0, memcmp(self->win + off, src, len)) {
			TH_LOG("size %zu offset %zu", len, off);
		}
		ASSERT_EQ(0xc3, self->win[off - 1]);
		ASSERT_EQ(0xc3, self->win[off + len]);
	}
	munmap(buf, max + 64 + 2 * 4096);
}

/* Both directions through the engine only. */
TEST_F(dma, round_trip)
{
	size_t len = 16 * MB + 4095;
	uint8_t *a = buffer(len), *b = buffer(len);

	ASSERT_NE(NULL, a);
	ASSERT_NE(NULL, b);
	fill_random(a + 1, len, 99);
	test_dma_copy(SNODE_DMA_TO_GLOBAL, self->rw, 5, a + 1, len);
	test_dma_copy(SNODE_DMA_FROM_GLOBAL, self->rw, 5, b + 3, len);
	EXPECT_EQ(0, memcmp(a + 1, b + 3, len));
	munmap(a, len + 2 * 4096);
	munmap(b, len + 2 * 4096);
}

/* A copy's submission and completion appear as snode tracepoints. */
TEST_F(dma, trace_copy)
{
	struct snode_dma_req r;
	const char *sub, *cpl;
	uint8_t *buf = buffer(8192);
	char *trace;
	int ret;

	ASSERT_NE(NULL, buf);
	ret = trace_start();
	if (ret == -ENOENT)
		SKIP(return, "this kernel has no event tracing");
	ASSERT_EQ(0, ret);
	r = req(SNODE_DMA_TO_GLOBAL, self->rw, 0, buf, 8192, 0x7eace);
	ASSERT_EQ(1, _dma_submit(self->q, &r, 1, SNODE_DMA_SUBMIT_WAIT));
	EXPECT_EQ(0, r.out_status);
	trace = trace_stop();
	ASSERT_NE(NULL, trace);
	sub = trace_find(trace, 3, "snode_dma_submit: ", "user_data 0x7eace ",
			 "len 8192 to global");
	cpl = trace_find(trace, 3, "snode_dma_complete: ", "user_data 0x7eace ",
			 "status 0 bytes 8192");
	trace_expect_order(_metadata, trace, sub, cpl);
	free(trace);
	munmap(buf, 8192 + 2 * 4096);
}

/* Asynchronous: a batch, completions in order through poll and read. */
TEST_F(dma, async_batch)
{
	struct snode_dma_req r[16];
	struct snode_dma_cpl c[16];
	uint8_t *buf = buffer(16 * 65536);
	int i, got = 0, n;

	ASSERT_NE(NULL, buf);
	fill_random(self->win, 16 * 65536, 5);
	for (i = 0; i < 16; i++)
		r[i] = req(SNODE_DMA_FROM_GLOBAL, self->rw, i * 65536,
			   buf + i * 65536, 65536, 1000 + i);
	ASSERT_EQ(16, _dma_submit(self->q, r, 16, 0));
	while (got < 16) {
		struct pollfd p = { .fd = self->q, .events = POLLIN };

		ASSERT_EQ(1, poll(&p, 1, 10000));
		n = read(self->q, c + got, (16 - got) * sizeof(c[0]));
		ASSERT_LT(0, n);
		ASSERT_EQ(0, n % (int)sizeof(c[0]));
		got += n / sizeof(c[0]);
	}
	for (i = 0; i < 16; i++) {
		EXPECT_EQ(1000 + i, c[i].user_data);
		EXPECT_EQ(0, c[i].status);
		EXPECT_EQ(65536, c[i].bytes);
	}
	EXPECT_EQ(0, memcmp(buf, self->win, 16 * 65536));
	EXPECT_ERRNO(EINVAL, read(self->q, c, sizeof(c[0]) - 1));
	munmap(buf, 16 * 65536 + 2 * 4096);
}

/*
 * Copies in flight may share user pages: eight copies from the window into
 * one buffer, each shifted by a page and a cacheline, then four the other
 * way from it. Each copy moves bytes between the same offsets of the
 * buffer and of a window range, so the result is the same in any order.
 * The debug kernel's DMA API checks see the overlapping mappings (they
 * warned before the driver mapped with DMA_ATTR_SKIP_CPU_SYNC).
 */
TEST_F(dma, overlapping_buffers)
{
	const size_t len = 65536, step = 4096 + 64, total = len + 7 * step;
	struct snode_dma_req r[12];
	struct snode_dma_cpl c[8];
	uint8_t *buf = buffer(total);
	int i, got = 0, n;

	ASSERT_NE(NULL, buf);
	fill_random(self->win, total, 11);
	for (i = 0; i < 8; i++)
		r[i] = req(SNODE_DMA_FROM_GLOBAL, self->rw, i * step,
			   buf + i * step, len, i);
	ASSERT_EQ(8, _dma_submit(self->q, r, 8, 0));
	while (got < 8) {
		ASSERT_EQ(1, poll(&(struct pollfd){ .fd = self->q,
						    .events = POLLIN }, 1, 10000));
		n = read(self->q, c + got, (8 - got) * sizeof(c[0]));
		ASSERT_LT(0, n);
		got += n / sizeof(c[0]);
	}
	for (i = 0; i < 8; i++) {
		EXPECT_EQ(0, c[i].status);
		EXPECT_EQ(len, c[i].bytes);
	}
	ASSERT_EQ(0, memcmp(buf, self->win, total));

	/* the same buffer, now the source of overlapping copies */
	for (i = 0; i < 4; i++)
		r[8 + i] = req(SNODE_DMA_TO_GLOBAL, self->rw,
			       SIM_RW_LEN / 2 + i * step, buf + i * step, len,
			       8 + i);
	ASSERT_EQ(4, _dma_submit(self->q, r + 8, 4, SNODE_DMA_SUBMIT_WAIT));
	for (i = 8; i < 12; i++) {
		EXPECT_EQ(0, r[i].out_status);
		EXPECT_EQ(len, r[i].out_bytes);
	}
	EXPECT_EQ(0, memcmp(self->win + SIM_RW_LEN / 2, buf, len + 3 * step));
	munmap(buf, total + 2 * 4096);
}

/* The depth bounds copies in flight plus completions unread. */
TEST_F(dma, queue_depth)
{
	struct snode_dma_req r[5];
	struct snode_dma_cpl c[5];
	uint8_t buf[5][64];
	int q, i;

	q = sn_dma_open(self->fd, 4, SNODE_DMA_NONBLOCK);
	ASSERT_LE(0, q);
	EXPECT_ERRNO(EAGAIN, read(q, c, sizeof(c)));
	for (i = 0; i < 5; i++)
		r[i] = req(SNODE_DMA_FROM_GLOBAL, self->rw, 0, buf[i], 64, i);
	/* five asked, four fit */
	EXPECT_EQ(4, _dma_submit(q, r, 4, 0));
	EXPECT_ERRNO(EBUSY, _dma_submit(q, r + 4, 1, 0));
	usleep(200000);
	EXPECT_ERRNO(EBUSY, _dma_submit(q, r + 4, 1, 0));
	ASSERT_EQ(1, poll(&(struct pollfd){ .fd = q, .events = POLLIN }, 1, 5000));
	usleep(100000);
	EXPECT_EQ(4 * sizeof(c[0]), read(q, c, sizeof(c)));
	EXPECT_EQ(1, _dma_submit(q, r + 4, 1, 0));
	close(q);
}

TEST_F(dma, list_and_stats)
{
	struct stats_arg a, b;
	struct obj_ent e[16];
	uint8_t *buf = buffer(MB);
	uint32_t n = 16;
	int i, own = 0;

	ASSERT_NE(NULL, buf);
	ASSERT_EQ(0, stats_get(self->fd, &a));
	test_dma_copy(SNODE_DMA_FROM_GLOBAL, self->rw, 0, buf, MB);
	ASSERT_EQ(0, stats_get(self->fd, &b));
	EXPECT_LE(a.v[SNODE_A_STATS_DMA_BYTES] + MB,
		  b.v[SNODE_A_STATS_DMA_BYTES]);
	EXPECT_LT(a.v[SNODE_A_STATS_DMA_REQS], b.v[SNODE_A_STATS_DMA_REQS]);

	ASSERT_EQ(0, obj_list(self->fd, OBJ_LIST_DMA_QUEUES, e, &n));
	for (i = 0; i < (int)n && i < 16; i++) {
		if (!(e[i].flags & OBJ_ENT_OWN))
			continue;
		own++;
		EXPECT_EQ(OBJ_LIST_DMA_QUEUES, e[i].type);
		EXPECT_EQ(64, e[i].entries);
		EXPECT_EQ(0, e[i].pending);
		EXPECT_EQ(1, e[i].count);
		EXPECT_EQ(MB, e[i].bytes);
		EXPECT_EQ(getpid(), e[i].pid);
	}
	EXPECT_EQ(1, own);
	munmap(buf, MB + 2 * 4096);
}

struct unexport_arg {
	int fd;
	__u32 id;
	int delay_us;
};

static void *unexport_later(void *arg)
{
	struct unexport_arg *u = arg;
	struct snode_mem_unexport cmd = { .size = sizeof(cmd), .export_id = u->id };

	usleep(u->delay_us);
	ioctl(u->fd, SNODE_IOCTL_MEM_UNEXPORT, &cmd);
	return NULL;
}

#define REVOKE_REQS	32	/* 512M of copies per attempt */
#define REVOKE_ATTEMPTS	5

/*
 * One attempt of revoke_mid_copy: export a window, start 512M of copies
 * into it and unexport at once. Whatever the timing, the completions read
 * as a prefix of whole copies, then one cut short with ECONNRESET, then
 * failures; the import ends revoked; nothing outside the window changes.
 * Returns 1 when the revocation landed while the copies ran.
 */
static int revoke_attempt(struct __test_metadata *_metadata, int fd, int q)
{
	const size_t win_len = 16 * MB, guard = 2 * MB, len = 16 * MB;
	struct snode_mem_alloc al = { .size = sizeof(al), .length = win_len + guard };
	struct snode_mem_export ex = { .size = sizeof(ex) };
	struct snode_import_status st = { .size = sizeof(st) };
	struct unexport_arg u = { .fd = fd };
	struct snode_dma_req r[REVOKE_REQS];
	struct snode_dma_cpl c[REVOKE_REQS];
	uint8_t *pool, *buf;
	int ifd, i, got = 0, revoked = 0;
	pthread_t t;

	ASSERT_EQ(0, ioctl(fd, SNODE_IOCTL_MEM_ALLOC, &al));
	pool = mmap(NULL, win_len + guard, PROT_READ | PROT_WRITE, MAP_SHARED,
		    fd, al.out_offset);
	ASSERT_NE(MAP_FAILED, pool);
	memset(pool, 0x11, win_len + guard);
	ex.flags = SNODE_EXPORT_WRITE;
	ex.alloc = al.out_offset;
	ex.length = win_len;
	ex.key = 0x7e70ce;
	ASSERT_EQ(0, ioctl(fd, SNODE_IOCTL_MEM_EXPORT, &ex));
	ifd = sn_import(fd, SNODE_IMPORT_WRITE, ex.out_node, ex.out_export_id,
			ex.out_key, 0, win_len);
	ASSERT_LE(0, ifd);

	buf = buffer(len);
	ASSERT_NE(NULL, buf);
	memset(buf, 0xee, len);
	for (i = 0; i < REVOKE_REQS; i++)
		r[i] = req(SNODE_DMA_TO_GLOBAL, ifd, 0, buf, len, i);
	ASSERT_EQ(REVOKE_REQS, _dma_submit(q, r, REVOKE_REQS, 0));
	u.id = ex.out_export_id;
	u.delay_us = 0;
	ASSERT_EQ(0, pthread_create(&t, NULL, unexport_later, &u));
	while (got < REVOKE_REQS) {
		int n;

		ASSERT_EQ(1, poll(&(struct pollfd){ .fd = q, .events = POLLIN },
				  1, 30000));
		n = read(q, c + got, (REVOKE_REQS - got) * sizeof(c[0]));
		ASSERT_LT(0, n);
		got += n / sizeof(c[0]);
	}
	pthread_join(t, NULL);
	for (i = 0; i < REVOKE_REQS; i++) {
		EXPECT_EQ(i, c[i].user_data);
		if (!revoked && c[i].status) {
			/* the first failure is the revocation itself */
			EXPECT_EQ(-ECONNRESET, c[i].status);
			EXPECT_GT(len, c[i].bytes);
			revoked = 1;
		} else if (revoked) {
			/* later ones found no window at all */
			EXPECT_EQ(-ECONNRESET, c[i].status);
			EXPECT_EQ(0, c[i].bytes);
		} else {
			EXPECT_EQ(len, c[i].bytes);
		}
	}
	/* the revocation reaches the import through an event: wait for it */
	EXPECT_EQ(1, poll(&(struct pollfd){ .fd = ifd, .events = POLLIN | POLLPRI },
			  1, 5000));
	ASSERT_EQ(0, ioctl(ifd, SNODE_IOCTL_IMPORT_STATUS, &st));
	EXPECT_EQ(SNODE_WINDOW_STATE_REVOKED, st.out_state);
	/* nothing beyond the window was written */
	for (i = 0; i < (int)guard; i++)
		ASSERT_EQ(0x11, pool[win_len + i]);
	/* a revoked import takes no new copy */
	EXPECT_EQ(-ECONNRESET, sn_dma_copy(q, SNODE_DMA_TO_GLOBAL, ifd, 0, buf,
					   64, NULL));
	close(ifd);
	munmap(pool, win_len + guard);
	munmap(buf, len + 2 * 4096);
	return revoked;
}

/*
 * The exporter withdraws the window while copies into it run: the copy in
 * progress stops with ECONNRESET, the ones behind it fail, and not one byte
 * outside the window changes. Whether the unexport lands before the last
 * copy ends is up to the host's scheduler (in the emulator one in four or
 * so attempts loses the race), so the test tries a few times and fails
 * only if no attempt ever cut a copy short.
 */
TEST_F(dma, revoke_mid_copy)
{
	int attempt, cut = 0;

	for (attempt = 0; attempt < REVOKE_ATTEMPTS && !cut; attempt++)
		cut = revoke_attempt(_metadata, self->fd, self->q);
	TH_LOG("revocation cut a copy short in attempt %d of %d", attempt,
	       REVOKE_ATTEMPTS);
	EXPECT_TRUE(cut);
}

/* A neighbouring export is never touched by copies into the window. */
TEST_F(dma, neighbour_untouched)
{
	int next = sn_import(self->fd, 0, SIM_NODE, SIM_NEXT, SIM_NEXT_KEY, 0,
			  SIM_NEXT_LEN);
	uint8_t *buf = buffer(SIM_RW_LEN);
	uint64_t *nw;
	size_t i;

	ASSERT_LE(0, next);
	ASSERT_NE(NULL, buf);
	nw = mmap(NULL, SIM_NEXT_LEN, PROT_READ, MAP_SHARED, next, 0);
	ASSERT_NE(MAP_FAILED, nw);
	memset(buf, 0x77, SIM_RW_LEN);
	test_dma_copy(SNODE_DMA_TO_GLOBAL, self->rw, 0, buf, SIM_RW_LEN);
	/* the sim pattern: each word holds its own global address */
	for (i = 0; i < SIM_NEXT_LEN / 8; i++)
		ASSERT_EQ((2ULL << 40) | (SIM_RW_LEN + i * 8), nw[i]);
	munmap(nw, SIM_NEXT_LEN);
	close(next);
	munmap(buf, SIM_RW_LEN + 2 * 4096);
}

/*
 * A process exits with copies in flight: they complete anyway and every
 * page they pinned is unpinned.
 */
TEST_F(dma, exit_with_copies_in_flight)
{
	long before = foll_pins_outstanding(), now = -1;
	int status, i;
	pid_t pid;

	if (before == LONG_MIN)
		SKIP(return, "no nr_foll_pin_* in /proc/vmstat");
	pid = fork();
	ASSERT_LE(0, pid);
	if (!pid) {
		struct snode_dma_req r[4];
		uint8_t *buf = buffer(64 * MB);
		int q = sn_dma_open(self->fd, 0, 0);

		if (!buf || q < 0)
			_exit(1);
		memset(buf, 1, 64 * MB);
		for (i = 0; i < 4; i++)
			r[i] = req(i % 2 ? SNODE_DMA_FROM_GLOBAL :
				   SNODE_DMA_TO_GLOBAL, self->rw, 0,
				   buf + i * 16 * MB, 16 * MB, i);
		_exit(_dma_submit(q, r, 4, 0) == 4 ? 0 : 2);
	}
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	ASSERT_EQ(0, status);
	now = foll_pins_settle(before);
	EXPECT_GE(before, now);
}

/*
 * The pages of a copy count against the submitter's RLIMIT_MEMLOCK (VmLck)
 * while it is in flight: a copy beyond the limit fails with ENOMEM and pins
 * nothing; copies within it succeed one after another, each uncharged when
 * it finishes. The child drops CAP_IPC_LOCK, which would lift the limit.
 */
TEST_F(dma, memlock_charged)
{
	const char *what[] = {
		"ok", "setup", "beyond the limit did not fail with ENOMEM",
		"a failed copy left pages pinned", "a failed copy left VmLck charged",
		"a copy within the limit failed", "a finished copy left VmLck charged",
		"an async copy was not charged while in flight",
	};
	long pins = foll_pins_outstanding();
	int status, ret;
	pid_t pid;

	if (pins == LONG_MIN)
		SKIP(return, "no nr_foll_pin_* in /proc/vmstat");
	pid = fork();
	ASSERT_LE(0, pid);
	if (!pid) {
		struct rlimit rl = { .rlim_cur = MB, .rlim_max = MB };
		uint8_t *buf = buffer(4 * MB);
		long base;
		int i;

		if (!buf || drop_ipc_lock(false) || setrlimit(RLIMIT_MEMLOCK, &rl))
			_exit(1);
		memset(buf, 3, 4 * MB);
		base = vm_locked_kib();
		if (base < 0)
			_exit(1);
		ret = sn_dma_copy(self->q, SNODE_DMA_TO_GLOBAL, self->rw, 0,
				  buf, 2 * MB, NULL);
		if (ret != -ENOMEM)
			_exit(2);
		if (foll_pins_outstanding() != pins)
			_exit(3);
		if (vm_locked_kib() != base)
			_exit(4);
		/* 3/4 of the limit, four times: each must be uncharged */
		for (i = 0; i < 4; i++) {
			ret = sn_dma_copy(self->q, i % 2 ? SNODE_DMA_FROM_GLOBAL :
					  SNODE_DMA_TO_GLOBAL, self->rw, 0, buf,
					  3 * MB / 4, NULL);
			if (ret)
				_exit(5);
			if (vm_locked_kib() != base)
				_exit(6);
		}
		/* within the limit again, asynchronously: charged in flight */
		{
			struct snode_dma_req r = req(SNODE_DMA_TO_GLOBAL,
						     self->rw, 0, buf, MB, 1);
			struct snode_dma_cpl c;
			long inflight;

			if (_dma_submit(self->q, &r, 1, 0) != 1)
				_exit(5);
			inflight = vm_locked_kib();
			if (read(self->q, &c, sizeof(c)) != sizeof(c) ||
			    c.status)
				_exit(5);
			if (inflight != base + 1024 && inflight != base)
				_exit(7);
			if (vm_locked_kib() != base)
				_exit(6);
		}
		_exit(0);
	}
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	ASSERT_TRUE(WIFEXITED(status));
	ret = WEXITSTATUS(status);
	if (ret < (int)(sizeof(what) / sizeof(what[0])))
		TH_LOG("child: %s", what[ret]);
	EXPECT_EQ(0, ret);
}

/*
 * Closing a queue cancels its copies that wait for room on the engine
 * (status -ECANCELED in the trace) and releases their pages at once;
 * copies on the engine finish. Nothing stays pinned or charged.
 */
TEST_F(dma, close_cancels_copies)
{
	long before = foll_pins_outstanding(), now = -1;
	struct snode_dma_req r[8];
	uint8_t *buf = buffer(64 * MB);
	char *trace;
	int q, i, ret;

	if (before == LONG_MIN)
		SKIP(return, "no nr_foll_pin_* in /proc/vmstat");
	ASSERT_NE(NULL, buf);
	/* many descriptors: copies wait for room on the ring */
	fill_scattered(buf, 64 * MB, 5);
	ret = trace_start();
	if (ret == -ENOENT)
		SKIP(return, "this kernel has no event tracing");
	ASSERT_EQ(0, ret);
	q = sn_dma_open(self->fd, 0, 0);
	ASSERT_LE(0, q);
	/* 8 MiB is 2048 descriptors: the ring holds 255 */
	for (i = 0; i < 8; i++)
		r[i] = req(SNODE_DMA_TO_GLOBAL, self->rw, 0, buf + i * 8 * MB,
			   8 * MB, 0xca0 + i);
	ASSERT_EQ(8, _dma_submit(q, r, 8, 0));
	close(q);
	now = foll_pins_settle(before);
	EXPECT_GE(before, now);
	EXPECT_EQ(0, vm_locked_kib());
	trace = trace_stop();
	ASSERT_NE(NULL, trace);
	EXPECT_NE(NULL, trace_find(trace, 3, "snode_dma_complete: ",
				   "user_data 0xca7 ", "status -125 bytes 0"))
		TH_LOG("trace:\n%.3000s", trace);
	free(trace);
	munmap(buf, 64 * MB + 2 * 4096);
}

/* Wait up to 10 s for the pins outstanding to fall to @want; the last count. */
static long pins_settle(long want)
{
	long now = foll_pins_outstanding();
	int i;

	for (i = 0; i < 100 && now > want; i++) {
		usleep(100000);
		now = foll_pins_outstanding();
	}
	return now;
}

#define STUCK	"/sys/kernel/debug/snode/dma_stop_stuck"

/*
 * A reset whose engine does not stop (debugfs dma_stop_stuck) keeps only
 * the copies with descriptors in the ring pinned; the copies waiting for
 * room fail with ECONNRESET and release their pages at once. The next
 * reset, whose engine stops, releases the parked ones: nothing leaks.
 */
TEST_F(dma, reset_engine_did_not_stop)
{
	const size_t len = 8 * MB, pages = len / 4096;
	long before = foll_pins_outstanding(), now;
	char bdf[64], reset[128];
	struct snode_dma_req r[8];
	struct snode_dma_cpl c[8];
	uint8_t *buf;
	int i, n, got = 0, failed = 0, last_done = -1, first_reset = 8;

	if (before == LONG_MIN)
		SKIP(return, "no nr_foll_pin_* in /proc/vmstat");
	if (access(STUCK, W_OK))
		SKIP(return, "no %s", STUCK);
	ASSERT_EQ(0, snode_bdf(0, bdf, sizeof(bdf)));
	snprintf(reset, sizeof(reset), "/sys/bus/pci/devices/%s/reset", bdf);
	if (access(reset, W_OK))
		SKIP(return, "%s is missing: the function cannot be reset", reset);
	buf = buffer(8 * len);
	ASSERT_NE(NULL, buf);
	fill_scattered(buf, 8 * len, 9);
	for (i = 0; i < 8; i++)
		r[i] = req(SNODE_DMA_TO_GLOBAL, self->rw, 0, buf + i * len,
			   len, 0x5700 + i);
	ASSERT_EQ(8, _dma_submit(self->q, r, 8, 0));
	ASSERT_EQ(0, write_file(STUCK, "1"));
	ASSERT_EQ(0, write_file(reset, "1"));
	/*
	 * Only the copies the ring's 255 descriptors belong to stay: one, or
	 * two where the first had fewer than 255 left (pages that happened
	 * to be adjacent share a descriptor).
	 */
	now = pins_settle(before + 2 * pages);
	EXPECT_GE(before + (long)(2 * pages), now);
	TH_LOG("pinned after the stuck reset: %ld pages", now - before);
	/* the ones released completed with ECONNRESET */
	while (got < 8) {
		struct pollfd p = { .fd = self->q, .events = POLLIN };

		if (poll(&p, 1, 2000) != 1)
			break;
		n = read(self->q, c + got, (8 - got) * sizeof(c[0]));
		ASSERT_LT(0, n);
		got += n / sizeof(c[0]);
	}
	/*
	 * The engine may finish some copies before the reset reaches it (a
	 * loaded host delays this process, not the engine): those are done
	 * (0) and come first; then the one or two in the ring, not reported
	 * yet; then the released ones (ECONNRESET). Every copy but the
	 * ring's is reported.
	 */
	for (i = 0; i < got; i++) {
		int k = c[i].user_data - 0x5700;

		ASSERT_TRUE(k >= 0 && k < 8);
		if (c[i].status == -ECONNRESET) {
			failed++;
			first_reset = k < first_reset ? k : first_reset;
		} else {
			EXPECT_EQ(0, c[i].status);
			last_done = k > last_done ? k : last_done;
		}
	}
	EXPECT_LE(6, got);
	EXPECT_LE(1, failed);
	EXPECT_LT(last_done, first_reset);
	/* a reset that stops the engine releases the parked copies */
	ASSERT_EQ(0, write_file(reset, "1"));
	now = pins_settle(before);
	EXPECT_GE(before, now);
	write_file(STUCK, "0");
	munmap(buf, 8 * len + 2 * 4096);
}

/* without /dev/snode0 snode_test.h's snode_require_device() skipped it all */
int main(int argc, char **argv)
{
	return test_harness_run(argc, argv);
}
