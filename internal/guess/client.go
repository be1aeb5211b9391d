package guess

import (
	"fmt"
	"net"
	"net/http"
	"net/netip"
	"strings"
)

// Proxies are the addresses whose X-Forwarded-For is believed: the
// reverse proxies in front of fount. Without any, the header is ignored,
// since any client can send it.
type Proxies []netip.Prefix

// ParseProxies reads a comma-separated list of addresses and CIDR
// prefixes ("10.0.0.0/8, 192.0.2.7"); "" is none.
func ParseProxies(s string) (Proxies, error) {
	var out Proxies
	for item := range strings.SplitSeq(s, ",") {
		item = strings.TrimSpace(item)
		if item == "" {
			continue
		}
		if strings.Contains(item, "/") {
			p, err := netip.ParsePrefix(item)
			if err != nil {
				return nil, fmt.Errorf("%q is not an address or a CIDR prefix such as 10.0.0.0/8", item)
			}
			out = append(out, p.Masked())
			continue
		}
		ip, err := netip.ParseAddr(item)
		if err != nil {
			return nil, fmt.Errorf("%q is not an address or a CIDR prefix such as 10.0.0.0/8", item)
		}
		ip = ip.Unmap()
		out = append(out, netip.PrefixFrom(ip, ip.BitLen()))
	}
	return out, nil
}

func (p Proxies) trusts(ip netip.Addr) bool {
	ip = ip.Unmap()
	for _, prefix := range p {
		if prefix.Contains(ip) {
			return true
		}
	}
	return false
}

// ClientAddr is the address a request comes from, an IPv6 one by its
// /64 (what one host is usually given). When the peer is one of the
// proxies, it is the nearest address of X-Forwarded-For that is not a
// proxy: each proxy appends the address it was reached from, so the
// entries left of the last untrusted one are the client's to write.
func (p Proxies) ClientAddr(r *http.Request) string {
	host, _, err := net.SplitHostPort(r.RemoteAddr)
	if err != nil {
		host = r.RemoteAddr
	}
	ip, err := netip.ParseAddr(host)
	if err != nil {
		return host
	}
	if len(p) > 0 && p.trusts(ip) {
		ip = p.forwardedFor(r, ip)
	}
	return bucketOf(ip)
}

// forwardedFor walks X-Forwarded-For from its end while the hops are
// proxies; peer when the header holds no untrusted address. An entry
// that is not an address ends the walk at the hop that wrote it.
func (p Proxies) forwardedFor(r *http.Request, peer netip.Addr) netip.Addr {
	var hops []string
	for _, v := range r.Header.Values("X-Forwarded-For") {
		for h := range strings.SplitSeq(v, ",") {
			hops = append(hops, strings.TrimSpace(h))
		}
	}
	client := peer
	for i := len(hops) - 1; i >= 0; i-- {
		ip, err := netip.ParseAddr(hops[i])
		if err != nil {
			break
		}
		client = ip
		if !p.trusts(ip) {
			break
		}
	}
	return client
}

func bucketOf(ip netip.Addr) string {
	if ip.Is6() && !ip.Is4In6() {
		p, _ := ip.Prefix(64)
		return p.String()
	}
	return ip.Unmap().String()
}
