package component

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"time"

	"github.com/robfig/cron/v3"
)

// TimerSpec is a timer prop's configured value, in the specification's
// shape: {"cron": <expression or null>, "interval_seconds": <n or null>}.
// Exactly one is set in a valid spec.
type TimerSpec struct {
	Cron            *string `json:"cron"`
	IntervalSeconds *int64  `json:"interval_seconds"`
}

// MaxIntervalSeconds is the longest interval: a year.
const MaxIntervalSeconds = 366 * 24 * 3600

var cronParser = cron.NewParser(cron.SecondOptional | cron.Minute | cron.Hour | cron.Dom | cron.Month | cron.Dow | cron.Descriptor)

// ParseCron checks a cron expression: 5 fields (minute hour day month
// weekday), 6 with seconds first, or a descriptor such as @hourly.
func ParseCron(expr string) error {
	_, err := cronParser.Parse(expr)
	return err
}

// Schedule says when a timer fires next.
type Schedule interface {
	// Next returns the first time the timer fires strictly after t.
	Next(t time.Time) time.Time
}

type every time.Duration

func (d every) Next(t time.Time) time.Time { return t.Add(time.Duration(d)) }

// ErrNoSchedule is returned by TimerSpec.Schedule for a spec with neither
// a valid cron expression nor a positive interval.
var ErrNoSchedule = errors.New("component: the timer has no valid schedule")

// Schedule returns the spec's schedule.
func (s TimerSpec) Schedule() (Schedule, error) {
	switch {
	case s.Cron != nil && *s.Cron != "":
		sched, err := cronParser.Parse(*s.Cron)
		if err != nil {
			return nil, fmt.Errorf("%w: cron %q: %v", ErrNoSchedule, *s.Cron, err)
		}
		return sched, nil
	case s.IntervalSeconds != nil && *s.IntervalSeconds > 0:
		return every(time.Duration(*s.IntervalSeconds) * time.Second), nil
	}
	return nil, ErrNoSchedule
}

// Event returns the run event of a fire at t: {timestamp, interval_seconds}.
func (s TimerSpec) Event(t time.Time) json.RawMessage {
	ev := map[string]any{"timestamp": t.Unix(), "interval_seconds": s.IntervalSeconds}
	b, _ := json.Marshal(ev)
	return b
}

// CheckTimer turns a timer prop's configured value (or, when raw is empty,
// its default) into a TimerSpec. Both the specification's default shape
// ({intervalSeconds} or {cron}) and the stored shape ({interval_seconds,
// cron}) are accepted.
func CheckTimer(p Prop, raw json.RawMessage) (TimerSpec, error) {
	if len(raw) == 0 || isNull(raw) {
		raw = p.Default
	}
	var in struct {
		IntervalSeconds  *float64 `json:"intervalSeconds"`
		IntervalSeconds2 *float64 `json:"interval_seconds"`
		Cron             *string  `json:"cron"`
	}
	if len(raw) > 0 && !isNull(raw) {
		if err := json.Unmarshal(raw, &in); err != nil {
			return TimerSpec{}, propErr(p, "must be an object with intervalSeconds or cron")
		}
	}
	if in.IntervalSeconds == nil {
		in.IntervalSeconds = in.IntervalSeconds2
	}
	switch {
	case in.Cron != nil && *in.Cron != "":
		if err := ParseCron(*in.Cron); err != nil {
			return TimerSpec{}, propErr(p, "has an invalid cron expression (%v); use 5 fields (minute hour day month weekday), 6 with seconds first, or a descriptor such as @hourly", err)
		}
		return TimerSpec{Cron: in.Cron}, nil
	case in.IntervalSeconds != nil:
		v := *in.IntervalSeconds
		if v != math.Trunc(v) || v < 1 || v > MaxIntervalSeconds {
			return TimerSpec{}, propErr(p, "needs intervalSeconds to be a whole number of seconds from 1 to one year")
		}
		n := int64(v)
		return TimerSpec{IntervalSeconds: &n}, nil
	}
	return TimerSpec{}, propErr(p, "needs intervalSeconds or cron (in its configured value or its default)")
}
