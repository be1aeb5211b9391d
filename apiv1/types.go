package apiv1

import "encoding/json"

// Error is the one shape every failure is answered with:
// {"error": {"code": "...", "message": "...", "param": "..."}}.
type Error struct {
	Error ErrorBody `json:"error" required:"true"`
}

// ErrorBody describes a failure.
type ErrorBody struct {
	Code    string `json:"code" required:"true" description:"stable snake_case code, e.g. invalid_parameter"`
	Message string `json:"message" required:"true" description:"a sentence a person can act on"`
	Param   string `json:"param,omitempty" description:"the parameter at fault, when one is"`
}

// PageInfo is the specification's pagination envelope.
type PageInfo struct {
	TotalCount  int    `json:"total_count" required:"true"`
	Count       int    `json:"count" required:"true"`
	StartCursor string `json:"start_cursor" required:"true"`
	EndCursor   string `json:"end_cursor" required:"true"`
}

// Data is the envelope of a single resource.
type Data[T any] struct {
	Data T `json:"data" required:"true"`
}

// Page is the envelope of a paginated list.
type Page[T any] struct {
	PageInfo PageInfo `json:"page_info" required:"true"`
	Data     []T      `json:"data" required:"true" nullable:"false"`
}

// List is the envelope of a list without pagination.
type List[T any] struct {
	Data []T `json:"data" required:"true" nullable:"false"`
}

// Common are the parameters every endpoint takes.
type Common struct {
	Include string `query:"include" json:"-" maxLength:"1024" description:"comma-separated response fields to keep (default: all)"`
	Exclude string `query:"exclude" json:"-" maxLength:"1024" description:"comma-separated response fields to drop"`
	OrgID   string `query:"org_id" json:"-" maxLength:"64" description:"the organization the operation takes effect in"`
}

// PageParams are the parameters of paginated lists.
type PageParams struct {
	Limit  int    `query:"limit" json:"-" minimum:"1" maximum:"100" default:"10" description:"page size"`
	After  string `query:"after" json:"-" maxLength:"64" description:"return items after this cursor"`
	Before string `query:"before" json:"-" maxLength:"64" description:"return items before this cursor"`
}

// ByID names a resource in the path.
type ByID struct {
	ID string `path:"id" json:"-" maxLength:"64" required:"true"`
}

// ByOrg names an organization in the path. (Its field is not OrgID, which
// is Common's org_id query parameter.)
type ByOrg struct {
	Org string `path:"org_id" json:"-" maxLength:"64" required:"true"`
}

// Component is a saved component.
type Component struct {
	ID                string `json:"id" required:"true" description:"sc_ id"`
	Key               string `json:"key,omitempty"`
	Code              string `json:"code" required:"true"`
	CodeHash          string `json:"code_hash" required:"true" description:"hex sha256 of the code"`
	Name              string `json:"name" required:"true"`
	Version           string `json:"version" required:"true"`
	Type              string `json:"type" required:"true" enum:"source,action"`
	ConfigurableProps []Prop `json:"configurable_props" required:"true" nullable:"false"`
	// Packages is a fount extension: the code's lock.
	Packages  []Package `json:"packages,omitempty" description:"the npm packages bundled into the code at deploy, with the versions resolved (the lock)"`
	CreatedAt int64     `json:"created_at" required:"true"`
	UpdatedAt int64     `json:"updated_at" required:"true"`
}

// Package is one npm package version bundled into a component.
type Package struct {
	Name      string `json:"name" required:"true"`
	Version   string `json:"version" required:"true"`
	Integrity string `json:"integrity" required:"true" description:"the tarball's subresource-integrity hash, verified at download"`
}

