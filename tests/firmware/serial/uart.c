// SPDX-License-Identifier: GPL-2.0
/*
 * uart.c - an MCU that logs on its UART and crashes three times, its fault
 * handler streaming each crash over the UART, then restarting as a watchdog
 * would: the first two as Zephyr coredumps in Zephyr's "#CD:" log lines (the
 * second cut short, as when the watchdog bites while it is written), the
 * third as a CrashCatcher dump the way CrashCatcher's HexDump port prints it.
 * Board: QEMU mps2-an385 (Cortex-M3), CMSDK UART0. The corpus's start.S and
 * crash.c give the vectors, the fault entry, reset_handler and semihosting;
 * crash.c's crash_handler is linked weak, so the one here takes the faults.
 */
#include <stdint.h>
#include "../src/fw.h"

/* CMSDK APB UART0 */
#define UART_DATA	(*(volatile uint32_t *)0x40004000)
#define UART_STATE	(*(volatile uint32_t *)0x40004004)
#define UART_CTRL	(*(volatile uint32_t *)0x40004008)
#define UART_BAUDDIV	(*(volatile uint32_t *)0x40004010)
#define UART_TX_FULL	1u
#define SCB_CFSR	(*(volatile uint32_t *)0xE000ED28)
#define SCB_HFSR	(*(volatile uint32_t *)0xE000ED2C)

#define LIVES		3
#define CUT_LIFE	2	/* whose dump the "watchdog" cuts */
#define CUT_LINES	5	/* #CD: lines of it that get out */
#define CRASHCATCHER_LIFE 3	/* whose dump is CrashCatcher's, in hex */

/* Filled by hardfault_entry in start.S before any register is disturbed (crash.c). */
extern struct crash_entry {
	uint32_t r4_r11[8];
	uint32_t msp, psp, control, exc_return;
} crash_entry;

extern uint32_t __ram_lo[], __ram_hi[], __bss_end[];
int main(void);

/* Kept over the restarts (reset_handler does not clear .noinit); set up on the first boot. */
#define LIFE_MAGIC	0x11fe11feu
static struct {
	uint32_t magic;
	unsigned int count;
} lives __attribute__((section(".noinit")));
#define life lives.count
volatile uint32_t sensor_address = 0xF0000000u;	/* nothing answers there: a bus fault */
volatile int samples;

static void uart_putc(char c)
{
	while (UART_STATE & UART_TX_FULL)
		;
	UART_DATA = (uint8_t)c;
}

static void uart_puts(const char *s)
{
	while (*s)
		uart_putc(*s++);
}

static void uart_dec(uint32_t v)
{
	char b[10];
	int n = 0;

	do
		b[n++] = (char)('0' + v % 10);
	while (v /= 10);
	while (n)
		uart_putc(b[--n]);
}

/* One log line the way Zephyr's logger prints it: level, module, message. */
static void log_line(const char *level, const char *module, const char *msg, int num)
{
	uart_puts("<");
	uart_puts(level);
	uart_puts("> ");
	uart_puts(module);
	uart_puts(": ");
	uart_puts(msg);
	if (num >= 0)
		uart_dec((uint32_t)num);
	uart_puts("\r\n");
}

/* ---- the application: each life crashes somewhere else ---- */

/* Not inlined, and no .isra/.constprop clones: GDB and crashwalk name the same function. */
#define APP_FN	__attribute__((noipa))

static APP_FN int read_sensor(int channel)
{
	return *(volatile int *)(sensor_address + 4u * (uint32_t)channel);
}

static APP_FN int filter_sample(int channel)
{
	int v = read_sensor(channel);

	samples++;
	return v / 2 + 1;
}

static APP_FN void handle_command(int cmd)
{
	if (cmd > 2)
		__builtin_trap();	/* an undefined instruction: UNDEFINSTR */
	samples += cmd;
}

static APP_FN void parse_commands(int n)
{
	int i;

	for (i = 0; i <= n; i++)
		handle_command(i);
}

static APP_FN void app_run(void)
{
	int i;

	log_line("inf", "main", "application start, life ", (int)life);
	for (i = 0; i < 3; i++)
		log_line("inf", "sensor", "sample ", samples++);
	if (life == 3)
		parse_commands(3);
	filter_sample((int)life);
}

/* Where the "watchdog" restarts the MCU: a fresh main stack, reset_handler again. */
__attribute__((naked, noreturn)) static void restart(void)
{
	__asm__ volatile("ldr r0, =__msp_stack_hi\n"
			 "mov sp, r0\n"
			 "b reset_handler\n"
			 ".ltorg");
}

