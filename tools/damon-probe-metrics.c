// SPDX-License-Identifier: GPL-2.0
/*
 * damon-probe-metrics: DAMON data probe results as Prometheus metrics, for
 * prometheus-node-exporter's textfile collector.
 *
 * usage: damon-probe-metrics [-o FILE] [-i SECONDS] [-c COUNT] [-s DIR] [-N]
 *
 *   -o FILE     where the metrics go, replaced atomically at every read (a
 *               temporary file in the same directory, then rename());
 *               "-" writes to stdout.  Default:
 *               /var/lib/prometheus/node-exporter/damon-probes.prom
 *   -i SECONDS  interval between reads (default 10; may be a fraction)
 *   -c COUNT    stop after COUNT reads (default 0: run until killed)
 *   -s DIR      the DAMON sysfs admin directory
 *               (default /sys/kernel/mm/damon/admin)
 *   -N          do not write update_schemes_tried_regions: read the tried
 *               regions as they are (recorded trees, tests)
 *
 * Every read, for every running kdamond ("on") and each of its contexts
 * that has a stat scheme trying every region (action stat, an access
 * pattern every region has, no filter, no quota, no watermarks): writes
 * update_schemes_tried_regions to the kdamond's state file, reads the
 * scheme's tried regions and the context's probes, and estimates, per
 * probe and hotness band, the bytes whose sampled pages hit the probe:
 * sum(size * hits / max_hits), max_hits = aggr_us / sample_us, with the
 * standard error of that sum.  Bands, as make run's demo: hot when
 * nr_accesses >= max_hits / 2 (2 * nr_accesses >= max_hits), cold when 0,
 * warm in between.
 *
 * A context is published only when one window was read whole: the
 * operations, intervals and probes were the same before the update and
 * after the read, every tried region directory is still the one read (same
 * inode), paddr and fvaddr regions cover the targets' ranges exactly, the
 * probe directories are 0..N-1 with N the number of probes in every region,
 * every number parses and no count is above max_hits.  Otherwise the read
 * is retried, and a context that still fails is left out of that file (and
 * counted in damon_probe_metrics_skipped_contexts).  When the settings of a
 * context differ from those of the previous read (and at the first read),
 * the tool waits two aggregation intervals and updates again, so that the
 * window read is one counted with the probes it is labelled with.
 *
 * tools/README.md says why sysfs and not the tracepoint, and what this does
 * to the running kdamonds.
 */
#define _GNU_SOURCE
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <math.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define MAX_PROBES	4	/* DAMON_MAX_PROBES */
#define MAX_FILTERS	8
#define LABEL_LEN	1024
#define NR_BANDS	3
#define NR_TRIES	3

static const char *const band_names[NR_BANDS] = { "hot", "warm", "cold" };

struct region {
	unsigned long long start, end, nr_accesses;
	unsigned long long hits[MAX_PROBES];
};

struct context {
	int kdamond, context;
	char ops[32];
	unsigned long long sample_us, aggr_us, max_hits;
	int nr_probes;
	char filters[MAX_PROBES][LABEL_LEN];	/* one label per probe */
	struct region *regions;
	size_t nr_regions, cap;
	/* the sums of a published window, per band */
	double bytes[NR_BANDS];
	unsigned long nr_band_regions[NR_BANDS];
	double est[MAX_PROBES][NR_BANDS], var[MAX_PROBES][NR_BANDS];
};

/* What the previous read saw of one context, to notice probe changes. */
struct seen {
	int kdamond, context;
	char probes[MAX_PROBES * LABEL_LEN + 16];
};

static const char *admin = "/sys/kernel/mm/damon/admin";
static volatile sig_atomic_t stop;	/* SIGTERM or SIGINT */
static bool no_update;
static char err_msg[512];	/* why the last context read failed */

static struct seen *seen, *seen_next;
static size_t nr_seen, nr_seen_next;

static int fail(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(err_msg, sizeof(err_msg), fmt, ap);
	va_end(ap);
	return -1;
}

/* Format a path into buf (PATH_MAX bytes); -1 if it does not fit. */
static int mkpath(char *buf, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(buf, PATH_MAX, fmt, ap);
	va_end(ap);
	return n < PATH_MAX ? 0 : fail("path too long: %s...", buf);
}

