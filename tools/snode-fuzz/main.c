// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * snode-fuzz: a seeded random ioctl/mmap/netlink fuzzer of snode.ko, run
 * inside an emulated node. See snode-fuzz.1.
 *
 * Process layout: the main process runs --threads chaos threads (chaos.c)
 * and a watchdog thread; with --peer it also forks an exporter process and a
 * data worker process (data.c). Chaos threads fork short-lived children.
 * Every thread or process owns a slot in a MAP_SHARED area that holds its
 * call counter and a ring of its last calls, so that whoever detects a
 * failure (or the watchdog, a hang) can print them all.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <grp.h>
#include <inttypes.h>
#include <linux/capability.h>
#include <pthread.h>
#include <signal.h>
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

#include "fuzz.h"

struct fz_shared *fz_sh;
struct fz_opts fz_opt = {
	.duration = 60,
	.threads = 4,
	.dev = "/dev/snode0",
	.peer = -1,
	.sim_node = -1,
	.hang_s = 90,
};
int fz_logfd = -1;
int fz_node = -1;
bool fz_privileged;
__thread struct fz_ctx *fz_cur;
static pid_t main_pid;
static int64_t t_start, t_stop;
static pid_t kids[2] = { -1, -1 };
static pthread_mutex_t fd_lock = PTHREAD_MUTEX_INITIALIZER;
bool fz_in_child;

void fz_fd_lock(void)
{
	if (!fz_in_child)
		pthread_mutex_lock(&fd_lock);
}

void fz_fd_unlock(void)
{
	if (!fz_in_child)
		pthread_mutex_unlock(&fd_lock);
}

/* ---- random numbers: splitmix64 seeding, xorshift64* stream ---------------- */

uint64_t fz_mix(uint64_t x)
{
	x += 0x9e3779b97f4a7c15ULL;
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
	x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
	return x ^ (x >> 31);
}

uint64_t fz_rand(struct fz_ctx *c)
{
	uint64_t x = c->rng;

	x ^= x >> 12;
	x ^= x << 25;
	x ^= x >> 27;
	c->rng = x;
	return x * 0x2545f4914f6cdd1dULL;
}

int64_t fz_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

uint32_t fz_crc32(const void *buf, size_t len)
{
	const uint8_t *p = buf;
	uint32_t crc = ~0U;
	int k;

	while (len--) {
		crc ^= *p++;
		for (k = 0; k < 8; k++)
			crc = (crc >> 1) ^ (0xedb88320U & -(crc & 1));
	}
	return ~crc;
}

const char *fz_errname(int err)
{
	static const struct { int e; const char *n; } names[] = {
		{ 0, "0" }, { EPERM, "EPERM" }, { ENOENT, "ENOENT" },
		{ EINTR, "EINTR" }, { EIO, "EIO" }, { ENXIO, "ENXIO" },
		{ E2BIG, "E2BIG" }, { EBADF, "EBADF" }, { EAGAIN, "EAGAIN" },
		{ ENOMEM, "ENOMEM" }, { EACCES, "EACCES" }, { EFAULT, "EFAULT" },
		{ EBUSY, "EBUSY" }, { EEXIST, "EEXIST" }, { ENODEV, "ENODEV" },
		{ EINVAL, "EINVAL" }, { ENFILE, "ENFILE" }, { EMFILE, "EMFILE" },
		{ ENOTTY, "ENOTTY" }, { ENOSPC, "ENOSPC" }, { EROFS, "EROFS" },
		{ ERANGE, "ERANGE" }, { ENOLINK, "ENOLINK" },
		{ EOPNOTSUPP, "EOPNOTSUPP" }, { ECONNRESET, "ECONNRESET" },
		{ ETIMEDOUT, "ETIMEDOUT" }, { EHOSTUNREACH, "EHOSTUNREACH" },
		{ EKEYREJECTED, "EKEYREJECTED" }, { EMSGSIZE, "EMSGSIZE" },
		{ ENOBUFS, "ENOBUFS" }, { ENOTSOCK, "ENOTSOCK" },
		{ ESRCH, "ESRCH" }, { ECHILD, "ECHILD" }, { ENOSYS, "ENOSYS" },
		{ EOVERFLOW, "EOVERFLOW" }, { EPROTONOSUPPORT, "EPROTONOSUPPORT" },
	};
	static __thread char buf[16];
	size_t i;

	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (names[i].e == err)
			return names[i].n;
	snprintf(buf, sizeof(buf), "errno%d", err);
	return buf;
}

