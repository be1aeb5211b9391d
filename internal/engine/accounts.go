package engine

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sync"

	"github.com/fount-dev/fount/internal/component"
	"github.com/fount-dev/fount/internal/engine/flow"
	"github.com/fount-dev/fount/internal/model"
	"github.com/fount-dev/fount/internal/sandbox"
	"github.com/fount-dev/fount/internal/secret"
)

// checkAppProp checks the value an app prop p is configured with: a
// connected account of owner, of p's app. A missing account and another
// owner's get the same answer, so that ids of others' accounts cannot be
// probed.
func (e *Engine) checkAppProp(ctx context.Context, p component.Prop, raw json.RawMessage, owner string) error {
	id, ok := component.AuthProvisionID(raw)
	if !ok {
		return &component.PropError{Prop: p.Name, Reason: `must be {"authProvisionId": "apn_..."}, naming a connected account (POST /v1/accounts, fount accounts create)`}
	}
	a, err := e.store.GetConnectedAccount(ctx, id)
	switch {
	case errors.Is(err, model.ErrNotFound) || (err == nil && a.OwnerID != owner):
		return &component.PropError{Prop: p.Name, Reason: fmt.Sprintf("names the connected account %s, which does not exist or is not this source's owner's", id)}
	case err != nil:
		return err
	case p.App != "" && a.App != p.App:
		return &component.PropError{Prop: p.Name, Reason: fmt.Sprintf("needs an account of the app %q; %s is an account of %q", p.App, id, a.App)}
	}
	return nil
}

// checkOwnedProps checks every prop props configure with one of the
// owner's resources: an app prop's connected account, a data_store
// prop's store.
func (e *Engine) checkOwnedProps(ctx context.Context, meta *component.Metadata, props map[string]json.RawMessage, owner string) error {
	for _, p := range meta.PropsOfType(component.TypeApp) {
		if raw, ok := props[p.Name]; ok && !isNull(raw) {
			if err := e.checkAppProp(ctx, p, raw, owner); err != nil {
				return err
			}
		}
	}
	for _, p := range meta.PropsOfType(component.TypeDataStore) {
		if raw, ok := props[p.Name]; ok && !isNull(raw) && !flow.IsTemplate(raw) {
			if _, err := e.dataStoreOf(ctx, owner, raw); err != nil {
				return &component.PropError{Prop: p.Name, Reason: err.Error()}
			}
		}
	}
	return nil
}

// accountAuth is the $auth of one source's or step's app props: the
// fields of the connected account each is configured with, opened for
// the call that asks. An app prop with no account sees {}.
type accountAuth struct {
	e     *Engine
	owner string
	props map[string]json.RawMessage
	gone  *goneAccounts // where it notes accounts that are gone, for the run's error
}

// goneAccounts notes, during one call, app props whose connected account
// is gone, so that the error the guest then throws can say why.
type goneAccounts struct {
	mu   sync.Mutex
	note string
}

func (g *goneAccounts) add(note string) {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.note = note
}

// explain adds the note to err when err is the guest's and a note was
// taken; the guest only knows that $auth was not found.
func (g *goneAccounts) explain(err error) error {
	g.mu.Lock()
	defer g.mu.Unlock()
	var se *sandbox.ScriptError
	if g.note == "" || !errors.As(err, &se) {
		return err
	}
	explained := *se
	explained.Message += " (" + g.note + ")"
	return &explained
}

func (a accountAuth) Auth(ctx context.Context, propName string) (json.RawMessage, error) {
	raw, ok := a.props[propName]
	if !ok || isNull(raw) {
		return json.RawMessage(`{}`), nil
	}
	id, ok := component.AuthProvisionID(raw)
	if !ok {
		return json.RawMessage(`{}`), nil
	}
	acct, err := a.e.store.GetConnectedAccount(ctx, id)
	if errors.Is(err, model.ErrNotFound) || (err == nil && acct.OwnerID != a.owner) {
		if a.gone != nil {
			a.gone.add(fmt.Sprintf("the connected account %s that prop %s is configured with was deleted; configure the prop with another account", id, propName))
		}
		return nil, fmt.Errorf("connected account %s of prop %s: %w", id, propName, sandbox.ErrNotFound)
	}
	if err != nil {
		return nil, err
	}
	fields := make(map[string]string, len(acct.Fields))
	for k, sealed := range acct.Fields {
		plain, err := a.e.cfg.Secrets.Open(sealed, secret.AccountBinding(acct.ID, k))
		if err != nil {
			return nil, fmt.Errorf("connected account %s field %s: %w", id, k, err)
		}
		fields[k] = string(plain)
	}
	return json.Marshal(fields)
}
