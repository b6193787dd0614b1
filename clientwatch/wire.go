package clientwatch

import (
	"bytes"
	"context"
	"errors"
	"io"
	"strconv"
	"sync"
	"unsafe"

	"github.com/aws/smithy-go/middleware"
	smithyhttp "github.com/aws/smithy-go/transport/http"

	"github.com/hotkeys-dev/hotkeys/internal/jsonscan"
)

// When the caller did not ask for ConsumedCapacity, the middleware asks for
// it, and must take it out again before the caller sees it. Taking it out
// of the decoded output would let the SDK decode it first: about nine
// allocations per call (a generic JSON map, then the typed structs). So it
// is taken out of the response body instead, by a Deserialize-step
// middleware that sits just inside the SDK's OperationDeserializer: it
// reads the body into a pooled buffer, reads the top-level ConsumedCapacity
// member with the zero-allocation scanner of internal/jsonscan, and hands
// the SDK the body without it, which is byte for byte what DynamoDB sends
// a caller who did not ask. It sits outside the middlewares that check the body's CRC32
// (X-Amz-Crc32, over the bytes on the wire) and decompress gzip, so the
// checksum is computed on the body as sent, and the scanner sees JSON.
// Error responses, and bodies the scanner cannot read, pass through as they
// came: the Initialize step then strips the decoded member as before.
//
// The Initialize step tells this middleware that it asked through the
// context, with one allocation that holds both the context and the copy of
// the input that carries ReturnConsumedCapacity (askCtx).

// wireKey is the context key under which a call's *wireState is found.
type wireKey struct{}

// askCtx is the context of a call the middleware asked capacity for, and
// the input it asked with: one allocation for both.
type askCtx[T any] struct {
	context.Context
	in T
	st *wireState
}

func (c *askCtx[T]) Value(key any) any {
	if key == (wireKey{}) {
		return c.st
	}
	return c.Context.Value(key)
}

// wireCap is one ConsumedCapacity object read off the wire: its table name
// (in wireState.names) and its units, the table's own when DynamoDB broke
// them down, else the total.
type wireCap struct {
	nameStart, nameEnd int
	units              float64
}

// wireState is one call's scratch for the response body and the capacity
// read from it; pooled, so that a call allocates none of it.
type wireState struct {
	buf   []byte
	body  wireBody
	caps  []wireCap
	names []byte
	ok    bool // caps hold what DynamoDB reported; the body lacks it

	// One scanner per level: the body, a ConsumedCapacity object, its
	// Table object.
	sc, sc1, sc2 jsonscan.Scanner
}

var wireStates = sync.Pool{New: func() any { return new(wireState) }}

func getWireState() *wireState { return wireStates.Get().(*wireState) }

// release returns st to the pool; the body handed to the SDK must have
// been read by then (the call has returned).
func (st *wireState) release() {
	if cap(st.buf) > 1<<20 {
		return // an unusually large page: let it go rather than pin it
	}
	st.body = wireBody{}
	st.ok = false
	wireStates.Put(st)
}

// wireBody is the body the SDK reads: the buffered bytes, then the read
// error the original body ended with, if any; closing it closes the
// original (which is where the SDK's CRC32 check reports).
type wireBody struct {
	r    bytes.Reader
	err  error
	orig io.ReadCloser
}

func (b *wireBody) Read(p []byte) (int, error) {
	n, err := b.r.Read(p)
	if err == io.EOF && b.err != nil {
		err = b.err
	}
	return n, err
}

func (b *wireBody) Close() error { return b.orig.Close() }

// stripCapacityWire is the Deserialize-step middleware.
type stripCapacityWire struct{}

func (stripCapacityWire) ID() string { return "HotkeysClientWatchCapacity" }

func (stripCapacityWire) HandleDeserialize(ctx context.Context, in middleware.DeserializeInput, next middleware.DeserializeHandler) (
	out middleware.DeserializeOutput, md middleware.Metadata, err error,
) {
	out, md, err = next.HandleDeserialize(ctx, in)
	if err != nil {
		return out, md, err
	}
	st, _ := ctx.Value(wireKey{}).(*wireState)
	if st == nil {
		return out, md, err
	}
	st.ok = false // a retried attempt starts over
	if resp, ok := out.RawResponse.(*smithyhttp.Response); ok && resp.StatusCode == 200 && resp.Body != nil {
		st.take(resp)
	}
	return out, md, err
}

