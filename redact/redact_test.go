package redact

import (
	"errors"
	"fmt"
	"strings"
	"testing"
)

const testSecret = "correct horse battery staple"

// TestKnownAnswers pins the stand-ins to HMAC-SHA256 as computed by other
// tools, so that a change of the construction (which would change every
// deployed dashboard's keys) cannot pass unnoticed:
//
//	printf 'SSTATUS#ACTIVE' | openssl dgst -sha256 -hmac 'correct horse battery staple'
//	printf 'N42' | openssl dgst -sha256 -hmac 'correct horse battery staple'
//	python3 -c "import hmac,hashlib;print(hmac.new(b'',b'SSTATUS#ACTIVE',hashlib.sha256).hexdigest())"
func TestKnownAnswers(t *testing.T) {
	h, err := New([]byte(testSecret))
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		h     *Hasher
		typ   byte
		value string
		want  string
	}{
		{h, 'S', "STATUS#ACTIVE", "h:53e259294e636ee6"},
		{h, 'N', "42", "h:a4df2ce11497971e"},
		{NewUnsalted(), 'S', "STATUS#ACTIVE", "h:c2b84729d57633f7"},
	} {
		if got := tc.h.Key(tc.typ, []byte(tc.value)); got != tc.want {
			t.Errorf("%v.Key(%c, %q) = %s, want %s", tc.h, tc.typ, tc.value, got, tc.want)
		}
	}
	if h.Key('S', []byte("42")) == h.Key('N', []byte("42")) {
		t.Error("S 42 and N 42 have the same stand-in: the type is not hashed")
	}
}

func TestConstructorsRefuseWeakSecrets(t *testing.T) {
	long := []byte(strings.Repeat("k", MinSecretLen))
	for _, tc := range []struct {
		name   string
		mode   Mode
		secret []byte
		want   error // nil: a Hasher
	}{
		{"hash, no secret", Hash, nil, ErrNoSecret},
		{"hash, empty secret", Hash, []byte{}, ErrNoSecret},
		{"hash, short secret", Hash, long[:MinSecretLen-1], ErrShortSecret},
		{"hash, secret", Hash, long, nil},
		{"none with a secret", None, long, ErrUnusedSecret},
		{"unsalted with a secret", HashUnsalted, long, ErrUnusedSecret},
		{"unsalted", HashUnsalted, nil, nil},
		{"unknown", Mode("sha1"), long, ErrMode},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h, err := ForMode(tc.mode, tc.secret)
			if !errors.Is(err, tc.want) {
				t.Fatalf("ForMode = %v, %v; want error %v", h, err, tc.want)
			}
			if tc.want == nil && h == nil {
				t.Fatal("no Hasher and no error")
			}
			if tc.want == nil && h.Unsalted() != (tc.mode == HashUnsalted) {
				t.Errorf("Unsalted() = %v for mode %s", h.Unsalted(), tc.mode)
			}
		})
	}
	if h, err := ForMode(None, nil); h != nil || err != nil {
		t.Errorf("ForMode(none) = %v, %v; want no Hasher", h, err)
	}
	if _, err := New(nil); !errors.Is(err, ErrNoSecret) {
		t.Errorf("New(nil) = %v, want ErrNoSecret", err)
	}
}

// TestNewCopiesTheSecret: a caller that wipes or reuses its buffer does not
// change the stand-ins.
func TestNewCopiesTheSecret(t *testing.T) {
	buf := []byte(testSecret)
	h, err := New(buf)
	if err != nil {
		t.Fatal(err)
	}
	before := h.Key('S', []byte("k"))
	for i := range buf {
		buf[i] = 0
	}
	if after := h.Key('S', []byte("k")); after != before {
		t.Errorf("stand-in changed from %s to %s when the caller's buffer changed", before, after)
	}
}

func TestParseMode(t *testing.T) {
	for in, want := range map[string]Mode{"": None, "none": None, "hash": Hash, "hash-unsalted": HashUnsalted} {
		if got, err := ParseMode(in); got != want || err != nil {
			t.Errorf("ParseMode(%q) = %q, %v; want %q", in, got, err, want)
		}
	}
	for _, in := range []string{"HASH", "sha1", "hash "} {
		if _, err := ParseMode(in); !errors.Is(err, ErrMode) {
			t.Errorf("ParseMode(%q) = %v, want ErrMode", in, err)
		}
	}
}

// TestFormatNeverPrintsTheSecret: a configuration printed in an error
// message or a debug log carries the Hasher's kind, not its secret.
func TestFormatNeverPrintsTheSecret(t *testing.T) {
	h, err := New([]byte(testSecret))
	if err != nil {
		t.Fatal(err)
	}
	cfg := struct {
		Name string
		R    *Hasher
	}{"x", h}
	for _, verb := range []string{"%v", "%+v", "%#v", "%s", "%q", "%x", "%d"} {
		for _, arg := range []any{h, cfg, &cfg, *h} {
			out := fmt.Sprintf(verb, arg)
			if strings.Contains(out, testSecret) || strings.Contains(out, fmt.Sprintf("%x", testSecret)) ||
				strings.Contains(out, fmt.Sprint([]byte(testSecret))) {
				t.Errorf("Sprintf(%s, %T) = %s: prints the secret", verb, arg, out)
			}
		}
	}
}

func BenchmarkKey(b *testing.B) {
	h, _ := New([]byte(testSecret))
	key := []byte("USER#alice@example.com")
	b.ReportAllocs()
	for b.Loop() {
		_ = h.Key('S', key)
	}
}
