package clientwatch_test

import (
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/google/go-cmp/cmp"

	"github.com/hotkeys-dev/hotkeys/clientwatch"
	"github.com/hotkeys-dev/hotkeys/internal/testkit/dynamodblocal"
	"github.com/hotkeys-dev/hotkeys/internal/testkit/faultproxy"
	"github.com/hotkeys-dev/hotkeys/report"
)

// TestSaturatedKeyOnDynamoDBLocal: through the middleware, the throttling
// proxy and DynamoDB Local, a key whose successful writes are 900 WCU in
// each of 4 seconds (three puts of a 300 KB item, DynamoDB Local's own
// ConsumedCapacity) while the proxy throttles one attempt in four is
// reported saturated for those 4 seconds, critical, with its shard count
// a lower bound; a key written at 1 WCU/s beside it is not.
func TestSaturatedKeyOnDynamoDBLocal(t *testing.T) {
	ep := dynamodblocal.Endpoint(t)
	ctx := ctxT(t)
	plain := newClient(ep, nil, nil)
	table := createTable(t, plain)
	proxy := faultproxy.Start(t, ep, faultproxy.Rule{
		Attribute: "pk", Value: "hot", Period: 4, Throttle: 1,
		Reason: "TableWriteKeyRangeThroughputExceeded", Resource: "arn:aws:dynamodb:us-east-1:000000000000:table/" + table,
	})
	clock := &settableClock{t: t0}
	opts := clientwatch.DefaultOptions()
	opts.PartitionKeys = map[string]string{table: "pk"}
	opts.Now = clock.Now
	w, err := clientwatch.New(opts)
	if err != nil {
		t.Fatal(err)
	}
	inst := newClient(proxy.URL, w, nil)

	// 300 KB in all with its attribute names and the key: 300 WCU a put.
	big := strings.Repeat("x", 300*1024-len("pk")-len("hot")-len("v"))
	const seconds = 4
	for sec := range seconds {
		clock.Set(t0.Add(time.Duration(sec)*time.Second + 100*time.Millisecond))
		for range 3 {
			if _, err := inst.PutItem(ctx, &dynamodb.PutItemInput{TableName: &table, Item: map[string]types.AttributeValue{"pk": s("hot"), "v": s(big)}}); err != nil {
				t.Fatalf("put hot: %v (the SDK's retries should get through)", err)
			}
		}
		if _, err := inst.PutItem(ctx, &dynamodb.PutItemInput{TableName: &table, Item: map[string]types.AttributeValue{"pk": s("cold"), "v": s("v")}}); err != nil {
			t.Fatal(err)
		}
	}
	// 12 puts of hot take 16 attempts, one in four of them throttled.
	if got := proxy.Throttled(); got != 4 {
		t.Fatalf("the proxy throttled %d attempts, want 4", got)
	}

	reps := w.Reports()
	if len(reps) != 1 {
		t.Fatalf("%d reports, want 1", len(reps))
	}
	type sat struct {
		WCU                            uint64
		Severity                       report.Severity
		WriteSeconds, ReadSeconds      int
		Saturated, LowerBound          bool
		HotFor                         []report.Cause
		Opening                        string
		ThrottledAttempts, Recommended uint64
	}
	got := map[string]sat{}
	for _, k := range reps[0].TopKeys {
		opening, _, _ := strings.Cut(k.Diagnosis, " Write-hot: ")
		if k.Key == "cold" {
			opening = k.Diagnosis
		}
		got[k.Key] = sat{k.WCU, k.Severity, k.SaturatedSeconds, k.ReadSaturatedSeconds, k.Saturated,
			k.RecommendedShardsIsLowerBound, k.HotFor, opening, k.ThrottledAttempts, uint64(k.RecommendedShards)}
	}
	want := map[string]sat{
		"hot": {WCU: 3600, Severity: report.Critical, WriteSeconds: 4, Saturated: true, LowerBound: true,
			HotFor:            []report.Cause{report.CauseSaturated, report.CauseWrites, report.CauseThrottling},
			Opening:           "Saturated: successful writes pinned at the partition limit (at least 900 WCU/s for 4 s of the window), so its writes are most likely being throttled and its true demand is at least what was observed; its recommended shard count (2) is a lower bound.",
			ThrottledAttempts: 4, Recommended: 2},
		"cold": {WCU: 4},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("keys (-want +got):\n%s", diff)
	}
}
