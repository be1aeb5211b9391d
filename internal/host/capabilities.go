package host

import (
	"context"
	"time"

	"github.com/fount-dev/fount/internal/sandbox"
)

// invocation is the state of one call into the guest, reached by the host
// functions through the context.
type invocation struct {
	caps     sandbox.Capabilities
	limits   sandbox.Limits
	deadline time.Time

	emitted   int64
	logged    int64
	dbWritten int64
	fetches   int // fetch requests so far, against abi.MaxFetches
	// unstoppable is the time spent so far in crypto ops that nothing
	// stops once begun, against maxUnstoppable.
	unstoppable time.Duration
	sockets     *sockets // the call's sockets, from its first net op
	timedOut    bool     // a host function refused to wait past the deadline
	truncated   bool
	responded   bool
	pending     []byte // reply waiting for FuncTake
	hasReply    bool
}

type invocationKey struct{}

func withInvocation(ctx context.Context, inv *invocation) context.Context {
	return context.WithValue(ctx, invocationKey{}, inv)
}

func invocationFrom(ctx context.Context) *invocation {
	inv, _ := ctx.Value(invocationKey{}).(*invocation)
	return inv
}

// pastDeadline reports whether the invocation must stop: its context is done
// or its deadline has passed.
func (inv *invocation) pastDeadline(ctx context.Context) bool {
	return inv.timedOut || ctx.Err() != nil || (!inv.deadline.IsZero() && !time.Now().Before(inv.deadline))
}

// closeSockets closes the call's sockets, if it opened any, and waits
// for their goroutines.
func (inv *invocation) closeSockets() {
	if inv.sockets != nil {
		inv.sockets.closeAll()
	}
}
