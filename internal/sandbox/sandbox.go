// Package sandbox is the contract between the engine and the code that
// runs components: what a loaded source is asked to do (Request), what it
// may reach outside the sandbox for one invocation (Capabilities), what it
// gives back (Outcome) and how it fails (ScriptError and the sentinel
// errors). Package host implements it with QuickJS under wazero; the
// engine depends only on this package, so that its tests can give it a
// fake and so that nothing above the engine imports wazero.
package sandbox

import (
	"context"
	"encoding/json"
	"time"

	"github.com/fount-dev/fount/abi"
	"github.com/fount-dev/fount/internal/component"
)

// Sandbox loads components.
type Sandbox interface {
	// Load loads spec's component with its configured props and returns
	// the loaded source. Component code that fails to load gives a
	// *ScriptError (or ErrTimeout, ErrOutOfMemory).
	Load(ctx context.Context, spec Spec) (Source, error)
	// Introspect describes component code without deploying it.
	Introspect(ctx context.Context, code, filename string, modules map[string]string) (*component.Metadata, error)
}

// Source is one loaded component. It is safe for concurrent use.
type Source interface {
	// Invoke performs req. A *ScriptError means the component threw.
	Invoke(ctx context.Context, req Request, caps Capabilities) (*Outcome, error)
	// Metadata describes the loaded component.
	Metadata() *component.Metadata
	// Close releases the source; later invocations fail with ErrClosed.
	Close(ctx context.Context)
}

// Spec is the code and configuration of one deployed source.
type Spec struct {
	// ID is the source's id (dc_...). The component sees it as
	// process.env.PD_COMPONENT.
	ID string
	// Code is the entry module: ESM (export default) or CommonJS
	// (module.exports).
	Code string
	// Filename names the entry module in stacks and relative imports.
	// Default "component.mjs".
	Filename string
	// Modules are further modules bundled with the component, by
	// specifier ("./lib.mjs"). Nothing else can be imported.
	Modules map[string]string
	// Props are the configured props, a JSON object keyed by prop name,
	// secrets in clear.
	Props json.RawMessage
	// Step loads the component as a workflow step (see abi.Call.Step).
	Step bool
	// Format is the entry's module format, as introspection found it
	// (component.Metadata.Format); empty makes the sandbox parse the code
	// to find out.
	Format string
}

// Request is one operation on a source.
type Request struct {
	Op          string          // abi.OpRun, abi.OpHook, abi.OpOptions or abi.OpAdditionalProps
	Event       json.RawMessage // OpRun: the triggering event
	Hook        string          // OpHook: component.HookDeploy, HookActivate or HookDeactivate
	Prop        string          // OpOptions: the prop whose options to list
	Page        int             // OpOptions
	PrevContext string          // OpOptions
	Limits      Limits          // zero fields take the sandbox's defaults
}

// Outcome is what a successful invocation returned.
type Outcome struct {
	Value         json.RawMessage            // the JSON return value, if any
	Exports       map[string]json.RawMessage // action $.export(name, value)
	Exit          *string                    // action $.flow.exit(reason)
	Sends         []abi.Send                 // a workflow step's $.send.http and $.send.sse
	Flow          *abi.Flow                  // a workflow step's $.flow.delay, suspend or rerun
	DroppedTimers int                        // timers still pending when the call settled
	Duration      time.Duration              // wall-clock time inside the guest
}

// Limits bound one invocation. A zero field means "use the default".
type Limits struct {
	// Memory is the JavaScript heap limit in bytes.
	Memory int64
	// Timeout is the wall-clock budget of the invocation, timers included.
	Timeout time.Duration
	// EmitBytes caps the total size of the events emitted by one invocation.
	EmitBytes int64
	// LogBytes caps the console output kept from one invocation; output past
	// it is dropped and a truncation notice is logged once.
	LogBytes int64
	// RespondBytes caps the body of an HTTP response.
	RespondBytes int64
	// DBBytes caps the bytes of keys and values one invocation may write
	// to its db.
	DBBytes int64
}

// WithDefaults fills the zero fields of l from def.
func (l Limits) WithDefaults(def Limits) Limits {
	if l.Memory <= 0 {
		l.Memory = def.Memory
	}
	if l.Timeout <= 0 {
		l.Timeout = def.Timeout
	}
	if l.EmitBytes <= 0 {
		l.EmitBytes = def.EmitBytes
	}
	if l.LogBytes <= 0 {
		l.LogBytes = def.LogBytes
	}
	if l.RespondBytes <= 0 {
		l.RespondBytes = def.RespondBytes
	}
	if l.DBBytes <= 0 {
		l.DBBytes = def.DBBytes
	}
	return l
}
