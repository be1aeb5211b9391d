package main

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/fount-dev/fount/internal/server"
	"github.com/fount-dev/fount/internal/wait"

	"github.com/aws/smithy-go/aws-http-auth/credentials"
	"github.com/aws/smithy-go/aws-http-auth/sigv4"
	v4 "github.com/aws/smithy-go/aws-http-auth/v4"
	"github.com/johannesboyne/gofakes3"
	"github.com/johannesboyne/gofakes3/backend/s3mem"

	"github.com/fount-dev/fount/internal/s3"
)

// s3Server is an S3-compatible server on loopback (gofakes3, in memory)
// in front of which each request's SigV4 signature is checked against
// the keys the test gave fount.
type s3Server struct {
	url     string
	backend *s3mem.Backend
	mu      sync.Mutex
	bad     []string // requests whose signature did not check
}

func startS3(t *testing.T, bucket, keyID, secret string) *s3Server {
	t.Helper()
	srv := &s3Server{backend: s3mem.New()}
	if err := srv.backend.CreateBucket(bucket); err != nil {
		t.Fatal(err)
	}
	fake := gofakes3.New(srv.backend).Server()
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		if why := checkSigV4(r, body, keyID, secret); why != "" {
			srv.mu.Lock()
			srv.bad = append(srv.bad, r.Method+" "+r.URL.Path+": "+why)
			srv.mu.Unlock()
			http.Error(w, "<Error><Code>SignatureDoesNotMatch</Code></Error>", http.StatusForbidden)
			return
		}
		r.Body = io.NopCloser(bytes.NewReader(body))
		fake.ServeHTTP(w, r)
	}))
	t.Cleanup(ts.Close)
	srv.url = ts.URL
	return srv
}

// checkSigV4 signs a copy of r as the client should have, at the time r
// says, and compares: "" when r's signature is the one its keys make.
func checkSigV4(r *http.Request, body []byte, keyID, secret string) string {
	at, err := time.Parse("20060102T150405Z", r.Header.Get("X-Amz-Date"))
	if err != nil {
		return "no X-Amz-Date"
	}
	sum := sha256.Sum256(body)
	if r.Header.Get("X-Amz-Content-Sha256") != hex.EncodeToString(sum[:]) {
		return "the payload hash is not the body's"
	}
	c, _ := http.NewRequest(r.Method, "http://"+r.Host+r.URL.RequestURI(), bytes.NewReader(body))
	c.Header.Set("Content-Type", r.Header.Get("Content-Type"))
	signer := sigv4.New(func(o *v4.SignerOptions) { o.DisableDoublePathEscape, o.AddPayloadHashHeader = true, true })
	if err := signer.SignRequest(&sigv4.SignRequestInput{Request: c, PayloadHash: sum[:], Service: "s3", Region: "us-east-1", Time: at,
		Credentials: credentials.Credentials{AccessKeyID: keyID, SecretAccessKey: secret}}); err != nil {
		return err.Error()
	}
	if got, want := r.Header.Get("Authorization"), c.Header.Get("Authorization"); got != want {
		return "Authorization " + got + ", want " + want
	}
	return ""
}

