package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/hotkeys-dev/hotkeys/detector"
	"github.com/hotkeys-dev/hotkeys/record"
	"github.com/hotkeys-dev/hotkeys/report"
)

const auditAbout = `Audits a table's key design, pattern by pattern, over the whole input, at any
traffic level: the partition keys of the table and of each global secondary
index are mapped to patterns (USER#<uuid>, OPS_LOG, STATUS#<*>), and each
pattern gets its records, WCU (exact), share, distinct keys (exact up to 128,
then ±4.6 %), heaviest keys with bounds, its ceiling (the pattern's rate at
which its heaviest key reaches the partition limit) and a verdict:

  single_key       one key (OPS_LOG): one partition whatever the traffic
                   (on an index: constant_key, and it throttles the table too)
  time_bucket      the newest date or hour takes the writes (OPS_LOG#<date>)
  dominant_key     one key takes half of the pattern's writes or more
  low_cardinality  under 100 distinct values, written again and again (STATUS#<*>)
  healthy          none of these (USER#<uuid>)

A rate threshold stays silent at a few writes a minute; a pattern of one key
is a hot partition by definition, whatever today's rate. The patterns at risk
come first, each with its fix. The input is what replay reads: Lambda
DynamoDB Streams events, a JSON array of them, or one record per line (- for
standard input). Give --describe-table FILE for the indexes' patterns. The
whole input is one span: --window and the rate and share thresholds do not
apply; --partition-limit sets the ceilings' limit, --key-redaction hides keys
(a pattern of one key is a key, and so are the literals of the others).

Examples:
  hotkeys audit --partition-key PK captured/*.json
  aws dynamodb describe-table --table-name Ops > ops.json
  hotkeys audit --describe-table ops.json --format json captured/*.json > audit.json

JSON: {"audits": [...]}, one object per table and per index (docs/json-report.md).
`

// auditReport is one table's or one index's audit over the whole input:
// `hotkeys audit --format json` prints {"audits": [...]} of them.
type auditReport struct {
	Table          string               `json:"table"`
	Index          string               `json:"index,omitempty"`
	Start          time.Time            `json:"start"` // the first record's time
	End            time.Time            `json:"end"`   // the last record's
	Records        uint64               `json:"records"`
	WCU            uint64               `json:"wcu"`
	PartitionLimit float64              `json:"partition_limit"`
	Patterns       []report.KeyPattern  `json:"patterns"`
	Other          *report.PatternOther `json:"patterns_other,omitempty"`
}

// auditSpan is the one window an audit counts its input in: every record
// time a stream can carry falls in it.
var auditSpan = [2]time.Time{time.Unix(0, 0), time.Unix(1<<40, 0)}

// auditSink counts every record of each table in one window set over
// auditSpan, and the span of record times it saw: detector.Sink.
type auditSink struct {
	cfg        detector.Config
	sets       map[string]*detector.WindowSet
	order      []string // tables, as they first wrote
	first, end map[string]time.Time
	unplaced   *detector.WindowSet // malformed records before any table
}

var _ detector.Sink = (*auditSink)(nil)

func newAuditSink(cfg detector.Config) *auditSink {
	return &auditSink{cfg: cfg, sets: map[string]*detector.WindowSet{}, first: map[string]time.Time{}, end: map[string]time.Time{},
		unplaced: detector.NewWindowSet(cfg, "", auditSpan[0], auditSpan[1])}
}

func (a *auditSink) set(table string) *detector.WindowSet {
	s := a.sets[table]
	if s == nil {
		s = detector.NewWindowSet(a.cfg, table, auditSpan[0], auditSpan[1])
		a.sets[table] = s
		a.order = append(a.order, table)
	}
	return s
}

func (a *auditSink) Add(r *record.Record) error {
	if f, ok := a.first[r.Table]; !ok || r.Time.Before(f) {
		a.first[r.Table] = r.Time
	}
	if r.Time.After(a.end[r.Table]) {
		a.end[r.Table] = r.Time
	}
	return a.set(r.Table).Add(r)
}

func (a *auditSink) AddMalformed(table string) {
	if table == "" {
		a.unplaced.AddMalformed(table)
		return
	}
	a.set(table).AddMalformed(table)
}

// audits returns the audit of every table and index, in the order they
// first wrote.
func (a *auditSink) audits() []auditReport {
	out := []auditReport{}
	for _, table := range a.order {
		for _, r := range a.sets[table].Reports() {
			out = append(out, auditReport{
				Table: r.Table, Index: r.Index, Start: a.first[table].UTC(), End: a.end[table].UTC(),
				Records: r.Records, WCU: r.WCU, PartitionLimit: a.cfg.PartitionLimit,
				Patterns: nonNil(r.Patterns), Other: r.PatternsOther,
			})
		}
	}
	return out
}

func nonNil[T any](s []T) []T {
	if s == nil {
		return []T{}
	}
	return s
}

