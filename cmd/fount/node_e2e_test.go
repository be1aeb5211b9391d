package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// nodeFixtures holds components that use Node's globals and built-ins,
// each with the event it emits under Node 20 (<name>.want.json).
const nodeFixtures = "testdata/node"

// TestNodeGlobals: a component using the web globals Node has (URL,
// URLSearchParams, TextEncoder and TextDecoder, atob and btoa,
// structuredClone, AbortController, EventTarget, Headers, Request,
// Response, setInterval, setImmediate, queueMicrotask, process.nextTick)
// emits in fount what it emits in Node 20.
func TestNodeGlobals(t *testing.T) {
	t.Parallel()
	checkAsInNode(t, "globals")
}

// checkAsInNode deploys testdata/node/<name>.mjs on a server, runs it
// once and compares what it emits with <name>.want.json; with node
// installed, it checks that Node emits that too.
func checkAsInNode(t *testing.T, name string) {
	t.Helper()
	code, err := os.ReadFile(filepath.Join(nodeFixtures, name+".mjs"))
	if err != nil {
		t.Fatal(err)
	}
	wantRaw, err := os.ReadFile(filepath.Join(nodeFixtures, name+".want.json"))
	if err != nil {
		t.Fatal(err)
	}
	want := strings.TrimSpace(string(wantRaw))
	s := startEngineServer(t)
	src := s.deploySource(string(code), nil)
	s.run(src["id"].(string), map[string]any{})
	if got := canonicalJSON(t, s.events(src["id"].(string), "", 1)[0]["event"]); got != want {
		t.Errorf("fount emitted\n%s\nNode 20 emits\n%s", got, want)
	}
	node, err := exec.LookPath("node")
	if err != nil {
		t.Log("node is not installed: the check that Node 20 emits " + name + ".want.json is skipped (apt-get install nodejs)")
		return
	}
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "component.mjs"), code, 0o644); err != nil {
		t.Fatal(err)
	}
	if got := nodeEmits(t, node, dir, "{}"); got != want {
		t.Errorf("Node emits\n%s\nnot %s.want.json:\n%s", got, name, want)
	}
}

// TestNodeBuiltins: a component importing the Node built-in modules fount
// provides (events, util, buffer, path, querystring, url, string_decoder,
// assert, timers/promises, os), bare and node:-prefixed, and using the
// Buffer global, emits in fount what it emits in Node 20.
func TestNodeBuiltins(t *testing.T) {
	t.Parallel()
	checkAsInNode(t, "builtins")
}
