package main

import "bytes"

// A batch Lambda delivers again (processing is at least once) is counted
// once: within a tumbling window by sequence number (seqAfter), across a
// warm container's plain batches by event id (detector.RecentIDs).

// seqAfter reports whether sequence number a comes after b. Sequence
// numbers are decimal strings of up to 40 digits: longer is larger.
func seqAfter(a, b []byte) bool {
	if len(a) != len(b) {
		return len(a) > len(b)
	}
	return bytes.Compare(a, b) > 0
}
