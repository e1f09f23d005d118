// SPDX-License-Identifier: GPL-2.0
/*
 * static-diff: what a change did to one function's code, instruction by
 * instruction, from two listings made by perf-scripts/static-listing.awk
 * (objdump of the function in each object, relocations resolved, jump-label
 * sites named from __jump_table).
 *
 *   static-diff [-c LINES] [-s SUMMARY] BASE_LABEL BASE_LISTING NEW_LABEL NEW_LISTING
 *	the difference (LINES of unchanged code around each change, default
 *	3, -1 for all), then the verdict; SUMMARY gets the counts as
 *	"key=value" lines
 *   static-diff -v [-t TITLE] SUMMARY...
 *	one verdict for the sum of SUMMARY files
 *
 * The instructions are aligned by their shape (registers, local targets
 * and data offsets abstracted) with a longest common subsequence.  An
 * aligned pair whose registers differ is a renaming; a jump inside the
 * function whose target is not the aligned target is a changed branch.
 * Each instruction is placed by reachability from the function's entry:
 * "idle" runs with every static key off (a jump-label site follows its
 * branch bit: branch=0 falls through, a NOP; branch=1 jumps), "key" runs
 * only with some key on, "cold" lies in an out-of-line .cold part.
 */
#define _POSIX_C_SOURCE 200809L
#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define WIDTH 80
#define NOTE_COLUMN 48
#define MAX_PARTS 16

enum kind { K_SEQ, K_CALL, K_JCC, K_JMP, K_IJMP, K_RET, K_SITE };
enum where { W_IDLE, W_KEY, W_COLD, W_UNREACHED };
enum mark { M_NONE, M_SAME, M_RENAMED, M_CHANGED, M_MOVED, M_COPY };

struct insn {
	int part;
	unsigned long off;
	enum kind kind;
	int tpart;		/* local target, or -1 */
	unsigned long toff;
	int target;		/* index of the target, or -1 */
	int fall;		/* index of the next instruction in memory, or -1 */
	int inverted;		/* a jcc written with the second of a pair (jne, not je) */
	int nop;		/* a NOP of any length (no site) */
	char *key;		/* jump-label key of a site */
	int branch;		/* the site's branch bit */
	int nop_at_link;
	char *text;
	char *shape;
	int idle, any;
	enum where where;
	int match;		/* index on the other side, or -1 */
	int copy_of;		/* M_COPY: the instruction on the same side it copies */
	enum mark mark;
	char note[160];
};

struct listing {
	const char *label;
	struct insn *v;
	int n, cap;
	char part_name[MAX_PARTS][128];
	int nparts;
	int indirect;		/* an indirect jump is reachable */
};

/* What the verdict is made of; the summary file holds the same. */
struct counts {
	long sites_added, sites_removed, sites_taken, sites_flipped;
	long sites_flipped_taken;	/* of the flipped, idle and now TAKEN while off */
	long renamed, renamed_insns, other_added, other_removed, other_changed;
	long key_added, key_removed, key_changed, cold_added, cold_removed, cold_changed;
	long moved, copied, idle_base, idle_new, approximate, functions;
	char renames[512];
	char taken_keys[256];
};

static void die(const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "static-diff: ");
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	exit(2);
}

static char *xstrdup(const char *s)
{
	char *d = strdup(s);

	if (!d)
		die("out of memory");
	return d;
}

static void *xrealloc(void *p, size_t n)
{
	p = realloc(p, n ? n : 1);
	if (!p)
		die("out of memory");
	return p;
}

/* General-purpose registers: the family (0-15) and width of a name. */
static const char *const reg_names[16][4] = {
	{ "rax", "eax", "ax", "al" }, { "rbx", "ebx", "bx", "bl" },
	{ "rcx", "ecx", "cx", "cl" }, { "rdx", "edx", "dx", "dl" },
	{ "rsi", "esi", "si", "sil" }, { "rdi", "edi", "di", "dil" },
	{ "rbp", "ebp", "bp", "bpl" }, { "rsp", "esp", "sp", "spl" },
	{ "r8", "r8d", "r8w", "r8b" }, { "r9", "r9d", "r9w", "r9b" },
	{ "r10", "r10d", "r10w", "r10b" }, { "r11", "r11d", "r11w", "r11b" },
	{ "r12", "r12d", "r12w", "r12b" }, { "r13", "r13d", "r13w", "r13b" },
	{ "r14", "r14d", "r14w", "r14b" }, { "r15", "r15d", "r15w", "r15b" },
};

static int reg_family(const char *name, size_t len, int *width)
{
	int f, w;

	for (f = 0; f < 16; f++)
		for (w = 0; w < 4; w++)
			if (strlen(reg_names[f][w]) == len && !strncmp(reg_names[f][w], name, len)) {
				*width = w;
				return f;
			}
	if (len == 2 && name[1] == 'h' && strchr("abcd", name[0])) {
		*width = 3;
		return name[0] == 'a' ? 0 : name[0] == 'b' ? 1 : name[0] == 'c' ? 2 : 3;
	}
	return -1;
}

/* Conditions and their inverses; the first of a pair is the canonical one. */
static const char *const pairs[][2] = {
	{ "je", "jne" }, { "jz", "jnz" }, { "js", "jns" }, { "jo", "jno" },
	{ "jp", "jnp" }, { "jb", "jae" }, { "jbe", "ja" }, { "jl", "jge" },
	{ "jle", "jg" }, { "jc", "jnc" },
};

/* The canonical name of a jcc whose inverse is NAME (of LEN), or NULL. */
static const char *inverse_of(const char *name, size_t len)
{
	size_t i;

	for (i = 0; i < sizeof(pairs) / sizeof(pairs[0]); i++)
		if (strlen(pairs[i][1]) == len && !strncmp(name, pairs[i][1], len))
			return pairs[i][0];
	return NULL;
}

/* Any of the NOPs compilers pad and align with. */
static int is_nop(const char *text)
{
	size_t len = strcspn(text, " ");

	while (!strncmp(text, "cs ", 3) || !strncmp(text, "ds ", 3) || !strncmp(text, "data16 ", 7)) {
		text += strcspn(text, " ");
		text += strspn(text, " ");
		len = strcspn(text, " ");
	}
	return !strncmp(text, "nop", 3) || !strcmp(text, "xchg   %ax,%ax") ||
	       (len == 4 && !strncmp(text, "fnop", 4));
}

