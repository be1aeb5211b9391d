// Package guestgo is the guest translated to Go by wasm2go: the engine a
// server built with the wasm2go tag runs components on (see package host,
// Config.Engine). Its code is generated, never committed: `make
// guest-go` instruments the guest as the host does (every loop polls the
// deadline), translates it with wasm2go -unsafe, and patches the
// translation with the two limits wasm2go does not know, by gen:
//
//   - the linear memory grows to the cap the host gives each instance
//     (NewLimited), not to 4 GiB, and where the host keeps it (SetGrow):
//     memory it maps itself, as for wazero, outside the Go heap;
//   - every call of a guest function counts its depth, and a call past
//     the bound NewLimited gives panics with ErrCallDepth. A wasm call is a Go call here,
//     and a recursion that overflowed the goroutine's stack would be a
//     fatal error of the whole process, not a trap of one instance.
//
// Without the wasm2go tag the package is this file alone.
package guestgo
