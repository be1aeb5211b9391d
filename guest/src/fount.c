/* fount guest shim: QuickJS behind the fount ABI.
 *
 * The shim owns one QuickJS runtime and context per wasm instance. The host
 * calls fount_init once with the JavaScript prelude, then fount_call with a
 * JSON Call per operation. Everything the component can reach outside the
 * sandbox goes through the fount_host_* imports declared in fount_abi.h,
 * which is generated from package abi.
 *
 * Invariants the host relies on (see abi/ABI.md):
 *   - between exported calls the C stack is unwound, so __stack_pointer is
 *     back at its initial value and linear memory alone is the whole state
 *     (this is what makes memory snapshots valid);
 *   - every reply the host produces is copied in with fount_host_take into
 *     a buffer of exactly the announced size;
 *   - the result of fount_call stays the guest's; it frees it next call. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "quickjs.h"
#include "fount_abi.h"

/* QuickJS's own stack guard, kept under the wasm shadow stack size set at
 * link time (-z stack-size) so a deep recursion is a RangeError, not a
 * trap. */
#define FOUNT_JS_STACK_BYTES (768 * 1024)

static JSRuntime *rt;
static JSContext *ctx;
static JSValue fn_dispatch, fn_poll, fn_fire, fn_result, bundled_modules;
static uint64_t rng[2];

/* The inbox takes Call messages without an allocation per call; the last
 * result stays allocated until the next call, so the host needs no free
 * either. One wasm call per invocation is what keeps warm calls cheap. */
#define FOUNT_INBOX_BYTES (64 * 1024)
static char *inbox;
static char *last_result;

/* ---- small byte buffer for building the failure JSON ---------------- */

typedef struct {
    char *p;
    size_t len, cap;
} buf_t;

static void buf_put(buf_t *b, const char *s, size_t n) {
    if (b->p == NULL)
        return;
    if (b->len + n + 1 > b->cap) {
        size_t cap = (b->len + n + 1) * 2;
        char *p = realloc(b->p, cap);
        if (p == NULL) {
            free(b->p);
            b->p = NULL;
            return;
        }
        b->p = p;
        b->cap = cap;
    }
    memcpy(b->p + b->len, s, n);
    b->len += n;
}

static void buf_puts(buf_t *b, const char *s) { buf_put(b, s, strlen(s)); }

static void buf_json_string(buf_t *b, const char *s, size_t n) {
    static const char hex[] = "0123456789abcdef";
    buf_put(b, "\"", 1);
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)s[i];
        if (c == '"' || c == '\\') {
            char e[2] = {'\\', (char)c};
            buf_put(b, e, 2);
        } else if (c < 0x20) {
            char e[6] = {'\\', 'u', '0', '0', hex[c >> 4], hex[c & 15]};
            buf_put(b, e, 6);
        } else {
            buf_put(b, (const char *)&c, 1);
        }
    }
    buf_put(b, "\"", 1);
}

/* pack returns a result buffer as (ptr << 32 | len), or 0 without one.
 * The buffer is freed at the start of the next call. */
static int64_t pack(char *p, size_t len) {
    last_result = p;
    if (p == NULL)
        return 0;
    return (int64_t)(((uint64_t)(uintptr_t)p << 32) | (uint64_t)(uint32_t)len);
}

static void put_property(buf_t *b, JSValue obj, const char *prop) {
    JSValue v = JS_GetPropertyStr(ctx, obj, prop);
    size_t n = 0;
    const char *s = JS_IsUndefined(v) || JS_IsException(v) ? NULL : JS_ToCStringLen(ctx, &n, v);
    if (s != NULL) {
        buf_json_string(b, s, n);
        JS_FreeCString(ctx, s);
    } else {
        JS_FreeValue(ctx, JS_GetException(ctx));
        buf_puts(b, "\"\"");
    }
    JS_FreeValue(ctx, v);
}

/* fail_with_exception answers a call whose error escaped the prelude: an
 * interrupt, an out-of-memory inside the runtime, or a prelude bug. */
