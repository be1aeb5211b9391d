package egress

import (
	"context"
	"fmt"
	"net"
	"net/netip"
	"strconv"
	"strings"
)

// Dial opens a TCP connection to host:port for a component's socket. As
// with Fetch, every address the name resolves to is checked where it is
// dialled, so DNS cannot rebind around the policy; the policy's timeout
// bounds the connecting, and ctx the rest.
func (p *Policy) Dial(ctx context.Context, host string, port int) (net.Conn, error) {
	d := net.Dialer{Timeout: p.Timeout, Control: p.control, KeepAlive: -1}
	return d.DialContext(ctx, "tcp", net.JoinHostPort(strings.Trim(host, "[]"), strconv.Itoa(port)))
}

// Lookup resolves host to the addresses the policy lets a socket reach,
// as dns.lookup answers. A name whose every address is refused is
// ErrDenied: answering with them would map the operator's network for
// the tenant.
func (p *Policy) Lookup(ctx context.Context, host string) ([]netip.Addr, error) {
	var addrs []netip.Addr
	if ip, err := netip.ParseAddr(strings.Trim(host, "[]")); err == nil {
		addrs = []netip.Addr{ip}
	} else {
		ctx, cancel := context.WithTimeout(ctx, p.Timeout)
		defer cancel()
		if addrs, err = net.DefaultResolver.LookupNetIP(ctx, "ip", host); err != nil {
			return nil, err
		}
	}
	var out []netip.Addr
	for _, a := range addrs {
		if p.AllowedAddr(a) {
			out = append(out, a.Unmap())
		}
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("%w: %s has no address a socket may reach", ErrDenied, host)
	}
	return out, nil
}

// MXRecord, SRVRecord: Node's shapes of dns.resolveMx and dns.resolveSrv.
type (
	MXRecord struct {
		Exchange string `json:"exchange"`
		Priority int    `json:"priority"`
	}
	SRVRecord struct {
		Name     string `json:"name"`
		Port     int    `json:"port"`
		Priority int    `json:"priority"`
		Weight   int    `json:"weight"`
	}
)

// Resolve asks DNS for host's records of type rrtype (A, AAAA, MX, TXT,
// SRV, CNAME, NS), shaped as Node's dns.resolve* answers. Addresses are
// filtered as Lookup's are.
func (p *Policy) Resolve(ctx context.Context, host, rrtype string) (any, error) {
	ctx, cancel := context.WithTimeout(ctx, p.Timeout)
	defer cancel()
	r := net.DefaultResolver
	switch rrtype {
	case "A", "AAAA":
		network := map[string]string{"A": "ip4", "AAAA": "ip6"}[rrtype]
		addrs, err := r.LookupNetIP(ctx, network, host)
		if err != nil {
			return nil, err
		}
		out := []string{}
		for _, a := range addrs {
			if p.AllowedAddr(a) {
				out = append(out, a.Unmap().String())
			}
		}
		if len(out) == 0 {
			return nil, fmt.Errorf("%w: %s has no address a socket may reach", ErrDenied, host)
		}
		return out, nil
	case "MX":
		mx, err := r.LookupMX(ctx, host)
		out := make([]MXRecord, 0, len(mx))
		for _, m := range mx {
			out = append(out, MXRecord{Exchange: strings.TrimSuffix(m.Host, "."), Priority: int(m.Pref)})
		}
		return out, err
	case "TXT":
		txt, err := r.LookupTXT(ctx, host)
		out := make([][]string, 0, len(txt))
		for _, t := range txt {
			out = append(out, []string{t})
		}
		return out, err
	case "SRV":
		_, srv, err := r.LookupSRV(ctx, "", "", host)
		out := make([]SRVRecord, 0, len(srv))
		for _, s := range srv {
			out = append(out, SRVRecord{Name: strings.TrimSuffix(s.Target, "."), Port: int(s.Port), Priority: int(s.Priority), Weight: int(s.Weight)})
		}
		return out, err
	case "CNAME":
		name, err := r.LookupCNAME(ctx, host)
		return []string{strings.TrimSuffix(name, ".")}, err
	case "NS":
		ns, err := r.LookupNS(ctx, host)
		out := make([]string, 0, len(ns))
		for _, n := range ns {
			out = append(out, strings.TrimSuffix(n.Host, "."))
		}
		return out, err
	}
	return nil, fmt.Errorf("dns record type %q is not supported", rrtype)
}
