package main

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"math"
	"sort"
	"strings"
	"time"
	"unicode/utf8"
)

// The oracle: an independent, deliberately plain reading of a Lambda
// DynamoDB Streams event, written from AWS's documentation and sharing no
// code with record/, sketch/ or detector/. It decodes with encoding/json,
// sizes items by the documented rules (numbers by DynamoDB Local's rule,
// see docs/record.md), and counts every key exactly, so the function's figures
// are checked against truth, never against the function's own output.

// oracleEvent is the JSON of events.DynamoDBEvent and
// events.DynamoDBTimeWindowEvent, as far as the oracle needs it.
type oracleEvent struct {
	Records []oracleRecord `json:"Records"`
	Window  *struct {
		Start time.Time `json:"start"`
		End   time.Time `json:"end"`
	} `json:"window"`
	State   map[string]string `json:"state"`
	ShardID string            `json:"shardId"`
	Final   bool              `json:"isFinalInvokeForWindow"`
	Early   bool              `json:"isWindowTerminatedEarly"`
}

type oracleRecord struct {
	EventID        string `json:"eventID"`
	EventName      string `json:"eventName"`
	EventSourceARN string `json:"eventSourceARN"`
	Dynamodb       struct {
		ApproximateCreationDateTime float64                    `json:"ApproximateCreationDateTime"`
		Keys                        map[string]json.RawMessage `json:"Keys"`
		NewImage                    map[string]json.RawMessage `json:"NewImage"`
		OldImage                    map[string]json.RawMessage `json:"OldImage"`
		SequenceNumber              string                     `json:"SequenceNumber"`
		StreamViewType              string                     `json:"StreamViewType"`
	} `json:"dynamodb"`
	UserIdentity *struct {
		Type        string `json:"type"`
		PrincipalID string `json:"principalId"`
	} `json:"userIdentity"`
}

// truth is what the oracle finds in one window's records.
type truth struct {
	Records, WCU, TTLDeletes, Malformed uint64
	LowerBound                          bool
	Keys                                map[string]*keyTruth
	PerSecond                           map[int64]uint64 // all keys: the stream shard's load
}

type keyTruth struct {
	WCU       uint64
	PerSecond map[int64]uint64
	Items     map[string]bool // sort-key values seen
}

func (k *keyTruth) peak() uint64 {
	var p uint64
	for _, w := range k.PerSecond {
		p = max(p, w)
	}
	return p
}

// flagged is the set of physical keys the documented thresholds flag, with
// their severity, judged on the exact figures.
func (t *truth) flagged(share, minRate, critical float64) map[string]string {
	out := map[string]string{}
	for key, k := range t.Keys {
		s := float64(k.WCU) / float64(t.WCU)
		p := float64(k.peak())
		switch {
		case p >= critical:
			out[key] = "critical"
		case s >= share && p >= minRate:
			out[key] = "warning"
		}
	}
	return out
}

func (t *truth) shardPeak() uint64 {
	var p uint64
	for _, w := range t.PerSecond {
		p = max(p, w)
	}
	return p
}

