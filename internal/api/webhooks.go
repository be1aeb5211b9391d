package api

import (
	"context"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/fount-dev/fount/apiv1"
	"github.com/fount-dev/fount/internal/ids"
	"github.com/fount-dev/fount/internal/model"
	"github.com/fount-dev/fount/internal/records"
)

// validateWebhookURL accepts an http or https URL with a hostname and an
// optional port, path and query. Credentials in the URL, a fragment, or
// anything that is not a valid host are refused.
func validateWebhookURL(raw string) error {
	bad := func(why string) error {
		return errInvalid("url", "The url %s; give an http or https URL with a hostname, like https://example.com/hooks/fount.", why)
	}
	if raw == "" {
		return errMissing("url")
	}
	u, err := url.Parse(raw)
	if err != nil {
		return bad("does not parse")
	}
	switch {
	case u.Scheme == "":
		return bad("has no protocol")
	case u.Scheme != "http" && u.Scheme != "https":
		return bad("uses the protocol " + strconv.Quote(u.Scheme))
	case u.Opaque != "" || u.Host == "":
		return bad("has no hostname")
	case u.User != nil:
		return bad("carries credentials")
	case u.Fragment != "" || strings.Contains(raw, "#"):
		return bad("has a fragment")
	}
	host := u.Hostname()
	if host == "" || !validHost(host) {
		return bad("has an invalid hostname")
	}
	if port := u.Port(); port != "" {
		n, err := strconv.Atoi(port)
		if err != nil || n < 1 || n > 65535 {
			return bad("has an invalid port")
		}
	} else if strings.HasSuffix(u.Host, ":") {
		return bad("has an empty port")
	}
	return nil
}

// validHost accepts an IP address or a DNS name of letters, digits and
// hyphens in dot-separated labels.
func validHost(h string) bool {
	if net.ParseIP(h) != nil {
		return true
	}
	if len(h) > 253 {
		return false
	}
	for _, label := range strings.Split(strings.TrimSuffix(h, "."), ".") {
		if label == "" || len(label) > 63 || label[0] == '-' || label[len(label)-1] == '-' {
			return false
		}
		for _, c := range label {
			if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-') {
				return false
			}
		}
	}
	return true
}

func (s *Server) createWebhook(w http.ResponseWriter, r *http.Request, req *apiv1.CreateWebhookRequest) error {
	if err := s.checkWebhookURL(r.Context(), req.URL); err != nil {
		return err
	}
	owner, err := s.ownerFor(r.Context(), req.OrgID)
	if err != nil {
		return err
	}
	h, err := s.edit.CreateWebhook(r.Context(), records.WebhookRequest{OwnerID: owner, UserID: caller(r.Context()).ID,
		URL: req.URL, Name: req.Name, Description: req.Description})
	if err != nil {
		return err
	}
	v := viewWebhook(h)
	v.UserID = h.UserID
	v.SigningSecret = h.SigningSecret
	s.writeData(w, r, v)
	return nil
}

func (s *Server) listWebhooks(w http.ResponseWriter, r *http.Request, req *apiv1.ListRequest) error {
	return s.listWebhooksOf(w, r, caller(r.Context()).ID, req.PageParams)
}

// listOrgWebhooks lists an organization's webhooks, for its members.
func (s *Server) listOrgWebhooks(w http.ResponseWriter, r *http.Request, req *apiv1.OrgListRequest) error {
	orgID, err := s.orgMember(r, req.Org)
	if err != nil {
		return err
	}
	return s.listWebhooksOf(w, r, orgID, req.PageParams)
}

// listWebhooksOf lists the webhooks an account (a user or an
// organization) owns.
func (s *Server) listWebhooksOf(w http.ResponseWriter, r *http.Request, ownerID string, params apiv1.PageParams) error {
	page, err := s.readPage(r, params)
	if err != nil {
		return err
	}
	pg, err := s.records.ListWebhooks(r.Context(), ownerID, page)
	if err != nil {
		return err
	}
	writePage(s, w, r, pageFrom(pg, page, viewWebhook)) // the list omits user_id, as the specification shows
	return nil
}

// ownedWebhook loads a webhook, 404 unless the caller can see it.
func (s *Server) ownedWebhook(ctx context.Context, id string) (model.Webhook, error) {
	h, err := s.records.GetWebhook(ctx, id)
	if isNotFound(err) {
		return h, errNotFound("webhook")
	}
	if err != nil {
		return h, err
	}
	return h, s.visible(ctx, h.OwnerID, "webhook", "")
}

func (s *Server) deleteWebhook(w http.ResponseWriter, r *http.Request, req *apiv1.SourceByIDRequest) error {
	h, err := s.ownedWebhook(r.Context(), req.ID)
	if err != nil {
		return err
	}
	if err := s.edit.DeleteWebhook(r.Context(), h.ID); err != nil {
		return err
	}
	return noContent(w)
}

