package host

import (
	"context"
	"encoding/json"
	"time"

	"github.com/fount-dev/fount/abi"
)

// Capabilities are what one invocation may reach outside the sandbox. A nil
// field means the capability is not granted: the guest gets ErrDenied (or,
// for Log, its output is dropped).
type Capabilities struct {
	Emit    EmitSink
	DB      KV
	Auth    AuthProvider
	Respond RespondSink
	Log     LogSink
	Egress  Egress
}

// EmitSink receives each emit of an invocation, already decoded and
// validated. The engine buffers them and commits them after the run.
type EmitSink interface {
	Emit(ctx context.Context, e abi.Emit) error
}

// KV is a source's db ($.service.db). Values are JSON text.
type KV interface {
	// Get returns the value and true, or false when the key has no value.
	Get(ctx context.Context, key string) ([]byte, bool, error)
	Set(ctx context.Context, key string, value []byte) error
}

// AuthProvider gives an app prop's $auth object, as JSON.
type AuthProvider interface {
	Auth(ctx context.Context, propName string) (json.RawMessage, error)
}

// RespondSink receives the HTTP response of a customResponse source or an
// action's $.respond. It is called at most once per invocation.
type RespondSink interface {
	Respond(ctx context.Context, r abi.Response) error
}

// LogEntry is one console line of the guest.
type LogEntry struct {
	Time  time.Time
	Level string // debug, info, warn, error
	Text  string
}

// LogSink receives console output. It must not block for long.
type LogSink interface {
	Log(ctx context.Context, e LogEntry) error
}

// Func adapters, so that callers can pass closures.
type (
	EmitFunc    func(ctx context.Context, e abi.Emit) error
	RespondFunc func(ctx context.Context, r abi.Response) error
	LogFunc     func(ctx context.Context, e LogEntry) error
)

func (f EmitFunc) Emit(ctx context.Context, e abi.Emit) error           { return f(ctx, e) }
func (f RespondFunc) Respond(ctx context.Context, r abi.Response) error { return f(ctx, r) }
func (f LogFunc) Log(ctx context.Context, e LogEntry) error             { return f(ctx, e) }

// invocation is the state of one call into the guest, reached by the host
// functions through the context.
type invocation struct {
	caps     Capabilities
	limits   Limits
	deadline time.Time

	emitted   int64
	logged    int64
	dbWritten int64
	timedOut  bool // a host function refused to wait past the deadline
	truncated bool
	responded bool
	pending   []byte // reply waiting for FuncTake
	hasReply  bool
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
