package jetstream

import (
	"context"
	"crypto/sha256"
	"encoding/base64"
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/fount-dev/fount/internal/store/internal/kv"
	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
	"github.com/nats-io/nuid"
)

// Headers of the messages of a transaction. The Nats- ones are
// JetStream's; KV-Operation is what JetStream's KV writes for a delete,
// so that NATS tools show fount's tombstones as deletes.
const (
	hdrExpectedSeq     = "Nats-Expected-Last-Subject-Sequence"
	hdrExpectedSubject = "Nats-Expected-Last-Subject-Sequence-Subject"
	hdrBatchID         = "Nats-Batch-Id"
	hdrBatchSeq        = "Nats-Batch-Sequence"
	hdrBatchCommit     = "Nats-Batch-Commit"
	hdrTTL             = "Nats-TTL"
	hdrOperation       = "KV-Operation"
	opDelete           = "DEL"
)

// jsMaxBatch is the most messages one transaction may write: the
// server's default bound of an atomic batch.
const jsMaxBatch = 1000

// jsMaxAttempts bounds how often update retries a transaction that lost
// a race; each retry waits a little longer, at random.
const jsMaxAttempts = 40

// jsTransientWait bounds how long a request is retried while JetStream
// cannot answer it: long enough for a cluster to elect a new leader after
// a server is lost.
const jsTransientWait = 20 * time.Second

// transient reports whether err is JetStream briefly unable to answer (a
// leader being elected, a server gone, a request lost): the same request
// may succeed in a moment.
func transient(err error) bool {
	var apiErr *jetstream.APIError
	switch {
	case errors.As(err, new(errPlacementPending)):
		return true
	case errors.Is(err, nats.ErrNoResponders), errors.Is(err, nats.ErrTimeout),
		errors.Is(err, jetstream.ErrNoStreamResponse), errors.Is(err, nats.ErrConnectionReconnecting):
		return true
	case errors.As(err, &apiErr):
		return apiErr.Code == 503 || apiErr.ErrorCode == jsErrClusterNotAvailable || apiErr.ErrorCode == jsErrClusterNotLeader ||
			apiErr.ErrorCode == jsErrDuplicateInProcess
	}
	return false
}

// retry calls fn until it returns an error that is not transient, ctx
// ends, or jsTransientWait has passed.
func (s *Engine) retry(ctx context.Context, fn func() error) error {
	deadline := time.Now().Add(jsTransientWait)
	wait := 25 * time.Millisecond
	for {
		err := fn()
		// A request nats.go gave up on (its own timeout, not ctx's) is
		// worth another try as well.
		timedOut := errors.Is(err, context.DeadlineExceeded) && ctx.Err() == nil
		if err == nil || !(transient(err) || timedOut) || time.Now().After(deadline) {
			return err
		}
		select {
		case <-ctx.Done():
			return errors.Join(err, ctx.Err())
		case <-time.After(wait):
		}
		wait = min(2*wait, time.Second)
	}
}

// errTxConflict is a commit refused because a key the transaction read
// changed since: the transaction runs again.
var errTxConflict = errors.New("store: transaction conflict")

// jsTx is one transaction: what it read, with the revision (stream
// sequence) of each key then, and what it will write. Its commit is one
// atomic batch in which every key read carries its revision, so the batch
// is refused if any of them changed: optimistic concurrency, with no
// read-modify-write race.
type jsTx struct {
	s    *Engine
	ctx  context.Context
	read map[string]uint64 // subject → revision read; 0: absent
	// values holds what get read, so that a key read again in the
	// transaction (a batch of runs reads a channel's record once per
	// run) costs no request, and every read sees the revision the
	// commit checks.
	values map[string]jsRead
	write  map[string]jsWrite
	order  []string // subjects of write, in the order written
	// queued are the sequences of invocations whose subjects came from
	// s.queued: forgotten there once the transaction ends.
	queued []uint64
	// invocations are the subjects invocationKey found, by sequence.
	invocations map[uint64]string
	// afterCommit runs, in order, once the transaction has committed:
	// work too large for one batch (purging a listener's deliveries).
	afterCommit []func(ctx context.Context) error
}

