// Package detector is the stream engine: windows, thresholds, findings. It
// counts decoded DynamoDB stream records (package record) into tumbling
// windows of a table and of its global secondary indexes, judges each
// window's partition keys against a Config's thresholds, and returns the
// findings as package report's vocabulary: which keys take too large a
// share of the write capacity, how hot they run against the 1,000 WCU/s
// per-partition limit, which are saturated (pinned at it, most likely
// throttled), which crossed the critical rate as it happened (onsets), and
// what pattern explains them and what to do. It is pure: no AWS SDK, no
// I/O, and time is passed in.
//
// A Feed decodes a payload into a Sink: a Detector, which opens and closes
// windows by record time (replay, watch, the Lambda's plain batches), or a
// WindowSet, one table's window over one span with its indexes' windows
// and what was counted before the table was known. A Detector keeps one
// WindowSet per table and span; the Lambda keeps one per tumbling window,
// which travels as the window's state (MarshalState, within StateBudget,
// dropping the lightest keys first). A Window encodes (MarshalBinary) and
// merges. Keys are counted in package sketch's bounded summaries: the
// Space-Saving heavy hitters (Metwally, Agrawal and El Abbadi, ICDT 2005)
// tightened by a count-min sketch (Cormode and Muthukrishnan, 2005), whose
// bounds survive a merge (Agarwal et al., "Mergeable Summaries", PODS
// 2012).
//
// The rules a key is judged by exist here once. The client engine (package
// clientwatch/clientwindow), which judges what an application's own
// DynamoDB client saw, shares them: Config's thresholds (Config.Severity),
// a key's figures and display (Config.KeyFigures, DisplayKey), saturation
// (Config.SaturationLevel, SaturatedSeconds, SaturatedText), and the
// patterns and their fixes (Classify, Diagnose, RecommendedShards).
package detector
