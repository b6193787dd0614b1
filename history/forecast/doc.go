// Package forecast says when a partition key's daily peak write rate
// reaches its partition's limit, with a range, from a series of daily
// peaks.
//
// A key's series is one Day per calendar day (UTC) on which history holds
// a window for it: the highest peak_wcu_per_second of that day, with its
// bounds. A day without a window is missing, never zero. Forecast turns a
// Series into a Result: headroom (the limit over the last day's peak), the
// growth per day, and the number of days until the first day whose own
// peak reaches the limit, with a low and a high end aimed at 80 %
// coverage, or none when the limit is not reached within the horizon.
// Its JSON is the object `hotkeys forecast --format json` prints per key.
//
// The method is rank-based throughout, so that one outlier day moves it
// little; docs/forecast.md gives it in full, with its measured coverage,
// outlier bound and comparison:
//
//   - A weekly cycle is looked for in the residuals of a first trend with
//     the Kruskal–Wallis test (Kruskal and Wallis 1952, "Use of ranks in
//     one-criterion variance analysis"); when significant at 1 %, each
//     weekday's factor is the median of its residuals, and the limit is
//     reached on the first day whose own peak reaches it (a busy weekday),
//     not when the weekly mean does.
//   - Outlier days are left out by Hampel's identifier (Hampel 1974, "The
//     influence curve and its role in robust estimation").
//   - Growth is tested with the Mann–Kendall test (Mann 1945,
//     "Nonparametric tests against trend"; Kendall 1975, "Rank Correlation
//     Methods"): a flat or shrinking key gets no date.
//   - The trend is the Theil–Sen estimator (Theil 1950, "A rank-invariant
//     method of linear and polynomial regression analysis"; Sen 1968,
//     "Estimates of the regression coefficient based on Kendall's tau") on
//     the Box–Cox scale (Box and Cox 1964, "An analysis of
//     transformations") of a power between 0 (a fixed percentage a day)
//     and 1 (a fixed amount a day), with Sen's interval of the slope and
//     the median's of the level.
//   - The powers the data allow are those at which the two halves of the
//     series have Theil–Sen slopes whose intervals touch. The estimate
//     assumes a fixed percentage unless the data rule it out; the range
//     reaches the slowest power they allow, so that it covers a key that
//     grows by a fixed amount, which a log-linear fit overshoots.
//
// The package is pure: no SDK, no clock, no I/O.
package forecast
