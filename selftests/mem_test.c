// SPDX-License-Identifier: GPL-2.0
/*
 * snode global memory selftests: pool allocations, exports, imports,
 * remote mmap, permissions, revocation, the ABI rules of every memory
 * ioctl, and - with a peer node - data, atomics and coherence across
 * nodes.
 *
 * Runs as root in a guest with snode.ko loaded; /dev/snode0 must exist.
 * Environment:
 *   SNODE_PEER   node id of a peer running this same program at the same
 *                time (the "pair" tests skip without it). The two programs
 *                meet through deterministic handles: on a fresh device the
 *                first export gets id 0, and each pair test uses its own
 *                key, so an import retries until the peer got there.
 */
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <poll.h>
#include <pthread.h>
#include <setjmp.h>
#include <signal.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <linux/capability.h>
#include <linux/snode.h>

#include "kselftest_harness.h"
#include "snode_test.h"
#include "snode_nl.h"

#define SNODE_DEV		"/dev/snode0"
#define SNODE_RESET		"/sys/class/snode/snode0/device/reset"
#define SNODE_RESOURCE		"/sys/class/snode/snode0/device/resource"
#define SNODE_BAR_APERTURE	2
#define SZ_4K			0x1000ULL
#define SZ_64K			0x10000ULL
#define SZ_1M			0x100000ULL
#define SZ_2M			0x200000ULL
#define SZ_8M			0x800000ULL
#define SZ_16M			0x1000000ULL
#define SZ_64M			0x4000000ULL
#define PEER_WAIT_S		240


/* ---- helpers, in threes: _x() returns, test_x() asserts, test_err_x() fails */

static int _snode_alloc(int fd, uint64_t length, uint64_t *offset)
{
	struct snode_mem_alloc cmd = {
		.size = sizeof(cmd),
		.length = length,
	};
	int ret = ioctl(fd, SNODE_IOCTL_MEM_ALLOC, &cmd);

	if (!ret && offset)
		*offset = cmd.out_offset;
	return ret;
}
#define test_snode_alloc(length, offset) \
	ASSERT_EQ(0, _snode_alloc(self->fd, length, offset))
#define test_err_snode_alloc(_errno, length) \
	EXPECT_ERRNO(_errno, _snode_alloc(self->fd, length, NULL))

static int _snode_free(int fd, uint64_t offset)
{
	struct snode_mem_free cmd = {
		.size = sizeof(cmd),
		.offset = offset,
	};

	return ioctl(fd, SNODE_IOCTL_MEM_FREE, &cmd);
}
#define test_snode_free(offset) ASSERT_EQ(0, _snode_free(self->fd, offset))
#define test_err_snode_free(_errno, offset) \
	EXPECT_ERRNO(_errno, _snode_free(self->fd, offset))

static int _snode_export(int fd, struct snode_mem_export *cmd)
{
	cmd->size = sizeof(*cmd);
	return ioctl(fd, SNODE_IOCTL_MEM_EXPORT, cmd);
}
#define test_snode_export(cmd) ASSERT_EQ(0, _snode_export(self->fd, cmd))
#define test_err_snode_export(_errno, cmd) \
	EXPECT_ERRNO(_errno, _snode_export(self->fd, cmd))

static int _snode_unexport(int fd, uint32_t export_id)
{
	struct snode_mem_unexport cmd = {
		.size = sizeof(cmd),
		.export_id = export_id,
	};

	return ioctl(fd, SNODE_IOCTL_MEM_UNEXPORT, &cmd);
}
#define test_snode_unexport(id) ASSERT_EQ(0, _snode_unexport(self->fd, id))
#define test_err_snode_unexport(_errno, id) \
	EXPECT_ERRNO(_errno, _snode_unexport(self->fd, id))

#define test_snode_import(ifd, flags, node, id, key, off, len)		\
	do {								\
		ifd = sn_import(self->fd, flags, node, id, key, off, len); \
		ASSERT_LE(0, ifd);					\
	} while (0)
#define test_err_snode_import(_errno, flags, node, id, key, off, len)	\
	EXPECT_ERRNO(_errno, sn_import(self->fd, flags, node, id, key, \
					   off, len))

static int _snode_status(int ifd, struct snode_import_status *st)
{
	memset(st, 0, sizeof(*st));
	st->size = sizeof(*st);
	return ioctl(ifd, SNODE_IOCTL_IMPORT_STATUS, st);
}
#define test_snode_status(ifd, st) ASSERT_EQ(0, _snode_status(ifd, st))

/* A memory table of the NIC, by the family's window dump (snode_nl.h). */
static int _snode_list(int fd, uint32_t type, struct mem_ent *e,
		       uint32_t *count)
{
	return mem_list(fd, type, e, count);
}

static uint64_t pool_free(int fd, uint64_t *size)
{
	struct list_arg l = { .type = MEM_LIST_ALLOCS };

	if (snode_list(fd, true, &l))
		return 0;
	if (size)
		*size = l.pool_size;
	return l.pool_free;
}

/* Allocate, map and export; returns the local mapping. */
static void *alloc_map(int fd, uint64_t length, uint64_t *offset)
{
	void *p;

	if (_snode_alloc(fd, length, offset))
		return NULL;
	p = mmap(NULL, length, PROT_READ | PROT_WRITE, MAP_SHARED, fd, *offset);
	return p == MAP_FAILED ? NULL : p;
}

/* Access probes: 0, or the signal the access raised. */
static sigjmp_buf probe_jmp;

static void probe_handler(int sig)
{
	siglongjmp(probe_jmp, sig);
}

static int probe(volatile uint64_t *p, bool write, uint64_t *val)
{
	struct sigaction sa = { .sa_handler = probe_handler }, obus, osegv;
	int sig;

	sigaction(SIGBUS, &sa, &obus);
	sigaction(SIGSEGV, &sa, &osegv);
	sig = sigsetjmp(probe_jmp, 1);
	if (!sig) {
		if (write)
			*p = *val;
		else
			*val = *p;
	}
	sigaction(SIGBUS, &obus, NULL);
	sigaction(SIGSEGV, &osegv, NULL);
	return sig;
}

/* Minor page faults of this process so far. */
static long minflt(void)
{
	struct rusage ru;

	getrusage(RUSAGE_SELF, &ru);
	return ru.ru_minflt;
}


/* ---- the single-node fixture ------------------------------------------ */

FIXTURE(mem) {
	int fd;
	struct snode_info info;
};

FIXTURE_SETUP(mem)
{
	self->fd = sn_open_info(SNODE_DEV, &self->info);
	ASSERT_LE(0, self->fd);
	if (!(self->info.out_caps & SNODE_CAP_ATT) ||
	    !(self->info.out_caps & SNODE_CAP_EXPORT))
		SKIP(return, "the NIC has no ATT or export table");
	if (self->info.out_node_id == SNODE_NODE_ID_NONE)
		SKIP(return, "the NIC is not attached to a fabric");
}

FIXTURE_TEARDOWN(mem)
{
	if (self->fd >= 0)
		close(self->fd);
}

#define NODE	(self->info.out_node_id)

/* ---- ABI: sizes, tails, flags of every memory ioctl ---------------------- */

struct mem_ioctl {
	const char *name;
	unsigned long cmd;
	size_t size;		/* the structure */
	size_t min_size;	/* offsetofend() of its last member */
	size_t flags_off;	/* offset of flags */
};

#define MEM_IOCTL(_cmd, _struct, _last)					\
	{ #_cmd, _cmd, sizeof(struct _struct),				\
	  offsetofend(struct _struct, _last),				\
	  offsetof(struct _struct, flags) }

static const struct mem_ioctl mem_ioctls[] = {
	MEM_IOCTL(SNODE_IOCTL_MEM_ALLOC, snode_mem_alloc, out_offset),
	MEM_IOCTL(SNODE_IOCTL_MEM_FREE, snode_mem_free, offset),
	MEM_IOCTL(SNODE_IOCTL_MEM_EXPORT, snode_mem_export, out_key),
	MEM_IOCTL(SNODE_IOCTL_MEM_UNEXPORT, snode_mem_unexport, out_revoked),
	MEM_IOCTL(SNODE_IOCTL_MEM_IMPORT, snode_mem_import, out_epoch),
};

/* the three ways every memory ioctl's structure can break the ABI rules */
enum mem_abi_case {
	MEM_ABI_SHORT,		/* size - 1: EINVAL */
	MEM_ABI_TAIL,		/* a non-zero byte past the known size: E2BIG */
	MEM_ABI_FLAGS,		/* an unknown flag: EOPNOTSUPP */
};

/* Every memory ioctl fails @abi's way; a failing ioctl's name is logged. */
static void mem_abi_check(struct __test_metadata *_metadata, int fd,
			  enum mem_abi_case abi)
{
	static const int want[] = {
		[MEM_ABI_SHORT] = EINVAL,
		[MEM_ABI_TAIL] = E2BIG,
		[MEM_ABI_FLAGS] = EOPNOTSUPP,
	};
	uint8_t buf[512];
	unsigned int i;

	for (i = 0; i < sizeof(mem_ioctls) / sizeof(mem_ioctls[0]); i++) {
		const struct mem_ioctl *m = &mem_ioctls[i];

		memset(buf, 0, sizeof(buf));
		switch (abi) {
		case MEM_ABI_SHORT:
			ASSERT_EQ(m->size, m->min_size);
			*(uint32_t *)buf = m->min_size - 1;
			break;
		case MEM_ABI_TAIL:
			*(uint32_t *)buf = m->size + 8;
			buf[m->size + 3] = 1;
			break;
		case MEM_ABI_FLAGS:
			*(uint32_t *)buf = m->size;
			*(uint32_t *)(buf + m->flags_off) = 1u << 31;
			break;
		}
		if (ioctl(fd, m->cmd, buf) != -1 || errno != want[abi])
			TH_LOG("%s", m->name);
		EXPECT_ERRNO(want[abi], ioctl(fd, m->cmd, buf));
	}
}

/* size - 1 is EINVAL, for every memory ioctl */
TEST_F(mem, abi_size_too_small)
{
	SKIP_IF_SKIPPED();
	mem_abi_check(_metadata, self->fd, MEM_ABI_SHORT);
}

/* a non-zero byte past the known structure is E2BIG */
TEST_F(mem, abi_nonzero_tail)
{
	SKIP_IF_SKIPPED();
	mem_abi_check(_metadata, self->fd, MEM_ABI_TAIL);
}

/* unknown flags are EOPNOTSUPP */
TEST_F(mem, abi_unknown_flags)
{
	SKIP_IF_SKIPPED();
	mem_abi_check(_metadata, self->fd, MEM_ABI_FLAGS);
}

/* a larger structure with a zero tail is accepted */
TEST_F(mem, abi_zero_tail)
{
	struct {
		struct snode_mem_alloc cmd;
		uint64_t tail[2];
	} big = { .cmd = { .size = sizeof(big), .length = SZ_4K } };

	SKIP_IF_SKIPPED();

	ASSERT_EQ(0, ioctl(self->fd, SNODE_IOCTL_MEM_ALLOC, &big));
	test_snode_free(big.cmd.out_offset);
}

TEST_F(mem, abi_reserved)
{
	struct snode_mem_export exp = { .__reserved = 1, .length = SZ_4K };

	SKIP_IF_SKIPPED();

	test_err_snode_export(EOPNOTSUPP, &exp);
}

TEST_F(mem, abi_bad_pointer)
{
	SKIP_IF_SKIPPED();
	EXPECT_ERRNO(EFAULT, ioctl(self->fd, SNODE_IOCTL_MEM_ALLOC, NULL));
	EXPECT_ERRNO(EFAULT, ioctl(self->fd, SNODE_IOCTL_MEM_IMPORT,
				   (void *)8));
}

/* the import file's own ioctl follows the same rules */
TEST_F(mem, abi_import_status)
{
	struct {
		struct snode_import_status st;
		uint64_t tail;
	} big = {};
	struct snode_mem_export exp = { .flags = SNODE_EXPORT_WRITE,
					.key = 0xab01, .length = SZ_4K };
	uint64_t off;
	int ifd;

	SKIP_IF_SKIPPED();

	test_snode_alloc(SZ_4K, &off);
	exp.alloc = off;
	test_snode_export(&exp);
	test_snode_import(ifd, 0, NODE, exp.out_export_id, exp.out_key, 0,
			  SZ_4K);

	big.st.size = offsetofend(struct snode_import_status, __reserved) - 1;
	EXPECT_ERRNO(EINVAL, ioctl(ifd, SNODE_IOCTL_IMPORT_STATUS, &big));
	big.st.size = sizeof(big);
	big.tail = 1;
	EXPECT_ERRNO(E2BIG, ioctl(ifd, SNODE_IOCTL_IMPORT_STATUS, &big));
	big.tail = 0;
	big.st.flags = 1;
	EXPECT_ERRNO(EOPNOTSUPP, ioctl(ifd, SNODE_IOCTL_IMPORT_STATUS, &big));
	big.st.flags = 0;
	big.st.__reserved = 1;
	EXPECT_ERRNO(EOPNOTSUPP, ioctl(ifd, SNODE_IOCTL_IMPORT_STATUS, &big));
	big.st.__reserved = 0;
	EXPECT_EQ(0, ioctl(ifd, SNODE_IOCTL_IMPORT_STATUS, &big));
	EXPECT_EQ(SNODE_WINDOW_STATE_ACTIVE, big.st.out_state);
	/* the memory ioctls of /dev/snodeN are not the import's */
	EXPECT_ERRNO(ENOTTY, ioctl(ifd, SNODE_IOCTL_MEM_ALLOC, &big));
	EXPECT_ERRNO(ENOTTY, ioctl(self->fd, SNODE_IOCTL_IMPORT_STATUS, &big));
	close(ifd);
}

/* ---- pool allocations ----------------------------------------------------- */

TEST_F(mem, alloc_bad_length)
{
	SKIP_IF_SKIPPED();
	test_err_snode_alloc(EINVAL, 0);
	test_err_snode_alloc(EINVAL, SZ_4K + 1);
	test_err_snode_alloc(EINVAL, self->info.out_pool_size + SZ_4K);
}

TEST_F(mem, alloc_pool_exhausted)
{
	uint64_t off;

	SKIP_IF_SKIPPED();

	test_snode_alloc(self->info.out_pool_size, &off);
	test_err_snode_alloc(ENOMEM, SZ_4K);
	test_snode_free(off);
	test_snode_alloc(SZ_4K, &off);
	test_snode_free(off);
}

/* 2 MiB multiples are 2 MiB aligned, others page aligned */
TEST_F(mem, alloc_alignment)
{
	uint64_t small, big;

	SKIP_IF_SKIPPED();

	test_snode_alloc(SZ_4K, &small);
	test_snode_alloc(SZ_2M, &big);
	EXPECT_EQ(0, small % SZ_4K);
	EXPECT_EQ(0, big % SZ_2M);
	test_snode_free(small);
	test_snode_free(big);
}

TEST_F(mem, alloc_mmap_rw)
{
	uint64_t off, i;
	uint64_t *p;

	SKIP_IF_SKIPPED();

	p = alloc_map(self->fd, SZ_2M, &off);
	ASSERT_NE(NULL, p);
	for (i = 0; i < SZ_2M / 8; i += 511)
		p[i] = i ^ 0x5a5a5a5a5a5a5a5aULL;
	for (i = 0; i < SZ_2M / 8; i += 511)
		ASSERT_EQ(i ^ 0x5a5a5a5a5a5a5a5aULL, p[i]);
	munmap(p, SZ_2M);
	test_snode_free(off);
}

