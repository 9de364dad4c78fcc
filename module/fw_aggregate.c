// SPDX-License-Identifier: GPL-2.0
/*
 * fw_aggregate.c - framewalk's aggregation mode: count each distinct chain in
 * per-CPU, per-context hash tables, and print the merged counts in debugfs as
 * folded stacks (framewalk/folded) and raw addresses (framewalk/chains).
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/cpumask.h>
#include <linux/debugfs.h>
#include <linux/fs.h>
#include <linux/kallsyms.h>
#include <linux/minmax.h>
#include <linux/mm.h>
#include <linux/moduleparam.h>
#include <linux/mutex.h>
#include <linux/rcupdate.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/sort.h>
#include <linux/vmalloc.h>

#include "fw_aggregate.h"
#include "fw_folded.h"

/*
 * Count chains instead of (or as well as) writing events: one hash-table
 * update per hit, no ring buffer, nothing for userspace to fold. Counts
 * accumulate across toggles until folded is written.
 */
bool fw_aggregate;
module_param_named(aggregate, fw_aggregate, bool, 0644);
MODULE_PARM_DESC(aggregate, "Count chains in the kernel (debugfs framewalk/folded, chains)");

/*
 * Distinct chains each CPU can hold per context. The tables are allocated at
 * load, so a hit never allocates; a chain that finds no room is counted in
 * aggregate_dropped rather than evicting one that was counted before.
 */
static unsigned int fw_agg_entries = 4096;
module_param_named(aggregate_entries, fw_agg_entries, uint, 0444);
MODULE_PARM_DESC(aggregate_entries,
		 "Distinct chains per CPU and context, fixed at load (default 4096)");

#define FW_AGG_ENTRIES_MAX	(1024U * 1024)

/*
 * Ancestor words stored per chain on average: a table holds its entries at
 * the default depth; deeper chains share the same words, and a chain whose
 * ancestors no longer fit is dropped like one that finds no free entry.
 */
#define FW_AGG_WORDS_PER_CHAIN	16

/* Set while folded is cleared: hits then skip the tables, see fw_agg_clear(). */
bool fw_agg_paused;

/*
 * Which emptying of the tables a timed call's chain belongs to: a call that
 * returns after folded was cleared charges nothing (fw_latency.c), since its
 * chain's place may hold another chain by then.
 */
unsigned int fw_agg_gen;

/* Serialises readers' snapshots against clearing. */
static DEFINE_MUTEX(fw_agg_lock);
static struct fw_cpu __percpu *fw_agg_pcpu;

/*
 * Multiply-xor over the chain's words: a few cycles per frame, and the high
 * half of the product mixes every bit of the return addresses into the index.
 */
static __always_inline u32 fw_agg_hash(unsigned long ip, unsigned long parent_ip,
				       const fw_u64 *ancestors, u32 shape,
				       const struct fw_user_chain *u)
{
	u64 h = (u64)shape * 0x9e3779b97f4a7c15ULL;
	unsigned int i;

	h = (h ^ ip) * 0x9e3779b97f4a7c15ULL;
	h = (h ^ parent_ip) * 0x9e3779b97f4a7c15ULL;
	for (i = 0; i < fw_agg_shape_nr(shape); i++)
		h = (h ^ ancestors[i]) * 0x9e3779b97f4a7c15ULL;
	for (i = 0; u && i < u->nr; i++)
		h = (h ^ u->frames[i]) * 0x9e3779b97f4a7c15ULL;
	return (u32)(h >> 32);
}

/**
 * fw_agg_count() - count a chain that is not the one counted last
 * @t: the table of the running CPU and context
 * @ip: the traced function
 * @parent_ip: the return address into its caller
 * @ancestors: the return addresses above it, innermost first
 * @shape: the frame counts and stops, fw_agg_shape()
 * @u: the user frames, NULL where user=0 patched the user walk out
 * @stats: the context's counters: aggregated or aggregate_dropped
 *
 * fw_agg_hit() tried the chain counted last. The only writer of @t is the
 * holder of that context's recursion lock: plain stores. A new chain's key
 * is written before its count is published with a release, so a reader that
 * sees a non-zero count sees the whole key. The table is at most half full,
 * so a probe always ends at the chain or an empty slot.
 *
 * Return: the chain counted, NULL where the table had no room for it.
 */
