package engine

// Default daily quotas of free accounts. Compute time is in milliseconds
// (the specification leaves the unit open).
const (
	DefaultQuotaInvocations = 10_000
	DefaultQuotaComputeMs   = 30 * 60 * 1000
)
