// SPDX-License-Identifier: GPL-2.0
/*
 * snode lifetime selftests: the races and reset paths that a review of the
 * driver found broken (issue 9, section 8), each made deterministic with a
 * delay the driver waits at a race point when a test asks for it
 * (/sys/kernel/debug/snode/delay/, see driver/debugfs.c).
 *
 * Some of these bugs were use-after-frees that a stock kernel survives
 * silently; their tests check what userspace can see, and the debug kernel
 * (KASAN) reports the rest on the console, which the suites scan.
 *
 * Runs as root in a guest with snode.ko loaded, on selftests/vm/msg.topo:
 * simulated node 2 exports 0 (32M read-write) under key 0x5100.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <setjmp.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <linux/snode.h>
#include <linux/userfaultfd.h>
#include <sys/syscall.h>

#include "kselftest_harness.h"
#include "snode_test.h"
#include "snode_nl.h"

#define SNODE_DEV	"/dev/snode0"
#define SNODE_DELAY	"/sys/kernel/debug/snode/delay/"
#define SNODE_DMA_WAIT	"/sys/kernel/debug/snode/dma_wait_ms"
#define SNODE_REGS	"/sys/kernel/debug/snode/snode0/regs"
#define SNODE_RESET	"/sys/class/snode/snode0/device/reset"
#define SNODE_PCIDEV	"/sys/class/snode/snode0/device"
#define SNODE_DRIVER	"/sys/bus/pci/drivers/snode/"
#define SIM_NODE	2
#define SIM_RW		0
#define SIM_RW_KEY	0x5100
#define SZ_4K		4096UL
#define SZ_64K		(64UL << 10)
#define EP_KEY		0x11fe71e5ULL
#define INTR_CAUSE_DMA	(1UL << 2)	/* Documentation/hw/snode-nic.rst */

#define test_set_delay(name, us) ASSERT_EQ(0, set_delay(name, us))

/* Write "1" to the NIC's sysfs reset; returns once the reset is done. */
static int reset_nic(void)
{
	return write_file(SNODE_RESET, "1");
}

/* DMA queues of this process that the queue dump shows, or -1. */
static int own_dma_queues(int fd)
{
	struct obj_ent e[64];
	uint32_t n = 64;
	int i, own = 0;

	memset(e, 0, sizeof(e));
	if (obj_list(fd, OBJ_LIST_DMA_QUEUES, e, &n))
		return -1;
	for (i = 0; i < (int)n && i < 64; i++)
		own += e[i].pid == getpid();
	return own;
}

#define import_sim(fd) \
	sn_import(fd, 0, SIM_NODE, SIM_RW, SIM_RW_KEY, 0, SZ_64K)
/* One synchronous copy of @len bytes from the import into @buf. */
#define dma_copy_wait(q, ifd, buf, len) \
	sn_dma_copy(q, SNODE_DMA_FROM_GLOBAL, ifd, 0, buf, len, NULL)

FIXTURE(life) {
	int fd;
	struct snode_info info;
};

FIXTURE_SETUP(life)
{
	self->fd = open(SNODE_DEV, O_RDWR);
	ASSERT_LE(0, self->fd);
	self->info.size = sizeof(self->info);
	if (ioctl(self->fd, SNODE_IOCTL_INFO, &self->info) && errno == EIO) {
		/*
		 * An earlier test's reset left the NIC dead; that test
		 * failed for it. Revive it so that the others still run.
		 */
		TH_LOG("the NIC is dead after an earlier reset: resetting it");
		ASSERT_EQ(0, reset_nic());
	}
	ASSERT_EQ(0, ioctl(self->fd, SNODE_IOCTL_INFO, &self->info));
	if (access(SNODE_DELAY "dma_open", W_OK))
		SKIP(return, "no %s: debugfs not mounted or an older snode.ko",
		     SNODE_DELAY);
}

FIXTURE_TEARDOWN(life)
{
	set_delay("dma_open", 0);
	set_delay("dma_batch_done", 0);
	set_delay("ep_irq", 0);
	set_delay("admin_slot", 0);
	write_file(SNODE_DMA_WAIT, "60000");
	close(self->fd);
}

/* ---- DMA_OPEN against a thread closing descriptor numbers ---------------- */

struct closer {
	int fd;			/* the number DMA_OPEN will return */
	unsigned int ms;	/* how long to keep closing it */
	int closed;		/* closes that found a descriptor */
};

