package client

import (
	"context"
	"encoding/json"
	"net/http"
	"net/url"
	"strconv"
)

// Prop is one configurable prop of a component.
type Prop struct {
	Name        string          `json:"name"`
	Type        string          `json:"type"`
	Label       string          `json:"label,omitempty"`
	Description string          `json:"description,omitempty"`
	Optional    bool            `json:"optional,omitempty"`
	Default     json.RawMessage `json:"default,omitempty"`
	Secret      bool            `json:"secret,omitempty"`
	Min         *int64          `json:"min,omitempty"`
	Max         *int64          `json:"max,omitempty"`
	Options     json.RawMessage `json:"options,omitempty"`
}

// Component is a saved component.
type Component struct {
	ID                string `json:"id"`
	Key               string `json:"key"`
	Name              string `json:"name"`
	Version           string `json:"version"`
	Type              string `json:"type"`
	CodeHash          string `json:"code_hash"`
	ConfigurableProps []Prop `json:"configurable_props"`
	CreatedAt         int64  `json:"created_at"`
}

// Source is a deployed component.
type Source struct {
	ID              string                     `json:"id"`
	UserID          string                     `json:"user_id"`
	ComponentID     string                     `json:"component_id"`
	ConfiguredProps map[string]json.RawMessage `json:"configured_props"`
	Active          bool                       `json:"active"`
	CreatedAt       int64                      `json:"created_at"`
	UpdatedAt       int64                      `json:"updated_at"`
	Name            string                     `json:"name"`
	NameSlug        string                     `json:"name_slug"`
}

// Endpoints returns the source's HTTP endpoint URLs by prop name.
func (s Source) Endpoints() map[string]string {
	out := map[string]string{}
	for name, raw := range s.ConfiguredProps {
		var v struct {
			EndpointURL string `json:"endpoint_url"`
		}
		if json.Unmarshal(raw, &v) == nil && v.EndpointURL != "" {
			out[name] = v.EndpointURL
		}
	}
	return out
}

// Subscription connects an emitter to a listener.
type Subscription struct {
	ID         string `json:"id"`
	EmitterID  string `json:"emitter_id"`
	ListenerID string `json:"listener_id"`
	EventName  string `json:"event_name"`
}

// Webhook is a delivery URL.
type Webhook struct {
	ID            string  `json:"id"`
	Name          *string `json:"name"`
	Description   *string `json:"description"`
	URL           string  `json:"url"`
	Active        bool    `json:"active"`
	CreatedAt     int64   `json:"created_at"`
	SigningSecret string  `json:"signing_secret,omitempty"`
}

// Event is an event summary.
type Event struct {
	ID          string          `json:"id"`
	IndexedAtMs int64           `json:"indexed_at_ms"`
	Event       json.RawMessage `json:"event"`
	Metadata    struct {
		EmitID    string `json:"emit_id"`
		Name      string `json:"name"`
		EmitterID string `json:"emitter_id"`
		Summary   string `json:"summary"`
	} `json:"metadata"`
}

// User is the authenticated user.
type User struct {
	ID       string `json:"id"`
	Username string `json:"username"`
	Email    string `json:"email"`
	Orgs     []struct {
		ID      string `json:"id"`
		Orgname string `json:"orgname"`
	} `json:"orgs"`
}

// Me returns the authenticated user.
func (c *Client) Me(ctx context.Context) (User, []byte, error) {
	var u User
	raw, err := c.Do(ctx, http.MethodGet, "/users/me", nil, nil, &u)
	return u, raw, err
}

// SaveComponent saves (and introspects) component code.
func (c *Client) SaveComponent(ctx context.Context, code, orgID string) (Component, error) {
	var comp Component
	_, err := c.Do(ctx, http.MethodPost, "/components", orgQuery(orgID), map[string]any{"component_code": code}, &comp)
	return comp, err
}

// CreateSource deploys a saved component.
func (c *Client) CreateSource(ctx context.Context, componentID, name, orgID string, props map[string]json.RawMessage) (Source, []byte, error) {
	body := map[string]any{"component_id": componentID, "configured_props": props}
	if name != "" {
		body["name"] = name
	}
	var s Source
	raw, err := c.Do(ctx, http.MethodPost, "/sources", orgQuery(orgID), body, &s)
	return s, raw, err
}

// UpdateSource replaces a source's component (and props when not nil).
// active is sent as given: the API would otherwise reactivate the source.
func (c *Client) UpdateSource(ctx context.Context, id, componentID string, props map[string]json.RawMessage, active bool) (Source, []byte, error) {
	body := map[string]any{"component_id": componentID, "active": active}
	if props != nil {
		body["configured_props"] = props
	}
	var s Source
	raw, err := c.Do(ctx, http.MethodPut, "/sources/"+url.PathEscape(id), nil, body, &s)
	return s, raw, err
}

