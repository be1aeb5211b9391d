package api

import (
	"context"
	"crypto/rand"
	"crypto/subtle"
	"encoding/base64"
	"encoding/json"
	"errors"
	"io"
	"mime"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/fount-dev/fount/apiv1"
	"github.com/fount-dev/fount/internal/model"
)

// The dashboard signs a browser in with an API key once; after that the
// browser carries a session cookie instead, so that the key never sits in
// page storage where a script could read it.
const (
	sessionCookie = "fount_session"
	csrfHeader    = "X-CSRF-Token"
	// SessionTTL is how long a dashboard session lasts from sign-in.
	SessionTTL = 12 * time.Hour
	// maxSessionsPerUser bounds one user's sessions; past it that user's
	// oldest ends. maxSessions bounds them all: past it sign-in is
	// refused until sessions expire, rather than one user's sign-ins
	// ending other users' sessions.
	maxSessionsPerUser = 20
	maxSessions        = 10000
)

// session is one signed-in browser. It holds the hash of the key it was
// opened with, so that a key that stops working ends its sessions too.
type session struct {
	keyHash string
	userID  string
	csrf    string
	expires time.Time
}

// sessions are kept in memory, by the hash of their token: a restart
// signs every browser out, which costs a user one sign-in and keeps no
// bearer credential in the store.
type sessions struct {
	mu     sync.Mutex
	now    func() time.Time
	byHash map[string]session
}

func newSessions(now func() time.Time) *sessions {
	if now == nil {
		now = time.Now
	}
	return &sessions{now: now, byHash: make(map[string]session)}
}

// open starts a session and returns its token and CSRF token; false when
// the server holds as many sessions as it may.
func (ss *sessions) open(keyHash, userID string) (token string, s session, ok bool) {
	token, s = randomToken(), session{keyHash: keyHash, userID: userID, csrf: randomToken(), expires: ss.now().Add(SessionTTL)}
	ss.mu.Lock()
	defer ss.mu.Unlock()
	now := ss.now()
	var mine []string
	for h, old := range ss.byHash {
		switch {
		case !now.Before(old.expires):
			delete(ss.byHash, h)
		case old.userID == userID:
			mine = append(mine, h)
		}
	}
	if len(mine) >= maxSessionsPerUser {
		oldest := mine[0]
		for _, h := range mine {
			if ss.byHash[h].expires.Before(ss.byHash[oldest].expires) {
				oldest = h
			}
		}
		delete(ss.byHash, oldest)
	}
	if len(ss.byHash) >= maxSessions {
		return "", session{}, false
	}
	ss.byHash[HashKey(token)] = s
	return token, s, true
}

// get returns the live session of a token.
func (ss *sessions) get(token string) (session, bool) {
	ss.mu.Lock()
	defer ss.mu.Unlock()
	s, ok := ss.byHash[HashKey(token)]
	if ok && !ss.now().Before(s.expires) {
		delete(ss.byHash, HashKey(token))
		return session{}, false
	}
	return s, ok
}

func (ss *sessions) close(token string) {
	ss.mu.Lock()
	defer ss.mu.Unlock()
	delete(ss.byHash, HashKey(token))
}

func randomToken() string {
	b := make([]byte, 32)
	if _, err := rand.Read(b); err != nil {
		panic("crypto/rand failed: " + err.Error()) // never, by its documentation
	}
	return base64.RawURLEncoding.EncodeToString(b)
}

var (
	errCSRF = &Error{Status: http.StatusForbidden, Code: "csrf_token_invalid",
		Message: "A request authenticated by the dashboard's session cookie must send the session's CSRF token in the X-CSRF-Token header, from the same origin."}
	errCrossSite = &Error{Status: http.StatusForbidden, Code: "cross_site_request",
		Message: "Sign-in must come from the dashboard's own origin."}
	errTooManySessions = &Error{Status: http.StatusServiceUnavailable, Code: "too_many_sessions",
		Message: "The server holds as many dashboard sessions as it may; try again later, or use the API with your key."}
	errKeyRefused = &Error{Status: http.StatusUnauthorized, Code: "unauthorized", Param: "api_key",
		Message: "That API key was refused: it is not a key of this server."}
)

// sessionToken is the request's session cookie, or "".
func sessionToken(r *http.Request) string {
	c, err := r.Cookie(sessionCookie)
	if err != nil {
		return ""
	}
	return c.Value
}

// cookieSession authenticates a request by its session token (its
// cookie). A request that changes anything must also carry the session's
// CSRF token: SameSite=Strict already keeps the cookie off cross-site
// requests, and the token covers browsers and proxies that do not honour
// it.
func (s *Server) cookieSession(r *http.Request, token string) (model.User, session, error) {
	if token == "" {
		return model.User{}, session{}, errUnauthorized
	}
	sess, ok := s.sessions.get(token)
	if !ok {
		return model.User{}, session{}, &Error{Status: http.StatusUnauthorized, Code: "session_expired",
			Message: "The dashboard session has ended; sign in again with an API key."}
	}
	if !safeMethod(r.Method) {
		got := r.Header.Get(csrfHeader)
		if got == "" || subtle.ConstantTimeCompare([]byte(got), []byte(sess.csrf)) != 1 || s.crossSite(r) {
			return model.User{}, session{}, errCSRF
		}
	}
	u, err := s.records.UserByKeyHash(r.Context(), sess.keyHash)
	if errors.Is(err, model.ErrNotFound) || (err == nil && u.ID != sess.userID) {
		s.sessions.close(token)
		return model.User{}, session{}, errUnauthorized
	}
	return u, sess, err
}

