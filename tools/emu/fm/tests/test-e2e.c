// SPDX-License-Identifier: GPL-2.0
/*
 * DOC: tests/test-e2e.c - snode-fm run, driven by fake devices and ctl
 *
 * Starts the real binary on a small fabric (three VM nodes and a sim node
 * on a dual-plane star), speaks snode-fm-proto.h to it from fake devices,
 * injects faults with "snode-fm ctl" and checks what the devices are told.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "tap.h"

static const char e2e_topo[] =
	"fabric 9\n"
	"switch p0 plane 0\nswitch p1 plane 1\n"
	"rack ra\nrack rb\n"
	"node 0-2 pool 1M rack ra\n"
	"node 3 sim pool 1M rack rb\n"
	"link 0-3.0 p0\nlink 0-3.1 p1\n"
	"export 3 0 offset 0 len 64K key 0x77 perm r\n";

struct dev {
	int fd;
	uint32_t node;
	bool hb;		/* send heartbeats while pumping */
	uint32_t seq;
	uint8_t nstate[FM_MAX_NODES], nroute[FM_MAX_NODES];
	struct snode_fm_node_state ntopo[FM_MAX_NODES];	/* last NODE_STATE */
	uint8_t names[4096];	/* last TOPO_NAMES */
	struct snode_fm_port_state port[FM_MAX_PORTS];
	uint32_t nrevoke, revoke_att[64], revoke_reason[64];
	struct snode_fm_sensor sensor;
	bool closed;
	/* last packet of interest */
	uint8_t last[4096];
	uint32_t last_len;
	struct snode_fm_msg deliver;
	bool got_deliver;
	/* direct links (decision 0039): the last PEER per node */
	int peer_fd[FM_MAX_NODES];	/* ATTACH's fd, -1: none */
	uint32_t peer_attach[FM_MAX_NODES], peer_detach[FM_MAX_NODES];
	uint32_t peer_fds_bad;		/* PEERs with other than one fd as they should */
	uint32_t peer_early;		/* ATTACHes before the node was UP */
};

static struct dev *devs[8];
static char rundir[64];

static uint64_t now_ms(void)
{
	return fm_now_ms();
}

static void dev_note(struct dev *d, const void *buf, ssize_t n, int fd)
{
	const struct snode_fm_hdr *h = buf;

	if (h->type == SNODE_FM_PEER && n == sizeof(struct snode_fm_peer)) {
		const struct snode_fm_peer *p = buf;

		if (p->node >= FM_MAX_NODES ||
		    (p->op == SNODE_FM_PEER_ATTACH &&
		     p->node != d->node) != (fd >= 0)) {
			d->peer_fds_bad++;
		} else if (p->op == SNODE_FM_PEER_ATTACH && p->node == d->node) {
			d->peer_attach[p->node]++;	/* loopback in the device */
		} else if (p->op == SNODE_FM_PEER_ATTACH) {
			if (d->nstate[p->node] != SNODE_FM_NODE_UP)
				d->peer_early++;
			if (d->peer_fd[p->node] >= 0)
				close(d->peer_fd[p->node]);
			d->peer_fd[p->node] = fd;
			d->peer_attach[p->node]++;
			return;
		} else {
			d->peer_detach[p->node]++;
		}
	} else if (h->type == SNODE_FM_NODE_STATE && !(h->flags & SNODE_FM_F_REPLY)) {
		const struct snode_fm_node_state *ns = buf;

		if (ns->node < FM_MAX_NODES) {
			d->nstate[ns->node] = ns->state;
			d->nroute[ns->node] = ns->route_port;
			if (n == sizeof(*ns))
				d->ntopo[ns->node] = *ns;
		}
	} else if (h->type == SNODE_FM_TOPO_NAMES && n <= (ssize_t)sizeof(d->names)) {
		memcpy(d->names, buf, n);
	} else if (h->type == SNODE_FM_PORT_STATE) {
		const struct snode_fm_port_state *ps = buf;

		if (ps->port < FM_MAX_PORTS)
			d->port[ps->port] = *ps;
	} else if (h->type == SNODE_FM_REVOKE) {
		const struct snode_fm_revoke *r = buf;

		if (d->nrevoke < 64) {
			d->revoke_att[d->nrevoke] = r->att_index;
			d->revoke_reason[d->nrevoke++] = r->reason;
		}
	} else if (h->type == SNODE_FM_SENSOR) {
		d->sensor = *(const struct snode_fm_sensor *)buf;
	} else if (h->type == SNODE_FM_MSG_DELIVER && !(h->flags & SNODE_FM_F_REPLY)) {
		d->deliver = *(const struct snode_fm_msg *)buf;
		d->got_deliver = true;
	}
	if (fd >= 0)
		close(fd);
}