static int64_t fail_with_exception(void) {
    JSValue exc = JS_GetException(ctx);
    buf_t b = {malloc(256), 0, 256};
    buf_puts(&b, "{\"ok\":false,\"uncatchable\":true,\"error\":{\"name\":");
    if (JS_IsObject(exc)) {
        put_property(&b, exc, "name");
        buf_puts(&b, ",\"message\":");
        put_property(&b, exc, "message");
        buf_puts(&b, ",\"stack\":");
        put_property(&b, exc, "stack");
    } else {
        size_t n = 0;
        const char *s = JS_ToCStringLen(ctx, &n, exc);
        buf_puts(&b, "\"Error\",\"message\":");
        if (s != NULL) {
            buf_json_string(&b, s, n);
            JS_FreeCString(ctx, s);
        } else {
            JS_FreeValue(ctx, JS_GetException(ctx));
            buf_puts(&b, "\"unprintable exception\"");
        }
    }
    buf_puts(&b, "}}");
    JS_FreeValue(ctx, exc);
    return pack(b.p, b.len);
}

static int64_t fail_static(const char *json) {
    size_t n = strlen(json);
    char *p = malloc(n);
    if (p != NULL)
        memcpy(p, json, n);
    return pack(p, n);
}

/* ---- host calls exposed to the prelude as __host.* ------------------ */

static JSValue throw_host(JSContext *c, const char *op, int32_t code) {
    JSValue err = JS_NewError(c);
    JS_DefinePropertyValueStr(c, err, "message",
                              JS_NewString(c, op), JS_PROP_WRITABLE | JS_PROP_CONFIGURABLE);
    JS_DefinePropertyValueStr(c, err, "hostCode", JS_NewInt32(c, code), JS_PROP_C_W_E);
    return JS_Throw(c, err);
}

/* take_reply copies the host's pending reply of n bytes into a JS string. */
static JSValue take_reply(JSContext *c, const char *op, int32_t n) {
    char *p = malloc(n > 0 ? (size_t)n : 1);
    if (p == NULL)
        return JS_ThrowOutOfMemory(c);
    int32_t got = fount_host_take(p, n);
    if (got != n) {
        free(p);
        return throw_host(c, op, got < 0 ? got : FOUNT_ERR_INVALID);
    }
    JSValue s = JS_NewStringLen(c, p, (size_t)n);
    free(p);
    return s;
}

/* QuickJS pads a C function's arguments with undefined up to its declared
 * length (the JS_CFUNC_DEF below), so argv[0..length) is always readable. */

typedef int32_t (*host_string_fn)(const char *ptr, int32_t len);

/* call_host passes a JS string, as UTF-8, to a host import. On success it
 * returns undefined, or the import's pending reply when reply is set. */
static JSValue call_host(JSContext *c, JSValueConst arg, const char *op, host_string_fn fn, int reply) {
    size_t n;
    const char *s = JS_ToCStringLen(c, &n, arg);
    if (s == NULL)
        return JS_EXCEPTION;
    int32_t rc = fn(s, (int32_t)n);
    JS_FreeCString(c, s);
    if (rc < 0)
        return throw_host(c, op, rc);
    return reply ? take_reply(c, op, rc) : JS_UNDEFINED;
}

static JSValue h_log(JSContext *c, JSValueConst this, int argc, JSValueConst *argv) {
    int32_t level = 0;
    if (JS_ToInt32(c, &level, argv[0]) < 0)
        return JS_EXCEPTION;
    size_t n;
    const char *s = JS_ToCStringLen(c, &n, argv[1]);
    if (s == NULL)
        return JS_EXCEPTION;
    fount_host_log(level, s, (int32_t)(n > FOUNT_MAX_LOG_LINE ? FOUNT_MAX_LOG_LINE : n));
    JS_FreeCString(c, s);
    return JS_UNDEFINED;
}

static JSValue h_emit(JSContext *c, JSValueConst this, int argc, JSValueConst *argv) {
    return call_host(c, argv[0], "emit", fount_host_emit, 0);
}

static JSValue h_respond(JSContext *c, JSValueConst this, int argc, JSValueConst *argv) {
    return call_host(c, argv[0], "respond", fount_host_respond, 0);
}

static JSValue h_auth(JSContext *c, JSValueConst this, int argc, JSValueConst *argv) {
    return call_host(c, argv[0], "$auth", fount_host_auth, 1);
}

static JSValue h_fetch(JSContext *c, JSValueConst this, int argc, JSValueConst *argv) {
    return call_host(c, argv[0], "fetch", fount_host_fetch, 1);
}

static JSValue h_crypto(JSContext *c, JSValueConst this, int argc, JSValueConst *argv) {
    return call_host(c, argv[0], "crypto", fount_host_crypto, 1);
}

