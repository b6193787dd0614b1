package record

// An independent, deliberately plain implementation of DynamoDB's size
// rules: encoding/json to read the item. It shares no code with the
// package; the tests and fuzzers check both scanners against it.

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/hotkeys-dev/hotkeys/ddb"
)

var errRef = errors.New("reference: invalid")

// Numbers are ddb's: its tests hold NumberSize and CanonicalNumber to a
// math/big reference of their own.
func refNumberSize(s string) (int, error) { return ddb.NumberSize(s) }

func refCanonical(s string) (string, error) {
	c, err := ddb.CanonicalNumber(nil, []byte(s))
	return string(c), err
}

// refItemSize sizes an item with encoding/json.
func refItemSize(data []byte) (int, error) {
	if bytes.Equal(bytes.TrimSpace(data), []byte("null")) {
		return 0, errRef
	}
	var item map[string]json.RawMessage
	if err := json.Unmarshal(data, &item); err != nil {
		return 0, err
	}
	total := 0
	for name, raw := range item {
		n, err := refValueSize(raw, 0)
		if err != nil {
			return 0, err
		}
		total += len(name) + n
	}
	return total, nil
}

func isNull(raw json.RawMessage) bool { return string(bytes.TrimSpace(raw)) == "null" }

// strict unmarshals raw into v, refusing null (which encoding/json would
// quietly accept as a zero value).
func strict(raw json.RawMessage, v any) error {
	if isNull(raw) {
		return errRef
	}
	return json.Unmarshal(raw, v)
}

func refValueSize(raw json.RawMessage, depth int) (int, error) {
	var av map[string]json.RawMessage
	if err := strict(raw, &av); err != nil || len(av) != 1 {
		return 0, errRef
	}
	for tag, v := range av {
		switch tag {
		case "S":
			var s string
			err := strict(v, &s)
			return len(s), err
		case "N":
			var s string
			if err := strict(v, &s); err != nil {
				return 0, err
			}
			return refNumberSize(s)
		case "B":
			var s string // not []byte: encoding/json would take an array of numbers too
			if err := strict(v, &s); err != nil {
				return 0, err
			}
			b, err := base64.StdEncoding.DecodeString(s)
			return len(b), err
		case "BOOL", "NULL":
			var b bool
			return 1, strict(v, &b)
		case "SS", "NS", "BS":
			var elems []json.RawMessage
			if err := strict(v, &elems); err != nil {
				return 0, err
			}
			total := 0
			for _, e := range elems {
				n, err := refValueSize(json.RawMessage(fmt.Sprintf(`{%q:%s}`, tag[:1], e)), depth)
				if err != nil {
					return 0, err
				}
				total += n
			}
			return total, nil
		case "L":
			if depth >= 64 {
				return 0, errRef
			}
			var elems []json.RawMessage
			if err := strict(v, &elems); err != nil {
				return 0, err
			}
			total := 3
			for _, e := range elems {
				n, err := refValueSize(e, depth+1)
				if err != nil {
					return 0, err
				}
				total += 1 + n
			}
			return total, nil
		case "M":
			if depth >= 64 {
				return 0, errRef
			}
			var m map[string]json.RawMessage
			if err := strict(v, &m); err != nil {
				return 0, err
			}
			total := 3
			for name, e := range m {
				n, err := refValueSize(e, depth+1)
				if err != nil {
					return 0, err
				}
				total += 1 + len(name) + n
			}
			return total, nil
		}
	}
	return 0, errRef
}

// hasDuplicateKeys reports whether any object in data repeats a key, or
// data is not JSON: encoding/json keeps only the last of duplicates, so
// the reference cannot be compared on such input.
func hasDuplicateKeys(data []byte) bool {
	dec := json.NewDecoder(bytes.NewReader(data))
	type frame struct {
		obj    bool
		keys   map[string]bool
		expKey bool
	}
	var st []*frame
	for {
		tok, err := dec.Token()
		if err != nil {
			return err.Error() != "EOF"
		}
		var top *frame
		if len(st) > 0 {
			top = st[len(st)-1]
		}
		if top != nil && top.obj && top.expKey {
			if k, ok := tok.(string); ok {
				if top.keys[k] {
					return true
				}
				top.keys[k] = true
				top.expKey = false
				continue
			}
		}
		switch tok {
		case json.Delim('{'):
			if top != nil && top.obj {
				top.expKey = true
			}
			st = append(st, &frame{obj: true, keys: map[string]bool{}, expKey: true})
			continue
		case json.Delim('['):
			if top != nil && top.obj {
				top.expKey = true
			}
			st = append(st, &frame{})
			continue
		case json.Delim('}'), json.Delim(']'):
			st = st[:len(st)-1]
			continue
		}
		if top != nil && top.obj {
			top.expKey = true
		}
	}
}
