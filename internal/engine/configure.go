package engine

import (
	"context"
	"encoding/json"
	"fmt"
	"regexp"
	"slices"
	"strings"

	"github.com/fount-dev/fount/abi"
	"github.com/fount-dev/fount/internal/component"
	"github.com/fount-dev/fount/internal/engine/emit"
	"github.com/fount-dev/fount/internal/engine/flow"
	"github.com/fount-dev/fount/internal/model"
	"github.com/fount-dev/fount/internal/sandbox"
	"github.com/fount-dev/fount/internal/secret"
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
	Component model.Component
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
// options are returned as they are) with page and prevContext. The prop
// is a declared one, or one that the component's additionalProps method
// adds for req.Props.
func (e *Engine) PropOptions(ctx context.Context, req ConfigureRequest, prop string, page int, prevContext string) (OptionsPage, error) {
	p, ok := req.Component.Metadata.Prop(prop)
	if !ok {
		added, err := e.addedProps(ctx, req)
		if err != nil {
			return OptionsPage{}, err
		}
		i := slices.IndexFunc(added, func(a component.Prop) bool { return a.Name == prop })
		if i < 0 {
			return OptionsPage{}, &component.PropError{Prop: prop, Reason: "is not a prop of this component, nor one its additionalProps() adds for the props given"}
		}
		p = added[i]
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
// returns its props with the ones the method adds, which must be plain
// values (see checkAddedProps): in a declared prop's place, or after.
func (e *Engine) AdditionalProps(ctx context.Context, req ConfigureRequest) ([]component.Prop, error) {
	added, err := e.addedProps(ctx, req)
	if err != nil {
		return nil, err
	}
	return component.WithAdded(req.Component.Metadata.ConfigurableProps, added), nil
}

// addedProps is what the component's additionalProps method adds, checked.
func (e *Engine) addedProps(ctx context.Context, req ConfigureRequest) ([]component.Prop, error) {
	if !req.Component.Metadata.HasAdditionalProps {
		return nil, nil
	}
	const method = "additionalProps()"
	var added []component.Prop
	err := e.configureCall(ctx, req, sandbox.Request{Op: abi.OpAdditionalProps}, method, func(v json.RawMessage) error {
		if err := json.Unmarshal(v, &added); err != nil {
			return &ConfigureError{Method: method, Name: "TypeError", Msg: "it did not return an object of props"}
		}
		return checkAddedProps(req.Component.Metadata, added)
	})
	if err != nil {
		return nil, err
	}
	return added, nil
}

// maxAddedProps bounds the props additionalProps may add.
const maxAddedProps = 100

// addedPropTypes are the types an added prop may have: values that the
// guest hands to the component as they are. Services and apps need the
// guest's own objects ($auth, the db) and must be declared.
var addedPropTypes = []component.PropType{
	component.TypeBoolean, component.TypeBooleanArray, component.TypeInteger, component.TypeIntegerArray,
	component.TypeString, component.TypeStringArray, component.TypeObject, component.TypeAny,
	component.TypeSQL, component.TypeAlert,
}

// addedInterfaceTypes are the interfaces a source's additionalProps may
// add, as Pipedream's may: the engine gives them an endpoint or a timer
// as it does declared ones. The component gets an HTTP interface as
// {endpoint, endpoint_url} (no custom response: that is declared), and a
// timer as its value.
var addedInterfaceTypes = []component.PropType{component.TypeHTTP, component.TypeTimer}

var addedPropName = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]{0,63}$`)

// checkAddedProps refuses what additionalProps returned unless each prop
// is a plain value with a name of its own (not one of Object.prototype's,
// not twice) or a declared value's, whose place it takes. What it
// returns comes from the component's code, so it is checked like any
// input. An added prop may
// have options, static or from its own options method (PropOptions runs
// additionalProps to reach it); it cannot name an app or a
// propDefinition, which need a declared app prop.
func checkAddedProps(meta component.Metadata, added []component.Prop) error {
	bad := func(format string, args ...any) error {
		return &ConfigureError{Method: "additionalProps()", Name: "TypeError", Msg: fmt.Sprintf(format, args...)}
	}
	if len(added) > maxAddedProps {
		return bad("it returned %d props, more than %d", len(added), maxAddedProps)
	}
	allowed := addedPropTypes
	if meta.Type == component.KindSource {
		allowed = append(slices.Clip(allowed), addedInterfaceTypes...)
	}
	declared := map[string]component.PropType{}
	for _, p := range meta.ConfigurableProps {
		declared[p.Name] = p.Type
	}
	seen := map[string]bool{}
	for i := range added {
		p := &added[i]
		declaredType, isDeclared := declared[p.Name]
		switch {
		case !addedPropName.MatchString(p.Name) || strings.HasPrefix(p.Name, "__") || objectPrototype[p.Name]:
			return bad("it returned a prop named %q; a name is letters, digits and _, not a name of Object.prototype", p.Name)
		case seen[p.Name]:
			return bad("it returned the prop %s twice", p.Name)
		case isDeclared && !slices.Contains(addedPropTypes, declaredType):
			return bad("it returned the prop %s, which the component declares as %q: an added prop may take the place of a declared value (%v), not of an app, an interface or a service", p.Name, declaredType, addedPropTypes)
		case !slices.Contains(allowed, p.Type):
			return bad("it returned the prop %s of type %q; added props hold values (%v) or, a source's, interfaces (%v); other types must be declared", p.Name, p.Type, addedPropTypes, addedInterfaceTypes)
		}
		seen[p.Name] = true
		p.App, p.PropDefinition, p.CustomResponse = "", nil, false
	}
	return nil
}

// stepAddedProps adds to a step's metadata (or an action's, run on its
// own) the props its additionalProps method adds for the given values,
// so that values for them are taken, as a source's are.
func (e *Engine) stepAddedProps(ctx context.Context, owner, user string, step *model.WorkflowStep, given map[string]json.RawMessage) error {
	if !step.Metadata.HasAdditionalProps {
		return nil
	}
	comp := model.Component{Code: step.Code, Bundle: step.Bundle, Metadata: step.Metadata}
	added, err := e.addedProps(ctx, ConfigureRequest{UserID: user, OwnerID: owner, Component: comp, Props: given})
	if err != nil {
		return flow.StepFault(step.Name, "%v", err)
	}
	for _, p := range added {
		if slices.Contains(addedInterfaceTypes, p.Type) {
			return flow.StepFault(step.Name, "its additionalProps() added the interface prop %s (%s); a step runs in its workflow, which has the trigger", p.Name, p.Type)
		}
	}
	step.Metadata.ConfigurableProps = component.WithAdded(step.Metadata.ConfigurableProps, added)
	return nil
}

// objectPrototype names what every JavaScript object has.
var objectPrototype = map[string]bool{
	"constructor": true, "hasOwnProperty": true, "isPrototypeOf": true, "propertyIsEnumerable": true,
	"toLocaleString": true, "toString": true, "valueOf": true,
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
	if err := e.checkOwnedProps(ctx, meta, req.Props, req.OwnerID); err != nil {
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
			Log:  emit.NewCollector(nil),
			DB:   &memKV{values: map[string][]byte{}},
			Auth: accountAuth{e, req.OwnerID, req.Props, nil},
		}
		if e.cfg.Egress != nil {
			caps.Egress = e.cfg.Egress
		}
		out, err := e.invokeReserved(ctx, req.UserID, "configure", box, call, caps)
		if err != nil {
			return configureError(method, err)
		}
		return read(out.Value)
	})
}

// configureError describes a failed options or additionalProps call; the
// host failing is returned as it is.
func configureError(method string, err error) error {
	if name, msg, ok := scriptFailure(err, "method"); ok {
		return &ConfigureError{Method: method, Name: name, Msg: msg}
	}
	return err
}

// propsMetadata is what configured values are checked against: the
// component's metadata, with the props its additionalProps method adds
// for these values, which it also returns. An update that keeps the
// props (given nil) keeps the props added before, without running the
// method again; secrets that an update keeps ("[redacted]") reach the
// method as their stored values. A component without the method costs
// nothing here.
func (e *Engine) propsMetadata(ctx context.Context, comp model.Component, given map[string]json.RawMessage, previous *model.Source, owner, user string) (*component.Metadata, []component.Prop, error) {
	if !comp.Metadata.HasAdditionalProps {
		return &comp.Metadata, nil, nil
	}
	meta := comp.Metadata
	if given == nil && previous != nil {
		meta.ConfigurableProps = component.WithAdded(meta.ConfigurableProps, previous.AddedProps)
		return &meta, previous.AddedProps, nil
	}
	values := make(map[string]json.RawMessage, len(given))
	for name, v := range given {
		if isMarker(v) && previous != nil && slices.Contains(previous.SecretProps, name) {
			opened, err := e.cfg.Secrets.OpenProp(previous.ConfiguredProps[name], secret.PropBinding(previous.OwnerID, previous.ID, name))
			if err != nil {
				return nil, nil, fmt.Errorf("engine: secret prop %s of %s: %w", name, previous.ID, err)
			}
			v = opened
		}
		values[name] = v
	}
	added, err := e.addedProps(ctx, ConfigureRequest{UserID: user, OwnerID: owner, Component: comp, Props: values})
	if err != nil {
		return nil, nil, err
	}
	meta.ConfigurableProps = component.WithAdded(meta.ConfigurableProps, added)
	return &meta, added, nil
}
