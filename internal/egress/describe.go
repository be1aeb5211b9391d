package egress

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"net"
	"syscall"
)

// Describe says why an outbound request failed, in words safe to show to
// the tenant who made it: what failed (the policy, DNS, the connection, a
// timeout, TLS), never the server's own addresses. Go's errors name the
// server's DNS resolver ("lookup x on 10.0.0.2:53") and local ports, which
// are the operator's, not the tenant's.
func Describe(err error) string {
	var (
		dnsErr   *net.DNSError
		netErr   net.Error
		certErr  *tls.CertificateVerificationError
		unknown  x509.UnknownAuthorityError
		hostname x509.HostnameError
		invalid  x509.CertificateInvalidError
		record   tls.RecordHeaderError
	)
	switch {
	case err == nil:
		return ""
	case errors.Is(err, ErrDenied):
		return "the egress policy refused the destination: it is a private, loopback or special-purpose address, or not http(s)"
	case errors.Is(err, ErrTooBig):
		return "the response was over the size limit"
	case errors.As(err, &dnsErr):
		if dnsErr.IsNotFound {
			return "DNS: no such host " + dnsErr.Name
		}
		if dnsErr.IsTimeout {
			return "DNS: the lookup of " + dnsErr.Name + " timed out"
		}
		return "DNS: the lookup of " + dnsErr.Name + " failed"
	case errors.Is(err, context.DeadlineExceeded), errors.As(err, &netErr) && netErr.Timeout():
		return "timed out"
	case errors.Is(err, context.Canceled):
		return "cancelled"
	case errors.Is(err, syscall.ECONNREFUSED):
		return "connection refused"
	case errors.Is(err, syscall.ECONNRESET):
		return "connection reset"
	case errors.Is(err, syscall.EHOSTUNREACH), errors.Is(err, syscall.ENETUNREACH):
		return "host unreachable"
	case errors.As(err, &certErr), errors.As(err, &unknown), errors.As(err, &hostname), errors.As(err, &invalid):
		return "TLS: the server's certificate was not accepted"
	case errors.As(err, &record):
		return "TLS: the server does not speak TLS"
	}
	return "the request failed"
}

// Code is the error code Node gives the same failure (a Node client's
// err.code, or the cause of its fetch's TypeError), so that components
// and SDKs that branch on it work: ENOTFOUND, EAI_AGAIN, ETIMEDOUT,
// ECONNREFUSED, ECONNRESET, EHOSTUNREACH, the TLS codes, and EIO for what
// has none.
func Code(err error) string {
	var (
		dnsErr   *net.DNSError
		netErr   net.Error
		unknown  x509.UnknownAuthorityError
		hostname x509.HostnameError
		invalid  x509.CertificateInvalidError
		record   tls.RecordHeaderError
	)
	switch {
	case err == nil:
		return ""
	case errors.Is(err, ErrDenied):
		return "EACCES"
	case errors.Is(err, ErrTooBig):
		return "ERR_FR_MAX_BODY_LENGTH_EXCEEDED"
	case errors.As(err, &dnsErr):
		if dnsErr.IsNotFound {
			return "ENOTFOUND"
		}
		return "EAI_AGAIN"
	case errors.Is(err, context.DeadlineExceeded), errors.As(err, &netErr) && netErr.Timeout():
		return "ETIMEDOUT"
	case errors.Is(err, syscall.ECONNREFUSED):
		return "ECONNREFUSED"
	case errors.Is(err, syscall.ECONNRESET):
		return "ECONNRESET"
	case errors.Is(err, syscall.EHOSTUNREACH):
		return "EHOSTUNREACH"
	case errors.Is(err, syscall.ENETUNREACH):
		return "ENETUNREACH"
	case errors.As(err, &hostname):
		return "ERR_TLS_CERT_ALTNAME_INVALID"
	case errors.As(err, &invalid) && invalid.Reason == x509.Expired:
		return "CERT_HAS_EXPIRED"
	case errors.As(err, &unknown), errors.As(err, &invalid):
		return "UNABLE_TO_VERIFY_LEAF_SIGNATURE"
	case errors.As(err, &record):
		return "EPROTO"
	}
	return "EIO"
}
