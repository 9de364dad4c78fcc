/* SPDX-License-Identifier: GPL-2.0 */
/*
 * cw_cli.h - what the crashwalk program (cli/main.c) shares with its
 * subcommands, a file each.
 */
#ifndef CW_CLI_H
#define CW_CLI_H

#include <stddef.h>

/*
 * crashwalk's subcommands: the one list of them. Each line X(name, "ARGS") is
 * a file cli/cw_cmd_name.c, which defines cw_cmd_name(argc, argv) (argv[0]
 * the subcommand's name, its status the program's), and the usage line
 * "crashwalk name ARGS" of --help. A new subcommand is its file and its line
 * here.
 */
#define CW_SUBCOMMANDS(X)						\
	X(summary, "[--json] [REPORTS...]")

#define CW_CMD_(name, args)	int cw_cmd_##name(int argc, char **argv);
CW_SUBCOMMANDS(CW_CMD_)
#undef CW_CMD_

/*
 * Call fn for each line of the file at name ("-": standard input), with its
 * number; what names the option or command in the error an unreadable file
 * gets. A file whose first bytes are binary (a crash dump, an ELF file) is
 * refused there in one error, which says what was expected instead. 1 when
 * the file cannot be read or is refused, else the OR of what fn returned.
 */
int cw_each_line(const char *name, const char *what, const char *expected,
		 int (*fn)(void *ctx, char *line, size_t n, unsigned int lineno), void *ctx);

#endif /* CW_CLI_H */
