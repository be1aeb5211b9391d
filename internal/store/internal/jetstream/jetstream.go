package jetstream

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"regexp"
	"strings"
	"sync/atomic"
	"time"

	"github.com/fount-dev/fount/internal/store/internal/kv"
	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
)

// Config says where a JetStream store lives. docs/nats.md maps
// fount's state onto it, and says why.
type Config struct {
	// URLs are the NATS servers, comma-separated nats:// URLs.
	URLs string
	// CredsFile is a NATS credentials file (a user JWT and its nkey);
	// Token is a token to authenticate with instead. Neither is logged.
	CredsFile string
	Token     string
	// Namespace names this deployment's stream (FOUNT_<namespace>) and
	// subjects (<namespace>.>), so several deployments, or several
	// tests, share one cluster. Letters, digits, '-' and '_'; "fount"
	// when empty.
	Namespace string
	// Replicas is how many servers hold the stream: 1 when 0, 3 on a
	// cluster of three or more.
	Replicas int
	// Name is this node's name for the NATS connection, seen in the
	// servers' monitoring.
	Name string
}

// namespacePattern is what a namespace may be: it becomes a subject
// token and part of a stream name.
var namespacePattern = regexp.MustCompile(`^[A-Za-z0-9_-]{1,32}$`)

// jsMinPayload is the smallest max_payload of the NATS servers that
// holds fount's largest records: an event of up to 4 MiB (the sandbox's
// bound of one emit) with its fields, and a db value of up to 1 MiB.
const jsMinPayload = 8 << 20

// jsTombstoneTTL is how long a deleted key's tombstone stays: the
// shortest TTL the server takes. A tombstone only has to replace the
// record's message, so that a transaction that read the record fails its
// revision check; once it expires the key reads as never written, which
// fails that check as well (revisions are stream sequences, never
// reused). Scans pass over tombstones, so they should not pile up.
const jsTombstoneTTL = time.Second

// Engine keeps fount's state in a NATS JetStream stream: the
// transactions the store's rules run in (kv.Engine) and what JetStream
// lays out its own way (the event log, the queues, the db, leases and
// heartbeats). Every record is the one message of its subject, and a
// write transaction is an atomic batch whose messages carry the revisions
// the transaction read (see tx.go, docs/nats.md).
type Engine struct {
	now    func() time.Time // the clock of event ids and queue times
	nc     *nats.Conn
	js     jetstream.JetStream
	stream jetstream.Stream
	name   string // the stream's name
	prefix string // the namespace, the first token of every subject
	// Bounds of a listener's deliveries, as in Bolt; tests change them.
	deliveriesKept, maxPendingDeliveries int
	// queued knows the subjects of invocations read for a run.
	queued queuedKeys
	// stopping is set once the node stops: from then on a lost
	// connection is closed instead of waited for.
	stopping atomic.Bool
}

