package detector

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/hotkeys-dev/hotkeys/ddb"
	"github.com/hotkeys-dev/hotkeys/record"
	"github.com/hotkeys-dev/hotkeys/redact"
	"github.com/hotkeys-dev/hotkeys/report"
	"github.com/hotkeys-dev/hotkeys/sketch"
)

var t0 = time.Date(2026, 11, 22, 10, 0, 0, 0, time.UTC)

// rec builds a record of an S partition key (and S sort key when sk != "").
func rec(table, pk, sk string, wcu uint64, at time.Time) *record.Record {
	r := &record.Record{
		Table: table, EventName: record.Insert, Time: at, WCU: wcu, WCUExact: true,
		PartitionKey:   ddb.Key{Type: ddb.String, Value: []byte(pk)},
		SequenceNumber: []byte("1"),
	}
	if sk != "" {
		r.SortKey = ddb.Key{Type: ddb.String, Value: []byte(sk)}
	}
	return r
}

// oracle is the exact truth of a stream: per-key WCU and per-key peak WCU
// within one second.
type oracle struct {
	total   uint64
	wcu     map[string]uint64
	perSec  map[string]map[int64]uint64
	records uint64
}

func newOracle() *oracle {
	return &oracle{wcu: map[string]uint64{}, perSec: map[string]map[int64]uint64{}}
}

func (o *oracle) add(r *record.Record) {
	k := string(r.PartitionKey.Value)
	o.total += r.WCU
	o.records++
	o.wcu[k] += r.WCU
	if o.perSec[k] == nil {
		o.perSec[k] = map[int64]uint64{}
	}
	o.perSec[k][r.Time.Unix()] += r.WCU
}

func (o *oracle) peak(k string) uint64 {
	var p uint64
	for _, v := range o.perSec[k] {
		p = max(p, v)
	}
	return p
}

// skewedStream is one minute of a table: a Zipf tail over many keys, plus
// hot keys of known rates, in time order as a shard delivers them.
func skewedStream(seed uint64, tailKeys int, tailPerSec int, hot map[string]int) []*record.Record {
	rng := rand.New(rand.NewPCG(seed, 1))
	zipf := rand.NewZipf(rng, 1.1, 1, uint64(tailKeys-1))
	var out []*record.Record
	for s := range 60 {
		at := t0.Add(time.Duration(s) * time.Second)
		for range tailPerSec {
			k := fmt.Sprintf("USER#%08d", zipf.Uint64())
			out = append(out, rec("Orders", k, "", 1+uint64(rng.IntN(3)), at))
		}
		for k, rate := range hot {
			// Bursty: some seconds run at twice the rate.
			n := rate
			if rng.IntN(10) == 0 {
				n *= 2
			}
			for range n {
				out = append(out, rec("Orders", k, "", 1, at))
			}
		}
	}
	rng.Shuffle(len(out), func(i, j int) {
		// Shuffle only within a second: a shard's records stay in order
		// across seconds.
		if out[i].Time.Equal(out[j].Time) {
			out[i], out[j] = out[j], out[i]
		}
	})
	return out
}