static JSValue h_compress(JSContext *c, JSValueConst this, int argc, JSValueConst *argv) {
    return call_host(c, argv[0], "compress", fount_host_compress, 1);
}

static JSValue h_tz(JSContext *c, JSValueConst this, int argc, JSValueConst *argv) {
    return call_host(c, argv[0], "tz", fount_host_tz, 1);
}

static JSValue h_store(JSContext *c, JSValueConst this, int argc, JSValueConst *argv) {
    return call_host(c, argv[0], "store", fount_host_store, 1);
}

static JSValue h_net(JSContext *c, JSValueConst this, int argc, JSValueConst *argv) {
    return call_host(c, argv[0], "net", fount_host_net, 1);
}

static JSValue h_db_get(JSContext *c, JSValueConst this, int argc, JSValueConst *argv) {
    size_t n;
    const char *k = JS_ToCStringLen(c, &n, argv[0]);
    if (k == NULL)
        return JS_EXCEPTION;
    int32_t rc = fount_host_db_get(k, (int32_t)n);
    JS_FreeCString(c, k);
    if (rc == FOUNT_ERR_NOT_FOUND)
        return JS_UNDEFINED;
    if (rc < 0)
        return throw_host(c, "db.get", rc);
    return take_reply(c, "db.get", rc);
}

static JSValue h_db_set(JSContext *c, JSValueConst this, int argc, JSValueConst *argv) {
    size_t kn, vn;
    const char *k = JS_ToCStringLen(c, &kn, argv[0]);
    if (k == NULL)
        return JS_EXCEPTION;
    const char *v = JS_ToCStringLen(c, &vn, argv[1]);
    if (v == NULL) {
        JS_FreeCString(c, k);
        return JS_EXCEPTION;
    }
    int32_t rc = fount_host_db_set(k, (int32_t)kn, v, (int32_t)vn);
    JS_FreeCString(c, v);
    JS_FreeCString(c, k);
    return rc < 0 ? throw_host(c, "db.set", rc) : JS_UNDEFINED;
}

static JSValue eval_source(JSContext *c, int argc, JSValueConst *argv, int flags) {
    size_t fn_len;
    const char *filename = JS_ToCStringLen(c, &fn_len, argv[1]);
    if (filename == NULL)
        return JS_EXCEPTION;
    JSValue ret = JS_EXCEPTION;
    size_t n;
    const char *src = JS_ToCStringLen(c, &n, argv[0]);
    if (src != NULL) {
        ret = JS_Eval(c, src, n, filename, flags);
        JS_FreeCString(c, src);
    }
    JS_FreeCString(c, filename);
    return ret;
}

static JSValue h_eval_script(JSContext *c, JSValueConst this, int argc, JSValueConst *argv) {
    return eval_source(c, argc, argv, JS_EVAL_TYPE_GLOBAL);
}

static JSValue h_eval_module(JSContext *c, JSValueConst this, int argc, JSValueConst *argv) {
    return eval_source(c, argc, argv, JS_EVAL_TYPE_MODULE);
}

static JSValue h_set_modules(JSContext *c, JSValueConst this, int argc, JSValueConst *argv) {
    if (!JS_IsObject(argv[0]))
        return JS_ThrowTypeError(c, "setModules needs an object");
    JS_FreeValue(c, bundled_modules);
    bundled_modules = JS_DupValue(c, argv[0]);
    return JS_UNDEFINED;
}

static JSValue h_set_memory_limit(JSContext *c, JSValueConst this, int argc, JSValueConst *argv) {
    int64_t limit = 0;
    if (JS_ToInt64(c, &limit, argv[0]) < 0)
        return JS_EXCEPTION;
    if (limit > 0)
        JS_SetMemoryLimit(rt, (size_t)limit);
    return JS_UNDEFINED;
}

static JSValue h_register(JSContext *c, JSValueConst this, int argc, JSValueConst *argv) {
    if (!JS_IsObject(argv[0]))
        return JS_ThrowTypeError(c, "register needs an object");
    if (JS_IsFunction(c, fn_dispatch))
        return JS_ThrowTypeError(c, "register may be called once");
    fn_dispatch = JS_GetPropertyStr(c, argv[0], "dispatch");
    fn_poll = JS_GetPropertyStr(c, argv[0], "poll");
    fn_fire = JS_GetPropertyStr(c, argv[0], "fire");
    fn_result = JS_GetPropertyStr(c, argv[0], "result");
    if (!JS_IsFunction(c, fn_dispatch) || !JS_IsFunction(c, fn_poll) ||
        !JS_IsFunction(c, fn_fire) || !JS_IsFunction(c, fn_result))
        return JS_ThrowTypeError(c, "register needs dispatch, poll, fire and result functions");
    return JS_UNDEFINED;
}

