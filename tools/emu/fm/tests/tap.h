/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Minimal TAP for the snode-fm host unit tests: every check is one
 * "ok N - name" or "not ok N - name" line; the run exits 1 on any failure.
 */
#ifndef SNODE_FM_TAP_H
#define SNODE_FM_TAP_H

#include "fm.h"

void tap_ok(int pass, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void tap_diag(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

#define ok(cond, ...) tap_ok(!!(cond), __VA_ARGS__)

extern const char *tap_fm_path, *tap_topo_dir;

void test_topo(void);
void test_route(void);
void test_link(void);
void test_grant(void);
void test_grant_host(void);
void test_e2e(void);
void test_plan(void);
void test_proto(void);

/* parse text into a fresh fabric, failing the run if it does not parse */
int tap_fabric(struct fm_fabric *f, const char *text);

#endif
