// SPDX-License-Identifier: GPL-2.0
/*
 * DOC: main.c - the snode-fm command line and event loop
 *
 * snode-fm check [--redundancy] FILE
 * snode-fm plan TOPOLOGY --workload FILE [-j] [-p]
 * snode-fm hosts (--topology FILE | --nodes N)
 * snode-fm run (--topology FILE | --nodes N) --dir RUNDIR [--foreground]
 *              [--dead-ms MS]
 * snode-fm ctl --dir RUNDIR COMMAND...
 *
 * The loop is single threaded and poll()-based: device sockets, control
 * sockets, a 100 ms tick for the link model and heartbeats, and precise
 * timers for flaps. SIGTERM/SIGINT end it cleanly; files left by an fm
 * that was SIGKILLed are removed by the next one.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fm.h"
#include "proto.h"

static volatile sig_atomic_t fm_stop;

static void usage(FILE *out)
{
	fputs("Usage: snode-fm check [--redundancy] FILE\n"
	      "       snode-fm plan TOPOLOGY --workload FILE [-j] [-p]\n"
	      "       snode-fm hosts (--topology FILE | --nodes N)\n"
	      "       snode-fm run (--topology FILE | --nodes N) --dir RUNDIR [--foreground]\n"
	      "                    [--dead-ms MS]\n"
	      "       snode-fm ctl --dir RUNDIR COMMAND...   (snode-fm ctl --dir D help)\n",
	      out);
}

struct opts {
	const char *topology, *dir;
	unsigned int nodes;
	unsigned int dead_ms;	/* 0: $SNODE_FM_DEAD_MS, else SNODE_FM_DEAD_MS */
	bool foreground;
};

