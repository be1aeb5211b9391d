#!/usr/bin/env bash
# openapi-check: the OpenAPI 3.1 document `fount openapi` prints is valid, and
# a TypeScript client generated from it type-checks under tsc --strict.
#
#   bash tools/openapi-check/check.sh          # check the document of ./cmd/fount
#   bash tools/openapi-check/check.sh FILE     # check FILE instead (to try a hand-edited copy)
#
# Steps, each failing the check with the tool's own messages:
#   1. npm ci into tools/openapi-check/node_modules, only when it is missing or
#      package-lock.json changed since the last install.
#   2. go run ./cmd/fount openapi > a temporary folder.
#   3. validate.mjs: @seriousme/openapi-schema-validator. It is chosen because
#      it validates against the official OpenAPI JSON schemas published with
#      the specification, including the 3.1 one (and the 2.0, 3.0 and 3.2
#      ones), with ajv in its JSON Schema 2020-12 mode, and then checks that
#      every $ref resolves; it shares no code with the Go generator, and 3.1
#      is documented and tested in it. The alternative,
#      @apidevtools/swagger-parser, has 3.1 code but its documentation still
#      names only Swagger 2.0 and OpenAPI 3.0.
#      The official 3.1 schema accepts any object where a Schema Object goes,
#      so validate.mjs also checks each Schema Object against the JSON Schema
#      2020-12 meta-schema (with the same ajv), and checks path parameters
#      and operationId uniqueness, which no JSON schema can express.
#   4. openapi-typescript generates schema.d.ts into the temporary folder.
#   5. tsc --strict --noEmit compiles client.ts (copied next to schema.d.ts)
#      against it; client.ts uses the generated types and expects some type
#      errors, so types that degrade to `any` fail too.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/../.." && pwd)"
GO="${GO:-go}"

if ! command -v npm >/dev/null 2>&1 || ! command -v node >/dev/null 2>&1; then
	echo "openapi-check: npm and node are not installed; install Node.js 20 or later (it comes with npm)" >&2
	exit 1
fi
if ! node -e 'process.exit(Number(process.versions.node.split(".")[0]) >= 20 ? 0 : 1)'; then
	echo "openapi-check: Node.js $(node --version) is too old; install Node.js 20 or later" >&2
	exit 1
fi

# 1. Install the pinned tools when node_modules is missing or stale.
stamp="$here/node_modules/.openapi-check-lock.sha256"
want="$(sha256sum "$here/package-lock.json" | cut -d' ' -f1)"
if [ ! -f "$stamp" ] || [ "$(cat "$stamp")" != "$want" ]; then
	echo "openapi-check: npm ci"
	(cd "$here" && npm ci --no-audit --no-fund)
	echo "$want" >"$stamp"
fi
bin="$here/node_modules/.bin"

tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT

# 2. The document.
if [ $# -ge 1 ]; then
	cp "$1" "$tmp/openapi.json"
	doc="$1"
else
	(cd "$root" && "$GO" run ./cmd/fount openapi) >"$tmp/openapi.json"
	doc="the document of go run ./cmd/fount openapi"
fi

# 3. Validate.
node "$here/validate.mjs" "$tmp/openapi.json" "$doc"

# 4. Generate the types. Run from the temporary folder so that no stray
# redocly.yaml changes how the document is read.
(cd "$tmp" && "$bin/openapi-typescript" openapi.json --output schema.d.ts) >"$tmp/openapi-typescript.log" 2>&1 || {
	cat "$tmp/openapi-typescript.log" >&2
	echo "openapi-check: openapi-typescript could not generate types from the document" >&2
	exit 1
}

# 5. Type-check the client against them; schema.d.ts is checked too.
cp "$here/client.ts" "$tmp/client.ts"
(cd "$tmp" && "$bin/tsc" --strict --noEmit --target es2022 --module esnext \
	--moduleResolution bundler --lib es2022 client.ts) || {
	echo "openapi-check: client.ts does not type-check against the types generated from the document" >&2
	exit 1
}
echo "openapi-check: client.ts type-checks under tsc --strict against $(wc -l <"$tmp/schema.d.ts") lines of generated types"
echo "openapi-check: passed"
