package main

import (
	"fmt"
	"hash/fnv"
	"math/rand/v2"
	"strconv"
	"strings"

	"github.com/hotkeys-dev/hotkeys/ddb"
)

const (
	demoUsers     = 20000
	demoTable     = "Shop"
	demoStreamARN = "arn:aws:dynamodb:us-east-1:123456789012:table/" + demoTable + "/stream/2026-11-22T00:00:00.000"
	demoTTLRate   = 5 // TTL deletes per second, free of WCU
)

// demoGen writes one simulated second of stream records as Lambda event
// JSON, one payload per stream shard, the shape Lambda would deliver.
type demoGen struct {
	rng      *rand.Rand
	users    []string
	tailRate int
	seq      uint64
	sec      int64
	inSecond int
	bufs     [][]byte
	counts   []int
}

func newDemoGen(seed uint64, tailRate int) *demoGen {
	g := &demoGen{
		rng:      rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15)),
		tailRate: tailRate,
		bufs:     make([][]byte, len(demoShards)),
		counts:   make([]int, len(demoShards)),
	}
	g.users = make([]string, demoUsers)
	for i := range g.users {
		g.users[i] = "USER#" + g.uuid()
	}
	return g
}

func (g *demoGen) uuid() string {
	a, b := g.rng.Uint64(), g.rng.Uint64()
	return fmt.Sprintf("%08x-%04x-4%03x-%04x-%012x", a>>32, (a>>16)&0xffff, a&0xfff, (b>>48)&0x3fff|0x8000, b&0xffffffffffff)
}

// id returns a random item id.
func (g *demoGen) id() string { return strconv.FormatUint(g.rng.Uint64()>>16, 36) }

// jitter returns rate ± 10 %, so peaks differ from averages as in life.
func (g *demoGen) jitter(rate int) int {
	return rate + int(float64(rate)*0.1*(2*g.rng.Float64()-1))
}

// second writes the long tail, the TTL deletes and the phase's hot keys for
// one second.
func (g *demoGen) second(sec int64, hot func(*demoGen, int64)) {
	g.sec, g.inSecond = sec, 0
	for i := range g.bufs {
		g.bufs[i] = append(g.bufs[i][:0], `{"Records":[`...)
		g.counts[i] = 0
	}
	for range g.jitter(g.tailRate) {
		user := g.users[g.rng.IntN(len(g.users))]
		sk := "PROFILE"
		if g.rng.IntN(3) > 0 {
			sk = "ORDER#" + g.id()
		}
		g.write(user, sk, 150+g.rng.IntN(700), "INSERT", 0)
	}
	for range demoTTLRate {
		g.ttlDelete("SESSION#"+g.uuid(), "SESSION")
	}
	hot(g, sec)
}

// payloads returns the second's payloads, one per shard.
func (g *demoGen) payloads() [][]byte {
	for i := range g.bufs {
		g.bufs[i] = append(g.bufs[i], "]}"...)
	}
	return g.bufs
}

func (g *demoGen) shard(pk string) int {
	h := fnv.New32a()
	h.Write([]byte(pk))
	return int(h.Sum32() % uint32(len(demoShards)))
}

// begin starts a record in pk's shard and returns the buffer to write to.
func (g *demoGen) begin(pk, event string) int {
	s := g.shard(pk)
	if g.counts[s] > 0 {
		g.bufs[s] = append(g.bufs[s], ',')
	}
	g.counts[s]++
	g.seq++
	g.inSecond++
	// Spread the second's records over it, in order.
	t := float64(g.sec) + float64(g.inSecond%1000)/1000
	g.bufs[s] = fmt.Appendf(g.bufs[s],
		`{"eventID":"%032x","eventName":%q,"eventVersion":"1.1","eventSource":"aws:dynamodb","awsRegion":"us-east-1",`+
			`"eventSourceARN":%q,"dynamodb":{"ApproximateCreationDateTime":%.3f,"SequenceNumber":"%021d","StreamViewType":"NEW_AND_OLD_IMAGES",`,
		g.seq, event, demoStreamARN, t, g.seq)
	return s
}

