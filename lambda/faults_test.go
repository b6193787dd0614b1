package main

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/hotkeys-dev/hotkeys/history/store"
	"github.com/hotkeys-dev/hotkeys/internal/testkit/dynamodblocal"
	"github.com/hotkeys-dev/hotkeys/internal/testkit/fakesns"
	"github.com/hotkeys-dev/hotkeys/internal/testkit/fault"
	"github.com/hotkeys-dev/hotkeys/internal/testkit/faultproxy"
	"github.com/hotkeys-dev/hotkeys/internal/testkit/rie"
	"github.com/hotkeys-dev/hotkeys/redact"
)

// Never in the way, under faults. The built bootstrap runs a tumbling
// window under the RIE with the template's 30-s timeout while one of its
// dependencies (CloudWatch's PutMetricData, the history table's PutItem,
// SNS's Publish, DynamoDB's DescribeTable, Secrets Manager's
// GetSecretValue at cold start) hangs until the client gives up, answers
// 500, throttles, refuses (access denied) or answers slowly, each at its
// service's wire format (internal/testkit/fault). The window's first batch
// makes five keys cross the critical rate (five onsets, five SNS
// messages); it is delivered twice with the same state, as is the final
// batch, as Lambda may deliver them. For each case:
//
//   - every invocation succeeds, with no batch item failure, within a
//     fifth of the timeout (6 s);
//   - the window's metrics, from PutMetricData and EMF together, are
//     exactly those of the same window without a fault: nothing lost,
//     nothing twice; so are the onsets' metrics, the findings and the onset
//     lines; SNS has each onset once (or none, when it is the fault); the
//     history table the window once (or not at all);
//   - the fault is logged with its error code and counted (the EMF
//     fallback, HistoryWriteErrors, NotifyErrors, IndexLookupErrors), the
//     client having made the attempts retries.go says;
//   - the final batch delivered once more, to another container, publishes
//     nothing either: the history table says it was (unless the history
//     table is the fault);
//   - a Secrets Manager that fails makes the cold start fail within the
//     bound, saying why, before anything is published.
//
// The 26 cases (and the run without a fault they are held to) run at once,
// each in an emulator of its own: their waits are the dependencies'
// deadlines, not CPU.

const (
	// faultTimeout is the template's Timeout, and so the smallest the
	// function runs with.
	faultTimeout = 30 * time.Second
	// slowAnswer is a slow dependency's: ten times a normal answer, within
	// every call's cap.
	slowAnswer = 500 * time.Millisecond
	// faultCasesAtOnce bounds the emulators running at once.
	faultCasesAtOnce = 6
)

// faultBound is what every invocation must stay within.
var faultBound = time.Duration(budgetFraction * float64(faultTimeout))

// dependency is a call out of the function, named by its operation.
type dependency string

const (
	onCloudWatch    dependency = "PutMetricData"
	onHistory       dependency = "PutItem"
	onSNS           dependency = "Publish"
	onDescribeTable dependency = "DescribeTable"
	onSecret        dependency = "GetSecretValue"
)

// faultCode is the error code each failure is logged with (for the
// secret, what the cold start's error says).
var faultCode = map[dependency]map[fault.Mode]string{
	onCloudWatch:    {fault.Hang: "DeadlineExceeded", fault.ServerError: "InternalServiceFault", fault.Throttle: "Throttling", fault.Denied: "AccessDenied"},
	onHistory:       {fault.Hang: "DeadlineExceeded", fault.ServerError: "InternalServerError", fault.Throttle: "ProvisionedThroughputExceededException", fault.Denied: "AccessDeniedException"},
	onSNS:           {fault.Hang: "DeadlineExceeded", fault.ServerError: "InternalError", fault.Throttle: "Throttled", fault.Denied: "AuthorizationError"},
	onDescribeTable: {fault.Hang: "DeadlineExceeded", fault.ServerError: "InternalServerError", fault.Throttle: "ThrottlingException", fault.Denied: "AccessDeniedException"},
	onSecret:        {fault.Hang: "context deadline exceeded", fault.ServerError: "InternalServiceError", fault.Throttle: "ThrottlingException", fault.Denied: "AccessDeniedException"},
}