/* The families of the registers of text, in order; returns how many. */
static int registers(const char *text, int *fam, int max)
{
	int n = 0, w;
	const char *p;

	for (p = text; (p = strchr(p, '%')); ) {
		size_t len = 0;
		int f;

		p++;
		while (isalnum((unsigned char)p[len]))
			len++;
		f = reg_family(p, len, &w);
		if (f >= 0 && n < max)
			fam[n++] = f;
		p += len;
	}
	return n;
}

/*
 * The shape of an instruction: registers as %R and their width, local
 * targets as <L>, data offsets inside a section and numbered local
 * symbols (".rodata.str1.1+0x2a", "__func__.0") without their numbers.
 */
static char *shape_of(const struct insn *in)
{
	const char *t = in->text;
	size_t cap = strlen(t) * 2 + 64, n = 0;
	char *s = xrealloc(NULL, cap);

	if (in->kind == K_SITE) {
		snprintf(s, cap, "site %s", in->key);
		return s;
	}
	if (in->nop) {
		snprintf(s, cap, "nop");
		return s;
	}
	if (in->inverted) {
		/* "jne X" with "je" as its name: the successors swap too. */
		size_t len = strcspn(t, " ");

		n = (size_t)sprintf(s, "%s", inverse_of(t, len));
		t += len;
	}
	while (*t) {
		if (*t == '%') {
			size_t len = 0;
			int w, f;

			while (isalnum((unsigned char)t[1 + len]))
				len++;
			f = reg_family(t + 1, len, &w);
			if (f >= 0) {
				n += (size_t)sprintf(s + n, "%%R%c", "qlwb"[w]);
				t += 1 + len;
				continue;
			}
		}
		if (*t == '<' && (t[1] == '+' || t[1] == '.')) {
			const char *e = strchr(t, '>');

			if (e) {
				n += (size_t)sprintf(s + n, "<L>");
				t = e + 1;
				continue;
			}
		}
		if ((*t == '+' || *t == '-') && t[1] == '0' && t[2] == 'x' && n > 0) {
			/* An offset after a section name (".rodata.x+0x2a"). */
			size_t k = n;

			while (k > 0 && (isalnum((unsigned char)s[k - 1]) || s[k - 1] == '_' || s[k - 1] == '.'))
				k--;
			if (k < n && s[k] == '.') {
				t += 3;
				while (isxdigit((unsigned char)*t))
					t++;
				continue;
			}
		}
		if (*t == '.' && isdigit((unsigned char)t[1]) && n > 0 &&
		    (isalnum((unsigned char)s[n - 1]) || s[n - 1] == '_')) {
			t++;
			while (isdigit((unsigned char)*t))
				t++;
			s[n++] = '.';
			s[n++] = 'N';
			continue;
		}
		if (*t == ' ' || *t == '\t') {
			/* One space for any run: "jne    X" read as "je X". */
			t += strspn(t, " \t");
			s[n++] = ' ';
			continue;
		}
		s[n++] = *t++;
	}
	s[n] = '\0';
	return s;
}

static enum kind parse_kind(const char *k)
{
	static const char *const names[] = { "seq", "call", "jcc", "jmp", "ijmp", "ret", "site" };
	size_t i;

	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (!strcmp(k, names[i]))
			return (enum kind)i;
	die("unknown kind '%s' in a listing", k);
	return K_SEQ;
}

static void load(struct listing *l, const char *label, const char *path)
{
	FILE *f = fopen(path, "r");
	char line[4096];
	int i, j;

	if (!f)
		die("%s: %s", path, strerror(errno));
	memset(l, 0, sizeof(*l));
	l->label = label;
	while (fgets(line, sizeof(line), f)) {
		char *field[6], *p = line;
		struct insn *in;
		int nf = 0;

		line[strcspn(line, "\n")] = '\0';
		if (!strncmp(line, "#part ", 6)) {
			int k;
			char name[128];

			if (sscanf(line + 6, "%d %127s", &k, name) == 2 && k >= 0 && k < MAX_PARTS) {
				snprintf(l->part_name[k], sizeof(l->part_name[k]), "%s", name);
				if (k >= l->nparts)
					l->nparts = k + 1;
			}
			continue;
		}
		if (!line[0] || line[0] == '#')
			continue;
		while (nf < 6) {
			field[nf++] = p;
			if (nf == 6)
				break;
			p = strchr(p, '\t');
			if (!p)
				break;
			*p++ = '\0';
		}
		if (nf != 6)
			die("%s: malformed line (want 6 tab-separated fields)", path);
		if (l->n == l->cap) {
			l->cap = l->cap ? 2 * l->cap : 256;
			l->v = xrealloc(l->v, (size_t)l->cap * sizeof(*l->v));
		}
		in = &l->v[l->n++];
		memset(in, 0, sizeof(*in));
		in->part = atoi(field[0]);
		if (in->part < 0 || in->part >= MAX_PARTS)
			die("%s: part %d out of range", path, in->part);
		in->off = strtoul(field[1], NULL, 16);
		in->kind = parse_kind(field[2]);
		in->tpart = -1;
		in->target = -1;
		in->match = -1;
		if (strcmp(field[3], "-")) {
			char *c = strchr(field[3], ':');

			if (!c)
				die("%s: bad target '%s'", path, field[3]);
			in->tpart = atoi(field[3]);
			in->toff = strtoul(c + 1, NULL, 16);
		}
		if (strcmp(field[4], "-")) {
			/* KEY:BRANCH:NOP_AT_LINK; the key itself may hold no ':'. */
			char *c = strchr(field[4], ':');

			if (!c)
				die("%s: bad site '%s'", path, field[4]);
			*c = '\0';
			in->key = xstrdup(field[4]);
			in->branch = atoi(c + 1);
			c = strchr(c + 1, ':');
			in->nop_at_link = c ? atoi(c + 1) : 0;
		} else if (in->kind == K_SITE) {
			die("%s: a site without its key", path);
		}
		in->text = xstrdup(field[5]);
		in->nop = in->kind == K_SEQ && is_nop(in->text);
		in->inverted = in->kind == K_JCC && inverse_of(in->text, strcspn(in->text, " ")) != NULL;
		if (in->part >= l->nparts)
			l->nparts = in->part + 1;
	}
	fclose(f);
	for (i = 0; i < l->n; i++) {
		struct insn *in = &l->v[i];

		in->shape = shape_of(in);
		in->fall = i + 1 < l->n && l->v[i + 1].part == in->part ? i + 1 : -1;
		if (in->tpart < 0)
			continue;
		for (j = 0; j < l->n; j++)
			if (l->v[j].part == in->tpart && l->v[j].off == in->toff)
				in->target = j;
	}
}

