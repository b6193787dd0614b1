package record

// A generator of realistic DynamoDB Streams payloads, seeded, so that the
// tests and benchmarks need no large fixture files.

import (
	"bytes"
	"encoding/base64"
	"fmt"
	"math/rand/v2"
	"strconv"
	"strings"
	"unicode/utf8"
)

type gen struct{ r *rand.Rand }

func newGen(seed uint64) *gen { return &gen{rand.New(rand.NewPCG(seed, 0x5eed))} }

var (
	genWords = []string{
		"order", "pending", "shipped", "customer", "widget", "blue", "large", "express", "gift", "note",
		"café", "naïve", "日本語", "Ωmega", "😀 party", "Zürich", "São Paulo", "line\nbreak", "tab\there",
		`say "hi"`, `back\slash`, "a/b/c", "<tag>&amp;",
	}
	genNames = []string{
		"name", "email", "status", "price", "quantity", "tags", "address", "created_at", "updated_at",
		"items", "flags", "payload", "scores", "meta", "notes", "créé", "属性", "version", "ratio", "blob",
	}
)

// str writes s as a JSON string, escaping some characters that need no
// escape, the way different encoders do.
func (g *gen) str(b *bytes.Buffer, s string) {
	b.WriteByte('"')
	for _, r := range s {
		switch {
		case r == '"' || r == '\\':
			b.WriteByte('\\')
			b.WriteRune(r)
		case r == '\n':
			b.WriteString(`\n`)
		case r == '\t':
			b.WriteString(`\t`)
		case r < 0x20:
			fmt.Fprintf(b, `\u%04x`, r)
		case r == '/' && g.r.IntN(3) == 0:
			b.WriteString(`\/`)
		case (r >= utf8.RuneSelf || r == '<' || r == '&') && g.r.IntN(3) == 0:
			if r > 0xFFFF {
				r -= 0x10000
				fmt.Fprintf(b, `\u%04x\u%04x`, 0xD800+(r>>10), 0xDC00+(r&0x3FF))
			} else {
				fmt.Fprintf(b, `\u%04x`, r)
			}
		default:
			b.WriteRune(r)
		}
	}
	b.WriteByte('"')
}

func (g *gen) text(maxWords int) string {
	var sb bytes.Buffer
	for k := range g.r.IntN(maxWords + 1) {
		if k > 0 {
			sb.WriteByte(' ')
		}
		sb.WriteString(genWords[g.r.IntN(len(genWords))])
	}
	return sb.String()
}

// number spells a valid DynamoDB number in one of many shapes.
func (g *gen) number() string {
	switch g.r.IntN(6) {
	case 0:
		return strconv.Itoa(g.r.IntN(100))
	case 1:
		return strconv.FormatInt(g.r.Int64N(1e15)-5e14, 10)
	case 2:
		return strconv.FormatFloat(g.r.Float64()*1000, 'f', g.r.IntN(6), 64)
	case 3:
		return strconv.FormatFloat(g.r.NormFloat64()*1e6, 'E', g.r.IntN(12), 64)
	case 4:
		return fmt.Sprintf("%d.%d0", g.r.IntN(10), g.r.IntN(1000))
	default:
		return fmt.Sprintf("%d.%dE-%d", 1+g.r.IntN(9), g.r.IntN(100), g.r.IntN(125))
	}
}

func (g *gen) binary(maxLen int) string {
	p := make([]byte, g.r.IntN(maxLen+1))
	for k := range p {
		p[k] = byte(g.r.IntN(256))
	}
	return base64.StdEncoding.EncodeToString(p)
}

