package main

import (
	"errors"
	"fmt"
	"hash/maphash"
	"strings"

	"github.com/hotkeys-dev/hotkeys/detector"
	"github.com/hotkeys-dev/hotkeys/record"
)

// Which attribute is the partition key, learnt from the records. A stream
// record's Keys hold the partition key and, on a table that has one, the
// sort key, without saying which is which. Across records, a sort key
// typically takes a new value for every item, while a partition key
// repeats: many items share a partition. That tells the likely partition
// key when none is named, and warns when the one named looks like a sort
// key: a tool that finds hot keys must not say "no hot keys" because it
// counted the wrong attribute.
//
// It is a heuristic: a table keyed USER#<id> with a sort key PROFILE on
// every item looks the other way round. So it only advises, and only when
// the key was named by hand: --describe-table, or watch's DescribeTable,
// say for sure.

// profileRecords is how many records the profile looks at: enough to tell
// a key that repeats from one that does not, and a bounded memory.
const profileRecords = 10000

// minProfile is the fewest records with two key attributes the profile
// judges on.
const minProfile = 20

// distinct counts the distinct values it is given, by hash.
type distinct map[uint64]struct{}

var profileSeed = maphash.MakeSeed() // in memory only: never stored or compared across runs

func (d distinct) add(typ byte, value []byte) {
	var h maphash.Hash
	h.SetSeed(profileSeed)
	h.WriteByte(typ)
	h.Write(value)
	d[h.Sum64()] = struct{}{}
}

// keyProfile is the sink the pipeline feeds: it passes every record on to
// the detector, and profiles the key attributes of the first
// profileRecords.
type keyProfile struct {
	detector.Sink
	paired       int      // records with a sort key, among those profiled
	pk, sk       distinct // their partition and sort key values
	missing      int      // records whose Keys lack the named partition key
	missingTotal int      // records seen while counting missing
	missingHolds []string // what the first such record's Keys hold
	partitionKey string   // the name given, "" when inferred
	fromSchema   bool     // the partition key is the table's, from DescribeTable
	other, table string   // the other key attribute and its table, once known (learn)
}

func newKeyProfile(sink detector.Sink, partitionKey string, fromSchema bool) *keyProfile {
	return &keyProfile{Sink: sink, pk: distinct{}, sk: distinct{}, partitionKey: partitionKey, fromSchema: fromSchema}
}

// Add profiles r's key, then counts it.
func (k *keyProfile) Add(r *record.Record) error {
	k.missingTotal++
	if r.SortKey.Type != 0 && k.paired < profileRecords {
		k.paired++
		k.pk.add(byte(r.PartitionKey.Type), r.PartitionKey.Value)
		k.sk.add(byte(r.SortKey.Type), r.SortKey.Value)
	}
	return k.Sink.Add(r)
}

// learn finds, in a payload of records with two key attributes, the name
// of the other one, for the warnings to name it. It decodes up to the
// first such record, once.
func (k *keyProfile) learn(payload []byte) {
	if k.other != "" || k.paired == 0 || k.partitionKey == "" || k.fromSchema {
		return
	}
	dec, err := record.NewDecoder(record.Config{})
	if err != nil {
		return
	}
	var amb *record.AmbiguousKeyError
	if errors.As(dec.Decode(payload, record.Visitor{}), &amb) {
		k.table = amb.Table
		k.other = amb.Attributes[0]
		if k.other == k.partitionKey {
			k.other = amb.Attributes[1]
		}
	}
}

// malformed notes a malformed record: one without the named partition key
// says the name may be wrong.
func (k *keyProfile) malformed(m *record.Malformed) {
	k.missingTotal++
	if mk, ok := m.Err.(*record.MissingKeyError); ok {
		k.missing++
		if k.missingHolds == nil {
			k.missingHolds = mk.Keys
		}
	}
}

// doubt returns why the named partition key may be the wrong attribute,
// in a few words for a window that found no hot key; "" when there is no
// doubt.
func (k *keyProfile) doubt() string {
	switch {
	case k.partitionKey == "" || k.fromSchema:
		return ""
	case k.missing > 0:
		return fmt.Sprintf("--partition-key %s, which %s of the records lack (see the warning at the end)", k.partitionKey, k.missingShare())
	case k.looksLikeSortKey():
		return fmt.Sprintf("--partition-key %s, which looks like the sort key (see the warning at the end)", k.partitionKey)
	}
	return ""
}

