package main

import (
	"fmt"
	"net"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/fount-dev/fount/internal/wait"
)

// sshServer is Debian's OpenSSH server running for a test on loopback:
// its port, the fingerprint of its host key (as ssh-keygen -l prints
// it), a user it lets in with key (OpenSSH's private key format), and a
// directory of its own for the test's files.
type sshServer struct {
	port        int
	fingerprint string
	username    string
	key         string
	dir         string
}

// startSSHD runs sshd on loopback with a new Ed25519 host key, letting in
// the user running the test with a new client key and serving SFTP.
func startSSHD(t *testing.T) sshServer {
	t.Helper()
	const sshd = "/usr/sbin/sshd" // sshd re-executes itself, so it needs its absolute path
	if _, err := os.Stat(sshd); err != nil {
		t.Fatal("OpenSSH's server is not installed: `make test` installs it (Debian's openssh-server)")
	}
	dir, err := os.MkdirTemp("", "fount-sshd-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	keygen := func(name string) {
		if out, err := exec.Command("ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-C", "", "-f", filepath.Join(dir, name)).CombinedOutput(); err != nil {
			t.Fatalf("ssh-keygen: %v\n%s", err, out)
		}
	}
	keygen("host")
	keygen("client")
	clientPub, err := os.ReadFile(filepath.Join(dir, "client.pub"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "authorized_keys"), clientPub, 0o600); err != nil {
		t.Fatal(err)
	}
	fp, err := exec.Command("ssh-keygen", "-l", "-f", filepath.Join(dir, "host.pub")).Output()
	if err != nil {
		t.Fatalf("ssh-keygen -l: %v", err)
	}
	key, err := os.ReadFile(filepath.Join(dir, "client"))
	if err != nil {
		t.Fatal(err)
	}
	me, err := user.Current()
	if err != nil {
		t.Fatal(err)
	}
	files := filepath.Join(dir, "files")
	if err := os.Mkdir(files, 0o700); err != nil {
		t.Fatal(err)
	}
	// As root, sshd separates privileges into /run/sshd, which Debian's
	// package makes only when its service starts.
	if os.Geteuid() == 0 {
		if err := os.MkdirAll("/run/sshd", 0o755); err != nil {
			t.Fatal(err)
		}
	}
	port := freePort(t)
	config := strings.Join([]string{
		fmt.Sprintf("ListenAddress 127.0.0.1:%d", port),
		"HostKey " + filepath.Join(dir, "host"),
		"AuthorizedKeysFile " + filepath.Join(dir, "authorized_keys"),
		"PidFile none",
		"StrictModes no",
		"UsePAM no",
		"PasswordAuthentication no",
		"KbdInteractiveAuthentication no",
		"PermitRootLogin prohibit-password",
		"Subsystem sftp internal-sftp",
	}, "\n") + "\n"
	if err := os.WriteFile(filepath.Join(dir, "sshd_config"), []byte(config), 0o600); err != nil {
		t.Fatal(err)
	}
	srv := exec.Command(sshd, "-D", "-e", "-f", filepath.Join(dir, "sshd_config"))
	logf, err := os.Create(filepath.Join(dir, "log"))
	if err != nil {
		t.Fatal(err)
	}
	srv.Stdout, srv.Stderr = logf, logf
	if err := srv.Start(); err != nil {
		t.Fatalf("sshd: %v", err)
	}
	t.Cleanup(func() {
		srv.Process.Signal(syscall.SIGTERM)
		srv.Wait()
		logf.Close()
		if t.Failed() {
			b, _ := os.ReadFile(filepath.Join(dir, "log"))
			t.Logf("sshd's log:\n%s", b)
		}
	})
	awaitServer(t, "sshd", "tcp", "127.0.0.1:"+strconv.Itoa(port), filepath.Join(dir, "log"))
	return sshServer{port: port, fingerprint: strings.Fields(string(fp))[1], username: me.Username, key: string(key), dir: files}
}

// awaitServer waits, a minute at most, until a server started for a
// test accepts connections at address, and fails the test with the
// server's log if it does not.
func awaitServer(t *testing.T, server, network, address, logFile string) {
	t.Helper()
	var err error
	if wait.Poll(time.Minute, func() bool {
		var c net.Conn
		if c, err = net.DialTimeout(network, address, time.Second); err == nil {
			c.Close()
		}
		return err == nil
	}) {
		return
	}
	b, _ := os.ReadFile(logFile)
	t.Fatalf("%s did not start: %v\n%s", server, err, b)
}
