package alert

import (
	"math"
	"strconv"
	"time"
)

// maxMetricsPerDirective is the EMF limit on the Metrics of one directive.
const maxMetricsPerDirective = 100

// appendEMF appends g as one Embedded Metric Format line, newline included:
//
//	{"_aws":{"Timestamp":ms,"CloudWatchMetrics":[{"Namespace":…,"Dimensions":[[…]],"Metrics":[{"Name":…,"Unit":…},…]}]},"TableName":…,"Metric":v,…}
//
// Members come in a fixed order (metadata, dimensions, then values in
// catalogue order), so the same input always yields the same bytes. A group
// with more than 100 values gets one directive per 100 metrics.
func appendEMF(b []byte, namespace string, resolution int, g *group) []byte {
	b = append(b, `{"_aws":{"Timestamp":`...)
	b = strconv.AppendInt(b, g.timestamp.UnixMilli(), 10)
	b = append(b, `,"CloudWatchMetrics":[`...)
	for start := 0; start < len(g.values); start += maxMetricsPerDirective {
		if start > 0 {
			b = append(b, ',')
		}
		b = append(b, `{"Namespace":`...)
		b = appendJSONString(b, namespace)
		b = append(b, `,"Dimensions":[[`...)
		for i, d := range g.dims {
			if i > 0 {
				b = append(b, ',')
			}
			b = appendJSONString(b, d.name)
		}
		b = append(b, ']')
		if g.alsoTable {
			b = append(b, `,["`+DimensionTableName+`"]`...)
		}
		b = append(b, `],"Metrics":[`...)
		for i, v := range g.values[start:min(start+maxMetricsPerDirective, len(g.values))] {
			if i > 0 {
				b = append(b, ',')
			}
			b = append(b, `{"Name":`...)
			b = appendJSONString(b, v.name)
			b = append(b, `,"Unit":`...)
			b = appendJSONString(b, v.unit)
			if resolution == 1 {
				b = append(b, `,"StorageResolution":1`...)
			}
			b = append(b, '}')
		}
		b = append(b, "]}"...)
	}
	b = append(b, "]}"...)
	for _, d := range g.dims {
		b = append(b, ',')
		b = appendJSONString(b, d.name)
		b = append(b, ':')
		b = appendJSONString(b, d.value)
	}
	for _, v := range g.values {
		b = append(b, ',')
		b = appendJSONString(b, v.name)
		b = append(b, ':')
		b = appendJSONNumber(b, v.v)
	}
	return append(b, "}\n"...)
}

// AppendEMFCount appends one EMF line, newline included, of a single
// Count metric name = n at t under one dimension, dimName = dimValue, at
// standard resolution: for the Lambda's own bookkeeping that no report
// carries (HistoryWriteErrors), so that every EMF line comes from one
// writer. dimValue must be what DimensionValue gives, or a table name.
func AppendEMFCount(b []byte, namespace string, t time.Time, dimName, dimValue, name string, n float64) []byte {
	return appendEMF(b, namespace, 60, &group{timestamp: t, dims: []dimension{{dimName, dimValue}}, values: []value{{name: name, unit: "Count", v: n}}})
}

// AppendEMFTableValue appends one EMF line, newline included, of a single
// metric name = v in unit at t, at standard resolution, for a table or,
// when index is not "", one of its indexes: the rollup function's daily
// MinDaysToLimit. An index's line carries TableName and IndexName, and
// TableName alone as a second dimension set, as the stream function emits
// an index's onsets, so that one alarm per table covers its indexes.
// table and index must be table and index names (DynamoDB's own
// characters), as they are.
func AppendEMFTableValue(b []byte, namespace string, t time.Time, table, index, name, unit string, v float64) []byte {
	g := &group{timestamp: t, dims: []dimension{{DimensionTableName, table}}, values: []value{{name: name, unit: unit, v: v}}}
	if index != "" {
		g.dims = append(g.dims, dimension{DimensionIndexName, index})
		g.alsoTable = true
	}
	return appendEMF(b, namespace, 60, g)
}

// appendJSONString quotes s for JSON. The strings it sees are names from the
// catalogue, the validated namespace and DimensionValue results: printable
// ASCII, so only quotes and backslashes need escaping; anything else is
// escaped as \u00XX to stay valid whatever comes in.
func appendJSONString(b []byte, s string) []byte {
	const hexDigits = "0123456789abcdef"
	b = append(b, '"')
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c == '"' || c == '\\':
			b = append(b, '\\', c)
		case c < 0x20 || c > 0x7e:
			b = append(b, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xf])
		default:
			b = append(b, c)
		}
	}
	return append(b, '"')
}

// appendJSONNumber formats a finite float as encoding/json does (shortest
// representation; exponent form only for very large or small magnitudes),
// so integers print as integers.
func appendJSONNumber(b []byte, f float64) []byte {
	a := math.Abs(f)
	if a != 0 && (a < 1e-6 || a >= 1e21) {
		n := len(b)
		b = strconv.AppendFloat(b, f, 'e', -1, 64)
		// Turn e-09 into e-9, as encoding/json does.
		if m := len(b) - n; m >= 4 && b[len(b)-4] == 'e' && b[len(b)-3] == '-' && b[len(b)-2] == '0' {
			b[len(b)-2] = b[len(b)-1]
			b = b[:len(b)-1]
		}
		return b
	}
	return strconv.AppendFloat(b, f, 'f', -1, 64)
}
