package abi

import (
	"encoding/json"
	"fmt"
	"strings"
)

// Operations of a Call.
const (
	OpLoad            = "load"            // load the component and build `this`; done once per instance, before the snapshot
	OpIntrospect      = "introspect"      // return the component's metadata without building `this`
	OpRun             = "run"             // call run(event) (sources) or run({ $ }) (actions)
	OpHook            = "hook"            // call hooks.<Hook>()
	OpOptions         = "options"         // call props.<Prop>.options({page, prevContext})
	OpAdditionalProps = "additionalProps" // call additionalProps()
)

// Call is the host's request to ExportCall. The host builds it; the guest
// treats it as trusted input.
type Call struct {
	Op string `json:"op"`

	// OpLoad and OpIntrospect.
	Code     string            `json:"code,omitempty"`
	Filename string            `json:"filename,omitempty"` // the entry's module name, e.g. "component.mjs"
	Format   string            `json:"format,omitempty"`   // "esm" or "cjs"; the guest guesses when empty
	Modules  map[string]string `json:"modules,omitempty"`  // further bundled modules by specifier
	Props    json.RawMessage   `json:"props,omitempty"`    // configured props, an object keyed by prop name
	Env      map[string]string `json:"env,omitempty"`      // process.env seen by the component
	// Web is the source of the web globals (guest.Web), sent with code
	// that names one of them; the prelude evaluates it before the code.
	Web string `json:"web,omitempty"`
	// Intl is the source of the Intl global (guest.Intl), sent with code
	// that names Intl; the prelude evaluates it before the code.
	Intl string `json:"intl,omitempty"`
	// Step loads the component as a workflow step: name and version are
	// optional, a source is refused, and run gets ({ steps, $ }) with
	// the event's templates evaluated into its props.
	Step bool `json:"step,omitempty"`

	// OpRun.
	Event json.RawMessage `json:"event,omitempty"`

	// OpHook.
	Hook string `json:"hook,omitempty"`

	// OpOptions.
	Prop        string `json:"prop,omitempty"`
	Page        int    `json:"page,omitempty"`
	PrevContext string `json:"prevContext,omitempty"`

	// Every op: the JS heap limit in bytes for this call (0 keeps the
	// current one).
	MemoryLimit int64 `json:"memory_limit,omitempty"`
}

// Result is the guest's answer to a Call. It comes from guest memory, so it
// is decoded strictly like every other guest message.
type Result struct {
	OK      bool                       `json:"ok"`
	Value   json.RawMessage            `json:"value,omitempty"`
	Exports map[string]json.RawMessage `json:"exports,omitempty"` // action $.export(name, value)
	Exit    *string                    `json:"exit,omitempty"`    // action $.flow.exit(reason)
	Error   *GuestError                `json:"error,omitempty"`
	// Uncatchable is set by the C shim when an error escaped the prelude:
	// an interrupt or an exception inside the runtime itself.
	Uncatchable bool `json:"uncatchable,omitempty"`
	// Dropped counts timers still pending when the run settled; they are
	// discarded with the invocation.
	Dropped int `json:"dropped,omitempty"`
	// Sends are a workflow step's $.send.http and $.send.sse requests,
	// which the engine carries out after the step.
	Sends []Send `json:"sends,omitempty"`
	// Flow is a workflow step's $.flow.delay, $.flow.suspend or
	// $.flow.rerun: the execution pauses after the step.
	Flow *Flow `json:"flow,omitempty"`
	// Unsettled is set when the call's promise never settled; work it
	// left pending could otherwise run in a later call, so the host
	// discards the instance.
	Unsettled bool `json:"unsettled,omitempty"`
}

// GuestError is a JavaScript error as the guest reports it.
type GuestError struct {
	Name    string `json:"name"`
	Message string `json:"message"`
	Stack   string `json:"stack,omitempty"`
	// Code is the thrown error's own code property, when it has one (a
	// string or a number, as Node's system errors and many libraries
	// set it).
	Code string `json:"code,omitempty"`
	// Line and Column locate a syntax error in the component's code, when
	// known (1-based; 0 when unknown).
	Line   int `json:"line,omitempty"`
	Column int `json:"column,omitempty"`
}

func (e *GuestError) Error() string {
	if e.Line > 0 && e.Column > 0 {
		return fmt.Sprintf("%s: %s (line %d, column %d)", e.Name, e.Message, e.Line, e.Column)
	}
	if e.Line > 0 {
		return fmt.Sprintf("%s: %s (line %d)", e.Name, e.Message, e.Line)
	}
	return e.Name + ": " + e.Message
}

// settledWithNothing is the result of most runs, which the prelude writes
// without JSON.stringify and DecodeResult reads without a decoder.
const settledWithNothing = `{"ok":true}`

// DecodeResult decodes and validates a Result.
func DecodeResult(b []byte) (Result, error) {
	var r Result
	if string(b) == settledWithNothing {
		r.OK = true
		return r, nil
	}
	if len(b) > MaxResultBytes {
		return r, fmt.Errorf("%w: result of %d bytes is over the %d byte limit", ErrDecode, len(b), MaxResultBytes)
	}
	if err := decodeStrictMax(b, &r, MaxResultBytes); err != nil {
		return r, err
	}
	if !r.OK && r.Error == nil {
		return r, fmt.Errorf("%w: a failed result carries no error", ErrDecode)
	}
	if len(r.Sends) > MaxSends {
		return r, fmt.Errorf("%w: %d sends, more than %d", ErrDecode, len(r.Sends), MaxSends)
	}
	for i, s := range r.Sends {
		if err := s.validate(); err != nil {
			return r, fmt.Errorf("send %d: %w", i, err)
		}
	}
	if r.Flow != nil {
		if err := r.Flow.validate(); err != nil {
			return r, fmt.Errorf("flow: %w", err)
		}
	}
	return r, nil
}

