// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * snode-fuzz: requests of the "snode" generic netlink family. Well-formed
 * ones go through libsnode; malformed ones (random commands, flags and
 * attributes, truncated headers) are built by hand on a raw socket.
 *
 * Oracle: without CAP_NET_ADMIN, a command the family marks
 * GENL_ADMIN_PERM (DEV_SET, LINK_SET, LINK_RESET, LINK_CLEAR) must fail
 * with EPERM; every error must be one of the errnos below; the kernel must
 * answer every request that asked for an ack.
 */
#include <errno.h>
#include <linux/genetlink.h>
#include <linux/netlink.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "libsnode.h"
#include "fuzz.h"

struct fz_nl {
	struct snode_ctx *ctx;
	int fd;			/* raw NETLINK_GENERIC socket, protected */
	uint16_t family;
	uint32_t seq;
	unsigned char buf[65536];
};

static const int nl_errs[] = { EINVAL, EOPNOTSUPP, ENOENT, ENODEV, EPERM,
			       ERANGE, EMSGSIZE, ENOLINK, ETIMEDOUT, EAGAIN,
			       EBUSY, EIO, ENOMEM, ENOBUFS, E2BIG,
			       EHOSTUNREACH, EPROTONOSUPPORT, 0 };

static bool nl_err_ok(int e)
{
	const int *p;

	for (p = nl_errs; *p; p++)
		if (*p == e)
			return true;
	return false;
}

/* the family's bound of isolate-flaps (the spec's checks: max) */
#define LINK_FLAPS_MAX		64

static bool is_admin_cmd(uint8_t cmd)
{
	return cmd == SNODE_NL_CMD_DEV_SET || cmd == SNODE_NL_CMD_LINK_SET ||
	       cmd == SNODE_NL_CMD_LINK_RESET || cmd == SNODE_NL_CMD_LINK_CLEAR;
}

/* resolve the family id through the generic netlink controller */
static int resolve(struct fz_nl *nl)
{
	struct {
		struct nlmsghdr n;
		struct genlmsghdr g;
		unsigned char attrs[64];
	} req = {};
	struct nlattr *a = (struct nlattr *)req.attrs;
	size_t namelen = strlen(SNODE_FAMILY_NAME) + 1;
	ssize_t len;
	struct nlmsghdr *h;

	a->nla_type = CTRL_ATTR_FAMILY_NAME;
	a->nla_len = (uint16_t)(NLA_HDRLEN + namelen);
	memcpy((char *)a + NLA_HDRLEN, SNODE_FAMILY_NAME, namelen);
	req.n.nlmsg_len = (uint32_t)(NLMSG_LENGTH(GENL_HDRLEN) +
				     NLA_ALIGN(a->nla_len));
	req.n.nlmsg_type = GENL_ID_CTRL;
	req.n.nlmsg_flags = NLM_F_REQUEST;
	req.n.nlmsg_seq = ++nl->seq;
	req.g.cmd = CTRL_CMD_GETFAMILY;
	req.g.version = 1;
	if (send(nl->fd, &req, req.n.nlmsg_len, 0) < 0)
		return -errno;
	len = recv(nl->fd, nl->buf, sizeof(nl->buf), 0);
	if (len < 0)
		return -errno;
	h = (struct nlmsghdr *)nl->buf;
	if (!NLMSG_OK(h, (size_t)len) || h->nlmsg_type == NLMSG_ERROR)
		return -ENOENT;
	{
		unsigned char *p = NLMSG_DATA(h) + GENL_HDRLEN;
		unsigned char *end = (unsigned char *)h + h->nlmsg_len;

		while (p + NLA_HDRLEN <= end) {
			struct nlattr *x = (struct nlattr *)p;

			if (x->nla_len < NLA_HDRLEN)
				break;
			if ((x->nla_type & NLA_TYPE_MASK) == CTRL_ATTR_FAMILY_ID) {
				memcpy(&nl->family, p + NLA_HDRLEN, 2);
				return 0;
			}
			p += NLA_ALIGN(x->nla_len);
		}
	}
	return -ENOENT;
}

