package main

// The generator of the sample events: it turns a design of samples_test.go
// into the JSON Lambda sends, records sorted by time, items padded to their
// designed size by the oracle's size rules.

import (
	"bytes"
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"
	"time"
)

// spread returns n seconds spread evenly over [from, to], never skip.
func spread(n, from, to, skip int) []int {
	out := make([]int, n)
	span := to - from + 1
	for i := range out {
		sec := from + i*span/n
		if sec == skip {
			sec++
			if sec > to {
				sec = from
			}
		}
		out[i] = sec
	}
	return out
}

// classes lists WCU sizes: n1 ones, n2 twos, and so on.
func classes(counts ...int) []int {
	var out []int
	for i, n := range counts {
		for range n {
			out = append(out, i+1)
		}
	}
	return out
}

// av is one DynamoDB JSON attribute value, {"S": "…"} and so on.
type av map[string]any

type item map[string]av

type genRecord struct {
	sec        int
	name       string
	keys       item
	newImage   item
	oldImage   item
	ttl        bool
	badAttrTag bool
}

// gen builds one window's records.
type gen struct {
	s          *sample
	rng        *rand.Rand
	recs       []genRecord
	fractional bool // ApproximateCreationDateTime with milliseconds
	rich       bool // items with every attribute type
	orders     int
}

func newGen(s *sample) *gen {
	h := sha256.Sum256([]byte(s.Table + s.Window.String() + s.Shard))
	var seed [32]byte
	copy(seed[:], h[:])
	return &gen{s: s, rng: rand.New(rand.NewChaCha8(seed))}
}

func (g *gen) uuid() string {
	r := g.rng
	return fmt.Sprintf("%08x-%04x-4%03x-%04x-%012x", r.Uint32(), r.Uint32()&0xffff, r.Uint32()&0xfff, 0x8000|r.Uint32()&0x3fff, r.Uint64()&0xffffffffffff)
}

func (g *gen) orderSK() string {
	g.orders++
	return fmt.Sprintf("ORDER#2026-11-22#%06d", 100000+g.orders*37%900000)
}

func (g *gen) eventSK() string {
	return "EVENT#" + strings.ToUpper(strings.ReplaceAll(g.uuid(), "-", ""))[:26]
}

func (g *gen) logSK(sec, i int) string {
	at := g.s.Window.Add(time.Duration(sec)*time.Second + time.Duration(i%1000)*time.Millisecond)
	return at.Format("2006-01-02T15:04:05.000Z") + fmt.Sprintf("#%04d", i)
}

func (g *gen) createdSK(sec int) string {
	g.orders++
	return g.s.Window.Add(time.Duration(sec)*time.Second).Format(time.RFC3339) + fmt.Sprintf("#%05d", g.orders)
}

func (g *gen) keys(pk, sk string) item {
	k := item{g.s.PKName: {"S": pk}}
	if g.s.SKName != "" {
		k[g.s.SKName] = av{"S": sk}
	}
	return k
}

var words = strings.Fields(`order shipped express standard warehouse customer gift wrap note please leave
at door fragile handle with care priority returns exchange size colour blue red green large small medium
pack of two set bundle discount applied loyalty member since delivery window morning evening weekend`)

// itemOf builds the item under pk/sk with its attributes padded so that its
// size by DynamoDB's rules is exactly a random size in the wcu class.
func (g *gen) itemOf(pk, sk string, sec, wcu int) item {
	it := g.keys(pk, sk)
	at := g.s.Window.Add(time.Duration(sec) * time.Second)
	switch {
	case pk == "OPS_LOG":
		it["entity"] = av{"S": "LogEntry"}
		it["level"] = av{"S": []string{"INFO", "INFO", "INFO", "WARN", "ERROR"}[g.rng.IntN(5)]}
		it["service"] = av{"S": []string{"checkout", "payments", "inventory", "shipping"}[g.rng.IntN(4)]}
		it["expiresAt"] = av{"N": strconv.FormatInt(at.Add(24*time.Hour).Unix(), 10)}
	default:
		it["entity"] = av{"S": "Order"}
		it["placedAt"] = av{"S": at.Format(time.RFC3339)}
		it["total"] = av{"N": fmt.Sprintf("%d.%02d", 5+g.rng.IntN(400), g.rng.IntN(100))}
		it["quantity"] = av{"N": strconv.Itoa(1 + g.rng.IntN(5))}
		if g.rich {
			it["giftWrap"] = av{"BOOL": g.rng.IntN(2) == 0}
			it["couponCode"] = av{"NULL": true}
			it["tags"] = av{"SS": []string{"web", "prime"}}
			it["discount"] = av{"N": fmt.Sprintf("-%d.5", g.rng.IntN(20))}
			it["receipt"] = av{"B": "cmVjZWlwdC1ieXRlcw=="}
			it["lines"] = av{"L": []any{
				av{"M": map[string]any{"sku": av{"S": fmt.Sprintf("SKU-%05d", g.rng.IntN(99999))}, "qty": av{"N": "2"}, "price": av{"N": "19.99"}}},
				av{"M": map[string]any{"sku": av{"S": fmt.Sprintf("SKU-%05d", g.rng.IntN(99999))}, "qty": av{"N": "1"}, "price": av{"N": "120"}}},
			}}
			it["sizes"] = av{"NS": []string{"38", "40.5", "42"}}
			it["signatures"] = av{"BS": []string{"c2lnLTE=", "c2lnLTI="}}
		}
	}
	lo, hi := (wcu-1)*1024+64, wcu*1024-64
	if wcu == 1 {
		lo, hi = 180, 700 // typical small items
	}
	g.pad(it, lo+g.rng.IntN(hi-lo))
	return it
}

