// SPDX-License-Identifier: GPL-2.0
/*
 * elf_image: a minimal valid image is built in memory, then broken one field
 * at a time. Failing loads are run on an exact-size heap copy of the image,
 * so that any read past its end shows up under valgrind or ASan.
 */
#include <check.h>
#include <elf.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "backends/kvm/elf_image.h"
#include "plerig/abi.h"
#include "support/check_main.h"

#define MEM_BASE    PLERIG_IMAGE_BASE
#define MEM_SIZE    0x20000ull
#define WIN_MIN	    PLERIG_IMAGE_BASE
#define WIN_MAX	    PLERIG_SHARED_GPA
#define LOAD_ADDR   (MEM_BASE + 0x1000)
#define TEXT_FILESZ 64
#define TEXT_MEMSZ  0x100
#define PVH_ENTRY   (LOAD_ADDR + 0x10)
#define FILL	    0xaa

/* Laid out as the file: no padding anywhere, the loaded bytes last. */
struct test_elf {
	Elf64_Ehdr eh;
	Elf64_Phdr ph[2]; /* [0] PT_LOAD, [1] PT_NOTE */
	Elf64_Nhdr nh;
	char name[4];
	uint32_t desc[2]; /* a 4-byte desc; [1] only used by the 8-byte variant */
	uint8_t text[TEXT_FILESZ];
};
_Static_assert(offsetof(struct test_elf, text) + TEXT_FILESZ == sizeof(struct test_elf),
	       "the loaded bytes must end the file, so every truncation cuts them");

static uint8_t mem[MEM_SIZE];
static char err[256];
static struct elf_image_info info;

static void build_elf(struct test_elf *t)
{
	memset(t, 0, sizeof(*t));
	memcpy(t->eh.e_ident, ELFMAG, SELFMAG);
	t->eh.e_ident[EI_CLASS] = ELFCLASS64;
	t->eh.e_ident[EI_DATA] = ELFDATA2LSB;
	t->eh.e_ident[EI_VERSION] = EV_CURRENT;
	t->eh.e_type = ET_EXEC;
	t->eh.e_machine = EM_X86_64;
	t->eh.e_version = EV_CURRENT;
	t->eh.e_entry = LOAD_ADDR;
	t->eh.e_phoff = offsetof(struct test_elf, ph);
	t->eh.e_ehsize = sizeof(Elf64_Ehdr);
	t->eh.e_phentsize = sizeof(Elf64_Phdr);
	t->eh.e_phnum = 2;

	t->ph[0] = (Elf64_Phdr){
	    .p_type = PT_LOAD,
	    .p_flags = PF_R | PF_X,
	    .p_offset = offsetof(struct test_elf, text),
	    .p_vaddr = LOAD_ADDR,
	    .p_paddr = LOAD_ADDR,
	    .p_filesz = TEXT_FILESZ,
	    .p_memsz = TEXT_MEMSZ,
	    .p_align = 0x1000,
	};
	t->ph[1] = (Elf64_Phdr){
	    .p_type = PT_NOTE,
	    .p_flags = PF_R,
	    .p_offset = offsetof(struct test_elf, nh),
	    .p_filesz = sizeof(Elf64_Nhdr) + 4 + 4,
	    .p_align = 4,
	};
	t->nh = (Elf64_Nhdr){.n_namesz = 4, .n_descsz = 4, .n_type = 18};
	memcpy(t->name, "Xen", 4);
	t->desc[0] = (uint32_t)PVH_ENTRY;
	for (unsigned i = 0; i < TEXT_FILESZ; i++)
		t->text[i] = (uint8_t)(i + 1);
}

/* Load @len bytes of @image from an exact-size heap copy. */
static int load_copy(const void *image, size_t len)
{
	uint8_t *copy = malloc(len ? len : 1);
	int ret;

	ck_assert_ptr_nonnull(copy);
	memcpy(copy, image, len);
	memset(mem, FILL, sizeof(mem));
	err[0] = '\0';
	ret = elf_image_load(copy, len, mem, MEM_BASE, MEM_SIZE, WIN_MIN, WIN_MAX, &info, err,
			     sizeof(err));
	free(copy);
	return ret;
}

static int load(const struct test_elf *t)
{
	return load_copy(t, sizeof(*t));
}

/* A failed load must explain itself and leave guest memory untouched. */
static void expect_fail(const struct test_elf *t, const char *needle)
{
	size_t i = 0;

	ck_assert_int_eq(load(t), -1);
	ck_assert_msg(strstr(err, needle), "error \"%s\" lacks \"%s\"", err, needle);
	/* one assertion, not one per byte: each costs a write to Check's pipe */
	while (i < sizeof(mem) && mem[i] == FILL)
		i++;
	ck_assert_msg(i == sizeof(mem), "byte %zu of guest memory written by a failed load", i);
}

