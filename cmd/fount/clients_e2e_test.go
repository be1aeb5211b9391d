package main

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/fount-dev/fount/bundle/npmtest"
)

// clientFixtures holds components that drive real servers through real
// npm clients, each with the event it emits under Node 20
// (<name>.want.json).
const clientFixtures = "testdata/clients"

// checkClientAsInNode deploys testdata/clients/<name>.mjs, with its npm
// imports resolved from the test corpus, on a server that may reach
// loopback, runs it once on event and compares what it emits with
// <name>.want.json; with node installed, it checks that Node emits that
// too, with the same packages.
func checkClientAsInNode(t *testing.T, name string, event map[string]any) {
	t.Helper()
	code, err := os.ReadFile(filepath.Join(clientFixtures, name+".mjs"))
	if err != nil {
		t.Fatal(err)
	}
	wantRaw, err := os.ReadFile(filepath.Join(clientFixtures, name+".want.json"))
	if err != nil {
		t.Fatal(err)
	}
	want := strings.TrimSpace(string(wantRaw))
	reg := npmtest.New(t)
	publishCorpus(t, reg)
	s := startServer(t, serveConfig{bootstrapKey: ownerKey, npmRegistry: reg.URL(), allowPrivateEgress: true})
	src := s.deploySource(string(code), nil)
	s.run(src["id"].(string), event)
	if got := canonicalJSON(t, s.emittedOrFailed(src["id"].(string))); got != want {
		t.Errorf("fount emitted\n%s\nNode 20 emits\n%s", got, want)
	}
	node, err := exec.LookPath("node")
	if err != nil {
		t.Log("node is not installed: the check that Node 20 emits " + name + ".want.json is skipped")
		return
	}
	dir := t.TempDir()
	installCorpus(t, dir)
	if err := os.WriteFile(filepath.Join(dir, "component.mjs"), code, 0o644); err != nil {
		t.Fatal(err)
	}
	ev, _ := json.Marshal(event)
	if got := nodeEmits(t, node, dir, string(ev)); got != want {
		t.Errorf("Node emits\n%s\nnot %s.want.json:\n%s", got, name, want)
	}
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
func (s *server) emittedOrFailed(id string) any {
	s.t.Helper()
	deadline := time.Now().Add(eventsDeadline)
	for time.Now().Before(deadline) {
		for _, channel := range []string{"", "$errors"} {
			_, body := s.do("GET", "/v1/sources/"+id+"/event_summaries?limit=1&expand=event&event_name="+channel, nil)
			if items, _ := body["data"].([]any); len(items) > 0 {
				ev := items[0].(map[string]any)["event"]
				if channel != "" {
					s.t.Fatalf("the run failed: %v", ev)
				}
				return ev
			}
		}
		time.Sleep(20 * time.Millisecond)
	}
	s.t.Fatalf("source %s emitted nothing and failed with nothing", id)
	return nil
}
