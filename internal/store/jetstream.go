package store

import (
	"context"

	"github.com/fount-dev/fount/internal/store/internal/jetstream"
)

// JetStream is the Store and Queues on a NATS JetStream stream: the rules
// over the JetStream engine (store/internal/jetstream), which several
// nodes share. It is safe for concurrent use.
type JetStream struct {
	rules
	*jetstream.Engine
}

var (
	_ Store  = (*JetStream)(nil)
	_ Queues = (*JetStream)(nil)
	_ Shared = (*JetStream)(nil)
)

// JetStreamConfig says where a JetStream store lives (see
// jetstream.Config).
type JetStreamConfig = jetstream.Config

// OpenJetStream connects to the NATS servers of cfg and creates the
// stream of cfg's namespace unless it exists.
//
// # Errors
//
// OpenJetStream fails when no server answers within the context, when
// the servers have no JetStream, or when the stream exists with a
// configuration that does not allow fount's transactions.
func OpenJetStream(ctx context.Context, cfg JetStreamConfig, opts ...Option) (*JetStream, error) {
	o := applyOptions(opts)
	e, err := jetstream.Open(ctx, cfg, o.now)
	if err != nil {
		return nil, err
	}
	js := &JetStream{rules: rules{kv: e, limits: o.limits, now: o.now, statsKept: o.statsKept}, Engine: e}
	if err := js.movePaused(ctx, js, o.log); err != nil {
		e.Close()
		return nil, err
	}
	return js, nil
}
