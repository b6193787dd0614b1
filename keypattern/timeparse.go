package keypattern

// The values of a time part: ISO 8601 calendar dates and datetimes, in
// the extended format (with '-' and ':'), as keys write them.

// instant is a time part's value: the instant it names, in UTC, and the
// coarsest unit the written value is aligned to, which says how wide a
// bucket it can be.
type instant struct {
	sec  int64 // seconds since 1970-01-01T00:00:00Z, the offset applied
	nano int32 // and nanoseconds
	unit uint8 // unitSecond .. unitMonth; unitNone for no time part
}

// Units a time value is aligned to. A value with non-zero seconds (or a
// fraction) is unitSecond: a record's own timestamp, not a bucket.
const (
	unitNone = iota
	unitSecond
	unitMinute
	unitHour
	unitDay
	unitMonth
)

// unitSeconds is each unit's width: how long a bucket of it is current.
var unitSeconds = [...]int64{0, 1, 60, 3600, 86400, 31 * 86400}

// after reports whether a is later than b.
func (a instant) after(b instant) bool {
	return a.sec > b.sec || a.sec == b.sec && a.nano > b.nano
}

// parseTime reads a date or datetime at the start of v:
//
//	YYYY-MM                                 a month: Date
//	YYYY-MM-DD                              a date: Date
//	YYYY-MM-DD{T|t| }hh[:mm[:ss[{.|,}f…]]][zone]  a datetime: DateTime
//	zone: Z, z, ±hh, ±hhmm or ±hh:mm
//
// It returns how many bytes it read, or ok false. A fraction keeps its
// first 9 digits; more are read and ignored. The caller checks that what
// follows is a boundary.
func parseTime(v []byte) (n int, c Class, t instant, ok bool) {
	if len(v) < 7 || !digits(v[:4]) || v[4] != '-' || !digits(v[5:7]) {
		return 0, 0, t, false
	}
	y, mo := num(v[:4]), num(v[5:7])
	if mo < 1 || mo > 12 {
		return 0, 0, t, false
	}
	if len(v) < 10 || v[7] != '-' || !digits(v[8:10]) {
		return 7, Date, instant{sec: civil(y, mo, 1) * 86400, unit: unitMonth}, true
	}
	d := num(v[8:10])
	if d < 1 || d > 31 {
		return 0, 0, t, false
	}
	day := civil(y, mo, d) * 86400
	if len(v) < 13 || (v[10] != 'T' && v[10] != 't' && v[10] != ' ') || !digits(v[11:13]) {
		return 10, Date, instant{sec: day, unit: unitDay}, true
	}
	n, clock := readClock(v)
	if clock[0] > 24 || clock[1] > 59 || clock[2] > 60 {
		return 0, 0, t, false
	}
	t.sec = day + clock[0]*3600 + clock[1]*60 + clock[2]
	if n == 19 && len(v) > 20 && (v[19] == '.' || v[19] == ',') && kinds[v[20]]&kDigit != 0 {
		n, t.nano = fraction(v, 20)
	}
	var offset int64
	n, offset = zone(v, n)
	t.sec -= offset
	switch {
	case t.nano != 0 || clock[2] != 0:
		t.unit = unitSecond
	case clock[1] != 0:
		t.unit = unitMinute
	case clock[0] != 0:
		t.unit = unitHour
	default:
		t.unit = unitDay
	}
	return n, DateTime, t, true
}

// readClock reads hh[:mm[:ss]] at v[11:] (v[11:13] are digits): the
// index after it, and the hours, minutes and seconds.
func readClock(v []byte) (int, [3]int64) {
	var clock [3]int64
	n := 11
	for i := range clock {
		if i > 0 && (len(v) < n+3 || v[n] != ':' || !digits(v[n+1:n+3])) {
			break
		}
		if i > 0 {
			n++
		}
		clock[i] = num(v[n : n+2])
		n += 2
	}
	return n, clock
}

// fraction reads the digits of a fraction from v[i] on: the index after
// them and the first nine as nanoseconds.
func fraction(v []byte, i int) (int, int32) {
	var nano int32
	scale := int32(100_000_000)
	for ; i < len(v) && kinds[v[i]]&kDigit != 0; i++ {
		nano += int32(v[i]-'0') * scale
		scale /= 10
	}
	return i, nano
}

// zone reads an optional zone designator at v[n]: the index after it, and
// its offset east of UTC in seconds.
func zone(v []byte, n int) (int, int64) {
	if n >= len(v) {
		return n, 0
	}
	switch v[n] {
	case 'Z', 'z':
		return n + 1, 0
	case '+', '-':
	default:
		return n, 0
	}
	if len(v) < n+3 || !digits(v[n+1:n+3]) {
		return n, 0
	}
	sign := int64(1)
	if v[n] == '-' {
		sign = -1
	}
	h, end := num(v[n+1:n+3]), n+3
	var m int64
	switch {
	case len(v) >= end+3 && v[end] == ':' && digits(v[end+1:end+3]):
		m, end = num(v[end+1:end+3]), end+3
	case len(v) >= end+2 && digits(v[end:end+2]):
		m, end = num(v[end:end+2]), end+2
	}
	if h > 23 || m > 59 {
		return n, 0
	}
	return end, sign * (h*3600 + m*60)
}

func digits(s []byte) bool {
	for _, c := range s {
		if kinds[c]&kDigit == 0 {
			return false
		}
	}
	return true
}

// num returns the value of a few ASCII digits.
func num(s []byte) int64 {
	var v int64
	for _, c := range s {
		v = v*10 + int64(c-'0')
	}
	return v
}

// civil returns the days from 1970-01-01 to the proleptic Gregorian date
// y-m-d (Howard Hinnant's days_from_civil); a day past the month's end
// rolls into the next.
func civil(y, m, d int64) int64 {
	if m <= 2 {
		y--
	}
	era := y / 400
	if y < 0 { // year 0000 in January or February
		era = (y - 399) / 400
	}
	yoe := y - era*400
	mp := (m + 9) % 12
	doy := (153*mp+2)/5 + d - 1
	doe := yoe*365 + yoe/4 - yoe/100 + doy
	return era*146097 + doe - 719468
}
