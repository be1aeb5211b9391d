package batch

import (
	"context"

	"github.com/fount-dev/fount/internal/model"
	"github.com/fount-dev/fount/internal/store"
)

// MaxBytes bounds the results a batch holds in memory: once its runs
// have produced this much, they are committed before the next one runs.
// A run may emit up to the sandbox's emit cap (4 MiB by default), so 256
// of them would hold a gigabyte.
const MaxBytes = 8 << 20

// eventOverhead estimates what a stored event weighs besides its name,
// summary and data: ids, times and the encoding.
const eventOverhead = 128

// CommitBytes estimates the bytes of the events of c.
func CommitBytes(c store.RunCommit) int {
	n := 0
	for _, ev := range c.Events {
		n += len(ev.Name) + len(ev.Summary) + len(ev.Data) + eventOverhead
	}
	return n
}

// A Committer stores a batch's finished runs and publishes what they
// sent to live streams: the Loop.
type Committer interface {
	Commit(ctx context.Context, em model.Emitter, runs []store.CompletedRun) error
	Publish(events []model.Event)
}

// Pending are a batch's finished runs not yet committed: a batch holds
// at most about MaxBytes of them.
type Pending struct {
	to      Committer
	emitter model.Emitter
	runs    []store.CompletedRun
	held    int
	// live are the events the runs sent to live streams ($.send.sse),
	// published once the runs are committed.
	live []model.Event
}

// NewPending holds the runs of em's batch until they are committed to.
func NewPending(to Committer, em model.Emitter) *Pending {
	return &Pending{to: to, emitter: em}
}

// Add keeps run, of about size bytes, with the events it sent to live
// streams, and commits what is held once it is large.
func (p *Pending) Add(ctx context.Context, run store.CompletedRun, size int, live ...model.Event) error {
	p.runs = append(p.runs, run)
	p.live = append(p.live, live...)
	if p.held += size; p.held < MaxBytes {
		return nil
	}
	return p.Commit(ctx)
}

// Commit commits what is held.
func (p *Pending) Commit(ctx context.Context) error {
	err := p.to.Commit(ctx, p.emitter, p.runs)
	if len(p.live) > 0 { // a source's runs send none: no lock of the streams per commit
		p.to.Publish(p.live)
	}
	p.runs, p.held, p.live = p.runs[:0], 0, p.live[:0]
	return err
}

// KeepAfter commits what is held after the batch stopped on failed:
// what finished has had its side effects (db writes, responses, sends),
// so running it again would repeat them, and the commit outlives a
// cancelled ctx for that. It returns failed, or the commit's error.
func (p *Pending) KeepAfter(ctx context.Context, failed error) error {
	if err := p.Commit(context.WithoutCancel(ctx)); err != nil {
		return err
	}
	return failed
}
