// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * snodectl diag: what an operator hands a vendor, and what an operator
 * runs after a fabric change.
 *
 * diag bundle: one tar.gz of the NIC's state (netlink dumps as JSON, the
 * driver's debugfs, the module's sysfs, snode's kernel log lines, versions)
 * with a MANIFEST, keys scrubbed unless --with-keys (scrub.c).
 *
 * diag coherence: a read/write, seqlock and atomic check through two
 * windows on each peer's scratch export, with a pass/fail verdict
 * (Documentation/decisions/0028-diagnostics.md).
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <pthread.h>
#include <setjmp.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "scrub.h"
#include "snodectl.h"

#define DIAG_DEBUGFS		"/sys/kernel/debug/snode"
#define DIAG_MODULE		"/sys/module/snode"
#define DIAG_CLASS		"/sys/class/snode"
#define DIAG_MAX_FILE		(16 << 20)
#define DIAG_MAX_KEYS		4096
#define DIAG_MAX_NODES		256

static void diag_help(FILE *f)
{
	fprintf(f,
		"Usage: snodectl diag bundle output FILE.tar.gz [ with-keys ]\n"
		"       snodectl diag coherence key KEY [ nodes LIST ] [ export ID ]\n"
		"                               [ size BYTES ] [ duration SECONDS ] [ DEV ]\n"
		"LIST := NODE[-NODE][,...]  (default: every other node the NIC sees)\n"
		"DEV := { snodeN | dev snodeN }\n");
}

/* ---- bundle ---------------------------------------------------------------- */

struct bundle {
	struct snodectl *sc;
	char dir[160];		/* the tree being built, under /tmp */
	FILE *manifest;
	bool with_keys;
	uint64_t keys[DIAG_MAX_KEYS];
	unsigned int nkeys;
	unsigned int files, redacted;
};

static void bundle_note(struct bundle *b, const char *name, const char *from,
			const char *status)
{
	fprintf(b->manifest, "%-28s %-40s %s\n", name, from, status);
}

/*
 * @data into the bundle as @name, scrubbed unless --with-keys; its line in
 * the MANIFEST either way. 0 or a negative errno.
 */
static int bundle_write(struct bundle *b, const char *name, const char *from,
			const char *data)
{
	char path[PATH_MAX], status[64];
	unsigned int red = 0;
	char *clean = NULL;
	size_t len;
	FILE *f;
	int err = 0;

	if (!b->with_keys) {
		clean = scrub_text(data, b->keys, b->nkeys, &red);
		if (!clean) {
			bundle_note(b, name, from, "failed: out of memory");
			return -ENOMEM;
		}
		data = clean;
	}
	len = strlen(data);
	snprintf(path, sizeof(path), "%s/%s", b->dir, name);
	f = fopen(path, "w");
	if (!f) {
		err = -errno;
		goto out;
	}
	if (fwrite(data, 1, len, f) != len)
		err = -EIO;
	if (fclose(f) && !err)
		err = -errno;
	if (!err) {
		b->files++;
		b->redacted += red;
		snprintf(status, sizeof(status), "ok %zu bytes%s", len,
			 red ? ", keys redacted" : "");
		bundle_note(b, name, from, status);
	}
out:
	if (err) {
		snprintf(status, sizeof(status), "failed: %s", strerror(-err));
		bundle_note(b, name, from, status);
	}
	free(clean);
	return err;
}

/* A file's text (at most DIAG_MAX_FILE), NUL terminated; NULL and errno. */
static char *diag_read_file(const char *path)
{
	size_t len = 0, cap = 4096;
	char *buf = malloc(cap), *p;
	ssize_t n;
	int fd;

	if (!buf)
		return NULL;
	fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
	if (fd < 0) {
		free(buf);
		return NULL;
	}
	for (;;) {
		if (len + 1 >= cap) {
			if (cap >= DIAG_MAX_FILE)
				break;
			p = realloc(buf, cap * 2);
			if (!p)
				break;
			buf = p;
			cap *= 2;
		}
		n = read(fd, buf + len, cap - len - 1);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		len += n;
	}
	close(fd);
	buf[len] = '\0';
	return buf;
}

/* a command's JSON document, as the print path hands it over */
struct diag_acc {
	char *s;
	size_t len;
};

static void diag_json_sink(void *arg, const char *s)
{
	struct diag_acc *acc = arg;
	size_t n = strlen(s);
	char *p = realloc(acc->s, acc->len + n + 1);

	if (!p)
		return;
	memcpy(p + acc->len, s, n + 1);
	acc->s = p;
	acc->len += n;
}

/*
 * One snodectl command's JSON, run in this process, as @name. Its error
 * messages go to the bundle's errors.log (stderr is there while the bundle
 * is built); its status to the MANIFEST.
 */
static void bundle_cmd(struct bundle *b, const char *name,
		       int (*fn)(struct snodectl *sc), const char *cmdline)
{
	struct diag_acc acc = { NULL, 0 };
	struct print_opts o = {
		.json = true, .pretty = true,
		.sink = diag_json_sink, .sink_arg = &acc,
	};
	char *argv[8], *words, status[80];
	struct snodectl sub = *b->sc;
	int argc, ret;

	words = strdup(cmdline);
	if (!words) {
		bundle_note(b, name, cmdline, "failed: out of memory");
		return;
	}
	argc = tool_split_line(words, argv, 8);
	sub.argc = argc - 1;
	sub.argv = argv + 1;
	sub.json = true;
	print_flush(false);
	print_begin(&o);
	fprintf(stderr, "--- snodectl %s\n", cmdline);
	ret = fn(&sub);
	print_flush(true);
	if (!acc.s) {
		snprintf(status, sizeof(status), "failed: status %d, see errors.log", ret);
		bundle_note(b, name, cmdline, status);
	} else if (bundle_write(b, name, cmdline, acc.s)) {
		/* the MANIFEST says why */
	} else if (ret && fn != cmd_health) {
		snprintf(status, sizeof(status), "partial: status %d, see errors.log", ret);
		bundle_note(b, name, cmdline, status);
	}
	free(acc.s);
	free(words);
}

