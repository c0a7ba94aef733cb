/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * snode-fuzz: shared declarations.
 */
#ifndef SNODE_FUZZ_H
#define SNODE_FUZZ_H

#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include <linux/snode.h>

#define FZ_MAX_THREADS	16
#define FZ_MAX_SLOTS	64	/* threads, data worker, exporter, children */
#define FZ_LOG_N	32	/* calls kept per slot for the failure report */
#define FZ_LOG_LEN	160
#define FZ_REPORT_N	12	/* calls printed per slot on failure */
#define FZ_FD_FLOOR	512	/* fds the fuzzer protects live at or above */
#define FZ_CHAOS_FD_MAX	256	/* random closes hit fd numbers below this */

/* Region node N exports for its peer's data worker, and the key. */
#define FZ_REGION	(1ULL << 20)
#define FZ_PAGES	(FZ_REGION / 4096)
#define FZ_CPU_PAGES	(FZ_PAGES / 2)	/* pages 0..127: CPU stores */
#define FZ_DATA_KEY(n)	(0x5f02200000000000ULL | (uint64_t)(n))
#define FZ_LINGER_S	15	/* the export outlives the run by this */
#define FZ_PAGE_MAGIC	0x7a7a5346555a5a31ULL	/* "1ZZUFSzz" */
/*
 * A failed window (all-ones, SIGBUS, a DMA copy ended as REVOKED): the
 * driver hears of the device's revocation within this. 2 s was too short
 * for a KASAN kernel under the fuzzer's load (2.0-2.3 s seen).
 */
#define FZ_REVOKE_LAG_MS	5000

struct fz_entry {
	uint64_t seq;
	char text[FZ_LOG_LEN];
};

struct fz_slot {
	int used;
	pid_t pid;
	pid_t tid;
	char name[24];
	uint64_t calls;
	uint64_t seq;
	int64_t call_start_ns;		/* 0 while not inside a call */
	int64_t slowest_ns;		/* the longest call so far */
	char slowest[FZ_LOG_LEN];
	struct fz_entry ring[FZ_LOG_N];
};

struct fz_shared {
	int stop;
	int failed;
	int report_lock;
	uint64_t forks;
	uint64_t data_rounds;
	uint64_t data_pages;		/* pages verified by the data workers */
	uint64_t exp_pages;		/* pages verified by the exporter */
	uint64_t sim_checks;
	uint64_t revocations;		/* revocations the data worker saw */
	uint64_t sigbus;
	uint64_t ones;			/* all-ones reads, revocation in flight */
	uint64_t revoke_lag;		/* failures seen before the driver revoked */
	uint32_t data_export_id;
	struct fz_slot slots[FZ_MAX_SLOTS];
};

struct fz_opts {
	uint64_t seed;
	double duration;
	int threads;
	const char *log;
	const char *dev;
	int peer;		/* -1: no data worker */
	int sim_node;		/* -1: no sim export check */
	uint32_t sim_id;
	uint64_t sim_key;
	uint64_t sim_len;
	int hang_s;
	uid_t uid;
	gid_t gid;
	bool drop;
	bool verbose;
};

extern struct fz_shared *fz_sh;
extern struct fz_opts fz_opt;
extern int fz_logfd;
extern int fz_node;		/* this NIC's node id */
extern bool fz_privileged;	/* has CAP_NET_ADMIN */

/* Per-thread (or per-process) context. */
struct fz_ctx {
	uint64_t rng;
	struct fz_slot *slot;
	int idx;
	/* SIGBUS/SIGSEGV recovery */
	sigjmp_buf jb;
	volatile int jb_armed;
	volatile int last_sig;
	void *priv;
};

extern __thread struct fz_ctx *fz_cur;

/* rng.c-ish helpers (main.c) */
uint64_t fz_rand(struct fz_ctx *c);
static inline uint64_t fz_below(struct fz_ctx *c, uint64_t n)
{
	return n ? fz_rand(c) % n : 0;
}
static inline bool fz_chance(struct fz_ctx *c, unsigned int pct)
{
	return fz_below(c, 100) < pct;
}
uint64_t fz_mix(uint64_t x);

int64_t fz_now_ns(void);
struct fz_slot *fz_slot_get(const char *fmt, ...)
	__attribute__((format(printf, 1, 2)));
void fz_ctx_init(struct fz_ctx *c, struct fz_slot *slot, uint64_t seed);

/* call log: begin a call, end it with its result */
void fz_begin(struct fz_ctx *c, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
void fz_end(struct fz_ctx *c, long ret, int err);
void fz_note(struct fz_ctx *c, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
void fz_fail(struct fz_ctx *c, const char *fmt, ...)
	__attribute__((format(printf, 2, 3), noreturn));
static inline bool fz_stopped(void)
{
	return __atomic_load_n(&fz_sh->stop, __ATOMIC_RELAXED) ||
	       __atomic_load_n(&fz_sh->failed, __ATOMIC_RELAXED);
}

/*
 * Held around close()/dup2() of loose fds and around libsnode calls:
 * libsnode's netlink socket is a low fd, and libnl blocks reading it; it
 * must not be closed and replaced by another socket under a request.
 * Forked children (fz_in_child) never take it.
 */
void fz_fd_lock(void);
void fz_fd_unlock(void);
extern bool fz_in_child;

/* protected fds live at FZ_FD_FLOOR and above */
int fz_protect_fd(int fd);
int fz_open_dev(struct fz_ctx *c, int flags);
void fz_sig_install(void);

/* SIGBUS-safe memory access: 0, or the signal number */
int fz_touch_read(struct fz_ctx *c, const volatile void *p, size_t len,
		  uint64_t *sum);
int fz_touch_write(struct fz_ctx *c, volatile void *p, uint64_t v);

uint32_t fz_crc32(const void *buf, size_t len);

/* errno checks */
const char *fz_errname(int err);

/* chaos.c */
void *fz_chaos_thread(void *arg);
void fz_chaos_child(struct fz_ctx *c, void *tbl);

/* data.c */
int fz_exporter_main(void);
int fz_data_main(void);

/* nl.c */
struct fz_nl;
struct fz_nl *fz_nl_new(struct fz_ctx *c);
void fz_nl_free(struct fz_nl *nl);
void fz_nl_op(struct fz_ctx *c, struct fz_nl *nl);

#endif
