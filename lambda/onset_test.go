package main

import (
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/hotkeys-dev/hotkeys/ddb"
	"github.com/hotkeys-dev/hotkeys/detector"
	"github.com/hotkeys-dev/hotkeys/internal/testkit/fakesns"
)

// Time to detect, through the built bootstrap: a stream delivered as the
// event source mapping delivers it with MaximumBatchingWindowInSeconds = 1,
// batch by batch, with the state carried.
//
// The stream is scaled down tenfold so that a minute of it is 10 MB of
// events, not 100: the partition limit is 100 WCU/s and the critical rate
// 80 (HOTKEYS_PARTITION_LIMIT, HOTKEYS_CRITICAL_WCU_PER_SECOND). Nothing in
// the detector depends on the scale.

// onsetEnv is the function's configuration for these streams.
var onsetEnv = map[string]string{
	"HOTKEYS_PARTITION_KEY":           "PK",
	"HOTKEYS_PARTITION_LIMIT":         "100",
	"HOTKEYS_CRITICAL_WCU_PER_SECOND": "80",
	"HOTKEYS_MIN_WCU_PER_SECOND":      "10",
}

// streamKey is one key of a designed stream: its records' WCU, and how
// many it writes in each second of the window.
type streamKey struct {
	pk      string
	wcu     int
	records func(sec int) int
}

// streamRecord is one record of a designed stream, at its time within
// the window (seconds, fractional).
type streamRecord struct {
	at  float64
	pk  string
	wcu int
}

// design lays the keys' records out over seconds [0, n), each second's
// evenly spread within it, and returns them in time order.
func design(n int, keys ...streamKey) []streamRecord {
	var out []streamRecord
	for sec := range n {
		for _, k := range keys {
			m := k.records(sec)
			for j := range m {
				out = append(out, streamRecord{at: float64(sec) + (float64(j)+0.5)/float64(m), pk: k.pk, wcu: k.wcu})
			}
		}
	}
	slices.SortStableFunc(out, func(a, b streamRecord) int {
		switch {
		case a.at < b.at:
			return -1
		case a.at > b.at:
			return 1
		}
		return 0
	})
	return out
}

// streamBatch renders records [from, to) of a stream as one batch of a
// tumbling window starting at start, sequence numbers following the
// records' places in the stream.
// With final < 0 it is a plain batch.
func streamBatch(t testing.TB, start time.Time, recs []streamRecord, from, to int, final int) []byte {
	t.Helper()
	plainBatches := final < 0
	var b strings.Builder
	b.WriteString(`{"Records":[`)
	for i := from; i < to; i++ {
		r := recs[i]
		if i > from {
			b.WriteByte(',')
		}
		// An item of PK and a pad: r.wcu WCU (1 KB each, rounded up).
		pad := strings.Repeat("x", max(r.wcu*1024-200, 1))
		ts := float64(start.Unix()) + r.at
		fmt.Fprintf(&b, `{"eventID":"%032x","eventName":"INSERT","eventVersion":"1.1","eventSource":"aws:dynamodb","awsRegion":"us-east-1",`+
			`"dynamodb":{"ApproximateCreationDateTime":%.3f,"Keys":{"PK":{"S":%q}},"NewImage":{"PK":{"S":%q},"pad":{"S":%q}},`+
			`"SequenceNumber":"%021d","SizeBytes":%d,"StreamViewType":"NEW_AND_OLD_IMAGES"},"eventSourceARN":%q}`,
			i+1, ts, r.pk, r.pk, pad, 1_000_000+i, len(pad)+40, streamARN("Orders"))
	}
	if plainBatches {
		b.WriteString("]}")
		return []byte(b.String())
	}
	fmt.Fprintf(&b, `],"window":{"start":%q,"end":%q},"state":{},"shardId":"shardId-00000001","eventSourceARN":%q,"isFinalInvokeForWindow":%t,"isWindowTerminatedEarly":false}`,
		start.Format(time.RFC3339), start.Add(windowLength).Format(time.RFC3339), streamARN("Orders"), final == 1)
	return []byte(b.String())
}

