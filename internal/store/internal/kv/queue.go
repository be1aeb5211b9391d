package kv

import (
	"strconv"

	"github.com/fount-dev/fount/internal/ids"
)

// DefaultQueueLimit is the limit of PendingInvocations and DueDeliveries
// when given <= 0.
const DefaultQueueLimit = 100

// SeqID is the id of sequence number seq: its decimal form.
func SeqID(seq uint64) string {
	return strconv.FormatUint(seq, 10)
}

// ParseSeqID returns the sequence number of an id made by SeqID, or
// false for anything else (so no other string aliases a key).
func ParseSeqID(id string) (uint64, bool) {
	seq, err := strconv.ParseUint(id, 10, 64)
	if err != nil || SeqID(seq) != id {
		return 0, false
	}
	return seq, true
}

// ParseExecutionID returns the workflow id and invocation sequence of an
// execution id (ids.ExecutionID of a queued invocation), or false.
func ParseExecutionID(id string) (workflowID string, seq uint64, ok bool) {
	workflowID, inv, ok := ids.ParseExecutionID(id)
	if !ok {
		return "", 0, false
	}
	seq, ok = ParseSeqID(inv)
	return workflowID, seq, ok
}
