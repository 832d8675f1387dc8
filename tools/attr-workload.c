// SPDX-License-Identifier: GPL-2.0
/*
 * attr-workload: map memory with a known data attributes layout, report it,
 * and keep it resident (optionally hot) until killed.
 *
 * usage: attr-workload [--anon MiB] [--thp MiB] [--file MiB] [--dir DIR]
 *                      [--hot] [--cold-anon MiB] [--cold-file MiB]
 *
 *   --anon MiB       private anonymous memory in base pages (MADV_NOHUGEPAGE)
 *   --thp MiB        private anonymous memory, 2 MiB aligned, MADV_HUGEPAGE
 *   --file MiB       shared mapping of a file in DIR (a tmpfs: not anonymous)
 *   --cold-anon MiB  like --anon, but never touched again after the setup
 *   --cold-file MiB  like --file, but never touched again after the setup
 *   --read-file MiB  a file in DIR that is never mapped: written with write()
 *                    and, with --hot, read with pread() over and over (the
 *                    page cache accesses that no page table shows)
 *   --cold-read-file MiB  like --read-file, but never read after the setup
 *   --interleave MiB a file mapping of which every other page is replaced by
 *                    an anonymous page: half anonymous at 4 KiB granularity,
 *                    the hard case for sampling
 *   --dir DIR        where the files are created (default /dev/shm)
 *   --hot            keep writing one byte per page of the hot areas
 *
 * Every page is written once during the setup, so all of it is resident.
 * Then one line per area is printed to stdout,
 *
 *   area <name> <start> <end> <bytes>
 *
 * with the virtual address range in hexadecimal (0 and the size for the files
 * that are not mapped), followed by "ready <pid>".
 * The process then stays until it gets SIGTERM or SIGINT.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#define MIB		(1UL << 20)
#define HPAGE_SIZE	(2UL * MIB)

struct area {
	const char *name;
	char *start;
	unsigned long len;
	int hot;
	int fd;		/* >= 0: a file accessed by read(), not mapped */
};

static struct area areas[8];
static int nr_areas;
static volatile sig_atomic_t stop;

static void on_signal(int sig)
{
	(void)sig;
	stop = 1;
}

static void die(const char *what)
{
	fprintf(stderr, "attr-workload: %s: %s\n", what, strerror(errno));
	exit(1);
}

/*
 * Write (never read first) one byte per page: a read fault would map the huge
 * zero page, which a 6.12 write fault then splits into base pages.
 */
static void touch(struct area *a, long page_sz)
{
	static char val, buf[MIB];
	unsigned long off;

	if (a->fd >= 0) {
		for (off = 0; off < a->len; off += sizeof(buf)) {
			if (pread(a->fd, buf, sizeof(buf), off) <= 0)
				die("pread");
		}
		return;
	}
	val++;
	for (off = 0; off < a->len; off += page_sz)
		((volatile char *)a->start)[off] = val;
}

static void add_anon(const char *name, unsigned long mib, int thp, int hot)
{
	unsigned long len = mib * MIB, map_len = len;
	char *p;

	if (!len)
		return;
	if (thp)	/* over-map to align the start to a huge page */
		map_len += HPAGE_SIZE;
	p = mmap(NULL, map_len, PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED)
		die("mmap anon");
	if (thp) {
		char *aligned = (char *)(((unsigned long)p + HPAGE_SIZE - 1) &
					 ~(HPAGE_SIZE - 1));

		if (aligned > p)
			munmap(p, aligned - p);
		munmap(aligned + len, p + map_len - (aligned + len));
		p = aligned;
	}
	if (madvise(p, len, thp ? MADV_HUGEPAGE : MADV_NOHUGEPAGE))
		die("madvise");
	areas[nr_areas++] = (struct area){ name, p, len, hot, -1 };
}

/* A new file in dir, already unlinked: it goes with its last user. */
static int open_unlinked(const char *dir, const char *name)
{
	char path[4096];
	int fd;

	snprintf(path, sizeof(path), "%s/attr-workload.%d.%s", dir, getpid(),
		 name);
	fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0600);
	if (fd < 0)
		die(path);
	unlink(path);
	return fd;
}

