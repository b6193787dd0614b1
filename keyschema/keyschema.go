// Package keyschema finds out which attribute of a DynamoDB table is its
// partition key, what its global secondary indexes are, and where its
// stream is, with one DescribeTable call (Lookup), or from the JSON that
// `aws dynamodb describe-table` prints (ParseDescribeTable).
//
// A stream record's Keys hold the partition key and, when the table has one,
// the sort key, with nothing to tell them apart. When the user has not named
// the partition key, the Lambda and `hotkeys watch` ask DynamoDB once per
// table and keep the answer (Cache).
package keyschema

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/hotkeys-dev/hotkeys/ddb"
)

// DescribeTableAPI is the part of the DynamoDB API this package uses.
// *dynamodb.Client satisfies it.
type DescribeTableAPI interface {
	DescribeTable(ctx context.Context, in *dynamodb.DescribeTableInput, optFns ...func(*dynamodb.Options)) (*dynamodb.DescribeTableOutput, error)
}

var _ DescribeTableAPI = (*dynamodb.Client)(nil)

// Schema is what hotkeys needs to know about a table.
type Schema struct {
	Table            string // the table's name (also when it was looked up by ARN)
	PartitionKey     string // the HASH key attribute's name
	SortKey          string // the RANGE key attribute's name; "" when the table has none
	PartitionKeyType string // "S", "N" or "B"
	StreamARN        string // the enabled stream's ARN; "" when the table has no stream enabled
	StreamViewType   string // KEYS_ONLY, NEW_IMAGE, OLD_IMAGE or NEW_AND_OLD_IMAGES; "" without a stream
	// Indexes are the table's global secondary indexes, sorted by name;
	// nil when it has none.
	Indexes []ddb.Index
}

// Sentinel errors, wrapped by the errors this package returns.
var (
	ErrTableNotFound = errors.New("keyschema: table not found")
	ErrNoStream      = errors.New("keyschema: no stream enabled")
	ErrNoKeySchema   = errors.New("keyschema: no partition key in DescribeTable's answer")
	// ErrBadIndex: a global secondary index in DescribeTable's answer
	// cannot be used (no name, no HASH key, an unknown projection).
	ErrBadIndex = errors.New("keyschema: unusable global secondary index")
)

// Lookup describes table and returns its schema. table is a name (AWS also
// takes a table ARN, DynamoDB Local does not; see TableFromARN). A table
// without a stream is not an error here (the Lambda only needs the key);
// callers that read the stream check RequireStream.
func Lookup(ctx context.Context, api DescribeTableAPI, table string) (Schema, error) {
	out, err := api.DescribeTable(ctx, &dynamodb.DescribeTableInput{TableName: aws.String(table)})
	if err != nil {
		var nf *types.ResourceNotFoundException
		if errors.As(err, &nf) {
			return Schema{}, fmt.Errorf("%w: %q (check the table name, the region and the endpoint): %w", ErrTableNotFound, table, err)
		}
		return Schema{}, fmt.Errorf("keyschema: describe table %q: %w", table, err)
	}
	if out == nil || out.Table == nil {
		return Schema{}, fmt.Errorf("%w: table %q", ErrNoKeySchema, table)
	}
	return fromDescription(out.Table, table)
}

func fromDescription(d *types.TableDescription, asked string) (Schema, error) {
	s := Schema{Table: aws.ToString(d.TableName)}
	if s.Table == "" {
		s.Table = asked
	}
	for _, k := range d.KeySchema {
		switch k.KeyType {
		case types.KeyTypeHash:
			s.PartitionKey = aws.ToString(k.AttributeName)
		case types.KeyTypeRange:
			s.SortKey = aws.ToString(k.AttributeName)
		}
	}
	if s.PartitionKey == "" {
		return Schema{}, fmt.Errorf("%w: table %q", ErrNoKeySchema, s.Table)
	}
	for _, a := range d.AttributeDefinitions {
		if aws.ToString(a.AttributeName) == s.PartitionKey {
			s.PartitionKeyType = string(a.AttributeType)
		}
	}
	for _, g := range d.GlobalSecondaryIndexes {
		def := ddb.Index{Name: aws.ToString(g.IndexName)}
		for _, k := range g.KeySchema {
			switch k.KeyType {
			case types.KeyTypeHash:
				def.PartitionKey = aws.ToString(k.AttributeName)
			case types.KeyTypeRange:
				def.SortKey = aws.ToString(k.AttributeName)
			}
		}
		var proj string
		if g.Projection != nil {
			proj = string(g.Projection.ProjectionType)
			def.NonKeyAttributes = g.Projection.NonKeyAttributes
		}
		if err := s.addIndex(def, proj); err != nil {
			return Schema{}, err
		}
	}
	// LatestStreamArn outlives a disabled stream (its records stay readable
	// for 24 h), so the specification decides whether a stream is on.
	if spec := d.StreamSpecification; spec != nil && aws.ToBool(spec.StreamEnabled) {
		s.StreamARN = aws.ToString(d.LatestStreamArn)
		s.StreamViewType = string(spec.StreamViewType)
	}
	return s, nil
}

