package api

import (
	"context"
	"net/http"
	"sort"

	"github.com/fount-dev/fount/apiv1"
	"github.com/fount-dev/fount/internal/model"
	"github.com/fount-dev/fount/internal/records"
)

func viewAccount(a model.ConnectedAccount) apiv1.Account {
	fields := make([]string, 0, len(a.Fields))
	for k := range a.Fields {
		fields = append(fields, k)
	}
	sort.Strings(fields)
	return apiv1.Account{ID: a.ID, App: a.App, Name: a.Name, OwnerID: a.OwnerID, FieldsSet: fields, CreatedAt: a.CreatedAt, UpdatedAt: a.UpdatedAt}
}

func (s *Server) createAccount(w http.ResponseWriter, r *http.Request, req *apiv1.CreateAccountRequest) error {
	ctx := r.Context()
	owner, err := s.ownerFor(ctx, req.OrgID)
	if err != nil {
		return err
	}
	fields := map[string]string{}
	for k, v := range req.Fields {
		fields[k] = v
	}
	for k, v := range map[string]string{"oauth_access_token": req.OAuthAccessToken, "api_key": req.APIKey} {
		if v == "" {
			continue
		}
		if _, both := fields[k]; both {
			return errInvalid("fields."+k, "The field %s is given twice, as a parameter and in fields.", k)
		}
		fields[k] = v
	}
	a, err := s.edit.CreateAccount(ctx, records.AccountRequest{OwnerID: owner, UserID: caller(ctx).ID, App: req.App, Name: req.Name, Fields: fields})
	if err != nil {
		return err
	}
	s.writeData(w, r, viewAccount(a))
	return nil
}

// ownedAccount is the connected account id, when the caller may see it.
func (s *Server) ownedAccount(ctx context.Context, id string) (model.ConnectedAccount, error) {
	a, err := s.records.GetConnectedAccount(ctx, id)
	if isNotFound(err) {
		return a, errNotFound("connected account")
	}
	if err != nil {
		return a, err
	}
	return a, s.visible(ctx, a.OwnerID, "connected account", "")
}

func (s *Server) getAccount(w http.ResponseWriter, r *http.Request, req *apiv1.AccountByIDRequest) error {
	a, err := s.ownedAccount(r.Context(), req.ID)
	if err != nil {
		return err
	}
	s.writeData(w, r, viewAccount(a))
	return nil
}

func (s *Server) deleteAccount(w http.ResponseWriter, r *http.Request, req *apiv1.DeleteAccountRequest) error {
	a, err := s.ownedAccount(r.Context(), req.ID)
	if err != nil {
		return err
	}
	if err := s.edit.DeleteAccount(r.Context(), a, req.Force); err != nil {
		return err
	}
	return noContent(w)
}

func (s *Server) listAccountsOf(w http.ResponseWriter, r *http.Request, owner string, p apiv1.PageParams) error {
	page, err := s.readPage(r, p)
	if err != nil {
		return err
	}
	pg, err := s.records.ListConnectedAccounts(r.Context(), owner, page)
	if err != nil {
		return err
	}
	writePage(s, w, r, pageFrom(pg, page, viewAccount))
	return nil
}

func (s *Server) listMyAccounts(w http.ResponseWriter, r *http.Request, req *apiv1.ListRequest) error {
	return s.listAccountsOf(w, r, caller(r.Context()).ID, req.PageParams)
}

func (s *Server) listOrgAccounts(w http.ResponseWriter, r *http.Request, req *apiv1.OrgListRequest) error {
	orgID, err := s.orgMember(r, req.Org)
	if err != nil {
		return err
	}
	return s.listAccountsOf(w, r, orgID, req.PageParams)
}
