package client

import (
	"context"
	"net/http"
	"net/url"

	"github.com/fount-dev/fount/apiv1"
)

// CreateAccount connects an account of app with credential fields, in
// orgID's namespace when it is not "".
func (c *Client) CreateAccount(ctx context.Context, app, name string, fields map[string]string, orgID string) (apiv1.Account, []byte, error) {
	var a apiv1.Account
	req := apiv1.CreateAccountRequest{App: app, Name: name, Fields: fields}
	raw, err := c.Do(ctx, http.MethodPost, "/accounts", orgQuery(orgID), req, &a)
	return a, raw, err
}

// Accounts lists the caller's connected accounts (first 100).
func (c *Client) Accounts(ctx context.Context) ([]apiv1.Account, []byte, error) {
	var as []apiv1.Account
	raw, err := c.Do(ctx, http.MethodGet, "/users/me/accounts", url.Values{"limit": {"100"}}, nil, &as)
	return as, raw, err
}

// DeleteAccount deletes a connected account; force deletes it even when
// app props are configured with it.
func (c *Client) DeleteAccount(ctx context.Context, id string, force bool) error {
	var q url.Values
	if force {
		q = url.Values{"force": {"true"}}
	}
	_, err := c.Do(ctx, http.MethodDelete, "/accounts/"+url.PathEscape(id), q, nil, nil)
	return err
}
