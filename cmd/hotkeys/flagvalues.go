package main

import (
	"errors"
	"flag"
	"strconv"
	"time"
)

// Flag values that say what they want when given something else: the flag
// package's own say "parse error".

type durationValue time.Duration

func (d *durationValue) Set(s string) error {
	v, err := time.ParseDuration(s)
	if err != nil {
		return errors.New("want a duration such as 90s, 5m or 1h")
	}
	*d = durationValue(v)
	return nil
}

func (d *durationValue) String() string { return (*time.Duration)(d).String() }

type floatValue float64

func (f *floatValue) Set(s string) error {
	v, err := strconv.ParseFloat(s, 64)
	if err != nil {
		return errors.New("want a number such as 0.25 or 800")
	}
	*f = floatValue(v)
	return nil
}

func (f *floatValue) String() string { return strconv.FormatFloat(float64(*f), 'g', -1, 64) }

type intValue int

func (n *intValue) Set(s string) error {
	v, err := strconv.Atoi(s)
	if err != nil {
		return errors.New("want a whole number such as 10")
	}
	*n = intValue(v)
	return nil
}

func (n *intValue) String() string { return strconv.Itoa(int(*n)) }

func durationFlag(fs *flag.FlagSet, p *time.Duration, name string, value time.Duration, usage string) {
	*p = value
	fs.Var((*durationValue)(p), name, usage)
}

func floatFlag(fs *flag.FlagSet, p *float64, name string, value float64, usage string) {
	*p = value
	fs.Var((*floatValue)(p), name, usage)
}

func intFlag(fs *flag.FlagSet, p *int, name string, value int, usage string) {
	*p = value
	fs.Var((*intValue)(p), name, usage)
}
