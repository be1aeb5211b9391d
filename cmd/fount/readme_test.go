package main

import (
	"net"
	"os"
	"os/exec"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestReadmeMakeCommands: every `make <target>` the README shows is a real
// target. `make test` and `make guest-verify` run in CI itself; `make run`
// is exercised by TestServeHealthzAndShutdown, which runs `fount serve`
// with the same defaults.
func TestReadmeMakeCommands(t *testing.T) {
	t.Parallel()
	readme, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	targets := regexp.MustCompile(`(?m)^\s+make ([a-z-]+)`).FindAllStringSubmatch(string(readme), -1)
	if len(targets) < 2 {
		t.Fatalf("found %d make commands in README.md; the two set-up commands at least must be there", len(targets))
	}
	for _, m := range targets {
		cmd := exec.Command("make", "-n", m[1])
		cmd.Dir = "../.."
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Errorf("README shows `make %s`, but make -n %s fails: %v\n%s", m[1], m[1], err, out)
		}
	}
}

// readmeBlocks returns the shell blocks of a README section.
func readmeBlocks(t *testing.T, section string) [][]string {
	t.Helper()
	readme, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	text := string(readme)
	start := strings.Index(text, "## "+section)
	if start < 0 {
		t.Fatalf("README has no section %q", section)
	}
	text = text[start+3:]
	if end := strings.Index(text, "\n## "); end >= 0 {
		text = text[:end]
	}
	var blocks [][]string
	for _, part := range strings.Split(text, "```sh\n")[1:] {
		body, _, _ := strings.Cut(part, "```")
		var lines []string
		for _, l := range strings.Split(strings.TrimSpace(body), "\n") {
			if l = strings.TrimSpace(l); l != "" && !strings.HasPrefix(l, "#") {
				lines = append(lines, l)
			}
		}
		blocks = append(blocks, lines)
	}
	return blocks
}

// TestReadmeWalkthrough runs the README's "first source in two minutes"
// verbatim from the repository root: `make run` in the background, then
// the second terminal's commands. Only the environment differs: a free
// port and a temporary data dir instead of 127.0.0.1:8080 and ./fount-data.
func TestReadmeWalkthrough(t *testing.T) {
	t.Parallel()
	blocks := readmeBlocks(t, "First source in two minutes")
	if len(blocks) != 2 || len(blocks[0]) != 1 || blocks[0][0] != "make run" || len(blocks[1]) < 3 {
		t.Fatalf("unexpected walkthrough blocks: %q", blocks)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	warmCache(t)
	env := append(os.Environ(), "FOUNT_ADDR="+addr, "FOUNT_DATA_DIR="+t.TempDir(), "FOUNT_URL=http://"+addr, "FOUNT_CACHE_DIR="+cacheDir,
		"FOUNT_API_KEY=", "FOUNT_BOOTSTRAP_API_KEY=", "NO_COLOR=1")

	server := exec.Command("bash", "-c", blocks[0][0])
	server.Dir, server.Env = "../..", env
	server.SysProcAttr = &syscall.SysProcAttr{Setpgid: true} // make and its child are stopped together
	out := &lockedBuffer{}
	server.Stdout, server.Stderr = out, out
	if err := server.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() {
		_ = syscall.Kill(-server.Process.Pid, syscall.SIGTERM)
		_ = server.Wait()
	}()
	deadline := time.Now().Add(3 * time.Minute) // make run builds the binary first
	for !strings.Contains(out.String(), "listening on") {
		if time.Now().After(deadline) {
			t.Fatalf("make run did not start the server:\n%s", out)
		}
		time.Sleep(50 * time.Millisecond)
	}

	steps := blocks[1]
	last := steps[len(steps)-1]
	if !strings.HasSuffix(last, "--follow") {
		t.Fatalf("the walkthrough should end by following events, ends with %q", last)
	}
	script := "set -e\n" + strings.Join(steps[:len(steps)-1], "\n") + "\n" + "timeout -s INT 5 " + last + " || true\n"
	walk := exec.Command("bash", "-c", script)
	walk.Dir, walk.Env = "../..", env
	got, err := walk.CombinedOutput()
	if err != nil {
		t.Fatalf("walkthrough failed: %v\n%s\nserver:\n%s", err, got, out)
	}
	for _, want := range []string{"deployed hello-http (dc_", `{"success":true}`, `"hello":"world"`} {
		if !strings.Contains(string(got), want) {
			t.Errorf("walkthrough output lacks %q:\n%s", want, got)
		}
	}

	// The workflow walkthrough, in the same terminal: the API key
	// exported above.
	flow := readmeBlocks(t, "First workflow")
	if len(flow) != 1 || len(flow[0]) < 3 || !strings.HasSuffix(flow[0][len(flow[0])-1], "--follow") {
		t.Fatalf("unexpected workflow walkthrough blocks: %q", flow)
	}
	steps = flow[0]
	last = steps[len(steps)-1]
	script = "set -e\n" + blocks[1][0] + "\n" + strings.Join(steps[:len(steps)-1], "\n") + "\n" + "timeout -s INT 5 " + last + " || true\n"
	walk = exec.Command("bash", "-c", script)
	walk.Dir, walk.Env = "../..", env
	if got, err = walk.CombinedOutput(); err != nil {
		t.Fatalf("workflow walkthrough failed: %v\n%s\nserver:\n%s", err, got, out)
	}
	for _, want := range []string{"deployed workflow greeter (p_", `{"success":true}`, "success", "greeted ada", "announce"} {
		if !strings.Contains(string(got), want) {
			t.Errorf("workflow walkthrough output lacks %q:\n%s", want, got)
		}
	}
}

// TestReadmeListsEveryServeFlag: each flag `fount serve --help` prints is
// in the README's table, with its environment variable.
func TestReadmeListsEveryServeFlag(t *testing.T) {
	t.Parallel()
	readme, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	var help strings.Builder
	_, _ = parseServeFlags([]string{"-h"}, environment{stderr: &help, lookupEnv: func(string) (string, bool) { return "", false }})
	flags := regexp.MustCompile(`(?m)^  -([a-z][a-z0-9-]*)`).FindAllStringSubmatch(help.String(), -1)
	if len(flags) < 20 {
		t.Fatalf("found %d flags in serve --help", len(flags))
	}
	for _, f := range flags {
		env := "FOUNT_" + strings.ToUpper(strings.ReplaceAll(f[1], "-", "_"))
		if !strings.Contains(string(readme), "| `--"+f[1]+"` | `"+env+"` |") {
			t.Errorf("the README lists no --%s with %s", f[1], env)
		}
	}
}