// value writes a random attribute value; depth bounds L and M nesting.
func (g *gen) value(b *bytes.Buffer, depth int) {
	n := 9
	if depth > 0 {
		n = 11
	}
	switch g.r.IntN(n) {
	case 0, 1:
		b.WriteString(`{"S":`)
		g.str(b, g.text(3))
	case 2, 3:
		b.WriteString(`{"N":"` + g.number() + `"`)
	case 4:
		b.WriteString(`{"B":"` + g.binary(24) + `"`)
	case 5:
		b.WriteString(`{"BOOL":` + strconv.FormatBool(g.r.IntN(2) == 0))
	case 6:
		b.WriteString(`{"NULL":true`)
	case 7:
		b.WriteString(`{"SS":[`)
		for k := range 1 + g.r.IntN(3) {
			if k > 0 {
				b.WriteByte(',')
			}
			g.str(b, fmt.Sprintf("%s-%d", g.text(1), k))
		}
		b.WriteByte(']')
	case 8:
		if g.r.IntN(2) == 0 {
			b.WriteString(`{"NS":[`)
			for k := range 1 + g.r.IntN(3) {
				if k > 0 {
					b.WriteByte(',')
				}
				b.WriteString(`"` + g.number() + `"`)
			}
		} else {
			b.WriteString(`{"BS":[`)
			for k := range 1 + g.r.IntN(3) {
				if k > 0 {
					b.WriteByte(',')
				}
				b.WriteString(`"` + g.binary(8) + `"`)
			}
		}
		b.WriteByte(']')
	case 9:
		b.WriteString(`{"L":[`)
		for k := range g.r.IntN(4) {
			if k > 0 {
				b.WriteByte(',')
			}
			g.value(b, depth-1)
		}
		b.WriteByte(']')
	default:
		b.WriteString(`{"M":`)
		g.members(b, g.r.IntN(4), depth-1)
	}
	b.WriteByte('}')
}

// members writes an object of n distinct attributes.
func (g *gen) members(b *bytes.Buffer, n, depth int) {
	b.WriteByte('{')
	start := g.r.IntN(len(genNames))
	for k := range n {
		if k > 0 {
			b.WriteByte(',')
		}
		name := genNames[(start+k)%len(genNames)]
		if k >= len(genNames) {
			name += strconv.Itoa(k)
		}
		g.str(b, name)
		b.WriteByte(':')
		g.value(b, depth)
	}
	b.WriteByte('}')
}

// item returns a random item of n attributes.
func (g *gen) item(n, depth int) []byte {
	var b bytes.Buffer
	g.members(&b, n, depth)
	return b.Bytes()
}

// The anti-patterns the product hunts, and a long tail.
func (g *gen) partitionKey() string {
	switch x := g.r.IntN(100); {
	case x < 20:
		return "STATUS#ACTIVE"
	case x < 30:
		return "OPS_LOG"
	case x < 35:
		return "DATE#2026-11-22"
	case x < 45:
		return fmt.Sprintf("COUNTER#SHARD_%d", g.r.IntN(4))
	default:
		return fmt.Sprintf("USER#%05x-é", g.r.IntN(3000))
	}
}

// entity writes the attributes (after the keys) of an item of a table
// in single-table design: each kind of entity has its own attributes, as
// real tables do, with values that vary in length and content.
func (g *gen) entity(b *bytes.Buffer, pk string) {
	field := func(name string) {
		b.WriteString(`,"` + name + `":`)
	}
	switch {
	case pk == "STATUS#ACTIVE" || pk == "OPS_LOG":
		field("level")
		b.WriteString(`{"S":"` + []string{"INFO", "WARN", "ERROR"}[g.r.IntN(3)] + `"}`)
		field("msg")
		b.WriteString(`{"S":`)
		g.str(b, g.text(1))
		b.WriteString(`}`)
		field("ttl")
		fmt.Fprintf(b, `{"N":"%d"}`, 1763900000+g.r.IntN(100000))
	case strings.HasPrefix(pk, "COUNTER#"):
		field("count")
		fmt.Fprintf(b, `{"N":"%d"}`, g.r.IntN(1000000))
		field("updated")
		fmt.Fprintf(b, `{"S":"2026-11-22T10:%02d:%02dZ"}`, g.r.IntN(60), g.r.IntN(60))
	case strings.HasPrefix(pk, "DATE#"):
		field("v")
		b.WriteString(`{"N":"` + g.number() + `"}`)
		field("sig")
		b.WriteString(`{"B":"` + g.binary(12) + `"}`)
		field("hist")
		b.WriteString(`{"L":[`)
		for k := range 1 + g.r.IntN(2) {
			if k > 0 {
				b.WriteByte(',')
			}
			b.WriteString(`{"N":"` + g.number() + `"}`)
		}
		b.WriteString(`]}`)
		if g.r.IntN(2) == 0 {
			field("note")
			b.WriteString(`{"NULL":true}`)
		}
	default: // a user
		field("name")
		b.WriteString(`{"S":`)
		g.str(b, []string{"José", "Zoë", "Ana", "Jean-Luc", "Søren", "李", "O'Brien", `"Ace"`}[g.r.IntN(8)])
		b.WriteString(`}`)
		if g.r.IntN(4) > 0 {
			field("active")
			b.WriteString(`{"BOOL":` + strconv.FormatBool(g.r.IntN(4) > 0) + `}`)
		}
		if g.r.IntN(3) == 0 {
			field("tags")
			b.WriteString(`{"SS":[`)
			for k := range 1 + g.r.IntN(2) {
				if k > 0 {
					b.WriteByte(',')
				}
				g.str(b, genWords[g.r.IntN(len(genWords))])
			}
			b.WriteString(`]}`)
		}
		if g.r.IntN(5) == 0 {
			field("prefs")
			fmt.Fprintf(b, `{"M":{"lang":{"S":"%s"},"n":{"N":"%d"}}}`, []string{"fr", "en", "de", "ja"}[g.r.IntN(4)], g.r.IntN(10))
		}
	}
}

