package ddb

import (
	"errors"
	"fmt"
	"unicode/utf8"
)

// Projection is what a global secondary index copies of an item besides
// the keys.
type Projection uint8

// The projection types of DynamoDB.
const (
	ProjectAll      Projection = iota + 1 // ALL: every attribute
	ProjectKeysOnly                       // KEYS_ONLY: the table's and the index's keys
	ProjectInclude                        // INCLUDE: the keys and Index.NonKeyAttributes
)

// String returns the projection type as DynamoDB spells it.
func (p Projection) String() string {
	switch p {
	case ProjectAll:
		return "ALL"
	case ProjectKeysOnly:
		return "KEYS_ONLY"
	case ProjectInclude:
		return "INCLUDE"
	}
	return fmt.Sprintf("Projection(%d)", uint8(p))
}

// ErrIndex is wrapped by the errors about index definitions.
var ErrIndex = errors.New("ddb: invalid index definition")

// ParseProjection reads a ProjectionType: ALL, KEYS_ONLY or INCLUDE.
func ParseProjection(s string) (Projection, error) {
	for _, p := range []Projection{ProjectAll, ProjectKeysOnly, ProjectInclude} {
		if s == p.String() {
			return p, nil
		}
	}
	return 0, fmt.Errorf("%w: projection type %q is not ALL, KEYS_ONLY or INCLUDE", ErrIndex, s)
}

// Index defines a global secondary index.
type Index struct {
	Name             string
	PartitionKey     string // the index's HASH key attribute
	SortKey          string // its RANGE key attribute; "" when it has none
	Projection       Projection
	NonKeyAttributes []string // the attributes INCLUDE projects
}

// Validate checks that def could be a DynamoDB index.
func (def Index) Validate() error {
	if def.Name == "" {
		return fmt.Errorf("%w: an index has no name", ErrIndex)
	}
	if def.PartitionKey == "" {
		return fmt.Errorf("%w: index %q has no partition key", ErrIndex, def.Name)
	}
	for _, n := range []string{def.Name, def.PartitionKey, def.SortKey} {
		if len(n) > MaxKeyNameBytes || !utf8.ValidString(n) {
			return fmt.Errorf("%w: index %q: name %.40q is not UTF-8 of at most %d bytes", ErrIndex, def.Name, n, MaxKeyNameBytes)
		}
	}
	switch def.Projection {
	case ProjectAll, ProjectKeysOnly:
		if len(def.NonKeyAttributes) > 0 {
			return fmt.Errorf("%w: index %q: NonKeyAttributes need projection INCLUDE, not %s", ErrIndex, def.Name, def.Projection)
		}
	case ProjectInclude:
		for _, a := range def.NonKeyAttributes {
			if a == "" || !utf8.ValidString(a) {
				return fmt.Errorf("%w: index %q: a NonKeyAttribute %q is empty or not UTF-8", ErrIndex, def.Name, a)
			}
		}
	default:
		return fmt.Errorf("%w: index %q: projection %v", ErrIndex, def.Name, def.Projection)
	}
	return nil
}

// IndexEntry is one write to an index: the entry's partition key in the
// index, and its cost.
type IndexEntry struct {
	Key Key    // the index partition key (canonical); Type 0 when none
	WCU uint64 // 0 when there was no such write
}