// attemptsPerCall is how many requests a call makes under a fault: the
// retryer's attempts for what it retries (retries.go; SNS retries only its
// throttling), one otherwise.
func attemptsPerCall(d dependency, m fault.Mode) int {
	switch {
	case m == fault.ServerError && d == onSNS:
		return 1
	case m == fault.ServerError || m == fault.Throttle:
		return retryAttempts
	}
	return 1
}

// faultWorld is what the cases share: DynamoDB Local, with the stream's
// table (DescribeTable's) and the history table, and the stream.
type faultWorld struct {
	endpoint, table, history string
	api                      *dynamodb.Client
	start                    time.Time
	recs                     []streamRecord
	split                    int // the first batch is recs[:split], the final one the rest
	hot                      []string
}

func newFaultWorld(t *testing.T) *faultWorld {
	api, _ := dynamodblocal.Clients(t)
	w := &faultWorld{endpoint: dynamodblocal.Endpoint(t), api: api}
	w.table, _ = dynamodblocal.CreateTable(t, api, dynamodblocal.TableSpec{Prefix: "Orders", HashKey: "PK", NoStream: true})
	w.history, _ = dynamodblocal.CreateTable(t, api, dynamodblocal.TableSpec{Prefix: "history", HashKey: store.AttrDay, RangeKey: store.AttrWindow, NoStream: true})
	// A closed window of the last few minutes: CloudWatch takes it.
	w.start = time.Now().UTC().Truncate(windowLength).Add(-2 * windowLength)
	// Five keys write 90 WCU each in second 5 (the critical rate is 80:
	// onsetEnv), five others 1 WCU a second throughout.
	var keys []streamKey
	for i, name := range []string{"ALPHA", "BRAVO", "CHARLIE", "DELTA", "ECHO"} {
		w.hot = append(w.hot, name)
		keys = append(keys, streamKey{w.hot[i], 10, func(s int) int { return 9 * b2i(s == 5) }},
			streamKey{fmt.Sprintf("USER#%d", i), 1, func(int) int { return 1 }})
	}
	w.recs = design(int(windowLength/time.Second), keys...)
	for w.split < len(w.recs) && w.recs[w.split].at < 30 {
		w.split++
	}
	return w
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}

// faultCase is a dependency and how it fails; the control is fault.None.
type faultCase struct {
	dep  dependency
	mode fault.Mode
}

func (c faultCase) String() string {
	if c.mode == fault.None {
		return "no fault"
	}
	return string(c.dep) + "/" + c.mode.String()
}

// faultOutcome is what a case published.
type faultOutcome struct {
	window    map[string][]float64 // the window's metrics (PutMetricData and EMF), by name, dimensions and time
	onsets    map[string][]float64 // the onsets' metrics, at 1-second resolution
	findings  []string             // the keys of the findings lines
	announced []string             // the keys of the onset lines
}

func TestFaults(t *testing.T) {
	w := newFaultWorld(t)
	var control *faultOutcome
	if !t.Run("no fault", func(t *testing.T) { control = runFaultCase(t, w, faultCase{mode: fault.None}, nil) }) {
		t.FailNow()
	}
	var cases []faultCase
	for _, d := range []dependency{onCloudWatch, onHistory, onSNS, onDescribeTable, onSecret} {
		for _, m := range fault.Modes {
			cases = append(cases, faultCase{d, m})
		}
	}
	// Not t.Parallel, which runs as many at once as there are CPUs: the
	// cases wait on deadlines, and run faultCasesAtOnce at a time.
	sem := make(chan struct{}, faultCasesAtOnce)
	var wg sync.WaitGroup
	for _, c := range cases {
		wg.Go(func() {
			sem <- struct{}{}
			defer func() { <-sem }()
			t.Run(c.String(), func(t *testing.T) { runFaultCase(t, w, c, control) })
		})
	}
	wg.Wait()
}

