package alert_test

import (
	"context"
	"fmt"
	"os"
	"time"

	"github.com/hotkeys-dev/hotkeys/alert"
	"github.com/hotkeys-dev/hotkeys/report"
)

// A window with one critical key, published as Embedded Metric Format: one
// findings line, one EMF line for the table, one for the key.
func ExamplePublisher_Publish_emf() {
	cfg := alert.DefaultConfig()
	cfg.Mode = alert.ModeEMF
	p, err := alert.NewPublisher(cfg, nil, os.Stdout)
	if err != nil {
		panic(err)
	}
	start := time.Date(2026, 11, 22, 10, 0, 0, 0, time.UTC)
	rep := report.Report{
		Window:       report.Window{Table: "Orders", Start: start, End: start.Add(time.Minute)},
		Totals:       report.Totals{Records: 3000, WCU: 3200},
		DistinctKeys: 41,
		HotKeys: []report.KeyReport{{
			KeyFigures: report.KeyFigures{Key: "OPS_LOG", Type: "S", WCU: 2400, WCULower: 2400, WCUUpper: 2400, Share: 0.75, AvgWCUPerSecond: 40, PeakWCUPerSecond: 880, Severity: report.Critical, Pattern: report.PatternSingleKey, Diagnosis: "one key carries 75% of the writes", RecommendedShards: 2},
		}},
	}
	res, err := p.Publish(context.Background(), []report.Report{rep})
	if err != nil {
		panic(err)
	}
	fmt.Println(res.MetricsEMF, "values as EMF")
	// Output:
	// {"level":"ERROR","msg":"hot partition key","table":"Orders","key":"OPS_LOG","type":"S","dimension":"OPS_LOG","severity":"critical","pattern":"single_key","diagnosis":"one key carries 75% of the writes","wcu":2400,"wcu_lower":2400,"wcu_upper":2400,"share":0.75,"avg_wcu_per_second":40,"peak_wcu_per_second":880,"recommended_shards":2,"wcu_is_lower_bound":false,"window_start":"2026-11-22T10:00:00Z","window_end":"2026-11-22T10:01:00Z"}
	// {"_aws":{"Timestamp":1795341600000,"CloudWatchMetrics":[{"Namespace":"HotKeyDetector","Dimensions":[["TableName"]],"Metrics":[{"Name":"WriteCapacityUnits","Unit":"Count"},{"Name":"StreamRecords","Unit":"Count"},{"Name":"DistinctPartitionKeys","Unit":"Count"},{"Name":"MaxKeyWCUShare","Unit":"None"},{"Name":"MaxKeyPeakWCUPerSecond","Unit":"Count/Second"},{"Name":"HotKeys","Unit":"Count"},{"Name":"CriticalHotKeys","Unit":"Count"},{"Name":"MalformedRecords","Unit":"Count"},{"Name":"InternalErrors","Unit":"Count"},{"Name":"TTLDeletes","Unit":"Count"},{"Name":"WCUIsLowerBound","Unit":"None"},{"Name":"MaxShardPeakWCUPerSecond","Unit":"Count/Second"}]}]},"TableName":"Orders","WriteCapacityUnits":3200,"StreamRecords":3000,"DistinctPartitionKeys":41,"MaxKeyWCUShare":0.75,"MaxKeyPeakWCUPerSecond":880,"HotKeys":1,"CriticalHotKeys":1,"MalformedRecords":0,"InternalErrors":0,"TTLDeletes":0,"WCUIsLowerBound":0,"MaxShardPeakWCUPerSecond":0}
	// {"_aws":{"Timestamp":1795341600000,"CloudWatchMetrics":[{"Namespace":"HotKeyDetector","Dimensions":[["TableName","PartitionKey"]],"Metrics":[{"Name":"KeyWriteCapacityUnits","Unit":"Count"},{"Name":"KeyWCUShare","Unit":"None"},{"Name":"KeyPeakWCUPerSecond","Unit":"Count/Second"}]}]},"TableName":"Orders","PartitionKey":"OPS_LOG","KeyWriteCapacityUnits":2400,"KeyWCUShare":0.75,"KeyPeakWCUPerSecond":880}
	// 15 values as EMF
}

func ExampleDimensionValue() {
	for _, key := range []string{"STATUS#ACTIVE", "café", "", "b64:x"} {
		fmt.Printf("%q -> %q\n", key, alert.DimensionValue(key))
	}
	// Output:
	// "STATUS#ACTIVE" -> "STATUS#ACTIVE"
	// "café" -> "b64:Y2Fmw6k"
	// "" -> "b64:"
	// "b64:x" -> "b64:YjY0Ong"
}

func ExampleMetrics() {
	for _, m := range alert.Metrics()[:3] {
		fmt.Println(m.Name, m.Unit, m.Dimensions)
	}
	// Output:
	// WriteCapacityUnits Count [TableName]
	// StreamRecords Count [TableName]
	// DistinctPartitionKeys Count [TableName]
}
