// SPDX-License-Identifier: GPL-2.0
/*
 * Guest image loader. The whole file is validated first and copied after,
 * so a bad image never leaves half a kernel in guest memory. All header
 * fields are copied out with memcpy: the buffer comes from malloc or a test
 * and need not be aligned for Elf64_* structures.
 */
#include "util/errbuf.h"
#include "backends/kvm/elf_image.h"

#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* Xen's PVH boot protocol: the 32-bit physical entry (xen/include/public/elfnote.h). */
#define XEN_ELFNOTE_PHYS32_ENTRY 18

/* A kernel has a handful of segments; the cap keeps the overlap check cheap. */
#define ELF_MAX_LOAD_SEGMENTS 64

struct load_seg {
	unsigned idx;	/* program header index, for messages */
	uint64_t start; /* guest-physical [start, end) */
	uint64_t end;
	uint64_t vstart; /* virtual [vstart, vend), where e_entry points */
	uint64_t vend;
	uint64_t offset;
	uint64_t filesz;
	uint32_t flags;
};

struct load_ctx {
	const uint8_t *file;
	size_t len;
	uint64_t mem_base, mem_end;
	uint64_t load_min, load_max;
	struct load_seg seg[ELF_MAX_LOAD_SEGMENTS];
	unsigned nseg;
	bool has_pvh;
	uint64_t pvh_entry;
};

/* True if [off, off + size) lies inside a buffer of @len bytes. */
static bool in_file(uint64_t off, uint64_t size, size_t len)
{
	uint64_t end;

	if (__builtin_add_overflow(off, size, &end))
		return false;
	return end <= len;
}

static int check_ident(const uint8_t *file, size_t len, char *err, size_t errlen)
{
	if (len < SELFMAG || memcmp(file, ELFMAG, SELFMAG) != 0) {
		errbuf_printf(err, errlen, "not an ELF file (bad magic)");
		return -1;
	}
	if (len < EI_NIDENT) {
		errbuf_printf(err, errlen, "truncated ELF identification (%zu bytes)", len);
		return -1;
	}
	if (file[EI_CLASS] != ELFCLASS64) {
		errbuf_printf(err, errlen, "ELF class is %s, need ELF64",
			      file[EI_CLASS] == ELFCLASS32 ? "32-bit" : "invalid");
		return -1;
	}
	if (file[EI_DATA] != ELFDATA2LSB) {
		errbuf_printf(err, errlen, "ELF data encoding is %u, need little-endian (%u)",
			      file[EI_DATA], ELFDATA2LSB);
		return -1;
	}
	if (file[EI_VERSION] != EV_CURRENT) {
		errbuf_printf(err, errlen, "ELF identification version is %u, need %u",
			      file[EI_VERSION], EV_CURRENT);
		return -1;
	}
	return 0;
}

static int check_ehdr(const Elf64_Ehdr *eh, size_t len, char *err, size_t errlen)
{
	if (eh->e_type != ET_EXEC) {
		errbuf_printf(
		    err, errlen, "ELF type is %u%s, need ET_EXEC (link the guest -static -no-pie)",
		    eh->e_type, eh->e_type == ET_DYN ? " (ET_DYN: PIE or shared object)" : "");
		return -1;
	}
	if (eh->e_machine != EM_X86_64) {
		errbuf_printf(err, errlen, "machine is %u, need x86-64 (%u)", eh->e_machine,
			      EM_X86_64);
		return -1;
	}
	if (eh->e_version != EV_CURRENT) {
		errbuf_printf(err, errlen, "ELF version is %u, need %u", eh->e_version, EV_CURRENT);
		return -1;
	}
	if (eh->e_phentsize != sizeof(Elf64_Phdr)) {
		errbuf_printf(err, errlen, "program header entry size is %u, need %zu",
			      eh->e_phentsize, sizeof(Elf64_Phdr));
		return -1;
	}
	if (eh->e_phnum == 0) {
		errbuf_printf(err, errlen, "no program headers");
		return -1;
	}
	/* PN_XNUM moves the real count to section 0: no kernel needs that many. */
	if (eh->e_phnum == PN_XNUM) {
		errbuf_printf(err, errlen,
			      "extended program header numbering (PN_XNUM) not supported");
		return -1;
	}
	if (!in_file(eh->e_phoff, (uint64_t)eh->e_phnum * sizeof(Elf64_Phdr), len)) {
		errbuf_printf(err, errlen, "program header table out of file bounds");
		return -1;
	}
	return 0;
}

static void read_phdr(const struct load_ctx *c, const Elf64_Ehdr *eh, unsigned i, Elf64_Phdr *ph)
{
	memcpy(ph, c->file + eh->e_phoff + (uint64_t)i * sizeof(*ph), sizeof(*ph));
}

