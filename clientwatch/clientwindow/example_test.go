package clientwindow_test

import (
	"fmt"
	"time"

	"github.com/hotkeys-dev/hotkeys/clientwatch/clientwindow"
	"github.com/hotkeys-dev/hotkeys/ddb"
	"github.com/hotkeys-dev/hotkeys/detector"
)

// A window of table Profiles in which one key's strongly consistent reads
// run at 2,500 RCU/s, past the critical 2,400, and another's are few.
func Example() {
	cfg := detector.DefaultConfig()
	start := time.Date(2026, 11, 22, 10, 0, 0, 0, time.UTC)
	w, err := clientwindow.New(cfg.Sketch, "Profiles", start, start.Add(time.Minute))
	if err != nil {
		panic(err)
	}
	celebrity := ddb.Key{Type: ddb.String, Value: []byte("PROFILE#celebrity")}
	someone := ddb.Key{Type: ddb.String, Value: []byte("PROFILE#someone")}
	for range 250 {
		w.AddRequest(celebrity, start, 3*time.Millisecond, true, true)
		w.AddCapacity(celebrity, start, 20, 0) // a 40 KB item: 10 RCU, in half units
	}
	w.AddRequest(someone, start, time.Millisecond, true, true)
	w.AddCapacity(someone, start, 1, 0)

	rep := w.Report(cfg)
	fmt.Printf("%d calls, %g RCU\n", rep.Requests, rep.RCU)
	for _, k := range rep.HotKeys {
		fmt.Printf("%s %s: %v, peak %g RCU/s\n", k.Severity, k.Key, k.HotFor, k.PeakRCUPerSecond)
	}
	// Output:
	// 251 calls, 2500.5 RCU
	// critical PROFILE#celebrity: [reads], peak 2500 RCU/s
}
