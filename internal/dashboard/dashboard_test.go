package dashboard

import (
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

func TestHandlerServesThePageAndItsFiles(t *testing.T) {
	t.Parallel()
	h := Handler()
	tests := []struct {
		path        string
		status      int
		contentType string
		body        string
	}{
		{"/", 200, "text/html", `<script src="/ui/app.js"`},
		{"/ui/app.js", 200, "text/javascript", "'use strict'"},
		{"/ui/app.css", 200, "text/css", "prefers-color-scheme: dark"},
		{"/ui/favicon.svg", 200, "image/svg+xml", "<svg"},
		{"/ui/", 404, "", ""},
		{"/ui/nosuch.js", 404, "", ""},
		{"/ui/../dashboard.go", 404, "", ""},
		{"/index.html", 404, "", ""},
	}
	for _, tt := range tests {
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, tt.path, nil))
		body, _ := io.ReadAll(rec.Body)
		if rec.Code != tt.status {
			t.Errorf("%s: status %d, want %d", tt.path, rec.Code, tt.status)
			continue
		}
		if !strings.HasPrefix(rec.Header().Get("Content-Type"), tt.contentType) {
			t.Errorf("%s: Content-Type %q, want %s", tt.path, rec.Header().Get("Content-Type"), tt.contentType)
		}
		if !strings.Contains(string(body), tt.body) {
			t.Errorf("%s: body lacks %q", tt.path, tt.body)
		}
		csp := rec.Header().Get("Content-Security-Policy")
		if !strings.Contains(csp, "script-src 'self'") || !strings.Contains(csp, "frame-ancestors 'none'") {
			t.Errorf("%s: Content-Security-Policy %q", tt.path, csp)
		}
		if rec.Header().Get("X-Content-Type-Options") != "nosniff" {
			t.Errorf("%s: no nosniff", tt.path)
		}
	}
}

// TestPagesBuildNoMarkupFromData keeps the scripts from turning data into
// markup: every element is built with DOM calls and textContent.
func TestPagesBuildNoMarkupFromData(t *testing.T) {
	t.Parallel()
	js, err := files.ReadFile("static/app.js")
	if err != nil {
		t.Fatal(err)
	}
	for _, sink := range []string{"innerHTML", "outerHTML", "insertAdjacentHTML", "document.write", "eval(", "new Function"} {
		if strings.Contains(string(js), sink) {
			t.Errorf("app.js uses %s", sink)
		}
	}
}
