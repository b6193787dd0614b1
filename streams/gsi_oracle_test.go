package streams_test

// The GSI oracle: DynamoDB Local reports, with ReturnConsumedCapacity=
// INDEXES, what every single-item write cost each global secondary index.
// For every stream record, the per-index WCU record computes from the
// images must equal it. The table has one index of each projection.

import (
	"context"
	"flag"
	"fmt"
	"maps"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	ddbtypes "github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/hotkeys-dev/hotkeys/ddb"
	"github.com/hotkeys-dev/hotkeys/internal/testkit/dynamodblocal"
	"github.com/hotkeys-dev/hotkeys/keyschema"
	"github.com/hotkeys-dev/hotkeys/record"
	"github.com/hotkeys-dev/hotkeys/streams"
)

var gsiSeed = flag.Uint64("gsi.seed", 20261123, "seed of TestGSIOracle's random writes")

// gsiTable has three indexes: "all" on two attributes of its own, "keys" on
// one, and "inc" on one of its own plus the table's sort key.
func gsiTable() dynamodblocal.TableSpec {
	key := func(name string, t ddbtypes.KeyType) ddbtypes.KeySchemaElement {
		return ddbtypes.KeySchemaElement{AttributeName: aws.String(name), KeyType: t}
	}
	attr := func(name string, t ddbtypes.ScalarAttributeType) ddbtypes.AttributeDefinition {
		return ddbtypes.AttributeDefinition{AttributeName: aws.String(name), AttributeType: t}
	}
	return dynamodblocal.TableSpec{
		Prefix: "gsi", HashKey: "pk", RangeKey: "sk", RangeKeyType: ddbtypes.ScalarAttributeTypeN,
		IndexAttributes: []ddbtypes.AttributeDefinition{
			attr("g1pk", ddbtypes.ScalarAttributeTypeS), attr("g1sk", ddbtypes.ScalarAttributeTypeN),
			attr("status", ddbtypes.ScalarAttributeTypeS), attr("g3pk", ddbtypes.ScalarAttributeTypeB),
		},
		Indexes: []ddbtypes.GlobalSecondaryIndex{
			{IndexName: aws.String("all"), KeySchema: []ddbtypes.KeySchemaElement{key("g1pk", ddbtypes.KeyTypeHash), key("g1sk", ddbtypes.KeyTypeRange)},
				Projection: &ddbtypes.Projection{ProjectionType: ddbtypes.ProjectionTypeAll}},
			{IndexName: aws.String("keys"), KeySchema: []ddbtypes.KeySchemaElement{key("status", ddbtypes.KeyTypeHash)},
				Projection: &ddbtypes.Projection{ProjectionType: ddbtypes.ProjectionTypeKeysOnly}},
			{IndexName: aws.String("inc"), KeySchema: []ddbtypes.KeySchemaElement{key("g3pk", ddbtypes.KeyTypeHash), key("sk", ddbtypes.KeyTypeRange)},
				Projection: &ddbtypes.Projection{ProjectionType: ddbtypes.ProjectionTypeInclude, NonKeyAttributes: []string{"a", "b"}}},
		},
	}
}

var gsiNames = []string{"all", "keys", "inc"}

// gsiProjected lists, per index, the attributes of its entries besides the
// table's key ("" = every attribute).
var gsiProjected = map[string][]string{
	"all":  nil,
	"keys": {"status"},
	"inc":  {"g3pk", "a", "b"},
}

var gsiKeys = map[string][]string{"all": {"g1pk", "g1sk"}, "keys": {"status"}, "inc": {"g3pk"}}

type item = map[string]ddbtypes.AttributeValue

// gsiWrite is one write and what DynamoDB Local charged each index.
type gsiWrite struct {
	n             int
	op            string
	before, after item
	charged       map[string]float64
	key           string
}

func (w *gsiWrite) String() string {
	return fmt.Sprintf("write #%d %s of %s (before %s; after %s), DynamoDB Local charged %v",
		w.n, w.op, w.key, describeItem(w.before), describeItem(w.after), w.charged)
}

