// Command fount is both the fount server (`fount serve`) and the
// command-line client of its REST API. main only wires the process to run,
// so that tests can drive every subcommand in-process.
package main

import (
	"context"
	"os"
	"os/signal"
	"syscall"

	"github.com/fount-dev/fount/internal/worker"
)

func main() {
	if code, ok := worker.Run(); ok {
		os.Exit(code)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := run(ctx, os.Args[1:], processEnvironment())
	stop()
	os.Exit(code)
}
