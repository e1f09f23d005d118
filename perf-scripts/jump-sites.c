// SPDX-License-Identifier: GPL-2.0
/*
 * jump-sites: list the jump-label sites of static keys, with the polarity
 * each entry of the x86-64 __jump_table records.
 *
 *   jump-sites VMLINUX KEY_SYMBOL
 *	one line per site of KEY_SYMBOL: "0xADDR FUNCTION+0xOFF branch=B"
 *   jump-sites OBJECT.o [KEY_SYMBOL]
 *	one line per site (of KEY_SYMBOL, or of every key):
 *	"SECTION+0xOFF TARGET_SECTION+0xOFF KEY branch=B nop-at-link=N"
 *
 * An entry holds the code, target and key addresses relative to its own
 * fields; the key's two low bits are flags (include/linux/jump_label.h):
 * bit 0, the branch bit, says which way the site points while the key is
 * off: a site is a JMP exactly when the key's state differs from it, so
 * branch=0 is a NOP while the key is off and branch=1 a taken jump.  In an
 * object file bit 1 marks the "jmp" that objtool turns into a NOP when
 * vmlinux is linked (arch/x86/include/asm/jump_label.h,
 * CONFIG_HAVE_JUMP_LABEL_HACK); in a running kernel it is the init flag.
 * Exit 1 when there is no site (of KEY_SYMBOL), 2 on bad input.
 */
#include <elf.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define ENTRY_SIZE 16

struct image {
	unsigned char *data;
	size_t size;
	Elf64_Ehdr *eh;
	Elf64_Shdr *sh;
};

static void die(const char *msg)
{
	fprintf(stderr, "jump-sites: %s\n", msg);
	exit(2);
}

static void load(const char *path, struct image *img)
{
	FILE *f = fopen(path, "rb");
	long len;

	if (!f || fseek(f, 0, SEEK_END) || (len = ftell(f)) < 0 || fseek(f, 0, SEEK_SET))
		die("cannot open the ELF file");
	img->size = (size_t)len;
	img->data = malloc(img->size ? img->size : 1);
	if (!img->data || fread(img->data, 1, img->size, f) != img->size)
		die("cannot read the ELF file");
	fclose(f);
	img->eh = (Elf64_Ehdr *)img->data;
	if (img->size < sizeof(*img->eh) || memcmp(img->eh->e_ident, ELFMAG, SELFMAG) ||
	    img->eh->e_ident[EI_CLASS] != ELFCLASS64 || img->eh->e_machine != EM_X86_64)
		die("not an x86-64 ELF file");
	if (img->eh->e_shoff + (uint64_t)img->eh->e_shnum * sizeof(Elf64_Shdr) > img->size ||
	    img->eh->e_shstrndx >= img->eh->e_shnum)
		die("truncated section table");
	img->sh = (Elf64_Shdr *)(img->data + img->eh->e_shoff);
}

static const char *section_name(struct image *img, const Elf64_Shdr *s)
{
	return (const char *)img->data + img->sh[img->eh->e_shstrndx].sh_offset + s->sh_name;
}

static Elf64_Shdr *section(struct image *img, const char *name)
{
	int i;

	for (i = 0; i < img->eh->e_shnum; i++)
		if (!strcmp(section_name(img, &img->sh[i]), name))
			return &img->sh[i];
	return NULL;
}

static Elf64_Sym *symbols(struct image *img, Elf64_Shdr *symtab, size_t *n)
{
	*n = symtab->sh_size / sizeof(Elf64_Sym);
	return (Elf64_Sym *)(img->data + symtab->sh_offset);
}

static const char *symbol_name(struct image *img, Elf64_Shdr *symtab, const Elf64_Sym *sym)
{
	return (const char *)img->data + img->sh[symtab->sh_link].sh_offset + sym->st_name;
}

/* The section holding the file bytes of address addr. */
static Elf64_Shdr *section_at(struct image *img, uint64_t addr)
{
	int i;

	for (i = 0; i < img->eh->e_shnum; i++) {
		Elf64_Shdr *s = &img->sh[i];

		if (s->sh_type == SHT_PROGBITS && addr >= s->sh_addr &&
		    addr < s->sh_addr + s->sh_size)
			return s;
	}
	return NULL;
}