// batchBounds splits a stream into the batches a 1-second batching window
// gives when records arrive from second -0.5 on: [k-0.5, k+0.5), each
// invoked at its end. It returns each batch's [from, to) and end.
func batchBounds(recs []streamRecord, window int) (bounds [][2]int, ends []float64) {
	from := 0
	for end := 0.5; ; end++ {
		to := from
		for to < len(recs) && recs[to].at < end {
			to++
		}
		last := end >= float64(window)
		if to > from || last {
			bounds = append(bounds, [2]int{from, to})
			ends = append(ends, min(end, float64(window)))
		}
		from = to
		if last {
			return bounds, ends
		}
	}
}

// announcedIn reports whether the tumbling state marks key announced.
func announcedIn(t testing.TB, state map[string]string, key string) bool {
	t.Helper()
	if state["hotkeys.window"] == "" {
		return false
	}
	set := detector.NewWindowSet(detector.DefaultConfig(), "", time.Unix(0, 0), time.Unix(1, 0))
	if err := set.UnmarshalState(state); err != nil {
		t.Fatal(err)
	}
	return set.Windows()[0].Announced(ddb.Key{Type: ddb.String, Value: []byte(key)})
}

// onsetLines returns the onset log lines of the function's output, once
// it holds every line of the invocations so far: drain makes one more
// invocation, whose log line comes after all of theirs.
func (f *function) onsetLines(t testing.TB, drains *int) []logLine {
	t.Helper()
	f.invoke(t, []byte(`{"Records":[{"eventID":"drain","eventName":"INSERT"`)) // logs an ERROR: not JSON in full
	*drains++
	const said = "payload could not be decoded in full"
	deadline := time.Now().Add(30 * time.Second)
	for strings.Count(f.output(), said) < *drains {
		if time.Now().After(deadline) {
			t.Fatal("the function's output never showed the drain invocation's line")
		}
		time.Sleep(20 * time.Millisecond)
	}
	var out []logLine
	for _, l := range f.lines(t) {
		if l.str("msg") == "hot partition key onset" {
			out = append(out, l)
		}
	}
	return out
}

// TestTimeToDetect: HOT crosses the critical rate at second 23 of a
// 60-second tumbling window; COOL runs at 70 WCU/s, under it, throughout.
// The onset must come within one batching window plus one second of the
// start of second 23, exactly once, and never for COOL; the window-close
// path (the report at the window's end) is measured in the same run.
func TestTimeToDetect(t *testing.T) {
	const crossing, window = 23, 60
	recs := design(window,
		streamKey{"HOT", 10, func(s int) int {
			if s >= crossing {
				return 9 // 90 WCU/s
			}
			return 1
		}},
		streamKey{"COOL", 10, func(int) int { return 7 }}, // 70 WCU/s
		streamKey{"USER#1", 1, func(int) int { return 5 }},
		streamKey{"USER#2", 1, func(int) int { return 3 }},
	)
	start := time.Now().Add(-10 * time.Minute).Truncate(windowLength)
	bounds, ends := batchBounds(recs, window)
	f := startFunction(t, onsetEnv)
	state := map[string]string{}
	onsetAt, closeAt := -1.0, -1.0
	for i, b := range bounds {
		final := 0
		if i == len(bounds)-1 {
			final = 1
		}
		state = tumblingResponse(t, f.invoke(t, withState(t, streamBatch(t, start, recs, b[0], b[1], final), state)))
		if onsetAt < 0 && announcedIn(t, state, "HOT") {
			onsetAt = ends[i]
		}
		if announcedIn(t, state, "COOL") {
			t.Errorf("COOL, at 70 WCU/s, announced after the batch ending at %.1f s", ends[i])
		}
		if closeAt < 0 && len(fromCloudWatch(t, f.cw).keys) > 0 {
			closeAt = ends[i]
		}
	}
	// The instant HOT's WCU within second 23 reached 80: its 8th record.
	var sum int
	var crossed float64
	for _, r := range recs {
		if r.pk == "HOT" && int(r.at) == crossing {
			if sum += r.wcu; sum >= 80 && crossed == 0 {
				crossed = r.at
			}
		}
	}
	toOnset, toClose := onsetAt-crossing, closeAt-crossing
	t.Logf("time to detect, in stream time from the start of second %d (from the record that reached the rate, at %.2f s): onset %.1f s (%.2f s), window close %.1f s (%.2f s); batching window 1 s, 60-s tumbling window",
		crossing, crossed, toOnset, onsetAt-crossed, toClose, closeAt-crossed)
	if onsetAt < 0 || toOnset > 1+1 || toOnset < 0 {
		t.Errorf("onset after %.1f s, want at most one batching window plus 1 s", toOnset)
	}
	if closeAt != window {
		t.Errorf("window-close path published at %.1f s, want %d", closeAt, window)
	}
	drains := 0
	lines := f.onsetLines(t, &drains)
	if len(lines) != 1 {
		t.Fatalf("%d onset lines, want 1: %v", len(lines), lines)
	}
	l := lines[0]
	at := start.Add(crossing * time.Second).UTC().Format(time.RFC3339)
	if l.str("key") != "HOT" || l.str("table") != "Orders" || l.str("second") != at ||
		l.num("second_wcu") < 80 || l.num("second_wcu") > 90 || l.str("severity") != "critical" || l.str("diagnosis") == "" {
		t.Errorf("onset line %v, want HOT at %s with 80 to 90 WCU in it", l, at)
	}
	checkOnsetEMF(t, f.lines(t), start.Add(crossing*time.Second), l.num("second_wcu"))
}

