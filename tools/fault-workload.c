// SPDX-License-Identifier: GPL-2.0
/*
 * fault-workload: page-fault continuously on private anonymous memory and
 * report the fault rate and the worst single fault, for measuring what
 * monitoring costs a workload that faults.
 *
 * usage: fault-workload MiB
 *
 * Maps MiB of private anonymous memory in base pages (MADV_NOHUGEPAGE),
 * writes every page once, prints
 *
 *   area fault <start> <end> <bytes>
 *   ready <pid>
 *
 * and then, until SIGTERM or SIGINT, writes one byte to every page in turn,
 * each write a page fault, and zaps the area with MADV_DONTNEED after every
 * pass so that the next pass faults again.  On every SIGUSR1 it prints
 *
 *   faults <n> ns <elapsed> max_ns <worst>
 *
 * for the faults since the previous SIGUSR1 (or since "ready"): their number,
 * the nanoseconds that passed and the longest single write (fault) among
 * them.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#define MIB	(1UL << 20)

static volatile sig_atomic_t stop, report;

static void on_stop(int sig)
{
	(void)sig;
	stop = 1;
}

static void on_report(int sig)
{
	(void)sig;
	report = 1;
}

static void die(const char *what)
{
	fprintf(stderr, "fault-workload: %s: %s\n", what, strerror(errno));
	exit(1);
}

static unsigned long long now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

int main(int argc, char **argv)
{
	long page_sz = sysconf(_SC_PAGESIZE);
	unsigned long long faults = 0, start, t0, t1, worst = 0;
	unsigned long len, off;
	char *p;

	if (argc != 2 || !(len = strtoul(argv[1], NULL, 0) * MIB)) {
		fprintf(stderr, "usage: fault-workload MiB\n");
		return 2;
	}
	p = mmap(NULL, len, PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED)
		die("mmap");
	if (madvise(p, len, MADV_NOHUGEPAGE))
		die("madvise");
	for (off = 0; off < len; off += page_sz)
		((volatile char *)p)[off] = 1;
	signal(SIGTERM, on_stop);
	signal(SIGINT, on_stop);
	signal(SIGUSR1, on_report);
	printf("area fault %lx %lx %lu\n", (unsigned long)p,
	       (unsigned long)p + len, len);
	printf("ready %d\n", getpid());
	fflush(stdout);

	start = now_ns();
	while (!stop) {
		if (madvise(p, len, MADV_DONTNEED))
			die("madvise(MADV_DONTNEED)");
		for (off = 0; off < len && !stop; off += page_sz) {
			t0 = now_ns();
			((volatile char *)p)[off] = 1;
			t1 = now_ns();
			faults++;
			if (t1 - t0 > worst)
				worst = t1 - t0;
			if (report) {
				report = 0;
				printf("faults %llu ns %llu max_ns %llu\n",
				       faults, t1 - start, worst);
				fflush(stdout);
				faults = 0;
				worst = 0;
				start = now_ns();
			}
		}
	}
	return 0;
}