/* The function symbol containing addr, for a readable location. */
static const char *function_at(struct image *img, Elf64_Shdr *symtab, uint64_t addr,
			       uint64_t *off)
{
	size_t i, n;
	Elf64_Sym *syms = symbols(img, symtab, &n);
	const char *best = "?";
	uint64_t best_addr = 0;

	for (i = 0; i < n; i++) {
		if (ELF64_ST_TYPE(syms[i].st_info) != STT_FUNC || syms[i].st_value > addr ||
		    syms[i].st_value < best_addr)
			continue;
		if (addr < syms[i].st_value + (syms[i].st_size ? syms[i].st_size : 1)) {
			best = symbol_name(img, symtab, &syms[i]);
			best_addr = syms[i].st_value;
		}
	}
	*off = addr - best_addr;
	return best;
}

static uint64_t symbol(struct image *img, Elf64_Shdr *symtab, const char *name)
{
	size_t i, n;
	Elf64_Sym *syms = symbols(img, symtab, &n);

	for (i = 0; i < n; i++)
		if (!strcmp(symbol_name(img, symtab, &syms[i]), name))
			return syms[i].st_value;
	return 0;
}

/* vmlinux: the table lies between __start___jump_table and __stop___jump_table. */
static int list_linked(struct image *img, Elf64_Shdr *symtab, const char *key_name)
{
	uint64_t key, base, end, i, off;
	Elf64_Shdr *jt;
	int found = 0;

	key = symbol(img, symtab, key_name);
	if (!key) {
		fprintf(stderr, "jump-sites: no symbol %s\n", key_name);
		return 1;
	}
	base = symbol(img, symtab, "__start___jump_table");
	end = symbol(img, symtab, "__stop___jump_table");
	jt = section_at(img, base);
	if (!base || !jt || end < base || end > jt->sh_addr + jt->sh_size)
		die("no __jump_table (CONFIG_JUMP_LABEL=n?)");
	for (i = 0; base + i + ENTRY_SIZE <= end; i += ENTRY_SIZE) {
		const unsigned char *e = img->data + jt->sh_offset + (base - jt->sh_addr) + i;
		int32_t code_rel;
		int64_t key_rel;
		uint64_t code, key_field;
		const char *func;

		memcpy(&code_rel, e, 4);
		memcpy(&key_rel, e + 8, 8);
		code = base + i + (int64_t)code_rel;
		key_field = base + i + 8 + key_rel;
		if ((key_field & ~3ULL) != key)
			continue;
		func = function_at(img, symtab, code, &off);
		printf("0x%llx %s+0x%llx branch=%d\n", (unsigned long long)code, func,
		       (unsigned long long)off, (int)(key_field & 1));
		found = 1;
	}
	return found ? 0 : 1;
}

/* One __jump_table entry of an object file, from its relocations. */
struct rel_entry {
	const Elf64_Rela *field[3];	/* code, target, key */
};

/* "SECTION+0xOFF" of a code or target field: a section symbol plus addend. */
static void print_place(struct image *img, Elf64_Shdr *symtab, const Elf64_Rela *r)
{
	size_t n;
	Elf64_Sym *syms = symbols(img, symtab, &n);
	const Elf64_Sym *s;
	uint64_t shndx;

	if (ELF64_R_SYM(r->r_info) >= n)
		die("relocation names no symbol");
	s = &syms[ELF64_R_SYM(r->r_info)];
	shndx = s->st_shndx;
	if (shndx == SHN_UNDEF || shndx >= img->eh->e_shnum) {
		printf("%s%+lld", symbol_name(img, symtab, s), (long long)r->r_addend);
		return;
	}
	printf("%s+0x%llx", section_name(img, &img->sh[shndx]),
	       (unsigned long long)(s->st_value + (uint64_t)r->r_addend));
}

/*
 * The key's name: the symbol itself, or for a section symbol the object
 * defined at that place; an offset inside the key's object (a tracepoint's
 * key is a member) is printed as +0xN.
 */