/* Read a small sysfs file into buf (without the trailing newline). */
static int read_str(char *buf, size_t len, const char *fmt, ...)
{
	char path[PATH_MAX];
	va_list ap;
	ssize_t n = -1;
	int fd, tries;

	va_start(ap, fmt);
	vsnprintf(path, sizeof(path), fmt, ap);
	va_end(ap);
	/* EBUSY: state while another writer's command holds the lock */
	for (tries = 0; tries < 100; tries++) {
		fd = open(path, O_RDONLY | O_CLOEXEC);
		if (fd < 0)
			return fail("%s: %s", path, strerror(errno));
		n = read(fd, buf, len - 1);
		close(fd);
		if (n >= 0 || errno != EBUSY)
			break;
		usleep(10000);
	}
	if (n < 0)
		return fail("%s: %s", path, strerror(errno));
	buf[n] = '\0';
	if (n && buf[n - 1] == '\n')
		buf[n - 1] = '\0';
	return 0;
}

/* Parse one unsigned decimal number, the whole string; -1 if it is not. */
static int parse_ull(const char *s, unsigned long long *val)
{
	char *end;

	if (!isdigit((unsigned char)s[0]))
		return -1;
	errno = 0;
	*val = strtoull(s, &end, 10);
	if (errno || *end)
		return -1;
	return 0;
}

/* Read a sysfs file holding one unsigned decimal number. */
static int read_ull(unsigned long long *val, const char *fmt, ...)
{
	char path[PATH_MAX], buf[64];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(path, sizeof(path), fmt, ap);
	va_end(ap);
	if (read_str(buf, sizeof(buf), "%s", path))
		return -1;
	if (parse_ull(buf, val))
		return fail("%s: '%s' is not a decimal number", path, buf);
	return 0;
}

/* The same as read_ull(), relative to directory fd dfd. */
static int read_ull_at(int dfd, const char *name, unsigned long long *val,
		       const char *dir)
{
	char buf[64];
	ssize_t n;
	int fd = openat(dfd, name, O_RDONLY | O_CLOEXEC), err = errno;

	if (fd < 0) {
		fail("%s/%s: %s", dir, name, strerror(err));
		errno = err;	/* ENOENT: callers tell a missing file */
		return -1;
	}
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n < 0)
		return fail("%s/%s: %s", dir, name, strerror(errno));
	buf[n] = '\0';
	if (n && buf[n - 1] == '\n')
		buf[n - 1] = '\0';
	if (parse_ull(buf, val))
		return fail("%s/%s: '%s' is not a decimal number", dir, name, buf);
	return 0;
}

struct entry {
	unsigned long long num;
	ino_t ino;
};

static int cmp_entry(const void *a, const void *b)
{
	unsigned long long x = ((const struct entry *)a)->num;
	unsigned long long y = ((const struct entry *)b)->num;

	return x < y ? -1 : x > y;
}

/*
 * The numbered entries of directory dfd, which must be exactly 0..N-1:
 * returns N, or -1.  Other names (total_bytes...) are ignored.  With inos,
 * *inos gets the inode number of each, in number order (from the directory
 * itself: sysfs, as tmpfs, gives d_ino, and does not reuse inode numbers at
 * once).
 */
static long numbered_entries(int dfd, const char *dir, ino_t **inos)
{
	static struct entry *ents;
	static size_t cap;
	size_t n = 0, i;
	struct dirent *de;
	DIR *d;
	int fd = dup(dfd);

	if (fd < 0)
		return fail("%s: %s", dir, strerror(errno));
	d = fdopendir(fd);
	if (!d) {
		close(fd);
		return fail("%s: %s", dir, strerror(errno));
	}
	rewinddir(d);
	while ((de = readdir(d))) {
		unsigned long long v;

		if (parse_ull(de->d_name, &v))
			continue;
		if (n == cap) {
			cap = cap ? cap * 2 : 1024;
			ents = realloc(ents, cap * sizeof(*ents));
			if (!ents) {
				perror("damon-probe-metrics: realloc");
				exit(1);
			}
		}
		ents[n].num = v;
		ents[n++].ino = de->d_ino;
	}
	closedir(d);
	qsort(ents, n, sizeof(*ents), cmp_entry);
	for (i = 0; i < n; i++)
		if (ents[i].num != i)
			return fail("%s: entry %zu of %zu is named %llu",
				    dir, i, n, ents[i].num);
	if (inos) {
		*inos = realloc(*inos, (n + 1) * sizeof(**inos));
		if (!*inos) {
			perror("damon-probe-metrics: realloc");
			exit(1);
		}
		for (i = 0; i < n; i++)
			(*inos)[i] = ents[i].ino;
	}
	return n;
}

static bool file_exists(const char *fmt, ...)
{
	char path[PATH_MAX];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(path, sizeof(path), fmt, ap);
	va_end(ap);
	return access(path, F_OK) == 0;
}

