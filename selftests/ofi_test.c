// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * ofi_test - the libfabric provider "snode" through the public libfabric
 * API only, as any libfabric program uses it (selftests/vm/ofi.sh).
 *
 *   ofi_test hints
 *       fi_getinfo with unsupported hints gives -FI_ENODATA and a warning
 *       that says why, supported hints give the snode provider with the
 *       attributes asked for; an event queue with FI_WAIT_FD: its
 *       descriptor, fi_eq_write, fi_eq_sread with and without an event
 *   ofi_test pair a|b DIR [ITERS]
 *       one side of a two-node test: writes its address to DIR/ROLE.addr,
 *       waits up to 120 s for the peer's in DIR/peer.addr (the harness
 *       carries it from one node to the other, no IP needed), then sends
 *       500 small messages each way and counts the NIC messages its
 *       endpoint read meanwhile (rings, fi_snode(7): a few), sends
 *       tagged and untagged messages of 0, 1, 48, 49 and 4096 bytes and
 *       64 KiB, 256 KiB, 1 MiB and 4 MiB (rendezvous) both ways (expected
 *       and unexpected receives, tag matching), checks bytes and CQ
 *       entries, sends from a registered buffer with its desc (the
 *       provider's counters, fi_ext_snode.h: pulled straight from the
 *       registration, no bounce copy), fi_write, fi_writedata and fi_read
 *       against the peer's registered memory (directly, no bounce copy;
 *       at odd offsets and sizes too, the target checking its own buffer;
 *       bad keys and ranges give error entries), the
 *       FI_READ, FI_WRITE, FI_REMOTE_READ and FI_REMOTE_WRITE counters
 *       they count on, a blocking fi_cntr_wait() and fi_cq_sread(),
 *       FI_MULTI_RECV buffers (filled, given back, cancelled),
 *       atomics on it (b's remote fetch-adds race a's local ones), sends
 *       to an endpoint that does not exist, measures small-message round
 *       trips, message and RMA bandwidth, and last lets b die in the middle
 *       of two rendezvous: a's send and receive end with error entries.
 *       Probes (fi_trecvmsg FI_PEEK, FI_CLAIM, FI_DISCARD, fi_tagged(3)):
 *       a peek that finds nothing gets FI_ENOMSG, one that finds an eager
 *       or a rendezvous message its length, tag and source and leaves it
 *       there, a claimed message goes to the FI_CLAIM receive with the
 *       same context, a discarded one is gone and its sender completes.
 *   ofi_test victim DIR
 *       posts tagged receives, publishes DIR/a.addr and waits for a
 *       hostile peer (below): each malformed rendezvous must end its
 *       receive with an error entry, and the good messages behind them
 *       must arrive intact; a crash or a hang fails
 *   ofi_test hostile DIR
 *       the hostile peer, through libsnode's raw messages: reads the
 *       victim's address from DIR/peer.addr and sends crafted RTS
 *       (a slot offset near 4 GiB whose +64 wraps 32 bits, lengths beyond
 *       max_msg_size and beyond its real region, a misaligned ready
 *       word), answers with impossible statuses, an atomic of an unknown
 *       kind, an eager header announcing max_msg_size bytes that never
 *       come, zero-copy RTS past the export they name, then two good
 *       eager messages; before those it asks for the victim's
 *       registration (an unknown key is refused, the real one imports as
 *       its own two pages only, under its own key) and writes through the
 *       grant, which the victim finds with the pages around untouched;
 *       checks that the victim
 *       answers every bad RTS with a failed DONE. Then it offers the
 *       victim rings of its own (ring.c's protocol by hand) and breaks
 *       each (a head beyond the ring, entries too long, past the head,
 *       empty or of an unknown kind, a short padding entry): the victim
 *       must drop each (withdraw its control page); a last, good ring
 *       carries a message the victim must receive intact
 *
 * Every check prints "ok - NAME" or "not ok - NAME"; the exit status is 1
 * if any failed. The harness turns the lines into its own TAP lines.
 */
#include <errno.h>
#include <inttypes.h>
#include <poll.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/mman.h>
#include <unistd.h>
#include <rdma/fabric.h>
#include <rdma/fi_atomic.h>
#include <rdma/fi_cm.h>
#include <rdma/fi_domain.h>
#include <rdma/fi_endpoint.h>
#include <rdma/fi_eq.h>
#include <rdma/fi_errno.h>
#include <rdma/fi_rma.h>
#include <rdma/fi_tagged.h>
#include <libsnode.h>

#include "../ofi/fi_ext_snode.h"

static int failures;

static void check(int cond, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
static void check(int cond, const char *fmt, ...)
{
	va_list ap;

	printf("%s - ", cond ? "ok" : "not ok");
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
	fflush(stdout);
	if (!cond)
		failures++;
}

static struct fi_info *hints_new(void)
{
	struct fi_info *h = fi_allocinfo();

	if (!h)
		exit(1);
	h->fabric_attr->prov_name = strdup("snode");
	h->ep_attr->type = FI_EP_RDM;
	h->caps = FI_MSG | FI_TAGGED;
	return h;
}

static int getinfo(struct fi_info *h, struct fi_info **out)
{
	struct fi_info *fi = NULL;
	int ret = fi_getinfo(FI_VERSION(1, 17), NULL, NULL, 0, h, &fi);

	if (out)
		*out = fi;
	else
		fi_freeinfo(fi);
	fi_freeinfo(h);
	return ret;
}

/* getinfo() with what it writes to stderr (libfabric's log) into buf */
static int getinfo_log(struct fi_info *h, char *buf, size_t len)
{
	FILE *tmp = tmpfile();
	int saved = dup(2), ret;
	size_t n = 0;

	fflush(stderr);
	if (tmp && saved >= 0)
		dup2(fileno(tmp), 2);
	ret = getinfo(h, NULL);
	fflush(stderr);
	if (tmp && saved >= 0) {
		dup2(saved, 2);
		rewind(tmp);
		n = fread(buf, 1, len - 1, tmp);
	}
	buf[n] = 0;
	if (saved >= 0)
		close(saved);
	if (tmp)
		fclose(tmp);
	return ret;
}

static double now_us(void);

/* fi_eq(3): an event queue with a wait object, fi_eq_write, fi_eq_sread */
static void eq_checks(void)
{
	struct fi_eq_attr attr = { .wait_obj = FI_WAIT_FD, .flags = FI_WRITE };
	struct fi_eq_entry in = { .context = &attr, .data = 0x5eed }, out;
	struct fi_info *h = hints_new(), *fi = NULL;
	struct fid_fabric *fabric;
	struct fid_eq *eq;
	uint32_t event = 0;
	struct pollfd p;
	double t0;
	ssize_t r;
	int fd = -1;

	if (fi_getinfo(FI_VERSION(1, 17), NULL, NULL, 0, h, &fi) ||
	    fi_fabric(fi->fabric_attr, &fabric, NULL)) {
		check(0, "eq: a fabric to open an event queue on");
		fi_freeinfo(h);
		return;
	}
	fi_freeinfo(h);
	r = fi_eq_open(fabric, &attr, &eq, NULL);
	check(!r, "eq: fi_eq_open with FI_WAIT_FD and FI_WRITE (%zd %s)", r,
	      fi_strerror(-r));
	if (r)
		goto out;
	r = fi_control(&eq->fid, FI_GETWAIT, &fd);
	p = (struct pollfd){ .fd = fd, .events = POLLIN };
	check(!r && fd >= 0 && poll(&p, 1, 0) == 0,
	      "eq: FI_GETWAIT gives a descriptor, not readable while empty (%zd, fd %d)",
	      r, fd);
	t0 = now_us();
	r = fi_eq_sread(eq, &event, &out, sizeof(out), 200, 0);
	check(r == -FI_EAGAIN && now_us() - t0 >= 150e3,
	      "eq: fi_eq_sread on an empty queue waits its 200 ms, -FI_EAGAIN (%zd after %.0f ms)",
	      r, (now_us() - t0) / 1e3);
	r = fi_eq_write(eq, FI_NOTIFY, &in, sizeof(in), 0);
	check(r == sizeof(in) && poll(&p, 1, 0) == 1,
	      "eq: fi_eq_write of an FI_NOTIFY event, the descriptor polls readable (%zd)", r);
	memset(&out, 0, sizeof(out));
	r = fi_eq_sread(eq, &event, &out, sizeof(out), 1000, 0);
	check(r == sizeof(out) && event == FI_NOTIFY && out.context == &attr &&
	      out.data == 0x5eed && poll(&p, 1, 0) == 0,
	      "eq: fi_eq_sread returns it (event, context, data), the descriptor is quiet again (%zd)",
	      r);
	fi_close(&eq->fid);
out:
	fi_close(&fabric->fid);
	fi_freeinfo(fi);
}

static int do_hints(void)
{
	struct fi_info *h, *fi;
	char log[8192];
	int ret;

	/* before libfabric's first call, which reads it: warnings on stderr */
	setenv("FI_LOG_LEVEL", "warn", 0);
	h = hints_new();
	ret = getinfo(h, &fi);
	check(ret == 0 && fi, "FI_EP_RDM, FI_MSG | FI_TAGGED: found (%s)",
	      fi_strerror(-ret));
	if (!ret && fi) {
		check(!strcmp(fi->fabric_attr->prov_name, "snode"),
		      "provider name snode (%s)", fi->fabric_attr->prov_name);
		check(fi->ep_attr->type == FI_EP_RDM, "endpoint type FI_EP_RDM");
		check((fi->caps & (FI_MSG | FI_TAGGED)) == (FI_MSG | FI_TAGGED),
		      "caps FI_MSG and FI_TAGGED");
		check(fi->addr_format == FI_ADDR_STR, "address format FI_ADDR_STR");
		check(fi->domain_attr->threading == FI_THREAD_SAFE,
		      "FI_THREAD_SAFE");
		check(!strncmp(fi->domain_attr->name, "snode", 5),
		      "domain is the NIC (%s)", fi->domain_attr->name);
		fi_freeinfo(fi);
	}

	/* decision 0048: FI_MR_LOCAL offered to whoever accepts it, only */
	h = hints_new();
	h->domain_attr->mr_mode = FI_MR_LOCAL | FI_MR_ALLOCATED |
				  FI_MR_PROV_KEY | FI_MR_VIRT_ADDR;
	ret = getinfo(h, &fi);
	check(!ret && fi && fi->domain_attr->mr_mode == FI_MR_LOCAL,
	      "mr_mode FI_MR_LOCAL accepted (fi_pingpong's hints): mr_mode FI_MR_LOCAL, no other bit (%s, %#x)",
	      fi_strerror(-ret), fi ? fi->domain_attr->mr_mode : 0);
	fi_freeinfo(fi);
	h = hints_new();
	ret = getinfo(h, &fi);
	check(!ret && fi && fi->domain_attr->mr_mode == 0,
	      "mr_mode 0 in the hints (OpenMPI's mtl ofi): mr_mode 0 (%s, %#x)",
	      fi_strerror(-ret), fi ? fi->domain_attr->mr_mode : 0);
	fi_freeinfo(fi);

	h = hints_new();
	h->domain_attr->av_type = FI_AV_MAP;
	ret = getinfo(h, &fi);
	check(!ret && fi->domain_attr->av_type == FI_AV_MAP, "FI_AV_MAP asked, given");
	fi_freeinfo(fi);

#define NODATA(what, set) do { \
		h = hints_new(); \
		set; \
		ret = getinfo(h, NULL); \
		check(ret == -FI_ENODATA, "unsupported hint %s: -FI_ENODATA (got %d %s)", \
		      what, ret, fi_strerror(-ret)); \
	} while (0)
	NODATA("FI_EP_DGRAM", h->ep_attr->type = FI_EP_DGRAM);
	NODATA("FI_EP_MSG", h->ep_attr->type = FI_EP_MSG);
	h = hints_new();
	h->caps |= FI_RMA;
	ret = getinfo(h, &fi);
	check(!ret && fi && (fi->caps & FI_RMA) &&
	      fi->tx_attr->rma_iov_limit >= 1,
	      "FI_RMA asked: given, rma_iov_limit >= 1 (%s)", fi_strerror(-ret));
	fi_freeinfo(fi);
	h = hints_new();
	h->caps |= FI_ATOMIC;
	ret = getinfo(h, &fi);
	check(!ret && fi && (fi->caps & FI_ATOMIC), "FI_ATOMIC asked: given (%s)",
	      fi_strerror(-ret));
	fi_freeinfo(fi);
	NODATA("FI_COLLECTIVE", h->caps |= FI_COLLECTIVE);
	NODATA("FI_SOCKADDR_IN", h->addr_format = FI_SOCKADDR_IN);
	NODATA("max_msg_size 1 TiB", h->ep_attr->max_msg_size = 1ULL << 40);
	NODATA("FI_PROGRESS_AUTO", h->domain_attr->data_progress = FI_PROGRESS_AUTO);
	/* fi_getinfo(3) leaves why to the provider's log: it must say */
	h = hints_new();
	h->domain_attr->data_progress = FI_PROGRESS_AUTO;
	ret = getinfo_log(h, log, sizeof(log));
	{
		const char *w = strstr(log, "automatic data progress");

		while (w && w > log && w[-1] != '\n')
			w--;	/* the whole line */
		check(ret == -FI_ENODATA && w && strstr(w, "snode"),
		      "FI_PROGRESS_AUTO refused: the provider's warning says why (FI_LOG_LEVEL=warn): %.*s",
		      w ? (int)strcspn(w, "\n") : 0, w ? w : "");
	}
	h = hints_new();
	h->ep_attr->type = FI_EP_MSG;
	ret = getinfo_log(h, log, sizeof(log));
	check(ret == -FI_ENODATA && strstr(log, "endpoint type other than FI_EP_RDM"),
	      "FI_EP_MSG refused: the provider's warning names the endpoint type");
	eq_checks();
	NODATA("iov_limit 64", h->tx_attr->iov_limit = 64);
	NODATA("domain nosuch", h->domain_attr->name = strdup("nosuch"));
	NODATA("fabric nosuch", h->fabric_attr->name = strdup("nosuch"));
	return failures ? 1 : 0;
}

/* --- the pair test ----------------------------------------------------------- */
struct ctx {
	struct fi_info *fi;
	struct fid_fabric *fabric;
	struct fid_domain *domain;
	struct fid_av *av;
	struct fid_cq *txcq, *rxcq;
	/* pair: bound with FI_READ, FI_WRITE, FI_REMOTE_READ, FI_REMOTE_WRITE */
	struct fid_cntr *rd, *wr, *rrd, *rwr;
	struct fid_ep *ep;
	fi_addr_t peer, bogus;
	int a;			/* role a: sends first */
};

#define TRY(call) do { \
		int _r = (call); \
		if (_r) { \
			printf("not ok - %s: %d (%s)\n", #call, _r, fi_strerror(-_r)); \
			exit(1); \
		} \
	} while (0)

static double now_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e6 + ts.tv_nsec / 1e3;
}

