package api

import (
	"context"
	"io"
	"log/slog"
	"net/http"
	"reflect"
	"strings"
	"sync"
	"time"

	"github.com/go-chi/chi/v5"

	"github.com/fount-dev/fount/apiv1"
	"github.com/fount-dev/fount/internal/engine"
	"github.com/fount-dev/fount/internal/guess"
	"github.com/fount-dev/fount/internal/model"
	"github.com/fount-dev/fount/internal/records"
)

// Server holds the API's dependencies; its handlers are methods on it.
type Server struct {
	records   records.Reader   // reads; every change goes through engine or edit
	edit      *records.Service // the changes of records no running code is made of
	engine    *engine.Engine
	fetch     CodeFetcher
	log       *slog.Logger
	publicURL string
	registry  map[string]model.Component // by registry key
	pageBytes int                        // the budget of a list page's items, encoded
	routes    []route
	openAPI   func() ([]byte, error) // the document, built on first use

	heartbeat time.Duration // of event streams
	ready     func(ctx context.Context) error
	onRequest func(route string, status int, d time.Duration)
	backupFn  func(ctx context.Context, w io.Writer) error
	checkDest func(ctx context.Context, url string) error
	dashboard http.Handler
	sessions  *sessions
	// keyThrottle slows down the guessing of API keys; proxies are
	// the reverse proxies whose X-Forwarded-For names the client.
	keyThrottle *guess.Throttle
	proxies     guess.Proxies
	siteURL     string // the API's own external base URL

	closing   chan struct{} // closed by CloseStreams
	closeOnce sync.Once
}

// CodeFetcher fetches component code from component_url, through the
// server's egress policy, with a size cap and a timeout.
type CodeFetcher interface {
	FetchCode(ctx context.Context, url string) (string, error)
}

// Config configures a Server. Engine and Records are required.
type Config struct {
	Engine *engine.Engine
	// Records writes and reads the records no running code is made of,
	// in the engine's store.
	Records *records.Service
	// CodeFetcher fetches component_url; nil refuses component_url.
	CodeFetcher CodeFetcher
	// PublicURL is the server's external base URL, for endpoint URLs.
	PublicURL string
	// Registry holds the published components, by key.
	Registry map[string]model.Component
	// PageBytes bounds the encoded items of a list page (0:
	// DefaultPageBytes); a page ends early rather than pass it.
	PageBytes int
	Logger    *slog.Logger
	// StreamHeartbeat is how often an idle event stream gets a comment
	// line; a write to a stream that does not complete within two of
	// them ends it. Default DefaultStreamHeartbeat.
	StreamHeartbeat time.Duration
	// Ready reports whether the server can serve: nil when it can, else
	// what is not ready. nil Ready is always ready.
	Ready func(ctx context.Context) error
	// OnRequest is told of every request, by route pattern, for metrics.
	OnRequest func(route string, status int, d time.Duration)
	// Backup writes a backup of the server to w (GET /v1/backup, owner
	// only); nil answers 404.
	Backup func(ctx context.Context, w io.Writer) error
	// CheckDestination says why the egress policy would refuse a URL
	// (a webhook's, at create), or nil; nil CheckDestination checks
	// nothing.
	CheckDestination func(ctx context.Context, url string) error
	// SiteURL is the API's own external base URL (serve's --public-url),
	// which may differ from PublicURL when endpoints have an origin of
	// their own: the dashboard's cookie is Secure when it is https, and
	// a change may come from its origin.
	SiteURL string
	// Dashboard serves the web UI at / and /ui/; nil serves none.
	Dashboard http.Handler
	// Now is the clock of dashboard sessions and of the throttle of
	// wrong keys; nil is time.Now.
	Now func() time.Time
	// TrustedProxies are the reverse proxies whose X-Forwarded-For
	// names the client a wrong key is counted against; none: the
	// header is ignored.
	TrustedProxies guess.Proxies
}

// New returns a Server.
func New(cfg Config) *Server {
	logger := cfg.Logger
	if logger == nil {
		logger = slog.Default()
	}
	s := &Server{
		engine: cfg.Engine, fetch: cfg.CodeFetcher, log: logger,
		publicURL: strings.TrimRight(cfg.PublicURL, "/"), registry: cfg.Registry, pageBytes: cfg.PageBytes, closing: make(chan struct{}),
		ready: cfg.Ready, onRequest: cfg.OnRequest, backupFn: cfg.Backup, checkDest: cfg.CheckDestination,
		dashboard: cfg.Dashboard, sessions: newSessions(cfg.Now), siteURL: strings.TrimRight(cfg.SiteURL, "/"),
		keyThrottle: guess.New(keyFailBurst, keyFailEvery, cfg.Now), proxies: cfg.TrustedProxies,
	}
	if cfg.Records != nil { // without them, a Server still lists its routes and OpenAPI document
		s.records, s.edit = cfg.Records.Reader(), cfg.Records
	}
	if s.pageBytes <= 0 {
		s.pageBytes = DefaultPageBytes
	}
	s.heartbeat = cfg.StreamHeartbeat
	if s.heartbeat <= 0 {
		s.heartbeat = DefaultStreamHeartbeat
	}
	s.routes = s.routeTable()
	s.openAPI = sync.OnceValues(s.openAPIDocument)
	return s
}

