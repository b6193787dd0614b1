// Package store keeps history.Summary items in a DynamoDB table, the
// history table: the Lambda puts one per stream shard and closed window,
// the rollup job (package history/rollup, run by the function in
// lambda/rollup) merges each closed window's items into one rollup per
// table and index and each hour's into another, and `hotkeys history`
// queries them back by time, rollups where there are some.
//
// A shard's window is an item whose partition key ("day") is the window's
// UTC date and a write shard, 2026-11-22#17, and whose sort key ("window")
// is the window's start in Unix seconds (12 digits), "#", the analysed
// table, "#", the stream shard and, for a global secondary index's window,
// "#" and the index; see layout.go for every kind of item. Its other
// attributes: "summary" (B, the encoded summary, at most
// history.MaxEncodedSize bytes), "format" (N, its version,
// history.Summary.Version), "write_shards" (N, how many write shards its
// writer spread over) and "expires" (N, Unix seconds: the table's TTL
// attribute).
//
// Why write shards: every stream shard stores its window when the window
// closes, so at 1,000 shards some 16,000 WCU arrive within seconds. Under
// one partition key value a day, as builds before wrote (2026-11-22), that
// is sixteen times DynamoDB's 1,000 WCU/s per partition: the history table
// of a tool that finds hot keys had one. Under n write shards
// (DefaultWriteShards) each value takes about 1/n of them, and readers
// query the n values in parallel and merge them in order ("Using write
// sharding to distribute workloads evenly", DynamoDB Developer Guide).
// Items stored before stay where they are and are read as before: Read
// queries the old partition key value too.
//
// The key is fixed by the window, so a redelivered final invoke overwrites
// its own item: a window is never stored twice.
package store

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"strconv"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/hotkeys-dev/hotkeys/history"
)

// Attribute names, as the template's table defines them.
const (
	AttrDay         = "day"
	AttrWindow      = "window"
	AttrSummary     = "summary"
	AttrFormat      = "format"
	AttrExpires     = "expires"
	AttrWriteShards = "write_shards"
	// A rollup's: the shard windows merged into it, when it was made
	// (Unix seconds), and whether it was made after every window it covers
	// could have been stored (Roller.Settle).
	AttrSources  = "sources"
	AttrRolledAt = "rolled_at"
	AttrSettled  = "settled"
)

// FormatVersion is the newest version of the summary encoding the items
// carry (history.Summary.Version); every version from 1 up to it is read.
const FormatVersion = history.NewestVersion

// API is what a Table needs of the DynamoDB client: PutItem stores windows
// and rollups, Query reads them back, UpdateItem marks what the rollup job
// has stored. *dynamodb.Client has all three.
type API interface {
	PutItem(ctx context.Context, in *dynamodb.PutItemInput, opts ...func(*dynamodb.Options)) (*dynamodb.PutItemOutput, error)
	Query(ctx context.Context, in *dynamodb.QueryInput, opts ...func(*dynamodb.Options)) (*dynamodb.QueryOutput, error)
	UpdateItem(ctx context.Context, in *dynamodb.UpdateItemInput, opts ...func(*dynamodb.Options)) (*dynamodb.UpdateItemOutput, error)
}

var _ API = (*dynamodb.Client)(nil)

// ErrItem is wrapped by every complaint about a stored item.
var ErrItem = errors.New("store: unusable item")

// ErrConfig is wrapped by every complaint about a Table's settings.
var ErrConfig = errors.New("store: invalid table settings")

// Options say how a Table's items are written and read.
type Options struct {
	// WriteShards is how many write shards the shards' windows are spread
	// over, and readers query: 1 to MaxWriteShards (0: DefaultWriteShards).
	// A reader must query at least as many as any writer of the span used.
	WriteShards int
	// Retention is how long an item lives after its window ends: its
	// expires attribute, the table's TTL. A Table that only reads leaves it
	// 0.
	Retention time.Duration
}

// Table is a history table: the client that reaches it, its name, and how
// its items are written (Options). Its methods store and read the items;
// it is safe for concurrent use when its client is, as the SDK's is.
type Table struct {
	api         API
	name        string
	writeShards int
	retention   time.Duration
}

// New returns the history table name, reached through api. It refuses an
// empty name, a negative retention and a count of write shards outside 1
// to MaxWriteShards (0 is DefaultWriteShards), with an error wrapping
// ErrConfig.
func New(api API, name string, opts Options) (*Table, error) {
	shards := cmp.Or(opts.WriteShards, DefaultWriteShards)
	switch {
	case name == "":
		return nil, fmt.Errorf("%w: no table name", ErrConfig)
	case shards < 1 || shards > MaxWriteShards:
		return nil, fmt.Errorf("%w: %d write shards: want 1 to %d", ErrConfig, shards, MaxWriteShards)
	case opts.Retention < 0:
		return nil, fmt.Errorf("%w: retention %s", ErrConfig, opts.Retention)
	}
	return &Table{api: api, name: name, writeShards: shards, retention: opts.Retention}, nil
}

// Name returns the table's name.
func (t *Table) Name() string { return t.name }

// WriteShards returns how many write shards t writes the shards' windows
// under and its readers query.
func (t *Table) WriteShards() int { return t.writeShards }

// Retention returns how long t's items live after their window ends.
func (t *Table) Retention() time.Duration { return t.retention }

