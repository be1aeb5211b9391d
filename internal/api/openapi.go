package api

import (
	"encoding/json"
	"fmt"
	"net/http"
	"reflect"
	"strings"

	"github.com/swaggest/jsonschema-go"
	"github.com/swaggest/openapi-go"
	"github.com/swaggest/openapi-go/openapi31"

	"github.com/fount-dev/fount/apiv1"
)

// openAPIDocument builds the OpenAPI 3.1 document from the route table and
// the request and response types of package apiv1, so that it cannot miss
// a route or a field (TestOpenAPICoversEveryRoute walks the router to make
// sure, and CI validates the document and compiles a client generated
// from it).
func (s *Server) openAPIDocument() ([]byte, error) {
	r := openapi31.NewReflector()
	r.JSONSchemaReflector().DefaultOptions = append(r.JSONSchemaReflector().DefaultOptions, jsonschema.InterceptDefName(schemaName))
	r.Spec.SetTitle("fount API")
	r.Spec.SetVersion("1")
	r.Spec.SetDescription("Event sources, subscriptions and webhooks, as the specification in docs/SPEC.md describes them. " +
		"Operations marked x-fount-extension are fount's additions to it. Compute-time quota fields are in milliseconds. " +
		"Parameters travel where this document says; as the specification allows, on POST and PUT a query parameter may also be sent " +
		"as a body field and a scalar body field as a query parameter (the body wins). Names that are no parameter of an operation are refused with a 400.")
	r.Spec.SetHTTPBearerTokenSecurity("bearer", "", "an API key: Authorization: Bearer <key>")
	r.Spec.WithServers(openapi31.Server{URL: "/"})
	for _, rt := range s.routes {
		if err := addOperation(r, rt); err != nil {
			return nil, fmt.Errorf("api: openapi %s %s: %w", rt.method, rt.path, err)
		}
	}
	for path, ok := range map[string]any{"/healthz": new(apiv1.Health), "/readyz": new(apiv1.Health), "/v1/openapi.json": new(map[string]any)} {
		oc, err := r.NewOperationContext(http.MethodGet, path)
		if err != nil {
			return nil, err
		}
		oc.SetSummary(map[string]string{"/healthz": "Liveness", "/readyz": "Readiness: the store answers and the engine runs (503 when not)", "/v1/openapi.json": "This document"}[path])
		oc.AddRespStructure(ok, openapi.WithHTTPStatus(http.StatusOK))
		if err := r.AddOperation(oc); err != nil {
			return nil, err
		}
		op := r.Spec.Paths.MapOfPathItemValues[path].Get
		op.Security = []map[string][]string{} // no key needed
	}
	if err := addSessionOperations(r); err != nil {
		return nil, err
	}
	r.Spec.WithSecurity(map[string][]string{"bearer": {}})
	return json.Marshal(r.Spec)
}

// addOperation documents one route: its parameters and body from its
// request type, its success response, and the error shape for the rest.
func addOperation(r *openapi31.Reflector, rt route) error {
	oc, err := r.NewOperationContext(rt.method, "/v1"+rt.path)
	if err != nil {
		return err
	}
	oc.SetSummary(rt.summary)
	oc.SetID(operationID(rt))
	oc.AddReqStructure(reflect.New(rt.fields.typ).Interface())
	status := rt.status
	if status == 0 {
		status = http.StatusOK
	}
	switch {
	case strings.HasSuffix(rt.path, "/sse"):
		oc.AddRespStructure(new(apiv1.EventSummary), openapi.WithHTTPStatus(status), openapi.WithContentType("text/event-stream"),
			func(cu *openapi.ContentUnit) { cu.Description = sseDescription })
	case rt.path == "/backup":
		oc.AddRespStructure(new(tarArchive), openapi.WithHTTPStatus(status), openapi.WithContentType("application/x-tar"),
			func(cu *openapi.ContentUnit) { cu.Description = "a tar of the store and its secret key, streamed" })
	case rt.response != nil:
		oc.AddRespStructure(reflect.New(rt.response).Interface(), openapi.WithHTTPStatus(status))
	default:
		oc.AddRespStructure(nil, openapi.WithHTTPStatus(status))
	}
	oc.AddRespStructure(new(apiv1.Error), func(cu *openapi.ContentUnit) { cu.IsDefault = true; cu.Description = "Error" })
	if err := r.AddOperation(oc); err != nil {
		return err
	}
	if rt.extension {
		item := r.Spec.Paths.MapOfPathItemValues["/v1"+rt.path]
		if op := operationOf(&item, rt.method); op != nil {
			op.WithMapOfAnythingItem("x-fount-extension", true)
		}
	}
	return nil
}

