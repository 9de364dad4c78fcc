// SPDX-License-Identifier: GPL-2.0
/*
 * framewalk.c - the framewalk command: parse the command line, hand the work
 * to one of record, stream, report, folded or top.
 */
#include <getopt.h>
#include <stdlib.h>
#include <string.h>

#include "fw_cli.h"

static const char fw_usage[] =
	"usage: framewalk record [-f FILTER] [-n NOTRACE] [-d DEPTH] [-k MODULE.ko] [-o FILE] [-- CMD...]\n"
	"       framewalk stream [-f FILTER] [-n NOTRACE] [-d DEPTH] [-k MODULE.ko] [-F] [-- CMD...]\n"
	"       framewalk report [-F] FILE\n"
	"       framewalk folded FILE\n"
	"       framewalk top [-n N] FILE\n"
	"See framewalk(1).\n";

static int fw_bad_usage(const char *why)
{
	if (why)
		fprintf(stderr, "framewalk: %s\n", why);
	fputs(fw_usage, stderr);
	return 2;
}

static int fw_cmd_record(int argc, char **argv, int stream)
{
	struct fw_record_opts o = { .depth = -1, .output = "framewalk.rec", .stream = stream };
	char *end;
	int c;

	while ((c = getopt(argc, argv, "+f:n:d:k:o:F")) != -1) {
		switch (c) {
		case 'f':
			o.filter = optarg;
			break;
		case 'n':
			o.notrace = optarg;
			break;
		case 'd':
			o.depth = (int)strtol(optarg, &end, 10);
			if (*end || o.depth < 0 || o.depth > 64)
				return fw_bad_usage("-d takes a depth from 0 to 64");
			break;
		case 'k':
			o.module = optarg;
			break;
		case 'o':
			o.output = optarg;
			break;
		case 'F':
			o.frames = 1;
			break;
		default:
			return fw_bad_usage(NULL);
		}
	}
	if (optind < argc)
		o.cmd = argv + optind;
	return fw_record(&o);
}

static int fw_cmd_file(int argc, char **argv, const char *cmd)
{
	struct fw_recording r;
	unsigned long limit = 20;
	char err[512], *end;
	int c, frames = 0, ret;

	while ((c = getopt(argc, argv, "Fn:")) != -1) {
		switch (c) {
		case 'F':
			frames = 1;
			break;
		case 'n':
			limit = strtoul(optarg, &end, 10);
			if (*end || !limit)
				return fw_bad_usage("-n takes a positive count");
			break;
		default:
			return fw_bad_usage(NULL);
		}
	}
	if (optind != argc - 1)
		return fw_bad_usage("name one recording file");
	if (fw_rec_read(argv[optind], &r, err, sizeof(err))) {
		fprintf(stderr, "framewalk: %s\n", err);
		return 1;
	}
	if (!strcmp(cmd, "report"))
		ret = fw_report(&r, stdout, frames);
	else if (!strcmp(cmd, "folded"))
		ret = fw_folded(&r, stdout);
	else
		ret = fw_top(&r, stdout, (unsigned int)limit);
	fw_rec_free(&r);
	return ret;
}

int main(int argc, char **argv)
{
	const char *cmd = argc > 1 ? argv[1] : "";

	if (!strcmp(cmd, "record") || !strcmp(cmd, "stream"))
		return fw_cmd_record(argc - 1, argv + 1, !strcmp(cmd, "stream"));
	if (!strcmp(cmd, "report") || !strcmp(cmd, "folded") || !strcmp(cmd, "top"))
		return fw_cmd_file(argc - 1, argv + 1, cmd);
	if (!strcmp(cmd, "-h") || !strcmp(cmd, "--help")) {
		fputs(fw_usage, stdout);
		return 0;
	}
	return fw_bad_usage(*cmd ? "unknown command" : "no command");
}