// runFaultCase runs one case and checks it against the control's outcome
// (nil: it is the control, checked against the stream's truth).
func runFaultCase(t *testing.T, w *faultWorld, c faultCase, control *faultOutcome) *faultOutcome {
	shard := "shardId-" + strings.NewReplacer("/", "-", " ", "-").Replace(c.String())
	var inj fault.Injector
	inj.Set(c.mode, slowAnswer)
	ddbURL := w.endpoint
	switch c.dep {
	case onHistory, onDescribeTable:
		ddbURL = faultproxy.StartFaults(t, w.endpoint, &inj, string(c.dep))
	}
	env := maps.Clone(onsetEnv)
	maps.Copy(env, map[string]string{"HOTKEYS_INDEXES": "auto", "HOTKEYS_HISTORY_TABLE": w.history, "AWS_ENDPOINT_URL_DYNAMODB": ddbURL,
		"HOTKEYS_NOTIFY_TOPIC_ARN": testTopic, "AWS_LAMBDA_FUNCTION_TIMEOUT": fmt.Sprint(int(faultTimeout / time.Second))})
	rename := func(k string) string { return k } // a key as the function publishes it
	if c.dep == onSecret {
		maps.Copy(env, redactionEnv)
		h, err := redact.New([]byte(testSecret))
		if err != nil {
			t.Fatal(err)
		}
		rename = func(k string) string { return h.Key('S', []byte(k)) }
	}
	topic := fakesns.New()
	t.Cleanup(topic.Close)
	env["AWS_ENDPOINT_URL_SNS"] = topic.URL
	f := startFunction(t, env)
	switch c.dep {
	case onCloudWatch:
		f.cw.SetFault(c.mode, slowAnswer)
	case onSNS:
		topic.SetFault(c.mode, slowAnswer)
	case onSecret:
		f.sm.SetFault(c.mode, slowAnswer)
	}
	failing := c.mode != fault.None && c.mode != fault.Slow
	first := shardBatch(t, w.table, shard, w.start, w.recs, 0, w.split, 0)
	last := shardBatch(t, w.table, shard, w.start, w.recs, w.split, len(w.recs), 1)

	if c.dep == onSecret && failing {
		began := time.Now()
		resp, err := f.invokeRaw(first)
		took := time.Since(began)
		out := f.output()
		if err != nil || !errors.Is(resp.Err(), rie.ErrInitFailed) || took > faultBound {
			t.Errorf("cold start: %d %q, %v, %v after %s; want it failed within %s", resp.Status, resp.Body, resp.Err(), err, took, faultBound)
		}
		for _, want := range []string{"hotkeys: ", testSecretArn, faultCode[c.dep][c.mode], "does not start"} {
			if !strings.Contains(out, want) {
				t.Errorf("the cold start's error does not say %q: %s", want, out)
			}
		}
		for _, key := range w.hot {
			if strings.Contains(out, key) {
				t.Errorf("key %s in the output of a function that did not start", key)
			}
		}
		if f.cw.Attempts()+topic.Attempts() != 0 {
			t.Errorf("%d PutMetricData and %d Publish requests from a function that did not start", f.cw.Attempts(), topic.Attempts())
		}
		if n := f.sm.Faulted(); n != attemptsPerCall(c.dep, c.mode) {
			t.Errorf("%d GetSecretValue requests, want %d", n, attemptsPerCall(c.dep, c.mode))
		}
		t.Logf("%s: the cold start failed after %s (%d requests)", c, took.Round(time.Millisecond), f.sm.Faulted())
		return nil
	}

	var took []string
	timed := func(name string, payload []byte) map[string]string {
		t.Helper()
		began := time.Now()
		resp := f.invoke(t, payload)
		d := time.Since(began)
		took = append(took, fmt.Sprintf("%s %s", name, d.Round(time.Millisecond)))
		if d > faultBound {
			t.Errorf("%s took %s, over %s, a fifth of the %s timeout", name, d, faultBound, faultTimeout)
		}
		return tumblingResponse(t, resp)
	}
	state := timed("batch", first)
	timed("batch again", first) // with the state it had: Lambda retries so
	final := withState(t, last, state)
	if st := timed("final", final); len(st) != 0 {
		t.Errorf("the final batch answered state %v, want none", st)
	}
	timed("final again", final)
	drains := 0
	lines := f.drained(t, &drains)
	asked := map[dependency]int{onCloudWatch: f.cw.Faulted(), onSNS: topic.Faulted(), onSecret: f.sm.Faulted(), onHistory: inj.Faulted(), onDescribeTable: inj.Faulted()}[c.dep]
	t.Logf("%s: %s; %d requests faulted", c, strings.Join(took, ", "), asked)

	got := outcomeOf(t, w, f, lines)
	if control == nil {
		checkControl(t, w, got)
	} else {
		checkSameOutcome(t, control, got, rename)
	}
	slow := checkFaultCounted(t, c, asked, lines)
	checkSentOnce(t, c, w, topic, shard, rename, slow)
	if !(c.dep == onHistory && failing) && len(historyItems(t, w, shard)) == 1 {
		checkAnotherContainer(t, w, env, final)
	}
	return got
}