func describeItem(it item) string {
	if it == nil {
		return "none"
	}
	var parts []string
	for _, k := range slices.Sorted(maps.Keys(it)) {
		v := it[k]
		switch v := v.(type) {
		case *ddbtypes.AttributeValueMemberS:
			if len(v.Value) > 12 {
				parts = append(parts, fmt.Sprintf("%s=S(%d bytes)", k, len(v.Value)))
			} else {
				parts = append(parts, fmt.Sprintf("%s=S%q", k, v.Value))
			}
		case *ddbtypes.AttributeValueMemberN:
			parts = append(parts, k+"=N"+v.Value)
		case *ddbtypes.AttributeValueMemberB:
			parts = append(parts, fmt.Sprintf("%s=B%x", k, v.Value))
		}
	}
	return strings.Join(parts, " ")
}

type gsiOracle struct {
	t       testing.TB
	db      *dynamodb.Client
	table   string
	rng     *rand.Rand
	items   map[string]item
	pending map[string][]*gsiWrite
	writes  []*gsiWrite
	silent  []*gsiWrite // writes that changed nothing, so made no stream record
	cover   map[string]int
}

// attrSize is an attribute's size by DynamoDB's rules, for the types this
// test writes.
func attrSize(t testing.TB, name string, v ddbtypes.AttributeValue) int {
	switch v := v.(type) {
	case *ddbtypes.AttributeValueMemberS:
		return len(name) + len(v.Value)
	case *ddbtypes.AttributeValueMemberB:
		return len(name) + len(v.Value)
	case *ddbtypes.AttributeValueMemberN:
		n, err := ddb.NumberSize(v.Value)
		if err != nil {
			t.Fatal(err)
		}
		return len(name) + n
	}
	t.Fatalf("attribute %s of type %T", name, v)
	return 0
}

// inIndex reports whether it has every key attribute of index ix.
func inIndex(it item, ix string) bool {
	if it == nil {
		return false
	}
	for _, k := range gsiKeys[ix] {
		if it[k] == nil {
			return false
		}
	}
	return true
}

// entrySize is the size of it's entry in index ix: table key + projected.
func (o *gsiOracle) entrySize(it item, ix string) int {
	size := 0
	for name, v := range it {
		if name == "pk" || name == "sk" || gsiProjected[ix] == nil || slices.Contains(gsiProjected[ix], name) {
			size += attrSize(o.t, name, v)
		}
	}
	return size
}

var boundaries = []int{1024, 1025, 2048, 2049}

// pad sets attribute attr to a string that brings it's entry in ix to
// exactly target bytes, if it can.
func (o *gsiOracle) pad(it item, ix, attr string, target int) {
	delete(it, attr)
	if n := target - o.entrySize(it, ix) - len(attr); n >= 1 && (gsiProjected[ix] == nil || slices.Contains(gsiProjected[ix], attr)) {
		it[attr] = &ddbtypes.AttributeValueMemberS{Value: strings.Repeat("x", n)}
	}
}

func (o *gsiOracle) str(n int) ddbtypes.AttributeValue {
	return &ddbtypes.AttributeValueMemberS{Value: strings.Repeat(string(rune('a'+o.rng.IntN(26))), n)}
}

// randomAttr gives attribute name a random value.
func (o *gsiOracle) randomAttr(it item, name string) {
	r := o.rng
	switch name {
	case "g1pk":
		it[name] = &ddbtypes.AttributeValueMemberS{Value: []string{"A", "B", "C"}[r.IntN(3)]}
	case "g1sk":
		// The same numbers spelled in different ways.
		it[name] = &ddbtypes.AttributeValueMemberN{Value: []string{"1", "2.5", "2.50", "25E-1", "-7"}[r.IntN(5)]}
	case "status":
		if r.IntN(6) == 0 { // a long key, so that KEYS_ONLY entries reach 1 KB
			o.pad(it, "keys", "status", boundaries[r.IntN(len(boundaries))])
		} else {
			it[name] = &ddbtypes.AttributeValueMemberS{Value: []string{"ON", "OFF"}[r.IntN(2)]}
		}
	case "g3pk":
		it[name] = &ddbtypes.AttributeValueMemberB{Value: []byte{byte(r.IntN(2)), 7}}
	case "a", "c":
		it[name] = o.str([]int{1, 10, 300, 900, 1000, 1500}[r.IntN(6)] + r.IntN(40))
	case "b":
		it[name] = &ddbtypes.AttributeValueMemberN{Value: strconv.Itoa(r.IntN(1000))}
	}
}

// randomItem builds an item under keys.
func (o *gsiOracle) randomItem(keys item) item {
	it := maps.Clone(keys)
	for _, name := range []string{"g1pk", "g1sk", "status", "g3pk", "a", "b", "c"} {
		if o.rng.IntN(3) > 0 {
			o.randomAttr(it, name)
		}
	}
	o.maybePad(it)
	return it
}