// checkOnsetEMF: the onset's metrics went out at 1-second resolution,
// stamped with its second.
func checkOnsetEMF(t *testing.T, lines []logLine, second time.Time, wcu float64) {
	t.Helper()
	found := map[string]bool{}
	for _, l := range emfLines(lines) {
		b, err := json.Marshal(l["_aws"])
		if err != nil {
			t.Fatal(err)
		}
		var meta struct {
			Timestamp         int64
			CloudWatchMetrics []struct {
				Dimensions [][]string
				Metrics    []struct {
					Name              string
					StorageResolution int
				}
			}
		}
		if err := json.Unmarshal(b, &meta); err != nil {
			t.Fatal(err)
		}
		for _, d := range meta.CloudWatchMetrics {
			for _, m := range d.Metrics {
				if m.StorageResolution != 1 {
					continue
				}
				if meta.Timestamp != second.UnixMilli() || l.num(m.Name) != wcu {
					t.Errorf("%s at %d = %v, want %d and %v", m.Name, meta.Timestamp, l.num(m.Name), second.UnixMilli(), wcu)
				}
				found[m.Name+fmt.Sprint(d.Dimensions)] = true
			}
		}
	}
	want := []string{"KeyPeakWCUPerSecond[[TableName PartitionKey]]", "OnsetPeakWCUPerSecond[[TableName]]"}
	if got := slices.Sorted(maps.Keys(found)); !slices.Equal(got, want) {
		t.Errorf("high-resolution EMF metrics %v, want %v", got, want)
	}
}

// TestOnsetOncePerWindow: however batches are delivered again (a batch
// with the state that already holds it, an earlier batch, a plain batch
// whose event ids were counted), a key is announced once per window.
func TestOnsetOncePerWindow(t *testing.T) {
	const window = 30
	recs := design(window,
		streamKey{"HOT", 10, func(s int) int { return 1 + 8*min(max(s-12, 0), 1) }}, // 90 WCU/s from second 12
		streamKey{"USER#1", 1, func(int) int { return 5 }},
	)
	// Recent enough for a plain batch's window to stay open (it closes by
	// the clock a window and the lateness after its end), and past.
	start := time.Now().Truncate(windowLength)
	if time.Since(start) < window*time.Second {
		start = start.Add(-windowLength)
	}
	bounds, _ := batchBounds(recs, window)
	for _, plain := range []bool{false, true} {
		t.Run(map[bool]string{false: "tumbling", true: "plain"}[plain], func(t *testing.T) {
			// The onset goes to an SNS topic too: once, in the tumbling
			// run; in the plain run SNS refuses it, which fails nothing.
			topic := fakesns.New()
			defer topic.Close()
			if plain {
				topic.FailNext(100, "AuthorizationError")
			}
			env := maps.Clone(onsetEnv)
			env["HOTKEYS_NOTIFY_TOPIC_ARN"] = "arn:aws:sns:us-east-1:123456789012:hotkeys-alarms"
			env["AWS_ENDPOINT_URL_SNS"] = topic.URL
			f := startFunction(t, env)
			state := map[string]string{}
			deliver := func(i int) {
				final := 0
				if plain {
					final = -1
				}
				ev := streamBatch(t, start, recs, bounds[i][0], bounds[i][1], final)
				if plain {
					plainResponse(t, f.invoke(t, ev))
					return
				}
				state = tumblingResponse(t, f.invoke(t, withState(t, ev, state)))
			}
			for i := range bounds {
				deliver(i)
				deliver(i) // again, with the state that holds it
				if i > 0 {
					deliver(i - 1) // and an earlier one
				}
			}
			drains := 0
			if lines := f.onsetLines(t, &drains); len(lines) != 1 || lines[0].str("key") != "HOT" {
				t.Errorf("onset lines %v, want HOT's alone", lines)
			}
			sent, errs := topic.Published(), 0.0
			for _, l := range emfLines(f.lines(t)) {
				errs += max(l.num("NotifyErrors"), 0)
			}
			switch {
			case !plain && (len(sent) != 1 || !strings.HasPrefix(sent[0].Subject, "Hot key HOT on Orders: ") || errs != 0):
				t.Errorf("notified %v, %v NotifyErrors; want HOT once", sent, errs)
			case plain && (len(sent) != 0 || topic.Attempts() != 1 || errs != 1):
				t.Errorf("SNS refusing: %d attempts, %v NotifyErrors; want 1 and 1", topic.Attempts(), errs)
			}
		})
	}
}