/*
 * Render the filters of probe p of context dir ctx as damo writes them,
 * "allow anon, reject none memcg /x": into out.
 */
static int probe_label(const char *ctx, int p, char *out, size_t len)
{
	char pdir[PATH_MAX], type[64], matching[8], allow[8], arg[512];
	unsigned long long nr, f, min, max;
	size_t used = 0;

	snprintf(pdir, sizeof(pdir), "%s/monitoring_attrs/probes/%d/filters",
		 ctx, p);
	if (read_ull(&nr, "%s/nr_filters", pdir))
		return -1;
	if (nr > MAX_FILTERS)
		return fail("%s/nr_filters: %llu filters", pdir, nr);
	out[0] = '\0';
	if (!nr) {
		snprintf(out, len, "(no filter)");
		return 0;
	}
	for (f = 0; f < nr; f++) {
		if (read_str(type, sizeof(type), "%s/%llu/type", pdir, f) ||
		    read_str(matching, sizeof(matching), "%s/%llu/matching",
			     pdir, f) ||
		    read_str(allow, sizeof(allow), "%s/%llu/allow", pdir, f))
			return -1;
		arg[0] = '\0';
		if (!strcmp(type, "memcg")) {
			if (read_str(arg, sizeof(arg), "%s/%llu/path", pdir, f))
				return -1;
		} else if (!strcmp(type, "hugepage_size")) {
			if (read_ull(&min, "%s/%llu/min", pdir, f) ||
			    read_ull(&max, "%s/%llu/max", pdir, f))
				return -1;
			snprintf(arg, sizeof(arg), "%llu %llu", min, max);
		}
		used += snprintf(out + used, len - used, "%s%s %s%s%s%s",
				 f ? ", " : "", allow[0] == 'Y' ? "allow" : "reject",
				 matching[0] == 'Y' ? "" : "none ", type,
				 arg[0] ? " " : "", arg);
		if (used >= len)
			return fail("%s: filters longer than %zu bytes", pdir, len);
	}
	return 0;
}

/* The probes of context dir ctx: c->nr_probes and c->filters. */
static int read_probes(const char *ctx, struct context *c)
{
	unsigned long long nr;
	int p;

	if (!file_exists("%s/monitoring_attrs/probes", ctx)) {
		c->nr_probes = 0;	/* a kernel without data probes */
		return 0;
	}
	if (read_ull(&nr, "%s/monitoring_attrs/probes/nr_probes", ctx))
		return -1;
	if (nr > MAX_PROBES)
		return fail("%s: %llu probes", ctx, nr);
	c->nr_probes = nr;
	for (p = 0; p < c->nr_probes; p++)
		if (probe_label(ctx, p, c->filters[p], sizeof(c->filters[p])))
			return -1;
	return 0;
}

/* What a window's numbers depend on: intervals and probes, as one string. */
static void probes_key(const struct context *c, char *key, size_t len)
{
	size_t used = snprintf(key, len, "%s %llu %llu %d", c->ops,
			       c->sample_us, c->aggr_us, c->nr_probes);
	int p;

	for (p = 0; p < c->nr_probes && used < len; p++)
		used += snprintf(key + used, len - used, "\n%s", c->filters[p]);
}

/* The operations, intervals and probes of context dir cdir into c. */
static int read_settings(const char *cdir, struct context *c)
{
	if (read_str(c->ops, sizeof(c->ops), "%s/operations", cdir) ||
	    read_ull(&c->sample_us, "%s/monitoring_attrs/intervals/sample_us",
		     cdir) ||
	    read_ull(&c->aggr_us, "%s/monitoring_attrs/intervals/aggr_us", cdir))
		return -1;
	if (!c->sample_us || c->aggr_us < c->sample_us)
		return fail("%s: aggr_us %llu, sample_us %llu", cdir, c->aggr_us,
			    c->sample_us);
	c->max_hits = c->aggr_us / c->sample_us;
	return read_probes(cdir, c);
}

/*
 * Whether scheme s of context dir ctx tries every region of every window:
 * a stat scheme with an access pattern that every region has, no filter,
 * no quota and no watermarks.
 */
