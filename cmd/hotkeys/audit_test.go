package main

import (
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/hotkeys-dev/hotkeys/report"
)

// opsLogWrite is one write of the article's table: its partition key, and
// its GSI1 key ("" when the item has none).
type opsLogWrite struct {
	at      time.Time
	pk, gsi string
}

// opsLogWorkload is the OPS_LOG article's table over four quiet hours:
// every log line to PK = "OPS_LOG" at three writes a minute (720 items),
// each with the article's fix GSI1PK = "OPS_LOG"; BRAND_INDEX; threats of
// which one brand takes 9 of 12; three statuses written four times each;
// a daily bucket; 150 tenants written twice; 200 users once. Nothing in it
// comes near a rate threshold. want is each pattern's verdict.
func opsLogWorkload() (writes []opsLogWrite, want map[string]report.Pattern) {
	t0 := time.Date(2026, 6, 22, 0, 0, 0, 0, time.UTC)
	for i := range 720 { // 3 a minute for 4 hours
		writes = append(writes, opsLogWrite{t0.Add(time.Duration(i) * 20 * time.Second), "OPS_LOG", "OPS_LOG"})
	}
	at := func(i int) time.Time { return t0.Add(time.Duration(i*97%14400) * time.Second) }
	n := 0
	add := func(pk string, times int) {
		for range times {
			n++
			writes = append(writes, opsLogWrite{at(n), pk, ""})
		}
	}
	add("BRAND_INDEX", 5)
	add("THREAT#acme", 9)
	add("THREAT#globex", 2)
	add("THREAT#initech", 1)
	for _, s := range []string{"ACTIVE", "PENDING", "CLOSED"} {
		add("STATUS#"+s, 4)
	}
	add("DAILY#2026-06-22", 20)
	syll := []string{"ac", "me", "glo", "bex", "ini", "tech", "um", "bra", "vo", "zen", "kor", "lit", "ond"}
	for i := range 150 {
		add("TENANT#"+syll[i%13]+syll[i/13%13]+syll[(i/7)%13], 2)
	}
	for i := range 200 {
		n++
		writes = append(writes, opsLogWrite{at(n), fmt.Sprintf("USER#%08x-1f2e-4d3c-8b7a-%012x", i*2654435761%(1<<32), i), fmt.Sprintf("USER#%d", i)})
	}
	slices.SortStableFunc(writes, func(a, b opsLogWrite) int { return a.at.Compare(b.at) })
	want = map[string]report.Pattern{
		"OPS_LOG": report.PatternSingleKey, "BRAND_INDEX": report.PatternSingleKey, "THREAT#<*>": report.PatternDominantKey,
		"STATUS#<*>": report.PatternLowCardinality, "DAILY#<date>": report.PatternTimeBucket, "TENANT#<*>": report.PatternHealthy,
		"USER#<uuid>": report.PatternHealthy, "GSI1 OPS_LOG": report.PatternConstantKey, "GSI1 USER#<n>": report.PatternHealthy,
	}
	return writes, want
}

