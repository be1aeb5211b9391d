#!/usr/bin/env bash
# Builds the fount guest (QuickJS + guest/src) into a wasm32-wasi reactor.
#
#   guest/build.sh OUT.wasm
#
# The QuickJS sources are vendored in guest/quickjs (upstream files,
# unmodified; see guest/quickjs/README.md), so the build needs no
# network. The build is reproducible: it runs in a fresh temporary folder
# with relative paths and fixed flags, so two builds give the same bytes.
set -euo pipefail

QJS_VERSION="2021-03-27"

CC="${CC:-clang-16}"

out="$1"
case "$out" in /*) ;; *) out="$PWD/$out" ;; esac
guest="$(cd "$(dirname "$0")" && pwd)"
src="$guest/src"

work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

cd "$work"
cp -R "$guest/quickjs" quickjs

# Corrections of QuickJS 2021-03-27 where later ECMAScript (and Node)
# differ; the build fails if the code they change is not found.
# - It refuses "\-" in a character class of a /u regular expression,
#   which ES2015 allows (fast-xml-parser, under the Google Cloud and Azure
#   SDKs, builds such classes at load): accepted, as later QuickJS
#   releases do.
# - It throws when an out-of-bounds index of a typed array is set in
#   strict code, where ES2021 ignores the write (anynum, under
#   fast-xml-parser, writes below index 0 at load): ignored.
# - Out of memory at the heap limit, it may lack the memory to make the
#   "out of memory" error itself, and throws null instead, which the host
#   cannot tell from a component's `throw null`: the error is made with
#   64 KiB of room past the limit, given back at once.
# - Its Error constructors ignore ES2022's options argument: an error
#   made with { cause } keeps it, as in Node.
node -e '
const fs = require("fs");
function patch(f, from, to, count) {
  const src = fs.readFileSync(f, "utf8");
  if (src.split(from).length !== count + 1) {
    console.error("guest/build.sh: " + f + " changed: a patch does not apply: " + from);
    process.exit(1);
  }
  fs.writeFileSync(f, src.split(from).join(to));
}
patch("quickjs/libregexp.c",
  "if (ret == -2 && *p != \x27\\0\x27 && strchr(\"^$\\\\.*+?()[]{}|/\", *p)) {",
  "if (ret == -2 && *p != \x27\\0\x27 && (strchr(\"^$\\\\.*+?()[]{}|/\", *p) || (inclass && *p == \x27-\x27))) {", 1);
patch("quickjs/quickjs.c",
  "return JS_ThrowTypeErrorOrFalse(ctx, flags, \"out-of-bound numeric index\");",
  "return TRUE;", 2);
patch("quickjs/quickjs.c",
  "        rt->in_out_of_memory = TRUE;\n        JS_ThrowInternalError(ctx, \"out of memory\");\n        rt->in_out_of_memory = FALSE;",
  "        size_t limit = rt->malloc_state.malloc_limit;\n        rt->in_out_of_memory = TRUE;\n        if (limit != (size_t)-1)\n            rt->malloc_state.malloc_limit = limit + 65536;\n        JS_ThrowInternalError(ctx, \"out of memory\");\n        rt->malloc_state.malloc_limit = limit;\n        rt->in_out_of_memory = FALSE;", 1);
patch("quickjs/quickjs.c",
  "    if (magic == JS_AGGREGATE_ERROR) {\n        JSValue error_list = iterator_to_array(ctx, argv[0]);",
  "    {\n        int opt = magic == JS_AGGREGATE_ERROR ? 2 : 1;\n        if (argc > opt && JS_IsObject(argv[opt])) {\n            JSAtom cause = JS_NewAtom(ctx, \"cause\");\n            int has = JS_HasProperty(ctx, argv[opt], cause);\n            if (has > 0) {\n                JSValue v = JS_GetProperty(ctx, argv[opt], cause);\n                if (JS_IsException(v))\n                    has = -1;\n                else\n                    JS_DefinePropertyValue(ctx, obj, cause, v, JS_PROP_WRITABLE | JS_PROP_CONFIGURABLE);\n            }\n            JS_FreeAtom(ctx, cause);\n            if (has < 0)\n                goto exception;\n        }\n    }\n    if (magic == JS_AGGREGATE_ERROR) {\n        JSValue error_list = iterator_to_array(ctx, argv[0]);", 1);
'
cp -R "$src" shim

# shellcheck source=guest/compile.sh
. "$guest/compile.sh"
compile_guest "$out" -DCONFIG_BIGNUM "-DCONFIG_VERSION=\"$QJS_VERSION\"" -- \
  quickjs/quickjs.c quickjs/libregexp.c quickjs/libunicode.c quickjs/cutils.c quickjs/libbf.c