// Prop is one configurable prop of a component.
type Prop struct {
	Name           string          `json:"name" required:"true"`
	Type           string          `json:"type" required:"true" description:"a prop type of the specification, e.g. string or $.interface.http"`
	Label          string          `json:"label,omitempty"`
	Description    string          `json:"description,omitempty"`
	Optional       bool            `json:"optional,omitempty"`
	Default        json.RawMessage `json:"default,omitempty"`
	Secret         bool            `json:"secret,omitempty"`
	Min            *int64          `json:"min,omitempty"`
	Max            *int64          `json:"max,omitempty"`
	Options        json.RawMessage `json:"options,omitempty" description:"static options: values, or {label, value} objects"`
	RemoteOptions  bool            `json:"remoteOptions,omitempty" description:"the options come from the component's async options method"`
	ReloadProps    bool            `json:"reloadProps,omitempty"`
	PropDefinition []string        `json:"propDefinition,omitempty" description:"[app slug, definition name]"`
	App            string          `json:"app,omitempty"`
	CustomResponse bool            `json:"customResponse,omitempty"`
	AlertType      string          `json:"alertType,omitempty" description:"alert props: info, neutral, warning or error"`
	Content        string          `json:"content,omitempty" description:"alert props: the note shown to whoever configures the component, in Markdown"`
}

// CreateComponentRequest saves a component.
type CreateComponentRequest struct {
	Common
	ComponentCode  string `json:"component_code,omitempty" maxLength:"5242880" description:"the component's code (the request body is at most 5 MiB); wins over component_url"`
	ComponentURL   string `json:"component_url,omitempty" maxLength:"2048" description:"an http(s) URL to fetch the code from; only metadata when component_code is given"`
	UpdatePackages bool   `json:"update_packages,omitempty" description:"resolve the code's npm imports to the newest matching versions, instead of the versions it was bundled with when saved before"`
	SourceMap      string `json:"source_map,omitempty" maxLength:"4194304" description:"a source map v3 from the code to its author's files (fount deploy sends the one of its bundle), so that stack traces name them; at most 4 MiB"`
}

// GetComponentRequest names a component by id or key.
type GetComponentRequest struct {
	Common
	KeyOrID string `path:"key_or_id" json:"-" maxLength:"256" required:"true" description:"sc_ id, or the key in the component's code"`
}

// RegistryComponentRequest names a published component.
type RegistryComponentRequest struct {
	Common
	Key string `path:"key" json:"-" maxLength:"256" required:"true"`
}

// Source is a deployed component.
type Source struct {
	ID          string `json:"id" required:"true" description:"dc_ id"`
	UserID      string `json:"user_id" required:"true"`
	ComponentID string `json:"component_id" required:"true"`
	// ConfiguredProps holds the values of the props. An HTTP interface
	// holds {endpoint_url}; a timer {cron, interval_seconds}; a secret
	// "[redacted]".
	ConfiguredProps map[string]json.RawMessage `json:"configured_props" required:"true" nullable:"false"`
	Active          bool                       `json:"active" required:"true"`
	CreatedAt       int64                      `json:"created_at" required:"true"`
	UpdatedAt       int64                      `json:"updated_at" required:"true"`
	Name            string                     `json:"name" required:"true"`
	NameSlug        string                     `json:"name_slug" required:"true"`
	// Throttle and QueueSize are fount's controls of a source's runs.
	Throttle  *Throttle `json:"throttle,omitempty" description:"at most limit runs start per interval_seconds; the rest wait, in order"`
	QueueSize int       `json:"queue_size,omitempty" description:"most runs waiting; past it an HTTP request or a manual run gets 429"`
}

// SetSourceControlsRequest replaces a source's controls: what it leaves
// out is off.
type SetSourceControlsRequest struct {
	Common
	ByID
	Throttle  *Throttle `json:"throttle,omitempty" description:"at most limit runs start per interval_seconds (absent: none)"`
	QueueSize int       `json:"queue_size,omitempty" minimum:"0" maximum:"10000" description:"most runs waiting to start (0: no bound)"`
}

