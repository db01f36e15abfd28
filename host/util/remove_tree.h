/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A directory and everything below it, removed. Symbolic links are removed,
 * never followed, so a link inside the tree cannot lead the removal out of
 * it; whether @path itself may be removed is the caller's to decide.
 */
#ifndef PLERIG_REMOVE_TREE_H
#define PLERIG_REMOVE_TREE_H

/* @path and everything below it, links not followed; best effort, silent. */
void remove_tree(const char *path);

#endif
