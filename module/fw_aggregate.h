/* SPDX-License-Identifier: GPL-2.0 */
/*
 * fw_aggregate.h - aggregation mode's interface and its hot path: the
 * compare with the chain counted last, inlined into fw_hit.c's walk, and
 * the call into fw_aggregate.c for any other chain.
 */
#ifndef FW_AGGREGATE_H
#define FW_AGGREGATE_H

#include "framewalk.h"

/*
 * One distinct chain in an aggregation table. count is 0 while the slot is
 * free and is published last: a reader that sees it non-zero sees the key.
 */
struct fw_agg_chain {
	u64 count;
	unsigned long ip;		/* the traced function */
	unsigned long parent_ip;	/* return address into its caller */
	u32 hash;
	u32 words;			/* its ancestors, then user frames, in the words */
	u32 shape;			/* fw_agg_shape(): frame counts and stops */
	u32 nth;			/* its place in order of first hit: its time's */
};

/* Log2 buckets of a chain's durations: [0], [1], [2, 4) ... and the last open. */
#define FW_LAT_BUCKETS	40

/*
 * The durations charged to one chain (latency mode). A call may return on
 * another CPU than the one whose table holds its chain: every field is
 * atomic, where the count beside it has a single writer. min is kept as
 * U64_MAX - min, so that 0 means "none yet" and both bounds grow by the
 * same compare-and-swap.
 */
struct fw_agg_time {
	atomic64_t calls;
	atomic64_t total;
	atomic64_t min_inv;
	atomic64_t max;
	atomic_t hist[FW_LAT_BUCKETS];
};

extern bool fw_aggregate;
extern bool fw_agg_paused;
extern bool fw_latency;
extern unsigned int fw_agg_gen;
DECLARE_STATIC_KEY_FALSE(fw_latency_on);
DECLARE_STATIC_KEY_FALSE(fw_exit_hooked);

/**
 * fw_agg_on() - whether hits are counted now
 *
 * Latency mode counts too: a chain's durations sit beside its count. Its
 * switch is a patched branch, so that the common hit pays nothing for it.
 *
 * Return: true if the aggregate parameter or latency mode is on and no
 * clear is under way.
 */
static __always_inline bool fw_agg_on(void)
{
	return (READ_ONCE(fw_aggregate) || static_branch_unlikely(&fw_latency_on)) &&
	       !READ_ONCE(fw_agg_paused);
}

int fw_agg_init(struct fw_cpu __percpu *pcpu, struct dentry *dir);
void fw_agg_exit(void);
int fw_agg_time_alloc(void);
struct fw_agg_chain *fw_agg_count(struct fw_agg_table *t, unsigned long ip,
				  unsigned long parent_ip, const fw_u64 *ancestors, u32 shape,
				  const struct fw_user_chain *u, struct fw_stats *stats);

/**
 * fw_agg_shape() - a chain's frame counts and stops in one word
 * @nr: the number of ancestors
 * @stop: how the kernel walk ended, enum fw_stop
 * @u: the user frames, NULL on the path where user=0 has patched the user
 *	walk out
 *
 * In one word so that the common compare of a hit with the chain counted
 * last tests them at once.
 *
 * Return: the shape, taken apart by the fw_agg_shape_*() macros.
 */
static __always_inline u32 fw_agg_shape(unsigned int nr, unsigned int stop,
					const struct fw_user_chain *u)
{
	if (!u)
		return nr | stop << 8 | FW_STOP_USER_OFF << 24;
	return nr | stop << 8 | u->nr << 16 | u->stop << 24;
}

#define fw_agg_shape_nr(shape)		((shape) & 0xff)
#define fw_agg_shape_stop(shape)	((shape) >> 8 & 0xff)
#define fw_agg_shape_nr_user(shape)	((shape) >> 16 & 0xff)
#define fw_agg_shape_user_stop(shape)	((shape) >> 24)

/**
 * fw_agg_words_same() - whether two runs of frame words are equal
 * @stored: the words a table keeps
 * @words: the hit's
 * @nr: how many
 *
 * Return: true if the @nr words at @stored are those at @words.
 */
static __always_inline bool fw_agg_words_same(const unsigned long *stored,
					      const fw_u64 *words, unsigned int nr)
{
	const fw_u64 *end;

	/*
	 * Four words per step, their differences or-ed into one test: paired
	 * loads and one branch per four words, where a word at a time cost a
	 * load, a compare and a branch each (7 instructions a word; two words
	 * a step, 5.5).
	 */
	for (end = words + (nr & ~3u); words != end; stored += 4, words += 4)
		if ((stored[0] ^ words[0]) | (stored[1] ^ words[1]) |
		    (stored[2] ^ words[2]) | (stored[3] ^ words[3]))
			return false;
	for (end = words + (nr & 3u); words != end; stored++, words++)
		if (*stored != *words)
			return false;
	return true;
}

/**
 * fw_agg_same() - whether a table's chain is this hit's
 * @t: the table
 * @c: the chain in it
 * @ip: the hit's traced function
 * @parent_ip: its return address into the caller
 * @ancestors: the return addresses above, innermost first
 * @nr: how many, also in @shape
 * @shape: fw_agg_shape() of the hit
 * @u: the user frames, NULL where user=0
 *
 * The key first, then the ancestors and the user frames. @nr is passed
 * besides @shape: taken apart, the compare of the ancestors kept its paired
 * loads (with nr unpacked from shape here, the counted hit of user=0 paid 8
 * instructions more at depth 16).
 *
 * Return: true if @c holds the hit's chain.
 */
static __always_inline bool fw_agg_same(const struct fw_agg_table *t,
					const struct fw_agg_chain *c,
					unsigned long ip, unsigned long parent_ip,
					const fw_u64 *ancestors, unsigned int nr, u32 shape,
					const struct fw_user_chain *u)
{
	const unsigned long *stored = t->words + c->words;

	if (!c->count || c->ip != ip || c->parent_ip != parent_ip || c->shape != shape)
		return false;
	if (!fw_agg_words_same(stored, ancestors, nr))
		return false;
	return !u || fw_agg_words_same(stored + nr, u->frames, u->nr);
}

/**
 * fw_agg_hit() - count a hit's chain
 * @t: the table of the running CPU and context
 * @ip: the traced function
 * @parent_ip: its return address into the caller
 * @ancestors: the return addresses above, innermost first
 * @nr: how many
 * @stop: how the kernel walk ended
 * @u: the user frames, NULL where user=0
 * @stats: the context's counters
 *
 * A hot function mostly repeats its last chain: that one compare and the
 * count are inline on the walk's path, and only another chain pays the call,
 * the hash and the probe of fw_agg_count().
 *
 * Return: the chain counted, NULL where the table had no room for it.
 */
static __always_inline struct fw_agg_chain *
fw_agg_hit(struct fw_agg_table *t, unsigned long ip, unsigned long parent_ip,
	   const fw_u64 *ancestors, unsigned int nr, unsigned int stop,
	   const struct fw_user_chain *u, struct fw_stats *stats)
{
	struct fw_agg_chain *c = &t->slots[t->last];
	u32 shape = fw_agg_shape(nr, stop, u);

	if (likely(fw_agg_same(t, c, ip, parent_ip, ancestors, nr, shape, u))) {
		WRITE_ONCE(c->count, c->count + 1);
		stats->aggregated++;
		return c;
	}
	return fw_agg_count(t, ip, parent_ip, ancestors, shape, u, stats);
}

#endif /* FW_AGGREGATE_H */
