package main

import (
	"io"
	"os"
	"strconv"
	"time"
)

// environment is what a command takes from its process besides its
// arguments: the standard streams and the environment variables. main
// gives the process's own; tests give each command one of its own, so
// that they can run in parallel.
type environment struct {
	stdin          io.Reader
	stdout, stderr io.Writer
	lookupEnv      func(name string) (string, bool)
}

// processEnvironment is the environment of this process.
func processEnvironment() environment {
	return environment{stdin: os.Stdin, stdout: os.Stdout, stderr: os.Stderr, lookupEnv: os.LookupEnv}
}

// getenv returns an environment variable, "" when unset.
func (e environment) getenv(name string) string {
	v, _ := e.lookupEnv(name)
	return v
}

// or returns an environment variable, or fallback when it is unset or
// empty.
func (e environment) or(name, fallback string) string {
	if v := e.getenv(name); v != "" {
		return v
	}
	return fallback
}

// int returns an integer environment variable, or fallback when it is
// unset or not a number.
func (e environment) int(name string, fallback int64) int64 {
	if v, err := strconv.ParseInt(e.getenv(name), 10, 64); err == nil {
		return v
	}
	return fallback
}

// duration returns a duration environment variable ("30s", "2m"), or
// fallback when it is unset or not a duration.
func (e environment) duration(name string, fallback time.Duration) time.Duration {
	if v, err := time.ParseDuration(e.getenv(name)); err == nil {
		return v
	}
	return fallback
}
