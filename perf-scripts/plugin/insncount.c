/*
 * insncount: QEMU TCG plugin counting guest instructions executed inside
 * given guest virtual address ranges (e.g. kernel functions), plus how often
 * each range's first instruction executed (= entries / calls).
 *
 * Usage (QEMU 7.2):
 *   -plugin libinsncount.so,ranges=RANGES_FILE[,out=OUT_FILE][,mark=ADDR]
 *           [,format=cases]
 *
 * RANGES_FILE: one "NAME START END" per line, START/END hex guest virtual
 * addresses, END exclusive; '#' lines and blank lines are ignored.
 * Results are written at QEMU exit to OUT_FILE (stderr if not given):
 *   NAME entries=N insns=M insns_per_call=X.XX
 *   ...
 *   total_guest_insns=T
 *
 * mark=ADDR (hex guest virtual address, e.g. of ksys_sync): every time the
 * instruction at ADDR executes, the counters so far are written too, as
 * "mark N" followed by the lines above (cumulative), so that one run can
 * count several phases: the differences between marks are the phases.
 * Writing a snapshot does not touch the guest, so guest time is unchanged.
 *
 * format=cases writes every counter on a line of its own, named after its
 * snapshot ("m" and the mark's number, or "end"):
 *   insncount mN.NAME.entries N calls
 *   insncount mN.NAME.insns M insns
 *   insncount mN.total_guest_insns T insns
 * so that a reader matching one value a line (a LAVA "monitors" test
 * action reading QEMU's stderr with the guest's console) sees each count.
 *
 * Counts are "self" counts: instructions of callees outside the range are
 * not included.
 *
 * How: at translation time (tb_trans) each instruction's vaddr is compared
 * with the ranges; matching instructions get an inline "add 1" op on the
 * range counter, so the cost at run time is one memory add per executed
 * in-range instruction, and nothing for other code except one add per TB
 * for the total.
 *
 * Exactness caveats:
 *  - Inline ops are plain (non-atomic) adds. With MTTCG and more than one
 *    vCPU, vCPU threads race on the same counters and lose updates. Use
 *    -icount (which forces single-threaded TCG) or -accel tcg,thread=single
 *    for exact counts. Under -icount ... ,sleep=off the run, and therefore
 *    every count, is deterministic.
 *  - Inline insn ops run before the instruction, so an instruction that
 *    faults and is restarted (e.g. a page fault) is counted once per attempt.
 *    x86 REP string instructions may be counted once per iteration.
 *  - total_guest_insns adds a TB's full length when the TB starts, so it
 *    over-counts slightly when a TB is left early (exceptions, icount I/O
 *    recompiles). It is meant for normalisation, not for exact accounting.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <qemu-plugin.h>

QEMU_PLUGIN_EXPORT int qemu_plugin_version = QEMU_PLUGIN_VERSION;

#define MAX_RANGES 64
#define NAME_LEN 128

struct range {
    char name[NAME_LEN];
    uint64_t start;      /* first byte */
    uint64_t end;        /* one past the last byte */
    uint64_t entries;    /* incremented by generated code */
    uint64_t insns;      /* incremented by generated code */
};

/*
 * Written only during qemu_plugin_install(); afterwards read-only except for
 * the counters, which only generated code touches until the atexit callback.
 */
static struct range ranges[MAX_RANGES];
static size_t n_ranges;
static uint64_t lo_addr = UINT64_MAX; /* union bounds, for a quick reject */
static uint64_t hi_addr;
static uint64_t total_insns;
static FILE *out;
static bool have_mark;
static uint64_t mark_addr;
static uint64_t n_marks;
static bool format_cases;

static int parse_hex(const char *s, uint64_t *val)
{
    char *end;

    errno = 0;
    unsigned long long v = strtoull(s, &end, 16);
    if (errno != 0 || end == s || *end != '\0' || s[0] == '-') {
        return -1;
    }
    *val = v;
    return 0;
}

