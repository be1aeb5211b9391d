package main

import (
	"log/slog"
	"net"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"
)

// httpLimits bound what a client can hold of the server: how long a
// request may take to send its headers and its body and to read its
// answer, how long a keep-alive connection may sit idle, and how many
// connections may be open at once.
type httpLimits struct {
	readHeader time.Duration // request line and headers
	request    time.Duration // an API request's body and answer (event streams move their own)
	body       time.Duration // an endpoint request's body (/h/)
	idle       time.Duration // a keep-alive connection between requests
	maxConns   int           // open connections per listener
}

// defaultLimits are the limits of a server with maxConns open connections
// at most (0: as many as the process's file limit leaves room for).
func defaultLimits(maxConns int) httpLimits {
	if maxConns <= 0 {
		maxConns = connectionsForFileLimit()
	}
	return httpLimits{readHeader: 10 * time.Second, request: time.Minute, body: 30 * time.Second, idle: time.Minute, maxConns: maxConns}
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

// newHTTPServer is an http.Server with the limits' header and idle
// timeouts. Body and answer deadlines are set per request (withDeadlines,
// and the ingress), because an event stream lives as long as its client.
func newHTTPServer(h http.Handler, lim httpLimits) *http.Server {
	return &http.Server{Handler: h, ReadHeaderTimeout: lim.readHeader, IdleTimeout: lim.idle, MaxHeaderBytes: 64 << 10}
}

// withDeadlines gives each API request lim.request to send its body and to
// read its answer; an event stream (…/sse) sets its own write deadline,
// moved at every write.
func withDeadlines(next http.Handler, d time.Duration) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		rc := http.NewResponseController(w)
		_ = rc.SetReadDeadline(time.Now().Add(d))
		if !strings.HasSuffix(r.URL.Path, "/sse") {
			_ = rc.SetWriteDeadline(time.Now().Add(d))
		}
		next.ServeHTTP(w, r)
	})
}

// limitListener accepts at most max connections at once; past that,
// Accept waits for one to close, and the wait is logged (once a minute at
// most) so that an operator sees why new clients hang.
type limitListener struct {
	net.Listener
	slots     chan struct{}
	closed    chan struct{}
	closeOnce sync.Once
	log       *slog.Logger
	name      string
	lastWarn  atomic.Int64 // unix seconds
}

func limitConnections(ln net.Listener, max int, log *slog.Logger, name string) *limitListener {
	return &limitListener{Listener: ln, slots: make(chan struct{}, max), closed: make(chan struct{}), log: log, name: name}
}

func (l *limitListener) Accept() (net.Conn, error) {
	select {
	case l.slots <- struct{}{}:
	default:
		l.warnFull()
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
	return &limitedConn{Conn: c, release: func() { <-l.slots }}, nil
}

func (l *limitListener) warnFull() {
	now := time.Now().Unix()
	last := l.lastWarn.Load()
	if now-last < 60 || !l.lastWarn.CompareAndSwap(last, now) {
		return
	}
	l.log.Warn("connection limit reached; new connections wait for one to close",
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
