package main

import (
	"io"
	"reflect"
	"strings"
	"testing"
	"time"
)

// TestConfigFlagsBindTheirFields: every flag configFlags names a field of
// detector.Config by is one newFlagSet registers, and setting it sets that
// very field (Lateness follows --window once parsed).
func TestConfigFlagsBindTheirFields(t *testing.T) {
	fs, o := newFlagSet("replay", "", "", io.Discard)
	names := configFlags(&o.cfg)
	if len(names) == 0 {
		t.Fatal("no flags named")
	}
	for field, name := range names {
		flagName := strings.TrimPrefix(name, "--")
		if fs.Lookup(flagName) == nil {
			t.Errorf("%s: no such flag", name)
			continue
		}
		if field == any(&o.cfg.Lateness) {
			continue
		}
		p := reflect.ValueOf(field).Elem()
		before := p.Interface()
		value := map[reflect.Type]string{reflect.TypeFor[float64](): "0.37", reflect.TypeFor[int](): "7", reflect.TypeFor[time.Duration](): "7s"}[p.Type()]
		if err := fs.Set(flagName, value); err != nil {
			t.Errorf("%s %s: %v", name, value, err)
			continue
		}
		if p.Interface() == before {
			t.Errorf("%s %s left the field it names at %v", name, value, before)
		}
	}
	if err := o.parse(fs, nil); err != nil || o.cfg.Lateness != 7*time.Second {
		t.Errorf("--window 7s: lateness %s, %v; want 7s", o.cfg.Lateness, err)
	}
}
