package record

import (
	"math/rand/v2"
	"strconv"
	"strings"
	"testing"
)

// TestPlainNumbersAgree: the one-pass readers of times and sizes answer
// exactly as the general path (scanNumber, then parseEpoch or a digit
// loop) wherever they answer, and decline what they cannot read.
func TestPlainNumbersAgree(t *testing.T) {
	cases := []string{
		"0", "7", "1763805600", "1763805600.5", "1763805600.155", "1763805600.123456789", "1763805600.1234567891234",
		"0.5", "0.000000001", "999999999999999999", "1000000000000000000", "05", "00", "0.", "1.", ".5",
		"1e9", "1.5E9", "1763805600e0", "-1", "-0.5", "1763805600.5e1", "12,", "12}", "1.5,",
	}
	// The random cases are the shapes Lambda writes: the fast readers must
	// answer every one of them (plainUint those without a fraction), or
	// "agree wherever they answer" could hold by never answering.
	fixed := len(cases)
	r := rand.New(rand.NewPCG(3, 4))
	for range 2000 {
		s := strconv.FormatInt(r.Int64N(1<<40), 10)
		if r.IntN(2) == 0 {
			s += "." + strconv.FormatInt(1e12+r.Int64N(1e12), 10)[1:2+r.IntN(12)]
		}
		cases = append(cases, s)
	}
	var d Decoder
	for i, c := range cases {
		b := []byte(c + "}")
		d.scan.Reset(b)
		end := d.scan.SkipNumber(0)
		valid := end > 0 // a number token ends at end; what follows is the caller's
		sec, nsec, e, ok := plainEpoch(b, 0)
		if !ok && i >= fixed {
			t.Errorf("plainEpoch(%q) declined a plain decimal", c)
		}
		if ok {
			want, wok := parseEpoch(b[:max(end, 0)])
			if !valid || !wok || e != end || !epochTime(sec, nsec).Equal(want) {
				t.Errorf("plainEpoch(%q) = %d.%09d end %d; general: %v valid %v end %d", c, sec, nsec, e, want, valid, end)
			}
		}
		v, e, ok := plainUint(b, 0)
		if !ok && i >= fixed && !strings.Contains(c, ".") {
			t.Errorf("plainUint(%q) declined a plain integer", c)
		}
		if ok {
			want, err := strconv.ParseInt(string(b[:max(end, 0)]), 10, 64)
			if !valid || err != nil || e != end || v != want {
				t.Errorf("plainUint(%q) = %d end %d; general: %d %v valid %v end %d", c, v, e, want, err, valid, end)
			}
		}
	}
}