struct fw_agg_chain *fw_agg_count(struct fw_agg_table *t, unsigned long ip,
				  unsigned long parent_ip, const fw_u64 *ancestors, u32 shape,
				  const struct fw_user_chain *u, struct fw_stats *stats)
{
	unsigned int i, k, nr = fw_agg_shape_nr(shape), nr_user = u ? u->nr : 0;
	struct fw_agg_chain *c;
	unsigned long *w;
	u32 hash;

	hash = fw_agg_hash(ip, parent_ip, ancestors, shape, u);
	for (i = hash & t->mask;; i = (i + 1) & t->mask) {
		c = &t->slots[i];
		if (!c->count)
			break;
		if (c->hash == hash && fw_agg_same(t, c, ip, parent_ip, ancestors, nr, shape, u)) {
			t->last = i;
			goto found;
		}
	}
	if (t->used == fw_agg_entries || t->nr_words - t->used_words < nr + nr_user) {
		stats->aggregate_dropped++;
		return NULL;
	}
	c->hash = hash;
	c->ip = ip;
	c->parent_ip = parent_ip;
	c->shape = shape;
	c->words = t->used_words;
	c->nth = t->used;
	w = t->words + t->used_words;
	for (k = 0; k < nr; k++)
		*w++ = ancestors[k];
	for (k = 0; k < nr_user; k++)
		*w++ = u->frames[k];
	t->used++;
	t->used_words += nr + nr_user;
	t->last = i;
	/* Pairs with the acquire in fw_agg_snapshot(): the key is visible first. */
	smp_store_release(&c->count, 1);
	stats->aggregated++;
	return c;
found:
	WRITE_ONCE(c->count, c->count + 1);
	stats->aggregated++;
	return c;
}

/* One distinct chain in a reader's snapshot, its counts merged over CPUs and contexts. */
struct fw_agg_snap {
	u64 count;
	unsigned long ip;
	unsigned long parent_ip;
	/* Into fw_agg_view.words, outermost last, then the user frames, innermost first. */
	const unsigned long *ancestors;
	u32 hash;
	u32 shape;
	/* The durations charged to it (latency), summed like count. */
	u64 calls;
	u64 total;
	u64 min_inv;
	u64 max;
	u32 hist[FW_LAT_BUCKETS];
};

/* The three files a view prints, as their debugfs i_private says. */
enum fw_agg_format {
	FW_AGG_CHAINS,		/* addresses, every stop boxed: framewalk profile's input */
	FW_AGG_FOLDED,		/* function names, then the count */
	FW_AGG_LATENCY,		/* function names, then the durations */
};

/* What an open folded or chains file prints: a copy, so clearing never races its reads. */
struct fw_agg_view {
	struct fw_agg_snap *chains;
	unsigned long *words;
	size_t nr_chains;
	enum fw_agg_format format;
	bool symbolic;			/* folded, latency: function names; chains: hex addresses */
	char sym[KSYM_SYMBOL_LEN];	/* a frame's name, while it is printed */
};

/* The words a chain holds: its ancestors, then its user frames. */
static unsigned int fw_agg_snap_words(const struct fw_agg_snap *s)
{
	return fw_agg_shape_nr(s->shape) + fw_agg_shape_nr_user(s->shape);
}

static int fw_agg_snap_cmp(const void *a, const void *b)
{
	const struct fw_agg_snap *x = a, *y = b;
	unsigned int i;

	if (x->hash != y->hash)
		return x->hash < y->hash ? -1 : 1;
	if (x->ip != y->ip)
		return x->ip < y->ip ? -1 : 1;
	if (x->parent_ip != y->parent_ip)
		return x->parent_ip < y->parent_ip ? -1 : 1;
	if (x->shape != y->shape)
		return x->shape < y->shape ? -1 : 1;
	for (i = 0; i < fw_agg_snap_words(x); i++)
		if (x->ancestors[i] != y->ancestors[i])
			return x->ancestors[i] < y->ancestors[i] ? -1 : 1;
	return 0;
}

