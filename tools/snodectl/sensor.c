// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * DOC: snodectl's sensors: hwmon, dev set, sensor baseline record
 *
 * The NIC's temperature and power and their limits are the hwmon device
 * the driver registers under the PCI function (driver/hwmon.c), and
 * snodectl reads and writes them there: hwmon is the kernel's interface
 * for sensor limits, so there is one writer of them, the driver keeps
 * what was written across resets, and the files' mode makes changing
 * them root's (Documentation/decisions/0029-sensor-limits-through-hwmon.md).
 * snodectl checks the values first, since the driver clamps what is out
 * of range rather than refusing it.
 *
 * sensor baseline record appends the readings of each NIC, with its
 * identity from the netlink family, to a baseline file (baseline.c).
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "baseline.h"
#include "snodectl.h"

/* a class directory, the device's hwmon directory and a hwmonN in it */
#define SENSOR_PATH_MAX		1024

/* The hwmon directory of NIC @dev into @path; false if it has none. */
static bool sensor_hwmon_dir(const char *dev, char *path, size_t len)
{
	const char *class = getenv("SNODE_SYSFS");
	char dir[512];
	struct dirent *de;
	bool found = false;
	DIR *d;

	snprintf(dir, sizeof(dir), "%s/%s/device/hwmon",
		 class ? class : "/sys/class/snode", dev);
	d = opendir(dir);
	if (!d)
		return false;
	while (!found && (de = readdir(d))) {
		if (strncmp(de->d_name, "hwmon", 5))
			continue;
		snprintf(path, len, "%s/%s", dir, de->d_name);
		found = true;
	}
	closedir(d);
	return found;
}

int sensor_read(const char *dev, const char *file, long *val)
{
	char dir[SENSOR_PATH_MAX], path[SENSOR_PATH_MAX + 32];
	int found;
	FILE *f;

	if (!sensor_hwmon_dir(dev, dir, sizeof(dir)))
		return 0;
	snprintf(path, sizeof(path), "%s/%s", dir, file);
	f = fopen(path, "re");
	if (!f)
		return 0;
	found = fscanf(f, "%ld", val) == 1;
	fclose(f);
	return found;
}

void sensor_read_all(const char *dev, struct health_sensors *s)
{
	memset(s, 0, sizeof(*s));
	s->have_temp = sensor_read(dev, "temp1_input", &s->temp);
	s->have_power = sensor_read(dev, "power1_input", &s->power);
	if (s->have_temp) {
		s->have_temp_max = sensor_read(dev, "temp1_max", &s->temp_max);
		s->have_temp_crit = sensor_read(dev, "temp1_crit",
						&s->temp_crit);
	}
	if (s->have_power)
		s->have_power_max = sensor_read(dev, "power1_max",
						&s->power_max);
}

/* ------------------------------------------------------------------ */
/* dev set                                                             */

enum { SET_TEMP_MAX, SET_TEMP_CRIT, SET_POWER_MAX, SET_N };

static const struct {
	const char *word;
	const char *file;
	bool power;
} sensor_limits[SET_N] = {
	[SET_TEMP_MAX] = { "temp-max", "temp1_max", false },
	[SET_TEMP_CRIT] = { "temp-crit", "temp1_crit", false },
	[SET_POWER_MAX] = { "power-max", "power1_max", true },
};

static int sensor_write_limit(int fd, long val)
{
	char buf[32];
	int len = snprintf(buf, sizeof(buf), "%ld\n", val);
	ssize_t n;

	/* sysfs takes a whole value from offset 0 at each write */
	n = pwrite(fd, buf, len, 0);
	if (n == len)
		return 0;
	if (n >= 0)		/* short: say so, not the last errno */
		errno = EIO;
	return -1;
}