// Long because it is the command's whole run: flags, the inputs one by
// one with their errors, and the output, in the order replay has them.
func runAudit(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	o, files, err := parseFileCommand("audit", auditAbout, args, stderr)
	if err != nil {
		return err
	}
	dec, err := record.NewDecoder(record.Config{PartitionKey: o.partitionKey, Indexes: o.indexDefs})
	if err != nil {
		return usageError{err}
	}
	feed, sink := detector.NewFeed(dec, time.Now), newAuditSink(o.cfg)
	var failed []string
	var malformed uint64
	read := 0
	for _, name := range files {
		if ctx.Err() != nil {
			break
		}
		payload, err := readInput(name, stdin)
		if err == nil {
			var c detector.Counts
			c, err = feed.Decode(payload, sink, detector.Hooks{Malformed: func(m *record.Malformed) {
				malformed++
				if malformed <= maxMalformedNotes {
					fmt.Fprintf(stderr, "hotkeys: %s: skipped malformed record at byte %d (eventID %q): %v\n", name, m.Offset, m.EventID, m.Err)
				}
			}})
			read += c.Records + c.Duplicates + c.Malformed + c.Internal
			err = auditDecodeError(name, err)
		}
		if _, usage := err.(usageError); usage {
			return err
		}
		var internal *detector.InternalError
		if errors.As(err, &internal) {
			return err
		}
		if err != nil {
			fmt.Fprintf(stderr, "hotkeys: %v\n", err)
			failed = append(failed, name)
		}
	}
	audits := sink.audits()
	if err := writeAudits(stdout, o.format, audits); err != nil {
		return err
	}
	switch {
	case len(failed) > 0:
		return inputError{fmt.Sprintf("%d of %d inputs could not be read in full: %v", len(failed), len(files), failed)}
	case read == 0:
		fmt.Fprintf(stderr, "hotkeys audit: no stream records in %s: nothing to audit\n", strings.Join(files, ", "))
	case malformed > 0:
		return inputError{fmt.Sprintf("%d malformed record(s) were skipped", malformed)}
	}
	return nil
}

// auditDecodeError words an error of detector.Feed.Decode on input name:
// an ambiguous key is a usage error, a syntax error the input's; any other
// is an *InternalError, a bug (exit status 3).
func auditDecodeError(name string, err error) error {
	var amb *record.AmbiguousKeyError
	var syn *record.SyntaxError
	switch {
	case errors.As(err, &amb):
		return usageError{fmt.Errorf("%w: name it with --partition-key (%s or %s), or give --describe-table FILE", err, amb.Attributes[0], amb.Attributes[1])}
	case errors.As(err, &syn):
		return inputError{fmt.Sprintf("%s: %v", name, err)}
	}
	return err
}

// parseFileCommand parses the flags of a command that reads stream events
// from FILE... | - and returns its options and files.
func parseFileCommand(name, about string, args []string, stderr io.Writer) (*options, []string, error) {
	fs, o := newFlagSet(name, "[flags] FILE... | -", about, stderr)
	o.registerStreamFlags(fs)
	if err := o.parse(fs, args); err != nil {
		return nil, nil, err
	}
	if err := o.requireIndexSource(name); err != nil {
		return nil, nil, err
	}
	if fs.NArg() == 0 {
		fs.Usage()
		return nil, nil, usageError{fmt.Errorf("%s: name at least one FILE, or - for standard input", name)}
	}
	return o, fs.Args(), nil
}

// writeAudits prints the audits: JSON, or for people the patterns at risk
// of every table and index first, then each one's table of patterns.
func writeAudits(w io.Writer, format string, audits []auditReport) error {
	if format == "json" {
		b, err := json.MarshalIndent(struct {
			Audits []auditReport `json:"audits"`
		}{audits}, "", "  ")
		if err != nil {
			return err
		}
		_, err = fmt.Fprintf(w, "%s\n", b)
		return err
	}
	var b strings.Builder
	var cut keyNotes
	b.WriteString("FINDINGS\n")
	at := 0
	for i := range audits {
		for j := range audits[i].Patterns {
			if p := &audits[i].Patterns[j]; p.Hazard() {
				at++
				wrap(&b, "  ", "    ", fmt.Sprintf("%-15s %s  %s (keys %s, records %s)", p.Verdict, auditName(&audits[i]), cut.cell(p.Pattern, keyCellWidth), cardinality(p), count(p.Records)), defaultWidth)
			}
		}
	}
	if at == 0 {
		b.WriteString("  no pattern at risk\n")
	}
	for i := range audits {
		a := &audits[i]
		b.WriteString("\n")
		writeTitle(&b, auditName(a), report.Window{Start: a.Start, End: a.End}, "", defaultWidth)
		fmt.Fprintf(&b, "records %s   WCU %s   partition limit %.0f WCU/s\n", count(a.Records), count(a.WCU), a.PartitionLimit)
		r := report.Report{Patterns: a.Patterns, PatternsOther: a.Other}
		streamPatterns(&b, &r, &cut, -1, defaultWidth)
	}
	cut.writeFull(&b)
	_, err := io.WriteString(w, b.String())
	return err
}

func auditName(a *auditReport) string {
	name := printable(a.Table, 60)
	if a.Index != "" {
		name += " · index " + printable(a.Index, 60)
	}
	return name
}
