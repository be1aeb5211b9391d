package main

import (
	"fmt"
	"io"
	"math/rand/v2"
	"net"
	"net/http"
	"os"
	"os/exec"
	"regexp"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/fount-dev/fount/internal/wait"
)

// TestReadmeMakeCommands: every `make <target>` the README shows is a real
// target. `make test` and `make guest-verify` run in CI itself; `make run`
// is exercised by TestServeHealthzAndShutdown, which runs `fount serve`
// with the same defaults.
func TestReadmeMakeCommands(t *testing.T) {
	t.Parallel()
	readme, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	targets := regexp.MustCompile(`(?m)^\s+make ([a-z-]+)`).FindAllStringSubmatch(string(readme), -1)
	if len(targets) < 2 {
		t.Fatalf("found %d make commands in README.md; the two set-up commands at least must be there", len(targets))
	}
	for _, m := range targets {
		cmd := exec.Command("make", "-n", m[1])
		cmd.Dir = "../.."
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Errorf("README shows `make %s`, but make -n %s fails: %v\n%s", m[1], m[1], err, out)
		}
	}
}

// readmeBlocks returns the shell blocks of a README section.
func readmeBlocks(t *testing.T, section string) [][]string {
	t.Helper()
	readme, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	text := string(readme)
	start := strings.Index(text, "## "+section)
	if start < 0 {
		t.Fatalf("README has no section %q", section)
	}
	text = text[start+3:]
	if end := strings.Index(text, "\n## "); end >= 0 {
		text = text[:end]
	}
	var blocks [][]string
	for _, part := range strings.Split(text, "```sh\n")[1:] {
		body, _, _ := strings.Cut(part, "```")
		var lines []string
		for _, l := range strings.Split(strings.TrimSpace(body), "\n") {
			if l = strings.TrimSpace(l); l != "" && !strings.HasPrefix(l, "#") {
				lines = append(lines, l)
			}
		}
		blocks = append(blocks, lines)
	}
	return blocks
}

