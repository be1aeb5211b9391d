package confine

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"syscall"
	"testing"
)

// childEnv makes this test binary the confined child: it tries what its
// arguments say and prints what happened as JSON.
const childEnv = "CONFINE_TEST_CHILD"

func TestMain(m *testing.M) {
	if os.Getenv(childEnv) != "" {
		os.Exit(child(os.Args[1:]))
	}
	os.Exit(m.Run())
}

// child tries, in order: to read args[0], to write, read and list inside
// the folder args[1], to make a link there, to list its parent, and to
// probe process 1 with signal 0 (the parent, whose thread made the
// domain, is not out of its reach). It prints an error's text, or "", for each.
func child(args []string) int {
	try := func(err error) string {
		if err != nil {
			return err.Error()
		}
		return ""
	}
	allowed := args[1]
	inside := filepath.Join(allowed, "written")
	out := map[string]string{}
	_, err := os.ReadFile(args[0])
	out["read outside"] = try(err)
	out["write inside"] = try(os.WriteFile(inside, []byte("ok"), 0o600))
	_, err = os.ReadFile(inside)
	out["read inside"] = try(err)
	out["rename inside"] = try(os.Rename(inside, inside+".2"))
	_, err = os.ReadDir(allowed)
	out["list inside"] = try(err)
	out["link inside"] = try(os.Symlink(args[0], filepath.Join(allowed, "link")))
	_, err = os.ReadDir(filepath.Dir(allowed))
	out["list parent"] = try(err)
	out["signal another process"] = try(syscall.Kill(1, 0))
	if err := json.NewEncoder(os.Stdout).Encode(out); err != nil {
		return 1
	}
	return 0
}

func TestChildOpensOnlyWhatItIsGiven(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("Landlock is Linux's")
	}
	abi := Version()
	if abi < 1 {
		// fount's CI and supported hosts have it: failing here says the
		// workers would run unconfined.
		t.Fatal("this kernel has no Landlock: fount's workers would run unconfined")
	}
	dir := t.TempDir()
	secret := filepath.Join(dir, "owner.key")
	allowed := filepath.Join(dir, "cache")
	if err := os.WriteFile(secret, []byte("the owner's key"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(allowed, 0o755); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(os.Args[0], secret, allowed)
	cmd.Env = []string{childEnv + "=1"}
	out := &limitedOutput{}
	cmd.Stdout, cmd.Stderr = out, out
	if err := Start(cmd, append(Executable(os.Args[0]), Rule{Path: allowed, Access: ReadWrite})); err != nil {
		t.Fatal(err)
	}
	if err := cmd.Wait(); err != nil {
		t.Fatalf("child: %v\n%s", err, out)
	}
	var got map[string]string
	if err := json.Unmarshal(out.b, &got); err != nil {
		t.Fatalf("child said %q: %v", out.b, err)
	}
	denied := "permission denied"
	want := map[string]string{
		"read outside": "open " + secret + ": " + denied, "write inside": "", "read inside": "", "rename inside": "", "list inside": "",
		"link inside": "symlink " + secret + " " + filepath.Join(allowed, "link") + ": " + denied,
		"list parent": "open " + dir + ": " + denied, "signal another process": "",
	}
	if abi >= 6 {
		want["signal another process"] = "operation not permitted"
	}
	for k, w := range want {
		if got[k] != w {
			t.Errorf("%s: got %q, want %q", k, got[k], w)
		}
	}
	// The server itself is not confined: only the child's thread was.
	if _, err := os.ReadFile(secret); err != nil {
		t.Errorf("the parent lost its own access: %v", err)
	}
	for i := 0; i < 2*runtime.GOMAXPROCS(0)+4; i++ {
		done := make(chan error)
		go func() {
			runtime.LockOSThread()
			defer runtime.UnlockOSThread()
			_, err := os.ReadFile(secret)
			done <- err
		}()
		if err := <-done; err != nil {
			t.Fatalf("a thread of the parent is confined: %v", err)
		}
	}
}

func TestStartWithNoRulesReachesNothing(t *testing.T) {
	if Version() < 1 {
		t.Skip("no Landlock: TestChildOpensOnlyWhatItIsGiven says so")
	}
	cmd := exec.Command(os.Args[0], "/etc/hostname", t.TempDir())
	cmd.Env = []string{childEnv + "=1"}
	err := Start(cmd, nil)
	if err == nil {
		err = cmd.Wait()
	}
	// Not even its own executable: it cannot start.
	var exit *exec.ExitError
	if err == nil || (!errors.Is(err, os.ErrPermission) && !errors.As(err, &exit)) {
		t.Fatalf("a child allowed nothing started: %v", err)
	}
}

type limitedOutput struct{ b []byte }

func (o *limitedOutput) Write(p []byte) (int, error) {
	if len(o.b)+len(p) > 1<<20 {
		return 0, fmt.Errorf("too much output")
	}
	o.b = append(o.b, p...)
	return len(p), nil
}

func (o *limitedOutput) String() string { return string(o.b) }
