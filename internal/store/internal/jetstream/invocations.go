package jetstream

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/fount-dev/fount/internal/model"
	"github.com/fount-dev/fount/internal/store/internal/kv"
	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
	"github.com/nats-io/nuid"
)

// Invocations on JetStream. Each is the one message of a subject of its
// own, inv.<source>.<random>, and its ID is the decimal stream sequence
// of that message: ids increase per store in enqueue order, as in bbolt,
// yet an enqueue is one publish that reads nothing and so never
// conflicts, however many nodes accept requests for one source at once.
// The id leads back to the message (a read by sequence), which tells the
// subject that a run's commit deletes.
const tblInvocations = "inv" // source, random → Invocation (its ID is the sequence)

// EnqueueInvocation stores inv and returns it with ID and EnqueuedAtMs
// assigned. JetStream acknowledges the publish once the stream's
// replicas stored it.
func (s *Engine) EnqueueInvocation(ctx context.Context, inv model.Invocation) (model.Invocation, error) {
	return s.enqueue(ctx, inv, nil)
}

// maxBoundedEnqueueTries bounds how often a bounded enqueue counts again
// because the queue changed between its count and its publish.
const maxBoundedEnqueueTries = 50

// EnqueueInvocationWithin is EnqueueInvocation refused with
// kv.ErrQueueFull when inv's target holds limit queued invocations
// already (limit <= 0: no bound). The count and the publish are one
// optimistic step, as a transaction's reads and commit are: the publish
// expects the queue's last message to be the one it saw before counting,
// and the server refuses it when an enqueue or a run's removal came
// between, which counts again. Unbounded enqueues read nothing and never
// conflict.
func (s *Engine) EnqueueInvocationWithin(ctx context.Context, inv model.Invocation, limit int) (model.Invocation, error) {
	if limit <= 0 {
		return s.EnqueueInvocation(ctx, inv)
	}
	queue := s.key(tblInvocations, inv.TargetID) + ".*"
	for range maxBoundedEnqueueTries {
		var last uint64
		msg, err := s.stream.GetLastMsgForSubject(ctx, queue)
		switch {
		case err == nil:
			last = msg.Sequence
		case !errors.Is(err, jetstream.ErrMsgNotFound):
			return model.Invocation{}, fmt.Errorf("store: enqueue invocation for %q: %w", inv.TargetID, err)
		}
		n, err := s.CountPending(ctx, inv.TargetID, limit)
		if err != nil {
			return model.Invocation{}, err
		}
		if n >= limit {
			return model.Invocation{}, fmt.Errorf("store: enqueue invocation for %q: %w", inv.TargetID, kv.ErrQueueFull)
		}
		out, err := s.enqueue(ctx, inv, func(h nats.Header) {
			h.Set(hdrExpectedSubject, queue)
			h.Set(hdrExpectedSeq, strconv.FormatUint(last, 10))
		})
		var apiErr *jetstream.APIError
		if errors.As(err, &apiErr) && conflict(apiErr.ErrorCode) {
			continue // the queue changed since it was counted
		}
		return out, err
	}
	return model.Invocation{}, fmt.Errorf("store: enqueue invocation for %q: the queue changed %d times while its bound was checked; try again",
		inv.TargetID, maxBoundedEnqueueTries)
}

// enqueue publishes inv, with the headers expect sets when not nil.
func (s *Engine) enqueue(ctx context.Context, inv model.Invocation, expect func(nats.Header)) (model.Invocation, error) {
	if inv.TargetID == "" {
		return model.Invocation{}, errors.New("store: enqueue invocation: empty source id")
	}
	inv.ID, inv.EnqueuedAtMs = "", s.now().UnixMilli()
	data, err := json.Marshal(inv)
	if err != nil {
		return model.Invocation{}, fmt.Errorf("store: enqueue invocation for %q: %w", inv.TargetID, err)
	}
	// The message's id lets a publish whose answer was lost be sent
	// again: the server answers the copy with the first one's sequence.
	msg := nats.NewMsg(s.key(tblInvocations, inv.TargetID, nuid.Next()))
	msg.Data = data
	msg.Header.Set(jetstream.MsgIDHeader, nuid.Next())
	if expect != nil {
		expect(msg.Header)
	}
	var ack *jetstream.PubAck
	err = s.retry(ctx, func() error {
		var err error
		ack, err = s.js.PublishMsg(ctx, msg)
		return err
	})
	if err != nil {
		return model.Invocation{}, fmt.Errorf("store: enqueue invocation for %q: %w", inv.TargetID, err)
	}
	inv.ID = kv.SeqID(ack.Sequence)
	return inv, nil
}

