// SPDX-License-Identifier: GPL-2.0
/*
 * usym_prog.c - a program with known frames for test_usym.sh: it prints the
 * addresses a user chain of its own would hold (a pc, then return addresses),
 * then waits to be killed, so that the test can read its /proc/PID/maps and
 * name the frames with framewalk and, as the oracle, binutils' addr2line and nm.
 *
 * Prints, one per line: "pc ADDR" (usym_leaf's first instruction), "ret ADDR"
 * (the return into usym_mid, in usym_leaf), "ret ADDR" (into main, in
 * usym_mid), "hidden ADDR" (the return into usym_hidden, a static function
 * that is in no .dynsym), "libc ADDR" (getpid, in the C library).
 */
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <unistd.h>

#define noinline __attribute__((noinline))

static volatile uintptr_t usym_sink;

noinline uintptr_t usym_leaf(void)
{
	return (uintptr_t)__builtin_return_address(0);
}

noinline uintptr_t usym_mid(void)
{
	uintptr_t into_mid = usym_leaf();

	usym_sink = into_mid;
	printf("ret %#lx\n", (unsigned long)into_mid);
	return (uintptr_t)__builtin_return_address(0);
}

static noinline uintptr_t usym_hidden(void)
{
	uintptr_t r = usym_leaf();

	usym_sink = r;
	return r;
}

int main(void)
{
	uintptr_t into_main, into_hidden;

	printf("pc %#lx\n", (unsigned long)(uintptr_t)usym_leaf);
	into_main = usym_mid();
	printf("ret %#lx\n", (unsigned long)into_main);
	into_hidden = usym_hidden();
	printf("hidden %#lx\n", (unsigned long)into_hidden);
	printf("libc %#lx\n", (unsigned long)(uintptr_t)getpid);
	fflush(stdout);
	pause();
	return 0;
}