int main(void)
{
	if (lives.magic != LIFE_MAGIC) {
		lives.magic = LIFE_MAGIC;
		life = 0;
	}
	UART_BAUDDIV = 16;
	UART_CTRL = 1;		/* TX enable */
	if (++life > LIVES) {
		log_line("inf", "main", "done after crashes: ", LIVES);
		semihost_exit(0);
	}
	log_line("inf", "boot", "serial crash demo, boot ", (int)life);
	app_run();
	log_line("err", "main", "life ended without a crash: ", (int)life);
	semihost_exit(1);
	return 1;
}

/* ---- the fault handler: the dump, in hex lines of one of two formats ---- */

enum dump_format { ZEPHYR_LOG, CRASHCATCHER_HEX };

struct dump_out {
	enum dump_format fmt;
	uint8_t line[32];	/* bytes of the next line */
	unsigned int n;
	unsigned int lines;
	uint32_t crc;
	int cut;		/* the watchdog bit: nothing more gets out */
};

/*
 * The coredump's CRC-32 (IEEE, reflected), four bits a step from a 16-entry
 * table: a fault handler that streams RAM should not spend 8 shifts a byte.
 */
static uint32_t crc32_update(uint32_t crc, const uint8_t *p, uint32_t n)
{
	static const uint32_t nibble[16] = {
		0x00000000, 0x1db71064, 0x3b6e20c8, 0x26d930ac,
		0x76dc4190, 0x6b6b51f4, 0x4db26158, 0x5005713c,
		0xedb88320, 0xf00f9344, 0xd6d6a3e8, 0xcb61b38c,
		0x9b64c2b0, 0x86d3d2d4, 0xa00ae278, 0xbdbdf21c,
	};

	crc = ~crc;
	while (n--) {
		crc ^= *p++;
		crc = (crc >> 4) ^ nibble[crc & 15];
		crc = (crc >> 4) ^ nibble[crc & 15];
	}
	return ~crc;
}

/* Zephyr: "#CD:" behind the logger's prefix, 32 bytes a line; CrashCatcher: bare, 16, upper case. */
static void dump_flush(struct dump_out *o)
{
	const char *hex = o->fmt == ZEPHYR_LOG ? "0123456789abcdef" : "0123456789ABCDEF";
	unsigned int i;

	if (!o->n || o->cut)
		return;
	if (o->fmt == ZEPHYR_LOG)
		uart_puts("<err> coredump: #CD:");
	for (i = 0; i < o->n; i++) {
		uart_putc(hex[o->line[i] >> 4]);
		uart_putc(hex[o->line[i] & 15]);
	}
	uart_puts("\r\n");
	o->n = 0;
	if (++o->lines == CUT_LINES && life == CUT_LIFE)
		o->cut = 1;
}

static void dump_write(struct dump_out *o, const void *p, uint32_t n)
{
	const uint8_t *b = p;

	o->crc = crc32_update(o->crc, b, n);
	while (n--) {
		o->line[o->n++] = *b++;
		if (o->n == (o->fmt == ZEPHYR_LOG ? 32u : 16u))
			dump_flush(o);
	}
}

static void put32(uint8_t *p, uint32_t v)
{
	p[0] = v;
	p[1] = v >> 8;
	p[2] = v >> 16;
	p[3] = v >> 24;
}

/*
 * A memory range: {start, end} then its bytes, read as words (the SCB needs
 * that). Zephyr puts a block id and version before; CrashCatcher ends each
 * piece it prints on a line of its own.
 */
static void dump_region(struct dump_out *o, uint32_t lo, uint32_t hi)
{
	uint8_t blk[11] = { 'M', 1, 0 }, w[4];
	uint32_t a;

	put32(blk + 3, lo);
	put32(blk + 7, hi);
	if (o->fmt == ZEPHYR_LOG) {
		dump_write(o, blk, sizeof(blk));
	} else {
		dump_write(o, blk + 3, 8);
		dump_flush(o);
	}
	for (a = lo; a < hi; a += 4) {
		put32(w, *(volatile uint32_t *)a);
		dump_write(o, w, 4);
	}
	if (o->fmt == CRASHCATCHER_HEX)
		dump_flush(o);
}

/* RAM up to the end of .bss, the stack the fault left, and the SCB's fault registers. */
static void dump_memory(struct dump_out *o)
{
	dump_region(o, (uint32_t)__ram_lo, (uint32_t)__bss_end);
	dump_region(o, crash_entry.msp, (uint32_t)__ram_hi);
	dump_region(o, 0xE000ED00, 0xE000ED40);	/* CFSR, HFSR, MMFAR, BFAR */
}

