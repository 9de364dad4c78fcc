// SPDX-License-Identifier: GPL-2.0
/*
 * fw_user_prog.c - user programs with known call chains for test_user.sh:
 * each mode enters the kernel through getpriority(2) (__arm64_sys_getpriority,
 * which nothing else in the guest calls) from a known user chain, and prints
 * what the test compares framewalk's user frames with.
 *
 * usage: fw_user_prog chain|libc|deep N|thread|exec|bad KIND|write N FILE TEXT|sleep N MS
 *   chain   main -> fw_u_outer -> fw_u_mid -> fw_u_inner -> fw_u_leaf, whose
 *           svc is in a leaf that builds no frame record; prints "lr 0x..."
 *           after it (the return into fw_u_inner the walk shows as user_lr)
 *   libc    the same chain into glibc's own getpriority() wrapper
 *   deep N  N recursive frames above the leaf
 *   thread  the chain in a second thread
 *   exec    execs itself with "chain"
 *   bad K   x29 corrupted at the svc: kernel, unaligned, cycle, unmapped or
 *           absent (a page mapped but never touched: reading it would fault)
 *   write N FILE TEXT  TEXT written to FILE from N recursive frames (make bench)
 *   sleep N MS  N sleeps of MS milliseconds in nanosleep(2): the off-CPU time
 *           test_latency.sh knows
 * Built with and without frame pointers, static and dynamic (build-guest-bin.sh).
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#define noinline __attribute__((noinline))

/* Frames the compiler must keep: a call that is not a tail call. */
static volatile long fw_u_sink;

/* The leaf's x30 at its svc, printed once it returned. */
static volatile uintptr_t fw_u_lr;

/* getpriority(2) by svc: a leaf whose caller is only in x30 at the svc. */
static noinline long fw_u_leaf(void)
{
	register long x8 asm("x8") = __NR_getpriority;
	register long x0 asm("x0") = PRIO_PROCESS;
	register long x1 asm("x1") = 0;

	uintptr_t lr;

	/* x30 itself: __builtin_return_address() would make GCC build a record. */
	asm volatile("mov %0, x30\n"
		     "svc #0" : "=&r" (lr), "+r" (x0) : "r" (x8), "r" (x1) : "memory");
	fw_u_lr = lr;
	return x0;
}

static noinline long fw_u_inner(int libc)
{
	long r = libc ? getpriority(PRIO_PROCESS, 0) : fw_u_leaf();

	fw_u_sink += r;
	return r + 1;
}

static noinline long fw_u_mid(int libc)
{
	long r = fw_u_inner(libc);

	fw_u_sink += r;
	return r + 1;
}

static noinline long fw_u_outer(int libc)
{
	long r = fw_u_mid(libc);

	fw_u_sink += r;
	return r + 1;
}

static noinline long fw_u_deep(int n)
{
	long r = n ? fw_u_deep(n - 1) : fw_u_leaf();

	fw_u_sink += r;
	return r + 1;
}

/*
 * make bench's user frames: TEXT written to FILE (fw_bench's run file, whose
 * write makes the traced calls) from N frames deep, so that the cost of a
 * user frame is measured over many, not the shell's few.
 */
static noinline long fw_u_deep_write(int n, const char *path, const char *text)
{
	long r;
	int fd;

	if (n) {
		r = fw_u_deep_write(n - 1, path, text);
	} else {
		fd = open(path, O_WRONLY);
		r = fd < 0 ? -1 : write(fd, text, strlen(text));
		if (fd >= 0)
			close(fd);
	}
	fw_u_sink += r;
	return r;
}

static void *fw_u_thread(void *arg)
{
	fw_u_outer(0);
	return arg;
}

/*
 * The svc with x29 set to @fp, x30 to a return address of this program:
 * the walk reads the user pc, the lr, then the record x29 names.
 */
