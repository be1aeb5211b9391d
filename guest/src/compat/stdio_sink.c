/* Stand-ins for the stdio calls renamed by wasi_compat.h. QuickJS prints
 * only from debugging dumps; such text goes to the host's log at debug
 * level instead of to a WASI file descriptor. */
#include <stdarg.h>
#include <stdio.h>

#include "fount_abi.h"

static int sink(const char *fmt, va_list ap) {
    char line[512];
    int n = vsnprintf(line, sizeof(line), fmt, ap);
    if (n > 0)
        fount_host_log(FOUNT_LEVEL_DEBUG, line, n < (int)sizeof(line) ? n : (int)sizeof(line) - 1);
    return n;
}

int fount_printf(const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    int n = sink(fmt, ap);
    va_end(ap);
    return n;
}

int fount_fprintf(FILE *f, const char *fmt, ...) {
    (void)f;
    va_list ap;
    va_start(ap, fmt);
    int n = sink(fmt, ap);
    va_end(ap);
    return n;
}

int fount_fputc(int c, FILE *f) {
    (void)f;
    char ch = (char)c;
    fount_host_log(FOUNT_LEVEL_DEBUG, &ch, 1);
    return c;
}

int fount_putchar(int c) { return fount_fputc(c, NULL); }

/* libc's stderr FILE object stays linked (snprintf's machinery refers to
 * the stdio exit path), and with it the operations it points to. Defining
 * those operations here keeps libc's versions, and the WASI fd_close,
 * fd_seek and fd_write imports behind them, out of the guest. Nothing
 * writes to a FILE stream in the guest (see wasi_compat.h), so these are
 * never reached in practice; if one is, its bytes go to the debug log. */
typedef struct _IO_FILE FILE_;
size_t __stdio_write(FILE_ *f, const unsigned char *buf, size_t len) {
    (void)f;
    if (len > 0)
        fount_host_log(FOUNT_LEVEL_DEBUG, (const char *)buf, len > 512 ? 512 : (int32_t)len);
    return len;
}
long long __stdio_seek(FILE_ *f, long long off, int whence) {
    (void)f;
    (void)off;
    (void)whence;
    return -1;
}
int __stdio_close(FILE_ *f) {
    (void)f;
    return 0;
}
