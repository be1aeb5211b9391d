package main

import (
	"crypto/x509"
	"encoding/pem"
	"fmt"
	"net"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/fount-dev/fount/internal/wait"
)

// startPostgres runs Debian's PostgreSQL on loopback for the test, with
// TLS from ca, trusting the user "fount", and returns its port. As root
// (CI), the server runs as the postgres user, since PostgreSQL refuses
// root.
func startPostgres(t *testing.T, ca testCA) int {
	t.Helper()
	bins, _ := filepath.Glob("/usr/lib/postgresql/*/bin")
	sort.Strings(bins)
	if len(bins) == 0 {
		t.Fatal("PostgreSQL is not installed: `make test` installs it (Debian's postgresql)")
	}
	bin := bins[len(bins)-1]
	dir, err := os.MkdirTemp("", "fount-pg-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	var cred *syscall.Credential
	if os.Geteuid() == 0 {
		u, err := user.Lookup("postgres")
		if err != nil {
			t.Fatalf("running as root, PostgreSQL needs its postgres user: %v", err)
		}
		uid, _ := strconv.Atoi(u.Uid)
		gid, _ := strconv.Atoi(u.Gid)
		cred = &syscall.Credential{Uid: uint32(uid), Gid: uint32(gid)}
		if err := os.Chown(dir, uid, gid); err != nil {
			t.Fatal(err)
		}
	}
	run := func(name string, args ...string) *exec.Cmd {
		cmd := exec.Command(filepath.Join(bin, name), args...)
		cmd.SysProcAttr = &syscall.SysProcAttr{Credential: cred}
		cmd.Dir = dir
		return cmd
	}
	data := filepath.Join(dir, "data")
	if out, err := run("initdb", "-D", data, "-U", "fount", "--auth=trust", "-E", "UTF8", "--no-sync").CombinedOutput(); err != nil {
		t.Fatalf("initdb: %v\n%s", err, out)
	}
	cert, key := writeServerCert(t, ca, dir, cred)
	port := freePort(t)
	srv := run("postgres", "-D", data, "-p", strconv.Itoa(port), "-k", dir, "-c", "listen_addresses=127.0.0.1",
		"-c", "fsync=off", "-c", "ssl=on", "-c", "ssl_cert_file="+cert, "-c", "ssl_key_file="+key)
	logf, _ := os.Create(filepath.Join(dir, "log"))
	srv.Stdout, srv.Stderr = logf, logf
	if err := srv.Start(); err != nil {
		t.Fatalf("postgres: %v", err)
	}
	t.Cleanup(func() {
		srv.Process.Signal(syscall.SIGINT)
		srv.Wait()
		logf.Close()
	})
	ready := wait.Poll(time.Minute, func() bool {
		var c net.Conn
		if c, err = net.DialTimeout("tcp", fmt.Sprintf("127.0.0.1:%d", port), time.Second); err != nil {
			return false
		}
		c.Close()
		// Listening comes before accepting logins; psql would tell, but
		// the server's own line is enough.
		b, _ := os.ReadFile(filepath.Join(dir, "log"))
		return strings.Contains(string(b), "database system is ready to accept connections")
	})
	if !ready {
		b, _ := os.ReadFile(filepath.Join(dir, "log"))
		t.Fatalf("postgres did not start: %v\n%s", err, b)
	}
	return port
}

// writeServerCert writes ca's leaf certificate and key for a server,
// owned by cred (the key must be private to the server's user).
func writeServerCert(t *testing.T, ca testCA, dir string, cred *syscall.Credential) (certFile, keyFile string) {
	t.Helper()
	keyDER, err := x509.MarshalPKCS8PrivateKey(ca.leaf.PrivateKey)
	if err != nil {
		t.Fatal(err)
	}
	certFile, keyFile = filepath.Join(dir, "server.crt"), filepath.Join(dir, "server.key")
	os.WriteFile(certFile, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: ca.leaf.Certificate[0]}), 0o644)
	os.WriteFile(keyFile, pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: keyDER}), 0o600)
	if cred != nil {
		for _, f := range []string{certFile, keyFile} {
			if err := os.Chown(f, int(cred.Uid), int(cred.Gid)); err != nil {
				t.Fatal(err)
			}
		}
	}
	return certFile, keyFile
}