/* ---- slots and the call log ------------------------------------------------------ */

struct fz_slot *fz_slot_get(const char *fmt, ...)
{
	va_list ap;
	int i;

	for (i = 0; i < FZ_MAX_SLOTS; i++) {
		struct fz_slot *s = &fz_sh->slots[i];
		int zero = 0;

		if (!__atomic_compare_exchange_n(&s->used, &zero, 1, false,
						 __ATOMIC_ACQ_REL,
						 __ATOMIC_RELAXED))
			continue;
		s->pid = getpid();
		s->tid = (pid_t)syscall(SYS_gettid);
		s->call_start_ns = 0;
		s->slowest_ns = 0;
		s->seq = 0;
		memset(s->ring, 0, sizeof(s->ring));
		va_start(ap, fmt);
		vsnprintf(s->name, sizeof(s->name), fmt, ap);
		va_end(ap);
		return s;
	}
	return NULL;
}

void fz_ctx_init(struct fz_ctx *c, struct fz_slot *slot, uint64_t seed)
{
	memset(c, 0, sizeof(*c));
	c->rng = fz_mix(seed) | 1;
	c->slot = slot;
	fz_cur = c;
}

static void log_vput(struct fz_ctx *c, bool call, const char *fmt, va_list ap)
{
	struct fz_slot *s = c->slot;
	struct fz_entry *e;
	uint64_t seq;

	if (!s)
		return;
	seq = ++s->seq;
	e = &s->ring[seq % FZ_LOG_N];
	vsnprintf(e->text, sizeof(e->text), fmt, ap);
	__atomic_store_n(&e->seq, seq, __ATOMIC_RELEASE);
	if (call) {
		__atomic_add_fetch(&s->calls, 1, __ATOMIC_RELAXED);
		__atomic_store_n(&s->call_start_ns, fz_now_ns(),
				 __ATOMIC_RELEASE);
	}
}

void fz_begin(struct fz_ctx *c, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	log_vput(c, true, fmt, ap);
	va_end(ap);
}

void fz_note(struct fz_ctx *c, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	log_vput(c, false, fmt, ap);
	va_end(ap);
}

void fz_end(struct fz_ctx *c, long ret, int err)
{
	struct fz_slot *s = c->slot;
	struct fz_entry *e;
	size_t n;

	int64_t st, dur;

	if (!s)
		return;
	st = s->call_start_ns;
	dur = st ? fz_now_ns() - st : 0;
	__atomic_store_n(&s->call_start_ns, 0, __ATOMIC_RELEASE);
	e = &s->ring[s->seq % FZ_LOG_N];
	n = strnlen(e->text, sizeof(e->text));
	if (ret < 0)
		snprintf(e->text + n, sizeof(e->text) - n, " = -1 %s",
			 fz_errname(err));
	else
		snprintf(e->text + n, sizeof(e->text) - n, " = %ld", ret);
	if (dur > s->slowest_ns) {
		s->slowest_ns = dur;
		memcpy(s->slowest, e->text, sizeof(s->slowest));
	}
	if (fz_logfd >= 0) {
		char line[FZ_LOG_LEN + 48];
		int len = snprintf(line, sizeof(line), "%s %" PRIu64 " %s\n",
				   s->name, s->seq, e->text);

		if (len > 0 && write(fz_logfd, line, (size_t)len) < 0)
			fz_logfd = -1;
	}
}

static void put_fd(int fd, const char *s)
{
	size_t len = strlen(s);

	while (len) {
		ssize_t n = write(fd, s, len);

		if (n <= 0)
			break;
		s += n;
		len -= (size_t)n;
	}
}

