/* Directed rounding for QuickJS's number formatting; see wasi_compat.h.
 *
 * While a directed mode is set, "%+.*e" and "%.*f" of a finite double are
 * printed from the value's exact decimal expansion (printf produces it for
 * a large enough precision: a double has at most 767 significant decimal
 * digits and 1074 fractional ones), truncated to the requested precision
 * and, when a dropped digit is non-zero, moved one unit away from zero if
 * the mode rounds that way for the value's sign. Every other call, and
 * every call in round-to-nearest mode, is plain vsnprintf. */
#include <fenv.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int rounding = FE_TONEAREST;

int fount_fesetround(int mode) {
    if (mode != FE_TONEAREST && mode != FE_DOWNWARD && mode != FE_UPWARD)
        return -1;
    rounding = mode;
    return 0;
}

static int plain(char *buf, size_t size, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(buf, size, fmt, ap);
    va_end(ap);
    return n;
}

/* bump adds one unit in the last place to the digits of s[start..end),
 * skipping '.', and returns 1 when the carry ran past the first digit. */
static int bump(char *s, int start, int end) {
    for (int i = end - 1; i >= start; i--) {
        if (s[i] == '.')
            continue;
        if (s[i] != '9') {
            s[i]++;
            return 0;
        }
        s[i] = '0';
    }
    return 1;
}

/* nonzero reports whether a digit in s, up to an 'e' or the end, is not 0. */
static int nonzero(const char *s) {
    for (; *s && *s != 'e'; s++)
        if (*s >= '1' && *s <= '9')
            return 1;
    return 0;
}

static char exact[1600];

static int directed_f(char *out, size_t size, int prec, double d, int away) {
    plain(exact, sizeof(exact), "%.*f", 1100, d);
    char *dot = strchr(exact, '.');
    int keep = (int)(dot - exact) + (prec > 0 ? prec + 1 : 0);
    int inexact = nonzero(exact + keep);
    exact[keep] = '\0';
    int start = exact[0] == '-' ? 1 : 0;
    if (inexact && away && bump(exact, start, keep)) {
        memmove(exact + start + 1, exact + start, (size_t)(keep - start + 1));
        exact[start] = '1';
    }
    return plain(out, size, "%s", exact);
}

static int directed_e(char *out, size_t size, int prec, double d, int away) {
    plain(exact, sizeof(exact), "%+.*e", 800, d);
    char *e = strchr(exact, 'e');
    int exp10 = atoi(e + 1);
    int keep = 2 + (prec > 0 ? prec + 1 : 0); /* sign, first digit, '.', digits */
    int inexact = nonzero(exact + keep);
    exact[keep] = '\0';
    if (inexact && away && bump(exact, 1, keep)) {
        exact[1] = '1'; /* 9.99 -> 10.0: renormalise to 1.00 and raise the exponent */
        exp10++;
    }
    return plain(out, size, "%se%c%02d", exact, exp10 < 0 ? '-' : '+', abs(exp10));
}

int fount_snprintf(char *buf, size_t size, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    int n;
    int is_e = strcmp(fmt, "%+.*e") == 0, is_f = strcmp(fmt, "%.*f") == 0;
    if (rounding != FE_TONEAREST && (is_e || is_f)) {
        int prec = va_arg(ap, int);
        double d = va_arg(ap, double);
        int away = (rounding == FE_UPWARD && d > 0) || (rounding == FE_DOWNWARD && d < 0);
        if (!isfinite(d) || prec < 0 || prec > 100)
            n = plain(buf, size, fmt, prec, d);
        else if (is_f)
            n = directed_f(buf, size, prec, d, away);
        else
            n = directed_e(buf, size, prec, d, away);
    } else {
        n = vsnprintf(buf, size, fmt, ap);
    }
    va_end(ap);
    return n;
}
