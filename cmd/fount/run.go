package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"sort"
	"strings"

	"github.com/fount-dev/fount/internal/api"
)

// Exit codes shared by every subcommand.
const (
	exitOK    = 0
	exitError = 1 // the server or the API failed
	exitUsage = 2 // the command line was wrong
)

// version is overridden at link time by release builds.
var version = "dev"

// clientCommands are the subcommands that talk to a server's API.
func clientCommands() []command {
	return []command{
		deployCommand(), updateCommand(), deleteCommand(), devCommand(), listCommand(), getCommand(),
		eventsCommand("events"), eventsCommand("logs"), runCommand(), executionsCommand(), runActionCommand(), subscribeCommand("subscribe"),
		subscribeCommand("unsubscribe"), webhooksCommand(), accountsCommand(), dataStoresCommand(), backupCommand(), statsCommand(), whoamiCommand(), loginCommand(),
	}
}

func commandNames() []string {
	names := []string{"serve", "version", "completion", "openapi", "restore", "help"}
	for _, c := range clientCommands() {
		names = append(names, c.name)
	}
	sort.Strings(names)
	return names
}

func usage() string {
	var b strings.Builder
	b.WriteString("fount hosts event sources.\n\nUsage:\n  fount <command> [arguments] [flags]\n\nServer:\n")
	b.WriteString("  serve        start the server (API, endpoints, timers, delivery)\n\nClient (talks to a server: --url/FOUNT_URL, --key/FOUNT_API_KEY, or `fount login`):\n")
	for _, c := range clientCommands() {
		fmt.Fprintf(&b, "  %-12s %s\n", c.name, strings.SplitN(c.summary, ".", 2)[0])
	}
	b.WriteString("\nOther:\n  completion   print a shell completion script (bash, zsh, fish)\n")
	b.WriteString("  openapi      print the OpenAPI 3.1 document of the REST API (for generating clients)\n  version      print the version\n\n")
	b.WriteString("Client commands take --json (the API's JSON) and --quiet (ids only).\nRun 'fount <command> --help' for a command's flags and an example.\n")
	b.WriteString("Exit codes: 0 ok, 1 server or API error, 2 usage error.\n")
	return b.String()
}

// run dispatches to a subcommand and returns the process exit code.
func run(ctx context.Context, args []string, env environment) int {
	stdout, stderr := env.stdout, env.stderr
	if len(args) == 0 {
		fmt.Fprint(stderr, usage())
		return exitUsage
	}
	switch args[0] {
	case "serve":
		return runServe(ctx, args[1:], env)
	case "version", "--version":
		return runVersion(args[1:], stdout, stderr)
	case "help", "-h", "--help":
		fmt.Fprint(stdout, usage())
		return exitOK
	case "completion":
		return runCompletion(args[1:], stdout, stderr, commandNames())
	case "openapi":
		return runOpenAPI(args[1:], stdout, stderr)
	case "restore":
		return runRestore(args[1:], env)
	}
	for _, c := range clientCommands() {
		if c.name == args[0] {
			return runClient(ctx, c, args[1:], env)
		}
	}
	fmt.Fprintf(stderr, "fount: unknown command %q\n\n%s", args[0], usage())
	return exitUsage
}

// runOpenAPI prints the OpenAPI document, indented.
func runOpenAPI(args []string, stdout, stderr io.Writer) int {
	if len(args) > 0 {
		fmt.Fprintf(stderr, "fount openapi takes no arguments\nUsage: fount openapi > openapi.json\n")
		return exitUsage
	}
	doc, err := api.OpenAPIDocument()
	if err != nil {
		fmt.Fprintf(stderr, "fount openapi: %v\n", err)
		return exitError
	}
	var out bytes.Buffer
	if err := json.Indent(&out, doc, "", "  "); err != nil {
		fmt.Fprintf(stderr, "fount openapi: %v\n", err)
		return exitError
	}
	out.WriteByte('\n')
	_, _ = out.WriteTo(stdout)
	return exitOK
}