/* a new allocation never shows what an earlier owner left */
TEST_F(mem, alloc_zeroed)
{
	uint64_t off, off2, i;
	uint64_t *p;

	SKIP_IF_SKIPPED();

	p = alloc_map(self->fd, SZ_64K, &off);
	ASSERT_NE(NULL, p);
	memset(p, 0xa5, SZ_64K);
	munmap(p, SZ_64K);
	test_snode_free(off);
	p = alloc_map(self->fd, SZ_64K, &off2);
	ASSERT_NE(NULL, p);
	EXPECT_EQ(off, off2);
	for (i = 0; i < SZ_64K / 8; i++)
		ASSERT_EQ(0, p[i]);
	munmap(p, SZ_64K);
	test_snode_free(off2);
}

TEST_F(mem, alloc_mmap_bad)
{
	uint64_t off;
	void *p;

	SKIP_IF_SKIPPED();

	test_snode_alloc(SZ_64K, &off);
	/* not an allocation of this file */
	p = mmap(NULL, SZ_4K, PROT_READ, MAP_SHARED, self->fd, off + SZ_64K);
	EXPECT_EQ(MAP_FAILED, p);
	EXPECT_EQ(EINVAL, errno);
	/* longer than the allocation */
	p = mmap(NULL, SZ_64K + SZ_4K, PROT_READ, MAP_SHARED, self->fd, off);
	EXPECT_EQ(MAP_FAILED, p);
	EXPECT_EQ(EINVAL, errno);
	/* private copies of device memory are refused */
	p = mmap(NULL, SZ_4K, PROT_READ, MAP_PRIVATE, self->fd, off);
	EXPECT_EQ(MAP_FAILED, p);
	EXPECT_EQ(EINVAL, errno);
	/* a part of it is fine */
	p = mmap(NULL, SZ_4K, PROT_READ, MAP_SHARED, self->fd, off + SZ_4K);
	EXPECT_NE(MAP_FAILED, p);
	munmap(p, SZ_4K);
	test_snode_free(off);
	test_err_snode_free(ENOENT, off);
}

/* another file's allocations are not ours to map, export or free */
TEST_F(mem, alloc_per_file)
{
	struct snode_mem_export exp = { .length = SZ_4K };
	uint64_t off;
	void *p;
	int fd2;

	SKIP_IF_SKIPPED();

	fd2 = open(SNODE_DEV, O_RDWR);
	ASSERT_LE(0, fd2);
	ASSERT_EQ(0, _snode_alloc(fd2, SZ_4K, &off));
	p = mmap(NULL, SZ_4K, PROT_READ, MAP_SHARED, self->fd, off);
	EXPECT_EQ(MAP_FAILED, p);
	exp.alloc = off;
	test_err_snode_export(ENOENT, &exp);
	test_err_snode_free(ENOENT, off);
	close(fd2);
}

/* a mapping keeps freed memory alive; the pool gets it back on munmap */
TEST_F(mem, alloc_free_while_mapped)
{
	uint64_t before, off;
	uint64_t *p;

	SKIP_IF_SKIPPED();

	before = pool_free(self->fd, NULL);
	p = alloc_map(self->fd, SZ_2M, &off);
	ASSERT_NE(NULL, p);
	test_snode_free(off);
	p[0] = 42;
	EXPECT_EQ(42, p[0]);
	EXPECT_EQ(before - SZ_2M, pool_free(self->fd, NULL));
	munmap(p, SZ_2M);
	EXPECT_EQ(before, pool_free(self->fd, NULL));
}

/* closing the file gives everything back */
TEST_F(mem, alloc_released_on_close)
{
	struct snode_mem_export exp = { .length = SZ_64K };
	uint64_t before, off;
	int fd2;

	SKIP_IF_SKIPPED();

	before = pool_free(self->fd, NULL);
	fd2 = open(SNODE_DEV, O_RDWR);
	ASSERT_LE(0, fd2);
	ASSERT_EQ(0, _snode_alloc(fd2, SZ_2M, &off));
	ASSERT_EQ(0, _snode_alloc(fd2, SZ_64K, &off));
	exp.alloc = off;
	ASSERT_EQ(0, _snode_export(fd2, &exp));
	EXPECT_EQ(before - SZ_2M - SZ_64K, pool_free(self->fd, NULL));
	close(fd2);
	EXPECT_EQ(before, pool_free(self->fd, NULL));
}

TEST_F(mem, read_only_file)
{
	struct snode_mem_export exp = { .length = SZ_4K };
	int ro;

	SKIP_IF_SKIPPED();

	ro = open(SNODE_DEV, O_RDONLY);
	ASSERT_LE(0, ro);
	EXPECT_ERRNO(EPERM, _snode_alloc(ro, SZ_4K, NULL));
	EXPECT_ERRNO(EPERM, _snode_export(ro, &exp));
	EXPECT_ERRNO(EPERM, sn_import(ro, 0, NODE, 0, 1, 0, SZ_4K));
	close(ro);
}

/* ---- who may do what: root, a member of group snode, an outsider -------- */

#define SNODE_GID	900	/* group "snode" in the guests' /etc/group */
#define MEMBER_UID	1000
#define OUTSIDER_UID	1001
#define LIST_MAX	512

static int become(uid_t uid, bool member)
{
	gid_t snode_gid = SNODE_GID;

	if (setgroups(member ? 1 : 0, &snode_gid) ||
	    setresgid(uid, uid, uid) || setresuid(uid, uid, uid))
		return -1;
	return 0;
}

/* The EXPORTS entry of export @id as @fd's caller sees it. */
static int find_export(int fd, uint32_t id, struct mem_ent *out)
{
	static struct mem_ent e[LIST_MAX];
	uint32_t n = LIST_MAX, i;

	if (_snode_list(fd, MEM_LIST_EXPORTS, e, &n))
		return -errno;
	for (i = 0; i < n && i < LIST_MAX; i++) {
		if (e[i].export_id == id) {
			*out = e[i];
			return 0;
		}
	}
	return -ENOENT;
}

static bool entry_hidden(const struct mem_ent *e)
{
	return (e->flags & MEM_ENT_HIDDEN) && !e->pid && !e->comm[0] &&
	       !e->offset && !(e->flags & MEM_ENT_KEY) && !e->key;
}

/* An outsider: /dev/snode0 (mode 0660, group snode) does not open. */
static int outsider(void)
{
	if (become(OUTSIDER_UID, false))
		return 10;
	if (open(SNODE_DEV, O_RDWR) >= 0 || errno != EACCES)
		return 11;
	if (open(SNODE_DEV, O_RDONLY) >= 0 || errno != EACCES)
		return 12;
	return 0;
}

/*
 * A member: sees that root's export exists, not whose it is nor where it
 * sits; cannot withdraw or free it; sees its own in full; changes nothing
 * through a read-only open. Leaves an export for root to look at, and
 * waits on @ctl.
 */
static int member(uint32_t root_id, uint64_t root_off, int ctl[2])
{
	struct snode_mem_export mine = { .length = SZ_4K };
	struct snode_mem_export more = { .length = SZ_4K };
	struct mem_ent e;
	uint64_t off, msg[2];
	int fd, ro;

	if (become(MEMBER_UID, true))
		return 20;
	fd = open(SNODE_DEV, O_RDWR);
	if (fd < 0)
		return 21;
	if (find_export(fd, root_id, &e) || !entry_hidden(&e))
		return 22;
	if (_snode_unexport(fd, root_id) != -1 || errno != ENOENT)
		return 23;
	if (_snode_free(fd, root_off) != -1 || errno != ENOENT)
		return 24;
	if (_snode_alloc(fd, SZ_4K, &off))
		return 25;
	mine.alloc = off;
	if (_snode_export(fd, &mine))
		return 26;
	if (find_export(fd, mine.out_export_id, &e) ||
	    (e.flags & MEM_ENT_HIDDEN) || e.pid != getpid() ||
	    e.offset != off || !(e.flags & MEM_ENT_KEY))
		return 27;

	ro = open(SNODE_DEV, O_RDONLY);
	if (ro < 0)
		return 30;
	more.alloc = off;
	if (_snode_alloc(ro, SZ_4K, NULL) != -1 || errno != EPERM)
		return 31;
	if (_snode_export(ro, &more) != -1 || errno != EPERM)
		return 32;
	if (_snode_unexport(ro, mine.out_export_id) != -1 || errno != EPERM)
		return 33;
	if (_snode_free(ro, off) != -1 || errno != EPERM)
		return 34;
	if (sn_import(ro, 0, 0, mine.out_export_id, mine.out_key, 0, SZ_4K) !=
	    -1 || errno != EPERM)
		return 35;
	/* reading is allowed, with the same view */
	if (find_export(ro, root_id, &e) || !entry_hidden(&e))
		return 36;

	msg[0] = mine.out_export_id;
	msg[1] = off;
	if (write(ctl[1], msg, sizeof(msg)) != sizeof(msg) ||
	    read(ctl[0], msg, 1) != 1)
		return 40;
	return 0;
}

TEST_F(mem, three_identities)
{
	struct snode_mem_export exp = { .length = SZ_4K };
	struct mem_ent e;
	int to_child[2], to_root[2], ctl[2], status;
	uint64_t off, msg[2];
	struct stat st;
	pid_t pid;

	SKIP_IF_SKIPPED();
	if (getuid())
		SKIP(return, "needs root to change identities");
	ASSERT_EQ(0, stat(SNODE_DEV, &st));
	/* what udev/60-snode.rules sets; the guests have no udev */
	ASSERT_EQ(0, chown(SNODE_DEV, 0, SNODE_GID));
	ASSERT_EQ(0, chmod(SNODE_DEV, 0660));

	test_snode_alloc(SZ_4K, &off);
	exp.alloc = off;
	test_snode_export(&exp);
	ASSERT_EQ(0, find_export(self->fd, exp.out_export_id, &e));
	EXPECT_FALSE(e.flags & MEM_ENT_HIDDEN);
	EXPECT_EQ(getpid(), e.pid);
	EXPECT_EQ(off, e.offset);

	pid = fork();
	ASSERT_LE(0, pid);
	if (!pid)
		_exit(outsider());
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	EXPECT_TRUE(WIFEXITED(status));
	EXPECT_EQ(0, WEXITSTATUS(status));

	ASSERT_EQ(0, pipe(to_child));
	ASSERT_EQ(0, pipe(to_root));
	pid = fork();
	ASSERT_LE(0, pid);
	if (!pid) {
		ctl[0] = to_child[0];
		ctl[1] = to_root[1];
		_exit(member(exp.out_export_id, off, ctl));
	}
	/* a child that fails early closes its ends: the read returns 0 */
	close(to_root[1]);
	close(to_child[0]);
	if (read(to_root[0], msg, sizeof(msg)) == sizeof(msg)) {
		/* root (CAP_NET_ADMIN) sees the member's export in full */
		ASSERT_EQ(0, find_export(self->fd, msg[0], &e));
		EXPECT_FALSE(e.flags & MEM_ENT_HIDDEN);
		EXPECT_EQ(pid, e.pid);
		EXPECT_EQ(msg[1], e.offset);
		/* ownership is per file: not even root withdraws it */
		test_err_snode_unexport(ENOENT, msg[0]);
	}
	signal(SIGPIPE, SIG_IGN);
	if (write(to_child[1], "x", 1) != 1)
		TH_LOG("the member child is gone already");
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	EXPECT_TRUE(WIFEXITED(status));
	EXPECT_EQ(0, WEXITSTATUS(status));

	close(to_child[1]);
	close(to_root[0]);
	test_snode_unexport(exp.out_export_id);
	test_snode_free(off);
	EXPECT_EQ(0, chown(SNODE_DEV, st.st_uid, st.st_gid));
	EXPECT_EQ(0, chmod(SNODE_DEV, st.st_mode & 07777));
}

/* ---- exports ---------------------------------------------------------------- */

TEST_F(mem, export_ids_and_keys)
{
	struct snode_mem_export a = { .flags = SNODE_EXPORT_RANDOM_KEY,
				      .length = SZ_4K };
	struct snode_mem_export b = { .flags = SNODE_EXPORT_RANDOM_KEY,
				      .length = SZ_4K };
	struct snode_mem_export c = { .key = 0x1234, .offset = SZ_4K,
				      .length = SZ_4K };
	uint64_t off;

	SKIP_IF_SKIPPED();

	test_snode_alloc(SZ_64K, &off);
	a.alloc = b.alloc = c.alloc = off;
	test_snode_export(&a);
	test_snode_export(&b);
	test_snode_export(&c);
	EXPECT_EQ(NODE, a.out_node);
	EXPECT_EQ(0, a.out_export_id);
	EXPECT_EQ(1, b.out_export_id);
	EXPECT_EQ(2, c.out_export_id);
	EXPECT_NE(0, a.out_key);
	EXPECT_NE(a.out_key, b.out_key);
	EXPECT_EQ(0x1234, c.out_key);
	/* the lowest free id is reused */
	test_snode_unexport(1);
	test_snode_export(&b);
	EXPECT_EQ(1, b.out_export_id);
	test_err_snode_unexport(ENOENT, 3);
	test_err_snode_unexport(ENOENT, 100000);
}

TEST_F(mem, export_bad)
{
	struct snode_mem_export exp = { .length = SZ_4K };
	uint32_t nodes[2] = { 0, 0 };
	uint64_t off;

	SKIP_IF_SKIPPED();

	test_snode_alloc(SZ_64K, &off);
	exp.alloc = off + SZ_4K;
	test_err_snode_export(ENOENT, &exp);
	exp.alloc = off;
	exp.length = 0;
	test_err_snode_export(EINVAL, &exp);
	exp.length = SZ_4K + 1;
	test_err_snode_export(EINVAL, &exp);
	exp.length = SZ_64K + SZ_4K;
	test_err_snode_export(EINVAL, &exp);
	exp.length = SZ_4K;
	exp.offset = SZ_64K;
	test_err_snode_export(EINVAL, &exp);
	exp.offset = 1;
	test_err_snode_export(EINVAL, &exp);
	exp.offset = 0;
	exp.flags = SNODE_EXPORT_RANDOM_KEY;
	exp.key = 1;
	test_err_snode_export(EINVAL, &exp);
	exp.flags = 0;
	exp.nodes = (uintptr_t)nodes;
	test_err_snode_export(EINVAL, &exp);
	exp.flags = SNODE_EXPORT_NODES;
	exp.nr_nodes = 0;
	test_err_snode_export(EINVAL, &exp);
	exp.nr_nodes = self->info.out_max_nodes + 1;
	test_err_snode_export(EINVAL, &exp);
	exp.nr_nodes = 2;
	nodes[1] = self->info.out_max_nodes;
	test_err_snode_export(EINVAL, &exp);
	exp.nodes = 8;
	test_err_snode_export(EFAULT, &exp);
	exp.nodes = 0;
	test_err_snode_export(EINVAL, &exp);
}

TEST_F(mem, export_table_full)
{
	struct snode_mem_export exp = { .length = SZ_4K };
	uint32_t i;
	uint64_t off;

	long cap;

	SKIP_IF_SKIPPED();
	/* one file fills the whole table: lift the per-file cap */
	cap = set_param("max_exports", 0);
	ASSERT_LE(0, cap);

	test_snode_alloc(SZ_4K, &off);
	exp.alloc = off;
	for (i = 0; i < self->info.out_export_entries; i++) {
		exp.key = i;
		test_snode_export(&exp);
	}
	test_err_snode_export(ENOSPC, &exp);
	EXPECT_LE(0, set_param("max_exports", cap));
}

/* What a member user's child does in mem_test's quota tests. */
struct member_mem {
	uint32_t node, id;	/* an export to import, and its key */
	uint64_t key;
};

