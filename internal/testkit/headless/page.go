package headless

import (
	"bytes"
	"encoding/binary"
	"errors"
	"hash/crc32"
	"regexp"
	"strconv"
)

// svgSize matches the size of a page's <svg> blocks, as package heatmap
// writes them.
var svgSize = regexp.MustCompile(`<svg width="(\d+)" height="(\d+)"`)

// PageSize is the size a screenshot of page (a heatmap) must have to show
// all of it: its <svg> blocks stacked, as the page lays them out (no body
// margin). ok is false for a page without one.
func PageSize(page []byte) (width, height int, ok bool) {
	for _, m := range svgSize.FindAllSubmatch(page, -1) {
		w, _ := strconv.Atoi(string(m[1]))
		h, _ := strconv.Atoi(string(m[2]))
		width, height, ok = max(width, w), height+h, true
	}
	return width, height, ok
}

// PNG text chunks: a screenshot says which page it was taken of, so that a
// test can tell a stale picture from a current one without comparing
// pixels (which differ with the fonts of the machine that took it).

var pngSignature = []byte("\x89PNG\r\n\x1a\n")

// SetText returns png with a tEXt chunk key=value before its end.
func SetText(png []byte, key, value string) ([]byte, error) {
	end := bytes.LastIndex(png, []byte("IEND"))
	if !bytes.HasPrefix(png, pngSignature) || end < 4 {
		return nil, errors.New("not a PNG")
	}
	data := append(append([]byte(key), 0), value...)
	chunk := binary.BigEndian.AppendUint32(nil, uint32(len(data)))
	chunk = append(chunk, "tEXt"...)
	chunk = append(chunk, data...)
	chunk = binary.BigEndian.AppendUint32(chunk, crc32.ChecksumIEEE(chunk[4:]))
	out := append([]byte{}, png[:end-4]...) // the IEND chunk starts with its length
	out = append(out, chunk...)
	return append(out, png[end-4:]...), nil
}

// Text returns png's tEXt chunks, by key.
func Text(png []byte) (map[string]string, error) {
	if !bytes.HasPrefix(png, pngSignature) {
		return nil, errors.New("not a PNG")
	}
	out := map[string]string{}
	for b := png[len(pngSignature):]; len(b) >= 12; {
		n := int(binary.BigEndian.Uint32(b))
		if n < 0 || 12+n > len(b) {
			return nil, errors.New("a PNG chunk runs past the end")
		}
		if string(b[4:8]) == "tEXt" {
			if k, v, ok := bytes.Cut(b[8:8+n], []byte{0}); ok {
				out[string(k)] = string(v)
			}
		}
		b = b[12+n:]
	}
	return out, nil
}
