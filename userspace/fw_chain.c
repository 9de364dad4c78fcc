// SPDX-License-Identifier: GPL-2.0
/*
 * fw_chain.c - the chain printer of plugin_framewalk.so and of the framewalk
 * CLI: one layout, whatever the sink and the symbol table behind it.
 */
#include <stddef.h>	/* NULL, which fw_walk.h uses */

#include "../lib/fw_walk.h"
#include "fw_chain.h"
#include "fw_recording.h"

__attribute__((format(printf, 2, 3)))
static void fw_chain_print(const struct fw_chain_out *out, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	out->vprint(out->ctx, fmt, ap);
	va_end(ap);
}

/* " tramp=NAME" where the walk stopped at a trampoline it could not see behind. */
static void fw_chain_tramp(const struct fw_chain_out *out, unsigned int tramp)
{
	if (tramp != FW_TRAMP_NONE)
		fw_chain_print(out, " tramp=%s", fw_tramp_name(tramp));
}

void fw_chain_format(const struct fw_chain_out *out, const struct fw_chain *c)
{
	const char *sep = out->oneline ? " <- " : "\n => ";
	const char *stop = c->stop_name ? c->stop_name : fw_stop_name(c->stop);
	const char *user_stop = c->user_stop_name ? c->user_stop_name : fw_stop_name(c->user_stop);
	unsigned int i;

	fw_chain_print(out, "%s", out->bold ? "\033[1m" : "");
	out->sym(out->ctx, c->ip, 0);
	fw_chain_print(out, "%s", out->bold ? "\033[0m" : "");
	if (!out->oneline) {
		fw_chain_print(out, " nr_ancestors=%u stop=%s", c->nr_ancestors, stop);
		fw_chain_tramp(out, c->tramp);
		if (c->user_stop != FW_STOP_USER_OFF)
			fw_chain_print(out, " user_stop=%s", user_stop);
	}
	fw_chain_print(out, "%s", sep);
	out->sym(out->ctx, c->parent, 1);
	for (i = 0; i < c->nr_ancestors; i++) {
		fw_chain_print(out, "%s", sep);
		out->sym(out->ctx, c->ancestor(c->src, i), 1);
		/* The mask holds 64 bits; no chain the module writes is longer. */
		if (i < 64 && (c->recovered & (1ull << i)))
			fw_chain_print(out, " [recovered]");
	}
	/* Not through sym: the kernel's table does not cover user addresses. */
	for (i = 0; i < c->nr_user; i++) {
		unsigned long long addr = c->ancestor(c->src, c->user_first + i);

		fw_chain_print(out, "%s", sep);
		if (out->usym)
			out->usym(out->ctx, i, addr);
		else
			fw_chain_print(out, "0x%llx", addr);
		fw_chain_print(out, " [u%s]", i == 1 && c->user_lr ? " lr" : "");
	}
	if (out->oneline) {
		fw_chain_print(out, "   [%s", stop);
		fw_chain_tramp(out, c->tramp);
		if (c->user_stop != FW_STOP_USER_OFF)
			fw_chain_print(out, " %s", user_stop);
		fw_chain_print(out, "]");
	}
}

/* Ancestor i, or user frame i - nr_ancestors past them (user_first). */
static unsigned long long fw_event_ancestor(const void *src, unsigned int i)
{
	const struct fw_event *e = src;

	return i < e->nr_ancestors ? e->ancestors[i] : e->user[i - e->nr_ancestors];
}

void fw_chain_of_event(struct fw_chain *c, const struct fw_event *e)
{
	*c = (struct fw_chain) {
		.ip = e->ip, .parent = e->parent, .stop = e->stop, .tramp = e->tramp,
		.recovered = e->recovered, .nr_ancestors = e->nr_ancestors,
		.ancestor = fw_event_ancestor, .src = e, .user_stop = e->user_stop,
		.nr_user = e->nr_user, .user_first = e->nr_ancestors, .user_lr = e->user_lr,
	};
}