START_TEST(test_valid_load)
{
	struct test_elf t;
	const size_t off = LOAD_ADDR - MEM_BASE;

	build_elf(&t);
	ck_assert_msg(load(&t) == 0, "valid image rejected: %s", err);
	ck_assert_uint_eq(info.entry, LOAD_ADDR);
	ck_assert_uint_eq(info.pvh_entry, PVH_ENTRY);
	ck_assert_uint_eq(info.load_low, LOAD_ADDR);
	ck_assert_uint_eq(info.load_high, LOAD_ADDR + TEXT_MEMSZ);
	ck_assert_mem_eq(mem + off, t.text, TEXT_FILESZ);
	for (size_t i = TEXT_FILESZ; i < TEXT_MEMSZ; i++)
		ck_assert_msg(mem[off + i] == 0, "bss byte %zu not zeroed", i);
	ck_assert_uint_eq(mem[off - 1], FILL);
	ck_assert_uint_eq(mem[off + TEXT_MEMSZ], FILL);
}
END_TEST

START_TEST(test_valid_without_pvh_note)
{
	struct test_elf t;

	build_elf(&t);
	t.ph[1].p_type = PT_NULL;
	ck_assert_msg(load(&t) == 0, "valid image rejected: %s", err);
	ck_assert_uint_eq(info.pvh_entry, 0);
	ck_assert_uint_eq(info.entry, LOAD_ADDR);
}
END_TEST

START_TEST(test_adjacent_segments_ok)
{
	struct test_elf t;

	build_elf(&t);
	t.ph[1] = t.ph[0];
	t.ph[1].p_paddr += TEXT_MEMSZ;
	t.ph[1].p_vaddr += TEXT_MEMSZ;
	ck_assert_msg(load(&t) == 0, "adjacent segments rejected: %s", err);
	ck_assert_uint_eq(info.load_high, LOAD_ADDR + 2 * TEXT_MEMSZ);
}
END_TEST

START_TEST(test_truncated)
{
	struct test_elf t;

	build_elf(&t);
	for (size_t len = 0; len < sizeof(t); len++) {
		ck_assert_msg(load_copy(&t, len) == -1, "truncated to %zu bytes but loaded", len);
		ck_assert_msg(err[0] != '\0', "no message for truncation to %zu bytes", len);
	}
}
END_TEST

START_TEST(test_bad_magic)
{
	struct test_elf t;

	build_elf(&t);
	t.eh.e_ident[EI_MAG1] = 'X';
	expect_fail(&t, "bad magic");
}
END_TEST

START_TEST(test_class32)
{
	struct test_elf t;

	build_elf(&t);
	t.eh.e_ident[EI_CLASS] = ELFCLASS32;
	expect_fail(&t, "ELF class is 32-bit, need ELF64");
}
END_TEST

START_TEST(test_big_endian)
{
	struct test_elf t;

	build_elf(&t);
	t.eh.e_ident[EI_DATA] = ELFDATA2MSB;
	expect_fail(&t, "little-endian");
}
END_TEST

START_TEST(test_wrong_machine)
{
	struct test_elf t;

	build_elf(&t);
	t.eh.e_machine = EM_ARM;
	expect_fail(&t, "machine is 40, need x86-64 (62)");
}
END_TEST

START_TEST(test_et_dyn)
{
	struct test_elf t;

	build_elf(&t);
	t.eh.e_type = ET_DYN;
	expect_fail(&t, "ET_DYN");
}
END_TEST

START_TEST(test_phentsize)
{
	struct test_elf t;

	build_elf(&t);
	t.eh.e_phentsize = sizeof(Elf32_Phdr);
	expect_fail(&t, "program header entry size");
}
END_TEST

START_TEST(test_phdr_out_of_bounds)
{
	struct test_elf t;

	build_elf(&t);
	t.eh.e_phoff = sizeof(t) - 10;
	expect_fail(&t, "program header table out of file bounds");
	t.eh.e_phoff = UINT64_MAX - 8;
	expect_fail(&t, "program header table out of file bounds");
}
END_TEST

START_TEST(test_phnum)
{
	struct test_elf t;

	build_elf(&t);
	t.eh.e_phnum = 0xfffe;
	expect_fail(&t, "program header table out of file bounds");
	t.eh.e_phnum = PN_XNUM;
	expect_fail(&t, "PN_XNUM");
	t.eh.e_phnum = 0;
	expect_fail(&t, "no program headers");
}
END_TEST