static bool scheme_tries_all(const char *ctx, int s,
			     unsigned long long max_hits)
{
	char d[PATH_MAX], buf[64];
	unsigned long long v;

	if (mkpath(d, "%s/schemes/%d", ctx, s))
		return false;
	if (read_str(buf, sizeof(buf), "%s/action", d) || strcmp(buf, "stat"))
		return false;
	if (read_ull(&v, "%s/access_pattern/sz/min", d) || v ||
	    read_ull(&v, "%s/access_pattern/sz/max", d) || v != ULLONG_MAX ||
	    read_ull(&v, "%s/access_pattern/nr_accesses/min", d) || v ||
	    read_ull(&v, "%s/access_pattern/nr_accesses/max", d) ||
	    v < max_hits ||
	    read_ull(&v, "%s/access_pattern/age/min", d) || v ||
	    read_ull(&v, "%s/access_pattern/age/max", d) || v < UINT_MAX)
		return false;
	if (read_ull(&v, "%s/filters/nr_filters", d) || v)
		return false;
	if (read_ull(&v, "%s/quotas/ms", d) || v ||
	    read_ull(&v, "%s/quotas/bytes", d) || v)
		return false;
	if (file_exists("%s/quotas/goals/nr_goals", d) &&
	    (read_ull(&v, "%s/quotas/goals/nr_goals", d) || v))
		return false;
	if (file_exists("%s/watermarks/metric", d) &&
	    (read_str(buf, sizeof(buf), "%s/watermarks/metric", d) ||
	     strcmp(buf, "none")))
		return false;
	return true;
}

/* The index of the first scheme of ctx that tries every region, or -1. */
static int find_scheme(const char *ctx, unsigned long long max_hits)
{
	unsigned long long nr, s;

	if (read_ull(&nr, "%s/schemes/nr_schemes", ctx))
		return -1;
	for (s = 0; s < nr; s++)
		if (scheme_tries_all(ctx, s, max_hits))
			return s;
	return fail("%s: no stat scheme trying every region", ctx);
}

static void add_region(struct context *c, const struct region *r)
{
	if (c->nr_regions == c->cap) {
		c->cap = c->cap ? c->cap * 2 : 256;
		c->regions = realloc(c->regions, c->cap * sizeof(*r));
		if (!c->regions) {
			perror("damon-probe-metrics: realloc");
			exit(1);
		}
	}
	c->regions[c->nr_regions++] = *r;
}

/*
 * The hits of the probe directories of region r (tfd: the tried_regions
 * directory, path tdir) into reg->hits.  Returns the number of probe
 * directories when it is c->nr_probes, another number when it is not, -1
 * with err_msg set on a bad file.  The kernel numbers them 0..N-1, so
 * checking that <N-1> exists and <N> does not is enough, and cheaper than
 * reading the directory, for every region.
 */
static long read_hits(int tfd, const char *tdir, long r,
		      const struct context *c, struct region *reg)
{
	char name[64];
	long p;

	for (p = 0; p < c->nr_probes; p++) {
		snprintf(name, sizeof(name), "%ld/probes/%ld/hits", r, p);
		if (read_ull_at(tfd, name, &reg->hits[p], tdir))
			return errno == ENOENT ? p : -1;
		if (reg->hits[p] > c->max_hits)
			return fail("%s/%s: %llu hits, above aggr/sample %llu",
				    tdir, name, reg->hits[p], c->max_hits);
	}
	snprintf(name, sizeof(name), "%ld/probes/%ld", r, p);
	return faccessat(tfd, name, F_OK, 0) ? p : p + 1;
}

/*
 * Read the tried regions of directory tdir into c: each region's start,
 * end, nr_accesses and probes/<P>/hits.  Records the inode of every region
 * directory in *inos, to check afterwards that none was replaced.
 */
static int read_tried_regions(const char *tdir, struct context *c,
			      ino_t **inos)
{
	char name[64];
	struct region reg;
	long nr, r, np;
	int tfd;

	c->nr_regions = 0;
	tfd = open(tdir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (tfd < 0)
		return fail("%s: %s", tdir, strerror(errno));
	nr = numbered_entries(tfd, tdir, inos);
	for (r = 0; r < nr; r++) {
		memset(&reg, 0, sizeof(reg));
#define FIELD(f)	(snprintf(name, sizeof(name), "%ld/" #f, r), \
			 read_ull_at(tfd, name, &reg.f, tdir))
		if (FIELD(start) || FIELD(end) || FIELD(nr_accesses))
			break;
#undef FIELD
		if (reg.end <= reg.start) {
			fail("%s/%ld: end %llu is not above start %llu", tdir, r,
			     reg.end, reg.start);
			break;
		}
		if (reg.nr_accesses > c->max_hits) {
			fail("%s/%ld: nr_accesses %llu above aggr/sample %llu",
			     tdir, r, reg.nr_accesses, c->max_hits);
			break;
		}
		np = read_hits(tfd, tdir, r, c, &reg);
		if (np < 0)
			break;
		if (np != c->nr_probes) {
			fail("%s/%ld: %ld probe directories, the context has %d probes",
			     tdir, r, np, c->nr_probes);
			break;
		}
		add_region(c, &reg);
	}
	close(tfd);
	return nr >= 0 && r == nr ? 0 : -1;
}