static int load_ranges(const char *path)
{
    char line[512];
    unsigned lineno = 0;
    FILE *f = fopen(path, "r");

    if (!f) {
        fprintf(stderr, "insncount: cannot open ranges file %s: %s\n",
                path, strerror(errno));
        return -1;
    }
    while (fgets(line, sizeof(line), f)) {
        char name[NAME_LEN], s_start[64], s_end[64], extra;
        const char *p = line;
        struct range *r;

        lineno++;
        if (!strchr(line, '\n') && !feof(f)) {
            fprintf(stderr, "insncount: %s:%u: line too long\n", path, lineno);
            goto fail;
        }
        p += strspn(p, " \t");
        if (*p == '#' || *p == '\n' || *p == '\r' || *p == '\0') {
            continue;
        }
        /* %127s matches NAME_LEN - 1; a 4th field is an error. */
        if (sscanf(p, "%127s %63s %63s %c", name, s_start, s_end, &extra) != 3) {
            fprintf(stderr, "insncount: %s:%u: expected 'NAME START END'\n",
                    path, lineno);
            goto fail;
        }
        if (n_ranges == MAX_RANGES) {
            fprintf(stderr, "insncount: %s:%u: more than %d ranges\n",
                    path, lineno, MAX_RANGES);
            goto fail;
        }
        r = &ranges[n_ranges];
        if (parse_hex(s_start, &r->start) || parse_hex(s_end, &r->end) ||
            r->start >= r->end) {
            fprintf(stderr, "insncount: %s:%u: bad range '%s %s' "
                    "(need hex START < END)\n", path, lineno, s_start, s_end);
            goto fail;
        }
        strcpy(r->name, name);
        if (r->start < lo_addr) {
            lo_addr = r->start;
        }
        if (r->end > hi_addr) {
            hi_addr = r->end;
        }
        n_ranges++;
    }
    if (ferror(f)) {
        fprintf(stderr, "insncount: error reading %s\n", path);
        goto fail;
    }
    fclose(f);
    return 0;
fail:
    fclose(f);
    return -1;
}

static void vcpu_mark(unsigned int vcpu_index, void *userdata);

static void vcpu_tb_trans(qemu_plugin_id_t id, struct qemu_plugin_tb *tb)
{
    size_t n = qemu_plugin_tb_n_insns(tb);

    (void)id;
    qemu_plugin_register_vcpu_tb_exec_inline(tb, QEMU_PLUGIN_INLINE_ADD_U64,
                                             &total_insns, n);
    for (size_t i = 0; i < n; i++) {
        struct qemu_plugin_insn *insn = qemu_plugin_tb_get_insn(tb, i);
        uint64_t va = qemu_plugin_insn_vaddr(insn);

        if (have_mark && va == mark_addr) {
            qemu_plugin_register_vcpu_insn_exec_cb(
                insn, vcpu_mark, QEMU_PLUGIN_CB_NO_REGS, NULL);
        }
        if (va < lo_addr || va >= hi_addr) {
            continue;
        }
        /* Ranges may overlap; every matching range gets counted. */
        for (size_t j = 0; j < n_ranges; j++) {
            struct range *r = &ranges[j];

            if (va < r->start || va >= r->end) {
                continue;
            }
            qemu_plugin_register_vcpu_insn_exec_inline(
                insn, QEMU_PLUGIN_INLINE_ADD_U64, &r->insns, 1);
            if (va == r->start) {
                qemu_plugin_register_vcpu_insn_exec_inline(
                    insn, QEMU_PLUGIN_INLINE_ADD_U64, &r->entries, 1);
            }
        }
    }
}

static void write_counts(FILE *f)
{
    for (size_t i = 0; i < n_ranges; i++) {
        const struct range *r = &ranges[i];

        fprintf(f, "%s entries=%" PRIu64 " insns=%" PRIu64, r->name,
                r->entries, r->insns);
        if (r->entries) {
            fprintf(f, " insns_per_call=%.2f\n",
                    (double)r->insns / (double)r->entries);
        } else {
            fprintf(f, " insns_per_call=nan\n");
        }
    }
    fprintf(f, "total_guest_insns=%" PRIu64 "\n", total_insns);
}