// write adds an INSERT or MODIFY of an item of about size bytes (and, for a
// MODIFY, an old image of about oldSize bytes).
func (g *demoGen) write(pk, sk string, size int, event string, oldSize int) {
	s := g.begin(pk, event)
	b := fmt.Appendf(g.bufs[s], `"Keys":{"PK":{"S":%q},"SK":{"S":%q}},"NewImage":`, pk, sk)
	b = appendDemoItem(b, pk, sk, size, g.seq)
	if event == "MODIFY" {
		b = append(b, `,"OldImage":`...)
		b = appendDemoItem(b, pk, sk, oldSize, g.seq-1)
	}
	g.bufs[s] = append(b, `,"SizeBytes":`+strconv.Itoa(size+oldSize)+`}}`...)
}

// writeIndexed adds an INSERT of an item of about size bytes that also
// carries GSI1PK, the key of the demo table's index.
func (g *demoGen) writeIndexed(pk, sk, gsi1pk string, size int) {
	s := g.begin(pk, "INSERT")
	b := fmt.Appendf(g.bufs[s], `"Keys":{"PK":{"S":%q},"SK":{"S":%q}},"NewImage":`, pk, sk)
	b = appendDemoItem(b, pk, sk, size-len("GSI1PK")-len(gsi1pk), g.seq)
	b = fmt.Appendf(b[:len(b)-1], `,"GSI1PK":{"S":%q}}`, gsi1pk)
	g.bufs[s] = append(b, `,"SizeBytes":`+strconv.Itoa(size)+`}}`...)
}

// admitted writes a second's demand of writes of pk (n of them, of about
// size bytes each) through the admission model of its partition
// (ddb.Admission, 1,000 WCU/s): those admitted reach the stream, the rest
// are throttled (the client sees a ThrottlingException, the stream
// nothing).
func (g *demoGen) admitted(pk, skPrefix string, n, size int) {
	wcu := ddb.WriteUnits(size)
	a := ddb.NewAdmission(ddb.PartitionWriteUnits)
	for range n {
		if a.Admit(g.sec, wcu) {
			g.write(pk, skPrefix+g.id(), size, "INSERT", 0)
		}
	}
}

// ttlDelete adds a REMOVE made by DynamoDB's TTL process.
func (g *demoGen) ttlDelete(pk, sk string) {
	s := g.begin(pk, "REMOVE")
	b := fmt.Appendf(g.bufs[s], `"Keys":{"PK":{"S":%q},"SK":{"S":%q}},"OldImage":`, pk, sk)
	b = appendDemoItem(b, pk, sk, 200, g.seq)
	g.bufs[s] = append(b, `,"SizeBytes":200},"userIdentity":{"type":"Service","principalId":"dynamodb.amazonaws.com"}}`...)
}

// malformed adds a record whose Keys attribute is missing: the pipeline
// must skip it, count it, and carry on.
func (g *demoGen) malformed() {
	s := g.begin("MALFORMED", "INSERT")
	g.bufs[s] = append(g.bufs[s], `"NewImage":{"PK":{"S":"x"}},"SizeBytes":10}}`...)
}

// appendDemoItem writes an item of about size bytes by DynamoDB's rules.
func appendDemoItem(b []byte, pk, sk string, size int, version uint64) []byte {
	overhead := len("PK") + len(pk) + len("SK") + len(sk) + len("data") + len("version") + 4
	pad := max(size-overhead, 1)
	b = fmt.Appendf(b, `{"PK":{"S":%q},"SK":{"S":%q},"version":{"N":"%d"},"data":{"S":"`, pk, sk, version%1000)
	b = append(b, strings.Repeat("x", pad)...)
	return append(b, `"}}`...)
}
