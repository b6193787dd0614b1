package main

import (
	"bytes"
	"context"
	"fmt"
	"log/slog"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/hotkeys-dev/hotkeys/history"
	"github.com/hotkeys-dev/hotkeys/history/rollup"
	"github.com/hotkeys-dev/hotkeys/history/store"
	"github.com/hotkeys-dev/hotkeys/internal/testkit/dynamodblocal"
	"github.com/hotkeys-dev/hotkeys/report"
)

// checkTruth checks the table's steps of reps against the exact truth of
// the raw writes: totals equal, every listed key bracketed, every other
// key under other_keys_wcu_upper. It returns how many steps it checked.
func checkTruth(t *testing.T, name string, day *storedDay, reps []report.Report) int {
	t.Helper()
	n := 0
	for _, rep := range reps {
		if rep.Index != "" {
			continue
		}
		n++
		truth, records, wcu := map[string]uint64{}, uint64(0), uint64(0)
		for at := rep.Start.Unix(); at < rep.End.Unix(); at += 60 {
			for k, w := range day.wcu[at] {
				truth[k] += w
				wcu += w
			}
			records += day.records[at]
		}
		step := fmt.Sprintf("%s: step %s", name, rep.Start.Format("15:04"))
		if rep.WCU != wcu || rep.Records != records {
			t.Errorf("%s: %d WCU, %d records; truth %d, %d", step, rep.WCU, rep.Records, wcu, records)
		}
		listed := map[string]bool{}
		for _, k := range slices.Concat(rep.TopKeys, rep.HotKeys) {
			listed[k.Key] = true
			if k.WCULower > truth[k.Key] || truth[k.Key] > k.WCUUpper {
				t.Errorf("%s: %s [%d, %d] does not bracket %d", step, k.Key, k.WCULower, k.WCUUpper, truth[k.Key])
			}
		}
		for k, w := range truth {
			if !listed[k] && w > rep.OtherKeysWCUUpper {
				t.Errorf("%s: unlisted %s wrote %d, over other_keys_wcu_upper %d", step, k, w, rep.OtherKeysWCUUpper)
			}
		}
	}
	return n
}

// historyEnv points the CLI's AWS configuration at DynamoDB Local.
func historyEnv(t *testing.T) {
	t.Setenv("AWS_ENDPOINT_URL_DYNAMODB", dynamodblocal.Endpoint(t))
	t.Setenv("AWS_ACCESS_KEY_ID", "test")
	t.Setenv("AWS_SECRET_ACCESS_KEY", "test")
	t.Setenv("AWS_REGION", dynamodblocal.Region)
	t.Setenv("AWS_CONFIG_FILE", "/dev/null")
	t.Setenv("AWS_SHARED_CREDENTIALS_FILE", "/dev/null")
}

func historyJSON(t *testing.T, args ...string) ([]report.Report, string) {
	t.Helper()
	var out, errb bytes.Buffer
	if code := run(context.Background(), append([]string{"history", "--format", "json"}, args...), nil, &out, &errb); code != exitOK {
		t.Fatalf("history %q: exit %d:\n%s", args, code, errb.String())
	}
	return decodeReport(t, out.String()).Windows, errb.String()
}