/* Every key the driver shows root, for the scrub. */
static void bundle_keys(struct bundle *b)
{
	static const unsigned int mem_types[] = {
		SNODE_MEM_LIST_EXPORTS, SNODE_MEM_LIST_IMPORTS,
	};
	const struct snode_mem_entry *me;
	const struct snode_msg_entry *ge;
	struct snode_mem_iter *mi;
	struct snode_msg_iter *gi;
	struct snode_dev *dev;
	unsigned int i;

	snode_dev_foreach(b->sc->ctx, dev) {
		for (i = 0; i < 2; i++) {
			if (snode_mem_list(dev, mem_types[i], sizeof(*me), &mi) < 0)
				continue;
			snode_mem_iter_foreach(mi, me)
				if ((me->flags & SNODE_MEM_ENTRY_KEY) &&
				    b->nkeys < DIAG_MAX_KEYS)
					b->keys[b->nkeys++] = me->key;
			snode_mem_iter_free(mi);
		}
		if (snode_msg_list(dev, SNODE_MSG_LIST_ENDPOINTS, sizeof(*ge),
				   &gi) < 0)
			continue;
		snode_msg_iter_foreach(gi, ge)
			if ((ge->flags & SNODE_MSG_ENTRY_KEY) &&
			    b->nkeys < DIAG_MAX_KEYS)
				b->keys[b->nkeys++] = ge->key;
		snode_msg_iter_free(gi);
	}
}

static void bundle_versions(struct bundle *b)
{
	char *text = NULL, *v, *sv;
	struct snode_dev_status st;
	struct snode_dev *dev;
	struct utsname u;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);

	if (!f)
		return;
	uname(&u);
	fprintf(f, "kernel %s %s %s\n", u.sysname, u.release, u.version);
	fprintf(f, "machine %s host %s\n", u.machine, u.nodename);
	fprintf(f, "snodectl %s\n", SNODE_VERSION);
	v = diag_read_file(DIAG_MODULE "/version");
	sv = diag_read_file(DIAG_MODULE "/srcversion");
	fprintf(f, "module snode version %s srcversion %s\n",
		v && *v ? strtok(v, "\n") : "-", sv && *sv ? strtok(sv, "\n") : "-");
	free(v);
	free(sv);
	snode_dev_foreach(b->sc->ctx, dev) {
		if (snode_dev_get_status(dev, &st, sizeof(st)) < 0) {
			fprintf(f, "%s status unreadable\n", snode_dev_get_name(dev));
			continue;
		}
		fprintf(f, "%s hw 0x%08x fw 0x%08x fw_name %s serial %s node %u fabric %u\n",
			snode_dev_get_name(dev), st.hw_version, st.fw_version,
			st.fw_name, st.serial, st.node_id, st.fabric_id);
	}
	fclose(f);
	bundle_write(b, "versions.txt", "uname, sysfs, dev status", text);
	free(text);
}

/*
 * The read-only files of a directory, recursively, into one text: the
 * driver's debugfs (registers, queues, identify, windows) and the module's
 * sysfs. Files that take writes are controls (echo sends an admin command
 * on every read, the fault knobs), not state: left out.
 */
static void bundle_tree(FILE *out, const char *path, unsigned int depth)
{
	struct dirent **ents;
	struct stat st;
	char sub[PATH_MAX], *text;
	int n, i;

	n = scandir(path, &ents, NULL, alphasort);
	if (n < 0)
		return;
	for (i = 0; i < n; i++) {
		const char *e = ents[i]->d_name;

		/* the class's entries are links to the devices: follow those */
		if (e[0] == '.' || snprintf(sub, sizeof(sub), "%s/%s", path, e) >=
		    (int)sizeof(sub) || (depth ? lstat(sub, &st) : stat(sub, &st)))
			goto next;
		if (S_ISDIR(st.st_mode) && depth < 4) {
			bundle_tree(out, sub, depth + 1);
		} else if (S_ISREG(st.st_mode) && !(st.st_mode & 0222) &&
			   (st.st_mode & 0444)) {
			text = diag_read_file(sub);
			fprintf(out, "==> %s <==\n%s%s", sub,
				text ? text : "(unreadable)\n",
				text && *text && text[strlen(text) - 1] != '\n' ? "\n" : "");
			free(text);
		}
next:
		free(ents[i]);
	}
	free(ents);
}

static void bundle_dir(struct bundle *b, const char *name, const char *path,
		       const char *why_missing)
{
	char *text = NULL;
	size_t len = 0;
	FILE *f;

	if (access(path, R_OK | X_OK)) {
		bundle_note(b, name, path, why_missing);
		return;
	}
	f = open_memstream(&text, &len);
	if (!f)
		return;
	bundle_tree(f, path, 0);
	fclose(f);
	bundle_write(b, name, path, text);
	free(text);
}

/* The kernel log's lines that name snode, from /dev/kmsg without waiting. */
static void bundle_kmsg(struct bundle *b)
{
	char rec[8192], *text = NULL;
	size_t len = 0;
	ssize_t n;
	FILE *f;
	int fd;

	fd = open("/dev/kmsg", O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0) {
		bundle_note(b, "dmesg.txt", "/dev/kmsg", "skipped: cannot open /dev/kmsg");
		return;
	}
	f = open_memstream(&text, &len);
	if (!f) {
		close(fd);
		return;
	}
	for (;;) {
		char *msg;

		n = read(fd, rec, sizeof(rec) - 1);
		if (n < 0 && errno == EPIPE)	/* overwritten: go on */
			continue;
		if (n <= 0)
			break;
		rec[n] = '\0';
		msg = strchr(rec, ';');
		if (!msg || !strstr(msg, "snode"))
			continue;
		/* "PRIO,SEQ,USEC,FLAGS;text": keep the time, drop the rest */
		fprintf(f, "[%s] %s", strtok(rec, ";"), msg + 1);
		if (rec[n - 1] != '\n')
			fputc('\n', f);
	}
	close(fd);
	fclose(f);
	bundle_write(b, "dmesg.txt", "/dev/kmsg lines naming snode", text);
	free(text);
}

/* recent events: the driver's fabric events are in its log (rate limited) */
static const struct {
	const char *name;
	int (*fn)(struct snodectl *sc);
	const char *cmd;
} bundle_cmds[] = {
	{ "dev.json", cmd_dev, "dev show" },
	{ "link-status.json", cmd_link, "link status" },
	{ "node.json", cmd_node, "node list" },
	{ "mem.json", cmd_mem, "mem list allocs exports imports att" },
	{ "msg.json", cmd_msg, "msg list endpoints dma" },
	{ "stats.json", cmd_msg, "msg stats" },
	{ "health.json", cmd_health, "health" },
};

