// SPDX-License-Identifier: GPL-2.0
/*
 * snode core selftests: the INFO ioctl and its ABI rules, sysfs identity,
 * hwmon, function-level reset, several NICs, module pinning by open files.
 *
 * Runs as root in a guest with snode.ko loaded; /dev/snode0 must exist.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <linux/snode.h>

#include "kselftest_harness.h"

#define SNODE_DEV		"/dev/snode"
#define SNODE_CLASS		"/sys/class/snode/snode"
#define SNODE_DEBUGFS		"/sys/kernel/debug/snode/snode"
#define SNODE_SCRATCH_COOKIE	0x736e6f64u
#define DIR_LEN			512

#ifndef offsetofend
#define offsetofend(TYPE, MEMBER) \
	(offsetof(TYPE, MEMBER) + sizeof(((TYPE *)0)->MEMBER))
#endif

#define EXPECT_ERRNO(expected_errno, cmd)		\
	({						\
		int _ret = (cmd);			\
		EXPECT_EQ(-1, _ret);			\
		EXPECT_EQ(expected_errno, errno);	\
	})

static int _snode_info(int fd, struct snode_info *info)
{
	if (!info->size)
		info->size = sizeof(*info);
	return ioctl(fd, SNODE_IOCTL_INFO, info);
}

#define test_snode_info(info) ASSERT_EQ(0, _snode_info(self->fd, info))
#define test_err_snode_info(_errno, info) \
	EXPECT_ERRNO(_errno, _snode_info(self->fd, info))

/* Read a sysfs/debugfs file into buf; returns bytes read or -errno. */
static int read_file(const char *path, char *buf, size_t len)
{
	ssize_t n;
	int fd;

	fd = open(path, O_RDONLY);
	if (fd < 0)
		return -errno;
	n = read(fd, buf, len - 1);
	if (n < 0)
		n = -errno;
	else
		buf[n] = '\0';
	close(fd);
	return n;
}

static int write_file(const char *path, const char *val)
{
	ssize_t n;
	int fd;

	fd = open(path, O_WRONLY);
	if (fd < 0)
		return -errno;
	n = write(fd, val, strlen(val));
	if (n < 0)
		n = -errno;
	close(fd);
	return n < 0 ? n : 0;
}

static int read_attr(int index, const char *attr, char *buf, size_t len)
{
	char path[PATH_MAX];
	int n;

	snprintf(path, sizeof(path), SNODE_CLASS "%d/%s", index, attr);
	n = read_file(path, buf, len);
	if (n > 0 && buf[n - 1] == '\n')
		buf[n - 1] = '\0';
	return n;
}

static unsigned long long read_attr_ull(int index, const char *attr)
{
	char buf[128];

	if (read_attr(index, attr, buf, sizeof(buf)) <= 0)
		return ULLONG_MAX;
	return strtoull(buf, NULL, 0);
}

/* PCI address of snodeN, from its "device" link. */
static int snode_bdf(int index, char *bdf, size_t len)
{
	char path[PATH_MAX], target[PATH_MAX];
	ssize_t n;
	char *slash;

	snprintf(path, sizeof(path), SNODE_CLASS "%d/device", index);
	n = readlink(path, target, sizeof(target) - 1);
	if (n < 0)
		return -errno;
	target[n] = '\0';
	slash = strrchr(target, '/');
	snprintf(bdf, len, "%s", slash ? slash + 1 : target);
	return 0;
}

/* The hwmon directory of snodeN's PCI function, or -ENOENT. */
static int snode_hwmon_dir(int index, char *dir, size_t len)
{
	char path[128];
	struct dirent *de;
	DIR *d;

	snprintf(path, sizeof(path), SNODE_CLASS "%d/device/hwmon", index);
	d = opendir(path);
	if (!d)
		return -errno;
	while ((de = readdir(d))) {
		if (strncmp(de->d_name, "hwmon", 5))
			continue;
		snprintf(dir, len, "%s/%s", path, de->d_name);
		closedir(d);
		return 0;
	}
	closedir(d);
	return -ENOENT;
}

static long long read_ll(const char *dir, const char *file)
{
	char path[PATH_MAX], buf[64];

	snprintf(path, sizeof(path), "%s/%s", dir, file);
	if (read_file(path, buf, sizeof(buf)) <= 0)
		return LLONG_MIN;
	return strtoll(buf, NULL, 0);
}

