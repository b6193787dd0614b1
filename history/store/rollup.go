package store

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

// Coverage attributes: the windows rolled up in an hour (NS of their
// starts), those of them rolled up once every window they cover could have
// been stored (NS), whether the hour's own rollup is stored (BOOL), and
// the length of a window rollup (N, seconds).
const (
	AttrRolled        = "rolled"
	AttrSettledWindow = "settled_windows"
	AttrHourly        = "hourly"
	AttrWindowSeconds = "window_seconds"
)

// RollupItem returns the item that stores rollup s of level, made at
// rolledAt, settled or not, expiring t's retention after its end.
func (t *Table) RollupItem(level Level, s *history.Summary, rolledAt time.Time, settled bool) (map[string]types.AttributeValue, error) {
	b, err := s.MarshalRollup()
	if err != nil {
		return nil, err
	}
	return map[string]types.AttributeValue{
		AttrDay:      &types.AttributeValueMemberS{Value: rollupPartition(level, s.Start)},
		AttrWindow:   &types.AttributeValueMemberS{Value: rollupKey(s.Start, s.Table, s.Index)},
		AttrSummary:  &types.AttributeValueMemberB{Value: b},
		AttrFormat:   &types.AttributeValueMemberN{Value: strconv.Itoa(s.Version())},
		AttrSources:  &types.AttributeValueMemberN{Value: strconv.FormatUint(s.Sources, 10)},
		AttrRolledAt: &types.AttributeValueMemberN{Value: strconv.FormatInt(rolledAt.Unix(), 10)},
		AttrSettled:  &types.AttributeValueMemberBOOL{Value: settled},
		AttrExpires:  &types.AttributeValueMemberN{Value: strconv.FormatInt(s.End.Add(t.retention).Unix(), 10)},
	}, nil
}

// PutRollup stores rollup s of level, replacing the one stored for the
// same window, table and index unless that one merged more shard windows,
// or is settled while s is not: a run that read fewer windows, or a first
// run retried after the settling one, never undoes a better rollup. It
// returns whether it stored s. Storing the same rollup again changes
// nothing: reruns are idempotent.
func (t *Table) PutRollup(ctx context.Context, level Level, s *history.Summary, rolledAt time.Time, settled bool) (bool, error) {
	item, err := t.RollupItem(level, s, rolledAt, settled)
	if err != nil {
		return false, err
	}
	in := &dynamodb.PutItemInput{
		TableName:                 aws.String(t.name),
		Item:                      item,
		ConditionExpression:       aws.String("attribute_not_exists(#w) OR #src <= :src"),
		ExpressionAttributeNames:  map[string]string{"#w": AttrWindow, "#src": AttrSources},
		ExpressionAttributeValues: map[string]types.AttributeValue{":src": item[AttrSources]},
	}
	if !settled {
		in.ConditionExpression = aws.String("attribute_not_exists(#w) OR (#src <= :src AND #settled = :false)")
		in.ExpressionAttributeNames["#settled"] = AttrSettled
		in.ExpressionAttributeValues[":false"] = &types.AttributeValueMemberBOOL{Value: false}
	}
	_, err = t.api.PutItem(ctx, in)
	var cond *types.ConditionalCheckFailedException
	switch {
	case errors.As(err, &cond):
		return false, nil
	case err != nil:
		return false, fmt.Errorf("store: put the %s rollup of %s %s: %w", level, history.Source(s.Table, s.Index), s.Start.Format(time.RFC3339), err)
	}
	return true, nil
}

// MarkWindow records that every rollup of the window starting at start,
// length long, is stored (and settled, when it is): readers then read the
// rollups instead of the shards' windows. It records t's write shards, the
// ones the job read: readers query at least that many.
func (t *Table) MarkWindow(ctx context.Context, start time.Time, length time.Duration, settled bool) error {
	set := &types.AttributeValueMemberNS{Value: []string{strconv.FormatInt(start.Unix(), 10)}}
	expr := "ADD #rolled :w"
	names := map[string]string{"#rolled": AttrRolled, "#ws": AttrWriteShards, "#len": AttrWindowSeconds, "#exp": AttrExpires}
	if settled {
		expr += ", #settled :w"
		names["#settled"] = AttrSettledWindow
	}
	expr += " SET #ws = :ws, #len = :len, #exp = :exp"
	return t.mark(ctx, start, expr, names,
		map[string]types.AttributeValue{
			":w":   set,
			":ws":  &types.AttributeValueMemberN{Value: strconv.Itoa(t.writeShards)},
			":len": &types.AttributeValueMemberN{Value: strconv.FormatInt(int64(length/time.Second), 10)},
			":exp": &types.AttributeValueMemberN{Value: strconv.FormatInt(start.Add(time.Hour+t.retention).Unix(), 10)},
		})
}

