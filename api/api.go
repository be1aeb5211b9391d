package api

import (
	"context"
	"log/slog"
	"net/http"
	"strings"
	"sync"

	"github.com/go-chi/chi/v5"

	"github.com/fount-dev/fount/secret"
	"github.com/fount-dev/fount/store"
)

// Server holds the API's dependencies; its handlers are methods on it.
type Server struct {
	store     store.Store
	log       *slog.Logger
	inspect   Introspector
	fetch     CodeFetcher
	engine    Engine
	secrets   *secret.Sealer
	publicURL string
	registry  map[string]store.Component // by registry key
	bg        sync.WaitGroup
	closing   chan struct{} // closed by CloseStreams
	closeOnce sync.Once
}

// Config configures a Server. Store, Introspector and Secrets are required.
type Config struct {
	Store        store.Store
	Introspector Introspector
	// CodeFetcher fetches component_url; nil refuses component_url.
	CodeFetcher CodeFetcher
	// Engine runs sources; nil runs nothing (NopEngine).
	Engine  Engine
	Secrets *secret.Sealer
	// PublicURL is the server's external base URL, for endpoint URLs.
	PublicURL string
	// Registry holds the published components, by key.
	Registry map[string]store.Component
	Logger   *slog.Logger
}

// New returns a Server.
func New(cfg Config) *Server {
	logger := cfg.Logger
	if logger == nil {
		logger = slog.Default()
	}
	eng := cfg.Engine
	if eng == nil {
		eng = NopEngine{}
	}
	return &Server{
		store: cfg.Store, log: logger, inspect: cfg.Introspector, fetch: cfg.CodeFetcher, engine: eng,
		secrets: cfg.Secrets, publicURL: strings.TrimRight(cfg.PublicURL, "/"), registry: cfg.Registry,
		closing: make(chan struct{}),
	}
}

// handlerFunc is an endpoint: it gets the request's parameters and returns
// an error to be answered in the API's error shape.
type handlerFunc func(w http.ResponseWriter, r *http.Request, p *params) error

// route is one endpoint of the route table, which drives both the router
// and the OpenAPI document.
type route struct {
	method, path string
	summary      string
	extension    bool // not in the spec: fount's own addition
	paginated    bool
	status       int // success status when not the default for the method
	handle       handlerFunc
}