/* A chain's durations as one table holds them; each field alone is exact. */
static void fw_agg_time_copy(struct fw_agg_snap *s, const struct fw_agg_time *tm)
{
	unsigned int i;

	s->calls = atomic64_read(&tm->calls);
	s->total = atomic64_read(&tm->total);
	s->min_inv = atomic64_read(&tm->min_inv);
	s->max = atomic64_read(&tm->max);
	for (i = 0; i < FW_LAT_BUCKETS; i++)
		s->hist[i] = atomic_read(&tm->hist[i]);
}

/* The same chain counted in two tables: one chain. */
static void fw_agg_snap_add(struct fw_agg_snap *sum, const struct fw_agg_snap *s)
{
	unsigned int i;

	sum->count += s->count;
	sum->calls += s->calls;
	sum->total += s->total;
	sum->min_inv = max(sum->min_inv, s->min_inv);
	sum->max = max(sum->max, s->max);
	for (i = 0; i < FW_LAT_BUCKETS; i++)
		sum->hist[i] += s->hist[i];
}

/*
 * Copy every published chain of every table, then sort and sum the equal
 * ones. A table may gain chains while it is copied: the bounds are read
 * first and only chains published before the count was read are taken.
 */
static int fw_agg_snapshot(struct fw_agg_view *v)
{
	size_t cap_chains = 0, cap_words = 0, n = 0, w = 0, i, d;
	int cpu, ctx;

	for_each_possible_cpu(cpu) {
		struct fw_cpu *fc = per_cpu_ptr(fw_agg_pcpu, cpu);

		for (ctx = 0; ctx < FW_CONTEXTS; ctx++) {
			cap_chains += READ_ONCE(fc->slots[ctx].agg.used);
			cap_words += READ_ONCE(fc->slots[ctx].agg.used_words);
		}
	}
	/* Room for chains published between the sizing pass and the copy. */
	cap_chains += num_possible_cpus() * FW_CONTEXTS * 64;
	cap_words += num_possible_cpus() * FW_CONTEXTS * 64 * (FW_DEPTH_MAX + FW_USER_MAX);
	v->chains = kvcalloc(cap_chains, sizeof(*v->chains), GFP_KERNEL);
	v->words = kvcalloc(cap_words, sizeof(*v->words), GFP_KERNEL);
	if (!v->chains || !v->words)
		return -ENOMEM;

	for_each_possible_cpu(cpu) {
		struct fw_cpu *fc = per_cpu_ptr(fw_agg_pcpu, cpu);

		for (ctx = 0; ctx < FW_CONTEXTS; ctx++) {
			const struct fw_agg_table *t = &fc->slots[ctx].agg;

			for (i = 0; i <= t->mask; i++) {
				const struct fw_agg_chain *c = &t->slots[i];
				struct fw_agg_snap *s = &v->chains[n];
				/* Pairs with the release in fw_agg_count(). */
				u64 count = smp_load_acquire(&c->count);
				unsigned int words;

				if (!count)
					continue;
				s->shape = c->shape;
				words = fw_agg_snap_words(s);
				if (n == cap_chains || cap_words - w < words)
					return -EAGAIN;
				s->count = count;
				s->hash = c->hash;
				s->ip = c->ip;
				s->parent_ip = c->parent_ip;
				memcpy(&v->words[w], t->words + c->words,
				       words * sizeof(*v->words));
				s->ancestors = &v->words[w];
				w += words;
				if (t->time)
					fw_agg_time_copy(s, &t->time[c->nth]);
				n++;
			}
		}
	}
	sort(v->chains, n, sizeof(*v->chains), fw_agg_snap_cmp, NULL);
	for (i = 0, d = 0; i < n; i++) {
		if (d && !fw_agg_snap_cmp(&v->chains[d - 1], &v->chains[i])) {
			fw_agg_snap_add(&v->chains[d - 1], &v->chains[i]);
			continue;
		}
		v->chains[d++] = v->chains[i];
	}
	v->nr_chains = d;
	return 0;
}

