package store

import (
	"context"
	"maps"

	"github.com/fount-dev/fount/internal/model"
	"github.com/fount-dev/fount/internal/store/internal/kv"
)

// Counted names a kind of record that Limits caps per account (the
// model's, with its constants).
type Counted = model.Counted

// Limits caps how many records of each kind one account may hold. A kind
// that is missing, or 0, is not capped.
type Limits map[Counted]int

// LimitError is returned by a write that would take an account past its
// limit; nothing is stored then.
type LimitError = model.LimitError

// WithLimits caps what one account may hold. Each write that adds a
// record checks its account's count in the write transaction itself, and
// bbolt runs one write transaction at a time, so concurrent creates
// cannot pass a limit.
func WithLimits(l Limits) Option {
	l = maps.Clone(l)
	return func(o *options) { o.limits = l }
}

// CheckLimit returns a *LimitError when account already holds its limit
// of kind. Writes check again, atomically; this lets a caller refuse
// before costly work (running a source's hooks).
func (r rules) CheckLimit(ctx context.Context, kind Counted, account string) error {
	return r.kv.View(ctx, func(tx kv.Tx) error { return r.checkRoom(tx, kind, account) })
}

// checkRoom returns a *LimitError when account already holds its limit
// of kind, as seen by tx. The count is read in tx, so a commit that
// passes it cannot pass the limit: bbolt runs one write transaction at a
// time, and JetStream's commit checks that the lists counted did not
// change.
func (r rules) checkRoom(tx kv.Tx, kind Counted, account string) error {
	limit := r.limits[kind]
	if limit <= 0 {
		return nil
	}
	n, err := countKind(tx, kind, account)
	if err != nil {
		return err
	}
	if n >= limit {
		return &LimitError{Kind: kind, Account: account, Max: limit}
	}
	return nil
}

// countedLists are the lists whose sizes count each kind.
var countedLists = map[Counted][]kv.List{
	model.CountSources:       {kv.SourceList},
	model.CountComponents:    {kv.ComponentList},
	model.CountWebhooks:      {kv.WebhookList},
	model.CountWorkflows:     {kv.WorkflowList},
	model.CountAccounts:      {kv.AccountList},
	model.CountDataStores:    {kv.DataStoreList},
	model.CountSubscriptions: {kv.SubList, kv.AutoList},
	model.CountOrgs:          {kv.OrgMemberList},
}

// countKind returns how many records of kind account holds: the size of
// lists of ids, no records read.
func countKind(tx kv.Tx, kind Counted, account string) (int, error) {
	n := 0
	for _, ix := range countedLists[kind] {
		c, err := tx.ListCount(ix, account)
		if err != nil {
			return 0, err
		}
		n += c
	}
	return n, nil
}
