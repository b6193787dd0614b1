package main

import (
	"encoding/json"
	"math"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// Scenarios beyond single files, all run through the built bootstrap.

// TestTumblingSequence delivers one window in three invocations, carrying
// each response's state into the next event as the event source mapping
// does, and checks that the final report is the one a single big batch
// gives, that redelivered batches count once, and that a window Lambda
// ends early is published as it stands.
func TestTumblingSequence(t *testing.T) {
	shift := recentShift()
	p1 := shiftEvent(readSample(t, "tumbling-window-1.json"), shift)
	p2 := shiftEvent(readSample(t, "tumbling-window-2.json"), shift)
	p3 := shiftEvent(readSample(t, "tumbling-window-final.json"), shift)
	seq := sampleByFile("tumbling-window-final.json")
	check := windowCheck{table: "Orders", start: seq.Window.Add(shift), want: tumblingSequence, truth: sequenceTruth(t), shard: true}

	// run delivers the batches in order, with the state carried, and
	// returns what was published.
	run := func(t *testing.T, batches ...[]byte) (*published, []logLine) {
		t.Helper()
		f := startFunction(t, pkEnv)
		state := map[string]string{}
		for i, p := range batches {
			resp := f.invoke(t, withState(t, p, state))
			state = tumblingResponse(t, resp)
			last := i == len(batches)-1
			checkState(t, state, !last)
			if !last && f.cw.Attempts() != 0 {
				t.Fatalf("batch %d of %d published before the final invoke", i+1, len(batches))
			}
		}
		lines := f.lines(t)
		return fromCloudWatch(t, f.cw), findings(lines)
	}

	var seqPub, bigPub *published
	var seqFound, bigFound []logLine
	t.Run("state carried over three invocations", func(t *testing.T) {
		seqPub, seqFound = run(t, p1, p2, p3)
		checkWindow(t, check, seqPub, seqFound)
	})
	t.Run("one big batch", func(t *testing.T) {
		bigPub, bigFound = run(t, joinRecords(t, p1, p2, p3))
		checkWindow(t, check, bigPub, bigFound)
	})
	t.Run("sequence equals big batch", func(t *testing.T) {
		if seqPub == nil || bigPub == nil {
			t.Skip("a run failed")
		}
		// The same metrics, keys' included, and the same findings, whole.
		opt := cmp.AllowUnexported(metric{})
		if diff := cmp.Diff(bigPub.table, seqPub.table, opt); diff != "" {
			t.Errorf("table metrics (-one batch +three invocations):\n%s", diff)
		}
		if diff := cmp.Diff(bigPub.keys, seqPub.keys, opt); diff != "" {
			t.Errorf("key metrics (-one batch +three invocations):\n%s", diff)
		}
		if diff := cmp.Diff(bigFound, seqFound); diff != "" {
			t.Errorf("findings (-one batch +three invocations):\n%s", diff)
		}
	})
	t.Run("redelivered batches count once", func(t *testing.T) {
		f := startFunction(t, pkEnv)
		s1 := tumblingResponse(t, f.invoke(t, withState(t, p1, map[string]string{})))
		s2 := tumblingResponse(t, f.invoke(t, withState(t, p2, s1)))
		// Lambda may deliver a batch again with the state that already
		// holds it (at-least-once), and even an earlier one.
		s2 = tumblingResponse(t, f.invoke(t, withState(t, p2, s2)))
		s2 = tumblingResponse(t, f.invoke(t, withState(t, p1, s2)))
		// A retried invocation gets the state from before it: counting it
		// again then is right, and must give the same state.
		again := tumblingResponse(t, f.invoke(t, withState(t, p2, s1)))
		tumblingResponse(t, f.invoke(t, withState(t, p3, s2)))
		checkWindow(t, check, fromCloudWatch(t, f.cw), findings(f.lines(t)))

		g := startFunction(t, pkEnv)
		tumblingResponse(t, g.invoke(t, withState(t, p3, again)))
		checkWindow(t, check, fromCloudWatch(t, g.cw), findings(g.lines(t)))
	})
	t.Run("window terminated early", func(t *testing.T) {
		f := startFunction(t, pkEnv)
		s1 := tumblingResponse(t, f.invoke(t, withState(t, p1, map[string]string{})))
		state := tumblingResponse(t, f.invoke(t, withFlags(t, withState(t, p2, s1), false, true)))
		if len(state) != 0 {
			// The next invoke continues the window with a fresh state:
			// keeping the published records would count them twice.
			t.Errorf("state after an early termination still holds %d entries", len(state))
		}
		tr, err := analyse("PK", readSample(t, "tumbling-window-1.json"), readSample(t, "tumbling-window-2.json"))
		if err != nil {
			t.Fatal(err)
		}
		want := expect{Records: 240, WCU: 240, Hot: []wantKey{{Key: "TENANT#acme", Severity: "warning", Pattern: "single_key", WCU: 160, Peak: 120}}}
		lines := f.lines(t)
		checkWindow(t, windowCheck{table: "Orders", start: check.start, want: want, truth: tr, shard: true, early: true}, fromCloudWatch(t, f.cw), findings(lines))
		said := false
		for _, l := range lines {
			said = said || (l.str("msg") == "window terminated early" && l.num("records") == 240)
		}
		if !said {
			t.Error("no log line says the window was terminated early")
		}
	})
}

// TestMalformedNeverFailsTheBatch: malformed records are skipped and counted
// in the window's MalformedRecords, wherever they fall, and never fail the
// batch.
func TestMalformedNeverFailsTheBatch(t *testing.T) {
	shift := recentShift()
	raw := shiftEvent(readSample(t, "malformed-record.json"), shift)
	s := sampleByFile("malformed-record.json")
	tr, err := analyse("PK", readSample(t, "malformed-record.json"))
	if err != nil {
		t.Fatal(err)
	}
	// Split the sample: the malformed record alone in a first, non-final
	// batch, then the good ones in the final batch.
	var ev struct {
		Records []json.RawMessage
	}
	if err := json.Unmarshal(raw, &ev); err != nil {
		t.Fatal(err)
	}
	var bad, good []json.RawMessage
	for _, r := range ev.Records {
		if strings.Contains(string(r), `"BOOLEAN"`) {
			bad = append(bad, r)
		} else {
			good = append(good, r)
		}
	}
	if len(bad) != 1 {
		t.Fatalf("%d malformed records in the sample", len(bad))
	}
	withRecords := func(recs []json.RawMessage, final bool) []byte {
		var m map[string]json.RawMessage
		json.Unmarshal(raw, &m)
		m["Records"], _ = json.Marshal(recs)
		out, _ := json.Marshal(m)
		return withFlags(t, out, final, false)
	}
	f := startFunction(t, pkEnv)
	state := tumblingResponse(t, f.invoke(t, withRecords(bad, false)))
	tumblingResponse(t, f.invoke(t, withState(t, withRecords(good, true), state)))
	checkWindow(t, windowCheck{table: "Orders", start: s.Window.Add(shift), want: s.Want, truth: tr, shard: true}, fromCloudWatch(t, f.cw), findings(f.lines(t)))

	// Not even JSON: Lambda never sends that, but the function answers
	// (there is nothing a retry could fix) instead of blocking the shard.
	for _, payload := range []string{`{"Records": [{"eventID": "1", "eventName": "INSERT"`, `[]`, `{}`, `{"Records": null}`, `{"Records": [42, "x", null]}`} {
		resp, err := f.invokeRaw([]byte(payload))
		var r struct {
			Failures []json.RawMessage `json:"batchItemFailures"`
		}
		if err != nil || resp.Err() != nil || json.Unmarshal(resp.Body, &r) != nil || len(r.Failures) != 0 {
			t.Errorf("payload %s: response %s, %v, %v; want a success with no batch item failures", payload, resp.Body, resp.Err(), err)
		}
	}
}

// TestPlainBatchRedelivered: in a warm container, a plain batch delivered
// twice counts once in its window, which is published when record time
// moves past it.
func TestPlainBatchRedelivered(t *testing.T) {
	// The function closes a plain batch's window by its own clock too, once
	// the clock is a window and the lateness (2 min by default) past
	// the window's end. Here only record time may close it, whenever the
	// test runs: the batches, made at t0, are moved by whole minutes to an
	// hour past the clock's minute. CloudWatch takes datapoints up to two
	// hours ahead, and the clock cannot reach the window before the test
	// times out.
	shift := time.Now().UTC().Truncate(time.Minute).Add(time.Hour).Sub(t0)
	w := t0.Add(shift)
	a := &sample{Table: "Orders", PKName: "PK", SKName: "SK", Shape: plainBatch, Window: t0, records: func(g *gen) {
		for i := range 120 {
			g.insert(10, "OPS_LOG", g.logSK(10, i), 1)
		}
		g.customerTail(50, 0, 0, 50, 0, 59, 10)
	}}
	later := &sample{Table: "Orders", PKName: "PK", SKName: "SK", Shape: plainBatch, Window: t0.Add(4 * time.Minute), records: func(g *gen) {
		g.customerTail(10, 0, 0, 10, 0, 9, -1)
	}}
	batchA, batchB := shiftEvent(a.render(), shift), shiftEvent(later.render(), shift)
	tr, err := analyse("PK", batchA)
	if err != nil {
		t.Fatal(err)
	}
	f := startFunction(t, pkEnv)
	plainResponse(t, f.invoke(t, batchA))
	plainResponse(t, f.invoke(t, batchA))
	if n := f.cw.Attempts(); n != 0 {
		t.Fatalf("the window was published (%d requests) before record time passed it", n)
	}
	plainResponse(t, f.invoke(t, batchB))
	want := expect{Records: 170, WCU: 170, Hot: []wantKey{{Key: "OPS_LOG", Severity: "warning", Pattern: "single_key", WCU: 120, Peak: 120}}}
	checkWindow(t, windowCheck{table: "Orders", start: w, want: want, truth: tr}, fromCloudWatch(t, f.cw), findings(f.lines(t)))
}

// TestCriticalKey: one item rewritten at 900 WCU/s, near the 1,000 WCU/s
// partition cap, is critical; the batch is 1.8 MB, like a full one.
func TestCriticalKey(t *testing.T) {
	shift := recentShift()
	s := &sample{Table: "Orders", PKName: "PK", SKName: "SK", Shape: tumblingFinal, Window: t0, Shard: "shardId-00000001795305600000-00c0ffee",
		records: func(g *gen) {
			for range 90 {
				g.modify(15, "INVENTORY#sku-000042", "STOCK", 10, 10)
			}
			g.customerTail(100, 0, 0, 100, 0, 59, 15)
		}}
	raw := s.render()
	tr, err := analyse("PK", raw)
	if err != nil {
		t.Fatal(err)
	}
	want := expect{Records: 190, WCU: 1000, Hot: []wantKey{{Key: "INVENTORY#sku-000042", Severity: "critical", Pattern: "single_item", WCU: 900, Peak: 900}}}
	f := startFunction(t, pkEnv)
	tumblingResponse(t, f.invoke(t, shiftEvent(raw, shift)))
	found := findings(f.lines(t))
	checkWindow(t, windowCheck{table: "Orders", start: t0.Add(shift), want: want, truth: tr, shard: true}, fromCloudWatch(t, f.cw), found)
	for _, l := range found {
		if l.str("level") != "ERROR" || l.num("recommended_shards") != 2 {
			t.Errorf("critical finding: level %q, recommended shards %g; want ERROR and ceil(900/1000×1.5) = 2", l.str("level"), l.num("recommended_shards"))
		}
	}
}

// TestLongTail: 2,600 writes over 1,500 customers (Zipf), more keys than the
// sketch has counters, with one customer bursting to 100 WCU in a second.
// Every key the exact oracle flags is flagged, every bound brackets the
// truth, totals are exact and the distinct count is within 2 %.
func TestLongTail(t *testing.T) {
	shift := recentShift()
	s := &sample{Table: "Orders", PKName: "PK", SKName: "SK", Shape: tumblingFinal, Window: t0, Shard: "shardId-00000001795305600000-7a11a11a",
		records: func(g *gen) {
			ids := make([]string, 1500)
			for i := range ids {
				ids[i] = "CUSTOMER#" + g.uuid()
			}
			z := rand.NewZipf(g.rng, 1.1, 1, uint64(len(ids)-1))
			for i := range 2500 {
				w := 1
				if r := g.rng.IntN(20); r == 0 {
					w = 3
				} else if r < 4 {
					w = 2
				}
				g.insert(i*60/2500, ids[z.Uint64()], g.orderSK(), w)
			}
			for range 100 {
				g.insert(42, ids[0], g.orderSK(), 1)
			}
		}}
	raw := s.render()
	if len(raw) > 6<<20 {
		t.Fatalf("batch of %d bytes is over Lambda's 6 MB", len(raw))
	}
	tr, err := analyse("PK", raw)
	if err != nil {
		t.Fatal(err)
	}
	f := startFunction(t, pkEnv)
	tumblingResponse(t, f.invoke(t, shiftEvent(raw, shift)))
	pub := fromCloudWatch(t, f.cw)
	found := findings(f.lines(t))
	if len(tr.Keys) <= 256 {
		t.Fatalf("only %d keys: the test needs more keys than the sketch's counters", len(tr.Keys))
	}
	flagged := map[string]logLine{}
	for _, l := range found {
		flagged[l.str("key")] = l
		kt := tr.Keys[l.str("key")]
		if kt == nil {
			t.Errorf("flagged key %q was never written", l.str("key"))
			continue
		}
		if !(l.num("wcu_lower") <= float64(kt.WCU) && float64(kt.WCU) <= l.num("wcu_upper")) || l.num("peak_wcu_per_second") > float64(kt.peak()) {
			t.Errorf("key %s: [%g, %g] peak %g; truth %d, peak %d", l.str("key"), l.num("wcu_lower"), l.num("wcu_upper"), l.num("peak_wcu_per_second"), kt.WCU, kt.peak())
		}
	}
	truthFlags := tr.flagged(defaultShare, defaultMinRate, defaultCritical)
	if len(truthFlags) == 0 {
		t.Fatal("the design flags no key: the test would prove nothing")
	}
	for key := range truthFlags {
		if _, ok := flagged[key]; !ok {
			t.Errorf("key %s (share %.3f, peak %d) is not flagged", key, float64(tr.Keys[key].WCU)/float64(tr.WCU), tr.Keys[key].peak())
		}
	}
	for name, want := range map[string]float64{"WriteCapacityUnits": float64(tr.WCU), "StreamRecords": float64(tr.Records), "HotKeys": float64(len(found))} {
		if got := pub.table[name].value; got != want {
			t.Errorf("%s = %g, want %g", name, got, want)
		}
	}
	if d, n := pub.table["DistinctPartitionKeys"].value, float64(len(tr.Keys)); math.Abs(d-n) > 0.02*n {
		t.Errorf("DistinctPartitionKeys = %g, truth %g", d, n)
	}
}