/* ECHO through debugfs: 0 if the admin queue answered correctly. */
static int snode_echo(int index, unsigned int val)
{
	char path[PATH_MAX], buf[64], want[64];
	ssize_t n;
	int fd, ret = 0;

	snprintf(path, sizeof(path), SNODE_DEBUGFS "%d/echo", index);
	fd = open(path, O_RDWR);
	if (fd < 0)
		return -errno;
	/* the value belongs to this open file */
	snprintf(buf, sizeof(buf), "0x%x", val);
	if (write(fd, buf, strlen(buf)) < 0) {
		ret = -errno;
		goto out;
	}
	n = read(fd, buf, sizeof(buf) - 1);
	if (n < 0) {
		ret = -errno;
		goto out;
	}
	buf[n] = '\0';
	snprintf(want, sizeof(want), "0x%08x 0x%08x\n", val, ~val);
	if (strcmp(buf, want))
		ret = -EPROTO;
out:
	close(fd);
	return ret;
}

/* A register from debugfs "regs" ("NAME = 0x...." lines). */
static long long snode_reg(int index, const char *name)
{
	char path[PATH_MAX], buf[4096], key[64];
	char *p;

	snprintf(path, sizeof(path), SNODE_DEBUGFS "%d/regs", index);
	if (read_file(path, buf, sizeof(buf)) <= 0)
		return -1;
	snprintf(key, sizeof(key), "\n%s = ", name);
	p = strstr(buf, key);
	if (!p && !strncmp(buf, key + 1, strlen(key + 1)))
		p = buf - 1;
	if (!p)
		return -1;
	return strtoll(p + strlen(key), NULL, 0);
}

FIXTURE(core) {
	int fd;
	int index;
};

FIXTURE_SETUP(core)
{
	self->index = 0;
	self->fd = open(SNODE_DEV "0", O_RDWR);
	ASSERT_LE(0, self->fd);
}

FIXTURE_TEARDOWN(core)
{
	if (self->fd >= 0)
		close(self->fd);
}

TEST_F(core, info)
{
	struct snode_info info = {};

	test_snode_info(&info);
	EXPECT_EQ(0, info.out_index);
	EXPECT_EQ(1, info.out_hw_version >> 16);
	ASSERT_NE(0, info.out_flags & SNODE_INFO_OUT_ATTACHED);
	EXPECT_LT(info.out_node_id, info.out_max_nodes);
	EXPECT_LE(1, info.out_nports);
	EXPECT_GE(8, info.out_nports);
	EXPECT_LT(0, info.out_att_entries);
	EXPECT_LT(0, info.out_export_entries);
	EXPECT_LT(0, info.out_aperture_size);
	EXPECT_LE(4096, info.out_pool_size);
	/* the pool is a power of two (contract section 5) */
	EXPECT_EQ(0, info.out_pool_size & (info.out_pool_size - 1));
	EXPECT_NE(0, info.out_serial[0]);
	EXPECT_EQ(0, info.out_serial[sizeof(info.out_serial) - 1]);
	EXPECT_EQ(0, info.out_fw_name[sizeof(info.out_fw_name) - 1]);
	EXPECT_EQ(0, info.__reserved);
}

TEST_F(core, info_matches_sysfs)
{
	struct snode_info info = {};
	char buf[128], want[64];

	test_snode_info(&info);
	EXPECT_EQ(info.out_node_id, read_attr_ull(0, "node_id"));
	EXPECT_EQ(info.out_fabric_id, read_attr_ull(0, "fabric_id"));
	EXPECT_EQ(info.out_nports, read_attr_ull(0, "nports"));
	EXPECT_EQ(info.out_max_nodes, read_attr_ull(0, "max_nodes"));
	EXPECT_EQ(info.out_att_entries, read_attr_ull(0, "att_entries"));
	EXPECT_EQ(info.out_export_entries, read_attr_ull(0, "export_entries"));
	EXPECT_EQ(info.out_endpoints, read_attr_ull(0, "endpoints"));
	EXPECT_EQ(info.out_max_dma_len, read_attr_ull(0, "max_dma_len"));
	EXPECT_EQ(info.out_aperture_size, read_attr_ull(0, "aperture_size"));
	EXPECT_EQ(info.out_pool_size, read_attr_ull(0, "pool_size"));
	EXPECT_EQ(info.out_caps, read_attr_ull(0, "caps"));

	ASSERT_LT(0, read_attr(0, "serial", buf, sizeof(buf)));
	EXPECT_STREQ(info.out_serial, buf);
	ASSERT_LT(0, read_attr(0, "fw_name", buf, sizeof(buf)));
	EXPECT_STREQ(info.out_fw_name, buf);
	ASSERT_LT(0, read_attr(0, "fw_version", buf, sizeof(buf)));
	snprintf(want, sizeof(want), "%u.%u.%u", info.out_fw_version >> 24,
		 (info.out_fw_version >> 16) & 0xff, info.out_fw_version & 0xffff);
	EXPECT_STREQ(want, buf);
	ASSERT_LT(0, read_attr(0, "state", buf, sizeof(buf)));
	EXPECT_STREQ("live", buf);
}