static int parse_opts(int argc, char **argv, struct opts *o, bool stop_at_cmd)
{
	static const struct option lo[] = {
		{ "topology", required_argument, NULL, 't' },
		{ "nodes", required_argument, NULL, 'n' },
		{ "dir", required_argument, NULL, 'd' },
		{ "foreground", no_argument, NULL, 'f' },
		{ "dead-ms", required_argument, NULL, 'D' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	uint64_t v;
	int c;

	optind = 1;
	while ((c = getopt_long(argc, argv, stop_at_cmd ? "+" : "", lo, NULL)) != -1) {
		switch (c) {
		case 't':
			o->topology = optarg;
			break;
		case 'n':
			if (fm_parse_u64(optarg, &v) || !v || v > FM_MAX_NODES) {
				fprintf(stderr, "snode-fm: --nodes: 1..%d\n",
					FM_MAX_NODES);
				return -1;
			}
			o->nodes = v;
			break;
		case 'd':
			o->dir = optarg;
			break;
		case 'f':
			o->foreground = true;
			break;
		case 'D':
			if (fm_parse_u64(optarg, &v) || v < FM_DEAD_MS_MIN ||
			    v > FM_DEAD_MS_MAX) {
				fprintf(stderr, "snode-fm: --dead-ms: %d..%d\n",
					FM_DEAD_MS_MIN, FM_DEAD_MS_MAX);
				return -1;
			}
			o->dead_ms = v;
			break;
		case 'h':
			usage(stdout);
			exit(0);
		default:
			usage(stderr);
			return -1;
		}
	}
	return optind;
}

static int load(struct fm_fabric *f, const struct opts *o)
{
	char err[512];

	if (!!o->topology == !!o->nodes) {
		fprintf(stderr, "snode-fm: give exactly one of --topology FILE and --nodes N\n");
		return -1;
	}
	if ((o->topology ? fm_topo_parse_file(f, o->topology, err, sizeof(err)) :
			   fm_topo_builtin(f, o->nodes, err, sizeof(err)))) {
		fprintf(stderr, "%s\n", err);
		return -1;
	}
	return 0;
}

static int cmd_check(int argc, char **argv)
{
	static const struct option lo[] = {
		{ "redundancy", no_argument, NULL, 'r' },
		{ NULL, 0, NULL, 0 },
	};
	struct fm_buf b = { 0 }, rb = { 0 }, re = { 0 };
	bool redundancy = false;
	struct fm_fabric f;
	char err[512];
	int ret = 0, c;

	optind = 1;
	while ((c = getopt_long(argc, argv, "", lo, NULL)) != -1) {
		if (c != 'r') {
			usage(stderr);
			return 1;
		}
		redundancy = true;
	}
	if (optind != argc - 1) {
		usage(stderr);
		return 1;
	}
	fm_fabric_init(&f);
	if (fm_topo_parse_file(&f, argv[optind], err, sizeof(err))) {
		fprintf(stderr, "%s\n", err);
		ret = 1;
	} else if (redundancy && fm_redundancy_check(&f, argv[optind], &rb, &re)) {
		fputs(re.s, stderr);
		ret = 1;
	} else {
		fm_topo_summary(&f, &b);
		printf("%s: ok\n%s%s", argv[optind], b.s, rb.s ? rb.s : "");
	}
	fm_buf_free(&b);
	fm_buf_free(&rb);
	fm_buf_free(&re);
	fm_fabric_free(&f);
	return ret;
}

static int cmd_plan(int argc, char **argv)
{
	static const struct option lo[] = {
		{ "workload", required_argument, NULL, 'w' },
		{ "json", no_argument, NULL, 'j' },
		{ "pretty", no_argument, NULL, 'p' },
		{ NULL, 0, NULL, 0 },
	};
	const char *workload = NULL, *topo;
	bool json = false, pretty = false;
	struct fm_workload w = { 0 };
	struct fm_buf out = { 0 };
	struct fm_plan p = { 0 };
	struct fm_fabric f;
	char err[512];
	int ret = 1, c;

	optind = 1;
	while ((c = getopt_long(argc, argv, "w:jp", lo, NULL)) != -1) {
		switch (c) {
		case 'w':
			workload = optarg;
			break;
		case 'j':
			json = true;
			break;
		case 'p':
			pretty = true;
			break;
		default:
			usage(stderr);
			return 1;
		}
	}
	if (optind != argc - 1 || !workload) {
		fprintf(stderr, "snode-fm plan: give one topology and --workload FILE\n");
		usage(stderr);
		return 1;
	}
	topo = argv[optind];
	fm_fabric_init(&f);
	if (fm_topo_parse_file(&f, topo, err, sizeof(err)) ||
	    fm_workload_parse_file(&w, workload, err, sizeof(err)) ||
	    fm_plan_compute(&f, topo, &w, &p, err, sizeof(err))) {
		fprintf(stderr, "%s\n", err);
		goto out;
	}
	fm_plan_print(&f, &w, &p, json, pretty, &out);
	fputs(out.s ? out.s : "", stdout);
	ret = 0;
out:
	fm_buf_free(&out);
	fm_plan_free(&p);
	fm_workload_free(&w);
	fm_fabric_free(&f);
	return ret;
}

static int cmd_hosts(int argc, char **argv)
{
	struct opts o = { 0 };
	struct fm_fabric f;
	struct fm_buf b = { 0 };
	int i = parse_opts(argc, argv, &o, false);

	if (i < 0)
		return 1;
	if (i != argc || o.dir || o.foreground) {
		usage(stderr);
		return 1;
	}
	fm_fabric_init(&f);
	if (load(&f, &o)) {
		fm_fabric_free(&f);
		return 1;
	}
	fm_topo_hosts(&f, &b);
	fputs(b.s ? b.s : "", stdout);
	fm_buf_free(&b);
	fm_fabric_free(&f);
	return 0;
}

static void on_signal(int sig)
{
	(void)sig;
	fm_stop = 1;
}

/* An fm already serves dir when its pid file names a live snode-fm. */
static bool dir_busy(const char *dir)
{
	char path[4096], comm[64] = "";
	FILE *fp;
	int pid = 0;

	snprintf(path, sizeof(path), "%s/fm.pid", dir);
	fp = fopen(path, "r");
	if (!fp)
		return false;
	if (fscanf(fp, "%d", &pid) != 1)
		pid = 0;
	fclose(fp);
	if (pid <= 0 || pid == getpid() || kill(pid, 0))
		return false;
	snprintf(path, sizeof(path), "/proc/%d/comm", pid);
	fp = fopen(path, "r");
	if (fp) {
		if (!fgets(comm, sizeof(comm), fp))
			comm[0] = 0;
		fclose(fp);
	}
	return !strncmp(comm, "snode-fm", 8);
}

static void loop(struct fm_fabric *f, int dev_lfd, int ctl_lfd)
{
	struct pollfd *pfd = NULL;
	uint64_t next_tick;
	sigset_t empty;
	uint32_t i;

	sigemptyset(&empty);
	f->now = fm_now_ms();
	for (i = 0; i < f->nlinks; i++)
		f->links[i].last = f->now;
	next_tick = f->now + FM_TICK_MS;
	while (!fm_stop) {
		uint32_t nd = fm_nconns, nc = fm_ctl_count(), k = 0;
		uint64_t next = next_tick, t = fm_links_next_timer(f);
		struct timespec ts;
		struct pollfd *np;

		np = realloc(pfd, (2 + nd + nc) * sizeof(*pfd));
		if (!np)
			break;
		pfd = np;
		pfd[k++] = (struct pollfd){ .fd = dev_lfd, .events = POLLIN };
		pfd[k++] = (struct pollfd){ .fd = ctl_lfd, .events = POLLIN };
		for (i = 0; i < nd; i++)
			pfd[k++] = (struct pollfd){
				.fd = fm_conns[i]->closing ? -1 : fm_conns[i]->fd,
				.events = POLLIN | (fm_conns[i]->outq ? POLLOUT : 0),
			};
		for (i = 0; i < nc; i++)
			pfd[k++] = (struct pollfd){ .fd = fm_ctl_fd(i), .events = POLLIN };
		if (t < next)
			next = t;
		f->now = fm_now_ms();
		t = next > f->now ? next - f->now : 0;
		ts.tv_sec = t / 1000;
		ts.tv_nsec = (t % 1000) * 1000000;
		if (ppoll(pfd, k, &ts, &empty) < 0 && errno != EINTR)
			break;
		f->now = fm_now_ms();
		if (pfd[0].revents & POLLIN) {
			int fd = accept4(dev_lfd, NULL, NULL,
					 SOCK_CLOEXEC | SOCK_NONBLOCK);

			if (fd >= 0 && !fm_conn_new(fd))
				close(fd);
		}
		if (pfd[1].revents & POLLIN)
			fm_ctl_accept(ctl_lfd);
		/* conns only grow during this pass, indexes stay valid */
		for (i = 0; i < nd; i++) {
			short re = pfd[2 + i].revents;
			struct fm_conn *c = fm_conns[i];

			if (re & POLLOUT)
				fm_conn_flush(c);
			if (re & (POLLIN | POLLHUP | POLLERR))
				fm_conn_input(f, c);
		}
		for (i = 0; i < nc; i++)
			if (pfd[2 + nd + i].revents & (POLLIN | POLLHUP | POLLERR))
				fm_ctl_ready(f, i);
		fm_links_timers(f);
		if (f->now >= next_tick) {
			fm_links_tick(f);
			fm_proto_timers(f);
			next_tick += FM_TICK_MS;
			if (next_tick <= f->now)
				next_tick = f->now + FM_TICK_MS;
		}
		fm_conns_reap(f);
		fm_sync(f);
		fm_ctl_timers(f);
	}
	free(pfd);
}

static int cmd_run(int argc, char **argv)
{
	char path[4096], sock[4096], csock[4096];
	struct opts o = { 0 };
	int i = parse_opts(argc, argv, &o, false), ready[2] = { -1, -1 };
	int dev_lfd = -1, ctl_lfd = -1, ret = 1;
	struct sigaction sa = { .sa_handler = on_signal };
	struct fm_fabric f;
	sigset_t block;
	FILE *fp;

	if (i < 0)
		return 1;
	if (i != argc || !o.dir) {
		usage(stderr);
		return 1;
	}
	fm_fabric_init(&f);
	f.dead_ms = fm_dead_ms(o.dead_ms);
	if (f.dead_ms == 0) {
		fprintf(stderr, "snode-fm: SNODE_FM_DEAD_MS: %d..%d\n",
			FM_DEAD_MS_MIN, FM_DEAD_MS_MAX);
		return 1;
	}
	if (load(&f, &o))
		goto out_free;
	if (mkdir(o.dir, 0755) && errno != EEXIST) {
		fprintf(stderr, "snode-fm: %s: %s\n", o.dir, strerror(errno));
		goto out_free;
	}
	if (dir_busy(o.dir)) {
		fprintf(stderr, "snode-fm: an fm already runs in %s (see %s/fm.pid)\n",
			o.dir, o.dir);
		goto out_free;
	}
	if (!o.foreground) {
		pid_t pid;
		char c;

		if (pipe2(ready, O_CLOEXEC)) {
			perror("snode-fm: pipe");
			goto out_free;
		}
		fflush(NULL);
		pid = fork();
		if (pid < 0) {
			perror("snode-fm: fork");
			goto out_free;
		}
		if (pid > 0) {
			/* the parent returns once the fm serves, or failed */
			close(ready[1]);
			ret = read(ready[0], &c, 1) == 1 && c == 'y' ? 0 : 1;
			goto out_free;
		}
		close(ready[0]);
		setsid();
	}
	sigemptyset(&block);
	sigaddset(&block, SIGTERM);
	sigaddset(&block, SIGINT);
	sigprocmask(SIG_BLOCK, &block, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGINT, &sa, NULL);
	signal(SIGPIPE, SIG_IGN);

	snprintf(path, sizeof(path), "%s/fm.log", o.dir);
	if (fm_log_open(path))
		fprintf(stderr, "snode-fm: %s: %s\n", path, strerror(errno));
	fm_mem_clean_stale();
	snprintf(sock, sizeof(sock), "%s/fm.sock", o.dir);
	snprintf(csock, sizeof(csock), "%s/ctl.sock", o.dir);
	dev_lfd = fm_listen_seqpacket(sock);
	if (dev_lfd < 0) {
		fm_log("%s: %s", sock, strerror(-dev_lfd));
		goto out_sock;
	}
	/* the devices connect there; the fabric tells them through proto.c */
	f.emit = &fm_proto_emit;
	ctl_lfd = fm_ctl_listen(csock);
	if (ctl_lfd < 0) {
		fm_log("%s: %s", csock, strerror(-ctl_lfd));
		goto out_sock;
	}
	if (fm_mem_create(&f, getpid()))
		goto out_mem;
	snprintf(path, sizeof(path), "%s/fm.pid", o.dir);
	fp = fopen(path, "w");
	if (!fp) {
		fm_log("%s: %s", path, strerror(errno));
		goto out_mem;
	}
	fprintf(fp, "%d\n", getpid());
	fclose(fp);
	/* pre-made exports of sim nodes carry the pattern from the start */
	for (i = 0; i < FM_MAX_NODES; i++) {
		struct fm_node *n = f.node[i];

		for (int e = 0; n && n->sim && e < FM_MAX_EXPORTS; e++)
			if (n->exports[e])
				fm_sim_fill(&f, n, n->exports[e]->offset,
					    n->exports[e]->len);
	}
	fm_log("fabric %u: %u nodes, %u switches, %u links; serving %s (pid %d)",
	       f.fabric_id, f.nnodes, f.nswitches, f.nlinks, sock, getpid());
	if (!o.foreground) {
		int null = open("/dev/null", O_RDWR);

		if (write(ready[1], "y", 1) != 1)
			fm_log("cannot signal readiness");
		close(ready[1]);
		ready[1] = -1;
		fm_log_stderr(false);
		if (null >= 0) {
			dup2(null, 0);
			dup2(null, 1);
			dup2(null, 2);
			close(null);
		}
	}
	loop(&f, dev_lfd, ctl_lfd);
	fm_log("shutting down");
	ret = 0;
	unlink(path);
out_mem:
	fm_conns_close_all(&f);
	fm_ctl_close_all();
	fm_mem_destroy(&f);
out_sock:
	if (dev_lfd >= 0) {
		close(dev_lfd);
		unlink(sock);
	}
	if (ctl_lfd >= 0) {
		close(ctl_lfd);
		unlink(csock);
	}
	fm_log_close();
	if (ready[1] >= 0)
		close(ready[1]);
	fm_fabric_free(&f);
	return ret;
out_free:
	fm_fabric_free(&f);
	return ret;
}

static int cmd_ctl(int argc, char **argv)
{
	struct opts o = { 0 };
	int i = parse_opts(argc, argv, &o, true);

	if (i < 0)
		return 1;
	if (!o.dir || o.topology || o.nodes) {
		fprintf(stderr, "snode-fm ctl: --dir RUNDIR is required\n");
		usage(stderr);
		return 1;
	}
	return fm_ctl_client(o.dir, argc - i, argv + i);
}

int main(int argc, char **argv)
{
	if (argc < 2) {
		usage(stderr);
		return 1;
	}
	if (!strcmp(argv[1], "check"))
		return cmd_check(argc - 1, argv + 1);
	if (!strcmp(argv[1], "plan"))
		return cmd_plan(argc - 1, argv + 1);
	if (!strcmp(argv[1], "hosts"))
		return cmd_hosts(argc - 1, argv + 1);
	if (!strcmp(argv[1], "run"))
		return cmd_run(argc - 1, argv + 1);
	if (!strcmp(argv[1], "ctl"))
		return cmd_ctl(argc - 1, argv + 1);
	if (!strcmp(argv[1], "help") || !strcmp(argv[1], "--help") ||
	    !strcmp(argv[1], "-h")) {
		usage(stdout);
		return 0;
	}
	fprintf(stderr, "snode-fm: unknown command '%s'\n", argv[1]);
	usage(stderr);
	return 1;
}
