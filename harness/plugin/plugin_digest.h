/* plugin_digest.h - a plugin file's content hash, so that ranks of one job
 * (an MPMD launch, nodes with different installs) can tell that they load
 * the same plugin: a file name says nothing about the bytes behind it. */
#ifndef HARNESS_PLUGIN_PLUGIN_DIGEST_H
#define HARNESS_PLUGIN_PLUGIN_DIGEST_H

#include <stddef.h>

/* The first 16 hex digits of the SHA-256 of the file at `path` (a libtool
 * .la: of the shared object it names, when that is beside it), into hex
 * (17 bytes); "unreadable" when it cannot be read. */
void harness_plugin_digest(const char *path, char hex[17]);

#endif