// DeleteSource deletes a source.
func (c *Client) DeleteSource(ctx context.Context, id string) error {
	_, err := c.Do(ctx, http.MethodDelete, "/sources/"+url.PathEscape(id), nil, nil, nil)
	return err
}

// Sources lists every source of the caller, in creation order.
func (c *Client) Sources(ctx context.Context) ([]Source, error) {
	return c.listSources(ctx, "/users/me/sources")
}

// OrgSources lists every source of an organization, in creation order.
func (c *Client) OrgSources(ctx context.Context, orgID string) ([]Source, error) {
	return c.listSources(ctx, "/orgs/"+url.PathEscape(orgID)+"/sources")
}

func (c *Client) listSources(ctx context.Context, path string) ([]Source, error) {
	var all []Source
	q := url.Values{"limit": {"100"}}
	for {
		var page []Source
		raw, err := c.Do(ctx, http.MethodGet, path, q, nil, &page)
		if err != nil {
			return nil, err
		}
		all = append(all, page...)
		var env struct {
			PageInfo struct {
				EndCursor string `json:"end_cursor"`
			} `json:"page_info"`
		}
		_ = json.Unmarshal(raw, &env)
		if len(page) < 100 || env.PageInfo.EndCursor == "" {
			return all, nil
		}
		q.Set("after", env.PageInfo.EndCursor)
	}
}

// Component returns a saved component by id or key.
func (c *Client) Component(ctx context.Context, ref string) (Component, []byte, error) {
	var comp Component
	raw, err := c.Do(ctx, http.MethodGet, "/components/"+url.PathEscape(ref), nil, nil, &comp)
	return comp, raw, err
}

// Events returns a channel's last n events, newest first.
func (c *Client) Events(ctx context.Context, sourceID, channel string, n int) ([]Event, []byte, error) {
	var evs []Event
	q := url.Values{"limit": {strconv.Itoa(n)}, "expand": {"event"}}
	if channel != "" {
		q.Set("event_name", channel)
	}
	raw, err := c.Do(ctx, http.MethodGet, "/sources/"+url.PathEscape(sourceID)+"/event_summaries", q, nil, &evs)
	return evs, raw, err
}

// Run queues a manual run of a source.
func (c *Client) Run(ctx context.Context, sourceID string, event json.RawMessage) error {
	body := map[string]any{}
	if len(event) > 0 {
		body["event"] = event
	}
	_, err := c.Do(ctx, http.MethodPost, "/sources/"+url.PathEscape(sourceID)+"/run", nil, body, nil)
	return err
}

// Subscribe connects emitter to listener on a channel ("" the default).
func (c *Client) Subscribe(ctx context.Context, emitter, listener, channel string) (Subscription, []byte, error) {
	var s Subscription
	q := url.Values{"emitter_id": {emitter}, "listener_id": {listener}, "event_name": {channel}}
	raw, err := c.Do(ctx, http.MethodPost, "/subscriptions", q, nil, &s)
	return s, raw, err
}

// Unsubscribe removes a subscription.
func (c *Client) Unsubscribe(ctx context.Context, emitter, listener, channel string) error {
	q := url.Values{"emitter_id": {emitter}, "listener_id": {listener}, "event_name": {channel}}
	_, err := c.Do(ctx, http.MethodDelete, "/subscriptions", q, nil, nil)
	return err
}

// Subscriptions lists the caller's subscriptions.
func (c *Client) Subscriptions(ctx context.Context) ([]Subscription, []byte, error) {
	var subs []Subscription
	raw, err := c.Do(ctx, http.MethodGet, "/users/me/subscriptions", nil, nil, &subs)
	return subs, raw, err
}

// CreateWebhook creates a webhook.
func (c *Client) CreateWebhook(ctx context.Context, rawURL, name string) (Webhook, []byte, error) {
	body := map[string]any{"url": rawURL}
	if name != "" {
		body["name"] = name
	}
	var w Webhook
	raw, err := c.Do(ctx, http.MethodPost, "/webhooks", nil, body, &w)
	return w, raw, err
}

// Webhooks lists the caller's webhooks (first 100).
func (c *Client) Webhooks(ctx context.Context) ([]Webhook, []byte, error) {
	var ws []Webhook
	raw, err := c.Do(ctx, http.MethodGet, "/users/me/webhooks", url.Values{"limit": {"100"}}, nil, &ws)
	return ws, raw, err
}

// DeleteWebhook deletes a webhook.
func (c *Client) DeleteWebhook(ctx context.Context, id string) error {
	_, err := c.Do(ctx, http.MethodDelete, "/webhooks/"+url.PathEscape(id), nil, nil, nil)
	return err
}

func orgQuery(orgID string) url.Values {
	if orgID == "" {
		return nil
	}
	return url.Values{"org_id": {orgID}}
}
