package api

import (
	"crypto/rand"
	"encoding/base64"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/go-chi/chi/v5"

	"github.com/fount-dev/fount/store"
)

type webhookView struct {
	ID          string  `json:"id"`
	UserID      string  `json:"user_id,omitempty"`
	Name        *string `json:"name"`
	Description *string `json:"description"`
	URL         string  `json:"url"`
	Active      bool    `json:"active"`
	CreatedAt   int64   `json:"created_at"`
	UpdatedAt   int64   `json:"updated_at"`
	// SigningSecret is shown once, in the create response (extension).
	SigningSecret string `json:"signing_secret,omitempty"`
}

func viewWebhook(h store.Webhook) webhookView {
	return webhookView{ID: h.ID, Name: h.Name, Description: h.Description, URL: h.URL, Active: h.Active, CreatedAt: h.CreatedAt, UpdatedAt: h.UpdatedAt}
}

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

func optionalString(p *params, name string) (*string, error) {
	v, given, err := p.str(name)
	if err != nil || !given {
		return nil, err
	}
	return &v, nil
}

func (s *Server) createWebhook(w http.ResponseWriter, r *http.Request, p *params) error {
	rawURL, _, err := p.str("url")
	if err != nil {
		return err
	}
	if err := validateWebhookURL(rawURL); err != nil {
		return err
	}
	name, err := optionalString(p, "name")
	if err != nil {
		return err
	}
	desc, err := optionalString(p, "description")
	if err != nil {
		return err
	}
	owner, err := s.ownerFor(r.Context(), p)
	if err != nil {
		return err
	}
	secret := make([]byte, 24)
	_, _ = rand.Read(secret)
	now := time.Now().Unix()
	h := store.Webhook{
		ID: store.NewID("wh_"), OwnerID: owner, UserID: caller(r.Context()).ID, Name: name, Description: desc,
		URL: rawURL, Active: true, SigningSecret: "whsec_" + base64.StdEncoding.EncodeToString(secret), CreatedAt: now, UpdatedAt: now,
	}
	if err := s.store.CreateWebhook(r.Context(), h); err != nil {
		return err
	}
	v := viewWebhook(h)
	v.UserID = h.UserID
	v.SigningSecret = h.SigningSecret
	s.writeData(w, r, v)
	return nil
}

func (s *Server) listWebhooks(w http.ResponseWriter, r *http.Request, _ *params) error {
	page, err := readPage(r)
	if err != nil {
		return err
	}
	pg, err := s.store.ListWebhooks(r.Context(), caller(r.Context()).ID, page)
	if err != nil {
		return err
	}
	views := make([]webhookView, 0, len(pg.Items))
	for _, h := range pg.Items {
		views = append(views, viewWebhook(h)) // the list omits user_id, as the spec shows
	}
	s.writePage(w, r, pageInfo(pg), views)
	return nil
}

func (s *Server) deleteWebhook(w http.ResponseWriter, r *http.Request, _ *params) error {
	h, err := s.store.GetWebhook(r.Context(), chi.URLParam(r, "id"))
	if err != nil {
		if isNotFound(err) {
			return errNotFound("webhook")
		}
		return err
	}
	if err := s.visible(r.Context(), h.OwnerID, "webhook"); err != nil {
		return err
	}
	if err := s.store.DeleteWebhook(r.Context(), h.ID); err != nil {
		return err
	}
	return noContent(w)
}
