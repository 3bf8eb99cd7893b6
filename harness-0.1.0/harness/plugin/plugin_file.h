/* plugin_file.h - whether a file in a plugin directory is a harness plugin,
 * decided without loading it: dlopen runs a library's initialisers, so a
 * plugin_path pointing at a folder of ordinary libraries would run their
 * code. A harness plugin exports harness_plugin_abi (or, built by libtool,
 * <name>_LTX_harness_plugin_abi): its ELF dynamic symbol table says so. */
#ifndef HARNESS_PLUGIN_FILE_H
#define HARNESS_PLUGIN_FILE_H

#include <stddef.h>

/* 1 when `path` (a shared object, or a libtool .la naming one) exports the
 * ABI symbol; 0 when it does not, with the reason in why. */
int harness_plugin_file_looks_right(const char *path, char *why, size_t cap);

#endif
