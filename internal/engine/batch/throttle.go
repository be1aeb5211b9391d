package batch

import (
	"fmt"
	"sync"
	"time"

	"github.com/fount-dev/fount/internal/model"
)

// Bounds of a workflow's throttle.
const (
	MaxThrottleLimit    = 10_000
	MaxThrottleInterval = 24 * 3600 // seconds
)

// Throttles counts the executions each throttled workflow started in its
// current window: a fixed window that opens with the first execution
// after the last one closed. The count lives on the node that runs the
// workflow's queue, so a restart or a failover opens a new window.
type Throttles struct {
	mu      sync.Mutex
	windows map[string]*throttleWindow
}

type throttleWindow struct {
	start time.Time
	n     int
}

// Allow returns how many of want executions of workflow id may start at
// now under t, counting them as started, and, when fewer than want may,
// how long until the window closes.
func (th *Throttles) Allow(id string, t model.Throttle, now time.Time, want int) (int, time.Duration) {
	th.mu.Lock()
	defer th.mu.Unlock()
	if th.windows == nil {
		th.windows = map[string]*throttleWindow{}
	}
	interval := time.Duration(t.IntervalSeconds) * time.Second
	w := th.windows[id]
	if w == nil || !now.Before(w.start.Add(interval)) {
		w = &throttleWindow{start: now}
		th.windows[id] = w
	}
	allowed := min(want, max(0, t.Limit-w.n))
	w.n += allowed
	if allowed == want {
		return allowed, 0
	}
	return allowed, w.start.Add(interval).Sub(now)
}

// Forget drops workflow id's window (deleted or updated).
func (th *Throttles) Forget(id string) {
	th.mu.Lock()
	defer th.mu.Unlock()
	delete(th.windows, id)
}

// ThrottledError ends a workflow's turn whose throttle held back the
// rest of its queue until the window closes, Wait from now.
type ThrottledError struct{ Wait time.Duration }

func (e *ThrottledError) Error() string {
	return fmt.Sprintf("engine: throttled for %s", e.Wait)
}