/* format=cases: SNAP is "mN" or "end"; see the top of the file. */
static void write_cases(FILE *f, const char *snap)
{
    for (size_t i = 0; i < n_ranges; i++) {
        const struct range *r = &ranges[i];

        fprintf(f, "insncount %s.%s.entries %" PRIu64 " calls\n", snap,
                r->name, r->entries);
        fprintf(f, "insncount %s.%s.insns %" PRIu64 " insns\n", snap,
                r->name, r->insns);
    }
    fprintf(f, "insncount %s.total_guest_insns %" PRIu64 " insns\n", snap,
            total_insns);
}

static void vcpu_mark(unsigned int vcpu_index, void *userdata)
{
    FILE *f = out ? out : stderr;

    (void)vcpu_index;
    (void)userdata;
    ++n_marks;
    if (format_cases) {
        char snap[32];

        snprintf(snap, sizeof(snap), "m%" PRIu64, n_marks);
        write_cases(f, snap);
    } else {
        fprintf(f, "mark %" PRIu64 "\n", n_marks);
        write_counts(f);
    }
    fflush(f);
}

static void plugin_exit(qemu_plugin_id_t id, void *userdata)
{
    FILE *f = out ? out : stderr;

    (void)id;
    (void)userdata;
    if (format_cases) {
        write_cases(f, "end");
    } else {
        if (have_mark) {
            fprintf(f, "end\n");
        }
        write_counts(f);
    }
    if (out) {
        if (fclose(out) != 0) {
            fprintf(stderr, "insncount: error writing results: %s\n",
                    strerror(errno));
        }
        out = NULL;
    } else {
        fflush(stderr);
    }
}

QEMU_PLUGIN_EXPORT int qemu_plugin_install(qemu_plugin_id_t id,
                                           const qemu_info_t *info,
                                           int argc, char **argv)
{
    const char *ranges_path = NULL, *out_path = NULL;

    for (int i = 0; i < argc; i++) {
        if (strncmp(argv[i], "ranges=", 7) == 0) {
            ranges_path = argv[i] + 7;
        } else if (strncmp(argv[i], "out=", 4) == 0) {
            out_path = argv[i] + 4;
        } else if (strncmp(argv[i], "mark=", 5) == 0) {
            if (parse_hex(argv[i] + 5, &mark_addr) != 0) {
                fprintf(stderr, "insncount: bad mark address '%s'\n",
                        argv[i] + 5);
                return -1;
            }
            have_mark = true;
        } else if (strcmp(argv[i], "format=cases") == 0) {
            format_cases = true;
        } else {
            fprintf(stderr, "insncount: unknown argument '%s' "
                    "(expected ranges=FILE, out=FILE, mark=ADDR, "
                    "format=cases)\n", argv[i]);
            return -1;
        }
    }
    if (ranges_path && load_ranges(ranges_path) != 0) {
        return -1;
    }
    /* Open now so a bad path fails at startup, not after a long run. */
    if (out_path) {
        out = fopen(out_path, "w");
        if (!out) {
            fprintf(stderr, "insncount: cannot open %s: %s\n", out_path,
                    strerror(errno));
            return -1;
        }
    }
    if (info->system_emulation && info->system.max_vcpus > 1) {
        fprintf(stderr, "insncount: warning: %d vCPUs; counts are exact only "
                "with single-threaded TCG (-icount or -accel tcg,thread=single)\n",
                info->system.max_vcpus);
    }
    qemu_plugin_register_vcpu_tb_trans_cb(id, vcpu_tb_trans);
    qemu_plugin_register_atexit_cb(id, plugin_exit, NULL);
    return 0;
}
