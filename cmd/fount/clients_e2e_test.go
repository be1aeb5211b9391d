package main

import (
	"bufio"
	"crypto/tls"
	"encoding/base64"
	"fmt"
	"net"
	"strings"
	"sync"
	"testing"

	"github.com/fount-dev/fount/internal/server"
	"github.com/fount-dev/fount/internal/wait"

	"github.com/fount-dev/fount/internal/bundle/npmtest"
)

// clientFixtures holds components that drive real servers through real
// npm clients, each with the event it emits under Node 20
// (<name>.want.json).
const clientFixtures = "testdata/clients"

// checkClientAsInNode deploys testdata/clients/<name>.mjs, with its npm
// imports resolved from the test corpus, on a server that may reach
// loopback, runs it once on event and compares what it emits with
// <name>.want.json and, with node installed, with what Node 20 emits
// with the same packages.
func checkClientAsInNode(t *testing.T, name string, event map[string]any) {
	t.Helper()
	reg := npmtest.New(t)
	publishCorpus(t, reg)
	s := startServer(t, server.Config{BootstrapKey: ownerKey, NpmRegistry: reg.URL(), AllowPrivateEgress: true})
	fixtureAsInNode(t, s, clientFixtures, name, event, true)
}

// TestNpmPostgresClient: node-postgres (pg), deployed unchanged from the
// npm registry, talks to a real PostgreSQL over TLS as it does in Node 20.
func TestNpmPostgresClient(t *testing.T) {
	t.Parallel()
	ca := newTestCA(t)
	port := startPostgres(t, ca)
	checkClientAsInNode(t, "postgres", map[string]any{"port": port, "ca": ca.pem})
}

// emittedOrFailed waits for the source's first event, or for its first
// error, and fails the test with the error.
func (s *testServer) emittedOrFailed(id string) any {
	s.t.Helper()
	ev, failed := s.firstOutcome(id)
	if failed {
		s.t.Fatalf("the run failed: %v", ev)
	}
	return ev
}

// firstOutcome waits for the source's first event or, failed set, its
// first $errors event, and fails the test when neither comes.
func (s *testServer) firstOutcome(id string) (event any, failed bool) {
	s.t.Helper()
	type outcome struct {
		event  any
		failed bool
	}
	o := wait.For(s.t, "source "+id+" to emit or fail", eventsDeadline, func() (outcome, bool) {
		for _, channel := range []string{"", "$errors"} {
			_, body := s.do("GET", "/v1/sources/"+id+"/event_summaries?limit=1&expand=event&event_name="+channel, nil)
			if items, _ := body["data"].([]any); len(items) > 0 {
				return outcome{items[0].(map[string]any)["event"], channel != ""}, true
			}
		}
		return outcome{}, false
	})
	return o.event, o.failed
}

// smtpServer is an SMTP server on loopback: STARTTLS with ca's
// certificate, AUTH PLAIN for ada/secret, and the messages it took.
type smtpServer struct {
	mu       sync.Mutex
	messages []string
}

func startSMTP(t *testing.T, ca testCA) (*smtpServer, int) {
	t.Helper()
	srv := &smtpServer{}
	port := lineServer(t, func(c net.Conn) { srv.serve(c, ca) })
	return srv, port
}

func (srv *smtpServer) serve(c net.Conn, ca testCA) {
	var conn net.Conn = c
	r := bufio.NewReader(conn)
	say := func(s string) { fmt.Fprintf(conn, "%s\r\n", s) }
	say("220 localhost ESMTP fount-test")
	secure := false
	for {
		line, err := r.ReadString('\n')
		if err != nil {
			return
		}
		cmd := strings.TrimRight(line, "\r\n")
		verb := strings.ToUpper(strings.SplitN(cmd, " ", 2)[0])
		switch verb {
		case "EHLO", "HELO":
			if secure {
				say("250-localhost\r\n250-AUTH PLAIN\r\n250 8BITMIME")
			} else {
				say("250-localhost\r\n250-STARTTLS\r\n250 8BITMIME")
			}
		case "STARTTLS":
			say("220 ready")
			tc := tls.Server(c, &tls.Config{Certificates: []tls.Certificate{ca.leaf}})
			if tc.Handshake() != nil {
				return
			}
			conn, r, secure = tc, bufio.NewReader(tc), true
		case "AUTH":
			parts := strings.Fields(cmd)
			if len(parts) == 3 && parts[1] == "PLAIN" && parts[2] == base64.StdEncoding.EncodeToString([]byte("\x00ada\x00secret")) {
				say("235 2.7.0 Authentication successful")
			} else {
				say("535 5.7.8 Authentication credentials invalid")
			}
		case "MAIL", "RCPT", "RSET", "NOOP":
			say("250 2.0.0 OK")
		case "DATA":
			say("354 go ahead")
			var msg strings.Builder
			for {
				l, err := r.ReadString('\n')
				if err != nil {
					return
				}
				if l == ".\r\n" {
					break
				}
				msg.WriteString(l)
			}
			srv.mu.Lock()
			srv.messages = append(srv.messages, msg.String())
			srv.mu.Unlock()
			say("250 2.0.0 OK queued as 1")
		case "QUIT":
			say("221 2.0.0 bye")
			return
		default:
			say("502 5.5.2 unknown command")
		}
	}
}

// TestNpmSMTPClient: nodemailer, deployed unchanged from the npm
// registry, sends mail through an SMTP server with STARTTLS and AUTH as
// it does in Node 20, and reports a refused login as Node does.
func TestNpmSMTPClient(t *testing.T) {
	t.Parallel()
	ca := newTestCA(t)
	srv, port := startSMTP(t, ca)
	checkClientAsInNode(t, "smtp", map[string]any{"port": port, "ca": ca.pem})
	srv.mu.Lock()
	defer srv.mu.Unlock()
	if len(srv.messages) == 0 || !strings.Contains(srv.messages[0], "Subject: Hello") || !strings.Contains(srv.messages[0], "Hi there") {
		t.Errorf("the server took %q", srv.messages)
	}
}

// TestNpmMySQLClient: mysql2, deployed unchanged from the npm registry,
// talks to a real MariaDB as it does in Node 20.
func TestNpmMySQLClient(t *testing.T) {
	t.Parallel()
	port := startMariaDB(t)
	checkClientAsInNode(t, "mysql", map[string]any{"port": port})
}

// TestNpmSFTPClient: ssh2-sftp-client (over ssh2), deployed unchanged
// from the npm registry, logs in to a real OpenSSH server with a key and
// moves files over SFTP as it does in Node 20.
func TestNpmSFTPClient(t *testing.T) {
	t.Parallel()
	sshd := startSSHD(t)
	checkClientAsInNode(t, "sftp", map[string]any{"port": sshd.port, "username": sshd.username, "key": sshd.key,
		"fingerprint": sshd.fingerprint, "dir": sshd.dir})
}