static void *closer_thread(void *arg)
{
	struct closer *c = arg;
	uint64_t end = now_ms() + c->ms;

	while (now_ms() < end)
		if (!close(c->fd))
			c->closed++;
	return NULL;
}

/*
 * A descriptor must not be reachable before the ioctl that creates it is
 * done with the object: a second thread closing it would free the queue
 * under the ioctl (the fuzzer's host panic). The delay holds DMA_OPEN
 * after the queue is set up for far longer than the closer runs.
 */
TEST_F(life, dma_open_vs_close)
{
	struct closer c = { .ms = 500 };
	pthread_t t;
	int q;

	c.fd = dup(0);
	ASSERT_LE(0, c.fd);
	close(c.fd);	/* the lowest free number: what DMA_OPEN gets */

	test_set_delay("dma_open", 2000 * 1000);
	ASSERT_EQ(0, pthread_create(&t, NULL, closer_thread, &c));
	q = sn_dma_open(self->fd, 0, 0);
	ASSERT_EQ(0, pthread_join(t, NULL));
	test_set_delay("dma_open", 0);

	ASSERT_LE(0, q);
	EXPECT_EQ(c.fd, q);
	EXPECT_EQ(0, c.closed);
	/* the queue is whole: listed once, and a submit reaches it */
	EXPECT_EQ(FD_CLOEXEC, fcntl(q, F_GETFD));
	EXPECT_EQ(1, own_dma_queues(self->fd));
	EXPECT_EQ(0, close(q));
	EXPECT_EQ(0, own_dma_queues(self->fd));
}

/*
 * What a test copies with: an import of the simulated export (*ifd), a DMA
 * queue (*q) of NIC @fd and the 4 KiB buffer returned; dma_rig_close().
 */
static void *dma_rig_open(struct __test_metadata *_metadata, int fd, int *ifd,
			  int *q)
{
	void *buf;

	*ifd = import_sim(fd);
	ASSERT_LE(0, *ifd);
	*q = sn_dma_open(fd, 0, 0);
	ASSERT_LE(0, *q);
	buf = mmap(NULL, SZ_4K, PROT_READ | PROT_WRITE,
		   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, buf);
	return buf;
}

static void dma_rig_close(void *buf, int q, int ifd)
{
	munmap(buf, SZ_4K);
	close(q);
	close(ifd);
}

/* ---- a synchronous DMA waiter killed while its batch completes ----------- */

/*
 * The waiter of a SUBMIT_WAIT dies (SIGKILL) between the last copy's
 * completion and the wake-up: the batch must stay alive for the completer,
 * and everything must be released. (The old code freed the batch under the
 * completer: KASAN on the debug kernel reports that.)
 */