// putInvocation queues inv in tx, for a run's routed events; its ID is
// known once the batch is stored, and nobody needs it before.
func (s *Engine) putInvocation(tx *jsTx, nowMs int64, inv model.Invocation) (int, error) {
	if inv.TargetID == "" {
		return 0, errors.New("empty source id")
	}
	inv.ID, inv.EnqueuedAtMs = "", nowMs
	data, err := json.Marshal(inv)
	if err != nil {
		return 0, fmt.Errorf("encode invocation: %w", err)
	}
	tx.put(s.key(tblInvocations, inv.TargetID, nuid.Next()), data)
	return len(data), nil
}

// PendingInvocations returns up to limit (<= 0: 100) queued invocations
// of sourceID, oldest first.
func (s *Engine) PendingInvocations(ctx context.Context, sourceID string, limit int) ([]model.Invocation, error) {
	if limit <= 0 {
		limit = kv.DefaultQueueLimit
	}
	out := []model.Invocation{}
	if sourceID == "" {
		return out, nil
	}
	// The oldest first, and no more: a deep queue is read a batch at a
	// time.
	entries, err := s.scanFirst(ctx, s.key(tblInvocations, sourceID)+".*", limit)
	if err != nil {
		return nil, fmt.Errorf("store: pending invocations of %q: %w", sourceID, err)
	}
	for _, e := range entries {
		var inv model.Invocation
		if err := json.Unmarshal(e.value, &inv); err != nil {
			return nil, fmt.Errorf("store: pending invocations of %q: decode %s: %w", sourceID, e.subject, err)
		}
		inv.ID = kv.SeqID(e.seq)
		out = append(out, inv)
		s.queued.remember(e.seq, e.subject)
	}
	return out, nil
}

// CountPending counts sourceID's queued invocations, up to limit. It
// reads them, as PendingInvocations does: JetStream keeps no count of a
// subject wildcard's messages.
func (s *Engine) CountPending(ctx context.Context, sourceID string, limit int) (int, error) {
	if sourceID == "" || limit <= 0 {
		return 0, nil
	}
	entries, err := s.scanFirst(ctx, s.key(tblInvocations, sourceID)+".*", limit)
	if err != nil {
		return 0, fmt.Errorf("store: count pending invocations of %q: %w", sourceID, err)
	}
	return len(entries), nil
}

// TargetsWithPending lists the sources and workflows that have queued
// invocations, in byte order of the id, each named by one of its queued
// invocations. The targets come from the stream's index of subjects,
// which also holds, for a second or so, the deletion markers of
// invocations that ran; each is then asked whether it has one still
// queued.
func (s *Engine) TargetsWithPending(ctx context.Context) ([]model.Target, error) {
	subjects, err := s.listSubjects(ctx, s.key(tblInvocations)+".>")
	if err != nil {
		return nil, fmt.Errorf("store: targets with pending invocations: %w", err)
	}
	var candidates []string
	for _, subject := range subjects {
		parts, err := s.keyParts(tblInvocations, subject)
		if err != nil || len(parts) != 2 {
			return nil, fmt.Errorf("store: targets with pending invocations: key %s: %w", subject, err)
		}
		candidates = append(candidates, parts[0])
	}
	slices.Sort(candidates)
	out := []model.Target{}
	for _, id := range slices.Compact(candidates) {
		queued, err := s.aQueued(ctx, id)
		if err != nil {
			return nil, fmt.Errorf("store: targets with pending invocations: %w", err)
		}
		if queued == nil {
			continue
		}
		var inv model.Invocation
		if err := json.Unmarshal(queued, &inv); err != nil {
			return nil, fmt.Errorf("store: targets with pending invocations: decode an invocation of %s: %w", id, err)
		}
		out = append(out, inv.Target())
	}
	return out, nil
}