// Open connects to the NATS servers of cfg and creates the stream of
// cfg's namespace unless it exists. now is the clock of event ids and
// queue times.
//
// # Errors
//
// Open fails when no server answers within the context, when
// the servers have no JetStream, or when the stream exists with a
// configuration that does not allow fount's transactions.
func Open(ctx context.Context, cfg Config, now func() time.Time) (*Engine, error) {
	ns := cfg.Namespace
	if ns == "" {
		ns = "fount"
	}
	if !namespacePattern.MatchString(ns) {
		return nil, fmt.Errorf("store: namespace %q: want 1 to 32 letters, digits, '-' or '_'", ns)
	}
	if strings.TrimSpace(cfg.URLs) == "" {
		return nil, errors.New("store: no NATS server URL")
	}
	s := &Engine{now: now, name: "FOUNT_" + ns, prefix: ns,
		deliveriesKept: kv.DeliveriesKept, maxPendingDeliveries: kv.MaxPendingDeliveries}
	nopts := []nats.Option{nats.Name(cfg.Name), nats.MaxReconnects(-1), nats.DisconnectErrHandler(s.disconnected)}
	if cfg.CredsFile != "" {
		nopts = append(nopts, nats.UserCredentials(cfg.CredsFile))
	}
	if cfg.Token != "" {
		nopts = append(nopts, nats.Token(cfg.Token))
	}
	nc, err := nats.Connect(cfg.URLs, nopts...)
	if err != nil {
		return nil, fmt.Errorf("store: connect to NATS: %w", err)
	}
	if max := nc.MaxPayload(); max < jsMinPayload {
		nc.Close()
		return nil, fmt.Errorf("store: the NATS servers take messages of %d bytes at most, and fount stores events of up to 4 MiB: set max_payload to 8MB in their configuration", max)
	}
	js, err := jetstream.New(nc)
	if err != nil {
		nc.Close()
		return nil, fmt.Errorf("store: JetStream: %w", err)
	}
	s.nc, s.js = nc, js
	if err := s.ensureStream(ctx, cfg.Replicas); err != nil {
		nc.Close()
		return nil, err
	}
	return s, nil
}

// ensureStream creates the stream or checks the one there.
func (s *Engine) ensureStream(ctx context.Context, replicas int) error {
	if replicas <= 0 {
		replicas = 1
	}
	want := jetstream.StreamConfig{
		Name:               s.name,
		Description:        "fount's state (docs/nats.md)",
		Subjects:           []string{s.prefix + ".>"},
		Storage:            jetstream.FileStorage,
		Replicas:           replicas,
		MaxMsgsPerSubject:  1,
		Discard:            jetstream.DiscardOld,
		AllowAtomicPublish: true,
		AllowMsgTTL:        true,
		// How long the ids of messages are remembered, to refuse a copy
		// sent again after a lost answer (see publishBatch).
		Duplicates: time.Minute,
	}
	var st jetstream.Stream
	err := s.retry(ctx, func() error {
		var err error
		st, err = s.js.CreateStream(ctx, want)
		if errors.Is(err, jetstream.ErrStreamNameAlreadyInUse) {
			st, err = s.js.Stream(ctx, s.name)
		}
		return placementPending(err)
	})
	if err != nil {
		return fmt.Errorf("store: stream %s: %w", s.name, err)
	}
	got := st.CachedInfo().Config
	if got.MaxMsgsPerSubject != 1 || got.AllowDirect || !got.AllowAtomicPublish || !got.AllowMsgTTL {
		return fmt.Errorf("store: stream %s exists with another configuration: it needs one message per subject, reads from the leader, atomic publish and message TTLs", s.name)
	}
	s.stream = st
	return nil
}

// placementPending makes a refusal to place the stream's replicas a
// transient error. A cluster whose servers start alongside fount has a
// meta leader before it has heard from every peer, and refuses a
// replicated stream ("no suitable peers for placement, peer offline")
// until it has: nodes started together with their NATS servers would
// otherwise fail at start. Too many replicas for the cluster fails the
// same way, once jsTransientWait has passed.
func placementPending(err error) error {
	var apiErr *jetstream.APIError
	if errors.As(err, &apiErr) && apiErr.ErrorCode == jsErrClusterNoPeers {
		return errPlacementPending{err}
	}
	return err
}

// errPlacementPending is a stream creation refused for want of peers.
type errPlacementPending struct{ err error }

func (e errPlacementPending) Error() string { return e.err.Error() }
func (e errPlacementPending) Unwrap() error { return e.err }

// Stopping tells the store that the node stops. A connection lost from
// then on, or lost already, is closed instead of waited for: what waits
// on it fails at once, rather than after the 20 s a commit waits for a
// server to come back. A commit that fails so is no commit: its
// invocations stay queued for the node that takes its work over, or for
// this one once it starts again.
func (s *Engine) Stopping() {
	s.stopping.Store(true)
	if !s.nc.IsConnected() {
		s.nc.Close()
	}
}

