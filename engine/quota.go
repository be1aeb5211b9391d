package engine

import (
	"context"
	"errors"
	"strings"

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
