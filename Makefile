# fount's build. `make run` and `make test` are the two commands a newcomer
# needs. `make run` needs only Go; `make test` also drives the dashboard in
# headless Chromium, which `make browser-deps` installs from Debian's
# packages when it is missing. `make guest` needs the C toolchain
# (installed by `make guest-deps` from Debian's packages).

GO ?= go
BIN := bin/fount

.PHONY: corpus server-deps all build run-cluster bench-compare bench-wasm2go guest-go test-wasm2go browser-deps screenshots run test check-tracked fmt-check vet staticcheck lint unit bench clean guest guest-deps guest-verify guest-header openapi-check

all: build

## build: fount with both engines, wasm2go (the default) and wazero; see
## guest-go. `go build ./cmd/fount` alone gives a binary with wazero only.
build: guest-go
	$(GO) build -tags wasm2go -buildvcs=auto -o $(BIN) ./cmd/fount

## run: build and start `fount serve` with the embedded defaults.
run: build
	./$(BIN) serve

## run-cluster: three NATS servers and three fount nodes on loopback, sharing
## one store (README, "Running several nodes"); Ctrl-C stops them.
run-cluster:
	GO="$(GO)" bash tools/run-cluster.sh

## test: everything CI checks. The linters run beside the tests, their
## output kept and shown after the tests': neither waits for the other.
## (The log is a temporary file, not in the tree: make -n runs a line
## that calls $(MAKE), and TestReadmeMakeCommands runs make -n test.)
test: check-tracked fmt-check
	@log=$$(mktemp); $(MAKE) --no-print-directory lint > $$log 2>&1 & lint=$$!; \
	$(MAKE) --no-print-directory unit; unit=$$?; \
	wait $$lint; linted=$$?; cat $$log; rm -f $$log; \
	[ $$unit -eq 0 ] && [ $$linted -eq 0 ]

lint: vet staticcheck