func safeMethod(m string) bool {
	return m == http.MethodGet || m == http.MethodHead || m == http.MethodOptions
}

// crossSite reports a request that the browser says came from another
// site (Fetch Metadata), or whose Origin is not this host.
func (s *Server) crossSite(r *http.Request) bool {
	switch r.Header.Get("Sec-Fetch-Site") {
	case "cross-site", "same-site":
		return true
	}
	origin := r.Header.Get("Origin")
	if origin == "" {
		return false // an older browser or not a browser: the CSRF token decides
	}
	scheme := "http://"
	if r.TLS != nil {
		scheme = "https://"
	}
	// Behind a proxy that rewrites Host, the site URL names the origin.
	site := s.siteURL
	if i := strings.Index(site, "://"); i >= 0 {
		if j := strings.Index(site[i+3:], "/"); j >= 0 {
			site = site[:i+3+j]
		}
	}
	// "null" (a sandboxed frame, a redirect across sites) matches neither.
	return !strings.EqualFold(origin, scheme+r.Host) && (site == "" || !strings.EqualFold(origin, site))
}

func sessionView(u model.User, sess session) apiv1.Data[apiv1.Session] {
	return apiv1.Data[apiv1.Session]{Data: apiv1.Session{UserID: u.ID, Username: u.Username, CSRFToken: sess.csrf, ExpiresAt: sess.expires.Unix()}}
}

// signIn answers POST /ui/session: {"api_key": "..."} opens a session and
// sets its cookie.
func (s *Server) signIn(w http.ResponseWriter, r *http.Request) {
	if mt, _, _ := mime.ParseMediaType(r.Header.Get("Content-Type")); mt != "application/json" {
		// A cross-site HTML form cannot send JSON, so this also keeps
		// other sites from signing a browser into an account of theirs.
		s.writeError(w, r, errUnsupportedMedia)
		return
	}
	if s.crossSite(r) {
		s.writeError(w, r, errCrossSite)
		return
	}
	var body apiv1.SignInRequest
	if err := json.NewDecoder(io.LimitReader(r.Body, 4096)).Decode(&body); err != nil {
		s.writeError(w, r, errInvalid("api_key", "The body must be a JSON object with an api_key string."))
		return
	}
	key := strings.TrimSpace(body.APIKey)
	if key == "" {
		s.writeError(w, r, errMissing("api_key"))
		return
	}
	u, err := s.records.UserByKeyHash(r.Context(), HashKey(key))
	if errors.Is(err, model.ErrNotFound) {
		s.refuseKey(w, r, key, errKeyRefused)
		return
	}
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	token, sess, ok := s.sessions.open(HashKey(key), u.ID)
	if !ok {
		s.writeError(w, r, errTooManySessions)
		return
	}
	w.Header().Set("Cache-Control", "no-store") // it carries the CSRF token
	http.SetCookie(w, &http.Cookie{
		Name: sessionCookie, Value: token, Path: "/", Expires: sess.expires, MaxAge: int(SessionTTL / time.Second),
		HttpOnly: true, SameSite: http.SameSiteStrictMode, Secure: s.secureCookies(r),
	})
	writeJSON(w, http.StatusCreated, sessionView(u, sess))
}

// getSession answers GET /ui/session: who is signed in, and the CSRF
// token the dashboard sends back on changes.
func (s *Server) getSession(w http.ResponseWriter, r *http.Request) {
	u, sess, err := s.cookieSession(r, sessionToken(r))
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	w.Header().Set("Cache-Control", "no-store")
	writeJSON(w, http.StatusOK, sessionView(u, sess))
}

// signOut answers DELETE /ui/session.
func (s *Server) signOut(w http.ResponseWriter, r *http.Request) {
	token := sessionToken(r)
	if _, _, err := s.cookieSession(r, token); err != nil {
		s.writeError(w, r, err)
		return
	}
	s.sessions.close(token)
	http.SetCookie(w, &http.Cookie{Name: sessionCookie, Value: "", Path: "/", MaxAge: -1,
		HttpOnly: true, SameSite: http.SameSiteStrictMode, Secure: s.secureCookies(r)})
	w.WriteHeader(http.StatusNoContent)
}

// secureCookies marks the cookie Secure when the dashboard is reached
// over TLS, directly or behind a proxy that the public URL names.
func (s *Server) secureCookies(r *http.Request) bool {
	return r.TLS != nil || strings.HasPrefix(s.siteURL, "https://")
}

// sessionKey holds, in a request's context, the session token that
// authenticated it, when a cookie did.
type sessionKey struct{}

// sessionEnded reports whether the request was authenticated by a
// session that has since ended (signed out, expired): a long request, an
// event stream, must not outlive it.
func (s *Server) sessionEnded(r *http.Request) bool {
	token, ok := r.Context().Value(sessionKey{}).(string)
	if !ok {
		return false
	}
	_, live := s.sessions.get(token)
	return !live
}

// withCaller is the context of a request made by u.
func withCaller(ctx context.Context, u model.User) context.Context {
	return context.WithValue(ctx, callerKey{}, u)
}