/*
 * The bytes that the regions of a paddr or fvaddr context cover: the
 * ranges of its targets, page aligned as DAMON aligns them; 0 for vaddr
 * (the ranges are DAMON's own), without targets' ranges, or on an error.
 */
static unsigned long long target_bytes(const char *cdir, const char *ops)
{
	unsigned long long nr_t, nr_r, t, r, start, end, sum = 0;
	unsigned long long page = sysconf(_SC_PAGESIZE);

	if (strcmp(ops, "paddr") && strcmp(ops, "fvaddr"))
		return 0;
	if (read_ull(&nr_t, "%s/targets/nr_targets", cdir))
		return 0;
	for (t = 0; t < nr_t; t++) {
		if (read_ull(&nr_r, "%s/targets/%llu/regions/nr_regions", cdir, t))
			return 0;
		for (r = 0; r < nr_r; r++) {
			if (read_ull(&start, "%s/targets/%llu/regions/%llu/start",
				     cdir, t, r) ||
			    read_ull(&end, "%s/targets/%llu/regions/%llu/end",
				     cdir, t, r))
				return 0;
			start -= start % page;
			end = (end + page - 1) / page * page;
			if (end > start)
				sum += end - start;
		}
	}
	return sum;
}

/* Whether the region directories of tdir are still those read (inodes). */
static int same_regions(const char *tdir, size_t nr, const ino_t *inos)
{
	static ino_t *now;
	int tfd = open(tdir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	long n;
	size_t r;

	if (tfd < 0)
		return fail("%s: %s", tdir, strerror(errno));
	n = numbered_entries(tfd, tdir, &now);
	close(tfd);
	if (n < 0)
		return -1;
	if (n != (long)nr)
		return fail("%s: %zu regions read, %ld now", tdir, nr, n);
	for (r = 0; r < nr; r++)
		if (now[r] != inos[r])
			return fail("%s/%zu was replaced while it was read", tdir, r);
	return 0;
}

static struct seen *find_seen(struct seen *arr, size_t n, int k, int ctx)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (arr[i].kdamond == k && arr[i].context == ctx)
			return &arr[i];
	return NULL;
}

static void remember(const struct context *c, const char *key)
{
	struct seen *s;

	seen_next = realloc(seen_next, (nr_seen_next + 1) * sizeof(*seen_next));
	if (!seen_next) {
		perror("damon-probe-metrics: realloc");
		exit(1);
	}
	s = &seen_next[nr_seen_next++];
	s->kdamond = c->kdamond;
	s->context = c->context;
	snprintf(s->probes, sizeof(s->probes), "%s", key);
}

static int write_state(int k, const char *cmd)
{
	char path[PATH_MAX];
	int fd, tries, rc = -1;

	snprintf(path, sizeof(path), "%s/kdamonds/%d/state", admin, k);
	/* EBUSY: another writer holds the lock for a moment, as damo retries */
	for (tries = 0; tries < 100; tries++) {
		fd = open(path, O_WRONLY | O_CLOEXEC);
		if (fd < 0)
			break;
		rc = write(fd, cmd, strlen(cmd)) == (ssize_t)strlen(cmd) ? 0 : -1;
		close(fd);
		if (!rc || errno != EBUSY)
			break;
		usleep(10000);
	}
	return rc ? fail("%s: writing %s: %s", path, cmd, strerror(errno)) : 0;
}

static void sleep_us(unsigned long long us)
{
	struct timespec ts = { us / 1000000, us % 1000000 * 1000 };

	while (nanosleep(&ts, &ts) && errno == EINTR && !stop)
		;
}

/* The band of a region, as make run's demo (demo/attr-demo.py) has it. */
static int band_of(unsigned long long nr_accesses, unsigned long long max_hits)
{
	if (nr_accesses * 2 >= max_hits)
		return 0;
	return nr_accesses ? 1 : 2;
}

/*
 * Sum the regions of c per band: bytes, regions, and per probe the
 * estimate sum(size * hits / max_hits) and its variance.  A region of size
 * S with a fraction p of its pages having the attributes gives
 * hits ~ Binomial(max_hits, p): the variance of S * hits / max_hits is
 * S^2 p (1 - p) / max_hits, with p estimated as (hits + 1/2) /
 * (max_hits + 1), so that 0 or max_hits hits do not claim certainty
 * (bench/results/accuracy.md: with hits / max_hits, windows of regions
 * that are all of one kind but a page had no error bar, and coverage fell
 * to 69-77%).
 */