// aQueued returns one of targetID's queued invocations, or nil when it
// has none. The last message of its queue is one at once, as it is for
// a busy target; a deletion marker there leaves it to a scan, which
// passes over the markers of the last second or so.
func (s *Engine) aQueued(ctx context.Context, targetID string) ([]byte, error) {
	filter := s.key(tblInvocations, targetID) + ".*"
	var last *jetstream.RawStreamMsg
	err := s.retry(ctx, func() error {
		var err error
		last, err = s.stream.GetLastMsgForSubject(ctx, filter)
		return err
	})
	switch {
	case errors.Is(err, jetstream.ErrMsgNotFound):
		return nil, nil
	case err != nil:
		return nil, fmt.Errorf("read %s: %w", filter, err)
	case last.Header.Get(hdrOperation) != opDelete:
		return last.Data, nil
	}
	first, err := s.scanFirst(ctx, filter, 1)
	if err != nil || len(first) == 0 {
		return nil, err
	}
	return first[0].value, nil
}

// invocationKey returns the subject of the queued invocation inv, read
// in tx, or kv.ErrNotFound when it is not queued (completed, or never was).
// The subject of an invocation PendingInvocations read is known without
// a read: tx then expects the revision inv.ID names, and a commit whose
// invocation is gone by then conflicts and runs again reading it.
func (s *Engine) invocationKey(tx *jsTx, inv model.Invocation) (string, error) {
	seq, ok := kv.ParseSeqID(inv.ID)
	if inv.TargetID == "" || !ok {
		return "", kv.ErrNotFound
	}
	prefix := s.key(tblInvocations, inv.TargetID) + "."
	if subject, ok := tx.invocations[seq]; ok && strings.HasPrefix(subject, prefix) {
		return subject, nil // found before in tx: a run's commit asks twice
	}
	if subject, ok := s.queued.subject(seq); ok && strings.HasPrefix(subject, prefix) {
		tx.invocations[seq] = subject
		tx.saw(subject, seq)
		tx.queued = append(tx.queued, seq)
		return subject, nil
	}
	var msg *jetstream.RawStreamMsg
	err := s.retry(tx.ctx, func() error {
		var err error
		msg, err = s.stream.GetMsg(tx.ctx, seq)
		return err
	})
	if errors.Is(err, jetstream.ErrMsgNotFound) {
		return "", kv.ErrNotFound
	}
	if err != nil {
		return "", fmt.Errorf("read invocation %s: %w", inv.ID, err)
	}
	// The message at seq is the invocation only if it is one of the
	// source's: any other id must not alias another record.
	if !strings.HasPrefix(msg.Subject, prefix) || msg.Header.Get(hdrOperation) == opDelete {
		return "", kv.ErrNotFound
	}
	tx.saw(msg.Subject, seq)
	tx.invocations[seq] = msg.Subject
	return msg.Subject, nil
}

// queuedKeys remembers the subjects of invocations PendingInvocations
// read, by their sequence, so that their runs' commits need not read
// them again. It is a cache: an entry is forgotten once a transaction
// used it, whatever its commit's outcome, and all of them when it holds
// maxQueuedKeys (those of invocations whose runs never came).
type queuedKeys struct {
	mu   sync.Mutex
	keys map[uint64]string
}

// maxQueuedKeys bounds the subjects queuedKeys holds: 256 batches of
// 256 runs, a few MiB.
const maxQueuedKeys = 1 << 16

func (q *queuedKeys) remember(seq uint64, subject string) {
	q.mu.Lock()
	defer q.mu.Unlock()
	if q.keys == nil || len(q.keys) >= maxQueuedKeys {
		q.keys = make(map[uint64]string)
	}
	q.keys[seq] = subject
}

func (q *queuedKeys) subject(seq uint64) (string, bool) {
	q.mu.Lock()
	defer q.mu.Unlock()
	subject, ok := q.keys[seq]
	return subject, ok
}

func (q *queuedKeys) forget(seqs []uint64) {
	if len(seqs) == 0 {
		return
	}
	q.mu.Lock()
	defer q.mu.Unlock()
	for _, seq := range seqs {
		delete(q.keys, seq)
	}
}

// dequeue deletes the queued invocation inv in tx.
func (s *Engine) dequeue(tx *jsTx, inv model.Invocation) error {
	k, err := s.invocationKey(tx, inv)
	if err != nil {
		return err
	}
	tx.del(k)
	return nil
}
