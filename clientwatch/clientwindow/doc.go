// Package clientwindow is the client engine: a Window counts what an
// instrumented DynamoDB client saw of one table, or one of its global
// secondary indexes, in one tumbling window (per partition key: calls,
// read and write capacity, throttled attempts and their reasons, items a
// batch left unprocessed, failed conditions, latency), in bounded memory
// (MaxBytes), and Report judges it into a report.ClientReport. It is pure:
// no AWS SDK, no I/O, and time is passed in. Package clientwatch feeds it
// from its middleware; it is a package of its own so that tests and tools
// can build client reports without a DynamoDB client.
//
// Reads are judged here (DynamoDB caps a partition at 3,000 RCU/s); writes
// as the stream side judges them, by the rules package detector holds
// once: its Config's thresholds (Config.Severity), key figures and
// display (Config.KeyFigures), saturation (Config.SaturationLevel,
// SaturatedSeconds), patterns and diagnoses (Classify, Diagnose).
//
// Keys are counted with the Space-Saving algorithm (Metwally, Agrawal and
// El Abbadi, ICDT 2005) tightened by a count-min sketch (Cormode and
// Muthukrishnan, 2005), as on the stream side (package sketch); latency per
// key in a fixed table of log-bucketed histograms (latency.go).
package clientwindow