// MarkHour records that the rollups of the hour starting at hour are
// stored.
func (t *Table) MarkHour(ctx context.Context, hour time.Time) error {
	return t.mark(ctx, hour, "SET #hourly = :t, #exp = :exp", map[string]string{"#hourly": AttrHourly, "#exp": AttrExpires},
		map[string]types.AttributeValue{
			":t":   &types.AttributeValueMemberBOOL{Value: true},
			":exp": &types.AttributeValueMemberN{Value: strconv.FormatInt(hour.Add(time.Hour+t.retention).Unix(), 10)},
		})
}

func (t *Table) mark(ctx context.Context, at time.Time, expr string, names map[string]string, values map[string]types.AttributeValue) error {
	hour := at.UTC().Truncate(time.Hour)
	_, err := t.api.UpdateItem(ctx, &dynamodb.UpdateItemInput{
		TableName: aws.String(t.name),
		Key: map[string]types.AttributeValue{
			AttrDay:    &types.AttributeValueMemberS{Value: coveragePartition(hour)},
			AttrWindow: &types.AttributeValueMemberS{Value: timeKey(hour)},
		},
		UpdateExpression:          aws.String(expr),
		ExpressionAttributeNames:  names,
		ExpressionAttributeValues: values,
	})
	if err != nil {
		return fmt.Errorf("store: mark the rollups of %s: %w", at.Format(time.RFC3339), err)
	}
	return nil
}

// Coverage is what the rollup job has stored over a span: which windows
// and hours have rollups.
type Coverage struct {
	// Windows maps the start (Unix seconds) of every window rolled up to
	// whether its rollups are settled.
	Windows map[int64]bool
	// Hours holds the start of every hour whose rollups are stored.
	Hours map[int64]bool
	// WindowLength is the length of a window rollup, 0 when none is
	// stored; WriteShards the most write shards the job read.
	WindowLength time.Duration
	WriteShards  int
}

// Coverage reads what the rollup job stored for the hours that overlap
// [from, to): one small item per hour.
func (r *Reader) Coverage(ctx context.Context, from, to time.Time) (*Coverage, error) {
	c := &Coverage{Windows: map[int64]bool{}, Hours: map[int64]bool{}}
	for d := from.UTC().Truncate(24 * time.Hour); d.Before(to); d = d.Add(24 * time.Hour) {
		lo := timeKey(maxTime(from.UTC().Truncate(time.Hour), d))
		hi := timeKey(minTime(to, d.Add(24*time.Hour)).Add(-time.Second))
		err := r.query(ctx, coveragePartition(d), lo, hi, func(items []map[string]types.AttributeValue) error {
			for _, item := range items {
				c.add(item)
			}
			return nil
		}, nil)
		if err != nil {
			return nil, err
		}
	}
	return c, nil
}

func (c *Coverage) add(item map[string]types.AttributeValue) {
	w, _ := item[AttrWindow].(*types.AttributeValueMemberS)
	if w == nil {
		return
	}
	hour, err := strconv.ParseInt(w.Value, 10, 64)
	if err != nil {
		return
	}
	settled := map[string]bool{}
	if ns, ok := item[AttrSettledWindow].(*types.AttributeValueMemberNS); ok {
		for _, v := range ns.Value {
			settled[v] = true
		}
	}
	length, _ := number(item[AttrWindowSeconds])
	if ns, ok := item[AttrRolled].(*types.AttributeValueMemberNS); ok && length > 0 && time.Hour%(time.Duration(length)*time.Second) == 0 {
		for _, v := range ns.Value {
			// A window of this hour: anything else is not the job's.
			if at, err := strconv.ParseInt(v, 10, 64); err == nil && at >= hour && at < hour+3600 && at%length == 0 {
				c.Windows[at] = settled[v]
			}
		}
		c.WindowLength = max(c.WindowLength, time.Duration(length)*time.Second)
	}
	if b, ok := item[AttrHourly].(*types.AttributeValueMemberBOOL); ok && b.Value && hour%3600 == 0 {
		c.Hours[hour] = true
	}
	if n, ok := number(item[AttrWriteShards]); ok && n >= 1 && n <= MaxWriteShards {
		c.WriteShards = max(c.WriteShards, int(n))
	}
}