TEST_F(life, dma_waiter_killed)
{
	int pipefd[2], status, q, ifd;
	char go;
	void *buf;
	pid_t pid;

	ASSERT_EQ(0, pipe(pipefd));
	test_set_delay("dma_batch_done", 1000 * 1000);
	pid = fork();
	ASSERT_LE(0, pid);
	if (!pid) {
		int fd = open(SNODE_DEV, O_RDWR);

		ifd = import_sim(fd);
		q = sn_dma_open(fd, 0, 0);
		buf = mmap(NULL, SZ_4K, PROT_READ | PROT_WRITE,
			   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (fd < 0 || ifd < 0 || q < 0 || buf == MAP_FAILED)
			_exit(2);
		memset(buf, 0, SZ_4K);
		if (write(pipefd[1], "s", 1) != 1)
			_exit(3);
		dma_copy_wait(q, ifd, buf, SZ_4K);
		_exit(4);	/* the wait outlasted the kill: a failure */
	}
	close(pipefd[1]);
	ASSERT_EQ(1, read(pipefd[0], &go, 1));
	/* the copy finishes in a few ms; the completer then waits 1 s */
	usleep(300 * 1000);
	kill(pid, SIGKILL);
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	EXPECT_TRUE(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL);
	usleep(1200 * 1000);
	test_set_delay("dma_batch_done", 0);
	close(pipefd[0]);

	/* the engine is fine, and the dead child's queue is gone */
	buf = dma_rig_open(_metadata, self->fd, &ifd, &q);
	EXPECT_EQ(0, dma_copy_wait(q, ifd, buf, SZ_4K));
	EXPECT_EQ(1, own_dma_queues(self->fd));
	dma_rig_close(buf, q, ifd);
}

/* ---- a synchronous batch whose wait runs out ----------------------------- */

/*
 * A SUBMIT_WAIT whose wait ends with ETIMEDOUT has still queued its
 * copies: out_submitted says how many, they complete on their own and
 * must not be submitted again. (The old code returned ETIMEDOUT with
 * out_submitted left at 0.) The wait limit is lowered to 100 ms and the
 * batch's completion held for 1 s.
 */
TEST_F(life, dma_wait_timeout)
{
	struct snode_dma_req r[3];
	struct snode_dma_submit cmd = {
		.size = sizeof(cmd),
		.flags = SNODE_DMA_SUBMIT_WAIT,
		.count = 3,
		.req_size = sizeof(r[0]),
		.reqs = (uintptr_t)r,
	};
	uint8_t *win, *buf;
	int q, ifd, i;

	if (access(SNODE_DMA_WAIT, W_OK))
		SKIP(return, "no %s: an older snode.ko", SNODE_DMA_WAIT);
	/* read-write: the test fills the window through a mapping */
	ifd = sn_import(self->fd, SNODE_IMPORT_WRITE, SIM_NODE, SIM_RW,
			SIM_RW_KEY, 0, SZ_64K);
	ASSERT_LE(0, ifd);
	q = sn_dma_open(self->fd, 0, 0);
	ASSERT_LE(0, q);
	win = mmap(NULL, SZ_64K, PROT_READ | PROT_WRITE, MAP_SHARED, ifd, 0);
	ASSERT_NE(MAP_FAILED, win);
	buf = mmap(NULL, 3 * SZ_4K, PROT_READ | PROT_WRITE,
		   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, buf);
	for (i = 0; i < 3 * (int)SZ_4K; i++)
		win[i] = (uint8_t)(i * 7 + 3);
	memset(buf, 0, 3 * SZ_4K);
	memset(r, 0, sizeof(r));
	for (i = 0; i < 3; i++) {
		r[i].flags = SNODE_DMA_FROM_GLOBAL;
		r[i].import_fd = ifd;
		r[i].offset = i * SZ_4K;
		r[i].addr = (uintptr_t)(buf + i * SZ_4K);
		r[i].length = SZ_4K;
	}

	ASSERT_EQ(0, write_file(SNODE_DMA_WAIT, "100"));
	test_set_delay("dma_batch_done", 1000 * 1000);
	EXPECT_EQ(-1, ioctl(q, SNODE_IOCTL_DMA_SUBMIT, &cmd));
	EXPECT_EQ(ETIMEDOUT, errno);
	EXPECT_EQ(3, cmd.out_submitted);
	/* the completer is still held: let it finish */
	usleep(1500 * 1000);
	test_set_delay("dma_batch_done", 0);
	ASSERT_EQ(0, write_file(SNODE_DMA_WAIT, "60000"));

	/* the copies were done once, in full, and the queue works */
	EXPECT_EQ(0, memcmp(buf, win, 3 * SZ_4K));
	memset(buf, 0, SZ_4K);
	EXPECT_EQ(0, dma_copy_wait(q, ifd, buf, SZ_4K));
	EXPECT_EQ(0, memcmp(buf, win, SZ_4K));
	munmap(buf, 3 * SZ_4K);
	munmap(win, SZ_64K);
	EXPECT_EQ(0, close(q));
	EXPECT_EQ(0, close(ifd));
	EXPECT_EQ(0, own_dma_queues(self->fd));
}

/* ---- an admin command that finds no free command slot -------------------- */

#define SLOT_HOLDERS	63	/* the driver's SNODE_AQ_MAX_INFLIGHT */

/* ATT entries of the NIC that the window dump shows, or -1. */
static int att_entries(int fd)
{
	uint32_t n = 0;

	return mem_list(fd, MEM_LIST_ATT, NULL, &n) ? -1 : (int)n;
}

/* The admin queue's commands in flight (debugfs "queues"), or -1. */
static int admin_inflight(void)
{
	char text[2048], *p;

	if (read_file("/sys/kernel/debug/snode/snode0/queues", text,
		      sizeof(text)) <= 0)
		return -1;
	p = strstr(text, " inflight ");
	return p ? atoi(p + strlen(" inflight ")) : -1;
}

struct slot_holder {
	pthread_t t;
	int fd;		/* its own /dev/snode0 */
	int ifd;	/* the import, or -errno */
};

static void *slot_holder_thread(void *arg)
{
	struct slot_holder *h = arg;

	h->ifd = import_sim(h->fd);
	if (h->ifd < 0)
		h->ifd = -errno;
	return NULL;
}

/*
 * Every command slot of the admin queue is held (the delay keeps each
 * holder's ATT_SET between taking its slot and sending it for 8 s), so a
 * further MEM_IMPORT finds no slot within the 3 s admin timeout. The
 * command was never sent: the call fails with EBUSY, and its ATT entry is
 * freed at once. (The old code returned ETIMEDOUT, which callers read as
 * "the device may have applied it", and left the entry stale until the
 * next reset.)
 */
TEST_F(life, admin_no_free_slot)
{
	struct slot_holder h[SLOT_HOLDERS];
	int before, i, ifd, err, ok = 0;
	uint64_t t0;

	before = att_entries(self->fd);
	ASSERT_LE(0, before);
	for (i = 0; i < SLOT_HOLDERS; i++) {
		h[i].fd = open(SNODE_DEV, O_RDWR);
		ASSERT_LE(0, h[i].fd);
	}
	test_set_delay("admin_slot", 8000 * 1000);
	for (i = 0; i < SLOT_HOLDERS; i++)
		ASSERT_EQ(0, pthread_create(&h[i].t, NULL, slot_holder_thread,
					    &h[i]));
	/* every holder has its slot (they wait 8 s from taking it) */
	t0 = now_ms();
	while (admin_inflight() < SLOT_HOLDERS && now_ms() - t0 < 4000)
		usleep(20 * 1000);
	ASSERT_EQ(SLOT_HOLDERS, admin_inflight());
	t0 = now_ms();
	ifd = import_sim(self->fd);
	err = errno;
	TH_LOG("the import without a slot returned %d (%s) after %llu ms",
	       ifd, strerror(err), (unsigned long long)(now_ms() - t0));
	test_set_delay("admin_slot", 0);
	for (i = 0; i < SLOT_HOLDERS; i++) {
		ASSERT_EQ(0, pthread_join(h[i].t, NULL));
		if (h[i].ifd >= 0) {
			ok++;
			close(h[i].ifd);
		}
		close(h[i].fd);
	}
	TH_LOG("%d of %d holders got their import", ok, SLOT_HOLDERS);
	EXPECT_EQ(-1, ifd);
	EXPECT_EQ(EBUSY, err);
	if (ifd >= 0)
		close(ifd);
	/* nothing is left behind: no stale entry, and an import works */
	EXPECT_EQ(before, att_entries(self->fd));
	ifd = import_sim(self->fd);
	EXPECT_LE(0, ifd);
	if (ifd >= 0)
		close(ifd);
	EXPECT_EQ(before, att_entries(self->fd));
}

/* The DMA vector acknowledges INTR_CAUSE.DMA (write-1-to-clear). */
TEST_F(life, dma_intr_cause_cleared)
{
	char regs[4096], *p;
	int q, ifd;
	void *buf;

	buf = dma_rig_open(_metadata, self->fd, &ifd, &q);
	ASSERT_EQ(0, dma_copy_wait(q, ifd, buf, SZ_4K));

	ASSERT_LT(0, read_file(SNODE_REGS, regs, sizeof(regs)));
	p = strstr(regs, "INTR_CAUSE = ");
	ASSERT_NE(NULL, p);
	EXPECT_EQ(0, strtoul(p + strlen("INTR_CAUSE = "), NULL, 0) &
		     INTR_CAUSE_DMA);
	dma_rig_close(buf, q, ifd);
}

/* ---- a reset while the message interrupt holds an endpoint -------------- */

static int ep_alloc(int fd, struct snode_ep_alloc *ep)
{
	memset(ep, 0, sizeof(*ep));
	ep->key = EP_KEY;
	return sn_ep_alloc(fd, ep) ? -1 : ep->out_fd;
}

static int send_self(int fd, const struct snode_ep_alloc *ep)
{
	return sn_msg_send(fd, ep->out_node, ep->out_id, EP_KEY, 0, "lifetime",
			   8, 0);
}

/* Interrupts so far on the vector named "snode0-ep<vector>", or -1. */
static long long vector_irqs(unsigned int vector)
{
	char line[1024], name[32];
	long long total = -1;
	FILE *f;

	snprintf(name, sizeof(name), " snode0-ep%u\n", vector);
	f = fopen("/proc/interrupts", "r");
	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f)) {
		char *p = strchr(line, ':');
		long long a, b;

		if (!p || !strstr(line, name))
			continue;
		if (sscanf(p + 1, "%lld %lld", &a, &b) == 2)
			total = a + b;
	}
	fclose(f);
	return total;
}

