/* SPDX-License-Identifier: GPL-2.0 */
/*
 * fw_folded.h - the folded-stack line, defined once for the module and the CLI.
 *
 * "elem;elem;...;elem COUNT": flamegraph.pl, inferno and framewalk
 * flamegraph read it. The module writes it (debugfs folded and chains) with
 * seq_file and kallsyms, the CLI with its symbol tables; both lay a chain
 * out through fw_folded_chain(),
 * so the order, the stop boxes and the marks cannot drift apart.
 */
#ifndef FW_FOLDED_H
#define FW_FOLDED_H

#include "fw_walk.h"

/* Between the elements of a line; the count follows the last after a space. */
#define FW_FOLDED_SEP		';'
#define FW_FOLDED_SEP_STR	";"
/* After a user frame's name, as flame graph tools mark kernel frames _[k]. */
#define FW_FOLDED_USER_MARK	"_[u]"
/* A stop as an element: "[off_stack]", grey in framewalk flamegraph. */
#define FW_FOLDED_STOP_FMT	"[%s]"

/*
 * Where a line's elements go. stop() writes a stop's box, user() user frame
 * i (0 the user pc), kernel() kernel frame i (0 the traced function, 1 its
 * parent, 2 on the ancestors); sep() goes between two of them.
 */
struct fw_folded_ops {
	void (*stop)(void *ctx, unsigned int stop);
	void (*user)(void *ctx, unsigned int i);
	void (*kernel)(void *ctx, unsigned int i);
	void (*sep)(void *ctx);
};

/* An element of the line, after a separator unless it opens the line. */
static inline void fw_folded_elem(const struct fw_folded_ops *ops, void *ctx, int *first,
				  void (*elem)(void *ctx, unsigned int v), unsigned int v)
{
	if (!*first)
		ops->sep(ctx);
	*first = 0;
	elem(ctx, v);
}

/* A part: its stop's box where boxed, then frame() for nr frames, outermost first. */
static inline void fw_folded_part(const struct fw_folded_ops *ops, void *ctx, int *first,
				  unsigned int stop, int boxed,
				  void (*frame)(void *ctx, unsigned int i), unsigned int nr)
{
	if (boxed)
		fw_folded_elem(ops, ctx, first, ops->stop, stop);
	while (nr-- > 0)
		fw_folded_elem(ops, ctx, first, frame, nr);
}

/*
 * One chain's elements, outermost first: the user part (where user frames
 * were walked), from the outermost user frame to the pc, then the kernel's,
 * from the outermost ancestor to the traced function; each part after its
 * stop's box. In folded (all_stops 0) a part has its box only where its walk
 * was cut short (fw_stop_cut_short), so that a flame graph roots it at where
 * the unwinding gave up; the chains file, which programs read back, boxes
 * every stop (all_stops 1). nr_kernel counts the child and parent too.
 */
static inline void fw_folded_chain(const struct fw_folded_ops *ops, void *ctx,
				   unsigned int nr_kernel, unsigned int stop,
				   unsigned int nr_user, unsigned int user_stop,
				   int all_stops)
{
	int first = 1;

	if (nr_user)
		fw_folded_part(ops, ctx, &first, user_stop,
			       all_stops || fw_stop_cut_short(user_stop), ops->user, nr_user);
	fw_folded_part(ops, ctx, &first, stop, all_stops || fw_stop_cut_short(stop),
		       ops->kernel, nr_kernel);
}

#endif /* FW_FOLDED_H */
