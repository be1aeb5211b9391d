package batch

import (
	"context"
	"errors"
	"sync"
	"time"

	"github.com/fount-dev/fount/internal/engine/clock"
	"github.com/fount-dev/fount/internal/model"
	"github.com/fount-dev/fount/internal/store"
)

// QuotaCacheTTL is how long the ingress trusts a quota check: a request
// does not need a fresh count of the day's usage, and under load reading
// it for every request would cost more than the request itself.
const QuotaCacheTTL = time.Second

// Quotas checks the daily quotas of free accounts, remembering answers
// for QuotaCacheTTL for the ingress.
type Quotas struct {
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

// NewQuotas checks quotas of invocations and compute milliseconds a day.
func NewQuotas(clk clock.Clock, st store.Store, q store.Queues, invocations, computeMs int64) *Quotas {
	return &Quotas{clock: clk, store: st, queues: q, invocations: invocations, computeMs: computeMs, cache: map[string]quotaEntry{}}
}

// Day is the usage day of t: YYYY-MM-DD in UTC.
func Day(t time.Time) string { return t.UTC().Format(time.DateOnly) }

// Over reports whether a free account has used up a daily quota on day.
// Paid accounts, organizations and accounts that no longer exist have no
// daily limit.
func (q *Quotas) Over(ctx context.Context, account, day string) (bool, error) {
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

// OverCached is Over for today, remembered for QuotaCacheTTL.
func (q *Quotas) OverCached(ctx context.Context, account string) (bool, error) {
	now := q.clock.Now()
	q.mu.Lock()
	ent, ok := q.cache[account]
	q.mu.Unlock()
	if ok && now.Before(ent.until) {
		return ent.over, nil
	}
	over, err := q.Over(ctx, account, Day(now))
	if err != nil {
		return false, err
	}
	q.mu.Lock()
	q.cache[account] = quotaEntry{over: over, until: now.Add(QuotaCacheTTL)}
	q.mu.Unlock()
	return over, nil
}