// route is one endpoint of the route table, which drives the router, the
// request decoding and the OpenAPI document.
type route struct {
	method, path string
	summary      string
	extension    bool // not in the specification: fount's own addition
	status       int  // success status; 0 is 200
	fields       *requestFields
	response     reflect.Type // nil: no body
	handle       func(w http.ResponseWriter, r *http.Request, req any) error
}

// op makes a route from a handler of a typed request and the type of its
// successful response (Resp; use struct{} for none).
func op[Req, Resp any](method, path, summary string, h func(http.ResponseWriter, *http.Request, *Req) error) route {
	rt := route{method: method, path: path, summary: summary, fields: fieldsOf(reflect.TypeFor[Req]()),
		handle: func(w http.ResponseWriter, r *http.Request, req any) error { return h(w, r, req.(*Req)) }}
	if t := reflect.TypeFor[Resp](); t != reflect.TypeFor[struct{}]() {
		rt.response = t
	}
	return rt
}

func (rt route) ext() route             { rt.extension = true; return rt }
func (rt route) withStatus(n int) route { rt.status = n; return rt }

type (
	source       = apiv1.Data[apiv1.Source]
	none         = struct{}
	eventsPage   = apiv1.Page[apiv1.EventSummary]
	webhookData  = apiv1.Data[apiv1.Webhook]
	workflowData = apiv1.Data[apiv1.Workflow]
)

