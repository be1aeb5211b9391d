package server

import (
	"io"
	"log/slog"
	"net"
	"net/http"
	"sync"
	"sync/atomic"
	"syscall"
	"time"
)

// HTTPLimits bound what a client can hold of the server: how long a
// request may take to send its headers and its body and to read its
// answer, how long a keep-alive connection may sit idle, and how many
// connections may be open at once.
type HTTPLimits struct {
	ReadHeader time.Duration // request line and headers
	Request    time.Duration // an API request's body and answer (event streams move their own)
	Body       time.Duration // an endpoint request's body (/h/)
	Idle       time.Duration // a keep-alive connection between requests
	MaxConns   int           // open connections per listener
}

// DefaultHTTPLimits are the limits of a server with maxConns open connections
// at most (0: as many as the process's file limit leaves room for).
func DefaultHTTPLimits(maxConns int) HTTPLimits {
	if maxConns <= 0 {
		maxConns = connectionsForFileLimit()
	}
	return HTTPLimits{ReadHeader: 10 * time.Second, Request: time.Minute, Body: 30 * time.Second, Idle: time.Minute, MaxConns: maxConns}
}

// connectionsForFileLimit leaves room under the open-file limit for the
// store, the compilation cache, outbound requests and workers: half of
// it, and at least 64.
func connectionsForFileLimit() int {
	var lim syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_NOFILE, &lim); err != nil || lim.Cur == 0 {
		return 512
	}
	return max(64, int(min(lim.Cur, 1<<20)/2))
}

// newHTTPServer is an http.Server on ln that serves h within the limits:
// header and idle timeouts, at most lim.maxConns connections at once
// (idle keep-alive ones closed first to make room for a new client).
// Body and answer deadlines are set per request (withDeadlines, and the
// ingress), because an event stream lives as long as its client. Serve
// it on the listener it returns.
func newHTTPServer(h http.Handler, ln net.Listener, lim HTTPLimits, log *slog.Logger, name string) (*http.Server, net.Listener) {
	ll := limitConnections(ln, lim.MaxConns, log, name)
	srv := &http.Server{Handler: h, ReadHeaderTimeout: lim.ReadHeader, IdleTimeout: lim.Idle, MaxHeaderBytes: 64 << 10,
		ConnState: ll.connState}
	return srv, ll
}

// withDeadlines gives each API request's body a minimum rate and d to
// arrive in all, and its answer d to be read from the moment the handler
// starts it. The handler's own work is bounded by its own limits (a run's
// time limit, the wait for a worker), not by a deadline set when the
// request came: that one closed connections without an answer when a
// deploy took long. An event stream sets its own write deadlines, moved
// at every write, as does a backup.
func withDeadlines(next http.Handler, d time.Duration) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		aw := &answerDeadline{ResponseWriter: w, rc: http.NewResponseController(w), d: d}
		next.ServeHTTP(aw, withBodyRate(w, r, d))
	})
}

// answerDeadline sets the write deadline of an answer when the handler
// starts writing it, unless the handler chose one itself.
type answerDeadline struct {
	http.ResponseWriter
	rc              *http.ResponseController // of the writer beneath
	d               time.Duration
	chosen, started bool
}

func (a *answerDeadline) start() {
	if !a.started {
		a.started = true
		if !a.chosen {
			_ = a.rc.SetWriteDeadline(time.Now().Add(a.d))
		}
	}
}

func (a *answerDeadline) WriteHeader(code int) {
	a.start()
	a.ResponseWriter.WriteHeader(code)
}

func (a *answerDeadline) Write(b []byte) (int, error) {
	a.start()
	return a.ResponseWriter.Write(b)
}

func (a *answerDeadline) Flush() {
	a.start()
	_ = a.rc.Flush()
}

// SetWriteDeadline is what http.ResponseController calls: the handler's
// choice wins.
func (a *answerDeadline) SetWriteDeadline(t time.Time) error {
	a.chosen = true
	return a.rc.SetWriteDeadline(t)
}

func (a *answerDeadline) Unwrap() http.ResponseWriter { return a.ResponseWriter }

// A request body must keep up a minimum rate, past a short grace: one
// that trickles (a byte every few seconds) would otherwise hold its
// connection, and a worker, until the whole body's deadline.
const (
	bodyGrace   = 5 * time.Second
	bodyMinRate = 1 << 10 // bytes a second
)