// record writes one stream record of view type view. With random set,
// the images are random items (for tests) instead of entities.
func (g *gen) record(b *bytes.Buffer, seq int, view string, random bool) {
	ev := []string{"INSERT", "INSERT", "MODIFY", "MODIFY", "REMOVE"}[g.r.IntN(5)]
	ttl := ev == "REMOVE" && g.r.IntN(3) == 0
	pk := g.partitionKey()
	sk := g.number()
	if !random {
		sk = strconv.Itoa(seq*7 + g.r.IntN(5))
	}
	keyAttrs := func(b *bytes.Buffer) {
		b.WriteString(`"pk":{"S":`)
		g.str(b, pk)
		b.WriteString(`},"sk":{"N":"` + sk + `"}`)
	}
	image := func(b *bytes.Buffer) {
		b.WriteByte('{')
		keyAttrs(b)
		if !random {
			g.entity(b, pk)
		} else if body := g.item(1+g.r.IntN(2), 2); len(body) > 2 {
			b.WriteByte(',')
			b.Write(body[1 : len(body)-1])
		}
		b.WriteByte('}')
	}
	fmt.Fprintf(b, `{"eventID":"%016x%016x","eventName":"%s","eventVersion":"1.1","eventSource":"aws:dynamodb","awsRegion":"us-east-1",`,
		g.r.Uint64(), g.r.Uint64(), ev)
	if g.r.IntN(10) == 0 {
		fmt.Fprintf(b, `"dynamodb":{"ApproximateCreationDateTime":%d.%03d,"Keys":{`, 1763805600+seq/50, g.r.IntN(1000))
	} else {
		fmt.Fprintf(b, `"dynamodb":{"ApproximateCreationDateTime":%d,"Keys":{`, 1763805600+seq/50)
	}
	keyAttrs(b)
	b.WriteByte('}')
	newImage := ev != "REMOVE" && (view == "NEW_IMAGE" || view == "NEW_AND_OLD_IMAGES")
	oldImage := ev != "INSERT" && (view == "OLD_IMAGE" || view == "NEW_AND_OLD_IMAGES")
	if newImage {
		b.WriteString(`,"NewImage":`)
		image(b)
	}
	if oldImage {
		b.WriteString(`,"OldImage":`)
		image(b)
	}
	fmt.Fprintf(b, `,"SequenceNumber":"4000%017d","SizeBytes":%d,"StreamViewType":"%s"},`, seq, 50+g.r.IntN(900), view)
	if ttl {
		b.WriteString(`"userIdentity":{"type":"Service","principalId":"dynamodb.amazonaws.com"},`)
	}
	b.WriteString(`"eventSourceARN":"arn:aws:dynamodb:us-east-1:123456789012:table/Orders/stream/2026-11-22T10:00:00.000"}`)
}

// batch returns a DynamoDBEvent of n records whose images are random
// items: every type, nesting, escapes, unicode. For tests.
func (g *gen) batch(n int, view string) []byte { return g.event(n, view, true) }

// realistic returns a DynamoDBEvent of n records of a table in
// single-table design: entities with their own attributes. For benchmarks.
func (g *gen) realistic(n int, view string) []byte { return g.event(n, view, false) }

func (g *gen) event(n int, view string, random bool) []byte {
	var b bytes.Buffer
	b.WriteString(`{"Records":[`)
	for k := range n {
		if k > 0 {
			b.WriteByte(',')
		}
		g.record(&b, k, view, random)
	}
	b.WriteString(`]}`)
	return b.Bytes()
}

// benchBatch is the benchmark batch of README and docs/performance.md:
// 10,000 NEW_AND_OLD_IMAGES records of a realistic table, about 6 MB.
func benchBatch() []byte { return newGen(2026).realistic(10000, "NEW_AND_OLD_IMAGES") }
