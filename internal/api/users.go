package api

import (
	"crypto/rand"
	"encoding/base64"
	"net/http"
	"net/mail"
	"regexp"
	"time"

	"github.com/fount-dev/fount/apiv1"
	"github.com/fount-dev/fount/internal/model"
)

func ptr[T any](v T) *T { return &v }

func (s *Server) getMe(w http.ResponseWriter, r *http.Request, _ *apiv1.Empty) error {
	u := caller(r.Context())
	orgs, err := s.records.OrgsOfUser(r.Context(), u.ID)
	if err != nil {
		return err
	}
	v := apiv1.User{ID: u.ID, Username: u.Username, Email: u.Email, Orgs: []apiv1.UserOrg{}}
	for _, o := range orgs {
		v.Orgs = append(v.Orgs, apiv1.UserOrg{ID: o.ID, Name: o.Name, Orgname: o.Orgname, Email: o.Email})
	}
	now := s.engine.Now().UTC()
	usage, err := s.engine.Usage(r.Context(), u.ID, now.Format(time.DateOnly))
	if err != nil {
		return err
	}
	if u.Plan == model.PlanPaid {
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
	v.DailyNpmBytes = ptr(usage.NpmBytes)
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

func (s *Server) createUser(w http.ResponseWriter, r *http.Request, req *apiv1.CreateUserRequest) error {
	if err := requireOwner(r); err != nil {
		return err
	}
	if !usernamePattern.MatchString(req.Username) {
		return errInvalid("username", "The username must be 1 to 64 letters, digits, '.', '_' or '-', starting with a letter or digit.")
	}
	if err := checkEmail("email", req.Email); err != nil {
		return err
	}
	plan := req.Plan
	if plan == "" {
		plan = model.PlanFree
	}
	if plan != model.PlanFree && plan != model.PlanPaid {
		return errInvalid("plan", "The plan must be %q or %q.", model.PlanFree, model.PlanPaid)
	}
	key := NewAPIKey()
	u, err := s.edit.CreateUser(r.Context(), req.Username, req.Email, plan, HashKey(key))
	if err != nil {
		return err
	}
	s.writeData(w, r, apiv1.CreatedUser{ID: u.ID, Username: u.Username, Email: u.Email, Plan: u.Plan, APIKey: key})
	return nil
}

// checkEmail checks an email parameter, which may be empty unless it is
// required (the decoder checks that).
func checkEmail(name, email string) error {
	if email == "" {
		return nil
	}
	if a, err := mail.ParseAddress(email); err != nil || a.Address != email {
		return errInvalid(name, "The parameter %s must be an email address like name@example.com.", name)
	}
	return nil
}

func (s *Server) createOrg(w http.ResponseWriter, r *http.Request, req *apiv1.CreateOrgRequest) error {
	if err := requireOwner(r); err != nil {
		return err
	}
	if !usernamePattern.MatchString(req.Orgname) {
		return errInvalid("orgname", "The orgname must be 1 to 64 letters, digits, '.', '_' or '-', starting with a letter or digit.")
	}
	name := req.Name
	if name == "" {
		name = req.Orgname
	}
	if err := checkEmail("email", req.Email); err != nil {
		return err
	}
	// The creator becomes the first member; more are added with POST
	// /orgs/{org_id}/members.
	o, err := s.edit.CreateOrg(r.Context(), req.Orgname, name, req.Email, caller(r.Context()).ID)
	if err != nil {
		return err
	}
	s.writeData(w, r, viewOrg(o))
	return nil
}

func (s *Server) addOrgMember(w http.ResponseWriter, r *http.Request, req *apiv1.AddOrgMemberRequest) error {
	if err := requireOwner(r); err != nil {
		return err
	}
	if _, err := s.records.GetUser(r.Context(), req.UserID); err != nil {
		if isNotFound(err) {
			return errInvalid("user_id", "No user %s exists.", req.UserID)
		}
		return err
	}
	o, err := s.edit.AddOrgMember(r.Context(), req.Org, req.UserID)
	if err != nil {
		if isNotFound(err) {
			return errNotFound("organization")
		}
		return err
	}
	s.writeData(w, r, viewOrg(o))
	return nil
}
