package main

import (
	"bufio"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"math/big"
	"net"
	"strings"
	"sync"
	"testing"
	"time"
)

// testCA is a certificate authority of the test's, and a certificate it
// signed for localhost and 127.0.0.1.
type testCA struct {
	pem  string
	leaf tls.Certificate
}

func newTestCA(t *testing.T) testCA {
	t.Helper()
	caKey, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	caTmpl := &x509.Certificate{SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "fount test CA"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(24 * time.Hour),
		IsCA: true, BasicConstraintsValid: true, KeyUsage: x509.KeyUsageCertSign}
	caDER, err := x509.CreateCertificate(rand.Reader, caTmpl, caTmpl, &caKey.PublicKey, caKey)
	if err != nil {
		t.Fatal(err)
	}
	caCert, _ := x509.ParseCertificate(caDER)
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(2), Subject: pkix.Name{CommonName: "localhost"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(24 * time.Hour),
		DNSNames: []string{"localhost"}, IPAddresses: []net.IP{net.IPv4(127, 0, 0, 1)},
		ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth}, KeyUsage: x509.KeyUsageDigitalSignature}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, caCert, &key.PublicKey, caKey)
	if err != nil {
		t.Fatal(err)
	}
	return testCA{
		pem:  string(pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: caDER})),
		leaf: tls.Certificate{Certificate: [][]byte{der}, PrivateKey: key},
	}
}

// lineServer listens on loopback and serves each connection with serve,
// until the test ends.
func lineServer(t *testing.T, serve func(net.Conn)) int {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	t.Cleanup(func() {
		ln.Close()
		wg.Wait()
	})
	wg.Add(1)
	go func() {
		defer wg.Done()
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			wg.Add(1)
			go func() {
				defer wg.Done()
				defer c.Close()
				c.SetDeadline(time.Now().Add(time.Minute))
				serve(c)
			}()
		}
	}()
	return ln.Addr().(*net.TCPAddr).Port
}

// shout answers each line upper-cased until the peer ends, then ends.
// A STARTTLS line is answered GO, and TLS with cert follows.
func shout(cert tls.Certificate) func(net.Conn) {
	return func(c net.Conn) {
		r := bufio.NewReader(c)
		var w net.Conn = c
		for {
			line, err := r.ReadString('\n')
			if err != nil {
				return
			}
			if line == "STARTTLS\n" {
				w.Write([]byte("GO\n"))
				tc := tls.Server(c, &tls.Config{Certificates: []tls.Certificate{cert}})
				if tc.Handshake() != nil {
					return
				}
				w, r = tc, bufio.NewReader(tc)
				continue
			}
			w.Write([]byte(strings.ToUpper(line)))
		}
	}
}

// TestNodeSockets: node:net, node:tls and node:dns behave as in Node 20
// against real servers on loopback: a TCP conversation with its events
// and byte counts, a refused connection's error, TLS verified against the
// component's CA, an unverified server refused (and accepted, unverified,
// when the component says so), STARTTLS on a plain connection, and
// lookups.
func TestNodeSockets(t *testing.T) {
	t.Parallel()
	ca := newTestCA(t)
	port := lineServer(t, shout(ca.leaf))
	tlsPort := lineServer(t, func(c net.Conn) {
		tc := tls.Server(c, &tls.Config{Certificates: []tls.Certificate{ca.leaf}})
		if tc.Handshake() == nil {
			shout(ca.leaf)(tc)
		}
	})
	fixtureAsInNode(t, startEngineServer(t), nodeFixtures, "sockets", map[string]any{"port": port, "tlsPort": tlsPort, "ca": ca.pem}, false)
}