// sseDescription says what the schema of an event stream's operation is
// the schema of: OpenAPI 3.1 has no way to type each message of a
// text/event-stream body.
const sseDescription = "Server-sent events. Each `event: event` message has an `id:` (send it back as Last-Event-ID to resume) and, as `data:`, one EventSummary in JSON (the schema here); a `:` line is a heartbeat. A workflow's stream also carries its steps' `$.send.sse` messages: named by their channel (`message` without one), `data:` the payload in JSON, no id."

// tarArchive is the body of GET /v1/backup in the OpenAPI document.
type tarArchive struct{}

// JSONSchema: the body is the bytes of a tar archive.
func (tarArchive) JSONSchema() (jsonschema.Schema, error) {
	var s jsonschema.Schema
	s.AddType(jsonschema.String)
	s.WithFormat("binary").WithContentMediaType("application/x-tar")
	return s, nil
}

// operationOf returns the operation of a method in a path item.
func operationOf(item *openapi31.PathItem, method string) *openapi31.Operation {
	switch method {
	case http.MethodGet:
		return item.Get
	case http.MethodPost:
		return item.Post
	case http.MethodPut:
		return item.Put
	case http.MethodDelete:
		return item.Delete
	}
	return nil
}

// operationID names an operation after its method and path:
// "put_sources_id".
func operationID(rt route) string {
	var b strings.Builder
	b.WriteString(strings.ToLower(rt.method))
	for _, part := range strings.Split(rt.path, "/") {
		part = strings.Trim(part, "{}$")
		if part != "" {
			b.WriteString("_" + part)
		}
	}
	return b.String()
}

// schemaName names the schemas of package apiv1 (and this package's)
// without the package prefix, and generic envelopes after their item:
// DataSource, PageWebhook.
func schemaName(t reflect.Type, name string) string {
	if t.PkgPath() == reflect.TypeFor[tarArchive]().PkgPath() { // this package's few: TarArchive
		return strings.TrimPrefix(name, "Api")
	}
	name = strings.ReplaceAll(name, "GithubComFountDevFountApiv1", "")
	return strings.TrimPrefix(name, "Apiv1")
}

// OpenAPIDocument is the OpenAPI 3.1 document of the API, as a server
// serves it at /v1/openapi.json; it needs no running server (`fount
// openapi` prints it, for generating clients).
func OpenAPIDocument() ([]byte, error) {
	return New(Config{}).openAPIDocument()
}

func (s *Server) serveOpenAPI(w http.ResponseWriter, r *http.Request) {
	// Built once: reflecting every type costs tens of milliseconds, and
	// the document is served without authentication.
	doc, err := s.openAPI()
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	_, _ = w.Write(doc)
}

// addSessionOperations documents the dashboard's session endpoints. Every
// /v1 operation also accepts the session cookie, and then, on anything but
// GET, the session's X-CSRF-Token header.
func addSessionOperations(r *openapi31.Reflector) error {
	r.Spec.SetAPIKeySecurity("session", sessionCookie, openapi.InCookie,
		"the dashboard's session cookie (POST /ui/session); requests other than GET must also send X-CSRF-Token")
	ops := []struct {
		method, summary string
		req, resp       any
		status          int
	}{
		{http.MethodPost, "Sign the dashboard in with an API key: sets the HttpOnly, SameSite=Strict session cookie", new(apiv1.SignInRequest), new(apiv1.Data[apiv1.Session]), http.StatusCreated},
		{http.MethodGet, "The dashboard's session and its CSRF token", nil, new(apiv1.Data[apiv1.Session]), http.StatusOK},
		{http.MethodDelete, "Sign the dashboard out", nil, nil, http.StatusNoContent},
	}
	for _, o := range ops {
		oc, err := r.NewOperationContext(o.method, "/ui/session")
		if err != nil {
			return err
		}
		oc.SetSummary(o.summary)
		oc.SetID(strings.ToLower(o.method) + "Session")
		if o.req != nil {
			oc.AddReqStructure(o.req)
		}
		oc.AddRespStructure(o.resp, openapi.WithHTTPStatus(o.status))
		oc.AddRespStructure(new(apiv1.Error), func(cu *openapi.ContentUnit) { cu.IsDefault = true; cu.Description = "Error" })
		if err := r.AddOperation(oc); err != nil {
			return err
		}
		item := r.Spec.Paths.MapOfPathItemValues["/ui/session"]
		op := operationOf(&item, o.method)
		op.WithMapOfAnythingItem("x-fount-extension", true)
		if o.method == http.MethodPost {
			op.Security = []map[string][]string{}
		} else {
			op.Security = []map[string][]string{{"session": {}}}
		}
	}
	return nil
}
