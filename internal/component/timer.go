package component

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"time"
	_ "time/tzdata" // the zones of timers, wherever the package runs

	"github.com/robfig/cron/v3"
)

// TimerSpec is a timer prop's configured value, in the specification's
// shape: {"cron": <expression or null>, "interval_seconds": <n or null>},
// and with a cron expression, optionally, the "timezone" it is read in.
// Exactly one of cron and interval is set in a valid spec.
type TimerSpec struct {
	Cron            *string `json:"cron"`
	IntervalSeconds *int64  `json:"interval_seconds"`
	// Timezone is the IANA zone a cron expression is read in (as
	// Pipedream's schedule trigger takes it); empty: the server's zone.
	Timezone string `json:"timezone,omitempty"`
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

// every is an interval's schedule: the ticks anchor + k·period for every
// integer k. Ticks are named by the anchor, not by when a timer was armed,
// so that every node of a cluster, and every restart, names them alike.
type every struct {
	anchor time.Time
	period time.Duration
}

func (e every) Next(t time.Time) time.Time {
	since := t.Sub(e.anchor)
	k := since / e.period // rounded toward zero: floor it for t before the anchor
	if since < 0 && since%e.period != 0 {
		k--
	}
	return e.anchor.Add((k + 1) * e.period)
}

// zoned reads a schedule's fields in a zone: 0 9 * * * is nine o'clock
// there, summer and winter.
type zoned struct {
	Schedule
	loc *time.Location
}

func (z zoned) Next(t time.Time) time.Time { return z.Schedule.Next(t.In(z.loc)) }

// ErrNoSchedule is returned by TimerSpec.Schedule for a spec with neither
// a valid cron expression nor a positive interval.
var ErrNoSchedule = errors.New("component: the timer has no valid schedule")

// Schedule returns the spec's schedule. An interval's ticks are whole
// intervals from anchor (the Unix epoch when zero): the engine anchors a
// timer at its record's last update, so that a timer first fires one
// interval after it was deployed or changed. A cron expression names its
// own ticks.
func (s TimerSpec) Schedule(anchor time.Time) (Schedule, error) {
	switch {
	case s.Cron != nil && *s.Cron != "":
		sched, err := cronParser.Parse(*s.Cron)
		if err != nil {
			return nil, fmt.Errorf("%w: cron %q: %v", ErrNoSchedule, *s.Cron, err)
		}
		if s.Timezone == "" {
			return sched, nil
		}
		loc, err := loadZone(s.Timezone)
		if err != nil {
			return nil, fmt.Errorf("%w: %v", ErrNoSchedule, err)
		}
		return zoned{sched, loc}, nil
	case s.IntervalSeconds != nil && *s.IntervalSeconds > 0:
		if anchor.IsZero() {
			anchor = time.Unix(0, 0)
		}
		return every{anchor: anchor, period: time.Duration(*s.IntervalSeconds) * time.Second}, nil
	}
	return nil, ErrNoSchedule
}

// loadZone returns the zone named name. "Local" names the server's own
// zone, which a component cannot know, so it is refused as unknown.
func loadZone(name string) (*time.Location, error) {
	if name == "Local" {
		return nil, fmt.Errorf("unknown time zone %s", name)
	}
	return time.LoadLocation(name)
}

// Event returns the run event of the tick due at due: {timestamp,
// interval_seconds}. The timestamp is the tick's, not the moment it ran: a
// late or catch-up run says which tick it is for.
func (s TimerSpec) Event(due time.Time) json.RawMessage {
	ev := map[string]any{"timestamp": due.Unix(), "interval_seconds": s.IntervalSeconds}
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
		Timezone         string   `json:"timezone"`
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
		if in.Timezone != "" {
			if _, err := loadZone(in.Timezone); err != nil {
				return TimerSpec{}, propErr(p, "has an unknown timezone %.64q; use an IANA name such as Europe/Paris or UTC", in.Timezone)
			}
		}
		return TimerSpec{Cron: in.Cron, Timezone: in.Timezone}, nil
	case in.IntervalSeconds != nil:
		if in.Timezone != "" {
			return TimerSpec{}, propErr(p, "has a timezone, which only a cron expression takes: an interval is the same in every zone")
		}
		v := *in.IntervalSeconds
		if v != math.Trunc(v) || v < 1 || v > MaxIntervalSeconds {
			return TimerSpec{}, propErr(p, "needs intervalSeconds to be a whole number of seconds from 1 to one year")
		}
		n := int64(v)
		return TimerSpec{IntervalSeconds: &n}, nil
	}
	return TimerSpec{}, propErr(p, "needs intervalSeconds or cron (in its configured value or its default)")
}