/* Whether control can go on to the next instruction in memory. */
static int falls_through(const struct insn *in)
{
	return in->kind != K_JMP && in->kind != K_IJMP && in->kind != K_RET;
}

/*
 * Put the listing in an order that does not depend on where the compiler
 * placed each basic block: a depth-first walk of the blocks from the
 * entry, the fall-through successor first (at a jump-label site the
 * successor taken while the key is off), then the jump's target; blocks
 * the walk does not reach follow in memory order, and each .cold part
 * after the function's own code.  Two builds that lay the same blocks
 * out differently then list them alike.
 */
static void canonical_order(struct listing *l)
{
	int n = l->n, i, nb = 0, sp = 0, no = 0, p;
	int *block = xrealloc(NULL, (size_t)(n + 1) * sizeof(int));
	int *start = xrealloc(NULL, (size_t)(n + 1) * sizeof(int));
	int *seen = calloc((size_t)n + 1, sizeof(int));
	int *stack = xrealloc(NULL, (size_t)(2 * n + 2) * sizeof(int));
	int *order = xrealloc(NULL, (size_t)(n + 1) * sizeof(int));
	int *where = xrealloc(NULL, (size_t)(n + 1) * sizeof(int));
	int *placed = calloc((size_t)n + 1, sizeof(int));
	char *leader = calloc((size_t)n + 1, 1);
	struct insn *v;

	if (!seen || !placed || !leader)
		die("out of memory");
	for (i = 0; i < n; i++) {
		const struct insn *in = &l->v[i];

		if (i == 0 || in->part != l->v[i - 1].part)
			leader[i] = 1;
		if (in->target >= 0)
			leader[in->target] = 1;
		if ((in->kind != K_SEQ && in->kind != K_CALL) && i + 1 < n)
			leader[i + 1] = 1;
	}
	for (i = 0; i < n; i++) {
		if (leader[i])
			start[nb++] = i;
		block[i] = nb - 1;
	}
	start[nb] = n;
	if (n)
		stack[sp++] = 0;
	while (sp) {
		int b = stack[--sp], last, first_next, second_next;
		const struct insn *in;

		if (seen[b])
			continue;
		seen[b] = 1;
		for (i = start[b]; i < start[b + 1]; i++)
			order[no++] = i;
		last = start[b + 1] - 1;
		in = &l->v[last];
		first_next = falls_through(in) && in->fall >= 0 ? block[in->fall] : -1;
		second_next = in->target >= 0 && in->kind != K_CALL ? block[in->target] : -1;
		if ((in->kind == K_SITE && in->branch) || in->inverted) {
			int t = first_next;

			first_next = second_next;
			second_next = t;
		}
		/* A stack: the one to walk first goes on last. */
		if (second_next >= 0 && !seen[second_next])
			stack[sp++] = second_next;
		if (first_next >= 0 && !seen[first_next])
			stack[sp++] = first_next;
	}
	for (i = 0; i < n; i++) {
		int b = block[i], k, padding = 1;

		if (seen[b])
			continue;
		seen[b] = 1;
		for (k = start[b]; k < start[b + 1]; k++)
			padding &= l->v[k].nop;
		/* Alignment between functions' blocks, never run: left out. */
		for (k = start[b]; k < start[b + 1] && !padding; k++)
			order[no++] = k;
	}
	/* Stable by part: the function first, then each .cold part. */
	v = xrealloc(NULL, (size_t)(n + 1) * sizeof(*v));
	for (i = 0; i < n; i++)
		where[i] = -1;
	n = no;
	for (p = 0, no = 0; p < MAX_PARTS; p++)
		for (i = 0; i < n; i++)
			if (l->v[order[i]].part == p && !placed[order[i]]) {
				placed[order[i]] = 1;
				where[order[i]] = no;
				v[no++] = l->v[order[i]];
			}
	for (i = 0; i < n; i++) {
		if (v[i].target >= 0)
			v[i].target = where[v[i].target];
		if (v[i].fall >= 0)
			v[i].fall = where[v[i].fall];
	}
	free(l->v);
	l->v = v;
	l->n = n;
	free(block);
	free(start);
	free(seen);
	free(stack);
	free(order);
	free(where);
	free(placed);
	free(leader);
}

/* Mark what is reachable from the entry: with every key off, or at all. */
static void reach(struct listing *l, int idle)
{
	int *stack = xrealloc(NULL, (size_t)(l->n + 1) * 2 * sizeof(int)), sp = 0, i;

	for (i = 0; i < l->n; i++) {
		if (idle)
			l->v[i].idle = 0;
		else
			l->v[i].any = 0;
	}
	if (l->n)
		stack[sp++] = 0;
	while (sp) {
		int k = stack[--sp];
		struct insn *in = &l->v[k];
		int *seen = idle ? &in->idle : &in->any;
		int next = in->fall;
		int fall = 1, jump = 0;

		if (*seen)
			continue;
		*seen = 1;
		switch (in->kind) {
		case K_SEQ:
		case K_CALL:
			break;
		case K_JCC:
			jump = 1;
			break;
		case K_JMP:
			fall = 0;
			jump = 1;
			break;
		case K_IJMP:
			fall = 0;
			if (idle)
				l->indirect = 1;
			break;
		case K_RET:
			fall = 0;
			break;
		case K_SITE:
			/* Key off: a site is a NOP unless its branch bit is set. */
			if (idle) {
				fall = !in->branch;
				jump = in->branch;
			} else {
				jump = 1;
			}
			break;
		}
		if (fall && next >= 0)
			stack[sp++] = next;
		if (jump && in->target >= 0)
			stack[sp++] = in->target;
	}
	free(stack);
}

