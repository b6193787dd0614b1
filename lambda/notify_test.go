package main

import (
	"bytes"
	"context"
	"fmt"
	"log/slog"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/hotkeys-dev/hotkeys/internal/testkit/fakesns"
	"github.com/hotkeys-dev/hotkeys/internal/testkit/fault"
	"github.com/hotkeys-dev/hotkeys/report"
)

const testTopic = "arn:aws:sns:us-east-1:123456789012:hotkeys-alarms"

func testOnset(table, index, key string) report.Onset {
	start := time.Date(2026, 11, 22, 10, 0, 0, 0, time.UTC)
	return report.Onset{
		Window: report.Window{Table: table, Index: index, Start: start, End: start.Add(time.Minute)},
		Second: start.Add(23 * time.Second), SecondWCULower: 812, SecondWCUUpper: 840,
		Key: report.KeyFigures{Key: key, Type: "S", Severity: report.Critical, Pattern: report.PatternTimeBucket,
			Diagnosis: "Time-bucketed key: every write of the current period lands on one partition. Add a write-shard suffix.", RecommendedShards: 2},
	}
}

func newTestNotifier(t *testing.T, most int) (*notifier, *fakesns.Server, *bytes.Buffer, *bytes.Buffer) {
	t.Helper()
	srv := fakesns.New()
	t.Cleanup(srv.Close)
	var emf, logs bytes.Buffer
	return &notifier{api: srv.Client(), topic: testTopic, max: most, namespace: "HotKeyDetector", emf: &emf,
		log: slog.New(slog.NewJSONHandler(&logs, nil)), now: func() time.Time { return time.Unix(1795341600, 0) }, partition: 1000}, srv, &emf, &logs
}

// TestNotifyMessage: what SNS receives names the table, the index, the
// key, the rate, the pattern and the fix, and SNS takes every subject:
// under 100 characters, printable, however long or odd the names.
func TestNotifyMessage(t *testing.T) {
	long := strings.Repeat("K", 300)
	for _, o := range []report.Onset{
		testOnset("Orders", "", "DATE#2026-11-22"),
		testOnset("Orders", "GSI1", "STATUS#OPEN"),
		testOnset(strings.Repeat("T", 255), strings.Repeat("I", 255), long),
		testOnset("Orders", "", "ünïcödé\nkey\twith\x00control"),
	} {
		n, srv, _, _ := newTestNotifier(t, 5)
		n.notify(context.Background(), testBudget(), []report.Onset{o})
		got := srv.Published()
		if len(got) != 1 {
			t.Fatalf("%d published (rejected: %v)", len(got), srv.Rejected())
		}
		m := got[0]
		if utf8.RuneCountInString(m.Subject) >= 100 || !strings.HasPrefix(m.Subject, "Hot key ") || !strings.Contains(m.Subject, "812 WCU/s (time_bucket)") {
			t.Errorf("subject %q", m.Subject)
		}
		for _, want := range []string{"Table:    " + o.Table, "Key:      ", "812 WCU", "at most 840", "1,000 WCU/s", "Pattern:  time_bucket", "Fix:      Time-bucketed key", "2026-11-22T10:00:23Z"} {
			if !strings.Contains(m.Message, want) {
				t.Errorf("message lacks %q:\n%s", want, m.Message)
			}
		}
		if o.Index != "" && !strings.Contains(m.Message, "Index:    "+o.Index) {
			t.Errorf("message lacks the index:\n%s", m.Message)
		}
		if len(o.Key.Key) < 50 && !strings.Contains(m.Subject, asciiOnly(o.Key.Key)) {
			t.Errorf("subject %q lacks the key", m.Subject)
		}
	}
}

// TestNotifyCapAndFailures: at most max messages an invocation; a failed
// publish is logged by its code and counted in NotifyErrors, never
// returned.
func TestNotifyCapAndFailures(t *testing.T) {
	n, srv, emf, logs := newTestNotifier(t, 2)
	onsets := []report.Onset{testOnset("Orders", "", "A"), testOnset("Orders", "", "B"), testOnset("Orders", "", "C")}
	srv.FailNext(1, "AuthorizationError")
	n.notify(context.Background(), testBudget(), onsets)
	if got := srv.Attempts(); got != 2 {
		t.Errorf("%d attempts, want the cap, 2", got)
	}
	// A's and B's go out together: whichever SNS got first failed.
	if p := srv.Published(); len(p) != 1 || !(strings.Contains(p[0].Subject, " A ") || strings.Contains(p[0].Subject, " B ")) {
		t.Errorf("published %v, want A's or B's alone (the other failed, C's over the cap)", p)
	}
	if !strings.Contains(logs.String(), `"error_code":"AuthorizationError"`) || !strings.Contains(logs.String(), "capped") {
		t.Errorf("logs:\n%s", logs.String())
	}
	want := `{"_aws":{"Timestamp":1795341600000,"CloudWatchMetrics":[{"Namespace":"HotKeyDetector","Dimensions":[["TableName"]],"Metrics":[{"Name":"NotifyErrors","Unit":"Count"}]}]},"TableName":"Orders","NotifyErrors":1}` + "\n"
	if emf.String() != want {
		t.Errorf("EMF %q, want %q", emf.String(), want)
	}
}