/* One packet from the fm, and the fd that came with it (-1: none). */
static ssize_t dev_recv(struct dev *d, void *buf, size_t size, int *fd)
{
	union {
		struct cmsghdr h;
		char buf[CMSG_SPACE(4 * sizeof(int))];
	} u;
	struct iovec iov = { .iov_base = buf, .iov_len = size };
	struct msghdr mh = {
		.msg_iov = &iov,
		.msg_iovlen = 1,
		.msg_control = u.buf,
		.msg_controllen = sizeof(u.buf),
	};
	struct cmsghdr *cm;
	ssize_t n;

	*fd = -1;
	n = recvmsg(d->fd, &mh, MSG_DONTWAIT | MSG_CMSG_CLOEXEC);
	for (cm = n >= 0 ? CMSG_FIRSTHDR(&mh) : NULL; cm; cm = CMSG_NXTHDR(&mh, cm)) {
		int k, nfd, fds[4];

		if (cm->cmsg_level != SOL_SOCKET || cm->cmsg_type != SCM_RIGHTS)
			continue;
		nfd = (cm->cmsg_len - CMSG_LEN(0)) / sizeof(int);
		memcpy(fds, CMSG_DATA(cm), nfd * sizeof(int));
		for (k = 0; k < nfd; k++) {
			if (*fd < 0 && nfd == 1) {
				*fd = fds[k];
			} else {
				close(fds[k]);
				d->peer_fds_bad++;
			}
		}
	}
	return n;
}

/*
 * Read from every device for up to ms, heartbeating; stop early when
 * (want_dev, want_type with REPLY flag reply) arrives; 0 when it did.
 */
static int pump(int ms, struct dev *want, uint16_t type, bool reply)
{
	uint64_t end = now_ms() + ms, next_hb = 0;

	for (;;) {
		struct pollfd pfd[8];
		int n = 0, i;
		uint64_t t = now_ms();

		if (t >= next_hb) {
			struct snode_fm_heartbeat hb = {
				.hdr = { .type = SNODE_FM_HEARTBEAT, .len = sizeof(hb) },
			};

			for (i = 0; i < 8; i++)
				if (devs[i] && devs[i]->hb && !devs[i]->closed)
					send(devs[i]->fd, &hb, sizeof(hb), MSG_NOSIGNAL);
			next_hb = t + 100;
		}
		if (t >= end)
			return -1;
		for (i = 0; i < 8; i++)
			pfd[i] = (struct pollfd){
				.fd = devs[i] && !devs[i]->closed ? devs[i]->fd : -1,
				.events = POLLIN,
			};
		n = poll(pfd, 8, 20);
		if (n <= 0)
			continue;
		for (i = 0; i < 8; i++) {
			struct dev *d = devs[i];
			uint8_t buf[4096];
			ssize_t len;

			if (!d || !(pfd[i].revents & (POLLIN | POLLHUP)))
				continue;
			int pfd_in;

			while ((len = dev_recv(d, buf, sizeof(buf), &pfd_in)) > 0) {
				const struct snode_fm_hdr *h = (void *)buf;

				dev_note(d, buf, len, pfd_in);
				if (d == want && h->type == type &&
				    !!(h->flags & SNODE_FM_F_REPLY) == reply) {
					memcpy(d->last, buf, len);
					d->last_len = len;
					return 0;
				}
			}
			if (len == 0) {
				d->closed = true;
				if (d == want && !type)
					return 0;
			}
		}
	}
}

static struct dev *dev_connect(void)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	struct dev *d = calloc(1, sizeof(*d));
	int i;

	snprintf(sa.sun_path, sizeof(sa.sun_path), "%s/fm.sock", rundir);
	d->fd = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0);
	if (connect(d->fd, (struct sockaddr *)&sa, sizeof(sa)))
		tap_diag("connect %s: %s", sa.sun_path, strerror(errno));
	for (i = 0; i < FM_MAX_NODES; i++)
		d->peer_fd[i] = -1;
	for (i = 0; i < 8 && devs[i]; i++)
		;
	if (i < 8)
		devs[i] = d;
	return d;
}

static void dev_free(struct dev *d)
{
	for (int i = 0; i < 8; i++)
		if (devs[i] == d)
			devs[i] = NULL;
	for (int i = 0; i < FM_MAX_NODES; i++)
		if (d->peer_fd[i] >= 0)
			close(d->peer_fd[i]);
	close(d->fd);
	free(d);
}

/* Send a request and wait for its reply; the reply status or -1. */
static int dev_call(struct dev *d, void *pkt, uint32_t len, uint16_t type)
{
	struct snode_fm_hdr *h = pkt;

	h->type = type;
	h->len = len;
	h->seq = ++d->seq;
	if (send(d->fd, pkt, len, MSG_NOSIGNAL) != (ssize_t)len)
		return -1;
	if (pump(2500, d, type, true))
		return -1;
	return ((struct snode_fm_hdr *)d->last)->status;
}

static int dev_hello_features(struct dev *d, uint32_t node, uint32_t pid,
			      uint32_t features)
{
	struct snode_fm_hello m = { .version = SNODE_FM_PROTO_VERSION,
				    .node = node, .pid = pid,
				    .features = features };

	d->node = node;
	memset(d->nstate, 0xee, sizeof(d->nstate));
	return dev_call(d, &m, sizeof(m), SNODE_FM_HELLO);
}

static int dev_hello(struct dev *d, uint32_t node, uint32_t pid)
{
	return dev_hello_features(d, node, pid, 0);
}

static int dev_export(struct dev *d, uint32_t id, uint64_t off, uint64_t len,
		      uint64_t key, uint32_t perm)
{
	struct snode_fm_export_set m = { .export_id = id, .perm = perm,
					 .offset = off, .len = len, .key = key,
					 .all_nodes = 1 };

	return dev_call(d, &m, sizeof(m), SNODE_FM_EXPORT_SET);
}