/* As the member user: 0 if it can export a fresh allocation, else the step. */
static int member_export(void *arg)
{
	struct snode_mem_export exp = { .length = SZ_4K };
	int fd = open(SNODE_DEV, O_RDWR);
	uint64_t off;

	(void)arg;
	if (fd < 0)
		return 1;
	if (_snode_alloc(fd, SZ_4K, &off))
		return 2;
	exp.alloc = off;
	return _snode_export(fd, &exp) ? 3 : 0;
}

/* As the member user: 0 if it can import @arg's export, else the step. */
static int member_import(void *arg)
{
	const struct member_mem *m = arg;
	int fd = open(SNODE_DEV, O_RDWR);

	if (fd < 0)
		return 1;
	return sn_import(fd, 0, m->node, m->id, m->key, 0, SZ_4K) < 0 ? 2 : 0;
}

/*
 * A user holds at most max_exports exports and max_imports imports on a
 * NIC (EMFILE beyond), through however many files it opens; another user
 * is not affected, and closing an import or withdrawing an export makes
 * room.
 */
TEST_F(mem, per_user_caps)
{
	struct snode_mem_export exp = { .length = SZ_4K };
	long old_exports, old_imports;
	struct member_mem m;
	uint64_t off, other_off;
	uint32_t ids[2];
	int other, imp;
	int i;

	SKIP_IF_SKIPPED();
	old_exports = set_param("max_exports", 2);
	ASSERT_LE(0, old_exports);
	old_imports = set_param("max_imports", 1);
	ASSERT_LE(0, old_imports);
	other = open(SNODE_DEV, O_RDWR);
	ASSERT_LE(0, other);

	test_snode_alloc(SZ_4K, &off);
	exp.alloc = off;
	for (i = 0; i < 2; i++) {
		test_snode_export(&exp);
		ids[i] = exp.out_export_id;
	}
	test_err_snode_export(EMFILE, &exp);
	/* a second open of the same user counts against the same caps */
	ASSERT_EQ(0, _snode_alloc(other, SZ_4K, &other_off));
	exp.alloc = other_off;
	EXPECT_EQ(-1, _snode_export(other, &exp));
	EXPECT_EQ(EMFILE, errno);
	/* another user's do not */
	EXPECT_EQ(0, sn_run_member(SNODE_DEV, member_export, NULL));
	/* withdrawing one makes room */
	test_snode_unexport(ids[0]);
	exp.alloc = off;
	test_snode_export(&exp);
	ids[0] = exp.out_export_id;

	test_snode_import(imp, 0, NODE, ids[1], exp.out_key, 0, SZ_4K);
	test_err_snode_import(EMFILE, 0, NODE, ids[1], exp.out_key, 0, SZ_4K);
	EXPECT_ERRNO(EMFILE, sn_import(other, 0, NODE, ids[1], exp.out_key, 0,
				       SZ_4K));
	m = (struct member_mem){ .node = NODE, .id = ids[1], .key = exp.out_key };
	EXPECT_EQ(0, sn_run_member(SNODE_DEV, member_import, &m));
	/* closing an import makes room */
	close(imp);
	test_snode_import(imp, 0, NODE, ids[1], exp.out_key, 0, SZ_4K);
	close(imp);

	close(other);
	EXPECT_LE(0, set_param("max_exports", old_exports));
	EXPECT_LE(0, set_param("max_imports", old_imports));
}

/* As the member user with max_pool_mib 1: the step that went wrong, or 0. */
static int member_pool_cap(void *arg)
{
	int fd = open(SNODE_DEV, O_RDWR), fd2 = open(SNODE_DEV, O_RDWR);
	uint64_t off, off2;

	(void)arg;
	if (fd < 0 || fd2 < 0)
		return 1;
	if (_snode_alloc(fd, SZ_1M, &off))
		return 2;
	/* the cap is the user's, whichever file asks */
	if (!_snode_alloc(fd2, SZ_4K, &off2) || errno != EMFILE)
		return 3;
	if (_snode_free(fd, off))
		return 4;
	return _snode_alloc(fd2, SZ_4K, &off2) ? 5 : 0;
}

/* max_pool_mib caps the pool bytes one user holds on a NIC */
TEST_F(mem, pool_per_user_cap)
{
	long old;

	SKIP_IF_SKIPPED();
	old = set_param("max_pool_mib", 1);
	ASSERT_LE(0, old);
	EXPECT_EQ(0, sn_run_member(SNODE_DEV, member_pool_cap, NULL));
	EXPECT_LE(0, set_param("max_pool_mib", old));
}

struct pool_fill {
	int res[2];	/* the child's bytes and errno */
	int done[2];	/* the parent is done: the child may let go */
};

/*
 * The child's end of a fill: report @r, hold until the parent is done (or
 * gone: the child closed the parent's ends, so a failed assertion in the
 * parent ends the hold with EOF instead of leaving the child behind).
 */
static int fill_report_hold(struct pool_fill *f, const uint64_t r[2])
{
	char c;

	if (write(f->res[1], r, 2 * sizeof(r[0])) != 2 * sizeof(r[0]))
		return 2;
	if (read(f->done[0], &c, 1) != 1)
		return 3;
	return 0;
}

/*
 * Fork @fn as the member user and read what it filled into @r: its pid, or
 * -1 (pipes, fork or the report failed).
 */
static pid_t fill_start(struct pool_fill *f, int (*fn)(void *arg),
			uint64_t r[2])
{
	pid_t pid;

	if (pipe(f->res) || pipe(f->done))
		return -1;
	pid = sn_fork_member(SNODE_DEV, fn, f);
	if (pid > 0 &&
	    read(f->res[0], r, 2 * sizeof(r[0])) != 2 * sizeof(r[0]))
		return -1;
	return pid;
}

/* Let the child of fill_start() go: its exit status, or -1. */
static int fill_end(struct pool_fill *f, pid_t pid)
{
	int ret = write(f->done[1], "x", 1) == 1 ? sn_wait_child(pid) : -1;

	close(f->res[0]);
	close(f->res[1]);
	close(f->done[0]);
	close(f->done[1]);
	return ret;
}

/* As the member user: take the pool in 1 MiB pieces until refused, hold. */
static int member_pool_fill(void *arg)
{
	struct pool_fill *f = arg;
	int fd = open(SNODE_DEV, O_RDWR);
	uint64_t r[2] = { 0, 0 }, off;

	close(f->res[0]);
	close(f->done[1]);
	if (fd < 0)
		return 1;
	for (;;) {
		if (_snode_alloc(fd, SZ_1M, &off)) {
			r[1] = errno;
			break;
		}
		r[0] += SZ_1M;
	}
	return fill_report_hold(f, r);
}

/*
 * Users without CAP_SYS_RESOURCE leave the kernel's reserve of the pool
 * free (the network interface's receive rings, 16 MiB): a member user
 * filling the pool is refused with ENOSPC while root still gets memory.
 */
TEST_F(mem, pool_kernel_reserve)
{
	struct pool_fill f;
	uint64_t r[2], off;
	pid_t pid;

	SKIP_IF_SKIPPED();
	pid = fill_start(&f, member_pool_fill, r);
	ASSERT_LT(0, pid);
	EXPECT_EQ(ENOSPC, r[1]);
	EXPECT_GE(self->info.out_pool_size - SZ_16M, r[0]);
	EXPECT_LT(self->info.out_pool_size / 2, r[0]);
	/* the reserve is there for the privileged (the kernel's own rings) */
	test_snode_alloc(SZ_8M, &off);
	test_snode_free(off);
	EXPECT_EQ(0, fill_end(&f, pid));
}

/* As the member user: export until refused, report, hold. */
static int member_export_fill(void *arg)
{
	struct snode_mem_export exp = { .length = SZ_4K };
	struct pool_fill *f = arg;
	int fd = open(SNODE_DEV, O_RDWR);
	uint64_t r[2] = { 0, 0 }, off;

	close(f->res[0]);
	close(f->done[1]);
	if (fd < 0 || _snode_alloc(fd, SZ_4K, &off))
		return 1;
	exp.alloc = off;
	for (;;) {
		if (_snode_export(fd, &exp)) {
			r[1] = errno;
			break;
		}
		if (++r[0] > 4096)
			break;
	}
	return fill_report_hold(f, r);
}

/*
 * The same for the export table: a member user with its cap lifted is
 * refused (ENOSPC) with the kernel's 8 entries still free, which root gets.
 */
TEST_F(mem, export_kernel_reserve)
{
	struct snode_mem_export exp = { .length = SZ_4K };
	uint64_t r[2], off;
	struct pool_fill f;
	long cap;
	pid_t pid;
	int i;

	SKIP_IF_SKIPPED();
	cap = set_param("max_exports", 0);
	ASSERT_LE(0, cap);
	pid = fill_start(&f, member_export_fill, r);
	ASSERT_LT(0, pid);
	EXPECT_EQ(ENOSPC, r[1]);
	EXPECT_LT(0, r[0]);
	test_snode_alloc(SZ_4K, &off);
	exp.alloc = off;
	for (i = 0; i < 8; i++)
		EXPECT_EQ(0, _snode_export(self->fd, &exp))
			TH_LOG("root's export %d of the reserve: %s", i,
			       strerror(errno));
	test_err_snode_export(ENOSPC, &exp);
	EXPECT_EQ(0, fill_end(&f, pid));
	test_snode_free(off);
	EXPECT_LE(0, set_param("max_exports", cap));
}

/* ---- imports (of this node's own exports) -------------------------------------- */

/* Export @len of a fresh allocation; returns the local mapping. */
static uint64_t *export_local(int fd, uint64_t len, uint32_t flags,
			      uint64_t key, struct snode_mem_export *exp)
{
	uint64_t off;
	uint64_t *p = alloc_map(fd, len, &off);

	if (!p)
		return NULL;
	memset(exp, 0, sizeof(*exp));
	exp->flags = flags;
	exp->alloc = off;
	exp->key = key;
	exp->length = len;
	if (_snode_export(fd, exp))
		return NULL;
	return p;
}

TEST_F(mem, import_self_rw)
{
	struct snode_mem_export exp;
	struct snode_import_status st;
	uint64_t *local, *win;
	int ifd;

	SKIP_IF_SKIPPED();

	local = export_local(self->fd, SZ_2M, SNODE_EXPORT_WRITE, 0x77, &exp);
	ASSERT_NE(NULL, local);
	test_snode_import(ifd, SNODE_IMPORT_WRITE, NODE, exp.out_export_id,
			  0x77, 0, SZ_2M);
	win = mmap(NULL, SZ_2M, PROT_READ | PROT_WRITE, MAP_SHARED, ifd, 0);
	ASSERT_NE(MAP_FAILED, win);
	local[0] = 0x1111;
	local[SZ_2M / 8 - 1] = 0x2222;
	EXPECT_EQ(0x1111, win[0]);
	EXPECT_EQ(0x2222, win[SZ_2M / 8 - 1]);
	win[1] = 0x3333;
	EXPECT_EQ(0x3333, local[1]);

	test_snode_status(ifd, &st);
	EXPECT_EQ(SNODE_WINDOW_STATE_ACTIVE, st.out_state);
	EXPECT_EQ(SNODE_REVOKE_REASON_NONE, st.out_reason);
	EXPECT_EQ(NODE, st.out_node);
	EXPECT_EQ(exp.out_export_id, st.out_export_id);
	EXPECT_EQ(0x77, st.out_key);
	EXPECT_EQ(SZ_2M, st.out_length);
	EXPECT_EQ(SNODE_IMPORT_WRITE, st.out_flags);
	EXPECT_NE(0, st.out_epoch);
	munmap(win, SZ_2M);
	close(ifd);
}

/* a window at an offset inside the export, and an mmap offset inside it */
TEST_F(mem, import_offsets)
{
	struct snode_mem_export exp;
	uint64_t *local, *win;
	int ifd;

	SKIP_IF_SKIPPED();

	local = export_local(self->fd, SZ_2M, 0, 0x78, &exp);
	ASSERT_NE(NULL, local);
	local[(SZ_64K + SZ_4K) / 8] = 0xfeed;
	test_snode_import(ifd, 0, NODE, exp.out_export_id, 0x78, SZ_64K,
			  SZ_64K);
	win = mmap(NULL, SZ_4K, PROT_READ, MAP_SHARED, ifd, SZ_4K);
	ASSERT_NE(MAP_FAILED, win);
	EXPECT_EQ(0xfeed, win[0]);
	munmap(win, SZ_4K);
	/* beyond the window */
	EXPECT_EQ(MAP_FAILED, mmap(NULL, SZ_4K, PROT_READ, MAP_SHARED, ifd,
				   SZ_64K));
	EXPECT_EQ(EINVAL, errno);
	EXPECT_EQ(MAP_FAILED, mmap(NULL, SZ_64K + SZ_4K, PROT_READ,
				   MAP_SHARED, ifd, 0));
	EXPECT_EQ(EINVAL, errno);
	EXPECT_EQ(MAP_FAILED, mmap(NULL, SZ_4K, PROT_READ, MAP_PRIVATE, ifd,
				   0));
	EXPECT_EQ(EINVAL, errno);
	close(ifd);
}

/* each refusal of the exporter's device has its own errno */
TEST_F(mem, import_errors)
{
	struct snode_mem_export exp, ro;
	uint32_t other = NODE + 1;
	uint64_t *p;

	SKIP_IF_SKIPPED();

	p = export_local(self->fd, SZ_64K, SNODE_EXPORT_WRITE, 0x79, &exp);
	ASSERT_NE(NULL, p);
	p = export_local(self->fd, SZ_64K, 0, 0x7a, &ro);
	ASSERT_NE(NULL, p);

	test_err_snode_import(EKEYREJECTED, 0, NODE, exp.out_export_id,
			      0x7a, 0, SZ_4K);
	test_err_snode_import(ENOENT, 0, NODE, 200, 0x79, 0, SZ_4K);
	test_err_snode_import(EROFS, SNODE_IMPORT_WRITE, NODE,
			      ro.out_export_id, 0x7a, 0, SZ_4K);
	test_err_snode_import(ERANGE, 0, NODE, exp.out_export_id, 0x79,
			      SZ_64K, SZ_4K);
	test_err_snode_import(ERANGE, 0, NODE, exp.out_export_id, 0x79, 0,
			      SZ_64K + SZ_4K);
	test_err_snode_import(EINVAL, 0, self->info.out_max_nodes,
			      exp.out_export_id, 0x79, 0, SZ_4K);
	test_err_snode_import(EINVAL, 0, NODE, exp.out_export_id, 0x79, 0, 0);
	test_err_snode_import(EINVAL, 0, NODE, exp.out_export_id, 0x79, 1,
			      SZ_4K);
	test_err_snode_import(EINVAL, 0, NODE, exp.out_export_id, 0x79, 0,
			      SZ_4K - 1);
	test_err_snode_import(EINVAL, 0, NODE, exp.out_export_id, 0x79, 0,
			      self->info.out_aperture_size + SZ_4K);

	/* an export limited to another node refuses this one */
	memset(&exp, 0, sizeof(exp));
	exp.flags = SNODE_EXPORT_NODES;
	exp.alloc = ro.alloc;
	exp.key = 0x7b;
	exp.length = SZ_4K;
	exp.nodes = (uintptr_t)&other;
	exp.nr_nodes = 1;
	test_snode_export(&exp);
	test_err_snode_import(EACCES, 0, NODE, exp.out_export_id, 0x7b, 0,
			      SZ_4K);
	/* and one that lists this node admits it */
	exp.nodes = (uintptr_t)&self->info.out_node_id;
	test_snode_export(&exp);
	EXPECT_LE(0, sn_import(self->fd, 0, NODE, exp.out_export_id,
				   0x7b, 0, SZ_4K));
}

/*
 * An offset inside an export has 28 + 12 bits in an ATT entry: from 2^40
 * on it is refused up front, not cut down to another offset.
 */
