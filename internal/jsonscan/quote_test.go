package jsonscan_test

import (
	"encoding/json"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/hotkeys-dev/hotkeys/internal/jsonscan"
)

func TestAppendQuoted(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"", `""`},
		{"OPS_LOG", `"OPS_LOG"`},
		{`a"b\c`, `"a\"b\\c"`},
		{"tab\tnl\ncr\r", `"tab\tnl\ncr\r"`},
		{"\x00\x1f", `"\u0000\u001f"`},
		{"é✓😀", `"é✓😀"`}, // not escaped: keys stay readable
		{"bad\xffutf8", `"bad\ufffdutf8"`},
	} {
		if got := string(jsonscan.AppendQuoted([]byte("x"), tc.in)); got != "x"+tc.want {
			t.Errorf("AppendQuoted(%q) = %s, want x%s", tc.in, got, tc.want)
		}
	}
}

// FuzzAppendQuoted: the output is always one valid JSON string, which
// decodes back to the input where the input is UTF-8 (and to encoding/json's
// reading of it where it is not).
func FuzzAppendQuoted(f *testing.F) {
	for _, s := range []string{"", "plain", "quote\"", "\\", "\x00\x7f", "\xff\xfe", "é😀", strings.Repeat("ab\n", 20)} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		b := jsonscan.AppendQuoted(nil, s)
		var got string
		if err := json.Unmarshal(b, &got); err != nil {
			t.Fatalf("AppendQuoted(%q) = %s: not a JSON string: %v", s, b, err)
		}
		want := s
		if !utf8.ValidString(s) {
			// Each bad byte becomes U+FFFD (strings.ToValidUTF8 would
			// replace a run of them once).
			var sb strings.Builder
			for i := 0; i < len(s); {
				r, n := utf8.DecodeRuneInString(s[i:])
				sb.WriteRune(r)
				i += n
			}
			want = sb.String()
		}
		if got != want {
			t.Fatalf("AppendQuoted(%q) decodes to %q, want %q", s, got, want)
		}
	})
}