// TestHistoryFromRollups stores three shards' windows over seven minutes
// (the table's and index GSI1's) and lets the rollup job roll the first
// six up, the first three settled: `hotkeys history` reads six minutes
// from rollups and the seventh from the shards' windows, says so, and
// every step brackets the exact truth of the raw writes, as reading only
// the shards' windows does. A window stored late is missing from its
// minute's rollup until the job settles it, and history says which
// minutes are not settled.
func TestHistoryFromRollups(t *testing.T) {
	ddb, _ := dynamodblocal.Clients(t)
	table, _ := dynamodblocal.CreateTable(t, ddb, dynamodblocal.TableSpec{Prefix: "history", HashKey: store.AttrDay,
		RangeKey: store.AttrWindow, NoStream: true})
	ctx := context.Background()
	start := time.Date(2026, 11, 22, 10, 27, 0, 0, time.UTC)
	day := newStoredDay(t, 3, 7, start)
	// Shard 2's table window of 10:28 comes late: after the first rollup.
	lateAt := slices.IndexFunc(day.summaries, func(s *history.Summary) bool {
		return s.Index == "" && s.Shard == "shardId-2" && s.Start.Equal(start.Add(time.Minute))
	})
	late := day.summaries[lateAt]
	stored, err := store.New(ddb, table, store.Options{WriteShards: 8, Retention: time.Hour})
	if err != nil {
		t.Fatal(err)
	}
	for i, s := range day.summaries {
		if i != lateAt {
			if err := stored.Put(ctx, s); err != nil {
				t.Fatal(err)
			}
		}
	}
	clock := start
	job, err := rollup.New(stored, rollup.Config{Window: time.Minute},
		slog.New(slog.DiscardHandler), func() time.Time { return clock })
	if err != nil {
		t.Fatal(err)
	}
	runAt := func(at time.Time) {
		clock = at
		if _, err := job.Run(ctx, at); err != nil {
			t.Fatal(err)
		}
	}
	for m := range 6 {
		runAt(start.Add(time.Duration(m+1)*time.Minute + rollup.Grace))
	}
	if err := stored.Put(ctx, late); err != nil {
		t.Fatal(err)
	}
	for m := range 3 {
		if m != 1 {
			runAt(start.Add(time.Duration(m+1)*time.Minute + rollup.Settle))
		}
	}
	historyEnv(t)
	span := []string{"--table", table, "--from", start.Format(time.RFC3339), "--to", start.Add(7 * time.Minute).Format(time.RFC3339), "--step", "1m", "--top", "5"}
	fromShards, msg := historyJSON(t, append(span, "--source", "shards")...)
	if n := checkTruth(t, "shards", day, fromShards); n != 7 || msg != "" {
		t.Errorf("--source shards: %d steps, stderr %q; want 7, nothing", n, msg)
	}
	got, msg := historyJSON(t, span...)
	want := "hotkeys history: read 6m from window rollups (4m of them not settled yet: a shard's window stored late joins its rollup up to 70 minutes after the window's end), 1m from the stream shards' windows\n"
	if msg != want {
		t.Errorf("stderr %q, want %q", msg, want)
	}
	// 10:28's rollup misses the late window until it is settled; every
	// other step is exactly what the shards' windows give.
	var unsettled report.Report
	for i, rep := range got {
		if rep.Index == "" && rep.Start.Equal(late.Start) {
			unsettled = rep
			got[i], got[i+1] = fromShards[i], fromShards[i+1] // checked below
			continue
		}
	}
	if unsettled.Records+late.Records != fromShards[2].Records || unsettled.WCU+late.WCU != fromShards[2].WCU {
		t.Errorf("10:28 before settling: %d records, %d WCU; want %d and %d, the late window's missing", unsettled.Records, unsettled.WCU,
			fromShards[2].Records-late.Records, fromShards[2].WCU-late.WCU)
	}
	if n := checkTruth(t, "rollups", day, got); n != 7 {
		t.Errorf("%d steps from rollups, want 7", n)
	}
	runAt(start.Add(2*time.Minute + rollup.Settle))
	got, msg = historyJSON(t, span...)
	if checkTruth(t, "settled rollups", day, got); !strings.Contains(msg, "3m of them not settled") {
		t.Errorf("after settling 10:28: stderr %q", msg)
	}
	// --source settled reads the shards' windows where rollups may still
	// miss a late one: the truth, and it says so.
	got, msg = historyJSON(t, append(span, "--source", "settled")...)
	if checkTruth(t, "settled only", day, got); msg != "hotkeys history: read 3m from window rollups, 4m from the stream shards' windows\n" {
		t.Errorf("--source settled: stderr %q", msg)
	}
	if diff := cmp.Diff(totals(fromShards), totals(got)); diff != "" {
		t.Errorf("totals per step, (-shards +rollups):\n%s", diff)
	}
}

// totals lists each step's source and totals, to compare two reads.
func totals(reps []report.Report) []string {
	var out []string
	for _, r := range reps {
		out = append(out, fmt.Sprintf("%s %s: %d records, %d WCU, %d TTL WCU, %d internal errors", history.Source(r.Table, r.Index),
			r.Start.Format("15:04"), r.Records, r.WCU, r.TTLWCU, r.InternalErrors))
	}
	return out
}