TEST_F(mem, import_offset_beyond_att)
{
	struct snode_mem_export exp;
	uint64_t *local;

	SKIP_IF_SKIPPED();

	local = export_local(self->fd, SZ_64K, 0, 0x7d, &exp);
	ASSERT_NE(NULL, local);
	test_err_snode_import(EINVAL, 0, NODE, exp.out_export_id, 0x7d,
			      1ULL << 40, SZ_4K);
	/* 2^40 + 0 would alias offset 0 of the export if it were truncated */
	test_err_snode_import(EINVAL, 0, NODE, exp.out_export_id, 0x7d,
			      (1ULL << 40) + SZ_64K, SZ_4K);
	test_err_snode_import(EINVAL, 0, NODE, exp.out_export_id, 0x7d,
			      1ULL << 63, SZ_4K);
	test_err_snode_import(EINVAL, 0, NODE, exp.out_export_id, 0x7d,
			      ~0ULL & ~(SZ_4K - 1), SZ_4K);
	/* the last offset the entry can hold gets to the exporter, who says no */
	test_err_snode_import(ERANGE, 0, NODE, exp.out_export_id, 0x7d,
			      (1ULL << 40) - SZ_4K, SZ_4K);
	test_snode_unexport(exp.out_export_id);
}

/* a read-only import can never be written */
TEST_F(mem, import_read_only)
{
	struct snode_mem_export exp;
	uint64_t *local, *win, val = 1;
	char path[64];
	int ifd, memfd;

	SKIP_IF_SKIPPED();

	local = export_local(self->fd, SZ_2M, SNODE_EXPORT_WRITE, 0x7c, &exp);
	ASSERT_NE(NULL, local);
	local[0] = 0xbeef;
	test_snode_import(ifd, 0, NODE, exp.out_export_id, 0x7c, 0, SZ_2M);

	EXPECT_EQ(MAP_FAILED, mmap(NULL, SZ_2M, PROT_READ | PROT_WRITE,
				   MAP_SHARED, ifd, 0));
	EXPECT_EQ(EACCES, errno);
	win = mmap(NULL, SZ_2M, PROT_READ, MAP_SHARED, ifd, 0);
	ASSERT_NE(MAP_FAILED, win);
	EXPECT_EQ(0xbeef, win[0]);
	EXPECT_ERRNO(EACCES, mprotect(win, SZ_2M, PROT_READ | PROT_WRITE));
	/* a store faults */
	EXPECT_EQ(SIGSEGV, probe(win, true, &val));
	EXPECT_EQ(0xbeef, local[0]);
	/* and so does a forced one, through /proc/self/mem */
	snprintf(path, sizeof(path), "/proc/self/mem");
	memfd = open(path, O_RDWR);
	ASSERT_LE(0, memfd);
	EXPECT_EQ(-1, pwrite(memfd, &val, sizeof(val), (uintptr_t)win));
	close(memfd);
	EXPECT_EQ(0xbeef, local[0]);
	munmap(win, SZ_2M);
	close(ifd);
}

/* Bus address of BAR @bar of snode0, 0 if unknown. */
static uint64_t bar_start(int bar)
{
	unsigned long long start, end, flags;
	FILE *f = fopen(SNODE_RESOURCE, "r");
	uint64_t ret = 0;
	int i;

	if (!f)
		return 0;
	for (i = 0; i <= bar; i++) {
		if (fscanf(f, "%llx %llx %llx", &start, &end, &flags) != 3)
			break;
		if (i == bar)
			ret = start;
	}
	fclose(f);
	return ret;
}

/*
 * The aperture page at @ap_off through /dev/mem, or MAP_FAILED and errno.
 * No O_SYNC: write-back, the memtype the driver reserved the aperture with.
 * Debian's kernels (IO_STRICT_DEVMEM) refuse it (EPERM) while the driver
 * holds the aperture, unless booted with iomem=relaxed.
 */
static volatile uint64_t *devmem_aperture(uint64_t ap_off)
{
	uint64_t bar = bar_start(SNODE_BAR_APERTURE);
	void *p;
	int fd, err;

	if (!bar) {
		errno = ENODEV;
		return MAP_FAILED;
	}
	fd = open("/dev/mem", O_RDWR);
	if (fd < 0)
		return MAP_FAILED;
	p = mmap(NULL, SZ_4K, PROT_READ | PROT_WRITE, MAP_SHARED, fd,
		 bar + ap_off);
	err = errno;
	close(fd);
	errno = err;
	return p;
}

#define SKIP_IF_NO_DEVMEM(ap)						\
	do {								\
		if ((ap) == MAP_FAILED && errno != EINVAL)		\
			SKIP(return, "/dev/mem cannot map the aperture (%s): "	\
			     "no other path stores into it; boot with iomem=relaxed", \
			     strerror(errno));				\
		ASSERT_NE(MAP_FAILED, (ap));				\
	} while (0)

/* A listener on the events group, for access-violation notifications. */
struct av_listener {
	struct nl nl;
	struct nl ev;
	struct msg m;
	char buf[BUF_LEN];
};

static int av_listen(struct av_listener *l)
{
	int ret;

	ret = nl_open(&l->nl);
	if (ret)
		return ret;
	ret = nl_resolve(&l->nl);
	if (!ret)
		ret = nl_open(&l->ev);
	if (ret) {
		close(l->nl.fd);
		return ret;
	}
	l->ev.family = l->nl.family;
	l->ev.events_grp = l->nl.events_grp;
	ret = nl_subscribe(&l->ev);
	if (ret) {
		close(l->ev.fd);
		close(l->nl.fd);
	}
	return ret;
}

/*
 * Wait for the notification of a violation at aperture offset @off, in
 * l->m; false if none came. The driver sends the first of a second at once
 * and then the last state, so an older one may come first.
 */
static bool av_wait(struct av_listener *l, uint64_t off)
{
	int i;

	for (i = 0; i < 4; i++) {
		if (nl_wait_event(&l->ev, SNODE_NL_CMD_ACCESS_VIOLATION_NTF, 0, 5000,
				  &l->m, l->buf) != 1)
			return false;
		if (get_u64(&l->m, SNODE_A_EVENT_ACCESS_OFFSET) == off)
			return true;
	}
	return false;
}

static void av_close(struct av_listener *l)
{
	close(l->ev.fd);
	close(l->nl.fd);
}

static uint64_t access_violations(int fd)
{
	struct stats_arg st;

	return stats_get(fd, &st) ? ~0ULL :
	       st.v[SNODE_A_STATS_ACCESS_VIOLATIONS];
}

/*
 * The NIC's own enforcement (Documentation/hw/snode-nic.rst section 6): a
 * CPU store into a read-only window is dropped and raises ACCESS_VIOLATION
 * with its aperture offset and write set; loads read the exporter's memory
 * and are no violation. No mapping the driver hands out can store there
 * (import_read_only), so the store comes through /dev/mem (mem.sh boots
 * with iomem=relaxed for it). Decision 0022.
 */
TEST_F(mem, import_read_only_store_violation)
{
	uint64_t *local, ap_off = ~0ULL, val, n0, n1;
	struct snode_mem_export exp;
	struct mem_ent e[4];
	struct av_listener *l;
	volatile uint64_t *ap;
	uint32_t count, i;
	int ifd;

	SKIP_IF_SKIPPED();

	local = export_local(self->fd, SZ_64K, SNODE_EXPORT_WRITE, 0x87, &exp);
	ASSERT_NE(NULL, local);
	local[SZ_4K / 8 + 1] = 0x0123456789abcdefULL;
	test_snode_import(ifd, 0, NODE, exp.out_export_id, 0x87, 0, SZ_64K);
	count = 4;
	ASSERT_EQ(0, _snode_list(self->fd, MEM_LIST_IMPORTS, e, &count));
	for (i = 0; i < count && i < 4; i++)
		if (e[i].export_id == exp.out_export_id && e[i].node == NODE)
			ap_off = e[i].aperture_offset;
	ASSERT_NE(~0ULL, ap_off);
	ap = devmem_aperture(ap_off + SZ_4K);
	SKIP_IF_NO_DEVMEM(ap);
	l = malloc(sizeof(*l));
	ASSERT_NE(NULL, l);
	ASSERT_EQ(0, av_listen(l));

	n0 = access_violations(self->fd);
	/* a load reads the exporter's memory */
	EXPECT_EQ(0, probe(ap + 1, false, &val));
	EXPECT_EQ(0x0123456789abcdefULL, val);
	/* a store is dropped, not a fault */
	val = 0x5afe5afe5afe5afeULL;
	EXPECT_EQ(0, probe(ap + 1, true, &val));
	n1 = access_violations(self->fd);
	EXPECT_EQ(0x0123456789abcdefULL, local[SZ_4K / 8 + 1]);
	EXPECT_EQ(0x0123456789abcdefULL, ap[1]);
	/* exactly the store is counted, not the loads */
	EXPECT_EQ(n0 + 1, n1);

	/* and notified: its aperture offset, a write */
	ASSERT_TRUE(av_wait(l, ap_off + SZ_4K + 8));
	EXPECT_EQ(self->info.out_index,
		  get_u32(&l->m, SNODE_A_EVENT_DEV_INDEX));
	EXPECT_NE(NULL, l->m.tb[SNODE_A_EVENT_ACCESS_WRITE]);

	/* a burst: every store counted, suppressed events or not */
	n0 = access_violations(self->fd);
	for (i = 0; i < 64; i++)
		ap[i] = i;
	EXPECT_EQ(n0 + 64, access_violations(self->fd));
	for (i = 0; i < 64; i++)
		if (local[SZ_4K / 8 + i] != (i == 1 ? 0x0123456789abcdefULL : 0))
			break;
	EXPECT_EQ(64, i);

	av_close(l);
	free(l);
	munmap((void *)ap, SZ_4K);
	close(ifd);
}

/* the same through the aperture hole: all-ones, dropped, each counted */
TEST_F(mem, aperture_hole_violation)
{
	uint64_t ap_off = self->info.out_aperture_size - SZ_4K, val, n0;
	struct mem_ent *e;
	struct av_listener *l;
	volatile uint64_t *ap;
	uint32_t count, i;

	SKIP_IF_SKIPPED();

	count = self->info.out_att_entries;
	e = calloc(count, sizeof(*e));
	ASSERT_NE(NULL, e);
	ASSERT_EQ(0, _snode_list(self->fd, MEM_LIST_ATT, e, &count));
	for (i = 0; i < count && i < self->info.out_att_entries; i++)
		if (ap_off - e[i].aperture_offset < e[i].length)
			SKIP(free(e); return, "an ATT entry maps the aperture's last page");
	free(e);
	ap = devmem_aperture(ap_off);
	SKIP_IF_NO_DEVMEM(ap);
	l = malloc(sizeof(*l));
	ASSERT_NE(NULL, l);
	ASSERT_EQ(0, av_listen(l));

	n0 = access_violations(self->fd);
	val = 0x5afe;
	EXPECT_EQ(0, probe(ap + 3, true, &val));
	ASSERT_TRUE(av_wait(l, ap_off + 24));
	EXPECT_NE(NULL, l->m.tb[SNODE_A_EVENT_ACCESS_WRITE]);
	EXPECT_EQ(0, probe(ap + 3, false, &val));
	EXPECT_EQ(~0ULL, val);
	EXPECT_EQ(n0 + 2, access_violations(self->fd));

	av_close(l);
	free(l);
	munmap((void *)ap, SZ_4K);
}

/* the import's file cannot be reopened writable through /proc */
TEST_F(mem, import_no_reopen)
{
	struct snode_mem_export exp;
	char path[64];
	uint64_t *p;
	int ifd;

	SKIP_IF_SKIPPED();

	p = export_local(self->fd, SZ_4K, SNODE_EXPORT_WRITE, 0x7d, &exp);
	ASSERT_NE(NULL, p);
	test_snode_import(ifd, 0, NODE, exp.out_export_id, 0x7d, 0, SZ_4K);
	snprintf(path, sizeof(path), "/proc/self/fd/%d", ifd);
	EXPECT_EQ(-1, open(path, O_RDWR));
	EXPECT_EQ(-1, open(path, O_RDONLY));
	EXPECT_NE(0, fcntl(ifd, F_GETFD) & FD_CLOEXEC);
	close(ifd);
}

/* touching a whole window takes a handful of faults, not one per page */
TEST_F(mem, import_no_fault_per_page)
{
	struct snode_mem_export exp;
	volatile uint64_t *win;
	uint64_t *local, i, sum = 0;
	long before, faults;
	int ifd;

	SKIP_IF_SKIPPED();

	local = export_local(self->fd, SZ_64M, SNODE_EXPORT_WRITE, 0x7e, &exp);
	ASSERT_NE(NULL, local);
	test_snode_import(ifd, SNODE_IMPORT_WRITE, NODE, exp.out_export_id,
			  0x7e, 0, SZ_64M);
	win = mmap(NULL, SZ_64M, PROT_READ | PROT_WRITE, MAP_SHARED, ifd, 0);
	ASSERT_NE(MAP_FAILED, win);
	before = minflt();
	for (i = 0; i < SZ_64M / 8; i += SZ_4K / 8)
		sum += win[i];
	for (i = 0; i < SZ_64M / 8; i += SZ_4K / 8)
		win[i] = i;
	faults = minflt() - before;
	TH_LOG("%ld faults for %llu pages (sum %llu)", faults,
	       SZ_64M / SZ_4K, (unsigned long long)sum);
	/* 2 MiB entries: up to two faults each (read, then write) */
	EXPECT_GE(2 * SZ_64M / SZ_2M, faults);
	EXPECT_EQ(SZ_64M / 8 - SZ_4K / 8, local[SZ_64M / 8 - SZ_4K / 8]);
	munmap((void *)win, SZ_64M);
	close(ifd);
}

/* ---- revocation ----------------------------------------------------------------- */

static int wait_revoked(int ifd, int timeout_ms)
{
	struct pollfd pfd = { .fd = ifd, .events = POLLIN | POLLPRI };

	return poll(&pfd, 1, timeout_ms) == 1 ? pfd.revents : 0;
}

/* Check that an import was revoked for @reason and its mapping faults. */
static void check_revoked(struct __test_metadata *_metadata, int ifd,
			  volatile uint64_t *win, uint32_t reason, bool zero,
			  bool writable)
{
	struct snode_import_status st;
	uint64_t val = 7;
	int revents;

	revents = wait_revoked(ifd, 10000);
	EXPECT_NE(0, revents & POLLPRI);
	EXPECT_NE(0, revents & POLLERR);
	ASSERT_EQ(0, _snode_status(ifd, &st));
	EXPECT_EQ(SNODE_WINDOW_STATE_REVOKED, st.out_state);
	EXPECT_EQ(reason, st.out_reason);
	if (!win)
		return;
	if (zero) {
		EXPECT_EQ(0, probe(win, false, &val));
		EXPECT_EQ(0, val);
	} else {
		EXPECT_EQ(SIGBUS, probe(win, false, &val));
	}
	/* a store to a read-only mapping is a SIGSEGV, revoked or not */
	val = 7;
	EXPECT_EQ(writable ? SIGBUS : SIGSEGV, probe(win, true, &val));
	/* no new mapping of a revoked window */
	EXPECT_EQ(MAP_FAILED, mmap(NULL, SZ_4K, PROT_READ, MAP_SHARED, ifd, 0));
	EXPECT_EQ(ECONNRESET, errno);
}

