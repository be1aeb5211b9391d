package delivery

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/fount-dev/fount/abi"
	"github.com/fount-dev/fount/internal/model"
	"github.com/fount-dev/fount/webhook"
)

// Fetch performs a delivery's POST: the egress policy's Fetch.
type Fetch func(context.Context, abi.FetchRequest) (abi.FetchResponse, error)

// ObjectSink is the operator's bucket, which workflows' $.send.s3 writes
// to (an *s3.Bucket).
type ObjectSink interface {
	// Name is the bucket's name.
	Name() string
	// Put writes body under key and returns the server's status.
	Put(ctx context.Context, key string, body []byte) (int, error)
}

// ChannelSendS3 is the channel of $.send.s3's deliveries, which are of
// kind model.DeliverySendS3: their Request's URL is the object's key,
// its Body the object.
const ChannelSendS3 = model.ChannelSendS3

// WebhookSender is the Sender of a server: a POST through fetch
// (the egress policy) with Standard Webhooks headers, 10 s at most; a
// workflow's $.send.http request as it was given; a $.send.s3 object
// written to objects.
func WebhookSender(fetch Fetch, objects ObjectSink) Sender {
	return func(ctx context.Context, hook *model.Webhook, dl model.Delivery, at time.Time) (int, error) {
		kind := dl.What()
		if kind != model.DeliveryToWebhook && dl.Request == nil {
			return 0, fmt.Errorf("a %s delivery without its request", kind)
		}
		if kind == model.DeliverySendS3 {
			if objects == nil {
				return 0, errors.New("$.send.s3: the server no longer has a bucket configured (--s3-endpoint)")
			}
			ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
			defer cancel()
			return objects.Put(ctx, dl.Request.URL, []byte(dl.Request.Body))
		}
		if fetch == nil {
			return 0, errors.New("the server has no egress policy for webhooks")
		}
		if kind == model.DeliverySendHTTP {
			return sendRequest(ctx, fetch, *dl.Request)
		}
		ts := strconv.FormatInt(at.Unix(), 10)
		sig, err := webhook.Sign(hook.SigningSecret, dl.ID, ts, dl.Payload)
		if err != nil {
			return 0, err
		}
		if hook.PreviousSecret != "" && at.UnixMilli() < hook.PreviousUntilMs {
			// Both keys sign while a rotation overlaps, space-separated as
			// Standard Webhooks allows; a receiver accepts either.
			if prev, err := webhook.Sign(hook.PreviousSecret, dl.ID, ts, dl.Payload); err == nil {
				sig += " " + prev
			}
		}
		ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
		defer cancel()
		res, err := fetch(ctx, abi.FetchRequest{
			URL: hook.URL, Method: http.MethodPost, Body: string(dl.Payload),
			Headers: map[string]string{
				"Content-Type": "application/json", "User-Agent": "fount-webhooks",
				"webhook-id": dl.ID, "webhook-timestamp": ts, "webhook-signature": sig,
				HeaderEmitter: dl.EmitterID, HeaderChannel: dl.Channel,
			},
		})
		if err != nil {
			return 0, err
		}
		return res.Status, nil
	}
}

// sendRequest makes a workflow's $.send.http request as it was given,
// 10 s at most.
func sendRequest(ctx context.Context, fetch Fetch, req model.DeliveryRequest) (int, error) {
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	headers := map[string]string{"User-Agent": "fount-workflows"}
	typed := false
	for k, v := range req.Headers {
		headers[k] = v
		typed = typed || strings.EqualFold(k, "Content-Type")
	}
	if !typed && req.Body != "" {
		headers["Content-Type"] = "application/json"
	}
	res, err := fetch(ctx, abi.FetchRequest{URL: req.URL, Method: req.Method, Headers: headers, Body: req.Body})
	if err != nil {
		return 0, err
	}
	return res.Status, nil
}