/* Zephyr coredump v2, arch block v2 (pre-exception r0-r3 r12 lr pc xpsr sp, r4-r11), CRC. */
static void write_zephyr(const uint32_t *frame, uint32_t sp)
{
	uint8_t hdr[12] = { 'Z', 'E', 2, 0, 3, 0, 5, 1 /* CRC trailer */ }, blk[7];
	uint32_t arch[17], i;
	struct dump_out o = { .fmt = ZEPHYR_LOG };

	for (i = 0; i < 8; i++)
		arch[i] = frame[i];
	arch[8] = sp;
	for (i = 0; i < 8; i++)
		arch[9 + i] = crash_entry.r4_r11[i];
	uart_puts("<err> coredump: #CD:BEGIN#\r\n");
	dump_write(&o, hdr, sizeof(hdr));
	blk[0] = 'A';
	blk[1] = 2;
	blk[2] = 0;
	blk[3] = sizeof(arch);
	blk[4] = 0;
	dump_write(&o, blk, 5);
	dump_write(&o, arch, sizeof(arch));
	dump_memory(&o);
	blk[0] = 'C';
	blk[1] = 1;
	blk[2] = 0;
	put32(blk + 3, o.crc);
	dump_write(&o, blk, 7);
	dump_flush(&o);
	if (!o.cut)
		uart_puts("<err> coredump: #CD:END#\r\n");
}

/*
 * CrashCatcher's dump: signature and version, flags (no FP state on an M3),
 * pre-exception r0-r12 sp lr pc xpsr, msp, psp, the handler's xPSR, then
 * memory ranges; printed between its banner and "End of dump". The port does
 * not wait for a key before dumping: nobody on this link could press one.
 */
static void write_crashcatcher(const uint32_t *frame, uint32_t sp)
{
	static const uint8_t sig[4] = { 'c', 'C', 3, 0 };
	struct dump_out o = { .fmt = CRASHCATCHER_HEX };
	uint32_t regs[20], flags = 0, i;

	for (i = 0; i < 4; i++)
		regs[i] = frame[i];
	for (i = 0; i < 8; i++)
		regs[4 + i] = crash_entry.r4_r11[i];
	regs[12] = frame[4];
	regs[13] = sp;
	regs[14] = frame[5];
	regs[15] = frame[6];
	regs[16] = frame[7];
	regs[17] = sp;		/* the application runs on MSP */
	regs[18] = crash_entry.psp;
	__asm__ volatile("mrs %0, xpsr" : "=r"(regs[19]));
	uart_puts("\r\n\r\nCRASH ENCOUNTERED\r\n"
		  "Enable logging and then press any key to start dump.\r\n\r\n");
	dump_write(&o, sig, sizeof(sig));
	dump_flush(&o);
	dump_write(&o, &flags, sizeof(flags));
	dump_flush(&o);
	dump_write(&o, regs, sizeof(regs));
	dump_flush(&o);
	dump_memory(&o);
	uart_puts("\r\nEnd of dump\r\n");
}

void crash_handler(void)
{
	uint32_t er = crash_entry.exc_return, *frame, size;

	/* The application runs on the main stack: the frame is where MSP was at entry. */
	frame = (uint32_t *)crash_entry.msp;
	size = (er & 0x10) ? 0x20 : 0x68;
	if (frame[7] & (1u << 9))
		size += 4;
	log_line("err", "os", "fatal fault in life ", (int)life);
	if (life == CRASHCATCHER_LIFE)
		write_crashcatcher(frame, (uint32_t)frame + size);
	else
		write_zephyr(frame, (uint32_t)frame + size);
	log_line("wrn", "wdt", "watchdog reset after crash ", (int)life);
	/* Clear the sticky fault status (write one to clear), then return into restart(). */
	SCB_CFSR = SCB_CFSR;
	SCB_HFSR = SCB_HFSR;
	frame[6] = (uint32_t)restart & ~1u;
	frame[7] = 1u << 24;	/* Thumb state, no padding */
	__asm__ volatile("msr msp, %0\n"
			 "bx %1" : : "r"(frame), "r"(er) : "memory");
	for (;;)
		;
}

/* start.S's vectors name them; nothing here uses them. */
void pendsv_handler(void)
{
	for (;;)
		;
}

void systick_handler(void)
{
	for (;;)
		;
}
