#!/usr/bin/env bash
# Builds the fount guest on a newer QuickJS, to measure it beside the
# guest fount ships (issue 25; docs/benchmarks.md, "Issue 25"):
#
#   bench/quickjs/build-candidate.sh bellard|ng QUICKJS_SOURCE_DIR OUT.wasm
#
# QUICKJS_SOURCE_DIR is a checkout of one of the public repositories,
# at the commit the figures name: bellard/quickjs (release 2025-09-13
# and after) or quickjs-ng/quickjs (0.16.2 and after). The shim
# (guest/src), the flags and the link are guest/build.sh's (guest/compile.sh); only what a
# candidate needs differs, each change failing the build if its code is
# not found:
# - both: QuickJS makes its "out of memory" error with 64 KiB of room past
#   the heap limit (guest/build.sh's patch, on the newer field name in
#   Bellard's release); no libbf (BigInt is QuickJS's own now) and dtoa.c;
#   dtoa.c includes <setjmp.h>, which wasm32-wasi lacks and it does not use;
# - ng: its stack limit, which it switches off for WASI, is kept on: the
#   guest's stack is the wasm shadow stack, whose overflow must be a
#   RangeError (TestHostileComponents/deep_recursion), not a trap.
set -euo pipefail

flavor="$1"
qjs="$(cd "$2" && pwd)"
out="$3"
case "$out" in /*) ;; *) out="$PWD/$out" ;; esac
case "$flavor" in
bellard) version="2025-09-13"; objs_extra=(quickjs/cutils.c) ;;
ng) version="ng"; objs_extra=() ;;
*) echo "flavor: bellard or ng" >&2; exit 2 ;;
esac
guest="$(cd "$(dirname "$0")/../../guest" && pwd)"
src="$guest/src"
CC="${CC:-clang-16}"

work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
cd "$work"
cp -R "$qjs" quickjs
cp -R "$src" shim
printf '/* dtoa.c includes <setjmp.h> and uses none of it. */\n' > shim/compat/setjmp.h

FLAVOR="$flavor" node -e '
const fs = require("fs");
function patch(f, from, to) {
  const src = fs.readFileSync(f, "utf8");
  if (src.split(from).length !== 2) {
    console.error("build-candidate.sh: " + f + ": a change does not apply: " + from);
    process.exit(1);
  }
  fs.writeFileSync(f, src.split(from).join(to));
}
if (process.env.FLAVOR === "bellard") {
  patch("quickjs/quickjs.c",
    "        rt->in_out_of_memory = TRUE;\n        JS_ThrowInternalError(ctx, \"out of memory\");\n        rt->in_out_of_memory = FALSE;",
    "        size_t limit = rt->malloc_ctx.malloc_state.malloc_limit;\n        rt->in_out_of_memory = TRUE;\n        if (limit != (size_t)-1)\n            rt->malloc_ctx.malloc_state.malloc_limit = limit + 65536;\n        JS_ThrowInternalError(ctx, \"out of memory\");\n        rt->malloc_ctx.malloc_state.malloc_limit = limit;\n        rt->in_out_of_memory = FALSE;");
} else {
  patch("quickjs/quickjs.c",
    "#if defined(__wasi__)\n    rt->stack_limit = 0; /* no limit */\n#else\n    if (rt->stack_size == 0) {",
    "#if 0\n    rt->stack_limit = 0;\n#else\n    if (rt->stack_size == 0) {");
}
'

# shellcheck source=guest/compile.sh
. "$guest/compile.sh"
compile_guest "$out" "-DCONFIG_VERSION=\"$version\"" -- \
  quickjs/quickjs.c quickjs/libregexp.c quickjs/libunicode.c quickjs/dtoa.c "${objs_extra[@]}"
