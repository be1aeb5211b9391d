# Sourced by guest/build.sh and bench/quickjs/build-candidate.sh: how the
# guest is compiled and linked, once for both.
#
#   compile_guest OUT.wasm DEFINE... -- QUICKJS_SOURCE...
#
# It runs in the build's work folder ($work), which holds quickjs/ (the
# sources, corrected) and shim/ (a copy of guest/src); $CC is the
# compiler. The DEFINEs are QuickJS's configuration; the QUICKJS_SOURCEs
# are its files to compile, before the shim's.
compile_guest() {
  local out="$1"
  shift
  local defines=()
  while [ "$1" != "--" ]; do
    defines+=("$1")
    shift
  done
  shift
  local cflags=(
    --target=wasm32-wasi --sysroot=/usr -mexec-model=reactor
    -O2 -flto -g0 -DNDEBUG -D_GNU_SOURCE
    "${defines[@]}"
    -fno-ident -ffile-prefix-map="$work"=.
    -Wno-everything
    -include shim/compat/wasi_compat.h -Ishim/compat -Ishim -Iquickjs
  )
  local objs=() pids=() f o extra p
  for f in "$@" shim/fount.c shim/compat/stdio_sink.c shim/compat/regexp_interrupt.c shim/compat/fenv_directed.c; do
    o="obj_$(basename "$f" .c).o"
    extra=()
    # The regexp engine polls the deadline while it backtracks.
    [ "$f" = quickjs/libregexp.c ] && extra=(-include shim/compat/regexp_interrupt.h)
    "$CC" "${cflags[@]}" "${extra[@]}" -c "$f" -o "$o" &
    pids+=($!)
    objs+=("$o")
  done
  for p in "${pids[@]}"; do wait "$p"; done
  "$CC" "${cflags[@]}" "${objs[@]}" -o fount.wasm \
    -Wl,--stack-first -Wl,-z,stack-size=1048576 \
    -Wl,--strip-debug -Wl,--gc-sections
  cp fount.wasm "$out"
}