static void fw_agg_view_free(struct fw_agg_view *v)
{
	kvfree(v->chains);
	kvfree(v->words);
}

static void *fw_agg_seq_start(struct seq_file *m, loff_t *pos)
{
	struct fw_agg_view *v = m->private;

	return *pos < v->nr_chains ? &v->chains[*pos] : NULL;
}

static void *fw_agg_seq_next(struct seq_file *m, void *p, loff_t *pos)
{
	++*pos;
	return fw_agg_seq_start(m, pos);
}

static void fw_agg_seq_stop(struct seq_file *m, void *p)
{
}

/* Where a chain's folded line goes while fw_folded_chain() lays it out. */
struct fw_agg_line {
	struct seq_file *m;
	struct fw_agg_view *v;
	const struct fw_agg_snap *s;
};

static void fw_agg_line_stop(void *ctx, unsigned int stop)
{
	struct fw_agg_line *l = ctx;

	seq_printf(l->m, FW_FOLDED_STOP_FMT, fw_stop_name(stop));
}

/* User frames stay addresses: the module cannot read the process's files. */
static void fw_agg_line_user(void *ctx, unsigned int i)
{
	struct fw_agg_line *l = ctx;

	seq_printf(l->m, "0x%lx" FW_FOLDED_USER_MARK,
		   l->s->ancestors[fw_agg_shape_nr(l->s->shape) + i]);
}

/*
 * The function alone, as the CLI names a kernel frame: %ps would add
 * " [module]" to a module's function, and the two folded outputs would
 * differ on the same chain.
 */
static void fw_agg_line_kernel(void *ctx, unsigned int i)
{
	struct fw_agg_line *l = ctx;
	unsigned long addr = i == 0 ? l->s->ip : i == 1 ? l->s->parent_ip :
			     l->s->ancestors[i - 2];

	if (!l->v->symbolic) {
		seq_printf(l->m, "0x%lx", addr);
		return;
	}
	sprint_symbol_no_offset(l->v->sym, addr);
	l->v->sym[strcspn(l->v->sym, " ")] = '\0';
	seq_puts(l->m, l->v->sym);
}

static void fw_agg_line_sep(void *ctx)
{
	seq_putc(((struct fw_agg_line *)ctx)->m, FW_FOLDED_SEP);
}

static const struct fw_folded_ops fw_agg_line_ops = {
	.stop = fw_agg_line_stop,
	.user = fw_agg_line_user,
	.kernel = fw_agg_line_kernel,
	.sep = fw_agg_line_sep,
};

/*
 * One chain as fw_folded.h lays it out, then its count. chains boxes every
 * stop: framewalk profile reads it back into a recording.
 */
static int fw_agg_seq_show(struct seq_file *m, void *p)
{
	struct fw_agg_line l = { .m = m, .v = m->private, .s = p };
	unsigned int i, nr;

	/* latency: only the chains whose calls returned, the ones with a duration. */
	if (l.v->format == FW_AGG_LATENCY && !l.s->calls)
		return 0;
	fw_folded_chain(&fw_agg_line_ops, &l, fw_agg_shape_nr(l.s->shape) + 2,
			fw_agg_shape_stop(l.s->shape), fw_agg_shape_nr_user(l.s->shape),
			fw_agg_shape_user_stop(l.s->shape), !l.v->symbolic);
	if (l.v->format != FW_AGG_LATENCY) {
		seq_printf(m, " %llu\n", l.s->count);
		return 0;
	}
	/* calls, total, min and max in ns, then the buckets up to the last used. */
	seq_printf(m, " %llu %llu %llu %llu ", l.s->calls, l.s->total, U64_MAX - l.s->min_inv,
		   l.s->max);
	for (nr = FW_LAT_BUCKETS; nr > 1 && !l.s->hist[nr - 1]; nr--)
		;
	for (i = 0; i < nr; i++)
		seq_printf(m, "%s%u", i ? "," : "", l.s->hist[i]);
	seq_putc(m, '\n');
	return 0;
}