// routeTable is every endpoint of /v1, relative to /v1.
func (s *Server) routeTable() []route {
	const get, post, put, del = http.MethodGet, http.MethodPost, http.MethodPut, http.MethodDelete
	return []route{
		op[apiv1.Empty, apiv1.Data[apiv1.User]](get, "/users/me", "The authenticated user", s.getMe),
		op[apiv1.CreateUserRequest, apiv1.Data[apiv1.CreatedUser]](post, "/users", "Create a user and its API key (owner only)", s.createUser).ext(),
		op[apiv1.CreateOrgRequest, apiv1.Data[apiv1.Org]](post, "/orgs", "Create an organization (owner only)", s.createOrg).ext(),
		op[apiv1.AddOrgMemberRequest, apiv1.Data[apiv1.Org]](post, "/orgs/{org_id}/members", "Add a member to an organization (owner only)", s.addOrgMember).ext(),

		op[apiv1.CreateComponentRequest, apiv1.Data[apiv1.Component]](post, "/components", "Save a component from code or a URL", s.createComponent),
		op[apiv1.RegistryComponentRequest, apiv1.Data[apiv1.Component]](get, "/components/registry/{key}", "A published component by its registry key", s.getRegistryComponent),
		op[apiv1.GetComponentRequest, apiv1.Data[apiv1.Component]](get, "/components/{key_or_id}", "A saved component by id or key", s.getComponent),
		op[apiv1.ConfigureRequest, apiv1.Data[apiv1.PropOptions]](post, "/components/{key_or_id}/configure", "A page of a prop's options, from the component's options method run with the props configured so far", s.configureComponent).ext(),
		op[apiv1.ReloadPropsRequest, apiv1.Data[apiv1.ReloadedProps]](post, "/components/{key_or_id}/props", "The component's props with those its additionalProps method adds for the props configured so far", s.reloadProps).ext(),

		op[apiv1.ListRequest, apiv1.Page[apiv1.Source]](get, "/users/me/sources", "List your sources", s.listMySources),
		op[apiv1.OrgListRequest, apiv1.Page[apiv1.Source]](get, "/orgs/{org_id}/sources", "List an organization's sources", s.listOrgSources),
		op[apiv1.CreateSourceRequest, source](post, "/sources", "Deploy a source", s.createSource),
		op[apiv1.SourceByIDRequest, source](get, "/sources/{id}", "A source", s.getSource).ext(),
		op[apiv1.UpdateSourceRequest, source](put, "/sources/{id}", "Update a source (code, props, name, active)", s.updateSource),
		op[apiv1.SourceByIDRequest, none](del, "/sources/{id}", "Delete a source, its events and subscriptions", s.deleteSource).withStatus(http.StatusNoContent),
		op[apiv1.SetSourceControlsRequest, source](put, "/sources/{id}/controls", "Replace a source's controls (throttle, queue_size), keeping its component and props", s.setSourceControls).ext(),
		op[apiv1.EventSummariesRequest, eventsPage](get, "/sources/{id}/event_summaries", "The last events of a source, newest first", s.listSourceEvents),
		op[apiv1.DeleteEventsRequest, none](del, "/sources/{id}/events", "Delete events of a source (asynchronous)", s.deleteSourceEvents).withStatus(http.StatusAccepted),
		op[apiv1.RunSourceRequest, apiv1.Data[apiv1.RunQueued]](post, "/sources/{id}/run", "Queue a manual run of a source with an optional JSON event", s.runSource).ext().withStatus(http.StatusAccepted),
		op[apiv1.StatsRequest, apiv1.Data[apiv1.Stats]](get, "/sources/{id}/stats", "A source's events, errors and runs over time, a point per step (kept a week at a minute each)", s.sourceStats).ext(),
		op[apiv1.StreamRequest, none](get, "/sources/{id}/sse", "Stream new events of a source (text/event-stream; Last-Event-ID resumes)", s.streamSource).ext(),
		op[apiv1.WorkflowEventsRequest, eventsPage](get, "/workflows/{workflow_id}/event_summaries", "Events emitted by a workflow with $.send.emit, newest first", s.listWorkflowEvents),
		op[apiv1.WorkflowEventsRequest, eventsPage](get, "/workflows/{workflow_id}/$errors/event_summaries", "Errors of a workflow's executions, newest first", s.listWorkflowErrors),

		op[apiv1.CreateWorkflowRequest, workflowData](post, "/workflows", "Deploy a workflow: a trigger and ordered steps", s.createWorkflow).ext(),
		op[apiv1.ListRequest, apiv1.Page[apiv1.Workflow]](get, "/users/me/workflows", "List your workflows", s.listMyWorkflows).ext(),
		op[apiv1.OrgListRequest, apiv1.Page[apiv1.Workflow]](get, "/orgs/{org_id}/workflows", "List an organization's workflows", s.listOrgWorkflows).ext(),
		op[apiv1.WorkflowByIDRequest, workflowData](get, "/workflows/{id}", "A workflow", s.getWorkflow).ext(),
		op[apiv1.UpdateWorkflowRequest, workflowData](put, "/workflows/{id}", "Replace a workflow's definition (its id and endpoint stay)", s.updateWorkflow).ext(),
		op[apiv1.SetWorkflowActiveRequest, workflowData](put, "/workflows/{id}/active", "Switch a workflow's trigger on or off, keeping its definition", s.setWorkflowActive).ext(),
		op[apiv1.SetWorkflowControlsRequest, workflowData](put, "/workflows/{id}/controls", "Replace a workflow's execution controls (throttle, concurrency, queue_size, retry), keeping its definition and version", s.setWorkflowControls).ext(),
		op[apiv1.StepPropsRequest, apiv1.Data[apiv1.ReloadedProps]](post, "/workflows/{id}/steps/{step}/props", "A deployed step's props with those its additionalProps method adds for the values given", s.stepProps).ext(),
		op[apiv1.StepConfigureRequest, apiv1.Data[apiv1.PropOptions]](post, "/workflows/{id}/steps/{step}/configure", "A page of a deployed step's prop's options, from its options method run with the values so far", s.configureStep).ext(),
		op[apiv1.SetStepPropsRequest, workflowData](put, "/workflows/{id}/steps/{step}/props", "Replace a deployed step's props, keeping its code and the rest of the workflow (a new version)", s.setStepProps).ext(),
		op[apiv1.WorkflowByIDRequest, none](del, "/workflows/{id}", "Delete a workflow, its events, executions and subscriptions", s.deleteWorkflow).ext().withStatus(http.StatusNoContent),
		op[apiv1.RunWorkflowRequest, apiv1.Data[apiv1.ExecutionQueued]](post, "/workflows/{id}/run", "Queue a manual execution with an optional trigger event", s.runWorkflow).ext().withStatus(http.StatusAccepted),
		op[apiv1.ExecutionsRequest, apiv1.List[apiv1.ExecutionSummary]](get, "/workflows/{id}/executions", "A workflow's kept executions, newest first", s.listExecutions).ext(),
		op[apiv1.ExecutionByIDRequest, apiv1.Data[apiv1.Execution]](get, "/executions/{id}", "An execution with each step's return value, exports, summary, logs and error", s.getExecution).ext(),
		op[apiv1.ExecutionByIDRequest, apiv1.Data[apiv1.ExecutionQueued]](post, "/executions/{id}/replay", "Queue a new execution of the workflow with a past execution's trigger event", s.replayExecution).ext().withStatus(http.StatusAccepted),
		op[apiv1.RunActionRequest, apiv1.Data[apiv1.ActionRun]](post, "/actions/run", "Run an action once with props and an optional steps context; nothing is stored or sent", s.runAction).ext(),
		op[apiv1.StatsRequest, apiv1.Data[apiv1.Stats]](get, "/workflows/{id}/stats", "A workflow's events, errors, executions and $.send.http deliveries over time, a point per step", s.workflowStats).ext(),
		op[apiv1.StreamRequest, none](get, "/workflows/{id}/sse", "Stream a workflow's emits and $.send.sse messages (text/event-stream)", s.streamWorkflow).ext(),

		op[apiv1.CreateAccountRequest, apiv1.Data[apiv1.Account]](post, "/accounts", "Connect an account: an app's credentials, sealed, behind the $auth of app props configured with it", s.createAccount).ext(),
		op[apiv1.ListRequest, apiv1.Page[apiv1.Account]](get, "/users/me/accounts", "List your connected accounts (never their credentials)", s.listMyAccounts).ext(),
		op[apiv1.OrgListRequest, apiv1.Page[apiv1.Account]](get, "/orgs/{org_id}/accounts", "List an organization's connected accounts", s.listOrgAccounts).ext(),
		op[apiv1.AccountByIDRequest, apiv1.Data[apiv1.Account]](get, "/accounts/{id}", "A connected account: which fields are set, never their values", s.getAccount).ext(),
		op[apiv1.DeleteAccountRequest, none](del, "/accounts/{id}", "Delete a connected account; refused while app props use it, unless force", s.deleteAccount).ext().withStatus(http.StatusNoContent),
		op[apiv1.CreateDataStoreRequest, apiv1.Data[apiv1.DataStore]](post, "/data_stores", "Create a data store: a named key-value store that data_store props of the account's sources and workflows reach", s.createDataStore).ext(),
		op[apiv1.ListRequest, apiv1.Page[apiv1.DataStore]](get, "/users/me/data_stores", "List your data stores", s.listMyDataStores).ext(),
		op[apiv1.OrgListRequest, apiv1.Page[apiv1.DataStore]](get, "/orgs/{org_id}/data_stores", "List an organization's data stores", s.listOrgDataStores).ext(),
		op[apiv1.DataStoreByIDRequest, apiv1.Data[apiv1.DataStore]](get, "/data_stores/{id}", "A data store, with how many keys and bytes it holds", s.getDataStore).ext(),
		op[apiv1.DataStoreByIDRequest, none](del, "/data_stores/{id}", "Delete a data store and its keys; props configured with it then fail where they use it", s.deleteDataStore).ext().withStatus(http.StatusNoContent),
		op[apiv1.DataStoreByIDRequest, apiv1.Data[apiv1.DataRecords]](get, "/data_stores/{id}/records", "Every key of a data store with its value, by key", s.listDataRecords).ext(),
		op[apiv1.DataStoreByIDRequest, none](del, "/data_stores/{id}/records", "Remove every key of a data store", s.clearDataRecords).ext().withStatus(http.StatusNoContent),
		op[apiv1.DataRecordRequest, apiv1.Data[apiv1.DataRecord]](get, "/data_stores/{id}/records/{key}", "One key of a data store", s.getDataRecord).ext(),
		op[apiv1.PutDataRecordRequest, apiv1.Data[apiv1.DataRecord]](put, "/data_stores/{id}/records/{key}", "Set one key of a data store, with an optional ttl", s.putDataRecord).ext(),
		op[apiv1.DataRecordRequest, none](del, "/data_stores/{id}/records/{key}", "Remove one key of a data store", s.deleteDataRecord).ext().withStatus(http.StatusNoContent),

		op[apiv1.Empty, none](get, "/backup", "A backup of the server (a tar of the store, consistent, and its secret key): the owner only", s.backup).ext(),
		op[apiv1.CreateWebhookRequest, webhookData](post, "/webhooks", "Create a webhook", s.createWebhook),
		op[apiv1.ListRequest, apiv1.Page[apiv1.Webhook]](get, "/users/me/webhooks", "List your webhooks", s.listWebhooks),
		op[apiv1.OrgListRequest, apiv1.Page[apiv1.Webhook]](get, "/orgs/{org_id}/webhooks", "List an organization's webhooks", s.listOrgWebhooks).ext(),
		op[apiv1.SourceByIDRequest, none](del, "/webhooks/{id}", "Delete a webhook", s.deleteWebhook).withStatus(http.StatusNoContent),
		op[apiv1.UpdateWebhookRequest, webhookData](put, "/webhooks/{id}", "Edit a webhook's url, name, description or active flag", s.updateWebhook).ext(),
		op[apiv1.ResendDeliveryRequest, apiv1.Data[apiv1.Delivery]](post, "/webhooks/{id}/deliveries/{delivery_id}/resend", "Queue one more attempt of a delivery, now, with its id and body", s.resendDelivery).ext().withStatus(http.StatusAccepted),
		op[apiv1.ReplayRequest, apiv1.Data[apiv1.Replayed]](post, "/webhooks/{id}/replay", "Deliver a time range of a source's or workflow's kept events to a webhook again", s.replay).ext().withStatus(http.StatusAccepted),
		op[apiv1.RotateWebhookRequest, webhookData](post, "/webhooks/{id}/rotate", "Give a webhook a new signing secret (shown once); the old one also signs for an overlap", s.rotateWebhook).ext(),
		op[apiv1.StatsRequest, apiv1.Data[apiv1.Stats]](get, "/webhooks/{id}/stats", "A webhook's deliveries, failures and latency over time, a point per step", s.webhookStats).ext(),
		op[apiv1.StatsOfManyRequest, apiv1.List[apiv1.StatsOf]](get, "/stats", "The statistics of several sources, workflows and webhooks over one range, in the order named (a list's sparklines in one request)", s.statsOfMany).ext(),
		op[apiv1.DeliveriesRequest, apiv1.Page[apiv1.Delivery]](get, "/webhooks/{id}/deliveries", "Delivery attempts of a webhook, newest first", s.listDeliveries).ext(),

		op[apiv1.SubscriptionRequest, apiv1.Data[apiv1.Subscription]](post, "/subscriptions", "Subscribe a listener to an emitter", s.createSubscription),
		op[apiv1.SubscriptionRequest, none](del, "/subscriptions", "Delete a subscription", s.deleteSubscription).withStatus(http.StatusNoContent),
		op[apiv1.Empty, apiv1.List[apiv1.Subscription]](get, "/users/me/subscriptions", "List your subscriptions", s.listMySubscriptions),
		op[apiv1.OrgRequest, apiv1.List[apiv1.Subscription]](get, "/orgs/{org_id}/subscriptions", "List an organization's subscriptions", s.listOrgSubscriptions),
		op[apiv1.AutoSubscriptionRequest, apiv1.Data[apiv1.Subscription]](post, "/auto_subscriptions", "Subscribe a listener to $errors or $logs of emitters created later", s.createAutoSubscription),
	}
}

