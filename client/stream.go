package client

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/fount-dev/fount/apiv1"
)

// FromStart makes Follow replay every retained event first.
const FromStart = "0-0"

// Follow streams a source's (or a workflow's) channel's events after the event id after
// (FromStart for all retained ones) to fn until ctx ends, reconnecting with
// Last-Event-ID after a dropped connection so that no retained event is
// missed. It returns fn's error, or ctx's.
func (c *Client) Follow(ctx context.Context, sourceID, channel, after string, fn func(apiv1.EventSummary) error) error {
	last := after
	backoff := 200 * time.Millisecond
	for {
		err := c.followOnce(ctx, sourceID, channel, &last, fn)
		if ctx.Err() != nil {
			return ctx.Err()
		}
		if _, isAPI := err.(*APIError); isAPI {
			return err
		}
		if fnErr, ok := err.(callbackError); ok {
			return fnErr.err
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(backoff):
		}
		backoff = min(backoff*2, 5*time.Second)
	}
}

type callbackError struct{ err error }

func (e callbackError) Error() string { return e.err.Error() }

func (c *Client) followOnce(ctx context.Context, sourceID, channel string, last *string, fn func(apiv1.EventSummary) error) error {
	q := url.Values{}
	if channel != "" {
		q.Set("event_name", channel)
	}
	u := c.BaseURL + "/v1" + emitterPath(sourceID) + "/sse"
	if len(q) > 0 {
		u += "?" + q.Encode()
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		return err
	}
	req.Header.Set("Authorization", "Bearer "+c.Key)
	req.Header.Set("Accept", "text/event-stream")
	if *last != "" {
		req.Header.Set("Last-Event-ID", *last)
	}
	stream := &http.Client{Transport: c.HTTP.Transport} // no overall timeout on a stream
	resp, err := stream.Do(req)
	if err != nil {
		return fmt.Errorf("%w at %s: %v", ErrUnreachable, c.BaseURL, err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		var shape struct {
			Error *APIError `json:"error"`
		}
		if json.NewDecoder(resp.Body).Decode(&shape) == nil && shape.Error != nil {
			shape.Error.Status = resp.StatusCode
			return shape.Error
		}
		return &APIError{Status: resp.StatusCode, ErrorBody: apiv1.ErrorBody{Code: "http_error", Message: "the server answered " + resp.Status}}
	}
	sc := bufio.NewScanner(resp.Body)
	sc.Buffer(make([]byte, 64<<10), 8<<20)
	var id, name, data string
	for sc.Scan() {
		line := sc.Text()
		switch {
		case strings.HasPrefix(line, "id: "):
			id = strings.TrimPrefix(line, "id: ")
		case strings.HasPrefix(line, "event: "):
			name = strings.TrimPrefix(line, "event: ")
		case strings.HasPrefix(line, "data: "):
			data = strings.TrimPrefix(line, "data: ")
		case line == "" && data != "" && name != "" && name != "event":
			id, name, data = "", "", "" // a workflow's $.send.sse message, not a stored event
		case line == "" && data != "":
			var ev apiv1.EventSummary
			if err := json.Unmarshal([]byte(data), &ev); err == nil {
				if err := fn(ev); err != nil {
					return callbackError{err}
				}
			}
			if id != "" {
				*last = id
			}
			id, name, data = "", "", ""
		}
	}
	return fmt.Errorf("stream ended: %v", sc.Err())
}