/* dev set DEV { temp-max C | temp-crit C | power-max W } ... */
int sensor_dev_set(struct snodectl *sc)
{
	long val[SET_N], now[SET_N], old[SET_N];
	bool given[SET_N] = { false };
	int fd[SET_N] = { -1, -1, -1 };
	const char *name = NULL, *word, *arg;
	char why[128], dir[SENSOR_PATH_MAX], path[SENSOR_PATH_MAX + 32];
	struct health_sensors s;
	struct snode_dev *dev;
	int i, ret = 0, argc;
	bool any = false;

	while (sc->argc > 0) {
		argc = sc->argc;
		ret = snodectl_dev_opt(sc, "dev", &name);
		if (ret)
			return ret;
		if (sc->argc != argc)
			continue;
		word = snodectl_arg_next(sc);
		for (i = 0; i < SET_N; i++)
			if (!strcmp(word, sensor_limits[i].word))
				break;
		if (i == SET_N)
			return snodectl_usage("dev", "dev set: unknown argument \"%s\" (temp-max, temp-crit or power-max)",
					      word);
		if (given[i])
			return snodectl_usage("dev", "dev set: %s given twice",
					      word);
		arg = snodectl_arg_next(sc);
		if (!arg)
			return snodectl_usage("dev", "dev set: %s needs a value in %s",
					      word, sensor_limits[i].power ?
					      "watts" : "degrees Celsius");
		if (sensor_limits[i].power ?
		    sensor_parse_power(arg, &val[i], why, sizeof(why)) :
		    sensor_parse_temp(arg, &val[i], why, sizeof(why)))
			return snodectl_usage("dev", "dev set: %s: %s", word,
					      why);
		given[i] = true;
		any = true;
	}
	if (!name)
		return snodectl_usage("dev", "dev set: which NIC? (dev set DEV temp-max C ...)");
	if (!any)
		return snodectl_usage("dev", "dev set: nothing to set: give temp-max, temp-crit or power-max");
	ret = snodectl_dev_resolve(sc, name, &dev);
	if (ret)
		return ret;
	name = snode_dev_get_name(dev);
	if (!sensor_hwmon_dir(name, dir, sizeof(dir)))
		return snodectl_err("dev set: %s has no sensors (no hwmon device: the NIC lacks CAP.SENSORS)",
				    name);

	/* the limits that stay as they are count for the checks too */
	for (i = 0; i < SET_N; i++) {
		if (!sensor_read(name, sensor_limits[i].file, &old[i]))
			return snodectl_err("dev set: %s: cannot read %s/%s",
					    name, dir, sensor_limits[i].file);
		now[i] = given[i] ? val[i] : old[i];
	}
	if (now[SET_TEMP_MAX] > now[SET_TEMP_CRIT])
		return tool_usage_err("dev set: %s: temp-max %.1f C would be above temp-crit %.1f C",
				      name, now[SET_TEMP_MAX] / 1000.0,
				      now[SET_TEMP_CRIT] / 1000.0);

	/* open every file first: a refusal then changes nothing */
	for (i = 0; i < SET_N && !ret; i++) {
		if (!given[i])
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir,
			 sensor_limits[i].file);
		fd[i] = open(path, O_WRONLY | O_CLOEXEC);
		if (fd[i] < 0)
			ret = snodectl_err("dev set: %s: cannot write %s: %s%s",
					   name, sensor_limits[i].word,
					   strerror(errno), errno == EACCES ?
					   " (root only)" : "");
	}
	for (i = 0; i < SET_N && !ret; i++) {
		if (given[i] && sensor_write_limit(fd[i], val[i])) {
			ret = snodectl_err("dev set: %s: writing %s failed: %s",
					   name, sensor_limits[i].word,
					   strerror(errno));
			break;
		}
	}
	/* a write refused half way (the NIC being reset): undo the others */
	while (ret && i-- > 0)
		if (given[i] && sensor_write_limit(fd[i], old[i]))
			snodectl_err("dev set: %s: could not restore %s to %ld",
				     name, sensor_limits[i].file, old[i]);
	for (i = 0; i < SET_N; i++)
		if (fd[i] >= 0)
			close(fd[i]);
	if (ret)
		return ret;

	/* what the driver holds now */
	sensor_read_all(name, &s);
	print_str("dev", "%s:", name);
	if (s.have_temp_max) {
		print_s64("temp_max", NULL, s.temp_max);
		print_text(" temp-max %.1f C", s.temp_max / 1000.0);
	}
	if (s.have_temp_crit) {
		print_s64("temp_crit", NULL, s.temp_crit);
		print_text(" temp-crit %.1f C", s.temp_crit / 1000.0);
	}
	if (s.have_power_max) {
		print_s64("power_max", NULL, s.power_max);
		print_text(" power-max %.3f W", s.power_max / 1e6);
	}
	print_nl();
	return 0;
}

