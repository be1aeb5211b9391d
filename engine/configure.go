package engine

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"

	"github.com/fount-dev/fount/abi"
	"github.com/fount-dev/fount/component"
	"github.com/fount-dev/fount/sandbox"
	"github.com/fount-dev/fount/store"
)

// ConfigureRequest asks a saved component, before it is deployed, for
// what a form of its props needs: a prop's options from its async
// options method, or the props its additionalProps method adds. The
// component runs with the props configured so far, its app props'
// $auth, fetch through the egress policy, and a db that lives for the
// call. Nothing is stored; emits are refused.
type ConfigureRequest struct {
	UserID    string // whose quota the call counts against
	OwnerID   string // whose connected accounts app props may use
	Component store.Component
	// Props are the values configured so far, in clear; props that the
	// component does not declare (yet) are passed along, so that
	// additionalProps sees what its earlier answer added.
	Props map[string]json.RawMessage
}

// OptionsPage is one page of a prop's options, as the method returned
// them: an array of values or {label, value} objects, or an object with
// options and a context for the next page.
type OptionsPage struct {
	Options json.RawMessage
	Context json.RawMessage // the method's context for the next page; nil when none
}

// ConfigureError is a component's options or additionalProps method that
// threw, timed out or ran out of memory.
type ConfigureError struct {
	Method string // e.g. "props.repo.options()"
	Name   string
	Msg    string
}

func (e *ConfigureError) Error() string {
	return fmt.Sprintf("the component's %s failed: %s: %s", e.Method, e.Name, e.Msg)
}

// PropOptions calls the options method of the component's prop (static
// options are returned as they are) with page and prevContext.
func (e *Engine) PropOptions(ctx context.Context, req ConfigureRequest, prop string, page int, prevContext string) (OptionsPage, error) {
	p, ok := req.Component.Metadata.Prop(prop)
	if !ok {
		return OptionsPage{}, &component.PropError{Prop: prop, Reason: "is not a prop of this component"}
	}
	if len(p.Options) > 0 && !p.RemoteOptions {
		return OptionsPage{Options: p.Options}, nil
	}
	if !p.RemoteOptions {
		return OptionsPage{}, &component.PropError{Prop: prop, Reason: "has no options"}
	}
	var out OptionsPage
	err := e.configureCall(ctx, req, sandbox.Request{Op: abi.OpOptions, Prop: prop, Page: page, PrevContext: prevContext},
		"props."+prop+".options()", func(v json.RawMessage) error {
			out = optionsPage(v)
			return nil
		})
	return out, err
}

// optionsPage reads what an options method returned: an array, or
// {options, context}. Anything else is no options.
func optionsPage(v json.RawMessage) OptionsPage {
	var list []json.RawMessage
	if json.Unmarshal(v, &list) == nil {
		return OptionsPage{Options: v}
	}
	var obj struct {
		Options json.RawMessage `json:"options"`
		Context json.RawMessage `json:"context"`
	}
	if json.Unmarshal(v, &obj) == nil && json.Unmarshal(obj.Options, &list) == nil {
		page := OptionsPage{Options: obj.Options}
		if len(obj.Context) > 0 && string(obj.Context) != "null" {
			page.Context = obj.Context
		}
		return page
	}
	return OptionsPage{Options: json.RawMessage("[]")}
}

// AdditionalProps calls the component's additionalProps method and
// returns its props followed by the ones the method adds (an added prop
// replaces a declared one of the same name).
func (e *Engine) AdditionalProps(ctx context.Context, req ConfigureRequest) ([]component.Prop, error) {
	props := req.Component.Metadata.ConfigurableProps
	if !req.Component.Metadata.HasAdditionalProps {
		return props, nil
	}
	var added []component.Prop
	err := e.configureCall(ctx, req, sandbox.Request{Op: abi.OpAdditionalProps}, "additionalProps()", func(v json.RawMessage) error {
		if err := json.Unmarshal(v, &added); err != nil {
			return &ConfigureError{Method: "additionalProps()", Name: "TypeError", Msg: "it did not return an object of props"}
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	out := make([]component.Prop, 0, len(props)+len(added))
	for _, p := range props {
		replaced := false
		for _, a := range added {
			replaced = replaced || a.Name == p.Name
		}
		if !replaced {
			out = append(out, p)
		}
	}
	return append(out, added...), nil
}

// configureCall loads the component with req's props and performs call
// on the user's share of the pool, handing its value to read.
func (e *Engine) configureCall(ctx context.Context, req ConfigureRequest, call sandbox.Request, method string, read func(json.RawMessage) error) error {
	end, err := e.beginOp()
	if err != nil {
		return err
	}
	defer end()
	meta := &req.Component.Metadata
	if err := e.checkAppProps(ctx, meta, req.Props, req.OwnerID); err != nil {
		return err
	}
	props, err := json.Marshal(req.Props)
	if err != nil {
		return fmt.Errorf("engine: encode props: %w", err)
	}
	return e.inPool(ctx, req.UserID, 1, func(ctx context.Context) error {
		box, err := e.sandbox.Load(ctx, sandbox.Spec{ID: "configure", Code: req.Component.RunCode(), Props: props, Format: meta.Format})
		if err != nil {
			return codeError(err)
		}
		defer box.Close(context.WithoutCancel(ctx))
		caps := sandbox.Capabilities{
			Log:  &collector{},
			DB:   &memKV{values: map[string][]byte{}},
			Auth: accountAuth{e, req.OwnerID, req.Props, nil},
		}
		if e.cfg.Egress != nil {
			caps.Egress = e.cfg.Egress
		}
		out, err := box.Invoke(ctx, call, caps)
		if err != nil {
			return configureError(method, err)
		}
		return read(out.Value)
	})
}

// configureError describes a failed options or additionalProps call; the
// host failing is returned as it is.
func configureError(method string, err error) error {
	var se *sandbox.ScriptError
	switch {
	case errors.As(err, &se):
		return &ConfigureError{Method: method, Name: se.Name, Msg: se.Message}
	case errors.Is(err, sandbox.ErrTimeout):
		return &ConfigureError{Method: method, Name: "TimeoutError", Msg: "it did not finish within its time limit"}
	case errors.Is(err, sandbox.ErrOutOfMemory):
		return &ConfigureError{Method: method, Name: "RangeError", Msg: "it ran out of memory"}
	}
	return err
}

// propsMetadata is what configured values are checked against: the
// component's metadata, with the props its additionalProps method adds
// for these values (for previous's values, minus its secrets, when given
// is nil). A component without the method costs nothing here.
func (e *Engine) propsMetadata(ctx context.Context, comp store.Component, given map[string]json.RawMessage, previous *store.Source, owner, user string) (*component.Metadata, error) {
	if !comp.Metadata.HasAdditionalProps {
		return &comp.Metadata, nil
	}
	values := given
	if values == nil && previous != nil {
		values = make(map[string]json.RawMessage, len(previous.ConfiguredProps))
		for name, v := range previous.ConfiguredProps {
			if !slices.Contains(previous.SecretProps, name) {
				values[name] = v
			}
		}
	}
	props, err := e.AdditionalProps(ctx, ConfigureRequest{UserID: user, OwnerID: owner, Component: comp, Props: values})
	if err != nil {
		return nil, err
	}
	meta := comp.Metadata
	meta.ConfigurableProps = props
	return &meta, nil
}
