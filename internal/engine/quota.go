package engine

import (
	"context"
	"errors"
	"sync"
	"time"

	"github.com/fount-dev/fount/internal/engine/clock"
	"github.com/fount-dev/fount/internal/engine/ingress"
	"github.com/fount-dev/fount/internal/model"
	"github.com/fount-dev/fount/internal/store"
)

// Default daily quotas of free accounts. Compute time is in milliseconds
// (the specification leaves the unit open).
const (
	DefaultQuotaInvocations = 10_000
	DefaultQuotaComputeMs   = 30 * 60 * 1000
)

var errQuota = ingress.ErrQuota

// quotaCacheTTL is how long the ingress trusts a quota check: a request
// does not need a fresh count of the day's usage, and under load reading
// it for every request would cost more than the request itself.
const quotaCacheTTL = time.Second

// quotas checks the daily quotas of free accounts, remembering answers
// for quotaCacheTTL for the ingress.
type quotas struct {
	clock       clock.Clock
	store       store.Store
	queues      store.Queues
	invocations int64
	computeMs   int64

	mu    sync.Mutex
	cache map[string]quotaEntry // by account
}

type quotaEntry struct {
	over  bool
	until time.Time
}

func newQuotas(clk clock.Clock, st store.Store, q store.Queues, invocations, computeMs int64) *quotas {
	return &quotas{clock: clk, store: st, queues: q, invocations: invocations, computeMs: computeMs, cache: map[string]quotaEntry{}}
}

// day is the usage day of t: YYYY-MM-DD in UTC.
func day(t time.Time) string { return t.UTC().Format(time.DateOnly) }

// over reports whether a free account has used up a daily quota on day.
// Paid accounts, organizations and accounts that no longer exist have no
// daily limit.
func (q *quotas) over(ctx context.Context, account, day string) (bool, error) {
	if account == "" {
		return false, nil // scheduled under nobody: its drain finds it gone
	}
	u, err := q.store.GetUser(ctx, account) // an organization is no user: not found
	if errors.Is(err, model.ErrNotFound) {
		return false, nil
	}
	if err != nil || u.Plan != model.PlanFree {
		return false, err
	}
	usage, err := q.queues.GetUsage(ctx, account, day)
	if err != nil {
		return false, err
	}
	return usage.Invocations >= q.invocations || usage.ComputeMs >= q.computeMs, nil
}

// overCached is over for today, remembered for quotaCacheTTL.
func (q *quotas) overCached(ctx context.Context, account string) (bool, error) {
	now := q.clock.Now()
	q.mu.Lock()
	ent, ok := q.cache[account]
	q.mu.Unlock()
	if ok && now.Before(ent.until) {
		return ent.over, nil
	}
	over, err := q.over(ctx, account, day(now))
	if err != nil {
		return false, err
	}
	q.mu.Lock()
	q.cache[account] = quotaEntry{over: over, until: now.Add(quotaCacheTTL)}
	q.mu.Unlock()
	return over, nil
}
