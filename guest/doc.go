// Package guest holds what runs inside the sandbox: the C shim around
// QuickJS (src/), the JavaScript prelude that implements the component
// model (prelude.js), and the committed build of both, fount.wasm.
//
// The wasm is rebuilt with `make guest` and embedded here with go:embed, so
// building fount needs no C toolchain.
package guest