static uint64_t align_up(uint64_t v, uint64_t a)
{
	return (v + a - 1) & ~(a - 1);
}

static uint64_t read_le(const uint8_t *p, unsigned n)
{
	uint64_t v = 0;

	for (unsigned i = n; i-- > 0;)
		v = v << 8 | p[i];
	return v;
}

static int take_pvh_note(struct load_ctx *c, const uint8_t *desc, uint32_t descsz, unsigned idx,
			 char *err, size_t errlen)
{
	if (descsz != 4 && descsz != 8) {
		errbuf_printf(err, errlen,
			      "PVH entry note in segment %u has a %u-byte address, need 4 or 8",
			      idx, descsz);
		return -1;
	}
	/* the first note wins, as in Linux's and QEMU's PVH loaders */
	if (!c->has_pvh) {
		c->has_pvh = true;
		c->pvh_entry = read_le(desc, descsz);
	}
	return 0;
}

/*
 * Walk the notes of one PT_NOTE segment. Offsets are kept relative to the
 * segment start and aligned to 4 bytes, or to 8 when p_align says so (as
 * .note.gnu.property is), following readelf and glibc.
 */
static int parse_notes(struct load_ctx *c, const Elf64_Phdr *ph, unsigned idx, char *err,
		       size_t errlen)
{
	uint64_t align = ph->p_align == 8 ? 8 : 4;
	uint64_t size = ph->p_filesz;
	uint64_t pos = 0;
	const uint8_t *base;

	if (!in_file(ph->p_offset, ph->p_filesz, c->len)) {
		errbuf_printf(err, errlen, "note segment %u data past end of file", idx);
		return -1;
	}
	base = c->file + ph->p_offset;
	while (size - pos >= sizeof(Elf64_Nhdr)) {
		Elf64_Nhdr nh;
		uint64_t name_pos, desc_pos;

		memcpy(&nh, base + pos, sizeof(nh));
		/* sizes are 32-bit and pos <= size <= len: no 64-bit overflow */
		name_pos = pos + sizeof(nh);
		desc_pos = align_up(name_pos + nh.n_namesz, align);
		if (desc_pos > size || nh.n_descsz > size - desc_pos) {
			errbuf_printf(err, errlen,
				      "malformed note in segment %u at offset 0x%" PRIx64
				      ": name size 0x%x, desc size 0x%x overrun the segment",
				      idx, pos, nh.n_namesz, nh.n_descsz);
			return -1;
		}
		if (nh.n_type == XEN_ELFNOTE_PHYS32_ENTRY && nh.n_namesz == 4 &&
		    memcmp(base + name_pos, "Xen", 4) == 0 &&
		    take_pvh_note(c, base + desc_pos, nh.n_descsz, idx, err, errlen))
			return -1;
		/* the last note's padding may be cut off by the segment's end */
		pos = align_up(desc_pos + nh.n_descsz, align);
		if (pos > size)
			break;
	}
	return 0;
}

static int check_window(const struct load_ctx *c, const Elf64_Phdr *ph, unsigned idx, uint64_t end,
			bool wraps, char *err, size_t errlen)
{
	if (wraps || ph->p_paddr < c->load_min || end > c->load_max) {
		errbuf_printf(err, errlen,
			      "segment %u at 0x%" PRIx64 " size 0x%" PRIx64
			      " outside the allowed window [0x%" PRIx64 ", 0x%" PRIx64 ")",
			      idx, ph->p_paddr, ph->p_memsz, c->load_min, c->load_max);
		return -1;
	}
	if (ph->p_paddr < c->mem_base || end > c->mem_end) {
		errbuf_printf(err, errlen,
			      "segment %u at 0x%" PRIx64 " size 0x%" PRIx64
			      " outside guest memory [0x%" PRIx64 ", 0x%" PRIx64 ")",
			      idx, ph->p_paddr, ph->p_memsz, c->mem_base, c->mem_end);
		return -1;
	}
	return 0;
}

