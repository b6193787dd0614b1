// Package detector turns decoded DynamoDB stream records into per-window
// findings: which partition keys take too large a share of the write
// capacity, how hot they run against the 1,000 WCU/s per-partition limit,
// and what pattern explains them. It is pure: no AWS SDK, no I/O, and time
// is passed in.
package detector
