package engine

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"sort"
	"strings"
	"sync"

	"github.com/fount-dev/fount/internal/component"
	"github.com/fount-dev/fount/internal/ids"
	"github.com/fount-dev/fount/internal/model"
	"github.com/fount-dev/fount/internal/sandbox"
	"github.com/fount-dev/fount/internal/secret"
)

// Limits of a connected account's request.
const (
	MaxAccountFields     = 50
	maxAccountFieldValue = 16 << 10
	maxAccountNameLen    = 256
)

var (
	appSlug      = regexp.MustCompile(`^[a-z0-9][a-z0-9_-]{0,63}$`)
	accountField = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]{0,63}$`)
)

// AccountRequest asks for a connected account: an app's credentials.
type AccountRequest struct {
	OwnerID string // the user or organization whose sources may use it
	UserID  string // who creates it
	App     string // the app's slug, as an app prop names it
	Name    string
	Fields  map[string]string // credential fields, in clear
}

// AccountError is a connected account request that cannot be stored;
// Param names the parameter at fault.
type AccountError struct{ Param, Reason string }

func (e *AccountError) Error() string { return e.Param + ": " + e.Reason }

// AccountInUseError refuses to delete a connected account that app props
// are configured with; Users are those sources and workflows.
type AccountInUseError struct{ Users []string }

func (e *AccountInUseError) Error() string {
	return "the connected account is in use by " + strings.Join(e.Users, ", ")
}

// CreateAccount stores a connected account with its fields sealed, each
// bound to the account and the field.
func (e *Engine) CreateAccount(ctx context.Context, req AccountRequest) (model.ConnectedAccount, error) {
	name := strings.TrimSpace(req.Name)
	switch {
	case !appSlug.MatchString(req.App):
		return model.ConnectedAccount{}, &AccountError{"app", "needs the app's slug: lower-case letters, digits, _ and -, as an app prop's app names it"}
	case name == "" || len(name) > maxAccountNameLen:
		return model.ConnectedAccount{}, &AccountError{"name", fmt.Sprintf("needs 1 to %d characters", maxAccountNameLen)}
	case len(req.Fields) == 0:
		return model.ConnectedAccount{}, &AccountError{"fields", "needs at least one credential field, such as oauth_access_token or api_key"}
	case len(req.Fields) > MaxAccountFields:
		return model.ConnectedAccount{}, &AccountError{"fields", fmt.Sprintf("has %d fields, more than %d", len(req.Fields), MaxAccountFields)}
	}
	now := e.clock.Now().Unix()
	a := model.ConnectedAccount{ID: ids.New(ids.Account), OwnerID: req.OwnerID, UserID: req.UserID, App: req.App, Name: name,
		Fields: map[string]string{}, CreatedAt: now, UpdatedAt: now}
	for k, v := range req.Fields {
		switch {
		case !accountField.MatchString(k):
			return model.ConnectedAccount{}, &AccountError{"fields", fmt.Sprintf("the field name %q is not letters, digits and _ (at most 64)", k)}
		case v == "" || len(v) > maxAccountFieldValue:
			return model.ConnectedAccount{}, &AccountError{"fields." + k, fmt.Sprintf("needs a value of 1 to %d bytes", maxAccountFieldValue)}
		}
		a.Fields[k] = e.cfg.Secrets.Seal([]byte(v), secret.AccountBinding(a.ID, k))
	}
	return e.store.CreateConnectedAccount(ctx, a)
}

// DeleteAccount removes a connected account. One that app props of its
// owner's sources or workflow steps are configured with is refused with
// an *AccountInUseError, unless force: those then fail where they read
// $auth, with an error that says the account is gone.
func (e *Engine) DeleteAccount(ctx context.Context, a model.ConnectedAccount, force bool) error {
	if !force {
		users, err := e.accountUsers(ctx, a)
		if err != nil {
			return err
		}
		if len(users) > 0 {
			return &AccountInUseError{Users: users}
		}
	}
	return e.store.DeleteConnectedAccount(ctx, a.ID)
}

// accountUsers lists the sources and workflows of a's owner whose app
// props are configured with a. Only the owner's may be (see
// checkAppProp), so only theirs are read.
func (e *Engine) accountUsers(ctx context.Context, a model.ConnectedAccount) ([]string, error) {
	var users []string
	for p := (model.Page{Limit: 500}); ; {
		pg, err := e.store.ListSources(ctx, a.OwnerID, p)
		if err != nil {
			return nil, err
		}
		for _, s := range pg.Items {
			if usesAccount(s.ConfiguredProps, a.ID) {
				users = append(users, s.ID)
			}
		}
		if len(pg.Items) < p.Limit || pg.EndCursor == "" {
			break
		}
		p.After = pg.EndCursor
	}
	for p := (model.Page{Limit: 500}); ; {
		pg, err := e.store.ListWorkflows(ctx, a.OwnerID, p)
		if err != nil {
			return nil, err
		}
		for _, w := range pg.Items {
			for _, st := range w.Steps {
				if usesAccount(st.Props, a.ID) {
					users = append(users, w.ID)
					break
				}
			}
		}
		if len(pg.Items) < p.Limit || pg.EndCursor == "" {
			break
		}
		p.After = pg.EndCursor
	}
	sort.Strings(users)
	return users, nil
}

func usesAccount(props map[string]json.RawMessage, id string) bool {
	for _, v := range props {
		if got, ok := component.AuthProvisionID(v); ok && got == id {
			return true
		}
	}
	return false
}

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
		if raw, ok := props[p.Name]; ok && !isNull(raw) && !isTemplate(raw) {
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
