// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * mpi_test - an MPI job's checks and numbers across snode nodes, run by
 * selftests/vm/mpi.sh and tools/snode-perf/bench-mpi.sh under Debian's
 * OpenMPI (Documentation/admin-guide/mpi.rst).
 *
 * Usage: mpirun ... mpi_test [-l LARGE] [-i ITERS] [-b BW_BYTES] [-w WINDOW]
 *                            [-a ALLREDUCE_BYTES] [-r REPEAT]
 *
 * Every rank takes part in every check; rank 0 prints one line per check,
 * "ok - NAME" or "not ok - NAME (N ranks wrong)", agreed through an
 * allreduce of the ranks' verdicts. Then the numbers, measured between
 * ranks 0 and 1 (latency, bandwidth) and over all ranks (allreduce bus
 * bandwidth), as "# " lines and one JSON line "# mpi-json {...}", which
 * also holds the point-to-point payload each node sent (so that the suite
 * can hold the NIC's counters against it). -r repeats the large-message
 * ring, so that a job lasts long enough for a fault injected in the middle.
 * Exit status 0 when every check passed, 1 otherwise; MPI's own errors
 * abort the job (MPI_ERRORS_ARE_FATAL) with a non-zero status.
 */
#include <mpi.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static int rank, nranks, failures;
/* point-to-point payload this rank sent, for the NIC counter check */
static uint64_t p2p_sent;

static void *xmalloc(size_t n)
{
	void *p = malloc(n ? n : 1);

	if (!p) {
		fprintf(stderr, "mpi_test: rank %d: out of memory (%zu bytes)\n", rank, n);
		MPI_Abort(MPI_COMM_WORLD, 2);
	}
	return p;
}

/* one TAP line for a check every rank took part in */
static void result(bool good, const char *fmt, ...)
{
	int bad = !good, nbad = 0;
	va_list ap;

	MPI_Allreduce(&bad, &nbad, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
	if (nbad)
		failures++;
	if (rank)
		return;
	printf("%s - ", nbad ? "not ok" : "ok");
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	if (nbad)
		printf(" (%d of %d ranks wrong)", nbad, nranks);
	printf("\n");
	fflush(stdout);
}

/* byte i of message seq from rank src: differs between neighbours */
static uint8_t pattern(int src, unsigned int seq, size_t i)
{
	return (uint8_t)(i * 131 + i / 251 + (size_t)src * 7 + seq * 29 + 1);
}

static void fill(uint8_t *buf, size_t n, int src, unsigned int seq)
{
	for (size_t i = 0; i < n; i++)
		buf[i] = pattern(src, seq, i);
}

/* the first wrong byte's index, or -1 */
static long verify(const uint8_t *buf, size_t n, int src, unsigned int seq)
{
	for (size_t i = 0; i < n; i++)
		if (buf[i] != pattern(src, seq, i))
			return (long)i;
	return -1;
}

static int next_rank(void) { return (rank + 1) % nranks; }
static int prev_rank(void) { return (rank + nranks - 1) % nranks; }

/* Sizes around the NIC's 48-byte message and a few eager-sized ones. */
static const size_t ring_sizes[] = { 0, 1, 46, 47, 48, 49, 95, 1000, 4096, 20000 };
#define NSIZES (sizeof(ring_sizes) / sizeof(ring_sizes[0]))

/* each size to the next rank, all in flight at once, each on its own tag */
static void check_ring_small(void)
{
	uint8_t *tx[NSIZES], *rx[NSIZES];
	MPI_Request req[2 * NSIZES];
	MPI_Status st[2 * NSIZES];
	bool good = true;
	unsigned int k;
	int count;

	for (k = 0; k < NSIZES; k++) {
		tx[k] = xmalloc(ring_sizes[k]);
		rx[k] = xmalloc(ring_sizes[k]);
		fill(tx[k], ring_sizes[k], rank, k);
		memset(rx[k], 0, ring_sizes[k]);
		MPI_Irecv(rx[k], (int)ring_sizes[k], MPI_BYTE, prev_rank(), 100 + k,
			  MPI_COMM_WORLD, &req[k]);
	}
	/* sent in reverse so that tag matching, not arrival, pairs them */
	for (k = NSIZES; k-- > 0;) {
		MPI_Isend(tx[k], (int)ring_sizes[k], MPI_BYTE, next_rank(), 100 + k,
			  MPI_COMM_WORLD, &req[NSIZES + k]);
		p2p_sent += ring_sizes[k];
	}
	MPI_Waitall(2 * NSIZES, req, st);
	for (k = 0; k < NSIZES; k++) {
		MPI_Get_count(&st[k], MPI_BYTE, &count);
		if (count != (int)ring_sizes[k] || st[k].MPI_SOURCE != prev_rank() ||
		    verify(rx[k], ring_sizes[k], prev_rank(), k) >= 0) {
			fprintf(stderr, "rank %d: ring size %zu: count %d source %d\n",
				rank, ring_sizes[k], count, st[k].MPI_SOURCE);
			good = false;
		}
		free(tx[k]);
		free(rx[k]);
	}
	result(good, "point-to-point: %zu tagged messages of 0 to 20000 bytes to the next rank, sent in reverse tag order, every byte verified",
	       NSIZES);
}

/* rank 0 receives from everyone with MPI_ANY_SOURCE and MPI_ANY_TAG */
static void check_any_source(void)
{
	bool good = true;
	int r, got[1024] = { 0 };
	uint8_t buf[64];

	if (rank) {
		fill(buf, sizeof(buf), rank, 500);
		MPI_Send(buf, (int)sizeof(buf), MPI_BYTE, 0, 500 + rank, MPI_COMM_WORLD);
		p2p_sent += sizeof(buf);
	} else {
		for (r = 1; r < nranks; r++) {
			MPI_Status st;
			int count;

			MPI_Recv(buf, (int)sizeof(buf), MPI_BYTE, MPI_ANY_SOURCE, MPI_ANY_TAG,
				 MPI_COMM_WORLD, &st);
			MPI_Get_count(&st, MPI_BYTE, &count);
			if (st.MPI_SOURCE < 1 || st.MPI_SOURCE >= nranks || st.MPI_SOURCE >= 1024 ||
			    st.MPI_TAG != 500 + st.MPI_SOURCE || count != (int)sizeof(buf) ||
			    got[st.MPI_SOURCE]++ || verify(buf, sizeof(buf), st.MPI_SOURCE, 500) >= 0)
				good = false;
		}
	}
	result(good, "point-to-point: MPI_ANY_SOURCE/MPI_ANY_TAG receives name each sender and tag once");
}

/* LARGE bytes to the next rank, from the previous one, every byte checked */
static void check_large(size_t large, int repeat)
{
	uint8_t *tx = xmalloc(large), *rx = xmalloc(large);
	bool good = true;
	int i;

	for (i = 0; i < repeat; i++) {
		MPI_Request req[2];
		MPI_Status st[2];
		long bad;
		int count;

		fill(tx, large, rank, 1000 + i);
		memset(rx, 0, large);
		MPI_Irecv(rx, (int)large, MPI_BYTE, prev_rank(), 7, MPI_COMM_WORLD, &req[0]);
		MPI_Isend(tx, (int)large, MPI_BYTE, next_rank(), 7, MPI_COMM_WORLD, &req[1]);
		MPI_Waitall(2, req, st);
		p2p_sent += large;
		MPI_Get_count(&st[0], MPI_BYTE, &count);
		bad = verify(rx, large, prev_rank(), 1000 + i);
		if (count != (int)large || bad >= 0) {
			fprintf(stderr, "rank %d: large message %d: count %d, first wrong byte %ld\n",
				rank, i, count, bad);
			good = false;
		}
	}
	result(good, "point-to-point: %zu bytes to the next rank%s, every byte verified",
	       large, repeat > 1 ? " (repeated)" : "");
	free(tx);
	free(rx);
}

/*
 * Probes (built by OpenMPI's mtl ofi on fi_trecvmsg FI_PEEK, FI_CLAIM):
 * each rank sends to the next one and probes what the previous one sent,
 * eager and rendezvous sizes.
 */
static void check_probe(void)
{
	static const size_t sizes[] = { 100, 65536 };
	bool good = true, none = true;
	unsigned int k;

	for (k = 0; k < 2; k++) {
		size_t n = sizes[k] + (size_t)rank;
		uint8_t *tx = xmalloc(n), *rx = NULL;
		MPI_Request req;
		MPI_Status st;
		int count = -1, flag = 0, tag = 600 + (int)k;

		/* nothing sent yet on this tag: MPI_Iprobe says so */
		MPI_Iprobe(prev_rank(), tag, MPI_COMM_WORLD, &flag, &st);
		if (flag)
			none = false;
		MPI_Barrier(MPI_COMM_WORLD);
		fill(tx, n, rank, 600 + k);
		MPI_Isend(tx, (int)n, MPI_BYTE, next_rank(), tag, MPI_COMM_WORLD, &req);
		p2p_sent += n;
		MPI_Probe(prev_rank(), tag, MPI_COMM_WORLD, &st);
		MPI_Get_count(&st, MPI_BYTE, &count);
		if (count >= 0 && st.MPI_SOURCE == prev_rank() && st.MPI_TAG == tag) {
			rx = xmalloc((size_t)count);
			MPI_Recv(rx, count, MPI_BYTE, prev_rank(), tag, MPI_COMM_WORLD,
				 MPI_STATUS_IGNORE);
		}
		if (!rx || count != (int)(sizes[k] + (size_t)prev_rank()) ||
		    verify(rx, (size_t)count, prev_rank(), 600 + k) >= 0) {
			fprintf(stderr, "rank %d: MPI_Probe %zu: count %d source %d tag %d\n",
				rank, sizes[k], count, st.MPI_SOURCE, st.MPI_TAG);
			if (!rx)
				MPI_Recv(NULL, 0, MPI_BYTE, prev_rank(), tag, MPI_COMM_WORLD,
					 MPI_STATUS_IGNORE);
			good = false;
		}
		MPI_Wait(&req, MPI_STATUS_IGNORE);
		free(tx);
		free(rx);
	}
	result(none, "probe: MPI_Iprobe before anything was sent finds nothing");
	result(good, "probe: MPI_Probe gives source, tag and count of %zu- and %zu-byte messages (eager, rendezvous), MPI_Recv then gets them intact",
	       sizes[0], sizes[1]);
}

/* MPI_Iprobe polled until it finds a rendezvous-size message */
static void check_iprobe(void)
{
	size_t n = 262144;
	uint8_t *tx = xmalloc(n), *rx = xmalloc(n);
	bool good = true;
	MPI_Request req;
	MPI_Status st;
	int flag = 0, count = -1;
	double end;

	fill(tx, n, rank, 610);
	MPI_Isend(tx, (int)n, MPI_BYTE, next_rank(), 610, MPI_COMM_WORLD, &req);
	p2p_sent += n;
	end = MPI_Wtime() + 60;
	while (!flag && MPI_Wtime() < end)
		MPI_Iprobe(MPI_ANY_SOURCE, 610, MPI_COMM_WORLD, &flag, &st);
	if (flag)
		MPI_Get_count(&st, MPI_BYTE, &count);
	MPI_Recv(rx, (int)n, MPI_BYTE, prev_rank(), 610, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
	if (!flag || st.MPI_SOURCE != prev_rank() || count != (int)n ||
	    verify(rx, n, prev_rank(), 610) >= 0) {
		fprintf(stderr, "rank %d: MPI_Iprobe: flag %d source %d count %d\n",
			rank, flag, flag ? st.MPI_SOURCE : -1, count);
		good = false;
	}
	MPI_Wait(&req, MPI_STATUS_IGNORE);
	result(good, "probe: MPI_Iprobe(MPI_ANY_SOURCE) polled until it finds a %zu-byte message, with its source and count",
	       n);
	free(tx);
	free(rx);
}

/*
 * MPI_Mprobe and MPI_Improbe take a message out of matching: the two
 * messages of one tag from the previous rank are matched in order, the
 * second by an MPI_Recv posted after the first was claimed.
 */
static void check_mprobe(void)
{
	static const size_t sizes[] = { 40000, 300 };
	bool good = true;
	int im;

	for (im = 0; im < 2; im++) {
		int tag = 620 + im;
		MPI_Request req[2];
		MPI_Message msg = MPI_MESSAGE_NULL;
		MPI_Status st;
		uint8_t *tx[2], *rx[2];
		int count[2] = { -1, -1 }, flag = 0, k;
		double end = MPI_Wtime() + 60;

		for (k = 0; k < 2; k++) {
			tx[k] = xmalloc(sizes[k]);
			rx[k] = xmalloc(sizes[k]);
			fill(tx[k], sizes[k], rank, 620 + 2 * im + k);
			MPI_Isend(tx[k], (int)sizes[k], MPI_BYTE, next_rank(), tag,
				  MPI_COMM_WORLD, &req[k]);
			p2p_sent += sizes[k];
		}
		if (im) {
			while (!flag && MPI_Wtime() < end)
				MPI_Improbe(prev_rank(), tag, MPI_COMM_WORLD, &flag, &msg, &st);
		} else {
			MPI_Mprobe(prev_rank(), tag, MPI_COMM_WORLD, &msg, &st);
			flag = 1;
		}
		if (flag) {
			MPI_Get_count(&st, MPI_BYTE, &count[0]);
			/* the second message, received while the first is claimed */
			MPI_Recv(rx[1], (int)sizes[1], MPI_BYTE, prev_rank(), tag,
				 MPI_COMM_WORLD, MPI_STATUS_IGNORE);
			MPI_Mrecv(rx[0], (int)sizes[0], MPI_BYTE, &msg, &st);
			MPI_Get_count(&st, MPI_BYTE, &count[1]);
		}
		if (!flag || count[0] != (int)sizes[0] || count[1] != (int)sizes[0] ||
		    msg != MPI_MESSAGE_NULL ||
		    verify(rx[0], sizes[0], prev_rank(), 620 + 2 * im) >= 0 ||
		    verify(rx[1], sizes[1], prev_rank(), 620 + 2 * im + 1) >= 0) {
			fprintf(stderr, "rank %d: %s: flag %d counts %d %d\n", rank,
				im ? "MPI_Improbe" : "MPI_Mprobe", flag, count[0], count[1]);
			good = false;
		}
		MPI_Waitall(2, req, MPI_STATUSES_IGNORE);
		for (k = 0; k < 2; k++) {
			free(tx[k]);
			free(rx[k]);
		}
		result(good, "probe: %s claims the first of two messages of a tag (%zu bytes, rendezvous), MPI_Recv gets the second, MPI_Mrecv the claimed one, both intact",
		       im ? "MPI_Improbe" : "MPI_Mprobe", sizes[0]);
	}
}

/*
 * MPI_ANY_SOURCE probes on a split communicator: every rank sends one
 * message to world rank 0 on MPI_COMM_WORLD, then one to the first rank
 * of its half (even or odd ranks) on the half's communicator, same tag.
 * The halves' first ranks probe with MPI_ANY_SOURCE on their half and
 * must see only the half's messages, with sources in the half's ranks.
 */
static void check_probe_split(void)
{
	int srank, ssize, r, count;
	uint8_t buf[64];
	bool good = true;
	MPI_Comm half;
	MPI_Status st;

	MPI_Comm_split(MPI_COMM_WORLD, rank % 2, rank, &half);
	MPI_Comm_rank(half, &srank);
	MPI_Comm_size(half, &ssize);
	if (rank) {
		fill(buf, sizeof(buf), rank, 630);
		MPI_Send(buf, (int)sizeof(buf), MPI_BYTE, 0, 630, MPI_COMM_WORLD);
		p2p_sent += sizeof(buf);
	}
	MPI_Barrier(MPI_COMM_WORLD);	/* the world's messages wait at rank 0 */
	if (srank) {
		fill(buf, sizeof(buf), rank, 631);
		MPI_Send(buf, (int)sizeof(buf), MPI_BYTE, 0, 630, half);
		p2p_sent += sizeof(buf);
	} else {
		for (r = 1; r < ssize; r++) {
			MPI_Probe(MPI_ANY_SOURCE, 630, half, &st);
			MPI_Get_count(&st, MPI_BYTE, &count);
			if (st.MPI_SOURCE < 1 || st.MPI_SOURCE >= ssize ||
			    count != (int)sizeof(buf)) {
				fprintf(stderr, "rank %d: split probe: source %d count %d\n",
					rank, st.MPI_SOURCE, count);
				good = false;
				break;
			}
			MPI_Recv(buf, (int)sizeof(buf), MPI_BYTE, st.MPI_SOURCE, 630, half,
				 MPI_STATUS_IGNORE);
			/* half rank s is world rank 2 s + (rank % 2) */
			if (verify(buf, sizeof(buf), 2 * st.MPI_SOURCE + rank % 2, 631) >= 0) {
				fprintf(stderr, "rank %d: split probe: a message not of the half\n",
					rank);
				good = false;
			}
		}
	}
	if (!rank) {
		for (r = 1; r < nranks; r++) {
			MPI_Recv(buf, (int)sizeof(buf), MPI_BYTE, MPI_ANY_SOURCE, 630,
				 MPI_COMM_WORLD, &st);
			if (verify(buf, sizeof(buf), st.MPI_SOURCE, 630) >= 0)
				good = false;
		}
	}
	MPI_Comm_free(&half);
	result(good, "probe: MPI_Probe(MPI_ANY_SOURCE) on a split communicator sees its half's messages only, sources in the half's ranks");
}

static void check_allreduce(void)
{
	enum { N = 10000 };
	int *in = xmalloc(N * sizeof(int)), *out = xmalloc(N * sizeof(int));
	double din = rank + 0.5, dmax = 0;
	long long tri = (long long)nranks * (nranks + 1) / 2;
	bool good = true;
	int i;

	for (i = 0; i < N; i++)
		in[i] = (rank + 1) * (i % 1000 + 1);
	MPI_Allreduce(in, out, N, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
	for (i = 0; i < N; i++)
		if (out[i] != tri * (i % 1000 + 1))
			good = false;
	MPI_Allreduce(&din, &dmax, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
	if (dmax != nranks - 0.5)
		good = false;
	result(good, "allreduce: sum of %d ints and max of a double", N);
	free(in);
	free(out);
}

static void check_alltoall(void)
{
	enum { B = 100 };	/* ints per block */
	int *in = xmalloc((size_t)nranks * B * sizeof(int));
	int *out = xmalloc((size_t)nranks * B * sizeof(int));
	bool good = true;
	int j, k;

	for (j = 0; j < nranks; j++)
		for (k = 0; k < B; k++)
			in[j * B + k] = rank * 1000000 + j * 1000 + k;
	MPI_Alltoall(in, B, MPI_INT, out, B, MPI_INT, MPI_COMM_WORLD);
	for (j = 0; j < nranks; j++)
		for (k = 0; k < B; k++)
			if (out[j * B + k] != j * 1000000 + rank * 1000 + k)
				good = false;
	result(good, "alltoall: %d ints from every rank to every rank", B);
	free(in);
	free(out);
}

static void check_bcast(void)
{
	const size_t n = 10000;
	uint8_t *buf = xmalloc(n);
	bool good = true;
	int root;

	for (root = 0; root < nranks; root++) {
		if (rank == root)
			fill(buf, n, root, 2000);
		else
			memset(buf, 0, n);
		MPI_Bcast(buf, (int)n, MPI_BYTE, root, MPI_COMM_WORLD);
		if (verify(buf, n, root, 2000) >= 0)
			good = false;
	}
	result(good, "bcast: %zu bytes from each rank in turn", n);
	free(buf);
}

/*
 * Nobody leaves the barrier before the last rank (rank 0, late on purpose)
 * entered it. Each rank times from its own exit of the barrier before, and
 * the ranks do not leave that one at once: the last message of it can
 * reach a rank a latency or more after rank 0 left (a plane failing under
 * the 4-rank job: 30 ms and more, which made a 0.9 x 300 ms bound fail
 * once). So rank 0 is a second late and every rank must wait half of it;
 * a barrier that let ranks through would return within its own latency.
 */
static void check_barrier(void)
{
	const double late = 1.0;
	double t0, waited;

	MPI_Barrier(MPI_COMM_WORLD);
	t0 = MPI_Wtime();
	if (rank == 0)
		usleep((useconds_t)(late * 1e6));
	MPI_Barrier(MPI_COMM_WORLD);
	waited = MPI_Wtime() - t0;
	result(waited >= late / 2, "barrier: no rank leaves before the last one (%.0f ms late) arrived",
	       late * 1e3);
}

struct numbers {
	double rtt_us, bw_MBps, busbw_MBps;
};

/* ranks 0 and 1: round trip of 8 bytes, mean over ITERS */
static double latency(int iters)
{
	char buf[8] = "snode";
	double t0, t;
	int i;

	MPI_Barrier(MPI_COMM_WORLD);
	t0 = MPI_Wtime();
	for (i = 0; i < iters && rank < 2; i++) {
		if (rank == 0) {
			MPI_Send(buf, 8, MPI_BYTE, 1, 1, MPI_COMM_WORLD);
			MPI_Recv(buf, 8, MPI_BYTE, 1, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
		} else {
			MPI_Recv(buf, 8, MPI_BYTE, 0, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
			MPI_Send(buf, 8, MPI_BYTE, 0, 1, MPI_COMM_WORLD);
		}
		p2p_sent += 8;
	}
	t = MPI_Wtime() - t0;
	return iters ? t / iters * 1e6 : 0;
}

/* rank 0 to rank 1: WINDOW messages of BYTES in flight, then a 1-byte ack */
static double bandwidth(size_t bytes, int window)
{
	uint8_t *buf = xmalloc(bytes * (size_t)window);
	MPI_Request *req = xmalloc(sizeof(*req) * (size_t)window);
	double t0, t;
	char ack = 0;
	int i;

	memset(buf, 0x5a, bytes * (size_t)window);
	MPI_Barrier(MPI_COMM_WORLD);
	t0 = MPI_Wtime();
	if (rank == 0) {
		for (i = 0; i < window; i++)
			MPI_Isend(buf + bytes * i, (int)bytes, MPI_BYTE, 1, 2, MPI_COMM_WORLD, &req[i]);
		MPI_Waitall(window, req, MPI_STATUSES_IGNORE);
		MPI_Recv(&ack, 1, MPI_BYTE, 1, 3, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
		p2p_sent += bytes * (size_t)window;
	} else if (rank == 1) {
		for (i = 0; i < window; i++)
			MPI_Irecv(buf + bytes * i, (int)bytes, MPI_BYTE, 0, 2, MPI_COMM_WORLD, &req[i]);
		MPI_Waitall(window, req, MPI_STATUSES_IGNORE);
		MPI_Send(&ack, 1, MPI_BYTE, 0, 3, MPI_COMM_WORLD);
		p2p_sent += 1;
	}
	t = MPI_Wtime() - t0;
	free(buf);
	free(req);
	/* every rank gets rank 0's figure */
	MPI_Bcast(&t, 1, MPI_DOUBLE, 0, MPI_COMM_WORLD);
	return t > 0 ? bytes * (double)window / t / 1e6 : 0;
}

/* bus bandwidth as nccl-tests define it: 2(n-1)/n * bytes / time */
static double allreduce_busbw(size_t bytes, int iters)
{
	size_t n = bytes / sizeof(double);
	double *in = xmalloc(n * sizeof(double)), *out = xmalloc(n * sizeof(double));
	double t0, t;
	int i;

	for (size_t k = 0; k < n; k++)
		in[k] = rank + k;
	MPI_Allreduce(in, out, (int)n, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);	/* warm-up */
	MPI_Barrier(MPI_COMM_WORLD);
	t0 = MPI_Wtime();
	for (i = 0; i < iters; i++)
		MPI_Allreduce(in, out, (int)n, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
	t = (MPI_Wtime() - t0) / iters;
	MPI_Allreduce(MPI_IN_PLACE, &t, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
	free(in);
	free(out);
	return t > 0 ? 2.0 * (nranks - 1) / nranks * (double)(n * sizeof(double)) / t / 1e6 : 0;
}

/* the JSON line: numbers, and each node's point-to-point payload */
static void report(const struct numbers *num, int iters, size_t bw_bytes, int window,
		   size_t ar_bytes)
{
	char name[MPI_MAX_PROCESSOR_NAME] = "", *names = NULL;
	unsigned long long sent = p2p_sent, *all = NULL;
	int len, r;

	MPI_Get_processor_name(name, &len);
	if (rank == 0) {
		names = xmalloc((size_t)nranks * MPI_MAX_PROCESSOR_NAME);
		all = xmalloc((size_t)nranks * sizeof(*all));
	}
	MPI_Gather(name, MPI_MAX_PROCESSOR_NAME, MPI_CHAR, names, MPI_MAX_PROCESSOR_NAME,
		   MPI_CHAR, 0, MPI_COMM_WORLD);
	MPI_Gather(&sent, 1, MPI_UNSIGNED_LONG_LONG, all, 1, MPI_UNSIGNED_LONG_LONG, 0,
		   MPI_COMM_WORLD);
	if (rank)
		return;
	printf("# mpi round trip 8 bytes: %.1f us (%d iterations, ranks 0 and 1)\n",
	       num->rtt_us, iters);
	printf("# mpi bandwidth %zu bytes x %d: %.3f MB/s (rank 0 to rank 1)\n",
	       bw_bytes, window, num->bw_MBps);
	printf("# mpi allreduce %zu bytes on %d ranks: bus bandwidth %.3f MB/s\n",
	       ar_bytes, nranks, num->busbw_MBps);
	printf("# mpi-json {\"ranks\": %d, \"rtt_us\": %.2f, \"bw_bytes\": %zu, \"bw_MBps\": %.4f, "
	       "\"allreduce_bytes\": %zu, \"allreduce_busbw_MBps\": %.4f, \"p2p_sent\": [",
	       nranks, num->rtt_us, bw_bytes, num->bw_MBps, ar_bytes, num->busbw_MBps);
	for (r = 0; r < nranks; r++)
		printf("%s{\"rank\": %d, \"host\": \"%s\", \"bytes\": %llu}", r ? ", " : "", r,
		       names + (size_t)r * MPI_MAX_PROCESSOR_NAME, all[r]);
	printf("]}\n");
	fflush(stdout);
	free(names);
	free(all);
}

static size_t size_arg(const char *s, const char *what)
{
	char *end;
	unsigned long long v = strtoull(s, &end, 0);

	if (end == s || *end || v > (1ULL << 30)) {
		if (rank == 0)
			fprintf(stderr, "mpi_test: bad %s '%s' (a number of at most 1 GiB)\n", what, s);
		MPI_Finalize();
		exit(2);
	}
	return (size_t)v;
}

int main(int argc, char **argv)
{
	size_t large = 1 << 20, bw_bytes = 65536, ar_bytes = 65536;
	int iters = 100, window = 4, repeat = 1, opt;
	struct numbers num;

	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &nranks);
	while ((opt = getopt(argc, argv, "l:i:b:w:a:r:")) != -1) {
		switch (opt) {
		case 'l': large = size_arg(optarg, "-l LARGE"); break;
		case 'i': iters = (int)size_arg(optarg, "-i ITERS"); break;
		case 'b': bw_bytes = size_arg(optarg, "-b BW_BYTES"); break;
		case 'w': window = (int)size_arg(optarg, "-w WINDOW"); break;
		case 'a': ar_bytes = size_arg(optarg, "-a ALLREDUCE_BYTES"); break;
		case 'r': repeat = (int)size_arg(optarg, "-r REPEAT"); break;
		default:
			if (rank == 0)
				fprintf(stderr, "usage: mpi_test [-l LARGE] [-i ITERS] [-b BW_BYTES] [-w WINDOW] [-a ALLREDUCE_BYTES] [-r REPEAT]\n");
			MPI_Finalize();
			return 2;
		}
	}
	if (nranks < 2 || window < 1 || repeat < 1 || ar_bytes < sizeof(double)) {
		if (rank == 0)
			fprintf(stderr, "mpi_test: needs 2 or more ranks, WINDOW, REPEAT >= 1, ALLREDUCE_BYTES >= 8\n");
		MPI_Finalize();
		return 2;
	}
	if (rank == 0)
		printf("# mpi_test: %d ranks\n", nranks);

	check_ring_small();
	check_any_source();
	check_large(large, repeat);
	check_probe();
	check_iprobe();
	check_mprobe();
	check_probe_split();
	check_allreduce();
	check_alltoall();
	check_bcast();
	check_barrier();

	num.rtt_us = latency(iters);
	num.bw_MBps = bandwidth(bw_bytes, window);
	num.busbw_MBps = allreduce_busbw(ar_bytes, 3);
	report(&num, iters, bw_bytes, window, ar_bytes);

	MPI_Finalize();
	return failures ? 1 : 0;
}