static void place(struct listing *l)
{
	int i;

	reach(l, 1);
	reach(l, 0);
	for (i = 0; i < l->n; i++) {
		struct insn *in = &l->v[i];

		/*
		 * Behind a reachable indirect jump any code may run: what the
		 * walk did not reach counts as idle (over, never under).
		 */
		if (in->part > 0)
			in->where = W_COLD;
		else if (in->idle || (l->indirect && !in->any))
			in->where = W_IDLE;
		else if (in->any)
			in->where = W_KEY;
		else
			in->where = W_UNREACHED;
	}
}

/* Align part p of a and b by shape (LCS), setting match on both sides. */
static void align_part(struct listing *a, struct listing *b, int p)
{
	int *ia = xrealloc(NULL, (size_t)(a->n + 1) * sizeof(int));
	int *ib = xrealloc(NULL, (size_t)(b->n + 1) * sizeof(int));
	int na = 0, nb = 0, i, j, lo = 0, hi_a, hi_b;
	uint32_t *dp;
	size_t w;

	for (i = 0; i < a->n; i++)
		if (a->v[i].part == p)
			ia[na++] = i;
	for (i = 0; i < b->n; i++)
		if (b->v[i].part == p)
			ib[nb++] = i;
	/*
	 * The common head first: most of a function is unchanged.  (Not the
	 * tail: a "ret" at the end of code only a key reaches would take the
	 * idle path's.)
	 */
	while (lo < na && lo < nb && !strcmp(a->v[ia[lo]].shape, b->v[ib[lo]].shape)) {
		a->v[ia[lo]].match = ib[lo];
		b->v[ib[lo]].match = ia[lo];
		lo++;
	}
	hi_a = na;
	hi_b = nb;
	w = (size_t)(hi_b - lo + 1);
	dp = xrealloc(NULL, (size_t)(hi_a - lo + 1) * w * sizeof(*dp));
	for (i = hi_a; i >= lo; i--)
		for (j = hi_b; j >= lo; j--) {
			uint32_t *c = &dp[(size_t)(i - lo) * w + (size_t)(j - lo)];

			if (i == hi_a || j == hi_b)
				*c = 0;
			else if (!strcmp(a->v[ia[i]].shape, b->v[ib[j]].shape))
				*c = dp[(size_t)(i + 1 - lo) * w + (size_t)(j + 1 - lo)] + 1;
			else {
				uint32_t d = dp[(size_t)(i + 1 - lo) * w + (size_t)(j - lo)];
				uint32_t r = dp[(size_t)(i - lo) * w + (size_t)(j + 1 - lo)];

				*c = d > r ? d : r;
			}
		}
	i = lo;
	j = lo;
	while (i < hi_a && j < hi_b) {
		uint32_t here = dp[(size_t)(i - lo) * w + (size_t)(j - lo)];

		if (!strcmp(a->v[ia[i]].shape, b->v[ib[j]].shape) &&
		    here == dp[(size_t)(i + 1 - lo) * w + (size_t)(j + 1 - lo)] + 1) {
			a->v[ia[i]].match = ib[j];
			b->v[ib[j]].match = ia[i];
			i++;
			j++;
		} else if (dp[(size_t)(i + 1 - lo) * w + (size_t)(j - lo)] >=
			   dp[(size_t)(i - lo) * w + (size_t)(j + 1 - lo)]) {
			i++;
		} else {
			j++;
		}
	}
	free(dp);
	free(ia);
	free(ib);
}

/*
 * Code that moved: a run of two or more removed instructions found, shape
 * for shape, inside a run of added ones.
 */
static void find_moves(struct listing *a, struct listing *b)
{
	int i, j, k, len;

	for (i = 0; i < a->n; i = k) {
		for (k = i; k < a->n && a->v[k].match < 0 && a->v[k].part == a->v[i].part; k++)
			;
		if (k == i) {
			k++;
			continue;
		}
		len = k - i;
		if (len < 2)
			continue;
		for (j = 0; j + len <= b->n; j++) {
			int m;

			for (m = 0; m < len; m++)
				if (b->v[j + m].match >= 0 || b->v[j + m].part != b->v[j].part ||
				    strcmp(a->v[i + m].shape, b->v[j + m].shape))
					break;
			if (m < len)
				continue;
			for (m = 0; m < len; m++) {
				a->v[i + m].match = j + m;
				b->v[j + m].match = i + m;
				a->v[i + m].mark = M_MOVED;
				b->v[j + m].mark = M_MOVED;
			}
			break;
		}
	}
}

/* Conditional jumps that test the opposite condition. */
static int inverse_jcc(const char *a, const char *b)
{
	size_t i, la = strcspn(a, " "), lb = strcspn(b, " ");

	if (strcmp(a + la + strspn(a + la, " "), b + lb + strspn(b + lb, " ")))
		return 0;
	for (i = 0; i < sizeof(pairs) / sizeof(pairs[0]); i++) {
		size_t l0 = strlen(pairs[i][0]), l1 = strlen(pairs[i][1]);

		if ((la == l0 && lb == l1 && !strncmp(a, pairs[i][0], l0) && !strncmp(b, pairs[i][1], l1)) ||
		    (la == l1 && lb == l0 && !strncmp(a, pairs[i][1], l1) && !strncmp(b, pairs[i][0], l0)))
			return 1;
	}
	return 0;
}

/* Same code, a conditional jump possibly testing the inverse (a copy). */
static int same_code(const struct insn *x, const struct insn *y)
{
	if (!strcmp(x->shape, y->shape))
		return 1;
	return x->kind == K_JCC && y->kind == K_JCC && inverse_jcc(x->shape, y->shape);
}

/*
 * Copies: the compiler may duplicate a block into two places (or merge two
 * into one), which changes the code but not what a path through it runs.
 * A run of two or more unaligned instructions (or a lone return) that
 * equals, instruction for instruction, aligned straight-line code elsewhere
 * on its own side is marked a copy.
 */