TEST_F(core, info_size_too_small)
{
	struct snode_info info = {};

	info.size = offsetofend(struct snode_info, out_fw_name) - 1;
	test_err_snode_info(EINVAL, &info);
	info.size = 4;
	test_err_snode_info(EINVAL, &info);
}

TEST_F(core, info_size_larger_zero_tail)
{
	struct {
		struct snode_info info;
		__u64 tail;
	} big = {};

	big.info.size = sizeof(big);
	test_snode_info(&big.info);
	/* the kernel writes only the structure it knows */
	EXPECT_EQ(0, big.tail);
	EXPECT_NE(0, big.info.out_nports);
}

TEST_F(core, info_size_nonzero_tail)
{
	struct {
		struct snode_info info;
		__u64 tail;
	} big = {};

	big.info.size = sizeof(big);
	big.tail = 1;
	test_err_snode_info(E2BIG, &big.info);
}

TEST_F(core, info_flags)
{
	struct snode_info info = {};

	info.flags = 1;
	test_err_snode_info(EOPNOTSUPP, &info);
	info.flags = 1u << 31;
	test_err_snode_info(EOPNOTSUPP, &info);
}

TEST_F(core, info_reserved)
{
	struct snode_info info = {};

	info.__reserved = 1;
	test_err_snode_info(EOPNOTSUPP, &info);
}

TEST_F(core, info_bad_pointer)
{
	EXPECT_ERRNO(EFAULT, ioctl(self->fd, SNODE_IOCTL_INFO, NULL));
	EXPECT_ERRNO(EFAULT, ioctl(self->fd, SNODE_IOCTL_INFO, (void *)8));
}

TEST_F(core, unknown_ioctl)
{
	struct snode_info info = { .size = sizeof(info) };

	EXPECT_ERRNO(ENOTTY, ioctl(self->fd, _IO(SNODE_TYPE, SNODE_CMD_BASE + 0x70), &info));
	EXPECT_ERRNO(ENOTTY, ioctl(self->fd, _IO(SNODE_TYPE, SNODE_CMD_BASE - 1), &info));
	/* the size is never encoded in an snode ioctl number */
	EXPECT_ERRNO(ENOTTY, ioctl(self->fd, _IOWR(SNODE_TYPE, SNODE_CMD_INFO,
						  struct snode_info), &info));
	EXPECT_ERRNO(ENOTTY, ioctl(self->fd, _IO('x', SNODE_CMD_INFO), &info));
}

TEST_F(core, echo)
{
	EXPECT_EQ(0, snode_echo(0, 0x1234abcd));
	EXPECT_EQ(0, snode_echo(0, 0));
	EXPECT_EQ(SNODE_SCRATCH_COOKIE, snode_reg(0, "SCRATCH"));
}