// SourceRequest is the body of a source create or update.
type SourceRequest struct {
	Common
	ComponentID     string                     `json:"component_id,omitempty" maxLength:"64" description:"sc_ id of a saved component; wins over the other two"`
	ComponentCode   string                     `json:"component_code,omitempty" maxLength:"5242880" description:"the component's code (the request body is at most 5 MiB)"`
	ComponentURL    string                     `json:"component_url,omitempty" maxLength:"2048"`
	Name            string                     `json:"name,omitempty" maxLength:"256" description:"default: the component's name slug, made unique"`
	ConfiguredProps map[string]json.RawMessage `json:"configured_props" description:"values of the component's props; on update, null or omitted keeps the current values"`
	UpdatePackages  bool                       `json:"update_packages,omitempty" description:"with component_code or component_url: resolve its npm imports to the newest matching versions"`
}

// CreateSourceRequest deploys a source.
type CreateSourceRequest struct {
	SourceRequest
}

// UpdateSourceRequest updates a source.
type UpdateSourceRequest struct {
	ByID
	SourceRequest
	Active *bool `json:"active,omitempty" default:"true" description:"false disables the source, true enables it"`
}

// SourceByIDRequest names a source.
type SourceByIDRequest struct {
	Common
	ByID
}

// ListRequest lists a page of the caller's resources.
type ListRequest struct {
	Common
	PageParams
}

// OrgListRequest lists a page of an organization's resources.
type OrgListRequest struct {
	Common
	ByOrg
	PageParams
}

// OrgRequest names an organization.
type OrgRequest struct {
	Common
	ByOrg
}

// EventSummary is one event of an emitter.
type EventSummary struct {
	ID          string          `json:"id" required:"true" description:"<epoch_ms>-<sequence>; ordered by time; doubles as the cursor"`
	IndexedAtMs int64           `json:"indexed_at_ms" required:"true"`
	Event       json.RawMessage `json:"event" required:"true" description:"the event; over 1 KB a {$truncated, size, preview} object unless expand=event"`
	Metadata    EventMetadata   `json:"metadata" required:"true"`
}

// EventMetadata describes an event's emit.
type EventMetadata struct {
	EmitID    string `json:"emit_id" required:"true"`
	ID        string `json:"id,omitempty" description:"the id the component gave the emit ($emit's meta.id, its dedupe key)"`
	Name      string `json:"name" required:"true" description:"channel; empty for the default channel"`
	EmitterID string `json:"emitter_id" required:"true"`
	Summary   string `json:"summary,omitempty"`
	Truncated bool   `json:"truncated,omitempty" description:"event holds a preview; pass expand=event for the whole event"`
}

// EventSummariesRequest reads the last events of a source or workflow.
type EventSummariesRequest struct {
	Common
	ByID
	Limit     int    `query:"limit" json:"-" minimum:"1" maximum:"100" default:"10" description:"the last N events"`
	After     string `query:"after" json:"-" maxLength:"64" description:"events older than this cursor (an event id), for the next page"`
	Before    string `query:"before" json:"-" maxLength:"64" description:"events newer than this cursor (an event id), for the page before"`
	Expand    string `query:"expand" json:"-" maxLength:"16" enum:"event" description:"event: whole events, not truncated past 1 KB"`
	EventName string `query:"event_name" json:"-" maxLength:"256" description:"the channel; default the default channel"`
}

// WorkflowEventsRequest reads the last events of a workflow.
type WorkflowEventsRequest struct {
	Common
	WorkflowID string `path:"workflow_id" json:"-" maxLength:"64" required:"true"`
	Limit      int    `query:"limit" json:"-" minimum:"1" maximum:"100" default:"10"`
	After      string `query:"after" json:"-" maxLength:"64"`
	Before     string `query:"before" json:"-" maxLength:"64"`
	Expand     string `query:"expand" json:"-" maxLength:"16" enum:"event"`
}

// DeleteEventsRequest deletes a source's events.
type DeleteEventsRequest struct {
	Common
	ByID
	StartID   string `query:"start_id" json:"-" maxLength:"64" description:"this event and every later one"`
	EndID     string `query:"end_id" json:"-" maxLength:"64" description:"this event and every earlier one"`
	EventName string `query:"event_name" json:"-" maxLength:"256" description:"the channel; default the default channel"`
}

