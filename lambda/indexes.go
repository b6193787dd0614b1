package main

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"strings"
	"time"

	"github.com/aws/smithy-go"

	"github.com/hotkeys-dev/hotkeys/ddb"
	"github.com/hotkeys-dev/hotkeys/detector"
	"github.com/hotkeys-dev/hotkeys/keyschema"
	"github.com/hotkeys-dev/hotkeys/record"
)

// indexMode is HOTKEYS_INDEXES, spelled as the CLI's --indexes.
type indexMode string

const (
	indexesAuto indexMode = "auto" // analyse the indexes when the table has any
	indexesOn   indexMode = "on"   // the user wants them: a lookup a retry can fix fails the batch
	indexesOff  indexMode = "off"  // never ask DynamoDB about indexes
)

// Index analysis in the Lambda.
const (
	// indexRefresh is how old the table's description may get before it
	// is asked for again: a GSI added or removed by UpdateTable is analysed
	// at most this long (plus one batch) after DescribeTable shows it.
	indexRefresh = 5 * time.Minute
	// indexRetry is how long a container waits after a failed lookup it
	// went on without (auto, or a failure no retry can fix) before asking
	// again, so that a missing grant does not cost every batch a call.
	indexRetry = time.Minute
	// maxIndexes is the most indexes analysed, DynamoDB's default quota of
	// GSIs per table: the state budget is sized for it (see
	// detector.StateBudget).
	maxIndexes = detector.MaxIndexes
)

// indexesFromEnv reads HOTKEYS_INDEXES: auto (the default), on or off.
func indexesFromEnv(getenv func(string) string) (indexMode, error) {
	v := getenv("HOTKEYS_INDEXES")
	switch m := indexMode(strings.ToLower(strings.TrimSpace(v))); m {
	case "":
		return indexesAuto, nil
	case indexesAuto, indexesOn, indexesOff:
		return m, nil
	}
	return "", fmt.Errorf("HOTKEYS_INDEXES=%q: %w: want auto (analyse the global secondary indexes when the table has any), on or off", v, detector.ErrConfig)
}

// indexSource keeps the decoder's index definitions in step with the
// table's, as DescribeTable gives them, once per container and again every
// indexRefresh.
type indexSource struct {
	mode    indexMode
	schemas schemaLookup // a refreshing keyschema.Cache in production
	dec     *record.Decoder
	log     *slog.Logger
	now     func() time.Time

	table      string      // the table whose indexes dec has
	applied    []ddb.Index // what dec has
	retryAfter time.Time   // no lookup before this, after a failure we went on without
	warnedNone bool        // "on" with a table without indexes was logged
}

// prepare gives the decoder the indexes of the batch's table (the probe's,
// "" when it found none) before the batch is decoded. It returns an error,
// which fails the batch so that Lambda delivers it again, only when
// HOTKEYS_INDEXES is on and the lookup
// failed in a way a retry can fix (throttling, a network or server error):
// the user asked for the indexes, and the retried batch is counted with
// them. Otherwise a failed lookup never fails the batch: the table's own
// windows do not need it, so the batch is counted without index windows
// (or with the indexes known before), the failure is logged, and the
// lookup is tried again a minute later.
func (s *indexSource) prepare(ctx context.Context, table string) error {
	if s.mode == indexesOff || table == "" || (table == s.table && s.now().Before(s.retryAfter)) {
		return nil
	}
	schema, err := s.schemas.Lookup(ctx, table)
	if err != nil {
		if s.mode == indexesOn && retryable(err) {
			return fmt.Errorf("hotkeys: HOTKEYS_INDEXES=on and the table's global secondary indexes could not be read; the batch is failed so that Lambda retries it: %w", err)
		}
		s.table, s.retryAfter = table, s.now().Add(indexRetry)
		level := slog.LevelWarn
		if s.mode == indexesOn {
			level = slog.LevelError
		}
		s.log.Log(ctx, level, "global secondary indexes could not be read (DescribeTable); this batch is counted without index windows, the lookup is tried again in a minute",
			"table", table, "error", err.Error(), "indexes_mode", string(s.mode), "indexes_analysed", indexNames(s.applied))
		return nil
	}
	s.table, s.retryAfter = table, time.Time{}
	defs := schema.Indexes
	if len(defs) > maxIndexes {
		s.log.Warn("the table has more global secondary indexes than the Lambda analyses; the others are left out",
			"table", table, "indexes", len(defs), "analysed", indexNames(defs[:maxIndexes]))
		defs = defs[:maxIndexes]
	}
	if s.mode == indexesOn && len(defs) == 0 && !s.warnedNone {
		s.warnedNone = true
		s.log.Error("HOTKEYS_INDEXES=on, but the table has no global secondary index; only the table is analysed", "table", table)
	}
	if sameIndexes(defs, s.applied) {
		return nil
	}
	if err := s.dec.SetIndexes(defs); err != nil {
		// keyschema checked them: cannot happen. Never in the way.
		s.log.Error("global secondary indexes rejected; analysing the table only", "table", table, "error", err.Error())
		return nil
	}
	s.applied = slices.Clone(defs)
	s.log.Info("global secondary indexes analysed", "table", table, "indexes", indexNames(defs))
	return nil
}

// retryable reports whether a failed lookup may succeed if tried again:
// not when the table is missing, its description unusable, or the call
// refused (no grant, bad credentials, a bad request).
func retryable(err error) bool {
	if errors.Is(err, keyschema.ErrTableNotFound) || errors.Is(err, keyschema.ErrNoKeySchema) || errors.Is(err, keyschema.ErrBadIndex) {
		return false
	}
	var ae smithy.APIError
	if errors.As(err, &ae) {
		switch ae.ErrorCode() {
		case "AccessDeniedException", "UnrecognizedClientException", "ValidationException",
			"ResourceNotFoundException", "InvalidSignatureException", "MissingAuthenticationTokenException":
			return false
		}
	}
	return true
}

func sameIndexes(a, b []ddb.Index) bool {
	return slices.EqualFunc(a, b, func(x, y ddb.Index) bool {
		return x.Name == y.Name && x.PartitionKey == y.PartitionKey && x.SortKey == y.SortKey &&
			x.Projection == y.Projection && slices.Equal(x.NonKeyAttributes, y.NonKeyAttributes)
	})
}

func indexNames(defs []ddb.Index) []string {
	names := make([]string, len(defs))
	for i, d := range defs {
		names[i] = d.Name
	}
	return names
}