// routes is the route table of /v1, relative to /v1.
func (s *Server) routes() []route {
	return []route{
		{method: http.MethodGet, path: "/users/me", summary: "The authenticated user", handle: s.getMe},
		{method: http.MethodPost, path: "/users", summary: "Create a user and its API key (owner only)", extension: true, handle: s.createUser},
		{method: http.MethodPost, path: "/orgs", summary: "Create an organization (owner only)", extension: true, handle: s.createOrg},
		{method: http.MethodPost, path: "/orgs/{org_id}/members", summary: "Add a member to an organization (owner only)", extension: true, handle: s.addOrgMember},

		{method: http.MethodPost, path: "/components", summary: "Save a component from code or a URL", handle: s.createComponent},
		{method: http.MethodGet, path: "/components/registry/{key}", summary: "A published component by its registry key", handle: s.getRegistryComponent},
		{method: http.MethodGet, path: "/components/{key_or_id}", summary: "A saved component by id or key", handle: s.getComponent},

		{method: http.MethodGet, path: "/users/me/sources", summary: "List your sources", paginated: true, handle: s.listMySources},
		{method: http.MethodGet, path: "/orgs/{org_id}/sources", summary: "List an organization's sources", paginated: true, handle: s.listOrgSources},
		{method: http.MethodPost, path: "/sources", summary: "Deploy a source", handle: s.createSource},
		{method: http.MethodPut, path: "/sources/{id}", summary: "Update a source (code, props, name, active)", handle: s.updateSource},
		{method: http.MethodDelete, path: "/sources/{id}", summary: "Delete a source, its events and subscriptions", handle: s.deleteSource},
		{method: http.MethodGet, path: "/sources/{id}/event_summaries", summary: "The last events of a source, newest first", paginated: true, handle: s.listSourceEvents},
		{method: http.MethodDelete, path: "/sources/{id}/events", summary: "Delete events of a source (asynchronous)", handle: s.deleteSourceEvents},
		{method: http.MethodPost, path: "/sources/{id}/run", summary: "Queue a manual run of a source with an optional JSON event", extension: true, status: http.StatusAccepted, handle: s.runSource},
		{method: http.MethodGet, path: "/sources/{id}/sse", summary: "Stream new events of a source (text/event-stream; Last-Event-ID resumes)", extension: true, handle: s.streamSource},
		{method: http.MethodGet, path: "/webhooks/{id}/deliveries", summary: "Delivery attempts of a webhook, newest first", extension: true, paginated: true, handle: s.listDeliveries},
		{method: http.MethodGet, path: "/workflows/{workflow_id}/event_summaries", summary: "Events emitted by a workflow", paginated: true, handle: s.listWorkflowEvents},
		{method: http.MethodGet, path: "/workflows/{workflow_id}/$errors/event_summaries", summary: "Errors of a workflow", paginated: true, handle: s.listWorkflowEvents},

		{method: http.MethodPost, path: "/webhooks", summary: "Create a webhook", handle: s.createWebhook},
		{method: http.MethodGet, path: "/users/me/webhooks", summary: "List your webhooks", paginated: true, handle: s.listWebhooks},
		{method: http.MethodDelete, path: "/webhooks/{id}", summary: "Delete a webhook", handle: s.deleteWebhook},

		{method: http.MethodPost, path: "/subscriptions", summary: "Subscribe a listener to an emitter", handle: s.createSubscription},
		{method: http.MethodDelete, path: "/subscriptions", summary: "Delete a subscription", handle: s.deleteSubscription},
		{method: http.MethodGet, path: "/users/me/subscriptions", summary: "List your subscriptions", handle: s.listMySubscriptions},
		{method: http.MethodGet, path: "/orgs/{org_id}/subscriptions", summary: "List an organization's subscriptions", handle: s.listOrgSubscriptions},
		{method: http.MethodPost, path: "/auto_subscriptions", summary: "Subscribe a listener to $errors or $logs of emitters created later", handle: s.createAutoSubscription},
	}
}

// Handler returns the HTTP handler: /healthz and /v1/openapi.json without
// authentication, every other /v1 route behind it.
func (s *Server) Handler() http.Handler {
	r := chi.NewRouter()
	r.Get("/healthz", func(w http.ResponseWriter, _ *http.Request) {
		writeJSON(w, http.StatusOK, map[string]string{"status": "ok"})
	})
	r.Get("/v1/openapi.json", s.openAPI)
	r.Route("/v1", func(v1 chi.Router) {
		v1.Use(s.authenticate)
		for _, rt := range s.routes() {
			v1.Method(rt.method, rt.path, s.endpoint(rt.handle))
			if rt.path == "/users/me/sources" || rt.path == "/sources" {
				v1.Method(rt.method, rt.path+"/", s.endpoint(rt.handle)) // the spec writes these with a trailing slash
			}
		}
	})
	r.NotFound(func(w http.ResponseWriter, r *http.Request) {
		s.writeError(w, r, &Error{Status: http.StatusNotFound, Code: "route_not_found", Message: "No endpoint has that path; see /v1/openapi.json."})
	})
	r.MethodNotAllowed(func(w http.ResponseWriter, r *http.Request) {
		s.writeError(w, r, &Error{Status: http.StatusMethodNotAllowed, Code: "method_not_allowed", Message: "That method is not allowed on this path; see /v1/openapi.json."})
	})
	return r
}

func (s *Server) endpoint(h handlerFunc) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		p, err := readParams(r)
		if err == nil {
			err = h(w, r, p)
		}
		if err != nil {
			s.writeError(w, r, err)
		}
	})
}

// noContent answers 204.
func noContent(w http.ResponseWriter) error {
	w.WriteHeader(http.StatusNoContent)
	return nil
}

// visible loads a resource's owner check: a resource the caller cannot
// access is reported as not found, never as forbidden, so that its
// existence is not revealed.
func (s *Server) visible(ctx context.Context, ownerID, what string) error {
	ok, err := s.canAccess(ctx, ownerID)
	if err != nil {
		return err
	}
	if !ok {
		return errNotFound(what)
	}
	return nil
}
