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

// pipeline is the path every command shares: raw Lambda-event JSON, through
// detector.Feed (the same path as the Lambda's), into the detector, out as
// reports and onsets, in stream order.
type pipeline struct {
	in     *detector.Feed
	dec    *record.Decoder
	det    *detector.Detector
	keys   *keyProfile // the detector, behind the profile of the key attributes
	out    streamWriter
	stderr io.Writer
	name   string // the command, for stderr

	malformed uint64
	read      int // records read, well-formed or not

	described string          // the table --describe-table describes, if given
	tables    map[string]bool // the tables reported
	warned    map[string]bool // the warnings said on stderr
}

// newPipeline returns the pipeline of command name. fromSchema says that
// the partition key (if any) is the table's, from DescribeTable or
// --describe-table, rather than named by hand: only a key named by hand is
// second-guessed (keyProfile).
func newPipeline(name string, o *options, out outputOptions, stdout, stderr io.Writer, now func() time.Time, fromSchema bool) (*pipeline, error) {
	dec, err := record.NewDecoder(record.Config{PartitionKey: o.partitionKey, Table: o.table, Indexes: o.indexDefs})
	if err != nil {
		return nil, usageError{err}
	}
	det, err := detector.New(o.cfg)
	if err != nil {
		return nil, usageError{flagError(err)}
	}
	p := &pipeline{dec: dec, det: det, stderr: stderr, name: name, described: o.described, tables: map[string]bool{}, warned: map[string]bool{}}
	p.keys = newKeyProfile(det, o.partitionKey, fromSchema || o.describeTable != "")
	out.table.keyDoubt = p.keys.doubt
	out.table.limit = o.cfg.PartitionLimit
	p.out = newStreamWriter(out, stdout)
	if o.heatmap != "" {
		p.out = newHeatmapWriter(p.out, o.heatmap, o.cfg, now)
	}
	p.in = detector.NewFeed(dec, now)
	return p, nil
}

// feed analyses one payload. shard, when not empty, is the stream shard the
// records came from (watch knows it; a plain Lambda batch does not say).
// The onsets it showed, and the reports of the windows that record time
// has moved past, are written out in stream order.
func (p *pipeline) feed(name string, payload []byte, shard string) error {
	c, err := p.in.Decode(payload, p.keys, detector.Hooks{
		Shard: shard,
		Malformed: func(m *record.Malformed) {
			p.keys.malformed(m)
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
		return usageError{errors.New(likelyKey(amb, name, payload))}
	case errors.As(err, &syn):
		return inputError{fmt.Sprintf("%s: %v", name, err)}
	case err != nil:
		return err // an *InternalError: a bug, exit status 3
	}
	p.keys.learn(payload)
	return p.emit(p.det.Onsets(nil), p.det.Flush())
}

// emit writes onsets and closed windows' reports in stream order: a
// window closes once record time passes its end by the lateness, and
// its report comes before the onsets of that second and later. The
// profile's warnings are said first, so that a window that found nothing
// says why it may have missed something.
func (p *pipeline) emit(onsets []report.Onset, reps []report.Report) error {
	p.warn()
	for _, r := range reps {
		p.tables[r.Table] = true
	}
	lateness := p.det.Config().Lateness
	for len(onsets) > 0 || len(reps) > 0 {
		n := 0
		for n < len(reps) && (len(onsets) == 0 || !reps[n].End.Add(lateness).After(onsets[0].Second)) {
			n++
		}
		if n > 0 {
			if err := p.out.Write(reps[:n]); err != nil {
				return err
			}
			reps = reps[n:]
			continue
		}
		m := 0
		for m < len(onsets) && (len(reps) == 0 || onsets[m].Second.Before(reps[0].End.Add(lateness))) {
			m++
		}
		if err := p.out.WriteOnsets(onsets[:m]); err != nil {
			return err
		}
		onsets = onsets[m:]
	}
	return nil
}

// warn says on stderr, once each, what the key profile warns of: when it
// first does (the summary has the figures at the end).
func (p *pipeline) warn() {
	for _, w := range p.keys.warnings() {
		if !p.warned[w.kind] {
			p.warned[w.kind] = true
			fmt.Fprintf(p.stderr, "hotkeys %s: warning: %s\n", p.name, w.text)
		}
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

// finish reports every window still open, then what the run as a whole
// says. A --describe-table of another table than the records' is said:
// its partition key and indexes were applied to records they may not fit.
func (p *pipeline) finish() error {
	if err := p.emit(p.det.Onsets(nil), p.det.FlushAll()); err != nil {
		return err
	}
	var warnings []string
	for _, w := range p.keys.warnings() {
		warnings = append(warnings, w.text)
	}
	if p.described != "" && len(p.tables) > 0 && !p.tables[p.described] {
		w := fmt.Sprintf("--describe-table describes table %q, but the records are of %s: its partition key and indexes may not fit them",
			p.described, strings.Join(slices.Sorted(maps.Keys(p.tables)), ", "))
		fmt.Fprintf(p.stderr, "hotkeys: warning: %s\n", w)
		warnings = append(warnings, w)
	}
	return p.out.Close(warnings)
}

// keyWarning is the exit status's reason when the profile doubts the
// partition key: the run analysed everything, but its figures may be by
// the wrong attribute.
func (p *pipeline) keyWarning() error {
	if len(p.keys.warnings()) > 0 {
		return warningError{fmt.Sprintf("analysed, with a warning: the figures may be by the wrong attribute (--partition-key %s, see above)", p.keys.partitionKey)}
	}
	return nil
}
