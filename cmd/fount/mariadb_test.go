package main

import (
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"strconv"
	"syscall"
	"testing"
)

// startMariaDB runs Debian's MariaDB on loopback for the test, with a
// user "fount" (password "secret") who may do anything, and returns its
// port. As root (CI), the server runs as the mysql user.
func startMariaDB(t *testing.T) int {
	t.Helper()
	install, err := exec.LookPath("mariadb-install-db")
	if err != nil {
		t.Fatal("MariaDB is not installed: `make test` installs it (Debian's mariadb-server)")
	}
	dir, err := os.MkdirTemp("", "fount-mariadb-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	runAs := []string{}
	if os.Geteuid() == 0 {
		u, err := user.Lookup("mysql")
		if err != nil {
			t.Fatalf("running as root, MariaDB needs its mysql user: %v", err)
		}
		uid, _ := strconv.Atoi(u.Uid)
		gid, _ := strconv.Atoi(u.Gid)
		if err := os.Chown(dir, uid, gid); err != nil {
			t.Fatal(err)
		}
		runAs = []string{"--user=mysql"}
	}
	data, sock := filepath.Join(dir, "data"), filepath.Join(dir, "sock")
	args := append([]string{"--no-defaults", "--datadir=" + data, "--auth-root-authentication-method=normal", "--skip-test-db"}, runAs...)
	if out, err := exec.Command(install, args...).CombinedOutput(); err != nil {
		t.Fatalf("mariadb-install-db: %v\n%s", err, out)
	}
	port := freePort(t)
	srv := exec.Command("/usr/sbin/mariadbd", append([]string{"--no-defaults", "--datadir=" + data, "--socket=" + sock,
		"--port=" + strconv.Itoa(port), "--bind-address=127.0.0.1", "--skip-log-bin", "--innodb-flush-log-at-trx-commit=0",
		"--log-error=" + filepath.Join(dir, "log")}, runAs...)...)
	if err := srv.Start(); err != nil {
		t.Fatalf("mariadbd: %v", err)
	}
	t.Cleanup(func() {
		srv.Process.Signal(syscall.SIGTERM)
		srv.Wait()
	})
	awaitServer(t, "mariadbd", "unix", sock, filepath.Join(dir, "log"))
	client, err := exec.LookPath("mariadb")
	if err != nil {
		t.Fatal(err)
	}
	setup := "CREATE USER 'fount'@'%' IDENTIFIED BY 'secret'; GRANT ALL ON *.* TO 'fount'@'%'; CREATE DATABASE shop;"
	if out, err := exec.Command(client, "--no-defaults", "--socket="+sock, "-u", "root", "-e", setup).CombinedOutput(); err != nil {
		t.Fatalf("mariadb: %v\n%s", err, out)
	}
	return port
}