/* Several processes keep the admin queue busy at once; every answer is theirs. */
TEST_F(core, echo_parallel)
{
	const int nproc = 8, loops = 100;
	int i, status, failures = 0;
	pid_t pid;

	for (i = 0; i < nproc; i++) {
		pid = fork();
		ASSERT_LE(0, pid);
		if (!pid) {
			char path[PATH_MAX], buf[64], want[64];
			int fd, j, bad = 0;

			snprintf(path, sizeof(path), SNODE_DEBUGFS "0/echo");
			fd = open(path, O_RDWR);
			if (fd < 0)
				_exit(100);
			for (j = 0; j < loops; j++) {
				unsigned int val = (unsigned int)i << 16 | j;
				ssize_t n;

				snprintf(buf, sizeof(buf), "%u", val);
				if (write(fd, buf, strlen(buf)) < 0) {
					bad++;
					continue;
				}
				n = read(fd, buf, sizeof(buf) - 1);
				if (n <= 0) {
					bad++;
					continue;
				}
				buf[n] = '\0';
				snprintf(want, sizeof(want), "0x%08x 0x%08x\n", val, ~val);
				bad += !!strcmp(buf, want);
			}
			close(fd);
			_exit(bad > 99 ? 99 : bad);
		}
	}
	for (i = 0; i < nproc; i++) {
		ASSERT_LT(0, wait(&status));
		if (!WIFEXITED(status) || WEXITSTATUS(status))
			failures++;
	}
	EXPECT_EQ(0, failures);
}

/* An open file outlives an unbind: its ioctls fail with ENODEV, no crash. */
TEST_F(core, unbind_with_open_file)
{
	struct snode_info info = {};
	char bdf[64];

	ASSERT_EQ(0, snode_bdf(0, bdf, sizeof(bdf)));
	ASSERT_EQ(0, write_file("/sys/bus/pci/drivers/snode/unbind", bdf));
	test_err_snode_info(ENODEV, &info);
	EXPECT_NE(0, access(SNODE_CLASS "0", F_OK));
	close(self->fd);
	self->fd = -1;

	ASSERT_EQ(0, write_file("/sys/bus/pci/drivers/snode/bind", bdf));
	self->fd = open(SNODE_DEV "0", O_RDWR);
	ASSERT_LE(0, self->fd);
	memset(&info, 0, sizeof(info));
	test_snode_info(&info);
	EXPECT_EQ(0, info.out_index);
	EXPECT_EQ(0, snode_echo(0, 0x600d));
}

TEST_F(core, hwmon)
{
	struct snode_info info = {};
	char dir[DIR_LEN], name[64], path[PATH_MAX];
	long long temp, power;

	test_snode_info(&info);
	if (!(info.out_caps & SNODE_CAP_SENSORS))
		SKIP(return, "the NIC has no sensors (CAP.SENSORS clear)");
	ASSERT_EQ(0, snode_hwmon_dir(0, dir, sizeof(dir)));
	snprintf(path, sizeof(path), "%s/name", dir);
	ASSERT_LT(0, read_file(path, name, sizeof(name)));
	EXPECT_STREQ("snode\n", name);

	temp = read_ll(dir, "temp1_input");
	EXPECT_LE(-40000, temp);
	EXPECT_GE(150000, temp);
	power = read_ll(dir, "power1_input");
	EXPECT_LE(0, power);
	EXPECT_GE(1000000000LL, power);	/* 1 kW in uW */
	EXPECT_LT(0, read_ll(dir, "temp1_max"));
	EXPECT_LT(read_ll(dir, "temp1_max"), read_ll(dir, "temp1_crit") + 1);
	EXPECT_LT(0, read_ll(dir, "power1_max"));
	EXPECT_LE(0, read_ll(dir, "temp1_max_alarm"));
	EXPECT_LE(0, read_ll(dir, "temp1_crit_alarm"));
	EXPECT_LE(0, read_ll(dir, "power1_max_alarm"));
}

TEST_F(core, hwmon_threshold_write)
{
	char dir[DIR_LEN], path[PATH_MAX], val[32];
	long long old;

	if (snode_hwmon_dir(0, dir, sizeof(dir)))
		SKIP(return, "no hwmon device for snode0");
	old = read_ll(dir, "temp1_max");
	snprintf(path, sizeof(path), "%s/temp1_max", dir);
	ASSERT_EQ(0, write_file(path, "77000"));
	EXPECT_EQ(77000, read_ll(dir, "temp1_max"));
	snprintf(val, sizeof(val), "%lld", old);
	ASSERT_EQ(0, write_file(path, val));
	EXPECT_EQ(old, read_ll(dir, "temp1_max"));
}