// outcomeOf reads what the function published: PutMetricData's data and
// the EMF lines (the bookkeeping counts aside), the findings and onset
// lines.
func outcomeOf(t *testing.T, w *faultWorld, f *function, lines []logLine) *faultOutcome {
	o := &faultOutcome{window: map[string][]float64{}, onsets: map[string][]float64{}}
	add := func(name string, dims map[string]string, ts time.Time, resolution int, v float64) {
		switch name {
		case MetricHistoryWriteErrors, MetricNotifyErrors, MetricIndexLookupErrors:
			return
		}
		var b strings.Builder
		b.WriteString(name)
		for _, k := range slices.Sorted(maps.Keys(dims)) {
			fmt.Fprintf(&b, " %s=%s", k, dims[k])
		}
		switch {
		case resolution == 1:
			k := fmt.Sprintf("%s @%+ds", b.String(), ts.Unix()-w.start.Unix())
			o.onsets[k] = append(o.onsets[k], v)
		case ts.Equal(w.start):
			o.window[b.String()] = append(o.window[b.String()], v)
		default:
			t.Errorf("metric %s at %s, not the window's start", b.String(), ts)
		}
	}
	for _, d := range f.cw.Data() {
		dims := map[string]string{}
		for _, dim := range d.Dimensions {
			dims[dim.Name] = dim.Value
		}
		add(d.MetricName, dims, d.Timestamp, max(d.StorageResolution, 60*b2i(d.StorageResolution == 0)), d.Value)
	}
	for _, l := range emfLines(lines) {
		meta, _ := l["_aws"].(map[string]any)
		ms, _ := meta["Timestamp"].(float64)
		directives, _ := meta["CloudWatchMetrics"].([]any)
		for _, d := range directives {
			dir, _ := d.(map[string]any)
			sets, _ := dir["Dimensions"].([]any)
			metrics, _ := dir["Metrics"].([]any)
			for _, set := range sets {
				dims := map[string]string{}
				for _, name := range set.([]any) {
					dims[name.(string)] = l.str(name.(string))
				}
				for _, m := range metrics {
					md, _ := m.(map[string]any)
					name, _ := md["Name"].(string)
					resolution := 60
					if r, ok := md["StorageResolution"].(float64); ok {
						resolution = int(r)
					}
					add(name, dims, time.UnixMilli(int64(ms)).UTC(), resolution, l.num(name))
				}
			}
		}
	}
	for _, l := range lines {
		switch l.str("msg") {
		case "hot partition key":
			o.findings = append(o.findings, l.str("key"))
		case "hot partition key onset":
			o.announced = append(o.announced, l.str("key"))
		}
	}
	slices.Sort(o.findings)
	slices.Sort(o.announced)
	return o
}