// RunSourceRequest queues a manual run of a source.
type RunSourceRequest struct {
	Common
	ByID
	Event json.RawMessage `json:"event,omitempty" description:"the run's event; default {}"`
}

// RunQueued answers a manual run.
type RunQueued struct {
	SourceID string `json:"source_id" required:"true"`
	Queued   bool   `json:"queued" required:"true"`
}

// StreamRequest opens a source's event stream.
type StreamRequest struct {
	Common
	ByID
	EventName   string `query:"event_name" json:"-" maxLength:"256"`
	LastEventID string `query:"last_event_id" json:"-" maxLength:"64" description:"resume after this event id (or send the Last-Event-ID header)"`
}

// Subscription connects an emitter to a listener.
type Subscription struct {
	ID         string `json:"id" required:"true" description:"sub_ id"`
	EmitterID  string `json:"emitter_id,omitempty" description:"a source or workflow id, or a glob dc_* or p_*; absent on auto-subscriptions"`
	ListenerID string `json:"listener_id" required:"true"`
	EventName  string `json:"event_name" required:"true" description:"channel; empty for the default channel"`
}

// SubscriptionRequest names a subscription.
type SubscriptionRequest struct {
	Common
	EmitterID  string `query:"emitter_id" json:"-" maxLength:"64" required:"true" description:"a source or workflow id, or dc_* (all sources) or p_* (all workflows)"`
	ListenerID string `query:"listener_id" json:"-" maxLength:"64" required:"true" description:"a source, workflow or webhook id"`
	EventName  string `query:"event_name" json:"-" maxLength:"256" description:"a custom channel, $errors or $logs; empty for the default channel"`
}

// AutoSubscriptionRequest subscribes a listener to emitters created later.
type AutoSubscriptionRequest struct {
	Common
	EventName  string `query:"event_name" json:"-" maxLength:"16" required:"true" enum:"$errors,$logs"`
	ListenerID string `query:"listener_id" json:"-" maxLength:"64" required:"true"`
}

// Webhook is an account-level delivery URL.
type Webhook struct {
	ID          string  `json:"id" required:"true" description:"wh_ id"`
	UserID      string  `json:"user_id,omitempty" description:"in the create response"`
	Name        *string `json:"name" required:"true"`
	Description *string `json:"description" required:"true"`
	URL         string  `json:"url" required:"true"`
	Active      bool    `json:"active" required:"true"`
	// DisabledReason is a fount extension.
	DisabledReason string `json:"disabled_reason,omitempty" description:"why fount deactivated the webhook (its deliveries kept failing); activating it again clears it"`
	CreatedAt      int64  `json:"created_at" required:"true"`
	UpdatedAt      int64  `json:"updated_at" required:"true"`
	// SigningSecret is shown once, in the create response (extension).
	SigningSecret string `json:"signing_secret,omitempty" description:"whsec_ key of the Standard Webhooks signature; shown once, in the create response"`
}

// UpdateWebhookRequest edits a webhook; what is not given stays.
type UpdateWebhookRequest struct {
	Common
	ByID
	URL         *string `json:"url,omitempty" maxLength:"2048" description:"http or https URL with a hostname"`
	Name        *string `json:"name,omitempty" maxLength:"256"`
	Description *string `json:"description,omitempty" maxLength:"4096"`
	Active      *bool   `json:"active,omitempty" description:"false stops deliveries: those due while it is inactive fail"`
}

// ResendDeliveryRequest names a delivery of a webhook.
type ResendDeliveryRequest struct {
	Common
	ByID
	DeliveryID string `path:"delivery_id" json:"-" maxLength:"64" required:"true"`
}

