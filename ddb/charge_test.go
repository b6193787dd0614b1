package ddb

import "testing"

// TestChargeIndex pins each rule of the guide, and the two cases it leaves
// open as DynamoDB Local charges them (streams/gsi_oracle_test.go holds
// the whole decoder to DynamoDB Local; these are the rules alone).
func TestChargeIndex(t *testing.T) {
	known := func(in bool, entry int) IndexSide { return IndexSide{Known: true, In: in, Entry: entry} }
	unknown := IndexSide{}
	out := known(false, 0)
	const kb = 1024
	cases := []struct {
		name string
		f    IndexFacts
		want IndexCharge
	}{
		{"insert into the index", IndexFacts{Kind: Created, Old: unknown, New: known(true, 100)}, IndexCharge{Put: 1, Exact: true}},
		{"insert of a 1 KB + 1 entry", IndexFacts{Kind: Created, New: known(true, kb+1)}, IndexCharge{Put: 2, Exact: true}},
		{"insert outside the index (sparse)", IndexFacts{Kind: Created, New: out}, IndexCharge{Exact: true}},
		{"insert without its new image", IndexFacts{Kind: Created, New: unknown}, IndexCharge{}},
		{"delete from the index", IndexFacts{Kind: Deleted, Old: known(true, 3000)}, IndexCharge{Delete: 3, Exact: true}},
		{"delete outside the index", IndexFacts{Kind: Deleted, Old: out}, IndexCharge{Exact: true}},
		{"delete without its old image", IndexFacts{Kind: Deleted}, IndexCharge{}},
		{"TTL delete: free, counted apart", IndexFacts{Kind: Expired, Old: known(true, 2500)}, IndexCharge{Expired: 3, Exact: true}},
		{"TTL delete outside the index", IndexFacts{Kind: Expired, Old: out}, IndexCharge{Exact: true}},
		{"TTL delete without its old image", IndexFacts{Kind: Expired}, IndexCharge{}},
		{"update entering the index", IndexFacts{Kind: Updated, Old: out, New: known(true, 500)}, IndexCharge{Put: 1, Exact: true}},
		{"update leaving the index", IndexFacts{Kind: Updated, Old: known(true, 1500), New: out}, IndexCharge{Delete: 2, Exact: true}},
		{"update outside the index", IndexFacts{Kind: Updated, Old: out, New: out, KeyChanged: true, ProjectedChanged: true},
			IndexCharge{Exact: true}},
		{"update without an image", IndexFacts{Kind: Updated, Old: unknown, New: known(true, 10)}, IndexCharge{}},
		{"key change: delete and put", IndexFacts{Kind: Updated, Old: known(true, 100), New: known(true, 2000), KeyChanged: true},
			IndexCharge{Delete: 1, Put: 2, Exact: true}},
		// Open in the guide, DynamoDB Local's charge: each entry's own units.
		{"key change shrinking the entry", IndexFacts{Kind: Updated, Old: known(true, 3000), New: known(true, 100), KeyChanged: true},
			IndexCharge{Delete: 3, Put: 1, Exact: true}},
		{"projected change: one write", IndexFacts{Kind: Updated, Old: known(true, 100), New: known(true, 1500), ProjectedChanged: true},
			IndexCharge{Put: 2, Exact: true}},
		// Open in the guide, DynamoDB Local's charge: the larger entry.
		{"projected change shrinking the entry", IndexFacts{Kind: Updated, Old: known(true, 2100), New: known(true, 10), ProjectedChanged: true},
			IndexCharge{Put: 3, Exact: true}},
		{"nothing projected changed", IndexFacts{Kind: Updated, Old: known(true, 100), New: known(true, 100)}, IndexCharge{Exact: true}},
	}
	for _, c := range cases {
		if got := ChargeIndex(&c.f); got != c.want {
			t.Errorf("%s: ChargeIndex(%+v) = %+v, want %+v", c.name, c.f, got, c.want)
		}
	}
}

func TestIndexChargeWCU(t *testing.T) {
	if got := (IndexCharge{Delete: 1, Put: 2, Expired: 4}).WCU(); got != 3 {
		t.Errorf("WCU() = %d, want 3: a delete and a put, and no TTL delete", got)
	}
}