static void find_copies(struct listing *l)
{
	int i, j, k, len, best, best_at;

	for (i = 0; i < l->n; ) {
		if (l->v[i].match >= 0 || l->v[i].mark != M_NONE) {
			i++;
			continue;
		}
		for (k = i; k < l->n && l->v[k].match < 0 && l->v[k].mark == M_NONE &&
		     l->v[k].part == l->v[i].part; k++)
			;
		/* The longest prefix of the run found aligned elsewhere. */
		best = 0;
		best_at = -1;
		for (j = 0; j < l->n; j++) {
			for (len = 0; i + len < k && j + len < l->n; len++) {
				const struct insn *c = &l->v[j + len];

				if (c->match < 0 || c->part != l->v[j].part || !same_code(&l->v[i + len], c))
					break;
				/* Within straight-line code on both sides. */
				if (len > 0 && (l->v[i + len - 1].fall != i + len ||
						l->v[j + len - 1].fall != j + len))
					break;
			}
			if (len > best) {
				best = len;
				best_at = j;
			}
		}
		/* One instruction alone is a copy only as a duplicated return. */
		if (best < 2 && !(best == 1 && l->v[i].kind == K_RET)) {
			i = k;
			continue;
		}
		for (len = 0; len < best; len++) {
			l->v[i + len].mark = M_COPY;
			l->v[i + len].copy_of = best_at + len;
		}
		i += best;
	}
}

/*
 * Where a jump goes when its canonical condition holds: the target, or for
 * a jcc written as the inverse (jne for je) the next instruction.
 */
static int jump_to(const struct insn *in)
{
	return in->inverted ? in->fall : in->target;
}

/*
 * Whether a jump of b still goes to the code its aligned jump of a went
 * to: the aligned target, or a copy of it on either side.
 */
static int same_target(const struct listing *a, const struct listing *b, int ta, int tb)
{
	int want = a->v[ta].match;

	if (want == tb)
		return 1;
	if (b->v[tb].mark == M_COPY && b->v[tb].copy_of == want)
		return 1;
	if (a->v[ta].mark == M_COPY && a->v[a->v[ta].copy_of].match == tb)
		return 1;
	return 0;
}

static const char *where_name(enum where w)
{
	switch (w) {
	case W_IDLE: return "idle";
	case W_KEY: return "key";
	case W_COLD: return "cold";
	default: return "unr";
	}
}

/* "<+0x1d>" or "<.cold+0x4>": a place in the function. */
static void place_text(const struct listing *l, int k, char *buf, size_t len)
{
	const struct insn *in = &l->v[k];
	const char *suffix = "";

	if (in->part > 0)
		suffix = strchr(l->part_name[in->part], '.') ? strchr(l->part_name[in->part], '.') : ".part";
	snprintf(buf, len, "<%s+0x%lx>", suffix, in->off);
}

static void add_rename(struct counts *c, int from, int to)
{
	char pair[32];

	snprintf(pair, sizeof(pair), "%%%s->%%%s", reg_names[from][0], reg_names[to][0]);
	/* Shown as "%rdi -> %rbx"; kept without spaces for the summary. */
	if (strstr(c->renames, pair))
		return;
	if (c->renames[0])
		strncat(c->renames, " ", sizeof(c->renames) - strlen(c->renames) - 1);
	strncat(c->renames, pair, sizeof(c->renames) - strlen(c->renames) - 1);
	c->renamed++;
}

/* Where tally_unmatched() counts: sites (and, if set, those taken). */
struct tally {
	long *sites, *taken, *other, *cold, *key;
};

/*
 * tally_unmatched() - count the instructions of @l that have no match on
 * the other side (removed from the old listing, added to the new one) by
 * where they are; a copy of a matched instruction is noted "@copy_word
 * PLACE" and counted in @copied when it is on the idle path.
 */
static void tally_unmatched(struct listing *l, const char *copy_word,
			    const struct tally *t, long *copied)
{
	int i;

	for (i = 0; i < l->n; i++) {
		struct insn *in = &l->v[i];

		if (in->match >= 0)
			continue;
		if (in->mark == M_COPY) {
			char of[48];

			place_text(l, in->copy_of, of, sizeof(of));
			snprintf(in->note, sizeof(in->note), "%s %s", copy_word, of);
			*copied += in->where == W_IDLE;
		} else if (in->kind == K_SITE && in->where == W_IDLE) {
			(*t->sites)++;
			if (t->taken)
				*t->taken += in->branch;
		} else if (in->where == W_IDLE) {
			(*t->other)++;
		} else if (in->where == W_COLD) {
			(*t->cold)++;
		} else {
			(*t->key)++;
		}
	}
}