// maybePad sometimes sizes an entry to exactly a 1 KB boundary, or one
// byte past it.
func (o *gsiOracle) maybePad(it item) {
	if o.rng.IntN(3) > 0 {
		return
	}
	target := boundaries[o.rng.IntN(len(boundaries))]
	if o.rng.IntN(2) == 0 {
		o.pad(it, "inc", "a", target)
	} else {
		o.pad(it, "all", "c", target)
	}
}

// halfKeyed: the "all" index's key has one attribute before and only the
// other after. The documentation charges nothing (the item is in the
// index neither time) and DynamoDB Local charges the larger entry; that
// case is TestGSIHalfKeyDocsWin's, and kept out of the random writes.
func halfKeyed(before, after item) bool {
	one := func(it item, name string) bool {
		return it != nil && it[name] != nil && !inIndex(it, "all")
	}
	return (one(before, "g1pk") && one(after, "g1sk") && after["g1pk"] == nil) ||
		(one(before, "g1sk") && one(after, "g1pk") && after["g1sk"] == nil)
}

func (o *gsiOracle) record(op string, keys, after item, cc *ddbtypes.ConsumedCapacity) {
	if cc == nil {
		o.t.Fatalf("%s: no ConsumedCapacity", op)
	}
	k := keyOf(keys)
	w := &gsiWrite{n: len(o.writes) + len(o.silent) + 1, op: op, before: o.items[k], after: after, key: k, charged: map[string]float64{}}
	for name, c := range cc.GlobalSecondaryIndexes {
		w.charged[name] = aws.ToFloat64(c.CapacityUnits)
	}
	if after == nil {
		delete(o.items, k)
	} else {
		o.items[k] = after
	}
	if sameItem(w.before, w.after) { // no change, no stream record
		o.silent = append(o.silent, w)
		return
	}
	o.writes = append(o.writes, w)
	o.pending[k] = append(o.pending[k], w)
}

func keyOf(keys item) string {
	return keys["pk"].(*ddbtypes.AttributeValueMemberS).Value + "|" + keys["sk"].(*ddbtypes.AttributeValueMemberN).Value
}

func sameItem(a, b item) bool {
	if (a == nil) != (b == nil) || len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if !sameValue(v, b[k]) {
			return false
		}
	}
	return true
}

// sameValue compares values as DynamoDB does: numbers by value.
func sameValue(a, b ddbtypes.AttributeValue) bool {
	na, okA := a.(*ddbtypes.AttributeValueMemberN)
	nb, okB := b.(*ddbtypes.AttributeValueMemberN)
	if okA && okB {
		ca, errA := ddb.CanonicalNumber(nil, []byte(na.Value))
		cb, errB := ddb.CanonicalNumber(nil, []byte(nb.Value))
		return errA == nil && errB == nil && string(ca) == string(cb)
	}
	return describeItem(item{"v": a}) == describeItem(item{"v": b})
}

