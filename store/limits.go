package store

import (
	"bytes"
	"context"
	"fmt"
	"maps"

	bolt "go.etcd.io/bbolt"
)

// Counted names a kind of record that Limits caps per account.
type Counted string

// The kinds Limits caps. All but CountOrgs are counted per owner (a user
// or an organization).
const (
	CountSources    Counted = "sources"
	CountComponents Counted = "components"
	CountWebhooks   Counted = "webhooks"
	CountWorkflows  Counted = "workflows"
	CountAccounts   Counted = "connected accounts"
	// CountSubscriptions counts subscriptions and auto-subscriptions
	// together.
	CountSubscriptions Counted = "subscriptions"
	// CountOrgs counts the organizations a user belongs to: each is one
	// more account the user's resources can spread over.
	CountOrgs Counted = "organizations"
)

// Limits caps how many records of each kind one account may hold. A kind
// that is missing, or 0, is not capped.
type Limits map[Counted]int

// LimitError is returned by a write that would take an account past its
// limit; nothing is stored then.
type LimitError struct {
	Kind    Counted
	Account string // the owner; for CountOrgs, the user
	Max     int
}

func (e *LimitError) Error() string {
	return fmt.Sprintf("store: %s already has %d %s, the limit", e.Account, e.Max, e.Kind)
}

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
func (b *Bolt) CheckLimit(ctx context.Context, kind Counted, account string) error {
	return b.view(ctx, func(tx *bolt.Tx) error { return b.checkRoom(tx, kind, account) })
}

// checkRoom returns a *LimitError when account already holds its limit
// of kind, as seen by tx.
func (b *Bolt) checkRoom(tx *bolt.Tx, kind Counted, account string) error {
	limit := b.limits[kind]
	if limit <= 0 {
		return nil
	}
	if count(tx, kind, account) >= limit {
		return &LimitError{Kind: kind, Account: account, Max: limit}
	}
	return nil
}

// count returns how many records of kind account holds. Each count is a
// scan of index keys, no records: at most the limit plus what was stored
// before the limit was lowered.
func count(tx *bolt.Tx, kind Counted, account string) int {
	switch kind {
	case CountSources:
		return sourceIndex.count(tx, account)
	case CountComponents:
		return componentIndex.count(tx, account)
	case CountWebhooks:
		return webhookIndex.count(tx, account)
	case CountWorkflows:
		return workflowIndex.count(tx, account)
	case CountAccounts:
		return accountIndex.count(tx, account)
	case CountSubscriptions:
		return subIndex.count(tx, account) + autoIndex.count(tx, account)
	case CountOrgs:
		return countPrefix(tx.Bucket(bucketOrgMembers), key(account))
	}
	return 0
}

// countPrefix counts the keys of bk that start with prefix.
func countPrefix(bk *bolt.Bucket, prefix []byte) int {
	n := 0
	c := bk.Cursor()
	for k, _ := c.Seek(prefix); k != nil && bytes.HasPrefix(k, prefix); k, _ = c.Next() {
		n++
	}
	return n
}
