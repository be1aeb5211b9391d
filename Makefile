# fount's build. `make run` and `make test` are the two commands a newcomer
# needs; both work with only Go installed. `make guest` needs the C toolchain
# (installed by `make guest-deps` from Debian's packages).

GO ?= go
BIN := bin/fount

.PHONY: all build run test fmt-check vet staticcheck unit bench clean

all: build

build:
	$(GO) build -o $(BIN) ./cmd/fount

## run: build and start `fount serve` with the embedded defaults.
run: build
	./$(BIN) serve

## test: everything CI checks.
test: fmt-check vet staticcheck unit

fmt-check:
	@out=$$(gofmt -l $$(git ls-files '*.go' 2>/dev/null || find . -name '*.go')); \
	if [ -n "$$out" ]; then echo "gofmt needed on:"; echo "$$out"; exit 1; fi

vet:
	$(GO) vet ./...

staticcheck:
	$(GO) tool staticcheck ./...

unit:
	$(GO) test -race ./...

## bench: the benchmarks whose figures go in docs/benchmarks.md.
bench:
	$(GO) test -run '^$$' -bench . -benchmem ./...

clean:
	rm -rf bin