struct ep_closer {
	int fd;
	short revents;
	int ret;
};

static void *ep_closer_thread(void *arg)
{
	struct ep_closer *c = arg;
	struct pollfd p = { .fd = c->fd, .events = POLLIN };

	/* a reset kills the endpoint: EPOLLERR | EPOLLHUP */
	while (poll(&p, 1, 10000) == 1 && !(p.revents & (POLLERR | POLLHUP)))
		usleep(1000);
	c->revents = p.revents;
	c->ret = close(c->fd);
	return NULL;
}

/*
 * The message interrupt (hard IRQ) holds an endpoint it found on its
 * vector while a reset takes it off and its file is closed: the endpoint
 * may be freed only after a grace period. The delay keeps the handler on
 * the endpoint for 400 ms; the reset and the close happen inside that. (A
 * longer busy-wait in hard-IRQ context also holds off the admin completion
 * interrupt of the reset's IDENTIFY where both vectors share a CPU.)
 */
TEST_F(life, ep_irq_vs_reset_close)
{
	struct ep_closer c = { .ret = -1 };
	struct snode_ep_alloc ep, ep2;
	struct pollfd p = { .events = POLLIN };
	long long before;
	struct snode_msg m;
	uint64_t end;
	pthread_t t;
	int fd2;

	if (access(SNODE_RESET, W_OK))
		SKIP(return, "no %s: the function cannot be reset", SNODE_RESET);
	c.fd = ep_alloc(self->fd, &ep);
	ASSERT_LE(0, c.fd);
	before = vector_irqs(ep.out_vector);
	ASSERT_LE(0, before);
	ASSERT_EQ(0, pthread_create(&t, NULL, ep_closer_thread, &c));

	test_set_delay("ep_irq", 400 * 1000);
	ASSERT_EQ(0, send_self(self->fd, &ep));
	/* wait until the handler runs (and waits) on the other vCPU */
	end = now_ms() + 3000;
	while (vector_irqs(ep.out_vector) == before && now_ms() < end)
		usleep(1000);
	EXPECT_LT(before, vector_irqs(ep.out_vector));
	EXPECT_EQ(0, reset_nic());
	ASSERT_EQ(0, pthread_join(t, NULL));
	test_set_delay("ep_irq", 0);
	EXPECT_TRUE(c.revents & (POLLERR | POLLHUP));
	EXPECT_EQ(0, c.ret);

	/* messages work again after the reset */
	fd2 = ep_alloc(self->fd, &ep2);
	ASSERT_LE(0, fd2);
	ASSERT_EQ(0, send_self(self->fd, &ep2));
	p.fd = fd2;
	ASSERT_EQ(1, poll(&p, 1, 5000));
	ASSERT_EQ(sizeof(m), read(fd2, &m, sizeof(m)));
	EXPECT_EQ(0, memcmp(m.payload, "lifetime", 8));
	close(fd2);
}

