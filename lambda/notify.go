package main

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"os"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/sns"

	"github.com/hotkeys-dev/hotkeys/alert"
	"github.com/hotkeys-dev/hotkeys/report"
)

// Direct notification of onsets (HOTKEYS_NOTIFY_TOPIC_ARN): one SNS
// message per onset, whose subject and body name the table, the index, the
// key, its rate, its pattern and its fix, which a CloudWatch alarm's
// e-mail cannot. An onset is announced once per key per window, so it is
// notified once; an invocation sends at most maxPerInvocation, so that a
// burst of onsets cannot hold the shard up. A failed publish never fails
// the batch: it is counted (NotifyErrors) and logged.

// MetricNotifyErrors counts onsets whose notification SNS did not take.
const MetricNotifyErrors = "NotifyErrors"

// DefaultNotifyMaxPerInvocation caps the messages of one invocation when
// HOTKEYS_NOTIFY_MAX_PER_INVOCATION is not set: each is a call of about
// 20–50 ms on the shard's path.
const DefaultNotifyMaxPerInvocation = 5

// notifyTimeout bounds one Publish, retries included.
const notifyTimeout = 2 * time.Second

// maxSubject is SNS's bound on a subject: fewer than 100 characters.
const maxSubject = 99

// topicPublisher is what the notifier needs of the SNS client.
type topicPublisher interface {
	Publish(ctx context.Context, in *sns.PublishInput, optFns ...func(*sns.Options)) (*sns.PublishOutput, error)
}

// notifier publishes onsets to one SNS topic.
type notifier struct {
	api       topicPublisher
	topic     string
	max       int // messages per invocation
	namespace string
	emf       io.Writer // where the NotifyErrors EMF line goes (stdout)
	log       *slog.Logger
	now       func() time.Time
	partition float64 // the partition limit, for the message
}

// newNotifier returns the notifier c configures, publishing through the
// client it makes only then, with the partition limit for the message:
// nil when no topic is set.
func newNotifier(c notifyConfig, client func() topicPublisher, limit float64, namespace string, log *slog.Logger) *notifier {
	if c.topic == "" {
		return nil
	}
	return &notifier{api: client(), topic: c.topic, max: c.max, namespace: namespace, emf: os.Stdout, log: log, now: time.Now, partition: limit}
}

// notify sends one message per onset, up to n.max; what it could not send
// is logged and counted, never returned.
func (n *notifier) notify(ctx context.Context, onsets []report.Onset) {
	if len(onsets) > n.max {
		n.log.Warn("onset notifications capped for this invocation; the onsets are all in the log and the metrics",
			"onsets", len(onsets), "notified", n.max, "cap_variable", "HOTKEYS_NOTIFY_MAX_PER_INVOCATION")
		onsets = onsets[:n.max]
	}
	failed := map[string]int{}
	for i := range onsets {
		o := &onsets[i]
		cctx, cancel := context.WithTimeout(ctx, notifyTimeout)
		_, err := n.api.Publish(cctx, &sns.PublishInput{
			TopicArn: aws.String(n.topic),
			Subject:  aws.String(onsetSubject(o)),
			Message:  aws.String(onsetMessage(o, n.partition)),
		})
		cancel()
		if err != nil {
			failed[o.Table]++
			// By code only: the message the service returns may quote
			// what was sent, the key included.
			n.log.Error("onset notification failed; the onset is in the log and the metrics", "error_code", alert.ErrorCode(err),
				"table", o.Table, "topic", n.topic)
		}
	}
	for table, k := range failed {
		n.emf.Write(alert.AppendEMFCount(nil, n.namespace, n.now(), alert.DimensionTableName, table, MetricNotifyErrors, float64(k)))
	}
}

// onsetSubject is an onset's subject: "Hot key K on T/I: 812 WCU/s
// (single_item)". SNS takes fewer than 100 characters, without line breaks
// or control characters; names are cut to fit (the body has them whole)
// and written in printable ASCII, which every mail client shows.
func onsetSubject(o *report.Onset) string {
	where := o.Table
	if o.Index != "" {
		where += "/" + o.Index
	}
	tail := fmt.Sprintf(": %d WCU/s (%s)", o.SecondWCULower, o.Key.Pattern)
	key := asciiOnly(o.Key.Key)
	where = asciiOnly(where)
	// The key gets at least a third of the room; the table what is left.
	room := maxSubject - len("Hot key  on ") - len(tail)
	if len(key)+len(where) > room {
		where = cut(where, max(room-len(key), room/3))
		key = cut(key, room-len(where))
	}
	return "Hot key " + key + " on " + where + tail
}

// asciiOnly replaces what is not printable ASCII with '?'.
func asciiOnly(s string) string {
	return strings.Map(func(r rune) rune {
		if r < 0x20 || r > 0x7e {
			return '?'
		}
		return r
	}, s)
}

// cut shortens an ASCII s to at most n bytes, marking the cut with "...".
func cut(s string, n int) string {
	if len(s) <= n {
		return s
	}
	if n <= 3 {
		return s[:max(n, 0)]
	}
	return s[:n-3] + "..."
}

// onsetMessage is an onset's body: everything the log line says, for a
// person to act on.
func onsetMessage(o *report.Onset, limit float64) string {
	var b strings.Builder
	line := func(label, v string) { fmt.Fprintf(&b, "%-9s %s\n", label+":", strings.ToValidUTF8(v, "?")) }
	b.WriteString("hotkeys: a partition key crossed the critical write rate.\n\n")
	line("Table", o.Table)
	if o.Index != "" {
		line("Index", o.Index+" (global secondary index)")
	}
	line("Key", o.Key.Key+" ("+o.Key.Type+")")
	line("Second", o.Second.UTC().Format(time.RFC3339))
	soFar := ""
	if o.SecondSoFar {
		soFar = ", counted so far"
	}
	line("Rate", fmt.Sprintf("at least %s WCU in that second (at most %s%s), against the %s WCU/s per-partition limit",
		report.Count(o.SecondWCULower), report.Count(o.SecondWCUUpper), soFar, report.Rate(limit)))
	line("Pattern", string(o.Key.Pattern))
	line("Fix", o.Key.Diagnosis)
	line("Window", o.Start.UTC().Format(time.RFC3339)+" to "+o.End.UTC().Format(time.RFC3339)+" (its report follows at its close)")
	return b.String()
}
