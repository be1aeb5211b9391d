package engine

import (
	"encoding/base64"
	"encoding/json"
	"errors"
	"io"
	"mime"
	"mime/multipart"
	"net"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/fount-dev/fount/abi"
	"github.com/fount-dev/fount/internal/component"
	"github.com/fount-dev/fount/internal/ids"
	"github.com/fount-dev/fount/internal/model"
)

// Ingress serves every source's HTTP interface at /h/<token>[/sub/path],
// any method.
func (e *Engine) Ingress() http.Handler {
	return http.HandlerFunc(e.serveIngress)
}

func ingressError(w http.ResponseWriter, status int, msg string) {
	tenantContent(w.Header())
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(map[string]any{"error": map[string]string{"message": msg}})
}

func (e *Engine) serveIngress(w http.ResponseWriter, r *http.Request) {
	if strings.HasPrefix(r.URL.Path, component.FlowPath) {
		e.serveFlowURL(w, r)
		return
	}
	rest := strings.TrimPrefix(r.URL.Path, component.EndpointPath)
	token, sub, _ := strings.Cut(rest, "/")
	ep, ok := e.endpoints.lookup(component.EndpointToken(token))
	if !ok || token == "" {
		ingressError(w, http.StatusNotFound, "no active source or workflow has this endpoint")
		return
	}
	if r.Method == http.MethodOptions {
		cors(w, r)
		w.WriteHeader(http.StatusNoContent)
		return
	}
	if !authorized(r, ep.tokenHash) {
		w.Header().Set("WWW-Authenticate", `Bearer realm="fount"`)
		ingressError(w, http.StatusUnauthorized, "this endpoint needs Authorization: Bearer <the trigger's token>")
		return
	}
	if ep.tokenHash != "" {
		r.Header.Del("Authorization") // the token is not the event's to keep
	}
	body, ok := e.readIngressBody(w, r)
	if !ok {
		return
	}
	// Only active sources have endpoints registered, so the map answers
	// without a store read per request.
	if over, err := e.quotas.overCached(r.Context(), ep.account); err != nil {
		ingressError(w, http.StatusInternalServerError, "the server could not check the account's quota")
		return
	} else if over {
		ingressError(w, http.StatusTooManyRequests, errQuota.Error())
		return
	}
	event, _ := json.Marshal(httpEvent(r, "/"+sub, body))
	inv := model.NewInvocation(ep.target, kindHTTP, event)
	var wt *waiter
	if ep.customResponse {
		inv.ReplyTo = e.replyAddress(ids.Random())
		if wt = e.waiters.register(inv.ReplyTo); wt == nil {
			ingressError(w, http.StatusServiceUnavailable, "the server is shutting down; try again")
			return
		}
		defer e.waiters.take(inv.ReplyTo)
	}
	var full *QueueFullError
	if _, err := e.enqueueWithin(r.Context(), inv, ep.queueSize); errors.As(err, &full) {
		w.Header().Set("Retry-After", "1")
		ingressError(w, http.StatusTooManyRequests, err.Error())
		return
	} else if err != nil {
		e.log.Error("enqueue http invocation", "target", ep.target, "err", err)
		ingressError(w, http.StatusServiceUnavailable, "the request could not be queued; try again")
		return
	}
	e.kick(ep.target)
	if wt == nil {
		cors(w, r)
		tenantContent(w.Header())
		w.Header().Set("Content-Type", "application/json")
		_, _ = io.WriteString(w, `{"success":true}`+"\n")
		return
	}
	cookiePath := component.EndpointPath + token
	if e.cfg.EndpointsShareSite {
		cookiePath = ""
	}
	e.awaitResponse(w, r, wt, ep.target.IsWorkflow(), cookiePath)
}

// readIngressBody reads an endpoint request's body within the size and
// time limits, or answers the request with why not (false).
func (e *Engine) readIngressBody(w http.ResponseWriter, r *http.Request) ([]byte, bool) {
	// Socket deadlines are wall-clock I/O, not engine time: a slow body
	// must not hold a connection, and a response waits at most for
	// respond() and a little more.
	rc := http.NewResponseController(w)
	_ = rc.SetReadDeadline(time.Now().Add(e.cfg.BodyTimeout))
	_ = rc.SetWriteDeadline(time.Now().Add(e.cfg.BodyTimeout + e.cfg.RespondTimeout))
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, e.cfg.MaxBody))
	if err == nil {
		return body, true
	}
	var tooBig *http.MaxBytesError
	var netErr net.Error
	switch {
	case errors.As(err, &tooBig):
		ingressError(w, http.StatusRequestEntityTooLarge, "the request body is over the endpoint's size limit")
	case errors.As(err, &netErr) && netErr.Timeout():
		ingressError(w, http.StatusRequestTimeout, "the request body did not arrive in time")
	default:
		ingressError(w, http.StatusBadRequest, "the request body could not be read")
	}
	return nil, false
}

// awaitResponse answers a request with its run's respond(). A workflow's
// execution that ends without $.respond() answers 502: the workflow,
// acting as the origin, gave no response.
//
// cookiePath is the path the response's cookies are scoped to: the
// endpoint's own, or "" for none at all.
func (e *Engine) awaitResponse(w http.ResponseWriter, r *http.Request, wt *waiter, workflow bool, cookiePath string) {
	timeout := make(chan struct{})
	t := e.clock.AfterFunc(e.cfg.RespondTimeout, func() { close(timeout) })
	defer t.Stop()
	select {
	case resp := <-wt.response:
		writeResponse(w, resp, cookiePath)
	case <-wt.ended:
		select { // respond() may have come just before the end
		case resp := <-wt.response:
			writeResponse(w, resp, cookiePath)
			return
		default:
		}
		select {
		case <-wt.released:
			ingressError(w, http.StatusServiceUnavailable, "the server is shutting down; the request is queued and will run, but its response cannot be waited for")
		default:
			if workflow {
				ingressError(w, http.StatusBadGateway, "the workflow's execution ended without calling $.respond(); see its executions for why")
			} else {
				ingressError(w, http.StatusInternalServerError, "the source's run ended without calling respond()")
			}
		}
	case <-timeout:
		if workflow {
			ingressError(w, http.StatusGatewayTimeout, "the workflow did not call $.respond() in time")
		} else {
			ingressError(w, http.StatusGatewayTimeout, "the source did not call respond() in time")
		}
	case <-r.Context().Done():
	}
}

func writeResponse(w http.ResponseWriter, resp abi.Response, cookiePath string) {
	for k, v := range resp.Headers {
		switch {
		case strings.EqualFold(k, "Set-Cookie"):
			if scoped, ok := scopeCookie(v, cookiePath); ok {
				w.Header().Add("Set-Cookie", scoped)
			}
			continue
		case strings.EqualFold(k, "Clear-Site-Data"), strings.EqualFold(k, "Set-Cookie2"):
			// It would clear every tenant's cookies and storage on the
			// endpoints' origin, and the dashboard's on a shared one.
			continue
		}
		w.Header().Set(k, v)
	}
	tenantContent(w.Header())
	body := []byte(resp.Body)
	if resp.BodyEncoding == "base64" {
		if b, err := base64.StdEncoding.DecodeString(resp.Body); err == nil {
			body = b
		}
	}
	w.WriteHeader(resp.Status)
	_, _ = w.Write(body)
}

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