// write makes one random write.
func (o *gsiOracle) write() {
	r := o.rng
	keys := item{
		"pk": &ddbtypes.AttributeValueMemberS{Value: fmt.Sprintf("k%02d", r.IntN(24))},
		"sk": &ddbtypes.AttributeValueMemberN{Value: strconv.Itoa(1 + r.IntN(2))},
	}
	k := keyOf(keys)
	before := o.items[k]
	ctx := context.Background()
	switch op := r.IntN(10); {
	case op < 3: // PutItem: new, or an overwrite
		after := o.randomItem(keys)
		if halfKeyed(before, after) {
			delete(after, "g1pk")
			delete(after, "g1sk")
		}
		out, err := o.db.PutItem(ctx, &dynamodb.PutItemInput{TableName: &o.table, Item: after, ReturnConsumedCapacity: ddbtypes.ReturnConsumedCapacityIndexes})
		if err != nil {
			o.t.Fatalf("PutItem %s: %v", describeItem(after), err)
		}
		o.record("PutItem", keys, after, out.ConsumedCapacity)
	case op < 4: // DeleteItem, of an item or of nothing
		out, err := o.db.DeleteItem(ctx, &dynamodb.DeleteItemInput{TableName: &o.table, Key: keys, ReturnConsumedCapacity: ddbtypes.ReturnConsumedCapacityIndexes})
		if err != nil {
			o.t.Fatalf("DeleteItem: %v", err)
		}
		o.record("DeleteItem", keys, nil, out.ConsumedCapacity)
	default: // UpdateItem: one to three actions
		after := maps.Clone(before)
		if after == nil {
			after = maps.Clone(keys)
		}
		var sets, removes []string
		names, values := map[string]string{}, map[string]ddbtypes.AttributeValue{}
		for range 1 + r.IntN(3) {
			name := []string{"g1pk", "g1sk", "status", "g3pk", "a", "b", "c"}[r.IntN(7)]
			ph := "#" + name
			if _, dup := names[ph]; dup {
				continue
			}
			names[ph] = name
			switch act := r.IntN(8); {
			case act < 2 && after[name] != nil:
				removes = append(removes, ph)
				delete(after, name)
			case act < 3 && after[name] != nil: // the same value again: a no-op for this attribute
				values[":"+name] = after[name]
				sets = append(sets, ph+" = :"+name)
			default:
				o.randomAttr(after, name)
				if (name == "a" || name == "c") && r.IntN(2) == 0 {
					ix := map[string]string{"a": "inc", "c": "all"}[name]
					o.pad(after, ix, name, boundaries[r.IntN(len(boundaries))])
					if after[name] == nil {
						o.randomAttr(after, name)
					}
				}
				values[":"+name] = after[name]
				sets = append(sets, ph+" = :"+name)
			}
		}
		if halfKeyed(before, after) || len(names) == 0 {
			return
		}
		expr := ""
		if len(sets) > 0 {
			expr = "SET " + strings.Join(sets, ", ")
		}
		if len(removes) > 0 {
			expr += " REMOVE " + strings.Join(removes, ", ")
		}
		in := &dynamodb.UpdateItemInput{TableName: &o.table, Key: keys, UpdateExpression: aws.String(expr),
			ExpressionAttributeNames: names, ReturnConsumedCapacity: ddbtypes.ReturnConsumedCapacityIndexes}
		if len(values) > 0 {
			in.ExpressionAttributeValues = values
		}
		out, err := o.db.UpdateItem(ctx, in)
		if err != nil {
			o.t.Fatalf("UpdateItem %s on %s: %v", expr, describeItem(before), err)
		}
		o.record("UpdateItem", keys, after, out.ConsumedCapacity)
	}
}

// classify names what w does to index ix, by the model, for coverage.
func (o *gsiOracle) classify(w *gsiWrite, ix string) []string {
	in0, in1 := inIndex(w.before, ix), inIndex(w.after, ix)
	var c []string
	switch {
	case !in0 && !in1:
		c = append(c, "in no index")
	case !in0:
		c = append(c, "entering")
	case !in1:
		c = append(c, "leaving")
	default:
		keyChanged := false
		for _, k := range gsiKeys[ix] {
			keyChanged = keyChanged || !sameValue(w.before[k], w.after[k])
		}
		switch {
		case keyChanged:
			c = append(c, "key change")
		case o.entrySize(w.before, ix) != o.entrySize(w.after, ix) || !sameProjected(w.before, w.after, ix):
			c = append(c, "projected change")
		default:
			c = append(c, "non-projected change")
		}
	}
	for _, it := range []item{w.before, w.after} {
		if inIndex(it, ix) {
			if s := o.entrySize(it, ix); slices.Contains(boundaries, s) {
				c = append(c, "entry on a 1 KB boundary")
			}
		}
	}
	if in0 && in1 && (o.entrySize(w.before, ix)+1023)/1024 != (o.entrySize(w.after, ix)+1023)/1024 {
		c = append(c, "entry crossing 1 KB")
	}
	return c
}

func sameProjected(a, b item, ix string) bool {
	for _, name := range gsiProjected[ix] {
		if !sameValue(a[name], b[name]) {
			return false
		}
	}
	return gsiProjected[ix] != nil || sameItem(a, b)
}

