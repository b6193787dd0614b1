package keypattern

import (
	"fmt"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/hotkeys-dev/hotkeys/sketch"
)

// TestTinyTraffic: verdicts at a few writes a minute. A pattern that is
// one key is flagged from its first record; a pattern whose variable part
// is open by design (a UUID) is never called low-cardinality, and needs
// OpenDominantRecords before one key of it is called dominant; few keys
// written again and again are evidence, a few keys written once are not.
func TestTinyTraffic(t *testing.T) {
	uuid := func(i int) string { return fmt.Sprintf("USER#%08x-9d3a-4c1b-8e5f-6a7b8c9d0e1f", i) }
	for _, c := range []struct {
		name    string
		keys    []string
		pattern string
		want    Verdict
	}{
		{"one OPS_LOG write", []string{"OPS_LOG"}, "OPS_LOG", SingleKey},
		{"BRAND_INDEX twice", []string{"BRAND_INDEX", "BRAND_INDEX"}, "BRAND_INDEX", SingleKey},
		{"one tenant so far", []string{"TENANT#acme", "TENANT#acme"}, "TENANT#acme", SingleKey},
		{"five new users", []string{uuid(1), uuid(2), uuid(3), uuid(4), uuid(5)}, "USER#<uuid>", Healthy},
		{"one user, three writes", []string{uuid(1), uuid(1), uuid(1)}, "USER#<uuid>", Healthy},
		{"one user, 99 writes", repeat(uuid(1), 99), "USER#<uuid>", Healthy},
		{"one user, 100 writes", repeat(uuid(1), 100), "USER#<uuid>", DominantKey},
		{"three statuses once each", []string{"STATUS#ACTIVE", "STATUS#PENDING", "STATUS#CLOSED"}, "STATUS#<*>", Healthy},
		{"three statuses twice each", []string{"STATUS#ACTIVE", "STATUS#PENDING", "STATUS#CLOSED", "STATUS#ACTIVE", "STATUS#PENDING", "STATUS#CLOSED"}, "STATUS#<*>", LowCardinality},
		{"a quiet minute of threats", []string{"THREAT#acme", "THREAT#acme", "THREAT#acme", "THREAT#acme", "THREAT#acme", "THREAT#globex"}, "THREAT#<*>", LowCardinality},
		{"an attack", append(repeat("THREAT#acme", 9), "THREAT#globex"), "THREAT#<*>", DominantKey},
		{"one bucket write", []string{"OPS_LOG#2026-06-22"}, "OPS_LOG#<date>", Healthy},
		{"two bucket writes", []string{"OPS_LOG#2026-06-22", "OPS_LOG#2026-06-22"}, "OPS_LOG#<date>", TimeBucket},
		{"orders, one a second", []string{"ORDER#2026-06-22T10:00:01Z", "ORDER#2026-06-22T10:00:02Z", "ORDER#2026-06-22T10:00:03Z"}, "ORDER#<datetime>", Healthy},
		{"ten shards", shardKeys(10, 3), "EVENTS#SHARD_<n>", LowCardinality},
		{"numbered users", []string{"USER#1234", "USER#5678", "USER#1234", "USER#5678"}, "USER#<n>", Healthy},
	} {
		tb, _ := New(DefaultConfig())
		addAll(tb, c.keys...)
		f := figuresOf(t, tb, c.pattern)
		if got := Judge(&f, DefaultThresholds()); got != c.want {
			t.Errorf("%s: %s is %s, want %s (%+v)", c.name, c.pattern, got, c.want, f)
		}
	}
}

func repeat(k string, n int) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = k
	}
	return out
}

func shardKeys(shards, rounds int) []string {
	var out []string
	for range rounds {
		for i := range shards {
			out = append(out, fmt.Sprintf("EVENTS#SHARD_%d", i))
		}
	}
	return out
}

