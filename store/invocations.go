package store

import "strconv"

// defaultQueueLimit is the limit of PendingInvocations and DueDeliveries
// when given <= 0.
const defaultQueueLimit = 100

// seqID is the id of sequence number seq: its decimal form.
func seqID(seq uint64) string {
	return strconv.FormatUint(seq, 10)
}

// parseSeqID returns the sequence number of an id made by seqID, or
// false for anything else (so no other string aliases a key).
func parseSeqID(id string) (uint64, bool) {
	seq, err := strconv.ParseUint(id, 10, 64)
	if err != nil || seqID(seq) != id {
		return 0, false
	}
	return seq, true
}