static void put_str(const char *s)
{
	put_fd(2, s);
	if (fz_logfd >= 0)
		put_fd(fz_logfd, s);
}

static void print_reproduce(void)
{
	char line[512];

	snprintf(line, sizeof(line),
		 "snode-fuzz: reproduce: snode-fuzz --seed %" PRIu64
		 " --duration %g --threads %d%s%s\n",
		 fz_opt.seed, fz_opt.duration, fz_opt.threads,
		 fz_opt.peer >= 0 ? " --peer <node>" : "",
		 fz_opt.sim_node >= 0 ? " --sim <as before>" : "");
	put_str(line);
}

static void report_slots(void)
{
	char line[FZ_LOG_LEN + 96];
	int64_t now = fz_now_ns();
	int i, k;

	for (i = 0; i < FZ_MAX_SLOTS; i++) {
		struct fz_slot *s = &fz_sh->slots[i];
		int64_t st = __atomic_load_n(&s->call_start_ns,
					     __ATOMIC_ACQUIRE);
		uint64_t seq = s->seq;

		if (!__atomic_load_n(&s->used, __ATOMIC_ACQUIRE) || !seq)
			continue;
		snprintf(line, sizeof(line),
			 "snode-fuzz: --- %s (pid %d tid %d): %" PRIu64
			 " calls%s, last %d:\n", s->name, s->pid, s->tid,
			 s->calls, st ? ", inside the last one" : "",
			 FZ_REPORT_N);
		put_str(line);
		if (st) {
			snprintf(line, sizeof(line),
				 "snode-fuzz:     (in that call for %.1f s)\n",
				 (now - st) / 1e9);
			put_str(line);
		}
		for (k = FZ_REPORT_N - 1; k >= 0; k--) {
			struct fz_entry *e;

			if (seq < (uint64_t)k + 1)
				continue;
			e = &s->ring[(seq - (uint64_t)k) % FZ_LOG_N];
			snprintf(line, sizeof(line),
				 "snode-fuzz:   %s #%" PRIu64 " %s\n", s->name,
				 seq - (uint64_t)k, e->text);
			put_str(line);
		}
	}
}

static void summary(int rc)
{
	/* the rate over the run itself, not the exporter's linger after it */
	double secs = ((t_stop ? t_stop : fz_now_ns()) - t_start) / 1e9;
	uint64_t calls = 0;
	int i;

	for (i = 0; i < FZ_MAX_SLOTS; i++)
		calls += fz_sh->slots[i].calls;
	printf("snode-fuzz: seed %" PRIu64 ": %" PRIu64 " calls in %.1f s, %.0f calls/s (%d threads, %" PRIu64 " forks)\n",
	       fz_opt.seed, calls, secs, secs > 0 ? calls / secs : 0.0,
	       fz_opt.threads, fz_sh->forks);
	if (fz_opt.peer >= 0)
		printf("snode-fuzz: data: %" PRIu64 " rounds, %" PRIu64 " pages verified through windows, %" PRIu64 " revocations seen (%" PRIu64 " read all-ones and %" PRIu64 " other failures before the driver revoked), %" PRIu64 " sim checks; exporter: %" PRIu64 " pages verified\n",
		       fz_sh->data_rounds, fz_sh->data_pages,
		       fz_sh->revocations, fz_sh->ones, fz_sh->revoke_lag,
		       fz_sh->sim_checks,
		       fz_sh->exp_pages);
	for (i = 0; i < FZ_MAX_SLOTS; i++) {
		struct fz_slot *s = &fz_sh->slots[i];

		if (s->slowest_ns > 1000000000LL)
			printf("snode-fuzz: slowest call of %s: %.1f s: %s\n",
			       s->name, s->slowest_ns / 1e9, s->slowest);
	}
	printf("snode-fuzz: %s (seed %" PRIu64 ")\n", rc ? "FAIL" : "PASS",
	       fz_opt.seed);
	fflush(stdout);
}