// TestJudge decides on crafted figures, at each threshold's edge.
func TestJudge(t *testing.T) {
	th := DefaultThresholds()
	top := func(lower, upper uint64) []KeyBounds {
		return []KeyBounds{{Key: []byte("Sk"), Lower: lower, Upper: upper}}
	}
	for _, c := range []struct {
		name string
		f    Figures
		want Verdict
	}{
		{"one key", Figures{Records: 1, WCU: 1, Distinct: 1}, SingleKey},
		{"one key, no WCU", Figures{Records: 3, Distinct: 1}, SingleKey},
		{"bucket: newest half", Figures{Vars: []Class{Date}, Records: 4, WCU: 10, Distinct: 2, NewestWCU: 5, TimeResolution: 24 * time.Hour}, TimeBucket},
		{"bucket: current half", Figures{Vars: []Class{Date}, Records: 4, WCU: 10, Distinct: 2, CurrentWCU: 5, TimeResolution: 24 * time.Hour}, TimeBucket},
		{"bucket: under half", Figures{Vars: []Class{Date}, Records: 4, WCU: 10, Distinct: 2, NewestWCU: 4, CurrentWCU: 4, TimeResolution: 24 * time.Hour}, LowCardinality},
		{"bucket: no repeats", Figures{Vars: []Class{DateTime}, Records: 3, WCU: 3, Distinct: 2, NewestWCU: 2, TimeResolution: time.Hour}, Healthy},
		{"time part and tenants", Figures{Vars: []Class{Any, Date}, Records: 400, WCU: 400, Distinct: 200, NewestWCU: 400, CurrentWCU: 400, TimeResolution: 24 * time.Hour, TopKeys: top(2, 3)}, Healthy},
		{"dominant: half exactly", Figures{Vars: []Class{Any}, Records: 10, WCU: 10, Distinct: 200, TopKeys: top(5, 5)}, DominantKey},
		{"dominant: lower bound short", Figures{Vars: []Class{Any}, Records: 10, WCU: 10, Distinct: 200, TopKeys: top(4, 9)}, Healthy},
		{"dominant: 9 records", Figures{Vars: []Class{Any}, Records: 9, WCU: 9, Distinct: 200, TopKeys: top(9, 9)}, Healthy},
		{"open dominant: 99 records", Figures{Vars: []Class{UUID}, Records: 99, WCU: 99, Distinct: 2, TopKeys: top(90, 90)}, Healthy},
		{"open dominant: 100 records", Figures{Vars: []Class{UUID}, Records: 100, WCU: 100, Distinct: 2, TopKeys: top(90, 90)}, DominantKey},
		{"low: 99 keys", Figures{Vars: []Class{Any}, Records: 198, WCU: 198, Distinct: 99, TopKeys: top(2, 3)}, LowCardinality},
		{"low: 100 keys", Figures{Vars: []Class{Any}, Records: 200, WCU: 200, Distinct: 100, TopKeys: top(2, 3)}, Healthy},
		{"low: too few repeats", Figures{Vars: []Class{Any}, Records: 197, WCU: 197, Distinct: 99, TopKeys: top(2, 3)}, Healthy},
		{"short numbers", Figures{Vars: []Class{Number}, MaxDigits: 2, Records: 40, WCU: 40, Distinct: 20, TopKeys: top(2, 2)}, LowCardinality},
		{"long numbers", Figures{Vars: []Class{Number}, MaxDigits: 3, Records: 40, WCU: 40, Distinct: 20, TopKeys: top(2, 2)}, Healthy},
		{"hour buckets are few", Figures{Vars: []Class{DateTime}, Records: 48, WCU: 48, Distinct: 24, TimeResolution: time.Hour, NewestWCU: 2, TopKeys: top(2, 2)}, LowCardinality},
		{"timestamps are many", Figures{Vars: []Class{DateTime}, Records: 48, WCU: 48, Distinct: 24, TimeResolution: time.Second, NewestWCU: 2, TopKeys: top(2, 2)}, Healthy},
		{"bytes", Figures{Vars: []Class{Bytes}, Records: 48, WCU: 48, Distinct: 2, TopKeys: top(24, 24)}, Healthy},
	} {
		if got := Judge(&c.f, th); got != c.want {
			t.Errorf("%s: %s, want %s", c.name, got, c.want)
		}
	}
}