// pad adds a text attribute that brings the item's size to exactly size.
func (g *gen) pad(it item, size int) {
	name := "message"
	if _, ok := it["entity"]; ok && it["entity"]["S"] == "Order" {
		name = "deliveryNote"
	}
	base := mustSize(it) + len(name)
	if size < base+8 {
		size = base + 8 + g.rng.IntN(64) // a short note; still far below 1 KB
	}
	var b strings.Builder
	for b.Len() < size-base {
		if b.Len() > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(words[g.rng.IntN(len(words))])
	}
	it[name] = av{"S": b.String()[:size-base]}
	if got := mustSize(it); got != size {
		panic(fmt.Sprintf("padded to %d, want %d", got, size))
	}
}

func mustSize(it item) int {
	raw := map[string]json.RawMessage{}
	for k, v := range it {
		b, err := json.Marshal(v)
		if err != nil {
			panic(err)
		}
		raw[k] = b
	}
	n, err := itemSize(raw)
	if err != nil {
		panic(err)
	}
	return n
}

func (g *gen) insert(sec int, pk, sk string, wcu int) {
	g.recs = append(g.recs, genRecord{sec: sec, name: "INSERT", keys: g.keys(pk, sk), newImage: g.itemOf(pk, sk, sec, wcu)})
}

func (g *gen) modify(sec int, pk, sk string, oldWCU, newWCU int) {
	g.recs = append(g.recs, genRecord{sec: sec, name: "MODIFY", keys: g.keys(pk, sk),
		oldImage: g.itemOf(pk, sk, sec, oldWCU), newImage: g.itemOf(pk, sk, sec, newWCU)})
}

func (g *gen) remove(sec int, pk, sk string, wcu int) {
	g.recs = append(g.recs, genRecord{sec: sec, name: "REMOVE", keys: g.keys(pk, sk), oldImage: g.itemOf(pk, sk, sec, wcu)})
}

func (g *gen) ttlRemove(sec int, pk, sk string) {
	g.recs = append(g.recs, genRecord{sec: sec, name: "REMOVE", keys: g.keys(pk, sk), oldImage: g.itemOf(pk, sk, sec, 1), ttl: true})
}

// malformed adds an INSERT whose NewImage has an attribute with a type tag
// DynamoDB does not have ("BOOLEAN"), as a hand-edited event might.
func (g *gen) malformed(sec int, pk, sk string) {
	it := g.itemOf(pk, sk, sec, 1)
	it["giftWrap"] = av{"BOOLEAN": true}
	g.recs = append(g.recs, genRecord{sec: sec, name: "INSERT", keys: g.keys(pk, sk), newImage: it, badAttrTag: true})
}

// counter adds an UpdateItem of a counter (ADD count :1) on a hash-only table.
func (g *gen) counter(sec int, name string) {
	n := 1000 + g.rng.IntN(900000)
	at := g.s.Window.Add(time.Duration(sec) * time.Second).Format(time.RFC3339)
	old := item{g.s.PKName: {"S": name}, "count": {"N": strconv.Itoa(n)}, "updatedAt": {"S": at}}
	cur := item{g.s.PKName: {"S": name}, "count": {"N": strconv.Itoa(n + 1)}, "updatedAt": {"S": at}}
	g.recs = append(g.recs, genRecord{sec: sec, name: "MODIFY", keys: item{g.s.PKName: {"S": name}}, oldImage: old, newImage: cur})
}

// customerTail adds the long tail of an orders table: inserts, then
// updates that grow an order from 1 to 2 WCU, then 1-WCU deletes, spread
// over [from, to] but never at second skip, over `customers` customers.
func (g *gen) customerTail(inserts, updates, deletes, customers, from, to, skip int) {
	ids := make([]string, customers)
	for i := range ids {
		ids[i] = "CUSTOMER#" + g.uuid()
	}
	secs := spread(inserts+updates+deletes, from, to, skip)
	type placed struct{ pk, sk string }
	var made []placed
	for i := range inserts {
		p := placed{ids[i%customers], g.orderSK()}
		made = append(made, p)
		g.insert(secs[i], p.pk, p.sk, 1)
	}
	for i := range updates {
		p := made[(i*13)%len(made)]
		g.modify(secs[inserts+i], p.pk, p.sk, 1, 2)
	}
	for i := range deletes {
		p := made[(i*17+5)%len(made)]
		g.remove(secs[inserts+updates+i], p.pk, p.sk, 1)
	}
}

