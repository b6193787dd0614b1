// Package alert turns window reports (package report) into Amazon
// CloudWatch metrics and structured findings logs: a stream's reports with
// Publisher.Publish, a client's (package clientwatch) with
// Publisher.PublishClient, whose metrics are named apart ([ClientMetrics]).
// ClientPublisher is clientwatch's Publisher for CloudWatch.
//
// Metrics go out through the PutMetricData API (the default), as CloudWatch
// Embedded Metric Format (EMF) lines on stdout, or both. Every report yields
// the table metrics of [Metrics] with the dimension TableName; each flagged
// key, up to [Config.Top] of them, also yields the key metrics with the
// dimensions TableName and PartitionKey. Every distinct PartitionKey value is
// a custom metric CloudWatch bills by the month, which is why only flagged
// keys are published and why their number is capped.
//
// A global secondary index's window (a report with Index set) publishes the
// same metrics with the dimension IndexName after TableName
// ([MetricDefinition.IndexDimensions]), except those that belong to the
// stream as a whole (malformed records, internal errors, the stream shards'
// peak), which its table's window already carries. CloudWatch tells metrics
// apart by their whole set of dimensions, so an index's figures never mix
// into its table's. A table with n indexes thus has at most 12 + 9n window
// metrics and (1 + n) × Config.Top × 3 key metrics per window.
//
// Publishing never fails the caller because CloudWatch is unavailable: when
// PutMetricData still fails after the client's own retries, or the deadline
// of the context draws near, the metrics not yet accepted are written as EMF
// instead, so they reach CloudWatch through the function's log group.
//
// Partition keys become dimension values through [DimensionValue], which keeps
// printable ASCII keys readable and encodes the rest. Keys may be personal
// data: the package prints a key only as the detector reports it (already
// redacted when redaction is configured), never in any other form.
//
// References: the PutMetricData API reference and "Specification: Embedded
// metric format", both in the Amazon CloudWatch documentation.
package alert
