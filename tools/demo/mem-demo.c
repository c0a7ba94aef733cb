// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * snode-mem-demo - the global memory part of "make demo", on libsnode.
 *
 *   snode-mem-demo export
 *	allocate 2 MiB of this node's fabric memory, write a greeting into
 *	it, export it and print its handle; then wait until a peer has
 *	written its answer into the same memory (and set a flag after it),
 *	print it, and exit, which withdraws the export
 *   snode-mem-demo import HANDLE
 *	import the handle, read the greeting through the window, write the
 *	answer, and wait until the window is revoked
 */
#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "libsnode.h"

#define DEMO_LEN	(2u << 20)
#define ANSWER_FLAG	4096	/* set once the answer is complete */
#define ANSWER_OFF	(4096 + 64)
#define TIMEOUT_S	60

static int fail(const char *what, int err)
{
	fprintf(stderr, "snode-mem-demo: %s: %s\n", what, strerror(-err));
	return 1;
}

static uint32_t node_id(struct snode_dev *dev)
{
	struct snode_info info;

	if (snode_dev_get_info(dev, &info, sizeof(info)) < 0)
		return SNODE_NODE_ID_NONE;
	return info.out_node_id;
}

static int demo_export(struct snode_dev *dev)
{
	char hs[SNODE_HANDLE_STR_MAX];
	struct snode_handle handle;
	struct snode_mem *mem;
	uint64_t *flag;
	uint32_t me = node_id(dev);
	char *p;
	int ret, i;

	ret = snode_mem_alloc(dev, DEMO_LEN, &mem);
	if (ret < 0)
		return fail("allocate fabric memory", ret);
	ret = snode_mem_map(mem, (void **)&p);
	if (ret < 0)
		return fail("map it", ret);
	snprintf(p, 128, "hello from node %u, written into node %u's own memory",
		 me, me);
	ret = snode_export(mem, 0, 0, SNODE_EXPORT_WRITE |
			   SNODE_EXPORT_RANDOM_KEY, 0, NULL, 0, &handle);
	if (ret < 0)
		return fail("export it", ret);
	snode_handle_to_str(&handle, hs, sizeof(hs));
	printf("node %u: exported 2 MiB of its memory as %s\n", me, hs);
	fflush(stdout);

	flag = (uint64_t *)(p + ANSWER_FLAG);
	for (i = 0; i < TIMEOUT_S * 100 &&
		    !__atomic_load_n(flag, __ATOMIC_ACQUIRE); i++)
		usleep(10000);
	if (!__atomic_load_n(flag, __ATOMIC_ACQUIRE)) {
		printf("node %u: nobody answered\n", me);
		return 1;
	}
	printf("node %u: reads in its own memory: \"%s\"\n", me,
	       p + ANSWER_OFF);
	printf("node %u: exits; its export goes with it\n", me);
	return 0;
}

static int demo_import(struct snode_dev *dev, const char *str)
{
	struct snode_import_status st;
	struct snode_handle handle;
	struct snode_import *imp;
	struct pollfd pfd;
	uint32_t me = node_id(dev);
	char *w;
	int ret;

	ret = snode_handle_from_str(str, &handle);
	if (ret < 0)
		return fail(str, ret);
	ret = snode_import(dev, &handle, 0, DEMO_LEN, SNODE_IMPORT_WRITE, &imp);
	if (ret < 0)
		return fail("import", ret);
	ret = snode_import_map(imp, (void **)&w);
	if (ret < 0)
		return fail("map the window", ret);
	printf("node %u: mapped node %u's memory; reads: \"%s\"\n", me,
	       handle.node, w);
	snprintf(w + ANSWER_OFF, 128,
		 "hello back from node %u, written through its window", me);
	__atomic_store_n((uint64_t *)(w + ANSWER_FLAG), 1, __ATOMIC_RELEASE);
	printf("node %u: wrote its answer into node %u's memory with plain stores\n",
	       me, handle.node);
	fflush(stdout);

	pfd.fd = snode_import_get_fd(imp);
	pfd.events = POLLPRI;
	if (poll(&pfd, 1, TIMEOUT_S * 1000) != 1)
		return fail("wait for the exporter", -ETIMEDOUT);
	snode_import_status(imp, &st, sizeof(st));
	printf("node %u: the window was revoked (reason %u: %s); an access now gets SIGBUS\n",
	       me, st.out_reason,
	       st.out_reason == SNODE_REVOKE_REASON_UNEXPORT ?
	       "the exporter withdrew it" : "see <linux/snode.h>");
	snode_import_close(imp);
	return 0;
}

int main(int argc, char **argv)
{
	struct snode_ctx *ctx;
	struct snode_dev *dev;
	int ret;

	setvbuf(stdout, NULL, _IOLBF, 0);
	if (argc < 2 || (strcmp(argv[1], "export") &&
			 (strcmp(argv[1], "import") || argc < 3))) {
		fprintf(stderr, "usage: snode-mem-demo export | import HANDLE\n");
		return 2;
	}
	ret = snode_new(&ctx);
	if (ret < 0)
		return fail("snode_new", ret);
	dev = snode_dev_get_first(ctx);
	if (!dev)
		return fail("no snode device", -ENODEV);
	if (!strcmp(argv[1], "export"))
		ret = demo_export(dev);
	else
		ret = demo_import(dev, argv[2]);
	snode_unref(ctx);
	return ret;
}
