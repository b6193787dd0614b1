package alert

import (
	"encoding/base64"
	"strings"
	"testing"
)

func TestDimensionValue(t *testing.T) {
	long := strings.Repeat("k", 1024)
	for _, tc := range []struct {
		name, key, want string
	}{
		{"printable kept", "OPS_LOG", "OPS_LOG"},
		{"punctuation kept", `USER#42 "x"\y~`, `USER#42 "x"\y~`},
		{"1,024 characters kept", long, long},
		{"one space kept around text", " a ", " a "},
		{"empty", "", "b64:"},
		{"only spaces", "   ", "b64:ICAg"},
		{"UTF-8", "café", "b64:Y2Fmw6k"},
		{"control character", "a\tb", "b64:YQli"},
		{"DEL", "a\x7f", "b64:YX8"},
		{"invalid UTF-8 bytes", "\xff\xfe", "b64:__4"},
		{"reserved prefix b64", "b64:Y2Fmw6k", "b64:" + base64.RawURLEncoding.EncodeToString([]byte("b64:Y2Fmw6k"))},
		{"reserved prefix sum", "sum:x", "b64:c3VtOng"},
		{"prefix-like but not reserved", "B64:x", "B64:x"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := DimensionValue(tc.key); got != tc.want {
				t.Errorf("DimensionValue(%q) = %q, want %q", tc.key, got, tc.want)
			}
		})
	}
}

func TestDimensionValueLongKeys(t *testing.T) {
	for _, tc := range []struct {
		name, key, readable string
	}{
		{"printable, 1,025 characters", strings.Repeat("a", 1025), strings.Repeat("a", 1025)},
		{"printable, 2,048 characters", strings.Repeat("ab", 1024), strings.Repeat("ab", 1024)},
		{"UTF-8 over the base64 limit", strings.Repeat("é", 400), base64.RawURLEncoding.EncodeToString([]byte(strings.Repeat("é", 400)))},
		{"reserved prefix, long", "b64:" + strings.Repeat("z", 800), "b64:" + strings.Repeat("z", 800)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := DimensionValue(tc.key)
			if !validDimensionValue(got) {
				t.Fatalf("invalid value of %d characters: %q", len(got), got)
			}
			head, rest, _ := strings.Cut(got, ":")
			hash, readable, ok := strings.Cut(rest, ":")
			if head != "sum" || !ok || len(hash) != 16 || strings.Trim(hash, "0123456789abcdef") != "" {
				t.Fatalf("want sum:<16 hex>:…, got %.40q…", got)
			}
			if !strings.HasPrefix(tc.readable, readable) || (len(got) < MaxDimensionValueLength && readable != tc.readable) {
				t.Errorf("readable part %.30q… (%d) is not as much of the key's readable form as fits", readable, len(readable))
			}
		})
	}
}

// Distinct keys give distinct values, even keys built to collide with the
// other forms, and every value is valid.
func TestDimensionValueInjectiveOnCorpus(t *testing.T) {
	corpus := []string{"", " ", "  ", "a", "A", "café", "cafe\u0301", "\x00", "\xff", "b64:", "sum:", "b64:YQ", "a\x7f",
		"USER#1", "USER#1 ", " USER#1", strings.Repeat("x", 1024), strings.Repeat("x", 1025), strings.Repeat("x", 2048)}
	// Each encoded form, fed back in as a key.
	n := len(corpus)
	for _, k := range corpus[:n] {
		corpus = append(corpus, DimensionValue(k))
	}
	// Long keys that share their first 1,500 bytes, printable and not.
	for i := range 50 {
		corpus = append(corpus, strings.Repeat("p", 1500)+string(rune('A'+i)))
		corpus = append(corpus, strings.Repeat("é", 750)+string(rune('A'+i)))
	}
	seen := map[string]string{}
	for _, k := range corpus {
		v := DimensionValue(k)
		if !validDimensionValue(v) {
			t.Errorf("DimensionValue(%.40q) = %.40q is not a valid dimension value", k, v)
		}
		if prev, dup := seen[v]; dup && prev != k {
			t.Errorf("keys %.40q and %.40q both map to %.40q", prev, k, v)
		}
		seen[v] = k
	}
}

func FuzzDimensionValue(f *testing.F) {
	f.Add("OPS_LOG", "OPS_LOG ")
	f.Add("", " ")
	f.Add("b64:YQ", "a")
	f.Add("café", "b64:Y2Fmw6k")
	f.Add(strings.Repeat("x", 1025), strings.Repeat("x", 1026))
	f.Add(strings.Repeat("\xff", 800), strings.Repeat("\xfe", 800))
	f.Fuzz(func(t *testing.T, a, b string) {
		va, vb := DimensionValue(a), DimensionValue(b)
		if !validDimensionValue(va) {
			t.Fatalf("DimensionValue(%q) = %q is invalid", a, va)
		}
		if DimensionValue(a) != va {
			t.Fatalf("DimensionValue(%q) is not stable", a)
		}
		if a != b && va == vb {
			t.Fatalf("%q and %q both map to %q", a, b, va)
		}
		if keepAsIs(a) != (va == a) {
			t.Fatalf("DimensionValue(%q) = %q: kept as is only when valid and unambiguous", a, va)
		}
	})
}