/* Math.random from a per-call seed drawn from the host's random source:
 * instances restored from one snapshot must not share a sequence. */
static void reseed(void) {
    if (getentropy(rng, sizeof(rng)) != 0 || (rng[0] | rng[1]) == 0) {
        rng[0] ^= 0x9e3779b97f4a7c15ULL;
        rng[1] ^= 0xbf58476d1ce4e5b9ULL;
    }
}

static JSValue h_random(JSContext *c, JSValueConst this, int argc, JSValueConst *argv) {
    uint64_t s1 = rng[0];
    const uint64_t s0 = rng[1];
    rng[0] = s0;
    s1 ^= s1 << 23;
    rng[1] = s1 ^ s0 ^ (s1 >> 17) ^ (s0 >> 26);
    uint64_t bits = (rng[1] + s0) >> 11; /* 53 random bits */
    return JS_NewFloat64(c, (double)bits / 9007199254740992.0);
}

static const JSCFunctionListEntry host_funcs[] = {
    JS_CFUNC_DEF("log", 2, h_log),
    JS_CFUNC_DEF("emit", 1, h_emit),
    JS_CFUNC_DEF("respond", 1, h_respond),
    JS_CFUNC_DEF("dbGet", 1, h_db_get),
    JS_CFUNC_DEF("dbSet", 2, h_db_set),
    JS_CFUNC_DEF("auth", 1, h_auth),
    JS_CFUNC_DEF("fetch", 1, h_fetch),
    JS_CFUNC_DEF("crypto", 1, h_crypto),
    JS_CFUNC_DEF("compress", 1, h_compress),
    JS_CFUNC_DEF("tz", 1, h_tz),
    JS_CFUNC_DEF("net", 1, h_net),
    JS_CFUNC_DEF("store", 1, h_store),
    JS_CFUNC_DEF("evalScript", 2, h_eval_script),
    JS_CFUNC_DEF("evalModule", 2, h_eval_module),
    JS_CFUNC_DEF("setModules", 1, h_set_modules),
    JS_CFUNC_DEF("setMemoryLimit", 1, h_set_memory_limit),
    JS_CFUNC_DEF("register", 1, h_register),
};

/* ---- runtime hooks -------------------------------------------------- */

static int on_interrupt(JSRuntime *r, void *opaque) {
    (void)r;
    (void)opaque;
    return fount_host_interrupted() != 0;
}

static JSModuleDef *load_module(JSContext *c, const char *name, void *opaque) {
    (void)opaque;
    JSValue src = JS_IsObject(bundled_modules) ? JS_GetPropertyStr(c, bundled_modules, name) : JS_UNDEFINED;
    if (!JS_IsString(src)) {
        JS_FreeValue(c, src);
        JS_ThrowReferenceError(c, "could not load module '%s': only modules bundled with the component can be imported", name);
        return NULL;
    }
    size_t n;
    const char *s = JS_ToCStringLen(c, &n, src);
    JS_FreeValue(c, src);
    if (s == NULL)
        return NULL;
    JSValue fn = JS_Eval(c, s, n, name, JS_EVAL_TYPE_MODULE | JS_EVAL_FLAG_COMPILE_ONLY);
    JS_FreeCString(c, s);
    if (JS_IsException(fn))
        return NULL;
    JSModuleDef *m = JS_VALUE_GET_PTR(fn);
    JS_FreeValue(c, fn);
    return m;
}

/* ---- exports -------------------------------------------------------- */

FOUNT_EXPORT_ALLOC void *fount_alloc(int32_t n) {
    return n < 0 ? NULL : malloc(n > 0 ? (size_t)n : 1);
}

FOUNT_EXPORT_FREE void fount_free(void *p) { free(p); }

FOUNT_EXPORT_INBOX int64_t fount_inbox(void) {
    if (inbox == NULL)
        return 0;
    return (int64_t)(((uint64_t)(uintptr_t)inbox << 32) | FOUNT_INBOX_BYTES);
}