// jsRead is a record as a transaction read it.
type jsRead struct {
	value []byte
	found bool
}

type jsWrite struct {
	value   []byte
	deleted bool
	ttl     time.Duration // > 0: the server removes the record after it
}

// key is the subject of a record: the namespace, a table name, and each
// part encoded so that any string (an id from a URL, a user's db key) is
// one token that can be neither a wildcard nor a separator.
func (s *Engine) key(table string, parts ...string) string {
	var b strings.Builder
	b.WriteString(s.prefix)
	b.WriteByte('.')
	b.WriteString(table)
	for _, p := range parts {
		b.WriteByte('.')
		b.WriteString(token(p))
	}
	return b.String()
}

// jsMaxTokenPart is the longest part a key holds as it is: a longer one
// (a component key, a channel name, which nothing bounds) is held as its
// hash, so that no request can make a subject past the server's limit of
// a protocol line, which would drop the connection.
const jsMaxTokenPart = 512

// token encodes one part of a key: "_" and the unpadded base64url of it,
// or, for a part longer than jsMaxTokenPart, "~" and that of its sha256.
func token(part string) string {
	if len(part) > jsMaxTokenPart {
		sum := sha256.Sum256([]byte(part))
		return "~" + base64.RawURLEncoding.EncodeToString(sum[:])
	}
	return "_" + base64.RawURLEncoding.EncodeToString([]byte(part))
}

// errHashedPart is untoken's answer for a part held as its hash.
var errHashedPart = errors.New("store: a key part too long to hold is held as its hash")

// untoken decodes what token encoded.
func untoken(tok string) (string, error) {
	if strings.HasPrefix(tok, "~") {
		return "", errHashedPart
	}
	rest, ok := strings.CutPrefix(tok, "_")
	if !ok {
		return "", fmt.Errorf("store: key token %q: no leading _", tok)
	}
	b, err := base64.RawURLEncoding.DecodeString(rest)
	if err != nil {
		return "", fmt.Errorf("store: key token %q: %w", tok, err)
	}
	return string(b), nil
}

// keyParts decodes the parts of a key of table, as key encoded them.
func (s *Engine) keyParts(table, subject string) ([]string, error) {
	rest, ok := strings.CutPrefix(subject, s.prefix+"."+table+".")
	if !ok {
		return nil, fmt.Errorf("store: key %q is not of %s", subject, table)
	}
	toks := strings.Split(rest, ".")
	out := make([]string, len(toks))
	for i, t := range toks {
		p, err := untoken(t)
		if err != nil {
			return nil, err
		}
		out[i] = p
	}
	return out, nil
}

// view runs fn on a transaction that writes nothing.
func (s *Engine) view(ctx context.Context, fn func(tx *jsTx) error) error {
	tx := s.begin(ctx)
	if err := fn(tx); err != nil {
		return err
	}
	if len(tx.order) > 0 {
		return errors.New("store: a read-only transaction wrote")
	}
	return nil
}

// update runs fn on a transaction and commits what it wrote, running it
// again while another transaction changed what it read. fn must have no
// effect but on tx.
func (s *Engine) update(ctx context.Context, fn func(tx *jsTx) error) error {
	wait := time.Millisecond
	for attempt := 1; ; attempt++ {
		tx := s.begin(ctx)
		err := fn(tx)
		if err == nil {
			err = tx.commit(ctx)
		}
		s.queued.forget(tx.queued)
		if err == nil {
			return tx.runAfterCommit(ctx)
		}
		if !errors.Is(err, errTxConflict) {
			return err
		}
		if attempt == jsMaxAttempts {
			return fmt.Errorf("store: gave up after %d conflicting attempts: %w", attempt, err)
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(wait/2 + rand.N(wait)):
		}
		wait = min(2*wait, 100*time.Millisecond)
	}
}

// runAfterCommit runs what the committed tx left for after its commit,
// stopping at the first error.
func (tx *jsTx) runAfterCommit(ctx context.Context) error {
	for _, fn := range tx.afterCommit {
		if err := fn(ctx); err != nil {
			return err
		}
	}
	return nil
}

