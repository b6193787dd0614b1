package main

import (
	"errors"
	"fmt"
	"io"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/hotkeys-dev/hotkeys/detector"
	"github.com/hotkeys-dev/hotkeys/record"
	"github.com/hotkeys-dev/hotkeys/report"
)

// maxMalformedNotes caps the per-record warnings on stderr; the count in
// the report is always complete.
const maxMalformedNotes = 10

// recentIDs is how many event ids the pipeline remembers to count a record
// delivered twice once (Kinesis delivers some more than once), as the
// Lambda's warm container does.
const recentIDs = 1 << 16

// pipeline is the path every command shares: raw Lambda-event JSON, through
// detector.Feed (the same path as the Lambda's), into the detector, out as
// reports.
type pipeline struct {
	in     *detector.Feed
	det    *detector.Detector
	sink   detector.Deduper // det, knowing a record delivered twice by its eventID
	out    reportWriter[report.Report]
	stderr io.Writer

	malformed uint64
	read      int // records read, well-formed or not

	described string          // the table --describe-table describes, if given
	tables    map[string]bool // the tables reported

	// onsets, when not nil, gets one line per onset (a key crossing the
	// critical rate inside its window) as the records show it, before the
	// window's report.
	onsets io.Writer
}

func newPipeline(o *options, out reportWriter[report.Report], stderr io.Writer, now func() time.Time) (*pipeline, error) {
	dec, err := record.NewDecoder(record.Config{PartitionKey: o.partitionKey, Indexes: o.indexDefs})
	if err != nil {
		return nil, usageError{err}
	}
	det, err := detector.New(o.cfg)
	if err != nil {
		return nil, usageError{flagError(err)}
	}
	if o.heatmap != "" {
		out = newHeatmapWriter(out, o.heatmap, o.cfg, now)
	}
	sink := detector.DedupeByEventID(det, detector.NewRecentIDs(recentIDs))
	return &pipeline{in: detector.NewFeed(dec, now), det: det, sink: sink, out: out, stderr: stderr, described: o.described, tables: map[string]bool{}}, nil
}

// feed analyses one payload. shard, when not empty, is the stream shard the
// records came from (watch knows it; a plain Lambda batch does not say).
// Reports of the windows that record time has moved past are written out.
func (p *pipeline) feed(name string, payload []byte, shard string) error {
	c, err := p.in.Decode(payload, p.sink, detector.Hooks{
		Shard: shard,
		Malformed: func(m *record.Malformed) {
			p.malformed++
			if p.malformed <= maxMalformedNotes {
				fmt.Fprintf(p.stderr, "hotkeys: %s: skipped malformed record at byte %d (eventID %q): %v\n", name, m.Offset, m.EventID, m.Err)
			} else if p.malformed == maxMalformedNotes+1 {
				fmt.Fprintf(p.stderr, "hotkeys: %s: more malformed records; the reports count them all\n", name)
			}
		},
	})
	p.read += c.Records + c.Duplicates + c.Malformed + c.Internal
	var amb *record.AmbiguousKeyError
	var syn *record.SyntaxError
	switch {
	case errors.As(err, &amb):
		return usageError{fmt.Errorf("%w: name it with --partition-key (%s or %s), or give --describe-table FILE", err, amb.Attributes[0], amb.Attributes[1])}
	case errors.As(err, &syn):
		return inputError{fmt.Sprintf("%s: %v", name, err)}
	case err != nil:
		return err // an *InternalError: a bug, exit status 3
	}
	p.announce()
	return p.write(p.det.Flush())
}

// announce writes the onsets the last payload showed, in order, with their
// second; without an onsets writer it only lets them go.
func (p *pipeline) announce() {
	for _, o := range p.det.Onsets(nil) {
		if p.onsets == nil {
			continue
		}
		where := printable(o.Table, 60)
		if o.Index != "" {
			where += " · index " + printable(o.Index, 60)
		}
		fmt.Fprintf(p.onsets, "▲ onset %s UTC  %s  %s  %d WCU in that second  %s\n",
			o.Second.UTC().Format("2006-01-02 15:04:05"), where, printable(o.Key.Key, keyCellWidth), o.SecondWCULower, o.Key.Pattern)
	}
}

// malformedError is the exit status's reason when malformed records were
// skipped.
func (p *pipeline) malformedError() error {
	if p.malformed == 1 {
		return inputError{"1 malformed record was skipped (counted in the reports)"}
	}
	return inputError{fmt.Sprintf("%d malformed records were skipped (counted in the reports)", p.malformed)}
}

// write writes reports out, noting their tables.
func (p *pipeline) write(reps []report.Report) error {
	for _, r := range reps {
		p.tables[r.Table] = true
	}
	return p.out.Write(reps)
}

// finish reports every window still open.
// A --describe-table of another table than the records' is said: its
// partition key and indexes were applied to records they may not fit.
func (p *pipeline) finish() error {
	p.announce()
	if err := p.write(p.det.FlushAll()); err != nil {
		return err
	}
	if p.described != "" && len(p.tables) > 0 && !p.tables[p.described] {
		fmt.Fprintf(p.stderr, "hotkeys: warning: --describe-table describes table %q, but the records are of %s: its partition key and indexes may not fit them\n",
			p.described, strings.Join(slices.Sorted(maps.Keys(p.tables)), ", "))
	}
	return p.out.Close()
}
