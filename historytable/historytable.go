// Package historytable keeps history.Summary items in a DynamoDB table: the
// Lambda puts one per stream shard and closed window, `hotkeys history`
// queries them back by time.
//
// Items: partition key "day" (S, the window's UTC date, 2026-11-22), sort
// key "window" (S, the window's start in Unix seconds, zero-padded to 12
// digits, "#", the analysed table, "#", the stream shard, and for a global
// secondary index's window "#" and the index), "summary" (B, the encoded
// summary, at most history.MaxEncodedSize bytes), "format" (N, its
// version, history.Summary.Version: 1 for a table's window, 2 for an
// index's, 3 for either with internal errors) and "expires" (N, Unix
// seconds: the table's TTL attribute). A day per partition keeps a day's
// query to one partition and spreads the writes of a busy table's 16 shards
// at about 4 WCU/s. The key is fixed by the window, so a redelivered final
// invoke overwrites its own item: a window is never stored twice. Table,
// index and shard names hold no "#", so no two windows share a key.
package historytable

import (
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
	AttrDay     = "day"
	AttrWindow  = "window"
	AttrSummary = "summary"
	AttrFormat  = "format"
	AttrExpires = "expires"
)

// FormatVersion is the newest version of the summary encoding the items
// carry (history.Summary.Version); every version from 1 up to it is read.
const FormatVersion = history.NewestVersion

// API is what this package needs of the DynamoDB client.
type API interface {
	PutItem(ctx context.Context, in *dynamodb.PutItemInput, opts ...func(*dynamodb.Options)) (*dynamodb.PutItemOutput, error)
	Query(ctx context.Context, in *dynamodb.QueryInput, opts ...func(*dynamodb.Options)) (*dynamodb.QueryOutput, error)
}

// ErrItem is wrapped by every complaint about a stored item.
var ErrItem = errors.New("historytable: unusable item")

// Item returns the item that stores s, expiring retention after its
// window's end.
func Item(s *history.Summary, retention time.Duration) (map[string]types.AttributeValue, error) {
	b, err := s.MarshalBinary()
	if err != nil {
		return nil, err
	}
	return map[string]types.AttributeValue{
		AttrDay:     &types.AttributeValueMemberS{Value: day(s.Start)},
		AttrWindow:  &types.AttributeValueMemberS{Value: windowKey(s.Start, s.Table, s.Shard, s.Index)},
		AttrSummary: &types.AttributeValueMemberB{Value: b},
		AttrFormat:  &types.AttributeValueMemberN{Value: strconv.Itoa(s.Version())},
		AttrExpires: &types.AttributeValueMemberN{Value: strconv.FormatInt(s.End.Add(retention).Unix(), 10)},
	}, nil
}

// Put stores s in table. Putting the same window of the same shard again
// replaces it.
func Put(ctx context.Context, api API, table string, s *history.Summary, retention time.Duration) error {
	item, err := Item(s, retention)
	if err != nil {
		return err
	}
	if _, err := api.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String(table), Item: item}); err != nil {
		return fmt.Errorf("historytable: put %s %s: %w", history.Source(s.Table, s.Index), s.Start.Format(time.RFC3339), err)
	}
	return nil
}

func day(t time.Time) string { return t.UTC().Format(time.DateOnly) }

func windowKey(start time.Time, table, shard, index string) string {
	if index != "" {
		return fmt.Sprintf("%012d#%s#%s#%s", start.Unix(), table, shard, index)
	}
	return fmt.Sprintf("%012d#%s#%s", start.Unix(), table, shard)
}

// Read queries table for the summaries of windows starting in [from, to),
// day by day, page by page, and hands each to fn in order of window start.
// An item it cannot use (missing attributes, corrupt, another format
// version, a key that disagrees with its summary) goes to skip with the
// reason, and reading goes on. An error of fn or of DynamoDB stops it.
func Read(ctx context.Context, api API, table string, from, to time.Time, fn func(*history.Summary) error, skip func(key string, err error)) error {
	for d := from.UTC().Truncate(24 * time.Hour); d.Before(to); d = d.Add(24 * time.Hour) {
		in := &dynamodb.QueryInput{
			TableName:              aws.String(table),
			KeyConditionExpression: aws.String("#d = :d AND #w BETWEEN :lo AND :hi"),
			ExpressionAttributeNames: map[string]string{
				"#d": AttrDay, "#w": AttrWindow,
			},
			ExpressionAttributeValues: map[string]types.AttributeValue{
				":d":  &types.AttributeValueMemberS{Value: day(d)},
				":lo": &types.AttributeValueMemberS{Value: fmt.Sprintf("%012d", max(from.Unix(), d.Unix()))},
				// "#" sorts before every digit: this takes every window
				// starting before to.
				":hi": &types.AttributeValueMemberS{Value: fmt.Sprintf("%012d", min(to.Unix(), d.Add(24*time.Hour).Unix()))},
			},
		}
		p := dynamodb.NewQueryPaginator(api, in)
		for p.HasMorePages() {
			out, err := p.NextPage(ctx)
			if err != nil {
				return fmt.Errorf("historytable: query %s day %s: %w", table, day(d), err)
			}
			for _, item := range out.Items {
				s, key, err := decode(item)
				if err != nil {
					skip(key, err)
					continue
				}
				if err := fn(s); err != nil {
					return err
				}
			}
		}
	}
	return nil
}

func decode(item map[string]types.AttributeValue) (*history.Summary, string, error) {
	d, _ := item[AttrDay].(*types.AttributeValueMemberS)
	w, _ := item[AttrWindow].(*types.AttributeValueMemberS)
	key := "?"
	if d != nil && w != nil {
		key = d.Value + " " + w.Value
	}
	f, _ := item[AttrFormat].(*types.AttributeValueMemberN)
	b, _ := item[AttrSummary].(*types.AttributeValueMemberB)
	switch {
	case d == nil || w == nil || b == nil || f == nil:
		return nil, key, fmt.Errorf("%w: missing %s, %s, %s or %s", ErrItem, AttrDay, AttrWindow, AttrSummary, AttrFormat)
	}
	if v, err := strconv.Atoi(f.Value); err != nil || v < 1 || v > FormatVersion {
		return nil, key, fmt.Errorf("%w: format %s (this build reads 1 to %d)", ErrItem, f.Value, FormatVersion)
	}
	var s history.Summary
	if err := s.UnmarshalBinary(b.Value); err != nil {
		return nil, key, fmt.Errorf("%w: %w", ErrItem, err)
	}
	// The key must be the summary's own: an item copied from elsewhere, or
	// written by something else, is not trusted.
	if d.Value != day(s.Start) || w.Value != windowKey(s.Start, s.Table, s.Shard, s.Index) || f.Value != strconv.Itoa(s.Version()) {
		return nil, key, fmt.Errorf("%w: its key or format does not match its summary (%s, table %q, shard %q, index %q, version %d)",
			ErrItem, s.Start.Format(time.RFC3339), s.Table, s.Shard, s.Index, s.Version())
	}
	return &s, key, nil
}
