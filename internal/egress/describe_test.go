package egress

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"net"
	"net/url"
	"os"
	"strings"
	"syscall"
	"testing"
)

func TestDescribeHidesTheServersAddresses(t *testing.T) {
	t.Parallel()
	resolver := "10.20.30.40:53"
	wrap := func(err error) error { return &url.Error{Op: "Post", URL: "https://hooks.example.com/in", Err: err} }
	tests := []struct {
		err  error
		want string
	}{
		{&net.DNSError{Err: "no such host", Name: "nope.example", Server: resolver, IsNotFound: true}, "DNS: no such host nope.example"},
		{wrap(&net.OpError{Op: "dial", Net: "tcp", Err: &net.DNSError{Err: "server misbehaving", Name: "localhost.", Server: resolver}}), "DNS: the lookup of localhost. failed"},
		{wrap(&net.OpError{Op: "dial", Net: "tcp", Source: &net.TCPAddr{IP: net.IPv4(10, 1, 1, 1), Port: 40000}, Err: os.NewSyscallError("connect", syscall.ECONNREFUSED)}), "connection refused"},
		{wrap(context.DeadlineExceeded), "timed out"},
		{fmt.Errorf("%w: 127.0.0.1 is a private or special-purpose address", ErrDenied), "the egress policy refused"},
		{ErrTooBig, "over the size limit"},
		{wrap(tls.RecordHeaderError{Msg: "first record does not look like a TLS handshake"}), "does not speak TLS"},
		{errors.New("something on 10.20.30.40:53"), "the request failed"},
	}
	for _, tt := range tests {
		got := Describe(tt.err)
		if !strings.Contains(got, tt.want) || strings.Contains(got, "10.20.30.40") || strings.Contains(got, "10.1.1.1") {
			t.Errorf("Describe(%v) = %q, want %q and no server address", tt.err, got, tt.want)
		}
	}
}

// TestCodeIsNodes: each failure gets the code Node gives it.
func TestCodeIsNodes(t *testing.T) {
	t.Parallel()
	wrap := func(err error) error { return &url.Error{Op: "Get", URL: "https://api.example.com/", Err: err} }
	tests := []struct {
		err  error
		want string
	}{
		{wrap(&net.OpError{Op: "dial", Net: "tcp", Err: &net.DNSError{Err: "no such host", Name: "nope.example", IsNotFound: true}}), "ENOTFOUND"},
		{&net.DNSError{Err: "server misbehaving", Name: "x.example", IsTemporary: true}, "EAI_AGAIN"},
		{wrap(&net.OpError{Op: "dial", Net: "tcp", Err: os.NewSyscallError("connect", syscall.ECONNREFUSED)}), "ECONNREFUSED"},
		{wrap(&net.OpError{Op: "read", Net: "tcp", Err: os.NewSyscallError("read", syscall.ECONNRESET)}), "ECONNRESET"},
		{wrap(context.DeadlineExceeded), "ETIMEDOUT"},
		{wrap(tls.RecordHeaderError{Msg: "first record does not look like a TLS handshake"}), "EPROTO"},
		{fmt.Errorf("%w: a private address", ErrDenied), "EACCES"},
		{errors.New("anything else"), "EIO"},
		{nil, ""},
	}
	for _, tt := range tests {
		if got := Code(tt.err); got != tt.want {
			t.Errorf("Code(%v) = %q, want %q", tt.err, got, tt.want)
		}
	}
}
