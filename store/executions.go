package store

import (
	"strings"

	"github.com/fount-dev/fount/ids"
)

// executionPrefix starts every execution id.
const executionPrefix = "ex_"

// ExecutionID is the id of the execution of a workflow's invocation: the
// workflow's random part and the invocation's id, so that a retried
// invocation records the same execution and a lookup needs no index.
func ExecutionID(workflowID, invocationID string) string {
	return executionPrefix + strings.TrimPrefix(workflowID, string(ids.Workflow)) + "-" + invocationID
}

// parseExecutionID returns the workflow id and invocation sequence of an
// id made by ExecutionID, or false.
func parseExecutionID(id string) (workflowID string, seq uint64, ok bool) {
	rest, ok := strings.CutPrefix(id, executionPrefix)
	if !ok {
		return "", 0, false
	}
	i := strings.LastIndexByte(rest, '-')
	if i <= 0 {
		return "", 0, false
	}
	seq, ok = parseSeqID(rest[i+1:])
	return string(ids.Workflow) + rest[:i], seq, ok
}