/* every link's counters: link show DEV PORT */
static void bundle_links(struct bundle *b)
{
	struct snode_dev_status st;
	struct snode_dev *dev;
	char name[64], cmd[64];
	unsigned int port;

	snode_dev_foreach(b->sc->ctx, dev) {
		const char *dn = snode_dev_get_name(dev);

		if (snode_dev_get_status(dev, &st, sizeof(st)) < 0) {
			snprintf(name, sizeof(name), "link-%s.json", dn);
			bundle_note(b, name, "dev status", "failed: status unreadable, ports unknown");
			continue;
		}
		for (port = 0; port < st.nports && port < 64; port++) {
			snprintf(name, sizeof(name), "link-%s-%u.json", dn, port);
			snprintf(cmd, sizeof(cmd), "link show %s %u", dn, port);
			bundle_cmd(b, name, cmd_link, cmd);
		}
	}
}

/* tar -czf OUT -C DIR NAME, by the system's tar (busybox's will do) */
static int bundle_tar(const char *out, const char *dir, const char *name)
{
	int status;
	pid_t pid;

	pid = fork();
	if (pid < 0)
		return -errno;
	if (!pid) {
		int fd = open("/dev/null", O_WRONLY);

		if (fd >= 0) {
			dup2(fd, 1);
			close(fd);
		}
		execlp("tar", "tar", "-czf", out, "-C", dir, name, (char *)NULL);
		fprintf(stderr, "snodectl: diag bundle: cannot run tar: %s\n",
			strerror(errno));
		_exit(127);
	}
	if (waitpid(pid, &status, 0) < 0)
		return -errno;
	return WIFEXITED(status) && !WEXITSTATUS(status) ? 0 : -EIO;
}

static void diag_rm_tree(const char *path)
{
	struct dirent *e;
	char sub[PATH_MAX];
	DIR *d = opendir(path);

	if (d) {
		while ((e = readdir(d))) {
			if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
				continue;
			snprintf(sub, sizeof(sub), "%s/%s", path, e->d_name);
			if (e->d_type == DT_DIR)
				diag_rm_tree(sub);
			else
				unlink(sub);
		}
		closedir(d);
	}
	rmdir(path);
}

enum { BUNDLE_OPT_OUT, BUNDLE_OPT_KEYS };

static const struct tool_opt bundle_opts[] = {
	{ "-o", BUNDLE_OPT_OUT, true, false },
	{ "-output", BUNDLE_OPT_OUT, true, true },
	{ "-with-keys", BUNDLE_OPT_KEYS, false, true },
	{ NULL, 0, false, false }
};

