// SPDX-License-Identifier: GPL-2.0
/* board.c - the tick: SysTick at the lowest priority, like PendSV, so neither preempts the other. */
#include <stdint.h>
#include "rtos.h"

#define SHPR3		(*(volatile uint32_t *)0xE000ED20)
#define SYST_CSR	(*(volatile uint32_t *)0xE000E010)
#define SYST_RVR	(*(volatile uint32_t *)0xE000E014)
#define SYST_CVR	(*(volatile uint32_t *)0xE000E018)
#define TICK_CYCLES	50000	/* 2 ms at the MPS2 boards' 25 MHz */

void board_start_tick(void)
{
	SHPR3 |= 0xFFFF0000u;	/* PendSV and SysTick priority bytes */
	SYST_RVR = TICK_CYCLES - 1;
	SYST_CVR = 0;
	SYST_CSR = 7;		/* processor clock, interrupt, enable */
}

void systick_handler(void)
{
	rtos_tick();
}