// ReplayRequest delivers a time range of an emitter's kept events to a
// webhook again.
type ReplayRequest struct {
	Common
	ByID
	EmitterID string `json:"emitter_id" required:"true" maxLength:"64" description:"dc_ or p_ id of a source or workflow you can see"`
	EventName string `json:"event_name,omitempty" maxLength:"256" description:"the channel; default the default one"`
	FromMs    int64  `json:"from_ms,omitempty" description:"the oldest indexed_at_ms to replay; default 0, the oldest kept"`
	ToMs      int64  `json:"to_ms,omitempty" description:"the newest indexed_at_ms to replay; default now"`
}

// Replayed says what a replay queued.
type Replayed struct {
	Deliveries []Delivery `json:"deliveries" required:"true" nullable:"false"`
}

// RotateWebhookRequest gives a webhook a new signing secret.
type RotateWebhookRequest struct {
	Common
	ByID
	OverlapSeconds *int64 `json:"overlap_seconds,omitempty" minimum:"0" maximum:"604800" default:"86400" description:"how long the old secret also signs deliveries"`
}

// CreateWebhookRequest creates a webhook.
type CreateWebhookRequest struct {
	Common
	URL         string  `query:"url" json:"-" maxLength:"2048" required:"true" description:"http or https URL with a hostname"`
	Name        *string `query:"name" json:"-" maxLength:"256"`
	Description *string `query:"description" json:"-" maxLength:"4096"`
}

// DeliveriesRequest lists a page of a webhook's deliveries.
type DeliveriesRequest struct {
	Common
	ByID
	PageParams
}

// Delivery is the record of an event's delivery to a webhook (extension).
type Delivery struct {
	ID          string    `json:"id" required:"true"`
	EventID     string    `json:"event_id" required:"true"`
	EmitterID   string    `json:"emitter_id" required:"true"`
	EventName   string    `json:"event_name" required:"true"`
	Status      string    `json:"status" required:"true" enum:"pending,delivered,failed"`
	Attempts    []Attempt `json:"attempts" required:"true" nullable:"false"`
	NextAttempt *int64    `json:"next_attempt_ms,omitempty" description:"epoch ms of the next attempt, while pending"`
	CreatedAtMs int64     `json:"created_at_ms" required:"true"`
}

// Attempt is one try of a delivery.
type Attempt struct {
	AtMs       int64  `json:"at_ms" required:"true"`
	Status     int    `json:"status,omitempty" description:"HTTP status; absent when none came back"`
	Error      string `json:"error,omitempty"`
	DurationMs int64  `json:"duration_ms" required:"true"`
}

// User is the authenticated user. Free accounts carry the daily fields,
// paid accounts the billing-period ones.
type User struct {
	ID                       string    `json:"id" required:"true"`
	Username                 string    `json:"username" required:"true"`
	Email                    string    `json:"email" required:"true"`
	Orgs                     []UserOrg `json:"orgs" required:"true" nullable:"false"`
	DailyComputeTimeQuota    *int64    `json:"daily_compute_time_quota,omitempty" description:"milliseconds"`
	DailyComputeTimeUsed     *int64    `json:"daily_compute_time_used,omitempty" description:"milliseconds"`
	DailyInvocationsQuota    *int64    `json:"daily_invocations_quota,omitempty"`
	DailyInvocationsUsed     *int64    `json:"daily_invocations_used,omitempty"`
	BillingPeriodStartTS     *int64    `json:"billing_period_start_ts,omitempty"`
	BillingPeriodEndTS       *int64    `json:"billing_period_end_ts,omitempty"`
	BillingPeriodInvocations *int64    `json:"billing_period_invocations,omitempty"`
	DailyNpmBytes            *int64    `json:"daily_npm_bytes,omitempty" description:"bytes of npm tarballs the user's deploys downloaded today (UTC); packages the server had cached cost none"`
}

// UserOrg is an organization the user belongs to.
type UserOrg struct {
	ID      string `json:"id" required:"true"`
	Name    string `json:"name" required:"true"`
	Orgname string `json:"orgname" required:"true"`
	Email   string `json:"email" required:"true"`
}