// checkControl holds the run without a fault to the stream's truth: its
// records and WCU, its five critical keys, each announced and found once,
// each metric published once.
func checkControl(t *testing.T, w *faultWorld, o *faultOutcome) {
	var wcu float64
	for _, r := range w.recs {
		wcu += float64(r.wcu)
	}
	table := " TableName=" + w.table
	for name, want := range map[string]float64{"StreamRecords": float64(len(w.recs)), "WriteCapacityUnits": wcu, "HotKeys": 5, "CriticalHotKeys": 5, "MalformedRecords": 0} {
		if got := o.window[name+table]; !slices.Equal(got, []float64{want}) {
			t.Errorf("%s = %v, want [%g]", name, got, want)
		}
	}
	for k, vs := range o.window {
		if len(vs) != 1 {
			t.Errorf("%s published %d times: %v", k, len(vs), vs)
		}
	}
	for _, key := range w.hot {
		if got := o.window["KeyWriteCapacityUnits PartitionKey="+key+table]; !slices.Equal(got, []float64{90}) {
			t.Errorf("%s: KeyWriteCapacityUnits %v, want [90]", key, got)
		}
	}
	if !slices.Equal(o.findings, w.hot) || !slices.Equal(o.announced, w.hot) {
		t.Errorf("findings %v, onsets %v; want each of %v once", o.findings, o.announced, w.hot)
	}
}

// checkSameOutcome: a case published exactly what the control did, its
// keys renamed (redacted).
func checkSameOutcome(t *testing.T, control, got *faultOutcome, rename func(string) string) {
	renamed := func(m map[string][]float64, rename func(string) string) map[string][]float64 {
		out := map[string][]float64{}
		for k, vs := range m {
			fields := strings.Fields(k)
			for i, f := range fields {
				if v, ok := strings.CutPrefix(f, "PartitionKey="); ok {
					fields[i] = "PartitionKey=" + rename(v)
				}
			}
			out[strings.Join(fields, " ")] = slices.Sorted(slices.Values(vs))
		}
		return out
	}
	same := func(k string) string { return k }
	keys := func(ks []string) []string {
		out := make([]string, len(ks))
		for i, k := range ks {
			out[i] = rename(k)
		}
		return slices.Sorted(slices.Values(out))
	}
	for _, m := range []struct {
		what      string
		want, got map[string][]float64
	}{{"window", renamed(control.window, rename), renamed(got.window, same)}, {"onset", renamed(control.onsets, rename), renamed(got.onsets, same)}} {
		for k, want := range m.want {
			if !slices.Equal(m.got[k], want) {
				t.Errorf("%s metric %s: %v, want %v (as without a fault)", m.what, k, m.got[k], want)
			}
		}
		for k, vs := range m.got {
			if _, ok := m.want[k]; !ok {
				t.Errorf("%s metric %s = %v, not published without a fault", m.what, k, vs)
			}
		}
	}
	if !slices.Equal(keys(control.findings), got.findings) || !slices.Equal(keys(control.announced), got.announced) {
		t.Errorf("findings %v, onsets %v; want %v and %v, as without a fault", got.findings, got.announced, keys(control.findings), keys(control.announced))
	}
}

// failedCall is the log line of each dependency's failed call, and the
// EMF count that goes with it ("" for PutMetricData, whose values go out as
// EMF instead).
var failedCall = map[string]struct {
	dep    dependency
	metric string
}{
	"cloudwatch PutMetricData failed": {onCloudWatch, ""},
	"history: the window's summary could not be stored; its metrics are published all the same":                                                      {onHistory, MetricHistoryWriteErrors},
	"onset notification failed; the onset is in the log and the metrics":                                                                             {onSNS, MetricNotifyErrors},
	"global secondary indexes could not be read (DescribeTable); this batch is counted without index windows, the lookup is tried again in a minute": {onDescribeTable, MetricIndexLookupErrors},
}

