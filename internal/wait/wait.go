// Package wait is how fount's tests wait for something to happen: a
// condition polled, more slowly as time passes, until it holds or a
// generous deadline passes. Tests never sleep a fixed time: on a busy
// two-core machine any fixed time is either too short or wasted.
package wait

import (
	"testing"
	"time"
)

// Generous deadlines, for what a test waits on.
const (
	// Short is for what a loaded machine still does in well under a
	// second: a goroutine to start, a run of a trivial component.
	Short = 20 * time.Second
	// Long is for what involves a server's work end to end: events
	// stored, deliveries sent, executions recorded.
	Long = time.Minute
)

// Until polls cond until it holds, failing t with what when within
// passes first.
func Until(t testing.TB, what string, within time.Duration, cond func() bool) {
	t.Helper()
	For(t, what, within, func() (struct{}, bool) { return struct{}{}, cond() })
}

// Poll polls cond until it holds or within passes, and reports whether
// it held: for a test that reports what it saw itself.
func Poll(within time.Duration, cond func() bool) bool {
	deadline := time.Now().Add(within)
	for pause := time.Millisecond; ; pause = min(2*pause, 50*time.Millisecond) {
		if cond() {
			return true
		}
		if time.Now().After(deadline) {
			return false
		}
		time.Sleep(pause)
	}
}

// For polls get until it reports ok, and returns its value; it fails t
// with what, and the last value got, when within passes first.
func For[T any](t testing.TB, what string, within time.Duration, get func() (T, bool)) T {
	t.Helper()
	deadline := time.Now().Add(within)
	pause := time.Millisecond
	for {
		v, ok := get()
		if ok {
			return v
		}
		if time.Now().After(deadline) {
			if _, none := any(v).(struct{}); none {
				t.Fatalf("waited %v for %s", within, what)
			} else {
				t.Fatalf("waited %v for %s; last got %+v", within, what, v)
			}
			return v
		}
		time.Sleep(pause)
		pause = min(2*pause, 50*time.Millisecond)
	}
}