static const struct seq_operations fw_agg_seq_ops = {
	.start = fw_agg_seq_start,
	.next = fw_agg_seq_next,
	.stop = fw_agg_seq_stop,
	.show = fw_agg_seq_show,
};

static int fw_agg_open(struct inode *inode, struct file *file)
{
	struct fw_agg_view *v;
	int ret, tries;

	/* Opened for writing only (clearing): no snapshot to take. */
	if (!(file->f_mode & FMODE_READ))
		return 0;
	v = __seq_open_private(file, &fw_agg_seq_ops, sizeof(*v));
	if (!v)
		return -ENOMEM;
	v->format = (uintptr_t)inode->i_private;
	v->symbolic = v->format != FW_AGG_CHAINS;
	/* -EAGAIN: more chains appeared during the copy than it had room for. */
	for (tries = 0; tries < 4; tries++) {
		mutex_lock(&fw_agg_lock);
		ret = fw_agg_snapshot(v);
		mutex_unlock(&fw_agg_lock);
		if (ret != -EAGAIN)
			break;
		fw_agg_view_free(v);
		memset(v, 0, sizeof(*v));
		v->format = (uintptr_t)inode->i_private;
		v->symbolic = v->format != FW_AGG_CHAINS;
	}
	if (ret) {
		fw_agg_view_free(v);
		seq_release_private(inode, file);
	}
	return ret;
}

static int fw_agg_release(struct inode *inode, struct file *file)
{
	struct seq_file *m;

	if (!(file->f_mode & FMODE_READ))
		return 0;
	m = file->private_data;
	fw_agg_view_free(m->private);
	return seq_release_private(inode, file);
}

/*
 * Empty every table. Hits skip the tables while fw_agg_paused is set; a hit
 * runs with preemption disabled and RCU watching (fw_callback checks), so
 * after synchronize_rcu() no CPU is still inside a table.
 */
static void fw_agg_clear(void)
{
	int cpu, ctx;

	mutex_lock(&fw_agg_lock);
	WRITE_ONCE(fw_agg_paused, true);
	/* A call timed before this charges nothing after: fw_lat_return() compares. */
	WRITE_ONCE(fw_agg_gen, fw_agg_gen + 1);
	synchronize_rcu();
	for_each_possible_cpu(cpu) {
		struct fw_cpu *fc = per_cpu_ptr(fw_agg_pcpu, cpu);

		for (ctx = 0; ctx < FW_CONTEXTS; ctx++) {
			struct fw_agg_table *t = &fc->slots[ctx].agg;

			memset(t->slots, 0, (t->mask + 1) * sizeof(*t->slots));
			if (t->time)
				memset(t->time, 0, fw_agg_entries * sizeof(*t->time));
			t->used = 0;
			t->used_words = 0;
			t->last = 0;
		}
	}
	/* The zeroed tables are visible before any hit may write them again. */
	smp_store_release(&fw_agg_paused, false);
	mutex_unlock(&fw_agg_lock);
}

static ssize_t fw_agg_write(struct file *file, const char __user *ubuf, size_t len,
			    loff_t *ppos)
{
	fw_agg_clear();
	return len;
}

static const struct file_operations fw_agg_folded_fops = {
	.owner = THIS_MODULE,
	.open = fw_agg_open,
	.read = seq_read,
	.llseek = seq_lseek,
	.write = fw_agg_write,
	.release = fw_agg_release,
};

static const struct file_operations fw_agg_chains_fops = {
	.owner = THIS_MODULE,
	.open = fw_agg_open,
	.read = seq_read,
	.llseek = seq_lseek,
	.release = fw_agg_release,
};