func (s *Engine) begin(ctx context.Context) *jsTx {
	return &jsTx{s: s, ctx: ctx, read: map[string]uint64{}, values: map[string]jsRead{}, write: map[string]jsWrite{},
		invocations: map[uint64]string{}}
}

// get reads the record of subject: what this transaction wrote, or what
// is stored. found is false when there is none.
func (tx *jsTx) get(subject string) (value []byte, found bool, err error) {
	if w, ok := tx.write[subject]; ok {
		return w.value, !w.deleted, nil
	}
	if r, ok := tx.values[subject]; ok {
		return r.value, r.found, nil
	}
	var msg *jetstream.RawStreamMsg
	err = tx.s.retry(tx.ctx, func() error {
		var err error
		msg, err = tx.s.stream.GetLastMsgForSubject(tx.ctx, subject)
		return err
	})
	if errors.Is(err, jetstream.ErrMsgNotFound) {
		tx.saw(subject, 0)
		tx.values[subject] = jsRead{}
		return nil, false, nil
	}
	if err != nil {
		return nil, false, fmt.Errorf("read %s: %w", subject, err)
	}
	tx.saw(subject, msg.Sequence)
	r := jsRead{value: msg.Data, found: msg.Header.Get(hdrOperation) != opDelete}
	if !r.found {
		r.value = nil
	}
	tx.values[subject] = r
	return r.value, r.found, nil
}

// saw records the revision of subject that the transaction read first.
func (tx *jsTx) saw(subject string, rev uint64) {
	if _, ok := tx.read[subject]; !ok {
		tx.read[subject] = rev
	}
}

// put writes value to subject at commit.
func (tx *jsTx) put(subject string, value []byte) {
	tx.set(subject, jsWrite{value: value})
}

// putTTL writes value to subject at commit, for the server to remove
// after ttl (at least a second) unless written again.
func (tx *jsTx) putTTL(subject string, value []byte, ttl time.Duration) {
	tx.set(subject, jsWrite{value: value, ttl: max(ttl, time.Second)})
}

// del deletes subject at commit.
func (tx *jsTx) del(subject string) {
	tx.set(subject, jsWrite{deleted: true})
}

func (tx *jsTx) set(subject string, w jsWrite) {
	if _, ok := tx.write[subject]; !ok {
		tx.order = append(tx.order, subject)
	}
	tx.write[subject] = w
}

// fresh reports whether the transaction wrote subject without reading
// it: a record it adds, such as an event in a new slot.
func (tx *jsTx) fresh(subject string) bool {
	w, written := tx.write[subject]
	_, read := tx.read[subject]
	return written && !w.deleted && !read
}

// messages bounds the messages the transaction's commit would publish:
// its writes and a check of each key read.
func (tx *jsTx) messages() int {
	return len(tx.order) + len(tx.read)
}

// commit publishes the transaction as one atomic batch: first a check of
// each key read but not written, then the writes, each with the revision
// read when it was. A write of a key never read is blind: it overwrites.
func (tx *jsTx) commit(ctx context.Context) error {
	if len(tx.order) == 0 {
		return nil
	}
	var msgs []*nats.Msg
	checks := make([]string, 0, len(tx.read))
	for subject := range tx.read {
		if _, written := tx.write[subject]; !written {
			checks = append(checks, subject)
		}
	}
	slices.Sort(checks)
	for _, subject := range checks {
		m := nats.NewMsg(tx.s.prefix + ".check")
		m.Header.Set(hdrExpectedSubject, subject)
		m.Header.Set(hdrExpectedSeq, strconv.FormatUint(tx.read[subject], 10))
		m.Header.Set(hdrTTL, "1") // a check is never read
		msgs = append(msgs, m)
	}
	for _, subject := range tx.order {
		w := tx.write[subject]
		m := nats.NewMsg(subject)
		m.Data = w.value
		if w.deleted {
			m.Header.Set(hdrOperation, opDelete)
			m.Header.Set(hdrTTL, strconv.Itoa(int(jsTombstoneTTL/time.Second)))
		}
		if w.ttl > 0 {
			m.Header.Set(hdrTTL, strconv.Itoa(int(w.ttl/time.Second)))
		}
		if rev, ok := tx.read[subject]; ok {
			m.Header.Set(hdrExpectedSeq, strconv.FormatUint(rev, 10))
		}
		msgs = append(msgs, m)
	}
	if len(msgs) > jsMaxBatch {
		return fmt.Errorf("store: a transaction of %d writes, past the %d of one batch", len(msgs), jsMaxBatch)
	}
	// Headers and the subject fit in the margin: fount's headers are
	// short, and a subject at most a few KiB.
	if limit := tx.s.nc.MaxPayload() - 16<<10; limit > 0 {
		for _, m := range msgs {
			if int64(len(m.Data)) > limit {
				return fmt.Errorf("%w: %s holds %d bytes, and the NATS servers take messages of %d at most (their max_payload)",
					kv.ErrTooLarge, m.Subject, len(m.Data), tx.s.nc.MaxPayload())
			}
		}
	}
	return tx.s.publishBatch(ctx, msgs)
}

