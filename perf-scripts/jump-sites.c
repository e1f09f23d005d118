// SPDX-License-Identifier: GPL-2.0
/*
 * jump-sites: list the jump-label sites of a static key in a vmlinux.
 *
 *   jump-sites VMLINUX KEY_SYMBOL
 *
 * Prints one line per site, "0xADDR FUNCTION+0xOFF", from the x86-64
 * jump table, whose entries hold the code, target and key addresses
 * relative to the entry's own fields.  Exit 1 when the key has no site.
 */
#include <elf.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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
		die("cannot open vmlinux");
	img->size = (size_t)len;
	img->data = malloc(img->size);
	if (!img->data || fread(img->data, 1, img->size, f) != img->size)
		die("cannot read vmlinux");
	fclose(f);
	img->eh = (Elf64_Ehdr *)img->data;
	if (img->size < sizeof(*img->eh) || memcmp(img->eh->e_ident, ELFMAG, SELFMAG) ||
	    img->eh->e_ident[EI_CLASS] != ELFCLASS64 || img->eh->e_machine != EM_X86_64)
		die("not an x86-64 ELF file");
	if (img->eh->e_shoff + (uint64_t)img->eh->e_shnum * sizeof(Elf64_Shdr) > img->size)
		die("truncated section table");
	img->sh = (Elf64_Shdr *)(img->data + img->eh->e_shoff);
}

static Elf64_Shdr *section(struct image *img, const char *name)
{
	const char *names = (const char *)img->data + img->sh[img->eh->e_shstrndx].sh_offset;
	int i;

	for (i = 0; i < img->eh->e_shnum; i++)
		if (!strcmp(names + img->sh[i].sh_name, name))
			return &img->sh[i];
	return NULL;
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
	const char *strtab = (const char *)img->data + img->sh[symtab->sh_link].sh_offset;
	Elf64_Sym *syms = (Elf64_Sym *)(img->data + symtab->sh_offset);
	size_t i, n = symtab->sh_size / sizeof(Elf64_Sym);
	const char *best = "?";
	uint64_t best_addr = 0;

	for (i = 0; i < n; i++) {
		if (ELF64_ST_TYPE(syms[i].st_info) != STT_FUNC || syms[i].st_value > addr ||
		    syms[i].st_value < best_addr)
			continue;
		if (addr < syms[i].st_value + (syms[i].st_size ? syms[i].st_size : 1)) {
			best = strtab + syms[i].st_name;
			best_addr = syms[i].st_value;
		}
	}
	*off = addr - best_addr;
	return best;
}

static uint64_t symbol(struct image *img, Elf64_Shdr *symtab, const char *name)
{
	const char *strtab = (const char *)img->data + img->sh[symtab->sh_link].sh_offset;
	Elf64_Sym *syms = (Elf64_Sym *)(img->data + symtab->sh_offset);
	size_t i, n = symtab->sh_size / sizeof(Elf64_Sym);

	for (i = 0; i < n; i++)
		if (!strcmp(strtab + syms[i].st_name, name))
			return syms[i].st_value;
	return 0;
}

int main(int argc, char **argv)
{
	struct image img;
	Elf64_Shdr *symtab, *jt;
	uint64_t key, base, end, i, off;
	int found = 0;

	if (argc != 3) {
		fprintf(stderr, "usage: jump-sites VMLINUX KEY_SYMBOL\n");
		return 2;
	}
	load(argv[1], &img);
	symtab = section(&img, ".symtab");
	if (!symtab)
		die("no .symtab");
	key = symbol(&img, symtab, argv[2]);
	if (!key) {
		fprintf(stderr, "jump-sites: no symbol %s\n", argv[2]);
		return 1;
	}
	/* The linker script places the table inside .data between these. */
	base = symbol(&img, symtab, "__start___jump_table");
	end = symbol(&img, symtab, "__stop___jump_table");
	jt = section_at(&img, base);
	if (!base || !jt || end < base || end > jt->sh_addr + jt->sh_size)
		die("no __jump_table (CONFIG_JUMP_LABEL=n?)");
	for (i = 0; base + i + 16 <= end; i += 16) {
		const unsigned char *e = img.data + jt->sh_offset + (base - jt->sh_addr) + i;
		int32_t code_rel;
		int64_t key_rel;
		uint64_t code, entry_key;
		const char *func;

		memcpy(&code_rel, e, 4);
		memcpy(&key_rel, e + 8, 8);
		code = base + i + (int64_t)code_rel;
		entry_key = (base + i + 8 + key_rel) & ~3ULL;
		if (entry_key != key)
			continue;
		func = function_at(&img, symtab, code, &off);
		printf("0x%llx %s+0x%llx\n", (unsigned long long)code, func,
		       (unsigned long long)off);
		found = 1;
	}
	return found ? 0 : 1;
}