/* Classify every aligned pair and count what differs. */
static void compare(struct listing *a, struct listing *b, struct counts *c)
{
	int i, k;

	for (i = 0; i < b->n; i++) {
		struct insn *nb = &b->v[i], *na;
		int fa[16], fb[16], n1, n2;

		if (nb->match < 0)
			continue;
		na = &a->v[nb->match];
		if (nb->mark == M_MOVED) {
			char from[48];

			place_text(a, nb->match, from, sizeof(from));
			snprintf(nb->note, sizeof(nb->note), "moved, was at %s", from);
			if (nb->where == W_COLD && na->where != W_COLD)
				snprintf(nb->note, sizeof(nb->note), "moved out of line, was at %s", from);
			c->moved++;
			continue;
		}
		nb->mark = M_SAME;
		if (nb->kind == K_SITE) {
			if (nb->branch != na->branch) {
				nb->mark = M_CHANGED;
				snprintf(nb->note, sizeof(nb->note), "branch bit was %d", na->branch);
				c->sites_flipped++;
				c->sites_flipped_taken += nb->branch && nb->where == W_IDLE;
			}
		} else if (strcmp(na->text, nb->text) && !(na->nop && nb->nop)) {
			n1 = registers(na->text, fa, 16);
			n2 = registers(nb->text, fb, 16);
			if (n1 == n2 && memcmp(fa, fb, (size_t)n1 * sizeof(int))) {
				char *p = nb->note;
				size_t left = sizeof(nb->note);

				nb->mark = M_RENAMED;
				for (k = 0; k < n1; k++) {
					int w, m;

					for (m = 0; m < k; m++)
						if (fa[m] == fa[k] && fb[m] == fb[k])
							break;
					if (fa[k] == fb[k] || m < k)
						continue;
					w = snprintf(p, left, "%s%%%s -> %%%s", p == nb->note ? "" : ", ",
						     reg_names[fa[k]][0], reg_names[fb[k]][0]);
					if (w < 0 || (size_t)w >= left)
						break;
					p += w;
					left -= (size_t)w;
					if (nb->where == W_IDLE)
						add_rename(c, fa[k], fb[k]);
				}
				if (nb->where == W_IDLE)
					c->renamed_insns++;
			}
		}
		/* A jump inside the function must still go to the same code. */
		if (jump_to(nb) >= 0 && jump_to(na) >= 0 && !same_target(a, b, jump_to(na), jump_to(nb)) &&
		    nb->mark != M_CHANGED) {
			char to[48];

			place_text(a, na->target, to, sizeof(to));
			nb->mark = M_CHANGED;
			snprintf(nb->note, sizeof(nb->note), "target changed, was %s", to);
		}
		if (nb->mark == M_SAME && na->where != nb->where &&
		    (na->where == W_IDLE || nb->where == W_IDLE)) {
			nb->mark = M_CHANGED;
			snprintf(nb->note, sizeof(nb->note), "%s the idle path",
				 nb->where == W_IDLE ? "now on" : "now off");
		}
		if (nb->mark == M_CHANGED && nb->kind != K_SITE) {
			if (nb->where == W_IDLE || na->where == W_IDLE)
				c->other_changed++;
			else if (nb->where == W_COLD)
				c->cold_changed++;
			else
				c->key_changed++;
		}
	}
	tally_unmatched(a, "was a copy of", &(struct tally){
		&c->sites_removed, NULL, &c->other_removed, &c->cold_removed, &c->key_removed }, &c->copied);
	tally_unmatched(b, "a copy of", &(struct tally){
		&c->sites_added, &c->sites_taken, &c->other_added, &c->cold_added, &c->key_added }, &c->copied);
	/* Every site the new idle path jumps at, added or not. */
	for (i = 0; i < b->n; i++) {
		const struct insn *in = &b->v[i];

		if (in->kind != K_SITE || in->where != W_IDLE || !in->branch || strstr(c->taken_keys, in->key) ||
		    strlen(c->taken_keys) + strlen(in->key) + 2 >= sizeof(c->taken_keys))
			continue;
		if (c->taken_keys[0])
			strcat(c->taken_keys, " ");
		strcat(c->taken_keys, in->key);
	}
	for (i = 0; i < a->n; i++)
		c->idle_base += a->v[i].where == W_IDLE;
	for (i = 0; i < b->n; i++)
		c->idle_new += b->v[i].where == W_IDLE;
	c->approximate = a->indirect || b->indirect;
	c->functions = 1;
}

/* One output line, cut to WIDTH columns. */
static void put(const char *s)
{
	printf("%.*s\n", WIDTH, s);
}

/* TEXT as "# " lines from column INDENT, broken at spaces within WIDTH. */
static void put_wrapped(int indent, const char *text)
{
	int room = WIDTH - indent - 2;

	while (*text) {
		int n = (int)strlen(text);

		if (n > room) {
			n = room;
			while (n > room / 2 && text[n] != ' ')
				n--;
			if (text[n] != ' ')
				n = room;
		}
		printf("%*s# %.*s\n", indent, "", n, text);
		text += n;
		text += strspn(text, " ");
	}
}

/* The text a site has while its key is off, with a note on both states. */
static void site_text(const struct listing *l, const struct insn *in, char *text, size_t tlen,
		      char *note, size_t nlen)
{
	char to[48] = "?";

	if (in->target >= 0)
		place_text(l, in->target, to, sizeof(to));
	if (in->branch) {
		snprintf(text, tlen, "jmp    %s", to);
		snprintf(note, nlen, "site of %s: a TAKEN jump while the key is off (branch bit 1)", in->key);
	} else {
		snprintf(text, tlen, "nop");
		snprintf(note, nlen, "site of %s: NOP while the key is off, jmp %s while on", in->key, to);
	}
}

static void print_line(char m, const struct listing *l, int k, const char *extra)
{
	const struct insn *in = &l->v[k];
	char where[8] = "", at[48], text[256], note[256], line[512];
	size_t len;

	if (m != ' ')
		snprintf(where, sizeof(where), "%s", where_name(in->where));
	place_text(l, k, at, sizeof(at));
	at[strlen(at) - 1] = '\0';
	snprintf(text, sizeof(text), "%s", in->text);
	snprintf(note, sizeof(note), "%s", extra ? extra : "");
	if (in->kind == K_SITE) {
		char sn[200];

		site_text(l, in, text, sizeof(text), sn, sizeof(sn));
		if (note[0]) {
			len = strlen(note);
			snprintf(note + len, sizeof(note) - len, "; %s", sn);
		} else {
			snprintf(note, sizeof(note), "%s", sn);
		}
	}
	snprintf(line, sizeof(line), "%c %-4s %-9s %s", m, where, at + 1, text);
	len = strlen(line);
	if (len < NOTE_COLUMN)
		len = NOTE_COLUMN;
	if (note[0] && len + 3 + strlen(note) <= WIDTH) {
		printf("%-*s # %s\n", (int)len, line, note);
		return;
	}
	put(line);
	if (note[0])
		put_wrapped(17, note);
}

/* The merged walk of both listings: ' ' same, and marks for the rest. */
struct row {
	char mark;
	int side;	/* 0: base, 1: new */
	int k;
};

static int rows_of(struct listing *a, struct listing *b, struct row **out)
{
	struct row *r = xrealloc(NULL, (size_t)(a->n + b->n + 1) * sizeof(*r));
	int n = 0, i = 0, j = 0;

	while (i < a->n || j < b->n) {
		/* Removed code first, then added, then the next aligned pair. */
		if (i < a->n && (a->v[i].match < 0 || a->v[i].mark == M_MOVED)) {
			r[n++] = (struct row){ a->v[i].mark == M_MOVED ? 0 : a->v[i].mark == M_COPY ? 'c' : '-', 0, i };
			i++;
			if (r[n - 1].mark == 0)
				n--;
			continue;
		}
		if (j < b->n && (b->v[j].match < 0 || b->v[j].mark == M_MOVED)) {
			r[n++] = (struct row){ b->v[j].mark == M_MOVED ? 'm' : b->v[j].mark == M_COPY ? 'c' : '+', 1, j };
			j++;
			continue;
		}
		if (i < a->n && j < b->n) {
			char m = ' ';

			switch (b->v[j].mark) {
			case M_RENAMED: m = 'r'; break;
			case M_CHANGED: m = '~'; break;
			default: break;
			}
			r[n++] = (struct row){ m, 1, j };
			i++;
			j++;
			continue;
		}
		if (i < a->n)
			i++;
		else
			j++;
	}
	*out = r;
	return n;
}

