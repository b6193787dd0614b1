// Package heatmap draws a run's window reports as a heatmap of partition
// keys over time, in one self-contained HTML page (inline SVG: no script,
// nothing fetched), after the Key Visualizer of Bigtable and Spanner
// ("Key Visualizer: a heatmap of key ranges over time", Google Cloud
// documentation) and the heatmaps of Wilkinson & Friendly, "The History of
// the Cluster Heat Map" (The American Statistician, 2009).
//
// Columns are windows (bucketed past Options.MaxColumns). Rows are the
// heaviest keys of the run, ranked by the WCU they certainly wrote, then
// "all other keys", then one row per stream shard. A cell's colour is its
// peak WCU within one second against the partition limit, on discrete bands
// with the limit marked; flagged cells are outlined; every cell's <title>
// gives the key, span, WCU with bounds, share, peak, severity and diagnosis.
//
// Bounds add up across windows and still bracket the truth: a key a report
// lists contributes its [wcu_lower, wcu_upper]; a key it does not list
// contributes [0, other_keys_wcu_upper]. Keys are drawn as the reports give
// them, so reports built with redaction make a redacted picture.
package heatmap