// take reads resp's body, takes ConsumedCapacity out of it and gives the
// SDK what is left.
func (st *wireState) take(resp *smithyhttp.Response) {
	buf := st.buf[:0]
	var rerr error
	for {
		if len(buf) == cap(buf) {
			buf = append(buf, 0)[:len(buf)]
		}
		n, err := resp.Body.Read(buf[len(buf):cap(buf)])
		buf = buf[:len(buf)+n]
		if err != nil {
			if err != io.EOF {
				rerr = err
			}
			break
		}
	}
	st.buf = buf
	if rerr == nil {
		if start, end, ok := st.read(buf); ok {
			buf = append(buf[:start], buf[end:]...)
			st.ok = true
		}
	}
	st.body.r.Reset(buf)
	st.body.err, st.body.orig = rerr, resp.Body
	resp.Body = &st.body
	if resp.ContentLength >= 0 {
		resp.ContentLength = int64(len(buf))
	}
}

var errSkip = errors.New("clientwatch: not a capacity object")

// read finds the top-level ConsumedCapacity member of body, reads it into
// st.caps, and returns the span to cut out of the body (the member and one
// comma beside it). ok is false when body is not a JSON object, has no
// such member, or holds one the scanner cannot read: then nothing is cut.
func (st *wireState) read(body []byte) (start, end int, ok bool) {
	st.caps, st.names = st.caps[:0], st.names[:0]
	prevEnd, found, afterNext := -1, false, false
	var vs, ve int
	err := st.sc.Members(body, func(name []byte, key, s, e int) error {
		if afterNext {
			end, afterNext = key, false // the member was first: cut up to the next one
		}
		if string(name) == "ConsumedCapacity" {
			if found {
				return errSkip // twice: leave such a body to the SDK
			}
			found, vs, ve = true, s, e
			if prevEnd >= 0 {
				start, end = prevEnd, e // `,"ConsumedCapacity":…`
			} else {
				start, end, afterNext = key, e, true
			}
		}
		prevEnd = e
		return nil
	})
	if err != nil || !found {
		return 0, 0, false
	}
	// The value: one object (single-table calls) or an array of them.
	v := body[vs:ve]
	switch v[0] {
	case '{':
		if !st.readCapacity(v) {
			return 0, 0, false
		}
	case '[':
		if st.sc.Elements(v, func(s, e int) error {
			if !st.readCapacity(v[s:e]) {
				return errSkip
			}
			return nil
		}) != nil {
			return 0, 0, false
		}
	default:
		return 0, 0, false
	}
	return start, end, true
}

// readCapacity reads one ConsumedCapacity object: TableName, and the
// table's own CapacityUnits when there, else the total CapacityUnits.
func (st *wireState) readCapacity(obj []byte) bool {
	if len(obj) == 0 || obj[0] != '{' {
		return false
	}
	c := wireCap{nameStart: len(st.names), nameEnd: len(st.names)}
	var total, table float64
	haveTable := false
	err := st.sc1.Members(obj, func(name []byte, _, s, e int) error {
		v := obj[s:e]
		switch string(name) {
		case "TableName":
			if len(v) < 2 || v[0] != '"' || bytes.IndexByte(v, '\\') >= 0 {
				return errSkip // table names never need escapes
			}
			st.names = append(st.names, v[1:len(v)-1]...)
			c.nameEnd = len(st.names)
		case "CapacityUnits":
			f, ok := number(v)
			if !ok {
				return errSkip
			}
			total = f
		case "Table":
			units, present, ok := st.tableUnits(v)
			if !ok {
				return errSkip
			}
			table, haveTable = units, present
		}
		return nil
	})
	if err != nil {
		return false
	}
	c.units = total
	if haveTable {
		c.units = table
	}
	st.caps = append(st.caps, c)
	return true
}

// tableUnits reads the CapacityUnits of a Capacity object
// ({"CapacityUnits":…,"ReadCapacityUnits":…,…}), if it has one.
func (st *wireState) tableUnits(obj []byte) (units float64, present, ok bool) {
	if len(obj) == 0 || obj[0] != '{' {
		return 0, false, false
	}
	err := st.sc2.Members(obj, func(name []byte, _, s, e int) error {
		if string(name) == "CapacityUnits" {
			var valid bool
			if units, valid = number(obj[s:e]); !valid {
				return errSkip
			}
			present = true
		}
		return nil
	})
	return units, present, err == nil
}

// number parses a JSON number (the scanner has validated it) without
// copying it into a string.
func number(b []byte) (float64, bool) {
	if len(b) == 0 || (b[0] != '-' && (b[0] < '0' || b[0] > '9')) {
		return 0, false
	}
	f, err := strconv.ParseFloat(unsafe.String(&b[0], len(b)), 64)
	return f, err == nil
}