func TestReportAgainstOracle(t *testing.T) {
	hot := map[string]int{"OPS_LOG": 900, "STATUS#ACTIVE": 300, "DATE#2026-11-22": 150}
	recs := skewedStream(7, 200_000, 2000, hot)
	cfg := DefaultConfig()
	d, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	o := newOracle()
	for _, r := range recs {
		o.add(r)
		if err := d.Add(r); err != nil {
			t.Fatal(err)
		}
	}
	reps := d.FlushAll()
	if len(reps) != 1 {
		t.Fatalf("got %d reports, want 1", len(reps))
	}
	rep := reps[0]
	if rep.WCU != o.total || rep.Records != o.records {
		t.Errorf("window WCU %d records %d, want exact %d and %d", rep.WCU, rep.Records, o.total, o.records)
	}
	if !rep.Start.Equal(t0) || !rep.End.Equal(t0.Add(time.Minute)) {
		t.Errorf("window [%s, %s), want [%s, +1m)", rep.Start, rep.End, t0)
	}
	if e := relErr(rep.DistinctKeys, uint64(len(o.wcu))); e > 0.02 {
		t.Errorf("distinct keys %d, truth %d: error %.2f%% > 2%%", rep.DistinctKeys, len(o.wcu), e*100)
	}
	flagged := map[string]report.KeyReport{}
	for _, k := range rep.HotKeys {
		flagged[k.Key] = k
	}
	for k, w := range o.wcu {
		share := float64(w) / float64(o.total)
		if share >= cfg.ShareThreshold && float64(o.peak(k)) >= cfg.MinWCUPerSecond {
			if _, ok := flagged[k]; !ok {
				t.Errorf("key %s with true share %.3f and peak %d was not flagged", k, share, o.peak(k))
			}
		}
	}
	for _, list := range [][]report.KeyReport{rep.HotKeys, rep.TopKeys} {
		for _, k := range list {
			truth := o.wcu[k.Key]
			if k.WCULower > truth || truth > k.WCUUpper {
				t.Errorf("key %s: bounds [%d, %d] do not bracket true WCU %d", k.Key, k.WCULower, k.WCUUpper, truth)
			}
			if p := o.peak(k.Key); k.PeakWCUPerSecond > float64(p) {
				t.Errorf("key %s: peak %.0f above the true peak %d", k.Key, k.PeakWCUPerSecond, p)
			} else if k.WCULower == k.WCUUpper && k.PeakWCUPerSecond != float64(p) {
				t.Errorf("key %s tracked exactly: peak %.0f, want %d", k.Key, k.PeakWCUPerSecond, p)
			}
		}
	}
	listed := map[string]bool{}
	for _, k := range rep.TopKeys {
		listed[k.Key] = true
	}
	for k, w := range o.wcu {
		if !listed[k] && w > rep.OtherKeysWCUUpper {
			t.Errorf("key %s, not in top_keys, wrote %d WCU: above other_keys_wcu_upper %d", k, w, rep.OtherKeysWCUUpper)
		}
	}
	if got := flagged["OPS_LOG"]; got.Severity != report.Critical {
		t.Errorf("OPS_LOG at 900–1800 WCU/s: severity %q, want critical", got.Severity)
	}
	if len(rep.TopKeys) != cfg.Top {
		t.Errorf("top keys: %d, want %d", len(rep.TopKeys), cfg.Top)
	}
	for i := 1; i < len(rep.TopKeys); i++ {
		if rep.TopKeys[i].WCU > rep.TopKeys[i-1].WCU {
			t.Errorf("top keys not ordered by WCU at %d", i)
		}
	}
}

func relErr(got, want uint64) float64 {
	return math.Abs(float64(got)-float64(want)) / float64(want)
}

func TestWindowsAlignAndLateRecordsAreCounted(t *testing.T) {
	cfg := DefaultConfig()
	cfg.Window = 10 * time.Second
	cfg.Lateness = 0
	d, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	base := time.Unix(1_763_805_603, 0) // 3 s past a multiple of 10 s
	for i := range 25 {
		if err := d.Add(rec("T1", "k", "", 1, base.Add(time.Duration(i)*time.Second))); err != nil {
			t.Fatal(err)
		}
	}
	// A straggler for a window that is still open counts in it, even though
	// record time has passed that window's end plus lateness.
	if err := d.Add(rec("T1", "k", "", 1, base)); err != nil {
		t.Fatal(err)
	}
	reps := d.Flush()
	// Records span [..603, ..627]: windows ..600 and ..610 are past; ..620 is open.
	window := func(start int64, records, late, malformed uint64) report.Report {
		return report.Report{
			Window: report.Window{Table: "T1", Start: time.Unix(start, 0), End: time.Unix(start+10, 0)},
			Totals: report.Totals{Records: records, WCU: records, Late: late, Malformed: malformed}, DistinctKeys: 1,
			HotKeys: []report.KeyReport{}, Shards: []report.ShardReport{},
		}
	}
	// The one key's figures are exact; the rest of a key report is
	// another test's business.
	checkTop := func(reps []report.Report) {
		t.Helper()
		for _, r := range reps {
			if len(r.TopKeys) != 1 || r.TopKeys[0].Key != "k" || r.TopKeys[0].WCULower != r.Records || r.TopKeys[0].WCUUpper != r.Records {
				t.Errorf("window %v: top keys %+v, want k with exactly %d WCU", r.Start, r.TopKeys, r.Records)
			}
		}
	}
	noTop := cmpopts.IgnoreFields(report.Report{}, "TopKeys")
	if diff := cmp.Diff([]report.Report{window(1_763_805_600, 8, 0, 0), window(1_763_805_610, 10, 0, 0)}, reps, noTop); diff != "" {
		t.Errorf("Flush (-want +got):\n%s", diff)
	}
	checkTop(reps)
	// A straggler for a closed window is counted as late, not lost.
	if err := d.Add(rec("T1", "k", "", 1, base)); err != nil {
		t.Fatal(err)
	}
	d.AddMalformed("")
	last := d.FlushAll()
	if diff := cmp.Diff([]report.Report{window(1_763_805_620, 8, 1, 1)}, last, noTop); diff != "" {
		t.Errorf("FlushAll (-want +got):\n%s", diff)
	}
	checkTop(last)
}