static int dev_grant(struct dev *d, uint32_t att, uint32_t node, uint32_t id,
		     uint64_t key, uint32_t perm, uint64_t off, uint64_t len)
{
	struct snode_fm_grant m = { .att_index = att, .perm = perm, .node = node,
				    .export_id = id, .key = key, .offset = off,
				    .len = len };

	return dev_call(d, &m, sizeof(m), SNODE_FM_GRANT);
}

static bool has_revoke(struct dev *d, uint32_t att, uint32_t reason)
{
	for (uint32_t i = 0; i < d->nrevoke; i++)
		if (d->revoke_att[i] == att && d->revoke_reason[i] == reason)
			return true;
	return false;
}

/* Wait (pumping) until cond holds, up to ms. */
#define WAIT_FOR(cond, ms) ({						\
	uint64_t __end = now_ms() + (ms);				\
	while (!(cond) && now_ms() < __end)				\
		pump(20, NULL, 0, false);				\
	(cond);								\
})

/* Run "snode-fm ctl --dir RUNDIR ARGS" while pumping; exit status. */
static int ctl(struct fm_buf *out, const char *args)
{
	char cmd[1024], buf[4096];
	FILE *p;
	int st;
	int fds[2];
	pid_t pid;

	snprintf(cmd, sizeof(cmd), "exec %s ctl --dir %s %s 2>&1", tap_fm_path,
		 rundir, args);
	if (pipe(fds))
		return -1;
	pid = fork();
	if (pid == 0) {
		dup2(fds[1], 1);
		close(fds[0]);
		execl("/bin/sh", "sh", "-c", cmd, (char *)NULL);
		_exit(127);
	}
	close(fds[1]);
	p = fdopen(fds[0], "r");
	fcntl(fds[0], F_SETFL, O_NONBLOCK);
	for (;;) {
		size_t n;

		pump(20, NULL, 0, false);
		while ((n = fread(buf, 1, sizeof(buf), p)) > 0)
			if (out)
				fm_buf_printf(out, "%.*s", (int)n, buf);
		clearerr(p);
		if (waitpid(pid, &st, WNOHANG) == pid)
			break;
	}
	{
		size_t n;

		fcntl(fds[0], F_SETFL, 0);
		while ((n = fread(buf, 1, sizeof(buf), p)) > 0)
			if (out)
				fm_buf_printf(out, "%.*s", (int)n, buf);
	}
	fclose(p);
	return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

static pid_t start_fm(const char *topo)
{
	char sock[512];
	pid_t pid = fork();

	if (pid == 0) {
		int null = open("/dev/null", O_WRONLY);

		dup2(null, 2);
		execl(tap_fm_path, "snode-fm", "run", "--topology", topo, "--dir",
		      rundir, "--foreground", (char *)NULL);
		_exit(127);
	}
	snprintf(sock, sizeof(sock), "%s/ctl.sock", rundir);
	/* ready when fm.pid names this fm (a killed one leaves its own) */
	for (int i = 0; i < 250; i++) {
		char pidf[512];
		FILE *fp;
		int p = 0;

		snprintf(pidf, sizeof(pidf), "%s/fm.pid", rundir);
		fp = fopen(pidf, "r");
		if (fp) {
			if (fscanf(fp, "%d", &p) != 1)
				p = 0;
			fclose(fp);
		}
		if (p == pid && !access(sock, F_OK))
			return pid;
		usleep(20000);
	}
	return pid;
}

static int count_shm(pid_t pid)
{
	char path[256];
	struct stat st;
	int n = 0;

	for (int i = 0; i < 4; i++) {
		snprintf(path, sizeof(path), "/dev/shm/snode-9-%d-node%d", pid, i);
		n += !stat(path, &st);
	}
	return n;
}

/* The msgs_relayed of node @id in "show nodes -j", or -1. */
static long long relayed(uint32_t id)
{
	struct fm_buf out = { 0 };
	char key[32];
	long long v = -1;
	const char *p;

	snprintf(key, sizeof(key), "{\"id\":%u,", id);
	if (!ctl(&out, "show nodes -j") && out.s && (p = strstr(out.s, key)) &&
	    (p = strstr(p, "\"msgs_relayed\":")))
		v = atoll(p + strlen("\"msgs_relayed\":"));
	fm_buf_free(&out);
	return v;
}

/* A packet from one end of a direct link arrives at the other. */
static bool link_carries(int a, int b)
{
	struct snode_fm_msg m = { .hdr = { .type = SNODE_FM_MSG_DELIVER,
					   .len = sizeof(m) }, .len = 5 };
	struct snode_fm_msg r;
	struct pollfd pfd = { .fd = b, .events = POLLIN };

	memcpy(m.data, "hello", 5);
	if (a < 0 || b < 0 || send(a, &m, sizeof(m), MSG_NOSIGNAL) != sizeof(m) ||
	    poll(&pfd, 1, 1000) != 1)
		return false;
	return recv(b, &r, sizeof(r), 0) == sizeof(r) && !memcmp(&r, &m, sizeof(m));
}

/* The end of a link reads EOF: the other end is closed. */
static bool link_closed(int fd)
{
	struct pollfd pfd = { .fd = fd, .events = POLLIN };
	char c;

	return fd >= 0 && poll(&pfd, 1, 1000) == 1 &&
	       recv(fd, &c, 1, MSG_DONTWAIT) == 0;
}

/*
 * Direct links (decision 0039): devices that said SNODE_FM_HELLO_DIRECT get
 * the two ends of a socketpair per pair of them, after the node states;
 * "ctl direct off|on" ends and makes them again; the fm counts only the
 * messages it relays.
 */
static void test_e2e_direct(const char *topo)
{
	struct dev *a, *b, *n1;
	struct snode_fm_msg m = { .dst_node = 3, .len = 4 };
	pid_t fm;
	int st;

	fm = start_fm(topo);
	/* heartbeats only once attached: a packet before HELLO is fatal */
	a = dev_connect();
	st = dev_hello_features(a, 0, 0, SNODE_FM_HELLO_DIRECT);
	a->hb = true;
	n1 = dev_connect();
	st |= dev_hello(n1, 1, 0);
	n1->hb = true;
	b = dev_connect();
	st |= dev_hello_features(b, 2, 0, SNODE_FM_HELLO_DIRECT);
	b->hb = true;
	ok(st == SNODE_FM_OK,
	   "direct: nodes 0 and 2 attach with HELLO_DIRECT, node 1 without");
	ok(WAIT_FOR(a->peer_fd[2] >= 0 && b->peer_fd[0] >= 0, 1000),
	   "direct: nodes 0 and 2 get one end of a link each");
	pump(100, NULL, 0, false);
	ok(a->peer_fd[1] < 0 && a->peer_fd[3] < 0 && !n1->peer_attach[0] &&
	   !n1->peer_attach[2] && a->peer_attach[2] == 1 && b->peer_attach[0] == 1,
	   "direct: no link to a device without the feature or to a sim node");
	ok(!a->peer_fds_bad && !b->peer_fds_bad && !n1->peer_fds_bad,
	   "direct: an ATTACH carries exactly one fd, nothing else does");
	ok(!a->peer_early && !b->peer_early,
	   "direct: a link comes after the node state that says UP");
	ok(link_carries(a->peer_fd[2], b->peer_fd[0]) &&
	   link_carries(b->peer_fd[0], a->peer_fd[2]),
	   "direct: the two ends are one link, both ways");

	ok(dev_call(a, &m, sizeof(m), SNODE_FM_MSG_SEND) == SNODE_FM_OK &&
	   relayed(0) == 1 && relayed(2) == 0,
	   "direct: a message to a sim node is relayed, and counted");
	ok(!a->peer_attach[0] && !a->peer_detach[0],
	   "direct: at HELLO, nothing about the loopback (in the device)");
	ok(ctl(NULL, "direct off") == 0 &&
	   WAIT_FOR(a->peer_detach[2] == 1 && b->peer_detach[0] == 1, 1000),
	   "direct: ctl direct off: DETACH to both ends");
	ok(WAIT_FOR(a->peer_detach[0] == 1 && b->peer_detach[2] == 1, 1000) &&
	   !n1->peer_detach[1], "direct: ... and a loopback DETACH to each");
	ok(ctl(NULL, "direct off") == 0 && (pump(100, NULL, 0, false), 1) &&
	   a->peer_detach[2] == 1, "direct: off twice: nothing more");
	{
		struct dev *c = dev_connect();

		/* n1's node id is taken: a device of node 2's after b left */
		ok(c && (dev_free(b), WAIT_FOR(link_closed(a->peer_fd[2]), 1500)) &&
		   dev_hello_features(c, 2, 0, SNODE_FM_HELLO_DIRECT) == SNODE_FM_OK &&
		   WAIT_FOR(c->peer_detach[2] == 1, 1000) && c->peer_fd[0] < 0,
		   "direct: attaching while off: no link, a loopback DETACH");
		c->hb = true;
		b = c;
	}
	ok(ctl(NULL, "direct on") == 0 &&
	   WAIT_FOR(a->peer_attach[2] == 2 && b->peer_attach[0] == 1, 1000) &&
	   link_carries(a->peer_fd[2], b->peer_fd[0]),
	   "direct: ctl direct on: a new link");
	ok(WAIT_FOR(a->peer_attach[0] == 1 && b->peer_attach[2] == 1, 1000),
	   "direct: ... and a loopback ATTACH to each");
	ok(ctl(NULL, "direct maybe") == 1, "direct: ctl direct with a bad word fails");

	dev_free(b);
	ok(link_closed(a->peer_fd[2]),
	   "direct: a device gone: its peer's end reads EOF (the fm keeps no end)");
	b = dev_connect();
	st = dev_hello_features(b, 2, 0, SNODE_FM_HELLO_DIRECT);
	b->hb = true;
	ok(st == SNODE_FM_OK &&
	   WAIT_FOR(a->peer_attach[2] == 3 && b->peer_fd[0] >= 0, 1000) &&
	   link_carries(b->peer_fd[0], a->peer_fd[2]),
	   "direct: it attaches again: a new link");
	{
		struct snode_fm_peer p = { .hdr = { .type = SNODE_FM_PEER,
						    .len = sizeof(p) },
					   .node = 0, .op = SNODE_FM_PEER_ATTACH };

		send(n1->fd, &p, sizeof(p), MSG_NOSIGNAL);
		ok(WAIT_FOR(n1->closed, 1000),
		   "direct: a device that sends PEER is cut off");
	}
	dev_free(n1);
	dev_free(a);
	dev_free(b);
	kill(fm, SIGTERM);
	ok(waitpid(fm, &st, 0) == fm && WIFEXITED(st) && WEXITSTATUS(st) == 0,
	   "direct: SIGTERM: clean exit");
}

void test_e2e(void)
{
	struct snode_fm_hello_reply hr;
	struct snode_fm_grant_reply gr;
	struct dev *d0, *d1, *d2, *bad;
	struct fm_buf out = { 0 };
	char topo[300], path[300];
	pid_t fm, victim;
	int st, fd;
	FILE *fp;

	if (!tap_fm_path || !tap_topo_dir) {
		ok(0, "e2e: --fm and --topologies given");
		return;
	}
	snprintf(rundir, sizeof(rundir), "/tmp/snode-fm-test.%d", getpid());
	mkdir(rundir, 0755);
	snprintf(topo, sizeof(topo), "%s/e2e.topo", rundir);
	fp = fopen(topo, "w");
	fputs(e2e_topo, fp);
	fclose(fp);
	fm = start_fm(topo);
	ok(count_shm(fm) == 4, "run: one memory file per node");

	/* HELLO */
	d0 = dev_connect();
	d0->hb = true;
	st = dev_hello(d0, 0, 0);
	memcpy(&hr, d0->last, sizeof(hr));
	ok(st == SNODE_FM_OK && hr.fabric_id == 9 && hr.nports == 2 &&
	   hr.max_nodes == 1024 && hr.pool_size == 1 << 20 &&
	   !strcmp(hr.serial, "SNODE-9-0") && strstr(hr.pool_path, "-node0"),
	   "HELLO: fabric, ports, pool, serial (%s, %s)", hr.serial, hr.pool_path);
	ok(WAIT_FOR(d0->port[1].hdr.type && d0->nstate[3] == SNODE_FM_NODE_UP &&
		    d0->nstate[1] == SNODE_FM_NODE_UNKNOWN, 1000) &&
	   d0->nroute[3] == 0 && d0->port[0].oper_state == SNODE_FM_PORT_UP &&
	   d0->port[0].peer_port == (FM_SWITCH_BIT | 0),
	   "HELLO: port states and every node's state follow");
	{
		const struct snode_fm_topo_names *tn = (const void *)d0->names;
		const struct snode_fm_node_state *t3 = &d0->ntopo[3];

		ok(tn->hdr.type == SNODE_FM_TOPO_NAMES && tn->nswitches == 2 &&
		   tn->nracks == 2 && !strcmp(tn->ent[1].name, "p1") &&
		   tn->ent[1].plane == 1 && !strcmp(tn->ent[3].name, "rb") &&
		   tn->hdr.len == sizeof(*tn) + 4 * sizeof(tn->ent[0]),
		   "HELLO: TOPO_NAMES: switches with planes, then racks");
		ok(t3->hops == 2 && t3->sw == 0 && t3->plane == 0 && t3->rack == 1,
		   "HELLO: NODE_STATE of node 3: 2 hops via p0 (plane 0), rack rb");
	}
	bad = dev_connect();
	ok(dev_hello(bad, 0, 0) == SNODE_FM_EINVAL, "HELLO for an attached node: EINVAL");
	dev_free(bad);
	bad = dev_connect();
	ok(dev_hello(bad, 3, 0) == SNODE_FM_EINVAL, "HELLO for a sim node: EINVAL");
	dev_free(bad);
	bad = dev_connect();
	ok(dev_hello(bad, 7, 0) == SNODE_FM_EINVAL, "HELLO for an unknown node: EINVAL");
	dev_free(bad);

	d1 = dev_connect();
	d1->hb = true;
	ok(dev_hello(d1, 1, 0) == SNODE_FM_OK, "node 1 attaches");
	ok(WAIT_FOR(d0->nstate[1] == SNODE_FM_NODE_UP, 1000) && d0->nroute[1] == 0,
	   "its join is announced");
	ok(ctl(NULL, "wait-attached 1 timeout 1000") == 0,
	   "ctl wait-attached of an attached node");
	ok(ctl(NULL, "wait-attached 2 timeout 200") == 1,
	   "ctl wait-attached times out");

	/* exports and grants */
	ok(dev_export(d1, 5, 0, 64 << 10, 0xabc, 3) == SNODE_FM_OK, "EXPORT_SET");
	ok(dev_export(d1, 5, 0, 64 << 10, 0xabc, 3) == SNODE_FM_EBUSY,
	   "EXPORT_SET same id: BUSY");
	ok(dev_export(d1, 6, 0, 2 << 20, 0xabc, 3) == SNODE_FM_ERANGE,
	   "EXPORT_SET past the pool: OUT_OF_RANGE");
	ok(dev_grant(d0, 1, 1, 5, 0xbad, 3, 0, 4096) == SNODE_FM_EBADKEY,
	   "GRANT with a bad key: BAD_KEY");
	ok(dev_grant(d0, 1, 1, 9, 0xabc, 3, 0, 4096) == SNODE_FM_ENOEXPORT,
	   "GRANT of a missing export: NO_EXPORT");
	st = dev_grant(d0, 1, 1, 5, 0xabc, 3, 8192, 4096);
	memcpy(&gr, d0->last, sizeof(gr));
	ok(st == SNODE_FM_OK && gr.file_offset == 8192 && gr.len == 4096 &&
	   strstr(gr.path, "-node1"), "GRANT: exporter's file, offset, len");
	fm_buf_free(&out);
	ok(ctl(&out, "show grants -j") == 0 && out.s &&
	   strstr(out.s, "\"importer\":0,\"att_index\":1,\"exporter\":1,\"export_id\":5"),
	   "ctl show grants -j lists it");
	{
		struct snode_fm_export_clear m = { .export_id = 5 };

		st = dev_call(d1, &m, sizeof(m), SNODE_FM_EXPORT_CLEAR);
		ok(st == SNODE_FM_OK &&
		   ((struct snode_fm_export_clear *)d1->last)->revoked == 1,
		   "EXPORT_CLEAR: one importer revoked");
		ok(WAIT_FOR(has_revoke(d0, 1, SNODE_FM_REVOKE_UNEXPORT), 1000),
		   "the importer got REVOKE (UNEXPORT)");
	}

	/* sim node: pattern, echo */
	st = dev_grant(d0, 2, 3, 0, 0x77, 1, 4096, 4096);
	memcpy(&gr, d0->last, sizeof(gr));
	ok(st == SNODE_FM_OK, "GRANT onto a sim node's export");
	fd = open(gr.path, O_RDONLY);
	{
		uint64_t w = 0;
		bool rd = fd >= 0 && pread(fd, &w, 8, gr.file_offset + 8) == 8;

		ok(rd && w == ((3ULL << 40) | (4096 + 8)),
		   "sim memory holds (node << 40) | offset (0x%llx)",
		   (unsigned long long)w);
		if (fd >= 0)
			close(fd);
	}
	ok(dev_grant(d0, 3, 3, 0, 0x77, 3, 0, 4096) == SNODE_FM_EREADONLY,
	   "write grant of a read-only sim export: READ_ONLY");
	{
		struct snode_fm_msg m = { .dst_node = 3, .dst_ep = 0, .src_ep = 7,
					  .len = 5, .key = 1 };

		memcpy(m.data, "hello", 5);
		d0->got_deliver = false;
		ok(dev_call(d0, &m, sizeof(m), SNODE_FM_MSG_SEND) == SNODE_FM_OK,
		   "MSG_SEND to sim endpoint 0: OK");
		ok(WAIT_FOR(d0->got_deliver, 1000) && d0->deliver.src_node == 3 &&
		   d0->deliver.dst_ep == 7 && d0->deliver.len == 5 &&
		   !memcmp(d0->deliver.data, "hello", 5) && d0->deliver.msg_seq == 1,
		   "sim echo comes back to src_ep");
		m.dst_ep = 1;
		ok(dev_call(d0, &m, sizeof(m), SNODE_FM_MSG_SEND) == SNODE_FM_ENOEP,
		   "sim endpoint 1: NO_ENDPOINT");
		m.dst_node = 1;
		m.dst_ep = 4;
		m.hdr.type = SNODE_FM_MSG_SEND;
		m.hdr.len = sizeof(m);
		m.hdr.seq = 4242;
		d1->got_deliver = false;
		send(d0->fd, &m, sizeof(m), MSG_NOSIGNAL);
		ok(WAIT_FOR(d1->got_deliver, 1000) && d1->deliver.src_node == 0 &&
		   d1->deliver.dst_ep == 4, "MSG_SEND to a VM node: MSG_DELIVER");
		{
			struct snode_fm_hdr rep = {
				.type = SNODE_FM_MSG_DELIVER, .flags = SNODE_FM_F_REPLY,
				.len = sizeof(rep), .seq = d1->deliver.hdr.seq,
				.status = SNODE_FM_EQFULL,
			};

			send(d1->fd, &rep, sizeof(rep), MSG_NOSIGNAL);
			ok(!pump(1000, d0, SNODE_FM_MSG_SEND, true) &&
			   ((struct snode_fm_hdr *)d0->last)->seq == 4242 &&
			   ((struct snode_fm_hdr *)d0->last)->status == SNODE_FM_EQFULL,
			   "the receiver's status is relayed to the sender");
		}
	}

	/* routing and failover via ctl */
	ok(ctl(NULL, "link down 0.0") == 0, "ctl link down 0.0");
	ok(WAIT_FOR(d0->nroute[3] == 1 && d0->nroute[1] == 1, 1000) &&
	   d0->port[0].oper_state == SNODE_FM_PORT_DOWN &&
	   d0->port[0].down_events == 1, "route moves to port 1; port 0 down");
	ok(ctl(NULL, "link down 0.1") == 0 &&
	   WAIT_FOR(d0->nstate[3] == SNODE_FM_NODE_UNREACHABLE &&
		    has_revoke(d0, 2, SNODE_FM_REVOKE_UNREACHABLE), 1000),
	   "both ports down: unreachable, grant revoked (UNREACHABLE)");
	ok(WAIT_FOR(d1->nstate[0] == SNODE_FM_NODE_UNREACHABLE, 1000),
	   "the other side sees it unreachable too");
	ok(ctl(NULL, "node join 0") == 0 &&
	   WAIT_FOR(d0->nstate[3] == SNODE_FM_NODE_UP && d0->nroute[3] == 0, 1000),
	   "ctl node join: up again on port 0");
	ok(ctl(NULL, "link lanes 0.0 2") == 0 &&
	   WAIT_FOR(d0->port[0].oper_state == SNODE_FM_PORT_DEGRADED &&
		    d0->port[0].lanes == 2, 1000), "ctl link lanes: degraded");
	ok(ctl(NULL, "link lanes 0.0 max") == 0 &&
	   WAIT_FOR(d0->port[0].oper_state == SNODE_FM_PORT_UP, 1000),
	   "ctl link lanes max: restored");
	ok(ctl(NULL, "link ber 0.0 1e-9") == 0 &&
	   WAIT_FOR(d0->port[0].crc_errors > 0 && d0->port[0].ber == 1e-9, 1000),
	   "ctl link ber: CRC errors reach the device");
	ok(ctl(NULL, "link flap 0.1 count 2 period 100") == 0 &&
	   WAIT_FOR(d0->port[1].down_events == 3 &&
		    d0->port[1].oper_state == SNODE_FM_PORT_UP, 1500),
	   "ctl link flap count 2: two more down events, ends up");
	ok(ctl(NULL, "switch down p1") == 0 &&
	   WAIT_FOR(d0->port[1].oper_state == SNODE_FM_PORT_DOWN &&
		    d1->port[1].oper_state == SNODE_FM_PORT_DOWN, 1000) &&
	   d0->port[0].oper_state == SNODE_FM_PORT_UP,
	   "ctl switch down p1: port 1 of every node down, port 0 still up");
	ok(ctl(NULL, "switch up p1") == 0 &&
	   WAIT_FOR(d0->port[1].oper_state == SNODE_FM_PORT_UP &&
		    d1->port[1].oper_state == SNODE_FM_PORT_UP, 1500),
	   "ctl switch up p1: they come back");
	ok(ctl(NULL, "switch down p9") == 1 && ctl(NULL, "switch sideways p1") == 1,
	   "ctl switch: an unknown switch or verb fails");
	ok(ctl(NULL, "link down 9.0") == 1, "ctl on a missing link fails");
	ok(ctl(NULL, "link down p0/p1") == 1, "ctl on a missing inter-switch link fails");
	ok(ctl(NULL, "node temp 0 85000") == 0 &&
	   WAIT_FOR(d0->sensor.temp_mc == 85000, 1000), "ctl node temp: SENSOR");
	ok(d0->sensor.power_mw == 12000,
	   "ctl node temp keeps the device's default power reading (12000 mW)");
	ok(ctl(NULL, "node power 0 15000") == 0 &&
	   WAIT_FOR(d0->sensor.power_mw == 15000 && d0->sensor.temp_mc == 85000,
		    1000), "ctl node power: SENSOR");

	/* ctl sim export/unexport */
	ok(ctl(NULL, "sim export 3 1 64K 4K 0x99 rw nodes 0") == 0, "ctl sim export");
	ok(dev_grant(d1, 1, 3, 1, 0x99, 3, 0, 4096) == SNODE_FM_ENOTALLOWED,
	   "its node list keeps node 1 out");
	ok(dev_grant(d0, 4, 3, 1, 0x99, 3, 0, 4096) == SNODE_FM_OK,
	   "node 0 may map it read-write");
	fm_buf_free(&out);
	ok(ctl(&out, "sim unexport 3 1") == 0 && out.s && strstr(out.s, "revoked 1") &&
	   WAIT_FOR(has_revoke(d0, 4, SNODE_FM_REVOKE_UNEXPORT), 1000),
	   "ctl sim unexport revokes");

	/* reset */
	ok(dev_export(d1, 2, 0, 4096, 1, 1) == SNODE_FM_OK &&
	   dev_grant(d0, 5, 1, 2, 1, 1, 0, 4096) == SNODE_FM_OK, "export and grant");
	{
		struct snode_fm_reset m;

		ok(dev_call(d1, &m, sizeof(m), SNODE_FM_RESET) == SNODE_FM_OK &&
		   WAIT_FOR(has_revoke(d0, 5, SNODE_FM_REVOKE_EXPORTER_RESET), 1000) &&
		   d0->nstate[1] == SNODE_FM_NODE_UP,
		   "RESET: importers revoked (EXPORTER_RESET), node stays up");
	}

	/* death by closing, heartbeat loss, kill */
	ok(dev_export(d0, 1, 0, 4096, 1, 1) == SNODE_FM_OK &&
	   dev_grant(d1, 7, 0, 1, 1, 1, 0, 4096) == SNODE_FM_OK, "node 1 maps node 0");
	dev_free(d0);
	ok(WAIT_FOR(d1->nstate[0] == SNODE_FM_NODE_DEAD &&
		    has_revoke(d1, 7, SNODE_FM_REVOKE_NODE_DEAD), 1000),
	   "socket closed: DEAD announced, grants onto it revoked (NODE_DEAD)");
	d0 = dev_connect();
	d0->hb = true;
	ok(dev_hello(d0, 0, 0) == SNODE_FM_OK &&
	   WAIT_FOR(d1->nstate[0] == SNODE_FM_NODE_UP, 1000), "rejoin: UP again");
	d2 = dev_connect();
	ok(dev_hello(d2, 2, 0) == SNODE_FM_OK, "node 2 attaches, never heartbeats");
	ok(WAIT_FOR(d1->nstate[2] == SNODE_FM_NODE_DEAD, 2000),
	   "a node silent for 1 s is DEAD");
	ok(WAIT_FOR(d2->closed, 500), "and its connection is closed");
	dev_free(d2);
	victim = fork();
	if (victim == 0) {
		pause();
		_exit(0);
	}
	d2 = dev_connect();
	d2->hb = true;
	ok(dev_hello(d2, 2, victim) == SNODE_FM_OK, "node 2 rejoins with a pid");
	ok(ctl(NULL, "node kill 2") == 0 && waitpid(victim, &st, 0) == victim &&
	   WIFSIGNALED(st) && WTERMSIG(st) == SIGKILL, "ctl node kill SIGKILLs the pid");
	ok(WAIT_FOR(d1->nstate[2] == SNODE_FM_NODE_DEAD && d2->closed, 1000),
	   "the killed node is DEAD");
	dev_free(d2);

	/* a misbehaving device */
	bad = dev_connect();
	send(bad->fd, "xyz", 3, MSG_NOSIGNAL);
	ok(WAIT_FOR(bad->closed, 1000), "garbage packet: connection closed");
	dev_free(bad);
	bad = dev_connect();
	{
		struct snode_fm_grant g = { .hdr = { .type = SNODE_FM_GRANT,
						     .len = sizeof(g) } };

		send(bad->fd, &g, sizeof(g), MSG_NOSIGNAL);
		ok(WAIT_FOR(bad->closed, 1000), "request before HELLO: closed");
	}
	dev_free(bad);
	bad = dev_connect();
	dev_hello(bad, 2, 0);
	{
		struct snode_fm_hdr h = { .type = SNODE_FM_GRANT, .len = 16 };

		send(bad->fd, &h, sizeof(h), MSG_NOSIGNAL);
		ok(WAIT_FOR(bad->closed, 1000), "short GRANT: closed");
	}
	dev_free(bad);
	fm_buf_free(&out);
	ok(ctl(&out, "show nodes from 1 -j") == 0 && out.s &&
	   strstr(out.s, "{\"id\":0,") && strstr(out.s, "\"view\":\"up\",\"route_port\":0"),
	   "the fm survives; show nodes -j from 1");
	fm_buf_free(&out);
	ok(ctl(&out, "show links -j") == 0 && out.s && out.s[0] == '[',
	   "show links -j");
	fm_buf_free(&out);

	dev_free(d0);
	dev_free(d1);
	kill(fm, SIGTERM);
	ok(waitpid(fm, &st, 0) == fm && WIFEXITED(st) && WEXITSTATUS(st) == 0,
	   "SIGTERM: clean exit");
	snprintf(path, sizeof(path), "%s/fm.sock", rundir);
	ok(count_shm(fm) == 0 && access(path, F_OK), "memory files and sockets removed");

	/* SIGKILL leaves files; the next fm removes them */
	fm = start_fm(topo);
	kill(fm, SIGKILL);
	waitpid(fm, &st, 0);
	ok(count_shm(fm) == 4, "SIGKILLed fm leaves its files");
	{
		pid_t fm2 = start_fm(topo);

		ok(count_shm(fm) == 0, "the next fm removes them");
		kill(fm2, SIGTERM);
		waitpid(fm2, &st, 0);
	}
	/* the liveness timeout: --dead-ms or $SNODE_FM_DEAD_MS */
	ok(fm_dead_ms(0) == SNODE_FM_DEAD_MS, "dead-ms: 1000 by default");
	ok(fm_dead_ms(3000) == 3000, "dead-ms: the option wins");
	setenv("SNODE_FM_DEAD_MS", "abc", 1);
	ok(fm_dead_ms(0) == 0, "dead-ms: a bad environment value is refused");
	setenv("SNODE_FM_DEAD_MS", "2500", 1);
	ok(fm_dead_ms(0) == 2500, "dead-ms: from the environment");
	fm = start_fm(topo);
	unsetenv("SNODE_FM_DEAD_MS");
	d2 = dev_connect();
	ok(dev_hello(d2, 2, 0) == SNODE_FM_OK, "dead-ms 2500: node 2 attaches, never heartbeats");
	pump(1600, NULL, 0, false);
	ok(!d2->closed, "dead-ms 2500: still attached after 1.6 s of silence");
	ok(WAIT_FOR(d2->closed, 2500), "dead-ms 2500: closed after 2.5 s of silence");
	dev_free(d2);
	kill(fm, SIGTERM);
	waitpid(fm, &st, 0);

	test_e2e_direct(topo);

	snprintf(path, sizeof(path), "rm -rf %s", rundir);
	if (system(path))
		tap_diag("cannot remove %s", rundir);
}