// Kinds of a Flow.
const (
	FlowDelay   = "delay"   // $.flow.delay(ms): the next step runs after ms
	FlowSuspend = "suspend" // $.flow.suspend(timeout): the next step runs on the resume URL
	FlowRerun   = "rerun"   // $.flow.rerun(delay, context, max): the same step runs again
)

// Bounds of a Flow.
const (
	MaxFlowMs     = 366 * 24 * 3600 * 1000 // a year, and a day to spare
	MaxFlowReruns = 10_000
	// FlowSecretLen is the length of a flow's secret: 32 base64url
	// characters (24 bytes of the host's randomness, as
	// crypto.getRandomValues draws them).
	FlowSecretLen = 32
)

// Flow pauses a workflow's execution after the step that asked for it.
type Flow struct {
	Kind string `json:"kind"`
	// Ms is the delay, the suspend's timeout, or the delay before the
	// rerun.
	Ms int64 `json:"ms"`
	// Secret is the last path segment of the execution's resume and
	// cancel URLs, which the step was given before it paused. The host
	// keeps only its hash.
	Secret string `json:"secret"`
	// A rerun's context (the step's $.context.run.context when it runs
	// again) and its most reruns.
	Context   json.RawMessage `json:"context,omitempty"`
	MaxReruns int             `json:"max_reruns,omitempty"`
}

func (f *Flow) validate() error {
	switch f.Kind {
	case FlowDelay, FlowSuspend, FlowRerun:
	default:
		return fmt.Errorf("%w: unknown kind %q", ErrDecode, f.Kind)
	}
	if f.Ms < 0 || f.Ms > MaxFlowMs {
		return fmt.Errorf("%w: %d ms is outside 0 to %d", ErrDecode, f.Ms, MaxFlowMs)
	}
	if len(f.Secret) != FlowSecretLen || !base64URL(f.Secret) {
		return fmt.Errorf("%w: the secret is not %d base64url characters", ErrDecode, FlowSecretLen)
	}
	if f.MaxReruns < 0 || f.MaxReruns > MaxFlowReruns {
		return fmt.Errorf("%w: max_reruns %d is outside 0 to %d", ErrDecode, f.MaxReruns, MaxFlowReruns)
	}
	if f.Kind != FlowRerun && (len(f.Context) > 0 || f.MaxReruns != 0) {
		return fmt.Errorf("%w: only a rerun has a context and max_reruns", ErrDecode)
	}
	return nil
}

// base64URL reports whether s holds base64url characters only.
func base64URL(s string) bool {
	for _, c := range []byte(s) {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-' || c == '_') {
			return false
		}
	}
	return true
}

// Kinds of a Send.
const (
	SendHTTP = "http" // $.send.http: a durable, retried HTTP request
	SendSSE  = "sse"  // $.send.sse: a message on the workflow's live stream
	SendS3   = "s3"   // $.send.s3: an object in the operator's bucket
)

// MaxS3Prefix bounds a $.send.s3 prefix.
const MaxS3Prefix = 512

// Send is one $.send.http, $.send.sse or $.send.s3 request of a workflow
// step.
type Send struct {
	Kind string `json:"kind"`
	// SendHTTP.
	URL     string            `json:"url,omitempty"`
	Method  string            `json:"method,omitempty"`
	Headers map[string]string `json:"headers,omitempty"`
	Body    string            `json:"body,omitempty"`
	// SendSSE (and SendS3's Payload).
	Channel string          `json:"channel,omitempty"`
	Payload json.RawMessage `json:"payload,omitempty"`
	// SendS3: the bucket the step names (it must be the operator's) and
	// the prefix of the object's key.
	Bucket string `json:"bucket,omitempty"`
	Prefix string `json:"prefix,omitempty"`
}

func (s Send) validate() error {
	switch s.Kind {
	case SendHTTP:
		if s.URL == "" {
			return fmt.Errorf("%w: an http send needs a url", ErrDecode)
		}
		if !validToken(s.Method) {
			return fmt.Errorf("%w: http send method %q is not valid", ErrDecode, s.Method)
		}
		return validateHeaders(s.Headers)
	case SendSSE:
		if len(s.Channel) > MaxEmitName {
			return fmt.Errorf("%w: sse channel is longer than %d bytes", ErrDecode, MaxEmitName)
		}
		return nil
	case SendS3:
		return ValidS3Prefix(s.Prefix)
	default:
		return fmt.Errorf("%w: unknown send kind %q", ErrDecode, s.Kind)
	}
}

// ValidS3Prefix checks a $.send.s3 prefix: at most MaxS3Prefix bytes of
// letters, digits and "-_./!()*'", with no empty, "." or ".." segment
// (so that every S3-compatible server stores the key as it is given).
func ValidS3Prefix(prefix string) error {
	if len(prefix) > MaxS3Prefix {
		return fmt.Errorf("%w: the s3 prefix is longer than %d bytes", ErrDecode, MaxS3Prefix)
	}
	for i := 0; i < len(prefix); i++ {
		c := prefix[i]
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || strings.IndexByte("-_./!()*'", c) >= 0) {
			return fmt.Errorf("%w: the s3 prefix has %q; it may hold letters, digits and -_./!()*'", ErrDecode, c)
		}
	}
	segments := strings.Split(prefix, "/")
	for i, seg := range segments {
		last := i == len(segments)-1
		if (seg == "" && !last && prefix != "") || seg == "." || seg == ".." {
			return fmt.Errorf("%w: the s3 prefix %q has an empty, . or .. segment", ErrDecode, prefix)
		}
	}
	return nil
}