static void summarize(struct context *c)
{
	size_t i;
	int p, b;

	memset(c->bytes, 0, sizeof(c->bytes));
	memset(c->nr_band_regions, 0, sizeof(c->nr_band_regions));
	memset(c->est, 0, sizeof(c->est));
	memset(c->var, 0, sizeof(c->var));
	for (i = 0; i < c->nr_regions; i++) {
		const struct region *r = &c->regions[i];
		double sz = r->end - r->start;

		b = band_of(r->nr_accesses, c->max_hits);
		c->bytes[b] += sz;
		c->nr_band_regions[b]++;
		for (p = 0; p < c->nr_probes; p++) {
			double f = (double)r->hits[p] / c->max_hits;
			double q = (r->hits[p] + 0.5) / (c->max_hits + 1);

			c->est[p][b] += sz * f;
			c->var[p][b] += sz * sz * q * (1 - q) / c->max_hits;
		}
	}
}

/*
 * Read context ctx of kdamond k into c, one whole window (see the top
 * comment); 0 on success, -1 with err_msg set.
 */
static int read_context(int k, int ctx, struct context *c, ino_t **inos)
{
	char cdir[PATH_MAX], tdir[PATH_MAX];
	char key0[sizeof(seen->probes)], key1[sizeof(seen->probes)];
	unsigned long long covered, want;
	struct context again;
	struct seen *prev;
	int s, tries;

	c->kdamond = k;
	c->context = ctx;
	snprintf(cdir, sizeof(cdir), "%s/kdamonds/%d/contexts/%d", admin, k, ctx);
	for (tries = 0; tries < NR_TRIES; tries++) {
		if (read_settings(cdir, c))
			return -1;
		s = find_scheme(cdir, c->max_hits);
		if (s < 0)
			return -1;
		probes_key(c, key0, sizeof(key0));
		if (!no_update) {
			if (write_state(k, "update_schemes_tried_regions"))
				return -1;
			prev = find_seen(seen, nr_seen, k, ctx);
			if (!prev || strcmp(prev->probes, key0)) {
				/*
				 * New or changed probes: the window just
				 * read may have begun under the old ones.
				 */
				sleep_us(2 * c->aggr_us);
				if (write_state(k, "update_schemes_tried_regions"))
					return -1;
			}
		}
		if (mkpath(tdir, "%s/schemes/%d/tried_regions", cdir, s))
			return -1;
		if (read_tried_regions(tdir, c, inos))
			continue;
		/* nothing changed while we read? */
		again = *c;
		if (read_settings(cdir, &again))
			continue;
		probes_key(&again, key1, sizeof(key1));
		if (strcmp(key0, key1)) {
			fail("%s: the settings changed while they were read", cdir);
			continue;
		}
		if (same_regions(tdir, c->nr_regions, *inos))
			continue;
		/*
		 * Another writer's update may have removed the regions before
		 * we read them, and be adding its own: a prefix of a window.
		 * paddr and fvaddr windows cover the targets' ranges exactly.
		 */
		covered = 0;
		for (size_t i = 0; i < c->nr_regions; i++)
			covered += c->regions[i].end - c->regions[i].start;
		want = target_bytes(cdir, c->ops);
		if (want && covered != want) {
			fail("%s: the tried regions cover %llu bytes, the targets %llu",
			     tdir, covered, want);
			continue;
		}
		remember(c, key0);
		summarize(c);
		return 0;
	}
	return -1;
}

/* A label value with \, " and newline escaped, as the text format wants. */
static void put_label(FILE *f, const char *s)
{
	for (; *s; s++) {
		if (*s == '\\' || *s == '"')
			fputc('\\', f);
		if (*s == '\n')
			fputs("\\n", f);
		else
			fputc(*s, f);
	}
}

static void put_ctx_labels(FILE *f, const struct context *c)
{
	fprintf(f, "kdamond=\"%d\",context=\"%d\",ops=\"", c->kdamond,
		c->context);
	put_label(f, c->ops);
	fputc('"', f);
}

static void family(FILE *f, const char *name, const char *type,
		   const char *help)
{
	fprintf(f, "# HELP %s %s\n# TYPE %s %s\n", name, help, name, type);
}

