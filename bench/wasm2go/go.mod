module github.com/fount-dev/fount/bench/wasm2go

go 1.26.0

require (
	github.com/fount-dev/fount v0.0.0
	github.com/tetratelabs/wazero v1.12.0
)

require golang.org/x/sys v0.49.0 // indirect

replace github.com/fount-dev/fount => ../..