// Handler returns the HTTP handler: /healthz and /v1/openapi.json without
// authentication, every other /v1 route behind it, every route behind the
// recover middleware.
func (s *Server) Handler() http.Handler {
	r := chi.NewRouter()
	r.Use(s.accessLog, s.recoverer)
	r.Get("/healthz", func(w http.ResponseWriter, _ *http.Request) {
		writeJSON(w, http.StatusOK, apiv1.Health{Status: "ok"})
	})
	r.Get("/readyz", s.readyz)
	r.Get("/v1/openapi.json", s.serveOpenAPI)
	r.Post("/ui/session", s.signIn)
	r.Get("/ui/session", s.getSession)
	r.Delete("/ui/session", s.signOut)
	if s.dashboard != nil {
		for _, path := range []string{"/", "/ui/*"} {
			r.Get(path, s.dashboard.ServeHTTP)
			r.Head(path, s.dashboard.ServeHTTP)
		}
	}
	r.Route("/v1", func(v1 chi.Router) {
		v1.Use(s.authenticate)
		for _, rt := range s.routes {
			v1.Method(rt.method, rt.path, s.endpoint(rt))
			if rt.path == "/users/me/sources" || rt.path == "/sources" {
				v1.Method(rt.method, rt.path+"/", s.endpoint(rt)) // the specification writes these with a trailing slash
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

// endpoint decodes a route's request and calls its handler, answering
// errors in the API's shape.
func (s *Server) endpoint(rt route) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		req, err := rt.fields.decode(r)
		if err == nil {
			// include and exclude may have come in the body: shape() reads
			// what was decoded.
			r = r.WithContext(context.WithValue(r.Context(), shapingKey{}, shaping{
				include: rt.fields.text(req, "include"), exclude: rt.fields.text(req, "exclude"),
			}))
			err = rt.handle(w, r, req)
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