/* The metrics of the published contexts cs[0..n-1]: exposition format. */
static void write_metrics(FILE *f, const struct context *cs, size_t n,
			  size_t skipped, double read_s)
{
	struct rusage ru;
	size_t i;
	int p, b;

	family(f, "damon_probe_bytes", "gauge",
	       "Estimated bytes of the regions of a hotness band whose sampled pages hit the probe: sum(size * hits / (aggr_us / sample_us)), one aggregation window.");
	for (i = 0; i < n; i++)
		for (p = 0; p < cs[i].nr_probes; p++)
			for (b = 0; b < NR_BANDS; b++) {
				fputs("damon_probe_bytes{", f);
				put_ctx_labels(f, &cs[i]);
				fprintf(f, ",probe=\"%d\",filters=\"", p);
				put_label(f, cs[i].filters[p]);
				fprintf(f, "\",band=\"%s\"} %.0f\n", band_names[b],
					cs[i].est[p][b]);
			}
	family(f, "damon_probe_bytes_stderr", "gauge",
	       "Standard error of damon_probe_bytes from the sampling: sqrt(sum(size^2 * q * (1 - q) / (aggr_us / sample_us))), q = hits / (aggr_us / sample_us).");
	for (i = 0; i < n; i++)
		for (p = 0; p < cs[i].nr_probes; p++)
			for (b = 0; b < NR_BANDS; b++) {
				fputs("damon_probe_bytes_stderr{", f);
				put_ctx_labels(f, &cs[i]);
				fprintf(f, ",probe=\"%d\",filters=\"", p);
				put_label(f, cs[i].filters[p]);
				fprintf(f, "\",band=\"%s\"} %.0f\n", band_names[b],
					sqrt(cs[i].var[p][b]));
			}
	family(f, "damon_band_bytes", "gauge",
	       "Bytes of the monitored regions in a hotness band (hot: nr_accesses >= (aggr_us / sample_us) / 2, cold: 0, warm: between).");
	for (i = 0; i < n; i++)
		for (b = 0; b < NR_BANDS; b++) {
			fputs("damon_band_bytes{", f);
			put_ctx_labels(f, &cs[i]);
			fprintf(f, ",band=\"%s\"} %.0f\n", band_names[b],
				cs[i].bytes[b]);
		}
	family(f, "damon_band_regions", "gauge",
	       "DAMON regions in a hotness band.");
	for (i = 0; i < n; i++)
		for (b = 0; b < NR_BANDS; b++) {
			fputs("damon_band_regions{", f);
			put_ctx_labels(f, &cs[i]);
			fprintf(f, ",band=\"%s\"} %lu\n", band_names[b],
				cs[i].nr_band_regions[b]);
		}
	family(f, "damon_monitored_bytes", "gauge",
	       "Bytes of all monitored regions of the context.");
	for (i = 0; i < n; i++) {
		fputs("damon_monitored_bytes{", f);
		put_ctx_labels(f, &cs[i]);
		fprintf(f, "} %.0f\n", cs[i].bytes[0] + cs[i].bytes[1] +
			cs[i].bytes[2]);
	}
	family(f, "damon_samples_per_window", "gauge",
	       "Samples per region per aggregation window, aggr_us / sample_us: the largest hit count.");
	for (i = 0; i < n; i++) {
		fputs("damon_samples_per_window{", f);
		put_ctx_labels(f, &cs[i]);
		fprintf(f, "} %llu\n", cs[i].max_hits);
	}
	family(f, "damon_probe_metrics_skipped_contexts", "gauge",
	       "Running contexts left out of this read: no stat scheme trying every region, vanished, or changing while read.");
	fprintf(f, "damon_probe_metrics_skipped_contexts %zu\n", skipped);
	family(f, "damon_probe_metrics_read_seconds", "gauge",
	       "Wall time of this read, updates of the tried regions included.");
	fprintf(f, "damon_probe_metrics_read_seconds %.6f\n", read_s);
	getrusage(RUSAGE_SELF, &ru);
	family(f, "damon_probe_metrics_cpu_seconds_total", "counter",
	       "CPU time (user + system) of the tool since it started.");
	fprintf(f, "damon_probe_metrics_cpu_seconds_total %.6f\n",
		ru.ru_utime.tv_sec + ru.ru_stime.tv_sec +
		(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) / 1e6);
}

