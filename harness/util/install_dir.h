/* install_dir.h - where this harness's own installed modules are:
 * $(pkglibdir) as configured, or the same place relative to the binary when
 * the whole install tree was moved (a DESTDIR staging area, a tarball of the
 * prefix unpacked elsewhere), so a relocated harness still loads its own
 * plugins and never another install's. */
#ifndef HARNESS_INSTALL_DIR_H
#define HARNESS_INSTALL_DIR_H

#include <stddef.h>

/* The installed plugin directory; never NULL, valid for the process. */
const char *harness_install_pkglibdir(void);

/* For an installed libtool module, the .so to open instead of its .la.
 * libltdl opens an installed .la's (installed=yes) module from the libdir=
 * it names, the prefix it was installed to, before the .la's own folder: a
 * moved tree would load the original install's plugins, where there is one.
 * When `la` ends in .la and says installed=yes, writes the module beside it
 * (its dlname) to `out` and returns 1; otherwise (a build tree's .la, whose
 * module is in .libs/, a bare .so, an unreadable file) returns 0 and the
 * caller opens what it has. */
int harness_installed_module(const char *la, char *out, size_t cap);

#endif
