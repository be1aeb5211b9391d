package main

import (
	"compress/gzip"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/fount-dev/fount/internal/bundle/npmtest"
	"github.com/fount-dev/fount/internal/server"
)

// corpusComponents holds one component per library of the corpus: each
// imports it unchanged from the npm registry and makes its main call,
// against vendorMock where it is a vendor's SDK.
const corpusComponents = "testdata/corpus/components"

// corpusDifferences are the libraries whose component does not yet do in
// fount what it does in Node 20, with why; docs/runtime.md's corpus table
// says the same. The test fails when one of them starts to match, so that
// the table stays true.
var corpusDifferences = map[string]string{}

// vendorMock answers what the corpus' SDKs ask of their vendors, on
// loopback: each route answers as the vendor's API documents.
func vendorMock(t *testing.T) *httptest.Server {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		w.Header().Set("Content-Type", "application/json")
		switch {
		case r.URL.Path == "/api/auth.test": // Slack
			fmt.Fprint(w, `{"ok":true,"url":"https://fount.slack.com/","team":"fount","user":"bot","team_id":"T1","user_id":"U1"}`)
		case r.URL.Path == "/v1/users/me": // Notion
			fmt.Fprint(w, `{"object":"user","id":"6794760a-1f15-45cd-9c65-0dfe42f5135a","type":"bot","name":"fount","bot":{}}`)
		case r.URL.Path == "/json":
			fmt.Fprint(w, `{"hello":"world","n":[1,2,3]}`)
		case r.URL.Path == "/bytes": // every byte value, which no text encoding keeps
			w.Header().Set("Content-Type", "application/octet-stream")
			for i := range 256 {
				w.Write([]byte{byte(i)})
			}
		case r.URL.Path == "/digest": // the SHA-256 of the body it was sent
			sum := sha256.Sum256(body)
			fmt.Fprintf(w, `{"size":%d,"sha256":%q}`, len(body), hex.EncodeToString(sum[:]))
		case r.URL.Path == "/gzip": // compressed when the client takes it, as real APIs do
			if !strings.Contains(r.Header.Get("Accept-Encoding"), "gzip") {
				fmt.Fprint(w, `{"compressed":false}`)
				return
			}
			w.Header().Set("Content-Encoding", "gzip")
			zw := gzip.NewWriter(w)
			fmt.Fprint(zw, `{"compressed":true}`)
			zw.Close()
		case r.URL.Path == "/echo":
			var in any
			json.Unmarshal(body, &in)
			json.NewEncoder(w).Encode(map[string]any{"method": r.Method, "type": r.Header.Get("Content-Type"), "body": in})
		case r.URL.Path == "/user": // GitHub
			fmt.Fprint(w, `{"login":"octocat","id":1,"type":"User"}`)
		case r.URL.Path == "/v1/customers/cus_1": // Stripe
			fmt.Fprint(w, `{"id":"cus_1","object":"customer","email":"ada@example.com"}`)
		case r.URL.Path == "/2010-04-01/Accounts/AC123.json": // Twilio
			fmt.Fprint(w, `{"sid":"AC123","friendly_name":"fount","status":"active","date_created":"Thu, 30 Jul 2015 20:00:00 +0000"}`)
		case r.URL.Path == "/v4/spreadsheets/sheet1": // Google Sheets
			fmt.Fprint(w, `{"spreadsheetId":"sheet1","properties":{"title":"Budget"}}`)
		case r.URL.Path == "/" && r.Method == http.MethodGet: // S3's ListBuckets
			w.Header().Set("Content-Type", "application/xml")
			fmt.Fprint(w, `<?xml version="1.0" encoding="UTF-8"?><ListAllMyBucketsResult xmlns="http://s3.amazonaws.com/doc/2006-03-01/">`+
				`<Owner><ID>1</ID><DisplayName>fount</DisplayName></Owner><Buckets><Bucket><Name>alpha</Name><CreationDate>2024-01-02T03:04:05.000Z</CreationDate></Bucket>`+
				`<Bucket><Name>beta</Name><CreationDate>2024-01-02T03:04:05.000Z</CreationDate></Bucket></Buckets></ListAllMyBucketsResult>`)
		default:
			w.WriteHeader(http.StatusNotFound)
			fmt.Fprint(w, `{"error":"not found"}`)
		}
	}))
	t.Cleanup(srv.Close)
	return srv
}