FOUNT_EXPORT_INIT int32_t fount_init(const char *prelude, int32_t n) {
    if (rt != NULL)
        return -1;
    inbox = malloc(FOUNT_INBOX_BYTES);
    rt = JS_NewRuntime();
    if (rt == NULL)
        return -1;
    JS_SetMaxStackSize(rt, FOUNT_JS_STACK_BYTES);
    JS_SetInterruptHandler(rt, on_interrupt, NULL);
    JS_SetModuleLoaderFunc(rt, NULL, load_module, NULL);
    ctx = JS_NewContext(rt);
    if (ctx == NULL)
        return -1;
    fn_dispatch = fn_poll = fn_fire = fn_result = bundled_modules = JS_UNDEFINED;

    JSValue global = JS_GetGlobalObject(ctx);
    JSValue host = JS_NewObject(ctx);
    JS_SetPropertyFunctionList(ctx, host, host_funcs, sizeof(host_funcs) / sizeof(host_funcs[0]));
    JS_SetPropertyStr(ctx, global, "__host", host);
    JSValue math = JS_GetPropertyStr(ctx, global, "Math");
    JS_SetPropertyStr(ctx, math, "random", JS_NewCFunction(ctx, h_random, "random", 0));
    JS_FreeValue(ctx, math);
    JS_FreeValue(ctx, global);
    reseed();

    JSValue ret = JS_Eval(ctx, prelude, (size_t)n, "fount:prelude", JS_EVAL_TYPE_GLOBAL);
    if (JS_IsException(ret)) {
        int64_t packed = fail_with_exception();
        char *p = (char *)(uintptr_t)((uint64_t)packed >> 32);
        if (p != NULL)
            fount_host_log(FOUNT_LEVEL_ERROR, p, (int32_t)(packed & 0xffffffff));
        free(last_result);
        last_result = NULL;
        return -1;
    }
    JS_FreeValue(ctx, ret);
    return JS_IsFunction(ctx, fn_dispatch) ? 0 : -1;
}

FOUNT_EXPORT_CALL int64_t fount_call(const char *msg, int32_t n) {
    free(last_result);
    last_result = NULL;
    if (ctx == NULL)
        return fail_static("{\"ok\":false,\"uncatchable\":true,\"error\":{\"name\":\"Error\",\"message\":\"runtime not initialised\"}}");
    reseed();
    JSValue arg = JS_NewStringLen(ctx, msg, (size_t)n);
    if (msg != inbox)
        free((void *)msg); /* from fount_alloc: the guest owns it now */
    if (JS_IsException(arg))
        return fail_with_exception();
    JSValue r = JS_Call(ctx, fn_dispatch, JS_UNDEFINED, 1, &arg);
    JS_FreeValue(ctx, arg);
    if (JS_IsException(r))
        return fail_with_exception();
    JS_FreeValue(ctx, r);

    for (;;) {
        JSContext *job_ctx;
        int jr;
        while ((jr = JS_ExecutePendingJob(rt, &job_ctx)) > 0) {
        }
        if (jr < 0)
            return fail_with_exception();
        /* poll: -1 when the call has settled, else ms until the next timer */
        JSValue w = JS_Call(ctx, fn_poll, JS_UNDEFINED, 0, NULL);
        if (JS_IsException(w))
            return fail_with_exception();
        int32_t wait = -1;
        int bad = JS_ToInt32(ctx, &wait, w);
        JS_FreeValue(ctx, w);
        if (bad < 0)
            return fail_with_exception();
        if (wait < 0)
            break;
        if (wait > 0 && fount_host_sleep(wait) != 0)
            return fail_static("{\"ok\":false,\"uncatchable\":true,\"error\":{\"name\":\"InternalError\",\"message\":\"interrupted\"}}");
        JSValue f = JS_Call(ctx, fn_fire, JS_UNDEFINED, 0, NULL);
        if (JS_IsException(f))
            return fail_with_exception();
        JS_FreeValue(ctx, f);
    }

    JSValue res = JS_Call(ctx, fn_result, JS_UNDEFINED, 0, NULL);
    if (JS_IsException(res))
        return fail_with_exception();
    size_t len;
    const char *s = JS_ToCStringLen(ctx, &len, res);
    JS_FreeValue(ctx, res);
    if (s == NULL)
        return fail_with_exception();
    char *out = malloc(len > 0 ? len : 1);
    if (out != NULL)
        memcpy(out, s, len);
    JS_FreeCString(ctx, s);
    return pack(out, len);
}