static void fill(unsigned char *b, size_t n, unsigned int seed)
{
	size_t i;

	for (i = 0; i < n; i++)
		b[i] = (unsigned char)(seed * 131 + i * 7 + (i >> 8));
}

static int verify(const unsigned char *b, size_t n, unsigned int seed)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (b[i] != (unsigned char)(seed * 131 + i * 7 + (i >> 8)))
			return 0;
	return 1;
}

/* one completion from cq within 30 s; 1 on success, 0 on error entry */
static int wait_cq(struct fid_cq *cq, struct fi_cq_tagged_entry *e,
		   fi_addr_t *src, struct fi_cq_err_entry *err)
{
	double end = now_us() + 30e6;
	ssize_t n;

	for (;;) {
		n = fi_cq_readfrom(cq, e, 1, src);
		if (n == 1)
			return 1;
		if (n == -FI_EAVAIL) {
			memset(err, 0, sizeof(*err));
			fi_cq_readerr(cq, err, 0);
			return 0;
		}
		if (n != -FI_EAGAIN) {
			printf("not ok - fi_cq_read: %zd (%s)\n", n, fi_strerror(-n));
			exit(1);
		}
		if (now_us() > end) {
			printf("not ok - no completion within 30 s\n");
			exit(1);
		}
	}
}

static void post_send(struct ctx *c, int tagged, void *buf, size_t len,
		      uint64_t tag, void *context)
{
	ssize_t r;

	do {
		r = tagged ? fi_tsend(c->ep, buf, len, NULL, c->peer, tag, context)
			   : fi_send(c->ep, buf, len, NULL, c->peer, context);
		if (r == -FI_EAGAIN) {
			struct fi_cq_tagged_entry e;

			fi_cq_read(c->rxcq, &e, 0);	/* progress only */
		}
	} while (r == -FI_EAGAIN);
	if (r) {
		printf("not ok - send: %zd (%s)\n", r, fi_strerror(-r));
		exit(1);
	}
}

static void post_recv(struct ctx *c, int tagged, void *buf, size_t len,
		      uint64_t tag, void *context)
{
	ssize_t r = tagged ? fi_trecv(c->ep, buf, len, NULL, FI_ADDR_UNSPEC,
				      tag, 0, context)
			   : fi_recv(c->ep, buf, len, NULL, FI_ADDR_UNSPEC,
				     context);

	if (r) {
		printf("not ok - recv: %zd (%s)\n", r, fi_strerror(-r));
		exit(1);
	}
}

static const size_t sizes[] = { 0, 1, 48, 49, 4096, 65536, 262144,
				1048576, 4194304 };
#define NSIZES (sizeof(sizes) / sizeof(sizes[0]))

static void check_send_done(struct ctx *c, int tagged, size_t len, void *context,
			    const char *what)
{
	struct fi_cq_tagged_entry e;
	struct fi_cq_err_entry err;
	int ok = wait_cq(c->txcq, &e, NULL, &err);

	check(ok && e.op_context == context &&
	      (e.flags & FI_SEND) && (e.flags & (tagged ? FI_TAGGED : FI_MSG)),
	      "%s: send completion (context, flags%s)", what,
	      ok ? "" : ", got an error entry");
}

static void check_recv_done(struct ctx *c, int tagged, size_t len, uint64_t tag,
			    void *context, const unsigned char *buf,
			    unsigned int seed, const char *what)
{
	struct fi_cq_tagged_entry e;
	struct fi_cq_err_entry err;
	fi_addr_t src = FI_ADDR_NOTAVAIL;
	int ok = wait_cq(c->rxcq, &e, &src, &err);

	check(ok && e.op_context == context && e.len == len &&
	      (e.flags & FI_RECV) && (e.flags & (tagged ? FI_TAGGED : FI_MSG)) &&
	      (!tagged || e.tag == tag) && src == c->peer,
	      "%s: receive completion (context, len %zu, flags, tag, source %s)",
	      what, ok ? (size_t)e.len : (size_t)0,
	      src == c->peer ? "the peer" : "wrong");
	check(ok && verify(buf, len, seed), "%s: %zu bytes arrived intact",
	      what, len);
}

/* ping-pong: a sends, b answers with the same size (posted receives) */
static void pingpong(struct ctx *c, int tagged, size_t len)
{
	unsigned char *tx = malloc(len + 1), *rx = calloc(1, len + 1);
	uint64_t tag = 0x5a00 + len;
	char what[80];
	int s;

	for (s = 0; s < 2; s++) {	/* s = 0: a -> b, 1: b -> a */
		int sender = (s == 0) == c->a;
		unsigned int seed = (unsigned int)len + 1000 * s + 77 * tagged;

		snprintf(what, sizeof(what), "%s %zu bytes %s",
			 tagged ? "tagged" : "untagged", len,
			 s == 0 ? "a->b" : "b->a");
		if (sender) {
			fill(tx, len, seed);
			post_send(c, tagged, tx, len, tag, tx);
			check_send_done(c, tagged, len, tx, what);
		} else {
			memset(rx, 0, len + 1);
			post_recv(c, tagged, rx, len, tag, rx);
			check_recv_done(c, tagged, len, tag, rx, rx, seed, what);
		}
	}
	free(tx);
	free(rx);
}

/*
 * a sends one message of every size, largest first, before b posts any
 * receive; b then receives them: unexpected messages, tagged ones in the
 * other order (matched by tag), untagged ones in the order sent. A
 * rendezvous send completes once b took its bytes, so a collects its send
 * completions only after posting them all.
 */
static void unexpected(struct ctx *c, const char *dir, int tagged)
{
	static unsigned char *bufs[NSIZES];
	struct fi_cq_tagged_entry e;
	struct fi_cq_err_entry err;
	unsigned int i, k, seen = 0, bad = 0;
	char what[96];

	for (i = 0; i < NSIZES; i++)
		bufs[i] = calloc(1, sizeof(char) * (sizes[i] + 1));
	if (c->a) {
		for (i = NSIZES; i-- > 0;) {
			fill(bufs[i], sizes[i], 500 + i + 50 * tagged);
			post_send(c, tagged, bufs[i], sizes[i], 0x7700 + i,
				  bufs[i]);
		}
		for (k = 0; k < NSIZES; k++) {
			if (!wait_cq(c->txcq, &e, NULL, &err)) {
				bad++;
				continue;
			}
			for (i = 0; i < NSIZES; i++)
				if (e.op_context == bufs[i])
					seen |= 1u << i;
		}
		check(!bad && seen == (1u << NSIZES) - 1,
		      "unexpected %s %s: %zu send completions, one per message, no error",
		      tagged ? "tagged" : "untagged", dir, NSIZES);
	} else {
		sleep(2);	/* everything is in the ring or in flight */
		for (k = 0; k < NSIZES; k++) {
			i = tagged ? k : NSIZES - 1 - k;
			snprintf(what, sizeof(what), "unexpected %s %zu bytes %s%s",
				 tagged ? "tagged" : "untagged", sizes[i], dir,
				 tagged ? ", matched by tag" : ", in order");
			post_recv(c, tagged, bufs[i], sizes[i], 0x7700 + i,
				  bufs[i]);
			check_recv_done(c, tagged, sizes[i], 0x7700 + i, bufs[i],
					bufs[i], 500 + i + 50 * tagged, what);
		}
	}
	for (i = 0; i < NSIZES; i++)
		free(bufs[i]);
}

/* a barrier: each side sends a doorbell-sized message and waits for one */
static void barrier(struct ctx *c)
{
	struct fi_cq_tagged_entry e;
	struct fi_cq_err_entry err;
	char b = 0, r = 0;

	post_recv(c, 1, &r, 1, 0xbbbb, &r);
	post_send(c, 1, &b, 1, 0xbbbb, &b);
	wait_cq(c->txcq, &e, NULL, &err);
	wait_cq(c->rxcq, &e, NULL, &err);
}

/* the provider's counters of how bytes moved (fi_ext_snode.h) */
static void stats(struct ctx *c, struct fi_snode_stats *st)
{
	static struct fi_snode_stats_ops *ops;

	if (!ops)
		TRY(fi_open_ops(&c->domain->fid, FI_SNODE_STATS_OPS, 0,
				(void **)&ops, NULL));
	memset(st, 0, sizeof(*st));
	TRY(ops->read(c->domain, st, sizeof(*st)));
}

/* registrations are exported unless the run asked for the bounce path */
static int mr_export_on(void)
{
	const char *e = getenv("FI_SNODE_MR_EXPORT");

	return !e || strcmp(e, "0");
}

/* n round trips of 8 bytes in buf: a sends with tag, b answers with tag + 1 */
static void round_trips(struct ctx *c, void *buf, int n, uint64_t tag)
{
	struct fi_cq_tagged_entry e;
	struct fi_cq_err_entry err;
	int i;

	for (i = 0; i < n; i++) {
		if (c->a) {
			post_send(c, 1, buf, 8, tag, buf);
			wait_cq(c->txcq, &e, NULL, &err);
			post_recv(c, 1, buf, 8, tag + 1, buf);
			wait_cq(c->rxcq, &e, NULL, &err);
		} else {
			post_recv(c, 1, buf, 8, tag, buf);
			wait_cq(c->rxcq, &e, NULL, &err);
			post_send(c, 1, buf, 8, tag + 1, buf);
			wait_cq(c->txcq, &e, NULL, &err);
		}
	}
}

/*
 * What zero copy from an unregistered buffer would cost per message (an
 * export made for the message and withdrawn after it, decision 0045):
 * export 1 MiB of buf to this node, import, map, unmap, close, unexport,
 * against one memcpy() of 1 MiB (the bounce copy it would save). Printed,
 * never asserted.
 */
static void export_cost(unsigned char *buf)
{
	struct snode_dev_status st = { 0 };
	struct snode_import *imp;
	struct snode_handle h;
	struct snode_ctx *sctx;
	struct snode_dev *dev;
	unsigned char *dst = malloc(1 << 20);
	/* exports are of whole pages */
	void *p = (void *)(((uintptr_t)buf + 4095) & ~(uintptr_t)4095);
	double t0, t_exp = 0, t_cpy;
	void *map;
	int i, n = 10, r = 0;

	if (snode_new(&sctx) < 0)
		return;
	dev = snode_dev_get_first(sctx);
	if (!dev || snode_dev_get_status(dev, &st, sizeof(st)) < 0)
		goto out;
	for (i = 0; i < n && !r; i++) {
		t0 = now_us();
		r = snode_export_mem(dev, p, 1 << 20, SNODE_EXPORT_RANDOM_KEY,
				     0, &st.node_id, 1, &h);
		if (r < 0)
			break;
		r = snode_import(dev, &h, 0, 1 << 20, 0, &imp);
		if (!r) {
			if (!snode_import_map(imp, &map))
				snode_import_unmap(imp);
			snode_import_close(imp);
		}
		snode_unexport(dev, &h);
		t_exp += now_us() - t0;
	}
	if (r < 0) {
		printf("# ofi export of 1 MiB per message: not measured (%s)\n",
		       strerror(-r));
		goto out;
	}
	t0 = now_us();
	for (i = 0; i < n; i++) {
		memcpy(dst, p, 1 << 20);
		__asm__ volatile("" : : "r"(dst) : "memory");	/* kept */
	}
	t_cpy = now_us() - t0;
	printf("# ofi export of 1 MiB per message: %.0f us (export, import, map, withdraw) against %.0f us for a memcpy() of it\n",
	       t_exp / n, t_cpy / n);
out:
	free(dst);
	snode_unref(sctx);
}

static void rma_rates(struct ctx *c, unsigned char *buf);

/*
 * n tagged messages of len bytes from a to b, after one that is not timed
 * (imports and exports are made once per peer, not per message): us
 */
static double bw_run(struct ctx *c, unsigned char *buf, size_t len,
		     struct fid_mr *mr, int n)
{
	struct fi_cq_tagged_entry e;
	struct fi_cq_err_entry err;
	double t0 = 0;
	ssize_t r;
	int i;

	for (i = -1; i < n; i++) {
		if (i <= 0) {
			barrier(c);
			t0 = now_us();
		}
		if (!c->a) {
			post_recv(c, 1, buf, len, 3, buf);
			wait_cq(c->rxcq, &e, NULL, &err);
			continue;
		}
		while ((r = fi_tsend(c->ep, buf, len, mr ? fi_mr_desc(mr) : NULL,
				     c->peer, 3, buf)) == -FI_EAGAIN)
			fi_cq_read(c->rxcq, &e, 0);	/* progress only */
		if (r) {
			printf("not ok - fi_tsend: %zd (%s)\n", r, fi_strerror(-r));
			exit(1);
		}
		wait_cq(c->txcq, &e, NULL, &err);
	}
	barrier(c);
	return now_us() - t0;
}