// JSON shapes of aws-lambda-go's events.DynamoDBEventRecord, in the order
// Lambda writes the fields.
type jsonRecord struct {
	EventID        string        `json:"eventID"`
	EventName      string        `json:"eventName"`
	EventVersion   string        `json:"eventVersion"`
	EventSource    string        `json:"eventSource"`
	AWSRegion      string        `json:"awsRegion"`
	Dynamodb       jsonChange    `json:"dynamodb"`
	EventSourceARN string        `json:"eventSourceARN"`
	UserIdentity   *jsonIdentity `json:"userIdentity,omitempty"`
}

type jsonChange struct {
	ApproximateCreationDateTime json.Number `json:"ApproximateCreationDateTime"`
	Keys                        item        `json:"Keys"`
	NewImage                    item        `json:"NewImage,omitempty"`
	OldImage                    item        `json:"OldImage,omitempty"`
	SequenceNumber              string      `json:"SequenceNumber"`
	SizeBytes                   int         `json:"SizeBytes"`
	StreamViewType              string      `json:"StreamViewType"`
}

type jsonIdentity struct {
	Type        string `json:"type"`
	PrincipalID string `json:"principalId"`
}

// render writes the sample's file: one record per line, so that a diff
// shows records, then the time-window fields where the shape has them.
func (s *sample) render() []byte {
	g := newGen(s)
	s.records(g)
	recs := g.recs
	slices.SortStableFunc(recs, func(a, b genRecord) int { return a.sec - b.sec })
	view := s.View
	if view == "" {
		view = "NEW_AND_OLD_IMAGES"
	}
	// Sequence numbers grow with the records, by uneven steps, from a
	// per-shard base, as DynamoDB's do.
	seq := uint64(1_000_000_000_000) + uint64(len(s.Shard))*7_919
	seqs := make([]string, len(recs))
	for i := range recs {
		seq += 100 + uint64(g.rng.IntN(900))
		seqs[i] = fmt.Sprintf("4%020d", seq)
	}
	from, to := 0, len(recs)
	if s.part != [2]int{} {
		from, to = s.part[0], s.part[1]
	}
	var b bytes.Buffer
	b.WriteString("{\"Records\": [\n")
	for i := from; i < to; i++ {
		r := recs[i]
		at := s.Window.Add(time.Duration(r.sec) * time.Second)
		ts := json.Number(strconv.FormatInt(at.Unix(), 10))
		if g.fractional {
			ts = json.Number(fmt.Sprintf("%d.%03d", at.Unix(), g.rng.IntN(1000)))
		}
		jr := jsonRecord{
			EventID:      fmt.Sprintf("%x", sha256.Sum256([]byte(s.Table+s.Window.String()+seqs[i])))[:32],
			EventName:    r.name,
			EventVersion: "1.1",
			EventSource:  "aws:dynamodb",
			AWSRegion:    "us-east-1",
			Dynamodb: jsonChange{
				ApproximateCreationDateTime: ts,
				Keys:                        r.keys,
				SequenceNumber:              seqs[i],
				StreamViewType:              view,
			},
			EventSourceARN: streamARN(s.Table),
		}
		if view != "KEYS_ONLY" {
			jr.Dynamodb.NewImage, jr.Dynamodb.OldImage = r.newImage, r.oldImage
		}
		jr.Dynamodb.SizeBytes = streamRecordSize(jr.Dynamodb)
		if r.ttl {
			jr.UserIdentity = &jsonIdentity{Type: "Service", PrincipalID: "dynamodb.amazonaws.com"}
		}
		line, err := json.Marshal(jr)
		if err != nil {
			panic(err)
		}
		b.Write(line)
		if i < to-1 {
			b.WriteByte(',')
		}
		b.WriteByte('\n')
	}
	if s.Shape == plainBatch {
		b.WriteString("]}\n")
		return b.Bytes()
	}
	fmt.Fprintf(&b, "],\n\"window\": {\"start\": %q, \"end\": %q},\n\"state\": {},\n\"shardId\": %q,\n\"eventSourceARN\": %q,\n\"isFinalInvokeForWindow\": %t,\n\"isWindowTerminatedEarly\": false}\n",
		s.Window.Format(time.RFC3339), s.Window.Add(windowLength).Format(time.RFC3339), s.Shard, streamARN(s.Table), s.Shape == tumblingFinal)
	return b.Bytes()
}

// streamRecordSize approximates SizeBytes, the stream record's size: keys
// and images together. A record with a bad attribute gets the others'.
func streamRecordSize(c jsonChange) int {
	n := 0
	for _, it := range []item{c.Keys, c.NewImage, c.OldImage} {
		clean := item{}
		for k, v := range it {
			if _, bad := v["BOOLEAN"]; !bad {
				clean[k] = v
			}
		}
		n += mustSize(clean)
	}
	return n
}
