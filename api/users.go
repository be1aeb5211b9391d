package api

import (
	"crypto/rand"
	"encoding/base64"
	"net/http"
	"net/mail"
	"regexp"
	"time"

	"github.com/go-chi/chi/v5"

	"github.com/fount-dev/fount/store"
)

type orgView struct {
	ID      string `json:"id"`
	Name    string `json:"name"`
	Orgname string `json:"orgname"`
	Email   string `json:"email"`
}

type userView struct {
	ID       string    `json:"id"`
	Username string    `json:"username"`
	Email    string    `json:"email"`
	Orgs     []orgView `json:"orgs"`
	// Free plan.
	DailyComputeTimeQuota *int64 `json:"daily_compute_time_quota,omitempty"`
	DailyComputeTimeUsed  *int64 `json:"daily_compute_time_used,omitempty"`
	DailyInvocationsQuota *int64 `json:"daily_invocations_quota,omitempty"`
	DailyInvocationsUsed  *int64 `json:"daily_invocations_used,omitempty"`
	// Paid plan.
	BillingPeriodStartTS     *int64 `json:"billing_period_start_ts,omitempty"`
	BillingPeriodEndTS       *int64 `json:"billing_period_end_ts,omitempty"`
	BillingPeriodInvocations *int64 `json:"billing_period_invocations,omitempty"`
}

func ptr[T any](v T) *T { return &v }

func (s *Server) getMe(w http.ResponseWriter, r *http.Request, _ *params) error {
	u := caller(r.Context())
	orgs, err := s.store.OrgsOfUser(r.Context(), u.ID)
	if err != nil {
		return err
	}
	v := userView{ID: u.ID, Username: u.Username, Email: u.Email, Orgs: []orgView{}}
	for _, o := range orgs {
		v.Orgs = append(v.Orgs, orgView{ID: o.ID, Name: o.Name, Orgname: o.Orgname, Email: o.Email})
	}
	now := time.Now().UTC()
	usage, err := s.engine.Usage(r.Context(), u.ID, now.Format(time.DateOnly))
	if err != nil {
		return err
	}
	if u.Plan == store.PlanPaid {
		// The billing period is the calendar month (UTC); usage is kept
		// per day, so its invocations are the sum of its days so far.
		start := time.Date(now.Year(), now.Month(), 1, 0, 0, 0, 0, time.UTC)
		var total int64
		for d := start; !d.After(now); d = d.AddDate(0, 0, 1) {
			day, err := s.engine.Usage(r.Context(), u.ID, d.Format(time.DateOnly))
			if err != nil {
				return err
			}
			total += day.Invocations
		}
		v.BillingPeriodStartTS = ptr(start.Unix())
		v.BillingPeriodEndTS = ptr(start.AddDate(0, 1, 0).Unix())
		v.BillingPeriodInvocations = ptr(total)
	} else {
		invQuota, computeQuota := s.engine.Quotas()
		v.DailyComputeTimeQuota = ptr(computeQuota)
		v.DailyComputeTimeUsed = ptr(usage.ComputeMs)
		v.DailyInvocationsQuota = ptr(invQuota)
		v.DailyInvocationsUsed = ptr(usage.Invocations)
	}
	s.writeData(w, r, v)
	return nil
}

var usernamePattern = regexp.MustCompile(`^[a-zA-Z0-9][a-zA-Z0-9_.-]{0,63}$`)

// requireOwner allows only the server's owner user.
func requireOwner(r *http.Request) error {
	if !caller(r.Context()).Owner {
		return errForbidden("Only the server's owner may administer users and organizations.")
	}
	return nil
}

// NewAPIKey returns a fresh random API key.
func NewAPIKey() string {
	b := make([]byte, 32)
	_, _ = rand.Read(b)
	return "fount_" + base64.RawURLEncoding.EncodeToString(b)
}

func (s *Server) createUser(w http.ResponseWriter, r *http.Request, p *params) error {
	if err := requireOwner(r); err != nil {
		return err
	}
	username, _, err := p.str("username")
	if err != nil {
		return err
	}
	if !usernamePattern.MatchString(username) {
		return errInvalid("username", "The username must be 1 to 64 letters, digits, '.', '_' or '-', starting with a letter or digit.")
	}
	email, err := readEmail(p, "email", true)
	if err != nil {
		return err
	}
	plan, given, err := p.str("plan")
	if err != nil {
		return err
	}
	if !given {
		plan = store.PlanFree
	}
	if plan != store.PlanFree && plan != store.PlanPaid {
		return errInvalid("plan", "The plan must be %q or %q.", store.PlanFree, store.PlanPaid)
	}
	key := NewAPIKey()
	u := store.User{ID: store.NewID("u_"), Username: username, Email: email, Plan: plan, CreatedAt: time.Now().Unix()}
	if err := s.store.CreateUser(r.Context(), u, HashKey(key)); err != nil {
		return err
	}
	s.writeData(w, r, map[string]any{"id": u.ID, "username": u.Username, "email": u.Email, "plan": u.Plan, "api_key": key})
	return nil
}

func readEmail(p *params, name string, required bool) (string, error) {
	email, given, err := p.str(name)
	if err != nil {
		return "", err
	}
	if !given || email == "" {
		if required {
			return "", errMissing(name)
		}
		return "", nil
	}
	if a, err := mail.ParseAddress(email); err != nil || a.Address != email {
		return "", errInvalid(name, "The parameter %s must be an email address like name@example.com.", name)
	}
	return email, nil
}

func (s *Server) createOrg(w http.ResponseWriter, r *http.Request, p *params) error {
	if err := requireOwner(r); err != nil {
		return err
	}
	orgname, _, err := p.str("orgname")
	if err != nil {
		return err
	}
	if !usernamePattern.MatchString(orgname) {
		return errInvalid("orgname", "The orgname must be 1 to 64 letters, digits, '.', '_' or '-', starting with a letter or digit.")
	}
	name, _, err := p.str("name")
	if err != nil {
		return err
	}
	if name == "" {
		name = orgname
	}
	email, err := readEmail(p, "email", false)
	if err != nil {
		return err
	}
	// The creator becomes the first member, so the organization is usable
	// at once; more members are added with POST /orgs/{org_id}/members.
	o := store.Org{ID: store.NewID("o_"), Orgname: orgname, Name: name, Email: email, Members: []string{caller(r.Context()).ID}, CreatedAt: time.Now().Unix()}
	if err := s.store.CreateOrg(r.Context(), o); err != nil {
		return err
	}
	s.writeData(w, r, orgResponse(o))
	return nil
}

func orgResponse(o store.Org) map[string]any {
	return map[string]any{"id": o.ID, "orgname": o.Orgname, "name": o.Name, "email": o.Email, "members": o.Members}
}

func (s *Server) addOrgMember(w http.ResponseWriter, r *http.Request, p *params) error {
	if err := requireOwner(r); err != nil {
		return err
	}
	userID, given, err := p.str("user_id")
	if err != nil {
		return err
	}
	if !given || userID == "" {
		return errMissing("user_id")
	}
	if _, err := s.store.GetUser(r.Context(), userID); err != nil {
		if isNotFound(err) {
			return errInvalid("user_id", "No user %s exists.", userID)
		}
		return err
	}
	o, err := s.store.AddOrgMember(r.Context(), chi.URLParam(r, "org_id"), userID)
	if err != nil {
		if isNotFound(err) {
			return errNotFound("organization")
		}
		return err
	}
	s.writeData(w, r, orgResponse(o))
	return nil
}