static void measure(struct ctx *c, int iters)
{
	static const size_t bw_sizes[] = { 65536, 1048576, 4194304 };
	/* page-aligned: 1024 pages, as many extents as a NIC takes at worst */
	unsigned char *buf = mmap(NULL, 4194304, PROT_READ | PROT_WRITE,
				  MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	struct fi_snode_stats s0, s1;
	struct fid_mr *mr;
	double t0, t;
	unsigned int k;
	int n = 8;

	if (buf == MAP_FAILED)
		exit(1);
	barrier(c);
	t0 = now_us();
	round_trips(c, buf, iters, 1);
	t = now_us() - t0;
	if (c->a)
		printf("# ofi rtt 8 bytes: %.1f us (%d iterations)\n", t / iters, iters);
	/*
	 * From a plain buffer (bounce) and from a registered one (zero copy,
	 * mr.c), in alternating rounds, the best round of each: the machine's
	 * other load moves single rounds by 2x and more.
	 */
	TRY(fi_mr_reg(c->domain, buf, 4194304, FI_SEND | FI_RECV, 0, 0xb0, 0,
		      &mr, NULL));
	for (k = 0; k < sizeof(bw_sizes) / sizeof(bw_sizes[0]); k++) {
		size_t len = bw_sizes[k];
		double best[2] = { 1e30, 1e30 };
		uint64_t zc = 0;
		int round, reg;

		n = len > 1048576 ? 4 : 16;
		for (round = 0; round < 3; round++)
			for (reg = 0; reg < 2; reg++) {
				stats(c, &s0);
				t = bw_run(c, buf, len, reg ? mr : NULL, n);
				stats(c, &s1);
				if (t < best[reg])
					best[reg] = t;
				if (reg)
					zc += s1.zc_sends - s0.zc_sends;
			}
		if (c->a)
			printf("# ofi bandwidth %zu KiB: %.2f MB/s from a plain buffer, %.2f MB/s from a registered one (%" PRIu64 " of %d sent zero copy), best of 3 alternating rounds of %d\n",
			       len >> 10, n * (double)len / best[0],
			       n * (double)len / best[1], zc, 3 * (n + 1), n);
	}
	TRY(fi_close(&mr->fid));
	rma_rates(c, buf);
	if (c->a)
		export_cost(buf);
	munmap(buf, 4194304);
}

/* messages the NIC delivered to endpoint id of this node, -1 if unknown */
static int64_t nic_msgs_read(uint32_t id)
{
	const struct snode_msg_entry *e;
	struct snode_msg_iter *it;
	struct snode_ctx *sctx;
	struct snode_dev *dev;
	int64_t n = -1;

	if (snode_new(&sctx) < 0)
		return -1;
	dev = snode_dev_get_first(sctx);
	if (dev && snode_msg_list(dev, SNODE_MSG_LIST_ENDPOINTS, sizeof(*e),
				  &it) >= 0) {
		snode_msg_iter_foreach(it, e)
			if (e->id == id)
				n = e->count;
		snode_msg_iter_free(it);
	}
	snode_unref(sctx);
	return n;
}

/*
 * Rings (fi_snode(7)): after the first messages, small messages between
 * the two endpoints travel through rings in global memory, not as NIC
 * messages: 500 round trips of 8 bytes, then each side counts the NIC
 * messages its endpoint read meanwhile: a few for the set-up, and
 * wake-ups, sent only while a side sleeps, as one with
 * FI_SNODE_IDLE_WAIT_US does between the messages (at most one each).
 */
static void ring_used(struct ctx *c, uint32_t my_id)
{
	const char *idle = getenv("FI_SNODE_IDLE_WAIT_US");
	int sleeps = idle && atoi(idle) > 0;
	unsigned char buf[8] = { 0 };
	int64_t n0, n1;

	barrier(c);
	n0 = nic_msgs_read(my_id);
	round_trips(c, buf, 500, 0x7171);
	n1 = nic_msgs_read(my_id);
	if (!sleeps)
		check(n0 >= 0 && n1 >= 0 && n1 - n0 < 50,
		      "rings: 500 messages of 8 bytes from the peer, the NIC delivered %" PRId64 " messages to this endpoint (%" PRId64 " to %" PRId64 "; fewer than 50)",
		      n1 - n0, n0, n1);
	else	/* it sleeps between messages: a wake-up each, no more */
		check(n0 >= 0 && n1 >= 0 && n1 - n0 <= 500 + 50,
		      "rings: 500 messages of 8 bytes from the peer to an endpoint that sleeps when idle (FI_SNODE_IDLE_WAIT_US), the NIC delivered %" PRId64 " messages to it (%" PRId64 " to %" PRId64 "; wake-ups, at most one a message)",
		      n1 - n0, n0, n1);
}

/* --- zero copy from registered memory (decision 0045) ----------------------- */
/*
 * Each side registers a 3 MiB send buffer (FI_SEND) and sends tagged
 * messages from it with its desc: above the ring's eager limit, from
 * unaligned offsets, of odd lengths, larger than a ring (128 KiB) and than
 * a rendezvous chunk, into unaligned receive buffers whose neighbouring
 * bytes must stay untouched. The provider's counters (fi_ext_snode.h)
 * must show each announced from the registration and pulled straight from
 * it, with no bounce copy on either side; under FI_SNODE_MR_EXPORT=0 the
 * same messages must take the bounce path instead.
 */
/* at most 1024 pages: a NIC takes that many extents (max_host_extents) */
#define ZC_BUF		(3 << 20)
static const struct {
	size_t off, len;
} zc_msgs[] = {
	{ 1, 65536 + 3 }, { 4095, 262144 + 5 }, { 0, 1 << 20 },
	{ 3, (2 << 20) + 17 },
};
#define ZC_N	(sizeof(zc_msgs) / sizeof(zc_msgs[0]))

static void zc_rendezvous(struct ctx *c)
{
	unsigned char *tx = malloc(ZC_BUF), *rx = malloc(ZC_BUF + 16);
	struct fi_snode_stats s0, s1;
	struct fid_mr *mr;
	char what[96];
	int s, on = mr_export_on();
	size_t i;

	TRY(fi_mr_reg(c->domain, tx, ZC_BUF, FI_SEND, 0, 0x2c0, 0, &mr, NULL));
	barrier(c);
	stats(c, &s0);
	for (s = 0; s < 2; s++) {
		int sender = (s == 0) == c->a;

		for (i = 0; i < ZC_N; i++) {
			unsigned int seed = 3000 + 10 * s + i;
			size_t len = zc_msgs[i].len;
			uint64_t tag = 0x2c00 + i;
			unsigned char *b;
			ssize_t r;

			snprintf(what, sizeof(what),
				 "zero copy: %zu bytes from +%zu of a registration %s",
				 len, zc_msgs[i].off, s == 0 ? "a->b" : "b->a");
			if (!sender) {
				memset(rx, 0xee, ZC_BUF + 16);
				b = rx + 5;
				post_recv(c, 1, b, len, tag, b);
				check_recv_done(c, 1, len, tag, b, b, seed, what);
				check(rx[4] == 0xee && b[len] == 0xee,
				      "%s: the bytes around the receive buffer are untouched",
				      what);
				continue;
			}
			b = tx + zc_msgs[i].off;
			fill(b, len, seed);
			do {
				r = fi_tsend(c->ep, b, len, fi_mr_desc(mr),
					     c->peer, tag, b);
				if (r == -FI_EAGAIN) {
					struct fi_cq_tagged_entry e;

					fi_cq_read(c->rxcq, &e, 0);
				}
			} while (r == -FI_EAGAIN);
			check(!r, "%s: posted (%zd)", what, r);
			if (!r)
				check_send_done(c, 1, len, b, what);
		}
	}
	stats(c, &s1);
	if (on) {
		check(s1.bounce_copies == s0.bounce_copies,
		      "zero copy: no send went through the bounce region (%" PRIu64 " copies)",
		      s1.bounce_copies - s0.bounce_copies);
		check(s1.zc_sends - s0.zc_sends == ZC_N,
		      "zero copy: every send was announced from the registration (%" PRIu64 " of %zu)",
		      s1.zc_sends - s0.zc_sends, ZC_N);
		check(s1.zc_pulls - s0.zc_pulls == ZC_N,
		      "zero copy: every receive pulled straight from the peer's registration (%" PRIu64 " of %zu)",
		      s1.zc_pulls - s0.zc_pulls, ZC_N);
	} else {
		check(s1.zc_sends == s0.zc_sends &&
		      s1.bounce_copies - s0.bounce_copies == ZC_N,
		      "FI_SNODE_MR_EXPORT=0: registered sends take the bounce path (%" PRIu64 " copies)",
		      s1.bounce_copies - s0.bounce_copies);
	}
	barrier(c);
	TRY(fi_close(&mr->fid));
	free(tx);
	free(rx);
}

/* --- RMA ---------------------------------------------------------------------- */
#define RMA_LEN		(1 << 20)
#define RMA_HALF	(RMA_LEN / 2)
#define RMA_KEY(a)	(0x5100u + (a))

/* post an operation, again while the provider says -FI_EAGAIN */
#define POST(c, call) do { \
		ssize_t _r; \
		struct fi_cq_tagged_entry _e; \
		while ((_r = (call)) == -FI_EAGAIN) \
			fi_cq_read((c)->txcq, &_e, 0);	/* progress only */ \
		if (_r) { \
			printf("not ok - %s: %zd (%s)\n", #call, _r, fi_strerror(-_r)); \
			exit(1); \
		} \
	} while (0)

/* one completion of an RMA operation: 1 good, 0 error entry (in err) */
static int rma_wait(struct ctx *c, void *context, const char *what)
{
	struct fi_cq_tagged_entry e;
	struct fi_cq_err_entry err;
	int ok = wait_cq(c->txcq, &e, NULL, &err);

	if (ok && e.op_context != context)
		printf("# %s: completion of another context\n", what);
	return ok;
}

static void rma_bad(struct ctx *c, int write, uint64_t addr, size_t len,
		    uint64_t key, int want, const char *what)
{
	struct fi_cq_tagged_entry e;
	struct fi_cq_err_entry err;
	static unsigned char b[128];
	ssize_t r;
	int ok;

	r = write ? fi_write(c->ep, b, len, NULL, c->peer, addr, key, b)
		  : fi_read(c->ep, b, len, NULL, c->peer, addr, key, b);
	if (r) {
		check(0, "%s: posted (%zd %s)", what, r, fi_strerror(-r));
		return;
	}
	ok = wait_cq(c->txcq, &e, NULL, &err);
	check(!ok && err.op_context == b && err.err == want,
	      "%s: error entry %s (got %s)", what, fi_strerror(want),
	      ok ? "a good completion" : fi_strerror(err.err));
}

/*
 * Each side registers 1 MiB for remote reads and writes under its own key;
 * a is the initiator against b's memory, then b against a's, while the
 * target waits in a barrier (its progress serves the requests).
 */
/* --- FI_MULTI_RECV (fi_msg(3)) ---------------------------------------------------- */
/*
 * b posts one 4096-byte buffer with FI_MULTI_RECV and a minimum of 1024
 * (FI_OPT_MIN_MULTI_RECV) and an ordinary receive behind it; a sends five
 * untagged messages of 1000 bytes: the first four land back to back in the
 * buffer (each completion names it by context and points into it), the
 * fourth leaves 96 bytes and the buffer goes back with its completion
 * (FI_MULTI_RECV), the fifth goes to the ordinary receive. Then two
 * messages arrive before b posts a new buffer (unexpected): it takes both,
 * and fi_cancel() gives it back with FI_ECANCELED and FI_MULTI_RECV.
 */
static void multi_recv(struct ctx *c)
{
	static unsigned char big[4096], fifth[1000], msgs[5][1000];
	struct fi_cq_tagged_entry e;
	struct fi_cq_err_entry err;
	size_t min = 1024, got = 0, len = sizeof(got);
	struct iovec iov = { big, sizeof(big) };
	struct fi_msg msg = { .msg_iov = &iov, .iov_count = 1,
			      .addr = FI_ADDR_UNSPEC, .context = big };
	int i, ok = 1, flags_ok = 1;

	if (!c->a) {
		TRY(fi_setopt(&c->ep->fid, FI_OPT_ENDPOINT,
			      FI_OPT_MIN_MULTI_RECV, &min, sizeof(min)));
		i = fi_getopt(&c->ep->fid, FI_OPT_ENDPOINT,
			      FI_OPT_MIN_MULTI_RECV, &got, &len);
		check(!i && got == 1024,
		      "multi-recv: FI_OPT_MIN_MULTI_RECV set and read back (%d, %zu)",
		      i, got);
		TRY(fi_recvmsg(c->ep, &msg, FI_MULTI_RECV));
		post_recv(c, 0, fifth, sizeof(fifth), 0, fifth);
	}
	barrier(c);
	if (c->a) {
		for (i = 0; i < 5; i++) {
			fill(msgs[i], sizeof(msgs[i]), 700 + i);
			post_send(c, 0, msgs[i], sizeof(msgs[i]), 0, msgs[i]);
			wait_cq(c->txcq, &e, NULL, &err);
		}
	} else {
		for (i = 0; i < 4; i++) {
			ok &= wait_cq(c->rxcq, &e, NULL, &err) &&
			      e.op_context == big && e.len == 1000 &&
			      e.buf == big + 1000 * i &&
			      verify(big + 1000 * i, 1000, 700 + i);
			flags_ok &= !!(e.flags & FI_MULTI_RECV) == (i == 3);
		}
		check(ok, "multi-recv: four 1000-byte messages land back to back in the buffer, each completion names it and points at its bytes");
		check(flags_ok, "multi-recv: only the fourth completion (96 bytes left, under the minimum) gives the buffer back (FI_MULTI_RECV)");
		ok = wait_cq(c->rxcq, &e, NULL, &err);
		check(ok && e.op_context == fifth && verify(fifth, 1000, 704),
		      "multi-recv: the fifth message goes to the receive posted behind the buffer");
	}
	barrier(c);
	/* unexpected: two messages before the buffer is posted */
	if (c->a) {
		for (i = 0; i < 2; i++) {
			post_send(c, 0, msgs[i], sizeof(msgs[i]), 0, msgs[i]);
			wait_cq(c->txcq, &e, NULL, &err);
		}
	}
	barrier(c);
	if (!c->a) {
		memset(big, 0, sizeof(big));
		TRY(fi_recvmsg(c->ep, &msg, FI_MULTI_RECV));
		ok = 1;
		for (i = 0; i < 2; i++)
			ok &= wait_cq(c->rxcq, &e, NULL, &err) &&
			      e.op_context == big && e.buf == big + 1000 * i &&
			      !(e.flags & FI_MULTI_RECV) &&
			      verify(big + 1000 * i, 1000, 700 + i);
		check(ok, "multi-recv: a buffer posted after two messages arrived takes both");
		TRY(fi_cancel(&c->ep->fid, big));
		ok = wait_cq(c->rxcq, &e, NULL, &err);
		check(!ok && err.err == FI_ECANCELED && err.op_context == big &&
		      (err.flags & FI_MULTI_RECV),
		      "multi-recv: fi_cancel gives the buffer back: FI_ECANCELED with FI_MULTI_RECV (%s)",
		      ok ? "a completion" : fi_strerror(err.err));
	}
	barrier(c);
}

/* --- counters (fi_cntr(3)) ------------------------------------------------------ */
/*
 * After rma(): each side initiated 5 writes (4 fi_write, 1 fi_writedata)
 * and 2 reads that succeeded, 2 of each that failed (a bad key, a range
 * past the registration), and served the same 5 writes and 2 reads of
 * its peer; sends and receives count on none of these counters.
 */
static void counters_after_rma(struct ctx *c)
{
	uint64_t v[4] = { fi_cntr_read(c->wr), fi_cntr_readerr(c->wr),
			  fi_cntr_read(c->rd), fi_cntr_readerr(c->rd) };

	check(v[0] == 5 && v[1] == 2 && v[2] == 2 && v[3] == 2,
	      "counters: FI_WRITE counted 5 writes and 2 errors, FI_READ 2 reads and 2 errors (%" PRIu64 "/%" PRIu64 ", %" PRIu64 "/%" PRIu64 ")",
	      v[0], v[1], v[2], v[3]);
	v[0] = fi_cntr_read(c->rwr);
	v[1] = fi_cntr_read(c->rrd);
	check(v[0] == 5 && v[1] == 2,
	      "counters: FI_REMOTE_WRITE counted the peer's 5 writes, FI_REMOTE_READ its 2 reads (%" PRIu64 ", %" PRIu64 ")",
	      v[0], v[1]);
}

/*
 * Blocking waits: b sleeps in fi_cntr_wait() on FI_REMOTE_WRITE until a's
 * three writes arrived (its endpoint is progressed by the wait itself),
 * while a waits for each write's completion in fi_cq_sread(); both go
 * through the sleep and the wake-up of the rings (fi_snode(7)).
 */
#define CW_KEY	0xc0c0
static void counter_wait(struct ctx *c)
{
	unsigned char buf[64] = { 0x5e }, mem[64] = { 0 };
	struct fi_cq_tagged_entry e;
	struct fi_cq_err_entry err = { 0 };
	struct fid_mr *mr = NULL;
	uint64_t base;
	ssize_t r;
	int i, ok = 1;

	/* before the barrier: the peer's first write may come during it */
	base = fi_cntr_read(c->a ? c->wr : c->rwr);
	if (!c->a)
		TRY(fi_mr_reg(c->domain, mem, sizeof(mem), FI_REMOTE_WRITE, 0,
			      CW_KEY, 0, &mr, NULL));
	barrier(c);
	if (!c->a) {
		r = fi_cntr_wait(c->rwr, base + 3, 60000);
		check(r == 0 && fi_cntr_read(c->rwr) == base + 3,
		      "counters: fi_cntr_wait on FI_REMOTE_WRITE returns once the peer's 3 writes arrived (%zd, %" PRIu64 " of %" PRIu64 ")",
		      r, fi_cntr_read(c->rwr) - base, (uint64_t)3);
	} else {
		for (i = 0; i < 3 && ok; i++) {
			POST(c, fi_write(c->ep, buf, sizeof(buf), NULL, c->peer,
					 0, CW_KEY, buf));
			do
				r = fi_cq_sread(c->txcq, &e, 1, NULL, 30000);
			while (r == -FI_EAGAIN);
			if (r == -FI_EAVAIL)
				fi_cq_readerr(c->txcq, &err, 0);
			ok = r == 1 && e.op_context == buf;
		}
		check(ok, "counters: fi_cq_sread returns each write's completion (%zd%s%s)",
		      r, err.err ? ", error entry " : "",
		      err.err ? fi_strerror(err.err) : "");
		r = fi_cntr_wait(c->wr, base + 3, 30000);
		check(r == 0 && fi_cntr_read(c->wr) == base + 3,
		      "counters: fi_cntr_wait on FI_WRITE: the 3 writes counted (%zd)",
		      r);
	}
	barrier(c);
	if (mr) {
		check(mem[0] == 0x5e, "counters: the peer's writes are in the registration");
		TRY(fi_close(&mr->fid));
	}
}

static void rma(struct ctx *c)
{
	unsigned char *mem = calloc(1, RMA_LEN), *buf = calloc(1, RMA_LEN);
	struct fi_cq_tagged_entry e;
	struct fi_cq_err_entry err;
	struct fi_snode_stats s0, s1;
	struct fid_mr *mr, *mr2;
	char what[96];
	double t0;
	int s, i, ok;

	TRY(fi_mr_reg(c->domain, mem, RMA_LEN, FI_REMOTE_READ | FI_REMOTE_WRITE,
		      0, RMA_KEY(c->a), 0, &mr, NULL));
	check(fi_mr_key(mr) == RMA_KEY(c->a), "fi_mr_reg: the key asked for (%#llx)",
	      (unsigned long long)fi_mr_key(mr));
	i = fi_mr_reg(c->domain, buf, 64, FI_REMOTE_READ, 0, RMA_KEY(c->a), 0,
		      &mr2, NULL);
	check(i == -FI_ENOKEY, "fi_mr_reg of a key in use: -FI_ENOKEY (%d)", i);
	for (s = 0; s < 2; s++) {
		int init = (s == 0) == c->a;
		const char *dir = s == 0 ? "a->b" : "b->a";
		uint64_t key = RMA_KEY(!c->a);

		if (!init) {
			fill(mem + RMA_HALF, RMA_HALF, 900 + s);
			barrier(c);
			ok = wait_cq(c->rxcq, &e, NULL, &err);
			check(ok && (e.flags & FI_REMOTE_CQ_DATA) &&
			      (e.flags & FI_REMOTE_WRITE) &&
			      e.data == 0xda7a0000u + s,
			      "rma %s: fi_writedata gives the target a completion with its data", dir);
			barrier(c);
			check(verify(mem, RMA_HALF, 800 + s),
			      "rma %s: the target's memory holds the 512 KiB fi_write", dir);
			continue;
		}
		barrier(c);
		stats(c, &s0);
		fill(buf, RMA_HALF, 800 + s);
		t0 = now_us();
		for (i = 0; i < 4; i++) {
			POST(c, fi_write(c->ep, buf, RMA_HALF, NULL, c->peer, 0,
					  key, buf));
			snprintf(what, sizeof(what), "rma %s: fi_write 512 KiB", dir);
			ok = rma_wait(c, buf, what);
			if (!ok || i == 3)
				check(ok, "%s completes", what);
			if (!ok)
				break;
		}
		if (s == 0)
			printf("# ofi fi_write 512 KiB: %.2f MB/s (4 writes)\n",
			       4.0 * RMA_HALF / (now_us() - t0));
		memset(buf, 0, RMA_LEN);
		t0 = now_us();
		POST(c, fi_read(c->ep, buf, RMA_HALF, NULL, c->peer, RMA_HALF,
				 key, buf));
		ok = rma_wait(c, buf, "fi_read");
		check(ok && verify(buf, RMA_HALF, 900 + s),
		      "rma %s: fi_read of 512 KiB gives the target's bytes", dir);
		if (s == 0)
			printf("# ofi fi_read 512 KiB: %.2f MB/s\n",
			       RMA_HALF / (now_us() - t0));
		memset(buf, 0, 4096);
		POST(c, fi_read(c->ep, buf, 100, NULL, c->peer, 0, key, buf));
		ok = rma_wait(c, buf, "fi_read");
		check(ok && verify(buf, 100, 800 + s),
		      "rma %s: fi_read of 100 bytes reads back the fi_write", dir);
		fill(buf, 64, 800 + s);
		POST(c, fi_writedata(c->ep, buf, 64, NULL, 0xda7a0000u + s,
				      c->peer, 0, key, buf));
		check(rma_wait(c, buf, "fi_writedata"),
		      "rma %s: fi_writedata of 64 bytes completes", dir);
		stats(c, &s1);
		if (mr_export_on())
			check(s1.bounce_copies == s0.bounce_copies &&
			      s1.rma_direct - s0.rma_direct == 7,
			      "rma %s: the 5 writes and 2 reads went straight to the target's registration, no bounce copy (%" PRIu64 " direct, %" PRIu64 " copies)",
			      dir, s1.rma_direct - s0.rma_direct,
			      s1.bounce_copies - s0.bounce_copies);
		else
			check(s1.rma_direct == s0.rma_direct &&
			      s1.bounce_copies - s0.bounce_copies == 5,
			      "rma %s: FI_SNODE_MR_EXPORT=0: the writes went through the bounce region (%" PRIu64 " copies)",
			      dir, s1.bounce_copies - s0.bounce_copies);
		snprintf(what, sizeof(what), "rma %s: fi_write with a bad key", dir);
		rma_bad(c, 1, 0, 64, 0xdead, FI_EACCES, what);
		snprintf(what, sizeof(what), "rma %s: fi_read with a bad key", dir);
		rma_bad(c, 0, 0, 64, 0xdead, FI_EACCES, what);
		snprintf(what, sizeof(what), "rma %s: fi_write past the registration", dir);
		rma_bad(c, 1, RMA_LEN - 10, 100, key, FI_EINVAL, what);
		snprintf(what, sizeof(what), "rma %s: fi_read past the registration", dir);
		rma_bad(c, 0, RMA_LEN, 1, key, FI_EINVAL, what);
		barrier(c);
	}
	TRY(fi_close(&mr->fid));
	free(mem);
	free(buf);
}

/*
 * RMA at odd places: b registers 2 MiB + 13 bytes at an odd address for
 * remote reads and writes; a writes 1 MiB + 3 bytes (more than a ring) at
 * offset 5 and one byte at the registration's last, reads both back into
 * odd addresses; b finds the bytes in its own buffer and every byte
 * around them untouched. Directly (no bounce copy) unless
 * FI_SNODE_MR_EXPORT=0. Then a reads a registration of read-only pages,
 * which b's node cannot export (pinning for write fails): b's provider
 * serves it through the bounce path. Last, b closes the registration a
 * holds a grant of, and registers the key again elsewhere.
 */
#define RU_LEN	((2 << 20) + 13)
#define RU_KEY	0x5a1
static void rma_unaligned(struct ctx *c)
{
	unsigned char *area = malloc(RU_LEN + 64), *mem = area + 7;
	unsigned char *buf = malloc((1 << 20) + 64), *src = buf + 3;
	size_t n = (1 << 20) + 3, i;
	unsigned char one = 0x77, back = 0;
	struct fi_snode_stats s0, s1;
	struct fid_mr *mr = NULL, *ro_mr = NULL;
	unsigned char *ro = NULL;
	int ok;

	if (!c->a) {
		memset(area, 0xee, RU_LEN + 64);
		TRY(fi_mr_reg(c->domain, mem, RU_LEN,
			      FI_REMOTE_READ | FI_REMOTE_WRITE, 0, RU_KEY, 0,
			      &mr, NULL));
		/* pages no one can pin for writing: the export fails */
		ro = mmap(NULL, 8192, PROT_READ | PROT_WRITE,
			  MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (ro == MAP_FAILED)
			exit(1);
		fill(ro, 8192, 77);
		mprotect(ro, 8192, PROT_READ);
		TRY(fi_mr_reg(c->domain, ro, 8192, FI_REMOTE_READ, 0,
			      RU_KEY + 1, 0, &ro_mr, NULL));
	}
	barrier(c);
	if (c->a) {
		stats(c, &s0);
		fill(src, n, 4242);
		POST(c, fi_write(c->ep, src, n, NULL, c->peer, 5, RU_KEY, src));
		check(rma_wait(c, src, "fi_write"),
		      "rma: fi_write of %zu bytes at offset 5 of an odd registration completes",
		      n);
		POST(c, fi_write(c->ep, &one, 1, NULL, c->peer, RU_LEN - 1,
				 RU_KEY, &one));
		check(rma_wait(c, &one, "fi_write"),
		      "rma: fi_write of the registration's last byte completes");
		memset(buf, 0, (1 << 20) + 64);
		POST(c, fi_read(c->ep, buf + 1, n, NULL, c->peer, 5, RU_KEY,
				buf + 1));
		ok = rma_wait(c, buf + 1, "fi_read");
		check(ok && verify(buf + 1, n, 4242) && !buf[0] && !buf[n + 1],
		      "rma: fi_read of %zu bytes at offset 5 into an odd address reads them back, nothing more",
		      n);
		POST(c, fi_read(c->ep, &back, 1, NULL, c->peer, RU_LEN - 1,
				RU_KEY, &back));
		ok = rma_wait(c, &back, "fi_read");
		check(ok && back == 0x77,
		      "rma: fi_read of the registration's last byte (%#x)", back);
		stats(c, &s1);
		if (mr_export_on())
			check(s1.bounce_copies == s0.bounce_copies &&
			      s1.rma_direct - s0.rma_direct == 4,
			      "rma: the odd writes and reads went straight to the registration, no bounce copy (%" PRIu64 " direct, %" PRIu64 " copies)",
			      s1.rma_direct - s0.rma_direct,
			      s1.bounce_copies - s0.bounce_copies);
		else
			check(s1.rma_direct == s0.rma_direct,
			      "rma: FI_SNODE_MR_EXPORT=0: nothing went directly (%" PRIu64 ")",
			      s1.rma_direct - s0.rma_direct);
		memset(buf, 0, 8192);
		POST(c, fi_read(c->ep, buf, 8192, NULL, c->peer, 0, RU_KEY + 1,
				buf));
		ok = rma_wait(c, buf, "fi_read");
		stats(c, &s0);
		check(ok && verify(buf, 8192, 77) &&
		      s0.rma_direct == s1.rma_direct,
		      "rma: fi_read of a registration its node cannot export (read-only pages) is served by the target (%s, %" PRIu64 " direct)",
		      ok ? "completed" : "error entry",
		      s0.rma_direct - s1.rma_direct);
	}
	barrier(c);
	if (!c->a) {
		check(verify(mem + 5, n, 4242) && mem[RU_LEN - 1] == 0x77,
		      "rma: the peer's writes are in the target's own buffer");
		ok = 1;
		for (i = 0; i < 7 + 5; i++)
			ok &= area[i] == 0xee;
		for (i = 7 + 5 + n; i < 7 + RU_LEN - 1; i++)
			ok &= area[i] == 0xee;
		for (i = 7 + RU_LEN; i < RU_LEN + 64; i++)
			ok &= area[i] == 0xee;
		check(ok, "rma: every byte around the peer's writes is untouched");
		TRY(fi_close(&mr->fid));
		TRY(fi_close(&ro_mr->fid));
		munmap(ro, 8192);
	}
	barrier(c);
	/*
	 * b closed the registration a had a grant of (its export withdrawn):
	 * a's next write must fail cleanly (FI_EACCES, no signal), and once
	 * b registers the key again, elsewhere, a's write must land there.
	 */
	if (c->a) {
		rma_bad(c, 1, 0, 64, RU_KEY, FI_EACCES,
			"rma: fi_write after the target closed the registration");
		barrier(c);
		barrier(c);
		fill(src, 100, 4343);
		POST(c, fi_write(c->ep, src, 100, NULL, c->peer, 0, RU_KEY, src));
		check(rma_wait(c, src, "fi_write"),
		      "rma: fi_write to the key registered again completes");
	} else {
		barrier(c);
		memset(area, 0, 4096);
		TRY(fi_mr_reg(c->domain, area + 1, 4000,
			      FI_REMOTE_READ | FI_REMOTE_WRITE, 0, RU_KEY, 0,
			      &mr, NULL));
		barrier(c);
	}
	barrier(c);
	if (!c->a) {
		check(verify(area + 1, 100, 4343) && !area[0] && !area[101],
		      "rma: the write reached the new registration, nothing else");
		TRY(fi_close(&mr->fid));
	}
	barrier(c);
	free(area);
	free(buf);
}

/*
 * fi_write and fi_read of 1 MiB on b's registration (direct), and fi_read
 * of a registration of read-only pages that b's node cannot export
 * (served by b through the bounce regions), best of 3 alternating rounds
 * of 8, after one untimed operation of each (the grant). b progresses in
 * a barrier meanwhile.
 */
#define RR_KEY	0xb1
static double rma_round(struct ctx *c, int write, void *buf, uint64_t key,
			int n)
{
	double t0 = now_us();
	int i;

	for (i = 0; i < n; i++) {
		if (write)
			POST(c, fi_write(c->ep, buf, 1 << 20, NULL, c->peer, 0,
					 key, buf));
		else
			POST(c, fi_read(c->ep, buf, 1 << 20, NULL, c->peer, 0,
					key, buf));
		if (!rma_wait(c, buf, "rma rate"))
			return 0;
	}
	return now_us() - t0;
}

static void rma_rates(struct ctx *c, unsigned char *buf)
{
	struct fid_mr *mr = NULL, *ro_mr = NULL;
	double best[3] = { 1e30, 1e30, 1e30 }, t;
	unsigned char *tgt = NULL;
	int round, k, n = 8;

	if (!c->a) {
		tgt = mmap(NULL, 2 << 20, PROT_READ | PROT_WRITE,
			   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (tgt == MAP_FAILED)
			exit(1);
		memset(tgt, 1, 2 << 20);
		mprotect(tgt + (1 << 20), 1 << 20, PROT_READ);
		TRY(fi_mr_reg(c->domain, tgt, 1 << 20,
			      FI_REMOTE_READ | FI_REMOTE_WRITE, 0, RR_KEY, 0,
			      &mr, NULL));
		TRY(fi_mr_reg(c->domain, tgt + (1 << 20), 1 << 20,
			      FI_REMOTE_READ, 0, RR_KEY + 1, 0, &ro_mr, NULL));
	}
	barrier(c);
	if (c->a) {
		rma_round(c, 1, buf, RR_KEY, 1);
		rma_round(c, 0, buf, RR_KEY + 1, 1);
		for (round = 0; round < 3; round++)
			for (k = 0; k < 3; k++) {
				t = rma_round(c, k == 0, buf,
					      k == 2 ? RR_KEY + 1 : RR_KEY, n);
				if (t && t < best[k])
					best[k] = t;
			}
		printf("# ofi rma 1 MiB: fi_write %.2f MB/s, fi_read %.2f MB/s (%s), fi_read served by the target %.2f MB/s, best of 3 alternating rounds of %d\n",
		       n * 1048576.0 / best[0], n * 1048576.0 / best[1],
		       mr_export_on() ? "direct" : "served: FI_SNODE_MR_EXPORT=0",
		       n * 1048576.0 / best[2], n);
	}
	barrier(c);
	if (!c->a) {
		TRY(fi_close(&mr->fid));
		TRY(fi_close(&ro_mr->fid));
		munmap(tgt, 2 << 20);
	}
}

/* --- atomics ------------------------------------------------------------------ */
#define AT_KEY		0xa70u
#define AT_ADDS		100

static int at_wait(struct ctx *c, void *context, struct fi_cq_err_entry *err)
{
	struct fi_cq_tagged_entry e;
	int ok = wait_cq(c->txcq, &e, NULL, err);

	return ok && e.op_context == context;
}

/*
 * a registers three words; b fetch-adds 1 to the first AT_ADDS times
 * while a adds 1 to it AT_ADDS times with the CPU's own atomics: the sum
 * is exact only if the provider's atomics are atomic against the target's
 * CPU. Then compare-and-swap, min, read, and what must fail.
 */
static void atomics(struct ctx *c)
{
	static uint64_t words[4] __attribute__((aligned(64)));
	struct fi_cq_tagged_entry e;
	struct fi_cq_err_entry err;
	uint64_t one = 1, v, cmp, old[AT_ADDS], res;
	int32_t i32, r32;
	struct fid_mr *mr;
	size_t count = 0;
	int i, ok, distinct = 1;
	ssize_t r;

	if (c->a) {
		words[0] = 0;
		words[1] = 0;
		i32 = 3;
		memcpy(&words[2], &i32, 4);
		TRY(fi_mr_reg(c->domain, words, sizeof(words),
			      FI_REMOTE_READ | FI_REMOTE_WRITE, 0, AT_KEY, 0,
			      &mr, NULL));
		barrier(c);
		for (i = 0; i < AT_ADDS; i++) {
			__atomic_fetch_add(&words[0], 1, __ATOMIC_SEQ_CST);
			fi_cq_read(c->txcq, &e, 0);	/* serve b meanwhile */
			usleep(5000);
		}
		barrier(c);
		check(__atomic_load_n(&words[0], __ATOMIC_SEQ_CST) == 2 * AT_ADDS,
		      "atomic: %d remote fetch-adds raced %d local ones: %llu (want %d)",
		      AT_ADDS, AT_ADDS, (unsigned long long)words[0], 2 * AT_ADDS);
		memcpy(&i32, &words[2], 4);
		check(words[1] == 42 && i32 == -5,
		      "atomic: the target's words hold the compare-and-swap (%llu) and the min (%d)",
		      (unsigned long long)words[1], i32);
		TRY(fi_close(&mr->fid));
		return;
	}
	check(fi_fetch_atomicvalid(c->ep, FI_UINT64, FI_SUM, &count) == 0 &&
	      count == 1, "atomic: fi_fetch_atomicvalid(FI_UINT64, FI_SUM): count 1");
	check(fi_atomicvalid(c->ep, FI_DOUBLE, FI_SUM, &count) == -FI_EOPNOTSUPP,
	      "atomic: fi_atomicvalid(FI_DOUBLE, FI_SUM): -FI_EOPNOTSUPP");
	check(fi_compare_atomicvalid(c->ep, FI_UINT64, FI_CSWAP, &count) == 0,
	      "atomic: fi_compare_atomicvalid(FI_UINT64, FI_CSWAP)");
	barrier(c);
	for (i = 0; i < AT_ADDS; i++) {
		POST(c, fi_fetch_atomic(c->ep, &one, 1, NULL, &old[i], NULL,
					c->peer, 0, AT_KEY, FI_UINT64, FI_SUM,
					&old[i]));
		if (!at_wait(c, &old[i], &err)) {
			check(0, "atomic: fetch-add %d completes (%s)", i,
			      fi_strerror(err.err));
			break;
		}
	}
	for (i = 1; i < AT_ADDS; i++)	/* each add saw another value */
		distinct &= old[i] > old[i - 1] && old[i] < 2 * AT_ADDS;
	check(distinct, "atomic: the %d fetch-adds returned increasing old values",
	      AT_ADDS);
	v = 42;
	cmp = 0;
	POST(c, fi_compare_atomic(c->ep, &v, 1, NULL, &cmp, NULL, &res, NULL,
				  c->peer, 8, AT_KEY, FI_UINT64, FI_CSWAP, &res));
	ok = at_wait(c, &res, &err);
	check(ok && res == 0, "atomic: compare-and-swap 0 -> 42 returns the old 0");
	v = 7;
	POST(c, fi_compare_atomic(c->ep, &v, 1, NULL, &cmp, NULL, &res, NULL,
				  c->peer, 8, AT_KEY, FI_UINT64, FI_CSWAP, &res));
	ok = at_wait(c, &res, &err);
	check(ok && res == 42, "atomic: compare-and-swap 0 -> 7 fails, returns 42");
	i32 = -5;
	POST(c, fi_atomic(c->ep, &i32, 1, NULL, c->peer, 16, AT_KEY, FI_INT32,
			  FI_MIN, &i32));
	check(at_wait(c, &i32, &err), "atomic: min(-5) on an int32 completes");
	POST(c, fi_fetch_atomic(c->ep, NULL, 1, NULL, &r32, NULL, c->peer, 16,
				AT_KEY, FI_INT32, FI_ATOMIC_READ, &r32));
	ok = at_wait(c, &r32, &err);
	check(ok && r32 == -5, "atomic: read gives the min, -5 (%d)", ok ? r32 : 0);
	POST(c, fi_atomic(c->ep, &one, 1, NULL, c->peer, 0, 0xdead, FI_UINT64,
			  FI_SUM, &one));
	ok = wait_cq(c->txcq, &e, NULL, &err);
	check(!ok && err.err == FI_EACCES, "atomic: a bad key gives an error entry FI_EACCES (%s)",
	      ok ? "a good completion" : fi_strerror(err.err));
	POST(c, fi_atomic(c->ep, &one, 1, NULL, c->peer, 4, AT_KEY, FI_UINT64,
			  FI_SUM, &one));
	ok = wait_cq(c->txcq, &e, NULL, &err);
	check(!ok && err.err == FI_EINVAL, "atomic: a misaligned word gives an error entry FI_EINVAL (%s)",
	      ok ? "a good completion" : fi_strerror(err.err));
	r = fi_atomic(c->ep, &one, 1, NULL, c->peer, 0, AT_KEY, FI_UINT64,
		      FI_PROD, &one);
	check(r == -FI_EOPNOTSUPP, "atomic: FI_PROD is refused, -FI_EOPNOTSUPP (%zd)", r);
	barrier(c);
}

/*
 * b sends a 1 MiB message that a has not asked for yet, a sends one that
 * b never receives, and b dies (exits without closing anything). a's
 * receive and send of those rendezvous must end with error entries.
 */
static void peer_dies(struct ctx *c)
{
	unsigned char *big = calloc(1, 1 << 20), *rbig = calloc(1, 1 << 20);
	struct fi_cq_tagged_entry e;
	struct fi_cq_err_entry err;
	char one = 1, r1 = 0;
	int k, ok, n_ok = 0, n_err = 0;

	barrier(c);
	if (!c->a) {
		post_send(c, 1, big, 1 << 20, 0xd3, big);
		post_send(c, 1, &one, 1, 0xd4, &one);
		post_recv(c, 1, &r1, 1, 0xd2, &r1);
		check(wait_cq(c->rxcq, &e, NULL, &err),
		      "peer dies: a's last message arrived, b dies now");
		printf("# b: %d failed\n", failures);
		fflush(stdout);
		_exit(failures ? 1 : 0);
	}
	post_send(c, 1, big, 1 << 20, 0xd1, big);
	post_send(c, 1, &one, 1, 0xd2, &one);
	post_recv(c, 1, &r1, 1, 0xd4, &r1);
	check(wait_cq(c->rxcq, &e, NULL, &err), "peer dies: b's last message arrived");
	sleep(3);	/* b is gone by now */
	post_recv(c, 1, rbig, 1 << 20, 0xd3, rbig);
	ok = wait_cq(c->rxcq, &e, NULL, &err);
	check(!ok && err.op_context == rbig && err.err,
	      "peer dies: the receive of its unexpected 1 MiB message ends with an error entry (%s)",
	      ok ? "none" : fi_strerror(err.err));
	for (k = 0; k < 2; k++) {
		if (wait_cq(c->txcq, &e, NULL, &err))
			n_ok += e.op_context == &one;
		else
			n_err += err.op_context == big;
	}
	check(n_ok == 1 && n_err == 1,
	      "peer dies: the 1 MiB send to it ends with an error entry (%s), the 1-byte one before it completed",
	      n_err ? fi_strerror(err.err) : "none");
	free(big);
	free(rbig);
}

static void bad_destination(struct ctx *c, const char *peer_addr)
{
	char bogus[64] = { 0 };
	unsigned int f, node, id;
	uint64_t key;
	struct fi_cq_tagged_entry e;
	struct fi_cq_err_entry err;
	char b[64] = "x";
	ssize_t r;

	/* the peer's node, an endpoint id nobody opened */
	if (sscanf(peer_addr, "fi_snode://%u:%u:%u:%" SCNx64, &f, &node, &id,
		   &key) != 4) {
		check(0, "peer address parses");
		return;
	}
	snprintf(bogus, sizeof(bogus), "fi_snode://%u:%u:%u:%016" PRIx64, f,
		 node, 4000, key);
	check(fi_av_insert(c->av, bogus, 1, &c->bogus, 0, NULL) == 1,
	      "bad destination: inserted into the AV");
	r = fi_tsend(c->ep, b, sizeof(b), NULL, c->bogus, 9, b);
	if (r) {
		check(r < 0, "bad destination: send refused with %zd (%s)", r,
		      fi_strerror(-r));
	} else {
		int ok = wait_cq(c->txcq, &e, NULL, &err);
		char pbuf[128] = "";

		check(!ok && err.err && err.op_context == b,
		      "bad destination: error completion (%s)",
		      ok ? "none" : fi_strerror(err.err));
		/* fi_cq(3): prov_errno, turned into text by fi_cq_strerror */
		if (!ok)
			fi_cq_strerror(c->txcq, err.prov_errno, err.err_data,
				       pbuf, sizeof(pbuf));
		check(!ok && err.prov_errno == ENXIO && strlen(pbuf) > 0,
		      "bad destination: fi_cq_readerr carries prov_errno %d (ENXIO: no such endpoint), fi_cq_strerror says \"%s\"",
		      ok ? 0 : err.prov_errno, pbuf);
	}
	r = fi_tsend(c->ep, b, sizeof(b), NULL, 12345, 9, b);
	check(r == -FI_EINVAL, "fi_addr not in the AV: -FI_EINVAL (%zd)", r);
	r = fi_tinject(c->ep, b, 1 << 20, c->peer, 9);
	check(r == -FI_EMSGSIZE, "inject beyond inject_size: -FI_EMSGSIZE (%zd)", r);
	{
		/* lengths whose sum wraps to 1 byte: refused, nothing sent */
		struct iovec wrap[2] = {
			{ .iov_base = b, .iov_len = SIZE_MAX },
			{ .iov_base = b, .iov_len = 2 },
		};

		r = fi_tsendv(c->ep, wrap, NULL, 2, c->peer, 9, b);
		check(r == -FI_EMSGSIZE,
		      "fi_tsendv with iov lengths that overflow size_t: -FI_EMSGSIZE (%zd)",
		      r);
		r = fi_writev(c->ep, wrap, NULL, 2, c->peer, 0, 1, b);
		check(r == -FI_EMSGSIZE,
		      "fi_writev with iov lengths that overflow size_t: -FI_EMSGSIZE (%zd)",
		      r);
	}
}

static int read_file(const char *path, char *buf, size_t len, int wait_s)
{
	int i;

	for (i = 0; i < wait_s * 10; i++) {
		FILE *f = fopen(path, "r");

		if (f) {
			size_t n = fread(buf, 1, len - 1, f);

			fclose(f);
			buf[n] = 0;
			if (n && buf[n - 1] == '\n') {
				buf[n - 1] = 0;
				return 0;
			}
		}
		usleep(100000);
	}
	return -1;
}

static void probes(struct ctx *c);

static int do_pair(int a, const char *dir, int iters)
{
	struct fi_cq_attr cqa = { .format = FI_CQ_FORMAT_TAGGED, .size = 64 };
	struct fi_cntr_attr cnta = { .events = FI_CNTR_EVENTS_COMP,
				     .wait_obj = FI_WAIT_UNSPEC };
	struct fi_av_attr ava = { .type = FI_AV_TABLE };
	struct ctx c = { .a = a };
	char name[64], path[512], peer[64], tmp[520];
	size_t len = sizeof(name);
	unsigned int i, my_id = ~0u;
	FILE *f;

	struct fi_info *h = hints_new();

	/* FI_SOURCE: receive completions name the sender (fi_cq_readfrom) */
	h->caps |= FI_SOURCE | FI_DIRECTED_RECV | FI_RMA | FI_ATOMIC |
		   FI_RMA_EVENT | FI_MULTI_RECV;
	TRY(fi_getinfo(FI_VERSION(1, 17), NULL, NULL, 0, h, &c.fi));
	TRY(fi_fabric(c.fi->fabric_attr, &c.fabric, NULL));
	TRY(fi_domain(c.fabric, c.fi, &c.domain, NULL));
	TRY(fi_av_open(c.domain, &ava, &c.av, NULL));
	/* a wait object: cq_wait and fi_cq_sread */
	cqa.wait_obj = FI_WAIT_UNSPEC;
	TRY(fi_cq_open(c.domain, &cqa, &c.txcq, NULL));
	TRY(fi_cq_open(c.domain, &cqa, &c.rxcq, NULL));
	TRY(fi_cntr_open(c.domain, &cnta, &c.rd, NULL));
	TRY(fi_cntr_open(c.domain, &cnta, &c.wr, NULL));
	TRY(fi_cntr_open(c.domain, &cnta, &c.rrd, NULL));
	TRY(fi_cntr_open(c.domain, &cnta, &c.rwr, NULL));
	TRY(fi_endpoint(c.domain, c.fi, &c.ep, NULL));
	TRY(fi_ep_bind(c.ep, &c.av->fid, 0));
	TRY(fi_ep_bind(c.ep, &c.txcq->fid, FI_TRANSMIT));
	TRY(fi_ep_bind(c.ep, &c.rxcq->fid, FI_RECV));
	TRY(fi_ep_bind(c.ep, &c.rd->fid, FI_READ));
	TRY(fi_ep_bind(c.ep, &c.wr->fid, FI_WRITE));
	TRY(fi_ep_bind(c.ep, &c.rrd->fid, FI_REMOTE_READ));
	TRY(fi_ep_bind(c.ep, &c.rwr->fid, FI_REMOTE_WRITE));
	TRY(fi_enable(c.ep));
	TRY(fi_getname(&c.ep->fid, name, &len));
	check(len == 64 && sscanf(name, "fi_snode://%*u:%*u:%u:", &my_id) == 1,
	      "fi_getname gives an fi_snode:// address (%s)", name);

	snprintf(path, sizeof(path), "%s/%s.addr", dir, a ? "a" : "b");
	snprintf(tmp, sizeof(tmp), "%s.tmp", path);
	f = fopen(tmp, "w");
	if (!f || fprintf(f, "%s\n", name) < 0 || fclose(f) || rename(tmp, path)) {
		printf("not ok - cannot write %s\n", path);
		return 1;
	}
	snprintf(path, sizeof(path), "%s/peer.addr", dir);
	if (read_file(path, peer, sizeof(peer), 120)) {
		printf("not ok - no peer address in %s within 120 s\n", path);
		return 1;
	}
	memset(name, 0, sizeof(name));
	memcpy(name, peer, strlen(peer));
	check(fi_av_insert(c.av, name, 1, &c.peer, 0, NULL) == 1 && c.peer == 0,
	      "peer address inserted, fi_addr 0 (FI_AV_TABLE)");

	barrier(&c);
	ring_used(&c, my_id);
	for (i = 0; i < NSIZES; i++) {
		pingpong(&c, 0, sizes[i]);
		pingpong(&c, 1, sizes[i]);
	}
	unexpected(&c, "a->b", 1);
	barrier(&c);
	unexpected(&c, "a->b", 0);
	barrier(&c);
	c.a = !c.a;
	unexpected(&c, "b->a", 1);
	barrier(&c);
	unexpected(&c, "b->a", 0);
	c.a = !c.a;
	barrier(&c);
	multi_recv(&c);
	probes(&c);
	zc_rendezvous(&c);
	rma(&c);
	counters_after_rma(&c);
	counter_wait(&c);
	barrier(&c);
	rma_unaligned(&c);
	atomics(&c);
	barrier(&c);
	bad_destination(&c, peer);
	measure(&c, iters);
	peer_dies(&c);

	TRY(fi_close(&c.ep->fid));
	TRY(fi_close(&c.av->fid));
	TRY(fi_close(&c.txcq->fid));
	TRY(fi_close(&c.rxcq->fid));
	TRY(fi_close(&c.rd->fid));
	TRY(fi_close(&c.wr->fid));
	TRY(fi_close(&c.rrd->fid));
	TRY(fi_close(&c.rwr->fid));
	TRY(fi_close(&c.domain->fid));
	TRY(fi_close(&c.fabric->fid));
	fi_freeinfo(c.fi);
	printf("# %s: %d failed\n", a ? "a" : "b", failures);
	return failures ? 1 : 0;
}

/* --- probes: FI_PEEK, FI_CLAIM, FI_DISCARD (fi_tagged(3)) ---------------- */
/* fi_trecvmsg with flags; returns what the call returned */
static ssize_t trecvmsg(struct ctx *c, void *buf, size_t len, uint64_t tag,
			void *context, uint64_t flags)
{
	struct iovec iov = { .iov_base = buf, .iov_len = len };
	struct fi_msg_tagged msg = {
		.msg_iov = buf ? &iov : NULL,
		.iov_count = buf ? 1 : 0,
		.addr = FI_ADDR_UNSPEC,
		.tag = tag,
		.ignore = 0,
		.context = context,
	};

	return fi_trecvmsg(c->ep, &msg, flags);
}

/* peek for tag until found or 30 s: 1 found (e, src filled), 0 not */
static int peek_until(struct ctx *c, uint64_t tag, struct fi_context *ctx,
		      uint64_t flags, struct fi_cq_tagged_entry *e,
		      fi_addr_t *src)
{
	struct fi_cq_err_entry err;
	double end = now_us() + 30e6;

	while (now_us() < end) {
		ssize_t r = trecvmsg(c, NULL, 0, tag, ctx, FI_PEEK | flags);

		if (r) {
			printf("# peek: fi_trecvmsg %zd (%s)\n", r, fi_strerror(-r));
			return 0;
		}
		if (wait_cq(c->rxcq, e, src, &err))
			return e->op_context == ctx;
		if (err.err != FI_ENOMSG || err.op_context != ctx) {
			printf("# peek: error entry %d (%s)\n", err.err,
			       fi_strerror(err.err));
			return 0;
		}
		usleep(1000);
	}
	return 0;
}

/* a peek that must find nothing: an FI_ENOMSG error entry */
static void peek_none(struct ctx *c, uint64_t tag, const char *what)
{
	struct fi_cq_tagged_entry e;
	struct fi_cq_err_entry err;
	struct fi_context ctx;
	ssize_t r = trecvmsg(c, NULL, 0, tag, &ctx, FI_PEEK);
	int ok = !r && !wait_cq(c->rxcq, &e, NULL, &err);

	check(ok && err.err == FI_ENOMSG && err.op_context == &ctx,
	      "probe: %s: FI_ENOMSG error entry with the peek's context (%zd, %s)",
	      what, r, ok ? fi_strerror(err.err) : "no error entry");
}

/*
 * a sends four tagged messages b has not asked for: 100 bytes (0xe1) and
 * 1 MiB (0xe2), 200 bytes (0xe3) and 1 MiB (0xe4); b probes them.
 */
#define PR_BIG	(1 << 20)
static void probes(struct ctx *c)
{
	static const size_t len[4] = { 100, PR_BIG, 200, PR_BIG };
	unsigned char *buf[4];
	struct fi_cq_tagged_entry e;
	struct fi_cq_err_entry err;
	struct fi_context ctx[4];
	fi_addr_t src;
	int i, ok, n_ok = 0;
	ssize_t r;

	for (i = 0; i < 4; i++)
		buf[i] = calloc(1, len[i]);
	if (c->a) {
		barrier(c);	/* b's peek for nothing comes first */
		for (i = 0; i < 4; i++) {
			fill(buf[i], len[i], 900 + i);
			post_send(c, 1, buf[i], len[i], 0xe1 + i, buf[i]);
		}
		for (i = 0; i < 4; i++)
			n_ok += wait_cq(c->txcq, &e, NULL, &err);
		check(n_ok == 4,
		      "probe: the four probed sends completed without error (claimed, received or discarded)");
		goto out;
	}
	peek_none(c, 0xe1, "nothing sent yet");
	r = trecvmsg(c, NULL, 0, 0xe1, NULL, FI_PEEK | FI_CLAIM);
	check(r == -FI_EINVAL, "probe: FI_CLAIM without a context: -FI_EINVAL (%zd)", r);
	r = fi_recvmsg(c->ep, &(struct fi_msg){ .context = &ctx[0],
					     .addr = FI_ADDR_UNSPEC },
		       FI_PEEK);
	check(r == -FI_EBADFLAGS, "probe: FI_PEEK on fi_recvmsg (untagged): -FI_EBADFLAGS (%zd)", r);
	barrier(c);

	/* an eager message: found, found again, claimed, received */
	src = FI_ADDR_NOTAVAIL;
	ok = peek_until(c, 0xe1, &ctx[0], 0, &e, &src);
	check(ok && e.len == 100 && e.tag == 0xe1 && (e.flags & FI_RECV) &&
	      (e.flags & FI_TAGGED) && src == c->peer,
	      "probe: peek finds the 100-byte message: len %zu, tag 0x%" PRIx64 ", source %s",
	      ok ? (size_t)e.len : 0, ok ? e.tag : 0,
	      src == c->peer ? "the peer" : "wrong");
	ok = peek_until(c, 0xe1, &ctx[0], FI_CLAIM, &e, &src);
	check(ok && e.len == 100,
	      "probe: a second peek finds it again (not consumed), FI_CLAIM claims it");
	peek_none(c, 0xe1, "a claimed message is no longer found");
	r = trecvmsg(c, buf[0], len[0], 0, &ctx[0], FI_CLAIM);
	ok = !r && wait_cq(c->rxcq, &e, &src, &err);
	check(ok && e.op_context == &ctx[0] && e.len == 100 && e.tag == 0xe1 &&
	      verify(buf[0], len[0], 900),
	      "probe: the FI_CLAIM receive with the peek's context gets its 100 bytes intact (%zd)", r);
	r = trecvmsg(c, buf[0], len[0], 0, &ctx[0], FI_CLAIM);
	check(r == -FI_EINVAL, "probe: a second FI_CLAIM receive of the same context: -FI_EINVAL (%zd)", r);

	/* a rendezvous: claimed, received */
	ok = peek_until(c, 0xe2, &ctx[1], FI_CLAIM, &e, &src);
	check(ok && e.len == PR_BIG && e.tag == 0xe2 && src == c->peer,
	      "probe: peek + claim of a rendezvous-size message: len %zu",
	      ok ? (size_t)e.len : 0);
	r = trecvmsg(c, buf[1], len[1], 0, &ctx[1], FI_CLAIM);
	ok = !r && wait_cq(c->rxcq, &e, &src, &err);
	check(ok && e.op_context == &ctx[1] && e.len == PR_BIG &&
	      verify(buf[1], len[1], 901),
	      "probe: its FI_CLAIM receive gets 1 MiB intact (%s)",
	      ok ? "ok" : r ? fi_strerror(-r) : fi_strerror(err.err));

	/* FI_PEEK | FI_DISCARD: found, and gone */
	ok = peek_until(c, 0xe3, &ctx[2], FI_DISCARD, &e, &src);
	check(ok && e.len == 200 && e.tag == 0xe3,
	      "probe: peek + discard finds the 200-byte message");
	peek_none(c, 0xe3, "a discarded message is gone");

	/* FI_CLAIM | FI_DISCARD of a claimed rendezvous */
	ok = peek_until(c, 0xe4, &ctx[3], FI_CLAIM, &e, &src);
	check(ok && e.len == PR_BIG, "probe: peek + claim of a second rendezvous message");
	r = trecvmsg(c, NULL, 0, 0, &ctx[3], FI_CLAIM | FI_DISCARD);
	ok = !r && wait_cq(c->rxcq, &e, NULL, &err);
	check(ok && e.op_context == &ctx[3],
	      "probe: FI_CLAIM | FI_DISCARD completes with the claim's context (%zd)", r);
	peek_none(c, 0xe4, "a claimed, discarded message is gone");
out:
	for (i = 0; i < 4; i++)
		free(buf[i]);
	barrier(c);
}

/* --- a hostile peer ------------------------------------------------------- */
#define H_KEY		0x4057113ab1e5eedULL
#define H_REGION	(1 << 20)

/* tags of the victim's receives, one per crafted RTS, and the good ones */
static const struct {
	uint64_t tag;
	uint32_t off, len;
	int pipe;
	const char *what;
	uint16_t zc;	/* a zero-copy RTS (flag 8) with this id */
} h_rts[] = {
	{ 0xbad1, 0xffffffc0, 4096, 1,
	  "pipelined RTS, slot offset 0xffffffc0 (+64 wraps 32 bits)", 0 },
	{ 0xbad2, 0, 0xffffffff, 0, "RTS of 4 GiB - 1 (beyond max_msg_size)", 0 },
	{ 0xbad3, 0xfffff000, 0x2000, 0, "RTS at 0xfffff000 + 8 KiB (wraps 32 bits)", 0 },
	{ 0xbad4, H_REGION - 64, 4096, 0, "RTS past the end of the peer's region", 0 },
	{ 0xbad5, 3, 100, 1, "pipelined RTS, misaligned ready word", 0 },
	{ 0xbad8, 0xfffff000, 0x2000, 0,
	  "zero-copy RTS at 0xfffff000 + 8 KiB of the sender's export", 0x7001 },
	{ 0xbad9, H_REGION - 64, 4096, 0,
	  "zero-copy RTS past the end of the sender's export", 0x7002 },
	{ 0xbada, 0, 4096, 1, "zero-copy RTS that is also pipelined", 0x7003 },
};
#define H_NRTS	(sizeof(h_rts) / sizeof(h_rts[0]))
#define H_GOOD1	0x600d1
#define H_GOOD2	0x600d2
#define H_GOOD3	0x600d3		/* through a ring of the hostile side */
#define H_MRKEY		0x3a11		/* the victim's registration */
#define H_MR_OFF	100
#define H_MR_LEN	4096

static int victim(const char *dir)
{
	struct fi_cq_attr cqa = { .format = FI_CQ_FORMAT_TAGGED, .size = 64 };
	struct fi_av_attr ava = { .type = FI_AV_TABLE };
	struct fi_info *h = hints_new();
	static unsigned char bufs[H_NRTS][65536];
	static unsigned char area[4 * 4096] __attribute__((aligned(4096)));
	char good1[64] = "", good2[64] = "", good3[64] = "";
	struct fid_mr *mr;
	int ok;
	struct ctx c = { .a = 1 };
	char name[64], path[512], tmp[520];
	size_t len = sizeof(name), i;
	unsigned int seen = 0, k;
	FILE *f;

	TRY(fi_getinfo(FI_VERSION(1, 17), NULL, NULL, 0, h, &c.fi));
	TRY(fi_fabric(c.fi->fabric_attr, &c.fabric, NULL));
	TRY(fi_domain(c.fabric, c.fi, &c.domain, NULL));
	TRY(fi_av_open(c.domain, &ava, &c.av, NULL));
	TRY(fi_cq_open(c.domain, &cqa, &c.txcq, NULL));
	TRY(fi_cq_open(c.domain, &cqa, &c.rxcq, NULL));
	TRY(fi_endpoint(c.domain, c.fi, &c.ep, NULL));
	TRY(fi_ep_bind(c.ep, &c.av->fid, 0));
	TRY(fi_ep_bind(c.ep, &c.txcq->fid, FI_TRANSMIT));
	TRY(fi_ep_bind(c.ep, &c.rxcq->fid, FI_RECV));
	TRY(fi_enable(c.ep));
	TRY(fi_getname(&c.ep->fid, name, &len));
	/* 4096 bytes at 100 into the second of four pages (h_mr_attacks()) */
	TRY(fi_mr_reg(c.domain, area + 4096 + H_MR_OFF, H_MR_LEN,
		      FI_REMOTE_READ | FI_REMOTE_WRITE, 0, H_MRKEY, 0, &mr,
		      NULL));
	for (i = 0; i < H_NRTS; i++)
		post_recv(&c, 1, bufs[i], sizeof(bufs[i]), h_rts[i].tag, bufs[i]);
	post_recv(&c, 1, good1, sizeof(good1), H_GOOD1, good1);
	post_recv(&c, 1, good2, sizeof(good2), H_GOOD2, good2);
	post_recv(&c, 1, good3, sizeof(good3), H_GOOD3, good3);
	snprintf(path, sizeof(path), "%s/a.addr", dir);
	snprintf(tmp, sizeof(tmp), "%s.tmp", path);
	f = fopen(tmp, "w");
	if (!f || fprintf(f, "%s\n", name) < 0 || fclose(f) || rename(tmp, path)) {
		printf("not ok - cannot write %s\n", path);
		return 1;
	}
	for (k = 0; k < H_NRTS + 3; k++) {
		struct fi_cq_tagged_entry e;
		struct fi_cq_err_entry err;
		int ok = wait_cq(c.rxcq, &e, NULL, &err);
		void *ctx = ok ? e.op_context : err.op_context;

		for (i = 0; i < H_NRTS; i++)
			if (ctx == bufs[i]) {
				check(!ok && err.err,
				      "hostile peer: %s: the receive ends with an error entry (%s)",
				      h_rts[i].what,
				      ok ? "none" : fi_strerror(err.err));
				seen |= 1u << i;
			}
		if (ctx == good1 || ctx == good2)
			check(ok && !strcmp(ctx, ctx == good1 ? "still here" :
					    "and well"),
			      "hostile peer: the good message 0x%x behind the bad ones arrives intact (%s)",
			      ctx == good1 ? H_GOOD1 : H_GOOD2,
			      ok ? (char *)ctx : fi_strerror(err.err));
		if (ctx == good3)
			check(ok && !strcmp(ctx, "via a ring"),
			      "hostile peer: a good message through a ring after the bad rings arrives intact (%s)",
			      ok ? (char *)ctx : fi_strerror(err.err));
	}
	check(seen == (1u << H_NRTS) - 1,
	      "hostile peer: every malformed RTS ended its receive");
	/* the peer wrote 0xab over the registration through its grant */
	ok = 1;
	for (i = 0; i < sizeof(area); i++)
		ok &= area[i] == (mr_export_on() && i >= 4096 + H_MR_OFF &&
				  i < 4096 + H_MR_OFF + H_MR_LEN ? 0xab : 0);
	if (mr_export_on())
		check(ok, "hostile peer: the registration holds the peer's direct write, the pages around it are untouched");
	else
		check(ok, "hostile peer: FI_SNODE_MR_EXPORT=0: nothing reached the registration");
	TRY(fi_close(&mr->fid));
	printf("# victim: %d failed\n", failures);
	return failures ? 1 : 0;
}

/* one raw snode message of len bytes to the victim */
static void h_send(struct snode_ep *sep, const struct snode_ep_addr *dst,
		   const void *m, size_t len, const char *what)
{
	int r = snode_ep_send(sep, dst, m, len, 0, 5000);

	if (r < 0)
		printf("# hostile: send of %s: %s\n", what, strerror(-r));
}

static void h_eager(struct snode_ep *sep, const struct snode_ep_addr *dst,
		    uint64_t tag, uint32_t len, const char *text)
{
	uint8_t m[SNODE_MSG_MAX_LEN] = { 1, 1 };	/* first, tagged */
	size_t n = text ? strlen(text) + 1 : 0;

	memcpy(m + 4, &len, 4);
	memcpy(m + 8, &tag, 8);
	memcpy(m + 16, text ? text : "", n);
	h_send(sep, dst, m, 16 + n, "an eager header");
}

/*
 * The victim's registration (H_MRKEY) through mr.c's protocol by hand: a
 * query for a key never registered is refused; the real one is granted to
 * this node under a key of its own, and the device lets this node import
 * the registration's two pages, nothing past them and nothing with
 * another key; a write through the grant lands (the victim checks it and
 * the pages around); notes for what was never granted are ignored.
 */
static int h_grant(struct snode_ep *sep, uint32_t qid, uint8_t *g)
{
	double end = now_us() + 10e6;
	uint32_t id;

	while (now_us() < end) {
		struct snode_msg msg;

		if (snode_ep_recv(sep, &msg, 1, 1000) != 1 || msg.len < 32 ||
		    msg.payload[0] != 17)
			continue;
		memcpy(&id, msg.payload + 8, 4);
		if (id != qid)
			continue;
		memcpy(g, msg.payload, 32);
		return 0;
	}
	return -1;
}

static void h_query(struct snode_ep *sep, const struct snode_ep_addr *dst,
		    uint32_t qid, uint64_t key)
{
	uint8_t m[24] = { 16 };
	uint64_t ans = H_KEY;

	memcpy(m + 4, &qid, 4);
	memcpy(m + 8, &key, 8);
	memcpy(m + 16, &ans, 8);
	h_send(sep, dst, m, sizeof(m), "an MR_QUERY");
}

static void h_mr_attacks(struct snode_dev *dev, struct snode_ep *sep,
			 const struct snode_ep_addr *dst)
{
	struct snode_handle h = { .node = dst->node };
	struct snode_import *imp;
	uint8_t g[32], m[24] = { 18, 3 };
	uint64_t len = 0, key = 0xdead;
	uint32_t u = 0xffffffff;
	uint16_t poff = 0;
	int32_t st = 0;
	void *map;
	int r;

	h_query(sep, dst, 1, 0xdead);
	r = h_grant(sep, 1, g);
	if (!r)
		memcpy(&st, g + 4, 4);
	check(!r && st < 0,
	      "hostile: MR_QUERY of a key never registered is refused (%s, %d)",
	      r ? "no answer" : "answered", st);
	h_query(sep, dst, 2, H_MRKEY);
	r = h_grant(sep, 2, g);
	if (!r) {
		memcpy(&poff, g + 2, 2);
		memcpy(&st, g + 4, 4);
		memcpy(&h.export_id, g + 12, 4);
		memcpy(&h.key, g + 16, 8);
		memcpy(&len, g + 24, 8);
	}
	if (!mr_export_on()) {	/* the victim runs with it too */
		check(!r && st == -EOPNOTSUPP,
		      "hostile: FI_SNODE_MR_EXPORT=0: MR_QUERY of the registration is answered EOPNOTSUPP (%s, %d)",
		      r ? "no answer" : "answered", st);
		return;
	}
	check(!r && !st && poff == H_MR_OFF && len == H_MR_LEN && (g[1] & 1),
	      "hostile: MR_QUERY of the registration: granted, %d bytes at %d of its first page, writable (%s, %d, %u, %" PRIu64 ")",
	      H_MR_LEN, H_MR_OFF, r ? "no answer" : "answered", st, poff, len);
	if (r || st)
		return;
	check(h.key != H_MRKEY && h.key != dst->key,
	      "hostile: the grant's key is its own, not the registration's or the endpoint's");
	r = snode_import(dev, &h, 0, 3 * 4096, SNODE_IMPORT_WRITE, &imp);
	check(r < 0, "hostile: an import past the registration's pages is refused (%s)",
	      r < 0 ? strerror(-r) : "imported");
	if (!r)
		snode_import_close(imp);
	r = snode_import(dev, &h, 8192, 4096, 0, &imp);
	check(r < 0, "hostile: an import beyond the granted pages is refused (%s)",
	      r < 0 ? strerror(-r) : "imported");
	if (!r)
		snode_import_close(imp);
	h.key ^= 1;
	r = snode_import(dev, &h, 0, 4096, 0, &imp);
	check(r < 0, "hostile: the grant's export under another key is refused (%s)",
	      r < 0 ? strerror(-r) : "imported");
	if (!r)
		snode_import_close(imp);
	h.key ^= 1;
	r = snode_import(dev, &h, 0, 2 * 4096, SNODE_IMPORT_WRITE, &imp);
	check(!r, "hostile: the granted pages import (%s)", r ? strerror(-r) : "ok");
	if (!r) {
		r = snode_import_map(imp, &map);
		if (!r) {
			memset((char *)map + H_MR_OFF, 0xab, H_MR_LEN);
			__atomic_thread_fence(__ATOMIC_SEQ_CST);
			snode_import_unmap(imp);
		}
		snode_import_close(imp);
	}
	/* notes of writes that never were: 4 GiB - 1 bytes, a bad key */
	memcpy(m + 4, &u, 4);
	key = H_MRKEY;
	memcpy(m + 8, &key, 8);
	h_send(sep, dst, m, sizeof(m), "an RMA_NOTE");
	key = 0xdead;
	memcpy(m + 8, &key, 8);
	h_send(sep, dst, m, sizeof(m), "an RMA_NOTE");
}

/*
 * A ring of the hostile side's own (ring.c's protocol, written by hand):
 * pool memory exported to the victim's node, offered with RING_ASK;
 * after RING_GRANT the victim's control page is imported and RING_START
 * sent. 0, or -1 if the victim did not grant it within 30 s.
 */
#define H_RING_SIZE	16384
struct h_ring {
	struct snode_mem *mem;
	uint8_t *map;			/* head page, then the entries */
	struct snode_handle h;
	struct snode_import *ctl;	/* the victim's control page */
};

static int h_ring_offer(struct snode_dev *dev, struct snode_ep *sep,
			const struct snode_ep_addr *dst, struct h_ring *r)
{
	uint8_t m[32] = { 11, 1 };	/* RING_ASK, version 1 */
	uint32_t size = H_RING_SIZE, id, ctl_id;
	struct snode_handle ch = { .node = dst->node };
	uint64_t ep_key = H_KEY;
	double end = now_us() + 30e6;
	void *map;

	memset(r, 0, sizeof(*r));
	TRY(snode_mem_alloc(dev, 4096 + H_RING_SIZE, &r->mem));
	TRY(snode_mem_map(r->mem, &map));
	r->map = map;
	memset(r->map, 0, 4096 + H_RING_SIZE);
	TRY(snode_export(r->mem, 0, 4096 + H_RING_SIZE, SNODE_EXPORT_RANDOM_KEY,
			 0, &dst->node, 1, &r->h));
	memcpy(m + 4, &size, 4);
	memcpy(m + 8, &r->h.export_id, 4);
	memcpy(m + 16, &r->h.key, 8);
	memcpy(m + 24, &ep_key, 8);
	h_send(sep, dst, m, sizeof(m), "a RING_ASK");
	while (now_us() < end) {
		struct snode_msg msg;

		if (snode_ep_recv(sep, &msg, 1, 1000) != 1 || msg.len < 20 ||
		    (msg.payload[0] != 12 && msg.payload[0] != 13))
			continue;
		memcpy(&id, msg.payload + 4, 4);
		if (id != r->h.export_id)
			continue;
		if (msg.payload[0] == 13)
			return -1;		/* refused */
		memcpy(&ctl_id, msg.payload + 8, 4);
		memcpy(&ch.key, msg.payload + 12, 8);
		ch.export_id = ctl_id;
		TRY(snode_import(dev, &ch, 0, 4096,
				 SNODE_IMPORT_ZERO_PAGE_ON_REVOKE, &r->ctl));
		memset(m, 0, sizeof(m));
		m[0] = 14;		/* RING_START */
		memcpy(m + 4, &r->h.export_id, 4);
		h_send(sep, dst, m, 8, "a RING_START");
		return 0;
	}
	return -1;
}

/* the victim withdrew its control page (it dropped the ring) within 30 s */
static int h_ring_dropped(struct h_ring *r)
{
	double end = now_us() + 30e6;

	while (now_us() < end) {
		struct snode_import_status st = { 0 };

		if (snode_import_status(r->ctl, &st, sizeof(st)) < 0 ||
		    st.out_state != SNODE_WINDOW_STATE_ACTIVE)
			return 1;
		usleep(20000);
	}
	return 0;
}

static void h_ring_free(struct snode_dev *dev, struct h_ring *r)
{
	if (r->ctl)
		snode_import_close(r->ctl);
	snode_unexport(dev, &r->h);
	snode_mem_unmap(r->mem);
	snode_mem_free(r->mem);
}

/* an entry header (u32 length, u32 kind) at ring offset pos */
static void h_ring_entry(struct h_ring *r, uint64_t pos, uint32_t len,
			 uint32_t kind)
{
	memcpy(r->map + 4096 + pos, &len, 4);
	memcpy(r->map + 4096 + pos + 4, &kind, 4);
}

static void h_ring_head(struct h_ring *r, uint64_t head)
{
	__atomic_store_n((uint64_t *)r->map, head, __ATOMIC_RELEASE);
}

static const struct {
	const char *what;
	uint64_t pos, head;
	uint32_t len, kind;
} h_rings[] = {
	{ "a head beyond the ring", 0, H_RING_SIZE + 8, 8, 0 },
	{ "an entry longer than a quarter of the ring", 0, H_RING_SIZE,
	  H_RING_SIZE / 2, 0 },
	{ "an entry past the head", 0, 64, 4000, 0 },
	{ "a padding entry short of the ring's end", 0, 16, 8, 1 },
	{ "an entry of an unknown kind", 0, 24, 16, 7 },
	{ "an empty entry", 0, 8, 0, 0 },
};

/*
 * Each bad ring: offered, granted, started, then broken; the victim must
 * drop it (withdraw its control page). Then one good ring carries H_GOOD3.
 */
static void h_ring_attacks(struct snode_dev *dev, struct snode_ep *sep,
			   const struct snode_ep_addr *dst)
{
	static const char text[] = "via a ring";
	uint8_t e[16 + sizeof(text)] = { 1, 1 };	/* first, tagged */
	uint32_t len = sizeof(text);
	uint64_t tag = H_GOOD3;
	struct h_ring r;
	size_t i;

	for (i = 0; i < sizeof(h_rings) / sizeof(h_rings[0]); i++) {
		if (h_ring_offer(dev, sep, dst, &r)) {
			check(0, "hostile: ring with %s: the victim granted it",
			      h_rings[i].what);
			continue;
		}
		h_ring_entry(&r, h_rings[i].pos, h_rings[i].len,
			     h_rings[i].kind);
		h_ring_head(&r, h_rings[i].head);
		check(h_ring_dropped(&r),
		      "hostile: ring with %s: the victim dropped it (withdrew its control page)",
		      h_rings[i].what);
		h_ring_free(dev, &r);
	}
	if (h_ring_offer(dev, sep, dst, &r)) {
		check(0, "hostile: a good ring: the victim granted it");
		return;
	}
	memcpy(e + 4, &len, 4);
	memcpy(e + 8, &tag, 8);
	memcpy(e + 16, text, sizeof(text));
	memcpy(r.map + 4096 + 8, e, sizeof(e));
	h_ring_entry(&r, 0, sizeof(e), 0);
	h_ring_head(&r, 8 + ((sizeof(e) + 7) & ~(size_t)7));
	/* the victim read it: its tail (the control page's first word) moves */
	{
		double end = now_us() + 30e6;
		uint64_t tail = 0;
		void *cm = NULL;

		if (!snode_import_map(r.ctl, &cm)) {
			while (!tail && now_us() < end) {
				tail = __atomic_load_n((uint64_t *)cm,
						       __ATOMIC_ACQUIRE);
				usleep(1000);
			}
			snode_import_unmap(r.ctl);
		}
		check(tail == 8 + ((sizeof(e) + 7) & ~(size_t)7),
		      "hostile: a good ring: the victim read the entry (tail %" PRIu64 ")",
		      tail);
	}
	h_ring_free(dev, &r);
}

static int hostile(const char *dir)
{
	struct snode_ep_addr dst;
	struct snode_ctx *sctx;
	struct snode_dev *dev;
	struct snode_ep *sep;
	struct snode_mem *mem;
	struct snode_handle hd;
	char peer[128], path[512];
	unsigned int f, seen = 0;
	uint8_t m[SNODE_MSG_MAX_LEN];
	int32_t st;
	uint32_t u;
	void *map;
	size_t i;
	double end;

	snprintf(path, sizeof(path), "%s/peer.addr", dir);
	if (read_file(path, peer, sizeof(peer), 120) ||
	    sscanf(peer, "fi_snode://%u:%u:%u:%" SCNx64, &f, &dst.node,
		   &dst.id, &dst.key) != 4) {
		printf("not ok - hostile: no victim address in %s\n", path);
		return 1;
	}
	TRY(snode_new(&sctx));
	dev = snode_dev_get_first(sctx);
	if (!dev) {
		printf("not ok - hostile: no snode device\n");
		return 1;
	}
	/* a real region under the key the RTS name: the victim imports it */
	TRY(snode_ep_new(dev, SNODE_EP_ANY, 64, 0, H_KEY, &sep));
	TRY(snode_mem_alloc(dev, H_REGION, &mem));
	TRY(snode_mem_map(mem, &map));
	memset(map, 0x5a, H_REGION);
	TRY(snode_export(mem, 0, H_REGION, 0, H_KEY, NULL, 0, &hd));

	h_mr_attacks(dev, sep, &dst);
	for (i = 0; i < H_NRTS; i++) {
		uint64_t ans = H_KEY;

		memset(m, 0, sizeof(m));
		m[0] = 3;				/* RTS */
		m[1] = 1 | (h_rts[i].pipe ? 4 : 0);	/* tagged, pipelined */
		memcpy(m + 4, &h_rts[i].len, 4);
		memcpy(m + 8, &h_rts[i].tag, 8);
		memcpy(m + 16, &h_rts[i].off, 4);
		memcpy(m + 20, &hd.export_id, 4);
		memcpy(m + 24, &hd.key, 8);
		if (h_rts[i].zc) {		/* zero copy: id, answer key */
			m[1] |= 8;
			memcpy(m + 2, &h_rts[i].zc, 2);
			memcpy(m + 40, &ans, 8);
		}
		h_send(sep, &dst, m, h_rts[i].zc ? 48 : 40, h_rts[i].what);
	}
	/* answers to nothing, with statuses no errno has */
	memset(m, 0, sizeof(m));
	m[0] = 4;		/* DONE, slot 0, status INT32_MIN */
	st = INT32_MIN;
	memcpy(m + 4, &st, 4);
	h_send(sep, &dst, m, 12, "a DONE");
	m[0] = 8;		/* READ_RESP, status INT32_MAX */
	st = INT32_MAX;
	memcpy(m + 4, &st, 4);
	h_send(sep, &dst, m, 28, "a READ_RESP");
	m[0] = 10;		/* ATOMIC_RESP */
	h_send(sep, &dst, m, 24, "an ATOMIC_RESP");
	memset(m, 0, sizeof(m));
	m[0] = 9;		/* ATOMIC of kind 200 */
	m[1] = 200;
	m[2] = FI_UINT64;
	m[3] = FI_SUM;
	memcpy(m + 40, &hd.key, 8);
	h_send(sep, &dst, m, 48, "an ATOMIC");
	memset(m, 0, sizeof(m));
	m[0] = 7;		/* READ of 4 GiB - 1 at an unknown key */
	u = 0xffffffff;
	memcpy(m + 4, &u, 4);
	memcpy(m + 28, &hd.key, 8);
	h_send(sep, &dst, m, 36, "a READ");
	memset(m, 0, sizeof(m));
	m[0] = 2;		/* a continuation of nothing */
	h_send(sep, &dst, m, 48, "a continuation");
	h_eager(sep, &dst, 0xbad6, 0xffffffff, NULL);	/* beyond max_msg_size */
	h_eager(sep, &dst, 0xbad7, 16 << 20, NULL);	/* 16 MiB that never come */
	h_eager(sep, &dst, H_GOOD1, 11, "still here");	/* ends 0xbad7 */
	h_eager(sep, &dst, H_GOOD2, 9, "and well");

	/* the victim answers every bad RTS: a DONE with a failed status */
	end = now_us() + 60e6;
	while (seen != (1u << H_NRTS) - 1 && now_us() < end) {
		struct snode_msg msg;
		int n = snode_ep_recv(sep, &msg, 1, 1000);

		if (n != 1 || msg.len < 12 || msg.payload[0] != 4)
			continue;
		memcpy(&st, msg.payload + 4, 4);
		memcpy(&u, msg.payload + 8, 4);
		for (i = 0; i < H_NRTS; i++)
			if ((h_rts[i].zc ? (msg.payload[1] & 8) &&
					   u == h_rts[i].zc :
					   !(msg.payload[1] & 8) &&
					   u == h_rts[i].off) &&
			    !(seen & (1u << i))) {
				check(st < 0,
				      "hostile: %s: the victim answers DONE with an error (%d)",
				      h_rts[i].what, st);
				seen |= 1u << i;
				break;
			}
	}
	check(seen == (1u << H_NRTS) - 1,
	      "hostile: the victim answered every RTS within 60 s");
	h_ring_attacks(dev, sep, &dst);
	snode_unexport(dev, &hd);
	snode_mem_unmap(mem);
	snode_mem_free(mem);
	snode_ep_free(sep);
	snode_unref(sctx);
	printf("# hostile: %d failed\n", failures);
	return failures ? 1 : 0;
}

int main(int argc, char **argv)
{
	setvbuf(stdout, NULL, _IOLBF, 0);
	if (argc == 2 && !strcmp(argv[1], "hints"))
		return do_hints();
	if ((argc == 4 || argc == 5) && !strcmp(argv[1], "pair") &&
	    (!strcmp(argv[2], "a") || !strcmp(argv[2], "b")))
		return do_pair(argv[2][0] == 'a', argv[3],
			       argc == 5 ? atoi(argv[4]) : 200);
	if (argc == 3 && !strcmp(argv[1], "victim"))
		return victim(argv[2]);
	if (argc == 3 && !strcmp(argv[1], "hostile"))
		return hostile(argv[2]);
	fprintf(stderr, "usage: ofi_test hints | pair a|b DIR [ITERS] | victim DIR | hostile DIR\n");
	return 2;
}
