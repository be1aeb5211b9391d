package dashboard

import (
	"embed"
	"io/fs"
	"net/http"
	"strings"
)

//go:embed static
var files embed.FS

// securityHeaders keep the pages from running anything but their own
// scripts, from being framed, and from leaking URLs to other sites.
func securityHeaders() map[string]string {
	return map[string]string{
		"Content-Security-Policy": "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; " +
			"connect-src 'self'; form-action 'none'; frame-ancestors 'none'; base-uri 'none'",
		"X-Content-Type-Options": "nosniff",
		"Referrer-Policy":        "no-referrer",
		"X-Frame-Options":        "DENY",
		// A new binary serves new files: revalidate rather than cache.
		"Cache-Control": "no-cache",
	}
}

// Handler serves the dashboard: its page at / and its files under /ui/.
func Handler() http.Handler {
	static, err := fs.Sub(files, "static")
	if err != nil {
		panic("dashboard: embedded files missing: " + err.Error()) // a build without them is broken
	}
	assets := http.StripPrefix("/ui", http.FileServerFS(static))
	headers := securityHeaders()
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		for k, v := range headers {
			w.Header().Set(k, v)
		}
		if r.URL.Path == "/" {
			http.ServeFileFS(w, r, static, "index.html")
			return
		}
		if !strings.HasPrefix(r.URL.Path, "/ui/") || strings.HasSuffix(r.URL.Path, "/") {
			http.NotFound(w, r)
			return
		}
		assets.ServeHTTP(w, r)
	})
}
