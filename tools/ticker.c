// SPDX-License-Identifier: GPL-2.0
/*
 * ticker: usage: ticker <cpu> [sleep_ns, default 1000000]
 *
 * Pins itself to <cpu> and sleeps in a loop, forcing frequent context switches
 * (CR3 reloads) there.  Under QEMU TCG this makes PTE Accessed bits that DAMON
 * cleared get set again on the next access (the software TLB otherwise keeps
 * the old translation), so DAMON's access checks see accesses.  Started on
 * every vCPU by guest/init.sh when the guest runs under TCG.
 */
#define _GNU_SOURCE
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

int main(int argc, char **argv)
{
	struct timespec ts = { 0, argc > 2 ? atol(argv[2]) : 1000000 };
	cpu_set_t set;

	if (argc < 2) {
		fprintf(stderr, "usage: %s <cpu> [sleep_ns]\n", argv[0]);
		return 2;
	}
	CPU_ZERO(&set);
	CPU_SET(atoi(argv[1]), &set);
	if (sched_setaffinity(0, sizeof(set), &set))
		perror("sched_setaffinity");
	for (;;)
		nanosleep(&ts, NULL);
}