func TestClassify(t *testing.T) {
	tests := []struct {
		key       string
		sortKeyed bool
		many      bool
		want      report.Pattern
	}{
		{"OPS_LOG", true, true, report.PatternSingleKey},
		{"tenant-42", true, true, report.PatternSingleKey},
		{"STATUS#ACTIVE", true, true, report.PatternLowCardinality},
		{"TYPE#ORDER", true, true, report.PatternLowCardinality},
		{"pending", true, true, report.PatternLowCardinality},
		{"status:Pending", true, true, report.PatternLowCardinality},
		{"ACTIVE", true, true, report.PatternLowCardinality},
		{"OPS", true, true, report.PatternSingleKey},
		{"DATE#2026-11-22", true, true, report.PatternTimeBucket},
		{"HOUR#2026-11-22T10", true, true, report.PatternTimeBucket},
		{"EVENTS#20261122", true, true, report.PatternTimeBucket},
		{"bucket#1763805600", true, true, report.PatternTimeBucket},
		{"DATE#2026-11-22", false, false, report.PatternTimeBucket},
		{"COUNTER#page_views", true, false, report.PatternSingleItem},
		{"COUNTER#page_views", false, false, report.PatternSingleItem},
		{"STATUS#ACTIVE", false, false, report.PatternSingleItem},
		{"USER#8d3c1f", true, true, report.PatternSingleKey},
	}
	for _, tt := range tests {
		got := classify(keyShape{text: tt.key, isString: true, sortKeyed: tt.sortKeyed, manyItems: tt.many})
		if got != tt.want {
			t.Errorf("classify(%q, sortKeyed=%v, many=%v) = %s, want %s", tt.key, tt.sortKeyed, tt.many, got, tt.want)
		}
	}
}

func TestRecommendedShards(t *testing.T) {
	for _, tt := range []struct {
		peak float64
		want int
	}{{0, 2}, {500, 2}, {1000, 2}, {1400, 3}, {2000, 3}, {2001, 4}, {9000, 14}} {
		if got := RecommendedShards(tt.peak, 1000); got != tt.want {
			t.Errorf("RecommendedShards(%v) = %d, want %d", tt.peak, got, tt.want)
		}
	}
}

// shardedWindow writes one minute of a sharded key with the given per-shard
// rates (WCU/s), over a light tail.
func shardedWindow(t *testing.T, cfg Config, base string, rates []int) report.Report {
	t.Helper()
	w, err := NewWindow(cfg.Sketch, "Orders", t0, t0.Add(time.Minute))
	if err != nil {
		t.Fatal(err)
	}
	for s := range 60 {
		at := t0.Add(time.Duration(s) * time.Second)
		for i := range 50 {
			w.Add(rec("Orders", fmt.Sprintf("USER#%d", s*50+i), "P", 1, at))
		}
		for n, rate := range rates {
			for i := range rate {
				w.Add(rec("Orders", fmt.Sprintf("%s%d", base, n), fmt.Sprint(i), 1, at))
			}
		}
	}
	return w.Report(cfg)
}

func findKey(ks []report.KeyReport, key string) (report.KeyReport, bool) {
	for _, k := range ks {
		if k.Key == key {
			return k, true
		}
	}
	return report.KeyReport{}, false
}

