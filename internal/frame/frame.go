// Package frame is the one binary encoding of what hotkeys persists: a
// sketch.Summary, a detector.Window (the Lambda's tumbling-window state)
// and a history.Summary (an item of the history table). Each is framed the
// same way:
//
//	magic     a few fixed bytes naming the format, or none
//	version   1 byte
//	body      the format's fields
//	checksum  CRC-32C (Castagnoli) of everything before it, 4 bytes big-endian
//
// A body is written with encoding/binary's AppendUvarint, AppendVarint and
// BigEndian.AppendUint32/64, and with AppendBytes and AppendString here for
// a length and its bytes; a Reader reads it back. CRC-32C is the checksum
// of iSCSI (RFC 3720), with hardware support on amd64 and arm64.
//
// A Reader is sticky: it keeps the first error, returns zeros after it,
// and is checked once at the end. Every error names the format's package
// and wraps its Corrupt sentinel (or Version, for a version it does not
// read); one that ran out of input also wraps ErrTruncated, the one
// truncation error of every format.
package frame

import (
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
)

// ErrTruncated is wrapped by every error about input that ends before its
// frame or its lengths say it does. sketch exports it as
// sketch.ErrTruncated. Its text has no package prefix: the error that
// wraps it starts with the prefix of the format's package.
var ErrTruncated = errors.New("truncated encoding")

// checksumLen is the length of the trailing CRC-32C.
const checksumLen = 4

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// Format is one framed encoding: its magic, the versions it reads, and
// the errors of the package that owns it.
type Format struct {
	// Name prefixes every error message: the owning package, "sketch".
	Name string
	// Magic is written before the version byte; "" for none.
	Magic string
	// Oldest and Newest bound the versions Open accepts.
	Oldest, Newest byte
	// Corrupt is wrapped by every error but an unknown version's, which
	// wraps Version. They may be the same error.
	Corrupt, Version error
}

// AppendHeader appends the start of an encoding of version: the magic and
// the version byte.
func (f *Format) AppendHeader(b []byte, version byte) []byte {
	b = append(b, f.Magic...)
	return append(b, version)
}

// AppendChecksum appends the CRC-32C of b[start:], big-endian: the end of
// an encoding begun at start with AppendHeader.
func AppendChecksum(b []byte, start int) []byte {
	return binary.BigEndian.AppendUint32(b, crc32.Checksum(b[start:], castagnoli))
}

// AppendBytes appends p's length as a uvarint, then p.
func AppendBytes(b, p []byte) []byte {
	b = binary.AppendUvarint(b, uint64(len(p)))
	return append(b, p...)
}

// AppendString appends s's length as a uvarint, then s.
func AppendString(b []byte, s string) []byte {
	b = binary.AppendUvarint(b, uint64(len(s)))
	return append(b, s...)
}

// Open checks the frame of data and returns its version and a Reader of
// its body. It checks, in this order: the magic, the version (an error
// wrapping f.Version: a newer build's encoding is not corrupt), the
// length (ErrTruncated), then the checksum. The Reader's bytes are data's.
func (f *Format) Open(data []byte) (version byte, r Reader, err error) {
	header := len(f.Magic) + 1
	for i := range len(f.Magic) {
		switch {
		case i == len(data):
			return 0, Reader{}, fmt.Errorf("%s: %d bytes, within the magic %q: %w: %w", f.Name, len(data), f.Magic, ErrTruncated, f.Corrupt)
		case data[i] != f.Magic[i]:
			return 0, Reader{}, fmt.Errorf("%s: does not start with %q: %w", f.Name, f.Magic, f.Corrupt)
		}
	}
	if len(data) < header {
		return 0, Reader{}, fmt.Errorf("%s: %d bytes, no version: %w: %w", f.Name, len(data), ErrTruncated, f.Corrupt)
	}
	if version = data[header-1]; version < f.Oldest || version > f.Newest {
		if f.Oldest == f.Newest {
			return 0, Reader{}, fmt.Errorf("%s: version %d, want %d: %w", f.Name, version, f.Newest, f.Version)
		}
		return 0, Reader{}, fmt.Errorf("%s: version %d, want %d to %d: %w", f.Name, version, f.Oldest, f.Newest, f.Version)
	}
	if len(data) < header+checksumLen {
		return 0, Reader{}, fmt.Errorf("%s: %d bytes, shorter than a frame: %w: %w", f.Name, len(data), ErrTruncated, f.Corrupt)
	}
	end := len(data) - checksumLen
	if got, want := crc32.Checksum(data[:end], castagnoli), binary.BigEndian.Uint32(data[end:]); got != want {
		return 0, Reader{}, fmt.Errorf("%s: checksum %#08x, want %#08x: %w", f.Name, got, want, f.Corrupt)
	}
	return version, f.NewReader(data[header:end]), nil
}

// NewReader returns a Reader of b whose errors are f's: for a part of a
// body read on its own.
func (f *Format) NewReader(b []byte) Reader {
	return Reader{b: b, f: f}
}