// admitted runs the demand, in time order, through the admission model
// of one partition (ddb.Admission): it returns what the stream shows (the
// admitted writes) and the seconds in which the model throttled.
func admitted(limit int, demand []streamRecord) (admitted []streamRecord, throttled []int) {
	a := ddb.NewAdmission(uint64(limit))
	for _, r := range demand {
		sec := int(r.at)
		if !a.Admit(int64(sec), uint64(r.wcu)) {
			if !slices.Contains(throttled, sec) {
				throttled = append(throttled, sec)
			}
			continue
		}
		admitted = append(admitted, r)
	}
	return admitted, throttled
}

// TestSaturationUnderBootstrap: a partition admits at most 100 WCU/s (the
// tenfold scale of 1,000) while HOT's demand is 250 during seconds 20 to
// 29 and 30 to 31: the stream shows HOT pinned at the cap. The window's
// report flags HOT and its stream shard saturated for exactly the seconds
// the model throttled, and nothing else; the onset comes with the first
// throttled second.
func TestSaturationUnderBootstrap(t *testing.T) {
	const window = 60
	demand := design(window,
		streamKey{"HOT", 10, func(s int) int {
			if s >= 20 && s < 30 || s == 40 || s == 41 {
				return 25 // 250 WCU/s of demand
			}
			return 3
		}},
		streamKey{"COOL", 10, func(int) int { return 1 }},
		streamKey{"USER#1", 1, func(int) int { return 5 }},
	)
	recs, throttled := admitted(100, demand)
	if len(throttled) != 12 {
		t.Fatalf("the model throttled in seconds %v, want 12 of them", throttled)
	}
	start := time.Now().Add(-10 * time.Minute).Truncate(windowLength)
	bounds, _ := batchBounds(recs, window)
	env := maps.Clone(onsetEnv)
	env["HOTKEYS_METRICS"] = "emf"
	f := startFunction(t, env)
	state := map[string]string{}
	for i, b := range bounds {
		final := 0
		if i == len(bounds)-1 {
			final = 1
		}
		state = tumblingResponse(t, f.invoke(t, withState(t, streamBatch(t, start, recs, b[0], b[1], final), state)))
	}
	drains := 0
	onsets := f.onsetLines(t, &drains)
	if len(onsets) != 1 || onsets[0].str("key") != "HOT" || onsets[0].str("second") != start.Add(20*time.Second).UTC().Format(time.RFC3339) {
		t.Errorf("onsets %v, want HOT's at second 20", onsets)
	}
	type sat struct {
		Key       string
		Seconds   float64
		Saturated bool
	}
	var got []sat
	for _, l := range f.lines(t) {
		switch l.str("msg") {
		case "hot partition key":
			got = append(got, sat{l.str("key"), max(l.num("saturated_seconds"), 0), l["saturated"] == true})
		case "stream shard saturated":
			got = append(got, sat{"shard " + l.str("shard"), l.num("saturated_seconds"), true})
		}
	}
	// COOL is flagged (a warning: its share), never saturated: the
	// partition throttled it too, but it never ran near the cap.
	want := []sat{{"HOT", 12, true}, {"COOL", 0, false}, {"shard shardId-00000001", 12, true}}
	if !slices.Equal(got, want) {
		t.Errorf("saturated %v, want %v", got, want)
	}
}
