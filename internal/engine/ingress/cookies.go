package ingress

import (
	"net/http"
	"strings"
)

// ReservedCookiePrefix begins the names of the cookies fount itself sets
// (the dashboard's session): an endpoint's response may not set them.
const ReservedCookiePrefix = "fount_"

// reservedCookie reports whether a Set-Cookie value, or a name=value pair
// of a Cookie header, names a cookie fount reserves (with or without the
// __Host-/__Secure- prefixes), or no name at all.
func reservedCookie(setCookie string) bool {
	name, _, _ := strings.Cut(strings.TrimSpace(setCookie), "=")
	name = strings.ToLower(strings.TrimSpace(name))
	if name == "" {
		// A nameless cookie ("=fount_session=x") reaches browsers as its
		// value alone, which they send back as "fount_session=x".
		return true
	}
	name = strings.TrimPrefix(strings.TrimPrefix(name, "__host-"), "__secure-")
	return strings.HasPrefix(name, ReservedCookiePrefix)
}

// scopeCookie rewrites a Set-Cookie value of an endpoint's response so
// that it reaches that endpoint only: no Domain (the host alone), and the
// endpoint's own path. Cookies fount reserves, cookies that must have
// the path "/" (__Host-) and values that do not parse are dropped, and
// so is every cookie where path is "" (endpoints on the dashboard's host).
func scopeCookie(v, path string) (string, bool) {
	if path == "" || reservedCookie(v) {
		return "", false
	}
	c, err := http.ParseSetCookie(v)
	if err != nil || strings.HasPrefix(strings.ToLower(c.Name), "__host-") {
		return "", false
	}
	c.Domain, c.Path = "", path
	s := c.String()
	return s, s != ""
}

// tenantCookies is a request's Cookie header without the cookies fount
// reserves: a browser signed in to the dashboard on the endpoints' origin
// sends its session cookie to every endpoint, and the endpoint's owner
// must never read it.
func tenantCookies(values []string) string {
	var kept []string
	for _, v := range values {
		for _, pair := range strings.Split(v, ";") {
			pair = strings.TrimSpace(pair)
			if pair != "" && !reservedCookie(pair) {
				kept = append(kept, pair)
			}
		}
	}
	return strings.Join(kept, "; ")
}

// tenantContent marks a response as a tenant's: a browser that renders it
// treats it as a sandboxed document of an opaque origin (no script access
// to the API's origin, its storage or its cookies), and does not sniff it
// into another type. A component's own policy still applies beside ours.
func tenantContent(h http.Header) {
	h.Add("Content-Security-Policy", "sandbox")
	h.Set("X-Content-Type-Options", "nosniff")
}

// cors answers with permissive CORS headers: endpoints are meant to be
// called from anywhere.
func cors(w http.ResponseWriter, r *http.Request) {
	h := w.Header()
	h.Set("Access-Control-Allow-Origin", "*")
	h.Set("Access-Control-Allow-Methods", "GET, POST, PUT, PATCH, DELETE, OPTIONS, HEAD")
	if req := r.Header.Get("Access-Control-Request-Headers"); req != "" {
		h.Set("Access-Control-Allow-Headers", req)
	} else {
		h.Set("Access-Control-Allow-Headers", "*")
	}
	h.Set("Access-Control-Max-Age", "86400")
}
