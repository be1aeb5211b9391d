/* Force-included (-include) before every QuickJS translation unit of the
 * guest build. Upstream files are never edited; what they need to build as
 * a wasm32-wasi reactor is adjusted here. */
#ifndef FOUNT_WASI_COMPAT_H
#define FOUNT_WASI_COMPAT_H

/* WebAssembly has a single floating-point rounding mode, round to nearest,
 * so wasi-libc's <fenv.h> defines only FE_TONEAREST. QuickJS 2021-03-27
 * rounds Number.prototype.toFixed/toPrecision/toExponential ties "away
 * from zero" (as the spec requires) by printing with FE_DOWNWARD and
 * FE_UPWARD. Those modes are emulated in fenv_directed.c: fesetround
 * records the mode, and snprintf honours it for the two formats QuickJS
 * prints numbers with, by rounding the exact decimal expansion itself. */
#include <fenv.h>
#ifndef FE_DOWNWARD
#define FE_DOWNWARD 0x400
#endif
#ifndef FE_UPWARD
#define FE_UPWARD 0x800
#endif
#include <stdio.h>
int fount_fesetround(int mode);
int fount_snprintf(char *buf, size_t size, const char *fmt, ...);
#define fesetround fount_fesetround
#define snprintf fount_snprintf

/* wasi-libc's dlmalloc provides malloc_usable_size, which QuickJS uses to
 * account memory against JS_SetMemoryLimit; QuickJS includes <malloc.h>
 * only on Linux. */
#include <malloc.h>

/* QuickJS and libbf print only in debugging dumps. Routing those few calls
 * to the shim keeps libc's stdout/stderr FILE objects, and the WASI file
 * functions behind them (fd_write, fd_seek, fd_close, fd_fdstat_get), out
 * of the guest: the import list stays at what the runtime really uses. */
int fount_printf(const char *fmt, ...);
int fount_fprintf(FILE *f, const char *fmt, ...);
int fount_fputc(int c, FILE *f);
int fount_putchar(int c);
#define printf fount_printf
#define fprintf fount_fprintf
#define fputc fount_fputc
#define putc fount_fputc
#define putchar fount_putchar
#undef stdout
#undef stderr
#define stdout ((FILE *)0)
#define stderr ((FILE *)0)

#endif
