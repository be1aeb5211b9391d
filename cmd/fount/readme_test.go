package main

import (
	"os"
	"os/exec"
	"regexp"
	"testing"
)

// TestReadmeMakeCommands: every `make <target>` the README shows is a real
// target. `make test` and `make guest-verify` run in CI itself; `make run`
// is exercised by TestServeHealthzAndShutdown, which runs `fount serve`
// with the same defaults.
func TestReadmeMakeCommands(t *testing.T) {
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