// publishBatch stores msgs all or none. One message needs no batch.
// Each message carries an id of its own, so that when the answer to a
// commit is lost and the batch is sent again, the server, which
// remembers ids for a while, refuses the copy as a duplicate: the first
// one was stored.
func (s *Engine) publishBatch(ctx context.Context, msgs []*nats.Msg) error {
	ids := nuid.Next()
	for i, m := range msgs {
		m.Header.Set(jetstream.MsgIDHeader, ids+"."+strconv.Itoa(i))
	}
	// Once a send's outcome is unknown (its answer was lost), the batch
	// may be stored: it is sent again, as it is, until the server says
	// stored, duplicate (stored before) or refused on its revisions; never
	// run again from its reads, which would apply it twice.
	uncertain := false
	deadline := time.Now().Add(jsTransientWait)
	wait := 25 * time.Millisecond
	for {
		err := s.sendBatch(ctx, msgs)
		var apiErr *jetstream.APIError
		isAPI := errors.As(err, &apiErr)
		switch {
		case err == nil:
			return nil
		case isAPI && apiErr.ErrorCode == jsErrAtomicPublishDuplicate:
			return nil // sent again after a lost answer: the first was stored
		case transient(err) || (errors.Is(err, context.DeadlineExceeded) && ctx.Err() == nil) ||
			(uncertain && isAPI && retryableBatchError(apiErr.ErrorCode) && !conflict(apiErr.ErrorCode)):
			uncertain = true
			if time.Now().After(deadline) {
				return fmt.Errorf("store: commit: %w", err)
			}
			select {
			case <-ctx.Done():
				return errors.Join(err, ctx.Err())
			case <-time.After(wait):
			}
			wait = min(2*wait, time.Second)
		case isAPI && retryableBatchError(apiErr.ErrorCode):
			return fmt.Errorf("%w: %w", errTxConflict, err)
		default:
			return fmt.Errorf("store: commit: %w", err)
		}
	}
}

// conflict tells a batch refused on its revisions: nothing was stored.
func conflict(code jetstream.ErrorCode) bool {
	return code == jetstream.JSErrCodeStreamWrongLastSequence || code == jetstream.JSErrCodeStreamWrongLastSequenceConstant
}

// sendBatch sends msgs as one atomic batch (one message: a plain
// publish) and waits for the answer to its commit.
func (s *Engine) sendBatch(ctx context.Context, msgs []*nats.Msg) error {
	last := msgs[len(msgs)-1]
	if len(msgs) > 1 {
		id := nuid.Next()
		for i, m := range msgs {
			m.Header.Set(hdrBatchID, id)
			m.Header.Set(hdrBatchSeq, strconv.Itoa(i+1))
		}
		last.Header.Set(hdrBatchCommit, "1")
		for _, m := range msgs[:len(msgs)-1] {
			if err := s.nc.PublishMsg(m); err != nil {
				return fmt.Errorf("publish: %w", err)
			}
		}
	}
	_, err := s.js.PublishMsg(ctx, last)
	return err
}

