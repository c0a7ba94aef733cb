// SPDX-License-Identifier: GPL-2.0
/*
 * campaign_traffic - the guest half of selftests/vm/campaign.sh: checked
 * traffic between the nodes of a supernode while the host injects faults.
 *
 * Node i sends to node j = (i + 1) % N. Every worker runs until the file
 * STOP exists, prints a "progress ..." line about once a second and a
 * "final ..." line when it stops; problems are "event ..." lines.
 *
 *   campaign_traffic serve N [STOP]
 *	export a window (export id 0) and a DMA target (export id 1), both
 *	rw with key KEY(node); set up endpoint 1 with the same key. Check
 *	the records node i-1 writes into the window (sequence-locked slots
 *	with a checksum; at the end the last 62 records word by word) and the
 *	messages it sends (per-sender generation and sequence: loss,
 *	duplication, corruption). Handles revocation of its own pool mapping
 *	(SIGBUS during a reset) and a reset endpoint (allocated again).
 *   campaign_traffic window N [STOP]
 *	import node j's window and write records; a revoked import is
 *	imported again; its header must then still hold the last committed
 *	record (else "lost") unless the exporter came back as a new process.
 *   campaign_traffic dma N [STOP]
 *	import node j's DMA target; copy a pattern in and back out and
 *	compare; a revoked import is imported again.
 *   campaign_traffic msg N [STOP]
 *	send numbered, checksummed 48-byte messages to endpoint 1 of node j.
 *
 * Exit status 0 when the worker found nothing wrong, 1 otherwise.
 *
 * CT_BREAK=window,msg,dma (any of them) in the environment breaks the traffic on
 * purpose, to see the checks fail: the window writer corrupts a word of
 * record 200 and pauses 3 s for the checker, the message sender skips one
 * sequence number, the DMA worker flips a bit of one copy it read back.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <setjmp.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/random.h>
#include <time.h>
#include <unistd.h>

#include <linux/snode.h>

#include "snode_utils.h"

#define SNODE_DEV	"/dev/snode0"
#define WIN_LEN		(256 << 10)
#define SLOT_WORDS	512
#define NSLOTS		(WIN_LEN / 8 / SLOT_WORDS - 1)	/* slot 0: header */
#define DMA_LEN		(256 << 10)
#define DMA_CHUNK	(64 << 10)
#define MAGIC		0x534e4f4443414dULL
#define INVALID_SEQ	(~0ULL)
#define KEY(n)		(0xc0ffee0000ULL + (n))
#define EP_ID		1

static const char *stop_file = "/tmp/ct.stop";
static const char *ct_break = "";
static int dev_fd = -1;
static uint32_t self, peer, nnodes;
static unsigned long long bytes_checked, errors, revokes[8];

