// Package goja compares fount's sandbox call with goja, an in-process
// JavaScript engine for Go, and with Node's vm (bench/node-vm/warm.js), on
// the same component in the same run. It is a module of its own so that
// goja never becomes a dependency of fount.
//
//	cd bench/goja && go test -run '^$' -bench . -count 3
package goja
