package ingress

import (
	"encoding/json"
	"mime"
	"mime/multipart"
	"net/http"
	"net/url"
	"strings"
)

// httpRunEvent is the run event of an HTTP interface, its fields in the
// order Pipedream gives them.
type httpRunEvent struct {
	Method  string            `json:"method"`
	Path    string            `json:"path"`
	Query   map[string]string `json:"query"`
	Headers map[string]string `json:"headers"`
	BodyRaw string            `json:"bodyRaw"`
	Body    any               `json:"body"`
}

// httpEvent is the run event of an HTTP interface.
func httpEvent(r *http.Request, path string, body []byte) httpRunEvent {
	headers := map[string]string{}
	for k, vs := range r.Header {
		if strings.EqualFold(k, "Cookie") {
			if kept := tenantCookies(vs); kept != "" {
				headers["cookie"] = kept
			}
			continue
		}
		headers[strings.ToLower(k)] = strings.Join(vs, ", ")
	}
	query := map[string]string{}
	for k, vs := range r.URL.Query() {
		if len(vs) > 0 {
			query[k] = vs[0]
		}
	}
	return httpRunEvent{Method: r.Method, Path: path, Query: query, Headers: headers,
		BodyRaw: string(body), Body: parseBody(r.Header.Get("Content-Type"), body)}
}

// parseBody parses JSON, urlencoded and multipart bodies as their content
// type says; anything else (or a body that does not parse) is the raw
// string. A JSON body stays its own text, checked: the guest's JSON.parse
// reads it as Node's would, its keys in their order and its numbers
// whole, where a round trip through Go's maps sorted the keys and read
// every number as a float64 (and took a fifth of the ingress's JSON).
func parseBody(contentType string, body []byte) any {
	if len(body) == 0 {
		return ""
	}
	mt, params, _ := mime.ParseMediaType(contentType)
	switch {
	case mt == "application/json" || strings.HasSuffix(mt, "+json"):
		if json.Valid(body) {
			return json.RawMessage(body)
		}
	case mt == "application/x-www-form-urlencoded":
		if vals, err := url.ParseQuery(string(body)); err == nil {
			return flatten(vals)
		}
	case mt == "multipart/form-data" && params["boundary"] != "":
		form, err := multipart.NewReader(strings.NewReader(string(body)), params["boundary"]).ReadForm(int64(len(body)) + 1)
		if err == nil {
			out := flatten(form.Value)
			for name, files := range form.File {
				if len(files) > 0 {
					out[name] = map[string]any{"filename": files[0].Filename, "size": files[0].Size, "content_type": files[0].Header.Get("Content-Type")}
				}
			}
			_ = form.RemoveAll()
			return out
		}
	}
	return string(body)
}

func flatten(vals map[string][]string) map[string]any {
	out := map[string]any{}
	for k, vs := range vals {
		if len(vs) == 1 {
			out[k] = vs[0]
		} else {
			out[k] = vs
		}
	}
	return out
}
