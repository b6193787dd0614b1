package main

import (
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/hotkeys-dev/hotkeys/alert"
	"github.com/hotkeys-dev/hotkeys/detector"
)

func env(kv ...string) func(string) string {
	m := map[string]string{}
	for i := 0; i+1 < len(kv); i += 2 {
		m[kv[i]] = kv[i+1]
	}
	return func(k string) string { return m[k] }
}

func TestConfigFromEnvDefaults(t *testing.T) {
	c, err := configFromEnv(env())
	if err != nil {
		t.Fatal(err)
	}
	cfg, acfg, pk := c.detector, c.alert, c.partitionKey
	if diff := cmp.Diff(detector.DefaultConfig(), cfg); diff != "" {
		t.Errorf("detector config (-want +got):\n%s", diff)
	}
	want := alert.Config{Namespace: "HotKeyDetector", Mode: alert.ModeAPI, Top: 10, StorageResolution: 60}
	if diff := cmp.Diff(want, acfg); diff != "" || pk != "" {
		t.Errorf("alert config (-want +got):\n%s\npartition key %q", diff, pk)
	}
}

func TestConfigFromEnvSettings(t *testing.T) {
	c, err := configFromEnv(env(
		"HOTKEYS_WINDOW", "5m",
		"HOTKEYS_SHARE_THRESHOLD", "0.25",
		"HOTKEYS_MIN_WCU_PER_SECOND", "50",
		"HOTKEYS_CRITICAL_WCU_PER_SECOND", "900",
		"HOTKEYS_PARTITION_LIMIT", "1500",
		"HOTKEYS_PARTITION_KEY", "PK",
		"HOTKEYS_TOP", "3",
		"HOTKEYS_NAMESPACE", "Team/HotKeys",
		"HOTKEYS_METRICS", "both",
	))
	if err != nil {
		t.Fatal(err)
	}
	cfg, acfg, pk := c.detector, c.alert, c.partitionKey
	// Every value differs from its default, so each one shows it was read.
	want := detector.DefaultConfig()
	want.Window, want.Lateness = 5*time.Minute, 5*time.Minute
	want.ShareThreshold, want.MinWCUPerSecond, want.CriticalWCUPerSecond, want.PartitionLimit = 0.25, 50, 900, 1500
	want.Top = 3
	if diff := cmp.Diff(want, cfg); diff != "" {
		t.Errorf("detector config (-want +got):\n%s", diff)
	}
	wantA := alert.Config{Namespace: "Team/HotKeys", Mode: alert.ModeBoth, Top: 3, StorageResolution: 60}
	if diff := cmp.Diff(wantA, acfg); diff != "" || pk != "PK" {
		t.Errorf("alert config (-want +got):\n%s\npartition key %q", diff, pk)
	}
	// A window given in plain seconds, as the SAM parameter is.
	if c, err := configFromEnv(env("HOTKEYS_WINDOW", "120")); err != nil || c.detector.Window != 2*time.Minute {
		t.Errorf("HOTKEYS_WINDOW=120: %v, %v", c.detector.Window, err)
	}
}

// TestConfigFromEnvErrors: every bad value is refused with an error that
// names the variable to fix.
func TestConfigFromEnvErrors(t *testing.T) {
	for _, tc := range []struct {
		kv   []string
		name string // the variable the error must name
	}{
		{[]string{"HOTKEYS_WINDOW", "soon"}, "HOTKEYS_WINDOW"},
		{[]string{"HOTKEYS_WINDOW", "0"}, "HOTKEYS_WINDOW"},
		{[]string{"HOTKEYS_WINDOW", "16m"}, "HOTKEYS_WINDOW"},
		{[]string{"HOTKEYS_WINDOW", "1500ms"}, "HOTKEYS_WINDOW"},
		{[]string{"HOTKEYS_SHARE_THRESHOLD", "abc"}, "HOTKEYS_SHARE_THRESHOLD"},
		{[]string{"HOTKEYS_SHARE_THRESHOLD", "0"}, "HOTKEYS_SHARE_THRESHOLD"},
		{[]string{"HOTKEYS_SHARE_THRESHOLD", "10"}, "HOTKEYS_SHARE_THRESHOLD"},
		{[]string{"HOTKEYS_SHARE_THRESHOLD", "NaN"}, "HOTKEYS_SHARE_THRESHOLD"},
		{[]string{"HOTKEYS_MIN_WCU_PER_SECOND", "-1"}, "HOTKEYS_MIN_WCU_PER_SECOND"},
		{[]string{"HOTKEYS_MIN_WCU_PER_SECOND", "lots"}, "HOTKEYS_MIN_WCU_PER_SECOND"},
		{[]string{"HOTKEYS_CRITICAL_WCU_PER_SECOND", "Inf"}, "HOTKEYS_CRITICAL_WCU_PER_SECOND"},
		{[]string{"HOTKEYS_CRITICAL_WCU_PER_SECOND", "50"}, "HOTKEYS_CRITICAL_WCU_PER_SECOND"}, // below the minimum rate
		{[]string{"HOTKEYS_MIN_WCU_PER_SECOND", "900"}, "HOTKEYS_MIN_WCU_PER_SECOND"},          // above the critical rate
		{[]string{"HOTKEYS_PARTITION_LIMIT", "0"}, "HOTKEYS_PARTITION_LIMIT"},
		{[]string{"HOTKEYS_TOP", "ten"}, "HOTKEYS_TOP"},
		{[]string{"HOTKEYS_TOP", "-1"}, "HOTKEYS_TOP"},
		{[]string{"HOTKEYS_TOP", "500"}, "HOTKEYS_TOP"},
		{[]string{"HOTKEYS_METRICS", "cloudwatch"}, "HOTKEYS_METRICS"},
		{[]string{"HOTKEYS_NAMESPACE", "AWS/DynamoDB"}, "HOTKEYS_NAMESPACE"},
		{[]string{"HOTKEYS_NAMESPACE", strings.Repeat("n", 256)}, "HOTKEYS_NAMESPACE"},
	} {
		_, err := configFromEnv(env(tc.kv...))
		if err == nil {
			t.Errorf("%s=%q: accepted", tc.kv[0], tc.kv[1])
			continue
		}
		if !strings.Contains(err.Error(), tc.name) {
			t.Errorf("%s=%q: error %q does not name %s", tc.kv[0], tc.kv[1], err, tc.name)
		}
		if !errors.Is(err, detector.ErrConfig) && !errors.Is(err, alert.ErrConfig) && !errors.Is(err, alert.ErrInvalidMode) {
			t.Errorf("%s=%q: error %q wraps no configuration sentinel", tc.kv[0], tc.kv[1], err)
		}
	}
}

