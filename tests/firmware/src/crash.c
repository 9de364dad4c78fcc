// SPDX-License-Identifier: GPL-2.0
/*
 * crash.c - reset code and the fault handler that forwards the crash the way
 * an attached MCU would: an ELF core (handler-entry registers, as GDB sees
 * them) and a Zephyr coredump (pre-exception registers), over semihosting.
 */
#include <stdint.h>
#include "fw.h"

/* Filled by hardfault_entry in start.S before any register is disturbed. */
struct crash_entry {
	uint32_t r4_r11[8];
	uint32_t msp, psp, control, exc_return;
} crash_entry;

extern uint32_t __data_load[], __data_start[], __data_end[], __bss_start[], __bss_end[];
extern uint32_t __ram_lo[], __ram_hi[], __msp_stack_lo[];
extern void hardfault_entry(void);
/* The build-id note in flash (sections.ld); a firmware whose script has none leaves them 0. */
extern const uint8_t __build_id_start[] __attribute__((weak));
extern const uint8_t __build_id_end[] __attribute__((weak));
int main(void);

static int semihost(int op, void *arg)
{
	register int r0 __asm__("r0") = op;
	register void *r1 __asm__("r1") = arg;

	__asm__ volatile("bkpt 0xab" : "+r"(r0) : "r"(r1) : "memory");
	return r0;
}

void semihost_exit(int code)
{
	/* AArch32 SYS_EXIT takes the reason itself; a failure is reported as a run-time error. */
	semihost(0x18, (void *)(code ? 0x20023 : 0x20026));
	for (;;)
		;
}

void *memset(void *d, int c, unsigned int n)
{
	unsigned char *p = d;

	while (n--)
		*p++ = (unsigned char)c;
	return d;
}

void *memcpy(void *d, const void *s, unsigned int n)
{
	unsigned char *p = d;
	const unsigned char *q = s;

	while (n--)
		*p++ = *q++;
	return d;
}

/*
 * -funwind-tables makes every function refer to the EHABI personality
 * routines of libgcc; nothing here unwinds at run time, so they only abort.
 */
void abort(void)
{
	semihost_exit(1);
}

void __aeabi_unwind_cpp_pr0(void) __attribute__((alias("abort")));
void __aeabi_unwind_cpp_pr1(void) __attribute__((alias("abort")));
void __aeabi_unwind_cpp_pr2(void) __attribute__((alias("abort")));

void reset_handler(void)
{
	uint32_t *s = __data_load, *d = FW_EARLY_FPU(__data_start);

	while (d < __data_end)
		*d++ = *s++;
	for (d = __bss_start; d < __bss_end; d++)
		*d = 0;
#ifdef __ARM_FP
	*(volatile uint32_t *)0xE000ED88 |= 0xFu << 20;	/* CPACR: CP10/CP11 full access */
	__asm__ volatile("dsb\n isb");
#endif
	semihost_exit(main());
}

/* A semihosting file with a running CRC-32, so the Zephyr trailer needs no second pass. */
struct out {
	int fd;
	uint32_t crc;
};

static uint32_t crc32_update(uint32_t crc, const uint8_t *p, uint32_t n)
{
	int k;

	crc = ~crc;
	while (n--) {
		crc ^= *p++;
		for (k = 0; k < 8; k++)
			crc = (crc >> 1) ^ (0xEDB88320u & (0u - (crc & 1)));
	}
	return ~crc;
}

static void out_open(struct out *o, const char *name, uint32_t len)
{
	uint32_t blk[3] = { (uint32_t)name, 5 /* "wb" */, len };

	o->fd = semihost(0x01, blk);
	o->crc = 0;
}

static void out_write(struct out *o, const void *p, uint32_t n)
{
	uint32_t blk[3] = { (uint32_t)o->fd, (uint32_t)p, n };

	o->crc = crc32_update(o->crc, p, n);
	semihost(0x05, blk);
}

static void out_close(struct out *o)
{
	uint32_t blk[1] = { (uint32_t)o->fd };

	semihost(0x02, blk);
}

struct region {
	uint32_t lo, hi;
	const void *src;	/* where the bytes are read from when writing the dump */
};

/*
 * RAM below the main stack, the live main stack above the handler's own
 * frames (which change while they are written), the System Control Block
 * fault registers and, with an FPU, FPCCR/FPCAR.
 */
static struct region regions[5];
static unsigned int nr_regions;

/* System registers only take word accesses: snapshot them before byte-wise CRC and writes. */
static uint32_t scb_copy[16];
#ifdef __ARM_FP
static uint32_t fp_copy[4];
#endif

