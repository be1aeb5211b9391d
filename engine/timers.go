package engine

import (
	"context"
	"encoding/json"
	"sync"
	"time"

	"github.com/robfig/cron/v3"

	"github.com/fount-dev/fount/store"
)

// timerSpec is a timer prop's configured value, as the API stores it.
type timerSpec struct {
	Cron            *string `json:"cron"`
	IntervalSeconds *int64  `json:"interval_seconds"`
}

// timer fires a source's timer prop until stopped.
type timer struct {
	mu      sync.Mutex
	t       *time.Timer
	stopped bool
}

func (t *timer) stop() {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.stopped = true
	if t.t != nil {
		t.t.Stop()
	}
}

var cronParser = cron.NewParser(cron.SecondOptional | cron.Minute | cron.Hour | cron.Dom | cron.Month | cron.Dow | cron.Descriptor)

// ParseCron checks a cron expression: 5 fields, or 6 with seconds first, or
// a descriptor such as @hourly.
func ParseCron(expr string) error {
	_, err := cronParser.Parse(expr)
	return err
}

// schedule returns when a timer fires next after from.
type schedule func(from time.Time) time.Time

func (s timerSpec) schedule() (schedule, bool) {
	switch {
	case s.Cron != nil && *s.Cron != "":
		sched, err := cronParser.Parse(*s.Cron)
		if err != nil {
			return nil, false
		}
		return sched.Next, true
	case s.IntervalSeconds != nil && *s.IntervalSeconds > 0:
		d := time.Duration(*s.IntervalSeconds) * time.Second
		return func(from time.Time) time.Time { return from.Add(d) }, true
	}
	return nil, false
}

// startTimer schedules a source's timer. After a restart, a fire that was
// due while the server was down runs once, right away (missed fires are
// not replayed one by one), and the schedule continues from then.
func (e *Engine) startTimer(sourceID string, spec timerSpec) {
	next, ok := spec.schedule()
	if !ok {
		e.log.Warn("timer prop has no valid schedule", "source", sourceID)
		return
	}
	t := &timer{}
	e.mu.Lock()
	if old := e.timers[sourceID]; old != nil {
		old.stop()
	}
	e.timers[sourceID] = t
	e.mu.Unlock()

	now := time.Now()
	first := next(now)
	if last, err := e.cfg.Queues.TimerLastFire(e.ctx, sourceID); err == nil && last > 0 {
		if due := next(time.UnixMilli(last)); due.Before(now) {
			first = now // a catch-up fire for what was missed while down
		} else {
			first = due
		}
	}
	var arm func(at time.Time)
	arm = func(at time.Time) {
		t.mu.Lock()
		defer t.mu.Unlock()
		if t.stopped {
			return
		}
		t.t = time.AfterFunc(time.Until(at), func() {
			fired := time.Now()
			e.fireTimer(sourceID, spec, fired)
			arm(next(fired))
		})
	}
	arm(first)
}

// fireTimer queues a timer run: event {timestamp, interval_seconds}.
func (e *Engine) fireTimer(sourceID string, spec timerSpec, at time.Time) {
	ctx := e.ctx
	if ctx == nil || ctx.Err() != nil {
		return
	}
	ev := map[string]any{"timestamp": at.Unix(), "interval_seconds": nil}
	if spec.IntervalSeconds != nil {
		ev["interval_seconds"] = *spec.IntervalSeconds
	}
	event, _ := json.Marshal(ev)
	if _, err := e.cfg.Queues.EnqueueInvocation(ctx, store.Invocation{SourceID: sourceID, Kind: kindTimer, Event: event}); err != nil {
		e.log.Error("enqueue timer run", "source", sourceID, "err", err)
		return
	}
	if err := e.cfg.Queues.SetTimerLastFire(ctx, sourceID, at.UnixMilli()); err != nil {
		e.log.Error("record timer fire", "source", sourceID, "err", err)
	}
	e.sch.kick(sourceID)
}

// RunNow queues a manual run of a source with event (null when empty).
func (e *Engine) RunNow(ctx context.Context, sourceID string, event json.RawMessage) error {
	if len(event) == 0 {
		event = json.RawMessage("{}")
	}
	if _, err := e.cfg.Queues.EnqueueInvocation(ctx, store.Invocation{SourceID: sourceID, Kind: kindManual, Event: event}); err != nil {
		return err
	}
	e.sch.kick(sourceID)
	return nil
}