void fz_fail(struct fz_ctx *c, const char *fmt, ...)
{
	char msg[512], line[640];
	va_list ap;
	int zero = 0;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	if (c && c->slot)
		__atomic_store_n(&c->slot->call_start_ns, 0, __ATOMIC_RELEASE);
	if (__atomic_compare_exchange_n(&fz_sh->failed, &zero, 1, false,
					__ATOMIC_ACQ_REL, __ATOMIC_RELAXED)) {
		snprintf(line, sizeof(line), "snode-fuzz: FAIL: %s%s%s\n",
			 c && c->slot ? c->slot->name : "", c && c->slot ?
			 ": " : "", msg);
		put_str(line);
		snprintf(line, sizeof(line),
			 "snode-fuzz: seed %" PRIu64 ", node %d, %.1f s into the run\n",
			 fz_opt.seed, fz_node, (fz_now_ns() - t_start) / 1e9);
		put_str(line);
		report_slots();
		print_reproduce();
	}
	__atomic_store_n(&fz_sh->stop, 1, __ATOMIC_RELEASE);
	if (getpid() != main_pid)
		_exit(1);
	/* no pthread_exit(): it needs libgcc_s, which the guests lack */
	usleep(200000);
	if (kids[0] > 0)
		kill(kids[0], SIGKILL);
	if (kids[1] > 0)
		kill(kids[1], SIGKILL);
	summary(1);
	_exit(1);
}

/* ---- fds, signals, memory access ------------------------------------------------- */

int fz_protect_fd(int fd)
{
	int nfd;

	if (fd < 0 || fd >= FZ_FD_FLOOR)
		return fd;
	nfd = fcntl(fd, F_DUPFD_CLOEXEC, FZ_FD_FLOOR);
	close(fd);
	return nfd;
}

int fz_open_dev(struct fz_ctx *c, int flags)
{
	int fd;

	fz_begin(c, "open(%s, %s)", fz_opt.dev,
		 (flags & O_ACCMODE) == O_RDONLY ? "O_RDONLY" : "O_RDWR");
	fd = open(fz_opt.dev, flags | O_CLOEXEC);
	fz_end(c, fd, errno);
	return fd;
}

static void on_fault(int sig, siginfo_t *si, void *uc)
{
	struct fz_ctx *c = fz_cur;
	char line[160];

	if (c && c->jb_armed) {
		c->jb_armed = 0;
		c->last_sig = sig;
		siglongjmp(c->jb, sig);
	}
	snprintf(line, sizeof(line), "unexpected %s at address %p",
		 sig == SIGBUS ? "SIGBUS" : "SIGSEGV", si->si_addr);
	fz_fail(c, "%s", line);
}

void fz_sig_install(void)
{
	struct sigaction sa = { .sa_sigaction = on_fault,
				.sa_flags = SA_SIGINFO | SA_NODEFER };

	sigaction(SIGBUS, &sa, NULL);
	sigaction(SIGSEGV, &sa, NULL);
	signal(SIGPIPE, SIG_IGN);
}

/*
 * Read @len bytes at @p into a checksum (*sum, if not NULL), or write *v
 * there (8 bytes), with SIGBUS caught: 0, or the signal the access raised
 * (counted in fz_sh->sigbus).
 */
static int fz_touch(struct fz_ctx *c, volatile uint64_t *w, size_t len,
		    uint64_t *sum, const uint64_t *v)
{
	uint64_t s = 0;
	size_t i;
	int sig;

	sig = sigsetjmp(c->jb, 1);
	if (sig) {
		__atomic_add_fetch(&fz_sh->sigbus, 1, __ATOMIC_RELAXED);
		return sig;
	}
	c->jb_armed = 1;
	if (v)
		*w = *v;
	else
		for (i = 0; i < len / 8; i++)
			s = s * 31 + w[i];
	c->jb_armed = 0;
	if (sum)
		*sum = s;
	return 0;
}

int fz_touch_read(struct fz_ctx *c, const volatile void *p, size_t len,
		  uint64_t *sum)
{
	return fz_touch(c, (volatile uint64_t *)(uintptr_t)p, len, sum, NULL);
}

int fz_touch_write(struct fz_ctx *c, volatile void *p, uint64_t v)
{
	return fz_touch(c, p, 8, NULL, &v);
}

