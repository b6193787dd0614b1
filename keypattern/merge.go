package keypattern

import (
	"cmp"
	"fmt"
	"slices"
)

// Merge adds other into t, so that t sums up both tables' records (which
// must be different records: two shards, two batches, two windows). Totals
// and other add up exactly; learnt prefixes unite; patterns are brought
// together and settle where one table of all the records would (see the
// package documentation); if more than Config.Patterns remain, the
// lightest go to other. Both tables must have the same Patterns and
// TopKeys. other is not changed.
func (t *Table) Merge(other *Table) error {
	t.ready()
	other.ready()
	if t.cfg.Patterns != other.cfg.Patterns || t.cfg.TopKeys != other.cfg.TopKeys {
		return fmt.Errorf("keypattern: tables of %d patterns × %d keys and %d × %d: %w",
			t.cfg.Patterns, t.cfg.TopKeys, other.cfg.Patterns, other.cfg.TopKeys, ErrConfigMismatch)
	}
	o := other
	if o == t {
		o = t.clone()
	}
	t.records = satAdd(t.records, o.records)
	t.wcu = satAdd(t.wcu, o.wcu)
	t.otherRecords = satAdd(t.otherRecords, o.otherRecords)
	t.otherWCU = satAdd(t.otherWCU, o.otherWCU)
	for _, r := range o.rules.sorted() {
		t.rules.add(r)
	}
	for _, p := range o.patterns {
		t.patterns = append(t.patterns, p.clone())
	}
	t.regeneralise()
	t.settle()
	t.fit(t.cfg.Patterns)
	return nil
}

// fit keeps the n heaviest patterns (by WCU, then records, then text) and
// counts the others' records as other.
func (t *Table) fit(n int) {
	if len(t.patterns) <= n {
		return
	}
	slices.SortStableFunc(t.patterns, heavierFirst)
	for _, p := range t.patterns[n:] {
		t.otherRecords = satAdd(t.otherRecords, p.records)
		t.otherWCU = satAdd(t.otherWCU, p.wcu)
	}
	clear(t.patterns[n:])
	t.patterns = t.patterns[:n]
	t.settle()
}

func heavierFirst(a, b *pattern) int {
	return cmp.Or(cmp.Compare(b.wcu, a.wcu), cmp.Compare(b.records, a.records), cmp.Compare(a.String(), b.String()))
}

// clone returns a deep copy of t, its cache empty.
func (t *Table) clone() *Table {
	c := &Table{}
	_ = c.init(t.cfg)
	c.records, c.wcu, c.otherRecords, c.otherWCU = t.records, t.wcu, t.otherRecords, t.otherWCU
	for _, r := range t.rules.sorted() {
		c.rules.add(r)
	}
	for _, p := range t.patterns {
		c.patterns = append(c.patterns, p.clone())
	}
	c.settle()
	return c
}