static int add_load_segment(struct load_ctx *c, const Elf64_Phdr *ph, unsigned idx, char *err,
			    size_t errlen)
{
	struct load_seg *s;
	uint64_t end, vend;
	bool wraps;

	if (ph->p_filesz > ph->p_memsz) {
		errbuf_printf(err, errlen,
			      "segment %u file size 0x%" PRIx64
			      " larger than memory size 0x%" PRIx64,
			      idx, ph->p_filesz, ph->p_memsz);
		return -1;
	}
	if (!in_file(ph->p_offset, ph->p_filesz, c->len)) {
		errbuf_printf(err, errlen,
			      "segment %u data past end of file (offset 0x%" PRIx64
			      " size 0x%" PRIx64 ", file is 0x%zx bytes)",
			      idx, ph->p_offset, ph->p_filesz, c->len);
		return -1;
	}
	if (ph->p_memsz == 0)
		return 0; /* occupies nothing: neither loaded nor checked for overlap */
	/* a range that wraps around cannot be inside any window */
	wraps = __builtin_add_overflow(ph->p_paddr, ph->p_memsz, &end);
	if (check_window(c, ph, idx, end, wraps, err, errlen))
		return -1;
	if (__builtin_add_overflow(ph->p_vaddr, ph->p_memsz, &vend)) {
		errbuf_printf(err, errlen, "segment %u virtual range wraps around", idx);
		return -1;
	}
	if (c->nseg == ELF_MAX_LOAD_SEGMENTS) {
		errbuf_printf(err, errlen, "more than %u loadable segments", ELF_MAX_LOAD_SEGMENTS);
		return -1;
	}
	s = &c->seg[c->nseg++];
	*s = (struct load_seg){
	    .idx = idx,
	    .start = ph->p_paddr,
	    .end = end,
	    .vstart = ph->p_vaddr,
	    .vend = vend,
	    .offset = ph->p_offset,
	    .filesz = ph->p_filesz,
	    .flags = ph->p_flags,
	};
	return 0;
}

static int check_overlaps(const struct load_ctx *c, char *err, size_t errlen)
{
	for (unsigned i = 0; i < c->nseg; i++) {
		for (unsigned j = i + 1; j < c->nseg; j++) {
			const struct load_seg *a = &c->seg[i], *b = &c->seg[j];

			if (a->start < b->end && b->start < a->end) {
				errbuf_printf(err, errlen,
					      "overlapping segments %u [0x%" PRIx64 ", 0x%" PRIx64
					      ") and %u [0x%" PRIx64 ", 0x%" PRIx64 ")",
					      a->idx, a->start, a->end, b->idx, b->start, b->end);
				return -1;
			}
		}
	}
	return 0;
}

/* The PVH entry is physical, e_entry virtual: each is checked in its own space. */
static int check_entry(const struct load_ctx *c, uint64_t e_entry, char *err, size_t errlen)
{
	uint64_t entry = c->has_pvh ? c->pvh_entry : e_entry;

	for (unsigned i = 0; i < c->nseg; i++) {
		const struct load_seg *s = &c->seg[i];
		uint64_t lo = c->has_pvh ? s->start : s->vstart;
		uint64_t hi = c->has_pvh ? s->end : s->vend;

		if ((s->flags & PF_X) && entry >= lo && entry < hi)
			return 0;
	}
	errbuf_printf(err, errlen,
		      "%sentry point 0x%" PRIx64 " not inside a loaded executable segment",
		      c->has_pvh ? "PVH " : "", entry);
	return -1;
}

static int scan_phdrs(struct load_ctx *c, const Elf64_Ehdr *eh, char *err, size_t errlen)
{
	for (unsigned i = 0; i < eh->e_phnum; i++) {
		Elf64_Phdr ph;

		read_phdr(c, eh, i, &ph);
		if (ph.p_type == PT_LOAD && add_load_segment(c, &ph, i, err, errlen))
			return -1;
		if (ph.p_type == PT_NOTE && parse_notes(c, &ph, i, err, errlen))
			return -1;
	}
	if (c->nseg == 0) {
		errbuf_printf(err, errlen, "no loadable segment");
		return -1;
	}
	return 0;
}

static void copy_segments(const struct load_ctx *c, uint8_t *mem)
{
	for (unsigned i = 0; i < c->nseg; i++) {
		const struct load_seg *s = &c->seg[i];
		uint8_t *dst = mem + (s->start - c->mem_base);

		memcpy(dst, c->file + s->offset, s->filesz);
		memset(dst + s->filesz, 0, s->end - s->start - s->filesz);
	}
}

static void fill_info(const struct load_ctx *c, const Elf64_Ehdr *eh, struct elf_image_info *info)
{
	info->entry = eh->e_entry;
	info->pvh_entry = c->has_pvh ? c->pvh_entry : 0;
	info->load_low = UINT64_MAX;
	info->load_high = 0;
	for (unsigned i = 0; i < c->nseg; i++) {
		if (c->seg[i].start < info->load_low)
			info->load_low = c->seg[i].start;
		if (c->seg[i].end > info->load_high)
			info->load_high = c->seg[i].end;
	}
}

