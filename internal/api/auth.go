package api

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"net/http"
	"strings"

	"github.com/fount-dev/fount/internal/ids"
	"github.com/fount-dev/fount/internal/model"
)

type callerKey struct{}

// caller is the authenticated user of a request.
func caller(ctx context.Context) model.User {
	u, _ := ctx.Value(callerKey{}).(model.User)
	return u
}

// HashKey is how API keys are stored: hex sha256. Keys are random and
// long, so a fast hash is enough; no key is ever stored in clear.
func HashKey(key string) string {
	sum := sha256.Sum256([]byte(key))
	return hex.EncodeToString(sum[:])
}

// authenticate requires `Authorization: Bearer <key>` naming a known key,
// or, from the dashboard, its session cookie (see session.go).
func (s *Server) authenticate(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if token := sessionToken(r); token != "" && r.Header.Get("Authorization") == "" {
			u, _, err := s.cookieSession(r, token)
			if err != nil {
				s.writeError(w, r, err)
				return
			}
			next.ServeHTTP(w, r.WithContext(context.WithValue(withCaller(r.Context(), u), sessionKey{}, token)))
			return
		}
		scheme, key, ok := strings.Cut(r.Header.Get("Authorization"), " ")
		if !ok || !strings.EqualFold(scheme, "Bearer") || strings.TrimSpace(key) == "" {
			s.writeError(w, r, errUnauthorized)
			return
		}
		key = strings.TrimSpace(key)
		u, err := s.records.UserByKeyHash(r.Context(), HashKey(key))
		if errors.Is(err, model.ErrNotFound) {
			s.refuseKey(w, r, key, errUnauthorized)
			return
		}
		if err != nil {
			s.writeError(w, r, err)
			return
		}
		next.ServeHTTP(w, r.WithContext(withCaller(r.Context(), u)))
	})
}

// canAccess reports whether the caller may use a resource owned by
// ownerID: their own, or their organization's.
func (s *Server) canAccess(ctx context.Context, ownerID string) (bool, error) {
	u := caller(ctx)
	if ownerID == u.ID {
		return true, nil
	}
	if !ids.Is(ownerID, ids.Org) {
		return false, nil
	}
	org, err := s.records.GetOrg(ctx, ownerID)
	if errors.Is(err, model.ErrNotFound) {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	for _, m := range org.Members {
		if m == u.ID {
			return true, nil
		}
	}
	return false, nil
}

// ownerFor resolves where a new resource goes: the caller, or the org named
// by org_id, which the caller must belong to (403 otherwise).
func (s *Server) ownerFor(ctx context.Context, orgID string) (string, error) {
	if orgID == "" {
		return caller(ctx).ID, nil
	}
	ok, err := s.canAccess(ctx, orgID)
	if err != nil {
		return "", err
	}
	if !ok || !ids.Is(orgID, ids.Org) {
		return "", errForbidden("You are not a member of the organization %s.", orgID)
	}
	return orgID, nil
}

// visible answers a resource the caller cannot access as not found, never
// as forbidden, so that its existence is not revealed. what names it in
// the message ("source", or "source dc_..."); param is the parameter that
// named it, if any.
func (s *Server) visible(ctx context.Context, ownerID, what, param string) error {
	ok, err := s.canAccess(ctx, ownerID)
	if err != nil {
		return err
	}
	if !ok {
		return notVisible(what, param)
	}
	return nil
}

// notVisible is the 404 of a resource that does not exist or that the
// caller cannot access.
func notVisible(what, param string) *Error {
	return &Error{Status: http.StatusNotFound, Code: "not_found", Param: param,
		Message: "No " + what + " exists, or you do not have access to it."}
}
