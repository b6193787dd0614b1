package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/hotkeys-dev/hotkeys/report"
)

// shopDescription is what `aws dynamodb describe-table` prints for the
// demo's table, with its index GSI1 projecting only keys.
const shopDescription = `{"Table":{"TableName":"Shop","KeySchema":[{"AttributeName":"PK","KeyType":"HASH"},{"AttributeName":"SK","KeyType":"RANGE"}],
"AttributeDefinitions":[{"AttributeName":"PK","AttributeType":"S"},{"AttributeName":"SK","AttributeType":"S"},{"AttributeName":"GSI1PK","AttributeType":"S"}],
"GlobalSecondaryIndexes":[{"IndexName":"GSI1","KeySchema":[{"AttributeName":"GSI1PK","KeyType":"HASH"},{"AttributeName":"SK","KeyType":"RANGE"}],
"Projection":{"ProjectionType":"KEYS_ONLY"},"IndexStatus":"ACTIVE"}],
"StreamSpecification":{"StreamEnabled":true,"StreamViewType":"NEW_AND_OLD_IMAGES"},"CreationDateTime":1763805600.123}}`

// indexedEvents is a minute of captured events: daily-bucketed log lines
// (a healthy table) all carrying GSI1PK = "OPS_LOG", on top of the tail.
func indexedEvents() string {
	g := newDemoGen(7, 300)
	var b bytes.Buffer
	start := time.Date(2026, 11, 22, 10, 0, 0, 0, time.UTC).Unix()
	for s := range int64(60) {
		g.second(start+s, func(g *demoGen, sec int64) {
			for i := range 300 {
				g.writeIndexed("OPS_LOG#2026-11-"+[]string{"20", "21", "22"}[i%3]+"#"+g.id()[:2], g.id(), "OPS_LOG", 600)
			}
		})
		for _, p := range g.payloads() {
			b.Write(p)
			b.WriteByte('\n')
		}
	}
	return b.String()
}

func writeTemp(t *testing.T, name, content string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(p, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

// TestReplayDescribeTable: with --describe-table, replay needs no
// --partition-key and reports the index's hot key in a window of its own.
func TestReplayDescribeTable(t *testing.T) {
	desc := writeTemp(t, "shop.json", shopDescription)
	events := indexedEvents()
	code, out, errs := hotkeys(t, events, "replay", "--describe-table", desc, "--format", "json", "-")
	if code != exitOK {
		t.Fatalf("exit %d: %s", code, errs)
	}
	var table, index *report.Report
	r := decodeReport(t, out)
	for i := range r.Windows {
		switch r.Windows[i].Index {
		case "":
			table = &r.Windows[i]
		case "GSI1":
			index = &r.Windows[i]
		default:
			t.Errorf("a window of index %q", r.Windows[i].Index)
		}
	}
	if table == nil || index == nil || len(r.Windows) != 2 {
		t.Fatalf("windows %+v", r.Windows)
	}
	// KEYS_ONLY: each entry is PK + SK + GSI1PK, well under 1 KB: 1 WCU per
	// log line, 300 a second.
	if index.WCU != 18000 || index.Records != 18000 || index.WCUIsLowerBound {
		t.Errorf("index window: %d records, %d WCU (lower bound %v), want 18,000 and 18,000", index.Records, index.WCU, index.WCUIsLowerBound)
	}
	if len(index.HotKeys) != 1 || index.HotKeys[0].Key != "OPS_LOG" || index.HotKeys[0].Pattern != report.PatternConstantKey ||
		index.HotKeys[0].WCULower != 18000 {
		t.Errorf("index hot keys %+v", index.HotKeys)
	}
	for _, k := range table.HotKeys {
		t.Errorf("the table is flagged: %s", k.Key)
	}
	// The table output names the index, and the JSON's table window has no
	// "index" member.
	if strings.Count(out, `"index"`) != 1 {
		t.Errorf("the JSON names the index %d times", strings.Count(out, `"index"`))
	}
	code, text, _ := hotkeys(t, events, "replay", "--describe-table", desc, "-")
	if code != exitOK || !strings.Contains(text, "Shop · index GSI1 ·") || !strings.Contains(flat(text), "throttles the base table's writes") {
		t.Errorf("table output: exit %d\n%s", code, text)
	}
	// --indexes off: the table only.
	code, out, _ = hotkeys(t, events, "replay", "--describe-table", desc, "--indexes", "off", "--format", "json", "-")
	if r := decodeReport(t, out); code != exitOK || len(r.Windows) != 1 || r.Windows[0].Index != "" {
		t.Errorf("--indexes off: exit %d, %d windows", code, len(r.Windows))
	}
}

func TestReplayDescribeTableErrors(t *testing.T) {
	for _, tc := range []struct {
		args []string
		msg  string
	}{
		{[]string{"--describe-table", "/nonexistent/x.json"}, "--describe-table: open /nonexistent/x.json"},
		{[]string{"--describe-table", writeTemp(t, "bad.json", `{"TableNames":["Shop"]}`)}, "describe-table --table-name NAME"},
		{[]string{"--describe-table", writeTemp(t, "shop.json", shopDescription), "--partition-key", "SK"}, `--partition-key "SK", but table "Shop"'s partition key is "PK"`},
		{[]string{"--indexes", "on"}, "--indexes on needs --describe-table FILE"},
		{[]string{"--indexes", "maybe"}, `--indexes "maybe": want auto, on or off`},
	} {
		code, _, errs := hotkeys(t, "", append(append([]string{"replay"}, tc.args...), "-")...)
		if code != exitUsage || !strings.Contains(errs, tc.msg) {
			t.Errorf("replay %v: exit %d, stderr %q; want %d saying %q", tc.args, code, errs, exitUsage, tc.msg)
		}
	}
}

// TestDescribeTableOfAnotherTable: a --describe-table of another table
// than the records' is applied as asked, and said.
func TestDescribeTableOfAnotherTable(t *testing.T) {
	desc := writeTemp(t, "shop.json", shopDescription)
	_, _, errs := hotkeys(t, "", "replay", "--describe-table", desc, "testdata/hot.json")
	if !strings.Contains(errs, `hotkeys: warning: --describe-table describes table "Shop", but the records are of Orders`) {
		t.Errorf("no warning in:\n%s", errs)
	}
	if _, _, errs := hotkeys(t, indexedEvents(), "replay", "--describe-table", desc, "-"); strings.Contains(errs, "warning") {
		t.Errorf("the records are Shop's: %s", errs)
	}
}
