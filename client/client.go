// Package client is the Go client of fount's REST API (/v1). The fount CLI
// is built on it, and so can other Go programs.
package client

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/fount-dev/fount/apiv1"
)

// Client talks to one fount server with one API key.
type Client struct {
	BaseURL string // e.g. http://127.0.0.1:8080, without /v1
	Key     string
	HTTP    *http.Client
}

// New returns a Client with a default HTTP client.
func New(baseURL, key string) *Client {
	return &Client{BaseURL: strings.TrimRight(baseURL, "/"), Key: key, HTTP: &http.Client{Timeout: 60 * time.Second}}
}

// APIError is an error answered by the server in the API's error shape,
// with the HTTP status it came with.
type APIError struct {
	Status int `json:"-"`
	apiv1.ErrorBody
}

func (e *APIError) Error() string {
	if e.Param != "" {
		return fmt.Sprintf("%s (%s, parameter %s)", e.Message, e.Code, e.Param)
	}
	return fmt.Sprintf("%s (%s)", e.Message, e.Code)
}

// ErrUnreachable wraps every failure to reach the server at all.
var ErrUnreachable = errors.New("cannot reach the fount server")

// Do sends a request to /v1+path with query and a JSON body (nil for
// none) and decodes the "data" of a success into out (nil to skip). It
// returns the raw response body too, for callers that print it as is.
func (c *Client) Do(ctx context.Context, method, path string, query url.Values, body, out any) ([]byte, error) {
	var rd io.Reader
	if body != nil {
		b, err := json.Marshal(body)
		if err != nil {
			return nil, err
		}
		rd = bytes.NewReader(b)
	}
	u := c.BaseURL + "/v1" + path
	if len(query) > 0 {
		u += "?" + query.Encode()
	}
	req, err := http.NewRequestWithContext(ctx, method, u, rd)
	if err != nil {
		return nil, err
	}
	req.Header.Set("Authorization", "Bearer "+c.Key)
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	resp, err := c.HTTP.Do(req)
	if err != nil {
		return nil, fmt.Errorf("%w at %s: %v", ErrUnreachable, c.BaseURL, err)
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(resp.Body)
	if err != nil {
		return nil, fmt.Errorf("%w at %s: %v", ErrUnreachable, c.BaseURL, err)
	}
	if resp.StatusCode >= 400 {
		var shape struct {
			Error *APIError `json:"error"`
		}
		if json.Unmarshal(raw, &shape) == nil && shape.Error != nil {
			shape.Error.Status = resp.StatusCode
			return raw, shape.Error
		}
		return raw, &APIError{Status: resp.StatusCode, ErrorBody: apiv1.ErrorBody{Code: "http_error", Message: fmt.Sprintf("the server answered %s", resp.Status)}}
	}
	if out != nil && len(raw) > 0 {
		var env struct {
			Data json.RawMessage `json:"data"`
		}
		if err := json.Unmarshal(raw, &env); err != nil {
			return raw, fmt.Errorf("client: decode %s %s: %w", method, path, err)
		}
		if err := json.Unmarshal(env.Data, out); err != nil {
			return raw, fmt.Errorf("client: decode %s %s: %w", method, path, err)
		}
	}
	return raw, nil
}

// IsStatus reports whether err is an API error with that HTTP status.
func IsStatus(err error, status int) bool {
	var e *APIError
	return errors.As(err, &e) && e.Status == status
}

// Backup streams the server's backup (GET /v1/backup, owner only) to w.
// It has no time limit of its own: a large store takes a while.
func (c *Client) Backup(ctx context.Context, w io.Writer) (int64, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, c.BaseURL+"/v1/backup", nil)
	if err != nil {
		return 0, err
	}
	req.Header.Set("Authorization", "Bearer "+c.Key)
	hc := *c.HTTP
	hc.Timeout = 0
	resp, err := hc.Do(req)
	if err != nil {
		return 0, fmt.Errorf("%w at %s: %v", ErrUnreachable, c.BaseURL, err)
	}
	defer resp.Body.Close()
	if resp.StatusCode >= 400 {
		raw, _ := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
		var shape struct {
			Error *APIError `json:"error"`
		}
		if json.Unmarshal(raw, &shape) == nil && shape.Error != nil {
			shape.Error.Status = resp.StatusCode
			return 0, shape.Error
		}
		return 0, &APIError{Status: resp.StatusCode, ErrorBody: apiv1.ErrorBody{Code: "http_error", Message: fmt.Sprintf("the server answered %s", resp.Status)}}
	}
	return io.Copy(w, resp.Body)
}
