#!/usr/bin/env bash
# Fetches the test corpus of real npm packages (cmd/fount/testdata/corpus/
# packages.txt: one "lock-path name@version integrity" per line, the
# lock path being where npm install puts it) into the cache, as
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

tarball() {
  local name="${1%@*}" version="${1##*@}"
  echo "$(echo "${name#@}" | tr / -)-$version.tgz"
}

# One npm pack for every missing tarball: it is much faster than one each.
missing=()
while read -r _ spec want; do
  [ -z "$spec" ] && continue
  [ -f "$cache/$(tarball "$spec")" ] || missing+=("$spec")
done < "$list"
if [ "${#missing[@]}" -gt 0 ]; then
  echo "fetching ${#missing[@]} packages of the test corpus"
  (cd "$cache" && npm pack --silent "${missing[@]}" >/dev/null)
fi

# Every tarball is checked, not only the new ones.
sums="$(cd "$cache" && node -e '
  const fs = require("fs"), crypto = require("crypto");
  for (const f of process.argv.slice(1)) {
    const sum = fs.existsSync(f) ? "sha512-" + crypto.createHash("sha512").update(fs.readFileSync(f)).digest("base64") : "missing";
    console.log(f + " " + sum);
  }' $(while read -r _ spec _; do [ -n "$spec" ] && tarball "$spec"; done < "$list" | sort -u))"
while read -r _ spec want; do
  [ -z "$spec" ] && continue
  file="$(tarball "$spec")"
  got="$(echo "$sums" | awk -v f="$file" '$1 == f {print $2}')"
  if [ "$got" != "$want" ]; then
    echo "tools/corpus/fetch.sh: $file has integrity $got, want $want" >&2
    rm -f "$cache/$file"
    exit 1
  fi
done < "$list"