// TestReadmeWalkthrough runs the README's "first source in two minutes"
// verbatim from the repository root: `make run` in the background, then
// the second terminal's commands. Only the environment differs: a free
// port and a temporary data dir instead of 127.0.0.1:8080 and ./fount-data.
func TestReadmeWalkthrough(t *testing.T) {
	t.Parallel()
	readmeRepo.Lock()
	defer readmeRepo.Unlock()
	blocks := readmeBlocks(t, "First source in two minutes")
	if len(blocks) != 2 || len(blocks[0]) != 1 || blocks[0][0] != "make run" || len(blocks[1]) < 3 {
		t.Fatalf("unexpected walkthrough blocks: %q", blocks)
	}
	// make run builds the binary first, which takes minutes on a busy
	// machine the first time (the guest's translation): built before the
	// port is chosen, so that nothing takes the port meanwhile.
	if out, err := exec.Command("make", "-C", "../..", "build").CombinedOutput(); err != nil {
		t.Fatalf("make build: %v\n%s", err, out)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	warmCache(t)
	env := append(os.Environ(), "FOUNT_ADDR="+addr, "FOUNT_DATA_DIR="+t.TempDir(), "FOUNT_URL=http://"+addr, "FOUNT_CACHE_DIR="+cacheDir,
		"FOUNT_API_KEY=", "FOUNT_BOOTSTRAP_API_KEY=", "NO_COLOR=1")

	server := exec.Command("bash", "-c", blocks[0][0])
	server.Dir, server.Env = "../..", env
	server.SysProcAttr = &syscall.SysProcAttr{Setpgid: true} // make and its child are stopped together
	out := &lockedBuffer{}
	server.Stdout, server.Stderr = out, out
	if err := server.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() {
		_ = syscall.Kill(-server.Process.Pid, syscall.SIGTERM)
		_ = server.Wait()
	}()
	// make run finds the binary built.
	if !wait.Poll(3*time.Minute, func() bool { return strings.Contains(out.String(), "listening on") }) {
		t.Fatalf("make run did not start the server:\n%s", out)
	}

	steps := blocks[1]
	last := steps[len(steps)-1]
	if !strings.HasSuffix(last, "--follow") {
		t.Fatalf("the walkthrough should end by following events, ends with %q", last)
	}
	script := "set -e\n" + strings.Join(steps[:len(steps)-1], "\n") + "\n" + "timeout -s INT 5 " + last + " || true\n"
	walk := exec.Command("bash", "-c", script)
	walk.Dir, walk.Env = "../..", env
	got, err := walk.CombinedOutput()
	if err != nil {
		t.Fatalf("walkthrough failed: %v\n%s\nserver:\n%s", err, got, out)
	}
	for _, want := range []string{"deployed hello-http (dc_", `{"success":true}`, "hello-http (dc_", "the last 1h,", `"hello":"world"`} {
		if !strings.Contains(string(got), want) {
			t.Errorf("walkthrough output lacks %q:\n%s", want, got)
		}
	}

	// The workflow walkthrough, in the same terminal: the API key
	// exported above.
	flow := readmeBlocks(t, "First workflow")
	if len(flow) != 1 || len(flow[0]) < 3 || !strings.HasSuffix(flow[0][len(flow[0])-1], "--follow") {
		t.Fatalf("unexpected workflow walkthrough blocks: %q", flow)
	}
	steps = flow[0]
	last = steps[len(steps)-1]
	script = "set -e\n" + blocks[1][0] + "\n" + strings.Join(steps[:len(steps)-1], "\n") + "\n" + "timeout -s INT 5 " + last + " || true\n"
	walk = exec.Command("bash", "-c", script)
	walk.Dir, walk.Env = "../..", env
	if got, err = walk.CombinedOutput(); err != nil {
		t.Fatalf("workflow walkthrough failed: %v\n%s\nserver:\n%s", err, got, out)
	}
	for _, want := range []string{"deployed workflow greeter (p_", `{"success":true}`, "success", "greeted ada", "announce"} {
		if !strings.Contains(string(got), want) {
			t.Errorf("workflow walkthrough output lacks %q:\n%s", want, got)
		}
	}
}

// TestReadmeListsEveryServeFlag: each flag `fount serve --help` prints is
// in the README's table, with its environment variable.
func TestReadmeListsEveryServeFlag(t *testing.T) {
	t.Parallel()
	readme, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	var help strings.Builder
	_, _ = parseServeFlags([]string{"-h"}, environment{stderr: &help, lookupEnv: func(string) (string, bool) { return "", false }})
	flags := regexp.MustCompile(`(?m)^  -([a-z][a-z0-9-]*)`).FindAllStringSubmatch(help.String(), -1)
	if len(flags) < 20 {
		t.Fatalf("found %d flags in serve --help", len(flags))
	}
	for _, f := range flags {
		env := "FOUNT_" + strings.ToUpper(strings.ReplaceAll(f[1], "-", "_"))
		if !strings.Contains(string(readme), "| `--"+f[1]+"` | `"+env+"` |") {
			t.Errorf("the README lists no --%s with %s", f[1], env)
		}
	}
}

// readmeRepo serialises the README tests that build into the
// repository's bin/: two builds of one file at once would clash.
var readmeRepo sync.Mutex

// consecutivePorts finds n free loopback ports in a row.
func consecutivePorts(t *testing.T, n int) int {
	t.Helper()
	for try := 0; try < 50; try++ {
		base := 20000 + rand.IntN(40000)
		var open []net.Listener
		for p := base; p < base+n; p++ {
			ln, err := net.Listen("tcp", fmt.Sprintf("127.0.0.1:%d", p))
			if err != nil {
				break
			}
			open = append(open, ln)
		}
		for _, ln := range open {
			ln.Close()
		}
		if len(open) == n {
			return base
		}
	}
	t.Fatalf("no %d free ports in a row", n)
	return 0
}

// TestReadmeCluster runs the README's "Running several nodes" verbatim
// from the repository root: `make run-cluster` in the background, then
// the second terminal's commands. Only the environment differs: free
// ports and a temporary folder instead of 4222, 6222, 8081 and
// fount-cluster/, substituted in the commands.
func TestReadmeCluster(t *testing.T) {
	t.Parallel()
	blocks := readmeBlocks(t, "Running several nodes")
	if len(blocks) != 2 || len(blocks[0]) != 1 || blocks[0][0] != "make run-cluster" || len(blocks[1]) < 5 {
		t.Fatalf("unexpected blocks: %q", blocks)
	}
	readmeRepo.Lock()
	defer readmeRepo.Unlock()
	warmCache(t)
	dir := t.TempDir()
	fountPort, endpointPort := consecutivePorts(t, 3), consecutivePorts(t, 3)
	env := append(os.Environ(), "CLUSTER_DIR="+dir, "FOUNT_CACHE_DIR="+cacheDir, "NO_COLOR=1",
		fmt.Sprint("NATS_PORT=", consecutivePorts(t, 3)), fmt.Sprint("NATS_CLUSTER_PORT=", consecutivePorts(t, 3)),
		fmt.Sprint("FOUNT_PORT=", fountPort), fmt.Sprint("ENDPOINT_PORT=", endpointPort), "FOUNT_URL=", "FOUNT_API_KEY=", "FOUNT_BOOTSTRAP_API_KEY=")
	cluster := exec.Command("bash", "-c", blocks[0][0])
	cluster.Dir, cluster.Env = "../..", env
	cluster.SysProcAttr = &syscall.SysProcAttr{Setpgid: true} // make, the script and its children are stopped together
	out := &lockedBuffer{}
	cluster.Stdout, cluster.Stderr = out, out
	if err := cluster.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() {
		_ = syscall.Kill(-cluster.Process.Pid, syscall.SIGTERM)
		_ = cluster.Wait()
	}()
	deadline := time.Now().Add(3 * time.Minute) // it builds the binaries first
	if !wait.Poll(time.Until(deadline), func() bool { return strings.Contains(out.String(), "owner key:") }) {
		t.Fatalf("make run-cluster did not start:\n%s", out)
	}
	for i := range 3 { // each node answers once it has joined
		url := fmt.Sprintf("http://127.0.0.1:%d/readyz", fountPort+i)
		ready := wait.Poll(time.Until(deadline), func() bool {
			resp, err := http.Get(url)
			if err != nil {
				return false
			}
			resp.Body.Close()
			return resp.StatusCode == 200
		})
		if !ready {
			logs, _ := os.ReadFile(fmt.Sprintf("%s/node%d.log", dir, i+1))
			t.Fatalf("node %d is not ready:\n%s\n%s", i+1, out, logs)
		}
	}

	replacer := strings.NewReplacer("fount-cluster/", dir+"/",
		"127.0.0.1:8081", fmt.Sprint("127.0.0.1:", fountPort), "127.0.0.1:8082", fmt.Sprint("127.0.0.1:", fountPort+1),
		"127.0.0.1:8083", fmt.Sprint("127.0.0.1:", fountPort+2),
		"127.0.0.1:8182", fmt.Sprint("127.0.0.1:", endpointPort+1), "127.0.0.1:8183", fmt.Sprint("127.0.0.1:", endpointPort+2))
	steps := blocks[1]
	last := steps[len(steps)-1]
	if !strings.HasSuffix(last, "--follow") {
		t.Fatalf("the walkthrough should end by following events, ends with %q", last)
	}
	script := replacer.Replace("set -e\n" + strings.Join(steps[:len(steps)-1], "\n") + "\n" + "timeout -s INT 5 " + last + " || true\n")
	walk := exec.Command("bash", "-c", script)
	walk.Dir, walk.Env = "../..", env
	got, err := walk.CombinedOutput()
	if err != nil {
		t.Fatalf("the cluster walkthrough failed: %v\n%s\ncluster:\n%s", err, got, out)
	}
	for _, want := range []string{"deployed hello-http (dc_", `{"success":true}`, `"hello":"node 2"`, `"hello":"node 3"`} {
		if !strings.Contains(string(got), want) {
			t.Errorf("the cluster walkthrough's output lacks %q:\n%s", want, got)
		}
	}
}

// TestReadmeProductionEndpoints starts a server with the flags of the
// README's production example (its ports swapped for free ones): the
// endpoints get their own listener and host name, and answer there.
func TestReadmeProductionEndpoints(t *testing.T) {
	t.Parallel()
	readme, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	var line string
	for _, l := range strings.Split(string(readme), "\n") {
		if l = strings.TrimSpace(l); strings.HasPrefix(l, "fount serve --addr") && strings.Contains(l, "--endpoint-url") {
			line = l
		}
	}
	if line == "" {
		t.Fatal("the README shows no production example with --endpoint-url")
	}
	api, endpoints := freePort(t), freePort(t)
	line = strings.NewReplacer("127.0.0.1:8080", fmt.Sprint("127.0.0.1:", api), "127.0.0.1:8081", fmt.Sprint("127.0.0.1:", endpoints)).Replace(line)
	cfg, err := parseServeFlags(strings.Fields(strings.TrimPrefix(line, "fount serve")), testEnvironment(nil, io.Discard, io.Discard))
	if err != nil {
		t.Fatalf("%s: %v", line, err)
	}
	cfg.BootstrapKey, cfg.DataDir = ownerKey, t.TempDir()
	s := startServer(t, cfg)
	url := endpointOf(s.deploySource(echoSource, nil), "http")
	if !strings.HasPrefix(url, cfg.EndpointURL+"/h/") || s.endpoints != fmt.Sprint("http://127.0.0.1:", endpoints) {
		t.Fatalf("endpoint %s served on %s; want it under %s, on port %d", url, s.endpoints, cfg.EndpointURL, endpoints)
	}
	resp, err := http.Post(s.endpoints+strings.TrimPrefix(url, cfg.EndpointURL), "application/json", strings.NewReader(`{"a":1}`))
	if err != nil || resp.StatusCode != 200 {
		t.Fatalf("POST to the endpoint: %v %v", resp, err)
	}
	resp.Body.Close()
}
