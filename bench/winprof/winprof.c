// SPDX-License-Identifier: GPL-2.0
/*
 * winprof: a QEMU TCG plugin (plugin API v1, QEMU 7.2) for
 * bench/mainline-gap.sh.  Exact execution counts of guest kernel
 * instructions inside "windows", per instruction address.  Arguments:
 *   rule=K:START-END  a TB starting in [START, END) (hex) switches to window
 *                     K (0..7); K = -1 closes the current window
 *   out=FILE          written at exit: "opens K n", "trans FROM TO n" and
 *                     "K vaddr count" (instructions at vaddr run in window K)
 * Only TBs in kernel text (vaddr >= 0xffffffff80000000) are instrumented.
 * Counts follow icount semantics (each rep-string iteration is one).  One
 * current window for the whole machine: boot the guest with one vCPU.
 *
 * Self-contained: the few declarations of <qemu-plugin.h> it uses are
 * repeated below (Debian ships no QEMU plugin header), so that
 * "gcc -shared -fPIC" builds it.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <stdbool.h>
#include <stddef.h>

typedef uint64_t qemu_plugin_id_t;
__attribute__((visibility("default"))) int qemu_plugin_version = 1;
typedef struct {
	const char *target_name;
	struct { int min, cur; } version;
	bool system_emulation;
	union { struct { int smp_vcpus, max_vcpus; } system; };
} qemu_info_t;
struct qemu_plugin_tb;
struct qemu_plugin_insn;
enum qemu_plugin_cb_flags { QEMU_PLUGIN_CB_NO_REGS };
typedef void (*qemu_plugin_simple_cb_t)(qemu_plugin_id_t id);
typedef void (*qemu_plugin_udata_cb_t)(qemu_plugin_id_t id, void *userdata);
typedef void (*qemu_plugin_vcpu_udata_cb_t)(unsigned int vcpu_index, void *userdata);
typedef void (*qemu_plugin_vcpu_tb_trans_cb_t)(qemu_plugin_id_t id, struct qemu_plugin_tb *tb);
void qemu_plugin_register_vcpu_tb_trans_cb(qemu_plugin_id_t id, qemu_plugin_vcpu_tb_trans_cb_t cb);
void qemu_plugin_register_vcpu_tb_exec_cb(struct qemu_plugin_tb *tb, qemu_plugin_vcpu_udata_cb_t cb,
					  enum qemu_plugin_cb_flags flags, void *userdata);
size_t qemu_plugin_tb_n_insns(const struct qemu_plugin_tb *tb);
uint64_t qemu_plugin_tb_vaddr(const struct qemu_plugin_tb *tb);
struct qemu_plugin_insn *qemu_plugin_tb_get_insn(const struct qemu_plugin_tb *tb, size_t idx);
uint64_t qemu_plugin_insn_vaddr(const struct qemu_plugin_insn *insn);
void qemu_plugin_register_atexit_cb(qemu_plugin_id_t id, qemu_plugin_udata_cb_t cb, void *userdata);

#define MAXW 8
#define MAXR 16
struct tbinfo {
	uint64_t vaddr;
	int n;
	int kind;		/* -2 plain, -1 closer, 0..MAXW-1 window */
	uint64_t count[MAXW];
	struct tbinfo *next;
	uint64_t insn[];
};
/* rules: a TB starting in [rs, re) switches to window rk (-1: none) */
static uint64_t rs[MAXR], re_[MAXR];
static int rk[MAXR], nrules, nwin;
static const char *out = "winprof.out";
static int cur = -1;		/* open window or -1 */
static uint64_t opens[MAXW], trans[MAXW + 1][MAXW + 1];
static struct tbinfo *all;

static void exec_cb(unsigned int vcpu, void *ud)
{
	struct tbinfo *t = ud;

	if (t->kind >= -1 && t->kind != cur) {
		trans[cur + 1][t->kind + 1]++;
		cur = t->kind;
		if (cur >= 0)
			opens[cur]++;
	}
	if (cur >= 0)
		t->count[cur]++;
}

static void trans_cb(qemu_plugin_id_t id, struct qemu_plugin_tb *tb)
{
	uint64_t va = qemu_plugin_tb_vaddr(tb);
	size_t n = qemu_plugin_tb_n_insns(tb);
	struct tbinfo *t;
	int i;

	if (va < 0xffffffff80000000ull)
		return;
	t = calloc(1, sizeof(*t) + n * sizeof(uint64_t));
	t->vaddr = va;
	t->n = n;
	t->kind = -2;
	for (i = 0; i < nrules; i++)
		if (va >= rs[i] && va < re_[i])
			t->kind = rk[i];
	for (i = 0; i < (int)n; i++)
		t->insn[i] = qemu_plugin_insn_vaddr(qemu_plugin_tb_get_insn(tb, i));
	t->next = all;
	all = t;
	qemu_plugin_register_vcpu_tb_exec_cb(tb, exec_cb, QEMU_PLUGIN_CB_NO_REGS, t);
}

static void at_exit(qemu_plugin_id_t id, void *p)
{
	FILE *f = fopen(out, "w");
	struct tbinfo *t;
	int i, w;

	if (!f)
		return;
	for (w = 0; w < nwin; w++)
		fprintf(f, "opens %d %llu\n", w, (unsigned long long)opens[w]);
	for (w = 0; w <= nwin; w++)
		for (i = 0; i <= nwin; i++)
			if (trans[w][i])
				fprintf(f, "trans %d %d %llu\n", w - 1, i - 1,
					(unsigned long long)trans[w][i]);
	for (t = all; t; t = t->next)
		for (w = 0; w < nwin; w++)
			if (t->count[w])
				for (i = 0; i < t->n; i++)
					fprintf(f, "%d %llx %llu\n", w,
						(unsigned long long)t->insn[i],
						(unsigned long long)t->count[w]);
	fclose(f);
}

__attribute__((visibility("default")))
int qemu_plugin_install(qemu_plugin_id_t id, const qemu_info_t *info, int argc, char **argv)
{
	int i;

	if (!info->system_emulation || info->system.smp_vcpus != 1) {
		fprintf(stderr, "winprof: needs a system emulation with one vCPU\n");
		return -1;
	}
	for (i = 0; i < argc; i++) {
		char *a = argv[i];
		if (!strncmp(a, "rule=", 5) && nrules < MAXR) {
			/* rule=KIND:START-END (hex), KIND -1 closes */
			char *e;
			rk[nrules] = strtol(a + 5, &e, 10);
			rs[nrules] = strtoull(e + 1, &e, 16);
			re_[nrules] = strtoull(e + 1, NULL, 16);
			if (rk[nrules] >= MAXW)
				return -1;
			if (rk[nrules] + 1 > nwin)
				nwin = rk[nrules] + 1;
			nrules++;
		} else if (!strncmp(a, "out=", 4))
			out = a + 4;
		else {
			fprintf(stderr, "winprof: bad arg %s\n", a);
			return -1;
		}
	}
	qemu_plugin_register_vcpu_tb_trans_cb(id, trans_cb);
	qemu_plugin_register_atexit_cb(id, at_exit, NULL);
	return 0;
}