// writeOpsLog writes the workload as a Lambda DynamoDB Streams event and
// the table's describe-table, and returns their paths.
func writeOpsLog(t *testing.T, writes []opsLogWrite) (events, describe string) {
	dir := t.TempDir()
	var b strings.Builder
	b.WriteString(`{"Records": [`)
	for i, w := range writes {
		if i > 0 {
			b.WriteString(",\n")
		}
		sk := fmt.Sprintf("%s#%05d", w.at.Format(time.RFC3339), i)
		img := fmt.Sprintf(`"PK":{"S":%q},"SK":{"S":%q},"msg":{"S":"quiet"}`, w.pk, sk)
		if w.gsi != "" {
			img += fmt.Sprintf(`,"GSI1PK":{"S":%q},"GSI1SK":{"S":%q}`, w.gsi, sk)
		}
		fmt.Fprintf(&b, `{"eventID":"e%d","eventName":"INSERT","eventVersion":"1.1","eventSource":"aws:dynamodb","awsRegion":"us-east-1",`+
			`"dynamodb":{"ApproximateCreationDateTime":%d,"Keys":{"PK":{"S":%q},"SK":{"S":%q}},"NewImage":{%s},"SequenceNumber":"%021d","SizeBytes":120,"StreamViewType":"NEW_AND_OLD_IMAGES"},`+
			`"eventSourceARN":"arn:aws:dynamodb:us-east-1:123456789012:table/Ops/stream/2026-06-22T00:00:00.000"}`, i, w.at.Unix(), w.pk, sk, img, i+1)
	}
	b.WriteString("]}\n")
	events = filepath.Join(dir, "ops-log.json")
	describe = filepath.Join(dir, "ops.json")
	desc := `{"Table":{"TableName":"Ops","KeySchema":[{"AttributeName":"PK","KeyType":"HASH"},{"AttributeName":"SK","KeyType":"RANGE"}],` +
		`"GlobalSecondaryIndexes":[{"IndexName":"GSI1","KeySchema":[{"AttributeName":"GSI1PK","KeyType":"HASH"},{"AttributeName":"GSI1SK","KeyType":"RANGE"}],"Projection":{"ProjectionType":"ALL"}}]}}`
	for p, s := range map[string]string{events: b.String(), describe: desc} {
		if err := os.WriteFile(p, []byte(s), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	return events, describe
}

// TestAuditGolden: the article's case, in both formats.
func TestAuditGolden(t *testing.T) {
	writes, _ := opsLogWorkload()
	events, describe := writeOpsLog(t, writes)
	runGolden(t, "audit-table.golden", "audit", "--describe-table", describe, events)
	runGolden(t, "audit-json.golden", "audit", "--format", "json", "--describe-table", describe, events)
}

// TestAuditAgainstOracle: every pattern's verdict, and its records, WCU
// and distinct keys against an exact count of the workload (distinct
// keys within three standard errors once estimated), at a few writes a
// minute; no healthy pattern is flagged.
func TestAuditAgainstOracle(t *testing.T) {
	writes, want := opsLogWorkload()
	events, describe := writeOpsLog(t, writes)
	code, out, errs := hotkeys(t, "", "audit", "--format", "json", "--describe-table", describe, events)
	if code != exitOK {
		t.Fatalf("exit %d: %s", code, errs)
	}
	var got struct{ Audits []auditReport }
	if err := json.Unmarshal([]byte(out), &got); err != nil {
		t.Fatal(err)
	}
	// The oracle: each write costs 1 WCU (items under 1 KB, inserts), on
	// the table and on GSI1 when it has the key.
	type truth struct {
		records uint64
		keys    map[string]bool
	}
	exact := map[string]*truth{}
	count := func(name, key string) {
		if exact[name] == nil {
			exact[name] = &truth{keys: map[string]bool{}}
		}
		exact[name].records++
		exact[name].keys[key] = true
	}
	for _, w := range writes {
		count(patternOf(w.pk), w.pk)
		if w.gsi != "" {
			count("GSI1 "+patternOf(w.gsi), w.gsi)
		}
	}
	if len(got.Audits) != 2 || got.Audits[0].Index != "" || got.Audits[1].Index != "GSI1" {
		t.Fatalf("audits %+v, want the table's then GSI1's", got.Audits)
	}
	seen := map[string]bool{}
	for _, a := range got.Audits {
		if a.Start != writes[0].at || a.End != writes[len(writes)-1].at || a.PartitionLimit != 1000 {
			t.Errorf("%s: span [%v, %v], limit %v", a.Index, a.Start, a.End, a.PartitionLimit)
		}
		for _, p := range a.Patterns {
			name := strings.TrimSpace(a.Index + " " + p.Pattern)
			seen[name] = true
			tr := exact[name]
			if tr == nil {
				t.Errorf("pattern %q: not in the workload", name)
				continue
			}
			if p.Verdict != want[name] {
				t.Errorf("pattern %q: verdict %s, want %s", name, p.Verdict, want[name])
			}
			if p.Records != tr.records || p.WCU != tr.records {
				t.Errorf("pattern %q: %d records, %d WCU; want %d of each", name, p.Records, p.WCU, tr.records)
			}
			keys := float64(len(tr.keys))
			if p.DistinctKeysExact && p.DistinctKeys != uint64(len(tr.keys)) ||
				!p.DistinctKeysExact && math.Abs(float64(p.DistinctKeys)-keys) > 3*p.DistinctKeysError*keys {
				t.Errorf("pattern %q: %d distinct keys (exact %v, ±%.3f), want %d", name, p.DistinctKeys, p.DistinctKeysExact, p.DistinctKeysError, len(tr.keys))
			}
			if p.Hazard() != (want[name] != report.PatternHealthy) || p.Hazard() != (p.Diagnosis != "") {
				t.Errorf("pattern %q: hazard %v, diagnosis %q", name, p.Hazard(), p.Diagnosis)
			}
			// The ceiling against its definition: limit ÷ the heaviest
			// key's share, from the share's upper bound.
			var top uint64
			for _, k := range p.TopKeys {
				top = max(top, k.WCUUpper)
			}
			if c := 1000 / (float64(top) / float64(p.WCU)); p.Verdict != report.PatternSingleKey && p.Verdict != report.PatternConstantKey && p.CeilingWCUPerSecond > c+1e-6 {
				t.Errorf("pattern %q: ceiling %.1f WCU/s above limit ÷ top share %.1f", name, p.CeilingWCUPerSecond, c)
			}
		}
	}
	for name := range want {
		if !seen[name] {
			t.Errorf("pattern %q missing from the audit", name)
		}
	}
}

// patternOf is the test's own reading of the workload's keys.
func patternOf(key string) string {
	switch {
	case strings.HasPrefix(key, "THREAT#"), strings.HasPrefix(key, "STATUS#"), strings.HasPrefix(key, "TENANT#"):
		return key[:strings.IndexByte(key, '#')+1] + "<*>"
	case strings.HasPrefix(key, "DAILY#"):
		return "DAILY#<date>"
	case strings.HasPrefix(key, "USER#") && strings.Contains(key, "-"):
		return "USER#<uuid>"
	case strings.HasPrefix(key, "USER#"):
		return "USER#<n>"
	}
	return key
}

// TestAuditHelp: -h teaches the verdicts and an example.
func TestAuditHelp(t *testing.T) {
	code, _, errs := hotkeys(t, "", "audit", "-h")
	for _, s := range []string{"single_key", "constant_key", "time_bucket", "dominant_key", "low_cardinality", "healthy", "--describe-table", "hotkeys audit --partition-key PK"} {
		if !strings.Contains(errs, s) {
			t.Errorf("audit -h (exit %d) does not say %q:\n%s", code, s, errs)
		}
	}
}

// TestAuditRedacts: with --key-redaction, no key and no literal of a
// pattern shows, in either format, and the classes still do.
func TestAuditRedacts(t *testing.T) {
	writes, _ := opsLogWorkload()
	events, describe := writeOpsLog(t, writes)
	for _, format := range []string{"table", "json"} {
		code, out, errs := hotkeys(t, "", "audit", "--key-redaction", "hash-unsalted", "--format", format, "--describe-table", describe, events)
		if code != exitOK {
			t.Fatalf("%s: exit %d: %s", format, code, errs)
		}
		for _, leak := range []string{"OPS_LOG", "BRAND_INDEX", "THREAT", "STATUS", "TENANT", "DAILY", "USER", "acme"} {
			if strings.Contains(out, leak) {
				t.Errorf("%s: the redacted audit shows %q", format, leak)
			}
		}
		if format == "json" { // encoding/json writes < and > as \u003c and \u003e
			out = strings.NewReplacer(`\u003c`, "<", `\u003e`, ">").Replace(out)
		}
		if !strings.Contains(out, "<uuid>") || !strings.Contains(out, "<*>") || !strings.Contains(out, "constant_key") {
			t.Errorf("%s: the redacted audit lost the patterns' classes or verdicts:\n%s", format, out)
		}
	}
}
