package ingress

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"net"
	"net/http"
	"strings"
	"time"

	"github.com/fount-dev/fount/abi"
	"github.com/fount-dev/fount/internal/component"
	"github.com/fount-dev/fount/internal/engine/clock"
	"github.com/fount-dev/fount/internal/guess"
	"github.com/fount-dev/fount/internal/ids"
	"github.com/fount-dev/fount/internal/model"
	"github.com/fount-dev/fount/internal/store"
)

// Host is what the ingress asks of the engine behind it.
type Host interface {
	// OverQuota reports whether account is over its daily quota; it
	// answers from a cache, not a store read per request.
	OverQuota(ctx context.Context, account string) (bool, error)
	// Enqueue queues inv, within queueSize waiting (0: no bound), and
	// wakes its target; an error wrapping store.ErrQueueFull when the
	// queue is full.
	Enqueue(ctx context.Context, inv model.Invocation, queueSize int) error
	// ReplyAddress is the ReplyTo of a request waiting on this node
	// under key.
	ReplyAddress(key string) string
	// PausedEntry reads the index entry of a paused execution: one
	// small read.
	PausedEntry(ctx context.Context, workflowID, executionID string) (store.PausedEntry, bool, error)
	// Resume queues action (ActionResume or ActionCancel) of a paused
	// execution, with the request's body parsed (data, none when
	// empty) and the request itself, and wakes its workflow.
	Resume(ctx context.Context, workflowID, executionID, action string, data, request json.RawMessage) error
}

// Config configures a Server. Zero durations and sizes are not
// defaults: the engine gives its own.
type Config struct {
	Clock  clock.Clock
	Logger *slog.Logger
	// MaxBody caps a request body; BodyTimeout bounds how long it may
	// take to arrive; RespondTimeout how long a customResponse request
	// waits for respond().
	MaxBody                     int64
	BodyTimeout, RespondTimeout time.Duration
	// EndpointsShareSite says that endpoints are served on the host name
	// of the API and the dashboard: their responses then set no cookies.
	EndpointsShareSite bool
	// TrustedProxies name the client that forged resume and cancel URLs
	// are counted against.
	TrustedProxies guess.Proxies
}

// Server serves the endpoints of sources and workflows at
// /h/<token>[/sub/path], any method, and the resume and cancel URLs of
// paused executions at /h/flow/.
type Server struct {
	cfg  Config
	log  *slog.Logger
	host Host
	// Endpoints are the endpoints served; Waiters the requests waiting
	// for a respond().
	Endpoints *Registry
	Waiters   *Waiters
	guesses   *guess.Throttle // of forged resume and cancel URLs
}

// New returns a Server that asks host what requests lead to.
func New(cfg Config, host Host) *Server {
	return &Server{cfg: cfg, log: cfg.Logger, host: host, Endpoints: newRegistry(), Waiters: newWaiters(),
		guesses: guess.New(flowURLFailBurst, flowURLFailEvery, cfg.Clock.Now)}
}

func ingressError(w http.ResponseWriter, status int, msg string) {
	tenantContent(w.Header())
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(map[string]any{"error": map[string]string{"message": msg}})
}

// ServeHTTP serves an endpoint, or a resume or cancel URL.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if strings.HasPrefix(r.URL.Path, component.FlowPath) {
		s.serveFlowURL(w, r)
		return
	}
	rest := strings.TrimPrefix(r.URL.Path, component.EndpointPath)
	token, sub, _ := strings.Cut(rest, "/")
	ep, ok := s.Endpoints.Lookup(component.EndpointToken(token))
	if !ok || token == "" {
		ingressError(w, http.StatusNotFound, "no active source or workflow has this endpoint")
		return
	}
	if r.Method == http.MethodOptions {
		cors(w, r)
		w.WriteHeader(http.StatusNoContent)
		return
	}
	if !authorized(r, ep.TokenHash) {
		w.Header().Set("WWW-Authenticate", `Bearer realm="fount"`)
		ingressError(w, http.StatusUnauthorized, "this endpoint needs Authorization: Bearer <the trigger's token>")
		return
	}
	if ep.TokenHash != "" {
		r.Header.Del("Authorization") // the token is not the event's to keep
	}
	body, ok := s.readBody(w, r)
	if !ok {
		return
	}
	// Only active sources have endpoints registered, so the map answers
	// without a store read per request.
	if over, err := s.host.OverQuota(r.Context(), ep.Account); err != nil {
		ingressError(w, http.StatusInternalServerError, "the server could not check the account's quota")
		return
	} else if over {
		ingressError(w, http.StatusTooManyRequests, ErrQuota.Error())
		return
	}
	event, _ := json.Marshal(httpEvent(r, "/"+sub, body))
	inv := model.NewInvocation(ep.Target, model.InvocationHTTP, event)
	var wt *Waiter
	if ep.CustomResponse {
		inv.ReplyTo = s.host.ReplyAddress(ids.Random())
		if wt = s.Waiters.register(inv.ReplyTo); wt == nil {
			ingressError(w, http.StatusServiceUnavailable, "the server is shutting down; try again")
			return
		}
		defer s.Waiters.Take(inv.ReplyTo)
	}
	if err := s.host.Enqueue(r.Context(), inv, ep.QueueSize); errors.Is(err, store.ErrQueueFull) {
		w.Header().Set("Retry-After", "1")
		ingressError(w, http.StatusTooManyRequests, err.Error())
		return
	} else if err != nil {
		s.log.Error("enqueue http invocation", "target", ep.Target, "err", err)
		ingressError(w, http.StatusServiceUnavailable, "the request could not be queued; try again")
		return
	}
	if wt == nil {
		cors(w, r)
		tenantContent(w.Header())
		w.Header().Set("Content-Type", "application/json")
		_, _ = io.WriteString(w, `{"success":true}`+"\n")
		return
	}
	cookiePath := component.EndpointPath + token
	if s.cfg.EndpointsShareSite {
		cookiePath = ""
	}
	s.awaitResponse(w, r, wt, ep.Target.IsWorkflow(), cookiePath)
}

