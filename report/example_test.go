package report_test

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/hotkeys-dev/hotkeys/report"
)

// One moment, one window, whoever asks: windows are aligned on multiples
// of their length in Unix time, so the Lambda, replay, the client
// middleware, history and the heatmap agree on the window of every record.
func ExampleWindowStart() {
	t := time.Date(2026, 11, 22, 10, 7, 42, 0, time.UTC)
	for _, window := range []time.Duration{time.Minute, 5 * time.Minute, 15 * time.Minute} {
		start := report.WindowStart(t, window)
		fmt.Printf("%-6s %s to %s\n", window, start.Format("15:04:05"), start.Add(window).Format("15:04:05"))
	}
	// Output:
	// 1m0s   10:07:00 to 10:08:00
	// 5m0s   10:05:00 to 10:10:00
	// 15m0s  10:00:00 to 10:15:00
}

// A key's worst severity over a run of windows.
func ExampleSeverity_Worse() {
	worst := report.None
	for _, s := range []report.Severity{report.Warning, report.None, report.Critical, report.Warning} {
		worst = worst.Worse(s)
	}
	fmt.Println(worst)
	// Output: critical
}

// The `--format json` lines of a run that watched a table's stream and an
// application's client: a ClientReport reads the client's windows and
// refuses the stream's (ErrNotClient), which a Report reads.
func ExampleClientReport_UnmarshalJSON() {
	lines := `{"table":"Orders","start":"2026-11-22T10:00:00Z","end":"2026-11-22T10:01:00Z","records":3,"wcu":5,"distinct_keys":2,"hot_keys":[],"top_keys":[]}
{"source":"client","table":"Orders","start":"2026-11-22T10:00:00Z","end":"2026-11-22T10:01:00Z","wcu":7,"distinct_keys":3,"requests":12,"rcu":4.5,"throttled_attempts":2,"hot_keys":[],"top_keys":[]}
`
	sc := bufio.NewScanner(strings.NewReader(lines))
	for sc.Scan() {
		var client report.ClientReport
		err := json.Unmarshal(sc.Bytes(), &client)
		if errors.Is(err, report.ErrNotClient) {
			var stream report.Report
			if err := json.Unmarshal(sc.Bytes(), &stream); err != nil {
				fmt.Println(err)
				return
			}
			fmt.Printf("stream %s %s: %d WCU in %d records\n", stream.Table, stream.Start.Format("15:04"), stream.WCU, stream.Records)
			continue
		}
		if err != nil {
			fmt.Println(err)
			return
		}
		fmt.Printf("client %s %s: %d calls, %g RCU, %d WCU, %d throttled\n", client.Table, client.Start.Format("15:04"),
			client.Requests, client.RCU, client.WCU, client.ThrottledAttempts)
	}
	// Output:
	// stream Orders 10:00: 5 WCU in 3 records
	// client Orders 10:00: 12 calls, 4.5 RCU, 7 WCU, 2 throttled
}
