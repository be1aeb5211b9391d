//go:build !linux

package confine

import "os/exec"

func start(*exec.Cmd, []Rule) error { return ErrUnsupported }

func version() int { return 0 }