/* ---- pool mappings across a function-level reset -------------------------- */

static __thread sigjmp_buf probe_jmp;

static void probe_handler(int sig)
{
	siglongjmp(probe_jmp, sig);
}

struct pool_reader {
	volatile uint64_t *p;
	volatile bool stop;
	unsigned long reads;
	unsigned long sigbus;
	unsigned long wrong;	/* a read that returned something else */
};

static void *pool_reader_thread(void *arg)
{
	struct pool_reader *r = arg;

	while (!r->stop) {
		if (sigsetjmp(probe_jmp, 1)) {
			r->sigbus++;
			continue;
		}
		if (*r->p != 0x5eed)
			r->wrong++;
		r->reads++;
	}
	return NULL;
}

/*
 * No CPU access reaches BAR4 while the device is being reset: pool
 * mappings are zapped and faults raise SIGBUS until the device is live
 * again; then the same mapping works, and the pool kept its contents.
 */
TEST_F(life, pool_mapping_during_reset)
{
	struct sigaction sa = { .sa_handler = probe_handler }, old;
	struct snode_mem_alloc a = { .size = sizeof(a), .length = SZ_64K };
	struct pool_reader r = { 0 };
	struct snode_mem_free f = { .size = sizeof(f) };
	uint64_t *p;
	pthread_t t;

	if (access(SNODE_RESET, W_OK))
		SKIP(return, "no %s: the function cannot be reset", SNODE_RESET);
	ASSERT_EQ(0, ioctl(self->fd, SNODE_IOCTL_MEM_ALLOC, &a));
	p = mmap(NULL, SZ_64K, PROT_READ | PROT_WRITE, MAP_SHARED, self->fd,
		 a.out_offset);
	ASSERT_NE(MAP_FAILED, p);
	p[0] = 0x5eed;

	ASSERT_EQ(0, sigaction(SIGBUS, &sa, &old));
	r.p = p;
	ASSERT_EQ(0, pthread_create(&t, NULL, pool_reader_thread, &r));
	usleep(100 * 1000);
	EXPECT_EQ(0, reset_nic());
	usleep(100 * 1000);
	r.stop = true;
	ASSERT_EQ(0, pthread_join(t, NULL));
	sigaction(SIGBUS, &old, NULL);

	TH_LOG("%lu reads, %lu SIGBUS during the reset", r.reads, r.sigbus);
	EXPECT_LT(0, r.sigbus);
	EXPECT_EQ(0, r.wrong);
	EXPECT_EQ(0x5eed, p[0]);
	munmap(p, SZ_64K);
	f.offset = a.out_offset;
	EXPECT_EQ(0, ioctl(self->fd, SNODE_IOCTL_MEM_FREE, &f));
}