static void print_diff(struct listing *a, struct listing *b, int context)
{
	struct row *r;
	int n = rows_of(a, b, &r), i, last = -1, shown = 0;

	for (i = 0; i < n; i++) {
		int lo, hi, k;

		if (r[i].mark == ' ')
			continue;
		lo = context < 0 ? 0 : i - context;
		if (lo < 0)
			lo = 0;
		if (lo <= last)
			lo = last + 1;
		hi = i;
		for (k = i; k < n && (r[k].mark != ' ' || context < 0 || k - i <= context); k++) {
			if (r[k].mark != ' ')
				i = k;
			hi = k;
			if (context >= 0 && r[k].mark == ' ') {
				int m, more = 0;

				for (m = k; m < n && m <= k + context; m++)
					if (r[m].mark != ' ')
						more = 1;
				if (!more && k - i >= context)
					break;
			}
		}
		if (context < 0)
			hi = n - 1;
		if (lo > last + 1 || !shown) {
			char at_a[48] = "-", at_b[48] = "-", line[160];
			int ka = -1, kb = -1;

			for (k = lo; k <= hi && (ka < 0 || kb < 0); k++) {
				if (r[k].side == 1 && kb < 0)
					kb = r[k].k;
				if (r[k].side == 1 && b->v[r[k].k].match >= 0 && ka < 0)
					ka = b->v[r[k].k].match;
				if (r[k].side == 0 && ka < 0)
					ka = r[k].k;
			}
			if (ka >= 0)
				place_text(a, ka, at_a, sizeof(at_a));
			if (kb >= 0)
				place_text(b, kb, at_b, sizeof(at_b));
			snprintf(line, sizeof(line), "@@ %s %s, %s %s @@", a->label, at_a, b->label, at_b);
			put(line);
		}
		for (k = lo; k <= hi; k++)
			print_line(r[k].mark, r[k].side ? b : a, r[k].k,
				   r[k].side ? b->v[r[k].k].note : a->v[r[k].k].note);
		last = hi;
		shown = 1;
		i = hi;
	}
	if (!shown)
		put("  (no difference in the code)");
	free(r);
}

static void plural(char *buf, size_t len, long n, const char *one, const char *many)
{
	snprintf(buf, len, "%ld %s", n, n == 1 ? one : many);
}

/*
 * What the idle path's code gained, as instructions a pass through it
 * runs more: sites and other instructions added minus removed (renamed,
 * moved and copied code runs as often as before).
 */
static long idle_delta(const struct counts *c)
{
	return c->sites_added - c->sites_removed + c->other_added - c->other_removed;
}

/* The verdict lines of a set of counts. */
static void print_verdict(const char *title, const struct counts *c)
{
	char sites[160] = "", ren[64], other[128], line[1024], x[64];
	long other_n = c->other_added + c->other_removed + c->other_changed;

	if (c->sites_added || c->sites_removed || c->sites_flipped) {
		if (c->sites_added) {
			if (c->sites_taken == c->sites_added)
				snprintf(sites, sizeof(sites), "+%ld jump-label site%s TAKEN while off",
					 c->sites_added, c->sites_added == 1 ? "" : "s");
			else if (c->sites_taken)
				snprintf(sites, sizeof(sites), "+%ld jump-label sites (%ld TAKEN while off)",
					 c->sites_added, c->sites_taken);
			else
				snprintf(sites, sizeof(sites), "+%ld patchable jump-label site%s",
					 c->sites_added, c->sites_added == 1 ? "" : "s");
		}
		if (c->sites_removed) {
			snprintf(x, sizeof(x), "%s-%ld jump-label site%s", sites[0] ? ", " : "",
				 c->sites_removed, c->sites_removed == 1 ? "" : "s");
			strncat(sites, x, sizeof(sites) - strlen(sites) - 1);
		}
		if (c->sites_flipped) {
			snprintf(x, sizeof(x), "%s%ld site%s of the other polarity", sites[0] ? ", " : "",
				 c->sites_flipped, c->sites_flipped == 1 ? "" : "s");
			strncat(sites, x, sizeof(sites) - strlen(sites) - 1);
		}
	} else {
		snprintf(sites, sizeof(sites), "0 jump-label sites");
	}
	plural(ren, sizeof(ren), c->renamed, "register renamed", "registers renamed");
	plural(other, sizeof(other), other_n, "other instruction", "other instructions");
	if (other_n) {
		snprintf(x, sizeof(x), " (+%ld -%ld ~%ld)", c->other_added, c->other_removed,
			 c->other_changed);
		strncat(other, x, sizeof(other) - strlen(other) - 1);
	}
	snprintf(line, sizeof(line), "%s, idle path:", title);
	put(line);
	snprintf(line, sizeof(line), "  %s, %s, %s", sites, ren, other);
	if (strlen(line) > WIDTH) {
		snprintf(line, sizeof(line), "  %s,", sites);
		put(line);
		snprintf(line, sizeof(line), "  %s, %s", ren, other);
	}
	put(line);
	if (c->taken_keys[0]) {
		snprintf(line, sizeof(line),
			 "  a TAKEN jump while off, not a NOP (branch bit 1): %s", c->taken_keys);
		put(line);
	}
	if (c->renamed) {
		char shown[768];
		const char *r;
		size_t n = 0;

		for (r = c->renames; *r && n + 8 < sizeof(shown); r++) {
			if (!strncmp(r, "->", 2)) {
				n += (size_t)sprintf(shown + n, " -> ");
				r++;
			} else if (*r == ' ') {
				n += (size_t)sprintf(shown + n, ", ");
			} else {
				shown[n++] = *r;
			}
		}
		shown[n] = '\0';
		snprintf(line, sizeof(line), "  renamed: %s (%ld instruction%s)", shown,
			 c->renamed_insns, c->renamed_insns == 1 ? "" : "s");
		put(line);
	}
	snprintf(line, sizeof(line), "  idle path code: %ld -> %ld instructions, added minus removed %+ld",
		 c->idle_base, c->idle_new, idle_delta(c));
	put(line);
	if (c->copied || c->approximate) {
		snprintf(line, sizeof(line), "  %ld instruction%s of it copied%s", c->copied, c->copied == 1 ? "" : "s",
			 c->approximate ? "; approximate: an indirect jump" : "");
		put(line);
	}
	if (c->key_added || c->key_removed || c->key_changed) {
		snprintf(line, sizeof(line), "  only with a key on: +%ld -%ld ~%ld instructions",
			 c->key_added, c->key_removed, c->key_changed);
		put(line);
	}
	if (c->cold_added || c->cold_removed || c->cold_changed) {
		snprintf(line, sizeof(line), "  out of line (.cold): +%ld -%ld ~%ld instructions",
			 c->cold_added, c->cold_removed, c->cold_changed);
		put(line);
	}
	if (c->moved) {
		snprintf(line, sizeof(line), "  moved (out of line or elsewhere): %ld instruction%s", c->moved,
			 c->moved == 1 ? "" : "s");
		put(line);
	}
}