TEST_F(mem, revoke_unexport)
{
	struct snode_mem_export exp;
	uint64_t *local, *win;
	int ifd;

	SKIP_IF_SKIPPED();

	local = export_local(self->fd, SZ_2M, SNODE_EXPORT_WRITE, 0x80, &exp);
	ASSERT_NE(NULL, local);
	test_snode_import(ifd, SNODE_IMPORT_WRITE, NODE, exp.out_export_id,
			  0x80, 0, SZ_2M);
	win = mmap(NULL, SZ_2M, PROT_READ | PROT_WRITE, MAP_SHARED, ifd, 0);
	ASSERT_NE(MAP_FAILED, win);
	win[0] = 1;
	EXPECT_EQ(0, wait_revoked(ifd, 0));
	test_snode_unexport(exp.out_export_id);
	check_revoked(_metadata, ifd, win, SNODE_REVOKE_REASON_UNEXPORT, false,
		      true);
	/* the exporter's own memory is untouched */
	EXPECT_EQ(1, local[0]);
	munmap(win, SZ_2M);
	close(ifd);
}

/* A window's life in tracepoints: it is set, faulted in, revoked. */
TEST_F(mem, trace_window_life)
{
	const char *fault, *revoke;
	struct snode_import_status st;
	struct snode_mem_export exp;
	char want[64], reason[32];
	uint64_t *local, *win;
	char *trace;
	int ifd, ret;

	SKIP_IF_SKIPPED();
	ret = trace_start();
	if (ret == -ENOENT)
		SKIP(return, "this kernel has no event tracing");
	ASSERT_EQ(0, ret);

	local = export_local(self->fd, SZ_2M, SNODE_EXPORT_WRITE, 0x81, &exp);
	ASSERT_NE(NULL, local);
	test_snode_import(ifd, SNODE_IMPORT_WRITE, NODE, exp.out_export_id,
			  0x81, 0, SZ_2M);
	test_snode_status(ifd, &st);
	win = mmap(NULL, SZ_2M, PROT_READ | PROT_WRITE, MAP_SHARED, ifd, 0);
	ASSERT_NE(MAP_FAILED, win);
	win[0] = 1;
	test_snode_unexport(exp.out_export_id);
	EXPECT_NE(0, wait_revoked(ifd, 10000));
	trace = trace_stop();
	ASSERT_NE(NULL, trace);

	snprintf(want, sizeof(want), "snode0 att %u ", st.out_att_index);
	snprintf(reason, sizeof(reason), "reason %u ",
		 SNODE_REVOKE_REASON_UNEXPORT);
	fault = trace_find(trace, 3, "snode_window_fault: ", want, "active 1");
	revoke = trace_find(trace, 3, "snode_window_revoke: ", want, reason);
	trace_expect_order(_metadata, trace, fault, revoke);
	free(trace);
	munmap(win, SZ_2M);
	close(ifd);
}

TEST_F(mem, revoke_unexport_zero_page)
{
	struct snode_mem_export exp;
	uint64_t *local, *win;
	int ifd;

	SKIP_IF_SKIPPED();

	local = export_local(self->fd, SZ_2M, SNODE_EXPORT_WRITE, 0x81, &exp);
	ASSERT_NE(NULL, local);
	local[5] = 5;
	test_snode_import(ifd, SNODE_IMPORT_WRITE |
			  SNODE_IMPORT_ZERO_PAGE_ON_REVOKE, NODE,
			  exp.out_export_id, 0x81, 0, SZ_2M);
	win = mmap(NULL, SZ_2M, PROT_READ | PROT_WRITE, MAP_SHARED, ifd, 0);
	ASSERT_NE(MAP_FAILED, win);
	EXPECT_EQ(5, win[5]);
	test_snode_unexport(exp.out_export_id);
	check_revoked(_metadata, ifd, win + 5, SNODE_REVOKE_REASON_UNEXPORT,
		      true, true);
	EXPECT_EQ(5, local[5]);
	munmap(win, SZ_2M);
	close(ifd);
}

TEST_F(mem, revoke_free)
{
	struct snode_mem_export exp;
	uint64_t *local, *win;
	int ifd;

	SKIP_IF_SKIPPED();

	local = export_local(self->fd, SZ_64K, SNODE_EXPORT_WRITE, 0x82, &exp);
	ASSERT_NE(NULL, local);
	test_snode_import(ifd, 0, NODE, exp.out_export_id, 0x82, 0, SZ_64K);
	win = mmap(NULL, SZ_64K, PROT_READ, MAP_SHARED, ifd, 0);
	ASSERT_NE(MAP_FAILED, win);
	test_snode_free(exp.alloc);
	check_revoked(_metadata, ifd, win, SNODE_REVOKE_REASON_UNEXPORT, false,
		      false);
	munmap(win, SZ_64K);
	close(ifd);
}

/* the exporting process exits: its file is released */
TEST_F(mem, revoke_exporter_exit)
{
	struct snode_mem_export exp;
	int pipe_in[2], pipe_out[2];
	uint64_t *win;
	pid_t pid;
	char c;
	int ifd;

	SKIP_IF_SKIPPED();

	ASSERT_EQ(0, pipe(pipe_in));
	ASSERT_EQ(0, pipe(pipe_out));
	pid = fork();
	ASSERT_LE(0, pid);
	if (!pid) {
		int fd = open(SNODE_DEV, O_RDWR);

		if (fd < 0 || !export_local(fd, SZ_64K, 0, 0x83, &exp))
			_exit(1);
		if (write(pipe_out[1], &exp, sizeof(exp)) != sizeof(exp))
			_exit(1);
		/* exit once the parent has mapped the window */
		if (read(pipe_in[0], &c, 1) != 1)
			_exit(1);
		_exit(0);
	}
	ASSERT_EQ(sizeof(exp), read(pipe_out[0], &exp, sizeof(exp)));
	test_snode_import(ifd, 0, NODE, exp.out_export_id, 0x83, 0, SZ_64K);
	win = mmap(NULL, SZ_64K, PROT_READ, MAP_SHARED, ifd, 0);
	ASSERT_NE(MAP_FAILED, win);
	EXPECT_EQ(0, win[0]);
	ASSERT_EQ(1, write(pipe_in[1], "x", 1));
	ASSERT_EQ(pid, waitpid(pid, NULL, 0));
	check_revoked(_metadata, ifd, win, SNODE_REVOKE_REASON_UNEXPORT, false,
		      false);
	munmap(win, SZ_64K);
	close(ifd);
}

/*
 * A function-level reset of this NIC: its imports are revoked first (the
 * reset wipes the ATT), and its exports are restored under the same
 * handle, so importing it again works.
 */
TEST_F(mem, revoke_local_reset)
{
	struct snode_mem_export exp;
	uint64_t *local, *win;
	int ifd, rfd, ifd2;

	SKIP_IF_SKIPPED();

	rfd = open(SNODE_RESET, O_WRONLY);
	if (rfd < 0)
		SKIP(return, "no %s", SNODE_RESET);
	local = export_local(self->fd, SZ_64K, SNODE_EXPORT_WRITE, 0x84, &exp);
	ASSERT_NE(NULL, local);
	local[0] = 0xf1;
	test_snode_import(ifd, 0, NODE, exp.out_export_id, 0x84, 0, SZ_64K);
	win = mmap(NULL, SZ_64K, PROT_READ, MAP_SHARED, ifd, 0);
	ASSERT_NE(MAP_FAILED, win);
	EXPECT_EQ(0xf1, win[0]);
	ASSERT_EQ(1, write(rfd, "1", 1));
	close(rfd);
	check_revoked(_metadata, ifd, win, SNODE_REVOKE_REASON_LOCAL_RESET,
		      false, false);
	munmap(win, SZ_64K);
	close(ifd);
	/* the pool survives a reset, and so does the export */
	EXPECT_EQ(0xf1, local[0]);
	test_snode_import(ifd2, 0, NODE, exp.out_export_id, 0x84, 0, SZ_64K);
	win = mmap(NULL, SZ_64K, PROT_READ, MAP_SHARED, ifd2, 0);
	ASSERT_NE(MAP_FAILED, win);
	EXPECT_EQ(0xf1, win[0]);
	munmap(win, SZ_64K);
	close(ifd2);
}

/* poll() sleeps until the revocation, then wakes */
TEST_F(mem, revoke_poll_wakes)
{
	struct snode_mem_export exp;
	struct pollfd pfd;
	uint64_t *local, t0;
	pid_t pid;
	int ifd;

	SKIP_IF_SKIPPED();

	local = export_local(self->fd, SZ_4K, 0, 0x85, &exp);
	ASSERT_NE(NULL, local);
	test_snode_import(ifd, 0, NODE, exp.out_export_id, 0x85, 0, SZ_4K);
	pid = fork();
	ASSERT_LE(0, pid);
	if (!pid) {
		usleep(300 * 1000);
		_exit(_snode_unexport(self->fd, exp.out_export_id) ? 1 : 0);
	}
	t0 = now_ms();
	pfd.fd = ifd;
	pfd.events = POLLPRI;
	EXPECT_EQ(1, poll(&pfd, 1, 20000));
	EXPECT_LE(250, now_ms() - t0);
	EXPECT_NE(0, pfd.revents & POLLPRI);
	close(ifd);
	waitpid(pid, NULL, 0);
}

/* ---- listing ------------------------------------------------------------------- */

TEST_F(mem, list_entries)
{
	struct mem_ent e[8];
	struct snode_mem_export exp;
	uint32_t count, i;
	uint64_t *local;
	bool found;
	int ifd;

	SKIP_IF_SKIPPED();

	local = export_local(self->fd, SZ_64K, SNODE_EXPORT_WRITE, 0x86, &exp);
	ASSERT_NE(NULL, local);
	test_snode_import(ifd, SNODE_IMPORT_WRITE, NODE, exp.out_export_id,
			  0x86, 0, SZ_64K);

	count = 0;
	ASSERT_EQ(0, _snode_list(self->fd, MEM_LIST_EXPORTS, NULL,
				 &count));
	EXPECT_LE(1, count);
	count = 8;
	ASSERT_EQ(0, _snode_list(self->fd, MEM_LIST_EXPORTS, e, &count));
	found = false;
	for (i = 0; i < count && i < 8; i++) {
		if (e[i].export_id != exp.out_export_id)
			continue;
		found = true;
		EXPECT_EQ(MEM_LIST_EXPORTS, e[i].type);
		EXPECT_EQ(SNODE_WINDOW_STATE_ACTIVE, e[i].state);
		EXPECT_EQ(getpid(), e[i].pid);
		EXPECT_EQ(0x86, e[i].key);
		EXPECT_NE(0, e[i].flags & MEM_ENT_KEY);
		EXPECT_NE(0, e[i].flags & MEM_ENT_OWN);
		EXPECT_NE(0, e[i].flags & MEM_ENT_WRITE);
		EXPECT_EQ(SZ_64K, e[i].length);
		EXPECT_EQ(0, strncmp(e[i].comm, "mem_test", 8));
	}
	EXPECT_TRUE(found);

	count = 8;
	ASSERT_EQ(0, _snode_list(self->fd, MEM_LIST_IMPORTS, e, &count));
	ASSERT_EQ(1, count);
	EXPECT_EQ(NODE, e[0].node);
	EXPECT_EQ(exp.out_export_id, e[0].export_id);
	EXPECT_EQ(SNODE_WINDOW_STATE_ACTIVE, e[0].state);
	EXPECT_EQ(getpid(), e[0].pid);
	count = 8;
	ASSERT_EQ(0, _snode_list(self->fd, MEM_LIST_ATT, e, &count));
	ASSERT_EQ(1, count);
	EXPECT_EQ(SNODE_WINDOW_STATE_ACTIVE, e[0].state);
	EXPECT_EQ(NODE, e[0].node);
	close(ifd);
	count = 8;
	ASSERT_EQ(0, _snode_list(self->fd, MEM_LIST_ATT, e, &count));
	EXPECT_EQ(0, count);
}

/* A dump names the NIC it is filtered on: an unknown one is ENODEV. */
TEST_F(mem, list_bad)
{
	struct nl nl;
	struct req r;

	SKIP_IF_SKIPPED();

	ASSERT_EQ(0, nl_open(&nl));
	ASSERT_EQ(0, nl_resolve(&nl));
	req_init(&r, nl.family, SNODE_NL_CMD_WINDOW_GET, NLM_F_DUMP);
	req_u32(&r, SNODE_A_WINDOW_DEV_INDEX, 4000);
	EXPECT_EQ(-ENODEV, nl_do(&nl, &r, BUF_LEN, NULL, NULL));
	req_init(&r, nl.family, SNODE_NL_CMD_WINDOW_GET, NLM_F_DUMP);
	req_u64(&r, SNODE_A_WINDOW_DEV_INDEX, 0);	/* not a u32 */
	EXPECT_EQ(-EINVAL, nl_do(&nl, &r, BUF_LEN, NULL, NULL));
	close(nl.fd);
	/* the library-side check of the table kind */
	EXPECT_ERRNO(EINVAL, _snode_list(self->fd, 0, NULL, &(uint32_t){ 0 }));
	EXPECT_ERRNO(EINVAL, _snode_list(self->fd, MEM_LIST_ATT + 1, NULL,
					 &(uint32_t){ 0 }));
}

/*
 * A dump larger than one message buffer resumes where it stopped: 300
 * allocations (about 100 bytes of attributes each, more than a 16 KiB
 * skb holds) each appear exactly once, with their pool offsets.
 */
TEST_F(mem, list_spans_messages)
{
	enum { N = 300 };
	struct mem_ent *e = calloc(N + 64, sizeof(*e));
	uint64_t off[N];
	uint32_t count = N + 64, i, j, seen;
	int ret;

	SKIP_IF_SKIPPED();

	ASSERT_NE(NULL, e);
	for (i = 0; i < N; i++)
		test_snode_alloc(SZ_4K, &off[i]);
	ret = _snode_list(self->fd, MEM_LIST_ALLOCS, e, &count);
	ASSERT_EQ(0, ret);
	EXPECT_LE(N, count);
	for (i = 0; i < N; i++) {
		seen = 0;
		for (j = 0; j < count && j < N + 64; j++)
			if (e[j].offset == off[i] && e[j].length == SZ_4K &&
			    (e[j].flags & MEM_ENT_OWN))
				seen++;
		EXPECT_EQ(1, seen) {
			TH_LOG("allocation at 0x%llx listed %u times",
			       (unsigned long long)off[i], seen);
		}
	}
	for (i = 0; i < N; i++)
		test_snode_free(off[i]);
	free(e);
}

/* ---- mremap and fork of windows ---------------------------------------------- */

#ifndef MREMAP_DONTUNMAP
#define MREMAP_DONTUNMAP 4
#endif

/*
 * A window, mapped at a 2 MiB boundary (huge entries on 6.12) inside a
 * PROT_NONE reservation of our own: whatever mremap() does, nothing but
 * the window is ever mapped there.
 */
static uint64_t *map_reserved(int ifd, uint64_t len, void **resv,
			      uint64_t *resv_len)
{
	uint8_t *r, *p;

	*resv_len = 4 * len + SZ_2M;
	r = mmap(NULL, *resv_len, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS |
		 MAP_NORESERVE, -1, 0);
	if (r == MAP_FAILED)
		return NULL;
	*resv = r;
	r = (uint8_t *)(((uintptr_t)r + SZ_2M - 1) & ~(SZ_2M - 1));
	p = mmap(r, len, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_FIXED, ifd,
		 0);
	return p == MAP_FAILED ? NULL : (uint64_t *)p;
}

/*
 * mremap() of a window: it can never grow (VM_DONTEXPAND, as vfio and
 * iommufd do) - not in place, not by moving, not as a second mapping of
 * the same pages - and never keeps its pages at the old place
 * (MREMAP_DONTUNMAP). It can shrink and move; the moved mapping reaches
 * the same memory, and a revocation still finds and zaps it.
 */