static noinline long fw_u_bad_fp(uintptr_t fp)
{
	register long x8 asm("x8") = __NR_getpriority;
	register long x0 asm("x0") = PRIO_PROCESS;
	register long x1 asm("x1") = 0;

	asm volatile("mov x16, x29\n"
		     "mov x29, %[fp]\n"
		     "svc #0\n"
		     "mov x29, x16\n"
		     : "+r" (x0) : "r" (x8), "r" (x1), [fp] "r" (fp) : "x16", "memory");
	return x0;
}

static int fw_u_bad(const char *kind)
{
	/* A record that names itself: the walk must see it is not above itself. */
	static uintptr_t cycle[2] __attribute__((aligned(16)));
	char *page;

	if (!strcmp(kind, "kernel"))
		return fw_u_bad_fp(0xffff800008000000UL) < 0;
	if (!strcmp(kind, "unaligned"))
		return fw_u_bad_fp((uintptr_t)cycle + 4) < 0;
	if (!strcmp(kind, "cycle")) {
		cycle[0] = (uintptr_t)cycle;
		cycle[1] = (uintptr_t)fw_u_bad;
		return fw_u_bad_fp((uintptr_t)cycle) < 0;
	}
	page = mmap(NULL, 2 * 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (page == MAP_FAILED)
		return 1;
	if (!strcmp(kind, "unmapped")) {
		munmap(page, 2 * 4096);
		return fw_u_bad_fp((uintptr_t)page) < 0;
	}
	if (!strcmp(kind, "absent"))
		return fw_u_bad_fp((uintptr_t)page) < 0;
	fprintf(stderr, "fw_user_prog: no bad kind '%s'\n", kind);
	return 2;
}

/*
 * The lr the leaf saw, and the executable mappings as "map START END PGOFF
 * PATH": perf script prints user frames as offsets into their file, so the
 * test turns framewalk's addresses into the same with these.
 */
static int fw_u_done(long r)
{
	char line[512], perm[8], path[256];
	unsigned long start, end, pgoff;
	FILE *f = fopen("/proc/self/maps", "r");

	if (fw_u_lr)
		printf("lr %#lx\n", (unsigned long)fw_u_lr);
	while (f && fgets(line, sizeof(line), f))
		if (sscanf(line, "%lx-%lx %7s %lx %*s %*s %255s", &start, &end, perm, &pgoff,
			   path) == 5 && perm[2] == 'x')
			printf("map %#lx %#lx %#lx %s\n", start, end, pgoff, path);
	if (f)
		fclose(f);
	return r < 0;
}

int main(int argc, char **argv)
{
	pthread_t t;

	if (argc < 2)
		goto usage;
	printf("pid %d\n", getpid());
	fflush(stdout);
	if (!strcmp(argv[1], "chain") || !strcmp(argv[1], "libc"))
		return fw_u_done(fw_u_outer(!strcmp(argv[1], "libc")));
	if (!strcmp(argv[1], "deep") && argc == 3)
		return fw_u_done(fw_u_deep(atoi(argv[2])));
	if (!strcmp(argv[1], "thread")) {
		if (pthread_create(&t, NULL, fw_u_thread, NULL))
			return 1;
		return pthread_join(t, NULL) != 0 || fw_u_done(0);
	}
	if (!strcmp(argv[1], "exec")) {
		execl("/proc/self/exe", argv[0], "chain", (char *)NULL);
		perror("exec");
		return 1;
	}
	if (!strcmp(argv[1], "bad") && argc == 3)
		return fw_u_bad(argv[2]) || fw_u_done(0);
	if (!strcmp(argv[1], "write") && argc == 5)
		return fw_u_deep_write(atoi(argv[2]), argv[3], argv[4]) < 0;
	if (!strcmp(argv[1], "sleep") && argc == 4) {
		struct timespec ts = { .tv_sec = atoi(argv[3]) / 1000,
				       .tv_nsec = atoi(argv[3]) % 1000 * 1000000L };
		int i;

		for (i = 0; i < atoi(argv[2]); i++)
			if (nanosleep(&ts, NULL))
				return 1;
		return 0;
	}
usage:
	fprintf(stderr, "usage: fw_user_prog chain|libc|deep N|thread|exec|bad KIND|"
		"write N FILE TEXT|sleep N MS\n");
	return 2;
}