// keysOf lists the partition-key values, for the redaction test.
func (t *truth) keysOf() []string {
	var out []string
	for k := range t.Keys {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// analyse reads the records of events (one window's worth) with pkName as
// the partition-key attribute.
func analyse(pkName string, events ...[]byte) (*truth, error) {
	t := &truth{Keys: map[string]*keyTruth{}, PerSecond: map[int64]uint64{}}
	for _, payload := range events {
		var ev oracleEvent
		if err := json.Unmarshal(payload, &ev); err != nil {
			return nil, err
		}
		for i := range ev.Records {
			t.add(pkName, &ev.Records[i])
		}
	}
	return t, nil
}

func (t *truth) add(pkName string, r *oracleRecord) {
	d := &r.Dynamodb
	pkRaw, ok := d.Keys[pkName]
	if !ok || (r.EventName != "INSERT" && r.EventName != "MODIFY" && r.EventName != "REMOVE") {
		t.Malformed++
		return
	}
	pk, err := keyString(pkRaw)
	if err != nil {
		t.Malformed++
		return
	}
	keys, err1 := itemSize(d.Keys)
	newSize, err2 := itemSize(d.NewImage)
	oldSize, err3 := itemSize(d.OldImage)
	if err1 != nil || err2 != nil || err3 != nil {
		t.Malformed++
		return
	}
	ttl := r.EventName == "REMOVE" && r.UserIdentity != nil &&
		r.UserIdentity.Type == "Service" && r.UserIdentity.PrincipalID == "dynamodb.amazonaws.com"
	var wcu uint64
	if !ttl {
		// The images a write needs to be sized exactly: INSERT the new
		// item, REMOVE the old one, MODIFY both (the larger is charged).
		needNew := r.EventName != "REMOVE"
		needOld := r.EventName != "INSERT"
		exact := (!needNew || d.NewImage != nil) && (!needOld || d.OldImage != nil)
		size := max(keys, newSize, oldSize)
		if !exact {
			t.LowerBound = true
		}
		wcu = max(1, uint64(math.Ceil(float64(size)/1024)))
	} else {
		t.TTLDeletes++
	}
	t.Records++
	t.WCU += wcu
	k := t.Keys[pk]
	if k == nil {
		k = &keyTruth{PerSecond: map[int64]uint64{}, Items: map[string]bool{}}
		t.Keys[pk] = k
	}
	k.WCU += wcu
	sec := int64(math.Floor(d.ApproximateCreationDateTime))
	k.PerSecond[sec] += wcu
	t.PerSecond[sec] += wcu
	for name, v := range d.Keys {
		if name != pkName {
			k.Items[string(v)] = true
		}
	}
}

// keyString renders a key attribute as reports do: S as is, N canonical
// (the samples use plain integers), B as standard base64.
func keyString(raw json.RawMessage) (string, error) {
	var v map[string]string
	if err := json.Unmarshal(raw, &v); err != nil || len(v) != 1 {
		return "", fmt.Errorf("oracle: key %s", raw)
	}
	for tag, s := range v {
		switch tag {
		case "S", "N":
			return s, nil
		case "B":
			return s, nil
		}
	}
	return "", fmt.Errorf("oracle: key %s", raw)
}

// itemSize is the documented item size: the UTF-8 bytes of each attribute
// name plus the size of its value. A nil map is 0.
func itemSize(item map[string]json.RawMessage) (int, error) {
	n := 0
	for name, v := range item {
		s, err := valueSize(v)
		if err != nil {
			return 0, fmt.Errorf("%s: %w", name, err)
		}
		n += len(name) + s
	}
	return n, nil
}

func valueSize(raw json.RawMessage) (int, error) {
	var v map[string]json.RawMessage
	if err := json.Unmarshal(raw, &v); err != nil || len(v) != 1 {
		return 0, fmt.Errorf("not an attribute value: %s", raw)
	}
	for tag, body := range v {
		switch tag {
		case "S":
			var s string
			err := json.Unmarshal(body, &s)
			return len(s), err
		case "N":
			var s string
			if err := json.Unmarshal(body, &s); err != nil {
				return 0, err
			}
			return numberSize(s)
		case "B":
			var s string
			if err := json.Unmarshal(body, &s); err != nil {
				return 0, err
			}
			b, err := base64.StdEncoding.DecodeString(s)
			return len(b), err
		case "BOOL", "NULL":
			return 1, nil
		case "SS", "NS", "BS":
			var list []string
			if err := json.Unmarshal(body, &list); err != nil {
				return 0, err
			}
			n := 0
			for _, s := range list {
				switch tag {
				case "SS":
					n += len(s)
				case "NS":
					k, err := numberSize(s)
					if err != nil {
						return 0, err
					}
					n += k
				case "BS":
					b, err := base64.StdEncoding.DecodeString(s)
					if err != nil {
						return 0, err
					}
					n += len(b)
				}
			}
			return n, nil
		case "L":
			var list []json.RawMessage
			if err := json.Unmarshal(body, &list); err != nil {
				return 0, err
			}
			n := 3 + len(list)
			for _, e := range list {
				k, err := valueSize(e)
				if err != nil {
					return 0, err
				}
				n += k
			}
			return n, nil
		case "M":
			var m map[string]json.RawMessage
			if err := json.Unmarshal(body, &m); err != nil {
				return 0, err
			}
			k, err := itemSize(m)
			return 3 + len(m) + k, err
		}
		return 0, fmt.Errorf("unknown type %q", tag)
	}
	panic("unreachable")
}

// numberSize is DynamoDB Local's number size for plain decimals (the
// samples use no exponents): 1 byte, plus one per base-100 digit pair
// aligned on the decimal point with leading and trailing zero pairs
// dropped, plus 1 when negative. Zero is 1 byte.
func numberSize(s string) (int, error) {
	neg := strings.HasPrefix(s, "-")
	s = strings.TrimLeft(s, "+-")
	intPart, frac, _ := strings.Cut(s, ".")
	if strings.ContainsAny(intPart+frac, "eE") || intPart+frac == "" || !utf8.ValidString(s) {
		return 0, fmt.Errorf("oracle: number %q not supported", s)
	}
	for _, c := range intPart + frac {
		if c < '0' || c > '9' {
			return 0, fmt.Errorf("oracle: number %q", s)
		}
	}
	if len(intPart)%2 == 1 {
		intPart = "0" + intPart
	}
	if len(frac)%2 == 1 {
		frac += "0"
	}
	digits := intPart + frac
	var pairs []string
	for i := 0; i < len(digits); i += 2 {
		pairs = append(pairs, digits[i:i+2])
	}
	for len(pairs) > 0 && pairs[0] == "00" {
		pairs = pairs[1:]
	}
	for len(pairs) > 0 && pairs[len(pairs)-1] == "00" {
		pairs = pairs[:len(pairs)-1]
	}
	if len(pairs) == 0 {
		return 1, nil
	}
	n := 1 + len(pairs)
	if neg {
		n++
	}
	return n, nil
}
