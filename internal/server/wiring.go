package server

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"strconv"
	"time"

	"github.com/fount-dev/fount/abi"
	"github.com/fount-dev/fount/internal/egress"
	"github.com/fount-dev/fount/internal/host"
	"github.com/fount-dev/fount/internal/ids"
	"github.com/fount-dev/fount/internal/metrics"
	"github.com/fount-dev/fount/internal/model"
	"github.com/fount-dev/fount/internal/registry"
)

// codeFetcher fetches component_url through the egress policy.
type codeFetcher struct{ egress *egress.Policy }

func (f codeFetcher) FetchCode(ctx context.Context, url string) (string, error) {
	res, err := f.egress.Fetch(ctx, abi.FetchRequest{URL: url, Method: http.MethodGet})
	if err != nil {
		return "", errors.New(egress.Describe(err)) // the tenant sees it: no server addresses
	}
	if res.Status < 200 || res.Status > 299 {
		return "", fmt.Errorf("HTTP %d", res.Status)
	}
	return res.Body, nil
}

// loadRegistry introspects the published components compiled into the
// binary. Their ids are derived from key and version, so they are stable
// across restarts; created_at is the time this process loaded them.
func loadRegistry(ctx context.Context, sandbox *host.Host) (map[string]model.Component, error) {
	entries, err := registry.Entries()
	if err != nil {
		return nil, err
	}
	now := time.Now().Unix()
	out := map[string]model.Component{}
	for _, e := range entries {
		m, err := sandbox.Introspect(ctx, e.Code, e.File, nil)
		if err != nil {
			return nil, fmt.Errorf("registry component %s: %w", e.File, err)
		}
		id := sha256.Sum256([]byte(m.Key + "@" + m.Version))
		code := sha256.Sum256([]byte(e.Code))
		out[m.Key] = model.Component{
			ID: string(ids.Component) + hex.EncodeToString(id[:12]), OwnerID: "registry", Key: m.Key, Name: m.Name, Version: m.Version,
			Code: e.Code, CodeHash: hex.EncodeToString(code[:]), Metadata: *m, CreatedAt: now, UpdatedAt: now,
		}
	}
	return out, nil
}

// loggedEgress logs each outbound request at debug level: the method,
// the destination without its query (which may carry a token), the status
// or what failed, and how long it took. Headers and bodies are never
// logged.
type loggedEgress struct {
	policy  *egress.Policy
	log     *slog.Logger
	metrics *metrics.Metrics
}

func (l loggedEgress) Fetch(ctx context.Context, req abi.FetchRequest) (abi.FetchResponse, error) {
	start := time.Now()
	res, err := l.policy.Fetch(ctx, req)
	if errors.Is(err, egress.ErrDenied) {
		host := req.URL
		if u, perr := url.Parse(req.URL); perr == nil {
			host = u.Host
		}
		l.log.WarnContext(ctx, "egress denied", "method", req.Method, "host", host)
		l.metrics.EgressDenied()
	}
	if l.log.Enabled(ctx, slog.LevelDebug) {
		dest := req.URL
		if u, perr := url.Parse(req.URL); perr == nil {
			dest = u.Scheme + "://" + u.Host + u.Path
		}
		attrs := []any{"method", req.Method, "url", dest, "duration", time.Since(start)}
		if err != nil {
			attrs = append(attrs, "error", egress.Describe(err))
		} else {
			attrs = append(attrs, "status", res.Status)
		}
		l.log.DebugContext(ctx, "egress", attrs...)
	}
	return res, err
}

// Dial opens a component's socket under the policy, logged and metered as
// its fetches are: a denial is a warning, and bytes are counted.
func (l loggedEgress) Dial(ctx context.Context, host string, port int) (net.Conn, error) {
	start := time.Now()
	conn, err := l.policy.Dial(ctx, host, port)
	switch {
	case errors.Is(err, egress.ErrDenied):
		l.log.WarnContext(ctx, "egress denied", "socket", net.JoinHostPort(host, strconv.Itoa(port)))
		l.metrics.EgressDenied()
		l.metrics.SocketOpened("denied")
	case err != nil:
		l.metrics.SocketOpened("failed")
	default:
		l.metrics.SocketOpened("connected")
	}
	if l.log.Enabled(ctx, slog.LevelDebug) {
		attrs := []any{"socket", net.JoinHostPort(host, strconv.Itoa(port)), "duration", time.Since(start)}
		if err != nil {
			attrs = append(attrs, "error", egress.Describe(err))
		}
		l.log.DebugContext(ctx, "egress", attrs...)
	}
	if err != nil {
		return nil, err
	}
	return meteredConn{conn, l.metrics}, nil
}

// Lookup answers a component's dns.lookup under the policy.
func (l loggedEgress) Lookup(ctx context.Context, host string) ([]netip.Addr, error) {
	return l.policy.Lookup(ctx, host)
}

// Resolve answers a component's dns.resolve* under the policy.
func (l loggedEgress) Resolve(ctx context.Context, host, rrtype string) (any, error) {
	return l.policy.Resolve(ctx, host, rrtype)
}

// meteredConn counts the bytes of a component's socket.
type meteredConn struct {
	net.Conn
	metrics *metrics.Metrics
}

func (c meteredConn) Read(b []byte) (int, error) {
	n, err := c.Conn.Read(b)
	c.metrics.SocketBytes("received", n)
	return n, err
}

func (c meteredConn) Write(b []byte) (int, error) {
	n, err := c.Conn.Write(b)
	c.metrics.SocketBytes("sent", n)
	return n, err
}

// CloseWrite half-closes the socket, as the TCP connection under it can.
func (c meteredConn) CloseWrite() error {
	if cw, ok := c.Conn.(interface{ CloseWrite() error }); ok {
		return cw.CloseWrite()
	}
	return nil
}

// checkDestination says why the policy would refuse raw's host: a literal
// address it refuses, or a name all of whose addresses it refuses. A name
// that does not resolve now is let through: it may later, and each
// delivery is checked again where it dials.
func checkDestination(ctx context.Context, policy *egress.Policy, raw string) error {
	u, err := url.Parse(raw)
	if err != nil {
		return err
	}
	host := u.Hostname()
	if ip, err := netip.ParseAddr(host); err == nil {
		if !policy.AllowedAddr(ip) {
			return fmt.Errorf("%s is a private, loopback or special-purpose address", ip)
		}
		return nil
	}
	ctx, cancel := context.WithTimeout(ctx, 2*time.Second)
	defer cancel()
	addrs, err := net.DefaultResolver.LookupNetIP(ctx, "ip", host)
	if err != nil || len(addrs) == 0 {
		return nil
	}
	for _, a := range addrs {
		if policy.AllowedAddr(a) {
			return nil
		}
	}
	return fmt.Errorf("%s resolves only to private, loopback or special-purpose addresses", host)
}
