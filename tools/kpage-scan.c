// SPDX-License-Identifier: GPL-2.0
/*
 * kpage-scan: page-level ground truth of data attributes for physical
 * address ranges, the way a user would get it without data attributes
 * monitoring: by reading /proc/kpageflags and /proc/kpagecgroup for every
 * page frame.
 *
 * usage: kpage-scan [--memcg PATH] < ranges
 *
 * Reads "start end" physical address pairs (decimal or 0x-hex), one range
 * per line, and prints for each
 *
 *   <start> <end> <lru> <anon> <memcg> <thp>
 *
 * in bytes: the LRU pages of the range (data probes see only LRU folios),
 * and among them the anonymous ones, those charged to the memcg of cgroup
 * directory PATH (by inode number, as /proc/kpagecgroup reports it), and
 * those of transparent huge pages.  Needs root.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define KPF_LRU		5
#define KPF_ANON	12
#define KPF_THP		22
#define BATCH		4096

static void die(const char *what)
{
	fprintf(stderr, "kpage-scan: %s: %s\n", what, strerror(errno));
	exit(1);
}

static void read_at(int fd, uint64_t *buf, size_t n, uint64_t pfn,
		    const char *name)
{
	ssize_t got = pread(fd, buf, n * 8, pfn * 8);

	if (got < 0)
		die(name);
	/* past the end of the memory map: no page */
	if ((size_t)got < n * 8)
		memset((char *)buf + got, 0, n * 8 - got);
}

int main(int argc, char **argv)
{
	static uint64_t flags[BATCH], cgs[BATCH];
	uint64_t memcg_ino = 0;
	unsigned long long start, end;
	long page = sysconf(_SC_PAGESIZE);
	int fd_flags, fd_cg = -1;
	struct stat st;

	if (argc == 3 && !strcmp(argv[1], "--memcg")) {
		if (stat(argv[2], &st))
			die(argv[2]);
		memcg_ino = st.st_ino;
	} else if (argc != 1) {
		fprintf(stderr, "usage: kpage-scan [--memcg PATH] < ranges\n");
		return 2;
	}
	fd_flags = open("/proc/kpageflags", O_RDONLY);
	if (fd_flags < 0)
		die("/proc/kpageflags");
	if (memcg_ino) {
		fd_cg = open("/proc/kpagecgroup", O_RDONLY);
		if (fd_cg < 0)
			die("/proc/kpagecgroup");
	}

	while (scanf("%lli %lli", &start, &end) == 2) {
		uint64_t pfn = start / page, last = end / page;
		unsigned long long lru = 0, anon = 0, memcg = 0, thp = 0;

		while (pfn < last) {
			size_t n = last - pfn < BATCH ? last - pfn : BATCH;
			size_t i;

			read_at(fd_flags, flags, n, pfn, "/proc/kpageflags");
			if (fd_cg >= 0)
				read_at(fd_cg, cgs, n, pfn, "/proc/kpagecgroup");
			for (i = 0; i < n; i++) {
				if (!(flags[i] >> KPF_LRU & 1))
					continue;
				lru++;
				anon += flags[i] >> KPF_ANON & 1;
				thp += flags[i] >> KPF_THP & 1;
				memcg += fd_cg >= 0 && cgs[i] == memcg_ino;
			}
			pfn += n;
		}
		printf("%llu %llu %llu %llu %llu %llu\n", start, end,
		       lru * page, anon * page, memcg * page, thp * page);
	}
	return 0;
}
