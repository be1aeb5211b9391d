package main

import (
	"context"
	"fmt"
	"io"
)

// Exit codes shared by every subcommand.
const (
	exitOK    = 0
	exitError = 1 // the server or the API failed
	exitUsage = 2 // the command line was wrong
)

// version is overridden at link time by release builds.
var version = "dev"

const usage = `fount hosts event sources.

Usage:
  fount serve [flags]    start the server (API, endpoints, timers, delivery)
  fount version          print the version

Run 'fount <command> --help' for the flags of a command.
`

// run dispatches to a subcommand and returns the process exit code.
func run(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		fmt.Fprint(stderr, usage)
		return exitUsage
	}
	switch args[0] {
	case "serve":
		return runServe(ctx, args[1:], stdout, stderr)
	case "version", "--version":
		fmt.Fprintf(stdout, "fount %s\n", version)
		return exitOK
	case "help", "-h", "--help":
		fmt.Fprint(stdout, usage)
		return exitOK
	default:
		fmt.Fprintf(stderr, "fount: unknown command %q\n\n%s", args[0], usage)
		return exitUsage
	}
}
