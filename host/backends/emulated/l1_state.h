/* SPDX-License-Identifier: GPL-2.0 */
/*
 * L1's saved states: the warm start of the emulated host. Once L1 has
 * booted and loaded kvm_intel, Bochs saves its whole state (save-state.so)
 * into CACHE/emulated/states/KEY/; later runs restore it (bochs -r) in
 * seconds instead of booting for minutes. KEY covers everything that
 * changes that state: the medium's key (kernel, modules, plerig and its
 * guest, L1's init), Bochs' version and the emulated machine. Bochs
 * restores its saved configuration, not the bochsrc, so each run restores
 * from a directory of its own: links to the state's files and its config
 * with the paths of the run that saved it made this run's.
 */
#ifndef PLERIG_L1_STATE_H
#define PLERIG_L1_STATE_H

#include <stdbool.h>
#include <stddef.h>

/* The state's key for a medium's, a Bochs version and the CPU model it emulates. */
void l1_state_key(const char *medium_key, const char *bochs_version, const char *cpu_model,
		  char key[65]);

/* CACHE/emulated/states/KEY into @dir when a state of @key was saved whole: true. */
bool l1_state_find(const char *cache, const char *key, char *dir, size_t len);

/* @run_dir/state, ready for bochs -r, from the state in @dir. 0, or -1 with @err. */
int l1_state_stage(const char *dir, const char *run_dir, char *out, size_t len, char *err,
		   size_t errlen);

/* A new directory for Bochs to save into (under CACHE/emulated/states). 0, or -1 with @err. */
int l1_state_begin(const char *cache, char *dir, size_t len, char *err, size_t errlen);

/*
 * Bochs wrote "saved" (1), "failed" (-1) or nothing yet (0) into @save_dir.
 */
int l1_state_saved(const char *save_dir);

/*
 * The state Bochs saved into @save_dir, made the one of @key (the run that
 * saved it was @run_dir, emulating @cpu_model); the other states of that
 * CPU model go, another model's stay (each vendor keeps its warm start).
 * Another plerig that saved the same one first wins. 0, or -1 with @err
 * (the directory removed).
 */
int l1_state_commit(const char *save_dir, const char *cache, const char *key, const char *cpu_model,
		    const char *run_dir, char *err, size_t errlen);

/*
 * A saved config's "plugin_ctrl: a=true, b=false, ..." line into @out with
 * the plugins named in @order first, in that order, then the others as
 * they were: what a restoring Bochs loads first, it starts first (see
 * l1_state.c). 0, or -1 when the line is not one or @out is too small.
 */
int l1_state_plugin_order(const char *line, const char *const *order, size_t n, char *out,
			  size_t len);

/* Remove a state (or a save that did not finish), whole. */
void l1_state_remove(const char *dir);

#endif
