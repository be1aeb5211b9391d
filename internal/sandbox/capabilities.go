package sandbox

import (
	"context"
	"encoding/json"
	"net"
	"net/netip"
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
	// Stores are the data stores the invocation's data_store props name.
	Stores DataStores
}

// DataStores performs a data store prop's operations. A refusal the
// component should see (a limit, a prop that names no store) is the
// reply's Error; an error is the host's failure.
type DataStores interface {
	Do(ctx context.Context, req abi.StoreRequest) (abi.StoreReply, error)
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

// Egress performs a component's outbound fetch. Granting an Egress is what
// turns fetch on; without one fetch is denied. The server grants an
// *egress.Policy; an error wrapping egress.ErrDenied or egress.ErrTooBig
// reaches the guest as a denial or an over-the-limit error.
type Egress interface {
	Fetch(ctx context.Context, req abi.FetchRequest) (abi.FetchResponse, error)
}

// Sockets opens a component's TCP connections and answers its DNS
// questions, under the same policy as its fetch. An Egress that is also a
// Sockets turns on node:net, node:tls and node:dns; one that is not
// leaves them denied. The server's egress is both.
type Sockets interface {
	// Dial connects to host:port, checking the address actually dialled.
	Dial(ctx context.Context, host string, port int) (net.Conn, error)
	// Lookup resolves host to the addresses a socket may reach; an error
	// when there is none.
	Lookup(ctx context.Context, host string) ([]netip.Addr, error)
	// Resolve asks DNS for host's records of one of abi.DNSRecordTypes,
	// shaped as Node's dns.resolve* gives them.
	Resolve(ctx context.Context, host, rrtype string) (any, error)
}

// Func adapters, so that callers can pass closures.
type (
	EmitFunc    func(ctx context.Context, e abi.Emit) error
	RespondFunc func(ctx context.Context, r abi.Response) error
	LogFunc     func(ctx context.Context, e LogEntry) error
	EgressFunc  func(ctx context.Context, req abi.FetchRequest) (abi.FetchResponse, error)
)

func (f EgressFunc) Fetch(ctx context.Context, req abi.FetchRequest) (abi.FetchResponse, error) {
	return f(ctx, req)
}

func (f EmitFunc) Emit(ctx context.Context, e abi.Emit) error           { return f(ctx, e) }
func (f RespondFunc) Respond(ctx context.Context, r abi.Response) error { return f(ctx, r) }
func (f LogFunc) Log(ctx context.Context, e LogEntry) error             { return f(ctx, e) }
