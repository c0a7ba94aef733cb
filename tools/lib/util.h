/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * What the snode tools share besides printing: error messages, command
 * words with unique-prefix abbreviations (iproute2's matches()), and
 * number and size arguments.
 */
#ifndef SNODE_TOOLS_UTIL_H
#define SNODE_TOOLS_UTIL_H

#include <stdbool.h>
#include <stdint.h>

/*
 * Exit status of a usage error (sysexits.h's EX_USAGE), distinct from a
 * command that ran and failed (1) and from snodectl health's verdicts.
 */
#define TOOL_EXIT_USAGE 64

/*
 * Messages go to stderr as "PROG: [WHERE: ]message"; WHERE is set while a
 * batch file runs ("FILE:LINE") and NULL otherwise.
 */
void tool_set_name(const char *prog);
void tool_set_where(const char *where);
/* Print an error; returns 1 (a failed command's exit status). */
int tool_err(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* Print an error; returns TOOL_EXIT_USAGE. */
int tool_usage_err(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* WORD is a prefix of FULL (at least one letter), as iproute2's matches(). */
bool tool_matches(const char *word, const char *full);

/*
 * Find WORD among NAMES (NULL-terminated, stride bytes apart so it walks a
 * table of structs whose first member is the name). An exact name wins;
 * otherwise a unique prefix. Entries that share an ID (aliases) count as
 * one. Returns the index, -1 if nothing matches, -2 if ambiguous; on -2,
 * @cands (if not NULL) receives "a, b, c".
 */
int tool_lookup(const char *word, const void *table, unsigned long stride,
		const int *ids, char *cands, unsigned long cands_len);
/*
 * As iproute2 looks up its objects and commands: an exact name wins,
 * otherwise the first entry in table order that WORD is a prefix of, so
 * that an abbreviation keeps its meaning when a command is added at the
 * end of a table. Returns the index or -1.
 */
int tool_lookup_first(const char *word, const void *table,
		      unsigned long stride);

/* Whole numbers: decimal, or 0x hex; no trailing junk, within [0, max]. */
int tool_parse_u64(const char *s, uint64_t max, uint64_t *out);
/*
 * A byte count with an optional K, M, G or T suffix (binary units, also
 * KiB and friends); 0 is allowed, overflow is not.
 */
int tool_parse_size(const char *s, uint64_t *out);

/*
 * Command-line options as iproute2 takes them: one or two dashes, any
 * unique prefix of the name ("-j", "-json", "--json"). @opts ends with a
 * NULL name; names start with '-'; entries with the same id are aliases.
 * A @keyword entry is also taken without its dash, as iproute2 takes its
 * keywords ("interval 2", "int 2"): the spelling snodectl(8) documents;
 * the dashed one ("--interval 2") stays for the scripts that use it.
 */
struct tool_opt {
	const char *name;
	int id;			/* >= 0 */
	bool has_arg;
	bool keyword;
};

/*
 * Take the next option off the front of argc and argv. Returns its id (with
 * *val set when it has an argument), -1 when the next word is not an
 * option (or none is left; "--" is taken off and ends the options), or -2
 * after printing a usage error. tool_opt_word() is the word as typed, for
 * messages that name it ("bad --since" or "bad since").
 */
int tool_next_opt(int *argc, char ***argv, const struct tool_opt *opts,
		  const char **val);
const char *tool_opt_word(void);

/*
 * Split a batch line into words: blanks separate, "double" or 'single'
 * quotes group, '#' starts a comment outside quotes. Modifies @line; puts
 * at most @max words into @argv. Returns the count, or -1 on an unclosed
 * quote or too many words.
 */
int tool_split_line(char *line, char **argv, int max);

#endif /* SNODE_TOOLS_UTIL_H */