// TestNotifyAtTheCapAtOnce: the most notifications an invocation may send
// (HOTKEYS_NOTIFY_MAX_PER_INVOCATION's 100) to an SNS that hangs cost one
// call's deadline, not a hundred: they go out at once, and each is given
// up at the deadline, logged and counted. The budget here ends 1 s on.
// One after another, the first would hold SNS until the end and the
// others would not go out at all; at once, SNS holds several together
// (all of them on an idle machine, 6 under the race detector at a load of
// 15), and the whole ends within ten deadlines, which no machine's load
// makes one.
func TestNotifyAtTheCapAtOnce(t *testing.T) {
	const most, deadline = 100, time.Second
	n, srv, emf, logs := newTestNotifier(t, most)
	srv.SetFault(fault.Hang, 0)
	var onsets []report.Onset
	for i := range most {
		onsets = append(onsets, testOnset("Orders", "", fmt.Sprintf("KEY#%03d", i)))
	}
	began := time.Now()
	n.notify(context.Background(), budget{end: began.Add(deadline), caps: callCaps, timeout: defaultTimeout, now: time.Now}, onsets)
	if took := time.Since(began); took > 10*deadline {
		t.Errorf("%d notifications to a hanging SNS took %s, over %s: not sent at once", most, took, 10*deadline)
	}
	t.Logf("%d of %d held by SNS at once", srv.Faulted(), most)
	// One after another, SNS would hold the first until the budget ends
	// and see no other: two held together prove they went out at once.
	// How many more depends on the machine's load, not on the code.
	if srv.Faulted() < 2 || len(srv.Published()) != 0 {
		t.Errorf("%d requests held at once, %d published; want at least 2 held (one after another holds 1), none published", srv.Faulted(), len(srv.Published()))
	}
	if got := strings.Count(logs.String(), `"error_code":"DeadlineExceeded"`); got != most {
		t.Errorf("%d failures logged with their code, want %d:\n%s", got, most, logs.String())
	}
	want := `{"_aws":{"Timestamp":1795341600000,"CloudWatchMetrics":[{"Namespace":"HotKeyDetector","Dimensions":[["TableName"]],"Metrics":[{"Name":"NotifyErrors","Unit":"Count"}]}]},"TableName":"Orders","NotifyErrors":100}` + "\n"
	if emf.String() != want {
		t.Errorf("EMF %q, want %q", emf.String(), want)
	}
}

func TestNotifyFromEnv(t *testing.T) {
	for _, tc := range []struct {
		env  map[string]string
		max  int
		fail string
	}{
		{env: map[string]string{}},
		{env: map[string]string{"HOTKEYS_NOTIFY_TOPIC_ARN": testTopic}, max: DefaultNotifyMaxPerInvocation},
		{env: map[string]string{"HOTKEYS_NOTIFY_TOPIC_ARN": testTopic, "HOTKEYS_NOTIFY_MAX_PER_INVOCATION": "20"}, max: 20},
		{env: map[string]string{"HOTKEYS_NOTIFY_TOPIC_ARN": "hotkeys-alarms"}, fail: "want an SNS topic ARN"},
		{env: map[string]string{"HOTKEYS_NOTIFY_TOPIC_ARN": testTopic, "HOTKEYS_NOTIFY_MAX_PER_INVOCATION": "0"}, fail: "1 to 100"},
	} {
		c, err := notifyFromEnv(func(k string) string { return tc.env[k] })
		n := newNotifier(c, func() topicPublisher { return nil }, 1000, "NS", slog.New(slog.DiscardHandler))
		switch {
		case tc.fail != "":
			if err == nil || !strings.Contains(err.Error(), tc.fail) {
				t.Errorf("%v: error %v, want one saying %q", tc.env, err, tc.fail)
			}
		case err != nil:
			t.Errorf("%v: %v", tc.env, err)
		case tc.max == 0 && n != nil:
			t.Errorf("%v: a notifier without a topic", tc.env)
		case tc.max != 0 && (n == nil || n.max != tc.max || n.topic != testTopic):
			t.Errorf("%v: notifier %+v", tc.env, n)
		}
	}
}
