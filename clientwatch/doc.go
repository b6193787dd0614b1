// Package clientwatch is the client-side hot-key detector: a middleware for
// the aws-sdk-go-v2 DynamoDB client that charges every call's consumed
// capacity, throttled attempts, conditional-check failures and latency to
// the partition keys it touched, in windows of the client engine (package
// clientwatch/clientwindow: the stream side's bounded sketches, judged by
// the stream side's rules in package detector), and publishes the windows'
// reports (report.ClientReport) off the request path, through a Publisher:
// alert.ClientPublisher sends them to CloudWatch, and the package itself
// links no CloudWatch code.
//
// A stream shows only the writes that succeeded. The client also sees
// reads (a partition caps them at 3,000 RCU/s), throttled attempts (the
// demand a stream never shows), failed conditional writes (charged, never
// streamed) and each key's latency, whose outliers are the first sign of a
// hot partition ("p99 over 10× the median key's": the rule of thumb of
// DynamoDB's write-sharding guidance).
//
// Capacity figures are DynamoDB's own: when the caller did not ask for
// ConsumedCapacity the middleware asks for it (INDEXES) on a copy of the
// input and takes it out of the response body before the SDK decodes it
// (wire.go), so the caller sees exactly what it would have seen. A call that touches one partition key is charged to it
// exactly; a call that touches several (batches, transactions, Query and
// Scan pages across keys) has its exact total split by DynamoDB's item-size
// rules (package record), and the report marks those figures apportioned.
// Heavy keys are found with the Space-Saving algorithm (Metwally, Agrawal
// and El Abbadi, ICDT 2005) tightened by a count-min sketch (Cormode and
// Muthukrishnan, 2005); see package sketch.
package clientwatch
