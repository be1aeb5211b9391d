package s3

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

func TestNewChecksTheConfig(t *testing.T) {
	t.Parallel()
	good := Config{Endpoint: "http://127.0.0.1:9000", Bucket: "sends", AccessKeyID: "a", SecretAccessKey: "s"}
	for _, c := range []struct {
		name   string
		change func(*Config)
		want   string
	}{
		{"good", func(*Config) {}, ""},
		{"https with a slash", func(c *Config) { c.Endpoint = "https://s3.example.com/" }, ""},
		{"no scheme", func(c *Config) { c.Endpoint = "s3.example.com" }, "not an http(s) URL"},
		{"a path", func(c *Config) { c.Endpoint = "http://h/bucket" }, "no path"},
		{"a query", func(c *Config) { c.Endpoint = "http://h/?x=1" }, "no query"},
		{"upper case bucket", func(c *Config) { c.Bucket = "Sends" }, "not a bucket name"},
		{"short bucket", func(c *Config) { c.Bucket = "ab" }, "not a bucket name"},
		{"dots", func(c *Config) { c.Bucket = "a..b" }, "not a bucket name"},
		{"no secret", func(c *Config) { c.SecretAccessKey = "" }, "secret access key"},
	} {
		cfg := good
		c.change(&cfg)
		_, err := New(cfg)
		if (c.want == "") != (err == nil) || (err != nil && !strings.Contains(err.Error(), c.want)) {
			t.Errorf("%s: %v, want %q", c.name, err, c.want)
		}
	}
}

// TestPutIsASignedPathStylePut: an object goes as a PUT of its bytes to
// /<bucket>/<key>, as JSON, signed with SigV4 for s3 in the region.
func TestPutIsASignedPathStylePut(t *testing.T) {
	t.Parallel()
	var got *http.Request
	var body string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		got, body = r, string(b)
		w.WriteHeader(http.StatusOK)
	}))
	defer srv.Close()
	b, err := New(Config{Endpoint: srv.URL, Bucket: "sends", Region: "eu-west-3", AccessKeyID: "AKID", SecretAccessKey: "s"})
	if err != nil {
		t.Fatal(err)
	}
	status, err := b.Put(context.Background(), "u_1/p_2/orders/x-0.json", []byte(`{"a":1}`))
	if err != nil || status != 200 {
		t.Fatalf("Put: %d %v", status, err)
	}
	auth := got.Header.Get("Authorization")
	if got.Method != http.MethodPut || got.URL.Path != "/sends/u_1/p_2/orders/x-0.json" || body != `{"a":1}` ||
		got.Header.Get("Content-Type") != "application/json" ||
		!strings.HasPrefix(auth, "AWS4-HMAC-SHA256 Credential=AKID/") || !strings.Contains(auth, "/eu-west-3/s3/aws4_request") ||
		got.Header.Get("X-Amz-Content-Sha256") == "" {
		t.Errorf("request %s %s %q %v", got.Method, got.URL.Path, body, got.Header)
	}
}
