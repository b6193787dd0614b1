package forecast

import (
	"fmt"
	"time"
)

// Date is a calendar day in UTC, counted in days since 1970-01-01 (a Unix
// day). Its text form, in JSON too, is YYYY-MM-DD.
type Date int64

const secondsPerDay = 24 * 60 * 60

// DateOf returns the UTC day that holds t.
func DateOf(t time.Time) Date {
	u := t.Unix()
	d := u / secondsPerDay
	if u%secondsPerDay < 0 {
		d-- // floor, before 1970 too
	}
	return Date(d)
}

// Time returns the start of the day, midnight UTC.
func (d Date) Time() time.Time { return time.Unix(int64(d)*secondsPerDay, 0).UTC() }

// String returns the day as YYYY-MM-DD.
func (d Date) String() string { return d.Time().Format(time.DateOnly) }

// weekday is the day's place in its week, 0 to 6 (0 is Thursday, as
// 1970-01-01 was): all the weekly cycle needs is that a week has seven.
func (d Date) weekday() int { return int((int64(d)%7 + 7) % 7) }

// MarshalText returns the day as YYYY-MM-DD.
func (d Date) MarshalText() ([]byte, error) { return []byte(d.String()), nil }

// UnmarshalText reads a day written as YYYY-MM-DD.
func (d *Date) UnmarshalText(b []byte) error {
	t, err := time.Parse(time.DateOnly, string(b))
	if err != nil {
		return fmt.Errorf("forecast: date %q: want YYYY-MM-DD: %w", b, err)
	}
	*d = DateOf(t)
	return nil
}
