package kv

import (
	"strconv"
	"strings"

	"github.com/fount-dev/fount/ids"
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

// executionPrefix starts every execution id.
const executionPrefix = "ex_"

// ExecutionID is the id of the execution of a workflow's invocation: the
// workflow's random part and the invocation's id, so that a retried
// invocation records the same execution and a lookup needs no index.
func ExecutionID(workflowID, invocationID string) string {
	return executionPrefix + strings.TrimPrefix(workflowID, string(ids.Workflow)) + "-" + invocationID
}

// ParseExecutionID returns the workflow id and invocation sequence of an
// id made by ExecutionID, or false.
func ParseExecutionID(id string) (workflowID string, seq uint64, ok bool) {
	rest, ok := strings.CutPrefix(id, executionPrefix)
	if !ok {
		return "", 0, false
	}
	i := strings.LastIndexByte(rest, '-')
	if i <= 0 {
		return "", 0, false
	}
	seq, ok = ParseSeqID(rest[i+1:])
	return string(ids.Workflow) + rest[:i], seq, ok
}