## check-tracked: nothing built is committed. Binary files are refused except
## the guest (checked by guest-verify) and wasm test fixtures kept beside
## their C source, as wazero keeps its own.
ALLOWED_BINARIES := guest/fount.wasm internal/host/testdata/abiprobe.wasm $(wildcard docs/screenshots/*.png)
check-tracked:
	@bad=""; for f in $$(git ls-files -z | xargs -0 -r grep -IL '' --); do \
		[ -s "$$f" ] || continue; \
		case " $(ALLOWED_BINARIES) " in *" $$f "*) ;; *) bad="$$bad $$f";; esac; \
	done; \
	if [ -n "$$bad" ]; then echo "built or binary files are tracked:$$bad"; echo "remove them (git rm --cached) and ignore them in .gitignore"; exit 1; fi

fmt-check:
	@out=$$(gofmt -l $$(git ls-files '*.go' 2>/dev/null || find . -name '*.go')); \
	if [ -n "$$out" ]; then echo "gofmt needed on:"; echo "$$out"; exit 1; fi

## vet covers bench/goja too: it is a module of its own, so ./... misses it,
## and a change to fount's dependencies can leave its go.sum stale.
vet:
	$(GO) vet ./...
	cd bench/goja && $(GO) vet ./...

staticcheck:
	$(GO) tool staticcheck ./...

## unit runs the tests under the race detector, but for those whose time
## goes where the detector finds nothing: the ones that drive fount as
## separate processes built without it (the cluster's failover, make run
## and make run-cluster), whose NATS servers it would only slow; the real npm
## libraries (the corpus; the database, mail and SFTP clients), whose time
## goes to JavaScript in the sandbox and in Node; and the bundles of every
## built-in and of a large SDK, and an npm cache filled by bundles, whose
## time goes to esbuild; key generation, whose time goes to the host's
## crypto in one call; code nested past the parser's stack, parsed in a
## worker process; a 4 MiB source map parsed on one goroutine. Those run
## beside, without it. (The tests' workers run a plain build too: see
## workerExe in cmd/fount.)
PLAIN_TESTS := ^(TestFailoverLosesNothing|TestReadmeWalkthrough|TestReadmeCluster|TestCorpusAsInNode|TestStacksOfMinifiedBundles|TestNpm(Postgres|MySQL|SMTP|SFTP)Client|TestEveryProvidedBuiltinBundles|TestBuiltinsExportWhatNodeExports|TestLargeBundlesAreMinified|TestNpmCacheIsPerPackageAndBounded|TestNodeKeygen|TestDeeplyNestedCodeCannotCrashTheServer|TestSourceMapsAreCappedAndStillMap)$$
unit: browser-deps corpus server-deps
	@$(GO) test -count=1 -run '$(PLAIN_TESTS)' ./cmd/fount/ ./internal/bundle/ > .unit-plain.log 2>&1 & plain=$$!; \
	$(GO) test -race -skip '$(PLAIN_TESTS)' ./...; race=$$?; \
	wait $$plain; status=$$?; cat .unit-plain.log; rm -f .unit-plain.log; \
	[ $$race -eq 0 ] && [ $$status -eq 0 ]

## browser-deps: Debian's chromium, for the dashboard's browser tests
## (FOUNT_CHROMIUM names another browser binary instead).
browser-deps:
	@if [ -z "$$FOUNT_CHROMIUM" ] && ! command -v chromium >/dev/null 2>&1; then \
		echo "installing: chromium"; \
		apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null; \
	fi

## corpus: the real npm packages the tests deploy (cmd/fount/testdata/corpus/
## packages.txt), fetched with npm into the cache and checked against their
## pinned integrity; the tests serve them from a registry on loopback.
corpus: guest-deps
	@bash tools/corpus/fetch.sh

## server-deps: Debian's PostgreSQL, MariaDB and OpenSSH server, the real servers the
## tests' components talk to on loopback.
server-deps:
	@missing=""; ls /usr/lib/postgresql/*/bin/postgres >/dev/null 2>&1 || missing="$$missing postgresql"; \
	[ -x /usr/sbin/mariadbd ] || missing="$$missing mariadb-server"; \
	[ -x /usr/sbin/sshd ] || missing="$$missing openssh-server"; \
	if [ -n "$$missing" ]; then \
		echo "installing:$$missing"; \
		apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $$missing >/dev/null; \
	fi

## screenshots: regenerate docs/screenshots/ from the dashboard's browser test.
screenshots: browser-deps
	FOUNT_SCREENSHOTS=$(CURDIR)/docs/screenshots $(GO) test -count=1 -run TestDashboard ./cmd/fount/

## openapi-check: the OpenAPI 3.1 document of `fount openapi` is valid and a
## TypeScript client generated from it type-checks (needs Node.js 20+; see
## tools/openapi-check/README.md). Not part of `make test`, which needs only Go.
openapi-check:
	GO="$(GO)" bash tools/openapi-check/check.sh

## bench: the benchmarks whose figures go in docs/benchmarks.md.
## The sandbox's and the server's run on the default engine (wasm2go);
## FOUNT_TEST_ENGINE=wazero measures the other.
bench: guest-go
	$(GO) test -tags wasm2go -run '^$$' -bench . -benchmem -count 3 ./internal/host/
	$(GO) test -run '^$$' -bench WorkflowSteps -count 3 ./internal/engine/flow/
	$(GO) test -tags wasm2go -run '^$$' -bench 'Load|Fairness|Restart' -skip 'Load/node-vm' -benchtime 1x -count 3 -timeout 60m ./cmd/fount/
	$(GO) test -run '^$$' -bench NpmDeploy -count 3 ./cmd/fount/
	$(GO) test -run '^$$' -bench 'AppendEventsKept|EnqueueInvocation|StatsDay' -count 3 ./internal/store/
	$(GO) test -run '^$$' -bench StreamResume -count 3 ./internal/api/

## bench-compare: fount beside its peers, in one run: the warm sandbox
## call beside goja's and Node vm's on the same run() (bench/goja is a
## module of its own, so goja is no dependency of fount), and the load
## benchmark beside bench/node-vm/host.js (Node: a fresh vm context per
## request, grouped fsync). Needs node on PATH.
bench-compare: guest-go
	cd bench/goja && $(GO) test -tags wasm2go -run '^$$' -bench . -count 3
	$(GO) test -tags wasm2go -run '^$$' -bench 'Load/(fount-max|node-vm)' -benchtime 1x -count 3 ./cmd/fount/

## bench-wasm2go: the guest run by wazero beside the guest translated to Go
## by wasm2go (safe and -unsafe), behind the same minimal host, on the
## same calls (issue 25). bench/wasm2go is a module of its own; the
## translations (6-7 MB of Go each, about 30 s and 2 GB to compile) are
## made here and never committed.
WASM2GO := github.com/ncruces/wasm2go@v0.4.21
bench-wasm2go:
	$(GO) run ./internal/host/guestgo/gen wasm bench/wasm2go/instrumented.wasm
	cd bench/wasm2go && mkdir -p guestgo guestgou && \
	$(GO) run $(WASM2GO) -pkg guestgo -o guestgo/guest.go instrumented.wasm && \
	$(GO) run $(WASM2GO) -unsafe -pkg guestgou -o guestgou/guest.go instrumented.wasm && \
	$(GO) test -run TestEnginesAgree -bench . -benchtime 200x -count 5

## guest-go: package internal/host/guestgo, the guest translated to Go by
## wasm2go (-unsafe: bounds-checked accesses through unsafe), patched with
## the memory cap and the call-depth bound (issue 25). Generated, never
## committed; a build with -tags wasm2go uses it (host.Config.Engine,
## fount serve --engine wasm2go). About 30 s and 2 GB to compile.
## Made again only when the guest, its instrumentation or the patch changed.
GUESTGO := internal/host/guestgo
guest-go: $(GUESTGO)/guest.go
$(GUESTGO)/guest.go: guest/fount.wasm internal/host/host.go $(wildcard internal/host/interrupt/*.go) $(wildcard $(GUESTGO)/gen/*.go)
	$(GO) run ./$(GUESTGO)/gen wasm $(GUESTGO)/instrumented.wasm
	$(GO) run $(WASM2GO) -unsafe -pkg guestgo -o $(GUESTGO)/guest.go $(GUESTGO)/instrumented.wasm
	$(GO) run ./$(GUESTGO)/gen patch $(GUESTGO)
	rm -f $(GUESTGO)/instrumented.wasm

## test-wasm2go: the sandbox's tests (the hostile catalogue among them)
## and the in-process servers' end-to-end tests, on the wasm2go engine.
## Without -race: the race detector's instrumentation of 7 MB of
## generated Go takes longer than the tests.
test-wasm2go: guest-go corpus server-deps
	FOUNT_TEST_ENGINE=wasm2go $(GO) test -count=1 -tags wasm2go ./internal/host/ ./cmd/fount/

clean:
	rm -rf bin

## guest: rebuild guest/fount.wasm from the vendored QuickJS (guest/quickjs) and guest/src.
GUEST_PACKAGES := clang-16 lld-16 wasi-libc libclang-rt-16-dev-wasm32

guest-deps:
	@missing=""; for p in $(GUEST_PACKAGES); do dpkg -s $$p >/dev/null 2>&1 || missing="$$missing $$p"; done; \
	command -v npm >/dev/null 2>&1 || missing="$$missing npm"; \
	if [ -n "$$missing" ]; then \
		echo "installing:$$missing"; \
		apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $$missing >/dev/null; \
	fi

guest-header:
	$(GO) run ./abi/genheader > guest/src/fount_abi.h

guest: guest-deps guest-header
	bash guest/build.sh guest/fount.wasm

## guest-verify: rebuild in a temporary folder; fail if the bytes differ from the committed wasm.
guest-verify: guest-deps
	@tmp=$$(mktemp -d); trap 'rm -rf "$$tmp"' EXIT; \
	$(GO) run ./abi/genheader > "$$tmp/fount_abi.h"; \
	cmp -s "$$tmp/fount_abi.h" guest/src/fount_abi.h || { echo "guest/src/fount_abi.h is stale: run make guest"; exit 1; }; \
	bash guest/build.sh "$$tmp/fount.wasm"; \
	if cmp -s "$$tmp/fount.wasm" guest/fount.wasm; then echo "guest/fount.wasm is reproducible ($$(wc -c < guest/fount.wasm) bytes)"; \
	else echo "guest/fount.wasm differs from a fresh build of its sources: run make guest and commit"; exit 1; fi