static void snapshot(uint32_t *dst, uint32_t lo, uint32_t words)
{
	uint32_t i;

	for (i = 0; i < words; i++)
		dst[i] = ((volatile uint32_t *)lo)[i];
}

static void collect_regions(void)
{
#if FW_V6M
	/* v6-M has no fault status registers: past AIRCR the SCB reads fault. */
	snapshot(scb_copy, 0xE000ED00, 4);
#else
	snapshot(scb_copy, 0xE000ED00, 16);
#endif
	regions[0] = (struct region){ (uint32_t)__ram_lo, (uint32_t)__msp_stack_lo, __ram_lo };
	regions[1] = (struct region){ crash_entry.msp, (uint32_t)__ram_hi,
				      (const void *)crash_entry.msp };
	regions[2] = (struct region){ 0xE000ED00, 0xE000ED00 + (FW_V6M ? 0x10 : 0x40),
				      scb_copy };
	nr_regions = 3;
#ifdef __ARM_FP
	snapshot(fp_copy, 0xE000EF30, 4);
	regions[nr_regions++] = (struct region){ 0xE000EF30, 0xE000EF40, fp_copy };
#endif
	/* The build-id note, so that the dump names the firmware it came from. */
	if (&__build_id_end[0] != &__build_id_start[0])
		regions[nr_regions++] = (struct region){ (uint32_t)__build_id_start,
							 (uint32_t)__build_id_end,
							 __build_id_start };
}

static void put32(uint8_t *p, uint32_t v)
{
	p[0] = v;
	p[1] = v >> 8;
	p[2] = v >> 16;
	p[3] = v >> 24;
}

static void put16(uint8_t *p, uint32_t v)
{
	p[0] = v;
	p[1] = v >> 8;
}

static void write_note(struct out *o, const char *name, uint32_t namesz, uint32_t type,
		       const void *desc, uint32_t descsz)
{
	uint8_t hdr[12], pad[4] = { 0 };

	put32(hdr, namesz);
	put32(hdr + 4, descsz);
	put32(hdr + 8, type);
	out_write(o, hdr, 12);
	out_write(o, name, namesz);
	out_write(o, pad, (4 - namesz % 4) % 4);
	out_write(o, desc, descsz);
	out_write(o, pad, (4 - descsz % 4) % 4);
}

#define PRSTATUS_SIZE	148
#define NOTES_SIZE	(12 + 8 + PRSTATUS_SIZE + 12 + 12 + 16)

static void write_elf_core(const uint32_t *gregs)
{
	uint8_t eh[52] = { 0x7f, 'E', 'L', 'F', 1, 1, 1 }, ph[32];
	uint8_t prs[PRSTATUS_SIZE] = { 0 };
	uint32_t off, i, cw[4];
	struct out o;

	out_open(&o, "core.elf", 8);
	put16(eh + 16, 4);		/* ET_CORE */
	put16(eh + 18, 40);		/* EM_ARM */
	put32(eh + 20, 1);
	put32(eh + 28, 52);		/* e_phoff */
	put32(eh + 36, 0x05000000);	/* EABI version 5 */
	put16(eh + 40, 52);
	put16(eh + 42, 32);
	put16(eh + 44, 1 + nr_regions);
	put16(eh + 46, 40);
	out_write(&o, eh, sizeof(eh));

	off = 52 + 32 * (1 + nr_regions);
	memset(ph, 0, sizeof(ph));
	put32(ph, 4);			/* PT_NOTE */
	put32(ph + 4, off);
	put32(ph + 16, NOTES_SIZE);
	put32(ph + 28, 4);
	out_write(&o, ph, sizeof(ph));
	off += NOTES_SIZE;
	for (i = 0; i < nr_regions; i++) {
		memset(ph, 0, sizeof(ph));
		put32(ph, 1);		/* PT_LOAD */
		put32(ph + 4, off);
		put32(ph + 8, regions[i].lo);
		put32(ph + 12, regions[i].lo);
		put32(ph + 16, regions[i].hi - regions[i].lo);
		put32(ph + 20, regions[i].hi - regions[i].lo);
		put32(ph + 24, 6);	/* PF_R | PF_W */
		put32(ph + 28, 4);
		out_write(&o, ph, sizeof(ph));
		off += regions[i].hi - regions[i].lo;
	}

	put32(prs + 24, 1);		/* pr_pid */
	for (i = 0; i < 17; i++)
		put32(prs + 72 + 4 * i, gregs[i]);
	put32(prs + 140, gregs[0]);	/* orig_r0 */
	write_note(&o, "CORE", 5, 1, prs, sizeof(prs));
	/* GDB's gregset has no MSP/PSP/CONTROL: carry them in crashwalk's own note. */
	cw[0] = 1;
	cw[1] = crash_entry.msp;
	cw[2] = crash_entry.psp;
	cw[3] = crash_entry.control;
	write_note(&o, "CRASHWALK", 10, 1, cw, sizeof(cw));
	for (i = 0; i < nr_regions; i++)
		out_write(&o, regions[i].src, regions[i].hi - regions[i].lo);
	out_close(&o);
}

