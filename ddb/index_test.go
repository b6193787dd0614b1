package ddb

import (
	"errors"
	"strings"
	"testing"
)

func TestIndexValidate(t *testing.T) {
	long := strings.Repeat("k", MaxKeyNameBytes+1)
	for _, c := range []struct {
		name string
		def  Index
		ok   bool
	}{
		{"ALL", Index{Name: "GSI1", PartitionKey: "GSI1PK", SortKey: "SK", Projection: ProjectAll}, true},
		{"KEYS_ONLY without a sort key", Index{Name: "byStatus", PartitionKey: "status", Projection: ProjectKeysOnly}, true},
		{"INCLUDE", Index{Name: "recent", PartitionKey: "status", Projection: ProjectInclude, NonKeyAttributes: []string{"total"}}, true},
		{"key names of 255 bytes", Index{Name: "g", PartitionKey: long[1:], SortKey: long[1:], Projection: ProjectAll}, true},
		{"no name", Index{PartitionKey: "pk", Projection: ProjectAll}, false},
		{"no partition key", Index{Name: "g", Projection: ProjectAll}, false},
		{"a key name of 256 bytes", Index{Name: "g", PartitionKey: long, Projection: ProjectAll}, false},
		{"a sort key not UTF-8", Index{Name: "g", PartitionKey: "pk", SortKey: "\xff", Projection: ProjectAll}, false},
		{"no projection", Index{Name: "g", PartitionKey: "pk"}, false},
		{"an unknown projection", Index{Name: "g", PartitionKey: "pk", Projection: 9}, false},
		{"NonKeyAttributes without INCLUDE", Index{Name: "g", PartitionKey: "pk", Projection: ProjectAll, NonKeyAttributes: []string{"a"}}, false},
		{"an empty NonKeyAttribute", Index{Name: "g", PartitionKey: "pk", Projection: ProjectInclude, NonKeyAttributes: []string{""}}, false},
	} {
		err := c.def.Validate()
		if (err == nil) != c.ok || (err != nil && !errors.Is(err, ErrIndex)) {
			t.Errorf("%s: Validate() = %v, want ok %v (an error wrapping ErrIndex)", c.name, err, c.ok)
		}
	}
}

func TestParseProjection(t *testing.T) {
	for _, p := range []Projection{ProjectAll, ProjectKeysOnly, ProjectInclude} {
		if got, err := ParseProjection(p.String()); err != nil || got != p {
			t.Errorf("ParseProjection(%q) = %v, %v", p.String(), got, err)
		}
	}
	if _, err := ParseProjection("all"); err == nil {
		t.Error(`ParseProjection("all") accepted a lower-case type`)
	}
}