// verify reads the stream and checks every record's index WCU.
func (o *gsiOracle) verify(streamARN string, dec *record.Decoder) {
	t := o.t
	cfg := streams.DefaultConfig()
	cfg.StreamARN, cfg.From = streamARN, streams.TrimHorizon
	cfg.MinPoll, cfg.MaxPoll, cfg.DescribeInterval = 5*time.Millisecond, 50*time.Millisecond, time.Second
	_, api := dynamodblocal.Clients(t)
	rd, err := streams.NewReader(api, cfg)
	if err != nil {
		t.Fatal(err)
	}
	var order []string // the decoder's indexes, in the order it lists writes
	for _, ix := range dec.Indexes() {
		order = append(order, ix.Name)
	}
	var (
		mu       sync.Mutex
		seen     int
		failures []string
	)
	fail := func(format string, args ...any) { failures = append(failures, fmt.Sprintf(format, args...)) }
	all := make(chan struct{})
	visit := record.Visitor{
		Record: func(rec *record.Record) error {
			seen++
			k := string(rec.PartitionKey.Value) + "|" + string(rec.SortKey.Value)
			q := o.pending[k]
			if len(q) == 0 {
				fail("stream record %s for %s matches no write", rec.SequenceNumber, k)
				return nil
			}
			w := q[0]
			o.pending[k] = q[1:]
			// rec.Indexes lists the indexes the write touched, in the
			// decoder's order; an index it leaves out cost nothing, exactly.
			listed := map[string]record.IndexWrite{}
			next := 0
			for _, iw := range rec.Indexes {
				x := slices.Index(order, iw.Index)
				if x < next {
					fail("%v: index %q out of order, repeated or unknown in %+v", w, iw.Index, rec.Indexes)
					return nil
				}
				next = x + 1
				listed[iw.Index] = iw
			}
			for _, name := range gsiNames {
				iw, ok := listed[name]
				if ok && (!iw.Exact || float64(iw.WCU) != w.charged[name] || !iw.Touched()) {
					fail("%v: index %s: record gives %d WCU (exact=%v, delete %d, put %d)", w, name, iw.WCU, iw.Exact, iw.Delete.WCU, iw.Put.WCU)
				}
				if !ok && w.charged[name] != 0 {
					fail("%v: index %s: record does not list it, DynamoDB Local charged %v WCU", w, name, w.charged[name])
				}
				for _, c := range o.classify(w, name) {
					o.cover[name+": "+c]++
				}
			}
			o.cover["op: "+w.op+"/"+rec.EventName.String()]++
			if seen == len(o.writes) {
				close(all)
			}
			return nil
		},
		Malformed: func(m *record.Malformed) error {
			fail("malformed stream record %s: %v", m.SequenceNumber, m.Err)
			return nil
		},
	}
	readAll(t, rd, o.db, o.table, dec, visit, &mu, all,
		func(err error) { fail("data lost: %v", err) },
		func() string { return fmt.Sprintf("%d stream records for %d writes", seen, len(o.writes)) })
	mu.Lock()
	defer mu.Unlock()
	if seen != len(o.writes) {
		t.Errorf("the stream gave %d records for %d writes", seen, len(o.writes))
	}
	for i, f := range failures {
		if i == 40 {
			t.Errorf("… and %d more", len(failures)-i)
			break
		}
		t.Error(f)
	}
}

// TestGSIOracle: for every stream record of 600 random single-item
// writes (PutItem new and overwriting, UpdateItem, DeleteItem), the WCU
// record charges each of three indexes (ALL, KEYS_ONLY, INCLUDE) equals
// what DynamoDB Local charged it. Never loosen it: a difference is a bug
// in record's GSI rules (or in this test). The seed is fixed, so a run is
// repeatable; -gsi.seed tries others.
func TestGSIOracle(t *testing.T) {
	db, _ := dynamodblocal.Clients(t)
	spec := gsiTable()
	table, arn := dynamodblocal.CreateTable(t, db, spec)
	schema, err := keyschema.Lookup(context.Background(), db, table)
	if err != nil {
		t.Fatal(err)
	}
	dec, err := record.NewDecoder(record.Config{PartitionKey: schema.PartitionKey, Indexes: schema.Indexes})
	if err != nil {
		t.Fatal(err)
	}
	o := &gsiOracle{t: t, db: db, table: table, rng: rand.New(rand.NewPCG(*gsiSeed, 0x6a5d)),
		items: map[string]item{}, pending: map[string][]*gsiWrite{}, cover: map[string]int{}}
	for len(o.writes)+len(o.silent) < 600 {
		o.write()
	}
	// A write that changes nothing makes no stream record, and costs the
	// indexes nothing.
	for _, w := range o.silent {
		for _, ix := range gsiNames {
			if w.charged[ix] != 0 {
				t.Errorf("%v: a write that changed nothing cost index %s", w, ix)
			}
		}
	}
	o.cover["op: no change (no stream record)"] = len(o.silent)
	o.verify(arn, dec)
	// The mix must cover every case, for every index where it can happen.
	for _, ix := range gsiNames {
		for _, c := range []string{"in no index", "entering", "leaving", "key change", "projected change", "entry on a 1 KB boundary", "entry crossing 1 KB"} {
			if ix == "keys" && c == "projected change" {
				continue // KEYS_ONLY projects only keys
			}
			if o.cover[ix+": "+c] < 5 {
				t.Errorf("index %s: only %d writes of the case %q", ix, o.cover[ix+": "+c], c)
			}
		}
	}
	for _, c := range []string{"keys: non-projected change", "inc: non-projected change", "op: PutItem/MODIFY", "op: PutItem/INSERT", "op: UpdateItem/MODIFY", "op: UpdateItem/INSERT", "op: DeleteItem/REMOVE", "op: no change (no stream record)"} {
		if o.cover[c] < 5 {
			t.Errorf("only %d writes of the case %q", o.cover[c], c)
		}
	}
	t.Logf("%d writes with a stream record, %d without; coverage: %v", len(o.writes), len(o.silent), o.cover)
}