TEST_F(mem, mremap_window)
{
	const uint64_t len = SZ_2M;
	struct snode_mem_export exp;
	uint64_t *local, *win, *moved, resv_len, val;
	uint8_t *dst;
	void *resv;
	int ifd;

	SKIP_IF_SKIPPED();

	local = export_local(self->fd, len, SNODE_EXPORT_WRITE, 0x8a, &exp);
	ASSERT_NE(NULL, local);
	test_snode_import(ifd, SNODE_IMPORT_WRITE, NODE, exp.out_export_id,
			  0x8a, 0, len);
	win = map_reserved(ifd, len, &resv, &resv_len);
	ASSERT_NE(NULL, win);
	local[0] = 0xa1;
	local[len / 16] = 0xa2;
	EXPECT_EQ(0xa1, win[0]);

	/* no growth of any kind */
	EXPECT_EQ(MAP_FAILED, mremap(win, len, 2 * len, 0));
	EXPECT_EQ(EFAULT, errno);
	EXPECT_EQ(MAP_FAILED, mremap(win, len, 2 * len, MREMAP_MAYMOVE));
	EXPECT_EQ(EFAULT, errno);
	EXPECT_EQ(MAP_FAILED, mremap(win, 0, len, MREMAP_MAYMOVE));
	EXPECT_EQ(EFAULT, errno);
	EXPECT_EQ(MAP_FAILED, mremap(win, len, len, MREMAP_MAYMOVE |
				     MREMAP_DONTUNMAP));
	EXPECT_EQ(EINVAL, errno);
	/* the window is intact, and nothing is mapped behind it */
	EXPECT_EQ(0xa1, win[0]);
	EXPECT_EQ(SIGSEGV, probe(win + len / 8, false, &val));

	/* shrink to half: the rest is gone */
	ASSERT_EQ(win, mremap(win, len, len / 2, 0));
	EXPECT_EQ(0xa1, win[0]);
	EXPECT_EQ(SIGSEGV, probe(win + len / 16, false, &val));

	/* move the half elsewhere, not 2 MiB aligned */
	dst = (uint8_t *)win + len + SZ_64K;
	moved = mremap(win, len / 2, len / 2, MREMAP_MAYMOVE | MREMAP_FIXED,
		       dst);
	ASSERT_EQ((void *)dst, (void *)moved);
	EXPECT_EQ(SIGSEGV, probe(win, false, &val));
	EXPECT_EQ(0xa1, moved[0]);
	moved[1] = 0xb1;
	EXPECT_EQ(0xb1, local[1]);
	/* and growing the moved mapping is refused as well */
	EXPECT_EQ(MAP_FAILED, mremap(moved, len / 2, len, 0));
	EXPECT_EQ(EFAULT, errno);

	/* a revocation zaps the mapping where it is now */
	test_snode_unexport(exp.out_export_id);
	check_revoked(_metadata, ifd, moved, SNODE_REVOKE_REASON_UNEXPORT,
		      false, true);
	EXPECT_EQ(SIGSEGV, probe(win, false, &val));
	EXPECT_EQ(0xb1, local[1]);
	munmap(resv, resv_len);
	close(ifd);
}

/* The same for a mapping of the process's own pool allocation. */
TEST_F(mem, mremap_pool)
{
	uint64_t *p, *moved, off, resv_len = 4 * SZ_2M, val;
	uint8_t *resv;

	SKIP_IF_SKIPPED();

	resv = mmap(NULL, resv_len, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS |
		    MAP_NORESERVE, -1, 0);
	ASSERT_NE(MAP_FAILED, resv);
	test_snode_alloc(SZ_64K, &off);
	p = mmap(resv, SZ_64K, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_FIXED,
		 self->fd, off);
	ASSERT_NE(MAP_FAILED, p);
	p[0] = 0xc1;
	EXPECT_EQ(MAP_FAILED, mremap(p, SZ_64K, 2 * SZ_64K, 0));
	EXPECT_EQ(EFAULT, errno);
	EXPECT_EQ(MAP_FAILED, mremap(p, SZ_64K, 2 * SZ_64K, MREMAP_MAYMOVE));
	EXPECT_EQ(EFAULT, errno);
	EXPECT_EQ(MAP_FAILED, mremap(p, 0, SZ_64K, MREMAP_MAYMOVE));
	EXPECT_EQ(EFAULT, errno);
	EXPECT_EQ(SIGSEGV, probe(p + SZ_64K / 8, false, &val));
	moved = mremap(p, SZ_64K, SZ_64K, MREMAP_MAYMOVE | MREMAP_FIXED,
		       resv + SZ_2M);
	ASSERT_EQ((void *)(resv + SZ_2M), (void *)moved);
	EXPECT_EQ(0xc1, moved[0]);
	/* the moved mapping still holds the allocation: freeing it is safe */
	test_snode_free(off);
	moved[1] = 0xc2;
	EXPECT_EQ(0xc2, moved[1]);
	munmap(resv, resv_len);
}

/*
 * fork() copies a window's page table entries into the child, and the
 * child's mapping is one more mapping of the import's file: a revocation
 * zaps it as it zaps the parent's, and the child then gets SIGBUS (or
 * zeros) like the parent, never the old memory.
 */
static void revoke_after_fork(struct __test_metadata *_metadata, int fd,
			      uint32_t node, uint32_t import_flags,
			      uint64_t key)
{
	const uint64_t len = SZ_2M;
	const bool zero = import_flags & SNODE_IMPORT_ZERO_PAGE_ON_REVOKE;
	struct snode_mem_export exp;
	int ready[2], go[2], status, ifd;
	uint64_t *local, *win, val;
	pid_t pid;
	char c;

	local = export_local(fd, len, SNODE_EXPORT_WRITE, key, &exp);
	ASSERT_NE(NULL, local);
	ifd = sn_import(fd, import_flags | SNODE_IMPORT_WRITE, node,
			    exp.out_export_id, key, 0, len);
	ASSERT_LE(0, ifd);
	win = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, ifd, 0);
	ASSERT_NE(MAP_FAILED, win);
	local[0] = 0xd1;
	local[len / 16] = 0xd2;
	/* the parent's entries for the first half exist before the fork */
	EXPECT_EQ(0xd1, win[0]);
	ASSERT_EQ(0, pipe(ready));
	ASSERT_EQ(0, pipe(go));

	pid = fork();
	ASSERT_LE(0, pid);
	if (!pid) {
		int bad = 0;

		/* copied entries, and one the child faults in itself */
		bad |= win[0] != 0xd1;
		bad |= win[len / 16] != 0xd2;
		win[2] = 0xd3;
		if (write(ready[1], "r", 1) != 1 || read(go[0], &c, 1) != 1)
			_exit(100);
		/* revoked: SIGBUS or zeros, wherever the entry came from */
		val = 7;
		if (zero)
			bad |= (probe(win, false, &val) != 0 || val) << 1;
		else
			bad |= (probe(win, false, &val) != SIGBUS) << 1;
		val = 7;
		if (zero)
			bad |= (probe(win + len / 16, false, &val) != 0 || val) << 2;
		else
			bad |= (probe(win + len / 16, false, &val) != SIGBUS) << 2;
		val = 7;
		bad |= (probe(win + 2, true, &val) != SIGBUS) << 3;
		_exit(bad);
	}
	ASSERT_EQ(1, read(ready[0], &c, 1));
	EXPECT_EQ(0xd3, local[2]);
	ASSERT_EQ(0, _snode_unexport(fd, exp.out_export_id));
	check_revoked(_metadata, ifd, win, SNODE_REVOKE_REASON_UNEXPORT, zero,
		      true);
	ASSERT_EQ(1, write(go[1], "g", 1));
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	EXPECT_TRUE(WIFEXITED(status));
	EXPECT_EQ(0, WEXITSTATUS(status)) {
		TH_LOG("child: bits %#x (1 data before, 2/4 load, 8 store after revocation)",
		       WEXITSTATUS(status));
	}
	/* the child's stores went nowhere after the revocation */
	EXPECT_EQ(0xd3, local[2]);
	EXPECT_EQ(0xd1, local[0]);
	munmap(win, len);
	close(ifd);
	close(ready[0]);
	close(ready[1]);
	close(go[0]);
	close(go[1]);
}

TEST_F(mem, revoke_after_fork)
{
	SKIP_IF_SKIPPED();
	revoke_after_fork(_metadata, self->fd, NODE, 0, 0x8b);
}

TEST_F(mem, revoke_after_fork_zero_page)
{
	SKIP_IF_SKIPPED();
	revoke_after_fork(_metadata, self->fd, NODE,
			  SNODE_IMPORT_ZERO_PAGE_ON_REVOKE, 0x8c);
}

/* ---- two nodes --------------------------------------------------------------- */

/*
 * Each pair test exports from both nodes (or from the lower node id only)
 * and imports the peer's export. Word PAIR_CTL of every export is the
 * phase the peer reached, written by the peer through its window; the
 * words after it are flags of the asymmetric tests.
 */
#define PAIR_CTL	512
struct pair {
	int fd;
	uint32_t me, peer;
	uint64_t len;
	volatile uint64_t *local;	/* this node's export */
	volatile uint64_t *remote;	/* the peer's export */
	int ifd;
	struct snode_mem_export exp;
};

static int peer_node(void)
{
	const char *s = getenv("SNODE_PEER");

	return s ? atoi(s) : -1;
}

/* Import the peer's export @id with @key, retrying while it is not there. */
static int pair_import_id(struct pair *p, uint32_t id, uint64_t key,
			  uint32_t flags, uint64_t len)
{
	uint64_t deadline = now_ms() + PEER_WAIT_S * 1000ULL;
	int ifd;

	for (;;) {
		ifd = sn_import(p->fd, flags, p->peer, id, key, 0, len);
		if (ifd >= 0)
			return ifd;
		if ((errno != ENOENT && errno != EKEYREJECTED &&
		     errno != ERANGE && errno != EROFS) || now_ms() > deadline)
			return -1;
		usleep(20 * 1000);
	}
}

static int pair_import(struct pair *p, uint64_t key, uint32_t flags,
		       uint64_t len)
{
	return pair_import_id(p, 0, key, flags, len);
}

static int pair_setup(struct pair *p, int fd, uint64_t key, uint64_t len,
		      bool export, bool import)
{
	memset(p, 0, sizeof(*p));
	p->fd = fd;
	p->peer = peer_node();
	p->len = len;
	p->ifd = -1;
	if (export) {
		p->local = export_local(fd, len, SNODE_EXPORT_WRITE, key,
					&p->exp);
		if (!p->local)
			return -1;
		if (p->exp.out_export_id != 0)
			return -1;	/* the peer expects id 0 */
	}
	if (import) {
		p->ifd = pair_import(p, key, SNODE_IMPORT_WRITE, len);
		if (p->ifd < 0)
			return -1;
		p->remote = mmap(NULL, len, PROT_READ | PROT_WRITE,
				 MAP_SHARED, p->ifd, 0);
		if (p->remote == MAP_FAILED)
			return -1;
	}
	return 0;
}

/* Wait until *word >= @phase; false on timeout. */
static bool wait_word(volatile uint64_t *word, uint64_t phase)
{
	uint64_t deadline = now_ms() + PEER_WAIT_S * 1000ULL;

	while (__atomic_load_n(word, __ATOMIC_ACQUIRE) < phase) {
		if (now_ms() > deadline)
			return false;
		usleep(1000);
	}
	return true;
}

/* Both nodes export and import: tell the peer our phase, wait for its. */
static bool pair_barrier(struct pair *p, uint64_t phase)
{
	__atomic_store_n(&p->remote[PAIR_CTL], phase, __ATOMIC_RELEASE);
	return wait_word(&p->local[PAIR_CTL], phase);
}

FIXTURE(peer) {
	int fd;
	struct snode_info info;
	int peer;
};

FIXTURE_SETUP(peer)
{
	self->peer = peer_node();
	if (self->peer < 0)
		SKIP(return, "SNODE_PEER is not set: no peer node");
	self->fd = sn_open_info(SNODE_DEV, &self->info);
	ASSERT_LE(0, self->fd);
}

FIXTURE_TEARDOWN(peer)
{
	if (self->peer >= 0)
		close(self->fd);
}

#define PAIR_LEN	SZ_64M

/* the first and last bytes of a large window and random offsets */
TEST_F_TIMEOUT(peer, data_both_ways, 600)
{
	volatile uint8_t *lb, *rb;
	uint64_t words = PAIR_LEN / 8, i, w;
	uint64_t me = self->info.out_node_id, peer = self->peer;
	unsigned int seed;
	struct pair p;

	SKIP_IF_SKIPPED();

	ASSERT_EQ(0, pair_setup(&p, self->fd, 0xda7a, PAIR_LEN, true, true));
	lb = (volatile uint8_t *)p.local;
	rb = (volatile uint8_t *)p.remote;
	/* each node fills its own memory with its pattern */
	lb[0] = 0xa0 | me;
	lb[PAIR_LEN - 1] = 0xb0 | me;
	seed = 1234;
	for (i = 0; i < 4096; i++) {
		w = PAIR_CTL + 8 + rand_r(&seed) % (words - PAIR_CTL - 9);
		p.local[w] = me << 40 | w;
	}
	ASSERT_TRUE(pair_barrier(&p, 1));
	/* and reads the peer's through its window */
	EXPECT_EQ(0xa0 | peer, rb[0]);
	EXPECT_EQ(0xb0 | peer, rb[PAIR_LEN - 1]);
	seed = 1234;
	for (i = 0; i < 4096; i++) {
		w = PAIR_CTL + 8 + rand_r(&seed) % (words - PAIR_CTL - 9);
		ASSERT_EQ(peer << 40 | w, p.remote[w]);
	}
	ASSERT_TRUE(pair_barrier(&p, 2));
	/* now each writes into the peer's memory, which checks it */
	rb[0] = 0xc0 | me;
	rb[PAIR_LEN - 1] = 0xd0 | me;
	seed = 99 + me;
	for (i = 0; i < 4096; i++) {
		w = PAIR_CTL + 8 + rand_r(&seed) % (words - PAIR_CTL - 9);
		p.remote[w] = ~(me << 40 | w);
	}
	ASSERT_TRUE(pair_barrier(&p, 3));
	EXPECT_EQ(0xc0 | peer, lb[0]);
	EXPECT_EQ(0xd0 | peer, lb[PAIR_LEN - 1]);
	seed = 99 + peer;
	for (i = 0; i < 4096; i++) {
		w = PAIR_CTL + 8 + rand_r(&seed) % (words - PAIR_CTL - 9);
		ASSERT_EQ(~(peer << 40 | w), p.local[w]);
	}
	ASSERT_TRUE(pair_barrier(&p, 4));
}

/* both nodes add to one counter with atomic instructions */
TEST_F_TIMEOUT(peer, atomics, 600)
{
	const uint64_t n = 200000;
	volatile uint64_t *counter;
	struct pair p;
	uint64_t i;
	bool owner = self->info.out_node_id < (uint32_t)self->peer;

	SKIP_IF_SKIPPED();

	ASSERT_EQ(0, pair_setup(&p, self->fd, 0xa70, SZ_2M, true, true));
	/* the counter lives in the lower node's memory */
	counter = owner ? &p.local[PAIR_CTL + 8] : &p.remote[PAIR_CTL + 8];
	ASSERT_TRUE(pair_barrier(&p, 1));
	for (i = 0; i < n; i++)
		__atomic_fetch_add(counter, 1, __ATOMIC_RELAXED);
	ASSERT_TRUE(pair_barrier(&p, 2));
	EXPECT_EQ(2 * n, __atomic_load_n(counter, __ATOMIC_SEQ_CST));
	ASSERT_TRUE(pair_barrier(&p, 3));
}

#define SEQ_WORDS	32
#define SEQ_ROUNDS	100000