/* ------------------------------------------------------------------ */
/* sensor baseline record                                              */

static void sensor_help(FILE *f)
{
	fprintf(f,
		"Usage: snodectl sensor baseline record FILE [ DEV ] [ load LABEL ]\n"
		"DEV := { snodeN | dev snodeN }\n"
		"LABEL := 1-32 of [A-Za-z0-9._%%+-], e.g. idle, 50%%, stream-8x\n"
		"Appends each NIC's temperature and power to FILE (\"-\": standard\n"
		"output); snodectl health --baseline FILE compares with it.\n");
}

/* One NIC's entry, or an exit status after a message. */
static int sensor_entry(struct snode_dev *dev, const char *load,
			struct baseline_entry *e)
{
	const char *name = snode_dev_get_name(dev);
	struct snode_dev_status st;
	int ret;

	memset(e, 0, sizeof(*e));
	if (!sensor_read(name, "temp1_input", &e->temp) ||
	    !sensor_read(name, "power1_input", &e->power))
		return snodectl_err("sensor baseline record: %s has no temperature and power sensors (CAP.SENSORS)",
				    name);
	if (e->power <= 0)
		return snodectl_err("sensor baseline record: %s reads no power draw: nothing to compare with later",
				    name);
	ret = snode_dev_get_status(dev, &st, sizeof(st));
	if (ret < 0)
		return snodectl_nl_err(name, ret);
	snprintf(e->dev, sizeof(e->dev), "%s", name);
	snprintf(e->id.serial, sizeof(e->id.serial), "%s", st.serial);
	e->id.fabric = st.fabric_id;
	e->id.have_node = st.node_id != SNODE_NODE_ID_NONE;
	e->id.node = st.node_id;
	snprintf(e->load, sizeof(e->load), "%s", load ? load : "");
	if (!e->id.serial[0] && !e->id.have_node)
		return snodectl_err("sensor baseline record: %s has neither a serial number nor a node id to be found by later",
				    name);
	return 0;
}

static int sensor_write(const char *file, const char *text)
{
	size_t len = strlen(text);
	ssize_t n;
	int fd, err = 0;

	if (!strcmp(file, "-"))
		fd = dup(STDOUT_FILENO);
	else
		fd = open(file, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC,
			  0644);
	if (fd < 0)
		return snodectl_err("sensor baseline record: cannot open %s: %s",
				    file, strerror(errno));
	/* all the NICs in one write(2), so that writers never interleave */
	n = write(fd, text, len);
	if (n < 0)
		err = errno;
	else if ((size_t)n != len)
		err = ENOSPC;
	if (close(fd) && !err)
		err = errno;
	if (err)
		return snodectl_err("sensor baseline record: writing %s failed: %s",
				    file, strerror(err));
	return 0;
}