// checkFaultCounted: the fault is logged with its code and counted, after
// the attempts retries.go gives, and nothing else fails, but for what the
// machine's load alone can make fail: DynamoDB Local (a JVM the whole
// suite shares) answering a call of another dependency after its cap,
// which the function handles as it handles a slow DynamoDB. It returns
// those dependencies.
func checkFaultCounted(t *testing.T, c faultCase, asked int, lines []logLine) (slow map[dependency]bool) {
	failing := c.mode != fault.None && c.mode != fault.Slow
	code := faultCode[c.dep][c.mode]
	byDep := map[dependency][]logLine{}
	counts := map[string]float64{}
	for _, l := range lines {
		for _, f := range failedCall {
			if n := l.num(f.metric); f.metric != "" && n > 0 && l["_aws"] != nil {
				counts[f.metric] += n
			}
		}
		if f, ok := failedCall[l.str("msg")]; ok {
			byDep[f.dep] = append(byDep[f.dep], l)
		}
	}
	// What the fault costs: log lines, counts, requests.
	want := struct {
		lines   int
		counted map[string]float64
		asked   int
	}{counted: map[string]float64{}}
	switch c.dep {
	case onCloudWatch: // once: the final batch again publishes nothing
		want.lines, want.asked = 1, attemptsPerCall(c.dep, c.mode)
	case onHistory: // the final batch, and again: it was not stored
		want.lines, want.asked = 2, 2*attemptsPerCall(c.dep, c.mode)
		want.counted[MetricHistoryWriteErrors] = 2
	case onSNS: // each of the five onsets, once
		want.lines, want.asked = 5, 5*attemptsPerCall(c.dep, c.mode)
		want.counted[MetricNotifyErrors] = 5
	case onDescribeTable: // once: the next lookup is a minute later
		want.lines, want.asked = 1, attemptsPerCall(c.dep, c.mode)
		want.counted[MetricIndexLookupErrors] = 1
	}
	if !failing {
		want.counted = map[string]float64{}
	}
	slow = map[dependency]bool{}
	for msg, f := range failedCall {
		ls := byDep[f.dep]
		if (f.dep == c.dep && failing) || len(ls) == 0 {
			continue
		}
		for _, l := range ls {
			if (f.dep != onHistory && f.dep != onDescribeTable) || l.str("error_code") != "DeadlineExceeded" {
				t.Errorf("%s failed, not at fault: %v", f.dep, l)
			}
		}
		slow[f.dep] = true
		want.counted[f.metric] += float64(len(ls))
		t.Logf("%d calls of %s, not at fault, ended at their deadline on this loaded machine (%q)", len(ls), f.dep, msg)
	}
	delete(want.counted, "")
	if !maps.Equal(counts, want.counted) {
		t.Errorf("counted %v, want %v", counts, want.counted)
	}
	if !failing {
		return slow
	}
	if asked != want.asked {
		t.Errorf("%d requests under the fault, want %d", asked, want.asked)
	}
	if len(byDep[c.dep]) != want.lines {
		t.Errorf("%d lines say a call of %s failed, want %d", len(byDep[c.dep]), c.dep, want.lines)
	}
	for _, l := range byDep[c.dep] {
		if l.str("error_code") != code {
			t.Errorf("a failed call logged with error_code %q, want %q: %v", l.str("error_code"), code, l)
		}
		if c.dep == onCloudWatch && l["emf_fallback"] != true {
			t.Errorf("PutMetricData failed without the EMF fallback: %v", l)
		}
	}
	return slow
}