// RequireStream returns an error wrapping ErrNoStream, telling the user how
// to enable one, when the table has no stream enabled.
func (s Schema) RequireStream() error {
	if s.StreamARN != "" {
		return nil
	}
	return fmt.Errorf("%w: table %q has no stream enabled; enable NEW_AND_OLD_IMAGES "+
		"(aws dynamodb update-table --table-name %s --stream-specification StreamEnabled=true,StreamViewType=NEW_AND_OLD_IMAGES) "+
		"or pass the stream's ARN", ErrNoStream, s.Table, s.Table)
}

// ExactWCU reports whether the stream's records carry the images needed to
// size every write exactly: only NEW_AND_OLD_IMAGES does. With the other view
// types, WCU figures are lower bounds.
func (s Schema) ExactWCU() bool {
	return s.StreamViewType == string(types.StreamViewTypeNewAndOldImages)
}

// ErrBadARN is wrapped by TableFromARN's errors.
var ErrBadARN = errors.New("keyschema: not a DynamoDB table or stream ARN")

// TableFromARN returns the table name inside a DynamoDB table ARN
// (arn:aws:dynamodb:REGION:ACCOUNT:table/NAME) or stream ARN
// (…:table/NAME/stream/LABEL), so that `watch --stream-arn` can look the
// table's key schema up. DynamoDB Local accepts only names in DescribeTable.
func TableFromARN(arn string) (string, error) {
	// arn:PARTITION:dynamodb:REGION:ACCOUNT:table/NAME[/stream/LABEL]
	parts := strings.SplitN(arn, ":", 6)
	if len(parts) != 6 || parts[0] != "arn" || parts[2] != "dynamodb" {
		return "", fmt.Errorf("%w: %q", ErrBadARN, arn)
	}
	res, ok := strings.CutPrefix(parts[5], "table/")
	if !ok {
		return "", fmt.Errorf("%w: %q", ErrBadARN, arn)
	}
	name, rest, hasRest := strings.Cut(res, "/")
	if name == "" || (hasRest && !strings.HasPrefix(rest, "stream/")) {
		return "", fmt.Errorf("%w: %q", ErrBadARN, arn)
	}
	return name, nil
}

// addIndex checks def, whose projection type is proj, and adds it.
func (s *Schema) addIndex(def ddb.Index, proj string) error {
	p, err := ddb.ParseProjection(proj)
	if err != nil {
		return fmt.Errorf("%w: table %q, index %q: %w", ErrBadIndex, s.Table, def.Name, err)
	}
	def.Projection = p
	if p != ddb.ProjectInclude {
		def.NonKeyAttributes = nil
	}
	if err := def.Validate(); err != nil {
		return fmt.Errorf("%w: table %q: %w", ErrBadIndex, s.Table, err)
	}
	for _, o := range s.Indexes {
		if o.Name == def.Name {
			return fmt.Errorf("%w: table %q has two indexes named %q", ErrBadIndex, s.Table, def.Name)
		}
	}
	// By name: DescribeTable's order is not stable (DynamoDB Local's is
	// not the creation order), and the Lambda compares answers.
	at, _ := slices.BinarySearchFunc(s.Indexes, def.Name, func(o ddb.Index, name string) int { return strings.Compare(o.Name, name) })
	s.Indexes = slices.Insert(s.Indexes, at, def)
	return nil
}

// Equal reports whether s and o describe the same table, key schema,
// indexes and stream: the Lambda compares a fresh DescribeTable with the
// one it analyses by.
func (s Schema) Equal(o Schema) bool {
	if len(s.Indexes) != len(o.Indexes) {
		return false
	}
	for k := range s.Indexes {
		a, b := s.Indexes[k], o.Indexes[k]
		if a.Name != b.Name || a.PartitionKey != b.PartitionKey || a.SortKey != b.SortKey ||
			a.Projection != b.Projection || !slices.Equal(a.NonKeyAttributes, b.NonKeyAttributes) {
			return false
		}
	}
	return s.Table == o.Table && s.PartitionKey == o.PartitionKey && s.SortKey == o.SortKey &&
		s.PartitionKeyType == o.PartitionKeyType && s.StreamARN == o.StreamARN && s.StreamViewType == o.StreamViewType
}