func (k *keyProfile) missingShare() string {
	if k.missing == k.missingTotal {
		return "all"
	}
	return fmt.Sprintf("%s of %s", count(uint64(k.missing)), count(uint64(k.missingTotal)))
}

// looksLikeSortKey says whether the named partition key takes a new value
// in nearly every record while the other key attribute repeats.
func (k *keyProfile) looksLikeSortKey() bool {
	return k.paired >= minProfile && len(k.pk)*10 >= k.paired*9 && len(k.sk)*10 <= len(k.pk)*6
}

// keyWarning is one thing the profile warns of: its kind (said once on
// stderr, however its figures grow), and its words.
type keyWarning struct{ kind, text string }

// warnings returns what the profile warns of, for stderr and the summary.
func (k *keyProfile) warnings() []keyWarning {
	if k.partitionKey == "" || k.fromSchema {
		return nil
	}
	var out []keyWarning
	if k.missing > 0 {
		out = append(out, keyWarning{"missing", fmt.Sprintf("--partition-key %s is not a key attribute of %s records read (their Keys hold %s): they were skipped as malformed, "+
			"and the figures leave them out. Name one of those attributes, or give --describe-table FILE.",
			k.partitionKey, k.missingShare(), strings.Join(k.missingHolds, " and "))})
	}
	if k.looksLikeSortKey() {
		other, rerun, table := "the other key attribute", "the other attribute as --partition-key", "NAME"
		if k.other != "" {
			other, rerun = k.other, "--partition-key "+k.other
		}
		if k.table != "" {
			table = k.table
		}
		out = append(out, keyWarning{"sort key", fmt.Sprintf("--partition-key %s looks like the sort key: it takes a different value in %s of %s records, while %s repeats "+
			"(%s values), as a partition key does. The figures are by %s, so a hot partition would not show: rerun with %s, or with "+
			"--describe-table FILE (what `aws dynamodb describe-table --table-name %s` prints) to be sure.",
			k.partitionKey, count(uint64(len(k.pk))), count(uint64(k.paired)), other, count(uint64(len(k.sk))), k.partitionKey, rerun, table)})
	}
	return out
}

// likelyKey words the error for records whose two key attributes were not
// told apart: the likely partition key first, and why, from what the
// payload's records say of each.
func likelyKey(amb *record.AmbiguousKeyError, name string, payload []byte) string {
	a, b := amb.Attributes[0], amb.Attributes[1]
	dec, err := record.NewDecoder(record.Config{PartitionKey: a})
	p := &keyProfile{pk: distinct{}, sk: distinct{}}
	if err == nil {
		_ = dec.Decode(payload, record.Visitor{Record: func(r *record.Record) error {
			if r.SortKey.Type != 0 && p.paired < profileRecords {
				p.paired++
				p.pk.add(byte(r.PartitionKey.Type), r.PartitionKey.Value)
				p.sk.add(byte(r.SortKey.Type), r.SortKey.Value)
			}
			return nil
		}})
	}
	table := amb.Table
	if table == "" {
		table = "NAME"
	}
	head := fmt.Sprintf("the records of %s have two key attributes, %s and %s, and a stream record does not say which is the partition key", name, a, b)
	tail := fmt.Sprintf(" Name it with --partition-key, or give --describe-table FILE (what `aws dynamodb describe-table --table-name %s` prints) to be sure.", table)
	na, nb := len(p.pk), len(p.sk)
	likely, other, nl, no := a, b, na, nb
	if nb < na {
		likely, other, nl, no = b, a, nb, na
	}
	if p.paired < minProfile || nl*3 > no*2 {
		return head + fmt.Sprintf(": in %s records, %s takes %s values and %s %s, too alike to tell.", count(uint64(p.paired)), a, count(uint64(na)), b, count(uint64(nb))) + tail
	}
	return head + fmt.Sprintf(". Most likely --partition-key %s: in %s records it takes %s values (it repeats, as a partition key does), and %s %s (%s, as a sort key does).",
		likely, count(uint64(p.paired)), count(uint64(nl)), other, count(uint64(no)), oneEach(no, p.paired)) + tail
}

// oneEach says how often a sort key took a new value.
func oneEach(n, records int) string {
	if n == records {
		return "one per record"
	}
	return fmt.Sprintf("a new one in %.0f %% of the records", 100*float64(n)/float64(records))
}
