package record

import (
	"bytes"
	"math"
	"strconv"
	"time"

	"github.com/hotkeys-dev/hotkeys/internal/jsonscan"
)

// The two numbers of a record's "dynamodb": ApproximateCreationDateTime
// (epoch seconds, maybe fractional; milliseconds or microseconds in a
// Kinesis change record, see epochTime) and SizeBytes (an integer). Lambda
// writes both as plain digits, which are read in one pass; anything else
// valid is read by the general path.

// creationTime decodes ApproximateCreationDateTime: epoch seconds, maybe
// fractional. It parses the digits itself so that the nanoseconds are
// exact, and falls back to strconv for exponent notation.
func (d *Decoder) creationTime(i int) int {
	switch c := d.scan.Peek(i); {
	case c == 'n':
		return d.scan.Literal(i, "null")
	case c != '-' && !jsonscan.IsDigit(c):
		d.where = "dynamodb.ApproximateCreationDateTime"
		d.bad(ErrFieldType, i)
		return d.scan.SkipValue(i)
	}
	if sec, nsec, end, ok := plainEpoch(d.scan.Bytes(), i); ok {
		d.rs.time = epochTime(sec, nsec)
		return end
	}
	end := d.scan.SkipNumber(i)
	if end < 0 {
		return end
	}
	t, ok := parseEpoch(d.scan.Bytes()[i:end])
	if !ok {
		d.where = "dynamodb.ApproximateCreationDateTime"
		d.bad(ErrFieldType, i)
	}
	d.rs.time = t
	return end
}

// sizeBytes decodes dynamodb.SizeBytes, an integer.
func (d *Decoder) sizeBytes(i int) int {
	switch c := d.scan.Peek(i); {
	case c == 'n':
		return d.scan.Literal(i, "null")
	case c != '-' && !jsonscan.IsDigit(c):
		d.where = "dynamodb.SizeBytes"
		d.bad(ErrFieldType, i)
		return d.scan.SkipValue(i)
	}
	if n, end, ok := plainUint(d.scan.Bytes(), i); ok {
		d.rs.sizeBytes = n
		return end
	}
	end := d.scan.SkipNumber(i)
	if end < 0 {
		return end
	}
	// A valid JSON number: an integer unless it has '.', 'e' or 'E'.
	b := d.scan.Bytes()
	var n int64
	neg := b[i] == '-'
	for _, c := range b[i:end] {
		if c == '-' {
			continue
		}
		if !jsonscan.IsDigit(c) || n > (math.MaxInt64-9)/10 {
			d.where = "dynamodb.SizeBytes"
			d.bad(ErrFieldType, i)
			return end
		}
		n = n*10 + int64(c-'0')
	}
	if neg {
		n = -n
	}
	d.rs.sizeBytes = n
	return end
}

// plainEpoch reads epoch seconds at i in one pass when they are plainUint
// seconds with an optional fraction of digits; ok is false otherwise.
func plainEpoch(b []byte, i int) (sec, nsec int64, end int, ok bool) {
	sec, j, ok := plainUint(b, i)
	if ok {
		return sec, 0, j, true
	}
	if j < 0 || b[j] != '.' {
		return 0, 0, 0, false
	}
	j++
	start := j
	for scale := int64(1e8); j < len(b) && b[j]-'0' <= 9; j++ {
		nsec += int64(b[j]-'0') * scale
		scale /= 10
	}
	if j == start || (j < len(b) && (b[j] == 'e' || b[j] == 'E')) {
		return 0, 0, 0, false
	}
	return sec, nsec, j, true
}

// plainUint reads the JSON number at i in one pass when it is what Lambda
// writes for times and sizes: at most 18 digits, no leading zero, no sign,
// fraction or exponent. ok is false for anything else, which the general
// path then reads or rejects.
func plainUint(b []byte, i int) (v int64, end int, ok bool) {
	j := i
	for ; j < len(b) && b[j]-'0' <= 9; j++ {
		v = v*10 + int64(b[j]-'0')
	}
	if n := j - i; n == 0 || n > 18 || (n > 1 && b[i] == '0') {
		return 0, -1, false
	}
	if j < len(b) && (b[j] == '.' || b[j] == 'e' || b[j] == 'E') {
		return v, j, false
	}
	return v, j, true
}

// parseEpoch converts a valid JSON number of epoch seconds to a UTC time.
func parseEpoch(b []byte) (time.Time, bool) {
	if bytes.ContainsAny(b, "eE") {
		f, err := strconv.ParseFloat(string(b), 64)
		if err != nil || math.Abs(f) >= 1<<62 {
			return time.Time{}, false
		}
		sec, frac := math.Modf(f)
		return epochTime(int64(sec), int64(frac*1e9)), true
	}
	neg := b[0] == '-'
	if neg {
		b = b[1:]
	}
	var sec, nsec int64
	k := 0
	for ; k < len(b) && b[k] != '.'; k++ {
		if sec = sec*10 + int64(b[k]-'0'); sec >= 1<<62 {
			return time.Time{}, false
		}
	}
	scale := int64(1e8)
	for k++; k < len(b) && scale > 0; k++ {
		nsec += int64(b[k]-'0') * scale
		scale /= 10
	}
	if neg {
		sec, nsec = -sec, -nsec
	}
	return epochTime(sec, nsec), true
}

// Epoch magnitudes: a DynamoDB stream record's time is in seconds, a
// Kinesis change record's in microseconds (the default) or milliseconds
// (ApproximateCreationDateTimePrecision MILLISECOND, or a record from
// before that field, which has none). The number's size tells them apart
// for any time between 1973 and 5138, so one rule reads all three and the
// precision field is not needed: 10^11 seconds is the year 5138, 10^11
// milliseconds and 10^14 microseconds are in 1973.
const (
	minEpochMillis = 1e11
	minEpochMicros = 1e14
)

// epochTime is the UTC time of the epoch number sec + nsec/10^9, read as
// seconds, milliseconds or microseconds by its magnitude (see above).
func epochTime(sec, nsec int64) time.Time {
	switch {
	case sec >= minEpochMicros || sec <= -minEpochMicros:
		return time.UnixMicro(sec).Add(time.Duration(nsec / 1e3 / 1e3)).UTC()
	case sec >= minEpochMillis || sec <= -minEpochMillis:
		return time.UnixMilli(sec).Add(time.Duration(nsec / 1e3)).UTC()
	}
	return time.Unix(sec, nsec).UTC()
}