static int sensor_baseline_record(struct snodectl *sc)
{
	const char *file, *name = NULL, *load = NULL;
	struct baseline_entry *e = NULL;
	unsigned int n = 0, i, ndev = 0;
	char host[256] = "", *text = NULL, *line, *t;
	struct snode_dev *dev, *only;
	size_t len = 0;
	int ret, argc;

	file = snodectl_arg_next(sc);
	if (!file || !*file)
		return snodectl_usage("sensor", "sensor baseline record: missing the baseline FILE");
	while (sc->argc > 0) {
		argc = sc->argc;
		ret = snodectl_dev_opt(sc, "sensor", &name);
		if (ret)
			return ret;
		if (sc->argc != argc)
			continue;
		if (strcmp(sc->argv[0], "load"))
			return snodectl_no_more(sc);
		snodectl_arg_next(sc);
		if (load)
			return snodectl_usage("sensor", "sensor baseline record: load given twice");
		load = snodectl_arg_next(sc);
		if (!load)
			return snodectl_usage("sensor", "sensor baseline record: load needs a LABEL (e.g. idle)");
		if (!baseline_load_ok(load))
			return snodectl_usage("sensor", "sensor baseline record: load \"%s\": a LABEL is 1-32 of A-Z a-z 0-9 . _ %% + -",
					      load);
	}
	ret = snodectl_dev_resolve(sc, name, &only);
	if (ret)
		return ret;
	snode_dev_foreach(sc->ctx, dev)
		ndev++;
	if (!ndev)
		return snodectl_err("no snode devices (is snode.ko loaded?)");
	e = calloc(ndev, sizeof(*e));
	if (!e)
		return snodectl_err("sensor baseline record: out of memory");
	snode_dev_foreach(sc->ctx, dev) {
		if ((only && dev != only) || n == ndev)
			continue;
		ret = sensor_entry(dev, load, &e[n]);
		if (ret)
			goto out;
		n++;
	}

	if (gethostname(host, sizeof(host) - 1))
		host[0] = '\0';
	for (i = 0; i < n; i++) {
		line = baseline_line(&e[i], time(NULL), host);
		t = line ? realloc(text, len + strlen(line) + 1) : NULL;
		if (!t) {
			free(line);
			ret = snodectl_err("sensor baseline record: out of memory");
			goto out;
		}
		text = t;
		strcpy(text + len, line);
		len += strlen(line);
		free(line);
	}
	if (!strcmp(file, "-")) {
		/* the lines are the output, with or without -j */
		print_flush(false);
		ret = sensor_write(file, text);
		goto out;
	}
	ret = sensor_write(file, text);
	if (ret)
		goto out;

	print_str("file", NULL, file);
	print_open_array("recorded");
	for (i = 0; i < n; i++) {
		print_open_object(NULL);
		print_str("dev", "%s:", e[i].dev);
		print_str("serial", " serial %s", e[i].id.serial);
		print_u64("fabric", NULL, e[i].id.fabric);
		if (e[i].id.have_node)
			print_u64("node", " node %llu", e[i].id.node);
		else
			print_null("node", NULL);
		print_s64("temp", NULL, e[i].temp);
		print_text(" %.1f C", e[i].temp / 1000.0);
		print_s64("power", NULL, e[i].power);
		print_text(" at %.3f W", e[i].power / 1e6);
		if (e[i].load[0])
			print_str("load", " (load %s)", e[i].load);
		else
			print_null("load", NULL);
		print_nl();
		print_close_object();
	}
	print_close_array();
	print_text("recorded in %s\n", file);
out:
	free(text);
	free(e);
	return ret;
}

static const struct snodectl_cmd baseline_cmds[] = {
	{ "record", sensor_baseline_record },
	{ NULL, NULL }
};

static int sensor_baseline(struct snodectl *sc)
{
	return snodectl_dispatch(sc, "sensor", baseline_cmds, sensor_help);
}

static const struct snodectl_cmd sensor_cmds[] = {
	{ "baseline", sensor_baseline },
	{ NULL, NULL }
};

int cmd_sensor(struct snodectl *sc)
{
	return snodectl_dispatch(sc, "sensor", sensor_cmds, sensor_help);
}