/* An open file pins the module: rmmod must fail and leave it loaded. */
TEST_F(core, unload_refused_while_open)
{
	struct snode_info info = {};
	char buf[32];
	int ret;

	ret = syscall(SYS_delete_module, "snode", O_NONBLOCK);
	ASSERT_EQ(-1, ret);
	/* EWOULDBLOCK (== EAGAIN) on current kernels, EBUSY is also refusal */
	EXPECT_TRUE(errno == EWOULDBLOCK || errno == EBUSY) {
		TH_LOG("delete_module: %s", strerror(errno));
	}
	ASSERT_LT(0, read_file("/sys/module/snode/refcnt", buf, sizeof(buf)));
	EXPECT_LE(1, atoi(buf));
	/* still loaded and working */
	test_snode_info(&info);
}

TEST_F(core, flr_recovery)
{
	struct snode_info before = {}, after = {};
	char bdf[64], path[PATH_MAX], dir[PATH_MAX], buf[32];
	bool have_hwmon;
	long long old_max = 0;

	test_snode_info(&before);
	ASSERT_EQ(0, snode_bdf(0, bdf, sizeof(bdf)));
	snprintf(path, sizeof(path), "/sys/bus/pci/devices/%s/reset", bdf);
	if (access(path, W_OK))
		SKIP(return, "%s is missing: the function cannot be reset", path);

	/* a threshold set by the administrator must survive the reset */
	have_hwmon = !snode_hwmon_dir(0, dir, sizeof(dir));
	if (have_hwmon) {
		char p[PATH_MAX];

		old_max = read_ll(dir, "temp1_max");
		snprintf(p, sizeof(p), "%s/temp1_max", dir);
		ASSERT_EQ(0, write_file(p, "91000"));
	}

	ASSERT_EQ(0, write_file(path, "1"));

	test_snode_info(&after);
	EXPECT_EQ(before.out_node_id, after.out_node_id);
	EXPECT_EQ(before.out_fabric_id, after.out_fabric_id);
	EXPECT_EQ(before.out_nports, after.out_nports);
	EXPECT_STREQ(before.out_serial, after.out_serial);
	EXPECT_EQ(0, snode_echo(0, 0xa5a55a5a));
	/* the driver programmed the device again after the reset cleared it */
	EXPECT_EQ(SNODE_SCRATCH_COOKIE, snode_reg(0, "SCRATCH"));
	ASSERT_LT(0, read_attr(0, "state", buf, sizeof(buf)));
	EXPECT_STREQ("live", buf);

	if (have_hwmon) {
		char p[PATH_MAX];

		EXPECT_EQ(91000, read_ll(dir, "temp1_max"));
		snprintf(p, sizeof(p), "%s/temp1_max", dir);
		snprintf(buf, sizeof(buf), "%lld", old_max);
		EXPECT_EQ(0, write_file(p, buf));
	}
}

TEST(two_nics)
{
	struct snode_info a = { .size = sizeof(a) }, b = { .size = sizeof(b) };
	int fa, fb;

	fa = open(SNODE_DEV "0", O_RDWR);
	fb = open(SNODE_DEV "1", O_RDWR);
	if (fa < 0 || fb < 0) {
		if (fa >= 0)
			close(fa);
		if (fb >= 0)
			close(fb);
		SKIP(return, "this node has fewer than two NICs");
	}
	ASSERT_EQ(0, ioctl(fa, SNODE_IOCTL_INFO, &a));
	ASSERT_EQ(0, ioctl(fb, SNODE_IOCTL_INFO, &b));
	EXPECT_EQ(0, a.out_index);
	EXPECT_EQ(1, b.out_index);
	EXPECT_NE(a.out_node_id, b.out_node_id);
	EXPECT_EQ(a.out_fabric_id, b.out_fabric_id);
	EXPECT_STRNE(a.out_serial, b.out_serial);
	EXPECT_EQ(b.out_node_id, read_attr_ull(1, "node_id"));
	EXPECT_EQ(0, snode_echo(1, 0x0badcafe));
	close(fa);
	close(fb);
}

int main(int argc, char **argv)
{
	/* the 6.1 harness runs a test body even after SKIP in its setup */
	if (access(SNODE_DEV "0", F_OK)) {
		ksft_print_header();
		ksft_exit_skip(SNODE_DEV "0 does not exist: snode.ko not loaded or no NIC\n");
	}
	return test_harness_run(argc, argv);
}