// retryableBatchError tells the errors of a batch that a new attempt may
// not meet: a revision changed (a conflict), another batch held a key it
// checks, or the server dropped the batch before its commit.
func retryableBatchError(code jetstream.ErrorCode) bool {
	switch code {
	case jetstream.JSErrCodeStreamWrongLastSequence,
		jetstream.JSErrCodeStreamWrongLastSequenceConstant,
		jsErrAtomicPublishIncompleteBatch,
		jsErrAtomicPublishTooManyInflight:
		return true
	}
	return false
}

// Codes of the server's errors that nats.go does not name.
const (
	jsErrAtomicPublishIncompleteBatch jetstream.ErrorCode = 10176
	jsErrAtomicPublishTooManyInflight jetstream.ErrorCode = 10210
	jsErrAtomicPublishDuplicate       jetstream.ErrorCode = 10201
	jsErrClusterNotAvailable          jetstream.ErrorCode = 10008
	jsErrClusterNotLeader             jetstream.ErrorCode = 10009
	jsErrClusterNoPeers               jetstream.ErrorCode = 10005 // too few servers online to place the replicas
	jsErrDuplicateInProcess           jetstream.ErrorCode = 10158 // a copy of the message is being stored
)

// jsEntry is one record found by scan.
type jsEntry struct {
	subject string
	value   []byte
	seq     uint64 // the stream sequence of the record's message
}

// scan returns every record whose subject matches filter (a subject
// with wildcards), in the order they were last written. It is not a
// snapshot: a record written while it runs may be missed or seen at its
// newest; callers that must see a fixed set check a version key (see
// docs/nats.md).
func (s *Engine) scan(ctx context.Context, filter string) ([]jsEntry, error) {
	var out []jsEntry
	err := s.retry(ctx, func() error {
		var err error
		out, err = s.scanOnce(ctx, filter)
		return err
	})
	return out, err
}

// jsScanByReads is how many records a scan reads one request at a time
// before it reads the rest through a consumer: a request per record is
// cheapest for the short lists most scans are (a source's queue, a
// channel's kept events), and a consumer, whose creation the cluster
// agrees on, for long ones.
const jsScanByReads = 128

// jsFirstByReads is how many records scanFirst reads one request at a
// time before it reads the rest of what it was asked through a consumer:
// a source's queue is most often short, and a consumer costs as much as
// a few dozen reads.
const jsFirstByReads = 32

// scanFirst returns the first limit records of filter, in the order they
// were last written, read from the stream's leader.
func (s *Engine) scanFirst(ctx context.Context, filter string, limit int) ([]jsEntry, error) {
	var out []jsEntry
	err := s.retry(ctx, func() error {
		found := newNewest()
		defer func() { out = found.entries() }()
		next := uint64(1)
		for found.live() < limit {
			if found.live() == jsFirstByReads {
				rest, err := s.scanConsumer(ctx, filter, next, limit-found.live())
				for _, e := range rest {
					found.add(e, false)
				}
				return err
			}
			msg, err := s.stream.GetMsg(ctx, next, jetstream.WithGetMsgSubject(filter))
			if errors.Is(err, jetstream.ErrMsgNotFound) {
				return nil
			}
			if err != nil {
				return fmt.Errorf("store: scan %s: %w", filter, err)
			}
			next = msg.Sequence + 1
			found.add(jsEntry{subject: msg.Subject, value: msg.Data, seq: msg.Sequence}, msg.Header.Get(hdrOperation) == opDelete)
		}
		return nil
	})
	return out, err
}

// scanOnce reads the records of filter from the stream's leader, one at a
// time, then, past jsScanByReads of them, through a consumer.
func (s *Engine) scanOnce(ctx context.Context, filter string) ([]jsEntry, error) {
	found := newNewest()
	next := uint64(1)
	for range jsScanByReads {
		msg, err := s.stream.GetMsg(ctx, next, jetstream.WithGetMsgSubject(filter))
		if errors.Is(err, jetstream.ErrMsgNotFound) {
			return found.entries(), nil
		}
		if err != nil {
			return nil, fmt.Errorf("store: scan %s: %w", filter, err)
		}
		next = msg.Sequence + 1
		found.add(jsEntry{subject: msg.Subject, value: msg.Data, seq: msg.Sequence}, msg.Header.Get(hdrOperation) == opDelete)
	}
	rest, err := s.scanConsumer(ctx, filter, next, 0)
	if err != nil {
		return nil, err
	}
	for _, e := range rest { // later messages: a record in both parts keeps its newer one
		found.add(e, false)
	}
	return found.entries(), nil
}

