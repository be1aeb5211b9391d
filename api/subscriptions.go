package api

import (
	"context"
	"net/http"
	"strings"
	"time"

	"github.com/go-chi/chi/v5"

	"github.com/fount-dev/fount/store"
)

// Emitter globs of the spec: every source, every workflow.
const (
	globSources   = "dc_*"
	globWorkflows = "p_*"
)

type subscriptionView struct {
	ID         string `json:"id"`
	EmitterID  string `json:"emitter_id,omitempty"`
	ListenerID string `json:"listener_id"`
	EventName  string `json:"event_name"`
}

const maxEventName = 256

func readEventName(p *params) (string, error) {
	name, _, err := p.str("event_name")
	if err != nil {
		return "", err
	}
	if len(name) > maxEventName {
		return "", errInvalid("event_name", "The event_name is longer than %d bytes.", maxEventName)
	}
	return name, nil
}

// checkExists verifies that id names a resource of an allowed kind that the
// caller can see. Unknown ids and other people's resources are both 404.
func (s *Server) checkExists(ctx context.Context, id, param string, webhookOK bool) error {
	switch {
	case strings.HasPrefix(id, "dc_"):
		src, err := s.store.GetSource(ctx, id)
		if err != nil {
			if isNotFound(err) {
				return &Error{Status: http.StatusNotFound, Code: "not_found", Message: "No source " + id + " exists, or you do not have access to it.", Param: param}
			}
			return err
		}
		return s.visibleParam(ctx, src.OwnerID, "source "+id, param)
	case strings.HasPrefix(id, "wh_") && webhookOK:
		h, err := s.store.GetWebhook(ctx, id)
		if err != nil {
			if isNotFound(err) {
				return &Error{Status: http.StatusNotFound, Code: "not_found", Message: "No webhook " + id + " exists, or you do not have access to it.", Param: param}
			}
			return err
		}
		return s.visibleParam(ctx, h.OwnerID, "webhook "+id, param)
	case strings.HasPrefix(id, "p_"):
		// Workflows are not managed by fount's API (spec: "Workflow
		// development and management is not supported through the REST
		// API"), so no workflow id can be found.
		return &Error{Status: http.StatusNotFound, Code: "not_found", Message: "No workflow " + id + " exists.", Param: param}
	}
	kinds := "a source (dc_...) or workflow (p_...) id"
	if webhookOK {
		kinds = "a source (dc_...), workflow (p_...) or webhook (wh_...) id"
	}
	return errInvalid(param, "The %s must be %s.", param, kinds)
}

func (s *Server) visibleParam(ctx context.Context, ownerID, what, param string) error {
	ok, err := s.canAccess(ctx, ownerID)
	if err != nil {
		return err
	}
	if !ok {
		return &Error{Status: http.StatusNotFound, Code: "not_found", Message: "No " + what + " exists, or you do not have access to it.", Param: param}
	}
	return nil
}

func requiredString(p *params, name string) (string, error) {
	v, _, err := p.str(name)
	if err != nil {
		return "", err
	}
	if v == "" {
		return "", errMissing(name)
	}
	return v, nil
}

// subscriptionParams reads what identifies a subscription: emitter_id and
// listener_id (required) and event_name ("" for the default channel).
func subscriptionParams(p *params) (emitter, listener, eventName string, err error) {
	if emitter, err = requiredString(p, "emitter_id"); err != nil {
		return
	}
	if listener, err = requiredString(p, "listener_id"); err != nil {
		return
	}
	eventName, err = readEventName(p)
	return
}

func (s *Server) createSubscription(w http.ResponseWriter, r *http.Request, p *params) error {
	emitter, listener, eventName, err := subscriptionParams(p)
	if err != nil {
		return err
	}
	ctx := r.Context()
	if emitter != globSources && emitter != globWorkflows {
		if err := s.checkExists(ctx, emitter, "emitter_id", false); err != nil {
			return err
		}
	}
	if err := s.checkExists(ctx, listener, "listener_id", true); err != nil {
		return err
	}
	owner, err := s.subscriptionOwner(ctx, p, emitter)
	if err != nil {
		return err
	}
	sub, err := s.store.PutSubscription(ctx, store.Subscription{
		ID: store.NewID("sub_"), OwnerID: owner, EmitterID: emitter, ListenerID: listener, EventName: eventName, CreatedAt: time.Now().Unix(),
	})
	if err != nil {
		return err
	}
	s.writeData(w, r, subscriptionView{ID: sub.ID, EmitterID: sub.EmitterID, ListenerID: sub.ListenerID, EventName: sub.EventName})
	return nil
}