static void key_name(struct image *img, Elf64_Shdr *symtab, const Elf64_Rela *r,
		     char *buf, size_t len)
{
	size_t i, n;
	Elf64_Sym *syms = symbols(img, symtab, &n);
	const Elf64_Sym *s = &syms[ELF64_R_SYM(r->r_info)];
	uint64_t off = (uint64_t)r->r_addend & ~3ULL;
	const char *name = symbol_name(img, symtab, s);

	if (ELF64_ST_TYPE(s->st_info) == STT_SECTION) {
		uint64_t place = s->st_value + off;

		name = "?";
		for (i = 0; i < n; i++) {
			if (syms[i].st_shndx != s->st_shndx ||
			    ELF64_ST_TYPE(syms[i].st_info) != STT_OBJECT ||
			    place < syms[i].st_value ||
			    place >= syms[i].st_value + (syms[i].st_size ? syms[i].st_size : 1))
				continue;
			name = symbol_name(img, symtab, &syms[i]);
			off = place - syms[i].st_value;
			break;
		}
	}
	if (off)
		snprintf(buf, len, "%s+0x%llx", name, (unsigned long long)off);
	else
		snprintf(buf, len, "%s", name);
}

/* An object file: the table's fields are relocations against symbols. */
static int list_object(struct image *img, Elf64_Shdr *symtab, const char *want)
{
	Elf64_Shdr *jt = section(img, "__jump_table"), *rela = NULL;
	struct rel_entry *entries;
	const Elf64_Rela *r;
	size_t i, n, nrel;
	int found = 0;

	if (!jt)
		return 1;
	for (i = 0; i < img->eh->e_shnum; i++)
		if (img->sh[i].sh_type == SHT_RELA && &img->sh[img->sh[i].sh_info] == jt)
			rela = &img->sh[i];
	if (!rela || rela->sh_offset + rela->sh_size > img->size)
		die("__jump_table has no relocations");
	n = jt->sh_size / ENTRY_SIZE;
	entries = calloc(n ? n : 1, sizeof(*entries));
	if (!entries)
		die("out of memory");
	r = (const Elf64_Rela *)(img->data + rela->sh_offset);
	nrel = rela->sh_size / sizeof(*r);
	for (i = 0; i < nrel; i++) {
		uint64_t e = r[i].r_offset / ENTRY_SIZE, field = r[i].r_offset % ENTRY_SIZE;

		if (e >= n || (field != 0 && field != 4 && field != 8))
			die("unexpected relocation in __jump_table");
		entries[e].field[field / 4] = &r[i];
	}
	for (i = 0; i < n; i++) {
		char key[256];
		int bits;

		if (!entries[i].field[0] || !entries[i].field[1] || !entries[i].field[2])
			die("__jump_table entry without its three relocations");
		key_name(img, symtab, entries[i].field[2], key, sizeof(key));
		if (want && strcmp(key, want))
			continue;
		bits = (int)((uint64_t)entries[i].field[2]->r_addend & 3);
		print_place(img, symtab, entries[i].field[0]);
		putchar(' ');
		print_place(img, symtab, entries[i].field[1]);
		printf(" %s branch=%d nop-at-link=%d\n", key, bits & 1, (bits >> 1) & 1);
		found = 1;
	}
	free(entries);
	return found ? 0 : 1;
}

int main(int argc, char **argv)
{
	struct image img;
	Elf64_Shdr *symtab;

	if (argc < 2 || argc > 3) {
		fprintf(stderr, "usage: jump-sites VMLINUX KEY_SYMBOL | jump-sites OBJECT.o [KEY_SYMBOL]\n");
		return 2;
	}
	load(argv[1], &img);
	symtab = section(&img, ".symtab");
	if (!symtab || symtab->sh_link >= img.eh->e_shnum)
		die("no .symtab");
	if (img.eh->e_type == ET_REL)
		return list_object(&img, symtab, argc == 3 ? argv[2] : NULL);
	if (argc != 3)
		die("a linked image needs KEY_SYMBOL");
	return list_linked(&img, symtab, argv[2]);
}