/* ---- watchdog ----------------------------------------------------------------------- */

/*
 * Where a thread sleeps in the kernel: /proc/PID/task/TID/wchan and its
 * state. A report from CI carries only the failure line, so the line says it.
 */
static void thread_wchan(pid_t pid, pid_t tid, char *buf, size_t len)
{
	char path[64], wchan[64] = "?", state[64] = "";
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/task/%d/wchan", pid, tid);
	f = fopen(path, "re");
	if (f) {
		if (!fgets(wchan, sizeof(wchan), f))
			snprintf(wchan, sizeof(wchan), "?");
		fclose(f);
	}
	snprintf(path, sizeof(path), "/proc/%d/task/%d/status", pid, tid);
	f = fopen(path, "re");
	if (f) {
		char line[128];

		while (fgets(line, sizeof(line), f))
			if (!strncmp(line, "State:", 6)) {
				line[strcspn(line, "\n")] = 0;
				snprintf(state, sizeof(state), "%s",
					 line + 6 + strspn(line + 6, " \t"));
				break;
			}
		fclose(f);
	}
	snprintf(buf, len, "%s (%s)", wchan[0] ? wchan : "?",
		 state[0] ? state : "state unknown");
}

static void *watchdog(void *arg)
{
	struct fz_ctx c;
	int i;

	(void)arg;
	fz_ctx_init(&c, NULL, 0);
	for (;;) {
		int64_t now = fz_now_ns();

		if (__atomic_load_n(&fz_sh->failed, __ATOMIC_ACQUIRE))
			return NULL;
		for (i = 0; i < FZ_MAX_SLOTS; i++) {
			struct fz_slot *s = &fz_sh->slots[i];
			int64_t st = __atomic_load_n(&s->call_start_ns,
						     __ATOMIC_ACQUIRE);

			if (!s->used || !st ||
			    now - st < (int64_t)fz_opt.hang_s * 1000000000LL)
				continue;
			char call[FZ_LOG_LEN], where[96];

			memcpy(call, s->ring[s->seq % FZ_LOG_N].text,
			       sizeof(call));
			call[sizeof(call) - 1] = 0;
			int child;

			/* a parent waiting for a child: where is the child? */
			if (sscanf(call, "waitpid(%d)", &child) == 1)
				thread_wchan(child, child, where, sizeof(where));
			else
				thread_wchan(s->pid, s->tid, where,
					     sizeof(where));
			fz_fail(&c, "hang: %s (pid %d) has been inside one call for %.0f s (watchdog limit %d s): %s, %s asleep in %s",
				s->name, s->pid, (now - st) / 1e9,
				fz_opt.hang_s, call,
				strncmp(call, "waitpid(", 8) ? "the thread" :
				"the child", where);
		}
		usleep(500000);
	}
}

/* ---- options ------------------------------------------------------------------------- */

static double parse_duration(const char *s)
{
	char *end;
	double v = strtod(s, &end);

	if (end == s || v < 0)
		return -1;
	switch (*end) {
	case 0: case 's': return v;
	case 'm': return v * 60;
	case 'h': return v * 3600;
	default: return -1;
	}
}

static void usage(void)
{
	fprintf(stderr,
		"usage: snode-fuzz [--seed N] [--duration S[s|m|h]] [--threads T] [--log FILE]\n"
		"                  [--dev /dev/snodeN] [--peer NODE] [--sim NODE:ID:KEY:LEN]\n"
		"                  [--hang S] [--user UID:GID] [--verbose]\n");
	exit(2);
}

