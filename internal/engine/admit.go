package engine

import (
	"cmp"
	"context"
	"time"

	"github.com/fount-dev/fount/internal/engine/admission"
	"github.com/fount-dev/fount/internal/sandbox"
)

// DefaultSandboxes are the bounds of the sandboxes accounts hold at once
// (Config.Sandboxes): 16 instances and 1 GiB of their memory limits per
// account (sixteen of the default 64 MiB), 4 GiB on the server.
var DefaultSandboxes = admission.Config{AccountSandboxes: 16, AccountBytes: 1 << 30, ServerBytes: 4 << 30}

// reserveSandbox waits until account may hold one more sandbox for target, for a
// call of limits, and returns its release. The wait lasts the call's own
// time limit at most (or until deadline, when that is sooner); a call
// that found no place fails with the admission's words, as if it had
// run and failed.
func (e *Engine) reserveSandbox(ctx context.Context, account, target string, limits sandbox.Limits, deadline time.Time) (func(), error) {
	wait := cmp.Or(limits.Timeout, e.cfg.Limits.Timeout, 30*time.Second)
	now := e.clock.Now()
	until := now.Add(wait)
	if !deadline.IsZero() && deadline.Before(until) {
		until = deadline
	}
	ctx, cancel := context.WithTimeout(ctx, until.Sub(now))
	defer cancel()
	return e.admission.Acquire(ctx, account, target, cmp.Or(limits.Memory, e.cfg.SandboxMemory))
}

// Sandboxes are the sandboxes calls hold now, their memory limits, and
// the calls waiting for one (package admission), for metrics.
func (e *Engine) Sandboxes() (held int, bytes int64, waiting int) {
	return e.admission.Stats()
}

// invokeReserved runs req in box once account may hold one more sandbox.
func (e *Engine) invokeReserved(ctx context.Context, account, target string, box sandbox.Source, req sandbox.Request, caps sandbox.Capabilities) (*sandbox.Outcome, error) {
	release, err := e.reserveSandbox(ctx, account, target, req.Limits, time.Time{})
	if err != nil {
		return nil, err
	}
	defer release()
	return box.Invoke(ctx, req, caps)
}
