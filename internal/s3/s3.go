// Package s3 writes objects to the S3-compatible bucket the operator
// configures, for workflows' $.send.s3: one signed PUT (AWS Signature
// Version 4, path-style, so any S3-compatible server takes it) per object.
package s3

import (
	"bytes"
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/aws/smithy-go/aws-http-auth/credentials"
	"github.com/aws/smithy-go/aws-http-auth/sigv4"
	v4 "github.com/aws/smithy-go/aws-http-auth/v4"
)

// Bucket is one bucket of an S3-compatible server. It is safe for
// concurrent use.
type Bucket struct {
	endpoint *url.URL
	name     string
	region   string
	creds    credentials.Credentials
	client   *http.Client
	signer   *sigv4.Signer
}

// Config names the bucket and how to reach it.
type Config struct {
	Endpoint        string // http(s)://host[:port], the server's base URL
	Bucket          string
	Region          string // default us-east-1
	AccessKeyID     string
	SecretAccessKey string
	Timeout         time.Duration // per PUT; default 30 s
}

// New checks cfg and returns its bucket.
func New(cfg Config) (*Bucket, error) {
	u, err := url.Parse(cfg.Endpoint)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || (u.Path != "" && u.Path != "/") || u.RawQuery != "" {
		return nil, fmt.Errorf("s3: the endpoint %q is not an http(s) URL of a server (no path, no query)", cfg.Endpoint)
	}
	if !validBucket(cfg.Bucket) {
		return nil, fmt.Errorf("s3: %q is not a bucket name (3 to 63 lower-case letters, digits, dots and hyphens)", cfg.Bucket)
	}
	if cfg.AccessKeyID == "" || cfg.SecretAccessKey == "" {
		return nil, errors.New("s3: an access key id and a secret access key are needed")
	}
	if cfg.Region == "" {
		cfg.Region = "us-east-1"
	}
	if cfg.Timeout <= 0 {
		cfg.Timeout = 30 * time.Second
	}
	u.Path = ""
	return &Bucket{
		endpoint: u, name: cfg.Bucket, region: cfg.Region,
		creds:  credentials.Credentials{AccessKeyID: cfg.AccessKeyID, SecretAccessKey: cfg.SecretAccessKey},
		client: &http.Client{Timeout: cfg.Timeout},
		signer: sigv4.New(func(o *v4.SignerOptions) {
			o.DisableDoublePathEscape = true // as S3 wants
			o.AddPayloadHashHeader = true
		}),
	}, nil
}

// Name is the bucket's name.
func (b *Bucket) Name() string { return b.name }

// Put writes body under key, as JSON. It returns the server's status; an
// error when it could not be asked.
func (b *Bucket) Put(ctx context.Context, key string, body []byte) (int, error) {
	u := *b.endpoint
	u.Path = "/" + b.name + "/" + key
	req, err := http.NewRequestWithContext(ctx, http.MethodPut, u.String(), bytes.NewReader(body))
	if err != nil {
		return 0, fmt.Errorf("s3: %w", err)
	}
	req.Header.Set("Content-Type", "application/json")
	sum := sha256.Sum256(body)
	if err := b.signer.SignRequest(&sigv4.SignRequestInput{Request: req, PayloadHash: sum[:], Credentials: b.creds,
		Service: "s3", Region: b.region}); err != nil {
		return 0, fmt.Errorf("s3: sign: %w", err)
	}
	resp, err := b.client.Do(req)
	if err != nil {
		return 0, fmt.Errorf("s3: put %s: %w", key, err)
	}
	defer resp.Body.Close()
	io.Copy(io.Discard, io.LimitReader(resp.Body, 64<<10))
	return resp.StatusCode, nil
}

func validBucket(name string) bool {
	if len(name) < 3 || len(name) > 63 || strings.Contains(name, "..") {
		return false
	}
	for i := 0; i < len(name); i++ {
		c := name[i]
		if !(c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '.' || c == '-') {
			return false
		}
	}
	return name[0] != '.' && name[0] != '-' && name[len(name)-1] != '.' && name[len(name)-1] != '-'
}