func TestShardedKeys(t *testing.T) {
	cfg := DefaultConfig()
	tests := []struct {
		name, base string
		rates      []int
		want       report.Pattern // "" = the logical key must not be flagged
		shards     int
	}{
		{"uneven", "ORDERS#SHARD_", []int{400, 60, 60, 60, 60, 60, 60, 60}, report.PatternShardedUneven, 8},
		{"too few", "EVENTS#SHARD#", []int{850, 850}, report.PatternShardedTooFew, 3},
		{"even and enough", "ORDERS#", []int{120, 120, 120, 120}, "", 2},
		{"one shard nearly idle", "ORDERS#SHARD_", []int{200, 200, 5}, report.PatternShardedUneven, 3},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rep := shardedWindow(t, cfg, tt.base, tt.rates)
			logical := strings.TrimRight(strings.TrimSuffix(strings.TrimSuffix(tt.base, "SHARD_"), "SHARD#"), "#") + "#<shard>"
			k, ok := findKey(rep.HotKeys, logical)
			if tt.want == "" {
				if ok {
					t.Fatalf("evenly sharded key flagged: %+v", k)
				}
				return
			}
			if !ok {
				t.Fatalf("logical key %s not flagged; hot keys: %+v", logical, rep.HotKeys)
			}
			if k.Pattern != tt.want || k.RecommendedShards != tt.shards {
				t.Errorf("pattern %s, %d shards recommended; want %s, %d", k.Pattern, k.RecommendedShards, tt.want, tt.shards)
			}
			var sum uint64
			for _, r := range tt.rates {
				sum += uint64(r) * 60
			}
			if k.WCULower > sum || sum > k.WCUUpper {
				t.Errorf("logical WCU bounds [%d, %d] miss the truth %d", k.WCULower, k.WCUUpper, sum)
			}
			if k.Diagnosis == "" || strings.Contains(k.Diagnosis, tt.base) {
				t.Errorf("diagnosis empty or quoting the key: %q", k.Diagnosis)
			}
		})
	}
}

func TestMergeMatchesSingleWindow(t *testing.T) {
	cfg := DefaultConfig()
	recs := skewedStream(11, 50_000, 500, map[string]int{"HOT": 400})
	whole, _ := NewWindow(cfg.Sketch, "Orders", t0, t0.Add(time.Minute))
	parts := make([]*Window, 4)
	for i := range parts {
		parts[i], _ = NewWindow(cfg.Sketch, "Orders", t0, t0.Add(time.Minute))
	}
	o := newOracle()
	for i, r := range recs {
		o.add(r)
		whole.Add(r)
		parts[i%4].Add(r) // parallel batches of one shard interleave
	}
	merged := parts[0]
	for _, p := range parts[1:] {
		// Through the wire, as Lambda state would travel.
		b, err := p.MarshalBinary()
		if err != nil {
			t.Fatal(err)
		}
		q, err := UnmarshalWindow(b, cfg.Sketch)
		if err != nil {
			t.Fatal(err)
		}
		if err := merged.Merge(q); err != nil {
			t.Fatal(err)
		}
	}
	mr, wr := merged.Report(cfg), whole.Report(cfg)
	if mr.WCU != wr.WCU || mr.WCU != o.total || mr.Records != o.records || wr.Records != o.records {
		t.Errorf("merged WCU %d records %d, single %d and %d, truth %d and %d", mr.WCU, mr.Records, wr.WCU, wr.Records, o.total, o.records)
	}
	if e := relErr(mr.DistinctKeys, uint64(len(o.wcu))); e > 0.02 {
		t.Errorf("merged distinct keys %d, truth %d: error %.2f%% > 2%%", mr.DistinctKeys, len(o.wcu), e*100)
	}
	if len(mr.TopKeys) != cfg.Top {
		t.Fatalf("merged report has %d top keys, want %d", len(mr.TopKeys), cfg.Top)
	}
	for _, k := range mr.TopKeys {
		if truth := o.wcu[k.Key]; k.WCULower > truth || truth > k.WCUUpper {
			t.Errorf("merged key %s: [%d, %d] misses %d", k.Key, k.WCULower, k.WCUUpper, truth)
		}
		if k.PeakWCUPerSecond > float64(o.peak(k.Key)) {
			t.Errorf("merged key %s: peak %.0f above truth %d", k.Key, k.PeakWCUPerSecond, o.peak(k.Key))
		}
	}
	if _, ok := findKey(mr.HotKeys, "HOT"); !ok {
		t.Errorf("HOT (400 WCU/s, ~%0.f%% share) not flagged after merge", 100*float64(o.wcu["HOT"])/float64(o.total))
	}
	other, _ := NewWindow(cfg.Sketch, "Other", t0, t0.Add(time.Minute))
	before := merged.Report(cfg)
	if err := merged.Merge(other); err == nil || !strings.Contains(err.Error(), "cannot merge") {
		t.Errorf("merging windows of different tables: %v, want an error", err)
	}
	if diff := cmp.Diff(before, merged.Report(cfg)); diff != "" {
		t.Errorf("a refused merge changed the window (-before +after):\n%s", diff)
	}
}

