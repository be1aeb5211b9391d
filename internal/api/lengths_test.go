package api

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"reflect"
	"strings"
	"testing"
)

// TestEveryTextParameterIsBounded: every string parameter of every
// operation has a maxLength, and the OpenAPI document shows it.
func TestEveryTextParameterIsBounded(t *testing.T) {
	t.Parallel()
	s := New(Config{})
	raw, err := s.openAPIDocument()
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Paths map[string]map[string]struct {
			Parameters []struct {
				Name   string
				Schema struct{ MaxLength int }
			}
			RequestBody struct {
				Content map[string]struct {
					Schema struct {
						Ref string `json:"$ref"`
					}
				}
			}
		}
		Components struct {
			Schemas map[string]struct {
				Properties map[string]struct{ MaxLength int }
			}
		}
	}
	if err := json.Unmarshal(raw, &doc); err != nil {
		t.Fatal(err)
	}
	for _, rt := range s.routes {
		op := doc.Paths["/v1"+rt.path][strings.ToLower(rt.method)]
		documented := map[string]int{}
		for _, p := range op.Parameters {
			documented[p.Name] = p.Schema.MaxLength
		}
		if ref := op.RequestBody.Content["application/json"].Schema.Ref; ref != "" {
			for name, prop := range doc.Components.Schemas[strings.TrimPrefix(ref, "#/components/schemas/")].Properties {
				documented[name] = prop.MaxLength
			}
		}
		for _, f := range rt.fields.all {
			typ := f.typ
			if typ.Kind() == reflect.Pointer {
				typ = typ.Elem()
			}
			if typ.Kind() != reflect.String {
				continue
			}
			if f.maxLen == 0 {
				t.Errorf("%s %s: the parameter %s has no maxLength tag", rt.method, rt.path, f.name)
			}
			if documented[f.name] != f.maxLen {
				t.Errorf("%s %s: the document gives %s maxLength %d, want %d", rt.method, rt.path, f.name, documented[f.name], f.maxLen)
			}
		}
	}
}

// TestTooLongParameters: for every string parameter of every operation,
// a value one character over its maxLength is a 400 that names it and
// its limit, and a value at the limit is not refused for its length.
// Lengths count characters (é is two bytes), as JSON Schema does.
func TestTooLongParameters(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	for _, rt := range h.server.routes {
		for _, f := range rt.fields.all {
			if f.maxLen == 0 || f.maxLen > maxBody/4 {
				continue // component_code: the request body cap (413) bounds it first
			}
			t.Run(rt.method+" "+rt.path+" "+f.name, func(t *testing.T) {
				t.Parallel()
				for _, n := range []int{f.maxLen, f.maxLen + 1} {
					r := h.send(requestWith(t, h, rt, f.name, strings.Repeat("é", n)))
					e, _ := r.body["error"].(map[string]any)
					msg, _ := e["message"].(string)
					refused := r.status == 400 && r.errCode() == "invalid_parameter" && r.errParam() == f.name &&
						strings.Contains(msg, "characters long") && strings.Contains(msg, fmt.Sprint(f.maxLen))
					if refused != (n > f.maxLen) {
						t.Errorf("%d characters (limit %d): %d %s", n, f.maxLen, r.status, r.raw)
					}
				}
			})
		}
	}
}

// requestWith builds a request of rt whose parameter name is value: in
// the path, the JSON body (POST, PUT) or the query string. Other path
// parameters are "x".
func requestWith(t *testing.T, h *harness, rt route, name, value string) *http.Request {
	t.Helper()
	path := rt.path
	for p := range rt.fields.path {
		v := "x"
		if p == name {
			v = value
		}
		path = strings.ReplaceAll(path, "{"+p+"}", url.PathEscape(v))
	}
	var body *bytes.Reader
	query := ""
	_, inPath := rt.fields.path[name]
	switch {
	case inPath:
	case rt.method == http.MethodPost || rt.method == http.MethodPut:
		b, _ := json.Marshal(map[string]string{name: value})
		body = bytes.NewReader(b)
	default:
		query = "?" + url.Values{name: {value}}.Encode()
	}
	req, err := http.NewRequest(rt.method, h.srv.URL+"/v1"+path+query, nil)
	if body != nil {
		req, err = http.NewRequest(rt.method, h.srv.URL+"/v1"+path, body)
		req.Header.Set("Content-Type", "application/json")
	}
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Authorization", "Bearer "+h.ownerKey)
	return req
}

// TestLengthsCountCharacters: a webhook name of 256 two-byte characters
// is stored whole.
func TestLengthsCountCharacters(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	name := strings.Repeat("é", 256)
	r := h.must(h.call("POST", "/v1/webhooks", h.ownerKey, map[string]any{"url": "https://example.com/a", "name": name}), 200)
	if r.data()["name"] != name {
		t.Errorf("name stored as %v", r.data()["name"])
	}
}
