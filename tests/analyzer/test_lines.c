// SPDX-License-Identifier: GPL-2.0
/*
 * test_lines.c - crashwalk's own line-program reader against libdw's rows, at
 * every halfword of the code of the firmware images named on the command line
 * (the crash corpus and the RTOS firmware): file and line must be the same
 * wherever either answers.
 *
 * usage: test_lines FW.elf...
 */
#include "cw_test.h"
#include "image/cw_image_impl.h"

static unsigned int nr_images, nr_compared, nr_answered, nr_differ, nr_units, nr_own;

static void check_image(const char *path)
{
	struct cw_error err = { 0 };
	struct cw_image *img = cw_image_open(path, &err);
	unsigned int i;

	if (!img) {
		printf("# %s\n", err.msg);
		nr_differ++;
		return;
	}
	nr_images++;
	for (i = 0; i < img->nr_exec; i++) {
		uint32_t a;

		for (a = img->exec[i].addr; a < img->exec[i].addr + img->exec[i].size; a += 2) {
			struct cw_srcline own = { 0 }, dw = { 0 };
			int r1 = cw_image_srcline(img, a, &own);
			int r2 = cw_image_srcline_libdw(img, a, &dw);

			nr_compared++;
			nr_answered += !r2;
			if (r1 != r2 || (!r1 && (own.line != dw.line || strcmp(own.file, dw.file)))) {
				if (nr_differ++ < 10)
					printf("# %s 0x%08x: own %d %s:%d, libdw %d %s:%d\n", path, a,
					       r1, r1 ? "-" : own.file, own.line, r2,
					       r2 ? "-" : dw.file, dw.line);
			}
		}
	}
	for (i = 0; i < img->nr_cus; i++) {
		nr_units++;
		nr_own += img->cus[i].lines.state > 0;
	}
	cw_image_close(img);
}

static void compared(void)
{
	KTAP_EXPECT(nr_images > 0 && nr_answered > 0, "nothing compared");
}

static void own_reader_equals_libdw(void)
{
	KTAP_EXPECT(!nr_differ, "%u of %u addresses differ", nr_differ, nr_compared);
}

/* Every unit of these images is one the reader takes: none left to libdw. */
static void own_reader_read_every_unit(void)
{
	KTAP_EXPECT(nr_own == nr_units, "%u of %u units left to libdw", nr_units - nr_own, nr_units);
}

int main(int argc, char **argv)
{
	int i;

	ktap_header("crashwalk-lines");
	for (i = 1; i < argc; i++)
		check_image(argv[i]);
	printf("# %u images, %u units, %u addresses, %u with a line\n", nr_images, nr_units,
	       nr_compared, nr_answered);
	KTAP_RUN(compared);
	KTAP_RUN(own_reader_read_every_unit);
	KTAP_RUN(own_reader_equals_libdw);
	return ktap_finish();
}