// TestCorpusAsInNode: each library of the corpus (vendor SDKs, HTTP
// clients, database and mail clients, parsers, dates, ids, tokens),
// deployed unchanged from the npm registry, bundles, loads and makes its
// main call in fount with the result Node 20 gives, or differs for the
// reason corpusDifferences names.
func TestCorpusAsInNode(t *testing.T) {
	t.Parallel()
	node, err := exec.LookPath("node")
	if err != nil {
		t.Fatal("node is needed to compare the corpus with Node 20 (apt-get install nodejs)")
	}
	entries, err := os.ReadDir(corpusComponents)
	if err != nil {
		t.Fatal(err)
	}
	mock := vendorMock(t)
	u, _ := url.Parse(mock.URL)
	event, _ := json.Marshal(map[string]any{"base": mock.URL, "port": u.Port(), "closedPort": freePort(t)})
	reg := npmtest.New(t)
	publishCorpus(t, reg)
	s := startServer(t, server.Config{BootstrapKey: ownerKey, NpmRegistry: reg.URL(), AllowPrivateEgress: true})
	nodeDir := t.TempDir()
	installCorpus(t, nodeDir)
	var nodeMu sync.Mutex // one Node at a time: they are the heavier half
	for _, e := range entries {
		name, ok := strings.CutSuffix(e.Name(), ".mjs")
		if !ok {
			continue
		}
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			code, err := os.ReadFile(filepath.Join(corpusComponents, e.Name()))
			if err != nil {
				t.Fatal(err)
			}
			nodeMu.Lock()
			want := nodeOutcome(t, node, nodeDir, name, code, string(event))
			nodeMu.Unlock()
			got := fountOutcome(t, s, code, event)
			reason, differs := corpusDifferences[name]
			switch {
			case !differs && got != want:
				t.Errorf("fount:\n%s\nNode 20:\n%s", got, want)
			case differs && got == want:
				t.Errorf("fount now does what Node 20 does (%s): drop it from corpusDifferences and docs/runtime.md (it said: %s)", got, reason)
			}
			t.Logf("fount: %s\nNode:  %s", got, want)
		})
	}
}

// fountOutcome deploys code and runs it once on event: what it emitted,
// or "deploy: <error>" or "error: <error>".
func fountOutcome(t *testing.T, s *testServer, code []byte, event []byte) string {
	t.Helper()
	var ev any
	json.Unmarshal(event, &ev)
	st, body := s.do("POST", "/v1/sources", map[string]any{"component_code": string(code)})
	if st != 200 {
		return "deploy: " + fmt.Sprint(body["error"])
	}
	id := data(body)["id"].(string)
	s.run(id, ev)
	out, failed := s.outcome(id)
	if failed {
		return "error: " + fmt.Sprint(out)
	}
	return canonicalJSON(t, out)
}

// nodeOutcome runs code as a component under Node with the corpus
// installed: what it emitted, or "error: <error>".
func nodeOutcome(t *testing.T, node, dir, name string, code []byte, event string) string {
	t.Helper()
	sub := filepath.Join(dir, name)
	if err := os.MkdirAll(sub, 0o755); err != nil {
		t.Fatal(err)
	}
	// Node finds the packages in dir/node_modules from dir/<name>.
	if err := os.WriteFile(filepath.Join(sub, "component.mjs"), code, 0o644); err != nil {
		t.Fatal(err)
	}
	harness, err := os.ReadFile(filepath.Join(npmFixtures, "node-harness.mjs"))
	if err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(sub, "node-harness.mjs"), harness, 0o644)
	cmd := exec.Command(node, "node-harness.mjs", event)
	cmd.Dir = sub
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return "error: " + strings.TrimSpace(stderr.String())
	}
	var emitted []any
	if err := json.Unmarshal(out, &emitted); err != nil || len(emitted) != 1 {
		return "error: printed " + string(out)
	}
	return canonicalJSON(t, emitted[0])
}

// outcome waits for the source's first event or error: the event, or the
// error's name and message with failed set.
func (s *testServer) outcome(id string) (any, bool) {
	s.t.Helper()
	ev, failed := s.firstOutcome(id)
	if !failed {
		return ev, false
	}
	m, _ := ev.(map[string]any)["error"].(map[string]any)
	if os.Getenv("FOUNT_CORPUS_STACKS") != "" {
		return fmt.Sprint(m["name"], ": ", m["message"], "\n", m["stack"]), true
	}
	return fmt.Sprint(m["name"], ": ", m["message"]), true
}
