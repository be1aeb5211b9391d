/* Single-threaded stand-ins for the few pthread calls QuickJS makes under
 * CONFIG_ATOMICS (Atomics.wait/notify). wasi-libc here has no threads, and
 * the fount runtime never allows blocking (JS_SetCanBlock stays false), so
 * Atomics.wait throws before any of these could wait. Found on the include
 * path only by the guest build, never by upstream headers. */
#ifndef FOUNT_COMPAT_PTHREAD_H
#define FOUNT_COMPAT_PTHREAD_H
#include <errno.h>
#include <time.h>

typedef struct { int unused; } pthread_mutex_t;
typedef struct { int unused; } pthread_cond_t;
typedef struct { int unused; } pthread_condattr_t;
#define PTHREAD_MUTEX_INITIALIZER {0}

static inline int pthread_mutex_lock(pthread_mutex_t *m) { (void)m; return 0; }
static inline int pthread_mutex_unlock(pthread_mutex_t *m) { (void)m; return 0; }
static inline int pthread_cond_init(pthread_cond_t *c, const pthread_condattr_t *a) { (void)c; (void)a; return 0; }
static inline int pthread_cond_destroy(pthread_cond_t *c) { (void)c; return 0; }
static inline int pthread_cond_signal(pthread_cond_t *c) { (void)c; return 0; }
static inline int pthread_cond_wait(pthread_cond_t *c, pthread_mutex_t *m) { (void)c; (void)m; return EPERM; }
static inline int pthread_cond_timedwait(pthread_cond_t *c, pthread_mutex_t *m, const struct timespec *t) {
    (void)c; (void)m; (void)t; return ETIMEDOUT;
}
#endif
