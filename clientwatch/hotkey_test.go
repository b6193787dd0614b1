package clientwatch_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/google/go-cmp/cmp"

	"github.com/hotkeys-dev/hotkeys/clientwatch"
)

// unitsHTTP answers GetItem and PutItem in memory as DynamoDB does, each
// call on key k consuming units[k] capacity units (1 for others); the
// first attempt of each call on a key in throttle is throttled.
type unitsHTTP struct {
	units    map[string]float64
	throttle map[string]bool

	mu        sync.Mutex
	throttled map[string]bool // keys whose last attempt was throttled
}

func (u *unitsHTTP) Do(r *http.Request) (*http.Response, error) {
	body, err := io.ReadAll(r.Body)
	if err != nil {
		return nil, err
	}
	_ = r.Body.Close()
	var req struct {
		Key, Item map[string]map[string]string
	}
	if err := json.Unmarshal(body, &req); err != nil {
		return nil, err
	}
	key := req.Key["pk"]["S"] + req.Item["pk"]["S"]
	answer := func(status int, header http.Header, s string) *http.Response {
		header.Set("Content-Type", "application/x-amz-json-1.0")
		return &http.Response{StatusCode: status, Proto: "HTTP/1.1", ProtoMajor: 1, ProtoMinor: 1, Header: header,
			Body: io.NopCloser(bytes.NewReader([]byte(s))), ContentLength: int64(len(s)), Request: r}
	}
	if u.throttle[key] {
		u.mu.Lock()
		again := !u.throttled[key]
		u.throttled[key] = again
		u.mu.Unlock()
		if again {
			return answer(400, http.Header{"X-Amzn-Errortype": {"ProvisionedThroughputExceededException"}},
				`{"__type":"com.amazonaws.dynamodb.v20120810#ProvisionedThroughputExceededException","message":"Throughput exceeds the current capacity for one or more global secondary indexes."}`), nil
		}
	}
	units, ok := u.units[key]
	if !ok {
		units = 1
	}
	capacity := fmt.Sprintf(`"ConsumedCapacity":{"TableName":"T","CapacityUnits":%g,"Table":{"CapacityUnits":%[1]g}}`, units)
	if r.Header.Get("X-Amz-Target") == "DynamoDB_20120810.GetItem" {
		return answer(200, http.Header{}, `{"Item":{"pk":{"S":"`+key+`"}},`+capacity+`}`), nil
	}
	return answer(200, http.Header{}, `{`+capacity+`}`), nil
}

