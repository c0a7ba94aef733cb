// SPDX-License-Identifier: GPL-2.0
/*
 * DOC: tests/test-grant.c - export table and grant validation order
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

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

/* Host exports (decision 0037): runs of a RAM file, checked and sliced. */
void test_grant_host(void)
{
	struct fm_export *e = calloc(1, sizeof(*e) + 3 * sizeof(e->seg[0]));
	struct snode_fm_grant_reply *r =
		calloc(1, sizeof(*r) + SNODE_FM_MAX_SEGS * sizeof(r->seg[0]));
	struct snode_fm_grant g = {
		.att_index = 2, .perm = 3, .node = 1, .export_id = 9,
		.key = 7, .offset = 4096, .len = 4 * 4096,
	};
	struct fm_fabric f;
	char path[64];
	int fd;

	snprintf(path, sizeof(path), SNODE_FM_RAM_PREFIX "fmtest-%d.ram",
		 (int)getpid());
	fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0600);
	if (fd < 0 || ftruncate(fd, 1 << 20) || !e || !r ||
	    tap_fabric(&f, "node 0-2\nswitch s\nlink 0-2.0 s\n")) {
		ok(0, "host export: set up");
		return;
	}
	close(fd);
	for (int i = 0; i < 3; i++)
		f.node[i]->life = FM_LIFE_UP;
	e->perm = SNODE_FM_PERM_READ | SNODE_FM_PERM_WRITE;
	e->key = 7;
	e->all_nodes = true;
	e->nseg = 3;
	e->seg[0] = (struct snode_fm_seg){ 8192, 2 * 4096 };
	e->seg[1] = (struct snode_fm_seg){ 65536, 4096 };
	e->seg[2] = (struct snode_fm_seg){ 1 << 19, 3 * 4096 };
	e->len = 6 * 4096;
	strcpy(e->path, "/dev/shm/other.ram");
	ok(fm_export_set(&f, f.node[1], 9, e) == SNODE_FM_EINVAL,
	   "host export: a file not named " SNODE_FM_RAM_PREFIX "*: INVALID");
	strcpy(e->path, path);
	e->len = 5 * 4096;
	ok(fm_export_set(&f, f.node[1], 9, e) == SNODE_FM_EINVAL,
	   "host export: runs not adding up to the length: INVALID");
	e->len = 6 * 4096;
	e->seg[1].offset = 65536 + 512;
	ok(fm_export_set(&f, f.node[1], 9, e) == SNODE_FM_EINVAL,
	   "host export: a misaligned run: INVALID");
	e->seg[1].offset = 1 << 20;
	ok(fm_export_set(&f, f.node[1], 9, e) == SNODE_FM_ERANGE,
	   "host export: a run past the end of the file: OUT_OF_RANGE");
	e->seg[1].offset = 65536;
	ok(fm_export_set(&f, f.node[1], 9, e) == SNODE_FM_OK, "host export set");
	ok(fm_grant_take(&f, 0, &g, r) == SNODE_FM_OK && r->nseg == 3 &&
	   r->file_offset == 0 && !strcmp(r->path, path) &&
	   r->seg[0].offset == 12288 && r->seg[0].len == 4096 &&
	   r->seg[1].offset == 65536 && r->seg[1].len == 4096 &&
	   r->seg[2].offset == 1 << 19 && r->seg[2].len == 2 * 4096,
	   "host grant: the window's runs of the RAM file, in order");
	g.offset = 3 * 4096;
	g.len = 3 * 4096;
	ok(fm_grant_take(&f, 0, &g, r) == SNODE_FM_OK && r->nseg == 1 &&
	   r->seg[0].offset == 1 << 19 && r->seg[0].len == 3 * 4096,
	   "host grant: a range inside one run");
	g.len = 4 * 4096;
	ok(fm_grant_take(&f, 0, &g, r) == SNODE_FM_ERANGE,
	   "host grant: past the export: OUT_OF_RANGE");
	unlink(path);
	fm_fabric_free(&f);
	free(e);
	free(r);
}