#define COUNT_FIELDS(X) \
	X(sites_added) X(sites_removed) X(sites_taken) X(sites_flipped) X(renamed) \
	X(renamed_insns) X(other_added) X(other_removed) X(other_changed) X(key_added) \
	X(key_removed) X(key_changed) X(cold_added) X(cold_removed) X(cold_changed) X(moved) \
	X(copied) X(idle_base) X(idle_new) X(approximate) X(functions) X(sites_flipped_taken)

static void write_summary(const char *path, const struct counts *c, const struct listing *b)
{
	FILE *f = fopen(path, "w");
	int i, first = 1;

	if (!f)
		die("%s: %s", path, strerror(errno));
#define X(name) fprintf(f, #name "=%ld\n", c->name);
	COUNT_FIELDS(X)
#undef X
	fprintf(f, "idle_delta=%+ld\n", idle_delta(c));
	fprintf(f, "renames=%s\ntaken_keys=%s\n", c->renames, c->taken_keys);
	/* What the new idle path calls: is a new function on it? */
	fprintf(f, "idle_calls=");
	for (i = 0; i < b->n; i++) {
		const struct insn *in = &b->v[i];
		const char *t = in->text + strcspn(in->text, " ");

		if (in->kind != K_CALL || in->where != W_IDLE)
			continue;
		t += strspn(t, " ");
		fprintf(f, "%s%.*s", first ? "" : " ", (int)strcspn(t, " +<"), t);
		first = 0;
	}
	fprintf(f, "\n");
	fclose(f);
}

static void read_summary(const char *path, struct counts *c)
{
	FILE *f = fopen(path, "r");
	char line[1024];

	if (!f)
		die("%s: %s", path, strerror(errno));
	while (fgets(line, sizeof(line), f)) {
		char *eq = strchr(line, '=');

		line[strcspn(line, "\n")] = '\0';
		if (!eq)
			continue;
		*eq = '\0';
#define X(name) if (!strcmp(line, #name)) c->name += atol(eq + 1);
		COUNT_FIELDS(X)
#undef X
		if (!strcmp(line, "renames") && eq[1]) {
			char *tok, *save = NULL;

			for (tok = strtok_r(eq + 1, " ", &save); tok; tok = strtok_r(NULL, " ", &save))
				if (!strstr(c->renames, tok)) {
					if (c->renames[0])
						strncat(c->renames, " ", sizeof(c->renames) - strlen(c->renames) - 1);
					strncat(c->renames, tok, sizeof(c->renames) - strlen(c->renames) - 1);
				}
		}
		if (!strcmp(line, "taken_keys") && eq[1] &&
		    strlen(c->taken_keys) + strlen(eq + 1) + 2 < sizeof(c->taken_keys)) {
			if (c->taken_keys[0])
				strcat(c->taken_keys, " ");
			strcat(c->taken_keys, eq + 1);
		}
	}
	fclose(f);
}

static void usage(void)
{
	fprintf(stderr, "usage: static-diff [-c LINES] [-s SUMMARY] BASE_LABEL BASE_LISTING NEW_LABEL NEW_LISTING\n"
			"       static-diff -v [-t TITLE] SUMMARY...\n");
	exit(2);
}

int main(int argc, char **argv)
{
	struct listing a, b;
	struct counts c;
	const char *summary = NULL, *title = "verdict";
	int context = 3, verdict_only = 0, i = 1, p, parts;
	char line[256];

	memset(&c, 0, sizeof(c));
	for (; i < argc && argv[i][0] == '-' && argv[i][1]; i++) {
		if (!strcmp(argv[i], "-v"))
			verdict_only = 1;
		else if (!strcmp(argv[i], "-c") && i + 1 < argc)
			context = atoi(argv[++i]);
		else if (!strcmp(argv[i], "-s") && i + 1 < argc)
			summary = argv[++i];
		else if (!strcmp(argv[i], "-t") && i + 1 < argc)
			title = argv[++i];
		else
			usage();
	}
	if (verdict_only) {
		if (i == argc)
			usage();
		for (; i < argc; i++)
			read_summary(argv[i], &c);
		print_verdict(title, &c);
		return 0;
	}
	if (argc - i != 4)
		usage();
	load(&a, argv[i], argv[i + 1]);
	load(&b, argv[i + 2], argv[i + 3]);
	if (!a.n || !b.n)
		die("an empty listing");
	canonical_order(&a);
	canonical_order(&b);
	place(&a);
	place(&b);
	parts = a.nparts > b.nparts ? a.nparts : b.nparts;
	for (p = 0; p < parts; p++)
		align_part(&a, &b, p);
	find_moves(&a, &b);
	find_copies(&a);
	find_copies(&b);
	compare(&a, &b, &c);
	snprintf(line, sizeof(line), "%s: %d instructions, %s: %d", a.label, a.n, b.label, b.n);
	put(line);
	print_diff(&a, &b, context);
	print_verdict(a.part_name[0][0] ? a.part_name[0] : "function", &c);
	if (summary)
		write_summary(summary, &c, &b);
	return 0;
}
