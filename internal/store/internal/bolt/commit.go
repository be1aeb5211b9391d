package bolt

// Bounds of one write transaction of CompleteRuns. bbolt has one writer:
// while a transaction is open, every other write of every tenant waits.
// A run may emit a few MiB in a hundred thousand events, and a batch
// holds several runs, so CompleteRuns ends its transaction once it has
// written this much and goes on in the next. Either bound makes a
// transaction of 10 to 20 ms on a busy 2-core machine; another writer
// waits for at most about two of them (BenchmarkCommitStall: 100,000
// events in one transaction held it for 300 to 450 ms).
const (
	txMaxEvents = 2048
	txMaxBytes  = 2 << 20
)

// txBudget counts what one write transaction has written.
type txBudget struct {
	maxEvents, maxBytes int // <= 0: no bound
	events, bytes       int
}

func (b *txBudget) spend(events, bytes int) {
	if b != nil {
		b.events += events
		b.bytes += bytes
	}
}

// spent reports whether the transaction should end; a nil budget never is.
func (b *txBudget) spent() bool {
	return b != nil && ((b.maxEvents > 0 && b.events >= b.maxEvents) || (b.maxBytes > 0 && b.bytes >= b.maxBytes))
}