// disconnected closes a connection lost while the node stops (see
// Stopping); otherwise nats.go reconnects, and the store waits for it.
func (s *Engine) disconnected(nc *nats.Conn, _ error) {
	if s.stopping.Load() {
		nc.Close()
	}
}

// Close closes the connection, after what was published is flushed.
func (s *Engine) Close() error {
	defer s.nc.Close()
	if !s.nc.IsConnected() {
		return nil // nothing to flush to: what is unsent is no commit (commits wait for their acknowledgement)
	}
	if err := s.nc.FlushTimeout(2 * time.Second); err != nil && !errors.Is(err, nats.ErrConnectionClosed) {
		return fmt.Errorf("store: close NATS connection: %w", err)
	}
	return nil
}

var _ kv.Engine = (*Engine)(nil)

// Ping checks that the stream's leader answers.
func (s *Engine) Ping(ctx context.Context) error {
	if _, err := s.stream.Info(ctx); err != nil {
		return fmt.Errorf("store: stream %s: %w", s.name, err)
	}
	return nil
}

// QueueDepths counts the queued invocations and the pending deliveries,
// for metrics. The invocations are counted by the stream's leader, as
// the subjects that hold a message: a run's invocation is deleted by a
// marker that the server removes a second later, so the count also holds
// the invocations run in the last second or so. Reading each queued
// record instead costs the store as much as running them.
func (s *Engine) QueueDepths(ctx context.Context) (invocations, deliveries int, err error) {
	invocations, err = s.countSubjects(ctx, s.key(tblInvocations)+".>")
	if err != nil {
		return 0, 0, err
	}
	backlogs, err := s.scan(ctx, s.key(tblDeliveryDue)+".*")
	if err != nil {
		return 0, 0, err
	}
	for _, e := range backlogs {
		var b jsBacklog
		if err := json.Unmarshal(e.value, &b); err != nil {
			return 0, 0, fmt.Errorf("store: backlog %s: %w", e.subject, err)
		}
		deliveries += len(b.Items)
	}
	return invocations, deliveries, nil
}

// countSubjects asks the stream's leader how many subjects of filter hold
// a message (deletion markers included). It asks for the page of the
// subjects past the last one, a request nats.go does not make: the
// answer holds their number, not them.
func (s *Engine) countSubjects(ctx context.Context, filter string) (int, error) {
	req, err := json.Marshal(struct {
		Filter string `json:"subjects_filter"`
		Offset int    `json:"offset"`
	}{filter, math.MaxInt32})
	if err != nil {
		return 0, err
	}
	var page struct {
		Total int                 `json:"total"`
		Error *jetstream.APIError `json:"error"`
	}
	err = s.retry(ctx, func() error {
		msg, err := s.nc.RequestWithContext(ctx, "$JS.API.STREAM.INFO."+s.name, req)
		if err != nil {
			return err
		}
		page.Total, page.Error = 0, nil
		if err := json.Unmarshal(msg.Data, &page); err != nil {
			return err
		}
		if page.Error != nil {
			return page.Error // transient ones (no leader yet) are tried again
		}
		return nil
	})
	if err != nil {
		return 0, fmt.Errorf("store: count %s: %w", filter, err)
	}
	return page.Total, nil
}

// listSubjects asks the stream's leader for the subjects of filter that
// hold a message (deletion markers included): the server reads them from
// its index of subjects, which costs far less than reading their
// messages.
func (s *Engine) listSubjects(ctx context.Context, filter string) ([]string, error) {
	var info *jetstream.StreamInfo
	err := s.retry(ctx, func() error {
		var err error
		info, err = s.stream.Info(ctx, jetstream.WithSubjectFilter(filter))
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("store: subjects of %s: %w", filter, err)
	}
	out := make([]string, 0, len(info.State.Subjects))
	for subject := range info.State.Subjects {
		out = append(out, subject)
	}
	return out, nil
}