// Item returns the item that stores s, a stream shard's window, under t's
// write shards, expiring t's retention after its window's end.
func (t *Table) Item(s *history.Summary) (map[string]types.AttributeValue, error) {
	b, err := s.MarshalBinary()
	if err != nil {
		return nil, err
	}
	return map[string]types.AttributeValue{
		AttrDay:         &types.AttributeValueMemberS{Value: shardPartition(s.Start, s.Shard, t.writeShards)},
		AttrWindow:      &types.AttributeValueMemberS{Value: windowKey(s.Start, s.Table, s.Shard, s.Index)},
		AttrSummary:     &types.AttributeValueMemberB{Value: b},
		AttrFormat:      &types.AttributeValueMemberN{Value: strconv.Itoa(s.Version())},
		AttrWriteShards: &types.AttributeValueMemberN{Value: strconv.Itoa(t.writeShards)},
		AttrExpires:     &types.AttributeValueMemberN{Value: strconv.FormatInt(s.End.Add(t.retention).Unix(), 10)},
	}, nil
}

// Put stores s, a stream shard's window. Putting the same window of the
// same shard again replaces it.
func (t *Table) Put(ctx context.Context, s *history.Summary) error {
	item, err := t.Item(s)
	if err != nil {
		return err
	}
	if _, err := t.api.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String(t.name), Item: item}); err != nil {
		return fmt.Errorf("store: put %s %s: %w", history.Source(s.Table, s.Index), s.Start.Format(time.RFC3339), err)
	}
	return nil
}

// decodeShard decodes a shard's window item, in either layout.
func decodeShard(item map[string]types.AttributeValue) (*history.Summary, string, error) {
	s, pk, sk, err := decodeSummary(item)
	if err != nil {
		return nil, pk + " " + sk, err
	}
	key := pk + " " + sk
	// The key must be the summary's own: an item copied from elsewhere, or
	// written by something else, is not trusted.
	okPK := pk == day(s.Start) // before write sharding
	if n, ok := number(item[AttrWriteShards]); ok {
		okPK = n >= 1 && n <= MaxWriteShards && pk == shardPartition(s.Start, s.Shard, int(n))
	}
	if !okPK || sk != windowKey(s.Start, s.Table, s.Shard, s.Index) || s.Sources != 0 {
		return nil, key, fmt.Errorf("%w: its key or format does not match its summary (%s, table %q, shard %q, index %q, version %d)",
			ErrItem, s.Start.Format(time.RFC3339), s.Table, s.Shard, s.Index, s.Version())
	}
	return s, key, nil
}

// decodeSummary decodes an item's summary and checks its format; it
// returns the item's key attributes for messages.
func decodeSummary(item map[string]types.AttributeValue) (s *history.Summary, pk, sk string, err error) {
	d, _ := item[AttrDay].(*types.AttributeValueMemberS)
	w, _ := item[AttrWindow].(*types.AttributeValueMemberS)
	pk, sk = "?", ""
	if d != nil && w != nil {
		pk, sk = d.Value, w.Value
	}
	f, _ := item[AttrFormat].(*types.AttributeValueMemberN)
	b, _ := item[AttrSummary].(*types.AttributeValueMemberB)
	if d == nil || w == nil || b == nil || f == nil {
		return nil, pk, sk, fmt.Errorf("%w: missing %s, %s, %s or %s", ErrItem, AttrDay, AttrWindow, AttrSummary, AttrFormat)
	}
	if v, err := strconv.Atoi(f.Value); err != nil || v < 1 || v > FormatVersion {
		return nil, pk, sk, fmt.Errorf("%w: format %s (this build reads 1 to %d)", ErrItem, f.Value, FormatVersion)
	}
	var sum history.Summary
	if err := sum.UnmarshalBinary(b.Value); err != nil {
		return nil, pk, sk, fmt.Errorf("%w: %w", ErrItem, err)
	}
	if f.Value != strconv.Itoa(sum.Version()) {
		return nil, pk, sk, fmt.Errorf("%w: format %s, but its summary is version %d", ErrItem, f.Value, sum.Version())
	}
	return &sum, pk, sk, nil
}

// number reads an N attribute as a whole number.
func number(v types.AttributeValue) (int64, bool) {
	n, _ := v.(*types.AttributeValueMemberN)
	if n == nil {
		return 0, false
	}
	x, err := strconv.ParseInt(n.Value, 10, 64)
	return x, err == nil
}

// decodeRollup decodes a rollup item of level.
func decodeRollup(item map[string]types.AttributeValue, level Level) (*history.Summary, string, error) {
	s, pk, sk, err := decodeSummary(item)
	key := pk + " " + sk
	if err != nil {
		return nil, key, err
	}
	length := s.End.Sub(s.Start)
	okLength := length > 0 && time.Hour%length == 0
	if level == Hours {
		okLength = length == time.Hour
	}
	if pk != rollupPartition(level, s.Start) || sk != rollupKey(s.Start, s.Table, s.Index) || s.Sources == 0 || !okLength {
		return nil, key, fmt.Errorf("%w: its key does not match its rollup (%s %s, table %q, index %q, %d sources)",
			ErrItem, level, s.Start.Format(time.RFC3339), s.Table, s.Index, s.Sources)
	}
	return s, key, nil
}
