package main

import (
	"reflect"
	"strconv"
	"testing"
	"time"

	"github.com/hotkeys-dev/hotkeys/detector"
)

// TestFieldVarsBindTheirFields: each variable fieldVars binds to a field
// of detector.Config sets that very field, so that an error worded by
// fieldVars names the variable to change.
func TestFieldVarsBindTheirFields(t *testing.T) {
	for i, f := range fieldVars(&detector.Config{}) {
		def := detector.DefaultConfig()
		was := reflect.ValueOf(fieldVars(&def)[i].field).Elem().Interface()
		var v string
		switch x := was.(type) {
		case float64:
			v = strconv.FormatFloat(x*0.9, 'g', -1, 64)
		case int:
			v = strconv.Itoa(x - 1)
		case time.Duration:
			v = "7s"
		default:
			t.Fatalf("%s: a field of type %T", f.name, was)
		}
		c, err := configFromEnv(env(f.name, v))
		if err != nil {
			t.Errorf("%s=%s: %v", f.name, v, err)
			continue
		}
		if got := reflect.ValueOf(fieldVars(&c.detector)[i].field).Elem().Interface(); got == was {
			t.Errorf("%s=%s left its field at %v", f.name, v, was)
		}
	}
}