func (s *Server) listDeliveries(w http.ResponseWriter, r *http.Request, req *apiv1.DeliveriesRequest) error {
	h, err := s.ownedWebhook(r.Context(), req.ID)
	if err != nil {
		return err
	}
	page, err := s.readPage(r, req.PageParams)
	if err != nil {
		return err
	}
	pg, err := s.engine.Deliveries(r.Context(), h.ID, page)
	if err != nil {
		return err
	}
	writePage(s, w, r, pageFrom(pg, page, viewDelivery))
	return nil
}

func (s *Server) updateWebhook(w http.ResponseWriter, r *http.Request, req *apiv1.UpdateWebhookRequest) error {
	h, err := s.ownedWebhook(r.Context(), req.ID)
	if err != nil {
		return err
	}
	if req.URL != nil {
		if err := s.checkWebhookURL(r.Context(), *req.URL); err != nil {
			return err
		}
	}
	h, err = s.edit.UpdateWebhook(r.Context(), h.ID, records.WebhookChange{URL: req.URL, Name: req.Name, Description: req.Description, Active: req.Active})
	if err != nil {
		return err
	}
	s.writeData(w, r, viewWebhook(h))
	return nil
}

// maxRotationOverlap bounds how long an old signing secret stays valid.
const maxRotationOverlap = 7 * 24 * time.Hour

func (s *Server) rotateWebhook(w http.ResponseWriter, r *http.Request, req *apiv1.RotateWebhookRequest) error {
	h, err := s.ownedWebhook(r.Context(), req.ID)
	if err != nil {
		return err
	}
	overlap := 24 * time.Hour
	if req.OverlapSeconds != nil {
		overlap = time.Duration(*req.OverlapSeconds) * time.Second
		if overlap < 0 || overlap > maxRotationOverlap {
			return errInvalid("overlap_seconds", "The overlap must be from 0 to %d seconds (7 days).", int64(maxRotationOverlap/time.Second))
		}
	}
	if h, err = s.edit.RotateWebhookSecret(r.Context(), h.ID, overlap); err != nil {
		return err
	}
	v := viewWebhook(h)
	v.SigningSecret = h.SigningSecret
	s.writeData(w, r, v)
	return nil
}

func (s *Server) resendDelivery(w http.ResponseWriter, r *http.Request, req *apiv1.ResendDeliveryRequest) error {
	h, err := s.ownedWebhook(r.Context(), req.ID)
	if err != nil {
		return err
	}
	dl, err := s.engine.ResendDelivery(r.Context(), h.ID, req.DeliveryID)
	if isNotFound(err) {
		return errNotFound("delivery of this webhook")
	}
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusAccepted, apiv1.Data[apiv1.Delivery]{Data: viewDelivery(dl)})
	return nil
}

// checkWebhookURL refuses a webhook URL that is malformed, or that the
// egress policy would refuse: every delivery to it would fail.
func (s *Server) checkWebhookURL(ctx context.Context, u string) error {
	if err := validateWebhookURL(u); err != nil {
		return err
	}
	if s.checkDest == nil {
		return nil
	}
	if err := s.checkDest(ctx, u); err != nil {
		return errInvalid("url", "The egress policy refuses this URL, so every delivery would fail: %v. A server whose webhooks reach private addresses runs with --allow-private-egress.", err)
	}
	return nil
}

func (s *Server) replay(w http.ResponseWriter, r *http.Request, req *apiv1.ReplayRequest) error {
	ctx := r.Context()
	h, err := s.ownedWebhook(ctx, req.ID)
	if err != nil {
		return err
	}
	switch {
	case ids.Is(req.EmitterID, ids.Source):
		if _, err := s.ownedSource(ctx, req.EmitterID); err != nil {
			return err
		}
	case ids.Is(req.EmitterID, ids.Workflow):
		if _, err := s.ownedWorkflow(ctx, req.EmitterID); err != nil {
			return err
		}
	default:
		return errInvalid("emitter_id", "The emitter_id must be a source's (dc_) or a workflow's (p_) id.")
	}
	to := req.ToMs
	if to == 0 {
		to = s.engine.Now().UnixMilli()
	}
	if req.FromMs < 0 || to < req.FromMs {
		return errInvalid("from_ms", "The range must run from from_ms to to_ms, oldest first.")
	}
	ds, err := s.engine.ReplayEvents(ctx, h.ID, req.EmitterID, req.EventName, req.FromMs, to)
	if err != nil {
		return err
	}
	out := apiv1.Replayed{Deliveries: []apiv1.Delivery{}}
	for _, d := range ds {
		out.Deliveries = append(out.Deliveries, viewDelivery(d))
	}
	writeJSON(w, http.StatusAccepted, apiv1.Data[apiv1.Replayed]{Data: out})
	return nil
}
