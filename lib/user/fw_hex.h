/* SPDX-License-Identifier: GPL-2.0 */
/*
 * fw_hex.h - bytes as lowercase hex, the form build-ids are named by in both tools.
 */
#ifndef FW_HEX_H
#define FW_HEX_H

#include <stddef.h>

/*
 * The first len bytes of b as lowercase hex into buf, NUL-terminated: as many
 * bytes as fit in size (2 per byte, 1 for the NUL). Returns buf.
 */
char *fw_hex(const unsigned char *b, size_t len, char *buf, size_t size);

#endif /* FW_HEX_H */
