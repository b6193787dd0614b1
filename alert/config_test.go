package alert

import (
	"errors"
	"strings"
	"testing"
)

func TestDefaultConfigIsValid(t *testing.T) {
	c := DefaultConfig()
	if err := c.Validate(); err != nil {
		t.Fatal(err)
	}
	if c.Namespace != DefaultNamespace || c.Mode != ModeAPI || c.Top != 10 || c.StorageResolution != 60 {
		t.Errorf("defaults %+v", c)
	}
}

func TestConfigValidate(t *testing.T) {
	for _, tc := range []struct {
		name string
		edit func(*Config)
		ok   bool
	}{
		{"namespace with slash, dash, colon inside", func(c *Config) { c.Namespace = "Team/Hot-Keys:prod" }, true},
		{"namespace of 255", func(c *Config) { c.Namespace = strings.Repeat("n", 255) }, true},
		{"empty namespace", func(c *Config) { c.Namespace = "" }, false},
		{"namespace of 256", func(c *Config) { c.Namespace = strings.Repeat("n", 256) }, false},
		{"blank namespace", func(c *Config) { c.Namespace = "  " }, false},
		{"control character", func(c *Config) { c.Namespace = "Hot\nKeys" }, false},
		{"non-ASCII", func(c *Config) { c.Namespace = "Clés" }, false},
		{"leading colon", func(c *Config) { c.Namespace = ":HotKeys" }, false},
		{"reserved AWS/", func(c *Config) { c.Namespace = "AWS/DynamoDB" }, false},
		{"mode emf", func(c *Config) { c.Mode = ModeEMF }, true},
		{"empty mode", func(c *Config) { c.Mode = "" }, false},
		{"unparsed mode", func(c *Config) { c.Mode = "API" }, false},
		{"top 0", func(c *Config) { c.Top = 0 }, true},
		{"top max", func(c *Config) { c.Top = MaxTop }, true},
		{"top negative", func(c *Config) { c.Top = -1 }, false},
		{"top over max", func(c *Config) { c.Top = MaxTop + 1 }, false},
		{"resolution 1", func(c *Config) { c.StorageResolution = 1 }, true},
		{"resolution 0", func(c *Config) { c.StorageResolution = 0 }, false},
		{"resolution 30", func(c *Config) { c.StorageResolution = 30 }, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := DefaultConfig()
			tc.edit(&c)
			err := c.Validate()
			if (err == nil) != tc.ok {
				t.Fatalf("Validate() = %v, want ok=%v", err, tc.ok)
			}
			if err != nil && !errors.Is(err, ErrConfig) {
				t.Errorf("%v does not wrap ErrConfig", err)
			}
		})
	}
}

func TestParseMode(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want Mode
		ok   bool
	}{
		{"api", ModeAPI, true}, {"EMF", ModeEMF, true}, {" both ", ModeBoth, true}, {"off", ModeOff, true},
		{"", ModeAPI, true}, {"stdout", "", false}, {"api,emf", "", false},
	} {
		got, err := ParseMode(tc.in)
		if got != tc.want || (err == nil) != tc.ok {
			t.Errorf("ParseMode(%q) = %q, %v", tc.in, got, err)
		}
		if err != nil && !errors.Is(err, ErrInvalidMode) {
			t.Errorf("ParseMode(%q): %v does not wrap ErrInvalidMode", tc.in, err)
		}
	}
}

func TestMetricsCatalogue(t *testing.T) {
	ms := Metrics()
	seen := map[string]bool{}
	for _, m := range ms {
		if seen[m.Name] || m.Name == "" || m.Unit == "" || len(m.Dimensions) == 0 || m.Description == "" {
			t.Errorf("bad or duplicate definition %+v", m)
		}
		seen[m.Name] = true
	}
	for _, name := range []string{"WriteCapacityUnits", "StreamRecords", "DistinctPartitionKeys", "MaxKeyWCUShare",
		"MaxKeyPeakWCUPerSecond", "HotKeys", "MalformedRecords", "KeyWriteCapacityUnits", "KeyWCUShare", "KeyPeakWCUPerSecond"} {
		if !seen[name] {
			t.Errorf("metric %s, which docs/metrics.md promises, is missing", name)
		}
	}
	ms[0].Dimensions[0] = "changed"
	if Metrics()[0].Dimensions[0] != DimensionTableName {
		t.Errorf("Metrics() shares its slices with the catalogue")
	}
}
