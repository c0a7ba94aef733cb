// SPDX-License-Identifier: GPL-2.0
/*
 * DOC: tests/test-grant.c - export table and grant validation order
 */
#define _GNU_SOURCE
#include <string.h>

#include "tap.h"

void test_grant(void)
{
	struct fm_export e = {
		.perm = SNODE_FM_PERM_READ, .offset = 4096, .len = 8192,
		.key = 0xabc, .all_nodes = false,
	};
	struct snode_fm_grant g = {
		.att_index = 1, .perm = 1, .node = 1, .export_id = 5,
		.key = 0xabc, .offset = 4096, .len = 4096,
	};
	struct snode_fm_grant_reply r;
	struct fm_fabric f;
	uint32_t revoked;

	if (tap_fabric(&f, "node 0-2\nswitch s\nlink 0-2.0 s\n"))
		return;
	for (int i = 0; i < 3; i++)
		f.node[i]->life = FM_LIFE_UP;
	strcpy(f.node[1]->path, "/dev/shm/x-node1");
	e.nodemask[0] = 1;	/* node 0 only */
	ok(fm_export_set(&f, f.node[1], 5, &e) == SNODE_FM_OK, "export set");
	ok(fm_export_set(&f, f.node[1], 5, &e) == SNODE_FM_EBUSY, "same id: BUSY");
	ok(fm_export_set(&f, f.node[1], 256, &e) == SNODE_FM_EINVAL, "id 256: INVALID");
	e.offset = 100;
	ok(fm_export_set(&f, f.node[1], 6, &e) == SNODE_FM_EINVAL, "misaligned: INVALID");
	e.offset = 255ULL << 20;
	e.len = 2 << 20;
	ok(fm_export_set(&f, f.node[1], 6, &e) == SNODE_FM_ERANGE, "past the pool: OUT_OF_RANGE");

	/* everything wrong at once, then fixed one by one in contract order */
	ok(fm_grant_check(&f, 2, 1, 7, 1, 3, 1 << 20, 4096) == SNODE_FM_ENOEXPORT,
	   "order 1: NO_EXPORT");
	ok(fm_grant_check(&f, 2, 1, 5, 1, 3, 1 << 20, 4096) == SNODE_FM_EBADKEY,
	   "order 2: BAD_KEY");
	ok(fm_grant_check(&f, 2, 1, 5, 0xabc, 3, 1 << 20, 4096) == SNODE_FM_ENOTALLOWED,
	   "order 3: NOT_ALLOWED");
	ok(fm_grant_check(&f, 0, 1, 5, 0xabc, 3, 1 << 20, 4096) == SNODE_FM_EREADONLY,
	   "order 4: READ_ONLY");
	ok(fm_grant_check(&f, 0, 1, 5, 0xabc, 1, 1 << 20, 4096) == SNODE_FM_ERANGE,
	   "order 5: OUT_OF_RANGE");
	ok(fm_grant_check(&f, 0, 1, 5, 0xabc, 1, 4096, 8192) == SNODE_FM_ERANGE,
	   "range end past the export: OUT_OF_RANGE");
	fm_link_set_admin(&f, fm_port_link(&f, 0, 0), false);
	fm_routes_compute(&f);
	ok(fm_grant_check(&f, 0, 1, 5, 0xabc, 1, 0, 4096) == SNODE_FM_EUNREACH,
	   "order 6: UNREACHABLE");
	fm_link_set_admin(&f, fm_port_link(&f, 0, 0), true);
	fm_routes_compute(&f);
	memset(&r, 0, sizeof(r));
	ok(fm_grant_take(&f, 0, &g, &r) == SNODE_FM_OK && r.file_offset == 8192 &&
	   r.len == 4096 && !strcmp(r.path, "/dev/shm/x-node1") && r.att_index == 1,
	   "grant: path, file offset = export offset + offset, len");
	ok(f.ngrants == 1 && fm_export_importers(&f, 1, 5) == 1, "grant recorded");
	ok(fm_grant_take(&f, 0, &g, &r) == SNODE_FM_OK && f.ngrants == 1,
	   "same ATT index again replaces the grant");
	f.node[1]->life = FM_LIFE_DEAD;
	ok(fm_grant_check(&f, 0, 1, 5, 0xabc, 1, 0, 4096) == SNODE_FM_ENOEXPORT,
	   "a dead exporter has no exports");
	f.node[1]->life = FM_LIFE_UP;
	ok(fm_export_clear(&f, f.node[1], 5, SNODE_FM_REVOKE_UNEXPORT, &revoked) ==
	   SNODE_FM_OK && revoked == 1 && f.ngrants == 0,
	   "export clear revokes its importer");
	ok(fm_export_clear(&f, f.node[1], 5, SNODE_FM_REVOKE_UNEXPORT, &revoked) ==
	   SNODE_FM_ENOEXPORT, "clearing twice: NO_EXPORT");
	g.node = 1;
	e.offset = 0;
	e.len = 4096;
	e.all_nodes = true;
	fm_export_set(&f, f.node[1], 5, &e);
	g.offset = 0;
	fm_grant_take(&f, 0, &g, &r);
	fm_grant_release(&f, 0, 1);
	ok(f.ngrants == 0, "release drops the grant");
	fm_grant_take(&f, 2, &g, &r);
	fm_grants_drop_importer(&f, 2);
	ok(f.ngrants == 0, "an importer's death drops its grants");
	fm_fabric_free(&f);
}