// ErrQuota refuses a request of an account over its daily quota.
var ErrQuota = errors.New("the account's daily quota of invocations or compute time is used up")

// readBody reads an endpoint request's body within the size and
// time limits, or answers the request with why not (false).
func (s *Server) readBody(w http.ResponseWriter, r *http.Request) ([]byte, bool) {
	// Socket deadlines are wall-clock I/O, not engine time: a slow body
	// must not hold a connection, and a response waits at most for
	// respond() and a little more.
	rc := http.NewResponseController(w)
	_ = rc.SetReadDeadline(time.Now().Add(s.cfg.BodyTimeout))
	_ = rc.SetWriteDeadline(time.Now().Add(s.cfg.BodyTimeout + s.cfg.RespondTimeout))
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, s.cfg.MaxBody))
	if err == nil {
		return body, true
	}
	var tooBig *http.MaxBytesError
	var netErr net.Error
	switch {
	case errors.As(err, &tooBig):
		ingressError(w, http.StatusRequestEntityTooLarge, "the request body is over the endpoint's size limit")
	case errors.As(err, &netErr) && netErr.Timeout():
		ingressError(w, http.StatusRequestTimeout, "the request body did not arrive in time")
	default:
		ingressError(w, http.StatusBadRequest, "the request body could not be read")
	}
	return nil, false
}

// awaitResponse answers a request with its run's respond(). A workflow's
// execution that ends without $.respond() answers 502: the workflow,
// acting as the origin, gave no response.
//
// cookiePath is the path the response's cookies are scoped to: the
// endpoint's own, or "" for none at all.
func (s *Server) awaitResponse(w http.ResponseWriter, r *http.Request, wt *Waiter, workflow bool, cookiePath string) {
	timeout := make(chan struct{})
	t := s.cfg.Clock.AfterFunc(s.cfg.RespondTimeout, func() { close(timeout) })
	defer t.Stop()
	select {
	case resp := <-wt.response:
		writeResponse(w, resp, cookiePath)
	case <-wt.ended:
		select { // respond() may have come just before the end
		case resp := <-wt.response:
			writeResponse(w, resp, cookiePath)
			return
		default:
		}
		select {
		case <-wt.released:
			ingressError(w, http.StatusServiceUnavailable, "the server is shutting down; the request is queued and will run, but its response cannot be waited for")
		default:
			if workflow {
				ingressError(w, http.StatusBadGateway, "the workflow's execution ended without calling $.respond(); see its executions for why")
			} else {
				ingressError(w, http.StatusInternalServerError, "the source's run ended without calling respond()")
			}
		}
	case <-timeout:
		if workflow {
			ingressError(w, http.StatusGatewayTimeout, "the workflow did not call $.respond() in time")
		} else {
			ingressError(w, http.StatusGatewayTimeout, "the source did not call respond() in time")
		}
	case <-r.Context().Done():
	}
}

func writeResponse(w http.ResponseWriter, resp abi.Response, cookiePath string) {
	for k, v := range resp.Headers {
		switch {
		case strings.EqualFold(k, "Set-Cookie"):
			if scoped, ok := scopeCookie(v, cookiePath); ok {
				w.Header().Add("Set-Cookie", scoped)
			}
			continue
		case strings.EqualFold(k, "Clear-Site-Data"), strings.EqualFold(k, "Set-Cookie2"):
			// It would clear every tenant's cookies and storage on the
			// endpoints' origin, and the dashboard's on a shared one.
			continue
		}
		w.Header().Set(k, v)
	}
	tenantContent(w.Header())
	body := []byte(resp.Body)
	if resp.BodyEncoding == "base64" {
		if b, err := base64.StdEncoding.DecodeString(resp.Body); err == nil {
			body = b
		}
	}
	w.WriteHeader(resp.Status)
	_, _ = w.Write(body)
}