func TestRedactionCoversEveryKey(t *testing.T) {
	cfg := DefaultConfig()
	h, err := redact.New([]byte("pepper, sixteen bytes or more"))
	if err != nil {
		t.Fatal(err)
	}
	cfg.Redactor = h
	secret := "alice@example.com"
	rep := shardedWindow(t, cfg, "bob@example.com#SHARD_", []int{400, 60, 60})
	w, _ := NewWindow(cfg.Sketch, "Orders", t0, t0.Add(time.Minute))
	for s := range 60 {
		for range 500 {
			w.Add(rec("Orders", secret, "", 2, t0.Add(time.Duration(s)*time.Second)))
		}
	}
	rep2 := w.Report(cfg)
	for _, r := range []report.Report{rep, rep2} {
		b, _ := json.Marshal(r)
		for _, leak := range []string{"alice", "bob", "example.com", "USER#"} {
			if strings.Contains(string(b), leak) {
				t.Errorf("redacted report contains %q: %s", leak, b)
			}
		}
		if len(r.HotKeys) == 0 {
			t.Fatalf("nothing flagged: the test would prove nothing")
		}
	}
	// The stand-in is redact's, of the S key: the one implementation.
	if want := h.Key(byte(ddb.String), []byte(secret)); rep2.HotKeys[0].Key != want {
		t.Errorf("redacted key %q, want the stable hash %q", rep2.HotKeys[0].Key, want)
	}
}

// TestConfigValidateNamesTheField: an invalid Config is refused with a
// *FieldError naming the field at fault, which wraps ErrConfig (and the
// sketch's own error for a sketch), and whose Message a caller words in
// its own names.
func TestConfigValidateNamesTheField(t *testing.T) {
	flags := func(c *Config) map[any]string {
		return map[any]string{&c.Window: "--Window", &c.ShareThreshold: "--ShareThreshold", &c.MinWCUPerSecond: "--MinWCUPerSecond",
			&c.CriticalWCUPerSecond: "--CriticalWCUPerSecond", &c.PartitionLimit: "--PartitionLimit", &c.MinRCUPerSecond: "--MinRCUPerSecond",
			&c.CriticalRCUPerSecond: "--CriticalRCUPerSecond", &c.ReadPartitionLimit: "--ReadPartitionLimit", &c.Top: "--Top", &c.Lateness: "--Lateness"}
	}
	for _, tt := range []struct {
		mut  func(*Config)
		want string // Message, fields named --Field
	}{
		{func(c *Config) { c.Window = 0 }, "--Window 0s: want 1s to 15m"},
		{func(c *Config) { c.Window = 16 * time.Minute }, "--Window 16m0s: want 1s to 15m"},
		{func(c *Config) { c.Window = 1500 * time.Millisecond }, "--Window 1.5s: want whole seconds"},
		{func(c *Config) { c.ShareThreshold = 0 }, "--ShareThreshold 0: want a fraction in (0, 1], e.g. 0.10"},
		{func(c *Config) { c.ShareThreshold = math.NaN() }, "--ShareThreshold NaN: want a fraction in (0, 1], e.g. 0.10"},
		{func(c *Config) { c.MinWCUPerSecond = -1 }, "--MinWCUPerSecond -1: want ≥ 0"},
		{func(c *Config) { c.CriticalWCUPerSecond = 50 }, "--CriticalWCUPerSecond 50 is below --MinWCUPerSecond 100"},
		{func(c *Config) { c.PartitionLimit = 0 }, "--PartitionLimit 0: want > 0 (DynamoDB's is 1,000)"},
		{func(c *Config) { c.MinRCUPerSecond = -1 }, "--MinRCUPerSecond -1: want ≥ 0 (0: the default)"},
		{func(c *Config) { c.CriticalRCUPerSecond = math.Inf(1) }, "--CriticalRCUPerSecond +Inf: want ≥ 0 (0: the default)"},
		{func(c *Config) { c.ReadPartitionLimit = 2e9 }, "--ReadPartitionLimit 2e+09: want ≥ 0 (0: the default)"},
		{func(c *Config) { c.Top = -1 }, "--Top -1: want 0 to 1000"},
		{func(c *Config) { c.Lateness = 2 * time.Hour }, "--Lateness 2h0m0s: want 0 to 1h"},
	} {
		c := DefaultConfig()
		tt.mut(&c)
		err := c.Validate()
		var fe *FieldError
		// Named through another Config than the one validated: by field.
		var named Config
		if !errors.Is(err, ErrConfig) || !errors.As(err, &fe) || fe.Message(&named, flags(&named)) != tt.want {
			t.Errorf("Validate() = %v, want a *FieldError wrapping ErrConfig saying %q", err, tt.want)
			continue
		}
		if want := ErrConfig.Error() + ": " + strings.ReplaceAll(tt.want, "--", ""); err.Error() != want {
			t.Errorf("Validate() = %q, want %q", err, want)
		}
		if _, err := New(c); !errors.Is(err, ErrConfig) {
			t.Errorf("New() = %v, want ErrConfig", err)
		}
	}
	// Names keyed by the fields of another Config than the one named
	// through name nothing: the Go name stays.
	c := DefaultConfig()
	c.Top = -1
	var fe *FieldError
	var named, other Config
	if !errors.As(c.Validate(), &fe) || fe.Message(&named, flags(&other)) != "Top -1: want 0 to 1000" {
		t.Errorf("names of another Config: %v", fe)
	}
	// A sketch's own error stays in the chain.
	c = DefaultConfig()
	c.IndexSketch.Depth = 99
	if err := c.Validate(); !errors.Is(err, ErrConfig) || !errors.Is(err, sketch.ErrConfig) || !errors.As(err, &fe) || fe.Field != "IndexSketch" {
		t.Errorf("Validate() = %v, want a *FieldError on IndexSketch wrapping ErrConfig and sketch.ErrConfig", err)
	}
	if err := DefaultConfig().Validate(); err != nil {
		t.Errorf("defaults invalid: %v", err)
	}
}