// checkSentOnce: SNS has each onset once, the history table the window
// once, unless that is the fault (or the history table was slow: then at
// most once).
func checkSentOnce(t *testing.T, c faultCase, w *faultWorld, topic *fakesns.Server, shard string, rename func(string) string, slow map[dependency]bool) {
	failing := c.mode != fault.None && c.mode != fault.Slow
	var subjects []string
	for _, m := range topic.Published() {
		subjects = append(subjects, m.Subject)
	}
	wantSent := len(w.hot)
	if c.dep == onSNS && failing {
		wantSent = 0
	}
	for _, key := range w.hot {
		n := 0
		for _, s := range subjects {
			n += strings.Count(s, "Hot key "+rename(key)+" ")
		}
		if n != wantSent/len(w.hot) {
			t.Errorf("%s notified %d times, want %d: %q", key, n, wantSent/len(w.hot), subjects)
		}
	}
	if len(subjects) != wantSent {
		t.Errorf("%d SNS messages, want %d", len(subjects), wantSent)
	}
	items := historyItems(t, w, shard)
	switch {
	case c.dep == onHistory && failing:
		// Refused, or held unserved: never stored.
		if len(items) != 0 {
			t.Errorf("%d history items of the window, want none", len(items))
		}
	case slow[onHistory]:
		if len(items) > 1 {
			t.Errorf("%d history items of the window, want at most one", len(items))
		}
	case len(items) != 1:
		t.Errorf("%d history items of the window, want 1", len(items))
	}
	for _, item := range items {
		if b, _ := item[store.AttrBatch].(*types.AttributeValueMemberS); b == nil || len(b.Value) != 16 {
			t.Errorf("history item without its batch: %v", item[store.AttrBatch])
		}
	}
}

// historyItems returns the history table's items of shard.
func historyItems(t *testing.T, w *faultWorld, shard string) []map[string]types.AttributeValue {
	out, err := w.api.Scan(context.Background(), &dynamodb.ScanInput{TableName: aws.String(w.history), ConsistentRead: aws.Bool(true),
		FilterExpression:          aws.String("contains(#w, :shard)"),
		ExpressionAttributeNames:  map[string]string{"#w": store.AttrWindow},
		ExpressionAttributeValues: map[string]types.AttributeValue{":shard": &types.AttributeValueMemberS{Value: "#" + shard}}})
	if err != nil {
		t.Fatal(err)
	}
	return out.Items
}

// checkAnotherContainer delivers the final batch again, with the same
// state, to another container: the history table says its window was
// published, and it publishes nothing.
func checkAnotherContainer(t *testing.T, w *faultWorld, env map[string]string, final []byte) {
	topic := fakesns.New()
	t.Cleanup(topic.Close)
	env = maps.Clone(env)
	env["AWS_ENDPOINT_URL_SNS"] = topic.URL
	f := startFunction(t, env)
	began := time.Now()
	tumblingResponse(t, f.invoke(t, final))
	if d := time.Since(began); d > faultBound {
		t.Errorf("the final batch again, in another container, took %s, over %s", d, faultBound)
	}
	drains := 0
	lines := f.drained(t, &drains)
	said := false
	for _, l := range lines {
		said = said || (strings.HasPrefix(l.str("msg"), "final batch delivered again") && l.str("known_from") == "history table")
	}
	for _, l := range lines {
		if l.str("msg") == "history: the window's summary could not be stored; its metrics are published all the same" && l.str("error_code") == "DeadlineExceeded" {
			// DynamoDB Local answered after the write's cap on this loaded
			// machine: the container cannot know, and publishes (lambda.md,
			// what remains possible).
			t.Logf("the history table was slow in the other container: %v", l)
			return
		}
	}
	o := outcomeOf(t, w, f, lines)
	if !said || len(o.window)+len(o.onsets)+len(o.findings)+len(o.announced) != 0 || f.cw.Attempts() != 0 || topic.Attempts() != 0 {
		t.Errorf("the final batch again, in another container: said so %v; published %d window and %d onset metrics, %d findings, %d onsets; %d PutMetricData, %d Publish requests; want nothing",
			said, len(o.window), len(o.onsets), len(o.findings), len(o.announced), f.cw.Attempts(), topic.Attempts())
	}
}
