// Package confine starts child processes that the kernel lets open only
// the files they were given, with Linux's Landlock. fount's workers parse
// and bundle tenants' code and packages; confined, a flaw in a bundler's
// resolution still cannot read the server's keys or anything else of the
// host's.
//
// Landlock restricts the thread that asks and the processes it starts,
// never the rest of the server: Start restricts an OS thread of its own,
// starts the child from it, and lets the thread end with it.
package confine

import (
	"errors"
	"os/exec"
)

// Access is what a rule lets the child do beneath a path.
type Access int

const (
	// Read reads files and lists folders.
	Read Access = iota
	// ReadExec also executes: the child's own executable and the
	// libraries its loader maps.
	ReadExec
	// ReadWrite reads, writes, creates, renames and removes files and
	// folders.
	ReadWrite
)

// Rule lets the child reach Path (a file, or a folder and everything
// beneath it) with Access. A path that does not exist is skipped.
type Rule struct {
	Path   string
	Access Access
}

// ErrUnsupported is returned by Start where the kernel has no Landlock
// (not Linux, a kernel before 5.13, or Landlock disabled at boot).
var ErrUnsupported = errors.New("confine: the kernel does not support Landlock")

// Start starts cmd so that it can open only what rules allow. It returns
// an error wrapping ErrUnsupported, with cmd not started, where the kernel
// cannot confine it; the caller chooses whether to start it unconfined.
func Start(cmd *exec.Cmd, rules []Rule) error {
	return start(cmd, rules)
}

// Version is the Landlock ABI version the kernel offers; 0 when none.
func Version() int { return version() }

// Executable are the rules a child needs to start as exe: the file
// itself, and the system's libraries and loader cache for a dynamically
// linked one. Nothing in them is secret.
func Executable(exe string) []Rule {
	rules := []Rule{{Path: exe, Access: ReadExec}, {Path: "/etc/ld.so.cache", Access: Read}}
	for _, dir := range []string{"/lib", "/lib64", "/usr/lib", "/usr/lib64", "/usr/local/lib"} {
		rules = append(rules, Rule{Path: dir, Access: ReadExec})
	}
	return rules
}
