// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Host unit tests (TAP) of what the snode tools and libsnode do without a
 * device: tools/lib's word matching, number, size and batch-line parsing
 * and its print path (JSON checked by json-c's own parser), and libsnode's
 * pure parts - handles, bit-error rates, device discovery from a fake
 * sysfs class directory - and snodectl's: the link and health verdicts on
 * constructed links, nodes and sensor values, the exit status of each
 * verdict, the error texts (the kernel's extack included), the link
 * record file (written by diag's writer, read back by trend's reader) and
 * link trend's rates, slopes and flags on constructed series, the sensor
 * baseline file (writer and reader), sensor limit values and the drift
 * rule, diag's key scrub and node lists; and snode-perf's reading of
 * tracefs text lines (6.1's and 6.12's formats) and its link baseline file.
 *
 * Usage: unit TMPDIR
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <json-c/json.h>

#include "baseline.h"
#include "libsnode.h"
#include "perf.h"
#include "print.h"
#include "record.h"
#include "scrub.h"
#include "snodectl.h"
#include "trend.h"
#include "util.h"

static int test_n, test_failed;

static void ok(int cond, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static void ok(int cond, const char *fmt, ...)
{
	va_list ap;

	printf("%sok %d - ", cond ? "" : "not ", ++test_n);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	putchar('\n');
	if (!cond)
		test_failed++;
}

/* a table as the tools have them: the name first, then the rest */
struct word {
	const char *name;
};

static void test_lookup(void)
{
	static const struct word objs[] = {
		{ "dev" }, { "dma" }, { "health" }, { "help" }, { "link" },
		{ "mem" }, { "monitor" }, { "msg" }, { "node" }, { NULL },
	};
	static const struct word verbs[] = {
		{ "list" }, { "show" }, { "stats" }, { NULL },
	};
	static const int alias_ids[] = { 0, 0, 2 };
	char cands[64];

	ok(tool_lookup("link", objs, sizeof(objs[0]), NULL, NULL, 0) == 4,
	   "lookup: an exact word");
	ok(tool_lookup("l", objs, sizeof(objs[0]), NULL, NULL, 0) == 4,
	   "lookup: a unique prefix (l -> link)");
	ok(tool_lookup("mon", objs, sizeof(objs[0]), NULL, NULL, 0) == 6,
	   "lookup: mon -> monitor");
	ok(tool_lookup("m", objs, sizeof(objs[0]), NULL, cands,
		       sizeof(cands)) == -2 &&
	   !strcmp(cands, "mem, monitor, msg"),
	   "lookup: an ambiguous prefix names the candidates (%s)", cands);
	ok(tool_lookup("x", objs, sizeof(objs[0]), NULL, NULL, 0) == -1,
	   "lookup: no match");
	ok(tool_lookup("", objs, sizeof(objs[0]), NULL, NULL, 0) == -1,
	   "lookup: the empty word matches nothing");
	ok(tool_lookup("links", objs, sizeof(objs[0]), NULL, NULL, 0) == -1,
	   "lookup: a longer word is not a prefix");
	ok(tool_lookup("s", verbs, sizeof(verbs[0]), NULL, NULL, 0) == -2,
	   "lookup: s is ambiguous between show and stats");
	ok(tool_lookup("l", verbs, sizeof(verbs[0]), alias_ids, NULL, 0) == 0,
	   "lookup: aliases count once");
	ok(tool_lookup("s", verbs, sizeof(verbs[0]), alias_ids, cands,
		       sizeof(cands)) == -2,
	   "lookup: ... but not two different commands (%s)", cands);
	ok(tool_lookup_first("m", objs, sizeof(objs[0])) == 5,
	   "lookup_first: a prefix of several is the first in table order (m -> mem)");
	ok(tool_lookup_first("mon", objs, sizeof(objs[0])) == 6,
	   "lookup_first: a longer prefix still picks its word (mon -> monitor)");
	ok(tool_lookup_first("link", objs, sizeof(objs[0])) == 4 &&
	   tool_lookup_first("x", objs, sizeof(objs[0])) == -1 &&
	   tool_lookup_first("", objs, sizeof(objs[0])) == -1 &&
	   tool_lookup_first("links", objs, sizeof(objs[0])) == -1,
	   "lookup_first: exact words, no match, empty and longer words");
	ok(tool_lookup_first("s", verbs, sizeof(verbs[0])) == 1,
	   "lookup_first: s -> the first of show and stats");
	ok(tool_matches("st", "status") && !tool_matches("", "status") &&
	   !tool_matches("statuses", "status"),
	   "matches: prefix rules as iproute2's matches()");
}

static void test_numbers(void)
{
	uint64_t v = 0;

	ok(!tool_parse_u64("42", 255, &v) && v == 42, "u64: decimal");
	ok(!tool_parse_u64("0x1f", 255, &v) && v == 31, "u64: hex");
	ok(tool_parse_u64("256", 255, &v) == -ERANGE, "u64: above max");
	ok(tool_parse_u64("-1", 255, &v) == -EINVAL, "u64: negative");
	ok(tool_parse_u64("1x", 255, &v) == -EINVAL, "u64: trailing junk");
	ok(tool_parse_u64("", 255, &v) == -EINVAL, "u64: empty");
	ok(tool_parse_u64("99999999999999999999", UINT64_MAX, &v) == -EINVAL,
	   "u64: overflow");
	ok(!tool_parse_size("4K", &v) && v == 4096, "size: 4K");
	ok(!tool_parse_size("64M", &v) && v == 64ULL << 20, "size: 64M");
	ok(!tool_parse_size("1GiB", &v) && v == 1ULL << 30, "size: 1GiB");
	ok(!tool_parse_size("2T", &v) && v == 2ULL << 40, "size: 2T");
	ok(!tool_parse_size("0x1000", &v) && v == 4096, "size: hex");
	ok(tool_parse_size("1Q", &v) == -EINVAL, "size: unknown unit");
	ok(tool_parse_size("1Kx", &v) == -EINVAL, "size: junk after unit");
	ok(tool_parse_size("17179869184G", &v) == -ERANGE,
	   "size: overflow through the unit");
	ok(tool_parse_size("-4K", &v) == -EINVAL, "size: negative");
}

static void test_split(void)
{
	char line[128], *argv[8];
	int n;

	strcpy(line, "  link  status snode0\n");
	n = tool_split_line(line, argv, 8);
	ok(n == 3 && !strcmp(argv[0], "link") && !strcmp(argv[2], "snode0"),
	   "split: blanks separate, newline dropped");
	strcpy(line, "mem list \"sn ode0\" 'a b' # comment");
	n = tool_split_line(line, argv, 8);
	ok(n == 4 && !strcmp(argv[2], "sn ode0") && !strcmp(argv[3], "a b"),
	   "split: quotes group, # starts a comment");
	strcpy(line, "   # only a comment");
	ok(tool_split_line(line, argv, 8) == 0, "split: comment line is empty");
	strcpy(line, "link \"status");
	ok(tool_split_line(line, argv, 8) == -1, "split: unclosed quote");
	strcpy(line, "a b c");
	ok(tool_split_line(line, argv, 2) == -1, "split: too many words");
}

static char sink_buf[4096];

static void sink(void *arg, const char *s)
{
	strncat(sink_buf, s, sizeof(sink_buf) - strlen(sink_buf) - 1);
}

/* Print a small document in both modes; parse the JSON back. */
static void test_print_doc(bool json, bool root_array)
{
	struct print_opts o = {
		.json = json, .root_array = root_array,
		.sink = sink,
	};

	sink_buf[0] = '\0';
	print_begin(&o);
	if (!root_array) {
		print_str("name", "name %s", "snode0");
		print_u64("big", " big %llu", UINT64_MAX);
		print_s64("neg", " neg %lld", -1);
		print_hex("off", " off 0x%llx", 4096);
		print_bool("yes", " yes %s", true);
		print_double("ber", " ber %g", 1e-12);
		print_double("third", NULL, 1.0 / 3);
		print_double("nan", " nan %g", NAN);
		print_text(" text-only");
		print_open_array("list");
		print_u64(NULL, " %llu", 1);
		print_u64(NULL, " %llu", 2);
		print_close_array();
		print_open_object("sub");
		print_str("k", " k=%s", "v\"q");
		print_close_object();
		print_nl();
	} else {
		print_open_object(NULL);
		print_u64("id", "id %llu", 7);
		print_nl();
		print_close_object();
	}
	print_flush(true);
}

static void test_print(void)
{
	struct json_object *root, *v, *e;
	enum json_tokener_error jerr;
	const char *s;
	int depth, i;

	test_print_doc(false, false);
	ok(!strcmp(sink_buf, "name snode0 big 18446744073709551615 neg -1 off 0x1000 yes yes ber 1e-12 nan nan text-only 1 2 k=v\"q\n"),
	   "print: text mode uses the formats");

	test_print_doc(true, false);
	root = json_tokener_parse_verbose(sink_buf, &jerr);
	ok(root && json_object_is_type(root, json_type_object),
	   "print: JSON mode gives one object that parses");
	ok(root && json_object_object_get_ex(root, "big", &v) &&
	   json_object_get_uint64(v) == UINT64_MAX,
	   "print: a u64 keeps all 64 bits");
	ok(root && json_object_object_get_ex(root, "neg", &v) &&
	   json_object_get_int64(v) == -1, "print: s64");
	ok(root && json_object_object_get_ex(root, "off", &v) &&
	   json_object_get_int64(v) == 4096, "print: hex is a number in JSON");
	ok(root && json_object_object_get_ex(root, "yes", &v) &&
	   json_object_is_type(v, json_type_boolean) &&
	   json_object_get_boolean(v), "print: bool");
	ok(root && json_object_object_get_ex(root, "ber", &v) &&
	   json_object_get_double(v) == 1e-12 && strstr(sink_buf, "\"ber\":1e-12"),
	   "print: double in its shortest exact form");
	ok(root && json_object_object_get_ex(root, "third", &v) &&
	   json_object_get_double(v) == 1.0 / 3, "print: double round-trips");
	ok(root && json_object_object_get_ex(root, "nan", &v) && !v,
	   "print: NaN is null");
	ok(root && json_object_object_get_ex(root, "list", &v) &&
	   json_object_array_length(v) == 2 &&
	   json_object_get_int(json_object_array_get_idx(v, 1)) == 2,
	   "print: array of values");
	ok(root && json_object_object_get_ex(root, "sub", &v) &&
	   json_object_object_get_ex(v, "k", &e) &&
	   !strcmp(json_object_get_string(e), "v\"q"),
	   "print: nested object, string escaped");
	ok(!strstr(sink_buf, "text-only") && !strstr(sink_buf, "name snode0"),
	   "print: no text in JSON mode");
	json_object_put(root);

	test_print_doc(true, true);
	root = json_tokener_parse(sink_buf);
	ok(root && json_object_is_type(root, json_type_array) &&
	   json_object_array_length(root) == 1,
	   "print: an array root (snode-fm ctl show)");
	json_object_put(root);

	/* an unnamed object at an object root is the root (no crash) */
	sink_buf[0] = '\0';
	print_begin(&(struct print_opts){ .json = true, .sink = sink });
	print_open_object(NULL);
	print_u64("id", NULL, 7);
	print_u64(NULL, NULL, 8);
	print_close_object();
	print_u64("after", NULL, 9);
	print_flush(true);
	root = json_tokener_parse(sink_buf);
	ok(root && json_object_object_length(root) == 2 &&
	   json_object_object_get_ex(root, "id", &v) &&
	   json_object_get_int(v) == 7 &&
	   json_object_object_get_ex(root, "after", &v),
	   "print: an unnamed object in an object joins it; an unnamed value is dropped");
	json_object_put(root);

	/* a failed command: nothing written */
	sink_buf[0] = '\0';
	print_begin(&(struct print_opts){ .json = true, .sink = sink });
	print_str("a", NULL, "b");
	print_flush(false);
	ok(sink_buf[0] == '\0', "print: flush(false) drops the document");

	/* deeper than the stack: closed again, and the document stays valid */
	sink_buf[0] = '\0';
	print_begin(&(struct print_opts){ .json = true, .sink = sink });
	for (depth = 0; depth < 40; depth++)
		print_open_object("d");
	for (depth = 0; depth < 40; depth++)
		print_close_object();
	print_u64("after", NULL, 1);
	print_flush(true);
	root = json_tokener_parse(sink_buf);
	ok(root && json_object_object_get_ex(root, "after", &v),
	   "print: overly deep nesting is dropped, the rest is kept");
	json_object_put(root);

	sink_buf[0] = '\0';
	print_begin(&(struct print_opts){ .json = true, .pretty = true,
					  .sink = sink });
	print_u64("a", NULL, 1);
	print_u64("b", NULL, 2);
	print_flush(true);
	for (i = 0, s = sink_buf; *s; s++)
		i += *s == '\n';
	root = json_tokener_parse(sink_buf);
	ok(root && i >= 3, "print: pretty is indented over lines and parses");
	json_object_put(root);
}

static void test_handles(void)
{
	struct snode_handle h = { 7, 3, 0xdeadbeefcafef00dULL }, g;
	char buf[SNODE_HANDLE_STR_MAX];
	int n;

	n = snode_handle_to_str(&h, buf, sizeof(buf));
	ok(n > 0 && !strcmp(buf, "snode:v1:7:3:deadbeefcafef00d"),
	   "handle: to string (%s)", buf);
	memset(&g, 0, sizeof(g));
	ok(!snode_handle_from_str(buf, &g) && g.node == 7 &&
	   g.export_id == 3 && g.key == h.key, "handle: round trip");
	ok(!snode_handle_from_str("snode:v1:1:2:0xff", &g) && g.key == 0xff,
	   "handle: 0x key accepted");
	ok(snode_handle_from_str("snode:v2:1:2:ff", &g) == -EINVAL,
	   "handle: wrong version");
	ok(snode_handle_from_str("snode:v1:4294967296:2:ff", &g) == -EINVAL,
	   "handle: node beyond 32 bits");
	ok(snode_handle_from_str("snode:v1:1:2:10000000000000000", &g) ==
	   -EINVAL, "handle: key beyond 64 bits");
	ok(snode_handle_from_str("snode:v1:1:2:fg", &g) == -EINVAL,
	   "handle: bad hex digit");
	ok(snode_handle_to_str(&h, buf, 8) == -ENOSPC,
	   "handle: short buffer is ENOSPC");
}

static void test_ber(void)
{
	ok(snode_ber_from_double(1e-12) == 1000000, "ber: 1e-12 is 1e6 units");
	ok(snode_ber_to_double(1000000) == 1e-12, "ber: and back");
	ok(snode_ber_from_double(1.0) == SNODE_BER_ONE, "ber: 1.0");
	ok(snode_ber_from_double(0) == 0 && snode_ber_from_double(-1) == 0 &&
	   snode_ber_from_double(NAN) == 0, "ber: zero, negative, NaN are 0");
	ok(snode_ber_from_double(1e-18) == 1, "ber: the smallest unit");
	ok(snode_ber_from_double(100) == UINT64_MAX, "ber: too large saturates");
}

/* A link as the driver reports a healthy one: up, all lanes, no errors. */
static struct snode_link_info link_good(unsigned int port)
{
	return (struct snode_link_info){
		.port = port,
		.admin_state = SNODE_LINK_ADMIN_STATE_UP,
		.oper_state = SNODE_LINK_OPER_STATE_UP,
		.lanes = 4, .max_lanes = 4, .speed = 25,
		.peer_node = 2, .peer_port = port, .peer_switch = SNODE_NONE,
	};
}

static void test_link_verdict(void)
{
	struct snode_link_info li = link_good(0);

	ok(!strcmp(link_verdict(&li), "ok"), "link verdict: up, no errors: ok");
	li.oper_state = SNODE_LINK_OPER_STATE_DOWN;
	ok(!strcmp(link_verdict(&li), "down"), "link verdict: oper down: down");
	li = link_good(0);
	li.admin_state = SNODE_LINK_ADMIN_STATE_DOWN;
	ok(!strcmp(link_verdict(&li), "down"), "link verdict: admin down: down");
	li = link_good(0);
	li.oper_state = SNODE_LINK_OPER_STATE_DEGRADED;
	li.lanes = 2;
	ok(!strcmp(link_verdict(&li), "degraded"),
	   "link verdict: fewer lanes: degraded");
	li.oper_state = SNODE_LINK_OPER_STATE_TRAINING;
	ok(!strcmp(link_verdict(&li), "degraded"),
	   "link verdict: retraining: degraded");
	li = link_good(0);
	li.ber_alarm = 1;
	ok(!strcmp(link_verdict(&li), "errors"),
	   "link verdict: BER alarm: errors");
	li = link_good(0);
	li.ber = snode_ber_from_double(1e-12);
	ok(!strcmp(link_verdict(&li), "errors"),
	   "link verdict: BER at the default limit 1e-12: errors");
	li.ber = snode_ber_from_double(1e-13);
	ok(!strcmp(link_verdict(&li), "ok"),
	   "link verdict: BER below the default limit: ok");
	li.ber_threshold = snode_ber_from_double(1e-14);
	ok(!strcmp(link_verdict(&li), "errors"),
	   "link verdict: BER at or above the link's own threshold: errors");
	li.ber_threshold = snode_ber_from_double(1e-9);
	li.ber = snode_ber_from_double(1e-11);
	ok(!strcmp(link_verdict(&li), "ok"),
	   "link verdict: a threshold above the default limit is the limit");
}

/* Auto-isolate: the verdicts it adds, their names, link set's N/DUR. */
static void test_link_isolation(void)
{
	struct snode_link_info li = link_good(0);
	unsigned int n = 0, w = 0;

	li.isolation = SNODE_LINK_ISOLATION_ISOLATED;
	li.isolate_reason = SNODE_ISOLATE_REASON_FLAPS;
	li.admin_state = SNODE_LINK_ADMIN_STATE_DOWN;
	ok(!strcmp(link_verdict(&li), "isolated"),
	   "isolation: an isolated link is isolated, not down");
	li = link_good(0);
	li.isolation = SNODE_LINK_ISOLATION_FLAPPING;
	li.ber_alarm = 1;
	ok(!strcmp(link_verdict(&li), "flapping"),
	   "isolation: a flapping link is flapping before errors");
	li.oper_state = SNODE_LINK_OPER_STATE_DOWN;
	ok(!strcmp(link_verdict(&li), "flapping"),
	   "isolation: ... and while it is down");
	ok(!strcmp(link_isolation_name(SNODE_LINK_ISOLATION_NONE), "none") &&
	   !strcmp(link_isolation_name(SNODE_LINK_ISOLATION_FLAPPING), "flapping") &&
	   !strcmp(link_isolation_name(SNODE_LINK_ISOLATION_ISOLATED), "isolated") &&
	   !strcmp(link_isolation_name(7), "unknown"),
	   "isolation: state names, unknown past the enum");
	ok(!strcmp(link_isolate_reason_name(SNODE_ISOLATE_REASON_FLAPS), "flaps") &&
	   !strcmp(link_isolate_reason_name(SNODE_ISOLATE_REASON_BER), "ber") &&
	   !strcmp(link_isolate_reason_name(SNODE_ISOLATE_REASON_NONE), "none") &&
	   !strcmp(link_isolate_reason_name(9), "unknown"),
	   "isolation: reason names");
	ok(!link_parse_flaps("5/60s", &n, &w) && n == 5 && w == 60,
	   "flaps: 5/60s");
	ok(!link_parse_flaps("3/2m", &n, &w) && n == 3 && w == 120 &&
	   !link_parse_flaps("64/1d", &n, &w) && n == 64 && w == 86400 &&
	   !link_parse_flaps("1/30", &n, &w) && n == 1 && w == 30,
	   "flaps: minutes, a day, plain seconds; 1 and 64 flaps");
	ok(link_parse_flaps("0/60s", &n, &w) && link_parse_flaps("65/60s", &n, &w) &&
	   link_parse_flaps("5/0s", &n, &w) && link_parse_flaps("5/2d", &n, &w) &&
	   link_parse_flaps("5", &n, &w) && link_parse_flaps("/60s", &n, &w) &&
	   link_parse_flaps("5/", &n, &w) && link_parse_flaps("-5/60s", &n, &w) &&
	   link_parse_flaps("5/60x", &n, &w) && link_parse_flaps(NULL, &n, &w),
	   "flaps: 0, 65, no window, past a day, no slash, junk: refused");
}

/* The hwmon values of a NIC that runs cool and within its power budget. */
static const struct health_sensors sensors_cool = {
	.have_temp = true, .have_temp_max = true, .have_temp_crit = true,
	.have_power = true, .have_power_max = true,
	.temp = 45000, .temp_max = 85000, .temp_crit = 95000,
	.power = 12000000, .power_max = 25000000,
};

/* What health_dev() does with one NIC, from values instead of a device. */
static enum health judge_nic(struct health_dev *h,
			     const struct snode_dev_status *st,
			     const struct snode_link_info *links,
			     unsigned int nlinks,
			     const struct snode_node_info *nodes,
			     unsigned int nnodes,
			     const struct health_sensors *sensors)
{
	struct health_links lc = { 0 };
	struct health_nodes nc = { 0 };
	unsigned int i;

	memset(h, 0, sizeof(*h));
	h->verdict = HEALTH_OK;
	health_judge_dev(h, st);
	for (i = 0; i < nlinks; i++)
		health_judge_link(h, &lc, &links[i]);
	health_judge_links(h, &lc, st->node_id);
	for (i = 0; i < nnodes; i++)
		health_judge_node(h, &nc, &nodes[i]);
	health_judge_sensors(h, sensors, st->throttled);
	return h->verdict;
}

static bool has_problem(const struct health_dev *h, const char *text)
{
	unsigned int i;

	for (i = 0; i < h->nproblems; i++)
		if (!strcmp(h->problems[i], text))
			return true;
	return false;
}

/* A link down to switch @sw (SNODE_NONE: to node @node). */
static struct snode_link_info link_down_to(unsigned int port, uint32_t sw,
					   uint32_t node)
{
	struct snode_link_info li = link_good(port);

	li.oper_state = SNODE_LINK_OPER_STATE_DOWN;
	li.peer_switch = sw;
	li.peer_node = sw == SNODE_NONE ? node : SNODE_NONE;
	li.peer_port = sw == SNODE_NONE ? 0 : SNODE_NONE;
	return li;
}

/* A link down to switch @sw of plane @plane, named @name ("" none). */
static struct snode_link_info link_down_plane(unsigned int port, uint32_t sw,
					      uint32_t plane, const char *name)
{
	struct snode_link_info li = link_down_to(port, sw, 0);

	li.topo = SNODE_TOPO_HAS_PLANE;
	li.peer_plane = plane;
	snprintf(li.peer_switch_name, sizeof(li.peer_switch_name), "%s", name);
	return li;
}

/* Decision 0030: the plane and the switch's name in the common cause. */
static void test_common_cause_planes(void)
{
	struct health_group g[8];
	struct health_down d = { 0 };
	struct snode_link_info li;
	unsigned int n, i;

	for (i = 0; i < 3; i++) {
		li = link_down_plane(i, 1, 1, "S1");
		health_down_add(&d, &li);
	}
	n = health_down_groups(&d, g, 8);
	ok(n == 1 && g[0].is_switch && g[0].id == 1 && g[0].plane == 1 &&
	   !strcmp(g[0].switch_name, "S1") &&
	   !strcmp(g[0].text, "3 links down, all on plane 1 (switch S1)"),
	   "cause: three down on S1 of plane 1 (%s)", n ? g[0].text : "");
	memset(&d, 0, sizeof(d));
	li = link_down_plane(0, 0, 0, "plane0");
	health_down_add(&d, &li);
	n = health_down_groups(&d, g, 8);
	ok(n == 1 && !strcmp(g[0].text, "1 link down, on plane 0 (switch plane0)"),
	   "cause: one down: its plane and switch (%s)", n ? g[0].text : "");
	memset(&d, 0, sizeof(d));
	li = link_down_plane(0, 3, 2, "");
	health_down_add(&d, &li);
	n = health_down_groups(&d, g, 8);
	ok(n == 1 && !strcmp(g[0].text, "1 link down, on plane 2 (switch 3)"),
	   "cause: a plane without a name: the switch id (%s)", n ? g[0].text : "");
	memset(&d, 0, sizeof(d));
	li = link_down_plane(0, 4, 1, "r00p1");
	health_down_add(&d, &li);
	li = link_down_plane(0, 5, 1, "r01p1");
	health_down_add(&d, &li);
	n = health_down_groups(&d, g, 8);
	ok(n == 1 && g[0].by_plane && g[0].plane == 1 && g[0].links == 2 &&
	   !strcmp(g[0].text, "2 links down, all on plane 1 (switches r00p1, r01p1)"),
	   "cause: two switches of one plane: the plane (%s)", n ? g[0].text : "");
	li = link_down_plane(1, 6, 0, "r00p0");
	health_down_add(&d, &li);
	n = health_down_groups(&d, g, 8);
	ok(n == 1 && g[0].by_plane && g[0].links == 2 && g[0].of == 3 &&
	   !strcmp(g[0].text, "2 of 3 links down on plane 1 (switches r00p1, r01p1)"),
	   "cause: two of three on plane 1 (%s)", n ? g[0].text : "");
	memset(&d, 0, sizeof(d));
	li = link_down_plane(0, 4, 1, "r00p1");
	health_down_add(&d, &li);
	li = link_down_plane(1, 6, 0, "r00p0");
	health_down_add(&d, &li);
	ok(health_down_groups(&d, g, 8) == 0,
	   "cause: one down on each plane: no group");
}

static void test_common_cause(void)
{
	struct health_group g[8];
	struct health_down d = { 0 };
	struct snode_link_info li;
	unsigned int n, i;

	ok(health_down_groups(&d, g, 8) == 0, "cause: no link down, no group");
	li = link_good(0);
	li.peer_switch = 1;
	health_down_add(&d, &li);
	ok(d.n == 0, "cause: a link up is not counted");
	for (i = 0; i < 3; i++) {
		li = link_down_to(1, 1, 0);
		health_down_add(&d, &li);
	}
	n = health_down_groups(&d, g, 8);
	ok(n == 1 && g[0].is_switch && g[0].id == 1 && g[0].links == 3 &&
	   g[0].of == 3 && !strcmp(g[0].text, "3 links down, all on switch 1"),
	   "cause: three down on switch 1: one group (%s)", n ? g[0].text : "");
	memset(&d, 0, sizeof(d));
	li = link_down_to(0, 0, 0);
	health_down_add(&d, &li);
	n = health_down_groups(&d, g, 8);
	ok(n == 1 && !strcmp(g[0].text, "1 link down, on switch 0"),
	   "cause: one down: its switch (%s)", n ? g[0].text : "");
	memset(&d, 0, sizeof(d));
	for (i = 0; i < 2; i++) {
		li = link_down_to(i, SNODE_NONE, 7);
		health_down_add(&d, &li);
	}
	n = health_down_groups(&d, g, 8);
	ok(n == 1 && !g[0].is_switch && g[0].id == 7 &&
	   !strcmp(g[0].text, "2 links down, all to node 7"),
	   "cause: two down to peer node 7 (%s)", n ? g[0].text : "");
	memset(&d, 0, sizeof(d));
	li = link_down_to(0, 0, 0);
	health_down_add(&d, &li);
	li = link_down_to(1, 1, 0);
	health_down_add(&d, &li);
	ok(health_down_groups(&d, g, 8) == 0,
	   "cause: one down on each of two switches: unrelated, no group");
	li = link_down_to(2, 1, 0);
	health_down_add(&d, &li);
	n = health_down_groups(&d, g, 8);
	ok(n == 1 && g[0].id == 1 && g[0].links == 2 && g[0].of == 3 &&
	   !strcmp(g[0].text, "2 of 3 links down on switch 1"),
	   "cause: two of three on one switch (%s)", n ? g[0].text : "");
	test_common_cause_planes();
	memset(&d, 0, sizeof(d));
	for (i = 0; i < HEALTH_MAX_DOWN + 2; i++) {
		li = link_down_to(0, 4, 0);
		health_down_add(&d, &li);
	}
	n = health_down_groups(&d, g, 8);
	ok(d.n == HEALTH_MAX_DOWN + 2 && n == 1 &&
	   g[0].of == HEALTH_MAX_DOWN + 2 && g[0].links == HEALTH_MAX_DOWN,
	   "cause: past %u links down, counted, not claimed all (%s)",
	   HEALTH_MAX_DOWN, n ? g[0].text : "");
}

/* link status -s and link set util-threshold: the pure parts */
static void test_link_rates(void)
{
	struct snode_link_info li = link_good(0);
	struct health_links lc = { 0 };
	double g = -1, p = -1, secs = 0;
	struct health_dev h;
	unsigned int pct = 0;

	ok(!link_rate(0, 125000000, 1, 1, 1, &g, &p) &&
	   fabs(g - 1.0) < 1e-9 && fabs(p - 100.0) < 1e-9,
	   "rate: 125 MB in 1 s on 1x1G: 1 Gbit/s, 100%% (%g, %g)", g, p);
	ok(!link_rate(1000, 1000 + 100000000000ull, 2, 4, 100, &g, &p) &&
	   fabs(g - 400.0) < 1e-9 && fabs(p - 100.0) < 1e-9,
	   "rate: 100 GB in 2 s on 4x100G: 400 Gbit/s, 100%% (%g, %g)", g, p);
	ok(!link_rate(0, 50000000, 0.5, 4, 1, &g, &p) &&
	   fabs(g - 0.8) < 1e-9 && fabs(p - 20.0) < 1e-9,
	   "rate: half a second, 4 lanes: 0.8 Gbit/s, 20%% (%g, %g)", g, p);
	ok(!link_rate(7, 7, 1, 4, 100, &g, &p) && g == 0 && p == 0,
	   "rate: an idle link: 0, 0%%");
	ok(!link_rate(0, 1000, 1, 0, 100, &g, &p) && p == 0 && g > 0,
	   "rate: a link without lanes has a rate but no share (%g)", p);
	g = p = -1;
	ok(link_rate(2000, 1000, 1, 4, 100, &g, &p) && g == -1 && p == -1,
	   "rate: a counter that went back (cleared) is no rate, nothing written");
	ok(link_rate(0, 1000, 0, 4, 100, &g, &p) &&
	   link_rate(0, 1000, -1, 4, 100, &g, &p),
	   "rate: no time or negative time is no rate");

	ok(!link_parse_interval("2", &secs) && secs == 2 &&
	   !link_parse_interval("0.5s", &secs) && secs == 0.5 &&
	   !link_parse_interval("0.1", &secs) && !link_parse_interval("60", &secs),
	   "interval: 2, 0.5s, the bounds 0.1 and 60");
	ok(link_parse_interval("0", &secs) && link_parse_interval("0.05", &secs) &&
	   link_parse_interval("61", &secs) && link_parse_interval("-1", &secs) &&
	   link_parse_interval("1m", &secs) && link_parse_interval("", &secs) &&
	   link_parse_interval(NULL, &secs) && link_parse_interval("nan", &secs) &&
	   link_parse_interval("1e1x", &secs),
	   "interval: 0, too short, too long, negative, junk are refused");
	ok(!link_parse_util("80", &pct) && pct == 80 &&
	   !link_parse_util("1%", &pct) && pct == 1 &&
	   !link_parse_util("100", &pct) && pct == 100,
	   "util-threshold: 80, 1%%, 100");
	ok(link_parse_util("0", &pct) && link_parse_util("101", &pct) &&
	   link_parse_util("%", &pct) && link_parse_util("-5", &pct) &&
	   link_parse_util("80%%", &pct) && link_parse_util("8o", &pct) &&
	   link_parse_util(NULL, &pct) && pct == 100,
	   "util-threshold: 0, 101, junk are refused, nothing written");

	memset(&h, 0, sizeof(h));
	li.util_alarm = 1;
	li.util_tx = 9512;
	li.util_threshold = 80;
	health_judge_link(&h, &lc, &li);
	ok(h.verdict == HEALTH_WARNING && has_problem(&h, "link 0 utilisation 95% (alarm at 80%)"),
	   "health: a link in utilisation alarm is a warning naming it (%s)",
	   h.nproblems ? h.problems[0] : "");
}

static void test_health(void)
{
	const struct snode_dev_status live = {
		.state = SNODE_DEV_STATE_LIVE, .node_id = 1,
	};
	struct snode_node_info nodes[3] = {
		{ .id = 2, .state = SNODE_NODE_STATE_UP },
		{ .id = 3, .state = SNODE_NODE_STATE_UP },
		{ .id = 4, .state = SNODE_NODE_STATE_UP },
	};
	struct snode_link_info links[2] = { link_good(0), link_good(1) };
	struct health_sensors sensors = sensors_cool;
	struct snode_dev_status st = live;
	struct health_links lc = { 0 };
	struct health_nodes nc = { 0 };
	struct health_dev h;
	enum health v;
	unsigned int i;

	v = judge_nic(&h, &st, links, 2, nodes, 3, &sensors);
	ok(v == HEALTH_OK && !h.nproblems && !strcmp(health_name(v), "ok") &&
	   health_exit_status(v) == 0,
	   "health: a healthy NIC is ok, exit 0, no problems");

	links[1].oper_state = SNODE_LINK_OPER_STATE_DEGRADED;
	links[1].lanes = 2;
	v = judge_nic(&h, &st, links, 2, nodes, 3, &sensors);
	ok(v == HEALTH_WARNING && h.nproblems == 1 &&
	   has_problem(&h, "link 1 degraded") && health_exit_status(v) == 1,
	   "health: a degraded link is a warning, exit 1 (%s)",
	   h.nproblems ? h.problems[0] : "");
	links[1] = link_good(1);
	links[1].oper_state = SNODE_LINK_OPER_STATE_DOWN;
	v = judge_nic(&h, &st, links, 2, nodes, 3, &sensors);
	ok(v == HEALTH_WARNING && has_problem(&h, "link 1 down") &&
	   !has_problem(&h, "no link is up"),
	   "health: one link down of two is a warning");
	links[1] = link_good(1);
	links[1].ber_alarm = 1;
	v = judge_nic(&h, &st, links, 2, nodes, 3, &sensors);
	ok(v == HEALTH_WARNING && has_problem(&h, "link 1 errors"),
	   "health: a link in errors is a warning");
	links[0].oper_state = SNODE_LINK_OPER_STATE_DOWN;
	links[1] = link_good(1);
	links[1].admin_state = SNODE_LINK_ADMIN_STATE_DOWN;
	v = judge_nic(&h, &st, links, 2, nodes, 3, &sensors);
	ok(v == HEALTH_CRITICAL && has_problem(&h, "link 0 down") &&
	   has_problem(&h, "link 1 down") && has_problem(&h, "no link is up") &&
	   health_exit_status(v) == 2,
	   "health: every link down is critical (no link is up), exit 2");
	v = judge_nic(&h, &st, links, 0, nodes, 3, &sensors);
	ok(v == HEALTH_OK, "health: a NIC without links is not 'no link is up'");
	links[0] = link_good(0);
	links[1] = link_good(1);

	/* redundancy: the paths left */
	links[1].oper_state = SNODE_LINK_OPER_STATE_DOWN;
	v = judge_nic(&h, &st, links, 2, nodes, 3, &sensors);
	ok(v == HEALTH_WARNING &&
	   has_problem(&h, "node 1: one path left (link 1 down)"),
	   "health: one link left of two: node 1: one path left (link 1 down)");
	links[0].oper_state = SNODE_LINK_OPER_STATE_DEGRADED;
	v = judge_nic(&h, &st, links, 2, nodes, 3, &sensors);
	ok(has_problem(&h, "node 1: one path left (link 1 down)"),
	   "health: a degraded link is still the path left");
	links[0] = link_good(0);
	links[1] = link_good(1);
	v = judge_nic(&h, &st, links, 2, nodes, 3, &sensors);
	ok(v == HEALTH_OK && !h.nproblems, "health: two paths: no paths problem");
	{
		struct snode_link_info four[4] = {
			link_good(0), link_good(1), link_good(2), link_good(3),
		};

		four[0].oper_state = SNODE_LINK_OPER_STATE_DOWN;
		four[2].admin_state = SNODE_LINK_ADMIN_STATE_DOWN;
		four[3].oper_state = SNODE_LINK_OPER_STATE_DOWN;
		judge_nic(&h, &st, four, 4, nodes, 3, &sensors);
		ok(has_problem(&h, "node 1: one path left (links 0, 2, 3 down)"),
		   "health: one of four left names the three down");
		four[0] = link_good(0);
		judge_nic(&h, &st, four, 4, nodes, 3, &sensors);
		ok(h.verdict == HEALTH_WARNING && h.nproblems == 2,
		   "health: two of four left is no paths problem (%u problems)",
		   h.nproblems);
	}
	st.node_id = SNODE_NODE_ID_NONE;
	links[1].oper_state = SNODE_LINK_OPER_STATE_DOWN;
	judge_nic(&h, &st, links, 2, nodes, 3, &sensors);
	ok(has_problem(&h, "this node: one path left (link 1 down)"),
	   "health: a NIC not attached says this node");
	st = live;
	links[1] = link_good(1);

	/* auto-isolate */
	links[1].isolation = SNODE_LINK_ISOLATION_ISOLATED;
	links[1].isolate_reason = SNODE_ISOLATE_REASON_FLAPS;
	links[1].admin_state = SNODE_LINK_ADMIN_STATE_DOWN;
	links[1].oper_state = SNODE_LINK_OPER_STATE_DOWN;
	v = judge_nic(&h, &st, links, 2, nodes, 3, &sensors);
	ok(v == HEALTH_WARNING && has_problem(&h, "link 1 isolated (flaps)") &&
	   has_problem(&h, "node 1: one path left (link 1 down)") &&
	   !has_problem(&h, "link 1 down"),
	   "health: an isolated link is a warning, isolated (flaps), and not a path");
	{
		struct health_down d = { 0 };

		health_down_add(&d, &links[1]);
		ok(d.n == 0, "health: an isolated link is no common cause's");
	}
	links[0].isolation = SNODE_LINK_ISOLATION_FLAPPING;
	links[0].isolate_reason = SNODE_ISOLATE_REASON_FLAPS;
	v = judge_nic(&h, &st, links, 2, nodes, 3, &sensors);
	ok(v == HEALTH_CRITICAL && has_problem(&h, "link 0 flapping (flaps)") &&
	   has_problem(&h, "link 0 flapping and the last link up: not isolated"),
	   "health: flapping on the last link up is critical (not isolated)");
	links[1] = link_good(1);
	v = judge_nic(&h, &st, links, 2, nodes, 3, &sensors);
	ok(v == HEALTH_WARNING && h.nproblems == 1 &&
	   has_problem(&h, "link 0 flapping (flaps)"),
	   "health: flapping with another link up is a warning");
	links[0].oper_state = SNODE_LINK_OPER_STATE_DOWN;
	links[0].isolate_reason = SNODE_ISOLATE_REASON_BER;
	v = judge_nic(&h, &st, links, 2, nodes, 3, &sensors);
	ok(v == HEALTH_WARNING && has_problem(&h, "link 0 flapping (ber)") &&
	   has_problem(&h, "node 1: one path left (link 0 down)"),
	   "health: a flapping link while down is no path");
	links[0] = link_good(0);
	memset(&lc, 0, sizeof(lc));
	memset(&h, 0, sizeof(h));
	links[1].isolation = SNODE_LINK_ISOLATION_ISOLATED;
	health_judge_link(&h, &lc, &links[1]);
	links[1].isolation = SNODE_LINK_ISOLATION_FLAPPING;
	health_judge_link(&h, &lc, &links[1]);
	ok(lc.total == 2 && lc.isolated == 1 && lc.flapping == 1 &&
	   lc.down == 1 && lc.flapping_up == 1 && lc.flapping_port == 1,
	   "health: the links line counts isolated and flapping links");
	links[1] = link_good(1);

	memset(&lc, 0, sizeof(lc));
	memset(&h, 0, sizeof(h));
	links[1].oper_state = SNODE_LINK_OPER_STATE_TRAINING;
	health_judge_link(&h, &lc, &links[0]);
	health_judge_link(&h, &lc, &links[1]);
	links[1].ber_alarm = 1;
	health_judge_link(&h, &lc, &links[1]);
	links[1].oper_state = SNODE_LINK_OPER_STATE_DOWN;
	health_judge_link(&h, &lc, &links[1]);
	ok(lc.total == 4 && lc.ok == 1 && lc.degraded == 1 && lc.errors == 1 &&
	   lc.down == 1, "health: the links line counts each verdict");
	links[1] = link_good(1);

	st.state = SNODE_DEV_STATE_RESETTING;
	v = judge_nic(&h, &st, links, 2, nodes, 3, &sensors);
	ok(v == HEALTH_CRITICAL && has_problem(&h, "device not live"),
	   "health: a resetting device is critical (device not live)");
	st.state = SNODE_DEV_STATE_DEAD;
	v = judge_nic(&h, &st, links, 2, nodes, 3, &sensors);
	ok(v == HEALTH_CRITICAL && has_problem(&h, "device not live"),
	   "health: a dead device is critical");
	st = live;
	st.node_id = SNODE_NODE_ID_NONE;
	v = judge_nic(&h, &st, links, 2, nodes, 3, &sensors);
	ok(v == HEALTH_CRITICAL && h.nproblems == 1 &&
	   has_problem(&h, "not attached to a fabric"),
	   "health: a NIC not attached to a fabric is critical");
	st = live;

	nodes[1].state = SNODE_NODE_STATE_UNREACHABLE;
	v = judge_nic(&h, &st, links, 2, nodes, 3, &sensors);
	ok(v == HEALTH_WARNING && has_problem(&h, "node 3 unreachable"),
	   "health: an unreachable node is a warning");
	nodes[1].state = SNODE_NODE_STATE_DEAD;
	v = judge_nic(&h, &st, links, 2, nodes, 3, &sensors);
	ok(v == HEALTH_WARNING && has_problem(&h, "node 3 dead"),
	   "health: a dead node is a warning");
	nodes[1].state = SNODE_NODE_STATE_UNKNOWN;
	v = judge_nic(&h, &st, links, 2, nodes, 3, &sensors);
	ok(v == HEALTH_OK && !h.nproblems,
	   "health: a node in unknown state is no problem");
	memset(&h, 0, sizeof(h));
	nodes[0].state = SNODE_NODE_STATE_UNREACHABLE;
	nodes[1].state = SNODE_NODE_STATE_DEAD;
	nodes[2].state = SNODE_NODE_STATE_UP;
	for (i = 0; i < 3; i++)
		health_judge_node(&h, &nc, &nodes[i]);
	ok(nc.up == 1 && nc.unreachable == 1 && nc.dead == 1,
	   "health: the nodes line counts each state");
	nodes[0].state = nodes[1].state = SNODE_NODE_STATE_UP;

	sensors.temp = 86000;
	v = judge_nic(&h, &st, links, 2, nodes, 3, &sensors);
	ok(v == HEALTH_WARNING &&
	   has_problem(&h, "temperature 86.0 C above max 85.0 C"),
	   "health: above the max temperature is a warning (%s)",
	   h.nproblems ? h.problems[0] : "");
	sensors.temp = 85000;
	v = judge_nic(&h, &st, links, 2, nodes, 3, &sensors);
	ok(v == HEALTH_OK, "health: at the max temperature is still ok");
	sensors.temp = 96500;
	v = judge_nic(&h, &st, links, 2, nodes, 3, &sensors);
	ok(v == HEALTH_CRITICAL && h.nproblems == 2 &&
	   !strcmp(h.problems[0], "temperature 96.5 C above max 85.0 C") &&
	   !strcmp(h.problems[1], "temperature 96.5 C above critical 95.0 C"),
	   "health: above the critical temperature is critical");
	sensors.have_temp_max = sensors.have_temp_crit = false;
	v = judge_nic(&h, &st, links, 2, nodes, 3, &sensors);
	ok(v == HEALTH_OK, "health: a temperature without thresholds is ok");
	sensors = sensors_cool;
	sensors.power = 25000001;
	v = judge_nic(&h, &st, links, 2, nodes, 3, &sensors);
	ok(v == HEALTH_WARNING &&
	   has_problem(&h, "power 25.000 W above max 25.000 W"),
	   "health: above the max power is a warning");
	sensors = sensors_cool;
	st.throttled = 1;
	v = judge_nic(&h, &st, links, 2, nodes, 3, &sensors);
	ok(v == HEALTH_CRITICAL && has_problem(&h, "throttled (too hot)"),
	   "health: a throttled NIC is critical");
	sensors.have_power = false;
	v = judge_nic(&h, &st, links, 2, nodes, 3, &sensors);
	ok(v == HEALTH_CRITICAL, "health: ... with a temperature sensor only");
	memset(&sensors, 0, sizeof(sensors));
	v = judge_nic(&h, &st, links, 2, nodes, 3, &sensors);
	ok(v == HEALTH_CRITICAL && has_problem(&h, "throttled (too hot)"),
	   "health: without temperature and power sensors a throttled NIC is still critical");
	st.throttled = 0;
	v = judge_nic(&h, &st, links, 2, nodes, 3, &sensors);
	ok(v == HEALTH_OK && !h.nproblems,
	   "health: without temperature and power sensors a NIC that does not throttle is ok");
	st = live;
}

static void test_health_levels(void)
{
	static const enum health levels[] = {
		HEALTH_OK, HEALTH_WARNING, HEALTH_UNKNOWN, HEALTH_CRITICAL,
	};
	static const char *const names[] = {
		"ok", "warning", "unknown", "critical",
	};
	static const int status[] = { 0, 1, 3, 2 };
	struct health_dev h = { .verdict = HEALTH_OK };
	bool names_ok = true, status_ok = true;
	enum health worst = HEALTH_OK;
	unsigned int i;

	for (i = 0; i < 4; i++) {
		names_ok &= !strcmp(health_name(levels[i]), names[i]);
		status_ok &= health_exit_status(levels[i]) == status[i];
	}
	ok(names_ok, "health: verdict names ok, warning, unknown, critical");
	ok(status_ok && SNODECTL_HEALTH_OK == 0 &&
	   SNODECTL_HEALTH_WARNING == 1 && SNODECTL_HEALTH_CRITICAL == 2 &&
	   SNODECTL_HEALTH_UNKNOWN == 3,
	   "health: exit status ok 0, warning 1, critical 2, unknown 3");

	/* health_run() over NICs judged ok, warning, ok, unknown */
	worst = health_worst(worst, HEALTH_OK);
	worst = health_worst(worst, HEALTH_WARNING);
	worst = health_worst(worst, HEALTH_OK);
	ok(worst == HEALTH_WARNING,
	   "health: the worst NIC's verdict is the overall one (warning)");
	worst = health_worst(worst, HEALTH_UNKNOWN);
	ok(worst == HEALTH_UNKNOWN,
	   "health: an unreadable NIC outranks a warning (unknown)");
	ok(health_worst(worst, HEALTH_CRITICAL) == HEALTH_CRITICAL &&
	   health_worst(HEALTH_CRITICAL, HEALTH_UNKNOWN) == HEALTH_CRITICAL,
	   "health: a critical NIC outranks an unreadable one");

	health_problem(&h, HEALTH_WARNING, "first");
	health_problem(&h, HEALTH_OK, "an ok problem lowers nothing");
	ok(h.verdict == HEALTH_WARNING && h.nproblems == 2,
	   "health: a problem never lowers the verdict");
	for (i = 2; i < HEALTH_MAX_PROBLEMS + 5; i++)
		health_problem(&h, i == HEALTH_MAX_PROBLEMS + 3 ?
			       HEALTH_CRITICAL : HEALTH_WARNING, "problem %u", i);
	ok(h.nproblems == HEALTH_MAX_PROBLEMS && h.more == 5 &&
	   !strcmp(h.problems[HEALTH_MAX_PROBLEMS - 1], "problem 15"),
	   "health: %d problems listed, the rest counted (%u more problems)",
	   HEALTH_MAX_PROBLEMS, h.more);
	ok(h.verdict == HEALTH_CRITICAL,
	   "health: a problem past the list still raises the verdict");
}

static void test_errmsg(void)
{
	char msg[600], ext[512];

	ok(snodectl_nl_msg(msg, sizeof(msg), "link show", -ENOENT,
			   "no such port on this snode device") &&
	   !strcmp(msg, "Error: no such port on this snode device.\n"),
	   "errmsg: the kernel's extack as iproute2 shows it (Error: TEXT.)");
	ok(snodectl_nl_msg(msg, sizeof(msg), "link set", -EPERM, "x") &&
	   !strcmp(msg, "Error: x.\n"),
	   "errmsg: an extack wins over the errno");
	ok(!snodectl_nl_msg(msg, sizeof(msg), "link show", -ENOENT, "") &&
	   !strcmp(msg, "link show: no such port or node on this device"),
	   "errmsg: without an extack, ENOENT names the port or node");
	ok(!snodectl_nl_msg(msg, sizeof(msg), "link status", -EPROTONOSUPPORT,
			    NULL) &&
	   !strcmp(msg, "link status: snode.ko not loaded (the snode netlink family is missing; modprobe snode)"),
	   "errmsg: no netlink family: snode.ko not loaded");
	ok(!snodectl_nl_msg(msg, sizeof(msg), "link set", -EPERM, NULL) &&
	   !strcmp(msg, "link set: not permitted: needs CAP_NET_ADMIN (root)"),
	   "errmsg: netlink EPERM needs CAP_NET_ADMIN");
	ok(!snodectl_nl_msg(msg, sizeof(msg), "node show", -ENODEV, NULL) &&
	   !strcmp(msg, "node show: no such snode device (see 'snodectl dev show')"),
	   "errmsg: netlink ENODEV: no such device");
	ok(!snodectl_nl_msg(msg, sizeof(msg), "link show", -EACCES, NULL) &&
	   !strcmp(msg, "link show: not permitted (needs root, or membership of group snode for /dev/snode*)"),
	   "errmsg: other netlink errors as library errors");
	snodectl_lib_msg(msg, sizeof(msg), "snode0", -ENOENT);
	ok(!strcmp(msg, "snode0: no such snode device (is snode.ko loaded? see 'snodectl dev show')"),
	   "errmsg: library ENOENT: no such device");
	snodectl_lib_msg(msg, sizeof(msg), "snode0", -EIO);
	ok(!strcmp(msg, "snode0: Input/output error"),
	   "errmsg: otherwise strerror (%s)", msg);

	ok(snodectl_extack_from_log("kernel: no such port on this snode device \n",
				    ext, sizeof(ext)) &&
	   !strcmp(ext, "no such port on this snode device"),
	   "extack: taken from libsnode's 'kernel: ' log line, blanks trimmed");
	strcpy(ext, "kept");
	ok(!snodectl_extack_from_log("netlink: request failed\n", ext,
				     sizeof(ext)) && !strcmp(ext, "kept"),
	   "extack: other log lines leave it alone");
}

static void touch_dir(const char *dir, const char *name)
{
	char path[512];

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	mkdir(path, 0755);
}

static void test_discovery(const char *tmp)
{
	char dir[512];
	struct snode_ctx *ctx;
	struct snode_dev *dev;
	char order[64] = "";
	int ret;

	snprintf(dir, sizeof(dir), "%s/class", tmp);
	mkdir(dir, 0755);
	touch_dir(dir, "snode10");
	touch_dir(dir, "snode2");
	touch_dir(dir, "snode0");
	touch_dir(dir, "snodex");
	touch_dir(dir, "other");
	setenv("SNODE_SYSFS", dir, 1);
	setenv("SNODE_DEVDIR", tmp, 1);
	ret = snode_new(&ctx);
	ok(!ret, "discovery: snode_new on a fake sysfs class");
	if (ret)
		return;
	snode_dev_foreach(ctx, dev)
		snprintf(order + strlen(order), sizeof(order) - strlen(order),
			 "%s ", snode_dev_get_name(dev));
	ok(!strcmp(order, "snode0 snode2 snode10 "),
	   "discovery: snodeN entries only, by index (%s)", order);
	dev = snode_dev_get_by_name(ctx, "2");
	ok(dev && snode_dev_get_index(dev) == 2, "discovery: by number");
	dev = snode_dev_get_by_name(ctx, "/dev/snode10");
	ok(dev && snode_dev_get_index(dev) == 10, "discovery: by /dev path");
	ok(!snode_dev_get_by_name(ctx, "snode1"), "discovery: absent device");
	dev = snode_dev_get_by_name(ctx, "snode0");
	ok(dev && snode_dev_get_fd(dev) == -ENOENT,
	   "discovery: no /dev node is -ENOENT");
	snode_unref(ctx);

	setenv("SNODE_SYSFS", "/nonexistent/snode", 1);
	ret = snode_new(&ctx);
	ok(!ret && !snode_dev_get_first(ctx),
	   "discovery: no class directory, no devices, no error");
	if (!ret)
		snode_unref(ctx);
}

#define HOUR	3600
#define DAY	86400

static bool near(double a, double b)
{
	return fabs(a - b) <= 1e-9 * fmax(1, fabs(b));
}

/* A sample every @step seconds with counters growing by @d each time. */
static void trend_series(struct trend_sample *s, unsigned int n, int64_t step,
			 uint64_t crc, uint64_t replays, uint64_t down)
{
	unsigned int i;

	for (i = 0; i < n; i++)
		s[i] = (struct trend_sample){
			.time = 1700000000 + (int64_t)i * step,
			.crc_errors = crc * i,
			.replays = replays * i,
			.down_events = down * i,
		};
}

static void test_trend_rates(void)
{
	struct trend_sample s[8];
	struct trend_limits l;
	struct trend_result r;

	trend_limits_default(&l);
	/* 8 samples an hour apart, +2 crc, +3 replays, +0 down each */
	trend_series(s, 8, HOUR, 2, 3, 0);
	trend_compute(s, 8, INT64_MIN, &l, &r);
	ok(r.samples == 8 && r.last - r.first == 7 * HOUR,
	   "trend: 8 samples, a 7 h window (%u, %lld s)", r.samples,
	   (long long)(r.last - r.first));
	ok(near(r.rate[TREND_CRC], 2) && near(r.rate[TREND_REPLAYS], 3) &&
	   near(r.rate[TREND_DOWN], 0),
	   "trend: steady series: 2 crc/h, 3 replays/h, 0 down/day (%g %g %g)",
	   r.rate[TREND_CRC], r.rate[TREND_REPLAYS], r.rate[TREND_DOWN]);
	ok(r.events[TREND_CRC] == 14, "trend: 14 crc events in the window");
	ok(!r.rising && !r.past, "trend: a steady low rate is not flagged");

	/* down events per day: 1 a day over 4 days, at the default limit */
	trend_series(s, 5, DAY, 0, 0, 1);
	trend_compute(s, 5, INT64_MIN, &l, &r);
	ok(near(r.rate[TREND_DOWN], 1) && !(r.past & (1u << TREND_DOWN)),
	   "trend: 1 down event/day is at the limit, not past it (%g)",
	   r.rate[TREND_DOWN]);
	s[4].down_events = 5;
	trend_compute(s, 5, INT64_MIN, &l, &r);
	ok(near(r.rate[TREND_DOWN], 1.25) && (r.past & (1u << TREND_DOWN)),
	   "trend: 1.25 down events/day is past the default of 1 (%g)",
	   r.rate[TREND_DOWN]);

	/* crc past its limit; a raised limit clears it */
	trend_series(s, 3, HOUR, 11, 0, 0);
	trend_compute(s, 3, INT64_MIN, &l, &r);
	ok(r.past == 1u << TREND_CRC, "trend: 11 crc/h is past 10/h");
	l.max_rate[TREND_CRC] = 20;
	trend_compute(s, 3, INT64_MIN, &l, &r);
	ok(!r.past, "trend: --max-crc 20 takes the flag away");
}

static void test_trend_reset(void)
{
	struct trend_sample s[5];
	struct trend_limits l;
	struct trend_result r;

	trend_limits_default(&l);
	ok(trend_delta(10, 15) == 5 && trend_delta(15, 3) == 3 &&
	   trend_delta(7, 7) == 0 && trend_delta(UINT64_MAX, 0) == 0,
	   "trend: a counter that went down counts from 0");
	/* 0, 10, 20, cleared, then 4, 14: 10 + 10 + 4 + 10 events in 4 h */
	trend_series(s, 5, HOUR, 10, 0, 0);
	s[3].crc_errors = 4;
	s[4].crc_errors = 14;
	trend_compute(s, 5, INT64_MIN, &l, &r);
	ok(r.events[TREND_CRC] == 34 && near(r.rate[TREND_CRC], 8.5),
	   "trend: a clear between samples: 34 events, 8.5/h, never negative (%llu, %g)",
	   (unsigned long long)r.events[TREND_CRC], r.rate[TREND_CRC]);
	/* a reboot: everything at 0 again */
	s[3].crc_errors = 0;
	s[4].crc_errors = 0;
	trend_compute(s, 5, INT64_MIN, &l, &r);
	ok(r.events[TREND_CRC] == 20 && r.rate[TREND_CRC] >= 0,
	   "trend: counters back at 0 add nothing (%llu)",
	   (unsigned long long)r.events[TREND_CRC]);
}

static void test_trend_slope(void)
{
	struct trend_sample s[4];
	struct trend_limits l;
	struct trend_result r;
	unsigned int i;

	trend_limits_default(&l);
	trend_series(s, 4, DAY, 0, 0, 0);
	/* BER 1e-15 + 2e-15 per day: slope 2e-15/day */
	for (i = 0; i < 4; i++)
		s[i].ber = 1000 + 2000 * i;
	trend_compute(s, 4, INT64_MIN, &l, &r);
	ok(near(r.ber_slope, 2e-15), "trend: BER slope +2e-15/day (%g)",
	   r.ber_slope);
	for (i = 0; i < 4; i++)
		s[i].ber = 9000 - 3000 * i;
	trend_compute(s, 4, INT64_MIN, &l, &r);
	ok(r.ber_slope < 0 && near(r.ber_slope, -3e-15),
	   "trend: a falling BER has a negative slope (%g)", r.ber_slope);
	/* least squares, not end points: 0, 4, 0, 4 over days 0..3 */
	for (i = 0; i < 4; i++)
		s[i].ber = i % 2 ? 4000 : 0;
	trend_compute(s, 4, INT64_MIN, &l, &r);
	ok(near(r.ber_slope, 0.8e-15), "trend: least-squares slope of 0,4,0,4 (x1e-15) is 0.8e-15 (%g)",
	   r.ber_slope);
	s[3].ber = 0;
	trend_compute(s, 4, INT64_MIN, &l, &r);
	ok(near(r.ber_slope, -0.4e-15),
	   "trend: and of 0,4,0,0 is -0.4e-15 (%g)", r.ber_slope);
}

static void test_trend_rising(void)
{
	struct trend_sample s[9];
	struct trend_limits l;
	struct trend_result r;
	unsigned int i;

	trend_limits_default(&l);
	l.max_rate[TREND_CRC] = 1e9;
	/* 8 h: 1 crc/h in the first 4, 3/h in the last 4: 3x > 2x, 12 >= 5 */
	trend_series(s, 9, HOUR, 0, 0, 0);
	for (i = 1; i < 9; i++)
		s[i].crc_errors = s[i - 1].crc_errors + (i <= 4 ? 1 : 3);
	trend_compute(s, 9, INT64_MIN, &l, &r);
	ok(r.rising == 1u << TREND_CRC, "trend: 3x the earlier half's rate is rising");
	/* exactly 2x: not rising (more than twice is the rule) */
	for (i = 1; i < 9; i++)
		s[i].crc_errors = s[i - 1].crc_errors + (i <= 4 ? 2 : 4);
	trend_compute(s, 9, INT64_MIN, &l, &r);
	ok(!r.rising, "trend: exactly 2x is not rising");
	/* from nothing to 4 events: below rising_min (5) */
	for (i = 1; i < 9; i++)
		s[i].crc_errors = s[i - 1].crc_errors + (i <= 4 ? 0 : 1);
	trend_compute(s, 9, INT64_MIN, &l, &r);
	ok(!r.rising, "trend: 0 then 4 events is too few to call rising");
	s[8].crc_errors++;
	trend_compute(s, 9, INT64_MIN, &l, &r);
	ok(r.rising == 1u << TREND_CRC, "trend: 0 then 5 events is rising");
	/* a clear in the later half does not hide the rise */
	s[6].crc_errors = 0;
	s[7].crc_errors = 2;
	s[8].crc_errors = 4;
	trend_compute(s, 9, INT64_MIN, &l, &r);
	ok(r.rising == 1u << TREND_CRC && r.events[TREND_CRC] == 5,
	   "trend: rising across a counter reset (%llu events)",
	   (unsigned long long)r.events[TREND_CRC]);
	/* falling: many early, few late */
	for (i = 1; i < 9; i++)
		s[i].crc_errors = s[i - 1].crc_errors + (i <= 4 ? 10 : 1);
	trend_compute(s, 9, INT64_MIN, &l, &r);
	ok(!r.rising, "trend: a falling rate is not rising");
	/* two samples: one interval, no halves to compare */
	s[1].crc_errors = 100;
	trend_compute(s, 2, INT64_MIN, &l, &r);
	ok(!r.rising && near(r.rate[TREND_CRC], 100),
	   "trend: two samples have a rate but no rising verdict");
	/* uneven sampling: halves by time, rates by the time each covers */
	s[0] = (struct trend_sample){ .time = 0 };
	s[1] = (struct trend_sample){ .time = 7 * DAY, .crc_errors = 7 };
	s[2] = (struct trend_sample){ .time = 8 * DAY, .crc_errors = 8 };
	s[3] = (struct trend_sample){ .time = 14 * DAY, .crc_errors = 14 };
	trend_compute(s, 4, INT64_MIN, &l, &r);
	ok(!r.rising, "trend: a steady rate sampled unevenly is not rising");
}

static void test_trend_threshold(void)
{
	struct trend_sample s[3];
	struct trend_limits l;
	struct trend_result r;

	trend_limits_default(&l);
	trend_series(s, 3, DAY, 0, 0, 0);
	s[2].ber = 1000000;	/* 1e-12 */
	s[2].ber_threshold = 1000000;
	trend_compute(s, 3, INT64_MIN, &l, &r);
	ok(r.past == TREND_PAST_BER, "trend: BER at its threshold is past-threshold");
	s[2].ber = 999999;
	trend_compute(s, 3, INT64_MIN, &l, &r);
	ok(!r.past, "trend: just below the threshold is not");
	s[2].ber_threshold = 0;
	s[2].ber = 1000000;
	trend_compute(s, 3, INT64_MIN, &l, &r);
	ok(r.past == TREND_PAST_BER, "trend: without a threshold, 1e-12 as link status");
	s[2].ber = 0;
	s[1].ber = 5000000;
	s[1].ber_threshold = 1;
	trend_compute(s, 3, INT64_MIN, &l, &r);
	ok(!r.past && r.ber == 0, "trend: only the latest BER counts");
}

static void test_trend_edges(void)
{
	struct trend_sample s[4];
	struct trend_limits l;
	struct trend_result r;

	trend_limits_default(&l);
	trend_series(s, 4, DAY, 5, 5, 5);
	s[0].ber = 2000000;
	s[0].ber_threshold = 1000000;
	trend_compute(s, 1, INT64_MIN, &l, &r);
	ok(r.samples == 1 && r.first == r.last && isnan(r.rate[TREND_CRC]) &&
	   isnan(r.ber_slope) && !r.rising,
	   "trend: one sample: no rates, no slope, no rising");
	ok(r.past == TREND_PAST_BER, "trend: one sample still judges its BER");
	trend_compute(s, 0, INT64_MIN, &l, &r);
	ok(r.samples == 0 && !r.past && !r.rising, "trend: no samples: nothing");
	/* --since: the cutoff keeps samples at or after it */
	trend_compute(s, 4, s[2].time, &l, &r);
	ok(r.samples == 2 && r.first == s[2].time &&
	   near(r.rate[TREND_CRC], 5.0 / 24),
	   "trend: since the third sample: 2 samples, 5 crc/day (%u)",
	   r.samples);
	trend_compute(s, 4, s[3].time + 1, &l, &r);
	ok(r.samples == 0 && isnan(r.rate[TREND_CRC]),
	   "trend: a --since that excludes everything leaves no samples");
	trend_compute(s, 4, s[3].time, &l, &r);
	ok(r.samples == 1 && r.last - r.first == 0 && isnan(r.rate[TREND_DOWN]),
	   "trend: a zero-length window has no rates");
}

static void test_trend_duration(void)
{
	static const struct {
		const char *s;
		int64_t v;
	} cases[] = {
		{ "90m", 5400 }, { "24h", 86400 }, { "7d", 604800 },
		{ "2w", 1209600 }, { "45s", 45 }, { "3600", 3600 },
		{ "0d", -1 }, { "0", -1 }, { "", -1 }, { "d", -1 },
		{ "-1d", -1 }, { "7x", -1 }, { "7dd", -1 }, { "1.5d", -1 },
		{ " 7d", -1 }, { "99999999999999999999d", -1 },
		{ "15250284452471w", 15250284452471LL * 604800 },
		{ "15250284452472w", -1 },
	};
	unsigned int i;
	int64_t v;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		v = trend_parse_duration(cases[i].s);
		ok(v == cases[i].v, "trend: duration \"%s\" is %lld (%lld)",
		   cases[i].s, (long long)cases[i].v, (long long)v);
	}
	ok(!strcmp(trend_counter_name(TREND_DOWN), "down_events") &&
	   !strcmp(trend_counter_name(TREND_NCOUNTERS), "unknown"),
	   "trend: counter names");
}

static int write_file(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	if (!f)
		return -1;
	fputs(text, f);
	return fclose(f);
}

/*
 * Run @read(@arg), a file reader that reports on stderr, with its stderr in
 * @tmp/@name.err: its status, the first line it printed in @msg.
 */
static int capture_stderr(const char *tmp, const char *name,
			  int (*read)(void *), void *arg, char *msg, size_t len)
{
	char err[4096];
	int fd, saved, ret;
	FILE *f;

	snprintf(err, sizeof(err), "%s/%s.err", tmp, name);
	msg[0] = '\0';
	fflush(stderr);
	saved = dup(2);
	fd = open(err, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	if (saved < 0 || fd < 0)
		return -1;
	dup2(fd, 2);
	close(fd);
	ret = read(arg);
	fflush(stderr);
	dup2(saved, 2);
	close(saved);
	f = fopen(err, "r");
	if (f) {
		if (!fgets(msg, len, f))
			msg[0] = '\0';
		fclose(f);
	}
	return ret;
}

/* What record_read() said on stderr, for the tests of its messages */
static char record_msg[512];

static int record_read_cb(void *h)
{
	return record_read(h);
}

/*
 * Read @text as a record file (NULL: a file that does not exist):
 * record_read()'s status, links in @h, its message (if any) in record_msg
 * instead of on stderr.
 */
static int read_records(const char *tmp, const char *text,
			struct record_file *h)
{
	static char path[4096];

	snprintf(path, sizeof(path), "%s/records.jsonl", tmp);
	*h = (struct record_file){ .file = text ? path : "/nonexistent/records" };
	record_msg[0] = '\0';
	if (text && write_file(path, text))
		return -1;
	return capture_stderr(tmp, "records", record_read_cb, h, record_msg,
			      sizeof(record_msg));
}

static void test_record(const char *tmp)
{
	static const char *const keys[] = {
		"dev", "port", "admin", "oper", "lanes", "max_lanes", "speed",
		"crc_errors", "replays", "recoveries", "down_events",
		"tx_bytes", "rx_bytes", "ber", "ber_e18", "ber_threshold",
		"ber_threshold_e18", "ber_alarm", "counters_age",
	};
	struct snode_link_info li[2] = {
		{ .dev_name = "snode1", .port = 3, .admin_state = 1,
		  .oper_state = SNODE_LINK_OPER_STATE_DEGRADED, .lanes = 2,
		  .max_lanes = 4, .speed = 25, .crc_errors = 10, .replays = 12,
		  .recoveries = 1, .down_events = 2, .tx_bytes = 1ULL << 40,
		  .rx_bytes = 5, .ber = 1500000, .ber_threshold = 1000000,
		  .ber_alarm = 1 },
		{ .dev_name = "snode0", .port = 0, .admin_state = 1,
		  .oper_state = SNODE_LINK_OPER_STATE_UP, .lanes = 4,
		  .max_lanes = 4, .speed = 25, .crc_errors = UINT64_MAX },
	};
	struct json_object *rec, *j, *l0;
	char *line1, *line2, *text;
	struct record_file h;
	unsigned int i;
	bool all = true;
	int ret;

	line1 = record_line(li, 2, 1794700800, "host-a");
	rec = line1 ? json_tokener_parse(line1) : NULL;
	ok(line1 && strchr(line1, '\n') == line1 + strlen(line1) - 1,
	   "record: one line, newline-terminated");
	ok(rec && json_object_object_get_ex(rec, "version", &j) &&
	   json_object_get_int(j) == TREND_RECORD_VERSION &&
	   json_object_object_get_ex(rec, "time", &j) &&
	   !strcmp(json_object_get_string(j), "2026-11-15T00:00:00Z") &&
	   json_object_object_get_ex(rec, "unix", &j) &&
	   json_object_get_int64(j) == 1794700800 &&
	   json_object_object_get_ex(rec, "host", &j) &&
	   !strcmp(json_object_get_string(j), "host-a"),
	   "record: version, RFC 3339 UTC time, unix seconds, host");
	l0 = NULL;
	if (rec && json_object_object_get_ex(rec, "links", &j) &&
	    json_object_array_length(j) == 2)
		l0 = json_object_array_get_idx(j, 0);
	for (i = 0; l0 && i < sizeof(keys) / sizeof(keys[0]); i++)
		all &= json_object_object_get_ex(l0, keys[i], NULL);
	ok(l0 && all && json_object_object_length(l0) ==
	   (int)(sizeof(keys) / sizeof(keys[0])),
	   "record: a link has exactly the %zu documented keys",
	   sizeof(keys) / sizeof(keys[0]));
	ok(l0 && json_object_object_get_ex(l0, "counters_age", &j) && !j &&
	   !json_object_object_get_ex(l0, "utilisation", NULL),
	   "record: counters_age null (not reported), no utilisation");
	ok(l0 && json_object_object_get_ex(l0, "oper", &j) &&
	   !strcmp(json_object_get_string(j), "degraded") &&
	   json_object_object_get_ex(l0, "ber", &j) &&
	   json_object_get_double(j) == 1.5e-12 &&
	   json_object_object_get_ex(l0, "ber_e18", &j) &&
	   json_object_get_uint64(j) == 1500000 &&
	   json_object_object_get_ex(l0, "tx_bytes", &j) &&
	   json_object_get_uint64(j) == 1ULL << 40,
	   "record: states by name, BER as a rate and in 1e-18 units, 64-bit counters");
	json_object_put(rec);

	/* an hour later, the crc counter of snode0/0 wrapped to 4 */
	li[0].crc_errors = 25;
	li[1].crc_errors = 4;
	line2 = record_line(li, 2, 1794700800 + 3600, "host-a");
	ret = -1;
	if (line1 && line2 && asprintf(&text, "%s%s", line1, line2) > 0) {
		ret = read_records(tmp, text, &h);
		free(text);
	}
	ok(ret == 0 && h.n == 2 && h.records == 2 && h.newest == 1794700800 + 3600,
	   "record: what diag writes, trend reads (2 records, 2 links)");
	if (!ret && h.n == 2) {
		qsort(h.links, h.n, sizeof(*h.links), record_link_cmp);
		ok(!strcmp(h.links[0].dev, "snode0") && h.links[1].port == 3 &&
		   !strcmp(h.links[1].host, "host-a") && h.links[1].n == 2 &&
		   h.links[1].s[1].crc_errors == 25 &&
		   h.links[1].s[1].ber == 1500000 &&
		   h.links[1].s[1].ber_threshold == 1000000 &&
		   h.links[0].s[0].crc_errors == UINT64_MAX &&
		   h.links[0].s[1].crc_errors == 4,
		   "record: samples per link, sorted by host, device, port");
	}
	record_free(&h);
	free(line1);
	free(line2);

	ret = read_records(tmp, "", &h);
	ok(ret == 0 && h.n == 0, "record: an empty file has no links");
	record_free(&h);
	ret = read_records(tmp, "{\"version\":1,\"unix\":5,\"host\":\"\",\"links\":[]}\n{\"version\":2}\n",
			   &h);
	ok(ret == TOOL_EXIT_USAGE && strstr(record_msg, "records.jsonl:2: format version 2 is unknown"),
	   "record: an unknown version is bad input (64), named FILE:2");
	record_free(&h);
	ret = read_records(tmp, "{\"version\":1,\"unix\":5,\"host\":\"h\",\"links\":[{\"dev\":\"snode0\",\"port\":0,\"crc_errors\":0,\"replays\":0,\"down_events\":0,\"ber_e18\":0,\"ber_threshold_e18\":0}]}\n"
			   "{\"version\":1,\"unix\":4,\"host\":\"h\",\"links\":[{\"dev\":\"snode0\",\"port\":0,\"crc_errors\":0,\"replays\":0,\"down_events\":0,\"ber_e18\":0,\"ber_threshold_e18\":0}]}\n",
			   &h);
	ok(ret == TOOL_EXIT_USAGE &&
	   strstr(record_msg, "records.jsonl:2: time 4 of h snode0/0 is not after line 1's (5)"),
	   "record: time going back for a link is bad input, named FILE:2");
	record_free(&h);
	ret = read_records(tmp, "{\"version\":1,\"unix\":5,\"host\":\"h\",\"links\":[{\"dev\":\"snode0\",\"port\":0,\"crc_errors\":0,\"replays\":0,\"down_events\":0,\"ber_e18\":0,\"ber_threshold_e18\":0}]}\n"
			   "{\"version\":1,\"unix\":5,\"host\":\"g\",\"links\":[{\"dev\":\"snode0\",\"port\":0,\"crc_errors\":0,\"replays\":0,\"down_events\":0,\"ber_e18\":0,\"ber_threshold_e18\":0}]}\n",
			   &h);
	ok(ret == 0 && h.n == 2, "record: the same link on two hosts is two links (merged files)");
	record_free(&h);
	ret = read_records(tmp, "{\"version\":1,\"unix\":5,\"host\":\"h\",\"links\":[]}", &h);
	ok(ret == 0 && h.records == 1, "record: a last line without its newline is whole");
	record_free(&h);
	ret = read_records(tmp, NULL, &h);
	ok(ret == SNODECTL_HEALTH_UNKNOWN && strstr(record_msg, "cannot open"),
	   "record: a file that cannot be read is unknown (3)");
	record_free(&h);
}

/* What baseline_read() said on stderr, for the tests of its messages */
static char baseline_msg[512];

static int baseline_read_cb(void *b)
{
	return baseline_read(b);
}

/*
 * Read @text as a baseline file (NULL: a file that does not exist):
 * baseline_read()'s status, entries in @b, its message in baseline_msg.
 */
static int read_baseline(const char *tmp, const char *text,
			 struct baseline_file *b)
{
	static char path[4096];

	snprintf(path, sizeof(path), "%s/base.jsonl", tmp);
	*b = (struct baseline_file){ .file = text ? path : "/nonexistent/base" };
	baseline_msg[0] = '\0';
	if (text && write_file(path, text))
		return -1;
	return capture_stderr(tmp, "base", baseline_read_cb, b, baseline_msg,
			      sizeof(baseline_msg));
}

static void test_sensor_values(void)
{
	static const struct {
		const char *s;
		long temp;		/* LONG_MIN: refused */
		long power;
	} cases[] = {
		{ "87.5", 87500, 87500000 },
		{ "0", 0, LONG_MIN },
		{ "-55", -55000, LONG_MIN },
		{ "-55.001", LONG_MIN, LONG_MIN },
		{ "150", 150000, 150000000 },
		{ "150.001", LONG_MIN, 150001000 },
		{ "1000", LONG_MIN, 1000000000 },
		{ "1000.001", LONG_MIN, LONG_MIN },
		{ "0.001", 1, 1000 },
		{ "7.25", 7250, 7250000 },
		{ "1.2345", LONG_MIN, LONG_MIN },
		{ "", LONG_MIN, LONG_MIN },
		{ "-", LONG_MIN, LONG_MIN },
		{ "1.", LONG_MIN, LONG_MIN },
		{ ".5", LONG_MIN, LONG_MIN },
		{ "1e2", LONG_MIN, LONG_MIN },
		{ "80C", LONG_MIN, LONG_MIN },
		{ " 80", LONG_MIN, LONG_MIN },
		{ "99999999999999999999999", LONG_MIN, LONG_MIN },
	};
	char why[128];
	unsigned int i;
	bool all = true;
	long v;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		int t = sensor_parse_temp(cases[i].s, &v, why, sizeof(why));
		bool good = cases[i].temp == LONG_MIN ? t == -1 && why[0] :
			    !t && v == cases[i].temp;
		int p = sensor_parse_power(cases[i].s, &v, why, sizeof(why));

		good = good && (cases[i].power == LONG_MIN ? p == -1 && why[0] :
				!p && v == cases[i].power);
		if (!good) {
			printf("# \"%s\": temp %d power %d (%s)\n", cases[i].s,
			       t, p, why);
			all = false;
		}
	}
	ok(all, "sensor limits: degrees and watts to m°C and µW, ranges -55..150 C and (0, 1000] W, at most 3 decimals");
	sensor_parse_temp("200", &v, why, sizeof(why));
	ok(!strcmp(why, "200 C is out of range (-55 to 150 C)"),
	   "sensor limits: an out-of-range temperature says the range (%s)", why);
	sensor_parse_power("0", &v, why, sizeof(why));
	ok(!strcmp(why, "0 W is out of range (above 0, at most 1000 W)"),
	   "sensor limits: power 0 says the range (%s)", why);
	ok(baseline_load_ok("idle") && baseline_load_ok("50%") &&
	   baseline_load_ok("stream-8x.v2+") && !baseline_load_ok("") &&
	   !baseline_load_ok("a b") && !baseline_load_ok("\"x\"") &&
	   baseline_load_ok("12345678901234567890123456789012") &&
	   !baseline_load_ok("123456789012345678901234567890123"),
	   "baseline: load labels of 1-32 of [A-Za-z0-9._%%+-]");
}

static void test_baseline_file(const char *tmp)
{
	struct baseline_entry e = {
		.id = { .serial = "SN-0007", .fabric = 6, .have_node = true,
			.node = 3 },
		.dev = "snode1", .load = "idle", .temp = 45000,
		.power = 12000000,
	};
	struct baseline_entry d = {
		.id = { .serial = "SN-0008" }, .dev = "snode0",
		.temp = -5500, .power = 1000,
	};
	struct json_object *o, *j;
	struct baseline_file b;
	char *l1, *l2, *text;
	int ret;

	l1 = baseline_line(&e, 1794700800, "host-a");
	l2 = baseline_line(&d, 1794700860, "host-a");
	o = l1 ? json_tokener_parse(l1) : NULL;
	ok(l1 && strchr(l1, '\n') == l1 + strlen(l1) - 1 && o &&
	   json_object_object_get_ex(o, "version", &j) &&
	   json_object_get_int(j) == BASELINE_VERSION &&
	   json_object_object_get_ex(o, "time", &j) &&
	   !strcmp(json_object_get_string(j), "2026-11-15T00:00:00Z") &&
	   json_object_object_get_ex(o, "serial", &j) &&
	   !strcmp(json_object_get_string(j), "SN-0007") &&
	   json_object_object_get_ex(o, "node", &j) && json_object_get_int(j) == 3 &&
	   json_object_object_get_ex(o, "temp_mC", &j) &&
	   json_object_get_int64(j) == 45000 &&
	   json_object_object_get_ex(o, "power_uW", &j) &&
	   json_object_get_int64(j) == 12000000,
	   "baseline: the writer's line is one JSON object with version, time, serial, node, temp_mC, power_uW");
	json_object_put(o);
	o = l2 ? json_tokener_parse(l2) : NULL;
	ok(o && json_object_object_get_ex(o, "node", &j) && !j &&
	   json_object_object_get_ex(o, "load", &j) && !j,
	   "baseline: a detached NIC's node and a missing load are null");
	json_object_put(o);

	text = NULL;
	if (l1 && l2 && asprintf(&text, "%s\n%s", l1, l2) < 0)
		text = NULL;
	ret = text ? read_baseline(tmp, text, &b) : -1;
	ok(!ret && b.n == 2 && !strcmp(b.e[0].id.serial, "SN-0007") &&
	   b.e[0].id.have_node && b.e[0].id.node == 3 &&
	   b.e[0].id.fabric == 6 && b.e[0].temp == 45000 &&
	   b.e[0].power == 12000000 && !strcmp(b.e[0].load, "idle") &&
	   !strcmp(b.e[0].dev, "snode1") && b.e[0].line == 1 &&
	   !b.e[1].id.have_node && b.e[1].temp == -5500 &&
	   !b.e[1].load[0] && b.e[1].line == 3,
	   "baseline: the reader reads the writer's lines back, blank lines skipped, line numbers kept");
	if (!ret)
		baseline_free(&b);
	free(text);
	free(l1);
	free(l2);

	{
		static const struct {
			const char *text, *msg;
		} bad[] = {
			{ "{\"version\":1,\"serial\":\"S\",\"temp_mC\":1,\"power_uW\":1}\n{\"version\":1,\"serial\":\"S\",\"power_uW\":1}\n",
			  ":2: field \"temp_mC\": missing or not a whole number" },
			{ "{\"version\":1,\"serial\":\"S\",\"temp_mC\":\"45\",\"power_uW\":1}\n",
			  ":1: field \"temp_mC\": missing or not a whole number" },
			{ "{\"version\":1,\"serial\":\"S\",\"temp_mC\":200000,\"power_uW\":1}\n",
			  ":1: field \"temp_mC\": 200000 out of range (-55000 to 150000)" },
			{ "{\"version\":1,\"serial\":\"S\",\"temp_mC\":1,\"power_uW\":0}\n",
			  ":1: field \"power_uW\": 0 out of range (1 to 1000000000)" },
			{ "{\"version\":2,\"serial\":\"S\",\"temp_mC\":1,\"power_uW\":1}\n",
			  ":1: field \"version\": 2, this snodectl reads version 1" },
			{ "{\"version\":1,\"temp_mC\":1,\"power_uW\":1}\n",
			  ":1: field \"serial\": missing" },
			{ "{\"version\":1,\"serial\":\"\",\"temp_mC\":1,\"power_uW\":1}\n",
			  ":1: field \"serial\": empty, and no \"node\" to name the NIC by" },
			{ "{\"version\":1,\"serial\":\"S\",\"node\":3,\"temp_mC\":1,\"power_uW\":1}\n",
			  ":1: field \"fabric\": missing or not a whole number" },
			{ "{\"version\":1,\"serial\":\"S\",\"load\":\"a b\",\"temp_mC\":1,\"power_uW\":1}\n",
			  ":1: field \"load\": \"a b\" is not a load label" },
			{ "{\"version\":1,\"serial\":7,\"temp_mC\":1,\"power_uW\":1}\n",
			  ":1: field \"serial\": not a string" },
			{ "\n\n{\"version\":1,\"serial\":\"S\",\n",
			  ":3: not JSON" },
			{ "{\"version\":1} {}\n", ":1: not one JSON object (column" },
			{ "[1,2]\n", ":1: not a JSON object" },
			{ "\n  \n", ": no baseline entries" },
		};
		unsigned int i;
		bool all = true;

		for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
			ret = read_baseline(tmp, bad[i].text, &b);
			if (ret != TOOL_EXIT_USAGE || b.n ||
			    !strstr(baseline_msg, bad[i].msg)) {
				printf("# case %u: %d %s", i, ret, baseline_msg);
				all = false;
			}
		}
		ok(all, "baseline: malformed lines are refused, exit 64, named by FILE:LINE and the field");
	}
	ret = read_baseline(tmp, NULL, &b);
	ok(ret == SNODECTL_HEALTH_UNKNOWN && strstr(baseline_msg, "cannot read baseline /nonexistent/base"),
	   "baseline: an unreadable file is unknown (3), said so");
}

static void test_baseline_rule(void)
{
	struct baseline_entry e[] = {
		{ .id = { .serial = "A" }, .load = "idle", .temp = 45000,
		  .power = 12000000, .line = 1 },
		{ .id = { .serial = "A" }, .load = "full", .temp = 70000,
		  .power = 24000000, .line = 2 },
		{ .id = { .serial = "B" }, .load = "idle", .temp = 40000,
		  .power = 10000000, .line = 3 },
		{ .id = { .serial = "", .have_node = true, .fabric = 6,
			  .node = 9 }, .temp = 30000, .power = 5000000,
		  .line = 4 },
		{ .id = { .serial = "A" }, .load = "idle2", .temp = 46000,
		  .power = 12000000, .line = 5 },
	};
	struct baseline_file b = { .file = "base.jsonl", .e = e, .n = 5 };
	struct baseline_id a = { .serial = "A", .have_node = true,
				 .fabric = 6, .node = 1 };
	struct baseline_id nine = { .have_node = true, .fabric = 6, .node = 9 };
	struct baseline_id other = { .serial = "Z" };
	struct baseline_cmp c;
	struct health_dev h;

	baseline_compare(&b, &a, 54000, 12000000, &c);
	ok(c.e == &e[4] && c.compared && c.delta == 8000 && !c.drift,
	   "baseline: the latest entry of the nearest power; exactly +8 C is no drift");
	baseline_compare(&b, &a, 54001, 12000000, &c);
	ok(c.compared && c.drift, "baseline: more than +8 C at the same power is drift");
	memset(&h, 0, sizeof(h));
	baseline_judge(&h, &b, &a, &c);
	ok(h.verdict == HEALTH_WARNING && h.nproblems == 1 &&
	   !strcmp(h.problems[0], "temperature drift: +8.0 C over baseline 46.0 C at 12.000 W (load idle2)"),
	   "baseline: drift is a warning that names the baseline (%s)", h.problems[0]);
	baseline_compare(&b, &a, 60000, 13200000, &c);
	ok(c.e == &e[4] && c.compared && c.drift,
	   "baseline: a power 10 %% above the entry's is still compared");
	baseline_compare(&b, &a, 60000, 13201000, &c);
	ok(c.e == &e[4] && !c.compared && !c.drift,
	   "baseline: a power more than 10 %% off is not compared, whatever the temperature");
	memset(&h, 0, sizeof(h));
	baseline_judge(&h, &b, &a, &c);
	ok(h.verdict == HEALTH_OK && !h.nproblems,
	   "baseline: not compared is no problem");
	baseline_compare(&b, &a, 75000, 23000000, &c);
	ok(c.e == &e[1] && c.compared && !c.drift && c.delta == 5000,
	   "baseline: under load the entry of that load counts (+30 C over idle is no drift at 23 W)");
	baseline_compare(&b, &a, 40000, 10800000, &c);
	ok(c.e == &e[4] && c.compared && !c.drift && c.delta < 0,
	   "baseline: cooler than the baseline is no drift");
	baseline_compare(&b, &nine, 39000, 5000000, &c);
	ok(c.e == &e[3] && c.drift,
	   "baseline: a NIC without a serial is found by fabric and node");
	baseline_compare(&b, &other, 45000, 12000000, &c);
	memset(&h, 0, sizeof(h));
	baseline_judge(&h, &b, &other, &c);
	ok(!c.e && h.verdict == HEALTH_WARNING &&
	   !strcmp(h.problems[0], "no baseline for serial Z in base.jsonl"),
	   "baseline: a NIC without an entry is a warning (%s)", h.problems[0]);
}

/* snode-perf ping echo's raw round trip reads these (trace.c). */
static void test_trace_parse(void)
{
	static const char *const good[] = {
		/* 6.1: four flag columns */
		"      snode-perf-123     [001] ....   812.000042: snode_msg_submit: snode0 to node 2 ep 0 from ep 5 len 8",
		/* 6.12: five, and a task name with a space and a colon */
		"     kworker/0:1 x-77      [000] d.h1.  812.000042: snode_msg_arrive: snode0 ep 5 waiting 1",
		/* an idle CPU in a hard interrupt */
		"          <idle>-0       [001] d.h2.  812.000042: snode_msg_recv: snode0 ep 5 from node 2 ep 0 len 8 seq 1",
	};
	static const char *const want[] = {
		"snode_msg_submit", "snode_msg_arrive", "snode_msg_recv",
	};
	char event[32];
	uint64_t ns;
	unsigned int i;

	for (i = 0; i < sizeof(good) / sizeof(good[0]); i++) {
		ns = 0;
		ok(!perf_trace_parse(good[i], &ns, event, sizeof(event)) &&
		   ns == 812000042000ULL && !strcmp(event, want[i]),
		   "trace line %u: %s at 812.000042 s", i, want[i]);
	}
	ok(perf_trace_parse("# tracer: nop", &ns, event, sizeof(event)) ==
	   -EINVAL, "trace: a comment is no event");
	ok(perf_trace_parse("# entries-in-buffer/entries-written: 0/0   #P:2",
			    &ns, event, sizeof(event)) == -EINVAL,
	   "trace: the header is no event");
	ok(perf_trace_parse("garbage [0] 1.5: x", &ns, event, sizeof(event)) ==
	   -EINVAL, "trace: a time without six decimals is no event");
	ok(perf_trace_parse(good[0], &ns, event, 8) == -EINVAL,
	   "trace: an event name longer than the room is refused");
}

static void test_scrub(void)
{
	const uint64_t keys[] = { 0x5eedc0ffee123457ULL, 0x5100, 0 };
	unsigned int red = 99;
	char *s;

	s = scrub_text("export 3 key 0x5eedc0ffee123457 nodes all\n", keys, 3, &red);
	ok(s && !strcmp(s, "export 3 key REDACTED nodes all\n") && red == 1,
	   "scrub: a debugfs key 0x%%016llx (%s)", s);
	free(s);
	s = scrub_text("{ \"key\": \"5eedc0ffee123457\", \"node\": 1 }", keys, 3, &red);
	ok(s && !strcmp(s, "{ \"key\": \"REDACTED\", \"node\": 1 }") && red == 1,
	   "scrub: a JSON key string (%s)", s);
	free(s);
	s = scrub_text("handle snode:v1:1:0:5EEDC0FFEE123457 dec 6840335614489015383 x\n",
		       keys, 3, &red);
	ok(s && !strcmp(s, "handle snode:v1:1:0:REDACTED dec REDACTED x\n") && red == 2,
	   "scrub: a known key in upper case and in decimal, unlabelled (%s)", s);
	free(s);
	s = scrub_text("key=0x0000000000005100 n 15100 51000 5100\n", keys, 3, &red);
	ok(s && !strcmp(s, "key=REDACTED n 15100 51000 REDACTED\n") && red == 2,
	   "scrub: a short key only as a whole word (%s)", s);
	free(s);
	s = scrub_text("KEY: 0xdeadbeef, monkey 1234 keys 77 SNODE_ENTRY_KEY 5\n",
		       NULL, 0, &red);
	ok(s && !strcmp(s, "KEY: REDACTED, monkey 1234 keys 77 SNODE_ENTRY_KEY 5\n") &&
	   red == 1, "scrub: an unknown value after \"key\", not after monkey/keys/_KEY (%s)", s);
	free(s);
	s = scrub_text("key none, key 0x, done", NULL, 0, &red);
	ok(s && !strcmp(s, "key none, key 0x, done") && red == 0,
	   "scrub: no value after key: nothing taken (%s)", s);
	free(s);
	s = scrub_text("", keys, 3, &red);
	ok(s && !*s && red == 0, "scrub: empty text");
	free(s);
}

static void test_parse_nodes(void)
{
	uint32_t n[8];
	int r;

	r = scrub_parse_nodes("1,3,5-7", n, 8, 256);
	ok(r == 5 && n[0] == 1 && n[1] == 3 && n[2] == 5 && n[4] == 7,
	   "nodes: 1,3,5-7 is 5 nodes (%d)", r);
	ok(scrub_parse_nodes("2", n, 8, 256) == 1 && n[0] == 2, "nodes: one node");
	ok(scrub_parse_nodes("", n, 8, 256) == -EINVAL, "nodes: empty refused");
	ok(scrub_parse_nodes("1,,2", n, 8, 256) == -EINVAL, "nodes: 1,,2 refused");
	ok(scrub_parse_nodes("1,", n, 8, 256) == -EINVAL, "nodes: trailing comma refused");
	ok(scrub_parse_nodes("3-1", n, 8, 256) == -EINVAL, "nodes: a falling range refused");
	ok(scrub_parse_nodes("a", n, 8, 256) == -EINVAL, "nodes: a word refused");
	ok(scrub_parse_nodes("-1", n, 8, 256) == -EINVAL, "nodes: a negative refused");
	ok(scrub_parse_nodes("1,1", n, 8, 256) == -EEXIST, "nodes: a node twice refused");
	ok(scrub_parse_nodes("300", n, 8, 256) == -ERANGE, "nodes: past the limit refused");
	ok(scrub_parse_nodes("0-8", n, 8, 256) == -E2BIG, "nodes: more than max refused");
}

static int baseline_from(const char *text, struct perf_baseline *b, char *err)
{
	FILE *f = fmemopen((void *)text, strlen(text), "r");
	int r;

	if (!f)
		return -ENOMEM;
	err[0] = '\0';
	r = perf_baseline_parse(f, b, err, 160);
	fclose(f);
	return r;
}

static void test_baseline(void)
{
	static struct perf_baseline b;
	const struct perf_baseline_entry *e;
	char err[160];
	int r;

	r = baseline_from("# comment\n\nsnode0 0 812.5\nsnode0 1 790 # p1\n", &b, err);
	e = perf_baseline_find(&b, "snode0", 1);
	ok(!r && b.n == 2 && e && e->mbs == 790 && !perf_baseline_find(&b, "snode1", 0),
	   "baseline: two links read, comments skipped (%d %s)", r, err);
	r = baseline_from("snode0 0 10\nsnode0 x 10\n", &b, err);
	ok(r == -EINVAL && b.n == 0 && !strcmp(err, "line 2: malformed (want DEV PORT MB/S, e.g. \"snode0 1 812.5\")"),
	   "baseline: a malformed line named, nothing kept (%s)", err);
	r = baseline_from("snode0 0 10 extra\n", &b, err);
	ok(r == -EINVAL && strstr(err, "line 1: malformed"), "baseline: trailing words refused (%s)", err);
	r = baseline_from("eth0 0 10\n", &b, err);
	ok(r == -EINVAL && strstr(err, "line 1: malformed"), "baseline: not a snode device refused (%s)", err);
	r = baseline_from("snode0 0 -5\n", &b, err);
	ok(r == -EINVAL && !strcmp(err, "line 1: impossible bandwidth -5 MB/s"),
	   "baseline: a negative bandwidth refused (%s)", err);
	r = baseline_from("snode0 0 nan\n", &b, err);
	ok(r == -EINVAL && strstr(err, "impossible bandwidth"), "baseline: NaN refused (%s)", err);
	r = baseline_from("snode0 0 1\nsnode0 0 2\n", &b, err);
	ok(r == -EINVAL && !strcmp(err, "line 2: snode0 port 0 given twice"),
	   "baseline: a link twice refused (%s)", err);
	ok(perf_baseline_ok(80, 100, 20) && !perf_baseline_ok(79.9, 100, 20) &&
	   perf_baseline_ok(500, 100, 0) && !perf_baseline_ok(99, 100, 0),
	   "baseline: within the tolerance below passes, past it fails, above passes");
}

int main(int argc, char **argv)
{
	if (argc != 2) {
		fprintf(stderr, "usage: %s TMPDIR\n", argv[0]);
		return 2;
	}
	test_lookup();
	test_numbers();
	test_split();
	test_print();
	test_handles();
	test_ber();
	test_link_verdict();
	test_link_isolation();
	test_link_rates();
	test_health();
	test_common_cause();
	test_health_levels();
	test_errmsg();
	test_trend_rates();
	test_trend_reset();
	test_trend_slope();
	test_trend_rising();
	test_trend_threshold();
	test_trend_edges();
	test_trend_duration();
	test_record(argv[1]);
	test_sensor_values();
	test_baseline_file(argv[1]);
	test_baseline_rule();
	test_discovery(argv[1]);
	test_trace_parse();
	test_scrub();
	test_parse_nodes();
	test_baseline();
	printf("1..%d\n", test_n);
	return test_failed ? 1 : 0;
}