// withBodyRate makes r's body readable only as fast as bodyMinRate
// demands of it: each read must come before grace plus one second per
// bodyMinRate bytes read so far, and before limit from now.
func withBodyRate(w http.ResponseWriter, r *http.Request, limit time.Duration) *http.Request {
	if r.Body == nil || r.Body == http.NoBody {
		return r
	}
	start := time.Now()
	r2 := *r
	r2.Body = &rateBody{ReadCloser: r.Body, rc: http.NewResponseController(w), start: start, end: start.Add(limit)}
	return &r2
}

type rateBody struct {
	io.ReadCloser
	rc         *http.ResponseController
	start, end time.Time
	read       int64
}

func (b *rateBody) Read(p []byte) (int, error) {
	due := b.start.Add(bodyGrace + time.Duration(b.read)*time.Second/bodyMinRate)
	if due.After(b.end) {
		due = b.end
	}
	_ = b.rc.SetReadDeadline(due)
	n, err := b.ReadCloser.Read(p)
	b.read += int64(n)
	if err == io.EOF {
		// The body is in. A deadline left behind would end the server's
		// watch for the client's hang-up with a timeout, and with it the
		// request's context, while the handler still works.
		_ = b.rc.SetReadDeadline(time.Time{})
	}
	return n, err
}

// withEndpointBodyRate gives endpoint requests' bodies the minimum rate;
// the ingress sets their whole deadline (limit).
func withEndpointBodyRate(next http.Handler, limit time.Duration) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		next.ServeHTTP(w, withBodyRate(w, r, limit))
	})
}

// limitListener accepts at most max connections at once. Past that, it
// closes the connection that has been idle (between keep-alive requests)
// the longest, as nginx reuses them, so that a new client is served
// rather than left waiting behind idle ones; with none idle, Accept waits
// for one to close, and the wait is logged (once a minute at most) so
// that an operator sees why new clients hang.
type limitListener struct {
	net.Listener
	slots     chan struct{}
	closed    chan struct{}
	closeOnce sync.Once
	log       *slog.Logger
	name      string
	lastWarn  atomic.Int64 // unix seconds

	mu   sync.Mutex
	idle map[*limitedConn]time.Time // since when each idle connection is
}

func limitConnections(ln net.Listener, max int, log *slog.Logger, name string) *limitListener {
	return &limitListener{Listener: ln, slots: make(chan struct{}, max), closed: make(chan struct{}), log: log, name: name,
		idle: map[*limitedConn]time.Time{}}
}

func (l *limitListener) Accept() (net.Conn, error) {
	select {
	case l.slots <- struct{}{}:
	default:
		if !l.closeIdlest() {
			l.warnFull()
		}
		select {
		case l.slots <- struct{}{}:
		case <-l.closed:
			return nil, net.ErrClosed
		}
	}
	c, err := l.Listener.Accept()
	if err != nil {
		<-l.slots
		return nil, err
	}
	lc := &limitedConn{Conn: c}
	lc.release = func() {
		l.mu.Lock()
		delete(l.idle, lc)
		l.mu.Unlock()
		<-l.slots
	}
	return lc, nil
}

// connState follows the server's connections (http.Server.ConnState).
func (l *limitListener) connState(c net.Conn, state http.ConnState) {
	lc, ok := c.(*limitedConn)
	if !ok {
		return
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if state == http.StateIdle {
		l.idle[lc] = time.Now()
	} else {
		delete(l.idle, lc)
	}
}

// closeIdlest closes the connection idle the longest, freeing its slot;
// false when none is idle.
func (l *limitListener) closeIdlest() bool {
	l.mu.Lock()
	var idlest *limitedConn
	var since time.Time
	for c, t := range l.idle {
		if idlest == nil || t.Before(since) {
			idlest, since = c, t
		}
	}
	delete(l.idle, idlest)
	l.mu.Unlock()
	if idlest == nil {
		return false
	}
	_ = idlest.Close()
	return true
}

func (l *limitListener) warnFull() {
	now := time.Now().Unix()
	last := l.lastWarn.Load()
	if now-last < 60 || !l.lastWarn.CompareAndSwap(last, now) {
		return
	}
	l.log.Warn("connection limit reached, and no connection is idle; new connections wait for one to close",
		"listener", l.name, "limit", cap(l.slots), "flag", "--max-connections")
}

// Close also ends an Accept waiting for a free slot.
func (l *limitListener) Close() error {
	l.closeOnce.Do(func() { close(l.closed) })
	return l.Listener.Close()
}

// limitedConn gives its slot back when closed, once.
type limitedConn struct {
	net.Conn
	once    sync.Once
	release func()
}

func (c *limitedConn) Close() error {
	err := c.Conn.Close()
	c.once.Do(c.release)
	return err
}