START_TEST(test_segment_outside_window)
{
	struct test_elf t;

	build_elf(&t);
	t.ph[0].p_paddr = WIN_MAX - 0x80; /* starts inside, ends outside */
	expect_fail(&t, "segment 0 at 0x7fff80 size 0x100 outside the allowed window "
			"[0x100000, 0x800000)");
	t.ph[0].p_paddr = 0x1000;
	expect_fail(&t, "outside the allowed window");
	t.ph[0].p_paddr = UINT64_MAX - 0x10; /* paddr + memsz wraps */
	expect_fail(&t, "outside the allowed window");
}
END_TEST

START_TEST(test_segment_outside_memory)
{
	struct test_elf t;

	build_elf(&t);
	t.ph[0].p_paddr = MEM_BASE + MEM_SIZE - 0x10; /* inside the window, past the buffer */
	expect_fail(&t, "outside guest memory");
}
END_TEST

START_TEST(test_filesz_gt_memsz)
{
	struct test_elf t;

	build_elf(&t);
	t.ph[0].p_memsz = TEXT_FILESZ - 1;
	expect_fail(&t, "segment 0 file size 0x40 larger than memory size");
}
END_TEST

START_TEST(test_offset_overflow)
{
	struct test_elf t;

	build_elf(&t);
	t.ph[0].p_offset = UINT64_MAX - 4;
	expect_fail(&t, "segment 0 data past end of file");
	t.ph[0].p_offset = sizeof(t);
	expect_fail(&t, "segment 0 data past end of file");
}
END_TEST

START_TEST(test_overlap)
{
	struct test_elf t;

	build_elf(&t);
	t.ph[1] = t.ph[0];
	t.ph[1].p_paddr += TEXT_MEMSZ - 1;
	expect_fail(&t, "overlapping segments");
}
END_TEST

START_TEST(test_no_loadable)
{
	struct test_elf t;

	build_elf(&t);
	t.ph[0].p_type = PT_NULL;
	expect_fail(&t, "no loadable segment");
	t.ph[0].p_type = PT_LOAD;
	t.ph[0].p_filesz = 0;
	t.ph[0].p_memsz = 0;
	expect_fail(&t, "no loadable segment");
}
END_TEST

START_TEST(test_entry_outside)
{
	struct test_elf t;

	build_elf(&t);
	t.desc[0] = (uint32_t)(LOAD_ADDR + TEXT_MEMSZ);
	expect_fail(&t, "PVH entry point 0x101100 not inside a loaded executable segment");

	/* without the note, e_entry is the one that counts */
	build_elf(&t);
	t.ph[1].p_type = PT_NULL;
	t.eh.e_entry = LOAD_ADDR - 1;
	expect_fail(&t, "entry point 0x100fff not inside a loaded executable segment");
}
END_TEST

START_TEST(test_entry_not_executable)
{
	struct test_elf t;

	build_elf(&t);
	t.ph[0].p_flags = PF_R | PF_W;
	expect_fail(&t, "not inside a loaded executable segment");
}
END_TEST

START_TEST(test_pvh_note_8byte)
{
	struct test_elf t;

	build_elf(&t);
	t.nh.n_descsz = 8;
	t.ph[1].p_filesz += 4;
	ck_assert_msg(load(&t) == 0, "8-byte PVH note rejected: %s", err);
	ck_assert_uint_eq(info.pvh_entry, PVH_ENTRY);

	t.desc[1] = 1; /* above 4 GiB: not in any segment */
	expect_fail(&t, "PVH entry point 0x100101010");
}
END_TEST

START_TEST(test_pvh_note_bad_descsz)
{
	struct test_elf t;

	build_elf(&t);
	t.nh.n_descsz = 2;
	expect_fail(&t, "need 4 or 8");
}
END_TEST

START_TEST(test_foreign_note_ignored)
{
	struct test_elf t;

	build_elf(&t);
	memcpy(t.name, "GNU", 4);
	ck_assert_msg(load(&t) == 0, "foreign note rejected: %s", err);
	ck_assert_uint_eq(info.pvh_entry, 0);
}
END_TEST

START_TEST(test_note_bogus_sizes)
{
	static const uint32_t bogus[] = {5, 9, 0x1000, 0x7ffffffc, 0xfffffff0, UINT32_MAX};
	struct test_elf t;

	for (size_t i = 0; i < sizeof(bogus) / sizeof(bogus[0]); i++) {
		build_elf(&t);
		t.nh.n_namesz = bogus[i];
		ck_assert_int_eq(load(&t), -1);
		ck_assert_msg(strstr(err, "malformed note"), "namesz 0x%x: %s", bogus[i], err);

		build_elf(&t);
		t.nh.n_descsz = bogus[i];
		ck_assert_int_eq(load(&t), -1);
		ck_assert_msg(strstr(err, "malformed note"), "descsz 0x%x: %s", bogus[i], err);
	}
}
END_TEST