func (s *Server) deleteSubscription(w http.ResponseWriter, r *http.Request, p *params) error {
	emitter, listener, eventName, err := subscriptionParams(p)
	if err != nil {
		return err
	}
	owner, err := s.subscriptionOwner(r.Context(), p, emitter)
	if err != nil {
		return err
	}
	if err := s.store.DeleteSubscription(r.Context(), owner, emitter, listener, eventName); err != nil {
		if isNotFound(err) {
			return errNotFound("subscription")
		}
		return err
	}
	return noContent(w)
}

func (s *Server) listSubscriptionsOf(w http.ResponseWriter, r *http.Request, owner string) error {
	subs, err := s.store.ListSubscriptions(r.Context(), owner)
	if err != nil {
		return err
	}
	views := make([]subscriptionView, 0, len(subs))
	for _, sub := range subs {
		views = append(views, subscriptionView{ID: sub.ID, EmitterID: sub.EmitterID, ListenerID: sub.ListenerID, EventName: sub.EventName})
	}
	s.writeData(w, r, views)
	return nil
}

func (s *Server) listMySubscriptions(w http.ResponseWriter, r *http.Request, _ *params) error {
	return s.listSubscriptionsOf(w, r, caller(r.Context()).ID)
}

// subscriptionOwner decides which account holds a subscription: the
// org_id given, else the organization that owns the emitting source (so
// that every member's subscriptions to an org source live with it, where
// the engine looks for them and /orgs/{org_id}/subscriptions lists them),
// else the caller.
func (s *Server) subscriptionOwner(ctx context.Context, p *params, emitter string) (string, error) {
	if orgID, given, err := p.str("org_id"); err != nil || (given && orgID != "") {
		return s.ownerFor(ctx, p)
	}
	if strings.HasPrefix(emitter, "dc_") && emitter != globSources {
		src, err := s.store.GetSource(ctx, emitter)
		if err == nil && strings.HasPrefix(src.OwnerID, "o_") {
			if ok, err := s.canAccess(ctx, src.OwnerID); err != nil || ok {
				return src.OwnerID, err
			}
		}
	}
	return caller(ctx).ID, nil
}

// orgMember checks the {org_id} path parameter: 404 for an unknown
// organization, 403 for one the caller is not a member of.
func (s *Server) orgMember(r *http.Request) (string, error) {
	orgID := chi.URLParam(r, "org_id")
	if _, err := s.store.GetOrg(r.Context(), orgID); err != nil {
		if isNotFound(err) {
			return "", errNotFound("organization")
		}
		return "", err
	}
	ok, err := s.canAccess(r.Context(), orgID)
	if err != nil {
		return "", err
	}
	if !ok {
		return "", errForbidden("You are not a member of the organization %s.", orgID)
	}
	return orgID, nil
}

func (s *Server) listOrgSubscriptions(w http.ResponseWriter, r *http.Request, _ *params) error {
	orgID, err := s.orgMember(r)
	if err != nil {
		return err
	}
	return s.listSubscriptionsOf(w, r, orgID)
}

func (s *Server) createAutoSubscription(w http.ResponseWriter, r *http.Request, p *params) error {
	eventName, err := requiredString(p, "event_name")
	if err != nil {
		return err
	}
	if eventName != "$errors" && eventName != "$logs" {
		return errInvalid("event_name", "The event_name of an auto-subscription must be $errors or $logs.")
	}
	listener, err := requiredString(p, "listener_id")
	if err != nil {
		return err
	}
	if err := s.checkExists(r.Context(), listener, "listener_id", true); err != nil {
		return err
	}
	owner, err := s.ownerFor(r.Context(), p)
	if err != nil {
		return err
	}
	a, err := s.store.PutAutoSubscription(r.Context(), store.AutoSubscription{
		ID: store.NewID("sub_"), OwnerID: owner, ListenerID: listener, EventName: eventName, CreatedAt: time.Now().Unix(),
	})
	if err != nil {
		return err
	}
	s.writeData(w, r, subscriptionView{ID: a.ID, ListenerID: a.ListenerID, EventName: a.EventName})
	return nil
}