func TestShardSuffix(t *testing.T) {
	tests := []struct {
		key    string
		base   string
		n      int
		marked bool
		ok     bool
	}{
		{"ORDERS#SHARD_3", "ORDERS", 3, true, true},
		{"ORDERS#SHARD#12", "ORDERS", 12, true, true},
		{"ORDERS_shard7", "ORDERS", 7, true, true},
		{"ORDERS#3", "ORDERS", 3, false, true},
		{"A_B#0", "A_B", 0, false, true},
		{"EVENTS_9999", "EVENTS", 9999, false, true},
		{"USER#12345", "", 0, false, false}, // five digits: an id, not a shard
		{"#3", "", 0, false, false},
		{"SHARD_3", "SHARD", 3, false, true},
		{"ORDERS3", "", 0, false, false},
		{"DATE#2026-11-22", "", 0, false, false},
		{"ORDERS#SHARD_", "", 0, false, false},
	}
	for _, tt := range tests {
		base, n, marked, ok := shardSuffix(tt.key)
		if base != tt.base || n != tt.n || marked != tt.marked || ok != tt.ok {
			t.Errorf("shardSuffix(%q) = %q, %d, %v, %v; want %q, %d, %v, %v", tt.key, base, n, marked, ok, tt.base, tt.n, tt.marked, tt.ok)
		}
	}
}

// TestUnflaggedKeysHaveNoFinding: a key under the thresholds is listed
// with its figures only: no pattern, no shard count, no diagnosis, which
// would read as advice to act on a key that needs none.
func TestUnflaggedKeysHaveNoFinding(t *testing.T) {
	cfg := DefaultConfig()
	w, err := NewWindow(cfg.Sketch, "Orders", t0, t0.Add(time.Minute))
	if err != nil {
		t.Fatal(err)
	}
	for s := range 10 {
		at := t0.Add(time.Duration(s) * time.Second)
		for range 150 {
			w.Add(rec("Orders", "OPS_LOG", fmt.Sprint("L", s), 1, at))
		}
		w.Add(rec("Orders", "COUNTER#views", "TOTAL", 1, at))
		w.Add(rec("Orders", "DATE#2026-11-22", fmt.Sprint("E", s), 1, at))
	}
	rep := w.Report(cfg)
	if len(rep.HotKeys) != 1 || rep.HotKeys[0].Key != "OPS_LOG" || rep.HotKeys[0].Pattern == "" || rep.HotKeys[0].RecommendedShards != 2 {
		t.Fatalf("hot keys %+v, want OPS_LOG with its pattern and 2 shards", rep.HotKeys)
	}
	if len(rep.TopKeys) != 3 {
		t.Fatalf("top keys %+v", rep.TopKeys)
	}
	for _, k := range rep.TopKeys[1:] {
		if k.Severity != report.None || k.Pattern != "" || k.RecommendedShards != 0 || k.Diagnosis != "" {
			t.Errorf("unflagged %s: severity %q, pattern %q, %d shards, diagnosis %q; want none", k.Key, k.Severity, k.Pattern, k.RecommendedShards, k.Diagnosis)
		}
	}
}
