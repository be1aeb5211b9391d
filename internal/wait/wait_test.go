package wait

import (
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// fakeT records a failure instead of ending the test.
type fakeT struct {
	testing.TB
	failed string
}

func (f *fakeT) Helper()                           {}
func (f *fakeT) Fatalf(format string, args ...any) { f.failed = format }

func TestForReturnsOnceTheConditionHolds(t *testing.T) {
	t.Parallel()
	var n atomic.Int32
	got := For(t, "three polls", Short, func() (int32, bool) { v := n.Add(1); return v, v >= 3 })
	if got != 3 {
		t.Errorf("For returned %d, want the value of the poll that held", got)
	}
}

func TestUntilFailsPastTheDeadline(t *testing.T) {
	t.Parallel()
	f := &fakeT{}
	start := time.Now()
	Until(f, "never", 30*time.Millisecond, func() bool { return false })
	if !strings.Contains(f.failed, "waited") {
		t.Errorf("a condition that never holds did not fail: %q", f.failed)
	}
	if time.Since(start) < 30*time.Millisecond {
		t.Error("it gave up before the deadline")
	}
}