// TestGSIHalfKeyDocsWin pins where DynamoDB Local departs from the
// documentation, and why record follows the documentation. The "all"
// index is keyed on two attributes. The item has only g1pk before the
// write and only g1sk after it: it is in the index neither time. The
// Developer Guide says "If a write to a table does not require a global
// secondary index update, no write capacity is consumed from the index";
// DynamoDB Local charges the larger of the two would-be entries anyway.
// record charges 0, as AWS does.
func TestGSIHalfKeyDocsWin(t *testing.T) {
	db, _ := dynamodblocal.Clients(t)
	table, arn := dynamodblocal.CreateTable(t, db, gsiTable())
	schema, err := keyschema.Lookup(context.Background(), db, table)
	if err != nil {
		t.Fatal(err)
	}
	dec, err := record.NewDecoder(record.Config{PartitionKey: schema.PartitionKey, Indexes: schema.Indexes})
	if err != nil {
		t.Fatal(err)
	}
	o := &gsiOracle{t: t, db: db, table: table, items: map[string]item{}, pending: map[string][]*gsiWrite{}, cover: map[string]int{}}
	keys := item{"pk": &ddbtypes.AttributeValueMemberS{Value: "half"}, "sk": &ddbtypes.AttributeValueMemberN{Value: "1"}}
	ctx := context.Background()
	before := maps.Clone(keys)
	before["g1pk"] = &ddbtypes.AttributeValueMemberS{Value: "A"}
	before["c"] = &ddbtypes.AttributeValueMemberS{Value: strings.Repeat("x", 1500)} // a 2 KB entry if it were one
	out, err := db.PutItem(ctx, &dynamodb.PutItemInput{TableName: &table, Item: before, ReturnConsumedCapacity: ddbtypes.ReturnConsumedCapacityIndexes})
	if err != nil {
		t.Fatal(err)
	}
	o.record("PutItem", keys, before, out.ConsumedCapacity)
	after := maps.Clone(before)
	delete(after, "g1pk")
	after["g1sk"] = &ddbtypes.AttributeValueMemberN{Value: "2"}
	up, err := db.UpdateItem(ctx, &dynamodb.UpdateItemInput{TableName: &table, Key: keys,
		UpdateExpression:          aws.String("REMOVE g1pk SET g1sk = :v"),
		ExpressionAttributeValues: map[string]ddbtypes.AttributeValue{":v": after["g1sk"]},
		ReturnConsumedCapacity:    ddbtypes.ReturnConsumedCapacityIndexes})
	if err != nil {
		t.Fatal(err)
	}
	o.record("UpdateItem", keys, after, up.ConsumedCapacity)
	if len(o.writes) != 2 {
		t.Fatalf("%d writes", len(o.writes))
	}
	if w := o.writes[0]; w.charged["all"] != 0 {
		t.Errorf("%v: an item with half the index key cost the index", w)
	}
	w := o.writes[1]
	if got := w.charged["all"]; got != 2 {
		t.Errorf("%v: DynamoDB Local charged index all %v WCU; this test pins 2 (the larger would-be entry). "+
			"If DynamoDB Local now charges 0, it follows the documentation: remove this departure from docs/record.md.", w, got)
	}
	w.charged["all"] = 0 // the documentation's figure, which record must give
	o.verify(arn, dec)
}