static void parse_args(int argc, char **argv)
{
	static const struct option lo[] = {
		{ "seed", required_argument, NULL, 's' },
		{ "duration", required_argument, NULL, 'd' },
		{ "threads", required_argument, NULL, 't' },
		{ "log", required_argument, NULL, 'l' },
		{ "dev", required_argument, NULL, 'D' },
		{ "peer", required_argument, NULL, 'p' },
		{ "sim", required_argument, NULL, 'S' },
		{ "hang", required_argument, NULL, 'H' },
		{ "user", required_argument, NULL, 'u' },
		{ "verbose", no_argument, NULL, 'v' },
		{ "help", no_argument, NULL, 'h' },
		{ 0 }
	};
	bool seeded = false;
	int o;

	while ((o = getopt_long(argc, argv, "s:d:t:l:D:p:S:H:u:vh", lo,
				NULL)) != -1) {
		switch (o) {
		case 's':
			fz_opt.seed = strtoull(optarg, NULL, 0);
			seeded = true;
			break;
		case 'd':
			fz_opt.duration = parse_duration(optarg);
			if (fz_opt.duration < 0)
				usage();
			break;
		case 't':
			fz_opt.threads = atoi(optarg);
			if (fz_opt.threads < 1 || fz_opt.threads > FZ_MAX_THREADS)
				usage();
			break;
		case 'l': fz_opt.log = optarg; break;
		case 'D': fz_opt.dev = optarg; break;
		case 'p': fz_opt.peer = atoi(optarg); break;
		case 'S': {
			unsigned int n, id;
			unsigned long long key, len;

			if (sscanf(optarg, "%u:%u:%lli:%lli", &n, &id, &key,
				   &len) != 4)
				usage();
			fz_opt.sim_node = (int)n;
			fz_opt.sim_id = id;
			fz_opt.sim_key = key;
			fz_opt.sim_len = len;
			break;
		}
		case 'H': fz_opt.hang_s = atoi(optarg); break;
		case 'u':
			if (sscanf(optarg, "%u:%u", &fz_opt.uid, &fz_opt.gid) != 2)
				usage();
			fz_opt.drop = true;
			break;
		case 'v': fz_opt.verbose = true; break;
		default: usage();
		}
	}
	if (optind != argc || fz_opt.hang_s < 5)
		usage();
	if (!seeded) {
		struct timespec ts;

		clock_gettime(CLOCK_REALTIME, &ts);
		fz_opt.seed = fz_mix((uint64_t)ts.tv_nsec ^
				     ((uint64_t)getpid() << 32)) % 1000000000;
	}
}

static bool has_net_admin(void)
{
	struct __user_cap_header_struct h = { .version =
					      _LINUX_CAPABILITY_VERSION_3 };
	struct __user_cap_data_struct d[2] = {};

	if (syscall(SYS_capget, &h, d))
		return false;
	return d[0].effective & (1U << CAP_NET_ADMIN);
}

/* Become @uid, primary group @uid, with the one supplementary group --user gave. */
static void drop_privileges(uid_t uid)
{
	gid_t g = fz_opt.gid;

	if (setgroups(1, &g) || setresgid(uid, uid, uid) ||
	    setresuid(uid, uid, uid)) {
		fprintf(stderr, "snode-fuzz: cannot become uid %u (group %u): %s\n",
			uid, fz_opt.gid, strerror(errno));
		exit(2);
	}
}

/* Wait until the NIC is attached and learn its node id. */
static int wait_attached(struct fz_ctx *c)
{
	int64_t end = fz_now_ns() + 120LL * 1000000000;
	struct snode_info info;
	int fd, ret;

	fd = fz_open_dev(c, O_RDONLY);
	if (fd < 0) {
		fprintf(stderr, "snode-fuzz: %s: %s\n", fz_opt.dev,
			strerror(errno));
		return -1;
	}
	do {
		memset(&info, 0, sizeof(info));
		info.size = sizeof(info);
		fz_begin(c, "ioctl(INFO)");
		ret = ioctl(fd, SNODE_IOCTL_INFO, &info);
		fz_end(c, ret, errno);
		if (!ret && (info.out_flags & SNODE_INFO_OUT_ATTACHED)) {
			close(fd);
			return (int)info.out_node_id;
		}
		if (ret && errno != EAGAIN && errno != EIO) {
			fprintf(stderr, "snode-fuzz: %s: INFO: %s\n",
				fz_opt.dev, strerror(errno));
			close(fd);
			return -1;
		}
		usleep(200000);
	} while (fz_now_ns() < end);
	close(fd);
	fprintf(stderr, "snode-fuzz: %s is not attached to a fabric\n",
		fz_opt.dev);
	return -1;
}