// newest collects the records a scan meets, each subject's newest
// message only: a record written again while scanned is met twice, and
// one deleted meanwhile is met, then met as deleted.
type newest struct {
	at  map[string]int // subject → its index in out
	out []jsEntry      // "" subjects are records met again later
}

func newNewest() *newest { return &newest{at: map[string]int{}} }

func (n *newest) add(e jsEntry, deleted bool) {
	if i, ok := n.at[e.subject]; ok {
		n.out[i].subject = ""
		delete(n.at, e.subject)
	}
	if !deleted {
		n.at[e.subject] = len(n.out)
		n.out = append(n.out, e)
	}
}

// live counts the records collected.
func (n *newest) live() int { return len(n.at) }

// entries are the records collected, in the order of their newest
// messages.
func (n *newest) entries() []jsEntry {
	return slices.DeleteFunc(n.out, func(e jsEntry) bool { return e.subject == "" })
}

// scanConsumer reads the records of filter from sequence from on through
// an ordered consumer, up to limit of them (<= 0: all).
func (s *Engine) scanConsumer(ctx context.Context, filter string, from uint64, limit int) ([]jsEntry, error) {
	// A consumer of its own, removed once read: the server bounds the
	// consumers of a stream, and an idle one would otherwise stay for
	// minutes. The server also removes it after a short idle time, should
	// this process die before.
	cons, err := s.stream.OrderedConsumer(ctx, jetstream.OrderedConsumerConfig{
		FilterSubjects:    []string{filter},
		DeliverPolicy:     jetstream.DeliverByStartSequencePolicy,
		OptStartSeq:       from,
		InactiveThreshold: 5 * time.Second,
	})
	if err != nil {
		return nil, fmt.Errorf("store: scan %s: %w", filter, err)
	}
	info, err := cons.Info(ctx)
	if err != nil {
		return nil, fmt.Errorf("store: scan %s: %w", filter, err)
	}
	defer func() {
		// An ordered consumer is made anew after a gap: remove the
		// current one.
		if cur := cons.CachedInfo(); cur != nil {
			_ = s.stream.DeleteConsumer(context.WithoutCancel(ctx), cur.Name)
		}
	}()
	pending := info.NumPending
	found := newNewest()
	for pending > 0 && (limit <= 0 || found.live() < limit) {
		want := min(pending, 1000)
		if limit > 0 {
			want = min(want, uint64(limit-found.live()))
		}
		// A short wait, not ctx: a record counted in pending may be gone
		// by now (a tombstone expired, a purge), and then no message
		// comes.
		batch, err := cons.Fetch(int(want), jetstream.FetchMaxWait(2*time.Second))
		if err != nil {
			return nil, fmt.Errorf("store: scan %s: %w", filter, err)
		}
		n := 0
		for m := range batch.Messages() {
			n++
			md, err := m.Metadata()
			if err != nil {
				return nil, fmt.Errorf("store: scan %s: %w", filter, err)
			}
			pending = md.NumPending
			found.add(jsEntry{subject: m.Subject(), value: m.Data(), seq: md.Sequence.Stream}, m.Headers().Get(hdrOperation) == opDelete)
		}
		if err := batch.Error(); err != nil && !errors.Is(err, nats.ErrTimeout) {
			return nil, fmt.Errorf("store: scan %s: %w", filter, err)
		}
		if n == 0 {
			return found.entries(), nil // what was pending went away meanwhile
		}
	}
	return found.entries(), nil
}

// unput takes back a write of subject made in this transaction.
func (tx *jsTx) unput(subject string) {
	if _, ok := tx.write[subject]; !ok {
		return
	}
	delete(tx.write, subject)
	tx.order = slices.DeleteFunc(tx.order, func(s string) bool { return s == subject })
}