// TestCeiling: limit ÷ the heaviest key's share, bounded both ways; the
// limit itself for a pattern that is one key.
func TestCeiling(t *testing.T) {
	for _, c := range []struct {
		f      Figures
		lo, hi float64
	}{
		{Figures{WCU: 100}, 1000, 1000},
		{Figures{Vars: []Class{Any}, WCU: 100, TopKeys: []KeyBounds{{Lower: 25, Upper: 50}}, Bound: 10}, 2000, 4000},
		{Figures{Vars: []Class{Any}, WCU: 100, TopKeys: []KeyBounds{{Lower: 0, Upper: 5}}, Bound: 20}, 5000, inf},
		{Figures{Vars: []Class{Any}}, 1000, inf},
	} {
		if lo, hi := c.f.Ceiling(1000); lo != c.lo || hi != c.hi {
			t.Errorf("%+v: ceiling [%v, %v], want [%v, %v]", c.f, lo, hi, c.lo, c.hi)
		}
	}
}

var inf = math.Inf(1)

// TestTimeBucketCurrent: over days of OPS_LOG#<date>, each day's writes to
// that day's key, the newest date takes a third of the WCU but the current
// date all of it: a time bucket. Due dates written ahead of time are
// current never, newest seldom: low cardinality, not a bucket.
func TestTimeBucketCurrent(t *testing.T) {
	tb, _ := New(DefaultConfig())
	for day := range 3 {
		date := fmt.Sprintf("2026-06-%02d", 20+day)
		for i := range 10 {
			second := t0 + int64(day-2)*86400 + int64(i)*60
			for _, k := range []string{"OPS_LOG#" + date, fmt.Sprintf("DUE#2026-07-%02d", 1+(day*10+i)%7)} {
				tb.Add(typed(k), hashOf(k), 1, second)
			}
		}
	}
	for pattern, want := range map[string]Verdict{"OPS_LOG#<date>": TimeBucket, "DUE#<date>": LowCardinality} {
		f := figuresOf(t, tb, pattern)
		if got := Judge(&f, DefaultThresholds()); got != want {
			t.Errorf("%s: %s, want %s (newest %d, current %d of %d WCU)", pattern, got, want, f.NewestWCU, f.CurrentWCU, f.WCU)
		}
	}
}

// TestLongKey: a key longer than sketch.MaxKeyLen counts under its first
// sketch.MaxKeyLen bytes, as in sketch, in its pattern.
func TestLongKey(t *testing.T) {
	tb, _ := New(DefaultConfig())
	long := "DOC#" + strings.Repeat("x", 3000)
	addAll(tb, long, long[:sketch.MaxKeyLen-1])
	f := figuresOf(t, tb, "DOC#"+strings.Repeat("x", sketch.MaxKeyLen-5))
	if f.Records != 2 || f.Distinct != 1 || len(f.TopKeys) != 1 || len(f.TopKeys[0].Key) != sketch.MaxKeyLen {
		t.Errorf("%d records, %d keys, top keys %d", f.Records, f.Distinct, len(f.TopKeys))
	}
}

// TestMergeSelf: a table merged into itself counts every record twice.
func TestMergeSelf(t *testing.T) {
	tb := tableOf(t, stream(13, streamKinds()[:4]))
	before := contentOf(tb)
	if err := tb.Merge(tb); err != nil {
		t.Fatal(err)
	}
	after := contentOf(tb)
	if after.Records != 2*before.Records || after.WCU != 2*before.WCU || len(after.Figures) != len(before.Figures) {
		t.Errorf("merged into itself: %d records, %d WCU, %d patterns; before %d, %d, %d",
			after.Records, after.WCU, len(after.Figures), before.Records, before.WCU, len(before.Figures))
	}
}