#ifdef KERNEL_ZEPHYR
/* The reason k_panic() or k_oops() gave its svc; a fault's is K_ERR_CPU_EXCEPTION. */
static uint32_t zephyr_reason;
#define ZEPHYR_REASON	zephyr_reason
#else
#define ZEPHYR_REASON	0	/* K_ERR_CPU_EXCEPTION */
#endif

/* Zephyr coredump v2, arch block v2 (pre-exception r0-r3 r12 lr pc xpsr sp, r4-r11). */
static void write_zephyr(const uint32_t *pre)
{
	uint8_t hdr[12] = { 'Z', 'E', 2, 0, 3, 0, 5, 1 /* CRC trailer */ }, blk[16];
	uint32_t arch[17], i, crc;
	static const uint8_t order[9] = { 0, 1, 2, 3, 12, 14, 15, 16, 13 };
	struct out o;

	out_open(&o, "core.zephyr", 11);
	put32(hdr + 8, ZEPHYR_REASON);
	out_write(&o, hdr, sizeof(hdr));
	for (i = 0; i < 9; i++)
		arch[i] = pre[order[i]];
	for (i = 0; i < 8; i++)
		arch[9 + i] = pre[4 + i];
	blk[0] = 'A';
	put16(blk + 1, 2);
	put16(blk + 3, sizeof(arch));
	out_write(&o, blk, 5);
	out_write(&o, arch, sizeof(arch));
	for (i = 0; i < nr_regions; i++) {
		blk[0] = 'M';
		put16(blk + 1, 1);
		put32(blk + 3, regions[i].lo);
		put32(blk + 7, regions[i].hi);
		out_write(&o, blk, 11);
		out_write(&o, regions[i].src, regions[i].hi - regions[i].lo);
	}
	crc = o.crc;
	blk[0] = 'C';
	put16(blk + 1, 1);
	put32(blk + 3, crc);
	out_write(&o, blk, 7);
	out_close(&o);
}

void crash_handler(void)
{
	uint32_t er = crash_entry.exc_return, *frame, size, gregs[17], pre[17], xpsr, i;

	/* Snapshot the fault registers first, then stop trapping our own unaligned stores. */
	collect_regions();
	if (!FW_V6M) {
		*(volatile uint32_t *)0xE000ED14 &= ~(1u << 3);
		/* The dump includes the stack guard: no MPU region may stop it being read. */
		*(volatile uint32_t *)0xE000ED94 = 0;
	}

	frame = (uint32_t *)((er & 4) ? crash_entry.psp : crash_entry.msp);
	size = (er & 0x10) ? 0x20 : 0x68;
	if (frame[7] & (1u << 9))
		size += 4;
	__asm__ volatile("mrs %0, xpsr" : "=r"(xpsr));

	/* The state at hardfault_entry's first instruction. */
	for (i = 0; i < 4; i++)
		gregs[i] = frame[i];
	for (i = 0; i < 8; i++)
		gregs[4 + i] = crash_entry.r4_r11[i];
	gregs[12] = frame[4];
	gregs[13] = crash_entry.msp;
	gregs[14] = er;
	gregs[15] = (uint32_t)hardfault_entry & ~1u;
	gregs[16] = xpsr;

	/* The state the fault interrupted. */
	for (i = 0; i < 17; i++)
		pre[i] = gregs[i];
	pre[13] = (uint32_t)frame + size;
	pre[14] = frame[5];
	pre[15] = frame[6];
	pre[16] = frame[7];

	write_elf_core(gregs);
#ifdef KERNEL_ZEPHYR
	/*
	 * Zephyr up to 4.0 records as sp the exception frame's address
	 * (z_arm_coredump_fault_sp = esf), set by its fault handler only: an
	 * svc, k_panic() or k_oops() with the reason in r0, leaves it 0.
	 */
	pre[13] = (uint32_t)frame;
	if ((xpsr & 0x1FF) == 11) {
		pre[13] = 0;
		zephyr_reason = frame[0];
	}
#endif
	write_zephyr(pre);
	semihost_exit(0);
}
