package api

import (
	"net/http"
	"regexp"
	"strconv"
	"strings"
)

var pathParam = regexp.MustCompile(`\{([a-z_]+)\}`)

// openAPIDocument builds the OpenAPI 3.1 document from the route table, so
// that it cannot miss a route (TestOpenAPICoversEveryRoute walks the router
// to make sure).
func (s *Server) openAPIDocument() map[string]any {
	paths := map[string]map[string]any{}
	for _, rt := range s.routes() {
		path := "/v1" + rt.path
		if paths[path] == nil {
			paths[path] = map[string]any{}
		}
		paths[path][strings.ToLower(rt.method)] = operation(rt)
	}
	paths["/v1/openapi.json"] = map[string]any{"get": map[string]any{
		"summary": "This document", "security": []any{},
		"responses": map[string]any{"200": map[string]any{"description": "The OpenAPI document"}},
	}}
	paths["/healthz"] = map[string]any{"get": map[string]any{
		"summary": "Liveness", "security": []any{},
		"responses": map[string]any{"200": map[string]any{"description": `{"status":"ok"}`}},
	}}
	return map[string]any{
		"openapi": "3.1.0",
		"info": map[string]any{
			"title":       "fount API",
			"version":     "1",
			"description": "Event sources, subscriptions and webhooks. Operations marked x-fount-extension are fount's additions to the specification. Compute-time quota fields are in milliseconds.",
		},
		"servers":  []any{map[string]any{"url": "/"}},
		"security": []any{map[string]any{"bearer": []any{}}},
		"paths":    paths,
		"components": map[string]any{
			"securitySchemes": map[string]any{"bearer": map[string]any{"type": "http", "scheme": "bearer"}},
			"schemas": map[string]any{
				"Error": map[string]any{
					"type":     "object",
					"required": []any{"error"},
					"properties": map[string]any{"error": map[string]any{
						"type":     "object",
						"required": []any{"code", "message"},
						"properties": map[string]any{
							"code":    map[string]any{"type": "string"},
							"message": map[string]any{"type": "string"},
							"param":   map[string]any{"type": "string"},
						},
					}},
				},
				"PageInfo": map[string]any{
					"type": "object",
					"properties": map[string]any{
						"total_count": map[string]any{"type": "integer"}, "count": map[string]any{"type": "integer"},
						"start_cursor": map[string]any{"type": "string"}, "end_cursor": map[string]any{"type": "string"},
					},
				},
			},
		},
	}
}

func operation(rt route) map[string]any {
	var ps []any
	for _, m := range pathParam.FindAllStringSubmatch(rt.path, -1) {
		ps = append(ps, map[string]any{"name": m[1], "in": "path", "required": true, "schema": map[string]any{"type": "string"}})
	}
	for _, name := range []string{"include", "exclude", "org_id"} {
		ps = append(ps, map[string]any{"name": name, "in": "query", "schema": map[string]any{"type": "string"}})
	}
	if rt.paginated {
		ps = append(ps,
			map[string]any{"name": "limit", "in": "query", "schema": map[string]any{"type": "integer", "minimum": 1, "maximum": maxLimit, "default": defaultLimit}},
			map[string]any{"name": "after", "in": "query", "schema": map[string]any{"type": "string"}},
			map[string]any{"name": "before", "in": "query", "schema": map[string]any{"type": "string"}},
		)
	}
	status := "200"
	switch {
	case rt.status != 0:
		status = strconv.Itoa(rt.status)
	case rt.method == http.MethodDelete && strings.HasSuffix(rt.path, "/events"):
		status = "202"
	case rt.method == http.MethodDelete:
		status = "204"
	}
	op := map[string]any{
		"summary":    rt.summary,
		"parameters": ps,
		"responses": map[string]any{
			status: map[string]any{"description": "Success"},
			"default": map[string]any{"description": "Error", "content": map[string]any{
				"application/json": map[string]any{"schema": map[string]any{"$ref": "#/components/schemas/Error"}},
			}},
		},
	}
	if rt.extension {
		op["x-fount-extension"] = true
	}
	return op
}

func (s *Server) openAPI(w http.ResponseWriter, _ *http.Request) {
	writeJSON(w, http.StatusOK, s.openAPIDocument())
}
