package record

import (
	"bytes"
	"math"
	"strconv"
	"time"

	"github.com/hotkeys-dev/hotkeys/internal/jsonscan"
)

// The two numbers of a record's "dynamodb": ApproximateCreationDateTime
// (epoch seconds, maybe fractional) and SizeBytes (an integer). Lambda
// writes both as plain digits, which are read in one pass; anything else
// valid is read by the general path. ApproximateCreationDateTime may also
// be an ISO 8601 string: AWS CLI v2 prints every timestamp so by default
// (its cli_timestamp_format), `aws dynamodbstreams get-records` included.

// creationTime decodes ApproximateCreationDateTime: epoch seconds, maybe
// fractional, or an ISO 8601 time. It parses the digits itself so that
// the nanoseconds are exact, and falls back to strconv for exponent
// notation. The string is tested only once the value is known not to be
// a number, so that the epoch path pays nothing for it.
func (d *Decoder) creationTime(i int) int {
	switch c := d.scan.Peek(i); {
	case c == 'n':
		return d.scan.Literal(i, "null")
	case c != '-' && !jsonscan.IsDigit(c):
		if c == '"' {
			return d.isoCreationTime(i)
		}
		d.where = "dynamodb.ApproximateCreationDateTime"
		d.bad(ErrFieldType, i)
		return d.scan.SkipValue(i)
	}
	if sec, nsec, end, ok := plainEpoch(d.scan.Bytes(), i); ok {
		d.rs.time = time.Unix(sec, nsec).UTC()
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
		return time.Unix(int64(sec), int64(frac*1e9)).UTC(), true
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
	return time.Unix(sec, nsec).UTC(), true
}

// isoCreationTime decodes an ApproximateCreationDateTime string at i: an
// ISO 8601 time with its zone, as AWS CLI v2 prints it
// ("2026-11-22T10:00:00.155000+01:00"). A string that is not one makes
// the record malformed. It counts the times read so (ISOTimes).
func (d *Decoder) isoCreationTime(i int) int {
	end, s := d.scan.StringBytes(i)
	if end < 0 {
		return end
	}
	t, ok := parseISOTime(s)
	if !ok {
		d.where = "dynamodb.ApproximateCreationDateTime: want epoch seconds, or an ISO 8601 time with its zone such as 2026-11-22T10:00:00Z"
		d.bad(ErrFieldType, i)
		return end
	}
	d.rs.time = t
	d.isoTimes++
	return end
}

// parseISOTime reads an ISO 8601 (RFC 3339) date and time of day with its
// zone: YYYY-MM-DD, 'T' or a space, hh:mm:ss, an optional fraction of any
// length (read to the nanosecond), and 'Z' or an offset ±hh:mm, ±hhmm or
// ±hh. A time without a zone is refused: which zone it meant cannot be
// told, and AWS CLI v2 prints the machine's own. It allocates nothing.
func parseISOTime(s []byte) (time.Time, bool) {
	if len(s) < 20 || s[4] != '-' || s[7] != '-' || (s[10] != 'T' && s[10] != 't' && s[10] != ' ') || s[13] != ':' || s[16] != ':' {
		return time.Time{}, false
	}
	year, ok1 := digits(s[0:4])
	month, ok2 := digits(s[5:7])
	day, ok3 := digits(s[8:10])
	hour, ok4 := digits(s[11:13])
	minute, ok5 := digits(s[14:16])
	sec, ok6 := digits(s[17:19])
	if !(ok1 && ok2 && ok3 && ok4 && ok5 && ok6) || month < 1 || month > 12 || day < 1 || day > daysIn(month, year) ||
		hour > 23 || minute > 59 || sec > 59 {
		return time.Time{}, false
	}
	j := 19
	var nsec int64
	if s[j] == '.' || s[j] == ',' {
		j++
		start := j
		for scale := int64(1e8); j < len(s) && jsonscan.IsDigit(s[j]); j++ {
			nsec += int64(s[j]-'0') * scale
			scale /= 10
		}
		if j == start {
			return time.Time{}, false
		}
	}
	var offset int64
	switch {
	case j == len(s):
		return time.Time{}, false // no zone
	case (s[j] == 'Z' || s[j] == 'z') && j+1 == len(s):
	case s[j] == '+' || s[j] == '-':
		var ok bool
		if offset, ok = zoneOffset(s[j+1:]); !ok {
			return time.Time{}, false
		}
		if s[j] == '-' {
			offset = -offset
		}
	default:
		return time.Time{}, false
	}
	unix := daysFromCivil(year, month, day)*86400 + hour*3600 + minute*60 + sec - offset
	return time.Unix(unix, nsec).UTC(), true
}

// zoneOffset reads a zone offset after its sign, as hh, hhmm or hh:mm, in
// seconds.
func zoneOffset(zone []byte) (int64, bool) {
	var oh, om int64
	var ok bool
	switch len(zone) {
	case 2: // ±hh
		oh, ok = digits(zone)
	case 4: // ±hhmm
		var okm bool
		oh, ok = digits(zone[:2])
		om, okm = digits(zone[2:])
		ok = ok && okm
	case 5: // ±hh:mm
		var okm bool
		oh, ok = digits(zone[:2])
		om, okm = digits(zone[3:])
		ok = ok && okm && zone[2] == ':'
	}
	if !ok || oh > 23 || om > 59 {
		return 0, false
	}
	return oh*3600 + om*60, true
}

// digits reads b, all decimal digits, as a number.
func digits(b []byte) (int64, bool) {
	var v int64
	for _, c := range b {
		if !jsonscan.IsDigit(c) {
			return 0, false
		}
		v = v*10 + int64(c-'0')
	}
	return v, true
}

// daysIn is the number of days of month in year (proleptic Gregorian).
func daysIn(month, year int64) int64 {
	switch month {
	case 2:
		if year%4 == 0 && (year%100 != 0 || year%400 == 0) {
			return 29
		}
		return 28
	case 4, 6, 9, 11:
		return 30
	}
	return 31
}

// daysFromCivil is the number of days from 1970-01-01 to the date (Howard
// Hinnant's days_from_civil, for years 0 to 9999).
func daysFromCivil(y, m, d int64) int64 {
	if m <= 2 {
		y--
	}
	era := y / 400 // y >= -1 here: the division truncates toward zero as floor would, but for y = -1
	if y < 0 {
		era = (y - 399) / 400
	}
	yoe := y - era*400
	mp := (m + 9) % 12
	doy := (153*mp+2)/5 + d - 1
	doe := yoe*365 + yoe/4 - yoe/100 + doy
	return era*146097 + doe - 719468
}
