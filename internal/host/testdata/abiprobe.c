/* A test-only guest that calls each fount import with whatever pointers and
 * lengths the test passes, to check that the host survives hostile values.
 * Rebuild (from the repository root):
 *   clang-16 --target=wasm32 -nostdlib -O2 -Iguest/src -Wl,--no-entry \
 *     -Wl,--export-memory -o internal/host/testdata/abiprobe.wasm internal/host/testdata/abiprobe.c */
#include "fount_abi.h"

#define EXPORT(name) __attribute__((export_name(name)))

EXPORT("log") int32_t p_log(int32_t l, int32_t p, int32_t n) { return fount_host_log(l, (const char *)p, n); }
EXPORT("emit") int32_t p_emit(int32_t p, int32_t n) { return fount_host_emit((const char *)p, n); }
EXPORT("db_get") int32_t p_db_get(int32_t p, int32_t n) { return fount_host_db_get((const char *)p, n); }
EXPORT("db_set") int32_t p_db_set(int32_t k, int32_t kn, int32_t v, int32_t vn) {
    return fount_host_db_set((const char *)k, kn, (const char *)v, vn);
}
EXPORT("respond") int32_t p_respond(int32_t p, int32_t n) { return fount_host_respond((const char *)p, n); }
EXPORT("auth") int32_t p_auth(int32_t p, int32_t n) { return fount_host_auth((const char *)p, n); }
EXPORT("fetch") int32_t p_fetch(int32_t p, int32_t n) { return fount_host_fetch((const char *)p, n); }
EXPORT("crypto") int32_t p_crypto(int32_t p, int32_t n) { return fount_host_crypto((const char *)p, n); }
EXPORT("compress") int32_t p_compress(int32_t p, int32_t n) { return fount_host_compress((const char *)p, n); }
EXPORT("net") int32_t p_net(int32_t p, int32_t n) { return fount_host_net((const char *)p, n); }
EXPORT("store") int32_t p_store(int32_t p, int32_t n) { return fount_host_store((const char *)p, n); }
EXPORT("take") int32_t p_take(int32_t p, int32_t n) { return fount_host_take((char *)p, n); }
EXPORT("sleep") int32_t p_sleep(int32_t ms) { return fount_host_sleep(ms); }
EXPORT("interrupted") int32_t p_interrupted(void) { return fount_host_interrupted(); }
