// SPDX-License-Identifier: GPL-2.0
/*
 * kpeek: print the live bytes of kernel text at a virtual address, read
 * through /proc/kcore, to show what a patched jump-label site holds now.
 *
 *   kpeek ADDR LEN        prints LEN bytes as hex, e.g. "0f 1f 44 00 00"
 */
#define _GNU_SOURCE
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define MAX_PEEK 64

static int find_offset(int fd, uint64_t addr, uint64_t len, off_t *off)
{
	Elf64_Ehdr eh;
	Elf64_Phdr ph;
	int i;

	if (pread(fd, &eh, sizeof(eh), 0) != sizeof(eh) ||
	    memcmp(eh.e_ident, ELFMAG, SELFMAG) || eh.e_ident[EI_CLASS] != ELFCLASS64)
		return -1;
	for (i = 0; i < eh.e_phnum; i++) {
		if (pread(fd, &ph, sizeof(ph), eh.e_phoff + (off_t)i * eh.e_phentsize) !=
		    sizeof(ph))
			return -1;
		if (ph.p_type == PT_LOAD && addr >= ph.p_vaddr &&
		    addr + len <= ph.p_vaddr + ph.p_memsz) {
			*off = (off_t)(ph.p_offset + (addr - ph.p_vaddr));
			return 0;
		}
	}
	return -1;
}

int main(int argc, char **argv)
{
	unsigned char buf[MAX_PEEK];
	uint64_t addr, len, i;
	off_t off;
	int fd;

	if (argc != 3) {
		fprintf(stderr, "usage: kpeek ADDR LEN\n");
		return 2;
	}
	addr = strtoull(argv[1], NULL, 0);
	len = strtoull(argv[2], NULL, 0);
	if (!len || len > MAX_PEEK) {
		fprintf(stderr, "kpeek: LEN must be 1..%d\n", MAX_PEEK);
		return 2;
	}
	fd = open("/proc/kcore", O_RDONLY);
	if (fd < 0) {
		fprintf(stderr, "kpeek: /proc/kcore: %s\n", strerror(errno));
		return 1;
	}
	if (find_offset(fd, addr, len, &off) ||
	    pread(fd, buf, len, off) != (ssize_t)len) {
		fprintf(stderr, "kpeek: cannot read %#llx\n", (unsigned long long)addr);
		return 1;
	}
	for (i = 0; i < len; i++)
		printf("%02x%s", buf[i], i + 1 < len ? " " : "\n");
	close(fd);
	return 0;
}
