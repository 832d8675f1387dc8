// SPDX-License-Identifier: GPL-2.0
/*
 * tsc-khz: print the host's TSC frequency in kHz, measured against
 * CLOCK_MONOTONIC_RAW over ~200 ms.
 *
 * Under QEMU TCG the guest's TSC is the host's TSC, but a guest without ACPI
 * has no HPET/PM timer to calibrate it against, and its PIT calibration goes
 * badly wrong when the host is busy (seen: 487 MHz for a 2596 MHz TSC, making
 * the guest clock run 5x fast, so timeouts and DAMON intervals break).
 * scripts/run-vm.sh passes this value as tsc_early_khz= to the guest.
 */
#include <stdint.h>
#include <stdio.h>
#include <time.h>
#include <x86intrin.h>

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC_RAW, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* a TSC value and the time it was read, bracketed tightly */
static void sample(uint64_t *tsc, double *t)
{
	for (int i = 0; i < 1000; i++) {
		double a = now();
		uint64_t c = __rdtsc();
		double b = now();

		*tsc = c;
		*t = (a + b) / 2;
		if (b - a < 20e-6)
			return;
	}
}

int main(void)
{
	struct timespec d = { 0, 200000000 };
	uint64_t c0, c1;
	double t0, t1;

	sample(&c0, &t0);
	nanosleep(&d, NULL);
	sample(&c1, &t1);
	printf("%.0f\n", (c1 - c0) / (t1 - t0) / 1000);
	return 0;
}