/* Write the metrics to out atomically: a temporary file, then rename(). */
static int publish(const char *out, const struct context *cs, size_t n,
		   size_t skipped, double read_s)
{
	char tmp[PATH_MAX];
	const char *base = strrchr(out, '/');
	FILE *f;
	int fd;

	if (!strcmp(out, "-")) {
		write_metrics(stdout, cs, n, skipped, read_s);
		return fflush(stdout);
	}
	/* not *.prom, which node_exporter would read half-written */
	if (base)
		snprintf(tmp, sizeof(tmp), "%.*s/.%s.XXXXXX", (int)(base - out),
			 out, base + 1);
	else
		snprintf(tmp, sizeof(tmp), ".%s.XXXXXX", out);
	fd = mkstemp(tmp);
	f = fd < 0 ? NULL : fdopen(fd, "w");
	if (!f) {
		fprintf(stderr, "damon-probe-metrics: %s: %s\n", tmp,
			strerror(errno));
		if (fd >= 0) {
			close(fd);
			unlink(tmp);
		}
		return -1;
	}
	fchmod(fd, 0644);
	write_metrics(f, cs, n, skipped, read_s);
	if (fflush(f) || ferror(f) || fclose(f) || rename(tmp, out)) {
		fprintf(stderr, "damon-probe-metrics: writing %s: %s\n", out,
			strerror(errno));
		unlink(tmp);
		return -1;
	}
	return 0;
}

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* One read of every running context, published to out. */
static int read_all(const char *out)
{
	static struct context *cs;
	static size_t cap;
	static ino_t *inos;
	unsigned long long nr_k, nr_c;
	size_t n = 0, skipped = 0;
	char state[16];
	double t0 = now_s();
	struct seen *tmp;
	int k, ctx;

	nr_seen_next = 0;
	if (read_ull(&nr_k, "%s/kdamonds/nr_kdamonds", admin)) {
		fprintf(stderr, "damon-probe-metrics: %s\n", err_msg);
		nr_k = 0;
	}
	for (k = 0; k < (int)nr_k; k++) {
		if (read_str(state, sizeof(state), "%s/kdamonds/%d/state",
			     admin, k) ||
		    read_ull(&nr_c, "%s/kdamonds/%d/contexts/nr_contexts",
			     admin, k)) {
			/* removed since nr_kdamonds was read */
			fprintf(stderr, "damon-probe-metrics: %s\n", err_msg);
			continue;
		}
		if (strcmp(state, "on"))
			continue;
		for (ctx = 0; ctx < (int)nr_c; ctx++) {
			if (n == cap) {
				cap = cap ? cap * 2 : 4;
				cs = realloc(cs, cap * sizeof(*cs));
				if (!cs) {
					perror("damon-probe-metrics: realloc");
					exit(1);
				}
				memset(cs + n, 0, (cap - n) * sizeof(*cs));
			}
			if (read_context(k, ctx, &cs[n], &inos)) {
				fprintf(stderr,
					"damon-probe-metrics: kdamond %d context %d left out: %s\n",
					k, ctx, err_msg);
				skipped++;
				continue;
			}
			n++;
		}
	}
	/* this read's probes become the previous read's */
	tmp = seen;
	seen = seen_next;
	nr_seen = nr_seen_next;
	seen_next = tmp;
	return publish(out, cs, n, skipped, now_s() - t0);
}

static void on_signal(int sig)
{
	(void)sig;
	stop = 1;
}

int main(int argc, char **argv)
{
	const char *out = "/var/lib/prometheus/node-exporter/damon-probes.prom";
	double interval = 10, next;
	long count = 0, done;
	struct sigaction sa = { .sa_handler = on_signal };
	bool bad = false;
	int opt, rc = 0;
	char *end;

	while ((opt = getopt(argc, argv, "o:i:c:s:Nh")) != -1) {
		switch (opt) {
		case 'o':
			out = optarg;
			break;
		case 'i':
			interval = strtod(optarg, &end);
			bad |= *end || end == optarg || !(interval >= 0);
			break;
		case 'c':
			count = strtol(optarg, &end, 10);
			bad |= *end || end == optarg || count < 0;
			break;
		case 's':
			admin = optarg;
			break;
		case 'N':
			no_update = true;
			break;
		default:
			fprintf(stderr,
				"usage: %s [-o FILE] [-i SECONDS] [-c COUNT] [-s DIR] [-N]\n",
				argv[0]);
			return opt == 'h' ? 0 : 2;
		}
	}
	if (optind != argc || bad) {
		fprintf(stderr, "%s: bad arguments (-h: usage)\n", argv[0]);
		return 2;
	}
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGINT, &sa, NULL);
	next = now_s();
	for (done = 0; !stop && (!count || done < count); done++) {
		rc = read_all(out) ? 1 : 0;
		next += interval;
		if (!stop && (!count || done + 1 < count) && next > now_s())
			sleep_us((next - now_s()) * 1e6);
	}
	return rc;
}
