package store

import (
	"context"

	"github.com/fount-dev/fount/internal/store/internal/bolt"
)

// Bolt is the Store and Queues on a bbolt file: the rules over the bbolt
// engine (store/internal/bolt). It is safe for concurrent use.
type Bolt struct {
	rules
	*bolt.Engine
}

var (
	_ Store         = (*Bolt)(nil)
	_ Queues        = (*Bolt)(nil)
	_ Backuper      = (*Bolt)(nil)
	_ StatsReporter = (*Bolt)(nil)
)

// ErrLocked is returned by OpenBolt when another process holds the file.
var ErrLocked = bolt.ErrLocked

// StoreStats are a bbolt store's cumulative write figures and its size.
type StoreStats = bolt.Stats

// OpenBolt opens or creates the bbolt file at path (mode 0600), creates
// its buckets and records the schema version on first open, upgrading a
// file of an older version.
//
// # Errors
//
// OpenBolt fails when another process holds the file for longer than a
// few seconds (ErrLocked), or when the file was written by a newer schema
// than this code knows.
func OpenBolt(path string, opts ...Option) (*Bolt, error) {
	o := applyOptions(opts)
	e, err := bolt.Open(path, o.now, o.onCommit)
	if err != nil {
		return nil, err
	}
	b := &Bolt{rules: rules{kv: e, limits: o.limits, now: o.now, statsKept: o.statsKept}, Engine: e}
	if err := b.movePaused(context.Background(), b, o.log); err != nil {
		e.Close()
		return nil, err
	}
	return b, nil
}
