#!/usr/bin/env bash
# Fetches the test corpus of real npm packages (cmd/fount/testdata/corpus/
# packages.txt: one "name@version integrity" per line) into the cache, as
# `npm pack` gives them, and checks each against its pinned integrity. The
# tests serve them from a registry of their own on loopback; nothing of
# them is committed. npm takes its registry from the machine's own
# configuration.
#
#   tools/corpus/fetch.sh [LIST]
set -euo pipefail

list="${1:-$(cd "$(dirname "$0")/../.." && pwd)/cmd/fount/testdata/corpus/packages.txt}"
cache="${FOUNT_CACHE_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/fount}/corpus"
mkdir -p "$cache"

integrity() {
  echo "sha512-$(node -e 'process.stdout.write(require("crypto").createHash("sha512").update(require("fs").readFileSync(process.argv[1])).digest("base64"))' "$1")"
}

while read -r spec want; do
  [ -z "$spec" ] && continue
  name="${spec%@*}"
  version="${spec##*@}"
  file="$(echo "${name#@}" | tr / -)-$version.tgz"
  if [ ! -f "$cache/$file" ]; then
    (cd "$cache" && npm pack --silent "$spec" >/dev/null)
  fi
  got="$(integrity "$cache/$file")"
  if [ "$got" != "$want" ]; then
    echo "tools/corpus/fetch.sh: $file has integrity $got, want $want" >&2
    rm -f "$cache/$file"
    exit 1
  fi
done < "$list"
