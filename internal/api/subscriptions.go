package api

import (
	"context"
	"net/http"

	"github.com/fount-dev/fount/apiv1"
	"github.com/fount-dev/fount/internal/ids"
	"github.com/fount-dev/fount/internal/model"
)

// maxEventName bounds a channel name, as the ABI bounds an emit's.
const maxEventName = 256

func checkEventName(name string) error {
	if len(name) > maxEventName {
		return errInvalid("event_name", "The event_name is longer than %d bytes.", maxEventName)
	}
	return nil
}

// checkExists verifies that id names a resource of an allowed kind that
// the caller can see. Unknown ids and other people's resources are both
// 404.
func (s *Server) checkExists(ctx context.Context, id, param string, kinds ...ids.Kind) error {
	kind, _ := ids.Of(id)
	allowed := false
	for _, k := range kinds {
		allowed = allowed || k == kind
	}
	if !allowed {
		return errInvalid(param, "The %s must be %s; %q is not.", param, kindList(kinds), id)
	}
	var owner string
	switch kind {
	case ids.Source:
		src, err := s.records.GetSource(ctx, id)
		if err != nil {
			return s.missing(err, "source "+id, param)
		}
		owner = src.OwnerID
	case ids.Webhook:
		h, err := s.records.GetWebhook(ctx, id)
		if err != nil {
			return s.missing(err, "webhook "+id, param)
		}
		owner = h.OwnerID
	case ids.Workflow:
		wf, err := s.records.GetWorkflow(ctx, id)
		if err != nil {
			return s.missing(err, "workflow "+id, param)
		}
		owner = wf.OwnerID
	}
	return s.visible(ctx, owner, kind.Noun()+" "+id, param)
}

// listenerOf is the listener a checked listener_id names (checkExists
// allows sources, workflows and webhooks).
func listenerOf(id string) model.Listener {
	l := model.Listener{ID: id}
	switch kind, _ := ids.Of(id); kind {
	case ids.Source:
		l.Kind = model.ListenerSource
	case ids.Workflow:
		l.Kind = model.ListenerWorkflow
	case ids.Webhook:
		l.Kind = model.ListenerWebhook
	}
	return l
}

// missing turns a failed read of a named resource into its 404.
func (s *Server) missing(err error, what, param string) error {
	if isNotFound(err) {
		return notVisible(what, param)
	}
	return err
}

// kindList says which kinds of id a parameter takes.
func kindList(kinds []ids.Kind) string {
	out := ""
	for i, k := range kinds {
		switch {
		case i == 0:
			out = "a "
		case i == len(kinds)-1:
			out += " or "
		default:
			out += ", "
		}
		out += k.Noun() + " (" + string(k) + "...)"
	}
	return out + " id"
}

// subscription checks what identifies a subscription: its emitter (an id
// or a glob), its listener and its channel.
func (s *Server) checkSubscription(ctx context.Context, req *apiv1.SubscriptionRequest) error {
	if err := checkEventName(req.EventName); err != nil {
		return err
	}
	if _, glob := ids.GlobOf(req.EmitterID); !glob {
		if err := s.checkExists(ctx, req.EmitterID, "emitter_id", ids.Source, ids.Workflow); err != nil {
			return err
		}
	}
	return s.checkExists(ctx, req.ListenerID, "listener_id", ids.Source, ids.Workflow, ids.Webhook)
}

func (s *Server) createSubscription(w http.ResponseWriter, r *http.Request, req *apiv1.SubscriptionRequest) error {
	ctx := r.Context()
	if err := s.checkSubscription(ctx, req); err != nil {
		return err
	}
	owner, err := s.subscriptionOwner(ctx, req.OrgID, req.EmitterID)
	if err != nil {
		return err
	}
	sub, err := s.edit.CreateSubscription(ctx, owner, req.EmitterID, listenerOf(req.ListenerID), req.EventName)
	if err != nil {
		return err
	}
	s.writeData(w, r, viewSubscription(sub))
	return nil
}

func (s *Server) deleteSubscription(w http.ResponseWriter, r *http.Request, req *apiv1.SubscriptionRequest) error {
	if err := checkEventName(req.EventName); err != nil {
		return err
	}
	owner, err := s.subscriptionOwner(r.Context(), req.OrgID, req.EmitterID)
	if err != nil {
		return err
	}
	if err := s.edit.DeleteSubscription(r.Context(), owner, req.EmitterID, req.ListenerID, req.EventName); err != nil {
		if isNotFound(err) {
			return errNotFound("subscription")
		}
		return err
	}
	return noContent(w)
}

func (s *Server) listSubscriptionsOf(w http.ResponseWriter, r *http.Request, owner string) error {
	subs, err := s.records.ListSubscriptions(r.Context(), owner)
	if err != nil {
		return err
	}
	s.writeData(w, r, viewAll(subs, viewSubscription))
	return nil
}

func (s *Server) listMySubscriptions(w http.ResponseWriter, r *http.Request, _ *apiv1.Empty) error {
	return s.listSubscriptionsOf(w, r, caller(r.Context()).ID)
}

// subscriptionOwner decides which account holds a subscription: the
// org_id given, else the organization that owns the emitting source (so
// that every member's subscriptions to an org source live with it, where
// the engine looks for them and /orgs/{org_id}/subscriptions lists them),
// else the caller.
func (s *Server) subscriptionOwner(ctx context.Context, orgID, emitter string) (string, error) {
	if orgID != "" {
		return s.ownerFor(ctx, orgID)
	}
	if ids.Is(emitter, ids.Source) {
		src, err := s.records.GetSource(ctx, emitter)
		if err == nil && ids.Is(src.OwnerID, ids.Org) {
			if ok, err := s.canAccess(ctx, src.OwnerID); err != nil || ok {
				return src.OwnerID, err
			}
		}
	}
	return caller(ctx).ID, nil
}

// orgMember checks an {org_id} path parameter: 404 for an unknown
// organization, 403 for one the caller is not a member of.
func (s *Server) orgMember(r *http.Request, orgID string) (string, error) {
	if _, err := s.records.GetOrg(r.Context(), orgID); err != nil {
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

func (s *Server) listOrgSubscriptions(w http.ResponseWriter, r *http.Request, req *apiv1.OrgRequest) error {
	orgID, err := s.orgMember(r, req.Org)
	if err != nil {
		return err
	}
	return s.listSubscriptionsOf(w, r, orgID)
}

func (s *Server) createAutoSubscription(w http.ResponseWriter, r *http.Request, req *apiv1.AutoSubscriptionRequest) error {
	if req.EventName != "$errors" && req.EventName != "$logs" {
		return errInvalid("event_name", "The event_name of an auto-subscription must be $errors or $logs.")
	}
	if err := s.checkExists(r.Context(), req.ListenerID, "listener_id", ids.Source, ids.Workflow, ids.Webhook); err != nil {
		return err
	}
	owner, err := s.ownerFor(r.Context(), req.OrgID)
	if err != nil {
		return err
	}
	a, err := s.edit.CreateAutoSubscription(r.Context(), owner, listenerOf(req.ListenerID), req.EventName)
	if err != nil {
		return err
	}
	s.writeData(w, r, apiv1.Subscription{ID: a.ID, ListenerID: a.ListenerID, EventName: a.EventName})
	return nil
}