/*
 * The exporter and data processes run as a second member of the group
 * (--user's UID + 1): the chaos threads, one user, may exhaust that user's
 * quotas on the NIC, never theirs.
 */
static pid_t spawn(int (*fn)(void))
{
	pid_t pid = fork();

	if (pid == 0) {
		if (fz_opt.drop)
			drop_privileges(fz_opt.uid + 1);
		_exit(fn());
	}
	return pid;
}

int main(int argc, char **argv)
{
	pthread_t th[FZ_MAX_THREADS], wd;
	struct fz_ctx c;
	int i, status, rc = 0;

	parse_args(argc, argv);
	setvbuf(stdout, NULL, _IOLBF, 0);
	main_pid = getpid();
	printf("snode-fuzz: seed %" PRIu64 " duration %g s threads %d\n",
	       fz_opt.seed, fz_opt.duration, fz_opt.threads);
	if (fz_opt.log) {
		fz_logfd = open(fz_opt.log, O_WRONLY | O_CREAT | O_TRUNC |
				O_APPEND | O_CLOEXEC, 0644);
		if (fz_logfd < 0) {
			fprintf(stderr, "snode-fuzz: %s: %s\n", fz_opt.log,
				strerror(errno));
			return 2;
		}
		fz_logfd = fz_protect_fd(fz_logfd);
	}
	/* room for the protected fds above FZ_FD_FLOOR */
	{
		struct rlimit rl = { 1024, 1024 };

		setrlimit(RLIMIT_NOFILE, &rl);
	}
	fz_sh = mmap(NULL, sizeof(*fz_sh), PROT_READ | PROT_WRITE,
		     MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (fz_sh == MAP_FAILED) {
		perror("snode-fuzz: mmap");
		return 2;
	}
	fz_sig_install();
	fz_ctx_init(&c, fz_slot_get("main"), fz_opt.seed);
	fz_node = wait_attached(&c);
	if (fz_node < 0)
		return 2;
	t_start = fz_now_ns();

	if (fz_opt.peer >= 0) {
		kids[0] = spawn(fz_exporter_main);
		kids[1] = spawn(fz_data_main);
	}
	if (fz_opt.drop)
		drop_privileges(fz_opt.uid);
	fz_privileged = has_net_admin();
	printf("snode-fuzz: node %d, %s, %s\n", fz_node, fz_opt.dev,
	       fz_privileged ? "with CAP_NET_ADMIN" :
	       "unprivileged (no CAP_NET_ADMIN)");
	pthread_create(&wd, NULL, watchdog, NULL);
	for (i = 0; i < fz_opt.threads; i++)
		pthread_create(&th[i], NULL, fz_chaos_thread,
			       (void *)(intptr_t)i);

	while (!fz_stopped() &&
	       (fz_now_ns() - t_start) / 1e9 < fz_opt.duration)
		usleep(100000);
	__atomic_store_n(&fz_sh->stop, 1, __ATOMIC_RELEASE);
	t_stop = fz_now_ns();
	for (i = 0; i < fz_opt.threads; i++) {
		struct timespec ts;

		clock_gettime(CLOCK_REALTIME, &ts);
		ts.tv_sec += fz_opt.hang_s + 10;
		/* a thread stuck in the kernel: the watchdog reported it */
		if (pthread_timedjoin_np(th[i], NULL, &ts))
			rc = 1;
	}
	for (i = 0; i < 2; i++) {
		if (kids[i] <= 0)
			continue;
		if (fz_sh->failed || rc)
			kill(kids[i], SIGKILL);
		if (waitpid(kids[i], &status, 0) == kids[i] &&
		    !fz_sh->failed && !rc &&
		    (!WIFEXITED(status) || WEXITSTATUS(status))) {
			printf("snode-fuzz: FAIL: the %s process ended with status 0x%x\n",
			       i ? "data" : "exporter", status);
			rc = 1;
		}
	}
	if (fz_sh->failed)
		rc = 1;
	summary(rc);
	return rc;
}