struct fz_nl *fz_nl_new(struct fz_ctx *c)
{
	struct fz_nl *nl = calloc(1, sizeof(*nl));
	struct timeval tv = { .tv_sec = 10 };

	if (!nl)
		return NULL;
	/* from socket() to its protected number, no other thread may close it */
	fz_fd_lock();
	nl->fd = fz_protect_fd(socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC,
				      NETLINK_GENERIC));
	fz_fd_unlock();
	if (nl->fd < 0 || resolve(nl)) {
		fz_note(c, "netlink: family %s not found", SNODE_FAMILY_NAME);
		if (nl->fd >= 0)
			close(nl->fd);
		free(nl);
		return NULL;
	}
	setsockopt(nl->fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	if (snode_new(&nl->ctx))
		nl->ctx = NULL;
	return nl;
}

void fz_nl_free(struct fz_nl *nl)
{
	if (!nl)
		return;
	if (nl->ctx)
		snode_unref(nl->ctx);
	close(nl->fd);
	free(nl);
}

/* drain the socket until our seq is answered by an error/DONE message */
static int raw_answer(struct fz_ctx *c, struct fz_nl *nl, uint32_t seq,
		      int *err)
{
	for (;;) {
		ssize_t len = recv(nl->fd, nl->buf, sizeof(nl->buf), 0);
		struct nlmsghdr *h;

		if (len < 0)
			return -errno;
		for (h = (struct nlmsghdr *)nl->buf; NLMSG_OK(h, (size_t)len);
		     h = NLMSG_NEXT(h, len)) {
			if (h->nlmsg_seq != seq)
				continue;
			if (h->nlmsg_type == NLMSG_ERROR) {
				struct nlmsgerr *e = NLMSG_DATA(h);

				*err = -e->error;
				return 0;
			}
			if (h->nlmsg_type == NLMSG_DONE) {
				int v = 0;

				if (h->nlmsg_len >= NLMSG_LENGTH(sizeof(int)))
					memcpy(&v, NLMSG_DATA(h), sizeof(v));
				*err = -v;
				return 0;
			}
		}
	}
}

static void op_raw(struct fz_ctx *c, struct fz_nl *nl)
{
	unsigned char *m = nl->buf;
	struct nlmsghdr *h = (struct nlmsghdr *)m;
	struct genlmsghdr *g = NLMSG_DATA(h);
	size_t len = NLMSG_LENGTH(GENL_HDRLEN);
	uint8_t cmd = (uint8_t)fz_below(c, SNODE_NL_CMD_MAX + 3);
	bool dump = fz_chance(c, 40);
	int i, nattr = (int)fz_below(c, 6), ret, err = 0;
	bool truncated = false;

	memset(m, 0, 4096);
	g->cmd = cmd;
	g->version = fz_chance(c, 90) ? SNODE_FAMILY_VERSION :
		     (uint8_t)fz_rand(c);
	for (i = 0; i < nattr; i++) {
		struct nlattr *a = (struct nlattr *)(m + len);
		size_t plen = fz_chance(c, 70) ? 4ULL << fz_below(c, 2) :
			      fz_below(c, 40);

		/* attribute types up to the link set's last, and two past it */
		a->nla_type = (uint16_t)(1 + fz_below(c, SNODE_A_LINK_MAX + 2));
		if (fz_chance(c, 5))
			a->nla_type |= NLA_F_NESTED;
		a->nla_len = (uint16_t)(NLA_HDRLEN + plen);
		if (plen == 4) {
			uint32_t v = fz_chance(c, 50) ? (uint32_t)fz_below(c, 4) :
				     (uint32_t)fz_rand(c);

			memcpy((char *)a + NLA_HDRLEN, &v, 4);
		} else {
			size_t j;

			for (j = 0; j < plen; j++)
				((unsigned char *)a)[NLA_HDRLEN + j] =
					(unsigned char)fz_rand(c);
		}
		if (fz_chance(c, 3)) {
			a->nla_len = (uint16_t)(a->nla_len + 100);
			truncated = true;
		}
		len += NLA_ALIGN(NLA_HDRLEN + plen);
	}
	h->nlmsg_len = (uint32_t)len;
	h->nlmsg_type = nl->family;
	h->nlmsg_flags = NLM_F_REQUEST | NLM_F_ACK | (dump ? NLM_F_DUMP : 0);
	h->nlmsg_seq = ++nl->seq;
	if (fz_chance(c, 3)) {
		h->nlmsg_len = (uint32_t)(NLMSG_HDRLEN + fz_below(c, GENL_HDRLEN));
		truncated = true;
	}
	fz_begin(c, "netlink raw cmd %u%s, %d attrs%s", cmd,
		 dump ? " DUMP" : "", nattr, truncated ? ", malformed" : "");
	ret = (int)send(nl->fd, m, len, 0);
	if (ret >= 0)
		ret = raw_answer(c, nl, h->nlmsg_seq, &err);
	fz_end(c, ret < 0 ? -1 : err ? -1 : 0, ret < 0 ? -ret : err);
	if (ret < 0) {
		if (ret == -EAGAIN)
			fz_fail(c, "netlink: no answer to an acked request within 10 s");
		return;
	}
	if (err && !nl_err_ok(err))
		fz_fail(c, "netlink cmd %u: unexpected error %s", cmd,
			fz_errname(err));
	if (!err && !fz_privileged && is_admin_cmd(cmd) && !dump)
		fz_fail(c, "netlink admin cmd %u succeeded without CAP_NET_ADMIN",
			cmd);
}

