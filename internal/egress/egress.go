// Package egress is fount's one outbound-network policy. Every request
// fount makes on behalf of a tenant goes through a Policy: a component's
// fetch, a webhook delivery, a component_url download (and npm resolution
// once it exists). It allows http and https only, refuses loopback,
// private, link-local and other special-purpose addresses on the address
// actually dialled and on every redirect (so DNS cannot rebind around it),
// ignores proxy settings that would hide the destination, and caps time
// and response size.
package egress

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"strings"
	"syscall"
	"time"

	"github.com/fount-dev/fount/abi"
)

var (
	// ErrDenied is returned when the policy refuses a destination.
	ErrDenied = errors.New("egress: denied")
	// ErrTooBig is returned when a response body is over the cap.
	ErrTooBig = errors.New("egress: response too big")
)

// Policy is the egress policy: http and https only, destinations in
// loopback, private, link-local, shared and other special ranges refused
// unless AllowPrivate, checked on the address actually dialled (so DNS
// cannot rebind around it), with a timeout and a response size cap. It is
// safe for concurrent use.
type Policy struct {
	AllowPrivate bool
	Timeout      time.Duration // default 10 s; the invocation's deadline also applies
	MaxBody      int64         // default 1 MiB
	client       *http.Client
}

// New returns a ready Policy. A timeout or maxBody <= 0 takes the default.
func New(allowPrivate bool, timeout time.Duration, maxBody int64) *Policy {
	if timeout <= 0 {
		timeout = 10 * time.Second
	}
	if maxBody <= 0 {
		maxBody = 1 << 20
	}
	p := &Policy{AllowPrivate: allowPrivate, Timeout: timeout, MaxBody: maxBody}
	dialer := &net.Dialer{Timeout: timeout, Control: p.control}
	p.client = &http.Client{
		Timeout: timeout,
		Transport: &http.Transport{
			DialContext:         dialer.DialContext,
			Proxy:               nil, // a proxy would hide the real destination from the check
			TLSHandshakeTimeout: timeout,
			MaxIdleConns:        16,
		},
		CheckRedirect: func(req *http.Request, via []*http.Request) error {
			if len(via) > 5 { // via holds the original request and each redirect so far
				return errors.New("stopped after 5 redirects")
			}
			return checkScheme(req.URL)
		},
	}
	return p
}

// AllowedAddr reports whether the policy lets a connection reach ip.
func (p *Policy) AllowedAddr(ip netip.Addr) bool {
	if p.AllowPrivate {
		return true
	}
	ip = ip.Unmap()
	if ip.IsLoopback() || ip.IsPrivate() || ip.IsLinkLocalUnicast() || ip.IsLinkLocalMulticast() ||
		ip.IsMulticast() || ip.IsUnspecified() || ip.IsInterfaceLocalMulticast() {
		return false
	}
	for _, p := range specialRanges {
		if p.Contains(ip) {
			return false
		}
	}
	return true
}

// specialRanges are non-public ranges netip has no predicate for.
var specialRanges = []netip.Prefix{
	netip.MustParsePrefix("100.64.0.0/10"),  // shared address space (CGNAT)
	netip.MustParsePrefix("192.0.0.0/24"),   // IETF protocol assignments
	netip.MustParsePrefix("198.18.0.0/15"),  // benchmarking
	netip.MustParsePrefix("240.0.0.0/4"),    // reserved
	netip.MustParsePrefix("0.0.0.0/8"),      // "this network"
	netip.MustParsePrefix("64:ff9b::/96"),   // NAT64, can reach IPv4 private space
	netip.MustParsePrefix("64:ff9b:1::/48"), // local-use NAT64 (RFC 8215)
	netip.MustParsePrefix("::/96"),          // IPv4-compatible (deprecated)
	netip.MustParsePrefix("2002::/16"),      // 6to4, embeds an IPv4 address
	netip.MustParsePrefix("2001::/32"),      // Teredo, embeds an IPv4 address
	netip.MustParsePrefix("fec0::/10"),      // site-local (deprecated)
}

func (p *Policy) control(_, address string, _ syscall.RawConn) error {
	ap, err := netip.ParseAddrPort(address)
	if err != nil {
		return fmt.Errorf("%w: cannot parse %q", ErrDenied, address)
	}
	if !p.AllowedAddr(ap.Addr()) {
		return fmt.Errorf("%w: %s is a private or special-purpose address", ErrDenied, ap.Addr())
	}
	return nil
}

func checkScheme(u *url.URL) error {
	if u.Scheme != "http" && u.Scheme != "https" {
		return fmt.Errorf("%w: scheme %q is not http or https", ErrDenied, u.Scheme)
	}
	if u.Hostname() == "" {
		return fmt.Errorf("%w: url has no host", ErrDenied)
	}
	return nil
}

// Fetch performs req under the policy.
func (p *Policy) Fetch(ctx context.Context, req abi.FetchRequest) (abi.FetchResponse, error) {
	u, err := url.Parse(req.URL)
	if err != nil {
		return abi.FetchResponse{}, fmt.Errorf("%w: %v", ErrDenied, err)
	}
	if err := checkScheme(u); err != nil {
		return abi.FetchResponse{}, err
	}
	hreq, err := http.NewRequestWithContext(ctx, req.Method, u.String(), strings.NewReader(req.Body))
	if err != nil {
		return abi.FetchResponse{}, err
	}
	for k, v := range req.Headers {
		if strings.EqualFold(k, "Accept-Encoding") {
			// The transport asks for gzip itself and hands over the body
			// decompressed, without Content-Encoding; a client's own
			// Accept-Encoding would make it hand over the compressed
			// bytes, which the guest's text body cannot carry.
			continue
		}
		hreq.Header.Set(k, v)
	}
	resp, err := p.client.Do(hreq)
	if err != nil {
		if errors.Is(err, ErrDenied) {
			return abi.FetchResponse{}, ErrDenied
		}
		return abi.FetchResponse{}, err
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, p.MaxBody+1))
	if err != nil {
		return abi.FetchResponse{}, err
	}
	if int64(len(body)) > p.MaxBody {
		return abi.FetchResponse{}, ErrTooBig
	}
	headers := make(map[string]string, len(resp.Header))
	for k := range resp.Header {
		headers[strings.ToLower(k)] = resp.Header.Get(k)
	}
	return abi.FetchResponse{Status: resp.StatusCode, Headers: headers, Body: string(body)}, nil
}
