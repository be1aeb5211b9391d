// Command gen writes the guest as the host compiles it, every loop
// polling the deadline (package interrupt), for wasm2go to translate.
package main

import (
	"fmt"
	"os"

	"github.com/fount-dev/fount/abi"
	"github.com/fount-dev/fount/guest"
	"github.com/fount-dev/fount/internal/host/interrupt"
)

// pollEvery is the host's: a loop polls every 65,536 iterations.
const pollEvery = 1 << 16

func main() {
	if len(os.Args) != 2 {
		fmt.Fprintln(os.Stderr, "usage: gen OUT.wasm")
		os.Exit(2)
	}
	wasm, err := interrupt.Instrument(guest.Wasm, interrupt.Poll{Module: abi.ImportModule, Name: abi.FuncInterrupted}, pollEvery)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	if err := os.WriteFile(os.Args[1], wasm, 0o644); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}