/* ---- user memory that stalls: userfaultfd ---------------------------------- */

/*
 * A page whose first touch blocks until uffd_release(): the stand-in for
 * any buffer that can stall (FUSE, userfaultfd, NFS). NULL if the kernel
 * has no userfaultfd.
 */
struct stall {
	int uffd;
	void *page;
};

static int stall_init(struct stall *st)
{
	struct uffdio_api api = { .api = UFFD_API };
	struct uffdio_register reg = { .mode = UFFDIO_REGISTER_MODE_MISSING };

	st->uffd = syscall(__NR_userfaultfd, O_CLOEXEC);
	if (st->uffd < 0)
		return -errno;
	st->page = mmap(NULL, SZ_4K, PROT_READ | PROT_WRITE,
			MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (st->page == MAP_FAILED || ioctl(st->uffd, UFFDIO_API, &api))
		return -errno;
	reg.range.start = (uintptr_t)st->page;
	reg.range.len = SZ_4K;
	if (ioctl(st->uffd, UFFDIO_REGISTER, &reg))
		return -errno;
	return 0;
}

/* Resolve the stalled fault (if any) with a zero page. */
static void stall_release(struct stall *st)
{
	struct uffdio_zeropage z = {
		.range = { .start = (uintptr_t)st->page, .len = SZ_4K },
	};

	ioctl(st->uffd, UFFDIO_ZEROPAGE, &z);
	close(st->uffd);
}

/* Wait up to @ms for *flag; whether it was set. */
static bool wait_flag(volatile bool *flag, unsigned int ms)
{
	uint64_t end = now_ms() + ms;

	while (!*flag && now_ms() < end)
		usleep(10 * 1000);
	return *flag;
}

struct dma_staller {
	int q, ifd;
	void *buf;
	volatile bool done;
	int ret;
};

static void *dma_staller_thread(void *arg)
{
	struct dma_staller *d = arg;

	/* the device writes the buffer: the pin faults it in for writing */
	d->ret = sn_dma_copy(d->q, SNODE_DMA_FROM_GLOBAL, d->ifd, 0, d->buf,
			     SZ_4K, NULL);
	d->done = true;
	return NULL;
}

struct resetter {
	volatile bool done;
	int ret;
};

static void *resetter_thread(void *arg)
{
	struct resetter *r = arg;

	r->ret = reset_nic();
	r->done = true;
	return NULL;
}

/*
 * A DMA submission whose buffer stalls while being pinned must not hold
 * off a reset: the driver pins before it takes the device's lock.
 */
TEST_F(life, dma_stalled_pin_vs_reset)
{
	struct dma_staller d = { 0 };
	struct resetter r = { 0 };
	struct stall st;
	pthread_t td, tr;
	bool reset_first;

	if (access(SNODE_RESET, W_OK))
		SKIP(return, "no %s: the function cannot be reset", SNODE_RESET);
	if (stall_init(&st))
		SKIP(return, "no userfaultfd: %s", strerror(errno));
	d.ifd = import_sim(self->fd);
	ASSERT_LE(0, d.ifd);
	d.q = sn_dma_open(self->fd, 0, 0);
	ASSERT_LE(0, d.q);
	d.buf = st.page;

	ASSERT_EQ(0, pthread_create(&td, NULL, dma_staller_thread, &d));
	usleep(300 * 1000);
	EXPECT_FALSE(d.done);	/* stalled in the pin */
	ASSERT_EQ(0, pthread_create(&tr, NULL, resetter_thread, &r));
	reset_first = wait_flag(&r.done, 15000);
	EXPECT_FALSE(d.done);
	stall_release(&st);
	ASSERT_EQ(0, pthread_join(td, NULL));
	ASSERT_EQ(0, pthread_join(tr, NULL));
	EXPECT_TRUE(reset_first);
	EXPECT_EQ(0, r.ret);
	TH_LOG("the stalled submission returned %d", d.ret);
	close(d.q);
	close(d.ifd);
}

struct ep_reader {
	int fd;
	void *buf;
	volatile bool done;
	ssize_t ret;
};

static void *ep_reader_thread(void *arg)
{
	struct ep_reader *r = arg;

	r->ret = read(r->fd, r->buf, sizeof(struct snode_msg));
	r->done = true;
	return NULL;
}

/*
 * A reader whose buffer stalls must not hold off an unbind: the endpoint's
 * read lock is never held across a user fault. The NIC is bound again
 * afterwards, as snode0.
 */
TEST_F(life, ep_stalled_read_vs_unbind)
{
	struct ep_reader rd = { 0 };
	struct snode_ep_alloc ep;
	char link[256], *bdf;
	bool unbound_first;
	struct stall st;
	pthread_t tr;
	uint64_t end;
	ssize_t n;
	pid_t pid;
	int ret;

	n = readlink(SNODE_PCIDEV, link, sizeof(link) - 1);
	ASSERT_LT(0, n);
	link[n] = '\0';
	bdf = strrchr(link, '/') + 1;
	if (stall_init(&st))
		SKIP(return, "no userfaultfd: %s", strerror(errno));
	rd.fd = ep_alloc(self->fd, &ep);
	ASSERT_LE(0, rd.fd);
	ASSERT_EQ(0, send_self(self->fd, &ep));
	rd.buf = st.page;
	ASSERT_EQ(0, pthread_create(&tr, NULL, ep_reader_thread, &rd));
	usleep(300 * 1000);
	EXPECT_FALSE(rd.done);	/* stalled copying the message out */

	/* unbind in a child: if it hangs, the test still ends */
	pid = fork();
	ASSERT_LE(0, pid);
	if (!pid)
		_exit(write_file(SNODE_DRIVER "unbind", bdf) ? 1 : 0);
	end = now_ms() + 15000;
	while (!(ret = waitpid(pid, NULL, WNOHANG)) && now_ms() < end)
		usleep(10 * 1000);
	unbound_first = ret == pid;
	stall_release(&st);
	ASSERT_EQ(0, pthread_join(tr, NULL));
	if (!unbound_first)
		waitpid(pid, NULL, 0);
	EXPECT_TRUE(unbound_first);
	TH_LOG("the stalled read returned %zd", rd.ret);

	/* every file of the old device closed, so it comes back as snode0 */
	close(rd.fd);
	close(self->fd);
	self->fd = open("/dev/null", O_RDONLY);
	ASSERT_EQ(0, write_file(SNODE_DRIVER "bind", bdf));
	end = now_ms() + 10000;
	while (access(SNODE_DEV, F_OK) && now_ms() < end)
		usleep(10 * 1000);
	ASSERT_EQ(0, access(SNODE_DEV, F_OK));
}

TEST_HARNESS_MAIN
