// SPDX-License-Identifier: GPL-2.0
/*
 * DOC: tests/test-proto.c - the device connections' timers
 *
 * A device connects while the event loop is in the middle of a pass: its
 * connection's last_rx is read after the pass's clock. The HELLO timeout
 * must not take that for a connection from the distant past (it once did,
 * by an unsigned subtraction, and closed a device's connection 50 ms after
 * it was accepted: "connection N: closing: no HELLO").
 */
#define _GNU_SOURCE
#include <sys/socket.h>
#include <unistd.h>

#include "tap.h"
#include "proto.h"

void test_proto(void)
{
	struct fm_fabric f;
	struct fm_conn *c;
	int sv[2];

	if (socketpair(AF_UNIX, SOCK_SEQPACKET, 0, sv)) {
		tap_ok(0, "proto: socketpair");
		return;
	}
	fm_fabric_init(&f);
	c = fm_conn_new(sv[0]);
	if (!c) {
		tap_ok(0, "proto: a connection");
		close(sv[0]);
		close(sv[1]);
		return;
	}
	/* the pass's clock, read 3 ms before the accept */
	f.now = c->last_rx - 3;
	fm_proto_timers(&f);
	tap_ok(!c->closing, "proto: a connection accepted after the pass's clock is not timed out");
	f.now = c->last_rx + 4000;
	fm_proto_timers(&f);
	tap_ok(!c->closing, "proto: no HELLO after 4 s: still open");
	f.now = c->last_rx + 5001;
	fm_proto_timers(&f);
	tap_ok(c->closing, "proto: no HELLO after 5 s: closed");
	fm_conns_reap(&f);
	tap_ok(fm_nconns == 0, "proto: the closed connection is reaped");
	close(sv[1]);
}