/* a seqlock-style record: the reader never sees a torn one */
TEST_F_TIMEOUT(peer, seqlock, 600)
{
	bool writer = self->info.out_node_id < (uint32_t)self->peer;
	volatile uint64_t *rec;
	uint64_t i, w, torn = 0, seen = 0, s1, s2;
	struct pair p;

	SKIP_IF_SKIPPED();

	ASSERT_EQ(0, pair_setup(&p, self->fd, 0x5e9, SZ_2M, true, true));
	/* the record lives in the reader's memory: the writer goes remote */
	rec = writer ? &p.remote[PAIR_CTL + 64] : &p.local[PAIR_CTL + 64];
	ASSERT_TRUE(pair_barrier(&p, 1));
	if (writer) {
		for (i = 1; i <= SEQ_ROUNDS; i++) {
			__atomic_store_n(&rec[0], 2 * i - 1, __ATOMIC_RELAXED);
			__atomic_thread_fence(__ATOMIC_RELEASE);
			for (w = 1; w <= SEQ_WORDS; w++)
				__atomic_store_n(&rec[w], i, __ATOMIC_RELAXED);
			__atomic_store_n(&rec[0], 2 * i, __ATOMIC_RELEASE);
		}
	} else {
		do {
			uint64_t v[SEQ_WORDS + 1];

			s1 = __atomic_load_n(&rec[0], __ATOMIC_ACQUIRE);
			if (s1 & 1)
				continue;
			for (w = 1; w <= SEQ_WORDS; w++)
				v[w] = __atomic_load_n(&rec[w],
						       __ATOMIC_RELAXED);
			__atomic_thread_fence(__ATOMIC_ACQUIRE);
			s2 = __atomic_load_n(&rec[0], __ATOMIC_RELAXED);
			if (s1 != s2)
				continue;
			seen++;
			for (w = 1; w <= SEQ_WORDS; w++)
				torn += v[w] != s1 / 2;
		} while (s1 != 2 * SEQ_ROUNDS);
		TH_LOG("%llu consistent reads, %llu torn words",
		       (unsigned long long)seen, (unsigned long long)torn);
		EXPECT_EQ(0, torn);
		EXPECT_LE(1, seen);
	}
	ASSERT_TRUE(pair_barrier(&p, 2));
}

/* cross-node refusals: wrong key, node not admitted, read-only */
TEST_F_TIMEOUT(peer, permissions, 600)
{
	bool exporter = self->info.out_node_id < (uint32_t)self->peer;
	uint32_t me = self->info.out_node_id;
	struct snode_mem_export exp;
	volatile uint64_t *ctl;
	uint64_t *local, off;
	struct pair p;
	int ifd;

	SKIP_IF_SKIPPED();

	if (exporter) {
		/* 0: read-write, the meeting point; 1: read-only; 2: only me */
		local = export_local(self->fd, SZ_64K, SNODE_EXPORT_WRITE,
				     0x9e0, &exp);
		ASSERT_NE(NULL, local);
		ASSERT_EQ(0, exp.out_export_id);
		ASSERT_NE(NULL, export_local(self->fd, SZ_64K, 0, 0x9e1, &exp));
		memset(&exp, 0, sizeof(exp));
		exp.flags = SNODE_EXPORT_NODES;
		test_snode_alloc(SZ_4K, &off);
		exp.alloc = off;
		exp.key = 0x9e2;
		exp.length = SZ_4K;
		exp.nodes = (uintptr_t)&me;
		exp.nr_nodes = 1;
		test_snode_export(&exp);
		ASSERT_EQ(2, exp.out_export_id);
		/* wait for the importer's verdict */
		EXPECT_TRUE(wait_word(&local[PAIR_CTL + 1], 1));
		return;
	}
	memset(&p, 0, sizeof(p));
	p.fd = self->fd;
	p.peer = self->peer;
	ifd = pair_import(&p, 0x9e0, SNODE_IMPORT_WRITE, SZ_64K);
	ASSERT_LE(0, ifd);
	ctl = mmap(NULL, SZ_64K, PROT_READ | PROT_WRITE, MAP_SHARED, ifd, 0);
	ASSERT_NE(MAP_FAILED, ctl);
	/* exports 1 and 2 come right after 0: wait until 2 refuses us */
	EXPECT_EQ(-1, pair_import_id(&p, 2, 0x9e2, 0, SZ_4K));
	EXPECT_EQ(EACCES, errno);
	test_err_snode_import(EKEYREJECTED, 0, p.peer, 0, 0x9e1, 0, SZ_4K);
	test_err_snode_import(EROFS, SNODE_IMPORT_WRITE, p.peer, 1, 0x9e1, 0,
			      SZ_4K);
	EXPECT_LE(0, sn_import(self->fd, 0, p.peer, 1, 0x9e1, 0, SZ_4K));
	test_err_snode_import(EACCES, 0, p.peer, 2, 0x9e2, 0, SZ_4K);
	__atomic_store_n(&ctl[PAIR_CTL + 1], 1, __ATOMIC_RELEASE);
}

/*
 * The exporter withdraws one export, then exits, which withdraws the
 * others: the importer sees each window revoked with UNEXPORT.
 */
TEST_F_TIMEOUT(peer, remote_unexport_and_exit, 600)
{
	bool exporter = self->info.out_node_id < (uint32_t)self->peer;
	volatile uint64_t *ctl, *w1, *w2;
	struct snode_mem_export exp;
	uint64_t *local;
	int ifd0, ifd1, ifd2;
	struct pair p;

	SKIP_IF_SKIPPED();

	if (exporter) {
		/* 0: control, 1: withdrawn explicitly, 2: by exiting */
		local = export_local(self->fd, SZ_64K, SNODE_EXPORT_WRITE,
				     0x9f0, &exp);
		ASSERT_NE(NULL, local);
		ASSERT_EQ(0, exp.out_export_id);
		ASSERT_NE(NULL, export_local(self->fd, SZ_2M, 0, 0x9f1, &exp));
		ASSERT_NE(NULL, export_local(self->fd, SZ_2M, 0, 0x9f2, &exp));
		ASSERT_TRUE(wait_word(&local[PAIR_CTL + 1], 1));
		test_snode_unexport(1);
		ASSERT_TRUE(wait_word(&local[PAIR_CTL + 2], 1));
		return;	/* exiting withdraws 0 and 2 */
	}
	memset(&p, 0, sizeof(p));
	p.fd = self->fd;
	p.peer = self->peer;
	ifd0 = pair_import(&p, 0x9f0, SNODE_IMPORT_WRITE, SZ_64K);
	ASSERT_LE(0, ifd0);
	ctl = mmap(NULL, SZ_64K, PROT_READ | PROT_WRITE, MAP_SHARED, ifd0, 0);
	ASSERT_NE(MAP_FAILED, ctl);
	/* 1 and 2 are exported right after 0 */
	ifd1 = pair_import_id(&p, 1, 0x9f1, 0, SZ_2M);
	ASSERT_LE(0, ifd1);
	ifd2 = pair_import_id(&p, 2, 0x9f2, 0, SZ_2M);
	ASSERT_LE(0, ifd2);
	w1 = mmap(NULL, SZ_2M, PROT_READ, MAP_SHARED, ifd1, 0);
	w2 = mmap(NULL, SZ_2M, PROT_READ, MAP_SHARED, ifd2, 0);
	ASSERT_NE(MAP_FAILED, w1);
	ASSERT_NE(MAP_FAILED, w2);
	EXPECT_EQ(0, w1[0] + w2[0]);

	__atomic_store_n(&ctl[PAIR_CTL + 1], 1, __ATOMIC_RELEASE);
	check_revoked(_metadata, ifd1, w1, SNODE_REVOKE_REASON_UNEXPORT, false,
		      false);
	EXPECT_EQ(0, wait_revoked(ifd2, 0));
	__atomic_store_n(&ctl[PAIR_CTL + 2], 1, __ATOMIC_RELEASE);
	check_revoked(_metadata, ifd2, w2, SNODE_REVOKE_REASON_UNEXPORT, false,
		      false);
	check_revoked(_metadata, ifd0, ctl, SNODE_REVOKE_REASON_UNEXPORT,
		      false, true);
	close(ifd0);
	close(ifd1);
	close(ifd2);
}

/* ---- host memory exports (SNODE_EXPORT_HOST) ------------------------------------ */

static int _snode_export_host(int fd, void *addr, uint64_t len, uint32_t flags,
			      uint64_t key, struct snode_mem_export *exp)
{
	memset(exp, 0, sizeof(*exp));
	exp->flags = flags | SNODE_EXPORT_HOST;
	exp->offset = (uintptr_t)addr;
	exp->length = len;
	exp->key = key;
	return _snode_export(fd, exp);
}

static uint32_t export_count(int fd)
{
	uint32_t n = 0;

	if (_snode_list(fd, MEM_LIST_EXPORTS, NULL, &n))
		return ~0u;
	return n;
}

/* Extents of host export @id (debugfs mem/exports), -1 if not found. */
static int host_extents(uint32_t id)
{
	FILE *f = fopen("/sys/kernel/debug/snode/snode0/mem/exports", "r");
	char line[512];
	unsigned int e, n;
	int ret = -1;

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "export %u state %*u %*s host extents %u",
			   &e, &n) == 2 && e == id)
			ret = n;
	fclose(f);
	return ret;
}

/* @len of hugetlb memory; reserves huge pages if there are none. NULL: none. */
static void *huge_buf(uint64_t len)
{
	void *p = mmap(NULL, len, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS | MAP_HUGETLB, -1, 0);
	FILE *f;

	if (p != MAP_FAILED)
		return p;
	f = fopen("/proc/sys/vm/nr_hugepages", "w");
	if (!f)
		return NULL;
	fprintf(f, "%llu\n", (unsigned long long)(len / SZ_2M + 4));
	fclose(f);
	p = mmap(NULL, len, PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS | MAP_HUGETLB, -1, 0);
	return p == MAP_FAILED ? NULL : p;
}

/* the node's own malloc'd memory through a window, both ways, then revoked */
TEST_F(mem, host_export_self)
{
	struct snode_mem_export exp;
	volatile uint64_t *win;
	uint64_t *buf, i;
	long locked;
	int ifd;

	SKIP_IF_SKIPPED();
	if (!(self->info.out_caps & SNODE_CAP_HOST_EXPORT))
		SKIP(return, "the NIC cannot export host memory");

	locked = vm_locked_kib();
	buf = aligned_alloc(SZ_4K, SZ_2M);
	ASSERT_NE(NULL, buf);
	for (i = 0; i < SZ_2M / 8; i++)
		buf[i] = 0x4057ULL << 32 | i;
	ASSERT_EQ(0, _snode_export_host(self->fd, buf, SZ_2M,
					SNODE_EXPORT_WRITE, 0x4057, &exp));
	EXPECT_EQ(locked + (long)(SZ_2M >> 10), vm_locked_kib());
	test_snode_import(ifd, SNODE_IMPORT_WRITE, NODE, exp.out_export_id,
			  0x4057, 0, SZ_2M);
	win = mmap(NULL, SZ_2M, PROT_READ | PROT_WRITE, MAP_SHARED, ifd, 0);
	ASSERT_NE(MAP_FAILED, win);
	for (i = 0; i < SZ_2M / 8; i += 509)
		ASSERT_EQ(0x4057ULL << 32 | i, win[i]);
	win[1] = 0xfeed;
	EXPECT_EQ(0xfeed, __atomic_load_n(&buf[1], __ATOMIC_SEQ_CST));
	buf[2] = 0xbeef;
	EXPECT_EQ(0xbeef, win[2]);
	/* freeing the buffer frees nothing the window reaches */
	/* volatile: the compiler drops plain stores to memory being freed */
	((volatile uint64_t *)buf)[3] = 0x3333;
	free(buf);
	EXPECT_EQ(0x3333, win[3]);
	test_snode_unexport(exp.out_export_id);
	check_revoked(_metadata, ifd, win, SNODE_REVOKE_REASON_UNEXPORT, false,
		      true);
	EXPECT_EQ(locked, vm_locked_kib());
	munmap((void *)win, SZ_2M);
	close(ifd);
}

struct adder {
	volatile uint64_t *word;
	uint64_t n;
};

static void *adder_run(void *arg)
{
	struct adder *a = arg;
	uint64_t i;

	for (i = 0; i < a->n; i++)
		__atomic_fetch_add(a->word, 1, __ATOMIC_RELAXED);
	return NULL;
}

/* hugetlb memory: a window's atomics against the CPU's own, exactly */
TEST_F(mem, host_export_hugetlb_atomics)
{
	const uint64_t n = 100000;
	struct snode_mem_export exp;
	volatile uint64_t *win;
	struct adder a, b;
	pthread_t t;
	uint64_t *buf;
	int ifd;

	SKIP_IF_SKIPPED();
	if (!(self->info.out_caps & SNODE_CAP_HOST_EXPORT))
		SKIP(return, "the NIC cannot export host memory");
	if (access("/proc/sys/vm/nr_hugepages", F_OK))
		SKIP(return, "the kernel has no hugetlb pages (CONFIG_HUGETLBFS)");
	buf = huge_buf(2 * SZ_2M);
	if (!buf)
		SKIP(return, "no hugetlb pages and none can be reserved");
	memset(buf, 0, 2 * SZ_2M);
	ASSERT_EQ(0, _snode_export_host(self->fd, buf, 2 * SZ_2M,
					SNODE_EXPORT_WRITE, 0x4060, &exp));
	/* each huge page is one extent, or both one if they are neighbours */
	EXPECT_LE(1, host_extents(exp.out_export_id));
	EXPECT_GE(2, host_extents(exp.out_export_id));
	test_snode_import(ifd, SNODE_IMPORT_WRITE, NODE, exp.out_export_id,
			  0x4060, 0, 2 * SZ_2M);
	win = mmap(NULL, 2 * SZ_2M, PROT_READ | PROT_WRITE, MAP_SHARED, ifd,
		   0);
	ASSERT_NE(MAP_FAILED, win);
	/* the second huge page's last word, through the window and directly */
	a = (struct adder){ &win[2 * SZ_2M / 8 - 1], n };
	b = (struct adder){ &buf[2 * SZ_2M / 8 - 1], n };
	ASSERT_EQ(0, pthread_create(&t, NULL, adder_run, &a));
	adder_run(&b);
	ASSERT_EQ(0, pthread_join(t, NULL));
	EXPECT_EQ(2 * n, __atomic_load_n(&buf[2 * SZ_2M / 8 - 1],
					  __ATOMIC_SEQ_CST));
	munmap((void *)win, 2 * SZ_2M);
	close(ifd);
	test_snode_unexport(exp.out_export_id);
	munmap(buf, 2 * SZ_2M);
}

