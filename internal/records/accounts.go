package records

import (
	"context"
	"encoding/json"
	"fmt"
	"regexp"
	"sort"
	"strings"

	"github.com/fount-dev/fount/internal/component"
	"github.com/fount-dev/fount/internal/ids"
	"github.com/fount-dev/fount/internal/model"
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
func (s *Service) CreateAccount(ctx context.Context, req AccountRequest) (model.ConnectedAccount, error) {
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
	now := s.now().Unix()
	a := model.ConnectedAccount{ID: ids.New(ids.Account), OwnerID: req.OwnerID, UserID: req.UserID, App: req.App, Name: name,
		Fields: map[string]string{}, CreatedAt: now, UpdatedAt: now}
	for k, v := range req.Fields {
		switch {
		case !accountField.MatchString(k):
			return model.ConnectedAccount{}, &AccountError{"fields", fmt.Sprintf("the field name %q is not letters, digits and _ (at most 64)", k)}
		case v == "" || len(v) > maxAccountFieldValue:
			return model.ConnectedAccount{}, &AccountError{"fields." + k, fmt.Sprintf("needs a value of 1 to %d bytes", maxAccountFieldValue)}
		}
		a.Fields[k] = s.secrets.Seal([]byte(v), secret.AccountBinding(a.ID, k))
	}
	return s.store.CreateConnectedAccount(ctx, a)
}

// DeleteAccount removes a connected account. One that app props of its
// owner's sources or workflow steps are configured with is refused with
// an *AccountInUseError, unless force: those then fail where they read
// $auth, with an error that says the account is gone.
func (s *Service) DeleteAccount(ctx context.Context, a model.ConnectedAccount, force bool) error {
	if !force {
		users, err := s.accountUsers(ctx, a)
		if err != nil {
			return err
		}
		if len(users) > 0 {
			return &AccountInUseError{Users: users}
		}
	}
	return s.store.DeleteConnectedAccount(ctx, a.ID)
}

// accountUsers lists the sources and workflows of a's owner whose app
// props are configured with a. Only the owner's may be (see
// checkAppProp), so only theirs are read.
func (s *Service) accountUsers(ctx context.Context, a model.ConnectedAccount) ([]string, error) {
	var users []string
	for p := (model.Page{Limit: 500}); ; {
		pg, err := s.store.ListSources(ctx, a.OwnerID, p)
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
		pg, err := s.store.ListWorkflows(ctx, a.OwnerID, p)
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