static void fw_agg_free_tables(void)
{
	int cpu, ctx;

	for_each_possible_cpu(cpu) {
		struct fw_cpu *fc = per_cpu_ptr(fw_agg_pcpu, cpu);

		for (ctx = 0; ctx < FW_CONTEXTS; ctx++) {
			kvfree(fc->slots[ctx].agg.slots);
			kvfree(fc->slots[ctx].agg.words);
			kvfree(fc->slots[ctx].agg.time);
			fc->slots[ctx].agg.slots = NULL;
			fc->slots[ctx].agg.words = NULL;
			fc->slots[ctx].agg.time = NULL;
		}
	}
}

/**
 * fw_agg_init() - allocate every context's table and create folded and chains
 * @pcpu: the per-CPU state whose contexts get a table each
 * @dir: the framewalk debugfs directory (fw_stats_init())
 *
 * Tables of twice aggregate_entries slots, so probes stay short and always
 * end; allocated at load, so a hit never allocates.
 *
 * Return: 0, -EINVAL for an aggregate_entries out of range, or -ENOMEM.
 */
int fw_agg_init(struct fw_cpu __percpu *pcpu, struct dentry *dir)
{
	unsigned int slots;
	int cpu, ctx;

	if (!fw_agg_entries || fw_agg_entries > FW_AGG_ENTRIES_MAX) {
		pr_err("aggregate_entries: %u is not from 1 to %u\n", fw_agg_entries,
		       FW_AGG_ENTRIES_MAX);
		return -EINVAL;
	}
	fw_agg_pcpu = pcpu;
	slots = roundup_pow_of_two(2 * fw_agg_entries);
	for_each_possible_cpu(cpu) {
		struct fw_cpu *fc = per_cpu_ptr(pcpu, cpu);

		for (ctx = 0; ctx < FW_CONTEXTS; ctx++) {
			struct fw_agg_table *t = &fc->slots[ctx].agg;

			t->mask = slots - 1;
			t->nr_words = fw_agg_entries * FW_AGG_WORDS_PER_CHAIN;
			t->slots = kvcalloc(slots, sizeof(*t->slots), GFP_KERNEL);
			t->words = kvcalloc(t->nr_words, sizeof(*t->words), GFP_KERNEL);
			if (!t->slots || !t->words) {
				pr_err("aggregate_entries: no memory for %u chains per CPU\n",
				       fw_agg_entries);
				fw_agg_free_tables();
				return -ENOMEM;
			}
		}
	}
	/* i_private tells the shared open which format to print. */
	debugfs_create_file("folded", 0600, dir, (void *)FW_AGG_FOLDED, &fw_agg_folded_fops);
	debugfs_create_file("chains", 0400, dir, (void *)FW_AGG_CHAINS, &fw_agg_chains_fops);
	debugfs_create_file("latency", 0400, dir, (void *)FW_AGG_LATENCY, &fw_agg_chains_fops);
	return 0;
}

/**
 * fw_agg_time_alloc() - give every table the durations of its chains
 *
 * Latency's first start does it, under fw_lock, before any call is timed:
 * aggregation alone never pays the memory. The arrays stay to unload.
 *
 * Return: 0, or -ENOMEM with the tables as they were.
 */
int fw_agg_time_alloc(void)
{
	int cpu, ctx;

	for_each_possible_cpu(cpu) {
		struct fw_cpu *fc = per_cpu_ptr(fw_agg_pcpu, cpu);

		for (ctx = 0; ctx < FW_CONTEXTS; ctx++) {
			struct fw_agg_table *t = &fc->slots[ctx].agg;
			struct fw_agg_time *time;

			if (t->time)
				continue;
			time = kvcalloc(fw_agg_entries, sizeof(*time), GFP_KERNEL);
			if (!time) {
				pr_err("latency: no memory for the durations of %u chains per CPU\n",
				       fw_agg_entries);
				return -ENOMEM;
			}
			/* A snapshot reads it under fw_agg_lock. */
			mutex_lock(&fw_agg_lock);
			t->time = time;
			mutex_unlock(&fw_agg_lock);
		}
	}
	return 0;
}

/**
 * fw_agg_exit() - free every table
 *
 * Called after the ops are unregistered and the debugfs files removed:
 * nothing can reach a table then.
 */
void fw_agg_exit(void)
{
	fw_agg_free_tables();
}