static int diag_bundle(struct snodectl *sc)
{
	char top[64], tmp_out[PATH_MAX], root[64], *outdir, *mtext = NULL;
	const char *out = NULL, *val = NULL;
	bool with_keys = false;
	struct bundle *b;
	size_t mlen = 0;
	int id, ret, saved_err, efd;
	unsigned int i;
	struct stat st;

	while (sc->argc > 0) {
		id = snodectl_next_opt(sc, bundle_opts, &val);
		if (id == -2)
			return TOOL_EXIT_USAGE;
		if (id == -1) {
			if (sc->argc <= 0)	/* "--" last */
				break;
			return snodectl_usage("diag", "diag bundle: unexpected argument \"%s\"",
					      sc->argv[0]);
		}
		if (id == BUNDLE_OPT_KEYS) {
			with_keys = true;
			continue;
		}
		if (out)
			return snodectl_usage("diag", "diag bundle: %s given twice",
					      tool_opt_word());
		if (!*val)
			return snodectl_usage("diag", "diag bundle: %s needs a file name",
					      tool_opt_word());
		out = val;
	}
	if (!out)
		return snodectl_usage("diag", "diag bundle: output FILE.tar.gz is required");
	/* the output's directory must exist: fail before collecting anything */
	outdir = strdup(out);
	if (!outdir)
		return snodectl_err("diag bundle: out of memory");
	if (strrchr(outdir, '/'))
		*strrchr(outdir, '/') = '\0';
	else
		strcpy(outdir, ".");
	if (!*outdir)
		strcpy(outdir, "/");
	if (stat(outdir, &st) || !S_ISDIR(st.st_mode)) {
		ret = snodectl_err("diag bundle: %s: no such directory for the bundle",
				   outdir);
		free(outdir);
		return ret;
	}
	free(outdir);
	if (!stat(out, &st) && S_ISDIR(st.st_mode))
		return snodectl_err("diag bundle: %s is a directory", out);
	if (snprintf(tmp_out, sizeof(tmp_out), "%s.tmp", out) >= (int)sizeof(tmp_out))
		return snodectl_err("diag bundle: %s: name too long", out);
	if (!snode_dev_get_first(sc->ctx))
		return snodectl_err("diag bundle: no snode devices (is snode.ko loaded?)");

	b = calloc(1, sizeof(*b));
	if (!b)
		return snodectl_err("diag bundle: out of memory");
	b->sc = sc;
	b->with_keys = with_keys;
	snprintf(root, sizeof(root), "/tmp/snode-diag.XXXXXX");
	if (!mkdtemp(root)) {
		ret = snodectl_err("diag bundle: cannot make a directory in /tmp: %s",
				   strerror(errno));
		free(b);
		return ret;
	}
	snprintf(top, sizeof(top), "snode-diag-%ld", (long)time(NULL));
	snprintf(b->dir, sizeof(b->dir), "%s/%s", root, top);
	b->manifest = open_memstream(&mtext, &mlen);
	if (mkdir(b->dir, 0700) || !b->manifest) {
		ret = snodectl_err("diag bundle: cannot make %s: %s", b->dir,
				   strerror(errno));
		goto out;
	}
	fprintf(b->manifest,
		"# snodectl diag bundle, snodectl %s, %ld (seconds since the epoch)\n"
		"# keys: %s\n"
		"# FILE                       FROM                                     STATUS\n",
		SNODE_VERSION, (long)time(NULL),
		with_keys ? "INCLUDED (with-keys): do not pass this bundle on" :
			    "redacted (every key the driver listed, and any value after \"key\")");
	if (!with_keys)
		bundle_keys(b);

	/* the commands' messages into errors.log, not the terminal */
	fflush(stderr);
	saved_err = dup(2);
	snprintf(tmp_out, sizeof(tmp_out), "%s/errors.log", b->dir);
	efd = open(tmp_out, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	if (efd >= 0 && saved_err >= 0) {
		dup2(efd, 2);
		close(efd);
	}
	for (i = 0; i < sizeof(bundle_cmds) / sizeof(bundle_cmds[0]); i++)
		bundle_cmd(b, bundle_cmds[i].name, bundle_cmds[i].fn,
			   bundle_cmds[i].cmd);
	bundle_links(b);
	fflush(stderr);
	if (saved_err >= 0) {
		dup2(saved_err, 2);
		close(saved_err);
	}
	print_init(sc->json, sc->pretty);
	bundle_note(b, "errors.log", "stderr of the commands", "ok");

	bundle_versions(b);
	bundle_dir(b, "debugfs.txt", DIAG_DEBUGFS,
		   "skipped: debugfs not mounted or no access (mount -t debugfs none /sys/kernel/debug)");
	bundle_dir(b, "sysfs-module.txt", DIAG_MODULE, "skipped: snode.ko not loaded");
	bundle_dir(b, "sysfs-class.txt", DIAG_CLASS, "skipped: no snode class");
	bundle_kmsg(b);
	fclose(b->manifest);
	b->manifest = NULL;
	/* the MANIFEST holds no keys; written as is */
	snprintf(tmp_out, sizeof(tmp_out), "%s/MANIFEST", b->dir);
	{
		FILE *f = fopen(tmp_out, "w");

		if (!f || fputs(mtext, f) < 0 || fclose(f)) {
			ret = snodectl_err("diag bundle: writing the MANIFEST failed");
			goto out;
		}
	}

	snprintf(tmp_out, sizeof(tmp_out), "%s.tmp", out);
	ret = bundle_tar(tmp_out, root, top);
	if (ret || rename(tmp_out, out)) {
		unlink(tmp_out);
		ret = snodectl_err("diag bundle: writing %s failed%s", out,
				   ret ? " (tar)" : "");
		goto out;
	}
	print_str("file", "%s:", out);
	print_u64("files", " %llu files", b->files + 2);
	print_bool("keys", NULL, with_keys);
	print_text("%s", with_keys ? ", keys included" : "");
	print_u64("redacted", ", %llu key values redacted", b->redacted);
	print_nl();
	ret = 0;
out:
	if (b->manifest)
		fclose(b->manifest);
	free(mtext);
	diag_rm_tree(root);
	free(b);
	return ret;
}

/* ---- coherence --------------------------------------------------------------- */

/*
 * Layout of the scratch window (words of 8 bytes), the same on every node:
 *   COH_SEQ: a seqlock's sequence, COH_DATA..+COH_NDATA its data
 *   COH_TICKET: the ticket counter both threads take from with atomics
 *   COH_MP: the cross-node check's message (data on one node, flag on the
 *           next)
 *   COH_RW..: the rest, written and read back whole
 * The data and the counter sit in cache lines of their own.
 */
#define COH_SEQ		0
#define COH_DATA	1
#define COH_NDATA	7
#define COH_TICKET	16
#define COH_MP		24	/* cross-node: data on one node, flag on the next */
#define COH_RW		32
#define COH_MIN_SIZE	4096
#define COH_TICKETS	4096	/* per thread and round */
#define COH_SEQ_WRITES	2048
#define COH_MESSAGES	4096	/* per cross-node round */

struct coh_node {
	uint32_t node;
	struct snode_import *imp[2];
	volatile uint64_t *w[2];	/* the same memory through two windows */
	uint64_t words;
	/* what was checked */
	uint64_t rw_words, seq_reads, seq_retries, tickets;
	unsigned int rounds;
	bool fail;
	char reason[200];
};

struct coh_thread {
	struct coh_node *cn;
	unsigned int which;		/* the window this thread uses */
	uint64_t round;
	uint8_t *seen;			/* tickets taken, shared by both threads */
	uint64_t nseen;
	int fault;			/* SIGBUS or SIGSEGV taken */
	bool past_barrier;
	char err[160];
};

static __thread sigjmp_buf *coh_jmp;

static void coh_signal(int sig)
{
	if (coh_jmp)
		siglongjmp(*coh_jmp, sig);
	signal(sig, SIG_DFL);
	raise(sig);
}

static uint64_t coh_pattern(uint64_t seed, uint64_t i)
{
	uint64_t z = seed + i * 0x9e3779b97f4a7c15ULL;

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

/* written through one window, read back through the other, both ways */
static void coh_rw(struct coh_thread *t)
{
	struct coh_node *cn = t->cn;
	uint64_t i, v, seed = cn->node * 1000003ULL + t->round;
	unsigned int dir;

	for (dir = 0; dir < 2; dir++) {
		volatile uint64_t *wr = cn->w[dir], *rd = cn->w[!dir];

		for (i = COH_RW; i < cn->words; i++)
			wr[i] = coh_pattern(seed + dir, i);
		__atomic_thread_fence(__ATOMIC_SEQ_CST);
		for (i = COH_RW; i < cn->words; i++) {
			v = rd[i];
			if (v != coh_pattern(seed + dir, i)) {
				snprintf(t->err, sizeof(t->err),
					 "read/write: word %" PRIu64 " read 0x%" PRIx64
					 " through window %u, wrote 0x%" PRIx64 " through window %u%s",
					 i, v, !dir, coh_pattern(seed + dir, i), dir,
					 v == UINT64_MAX ? " (all-ones: no window granted the access)" : "");
				return;
			}
		}
		cn->rw_words += cn->words - COH_RW;
	}
}

/* the seqlock's writer: window 0 */
static void coh_seq_writer(struct coh_thread *t)
{
	volatile uint64_t *w = t->cn->w[0];
	uint64_t s, k;
	unsigned int i;

	/* coh_round() left sequence 0 with its data */
	for (i = 1; i <= COH_SEQ_WRITES; i++) {
		s = 2 * i;
		__atomic_store_n(&w[COH_SEQ], s - 1, __ATOMIC_RELAXED);
		__atomic_thread_fence(__ATOMIC_RELEASE);
		for (k = 0; k < COH_NDATA; k++)
			__atomic_store_n(&w[COH_DATA + k], s * 8 + k, __ATOMIC_RELAXED);
		__atomic_store_n(&w[COH_SEQ], s, __ATOMIC_RELEASE);
	}
}

/*
 * The seqlock's reader: window 1. A stable even sequence must come with
 * the data written under it; anything else is a store seen out of order
 * or not at all.
 */
static void coh_seq_reader(struct coh_thread *t, const volatile int *done)
{
	volatile uint64_t *w = t->cn->w[1];
	uint64_t s1, s2, d[COH_NDATA], k;

	while (!__atomic_load_n(done, __ATOMIC_ACQUIRE)) {
		s1 = __atomic_load_n(&w[COH_SEQ], __ATOMIC_ACQUIRE);
		if (s1 & 1) {
			t->cn->seq_retries++;
			continue;
		}
		for (k = 0; k < COH_NDATA; k++)
			d[k] = __atomic_load_n(&w[COH_DATA + k], __ATOMIC_RELAXED);
		__atomic_thread_fence(__ATOMIC_ACQUIRE);
		s2 = __atomic_load_n(&w[COH_SEQ], __ATOMIC_RELAXED);
		if (s1 != s2) {
			t->cn->seq_retries++;
			continue;
		}
		t->cn->seq_reads++;
		if (!s1)
			continue;
		for (k = 0; k < COH_NDATA; k++)
			if (d[k] != s1 * 8 + k) {
				snprintf(t->err, sizeof(t->err),
					 "seqlock: sequence %" PRIu64 " read with data word %" PRIu64
					 " 0x%" PRIx64 ", written 0x%" PRIx64,
					 s1, k, d[k], s1 * 8 + k);
				return;
			}
	}
}

/* tickets: fetch-and-add through this thread's window */
static void coh_tickets(struct coh_thread *t, uint64_t start)
{
	volatile uint64_t *w = t->cn->w[t->which];
	uint64_t v;
	unsigned int i;

	for (i = 0; i < COH_TICKETS; i++) {
		v = __atomic_fetch_add(&w[COH_TICKET], 1, __ATOMIC_SEQ_CST) - start;
		if (v >= 2 * COH_TICKETS) {
			snprintf(t->err, sizeof(t->err),
				 "atomics: ticket %" PRIu64 " outside the %u handed out",
				 v, 2 * COH_TICKETS);
			return;
		}
		if (__atomic_exchange_n(&t->seen[v], 1, __ATOMIC_RELAXED)) {
			snprintf(t->err, sizeof(t->err),
				 "atomics: ticket %" PRIu64 " handed out twice", v);
			return;
		}
		t->nseen++;
	}
}

struct coh_phase {
	struct coh_thread t[2];
	pthread_barrier_t bar;
	int done;		/* the seqlock writer finished */
	uint64_t start;		/* the ticket counter before the round */
};

static void *coh_worker(void *arg)
{
	struct coh_thread *t = arg;
	struct coh_phase *ph = (struct coh_phase *)((char *)(t - t->which) -
						    offsetof(struct coh_phase, t));
	sigjmp_buf jmp;
	int sig;

	sig = sigsetjmp(jmp, 1);
	if (sig) {
		coh_jmp = NULL;
		t->fault = sig;
		snprintf(t->err, sizeof(t->err), "%s on an access through window %u",
			 sig == SIGBUS ? "SIGBUS" : "SIGSEGV", t->which);
		__atomic_store_n(&ph->done, 1, __ATOMIC_RELEASE);
		/* the other thread waits for this one there */
		if (!t->past_barrier)
			pthread_barrier_wait(&ph->bar);
		return NULL;
	}
	coh_jmp = &jmp;
	if (t->which == 0) {
		coh_seq_writer(t);
		__atomic_store_n(&ph->done, 1, __ATOMIC_RELEASE);
	} else {
		coh_seq_reader(t, &ph->done);
	}
	pthread_barrier_wait(&ph->bar);
	t->past_barrier = true;
	if (!ph->t[0].err[0] && !ph->t[1].err[0])
		coh_tickets(t, ph->start);
	coh_jmp = NULL;
	return NULL;
}

/* One round on one node: read/write, seqlock, atomics; false on a failure. */
static bool coh_round(struct coh_node *cn, uint64_t round)
{
	struct coh_phase ph = { 0 };
	pthread_t tid[2];
	unsigned int i;
	sigjmp_buf jmp;
	uint8_t *seen;
	uint64_t end;
	int sig;

	seen = calloc(2 * COH_TICKETS, 1);
	if (!seen) {
		snprintf(cn->reason, sizeof(cn->reason), "out of memory");
		return false;
	}
	for (i = 0; i < 2; i++)
		ph.t[i] = (struct coh_thread){ .cn = cn, .which = i,
					       .round = round, .seen = seen };
	sig = sigsetjmp(jmp, 1);
	if (sig) {
		coh_jmp = NULL;
		snprintf(cn->reason, sizeof(cn->reason), "%s on an access through the window",
			 sig == SIGBUS ? "SIGBUS" : "SIGSEGV");
		free(seen);
		return false;
	}
	coh_jmp = &jmp;
	coh_rw(&ph.t[0]);
	/* whatever an earlier run left: a sequence and data that agree */
	for (i = 0; i < COH_NDATA; i++)
		cn->w[0][COH_DATA + i] = i;
	cn->w[0][COH_SEQ] = 0;
	__atomic_thread_fence(__ATOMIC_SEQ_CST);
	ph.start = cn->w[0][COH_TICKET];
	coh_jmp = NULL;
	if (ph.t[0].err[0]) {
		snprintf(cn->reason, sizeof(cn->reason), "%s", ph.t[0].err);
		free(seen);
		return false;
	}
	pthread_barrier_init(&ph.bar, NULL, 2);
	for (i = 0; i < 2; i++)
		if (pthread_create(&tid[i], NULL, coh_worker, &ph.t[i])) {
			snprintf(cn->reason, sizeof(cn->reason), "cannot start a thread");
			if (i) {
				/* the first waits at the barrier: let it through */
				pthread_barrier_wait(&ph.bar);
				pthread_join(tid[0], NULL);
			}
			pthread_barrier_destroy(&ph.bar);
			free(seen);
			return false;
		}
	for (i = 0; i < 2; i++)
		pthread_join(tid[i], NULL);
	pthread_barrier_destroy(&ph.bar);
	for (i = 0; i < 2; i++)
		if (ph.t[i].err[0]) {
			snprintf(cn->reason, sizeof(cn->reason), "%s", ph.t[i].err);
			free(seen);
			return false;
		}
	end = cn->w[1][COH_TICKET];
	cn->tickets += ph.t[0].nseen + ph.t[1].nseen;
	free(seen);
	if (end - ph.start != 2 * COH_TICKETS) {
		snprintf(cn->reason, sizeof(cn->reason),
			 "atomics: counter moved by %" PRIu64 " for %u increments",
			 end - ph.start, 2 * COH_TICKETS);
		return false;
	}
	cn->rounds++;
	return true;
}

/*
 * Across nodes: message passing. The writer stores message i into node
 * A's scratch window, then the flag i into node B's; a reader that sees
 * flag i through B's other window must find message i or later in A's.
 * A fabric that let the flag overtake the data (two paths, two nodes)
 * breaks the pattern every lock and queue between nodes is built on.
 */
struct coh_pair {
	struct coh_node *a, *b;
	uint64_t messages, observed;
	bool fail;
	char reason[200];
};

struct coh_mp_thread {
	struct coh_pair *pr;
	unsigned int which;	/* 0 writes, 1 reads */
	int *done;
	int *ready;		/* the reader is reading: the writer may start */
	uint64_t count;
	char err[160];
};

static void *coh_mp_worker(void *arg)
{
	struct coh_mp_thread *t = arg;
	volatile uint64_t *da = t->pr->a->w[t->which];
	volatile uint64_t *fb = t->pr->b->w[t->which];
	uint64_t i, f, d, last = 0;
	sigjmp_buf jmp;
	int sig;

	sig = sigsetjmp(jmp, 1);
	if (sig) {
		coh_jmp = NULL;
		snprintf(t->err, sizeof(t->err), "%s on an access through window %u",
			 sig == SIGBUS ? "SIGBUS" : "SIGSEGV", t->which);
		__atomic_store_n(t->ready, 1, __ATOMIC_RELEASE);
		__atomic_store_n(t->done, 1, __ATOMIC_RELEASE);
		return NULL;
	}
	coh_jmp = &jmp;
	if (t->which == 0) {
		while (!__atomic_load_n(t->ready, __ATOMIC_ACQUIRE))
			;
		for (i = 1; i <= COH_MESSAGES; i++) {
			__atomic_store_n(&da[COH_MP], i, __ATOMIC_RELAXED);
			__atomic_store_n(&fb[COH_MP], i, __ATOMIC_RELEASE);
		}
		t->count = COH_MESSAGES;
		__atomic_store_n(t->done, 1, __ATOMIC_RELEASE);
	} else {
		__atomic_store_n(t->ready, 1, __ATOMIC_RELEASE);
		while (!__atomic_load_n(t->done, __ATOMIC_ACQUIRE)) {
			f = __atomic_load_n(&fb[COH_MP], __ATOMIC_ACQUIRE);
			d = __atomic_load_n(&da[COH_MP], __ATOMIC_RELAXED);
			if (d < f) {
				snprintf(t->err, sizeof(t->err),
					 "message passing: node %u's flag said message %" PRIu64
					 ", node %u's data was still %" PRIu64,
					 t->pr->b->node, f, t->pr->a->node, d);
				break;
			}
			if (f != last) {
				t->count++;
				last = f;
			}
		}
	}
	coh_jmp = NULL;
	return NULL;
}

/* One cross-node round between @pr's two nodes; false on a failure. */
static bool coh_pair_round(struct coh_pair *pr)
{
	struct coh_mp_thread t[2];
	pthread_t tid[2];
	int done = 0, ready = 0;
	unsigned int i;
	sigjmp_buf jmp;
	int sig;

	sig = sigsetjmp(jmp, 1);
	if (sig) {
		coh_jmp = NULL;
		snprintf(pr->reason, sizeof(pr->reason), "%s on an access through the window",
			 sig == SIGBUS ? "SIGBUS" : "SIGSEGV");
		return false;
	}
	coh_jmp = &jmp;
	pr->a->w[0][COH_MP] = 0;
	pr->b->w[0][COH_MP] = 0;
	__atomic_thread_fence(__ATOMIC_SEQ_CST);
	coh_jmp = NULL;
	for (i = 0; i < 2; i++)
		t[i] = (struct coh_mp_thread){ .pr = pr, .which = i,
					       .done = &done, .ready = &ready };
	for (i = 0; i < 2; i++)
		if (pthread_create(&tid[i], NULL, coh_mp_worker, &t[i])) {
			snprintf(pr->reason, sizeof(pr->reason), "cannot start a thread");
			__atomic_store_n(&ready, 1, __ATOMIC_RELEASE);
			__atomic_store_n(&done, 1, __ATOMIC_RELEASE);
			if (i)
				pthread_join(tid[0], NULL);
			return false;
		}
	for (i = 0; i < 2; i++)
		pthread_join(tid[i], NULL);
	pr->messages += t[0].count;
	pr->observed += t[1].count;
	for (i = 0; i < 2; i++)
		if (t[i].err[0]) {
			snprintf(pr->reason, sizeof(pr->reason), "%s", t[i].err);
			return false;
		}
	return true;
}

static void coh_print_pair(const struct coh_pair *pr)
{
	print_open_object(NULL);
	print_open_array("nodes");
	print_u64(NULL, "nodes %llu", pr->a->node);
	print_u64(NULL, ",%llu", pr->b->node);
	print_close_array();
	print_str("verdict", " %s", pr->fail ? "FAIL" : "pass");
	print_u64("messages", " messages %llu", pr->messages);
	print_u64("observed", " observed %llu", pr->observed);
	if (pr->fail)
		print_str("reason", ": %s", pr->reason);
	else
		print_null("reason", NULL);
	print_nl();
	print_close_object();
}

/*
 * After a failure: if the driver revoked one of @cn's windows, put why
 * in front of @reason.
 */
static void coh_explain(struct coh_node *cn, char *reason, size_t len)
{
	struct snode_import_status st;
	char was[200];
	unsigned int i, tries;

	/*
	 * The device cuts a revoked window at once; the driver hears of it
	 * through the event queue a little later. Give it a moment to say.
	 */
	for (tries = 0; tries < 20; tries++) {
		for (i = 0; i < 2; i++) {
			if (!cn->imp[i] ||
			    snode_import_status(cn->imp[i], &st, sizeof(st)) < 0)
				continue;
			if (st.out_state == SNODE_WINDOW_STATE_ACTIVE)
				continue;
			snprintf(was, sizeof(was), "%s", reason);
			snprintf(reason, len, "window revoked (%s, epoch %u): %.140s",
				 revoke_reason_name(st.out_reason), st.out_epoch, was);
			return;
		}
		usleep(100000);
	}
}

static void coh_close(struct coh_node *cn)
{
	unsigned int i;

	for (i = 0; i < 2; i++)
		if (cn->imp[i]) {
			snode_import_unmap(cn->imp[i]);
			snode_import_close(cn->imp[i]);
			cn->imp[i] = NULL;
		}
}

static int coh_open(struct snode_dev *dev, struct coh_node *cn,
		    uint32_t export_id, uint64_t key, uint64_t size)
{
	struct snode_handle h = { .node = cn->node, .export_id = export_id, .key = key };
	unsigned int i;
	void *addr;
	int ret;

	for (i = 0; i < 2; i++) {
		ret = snode_import(dev, &h, 0, size,
				   SNODE_IMPORT_WRITE | SNODE_IMPORT_ZERO_PAGE_ON_REVOKE,
				   &cn->imp[i]);
		if (ret < 0) {
			snprintf(cn->reason, sizeof(cn->reason),
				 "cannot import its scratch export %u (%s): %s",
				 export_id, i ? "second window" : "first window",
				 ret == -ENOENT ? "no such export, or the key does not match" :
				 ret == -ERANGE ? "the export is smaller than --size" :
				 strerror(-ret));
			cn->imp[i] = NULL;
			return ret;
		}
		ret = snode_import_map(cn->imp[i], &addr);
		if (ret < 0) {
			snprintf(cn->reason, sizeof(cn->reason),
				 "cannot map its scratch window: %s", strerror(-ret));
			return ret;
		}
		cn->w[i] = addr;
	}
	cn->words = size / 8;
	return 0;
}

static void coh_print_node(const struct coh_node *cn)
{
	print_open_object(NULL);
	print_u64("node", "node %llu", cn->node);
	print_str("verdict", " %s", cn->fail ? "FAIL" : "pass");
	print_u64("rounds", " rounds %llu", cn->rounds);
	print_u64("rw_words", " rw-words %llu", cn->rw_words);
	print_u64("seqlock_reads", " seqlock-reads %llu", cn->seq_reads);
	print_u64("seqlock_retries", NULL, cn->seq_retries);
	print_u64("tickets", " tickets %llu", cn->tickets);
	if (cn->fail)
		print_str("reason", ": %s", cn->reason);
	else
		print_null("reason", NULL);
	print_nl();
	print_close_object();
}

enum { COH_OPT_NODES, COH_OPT_EXPORT, COH_OPT_KEY, COH_OPT_SIZE, COH_OPT_DURATION };

static const struct tool_opt coh_opts[] = {
	{ "-duration", COH_OPT_DURATION, true, true },
	{ "-export", COH_OPT_EXPORT, true, true },
	{ "-key", COH_OPT_KEY, true, true },
	{ "-nodes", COH_OPT_NODES, true, true },
	{ "-size", COH_OPT_SIZE, true, true },
	{ NULL, 0, false, false }
};

static int diag_coherence(struct snodectl *sc)
{
	const char *val = NULL, *name = NULL, *nodes_arg = NULL;
	const char *nodes_word = NULL;
	uint64_t key = 0, export_id = 0, size = COH_MIN_SIZE, duration = 1, v;
	uint32_t nodes[DIAG_MAX_NODES];
	struct snode_node_iter *iter;
	const struct snode_node_info *ni;
	struct snode_dev_status st;
	struct sigaction sa = { 0 }, old_bus, old_segv;
	struct coh_node *cn;
	bool have_key = false;
	unsigned int nfail = 0, pfail = 0;
	int npairs = 0;
	struct coh_pair *pairs;
	struct snode_dev *dev;
	int id, ret, n = 0, i, j;
	uint64_t round;
	double t_end;
	struct timespec ts;

	while (sc->argc > 0) {
		id = snodectl_next_opt(sc, coh_opts, &val);
		if (id == -2)
			return TOOL_EXIT_USAGE;
		if (id == -1) {
			ret = snodectl_dev_opt_last(sc, "diag", &name);
			if (ret)
				return ret;
			continue;
		}
		switch (id) {
		case COH_OPT_NODES:
			nodes_arg = val;
			nodes_word = tool_opt_word();
			break;
		case COH_OPT_KEY:
			if (tool_parse_u64(val, UINT64_MAX, &key))
				return snodectl_usage("diag", "diag coherence: bad %s \"%s\" (a number, 0x for hex)",
						      tool_opt_word(), val);
			have_key = true;
			break;
		case COH_OPT_EXPORT:
			if (tool_parse_u64(val, UINT32_MAX - 1, &export_id))
				return snodectl_usage("diag", "diag coherence: bad %s \"%s\" (an export id)",
						      tool_opt_word(), val);
			break;
		case COH_OPT_SIZE:
			if (tool_parse_size(val, &v) || v < COH_MIN_SIZE || v % 4096 ||
			    v > (1ULL << 30))
				return snodectl_usage("diag", "diag coherence: bad %s \"%s\" (4K to 1G, a multiple of 4K)",
						      tool_opt_word(), val);
			size = v;
			break;
		case COH_OPT_DURATION:
			if (tool_parse_u64(val, 3600, &v) || !v)
				return snodectl_usage("diag", "diag coherence: bad %s \"%s\" (1 to 3600 seconds)",
						      tool_opt_word(), val);
			duration = v;
			break;
		}
	}
	if (!have_key)
		return snodectl_usage("diag", "diag coherence: key KEY is required (the scratch exports' key)");
	if (nodes_arg) {
		n = scrub_parse_nodes(nodes_arg, nodes, DIAG_MAX_NODES, UINT32_MAX);
		if (n < 0)
			return snodectl_usage("diag", "diag coherence: bad %s \"%s\": %s",
					      nodes_word, nodes_arg,
					      n == -EEXIST ? "a node given twice" :
					      n == -E2BIG ? "more than 256 nodes" :
					      "want NODE[-NODE][,...]");
	}
	ret = snodectl_dev_resolve(sc, name, &dev);
	if (ret)
		return ret;
	if (!dev)
		dev = snode_dev_get_first(sc->ctx);
	if (!dev)
		return snodectl_err("diag coherence: no snode devices (is snode.ko loaded?)");
	ret = snode_dev_get_status(dev, &st, sizeof(st));
	if (ret < 0)
		return snodectl_nl_err("diag coherence", ret);
	ret = snode_node_list(sc->ctx, snode_dev_get_index(dev), sizeof(*ni), &iter);
	if (ret < 0)
		return snodectl_nl_err("diag coherence", ret);
	if (!nodes_arg) {
		snode_node_iter_foreach(iter, ni)
			if (ni->id != st.node_id && n < DIAG_MAX_NODES)
				nodes[n++] = ni->id;
	}
	/* every node named must be one the NIC knows of, before any check */
	for (i = 0; i < n; i++) {
		bool known = false;

		snode_node_iter_foreach(iter, ni)
			if (ni->id == nodes[i])
				known = true;
		if (nodes[i] == st.node_id) {
			snode_node_iter_free(iter);
			return snodectl_usage("diag", "diag coherence: node %u is this node; name its peers",
					      nodes[i]);
		}
		if (!known) {
			snode_node_iter_free(iter);
			return snodectl_err("diag coherence: unknown node %u (see 'snodectl node list')",
					    nodes[i]);
		}
	}
	if (!n) {
		snode_node_iter_free(iter);
		return snodectl_err("diag coherence: no peer nodes to check");
	}
	cn = calloc(n, sizeof(*cn));
	pairs = calloc(n, sizeof(*pairs));
	if (!cn || !pairs) {
		free(cn);
		free(pairs);
		snode_node_iter_free(iter);
		return snodectl_err("diag coherence: out of memory");
	}
	for (i = 0; i < n; i++) {
		cn[i].node = nodes[i];
		snode_node_iter_foreach(iter, ni)
			if (ni->id == nodes[i] && ni->state != SNODE_NODE_STATE_UP) {
				cn[i].fail = true;
				snprintf(cn[i].reason, sizeof(cn[i].reason),
					 "the NIC sees it %s", node_state_name(ni->state));
			}
	}
	snode_node_iter_free(iter);

	sa.sa_handler = coh_signal;
	sigemptyset(&sa.sa_mask);
	sa.sa_flags = SA_NODEFER;
	sigaction(SIGBUS, &sa, &old_bus);
	sigaction(SIGSEGV, &sa, &old_segv);
	for (i = 0; i < n; i++) {
		if (cn[i].fail)
			continue;
		if (coh_open(dev, &cn[i], export_id, key, size) < 0) {
			cn[i].fail = true;
			coh_close(&cn[i]);
			continue;
		}
		clock_gettime(CLOCK_MONOTONIC, &ts);
		t_end = ts.tv_sec + ts.tv_nsec / 1e9 + duration;
		for (round = 0;; round++) {
			if (!coh_round(&cn[i], round)) {
				cn[i].fail = true;
				coh_explain(&cn[i], cn[i].reason, sizeof(cn[i].reason));
				coh_close(&cn[i]);
				break;
			}
			clock_gettime(CLOCK_MONOTONIC, &ts);
			if (ts.tv_sec + ts.tv_nsec / 1e9 >= t_end)
				break;
		}
	}
	/* then each node that passed with the next one that passed */
	for (i = 0, j = -1; i < n; i++) {
		struct coh_pair *pr;

		if (cn[i].fail)
			continue;
		if (j < 0) {
			j = i;
			continue;
		}
		pr = &pairs[npairs++];
		pr->a = &cn[j];
		pr->b = &cn[i];
		j = i;
		clock_gettime(CLOCK_MONOTONIC, &ts);
		t_end = ts.tv_sec + ts.tv_nsec / 1e9 + duration;
		do {
			if (!coh_pair_round(pr)) {
				pr->fail = true;
				coh_explain(pr->a, pr->reason, sizeof(pr->reason));
				coh_explain(pr->b, pr->reason, sizeof(pr->reason));
				break;
			}
			clock_gettime(CLOCK_MONOTONIC, &ts);
		} while (ts.tv_sec + ts.tv_nsec / 1e9 < t_end);
	}
	for (i = 0; i < n; i++)
		coh_close(&cn[i]);
	sigaction(SIGBUS, &old_bus, NULL);
	sigaction(SIGSEGV, &old_segv, NULL);

	for (i = 0; i < n; i++)
		nfail += cn[i].fail;
	for (i = 0; i < npairs; i++)
		pfail += pairs[i].fail;
	print_str("dev", "%s:", snode_dev_get_name(dev));
	print_u64("node", " node %llu", st.node_id);
	print_u64("export_id", " scratch export %llu", export_id);
	print_u64("size", " size %llu", size);
	print_nl();
	print_open_array("nodes");
	for (i = 0; i < n; i++)
		coh_print_node(&cn[i]);
	print_close_array();
	print_open_array("pairs");
	for (i = 0; i < npairs; i++)
		coh_print_pair(&pairs[i]);
	print_close_array();
	print_str("verdict", "coherence: %s", nfail || pfail ? "FAIL" : "PASS");
	print_u64("failed", " (%llu", nfail);
	print_u64("checked", " of %llu nodes failed", n);
	print_u64("pairs_failed", ", %llu", pfail);
	print_u64("pairs_checked", " of %llu pairs)", npairs);
	print_nl();
	free(pairs);
	free(cn);
	/* the report goes out whatever the verdict; the status tells it */
	if (print_flush(true))
		return 1;
	return nfail || pfail ? 1 : 0;
}

static const struct snodectl_cmd diag_cmds[] = {
	{ "bundle", diag_bundle },
	{ "coherence", diag_coherence },
	{ NULL, NULL }
};

int cmd_diag(struct snodectl *sc)
{
	return snodectl_dispatch(sc, "diag", diag_cmds, diag_help);
}
