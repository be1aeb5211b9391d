package engine

import (
	"context"
	"errors"
	"strings"
	"time"

	"github.com/fount-dev/fount/store"
)

// Default daily quotas of free accounts. Compute time is in milliseconds
// (the spec leaves the unit open).
const (
	DefaultQuotaInvocations = 10_000
	DefaultQuotaComputeMs   = 30 * 60 * 1000
)

// overQuota reports whether a free account has used up a daily quota.
// Paid accounts have no daily limit.
func (e *Engine) overQuota(ctx context.Context, accountID, day string) (bool, error) {
	if !strings.HasPrefix(accountID, "u_") {
		return false, nil
	}
	u, err := e.cfg.Store.GetUser(ctx, accountID)
	if errors.Is(err, store.ErrNotFound) {
		return false, nil // an account that is gone has no quota to enforce
	}
	if err != nil || u.Plan != store.PlanFree {
		return false, err
	}
	usage, err := e.cfg.Queues.GetUsage(ctx, accountID, day)
	if err != nil {
		return false, err
	}
	inv, compute := e.Quotas()
	return usage.Invocations >= inv || usage.ComputeMs >= compute, nil
}

// Quotas returns the daily quotas of free accounts: invocations and
// compute milliseconds.
func (e *Engine) Quotas() (invocations, computeMs int64) {
	return e.cfg.QuotaInvocations, e.cfg.QuotaComputeMs
}

// Usage returns an account's counters for a day (YYYY-MM-DD, UTC).
func (e *Engine) Usage(ctx context.Context, accountID, day string) (store.Usage, error) {
	return e.cfg.Queues.GetUsage(ctx, accountID, day)
}

// quotaCacheTTL is how long the ingress trusts a quota check: a request
// does not need a fresh count of the day's usage, and under load reading
// it for every request would cost more than the request itself.
const quotaCacheTTL = time.Second

type quotaEntry struct {
	over  bool
	until time.Time
}

// overQuotaCached is overQuota for today, remembered for quotaCacheTTL.
func (e *Engine) overQuotaCached(ctx context.Context, accountID string) (bool, error) {
	now := time.Now()
	e.mu.Lock()
	ent, ok := e.quotaCache[accountID]
	e.mu.Unlock()
	if ok && now.Before(ent.until) {
		return ent.over, nil
	}
	over, err := e.overQuota(ctx, accountID, now.UTC().Format(time.DateOnly))
	if err != nil {
		return false, err
	}
	e.mu.Lock()
	e.quotaCache[accountID] = quotaEntry{over: over, until: now.Add(quotaCacheTTL)}
	e.mu.Unlock()
	return over, nil
}