// TestHistoryPlan: an hour comes from its rollup when the step is whole
// hours, a window from its rollups when the step is whole windows, the
// rest from the shards' windows (or nothing, with --source rollups),
// adjacent spans of one kind merged.
func TestHistoryPlan(t *testing.T) {
	h := time.Date(2026, 11, 22, 10, 0, 0, 0, time.UTC)
	cov := &store.Coverage{WindowLength: time.Minute, Hours: map[int64]bool{h.Unix(): true, h.Unix() + 7200: true}, Windows: map[int64]bool{}}
	for m := range 62 {
		cov.Windows[h.Add(time.Hour+time.Duration(m)*time.Minute).Unix()] = m < 50
	}
	seg := func(level store.Level, a, b time.Duration, settled bool) segment {
		return segment{level: level, from: h.Add(a), to: h.Add(b), settled: settled}
	}
	for _, c := range []struct {
		name     string
		step     time.Duration
		from, to time.Duration
		shards   bool
		want     []segment
	}{
		{"hours", time.Hour, 0, 4 * time.Hour, true, []segment{seg(store.Hours, 0, time.Hour, true),
			seg(store.Windows, time.Hour, time.Hour+50*time.Minute, true), seg(store.Windows, time.Hour+50*time.Minute, 2*time.Hour, false),
			seg(store.Hours, 2*time.Hour, 3*time.Hour, true), seg(0, 3*time.Hour, 4*time.Hour, true)}},
		{"minutes", time.Minute, 30 * time.Minute, 2*time.Hour + 10*time.Minute, true, []segment{seg(0, 30*time.Minute, time.Hour, true),
			seg(store.Windows, time.Hour, time.Hour+50*time.Minute, true), seg(store.Windows, time.Hour+50*time.Minute, 2*time.Hour+2*time.Minute, false),
			seg(0, 2*time.Hour+2*time.Minute, 2*time.Hour+10*time.Minute, true)}},
		{"unaligned start", 5 * time.Minute, time.Hour + 90*time.Second, time.Hour + 5*time.Minute, true, []segment{
			seg(0, time.Hour+90*time.Second, time.Hour+2*time.Minute, true), seg(store.Windows, time.Hour+2*time.Minute, time.Hour+5*time.Minute, true)}},
		{"seconds", 30 * time.Second, time.Hour, time.Hour + 2*time.Minute, true, []segment{seg(0, time.Hour, time.Hour+2*time.Minute, true)}},
		{"only rollups", time.Hour, 0, 4 * time.Hour, false, []segment{seg(store.Hours, 0, time.Hour, true),
			seg(store.Windows, time.Hour, time.Hour+50*time.Minute, true), seg(store.Windows, time.Hour+50*time.Minute, 2*time.Hour, false),
			seg(store.Hours, 2*time.Hour, 3*time.Hour, true)}},
	} {
		got := plan(cov, c.step, h.Add(c.from), h.Add(c.to), c.shards, false)
		if diff := cmp.Diff(c.want, got, cmp.AllowUnexported(segment{})); diff != "" {
			t.Errorf("%s (-want +got):\n%s", c.name, diff)
		}
	}
	settled := plan(cov, time.Minute, h.Add(time.Hour), h.Add(2*time.Hour), true, true)
	if want := []segment{seg(store.Windows, time.Hour, time.Hour+50*time.Minute, true), seg(0, time.Hour+50*time.Minute, 2*time.Hour, true)}; !cmp.Equal(want, settled, cmp.AllowUnexported(segment{})) {
		t.Errorf("--source settled: %v, want %v", settled, want)
	}
	if got := describe(plan(cov, time.Hour, h, h.Add(4*time.Hour), false, false), h, h.Add(4*time.Hour)); got != "2h from hour rollups, 1h from window rollups (10m of them not settled yet: a shard's window stored late joins its rollup up to 70 minutes after the window's end), nothing for 1h without rollups (--source rollups)" {
		t.Errorf("describe: %s", got)
	}
}