static void barrier(void)
{
	__atomic_thread_fence(__ATOMIC_SEQ_CST);
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static bool stopped(void)
{
	return access(stop_file, F_OK) == 0;
}

static uint64_t mix(uint64_t x)
{
	x += 0x9e3779b97f4a7c15ULL;
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
	x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
	return x ^ (x >> 31);
}

/* A generation: new for every process, also after a reboot (same pids). */
static uint64_t new_gen(void)
{
	uint64_t g = 0;

	if (getrandom(&g, sizeof(g), 0) != sizeof(g))
		g = mix(getpid() ^ (uint64_t)time(NULL) ^ (uint64_t)(now() * 1e9));
	return g | 1;
}

static uint64_t word(uint64_t gen, uint64_t seq, unsigned int i)
{
	return mix(gen ^ mix(seq) ^ ((uint64_t)i << 48));
}

/* The running worker's progress line, printed about once a second. */
static void (*progress_fn)(void);
static double next_progress;

static void progress(void)
{
	if (now() < next_progress || !progress_fn)
		return;
	progress_fn();
	fflush(stdout);
	next_progress = now() + 1;
}

static void reasons(char *buf, size_t len)
{
	snprintf(buf, len, "unexport %llu exporter_reset %llu node_dead %llu unreachable %llu local_reset %llu local_remove %llu",
		 revokes[1], revokes[2], revokes[3], revokes[4], revokes[5],
		 revokes[6]);
}

static int open_dev(void)
{
	struct snode_info info = { .size = sizeof(info) };

	if (dev_fd >= 0)
		close(dev_fd);
	dev_fd = open(SNODE_DEV, O_RDWR | O_CLOEXEC);
	if (dev_fd < 0)
		return -errno;
	if (ioctl(dev_fd, SNODE_IOCTL_INFO, &info))
		return -errno;
	self = info.out_node_id;
	peer = (self + 1) % nnodes;
	return 0;
}

static sigjmp_buf bus_jmp;
static volatile sig_atomic_t bus_armed;

static void bus_handler(int sig)
{
	if (bus_armed)
		siglongjmp(bus_jmp, sig);
	signal(sig, SIG_DFL);
	raise(sig);
}

static void catch_bus(void)
{
	struct sigaction sa = { .sa_handler = bus_handler };

	sigaction(SIGBUS, &sa, NULL);
}

/* An import of node @node's export @id; its reason goes to revokes[]. */
static int import(uint32_t node, uint32_t id, uint64_t len)
{
	int fd = sn_import(dev_fd, SNODE_IMPORT_WRITE, node, id, KEY(node), 0,
			   len);

	return fd < 0 ? -errno : fd;
}

static void note_revoke(int fd, const char *who)
{
	struct snode_import_status st = { .size = sizeof(st) };

	if (ioctl(fd, SNODE_IOCTL_IMPORT_STATUS, &st)) {
		printf("event %s import status failed: %s\n", who, strerror(errno));
		errors++;
		return;
	}
	if (st.out_state == SNODE_WINDOW_STATE_REVOKED && st.out_reason < 8)
		revokes[st.out_reason]++;
	printf("event %s revoked state %u reason %u\n", who, st.out_state,
	       st.out_reason);
}

/* Import again until it works or we are stopped; a reset NIC needs a new file. */
static int reimport(uint32_t id, uint64_t len, const char *who)
{
	int fd, last = 0;

	while (!stopped()) {
		fd = import(peer, id, len);
		if (fd >= 0)
			return fd;
		if (fd != last)
			printf("event %s import: %s\n", who, strerror(-fd));
		last = fd;
		progress();
		if (fd == -ENODEV || fd == -EIO)
			open_dev();
		usleep(200000);
	}
	return -1;
}

/* --- window ------------------------------------------------------------- */

/* Over every word but the sequence lock (word 2), bound to @seq. */
static uint64_t checksum(volatile const uint64_t *w, uint64_t seq)
{
	uint64_t c = mix(seq);
	unsigned int i;

	for (i = 0; i < SLOT_WORDS - 1; i++)
		if (i != 2)
			c = mix(c ^ w[i]);
	return c;
}

static void write_record(volatile uint64_t *win, uint64_t gen, uint64_t seq)
{
	volatile uint64_t *w = win + SLOT_WORDS * (1 + seq % NSLOTS);
	unsigned int i;

	w[2] = INVALID_SEQ;
	barrier();
	w[0] = MAGIC ^ seq;
	w[1] = gen;
	for (i = 3; i < SLOT_WORDS - 1; i++)
		w[i] = word(gen, seq, i);
	w[SLOT_WORDS - 1] = checksum(w, seq);
	barrier();
	w[2] = seq;
	barrier();
	win[2] = seq;		/* header: last committed record */
	barrier();
}

/* static: kept across siglongjmp from the SIGBUS handler */
static uint64_t w_gen, w_seq;
static unsigned long long w_lost, w_fresh, w_imports, w_written, w_dropped;
static bool w_pending;	/* record w_seq + 1 written, its header not read back */

static void window_progress(void)
{
	char r[256];

	reasons(r, sizeof(r));
	printf("progress window gen %llx seq %llu records %llu lost %llu dropped %llu new_exporter %llu imports %llu errors %llu %s\n",
	       (unsigned long long)w_gen, (unsigned long long)w_seq,
	       w_written, w_lost, w_dropped, w_fresh, w_imports, errors, r);
}

static int cmd_window(void)
{
	volatile uint64_t *volatile win = MAP_FAILED;
	volatile int fd = -1;
	char r[256];

	w_gen = new_gen();
	progress_fn = window_progress;
	catch_bus();
	while (!stopped()) {
		if (win == MAP_FAILED) {
			fd = reimport(0, WIN_LEN, "window");
			if (fd < 0)
				break;
			win = mmap(NULL, WIN_LEN, PROT_READ | PROT_WRITE,
				   MAP_SHARED, fd, 0);
			if (win == MAP_FAILED) {
				printf("event window mmap: %s\n", strerror(errno));
				errors++;
				close(fd);
				usleep(200000);
				continue;
			}
			bus_armed = 1;
			if (sigsetjmp(bus_jmp, 1))
				goto revoked;
			if (win[0] == MAGIC && win[1] == w_gen && win[3] == self) {
				/* the record whose read-back failed may have landed */
				if (w_pending && win[2] == w_seq + 1)
					w_seq++;
				w_pending = false;
				if (win[2] != w_seq) {
					printf("event window LOST: header seq %llu, committed %llu\n",
					       (unsigned long long)win[2],
					       (unsigned long long)w_seq);
					w_lost++;
				}
			} else {
				if (w_seq)
					w_fresh++;	/* a new exporter */
				w_gen = new_gen();
				w_seq = 0;
				w_pending = false;
				win[1] = w_gen;
				win[2] = 0;
				win[3] = self;
				barrier();
				win[0] = MAGIC;
			}
			w_imports++;
			bus_armed = 0;
		}
		bus_armed = 1;
		if (sigsetjmp(bus_jmp, 1))
			goto revoked;
		write_record(win, w_gen, w_seq + 1);
		/*
		 * Stores are posted: between the NIC revoking the window and
		 * the driver unmapping it they are dropped (hardware contract:
		 * writes outside a valid entry are dropped, reads return
		 * all-ones). A record is committed once its header reads back.
		 */
		if (win[2] != w_seq + 1) {
			bus_armed = 0;
			if (!w_pending)
				w_dropped++;
			w_pending = true;
			usleep(10000);
			continue;	/* the SIGBUS follows */
		}
		if (w_seq + 1 == 200 && strstr(ct_break, "window")) {
			/* CT_BREAK: corrupt it and hold still for the checker */
			win[SLOT_WORDS * (1 + 200 % NSLOTS) + 5] ^= 1;
			printf("event window CT_BREAK: corrupted record 200\n");
			sleep(3);
		}
		bus_armed = 0;
		w_seq++;
		w_written++;
		progress();
		usleep(2000);
		continue;
revoked:
		bus_armed = 0;
		note_revoke(fd, "window");
		munmap((void *)win, WIN_LEN);
		close(fd);
		win = MAP_FAILED;
		fflush(stdout);
	}
	reasons(r, sizeof(r));
	printf("final window to %u gen %llx seq %llu pending %d records %llu bytes %llu lost %llu dropped %llu new_exporter %llu errors %llu %s\n",
	       peer, (unsigned long long)w_gen, (unsigned long long)w_seq,
	       w_pending, w_written, w_written * SLOT_WORDS * 8, w_lost,
	       w_dropped, w_fresh, errors, r);
	return w_lost || errors;
}

/* Check one slot under its sequence lock: 1 checked, 0 busy, -1 bad. */
static int check_slot(volatile const uint64_t *w, uint64_t gen, bool exact)
{
	uint64_t copy[SLOT_WORDS], s1, s2;
	unsigned int i;

	s1 = w[2];
	barrier();
	for (i = 0; i < SLOT_WORDS; i++)
		copy[i] = w[i];
	barrier();
	s2 = w[2];
	if (s1 != s2 || s1 == INVALID_SEQ || s1 == 0 || copy[1] != gen)
		return 0;
	if (copy[0] != (MAGIC ^ s1))
		return -1;
	if (checksum(copy, s1) != copy[SLOT_WORDS - 1])
		return -1;
	if (exact)
		for (i = 3; i < SLOT_WORDS - 1; i++)
			if (copy[i] != word(gen, s1, i))
				return -1;
	return 1;
}

/* --- serve -------------------------------------------------------------- */

struct src_state {
	uint64_t gen, last;
	unsigned long long recv, lost, dup, bad;
};

static struct src_state src[64];

static int ep_alloc(void)
{
	struct snode_ep_alloc ep = {
		.flags = SNODE_EP_ID | SNODE_EP_NONBLOCK,
		.id = EP_ID,
		.entries = 256,
		.key = KEY(self),
	};

	return sn_ep_alloc(dev_fd, &ep) ? -errno : ep.out_fd;
}

static void check_msg(const struct snode_msg *m)
{
	uint64_t v[6];
	struct src_state *s;

	memcpy(v, m->payload, sizeof(v));
	if (m->src_node >= 64 || m->len != SNODE_MSG_MAX_LEN ||
	    v[0] != (MAGIC ^ m->src_node) || v[3] != word(v[1], v[2], 1) ||
	    v[4] != word(v[1], v[2], 2) || v[5] != word(v[1], v[2], 3)) {
		printf("event msg BAD from %u len %u\n", m->src_node, m->len);
		errors++;
		if (m->src_node < 64)
			src[m->src_node].bad++;
		return;
	}
	s = &src[m->src_node];
	s->recv++;
	bytes_checked += SNODE_MSG_MAX_LEN;
	if (v[1] != s->gen) {
		if (s->gen)
			printf("event msg from %u: new generation at seq %llu\n",
			       m->src_node, (unsigned long long)v[2]);
		s->gen = v[1];
		s->last = v[2];
		return;
	}
	if (v[2] <= s->last) {
		printf("event msg DUP from %u seq %llu (last %llu)\n",
		       m->src_node, (unsigned long long)v[2],
		       (unsigned long long)s->last);
		s->dup++;
		return;
	}
	if (v[2] != s->last + 1) {
		printf("event msg LOST from %u: seq %llu after %llu\n",
		       m->src_node, (unsigned long long)v[2],
		       (unsigned long long)s->last);
		s->lost += v[2] - s->last - 1;
	}
	s->last = v[2];
}

static int cmd_serve(void)
{
	struct snode_mem_alloc alloc = { .size = sizeof(alloc), .length = WIN_LEN + DMA_LEN };
	struct snode_mem_export exp = { .size = sizeof(exp) };
	volatile unsigned long long checked = 0, bad = 0, resets = 0;
	volatile uint64_t *pool;
	struct snode_msg msgs[32];
	double next = now() + 1;
	uint32_t writer;
	uint64_t gen, seq, s;
	int ep, n, i, rc;
	volatile bool bus = false;

	if (ioctl(dev_fd, SNODE_IOCTL_MEM_ALLOC, &alloc)) {
		printf("error alloc: %s\n", strerror(errno));
		return 1;
	}
	pool = mmap(NULL, alloc.length, PROT_READ | PROT_WRITE, MAP_SHARED,
		    dev_fd, alloc.out_offset);
	if (pool == MAP_FAILED) {
		printf("error mmap: %s\n", strerror(errno));
		return 1;
	}
	for (i = 0; i < 2; i++) {
		exp.flags = SNODE_EXPORT_WRITE;
		exp.alloc = alloc.out_offset;
		exp.offset = i ? WIN_LEN : 0;
		exp.length = i ? DMA_LEN : WIN_LEN;
		exp.key = KEY(self);
		if (ioctl(dev_fd, SNODE_IOCTL_MEM_EXPORT, &exp) ||
		    exp.out_export_id != (uint32_t)i) {
			printf("error export %d: %s (id %u)\n", i, strerror(errno),
			       exp.out_export_id);
			return 1;
		}
	}
	ep = ep_alloc();
	if (ep < 0) {
		printf("error endpoint: %s\n", strerror(-ep));
		return 1;
	}
	printf("serving node %u\n", self);
	fflush(stdout);
	catch_bus();
	while (!stopped()) {
		struct pollfd pfd = { .fd = ep, .events = POLLIN };

		poll(&pfd, 1, 100);
		n = read(ep, msgs, sizeof(msgs));
		for (i = 0; i < n / (int)sizeof(msgs[0]); i++)
			check_msg(&msgs[i]);
		if (n < 0 && errno != EAGAIN) {
			/* reset: the endpoint is gone, set up a new one */
			printf("event endpoint: %s\n", strerror(errno));
			resets++;
			close(ep);
			do {
				usleep(100000);
				ep = ep_alloc();
			} while (ep < 0 && !stopped());
			if (ep < 0)
				break;
		}
		if (now() < next)
			continue;
		/* a pass over the window; a reset may SIGBUS the pool mapping */
		bus_armed = 1;
		if (sigsetjmp(bus_jmp, 1)) {
			bus_armed = 0;
			if (!bus)
				printf("event serve: SIGBUS on the own pool (reset)\n");
			bus = true;
		} else {
			if (pool[0] == MAGIC)
				for (s = 1; s <= NSLOTS; s++) {
					rc = check_slot(pool + SLOT_WORDS * s, pool[1], false);
					checked += rc > 0;
					if (rc < 0 && bad++ < 10)
						printf("event window slot %llu BAD\n",
						       (unsigned long long)s);
				}
			bus_armed = 0;
			bus = false;
		}
		printf("progress serve records_checked %llu bad %llu endpoint_resets %llu", checked, bad, resets);
		for (i = 0; i < 64; i++)
			if (src[i].gen)
				printf(" from%d %llu/%llu/%llu/%llu", i, src[i].recv,
				       src[i].lost, src[i].dup, src[i].bad);
		printf("\n");
		fflush(stdout);
		next = now() + 1;
	}
	/* drain, then the final word-by-word check of the last records */
	usleep(300000);
	while ((n = read(ep, msgs, sizeof(msgs))) > 0)
		for (i = 0; i < n / (int)sizeof(msgs[0]); i++)
			check_msg(&msgs[i]);
	bus_armed = 1;
	if (sigsetjmp(bus_jmp, 1)) {
		printf("final window SIGBUS reading the own pool\n");
		return 1;
	}
	bytes_checked += checked * SLOT_WORDS * 8;
	if (pool[0] == MAGIC) {
		gen = pool[1];
		seq = pool[2];
		writer = pool[3];
		for (s = seq > NSLOTS ? seq - NSLOTS + 1 : 1; s <= seq; s++) {
			volatile const uint64_t *w = pool + SLOT_WORDS * (1 + s % NSLOTS);

			if (w[2] != s || check_slot(w, gen, true) != 1) {
				printf("event window final record %llu BAD\n",
				       (unsigned long long)s);
				bad++;
			} else {
				bytes_checked += SLOT_WORDS * 8;
			}
		}
		printf("final window from %u gen %llx seq %llu\n", writer,
		       (unsigned long long)gen, (unsigned long long)seq);
	} else {
		printf("final window from none\n");
	}
	for (i = 0; i < 64; i++)
		if (src[i].gen)
			printf("final msg from %d gen %llx seq %llu recv %llu lost %llu dup %llu bad %llu\n",
			       i, (unsigned long long)src[i].gen,
			       (unsigned long long)src[i].last, src[i].recv,
			       src[i].lost, src[i].dup, src[i].bad);
	printf("final serve records_checked %llu bad %llu endpoint_resets %llu errors %llu bytes_checked %llu\n",
	       checked, bad, resets, errors, bytes_checked);
	for (i = 0; i < 64; i++)
		if (src[i].lost || src[i].dup || src[i].bad)
			return 1;
	return bad || errors;
}

/* --- dma ---------------------------------------------------------------- */

static int dma_open(void)
{
	int q = sn_dma_open(dev_fd, 4, 0);

	return q < 0 ? -errno : q;
}

/* 0, or the failing copy's negative errno */
static int dma_copy(int q, int imp, uint32_t flags, uint64_t off, void *buf)
{
	uint64_t bytes = 0;
	int ret = sn_dma_copy(q, flags, imp, off, buf, DMA_CHUNK, &bytes);

	if (ret)
		return ret;
	return bytes == DMA_CHUNK ? 0 : -EIO;
}

static unsigned long long d_copies, d_bad, d_imports;

static void dma_progress(void)
{
	char r[256];

	reasons(r, sizeof(r));
	printf("progress dma copies %llu bad %llu imports %llu errors %llu %s\n",
	       d_copies, d_bad, d_imports, errors, r);
}

static int cmd_dma(void)
{
	static uint64_t out[DMA_CHUNK / 8], in[DMA_CHUNK / 8];
	uint64_t gen = new_gen(), seq = 0;
	int q = -1, imp = -1, rc;
	unsigned int i;
	char r[256];

	progress_fn = dma_progress;

	while (!stopped()) {
		if (q < 0) {
			q = dma_open();
			if (q < 0) {
				usleep(200000);
				open_dev();
				continue;
			}
		}
		if (imp < 0) {
			imp = reimport(1, DMA_LEN, "dma");
			if (imp < 0)
				break;
			d_imports++;
		}
		seq++;
		for (i = 0; i < DMA_CHUNK / 8; i++)
			out[i] = word(gen, seq, i);
		memset(in, 0, sizeof(in));
		rc = dma_copy(q, imp, SNODE_DMA_TO_GLOBAL, (seq % 4) * DMA_CHUNK, out);
		if (!rc)
			rc = dma_copy(q, imp, SNODE_DMA_FROM_GLOBAL, (seq % 4) * DMA_CHUNK, in);
		if (rc == -ECONNRESET || rc == -ENODEV) {
			note_revoke(imp, "dma");
			close(imp);
			imp = -1;
			if (rc == -ENODEV) {
				close(q);
				q = -1;
			}
			continue;
		}
		if (rc) {
			printf("event dma copy: %s\n", strerror(-rc));
			errors++;
			progress();
			usleep(100000);
			continue;
		}
		if (seq == 100 && strstr(ct_break, "dma"))
			in[7] ^= 1;
		if (memcmp(in, out, sizeof(in))) {
			printf("event dma BAD data, copy %llu\n", (unsigned long long)seq);
			d_bad++;
		} else {
			bytes_checked += 2 * DMA_CHUNK;
		}
		d_copies++;
		progress();
		usleep(5000);
	}
	reasons(r, sizeof(r));
	printf("final dma to %u copies %llu bytes_checked %llu bad %llu errors %llu %s\n",
	       peer, d_copies, bytes_checked, d_bad, errors, r);
	return d_bad != 0;
}

/* --- msg ---------------------------------------------------------------- */

static unsigned long long m_fails[160], m_timeouts, m_seq;
/* the first failure of the message not yet sent: 0, or its errno */
static int m_first_err;

static void msg_progress(void)
{
	int i;

	printf("progress msg sent %llu timeouts %llu failed", m_seq, m_timeouts);
	for (i = 0; i < 160; i++)
		if (m_fails[i])
			printf(" %s:%llu", strerror(i), m_fails[i]);
	printf("\n");
}

static int cmd_msg(void)
{
	uint64_t gen = new_gen(), seq = 0, v[6];
	struct snode_msg_send m;
	int e;

	progress_fn = msg_progress;

	while (!stopped()) {
		memset(&m, 0, sizeof(m));
		m.size = sizeof(m);
		m.node = peer;
		m.ep = EP_ID;
		m.key = KEY(peer);
		m.len = SNODE_MSG_MAX_LEN;
		m.timeout_ms = 1000;
		v[0] = MAGIC ^ self;
		v[1] = gen;
		v[2] = seq + 1;
		v[3] = word(gen, seq + 1, 1);
		v[4] = word(gen, seq + 1, 2);
		v[5] = word(gen, seq + 1, 3);
		memcpy(m.payload, v, sizeof(v));
		if (ioctl(dev_fd, SNODE_IOCTL_MSG_SEND, &m)) {
			e = errno;
			if (!m_first_err)
				m_first_err = e;
			if (e < 160 && !m_fails[e]++)
				printf("event msg send: %s\n", strerror(e));
			if (e == ETIMEDOUT)
				m_timeouts++;
			progress();
			if (e == ENODEV || e == EIO)
				open_dev();
			usleep(100000);
			continue;
		}
		m_seq = ++seq;
		m_first_err = 0;
		if (seq == 100 && strstr(ct_break, "msg"))
			seq++;	/* CT_BREAK: this number is never sent */
		progress();
		usleep(3000);
	}
	/*
	 * pending 1: the next message failed first with ENOLINK, which the
	 * NIC also reports for a send in flight when the fm is lost; it may
	 * have been delivered (Documentation/decisions/0010).
	 */
	printf("final msg to %u gen %llx seq %llu pending %d timeouts %llu\n",
	       peer, (unsigned long long)gen, (unsigned long long)seq,
	       m_first_err == ENOLINK, m_timeouts);
	return 0;
}

int main(int argc, char **argv)
{
	int rc;

	if (argc < 3)
		goto usage;
	nnodes = atoi(argv[2]);
	if (argc > 3)
		stop_file = argv[3];
	if (!nnodes || nnodes > 64)
		goto usage;
	setvbuf(stdout, NULL, _IOLBF, 0);
	if (getenv("CT_BREAK"))
		ct_break = getenv("CT_BREAK");
	rc = open_dev();
	if (rc) {
		printf("error %s: %s\n", SNODE_DEV, strerror(-rc));
		return 1;
	}
	if (!strcmp(argv[1], "serve"))
		return cmd_serve();
	if (!strcmp(argv[1], "window"))
		return cmd_window();
	if (!strcmp(argv[1], "dma"))
		return cmd_dma();
	if (!strcmp(argv[1], "msg"))
		return cmd_msg();
usage:
	fprintf(stderr, "usage: campaign_traffic serve|window|dma|msg NODES [STOPFILE]\n");
	return 2;
}
