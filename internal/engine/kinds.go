package engine

import (
	"github.com/fount-dev/fount/internal/engine/emit"
	"github.com/fount-dev/fount/internal/model"
)

// DefaultMaxChannels is how many channels a source may have besides the
// default one, $errors and $logs, unless Config.MaxChannels says.
const DefaultMaxChannels = emit.DefaultMaxChannels

// Kinds of invocation (model.Invocation.Kind), and of the hooks' runs.
const (
	kindTimer   = model.InvocationTimer
	kindManual  = model.InvocationManual
	kindRelease = model.InvocationRelease
	kindResume  = model.InvocationResume
	// kindHook and the hook's name are the kind of a hook's run, which is
	// never queued: it names the trigger of the hook's $errors event.
	kindHook model.InvocationKind = "hook:"
)

// hookKind is the kind of a run of the hook named hook.
func hookKind(hook string) model.InvocationKind { return kindHook + model.InvocationKind(hook) }
