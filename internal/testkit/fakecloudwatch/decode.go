package fakecloudwatch

import (
	"errors"
	"fmt"
	"math"
	"strings"
	"time"

	"github.com/aws/smithy-go/encoding/cbor"
)

// Request is one accepted PutMetricData call.
type Request struct {
	Namespace string
	Data      []Datum
	// ContentEncoding is the request's Content-Encoding ("gzip" or "").
	ContentEncoding string
	// WireBytes is the body as received; BodyBytes the CBOR after gunzip.
	WireBytes, BodyBytes int
}

// Datum is one MetricDatum as it arrived.
type Datum struct {
	Namespace  string // the request's, repeated for convenience
	MetricName string
	Dimensions []Dimension
	Value      float64
	HasValue   bool
	Values     []float64
	Counts     []float64
	Timestamp  time.Time // zero when absent
	Unit       string    // "" when absent
	// StorageResolution is 0 when absent (CloudWatch then uses 60).
	StorageResolution int
}

// Dimension is a name/value pair.
type Dimension struct{ Name, Value string }

// Dimension returns the value of the named dimension, or "".
func (d Datum) Dimension(name string) string {
	for _, dim := range d.Dimensions {
		if dim.Name == name {
			return dim.Value
		}
	}
	return ""
}

// Decode decodes a PutMetricData request body (uncompressed CBOR).
func Decode(body []byte) (Request, error) {
	v, err := cbor.Decode(body)
	if err != nil {
		return Request{}, fmt.Errorf("fakecloudwatch: cbor: %w", err)
	}
	m, ok := v.(cbor.Map)
	if !ok {
		return Request{}, fmt.Errorf("fakecloudwatch: body is a %T, want a map", v)
	}
	req := Request{BodyBytes: len(body)}
	for k, v := range m {
		switch k {
		case "Namespace":
			if req.Namespace, err = asString(v); err != nil {
				return Request{}, fmt.Errorf("fakecloudwatch: Namespace: %w", err)
			}
		case "MetricData":
			list, ok := v.(cbor.List)
			if !ok {
				return Request{}, fmt.Errorf("fakecloudwatch: MetricData is a %T", v)
			}
			for i, item := range list {
				d, err := decodeDatum(item)
				if err != nil {
					return Request{}, fmt.Errorf("fakecloudwatch: MetricData[%d]: %w", i, err)
				}
				req.Data = append(req.Data, d)
			}
		case "EntityMetricData", "StrictEntityValidation":
			return Request{}, fmt.Errorf("fakecloudwatch: %s is not supported by the fake", k)
		default:
			return Request{}, fmt.Errorf("fakecloudwatch: unknown member %q", k)
		}
	}
	for i := range req.Data {
		req.Data[i].Namespace = req.Namespace
	}
	return req, nil
}

func decodeDatum(v cbor.Value) (Datum, error) {
	m, ok := v.(cbor.Map)
	if !ok {
		return Datum{}, fmt.Errorf("a %T, want a map", v)
	}
	var d Datum
	var err error
	for k, v := range m {
		switch k {
		case "MetricName":
			d.MetricName, err = asString(v)
		case "Unit":
			d.Unit, err = asString(v)
		case "Value":
			d.Value, err = cbor.AsFloat64(v)
			d.HasValue = err == nil
		case "Values":
			d.Values, err = asFloats(v)
		case "Counts":
			d.Counts, err = asFloats(v)
		case "Timestamp":
			d.Timestamp, err = asTime(v)
		case "StorageResolution":
			var r int32
			r, err = cbor.AsInt32(v)
			d.StorageResolution = int(r)
		case "Dimensions":
			d.Dimensions, err = asDimensions(v)
		default:
			err = errors.New("unknown or unsupported member")
		}
		if err != nil {
			return Datum{}, fmt.Errorf("%s: %w", k, err)
		}
	}
	return d, nil
}

func asString(v cbor.Value) (string, error) {
	s, ok := v.(cbor.String)
	if !ok {
		return "", fmt.Errorf("a %T, want a string", v)
	}
	return string(s), nil
}

func asFloats(v cbor.Value) ([]float64, error) {
	list, ok := v.(cbor.List)
	if !ok {
		return nil, fmt.Errorf("a %T, want a list", v)
	}
	out := make([]float64, len(list))
	for i, item := range list {
		f, err := cbor.AsFloat64(item)
		if err != nil {
			return nil, err
		}
		out[i] = f
	}
	return out, nil
}

// asTime reads an epoch-seconds timestamp (tag 1), rounding to the
// millisecond the way the client wrote it.
func asTime(v cbor.Value) (time.Time, error) {
	tag, ok := v.(*cbor.Tag)
	if !ok || tag.ID != 1 {
		return time.Time{}, fmt.Errorf("a %T, want an epoch timestamp (tag 1)", v)
	}
	secs, err := cbor.AsFloat64(tag.Value)
	if err != nil {
		return time.Time{}, err
	}
	if math.IsNaN(secs) || math.Abs(secs) > 1e12 {
		return time.Time{}, fmt.Errorf("timestamp %v out of range", secs)
	}
	return time.UnixMilli(int64(math.Round(secs * 1e3))).UTC(), nil
}

