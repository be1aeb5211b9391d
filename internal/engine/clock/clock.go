// Package clock is the engine's source of time, in the manner of
// tailscale's tstime: every timer, ticker and timestamp of the engine and
// its parts comes from a Clock, so that tests advance time (Fake) instead
// of sleeping.
package clock

import "time"

// Clock is a source of time.
type Clock interface {
	Now() time.Time
	// AfterFunc calls f in its own goroutine after d.
	AfterFunc(d time.Duration, f func()) Timer
	// NewTicker delivers the time on its channel every d.
	NewTicker(d time.Duration) Ticker
}

// Timer is a pending AfterFunc.
type Timer interface {
	// Stop prevents the call if it has not started; it reports whether
	// it did.
	Stop() bool
}

// Ticker is a running NewTicker.
type Ticker interface {
	C() <-chan time.Time
	Stop()
}

// System is the real clock.
func System() Clock { return systemClock{} }

type systemClock struct{}

func (systemClock) Now() time.Time { return time.Now() }

func (systemClock) AfterFunc(d time.Duration, f func()) Timer { return time.AfterFunc(d, f) }

func (systemClock) NewTicker(d time.Duration) Ticker { return systemTicker{time.NewTicker(d)} }

type systemTicker struct{ t *time.Ticker }

func (t systemTicker) C() <-chan time.Time { return t.t.C }
func (t systemTicker) Stop()               { t.t.Stop() }