// TestWorkflowSendS3: $.send.s3 writes its payload, as JSON, into the
// operator's bucket on an S3-compatible server (a signed PUT, from the
// delivery queue), under the workflow's owner, the workflow, the step's
// prefix and the hour; a step naming another bucket fails, saying which
// bucket this server writes to; without --s3-endpoint the step fails,
// saying so.
func TestWorkflowSendS3(t *testing.T) {
	t.Parallel()
	const bucket, keyID, secret = "fount-sends", "AKIDFOUNTTEST", "s3cr3t-test-key"
	store := startS3(t, bucket, keyID, secret)
	s := startServer(t, server.Config{BootstrapKey: ownerKey, AllowPrivateEgress: true,
		S3: s3.Config{Endpoint: store.url, Bucket: bucket, AccessKeyID: keyID, SecretAccessKey: secret}})
	flow := map[string]any{
		"name":    "Archiver",
		"trigger": map[string]any{"type": "manual"},
		"steps": []any{step("archive", `export default defineComponent({ run({ steps, $ }) {
			const e = steps.trigger.event;
			$.send.s3({ bucket: e.bucket, prefix: e.prefix === undefined ? "orders/" : e.prefix, payload: { order: e.order, items: [1, 2] } });
		} })`, nil)},
	}
	wf := s.deployWorkflow(flow)
	id := wf["id"].(string)
	ok := s.execution(s.runWorkflow(id, map[string]any{"order": 7, "bucket": bucket}))
	if ok["status"] != "success" {
		t.Fatalf("execution = %v", ok)
	}
	var key string
	wait.Poll(eventsDeadline, func() bool { // the check below says what is missing
		list, err := store.backend.ListBucket(bucket, &gofakes3.Prefix{}, gofakes3.ListBucketPage{})
		if err != nil {
			t.Fatal(err)
		}
		if len(list.Contents) > 0 {
			key = list.Contents[0].Key
		}
		return key != ""
	})
	if key == "" {
		store.mu.Lock()
		t.Fatalf("no object arrived; refused requests: %v", store.bad)
	}
	_, me := s.do("GET", "/v1/users/me", nil)
	owner := data(me)["id"].(string)
	if prefix := owner + "/" + id + "/orders/" + time.Now().UTC().Format("2006/01/02/"); !strings.HasPrefix(key, prefix) || !strings.HasSuffix(key, ".json") {
		t.Errorf("key %q, want it under %q", key, prefix)
	}
	obj, err := store.backend.GetObject(bucket, key, nil)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(obj.Contents)
	if string(b) != `{"order":7,"items":[1,2]}` {
		t.Errorf("object = %s", b)
	}

	other := s.execution(s.runWorkflow(id, map[string]any{"order": 8, "bucket": "someone-elses"}))
	if msg := jsonOf(other["steps"]); other["status"] != "error" || !strings.Contains(msg, `writes to this server's bucket \"fount-sends\", not \"someone-elses\"`) {
		t.Errorf("another bucket: %v", other)
	}

	bad := s.execution(s.runWorkflow(id, map[string]any{"order": 9, "prefix": "../escape/"}))
	if msg := jsonOf(bad["steps"]); bad["status"] != "error" || !strings.Contains(msg, `prefix \"../escape/\" may hold`) {
		t.Errorf("a prefix with ..: %v", bad)
	}

	plain := startEngineServer(t)
	wf2 := plain.deployWorkflow(flow)
	none := plain.execution(plain.runWorkflow(wf2["id"].(string), map[string]any{"order": 9}))
	if msg := jsonOf(none["steps"]); none["status"] != "error" || !strings.Contains(msg, "$.send.s3 is not available: this server has no bucket configured") {
		t.Errorf("without --s3-endpoint: %v", none)
	}
}

// TestServeS3Flags: the bucket of $.send.s3 comes from flags or their
// variables, its keys from variables only, and a setting that cannot
// work is refused at start, saying why.
func TestServeS3Flags(t *testing.T) {
	t.Parallel()
	keys := map[string]string{"FOUNT_S3_ACCESS_KEY_ID": "AK", "FOUNT_S3_SECRET_ACCESS_KEY": "SK"}
	env := map[string]string{"FOUNT_S3_ENDPOINT": "http://127.0.0.1:9000", "FOUNT_S3_BUCKET": "sends", "FOUNT_S3_REGION": "eu-west-3"}
	for k, v := range keys {
		env[k] = v
	}
	cfg, err := parseServeFlags(nil, testEnvironment(env, io.Discard, io.Discard))
	if err != nil || cfg.S3 != (s3.Config{Endpoint: "http://127.0.0.1:9000", Bucket: "sends", Region: "eu-west-3", AccessKeyID: "AK", SecretAccessKey: "SK"}) {
		t.Errorf("from the environment: %+v %v", cfg.S3, err)
	}
	for _, c := range []struct {
		args []string
		env  map[string]string
		want string
	}{
		{[]string{"--s3-bucket", "sends"}, nil, "need --s3-endpoint"},
		{nil, keys, "need --s3-endpoint"},
		{[]string{"--s3-endpoint", "ftp://h", "--s3-bucket", "sends"}, keys, "not an http(s) URL"},
		{[]string{"--s3-endpoint", "http://h:9000/path", "--s3-bucket", "sends"}, keys, "no path"},
		{[]string{"--s3-endpoint", "http://h:9000", "--s3-bucket", "Bad_Bucket"}, keys, "not a bucket name"},
		{[]string{"--s3-endpoint", "http://h:9000", "--s3-bucket", "sends"}, nil, "access key id and a secret access key"},
	} {
		if _, err := parseServeFlags(c.args, testEnvironment(c.env, io.Discard, io.Discard)); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%v with %v: %v, want an error saying %q", c.args, c.env, err, c.want)
		}
	}
}
