/* install_dir.h - where this harness's own installed modules are:
 * $(pkglibdir) as configured, or the same place relative to the binary when
 * the whole install tree was moved (a DESTDIR staging area, a tarball of the
 * prefix unpacked elsewhere), so a relocated harness still loads its own
 * plugins and never another install's. */
#ifndef HARNESS_INSTALL_DIR_H
#define HARNESS_INSTALL_DIR_H

/* The installed plugin directory; never NULL, valid for the process. */
const char *harness_install_pkglibdir(void);

#endif