// TestOnHotKey: OnHotKey hears of a key the moment it crosses a rate,
// spends a third second at 90 % of the partition's limit, or is
// throttled, with no further call needed, once per key, reason and
// window; keys below the rates are never announced.
//
//   - celebrity: 100 RCU a read, 30 reads in second 0: reads, at the 24th
//     (2,400 RCU);
//   - burst: 100 WCU a write, 10 in second 0: writes at the 8th (800 WCU),
//     not saturated (one second at the limit);
//   - pinned: 95 WCU a write, 10 a second for seconds 1 to 4: writes at the
//     9th of second 1 (855), saturated at the 10th of second 3 (950: a
//     third second at ≥ 900), once;
//   - steady: 100 WCU a write, 7 a second for seconds 1 to 4 (700 WCU/s):
//     nothing;
//   - throttled: one call, its first attempt throttled: throttled.
func TestOnHotKey(t *testing.T) {
	clock := &settableClock{t: t0}
	events := make(chan clientwatch.HotKeyEvent, 64)
	opts := clientwatch.DefaultOptions()
	opts.PartitionKeys = map[string]string{"T": "pk"}
	opts.Now = clock.Now
	opts.OnHotKey = func(e clientwatch.HotKeyEvent) { events <- e }
	w, err := clientwatch.New(opts)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	ran := make(chan error)
	go func() { ran <- w.Run(ctx) }()
	hc := &unitsHTTP{units: map[string]float64{"celebrity": 100, "burst": 100, "pinned": 95, "steady": 100},
		throttle: map[string]bool{"throttled": true}, throttled: map[string]bool{}}
	c := newClient("http://dynamodb.invalid", w, hc)
	get := func(key string) {
		t.Helper()
		if _, err := c.GetItem(ctxT(t), &dynamodb.GetItemInput{TableName: aws.String("T"), Key: map[string]types.AttributeValue{"pk": s(key)}}); err != nil {
			t.Fatal(err)
		}
	}
	put := func(key string) {
		t.Helper()
		if _, err := c.PutItem(ctxT(t), &dynamodb.PutItemInput{TableName: aws.String("T"), Item: map[string]types.AttributeValue{"pk": s(key)}}); err != nil {
			t.Fatal(err)
		}
	}
	// want waits for the next event, which the call just made must have
	// queued: nothing else will.
	var got []clientwatch.HotKeyEvent
	want := func(e clientwatch.HotKeyEvent) {
		t.Helper()
		select {
		case ev := <-events:
			got = append(got, ev)
			if diff := cmp.Diff(e, ev); diff != "" {
				t.Errorf("event (-want +got):\n%s", diff)
			}
		case <-time.After(10 * time.Second): // a guard against a hang, not a measure
			t.Fatalf("no event for %+v", e)
		}
	}
	at := func(sec int) time.Time { return t0.Add(time.Duration(sec) * time.Second) }
	ev := func(key string, reason clientwatch.HotKeyReason, sec int, rcu float64, wcu uint64) clientwatch.HotKeyEvent {
		return clientwatch.HotKeyEvent{Table: "T", Key: key, Reason: reason, Second: at(sec), RCU: rcu, WCU: wcu}
	}

	for i := 1; i <= 30; i++ {
		get("celebrity")
		if i == 24 {
			want(ev("celebrity", clientwatch.HotReads, 0, 2400, 0))
		}
	}
	for i := 1; i <= 10; i++ {
		put("burst")
		if i == 8 {
			want(ev("burst", clientwatch.HotWrites, 0, 0, 800))
		}
	}
	for sec := 1; sec <= 4; sec++ {
		clock.Set(at(sec).Add(time.Duration(sec) * time.Millisecond))
		for i := 1; i <= 10; i++ {
			put("pinned")
			if i <= 7 {
				put("steady")
			}
			switch {
			case sec == 1 && i == 9:
				want(ev("pinned", clientwatch.HotWrites, 1, 0, 855))
			case sec == 3 && i == 10:
				want(ev("pinned", clientwatch.HotSaturated, 3, 0, 950))
			}
		}
	}
	put("throttled")
	want(ev("throttled", clientwatch.HotThrottled, 4, 0, 0))

	cancel()
	if err := <-ran; err != nil {
		t.Fatal(err)
	}
	close(events)
	for e := range events {
		t.Errorf("unexpected event %+v, after %+v", e, got)
	}
	if f := w.Failures(); f != (clientwatch.Failures{}) {
		t.Errorf("Failures() = %+v, want none", f)
	}

	// The window's report applies the rule the announcements did: pinned
	// is saturated, for its 4 seconds at 950 WCU; the keys at a limit for
	// one second and the one steady at 700 are not.
	type sat struct {
		Read, Write int
		Saturated   bool
	}
	gotSat := map[string]sat{}
	for _, r := range w.Reports() {
		for _, k := range r.TopKeys {
			gotSat[k.Key] = sat{k.ReadSaturatedSeconds, k.SaturatedSeconds, k.Saturated}
		}
	}
	wantSat := map[string]sat{"celebrity": {Read: 1}, "burst": {Write: 1}, "pinned": {Write: 4, Saturated: true}, "steady": {}, "throttled": {}}
	if diff := cmp.Diff(wantSat, gotSat); diff != "" {
		t.Errorf("saturation in the report (-want +got):\n%s", diff)
	}
}

// TestOnHotKeyNeverBlocks: an OnHotKey that never returns holds up no
// call: announcements past the queue are dropped and counted.
func TestOnHotKeyNeverBlocks(t *testing.T) {
	stuck := make(chan struct{})
	defer close(stuck)
	opts := clientwatch.DefaultOptions()
	opts.PartitionKeys = map[string]string{"T": "pk"}
	opts.OnHotKey = func(clientwatch.HotKeyEvent) { <-stuck }
	w := newWatcher(t, opts)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go func() { _ = w.Run(ctx) }()
	const keys = 200 // each throttled once: 200 announcements
	hc := &unitsHTTP{throttle: map[string]bool{}, throttled: map[string]bool{}}
	for i := range keys {
		hc.throttle[fmt.Sprint("k", i)] = true
	}
	c := newClient("http://dynamodb.invalid", w, hc)
	for i := range keys {
		if _, err := c.GetItem(ctxT(t), &dynamodb.GetItemInput{TableName: aws.String("T"), Key: map[string]types.AttributeValue{"pk": s(fmt.Sprint("k", i))}}); err != nil {
			t.Fatal(err)
		}
	}
	// At most the queue (64) and the one OnHotKey holds were taken.
	if f := w.Failures(); f.HotKeysDropped < keys-65 || f.HotKeysDropped > keys-64 {
		t.Errorf("Failures() = %+v: want %d or %d announcements dropped", f, keys-65, keys-64)
	}
}