func asDimensions(v cbor.Value) ([]Dimension, error) {
	list, ok := v.(cbor.List)
	if !ok {
		return nil, fmt.Errorf("a %T, want a list", v)
	}
	out := make([]Dimension, len(list))
	for i, item := range list {
		m, ok := item.(cbor.Map)
		if !ok {
			return nil, fmt.Errorf("[%d]: a %T, want a map", i, item)
		}
		for k, v := range m {
			var err error
			switch k {
			case "Name":
				out[i].Name, err = asString(v)
			case "Value":
				out[i].Value, err = asString(v)
			default:
				err = errors.New("unknown member")
			}
			if err != nil {
				return nil, fmt.Errorf("[%d].%s: %w", i, k, err)
			}
		}
	}
	return out, nil
}

// CloudWatch's standard units.
var standardUnits = map[string]bool{
	"Seconds": true, "Microseconds": true, "Milliseconds": true, "Bytes": true, "Kilobytes": true,
	"Megabytes": true, "Gigabytes": true, "Terabytes": true, "Bits": true, "Kilobits": true,
	"Megabits": true, "Gigabits": true, "Terabits": true, "Percent": true, "Count": true,
	"Bytes/Second": true, "Kilobytes/Second": true, "Megabytes/Second": true, "Gigabytes/Second": true,
	"Terabytes/Second": true, "Bits/Second": true, "Kilobits/Second": true, "Megabits/Second": true,
	"Gigabits/Second": true, "Terabits/Second": true, "Count/Second": true, "None": true,
}

// Validate applies CloudWatch's PutMetricData rules, as documented, with now
// as the server's clock: the first broken rule is the error.
func (r *Request) Validate(now time.Time) error {
	if err := checkName("Namespace", r.Namespace, 255); err != nil {
		return err
	}
	if strings.HasPrefix(r.Namespace, "AWS/") {
		return fmt.Errorf("namespace %q: AWS/ is reserved", r.Namespace)
	}
	if len(r.Data) == 0 || len(r.Data) > 1000 {
		return fmt.Errorf("MetricData: %d items, want 1 to 1000", len(r.Data))
	}
	for i := range r.Data {
		if err := r.Data[i].validate(now); err != nil {
			return fmt.Errorf("MetricData[%d]: %w", i, err)
		}
	}
	return nil
}

func (d *Datum) validate(now time.Time) error {
	if err := checkName("MetricName", d.MetricName, 255); err != nil {
		return err
	}
	if len(d.Dimensions) > 30 {
		return fmt.Errorf("%d dimensions, at most 30", len(d.Dimensions))
	}
	for _, dim := range d.Dimensions {
		if err := checkName("dimension name", dim.Name, 255); err != nil {
			return err
		}
		if err := checkValue("dimension "+dim.Name, dim.Value, 1024); err != nil {
			return err
		}
	}
	if !d.HasValue && len(d.Values) == 0 {
		return errors.New("neither Value nor Values")
	}
	if d.HasValue && len(d.Values) > 0 {
		return errors.New("both Value and Values")
	}
	if len(d.Counts) > 0 && len(d.Counts) != len(d.Values) {
		return errors.New("the Counts and Values lists differ in length")
	}
	if len(d.Values) > 150 {
		return fmt.Errorf("%d Values, at most 150", len(d.Values))
	}
	vals := d.Values
	if d.HasValue {
		vals = []float64{d.Value}
	}
	for _, v := range vals {
		if math.IsNaN(v) || math.IsInf(v, 0) || math.Abs(v) > 0x1p360 || (v != 0 && math.Abs(v) < 0x1p-260) {
			return fmt.Errorf("value %v is not accepted by CloudWatch", v)
		}
	}
	if !d.Timestamp.IsZero() {
		if age := now.Sub(d.Timestamp); age > 14*24*time.Hour || age < -2*time.Hour {
			return fmt.Errorf("timestamp %v outside two weeks back to two hours ahead of %v", d.Timestamp, now)
		}
	}
	if d.StorageResolution != 0 && d.StorageResolution != 1 && d.StorageResolution != 60 {
		return fmt.Errorf("storage resolution %d, want 1 or 60", d.StorageResolution)
	}
	if d.Unit != "" && !standardUnits[d.Unit] {
		return fmt.Errorf("unit %q is not a standard unit", d.Unit)
	}
	return nil
}

// checkName: 1–max ASCII characters, no control characters, at least one
// non-whitespace character, not starting with ':'.
func checkName(what, s string, max int) error {
	if err := checkValue(what, s, max); err != nil {
		return err
	}
	if s[0] == ':' {
		return fmt.Errorf("%s %q starts with ':'", what, s)
	}
	return nil
}

// checkValue: 1–max ASCII characters, no control characters, at least one
// non-whitespace character.
func checkValue(what, s string, max int) error {
	if len(s) == 0 || len(s) > max {
		return fmt.Errorf("%s: length %d, want 1 to %d", what, len(s), max)
	}
	for i := 0; i < len(s); i++ {
		if s[i] < 0x20 || s[i] > 0x7e {
			return fmt.Errorf("%s %q: byte %#x at %d is not printable ASCII", what, s, s[i], i)
		}
	}
	if strings.TrimSpace(s) == "" {
		return fmt.Errorf("%s: only whitespace", what)
	}
	return nil
}