static void op_lib_locked(struct fz_ctx *c, struct fz_nl *nl)
{
	unsigned int dev = fz_chance(c, 90) ? 0 : (unsigned int)fz_below(c, 4);
	unsigned int port = (unsigned int)fz_below(c, 3);
	int what = (int)fz_below(c, 12), ret;
	struct snode_window_iter *windows;
	struct snode_mem_iter *mems;
	struct snode_msg_iter *msgs;
	struct snode_dev *sdev;
	struct snode_stats st;
	unsigned int type;
	struct snode_link_iter *links;
	struct snode_node_iter *nodes;
	bool admin = false;

	/* a fresh context now and then: a closed socket is not forever */
	if (fz_chance(c, 20)) {
		snode_unref(nl->ctx);
		if (snode_new(&nl->ctx)) {
			nl->ctx = NULL;
			return;
		}
	}

	switch (what) {
	case 0:
		fz_begin(c, "snode_link_list(%d)", (int)dev - (dev == 3 ? 4 : 0));
		ret = snode_link_list(nl->ctx, (int)dev - (dev == 3 ? 4 : 0),
				      sizeof(struct snode_link_info), &links);
		if (ret >= 0)
			snode_link_iter_free(links);
		break;
	case 1:
		fz_begin(c, "snode_node_list(%u)", dev);
		ret = snode_node_list(nl->ctx, (int)dev,
				      sizeof(struct snode_node_info), &nodes);
		if (ret >= 0)
			snode_node_iter_free(nodes);
		break;
	case 2:
		fz_begin(c, "snode_window_list(%u)", dev);
		ret = snode_window_list(nl->ctx, (int)dev,
					sizeof(struct snode_window_info),
					&windows);
		if (ret >= 0)
			snode_window_iter_free(windows);
		break;
	case 7:
	case 8:
	case 9:
		/* the listings of one NIC, over window/endpoint/queue/stats-get */
		sdev = snode_dev_get_first(nl->ctx);
		if (!sdev)
			return;
		type = (unsigned int)fz_below(c, 6);
		if (what == 7) {
			fz_begin(c, "snode_mem_list(%u)", type);
			ret = snode_mem_list(sdev, type,
					     sizeof(struct snode_mem_entry), &mems);
			if (ret >= 0)
				snode_mem_iter_free(mems);
			if ((type < SNODE_MEM_LIST_ALLOCS ||
			     type > SNODE_MEM_LIST_ATT) && ret != -EINVAL)
				fz_fail(c, "snode_mem_list(%u): %d, not EINVAL",
					type, ret);
		} else if (what == 8) {
			type %= 4;
			fz_begin(c, "snode_msg_list(%u)", type);
			ret = snode_msg_list(sdev, type,
					     sizeof(struct snode_msg_entry), &msgs);
			if (ret >= 0)
				snode_msg_iter_free(msgs);
			if ((type < SNODE_MSG_LIST_ENDPOINTS ||
			     type > SNODE_MSG_LIST_DMA_QUEUES) && ret != -EINVAL)
				fz_fail(c, "snode_msg_list(%u): %d, not EINVAL",
					type, ret);
		} else {
			fz_begin(c, "snode_dev_get_stats");
			ret = snode_dev_get_stats(sdev, &st, sizeof(st));
		}
		break;
	case 3:
		if (fz_privileged)
			return;	/* would really reconfigure the fabric */
		admin = true;
		fz_begin(c, "snode_link_set_state(%u, %u, down)", dev, port);
		ret = snode_link_set_state(nl->ctx, dev, port, 0);
		break;
	case 4:
		if (fz_privileged)
			return;
		admin = true;
		fz_begin(c, "snode_link_reset(%u, %u)", dev, port);
		ret = snode_link_reset(nl->ctx, dev, port);
		break;
	case 5:
		if (fz_privileged)
			return;
		admin = true;
		fz_begin(c, "snode_link_clear(%u, %u)", dev, port);
		ret = snode_link_clear(nl->ctx, dev, port);
		break;
	case 11: {
		/* limits past the policy's ranges too: EPERM comes first */
		unsigned int flaps = (unsigned int)fz_below(c, LINK_FLAPS_MAX + 2);
		unsigned int window = (unsigned int)fz_below(c, 86402);
		int on = (int)fz_below(c, 2);
		uint64_t ber = fz_chance(c, 50) ? 0 : fz_rand(c);

		if (fz_privileged)
			return;
		admin = true;
		fz_begin(c, "snode_link_set_auto_isolate(%u, %u, %d, %llu, %u, %u)",
			 dev, port, on, (unsigned long long)ber, flaps, window);
		ret = snode_link_set_auto_isolate(nl->ctx, dev, port, on, ber,
						  flaps, window);
		break;
	}
	case 6:
		if (fz_privileged)
			return;
		admin = true;
		fz_begin(c, "snode_link_set_ber_threshold(%u, %u)", dev, port);
		ret = snode_link_set_ber_threshold(nl->ctx, dev, port,
						   fz_rand(c));
		break;
	case 10:
		if (fz_privileged)
			return;
		admin = true;
		/* in range: libsnode refuses the rest before asking */
		type = 1 + (unsigned int)fz_below(c, 100);
		fz_begin(c, "snode_link_set_util_threshold(%u, %u, %u)", dev,
			 port, type);
		ret = snode_link_set_util_threshold(nl->ctx, dev, port, type);
		break;
	}
	fz_end(c, ret < 0 ? -1 : 0, -ret);
	/*
	 * libsnode's socket is a loose fd: another thread may close it (EIO).
	 * The raw socket, which nothing closes, checks EPERM strictly.
	 */
	if (admin && ret != -EPERM && ret != -EIO && ret != -EPROTONOSUPPORT)
		fz_fail(c, "netlink admin operation without CAP_NET_ADMIN: %s instead of EPERM",
			ret ? fz_errname(-ret) : "success");
	if (ret < 0 && !nl_err_ok(-ret))
		fz_fail(c, "libsnode netlink call: unexpected %s",
			fz_errname(-ret));
}

static void op_lib(struct fz_ctx *c, struct fz_nl *nl)
{
	fz_fd_lock();
	op_lib_locked(c, nl);
	fz_fd_unlock();
}

void fz_nl_op(struct fz_ctx *c, struct fz_nl *nl)
{
	if (nl->ctx && fz_chance(c, 50))
		op_lib(c, nl);
	else
		op_raw(c, nl);
}