int elf_image_load(const void *file, size_t len, uint8_t *mem, uint64_t mem_base, uint64_t mem_size,
		   uint64_t load_min, uint64_t load_max, struct elf_image_info *info, char *err,
		   size_t errlen)
{
	struct load_ctx *c;
	Elf64_Ehdr eh;
	int ret = -1;

	if (!file || !mem) {
		errbuf_printf(err, errlen,
			      "internal error: no image or no guest memory to load into");
		return -1;
	}
	if (check_ident(file, len, err, errlen))
		return -1;
	if (len < sizeof(eh)) {
		errbuf_printf(err, errlen, "truncated ELF header (%zu of %zu bytes)", len,
			      sizeof(eh));
		return -1;
	}
	memcpy(&eh, file, sizeof(eh));
	if (check_ehdr(&eh, len, err, errlen))
		return -1;

	/* ~4 KiB of segment table: too big for comfort on a vCPU thread's stack */
	c = calloc(1, sizeof(*c));
	if (!c) {
		errbuf_printf(err, errlen, "out of memory loading the guest image");
		return -1;
	}
	c->file = file;
	c->len = len;
	c->mem_base = mem_base;
	c->load_min = load_min;
	c->load_max = load_max;
	if (__builtin_add_overflow(mem_base, mem_size, &c->mem_end)) {
		errbuf_printf(err, errlen,
			      "internal error: guest memory [0x%" PRIx64 " + 0x%" PRIx64
			      "] wraps around",
			      mem_base, mem_size);
		goto out;
	}
	if (scan_phdrs(c, &eh, err, errlen) || check_overlaps(c, err, errlen) ||
	    check_entry(c, eh.e_entry, err, errlen))
		goto out;

	copy_segments(c, mem);
	if (info)
		fill_info(c, &eh, info);
	ret = 0;
out:
	free(c);
	return ret;
}

static int read_all(int fd, uint8_t *buf, size_t len, const char *path, char *err, size_t errlen)
{
	size_t done = 0;

	while (done < len) {
		ssize_t n = read(fd, buf + done, len - done);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			errbuf_printf(err, errlen, "cannot read guest image %s: %s", path,
				      strerror(errno));
			return -1;
		}
		if (n == 0) {
			errbuf_printf(err, errlen,
				      "guest image %s shrank while being read (%zu of %zu bytes)",
				      path, done, len);
			return -1;
		}
		done += (size_t)n;
	}
	return 0;
}

static const char *open_hint(int e)
{
	switch (e) {
	case ENOENT:
		return " (build it with `make` or pass --guest)";
	case EACCES:
	case EPERM:
		return " (check the file's permissions)";
	default:
		return "";
	}
}

static int check_stat(const struct stat *st, const char *path, char *err, size_t errlen)
{
	if (S_ISDIR(st->st_mode)) {
		errbuf_printf(err, errlen,
			      "guest image %s is a directory, not an ELF file (pass --guest FILE)",
			      path);
		return -1;
	}
	if (!S_ISREG(st->st_mode)) {
		errbuf_printf(err, errlen, "guest image %s is not a regular file", path);
		return -1;
	}
	if (st->st_size == 0) {
		errbuf_printf(err, errlen, "guest image %s is empty (rebuild it with `make`)",
			      path);
		return -1;
	}
	if ((uint64_t)st->st_size > ELF_IMAGE_MAX_FILE_SIZE) {
		errbuf_printf(err, errlen,
			      "guest image %s is %lld bytes, more than the %llu MiB limit", path,
			      (long long)st->st_size, ELF_IMAGE_MAX_FILE_SIZE >> 20);
		return -1;
	}
	return 0;
}

int elf_image_read_file(const char *path, void **data, size_t *len, char *err, size_t errlen)
{
	struct stat st;
	uint8_t *buf = NULL;
	int fd;

	fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK); /* a FIFO must not block */
	if (fd < 0) {
		int e = errno;

		errbuf_printf(err, errlen, "cannot open guest image %s: %s%s", path, strerror(e),
			      open_hint(e));
		return -1;
	}
	if (fstat(fd, &st) < 0) {
		errbuf_printf(err, errlen, "cannot stat guest image %s: %s", path, strerror(errno));
		goto fail;
	}
	if (check_stat(&st, path, err, errlen))
		goto fail;
	buf = malloc((size_t)st.st_size);
	if (!buf) {
		errbuf_printf(err, errlen, "out of memory reading guest image %s (%lld bytes)",
			      path, (long long)st.st_size);
		goto fail;
	}
	if (read_all(fd, buf, (size_t)st.st_size, path, err, errlen))
		goto fail;
	close(fd);
	*data = buf;
	*len = (size_t)st.st_size;
	return 0;
fail:
	free(buf);
	close(fd);
	return -1;
}