// CreateUserRequest creates a user (owner only; extension).
type CreateUserRequest struct {
	Common
	Username string `json:"username,omitempty" maxLength:"64" required:"true"`
	Email    string `json:"email,omitempty" maxLength:"254" required:"true"`
	Plan     string `json:"plan,omitempty" maxLength:"16" enum:"free,paid" default:"free"`
}

// CreatedUser is a new user with its API key, shown once.
type CreatedUser struct {
	ID       string `json:"id" required:"true"`
	Username string `json:"username" required:"true"`
	Email    string `json:"email" required:"true"`
	Plan     string `json:"plan" required:"true"`
	APIKey   string `json:"api_key" required:"true" description:"shown once"`
}

// CreateOrgRequest creates an organization (owner only; extension).
type CreateOrgRequest struct {
	Common
	Orgname string `json:"orgname,omitempty" maxLength:"64" required:"true"`
	Name    string `json:"name,omitempty" maxLength:"256"`
	Email   string `json:"email,omitempty" maxLength:"254"`
}

// AddOrgMemberRequest adds a user to an organization (owner only;
// extension).
type AddOrgMemberRequest struct {
	Common
	ByOrg
	UserID string `json:"user_id,omitempty" maxLength:"64" required:"true"`
}

// Org is an organization with its members (extension).
type Org struct {
	ID      string   `json:"id" required:"true"`
	Orgname string   `json:"orgname" required:"true"`
	Name    string   `json:"name" required:"true"`
	Email   string   `json:"email" required:"true"`
	Members []string `json:"members" required:"true" nullable:"false"`
}

// Empty is a request with only the common parameters.
type Empty struct {
	Common
}

// Health answers /healthz.
type Health struct {
	Status string `json:"status" required:"true" enum:"ok"`
}

// SignInRequest opens a dashboard session (POST /ui/session).
type SignInRequest struct {
	APIKey string `json:"api_key" required:"true" maxLength:"256" description:"an API key of this server; it is not kept in the browser"`
}

// Session is a dashboard session: who is signed in, and the token that
// requests changing anything with its cookie must send as X-CSRF-Token.
type Session struct {
	UserID    string `json:"user_id" required:"true"`
	Username  string `json:"username" required:"true"`
	CSRFToken string `json:"csrf_token" required:"true"`
	ExpiresAt int64  `json:"expires_at" required:"true" description:"epoch seconds"`
}

// ConfigureRequest asks a saved component for a prop's options, as
// Pipedream's configure call does: its async options method runs with the
// props configured so far.
type ConfigureRequest struct {
	Common
	KeyOrID         string                     `path:"key_or_id" json:"-" maxLength:"256" required:"true" description:"sc_ id, or the key in the component's code"`
	PropName        string                     `json:"prop_name" maxLength:"256" required:"true" description:"the prop whose options to list"`
	ConfiguredProps map[string]json.RawMessage `json:"configured_props,omitempty" description:"the values configured so far (app props with their authProvisionId)"`
	Page            int                        `json:"page,omitempty" minimum:"0" description:"the page the options method is asked for"`
	PrevContext     json.RawMessage            `json:"prev_context,omitempty" description:"the context the previous page returned"`
}

// PropOptions is one page of a prop's options.
type PropOptions struct {
	Options json.RawMessage `json:"options" required:"true" description:"values, or {label, value} objects"`
	Context json.RawMessage `json:"context,omitempty" description:"pass as prev_context to get the next page"`
}

// ReloadPropsRequest asks a saved component for its props with the ones
// its additionalProps method adds for the props configured so far.
type ReloadPropsRequest struct {
	Common
	KeyOrID         string                     `path:"key_or_id" json:"-" maxLength:"256" required:"true" description:"sc_ id, or the key in the component's code"`
	ConfiguredProps map[string]json.RawMessage `json:"configured_props,omitempty"`
}

// ReloadedProps are a component's props for a configuration.
type ReloadedProps struct {
	ConfigurableProps []Prop `json:"configurable_props" required:"true" nullable:"false" description:"the declared props, then those additionalProps added"`
}
