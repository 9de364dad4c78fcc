// SPDX-License-Identifier: GPL-2.0
/*
 * fw_hex.c - bytes as lowercase hex: the build-id as debuginfod, the
 * .build-id directories and framewalk's recordings name it.
 */
#include "fw_hex.h"

char *fw_hex(const unsigned char *b, size_t len, char *buf, size_t size)
{
	static const char digit[] = "0123456789abcdef";
	size_t i;

	if (!size)
		return buf;
	for (i = 0; i < len && 2 * i + 2 < size; i++) {
		buf[2 * i] = digit[b[i] >> 4];
		buf[2 * i + 1] = digit[b[i] & 0xf];
	}
	buf[2 * i] = 0;
	return buf;
}
