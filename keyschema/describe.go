package keyschema

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"

	"github.com/hotkeys-dev/hotkeys/ddb"
)

// ErrDescribeTableJSON is wrapped by ParseDescribeTable's errors.
var ErrDescribeTableJSON = errors.New("keyschema: not the output of `aws dynamodb describe-table`")

// maxDescribeTableJSON bounds what ParseDescribeTable reads: a real answer
// with 20 indexes of 100 projected attributes each is well under 1 MB.
const maxDescribeTableJSON = 4 << 20

// describeTableJSON is the part of describe-table's output hotkeys reads.
// The CLI prints the API's JSON as it stands (PascalCase members).
type describeTableJSON struct {
	Table *tableJSON
}

type tableJSON struct {
	TableName            *string
	KeySchema            []keyElementJSON
	AttributeDefinitions []struct {
		AttributeName string
		AttributeType string
	}
	GlobalSecondaryIndexes []indexJSON
	StreamSpecification    *struct {
		StreamEnabled  bool
		StreamViewType string
	}
	LatestStreamArn string
}

type indexJSON struct {
	IndexName  string
	KeySchema  []keyElementJSON
	Projection *struct {
		ProjectionType   string
		NonKeyAttributes []string
	}
}

type keyElementJSON struct {
	AttributeName string
	KeyType       string
}

// ParseDescribeTable reads the JSON that `aws dynamodb describe-table
// --table-name NAME` prints ({"Table": {...}}; the bare table description
// is accepted too) and returns the table's schema: its key, its global
// secondary indexes and its stream. Errors wrap ErrDescribeTableJSON,
// ErrNoKeySchema or ErrBadIndex, and say what is wrong.
func ParseDescribeTable(r io.Reader) (Schema, error) {
	t, err := readTableJSON(r)
	if err != nil {
		return Schema{}, err
	}
	return t.schema()
}

// readTableJSON reads describe-table's output: the table description in
// its {"Table": ...} envelope, or bare.
func readTableJSON(r io.Reader) (*tableJSON, error) {
	data, err := io.ReadAll(io.LimitReader(r, maxDescribeTableJSON+1))
	if err != nil {
		return nil, fmt.Errorf("keyschema: reading describe-table output: %w", err)
	}
	if len(data) > maxDescribeTableJSON {
		return nil, fmt.Errorf("%w: more than %d bytes", ErrDescribeTableJSON, maxDescribeTableJSON)
	}
	var doc describeTableJSON
	if err := decodeStrict(data, &doc); err != nil {
		return nil, err
	}
	if doc.Table != nil {
		return doc.Table, nil
	}
	var bare tableJSON // the bare TableDescription, as some tools save it
	if err := decodeStrict(data, &bare); err != nil {
		return nil, err
	}
	if bare.TableName == nil && len(bare.KeySchema) == 0 {
		return nil, fmt.Errorf("%w: no \"Table\" object (run `aws dynamodb describe-table --table-name NAME --output json`)", ErrDescribeTableJSON)
	}
	return &bare, nil
}

// schema is the schema the table description t gives: its key, its
// indexes and its stream.
func (t *tableJSON) schema() (Schema, error) {
	s := Schema{}
	if t.TableName != nil {
		s.Table = *t.TableName
	}
	for _, k := range t.KeySchema {
		switch k.KeyType {
		case "HASH":
			s.PartitionKey = k.AttributeName
		case "RANGE":
			s.SortKey = k.AttributeName
		default:
			return Schema{}, fmt.Errorf("%w: table %q: KeyType %q is not HASH or RANGE", ErrDescribeTableJSON, s.Table, k.KeyType)
		}
	}
	if s.PartitionKey == "" {
		return Schema{}, fmt.Errorf("%w: table %q: Table.KeySchema has no HASH attribute", ErrNoKeySchema, s.Table)
	}
	for _, a := range t.AttributeDefinitions {
		if a.AttributeName == s.PartitionKey {
			s.PartitionKeyType = a.AttributeType
		}
	}
	for _, g := range t.GlobalSecondaryIndexes {
		if err := s.addIndexJSON(g); err != nil {
			return Schema{}, err
		}
	}
	if spec := t.StreamSpecification; spec != nil && spec.StreamEnabled {
		s.StreamARN = t.LatestStreamArn
		s.StreamViewType = spec.StreamViewType
	}
	return s, nil
}

// addIndexJSON adds the global secondary index g describes.
func (s *Schema) addIndexJSON(g indexJSON) error {
	def := indexFromJSON(g.IndexName, g.KeySchema)
	var proj string
	if g.Projection != nil {
		proj = g.Projection.ProjectionType
		def.NonKeyAttributes = g.Projection.NonKeyAttributes
	}
	for _, k := range g.KeySchema {
		if k.KeyType != "HASH" && k.KeyType != "RANGE" {
			return fmt.Errorf("%w: table %q, index %q: KeyType %q is not HASH or RANGE", ErrBadIndex, s.Table, g.IndexName, k.KeyType)
		}
	}
	return s.addIndex(def, proj)
}

// decodeStrict decodes one JSON value and nothing after it, naming the
// byte where the JSON goes wrong.
func decodeStrict(data []byte, v any) error {
	dec := json.NewDecoder(bytes.NewReader(data))
	if err := dec.Decode(v); err != nil {
		var syn *json.SyntaxError
		var typ *json.UnmarshalTypeError
		switch {
		case errors.As(err, &syn):
			return fmt.Errorf("%w: invalid JSON at byte %d: %w", ErrDescribeTableJSON, syn.Offset, err)
		case errors.As(err, &typ):
			return fmt.Errorf("%w: %s is a JSON %s, want %s", ErrDescribeTableJSON, typ.Field, typ.Value, typ.Type)
		case errors.Is(err, io.EOF), errors.Is(err, io.ErrUnexpectedEOF):
			return fmt.Errorf("%w: the input is empty or cut short", ErrDescribeTableJSON)
		}
		return fmt.Errorf("%w: %w", ErrDescribeTableJSON, err)
	}
	if _, err := dec.Token(); err != io.EOF {
		return fmt.Errorf("%w: data after the JSON value at byte %d", ErrDescribeTableJSON, dec.InputOffset())
	}
	return nil
}

// indexFromJSON is the index definition of name, with its key from keys.
func indexFromJSON(name string, keys []keyElementJSON) (def ddb.Index) {
	def.Name = name
	for _, k := range keys {
		switch k.KeyType {
		case "HASH":
			def.PartitionKey = k.AttributeName
		case "RANGE":
			def.SortKey = k.AttributeName
		}
	}
	return def
}
