package abi

import (
	"fmt"
	"slices"
)

// NetRequest is what the guest passes to FuncNet: one operation on the
// call's sockets, which the host opens under the egress policy and closes
// when the call ends. Data is base64.
//
//   - "connect" opens a TCP connection to Host:Port (with TLS when TLS is
//     set) and answers with its ID at once; whether it connected comes
//     later, as a "connect" (and "secure") or "error" event.
//   - "write" sends Data, blocking until the kernel has it.
//   - "end" closes the writing half; "close" closes the socket.
//   - "tls" starts TLS on a connected socket (STARTTLS, PostgreSQL's
//     SSLRequest); a "secure" or "error" event follows.
//   - "poll" waits up to Wait milliseconds for events and answers with
//     every event so far.
//   - "lookup" resolves Host to the addresses the policy lets a socket
//     reach (Family 4, 6 or 0 for both); "resolve" asks DNS for Host's
//     records of type RRType.
type NetRequest struct {
	Op     string      `json:"op"`
	ID     int         `json:"id,omitempty"`
	Host   string      `json:"host,omitempty"`
	Port   int         `json:"port,omitempty"`
	TLS    *TLSOptions `json:"tls,omitempty"`
	Data   []byte      `json:"data,omitempty"`
	Wait   int         `json:"wait,omitempty"`
	Family int         `json:"family,omitempty"`
	RRType string      `json:"rrtype,omitempty"`
}

// TLSOptions are the TLS settings of a connect or tls op, as Node's
// tls.connect takes them.
type TLSOptions struct {
	ServerName string `json:"servername,omitempty"`
	// CA replaces the system's roots with these PEM certificates.
	CA []string `json:"ca,omitempty"`
	// Insecure is Node's rejectUnauthorized: false. It weakens only the
	// component's own connection; the egress policy still applies.
	Insecure bool     `json:"insecure,omitempty"`
	ALPN     []string `json:"alpn,omitempty"`
}

// NetReply is the host's answer to a NetRequest: the new socket's ID,
// the events of a poll, a lookup's addresses or a resolve's records, or
// the error of the op itself.
type NetReply struct {
	ID        int            `json:"id,omitempty"`
	Events    []NetEvent     `json:"events,omitempty"`
	Addresses []NetAddress   `json:"addresses,omitempty"`
	Records   any            `json:"records,omitempty"`
	Error     *NetError      `json:"error,omitempty"`
	TLS       *TLSConnection `json:"tls,omitempty"`
}

// NetEvent is something that happened to a socket: "connect" (with the
// local and remote addresses), "secure" (with TLS), "data", "end" (the
// peer closed its writing half) or "error".
type NetEvent struct {
	ID     int            `json:"id"`
	Type   string         `json:"type"`
	Data   []byte         `json:"data,omitempty"`
	Local  *NetAddress    `json:"local,omitempty"`
	Remote *NetAddress    `json:"remote,omitempty"`
	TLS    *TLSConnection `json:"tls,omitempty"`
	Error  *NetError      `json:"error,omitempty"`
}

// NetAddress is an address as Node's socket.address() gives it.
type NetAddress struct {
	Address string `json:"address"`
	Family  int    `json:"family"`
	Port    int    `json:"port,omitempty"`
}

// TLSConnection describes an established TLS session.
type TLSConnection struct {
	Protocol   string `json:"protocol"` // TLSv1.2, TLSv1.3
	ALPN       string `json:"alpn,omitempty"`
	Authorized bool   `json:"authorized"`
	// AuthorizationError is why the peer's certificate was not
	// verified, when Insecure let the connection go on without it.
	AuthorizationError string `json:"authorization_error,omitempty"`
}

// NetError is a socket or DNS failure as Node reports it: its code
// (ECONNREFUSED, ENOTFOUND...), the host's words on why, which name no
// address of the server's, and the syscall that failed.
type NetError struct {
	Code     string `json:"code"`
	Message  string `json:"message"`
	Syscall  string `json:"syscall,omitempty"`
	Hostname string `json:"hostname,omitempty"`
}

// NetOps are the ops of FuncNet.
var NetOps = []string{"connect", "write", "end", "close", "tls", "poll", "lookup", "resolve"}

// DNSRecordTypes are the record types of a resolve op.
var DNSRecordTypes = []string{"A", "AAAA", "MX", "TXT", "SRV", "CNAME", "NS"}

// Limits of FuncNet, per call.
const (
	MaxSocketsOpen  = 16       // sockets open at once
	MaxSocketDials  = 100      // connect ops of one call
	MaxSocketBytes  = 64 << 20 // bytes written and read by all of a call's sockets
	MaxSocketChunk  = 64 << 10 // bytes of one data event
	MaxHostnameSize = 253      // a DNS name
)

// DecodeNetRequest decodes and validates a NetRequest.
func DecodeNetRequest(b []byte) (NetRequest, error) {
	var r NetRequest
	if err := decodeStrict(b, &r); err != nil {
		return r, err
	}
	if !slices.Contains(NetOps, r.Op) {
		return r, fmt.Errorf("%w: net op %q is not one of %v", ErrDecode, r.Op, NetOps)
	}
	switch r.Op {
	case "connect", "lookup", "resolve":
		if r.Host == "" || len(r.Host) > MaxHostnameSize {
			return r, fmt.Errorf("%w: net %s needs a host of 1 to %d bytes", ErrDecode, r.Op, MaxHostnameSize)
		}
	case "poll":
		if r.Wait < 0 {
			return r, fmt.Errorf("%w: net poll wait %d is negative", ErrDecode, r.Wait)
		}
	default:
		if r.ID <= 0 {
			return r, fmt.Errorf("%w: net %s needs a socket id", ErrDecode, r.Op)
		}
	}
	if r.Op == "connect" && (r.Port <= 0 || r.Port > 65535) {
		return r, fmt.Errorf("%w: net connect port %d is not 1 to 65535", ErrDecode, r.Port)
	}
	if r.Op == "resolve" && !slices.Contains(DNSRecordTypes, r.RRType) {
		return r, fmt.Errorf("%w: dns record type %q is not one of %v", ErrDecode, r.RRType, DNSRecordTypes)
	}
	if r.Family != 0 && r.Family != 4 && r.Family != 6 {
		return r, fmt.Errorf("%w: address family %d is not 4 or 6", ErrDecode, r.Family)
	}
	if r.TLS != nil && len(r.TLS.ServerName) > MaxHostnameSize {
		return r, fmt.Errorf("%w: tls servername is over %d bytes", ErrDecode, MaxHostnameSize)
	}
	return r, nil
}
