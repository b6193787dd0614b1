package templatetest

import (
	"fmt"
	"testing"

	"github.com/hotkeys-dev/hotkeys/history/store"
	"github.com/hotkeys-dev/hotkeys/internal/testkit/cfn"
)

// TestTemplateHistoryTable: off by default (no table, HOTKEYS_HISTORY_TABLE
// empty); on, a table keyed and TTL'd as history/store writes it, on
// demand, encrypted, its name and the retention passed to the function.
func TestTemplateHistoryTable(t *testing.T) {
	tmpl := readTemplate(t)
	s := deploy(t, tmpl, nil)
	if r, _ := s.Resource("HistoryTable"); r != nil {
		t.Error("the history table is created by default; History defaults to off")
	}
	env := functionEnvironment(t, s)
	if env["HOTKEYS_HISTORY_TABLE"] != "" || env["HOTKEYS_HISTORY_RETENTION_DAYS"] != "30" {
		t.Errorf("defaults: HOTKEYS_HISTORY_TABLE %q, HOTKEYS_HISTORY_RETENTION_DAYS %q; want empty and 30",
			env["HOTKEYS_HISTORY_TABLE"], env["HOTKEYS_HISTORY_RETENTION_DAYS"])
	}

	s = deploy(t, tmpl, map[string]string{"History": "on", "HistoryRetentionDays": "90"})
	p := properties(mustResource(t, s, "HistoryTable"))
	want := map[string]string{
		"BillingMode":             "PAY_PER_REQUEST",
		"KeySchema":               fmt.Sprint([]any{map[string]any{"AttributeName": store.AttrDay, "KeyType": "HASH"}, map[string]any{"AttributeName": store.AttrWindow, "KeyType": "RANGE"}}),
		"AttributeDefinitions":    fmt.Sprint([]any{map[string]any{"AttributeName": store.AttrDay, "AttributeType": "S"}, map[string]any{"AttributeName": store.AttrWindow, "AttributeType": "S"}}),
		"TimeToLiveSpecification": fmt.Sprint(map[string]any{"AttributeName": store.AttrExpires, "Enabled": true}),
		"SSESpecification":        fmt.Sprint(map[string]any{"SSEEnabled": true}),
	}
	for k, w := range want {
		if got := fmt.Sprint(p[k]); got != w {
			t.Errorf("HistoryTable %s = %s, want %s", k, got, w)
		}
	}
	env = functionEnvironment(t, s)
	if env["HOTKEYS_HISTORY_TABLE"] != fmt.Sprint(cfn.Ref("HistoryTable")) || env["HOTKEYS_HISTORY_RETENTION_DAYS"] != "90" {
		t.Errorf("History=on: HOTKEYS_HISTORY_TABLE %q, HOTKEYS_HISTORY_RETENTION_DAYS %q; want the table and 90",
			env["HOTKEYS_HISTORY_TABLE"], env["HOTKEYS_HISTORY_RETENTION_DAYS"])
	}
}