START_TEST(test_note_segment_past_eof)
{
	struct test_elf t;

	build_elf(&t);
	t.ph[1].p_offset = UINT64_MAX - 2;
	expect_fail(&t, "note segment 1 data past end of file");
	build_elf(&t);
	t.ph[1].p_filesz = sizeof(t);
	expect_fail(&t, "note segment 1 data past end of file");
}
END_TEST

START_TEST(test_read_file_missing)
{
	const char *path = "/nonexistent/plerig-guest.elf";
	void *data = NULL;
	size_t len = 0;

	ck_assert_int_eq(elf_image_read_file(path, &data, &len, err, sizeof(err)), -1);
	ck_assert_ptr_null(data);
	ck_assert_msg(strstr(err, path), "path missing from \"%s\"", err);
	ck_assert_msg(strstr(err, "No such file or directory"), "errno text missing: %s", err);
	ck_assert_msg(strstr(err, "--guest"), "hint missing: %s", err);
}
END_TEST

START_TEST(test_read_file_directory)
{
	void *data = NULL;
	size_t len = 0;

	ck_assert_int_eq(elf_image_read_file("/tmp", &data, &len, err, sizeof(err)), -1);
	ck_assert_ptr_null(data);
	ck_assert_msg(strstr(err, "/tmp") && strstr(err, "directory"), "got: %s", err);
}
END_TEST

/* Write @len bytes of @buf to a fresh temporary file; its path goes in @path. */
static void write_temp(char *path, const void *buf, size_t len)
{
	int fd;

	strcpy(path, "/tmp/plerig-test-elf-XXXXXX");
	fd = mkstemp(path);
	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(write(fd, buf, len), (ssize_t)len);
	ck_assert_int_eq(close(fd), 0);
}

START_TEST(test_read_file_roundtrip)
{
	char path[64];
	struct test_elf t;
	void *data = NULL;
	size_t len = 0;

	build_elf(&t);
	write_temp(path, &t, sizeof(t));
	ck_assert_msg(elf_image_read_file(path, &data, &len, err, sizeof(err)) == 0, "%s", err);
	unlink(path);
	ck_assert_uint_eq(len, sizeof(t));
	ck_assert_mem_eq(data, &t, sizeof(t));
	ck_assert_msg(load_copy(data, len) == 0, "read-back image rejected: %s", err);
	free(data);
}
END_TEST

START_TEST(test_read_file_empty)
{
	char path[64];
	void *data = NULL;
	size_t len = 0;

	write_temp(path, "", 0);
	ck_assert_int_eq(elf_image_read_file(path, &data, &len, err, sizeof(err)), -1);
	unlink(path);
	ck_assert_ptr_null(data);
	ck_assert_msg(strstr(err, "empty"), "got: %s", err);
}
END_TEST

static Suite *elf_image_suite(void)
{
	Suite *s = suite_create("elf_image");
	TCase *valid = tcase_create("valid");
	TCase *header = tcase_create("header");
	TCase *segments = tcase_create("segments");
	TCase *notes = tcase_create("notes");
	TCase *file = tcase_create("read_file");

	tcase_add_test(valid, test_valid_load);
	tcase_add_test(valid, test_valid_without_pvh_note);
	tcase_add_test(valid, test_adjacent_segments_ok);
	tcase_add_test(header, test_truncated);
	tcase_add_test(header, test_bad_magic);
	tcase_add_test(header, test_class32);
	tcase_add_test(header, test_big_endian);
	tcase_add_test(header, test_wrong_machine);
	tcase_add_test(header, test_et_dyn);
	tcase_add_test(header, test_phentsize);
	tcase_add_test(header, test_phdr_out_of_bounds);
	tcase_add_test(header, test_phnum);
	tcase_add_test(segments, test_segment_outside_window);
	tcase_add_test(segments, test_segment_outside_memory);
	tcase_add_test(segments, test_filesz_gt_memsz);
	tcase_add_test(segments, test_offset_overflow);
	tcase_add_test(segments, test_overlap);
	tcase_add_test(segments, test_no_loadable);
	tcase_add_test(segments, test_entry_outside);
	tcase_add_test(segments, test_entry_not_executable);
	tcase_add_test(notes, test_pvh_note_8byte);
	tcase_add_test(notes, test_pvh_note_bad_descsz);
	tcase_add_test(notes, test_foreign_note_ignored);
	tcase_add_test(notes, test_note_bogus_sizes);
	tcase_add_test(notes, test_note_segment_past_eof);
	tcase_add_test(file, test_read_file_missing);
	tcase_add_test(file, test_read_file_directory);
	tcase_add_test(file, test_read_file_roundtrip);
	tcase_add_test(file, test_read_file_empty);
	suite_add_tcase(s, valid);
	suite_add_tcase(s, header);
	suite_add_tcase(s, segments);
	suite_add_tcase(s, notes);
	suite_add_tcase(s, file);
	return s;
}

CHECK_MAIN(elf_image_suite)
