package client

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"time"

	"github.com/fount-dev/fount/apiv1"
	"github.com/fount-dev/fount/internal/ids"
)

// Endpoints returns a source's HTTP endpoint URLs by prop name.
func Endpoints(s apiv1.Source) map[string]string {
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

// Me returns the authenticated user.
func (c *Client) Me(ctx context.Context) (apiv1.User, []byte, error) {
	var u apiv1.User
	raw, err := c.Do(ctx, http.MethodGet, "/users/me", nil, nil, &u)
	return u, raw, err
}

// SaveComponent saves (and introspects) component code.
// With updatePackages its npm imports resolve to the newest matching
// versions instead of the ones the same code was bundled with before.
func (c *Client) SaveComponent(ctx context.Context, code, sourceMap, orgID string, updatePackages bool) (apiv1.Component, error) {
	var comp apiv1.Component
	req := apiv1.CreateComponentRequest{ComponentCode: code, SourceMap: sourceMap, UpdatePackages: updatePackages}
	_, err := c.Do(ctx, http.MethodPost, "/components", orgQuery(orgID), req, &comp)
	return comp, err
}

// CreateSource deploys a saved component.
func (c *Client) CreateSource(ctx context.Context, componentID, name, orgID string, props map[string]json.RawMessage) (apiv1.Source, []byte, error) {
	body := apiv1.CreateSourceRequest{SourceRequest: apiv1.SourceRequest{ComponentID: componentID, Name: name, ConfiguredProps: props}}
	var s apiv1.Source
	raw, err := c.Do(ctx, http.MethodPost, "/sources", orgQuery(orgID), body, &s)
	return s, raw, err
}

// UpdateSource replaces a source's component (and props when not nil).
// active is sent as given: the API would otherwise reactivate the source.
func (c *Client) UpdateSource(ctx context.Context, id, componentID string, props map[string]json.RawMessage, active bool) (apiv1.Source, []byte, error) {
	body := apiv1.UpdateSourceRequest{SourceRequest: apiv1.SourceRequest{ComponentID: componentID, ConfiguredProps: props}, Active: &active}
	var s apiv1.Source
	raw, err := c.Do(ctx, http.MethodPut, "/sources/"+url.PathEscape(id), nil, body, &s)
	return s, raw, err
}

// DeleteSource deletes a source.
func (c *Client) DeleteSource(ctx context.Context, id string) error {
	_, err := c.Do(ctx, http.MethodDelete, "/sources/"+url.PathEscape(id), nil, nil, nil)
	return err
}

// Sources lists every source of the caller, in creation order.
func (c *Client) Sources(ctx context.Context) ([]apiv1.Source, error) {
	return c.listSources(ctx, "/users/me/sources")
}

// OrgSources lists every source of an organization, in creation order.
func (c *Client) OrgSources(ctx context.Context, orgID string) ([]apiv1.Source, error) {
	return c.listSources(ctx, "/orgs/"+url.PathEscape(orgID)+"/sources")
}

func (c *Client) listSources(ctx context.Context, path string) ([]apiv1.Source, error) {
	var all []apiv1.Source
	q := url.Values{"limit": {"100"}}
	for {
		var page []apiv1.Source
		raw, err := c.Do(ctx, http.MethodGet, path, q, nil, &page)
		if err != nil {
			return nil, err
		}
		all = append(all, page...)
		var env apiv1.Page[apiv1.Source]
		_ = json.Unmarshal(raw, &env)
		// A page may end before its limit when its items are large (the
		// server bounds a page in bytes too): only an empty page ends the
		// list.
		if len(page) == 0 || env.PageInfo.EndCursor == "" {
			return all, nil
		}
		q.Set("after", env.PageInfo.EndCursor)
	}
}

// Component returns a saved component by id or key.
func (c *Client) Component(ctx context.Context, ref string) (apiv1.Component, []byte, error) {
	var comp apiv1.Component
	raw, err := c.Do(ctx, http.MethodGet, "/components/"+url.PathEscape(ref), nil, nil, &comp)
	return comp, raw, err
}

// Events returns a source's (or a workflow's) channel's last n events, newest first: one page, which
// holds fewer when the events are large (the server bounds a page in
// bytes too).
func (c *Client) Events(ctx context.Context, sourceID, channel string, n int) ([]apiv1.EventSummary, []byte, error) {
	var evs []apiv1.EventSummary
	q := url.Values{"limit": {strconv.Itoa(n)}, "expand": {"event"}}
	if channel != "" {
		q.Set("event_name", channel)
	}
	path := "/sources/" + url.PathEscape(sourceID) + "/event_summaries"
	if ids.Is(sourceID, ids.Workflow) {
		// A workflow has two: its emits and its $errors.
		q.Del("event_name")
		switch channel {
		case "":
			path = "/workflows/" + url.PathEscape(sourceID) + "/event_summaries"
		case "$errors":
			path = "/workflows/" + url.PathEscape(sourceID) + "/$errors/event_summaries"
		default:
			return nil, nil, fmt.Errorf("a workflow has no channel %q: its events are its emits (the default channel) and $errors", channel)
		}
	}
	raw, err := c.Do(ctx, http.MethodGet, path, q, nil, &evs)
	return evs, raw, err
}

// emitterPath is the API path of a source or workflow.
func emitterPath(id string) string {
	if ids.Is(id, ids.Workflow) {
		return "/workflows/" + url.PathEscape(id)
	}
	return "/sources/" + url.PathEscape(id)
}

// Run queues a manual run of a source.
func (c *Client) Run(ctx context.Context, sourceID string, event json.RawMessage) error {
	_, err := c.Do(ctx, http.MethodPost, "/sources/"+url.PathEscape(sourceID)+"/run", nil, apiv1.RunSourceRequest{Event: event}, nil)
	return err
}

// Subscribe connects emitter to listener on a channel ("" the default).
func (c *Client) Subscribe(ctx context.Context, emitter, listener, channel string) (apiv1.Subscription, []byte, error) {
	var s apiv1.Subscription
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
func (c *Client) Subscriptions(ctx context.Context) ([]apiv1.Subscription, []byte, error) {
	var subs []apiv1.Subscription
	raw, err := c.Do(ctx, http.MethodGet, "/users/me/subscriptions", nil, nil, &subs)
	return subs, raw, err
}

// CreateWebhook creates a webhook.
func (c *Client) CreateWebhook(ctx context.Context, rawURL, name string) (apiv1.Webhook, []byte, error) {
	q := url.Values{"url": {rawURL}}
	if name != "" {
		q.Set("name", name)
	}
	var w apiv1.Webhook
	raw, err := c.Do(ctx, http.MethodPost, "/webhooks", q, nil, &w)
	return w, raw, err
}

// Webhooks lists the caller's webhooks (first 100).
func (c *Client) Webhooks(ctx context.Context) ([]apiv1.Webhook, []byte, error) {
	var ws []apiv1.Webhook
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

// RegistryComponent returns the published component with key.
func (c *Client) RegistryComponent(ctx context.Context, key string) (apiv1.Component, error) {
	var comp apiv1.Component
	_, err := c.Do(ctx, http.MethodGet, "/components/registry/"+url.PathEscape(key), nil, nil, &comp)
	return comp, err
}

// Deliveries lists a webhook's newest deliveries (at most 100).
func (c *Client) Deliveries(ctx context.Context, webhookID string) ([]apiv1.Delivery, []byte, error) {
	var ds []apiv1.Delivery
	raw, err := c.Do(ctx, http.MethodGet, "/webhooks/"+url.PathEscape(webhookID)+"/deliveries", url.Values{"limit": {"100"}}, nil, &ds)
	return ds, raw, err
}

// ResendDelivery queues one more attempt of a webhook's delivery.
func (c *Client) ResendDelivery(ctx context.Context, webhookID, deliveryID string) (apiv1.Delivery, []byte, error) {
	var d apiv1.Delivery
	raw, err := c.Do(ctx, http.MethodPost, "/webhooks/"+url.PathEscape(webhookID)+"/deliveries/"+url.PathEscape(deliveryID)+"/resend", nil, nil, &d)
	return d, raw, err
}

// RotateWebhook gives a webhook a new signing secret; the old one also
// signs for overlap.
func (c *Client) RotateWebhook(ctx context.Context, webhookID string, overlap time.Duration) (apiv1.Webhook, []byte, error) {
	var w apiv1.Webhook
	secs := int64(overlap / time.Second)
	raw, err := c.Do(ctx, http.MethodPost, "/webhooks/"+url.PathEscape(webhookID)+"/rotate", nil, apiv1.RotateWebhookRequest{OverlapSeconds: &secs}, &w)
	return w, raw, err
}

// Stats returns the statistics of a source, workflow or webhook (by id)
// from from to to, a point per step (a whole number of minutes); zero
// times and step take the server's defaults (the last hour, a minute).
func (c *Client) Stats(ctx context.Context, id string, from, to time.Time, step time.Duration) (apiv1.Stats, []byte, error) {
	path := emitterPath(id)
	if ids.Is(id, ids.Webhook) {
		path = "/webhooks/" + url.PathEscape(id)
	}
	q := url.Values{}
	if !from.IsZero() {
		q.Set("from", strconv.FormatInt(from.Unix(), 10))
	}
	if !to.IsZero() {
		q.Set("to", strconv.FormatInt(to.Unix(), 10))
	}
	if step > 0 {
		q.Set("step", strconv.FormatInt(int64(step/time.Second), 10))
	}
	var st apiv1.Stats
	raw, err := c.Do(ctx, http.MethodGet, path+"/stats", q, nil, &st)
	return st, raw, err
}