/* a reset of the NIC restores a host export from the driver's extent list */
TEST_F(mem, host_export_reset)
{
	struct snode_mem_export exp;
	volatile uint64_t *win;
	uint64_t *buf;
	int ifd, rfd;

	SKIP_IF_SKIPPED();
	if (!(self->info.out_caps & SNODE_CAP_HOST_EXPORT))
		SKIP(return, "the NIC cannot export host memory");
	rfd = open(SNODE_RESET, O_WRONLY);
	if (rfd < 0)
		SKIP(return, "no %s", SNODE_RESET);
	buf = aligned_alloc(SZ_4K, SZ_64K);
	ASSERT_NE(NULL, buf);
	buf[0] = 0x4e5e7;
	ASSERT_EQ(0, _snode_export_host(self->fd, buf, SZ_64K, 0, 0x4070,
					&exp));
	test_snode_import(ifd, 0, NODE, exp.out_export_id, 0x4070, 0, SZ_64K);
	win = mmap(NULL, SZ_64K, PROT_READ, MAP_SHARED, ifd, 0);
	ASSERT_NE(MAP_FAILED, win);
	EXPECT_EQ(0x4e5e7, win[0]);
	ASSERT_EQ(1, write(rfd, "1", 1));
	close(rfd);
	check_revoked(_metadata, ifd, win, SNODE_REVOKE_REASON_LOCAL_RESET,
		      false, false);
	munmap((void *)win, SZ_64K);
	close(ifd);
	buf[0] = 0x4e5e8;
	test_snode_import(ifd, 0, NODE, exp.out_export_id, 0x4070, 0, SZ_64K);
	win = mmap(NULL, SZ_64K, PROT_READ, MAP_SHARED, ifd, 0);
	ASSERT_NE(MAP_FAILED, win);
	EXPECT_EQ(0x4e5e8, win[0]);
	munmap((void *)win, SZ_64K);
	close(ifd);
	test_snode_unexport(exp.out_export_id);
	free(buf);
}

/* bad ranges fail with the documented errno and change nothing */
TEST_F(mem, host_export_bad)
{
	struct snode_mem_export exp;
	uint32_t exports;
	long locked;
	char *buf, *hole;

	SKIP_IF_SKIPPED();
	if (!(self->info.out_caps & SNODE_CAP_HOST_EXPORT))
		SKIP(return, "the NIC cannot export host memory");

	/* four mapped pages, then four unmapped ones */
	buf = mmap(NULL, 8 * SZ_4K, PROT_READ | PROT_WRITE,
		   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, buf);
	hole = buf + 4 * SZ_4K;
	ASSERT_EQ(0, munmap(hole, 4 * SZ_4K));
	locked = vm_locked_kib();
	exports = export_count(self->fd);

	EXPECT_ERRNO(EINVAL, _snode_export_host(self->fd, buf + 8, SZ_4K, 0,
						1, &exp));
	EXPECT_ERRNO(EINVAL, _snode_export_host(self->fd, buf, 100, 0, 1,
						&exp));
	EXPECT_ERRNO(EINVAL, _snode_export_host(self->fd, buf, 0, 0, 1, &exp));
	/* wraps around the top of the address space */
	EXPECT_ERRNO(EINVAL, _snode_export_host(self->fd,
						(void *)-(intptr_t)SZ_4K,
						2 * SZ_4K, 0, 1, &exp));
	/* an allocation together with HOST */
	exp.alloc = SZ_4K;
	exp.flags = SNODE_EXPORT_HOST;
	exp.offset = (uintptr_t)buf;
	exp.length = SZ_4K;
	EXPECT_ERRNO(EINVAL, _snode_export(self->fd, &exp));
	/* unmapped memory, wholly and in part */
	EXPECT_ERRNO(EFAULT, _snode_export_host(self->fd, hole, SZ_4K, 0, 1,
						&exp));
	EXPECT_ERRNO(EFAULT, _snode_export_host(self->fd, buf, 8 * SZ_4K, 0, 1,
						&exp));
	/* the kernel's half of the address space */
	EXPECT_ERRNO(EFAULT, _snode_export_host(self->fd,
						(void *)0xffff888000000000ULL,
						SZ_4K, 0, 1, &exp));
	EXPECT_EQ(locked, vm_locked_kib());
	EXPECT_EQ(exports, export_count(self->fd));
	munmap(buf, 4 * SZ_4K);
}

/* RLIMIT_MEMLOCK is enforced: ENOMEM, and nothing stays charged or pinned */
TEST_F(mem, host_export_memlock)
{
	struct snode_mem_export exp;
	int status;
	pid_t pid;

	SKIP_IF_SKIPPED();
	if (!(self->info.out_caps & SNODE_CAP_HOST_EXPORT))
		SKIP(return, "the NIC cannot export host memory");

	pid = fork();
	ASSERT_LE(0, pid);
	if (!pid) {
		struct rlimit rl = { 256 << 10, 256 << 10 };
		long locked = vm_locked_kib();
		uint32_t exports = export_count(self->fd);
		void *buf = aligned_alloc(SZ_4K, SZ_2M);

		if (!buf || drop_ipc_lock(true) || setrlimit(RLIMIT_MEMLOCK, &rl))
			_exit(10);
		memset(buf, 1, SZ_2M);
		if (_snode_export_host(self->fd, buf, SZ_2M, 0, 2, &exp) != -1 ||
		    errno != ENOMEM)
			_exit(11);
		if (vm_locked_kib() != locked || export_count(self->fd) != exports)
			_exit(12);
		/* within the limit it works, and is charged */
		if (_snode_export_host(self->fd, buf, 64 << 10, 0, 2, &exp))
			_exit(13);
		if (vm_locked_kib() != locked + 64)
			_exit(14);
		if (_snode_unexport(self->fd, exp.out_export_id) ||
		    vm_locked_kib() != locked)
			_exit(15);
		_exit(0);
	}
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	ASSERT_TRUE(WIFEXITED(status));
	EXPECT_EQ(0, WEXITSTATUS(status));
}

/* ---- host memory across nodes -------------------------------------------------- */

/*
 * Each node exports a malloc'd buffer (id 0) and a hugetlb one (id 1, if
 * the guest has or can reserve huge pages) and maps the peer's: plain
 * loads see the peer's pattern, plain stores land in the peer's memory,
 * and 2 x 100000 atomics on the lower node's buffers, one node through its
 * CPU and the other through its window, count exactly.
 */
TEST_F_TIMEOUT(peer, host_data_and_atomics, 600)
{
	const uint64_t n = 100000, len = 2 * SZ_2M, words = len / 8;
	bool owner = self->info.out_node_id < (uint32_t)self->peer;
	uint64_t me = self->info.out_node_id, i, w, k;
	struct snode_mem_export e0, e1;
	volatile uint64_t *bufs[2], *wins[2], *c;
	struct pair p;
	unsigned int seed;
	bool huge;
	int ifd1;

	SKIP_IF_SKIPPED();
	if (!(self->info.out_caps & SNODE_CAP_HOST_EXPORT))
		SKIP(return, "the NIC cannot export host memory");

	bufs[0] = aligned_alloc(SZ_4K, len);
	ASSERT_NE(NULL, bufs[0]);
	bufs[1] = huge_buf(len);
	huge = bufs[1];
	if (!huge)
		bufs[1] = aligned_alloc(SZ_4K, len);	/* keeps ids in step */
	ASSERT_NE(NULL, bufs[1]);
	for (k = 0; k < 2; k++)
		for (i = 0; i < words; i++)
			bufs[k][i] = me << 40 | k << 32 | i;
	bufs[0][PAIR_CTL] = 0;
	ASSERT_EQ(0, _snode_export_host(self->fd, (void *)bufs[0], len,
					SNODE_EXPORT_WRITE, 0x40a0, &e0));
	ASSERT_EQ(0, e0.out_export_id);
	ASSERT_EQ(0, _snode_export_host(self->fd, (void *)bufs[1], len,
					SNODE_EXPORT_WRITE, 0x40a1, &e1));
	ASSERT_EQ(1, e1.out_export_id);

	memset(&p, 0, sizeof(p));
	p.fd = self->fd;
	p.peer = self->peer;
	p.local = bufs[0];
	p.ifd = pair_import(&p, 0x40a0, SNODE_IMPORT_WRITE, len);
	ASSERT_LE(0, p.ifd);
	ifd1 = pair_import_id(&p, 1, 0x40a1, SNODE_IMPORT_WRITE, len);
	ASSERT_LE(0, ifd1);
	wins[0] = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, p.ifd, 0);
	wins[1] = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, ifd1, 0);
	ASSERT_NE(MAP_FAILED, wins[0]);
	ASSERT_NE(MAP_FAILED, wins[1]);
	p.remote = wins[0];
	ASSERT_TRUE(pair_barrier(&p, 1));

	/* loads: the peer's pattern, first and last words and random ones */
	seed = 42;
	for (k = 0; k < 2; k++)
		for (i = 0; i < 2048; i++) {
			w = i == 0 ? PAIR_CTL + 8 : i == 1 ? words - 1 :
			    PAIR_CTL + 8 + rand_r(&seed) % (words - PAIR_CTL - 8);
			ASSERT_EQ((uint64_t)self->peer << 40 | k << 32 | w,
				  wins[k][w]);
		}
	/* stores: the peer sees ours in its own memory */
	for (k = 0; k < 2; k++)
		for (w = PAIR_CTL + 16; w < words; w += 257)
			wins[k][w] = ~(me << 40 | k << 32 | w);
	ASSERT_TRUE(pair_barrier(&p, 2));
	for (k = 0; k < 2; k++)
		for (w = PAIR_CTL + 16; w < words; w += 257)
			ASSERT_EQ(~((uint64_t)self->peer << 40 | k << 32 | w),
				  bufs[k][w]);
	ASSERT_TRUE(pair_barrier(&p, 3));

	/* atomics: the lower node's CPU against the higher node's window */
	for (k = 0; k < 2; k++) {
		c = owner ? &bufs[k][PAIR_CTL + 8] : &wins[k][PAIR_CTL + 8];
		if (owner)
			__atomic_store_n(c, 0, __ATOMIC_SEQ_CST);
		ASSERT_TRUE(pair_barrier(&p, 4 + 3 * k));
		for (i = 0; i < n; i++)
			__atomic_fetch_add(c, 1, __ATOMIC_RELAXED);
		ASSERT_TRUE(pair_barrier(&p, 5 + 3 * k));
		EXPECT_EQ(2 * n, __atomic_load_n(c, __ATOMIC_SEQ_CST));
		ASSERT_TRUE(pair_barrier(&p, 6 + 3 * k));
	}
	if (!huge)
		TH_LOG("no hugetlb pages: the second buffer was malloc'd");
}

/*
 * Revocation of host exports seen by the peer: the exporter unexports one
 * (UNEXPORT), a child that exported one is killed with SIGKILL, and the
 * rest go when the exporter exits; each ends in SIGBUS on the importer,
 * or in the zero page for the import that asked for it.
 */
TEST_F_TIMEOUT(peer, host_remote_revoke, 600)
{
	bool exporter = self->info.out_node_id < (uint32_t)self->peer;
	volatile uint64_t *ctl, *w1, *w2, *w3;
	struct snode_mem_export exp;
	int ifd0, ifd1, ifd2, ifd3, pipefd[2];
	uint64_t *b[3];
	struct pair p;
	pid_t child;
	char c;

	SKIP_IF_SKIPPED();
	if (!(self->info.out_caps & SNODE_CAP_HOST_EXPORT))
		SKIP(return, "the NIC cannot export host memory");

	if (exporter) {
		/* 0: control, 1: unexported, 2: by exiting, 3: a child killed */
		for (int i = 0; i < 3; i++) {
			b[i] = aligned_alloc(SZ_4K, SZ_64K);
			ASSERT_NE(NULL, b[i]);
			memset(b[i], 0, SZ_64K);
			ASSERT_EQ(0, _snode_export_host(self->fd, b[i], SZ_64K,
							i ? 0 : SNODE_EXPORT_WRITE,
							0x9e0 + i, &exp));
			ASSERT_EQ(i, exp.out_export_id);
		}
		ASSERT_EQ(0, pipe(pipefd));
		child = fork();
		ASSERT_LE(0, child);
		if (!child) {
			int fd = open(SNODE_DEV, O_RDWR);
			void *m = aligned_alloc(SZ_4K, SZ_64K);

			if (fd < 0 || !m || (memset(m, 0, SZ_64K), 0) ||
			    _snode_export_host(fd, m, SZ_64K, 0, 0x9e3, &exp) ||
			    exp.out_export_id != 3)
				_exit(1);
			if (write(pipefd[1], "x", 1) != 1)
				_exit(1);
			for (;;)
				pause();
		}
		ASSERT_EQ(1, read(pipefd[0], &c, 1));
		ASSERT_TRUE(wait_word(&b[0][PAIR_CTL + 1], 1));
		test_snode_unexport(1);
		ASSERT_TRUE(wait_word(&b[0][PAIR_CTL + 3], 1));
		kill(child, SIGKILL);
		waitpid(child, NULL, 0);
		ASSERT_TRUE(wait_word(&b[0][PAIR_CTL + 2], 1));
		return;	/* exiting withdraws 0 and 2 */
	}
	memset(&p, 0, sizeof(p));
	p.fd = self->fd;
	p.peer = self->peer;
	ifd0 = pair_import(&p, 0x9e0, SNODE_IMPORT_WRITE, SZ_64K);
	ASSERT_LE(0, ifd0);
	ctl = mmap(NULL, SZ_64K, PROT_READ | PROT_WRITE, MAP_SHARED, ifd0, 0);
	ASSERT_NE(MAP_FAILED, ctl);
	ifd1 = pair_import_id(&p, 1, 0x9e1, 0, SZ_64K);
	ifd2 = pair_import_id(&p, 2, 0x9e2, 0, SZ_64K);
	/* the killed exporter's window reads zeros afterwards */
	ifd3 = pair_import_id(&p, 3, 0x9e3, SNODE_IMPORT_ZERO_PAGE_ON_REVOKE,
			      SZ_64K);
	ASSERT_LE(0, ifd1);
	ASSERT_LE(0, ifd2);
	ASSERT_LE(0, ifd3);
	w1 = mmap(NULL, SZ_64K, PROT_READ, MAP_SHARED, ifd1, 0);
	w2 = mmap(NULL, SZ_64K, PROT_READ, MAP_SHARED, ifd2, 0);
	w3 = mmap(NULL, SZ_64K, PROT_READ, MAP_SHARED, ifd3, 0);
	ASSERT_NE(MAP_FAILED, w1);
	ASSERT_NE(MAP_FAILED, w2);
	ASSERT_NE(MAP_FAILED, w3);
	EXPECT_EQ(0, w1[0] + w2[0] + w3[0]);

	__atomic_store_n(&ctl[PAIR_CTL + 1], 1, __ATOMIC_RELEASE);
	check_revoked(_metadata, ifd1, w1, SNODE_REVOKE_REASON_UNEXPORT, false,
		      false);
	EXPECT_EQ(0, wait_revoked(ifd3, 0));
	__atomic_store_n(&ctl[PAIR_CTL + 3], 1, __ATOMIC_RELEASE);
	check_revoked(_metadata, ifd3, w3, SNODE_REVOKE_REASON_UNEXPORT, true,
		      false);
	EXPECT_EQ(0, wait_revoked(ifd2, 0));
	__atomic_store_n(&ctl[PAIR_CTL + 2], 1, __ATOMIC_RELEASE);
	check_revoked(_metadata, ifd2, w2, SNODE_REVOKE_REASON_UNEXPORT, false,
		      false);
	check_revoked(_metadata, ifd0, ctl, SNODE_REVOKE_REASON_UNEXPORT,
		      false, true);
	close(ifd0);
	close(ifd1);
	close(ifd2);
	close(ifd3);
}

/* ---- last: nothing leaked ---------------------------------------------------- */

TEST_F(mem, zz_pool_whole)
{
	uint32_t n;
	uint64_t size;

	SKIP_IF_SKIPPED();

	EXPECT_EQ(pool_free(self->fd, &size), size);
	n = 0;
	ASSERT_EQ(0, _snode_list(self->fd, MEM_LIST_IMPORTS, NULL, &n));
	EXPECT_EQ(0, n);
	n = 0;
	ASSERT_EQ(0, _snode_list(self->fd, MEM_LIST_ATT, NULL, &n));
	EXPECT_EQ(0, n);
	n = 0;
	ASSERT_EQ(0, _snode_list(self->fd, MEM_LIST_EXPORTS, NULL, &n));
	EXPECT_EQ(0, n);
}

TEST_HARNESS_MAIN
