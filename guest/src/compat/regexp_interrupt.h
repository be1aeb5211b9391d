/* Force-included only when compiling libregexp.c.
 *
 * QuickJS's interrupt handler runs between bytecodes, but the regular
 * expression engine is a C loop that never reaches it, so a catastrophic
 * backtrack such as /(a+)+$/ on "aaaa...b" would run past any deadline.
 * Every backtrack pops a saved state with memcpy (pop_state in
 * lre_exec_backtrack), so libregexp's memcpy is routed through
 * fount_regexp_memcpy, which polls the host's deadline every 4096 copies and
 * traps once it has passed. The trap ends the call; the host sees the
 * deadline and reports a timeout, and discards the instance. */
#ifndef FOUNT_REGEXP_INTERRUPT_H
#define FOUNT_REGEXP_INTERRUPT_H
#include <stddef.h>
#include <string.h>
void *fount_regexp_memcpy(void *dst, const void *src, size_t n);
#define memcpy fount_regexp_memcpy
#endif
