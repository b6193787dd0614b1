// Package report is hotkeys' vocabulary for what it finds: the report of
// one closed window, stream side (Report) or client side (ClientReport),
// and what they say of each partition key, its Severity and its Pattern.
//
// It holds types only: no SDK, no engine. The detector builds reports;
// alert publishes them, heatmap draws them, history stores and merges
// them, and the CLI prints them, each without importing the detector.
//
// The two reports share the window they cover (Window) and what they say
// of a key's writes (KeyFigures); the rest is each side's own, so a
// consumer tells them apart by their type. Their JSON is one shape, the
// `--format json` shape documented in docs/json-report.md: a client report is the
// stream's shape with "source":"client", the stream's own counts at zero,
// and the client's figures added (see ClientReport.MarshalJSON).
package report
