package keypattern

import (
	"testing"

	"github.com/hotkeys-dev/hotkeys/ddb"
)

// TestClassify holds the classification rules of the package
// documentation, one key at a time (nothing learnt: literals stay).
func TestClassify(t *testing.T) {
	for _, c := range []struct{ key, want string }{
		// Constants and entity prefixes stay literal.
		{"OPS_LOG", "OPS_LOG"},
		{"BRAND_INDEX", "BRAND_INDEX"},
		{"THREAT#acme", "THREAT#acme"},
		{"TENANT#acme", "TENANT#acme"},
		{"STATUS#ACTIVE", "STATUS#ACTIVE"},
		{"snake_case_literal", "snake_case_literal"},
		{"acme-corp", "acme-corp"},
		{"CONFIG#global", "CONFIG#global"},
		// '_' and '-' split only where a value starts or ends.
		{"user_123", "user_<n>"},
		{"order-123", "order-<n>"},
		{"EVENTS#SHARD_3", "EVENTS#SHARD_<n>"},
		{"SESSION_9f86d081884c7d65", "SESSION_<hex>"},
		{"a_1_b", "a_<n>_b"},
		{"TEMP#-5", "TEMP#-<n>"},
		{"LOG_2026-06-22", "LOG_<date>"},
		{"x-2026-06-22_7", "x-<date>_<n>"},
		// Dates and datetimes, ISO 8601, whole.
		{"OPS_LOG#2026-06-22", "OPS_LOG#<date>"},
		{"MONTH#2026-06", "MONTH#<date>"},
		{"ORDER#2026-06-22T01:00:00.123Z", "ORDER#<datetime>"},
		{"ORDER#2026-06-22T01:00:00Z#42", "ORDER#<datetime>#<n>"},
		{"2026-06-22T01:00:00+02:00", "<datetime>"},
		{"2026-06-22T01:00:00.123456789-0530", "<datetime>"},
		{"2026-06-22 01:00", "<datetime>"},
		{"LOG#2026-06-22T01", "LOG#<datetime>"},
		{"LOG#2026-06-22T01:00:00,5Z", "LOG#<datetime>"},
		{"2026-13-01", "<n>-<n>-<n>"},             // no month 13
		{"2026-06-22x", "<n>-<n>-22x"},            // no boundary after it: no date
		{"2026-06-22T25:00", "<n>-<n>-22T25:<n>"}, // no hour 25: the date reads no further, and is no date
		// Identifiers.
		{"USER#0b7c4f2e-9d3a-4c1b-8e5f-6a7b8c9d0e1f", "USER#<uuid>"},
		{"USER#0B7C4F2E-9D3A-4C1B-8E5F-6A7B8C9D0E1F", "USER#<uuid>"},
		{"0b7c4f2e-9d3a-4c1b-8e5f-6a7b8c9d0e1f#2026-06-22", "<uuid>#<date>"},
		{"0b7c4f2e-9d3a-4c1b-8e5f-6a7b8c9d0e1g", "<hex>-9d3a-4c1b-8e5f-6a7b8c9d0e1g"}, // a 'g': no UUID
		{"0b7c4f2e9d3a4c1b8e5f6a7b8c9d0e1f", "<hex>"},
		{"DEADBEEF01", "<hex>"},
		{"deadbeef", "deadbeef"},     // no digit: a word
		{"DeadBeef01", "DeadBeef01"}, // two cases: not hex
		{"cafe1234", "<hex>"},
		{"01ARZ3NDEKTSV4RRFFQ69G5FAV", "<id>"}, // ULID
		{"ITEM#01arz3ndektsv4rrffq69g5fav", "ITEM#<id>"},
		{"0ujtsYcgvSTl8PAuAdqWYSMnLOv", "<id>"}, // KSUID
		{"V1StGXR8Z5jdHi6BmyT3", "<id>"},        // random alphanumeric, 20
		{"INTERNATIONALIZATION", "INTERNATIONALIZATION"},
		// Numbers, e-mails, dotted values.
		{"12345", "<n>"},
		{"ACCOUNT#000042", "ACCOUNT#<n>"},
		{"alice@example.com", "<email>"},
		{"USER#bob.smith+tag@mail.example.co.uk", "USER#<email>"},
		{"USER#john_doe@example.com#PROFILE", "USER#<email>#PROFILE"},
		{"x@y", "x@y"},       // no domain with a TLD
		{"a@b.c1", "a@b.c1"}, // a TLD of letters
		{"10.0.0.1", "<n>.<n>.<n>.<n>"},
		{"v1.2.3", "v1.<n>.<n>"},
		{"/tenants/acme/users/42", "/tenants/acme/users/<n>"},
		{"a:b|c/d.e@f_1-2", "a:b|c/d.e@f_<n>-<n>"},
		// Edges: empty parts, escapes, the part limit.
		{"", ""},
		{"#", "#"},
		{"A##B", "A##B"},
		{"a<n>", `a\<n>`},
		{`back\slash`, `back\\slash`},
		{"1#2#3#4#5#6#7#8#9#10#11#12#13#14#15#16#17#18", "<n>#<n>#<n>#<n>#<n>#<n>#<n>#<n>#<n>#<n>#<n>#<n>#<n>#<n>#<n>#16#17#18"},
		{"naïve#42", "naïve#<n>"},
	} {
		if got := Classify(typed(c.key)); got != c.want {
			t.Errorf("Classify(%q) = %q, want %q", c.key, got, c.want)
		}
	}
}

// TestClassifyTypes: a Number key is <n>, a Binary key <bytes>, whatever
// their bytes, and a key of no known type is taken as Binary.
func TestClassifyTypes(t *testing.T) {
	for _, c := range []struct {
		key  []byte
		want string
	}{
		{[]byte{byte(ddb.Number), '4', '2'}, "<n>"},
		{[]byte{byte(ddb.Number), '-', '1', '.', '5'}, "<n>"},
		{[]byte{byte(ddb.Binary), 'O', 'P', 'S', '#', '1'}, "<bytes>"},
		{[]byte{'X', 'a', '#'}, "<bytes>"},
		{nil, "<bytes>"},
	} {
		if got := Classify(c.key); got != c.want {
			t.Errorf("Classify(%q) = %q, want %q", c.key, got, c.want)
		}
	}
}