// TestRedactionFromEnv: hash needs a secret's ARN, and the function offers
// no unkeyed hash.
func TestRedactionFromEnv(t *testing.T) {
	const arn = "arn:aws:secretsmanager:us-east-1:123456789012:secret:hotkeys-AbCdEf"
	for _, tc := range []struct {
		kv      []string
		wantArn string
		wantErr []string // all in the error; nil: no error
	}{
		{nil, "", nil},
		{[]string{"HOTKEYS_KEY_REDACTION", "none"}, "", nil},
		{[]string{"HOTKEYS_KEY_REDACTION", "none", "HOTKEYS_KEY_REDACTION_SECRET_ARN", arn}, "", nil},
		{[]string{"HOTKEYS_KEY_REDACTION", "hash", "HOTKEYS_KEY_REDACTION_SECRET_ARN", arn}, arn, nil},
		{[]string{"HOTKEYS_KEY_REDACTION", "hash"}, "", []string{"HOTKEYS_KEY_REDACTION_SECRET_ARN", "dictionary"}},
		{[]string{"HOTKEYS_KEY_REDACTION", "hash", "HOTKEYS_KEY_REDACTION_SECRET_ARN", "pepper"}, "", []string{"HOTKEYS_KEY_REDACTION_SECRET_ARN", "secret ARN"}},
		{[]string{"HOTKEYS_KEY_REDACTION", "hash-unsalted"}, "", []string{"HOTKEYS_KEY_REDACTION", "want none or hash"}},
		{[]string{"HOTKEYS_KEY_REDACTION", "sha1"}, "", []string{"HOTKEYS_KEY_REDACTION", "want none or hash"}},
	} {
		got, err := redactionFromEnv(env(tc.kv...))
		if got != tc.wantArn || (err == nil) != (tc.wantErr == nil) {
			t.Errorf("%v: %q, %v; want %q and error %v", tc.kv, got, err, tc.wantArn, tc.wantErr)
			continue
		}
		for _, w := range tc.wantErr {
			if !strings.Contains(err.Error(), w) {
				t.Errorf("%v: error %q does not say %q", tc.kv, err, w)
			}
		}
	}
}

// TestEnvError: a configuration the detector refuses is told in the
// variables that set it, both of them for a conflict, still wrapping
// detector.ErrConfig; every variable named is one the function reads.
func TestEnvError(t *testing.T) {
	for _, tc := range []struct {
		kv   []string
		want string
	}{
		{[]string{"HOTKEYS_MIN_WCU_PER_SECOND", "900"}, "detector: invalid configuration: HOTKEYS_CRITICAL_WCU_PER_SECOND 800 is below HOTKEYS_MIN_WCU_PER_SECOND 900"},
		{[]string{"HOTKEYS_SHARE_THRESHOLD", "2"}, "detector: invalid configuration: HOTKEYS_SHARE_THRESHOLD 2: want a fraction in (0, 1], e.g. 0.10"},
		{[]string{"HOTKEYS_WINDOW", "20m"}, "detector: invalid configuration: HOTKEYS_WINDOW 20m0s: want 1s to 15m"},
	} {
		_, err := configFromEnv(env(tc.kv...))
		if err == nil || err.Error() != tc.want || !errors.Is(err, detector.ErrConfig) {
			t.Errorf("%v: error %v, want %q wrapping detector.ErrConfig", tc.kv, err, tc.want)
		}
	}
	for _, f := range fieldVars(&detector.Config{}) {
		if !slices.Contains(envVars, f.name) {
			t.Errorf("a field is set by %s, which the function does not read", f.name)
		}
	}
}

// TestEnvVarsListed: envVars, which docs/lambda.md ("Configuration") and
// the template follow, lists exactly the variables configFromEnv reads.
func TestEnvVarsListed(t *testing.T) {
	read := map[string]bool{}
	getenv := func(k string) string { read[k] = true; return "" }
	if _, err := configFromEnv(getenv); err != nil {
		t.Fatal(err)
	}
	for _, v := range envVars {
		if !read[v] {
			t.Errorf("envVars lists %s, which is never read", v)
		}
		delete(read, v)
	}
	for v := range read {
		t.Errorf("%s is read but not listed in envVars", v)
	}
}