static char *add_file(const char *name, const char *dir, unsigned long mib,
		      int hot)
{
	unsigned long len = mib * MIB;
	char *p;
	int fd;

	if (!len)
		return NULL;
	fd = open_unlinked(dir, name);	/* freed when the mapping goes */
	if (ftruncate(fd, len))
		die("ftruncate");
	p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (p == MAP_FAILED)
		die("mmap file");
	close(fd);
	areas[nr_areas++] = (struct area){ name, p, len, hot, -1 };
	return p;
}

static void add_read_file(const char *name, const char *dir,
			  unsigned long mib, int hot)
{
	static char buf[MIB];
	unsigned long i;
	int fd;

	if (!mib)
		return;
	fd = open_unlinked(dir, name);	/* freed when the process exits */
	memset(buf, 1, sizeof(buf));
	for (i = 0; i < mib; i++) {
		if (write(fd, buf, sizeof(buf)) != sizeof(buf))
			die("write");
	}
	areas[nr_areas++] = (struct area){ name, NULL, mib * MIB, hot, fd };
}

static void add_interleave(const char *dir, unsigned long mib, int hot,
			   long page_sz)
{
	char *p = add_file("interleave", dir, mib, hot);
	unsigned long off;

	for (off = 0; p && off < mib * MIB; off += 2 * page_sz) {
		if (mmap(p + off, page_sz, PROT_READ | PROT_WRITE,
			 MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0) ==
		    MAP_FAILED)
			die("mmap interleave");
	}
}

int main(int argc, char **argv)
{
	unsigned long anon = 0, thp = 0, file = 0, cold_anon = 0, cold_file = 0;
	unsigned long interleave = 0, read_file = 0, cold_read_file = 0;
	const char *dir = "/dev/shm";
	long page_sz = sysconf(_SC_PAGESIZE);
	int hot = 0, i;

	for (i = 1; i < argc; i++) {
		const char *arg = argv[i];
		const char *val = i + 1 < argc ? argv[i + 1] : NULL;

		if (!strcmp(arg, "--hot")) {
			hot = 1;
			continue;
		}
		if (!val) {
			fprintf(stderr, "attr-workload: %s needs a value\n", arg);
			return 2;
		}
		i++;
		if (!strcmp(arg, "--anon"))
			anon = strtoul(val, NULL, 0);
		else if (!strcmp(arg, "--thp"))
			thp = strtoul(val, NULL, 0);
		else if (!strcmp(arg, "--file"))
			file = strtoul(val, NULL, 0);
		else if (!strcmp(arg, "--cold-anon"))
			cold_anon = strtoul(val, NULL, 0);
		else if (!strcmp(arg, "--cold-file"))
			cold_file = strtoul(val, NULL, 0);
		else if (!strcmp(arg, "--read-file"))
			read_file = strtoul(val, NULL, 0);
		else if (!strcmp(arg, "--cold-read-file"))
			cold_read_file = strtoul(val, NULL, 0);
		else if (!strcmp(arg, "--interleave"))
			interleave = strtoul(val, NULL, 0);
		else if (!strcmp(arg, "--dir"))
			dir = val;
		else {
			fprintf(stderr, "attr-workload: unknown option %s\n",
				arg);
			return 2;
		}
	}

	signal(SIGTERM, on_signal);
	signal(SIGINT, on_signal);
	add_anon("anon", anon, 0, hot);
	add_anon("thp", thp, 1, hot);
	add_file("file", dir, file, hot);
	add_anon("cold-anon", cold_anon, 0, 0);
	add_file("cold-file", dir, cold_file, 0);
	add_interleave(dir, interleave, hot, page_sz);
	add_read_file("read-file", dir, read_file, hot);
	add_read_file("cold-read-file", dir, cold_read_file, 0);
	for (i = 0; i < nr_areas; i++)
		touch(&areas[i], page_sz);
	for (i = 0; i < nr_areas; i++)
		printf("area %s %lx %lx %lu\n", areas[i].name,
		       (unsigned long)areas[i].start,
		       (unsigned long)areas[i].start + areas[i].len,
		       areas[i].len);
	printf("ready %d\n", getpid());
	fflush(stdout);

	while (!stop) {
		int touched = 0;

		for (i = 0; i < nr_areas && !stop; i++) {
			if (areas[i].hot) {
				touch(&areas[i], page_sz);
				touched = 1;
			}
		}
		if (!touched)
			pause();
	}
	return 0;
}
