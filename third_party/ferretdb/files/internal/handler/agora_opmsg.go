// Agora's replies without a second decode (patch 0014).
//
// FerretDB sets wire.CheckNaNs (wire.go). With it the wire package checks every OP_MSG it reads
// from a client (wire.ReadMessage) and every one it builds (wire.NewOpMsg, through SetSections):
// each document of each section is decoded whole (wirebson's DecodeDeep, a tree of values) and
// walked for a float64 NaN; a document that does not decode, or holds a NaN, fails the message.
// For a reply that is a second decode of what the handler has just encoded, and that was ~20 % of
// FerretDB's CPU for a find of 5,000 documents, 4-5 % of a find by _id.
//
// agoraNewOpMsg builds a reply as wire.NewOpMsg does, but establishes what the check establishes
// by one pass over the encoded bytes that allocates nothing (agoraBSONClean): the document
// decodes (every test DecodeDeep makes, in its order), and holds no NaN. A reply that passes is
// built without the wire package decoding it; any other reply (a NaN an aggregation computed,
// +Inf + -Inf; bytes DecodeDeep refuses) is built by wire.NewOpMsg itself, so the handler gets
// FerretDB's own error, word for word, and the client the same InternalError. Messages read from
// clients are untouched: wire.CheckNaNs stays set, and wire.ReadMessage refuses a NaN or a bad
// document as before (the connection is closed).
//
// The message is the one wire.NewOpMsg builds (one section of kind 0 holding the document): it is
// built by wire.NewOpMsg from an empty document, which the check decodes in a few allocations,
// and the section's document is then replaced (Sections and Documents return the message's own
// slices, as SetSections stores them). agora_opmsg_test.go compares both ways on every kind of
// document, valid or not, with and without NaN.

package handler

import (
	"bytes"
	"encoding/binary"
	"math"
	"strconv"

	"github.com/FerretDB/wire"
	"github.com/FerretDB/wire/wirebson"
)

// agoraEmptyDocument is the document a reply is first built with.
var agoraEmptyDocument = wirebson.RawDocument{5, 0, 0, 0, 0}

// agoraNewOpMsg returns what wire.NewOpMsg(doc) returns with wire.CheckNaNs set, without decoding
// a document that agoraBSONClean accepts.
func agoraNewOpMsg(doc wirebson.AnyDocument) (*wire.OpMsg, error) {
	raw, err := doc.Encode()
	if err != nil {
		return wire.NewOpMsg(doc)
	}

	if !agoraBSONClean(raw) {
		return wire.NewOpMsg(raw)
	}

	msg, err := wire.NewOpMsg(agoraEmptyDocument)
	if err != nil {
		return wire.NewOpMsg(raw)
	}

	msg.Sections()[0].Documents()[0] = raw

	// Were the slices copies, the message would still hold the empty document.
	if got := msg.RawSection0(); len(got) != len(raw) || &got[0] != &raw[0] {
		return wire.NewOpMsg(raw)
	}

	return msg, nil
}

// agoraBSONClean reports whether b is one BSON document that wirebson's DecodeDeep decodes
// without an error and that holds no float64 NaN at any depth, that is, whether the wire
// package's check with CheckNaNs passes it. It mirrors RawDocument.decode, RawArray.decode and
// decodeScalarField of github.com/FerretDB/wire v0.0.8: the same lengths, terminators, boolean
// bytes, array keys ("0", "1", ... in order) and refused tags. It may only err towards false (the
// caller then asks the wire package); agora_opmsg_test.go checks that it agrees both ways.
func agoraBSONClean(b []byte) bool {
	return agoraBSONCleanDocument(b, false)
}

// agoraBSONCleanDocument checks the document (or array) that is exactly b.
func agoraBSONCleanDocument(b []byte, array bool) bool {
	// FindRaw, and the length equal to the slice's
	if len(b) < 5 {
		return false
	}

	if dl := binary.LittleEndian.Uint32(b); uint64(dl) != uint64(len(b)) || b[len(b)-1] != 0 {
		return false
	}

	offset := 4

	for i := 0; ; i++ {
		if offset >= len(b) {
			return false
		}

		t := b[offset]
		if t == 0 {
			return offset+1 == len(b)
		}

		offset++

		if offset >= len(b) {
			return false
		}

		n := bytes.IndexByte(b[offset:], 0)
		if n < 0 {
			return false
		}

		if array && !agoraArrayKey(b[offset:offset+n], i) {
			return false
		}

		offset += n + 1
		v := b[offset:]

		var size int

		switch t {
		case 0x01: // float64
			if len(v) < 8 || math.IsNaN(math.Float64frombits(binary.LittleEndian.Uint64(v))) {
				return false
			}

			size = 8

		case 0x02: // string
			if len(v) < 5 {
				return false
			}

			l := uint64(binary.LittleEndian.Uint32(v))
			if l < 1 || 4+l > uint64(len(v)) || v[4+l-1] != 0 {
				return false
			}

			size = 4 + int(l)

		case 0x03, 0x04: // document, array
			if len(v) < 5 {
				return false
			}

			l := uint64(binary.LittleEndian.Uint32(v))
			if l < 5 || l > uint64(len(v)) || !agoraBSONCleanDocument(v[:l], t == 0x04) {
				return false
			}

			size = int(l)

		case 0x05: // binary
			if len(v) < 5 {
				return false
			}

			l := uint64(binary.LittleEndian.Uint32(v))
			if 5+l > uint64(len(v)) {
				return false
			}

			size = 5 + int(l)

		case 0x07: // ObjectID
			size = 12

		case 0x08: // bool
			if len(v) < 1 || v[0] > 1 {
				return false
			}

			size = 1

		case 0x09, 0x11, 0x12: // time, timestamp, int64
			size = 8

		case 0x0a: // null
			size = 0

		case 0x0b: // regex: pattern and options, each up to a 0 byte
			p := bytes.IndexByte(v, 0)
			if p < 0 {
				return false
			}

			o := bytes.IndexByte(v[p+1:], 0)
			if o < 0 {
				return false
			}

			size = p + 1 + o + 1

		case 0x10: // int32
			size = 4

		case 0x13: // decimal128
			size = 16

		default: // undefined, DBPointer, JavaScript, symbol, JavaScript with scope, min and max key, unknown
			return false
		}

		if len(v) < size {
			return false
		}

		offset += size
	}
}

// agoraArrayKey reports whether key is strconv.Itoa(i), the key RawArray.decode requires.
func agoraArrayKey(key []byte, i int) bool {
	var buf [20]byte

	return bytes.Equal(key, strconv.AppendInt(buf[:0], int64(i), 10))
}
